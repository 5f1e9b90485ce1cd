/* libFuzzer harness of the triangle tests (tri.c) and meshes (mesh.c), issue 16.
 * Build: see spec/check/run.sh (clang -fsanitize=fuzzer,address,undefined, with csrc/core's sources).
 * Input: byte 0 picks how coordinates are decoded (0: small halves, exact arithmetic; 1: raw
 * doubles folded into [2^-300, 2^300]; 2: raw doubles of any finite magnitude), byte 1 the
 * triangle count (1..64), byte 2 whether the mesh is indexed; then vertices, indices and queries,
 * zeros once the input is exhausted. Every query of the mesh must equal the same test run over all
 * triangles by brute force (rays, AABB/OBB/Sphere and capsule queries, closest points: same answer,
 * same triangle, same order; modes 0 and 1; rays also against cl_mesh_rayhit, and their t may
 * exceed cl_tri_raycast's only where cl_mesh_rayhit raises it); nothing may be
 * NaN (every mode); the
 * allocator fails on demand and the mesh must stay freeable. Violations end in __builtin_trap(). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cl.h"
#include "mesh.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

typedef struct rd { const uint8_t *p; size_t n; int mode; } rd;

/* Next byte, 0 when the input is exhausted. */
static unsigned u8(rd *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

/* A finite coordinate decoded as the mode says. */
static double num(rd *r) {
    uint64_t bits = 0;
    double x;
    int i, e;
    if (r->mode == 0) return ((int)(u8(r) % 33) - 16) / 2.0;
    for (i = 0; i < 8; i++) bits = (bits << 8) | u8(r);
    memcpy(&x, &bits, sizeof x);
    if (!isfinite(x)) x = (double)(bits & 0xffff) - 32768.0;
    if (r->mode == 1 && x != 0) {
        double m = frexp(x, &e);
        x = ldexp(m, ((e % 600) + 600) % 600 - 300);
    }
    return x;
}

static cl_vec3 vec(rd *r) {
    double x = num(r), y = num(r), z = num(r);
    return cl_v3(x, y, z);
}

/* malloc allocator that fails once its budget of calls is spent (-1: never). */
static int budget;
static void *fal(void *ud, void *p, size_t o, size_t n) {
    (void)ud; (void)o;
    if (n == 0) { free(p); return NULL; }
    if (budget == 0) return NULL;
    if (budget > 0) budget--;
    return realloc(p, n);
}

static double maxabs3(cl_vec3 v) { return fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z))); }
static int nonan3(cl_vec3 v) { return v.x == v.x && v.y == v.y && v.z == v.z; }
static double d2(cl_vec3 a, cl_vec3 b) {
    double x = a.x - b.x, y = a.y - b.y, z = a.z - b.z;
    return x * x + y * y + z * z;
}

/* The triangle tests of a shape, as the mesh runs them (unscaled data only: see cl_mesh_*). */
static int tri_shape(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_shape *s) {
    switch (s->kind) {
    case CL_AABB: return cl_tri_overlaps_aabb(a, b, c, &s->u.aabb);
    case CL_OBB:  return cl_tri_overlaps_obb(a, b, c, &s->u.obb);
    default:      return cl_tri_overlaps_sphere(a, b, c, &s->u.sphere);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rd r;
    cl_mesh m;
    size_t nt, nv, i;
    int indexed, q, rc, moderate;
    if (size < 3) return 0;
    r.p = data + 3;
    r.n = size - 3;
    r.mode = data[0] % 3;
    nt = 1 + data[1] % 64;
    indexed = data[2] & 1;
    nv = indexed ? 3 + u8(&r) % (3 * nt) : 3 * nt;
    budget = (data[2] & 6) == 6 ? (int)(u8(&r) % 6) : -1;
    rc = cl_mesh_init(&m, nv, nt, indexed, fal, NULL);
    if (rc == CL_OK) {
        for (i = 0; i < 3 * nv; i++) m.v[i] = num(&r);
        if (indexed)
            for (i = 0; i < 3 * nt; i++) m.idx[i] = u8(&r) % (unsigned)nv;
        rc = cl_mesh_build(&m);
    }
    budget = -1;
    if (rc != CL_OK) { cl_mesh_free(&m); return 0; }
    /* the brute force below runs the triangle tests unscaled: compare only where the mesh does not
     * scale (every magnitude within [2^-200, 2^200] or zero), and not in mode 2, whose raw doubles
     * mix magnitudes so far apart (2^-1074 beside 2^140) that products underflow and the triangle
     * tests are right only to that rounding; elsewhere only sanity */
    moderate = r.mode != 2 && m.maxabs <= 0x1p200 && (m.maxabs >= 0x1p-200 || m.maxabs == 0);
    for (q = 0; q < 8 && r.n > 0; q++) {
        cl_ray ray;
        cl_hit h;
        size_t ti = 0, bi = 0;
        cl_vec3 o = vec(&r), d = vec(&r), p, x;
        cl_shape s;
        int hit, k = (int)(u8(&r) % 3);
        double bt = 0;
        if (u8(&r) % 2) {  /* aim at a vertex or an edge point of some triangle */
            cl_vec3 a, b, c;
            cl_mesh_triangle(&m, u8(&r) % nt, &a, &b, &c);
            d = cl_v3(a.x * 0.5 + b.x * 0.5 - o.x, a.y * 0.5 + b.y * 0.5 - o.y, a.z * 0.5 + b.z * 0.5 - o.z);
        }
        if (cl_ray_make(&ray, o, d)) {
            int bh = 0;
            hit = cl_mesh_raycast(&m, &ray, HUGE_VAL, &h, &ti);
            if (hit) CHECK(h.t >= 0 && h.t == h.t && nonan3(h.n) && ti < nt);
            if (moderate && maxabs3(o) <= 0x1p200) {
                /* the least t cl_mesh_rayhit counts, the lowest triangle of a tie (the tree's
                 * pruning is exact; not where the data is scaled or in mode 2, where the node
                 * test's slack is not meant to cover a scaled test's rounding: a ray parallel to y
                 * from outside a triangle's y range got a hit at t = 0 from the scaled test) */
                double rt = 0, t;
                size_t ri = 0;
                int rh = 0;
                for (i = 0; i < nt; i++)
                    if (cl_mesh_rayhit(&m, &ray, i, HUGE_VAL, &t) && (!rh || t < rt)) { rh = 1; rt = t; ri = i; }
                CHECK(hit == rh);
                if (hit) CHECK(h.t == rt && ti == ri);
            }
            if (moderate && maxabs3(o) <= 0x1p200) {
                for (i = 0; i < nt; i++) {
                    cl_vec3 a, b, c;
                    cl_hit bh1;
                    cl_mesh_triangle(&m, i, &a, &b, &c);
                    if (cl_tri_raycast(a, b, c, &ray, HUGE_VAL, &bh1) && (!bh || bh1.t < bt)) { bh = 1; bt = bh1.t; bi = i; }
                }
                CHECK(hit == bh);
                /* the same t and triangle, or a t the mesh raised to the triangle's box entry (a ray
                 * nearly in the plane of a thin triangle: cl_mesh_rayhit) */
                if (hit) CHECK((h.t == bt && ti == bi) || h.t > bt);
            }
        }
        s.kind = (cl_kind)k;
        p = vec(&r);
        if (k == CL_AABB) {
            cl_vec3 e = vec(&r);
            s.u.aabb.min = p;
            s.u.aabb.max = cl_v3(p.x + fabs(e.x), p.y + fabs(e.y), p.z + fabs(e.z));
            if (!(isfinite(s.u.aabb.max.x) && isfinite(s.u.aabb.max.y) && isfinite(s.u.aabb.max.z))) s.u.aabb.max = p;
        } else if (k == CL_OBB) {
            cl_vec3 e = vec(&r);
            s.u.obb.c = p;
            s.u.obb.h = cl_v3(fabs(e.x), fabs(e.y), fabs(e.z));
            s.u.obb.u[0] = cl_v3(0.6, 0.8, 0); s.u.obb.u[1] = cl_v3(-0.8, 0.6, 0); s.u.obb.u[2] = cl_v3(0, 0, 1);
        } else {
            s.u.sphere.c = p;
            s.u.sphere.r = fabs(num(&r));
        }
        {
            unsigned got[64], want[64];
            size_t ng = cl_mesh_query(&m, &s, got, 64), nw = 0;
            cl_aabb qb = cl_shape_aabb(&s);
            CHECK(ng <= nt);
            for (i = 1; i < ng; i++) CHECK(got[i] > got[i - 1]);
            CHECK(cl_mesh_overlaps(&m, &s) == (ng > 0));
            if (moderate && maxabs3(qb.min) <= 0x1p200 && maxabs3(qb.max) <= 0x1p200) {
                for (i = 0; i < nt; i++) {
                    cl_vec3 a, b, c;
                    cl_mesh_triangle(&m, i, &a, &b, &c);
                    if (!cl_tri_degenerate(a, b, c) && tri_shape(a, b, c, &s)) want[nw++] = (unsigned)i;
                }
                CHECK(nw == ng && memcmp(got, want, ng * sizeof *got) == 0);
            }
        }
        {   /* a capsule from p: the same brute-force comparison */
            cl_capsule cp;
            unsigned got[64], want[64];
            size_t ng, nw = 0;
            cp.a = p;
            cp.b = vec(&r);
            cp.r = fabs(num(&r));
            ng = cl_mesh_query_capsule(&m, &cp, got, 64);
            CHECK(ng <= nt && cl_mesh_overlaps_capsule(&m, &cp) == (ng > 0));
            for (i = 1; i < ng; i++) CHECK(got[i] > got[i - 1]);
            if (moderate && maxabs3(cp.a) <= 0x1p200 && maxabs3(cp.b) <= 0x1p200 && cp.r <= 0x1p200) {
                for (i = 0; i < nt; i++) {
                    cl_vec3 a, b, c;
                    cl_mesh_triangle(&m, i, &a, &b, &c);
                    if (!cl_tri_degenerate(a, b, c) && cl_tri_overlaps_capsule(a, b, c, &cp)) want[nw++] = (unsigned)i;
                }
                CHECK(nw == ng && memcmp(got, want, ng * sizeof *got) == 0);
            }
        }
        if (cl_mesh_closest(&m, p, &x, &ti)) {
            CHECK(nonan3(x) && ti < nt);
            if (moderate && maxabs3(p) <= 0x1p200) {
                double best = HUGE_VAL;
                for (i = 0; i < nt; i++) {
                    cl_vec3 a, b, c;
                    cl_mesh_triangle(&m, i, &a, &b, &c);
                    if (!cl_tri_degenerate(a, b, c)) {
                        double dd = d2(cl_tri_closest(a, b, c, p), p);
                        if (dd < best) { best = dd; bi = i; }
                    }
                }
                CHECK(d2(x, p) == best && ti == bi);
            }
        } else {
            CHECK(m.nprim == 0);
        }
        {   /* triangle/segment: never NaN, never more than the endpoints' distances */
            cl_vec3 a, b, c, on1, on2, q2 = vec(&r);
            double dd;
            cl_mesh_triangle(&m, u8(&r) % nt, &a, &b, &c);
            if (r.mode == 0) {  /* within tri.c's contract (magnitudes up to 2^200) */
                dd = cl_tri_segment(a, b, c, p, q2, &on1, &on2);
                CHECK(dd == dd && dd >= 0 && nonan3(on1) && nonan3(on2));
                CHECK(dd <= d2(cl_tri_closest(a, b, c, p), p) && dd <= d2(cl_tri_closest(a, b, c, q2), q2));
            }
        }
    }
    cl_mesh_free(&m);
    return 0;
}
