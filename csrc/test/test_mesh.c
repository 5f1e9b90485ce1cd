/* Plain-C test of the triangle tests (tri.c) and meshes (mesh.c), part of `make check-core`:
 * exact cases, the triangle tests against independent references (Moller-Trumbore in long double,
 * polygon clipping, projected closest points, ternary search), watertightness on grids, and every
 * mesh query against brute force over all triangles on random meshes up to 200,000 triangles.
 * COLLIDE_QUICK (set under valgrind) runs about a quarter of the random cases.
 * Last line: "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <float.h>
#include <string.h>
#include "cl.h"
#include "mesh.h"
#include "world.h"
#define CHECK_SEED 0x2545F4914F6CDD1DULL
#include "check.h"

static int irand(int n) { return (int)(rnd() * n); }
static cl_vec3 rvec(double a, double b)
{
    double x = urand(a, b), y = urand(a, b), z = urand(a, b);
    return cl_v3(x, y, z);
}
static double dist2(cl_vec3 a, cl_vec3 b) { cl_vec3 d = vsub(a, b); return dot(d, d); }
static cl_vec3 runit(void)
{
    for (;;) {
        cl_vec3 v = rvec(-1, 1);
        double l = sqrt(dot(v, v));
        if (l > 0.1 && l <= 1) return vmul(v, 1 / l);
    }
}
static cl_ray mkray(cl_vec3 o, cl_vec3 d)
{
    cl_ray r;
    r.o = o; r.d = d;
    cl_ray_make(&r, o, d);
    return r;
}
static cl_aabb mkbox(cl_vec3 lo, cl_vec3 hi) { cl_aabb b; b.min = lo; b.max = hi; return b; }

/* ---- allocator: malloc with a byte count and an optional failure after n calls ---- */
static long live_bytes;
static int fail_after = -1;
static void *talloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    if (nsize == 0) {
        if (ptr) live_bytes -= (long)osize;
        free(ptr);
        return NULL;
    }
    if (fail_after == 0) return NULL;
    if (fail_after > 0) fail_after--;
    {
        void *p = realloc(ptr, nsize);
        if (p == NULL) return NULL;
        live_bytes += (long)nsize - (ptr ? (long)osize : 0);
        return p;
    }
}

/* ================= references, independent of tri.c ================= */

/* Moller-Trumbore in long double: 1 hit, 0 miss, -1 too close to call (an edge within rel of the
 * hit point in barycentric terms, or the ray nearly parallel). */
static int ref_ray(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_ray r, double *t, double rel)
{
    long double e1[3] = { (long double)b.x - a.x, (long double)b.y - a.y, (long double)b.z - a.z };
    long double e2[3] = { (long double)c.x - a.x, (long double)c.y - a.y, (long double)c.z - a.z };
    long double d[3] = { r.d.x, r.d.y, r.d.z };
    long double p[3], q[3], s[3], det, u, v, tt, l1, l2;
    p[0] = d[1] * e2[2] - d[2] * e2[1]; p[1] = d[2] * e2[0] - d[0] * e2[2]; p[2] = d[0] * e2[1] - d[1] * e2[0];
    det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    l1 = sqrtl(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    l2 = sqrtl(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
    if (fabsl(det) <= 1e-7L * l1 * l2) return -1;
    s[0] = (long double)r.o.x - a.x; s[1] = (long double)r.o.y - a.y; s[2] = (long double)r.o.z - a.z;
    u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
    q[0] = s[1] * e1[2] - s[2] * e1[1]; q[1] = s[2] * e1[0] - s[0] * e1[2]; q[2] = s[0] * e1[1] - s[1] * e1[0];
    v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
    tt = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
    *t = (double)tt;
    if (fabsl(u) < rel || fabsl(v) < rel || fabsl(1 - u - v) < rel || fabsl(tt) < rel) return -1;
    return u > 0 && v > 0 && u + v < 1 && tt > 0;
}

/* Component ax of v. */
static double cl_comp3(cl_vec3 v, int ax) { return ax == 0 ? v.x : (ax == 1 ? v.y : v.z); }

/* Sutherland-Hodgman: clips the polygon p[0..n-1] to the half-space s * x_ax <= s * k (inclusive);
 * returns the new count. */
static int clip(cl_vec3 *p, int n, int ax, double s, double k)
{
    cl_vec3 out[16];
    int i, m = 0;
    for (i = 0; i < n; i++) {
        cl_vec3 a = p[i], b = p[(i + 1) % n];
        double da = s * ((ax == 0 ? a.x : ax == 1 ? a.y : a.z) - k);
        double db = s * ((ax == 0 ? b.x : ax == 1 ? b.y : b.z) - k);
        if (da <= 0) out[m++] = a;
        if ((da < 0 && db > 0) || (da > 0 && db < 0)) out[m++] = vadd(a, vmul(vsub(b, a), da / (da - db)));
    }
    memcpy(p, out, (size_t)m * sizeof *p);
    return m;
}
/* Triangle/box overlap by clipping the triangle to the box's six half-spaces. */
static int ref_tribox(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_aabb bx)
{
    cl_vec3 p[16];
    int n = 3, ax;
    p[0] = a; p[1] = b; p[2] = c;
    for (ax = 0; ax < 3 && n > 0; ax++) {
        n = clip(p, n, ax, 1, cl_comp3(bx.max, ax));
        if (n > 0) n = clip(p, n, ax, -1, cl_comp3(bx.min, ax));
    }
    return n > 0;
}
/* ref_tribox of the box grown (g > 0) or shrunk (g < 0) by g on every side. */
static int ref_tribox_g(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_aabb bx, double g)
{
    bx.min = vsub(bx.min, cl_v3(g, g, g));
    bx.max = vadd(bx.max, cl_v3(g, g, g));
    return ref_tribox(a, b, c, bx);
}
/* Closest point of segment ab to p (plain projection and clamp). */
static cl_vec3 ref_seg(cl_vec3 p, cl_vec3 a, cl_vec3 b)
{
    cl_vec3 ab = vsub(b, a);
    double l = dot(ab, ab), s = l > 0 ? dot(vsub(p, a), ab) / l : 0;
    s = s < 0 ? 0 : (s > 1 ? 1 : s);
    return vadd(a, vmul(ab, s));
}
/* Closest point of the triangle to p: the projection on the plane if it lies inside (signs of
 * the three sub-areas), else the nearest of the three edges' closest points. */
static cl_vec3 ref_closest(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p)
{
    cl_vec3 n = vcross(vsub(b, a), vsub(c, a)), q, best;
    double nn = dot(n, n), d;
    if (nn > 0) {
        q = vsub(p, vmul(n, dot(vsub(p, a), n) / nn));
        if (dot(vcross(vsub(b, a), vsub(q, a)), n) >= 0 && dot(vcross(vsub(c, b), vsub(q, b)), n) >= 0 &&
            dot(vcross(vsub(a, c), vsub(q, c)), n) >= 0)
            return q;
    }
    best = ref_seg(p, a, b);
    d = dist2(best, p);
    q = ref_seg(p, b, c);
    if (dist2(q, p) < d) { d = dist2(q, p); best = q; }
    q = ref_seg(p, c, a);
    if (dist2(q, p) < d) best = q;
    return best;
}
/* Distance from the segment pq to the triangle: ternary search of the convex function
 * s -> |ref_closest(p + s(q - p)) - (p + s(q - p))|. */
static double ref_segdist(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q)
{
    double lo = 0, hi = 1;
    int k;
    for (k = 0; k < 200; k++) {
        double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        cl_vec3 x1 = vadd(p, vmul(vsub(q, p), m1)), x2 = vadd(p, vmul(vsub(q, p), m2));
        if (dist2(ref_closest(a, b, c, x1), x1) <= dist2(ref_closest(a, b, c, x2), x2)) hi = m2; else lo = m1;
    }
    {
        cl_vec3 x = vadd(p, vmul(vsub(q, p), lo));
        return sqrt(dist2(ref_closest(a, b, c, x), x));
    }
}

/* ================= exact cases ================= */

static void test_exact(void)
{
    cl_vec3 a = cl_v3(0, 0, 0), b = cl_v3(4, 0, 0), c = cl_v3(0, 4, 0);
    cl_hit h;
    cl_ray r;
    cl_aabb bx;
    cl_sphere s;
    cl_obb o;
    cl_vec3 p1, p2;
    double d;

    r = mkray(cl_v3(1, 1, 5), cl_v3(0, 0, -1));
    ENSURE(cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h) && h.t == 5 && h.n.x == 0 && h.n.y == 0 && h.n.z == 1,
           "ray down onto the face hits at t = 5 with the normal facing up (towards the ray)");
    r = mkray(cl_v3(1, 1, -5), cl_v3(0, 0, 1));
    ENSURE(cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h) && h.t == 5 && h.n.z == -1, "both sides are solid; normal faces the ray");
    ENSURE(!cl_tri_raycast(a, b, c, &r, 4.5, &h), "maxt below the hit: miss");
    ENSURE(cl_tri_raycast(a, b, c, &r, 5, &h), "maxt exactly the hit: hit");
    r = mkray(cl_v3(2, 0, 3), cl_v3(0, 0, -1));
    ENSURE(cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h) && h.t == 3, "ray onto an edge hits");
    r = mkray(cl_v3(4, 0, 3), cl_v3(0, 0, -1));
    ENSURE(cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h) && h.t == 3, "ray onto a vertex hits");
    r = mkray(cl_v3(2, 2, 3), cl_v3(0, 0, -1));
    ENSURE(cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h), "ray onto the hypotenuse hits");
    r = mkray(cl_v3(2.0000001, 2, 3), cl_v3(0, 0, -1));
    ENSURE(!cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h), "ray just outside the hypotenuse misses");
    r = mkray(cl_v3(-1, 1, 0), cl_v3(1, 0, 0));
    ENSURE(!cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h), "ray in the triangle's plane misses");
    r = mkray(cl_v3(1, 1, 0), cl_v3(0, 0, 1));
    ENSURE(cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h) && h.t == 0, "origin on the face: t = 0");
    r = mkray(cl_v3(1, 1, 1), cl_v3(0, 0, 1));
    ENSURE(!cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h), "triangle behind the ray: miss");
    r = mkray(cl_v3(1, 0, 5), cl_v3(0, 0, -1));
    ENSURE(!cl_tri_raycast(a, cl_v3(2, 0, 0), cl_v3(3, 0, 0), &r, HUGE_VAL, &h), "collinear triangle never hits");
    ENSURE(!cl_tri_raycast(a, a, c, &r, HUGE_VAL, &h), "triangle with a repeated vertex never hits");
    ENSURE(cl_tri_degenerate(a, cl_v3(2, 2, 2), cl_v3(3, 3, 3)) && !cl_tri_degenerate(a, b, c), "degeneracy");

    p1 = cl_tri_closest(a, b, c, cl_v3(1, 1, 7));
    ENSURE(p1.x == 1 && p1.y == 1 && p1.z == 0, "closest: face region projects");
    p1 = cl_tri_closest(a, b, c, cl_v3(-3, -2, 1));
    ENSURE(p1.x == 0 && p1.y == 0 && p1.z == 0, "closest: vertex region");
    p1 = cl_tri_closest(a, b, c, cl_v3(2, -3, 1));
    ENSURE(p1.x == 2 && p1.y == 0 && p1.z == 0, "closest: edge region");
    p1 = cl_tri_closest(a, b, c, cl_v3(5, 5, 0));
    ENSURE(p1.x == 2 && p1.y == 2 && p1.z == 0, "closest: hypotenuse region");
    p1 = cl_tri_closest(a, cl_v3(2, 0, 0), cl_v3(4, 0, 0), cl_v3(3, 1, 0));
    ENSURE(p1.x == 3 && p1.y == 0 && p1.z == 0, "closest on a collinear triangle: on its edges");
    p1 = cl_tri_closest(a, a, a, cl_v3(3, 1, 0));
    ENSURE(p1.x == 0 && p1.y == 0 && p1.z == 0, "closest on a point triangle: the point");

    bx = mkbox(cl_v3(1, 1, 0), cl_v3(2, 2, 1));
    ENSURE(cl_tri_overlaps_aabb(a, b, c, &bx), "box resting on the face overlaps");
    bx = mkbox(cl_v3(2, 2, -1), cl_v3(3, 3, 1));
    ENSURE(cl_tri_overlaps_aabb(a, b, c, &bx), "box touching the hypotenuse at its corner overlaps");
    bx = mkbox(cl_v3(2 + 0x1p-40, 2, -1), cl_v3(3, 3, 1));
    ENSURE(!cl_tri_overlaps_aabb(a, b, c, &bx), "box 2^-40 past the hypotenuse: separated (edge axis)");
    bx = mkbox(cl_v3(1, 1, nextafter(0, 1)), cl_v3(2, 2, 1));
    ENSURE(!cl_tri_overlaps_aabb(a, b, c, &bx), "box one ulp above the face: separated");
    bx = mkbox(cl_v3(4, 0, 0), cl_v3(5, 1, 1));
    ENSURE(cl_tri_overlaps_aabb(a, b, c, &bx), "box corner on the triangle's vertex overlaps");
    bx = mkbox(cl_v3(-1, -1, -1), cl_v3(9, 9, 9));
    ENSURE(cl_tri_overlaps_aabb(a, b, c, &bx), "box containing the triangle overlaps");
    {   /* a tilted triangle cutting past a box corner: only the normal axis separates */
        cl_vec3 ta = cl_v3(3, 0, 0), tb = cl_v3(0, 3, 0), tc = cl_v3(0, 0, 3);
        bx = mkbox(cl_v3(0, 0, 0), cl_v3(1, 1, 1));
        ENSURE(cl_tri_overlaps_aabb(ta, tb, tc, &bx), "plane x+y+z=3 touches the unit box's corner");
        bx = mkbox(cl_v3(0, 0, 0), cl_v3(1, 1, 1 - 0x1p-40));
        ENSURE(!cl_tri_overlaps_aabb(ta, tb, tc, &bx), "plane x+y+z=3 misses a box 2^-40 lower");
    }
    o.c = cl_v3(1, 1, 1); o.h = cl_v3(1, 1, 1);
    o.u[0] = cl_v3(1, 0, 0); o.u[1] = cl_v3(0, 1, 0); o.u[2] = cl_v3(0, 0, 1);
    ENSURE(cl_tri_overlaps_obb(a, b, c, &o), "world-axis OBB resting on the face overlaps");
    o.c.z = nextafter(1, 2);
    ENSURE(!cl_tri_overlaps_obb(a, b, c, &o), "world-axis OBB one ulp above: separated");
    s.c = cl_v3(1, 1, 2); s.r = 2;
    ENSURE(cl_tri_overlaps_sphere(a, b, c, &s), "sphere touching the face overlaps");
    s.r = nextafter(2, 0);
    ENSURE(!cl_tri_overlaps_sphere(a, b, c, &s), "sphere one ulp short: separated");
    s.c = cl_v3(7, 0, 0); s.r = 3;
    ENSURE(cl_tri_overlaps_sphere(a, b, c, &s), "sphere touching a vertex overlaps");

    {
        cl_capsule cp;
        cp.a = cl_v3(1, 1, 2); cp.b = cl_v3(2, 1, 2); cp.r = 2;
        ENSURE(cl_tri_overlaps_capsule(a, b, c, &cp), "capsule lying on the face (r = height) overlaps");
        cp.r = nextafter(2, 0);
        ENSURE(!cl_tri_overlaps_capsule(a, b, c, &cp), "capsule one ulp short of the face: separated");
        cp.a = cl_v3(1, 1, -3); cp.b = cl_v3(1, 1, 3); cp.r = 0;
        ENSURE(cl_tri_overlaps_capsule(a, b, c, &cp), "zero-radius capsule through the face overlaps");
        cp.a = cl_v3(6, 0, 0); cp.b = cl_v3(6, 0, 0); cp.r = 2;
        ENSURE(cl_tri_overlaps_capsule(a, b, c, &cp), "point capsule touching a vertex overlaps");
    }
    d = cl_tri_segment(a, b, c, cl_v3(1, 1, -1), cl_v3(1, 1, 1), &p1, &p2);
    ENSURE(d == 0 && p1.x == 1 && p1.y == 1 && p1.z == 0, "segment through the face: distance 0 at the crossing");
    d = cl_tri_segment(a, b, c, cl_v3(1, 1, 2), cl_v3(2, 1, 2), &p1, &p2);
    ENSURE(d == 4 && p1.z == 0 && p2.z == 2, "segment parallel above the face: distance 2 (squared 4)");
    d = cl_tri_segment(a, b, c, cl_v3(-1, -1, 0), cl_v3(-1, 5, 0), &p1, &p2);
    ENSURE(d == 1 && p1.x == 0 && p2.x == -1, "segment beside an edge in the plane: distance 1");
    d = cl_tri_segment(a, b, c, cl_v3(3, 3, 1), cl_v3(3, 3, 1), &p1, &p2);
    ENSURE(d == 3, "zero-length segment: the point's distance (squared 1+1+1)");
}

static int mkmesh(cl_mesh *m, const double *v, size_t nv, const unsigned *idx, size_t nt);

/* Findings of csrc/fuzz/fuzz_mesh.c, kept as regressions. */
static void test_findings(void)
{
    /* a huge triangle beside a thin rotated box: the frame change rounded the triangle onto it;
     * the box's enclosing AABB now decides first (as the mesh's pruning does) */
    {
        cl_obb o;
        cl_vec3 a = cl_v3(2.873467938681382e-32, 8.1711690301308565e-32, 1.745072419230886e-34);
        cl_vec3 b = cl_v3(2.5755698575003358e-06, -1.0847929578576353e-78, 1.5692553553306749e-30);
        cl_vec3 c = cl_v3(2.5898017281410739e-06, -1.2395336127972848e+33, -1.2395332707227151e+33);
        o.c = cl_v3(0.11998892892215329, -343193.4471456118, -5.6920612577581179e-41);
        o.h = cl_v3(6.0099513336097954e-13, 5.2902714790276171e-48, 7.6076162149524545e+37);
        o.u[0] = cl_v3(0.6, 0.8, 0); o.u[1] = cl_v3(-0.8, 0.6, 0); o.u[2] = cl_v3(0, 0, 1);
        ENSURE(!cl_tri_overlaps_obb(a, b, c, &o), "finding: a huge triangle wholly beside a thin OBB does not overlap it");
    }
    /* a ray grazing the corner of a sliver's box at its vertex: the box test's absolute slack keeps
     * the node the triangle test hits */
    {
        double v[9] = { 2.0414040076520398e-257, 849.31764705882347, -6.9048443681438943e-258,
                        -1.6259745436952323e-260, 0, 0, 0, 0, 0 };
        cl_mesh m;
        cl_ray r;
        cl_hit h, hb;
        size_t tri;
        cl_vec3 a = cl_v3(v[0], v[1], v[2]), b = cl_v3(v[3], v[4], v[5]), c = cl_v3(v[6], v[7], v[8]);
        r.o = cl_v3(0, 0, 4.1395099548071224e-307);
        r.d = cl_v3(-0.57735026746492968, -0.57735026746492968, -0.57735027263901773);
        mkmesh(&m, v, 3, NULL, 1);
        ENSURE(cl_mesh_raycast(&m, &r, HUGE_VAL, &h, &tri) == cl_tri_raycast(a, b, c, &r, HUGE_VAL, &hb),
               "finding: the mesh agrees with its triangle on a ray grazing the tree box's corner");
        cl_mesh_free(&m);
    }
    /* the closest point of a triangle spanning 2^-140..2^129 rounded out of its box, nearer than
     * the tree's boxes allow: the tree pruned the lower-numbered twin of the triangle it kept
     * (fuzz_mesh, CI); cl_tri_closest now stays in the triangle's box */
    {
        static const double t[30][9] = {
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101},
    {0x1.2c2c2c2c2c2c2p+41, -0x1.2c4518500069ap-255, -0x1.0d40aa39dfb92p+101,  0x1.b6e545594a06dp-85, 0x1.d64c4980bb8d4p-254, 0x1.a8721a99a01adp+25,  0x1.40c3ee37d96b5p-140, -0x1.a4a4a4a4a8f5dp+129, -0x1.12447e34043p-182}
        };
        cl_mesh m;
        cl_vec3 p = cl_v3(0, 0, 0), x, q;
        double best = HUGE_VAL;
        size_t i, ti = 0, bi = 0;
        int inbox = 1;
        mkmesh(&m, &t[0][0], 90, NULL, 30);
        for (i = 0; i < 30; i++) {
            cl_vec3 a = cl_v3(t[i][0], t[i][1], t[i][2]), b = cl_v3(t[i][3], t[i][4], t[i][5]);
            cl_vec3 c = cl_v3(t[i][6], t[i][7], t[i][8]);
            if (cl_tri_degenerate(a, b, c)) continue;
            q = cl_tri_closest(a, b, c, p);
            inbox &= q.x >= fmin(a.x, fmin(b.x, c.x)) && q.x <= fmax(a.x, fmax(b.x, c.x)) &&
                     q.y >= fmin(a.y, fmin(b.y, c.y)) && q.y <= fmax(a.y, fmax(b.y, c.y)) &&
                     q.z >= fmin(a.z, fmin(b.z, c.z)) && q.z <= fmax(a.z, fmax(b.z, c.z));
            if (dist2(q, p) < best) { best = dist2(q, p); bi = i; }
        }
        ENSURE(inbox, "finding: a triangle's closest point lies in the triangle's box");
        ENSURE(cl_mesh_closest(&m, p, &x, &ti) && dist2(x, p) == best && ti == bi,
               "finding: the mesh's closest point is brute force's, lowest triangle of a tie");
        cl_mesh_free(&m);
    }
    /* a ray nearly in the plane of a sliver 1.1e26 long, 6.6e12 wide and flat in z, from 1e20 off
     * (fuzz_mesh): the triangle test's t is 2^-30 of the data's magnitude short of where the ray
     * crosses the sliver's box, far beyond the node slack, and the tree pruned the node holding the
     * lowest-numbered copy of the triangle by its entry distance. Now the mesh counts a hit's t
     * raised to the ray's entry into the triangle's box (cl_mesh_rayhit), which every node holding
     * it bounds: the box-entry pruning is exact, and the tie among the copies goes to triangle 8 */
    {
        static const double v[9] = { -0x1.2c2c2c2c2c2c2p-255, -0x1.4518500069afep-255, -0x1.44c0ba5930aa3p-110,
                                      -0x1.b9249f40c3ee3p-244, 0x1.6b5b54a4a4a4ap+86, 0x1.f0e0051241e03p-131,
                                      -0x1.7d648p+42, 0, 0 };
        static const unsigned idx[192] = {
            0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 1, 0, 0, 2, 0, 0, 2, 2, 1, 1, 1, 2, 0, 2, 0, 2, 2, 0,
            1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 2, 1, 0, 1, 1, 1, 2, 1, 0, 2, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 2, 0, 2, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 2, 1, 0, 1, 1, 1, 2, 1, 0, 2, 1, 0, 1, 2, 0,
            1, 2, 2, 0, 2, 1, 2, 2, 0, 2, 2, 1, 1, 2, 2, 1, 1, 0, 0, 0, 1, 0, 1, 2, 2, 1, 2, 1, 0, 0, 2, 2 };
        cl_mesh m;
        cl_ray r;
        cl_hit h, hb;
        size_t i, tri = 0, bi = 0;
        double bt = HUGE_VAL;
        int bh = 0;
        r.o = cl_v3(-1.0532729165223962e+20, -1.0532729165223962e+20, -1.0532729165223766e+20);
        r.d = cl_v3(1.9182144561387487e-06, 0.9999999999963205, 1.9182145158035348e-06);
        mkmesh(&m, v, 3, idx, 64);
        for (i = 0; i < 64; i++) {
            cl_vec3 a, b, c;
            cl_mesh_triangle(&m, i, &a, &b, &c);
            if (cl_tri_raycast(a, b, c, &r, HUGE_VAL, &hb) && (!bh || hb.t < bt)) { bh = 1; bt = hb.t; bi = i; }
        }
        ENSURE(bh && bi == 8 && bt == 5.4909026388850772e+25, "finding: cl_tri_raycast hits triangle 8 first");
        {   /* the raised t: the brute force over cl_mesh_rayhit, ties to the lowest index */
            double t, rt = HUGE_VAL, ent = -HUGE_VAL;
            size_t ri = 0;
            int k;
            for (i = 0; i < 64; i++)
                if (cl_mesh_rayhit(&m, &r, i, HUGE_VAL, &t) && t < rt) { rt = t; ri = i; }
            for (k = 0; k < 3; k++) {  /* triangle 8's box entry, per axis (all components nonzero) */
                cl_vec3 a, b, c;
                double lo, e, pa[3], pb[3], pc[3], o[3], d[3];
                cl_mesh_triangle(&m, 8, &a, &b, &c);
                pa[0] = a.x; pa[1] = a.y; pa[2] = a.z; pb[0] = b.x; pb[1] = b.y; pb[2] = b.z;
                pc[0] = c.x; pc[1] = c.y; pc[2] = c.z; o[0] = r.o.x; o[1] = r.o.y; o[2] = r.o.z;
                d[0] = r.d.x; d[1] = r.d.y; d[2] = r.d.z;
                lo = d[k] > 0 ? fmin(pa[k], fmin(pb[k], pc[k])) : fmax(pa[k], fmax(pb[k], pc[k]));
                e = (lo - o[k]) / d[k];
                if (e > ent) ent = e;
            }
            ENSURE(ri == 8 && rt == 5.4909026484933451e+25 && rt > bt && rt >= ent - 0x1p-39 * 0x1.6b5b54a4a4a4ap+86 && rt <= ent,
                   "finding: triangle 8's counted t is raised to its box entry (less the slack), the copies tie");
            ENSURE(cl_mesh_raycast(&m, &r, HUGE_VAL, &h, &tri) && h.t == rt && tri == 8,
                   "finding: the mesh's ray hit is the least counted t, lowest triangle of a tie, on a sliver the ray nearly lies in");
        }
        cl_mesh_free(&m);
    }
    /* a direction component so small that its reciprocal overflows: the node test divides */
    {
        double v[9] = { 0, 0, 0, 4, 0, 0, 0, 4, 0 };
        cl_mesh m;
        cl_ray r;
        cl_hit h;
        size_t tri;
        r.o = cl_v3(1, 1, 5);
        r.d = cl_v3(4e-320, 0, -1);
        mkmesh(&m, v, 3, NULL, 1);
        ENSURE(cl_mesh_raycast(&m, &r, HUGE_VAL, &h, &tri) && h.t == 5, "a subnormal direction component still hits");
        cl_mesh_free(&m);
    }
}

/* ================= random differentials of the triangle tests ================= */

static void test_tri_random(void)
{
    int i, n = iters(20000), agree = 0, called = 0;
    for (i = 0; i < n; i++) {
        cl_vec3 a = rvec(-2, 2), b = rvec(-2, 2), c = rvec(-2, 2), o = rvec(-4, 4);
        cl_vec3 aim = vadd(vadd(vmul(a, urand(-0.3, 1)), vmul(b, urand(0, 1))), vmul(c, urand(0, 1)));
        cl_ray r;
        cl_hit h;
        double t, tr;
        int hit, ref;
        if (i % 2) aim = vmul(vadd(vadd(a, b), c), 1.0 / 3);
        if (dist2(aim, o) == 0) continue;
        r = mkray(o, vsub(aim, o));
        hit = cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h);
        ref = ref_ray(a, b, c, r, &tr, 1e-9);
        if (ref < 0) continue;
        called++;
        t = hit ? h.t : -1;
        if (hit == ref && (!hit || fabs(t - tr) <= 1e-9 * (1 + tr))) agree++;
        else if (failed < 20) printf("ray mismatch %d: hit %d ref %d t %.17g ref %.17g\n", i, hit, ref, t, tr);
    }
    ENSURE(agree == called && called > n / 2, "watertight ray test agrees with long-double Moller-Trumbore away from edges");

    agree = called = 0;
    for (i = 0; i < n; i++) {
        cl_vec3 a = rvec(-2, 2), b = rvec(-2, 2), c = rvec(-2, 2), lo = rvec(-2, 1.5), p, q;
        cl_aabb bx;
        int got, g1, g2;
        double ext = urand(0.01, 1.5);
        bx.min = lo;
        bx.max = vadd(lo, cl_v3(ext * urand(0.1, 1), ext * urand(0.1, 1), ext * urand(0.1, 1)));
        if (i % 3 == 0) {  /* small integer data: touching cases computed exactly */
            a = cl_v3(irand(5) - 2, irand(5) - 2, irand(5) - 2); b = cl_v3(irand(5) - 2, irand(5) - 2, irand(5) - 2);
            c = cl_v3(irand(5) - 2, irand(5) - 2, irand(5) - 2);
            bx.min = cl_v3(irand(4) - 2, irand(4) - 2, irand(4) - 2);
            bx.max = vadd(bx.min, cl_v3(irand(2) + 1, irand(2) + 1, irand(2) + 1));
        }
        got = cl_tri_overlaps_aabb(a, b, c, &bx);
        g1 = ref_tribox_g(a, b, c, bx, 1e-9);
        g2 = ref_tribox_g(a, b, c, bx, -1e-9);
        if (g1 == g2) {
            called++;
            if (got == g1) agree++;
            else if (failed < 20) printf("tri/aabb mismatch %d: got %d ref %d\n", i, got, g1);
        } else if (i % 3 == 0 && !cl_tri_degenerate(a, b, c)) {
            /* exactly touching (integer data): the inclusive test must say overlap */
            called++;
            if (got) agree++;
            else if (failed < 20) printf("tri/aabb touching %d: got %d\n", i, got);
        }
        {   /* sphere: the distance to the reference closest point decides, away from the boundary */
            cl_sphere s;
            double dd;
            s.c = rvec(-3, 3); s.r = urand(0, 2);
            p = ref_closest(a, b, c, s.c);
            dd = sqrt(dist2(p, s.c));
            q = cl_tri_closest(a, b, c, s.c);
            called++;
            if (fabs(sqrt(dist2(q, s.c)) - dd) <= 1e-12 * (1 + dd)) agree++;
            else if (failed < 20) printf("closest mismatch %d: %.17g vs %.17g\n", i, sqrt(dist2(q, s.c)), dd);
            if (fabs(dd - s.r) > 1e-9) {
                called++;
                if (cl_tri_overlaps_sphere(a, b, c, &s) == (dd <= s.r)) agree++;
            }
        }
    }
    ENSURE(agree == called && called > n, "tri/AABB agrees with polygon clipping; closest and tri/sphere with the projected reference");

    agree = called = 0;
    for (i = 0; i < iters(4000); i++) {  /* OBB: clipping in the box's frame with an independent frame */
        cl_vec3 a = rvec(-2, 2), b = rvec(-2, 2), c = rvec(-2, 2), u0 = runit(), u1, u2, la, lb, lc;
        cl_obb o;
        cl_aabb bx;
        int got, g1, g2;
        u1 = vcross(u0, runit());
        u1 = vmul(u1, 1 / sqrt(dot(u1, u1)));
        u2 = vcross(u0, u1);
        o.c = rvec(-1.5, 1.5); o.h = rvec(0.05, 1);
        o.u[0] = u0; o.u[1] = u1; o.u[2] = u2;
        got = cl_tri_overlaps_obb(a, b, c, &o);
        /* the reference clips in long-double-free double frame coordinates taken by projection */
        la = cl_v3(dot(vsub(a, o.c), u0), dot(vsub(a, o.c), u1), dot(vsub(a, o.c), u2));
        lb = cl_v3(dot(vsub(b, o.c), u0), dot(vsub(b, o.c), u1), dot(vsub(b, o.c), u2));
        lc = cl_v3(dot(vsub(c, o.c), u0), dot(vsub(c, o.c), u1), dot(vsub(c, o.c), u2));
        bx.min = vmul(o.h, -1); bx.max = o.h;
        g1 = ref_tribox_g(la, lb, lc, bx, 1e-9);
        g2 = ref_tribox_g(la, lb, lc, bx, -1e-9);
        if (g1 != g2) continue;
        called++;
        if (got == g1) agree++;
    }
    ENSURE(agree == called && called > iters(4000) / 2, "tri/OBB agrees with clipping in the box's frame");

    agree = called = 0;
    for (i = 0; i < iters(3000); i++) {
        cl_vec3 a = rvec(-2, 2), b = rvec(-2, 2), c = rvec(-2, 2), p = rvec(-3, 3), q = rvec(-3, 3), x, y;
        double d, rd;
        if (i % 4 == 0) q = p;
        if (i % 4 == 1) q = vadd(p, vmul(vsub(q, p), 1e-3));
        d = sqrt(cl_tri_segment(a, b, c, p, q, &x, &y));
        rd = ref_segdist(a, b, c, p, q);
        called++;
        if (fabs(d - rd) <= 1e-9 * (1 + rd) && fabs(sqrt(dist2(x, y)) - d) <= 1e-12 * (1 + d) &&
            fabs(sqrt(dist2(cl_tri_closest(a, b, c, x), x))) <= 1e-9 * (1 + d))
            agree++;
        else if (failed < 20) printf("segment mismatch %d: %.17g vs %.17g\n", i, d, rd);
    }
    ENSURE(agree == called, "triangle/segment distance agrees with a ternary search; its points are consistent");

    agree = called = 0;
    for (i = 0; i < iters(3000); i++) {
        cl_vec3 a = rvec(-2, 2), b = rvec(-2, 2), c = rvec(-2, 2);
        cl_capsule cp;
        double rd;
        cp.a = rvec(-3, 3); cp.b = i % 5 == 0 ? cp.a : rvec(-3, 3); cp.r = urand(0, 1.5);
        rd = ref_segdist(a, b, c, cp.a, cp.b);
        if (fabs(rd - cp.r) <= 1e-9) continue;
        called++;
        if (cl_tri_overlaps_capsule(a, b, c, &cp) == (rd <= cp.r)) agree++;
    }
    ENSURE(agree == called && called > iters(3000) / 2, "triangle/capsule agrees with the ternary-search distance");
}

/* ================= meshes ================= */

/* A mesh from arrays (copied), built with talloc; returns CL_OK or the build's error. */
static int mkmesh(cl_mesh *m, const double *v, size_t nv, const unsigned *idx, size_t nt)
{
    int rc = cl_mesh_init(m, nv, nt, idx != NULL, talloc, NULL);
    if (rc != CL_OK) return rc;
    memcpy(m->v, v, 3 * nv * sizeof(double));
    if (idx) memcpy(m->idx, idx, 3 * nt * sizeof(unsigned));
    return cl_mesh_build(m);
}

/* A height-field grid of n x n cells (2 triangles each) over [0, n*step]^2 in x, z; heights from
 * hf (0: flat y = 0; 1: random integers; 2: random reals). Writes v and idx (caller frees). */
static void grid(int n, double step, int hf, double **v, size_t *nv, unsigned **idx, size_t *nt)
{
    int i, j;
    *nv = (size_t)(n + 1) * (n + 1);
    *nt = (size_t)2 * n * n;
    *v = (double *)malloc(3 * *nv * sizeof(double));
    *idx = (unsigned *)malloc(3 * *nt * sizeof(unsigned));
    for (j = 0; j <= n; j++)
        for (i = 0; i <= n; i++) {
            double *p = *v + 3 * (j * (n + 1) + i);
            p[0] = i * step;
            p[1] = hf == 0 ? 0 : (hf == 1 ? irand(3) : urand(-1, 1) * step);
            p[2] = j * step;
        }
    for (j = 0; j < n; j++)
        for (i = 0; i < n; i++) {
            unsigned *t = *idx + 6 * (j * n + i), v0 = (unsigned)(j * (n + 1) + i), v1 = v0 + 1,
                     v2 = v0 + (unsigned)(n + 1), v3 = v2 + 1;
            int flip = (i + j) % 2;  /* alternate diagonals: vertices shared by 4 and 8 triangles */
            t[0] = v0; t[1] = v1; t[2] = flip ? v2 : v3;
            t[3] = flip ? v1 : v0; t[4] = v3; t[5] = v2;
        }
}

/* Brute-force closest hit over all triangles: the same tests, the same tie rule. */
static int brute_ray(const cl_mesh *m, const cl_ray *r, double maxt, double *t, size_t *tri)
{
    size_t i;
    int found = 0;
    for (i = 0; i < m->nt; i++) {
        cl_vec3 a, b, c;
        cl_hit h;
        cl_mesh_triangle(m, i, &a, &b, &c);
        if (cl_tri_raycast(a, b, c, r, maxt, &h) && (!found || h.t < *t)) { *t = h.t; *tri = i; found = 1; }
    }
    return found;
}

/* Brute-force query: writes the overlapping triangles ascending, returns their count. */
static size_t brute_query(const cl_mesh *m, const cl_shape *s, unsigned *out)
{
    size_t i, n = 0;
    for (i = 0; i < m->nt; i++) {
        cl_vec3 a, b, c;
        int hit;
        cl_mesh_triangle(m, i, &a, &b, &c);
        if (cl_tri_degenerate(a, b, c)) continue;
        switch (s->kind) {
        case CL_AABB: hit = cl_tri_overlaps_aabb(a, b, c, &s->u.aabb); break;
        case CL_OBB:  hit = cl_tri_overlaps_obb(a, b, c, &s->u.obb); break;
        default:      hit = cl_tri_overlaps_sphere(a, b, c, &s->u.sphere); break;
        }
        if (hit) out[n++] = (unsigned)i;
    }
    return n;
}

/* Brute-force closest point: smallest squared distance, ties to the lowest index. */
static int brute_closest(const cl_mesh *m, cl_vec3 p, cl_vec3 *q, size_t *tri)
{
    size_t i;
    double best = HUGE_VAL;
    int found = 0;
    for (i = 0; i < m->nt; i++) {
        cl_vec3 a, b, c, x;
        cl_mesh_triangle(m, i, &a, &b, &c);
        if (cl_tri_degenerate(a, b, c)) continue;
        x = cl_tri_closest(a, b, c, p);
        if (!found || dist2(x, p) < best) { best = dist2(x, p); *q = x; *tri = i; found = 1; }
    }
    return found;
}

/* A random query shape around the mesh box [lo, hi], of a size near sz. */
static cl_shape rshape(cl_vec3 lo, cl_vec3 hi, double sz)
{
    cl_shape s;
    cl_vec3 c = cl_v3(urand(lo.x, hi.x), urand(lo.y, hi.y), urand(lo.z, hi.z)), u0, u1;
    int k = irand(3);
    s.kind = (cl_kind)k;
    if (k == CL_AABB) {
        s.u.aabb.min = vsub(c, rvec(0, sz));
        s.u.aabb.max = vadd(c, rvec(0, sz));
    } else if (k == CL_OBB) {
        u0 = runit();
        u1 = vcross(u0, runit());
        u1 = vmul(u1, 1 / sqrt(dot(u1, u1)));
        s.u.obb.c = c; s.u.obb.h = rvec(0, sz);
        s.u.obb.u[0] = u0; s.u.obb.u[1] = u1; s.u.obb.u[2] = vcross(u0, u1);
    } else {
        s.u.sphere.c = c; s.u.sphere.r = urand(0, sz);
    }
    return s;
}

/* Checks every query of m against brute force: nq random queries (rays aimed at random vertices,
 * edge points and triangle centres; shapes; points). */
static void check_mesh(const cl_mesh *m, int nq, const char *what)
{
    int q, rays = 0, rayok = 0, qok = 0, cok = 0, ook = 0, hits = 0, capok = 0;
    unsigned *bq = (unsigned *)malloc((m->nt + 1) * sizeof(unsigned)), *mq = (unsigned *)malloc((m->nt + 1) * sizeof(unsigned));
    cl_vec3 lo = m->box.min, hi = m->box.max, ext = vsub(hi, lo);
    double sz = cl_v3(0, 0, 0).x + (ext.x + ext.y + ext.z) / 3;
    lo = vsub(lo, vmul(ext, 0.1));
    hi = vadd(hi, vmul(ext, 0.1));
    for (q = 0; q < nq; q++) {
        size_t t = (size_t)irand((int)m->nt), ti, bi = 0, mi = 0, nb, nm;
        cl_vec3 a, b, c, aim, o, bp, mp;
        cl_ray r;
        cl_hit h;
        double bt = 0, maxt = (q % 5 == 0) ? urand(0, sz * 2) : HUGE_VAL;
        int bh, mh, k;
        cl_shape s;
        cl_mesh_triangle(m, t, &a, &b, &c);
        switch (q % 4) {
        case 0: aim = a; break;                                    /* through a vertex */
        case 1: aim = vadd(a, vmul(vsub(b, a), 0.5)); break;       /* a shared edge's midpoint */
        case 2: aim = vmul(vadd(vadd(a, b), c), 1.0 / 3); break;   /* a centre */
        default: aim = rvec(-1, 1); aim = cl_v3(lo.x + (aim.x + 1) / 2 * (hi.x - lo.x), lo.y + (aim.y + 1) / 2 * (hi.y - lo.y),
                                                lo.z + (aim.z + 1) / 2 * (hi.z - lo.z)); break;
        }
        o = vadd(aim, vmul(runit(), sz * urand(0.01, 2)));
        if (q % 8 == 5) o = vadd(a, vmul(vsub(b, a), -urand(0.1, 2)));  /* along an edge's line */
        if (dist2(o, aim) > 0) {
            r = mkray(o, vsub(aim, o));
            bh = brute_ray(m, &r, maxt, &bt, &bi);
            mh = cl_mesh_raycast(m, &r, maxt, &h, &mi);
            rays++;
            hits += bh;
            if (bh == mh && (!bh || (h.t == bt && mi == bi))) rayok++;
            else if (failed < 20) printf("%s: ray %d: brute %d t %.17g tri %lu, mesh %d t %.17g tri %lu\n", what, q, bh,
                                         bt, (unsigned long)bi, mh, mh ? h.t : 0, (unsigned long)mi);
        }
        s = rshape(lo, hi, sz * (q % 3 == 0 ? 0.02 : 0.2));
        nb = brute_query(m, &s, bq);
        nm = cl_mesh_query(m, &s, mq, m->nt + 1);
        if (nb == nm && memcmp(bq, mq, nb * sizeof *bq) == 0) qok++;
        else if (failed < 20) printf("%s: query %d: brute %lu mesh %lu\n", what, q, (unsigned long)nb, (unsigned long)nm);
        if (cl_mesh_overlaps(m, &s) == (nb > 0)) ook++;
        {   /* a capsule around the same place */
            cl_capsule cp;
            size_t z, nc = 0, nmc;
            cp.a = s.u.sphere.c;
            cp.b = vadd(cp.a, vmul(runit(), sz * urand(0, 0.3)));
            cp.r = sz * urand(0, q % 3 == 0 ? 0.01 : 0.1);
            for (z = 0; z < m->nt; z++) {
                cl_vec3 ta, tb, tc;
                cl_mesh_triangle(m, z, &ta, &tb, &tc);
                if (!cl_tri_degenerate(ta, tb, tc) && cl_tri_overlaps_capsule(ta, tb, tc, &cp)) bq[nc++] = (unsigned)z;
            }
            nmc = cl_mesh_query_capsule(m, &cp, mq, m->nt + 1);
            if (nc == nmc && memcmp(bq, mq, nc * sizeof *bq) == 0 && cl_mesh_overlaps_capsule(m, &cp) == (nc > 0)) capok++;
            else if (failed < 20) printf("%s: capsule %d: brute %lu mesh %lu\n", what, q, (unsigned long)nc, (unsigned long)nmc);
        }
        k = brute_closest(m, s.u.sphere.c, &bp, &bi);
        if (k == cl_mesh_closest(m, s.u.sphere.c, &mp, &ti) && (!k || (dist2(bp, mp) == 0 && bi == ti))) cok++;
        else if (failed < 20) printf("%s: closest %d: tri %lu vs %lu\n", what, q, (unsigned long)bi, (unsigned long)ti);
    }
    ENSURE(rayok == rays, what);
    ENSURE(qok == nq, what);
    ENSURE(ook == nq, what);
    ENSURE(cok == nq, what);
    ENSURE(capok == nq, what);
    ENSURE(m->nprim == 0 || hits > 0, what);
    free(bq);
    free(mq);
}

static void test_meshes(void)
{
    static const int sizes[] = { 1, 2, 3, 17, 300, 5000, 60000, 200000 };
    size_t k;
    for (k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k], kind;
        for (kind = 0; kind < 3; kind++) {
            cl_mesh m;
            double *v;
            unsigned *idx = NULL;
            size_t nv, nt, i;
            char what[96];
            int nq = n >= 60000 ? iters(12) : iters(n >= 5000 ? 60 : 300);
            if (kind == 0) {  /* triangle soup with clusters, slivers and degenerate ones, unindexed */
                nt = (size_t)n;
                nv = 3 * nt;
                v = (double *)malloc(3 * nv * sizeof(double));
                for (i = 0; i < nt; i++) {
                    cl_vec3 c = rvec(-50, 50), p0, p1, p2;
                    double s = urand(0.1, 5);
                    if (i % 7 == 0) c = rvec(-1, 1);            /* a dense cluster */
                    p0 = vadd(c, rvec(-s, s)); p1 = vadd(c, rvec(-s, s)); p2 = vadd(c, rvec(-s, s));
                    if (i % 11 == 3) p2 = p1;                   /* degenerate: repeated vertex */
                    if (i % 13 == 5) p2 = vadd(p0, vmul(vsub(p1, p0), 2));  /* nearly collinear */
                    memcpy(v + 9 * i, &p0, sizeof p0);
                    memcpy(v + 9 * i + 3, &p1, sizeof p1);
                    memcpy(v + 9 * i + 6, &p2, sizeof p2);
                }
            } else {  /* grids: flat with integer heights (kind 1) or a random height field (kind 2) */
                int g = (int)ceil(sqrt(n / 2.0));
                grid(g, kind == 1 ? 1.0 : 0.37, kind, &v, &nv, &idx, &nt);
            }
            ENSURE(mkmesh(&m, v, nv, idx, nt) == CL_OK, "mesh builds");
            snprintf(what, sizeof what, "mesh kind %d, %lu triangles: every query equals brute force", kind, (unsigned long)nt);
            check_mesh(&m, nq, what);
            ENSURE(m.depth < CL_MESH_STACK - 1, "tree height fits the traversal stacks");
            cl_mesh_free(&m);
            free(v);
            free(idx);
        }
    }
    ENSURE(live_bytes == 0, "every mesh block freed");
}

/* A record of visited triangles, for the walk comparisons of test_lazy. */
typedef struct seqrec { size_t n, pre; unsigned t[4096], p[4096]; } seqrec;
static int rec_visit(void *ud, size_t i) { seqrec *r = (seqrec *)ud; if (r->n < 4096) r->t[r->n] = (unsigned)i; r->n++; return 0; }
/* pre of test_lazy: keeps about half of the triangles (by index), recording each call. */
static int rec_pre(void *ud, size_t i) { seqrec *r = (seqrec *)ud; if (r->pre < 4096) r->p[r->pre] = (unsigned)i; r->pre++; return (i * 2654435761u >> 7) % 2; }

/* A triangle with a vertex in a box (closed) overlaps it by cl_tri_overlaps_aabb, whatever the
 * rounding of its axis tests, for data up to 2^200 (meshworld.c's first_guess skips the test
 * then): vertices inside, on faces, edges and corners of boxes (flat ones too), the other two
 * anywhere, slivers, at scales 2^-200 to 2^200. */
static void test_vertex_in_box(void)
{
    int k, n = iters(400000), bad = 0;
    for (k = 0; k < n; k++) {
        double s = ldexp(1, (int)urand(-200, 190));
        cl_vec3 lo = vmul(rvec(-4, 4), s), hi = vadd(lo, vmul(rvec(0, 3), s)), v[3], w;
        cl_aabb box;
        int i, j = (int)urand(0, 3) % 3, mode = k % 5;
        if (k % 7 == 0) hi.y = lo.y;            /* a flat box */
        box = mkbox(lo, hi);
        /* the vertex j in the box: inside, or on its faces / edges / corners */
        w = cl_v3(urand(lo.x, hi.x), urand(lo.y, hi.y), urand(lo.z, hi.z));
        if (w.x > hi.x) w.x = hi.x;
        if (w.y > hi.y) w.y = hi.y;
        if (w.z > hi.z) w.z = hi.z;
        if (mode >= 1) w.x = rnd() < 0.5 ? lo.x : hi.x;
        if (mode >= 2) w.y = rnd() < 0.5 ? lo.y : hi.y;
        if (mode >= 3) w.z = rnd() < 0.5 ? lo.z : hi.z;
        for (i = 0; i < 3; i++) v[i] = vmul(rvec(-8, 8), s);
        if (mode == 4) {                        /* a sliver through the vertex */
            cl_vec3 d = vmul(runit(), s);
            v[(j + 1) % 3] = vadd(w, vmul(d, urand(-9, 9)));
            v[(j + 2) % 3] = vadd(w, vmul(d, urand(-9, 9) * (1 + ldexp(urand(-1, 1), -40))));
        }
        v[j] = w;
        if (!(w.x >= lo.x && w.x <= hi.x && w.y >= lo.y && w.y <= hi.y && w.z >= lo.z && w.z <= hi.z)) continue;
        if (!cl_tri_overlaps_aabb(v[0], v[1], v[2], &box)) bad++;
    }
    CHECK(bad == 0, "a triangle with a vertex in a box overlaps it", "%d of %d", bad, n);
}

/* A pre for cl_mesh_query_list that keeps rec_pre's triangles and answers the overlap test itself
 * for every third of them (CL_MESH_PRE_OVERLAPS, or 0 when the triangle misses the box), as
 * meshworld.c's sweep_first does for its first guess. */
typedef struct ovrec { seqrec r; const cl_mesh *m; cl_aabb box; } ovrec;
static int ov_pre(void *ud, size_t i)
{
    ovrec *o = (ovrec *)ud;
    cl_vec3 a, b, c;
    if (!rec_pre(&o->r, i)) return 0;
    if (i % 3 != 0) return 1;
    cl_mesh_triangle(o->m, i, &a, &b, &c);
    return cl_tri_overlaps_aabb(a, b, c, &o->box) ? CL_MESH_PRE_OVERLAPS : 0;
}

/* The split walks (cl_mesh_query_lazy, and cl_mesh_query_list over cl_mesh_candidates of a larger
 * box) visit what cl_mesh_query_each visits, in its order, less what pre drops; a World mover's
 * kept sweep (cl_pmesh_sweep_keep) equals cl_pmesh_sweep, and the overlap checks answered from its
 * candidates (cl_pmesh_overlaps_kept) equal cl_interiors_overlap. */
static void test_lazy(void)
{
    static seqrec ea, la, li;
    static ovrec lo2;
    int kind, q, n = iters(400), kept = 0;
    for (kind = 0; kind < 3; kind++) {
        cl_mesh m;
        double *v;
        unsigned *idx, cand[512];
        size_t nv, nt, k, j;
        cl_pmesh pm;
        cl_shape ms;
        grid(24, kind == 0 ? 1.0 : 0.37, kind, &v, &nv, &idx, &nt);
        ENSURE(mkmesh(&m, v, nv, idx, nt) == CL_OK, "mesh builds");
        pm.c = cl_v3(0, 0, 0);
        pm.u[0] = cl_v3(1, 0, 0); pm.u[1] = cl_v3(0, 1, 0); pm.u[2] = cl_v3(0, 0, 1);
        pm.m = &m;
        ms.kind = CL_MESH;
        ms.u.mesh = pm;
        for (q = 0; q < n; q++) {
            cl_vec3 lo = rvec(-2, 10), hi = vadd(lo, rvec(0, 3));
            cl_aabb box = mkbox(lo, hi), wide = mkbox(vsub(lo, rvec(0, 1)), vadd(hi, rvec(0, 1)));
            cl_shape s;
            size_t nc;
            int same = 1;
            s.kind = CL_AABB; s.u.aabb = box;
            ea.n = la.n = la.pre = li.n = li.pre = 0;
            cl_mesh_query_each(&m, &s, rec_visit, &ea);
            cl_mesh_query_lazy(&m, &box, rec_pre, rec_visit, &la);
            nc = cl_mesh_candidates(&m, &wide, cand, 512);
            CHECK(nc <= 512 && cl_mesh_query_list(&m, &box, cand, nc, rec_pre, rec_visit, &li) == li.n,
                  "the candidates of a larger box give the same walk", "query %d", q);
            for (j = 0, k = 0; k < ea.n; k++)   /* each's visits that pre keeps, in its order */
                if ((ea.t[k] * 2654435761u >> 7) % 2) same &= j < la.n && la.t[j++] == ea.t[k];
            same &= j == la.n && la.n == li.n && la.pre == li.pre && la.pre >= ea.n;
            for (k = 0; k < la.n && same; k++) same = la.t[k] == li.t[k];
            for (k = 0; k < la.pre && same; k++) same = la.p[k] == li.p[k];
            CHECK(same, "lazy and list walks visit what query_each does, in its order", "query %d: %lu %lu %lu", q,
                  (unsigned long)ea.n, (unsigned long)la.n, (unsigned long)li.n);
            /* the same walk when pre answers the overlap test itself for some triangles */
            lo2.r.n = lo2.r.pre = 0; lo2.m = &m; lo2.box = box;
            CHECK(cl_mesh_query_list(&m, &box, cand, nc, ov_pre, rec_visit, &lo2) == lo2.r.n,
                  "a list walk whose pre answers the overlap test counts its visits", "query %d", q);
            same = lo2.r.n == la.n && lo2.r.pre == la.pre;
            for (k = 0; k < la.n && same; k++) same = la.t[k] == lo2.r.t[k];
            CHECK(same, "CL_MESH_PRE_OVERLAPS from pre gives the walk the test gives", "query %d: %lu %lu", q,
                  (unsigned long)la.n, (unsigned long)lo2.r.n);
            {   /* a sphere or capsule swept onto the mesh, then checked at points of its path */
                cl_shape mv, end;
                cl_vec3 d = vmul(runit(), urand(0, 2)), p = rvec(0, 9);
                cl_sweep a, b;
                cl_pmkeep keep;
                double t;
                memset(&keep, 0, sizeof keep);      /* as a World's (zeroed): the cache off, no kept values */
                if (q % 2) { mv.kind = CL_SPHERE; mv.u.sphere.c = p; mv.u.sphere.r = urand(0.05, 1); }
                else { mv.kind = CL_CAPSULE; mv.u.capsule.a = p; mv.u.capsule.b = vadd(p, rvec(-1, 1)); mv.u.capsule.r = urand(0.05, 1); }
                a = cl_pmesh_sweep(&pm, &mv, d, NULL);
                b = cl_pmesh_sweep_keep(&pm, &mv, d, &keep);
                CHECK(a.state == b.state && a.t == b.t && a.rank == b.rank && a.n.x == b.n.x && a.n.y == b.n.y && a.n.z == b.n.z,
                      "a kept sweep is the sweep", "query %d", q);
                for (t = 0; t <= 1; t += 0.125) {
                    double tt = (a.state == CL_TOI_TOUCHING && t == 0.5) ? a.t : t;
                    int r;
                    end = mv;
                    cl_shape_translate(&end, vmul(d, tt));
                    r = cl_pmesh_overlaps_kept(&pm, &end, &keep);
                    kept += r >= 0;
                    CHECK(r < 0 || r == cl_interiors_overlap(&end, &ms), "a kept sweep's overlap check", "query %d, t %g", q, tt);
                }
            }
        }
        cl_mesh_free(&m);
        free(v);
        free(idx);
    }
    ENSURE(kept > n, "kept sweeps answer overlap checks");
}

/* Watertightness: rays aimed exactly at shared edges' points and vertices of grids never miss. */
static void test_watertight(void)
{
    int kind, q, misses = 0, rays = 0;
    for (kind = 0; kind < 3; kind++) {
        double *v;
        unsigned *idx;
        size_t nv, nt;
        cl_mesh m;
        int n = 24;
        double step = kind == 2 ? 0.1 : 1.0 / 3;  /* 1/3: edge points are not representable */
        grid(n, step, kind, &v, &nv, &idx, &nt);
        mkmesh(&m, v, nv, idx, nt);
        for (q = 0; q < iters(20000); q++) {
            int i = 1 + irand(n - 1), j = 1 + irand(n - 1);   /* an interior vertex */
            const double *p = v + 3 * (j * (n + 1) + i), *p2;
            cl_vec3 aim = cl_v3(p[0], p[1], p[2]), o;
            cl_ray r;
            cl_hit h;
            size_t tri, t;
            int any = 0;
            if (q % 2) {  /* a point on a mesh edge from that vertex: to an axis neighbour, or the
                           * diagonal neighbour across a cell whose diagonal that is (grid()'s flips) */
                int di = irand(3) - 1, dj = di == 0 ? (irand(2) ? 1 : -1) : irand(3) - 1;
                double s = rnd();
                if (di != 0 && dj != 0) {
                    int ci = di > 0 ? i : i - 1, cj = dj > 0 ? j : j - 1, flip = (ci + cj) % 2;
                    if ((di == dj) != (flip == 0)) dj = 0;  /* not this cell's diagonal: go along x */
                }
                p2 = v + 3 * ((j + dj) * (n + 1) + (i + di));
                aim = cl_v3(p[0] + s * (p2[0] - p[0]), p[1] + s * (p2[1] - p[1]), p[2] + s * (p2[2] - p[2]));
            }
            /* from above, crossing the surface: any direction onto the flat grid; onto the height
             * fields, steeper than every slope (a shallower ray may only graze a peak) */
            o = vadd(aim, vmul(runit(), urand(0.01, 10)));
            if (o.y <= aim.y) o.y = 2 * aim.y - o.y;
            if (o.y == aim.y) o.y += 1;
            if (kind > 0) {  /* slope at least 20 (kind 1's steepest face rises about 8.5) */
                double up = urand(1, 10);
                o = cl_v3(aim.x + urand(-0.05, 0.05) * up, aim.y + up, aim.z + urand(-0.05, 0.05) * up);
            }
            r = mkray(o, vsub(aim, o));
            for (t = 0; t < nt && !any; t++) {
                cl_vec3 a, b, c;
                cl_mesh_triangle(&m, t, &a, &b, &c);
                any = cl_tri_raycast(a, b, c, &r, HUGE_VAL, &h);
            }
            rays++;
            if (!any || !cl_mesh_raycast(&m, &r, HUGE_VAL, &h, &tri)) misses++;
        }
        cl_mesh_free(&m);
        free(v);
        free(idx);
    }
    ENSURE(misses == 0 && rays > 0, "no ray aimed at a grid's shared edge or vertex misses every triangle");
}

/* Data far from 1: huge meshes scale for the tests, tiny ones still work, nothing turns NaN. */
static void test_extremes(void)
{
    static const double scales[] = { 1e-300, 1e-150, 1e150, 1e250, 1e300 };
    size_t k;
    for (k = 0; k < sizeof scales / sizeof *scales; k++) {
        double S = scales[k], *v;
        unsigned *idx;
        size_t nv, nt, tri, i;
        cl_mesh m;
        cl_ray r;
        cl_hit h;
        cl_vec3 q;
        cl_shape s;
        unsigned out[64];
        grid(4, 1, 0, &v, &nv, &idx, &nt);
        for (i = 0; i < 3 * nv; i++) v[i] *= S;
        mkmesh(&m, v, nv, idx, nt);
        r = mkray(cl_v3(1.5 * S, 2 * S, 1.25 * S), cl_v3(0, -1, 0));
        ENSURE(cl_mesh_raycast(&m, &r, HUGE_VAL, &h, &tri) && fabs(h.t - 2 * S) <= 1e-12 * S && h.n.y == 1,
               "ray onto a mesh of huge or tiny coordinates hits at the scaled distance");
        ENSURE(cl_mesh_closest(&m, cl_v3(1.5 * S, 3 * S, 1.25 * S), &q, &tri) && q.y == 0 &&
               fabs(q.x - 1.5 * S) <= 1e-12 * S, "closest point on a mesh of huge or tiny coordinates");
        s.kind = CL_SPHERE; s.u.sphere.c = cl_v3(2 * S, S, 2 * S); s.u.sphere.r = S;
        ENSURE(cl_mesh_query(&m, &s, out, 64) == 8, "sphere touching a huge or tiny grid at a vertex: its 8 triangles");
        s.u.sphere.c = cl_v3(1 * S, S, 2 * S);
        ENSURE(cl_mesh_query(&m, &s, out, 64) == 4, "sphere touching a huge or tiny grid at a vertex: its 4 triangles");
        r = mkray(cl_v3(-DBL_MAX, DBL_MAX, 0), cl_v3(1, -1, 0.5));
        ENSURE(!cl_mesh_raycast(&m, &r, HUGE_VAL, &h, &tri) || (h.t == h.t && h.n.x == h.n.x),
               "a ray from near DBL_MAX gives no NaN");
        ENSURE(cl_mesh_closest(&m, cl_v3(DBL_MAX, -DBL_MAX, DBL_MAX), &q, &tri) && q.x == q.x && q.y == q.y,
               "closest to a point near DBL_MAX gives no NaN");
        cl_mesh_free(&m);
        free(v);
        free(idx);
    }
}

/* Memory: at most 64 bytes per triangle on a 262,144-triangle grid; allocation failures. */
static void test_memory(void)
{
    double *v;
    unsigned *idx;
    size_t nv, nt;
    cl_mesh m;
    int k, fails = 0;
    grid(362, 1, 2, &v, &nv, &idx, &nt);
    mkmesh(&m, v, nv, idx, nt);
    printf("mesh memory: %lu triangles, %lu nodes, %.1f bytes per triangle, depth %d\n", (unsigned long)nt,
           (unsigned long)m.nnodes, (double)cl_mesh_bytes(&m) / (double)nt, m.depth);
    ENSURE(cl_mesh_bytes(&m) <= 64 * nt, "a 262,000-triangle indexed mesh takes at most 64 bytes per triangle");
    ENSURE(live_bytes == (long)cl_mesh_bytes(&m), "cl_mesh_bytes counts every block");
    cl_mesh_free(&m);
    free(v);
    free(idx);
    grid(6, 1, 1, &v, &nv, &idx, &nt);
    for (k = 0; k < 6; k++) {
        int rc;
        fail_after = k;
        rc = cl_mesh_init(&m, nv, nt, 1, talloc, NULL);
        if (rc == CL_OK) {
            memcpy(m.v, v, 3 * nv * sizeof(double));
            memcpy(m.idx, idx, 3 * nt * sizeof(unsigned));
            rc = cl_mesh_build(&m);
        }
        if (rc != CL_OK) fails++;
        cl_mesh_free(&m);
        fail_after = -1;
    }
    ENSURE(fails >= 4 && live_bytes == 0, "allocation failures are reported and leak nothing");
    free(v);
    free(idx);
}

/* The ray walk's leaf-order vertex numbers (lidx) and its two-lane node tests: on grids with
 * integer heights, rays through vertices and edge midpoints, along grid lines (axis-parallel, at
 * vertex heights), vertical and with zero, -0 and tiny direction components, cl_mesh_raycast is
 * the least cl_mesh_rayhit over the triangles (ties to the lowest index) and the same whether the
 * mesh has lidx, lost it to a failed allocation (the walk reads idx) or has no index array. */
static int least_rayhit(const cl_mesh *m, const cl_ray *r, double maxt, double *t, size_t *tri)
{
    size_t i;
    int found = 0;
    for (i = 0; i < m->nt; i++) {
        double x;
        if (cl_mesh_rayhit(m, r, i, maxt, &x) && (!found || x < *t)) { *t = x; *tri = i; found = 1; }
    }
    return found;
}

static void test_raywalk(void)
{
    double *v, *flat;
    unsigned *idx;
    size_t nv, nt, i;
    cl_mesh m, nol, soup;
    int k, q, got = 0, bad = 0, hits = 0;
    grid(12, 1, 1, &v, &nv, &idx, &nt);
    ENSURE(mkmesh(&m, v, nv, idx, nt) == CL_OK && m.lidx != NULL, "an indexed mesh keeps its leaf-order vertex numbers");
    for (k = 0; k < 40 && !got; k++) {  /* a failure at the lidx allocation: built, queryable, no lidx */
        fail_after = k;
        if (mkmesh(&nol, v, nv, idx, nt) == CL_OK && nol.nprim > 0 && nol.lidx == NULL) got = 1;
        else cl_mesh_free(&nol);
        fail_after = -1;
    }
    ENSURE(got && live_bytes == (long)(cl_mesh_bytes(&m) + cl_mesh_bytes(&nol)),
           "a failed lidx allocation leaves a working mesh; cl_mesh_bytes counts lidx");
    flat = (double *)malloc(9 * nt * sizeof(double));
    for (i = 0; i < 3 * nt; i++) memcpy(flat + 3 * i, v + 3 * (size_t)idx[i], 3 * sizeof(double));
    ENSURE(mkmesh(&soup, flat, 3 * nt, NULL, nt) == CL_OK && soup.lidx == NULL, "a mesh without indices has no lidx");
    for (q = 0; q < (quick ? 3000 : 20000); q++) {
        size_t ti = (size_t)irand((int)nt), tri[3] = { 0, 0, 0 }, bt = 0;
        cl_vec3 a, b, c, p, o, d;
        cl_ray r;
        cl_hit h[3];
        double bestt = 0;
        int f[3], bf, j;
        cl_mesh_triangle(&m, ti, &a, &b, &c);
        p = q % 2 ? a : cl_v3(a.x * 0.5 + b.x * 0.5, a.y * 0.5 + b.y * 0.5, a.z * 0.5 + b.z * 0.5);
        switch (q % 6) {
        case 0: o = cl_v3(urand(-2, 14), 6, urand(-2, 14)); d = vsub(p, o); break;
        case 1: o = cl_v3(p.x, 6, p.z); d = cl_v3(0, -1, 0); break;                     /* vertical */
        case 2: o = cl_v3(-3, p.y, p.z); d = cl_v3(1, 0, 0); break;                      /* along a grid line */
        case 3: o = cl_v3(p.x, p.y, 15); d = cl_v3(-0.0, 0, -1); break;
        case 4: o = cl_v3(p.x - 4, p.y + 1e-300, p.z - 4); d = cl_v3(1, -1e-300, 1); break;  /* diagonal, tiny y */
        default: o = cl_v3(urand(-2, 14), urand(-1, 4), urand(-2, 14)); d = rvec(-1, 1);
            for (j = 0; j < 3; j++) if (irand(3) == 0) d = cl_v3(j == 0 ? 0 : d.x, j == 1 ? 0 : d.y, j == 2 ? 0 : d.z);
        }
        if (!cl_ray_make(&r, o, d)) continue;
        f[0] = cl_mesh_raycast(&m, &r, HUGE_VAL, &h[0], &tri[0]);
        f[1] = cl_mesh_raycast(&nol, &r, HUGE_VAL, &h[1], &tri[1]);
        f[2] = cl_mesh_raycast(&soup, &r, HUGE_VAL, &h[2], &tri[2]);
        bf = least_rayhit(&m, &r, HUGE_VAL, &bestt, &bt);
        hits += f[0];
        for (j = 0; j < 3; j++)
            if (f[j] != bf || (bf && (h[j].t != bestt || tri[j] != bt || h[j].n.x != h[0].n.x || h[j].n.y != h[0].n.y ||
                                      h[j].n.z != h[0].n.z))) bad++;
    }
    CHECK(bad == 0 && hits > 0, "raycast with lidx, without it and without indices: the least rayhit", "%d of the rays differ (%d hits)", bad, hits);
    cl_mesh_free(&m);
    cl_mesh_free(&nol);
    cl_mesh_free(&soup);
    ENSURE(live_bytes == 0, "the meshes free every block (lidx included)");
    free(flat);
    free(v);
    free(idx);
}

/* A World's mesh candidate cache (cl_pmkeep_cache: on during a Character's move) is keyed by the
 * mesh's address. A mesh item removed (or updated to another shape) lets its mesh be freed, and a
 * new mesh can then be built at that address: the cache must not hand the old mesh's triangles to
 * the new one (a filter's error once left the cache on after a move, and a stale list read past
 * the new mesh's arrays: review rev13's F1). The World forgets the cache's mesh when a mesh item
 * goes; the cache is left on here, as that error left it. */
static void test_cache_reuse(void)
{
    int pass;
    for (pass = 0; pass < 2; pass++) {
        cl_mesh m;
        cl_world w;
        double *v, quad[12] = { 0, 0, 0, 40, 0, 0, 40, 0, 40, 0, 0, 40 };
        unsigned *idx, qidx[6] = { 0, 1, 2, 0, 2, 3 };
        size_t nv, nt;
        cl_shape s;
        cl_vec3 act;
        int mi, si;
        grid(40, 1.0, 0, &v, &nv, &idx, &nt);
        ENSURE(mkmesh(&m, v, nv, idx, nt) == CL_OK, "cache reuse: the first mesh builds");
        cl_world_init(&w, 0.1, talloc, NULL);
        s.kind = CL_MESH;
        s.u.mesh.m = &m;
        s.u.mesh.c = cl_v3(0, 0, 0);
        s.u.mesh.u[0] = cl_v3(1, 0, 0); s.u.mesh.u[1] = cl_v3(0, 1, 0); s.u.mesh.u[2] = cl_v3(0, 0, 1);
        mi = cl_world_add(&w, &s);
        s.kind = CL_SPHERE;
        s.u.sphere.c = cl_v3(20.3, 0.51, 20.3);
        s.u.sphere.r = 0.5;
        si = cl_world_add(&w, &s);
        cl_pmkeep_cache(&w.mkeep, 1, cl_v3(0, -1, 0), 1.0);
        cl_world_move(&w, si, cl_v3(0.2, -0.05, 0.1), NULL, NULL, 1, &act);
        CHECK(w.mkeep.cm == &m && w.mkeep.cn > 8 && w.mkeep.cn <= CL_PMCACHE,
              "cache reuse: the move filled the cache", "%lu candidates", (unsigned long)w.mkeep.cn);
        if (pass == 0) {
            cl_world_remove(&w, mi);
        } else {
            s.kind = CL_AABB;
            s.u.aabb = mkbox(cl_v3(100, 100, 100), cl_v3(101, 101, 101));
            cl_world_update(&w, mi, &s);
        }
        cl_mesh_free(&m);
        /* the new mesh, two triangles, in the same struct: the same address */
        ENSURE(mkmesh(&m, quad, 4, qidx, 2) == CL_OK, "cache reuse: the second mesh builds");
        s.kind = CL_MESH;
        s.u.mesh.m = &m;
        s.u.mesh.c = cl_v3(0, 0, 0);
        s.u.mesh.u[0] = cl_v3(1, 0, 0); s.u.mesh.u[1] = cl_v3(0, 1, 0); s.u.mesh.u[2] = cl_v3(0, 0, 1);
        if (pass == 0) mi = cl_world_add(&w, &s);
        else cl_world_update(&w, mi, &s);
        cl_world_move(&w, si, cl_v3(0.1, -1, 0), NULL, NULL, 1, &act);
        CHECK(fabs(act.y) < 1e-9 && fabs(act.x - 0.1) < 1e-9,
              "cache reuse: the sphere lands on the new mesh", "%s: made %.17g %.17g %.17g",
              pass ? "update" : "remove", act.x, act.y, act.z);
        cl_pmkeep_cache(&w.mkeep, 0, cl_v3(0, 0, 0), 0);
        cl_world_free(&w);
        cl_mesh_free(&m);
        free(v);
        free(idx);
    }
}

int main(void)
{
    quick = getenv("COLLIDE_QUICK") != NULL;
    test_exact();
    test_findings();
    test_tri_random();
    test_watertight();
    test_extremes();
    test_meshes();
    test_lazy();
    test_vertex_in_box();
    test_memory();
    test_raywalk();
    test_cache_reuse();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
