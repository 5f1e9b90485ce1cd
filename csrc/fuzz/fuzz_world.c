/* libFuzzer harness of the World core (csrc/core/world.h), issues 5 and 16.
 * The input drives adds, removes, updates, queries, raycasts, pairs, sweeps, moves, push-outs
 * (cl_world_resolve), character moves (cl_char_move), plane queries (cl_world_queryplanes) and
 * closest points on one world, each checked against a
 * brute-force list of the live items kept here (same narrowphase functions, no tree). Byte 1 may
 * switch on a failing allocator: every growing allocation after the N-th fails; an operation that
 * reports CL_ENOMEM must leave the world exactly as it was. After every operation the tree is
 * validated and every item's shape compared. At the end the world is freed and every byte it
 * allocated must have been returned.
 * Mesh items (issue 16): with bit 3 of byte 0 set, the input first builds 1-3 small meshes
 * (mesh.h; 1-6 triangles, indexed or not, some degenerate: a repeated vertex or a midpoint) through
 * the same counting, failing allocator (a mesh whose build fails is freed and not used), and then
 * an add or update makes a third of its items mesh items: one of those meshes, shared, placed at
 * a random translation with the world axes, a signed permutation of them, or a rotation. Mesh
 * items are never movers (the core's contract, which the binding enforces): moves, checks,
 * push-outs and character moves pick among the other items, with the mesh items as obstacles.
 * Every answer on a mesh item is checked against brute force as for the other kinds
 * (cl_shape_*, which runs the mesh's own tree) and, where the data is within 2^-200..2^200 (no
 * scaling in mesh.c), also against an independent route: tri.c's tests on every non-degenerate
 * triangle in the mesh's frame (queries, points, rays, plane sides, closest points; mesh/mesh
 * pairs with exact placements on small numbers). Two rotated meshes may touch either way (API.md): a pair of meshes whose
 * overlap depends on the order asked may be reported or not. The meshes' bytes are counted:
 * cl_mesh_bytes must match what they hold, and after the world and the meshes are freed nothing
 * may be left.
 * Every violated invariant ends in __builtin_trap(). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "world.h"
#include "character.h"
#include "mesh.h"
#include "vec.h"

/* Item id's shape: cl_world_shape into one of four rotating buffers (for tests only). */
static const cl_shape *wsh(const cl_world *w, int id) {
    static cl_shape b[4];
    static int k;
    k = (k + 1) & 3;
    return cl_world_shape(w, id, &b[k]);
}

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

/* ---- meshes: built from the input, shared by the mesh items ---- */
#define MAXMESHES 3
static cl_mesh meshes[MAXMESHES];
static int nmesh;
static int smallnums;     /* 1 when numbers are halves in [-8, 8] only (byte 0 bit 0 clear) */

/* Builds meshes[nmesh] from the input through the heap: 1-6 triangles, indexed (3-8 vertices, any
 * index, so repeated ones) or not (a triangle's third vertex may repeat the first or second or be
 * their midpoint). 1 when built (the heap then holds cl_mesh_bytes more); 0 when an allocation
 * failed (the mesh is freed and the heap must be back to what it held). */
static int build_mesh(rd *r, heap *hp) {
    cl_mesh *m = &meshes[nmesh];
    unsigned b = u8(r);
    size_t nt = 1 + b % 6, nv, i;
    int indexed = (b >> 3) & 1, rc;
    long live = hp->live;
    nv = indexed ? 3 + u8(r) % 6 : 3 * nt;
    rc = cl_mesh_init(m, nv, nt, indexed, halloc, hp);
    if (rc == CL_OK) {
        for (i = 0; i < nv; i++) {
            cl_vec3 v = vec(r);
            if (!indexed && i % 3 == 2) {
                unsigned k = u8(r) % 4;
                cl_vec3 a = cl_v3(m->v[3 * i - 6], m->v[3 * i - 5], m->v[3 * i - 4]);
                cl_vec3 c = cl_v3(m->v[3 * i - 3], m->v[3 * i - 2], m->v[3 * i - 1]);
                if (k == 1) v = a;
                else if (k == 2) v = c;
                else if (k == 3) v = cl_v3(a.x * 0.5 + c.x * 0.5, a.y * 0.5 + c.y * 0.5, a.z * 0.5 + c.z * 0.5);
            }
            m->v[3 * i] = v.x; m->v[3 * i + 1] = v.y; m->v[3 * i + 2] = v.z;
        }
        if (indexed)
            for (i = 0; i < 3 * nt; i++) m->idx[i] = u8(r) % (unsigned)nv;
        rc = cl_mesh_build(m);
    }
    CHECK(rc == CL_OK || rc == CL_ENOMEM);
    if (rc == CL_OK) {
        CHECK(hp->live - live == (long)cl_mesh_bytes(m));
        nmesh++;
        return 1;
    }
    cl_mesh_free(m);
    CHECK(hp->live == live);
    return 0;
}

/* 1 if the axes are a signed permutation of the world axes (the frame change is exact). */
static int exact_axes(const cl_vec3 *u) {
    int i;
    for (i = 0; i < 3; i++) {
        double a = fabs(u[i].x), b = fabs(u[i].y), c = fabs(u[i].z);
        if (!((a == 1 && b == 0 && c == 0) || (a == 0 && b == 1 && c == 0) || (a == 0 && b == 0 && c == 1))) return 0;
    }
    return 1;
}

/* A mesh item: one of the meshes at a translation, with the world axes, a signed permutation of
 * them (a reflection included) or a rotation (orthonormal to 1e-6, as the binding demands). */
static cl_shape mesh_item(rd *r) {
    cl_shape s;
    cl_pmesh *pm = &s.u.mesh;
    unsigned k = u8(r);
    s.kind = CL_MESH;
    pm->m = &meshes[k % (unsigned)nmesh];
    pm->c = vec(r);
    pm->u[0] = cl_v3(1, 0, 0);
    pm->u[1] = cl_v3(0, 1, 0);
    pm->u[2] = cl_v3(0, 0, 1);
    if ((k >> 2) % 3 == 1) {
        static const unsigned char perm[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
                                                  { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
        unsigned p = u8(r), i;
        cl_vec3 e[3];
        e[0] = pm->u[0]; e[1] = pm->u[1]; e[2] = pm->u[2];
        for (i = 0; i < 3; i++) pm->u[i] = cl_mul(e[perm[p % 6][i]], (p >> (3 + i)) & 1 ? -1.0 : 1.0);
    } else if ((k >> 2) % 3 == 2) {
        cl_obb o;
        double a = num(r);
        o.c = cl_v3(0, 0, 0);
        o.h = cl_v3(0, 0, 0);
        o.u[0] = pm->u[0]; o.u[1] = pm->u[1]; o.u[2] = pm->u[2];
        if (cl_obb_rotate(&o, a, cl_v3(num(r), num(r), 1)) && cl_axes_orthonormal(o.u, 1e-6)) {
            pm->u[0] = o.u[0]; pm->u[1] = o.u[1]; pm->u[2] = o.u[2];
        }
    }
    return s;
}

/* An item's shape: with meshes built, a third of them mesh items; else shape(). */
static cl_shape item_shape(rd *r) {
    if (nmesh > 0 && u8(r) % 3 == 0) return mesh_item(r);
    return shape(r);
}

/* ---- the independent route for mesh items: tri.c over every triangle in the mesh's frame ---- */

/* The point p and direction v in the frame of placed mesh pm (the change meshworld.c makes:
 * p -> U^T (p - c), the same operations, so the same numbers). */
static cl_vec3 dir_in(const cl_pmesh *pm, cl_vec3 v) {
    return cl_v3(cl_dot(pm->u[0], v), cl_dot(pm->u[1], v), cl_dot(pm->u[2], v));
}
static cl_vec3 point_in(const cl_pmesh *pm, cl_vec3 p) { return dir_in(pm, cl_sub(p, pm->c)); }
static cl_vec3 point_out(const cl_pmesh *pm, cl_vec3 p) {
    return cl_add(pm->c, cl_add(cl_add(cl_mul(pm->u[0], p.x), cl_mul(pm->u[1], p.y)), cl_mul(pm->u[2], p.z)));
}

static int world_axes(const cl_pmesh *pm) {
    return pm->u[0].x == 1 && pm->u[0].y == 0 && pm->u[0].z == 0 && pm->u[1].x == 0 && pm->u[1].y == 1 &&
           pm->u[1].z == 0 && pm->u[2].x == 0 && pm->u[2].y == 0 && pm->u[2].z == 1;
}

/* Largest magnitude of the box's corners. */
static double boxmax(const cl_aabb *b) {
    return fmax(cl_maxabs3(b->min.x, b->min.y, b->min.z), cl_maxabs3(b->max.x, b->max.y, b->max.z));
}

/* 1 when the mesh's triangle tests run unscaled for a query of magnitude up to mx (mesh.c scales
 * data beyond 2^200 and meshes wholly below 2^-200). */
static int unscaled(const cl_mesh *m, double mx) {
    return m->maxabs <= 0x1p200 && (m->maxabs >= 0x1p-200 || m->maxabs == 0) && mx <= 0x1p200;
}

/* Query shape s (not a mesh) in pm's frame: an AABB stays one under the world axes (translated),
 * else it becomes an OBB; the others keep their kind. */
static cl_shape shape_in(const cl_pmesh *pm, const cl_shape *s) {
    cl_shape l = *s;
    int i;
    switch (s->kind) {
    case CL_AABB:
        if (world_axes(pm)) {
            l.u.aabb.min = cl_sub(s->u.aabb.min, pm->c);
            l.u.aabb.max = cl_sub(s->u.aabb.max, pm->c);
            break;
        }
        l.kind = CL_OBB;
        l.u.obb = cl_obb_from_aabb(&s->u.aabb);
        /* fall through */
    case CL_OBB:
        l.u.obb.c = point_in(pm, l.u.obb.c);
        for (i = 0; i < 3; i++) l.u.obb.u[i] = dir_in(pm, l.u.obb.u[i]);
        break;
    case CL_SPHERE:
        l.u.sphere.c = point_in(pm, s->u.sphere.c);
        break;
    default:
        l.u.capsule.a = point_in(pm, s->u.capsule.a);
        l.u.capsule.b = point_in(pm, s->u.capsule.b);
        break;
    }
    return l;
}

/* Brute force of a query shape s (not a mesh) against the placed mesh pm: 1 if some
 * non-degenerate triangle overlaps it in the mesh's frame, 0 if none, -1 when mesh.c would scale
 * (no comparison). */
static int bf_mesh_overlaps(const cl_pmesh *pm, const cl_shape *s) {
    cl_shape l = shape_in(pm, s);
    cl_aabb b = cl_shape_aabb(&l);
    double mx = boxmax(&b);
    size_t i;
    if (l.kind == CL_OBB) mx = fmax(mx, cl_maxabs3(l.u.obb.h.x, l.u.obb.h.y, l.u.obb.h.z));
    if (l.kind == CL_SPHERE) mx = fmax(mx, l.u.sphere.r);
    if (l.kind == CL_CAPSULE) mx = fmax(mx, l.u.capsule.r);
    if (!unscaled(pm->m, mx) || !(mx == mx)) return -1;
    for (i = 0; i < pm->m->nt; i++) {
        cl_vec3 a, bb, c;
        int hit;
        cl_mesh_triangle(pm->m, i, &a, &bb, &c);
        if (cl_tri_degenerate(a, bb, c)) continue;
        switch (l.kind) {
        case CL_AABB:   hit = cl_tri_overlaps_aabb(a, bb, c, &l.u.aabb); break;
        case CL_OBB:    hit = cl_tri_overlaps_obb(a, bb, c, &l.u.obb); break;
        case CL_SPHERE: hit = cl_tri_overlaps_sphere(a, bb, c, &l.u.sphere); break;
        default:        hit = cl_tri_overlaps_capsule(a, bb, c, &l.u.capsule); break;
        }
        if (hit) return 1;
    }
    return 0;
}

/* Brute force of a ray against the placed mesh pm: the least t over the triangles (cl_mesh_rayhit
 * in the mesh's frame, checked against cl_tri_raycast: the same hits, t never lower), HUGE_VAL for
 * a miss, -1 when mesh.c would scale. */
static double bf_mesh_ray(const cl_pmesh *pm, const cl_ray *ray, double maxt) {
    cl_ray l;
    double best = HUGE_VAL;
    size_t i;
    l.o = point_in(pm, ray->o);
    l.d = dir_in(pm, ray->d);
    if (!unscaled(pm->m, cl_maxabs3(l.o.x, l.o.y, l.o.z))) return -1;
    for (i = 0; i < pm->m->nt; i++) {
        cl_vec3 a, b, c;
        cl_hit h;
        double t;
        int th, mh;
        cl_mesh_triangle(pm->m, i, &a, &b, &c);
        /* the mesh counts a triangle's t as cl_mesh_rayhit does: tri.c's, raised (never lowered)
         * to the ray's entry into the triangle's box when rounding left it short (82fd4cf) */
        th = cl_tri_raycast(a, b, c, &l, HUGE_VAL, &h);
        mh = cl_mesh_rayhit(pm->m, &l, i, HUGE_VAL, &t);
        CHECK(th == mh && (!th || t >= h.t));
        if (mh && t <= maxt && t < best) best = t;
    }
    return best;
}

/* Brute force of shape s (not a mesh) swept by d against placed mesh pm: the sweep of every
 * triangle in the mesh's frame (trisweep.c; a box as its corners and axes). *over gets 1 if some
 * triangle starts overlapped; returns 1 if some triangle's sweep has state st and time t, 0 if
 * none, -1 when mesh.c would scale the box query (no comparison). */
static int bf_mesh_sweep(const cl_pmesh *pm, const cl_shape *s, cl_vec3 d, int st, double t, int *over) {
    cl_shape l = shape_in(pm, s);
    cl_vec3 ld = dir_in(pm, d), p[8], fa[3];
    cl_aabb b = cl_shape_aabb(&l);
    size_t i;
    int k, found = 0;
    if (!unscaled(pm->m, boxmax(&b) + cl_maxabs3(ld.x, ld.y, ld.z))) return -1;
    if (l.kind == CL_AABB) {
        for (k = 0; k < 8; k++)
            p[k] = cl_v3(k & 1 ? b.max.x : b.min.x, k & 2 ? b.max.y : b.min.y, k & 4 ? b.max.z : b.min.z);
        fa[0] = cl_v3(1, 0, 0); fa[1] = cl_v3(0, 1, 0); fa[2] = cl_v3(0, 0, 1);
    } else if (l.kind == CL_OBB) {
        const cl_obb *o = &l.u.obb;
        for (k = 0; k < 8; k++) {
            cl_vec3 x = cl_mul(o->u[0], k & 1 ? o->h.x : -o->h.x), y = cl_mul(o->u[1], k & 2 ? o->h.y : -o->h.y),
                    z = cl_mul(o->u[2], k & 4 ? o->h.z : -o->h.z);
            p[k] = cl_add(o->c, cl_add(cl_add(x, y), z));
        }
        for (k = 0; k < 3; k++) fa[k] = o->u[k];
    }
    *over = 0;
    for (i = 0; i < pm->m->nt; i++) {
        cl_vec3 a, bb, c;
        cl_sweep w;
        cl_mesh_triangle(pm->m, i, &a, &bb, &c);
        if (cl_tri_degenerate(a, bb, c)) continue;
        w = l.kind == CL_SPHERE ? cl_sweep_sphere_tri(&l.u.sphere, ld, a, bb, c)
            : l.kind == CL_CAPSULE ? cl_sweep_capsule_tri(&l.u.capsule, ld, a, bb, c)
                                   : cl_sweep_hull_tri(p, 8, fa, 3, fa, 3, ld, a, bb, c);
        if (w.state == CL_TOI_OVERLAPPED) *over = 1;
        if ((int)w.state == st && w.t == t) found = 1;
    }
    return found;
}

/* Brute force of two placed meshes as meshworld.c pairs them (a's triangles brought into b's
 * frame), every triangle against every one; only for exact placements on unscaled data. */
static int bf_meshes(const cl_pmesh *a, const cl_pmesh *b) {
    size_t i, j;
    for (i = 0; i < a->m->nt; i++) {
        cl_vec3 p[3];
        int k;
        cl_mesh_triangle(a->m, i, &p[0], &p[1], &p[2]);
        if (cl_tri_degenerate(p[0], p[1], p[2])) continue;
        for (k = 0; k < 3; k++) p[k] = point_in(b, point_out(a, p[k]));
        for (j = 0; j < b->m->nt; j++) {
            cl_vec3 q[3];
            cl_mesh_triangle(b->m, j, &q[0], &q[1], &q[2]);
            if (!cl_tri_degenerate(q[0], q[1], q[2]) && cl_tri_overlaps_tri(p, q)) return 1;
        }
    }
    return 0;
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

/* cl_shape_overlaps(a, b), which must be symmetric; the World must give exactly its answer. A mesh
 * item's answer must also be the brute force's over its triangles where that runs. Two meshes: 2
 * when the answer depends on the order asked (either is right; only where some placement is
 * rotated or the numbers are large), else the answer, checked against the brute force when both
 * placements are exact on small numbers. */
static int overl(const cl_shape *a, const cl_shape *b) {
    int x = cl_shape_overlaps(a, b), y = cl_shape_overlaps(b, a), bf;
    CHECK(x == 0 || x == 1);
    CHECK(y == 0 || y == 1);
    if (a->kind == CL_MESH && b->kind == CL_MESH) {
        if (smallnums && exact_axes(a->u.mesh.u) && exact_axes(b->u.mesh.u)) {
            CHECK(x == bf_meshes(&a->u.mesh, &b->u.mesh));
            CHECK(y == bf_meshes(&b->u.mesh, &a->u.mesh));
            CHECK(x == y);
        }
        return x == y ? x : 2;
    }
    CHECK(x == y);
    if (a->kind == CL_MESH || b->kind == CL_MESH) {
        bf = a->kind == CL_MESH ? bf_mesh_overlaps(&a->u.mesh, b) : bf_mesh_overlaps(&b->u.mesh, a);
        if (bf >= 0) CHECK(bf == x);
    }
    return x;
}

/* Checks every live item's shape, the count and the tree. */
static void check_state(cl_world *w, const ref *f) {
    int id, n = 0;
    CHECK(w->count == f->count);
    for (id = 0; id < f->maxid; id++) {
        if (!f->live[id]) continue;
        n++;
        CHECK(cl_shape_equal(wsh(w, id), &f->s[id]));
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
        int hit;
        if (!f->live[id]) continue;
        hit = cl_shape_raycast(&f->s[id], ray, maxt, &h);
        if (f->s[id].kind == CL_MESH) {         /* the triangles' least t, where that runs */
            double bt = bf_mesh_ray(&f->s[id].u.mesh, ray, maxt);
            if (bt >= 0) CHECK(hit == (bt != HUGE_VAL) && (!hit || h.t == bt));
        }
        if (!hit) continue;
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

/* 1 if a and b are the same point, component by component. */
static int veq(cl_vec3 a, cl_vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* Brute force of the plane n.x + d = 0 against placed mesh pm: the side (1 in front, -1 behind, 0
 * across) of every non-degenerate triangle in the mesh's frame, -1 for none, the sides of all the
 * triangles agreeing or 0; -1 - 1 = -2 when mesh.c would scale (no comparison). */
static int bf_mesh_plane(const cl_pmesh *pm, cl_vec3 n, double d) {
    cl_vec3 ln = dir_in(pm, n);
    double ld = d + cl_dot(n, pm->c);
    int side = 2;
    size_t i;
    if (!unscaled(pm->m, 0)) return -2;
    for (i = 0; i < pm->m->nt; i++) {
        cl_vec3 a, b, c;
        double sa, sb, sc;
        int s;
        cl_mesh_triangle(pm->m, i, &a, &b, &c);
        if (cl_tri_degenerate(a, b, c)) continue;
        sa = cl_dot(ln, a) + ld; sb = cl_dot(ln, b) + ld; sc = cl_dot(ln, c) + ld;
        s = sa > 0 && sb > 0 && sc > 0 ? 1 : sa < 0 && sb < 0 && sc < 0 ? -1 : 0;
        if (s == 0) return 0;
        if (side == 2) side = s;
        else if (side != s) return 0;
    }
    return side == 2 ? -1 : side;
}

/* Brute force of the closest point of placed mesh pm to p, in the mesh's frame: the least squared
 * distance from pl (p in that frame) over the non-degenerate triangles (cl_tri_closest), its
 * triangle in *ti and its point in *q; HUGE_VAL for no triangle, -1 when mesh.c would scale. */
static double bf_mesh_closest(const cl_pmesh *pm, cl_vec3 pl, cl_vec3 *q, size_t *ti) {
    double best = HUGE_VAL;
    size_t i;
    if (!unscaled(pm->m, cl_maxabs3(pl.x, pl.y, pl.z))) return -1;
    for (i = 0; i < pm->m->nt; i++) {
        cl_vec3 a, b, c, x, e;
        double dd;
        cl_mesh_triangle(pm->m, i, &a, &b, &c);
        if (cl_tri_degenerate(a, b, c)) continue;
        x = cl_tri_closest(a, b, c, pl);
        e = cl_sub(x, pl);
        dd = cl_dot(e, e);
        if (dd < best) { best = dd; *q = x; *ti = i; }
    }
    return best;
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
        int in = cl_shape_contains(&f->s[ids[i]], p);
        if (f->s[ids[i]].kind == CL_MESH) {     /* a point: a sphere of radius 0 */
            cl_shape pt;
            int bf;
            pt.kind = CL_SPHERE;
            pt.u.sphere.c = p;
            pt.u.sphere.r = 0;
            bf = bf_mesh_overlaps(&f->s[ids[i]].u.mesh, &pt);
            if (bf >= 0) CHECK(bf == in);
        }
        if (!in) continue;
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

/* queryplanes: 1-8 planes (sometimes up to 32) of any finite normal, zero included; an item is
 * kept when no plane has it wholly behind (cl_shape_plane, the shapes' own test: the tree and its
 * masks must neither drop nor add any), in add order; a mesh item's side is also checked against
 * its triangles by brute force. */
static void op_queryplanes(rd *r, cl_world *w, const ref *f) {
    double pl[4 * 32];
    unsigned b = u8(r);
    int np = (b & 0x80) ? 1 + (int)(b % 32) : 1 + (int)(b % 8), ids[MAXITEMS * 4], n, got, i, k = 0, j;
    for (j = 0; j < np; j++) {
        cl_vec3 v = vec(r);
        pl[4 * j] = v.x; pl[4 * j + 1] = v.y; pl[4 * j + 2] = v.z;
        pl[4 * j + 3] = num(r);
    }
    n = ordered(f, ids);
    got = cl_world_queryplanes(w, pl, np);
    if (got == CL_ENOMEM) return;
    CHECK(got >= 0);
    for (i = 0; i < n; i++) {
        const cl_shape *s = &f->s[ids[i]];
        int keep = 1;
        for (j = 0; j < np; j++) {
            cl_vec3 nv = cl_v3(pl[4 * j], pl[4 * j + 1], pl[4 * j + 2]);
            int side = cl_shape_plane(s, nv, pl[4 * j + 3]);
            CHECK(side >= -1 && side <= 1);
            if (s->kind == CL_MESH) {
                int bf = bf_mesh_plane(&s->u.mesh, nv, pl[4 * j + 3]);
                if (bf != -2) CHECK(bf == side);
            }
            if (side < 0) keep = 0;
        }
        if (!keep) continue;
        CHECK(k < got && w->res[k] == ids[i]);
        k++;
    }
    CHECK(k == got);
}

/* The closest point of a random item to a random point: never NaN for finite data; a mesh item's
 * (the mesh's tree) must equal the brute force's over its triangles (same squared distance in the
 * mesh's frame, same triangle) where that runs, and cl_shape_closest must be that point placed. */
static void op_closest(rd *r, const ref *f) {
    int ids[MAXITEMS * 4], n = ordered(f, ids);
    const cl_shape *s;
    cl_vec3 p = vec(r), x;
    if (n == 0) return;
    s = &f->s[ids[u8(r) % n]];
    x = cl_shape_closest(s, p);
    if (s->kind == CL_MESH) {
        const cl_pmesh *pm = &s->u.mesh;
        cl_vec3 pl = point_in(pm, p), q, bq;
        size_t ti, bi = 0;
        double bf = bf_mesh_closest(pm, pl, &bq, &bi);
        if (!cl_mesh_closest(pm->m, pl, &q, &ti)) {
            CHECK(pm->m->nprim == 0 && veq(x, p));
            if (bf >= 0) CHECK(bf == HUGE_VAL);
            return;
        }
        CHECK(veq(x, point_out(pm, q)));
        if (bf >= 0) {
            cl_vec3 e = cl_sub(q, pl);
            CHECK(cl_dot(e, e) == bf && ti == bi);
        }
    } else if (isfinite(p.x) && isfinite(p.y) && isfinite(p.z)) {
        CHECK(x.x == x.x && x.y == x.y && x.z == x.z);
    }
}

static void op_pairs(cl_world *w, const ref *f) {
    int ids[MAXITEMS * 4], n = ordered(f, ids), got = cl_world_pairs(w), i, j, k = 0;
    if (got == CL_ENOMEM) return;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            int o = overl(&f->s[ids[i]], &f->s[ids[j]]);
            if (o == 2) {               /* either answer is right */
                if (k < got && w->res[2 * k] == ids[i] && w->res[2 * k + 1] == ids[j]) k++;
            } else if (o) {
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
        if (f->s[ids[i]].kind == CL_MESH) {
            /* the mesh's answer is some triangle's, and overlapped exactly when one is (a start
             * overlapped by more than the resting allowance lies in the swept box) */
            int over, bf = bf_mesh_sweep(&f->s[ids[i]].u.mesh, &s, d, (int)sw.state, sw.t, &over);
            if (bf >= 0) {
                CHECK(over == (sw.state == CL_TOI_OVERLAPPED));
                if (sw.state != CL_TOI_SEPARATED) CHECK(bf == 1);
            }
        }
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

/* Draws a mover among the n live items ids (in order) that are not meshes (mesh items never move:
 * cl_world_move, cl_world_resolve and cl_char_move take no mesh item, as the binding enforces):
 * 1 and *id, or 0 when there is none. Without mesh items the same draw as before them. */
static int draw_mover(rd *r, const ref *f, const int *ids, int n, int *id) {
    int movers[MAXITEMS * 4], nm = 0, i;
    for (i = 0; i < n; i++) if (f->s[ids[i]].kind != CL_MESH) movers[nm++] = ids[i];
    if (nm == 0) return 0;
    *id = movers[u8(r) % nm];
    return 1;
}

/* Draws a move of a live item that is not a mesh: the item (0 when there is none), its displacement and whether the
 * filter runs with its key; ids and *n get the live items in order. */
static int draw_move(rd *r, const ref *f, int *ids, int *n, int *id, cl_vec3 *d, int *usefilter, mctx *c) {
    *n = ordered(f, ids);
    if (!draw_mover(r, f, ids, *n, id)) return 0;
    *d = vec(r);
    *usefilter = u8(r) & 1;
    c->key = u8(r);
    c->calls = 0;
    return 1;
}

/* 1 if a move of item id ran out of memory, then checked to have left it as it was (before). */
static int nomem_kept(int got, cl_world *w, int id, const cl_shape *before) {
    if (got != CL_ENOMEM) return 0;
    CHECK(cl_shape_equal(wsh(w, id), before));
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
        CHECK(cl_shape_equal(wsh(w, id), &before));
        return;
    }
    f->s[id] = *wsh(w, id);
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
    if (!draw_mover(r, f, ids, n, &id)) return;
    usefilter = u8(r) & 1;
    c.key = u8(r);
    c.calls = 0;
    before = f->s[id];
    got = cl_world_resolve(w, id, usefilter ? respond : NULL, &c, &end, &d);
    CHECK(cl_shape_equal(wsh(w, id), &before));
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
    f->s[id] = *wsh(w, id);
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
    smallnums = !r.wide;
    nmesh = 0;
    if (data[0] & 8) {                                      /* meshes for mesh items */
        int k, want = 1 + (int)(u8(&r) % MAXMESHES);
        for (k = 0; k < want; k++) (void)build_mesh(&r, &hp);
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
        unsigned op = u8(&r) % 18;
        if (op <= 4) {                                      /* add */
            cl_shape s = item_shape(&r);
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
                cl_shape s = item_shape(&r);
                /* CL_ENOMEM only when an AABB item gets another kind and no side slot is free */
                int rc = cl_world_update(&w, id, &s);
                CHECK(rc == CL_OK || (rc == CL_ENOMEM && f.s[id].kind == CL_AABB && s.kind != CL_AABB));
                if (rc == CL_OK) f.s[id] = s;
            } else {                                        /* translate */
                cl_vec3 d = cl_v3(num(&r), num(&r), num(&r));
                cl_shape s = f.s[id];
                int rc = cl_world_translate(&w, id, d);
                cl_shape_translate(&s, d);
                if (rc == 0) f.s[id] = s;
                CHECK(cl_shape_equal(wsh(&w, id), &f.s[id]));
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
        } else if (op == 16) {
            op_queryplanes(&r, &w, &f);
        } else if (op == 17) {
            op_closest(&r, &f);
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
    {   /* what is left is the meshes' */
        long mb = 0;
        int k;
        for (k = 0; k < nmesh; k++) mb += (long)cl_mesh_bytes(&meshes[k]);
        CHECK(hp.live == mb);
        for (k = 0; k < nmesh; k++) cl_mesh_free(&meshes[k]);
    }
    CHECK(hp.live == 0);
    return 0;
}
