/* Adversarial test of the tree's kept rebuild record (review rev21 of d2fc381): random inserts,
 * lazy inserts, removes, moves, enlarges, refits, full rebuilds and incremental rebuild steps,
 * prepares, cancels and releases, the leaf count swept up and down across the CL_TREE_KEEP_BYTES
 * line, under an allocator that checks every free's and resize's osize against the size it
 * handed out and fails allocations at random. tree.c is included so that the private rebuild
 * record's blocks can be checked against the tree they serve.
 * Build: cc -std=c99 -O1 -g -Icsrc/core -o build/check-tree-keep csrc/test/test_tree_keep.c -lm
 * Args: [seed [ops [check_every]]]. Exit 0 when nothing was found. */
#include "../core/tree.c"
#include <stdio.h>
#include <stdlib.h>

/* ---- a size-checking, failure-injecting allocator ---- */
typedef struct { size_t size; unsigned magic; } ahdr;
#define AMAGIC 0x7e57a11cu
static size_t live_bytes, live_blocks, peak;
static long nallocs, nfails, bad;
static unsigned fail_per_mille;     /* chance that an allocation or growth fails */
static unsigned long long rs = 88172645463325252ull;
static unsigned rnd(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (unsigned)(rs >> 11); }
static unsigned long long fs = 1;    /* the failure stream, apart from the op stream */
static unsigned frnd(void) { fs ^= fs << 13; fs ^= fs >> 7; fs ^= fs << 17; return (unsigned)(fs >> 11); }

#define FAIL(...) do { bad++; fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)

static size_t block_size(const void *p) {
    const ahdr *h = (const ahdr *)p - 1;
    if (h->magic != AMAGIC) { FAIL("block %p has no header", p); return 0; }
    return h->size;
}

static void *talloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    ahdr *h = NULL;
    (void)ud;
    if (ptr) {
        h = (ahdr *)ptr - 1;
        if (h->magic != AMAGIC) { FAIL("free/resize of %p: no header", ptr); abort(); }
        if (h->size != osize) FAIL("osize %zu passed for a block of %zu", osize, h->size);
    }
    if (nsize == 0) {
        if (ptr) {
            live_bytes -= h->size;
            live_blocks--;
            h->magic = 0;
            free(h);
        }
        return NULL;
    }
    nallocs++;
    if (fail_per_mille && frnd() % 1000 < fail_per_mille) { nfails++; return NULL; }
    {
        ahdr *n = (ahdr *)realloc(h, sizeof(ahdr) + nsize + 16);
        if (!n) abort();
        if (ptr) live_bytes -= n->size; else live_blocks++;
        n->size = nsize;
        n->magic = AMAGIC;
        live_bytes += nsize;
        if (live_bytes > peak) peak = live_bytes;
        return n + 1;
    }
}

/* ---- the model: payload -> leaf node, alive or not ---- */
#define MAXL 60000
static int leafof[MAXL], alive[MAXL], nalive, aliveset[MAXL], pos[MAXL];

static void set_alive(int d, int leaf) { leafof[d] = leaf; alive[d] = 1; pos[d] = nalive; aliveset[nalive++] = d; }
static void set_dead(int d) { int last = aliveset[--nalive]; aliveset[pos[d]] = last; pos[last] = pos[d]; alive[d] = 0; }

static cl_aabb rbox(void) {
    cl_aabb b;
    double x = rnd() % 10000 * 0.1, y = rnd() % 10000 * 0.1, z = rnd() % 100 * 0.1, s = 0.1 + rnd() % 50 * 0.1;
    b.min = cl_v3(x, y, z);
    b.max = cl_v3(x + s, y + s, z + s);
    return b;
}

/* The leaves' nodes now, found by scanning the pool (after an install or a full rebuild). */
static void rescan(const cl_tree *t, const char *when) {
    static int seen[MAXL];
    int i, n = 0;
    memset(seen, 0, sizeof seen);
    for (i = 0; i < t->cap; i++) {
        int d;
        if (t->hgt[i] != 0) continue;
        d = t->nodes[i].child2;
        if (d < 0 || d >= MAXL || !alive[d] || seen[d]) { FAIL("%s: node %d holds payload %d", when, i, d); continue; }
        seen[d] = 1;
        leafof[d] = i;
        n++;
    }
    if (n != nalive) FAIL("%s: %d leaves found, %d alive", when, n, nalive);
}

/* The rebuild records' blocks against the sizes allocated and the tree they serve. */
static void check_records(const cl_tree *t) {
    const struct cl_tbuild *b;
    if ((b = t->bld) != NULL) {
        if (b->cap != t->cap) FAIL("bld cap %d, tree cap %d", b->cap, t->cap);
        if (block_size(b->lv) != b->lvbytes) FAIL("bld lv block %zu, lvbytes %zu", block_size(b->lv), b->lvbytes);
        if (block_size(b->p) != pool_bytes(b->cap)) FAIL("bld pool block %zu, cap %d", block_size(b->p), b->cap);
        if (b->lvbytes < ((size_t)b->cap + (size_t)b->logcap) * sizeof(int)) FAIL("bld lv holds no cap + logcap ints");
        if (b->lvbytes < (size_t)b->n * sizeof(rleaf)) FAIL("bld lv holds no n records");
        if (b->n != t->leaves) FAIL("bld n %d, leaves %d", b->n, t->leaves);
        if ((char *)b->log + (size_t)b->logcap * sizeof(int) > (char *)b->lv + b->lvbytes) FAIL("bld log past lv");
    }
    if ((b = t->old) != NULL) {
        if (block_size(b->lv) != b->lvbytes) FAIL("old lv block %zu, lvbytes %zu", block_size(b->lv), b->lvbytes);
        if (block_size(b->p) != pool_bytes(b->cap)) FAIL("old pool block %zu, cap %d", block_size(b->p), b->cap);
    }
    if ((b = t->keep) != NULL) {
        if (b->lv == NULL || b->p == NULL) FAIL("kept record without a block");
        else {
            if (block_size(b->lv) != b->lvbytes) FAIL("keep lv block %zu, lvbytes %zu", block_size(b->lv), b->lvbytes);
            if (block_size(b->p) != pool_bytes(b->cap)) FAIL("keep pool block %zu, cap %d", block_size(b->p), b->cap);
        }
        if (b->lvbytes + pool_bytes(b->cap) > CL_TREE_KEEP_BYTES)
            FAIL("kept record of %zu bytes, over CL_TREE_KEEP_BYTES", b->lvbytes + pool_bytes(b->cap));
    }
}

int main(int argc, char **argv) {
    cl_tree t;
    unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
    long ops = argc > 2 ? atol(argv[2]) : 4000, every = argc > 3 ? atol(argv[3]) : 1, op;
    int target = 2000, nextd = 0, i, tmax = 45000, maxl = 0;
    long trees = 1;
    long installs = 0, starts = 0, prepares_kept = 0, keep_reuse_lv = 0, keep_reuse_p = 0, crossings = 0;
    int above = 0;
    rs ^= seed * 0x9E3779B97F4A7C15ull;
    fs ^= seed * 0xD1B54A32D192ED03ull;
    for (i = 0; i < MAXL; i++) alive[i] = 0;
    cl_tree_init(&t, talloc, NULL);
    for (op = 0; op < ops; op++) {
        int r = rnd() % 100;
        if (nalive > maxl) maxl = nalive;
        if (t.cap > 0) {
            int lc, a = build_lvbytes(&t, &lc) + pool_bytes(t.cap) > CL_TREE_KEEP_BYTES;
            if (a != above) crossings++;
            above = a;
        }
        fail_per_mille = rnd() % 3 == 0 ? 200 : 0;
        if (rnd() % 150 == 0) target = rnd() % 2 ? tmax : 50 + (int)(rnd() % (unsigned)tmax);      /* sweeps across the keep line */
        if (op > 0 && op % 700 == 0) {  /* a new tree: its pool grows from 16 nodes again */
            fail_per_mille = 0;
            cl_tree_free(&t);
            if (live_bytes || live_blocks) FAIL("op %ld, cl_tree_free: %zu bytes in %zu blocks live", op, live_bytes, live_blocks);
            while (nalive) set_dead(aliveset[0]);
            tmax = 28000 + rnd() % 14000;
            target = tmax;
            trees++;
        }
        if (r < 30 && rnd() % 3 == 0) {  /* a batch of inserts toward the target, or removes */
            int k, nb = 1 + rnd() % 3000, lazy = rnd() % 2;
            if (nalive < target) {
                if (lazy && cl_tree_reserve(&t, nb) != CL_OK) continue;
                for (k = 0; k < nb && nalive < MAXL - 1; k++) {
                    cl_aabb b = rbox();
                    int d, leaf;
                    while (alive[nextd]) nextd = (nextd + 1) % MAXL;
                    d = nextd;
                    leaf = lazy ? cl_tree_insert_lazy(&t, &b, d) : cl_tree_insert(&t, &b, d);
                    if (leaf == CL_NULLNODE) break;
                    set_alive(d, leaf);
                }
            } else {
                for (k = 0; k < nb && nalive > 0; k++) {
                    int d = aliveset[rnd() % nalive];
                    cl_tree_remove(&t, leafof[d]);
                    set_dead(d);
                }
            }
        } else if (r < 40) {
            int k;
            if (r < 30) continue;
            for (k = 0; k < 50 && nalive > 0; k++) {
                int d = aliveset[rnd() % nalive];
                cl_aabb b = rbox();
                if (t.npend) break;
                if (rnd() % 2) cl_tree_move(&t, leafof[d], &b);
                else cl_tree_enlarge(&t, leafof[d], &b);
            }
        } else if (r < 45) {
            cl_tree_link_pending(&t);
        } else if (r < 47) {
            if (t.npend == 0) cl_tree_refit(&t);
        } else if (r < 50) {
            if (cl_tree_rebuild(&t) == CL_OK) rescan(&t, "full rebuild");
        } else if (r < 60) {
            struct cl_tbuild *k0 = t.keep;
            cl_tree_rebuild_prepare(&t);
            if (t.keep && t.keep != k0) prepares_kept++;
        } else if (r < 70) {
            struct cl_tbuild *k0 = t.keep;
            void *lv0 = k0 ? (void *)k0->lv : NULL, *p0 = k0 ? (void *)k0->p : NULL;
            long f0 = nfails;
            int rc = t.bld == NULL ? cl_tree_rebuild_start(&t) : CL_OK;
            if (rc != CL_OK && nfails == f0) FAIL("op %ld: rebuild start failed with no failed allocation", op);
            if (rc == CL_OK && t.bld) {
                starts++;
                if (t.bld == k0 && (void *)t.bld->lv == lv0) keep_reuse_lv++;
                if (t.bld == k0 && (void *)t.bld->p == p0) keep_reuse_p++;
            }
        } else if (r < 92) {
            int k, n = 1 + rnd() % 16;
            for (k = 0; k < n && t.bld; k++) {
                const int *map;
                if (rnd() % 3 == 0 && t.npend == 0) {  /* a frame's leaf changes between steps */
                    int j;
                    for (j = 0; j < 20 && nalive > 0; j++) {
                        int d = aliveset[rnd() % nalive];
                        cl_aabb b = rbox();
                        cl_tree_enlarge(&t, leafof[d], &b);
                    }
                }
                if (cl_tree_rebuild_step(&t, 1 + rnd() % 20000)) {
                    int j;
                    installs++;
                    map = cl_tree_rebuild_map(&t);
                    if (map == NULL) FAIL("no map after an install");
                    else for (j = 0; j < nalive; j++) {
                        int d = aliveset[j];
                        leafof[d] = map[leafof[d]];
                    }
                    for (j = 0; j < nalive; j++) {
                        int d = aliveset[j];
                        if (leafof[d] < 0 || leafof[d] >= t.cap || t.hgt[leafof[d]] != 0 ||
                            t.nodes[leafof[d]].child2 != d) { FAIL("op %ld: map sends payload %d astray", op, d); break; }
                    }
                    rescan(&t, "install");
                }
            }
        } else if (r < 96) {
            cl_tree_rebuild_cancel(&t);
        } else {
            cl_tree_rebuild_release(&t);
        }
        if (op % every == 0 || op == ops - 1) {
            check_records(&t);
            if (!cl_tree_validate(&t)) FAIL("op %ld: tree invalid", op);
            if (t.leaves != nalive) FAIL("op %ld: %d leaves, %d alive", op, t.leaves, nalive);
        }
        if (bad > 20) break;
    }
    fail_per_mille = 0;
    i = t.cap;
    cl_tree_free(&t);
    if (live_bytes || live_blocks) FAIL("after cl_tree_free: %zu bytes in %zu blocks live", live_bytes, live_blocks);
    printf("seed %lu: %ld ops, %ld trees, %ld starts (kept leaf block reused %ld, pool %ld), %ld installs, %ld prepares kept,"
           " %ld allocations (%ld failed), peak %zu bytes, cap %d, keep-line crossings %ld, most leaves %d, node bytes %zu: %ld bad\n",
           seed, op, trees, starts, keep_reuse_lv, keep_reuse_p, installs, prepares_kept, nallocs, nfails, peak, i,
           crossings, maxl, CL_TREE_NODE_BYTES, bad);
    return bad != 0;
}
