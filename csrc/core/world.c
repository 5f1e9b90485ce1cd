/* collide core: the World (items, queries, pairs, sweeps, moves). See world.h. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "vec.h"
#include "world.h"

/* always-inlined helpers of the hot loops */
#if defined(__GNUC__) || defined(__clang__)
#define WINLINE static inline __attribute__((always_inline))
#define WPREFETCH(p) __builtin_prefetch(p)
#else
#define WPREFETCH(p) ((void)(p))
#define WINLINE static inline
#endif

/* 4-wide box tests of the query snapshot: SSE when the compiler targets it (every x86-64),
 * else plain comparisons (define CL_NO_SIMD to force them; same answers) */
#if defined(__SSE2__) && !defined(CL_NO_SIMD)
#include <emmintrin.h>
#define QSIMD 1
#else
#define QSIMD 0
#endif
/* CTZ4: index of the lowest set bit of a nonzero 4-bit mask; WCOLD: a rarely called helper kept
 * out of line (a hot loop that calls none on its usual path keeps its SSE values in registers) */
#if defined(__GNUC__) || defined(__clang__)
#define CTZ4(m) __builtin_ctz(m)
#define WCOLD static __attribute__((noinline, cold))
#else
#define WCOLD static
#define CTZ4(m) ((m) & 1 ? 0 : (m) & 2 ? 1 : (m) & 4 ? 2 : 3)
#endif

#define EPS_REL 1e-12       /* broadphase boxes are widened by this relative amount */
#define MAX_LEGS 16
#define DIRTY_MAX 8         /* stale leaves tolerated by traversals before the tree is refitted */
#define PRED_MUL 16         /* predictive fattening: multiple of the last displacement */
#define PRED_MAX 4          /* ... at most this many margins, */
#define PRED_REL 0.5        /* ... or this fraction of the item's extent on that axis if more */
#define REBUILD_COST 1.5    /* a refitted tree this much costlier than after its last rebuild is rebuilt */

/* Returns a grown copy of p holding at least need elements (doubling), or NULL (p untouched). */
static void *grow_buf(cl_world *w, void *p, int *cap, int need, size_t elem) {
    int ncap = *cap ? *cap : 16;
    void *np;
    while (ncap < need) {
        if (ncap > (1 << 28)) return NULL;
        ncap *= 2;
    }
    np = w->alloc(w->ud, p, (size_t)*cap * elem, (size_t)ncap * elem);
    if (np) *cap = ncap;
    return np;
}

#define ENSURE(ptr, cap, need)                                                     \
    do {                                                                           \
        if ((need) > (cap)) {                                                      \
            void *np_ = grow_buf(w, (ptr), &(cap), (need), sizeof *(ptr));         \
            if (!np_) return CL_ENOMEM;                                            \
            (ptr) = np_;                                                           \
        }                                                                          \
    } while (0)

/* shape_tol(NULL, b): the allowance of a box alone (inline: every leg of a move needs one) */
WINLINE double box_tol(const cl_aabb *b) {
    double m = fabs(b->min.x), v;
    v = fabs(b->min.y); if (v > m) m = v;
    v = fabs(b->min.z); if (v > m) m = v;
    v = fabs(b->max.x); if (v > m) m = v;
    v = fabs(b->max.y); if (v > m) m = v;
    v = fabs(b->max.z); if (v > m) m = v;
    return m * EPS_REL + 1e-300;
}

/* Returns the rounding allowance of shape s with tight box b: how far outside b the exact
 * narrowphase (overlaps, contains, raycast, sweeps) can accept a contact through rounding.
 * Its errors are relative to the magnitudes involved, so the allowance is EPS_REL times the
 * largest |coordinate| of b (which bounds centres, extents and radii alike), on every side and
 * every axis (a per-coordinate allowance misses a face at 0 next to large coordinates), plus
 * an absolute 1e-300 for subnormal results. An OBB's axes may be orthonormal only within 1e-6
 * (API.md); its tests then describe a slightly skewed box whose corners leave b by up to about
 * 3 * defect * (hx + hy + hz), so that is added (8 times, for the rounding on top). The other
 * side of a test (query shape, point, ray origin) adds its own allowance. */
static double shape_tol(const cl_shape *s, const cl_aabb *b) {
    double m = box_tol(b);
    if (s != NULL && s->kind == CL_OBB) {
        const cl_obb *o = &s->u.obb;
        double e = 0;
        int i, j;
        for (i = 0; i < 3; i++)
            for (j = i; j < 3; j++) {
                double x = fabs(o->u[i].x * o->u[j].x + o->u[i].y * o->u[j].y + o->u[i].z * o->u[j].z -
                                (i == j));
                if (x > e) e = x;
            }
        if (e > 0) m += 8 * e * (o->h.x + o->h.y + o->h.z);
    }
    return m;
}

/* Returns the box widened by margin plus the rounding allowance tol on every side. */
static cl_aabb widen(const cl_aabb *b, double margin, double tol) {
    cl_aabb r;
    double e = margin + tol;
    r.min.x = b->min.x - e; r.min.y = b->min.y - e; r.min.z = b->min.z - e;
    r.max.x = b->max.x + e; r.max.y = b->max.y + e; r.max.z = b->max.z + e;
    return r;
}

/* Pushes (node, tv) on the traversal stack: the common case inline, growth by cl_stack_push;
 * 1, or 0 when growing failed. */
#define SPUSH(tr_, st_, nd_, tv_)                                                          \
    ((st_)->n < (st_)->cap                                                                 \
         ? ((st_)->p[(st_)->n].node = (nd_), (st_)->p[(st_)->n].t = (tv_), (st_)->n++, 1)  \
         : cl_stack_push((tr_), (st_), (nd_), (tv_)))

/* 1 if the float boxes overlap (inclusive). All six comparisons are evaluated and combined
 * with & (no short circuit): traversals meet boxes that pass or fail at random, and one
 * unpredictable branch is cheaper than up to six. */
WINLINE int fboxes_overlap(const cl_fbox *a, const cl_fbox *b) {
    return (a->lo[0] <= b->hi[0]) & (a->hi[0] >= b->lo[0]) & (a->lo[1] <= b->hi[1]) &
           (a->hi[1] >= b->lo[1]) & (a->lo[2] <= b->hi[2]) & (a->hi[2] >= b->lo[2]);
}

/* ---- generic in-place heap sort (keys are unique, so the order is fully determined) ---- */

typedef int (*less_fn)(const void *ctx, const void *a, const void *b);

/* Swaps two elements of size sz (sz <= 64). */
static void swap_elem(char *a, char *b, size_t sz) {
    char t[64];
    memcpy(t, a, sz);
    memcpy(a, b, sz);
    memcpy(b, t, sz);
}

/* Sorts n elements of size sz ascending by less (insertion sort when short, else heap sort). */
static void sort_elems(void *base, int n, size_t sz, less_fn less, const void *ctx) {
    char *a = (char *)base;
    int i, j;
    if (n < 2) return;
    if (n <= 16) {
        for (i = 1; i < n; i++)
            for (j = i; j > 0 && less(ctx, a + j * sz, a + (j - 1) * sz); j--)
                swap_elem(a + j * sz, a + (j - 1) * sz, sz);
        return;
    }
    for (i = n / 2 - 1; i >= 0; i--) {          /* heapify */
        int r = i;
        for (;;) {
            int c = 2 * r + 1;
            if (c >= n) break;
            if (c + 1 < n && less(ctx, a + c * sz, a + (c + 1) * sz)) c++;
            if (!less(ctx, a + r * sz, a + c * sz)) break;
            swap_elem(a + r * sz, a + c * sz, sz);
            r = c;
        }
    }
    for (i = n - 1; i > 0; i--) {
        int r = 0;
        swap_elem(a, a + i * sz, sz);
        for (;;) {
            int c = 2 * r + 1;
            if (c >= i) break;
            if (c + 1 < i && less(ctx, a + c * sz, a + (c + 1) * sz)) c++;
            if (!less(ctx, a + r * sz, a + c * sz)) break;
            swap_elem(a + r * sz, a + c * sz, sz);
            r = c;
        }
    }
}

/* Orders item ids by add order. */
static int less_id(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    return w->items[*(const int *)a].seq < w->items[*(const int *)b].seq;
}

/* Orders hits by t, then add order. */
static int less_hit(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    const cl_whit *x = (const cl_whit *)a, *y = (const cl_whit *)b;
    if (x->t != y->t) return x->t < y->t;
    return w->items[x->item].seq < w->items[y->item].seq;
}

/* 1 if box a lies inside box b. */
static int aabb_inside(const cl_aabb *a, const cl_aabb *b) {
    return a->min.x >= b->min.x && a->min.y >= b->min.y && a->min.z >= b->min.z &&
           a->max.x <= b->max.x && a->max.y <= b->max.y && a->max.z <= b->max.z;
}

/* ---- items ---- */

static cl_aabb fat_box(const cl_world *w, const cl_item *it);
static void set_fat(const cl_world *w, cl_item *it, const cl_fbox *fb);

void cl_world_init(cl_world *w, double margin, cl_alloc alloc, void *ud) {
    memset(w, 0, sizeof *w);
    cl_tree_init(&w->tree, alloc, ud);
    w->items = NULL;
    w->freelist = w->head = w->tail = -1;
    w->dhead = -1;
    w->dlen = 0;
    w->mhead = -1;
    w->pfull = 1;
    w->nextseq = 1;
    w->margin = margin;
    w->res = w->tmp = NULL;
    w->hits = NULL;
    w->mc = NULL;
    w->cols = NULL;
    w->alloc = alloc;
    w->ud = ud;
}

/* Frees one buffer of cap elements of size sz. */
static void free_buf(cl_world *w, void *p, int cap, size_t sz) {
    if (p) w->alloc(w->ud, p, (size_t)cap * sz, 0);
}

void cl_world_free(cl_world *w) {
    cl_tree_free(&w->tree);
    free_buf(w, w->items, w->cap, sizeof(cl_item));
    free_buf(w, w->res, w->rescap, sizeof(int));
    free_buf(w, w->tmp, w->tmpcap, sizeof(int));
    free_buf(w, w->hits, w->hitcap, sizeof(cl_whit));
    free_buf(w, w->mc, w->mccap, sizeof(cl_mcand));
    free_buf(w, w->mq, w->mqcap, sizeof(int));
    free_buf(w, w->cols, w->colcap, sizeof(cl_col));
    free_buf(w, w->cp, w->cpcap, sizeof(cl_cpair));
    if (w->wnblock) w->alloc(w->ud, w->wnblock, (size_t)w->wncap * sizeof(cl_wnode) + 64, 0);
    if (w->qnblock) w->alloc(w->ud, w->qnblock, (size_t)w->qncap * sizeof(cl_qnode) + 64, 0);
    free_buf(w, w->qslot, w->qslotcap, sizeof(int));
    free_buf(w, w->ph, w->phcap, sizeof(int));
    free_buf(w, w->pr, w->prcap, sizeof(cl_wpair));
    free_buf(w, w->kp, w->kpcap, sizeof(cl_kpair));
    cl_world_init(w, w->margin, w->alloc, w->ud);
}

int cl_world_reserve(cl_world *w) {
    if (w->freelist < 0) {
        int old = w->cap, i;
        ENSURE(w->items, w->cap, old + 1);
        for (i = w->cap - 1; i >= old; i--) {
            w->items[i].proxy = CL_NULLNODE;
            w->items[i].gen = 0;
            w->items[i].dirty = 0;
            w->items[i].onlist = 0;
            w->items[i].mon = 0;
            w->items[i].next = w->freelist;
            w->freelist = i;
        }
    }
    return cl_tree_reserve(&w->tree, 1);
}

int cl_world_nextid(const cl_world *w) { return w->freelist; }

int cl_world_add(cl_world *w, const cl_shape *s) {
    int id;
    cl_item *it;
    cl_aabb fat;
    if (cl_world_reserve(w) != CL_OK) return CL_ENOMEM;
    id = w->freelist;
    it = &w->items[id];
    w->freelist = it->next;
    it->shape = *s;
    it->box = cl_shape_aabb(s);
    it->seq = w->nextseq;
    w->nextseq += 1;
    it->vel = cl_v3(0, 0, 0);
    /* a new item gets a tight leaf (its box and rounding allowance, no margin): items that are
     * never moved (level geometry, bulk-added scenery) keep the tightest tree for queries and
     * rays; the first update that leaves it fattens the leaf as usual (flush_tree) */
    fat = widen(&it->box, 0, shape_tol(&it->shape, &it->box));
    it->proxy = cl_tree_insert(&w->tree, &fat, id);   /* cannot fail after the reserve */
    set_fat(w, it, &w->tree.nodes[it->proxy].box);
    w->tchg += 8;
    w->tver++;
    it->gen++;
    it->dirty = 0;
    it->vel = cl_v3(0, 0, 0);
    if (!it->mon) {
        it->mon = 1;
        it->mnext = w->mhead;
        w->mhead = id;
    }
    it->prev = w->tail;
    it->next = -1;
    if (w->tail >= 0) w->items[w->tail].next = id; else w->head = id;
    w->tail = id;
    w->count++;
    return id;
}

void cl_world_remove(cl_world *w, int id) {
    cl_item *it = &w->items[id];
    cl_tree_remove(&w->tree, it->proxy);
    w->tchg += 8;
    w->tver++;
    if (it->prev >= 0) w->items[it->prev].next = it->next; else w->head = it->next;
    if (it->next >= 0) w->items[it->next].prev = it->prev; else w->tail = it->prev;
    it->proxy = CL_NULLNODE;
    it->next = w->freelist;
    it->dirty = 0;
    w->freelist = id;
    w->count--;
    w->ppurge = 1;
}

/* The longest predictive extension of a fat box on axis a (0-2) of an item with tight box b:
 * PRED_MAX margins, or PRED_REL times the box's extent on that axis if that is more (so a
 * steadily moving item keeps its leaf for about PRED_MUL steps unless it is fast for its size);
 * none when the margin is 0 (tight leaves, as asked). */
static double pred_cap(const cl_world *w, const cl_aabb *b, int a) {
    double ext = a == 0 ? b->max.x - b->min.x : a == 1 ? b->max.y - b->min.y : b->max.z - b->min.z;
    double c = PRED_MAX * w->margin, r = PRED_REL * ext;
    if (w->margin <= 0) return 0;
    if (!(r < 1e30)) r = 1e30;  /* finite fat boxes even for boxes of extent ~1e308 */
    return r > c ? r : c;
}

/* Sets the fat box of item it (a copy of its tree leaf's box) and what update_to needs to judge
 * it: ktol, the rounding allowance (shape_tol) of any box inside it for a kind other than OBB,
 * and per axis the most slack a side may have before the leaf counts as too loose: 3 margins of
 * drift beyond the most a fresh fat box gets (margin + pred_cap for the item's present box),
 * plus room for the outward rounding of fat to floats. */
static void set_fat(const cl_world *w, cl_item *it, const cl_fbox *fb) {
    cl_aabb f = cl_fbox_to(fb);
    double m = fabs(f.min.x), v;
    int a;
    v = fabs(f.min.y); if (v > m) m = v;
    v = fabs(f.min.z); if (v > m) m = v;
    v = fabs(f.max.x); if (v > m) m = v;
    v = fabs(f.max.y); if (v > m) m = v;
    v = fabs(f.max.z); if (v > m) m = v;
    it->fat = *fb;
    it->ktol = m * EPS_REL + 1e-300;        /* as shape_tol: m bounds every coordinate inside */
    for (a = 0; a < 3; a++) {
        double l = 4 * w->margin + pred_cap(w, &it->box, a);
        it->kslack[a] = l + (m + l) * (2 * FLT_EPSILON) + 1e-299;
    }
}

/* The tail of cl_world_update: item id now has shape *s (it->shape may be s) with box b. */
static void update_to(cl_world *w, int id, const cl_shape *s, cl_aabb b) {
    cl_item *it = &w->items[id];
    cl_aabb fat;
    cl_vec3 lo, hi;
    double t;
    it->vel.x = ((b.min.x - it->box.min.x) + (b.max.x - it->box.max.x)) * 0.5;
    it->vel.y = ((b.min.y - it->box.min.y) + (b.max.y - it->box.max.y)) * 0.5;
    it->vel.z = ((b.min.z - it->box.min.z) + (b.max.z - it->box.max.z)) * 0.5;
    if (&it->shape != s) it->shape = *s;
    it->box = b;
    if (it->dirty) return;
    fat.min = cl_v3(it->fat.lo[0], it->fat.lo[1], it->fat.lo[2]);     /* as cl_fbox_to */
    fat.max = cl_v3(it->fat.hi[0], it->fat.hi[1], it->fat.hi[2]);
    /* keep the leaf while its fat box still encloses the shape with its rounding allowance and
     * is not too loose. The allowance: an OBB's own (its axes may have changed), else ktol, the
     * allowance of the largest box inside fat, which is at least this box's whenever the
     * enclosure test passes (the box is then inside fat); so the test is exact or stricter. */
    t = s->kind == CL_OBB ? shape_tol(s, &b) : it->ktol;
    lo = cl_v3(b.min.x - t, b.min.y - t, b.min.z - t);
    hi = cl_v3(b.max.x + t, b.max.y + t, b.max.z + t);
    if ((fat.min.x <= lo.x) & (fat.min.y <= lo.y) & (fat.min.z <= lo.z) &
        (fat.max.x >= hi.x) & (fat.max.y >= hi.y) & (fat.max.z >= hi.z) &
        (lo.x - fat.min.x <= it->kslack[0]) & (lo.y - fat.min.y <= it->kslack[1]) &
        (lo.z - fat.min.z <= it->kslack[2]) & (fat.max.x - hi.x <= it->kslack[0]) &
        (fat.max.y - hi.y <= it->kslack[1]) & (fat.max.z - hi.z <= it->kslack[2]))
        return;
    /* the leaf is refitted on the next tree traversal (pairs do not need the tree) */
    it->dirty = 1;
    if (!it->onlist) {
        it->onlist = 1;
        it->dnext = w->dhead;
        w->dhead = id;
        w->dlen++;
    }
}

void cl_world_update(cl_world *w, int id, const cl_shape *s) {
    update_to(w, id, s, cl_shape_aabb(s));
}

int cl_world_translate(cl_world *w, int id, cl_vec3 d) {
    cl_item *it = &w->items[id];
    cl_shape s;
    cl_aabb b;
    const cl_vec3 *p;
    if (it->shape.kind == CL_AABB) {    /* the common case, in place (as cl_shape_translate) */
        b.min.x = it->shape.u.aabb.min.x + d.x; b.max.x = it->shape.u.aabb.max.x + d.x;
        b.min.y = it->shape.u.aabb.min.y + d.y; b.max.y = it->shape.u.aabb.max.y + d.y;
        b.min.z = it->shape.u.aabb.min.z + d.z; b.max.z = it->shape.u.aabb.max.z + d.z;
        if ((b.min.x - b.min.x) + (b.max.x - b.max.x) != 0) return 1;
        if ((b.min.y - b.min.y) + (b.max.y - b.max.y) != 0) return 2;
        if ((b.min.z - b.min.z) + (b.max.z - b.max.z) != 0) return 3;
        it->shape.u.aabb = b;
        update_to(w, id, &it->shape, b);
        return 0;
    }
    s = it->shape;                      /* an OBB or a sphere: only its centre moves */
    cl_shape_translate(&s, d);
    p = s.kind == CL_OBB ? &s.u.obb.c : &s.u.sphere.c;
    /* x - x is +0 for finite x, NaN otherwise */
    if (p->x - p->x != 0) return 1;
    if (p->y - p->y != 0) return 2;
    if (p->z - p->z != 0) return 3;
    it->shape = s;
    update_to(w, id, &it->shape, cl_shape_aabb(&s));
    return 0;
}

/* Returns the fat box of an item: its box widened by the margin, and further along its last
 * displacement by PRED_MUL times it (Box2D v2's predictive aabbMultiplier, but larger), at most
 * pred_cap, so an item moving steadily leaves its fat box rarely. */
static cl_aabb fat_box(const cl_world *w, const cl_item *it) {
    cl_aabb f = widen(&it->box, w->margin, shape_tol(&it->shape, &it->box));
    double cap, e;
    cap = pred_cap(w, &it->box, 0);
    e = PRED_MUL * it->vel.x; e = e > cap ? cap : e < -cap ? -cap : e;
    if (e > 0) f.max.x += e; else f.min.x += e;
    cap = pred_cap(w, &it->box, 1);
    e = PRED_MUL * it->vel.y; e = e > cap ? cap : e < -cap ? -cap : e;
    if (e > 0) f.max.y += e; else f.min.y += e;
    cap = pred_cap(w, &it->box, 2);
    e = PRED_MUL * it->vel.z; e = e > cap ? cap : e < -cap ? -cap : e;
    if (e > 0) f.max.z += e; else f.min.z += e;
    return f;
}

/* Rebuilds the tree (cl_tree_rebuild) and re-reads the items' leaf indices; when memory runs
 * out, refits every internal box instead (the tree stays valid, only slower to search). */
static void tree_rebuild(cl_world *w) {
    cl_tree *t = &w->tree;
    int i;
    w->tchg = 0;
    w->tver++;
    w->nenl = 0;
    if (cl_tree_rebuild(t) != CL_OK) {
        cl_tree_refit(t);
        return;
    }
    w->refcost = cl_tree_cost(t);
    for (i = 0; i < 2 * t->leaves - 1; i++)
        if (t->nodes[i].child1 == CL_NULLNODE) w->items[t->nodes[i].child2].proxy = i;
}

WINLINE cl_fbox fbox_of(const cl_aabb *b);

/* Copies tree node i's box into its box-query snapshot slot s (4 * node + slot). */
static void qslot_copy(cl_world *w, int i, int s) {
    const cl_fbox *b = &w->tree.nodes[i].box;
    cl_qnode *q = &w->qn[s >> 2];
    int j = s & 3;
    q->b[0][j] = b->lo[0]; q->b[1][j] = b->lo[1]; q->b[2][j] = b->lo[2];
    q->b[3][j] = b->hi[0]; q->b[4][j] = b->hi[1]; q->b[5][j] = b->hi[2];
}

/* Keeps the box-query snapshot in step with cl_tree_enlarge(leaf) (no change of structure, so
 * the grouping stays valid): copies the leaf's new box and those of its ancestors into their
 * slots (opened nodes have none). Enlargement changes a run of ancestors from the leaf up, so
 * the walk stops at the first slotted ancestor whose slot already holds its box. */
static void qsnap_path(cl_world *w, int leaf) {
    int i = leaf;
    while (i != CL_NULLNODE) {
        int s = w->qslot[i];
        if (s >= 0) {
            const cl_fbox *b = &w->tree.nodes[i].box;
            const cl_qnode *q = &w->qn[s >> 2];
            int j = s & 3;
            if (i != leaf && q->b[0][j] == b->lo[0] && q->b[1][j] == b->lo[1] &&
                q->b[2][j] == b->lo[2] && q->b[3][j] == b->hi[0] && q->b[4][j] == b->hi[1] &&
                q->b[5][j] == b->hi[2])
                break;
            qslot_copy(w, i, s);
        }
        i = w->tree.meta[i].parent;
    }
}

/* Copies every slotted tree node's box into the snapshot (after a refit, same structure). */
static void qsnap_refit(cl_world *w) {
    int i;
    for (i = 0; i < w->qslotcap; i++)
        if (w->qslot[i] >= 0) qslot_copy(w, i, w->qslot[i]);
}

/* Refits the tree leaves of every item updated out of its fat box since the last traversal
 * (newest first; the list order is fixed by the calls, so the tree stays deterministic), and
 * queues them for the pair cache. */
static void flush_tree(cl_world *w) {
    /* more than half the leaves stale (bulk updates, the first step of items added tight): set
     * them in place and refit the whole tree, far cheaper than as many reinsertions; rebuild it
     * if that left it much worse than after the last rebuild (teleports, long drifts) */
    int bulk = w->tree.leaves >= 64 && w->dlen > w->tree.leaves / 2;
    /* a valid box-query snapshot is kept valid through enlargements and refits (its structure
     * is the tree's until a leaf is reinserted or the tree rebuilt): far cheaper than rebuilding
     * it for the next pairs' queries */
    int qsync = w->qn != NULL && w->qnver == w->tver && w->tree.cap <= w->qslotcap;
    while (w->dhead >= 0) {
        int id = w->dhead;
        cl_item *it = &w->items[id];
        w->dhead = it->dnext;
        it->onlist = 0;
        if (it->dirty && it->proxy != CL_NULLNODE) {
            cl_aabb nf = fat_box(w, it);
            cl_fbox nfb = fbox_of(&nf);             /* cl_fbox_from's bits */
            it->dirty = 0;
            w->tver++;
            if (bulk) {
                w->tree.nodes[it->proxy].box = nfb;     /* ancestors fixed by the rebuild */
            } else if (fboxes_overlap(&it->fat, &nfb)) {     /* a small step: grow the ancestors */
                cl_tree_enlarge_fbox(&w->tree, it->proxy, &nfb);
                if (qsync) qsnap_path(w, it->proxy);
                w->nenl++;
                w->tchg++;
            } else {
                it->proxy = cl_tree_move(&w->tree, it->proxy, &nf);
                w->tchg += 8;
                qsync = 0;
            }
            set_fat(w, it, &nfb);
            if (!it->mon) {
                it->mon = 1;
                it->mnext = w->mhead;
                w->mhead = id;
            }
        }
    }
    w->dlen = 0;
    if (bulk) {
        cl_tree_refit(&w->tree);
        w->nenl = 0;
        if (w->refcost <= 0 || cl_tree_cost(&w->tree) > REBUILD_COST * w->refcost) {
            tree_rebuild(w);
        } else if (qsync) {
            qsnap_refit(w);
            w->qnver = w->tver;
        }
        return;
    }
    if (w->nenl > 0 && w->nenl >= w->tree.leaves / 4) {
        /* undo the growth; if the tree is still much worse than after the last rebuild, its
         * leaves have drifted away from their neighbours: rebuild soon */
        cl_tree_refit(&w->tree);
        w->nenl = 0;
        if (qsync) qsnap_refit(w);
        if (w->refcost > 0 && cl_tree_cost(&w->tree) > REBUILD_COST * w->refcost) w->tchg += 8L * w->tree.leaves;
    }
    if (qsync) w->qnver = w->tver;
}

const cl_shape *cl_world_shape(const cl_world *w, int id) { return &w->items[id].shape; }

/* ---- traversals ---- */

/* Collects into w->tmp every item whose tree leaf overlaps float box *qp (leaves as they are);
 * the count or CL_ENOMEM. */
static int collect_fbox(cl_world *w, const cl_fbox *qp) {
    cl_tree *t = &w->tree;
    cl_stack st;
    cl_fbox q = *qp;
    int n = 0;
    if (t->root == CL_NULLNODE) return 0;
    cl_stack_init(&st);
    st.p[st.n++].node = t->root;
    while (st.n > 0) {
        const cl_tnode *nd = &t->nodes[st.p[--st.n].node];
        if (!fboxes_overlap(&nd->box, &q)) continue;
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

/* Rebuilds the tree (cl_tree_rebuild: balanced, depth-first memory order) once it has changed
 * about as much as its size since the last rebuild (so a rebuild costs O(log n) per change),
 * then re-reads the items' leaf indices. Skipped when memory runs out (the tree stays valid). */
static void tree_maint(cl_world *w) {
    if (w->tree.leaves < 64 || w->tchg < 8L * w->tree.leaves) return;
    tree_rebuild(w);
}

/* Refits the tree when more than DIRTY_MAX leaves are stale; otherwise traversals skip the
 * stale leaves and test those few items directly (a lone mover is then never reinserted). */
static void settle_tree(cl_world *w) {
    if (w->dlen > DIRTY_MAX) flush_tree(w);
    tree_maint(w);
}

static int qsnap_ready(cl_world *w);
static int qsnap_now(cl_world *w);

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

/* As collect_fbox over the box-query snapshot (valid, at least two leaves): a visit tests the
 * four child boxes of a node at once (six 4-wide float comparisons with SSE, else the same
 * comparisons one by one: the same answers, NaN slots included), collects the overlapping
 * leaves and goes on to the first overlapping inner child, pushing the others. */
static int collect_snap(cl_world *w, const cl_fbox *qp) {
    const cl_qnode *qn = w->qn;
    const cl_item *items = w->items;
    cl_fbox q = *qp;
    int n = 0, node = 0, sp = 0, cap = CL_QSTACK, local[CL_QSTACK], *stk = local;
#if QSIMD
    const __m128 l0 = _mm_set1_ps(q.lo[0]), l1 = _mm_set1_ps(q.lo[1]), l2 = _mm_set1_ps(q.lo[2]);
    const __m128 h0 = _mm_set1_ps(q.hi[0]), h1 = _mm_set1_ps(q.hi[1]), h2 = _mm_set1_ps(q.hi[2]);
#endif
    for (;;) {              /* no test of the root's own box: its four children's cost as much */
        const cl_qnode *nd = &qn[node];
        unsigned m;
#if QSIMD
        __m128 r = _mm_and_ps(_mm_cmple_ps(_mm_load_ps(nd->b[0]), h0), _mm_cmple_ps(l0, _mm_load_ps(nd->b[3])));
        r = _mm_and_ps(r, _mm_and_ps(_mm_cmple_ps(_mm_load_ps(nd->b[1]), h1), _mm_cmple_ps(l1, _mm_load_ps(nd->b[4]))));
        r = _mm_and_ps(r, _mm_and_ps(_mm_cmple_ps(_mm_load_ps(nd->b[2]), h2), _mm_cmple_ps(l2, _mm_load_ps(nd->b[5]))));
        m = (unsigned)_mm_movemask_ps(r);
#else
        {
            int k;
            m = 0;
            for (k = 0; k < 4; k++)
                m |= (unsigned)((nd->b[0][k] <= q.hi[0]) & (q.lo[0] <= nd->b[3][k]) &
                                (nd->b[1][k] <= q.hi[1]) & (q.lo[1] <= nd->b[4][k]) &
                                (nd->b[2][k] <= q.hi[2]) & (q.lo[2] <= nd->b[5][k])) << k;
        }
#endif
        node = -1;
        while (m) {
            int c = nd->child[CTZ4(m)];
            m &= m - 1;
            if (c >= 0) {
                if (node < 0) {
                    node = c;
                } else {
                    if (sp == cap && !istack_grow(w, &stk, &cap, sp, local)) goto nomem;
                    stk[sp++] = c;
                }
            } else if (!items[~c].dirty) {          /* stale leaves are tested by the caller */
                if (n >= w->tmpcap && !tmp_grow(w, n + 1)) goto nomem;
                w->tmp[n++] = ~c;
            }
        }
        if (node < 0) {
            if (sp == 0) break;
            node = stk[--sp];
        }
    }
    if (stk != local) w->alloc(w->ud, stk, (size_t)cap * sizeof(int), 0);
    return n;
nomem:
    if (stk != local) w->alloc(w->ud, stk, (size_t)cap * sizeof(int), 0);
    return CL_ENOMEM;
}

/* cl_fbox_from(b), the same bits (checked by test_inline.c): with SSE2 the six roundings at once,
 * as tree.c's f_down (f_up(x) is -f_down(-x)): convert to float (round to nearest), step one
 * float toward -inf where that went up (+1 on the bits of a negative float or -0, -1 on a
 * positive one; +0 never went up), and clamp +inf and anything above FLT_MAX to FLT_MAX (through
 * min(DBL_MAX, x), which keeps NaN); below -FLT_MAX rounding gives -inf or -FLT_MAX stepped to
 * -inf, as f_down. */
WINLINE cl_fbox fbox_of(const cl_aabb *b) {
#if QSIMD
    cl_fbox f;
    const __m128d big = _mm_set1_pd(DBL_MAX);
    __m128d d0 = _mm_min_pd(big, _mm_set_pd(b->min.y, b->min.x));
    __m128d d1 = _mm_min_pd(big, _mm_set_pd(-b->max.x, b->min.z));
    __m128d d2 = _mm_min_pd(big, _mm_set_pd(-b->max.z, -b->max.y));
    __m128 f0 = _mm_cvtpd_ps(d0), f1 = _mm_cvtpd_ps(d1), f2 = _mm_cvtpd_ps(d2);
    __m128 up01 = _mm_shuffle_ps(_mm_castpd_ps(_mm_cmpgt_pd(_mm_cvtps_pd(f0), d0)),
                                 _mm_castpd_ps(_mm_cmpgt_pd(_mm_cvtps_pd(f1), d1)), _MM_SHUFFLE(2, 0, 2, 0));
    __m128 up2 = _mm_castpd_ps(_mm_cmpgt_pd(_mm_cvtps_pd(f2), d2));
    __m128i u01 = _mm_castps_si128(_mm_movelh_ps(f0, f1)), u2 = _mm_castps_si128(f2);
    __m128i s01 = _mm_srai_epi32(u01, 31), s2 = _mm_srai_epi32(u2, 31);
    __m128i m2 = _mm_shuffle_epi32(_mm_castps_si128(up2), _MM_SHUFFLE(2, 2, 2, 0));
    float r[8];
    u01 = _mm_sub_epi32(_mm_add_epi32(u01, _mm_xor_si128(_mm_castps_si128(up01), s01)), s01);
    u2 = _mm_sub_epi32(_mm_add_epi32(u2, _mm_xor_si128(m2, s2)), s2);
    _mm_storeu_ps(r, _mm_castsi128_ps(u01));
    _mm_storeu_ps(r + 4, _mm_castsi128_ps(u2));
    f.lo[0] = r[0]; f.lo[1] = r[1]; f.lo[2] = r[2];
    f.hi[0] = -r[3]; f.hi[1] = -r[4]; f.hi[2] = -r[5];
    return f;
#else
    return cl_fbox_from(b);
#endif
}

/* Collects into w->tmp every item whose box may overlap box (tree leaves, plus the items with
 * stale leaves by their tight boxes) except item skip (-1: none), which may be left out; the
 * count or CL_ENOMEM. */
static int collect_box(cl_world *w, const cl_aabb *box, int skip) {
    cl_fbox q = fbox_of(box);           /* rounded outward: still conservative */
    int n, i;
    settle_tree(w);
    n = qsnap_ready(w) ? collect_snap(w, &q) : collect_fbox(w, &q);
    if (n < 0) return n;
    for (i = w->dhead; i >= 0; i = w->items[i].dnext) {
        const cl_item *it = &w->items[i];
        cl_aabb tb;
        if (!it->dirty || it->proxy == CL_NULLNODE || i == skip) continue;
        tb = widen(&it->box, 0, shape_tol(&it->shape, &it->box));   /* as its tree box would */
        if (!(tb.min.x <= box->max.x && tb.max.x >= box->min.x && tb.min.y <= box->max.y &&
              tb.max.y >= box->min.y && tb.min.z <= box->max.z && tb.max.z >= box->min.z))
            continue;
        ENSURE(w->tmp, w->tmpcap, n + 1);
        w->tmp[n++] = i;
    }
    return n;
}

int cl_world_query(cl_world *w, const cl_shape *s) {
    cl_aabb b = cl_shape_aabb(s), q = widen(&b, 0, shape_tol(s, &b));
    int n = collect_box(w, &q, -1), i, k = 0;
    if (n < 0) return n;
    ENSURE(w->res, w->rescap, n);
    for (i = 0; i < n; i++) {
        int id = w->tmp[i];
        if (cl_shape_overlaps(s, &w->items[id].shape)) w->res[k++] = id;
    }
    sort_elems(w->res, k, sizeof(int), less_id, w);
    w->nres = k;
    return k;
}

int cl_world_querypoint(cl_world *w, cl_vec3 p) {
    cl_aabb b, q;
    int n, i, k = 0;
    b.min = b.max = p;
    q = widen(&b, 0, shape_tol(NULL, &b));
    n = collect_box(w, &q, -1);
    if (n < 0) return n;
    ENSURE(w->res, w->rescap, n);
    for (i = 0; i < n; i++) {
        int id = w->tmp[i];
        if (cl_shape_contains(&w->items[id].shape, p)) w->res[k++] = id;
    }
    sort_elems(w->res, k, sizeof(int), less_id, w);
    w->nres = k;
    return k;
}

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
    int k;
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
    q->fast = q->mode[0] == 1 && q->mode[1] == 1 && q->mode[2] == 1;
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
    if (!cl_shape_raycast(&it->shape, r, b->t, &h)) return;
    if (h.t < b->aftert || (h.t == b->aftert && it->seq <= b->afterseq)) return;
    if (b->found && (h.t > b->t || (h.t == b->t && it->seq > b->seq))) return;
    b->found = 1;
    b->t = h.t;
    b->seq = it->seq;
    out->item = id;
    out->t = h.t;
    out->n = h.n;
}

/* Builds the raycast snapshot of the tree (internal nodes in depth-first order, each holding
 * both children's boxes); CL_OK or CL_ENOMEM (no snapshot). Needs at least two leaves. */
static int snap_build(cl_world *w) {
    cl_tree *t = &w->tree;
    cl_stack st;
    int need = t->leaves - 1, k = 0;
    if (need > w->wncap) {
        void *blk;
        if (w->wnblock) w->alloc(w->ud, w->wnblock, (size_t)w->wncap * sizeof(cl_wnode) + 64, 0);
        w->wnblock = NULL;
        w->wn = NULL;
        w->wncap = 0;
        blk = w->alloc(w->ud, NULL, 0, (size_t)need * sizeof(cl_wnode) + 64);
        if (!blk) return CL_ENOMEM;
        w->wnblock = blk;
        w->wncap = need;
        w->wn = (cl_wnode *)(void *)((char *)blk + (64 - (uintptr_t)blk % 64) % 64);
    }
    /* stack entries: tree node, and (t) the slot that gets its snapshot index: 2 * parent + side */
    cl_stack_init(&st);
    st.p[st.n].node = t->root;
    st.p[st.n].t = -1;
    st.n++;
    while (st.n > 0) {
        int i = st.p[--st.n].node, slot = (int)st.p[st.n].t, me = k++, side;
        const cl_tnode *nd = &t->nodes[i];
        cl_wnode *wn = &w->wn[me];
        if (slot >= 0) w->wn[slot / 2].child[slot % 2] = me;
        for (side = 0; side < 2; side++) {
            int c = side ? nd->child2 : nd->child1;
            wn->box[side] = t->nodes[c].box;
            wn->child[side] = t->nodes[c].child1 == CL_NULLNODE ? ~t->nodes[c].child2 : 0;
        }
        wn->pad[0] = wn->pad[1] = 0;
        if ((wn->child[1] >= 0 && !SPUSH(t, &st, nd->child2, 2.0 * me + 1)) ||
            (wn->child[0] >= 0 && !SPUSH(t, &st, nd->child1, 2.0 * me))) {
            cl_stack_free(t, &st);
            return CL_ENOMEM;
        }
    }
    cl_stack_free(t, &st);
    w->wnver = w->tver;
    return CL_OK;
}

/* Counts a traversal of the unchanged tree (the count is shared by both snapshots); 1 once it
 * has served about leaves / 128 + 8 of them, so a snapshot's O(n) build is amortised. */
static int snap_due(cl_world *w) {
    if (w->raysver != w->tver) { w->raysver = w->tver; w->wnrays = 0; }
    if (++w->wnrays <= w->tree.leaves / 128 + 8) return 0;
    w->wnrays = 0;
    return 1;
}

/* Returns 1 if the snapshot is valid, building it when snap_due says so; 0 to walk the tree
 * instead. Results never depend on which walk finds them. */
static int snap_ready(cl_world *w) {
    if (w->tree.leaves < 2) return 0;
    if (w->wn && w->wnver == w->tver) return 1;
    return snap_due(w) && snap_build(w) == CL_OK;
}

/* Returns the surface-area measure of a float box (which inner child a 4-wide node opens). */
static double fb_area(const cl_fbox *b) {
    double dx = (double)b->hi[0] - b->lo[0], dy = (double)b->hi[1] - b->lo[1];
    double dz = (double)b->hi[2] - b->lo[2];
    return dx * dy + dy * dz + dz * dx;
}

/* Builds the box-query snapshot: the binary tree collapsed into 4-wide nodes, in depth-first
 * order (a node's first inner child follows it); CL_OK or CL_ENOMEM (no snapshot). Needs at
 * least two leaves. Each node takes a tree node's two children and opens the inner ones: two
 * inner children give their four children; one gives its two children and the larger inner one
 * of those opens too (cheap to build, no search). Size bound: a node of four slots uses up three
 * inner tree nodes; one of three slots (all leaves) two; one of two slots (both leaves) one;
 * with n leaves, n - 1 inner nodes and 2 * (two-slot nodes) + (three-slot nodes) <= n, that is
 * at most (2n - 1) / 3 nodes. Which leaves a query finds does not depend on the grouping (every
 * box encloses its subtree's), only the order it finds them in, which no result depends on. */
static int qsnap_build(cl_world *w) {
    cl_tree *t = &w->tree;
    cl_stack st;
    int need = 2 * t->leaves / 3 + 1, k = 0;
    if (need > w->qncap) {
        void *blk;
        if (w->qnblock) w->alloc(w->ud, w->qnblock, (size_t)w->qncap * sizeof(cl_qnode) + 64, 0);
        w->qnblock = NULL;
        w->qn = NULL;
        w->qncap = 0;
        blk = w->alloc(w->ud, NULL, 0, (size_t)need * sizeof(cl_qnode) + 64);
        if (!blk) return CL_ENOMEM;
        w->qnblock = blk;
        w->qncap = need;
        w->qn = (cl_qnode *)(void *)((char *)blk + (64 - (uintptr_t)blk % 64) % 64);
    }
    if (t->cap > w->qslotcap) {             /* the slot of every tree node (qsnap_path) */
        free_buf(w, w->qslot, w->qslotcap, sizeof(int));
        w->qslotcap = 0;
        w->qslot = (int *)w->alloc(w->ud, NULL, 0, (size_t)t->cap * sizeof(int));
        if (!w->qslot) return CL_ENOMEM;
        w->qslotcap = t->cap;
    }
    for (k = 0; k < w->qslotcap; k++) w->qslot[k] = -1;
    k = 0;
    /* stack entries: tree node, and (t) the slot that gets its snapshot index: 4 * parent + slot */
    cl_stack_init(&st);
    st.p[st.n].node = t->root;
    st.p[st.n].t = -1;
    st.n++;
    while (st.n > 0) {
        int i = st.p[--st.n].node, slot = (int)st.p[st.n].t, me = k++, ns = 2, j, sl[4];
        cl_qnode *qn = &w->qn[me];
        int a = t->nodes[i].child1, b = t->nodes[i].child2;
        int ia, ib;
        if (me >= w->qncap) {               /* never (the bound above); no snapshot rather than an overrun */
            cl_stack_free(t, &st);
            return CL_ENOMEM;
        }
        ia = t->nodes[a].child1 != CL_NULLNODE;
        ib = t->nodes[b].child1 != CL_NULLNODE;
        if (slot >= 0) w->qn[slot / 4].child[slot % 4] = me;
        if (ia && ib) {                     /* both children open: the four grandchildren */
            sl[0] = t->nodes[a].child1; sl[1] = t->nodes[a].child2;
            sl[2] = t->nodes[b].child1; sl[3] = t->nodes[b].child2;
            ns = 4;
        } else if (ia || ib) {  /* one inner child x: its children, the larger inner one opened too */
            int x = ia ? a : b, x1 = t->nodes[x].child1, x2 = t->nodes[x].child2, o = -1, q[3];
            int i1 = t->nodes[x1].child1 != CL_NULLNODE, i2 = t->nodes[x2].child1 != CL_NULLNODE;
            if (i1 && i2) o = fb_area(&t->nodes[x1].box) >= fb_area(&t->nodes[x2].box) ? x1 : x2;
            else if (i1) o = x1;
            else if (i2) o = x2;
            ns = 0;
            q[0] = ia ? x1 : a; q[1] = ia ? x2 : x1; q[2] = ia ? b : x2;
            for (j = 0; j < 3; j++) {
                if (q[j] == o) {
                    sl[ns++] = t->nodes[o].child1;
                    sl[ns++] = t->nodes[o].child2;
                } else {
                    sl[ns++] = q[j];
                }
            }
        } else {
            sl[0] = a; sl[1] = b;
        }
        for (j = 0; j < ns; j++) {
            const cl_tnode *c = &t->nodes[sl[j]];
            qn->b[0][j] = c->box.lo[0]; qn->b[1][j] = c->box.lo[1]; qn->b[2][j] = c->box.lo[2];
            qn->b[3][j] = c->box.hi[0]; qn->b[4][j] = c->box.hi[1]; qn->b[5][j] = c->box.hi[2];
            qn->child[j] = c->child1 == CL_NULLNODE ? ~c->child2 : 0;
            qn->pad[j] = 0;
            w->qslot[sl[j]] = 4 * me + j;
        }
        for (; j < 4; j++) {
            qn->b[0][j] = qn->b[1][j] = qn->b[2][j] = qn->b[3][j] = qn->b[4][j] = qn->b[5][j] = (float)NAN;
            qn->child[j] = 0;
            qn->pad[j] = 0;
        }
        for (j = ns - 1; j >= 0; j--)       /* the first inner slot is built next */
            if (qn->child[j] >= 0 && !SPUSH(t, &st, sl[j], 4.0 * me + j)) {
                cl_stack_free(t, &st);
                return CL_ENOMEM;
            }
    }
    cl_stack_free(t, &st);
    w->qnver = w->tver;
    return CL_OK;
}

/* As snap_ready for the box-query snapshot (the count of traversals is shared). */
static int qsnap_ready(cl_world *w) {
    if (w->tree.leaves < 2) return 0;
    if (w->qn && w->qnver == w->tver) return 1;
    return snap_due(w) && qsnap_build(w) == CL_OK;
}

/* 1 if the box-query snapshot is valid now, building it at once if needed (for a batch of
 * traversals known to be large, unlike qsnap_ready's amortised build); 0 to walk the tree. */
static int qsnap_now(cl_world *w) {
    if (w->tree.leaves < 2) return 0;
    if (w->qn && w->qnver == w->tver) return 1;
    return qsnap_build(w) == CL_OK;
}

/* Closest hit over the snapshot: as cl_world_raycast's tree walk, both children of a node
 * tested from its one cache line, leaf children tested at once. Inlined twice (fast: every
 * direction component uses mode 1, ray_fbox_fast; else ray_fbox), so the hot loop carries no
 * per-box mode test and the slab tests are inlined. */
WINLINE int snap_walk(cl_world *w, const cl_ray *r, const rayq *q, rbest *b, cl_whit *out,
                      const int fast) {
    cl_stack st;
    const cl_wnode *wn = w->wn;
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
            const cl_wnode *n = &wn[i];
            double t1 = 0, t2 = 0, bt = b->t;
            int c1 = n->child[0], c2 = n->child[1];
            int h1, h2;
            /* the snapshot outgrows the caches in big worlds: fetch both children while the
             * slab tests run (the nearer one is visited next, the other often later) */
            WPREFETCH(c1 >= 0 ? (const void *)&wn[c1] : (const void *)&items[~c1]);
            WPREFETCH(c2 >= 0 ? (const void *)&wn[c2] : (const void *)&items[~c2]);
            h1 = fast ? ray_fbox_fast(q, &n->box[0], bt, &t1) : ray_fbox(q, &n->box[0], bt, &t1);
            h2 = fast ? ray_fbox_fast(q, &n->box[1], bt, &t2) : ray_fbox(q, &n->box[1], bt, &t2);
            if (h1 && c1 < 0) {
                if (!items[~c1].dirty) ray_item(w, ~c1, r, b, out);
                h1 = 0;
            }
            if (h2 && c2 < 0) {
                if (t2 <= b->t && !items[~c2].dirty) ray_item(w, ~c2, r, b, out);
                h2 = 0;
            }
            if (h1 && t1 > b->t) h1 = 0;
            if (h2 && t2 > b->t) h2 = 0;
            if (h1 && h2) {
                if (t2 < t1) { int x = c1; double y = t1; c1 = c2; c2 = x; t1 = t2; t2 = y; }
                if (!SPUSH(&w->tree, &st, c2, t2)) { cl_stack_free(&w->tree, &st); return CL_ENOMEM; }
                i = c1;
            } else if (h1) {
                i = c1;
            } else if (h2) {
                i = c2;
            } else {
                break;
            }
        }
    }
    cl_stack_free(&w->tree, &st);
    return b->found;
}

static int raycast_snap(cl_world *w, const cl_ray *r, const rayq *q, rbest *b, cl_whit *out) {
    return q->fast ? snap_walk(w, r, q, b, out, 1) : snap_walk(w, r, q, b, out, 0);
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
    if (snap_ready(w)) return raycast_snap(w, r, &q, &b, out);
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
                if (h1 && h2) {
                    if (t2 < t1) { int x = c1; c1 = c2; c2 = x; te = t1; t1 = t2; t2 = te; }
                    if (!SPUSH(t, &st, c2, t2)) goto nomem;
                    i = c1;
                } else if (h1) {
                    i = c1;
                } else if (h2) {
                    i = c2;
                } else {
                    break;
                }
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
    int n = 0;
    w->nhits = 0;
    flush_tree(w);
    tree_maint(w);
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
            if (!cl_shape_raycast(&w->items[nd->child2].shape, r, maxt, &h)) continue;
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
    sort_elems(w->hits, n, sizeof(cl_whit), less_hit, w);
    w->nhits = n;
    return n;
}

/* ---- pairs: persistent candidate pairs ---- */

/* Returns the home slot of pair (a, b) in a hash of mask + 1 slots. */
static unsigned phash(int a, int b, unsigned mask) {
    unsigned h = (unsigned)a * 0x9E3779B1u ^ ((unsigned)b * 0x85EBCA77u + 0x165667B1u);
    h ^= h >> 15;
    return h & mask;
}

/* Returns the hash slot holding pair (a, b), or the empty slot where it would go. */
static int ph_find(const cl_world *w, int a, int b) {
    unsigned mask = (unsigned)w->phcap - 1, h = phash(a, b, mask);
    for (;;) {
        int k = w->ph[h];
        if (k < 0 || (w->cp[k].a == a && w->cp[k].b == b)) return (int)h;
        h = (h + 1) & mask;
    }
}

/* Empties hash slot h, shifting later entries of its probe run back (linear probing). */
static void ph_erase(cl_world *w, unsigned h) {
    unsigned mask = (unsigned)w->phcap - 1, j = h;
    for (;;) {
        int k;
        unsigned home;
        j = (j + 1) & mask;
        k = w->ph[j];
        if (k < 0) break;
        home = phash(w->cp[k].a, w->cp[k].b, mask);
        /* entry k may fill slot h unless its home lies cyclically in (h, j] */
        if ((j > h && (home <= h || home > j)) || (j < h && home <= h && home > j)) {
            w->ph[h] = k;
            h = j;
        }
    }
    w->ph[h] = -1;
}

/* Rebuilds the hash with room for need pairs at load <= 1/2; CL_OK or CL_ENOMEM (unchanged). */
static int ph_rehash(cl_world *w, int need) {
    int cap = 64, i;
    int *np;
    while (cap < 2 * need) {
        if (cap > (1 << 28)) return CL_ENOMEM;
        cap *= 2;
    }
    if (cap <= w->phcap) return CL_OK;
    np = (int *)w->alloc(w->ud, NULL, 0, (size_t)cap * sizeof(int));
    if (!np) return CL_ENOMEM;
    free_buf(w, w->ph, w->phcap, sizeof(int));
    w->ph = np;
    w->phcap = cap;
    for (i = 0; i < cap; i++) np[i] = -1;
    for (i = 0; i < w->ncp; i++) w->ph[ph_find(w, w->cp[i].a, w->cp[i].b)] = i;
    return CL_OK;
}

/* Drops candidate pair k (moves the last pair into its place). */
static void cp_drop(cl_world *w, int k) {
    int last = --w->ncp;
    ph_erase(w, (unsigned)ph_find(w, w->cp[k].a, w->cp[k].b));
    if (k != last) {
        w->cp[k] = w->cp[last];
        w->ph[ph_find(w, w->cp[k].a, w->cp[k].b)] = k;
    }
}

/* Adds candidate pair (x, y) unless present; CL_OK or CL_ENOMEM (set unchanged). */
static int cp_add(cl_world *w, int x, int y) {
    int a = x < y ? x : y, b = x < y ? y : x, h;
    if (2 * (w->ncp + 1) > w->phcap && ph_rehash(w, w->ncp + 1) != CL_OK) return CL_ENOMEM;
    h = ph_find(w, a, b);
    if (w->ph[h] >= 0) return CL_OK;
    ENSURE(w->cp, w->cpcap, w->ncp + 1);
    w->cp[w->ncp].a = a;
    w->cp[w->ncp].b = b;
    w->cp[w->ncp].ga = w->items[a].gen;
    w->cp[w->ncp].gb = w->items[b].gen;
    w->ph[h] = w->ncp++;
    return CL_OK;
}

/* Adds a candidate pair for every item whose fat box overlaps the fat box of m; CL_OK or
 * CL_ENOMEM. */
static int cp_query(cl_world *w, int m, int snap) {
    int n = snap ? collect_snap(w, &w->items[m].fat) : collect_fbox(w, &w->items[m].fat), i;
    if (n < 0) return n;
    for (i = 0; i < n; i++)
        if (w->tmp[i] != m && cp_add(w, m, w->tmp[i]) != CL_OK) return CL_ENOMEM;
    return CL_OK;
}

/* Brings the candidate set up to date: drops pairs of removed items, adds the pairs of every
 * item whose fat box changed (or of all items when the cache is invalid). On failure the
 * cache is marked invalid (rebuilt by the next call) and CL_ENOMEM returned. */
static int cp_refresh(cl_world *w) {
    int i, id, snap;
    flush_tree(w);
    tree_maint(w);
    if (w->pfull) {
        w->ncp = 0;
        for (i = 0; i < w->phcap; i++) w->ph[i] = -1;
        while (w->mhead >= 0) {         /* everything is queried below */
            w->items[w->mhead].mon = 0;
            w->mhead = w->items[w->mhead].mnext;
        }
        w->ppurge = 0;
        snap = qsnap_now(w);
        for (id = w->head; id >= 0; id = w->items[id].next)
            if (cp_query(w, id, snap) != CL_OK) return CL_ENOMEM;
        w->pfull = 0;
        return CL_OK;
    }
    if (w->ppurge) {
        for (i = 0; i < w->ncp;) {
            const cl_cpair *c = &w->cp[i];
            if (w->items[c->a].proxy == CL_NULLNODE || w->items[c->a].gen != c->ga ||
                w->items[c->b].proxy == CL_NULLNODE || w->items[c->b].gen != c->gb)
                cp_drop(w, i);
            else
                i++;
        }
        w->ppurge = 0;
    }
    /* many queries against the same tree: walk the box-query snapshot (built once, O(n), kept
     * for the queries that follow while the tree does not change) */
    for (i = 0, id = w->mhead; id >= 0 && i <= w->tree.leaves / 32 + 16; id = w->items[id].mnext) i++;
    snap = w->tree.leaves >= 2 && w->qn != NULL && w->qnver == w->tver;    /* kept up by flush_tree */
    if (!snap) snap = id >= 0 && qsnap_now(w);
    while (w->mhead >= 0) {
        cl_item *it = &w->items[w->mhead];
        id = w->mhead;
        w->mhead = it->mnext;
        it->mon = 0;
        if (it->proxy != CL_NULLNODE && cp_query(w, id, snap) != CL_OK) {
            w->pfull = 1;
            return CL_ENOMEM;
        }
    }
    return CL_OK;
}

/* Returns 1 if pair x comes before pair y: by add order of a, then of b. */
static int pair_less(const cl_wpair *x, const cl_wpair *y) {
    return x->sa < y->sa || (x->sa == y->sa && x->sb < y->sb);
}

/* Sifts pair r down the max-heap a[0..n-1]. */
static void pair_sift(cl_wpair *a, int r, int n) {
    for (;;) {
        int c = 2 * r + 1;
        cl_wpair x;
        if (c >= n) return;
        if (c + 1 < n && pair_less(&a[c], &a[c + 1])) c++;
        if (!pair_less(&a[r], &a[c])) return;
        x = a[r]; a[r] = a[c]; a[c] = x;
        r = c;
    }
}

/* Heap-sorts the pairs by (order a, order b); the keys are unique. */
static void pair_sort(cl_wpair *a, int n) {
    int i;
    for (i = n / 2 - 1; i >= 0; i--) pair_sift(a, i, n);
    for (i = n - 1; i > 0; i--) {
        cl_wpair x = a[0];
        a[0] = a[i];
        a[i] = x;
        pair_sift(a, 0, i);
    }
}

/* Sorts a[0..n-1] by key (unique keys below 2^bits) with an LSD radix sort of 11-bit digits,
 * tmp holding n scratch elements; digits equal in every key are skipped. Returns the buffer
 * (a or tmp) that holds the sorted elements. */
static cl_kpair *kpair_sort(cl_kpair *a, cl_kpair *tmp, int n, int bits) {
    /* as few passes as 11-bit digits need, the bits spread evenly over them (28 bits: three
     * digits of 10 bits rather than 11, 11 and 6: half the counters to clear and sum) */
    int npass = (bits + 10) / 11, width = npass > 0 ? (bits + npass - 1) / npass : 1;
    int nb = 1 << width, shift, i;
    unsigned long long mask = (unsigned long long)nb - 1;
    if (n < 2) return a;
    for (shift = 0; shift < bits; shift += width) {
        int cnt[2048], sum = 0;
        cl_kpair *x;
        for (i = 0; i < nb; i++) cnt[i] = 0;
        for (i = 0; i < n; i++) cnt[(a[i].key >> shift) & mask]++;
        if (cnt[(a[0].key >> shift) & mask] == n) continue;
        for (i = 0; i < nb; i++) { int c = cnt[i]; cnt[i] = sum; sum += c; }
        for (i = 0; i < n; i++) tmp[cnt[(a[i].key >> shift) & mask]++] = a[i];
        x = a; a = tmp; tmp = x;
    }
    return a;
}

/* Pairs (Box2D's scheme): a persistent set of candidate pairs whose fat tree boxes overlap,
 * updated only for items whose fat box changed; each call drops the candidates whose fat
 * boxes no longer overlap, runs the exact narrowphase on the rest and sorts the pairs by
 * (order a, order b): by an LSD radix sort of the two orders packed into one integer while
 * every order fits 31 bits (always, short of 2^31 adds), else by a heap sort. Every
 * overlapping pair is a candidate: shapes lie inside their fat boxes, and two fat boxes can
 * only start to overlap when one of them changes, which queues its item for a tree query. */
int cl_world_pairs(cl_world *w) {
    int i, np = 0, bits = 0, keyed;
    w->nres = 0;
    if (cp_refresh(w) != CL_OK) return CL_ENOMEM;
    /* narrowphase: the overlapping candidates, each as (earlier added, later added), into res,
     * or straight into kp with their sorting key while the items are at hand (radix sort) */
    while (bits < 32 && (double)(1UL << bits) <= w->nextseq) bits++;
    keyed = bits < 32;
    ENSURE(w->res, w->rescap, w->ncp > 0 ? 2 * w->ncp : 1);
    if (keyed) ENSURE(w->kp, w->kpcap, w->ncp > 0 ? 2 * w->ncp : 1);
    for (i = 0; i < w->ncp;) {
        const cl_cpair *c = &w->cp[i];
        const cl_item *x = &w->items[c->a], *y = &w->items[c->b];
        if (!fboxes_overlap(&x->fat, &y->fat)) {
            cp_drop(w, i);
            continue;
        }
        i++;
        /* two AABBs (the usual case) tested inline, as cl_aabb_overlaps_aabb */
        if (x->shape.kind == CL_AABB && y->shape.kind == CL_AABB
                ? (x->shape.u.aabb.min.x <= y->shape.u.aabb.max.x) & (y->shape.u.aabb.min.x <= x->shape.u.aabb.max.x) &
                  (x->shape.u.aabb.min.y <= y->shape.u.aabb.max.y) & (y->shape.u.aabb.min.y <= x->shape.u.aabb.max.y) &
                  (x->shape.u.aabb.min.z <= y->shape.u.aabb.max.z) & (y->shape.u.aabb.min.z <= x->shape.u.aabb.max.z)
                : cl_shape_overlaps(&x->shape, &y->shape)) {
            int first = x->seq < y->seq;
            if (keyed) {
                cl_kpair *pp = &w->kp[np];
                pp->a = first ? c->a : c->b;
                pp->b = first ? c->b : c->a;
                pp->key = first ? (unsigned long long)x->seq << bits | (unsigned long long)y->seq
                                : (unsigned long long)y->seq << bits | (unsigned long long)x->seq;
            } else {
                w->res[2 * np] = first ? c->a : c->b;
                w->res[2 * np + 1] = first ? c->b : c->a;
            }
            np++;
        }
    }
    /* order by (add order of a, add order of b): a radix sort of the two orders packed into one
     * integer key while every order is below 2^31, else a heap sort (keys are unique) */
    if (keyed) {
        cl_kpair *src;
        /* the second half of kp (scratch) starts at np: kp holds 2 * ncp >= 2 * np entries */
        src = kpair_sort(w->kp, w->kp + np, np, 2 * bits);
        for (i = 0; i < np; i++) {
            w->res[2 * i] = src[i].a;
            w->res[2 * i + 1] = src[i].b;
        }
        w->nres = 2 * np;
        return np;
    }
    ENSURE(w->pr, w->prcap, np > 0 ? np : 1);
    for (i = 0; i < np; i++) {
        cl_wpair *pp = &w->pr[i];
        pp->a = w->res[2 * i];
        pp->b = w->res[2 * i + 1];
        pp->sa = w->items[pp->a].seq;
        pp->sb = w->items[pp->b].seq;
    }
    pair_sort(w->pr, np);
    for (i = 0; i < np; i++) {
        w->res[2 * i] = w->pr[i].a;
        w->res[2 * i + 1] = w->pr[i].b;
    }
    w->nres = 2 * np;
    return np;
}

/* ---- sweeps (cl_world_sweep, move) ---- */

/* One axis of sweep_boxes: the same interval and updates as sweep.c's axis_interval and
 * sweep_aabb loop body (a resting axis gives (-inf, inf), which changes neither lo, hi nor best,
 * so it only decides separation); 0 when the axis separates the boxes for every t. */
WINLINE int box_axis(double a0, double a1, double b0, double b1, double v, int i, double *lo,
                     double *hi, int *best) {
    double l, h;
    if (v == 0) return (a0 < b1 && a1 > b0) || (a0 == a1 && b0 == b1 && a0 == b0);
    if (v > 0) { l = (b0 - a1) / v; h = (b1 - a0) / v; }
    else { l = (b1 - a0) / v; h = (b0 - a1) / v; }
    if (l > *lo) { *lo = l; *best = i; }
    if (h < *hi) *hi = h;
    return 1;
}

/* cl_sweep_shapes for two AABBs, inline (the world's usual case, most candidates separated):
 * the very operations of sweep.c's sweep_aabb and finish, so the result is bit-identical
 * (checked against cl_sweep_shapes on 20 million random pairs, touching, flat and resting axes
 * included); written out here to save the call, the shape dispatch and the struct copies, which
 * cost more than the arithmetic. sweep.c's sweep_aabb must change with it. */
WINLINE void sweep_boxes(const cl_aabb *a, cl_vec3 d, const cl_aabb *b, cl_sweep *s) {
    double lo = -HUGE_VAL, hi = HUGE_VAL;
    int best = -1;
    if (!box_axis(a->min.x, a->max.x, b->min.x, b->max.x, d.x, 0, &lo, &hi, &best) ||
        !box_axis(a->min.y, a->max.y, b->min.y, b->max.y, d.y, 1, &lo, &hi, &best) ||
        !box_axis(a->min.z, a->max.z, b->min.z, b->max.z, d.z, 2, &lo, &hi, &best)) {
        lo = 1;
        hi = 0;
    }
    if (lo < 0 && hi > 0) {
        s->state = CL_TOI_OVERLAPPED; s->t = 0; s->n = cl_v3(0, 0, 0);
    } else if (lo < hi && lo >= 0 && lo < 1) {
        double sg = (best == 0 ? d.x : best == 1 ? d.y : d.z) > 0 ? -1.0 : 1.0;
        s->state = CL_TOI_TOUCHING;
        s->t = lo == 0 ? 0.0 : lo;
        /* best >= 0 here: lo >= 0 > -inf was set by a moving axis */
        s->n = cl_v3(best == 0 ? sg : 0, best == 1 ? sg : 0, best == 2 ? sg : 0);
    } else {
        s->state = CL_TOI_SEPARATED; s->t = 1; s->n = cl_v3(0, 0, 0);
    }
}

/* cl_sweep_shapes(a, d, b), with two AABBs inline. */
WINLINE void sweep_pair(const cl_shape *a, cl_vec3 d, const cl_shape *b, cl_sweep *s) {
    if (a->kind == CL_AABB && b->kind == CL_AABB) sweep_boxes(&a->u.aabb, d, &b->u.aabb, s);
    else *s = cl_sweep_shapes(a, d, b);
}

/* cl_interiors_overlap(a, b) (the sweep by 0 overlapped), with two AABBs inline: every axis a
 * resting one of sweep_aabb, all of them passing gives (-inf, inf), i.e. OVERLAPPED. */
WINLINE int interiors_overlap(const cl_shape *a, const cl_shape *b) {
    if (a->kind == CL_AABB && b->kind == CL_AABB) {
        const cl_aabb *x = &a->u.aabb, *y = &b->u.aabb;
        return ((x->min.x < y->max.x && x->max.x > y->min.x) ||
                (x->min.x == x->max.x && y->min.x == y->max.x && x->min.x == y->min.x)) &&
               ((x->min.y < y->max.y && x->max.y > y->min.y) ||
                (x->min.y == x->max.y && y->min.y == y->max.y && x->min.y == y->min.y)) &&
               ((x->min.z < y->max.z && x->max.z > y->min.z) ||
                (x->min.z == x->max.z && y->min.z == y->max.z && x->min.z == y->min.z));
    }
    return cl_interiors_overlap(a, b);
}

/* Returns the box enclosing shape s at its place and moved by d, widened for rounding (inline:
 * once or twice per move, the call and the struct copies cost about a third of it). */
WINLINE cl_aabb swept_box(const cl_shape *s, cl_vec3 d) {
    cl_aabb b, e;
    if (s->kind == CL_AABB) {
        /* the usual mover, inline: the same sums, cl_aabb_merge's comparisons and allowance
         * (an AABB has no OBB part) */
        const cl_aabb *a = &s->u.aabb;
        double v;
        v = a->min.x + d.x; b.min.x = a->min.x < v ? a->min.x : v;
        v = a->min.y + d.y; b.min.y = a->min.y < v ? a->min.y : v;
        v = a->min.z + d.z; b.min.z = a->min.z < v ? a->min.z : v;
        v = a->max.x + d.x; b.max.x = a->max.x > v ? a->max.x : v;
        v = a->max.y + d.y; b.max.y = a->max.y > v ? a->max.y : v;
        v = a->max.z + d.z; b.max.z = a->max.z > v ? a->max.z : v;
        v = box_tol(&b);                    /* widen(&b, 0, shape_tol(NULL, &b)) in place: 0 + v is v */
        b.min.x -= v; b.min.y -= v; b.min.z -= v;
        b.max.x += v; b.max.y += v; b.max.z += v;
        return b;
    }
    b = cl_shape_aabb(s);
    e = b;
    e.min.x += d.x; e.min.y += d.y; e.min.z += d.z;
    e.max.x += d.x; e.max.y += d.y; e.max.z += d.z;
    b = cl_aabb_merge(&b, &e);
    return widen(&b, 0, shape_tol(s, &b));
}

int cl_world_sweep(cl_world *w, const cl_shape *s, cl_vec3 d, int skip, double aftert,
                   double afterseq, cl_whit *out) {
    cl_aabb q = swept_box(s, d);
    int n = collect_box(w, &q, skip), i, found = 0;
    double bt = 0, bseq = 0;
    if (n < 0) return n;
    for (i = 0; i < n; i++) {
        int id = w->tmp[i];
        const cl_item *it = &w->items[id];
        cl_sweep sw;
        if (id == skip) continue;
        sweep_pair(s, d, &it->shape, &sw);
        if (sw.state == CL_TOI_SEPARATED) continue;
        if (sw.t < aftert || (sw.t == aftert && it->seq <= afterseq)) continue;
        if (found && (sw.t > bt || (sw.t == bt && it->seq > bseq))) continue;
        found = 1;
        bt = sw.t;
        bseq = it->seq;
        out->item = id;
        out->t = sw.t;
        out->n = sw.n;
    }
    return found;
}

/* ---- move ---- */

#define MC_IGNORED 1
#define MC_CROSSED 2

/* 1 if other was crossed earlier in this move. */
static int was_crossed(const cl_world *w, int other) {
    int i;
    for (i = 0; i < w->ncols; i++)
        if (w->cols[i].other == other && w->cols[i].type == CL_RESP_CROSS) return 1;
    return 0;
}

/* Appends a collision; CL_OK or CL_ENOMEM. */
static int push_col(cl_world *w, int other, cl_resp type, double t, cl_vec3 n) {
    cl_col *c;
    ENSURE(w->cols, w->colcap, w->ncols + 1);
    c = &w->cols[w->ncols++];
    c->other = other;
    c->type = type;
    c->t = t;
    c->n = n;
    return CL_OK;
}

/* Returns s translated by d. */
static cl_shape moved(const cl_shape *s, cl_vec3 d) {
    cl_shape r = *s;
    cl_shape_translate(&r, d);
    return r;
}

/* Returns the coordinate i of v. */
static double vget(cl_vec3 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : v.z; }
/* Sets the coordinate i of v. */
static void vset(cl_vec3 *v, int i, double x) {
    if (i == 0) v->x = x; else if (i == 1) v->y = x; else v->z = x;
}

/* Moves box nb (the mover after a leg from cb along rem) on axis i so that its face lies on
 * face coordinate f of an obstacle: max side when rem_i > 0, min side otherwise. */
static void snap_face(cl_aabb *nb, int i, double rem_i, double f) {
    double lo = vget(nb->min, i), hi = vget(nb->max, i);
    if (rem_i > 0) {
        lo += f - hi; hi = f;
        if (lo > hi) lo = hi;
    } else {
        hi += f - lo; lo = f;
        if (hi < lo) hi = lo;
    }
    vset(&nb->min, i, lo);
    vset(&nb->max, i, hi);
}

/* Pushes AABB nb (mover moved from cb along rem) out of AABB c on the axis it entered last;
 * returns 0 if no axis qualifies. */
static int snap_out(cl_aabb *nb, const cl_aabb *cb, cl_vec3 rem, const cl_aabb *c) {
    int i, best = -1;
    double beste = -HUGE_VAL;
    for (i = 0; i < 3; i++) {
        double v = vget(rem, i), e;
        if (v > 0 && vget(cb->max, i) <= vget(c->min, i)) e = (vget(c->min, i) - vget(cb->max, i)) / v;
        else if (v < 0 && vget(cb->min, i) >= vget(c->max, i)) e = (vget(c->max, i) - vget(cb->min, i)) / v;
        else continue;
        if (e > beste) { beste = e; best = i; }
    }
    if (best < 0) return 0;
    snap_face(nb, best, vget(rem, best), vget(rem, best) > 0 ? vget(c->min, best) : vget(c->max, best));
    return 1;
}

/* Returns the largest |coordinate| of the shape's box, plus 1. */
static double shape_scale(const cl_shape *s) {
    cl_aabb b = cl_shape_aabb(s);
    double m = 1, v[6];
    int i;
    v[0] = b.min.x; v[1] = b.min.y; v[2] = b.min.z; v[3] = b.max.x; v[4] = b.max.y; v[5] = b.max.z;
    for (i = 0; i < 6; i++) if (fabs(v[i]) + 1 > m) m = fabs(v[i]) + 1;
    return m;
}

/* One candidate m of a leg_end pass over next: 0 when it is skipped (overlapped at the leg's
 * start, ignored, crossed), clear of next, or an AABB pair next was pushed out of (*changed
 * set); 1 when next stays inside it. */
WINLINE int end_cand(const cl_world *w, const cl_mcand *m, const cl_shape *cur, cl_vec3 rem,
                     cl_shape *next, int *changed) {
    const cl_shape *o = &w->items[m->item].shape;
    if (m->s.state == CL_TOI_OVERLAPPED || (m->flags & (MC_IGNORED | MC_CROSSED))) return 0;
    if (!interiors_overlap(next, o)) return 0;
    if (next->kind == CL_AABB && o->kind == CL_AABB &&
        snap_out(&next->u.aabb, &cur->u.aabb, rem, &o->u.aabb) && !interiors_overlap(next, o)) {
        *changed = 1;
        return 0;
    }
    return 1;
}

/* Orders move candidates by add order. */
static int less_mcseq(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    return w->items[((const cl_mcand *)a)->item].seq < w->items[((const cl_mcand *)b)->item].seq;
}

/* 1 when next is clear of every candidate end_cand does not skip (tested in any order: with
 * none inside, a pass changes nothing whatever its order). */
static int end_clear(const cl_world *w, const cl_shape *next, int nt, int base, int k) {
    int i;
    for (i = 0; i < nt; i++) {
        const cl_mcand *m = &w->mc[i];
        if (m->s.state == CL_TOI_OVERLAPPED || (m->flags & (MC_IGNORED | MC_CROSSED))) continue;
        if (interiors_overlap(next, &w->items[m->item].shape)) return 0;
    }
    for (i = base; i < base + k; i++) {
        const cl_mcand *m = &w->mc[i];
        if (m->s.state != CL_TOI_SEPARATED) continue;   /* touching: above; overlapped: skipped */
        if (interiors_overlap(next, &w->items[m->item].shape)) return 0;
    }
    return 1;
}

/* Sets *next (not cur; for an AABB mover a shape whose other bytes are already cur's, see
 * cl_world_move) to where the mover cur ends a leg along rem that stops at t (blocking candidate
 * blk or -1), never leaving its interior inside a candidate it has not ignored or crossed: AABB
 * pairs are snapped face to face; other contacts keep a tiny gap along the normal and back off.
 * The candidates are visited in the order the responses were asked (w->mc[0..nt): the touching
 * ones by t, ties by add order), then the others (the non-touching ones of w->mc[base..base+k),
 * which cl_world_move leaves in query order: they are sorted by add order here, only when next
 * meets one of them, the only case where the order can matter: snap_out changes next). */
static void leg_end(cl_world *w, const cl_shape *cur, cl_vec3 rem, double t, int blk, int nt,
                    int base, int k, cl_shape *next) {
    double tt = t, delta = 0;
    double gap = 0;
    cl_vec3 n = cl_v3(0, 0, 0);
    int iter, i, pass, sorted = 0;
    if (blk >= 0) {
        const cl_shape *o = &w->items[w->mc[blk].item].shape;
        n = w->mc[blk].s.n;
        if (!(cur->kind == CL_AABB && o->kind == CL_AABB)) gap = ldexp(shape_scale(cur), -40);
    }
    for (iter = 0; iter < 80; iter++) {
        int bad = 0;
        cl_vec3 dd;
        if (tt <= 0) break;                   /* the leg's start is clear of every candidate */
        dd = tt == 1 ? rem : cl_v3(tt * rem.x, tt * rem.y, tt * rem.z);
        if (gap > 0) { dd.x += gap * n.x; dd.y += gap * n.y; dd.z += gap * n.z; }
        if (cur->kind == CL_AABB) {         /* moved(), writing only what an AABB uses */
            const cl_aabb *c = &cur->u.aabb;    /* the sums of cl_shape_translate */
            next->kind = CL_AABB;
            next->u.aabb.min = cl_v3(c->min.x + dd.x, c->min.y + dd.y, c->min.z + dd.z);
            next->u.aabb.max = cl_v3(c->max.x + dd.x, c->max.y + dd.y, c->max.z + dd.z);
        } else {
            *next = moved(cur, dd);
        }
        if (blk >= 0 && tt == t && gap == 0) {
            /* AABB on AABB: put the face exactly on the obstacle's face */
            const cl_aabb *c = &w->items[w->mc[blk].item].shape.u.aabb;
            int a = n.x != 0 ? 0 : n.y != 0 ? 1 : 2;
            double f = vget(n, a) > 0 ? vget(c->max, a) : vget(c->min, a);
            snap_face(&next->u.aabb, a, -vget(n, a), f);
        }
        if (end_clear(w, next, nt, base, k)) return;   /* what the first pass would find */
        if (!sorted) {                      /* by add order (unique keys: any sort agrees) */
            sort_elems(&w->mc[base], k, sizeof(cl_mcand), less_mcseq, w);
            sorted = 1;
        }
        for (pass = 0; pass < 3; pass++) {
            int changed = 0;
            bad = 0;
            for (i = 0; i < nt && !bad; i++) bad = end_cand(w, &w->mc[i], cur, rem, next, &changed);
            for (i = base; i < base + k && !bad; i++)
                if (w->mc[i].s.state != CL_TOI_TOUCHING)
                    bad = end_cand(w, &w->mc[i], cur, rem, next, &changed);
            if (bad || !changed) break;
        }
        if (!bad) return;
        if (delta == 0) delta = ldexp(tt, -50) + 1e-300;
        tt -= delta;
        delta *= 4;
    }
    *next = *cur;
}

/* cl_vfinite(v) without branches: x - x is +0 for finite x, NaN otherwise, so the sum is 0
 * exactly when every component is finite. */
WINLINE int vfin(cl_vec3 v) {
    return (v.x - v.x) + (v.y - v.y) + (v.z - v.z) == 0;
}

/* Returns the reference point of a shape (AABB min corner, else centre). */
static cl_vec3 ref_point(const cl_shape *s) {
    return s->kind == CL_AABB ? s->u.aabb.min : s->kind == CL_OBB ? s->u.obb.c : s->u.sphere.c;
}

/* 1 if the placed shape s (a moved copy of a valid shape) is finite: its position (and an
 * AABB's other corner); sizes and axes never change in a move. */
static int placed_finite(const cl_shape *s) {
    return vfin(ref_point(s)) && (s->kind != CL_AABB || vfin(s->u.aabb.max));
}

/* 0 when item o cannot meet a leg whose swept box is q: the box that encloses its shape with
 * the rounding allowance (its tree leaf, or for a stale leaf that widened tight box, as
 * collect_box tests it) misses q. The same exclusion a query of q makes (collect_box tests
 * stale leaves exactly so), so such items are SEPARATED from the leg's sweep and clear of its
 * end; tested in doubles (no float rounding of q: a leaf exactly at q's rounded-out bound,
 * which a float test would keep, encloses that allowance box, which misses q). */
static int move_near(const cl_world *w, int o, const cl_aabb *q) {
    const cl_item *it = &w->items[o];
    cl_aabb tb;
    if (!it->dirty) {
        const cl_fbox *f = &it->fat;
        return ((double)f->lo[0] <= q->max.x) & ((double)f->hi[0] >= q->min.x) &
               ((double)f->lo[1] <= q->max.y) & ((double)f->hi[1] >= q->min.y) &
               ((double)f->lo[2] <= q->max.z) & ((double)f->hi[2] >= q->min.z);
    }
    tb = widen(&it->box, 0, shape_tol(&it->shape, &it->box));
    return tb.min.x <= q->max.x && tb.max.x >= q->min.x && tb.min.y <= q->max.y &&
           tb.max.y >= q->min.y && tb.min.z <= q->max.z && tb.max.z >= q->min.z;
}

int cl_world_move(cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx, int commit,
                  cl_vec3 *actual) {
    /* the mover before and after each leg: two buffers swapped, not copied */
    cl_shape sh[2], *cur = &sh[0], *nxt = &sh[1];
    cl_vec3 rem = d, p0, p1;
    cl_aabb qb = w->items[id].box;      /* set by the first query (nq < 0 until then) */
    int leg, nq = -1, ncross = 0;      /* ncross: candidates crossed so far (was_crossed) */
    w->ncols = 0;
    sh[0] = sh[1] = w->items[id].shape;
    for (leg = 0; leg < MAX_LEGS; leg++) {
        cl_aabb q;
        int n, i, j, k = 0, nt = 0, blk = -1, reuse = 0;
        cl_resp resp = CL_RESP_SLIDE;
        double tb = 1;
        if (rem.x == 0 && rem.y == 0 && rem.z == 0) break;
        q = swept_box(cur, rem);
        if (nq >= 0 && aabb_inside(&q, &qb)) {
            /* reused candidates (query order kept) are narrowed to those that can meet this
             * leg (move_near): the others are not swept again */
            reuse = 1;
        } else {
            /* a leg whose swept box lies inside the last query's box (a slide along an axis
             * normal: the usual case) reuses its candidates, kept in w->mq in query order (a
             * filter may run queries of its own, which reuse w->tmp: the buffers are swapped,
             * not copied). The add order is not needed here: the touching candidates are
             * ordered below by t and add order, and leg_end sorts the others only when the
             * order can matter. */
            int *tq, tcap;
            n = collect_box(w, &q, id);
            if (n < 0) return n;
            tq = w->tmp; w->tmp = w->mq; w->mq = tq;
            tcap = w->tmpcap; w->tmpcap = w->mqcap; w->mqcap = tcap;
            nq = n;
            qb = q;
        }
        ENSURE(w->mc, w->mccap, 2 * nq);
        /* sweeps into the upper half (query order); each touching candidate is also copied
         * into the lower half, kept sorted by t, ties by add order: the order of the responses */
        for (i = 0; i < nq; i++) {
            int o = w->mq[i];
            cl_mcand *m;
            if (o == id || (reuse && !move_near(w, o, &q)) || (ncross > 0 && was_crossed(w, o)))
                continue;
            m = &w->mc[nq + k++];
            m->item = o;
            m->flags = 0;
            sweep_pair(cur, rem, &w->items[o].shape, &m->s);
            if (m->s.state == CL_TOI_TOUCHING) {
                double st = m->s.t, sq = w->items[o].seq;
                for (j = nt++; j > 0 && (st < w->mc[j - 1].s.t ||
                                         (st == w->mc[j - 1].s.t && sq < w->items[w->mc[j - 1].item].seq));
                     j--)
                    w->mc[j] = w->mc[j - 1];
                w->mc[j] = *m;
            }
        }
        w->nmc = k;
        for (i = 0; i < nt; i++) {
            cl_resp r = respond ? respond(ctx, id, w->mc[i].item) : CL_RESP_SLIDE;
            if (r == CL_RESP_IGNORE) { w->mc[i].flags |= MC_IGNORED; continue; }
            if (r == CL_RESP_CROSS) {
                w->mc[i].flags |= MC_CROSSED;
                if (push_col(w, w->mc[i].item, CL_RESP_CROSS, w->mc[i].s.t, w->mc[i].s.n) != CL_OK)
                    return CL_ENOMEM;
                ncross++;
                continue;
            }
            blk = i;
            resp = r;
            break;
        }
        if (blk >= 0) tb = w->mc[blk].s.t;
        {
            cl_shape *tmp;
            cl_vec3 left = cl_v3(0, 0, 0);
            leg_end(w, cur, rem, tb, blk, nt, nq, k, nxt);
            /* coordinates near DBL_MAX: a leg (or a bounce's reflection below) can overflow;
             * the move then ends where it is, so an item never gets an infinite or NaN shape
             * (found with moves of 1.7e308 from 1e308: inf and NaN end positions) */
            if (!placed_finite(nxt)) break;
            if (blk >= 0) {
                cl_vec3 nn = w->mc[blk].s.n;
                double f = 1 - tb, dn;
                if (push_col(w, w->mc[blk].item, resp, tb, nn) != CL_OK) return CL_ENOMEM;
                left = cl_v3(f * rem.x, f * rem.y, f * rem.z);
                dn = left.x * nn.x + left.y * nn.y + left.z * nn.z;
                if (resp == CL_RESP_SLIDE) {
                    left.x -= dn * nn.x; left.y -= dn * nn.y; left.z -= dn * nn.z;
                    /* an axis normal leaves exactly nothing along that axis */
                    if (nn.x == 1 || nn.x == -1) left.x = 0;
                    if (nn.y == 1 || nn.y == -1) left.y = 0;
                    if (nn.z == 1 || nn.z == -1) left.z = 0;
                } else if (resp == CL_RESP_BOUNCE) {
                    left.x -= 2 * dn * nn.x; left.y -= 2 * dn * nn.y; left.z -= 2 * dn * nn.z;
                } else {
                    left = cl_v3(0, 0, 0);
                }
            }
            tmp = cur; cur = nxt; nxt = tmp;
            rem = vfin(left) ? left : cl_v3(0, 0, 0);
        }
    }
    p0 = ref_point(&w->items[id].shape);
    p1 = ref_point(cur);
    *actual = cl_v3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z);
    w->mend = *cur;
    /* cl_world_update(w, id, cur); an AABB is its own box (cl_shape_aabb) */
    if (commit) update_to(w, id, cur, cur->kind == CL_AABB ? cur->u.aabb : cl_shape_aabb(cur));
    return w->ncols;
}
