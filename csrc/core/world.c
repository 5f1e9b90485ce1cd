/* collide core: the World (items, queries, pairs, sweeps, moves). See world.h. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "world.h"

#define EPS_REL 1e-12       /* broadphase boxes are widened by this relative amount */
#define MAX_LEGS 16

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

/* Returns the box widened by margin plus a rounding allowance on every side. */
static cl_aabb widen(const cl_aabb *b, double margin) {
    cl_aabb r;
    r.min.x = b->min.x - margin - (fabs(b->min.x) * EPS_REL + 1e-300);
    r.min.y = b->min.y - margin - (fabs(b->min.y) * EPS_REL + 1e-300);
    r.min.z = b->min.z - margin - (fabs(b->min.z) * EPS_REL + 1e-300);
    r.max.x = b->max.x + margin + (fabs(b->max.x) * EPS_REL + 1e-300);
    r.max.y = b->max.y + margin + (fabs(b->max.y) * EPS_REL + 1e-300);
    r.max.z = b->max.z + margin + (fabs(b->max.z) * EPS_REL + 1e-300);
    return r;
}

/* 1 if the float boxes overlap (inclusive). */
static int fboxes_overlap(const cl_fbox *a, const cl_fbox *b) {
    return a->lo[0] <= b->hi[0] && a->hi[0] >= b->lo[0] && a->lo[1] <= b->hi[1] &&
           a->hi[1] >= b->lo[1] && a->lo[2] <= b->hi[2] && a->hi[2] >= b->lo[2];
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

/* Orders move candidates: touching ones first, by t then add order. */
static int less_mc(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    const cl_mcand *x = (const cl_mcand *)a, *y = (const cl_mcand *)b;
    int tx = x->s.state == CL_TOI_TOUCHING, ty = y->s.state == CL_TOI_TOUCHING;
    if (tx != ty) return tx > ty;
    if (tx && x->s.t != y->s.t) return x->s.t < y->s.t;
    return w->items[x->item].seq < w->items[y->item].seq;
}

/* ---- items ---- */

void cl_world_init(cl_world *w, double margin, cl_alloc alloc, void *ud) {
    memset(w, 0, sizeof *w);
    cl_tree_init(&w->tree, alloc, ud);
    w->items = NULL;
    w->freelist = w->head = w->tail = -1;
    w->dhead = -1;
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
    free_buf(w, w->cols, w->colcap, sizeof(cl_col));
    free_buf(w, w->ibox, w->iboxcap, sizeof(cl_fbox));
    free_buf(w, w->sap, w->sapcap, sizeof(cl_sapent));
    free_buf(w, w->pr, w->prcap, sizeof(cl_wpair));
    cl_world_init(w, w->margin, w->alloc, w->ud);
}

int cl_world_reserve(cl_world *w) {
    if (w->freelist < 0) {
        int old = w->cap, i;
        /* ibox first: both double from 16 with the same need, so iboxcap >= cap always */
        ENSURE(w->ibox, w->iboxcap, old + 1);
        ENSURE(w->items, w->cap, old + 1);
        for (i = w->cap - 1; i >= old; i--) {
            w->items[i].proxy = CL_NULLNODE;
            w->items[i].gen = 0;
            w->items[i].insap = 0;
            w->items[i].dirty = 0;
            w->items[i].onlist = 0;
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
    fat = widen(&it->box, w->margin);
    it->proxy = cl_tree_insert(&w->tree, &fat, id);   /* cannot fail after the reserve */
    fat = widen(&it->box, 0);
    w->ibox[id] = cl_fbox_from(&fat);
    it->gen++;
    it->insap = 0;
    it->dirty = 0;
    w->sapstale = 1;
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
    if (it->prev >= 0) w->items[it->prev].next = it->next; else w->head = it->next;
    if (it->next >= 0) w->items[it->next].prev = it->prev; else w->tail = it->prev;
    it->proxy = CL_NULLNODE;
    it->next = w->freelist;
    it->insap = 0;
    it->dirty = 0;
    w->freelist = id;
    w->count--;
    w->sapstale = 1;
}

void cl_world_update(cl_world *w, int id, const cl_shape *s) {
    cl_item *it = &w->items[id];
    cl_aabb fat = cl_fbox_to(&w->tree.nodes[it->proxy].box);
    double loose = 4 * w->margin;
    cl_aabb b = cl_shape_aabb(s), tb = widen(&b, 0);
    it->shape = *s;
    it->box = b;
    w->ibox[id] = cl_fbox_from(&tb);
    if (it->dirty) return;
    /* keep the leaf while its fat box still encloses the shape and is not too loose (the
     * allowance covers the relative widening and the outward rounding to floats) */
#define LOOSE(v) (loose + fabs(v) * (4 * EPS_REL + FLT_EPSILON) + 1e-299)
    if (fat.min.x <= b.min.x && fat.min.y <= b.min.y && fat.min.z <= b.min.z &&
        fat.max.x >= b.max.x && fat.max.y >= b.max.y && fat.max.z >= b.max.z &&
        b.min.x - fat.min.x <= LOOSE(b.min.x) && b.min.y - fat.min.y <= LOOSE(b.min.y) &&
        b.min.z - fat.min.z <= LOOSE(b.min.z) && fat.max.x - b.max.x <= LOOSE(b.max.x) &&
        fat.max.y - b.max.y <= LOOSE(b.max.y) && fat.max.z - b.max.z <= LOOSE(b.max.z))
        return;
#undef LOOSE
    /* the leaf is refitted on the next tree traversal (pairs do not need the tree) */
    it->dirty = 1;
    if (!it->onlist) {
        it->onlist = 1;
        it->dnext = w->dhead;
        w->dhead = id;
    }
}

/* Refits the tree leaves of every item updated out of its fat box since the last traversal
 * (newest first; the list order is fixed by the calls, so the tree stays deterministic). */
static void flush_tree(cl_world *w) {
    while (w->dhead >= 0) {
        cl_item *it = &w->items[w->dhead];
        w->dhead = it->dnext;
        it->onlist = 0;
        if (it->dirty && it->proxy != CL_NULLNODE) {
            cl_aabb nf = widen(&it->box, w->margin);
            it->dirty = 0;
            it->proxy = cl_tree_move(&w->tree, it->proxy, &nf);
        }
    }
}

const cl_shape *cl_world_shape(const cl_world *w, int id) { return &w->items[id].shape; }

/* ---- traversals ---- */

/* Collects into w->tmp every item whose leaf box overlaps box; the count or CL_ENOMEM. */
static int collect_box(cl_world *w, const cl_aabb *box) {
    cl_tree *t = &w->tree;
    cl_stack st;
    cl_fbox q = cl_fbox_from(box);      /* rounded outward: still conservative */
    int n = 0;
    flush_tree(w);
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
            w->tmp[n++] = nd->child2;
        } else if (!cl_stack_push(t, &st, nd->child2, 0) || !cl_stack_push(t, &st, nd->child1, 0)) {
            cl_stack_free(t, &st);
            return CL_ENOMEM;
        }
    }
    cl_stack_free(t, &st);
    return n;
}

int cl_world_query(cl_world *w, const cl_shape *s) {
    cl_aabb b = cl_shape_aabb(s), q = widen(&b, 0);
    int n = collect_box(w, &q), i, k = 0;
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
    q = widen(&b, 0);
    n = collect_box(w, &q);
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

/* A ray prepared for slab tests against float boxes. */
typedef struct rayq {
    double o[3], inv[3], d[3];
    int mode[3];            /* 0: d == 0 (slab test on the origin), 1: multiply by inv, 2: divide */
} rayq;

/* Prepares r for ray_fbox. Tiny components divide (1/d would overflow to inf, and 0 * inf is NaN). */
static void rayq_make(rayq *q, const cl_ray *r) {
    int k;
    q->o[0] = r->o.x; q->o[1] = r->o.y; q->o[2] = r->o.z;
    q->d[0] = r->d.x; q->d[1] = r->d.y; q->d[2] = r->d.z;
    for (k = 0; k < 3; k++) {
        q->mode[k] = q->d[k] == 0 ? 0 : fabs(q->d[k]) < 1e-290 ? 2 : 1;
        q->inv[k] = q->mode[k] == 1 ? 1 / q->d[k] : 0;
    }
}

/* Returns 1 and the entry distance (>= 0) when the ray meets float box b within [0, maxt]
 * (inclusive; parallel axes test the origin coordinate, so no 0 * inf). The boxes are fattened
 * and rounded outward, which is far more than the rounding of this test, so it never rejects a
 * box whose contents the exact narrowphase would hit at t <= maxt. */
static int ray_fbox(const rayq *q, const cl_fbox *b, double maxt, double *tenter) {
    double tmin = 0, tmax = maxt;
    int k;
    for (k = 0; k < 3; k++) {
        double lo = b->lo[k], hi = b->hi[k], t1, t2;
        if (q->mode[k] == 0) {
            if (q->o[k] < lo || q->o[k] > hi) return 0;
            continue;
        }
        if (q->mode[k] == 1) {
            t1 = (lo - q->o[k]) * q->inv[k];
            t2 = (hi - q->o[k]) * q->inv[k];
        } else {
            t1 = (lo - q->o[k]) / q->d[k];
            t2 = (hi - q->o[k]) / q->d[k];
        }
        if (t1 > t2) { double x = t1; t1 = t2; t2 = x; }
        if (t1 > tmin) tmin = t1;
        if (t2 < tmax) tmax = t2;
    }
    if (tmin > tmax) return 0;
    *tenter = tmin;
    return 1;
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
    double best = maxt, bestseq = 0, te;
    int found = 0;
    flush_tree(w);
    if (t->root == CL_NULLNODE) return 0;
    rayq_make(&q, r);
    if (!ray_fbox(&q, &t->nodes[t->root].box, best, &te)) return 0;
    cl_stack_init(&st);
    st.p[0].node = t->root;
    st.p[0].t = te;
    st.n = 1;
    while (st.n > 0) {
        int i;
        st.n--;
        if (st.p[st.n].t > best) continue;
        i = st.p[st.n].node;
        for (;;) {
            const cl_tnode *nd = &t->nodes[i];
            if (nd->child1 == CL_NULLNODE) {
                const cl_item *it = &w->items[nd->child2];
                cl_hit h;
                if (!cl_shape_raycast(&it->shape, r, best, &h)) break;
                if (h.t < aftert || (h.t == aftert && it->seq <= afterseq)) break;
                if (found && (h.t > best || (h.t == best && it->seq > bestseq))) break;
                found = 1;
                best = h.t;
                bestseq = it->seq;
                out->item = nd->child2;
                out->t = h.t;
                out->n = h.n;
                break;
            } else {
                double t1, t2;
                int a = nd->child1, b = nd->child2;
                int h1 = ray_fbox(&q, &t->nodes[a].box, best, &t1);
                int h2 = ray_fbox(&q, &t->nodes[b].box, best, &t2);
                if (h1 && h2) {
                    if (t2 < t1) { int x = a; a = b; b = x; te = t1; t1 = t2; t2 = te; }
                    if (!cl_stack_push(t, &st, b, t2)) goto nomem;
                    i = a;
                } else if (h1) {
                    i = a;
                } else if (h2) {
                    i = b;
                } else {
                    break;
                }
            }
        }
    }
    cl_stack_free(t, &st);
    return found;
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
        } else if (!cl_stack_push(t, &st, nd->child2, 0) || !cl_stack_push(t, &st, nd->child1, 0)) {
            cl_stack_free(t, &st);
            return CL_ENOMEM;
        }
    }
    cl_stack_free(t, &st);
    sort_elems(w->hits, n, sizeof(cl_whit), less_hit, w);
    w->nhits = n;
    return n;
}

/* ---- pairs: sweep and prune ---- */

/* Sifts entry r down the max-heap a[0..n-1] ordered by lo x. */
static void sap_sift(cl_sapent *a, int r, int n) {
    for (;;) {
        int c = 2 * r + 1;
        cl_sapent x;
        if (c >= n) return;
        if (c + 1 < n && a[c].lo[0] < a[c + 1].lo[0]) c++;
        if (!(a[r].lo[0] < a[c].lo[0])) return;
        x = a[r]; a[r] = a[c]; a[c] = x;
        r = c;
    }
}

/* Sorts the entries by lo x: insertion sort (near O(n) when the order barely changed since the
 * last call, the usual case between frames), falling back to heap sort when it has done more
 * than 8n + 64 moves. Equal keys may end in any order; the result does not depend on it. */
static void sap_sort(cl_sapent *a, int n) {
    long moves = 0, budget = 8L * n + 64;
    int i, j;
    for (i = 1; i < n; i++) {
        cl_sapent x;
        if (!(a[i].lo[0] < a[i - 1].lo[0])) continue;
        x = a[i];
        for (j = i; j > 0 && x.lo[0] < a[j - 1].lo[0]; j--) a[j] = a[j - 1];
        a[j] = x;
        moves += i - j;
        if (moves > budget) break;
    }
    if (i >= n) return;
    for (i = n / 2 - 1; i >= 0; i--) sap_sift(a, i, n);
    for (i = n - 1; i > 0; i--) {
        cl_sapent x = a[0];
        a[0] = a[i];
        a[i] = x;
        sap_sift(a, 0, i);
    }
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

/* Brings the sweep-and-prune array in line with the live items: drops entries of removed
 * items, appends entries for items added since (in add order), refreshes every box from ibox
 * and sorts by lo x. CL_OK or CL_ENOMEM (nothing changed). */
static int sap_refresh(cl_world *w) {
    int i, k;
    cl_sapent *e;
    if (w->sapstale) {
        ENSURE(w->sap, w->sapcap, w->count > 0 ? w->count : 1);
        for (i = k = 0; i < w->sapn; i++) {
            const cl_item *it = &w->items[w->sap[i].item];
            if (it->proxy != CL_NULLNODE && it->insap && it->gen == w->sap[i].gen) w->sap[k++] = w->sap[i];
        }
        for (i = w->head; i >= 0; i = w->items[i].next) {
            cl_item *it = &w->items[i];
            if (it->insap) continue;
            it->insap = 1;
            w->sap[k].item = i;
            w->sap[k].gen = it->gen;
            k++;
        }
        w->sapn = k;
        w->sapstale = 0;
    }
    e = w->sap;
    for (i = 0; i < w->sapn; i++) {
        const cl_fbox *b = &w->ibox[e[i].item];
        e[i].lo[0] = b->lo[0]; e[i].lo[1] = b->lo[1]; e[i].lo[2] = b->lo[2];
        e[i].hi[0] = b->hi[0]; e[i].hi[1] = b->hi[1]; e[i].hi[2] = b->hi[2];
    }
    sap_sort(e, w->sapn);
    return CL_OK;
}

/* Pairs: sweep and prune along x over the persistent sorted array of tight item boxes (floats
 * rounded outward, so no overlapping pair is missed), the exact narrowphase on every candidate,
 * then a sort by (order a, order b). The tree is not used. The inner loop only gathers the
 * candidates of entry i (branch-free, no call, so its bounds stay in registers); the
 * narrowphase runs on them afterwards. */
int cl_world_pairs(cl_world *w) {
    int i, j, k, np = 0, n;
    const cl_sapent *e;
    int *cand;
    w->nres = 0;
    if (sap_refresh(w) != CL_OK) return CL_ENOMEM;
    e = w->sap;
    n = w->sapn;
    ENSURE(w->tmp, w->tmpcap, n + 1);
    cand = w->tmp;
    for (i = 0; i < n; i++) {
        const float hx = e[i].hi[0], ly = e[i].lo[1], hy = e[i].hi[1], lz = e[i].lo[2], hz = e[i].hi[2];
        int nc = 0;
        for (j = i + 1; j < n && e[j].lo[0] <= hx; j++) {
            cand[nc] = j;
            nc += (e[j].lo[1] <= hy) & (e[j].hi[1] >= ly) & (e[j].lo[2] <= hz) & (e[j].hi[2] >= lz);
        }
        for (k = 0; k < nc; k++) {
            int a = e[i].item, b = e[cand[k]].item;
            const cl_item *x = &w->items[a], *y = &w->items[b];
            cl_wpair *pp;
            if (!cl_shape_overlaps(&x->shape, &y->shape)) continue;
            ENSURE(w->pr, w->prcap, np + 1);
            pp = &w->pr[np++];
            if (x->seq < y->seq) {
                pp->sa = x->seq; pp->sb = y->seq; pp->a = a; pp->b = b;
            } else {
                pp->sa = y->seq; pp->sb = x->seq; pp->a = b; pp->b = a;
            }
        }
    }
    ENSURE(w->res, w->rescap, 2 * np);
    pair_sort(w->pr, np);
    for (i = 0; i < np; i++) {
        w->res[2 * i] = w->pr[i].a;
        w->res[2 * i + 1] = w->pr[i].b;
    }
    w->nres = 2 * np;
    return np;
}

/* Returns the box enclosing shape s at its place and moved by d, widened for rounding. */
static cl_aabb swept_box(const cl_shape *s, cl_vec3 d) {
    cl_aabb b = cl_shape_aabb(s), e = b;
    e.min.x += d.x; e.min.y += d.y; e.min.z += d.z;
    e.max.x += d.x; e.max.y += d.y; e.max.z += d.z;
    b = cl_aabb_merge(&b, &e);
    return widen(&b, 0);
}

int cl_world_sweep(cl_world *w, const cl_shape *s, cl_vec3 d, int skip, double aftert,
                   double afterseq, cl_whit *out) {
    cl_aabb q = swept_box(s, d);
    int n = collect_box(w, &q), i, found = 0;
    double bt = 0, bseq = 0;
    if (n < 0) return n;
    for (i = 0; i < n; i++) {
        int id = w->tmp[i];
        const cl_item *it = &w->items[id];
        cl_sweep sw;
        if (id == skip) continue;
        sw = cl_sweep_shapes(s, d, &it->shape);
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

/* Returns where the mover cur ends a leg along rem that stops at t (blocking candidate blk or
 * -1), never leaving its interior inside a candidate it has not ignored or crossed: AABB pairs
 * are snapped face to face; other contacts keep a tiny gap along the normal and back off. */
static cl_shape leg_end(cl_world *w, const cl_shape *cur, cl_vec3 rem, double t, int blk) {
    double tt = t, delta = 0;
    double gap = 0;
    cl_vec3 n = cl_v3(0, 0, 0);
    cl_shape next;
    int iter, k, pass;
    if (blk >= 0) {
        const cl_shape *o = &w->items[w->mc[blk].item].shape;
        n = w->mc[blk].s.n;
        if (!(cur->kind == CL_AABB && o->kind == CL_AABB)) gap = ldexp(shape_scale(cur), -40);
    }
    for (iter = 0; iter < 80; iter++) {
        int bad = 0;
        cl_vec3 dd;
        if (tt <= 0) return *cur;             /* the leg's start is clear of every candidate */
        dd = tt == 1 ? rem : cl_v3(tt * rem.x, tt * rem.y, tt * rem.z);
        if (gap > 0) { dd.x += gap * n.x; dd.y += gap * n.y; dd.z += gap * n.z; }
        next = moved(cur, dd);
        if (blk >= 0 && tt == t && gap == 0) {
            /* AABB on AABB: put the face exactly on the obstacle's face */
            const cl_aabb *c = &w->items[w->mc[blk].item].shape.u.aabb;
            int i = n.x != 0 ? 0 : n.y != 0 ? 1 : 2;
            double f = vget(n, i) > 0 ? vget(c->max, i) : vget(c->min, i);
            snap_face(&next.u.aabb, i, -vget(n, i), f);
        }
        for (pass = 0; pass < 3; pass++) {
            int changed = 0;
            bad = 0;
            for (k = 0; k < w->nmc && !bad; k++) {
                const cl_mcand *m = &w->mc[k];
                const cl_shape *o = &w->items[m->item].shape;
                if (m->s.state == CL_TOI_OVERLAPPED || (m->flags & (MC_IGNORED | MC_CROSSED))) continue;
                if (!cl_interiors_overlap(&next, o)) continue;
                if (next.kind == CL_AABB && o->kind == CL_AABB &&
                    snap_out(&next.u.aabb, &cur->u.aabb, rem, &o->u.aabb) &&
                    !cl_interiors_overlap(&next, o))
                    changed = 1;
                else
                    bad = 1;
            }
            if (bad || !changed) break;
        }
        if (!bad) return next;
        if (delta == 0) delta = ldexp(tt, -50) + 1e-300;
        tt -= delta;
        delta *= 4;
    }
    return *cur;
}

/* Returns the reference point of a shape (AABB min corner, else centre). */
static cl_vec3 ref_point(const cl_shape *s) {
    return s->kind == CL_AABB ? s->u.aabb.min : s->kind == CL_OBB ? s->u.obb.c : s->u.sphere.c;
}

int cl_world_move(cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx, int commit,
                  cl_vec3 *actual) {
    cl_shape cur = w->items[id].shape;
    cl_vec3 rem = d, p0, p1;
    int leg;
    w->ncols = 0;
    for (leg = 0; leg < MAX_LEGS; leg++) {
        cl_aabb q;
        int n, i, k = 0, blk = -1;
        cl_resp resp = CL_RESP_SLIDE;
        double tb = 1;
        if (rem.x == 0 && rem.y == 0 && rem.z == 0) break;
        q = swept_box(&cur, rem);
        n = collect_box(w, &q);
        if (n < 0) return n;
        ENSURE(w->mc, w->mccap, n);
        for (i = 0; i < n; i++) {
            int o = w->tmp[i];
            cl_mcand *m;
            if (o == id || was_crossed(w, o)) continue;
            m = &w->mc[k++];
            m->item = o;
            m->flags = 0;
            m->s = cl_sweep_shapes(&cur, rem, &w->items[o].shape);
        }
        w->nmc = k;
        sort_elems(w->mc, k, sizeof(cl_mcand), less_mc, w);
        for (i = 0; i < k && w->mc[i].s.state == CL_TOI_TOUCHING; i++) {
            cl_resp r = respond ? respond(ctx, id, w->mc[i].item) : CL_RESP_SLIDE;
            if (r == CL_RESP_IGNORE) { w->mc[i].flags |= MC_IGNORED; continue; }
            if (r == CL_RESP_CROSS) {
                w->mc[i].flags |= MC_CROSSED;
                if (push_col(w, w->mc[i].item, CL_RESP_CROSS, w->mc[i].s.t, w->mc[i].s.n) != CL_OK)
                    return CL_ENOMEM;
                continue;
            }
            blk = i;
            resp = r;
            break;
        }
        if (blk >= 0) tb = w->mc[blk].s.t;
        {
            cl_shape next = leg_end(w, &cur, rem, tb, blk);
            cl_vec3 left = cl_v3(0, 0, 0);
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
            cur = next;
            rem = left;
        }
    }
    p0 = ref_point(&w->items[id].shape);
    p1 = ref_point(&cur);
    *actual = cl_v3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z);
    if (commit) cl_world_update(w, id, &cur);
    return w->ncols;
}
