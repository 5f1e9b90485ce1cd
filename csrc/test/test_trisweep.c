/* Plain-C test of trisweep.c (part of `make check-core`): the box and sphere sweeps against a
 * triangle (box, sphere, capsule), checked by brute force along the motion with tri.c's inclusive overlap tests (no
 * contact just before the reported time, contact just after it, none at all for a miss); the
 * pushes out of a triangle (the push clears, and no direction among 300 clears with less);
 * triangle/triangle overlap against edge/triangle distances; the capsule sweep that leaves out
 * contacts after a given t against the full one. Random cases biased to integer
 * coordinates (touching, seams, parallel edges). COLLIDE_QUICK runs a quarter of them.
 * Last line: "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "cl.h"
#define CHECK_SEED 0x9E3779B97F4A7C15ULL
#include "check.h"

/* A coordinate in [-a, a]: an integer half the time. */
static double coord(double a)
{
    double x = (2 * rnd() - 1) * a;
    return rnd() < 0.5 ? floor(x + 0.5) : x;
}
static cl_vec3 rvec(double a) { return cl_v3(coord(a), coord(a), coord(a)); }

/* A random rotation's axes (orthonormal to rounding), or the world axes. */
static void raxes(cl_vec3 u[3])
{
    double a = rnd() * 6.283185307179586, b = rnd() * 6.283185307179586, c = rnd() * 6.283185307179586;
    double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
    if (rnd() < 0.4) {
        u[0] = cl_v3(1, 0, 0); u[1] = cl_v3(0, 1, 0); u[2] = cl_v3(0, 0, 1);
        return;
    }
    u[0] = cl_v3(ca * cb, sa * cb, -sb);
    u[1] = cl_v3(ca * sb * sc - sa * cc, sa * sb * sc + ca * cc, cb * sc);
    u[2] = cl_v3(ca * sb * cc + sa * sc, sa * sb * cc - ca * sc, cb * cc);
}

/* The mover: an OBB (a box), a sphere (sphere 1) or a capsule (sphere 2). */
typedef struct mover { int sphere; cl_obb o; cl_sphere s; cl_capsule c; } mover;

/* The mover moved by d and grown by g (shrunk for g < 0). */
static mover at(const mover *m, cl_vec3 d, double g)
{
    mover r = *m;
    if (m->sphere == 2) {
        r.c.a = cl_v3(m->c.a.x + d.x, m->c.a.y + d.y, m->c.a.z + d.z);
        r.c.b = cl_v3(m->c.b.x + d.x, m->c.b.y + d.y, m->c.b.z + d.z);
        r.c.r = fmax(m->c.r + g, 0);
    } else if (m->sphere) {
        r.s.c = cl_v3(m->s.c.x + d.x, m->s.c.y + d.y, m->s.c.z + d.z);
        r.s.r = fmax(m->s.r + g, 0);
    } else {
        r.o.c = cl_v3(m->o.c.x + d.x, m->o.c.y + d.y, m->o.c.z + d.z);
        r.o.h = cl_v3(fmax(m->o.h.x + g, 0), fmax(m->o.h.y + g, 0), fmax(m->o.h.z + g, 0));
    }
    return r;
}

/* Inclusive overlap of the mover with triangle t (tri.c's tests). */
static int touches(const mover *m, const cl_vec3 *t)
{
    if (m->sphere == 2) return cl_tri_overlaps_capsule(t[0], t[1], t[2], &m->c);
    return m->sphere ? cl_tri_overlaps_sphere(t[0], t[1], t[2], &m->s) : cl_tri_overlaps_obb(t[0], t[1], t[2], &m->o);
}

/* Sets p[0..7] to the corners of box o. */
static void corners(const cl_obb *o, cl_vec3 *p)
{
    int i;
    for (i = 0; i < 8; i++) {
        double x = i & 1 ? o->h.x : -o->h.x, y = i & 2 ? o->h.y : -o->h.y, z = i & 4 ? o->h.z : -o->h.z;
        p[i] = cl_v3(o->c.x + x * o->u[0].x + y * o->u[1].x + z * o->u[2].x,
                     o->c.y + x * o->u[0].y + y * o->u[1].y + z * o->u[2].y,
                     o->c.z + x * o->u[0].z + y * o->u[1].z + z * o->u[2].z);
    }
}

/* The sweep under test. */
static cl_sweep sweep(const mover *m, cl_vec3 d, const cl_vec3 *t)
{
    cl_vec3 p[8];
    if (m->sphere == 2) return cl_sweep_capsule_tri(&m->c, d, t[0], t[1], t[2]);
    if (m->sphere) return cl_sweep_sphere_tri(&m->s, d, t[0], t[1], t[2]);
    corners(&m->o, p);
    return cl_sweep_hull_tri(p, 8, m->o.u, 3, m->o.u, 3, d, t[0], t[1], t[2]);
}

/* The push under test. */
static int push(const mover *m, const cl_vec3 *t, double *depth, cl_vec3 *n)
{
    cl_vec3 p[8];
    if (m->sphere == 2) return cl_penetration_capsule_tri(&m->c, t[0], t[1], t[2], depth, n);
    if (m->sphere) return cl_penetration_sphere_tri(&m->s, t[0], t[1], t[2], depth, n);
    corners(&m->o, p);
    return cl_penetration_hull_tri(p, 8, m->o.u, 3, m->o.u, 3, t[0], t[1], t[2], depth, n);
}

static cl_vec3 scaled(cl_vec3 d, double k) { return cl_v3(d.x * k, d.y * k, d.z * k); }

/* A random mover near the origin. */
static mover rmover(void)
{
    mover m;
    m.sphere = (int)(rnd() * 3);
    if (m.sphere == 2) {
        m.c.a = rvec(3);
        m.c.b = rnd() < 0.3 ? cl_v3(m.c.a.x + 2, m.c.a.y, m.c.a.z) : rvec(3);
        m.c.r = 0.25 + floor(rnd() * 6) / 4;
    } else if (m.sphere) {
        m.s.c = rvec(3);
        m.s.r = 0.25 + floor(rnd() * 6) / 4;
    } else {
        m.o.c = rvec(3);
        m.o.h = cl_v3(0.25 + floor(rnd() * 6) / 4, 0.25 + floor(rnd() * 6) / 4, 0.25 + floor(rnd() * 6) / 4);
        raxes(m.o.u);
    }
    return m;
}

/* Sweeps against brute force along the motion. */
static void test_sweeps(void)
{
    int k, n = iters(20000), touching = 0, separated = 0, overlapped = 0;
    const double G = 1e-7;       /* growth and shrink that make a contact sure either way */
    for (k = 0; k < n; k++) {
        mover m = rmover();
        cl_vec3 t[3], d;
        cl_sweep s;
        int i;
        t[0] = rvec(3); t[1] = rvec(3); t[2] = rvec(3);
        if (rnd() < 0.3) t[1].y = t[2].y = t[0].y;      /* a floor or ceiling */
        d = rvec(8);
        if (cl_tri_degenerate(t[0], t[1], t[2])) continue;
        s = sweep(&m, d, t);
        if (s.state == CL_TOI_OVERLAPPED) {
            mover g = at(&m, cl_v3(0, 0, 0), G);
            overlapped++;
            ENSURE(touches(&g, t), "overlapped: touching at the start");
        } else if (s.state == CL_TOI_TOUCHING) {
            mover before = at(&m, scaled(d, s.t - 1e-6), -G);
            int after = 0;
            touching++;
            ENSURE(s.t >= 0 && s.t < 1, "touching: t in [0, 1)");
            ENSURE(s.t < 1e-6 || !touches(&before, t), "touching: no contact just before t");
            for (i = 1; i <= 64 && !after; i++) {
                mover a = at(&m, scaled(d, fmin(1, s.t + 1e-4 * i / 64)), G);
                after = touches(&a, t);
            }
            ENSURE(after, "touching: contact just after t");
            ENSURE(s.n.x * d.x + s.n.y * d.y + s.n.z * d.z < 0, "touching: the normal opposes the motion");
            ENSURE(fabs(s.n.x * s.n.x + s.n.y * s.n.y + s.n.z * s.n.z - 1) < 1e-12, "touching: unit normal");
        } else {
            int hit = 0;
            separated++;
            for (i = 0; i <= 400 && !hit; i++) {
                mover a = at(&m, scaled(d, i / 400.0), -G);
                hit = touches(&a, t);
            }
            ENSURE(!hit, "separated: no contact along the motion");
        }
    }
    printf("sweeps: %d touching, %d separated, %d overlapped\n", touching, separated, overlapped);
    ENSURE(touching > n / 10 && separated > n / 10 && overlapped > n / 50, "sweeps: every outcome is tested");
}

/* A point sliding on a surface: a mover resting on a tiled floor (or ramp) slides along it
 * across the tiles' edges without a contact, and moving into it meets the face. */
static void test_resting(void)
{
    int k, n = iters(4000);
    for (k = 0; k < n; k++) {
        double slope = rnd() < 0.5 ? 0 : floor(rnd() * 4) / 4, ny = 1 / sqrt(1 + slope * slope);
        cl_vec3 t[3], up = cl_v3(-slope * ny, ny, 0), along = cl_v3(ny, slope * ny, 0);
        mover m;
        cl_sweep s;
        double x0 = floor(rnd() * 4), z0 = floor(rnd() * 4), r, lift;
        t[0] = cl_v3(x0, x0 * slope, z0);
        t[1] = cl_v3(x0 + 1, (x0 + 1) * slope, z0);
        t[2] = cl_v3(x0 + 1, (x0 + 1) * slope, z0 + 1);
        m.sphere = rnd() < 0.5;
        r = 0.5;
        /* resting: touching, or a hair above (as after a move's leg) */
        lift = rnd() < 0.5 ? 0 : ldexp(8, -40);
        if (m.sphere) {
            m.s.r = r;
            m.s.c = cl_v3(x0 + rnd() * 2 - 0.5 + up.x * (r + lift), x0 * slope + up.y * (r + lift), z0 + rnd() * 2 - 0.5);
            m.s.c.y += (m.s.c.x - up.x * (r + lift) - x0) * slope;
        } else {
            if (slope != 0) continue;       /* an axis box on a slope rests on an edge: not here */
            m.o.h = cl_v3(0.5, 0.5, 0.5);
            m.o.u[0] = cl_v3(1, 0, 0); m.o.u[1] = cl_v3(0, 1, 0); m.o.u[2] = cl_v3(0, 0, 1);
            m.o.c = cl_v3(x0 + rnd() * 2 - 0.5, 0.5 + lift, z0 + rnd() * 2 - 0.5);
        }
        s = sweep(&m, scaled(along, 3), t);
        ENSURE(s.state == CL_TOI_SEPARATED, "resting: sliding along the surface meets nothing");
        s = sweep(&m, cl_v3(0, 0, 3), t);
        ENSURE(s.state == CL_TOI_SEPARATED, "resting: sliding sideways meets nothing");
    }
}

/* Pushes: the push clears the triangle, and no direction clears with less. */
static void test_pushes(void)
{
    int k, n = iters(3000), found = 0;
    for (k = 0; k < n; k++) {
        mover m = rmover();
        cl_vec3 t[3], nn;
        double depth;
        int i, ok = 1, crossing = 0;
        t[0] = rvec(2); t[1] = rvec(2); t[2] = rvec(2);
        if (cl_tri_degenerate(t[0], t[1], t[2])) continue;
        if (!push(&m, t, &depth, &nn)) {
            mover g = at(&m, cl_v3(0, 0, 0), -1e-7);
            ENSURE(!touches(&g, t), "no push: the open shape misses the triangle");
            continue;
        }
        found++;
        if (m.sphere == 2) {
            cl_vec3 a, b;
            crossing = cl_tri_segment(t[0], t[1], t[2], m.c.a, m.c.b, &a, &b) == 0;
        }
        {
            mover out = at(&m, scaled(nn, depth + 1e-7), -1e-7), in = at(&m, scaled(nn, depth * (1 - 1e-6) - 1e-7), 1e-7);
            ENSURE(!touches(&out, t), "push: moved by depth along n, clear");
            ENSURE(depth == 0 || crossing || touches(&in, t), "push: moved by less, still in");
        }
        if (crossing) continue;     /* a crossing capsule goes out along the normal: not the shortest */
        for (i = 0; i < 300 && ok; i++) {
            /* a random direction: the shortest clearing move along it is at least depth */
            cl_vec3 v = cl_v3(rnd() * 2 - 1, rnd() * 2 - 1, rnd() * 2 - 1);
            double l = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
            mover a;
            if (l < 1e-3) continue;
            v = scaled(v, 1 / l);
            a = at(&m, scaled(v, depth * (1 - 1e-6) - 1e-7), 1e-7);
            ok = touches(&a, t);
        }
        ENSURE(ok, "push: no direction clears with less");
    }
    ENSURE(found > n / 10, "pushes: enough overlapping cases");
}

/* Triangle/triangle overlap against the distances between each edge and the other triangle. */
static void test_tritri(void)
{
    int k, n = iters(20000), yes = 0, no = 0;
    for (k = 0; k < n; k++) {
        cl_vec3 p[3], q[3], a, b;
        double dmin = HUGE_VAL;
        int i, r;
        for (i = 0; i < 3; i++) { p[i] = rvec(2); q[i] = rvec(2); }
        if (rnd() < 0.2) for (i = 0; i < 3; i++) q[i].y = p[0].y = p[1].y = p[2].y;   /* coplanar */
        if (cl_tri_degenerate(p[0], p[1], p[2]) || cl_tri_degenerate(q[0], q[1], q[2])) {
            ENSURE(!cl_tri_overlaps_tri(p, q), "tri/tri: degenerate never overlaps");
            continue;
        }
        for (i = 0; i < 3; i++) {
            double d1 = cl_tri_segment(q[0], q[1], q[2], p[i], p[(i + 1) % 3], &a, &b);
            double d2 = cl_tri_segment(p[0], p[1], p[2], q[i], q[(i + 1) % 3], &a, &b);
            dmin = fmin(dmin, fmin(d1, d2));
        }
        r = cl_tri_overlaps_tri(p, q);
        if (dmin > 1e-12) { no++; ENSURE(!r, "tri/tri: apart by more than rounding"); }
        if (dmin == 0) { yes++; ENSURE(r, "tri/tri: an edge meets the other triangle"); }
        ENSURE(cl_tri_overlaps_tri(q, p) == r, "tri/tri: symmetric");
    }
    ENSURE(yes > n / 20 && no > n / 20, "tri/tri: both outcomes tested");
}

/* 1 when the two sweeps are the same answer, to the bit. */
static int same_sweep(cl_sweep a, cl_sweep b)
{
    return a.state == b.state && a.t == b.t && a.n.x == b.n.x && a.n.y == b.n.y && a.n.z == b.n.z && a.rank == b.rank;
}

/* cl_sweep_capsule_tri_until against cl_sweep_capsule_tri (150,000 cases): the same answer, or
 * SEPARATED for a contact after tmax (never one at or before it), with tmax just below, at and
 * above the contact's t and random; capsules resting on (2^-40 of the coordinates off) or near a
 * face, an edge or a vertex, or anywhere, moving into, along or away from it by lengths from 2^-45
 * to 2^5 of the capsule's, at scales 2^-30 to 2^30 and offsets to 2^20. */
static void test_until(void)
{
    int i, n = iters(150000), skipped = 0, kept = 0, cleared = 0, started = 0;
    for (i = 0; i < n; i++) {
        double sc = ldexp(1, (int)(rnd() * 61) - 30), off = rnd() < 0.5 ? 0 : ldexp(rnd(), (int)(rnd() * 21)), tm[6];
        cl_vec3 t[3], o = cl_v3(coord(off), coord(off), coord(off)), nu, p, d, ax;
        cl_capsule cp;
        cl_sweep full, part;
        int k, j;
        for (k = 0; k < 3; k++) t[k] = rvec(2);
        if (rnd() < 0.3) t[1].y = t[2].y = t[0].y;
        if (cl_tri_degenerate(t[0], t[1], t[2])) continue;
        nu = vcross(vsub(t[1], t[0]), vsub(t[2], t[0]));
        nu = vmul(nu, 1 / sqrt(dot(nu, nu)));
        if (rnd() < 0.5) nu = vmul(nu, -1);
        cp.r = 0.25 + floor(rnd() * 6) / 4;
        /* the point the capsule's end rests near: inside the face, on an edge or at a vertex */
        {
            double u = rnd(), v = rnd() * (1 - u), w;
            j = (int)(rnd() * 3);
            if (rnd() < 0.2) { u = j == 0; v = j == 1; }
            else if (rnd() < 0.25) v = 1 - u;
            w = 1 - u - v;
            p = vadd(vadd(vmul(t[0], w), vmul(t[1], u)), vmul(t[2], v));
        }
        ax = rnd() < 0.5 ? nu : vmul(rvec(1), 1);
        if (dot(ax, nu) < 0) ax = vmul(ax, -1);
        if (rnd() < 0.7) {
            double gap = rnd() < 0.5 ? cp.r * (1 + ldexp(rnd(), -40 + (int)(rnd() * 30))) : cp.r + rnd();
            cp.a = vadd(p, vmul(nu, gap));
        } else {
            cp.a = rvec(3);
        }
        cp.b = vadd(cp.a, rnd() < 0.2 ? cl_v3(0, 0, 0) : ax);
        d = rvec(1);
        if (rnd() < 0.5) d = vsub(d, vmul(nu, dot(d, nu) + (rnd() < 0.5 ? 0 : rnd() * 0.1)));
        d = vmul(d, ldexp(1, -(int)(rnd() * 50) + 5));
        for (k = 0; k < 3; k++) t[k] = vadd(vmul(t[k], sc), o);
        cp.a = vadd(vmul(cp.a, sc), o); cp.b = vadd(vmul(cp.b, sc), o); cp.r *= sc;
        d = vmul(d, sc);
        full = cl_sweep_capsule_tri(&cp, d, t[0], t[1], t[2]);
        {
            /* the clearance (cl_sweep_capsule_tri_clear): the same sweep, and never above the
             * distance between the triangle and the quad of the segment at its start and end
             * (the ten segment/triangle distances), to that distance's rounding */
            double clear, dist = HUGE_VAL, m = 0;
            cl_vec3 q[4], x, y;
            part = cl_sweep_capsule_tri_clear(&cp, d, t[0], t[1], t[2], HUGE_VAL, &clear);
            CHECK(same_sweep(part, full), "capsule/triangle sweep with clearance: the same sweep", "state %d/%d",
                  (int)full.state, (int)part.state);
            if (clear > 0) {
                q[0] = cp.a; q[1] = cp.b; q[2] = vadd(cp.b, d); q[3] = vadd(cp.a, d);
                for (k = 0; k < 4; k++) {
                    dist = fmin(dist, sqrt(cl_tri_segment(t[0], t[1], t[2], q[k], q[(k + 1) % 4], &x, &y)));
                    m = fmax(m, fmax(fabs(q[k].x), fmax(fabs(q[k].y), fabs(q[k].z))));
                }
                for (k = 0; k < 3; k++) {
                    dist = fmin(dist, sqrt(cl_tri_segment(q[0], q[1], q[2], t[k], t[(k + 1) % 3], &x, &y)));
                    dist = fmin(dist, sqrt(cl_tri_segment(q[0], q[2], q[3], t[k], t[(k + 1) % 3], &x, &y)));
                    m = fmax(m, fmax(fabs(t[k].x), fmax(fabs(t[k].y), fabs(t[k].z))));
                }
                cleared++;
                CHECK(full.state == CL_TOI_SEPARATED && clear <= dist + m * 0x1p-46,
                      "capsule/triangle sweep: a clearance above the swept quad's distance", "clear %.17g dist %.17g",
                      clear, dist);
            }
        }
        {
            /* the mesh sweeps' path (cl_sweep_capsule_tri_mv: one cl_capmv made for all the
             * triangles of a sweep): the same sweep and clearance as cl_sweep_capsule_tri_clear,
             * for this triangle and for a second one with the same cl_capmv, and its start
             * clearance never above the distance between the triangle and the segment at the
             * start, to that distance's rounding */
            cl_capmv mv;
            cl_vec3 t2[3], x, y;
            int pass;
            cl_capmv_make(&mv, &cp, d);
            for (k = 0; k < 3; k++) t2[k] = vadd(t[(k + 1) % 3], vmul(nu, sc * 0x1p-6));
            for (pass = 0; pass < 2; pass++) {
                const cl_vec3 *tt = pass ? t2 : t;
                double c1 = -1, c2 = -1, c0 = -1, m0 = 0, tx = rnd() < 0.5 ? HUGE_VAL : rnd();
                cl_sweep ref, got;
                if (cl_tri_degenerate(tt[0], tt[1], tt[2])) continue;
                ref = cl_sweep_capsule_tri_clear(&cp, d, tt[0], tt[1], tt[2], tx, &c1);
                got = cl_sweep_capsule_tri_mv(&mv, tt[0], tt[1], tt[2], tx, &c2, &c0);
                CHECK(same_sweep(ref, got) && c1 == c2, "capsule/triangle sweep of a reused cl_capmv: the same sweep",
                      "state %d/%d clear %.17g/%.17g", (int)ref.state, (int)got.state, c1, c2);
                if (c0 > 0) {
                    for (k = 0; k < 3; k++) m0 = fmax(m0, fmax(fabs(tt[k].x), fmax(fabs(tt[k].y), fabs(tt[k].z))));
                    m0 = fmax(m0, fmax(fmax(fabs(cp.a.x), fabs(cp.a.y)), fmax(fabs(cp.a.z), fabs(cp.b.x))));
                    m0 = fmax(m0, fmax(fabs(cp.b.y), fabs(cp.b.z)));
                    started++;
                    CHECK(c0 <= sqrt(cl_tri_segment(tt[0], tt[1], tt[2], cp.a, cp.b, &x, &y)) + m0 * 0x1p-46,
                          "capsule/triangle sweep: a start clearance above the segment's distance", "clear0 %.17g",
                          c0);
                }
            }
        }
        tm[0] = rnd(); tm[1] = full.t; tm[2] = full.t * (1 - 0x1p-30); tm[3] = full.t * (1 + 0x1p-30);
        tm[4] = full.t * 0.5; tm[5] = full.t - 0x1p-20;
        for (k = 0; k < 6; k++) {
            part = cl_sweep_capsule_tri_until(&cp, d, t[0], t[1], t[2], tm[k]);
            if (same_sweep(part, full)) { kept++; continue; }
            skipped++;
            CHECK(part.state == CL_TOI_SEPARATED && full.state == CL_TOI_TOUCHING && full.t > tm[k],
                  "capsule/triangle sweep until tmax: a contact at or before tmax left out",
                  "t %.17g tmax %.17g state %d/%d", full.t, tm[k], (int)full.state, (int)part.state);
        }
    }
    ENSURE(skipped > n / 50 && kept > n, "sweep until tmax: both outcomes tested");
    ENSURE(cleared > n / 10, "sweep clearance: tested");
    ENSURE(started > n / 10, "sweep start clearance: tested");
}

int main(void)
{
    quick = getenv("COLLIDE_QUICK") != NULL;
    test_sweeps();
    test_resting();
    test_pushes();
    test_tritri();
    test_until();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
