/* collide core: dynamic AABB tree. See tree.h for the design. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "tree.h"

#define LEAF(t, i) ((t)->nodes[i].child1 == CL_NULLNODE)
#if defined(__GNUC__) || defined(__clang__)
#define TPREFETCH(p) __builtin_prefetch(p)
#else
#define TPREFETCH(p) ((void)(p))
#endif
#define H(t, i) ((t)->hgt[i])

/* Returns the float just below finite f. */
static float f_prev(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (f == 0) u = 0x80000001u;
    else if (f > 0) u--;
    else u++;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Returns d rounded down to a float (never above d). The usual case steps the bits without a
 * data-dependent branch (whether float rounding went up is a coin toss the CPU cannot predict). */
static float f_down(double d) {
    float f;
    uint32_t u, step;
    if (!(d >= -FLT_MAX && d <= FLT_MAX)) {
        if (d > FLT_MAX) return FLT_MAX;
        if (d < -FLT_MAX) return -INFINITY;
        return (float)d;
    }
    f = (float)d;
    memcpy(&u, &f, sizeof u);
    step = (double)f > d;
    if ((u & 0x7fffffffu) == 0) return step ? f_prev(f) : f;
    u += step * ((u >> 31) * 2u - 1u);      /* positive: one float down; negative: one up in magnitude */
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Returns d rounded up to a float (never below d). */
static float f_up(double d) {
    return -f_down(-d);
}

cl_fbox cl_fbox_from(const cl_aabb *b) {
    cl_fbox f;
    f.lo[0] = f_down(b->min.x); f.lo[1] = f_down(b->min.y); f.lo[2] = f_down(b->min.z);
    f.hi[0] = f_up(b->max.x); f.hi[1] = f_up(b->max.y); f.hi[2] = f_up(b->max.z);
    return f;
}

cl_aabb cl_fbox_to(const cl_fbox *f) {
    cl_aabb b;
    b.min = cl_v3(f->lo[0], f->lo[1], f->lo[2]);
    b.max = cl_v3(f->hi[0], f->hi[1], f->hi[2]);
    return b;
}

/* The rebuild's centre bounds and binning 4 lanes at a time with SSE when the compiler targets
 * it (every x86-64), else plain comparisons (define CL_NO_SIMD to force them): minps/maxps
 * select as the comparisons do (the second operand on ties and NaN), so the same tree. */
#if defined(__SSE2__) && !defined(CL_NO_SIMD)
#include <emmintrin.h>
#define TSIMD 1
#else
#define TSIMD 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TINLINE static inline __attribute__((always_inline))
#else
#define TINLINE static inline
#endif

/* Returns the union of two float boxes (inlined: the hot step of insertion, refits and
 * rebuilds). */
TINLINE cl_fbox fb_union(const cl_fbox *a, const cl_fbox *b) {
    cl_fbox r;
    int k;
    for (k = 0; k < 3; k++) {
        r.lo[k] = a->lo[k] < b->lo[k] ? a->lo[k] : b->lo[k];
        r.hi[k] = a->hi[k] > b->hi[k] ? a->hi[k] : b->hi[k];
    }
    return r;
}

/* Returns half the surface area of the box plus a tiny multiple of its half perimeter (so flat
 * and degenerate boxes still compare by size): the insertion and rotation cost measure. */
static double fb_cost(const cl_fbox *b) {
    double dx = (double)b->hi[0] - b->lo[0], dy = (double)b->hi[1] - b->lo[1];
    double dz = (double)b->hi[2] - b->lo[2];
    return dx * dy + dy * dz + dz * dx + 1e-9 * (dx + dy + dz);
}

/* Returns the cost of the union of two boxes. */
static double fb_ucost(const cl_fbox *a, const cl_fbox *b) {
    cl_fbox u = fb_union(a, b);
    return fb_cost(&u);
}

/* Returns 1 if a encloses b. */
static int fb_encloses(const cl_fbox *a, const cl_fbox *b) {
    int k;
    for (k = 0; k < 3; k++)
        if (a->lo[k] > b->lo[k] || a->hi[k] < b->hi[k]) return 0;
    return 1;
}

void cl_tree_init(cl_tree *t, cl_alloc alloc, void *ud) {
    t->nodes = NULL;
    t->meta = NULL;
    t->hgt = NULL;
    t->cap = 0;
    t->nfree = 0;
    t->freelist = CL_NULLNODE;
    t->lazy = 0;
    t->lazynext = CL_NULLNODE;
    t->ahead = 0;
    t->root = CL_NULLNODE;
    t->leaves = 0;
    t->pend = NULL;
    t->npend = t->pendcap = 0;
    t->bld = NULL;
    t->old = NULL;
    t->keep = NULL;
    t->built_cost = 0;
    t->alloc = alloc;
    t->ud = ud;
}

/* Returns the size in bytes of a pool block of cap nodes. */
static size_t pool_bytes(int cap) {
    return (size_t)cap * CL_TREE_NODE_BYTES;
}

static void tree_build_free(cl_tree *t, struct cl_tbuild *b);

void cl_tree_free(cl_tree *t) {
    cl_tree_rebuild_cancel(t);
    cl_tree_rebuild_release(t);
    if (t->keep) tree_build_free(t, t->keep);
    if (t->nodes) t->alloc(t->ud, t->nodes, pool_bytes(t->cap), 0);
    if (t->pend) t->alloc(t->ud, t->pend, (size_t)t->pendcap * sizeof(int), 0);
    cl_tree_init(t, t->alloc, t->ud);
}

/* Grows the pool so that at least need nodes are free; CL_OK or CL_ENOMEM (pool unchanged).
 * The block holds the nodes, then the metas, then the heights: it is reallocated in place of the
 * old one and the metas and heights of the nodes below lazy moved up to their new places (the
 * pool at least doubles, so the new metas start at byte 32 ncap >= 64 cap, past the old block's
 * end at 37 cap: no move overlaps another's source).
 * The new nodes are untouched (only their heights are written): they extend the pool's untouched
 * region lazy..cap-1 when it has one (its place in the free list stays), else they go in front
 * of the free list, lowest index first. A pool that doubled for a few more nodes keeps the rest
 * of its new half out of memory until the nodes are handed out, and a big block's realloc moves
 * pages instead of bytes (glibc's and LuaJIT's allocators remap it): doubling a pool of 100,000s
 * of nodes writes 5 of the 37 bytes a set-up node, where a copy into a fresh block (and writing
 * out the untouched region's links, as this once did) cost a page fault per 4 KiB (~10 us each
 * here) and made the add that doubled the pool a game's slowest call (bulk adds leave up to half
 * the pool untouched). */
static int tree_grow(cl_tree *t, int need) {
    int ncap, set;
    cl_tnode *p;
    cl_tmeta *m;
    signed char *h;
    if (t->nfree >= need) return CL_OK;
    cl_tree_rebuild_cancel(t);      /* its pool has the old capacity */
    ncap = t->cap ? t->cap : 16;
    while (ncap - t->cap + t->nfree < need) {
        if (ncap > (1 << 28)) return CL_ENOMEM;
        ncap *= 2;
    }
    p = (cl_tnode *)t->alloc(t->ud, t->nodes, t->nodes ? pool_bytes(t->cap) : 0, pool_bytes(ncap));
    if (!p) return CL_ENOMEM;
    m = (cl_tmeta *)(void *)(p + ncap);
    h = (signed char *)(void *)(m + ncap);
    set = t->lazy > t->ahead ? t->lazy : t->ahead; /* the nodes set up or touched ahead: 0..set-1 */
    if (set > t->cap) set = t->cap;
    if (set > 0) {
        const cl_tmeta *om = (const cl_tmeta *)(const void *)(p + t->cap);
        memmove(h, (const signed char *)(const void *)(om + t->cap), (size_t)set);
        memmove(m, om, (size_t)set * sizeof *m);
    }
    memset(h + set, -1, (size_t)(ncap - set));
    if (t->lazy >= t->cap) {
        t->lazynext = t->freelist;
        t->freelist = CL_TREE_LAZY;
        t->lazy = t->cap;
    }
    t->nfree += ncap - t->cap;
    t->nodes = p;
    t->meta = m;
    t->hgt = h;
    t->cap = ncap;
    return CL_OK;
}

/* Pending leaf k is marked by parent PEND_MARK(k) (below CL_NULLNODE): its slot in t->pend. */
#define PEND_MARK(k) (-2 - (k))
#define PENDING(t, i) ((t)->meta[i].parent < CL_NULLNODE)

int cl_tree_reserve(cl_tree *t, int nleaves) {
    /* each pending leaf holds one node and needs one more when it is linked */
    if (tree_grow(t, 2 * nleaves + t->npend) != CL_OK) return CL_ENOMEM;
    if (t->npend + nleaves > t->pendcap) {
        int ncap = t->pendcap ? t->pendcap : 64;
        int *np;
        while (ncap < t->npend + nleaves) {
            if (ncap > (1 << 28)) return CL_ENOMEM;
            ncap *= 2;
        }
        np = (int *)t->alloc(t->ud, t->pend, (size_t)t->pendcap * sizeof(int), (size_t)ncap * sizeof(int));
        if (!np) return CL_ENOMEM;
        t->pend = np;
        t->pendcap = ncap;
    }
    return CL_OK;
}

/* Takes a node off the free list (the caller made sure one is there); returns its index. */
static int node_alloc(cl_tree *t) {
    int i = t->freelist;
    if (i == CL_TREE_LAZY) {        /* the next untouched node, set up now */
        i = t->lazy++;
        t->freelist = t->lazy < t->cap ? CL_TREE_LAZY : t->lazynext;
    } else {
        t->freelist = t->meta[i].parent;
    }
    t->nfree--;
    t->meta[i].parent = CL_NULLNODE;
    t->hgt[i] = 0;
    t->nodes[i].child1 = t->nodes[i].child2 = CL_NULLNODE;
    return i;
}

/* Returns node i to the free list. */
static void node_release(cl_tree *t, int i) {
    t->hgt[i] = -1;
    t->nodes[i].child1 = t->nodes[i].child2 = CL_NULLNODE;
    t->meta[i].parent = t->freelist;
    t->freelist = i;
    t->nfree++;
}

/* Recomputes box and height of internal node i from its children. */
static void node_refit(cl_tree *t, int i) {
    cl_tnode *n = &t->nodes[i];
    int a = n->child1, b = n->child2;
    n->box = fb_union(&t->nodes[a].box, &t->nodes[b].box);
    t->hgt[i] = (signed char)(1 + (H(t, a) > H(t, b) ? H(t, a) : H(t, b)));
}

/* Makes node c take a's place under a's parent (or as the root). */
static void replace_child(cl_tree *t, int a, int c) {
    int p = t->meta[a].parent;
    t->meta[c].parent = p;
    if (p == CL_NULLNODE) t->root = c;
    else if (t->nodes[p].child1 == a) t->nodes[p].child1 = c;
    else t->nodes[p].child2 = c;
}

/* Replaces child x of p by y. */
static void set_child(cl_tree *t, int p, int x, int y) {
    if (t->nodes[p].child1 == x) t->nodes[p].child1 = y; else t->nodes[p].child2 = y;
    t->meta[y].parent = p;
}

/* Returns 1 if heights x and y differ by at most CL_TREE_SLACK. */
static int close_h(int x, int y) {
    return x - y <= CL_TREE_SLACK && y - x <= CL_TREE_SLACK;
}

/* If the children of a differ in height by more than CL_TREE_SLACK, lifts the taller child U
 * into a's place: a keeps its other child S and takes one of U's children down with it (the
 * one that restores the balance; of two that do, the one giving a the smaller box). Returns
 * the subtree's root. No key order constrains a bounding-volume tree, so one such rotation
 * always suffices (the classic double rotation is never needed). */
static int balance(cl_tree *t, int a) {
    int b = t->nodes[a].child1, c = t->nodes[a].child2, up, s, f, g, down, keep;
    if (LEAF(t, a) || close_h(H(t, b), H(t, c))) return a;
    up = H(t, c) > H(t, b) ? c : b;
    s = up == c ? b : c;
    f = t->nodes[up].child1;
    g = t->nodes[up].child2;
    {
        int hs = H(t, s), hf = H(t, f), hg = H(t, g);
        int okf = close_h(hs, hf) && close_h(1 + (hs > hf ? hs : hf), hg);   /* f goes down */
        int okg = close_h(hs, hg) && close_h(1 + (hs > hg ? hs : hg), hf);   /* g goes down */
        if (okf && okg)
            down = fb_ucost(&t->nodes[s].box, &t->nodes[f].box) <=
                   fb_ucost(&t->nodes[s].box, &t->nodes[g].box) ? f : g;
        else if (okf) down = f;
        else if (okg) down = g;
        else down = hf <= hg ? f : g;
    }
    keep = down == f ? g : f;
    replace_child(t, a, up);
    t->nodes[up].child1 = a;
    t->nodes[up].child2 = keep;
    t->meta[a].parent = up;
    t->meta[keep].parent = up;
    set_child(t, a, up, down);
    node_refit(t, a);
    node_refit(t, up);
    return up;
}

/* Surface-area rotation (Box2D v3): swaps a child x of a with a grandchild y under x's sibling p
 * when that shrinks p's box the most, provided the heights stay within CL_TREE_SLACK. */
static void rotate_sah(cl_tree *t, int a) {
    int side, best_x = -1, best_y = -1, best_p = -1;
    double best_gain = 0;
    for (side = 0; side < 2; side++) {
        int x = side ? t->nodes[a].child2 : t->nodes[a].child1;    /* child moved down */
        int p = side ? t->nodes[a].child1 : t->nodes[a].child2;    /* sibling, gets x */
        double pc;
        int k;
        if (LEAF(t, p)) continue;
        pc = fb_cost(&t->nodes[p].box);
        for (k = 0; k < 2; k++) {
            int y = k ? t->nodes[p].child2 : t->nodes[p].child1;  /* grandchild moved up */
            int z = k ? t->nodes[p].child1 : t->nodes[p].child2;  /* stays under p */
            int hx = H(t, x), hz = H(t, z), hp = 1 + (hx > hz ? hx : hz), hy = H(t, y);
            double gain;
            /* the heights stay within the slack, and a's own height stays as it is: then a change
             * below moves each ancestor's height by at most one, which one rotation repairs */
            if (!close_h(hx, hz) || !close_h(hp, hy) || 1 + (hp > hy ? hp : hy) != H(t, a)) continue;
            gain = pc - fb_ucost(&t->nodes[x].box, &t->nodes[z].box);
            if (gain > best_gain) { best_gain = gain; best_x = x; best_y = y; best_p = p; }
        }
    }
    if (best_x < 0) return;
    set_child(t, a, best_x, best_y);
    set_child(t, best_p, best_y, best_x);
    node_refit(t, best_p);
}

/* Walks from node i to the root, refitting, balancing and rotating every ancestor. */
static void walk_up(cl_tree *t, int i) {
    while (i != CL_NULLNODE) {
        node_refit(t, i);
        i = balance(t, i);
        if (H(t, i) >= 2) {
            rotate_sah(t, i);
            node_refit(t, i);
        }
        i = t->meta[i].parent;
    }
}

/* Returns the sibling of least cost for a new leaf with box D: Box2D v3's branch and bound over
 * "direct cost" (area of the new parent) plus "inherited cost" (growth of the ancestors).
 * Ties between two subtrees go to the nearer centre, then to the shorter subtree.
 * Deviation from Box2D v3: only a subtree of height <= CL_TREE_SLACK may become the sibling,
 * so the new parent is balanced and heights above it grow by at most one at a time, which one
 * rotation per ancestor repairs (see balance). Without this, coincident boxes all pair with the
 * root and the tree becomes a list. */
static int find_sibling(const cl_tree *t, const cl_fbox *D) {
    double areaD = fb_cost(D), inherited = 0, bestcost = DBL_MAX, direct;
    int i = t->root, best = CL_NULLNODE;
    direct = fb_ucost(&t->nodes[i].box, D);
    if (H(t, i) <= CL_TREE_SLACK) { bestcost = direct; best = i; }
    while (!LEAF(t, i)) {
        int c1 = t->nodes[i].child1, c2 = t->nodes[i].child2;
        int leaf1 = LEAF(t, c1), leaf2 = LEAF(t, c2);
        double cost = direct + inherited, d1, d2, low1 = DBL_MAX, low2 = DBL_MAX;
        if (cost < bestcost && H(t, i) <= CL_TREE_SLACK) { bestcost = cost; best = i; }
        inherited += direct - fb_cost(&t->nodes[i].box);
        d1 = fb_ucost(&t->nodes[c1].box, D);
        d2 = fb_ucost(&t->nodes[c2].box, D);
        if (leaf1) {
            if (d1 + inherited < bestcost) { bestcost = d1 + inherited; best = c1; }
        } else {
            double a1 = areaD - fb_cost(&t->nodes[c1].box);
            low1 = inherited + d1 + (a1 < 0 ? a1 : 0);
        }
        if (leaf2) {
            if (d2 + inherited < bestcost) { bestcost = d2 + inherited; best = c2; }
        } else {
            double a2 = areaD - fb_cost(&t->nodes[c2].box);
            low2 = inherited + d2 + (a2 < 0 ? a2 : 0);
        }
        if (leaf1 && leaf2) break;
        if (best != CL_NULLNODE && bestcost <= low1 && bestcost <= low2) break;
        if (low1 == low2) {
            const cl_fbox *b1 = &t->nodes[c1].box, *b2 = &t->nodes[c2].box;
            double e1 = 0, e2 = 0;
            int k;
            for (k = 0; k < 3; k++) {
                double cd = (double)D->lo[k] + D->hi[k];
                double x1 = (double)b1->lo[k] + b1->hi[k] - cd, x2 = (double)b2->lo[k] + b2->hi[k] - cd;
                e1 += x1 * x1;
                e2 += x2 * x2;
            }
            if (e1 == e2) { e1 = H(t, c1); e2 = H(t, c2); }
            low1 = e1;
            low2 = e2;
        }
        if (low1 <= low2 && !leaf1) { i = c1; direct = d1; }
        else if (!leaf2) { i = c2; direct = d2; }
        else { i = c1; direct = d1; }
    }
    return best != CL_NULLNODE ? best : i;   /* NaN costs (infinite boxes): i is low enough */
}

/* Links an allocated leaf into the tree next to the best sibling. Needs one free node. */
static void insert_leaf(cl_tree *t, int leaf) {
    int sibling, parent, np;
    if (t->root == CL_NULLNODE) {
        t->root = leaf;
        t->meta[leaf].parent = CL_NULLNODE;
        return;
    }
    sibling = find_sibling(t, &t->nodes[leaf].box);
    parent = t->meta[sibling].parent;
    np = node_alloc(t);
    t->meta[np].parent = parent;
    t->nodes[np].child1 = sibling;
    t->nodes[np].child2 = leaf;
    if (parent == CL_NULLNODE) t->root = np;
    else if (t->nodes[parent].child1 == sibling) t->nodes[parent].child1 = np;
    else t->nodes[parent].child2 = np;
    t->meta[sibling].parent = np;
    t->meta[leaf].parent = np;
    walk_up(t, np);
}

/* Unlinks a leaf (the leaf node stays allocated); frees its former parent. */
static void unlink_leaf(cl_tree *t, int leaf) {
    int parent = t->meta[leaf].parent, grand, sibling;
    if (parent == CL_NULLNODE) {
        t->root = CL_NULLNODE;
        return;
    }
    grand = t->meta[parent].parent;
    sibling = t->nodes[parent].child1 == leaf ? t->nodes[parent].child2 : t->nodes[parent].child1;
    replace_child(t, parent, sibling);
    node_release(t, parent);
    t->meta[leaf].parent = CL_NULLNODE;
    walk_up(t, grand);
}

int cl_tree_insert(cl_tree *t, const cl_aabb *box, int data) {
    int leaf;
    if (tree_grow(t, 2 + t->npend) != CL_OK) return CL_NULLNODE;
    cl_tree_rebuild_cancel(t);
    leaf = node_alloc(t);
    t->nodes[leaf].box = cl_fbox_from(box);
    t->nodes[leaf].child2 = data;
    insert_leaf(t, leaf);
    t->leaves++;
    return leaf;
}

/* Touches two untouched nodes (node and meta) below 2 x leaves + 2, from t->ahead on: the nodes
 * the pending leaves reserved for their linking (cl_tree_reserve), which the build of a tree of
 * that many leaves writes (2 n - 1 nodes, its leaf records among them). On hosts where a page's
 * first touch costs a fault (~11.7 us here), a bulk load's first query paid a fault per 128 nodes
 * (at 1,000,000 adds about 9,000, 0.1 s): each lazy add now pays for the two nodes it adds to the
 * build instead (a fault every 64 adds). The writes are what node_alloc writes, into free nodes
 * nothing reads (their heights stay -1). */
static void touch_ahead(cl_tree *t) {
    int i = t->ahead > t->lazy ? t->ahead : t->lazy;
    int end = 2 * t->leaves + 2 < t->cap ? 2 * t->leaves + 2 : t->cap;
    if (end - i > 2) end = i + 2;
    for (; i < end; i++) {
        t->nodes[i].child1 = t->nodes[i].child2 = CL_NULLNODE;
        t->meta[i].parent = CL_NULLNODE;
    }
    t->ahead = i;
}

int cl_tree_insert_lazy(cl_tree *t, const cl_aabb *box, int data) {
    int leaf;
    if (tree_grow(t, 2 + t->npend) != CL_OK) return CL_NULLNODE;
    if (t->npend == t->pendcap) {
        int ncap = t->pendcap ? 2 * t->pendcap : 64;
        int *np;
        if (t->pendcap > (1 << 28)) return CL_NULLNODE;
        np = (int *)t->alloc(t->ud, t->pend, (size_t)t->pendcap * sizeof(int), (size_t)ncap * sizeof(int));
        if (!np) return CL_NULLNODE;
        t->pend = np;
        t->pendcap = ncap;
    }
    cl_tree_rebuild_cancel(t);
    leaf = node_alloc(t);
    t->nodes[leaf].box = cl_fbox_from(box);
    t->nodes[leaf].child2 = data;
    t->meta[leaf].parent = PEND_MARK(t->npend);
    t->pend[t->npend++] = leaf;
    t->leaves++;
    touch_ahead(t);
    return leaf;
}

/* Forgets the pending list (its leaves are linked or built in); a large list block is freed. */
static void pend_clear(cl_tree *t) {
    t->npend = 0;
    if (t->pendcap > 1024) {
        t->alloc(t->ud, t->pend, (size_t)t->pendcap * sizeof(int), 0);
        t->pend = NULL;
        t->pendcap = 0;
    }
}

void cl_tree_link_pending(cl_tree *t) {
    int k;
    if (t->npend > 0) cl_tree_rebuild_cancel(t);
    for (k = 0; k < t->npend; k++) {
        int leaf = t->pend[k];
        t->meta[leaf].parent = CL_NULLNODE;
        insert_leaf(t, leaf);       /* the node it needs was reserved with the leaf */
    }
    pend_clear(t);
}

void cl_tree_remove(cl_tree *t, int leaf) {
    cl_tree_rebuild_cancel(t);
    if (PENDING(t, leaf)) {         /* swap the last pending leaf into its slot */
        int k = -2 - t->meta[leaf].parent, last = t->pend[--t->npend];
        t->pend[k] = last;
        t->meta[last].parent = PEND_MARK(k);
        t->meta[leaf].parent = CL_NULLNODE;
        node_release(t, leaf);
        t->leaves--;
        return;
    }
    unlink_leaf(t, leaf);
    node_release(t, leaf);
    t->leaves--;
}

static void build_log(cl_tree *t, int leaf);
/* 1 if the rebuild under way has fitted its tree (leaf box changes are then logged). */
static int build_fitted(const cl_tree *t);
/* Makes the fitted rebuild under way copy and fit every leaf again at its install. */
static void build_stale(cl_tree *t);

int cl_tree_move(cl_tree *t, int leaf, const cl_aabb *box) {
    if (build_fitted(t)) build_log(t, leaf);
    unlink_leaf(t, leaf);   /* frees one node, which insert_leaf takes back */
    t->nodes[leaf].box = cl_fbox_from(box);
    insert_leaf(t, leaf);
    return leaf;
}

int cl_tree_enlarge(cl_tree *t, int leaf, const cl_aabb *box) {
    cl_fbox b = cl_fbox_from(box);
    return cl_tree_enlarge_fbox(t, leaf, &b);
}

int cl_tree_enlarge_fbox(cl_tree *t, int leaf, const cl_fbox *fb) {
    cl_fbox b = *fb;
    int i = t->meta[leaf].parent;
    if (build_fitted(t)) build_log(t, leaf);
    t->nodes[leaf].box = b;
    while (i != CL_NULLNODE && !fb_encloses(&t->nodes[i].box, &b)) {
        t->nodes[i].box = fb_union(&t->nodes[i].box, &b);
        i = t->meta[i].parent;
    }
    return leaf;
}

void cl_tree_refit(cl_tree *t) {
    int i = t->root, prev = CL_NULLNODE;
    if (build_fitted(t)) build_stale(t);    /* leaf boxes may have been set directly */
    while (i != CL_NULLNODE) {          /* post-order walk along parent links, no stack */
        const cl_tnode *n = &t->nodes[i];
        int up = t->meta[i].parent, next;
        if (prev == up && n->child1 != CL_NULLNODE) next = n->child1;
        else if (prev == n->child1 && n->child1 != CL_NULLNODE) next = n->child2;
        else {
            if (n->child1 != CL_NULLNODE)
                t->nodes[i].box = fb_union(&t->nodes[n->child1].box, &t->nodes[n->child2].box);
            next = up;
        }
        prev = i;
        i = next;
    }
}

/* A leaf to place by cl_tree_rebuild: its leaf node as it will be written (box, child1 =
 * CL_NULLNODE, child2 = payload; 32 bytes), so a whole rebuild can keep its records in its own
 * pool (cl_tree_rebuild). Its centre is not stored: the splits use twice the centre, CX(e, k) =
 * lo + hi in float (the key only decides where the tree splits, any split is valid; an infinite
 * box may give NaN or an infinity, which the binning puts in an end bin). */
typedef cl_tnode rleaf;
#define CX(e, k) ((e)->box.lo[k] + (e)->box.hi[k])

/* Reorders lv[lo..hi-1] so that lv[m] holds the element of rank m by centre on axis k,
 * smaller-or-equal keys before it and greater-or-equal after (iterative quickselect, middle
 * pivot: deterministic). */
static void select_rank(rleaf *lv, int lo, int hi, int m, int k) {
    hi--;
    while (lo < hi) {
        float piv = CX(&lv[lo + (hi - lo) / 2], k);
        int i = lo, j = hi;
        while (i <= j) {
            while (CX(&lv[i], k) < piv) i++;
            while (CX(&lv[j], k) > piv) j--;
            if (i <= j) {
                rleaf x = lv[i]; lv[i] = lv[j]; lv[j] = x;
                i++;
                j--;
            }
        }
        if (m <= j) hi = j;
        else if (m >= i) lo = i;
        else return;
    }
}

/* Build task of cl_tree_rebuild: leaves lv[lo..hi-1] become the subtree under new node parent
 * (as child1 or child2), of height at most hmax. */
typedef struct rtask {
    int lo, hi, parent, second, hmax;
} rtask;

#define SAH_BINS 16
#define SAH_MIN 16      /* ranges of at most this many leaves split at the median (cheaper) */

/* Returns the bin (0 .. SAH_BINS - 1) of centre coordinate c for bins of width 1 / scale from
 * cmin (NaN centres of infinite boxes go to bin 0). */
TINLINE int sah_bin(float c, float cmin, double scale) {
    /* clamped without a branch (max / min instructions; NaN fails x > 0 and goes to 0) */
    double x = ((double)c - cmin) * scale;
    x = x > 0 ? x : 0;
    x = x < SAH_BINS - 1 ? x : SAH_BINS - 1;
    return (int)x;
}

/* Sets cmin / cmax to the bounds of the centres of lv[lo], lv[lo + stride], ... below hi (NaN
 * centres left out; FLT_MAX / -FLT_MAX on an axis without any other). */
static void centre_bounds(const rleaf *lv, int lo, int hi, int stride, float *cmin, float *cmax) {
#if TSIMD
    /* lanes: lo[0..2] + hi[0..2] (twice the centre), lane 3 unused (hi[0] + data) */
    __m128 n = _mm_set1_ps(FLT_MAX), x = _mm_set1_ps(-FLT_MAX);
    float t[4];
    int i;
    for (i = lo; i < hi; i += stride) {
        __m128 c = _mm_add_ps(_mm_loadu_ps(lv[i].box.lo), _mm_loadu_ps(lv[i].box.hi));
        n = _mm_min_ps(c, n);
        x = _mm_max_ps(c, x);
    }
    _mm_storeu_ps(t, n);
    cmin[0] = t[0]; cmin[1] = t[1]; cmin[2] = t[2];
    _mm_storeu_ps(t, x);
    cmax[0] = t[0]; cmax[1] = t[1]; cmax[2] = t[2];
#else
    float n0 = FLT_MAX, n1 = FLT_MAX, n2 = FLT_MAX, x0 = -FLT_MAX, x1 = -FLT_MAX, x2 = -FLT_MAX;
    int i;
    for (i = lo; i < hi; i += stride) {
        float c0 = CX(&lv[i], 0), c1 = CX(&lv[i], 1), c2 = CX(&lv[i], 2);
        n0 = c0 < n0 ? c0 : n0;
        n1 = c1 < n1 ? c1 : n1;
        n2 = c2 < n2 ? c2 : n2;
        x0 = c0 > x0 ? c0 : x0;
        x1 = c1 > x1 ? c1 : x1;
        x2 = c2 > x2 ? c2 : x2;
    }
    cmin[0] = n0; cmin[1] = n1; cmin[2] = n2;
    cmax[0] = x0; cmax[1] = x1; cmax[2] = x2;
#endif
}

/* The SAH sweep's running box (bins merged one by one): empty, grown by a bin box (l, h), its
 * cost (fb_cost). With SSE two 4-wide rows (minps / maxps keep their second operand on ties, as
 * the comparisons of the plain version), else a cl_fbox. */
#if TSIMD
typedef struct racc { __m128 lo, hi; } racc;
TINLINE void racc_empty(racc *a) { a->lo = _mm_set1_ps(INFINITY); a->hi = _mm_set1_ps(-INFINITY); }
TINLINE void racc_grow(racc *a, const float *l, const float *h) {
    a->lo = _mm_min_ps(_mm_loadu_ps(l), a->lo);
    a->hi = _mm_max_ps(_mm_loadu_ps(h), a->hi);
}
TINLINE double racc_cost(const racc *a) {
    cl_fbox b;
    float t[4];
    _mm_storeu_ps(t, a->lo);
    b.lo[0] = t[0]; b.lo[1] = t[1]; b.lo[2] = t[2];
    _mm_storeu_ps(t, a->hi);
    b.hi[0] = t[0]; b.hi[1] = t[1]; b.hi[2] = t[2];
    return fb_cost(&b);
}
#else
typedef cl_fbox racc;
TINLINE void racc_empty(racc *a) {
    int j;
    for (j = 0; j < 3; j++) { a->lo[j] = INFINITY; a->hi[j] = -INFINITY; }
}
TINLINE void racc_grow(racc *a, const float *l, const float *h) {
    a->lo[0] = l[0] < a->lo[0] ? l[0] : a->lo[0];
    a->lo[1] = l[1] < a->lo[1] ? l[1] : a->lo[1];
    a->lo[2] = l[2] < a->lo[2] ? l[2] : a->lo[2];
    a->hi[0] = h[0] > a->hi[0] ? h[0] : a->hi[0];
    a->hi[1] = h[1] > a->hi[1] ? h[1] : a->hi[1];
    a->hi[2] = h[2] > a->hi[2] ? h[2] : a->hi[2];
}
TINLINE double racc_cost(const racc *a) { return fb_cost(a); }
#endif

/* Adds leaf e to bin bn of one axis: its count, and its box to the bin's box (rows of 4 floats). */
TINLINE void bin_leaf(const rleaf *e, int bn, int *cnt, float (*blo)[4], float (*bhi)[4]) {
    float *l = blo[bn], *h = bhi[bn];
    cnt[bn]++;
#if TSIMD
    /* lanes lo[0..2], hi[0] and hi[0..2], child1: lane 3 is never read */
    _mm_storeu_ps(l, _mm_min_ps(_mm_loadu_ps(e->box.lo), _mm_loadu_ps(l)));
    _mm_storeu_ps(h, _mm_max_ps(_mm_loadu_ps(e->box.hi), _mm_loadu_ps(h)));
#else
    l[0] = e->box.lo[0] < l[0] ? e->box.lo[0] : l[0];
    l[1] = e->box.lo[1] < l[1] ? e->box.lo[1] : l[1];
    l[2] = e->box.lo[2] < l[2] ? e->box.lo[2] : l[2];
    h[0] = e->box.hi[0] > h[0] ? e->box.hi[0] : h[0];
    h[1] = e->box.hi[1] > h[1] ? e->box.hi[1] : h[1];
    h[2] = e->box.hi[2] > h[2] ? e->box.hi[2] : h[2];
#endif
}

/* Returns the largest subtree size allowed at height budget h (2^h, capped). */
static int size_cap(int h) { return h >= 30 ? INT32_MAX : 1 << h; }

/* Returns 1 if a split of n leaves into nl and n - nl is legal under height budget hmax: both
 * sides hold between 2^(hmax - 5) and 2^(hmax - 1) leaves (see sah_split). */
static int split_ok(int n, int nl, int hmax) {
    int maxsz = size_cap(hmax - 1), minsz = hmax - 5 > 0 ? size_cap(hmax - 5) : 1;
    return nl >= minsz && n - nl >= minsz && nl <= maxsz && n - nl <= maxsz;
}

/* Splits lv[lo..hi-1] at the median centre of its widest centre axis; returns mid. */
static int median_split(rleaf *lv, int lo, int hi) {
    float cmin[3], cmax[3], best = -1;
    int a, axis = 0, mid = lo + (hi - lo) / 2;
    centre_bounds(lv, lo, hi, 1, cmin, cmax);
    for (a = 0; a < 3; a++)
        if (cmax[a] - cmin[a] > best) { best = cmax[a] - cmin[a]; axis = a; }
    select_rank(lv, lo, hi, mid, axis);
    return mid;
}

/* A range of at most SAH_MIN leaves is built whole by small_node: its centres copied once, each
 * leaf's rank on each axis found once by counting (branch-free: no mispredicted comparisons as
 * in a quickselect), then each node halves its leaves on its widest centre axis by rank (the
 * leaves' rank bits or-ed into a mask, the lowest half of the mask's bits cleared: the lowest
 * bit left is the first rank of the right half). The ranks compare a 32-bit key per leaf: the
 * centre's float bits made monotonic, the low 4 bits replaced by the leaf's number (so every
 * key differs: ties and centres within 16 ulps go by leaf number, NaN centres of infinite boxes
 * somewhere fixed). */
typedef struct rsmall {
    float c[SAH_MIN][4];                /* twice the centres (lane 3 unused) */
    unsigned rb[3][SAH_MIN];            /* rb[a][i]: 1 << (leaf i's rank on axis a) */
} rsmall;

/* Where a build writes its nodes: pool p / m, the next free node k; with heights h (a whole
 * rebuild), each internal node is also fitted (box, height) once its children are, and the
 * costs of the internal boxes summed in sum (the leaf records are in cache then, and no later
 * pass reads the whole pool again); without (NULL: an incremental rebuild, whose boxes are
 * fitted in later calls), structure only. */
typedef struct rout {
    cl_tnode *p;
    cl_tmeta *m;
    signed char *h;
    double sum;
    int k;
} rout;

/* Fits internal node i of o to its children: box, height, and its cost added to o->sum. */
TINLINE void rout_fit(rout *o, int i) {
    cl_tnode *p = o->p;
    signed char *h = o->h;
    int a = p[i].child1, b = p[i].child2;
    p[i].box = fb_union(&p[a].box, &p[b].box);
    h[i] = (signed char)(1 + (h[a] > h[b] ? h[a] : h[b]));
    o->sum += fb_cost(&p[i].box);
}

/* Writes leaf record e[j] at node o->k under parent; returns its node. */
TINLINE int small_leaf(const rleaf *e, unsigned j, rout *o, int parent) {
    int me = o->k++;
    o->m[me].parent = parent;
    o->p[me] = e[j];
    if (o->h) o->h[me] = 0;
    return me;
}

/* Returns the axis (0, 1, 2) of the widest centre extent of the leaves ix[0..cnt-1] (the first
 * of equal ones; NaN centres left out, as in centre_bounds). */
TINLINE int small_axis(const rsmall *s, const unsigned char *ix, int cnt) {
    float best = -1, ext[3];
    int i, axis = 0;
#if TSIMD
    __m128 n = _mm_set1_ps(FLT_MAX), x = _mm_set1_ps(-FLT_MAX), d;
    for (i = 0; i < cnt; i++) {     /* centre bounds of the leaves */
        __m128 c = _mm_loadu_ps(s->c[ix[i]]);
        n = _mm_min_ps(c, n);
        x = _mm_max_ps(c, x);
    }
    d = _mm_sub_ps(x, n);
    {
        float t[4];
        _mm_storeu_ps(t, d);
        ext[0] = t[0]; ext[1] = t[1]; ext[2] = t[2];
    }
#else
    float n0 = FLT_MAX, n1 = FLT_MAX, n2 = FLT_MAX, x0 = -FLT_MAX, x1 = -FLT_MAX, x2 = -FLT_MAX;
    for (i = 0; i < cnt; i++) {     /* centre bounds of the leaves */
        const float *c = s->c[ix[i]];
        n0 = c[0] < n0 ? c[0] : n0;
        n1 = c[1] < n1 ? c[1] : n1;
        n2 = c[2] < n2 ? c[2] : n2;
        x0 = c[0] > x0 ? c[0] : x0;
        x1 = c[1] > x1 ? c[1] : x1;
        x2 = c[2] > x2 ? c[2] : x2;
    }
    ext[0] = x0 - n0; ext[1] = x1 - n1; ext[2] = x2 - n2;
#endif
    if (ext[0] > best) { best = ext[0]; axis = 0; }
    if (ext[1] > best) { best = ext[1]; axis = 1; }
    if (ext[2] > best) { axis = 2; }
    return axis;
}

/* Writes the subtree of the leaves ix[0..cnt-1] (cnt >= 2) at node o->k on, depth first, under
 * parent; returns its root. Leaves get their box and payload, internal nodes their children
 * (and with o->h their box and height, leaves their height; else those are set afterwards).
 * Single leaves are written in place and pairs without a call (most nodes of a small subtree:
 * no call, no loop of unknown length for them). */
static int small_node(const rleaf *e, const rsmall *s, const unsigned char *ix, int cnt,
                      rout *o, int parent) {
    cl_tnode *p = o->p;
    int me = o->k++;
    o->m[me].parent = parent;
    if (cnt == 2) {
        /* the leaf of lower rank on the axis goes left */
        const unsigned *rb = s->rb[small_axis(s, ix, 2)];
        unsigned j0 = ix[0], j1 = ix[1], lo = rb[j0] < rb[j1] ? j0 : j1;
        p[me].child1 = small_leaf(e, lo, o, me);
        p[me].child2 = small_leaf(e, lo ^ j0 ^ j1, o, me);
    } else {
        unsigned char lx[SAH_MIN], rx[SAH_MIN];
        unsigned set = 0;
        int i, half = cnt / 2, nl = 0, nr = 0;
        /* the half of the leaves of lowest rank on the axis go left, the rest right */
        const unsigned *rb = s->rb[small_axis(s, ix, cnt)];
        for (i = 0; i < cnt; i++) set |= rb[ix[i]];
        for (i = 0; i < half; i++) set &= set - 1;
        set &= 0u - set;
        for (i = 0; i < cnt; i++) {
            unsigned j = ix[i], tl = rb[j] < set;
            lx[nl] = (unsigned char)j;
            rx[nr] = (unsigned char)j;
            nl += (int)tl;
            nr += (int)(1 - tl);
        }
        p[me].child1 = nl == 1 ? small_leaf(e, lx[0], o, me) : small_node(e, s, lx, nl, o, me);
        p[me].child2 = nr == 1 ? small_leaf(e, rx[0], o, me) : small_node(e, s, rx, nr, o, me);
    }
    if (o->h) rout_fit(o, me);
    return me;
}

/* Monotonic 32-bit key of float f (larger float, larger unsigned key), low 4 bits cleared. */
static uint32_t small_key(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = (u & 0x80000000u) ? ~u : u | 0x80000000u;
    return u & ~(uint32_t)15;
}

/* Builds the leaves e[0..r-1] (1 <= r <= SAH_MIN) into the subtree at node *k on, under parent;
 * returns its root. */
static int small_build(const rleaf *e, int r, rout *o, int parent) {
    rsmall s;
    rleaf own[SAH_MIN];
    unsigned char ix[SAH_MIN];
    int i, j, a;
    {
        /* a whole rebuild keeps its records in the pool it writes (cl_tree_rebuild): the nodes
         * of the last subtrees may cover their own records, which are then read from a copy */
        uintptr_t w0 = (uintptr_t)(o->p + o->k), w1 = (uintptr_t)(o->p + o->k + 2 * r - 1);
        if (w0 < (uintptr_t)(e + r) && (uintptr_t)e < w1) {
            memcpy(own, e, (size_t)r * sizeof *e);
            e = own;
        }
    }
    for (i = 0; i < r; i++) {
        s.c[i][0] = CX(&e[i], 0);
        s.c[i][1] = CX(&e[i], 1);
        s.c[i][2] = CX(&e[i], 2);
        s.c[i][3] = 0;
        ix[i] = (unsigned char)i;
    }
    for (a = 0; a < 3; a++) {
        /* rank of leaf i: how many keys are below its own (all keys differ) */
        int32_t key[SAH_MIN], rank[SAH_MIN];
        for (i = 0; i < r; i++) key[i] = (int32_t)((small_key(s.c[i][a]) | (uint32_t)i) ^ 0x80000000u);
#if TSIMD && SAH_MIN == 16
        for (; i < SAH_MIN; i++) key[i] = 0;
        {
            __m128i k0 = _mm_loadu_si128((const __m128i *)(void *)&key[0]);
            __m128i k1 = _mm_loadu_si128((const __m128i *)(void *)&key[4]);
            __m128i k2 = _mm_loadu_si128((const __m128i *)(void *)&key[8]);
            __m128i k3 = _mm_loadu_si128((const __m128i *)(void *)&key[12]);
            __m128i r0 = _mm_setzero_si128(), r1 = r0, r2 = r0, r3 = r0;
            for (j = 0; j < r; j++) {
                __m128i kj = _mm_set1_epi32(key[j]);
                r0 = _mm_sub_epi32(r0, _mm_cmpgt_epi32(k0, kj));
                r1 = _mm_sub_epi32(r1, _mm_cmpgt_epi32(k1, kj));
                r2 = _mm_sub_epi32(r2, _mm_cmpgt_epi32(k2, kj));
                r3 = _mm_sub_epi32(r3, _mm_cmpgt_epi32(k3, kj));
            }
            _mm_storeu_si128((__m128i *)(void *)&rank[0], r0);
            _mm_storeu_si128((__m128i *)(void *)&rank[4], r1);
            _mm_storeu_si128((__m128i *)(void *)&rank[8], r2);
            _mm_storeu_si128((__m128i *)(void *)&rank[12], r3);
        }
#else
        for (i = 0; i < r; i++) {
            int c = 0;
            for (j = 0; j < r; j++) c += key[j] < key[i];
            rank[i] = c;
        }
#endif
        for (i = 0; i < r; i++) s.rb[a][i] = 1u << rank[i];
    }
    return r == 1 ? small_leaf(e, 0, o, parent) : small_node(e, &s, ix, r, o, parent);
}

#define SAH_ONEAXIS 128 /* ranges of at most this many leaves bin their widest axis only */
#define SAH_SAMPLE 64  /* larger ranges choose their split from this many evenly strided leaves */

/* Chooses the split of lv[lo..hi-1] (at least two leaves, height budget hmax) and reorders the
 * range so that [lo, mid) and [mid, hi) are the two children; returns mid. Binned surface-area
 * heuristic (SAH_BINS bins of centres per axis, cost = area(left) * n(left) + area(right) *
 * n(right)) over at most about SAH_SAMPLE leaves taken at an even stride (bins and bounds from
 * those; the counts scaled to the whole range), among the splits that keep the heights legal:
 * both sides hold between 2^(hmax - 5) and 2^(hmax - 1) leaves, so each child fits budget
 * hmax - 1 and is at least hmax - 5 high, and siblings never differ by more than CL_TREE_SLACK
 * (4). The chosen plane then partitions every leaf of the range (centres outside the sampled
 * bounds go to the end bins); if no binned split qualifies (all centres in one bin, infinite
 * extents, SAH_MIN leaves or fewer) or the real counts are not legal, the median on the widest
 * axis (always legal: see cl_tree_rebuild). Deterministic. */
static int sah_split(rleaf *lv, int lo, int hi, int hmax) {
    int n = hi - lo, i, a, j, k, bestaxis = -1, bestj = 0, stride, ns;
    int cnt[3][SAH_BINS];
    float blo[3][SAH_BINS][4], bhi[3][SAH_BINS][4];     /* lane 3 unused (SSE rows) */
    float cmin[3], cmax[3];
    double bestcost = HUGE_VAL, scale[3], grow;
    if (n <= SAH_MIN) return median_split(lv, lo, hi);
    stride = n > 2 * SAH_SAMPLE ? n / SAH_SAMPLE : 1;
    ns = (n + stride - 1) / stride;
    grow = (double)n / ns;
    centre_bounds(lv, lo, hi, stride, cmin, cmax);
    {
        /* small ranges bin only their widest centre axis (a third of the work; the wider axis
         * nearly always holds the best split of a few dozen leaves) */
        int wide = 0;
        for (a = 1; a < 3; a++)
            if ((double)cmax[a] - cmin[a] > (double)cmax[wide] - cmin[wide]) wide = a;
        for (a = 0; a < 3; a++) {
            double ext = (double)cmax[a] - cmin[a];
            scale[a] = ext > 0 && ext <= FLT_MAX && (n > SAH_ONEAXIS || a == wide) ? SAH_BINS / ext : 0;
        }
    }
    for (a = 0; a < 3; a++) {
        if (scale[a] == 0) continue;    /* axis not binned: no bins */
        for (k = 0; k < SAH_BINS; k++) {
            cnt[a][k] = 0;
            for (j = 0; j < 4; j++) { blo[a][k][j] = INFINITY; bhi[a][k][j] = -INFINITY; }
        }
    }
    {
        /* one pass bins every binned axis (only those: an axis left out has no bins to fill) */
        int ax[3], na = 0, t;
        for (a = 0; a < 3; a++)
            if (scale[a] != 0) ax[na++] = a;
        if (na == 1) {      /* one axis (most calls: the small ranges), its constants in registers */
            float cm;
            double sc;
            a = ax[0];
            cm = cmin[a];
            sc = scale[a];
            for (i = lo; i < hi; i += stride)
                bin_leaf(&lv[i], sah_bin(CX(&lv[i], a), cm, sc), cnt[a], blo[a], bhi[a]);
        } else {
            for (i = lo; i < hi; i += stride)
                for (t = 0; t < na; t++) {
                    a = ax[t];
                    bin_leaf(&lv[i], sah_bin(CX(&lv[i], a), cmin[a], scale[a]), cnt[a], blo[a], bhi[a]);
                }
        }
    }
    {
        /* split_ok as one interval of left counts, found once */
        int maxsz = size_cap(hmax - 1), minsz = hmax - 5 > 0 ? size_cap(hmax - 5) : 1;
        int nlmin = minsz > n - maxsz ? minsz : n - maxsz, nlmax = maxsz < n - minsz ? maxsz : n - minsz;
        for (a = 0; a < 3; a++) {
            /* split after bin k: its left count nlk[k], legal or not (ok[k]: only the legal
             * splits are costed, the left box's cost larea[k] found in the first sweep) */
            int nlk[SAH_BINS], ok[SAH_BINS], tot = 0;
            double larea[SAH_BINS];
            racc acc;
            if (scale[a] == 0) continue;
            racc_empty(&acc);
            for (k = 0; k < SAH_BINS - 1; k++) {
                int nl;
                racc_grow(&acc, blo[a][k], bhi[a][k]);
                tot += cnt[a][k];
                nl = stride == 1 ? tot : (int)(tot * grow + 0.5);
                nlk[k] = nl;
                ok[k] = tot > 0 && tot < ns && nl >= nlmin && nl <= nlmax;
                if (ok[k]) larea[k] = racc_cost(&acc);
            }
            racc_empty(&acc);
            for (k = SAH_BINS - 2; k >= 0; k--) {
                racc_grow(&acc, blo[a][k + 1], bhi[a][k + 1]);
                if (ok[k]) {
                    double cost = larea[k] * nlk[k] + racc_cost(&acc) * (n - nlk[k]);
                    if (cost < bestcost) { bestcost = cost; bestaxis = a; bestj = k; }
                }
            }
        }
    }
    if (bestaxis >= 0) {
        /* partition in place, bins <= bestj first, without a branch on the data: every leaf
         * swaps with the first leaf of the right part and that part's start advances past it
         * when it belongs left (on unsorted leaves a branch would be mispredicted half the
         * time; in place, the range is read and written once, with no second buffer) */
        rleaf *d = lv + lo;
        /* the plane: the end of bin bestj (sah_bin(c) <= bestj but for rounding at the plane;
         * NaN goes left, to bin 0, as there) */
        double plane = cmin[bestaxis] + (bestj + 1.0) / scale[bestaxis];
        /* a float key is >= plane exactly when it is >= the plane rounded up to a float: one
         * float comparison a leaf (NaN still fails it) */
        float fplane = f_up(plane);
        a = bestaxis;
        for (i = lo; i < hi; i++) {
            float key = CX(&lv[i], a);
            int left = !(key >= fplane);
#if TSIMD
            /* a record moved as two 16-byte halves (the compiler's struct copy takes three
             * loads and three stores a record, and the loop is bound by its stores) */
            __m128i *pe = (__m128i *)(void *)&lv[i], *pf = (__m128i *)(void *)d;
            __m128i e0 = _mm_loadu_si128(pe), e1 = _mm_loadu_si128(pe + 1);
            __m128i f0 = _mm_loadu_si128(pf), f1 = _mm_loadu_si128(pf + 1);
            _mm_storeu_si128(pe, f0);
            _mm_storeu_si128(pe + 1, f1);
            _mm_storeu_si128(pf, e0);
            _mm_storeu_si128(pf + 1, e1);
#else
            rleaf e = lv[i], f = *d;
            lv[i] = f;
            *d = e;
#endif
            d += left;
        }
        if (split_ok(n, (int)(d - lv) - lo, hmax)) return (int)(d - lv);
    }
    return median_split(lv, lo, hi);
}

/* Builds subtrees from the task stack st[0..*ns-1] into o (the root index into *root) from the
 * leaves lv (partitioned in place), until the stack is empty or about work units are done (a
 * task of r leaves costs r); returns 1 when the stack is empty. Leaves get child2 = the leaf's
 * data. With o->h, a split node is fitted when its second subtree is done (preorder: its first
 * one is done before). */
static int build_run(rleaf *lv, rout *o, rtask *st, int *ns, int *root, long work) {
    cl_tnode *p = o->p;
    while (*ns > 0) {
        rtask task;
        int me;
        if (work <= 0) return 0;
        task = st[--*ns];
        if (task.hi - task.lo <= SAH_MIN) {
            /* a small range: its whole subtree now (r leaves: r units per level, as the tasks
             * of its nodes would have cost) */
            int r = task.hi - task.lo;
            me = small_build(lv + task.lo, r, o, task.parent);
            work -= r > 8 ? 5L * r : r > 4 ? 4L * r : r > 2 ? 3L * r : 2L * r - 1;
        } else {
            me = o->k++;
            o->m[me].parent = task.parent;
            o->p[me].child2 = CL_NULLNODE;      /* not yet built: the walk-up fit must not take a stale
                                                 * child2 (an old node's or a record's) for it (rev22) */
            work -= task.hi - task.lo;
        }
        if (task.parent == CL_NULLNODE) *root = me;
        else if (task.second) p[task.parent].child2 = me;
        else p[task.parent].child1 = me;
        if (task.hi - task.lo <= SAH_MIN) {
            /* a finished second subtree completes its parent, and so on up while the node
             * completed is a second child */
            int x = me, y = task.parent;
            while (o->h && y != CL_NULLNODE && p[y].child2 == x) {
                rout_fit(o, y);
                x = y;
                y = o->m[y].parent;
            }
        } else {
            int top = *ns;
            int mid = sah_split(lv, task.lo, task.hi, task.hmax);
            st[top].lo = mid; st[top].hi = task.hi; st[top].parent = me; st[top].second = 1;
            st[top].hmax = task.hmax - 1;
            st[top + 1].lo = task.lo; st[top + 1].hi = mid; st[top + 1].parent = me; st[top + 1].second = 0;
            st[top + 1].hmax = task.hmax - 1;
            *ns = top + 2;
        }
    }
    return 1;
}

/* Sets st[0] to the root task of a build of n leaves: all of them, height budget
 * ceil(log2(n)) + 2 (the root may be 2 higher than a perfectly balanced tree: room for the SAH
 * splits). */
static void root_task(rtask *st, int n) {
    int lg = 0;
    while ((1L << lg) < n) lg++;
    st[0].lo = 0; st[0].hi = n; st[0].parent = CL_NULLNODE; st[0].second = 0;
    st[0].hmax = lg + 2;
}

/* Fills the n leaves of t into lv (an incremental rebuild's block: box, and in child2 the leaf's
 * node index, not its payload) and the root task of their build into st[0]. */
static void build_gather(const cl_tree *t, rleaf *lv, rtask *st) {
    int i, nl = 0;
    for (i = 0; i < t->cap; i++)
        if (t->hgt[i] == 0) {
            lv[nl].box = t->nodes[i].box;
            lv[nl].child1 = CL_NULLNODE;
            lv[nl++].child2 = i;
        }
    root_task(st, t->leaves);
}

/* Notes the cost of the k nodes built and fitted into t's pool (built_cost, as cl_tree_cost,
 * from sum, the internal boxes' costs; the root is node 0), frees the nodes k..cap-1 into t's
 * free list, and clears the pending list. */
static void build_close(cl_tree *t, int k, double sum) {
    signed char *h = t->hgt;
    double rc;
    int i;
    rc = fb_cost(&t->nodes[0].box);
    t->built_cost = rc > 0 ? sum / rc : 0;
    for (i = k; i < t->cap; i++) h[i] = -1;     /* the rest: free, untouched (tree_grow) */
    t->lazy = k;
    t->lazynext = CL_NULLNODE;
    t->freelist = k < t->cap ? CL_TREE_LAZY : CL_NULLNODE;
    t->nfree = t->cap - k;
    pend_clear(t);
}

/* Moves the n leaves of t, as records in node order, into its own nodes lv = nodes + b ..
 * b + n - 1 (returned), b = max(n - 1, lazy - n), and sets the root task of their build into
 * st[0]. The nodes are read from lazy - 1 down (none above holds a leaf) and each record is
 * written from the top of lv down, so it lands on a node already read: with j leaves found at
 * or above node i, i <= lazy - j <= b + n - j, the record's node. b >= lazy - n makes that
 * hold and keeps lv below the untouched nodes the tree may not need; b >= n - 1 keeps lv above
 * every node the build writes before reading the records there (see cl_tree_rebuild). */
static rleaf *build_gather_pool(cl_tree *t, rtask *st) {
    int n = t->leaves, b = n - 1 > t->lazy - n ? n - 1 : t->lazy - n, j = n, i;
    rleaf *lv = t->nodes + b;
    for (i = t->lazy - 1; i >= 0; i--)
        if (t->hgt[i] == 0) {
            j--;
            if (&lv[j] != &t->nodes[i]) lv[j] = t->nodes[i];   /* child1: CL_NULLNODE */
        }
    root_task(st, n);
    return lv;
}

/* The leaf records live in the pool the new tree is written over, at nodes b + i, b >= n - 1
 * (build_gather_pool; cap >= 2n - 1 as every pending leaf holds one free node for its link), so
 * a whole rebuild allocates nothing. The build writes nodes in preorder: the subtree of the
 * leaves [lo, hi) takes nodes 2 lo + L .. 2 hi + L - 2, L its left turns from the root; the
 * leaves right of it number at least L (a sibling subtree per left turn), so it writes below
 * node n - 1 + hi <= b + hi and never covers a record of a later task; a split node (at least
 * two leaves) lies below b + lo, under its own records; only a small subtree may cover its own
 * records, which small_build copies first. */
int cl_tree_rebuild(cl_tree *t) {
    int ns = 1, root = CL_NULLNODE;
    rleaf *lv;
    rout o;
    rtask st[64];           /* depth <= hmax of the root = ceil(log2(leaves)) + 2 < 64 */
    if (t->leaves < 2) {
        cl_tree_link_pending(t);
        return CL_OK;
    }
    cl_tree_rebuild_cancel(t);
    lv = build_gather_pool(t, st);
    o.p = t->nodes; o.m = t->meta; o.h = t->hgt; o.sum = 0; o.k = 0;
    build_run(lv, &o, st, &ns, &root, LONG_MAX);
    t->root = root;
    build_close(t, o.k, o.sum);
    return CL_OK;
}

/* An incremental rebuild: the leaves' two buffers, the new pool (cap nodes, then cap metas),
 * and the build's task stack; its leaves hold the old leaf node index until phase 1. After the
 * build, phase 1 (payloads and the new pool's free list: two calls; heights: two calls) and
 * phase 2 (the leaves' boxes of now: two calls; the internal boxes fitted and the cost:
 * FIT_PARTS calls), then the install (the stored phase numbers are one less, sub counts the
 * calls within one); from phase 2's second call on, the leaves whose box changes are logged
 * (old node indices) and the install only copies those again (their new ancestors grown as
 * cl_tree_enlarge does), unless the log ran over or a refit changed the old tree (stale: every
 * leaf copied and fitted again). The leaf buffers are reused for map (old leaf node -> new, cap
 * entries) and the log. After the install the record is kept (t->old) with the old pool in p
 * and the log turned into the new leaves it copied (nlog; -1 if stale) until
 * cl_tree_rebuild_release: the caller may read the log, and the frees of the big blocks fall in
 * a later call than the install. */
struct cl_tbuild {
    rleaf *lv;
    cl_tnode *p;
    cl_tmeta *m;
    signed char *h;
    int n, cap, k, ns, root;
    int phase, sub, stale, nlog, logcap;
    int split;          /* the old pool's node where the leaf box copy's second call starts */
    size_t lvbytes;     /* lv's block: at least n records and cap + logcap ints (more when kept) */
    int *map, *log;
    double cost;
    rtask st[64];
};

/* Notes that leaf (a node of the old tree) took a new box while a fitted rebuild waits. */
static void build_log(cl_tree *t, int leaf) {
    struct cl_tbuild *b = t->bld;
    if (b->nlog < b->logcap) b->log[b->nlog++] = leaf;
    else b->stale = 1;
}

/* Frees a rebuild's blocks (its leaf list, its pool; either may be missing) and the rebuild itself. */
static void tree_build_free(cl_tree *t, struct cl_tbuild *b) {
    if (b->lv) t->alloc(t->ud, b->lv, b->lvbytes, 0);
    if (b->p) t->alloc(t->ud, b->p, pool_bytes(b->cap), 0);
    t->alloc(t->ud, b, sizeof *b, 0);
}

/* Done with rebuild record b: kept in t->keep for the next start when its blocks are small and
 * none is kept yet, else freed. */
static void tree_build_retire(cl_tree *t, struct cl_tbuild *b) {
    if (t->keep == NULL && b->lvbytes + pool_bytes(b->cap) <= CL_TREE_KEEP_BYTES) t->keep = b;
    else tree_build_free(t, b);
}

void cl_tree_rebuild_cancel(cl_tree *t) {
    struct cl_tbuild *b = t->bld;
    if (!b) return;
    t->bld = NULL;
    tree_build_retire(t, b);
}

/* The size of an incremental rebuild's leaf block for t now: the build's n records, reused
 * afterwards for map (cap ints: any old node index, so more than the records hold when leaves
 * are few and the pool large) and the log (up to *logcap changes: 8 per leaf; more make the
 * install stale). */
static size_t build_lvbytes(const cl_tree *t, int *logcap) {
    size_t lvbytes;
    *logcap = 8L * t->leaves < INT_MAX - t->cap ? 8 * t->leaves : INT_MAX - t->cap;
    lvbytes = ((size_t)t->cap + (size_t)*logcap) * sizeof(int);
    if (lvbytes < (size_t)t->leaves * sizeof(rleaf)) lvbytes = (size_t)t->leaves * sizeof(rleaf);
    return lvbytes;
}

/* A rebuild record for t now with its blocks (a leaf block of at least lvbytes, a pool of
 * t->cap nodes): the kept one, each of its blocks reused when it fits (a leaf block large
 * enough, a pool of the same capacity) and made anew when not, so that a World whose tree grew
 * between rebuilds keeps the other block; or a new record. A leaf block small enough to be kept
 * gets 1/8 more room, so that a few more leaves at the next rebuild still fit in it. NULL when
 * memory runs out (the kept record freed). */
static struct cl_tbuild *build_blocks(cl_tree *t, size_t lvbytes) {
    struct cl_tbuild *b = t->keep;
    t->keep = NULL;
    if (b == NULL) {
        b = (struct cl_tbuild *)t->alloc(t->ud, NULL, 0, sizeof *b);
        if (!b) return NULL;
        b->lv = NULL;
        b->p = NULL;
        b->lvbytes = 0;
        b->cap = 0;
    }
    if (b->lv != NULL && b->lvbytes < lvbytes) {
        t->alloc(t->ud, b->lv, b->lvbytes, 0);
        b->lv = NULL;
    }
    if (b->p != NULL && b->cap != t->cap) {
        t->alloc(t->ud, b->p, pool_bytes(b->cap), 0);
        b->p = NULL;
    }
    if (b->lv == NULL) {
        b->lvbytes = lvbytes + lvbytes / 8 + pool_bytes(t->cap) <= CL_TREE_KEEP_BYTES ? lvbytes + lvbytes / 8 : lvbytes;
        b->lv = (rleaf *)t->alloc(t->ud, NULL, 0, b->lvbytes);
    }
    if (b->p == NULL && b->lv != NULL) {
        b->cap = t->cap;
        b->p = (cl_tnode *)t->alloc(t->ud, NULL, 0, pool_bytes(b->cap));
    }
    if (b->lv == NULL || b->p == NULL) {
        tree_build_free(t, b);
        return NULL;
    }
    return b;
}

void cl_tree_rebuild_prepare(cl_tree *t) {
    struct cl_tbuild *b;
    int logcap;
    size_t lvbytes = build_lvbytes(t, &logcap);
    if (t->bld || t->leaves < 2 || lvbytes + pool_bytes(t->cap) > CL_TREE_KEEP_BYTES) return;
    if (t->keep && t->keep->cap == t->cap && t->keep->lvbytes >= lvbytes) return;
    b = build_blocks(t, lvbytes);
    if (b == NULL) return;
    if (b->lvbytes + pool_bytes(b->cap) > CL_TREE_KEEP_BYTES) {     /* a reused leaf block and a larger
                                                                  * pool: over the limit a kept one has */
        tree_build_free(t, b);
        return;
    }
    memset(b->lv, 0, b->lvbytes);       /* written once now: the build's first writes fault no page */
    memset(b->p, 0, pool_bytes(b->cap));
    t->keep = b;
}

int cl_tree_rebuild_start(cl_tree *t) {
    struct cl_tbuild *b;
    int logcap;
    size_t lvbytes;
    if (t->bld || t->npend > 0 || t->leaves < 2) return CL_OK;
    cl_tree_rebuild_release(t);
    lvbytes = build_lvbytes(t, &logcap);
    b = build_blocks(t, lvbytes);
    if (b == NULL) return CL_ENOMEM;
    b->n = t->leaves;
    b->logcap = logcap;
    b->m = (cl_tmeta *)(void *)(b->p + b->cap);
    b->h = (signed char *)(void *)(b->m + b->cap);
    b->k = 0;
    b->ns = 1;
    b->root = CL_NULLNODE;
    b->phase = b->sub = b->stale = b->nlog = 0;
    b->map = (int *)(void *)b->lv;
    b->log = b->map + b->cap;
    b->cost = 0;
    build_gather(t, b->lv, b->st);
    t->bld = b;
    t->bldno++;
    return CL_OK;
}

static int build_fitted(const cl_tree *t) {
    return t->bld != NULL && (t->bld->phase == 2 || (t->bld->phase == 1 && t->bld->sub >= 1));
}
static void build_stale(cl_tree *t) { t->bld->stale = 1; }

int cl_tree_rebuild_installs(const cl_tree *t) {
    return t->bld != NULL && t->bld->ns == 0 && t->bld->phase == 2;
}

const cl_tnode *cl_tree_rebuild_fitted(const cl_tree *t, int *root, int *cap, int *used) {
    if (t->bld == NULL || t->bld->phase != 1 || t->bld->sub != 0) return NULL;
    *root = t->bld->root;
    *cap = t->bld->cap;
    *used = t->bld->k;
    return t->bld->p;
}

/* Gives the new tree's leaves logged since the fit (not stale) their present boxes and grows
 * their new ancestors as cl_tree_enlarge does, up to the first of index below stop (0: all; a fit
 * part passes the top of its range: the nodes below it are not fitted yet, a part to come
 * computes them from their children, so growing them would be work thrown away); keep: the log
 * then lists the new leaves (for cl_tree_rebuild_replayed), else it is emptied. */
static void build_replay(const cl_tree *t, struct cl_tbuild *b, int keep, int stop) {
    cl_tnode *p = b->p;
    const cl_tmeta *m = b->m;
    const int *map = b->map;
    int *log = b->log, n = b->nlog, i;
    for (i = 0; i < n; i++) {
        int nl, a;
        cl_fbox box;
        /* each entry's loads are a chain of misses (its map slot and old box, its new leaf and
         * meta, its new parent): fetched 16, 8 and 4 entries ahead (the result is the same in any
         * order: every ancestor ends as the union of its box and the boxes under it) */
        if (i + 16 < n) {
            TPREFETCH(&map[log[i + 16]]);
            TPREFETCH(&t->nodes[log[i + 16]]);
        }
        if (i + 8 < n) {
            nl = map[log[i + 8]];
            TPREFETCH(&p[nl]);
            TPREFETCH(&m[nl]);
        }
        if (i + 4 < n && (a = m[map[log[i + 4]]].parent) != CL_NULLNODE) TPREFETCH(&p[a]);
        nl = map[log[i]];
        a = m[nl].parent;
        box = t->nodes[log[i]].box;
        p[nl].box = box;
        while (a >= stop && !fb_encloses(&p[a].box, &box)) {
            p[a].box = fb_union(&p[a].box, &box);
            a = m[a].parent;
        }
        log[i] = nl;
    }
    if (!keep) b->nlog = 0;
}

const cl_tnode *cl_tree_rebuild_ready(cl_tree *t) {
    struct cl_tbuild *b = t->bld;
    if (b == NULL || b->ns > 0 || b->phase != 2 || b->stale) return NULL;
    build_replay(t, b, 0, 0);
    return b->p;
}

int cl_tree_rebuild_logged(const cl_tree *t) {
    return build_fitted(t) && !t->bld->stale ? t->bld->nlog : -1;
}

int cl_tree_rebuild_replayed(const cl_tree *t, const int **leaves) {
    if (t->old == NULL) return -1;
    *leaves = t->old->log;
    return t->old->nlog;
}

const int *cl_tree_rebuild_leafmap(const cl_tree *t) {
    return t->bld != NULL && t->bld->ns == 0 && t->bld->phase >= 1 ? t->bld->map : NULL;
}

const int *cl_tree_rebuild_map(const cl_tree *t) {
    return t->old != NULL ? t->old->map : NULL;
}

void cl_tree_rebuild_release(cl_tree *t) {
    struct cl_tbuild *b = t->old;
    if (!b) return;
    t->old = NULL;
    tree_build_retire(t, b);
}

/* Phase 1 of the install, in four calls (part 0 to 3): the leaves' payloads (map notes old leaf
 * node -> new), half the new pool's nodes in use (0..k-1) a call, with the free list of the
 * nodes k..cap-1 (as build_close) in the second; heights of the new tree and its internal boxes
 * fitted to the leaves' boxes of the build's start, bottom up in two halves of the node indices
 * (so cl_tree_rebuild_fitted can hand out a whole tree; phase 2 fits them again to the boxes of
 * then). The parts touch only the new pool and read only the old leaves' payloads, which no
 * leaf change alters: the same tree as in one call. */
static void build_prep(const cl_tree *t, struct cl_tbuild *b, int part) {
    cl_tnode *p = b->p;
    signed char *h = b->h;
    int i;
    if (part < 2) {                     /* leaves: the old node -> new map, the payloads (part 0:
                                           nodes 0 to k/2 - 1, part 1: the rest) */
        for (i = part == 0 ? 0 : b->k / 2; i < (part == 0 ? b->k / 2 : b->k); i++)
            if (p[i].child1 == CL_NULLNODE) {
                b->map[p[i].child2] = i;
                p[i].child2 = t->nodes[p[i].child2].child2;
            }
        if (part == 1)
            for (i = b->k; i < b->cap; i++) h[i] = -1;  /* free, untouched (tree_grow) */
    } else {                            /* part 2: nodes k-1 down to k/2, part 3: the rest */
        int lo = part == 2 ? b->k / 2 : 0, hi = part == 2 ? b->k : b->k / 2;
        for (i = hi - 1; i >= lo; i--)
            if (p[i].child1 != CL_NULLNODE) {
                int x = p[i].child1, y = p[i].child2;
                h[i] = (signed char)(1 + (h[x] > h[y] ? h[x] : h[y]));
                p[i].box = fb_union(&p[x].box, &p[y].box);
            } else {
                h[i] = 0;
            }
    }
}

/* The fit of a rebuild's internal boxes (build_fit) is spread over this many calls (its leaf
 * copy in two more): a call fits about k / FIT_PARTS nodes and replays the frame's leaf changes. */
#define FIT_PARTS 4

/* Phase 2 (and a stale install): the new leaves take the boxes of their old nodes (through
 * map; parts -2 and -3: the old pool's nodes below half its used range and the rest, or -1:
 * all), every internal box is fitted bottom up (children follow their parent, so nodes k-1
 * down to 0 is a bottom-up order) and the cost noted (as build_close; parts 1 to FIT_PARTS, or
 * -1). Phase 2 runs parts -2, -3, then 1 to FIT_PARTS, a call each; the leaves' box changes are
 * logged from after part -2 on, and part 1 first copies the logged leaves again (all of them if
 * the log went stale) and empties the log, then fits the top FIT_PARTS-th of the node indices
 * (k-1 down); each later part replays the leaves logged since (their fitted ancestors grown)
 * and fits the next range down (their children's boxes: an earlier part's, or leaves'); the
 * last notes the cost. A leaf changed after a part stays logged: the next part, or the install,
 * copies it and grows its new ancestors. Without such changes the tree is the one a fit in one
 * call gives. */
static void build_fit(const cl_tree *t, struct cl_tbuild *b, int part) {
    const cl_tnode *old = t->nodes;
    cl_tnode *p = b->p;
    double sum = part >= 2 ? b->cost : 0, rc;
    int i, lo = part >= 1 ? (int)((long)b->k * (FIT_PARTS - part) / FIT_PARTS) : 0,
        hi = part >= 1 ? (int)((long)b->k * (FIT_PARTS - part + 1) / FIT_PARTS) : b->k;
    if (part <= -2) {                   /* the leaves' boxes, by old node index: every leaf is
                                           below lazy, which only a reinsertion's new inner node
                                           moves up (never a leaf), so part -2 notes its half */
        int e = part == -2 ? (b->split = t->lazy / 2) : t->lazy;
        for (i = part == -2 ? 0 : b->split; i < e; i++)
            if (t->hgt[i] == 0) p[b->map[i]].box = old[i].box;
        return;
    }
    if (part >= 2 && !b->stale) build_replay(t, b, 0, hi);
    if (part == 1 && !b->stale) {
        for (i = 0; i < b->nlog; i++) p[b->map[b->log[i]]].box = old[b->log[i]].box;
    } else if (part < 2) {
        for (i = 0; i < b->cap; i++)
            if (t->hgt[i] == 0) p[b->map[i]].box = old[i].box;
    }
    if (part < 2) {
        b->nlog = 0;
        b->stale = 0;
    }
    for (i = hi - 1; i >= lo; i--)
        if (p[i].child1 != CL_NULLNODE) {
            p[i].box = fb_union(&p[p[i].child1].box, &p[p[i].child2].box);
            sum += fb_cost(&p[i].box);
        }
    if (part >= 1 && part < FIT_PARTS) {    /* the partial sum, finished by the last part */
        b->cost = sum;
        return;
    }
    rc = fb_cost(&p[0].box);
    b->cost = rc > 0 ? sum / rc : 0;
}

int cl_tree_rebuild_step(cl_tree *t, long work) {
    struct cl_tbuild *b = t->bld;
    cl_tnode *p;
    cl_tmeta *m;
    if (!b) return 0;
    if (b->ns > 0) {        /* building; a call that finishes the build leaves the rest to the next */
        rout o;
        o.p = b->p; o.m = b->m; o.h = NULL; o.sum = 0; o.k = b->k;
        build_run(b->lv, &o, b->st, &b->ns, &b->root, work);
        b->k = o.k;
        return 0;
    }
    if (b->phase == 0) {    /* each part of a phase in a call of its own: no call pays for two */
        build_prep(t, b, b->sub);
        if (++b->sub == 4) {
            b->phase = 1;
            b->sub = 0;
        }
        return 0;
    }
    if (b->phase == 1) {
        build_fit(t, b, b->sub < 2 ? -2 - b->sub : b->sub - 1);
        if (++b->sub == FIT_PARTS + 2) {
            b->phase = 2;
            b->sub = 0;
        }
        return 0;
    }
    /* install: the leaves whose box changed since the fit take their present boxes (their
     * new ancestors grow to enclose them), or all leaves again when stale */
    p = b->p;
    m = b->m;
    if (b->stale) {
        build_fit(t, b, -1);
        b->nlog = -1;
    } else {
        build_replay(t, b, 1, 0);   /* the new leaves kept for cl_tree_rebuild_replayed */
    }
    cl_tree_rebuild_release(t);     /* a previous install's blocks, if still kept */
    b->p = t->nodes;                /* the old pool, freed by cl_tree_rebuild_release */
    t->nodes = p;
    t->meta = m;
    t->hgt = b->h;
    t->root = b->root;
    t->built_cost = b->cost;
    t->lazy = b->k;
    t->lazynext = CL_NULLNODE;
    t->freelist = b->k < b->cap ? CL_TREE_LAZY : CL_NULLNODE;
    t->nfree = b->cap - b->k;
    t->bld = NULL;
    t->old = b;
    pend_clear(t);
    return 1;
}

int cl_tree_height(const cl_tree *t) {
    return t->root == CL_NULLNODE ? -1 : H(t, t->root);
}

int cl_tree_validate(const cl_tree *t) {
    int i, leaves = 0, used = 0, nfree = 0;
    for (i = 0; i < t->cap; i++) {
        const cl_tnode *n = &t->nodes[i];
        const cl_tmeta *m = &t->meta[i];
        int mh = t->hgt[i];
        if (mh < 0) { nfree++; continue; }
        used++;
        if (m->parent < CL_NULLNODE) {       /* pending leaf: its slot points back */
            int k = -2 - m->parent;
            if (k >= t->npend || t->pend[k] != i || n->child1 != CL_NULLNODE || mh != 0) return 0;
            leaves++;
            continue;
        }
        if (m->parent == CL_NULLNODE) {
            if (t->root != i) return 0;
        } else {
            const cl_tnode *p = &t->nodes[m->parent];
            if (p->child1 != i && p->child2 != i) return 0;
        }
        if (n->child1 == CL_NULLNODE) {
            if (mh != 0) return 0;
            leaves++;
        } else {
            int a = n->child1, b = n->child2;
            int h = 1 + (H(t, a) > H(t, b) ? H(t, a) : H(t, b));
            if (t->meta[a].parent != i || t->meta[b].parent != i || mh != h) return 0;
            if (!close_h(H(t, a), H(t, b))) return 0;
            if (!fb_encloses(&n->box, &t->nodes[a].box) || !fb_encloses(&n->box, &t->nodes[b].box))
                return 0;
        }
    }
    for (i = t->freelist; i != CL_NULLNODE; ) {
        if (i == CL_TREE_LAZY) {
            if (t->lazy < 0 || t->lazy >= t->cap) return 0;
            nfree -= t->cap - t->lazy;
            i = t->lazynext;
        } else {
            nfree--;
            i = t->meta[i].parent;
        }
    }
    return nfree == 0 && leaves == t->leaves && used == t->cap - t->nfree &&
           (t->leaves == t->npend ? t->root == CL_NULLNODE : used == 2 * (t->leaves - t->npend) - 1 + t->npend) &&
           t->nfree >= t->npend;
}

double cl_tree_cost(const cl_tree *t) {
    double sum = 0, rc;
    int i;
    if (t->leaves - t->npend < 2) return 0;
    for (i = 0; i < t->cap; i++)
        if (t->hgt[i] > 0) sum += fb_cost(&t->nodes[i].box);
    rc = fb_cost(&t->nodes[t->root].box);
    return rc > 0 ? sum / rc : 0;
}

void cl_stack_init(cl_stack *s) {
    s->p = s->local;
    s->n = 0;
    s->cap = CL_STACK_LOCAL;
}

int cl_stack_push(cl_tree *t, cl_stack *s, int node, double tv) {
    if (s->n == s->cap) {
        int ncap = s->cap * 2, i;
        cl_sentry *np;
        if (s->p == s->local) {
            np = (cl_sentry *)t->alloc(t->ud, NULL, 0, (size_t)ncap * sizeof(cl_sentry));
            if (!np) return 0;
            for (i = 0; i < s->n; i++) np[i] = s->local[i];
        } else {
            np = (cl_sentry *)t->alloc(t->ud, s->p, (size_t)s->cap * sizeof(cl_sentry),
                                       (size_t)ncap * sizeof(cl_sentry));
            if (!np) return 0;
        }
        s->p = np;
        s->cap = ncap;
    }
    s->p[s->n].node = node;
    s->p[s->n].t = tv;
    s->n++;
    return 1;
}

void cl_stack_free(cl_tree *t, cl_stack *s) {
    if (s->p != s->local) t->alloc(t->ud, s->p, (size_t)s->cap * sizeof(cl_sentry), 0);
    cl_stack_init(s);
}
