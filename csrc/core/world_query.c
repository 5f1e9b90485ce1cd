/* collide core, the World's traversals: box queries (tree and snapshot walks), point queries,
 * closest-hit and all-hits raycasts. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "world_internal.h"

/* ---- traversals ---- */

/* Collects into w->tmp every item whose tree leaf overlaps float box *qp (leaves as they are);
 * the count or CL_ENOMEM. With leaf >= 0 (a leaf of the tree, its item left out) the walk goes
 * up from there, as qsnap_query's: each ancestor's other child is tested and, when it meets the
 * box, walked down before the next ancestor (the stack then stays as deep as the top-down
 * walk's); the same leaves, without the chain of dependent visits down to leaf (the climb's
 * chain is the parent links only). */
int clw_collect_fbox(cl_world *w, const cl_fbox *qp, int leaf) {
    cl_tree *t = &w->tree;
    cl_stack st;
    cl_fbox q = *qp;
    int n = 0, x = leaf;        /* x >= 0: the climb's last node (its ancestors are left) */
    if (t->root == CL_NULLNODE) return 0;
    cl_stack_init(&st);
    if (leaf < 0) st.p[st.n++].node = t->root;
    for (;;) {
        const cl_tnode *nd;
        if (st.n == 0) {        /* the next ancestor's other child, if it meets the box */
            int p, sib;
            if (x < 0 || (p = t->meta[x].parent) == CL_NULLNODE) break;
            sib = t->nodes[p].child1 == x ? t->nodes[p].child2 : t->nodes[p].child1;
            x = p;
            if (!fboxes_overlap(&t->nodes[sib].box, &q)) continue;
            nd = &t->nodes[sib];
        } else {
            nd = &t->nodes[st.p[--st.n].node];
            if (!fboxes_overlap(&nd->box, &q)) continue;
        }
        if (nd->child1 == CL_NULLNODE) {
            if (n >= w->tmpcap) {
                void *np = grow_buf(w, w->tmp, &w->tmpcap, n + 1, sizeof(int));
                if (!np) { cl_stack_free(t, &st); return CL_ENOMEM; }
                w->tmp = (int *)np;
            }
            if (!w->items[nd->child2].dirty) w->tmp[n++] = nd->child2;   /* stale leaf */
        } else if (!SPUSH(t, &st, nd->child2, 0) || !SPUSH(t, &st, nd->child1, 0)) {
            cl_stack_free(t, &st);
            return CL_ENOMEM;
        }
    }
    cl_stack_free(t, &st);
    return n;
}

/* Doubles the int stack *p of *cap entries, keeping its first n (local: the caller's array,
 * copied to the heap, never freed here); 1, or 0 when memory runs out (stack unchanged). Out of
 * line, like tmp_grow below. */
WCOLD int istack_grow(cl_world *w, int **p, int *cap, int n, const int *local) {
    int *np;
    if (*cap > (1 << 28)) return 0;
    if (*p == local) {
        np = (int *)w->alloc(w->ud, NULL, 0, (size_t)*cap * 2 * sizeof(int));
        if (np) memcpy(np, *p, (size_t)n * sizeof(int));
    } else {
        np = (int *)w->alloc(w->ud, *p, (size_t)*cap * sizeof(int), (size_t)*cap * 2 * sizeof(int));
    }
    if (!np) return 0;
    *p = np;
    *cap *= 2;
    return 1;
}

/* Grows w->tmp to hold need entries; 1, or 0 when memory runs out (w->tmp unchanged). Out of
 * line: the query walk's loop then makes no call on its usual path. */
WCOLD int tmp_grow(cl_world *w, int need) {
    void *np = grow_buf(w, w->tmp, &w->tmpcap, need, sizeof(int));
    if (!np) return 0;
    w->tmp = (int *)np;
    return 1;
}

#ifndef CL_QSTACK
#define CL_QSTACK 64        /* entries of the query walk's local stack (test_inline.c sets 2) */
#endif

#if defined(__GNUC__) || defined(__clang__)
#define QNOINLINE static __attribute__((noinline))
#else
#define QNOINLINE static
#endif

/* A query's exact test of item it: mode 0, it contains point p (cl_shape_contains); else it
 * overlaps shape *s (cl_shape_overlaps(s, its shape)). Out of line: the walk below calls it only
 * for items that are not AABBs, or for every item when s is not an AABB. */
QNOINLINE int item_test(const cl_world *w, const cl_item *it, int mode, cl_vec3 p, const cl_shape *s) {
    cl_shape sh_;
    const cl_shape *o = clw_shape(w, it, &sh_);
    return mode == 0 ? cl_shape_contains(o, p) : cl_shape_overlaps(s, o);
}

/* item_test inline for an AABB item in modes 0 (cl_aabb_contains) and 1 (s an AABB:
 * cl_aabb_overlaps_aabb, what cl_shape_overlaps calls for two AABBs); out of line otherwise.
 * mode is a constant at every call, so each query gets its own walk. */
WINLINE int item_hit(const cl_world *w, const cl_item *it, int mode, cl_vec3 p, const cl_shape *s) {
    if (mode == 2 || it->kind != CL_AABB) return item_test(w, it, mode, p, s);
    if (mode == 0)
        return (p.x >= it->box.min.x) & (p.x <= it->box.max.x) & (p.y >= it->box.min.y) &
               (p.y <= it->box.max.y) & (p.z >= it->box.min.z) & (p.z <= it->box.max.z);
    return (s->u.aabb.min.x <= it->box.max.x) & (it->box.min.x <= s->u.aabb.max.x) &
           (s->u.aabb.min.y <= it->box.max.y) & (it->box.min.y <= s->u.aabb.max.y) &
           (s->u.aabb.min.z <= it->box.max.z) & (it->box.min.z <= s->u.aabb.max.z);
}

/* Grows w->res to hold need entries; 1, or 0 when memory runs out (w->res unchanged). */
WCOLD int res_grow(cl_world *w, int need) {
    void *np = grow_buf(w, w->res, &w->rescap, need, sizeof(int));
    if (!np) return 0;
    w->res = (int *)np;
    return 1;
}

/* The slot kinds of snapshot node n: bit j of the result is set when slot j holds a child
 * (child[j] != 0), and of *leaf when it holds a leaf (child[j] < 0). */
WINLINE unsigned qnode_slots(const cl_qnode *n, unsigned *leaf) {
#if QSIMD
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)n->child), z = _mm_setzero_si128();
    *leaf = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(c, z)));
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(c, z))) ^ 15u;
#else
    *leaf = (unsigned)(n->child[0] < 0) | (unsigned)(n->child[1] < 0) << 1 |
            (unsigned)(n->child[2] < 0) << 2 | (unsigned)(n->child[3] < 0) << 3;
    return (unsigned)(n->child[0] != 0) | (unsigned)(n->child[1] != 0) << 1 |
           (unsigned)(n->child[2] != 0) << 2 | (unsigned)(n->child[3] != 0) << 3;
#endif
}

/* The slots of snapshot node nd whose boxes meet float box q (bit j: slot j; NaN slots never):
 * six 4-wide comparisons with SSE (the query's bounds broadcast in l0..h2), else the same
 * comparisons one by one. */
WINLINE unsigned qnode_boxhits(const cl_qnode *nd, const cl_fbox *q
#if QSIMD
                            , __m128 l0, __m128 l1, __m128 l2, __m128 h0, __m128 h1, __m128 h2
#endif
                            ) {
    unsigned m;
#if QSIMD
    __m128 r = _mm_and_ps(_mm_cmple_ps(_mm_load_ps(nd->b[0]), h0), _mm_cmple_ps(l0, _mm_load_ps(nd->b[3])));
    r = _mm_and_ps(r, _mm_and_ps(_mm_cmple_ps(_mm_load_ps(nd->b[1]), h1), _mm_cmple_ps(l1, _mm_load_ps(nd->b[4]))));
    r = _mm_and_ps(r, _mm_and_ps(_mm_cmple_ps(_mm_load_ps(nd->b[2]), h2), _mm_cmple_ps(l2, _mm_load_ps(nd->b[5]))));
    m = (unsigned)_mm_movemask_ps(r);
    (void)q;
#else
    int k;
    m = 0;
    for (k = 0; k < 4; k++)
        m |= (unsigned)((nd->b[0][k] <= q->hi[0]) & (q->lo[0] <= nd->b[3][k]) &
                        (nd->b[1][k] <= q->hi[1]) & (q->lo[1] <= nd->b[4][k]) &
                        (nd->b[2][k] <= q->hi[2]) & (q->lo[2] <= nd->b[5][k])) << k;
#endif
    return m;
}
#if QSIMD
#define QNODE_HITS(nd) qnode_boxhits((nd), &q, l0, l1, l2, h0, h1, h2)
#else
#define QNODE_HITS(nd) qnode_boxhits((nd), &q)
#endif

/* Leaf item c met by a query's snapshot walk or grid scan (its box test passed), at count *n:
 * a stale leaf is skipped (the callers test those items by their boxes); mode 3 lists c in
 * w->tmp; modes 0-2 put it into w->res when item_hit passes (p, s as there). CL_OK, or CL_ENOMEM
 * when a list could not grow. */
WINLINE int take_leaf(cl_world *w, int c, int mode, cl_vec3 p, const cl_shape *s, int *n) {
    if (w->items[c].dirty) return CL_OK;
    if (mode == 3) {
        if (*n >= w->tmpcap && !tmp_grow(w, *n + 1)) return CL_ENOMEM;
        w->tmp[(*n)++] = c;
    } else if (item_hit(w, &w->items[c], mode, p, s)) {
        if (*n >= w->rescap && !res_grow(w, *n + 1)) return CL_ENOMEM;
        w->res[(*n)++] = c;
    }
    return CL_OK;
}

/* The walk of the box-query snapshot (valid, at least two leaves) for the float box *qp: a visit
 * tests the four child boxes of a node at once (qnode_boxhits), handles the overlapping
 * leaves and goes on to the first overlapping inner child, pushing the others. Stale leaves are
 * skipped (the callers test those items by their boxes). Mode 3 (clw_collect_snap) collects the
 * leaves' items into w->tmp; modes 0-2 (queries) put into w->res at once those that pass
 * item_hit (p, s as there): the same items as testing mode 3's list afterwards, without the
 * list. The count or CL_ENOMEM. mode is a constant at every call.
 *
 * With leaf >= 0 (mode 3 only: a tree leaf of the snapshot's tree, the query's own item's) the
 * walk starts there and goes up first: the snapshot nodes on the path from that leaf's slot to
 * the root are found by its tree ancestors' slots (qslot; the nodes opened into a snapshot node
 * have none) and each tests its slots but the one the path comes from; the inner slots that
 * overlap are walked down as usual. Every leaf is reached once, from the lowest path node above
 * it, by a chain of slots that each enclose it, so the same leaves are found (leaf itself left
 * out: the caller's own item), in another order. A query near its own item (a move's swept box,
 * a pair query's fat box) thus tests the path's nodes without the top-down walk's chain of
 * dependent steps (load, compare, choose, load): the up walk's chain is the tree's parent
 * links only, and the nodes' tests overlap. */
WINLINE int qsnap_query(cl_world *w, const cl_fbox *qp, int mode, cl_vec3 p, const cl_shape *s, int leaf) {
    const cl_qnode *qn = w->qn;
    cl_fbox q = *qp;
    int n = 0, node = 0, sp = 0, cap = CL_QSTACK, local[CL_QSTACK], *stk = local;
#if QSIMD
    const __m128 l0 = _mm_set1_ps(q.lo[0]), l1 = _mm_set1_ps(q.lo[1]), l2 = _mm_set1_ps(q.lo[2]);
    const __m128 h0 = _mm_set1_ps(q.hi[0]), h1 = _mm_set1_ps(q.hi[1]), h2 = _mm_set1_ps(q.hi[2]);
#endif
    const int *qslot = w->qslot;
    const cl_tmeta *meta = w->tree.meta;
    int up = mode == 3 && leaf >= 0, x = leaf, sl = up ? qslot[leaf] : 0;
    if (up) node = -1;      /* node -1: the path node of slot sl next (the walk up) */
    for (;;) {              /* no test of the root's own box: its four children's cost as much */
        const cl_qnode *nd;
        unsigned m;
        if (mode == 3 && node < 0) {
            /* the walk up: the path node that holds slot sl, its slots but sl's tested (what
             * they meet is handled below as a visit's: the inner ones are walked down before
             * the next path node, so the stack stays as deep as the top-down walk's) */
            nd = &qn[sl >> 2];
            m = QNODE_HITS(nd) & ~(1u << (sl & 3));
            do x = meta[x].parent;  /* the next slotted ancestor (opened nodes have no slot) */
            while (x >= 0 && x < w->qslotcap && qslot[x] < 0);
            if (x < 0) {
                up = 0;             /* the root's node is the last */
            } else if (x < w->qslotcap) {
                sl = qslot[x];
            } else {                /* never (a valid snapshot slots every node of its tree): */
                n = sp = node = up = 0;     /* the top-down walk instead */
                continue;
            }
        } else {
            nd = &qn[node];
            m = QNODE_HITS(nd);
        }
        {
            unsigned ml;
            qnode_slots(nd, &ml);
            ml &= m;                /* the leaves overlapped, then the inner slots */
            m &= ~ml;
            for (; ml; ml &= ml - 1)
                if (take_leaf(w, ~nd->child[CTZ4(ml)], mode, p, s, &n) != CL_OK) goto nomem;
        }
        if (m) {                    /* the first inner slot next, the others pushed */
            node = nd->child[CTZ4(m)];
            for (m &= m - 1; m; m &= m - 1) {
                if (sp == cap && !istack_grow(w, &stk, &cap, sp, local)) goto nomem;
                stk[sp++] = nd->child[CTZ4(m)];
            }
        } else if (sp > 0) {
            node = stk[--sp];
        } else if (mode == 3 && up) {
            node = -1;              /* on up the path */
        } else {
            break;
        }
    }
    if (stk != local) w->alloc(w->ud, stk, (size_t)cap * sizeof(int), 0);
    return n;
nomem:
    if (stk != local) w->alloc(w->ud, stk, (size_t)cap * sizeof(int), 0);
    return CL_ENOMEM;
}

int clw_collect_snap(cl_world *w, const cl_fbox *qp, int leaf) {
    return qsnap_query(w, qp, 3, cl_v3(0, 0, 0), NULL, leaf);
}

/* ---- the query grid ----
 * A query's snapshot walk is a chain of dependent loads, one node per level (about six levels at
 * 2,000 items, 25-30 cycles each). The grid reaches the leaves around a small query box in two:
 * its cells' entry ranges (one run of entries per row of cells), then the entries. A cell lists
 * every snapshot leaf whose box meets it, with that box (the snapshot's float bits), so the cells
 * a float query box spans list exactly the leaves the walk would find (cells of boxes are worked
 * out by one monotone function: a leaf box overlapping the query box spans one of the query's
 * cells), each taken in one cell, tested with the walk's comparisons and item_hit, and sorted as
 * before: the same answers. Point queries, box queries (cl_world_query) and the candidate queries
 * of sweeps, moves and resolve (clw_collect_box) read it when they span at most PG_QCELL cells
 * holding at most PG_QENT entries; the pair cache's queries never do. Built from the valid
 * snapshot after the walk has served leaves + 64 of those queries at one tree version (each
 * version change starts the count anew), so its O(n) build is amortised and adds and the pairs
 * never build it. Valid while the tree version is the one it holds. */

#define PG_MAXENT 6         /* cell entries per leaf beyond which the grid is not built */
#define PG_MAXCELL 32       /* entries of a cell beyond which it is not built either (outliers
                             * or huge leaves squeeze the leaves into few cells) */
#ifndef PG_QENT
#define PG_QENT 16          /* entries a query's cells may hold for the grid to answer it (more: the
                             * walk, which gets ahead as they grow) */
#endif
#ifndef PG_QCELL
#define PG_QCELL 4          /* cells a query may span for the grid to answer it: queries up to
                             * about a cell's size (a cell is one to two mean leaf sizes). Bigger
                             * ones are the walk's: a 10,000 x 5 strip over empty cells took the
                             * grid 1,783 ns, the walk 23 ns (review rev30), and 60-120 unit
                             * boxes among ffiworld's tiles (4-9 cells) 10-25% more than the walk */
#endif
#ifndef PG_BUILDMAX
#define PG_BUILDMAX 16384   /* leaves beyond which only point queries build the grid: its build is
                             * one call's O(n) pass (about 150 ns a leaf: 15 ms at 100,000 leaves,
                             * review rev30), and a World whose moves and box queries built it
                             * could pay that in a move every few frames (point queries built it
                             * at any size before the others read it; they still do) */
#endif
#ifndef CL_PGRID_EAGER
#define CL_PGRID_EAGER 0    /* 1: build at a version's first point query (differential tests) */
#endif

/* The cell index of coordinate x on an axis of dim cells (origin org, inv cells per unit):
 * floor((x - org) * inv) clamped to 0 .. dim - 1, NaN giving 0. Every step is monotone, so
 * x <= y gives pgrid_cell(x) <= pgrid_cell(y). */
static inline int pgrid_cell(double x, double org, double inv, int dim) {
    double t = (x - org) * inv;
    if (!(t >= 1)) return 0;
    if (t >= dim) return dim - 1;
    return (int)t;
}

/* Chooses the grid's cells for leaf boxes lv[0..n-1] (none with NaN): about one cell per mean
 * leaf size on each axis, at most 2n + 64 cells in all; sets w->pgorg, pginv, pgdim and returns
 * the cell count. */
static long pgrid_dims(cl_world *w, const cl_pgent *lv, int n) {
    double lo[3], hi[3], sum[3], d[3], cells = 1, lim = 2.0 * n + 64;
    int a, i, m = 0;
    for (a = 0; a < 3; a++) { lo[a] = lv[0].lo[a]; hi[a] = lv[0].hi[a]; sum[a] = 0; }
    for (i = 0; i < n; i++)
        for (a = 0; a < 3; a++) {
            if (lv[i].lo[a] < lo[a]) lo[a] = lv[i].lo[a];
            if (lv[i].hi[a] > hi[a]) hi[a] = lv[i].hi[a];
            sum[a] += (double)lv[i].hi[a] - lv[i].lo[a];
        }
    for (a = 0; a < 3; a++) {
        double ext = hi[a] - lo[a], mean = sum[a] / n;
        d[a] = 1;
        if (ext > 0 && ext <= DBL_MAX && mean <= DBL_MAX) {   /* finite extents only */
            d[a] = mean > ext / 1024 ? ext / mean : 1024;
            if (d[a] < 2) d[a] = 1;         /* an axis of one cell takes none of the budget */
        }
        if (d[a] > 1) m++;
        cells *= d[a];
    }
    if (cells > lim) {              /* shrink the divided axes alike to the cell budget */
        double f = pow(lim / cells, 1.0 / m);
        for (a = 0; a < 3; a++)
            if (d[a] > 1) { d[a] *= f; if (d[a] < 1) d[a] = 1; }
    }
    cells = 1;
    for (a = 0; a < 3; a++) {
        int k = (int)d[a];
        w->pgdim[a] = k;
        w->pgorg[a] = lo[a];
        w->pginv[a] = k > 1 ? k / (hi[a] - lo[a]) : 0;
        cells *= k;
    }
    return (long)cells;
}

/* Builds the grid of the valid box-query snapshot; CL_OK, or CL_ENOMEM when memory runs out or
 * the leaves do not spread over cells (more than PG_MAXENT entries per leaf, or more than
 * PG_MAXCELL in a cell): no grid then (pgok 0; the block may stay for a later build). */
WCOLD int pgrid_build(cl_world *w) {
    const cl_qnode *qn = w->qn;
    int nl = w->tree.leaves, n = 0, sp = 0, cap = CL_QSTACK, local[CL_QSTACK], *stk = local;
    int i, a, k, x, y, z, *cr, r = CL_ENOMEM;
    long ncell, nent = 0, c;
    size_t head, size, tsize = (size_t)nl * (sizeof(cl_pgent) + 6 * sizeof(int));
    cl_pgent *lv = (cl_pgent *)w->alloc(w->ud, NULL, 0, tsize);
    w->pgok = 0;
    if (!lv) return CL_ENOMEM;
    cr = (int *)(lv + nl);          /* leaf i's cell ranges: cr[6i .. 6i+2] lo, [6i+3 .. 6i+5] hi */
    stk[sp++] = 0;
    while (sp > 0) {                /* every leaf slot of the snapshot, with its box */
        const cl_qnode *nd = &qn[stk[--sp]];
        for (k = 0; k < 4; k++) {
            int ch = nd->child[k];
            if (ch > 0) {
                if (sp == cap && !istack_grow(w, &stk, &cap, sp, local)) goto done;
                stk[sp++] = ch;
            } else if (ch < 0 && n < nl) {
                cl_pgent *e = &lv[n];
                for (a = 0; a < 3; a++) { e->lo[a] = nd->b[a][k]; e->hi[a] = nd->b[3 + a][k]; }
                e->item = ~ch;
                /* a box with NaN meets no query box (the walk's comparisons fail): left out */
                if (e->lo[0] == e->lo[0] && e->lo[1] == e->lo[1] && e->lo[2] == e->lo[2] &&
                    e->hi[0] == e->hi[0] && e->hi[1] == e->hi[1] && e->hi[2] == e->hi[2])
                    n++;
            }
        }
    }
    if (n == 0) goto done;
    ncell = pgrid_dims(w, lv, n);
    for (i = 0; i < n; i++) {       /* entries: each leaf in every cell its box meets */
        long e = 1;
        int *ci = cr + 6 * i;
        for (a = 0; a < 3; a++) {
            ci[a] = pgrid_cell(lv[i].lo[a], w->pgorg[a], w->pginv[a], w->pgdim[a]);
            ci[3 + a] = pgrid_cell(lv[i].hi[a], w->pgorg[a], w->pginv[a], w->pgdim[a]);
            e *= ci[3 + a] - ci[a] + 1;
        }
        nent += e;
        if (nent > (long)PG_MAXENT * n) goto done;
    }
    head = ((size_t)(ncell + 1) * sizeof(int) + 15) & ~(size_t)15;
    size = head + (size_t)nent * sizeof(cl_pgent);
    if (size > w->pgsize || size < w->pgsize / 4) {     /* reuse a block that fits */
        void *nb = w->alloc(w->ud, NULL, 0, size);
        if (!nb) goto done;
        if (w->pgblk) w->alloc(w->ud, w->pgblk, w->pgsize, 0);
        w->pgblk = nb;
        w->pgsize = size;
    }
    w->pgstart = (int *)w->pgblk;
    w->pgent = (cl_pgent *)((char *)w->pgblk + head);
    for (c = 0; c <= ncell; c++) w->pgstart[c] = 0;
    for (k = 0; k < 2; k++) {       /* count per cell, then place (pgstart[c]: cell c's end) */
        for (i = 0; i < n; i++) {
            const int *ci = cr + 6 * i;
            for (z = ci[2]; z <= ci[5]; z++)
                for (y = ci[1]; y <= ci[4]; y++) {
                    long row = ((long)z * w->pgdim[1] + y) * w->pgdim[0];
                    for (x = ci[0]; x <= ci[3]; x++) {
                        if (k == 0) w->pgstart[row + x + 1]++;
                        else w->pgent[w->pgstart[row + x]++] = lv[i];
                    }
                }
        }
        if (k == 0) {
            for (c = 1; c <= ncell; c++)    /* a crowded cell scans more than the walk visits */
                if (w->pgstart[c] > PG_MAXCELL) goto done;
            for (c = 0; c < ncell; c++) w->pgstart[c + 1] += w->pgstart[c];
        }
    }
    for (c = ncell; c > 0; c--) w->pgstart[c] = w->pgstart[c - 1];    /* ends back to starts */
    w->pgstart[0] = 0;
    w->pgok = 1;
    w->pgver = w->tver;
    r = CL_OK;
done:
    if (stk != local) w->alloc(w->ud, stk, (size_t)cap * sizeof(int), 0);
    w->alloc(w->ud, lv, tsize, 0);
    return r;
}

/* 1 when the grid of the valid snapshot may serve a query: it holds this tree version, or the
 * walk has served enough queries of it for the build to pay (then built now; when build is 0,
 * only for a tree of at most PG_BUILDMAX leaves). A version whose build failed is not built
 * again, and each failed build since the last good one doubles the queries the next version
 * waits for (up to 2^10 times): a scene whose leaves do not spread (one item parked at 1e6, one
 * tall pole) paid a failed build every leaves + 64 point queries for good, +35% instructions a
 * query (review rev17's F1). */
static inline int pgrid_ready(cl_world *w, int build) {
    if (w->pgok && w->pgver == w->tver) return 1;
    if (w->pgfver == w->tver || (!build && w->tree.leaves > PG_BUILDMAX)) return 0;
    if (w->pgcver != w->tver) { w->pgcver = w->tver; w->pgcnt = 0; }
    if (!CL_PGRID_EAGER &&
        (double)++w->pgcnt <= ((double)w->tree.leaves + 64) * (1 << (w->pgfails < 10 ? w->pgfails : 10)))
        return 0;
    w->pgcnt = 0;
    if (pgrid_build(w) == CL_OK) {
        w->pgfails = 0;
        return 1;
    }
    w->pgfver = w->tver;
    w->pgfails++;
    return 0;
}

/* The entries e..end-1 of grid cell (x, y, z) for pgrid_query: those whose box meets float box *q
 * and that no earlier cell of the query takes (dd bit a set: the cell is not the query's first
 * on axis a, so an entry is taken here only when its own low bound lies in this cell), tested
 * and stored as qsnap_query's modes do, from count n on; the new count or CL_ENOMEM. */
WINLINE int pgrid_scan(cl_world *w, const cl_pgent *e, const cl_pgent *end, const cl_fbox *q, int mode,
                       cl_vec3 p, const cl_shape *s, int skip, int n, unsigned dd, int x, int y, int z) {
    for (; e < end; e++) {
        int c = e->item;
        if (!((e->lo[0] <= q->hi[0]) & (q->lo[0] <= e->hi[0]) & (e->lo[1] <= q->hi[1]) &
              (q->lo[1] <= e->hi[1]) & (e->lo[2] <= q->hi[2]) & (q->lo[2] <= e->hi[2])))
            continue;
        if (dd && (((dd & 1) && pgrid_cell(e->lo[0], w->pgorg[0], w->pginv[0], w->pgdim[0]) != x) ||
                   ((dd & 2) && pgrid_cell(e->lo[1], w->pgorg[1], w->pginv[1], w->pgdim[1]) != y) ||
                   ((dd & 4) && pgrid_cell(e->lo[2], w->pgorg[2], w->pginv[2], w->pgdim[2]) != z)))
            continue;                       /* taken in an earlier cell */
        if ((mode != 3 || c != skip) && take_leaf(w, c, mode, p, s, &n) != CL_OK) return CL_ENOMEM;
    }
    return n;
}

/* A query of float box *q, which spans cells c0[a] .. c1[a] on each axis a, through the grid, for
 * modes 0-3 as qsnap_query's (p, s as there; mode 3 leaves item skip out, a mode 3 walk may or
 * may not): the same items in w->res (modes 0-2) or w->tmp (mode 3), no stale leaves, not
 * sorted; their count, CL_ENOMEM, or -2 when they are more than PG_QCELL or hold more than
 * PG_QENT entries, or the box is inverted on an axis (the walk answers then). A leaf whose box
 * spans several of those cells is listed in each, and taken in one: on each axis the first of
 * them (the query's first cell, or the cell of the leaf's own low bound when that is further on:
 * the same pgrid_cell of the same float as at the build, so exactly one cell of the range
 * passes). */
WNOINLINE int pgrid_cells(cl_world *w, const cl_fbox *q, int mode, cl_vec3 p, const cl_shape *s, int skip,
                          const int *c0, const int *c1) {
    const int *start = w->pgstart;
    int x, y, z, n = 0, tot = 0;
    /* a box inverted on an axis (a C caller's; the walk answers it as ever), or over more than
     * PG_QCELL cells (a long strip over empty cells: each costs a visit, the walk a few nodes) */
    if (c1[0] < c0[0] || c1[1] < c0[1] || c1[2] < c0[2] ||
        (long)(c1[0] - c0[0] + 1) * (c1[1] - c0[1] + 1) * (c1[2] - c0[2] + 1) > PG_QCELL)
        return -2;
    for (z = c0[2]; z <= c1[2]; z++)        /* each row's cells are one run of entries */
        for (y = c0[1]; y <= c1[1]; y++) {
            long row = ((long)z * w->pgdim[1] + y) * w->pgdim[0];
            tot += start[row + c1[0] + 1] - start[row + c0[0]];
            if (tot > PG_QENT) return -2;
        }
    for (z = c0[2]; z <= c1[2]; z++)
        for (y = c0[1]; y <= c1[1]; y++) {
            long row = ((long)z * w->pgdim[1] + y) * w->pgdim[0];
            for (x = c0[0]; x <= c1[0]; x++) {
                unsigned dd = (unsigned)(x != c0[0]) | (unsigned)(y != c0[1]) << 1 |
                              (unsigned)(z != c0[2]) << 2;
                n = pgrid_scan(w, w->pgent + start[row + x], w->pgent + start[row + x + 1], q, mode, p, s, skip,
                               n, dd, x, y, z);
                if (n < 0) return n;
            }
        }
    return n;
}

/* pgrid_cells for the cells *q spans, inline for a query in one cell (most points). */
WINLINE int pgrid_query(cl_world *w, const cl_fbox *q, int mode, cl_vec3 p, const cl_shape *s, int skip) {
    int c0[3], c1[3], a;
    for (a = 0; a < 3; a++) {
        c0[a] = pgrid_cell(q->lo[a], w->pgorg[a], w->pginv[a], w->pgdim[a]);
        c1[a] = pgrid_cell(q->hi[a], w->pgorg[a], w->pginv[a], w->pgdim[a]);
    }
    if ((c0[0] ^ c1[0]) | (c0[1] ^ c1[1]) | (c0[2] ^ c1[2]))
        return pgrid_cells(w, q, mode, p, s, skip, c0, c1);
    a = (c0[2] * w->pgdim[1] + c0[1]) * w->pgdim[0] + c0[0];
    return pgrid_scan(w, w->pgent + w->pgstart[a], w->pgent + w->pgstart[a + 1], q, mode, p, s, skip, 0, 0, 0,
                      0, 0);
}

/* Collects into w->tmp every item whose box may overlap box (tree leaves, plus the items with
 * stale leaves by their tight boxes) except item skip (-1: none), which may be left out; the
 * count or CL_ENOMEM. */
int clw_collect_box(cl_world *w, const cl_aabb *box, int skip) {
    cl_fbox q = fbox_of(box);           /* rounded outward: still conservative */
    int n, i;
    settle_tree(w);
    if (qsnap_ready(w)) {
        n = pgrid_ready(w, 0) ? pgrid_query(w, &q, 3, cl_v3(0, 0, 0), NULL, skip) : -2;
        if (n == -2) n = clw_collect_snap(w, &q, clw_snap_leaf(w, skip));  /* from skip's leaf up */
    } else {
        n = clw_collect_fbox(w, &q, clw_tree_leaf(w, skip));   /* the same in the tree */
    }
    if (n < 0) return n;
    for (i = w->dhead; i >= 0; i = w->items[i].dnext) {
        const cl_item *it = &w->items[i];
        cl_aabb tb;
        if (!it->dirty || it->proxy == CL_NULLNODE || i == skip) continue;
        tb = widen(&it->box, 0, item_tol(w, it));   /* as its tree box would */
        if (!(tb.min.x <= box->max.x && tb.max.x >= box->min.x && tb.min.y <= box->max.y &&
              tb.max.y >= box->min.y && tb.min.z <= box->max.z && tb.max.z >= box->min.z))
            continue;
        ENSURE(w->tmp, w->tmpcap, n + 1);
        w->tmp[n++] = i;
    }
    return n;
}

/* Orders item ids by add order. */
int clw_less_seq(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    return w->items[*(const int *)a].seq < w->items[*(const int *)b].seq;
}

/* Orders hits by t, then add order. */
int clw_less_hit(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    const cl_whit *x = (const cl_whit *)a, *y = (const cl_whit *)b;
    if (x->t != y->t) return x->t < y->t;
    return w->items[x->item].seq < w->items[y->item].seq;
}

/* The answers of a query whose candidates are the items clw_collect_box(w, q, -1) lists, each
 * tested by item_hit (mode, p, s as there), into w->res in add order; the count or CL_ENOMEM.
 * The same items as collecting the candidates first and testing them afterwards. */
WINLINE int select_items(cl_world *w, const cl_aabb *q, int mode, cl_vec3 p, const cl_shape *s) {
    cl_fbox fq = fbox_of(q);           /* rounded outward: still conservative */
    int n, i, k = 0;
    settle_tree(w);
    if (qsnap_ready(w)) {
        k = pgrid_ready(w, mode == 0) ? pgrid_query(w, &fq, mode, p, s, -1) : -2;
        if (k == -2) k = qsnap_query(w, &fq, mode, p, s, -1);
        if (k < 0) return k;
    } else {
        n = clw_collect_fbox(w, &fq, -1);
        if (n < 0) return n;
        ENSURE(w->res, w->rescap, n);
        for (i = 0; i < n; i++)
            if (item_hit(w, &w->items[w->tmp[i]], mode, p, s)) w->res[k++] = w->tmp[i];
    }
    for (i = w->dhead; i >= 0; i = w->items[i].dnext) {    /* stale leaves, as clw_collect_box */
        const cl_item *it = &w->items[i];
        cl_aabb tb;
        if (!it->dirty || it->proxy == CL_NULLNODE) continue;
        tb = widen(&it->box, 0, item_tol(w, it));
        if (!(tb.min.x <= q->max.x && tb.max.x >= q->min.x && tb.min.y <= q->max.y &&
              tb.max.y >= q->min.y && tb.min.z <= q->max.z && tb.max.z >= q->min.z) ||
            !item_hit(w, it, mode, p, s))
            continue;
        if (k >= w->rescap && !res_grow(w, k + 1)) return CL_ENOMEM;
        w->res[k++] = i;
    }
    sort_elems(w->res, k, sizeof(int), clw_less_seq, w);
    w->nres = k;
    return k;
}

int cl_world_query(cl_world *w, const cl_shape *s) {
    cl_vec3 o = cl_v3(0, 0, 0);
    cl_aabb b, q;
    if (s->kind == CL_AABB) {
        /* an AABB's box and allowance inline (cl_shape_aabb is the box itself and shape_tol is
         * box_tol for it: the same q without the two calls, a tenth of a small query) */
        q = widen(&s->u.aabb, 0, box_tol(&s->u.aabb));
        return select_items(w, &q, 1, o, s);
    }
    b = cl_shape_aabb(s);
    q = widen(&b, 0, shape_tol(s, &b));
    return select_items(w, &q, 2, o, s);
}

/* box_tol of the point box p..p (shape_tol(NULL, &b) for b.min = b.max = p), the same value: the
 * largest |coordinate| kept by v > m ? v : m, as box_tol's ifs keep it (NaN alike), but written
 * as selects, which compile to max instructions: box_tol's branches went either way at random
 * for random points (about one mispredicted branch per query). */
static double querypoint_tol(cl_vec3 p) {
    double m = fabs(p.x), v;
    v = fabs(p.y); m = v > m ? v : m;
    v = fabs(p.z); m = v > m ? v : m;
    return m * EPS_REL + 1e-300;
}

int cl_world_querypoint(cl_world *w, cl_vec3 p) {
    cl_aabb b, q;
    b.min = b.max = p;
    q = widen(&b, 0, querypoint_tol(p));
    return select_items(w, &q, 0, p, NULL);
}

/* Sorts the item ids ids[0..n-1] by add order: for many ids (while every order is below 2^31) by
 * a radix sort of their orders with w->kp as scratch, else by the heap sort (the orders are
 * unique, so both give the same order). CL_OK or CL_ENOMEM. */
static int sort_by_seq(cl_world *w, int *ids, int n) {
    cl_kpair *src;
    int i, bits = 1;
    if (n < 64 || !(w->nextseq < 0x1p31)) {
        sort_elems(ids, n, sizeof(int), clw_less_seq, w);
        return CL_OK;
    }
    ENSURE(w->kp, w->kpcap, 2 * n);
    while (bits < 31 && (double)(1u << bits) <= w->nextseq) bits++;  /* every order below 2^bits */
    for (i = 0; i < n; i++) {
        w->kp[i].key = (unsigned long long)w->items[ids[i]].seq;
        w->kp[i].a = ids[i];
        w->kp[i].b = 0;
    }
    src = clw_kpair_sort(w->kp, w->kp + n, n, bits);
    for (i = 0; i < n; i++) ids[i] = src[i].a;
    return CL_OK;
}

/* Side of the float box b against plane p (p[0..2] the normal, p[3] the offset) for the plane
 * walk: -1 surely wholly behind, 1 surely wholly in front, 0 undecided. The box's extreme values
 * of n.x + d are summed in doubles and trusted only beyond a rounding allowance (2^-48 of the
 * terms' magnitudes; NaN or infinite sums decide nothing), so a decision never contradicts the
 * exact shape:plane test of a shape inside b. */
static inline int fbox_planeside(const cl_fbox *b, const double *p) {
    double lo = p[3], hi = p[3], s = fabs(p[3]), tol;
    int k;
    for (k = 0; k < 3; k++) {
        double a = p[k] * b->lo[k], c = p[k] * b->hi[k];
        if (a < c) { lo += a; hi += c; } else { lo += c; hi += a; }
        s += fabs(a) > fabs(c) ? fabs(a) : fabs(c);
    }
    tol = s * 0x1p-48;
    if (hi < -tol) return -1;
    if (lo > tol) return 1;
    return 0;
}

/* 1 unless the shape is wholly behind one of the planes whose bit is set in mask (cl_shape_plane). */
static int planes_keep(const cl_shape *s, const double *planes, unsigned mask) {
    while (mask) {
        int k = 0;
        while (!(mask & (1u << k))) k++;
        mask &= mask - 1;
        if (cl_shape_plane(s, cl_v3(planes[4 * k], planes[4 * k + 1], planes[4 * k + 2]), planes[4 * k + 3]) < 0)
            return 0;
    }
    return 1;
}

int cl_world_queryplanes(cl_world *w, const double *planes, int np) {
    cl_tree *t;
    cl_stack st;
    unsigned all = np >= 32 ? 0xffffffffu : (1u << np) - 1;
    int n = 0, i;
    cl_shape sh_;
    settle_tree(w);
    t = &w->tree;
    if (t->root != CL_NULLNODE) {
        cl_stack_init(&st);
        st.p[st.n].node = t->root;
        st.p[st.n++].t = (double)all;
        while (st.n > 0) {
            const cl_tnode *nd;
            unsigned mask, m;
            st.n--;
            nd = &t->nodes[st.p[st.n].node];
            mask = (unsigned)st.p[st.n].t;
            /* planes the node is wholly in front of are dropped for its subtree; one it is wholly
             * behind culls it */
            for (m = mask; m; m &= m - 1) {
                int k = 0, side;
                while (!(m & (1u << k))) k++;
                side = fbox_planeside(&nd->box, planes + 4 * k);
                if (side < 0) break;
                if (side > 0) mask &= ~(1u << k);
            }
            if (m) continue;
            if (nd->child1 == CL_NULLNODE) {
                int id = nd->child2;
                if (w->items[id].dirty) continue;       /* stale leaf: tested below */
                /* a mesh item is tested even in front of every plane: one whose triangles are all
                 * degenerate is behind them all (cl_pmesh_plane), whatever its box */
                if ((mask || w->items[id].kind == CL_MESH) &&
                    !planes_keep(clw_shape(w, &w->items[id], &sh_), planes, mask ? mask : 1u)) continue;
                if (n >= w->tmpcap && !tmp_grow(w, n + 1)) { cl_stack_free(t, &st); return CL_ENOMEM; }
                w->tmp[n++] = id;
            } else if (!SPUSH(t, &st, nd->child2, (double)mask) || !SPUSH(t, &st, nd->child1, (double)mask)) {
                cl_stack_free(t, &st);
                return CL_ENOMEM;
            }
        }
        cl_stack_free(t, &st);
    }
    for (i = w->dhead; i >= 0; i = w->items[i].dnext) {
        const cl_item *it = &w->items[i];
        if (!it->dirty || it->proxy == CL_NULLNODE || !planes_keep(clw_shape(w, it, &sh_), planes, all)) continue;
        if (n >= w->tmpcap && !tmp_grow(w, n + 1)) return CL_ENOMEM;
        w->tmp[n++] = i;
    }
    ENSURE(w->res, w->rescap, n);
    if (n > 0) memcpy(w->res, w->tmp, (size_t)n * sizeof(int));  /* (both may be NULL when n == 0) */
    if (sort_by_seq(w, w->res, n) != CL_OK) return CL_ENOMEM;
    w->nres = n;
    return n;
}

/* A value the snapshot walk's slot tests use in both lanes (qnode_hits). */
#if QSIMD
typedef __m128d wlane;
#define WSET(x) _mm_set1_pd(x)
#else
typedef double wlane;
#define WSET(x) (x)
#endif

/* A ray prepared for slab tests against float boxes. The boxes are tested widened by the ray's
 * rounding allowance del (shape_tol of its origin): a face coordinate f is compared as f - del
 * (min faces) or f + del (max faces), i.e. against the origin moved by +del or -del, so the
 * widening costs nothing per test. */
typedef struct rayq {
    double o[3], inv[3], d[3];
    double olo[3], ohi[3];  /* o + del (for min faces), o - del (for max faces) */
    double onear[3], ofar[3];   /* the same for the entry and exit face of each axis */
    int mode[3];            /* 0: d == 0 (slab test on the origin), 1: multiply by inv, 2: divide */
    int neg[3];             /* d < 0: the max face is entered first */
    int fast;               /* every mode is 1: ray_fbox_fast applies */
    /* the snapshot walk's slot tests (qnode_hits; no mode 2). Slots: the n1 mode 1 axes first,
     * then the mode 0 ones (axis order kept within each). A slot's rows of the entry and exit
     * faces (qn->b[nr], qn->b[fr]); a mode 1 slot computes ray_fbox_fast's entry and exit times,
     * (f - wnear) * winv and (f - wfar) * winv; a mode 0 slot (nr = k, fr = 3 + k: lo, hi)
     * rejects as ray_fbox does, when zlo < lo or zhi > hi. Every value twice (both lanes). */
    wlane wnear[3], wfar[3], winv[3], zlo[3], zhi[3];
    int nr[3], fr[3];
    int n1;                 /* -1: some mode is 2 (no slot test); else the mode 1 axes */
} rayq;

/* Prepares r for ray_fbox. Tiny components divide (1/d would overflow to inf, and 0 * inf is NaN).
 * The allowance: the narrowphase finds a ray's hit within about eps * (|o| + t + the shape's
 * magnitude) of the shape, and t <= |o| + that magnitude for any hit, so the item's leaf (its
 * own allowance) widened by EPS_REL * |o| holds every hit point the narrowphase can report;
 * its entry time then stays below the narrowphase's t (with the slab test's own rounding, which
 * is far smaller), so pruning by the best t never drops an equal-t hit (ties by add order). */
static void rayq_make(rayq *q, const cl_ray *r) {
    cl_aabb ob;
    double del;
    int j, k, m = 0, any2 = 0;
    ob.min = ob.max = r->o;
    del = shape_tol(NULL, &ob);
    q->o[0] = r->o.x; q->o[1] = r->o.y; q->o[2] = r->o.z;
    q->d[0] = r->d.x; q->d[1] = r->d.y; q->d[2] = r->d.z;
    for (k = 0; k < 3; k++) {
        q->mode[k] = q->d[k] == 0 ? 0 : fabs(q->d[k]) < 1e-290 ? 2 : 1;
        q->inv[k] = q->mode[k] == 1 ? 1 / q->d[k] : 0;
        q->neg[k] = q->d[k] < 0;
        q->olo[k] = q->o[k] + del;
        q->ohi[k] = q->o[k] - del;
        q->onear[k] = q->neg[k] ? q->ohi[k] : q->olo[k];
        q->ofar[k] = q->neg[k] ? q->olo[k] : q->ohi[k];
    }
    q->n1 = 0;
    for (j = 0; j < 2; j++)             /* the mode 1 axes' slots, then the mode 0 ones */
        for (k = 0; k < 3; k++) {
            if (q->mode[k] == 2) any2 = 1;
            if (q->mode[k] != (j ? 0 : 1)) continue;
            q->nr[m] = q->neg[k] ? 3 + k : k;
            q->fr[m] = q->neg[k] ? k : 3 + k;
            q->wnear[m] = WSET(q->onear[k]);
            q->wfar[m] = WSET(q->ofar[k]);
            q->winv[m] = WSET(q->inv[k]);
            q->zlo[m] = WSET(q->olo[k]);
            q->zhi[m] = WSET(q->ohi[k]);
            q->n1 += !j;
            m++;
        }
    q->fast = q->mode[0] == 1 && q->mode[1] == 1 && q->mode[2] == 1;
    if (any2) q->n1 = -1;
}

/* ray_fbox for a ray whose direction components all use mode 1: the entry and exit faces are
 * known from the signs, so no swaps and no per-axis mode tests (same arithmetic, same result). */
WINLINE int ray_fbox_fast(const rayq *q, const cl_fbox *b, double maxt, double *tenter) {
    double n0 = ((double)(q->neg[0] ? b->hi[0] : b->lo[0]) - q->onear[0]) * q->inv[0];
    double f0 = ((double)(q->neg[0] ? b->lo[0] : b->hi[0]) - q->ofar[0]) * q->inv[0];
    double n1 = ((double)(q->neg[1] ? b->hi[1] : b->lo[1]) - q->onear[1]) * q->inv[1];
    double f1 = ((double)(q->neg[1] ? b->lo[1] : b->hi[1]) - q->ofar[1]) * q->inv[1];
    double n2 = ((double)(q->neg[2] ? b->hi[2] : b->lo[2]) - q->onear[2]) * q->inv[2];
    double f2 = ((double)(q->neg[2] ? b->lo[2] : b->hi[2]) - q->ofar[2]) * q->inv[2];
    double tmin = n0 > 0 ? n0 : 0, tmax = f0 < maxt ? f0 : maxt;
    tmin = n1 > tmin ? n1 : tmin;
    tmax = f1 < tmax ? f1 : tmax;
    tmin = n2 > tmin ? n2 : tmin;
    tmax = f2 < tmax ? f2 : tmax;
    *tenter = tmin;
    return tmin <= tmax;
}

/* Returns 1 and the entry distance (>= 0) when the ray meets float box b, widened by the ray's
 * allowance, within [0, maxt] (inclusive; parallel axes test the origin coordinate, so no
 * 0 * inf). Conservative: never rejects a box whose contents the exact narrowphase would hit
 * at t <= maxt, and the entry never exceeds such a hit's t (see rayq_make). */
WINLINE int ray_fbox(const rayq *q, const cl_fbox *b, double maxt, double *tenter) {
    double tmin = 0, tmax = maxt;
    int k;
    for (k = 0; k < 3; k++) {
        double lo = b->lo[k], hi = b->hi[k], t1, t2;
        if (q->mode[k] == 0) {
            if (q->olo[k] < lo || q->ohi[k] > hi) return 0;
            continue;
        }
        if (q->mode[k] == 1) {
            t1 = (lo - q->olo[k]) * q->inv[k];
            t2 = (hi - q->ohi[k]) * q->inv[k];
        } else {
            t1 = (lo - q->olo[k]) / q->d[k];
            t2 = (hi - q->ohi[k]) / q->d[k];
        }
        if (t1 > t2) { double x = t1; t1 = t2; t2 = x; }
        if (t1 > tmin) tmin = t1;
        if (t2 < tmax) tmax = t2;
    }
    if (tmin > tmax) return 0;
    *tenter = tmin;
    return 1;
}

/* Best hit so far of a closest-hit raycast. */
typedef struct rbest {
    double t, seq, aftert, afterseq;
    int found;
} rbest;

/* Tests item id against the ray and keeps it in *b and *out when it is a better hit. */
static void ray_item(const cl_world *w, int id, const cl_ray *r, rbest *b, cl_whit *out) {
    const cl_item *it = &w->items[id];
    cl_hit h;
    cl_shape sh_;
    if (!cl_shape_raycast(clw_shape(w, it, &sh_), r, b->t, &h)) return;
    if (h.t < b->aftert || (h.t == b->aftert && it->seq <= b->afterseq)) return;
    if (b->found && (h.t > b->t || (h.t == b->t && it->seq > b->seq))) return;
    b->found = 1;
    b->t = h.t;
    b->seq = it->seq;
    out->item = id;
    out->t = h.t;
    out->n = h.n;
}

/* The next node of a closest-hit descent once both children of a node are tested (hit flags h1,
 * h2 with slab entries t1, t2): the nearer child hit, the farther one pushed on st with its
 * entry; -1 when neither is hit, -2 when the push failed (memory). */
WINLINE int ray_next(cl_tree *t, cl_stack *st, int c1, int h1, double t1, int c2, int h2,
                     double t2) {
    if (h1 && h2) {
        if (t2 < t1) { int x = c1; double y = t1; c1 = c2; c2 = x; t1 = t2; t2 = y; }
        if (!SPUSH(t, st, c2, t2)) return -2;
        return c1;
    }
    return h1 ? c1 : h2 ? c2 : -1;
}

/* The slab tests of the four slots of box-query snapshot node n (rayq's pair-test slots; n1 >= 0
 * mode 1 slots, a constant where inlined): bit j of the result is set when slot j holds a child
 * (child[j] != 0: unused slots hold 0 and NaN bounds) whose box is hit within [0, maxt], te[j]
 * its entry. The arithmetic is ray_fbox_fast's on mode 1 axes, done for two slots at once in two
 * lanes with SSE2, slots 0-1 then 2-3 (max / min keep the second operand, the running value, when
 * the first is NaN, as the comparisons of ray_fbox_fast do), and ray_fbox's test of the origin
 * on mode 0 axes; so a child is hit exactly when ray_fbox would hit it, at the same entry (up to
 * the order of a max over equal values: -0 or +0). */
WINLINE unsigned qnode_hits(const cl_qnode *n, const rayq *q, double maxt, double *te, const int n1,
                            unsigned used) {
#if QSIMD
#define QLOAD2(p) _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(p))))
#define QSLOT(j, h)                                                                              \
    if ((j) < n1) {                                                                              \
        tmin = _mm_max_pd(_mm_mul_pd(_mm_sub_pd(QLOAD2(&n->b[q->nr[j]][h]), q->wnear[j]), q->winv[j]), tmin); \
        tmax = _mm_min_pd(_mm_mul_pd(_mm_sub_pd(QLOAD2(&n->b[q->fr[j]][h]), q->wfar[j]), q->winv[j]), tmax);  \
    } else {                                                                                     \
        rej = _mm_or_pd(rej, _mm_or_pd(_mm_cmplt_pd(q->zlo[j], QLOAD2(&n->b[q->nr[j]][h])),      \
                                       _mm_cmpgt_pd(q->zhi[j], QLOAD2(&n->b[q->fr[j]][h]))));   \
    }
    __m128d tmin = _mm_setzero_pd(), tmax = _mm_set1_pd(maxt), rej = _mm_setzero_pd();
    unsigned m;
    QSLOT(0, 0) QSLOT(1, 0) QSLOT(2, 0)
    _mm_storeu_pd(te, tmin);
    m = (unsigned)_mm_movemask_pd(_mm_andnot_pd(rej, _mm_cmple_pd(tmin, tmax)));
    tmin = _mm_setzero_pd(); tmax = _mm_set1_pd(maxt); rej = _mm_setzero_pd();
    QSLOT(0, 2) QSLOT(1, 2) QSLOT(2, 2)
    _mm_storeu_pd(te + 2, tmin);
    m |= (unsigned)_mm_movemask_pd(_mm_andnot_pd(rej, _mm_cmple_pd(tmin, tmax))) << 2;
    return m & used;
#undef QSLOT
#undef QLOAD2
#else
    unsigned m = 0;
    int c, j;
    for (c = 0; c < 4; c++) {
        double tmin = 0, tmax = maxt;
        int rej = 0;
        for (j = 0; j < 3; j++) {
            double nb = n->b[q->nr[j]][c], fb = n->b[q->fr[j]][c];
            if (j < n1) {
                double tn = (nb - q->wnear[j]) * q->winv[j], tf = (fb - q->wfar[j]) * q->winv[j];
                tmin = tn > tmin ? tn : tmin;
                tmax = tf < tmax ? tf : tmax;
            } else {
                rej |= (q->zlo[j] < nb) | (q->zhi[j] > fb);
            }
        }
        te[c] = tmin;
        m |= (unsigned)(!rej && tmin <= tmax) << c;
    }
    return m & used;
#endif
}

/* Closest hit over the box-query snapshot (the one snapshot of an unchanged tree, shared with the
 * box queries): as cl_world_raycast's tree walk, the four slots of a node tested from its two
 * cache lines, leaf slots tested at once, the nearest inner slot hit visited next and the others
 * pushed with their entries (farthest first). Every leaf whose box entry is at most the best t
 * is tested, as in the tree walk, so the answer is the tree walk's. Inlined once per n1 (the
 * number of mode 1 axes, 0..3: qnode_hits; -1, some axis of mode 2: ray_fbox per slot), so the
 * hot loop carries no per-box mode test and the slab tests are inlined. */
WINLINE int qsnap_ray_walk(cl_world *w, const cl_ray *r, const rayq *q, rbest *b, cl_whit *out,
                           const int n1) {
    cl_stack st;
    const cl_qnode *qn = w->qn;
    const cl_item *items = w->items;
    cl_stack_init(&st);
    st.p[0].node = 0;
    st.p[0].t = 0;
    st.n = 1;
    while (st.n > 0) {
        int i;
        st.n--;
        if (st.p[st.n].t > b->t) continue;
        i = st.p[st.n].node;
        for (;;) {
            const cl_qnode *n = &qn[i];
            double te[4] = { 0, 0, 0, 0 };
            unsigned m, ml, used = qnode_slots(n, &ml);
            int j, k;
            if (n1 >= 0) {
                m = qnode_hits(n, q, b->t, te, n1, used);
            } else {
                unsigned u;
                m = 0;
                for (u = used; u; u &= u - 1) {     /* the slots holding a child */
                    cl_fbox fb;
                    j = CTZ4(u);
                    for (k = 0; k < 3; k++) { fb.lo[k] = n->b[k][j]; fb.hi[k] = n->b[3 + k][j]; }
                    m |= (unsigned)ray_fbox(q, &fb, b->t, &te[j]) << j;
                }
            }
            ml &= m;                    /* the leaves hit, then the inner slots hit */
            m &= ~ml;
            if (ml) {
                do {
                    j = CTZ4(ml);
                    ml &= ml - 1;
                    if (te[j] <= b->t && !items[~n->child[j]].dirty) ray_item(w, ~n->child[j], r, b, out);
                } while (ml);
                for (ml = m; ml; ml &= ml - 1)      /* the inner slots still in reach */
                    if (te[CTZ4(ml)] > b->t) m &= ~(1u << CTZ4(ml));
            }
            /* the nearest inner slot hit is visited next, the others pushed with their entries,
             * farthest first; one or two hits (the usual cases) without a loop */
            if (m == 0) break;
            j = CTZ4(m);
            m &= m - 1;
            if (m) {
                k = CTZ4(m);
                m &= m - 1;
                if (m == 0) {
                    if (te[k] < te[j]) { int x = j; j = k; k = x; }
                    if (!SPUSH(&w->tree, &st, n->child[k], te[k])) goto nomem;
                } else {                /* three or four: insertion sort, nearest first */
                    int in[4], nin = 2, x;
                    in[0] = j; in[1] = k;
                    for (; m; m &= m - 1) in[nin++] = CTZ4(m);
                    for (j = 1; j < nin; j++)
                        for (x = j; x > 0 && te[in[x]] < te[in[x - 1]]; x--) {
                            int y = in[x]; in[x] = in[x - 1]; in[x - 1] = y;
                        }
                    for (j = nin - 1; j > 0; j--)
                        if (!SPUSH(&w->tree, &st, n->child[in[j]], te[in[j]])) goto nomem;
                    j = in[0];
                }
            }
            i = n->child[j];
            /* the snapshot outgrows the caches in big worlds: fetch one visit ahead, the next
             * node's first inner child (built right after it, depth-first), as the nodes are
             * tested (its 112 bytes span up to three cache lines) */
            WPREFETCH(&qn[i + 1]);
            WPREFETCH((const char *)&qn[i + 1] + 64);
            WPREFETCH((const char *)&qn[i + 1] + sizeof(cl_qnode) - 1);
        }
    }
    cl_stack_free(&w->tree, &st);
    return b->found;
nomem:
    cl_stack_free(&w->tree, &st);
    return CL_ENOMEM;
}

static int raycast_snap(cl_world *w, const cl_ray *r, const rayq *q, rbest *b, cl_whit *out) {
    switch (q->n1) {
    case 3: return qsnap_ray_walk(w, r, q, b, out, 3);
    case 2: return qsnap_ray_walk(w, r, q, b, out, 2);
    case 1: return qsnap_ray_walk(w, r, q, b, out, 1);
    case 0: return qsnap_ray_walk(w, r, q, b, out, 0);
    default: return qsnap_ray_walk(w, r, q, b, out, -1);
    }
}

/* Closest hit: ordered depth-first search, nearer child first. Each child's slab entry is
 * computed once (when its parent is visited) and kept on the stack with it; a subtree or leaf
 * whose fat-box entry exceeds the best t found so far is never visited (entry == best still is,
 * for ties by add order), so the narrowphase runs only for leaves that could still win. */
int cl_world_raycast(cl_world *w, const cl_ray *r, double maxt, double aftert, double afterseq,
                     cl_whit *out) {
    cl_tree *t = &w->tree;
    cl_stack st;
    rayq q;
    rbest b;
    double te;
    int i;
    b.t = maxt; b.seq = 0; b.aftert = aftert; b.afterseq = afterseq; b.found = 0;
    settle_tree(w);
    for (i = w->dhead; i >= 0; i = w->items[i].dnext)    /* items with stale leaves */
        if (w->items[i].dirty && w->items[i].proxy != CL_NULLNODE) ray_item(w, i, r, &b, out);
    if (t->root == CL_NULLNODE) return b.found;
    rayq_make(&q, r);
    if (!ray_fbox(&q, &t->nodes[t->root].box, b.t, &te)) return b.found;
    if (qsnap_ready(w)) return raycast_snap(w, r, &q, &b, out);
    cl_stack_init(&st);
    st.p[0].node = t->root;
    st.p[0].t = te;
    st.n = 1;
    while (st.n > 0) {
        st.n--;
        if (st.p[st.n].t > b.t) continue;
        i = st.p[st.n].node;
        for (;;) {
            const cl_tnode *nd = &t->nodes[i];
            if (nd->child1 == CL_NULLNODE) {
                if (!w->items[nd->child2].dirty) ray_item(w, nd->child2, r, &b, out);
                break;
            } else {
                double t1 = 0, t2 = 0;
                int c1 = nd->child1, c2 = nd->child2;
                int h1 = q.fast ? ray_fbox_fast(&q, &t->nodes[c1].box, b.t, &t1)
                                : ray_fbox(&q, &t->nodes[c1].box, b.t, &t1);
                int h2 = q.fast ? ray_fbox_fast(&q, &t->nodes[c2].box, b.t, &t2)
                                : ray_fbox(&q, &t->nodes[c2].box, b.t, &t2);
                i = ray_next(t, &st, c1, h1, t1, c2, h2, t2);
                if (i == -1) break;
                if (i < 0) goto nomem;
            }
        }
    }
    cl_stack_free(t, &st);
    return b.found;
nomem:
    cl_stack_free(t, &st);
    return CL_ENOMEM;
}

int cl_world_raycastall(cl_world *w, const cl_ray *r, double maxt) {
    cl_tree *t = &w->tree;
    cl_stack st;
    rayq q;
    int n = 0, done;
    w->nhits = 0;
    done = tree_install_first(w);
    clw_flush_tree(w);
    if (!done) tree_maint(w);
    if (t->root == CL_NULLNODE) return 0;
    rayq_make(&q, r);
    cl_stack_init(&st);
    st.p[st.n++].node = t->root;
    while (st.n > 0) {
        const cl_tnode *nd = &t->nodes[st.p[--st.n].node];
        double te;
        if (!ray_fbox(&q, &nd->box, maxt, &te)) continue;
        if (nd->child1 == CL_NULLNODE) {
            cl_hit h;
            cl_shape sh_;
            if (!cl_shape_raycast(clw_shape(w, &w->items[nd->child2], &sh_), r, maxt, &h)) continue;
            if (n >= w->hitcap) {
                void *np = grow_buf(w, w->hits, &w->hitcap, n + 1, sizeof(cl_whit));
                if (!np) { cl_stack_free(t, &st); return CL_ENOMEM; }
                w->hits = (cl_whit *)np;
            }
            w->hits[n].item = nd->child2;
            w->hits[n].t = h.t;
            w->hits[n].n = h.n;
            n++;
        } else if (!SPUSH(t, &st, nd->child2, 0) || !SPUSH(t, &st, nd->child1, 0)) {
            cl_stack_free(t, &st);
            return CL_ENOMEM;
        }
    }
    cl_stack_free(t, &st);
    sort_elems(w->hits, n, sizeof(cl_whit), clw_less_hit, w);
    w->nhits = n;
    return n;
}
