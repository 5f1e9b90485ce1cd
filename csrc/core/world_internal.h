/* collide core, the World's internals: the header every csrc/core/world*.c file includes (and
 * only those). It owns the tuning constants, the portability macros of the hot loops, the small
 * helpers several of the World's files call in their hot paths (static inline, so each file
 * inlines them as the single world.c did), and the declarations of the functions one World file
 * calls in another (prefix clw_). Which file owns what:
 *   world.c        items and their lifecycle: init, free, add, remove, update, translate
 *   world_tree.c   tree upkeep: fat boxes and predictive margins, deferred refits, rebuilds,
 *                  and the read-only 4-wide snapshot (box queries and closest raycasts)
 *   world_query.c  traversals: box queries, point queries (and their grid), raycasts
 *   world_pairs.c  the persistent candidate-pair cache and its sorts (cl_world_pairs)
 *   world_move.c   sweeps (cl_world_sweep) and the bump-style move (cl_world_move)
 *   world_resolve.c  push-out of overlaps (cl_world_resolve) */
#ifndef CL_WORLD_INTERNAL_H
#define CL_WORLD_INTERNAL_H
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "vec.h"
#include "world.h"
#include "kinds.h"
#include "mesh.h"

/* always-inlined helpers of the hot loops; WNOINLINE: a function kept out of line (its caller's
 * usual path then does not set up its frame) */
#if defined(__GNUC__) || defined(__clang__)
#define WINLINE static inline __attribute__((always_inline))
#define WNOINLINE static __attribute__((noinline))
#define WPREFETCH(p) __builtin_prefetch(p)
#else
#define WPREFETCH(p) ((void)(p))
#define WINLINE static inline
#define WNOINLINE static
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
#define REBUILD_STEPS 32    /* an incremental rebuild is spread over about this many traversals */
#define REBUILD_COST 1.5    /* a refitted tree this much costlier than after its last rebuild is rebuilt */

/* Returns item it's shape: its stored one, or for an AABB item *tmp set to its box. */
WINLINE const cl_shape *clw_shape(const cl_world *w, const cl_item *it, cl_shape *tmp) {
    if (it->kind != CL_AABB) return &w->xs[it->xs].s;
    tmp->kind = CL_AABB;
    tmp->u.aabb = it->box;
    return tmp;
}

/* The stamp of item it's add order that a cached pair keeps (cl_cpair.ga, gb): the low 32 bits
 * of seq (a positive integer below 2^53), renewed by every add, so a pair made for an earlier
 * item of the slot goes stale (unless 2^32 adds came in between). */
WINLINE unsigned item_gen(const cl_item *it) {
    return (unsigned)(unsigned long long)it->seq;
}

/* Returns a grown copy of p holding at least need elements (doubling), or NULL (p untouched). */
static inline void *grow_buf(cl_world *w, void *p, int *cap, int need, size_t elem) {
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
/* Returns the largest |u_i . u_j - (i == j)| of the axes u[0..2]. */
static inline double axes_defect(const cl_vec3 *u) {
    double e = 0;
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = i; j < 3; j++) {
            double x = fabs(u[i].x * u[j].x + u[i].y * u[j].y + u[i].z * u[j].z - (i == j));
            if (x > e) e = x;
        }
    return e;
}

/* (A placed mesh: its axes' defect times its size as the OBB's, and 2^-40 of its size for the
 * rounding of the change into its frame.) */
static inline double shape_tol(const cl_shape *s, const cl_aabb *b) {
    double m = box_tol(b);
    if (s != NULL && s->kind == CL_OBB) {
        const cl_obb *o = &s->u.obb;
        double e = axes_defect(o->u);
        if (e > 0) m += 8 * e * (o->h.x + o->h.y + o->h.z);
    } else if (s != NULL && s->kind == CL_MESH) {
        double sz = 3 * s->u.mesh.m->maxabs;
        m += 8 * axes_defect(s->u.mesh.u) * sz + ldexp(sz, -40);
    }
    return m;
}

/* shape_tol of item it's shape and box (only an OBB's or a mesh's reads the shape) */
WINLINE double item_tol(const cl_world *w, const cl_item *it) {
    return it->kind == CL_OBB || it->kind == CL_MESH ? shape_tol(&w->xs[it->xs].s, &it->box)
                                                     : box_tol(&it->box);
}

/* Returns x as a float, values beyond the float range as +-FLT_MAX (a plain conversion of them is
 * undefined), NaN as NaN: for bookkeeping that only steers tree upkeep (cl_item.vel). */
static inline float to_float(double x) {
    return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x;
}

/* Stores to_float(x), to_float(y), to_float(z) in f[0..2] (with SSE2: two at a time, min and max
 * in the order that keeps NaN, as to_float's comparisons do: MINPD and MAXPD return their second
 * operand when either is NaN). */
WINLINE void to_float3(float *f, double x, double y, double z) {
#if QSIMD
    const __m128d hi = _mm_set1_pd(FLT_MAX), lo = _mm_set1_pd(-FLT_MAX);
    __m128 v = _mm_cvtpd_ps(_mm_max_pd(lo, _mm_min_pd(hi, _mm_set_pd(y, x))));
    _mm_store_ss(&f[0], v);
    _mm_store_ss(&f[1], _mm_shuffle_ps(v, v, 1));
    f[2] = to_float(z);
#else
    f[0] = to_float(x);
    f[1] = to_float(y);
    f[2] = to_float(z);
#endif
}

/* Returns the box widened by margin plus the rounding allowance tol on every side. */
static inline cl_aabb widen(const cl_aabb *b, double margin, double tol) {
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
static inline void swap_elem(char *a, char *b, size_t sz) {
    char t[64];
    memcpy(t, a, sz);
    memcpy(a, b, sz);
    memcpy(b, t, sz);
}

/* Sifts element r down the max-heap a[0..n-1] of elements of size sz ordered by less. */
static inline void sift_elems(char *a, int r, int n, size_t sz, less_fn less, const void *ctx) {
    for (;;) {
        int c = 2 * r + 1;
        if (c >= n) break;
        if (c + 1 < n && less(ctx, a + c * sz, a + (c + 1) * sz)) c++;
        if (!less(ctx, a + r * sz, a + c * sz)) break;
        swap_elem(a + r * sz, a + c * sz, sz);
        r = c;
    }
}

/* Sorts n elements of size sz ascending by less (insertion sort when short, else heap sort). */
static inline void sort_elems(void *base, int n, size_t sz, less_fn less, const void *ctx) {
    char *a = (char *)base;
    int i, j;
    if (n < 2) return;
    if (n <= 16) {
        for (i = 1; i < n; i++)
            for (j = i; j > 0 && less(ctx, a + j * sz, a + (j - 1) * sz); j--)
                swap_elem(a + j * sz, a + (j - 1) * sz, sz);
        return;
    }
    for (i = n / 2 - 1; i >= 0; i--) sift_elems(a, i, n, sz, less, ctx);     /* heapify */
    for (i = n - 1; i > 0; i--) {
        swap_elem(a, a + i * sz, sz);
        sift_elems(a, 0, i, sz, less, ctx);
    }
}

/* Frees one buffer of cap elements of size sz. */
static inline void free_buf(cl_world *w, void *p, int cap, size_t sz) {
    if (p) w->alloc(w->ud, p, (size_t)cap * sz, 0);
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

/* ---- functions shared between the World's files (hidden in the shared object: CL_API) ---- */

/* world_move.c: cl_world_move(w, id, d, NULL, NULL, commit, actual) that commits the end only when
 * the move met nothing (the same n, *actual, w->cols and w->mend): the FFI fast path's
 * world:move (csrc/bind/ffi_world.c, which declares it too), whose free moves then skip
 * cl_world_update's second cl_shape_aabb and call, and whose moves with collisions are
 * committed after their tables are built. */
CL_API int clw_move_commitfree(cl_world *w, int id, cl_vec3 d, cl_vec3 *actual);
/* world.c: the tail of cl_world_update: item id now has shape *s (its stored shape may be s), box
 * b; CL_OK, or CL_ENOMEM (unchanged) when an AABB item gets another kind and no slot is free. */
CL_API int clw_update_to(cl_world *w, int id, const cl_shape *s, cl_aabb b);
/* world_tree.c: sets item it's fat box (a copy of its leaf's box fb). */
CL_API void clw_set_fat(const cl_world *w, cl_item *it, const cl_fbox *fb);
/* world_tree.c: 1 when fat box fat, which encloses lo..hi (box b with its rounding allowance), is
 * not too loose for box b (clw_update_to keeps the leaf then). */
CL_API int clw_fat_snug(const cl_world *w, const cl_aabb *b, const cl_aabb *fat, cl_vec3 lo, cl_vec3 hi);
/* world_tree.c: rebuilds the tree, re-reads leaf indices (refits instead when memory runs out). */
CL_API void clw_tree_rebuild(cl_world *w);
/* world_tree.c: starts an incremental rebuild (or rebuilds at once after many changes). */
CL_API void clw_tree_upkeep(cl_world *w);
/* world_tree.c: runs a slice of the incremental rebuild under way, taking the new tree when built. */
CL_API void clw_tree_step(cl_world *w);
/* world_tree.c: runs the rebuild's install now when it is its next step and needs no replay
 * (before a traversal's leaf changes); 1 if it did. */
CL_API int clw_tree_install_first(cl_world *w);
/* world_tree.c: the items' new leaf indices computed for a rebuild no install takes (cancelled
 * by an add or a remove, or a whole rebuild): the block kept when small, else freed. */
CL_API void clw_nl_drop(cl_world *w);
/* world_tree.c: copies the next LEAF_SLICE of w->lf's leaf indices into the items (cl_world.lf),
 * freeing lf after the last; clw_leaf_finish copies all that is left at once. */
CL_API void clw_leaf_step(cl_world *w);
CL_API void clw_leaf_finish(cl_world *w);

/* Item slots per clw_leaf_step (a traversal's share of the copy after a whole rebuild), and the
 * most tree leaves for which a whole rebuild still writes the items at once (tree_rebuilt). The copy's first
 * touch of the item block's pages after the build is slow on the benchmark VM: 16,384 items a
 * call cost 2.3-3 ms there (32,768: 4.7-6.6 ms). */
#ifndef LEAF_SLICE
#define LEAF_SLICE 16384
#endif

/* The tree leaf of live item id (see cl_world.lf). */
WINLINE int clw_leaf(const cl_world *w, int id) {
    return w->lf != NULL ? w->lf[id] : w->items[id].proxy;
}

/* The tree leaf of item id when id is a live item's, else -1. */
WINLINE int clw_live_leaf(const cl_world *w, int id) {
    return (unsigned)id < (unsigned)w->cap && w->items[id].proxy != CL_NULLNODE ? clw_leaf(w, id) : -1;
}

/* clw_live_leaf when that leaf holds id, else -1: the start of clw_collect_fbox's walk up. */
WINLINE int clw_tree_leaf(const cl_world *w, int id) {
    int lf = clw_live_leaf(w, id);
    return lf >= 0 && lf < w->tree.cap && w->tree.nodes[lf].child1 == CL_NULLNODE &&
           w->tree.nodes[lf].child2 == id ? lf : -1;
}

/* clw_live_leaf when that leaf has a slot in the valid box-query snapshot that holds id, else
 * -1: the start of clw_collect_snap's walk up. */
WINLINE int clw_snap_leaf(const cl_world *w, int id) {
    int lf = clw_live_leaf(w, id), s;
    if (lf < 0 || lf >= w->qslotcap) return -1;
    s = w->qslot[lf];
    return s >= 0 && w->qn[s >> 2].child[s & 3] == ~id ? lf : -1;
}

/* Sets the tree leaf of live item id. */
WINLINE void clw_set_leaf(cl_world *w, int id, int leaf) {
    w->items[id].proxy = leaf;
    if (w->lf != NULL) w->lf[id] = leaf;
}
/* world_tree.c: frees what the last install left for a later call (the old pool and the
 * rebuild's buffers, the old box-query snapshot) or a spare snapshot no rebuild waits for. */
CL_API void clw_tree_release(cl_world *w);
/* 1 when box-query snapshot blocks of ncap nodes (and 64 bytes to align them) and slotcap slots
 * are small enough to keep for the next rebuild (as the tree keeps its rebuild blocks: at most
 * CL_TREE_KEEP_BYTES in all). */
static inline int clw_spare_fits(int ncap, int slotcap) {
    return (size_t)ncap * sizeof(cl_qnode) + 64 + (size_t)slotcap * sizeof(int) <= CL_TREE_KEEP_BYTES;
}
/* 1 when the spare snapshot blocks are kept between rebuilds (clw_tree_release leaves them). */
static inline int clw_spare_kept(const cl_world *w) { return clw_spare_fits(w->qn2cap, w->qslot2cap); }
/* world_tree.c: links the leaves of the items added since the last traversal into the tree. */
CL_API void clw_link_tree(cl_world *w);
/* world_tree.c: refits the stale leaves of the items updated out of their fat boxes. */
CL_API void clw_flush_tree(cl_world *w);
/* world_tree.c: builds the box-query snapshot; CL_OK or CL_ENOMEM. Needs at least two leaves. */
CL_API int clw_qsnap_build(cl_world *w);
/* world_tree.c: builds the box-query snapshot of the tree given by nodes (root, cap nodes, of
 * which nodes used..cap-1 are free and may never have been written (cl_tree's lazy); the
 * World's leaf count) into the buffers given (array, its block and capacity, node -> slot map
 * and its capacity); CL_OK or CL_ENOMEM. */
CL_API int clw_qsnap_into(cl_world *w, const cl_tnode *nodes, int root, int cap, int used, cl_qnode **qnp,
                          void **blk, int *qncap, int **qslotp, int *qslotcap);
/* world_query.c: collects into w->tmp the items whose leaf overlaps *qp; count or CL_ENOMEM.
 * leaf >= 0: a leaf of the tree, whose item is then left out and whose path the walk goes up
 * first (cheaper for a box near that leaf), else -1. */
CL_API int clw_collect_fbox(cl_world *w, const cl_fbox *qp, int leaf);
/* world_query.c: clw_collect_fbox over the box-query snapshot (valid, at least two leaves); leaf
 * >= 0: a tree leaf that has a slot in it, whose item is then left out and whose path the walk
 * goes up first (qsnap_query; cheaper for a box near that leaf), else -1. */
CL_API int clw_collect_snap(cl_world *w, const cl_fbox *qp, int leaf);
/* world_pairs.c: sorts a[0..n-1] by key (unique keys below 2^bits) with an LSD radix sort of
 * 11-bit digits, tmp holding n scratch elements; digits equal in every key are skipped. Returns
 * the buffer (a or tmp) that holds the sorted elements. */
CL_API cl_kpair *clw_kpair_sort(cl_kpair *a, cl_kpair *tmp, int n, int bits);
/* world_query.c: collects into w->tmp every item whose box may overlap box except skip; count
 * or CL_ENOMEM. */
CL_API int clw_collect_box(cl_world *w, const cl_aabb *box, int skip);
/* world_query.c: orders item ids by add order (sort_elems; ctx: the world). */
CL_API int clw_less_seq(const void *ctx, const void *a, const void *b);
/* world_query.c: orders cl_whit hits by t, then add order (ctx: the world). */
CL_API int clw_less_hit(const void *ctx, const void *a, const void *b);

/* ---- the snapshots' upkeep, inline in every traversal ---- */

/* Keeps the tree good to search as its leaves move: once it has changed about twice its size
 * since the last rebuild (so a rebuild costs O(log n) per change) an incremental rebuild starts,
 * and every traversal runs a slice of it (clw_tree_upkeep, clw_tree_step). */
static inline void tree_maint(cl_world *w) {
    if (w->lf != NULL) clw_leaf_step(w);        /* a whole rebuild's leaf indices, a slice */
    if (w->tree.bld) clw_tree_step(w);
    else if (w->tree.old || (w->qn2block && !clw_spare_kept(w))) clw_tree_release(w);
    else if (w->tree.leaves >= 64 && w->tchg >= 2L * w->tree.leaves) clw_tree_upkeep(w);
}

/* 1 if the incremental rebuild under way was installed now, before this traversal's leaf
 * changes (clw_tree_install_first); the traversal then runs no other upkeep step. */
static inline int tree_install_first(cl_world *w) {
    return w->tree.bld != NULL && clw_tree_install_first(w);
}

/* Refits the tree when more than DIRTY_MAX leaves are stale; otherwise traversals skip the
 * stale leaves and test those few items directly (a lone mover is then never reinserted). */
static inline void settle_tree(cl_world *w) {
    int done = tree_install_first(w);
    if (w->tree.npend > 0) clw_link_tree(w);
    if (w->dlen > DIRTY_MAX) clw_flush_tree(w);
    if (!done) tree_maint(w);
}

/* Counts a traversal of the unchanged tree (queries and rays alike); 1 once it
 * has served about leaves / 128 + 8 of them, so a snapshot's O(n) build is amortised. */
static inline int snap_due(cl_world *w) {
    if (w->raysver != w->tver) { w->raysver = w->tver; w->wnrays = 0; }
    if (++w->wnrays <= w->tree.leaves / 128 + 8) return 0;
    w->wnrays = 0;
    return 1;
}

/* Returns 1 if the box-query snapshot is valid, building it when snap_due says so; 0 to walk the
 * tree instead. Results never depend on which walk finds them. */
static inline int qsnap_ready(cl_world *w) {
    if (w->tree.leaves < 2) return 0;
    if (w->qn && w->qnver == w->tver) return 1;
    return snap_due(w) && clw_qsnap_build(w) == CL_OK;
}

/* 1 if the box-query snapshot is valid now, building it at once if needed (for a batch of
 * traversals known to be large, unlike qsnap_ready's amortised build); 0 to walk the tree. */
static inline int qsnap_now(cl_world *w) {
    if (w->tree.leaves < 2) return 0;
    if (w->qn && w->qnver == w->tver) return 1;
    return clw_qsnap_build(w) == CL_OK;
}

#endif
