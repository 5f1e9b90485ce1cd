/* Plain-C test of the narrow phase (`make check-core`): penetration for every pair of kinds and the
 * capsule, against brute-force references (support functions minimised over dense directions,
 * sampled distances, sampled sweeps with bisection), with a fixed seed. Under COLLIDE_QUICK about a
 * quarter of the random cases. Last line: "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <float.h>
#include "world.h"
#include "vec.h"
#define CHECK_SEED 0x2545F4914F6CDD1DULL
#include "check.h"

static double vlen(cl_vec3 a) { return sqrt(dot(a, a)); }
static cl_vec3 vunit(cl_vec3 a) { return vmul(a, 1.0 / vlen(a)); }
/* The state of sweep r, with its t and n written out. */
static cl_toi_state unpack(cl_sweep r, double *t, cl_vec3 *n) { *t = r.t; *n = r.n; return r.state; }

static int chance(double p) { return rnd() < p; }
static cl_vec3 rvec(double a, double b)
{
    double x = urand(a, b), y = urand(a, b), z = urand(a, b);
    return cl_v3(x, y, z);
}
/* A random unit vector (uniform). */
static cl_vec3 runit(void)
{
    for (;;) {
        cl_vec3 v = rvec(-1, 1);
        double l = vlen(v);
        if (l > 0.1 && l <= 1) return vmul(v, 1 / l);
    }
}
/* A random rotation from a unit quaternion; sometimes a world-axis frame, sometimes nearly one. */
static void rrot(cl_vec3 u[3])
{
    double q[4], l = 0, w, x, y, z, p = rnd();
    int i;
    if (p < 0.2) {
        u[0] = cl_v3(1, 0, 0); u[1] = cl_v3(0, 1, 0); u[2] = cl_v3(0, 0, 1);
        return;
    }
    for (i = 0; i < 4; i++) { q[i] = urand(-1, 1); l += q[i] * q[i]; }
    if (p < 0.3) { q[0] = 1; q[1] *= 1e-9; q[2] *= 1e-9; q[3] *= 1e-9; }     /* nearly world axes */
    else if (p < 0.4) { q[1] = q[2] = 0; }                                    /* about z only */
    l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    w = q[0] / l; x = q[1] / l; y = q[2] / l; z = q[3] / l;
    u[0] = cl_v3(1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y));
    u[1] = cl_v3(2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x));
    u[2] = cl_v3(2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y));
}
/* A coordinate: often on a quarter grid (touching faces, equal coordinates). */
static double rco(double a, double b, int grid) { double v = urand(a, b); return grid ? floor(v * 4) / 4 : v; }

/* ---- support functions (the independent reference) ---- */

/* Largest value of p.L over the shape. */
static double support(const cl_shape *s, cl_vec3 L)
{
    switch (s->kind) {
    case CL_AABB:
        return (L.x > 0 ? s->u.aabb.max.x : s->u.aabb.min.x) * L.x + (L.y > 0 ? s->u.aabb.max.y : s->u.aabb.min.y) * L.y +
               (L.z > 0 ? s->u.aabb.max.z : s->u.aabb.min.z) * L.z;
    case CL_OBB: {
        const cl_obb *o = &s->u.obb;
        return dot(o->c, L) + o->h.x * fabs(dot(o->u[0], L)) + o->h.y * fabs(dot(o->u[1], L)) +
               o->h.z * fabs(dot(o->u[2], L));
    }
    default:
        return dot(s->u.sphere.c, L) + s->u.sphere.r * vlen(L);
    }
}

/* The function minimised: how far a must move along unit L to leave b (h_B(L) + h_A(-L)). */
typedef double (*supfn)(const void *ctx, cl_vec3 L);
static double pen_along(const void *ctx, cl_vec3 L)
{
    const cl_shape *const *ab = (const cl_shape *const *)ctx;
    return support(ab[1], L) + support(ab[0], vmul(L, -1));
}

/* Minimum over unit directions of f: 2,000 Fibonacci directions (and seed, when not zero), then the
 * best few refined by a pattern search with random tangent steps halved down to 1e-13. Writes the
 * direction. */
static double minimise(supfn f, const void *ctx, cl_vec3 seed, cl_vec3 *best)
{
    enum { N = 2000, K = 4 };
    double vals[K], ga = PI * (3 - sqrt(5.0)), res = INFINITY;
    cl_vec3 dirs[K];
    int i, k;
    for (k = 0; k < K; k++) vals[k] = INFINITY, dirs[k] = cl_v3(1, 0, 0);
    for (i = 0; i < N + 7; i++) {
        cl_vec3 L;
        double v;
        if (i == N + 6) {
            if (seed.x == 0 && seed.y == 0 && seed.z == 0) break;
            L = seed;
        } else if (i < 6) L = cl_v3(i == 0 ? 1 : i == 1 ? -1 : 0, i == 2 ? 1 : i == 3 ? -1 : 0, i == 4 ? 1 : i == 5 ? -1 : 0);
        else {
            double y = 1 - 2 * (i - 6 + 0.5) / N, r = sqrt(1 - y * y), th = ga * (i - 6);
            L = cl_v3(r * cos(th), y, r * sin(th));
        }
        v = f(ctx, L);
        for (k = 0; k < K; k++)
            if (v < vals[k]) {
                int j;
                for (j = K - 1; j > k; j--) vals[j] = vals[j - 1], dirs[j] = dirs[j - 1];
                vals[k] = v; dirs[k] = L;
                break;
            }
    }
    for (k = 0; k < K; k++) {
        cl_vec3 L = dirs[k];
        double v = vals[k], step = 0.08;
        int iter = 0;
        while (step > 1e-13 && iter++ < 4000) {
            int j, moved = 0;
            cl_vec3 t1 = vunit(vcross(L, fabs(L.x) < 0.6 ? cl_v3(1, 0, 0) : cl_v3(0, 1, 0))), t2 = vcross(L, t1);
            for (j = 0; j < 16; j++) {
                double a = j < 8 ? j * PI / 4 : urand(0, 2 * PI);
                cl_vec3 M = vunit(vadd(L, vadd(vmul(t1, step * cos(a)), vmul(t2, step * sin(a)))));
                double w = f(ctx, M);
                if (w < v) { v = w; L = M; moved = 1; break; }
            }
            if (!moved) step *= 0.5;
        }
        if (v < res) { res = v; *best = L; }
    }
    return res;
}

/* ---- random shapes ---- */

/* A random shape of the kind near the origin (size about 1), on a quarter grid when grid. */
static cl_shape rshape(cl_kind kind, int grid)
{
    cl_shape s;
    s.kind = kind;
    if (kind == CL_AABB) {
        double cx = rco(-1, 1, grid), cy = rco(-1, 1, grid), cz = rco(-1, 1, grid);
        double hx = chance(0.1) ? 0 : rco(0.05, 1, grid), hy = rco(0.05, 1, grid), hz = chance(0.1) ? 0 : rco(0.05, 1, grid);
        s.u.aabb.min = cl_v3(cx - hx, cy - hy, cz - hz);
        s.u.aabb.max = cl_v3(cx + hx, cy + hy, cz + hz);
    } else if (kind == CL_OBB) {
        double cx = rco(-1, 1, grid), cy = rco(-1, 1, grid), cz = rco(-1, 1, grid);
        double hx = rco(0.05, 1, grid), hy = rco(0.05, 1, grid), hz = chance(0.1) ? 0 : rco(0.05, 1, grid);
        s.u.obb.c = cl_v3(cx, cy, cz);
        s.u.obb.h = cl_v3(hx, hy, hz);
        rrot(s.u.obb.u);
    } else {
        double cx = rco(-1, 1, grid), cy = rco(-1, 1, grid), cz = rco(-1, 1, grid);
        s.u.sphere.c = cl_v3(cx, cy, cz);
        s.u.sphere.r = chance(0.05) ? 0 : rco(0.05, 1, grid);
    }
    return s;
}

/* The shape scaled by k about the origin then moved by o. */
static cl_shape place(cl_shape s, double k, cl_vec3 o)
{
    switch (s.kind) {
    case CL_AABB:
        s.u.aabb.min = vadd(vmul(s.u.aabb.min, k), o);
        s.u.aabb.max = vadd(vmul(s.u.aabb.max, k), o);
        break;
    case CL_OBB:
        s.u.obb.c = vadd(vmul(s.u.obb.c, k), o);
        s.u.obb.h = vmul(s.u.obb.h, k);
        break;
    default:
        s.u.sphere.c = vadd(vmul(s.u.sphere.c, k), o);
        s.u.sphere.r *= k;
    }
    return s;
}

/* The shape moved by d. */
static cl_shape moved(cl_shape s, cl_vec3 d)
{
    cl_shape_translate(&s, d);
    return s;
}

/* ================================================================ */


static void test_penetration_fixed(void)
{
    cl_aabb a = box(0, 0, 0, 2, 2, 2), b = box(1.5, 0.25, 0.5, 4, 1, 1), f;
    cl_sphere s;
    cl_obb o;
    cl_shape sa, sb;
    double d = -1;
    cl_vec3 n = cl_v3(9, 9, 9);
    ENSURE(cl_penetration_aabb_aabb(&b, &a, &d, &n) && d == 0.5 && veq(n, 1, 0, 0),
           "aabb/aabb: a box overlapping by 0.5 along x is pushed +x by 0.5");
    ENSURE(cl_penetration_aabb_aabb(&a, &b, &d, &n) && d == 0.5 && veq(n, -1, 0, 0),
           "aabb/aabb: the other way round pushes -x");
    b = box(2, 0, 0, 3, 1, 1);
    ENSURE(!cl_penetration_aabb_aabb(&b, &a, &d, &n), "aabb/aabb: touching faces have no penetration");
    b = box(2, 2, 2, 3, 3, 3);
    ENSURE(!cl_penetration_aabb_aabb(&b, &a, &d, &n), "aabb/aabb: touching corners have no penetration");
    b = box(0.5, 0.5, 0.5, 1.5, 1.5, 1.5);
    ENSURE(cl_penetration_aabb_aabb(&b, &a, &d, &n) && d == 1.5 && veq(n, 1, 0, 0),
           "aabb/aabb: a centred inner box leaves through the lowest axis, + side first");
    a = box(0, 0, 0, 2, 2, 0);
    b = box(1.5, 1.75, 0, 3, 3, 0);
    ENSURE(cl_penetration_aabb_aabb(&b, &a, &d, &n) && d == 0.25 && veq(n, 0, 1, 0),
           "aabb/aabb: flat boxes in one plane (2D) push within the plane");
    f = box(1, 1, 1, 1, 1, 1);
    ENSURE(!cl_penetration_aabb_aabb(&f, &f, &d, &n), "aabb/aabb: two equal points have no way out");

    s = sph(3, 4, 0, 6);
    {
        cl_sphere t = sph(0, 0, 0, 1);
        ENSURE(cl_penetration_sphere_sphere(&s, &t, &d, &n) && d == 2 && veq(n, 0.6, 0.8, 0),
               "sphere/sphere: radii sum minus distance along the centre offset");
        t = sph(-3, -4, 0, 4);
        ENSURE(!cl_penetration_sphere_sphere(&s, &t, &d, &n), "sphere/sphere: touching balls have no penetration");
        t = sph(3, 4, 0, 1);
        ENSURE(cl_penetration_sphere_sphere(&s, &t, &d, &n) && d == 7 && veq(n, 1, 0, 0),
               "sphere/sphere: equal centres push along +x by the radii sum");
    }
    a = box(0, 0, 0, 4, 4, 4);
    s = sph(1, 2, 3, 0.5);
    ENSURE(cl_penetration_sphere_aabb(&s, &a, &d, &n) && d == 1.5 && veq(n, -1, 0, 0),
           "sphere/aabb: centre inside leaves through the nearest face, depth r + distance");
    s = sph(5, 2, 2, 1.5);
    ENSURE(cl_penetration_sphere_aabb(&s, &a, &d, &n) && d == 0.5 && veq(n, 1, 0, 0),
           "sphere/aabb: centre outside a face: r - distance");
    s = sph(4 + 3, 4 + 4, 2, 5);
    ENSURE(!cl_penetration_sphere_aabb(&s, &a, &d, &n), "sphere/aabb: touching an edge is no penetration");
    s = sph(4 + 3, 4 + 4, 2, 5.5);
    ENSURE(cl_penetration_sphere_aabb(&s, &a, &d, &n) && d == 0.5 && veq(n, 0.6, 0.8, 0),
           "sphere/aabb: near an edge, along the offset from the edge");
    s = sph(4, 2, 2, 1);
    ENSURE(cl_penetration_sphere_aabb(&s, &a, &d, &n) && d == 1 && veq(n, 1, 0, 0),
           "sphere/aabb: centre on a face: depth r through that face");
    s = sph(2, 2, 2, 0);
    ENSURE(cl_penetration_sphere_aabb(&s, &a, &d, &n) && d == 2 && veq(n, 1, 0, 0),
           "sphere/aabb: a point strictly inside leaves through the nearest face");
    s = sph(4, 2, 2, 0);
    ENSURE(!cl_penetration_sphere_aabb(&s, &a, &d, &n), "sphere/aabb: a point on the surface is touching");
    o.c = cl_v3(0, 0, 0);
    o.h = cl_v3(2, 1, 1);
    o.u[0] = cl_v3(0.6, 0.8, 0); o.u[1] = cl_v3(-0.8, 0.6, 0); o.u[2] = cl_v3(0, 0, 1);
    s = sph(0, 0, 0, 0.5);
    ENSURE(cl_penetration_sphere_obb(&s, &o, &d, &n) && d == 1.5 && veq(n, -0.8, 0.6, 0),
           "sphere/obb: centre inside leaves through the nearest face, in the box's frame");
    o.c = cl_v3(0, 0, 0);
    o.h = cl_v3(1, 1, 0);
    o.u[0] = cl_v3(0.6, 0.8, 0); o.u[1] = cl_v3(-0.8, 0.6, 0); o.u[2] = cl_v3(0, 0, 1);
    {
        cl_obb p = cl_obb_from_aabb(&f);
        f = box(0.5, -3, 0, 3, 3, 0);
        p = cl_obb_from_aabb(&f);
        ENSURE(cl_penetration_obb_obb(&o, &p, &d, &n) && n.z == 0 && near(d, 0.9, 1e-15) && veq(n, -1, 0, 0),
               "obb/obb: flat boxes in one plane (2D) push within the plane");
    }
    sa.kind = CL_AABB; sa.u.aabb = box(-1, -1, -1, 1, 1, 1);
    sb.kind = CL_SPHERE; sb.u.sphere = sph(1.5, 0, 0, 1);
    ENSURE(cl_penetration(&sa, &sb, &d, &n) && d == 0.5 && veq(n, -1, 0, 0),
           "cl_penetration: a box out of a sphere is the sphere's push reversed");
    sa.u.aabb = box(1e300, 0, 0, 1.5e308, 1, 1);
    sb.kind = CL_AABB; sb.u.aabb = box(-1.5e308, 0, 0, 1.4e308, 1, 1);
    ENSURE(cl_penetration(&sa, &sb, &d, &n) && d == 1 && veq(n, 0, 1, 0),
           "cl_penetration: huge boxes take the short way out");
    {
        cl_obb oa = cl_obb_from_aabb(&sa.u.aabb), ob = cl_obb_from_aabb(&sb.u.aabb);
        ENSURE(cl_penetration_obb_obb(&oa, &ob, &d, &n) && near(d, 1, 1e-15) && veq(n, 0, 1, 0),
               "obb/obb: huge boxes at quarter scale, finite depth");
    }
}

/* Prints the shape (for a failing case). */
static void dump(const char *name, const cl_shape *s)
{
    const double *v = (const double *)(const void *)&s->u;
    int i, n = s->kind == CL_AABB ? 6 : s->kind == CL_OBB ? 15 : 4;
    printf("  %s kind %d:", name, s->kind);
    for (i = 0; i < n; i++) printf(" %.17g", v[i]);
    printf("\n");
}

/* sweep.c's shallow_start: for the pairs without a capsule (capsule.c's decide_at has its own), an
 * overlap no deeper than 2^-42 of the pair's largest coordinate is touching, not an interior overlap
 * (two box-like shapes, AABB or world-axis OBB, are exact and have no allowance). */
static double shallow_allowance(const cl_shape *a, const cl_shape *b)
{
    cl_aabb ba = cl_shape_aabb(a), bb = cl_shape_aabb(b);
    double m = fmax(fmax(cl_maxabs3(ba.min.x, ba.min.y, ba.min.z), cl_maxabs3(ba.max.x, ba.max.y, ba.max.z)),
                    fmax(cl_maxabs3(bb.min.x, bb.min.y, bb.min.z), cl_maxabs3(bb.max.x, bb.max.y, bb.max.z)));
    cl_aabb x;
    if (cl_shape_boxlike(a, &x) && cl_shape_boxlike(b, &x)) return 0;   /* exact pairs: none */
    return a->kind == CL_CAPSULE || b->kind == CL_CAPSULE ? 0 : m * 0x1p-42;
}

/* Is the interior overlap after moving a by k * depth * n what the penetration promises? */
static void check_push(const cl_shape *a, const cl_shape *b, double depth, cl_vec3 n, double scale, const char *what,
                       int i)
{
    double eps = 1e-9 * scale;
    int before = failed;
    if (eps < 2 * shallow_allowance(a, b)) eps = 2 * shallow_allowance(a, b);
    cl_shape out = moved(*a, vmul(n, depth + eps)), in = moved(*a, vmul(n, depth - eps));
    CHECK(!cl_interiors_overlap(&out, b), what, "case %d: still overlapping after depth %.17g", i, depth);
    if (depth > 2 * eps) CHECK(cl_interiors_overlap(&in, b), what, "case %d: a shorter push (depth %.17g) ends it", i, depth);
    if (failed > before && getenv("NARROW_DEBUG")) { dump("a", a); dump("b", b); printf("  n %.17g %.17g %.17g\n", n.x, n.y, n.z); }
}

static void test_penetration_random(void)
{
    static const double scales[] = { 1, 1, 1, 0x1p-450, 0x1p450, 0x1p1000, 1 };  /* powers of two: exact scaling */
    int n = quick ? 1500 : 6000, i, agree = 0, found = 0, stalled = 0, flat = 0;
    for (i = 0; i < n; i++) {
        cl_kind ka = (cl_kind)(rnd() * 3), kb = (cl_kind)(rnd() * 3);
        int grid = chance(0.3), si = (int)(rnd() * 7);
        double k = scales[si], depth = 0, ref, scale;
        cl_vec3 o = si == 6 ? rvec(-1e6, 1e6) : cl_v3(0, 0, 0), nn = cl_v3(0, 0, 0), L = cl_v3(0, 0, 0);
        cl_shape a0 = rshape(ka, grid), b0 = rshape(kb, grid);
        cl_shape a = place(a0, k, o), b = place(b0, k, o);
        const cl_shape *ab[2];
        int r = cl_penetration(&a, &b, &depth, &nn), ov;
        scale = k * 4 + (si == 6 ? 1e6 * 4e-7 : 0);
        if (k != 1) {  /* scale invariance: the same pair at unit scale, depth scaled */
            double d1 = 0;
            cl_vec3 n1 = cl_v3(0, 0, 0);
            int r1 = cl_penetration(&a0, &b0, &d1, &n1);
            const cl_shape *ab1[2];
            ab1[0] = &a0; ab1[1] = &b0;
            CHECK(r == r1 && (!r || (near(depth / k, d1, 1e-12) && near(pen_along(ab1, nn), d1, 1e-12))),
                  "penetration at huge and tiny scales is the unit-scale answer scaled",
                  "case %d kinds %d/%d scale %g: %d %.17g vs %d %.17g", i, ka, kb, k, r, depth / k, r1, d1);
        }
        if (r) CHECK(near(dot(nn, nn), 1, 1e-12) && depth >= 0 && isfinite(depth), "unit normal, finite depth",
                     "case %d: |n|^2 = %.17g depth %g", i, dot(nn, nn), depth);
        if (k > 0x1p500) continue;  /* the sweeps' interior test squares sphere offsets: moderate scales only */
        ov = cl_interiors_overlap(&a, &b);
        ab[0] = &a; ab[1] = &b;
        if (r != ov) {
            /* the sweep skips near-parallel edge axes and rounds differently: it may only disagree on
             * pairs within rounding of touching, or apart by a gap it cannot see */
            ref = minimise(pen_along, ab, cl_v3(0, 0, 0), &L);
            CHECK(r ? depth <= 1e-12 * scale + shallow_allowance(&a, &b) : ref <= 1e-12 * scale,
                  "penetration exists exactly when the interiors overlap (up to rounding)",
                  "case %d kinds %d/%d scale %d grid %d: %d vs %d depth %g ref %g", i, ka, kb, si, grid, r, ov, depth, ref);
        } else {
            agree++;
        }
        if (!r) continue;
        found++;
        check_push(&a, &b, depth, nn, scale, "moving by depth * n just ends the overlap", i);
        ref = minimise(pen_along, ab, nn, &L);
        if (!(ref > 1e-12 * scale)) { flat++; continue; }  /* flat on a common plane (2D): not a volume overlap */
        CHECK(depth <= ref + 1e-9 * scale, "no shorter way out in any direction (support-function minimum)",
              "case %d kinds %d/%d: depth %.17g, reference %.17g along (%g %g %g)", i, ka, kb, depth, ref, L.x, L.y, L.z);
        CHECK(near(pen_along(ab, nn), depth, 1e-9 * scale), "depth is the support distance along n",
              "case %d: %.17g vs %.17g", i, pen_along(ab, nn), depth);
        if (depth < ref - 1e-7 * scale) stalled++;
    }
    printf("penetration: %d random pairs, %d overlapping at moderate scales (%d flat on a common plane), "
           "%d agree with interiors_overlap, reference search stalled above the answer in %d\n",
           n, found, flat, agree, stalled);
}

/* ================================================================ capsule */

/* A test shape: one of the cl_shape kinds, or a capsule (kind 3). */
typedef struct tshape {
    int kind;
    cl_shape s;
    cl_capsule c;
} tshape;

/* Prints the mover m and the static f of a failed sweep case (NARROW_DEBUG). */
static void dump_two(const tshape *m, const tshape *f)
{
    const tshape *x[2];
    int j;
    x[0] = m; x[1] = f;
    for (j = 0; j < 2; j++) {
        if (x[j]->kind == 3) printf("  capsule %.17g %.17g %.17g  %.17g %.17g %.17g r %.17g\n", x[j]->c.a.x, x[j]->c.a.y,
                                    x[j]->c.a.z, x[j]->c.b.x, x[j]->c.b.y, x[j]->c.b.z, x[j]->c.r);
        else dump("shape", &x[j]->s);
    }
}

static cl_capsule cap(cl_vec3 a, cl_vec3 b, double r)
{
    cl_capsule c;
    c.a = a; c.b = b; c.r = r;
    return c;
}

/* Largest p.L over the test shape. */
static double tsupport(const tshape *t, cl_vec3 L)
{
    if (t->kind == 3) return fmax(dot(t->c.a, L), dot(t->c.b, L)) + t->c.r * vlen(L);
    return support(&t->s, L);
}
static double tpen_along(const void *ctx, cl_vec3 L)
{
    const tshape *const *ab = (const tshape *const *)ctx;
    return tsupport(ab[1], L) + tsupport(ab[0], vmul(L, -1));
}

/* Signed distance from p to the core of the static shape minus its radius (negative inside):
 * boxes by their frame (inside: minus the nearest face distance), spheres and capsules by the
 * distance to their centre or segment. A convex function of p. */
static double sdist(const tshape *t, cl_vec3 p)
{
    if (t->kind == 3) {
        double s;
        return vlen(vsub(p, cl_closest_on_segment(p, t->c.a, t->c.b, &s))) - t->c.r;
    }
    if (t->s.kind == CL_SPHERE) return vlen(vsub(p, t->s.u.sphere.c)) - t->s.u.sphere.r;
    {
        double l[3], lo[3], hi[3], out = 0, in = INFINITY;
        int i;
        if (t->s.kind == CL_AABB) {
            for (i = 0; i < 3; i++) {
                l[i] = i == 0 ? p.x : i == 1 ? p.y : p.z;
                lo[i] = i == 0 ? t->s.u.aabb.min.x : i == 1 ? t->s.u.aabb.min.y : t->s.u.aabb.min.z;
                hi[i] = i == 0 ? t->s.u.aabb.max.x : i == 1 ? t->s.u.aabb.max.y : t->s.u.aabb.max.z;
            }
        } else {
            const cl_obb *o = &t->s.u.obb;
            cl_vec3 d = vsub(p, o->c);
            for (i = 0; i < 3; i++) {
                l[i] = dot(d, o->u[i]);
                hi[i] = i == 0 ? o->h.x : i == 1 ? o->h.y : o->h.z;
                lo[i] = -hi[i];
            }
        }
        for (i = 0; i < 3; i++) {
            double q = l[i] < lo[i] ? lo[i] - l[i] : (l[i] > hi[i] ? l[i] - hi[i] : 0);
            out += q * q;
            in = fmin(in, fmin(l[i] - lo[i], hi[i] - l[i]));
        }
        return out > 0 ? sqrt(out) : -in;
    }
}

/* Minimum over s in [0, 1] of f(s) for a convex f: ternary search, then the ends. */
typedef double (*fn1)(const void *ctx, double s);
static double convex_min(fn1 f, const void *ctx, double lo, double hi, double *arg)
{
    int i;
    double best, x;
    for (i = 0; i < 120; i++) {  /* (2/3)^120: below 1e-21 of the range, at any scale */
        double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (f(ctx, m1) <= f(ctx, m2)) hi = m2; else lo = m1;
    }
    x = 0.5 * (lo + hi);
    best = f(ctx, x);
    *arg = x;
    return best;
}

/* The moving capsule's relation to the static shape at time t: min over its segment of the signed
 * distance, minus its radius (negative: interiors overlap). When the static shape is the capsule
 * (boxes and spheres moving), the roles swap with -d. */
typedef struct gctx {
    const tshape *mover, *fixed;
    cl_vec3 d;
    double t;
} gctx;
static double g_at_s(const void *ctx, double s)
{
    const gctx *g = (const gctx *)ctx;
    if (g->mover->kind == 3) {
        cl_vec3 p = vadd(vadd(g->mover->c.a, vmul(vsub(g->mover->c.b, g->mover->c.a), s)), vmul(g->d, g->t));
        return sdist(g->fixed, p) - g->mover->c.r;
    } else {
        cl_vec3 p = vsub(vadd(g->fixed->c.a, vmul(vsub(g->fixed->c.b, g->fixed->c.a), s)), vmul(g->d, g->t));
        return sdist(g->mover, p) - g->fixed->c.r;
    }
}
static double g_at_t(const void *ctx, double t)
{
    gctx g = *(const gctx *)ctx;
    double s;
    g.t = t;
    return convex_min(g_at_s, &g, 0, 1, &s);
}

/* A random capsule near the origin: sometimes a point (a == b), a segment (r = 0), along an axis,
 * along dir (when given), or on the quarter grid. */
static cl_capsule rcapsule(int grid, cl_vec3 dir)
{
    cl_vec3 a = cl_v3(rco(-1, 1, grid), rco(-1, 1, grid), rco(-1, 1, grid)), b;
    double p = rnd(), r = chance(0.08) ? 0 : rco(0.05, 0.8, grid);
    if (p < 0.1) b = a;
    else if (p < 0.25) { int k = (int)(rnd() * 3); b = vadd(a, cl_v3(k == 0 ? rco(-2, 2, grid) : 0, k == 1 ? rco(-2, 2, grid) : 0, k == 2 ? rco(-2, 2, grid) : 0)); }
    else if (p < 0.4 && dot(dir, dir) > 0) b = vadd(a, vmul(dir, rco(-1.5, 1.5, grid)));
    else b = cl_v3(rco(-1, 1, grid), rco(-1, 1, grid), rco(-1, 1, grid));
    return cap(a, b, r);
}

/* The capsule scaled by k and moved by o. */
static cl_capsule place_capsule(cl_capsule c, double k, cl_vec3 o)
{
    return cap(vadd(vmul(c.a, k), o), vadd(vmul(c.b, k), o), c.r * k);
}

static void test_capsule_fixed(void)
{
    cl_capsule c = cap(cl_v3(0, 0, 0), cl_v3(4, 0, 0), 1), d;
    cl_aabb bx, e;
    cl_ray ray;
    cl_hit h;
    cl_sphere s;
    double depth = -1, t = -1;
    cl_vec3 n = cl_v3(9, 9, 9);
    e = cl_capsule_aabb(&c);
    ENSURE(veq(e.min, -1, -1, -1) && veq(e.max, 5, 1, 1), "capsule aabb: the segment's box grown by r");
    ENSURE(cl_capsule_contains(&c, cl_v3(2, 1, 0)) && cl_capsule_contains(&c, cl_v3(5, 0, 0)) &&
           !cl_capsule_contains(&c, cl_v3(5, 0, 1e-7)), "capsule contains is inclusive, caps round");
    ENSURE(veq(cl_capsule_closest(&c, cl_v3(2, 3, 0)), 2, 1, 0) && veq(cl_capsule_closest(&c, cl_v3(7, 0, 0)), 5, 0, 0) &&
           veq(cl_capsule_closest(&c, cl_v3(1, 0.5, 0)), 1, 0.5, 0), "capsule closest: side, cap, inside");
    ENSURE(cl_capsule_plane(&c, cl_v3(0, 1, 0), -1.001) == -1 && cl_capsule_plane(&c, cl_v3(0, 1, 0), -1) == 0 &&
           cl_capsule_plane(&c, cl_v3(1, 0, 0), 1.5) == 1 && cl_capsule_plane(&c, cl_v3(1, 0, 0), 1) == 0,
           "capsule plane: touching is 0, just off is +-1");
    cl_ray_make(&ray, cl_v3(2, 5, 0), cl_v3(0, -1, 0));
    ENSURE(cl_capsule_raycast(&c, &ray, INFINITY, &h) && h.t == 4 && veq(h.n, 0, 1, 0), "capsule raycast: the side");
    cl_ray_make(&ray, cl_v3(9, 0, 0), cl_v3(-1, 0, 0));
    ENSURE(cl_capsule_raycast(&c, &ray, INFINITY, &h) && h.t == 4 && veq(h.n, 1, 0, 0), "capsule raycast: along the axis, the cap");
    ENSURE(!cl_capsule_raycast(&c, &ray, 3.5, &h), "capsule raycast: maxt");
    cl_ray_make(&ray, cl_v3(2, 1, 5), cl_v3(0, 0, -1));
    ENSURE(cl_capsule_raycast(&c, &ray, INFINITY, &h) && h.t == 5 && veq(h.n, 0, 1, 0), "capsule raycast: a graze touches");
    cl_ray_make(&ray, cl_v3(2, 0.5, 0), cl_v3(0, 0, -1));
    ENSURE(cl_capsule_raycast(&c, &ray, INFINITY, &h) && h.t == 0 && veq(h.n, 0, 0, 0), "capsule raycast: from inside");
    {   /* fuzz_geom's finding: a segment (r == 0) through a rotated flat box (h.x == 0) missed it
         * (its crossing point, taken back to world coordinates, left the box's plane by an ulp)
         * while the penetration pushed it out by 0.0125 */
        cl_capsule z;
        cl_obb f;
        double dd;
        cl_vec3 nn;
        z.a = cl_v3(-1, 5.5, -5);
        z.b = cl_v3(1, -5, -7.5);
        z.r = 0;
        f.c = cl_v3(0, 0, -4.5);
        f.h = cl_v3(0, 1, 5.5);
        f.u[0] = cl_v3(0.84076433121019112, -0.47770700636942676, -0.25477707006369427);
        f.u[1] = cl_v3(0.47770700636942676, 0.43312101910828016, 0.76433121019108285);
        f.u[2] = cl_v3(-0.25477707006369427, -0.76433121019108285, 0.59235668789808915);
        ENSURE(cl_capsule_overlaps_obb(&z, &f) && cl_penetration_capsule_obb(&z, &f, &dd, &nn),
               "capsule overlaps obb: a segment through a flat box meets it");
    }
    {   /* fuzz_geom's finding: two 7e32-long capsules whose near ends are 5.4 apart (radii 13.5)
         * overlapped one way round and not the other */
        cl_capsule x, y;
        x.a = cl_v3(4, -7.301672549914615e+32, 4); x.b = cl_v3(5, -7, -8); x.r = 5.5;
        y.a = cl_v3(-2.8421709430404007e-14, -2, -6); y.b = cl_v3(-4.5, -6.4140149211089824e+32, -8); y.r = 8;
        ENSURE(cl_capsule_overlaps_capsule(&x, &y) && cl_capsule_overlaps_capsule(&y, &x),
               "capsule overlaps capsule: long nearly parallel capsules meet both ways");
    }
    {   /* fuzz_geom's finding: r = 4 at coordinates near 7.5e16 (their ulp is 16): the side hit's
         * normal came out along the ray */
        cl_capsule z;
        z.a = cl_v3(-9.3132257461547852e-10, -75165960839564032.0, -75165960839564032.0);
        z.b = cl_v3(-75165960839564032.0, -75165960839564032.0, -75165960839563184.0);
        z.r = 4;
        cl_ray_make(&ray, cl_v3(-8, -8, -8), cl_v3(0, -1, -1));
        ENSURE(!cl_capsule_raycast(&z, &ray, INFINITY, &h) || h.n.y + h.n.z >= 0,
               "capsule raycast: the normal faces the ray even when r is below the coordinates' rounding");
        z.a = cl_v3(4, 4, 4);
        z.b = cl_v3(3, 0, 1.7763568394002505e-15);
        z.r = 1.7763568394002505e-15;
        cl_ray_make(&ray, cl_v3(1.7763568394002505e-15, 1.7763568394002505e-15, 1.7763568394002505e-15), cl_v3(1, 1, 1));
        ENSURE(!cl_capsule_raycast(&z, &ray, INFINITY, &h) || h.n.x + h.n.y + h.n.z <= 0,
               "capsule raycast: an end ball's normal faces the ray when r is below the rounding");
    }

    bx = box(-1, 1, -1, 1, 2, 1);
    ENSURE(cl_capsule_overlaps_aabb(&c, &bx), "capsule/aabb: a box touching the side overlaps (inclusive)");
    bx = box(-1, 1.0000001, -1, 1, 2, 1);
    ENSURE(!cl_capsule_overlaps_aabb(&c, &bx), "capsule/aabb: a gap separates");
    ENSURE(!cl_penetration_capsule_aabb(&c, &bx, &depth, &n), "capsule/aabb: apart, no penetration");
    bx = box(-1, 1, -1, 1, 2, 1);
    ENSURE(!cl_penetration_capsule_aabb(&c, &bx, &depth, &n), "capsule/aabb: touching, no penetration");
    bx = box(1, 0.5, -1, 2, 2, 1);
    ENSURE(cl_penetration_capsule_aabb(&c, &bx, &depth, &n) && depth == 0.5 && veq(n, 0, -1, 0),
           "capsule/aabb: shallow, r minus the distance");
    bx = box(1, -0.5, -1, 2, 2, 1);
    ENSURE(cl_penetration_capsule_aabb(&c, &bx, &depth, &n) && depth == 1.5 && veq(n, 0, -1, 0),
           "capsule/aabb: the segment through the box leaves by the nearest face of box + segment, plus r");
    bx = box(3, -3, -3, 10, 3, 3);
    ENSURE(cl_penetration_capsule_aabb(&c, &bx, &depth, &n) && depth == 2 && veq(n, -1, 0, 0),
           "capsule/aabb: the end in a big box backs out along the axis");
    d = cap(cl_v3(2, -1, 1.5), cl_v3(2, 1, 1.5), 0.5);
    ENSURE(!cl_penetration_capsule_capsule(&c, &d, &depth, &n) && cl_capsule_overlaps_capsule(&c, &d),
           "capsule/capsule: crossing at exactly the radii sum touches");
    d.r = 1;
    ENSURE(cl_penetration_capsule_capsule(&c, &d, &depth, &n) && depth == 0.5 && veq(n, 0, 0, -1),
           "capsule/capsule: crossing, the radii sum minus the distance");
    d = cap(cl_v3(2, -1, 0), cl_v3(2, 1, 0), 0.25);
    ENSURE(cl_penetration_capsule_capsule(&c, &d, &depth, &n) && depth == 1.25 && fabs(n.z) == 1,
           "capsule/capsule: crossing segments push along their common normal by the radii sum");
    s = sph(2, 0, 0, 0.5);
    ENSURE(cl_penetration_capsule_sphere(&c, &s, &depth, &n) && depth == 1.5 && near(dot(n, n), 1, 1e-15) && n.x == 0,
           "capsule/sphere: a centre on the segment pushes perpendicular to it");
    s = sph(2, 3, 0, 2);
    ENSURE(!cl_penetration_capsule_sphere(&c, &s, &depth, &n) && cl_capsule_overlaps_sphere(&c, &s),
           "capsule/sphere: touching overlaps, no penetration");

    bx = box(-1, -3, -1, 5, -1, 1);
    ENSURE(unpack(cl_sweep_capsule_aabb(&c, cl_v3(3, 0, 0), &bx), &t, &n) == CL_TOI_SEPARATED,
           "capsule sweep: resting on a floor and sliding along it does not block");
    ENSURE(unpack(cl_sweep_capsule_aabb(&c, cl_v3(0, -1, 0), &bx), &t, &n) == CL_TOI_TOUCHING && t == 0 && veq(n, 0, 1, 0),
           "capsule sweep: resting on a floor and pushing into it touches at 0");
    bx = box(6, -1, -1, 7, 1, 1);
    ENSURE(unpack(cl_sweep_capsule_aabb(&c, cl_v3(4, 0, 0), &bx), &t, &n) == CL_TOI_TOUCHING && t == 0.25 && veq(n, -1, 0, 0),
           "capsule sweep: the cap meets a wall a quarter of the way");
    ENSURE(unpack(cl_sweep_aabb_capsule(&bx, cl_v3(-4, 0, 0), &c), &t, &n) == CL_TOI_TOUCHING && t == 0.25 && veq(n, 1, 0, 0),
           "box sweep against a capsule: the same contact seen from the box");
    bx = box(1, 2, -1, 3, 3, 1);
    ENSURE(unpack(cl_sweep_capsule_aabb(&c, cl_v3(0, 4, 0), &bx), &t, &n) == CL_TOI_TOUCHING && t == 0.25 && veq(n, 0, -1, 0),
           "capsule sweep: the side meets a box's face");
    d = cap(cl_v3(2, 5, -3), cl_v3(2, 5, 3), 1);
    ENSURE(unpack(cl_sweep_capsule_capsule(&c, cl_v3(0, 6, 0), &d), &t, &n) == CL_TOI_TOUCHING && near(t, 0.5, 1e-15) && veq(n, 0, -1, 0),
           "capsule/capsule sweep: crossing capsules meet side to side");
    s = sph(-3, 0, 0, 1);
    ENSURE(unpack(cl_sweep_capsule_sphere(&c, cl_v3(-2, 0, 0), &s), &t, &n) == CL_TOI_TOUCHING && t == 0.5 && veq(n, 1, 0, 0) &&
           unpack(cl_sweep_sphere_capsule(&s, cl_v3(2, 0, 0), &c), &t, &n) == CL_TOI_TOUCHING && t == 0.5 && veq(n, -1, 0, 0),
           "capsule/sphere sweeps both ways");
}

/* Reference distance between a capsule's segment and a static shape's core (signed inside a box). */
typedef struct dctx {
    const cl_capsule *c;
    const tshape *t;
} dctx;
static double d_at_s(const void *ctx, double s)
{
    const dctx *g = (const dctx *)ctx;
    return sdist(g->t, vadd(g->c->a, vmul(vsub(g->c->b, g->c->a), s)));
}

static void test_capsule_random(void)
{
    static const double scales[] = { 1, 1, 1, 0x1p-400, 0x1p400, 1 };
    int n = quick ? 800 : 3000, i, ambiguous = 0, checked = 0, pens = 0, flat = 0;
    for (i = 0; i < n; i++) {
        int kb = (int)(rnd() * 4), grid = chance(0.3), si = (int)(rnd() * 6), r1;
        double k = scales[si], sc, ref, s, depth = 0, want;
        cl_vec3 o = si == 5 ? rvec(-1e5, 1e5) : cl_v3(0, 0, 0), nn = cl_v3(0, 0, 0), L = cl_v3(0, 0, 0);
        tshape a, b;
        const tshape *ab[2];
        dctx dc;
        a.kind = 3;
        b.kind = kb;
        if (kb == 3) {
            cl_capsule b0 = rcapsule(grid, cl_v3(0, 0, 0));
            b.c = place_capsule(b0, k, o);
            a.c = place_capsule(rcapsule(grid, chance(0.3) ? vsub(b0.b, b0.a) : cl_v3(0, 0, 0)), k, o);
        } else {
            b.s = place(rshape((cl_kind)kb, grid), k, o);
            a.c = place_capsule(rcapsule(grid, chance(0.3) ? cl_v3(1, 0, 0) : cl_v3(0, 0, 0)), k, o);
        }
        sc = 4 * k + (si == 5 ? 1e5 * 1e-9 : 0);
        dc.c = &a.c; dc.t = &b;
        ref = convex_min(d_at_s, &dc, 0, 1, &s) - a.c.r;   /* < 0: interiors overlap; <= 0: closed overlap */
        if (kb == 3) ref = convex_min(d_at_s, &dc, 0, 1, &s) - a.c.r;
        /* overlaps (closed) */
        {
            int ov = kb == 3 ? cl_capsule_overlaps_capsule(&a.c, &b.c)
                   : kb == CL_AABB ? cl_capsule_overlaps_aabb(&a.c, &b.s.u.aabb)
                   : kb == CL_OBB ? cl_capsule_overlaps_obb(&a.c, &b.s.u.obb) : cl_capsule_overlaps_sphere(&a.c, &b.s.u.sphere);
            if (fabs(ref) <= 1e-9 * sc) ambiguous++;
            else {
                checked++;
                CHECK(ov == (ref < 0), "capsule overlaps: as the brute-force distance says",
                      "case %d kind %d scale %d: %d, distance - r = %g", i, kb, si, ov, ref);
                if (getenv("NARROW_DEBUG") && ov != (ref < 0)) {
                    printf("  a %.17g %.17g %.17g  %.17g %.17g %.17g r %.17g\n", a.c.a.x, a.c.a.y, a.c.a.z, a.c.b.x, a.c.b.y, a.c.b.z, a.c.r);
                    dump("b", &b.s);
                }
            }
        }
        /* closest points */
        if (kb == 3) {
            double s1, t1;
            cl_vec3 p, q;
            cl_segment_segment(a.c.a, a.c.b, b.c.a, b.c.b, &s1, &t1, &p, &q);
            want = ref + a.c.r + b.c.r;
            CHECK(near(vlen(vsub(p, q)), want, 1e-9 * sc), "segment/segment distance is the brute-force minimum",
                  "case %d: %.17g vs %.17g", i, vlen(vsub(p, q)), want);
            if (getenv("NARROW_DEBUG") && !near(vlen(vsub(p, q)), want, 1e-9 * sc))
                printf("  a %.17g %.17g %.17g  %.17g %.17g %.17g r %.17g\n  b %.17g %.17g %.17g  %.17g %.17g %.17g r %.17g\n",
                       a.c.a.x, a.c.a.y, a.c.a.z, a.c.b.x, a.c.b.y, a.c.b.z, a.c.r, b.c.a.x, b.c.a.y, b.c.a.z, b.c.b.x, b.c.b.y, b.c.b.z, b.c.r);
        } else if (kb != CL_SPHERE) {
            double s1;
            cl_vec3 p, q;
            if (kb == CL_AABB) cl_segment_aabb(a.c.a, a.c.b, &b.s.u.aabb, &s1, &p, &q);
            else cl_segment_obb(a.c.a, a.c.b, &b.s.u.obb, &s1, &p, &q);
            want = fmax(ref + a.c.r, 0);
            CHECK(near(vlen(vsub(p, q)), want, 1e-9 * sc), "segment/box distance is the brute-force minimum",
                  "case %d kind %d: %.17g vs %.17g", i, kb, vlen(vsub(p, q)), want);
        }
        /* penetration */
        if (kb == 3) r1 = cl_penetration_capsule_capsule(&a.c, &b.c, &depth, &nn);
        else if (kb == CL_AABB) r1 = cl_penetration_capsule_aabb(&a.c, &b.s.u.aabb, &depth, &nn);
        else if (kb == CL_OBB) r1 = cl_penetration_capsule_obb(&a.c, &b.s.u.obb, &depth, &nn);
        else r1 = cl_penetration_capsule_sphere(&a.c, &b.s.u.sphere, &depth, &nn);
        if (fabs(ref) > 1e-9 * sc) {
            /* a capsule of radius 0 has no interior: only a box's can hold its segment */
            int want_pen = ref < 0 && (a.c.r > 0 || (kb != 3 && b.kind != CL_SPHERE) || (kb == CL_SPHERE && b.s.u.sphere.r > 0) ||
                                       (kb == 3 && b.c.r > 0));
            CHECK(r1 == want_pen, "capsule penetration exists exactly when the open shapes overlap",
                  "case %d kind %d scale %d: %d, distance - r = %g", i, kb, si, r1, ref);
        }
        if (r1) {
            gctx g;
            double after, before;
            pens++;
            CHECK(near(dot(nn, nn), 1, 1e-12) && depth > 0 && isfinite(depth), "capsule penetration: unit normal, finite depth",
                  "case %d: |n|^2 %.17g depth %g", i, dot(nn, nn), depth);
            g.mover = &a; g.fixed = &b; g.d = nn;
            g.t = depth + 1e-9 * sc; after = g_at_t(&g, g.t);
            g.t = depth - 1e-9 * sc; before = g_at_t(&g, g.t);
            CHECK(after >= -1e-10 * sc, "capsule penetration: moving by depth * n ends the overlap",
                  "case %d kind %d: after %g (depth %.17g)", i, kb, after, depth);
            if (depth > 2e-9 * sc)
                CHECK(before < 1e-10 * sc, "capsule penetration: a shorter push does not",
                      "case %d kind %d: before %g (depth %.17g)", i, kb, before, depth);
            ab[0] = &a; ab[1] = &b;
            want = minimise(tpen_along, ab, nn, &L);
            if (!(want > 1e-12 * sc)) flat++;
            else
                CHECK(depth <= want + 1e-9 * sc, "capsule penetration: no shorter way out in any direction",
                      "case %d kind %d: depth %.17g, reference %.17g along (%g %g %g)", i, kb, depth, want, L.x, L.y, L.z);
        }
    }
    printf("capsule: %d random pairs, %d overlap answers checked (%d within rounding of touching), %d penetrations "
           "(%d with a flat Minkowski set)\n", n, checked, ambiguous, pens, flat);
}

/* The reference normal at time t: from the static core's closest point to the mover's (unit), or
 * zero when they (nearly) meet. */
static cl_vec3 ref_normal(const gctx *g0, double t, double tol)
{
    gctx g = *g0;
    double s;
    cl_vec3 x, y, n = cl_v3(0, 0, 0);
    const tshape *core;
    g.t = t;
    (void)convex_min(g_at_s, &g, 0, 1, &s);
    if (g.mover->kind == 3) {
        x = vadd(vadd(g.mover->c.a, vmul(vsub(g.mover->c.b, g.mover->c.a), s)), vmul(g.d, t));
        core = g.fixed;
    } else {
        x = vsub(vadd(g.fixed->c.a, vmul(vsub(g.fixed->c.b, g.fixed->c.a), s)), vmul(g.d, t));
        core = g.mover;
    }
    if (core->kind == 3) { double u; y = cl_closest_on_segment(x, core->c.a, core->c.b, &u); }
    else if (core->s.kind == CL_SPHERE) y = core->s.u.sphere.c;
    else if (core->s.kind == CL_AABB) y = cl_aabb_closest(&core->s.u.aabb, x);
    else y = cl_obb_closest(&core->s.u.obb, x);
    if (vlen(vsub(x, y)) > tol) n = vunit(vsub(x, y));
    return g.mover->kind == 3 ? n : vmul(n, -1);  /* out of the static shape, toward the mover */
}

/* The sweep under test for the pair. */
static cl_toi_state sweep_of(const tshape *m, cl_vec3 d, const tshape *f, double *t, cl_vec3 *n)
{
    if (m->kind == 3) {
        if (f->kind == 3) return unpack(cl_sweep_capsule_capsule(&m->c, d, &f->c), t, n);
        if (f->s.kind == CL_AABB) return unpack(cl_sweep_capsule_aabb(&m->c, d, &f->s.u.aabb), t, n);
        if (f->s.kind == CL_OBB) return unpack(cl_sweep_capsule_obb(&m->c, d, &f->s.u.obb), t, n);
        return unpack(cl_sweep_capsule_sphere(&m->c, d, &f->s.u.sphere), t, n);
    }
    if (m->s.kind == CL_AABB) return unpack(cl_sweep_aabb_capsule(&m->s.u.aabb, d, &f->c), t, n);
    if (m->s.kind == CL_OBB) return unpack(cl_sweep_obb_capsule(&m->s.u.obb, d, &f->c), t, n);
    return unpack(cl_sweep_sphere_capsule(&m->s.u.sphere, d, &f->c), t, n);
}

static void test_capsule_sweep_random(void)
{
    static const double scales[] = { 1, 1, 1, 0x1p-300, 0x1p300, 1 };
    int n = quick ? 600 : 2400, i, ambiguous = 0, counts[3] = { 0, 0, 0 }, normals = 0;
    for (i = 0; i < n; i++) {
        int kother = (int)(rnd() * 4), capmoves = kother == 3 || chance(0.6), grid = chance(0.35), si = (int)(rnd() * 6);
        double k = scales[si], sc, tol, tstar, gmin, g0, lo = 0, t = -1, p = rnd();
        cl_vec3 o = si == 5 ? rvec(-1e4, 1e4) : cl_v3(0, 0, 0), d, nn = cl_v3(0, 0, 0);
        tshape cap1, other;
        const tshape *m, *f;
        gctx g;
        cl_toi_state st, want = CL_TOI_SEPARATED;
        cap1.kind = 3;
        cap1.c = rcapsule(grid, chance(0.3) ? cl_v3(1, 0, 0) : cl_v3(0, 0, 0));
        other.kind = kother;
        if (kother == 3) other.c = rcapsule(grid, chance(0.3) ? vsub(cap1.c.b, cap1.c.a) : cl_v3(0, 0, 0));
        else other.s = rshape((cl_kind)kother, grid);
        /* the motion: random, along an axis, along the capsule, on the grid, or zero */
        if (p < 0.2) { int ax = (int)(rnd() * 3); d = cl_v3(ax == 0 ? rco(-3, 3, grid) : 0, ax == 1 ? rco(-3, 3, grid) : 0, ax == 2 ? rco(-3, 3, grid) : 0); }
        else if (p < 0.3) d = vmul(vsub(cap1.c.b, cap1.c.a), urand(-2, 2));
        else if (p < 0.33) d = cl_v3(0, 0, 0);
        else d = cl_v3(rco(-3, 3, grid), rco(-3, 3, grid), rco(-3, 3, grid));
        /* the mover starts a step back along d half the time, so contacts happen inside (0, 1) */
        if (chance(0.5)) {
            if (capmoves) cap1.c = cap(vsub(cap1.c.a, vmul(d, 0.5)), vsub(cap1.c.b, vmul(d, 0.5)), cap1.c.r);
            else if (kother != 3) cl_shape_translate(&other.s, vmul(d, -0.5));
        }
        cap1.c = place_capsule(cap1.c, k, o);
        if (kother == 3) other.c = place_capsule(other.c, k, o);
        else other.s = place(other.s, k, o);
        d = vmul(d, k);
        if (kother == 3 || capmoves) { m = &cap1; f = &other; }
        else { m = &other; f = &cap1; }
        sc = 8 * k + (si == 5 ? 1e4 * 1e-9 : 0);
        tol = 1e-9 * sc;
        g.mover = m; g.fixed = f; g.d = d; g.t = 0;
        gmin = convex_min(g_at_t, &g, -1, 2, &tstar);
        g0 = g_at_t(&g, 0);
        st = sweep_of(m, d, f, &t, &nn);
        if (fabs(g0) <= tol || fabs(gmin) <= tol) { ambiguous++; continue; }
        if (g0 < 0) want = CL_TOI_OVERLAPPED;
        else if (gmin < 0 && tstar > 0) {
            double a = 0, b = tstar;
            int j;
            for (j = 0; j < 100; j++) { double mid = 0.5 * (a + b); if (g_at_t(&g, mid) < 0) b = mid; else a = mid; }
            lo = 0.5 * (a + b);
            if (fabs(lo - 1) <= 1e-7) { ambiguous++; continue; }
            want = lo < 1 ? CL_TOI_TOUCHING : CL_TOI_SEPARATED;
        }
        counts[want]++;
        CHECK(st == want, "capsule sweep: the state the brute-force distance over time gives",
              "case %d kinds %d->%d scale %d: %d vs %d (t %.17g, reference %.17g)", i, m->kind == 3 ? 3 : (int)m->s.kind,
              f->kind == 3 ? 3 : (int)f->s.kind, si, st, want, t, lo);
        if (st != want && getenv("NARROW_DEBUG")) {
            dump_two(m, f);
            printf("  d %.17g %.17g %.17g gmin %g at %g g0 %g\n", d.x, d.y, d.z, gmin, tstar, g0);
        }
        if (st != want) continue;
        if (st == CL_TOI_TOUCHING) {
            double gt = g_at_t(&g, t);
            /* t itself, or a t where they touch with no overlap a little before (a grazing entry
             * pins t loosely) */
            CHECK(near(t, lo, 1e-6) || (fabs(gt) <= 1e-8 * sc && g_at_t(&g, t - 1e-6) > 0 && t <= lo + 1e-4),
                  "capsule sweep: the first contact time",
                  "case %d: t %.17g, reference %.17g, distance there %g", i, t, lo, gt);
            CHECK(near(dot(nn, nn), 1, 1e-12) && dot(nn, d) <= 1e-12 * vlen(d), "capsule sweep: a unit normal against the motion",
                  "case %d: n %g %g %g", i, nn.x, nn.y, nn.z);
            if ((m->kind == 3 ? m->c.r : 0) + (f->kind == 3 ? f->c.r : 0) +
                    (m->kind != 3 && m->s.kind == CL_SPHERE ? m->s.u.sphere.r : 0) +
                    (f->kind != 3 && f->s.kind == CL_SPHERE ? f->s.u.sphere.r : 0) > 1e-3 * k) {
                cl_vec3 rn = ref_normal(&g, t, 1e-6 * sc);
                if (dot(rn, rn) > 0) {
                    normals++;
                    CHECK(vlen(vsub(rn, nn)) <= 1e-4, "capsule sweep: the normal out of the static shape at the contact",
                          "case %d: n %.9g %.9g %.9g, reference %.9g %.9g %.9g", i, nn.x, nn.y, nn.z, rn.x, rn.y, rn.z);
                    if (getenv("NARROW_DEBUG") && vlen(vsub(rn, nn)) > 1e-4) {
                        dump_two(m, f);
                        printf("  d %.17g %.17g %.17g t %.17g\n", d.x, d.y, d.z, t);
                    }
                }
            }
        }
    }
    printf("capsule sweeps: %d random, overlapped %d touching %d separated %d (%d normals checked), %d within rounding of "
           "touching skipped\n", n, counts[0], counts[1], counts[2], normals, ambiguous);
}

/* Distance from the ray's point at t to the capsule's surface (negative inside). */
typedef struct rctx {
    const cl_capsule *c;
    cl_vec3 o, d;
} rctx;
static double r_at_t(const void *ctx, double t)
{
    const rctx *r = (const rctx *)ctx;
    cl_vec3 p = vadd(r->o, vmul(r->d, t));
    double u;
    return vlen(vsub(p, cl_closest_on_segment(p, r->c->a, r->c->b, &u))) - r->c->r;
}
static double segd_at_s(const void *ctx, double s)
{
    const rctx *r = (const rctx *)ctx;
    return vlen(vsub(r->o, vadd(r->c->a, vmul(vsub(r->c->b, r->c->a), s))));
}

static void test_capsule_queries_random(void)
{
    int n = quick ? 1000 : 4000, i, hits = 0, skipped = 0;
    for (i = 0; i < n; i++) {
        int grid = chance(0.3);
        double k = chance(0.2) ? 0x1p-200 : chance(0.2) ? 0x1p200 : 1, s, gmin, tmin, g0;
        cl_capsule c = place_capsule(rcapsule(grid, cl_v3(0, 0, 0)), k, cl_v3(0, 0, 0));
        cl_vec3 o = vmul(cl_v3(rco(-3, 3, grid), rco(-3, 3, grid), rco(-3, 3, grid)), k), aim, q, want, got;
        cl_ray ray;
        cl_hit h;
        rctx rc;
        int hit;
        double sc = 4 * k, tol = 1e-9 * sc;
        /* closest point and containment against a search over the segment */
        rc.c = &c; rc.o = o;
        {
            double dseg = convex_min(segd_at_s, &rc, 0, 1, &s);
            q = vadd(c.a, vmul(vsub(c.b, c.a), s));
            want = dseg <= c.r ? o : vadd(q, vmul(vsub(o, q), c.r / dseg));
            got = cl_capsule_closest(&c, o);
            /* the search pins the segment point to about 1e-8 (the distance is flat there): compare
             * loosely, and the distances tightly */
            CHECK(vlen(vsub(got, want)) <= 1e-6 * sc && vlen(vsub(got, o)) <= vlen(vsub(want, o)) + 1e-12 * sc,
                  "capsule closest: the brute-force nearest point",
                  "case %d: (%g %g %g) vs (%g %g %g)", i, got.x, got.y, got.z, want.x, want.y, want.z);
            if (fabs(dseg - c.r) > tol)
                CHECK(cl_capsule_contains(&c, o) == (dseg < c.r), "capsule contains: the brute-force distance",
                      "case %d: distance %g r %g", i, dseg, c.r);
        }
        /* plane side against the extremes of the end balls */
        {
            cl_vec3 pn = runit();
            double pd = urand(-3, 3) * k, lo = fmin(dot(pn, c.a), dot(pn, c.b)) - c.r + pd, hi = fmax(dot(pn, c.a), dot(pn, c.b)) + c.r + pd;
            if (fabs(lo) > tol && fabs(hi) > tol)
                CHECK(cl_capsule_plane(&c, pn, pd) == (lo > 0 ? 1 : hi < 0 ? -1 : 0), "capsule plane: the end balls' extremes",
                      "case %d: %d, range %g..%g", i, cl_capsule_plane(&c, pn, pd), lo, hi);
        }
        /* raycast: aimed at a point of the capsule (often), along its axis, or anywhere */
        aim = vadd(vadd(c.a, vmul(vsub(c.b, c.a), rnd())), vmul(runit(), c.r * urand(0, 1.2)));
        if (chance(0.15)) { o = vadd(c.a, vmul(vsub(c.a, c.b), urand(0.5, 2))); aim = c.b; }
        if (chance(0.2)) aim = vmul(rvec(-3, 3), k);
        if (!cl_ray_make(&ray, o, vsub(aim, o))) continue;
        rc.o = ray.o; rc.d = ray.d;
        hit = cl_capsule_raycast(&c, &ray, INFINITY, &h);
        g0 = r_at_t(&rc, 0);
        gmin = convex_min(r_at_t, &rc, 0, 20 * k, &tmin);
        if (fabs(g0) <= tol || fabs(gmin) <= tol) { skipped++; continue; }
        if (g0 < 0) {
            CHECK(hit && h.t == 0 && veq(h.n, 0, 0, 0), "capsule raycast: from inside, t = 0 and n = 0", "case %d", i);
            continue;
        }
        CHECK(hit == (gmin < 0), "capsule raycast: hit exactly when the ray comes inside", "case %d: %d, min distance %g", i, hit, gmin);
        if (hit && gmin < 0) {
            double a = 0, b = tmin, tr;
            int j;
            cl_vec3 p, rn;
            for (j = 0; j < 200; j++) { double mid = 0.5 * (a + b); if (r_at_t(&rc, mid) < 0) b = mid; else a = mid; }
            tr = 0.5 * (a + b);
            hits++;
            CHECK(near(h.t, tr, 1e-7 * sc) || fabs(r_at_t(&rc, h.t)) <= 1e-9 * sc, "capsule raycast: the entry distance",
                  "case %d: t %.17g, reference %.17g", i, h.t, tr);
            p = vadd(ray.o, vmul(ray.d, h.t));
            if (c.r > 1e-3 * k) {
                double u;
                rn = vunit(vsub(p, cl_closest_on_segment(p, c.a, c.b, &u)));
                CHECK(vlen(vsub(rn, h.n)) <= 1e-6, "capsule raycast: the normal from the segment to the hit point",
                      "case %d: %g %g %g vs %g %g %g", i, h.n.x, h.n.y, h.n.z, rn.x, rn.y, rn.z);
            }
        }
    }
    printf("capsule queries: %d random (closest, contains, plane, raycast: %d hits checked, %d near-grazing skipped)\n", n, hits,
           skipped);
}

/* Findings of the fuzzers, kept as regressions. */
static void test_findings(void)
{
    /* two capsules whose segments span 2^-18 to 2^196: the closest points rounded differently in
     * each order, so overlaps(x, y) was 0 and overlaps(y, x) 1 (fuzz_world) */
    cl_capsule x, y;
    x.a = cl_v3(0x1p+2, -0x1.ep+2, 0x1.e6405804c6f31p+109);
    x.b = cl_v3(0x1.4p+1, 0x1.923146a21c859p-18, 0x1.cp+1);
    x.r = 0x1.cp+2;
    y.a = cl_v3(0x1.9832de8f1e387p+196, 0x1.ep+2, -0x1.4p+3);
    y.b = cl_v3(0x1.2p+3, 0x1p+3, -0x1.4p+1);
    y.r = 0x1.ep+2;
    ENSURE(cl_capsule_overlaps_capsule(&x, &y) == cl_capsule_overlaps_capsule(&y, &x),
           "finding: capsule/capsule overlap is symmetric at huge, lopsided coordinates");
    {   /* a capsule at x = DBL_MAX "inside" a box of +-1e300: the segment's closest point read
         * inside the box where the scaled data overflow (abuse.lua) */
        cl_capsule k;
        cl_aabb big = box(-1e300, -1e300, -1e300, 1e300, 1e300, 1e300);
        k.a = cl_v3(DBL_MAX, 1.5, -3.5);
        k.b = cl_v3(DBL_MAX, 1, -4.5);
        k.r = 2;
        ENSURE(!cl_capsule_overlaps_aabb(&k, &big), "finding: a capsule at DBL_MAX does not overlap a box of +-1e300");
    }
    {   /* a segment (r 3.4e-33) through a rotated box 5.3e-48 thick, crossing its plane 1.2 and
         * 1.7 inside its edges: its closest point rounds 1e-16 off the box, so the ball test
         * there said no overlap while the penetration (deep: the segment meets the box) said
         * depth 1.13 (fuzz_geom; csrc/fuzz/corpus/fuzz_geom/capsule_thin_flat_obb_depth) */
        cl_capsule k;
        cl_obb o;
        double depth;
        cl_vec3 n;
        k.a = cl_v3(-8, -8, -8);
        k.b = cl_v3(-8, 0x1.8p-46, 0x1.1717171717171p-108);
        k.r = 0x1.1717171717171p-108;
        o.c = cl_v3(0x1.171e3e3e3e3e3p-108, 0x1.1e3e3e3e3e3e3p-150, -0x1.fdfe3e3e3e323p-14);
        o.h = cl_v3(0x1.f184p-159, 8, 8);
        o.u[0] = cl_v3(0x1.00c0300c0300cp-1, -0x1.5054150541504p-1, -0x1.2048120481204p-1);
        o.u[1] = cl_v3(0x1.2048120481204p-1, -0x1.f87e1f87e1f8p-3, 0x1.93e4f93e4f93dp-1);
        o.u[2] = cl_v3(-0x1.5054150541504p-1, -0x1.6cdb36cdb36cdp-1, 0x1.f87e1f87e1f8cp-3);
        ENSURE(cl_capsule_overlaps_obb(&k, &o), "finding: a thin capsule through a flat rotated box overlaps it");
        ENSURE(cl_penetration_capsule_obb(&k, &o, &depth, &n) && depth > 1 && depth < 4.02,
               "finding: ... and its penetration says so (deeper than 1: the crossing is 1.2 from an edge)");
    }
    {   /* a sphere of radius 2^-49 (below the rounding of its centre, 4) hit straight on: the
         * offset from the centre to the ray's closest point is rounding noise as large as the
         * radius, and the normal came out along the ray (fuzz_geom) */
        cl_sphere sp;
        cl_ray ray;
        cl_hit h;
        sp.c = cl_v3(4, 4, 4);
        sp.r = 0x1p-49;
        h.n = cl_v3(0, 0, 0);
        ENSURE(cl_ray_make(&ray, cl_v3(0x1p-49, 0x1p-49, 0x1p-49), cl_v3(1, 1, 1)) && cl_sphere_raycast(&sp, &ray, HUGE_VAL, &h),
               "finding: a ray at a tiny sphere's centre hits it");
        CHECK(dot(h.n, ray.d) < 0 && fabs(dot(h.n, h.n) - 1) < 1e-12, "finding: ... with a unit normal facing the ray",
              "n %g %g %g", h.n.x, h.n.y, h.n.z);
    }
    {   /* a capsule at the origin inside a box reaching DBL_MAX: the frame's scale was 2^1024
         * (infinite), every frame value read 0 and the penetration said none while the overlap
         * said yes */
        cl_capsule k;
        cl_aabb huge = box(-DBL_MAX, -DBL_MAX, -DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX), tall = box(-1, -1, -1, 1, 1, 0x1p1023);
        double depth = 0;
        cl_vec3 n;
        k.a = cl_v3(0, 0, 0);
        k.b = cl_v3(1, 0, 0);
        k.r = 1;
        CHECK(cl_capsule_overlaps_aabb(&k, &huge) && cl_penetration_capsule_aabb(&k, &huge, &depth, &n) && depth > 1e308,
              "finding: a capsule inside a box of +-DBL_MAX penetrates it", "depth %g", depth);
        depth = 0;
        CHECK(cl_capsule_overlaps_aabb(&k, &tall) && cl_penetration_capsule_aabb(&k, &tall, &depth, &n) && depth == 2,
              "finding: a capsule in a box 2^1023 tall penetrates it by 2", "depth %g", depth);
    }
    {   /* nearly antiparallel segments 5.9e9 long, 10.5 apart at 4.6e-5 rad: a c - b b cancelled,
         * s came out 2.1576e-5 instead of 2.16947e-5 (500 units along), the points' difference
         * leaned 0.0022 rad along the twist, and a capsule pushed out by its penetration still
         * overlapped the other (fuzz_geom; csrc/fuzz/corpus/fuzz_geom/capsule_capsule_push).
         * Exact answers from rational arithmetic: s 2.1694741191747324e-05, direction
         * (0.99999999928, -2.68e-05, 2.68e-05). */
        cl_capsule x, y, m;
        double s, t, depth = 0, len;
        cl_vec3 p, q, d, n;
        x.a = cl_v3(4, 6, -6);
        x.b = cl_v3(2.3283064365386963e-09, 4185489274.0370097, 4185881097.4745097);
        x.r = 4286187897.4745097;
        y.a = cl_v3(5.0163453371875809e-85, 4185487737.4979558, 4185487743.476685);
        y.b = cl_v3(-6.5, -6.075961146639246e-74, -3.5);
        y.r = 4;
        cl_segment_segment(x.a, x.b, y.a, y.b, &s, &t, &p, &q);
        d = vsub(p, q);
        len = sqrt(dot(d, d));
        CHECK(fabs(s - 2.1694741191747324e-05) < 1e-12 && fabs(len - 10.499772203388076) < 1e-6 &&
              fabs(d.y / len + 2.68e-05) < 1e-6 && fabs(d.z / len - 2.68e-05) < 1e-6,
              "finding: closest points of nearly antiparallel long segments", "s %.17g d %g %g %g", s, d.x, d.y, d.z);
        ENSURE(cl_penetration_capsule_capsule(&x, &y, &depth, &n), "finding: ... the capsules penetrate");
        m = x;
        m.a = vadd(m.a, vmul(n, depth * (1 + 1e-12)));
        m.b = vadd(m.b, vmul(n, depth * (1 + 1e-12)));
        ENSURE(!cl_capsule_overlaps_capsule(&m, &y), "finding: ... and the push by the depth separates them");
    }
}

/* Power-of-two scalings of a scene (spec/37's findings): the same answers at 2^e as at scale 1. */
static void test_scale_findings(void)
{
    static const int es[] = { 0, -538, -600, -900, 600, 1000 };
    double t1 = 0;
    int i;
    for (i = 0; i < (int)(sizeof es / sizeof es[0]); i++) {
        /* a capsule moved up into a box below 2^-537: capsule.c's on_surface read the sign of a
         * dot product that underflowed, and the t came out 2^-40 off */
        double s = ldexp(1, es[i]);
        cl_capsule c;
        cl_obb o;
        cl_sweep r;
        c.a = cl_v3(-2 * s, -0x1.4000000001cp+1 * s, 0);
        c.b = cl_v3(-0x1.4p+0 * s, -0x1.a000000001cp+1 * s, 0x1.cp+0 * s);
        c.r = 1.5 * s;
        o.c = cl_v3(-1.75 * s, -0.5 * s, 0);
        o.h = cl_v3(0.25 * s, 0.5 * s, 1 * s);
        o.u[0] = cl_v3(1, 0, 0); o.u[1] = cl_v3(0, 1, 0); o.u[2] = cl_v3(0, 0, 1);
        r = cl_sweep_capsule_obb(&c, cl_v3(0, 2 * s, 0), &o);
        if (i == 0) t1 = r.t;
        CHECK(r.state == CL_TOI_TOUCHING && r.t == 0x1.cp-40 && r.t == t1 && r.n.y == -1, "capsule/OBB sweep scales",
              "e %d: state %d t %a", es[i], (int)r.state, r.t);
    }
    for (i = 0; i < 7; i++) {
        /* a capsule that misses a triangle by 2^-3 of its size was inside it at 2^-269 .. 2^-358
         * (trisweep.c's products of four coordinates underflowed); two triangles of size 2^340
         * overlapped, and a crossing pair of size 2^-538 had a degenerate triangle */
        static const int e2[] = { 0, -269, -300, -358, -540, 340, 1000 };
        double s = ldexp(1, e2[i]);
        cl_capsule c;
        cl_sweep r;
        cl_vec3 p[3], q[3];
        c.a = cl_v3(2.5 * s, -1 * s, 4 * s); c.b = cl_v3(1.75 * s, 1.75 * s, 2.75 * s); c.r = 0.25 * s;
        r = cl_sweep_capsule_tri(&c, cl_v3(0, 0, 3 * s), cl_v3(2.5 * s, 0.75 * s, 2.25 * s),
                                 cl_v3(2.5 * s, 0.75 * s, 3.25 * s), cl_v3(3.5 * s, 0.75 * s, 3.25 * s));
        CHECK(r.state == CL_TOI_SEPARATED, "capsule/triangle sweep misses at every scale", "e %d: state %d", e2[i],
              (int)r.state);
        p[0] = cl_v3(1.5 * s, 5 * s, 2 * s); p[1] = cl_v3(4.75 * s, 1.5 * s, 0.25 * s); p[2] = cl_v3(2.25 * s, 4.75 * s, 1 * s);
        q[0] = cl_v3(2.75 * s, 1.5 * s, -0.5 * s); q[1] = cl_v3(-1.5 * s, -3 * s, 2.75 * s);
        q[2] = cl_v3(1.25 * s, 1.75 * s, 3 * s);
        CHECK(!cl_tri_overlaps_tri(p, q), "separate triangles at every scale", "e %d", e2[i]);
        CHECK(!cl_tri_degenerate(cl_v3(0, 0, 0), cl_v3(2 * s, 0, 0), cl_v3(0, 2 * s, 0)) &&
                  cl_tri_degenerate(cl_v3(0, 0, 0), cl_v3(2 * s, 0, 0), cl_v3(4 * s, 0, 0)),
              "degenerate only when flat at every scale", "e %d", e2[i]);
    }
    for (i = 0; i < 4; i++) {
        /* the review's findings on the scaling above: large data scaled into [0.5, 1) flushed
         * components that have a copy in range: a triangle 2^-1050 above another at 2^150 (apart)
         * touched it at 2^300 (its gap 2^-900 flushed), and a triangle of normal (-2^100, 0, 2^100)
         * at 2^600 was degenerate (its 2^-500 offset flushed); scaled into [2^199, 2^200) neither */
        static const int e3[] = { 150, 300, 600, 1000 };
        double s = ldexp(1, e3[i]), gap = ldexp(1, e3[i] - 1200);
        cl_vec3 p[3], q[3];
        p[0] = cl_v3(0, 0, 0); p[1] = cl_v3(s, 0, 0); p[2] = cl_v3(0, 0, s);
        q[0] = cl_v3(s / 4, gap, s / 4); q[1] = cl_v3(s / 4, s / 2, s / 4); q[2] = cl_v3(s / 8, s / 2, s / 2);
        CHECK(!cl_tri_overlaps_tri(p, q) && !cl_tri_overlaps_tri(q, p), "a gap of 2^-1200 of the size stays a gap",
              "e %d", e3[i]);
        q[0].y = 0;
        CHECK(cl_tri_overlaps_tri(p, q) && cl_tri_overlaps_tri(q, p), "touching triangles touch", "e %d", e3[i]);
    }
    CHECK(!cl_tri_degenerate(cl_v3(0, 0, 0), cl_v3(0x1p600, 0, 0x1p600), cl_v3(0x1p601, 0x1p-500, 0x1p601)),
          "a triangle of normal (-2^100, 0, 2^100) is not degenerate", "at 2^600");
}

int main(void)
{
    quick = getenv("COLLIDE_QUICK") != NULL;
    if (getenv("NARROW_SEED")) rng_state += strtoull(getenv("NARROW_SEED"), NULL, 10) * 0x9E3779B97F4A7C15ULL;
    test_penetration_fixed();
    test_penetration_random();
    test_capsule_fixed();
    test_capsule_random();
    test_capsule_sweep_random();
    test_capsule_queries_random();
    test_findings();
    test_scale_findings();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
