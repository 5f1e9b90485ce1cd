/* Plain-C test of the collide core (`make check-core`): exact values, edge cases, extreme
 * magnitudes, and randomized self-consistency with a fixed seed. Last line: "N passed, N failed". */
#include <stdio.h>
#include <math.h>
#include <float.h>
#include <string.h>
#include "cl.h"
#define CHECK_SEED 0x9E3779B97F4A7C15ULL
#include "check.h"

static cl_ray ray(double ox, double oy, double oz, double dx, double dy, double dz)
{
    cl_ray r;
    r.o = cl_v3(0, 0, 0); r.d = cl_v3(0, 0, 0);
    cl_ray_make(&r, cl_v3(ox, oy, oz), cl_v3(dx, dy, dz));
    return r;
}
static cl_obb obb_axes(cl_vec3 c, cl_vec3 h, cl_vec3 u, cl_vec3 v, cl_vec3 w)
{
    cl_obb o;
    o.c = c; o.h = h; o.u[0] = u; o.u[1] = v; o.u[2] = w;
    return o;
}
static cl_obb obb(double cx, double cy, double cz, double hx, double hy, double hz)
{
    return obb_axes(cl_v3(cx, cy, cz), cl_v3(hx, hy, hz), cl_v3(1, 0, 0), cl_v3(0, 1, 0), cl_v3(0, 0, 1));
}
static int vnear(cl_vec3 a, double x, double y, double z, double tol)
{
    return fabs(a.x - x) <= tol && fabs(a.y - y) <= tol && fabs(a.z - z) <= tol;
}
static int vnan(cl_vec3 v) { return v.x != v.x || v.y != v.y || v.z != v.z; }

static cl_vec3 rvec(double a, double b)  /* sequenced: the same values with every compiler */
{
    double x = urand(a, b), y = urand(a, b), z = urand(a, b);
    return cl_v3(x, y, z);
}
static cl_vec3 runit(void)
{
    for (;;) {
        cl_vec3 v = rvec(-1, 1);
        double l = sqrt(dot(v, v));
        if (l > 0.1 && l <= 1) return vmul(v, 1 / l);
    }
}
/* Random rotation from a random unit quaternion (independent of cl_obb_rotate). */
static void rrot(cl_vec3 u[3])
{
    double q[4], l = 0, w, x, y, z;
    int i;
    for (i = 0; i < 4; i++) { q[i] = urand(-1, 1); l += q[i] * q[i]; }
    l = sqrt(l);
    w = q[0] / l; x = q[1] / l; y = q[2] / l; z = q[3] / l;
    u[0] = cl_v3(1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y));
    u[1] = cl_v3(2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x));
    u[2] = cl_v3(2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y));
}
static cl_sphere rsph(double cr, double rlo, double rhi, double scale)  /* sequenced draws */
{
    cl_vec3 c = rvec(-cr, cr);
    double r = urand(rlo, rhi);
    return sph(c.x * scale, c.y * scale, c.z * scale, r * scale);
}
static cl_obb robb(double cr, double hlo, double hhi)
{
    cl_obb o;
    o.c = rvec(-cr, cr);
    o.h = rvec(hlo, hhi);
    rrot(o.u);
    return o;
}

/* ================================================================ */

static void test_ray(void)
{
    cl_ray r;
    double t;
    ENSURE(cl_ray_make(&r, cl_v3(1, 2, 3), cl_v3(0, -5, 0)) && veq(r.d, 0, -1, 0) && veq(r.o, 1, 2, 3),
           "ray_make normalises an axis direction exactly and keeps the origin");
    ENSURE(cl_ray_make(&r, cl_v3(0, 0, 0), cl_v3(2, 2, 2)) && veq(r.d, 1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)),
           "ray_make (2,2,2) gives (1,1,1)/sqrt 3");
    ENSURE(!cl_ray_make(&r, cl_v3(0, 0, 0), cl_v3(0, 0, 0)), "ray_make rejects a zero direction");
    ENSURE(cl_ray_make(&r, cl_v3(0, 0, 0), cl_v3(1e-300, 0, 0)) && veq(r.d, 1, 0, 0),
           "ray_make normalises a tiny direction without underflow");
    ENSURE(cl_ray_make(&r, cl_v3(0, 0, 0), cl_v3(4.9e-324, 4.9e-324, 0)) && near(r.d.x, sqrt(0.5), 1e-15) &&
           r.d.x == r.d.y, "ray_make normalises a subnormal direction");
    ENSURE(cl_ray_make(&r, cl_v3(0, 0, 0), cl_v3(1e300, -1e300, 0)) && near(r.d.x, sqrt(0.5), 1e-15) &&
           r.d.y == -r.d.x && r.d.z == 0, "ray_make normalises a huge direction without overflow");
    ENSURE(!cl_ray_make(&r, cl_v3(0, 0, 0), cl_v3(INFINITY, 0, 0)), "ray_make rejects an infinite direction");

    r = ray(1, 2, 3, 1, 0, 0);
    ENSURE(veq(cl_ray_at(&r, 2.5), 3.5, 2, 3), "ray_at o + t d");
    ENSURE(veq(cl_ray_at(&r, INFINITY), INFINITY, 2, 3), "ray_at(inf) has no inf*0 NaN in zero components");

    r = ray(0, 0, 0, 0, 0, 1);
    ENSURE(cl_ray_plane(&r, cl_v3(0, 0, 1), -5, &t) && t == 5, "ray_plane hits z = 5 at t = 5");
    ENSURE(cl_ray_plane(&r, cl_v3(0, 0, 2), -10, &t) && t == 5, "ray_plane with a non-unit normal");
    ENSURE(cl_ray_plane(&r, cl_v3(0, 0, -3), 15, &t) && t == 5, "ray_plane with a flipped normal");
    ENSURE(!cl_ray_plane(&r, cl_v3(0, 0, 1), 5, &t), "ray_plane: plane behind is a miss");
    ENSURE(cl_ray_plane(&r, cl_v3(0, 0, 1), 0, &t) && t == 0 && !signbit(t), "ray_plane: origin on plane gives +0");
    r = ray(0, 0, 0, 1, 0, 0);
    ENSURE(!cl_ray_plane(&r, cl_v3(0, 0, 1), -5, &t), "ray_plane: parallel is a miss");
    ENSURE(cl_ray_plane(&r, cl_v3(0, 0, 1), 0, &t) && t == 0, "ray_plane: parallel in the plane gives 0");
    ENSURE(cl_ray_plane(&r, cl_v3(0, 0, 0), 0, &t) && t == 0, "ray_plane: zero normal, d = 0 -> on the plane");
    ENSURE(!cl_ray_plane(&r, cl_v3(0, 0, 0), 1, &t), "ray_plane: zero normal, d != 0 -> miss");
    r = ray(-1e300, 0, 0, 1, 0, 0);
    ENSURE(cl_ray_plane(&r, cl_v3(1e300, 1e300, 0), 0, &t) && t == 1e300, "ray_plane: huge normal and origin, exact t");
    r = ray(-1e-300, 0, 0, 1, 0, 0);
    ENSURE(cl_ray_plane(&r, cl_v3(1e-300, 0, 0), 0, &t) && t == 1e-300, "ray_plane: tiny normal and origin, exact t");
    r = ray(-1.5e308, 0, 0, 1, 0, 0);
    ENSURE(cl_ray_plane(&r, cl_v3(1, 0, 0), -1.5e308, &t) && t == INFINITY,
           "ray_plane: a distance beyond DBL_MAX is +inf, not NaN");
}

static void test_aabb_static(void)
{
    cl_aabb a = box(0, 0, 0, 1, 1, 1), b, m;
    ENSURE(cl_aabb_contains(&a, cl_v3(0.5, 0.5, 0.5)), "contains interior point");
    ENSURE(cl_aabb_contains(&a, cl_v3(1, 1, 1)) && cl_aabb_contains(&a, cl_v3(0, 0.5, 1)), "contains is inclusive");
    ENSURE(!cl_aabb_contains(&a, cl_v3(1.0000000000000002, 0.5, 0.5)), "contains: one ulp outside is out");
    b = box(1, 0, 0, 2, 1, 1);
    ENSURE(cl_aabb_overlaps_aabb(&a, &b) && cl_aabb_overlaps_aabb(&b, &a), "touching faces overlap");
    b = box(1, 1, 1, 2, 2, 2);
    ENSURE(cl_aabb_overlaps_aabb(&a, &b), "touching corners overlap");
    b = box(1.0000000000000002, 0, 0, 2, 1, 1);
    ENSURE(!cl_aabb_overlaps_aabb(&a, &b), "a one-ulp gap separates");
    b = box(0.5, 0.5, 0.5, 0.5, 0.5, 0.5);
    ENSURE(cl_aabb_overlaps_aabb(&a, &b) && cl_aabb_contains(&b, cl_v3(0.5, 0.5, 0.5)), "point box (flat) overlaps");
    b = box(0, 0, 1, 1, 1, 1);
    ENSURE(cl_aabb_overlaps_aabb(&a, &b), "flat box on the top face overlaps");
    ENSURE(veq(cl_aabb_closest(&a, cl_v3(2, -1, 0.5)), 1, 0, 0.5), "closest clamps");
    ENSURE(veq(cl_aabb_closest(&a, cl_v3(0.25, 0.5, 0.75)), 0.25, 0.5, 0.75), "closest of an inside point is itself");
    ENSURE(cl_aabb_plane(&a, cl_v3(0, 0, 1), 1) == 1, "plane: box wholly in front");
    ENSURE(cl_aabb_plane(&a, cl_v3(0, 0, 1), -2) == -1, "plane: box wholly behind");
    ENSURE(cl_aabb_plane(&a, cl_v3(0, 0, 1), -0.5) == 0, "plane: crossing");
    ENSURE(cl_aabb_plane(&a, cl_v3(0, 0, 1), 0) == 0 && cl_aabb_plane(&a, cl_v3(0, 0, 1), -1) == 0,
           "plane: touching is 0");
    ENSURE(cl_aabb_plane(&a, cl_v3(1, 1, 1), 0) == 0 && cl_aabb_plane(&a, cl_v3(1, 1, 1), 1e-300) == 1,
           "plane: touching at a corner is 0; just off is 1");
    ENSURE(cl_aabb_plane(&a, cl_v3(-1, -1, 0), 2) == 0 && cl_aabb_plane(&a, cl_v3(-1, -1, 0), 2.5) == 1 &&
           cl_aabb_plane(&a, cl_v3(-1, -1, 0), -0.5) == -1, "plane: negative normal components");
    ENSURE(cl_aabb_plane(&a, cl_v3(0, 0, 0), 2) == 1 && cl_aabb_plane(&a, cl_v3(0, 0, 0), -2) == -1 &&
           cl_aabb_plane(&a, cl_v3(0, 0, 0), 0) == 0, "plane: zero normal gives the sign of d");
    ENSURE(cl_aabb_plane(&a, cl_v3(1e300, 0, 0), -1e300) == 0 && cl_aabb_plane(&a, cl_v3(1e300, 0, 0), 1e300) == 1 &&
           cl_aabb_plane(&a, cl_v3(1e-300, 0, 0), -2e-300) == -1, "plane: huge and tiny normals are exact");
    b = box(-1, 2, 0.5, 0.5, 3, 4);
    m = cl_aabb_merge(&a, &b);
    ENSURE(veq(m.min, -1, 0, 0) && veq(m.max, 1, 3, 4), "merge");
}

static void test_aabb_ray(void)
{
    /* seed 004's unit test */
    cl_aabb a = box(0.5, 0.5, 0.5, 2, 2, 2);
    cl_ray rs[5];
    cl_hit h;
    double t0, t1, s3 = 1.0 / sqrt(3.0);
    int i, expect[5] = {1, 0, 0, 1, 0};
    rs[0] = ray(-2, -2, -2, 2, 2, 2);
    rs[1] = ray(0, 0, 0, 0, 1, 0);
    rs[2] = ray(0, 0, 0, -1, 0, 0);
    rs[3] = ray(1, 1, 1, 1, 1, 0);
    rs[4] = ray(0.4, 1, 1, -1, 0, 0);
    for (i = 0; i < 5; i++) {
        char msg[64];
        sprintf(msg, "seed 004 ray %d hit/miss", i + 1);
        ENSURE(cl_aabb_raycast(&a, &rs[i], INFINITY, &h) == expect[i], msg);
    }
    cl_aabb_raycast(&a, &rs[0], INFINITY, &h);
    ENSURE(h.t == 2.5 / s3 && near(h.t, 2.5 * sqrt(3.0), 1e-14), "seed 004 ray 1: t = 2.5 sqrt 3");
    ENSURE(veq(h.n, -1, 0, 0), "seed 004 ray 1: corner tie -> lowest axis normal (-1,0,0)");
    cl_aabb_raycast(&a, &rs[3], INFINITY, &h);
    ENSURE(h.t == 0 && veq(h.n, 0, 0, 0), "seed 004 ray 4 starts inside: t = 0, n = 0");
    ENSURE(cl_aabb_clip(&a, &rs[0], &t0, &t1) && t0 == 2.5 / s3 && t1 == 4 / s3, "clip seed ray 1: enter/exit");
    ENSURE(cl_aabb_clip(&a, &rs[3], &t0, &t1) && t0 < 0 && t1 > 0 && near(t0, -0.5 * sqrt(2.0), 1e-15) &&
           near(t1, sqrt(2.0), 1e-15), "clip from inside: negative enter");
    ENSURE(!cl_aabb_clip(&a, &rs[1], &t0, &t1), "clip: line misses");
    ENSURE(!cl_aabb_clip(&a, &rs[4], &t0, &t1), "clip: box behind (texit < 0)");

    a = box(0, 0, 0, 1, 1, 1);
    {
        cl_ray r = ray(-2, 0.5, 0.5, 1, 0, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 2 && veq(h.n, -1, 0, 0), "face hit -x");
        ENSURE(cl_aabb_raycast(&a, &r, 2, &h) && h.t == 2, "t == maxt counts");
        ENSURE(!cl_aabb_raycast(&a, &r, 1.9999999999999998, &h), "t > maxt misses");
        ENSURE(!cl_aabb_raycast(&a, &r, 0, &h), "maxt 0 from outside misses");
        r = ray(0.5, 3, 0.5, 0, -1, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 2 && veq(h.n, 0, 1, 0), "face hit from +y: n = +y");
        r = ray(0.5, 0.5, -4, 0, 0, 1);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 4 && veq(h.n, 0, 0, -1), "face hit -z");
        r = ray(0, 0.5, -1, 0, 0, 1);  /* origin on the x = 0 slab plane, d.x == 0 */
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 1 && veq(h.n, 0, 0, -1),
               "ray along a face (origin on slab plane, zero d component) hits");
        ENSURE(cl_aabb_clip(&a, &r, &t0, &t1) && t0 == 1 && t1 == 2, "clip along a face");
        r = ray(1, 1, -1, 0, 0, 1);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 1 && veq(h.n, 0, 0, -1), "ray along an edge hits");
        r = ray(1.0000000000000002, 1, -1, 0, 0, 1);
        ENSURE(!cl_aabb_raycast(&a, &r, INFINITY, &h) && !cl_aabb_clip(&a, &r, &t0, &t1),
               "ray parallel one ulp outside misses");
        r = ray(-1, -1, 0.5, 1, 1, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && veq(h.n, -1, 0, 0) && h.t == 1 / r.d.x &&
               near(h.t, sqrt(2.0), 1e-15), "edge hit: x/y tie -> x normal");
        r = ray(0.5, -1, -1, 0, 1, 1);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && veq(h.n, 0, -1, 0), "edge hit: y/z tie -> y normal");
        r = ray(2, 2, 2, -1, -1, -1);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && veq(h.n, 1, 0, 0), "corner hit from +: +x normal");
        r = ray(-1, 0.5, 0, 1, 0, 1);  /* touches the edge x = 0, z = 1 and leaves: entry == exit */
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 1 / r.d.x && veq(h.n, -1, 0, 0),
               "grazing an edge (entry == exit) is a hit");
        r = ray(-1, 0.5, 0.0000000001, 1, 0, 1);
        ENSURE(!cl_aabb_raycast(&a, &r, INFINITY, &h), "just past the edge misses");
        r = ray(1, 0.5, 0.5, 1, 0, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 0 && veq(h.n, 0, 0, 0),
               "origin on the surface moving out: t = 0, n = 0");
        r = ray(2, 0.5, 0.5, 1, 0, 0);
        ENSURE(!cl_aabb_raycast(&a, &r, INFINITY, &h), "box behind misses");
        r = ray(-1, 2, 0.5, 1, 0, 0);
        ENSURE(!cl_aabb_raycast(&a, &r, INFINITY, &h), "parallel outside slab misses");
    }
    a = box(0, 0, 0, 1, 1, 0);  /* flat */
    {
        cl_ray r = ray(0.5, 0.5, 3, 0, 0, -1);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 3 && veq(h.n, 0, 0, 1), "flat box hit from above");
        r = ray(-1, 0.5, 0, 1, 0, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 1 && veq(h.n, -1, 0, 0), "flat box hit edge-on");
        r = ray(-1, 0.5, 1e-300, 1, 0, 0);
        ENSURE(!cl_aabb_raycast(&a, &r, INFINITY, &h), "flat box: 1e-300 above misses");
    }
    /* extreme magnitudes */
    a = box(1e300, -1, -1, 1.1e300, 1, 1);
    {
        cl_ray r = ray(-1e300, 0, 0, 1, 0, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 2e300 && veq(h.n, -1, 0, 0), "huge: exact t = 2e300");
        a = box(1.7e308, -1, -1, 1.79e308, 1, 1);
        r = ray(-1.7e308, 0, 0, 1, 0, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == INFINITY, "overflowing distance is +inf, not NaN");
        ENSURE(!cl_aabb_raycast(&a, &r, 1e308, &h), "overflowing distance beyond a finite maxt misses");
        a = box(1e-300, -1e-300, -1e-300, 2e-300, 1e-300, 1e-300);
        r = ray(0, 0, 0, 1, 0, 0);
        ENSURE(cl_aabb_raycast(&a, &r, INFINITY, &h) && h.t == 1e-300, "tiny: exact t = 1e-300");
        r = ray(0, 1.0000000000000002e-300, 0, 1, 0, 0);
        ENSURE(!cl_aabb_raycast(&a, &r, INFINITY, &h), "tiny: parallel one ulp outside misses");
    }
}

static void test_aabb_segment(void)
{
    cl_aabb a = box(0, 0, 0, 1, 1, 1);
    cl_hit h;
    ENSURE(cl_aabb_segment(&a, cl_v3(-1, 0.5, 0.5), cl_v3(3, 0.5, 0.5), 1, &h) && h.t == 0.25 && veq(h.n, -1, 0, 0),
           "segment enters -x at 0.25");
    ENSURE(cl_aabb_segment(&a, cl_v3(0.5, 0.5, 3), cl_v3(0.5, 0.5, -1), 1, &h) && h.t == 0.5 && veq(h.n, 0, 0, 1),
           "segment enters +z at 0.5");
    ENSURE(!cl_aabb_segment(&a, cl_v3(-1, 0.5, 0.5), cl_v3(3, 0.5, 0.5), 0.2, &h), "maxfraction cuts it short");
    ENSURE(cl_aabb_segment(&a, cl_v3(-1, 0.5, 0.5), cl_v3(3, 0.5, 0.5), 0.25, &h) && h.t == 0.25,
           "fraction == maxfraction counts");
    ENSURE(!cl_aabb_segment(&a, cl_v3(-1, 0.5, 0.5), cl_v3(-0.5, 0.5, 0.5), 1, &h), "segment ends before the box");
    ENSURE(cl_aabb_segment(&a, cl_v3(-1, 0.5, 0.5), cl_v3(-0.5, 0.5, 0.5), INFINITY, &h) && h.t == 2,
           "infinite maxfraction extends the segment");
    ENSURE(cl_aabb_segment(&a, cl_v3(0.5, 0.5, 0.5), cl_v3(3, 3, 3), 1, &h) && h.t == 0 && veq(h.n, 0, 0, 0),
           "start inside: 0 and zero normal");
    ENSURE(cl_aabb_segment(&a, cl_v3(1, 0.5, 0.5), cl_v3(3, 0.5, 0.5), 1, &h) && h.t == 0 && veq(h.n, 0, 0, 0),
           "start on the surface moving out: 0, zero normal");
    ENSURE(cl_aabb_segment(&a, cl_v3(0.5, 0.5, 0.5), cl_v3(0.5, 0.5, 0.5), 1, &h) && h.t == 0 && veq(h.n, 0, 0, 0),
           "zero-length segment inside: point test hit");
    ENSURE(cl_aabb_segment(&a, cl_v3(1, 1, 1), cl_v3(1, 1, 1), 1, &h) && h.t == 0,
           "zero-length segment on a corner: hit");
    ENSURE(!cl_aabb_segment(&a, cl_v3(2, 0.5, 0.5), cl_v3(2, 0.5, 0.5), 1, &h), "zero-length segment outside: miss");
    ENSURE(cl_aabb_segment(&a, cl_v3(0, 0.5, -1), cl_v3(0, 0.5, 3), 1, &h) && h.t == 0.25 && veq(h.n, 0, 0, -1),
           "segment along a face (on a slab plane) hits");
    ENSURE(cl_aabb_segment(&a, cl_v3(-1, -1, 0.5), cl_v3(1, 1, 0.5), 1, &h) && h.t == 0.5 && veq(h.n, -1, 0, 0),
           "segment through an edge: lowest axis wins the tie");
    ENSURE(cl_aabb_segment(&a, cl_v3(2, 2, 2), cl_v3(0, 0, 0), 1, &h) && h.t == 0.5 && veq(h.n, 1, 0, 0),
           "segment through a corner from +: +x normal");
    ENSURE(!cl_aabb_segment(&a, cl_v3(-1, 1.5, 0.5), cl_v3(3, 1.5, 0.5), 1, &h), "parallel segment outside misses");
    ENSURE(cl_aabb_segment(&a, cl_v3(-1.5e308, 0.5, 0.5), cl_v3(1.5e308, 0.5, 0.5), 1, &h) && h.t == 0.5 &&
           veq(h.n, -1, 0, 0), "segment whose p2 - p1 overflows: exact 0.5, no NaN");
    a = box(1e-300, 0, 0, 2e-300, 1e-300, 1e-300);
    ENSURE(cl_aabb_segment(&a, cl_v3(0, 5e-301, 5e-301), cl_v3(4e-300, 5e-301, 5e-301), 1, &h) && h.t == 0.25,
           "tiny segment exact fraction");
}

static cl_vec3 rz45u, rz45v;

static void test_obb(void)
{
    double r = sqrt(0.5);
    cl_obb o = obb_axes(cl_v3(0, 0, 0), cl_v3(1, 1, 1), cl_v3(r, r, 0), cl_v3(-r, r, 0), cl_v3(0, 0, 1)), p;
    cl_vec3 u[3], c;
    cl_aabb bb;
    cl_hit h;
    cl_ray ry;
    rz45u = o.u[0]; rz45v = o.u[1];
    u[0] = cl_v3(1, 0, 0); u[1] = cl_v3(0, 1, 0); u[2] = cl_v3(0, 0, 1);
    ENSURE(cl_axes_orthonormal(u, 1e-6), "world axes are orthonormal");
    ENSURE(cl_axes_orthonormal(o.u, 1e-6), "45 degree axes are orthonormal");
    u[2] = cl_v3(0, 0, -1);
    ENSURE(cl_axes_orthonormal(u, 1e-6), "left-handed axes are accepted");
    u[0] = cl_v3(1.000001, 0, 0);
    ENSURE(!cl_axes_orthonormal(u, 1e-6), "length 1.000001 (u.u - 1 = 2e-6) fails at 1e-6");
    u[0] = cl_v3(1.0000004, 0, 0);
    ENSURE(cl_axes_orthonormal(u, 1e-6), "length 1.0000004 passes at 1e-6");
    u[0] = cl_v3(1, 2e-6, 0);
    ENSURE(!cl_axes_orthonormal(u, 1e-6), "u.v = 2e-6 fails");
    u[0] = cl_v3(NAN, 0, 0);
    ENSURE(!cl_axes_orthonormal(u, 1e-6), "NaN axes fail");

    ENSURE(cl_obb_contains(&o, cl_v3(1.2, 0, 0)) && !cl_obb_contains(&o, cl_v3(1.5, 0, 0)),
           "rotated box contains (change of basis)");
    ENSURE(cl_obb_contains(&o, cl_v3(0, 0, 1)) && !cl_obb_contains(&o, cl_v3(0, 0, 1.0000000000000002)),
           "obb contains is inclusive on a face");
    c = cl_obb_closest(&o, cl_v3(5, 0, 0));
    ENSURE(vnear(c, sqrt(2.0), 0, 0, 1e-15), "obb closest is the corner");
    c = cl_obb_closest(&o, cl_v3(0.1, 0.2, 0.3));
    ENSURE(vnear(c, 0.1, 0.2, 0.3, 1e-16), "obb closest of an inside point is itself");
    bb = cl_obb_aabb(&o);
    ENSURE(vnear(bb.min, -sqrt(2.0), -sqrt(2.0), -1, 1e-15) && vnear(bb.max, sqrt(2.0), sqrt(2.0), 1, 1e-15) &&
           bb.min.z == -1 && bb.max.z == 1, "obb aabb is tight");
    ENSURE(cl_obb_plane(&o, cl_v3(1, 0, 0), -1.5) == -1 && cl_obb_plane(&o, cl_v3(1, 0, 0), -1.4) == 0 &&
           cl_obb_plane(&o, cl_v3(1, 0, 0), 1.5) == 1, "obb plane sides");
    ENSURE(cl_obb_plane(&o, cl_v3(0, 0, 1), -1) == 0 && cl_obb_plane(&o, cl_v3(0, 0, 2), -2.0000000000000004) == -1,
           "obb plane: touching a face is 0, beyond it -1");
    ENSURE(cl_obb_plane(&o, cl_v3(0, 0, 0), -1) == -1, "obb plane: zero normal -> sign of d");

    ry = ray(-5, 0, 0, 1, 0, 0);
    ENSURE(cl_obb_raycast(&o, &ry, INFINITY, &h) && near(h.t, 5 - sqrt(2.0), 1e-15) && veq(h.n, -r, -r, 0),
           "obb ray hits the vertex edge; tie -> first local axis u, n = -u");
    ry = ray(0, -5, 0, 0, 1, 0);
    ENSURE(cl_obb_raycast(&o, &ry, INFINITY, &h) && near(h.t, 5 - sqrt(2.0), 1e-15) && veq(h.n, -r, -r, 0),
           "obb ray from -y onto the vertex edge: tie -> u, n = -u");
    ry = ray(-5, -5, 0, 1, 1, 0);
    ENSURE(cl_obb_raycast(&o, &ry, INFINITY, &h) && near(h.t, 5 * sqrt(2.0) - 1, 1e-14) && vnear(h.n, -r, -r, 0, 1e-16),
           "obb ray onto a face along u");
    ry = ray(0.5, 0, 0, 1, 0, 0);
    ENSURE(cl_obb_raycast(&o, &ry, INFINITY, &h) && h.t == 0 && veq(h.n, 0, 0, 0), "obb ray from inside");
    ry = ray(0, 0, 1, 1, 0, 0);
    ENSURE(cl_obb_raycast(&o, &ry, INFINITY, &h) && h.t == 0 && veq(h.n, 0, 0, 0), "obb ray from the top face");
    ry = ray(-5, 0, 1, 1, 0, 0);
    ENSURE(cl_obb_raycast(&o, &ry, INFINITY, &h) && near(h.t, 5 - sqrt(2.0), 1e-15),
           "obb ray along the top face plane (d.w == 0, origin on the slab plane) hits");
    ry = ray(-5, 0, 1.0000000000000002, 1, 0, 0);
    ENSURE(!cl_obb_raycast(&o, &ry, INFINITY, &h), "obb ray one ulp above the top face misses");
    ry = ray(-5, 0, 0, 1, 0, 0);
    ENSURE(!cl_obb_raycast(&o, &ry, 3.5, &h), "obb ray maxt");
    ry = ray(5, 0, 0, 1, 0, 0);
    ENSURE(!cl_obb_raycast(&o, &ry, INFINITY, &h), "obb behind misses");

    p = cl_obb_from_aabb(&(cl_aabb){{-1, 2, 3}, {1, 6, 3}});
    ENSURE(veq(p.c, 0, 4, 3) && veq(p.h, 1, 2, 0) && veq(p.u[0], 1, 0, 0) && veq(p.u[1], 0, 1, 0) &&
           veq(p.u[2], 0, 0, 1), "obb_from_aabb");

    /* rotate */
    p = obb(1, 2, 3, 1, 2, 3);
    ENSURE(cl_obb_rotate(&p, PI / 2, cl_v3(0, 0, 5)), "rotate about z");
    ENSURE(vnear(p.u[0], 0, 1, 0, 1e-15) && vnear(p.u[1], -1, 0, 0, 1e-15) && vnear(p.u[2], 0, 0, 1, 1e-15) &&
           veq(p.c, 1, 2, 3) && veq(p.h, 1, 2, 3), "rotate 90 degrees about z: right-handed, centre kept");
    ENSURE(!cl_obb_rotate(&p, 1, cl_v3(0, 0, 0)), "rotate about a zero axis fails");
    p = obb(0, 0, 0, 1, 1, 1);
    cl_obb_rotate(&p, 2 * PI / 3, cl_v3(1, 1, 1));
    ENSURE(vnear(p.u[0], 0, 1, 0, 1e-15) && vnear(p.u[1], 0, 0, 1, 1e-15) && vnear(p.u[2], 1, 0, 0, 1e-15),
           "rotate 120 degrees about (1,1,1) cycles the axes");
    p = obb_axes(cl_v3(0, 0, 0), cl_v3(1, 1, 1), cl_v3(1, 0, 0), cl_v3(0, 1, 0), cl_v3(0, 0, -1));
    cl_obb_rotate(&p, 0.7, cl_v3(1, 2, 3));
    ENSURE(dot(vcross(p.u[0], p.u[1]), p.u[2]) < 0 && cl_axes_orthonormal(p.u, 1e-14), "rotate keeps left-handedness");
    {
        int i;
        p = obb(0, 0, 0, 1, 1, 1);
        for (i = 0; i < 100000; i++) cl_obb_rotate(&p, 0.1 + i * 1e-3, cl_v3(1, 0.3 * i, -2));
        ENSURE(cl_axes_orthonormal(p.u, 1e-14) && dot(vcross(p.u[0], p.u[1]), p.u[2]) > 0,
               "100000 rotations stay orthonormal (Gram-Schmidt) and right-handed");
    }
    p = obb(0, 0, 0, 1, 1, 1);
    cl_obb_rotate(&p, 0.3, cl_v3(1e-300, 0, 0));
    ENSURE(near(p.u[1].y, cos(0.3), 1e-15) && near(p.u[1].z, sin(0.3), 1e-15), "rotate about a tiny axis");
    p = obb(0, 0, 0, 1, 1, 1);
    cl_obb_rotate(&p, 0.3, cl_v3(1e300, 0, 0));
    ENSURE(near(p.u[1].y, cos(0.3), 1e-15) && near(p.u[1].z, sin(0.3), 1e-15), "rotate about a huge axis");
}

/* Builds B so that A (axis-aligned cube, h = 1) and B are separated only by the edge-edge axis
 * z x (1,-1,0) when d is in (2 sqrt 2, ~3.83). */
static cl_obb edge_edge_box(double d)
{
    double r = sqrt(0.5);
    cl_vec3 n1 = cl_v3(r, r, 0), z = cl_v3(0, 0, 1);
    return obb_axes(vmul(n1, d), cl_v3(1, 1, 1), cl_v3(r, -r, 0), vmul(vadd(n1, z), r), vmul(vsub(z, n1), r));
}

static void test_sat(void)
{
    cl_obb a = obb(0, 0, 0, 1, 1, 1), b;
    cl_aabb bx;
    cl_vec3 ax[15];
    double r = sqrt(0.5), cen, rad;
    b = obb(2, 0, 0, 1, 1, 1);
    ENSURE(cl_obb_overlaps_obb(&a, &b) && cl_obb_overlaps_obb(&b, &a), "OBBs touching faces overlap");
    b = obb(2.0000000000000004, 0, 0, 1, 1, 1);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "OBBs an ulp apart are separate");
    b = obb(2, 2, 2, 1, 1, 1);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "OBBs touching at a corner overlap");
    b = obb(0, 0, 0, 0, 0, 0);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "point OBB at the centre overlaps");
    b = edge_edge_box(3.0);
    ENSURE(!cl_obb_overlaps_obb(&a, &b) && !cl_obb_overlaps_obb(&b, &a), "separated only by an edge x edge axis");
    b = edge_edge_box(2.7);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "edge-edge case overlapping");
    b = edge_edge_box(2 * sqrt(2.0) - 1e-9);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "edge-edge case 1e-9 inside the touching distance: overlap");
    b = edge_edge_box(2 * sqrt(2.0) + 1e-9);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "edge-edge case 1e-9 beyond the touching distance: separate");
    /* parallel edges: identical rotated orientation, separated diagonally */
    a = obb_axes(cl_v3(0, 0, 0), cl_v3(1, 1, 1), cl_v3(r, r, 0), cl_v3(-r, r, 0), cl_v3(0, 0, 1));
    b = a;
    b.c = cl_v3(0, 2 * sqrt(2.0) + 1e-9, 0);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "parallel rotated boxes with a 1e-9 gap are separate");
    b.c = cl_v3(0.5, 0.25, 2);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "parallel rotated boxes touching face to face (exact, along w) overlap");
    b.c = cl_v3(0.5, 0.25, 2.0000000000000004);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "parallel rotated boxes an ulp apart along w: separate");
    b.c = cl_v3(1e6, 1e6, 1e6);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "parallel boxes far apart: no false overlap");
    /* nearly parallel (angle 1e-9): cross axes are skipped; face axes decide */
    b = a;
    cl_obb_rotate(&b, 1e-9, cl_v3(0.3, 0.5, 1));
    b.c = cl_v3(2.0 * r + 2.0 * r + 1e-6, 0, 0);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "nearly parallel boxes slightly apart along a face axis: separate");
    b.c = cl_v3(0, 0, 1.999);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "nearly parallel boxes overlapping: no false separation");
    b.c = cl_v3(1e100, -3e100, 1e50);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "nearly parallel boxes very far apart: no false overlap");
    /* OBB vs AABB */
    bx = box(1.5, -1, -1, 3, 1, 1);
    ENSURE(!cl_obb_overlaps_aabb(&a, &bx), "rotated OBB vs AABB beyond its corner: separate");
    bx = box(1.4, -1, -1, 3, 1, 1);
    ENSURE(cl_obb_overlaps_aabb(&a, &bx), "rotated OBB corner inside AABB: overlap");
    bx = box(1, -1, -1, 3, 1, 1);
    b = obb(0, 0, 0, 1, 1, 1);
    ENSURE(cl_obb_overlaps_aabb(&b, &bx), "axis-aligned OBB touching an AABB: overlap");
    /* huge */
    a = obb(1e308, 0, 0, 1e307, 1, 1);
    b = obb(-1e308, 0, 0, 1e307, 1, 1);
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "huge: boxes 2e308 apart (difference overflows) are separate");
    b = obb(-1e308, 0, 0, 1.7e308, 1, 1);
    b.u[1] = cl_v3(0, r, r); b.u[2] = cl_v3(0, -r, r);
    a.h = cl_v3(1.7e308, 1, 1);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "huge: overlapping boxes with overflowing sums overlap");
    a = obb(0x1p-1000, 0, 0, 0x1p-1000, 0x1p-1000, 0x1p-1000);
    b = obb(3 * 0x1p-1000, 0, 0, 0x1p-1000, 0x1p-1000, 0x1p-1000);
    ENSURE(cl_obb_overlaps_obb(&a, &b), "tiny: touching boxes overlap");
    b.c.x = 3.0000000000000004 * 0x1p-1000;
    ENSURE(!cl_obb_overlaps_obb(&a, &b), "tiny: separated boxes");
    /* axes helper */
    a = obb(0, 0, 0, 1, 1, 1);
    b = a;
    ENSURE(cl_obb_axes(&a, &b, ax) == 12, "axes: identical orientation skips the 3 parallel cross axes");
    b = edge_edge_box(3);
    ENSURE(cl_obb_axes(&a, &b, ax) == 15 && near(dot(ax[14], ax[14]), 1, 1e-15) && veq(ax[3], r, -r, 0),
           "axes: no parallel pair gives 15 unit axes, b's after a's");
    cl_obb_project(&b, cl_v3(r, r, 0), &cen, &rad);
    ENSURE(near(cen, 3, 1e-15) && near(rad, sqrt(2.0), 1e-15), "project onto the edge-edge normal");
}

static void test_sphere(void)
{
    cl_sphere s = sph(0, 0, 0, 5), t;
    cl_aabb bx;
    cl_obb o;
    cl_hit h;
    cl_ray r;
    ENSURE(cl_sphere_contains(&s, cl_v3(3, 4, 0)) && !cl_sphere_contains(&s, cl_v3(3, 4.000000000000001, 0)),
           "sphere contains is inclusive on the surface (seed 002 uses <)");
    ENSURE(veq(cl_sphere_closest(&s, cl_v3(0, 0, 10)), 0, 0, 5) && veq(cl_sphere_closest(&s, cl_v3(1, 2, 3)), 1, 2, 3),
           "sphere closest");
    ENSURE(veq(cl_sphere_closest(&s, cl_v3(6, 8, 0)), 3, 4, 0), "sphere closest along a diagonal");
    bx = cl_sphere_aabb(&s);
    ENSURE(veq(bx.min, -5, -5, -5) && veq(bx.max, 5, 5, 5), "sphere aabb");
    t = sph(1.7e308, 0, 0, 1e308);
    bx = cl_sphere_aabb(&t);
    ENSURE(bx.max.x == DBL_MAX && bx.min.x == 1.7e308 - 1e308, "sphere aabb clamps overflow to DBL_MAX");
    ENSURE(cl_sphere_plane(&s, cl_v3(0, 0, 1), 5) == 0 && cl_sphere_plane(&s, cl_v3(0, 0, 1), 5.000000000000001) == 1 &&
           cl_sphere_plane(&s, cl_v3(0, 0, -3), -15.000000000000002) == -1, "sphere plane: touching is 0");
    ENSURE(cl_sphere_plane(&s, cl_v3(0, 0, 0), 1) == 1, "sphere plane: zero normal");
    t = sph(0, 0, 0, 0);
    ENSURE(cl_sphere_plane(&t, cl_v3(1, 0, 0), 0) == 0, "zero-radius sphere on the plane: 0");

    r = ray(-10, 0, 0, 1, 0, 0);
    ENSURE(cl_sphere_raycast(&s, &r, INFINITY, &h) && h.t == 5 && veq(h.n, -1, 0, 0), "sphere ray t and normal");
    ENSURE(!cl_sphere_raycast(&s, &r, 4.999, &h), "sphere ray maxt");
    r = ray(-10, 5, 0, 1, 0, 0);
    ENSURE(cl_sphere_raycast(&s, &r, INFINITY, &h) && h.t == 10 && veq(h.n, 0, 1, 0), "sphere ray grazing is a hit");
    r = ray(-10, 5.000000000000001, 0, 1, 0, 0);
    ENSURE(!cl_sphere_raycast(&s, &r, INFINITY, &h), "sphere ray just past the tangent misses");
    r = ray(1, 1, 1, 1, 0, 0);
    ENSURE(cl_sphere_raycast(&s, &r, INFINITY, &h) && h.t == 0 && veq(h.n, 0, 0, 0), "sphere ray from inside");
    r = ray(5, 0, 0, 1, 0, 0);
    ENSURE(cl_sphere_raycast(&s, &r, INFINITY, &h) && h.t == 0 && veq(h.n, 0, 0, 0), "sphere ray from the surface");
    r = ray(10, 0, 0, 1, 0, 0);
    ENSURE(!cl_sphere_raycast(&s, &r, INFINITY, &h), "sphere behind misses");
    t = sph(0, 0, 0, 0);
    r = ray(-3, 0, 0, 1, 0, 0);
    ENSURE(cl_sphere_raycast(&t, &r, INFINITY, &h) && h.t == 3 && veq(h.n, -1, 0, 0), "r = 0 sphere: n = -d");
    t = sph(1e300, 0, 0, 1e299);
    r = ray(-1e300, 0, 0, 1, 0, 0);
    ENSURE(cl_sphere_raycast(&t, &r, INFINITY, &h) && near(h.t, 1.9e300, 1e285) && vnear(h.n, -1, 0, 0, 1e-15),
           "huge sphere ray");
    ENSURE(cl_sphere_contains(&t, cl_v3(1.05e300, 0, 0)) && !cl_sphere_contains(&t, cl_v3(1.2e300, 0, 0)),
           "huge sphere contains");
    t = sph(0, 0, 0, 1e-300);
    r = ray(-1e-299, 0, 0, 1, 0, 0);
    ENSURE(cl_sphere_raycast(&t, &r, INFINITY, &h) && near(h.t, 9e-300, 1e-314) && vnear(h.n, -1, 0, 0, 1e-15),
           "tiny sphere ray");
    ENSURE(cl_sphere_contains(&t, cl_v3(5e-301, 0, 0)) && !cl_sphere_contains(&t, cl_v3(2e-300, 0, 0)) &&
           !cl_sphere_contains(&t, cl_v3(8e-301, 8e-301, 0)), "tiny sphere contains without underflow");
    t = sph(0, 0, 0, 0);
    ENSURE(cl_sphere_contains(&t, cl_v3(0, 0, 0)) && !cl_sphere_contains(&t, cl_v3(4.9e-324, 0, 0)),
           "zero sphere contains only its centre");
    t = sph(1.5e308, 0, 0, 1);
    ENSURE(!cl_sphere_contains(&t, cl_v3(-1.5e308, 0, 0)), "sphere contains with overflowing difference");

    t = sph(8, 0, 0, 3);
    ENSURE(cl_sphere_overlaps_sphere(&s, &t) && cl_sphere_overlaps_sphere(&t, &s), "spheres touching overlap");
    t.c.x = 8.000000000000002;
    ENSURE(!cl_sphere_overlaps_sphere(&s, &t), "spheres apart");
    t = sph(1.5, 0.5, 0.5, 0.5);
    bx = box(0, 0, 0, 1, 1, 1);
    ENSURE(cl_sphere_overlaps_aabb(&t, &bx), "sphere touching an AABB face overlaps (seed 002's + would miss it)");
    t = sph(2, 2, 0.5, sqrt(2.0) - 1e-9);
    ENSURE(!cl_sphere_overlaps_aabb(&t, &bx), "sphere near an AABB edge: separate");
    t.r = sqrt(2.0) + 1e-9;
    ENSURE(cl_sphere_overlaps_aabb(&t, &bx), "sphere over an AABB edge: overlap");
    o = obb_axes(cl_v3(0, 0, 0), cl_v3(1, 1, 1), rz45u, rz45v, cl_v3(0, 0, 1));
    t = sph(3, 0, 0, 3 - sqrt(2.0) - 1e-9);
    ENSURE(!cl_sphere_overlaps_obb(&t, &o), "sphere vs rotated OBB corner: separate");
    t.r = 3 - sqrt(2.0) + 1e-9;
    ENSURE(cl_sphere_overlaps_obb(&t, &o), "sphere vs rotated OBB corner: overlap");
    t = sph(0, 0, 3, 2);
    ENSURE(cl_sphere_overlaps_obb(&t, &o), "sphere touching an OBB face overlaps");
}

/* Open-interior overlap of two boxes at time t of cl_toi's motion (with the flat-axis rule). */
static int open_overlap(const cl_aabb *a, cl_vec3 da, const cl_aabb *b, cl_vec3 db, double t)
{
    double amin[3] = {a->min.x + t * da.x, a->min.y + t * da.y, a->min.z + t * da.z};
    double amax[3] = {a->max.x + t * da.x, a->max.y + t * da.y, a->max.z + t * da.z};
    double bmin[3] = {b->min.x + t * db.x, b->min.y + t * db.y, b->min.z + t * db.z};
    double bmax[3] = {b->max.x + t * db.x, b->max.y + t * db.y, b->max.z + t * db.z};
    int i;
    for (i = 0; i < 3; i++)
        if (!(amin[i] < bmax[i] && bmin[i] < amax[i])) return 0;
    return 1;
}

static void test_toi(void)
{
    cl_aabb a = box(0, 0, 0, 1, 1, 1), b;
    cl_vec3 z = cl_v3(0, 0, 0);
    double t = -1;
    int i, bad = 0;
    b = box(0.5, 0.5, 0.5, 2, 2, 2);
    ENSURE(cl_toi(&a, z, &b, z, &t) == CL_TOI_OVERLAPPED && t == 0, "toi: overlapping interiors -> overlapped, 0");
    b = box(2, 0, 0, 3, 1, 1);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-2, 0, 0), &t) == CL_TOI_TOUCHING && t == 0.5, "toi: head-on at 0.5");
    ENSURE(cl_toi(&a, cl_v3(1, 0, 0), &b, cl_v3(-1, 0, 0), &t) == CL_TOI_TOUCHING && t == 0.5,
           "toi: both moving, relative motion");
    ENSURE(cl_toi(&a, z, &b, cl_v3(-1, 0, 0), &t) == CL_TOI_SEPARATED && t == 1, "toi: contact exactly at t = 1 -> separated");
    ENSURE(cl_toi(&a, z, &b, cl_v3(-0.5, 0, 0), &t) == CL_TOI_SEPARATED && t == 1, "toi: falls short -> separated, 1");
    ENSURE(cl_toi(&a, z, &b, cl_v3(2, 0, 0), &t) == CL_TOI_SEPARATED && t == 1, "toi: moving apart");
    ENSURE(cl_toi(&a, z, &b, z, &t) == CL_TOI_SEPARATED && t == 1, "toi: no motion, apart (zero-displacement axes)");
    b = box(1, 0, 0, 2, 1, 1);  /* touching */
    ENSURE(cl_toi(&a, z, &b, z, &t) == CL_TOI_SEPARATED && t == 1, "toi: touching, still -> separated (seed: overlapped)");
    ENSURE(cl_toi(&a, z, &b, cl_v3(1, 0, 0), &t) == CL_TOI_SEPARATED && t == 1, "toi: touching and moving apart");
    ENSURE(cl_toi(&a, z, &b, cl_v3(0, 3, 0), &t) == CL_TOI_SEPARATED && t == 1, "toi: touching and sliding");
    ENSURE(cl_toi(&a, z, &b, cl_v3(-1, 0, 0), &t) == CL_TOI_TOUCHING && t == 0 && !signbit(t),
           "toi: touching and moving in -> touching at +0");
    ENSURE(cl_toi(&a, cl_v3(0.5, 0, 0), &b, z, &t) == CL_TOI_TOUCHING && t == 0, "toi: a moves into b from touching");
    b = box(2, 2, 0, 3, 3, 1);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-2, -2, 0), &t) == CL_TOI_TOUCHING && t == 0.5, "toi: diagonal approach");
    ENSURE(cl_toi(&a, z, &b, cl_v3(-2, 0, 0), &t) == CL_TOI_SEPARATED, "toi: y never overlaps");
    b = box(2, 1.5, 0, 3, 2.5, 1);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-4, -4, 0), &t) == CL_TOI_TOUCHING && t == 0.25, "toi: x and y windows (x at 0.25, y at 0.125)");
    b = box(2, 0.5, 0, 3, 1.5, 1);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-2, 4, 0), &t) == CL_TOI_SEPARATED, "toi: windows do not intersect");
    /* flat boxes (2D) */
    a = box(0, 0, 0, 1, 1, 0);
    b = box(2, 0, 0, 3, 1, 0);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-1.5, 0, 0), &t) == CL_TOI_TOUCHING && t == 1.0 / 1.5,
           "toi: flat boxes at the same z with d.z == 0 collide (2D rule)");
    b = box(0.5, 0.5, 0, 1.5, 1.5, 0);
    ENSURE(cl_toi(&a, z, &b, z, &t) == CL_TOI_OVERLAPPED, "toi: flat overlapping boxes at the same z: overlapped");
    b = box(2, 0, 1, 3, 1, 1);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-1.5, 0, 0), &t) == CL_TOI_SEPARATED, "toi: flat boxes at different z never meet");
    b = box(2, 0, 0, 3, 1, 0);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-1.5, 0, 0.5), &t) == CL_TOI_SEPARATED, "toi: flat boxes with d.z != 0 never meet");
    b = box(2, 0, -1, 3, 1, 1);
    ENSURE(cl_toi(&a, z, &b, cl_v3(-1.5, 0, 0), &t) == CL_TOI_TOUCHING && t == 1.0 / 1.5,
           "toi: a flat box inside a thick one's z range is met like a thin wall");
    b = box(0.25, 0.25, -1, 0.75, 0.75, 1);
    ENSURE(cl_toi(&a, z, &b, z, &t) == CL_TOI_OVERLAPPED && t == 0,
           "toi: a flat box crossing a thick one is overlapped");
    /* huge */
    a = box(-1.7e308, 0, 0, -1.6e308, 1, 1);
    b = box(1.6e308, 0, 0, 1.7e308, 1, 1);
    ENSURE(cl_toi(&a, cl_v3(1.7e308, 0, 0), &b, cl_v3(-1.7e308, 0, 0), &t) == CL_TOI_TOUCHING && near(t, 3.2 / 3.4, 1e-15),
           "toi: overflowing relative motion is halved, no NaN");
    /* random: against sampling */
    for (i = 0; i < 3000; i++) {
        cl_vec3 p = rvec(-3, 3), q = rvec(-3, 3), da = rvec(-4, 4), db = rvec(-4, 4);
        cl_aabb A, B;
        cl_toi_state st;
        int k, any = 0;
        A.min = p; A.max = vadd(p, rvec(0.1, 2));
        B.min = q; B.max = vadd(q, rvec(0.1, 2));
        if (i % 3 == 0) da.y = db.y;
        st = cl_toi(&A, da, &B, db, &t);
        for (k = 0; k <= 400; k++)
            if (open_overlap(&A, da, &B, db, k / 400.0 * (1 - 1e-9))) { any = 1; break; }
        if (st == CL_TOI_OVERLAPPED) bad += !(t == 0 && open_overlap(&A, da, &B, db, 0));
        else if (st == CL_TOI_TOUCHING)
            bad += !(t >= 0 && t < 1 && !open_overlap(&A, da, &B, db, t > 1e-9 ? t - 1e-9 : 0) &&
                     open_overlap(&A, da, &B, db, t + 1e-9));
        else bad += !(t == 1 && !any);
    }
    ENSURE(bad == 0, "toi agrees with sampled open-interior overlap on 3000 random pairs");
}

static void test_misc(void)
{
    double s;
    cl_vec3 p;
    p = cl_closest_on_segment(cl_v3(1, 5, 0), cl_v3(0, 0, 0), cl_v3(4, 0, 0), &s);
    ENSURE(veq(p, 1, 0, 0) && s == 0.25, "closest on segment interior (seed 002: (P2 - P1))");
    p = cl_closest_on_segment(cl_v3(-3, 1, 0), cl_v3(0, 0, 0), cl_v3(4, 0, 0), &s);
    ENSURE(veq(p, 0, 0, 0) && s == 0 && !signbit(s), "closest before a");
    p = cl_closest_on_segment(cl_v3(9, 1, 0), cl_v3(0, 0, 0), cl_v3(4, 0, 0), &s);
    ENSURE(veq(p, 4, 0, 0) && s == 1, "closest beyond b is b exactly");
    p = cl_closest_on_segment(cl_v3(9, 1, 0), cl_v3(1, 2, 3), cl_v3(1, 2, 3), &s);
    ENSURE(veq(p, 1, 2, 3) && s == 0, "zero-length segment gives a, 0");
    p = cl_closest_on_segment(cl_v3(0, 1, 0), cl_v3(-1.5e308, 0, 0), cl_v3(1.5e308, 0, 0), &s);
    ENSURE(s == 0.5 && veq(p, 0, 0, 0), "closest on an overflowing segment");
    p = cl_closest_on_segment(cl_v3(1e-300, 1, 0), cl_v3(0, 0, 0), cl_v3(4e-300, 0, 0), &s);
    ENSURE(s == 0.25 && veq(p, 1e-300, 0, 0), "closest on a tiny segment (no underflow to zero length)");

    p = cl_reflect(cl_v3(1, -2, 3), cl_v3(0, 1, 0), 1);
    ENSURE(veq(p, 1, 2, 3), "reflect e = 1");
    p = cl_reflect(cl_v3(1, -2, 3), cl_v3(0, 1, 0), 0);
    ENSURE(veq(p, 1, 0, 3), "reflect e = 0 removes the normal part");
    p = cl_reflect(cl_v3(1, -2, 3), cl_v3(0, 2, 0), 0.5);
    ENSURE(veq(p, 1, 10, 3), "reflect uses n as given (not normalised)");
    p = cl_reflect(cl_v3(1e308, -1e308, 5), cl_v3(0, 1, 0), 1);
    ENSURE(!vnan(p) && p.x == 1e308 && p.z == 5 && p.y == 1e308, "reflect huge: exact");
    p = cl_reflect(cl_v3(1.5e308, 1.5e308, 5), cl_v3(1, 1, 0), 1);
    ENSURE(!vnan(p) && p.z == 5 && p.x == -INFINITY, "reflect overflow: infinities, no NaN, zero-normal component kept");

    {
        double sq[8] = {0, 0, 4, 0, 4, 4, 0, 4};
        double con[12] = {0, 0, 4, 0, 4, 4, 2, 1, 0, 4, 0, 2};  /* concave: notch at (2,1) */
        double a = 1.0000000000000002;
        double tri[6] = {0, 0, 0, 0, 0, 0};
        double diag[6] = {0.1, 0.1, 0.3, 0.3, 0.3, 0.1};
        tri[2] = a; tri[3] = 1; tri[4] = a; tri[5] = 0;
        ENSURE(cl_point_in_polygon(sq, 4, 2, 2) && !cl_point_in_polygon(sq, 4, 5, 2) && !cl_point_in_polygon(sq, 4, -1, 2),
               "square inside/outside");
        ENSURE(cl_point_in_polygon(sq, 4, 4, 2) && cl_point_in_polygon(sq, 4, 0, 1) && cl_point_in_polygon(sq, 4, 2, 0) &&
               cl_point_in_polygon(sq, 4, 2, 4), "points on edges count as inside");
        ENSURE(cl_point_in_polygon(sq, 4, 0, 0) && cl_point_in_polygon(sq, 4, 4, 4) && cl_point_in_polygon(sq, 4, 4, 0),
               "vertices count as inside");
        ENSURE(!cl_point_in_polygon(sq, 4, 4.000000000000001, 2) && !cl_point_in_polygon(sq, 4, 2, -1e-300),
               "just outside an edge is outside");
        ENSURE(!cl_point_in_polygon(sq, 4, 5, 4) && !cl_point_in_polygon(sq, 4, 5, 0) && !cl_point_in_polygon(sq, 4, -1, 0),
               "on the line of a horizontal edge but beyond it: outside");
        ENSURE(cl_point_in_polygon(con, 6, 1, 0.5) && !cl_point_in_polygon(con, 6, 2, 1.5) &&
               cl_point_in_polygon(con, 6, 2, 1) && cl_point_in_polygon(con, 6, 3, 0.5) &&
               !cl_point_in_polygon(con, 6, 2, 3), "concave polygon, incl. the notch vertex");
        ENSURE(cl_point_in_polygon(con, 6, 3, 2.5) && cl_point_in_polygon(con, 6, 1, 2.5), "concave: arms");
        ENSURE(cl_point_in_polygon(diag, 3, 0.2, 0.2), "point exactly on a non-axis edge (x == y line) is inside");
        ENSURE(!cl_point_in_polygon(tri, 3, 1, 1 - 0x1p-53),
               "exact orientation: a point naive rounding puts on the edge is outside");
        ENSURE(cl_point_in_polygon(tri, 3, 1, 1 - 0x1p-52) == 1 && cl_point_in_polygon(tri, 3, 1, 0.5) == 1,
               "exact orientation: 2^-104 below the edge is inside");
        {
            double big[8] = {-1e300, -1e300, 1e300, -1e300, 1e300, 1e300, -1e300, 1e300};
            double tiny[8] = {0, 0, 3e-300, 0, 3e-300, 3e-300, 0, 3e-300};
            ENSURE(cl_point_in_polygon(big, 4, 0, 0) && cl_point_in_polygon(big, 4, 1e300, 5) &&
                   !cl_point_in_polygon(big, 4, 1.1e300, 0), "huge polygon");
            ENSURE(cl_point_in_polygon(tiny, 4, 1e-300, 1e-300) && cl_point_in_polygon(tiny, 4, 3e-300, 1e-300) &&
                   !cl_point_in_polygon(tiny, 4, 4e-300, 1e-300), "tiny polygon, on-edge exact");
        }
    }
}

static void test_dispatch(void)
{
    cl_shape s[3], t;
    cl_hit h;
    cl_ray r = ray(-5, 0.25, 0.25, 1, 0, 0);
    cl_aabb bb;
    int i, j;
    s[0].kind = CL_AABB; s[0].u.aabb = box(0, 0, 0, 1, 1, 1);
    s[1].kind = CL_OBB; s[1].u.obb = obb(2, 0.5, 0.5, 1, 0.5, 0.5);
    s[2].kind = CL_SPHERE; s[2].u.sphere = sph(0.5, 3, 0.5, 2);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            ENSURE(cl_shape_overlaps(&s[i], &s[j]) == cl_shape_overlaps(&s[j], &s[i]), "overlaps is symmetric");
        }
    ENSURE(cl_shape_overlaps(&s[0], &s[1]) && cl_shape_overlaps(&s[0], &s[2]) && !cl_shape_overlaps(&s[1], &s[2]),
           "dispatch overlaps values");
    ENSURE(cl_shape_contains(&s[0], cl_v3(1, 1, 1)) && cl_shape_contains(&s[1], cl_v3(3, 1, 1)) &&
           cl_shape_contains(&s[2], cl_v3(0.5, 5, 0.5)), "dispatch contains");
    ENSURE(cl_shape_raycast(&s[0], &r, INFINITY, &h) && h.t == 5 && cl_shape_raycast(&s[1], &r, INFINITY, &h) && h.t == 0 + 6 &&
           !cl_shape_raycast(&s[2], &r, INFINITY, &h), "dispatch raycast");
    bb = cl_shape_aabb(&s[1]);
    ENSURE(veq(bb.min, 1, 0, 0) && veq(bb.max, 3, 1, 1), "dispatch aabb (obb)");
    bb = cl_shape_aabb(&s[0]);
    ENSURE(veq(bb.min, 0, 0, 0) && veq(bb.max, 1, 1, 1), "dispatch aabb (aabb)");
    ENSURE(veq(cl_shape_closest(&s[2], cl_v3(0.5, 10, 0.5)), 0.5, 5, 0.5) &&
           veq(cl_shape_closest(&s[1], cl_v3(10, 0, 0)), 3, 0, 0), "dispatch closest");
    ENSURE(cl_shape_plane(&s[0], cl_v3(1, 0, 0), -1) == 0 && cl_shape_plane(&s[1], cl_v3(1, 0, 0), -0.5) == 1 &&
           cl_shape_plane(&s[2], cl_v3(0, 1, 0), -6) == -1, "dispatch plane");
    t = s[0];
    cl_shape_translate(&t, cl_v3(1, 2, 3));
    ENSURE(veq(t.u.aabb.min, 1, 2, 3) && veq(t.u.aabb.max, 2, 3, 4), "translate aabb");
    ENSURE(!cl_shape_equal(&t, &s[0]), "translated shape differs");
    cl_shape_translate(&t, cl_v3(-1, -2, -3));
    ENSURE(cl_shape_equal(&t, &s[0]), "translate back: equal");
    t = s[1]; cl_shape_translate(&t, cl_v3(1, 0, 0));
    ENSURE(veq(t.u.obb.c, 3, 0.5, 0.5) && !cl_shape_equal(&t, &s[1]), "translate obb");
    t = s[2]; cl_shape_translate(&t, cl_v3(0, 0, -1));
    ENSURE(veq(t.u.sphere.c, 0.5, 3, -0.5), "translate sphere");
    t = s[1]; t.u.obb.u[2] = cl_v3(0, 0, -1);
    ENSURE(!cl_shape_equal(&t, &s[1]) && !cl_shape_equal(&s[0], &s[1]) && cl_shape_equal(&s[2], &s[2]),
           "equal compares axes and kinds");
    {
        cl_shape e1, e2;
        memset(&e1, 0, sizeof e1); memset(&e2, 0, sizeof e2);
        e1.kind = CL_OBB; e1.u.obb = cl_obb_from_aabb(&s[0].u.aabb);
        e2.kind = CL_AABB; e2.u.aabb = s[0].u.aabb;
        ENSURE(!cl_shape_equal(&e1, &e2), "an OBB equal in space to an AABB is not equal (different kind)");
    }
}

/* ---- brute force for SAT: edges against the other box by slab clipping, plus vertices ---- */
static int bf_seg_obb(cl_vec3 p, cl_vec3 q, const cl_obb *b)
{
    double lo = 0, hi = 1, h[3] = {b->h.x, b->h.y, b->h.z};
    int i;
    for (i = 0; i < 3; i++) {
        double a = dot(vsub(p, b->c), b->u[i]), e = dot(vsub(q, b->c), b->u[i]) - a;
        if (e == 0) {
            if (fabs(a) > h[i]) return 0;
        } else {
            double t0 = (-h[i] - a) / e, t1 = (h[i] - a) / e;
            if (t0 > t1) { double s = t0; t0 = t1; t1 = s; }
            if (t0 > lo) lo = t0;
            if (t1 < hi) hi = t1;
            if (lo > hi) return 0;
        }
    }
    return 1;
}
static void corners(const cl_obb *b, cl_vec3 v[8])
{
    int i;
    for (i = 0; i < 8; i++) {
        cl_vec3 p = b->c;
        p = vadd(p, vmul(b->u[0], (i & 1) ? b->h.x : -b->h.x));
        p = vadd(p, vmul(b->u[1], (i & 2) ? b->h.y : -b->h.y));
        p = vadd(p, vmul(b->u[2], (i & 4) ? b->h.z : -b->h.z));
        v[i] = p;
    }
}
/* The side of plane n.x + d = 0 that box b's corners lie on, by brute force: 1 all in front, -1
 * all behind, 0 straddling; 2 when the nearest or farthest corner is within 1e-9 of the plane
 * (rounding decides: no verdict). */
static int corner_side(const cl_obb *b, cl_vec3 n, double d)
{
    cl_vec3 v[8];
    double lo = INFINITY, hi = -INFINITY;
    int k;
    corners(b, v);
    for (k = 0; k < 8; k++) {
        double f = dot(n, v[k]) + d;
        if (f < lo) lo = f;
        if (f > hi) hi = f;
    }
    if (fabs(lo) < 1e-9 || fabs(hi) < 1e-9) return 2;
    return lo > 0 ? 1 : (hi < 0 ? -1 : 0);
}
static int bf_edges(const cl_obb *a, const cl_obb *b)
{
    cl_vec3 v[8];
    int i, k;
    corners(a, v);
    for (i = 0; i < 8; i++) {
        if (bf_seg_obb(v[i], v[i], b)) return 1;  /* vertex containment */
        for (k = 1; k < 8; k <<= 1)
            if (!(i & k) && bf_seg_obb(v[i], v[i | k], b)) return 1;  /* the 12 edges */
    }
    return 0;
}
static int bf_overlap(const cl_obb *a, const cl_obb *b) { return bf_edges(a, b) || bf_edges(b, a); }

static void test_random(void)
{
    int i, n, bad, agree = 0, yes = 0, skipped = 0, badsym = 0, badsat = 0;
    /* SAT vs brute force */
    for (i = 0; i < 6000; i++) {
        cl_obb a = robb(2.5, 0.05, 2), b = robb(2.5, 0.05, 2), a1, a2;
        int r, r1, r2;
        if (i % 5 == 1) { b.u[0] = a.u[0]; b.u[1] = a.u[1]; b.u[2] = a.u[2]; }  /* exactly parallel */
        if (i % 5 == 2) { b.u[0] = a.u[0]; b.u[1] = a.u[1]; b.u[2] = a.u[2]; cl_obb_rotate(&b, 1e-8, runit()); }
        if (i % 5 == 3) { b.u[0] = a.u[1]; b.u[1] = a.u[2]; b.u[2] = a.u[0]; }  /* permuted: edges parallel */
        if (i % 7 == 0) a.h.z = 0;  /* flat */
        a1 = a; a2 = a;
        a1.h = vmul(a.h, 1 + 1e-6); a2.h = vmul(a.h, 1 - 1e-6);
        a1.h.x += 1e-6; a1.h.y += 1e-6; a1.h.z += 1e-6;
        r1 = bf_overlap(&a1, &b);
        r2 = bf_overlap(&a2, &b);
        if (r1 != r2 || (a.h.z == 0 && r1)) { skipped++; continue; }  /* near-touching: skip */
        r = cl_obb_overlaps_obb(&a, &b);
        yes += r;
        if (r == r1 && r == cl_obb_overlaps_obb(&b, &a)) agree++;
        else {
            badsat++;
            if (badsat < 5) printf("  SAT mismatch #%d: sat %d brute %d\n", i, r, r1);
        }
    }
    ENSURE(badsat == 0 && agree > 4000, "OBB SAT agrees with brute-force edge clipping on random pairs");
    ENSURE(yes > 500 && agree - yes > 500, "random SAT pairs include both overlaps and separations");
    printf("  SAT: %d agreed (%d overlapping), %d near-touching skipped\n", agree, yes, skipped);

    /* flat boxes (h.z == 0) vs brute force, separately (brute force counts the faces' edges) */
    bad = 0;
    for (i = 0, n = 0; i < 3000; i++) {
        cl_obb a = robb(2, 0.1, 2), b = robb(2, 0.1, 2), a1, a2;
        int r1, r2;
        a.h.z = 0;
        a1 = a; a2 = a;
        a1.h = vmul(a.h, 1 + 1e-6); a2.h = vmul(a.h, 1 - 1e-6);
        r1 = bf_overlap(&a1, &b); r2 = bf_overlap(&a2, &b);
        if (r1 != r2) continue;
        n++;
        bad += cl_obb_overlaps_obb(&a, &b) != r1;
    }
    ENSURE(bad == 0 && n > 2000, "flat OBB SAT agrees with brute force");

    /* shapes: overlaps symmetric and consistent across representations */
    for (i = 0; i < 5000; i++) {
        cl_shape a, b;
        cl_obb ob;
        cl_aabb ab;
        cl_sphere sp;
        ab.min = rvec(-3, 3); ab.max = vadd(ab.min, rvec(0, 2));
        sp = rsph(3, 0, 2, 1);
        ob = robb(3, 0, 2);
        a.kind = (cl_kind)(i % 3); b.kind = (cl_kind)((i / 3) % 3);
        if (a.kind == CL_AABB) a.u.aabb = ab; else if (a.kind == CL_OBB) a.u.obb = ob; else a.u.sphere = sp;
        ab.min = rvec(-3, 3); ab.max = vadd(ab.min, rvec(0, 2));
        sp = rsph(3, 0, 2, 1);
        ob = robb(3, 0, 2);
        if (b.kind == CL_AABB) b.u.aabb = ab; else if (b.kind == CL_OBB) b.u.obb = ob; else b.u.sphere = sp;
        badsym += cl_shape_overlaps(&a, &b) != cl_shape_overlaps(&b, &a);
        if (a.kind == CL_AABB && b.kind == CL_AABB) {
            cl_obb oa = cl_obb_from_aabb(&a.u.aabb);
            badsym += cl_shape_overlaps(&a, &b) != cl_obb_overlaps_aabb(&oa, &b.u.aabb);
        }
        if (a.kind == CL_SPHERE && b.kind == CL_AABB) {
            cl_obb ob2 = cl_obb_from_aabb(&b.u.aabb);
            cl_vec3 c = cl_aabb_closest(&b.u.aabb, a.u.sphere.c), d = vsub(c, a.u.sphere.c);
            double m = fabs(sqrt(dot(d, d)) - a.u.sphere.r);
            if (m > 1e-9) badsym += cl_sphere_overlaps_aabb(&a.u.sphere, &b.u.aabb) != cl_sphere_overlaps_obb(&a.u.sphere, &ob2);
        }
    }
    ENSURE(badsym == 0, "random overlaps are symmetric; AABB/OBB representations agree");

    /* raycasts: hit point on the surface, contains() agrees just before and after */
    bad = 0;
    for (i = 0; i < 6000; i++) {
        cl_shape s;
        cl_ray r;
        cl_hit h;
        cl_vec3 target;
        int k = i % 3, hit;
        double eps = 1e-7;
        s.kind = (cl_kind)k;
        if (k == 0) { s.u.aabb.min = rvec(-2, 1); s.u.aabb.max = vadd(s.u.aabb.min, rvec(0.1, 2)); }
        else if (k == 1) s.u.obb = robb(1, 0.1, 1.5);
        else s.u.sphere = rsph(1, 0.1, 1.5, 1);
        target = rvec(-2.5, 2.5);
        r.o = rvec(-6, 6);
        if (i % 10 == 0) r.o = target;  /* sometimes starts inside */
        cl_ray_make(&r, r.o, vsub(target, r.o).x == 0 && vsub(target, r.o).y == 0 ? cl_v3(1, 0, 0) : vsub(target, r.o));
        hit = cl_shape_raycast(&s, &r, INFINITY, &h);
        if (cl_shape_contains(&s, r.o)) {
            bad += !(hit && h.t == 0 && veq(h.n, 0, 0, 0));
            continue;
        }
        if (hit) {
            cl_vec3 p = cl_ray_at(&r, h.t), c = cl_shape_closest(&s, p), q;
            double ln = sqrt(dot(h.n, h.n));
            bad += !(h.t > 0) || dot(vsub(c, p), vsub(c, p)) > 1e-20;  /* on the surface */
            bad += cl_shape_contains(&s, cl_ray_at(&r, h.t - eps));   /* outside just before */
            bad += !near(ln, 1, 1e-12) || dot(h.n, r.d) > 0;          /* unit, facing the ray */
            q = vadd(p, vmul(h.n, eps));                                /* the normal points outwards */
            bad += cl_shape_contains(&s, q);
            {
                /* inside just after, unless the chord is shorter than 2 eps */
                int in = cl_shape_contains(&s, cl_ray_at(&r, h.t + eps)), long_chord = 1;
                if (k == 0) {
                    double t0, t1;
                    long_chord = cl_aabb_clip(&s.u.aabb, &r, &t0, &t1) && t1 - t0 > 4 * eps;
                } else {
                    cl_hit h2;
                    cl_ray back;
                    back.o = cl_ray_at(&r, h.t + 10); back.d = vmul(r.d, -1);
                    long_chord = !cl_shape_contains(&s, back.o) && cl_shape_raycast(&s, &back, INFINITY, &h2) &&
                                 10 - h2.t > 4 * eps;
                }
                bad += long_chord && !in;
            }
            if (bad && i < 100000) { /* print the first failure only */
                static int once;
                if (!once++) printf("  ray failure at case %d kind %d\n", i, k);
            }
        } else {
            int m;
            for (m = 0; m <= 400; m++) bad += cl_shape_contains(&s, cl_ray_at(&r, m * 0.05));
        }
    }
    ENSURE(bad == 0, "random raycasts: hit on the surface, outside before, inside after, outward unit normal; misses never pass inside");

    /* segment agrees with the ray on the same line */
    bad = 0;
    for (i = 0; i < 3000; i++) {
        cl_aabb b;
        cl_vec3 p1 = rvec(-4, 4), p2 = rvec(-4, 4), d;
        cl_hit hs, hr;
        cl_ray r;
        double len;
        int hs_ok, hr_ok;
        b.min = rvec(-2, 1); b.max = vadd(b.min, rvec(0.1, 2));
        d = vsub(p2, p1);
        len = sqrt(dot(d, d));
        cl_ray_make(&r, p1, d);
        hs_ok = cl_aabb_segment(&b, p1, p2, 1, &hs);
        hr_ok = cl_aabb_raycast(&b, &r, INFINITY, &hr);
        if (hr_ok && fabs(hr.t - len) < 1e-9) continue;  /* ends at the surface: rounding decides */
        bad += hs_ok != (hr_ok && hr.t <= len);
        if (hs_ok && hr_ok) bad += !near(hs.t * len, hr.t, 1e-9) || !veq(hs.n, hr.n.x, hr.n.y, hr.n.z);
    }
    ENSURE(bad == 0, "segment and raycast agree on the same line (fraction * length = t, same normal)");

    /* plane tests against brute force over vertices / closest */
    bad = 0;
    for (i = 0; i < 3000; i++) {
        cl_vec3 n = rvec(-1, 1);
        double d = urand(-3, 3);
        cl_obb o = robb(2, 0.1, 1.5);
        cl_aabb b;
        int e = corner_side(&o, n, d);
        if (e == 2) continue;
        bad += cl_obb_plane(&o, n, d) != e;
        b = cl_obb_aabb(&o);
        o = cl_obb_from_aabb(&b);
        e = corner_side(&o, n, d);
        if (e == 2) continue;
        bad += cl_aabb_plane(&b, n, d) != e;
        {
            cl_sphere s = sph(o.c.x, o.c.y, o.c.z, o.h.x);
            double f = (dot(n, s.c) + d) / sqrt(dot(n, n));
            if (fabs(fabs(f) - s.r) > 1e-9) bad += cl_sphere_plane(&s, n, d) != (f > s.r ? 1 : (f < -s.r ? -1 : 0));
        }
    }
    ENSURE(bad == 0, "plane sides agree with brute force over vertices / signed distance");

    /* OBB: closest(p) == p iff contains(p); aabb encloses the corners; rotate keeps contained points */
    bad = 0;
    for (i = 0; i < 3000; i++) {
        cl_obb o = robb(2, 0, 1.5);
        cl_vec3 p = rvec(-4, 4), c = cl_obb_closest(&o, p), v[8];
        cl_aabb b = cl_obb_aabb(&o);
        int k;
        bad += cl_obb_contains(&o, p) != (dot(vsub(c, p), vsub(c, p)) == 0 || cl_obb_contains(&o, p));
        bad += !cl_obb_contains(&o, cl_v3(c.x, c.y, c.z)) && !near(dot(vsub(c, o.c), vsub(c, o.c)), 0, 0) &&
               dot(vsub(c, p), vsub(c, p)) < 0;
        corners(&o, v);
        for (k = 0; k < 8; k++) {
            cl_aabb g = b;
            g.min = vsub(g.min, cl_v3(1e-12, 1e-12, 1e-12)); g.max = vadd(g.max, cl_v3(1e-12, 1e-12, 1e-12));
            bad += !cl_aabb_contains(&g, v[k]);
        }
        bad += !cl_axes_orthonormal(o.u, 1e-12);
        {
            double ang = urand(-10, 10);
            cl_obb_rotate(&o, ang, runit());
        }
        bad += !cl_axes_orthonormal(o.u, 1e-14);
    }
    ENSURE(bad == 0, "OBB closest/contains/aabb/rotate consistency");

    /* extreme magnitudes: nothing returns NaN */
    bad = 0;
#define XBAD(c) do { if (c) { if (!bad++) printf("  extreme failure case %d line %d: %s\n", i, __LINE__, #c); } } while (0)
    for (i = 0; i < 20000; i++) {
        static const double scales[5] = {1e150, 1e300, 1e-300, 1.7e308, 1e-310};
        double sc = scales[i % 5], t0, t1, s;
        cl_shape a, b;
        cl_ray r;
        cl_hit h;
        cl_vec3 p = vmul(rvec(-1, 1), sc), q;
        cl_aabb bb;
        cl_toi_state st;
        a.kind = (cl_kind)(i % 3); b.kind = (cl_kind)((i / 3) % 3);
        if (a.kind == CL_AABB) { a.u.aabb.min = vmul(rvec(-1, 0.5), sc); a.u.aabb.max = vadd(vmul(a.u.aabb.min, 0.5), vmul(rvec(0, 0.5), sc)); if (a.u.aabb.max.x < a.u.aabb.min.x || a.u.aabb.max.y < a.u.aabb.min.y || a.u.aabb.max.z < a.u.aabb.min.z) a.u.aabb.max = a.u.aabb.min; }
        else if (a.kind == CL_OBB) { a.u.obb = robb(1, 0, 1); a.u.obb.c = vmul(a.u.obb.c, sc); a.u.obb.h = vmul(a.u.obb.h, sc); }
        else a.u.sphere = rsph(1, 0, 1, sc);
        if (b.kind == CL_AABB) { b.u.aabb.min = vmul(rvec(-1, 0), sc); b.u.aabb.max = vmul(rvec(0, 1), sc); }
        else if (b.kind == CL_OBB) { b.u.obb = robb(1, 0, 1); b.u.obb.c = vmul(b.u.obb.c, sc); b.u.obb.h = vmul(b.u.obb.h, sc); }
        else b.u.sphere = rsph(1, 0, 1, sc);
        (void)cl_shape_overlaps(&a, &b);
        (void)cl_shape_contains(&a, p);
        cl_ray_make(&r, p, vmul(rvec(-1, 1), sc));
        if (cl_shape_raycast(&a, &r, INFINITY, &h)) XBAD(h.t != h.t || vnan(h.n) || h.t < 0);
        XBAD(vnan(cl_shape_closest(&a, p)));
        bb = cl_shape_aabb(&a);
        XBAD(vnan(bb.min) || vnan(bb.max) || !isfinite(bb.min.x) || !isfinite(bb.max.y) || !isfinite(bb.max.z));
        {
            cl_vec3 pn = vmul(rvec(-1, 1), sc);
            double pd = urand(-1, 1);
            (void)cl_shape_plane(&a, pn, pd * sc * sc);
            if (cl_ray_plane(&r, pn, pd * sc, &t0)) XBAD(t0 != t0 || t0 < 0);
        }
        if (b.kind == CL_AABB) {
            if (cl_aabb_clip(&b.u.aabb, &r, &t0, &t1)) XBAD(t0 != t0 || t1 != t1 || t0 > t1);
            if (cl_aabb_segment(&b.u.aabb, p, vmul(rvec(-1, 1), sc), 1, &h)) XBAD(h.t != h.t || vnan(h.n) || h.t < 0 || h.t > 1);
            if (a.kind == CL_AABB) {
                cl_vec3 m1 = vmul(rvec(-1, 1), sc), m2 = vmul(rvec(-1, 1), sc);
                st = cl_toi(&a.u.aabb, m1, &b.u.aabb, m2, &t0);
                XBAD(t0 != t0 || t0 < 0 || t0 > 1 || (st == CL_TOI_SEPARATED && t0 != 1));
            }
        }
        {
            cl_vec3 e1 = vmul(rvec(-1, 1), sc), e2 = vmul(rvec(-1, 1), sc);
            q = cl_closest_on_segment(p, e1, e2, &s);
        }
        XBAD(vnan(q) || s != s || s < 0 || s > 1);
        {
            cl_vec3 un = runit(), bn = vmul(rvec(-1, 1), sc);
            double e = urand(0, 1);
            XBAD(vnan(cl_reflect(p, un, e)));
            XBAD(vnan(cl_reflect(p, bn, e)));
        }
        if (a.kind == CL_OBB) {
            cl_obb o = a.u.obb;
            double ang = urand(-4, 4);
            cl_obb_rotate(&o, ang, vmul(runit(), sc));
            XBAD(vnan(o.u[0]) || vnan(o.u[1]) || vnan(o.u[2]));
        }
    }
#undef XBAD
    ENSURE(bad == 0, "huge (1e150, 1e300, 1.7e308) and tiny (1e-300, 1e-310) inputs never produce NaN");

    /* translation invariance at moderate magnitudes: ray hits on boxes shifted by powers of two */
    bad = 0;
    for (i = 0; i < 2000; i++) {
        cl_aabb b, b2;
        cl_ray r, r2;
        cl_hit h1, h2;
        double sh = 64;
        b.min = rvec(-2, 1); b.max = vadd(b.min, rvec(0.25, 2));
        r.o = cl_v3(0, 0, 0); r.d = cl_v3(0, 0, 0);
        cl_ray_make(&r, rvec(-6, 6), runit());
        b2 = b; b2.min.x += sh; b2.max.x += sh;
        r2 = r; r2.o.x += sh;
        if (cl_aabb_raycast(&b, &r, INFINITY, &h1) != cl_aabb_raycast(&b2, &r2, INFINITY, &h2)) {
            double t0, t1;  /* allowed only when grazing (entry == exit within rounding) */
            if (!(cl_aabb_clip(&b, &r, &t0, &t1) && t1 - t0 < 1e-9)) bad++;
        }
    }
    ENSURE(bad == 0, "raycast hit/miss is stable under a power-of-two shift");
}

/* Regressions found by the fuzzers (csrc/fuzz). */
static void test_fuzz_findings(void)
{
    int i, asym = 0;
    cl_sphere s = sph(0, 2e6, 0, 6e-33);
    cl_ray r;
    cl_hit h;
    /* OBB-OBB must not depend on operand order, even at rounding-level contact: push random
     * rotated boxes to within a few ulps of touching along a random direction */
    for (i = 0; i < 20000; i++) {
        cl_obb a = robb(1, 0.1, 2), b = robb(1, 0.1, 2);
        cl_vec3 d = rvec(-1, 1);
        double lo = 0, hi = 8;
        int k;
        for (k = 0; k < 60; k++) {  /* bisect the offset to the contact */
            double mid = 0.5 * (lo + hi);
            cl_obb c = b;
            c.c = cl_v3(b.c.x + d.x * mid, b.c.y + d.y * mid, b.c.z + d.z * mid);
            if (cl_obb_overlaps_obb(&a, &c)) lo = mid; else hi = mid;
        }
        b.c = cl_v3(b.c.x + d.x * hi, b.c.y + d.y * hi, b.c.z + d.z * hi);
        if (cl_obb_overlaps_obb(&a, &b) != cl_obb_overlaps_obb(&b, &a)) asym++;
        b.c = cl_v3(b.c.x - d.x * (hi - lo), b.c.y - d.y * (hi - lo), b.c.z - d.z * (hi - lo));
        if (cl_obb_overlaps_obb(&a, &b) != cl_obb_overlaps_obb(&b, &a)) asym++;
    }
    ENSURE(asym == 0, "fuzz finding: OBB-OBB overlap is symmetric at rounding-level contact");
    {   /* a small plane normal must not push the scaled box past DBL_MAX (plane side lost) */
        cl_obb o = obb(0.0001220703125, 0.000244140625, -0.000244140625, 6.103515625e-05, 6.103515625e-05, 0.000244140625);
        ENSURE(cl_obb_plane(&o, cl_v3(0, -0.000213623046875, 0), 0) == -1,
               "fuzz finding: OBB wholly behind a plane with a small normal is -1");
    }
    /* a tiny sphere far from the origin still reports a unit normal */
    cl_ray_make(&r, cl_v3(0, 2e6, -1), cl_v3(0, 0, 1));
    ENSURE(cl_sphere_raycast(&s, &r, INFINITY, &h) && fabs(h.n.x * h.n.x + h.n.y * h.n.y + h.n.z * h.n.z - 1) <= 1e-12 && h.n.z < -0.99,
           "fuzz finding: tiny sphere far away has a unit normal facing the ray");
}

static int negz(double x) { return x == 0 && 1 / x < 0; }

/* Regressions for the review findings (each failed before its fix). */
static void test_review_findings(void)
{
    double h = sqrt(0.5), t = -1, s = -1;
    int i, bad = 0;
    cl_aabb a = box(-3.7783814518286207, 0, 0, -3.7780245261918788, 1, 1), e;
    cl_obb o = obb(4.3925254184119984, 0.5, 0.5, 8.1705499446038772, 0.5, 0.5), p;
    cl_sphere sp = sph(1.8981834573324763, 0, 0, 0.66010334001966164);
    cl_ray r;
    cl_hit hit;
    cl_vec3 v;
    double tri[6] = { 0, 0, 1, 0, 0.25, 1 }, big[6] = { -1e308, -1e308, 1e308, -1e308, 1e308, 1e308 };
    /* 2: exact touching AABB / world-axis OBB, also with permuted and negated axes */
    ENSURE(cl_obb_overlaps_aabb(&o, &a), "review: AABB touching a world-axis OBB (cx - h == maxx) overlaps");
    p = obb_axes(o.c, cl_v3(0.5, 8.1705499446038772, 0.5), cl_v3(0, 0, -1), cl_v3(-1, 0, 0), cl_v3(0, 1, 0));
    ENSURE(cl_obb_overlaps_aabb(&p, &a), "review: touching holds for permuted, negated world axes");
    e = cl_obb_aabb(&p);
    ENSURE(e.min.x == 4.3925254184119984 - 8.1705499446038772 && e.max.x == 4.3925254184119984 + 8.1705499446038772 &&
           e.min.z == 0 && e.max.z == 1, "review: cl_obb_aabb of a world-axis OBB is c -+ h rounded once");
    o.c.x = 4.3925254184119984 + 8.881784197001252e-16;
    ENSURE(!cl_obb_overlaps_aabb(&o, &a), "review: one ulp of gap separates the AABB and OBB");
    /* a thin world-axis OBB against random AABBs: exactly the AABB-AABB answer */
    for (i = 0; i < 20000; i++) {
        cl_obb q = obb(urand(-4, 4), urand(-4, 4), urand(-4, 4), urand(0, 3), urand(0, 3), urand(0, 3));
        cl_aabb qa = cl_obb_aabb(&q), b = box(urand(-4, 0), urand(-4, 0), urand(-4, 0), 0, 0, 0);
        b.max = cl_v3(qa.min.x, urand(0, 4), urand(0, 4));  /* touching on x */
        if (cl_obb_overlaps_aabb(&q, &b) != cl_aabb_overlaps_aabb(&qa, &b)) bad++;
    }
    ENSURE(bad == 0, "review: world-axis OBB vs AABB equals AABB vs AABB at exact contact");
    /* 3: exact touching sphere / world-axis OBB */
    p = obb(0.35664207811575344, 0, 0, 0.88143803919706121, 1, 1);
    ENSURE(cl_sphere_overlaps_obb(&sp, &p), "review: sphere touching a world-axis OBB overlaps");
    /* 4: closest point of a contained point of a huge rotated box is the point */
    p = obb_axes(cl_v3(1.5e308, 0, 0), cl_v3(1e308, 1e308, 1), cl_v3(h, h, 0), cl_v3(-h, h, 0), cl_v3(0, 0, 1));
    v = cl_obb_closest(&p, cl_v3(1.5e308, 7.0710678118655e307, 0));
    ENSURE(cl_obb_contains(&p, cl_v3(1.5e308, 7.0710678118655e307, 0)) && veq(v, 1.5e308, 7.0710678118655e307, 0),
           "review: OBB closest of a contained point in a huge box is the point");
    /* 5: plane signs at tiny coordinates */
    a = box(1e-323, 0, 0, 1e-323, 0, 0);
    ENSURE(cl_aabb_plane(&a, cl_v3(1, 0, 0), 0) == 1, "review: AABB at 1e-323 is in front of x = 0");
    a = box(0, 0, 0, 0, 0, 0);
    ENSURE(cl_aabb_plane(&a, cl_v3(1, 0, 0), -1e-323) == -1, "review: AABB at 0 is behind x = 1e-323");
    sp = sph(1e-323, 0, 0, 0);
    ENSURE(cl_sphere_plane(&sp, cl_v3(1, 0, 0), 0) == 1, "review: sphere at 1e-323 is in front of x = 0");
    p = obb(1e-323, 0, 0, 0, 0, 0);
    ENSURE(cl_obb_plane(&p, cl_v3(1, 0, 0), 0) == 1, "review: OBB at 1e-323 is in front of x = 0");
    r = ray(1e-323, 0, 0, 1, 0, 0);
    ENSURE(!cl_ray_plane(&r, cl_v3(1, 0, 0), 0, &t), "review: ray in front moving away misses x = 0");
    r = ray(0, 0, 0, -1, 0, 0);
    ENSURE(!cl_ray_plane(&r, cl_v3(1, 0, 0), -1e-323, &t), "review: ray in front of x = -... moving away misses");
    r = ray(-1e-323, 0, 0, 1, 0, 0);
    ENSURE(cl_ray_plane(&r, cl_v3(1, 0, 0), 0, &t) && t == 1e-323, "review: ray 1e-323 behind x = 0 hits at 1e-323");
    r = ray(0, 0, 0, 1, 0, 0);
    ENSURE(cl_ray_plane(&r, cl_v3(0x1p-1000, 0, 0), -0x1p-997, &t) && t == 8, "review: tiny plane coefficients, t = 8");
    /* 6: exact orientation at subnormal and huge coordinates */
    ENSURE(!cl_point_in_polygon(tri, 3, 0, 5e-324), "review: point 5e-324 left of a steep edge is outside");
    ENSURE(cl_point_in_polygon(tri, 3, 5e-324, 5e-324), "review: point just inside the steep edge is inside");
    ENSURE(cl_point_in_polygon(big, 3, 0, 0) && !cl_point_in_polygon(big, 3, -1e-300, 0),
           "review: on-edge test exact when coordinate differences overflow");
    /* 7: closest point on a tiny segment to a far point */
    v = cl_closest_on_segment(cl_v3(5e-301, 1e10, 0), cl_v3(0, 0, 0), cl_v3(1e-300, 0, 0), &s);
    ENSURE(veq(v, 5e-301, 0, 0) && s == 0.5, "review: closest on a tiny segment is exact, no NaN");
    /* 8: reflect overflows to inf, never NaN */
    v = cl_reflect(cl_v3(-1, -1e-300, -1), cl_v3(-1e308, 1e-300, -1e308), -1.7976931348623157e308);
    ENSURE(!vnan(v) && v.x == -INFINITY && v.y == INFINITY && v.z == -INFINITY, "review: reflect gives inf, never NaN");
    /* 9: no -0 in normals and axes */
    p = obb(0, 0, 0, 1, 1, 1);
    r = ray(-5, 0, 0, 1, 0, 0);
    ENSURE(cl_obb_raycast(&p, &r, INFINITY, &hit) && hit.n.x == -1 && !negz(hit.n.y) && !negz(hit.n.z),
           "review: OBB raycast normal has no -0");
    sp = sph(0, 0, 0, 0);
    ENSURE(cl_sphere_raycast(&sp, &r, INFINITY, &hit) && hit.n.x == -1 && !negz(hit.n.y) && !negz(hit.n.z),
           "review: zero-radius sphere raycast normal has no -0");
    p = obb_axes(cl_v3(0, 0, 0), cl_v3(1, 1, 1), cl_v3(1, 0, 0), cl_v3(0, 1, 0), cl_v3(0, 0, -1));
    cl_obb_rotate(&p, PI / 2, cl_v3(0, 0, 1));
    ENSURE(!negz(p.u[2].x) && !negz(p.u[2].y) && p.u[2].z == -1 && !negz(p.u[0].z) && !negz(p.u[1].z),
           "review: rotating a left-handed OBB stores no -0 axis component");
}

/* The fast paths added for speed (H2): cl_aabb_plane's unscaled path for moderate inputs, cl_toi's
 * early exits and branch-free axis intervals, and the canonical operand order of cl_obb_overlaps_obb.
 * Each must give exactly the answers of the general code. */
static cl_toi_state toi_reference(const cl_aabb *a, cl_vec3 da, const cl_aabb *b, cl_vec3 db, double *t)
{
    /* the straightforward form (all three axes, then the decision), finite moderate inputs only */
    double lo = -INFINITY, hi = INFINITY, amin[3], amax[3], bmin[3], bmax[3], dd[3];
    int i;
    amin[0] = a->min.x; amin[1] = a->min.y; amin[2] = a->min.z;
    amax[0] = a->max.x; amax[1] = a->max.y; amax[2] = a->max.z;
    bmin[0] = b->min.x; bmin[1] = b->min.y; bmin[2] = b->min.z;
    bmax[0] = b->max.x; bmax[1] = b->max.y; bmax[2] = b->max.z;
    dd[0] = db.x - da.x; dd[1] = db.y - da.y; dd[2] = db.z - da.z;
    for (i = 0; i < 3; i++) {
        double enter, leave;
        if (dd[i] == 0) {
            if (amin[i] == amax[i] && bmin[i] == bmax[i] && amin[i] == bmin[i]) continue;
            if (amin[i] < bmax[i] && bmin[i] < amax[i]) continue;
            *t = 1;
            return CL_TOI_SEPARATED;
        }
        enter = (dd[i] > 0 ? amin[i] - bmax[i] : amax[i] - bmin[i]) / dd[i];
        leave = (dd[i] > 0 ? amax[i] - bmin[i] : amin[i] - bmax[i]) / dd[i];
        if (enter > lo) lo = enter;
        if (leave < hi) hi = leave;
    }
    if (lo < 0 && hi > 0) { *t = 0; return CL_TOI_OVERLAPPED; }
    if (lo < hi && lo < 1 && hi > 0) { *t = lo + 0.0; return CL_TOI_TOUCHING; }
    *t = 1;
    return CL_TOI_SEPARATED;
}

static void test_fast_paths(void)
{
    int i, plane_bad = 0, toi_bad = 0, obb_bad = 0;
    cl_aabb a = box(0x1p-1074, 0, 0, 1, 1, 1);
    /* inputs outside the moderate range take the scaled path: a subnormal coordinate times a
     * tiny normal underflows in plain arithmetic but not in the scaled one */
    ENSURE(cl_aabb_plane(&a, cl_v3(0x1p-300, 0, 0), 0) == 1, "plane: subnormal coordinate, tiny normal: in front");
    ENSURE(cl_aabb_plane(&a, cl_v3(-0x1p-300, 0, 0), 0) == -1, "plane: the same, behind");
    a = box(-1, -1, -1, 1, 1, 1);
    ENSURE(cl_aabb_plane(&a, cl_v3(0x1p300, 0, 0), -0x1p300) == 0 && cl_aabb_plane(&a, cl_v3(0x1p301, 0, 0), -0x1p301) == 0,
           "plane: touching at the edge of the moderate range and just beyond it");
    ENSURE(cl_aabb_plane(&a, cl_v3(0x1p300, 0, 0), -0x1.0000000000001p300) == -1 &&
           cl_aabb_plane(&a, cl_v3(0x1p301, 0, 0), -0x1.0000000000001p301) == -1, "plane: just behind, both sides of the range");
    ENSURE(cl_aabb_plane(&a, cl_v3(-0.0, 0.0, -0.0), 0.0) == 0 && cl_aabb_plane(&a, cl_v3(0, 0, 0), -0x1p-300) == -1,
           "plane: zero normals on the fast path give the sign of d");
    for (i = 0; i < 20000; i++) {
        /* scaling every input by 2^600 moves it out of the moderate range (scaled path) and
         * changes no sign of the exact-scaled expressions: both paths must agree */
        double k = 0x1p600, d;
        cl_vec3 n = cl_v3(urand(-1, 1), urand(-1, 1), urand(-1, 1)), lo, hi;
        cl_aabb bb, bs;
        if (i % 4 == 0) n.y = 0;
        if (i % 3 == 0) n = cl_v3(floor(n.x * 4), floor(n.y * 4), floor(n.z * 4));
        lo = cl_v3(floor(urand(-8, 8)), urand(-8, 8), floor(urand(-8, 8)) * 0.5);
        hi = cl_v3(lo.x + floor(urand(0, 4)), lo.y + urand(0, 4), lo.z + floor(urand(0, 4)) * 0.5);
        bb.min = lo; bb.max = hi;
        /* d through a corner now and then (touching, exact with these grid values) */
        d = i % 2 ? -(n.x * (i % 3 ? lo.x : hi.x) + n.y * lo.y + n.z * (i % 5 ? hi.z : lo.z)) : urand(-10, 10);
        bs.min = cl_v3(lo.x * k, lo.y * k, lo.z * k);
        bs.max = cl_v3(hi.x * k, hi.y * k, hi.z * k);
        if (cl_aabb_plane(&bb, n, d) != cl_aabb_plane(&bs, n, d * k)) plane_bad++;
    }
    ENSURE(plane_bad == 0, "plane: the unscaled fast path agrees with the scaled path on 20000 cases");
    for (i = 0; i < 20000; i++) {
        /* grid values make touching and flat cases common */
        cl_aabb p, q;
        cl_vec3 da, db;
        double t1 = -1, t2 = -2, v[12];
        int j;
        cl_toi_state s1, s2;
        for (j = 0; j < 12; j++) v[j] = i % 2 ? floor(urand(-6, 6)) * 0.5 : urand(-6, 6);
        p = box(fmin(v[0], v[1]), fmin(v[2], v[3]), fmin(v[4], v[5]), fmax(v[0], v[1]), fmax(v[2], v[3]), fmax(v[4], v[5]));
        q = box(fmin(v[6], v[7]), fmin(v[8], v[9]), fmin(v[10], v[11]), fmax(v[6], v[7]), fmax(v[8], v[9]), fmax(v[10], v[11]));
        da = cl_v3(floor(urand(-8, 8)), i % 3 ? floor(urand(-8, 8)) : 0, urand(-8, 8));
        db = cl_v3(floor(urand(-8, 8)), i % 3 ? floor(urand(-8, 8)) : 0, i % 4 ? urand(-8, 8) : da.z);
        s1 = cl_toi(&p, da, &q, db, &t1);
        s2 = toi_reference(&p, da, &q, db, &t2);
        if (s1 != s2 || memcmp(&t1, &t2, sizeof t1) != 0) toi_bad++;
    }
    ENSURE(toi_bad == 0, "toi: early exits and branch-free intervals agree with the plain form on 20000 cases");
    for (i = 0; i < 2000; i++) {
        /* boxes equal but for one byte anywhere: the order must still be a strict one (little- or
         * big-endian mantissa byte alike) */
        cl_obb o1 = cl_obb_from_aabb(&a), o2;
        unsigned char *b2;
        size_t at = (size_t)(rnd() * (sizeof o1 / 8)) * 8 + (size_t)(i % 6);  /* a mantissa byte: stays finite */
        o2 = o1;
        b2 = (unsigned char *)&o2;
        b2[at] ^= (unsigned char)(1u << (i % 8));
        /* whichever way round, the answer is symmetric (the order is canonical) */
        if (cl_obb_overlaps_obb(&o1, &o2) != cl_obb_overlaps_obb(&o2, &o1)) obb_bad++;
    }
    ENSURE(obb_bad == 0, "obb: the canonical operand order makes the answer symmetric");
}

int main(void)
{
    test_ray();
    test_aabb_static();
    test_aabb_ray();
    test_aabb_segment();
    test_obb();
    test_sat();
    test_sphere();
    test_toi();
    test_misc();
    test_dispatch();
    test_random();
    test_fuzz_findings();
    test_review_findings();
    test_fast_paths();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
