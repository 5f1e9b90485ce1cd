/* collide core: bump.lua's world on collide's tree (see bump.h). Owns the item slots and their
 * rectangles, the tree leaves (fattened when an item moves out of its leaf box) and bump's exact
 * tests; the Lua binding (csrc/bind/bump.c) owns items, filters and responses. */
#include "bump.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The grid holds nothing and no memory (its fields as a new world has them; gstamp and goff
 * are kept). */
static void grid_clear(cl_bump *b) {
    b->gkeys = NULL;
    b->ghead = NULL;
    b->gcap = b->gused = 0;
    b->mnext = b->mid = NULL;
    b->mcap = 0;
    b->mfree = -1;
    b->gin = NULL;
    b->stamp = NULL;
    b->gslots = b->gbig = 0;
}

void cl_bump_init(cl_bump *b, double cellsize, cl_alloc alloc, void *ud) {
    cl_tree_init(&b->tree, alloc, ud);
    b->cellsize = cellsize;
    b->rect = NULL;
    b->cells = NULL;
    b->leaf = NULL;
    b->nextfree = NULL;
    b->cap = b->count = 0;
    b->changes = 0;
    b->freelist = -1;
    grid_clear(b);
    b->gstamp = 0;
    b->goff = 0;
}

/* ---- bump's grid (the accelerator of cl_bump_project's candidates, see bump.h) ---- */

/* Cell rects spanning more cells than this, or with a cell number beyond BUMP_GRIDFAR, stay out
 * of the grid (while any item is out, the tree gives the candidates). */
#define BUMP_GRIDSPAN 64
#define BUMP_GRIDFAR 1099511627776.0 /* 2^40 */

/* Frees the grid's memory; the grid is empty. */
static void grid_free(cl_bump *b) {
    cl_alloc a = b->tree.alloc;
    void *ud = b->tree.ud;
    if (b->gcap) {
        a(ud, b->gkeys, (size_t)b->gcap * 2 * sizeof(double), 0);
        a(ud, b->ghead, (size_t)b->gcap * sizeof(int), 0);
    }
    if (b->mcap) {
        a(ud, b->mnext, (size_t)b->mcap * sizeof(int), 0);
        a(ud, b->mid, (size_t)b->mcap * sizeof(int), 0);
    }
    if (b->gslots) {
        a(ud, b->gin, (size_t)b->gslots, 0);
        a(ud, b->stamp, (size_t)b->gslots * sizeof(unsigned), 0);
    }
    grid_clear(b);
}

/* An allocation of the grid failed: drop it for good (the tree answers alone). */
static void grid_fail(cl_bump *b) {
    grid_free(b);
    b->goff = 1;
}

/* 1 when the cell rect c (first and last column, first and last row) goes in the grid. */
static int grid_fits(const double *c) {
    if (!(c[0] <= c[2] && c[1] <= c[3])) return 0;
    if (!(fabs(c[0]) <= BUMP_GRIDFAR && fabs(c[1]) <= BUMP_GRIDFAR && fabs(c[2]) <= BUMP_GRIDFAR &&
          fabs(c[3]) <= BUMP_GRIDFAR))
        return 0;
    return (c[2] - c[0] + 1) * (c[3] - c[1] + 1) <= BUMP_GRIDSPAN;
}

static unsigned grid_hash(double cx, double cy) {
    unsigned long long x = (unsigned long long)(long long)cx, y = (unsigned long long)(long long)cy;
    unsigned long long h = x * 0x9E3779B97F4A7C15ull ^ y * 0xC2B2AE3D27D4EB4Full;
    return (unsigned)(h ^ h >> 32);
}

/* The entry of cell (cx, cy), or -1. */
static int grid_find(const cl_bump *b, double cx, double cy) {
    unsigned m, i;
    if (!b->gcap) return -1;
    m = (unsigned)b->gcap - 1;
    for (i = grid_hash(cx, cy) & m; b->ghead[i] != -1; i = (i + 1) & m)
        if (b->gkeys[2 * i] == cx && b->gkeys[2 * i + 1] == cy) return (int)i;
    return -1;
}

/* Returns 0 once the slot arrays of the grid cover b->cap slots, -1 when memory ran out. */
static int grid_slots(cl_bump *b) {
    cl_alloc a = b->tree.alloc;
    void *ud = b->tree.ud;
    unsigned char *g;
    unsigned *st;
    if (b->gslots >= b->cap) return 0;
    g = (unsigned char *)a(ud, NULL, 0, (size_t)b->cap);
    st = g ? (unsigned *)a(ud, NULL, 0, (size_t)b->cap * sizeof(unsigned)) : NULL;
    if (!st) {
        if (g) a(ud, g, (size_t)b->cap, 0);
        return -1;
    }
    memset(st, 0, (size_t)b->cap * sizeof(unsigned));
    if (b->gslots) {
        memcpy(g, b->gin, (size_t)b->gslots);
        memcpy(st, b->stamp, (size_t)b->gslots * sizeof(unsigned));
        a(ud, b->gin, (size_t)b->gslots, 0);
        a(ud, b->stamp, (size_t)b->gslots * sizeof(unsigned), 0);
    }
    b->gin = g;
    b->stamp = st;
    b->gslots = b->cap;
    return 0;
}

/* Returns the entry of cell (cx, cy), made (empty list) if needed; -1 when memory ran out. */
static int grid_entry(cl_bump *b, double cx, double cy) {
    int e = grid_find(b, cx, cy);
    unsigned m, i;
    if (e >= 0) return e;
    if (2 * (b->gused + 1) > b->gcap) {
        cl_alloc a = b->tree.alloc;
        void *ud = b->tree.ud;
        int ncap = b->gcap ? 2 * b->gcap : 64, k;
        double *keys = (double *)a(ud, NULL, 0, (size_t)ncap * 2 * sizeof(double));
        int *head = keys ? (int *)a(ud, NULL, 0, (size_t)ncap * sizeof(int)) : NULL;
        if (!head) {
            if (keys) a(ud, keys, (size_t)ncap * 2 * sizeof(double), 0);
            return -1;
        }
        for (k = 0; k < ncap; k++) head[k] = -1;
        m = (unsigned)ncap - 1;
        for (k = 0; k < b->gcap; k++) {
            if (b->ghead[k] == -1) continue;
            for (i = grid_hash(b->gkeys[2 * k], b->gkeys[2 * k + 1]) & m; head[i] != -1; i = (i + 1) & m) {}
            keys[2 * i] = b->gkeys[2 * k];
            keys[2 * i + 1] = b->gkeys[2 * k + 1];
            head[i] = b->ghead[k];
        }
        if (b->gcap) {
            a(ud, b->gkeys, (size_t)b->gcap * 2 * sizeof(double), 0);
            a(ud, b->ghead, (size_t)b->gcap * sizeof(int), 0);
        }
        b->gkeys = keys;
        b->ghead = head;
        b->gcap = ncap;
    }
    m = (unsigned)b->gcap - 1;
    for (i = grid_hash(cx, cy) & m; b->ghead[i] != -1; i = (i + 1) & m) {}
    b->gkeys[2 * i] = cx;
    b->gkeys[2 * i + 1] = cy;
    b->ghead[i] = -2; /* taken, list empty (the caller links a membership at once) */
    b->gused++;
    return (int)i;
}

/* Removes entry i (its list empty), shifting back the entries of its probe run. */
static void grid_delete(cl_bump *b, unsigned i) {
    unsigned m = (unsigned)b->gcap - 1, j = i;
    for (;;) {
        unsigned k;
        j = (j + 1) & m;
        if (b->ghead[j] == -1) break;
        k = grid_hash(b->gkeys[2 * j], b->gkeys[2 * j + 1]) & m;
        /* entry j may move to i unless its home k lies cyclically in (i, j] */
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;
        b->gkeys[2 * i] = b->gkeys[2 * j];
        b->gkeys[2 * i + 1] = b->gkeys[2 * j + 1];
        b->ghead[i] = b->ghead[j];
        i = j;
    }
    b->ghead[i] = -1;
    b->gused--;
}

/* Puts slot id in the cells c; -1 when memory ran out. */
static int grid_link(cl_bump *b, int id, const double *c) {
    double cx, cy;
    for (cy = c[1]; cy <= c[3]; cy++) {
        for (cx = c[0]; cx <= c[2]; cx++) {
            int e, nd;
            if (b->mfree < 0) {
                cl_alloc a = b->tree.alloc;
                void *ud = b->tree.ud;
                int ncap = b->mcap ? 2 * b->mcap : 256, k;
                size_t os = (size_t)b->mcap * sizeof(int), ns = (size_t)ncap * sizeof(int);
                int *nx = (int *)a(ud, NULL, 0, ns);
                int *mi = nx ? (int *)a(ud, NULL, 0, ns) : NULL;
                if (!mi) {
                    if (nx) a(ud, nx, ns, 0);
                    return -1;
                }
                if (b->mcap) {
                    memcpy(nx, b->mnext, os);
                    memcpy(mi, b->mid, os);
                    a(ud, b->mnext, os, 0);
                    a(ud, b->mid, os, 0);
                }
                b->mnext = nx;
                b->mid = mi;
                for (k = b->mcap; k < ncap; k++) b->mnext[k] = k + 1 < ncap ? k + 1 : -1;
                b->mfree = b->mcap;
                b->mcap = ncap;
            }
            e = grid_entry(b, cx, cy);
            if (e < 0) return -1;
            nd = b->mfree;
            b->mfree = b->mnext[nd];
            b->mid[nd] = id;
            b->mnext[nd] = b->ghead[e] == -2 ? -1 : b->ghead[e];
            b->ghead[e] = nd;
        }
    }
    return 0;
}

/* Takes slot id out of the cells c (it is in each). */
static void grid_unlink(cl_bump *b, int id, const double *c) {
    double cx, cy;
    for (cy = c[1]; cy <= c[3]; cy++) {
        for (cx = c[0]; cx <= c[2]; cx++) {
            int e = grid_find(b, cx, cy), *p, nd;
            if (e < 0) continue;
            for (p = &b->ghead[e]; *p >= 0 && b->mid[*p] != id; p = &b->mnext[*p]) {}
            if (*p < 0) continue;
            nd = *p;
            *p = b->mnext[nd];
            b->mnext[nd] = b->mfree;
            b->mfree = nd;
            if (b->ghead[e] < 0) grid_delete(b, (unsigned)e);
        }
    }
}

/* Enters slot id (cells c) in the grid, or counts it out of it. */
static void grid_put(cl_bump *b, int id, const double *c) {
    if (b->goff) return;
    if (grid_slots(b) != 0) {
        grid_fail(b);
        return;
    }
    if (!grid_fits(c)) {
        b->gin[id] = 0;
        b->gbig++;
        return;
    }
    b->gin[id] = 1;
    if (grid_link(b, id, c) != 0) grid_fail(b);
}

/* Takes slot id (cells c) out of the grid. */
static void grid_take(cl_bump *b, int id, const double *c) {
    if (b->goff) return;
    if (b->gin[id]) grid_unlink(b, id, c);
    else b->gbig--;
}

/* bump's candidates for the cells q from the grid: the slots listed in one of them, each once
 * (count and capacity as cl_bump_candidates); -1 when the grid cannot answer (the tree must). */
static int grid_cands(cl_bump *b, const double *q, int *out, int cap) {
    double cx, cy;
    int n = 0;
    if (b->goff || b->gbig || !grid_fits(q)) return -1;
    if (++b->gstamp == 0) {
        memset(b->stamp, 0, (size_t)b->gslots * sizeof(unsigned));
        b->gstamp = 1;
    }
    for (cy = q[1]; cy <= q[3]; cy++) {
        for (cx = q[0]; cx <= q[2]; cx++) {
            int e = grid_find(b, cx, cy), nd;
            if (e < 0) continue;
            for (nd = b->ghead[e]; nd >= 0; nd = b->mnext[nd]) {
                int id = b->mid[nd];
                if (b->stamp[id] == b->gstamp) continue;
                b->stamp[id] = b->gstamp;
                if (n < cap) out[n] = id;
                n++;
            }
        }
    }
    return n;
}

void cl_bump_free(cl_bump *b) {
    cl_alloc a = b->tree.alloc;
    void *ud = b->tree.ud;
    if (b->cap) {
        a(ud, b->rect, (size_t)b->cap * 4 * sizeof(double), 0);
        a(ud, b->cells, (size_t)b->cap * 4 * sizeof(double), 0);
        a(ud, b->leaf, (size_t)b->cap * sizeof(int), 0);
        a(ud, b->nextfree, (size_t)b->cap * sizeof(int), 0);
    }
    grid_free(b);
    cl_tree_free(&b->tree);
    cl_bump_init(b, b->cellsize, a, ud);
}

/* Returns CL_OK once the slot arrays hold at least need slots, CL_ENOMEM (unchanged) otherwise.
 * The new arrays are all allocated before any old one is let go (a failure halfway used to leave a
 * grown array the free could not account for, and leaked it when the world had no slot yet). */
static int bump_grow(cl_bump *b, int need) {
    cl_alloc a = b->tree.alloc;
    void *ud = b->tree.ud;
    int ncap = b->cap ? b->cap : 16;
    size_t od = (size_t)b->cap * 4 * sizeof(double), oi = (size_t)b->cap * sizeof(int), nd, ni;
    double *r, *c;
    int *l, *f;
    while (ncap < need) {
        if (ncap > (1 << 28)) return CL_ENOMEM;
        ncap *= 2;
    }
    if (ncap == b->cap) return CL_OK;
    nd = (size_t)ncap * 4 * sizeof(double);
    ni = (size_t)ncap * sizeof(int);
    r = (double *)a(ud, NULL, 0, nd);
    c = r ? (double *)a(ud, NULL, 0, nd) : NULL;
    l = c ? (int *)a(ud, NULL, 0, ni) : NULL;
    f = l ? (int *)a(ud, NULL, 0, ni) : NULL;
    if (!f) {
        if (l) a(ud, l, ni, 0);
        if (c) a(ud, c, nd, 0);
        if (r) a(ud, r, nd, 0);
        return CL_ENOMEM;
    }
    if (b->cap) {
        memcpy(r, b->rect, od);
        memcpy(c, b->cells, od);
        memcpy(l, b->leaf, oi);
        memcpy(f, b->nextfree, oi);
        a(ud, b->rect, od, 0);
        a(ud, b->cells, od, 0);
        a(ud, b->leaf, oi, 0);
        a(ud, b->nextfree, oi, 0);
    }
    b->rect = r;
    b->cells = c;
    b->leaf = l;
    b->nextfree = f;
    b->cap = ncap;
    return CL_OK;
}

/* Returns the flat 3D box of a rectangle grown by m on each side. */
static cl_aabb bump_box(const double *r, double m) {
    cl_aabb box;
    box.min = cl_v3(r[0] - m, r[1] - m, 0);
    box.max = cl_v3(r[0] + r[2] + m, r[1] + r[3] + m, 0);
    return box;
}

/* Counts a change of the tree; after as many changes as there are items (and at least 64), rebuilds
 * the tree (better boxes, depth-first memory order) and re-reads every item's leaf. A failed
 * rebuild (no memory) leaves the tree as it was. */
static void bump_changed(cl_bump *b) {
    int i;
    if (++b->changes < 64 || b->changes < b->tree.leaves) return;
    b->changes = 0;
    if (cl_tree_rebuild(&b->tree) != CL_OK) return;
    for (i = 0; i < b->tree.cap; i++) {
        const cl_tnode *nd = &b->tree.nodes[i];
        if (b->tree.hgt[i] == 0 && nd->child1 == CL_NULLNODE) b->leaf[nd->child2] = i;
    }
}

int cl_bump_live(const cl_bump *b, int id) {
    return id >= 0 && id < b->count && b->leaf[id] != CL_NULLNODE;
}

int cl_bump_add(cl_bump *b, double x, double y, double w, double h) {
    int id, leaf;
    cl_aabb box;
    if (b->freelist < 0) {
        /* slots [0, count) are all taken: the next is count */
        if (bump_grow(b, b->count + 1) != CL_OK) return CL_ENOMEM;
        id = b->count;
    } else {
        id = b->freelist;
    }
    if (cl_tree_reserve(&b->tree, 1) != CL_OK) return CL_ENOMEM;
    b->rect[4 * id] = x;
    b->rect[4 * id + 1] = y;
    b->rect[4 * id + 2] = w;
    b->rect[4 * id + 3] = h;
    cl_bump_cellrect(b->cellsize, x, y, w, h, b->cells + 4 * id);
    box = bump_box(b->rect + 4 * id, 0);
    leaf = cl_tree_insert(&b->tree, &box, id);
    if (leaf == CL_NULLNODE) return CL_ENOMEM;
    if (id == b->freelist) b->freelist = b->nextfree[id];
    else b->count++;
    b->leaf[id] = leaf;
    grid_put(b, id, b->cells + 4 * id);
    bump_changed(b);
    return id;
}

void cl_bump_remove(cl_bump *b, int id) {
    grid_take(b, id, b->cells + 4 * id);
    cl_tree_remove(&b->tree, b->leaf[id]);
    b->leaf[id] = CL_NULLNODE;
    b->nextfree[id] = b->freelist;
    b->freelist = id;
    bump_changed(b);
}

int cl_bump_update(cl_bump *b, int id, double x, double y, double w, double h, double oldcells[4]) {
    double *r = b->rect + 4 * id, *c = b->cells + 4 * id;
    int left;
    int leaf = b->leaf[id];
    const cl_fbox *fb = &b->tree.nodes[leaf].box;
    double dx = x - r[0], dy = y - r[1];
    r[0] = x;
    r[1] = y;
    r[2] = w;
    r[3] = h;
    memcpy(oldcells, c, 4 * sizeof(double));
    cl_bump_cellrect(b->cellsize, x, y, w, h, c);
    left = oldcells[0] < c[0] || oldcells[1] < c[1] || oldcells[2] > c[2] || oldcells[3] > c[3];
    if (left || oldcells[0] != c[0] || oldcells[1] != c[1] || oldcells[2] != c[2] || oldcells[3] != c[3]) {
        grid_take(b, id, oldcells);
        grid_put(b, id, c);
    }
    /* the leaf box still encloses the rectangle: nothing to do (the float box is rounded outward,
     * so comparing doubles with it is conservative) */
    if (fb->lo[0] <= x && fb->lo[1] <= y && x + w <= fb->hi[0] && y + h <= fb->hi[1]) return left;
    {
        /* moved out: a new leaf box with a margin of half the larger side, stretched four times
         * this move's displacement ahead (fast items keep their leaf for a few moves) */
        double m = 0.5 * (w > h ? w : h);
        cl_aabb box = bump_box(r, m);
        if (dx > 0) box.max.x += 4 * dx;
        else box.min.x += 4 * dx;
        if (dy > 0) box.max.y += 4 * dy;
        else box.min.y += 4 * dy;
        b->leaf[id] = cl_tree_move(&b->tree, leaf, &box);
        bump_changed(b);
    }
    return left;
}

/* Depth of the local traversal stack; deeper trees continue on a cl_stack. */
#define BUMP_STACK 64

/* Returns 1 when the float box may touch the segment p + t d, t in [0, 1] (slab test padded by
 * eps, so rounding never drops a box the exact test would keep); seg holds p, d and 1 / d (an
 * infinite 1 / d for d = 0 is not used). */
static int seg_touches(const cl_fbox *f, const double *seg, double eps) {
    double t0 = 0, t1 = 1;
    int k;
    for (k = 0; k < 2; k++) {
        double lo = (double)f->lo[k] - eps, hi = (double)f->hi[k] + eps, p = seg[k];
        if (seg[2 + k] == 0) {
            if (p < lo || p > hi) return 0;
        } else {
            double inv = seg[4 + k], a = (lo - p) * inv, c = (hi - p) * inv;
            if (a > c) { double tmp = a; a = c; c = tmp; }
            if (a > t0) t0 = a;
            if (c < t1) t1 = c;
            if (t0 > t1) return 0;
        }
    }
    return 1;
}

/* Returns 1 when the node's box passes the query: the float box q (seg == NULL; both rounded
 * outward, so the test is conservative) or the segment. */
static int node_passes(const cl_fbox *f, const cl_fbox *q, const double *seg, double eps) {
    if (seg) return seg_touches(f, seg, eps);
    return (f->lo[0] <= q->hi[0]) & (q->lo[0] <= f->hi[0]) & (f->lo[1] <= q->hi[1]) & (q->lo[1] <= f->hi[1]);
}

#if defined(__GNUC__) || defined(__clang__)
#define BUMP_INLINE static inline __attribute__((always_inline))
#else
#define BUMP_INLINE static inline
#endif

/* Writes the slots of the leaves passing the query to out (at most cap); returns how many pass,
 * or CL_ENOMEM. Children are tested before they are pushed. Inlined in its two callers, so the
 * query kind (seg NULL or not) is a constant there. */
BUMP_INLINE int bump_walk(cl_bump *b, const cl_fbox *q, const double *seg, double eps, int *out, int cap) {
    cl_tree *t = &b->tree;
    int stack[BUMP_STACK], sp = 0, n = 0;
    cl_stack big;
    int usebig = 0;
    if (t->root == CL_NULLNODE || !node_passes(&t->nodes[t->root].box, q, seg, eps)) return 0;
    stack[sp++] = t->root;
    for (;;) {
        int i, k;
        const cl_tnode *nd;
        if (usebig) {
            if (big.n == 0) break;
            i = big.p[--big.n].node;
        } else {
            if (sp == 0) break;
            i = stack[--sp];
        }
        nd = &t->nodes[i];
        if (nd->child1 == CL_NULLNODE) {
            if (n < cap) out[n] = nd->child2;
            n++;
            continue;
        }
        for (k = 0; k < 2; k++) {
            int ch = k ? nd->child1 : nd->child2;
            if (!node_passes(&t->nodes[ch].box, q, seg, eps)) continue;
            if (!usebig && sp < BUMP_STACK) {
                stack[sp++] = ch;
                continue;
            }
            if (!usebig) {
                /* the local stack is full: move it to a growable one */
                int m;
                cl_stack_init(&big);
                usebig = 1;
                for (m = 0; m < sp; m++)
                    if (!cl_stack_push(t, &big, stack[m], 0)) { cl_stack_free(t, &big); return CL_ENOMEM; }
            }
            if (!cl_stack_push(t, &big, ch, 0)) {
                cl_stack_free(t, &big);
                return CL_ENOMEM;
            }
        }
    }
    if (usebig) cl_stack_free(t, &big);
    return n;
}

int cl_bump_candidates(cl_bump *b, double x0, double y0, double x1, double y1, int *out, int cap) {
    cl_aabb box;
    cl_fbox q;
    box.min = cl_v3(x0, y0, 0);
    box.max = cl_v3(x1, y1, 0);
    q = cl_fbox_from(&box);
    return bump_walk(b, &q, NULL, 0, out, cap);
}

void cl_bump_cellrect(double cs, double x, double y, double w, double h, double c[4]) {
    c[0] = floor(x / cs) + 1;
    c[1] = floor(y / cs) + 1;
    c[2] = ceil((x + w) / cs);
    c[3] = ceil((y + h) / cs);
}

int cl_bump_cellcands(cl_bump *b, double x0, double y0, double x1, double y1, const double q[4], int *out, int cap) {
    int n = cl_bump_candidates(b, x0, y0, x1, y1, out, cap), i, m = 0;
    if (n < 0 || n > cap) return n;
    for (i = 0; i < n; i++) {
        const double *c = b->cells + 4 * out[i];
        if (c[0] <= q[2] && q[0] <= c[2] && c[1] <= q[3] && q[1] <= c[3]) out[m++] = out[i];
    }
    return m;
}

int cl_bump_segindices(const double r[4], double x1, double y1, double x2, double y2,
                       double *pti1, double *pti2, double n[4]) {
    double ti1 = *pti1, ti2 = *pti2;
    double dx = x2 - x1, dy = y2 - y1;
    double nx1 = 0, ny1 = 0, nx2 = 0, ny2 = 0;
    int side;
    for (side = 1; side <= 4; side++) {
        double nx, ny, p, q;
        switch (side) {
        case 1: nx = -1; ny = 0; p = -dx; q = x1 - r[0]; break;          /* left */
        case 2: nx = 1; ny = 0; p = dx; q = r[0] + r[2] - x1; break;     /* right */
        case 3: nx = 0; ny = -1; p = -dy; q = y1 - r[1]; break;          /* top */
        default: nx = 0; ny = 1; p = dy; q = r[1] + r[3] - y1; break;    /* bottom */
        }
        if (p == 0) {
            if (q <= 0) return 0;
        } else {
            double rr = q / p;
            if (p < 0) {
                if (rr > ti2) return 0;
                if (rr > ti1) { ti1 = rr; nx1 = nx; ny1 = ny; }
            } else {
                if (rr < ti1) return 0;
                if (rr < ti2) { ti2 = rr; nx2 = nx; ny2 = ny; }
            }
        }
    }
    *pti1 = ti1;
    *pti2 = ti2;
    n[0] = nx1;
    n[1] = ny1;
    n[2] = nx2;
    n[3] = ny2;
    return 1;
}

/* Returns bump's nearest(x, a, b): a when it is strictly closer to x, else b. */
static double nearest(double x, double a, double b) {
    return fabs(a - x) < fabs(b - x) ? a : b;
}

/* Returns bump's sign(x): 1, 0 or -1. */
static double sgn(double x) {
    return x > 0 ? 1 : x == 0 ? 0 : -1;
}

int cl_bump_detect(const double r1[4], const double r2[4], double gx, double gy, cl_bcol *c) {
    double x1 = r1[0], y1 = r1[1], w1 = r1[2], h1 = r1[3];
    double dx = gx - x1, dy = gy - y1;
    /* Minkowski difference, as bump's rect.getDiff */
    double d[4];
    double ti, nx = 0, ny = 0, tx, ty;
    int overlaps;
    d[0] = r2[0] - x1 - w1;
    d[1] = r2[1] - y1 - h1;
    d[2] = w1 + r2[2];
    d[3] = h1 + r2[3];
    if (0 - d[0] > CL_BUMP_DELTA && 0 - d[1] > CL_BUMP_DELTA &&
        d[0] + d[2] - 0 > CL_BUMP_DELTA && d[1] + d[3] - 0 > CL_BUMP_DELTA) {
        /* already overlapping: ti is minus the area of intersection */
        double px = nearest(0, d[0], d[0] + d[2]), py = nearest(0, d[1], d[1] + d[3]);
        double wi = w1 < fabs(px) ? w1 : fabs(px), hi = h1 < fabs(py) ? h1 : fabs(py);
        ti = -wi * hi;
        overlaps = 1;
    } else {
        double t1 = -HUGE_VAL, t2 = HUGE_VAL, n[4];
        if (!cl_bump_segindices(d, 0, 0, dx, dy, &t1, &t2, n)) return 0;
        /* tunnels in (not through a corner only, not from behind) */
        if (!(t1 < 1 && fabs(t1 - t2) >= CL_BUMP_DELTA && (0 < t1 + CL_BUMP_DELTA || (0 == t1 && t2 > 0))))
            return 0;
        ti = t1;
        nx = n[0];
        ny = n[1];
        overlaps = 0;
    }
    if (overlaps) {
        if (dx == 0 && dy == 0) {
            /* overlapping and still: the minimum displacement */
            double px = nearest(0, d[0], d[0] + d[2]), py = nearest(0, d[1], d[1] + d[3]);
            if (fabs(px) < fabs(py)) py = 0;
            else px = 0;
            nx = sgn(px);
            ny = sgn(py);
            tx = x1 + px;
            ty = y1 + py;
        } else {
            /* overlapping and moving: back out against the move */
            double t1 = -HUGE_VAL, t2 = 1, n[4];
            if (!cl_bump_segindices(d, 0, 0, dx, dy, &t1, &t2, n)) return 0;
            nx = n[0];
            ny = n[1];
            tx = x1 + dx * t1;
            ty = y1 + dy * t1;
        }
    } else {
        tx = x1 + dx * ti;
        ty = y1 + dy * ti;
    }
    c->ti = ti;
    c->nx = nx;
    c->ny = ny;
    c->tx = tx;
    c->ty = ty;
    c->overlaps = overlaps;
    return 1;
}

/* Returns 1 when collision a sorts before b (bump's order: ti, square distance; then slot). */
static int col_before(const cl_bcol *a, const cl_bcol *b) {
    if (a->ti != b->ti) return a->ti < b->ti;
    if (a->dist != b->dist) return a->dist < b->dist;
    return a->id < b->id;
}

/* qsort comparator of col_before. */
static int col_cmp(const void *pa, const void *pb) {
    const cl_bcol *a = (const cl_bcol *)pa, *b = (const cl_bcol *)pb;
    return col_before(a, b) ? -1 : col_before(b, a) ? 1 : 0;
}

void cl_bump_sortcols(cl_bcol *c, int n) {
    int i, j;
    if (n > 16) {
        qsort(c, (size_t)n, sizeof *c, col_cmp);
        return;
    }
    for (i = 1; i < n; i++) {
        cl_bcol v = c[i];
        for (j = i; j > 0 && col_before(&v, &c[j - 1]); j--) c[j] = c[j - 1];
        c[j] = v;
    }
}

int cl_bump_project(cl_bump *b, const double r[4], double gx, double gy, const int *skip, int nskip,
                    int *cand, int candcap, cl_bcol *out, int outcap) {
    /* bump's bounding rect of the move (its own arithmetic), whose grid cells give the candidates */
    double x0 = gx < r[0] ? gx : r[0], y0 = gy < r[1] ? gy : r[1];
    double x1 = gx + r[2] > r[0] + r[2] ? gx + r[2] : r[0] + r[2];
    double y1 = gy + r[3] > r[1] + r[3] ? gy + r[3] : r[1] + r[3];
    double q[4], pad;
    int nc, i, k, n = 0;
    cl_bump_cellrect(b->cellsize, x0, y0, x1 - x0, y1 - y0, q);
    /* items farther than this from the move's box cannot collide (bump's margin is 1e-10 of the
     * move); the tree box is padded by more than that */
    pad = 1e-9 * (fabs(gx - r[0]) + fabs(gy - r[1]) + r[2] + r[3]);
    /* the grid lists every item sharing a cell with q, the tree those of them near the move's box:
     * the others cannot collide (see pad), and the sort below is a total order */
    nc = grid_cands(b, q, cand, candcap);
    if (nc < 0) nc = cl_bump_cellcands(b, x0 - pad, y0 - pad, x1 + pad, y1 + pad, q, cand, candcap);
    if (nc < 0) return nc;
    if (nc > candcap || nc > outcap) return nc > candcap ? nc : outcap + 1;
    for (i = 0; i < nc; i++) {
        int id = cand[i];
        const double *o = b->rect + 4 * id;
        for (k = 0; k < nskip && skip[k] != id; k++) {}
        if (k < nskip) continue;
        if (cl_bump_detect(r, o, gx, gy, &out[n])) {
            /* bump's rect.getSquareDistance(itemRect, otherRect), in its order of operations */
            double ddx = r[0] - o[0] + (r[2] - o[2]) / 2, ddy = r[1] - o[1] + (r[3] - o[3]) / 2;
            out[n].dist = ddx * ddx + ddy * ddy;
            out[n].id = id;
            n++;
        }
    }
    cl_bump_sortcols(out, n);
    return n;
}

/* Returns 1 when segment hit a sorts before b (weight, then slot). */
static int seg_before(const cl_bseg *a, const cl_bseg *b) {
    if (a->weight != b->weight) return a->weight < b->weight;
    return a->id < b->id;
}

/* qsort comparator of seg_before. */
static int seg_cmp(const void *pa, const void *pb) {
    const cl_bseg *a = (const cl_bseg *)pa, *b = (const cl_bseg *)pb;
    return seg_before(a, b) ? -1 : seg_before(b, a) ? 1 : 0;
}

/* bump's grid_traverse_initStep: the step, the t between cell borders and the t of the first
 * border along one axis (bump's formula, kept as it is: it mixes cell and world units). */
static void trav_init(double cs, double ct, double t1, double t2, double *step, double *dt, double *t) {
    double v = t2 - t1;
    if (v > 0) {
        *step = 1;
        *dt = cs / v;
        *t = ((ct + v) * cs - t1) / v;
    } else if (v < 0) {
        *step = -1;
        *dt = -cs / v;
        *t = ((ct + v - 1) * cs - t1) / v;
    } else {
        *step = 0;
        *dt = HUGE_VAL;
        *t = HUGE_VAL;
    }
}

/* Marks (seen = 1) the hits among the unseen ones g[0..*m-1] whose grid cells contain cell
 * (cx, cy), moving each to the end of that range and shrinking *m. */
static void trav_visit(cl_bseg *g, int *m, double cx, double cy) {
    int i = 0;
    while (i < *m) {
        const double *c = g[i].cells;
        if (c[0] <= cx && cx <= c[2] && c[1] <= cy && cy <= c[3]) {
            cl_bseg t = g[i];
            t.seen = 1;
            g[i] = g[--*m];
            g[*m] = t;
        } else {
            i++;
        }
    }
}

/* Walks the cells bump's grid_traverse visits for the segment, marking the hits found in them
 * (bump only tests the items of those cells; the hits are reordered). Stops once every hit is
 * found, and after a generous number of steps where bump would walk forever. */
static void trav(const cl_bump *b, double x1, double y1, double x2, double y2, cl_bseg *g, int n) {
    double cs = b->cellsize;
    int i, m = n;
    double cx1 = floor(x1 / cs) + 1, cy1 = floor(y1 / cs) + 1, cx2 = floor(x2 / cs) + 1, cy2 = floor(y2 / cs) + 1;
    double sx, sy, dx, dy, tx, ty, cx = cx1, cy = cy1, steps;
    trav_init(cs, cx1, x1, x2, &sx, &dx, &tx);
    trav_init(cs, cy1, y1, y2, &sy, &dy, &ty);
    steps = 4 * (fabs(cx2 - cx1) + fabs(cy2 - cy1)) + 64;
    for (i = 0; i < n; i++) memcpy(g[i].cells, b->cells + 4 * g[i].id, sizeof g[i].cells);
    trav_visit(g, &m, cx, cy);
    while (m > 0 && fabs(cx - cx2) + fabs(cy - cy2) > 1 && steps-- > 0) {
        if (tx < ty) {
            tx += dx;
            cx += sx;
            trav_visit(g, &m, cx, cy);
        } else {
            if (tx == ty) trav_visit(g, &m, cx + sx, cy);
            ty += dy;
            cy += sy;
            trav_visit(g, &m, cx, cy);
        }
    }
    if (m > 0 && (cx != cx2 || cy != cy2)) trav_visit(g, &m, cx2, cy2);
}

/* Writes to out the items the segment meets inside (0, 1) (weight: entry along the infinite line;
 * normal of the side entered); returns their number, or what cl_bump_project returns on too small
 * buffers or memory failure. */
static int seg_hits(cl_bump *b, double x1, double y1, double x2, double y2, int *cand, int candcap, cl_bseg *out,
                    int outcap) {
    double seg[6], eps;
    int nc, i, n = 0;
    seg[0] = x1;
    seg[1] = y1;
    seg[2] = x2 - x1;
    seg[3] = y2 - y1;
    seg[4] = 1 / seg[2];
    seg[5] = 1 / seg[3];
    /* padding of the node test: far above the rounding of the slab products at these magnitudes
     * (1 / d is rounded, so t is off by a few ulps; the padding is in world units, ~1e-9 of them) */
    eps = 1e-9 * (1 + fabs(x1) + fabs(y1) + fabs(x2) + fabs(y2));
    nc = bump_walk(b, NULL, seg, eps, cand, candcap);
    if (nc < 0) return nc;
    if (nc > candcap || nc > outcap) return nc > candcap ? nc : outcap + 1;
    for (i = 0; i < nc; i++) {
        const double *o = b->rect + 4 * cand[i];
        double t1 = 0, t2 = 1, nn[4];
        if (!cl_bump_segindices(o, x1, y1, x2, y2, &t1, &t2, nn)) continue;
        if ((0 < t1 && t1 < 1) || (0 < t2 && t2 < 1)) {
            double u1 = -HUGE_VAL, u2 = HUGE_VAL;
            out[n].nx = nn[0];
            out[n].ny = nn[1];
            cl_bump_segindices(o, x1, y1, x2, y2, &u1, &u2, nn);
            out[n].ti1 = t1;
            out[n].ti2 = t2;
            out[n].weight = u1 < u2 ? u1 : u2;
            out[n].id = cand[i];
            out[n].seen = 0;
            n++;
        }
    }
    return n;
}

/* Sorts n segment hits by weight, then slot. */
static void sortsegs(cl_bseg *out, int n) {
    int i, j;
    if (n > 16) {
        qsort(out, (size_t)n, sizeof *out, seg_cmp);
        return;
    }
    for (i = 1; i < n; i++) {
        cl_bseg v = out[i];
        for (j = i; j > 0 && seg_before(&v, &out[j - 1]); j--) out[j] = out[j - 1];
        out[j] = v;
    }
}

int cl_bump_rayhits(cl_bump *b, double x1, double y1, double x2, double y2, int *cand, int candcap, cl_bseg *out,
                    int outcap) {
    int n = seg_hits(b, x1, y1, x2, y2, cand, candcap, out, outcap), i;
    if (n < 0 || n > outcap) return n;
    for (i = 0; i < n; i++) out[i].weight = out[i].ti1;
    sortsegs(out, n);
    return n;
}

int cl_bump_segment(cl_bump *b, double x1, double y1, double x2, double y2,
                    int *cand, int candcap, cl_bseg *out, int outcap) {
    int n = seg_hits(b, x1, y1, x2, y2, cand, candcap, out, outcap), i, j;
    if (n < 0 || n > outcap) return n;
    /* keep the hits in the cells bump's traversal visits */
    if (n > 0) trav(b, x1, y1, x2, y2, out, n);
    for (i = j = 0; i < n; i++)
        if (out[i].seen) out[j++] = out[i];
    n = j;
    sortsegs(out, n);
    return n;
}
