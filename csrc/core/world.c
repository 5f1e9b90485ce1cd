/* collide core: the World (items, queries, pairs, sweeps, moves). See world.h. */
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

/* 1 if the boxes overlap (inclusive). */
static int boxes_overlap(const cl_aabb *a, const cl_aabb *b) {
    return a->min.x <= b->max.x && a->max.x >= b->min.x && a->min.y <= b->max.y &&
           a->max.y >= b->min.y && a->min.z <= b->max.z && a->max.z >= b->min.z;
}

/* Half surface area of a box (descent choice in pairs). */
static double box_cost_w(const cl_aabb *b) {
    double dx = b->max.x - b->min.x, dy = b->max.y - b->min.y, dz = b->max.z - b->min.z;
    return dx * dy + dy * dz + dz * dx + (dx + dy + dz);
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
    cl_world_init(w, w->margin, w->alloc, w->ud);
}

int cl_world_reserve(cl_world *w) {
    if (w->freelist < 0) {
        int old = w->cap, i;
        ENSURE(w->items, w->cap, old + 1);
        for (i = w->cap - 1; i >= old; i--) {
            w->items[i].proxy = CL_NULLNODE;
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
    w->freelist = id;
    w->count--;
}

void cl_world_update(cl_world *w, int id, const cl_shape *s) {
    cl_item *it = &w->items[id];
    const cl_aabb *fat = &w->tree.nodes[it->proxy].box;
    double loose = 4 * w->margin;
    cl_aabb b = cl_shape_aabb(s);
    it->shape = *s;
    it->box = b;
    /* keep the leaf while its fat box still encloses the shape and is not too loose */
    if (fat->min.x <= b.min.x && fat->min.y <= b.min.y && fat->min.z <= b.min.z &&
        fat->max.x >= b.max.x && fat->max.y >= b.max.y && fat->max.z >= b.max.z &&
        b.min.x - fat->min.x <= loose + fabs(b.min.x) * 4 * EPS_REL + 1e-299 &&
        b.min.y - fat->min.y <= loose + fabs(b.min.y) * 4 * EPS_REL + 1e-299 &&
        b.min.z - fat->min.z <= loose + fabs(b.min.z) * 4 * EPS_REL + 1e-299 &&
        fat->max.x - b.max.x <= loose + fabs(b.max.x) * 4 * EPS_REL + 1e-299 &&
        fat->max.y - b.max.y <= loose + fabs(b.max.y) * 4 * EPS_REL + 1e-299 &&
        fat->max.z - b.max.z <= loose + fabs(b.max.z) * 4 * EPS_REL + 1e-299)
        return;
    {
        cl_aabb nf = widen(&b, w->margin);
        it->proxy = cl_tree_move(&w->tree, it->proxy, &nf);
    }
}

const cl_shape *cl_world_shape(const cl_world *w, int id) { return &w->items[id].shape; }

/* ---- traversals ---- */

/* Collects into w->tmp every item whose leaf box overlaps box; the count or CL_ENOMEM. */
static int collect_box(cl_world *w, const cl_aabb *box) {
    cl_tree *t = &w->tree;
    cl_stack st;
    int n = 0;
    if (t->root == CL_NULLNODE) return 0;
    cl_stack_init(&st);
    st.p[st.n++] = t->root;
    while (st.n > 0) {
        const cl_tnode *nd = &t->nodes[st.p[--st.n]];
        if (!boxes_overlap(&nd->box, box)) continue;
        if (nd->child1 == CL_NULLNODE) {
            if (n >= w->tmpcap) {
                void *np = grow_buf(w, w->tmp, &w->tmpcap, n + 1, sizeof(int));
                if (!np) { cl_stack_free(t, &st); return CL_ENOMEM; }
                w->tmp = (int *)np;
            }
            w->tmp[n++] = nd->data;
        } else if (!cl_stack_push(t, &st, nd->child2) || !cl_stack_push(t, &st, nd->child1)) {
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

/* Returns 1 and the entry distance (>= 0) when the ray meets box within [0, maxt] (inclusive;
 * parallel axes test the origin coordinate, so no 0 * inf). */
static int ray_box(const cl_ray *r, const cl_aabb *b, double maxt, double *tenter) {
    double tmin = 0, tmax = maxt;
    double o[3], d[3], lo[3], hi[3];
    int i;
    o[0] = r->o.x; o[1] = r->o.y; o[2] = r->o.z;
    d[0] = r->d.x; d[1] = r->d.y; d[2] = r->d.z;
    lo[0] = b->min.x; lo[1] = b->min.y; lo[2] = b->min.z;
    hi[0] = b->max.x; hi[1] = b->max.y; hi[2] = b->max.z;
    for (i = 0; i < 3; i++) {
        if (d[i] == 0) {
            if (o[i] < lo[i] || o[i] > hi[i]) return 0;
        } else {
            double t1 = (lo[i] - o[i]) / d[i], t2 = (hi[i] - o[i]) / d[i];
            if (t1 > t2) { double x = t1; t1 = t2; t2 = x; }
            if (t1 > tmin) tmin = t1;
            if (t2 < tmax) tmax = t2;
            if (tmin > tmax) return 0;
        }
    }
    *tenter = tmin;
    return 1;
}

int cl_world_raycast(cl_world *w, const cl_ray *r, double maxt, double aftert, double afterseq,
                     cl_whit *out) {
    cl_tree *t = &w->tree;
    cl_stack st;
    double best = maxt, bestseq = 0;
    int found = 0;
    if (t->root == CL_NULLNODE) return 0;
    cl_stack_init(&st);
    st.p[st.n++] = t->root;
    while (st.n > 0) {
        const cl_tnode *nd = &t->nodes[st.p[--st.n]];
        double te;
        if (!ray_box(r, &nd->box, best, &te)) continue;
        if (nd->child1 == CL_NULLNODE) {
            const cl_item *it = &w->items[nd->data];
            cl_hit h;
            if (!cl_shape_raycast(&it->shape, r, best, &h)) continue;
            if (h.t < aftert || (h.t == aftert && it->seq <= afterseq)) continue;
            if (found && (h.t > best || (h.t == best && it->seq > bestseq))) continue;
            found = 1;
            best = h.t;
            bestseq = it->seq;
            out->item = nd->data;
            out->t = h.t;
            out->n = h.n;
        } else {
            /* push the farther child first so the nearer one is searched first */
            double t1, t2;
            int h1 = ray_box(r, &t->nodes[nd->child1].box, best, &t1);
            int h2 = ray_box(r, &t->nodes[nd->child2].box, best, &t2);
            int a = nd->child1, b = nd->child2;
            if (h1 && h2) {
                if (t2 > t1) { int x = a; a = b; b = x; }
                if (!cl_stack_push(t, &st, a) || !cl_stack_push(t, &st, b)) goto nomem;
            } else if (h1 || h2) {
                if (!cl_stack_push(t, &st, h1 ? a : b)) goto nomem;
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
    int n = 0;
    w->nhits = 0;
    if (t->root == CL_NULLNODE) return 0;
    cl_stack_init(&st);
    st.p[st.n++] = t->root;
    while (st.n > 0) {
        const cl_tnode *nd = &t->nodes[st.p[--st.n]];
        double te;
        if (!ray_box(r, &nd->box, maxt, &te)) continue;
        if (nd->child1 == CL_NULLNODE) {
            cl_hit h;
            if (!cl_shape_raycast(&w->items[nd->data].shape, r, maxt, &h)) continue;
            if (n >= w->hitcap) {
                void *np = grow_buf(w, w->hits, &w->hitcap, n + 1, sizeof(cl_whit));
                if (!np) { cl_stack_free(t, &st); return CL_ENOMEM; }
                w->hits = (cl_whit *)np;
            }
            w->hits[n].item = nd->data;
            w->hits[n].t = h.t;
            w->hits[n].n = h.n;
            n++;
        } else if (!cl_stack_push(t, &st, nd->child2) || !cl_stack_push(t, &st, nd->child1)) {
            cl_stack_free(t, &st);
            return CL_ENOMEM;
        }
    }
    cl_stack_free(t, &st);
    sort_elems(w->hits, n, sizeof(cl_whit), less_hit, w);
    w->nhits = n;
    return n;
}

/* Orders pairs (two ids each) by (order of a, order of b). */
static int less_pair(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    const int *x = (const int *)a, *y = (const int *)b;
    double xa = w->items[x[0]].seq, ya = w->items[y[0]].seq;
    if (xa != ya) return xa < ya;
    return w->items[x[1]].seq < w->items[y[1]].seq;
}

/* Pushes the node pair (a, b) (a == b: the subtree against itself); 0 when out of memory. */
static int push_pair(cl_tree *t, cl_stack *st, int a, int b) {
    return cl_stack_push(t, st, a) && cl_stack_push(t, st, b);
}

/* Pairs: one simultaneous descent of the tree against itself (each overlapping node pair is
 * visited once), exact tests on the leaf pairs, then a sort by (order a, order b). */
int cl_world_pairs(cl_world *w) {
    cl_tree *t = &w->tree;
    cl_stack st;
    int np = 0;
    w->nres = 0;
    if (t->root == CL_NULLNODE) return 0;
    cl_stack_init(&st);
    st.p[st.n++] = t->root;
    st.p[st.n++] = t->root;
    while (st.n > 0) {
        int b = st.p[--st.n], a = st.p[--st.n];
        const cl_tnode *na = &t->nodes[a], *nb = &t->nodes[b];
        if (a == b) {
            if (na->child1 == CL_NULLNODE) continue;
            if (!push_pair(t, &st, na->child1, na->child2) || !push_pair(t, &st, na->child1, na->child1) ||
                !push_pair(t, &st, na->child2, na->child2))
                goto nomem;
            continue;
        }
        if (!boxes_overlap(&na->box, &nb->box)) continue;
        if (na->child1 == CL_NULLNODE && nb->child1 == CL_NULLNODE) {
            int x = na->data, y = nb->data;
            if (!cl_shape_overlaps(&w->items[x].shape, &w->items[y].shape)) continue;
            if (w->items[x].seq > w->items[y].seq) { int z = x; x = y; y = z; }
            if (2 * np + 2 > w->rescap) {
                void *p = grow_buf(w, w->res, &w->rescap, 2 * np + 2, sizeof(int));
                if (!p) goto nomem;
                w->res = (int *)p;
            }
            w->res[2 * np] = x;
            w->res[2 * np + 1] = y;
            np++;
        } else if (nb->child1 == CL_NULLNODE ||
                   (na->child1 != CL_NULLNODE && box_cost_w(&na->box) >= box_cost_w(&nb->box))) {
            if (!push_pair(t, &st, na->child1, b) || !push_pair(t, &st, na->child2, b)) goto nomem;
        } else {
            if (!push_pair(t, &st, a, nb->child1) || !push_pair(t, &st, a, nb->child2)) goto nomem;
        }
    }
    cl_stack_free(t, &st);
    sort_elems(w->res, np, 2 * sizeof(int), less_pair, w);
    w->nres = 2 * np;
    return np;
nomem:
    cl_stack_free(t, &st);
    return CL_ENOMEM;
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
