/* libFuzzer harness of the World core (csrc/core/world.h), issue 5.
 * The input drives adds, removes, updates, queries, raycasts, pairs, sweeps, moves, push-outs
 * (cl_world_resolve) and character moves (cl_char_move) on one world, each checked against a brute-force list of the live items kept here (same narrowphase
 * functions, no tree). Byte 1 may switch on a failing allocator: every growing allocation after
 * the N-th fails; an operation that reports CL_ENOMEM must leave the world exactly as it was.
 * After every operation the tree is validated and every item's shape compared. At the end the
 * world is freed and every byte it allocated must have been returned.
 * Every violated invariant ends in __builtin_trap(). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"
#include "character.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define MAXITEMS 48

typedef struct rd {
    const uint8_t *p;
    size_t n;
    int wide;           /* numbers may be raw doubles (huge, tiny) */
} rd;

static unsigned u8(rd *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

/* A finite number: mostly halves in [-8, 8] (touching cases), sometimes a raw double folded
 * into about [2^-300, 2^300]. */
static double num(rd *r) {
    unsigned b = u8(r);
    if (r->wide && b >= 240) {
        uint64_t bits = 0;
        double x, m;
        int e, i;
        for (i = 0; i < 8; i++) bits = (bits << 8) | u8(r);
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x)) x = 0;
        if (x != 0) {
            m = frexp(x, &e);
            x = ldexp(m, ((e % 600) + 600) % 600 - 300);
        }
        return x;
    }
    return ((int)(b % 33) - 16) / 2.0;
}

static double nonneg(rd *r) { return fabs(num(r)); }
static cl_vec3 vec(rd *r) { double x = num(r), y = num(r); return cl_v3(x, y, num(r)); }

static cl_shape shape(rd *r) {
    cl_shape s;
    switch (u8(r) % 4) {
    case 0:
        s.kind = CL_AABB;
        s.u.aabb.min = vec(r);
        s.u.aabb.max = cl_v3(s.u.aabb.min.x + nonneg(r), s.u.aabb.min.y + nonneg(r), s.u.aabb.min.z + nonneg(r));
        break;
    case 1:
        s.kind = CL_OBB;
        s.u.obb.c = vec(r);
        s.u.obb.h = cl_v3(nonneg(r), nonneg(r), nonneg(r));
        s.u.obb.u[0] = cl_v3(1, 0, 0);
        s.u.obb.u[1] = cl_v3(0, 1, 0);
        s.u.obb.u[2] = cl_v3(0, 0, 1);
        if (u8(r) & 1) cl_obb_rotate(&s.u.obb, num(r), cl_v3(num(r), num(r), 1));
        break;
    case 2:
        s.kind = CL_SPHERE;
        s.u.sphere.c = vec(r);
        s.u.sphere.r = nonneg(r);
        break;
    default:            /* a capsule: often a == b, or an axis-parallel segment */
        s.kind = CL_CAPSULE;
        s.u.capsule.a = vec(r);
        s.u.capsule.b = u8(r) & 1 ? vec(r) : s.u.capsule.a;
        if (u8(r) & 1) s.u.capsule.b.x += nonneg(r);
        s.u.capsule.r = nonneg(r);
        break;
    }
    return s;
}

/* ---- counting, optionally failing allocator (lua_Alloc contract) ---- */
typedef struct heap {
    long allocs;        /* growing allocations so far */
    long failafter;     /* fail every growing allocation after this many (-1: never) */
    long live;          /* bytes currently allocated */
} heap;

static void *halloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    heap *h = (heap *)ud;
    size_t old = ptr ? osize : 0;
    void *q;
    if (nsize == 0) {
        free(ptr);
        h->live -= (long)old;
        return NULL;
    }
    if (nsize > old) {
        if (h->failafter >= 0 && h->allocs >= h->failafter) return NULL;
        h->allocs++;
    }
    q = realloc(ptr, nsize);
    if (q == NULL) return NULL;
    h->live += (long)nsize - (long)old;
    return q;
}

/* ---- the reference: live items with their shapes and add order ---- */
typedef struct ref {
    int live[MAXITEMS * 4];
    cl_shape s[MAXITEMS * 4];
    double seq[MAXITEMS * 4];
    int maxid;          /* ids used are < maxid */
    int count;
    double nextseq;
} ref;

/* cl_shape_overlaps(a, b), which must be symmetric; the World must give exactly its answer. */
static int overl(const cl_shape *a, const cl_shape *b) {
    int x = cl_shape_overlaps(a, b), y = cl_shape_overlaps(b, a);
    CHECK(x == y);
    return x;
}

/* Checks every live item's shape, the count and the tree. */
static void check_state(cl_world *w, const ref *f) {
    int id, n = 0;
    CHECK(w->count == f->count);
    for (id = 0; id < f->maxid; id++) {
        if (!f->live[id]) continue;
        n++;
        CHECK(cl_shape_equal(cl_world_shape(w, id), &f->s[id]));
    }
    CHECK(n == f->count);
    CHECK(cl_tree_validate(&w->tree));
}

static int byseq(const ref *f, int a, int b) { return f->seq[a] < f->seq[b]; }

/* Sorted (by t, then add order) list of the reference hits of a ray. */
static int ref_raycast(const ref *f, const cl_ray *ray, double maxt, cl_whit *out) {
    int id, n = 0, i, j;
    for (id = 0; id < f->maxid; id++) {
        cl_hit h;
        if (!f->live[id] || !cl_shape_raycast(&f->s[id], ray, maxt, &h)) continue;
        out[n].item = id;
        out[n].t = h.t;
        out[n].n = h.n;
        n++;
    }
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && (out[j].t < out[j - 1].t || (out[j].t == out[j - 1].t && byseq(f, out[j].item, out[j - 1].item))); j--) {
            cl_whit t = out[j]; out[j] = out[j - 1]; out[j - 1] = t;
        }
    return n;
}

/* Items in add order. */
static int ordered(const ref *f, int *ids) {
    int id, n = 0, i, j;
    for (id = 0; id < f->maxid; id++) if (f->live[id]) ids[n++] = id;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && byseq(f, ids[j], ids[j - 1]); j--) { int t = ids[j]; ids[j] = ids[j - 1]; ids[j - 1] = t; }
    return n;
}

static void op_query(rd *r, cl_world *w, const ref *f) {
    cl_shape s = shape(r);
    int ids[MAXITEMS * 4], n = ordered(f, ids), got = cl_world_query(w, &s), i, k = 0;
    if (got == CL_ENOMEM) return;
    CHECK(got >= 0);
    for (i = 0; i < n; i++) {
        if (overl(&f->s[ids[i]], &s)) { CHECK(k < got && w->res[k] == ids[i]); k++; }
    }
    CHECK(k == got);
}

static void op_querypoint(rd *r, cl_world *w, const ref *f) {
    cl_vec3 p = vec(r);
    int ids[MAXITEMS * 4], n = ordered(f, ids), got = cl_world_querypoint(w, p), i, k = 0;
    if (got == CL_ENOMEM) return;
    for (i = 0; i < n; i++) {
        if (!cl_shape_contains(&f->s[ids[i]], p)) continue;
        CHECK(k < got && w->res[k] == ids[i]);
        k++;
    }
    CHECK(k == got);
}

static void op_ray(rd *r, cl_world *w, const ref *f) {
    cl_ray ray;
    cl_whit want[MAXITEMS * 4], h;
    double maxt = (u8(r) & 1) ? HUGE_VAL : nonneg(r);
    int n, got, i;
    if (!cl_ray_make(&ray, vec(r), vec(r))) return;
    n = ref_raycast(f, &ray, maxt, want);
    got = cl_world_raycastall(w, &ray, maxt);
    if (got != CL_ENOMEM) {
        CHECK(got == n);
        for (i = 0; i < n; i++) CHECK(w->hits[i].item == want[i].item && w->hits[i].t == want[i].t);
    }
    got = cl_world_raycast(w, &ray, maxt, -1, -1, &h);
    if (got != CL_ENOMEM) {
        CHECK(got == (n > 0));
        if (n > 0) CHECK(h.item == want[0].item && h.t == want[0].t);
    }
    if (n > 1) {        /* the next hit after the first (filters skip hits this way) */
        got = cl_world_raycast(w, &ray, maxt, want[0].t, f->seq[want[0].item], &h);
        if (got != CL_ENOMEM) CHECK(got == 1 && h.item == want[1].item && h.t == want[1].t);
    }
}

static void op_pairs(cl_world *w, const ref *f) {
    int ids[MAXITEMS * 4], n = ordered(f, ids), got = cl_world_pairs(w), i, j, k = 0;
    if (got == CL_ENOMEM) return;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            if (overl(&f->s[ids[i]], &f->s[ids[j]])) {
                CHECK(k < got && w->res[2 * k] == ids[i] && w->res[2 * k + 1] == ids[j]);
                k++;
            }
        }
    CHECK(k == got);
}

static void op_sweep(rd *r, cl_world *w, const ref *f) {
    cl_shape s = shape(r);
    cl_vec3 d = vec(r);
    int ids[MAXITEMS * 4], n = ordered(f, ids), i, best = -1, got;
    double bt = HUGE_VAL;
    cl_whit h;
    for (i = 0; i < n; i++) {
        cl_sweep sw = cl_sweep_shapes(&s, d, &f->s[ids[i]]);
        CHECK(sw.t == sw.t);
        if (sw.state == CL_TOI_SEPARATED) continue;
        CHECK(sw.t >= 0 && sw.t <= 1);
        if (sw.state == CL_TOI_OVERLAPPED) CHECK(sw.t == 0);
        if (sw.t < bt) { bt = sw.t; best = ids[i]; }
    }
    got = cl_world_sweep(w, &s, d, -1, -1, -1, &h);
    if (got == CL_ENOMEM) return;
    CHECK(got == (best >= 0));
    if (best >= 0) {
        double nn = h.n.x * h.n.x + h.n.y * h.n.y + h.n.z * h.n.z;
        CHECK(h.item == best && h.t == bt);
        CHECK(nn == 0 || fabs(nn - 1) < 1e-9);
    }
}

static const cl_resp resps[5] = { CL_RESP_IGNORE, CL_RESP_SLIDE, CL_RESP_TOUCH, CL_RESP_CROSS, CL_RESP_BOUNCE };

typedef struct mctx { unsigned key; int calls; } mctx;

static cl_resp respond(void *ctx, int mover, int other) {
    mctx *c = (mctx *)ctx;
    c->calls++;
    CHECK(mover != other);
    return resps[(c->key + (unsigned)other * 7u) % 5];
}

/* Draws a move of a live item: the item (0 when none is live), its displacement and whether the
 * filter runs with its key; ids and *n get the live items in order. */
static int draw_move(rd *r, const ref *f, int *ids, int *n, int *id, cl_vec3 *d, int *usefilter, mctx *c) {
    *n = ordered(f, ids);
    if (*n == 0) return 0;
    *id = ids[u8(r) % *n];
    *d = vec(r);
    *usefilter = u8(r) & 1;
    c->key = u8(r);
    c->calls = 0;
    return 1;
}

/* 1 if a move of item id ran out of memory, then checked to have left it as it was (before). */
static int nomem_kept(int got, cl_world *w, int id, const cl_shape *before) {
    if (got != CL_ENOMEM) return 0;
    CHECK(cl_shape_equal(cl_world_shape(w, id), before));
    return 1;
}

static void op_move(rd *r, cl_world *w, ref *f, int commit) {
    int ids[MAXITEMS * 4], n, id, got, i;
    cl_vec3 d, a;
    mctx c;
    cl_shape before;
    int usefilter;
    if (!draw_move(r, f, ids, &n, &id, &d, &usefilter, &c)) return;
    before = f->s[id];
    got = cl_world_move(w, id, d, usefilter ? respond : NULL, &c, commit, &a);
    if (nomem_kept(got, w, id, &before)) return;
    CHECK(got >= 0 && got <= 16 * MAXITEMS * 4);
    CHECK(a.x == a.x && a.y == a.y && a.z == a.z);
    for (i = 0; i < got; i++) {
        const cl_col *col = &w->cols[i];
        double nn = col->n.x * col->n.x + col->n.y * col->n.y + col->n.z * col->n.z;
        CHECK(col->other != id && col->other >= 0 && col->other < f->maxid && f->live[col->other]);
        CHECK(col->t >= 0 && col->t <= 1);
        CHECK(nn == 0 || fabs(nn - 1) < 1e-9);
        if (!usefilter) CHECK(col->type == CL_RESP_SLIDE);
        else CHECK(col->type != CL_RESP_IGNORE);
    }
    if (!commit) {
        CHECK(cl_shape_equal(cl_world_shape(w, id), &before));
        return;
    }
    f->s[id] = *cl_world_shape(w, id);
    CHECK(f->s[id].kind == before.kind);
    if (!usefilter) {
        /* all slides: the mover must not end inside anything it did not start inside */
        for (i = 0; i < n; i++) {
            if (ids[i] == id) continue;
            if (!cl_interiors_overlap(&before, &f->s[ids[i]])) CHECK(!cl_interiors_overlap(&f->s[id], &f->s[ids[i]]));
        }
    }
}

/* Pushes a random item out of the others (cl_world_resolve): nothing changes until the caller
 * commits; the end shape is finite, of the same kind, and the count is in range. */
static void op_resolve(rd *r, cl_world *w, ref *f) {
    int ids[MAXITEMS * 4], n = ordered(f, ids), id, got;
    cl_shape before, end;
    cl_vec3 d;
    mctx c;
    int usefilter;
    if (n == 0) return;
    id = ids[u8(r) % n];
    usefilter = u8(r) & 1;
    c.key = u8(r);
    c.calls = 0;
    before = f->s[id];
    got = cl_world_resolve(w, id, usefilter ? respond : NULL, &c, &end, &d);
    CHECK(cl_shape_equal(cl_world_shape(w, id), &before));
    if (got == CL_ENOMEM) return;
    CHECK(got >= 0 && got < n);
    CHECK(end.kind == before.kind && d.x == d.x && d.y == d.y && d.z == d.z);
    {
        cl_aabb b = cl_shape_aabb(&end);
        if (!(fabs(b.min.x) <= DBL_MAX && fabs(b.max.x) <= DBL_MAX && fabs(b.min.y) <= DBL_MAX &&
              fabs(b.max.y) <= DBL_MAX && fabs(b.min.z) <= DBL_MAX && fabs(b.max.z) <= DBL_MAX))
            return;                     /* pushed past the finite range: not committed */
    }
    cl_world_update(w, id, &end);
    f->s[id] = end;
}

/* Moves a random item as the character ch (cl_char_move): CL_ENOMEM leaves it where it was;
 * otherwise the collisions are valid and the shape is finite and of the same kind. */
static void op_char(rd *r, cl_world *w, ref *f, cl_char *ch) {
    int ids[MAXITEMS * 4], n, id, got, i, g;
    cl_vec3 d, a, gn;
    cl_shape before;
    mctx c;
    int usefilter;
    if (!draw_move(r, f, ids, &n, &id, &d, &usefilter, &c)) return;
    before = f->s[id];
    got = cl_char_move(ch, w, id, d, usefilter ? respond : NULL, &c, &a);
    if (nomem_kept(got, w, id, &before)) return;
    CHECK(got >= 0 && got == ch->ncols);
    CHECK(a.x == a.x && a.y == a.y && a.z == a.z);
    for (i = 0; i < got; i++) {
        const cl_col *col = &ch->cols[i];
        CHECK(col->other != id && col->other >= 0 && col->other < f->maxid && f->live[col->other]);
        CHECK(col->type != CL_RESP_IGNORE);
    }
    f->s[id] = *cl_world_shape(w, id);
    CHECK(f->s[id].kind == before.kind);
    if (cl_char_grounded(ch, w, &g, &gn)) CHECK(g != id && g >= 0 && g < f->maxid && f->live[g]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static ref f;
    heap hp;
    cl_world w;
    cl_char ch;
    rd r;
    double margin;
    int steps = 0;
    if (size < 3) return 0;
    r.p = data + 3;
    r.n = size - 3;
    r.wide = data[0] & 1;
    hp.allocs = 0;
    hp.live = 0;
    hp.failafter = (data[1] & 1) ? (long)(data[1] >> 1) : -1;
    switch ((data[0] >> 1) % 4) {
    case 0: margin = 0; break;
    case 1: margin = 0.1; break;
    case 2: margin = 1; break;
    default: margin = ldexp(1, (int)(data[2] % 64) - 32); break;
    }
    memset(&f, 0, sizeof f);
    f.nextseq = 1;
    cl_world_init(&w, margin, halloc, &hp);
    {
        /* the character: up along an axis or not, maxslope, step and snap from byte 2 */
        static const cl_vec3 ups[4] = { { 0, 1, 0 }, { 0, -1, 0 }, { 0, 0, 1 }, { 0.6, 0.8, 0 } };
        cl_char_init(&ch, ups[data[2] & 3], (data[2] >> 2 & 3) * 0.5, (data[2] >> 4 & 3) * 0.25,
                     (data[2] >> 6) * 0.5, halloc, &hp);
    }
    while (r.n > 0 && steps++ < 200) {
        unsigned op = u8(&r) % 16;
        if (op <= 4) {                                      /* add */
            cl_shape s = shape(&r);
            int id;
            if (f.count >= MAXITEMS) continue;
            id = cl_world_add(&w, &s);
            if (id == CL_ENOMEM) { check_state(&w, &f); continue; }
            CHECK(id >= 0 && id < MAXITEMS * 4 && !f.live[id]);
            f.live[id] = 1;
            f.s[id] = s;
            f.seq[id] = f.nextseq++;
            if (id >= f.maxid) f.maxid = id + 1;
            f.count++;
        } else if (op == 5 || op == 6) {                    /* remove / update */
            int ids[MAXITEMS * 4], n = ordered(&f, ids), id;
            if (n == 0) continue;
            id = ids[u8(&r) % n];
            if (op == 5) {
                cl_world_remove(&w, id);
                f.live[id] = 0;
                f.count--;
            } else if (u8(&r) & 1) {
                cl_shape s = shape(&r);
                cl_world_update(&w, id, &s);
                f.s[id] = s;
            } else {                                        /* translate */
                cl_vec3 d = cl_v3(num(&r), num(&r), num(&r));
                cl_shape s = f.s[id];
                int rc = cl_world_translate(&w, id, d);
                cl_shape_translate(&s, d);
                if (rc == 0) f.s[id] = s;
                CHECK(cl_shape_equal(cl_world_shape(&w, id), &f.s[id]));
            }
        } else if (op == 7) {
            op_query(&r, &w, &f);
        } else if (op == 8) {
            op_querypoint(&r, &w, &f);
        } else if (op == 9 || op == 10) {
            op_ray(&r, &w, &f);
        } else if (op == 11) {
            op_pairs(&w, &f);
        } else if (op == 12) {
            op_sweep(&r, &w, &f);
        } else if (op == 13) {
            op_move(&r, &w, &f, 1);
        } else if (op == 14) {                              /* check, push-out, character */
            unsigned k = u8(&r) % 3;
            if (k == 0) op_move(&r, &w, &f, 0);
            else if (k == 1) op_resolve(&r, &w, &f);
            else op_char(&r, &w, &f, &ch);
        } else {                                            /* allocation failures on/off */
            unsigned b = u8(&r);
            hp.failafter = (b & 1) ? hp.allocs + (long)(b >> 1) % 8 : -1;
        }
        check_state(&w, &f);
    }
    hp.failafter = -1;
    op_pairs(&w, &f);
    cl_char_free(&ch);
    cl_world_free(&w);
    CHECK(hp.live == 0);
    return 0;
}
