/* collide core: exact sweeps of one shape moved by d over t in [0, 1] against a static shape.
 * Interiors are open: contact means the interiors start to intersect (toi's rule, including
 * the flat-axis rule for box pairs). Box pairs use the separating-axis test over time: on each
 * of the 15 axes the projections overlap during an open interval of t; the interiors intersect
 * exactly during the intersection of those intervals. A sphere against a box is a point against
 * the box rounded by the radius (three slabs, twelve edge cylinders, eight corner balls, whose
 * open union is the open rounded box); sphere against sphere is a point against the summed
 * sphere. Normals are unit and point out of the static shape toward the mover. */
#include <float.h>
#include <math.h>
#include "world.h"
#include "kinds.h"
#include "vec.h"

static double v3dot(cl_vec3 a, cl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static cl_vec3 v3sub(cl_vec3 a, cl_vec3 b) { return cl_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static cl_vec3 v3cross(cl_vec3 a, cl_vec3 b) {
    return cl_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static double v3get(cl_vec3 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : v.z; }

/* Returns 1 and the open interval (lo, hi) of times at which [a0 + v t, a1 + v t] and [b0, b1]
 * overlap as open intervals (+-inf when v == 0), or 0 when they never do. With flat set, a
 * resting axis where both intervals are the same single point counts as overlapping. */
static int axis_interval(double a0, double a1, double b0, double b1, double v, int flat,
                         double *lo, double *hi) {
    if (v == 0) {
        if ((a0 < b1 && a1 > b0) || (flat && a0 == a1 && b0 == b1 && a0 == b0)) {
            *lo = -HUGE_VAL;
            *hi = HUGE_VAL;
            return 1;
        }
        return 0;
    }
    if (v > 0) { *lo = (b0 - a1) / v; *hi = (b1 - a0) / v; }
    else { *lo = (b1 - a0) / v; *hi = (b0 - a1) / v; }
    return 1;
}

/* Returns the sweep state of the overall open contact interval (lo, hi), with the contact's
 * rank (1 face, 2 edge, 3 corner). */
static cl_sweep finish(double lo, double hi, cl_vec3 n, int rank) {
    cl_sweep s;
    s.rank = rank;
    if (lo < 0 && hi > 0) {
        s.state = CL_TOI_OVERLAPPED; s.t = 0; s.n = cl_v3(0, 0, 0);
    } else if (lo < hi && lo >= 0 && lo < 1) {
        s.state = CL_TOI_TOUCHING; s.t = lo == 0 ? 0.0 : lo; s.n = n;
    } else {
        s.state = CL_TOI_SEPARATED; s.t = 1; s.n = cl_v3(0, 0, 0);
    }
    return s;
}

static cl_sweep separated(void) { return finish(1, 0, cl_v3(0, 0, 0), 0); }

/* Returns the sweep of AABB a moved by d against AABB b (per-axis intervals). */
cl_sweep cl_sweep_aabb_aabb(const cl_aabb *a, cl_vec3 d, const cl_aabb *b) {
    double lo = -HUGE_VAL, hi = HUGE_VAL, l, h, ls[3];
    int i, best = -1, ties = 0;
    cl_vec3 n = cl_v3(0, 0, 0);
    for (i = 0; i < 3; i++) {
        double v = v3get(d, i);
        if (!axis_interval(v3get(a->min, i), v3get(a->max, i), v3get(b->min, i), v3get(b->max, i),
                           v, 1, &l, &h))
            return separated();
        ls[i] = l;
        if (l > lo) { lo = l; best = i; }
        if (h < hi) hi = h;
    }
    if (best >= 0) {
        double s = v3get(d, best) > 0 ? -1.0 : 1.0;
        n = cl_v3(best == 0 ? s : 0, best == 1 ? s : 0, best == 2 ? s : 0);
    }
    for (i = 0; i < 3; i++) ties += ls[i] == lo;
    return finish(lo, hi, n, ties);
}

/* Returns the sweep of box a moved by d against box b by the 15-axis SAT over time. */
cl_sweep cl_sweep_obb_obb(const cl_obb *a, cl_vec3 d, const cl_obb *b) {
    cl_vec3 axes[15], n = cl_v3(0, 0, 0);
    double lo = -HUGE_VAL, hi = HUGE_VAL, l, h, ls[15];
    int na = 0, i, j, best = -1, rank = 0;
    for (i = 0; i < 3; i++) axes[na++] = a->u[i];
    for (i = 0; i < 3; i++) axes[na++] = b->u[i];
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            cl_vec3 L = v3cross(a->u[i], b->u[j]);
            if (v3dot(L, L) > 1e-12) axes[na++] = L;   /* parallel edges: no axis */
        }
    for (i = 0; i < na; i++) {
        cl_vec3 L = axes[i];
        double ca = v3dot(a->c, L), cb = v3dot(b->c, L), v = v3dot(d, L);
        double ra = a->h.x * fabs(v3dot(a->u[0], L)) + a->h.y * fabs(v3dot(a->u[1], L)) +
                    a->h.z * fabs(v3dot(a->u[2], L));
        double rb = b->h.x * fabs(v3dot(b->u[0], L)) + b->h.y * fabs(v3dot(b->u[1], L)) +
                    b->h.z * fabs(v3dot(b->u[2], L));
        if (!axis_interval(ca - ra, ca + ra, cb - rb, cb + rb, v, 1, &l, &h)) return separated();
        ls[i] = l;
        if (l > lo) { lo = l; best = i; }
        if (h < hi) hi = h;
    }
    if (best >= 0) {
        cl_vec3 L = axes[best];
        double len = sqrt(v3dot(L, L)), s = v3dot(d, L) > 0 ? -1.0 : 1.0;
        n = cl_v3(s * L.x / len, s * L.y / len, s * L.z / len);
        /* the rank: the distinct directions among the axes reaching lo (world-axis boxes
         * repeat directions among the 15 axes) */
        for (i = 0; i < na && rank < 3; i++) {
            if (ls[i] != lo) continue;
            for (j = 0; j < i; j++) {
                cl_vec3 c = v3cross(axes[i], axes[j]);
                if (ls[j] == lo && v3dot(c, c) <= 1e-12 * v3dot(axes[i], axes[i]) * v3dot(axes[j], axes[j]))
                    break;
            }
            if (j == i) rank++;
        }
    }
    return finish(lo, hi, n, rank);
}

/* Folds a piece's open interval (t0, t1) into the running first entry / overlap flag. */
static void piece(double t0, double t1, double *first, int *inside) {
    if (t0 < 0 && t1 > 0) *inside = 1;
    else if (t0 >= 0 && t0 < t1 && t0 < *first) *first = t0;
}

/* Sets *n to v / |v| and returns 1, or returns 0 when v is zero (or NaN). |v| is taken the plain
 * way when it neither underflows nor overflows (then bit for bit the plain formula), else after
 * scaling v by its largest component: a tiny remaining displacement late in a move, or a
 * contact offset at coordinates near 1e154 and beyond, squared to 0 or inf and gave a NaN or
 * zero normal (found by fuzz_world: a NaN end position for a sphere among boxes of size 1e28). */
static int unit_dir(double x, double y, double z, cl_vec3 *n) {
    double len = sqrt(x * x + y * y + z * z), m;
    if (len > 1e-150 && len < 1e150) {
        *n = cl_v3(x / len, y / len, z / len);
        return 1;
    }
    m = fabs(x);
    if (fabs(y) > m) m = fabs(y);
    if (fabs(z) > m) m = fabs(z);
    if (!(m > 0)) return 0;
    if (m > DBL_MAX) {          /* infinite components: their direction */
        x = fabs(x) > DBL_MAX ? (x > 0 ? 1.0 : -1.0) : 0.0;
        y = fabs(y) > DBL_MAX ? (y > 0 ? 1.0 : -1.0) : 0.0;
        z = fabs(z) > DBL_MAX ? (z > 0 ? 1.0 : -1.0) : 0.0;
    } else {
        x /= m; y /= m; z /= m;
    }
    len = sqrt(x * x + y * y + z * z);
    *n = cl_v3(x / len, y / len, z / len);
    return 1;
}

/* The exponent e by which a sweep scales its data (2^e, exactly: a power of two changes no
 * rounding, so t and the normal stay) when their largest magnitude k lies beyond 2^+-200, where
 * the quadratics' products, fourth powers of the data, overflow or underflow; 0 when k is within,
 * zero or not finite (nothing to scale: at ordinary scales nothing changes). */
static int rescale_exp(double k) {
    return (k > 0x1p200 && k <= DBL_MAX) || (k < 0x1p-200 && k > 0) ? -cl_exp2of(k) : 0;
}

/* Returns the sweep of point p moved by v against the box [lo, hi] rounded by r >= 0, all in
 * the box's frame; the normal is in that frame. */
static cl_sweep sweep_point_rbox(const double p[3], const double v[3], const double lo[3],
                                 const double hi[3], double r) {
    double first = HUGE_VAL, l, h, t0, t1;
    int inside = 0, i, k, s1, s2, s3;
    if (r == 0) {
        double L = -HUGE_VAL, H = HUGE_VAL, ls[3];
        int best = -1, ties = 0;
        cl_vec3 n = cl_v3(0, 0, 0);
        for (i = 0; i < 3; i++) {
            if (!axis_interval(p[i], p[i], lo[i], hi[i], v[i], 1, &l, &h)) return separated();
            ls[i] = l;
            if (l > L) { L = l; best = i; }
            if (h < H) H = h;
        }
        if (best >= 0) {
            double s = v[best] > 0 ? -1.0 : 1.0;
            n = cl_v3(best == 0 ? s : 0, best == 1 ? s : 0, best == 2 ? s : 0);
        }
        for (i = 0; i < 3; i++) ties += ls[i] == L;
        return finish(L, H, n, ties);
    }
    {   /* data beyond 2^+-200 scaled (rescale_exp: a sphere overlapping a box at its start was
         * seen 'touching' at t > 0 at 2^-300, and an overlap at 2^265 got a normal) */
        double km = r;
        int e;
        for (i = 0; i < 3; i++) {
            if (fabs(p[i]) > km) km = fabs(p[i]);
            if (fabs(v[i]) > km) km = fabs(v[i]);
            if (fabs(lo[i]) > km) km = fabs(lo[i]);
            if (fabs(hi[i]) > km) km = fabs(hi[i]);
        }
        if ((e = rescale_exp(km)) != 0) {
            double ps[3], vs[3], los[3], his[3];
            for (i = 0; i < 3; i++) {
                ps[i] = cl_scale2(p[i], e); vs[i] = cl_scale2(v[i], e);
                los[i] = cl_scale2(lo[i], e); his[i] = cl_scale2(hi[i], e);
            }
            return sweep_point_rbox(ps, vs, los, his, cl_scale2(r, e));
        }
    }
    /* slabs: the box grown by r along one axis */
    for (k = 0; k < 3; k++) {
        double L = -HUGE_VAL, H = HUGE_VAL;
        int ok = 1;
        for (i = 0; i < 3 && ok; i++) {
            double b0 = lo[i] - (i == k ? r : 0), b1 = hi[i] + (i == k ? r : 0);
            if (!axis_interval(p[i], p[i], b0, b1, v[i], 0, &l, &h)) ok = 0;
            else { if (l > L) L = l; if (h < H) H = h; }
        }
        if (ok && L < H) piece(L, H, &first, &inside);
    }
    /* edge cylinders along axis k */
    for (k = 0; k < 3; k++) {
        int j = (k + 1) % 3, m = (k + 2) % 3;
        if (!axis_interval(p[k], p[k], lo[k], hi[k], v[k], 0, &l, &h) || !(l < h)) continue;
        for (s1 = 0; s1 < 2; s1++)
            for (s2 = 0; s2 < 2; s2++) {
                double mv[3], wv[3];
                mv[0] = p[j] - (s1 ? hi[j] : lo[j]); mv[1] = p[m] - (s2 ? hi[m] : lo[m]); mv[2] = 0;
                wv[0] = v[j]; wv[1] = v[m]; wv[2] = 0;
                if (!cl_quad_interval(mv, wv, r * r, &t0, &t1)) continue;
                t0 = t0 > l ? t0 : l;
                t1 = t1 < h ? t1 : h;
                if (t0 < t1) piece(t0, t1, &first, &inside);
            }
    }
    /* corner balls */
    for (s1 = 0; s1 < 2; s1++)
        for (s2 = 0; s2 < 2; s2++)
            for (s3 = 0; s3 < 2; s3++) {
                double mv[3];
                mv[0] = p[0] - (s1 ? hi[0] : lo[0]); mv[1] = p[1] - (s2 ? hi[1] : lo[1]);
                mv[2] = p[2] - (s3 ? hi[2] : lo[2]);
                if (cl_quad_interval(mv, v, r * r, &t0, &t1)) piece(t0, t1, &first, &inside);
            }
    if (inside) return finish(-1, 1, cl_v3(0, 0, 0), 0);
    if (!(first < 1)) return separated();
    {
        /* normal: from the closest box point to the contact point */
        double q[3];
        cl_vec3 n = cl_v3(0, 0, 0);
        for (i = 0; i < 3; i++) {
            double x = p[i] + first * v[i];
            q[i] = x - (x < lo[i] ? lo[i] : x > hi[i] ? hi[i] : x);
        }
        /* the contact point on the box itself: against the motion (v is not zero here) */
        if (!unit_dir(q[0], q[1], q[2], &n)) (void)unit_dir(-v[0], -v[1], -v[2], &n);
        /* the rank: the axes the contact point lies beyond (a sphere on the corner four tiles
         * share touches each one's face plane only: 1, as it does the merged floor) */
        k = (q[0] != 0) + (q[1] != 0) + (q[2] != 0);
        return finish(first, HUGE_VAL, n, k > 1 ? k : 1);
    }
}

/* Returns the sweep of sphere s moved by d against box a. */
cl_sweep cl_sweep_sphere_aabb(const cl_sphere *s, cl_vec3 d, const cl_aabb *a) {
    double p[3], v[3], lo[3], hi[3];
    p[0] = s->c.x; p[1] = s->c.y; p[2] = s->c.z;
    v[0] = d.x; v[1] = d.y; v[2] = d.z;
    lo[0] = a->min.x; lo[1] = a->min.y; lo[2] = a->min.z;
    hi[0] = a->max.x; hi[1] = a->max.y; hi[2] = a->max.z;
    return sweep_point_rbox(p, v, lo, hi, s->r);
}

/* Returns the sweep of sphere s moved by d against oriented box o (in its frame, then back). */
cl_sweep cl_sweep_sphere_obb(const cl_sphere *s, cl_vec3 d, const cl_obb *o) {
    double p[3], v[3], lo[3], hi[3];
    cl_sweep r;
    cl_vec3 m = v3sub(s->c, o->c);
    int i;
    for (i = 0; i < 3; i++) {
        p[i] = v3dot(m, o->u[i]);
        v[i] = v3dot(d, o->u[i]);
    }
    lo[0] = -o->h.x; lo[1] = -o->h.y; lo[2] = -o->h.z;
    hi[0] = o->h.x; hi[1] = o->h.y; hi[2] = o->h.z;
    r = sweep_point_rbox(p, v, lo, hi, s->r);
    if (r.state == CL_TOI_TOUCHING) {
        cl_vec3 n = r.n;
        r.n = cl_v3(n.x * o->u[0].x + n.y * o->u[1].x + n.z * o->u[2].x,
                    n.x * o->u[0].y + n.y * o->u[1].y + n.z * o->u[2].y,
                    n.x * o->u[0].z + n.y * o->u[1].z + n.z * o->u[2].z);
    }
    return r;
}

/* Returns the sweep of sphere a moved by d against sphere b. */
cl_sweep cl_sweep_sphere_sphere(const cl_sphere *a, cl_vec3 d, const cl_sphere *b) {
    cl_vec3 m = v3sub(a->c, b->c), q, n;
    double rr = a->r + b->r, t0, t1, mv[3], wv[3], k;
    int e;
    /* data beyond 2^+-200 scaled (rescale_exp: a sweep at 1e80 or 1e-80 missed) */
    if (!cl_vfinite(m) || !isfinite(rr)) {      /* half the problem: the same t */
        m = cl_halfsub(a->c, b->c);
        rr = 0.5 * a->r + 0.5 * b->r;
        d = cl_v3(0.5 * d.x, 0.5 * d.y, 0.5 * d.z);
    }
    k = cl_maxabs3(m.x, m.y, m.z);
    if (cl_maxabs3(d.x, d.y, d.z) > k) k = cl_maxabs3(d.x, d.y, d.z);
    if (rr > k) k = rr;
    if ((e = rescale_exp(k)) != 0) {
        m = cl_v3(cl_scale2(m.x, e), cl_scale2(m.y, e), cl_scale2(m.z, e));
        d = cl_v3(cl_scale2(d.x, e), cl_scale2(d.y, e), cl_scale2(d.z, e));
        rr = cl_scale2(rr, e);
    }
    mv[0] = m.x; mv[1] = m.y; mv[2] = m.z;
    wv[0] = d.x; wv[1] = d.y; wv[2] = d.z;
    if (!cl_quad_interval(mv, wv, rr * rr, &t0, &t1)) return separated();
    if (t0 < 0 && t1 > 0) return finish(-1, 1, cl_v3(0, 0, 0), 0);
    if (!(t0 >= 0 && t0 < 1)) return separated();
    q = cl_v3(m.x + t0 * d.x, m.y + t0 * d.y, m.z + t0 * d.z);
    n = cl_v3(0, 0, 0);
    if (!unit_dir(q.x, q.y, q.z, &n)) (void)unit_dir(-d.x, -d.y, -d.z, &n);
    return finish(t0, t1, n, 1);
}

/* The normal negated (+ 0.0 turns -0 into 0); state, t and rank as they are. */
cl_sweep cl_sweep_flip(cl_sweep r) {
    r.n = cl_v3(-r.n.x + 0.0, -r.n.y + 0.0, -r.n.z + 0.0);
    return r;
}

/* The face axes of s among which unit n has a component (a box's: as sweep_point_rbox ranks a
 * contact by the axes its point lies beyond), 1 for a sphere; at least 1. */
static int shallow_axes(const cl_shape *s, cl_vec3 n) {
    int k = 0, i;
    if (s->kind == CL_AABB) k = (fabs(n.x) > 1e-12) + (fabs(n.y) > 1e-12) + (fabs(n.z) > 1e-12);
    else if (s->kind == CL_OBB)
        for (i = 0; i < 3; i++) k += fabs(v3dot(n, s->u.obb.u[i])) > 1e-12;
    return k > 1 ? k : 1;
}

/* The largest |coordinate| of the pair's boxes, mover a's moved by d (inf when that overflows). */
static double pair_mag(const cl_shape *a, cl_vec3 d, const cl_shape *b) {
    cl_aabb ba = cl_shape_aabb(a), bb = cl_shape_aabb(b);
    double ma = cl_maxabs3(cl_maxabs3(ba.min.x + d.x, ba.min.y + d.y, ba.min.z + d.z),
                           cl_maxabs3(ba.max.x + d.x, ba.max.y + d.y, ba.max.z + d.z), 0);
    double mb = cl_maxabs3(cl_maxabs3(bb.min.x, bb.min.y, bb.min.z), cl_maxabs3(bb.max.x, bb.max.y, bb.max.z), 0);
    return ma > mb ? ma : mb;
}

/* s as an OBB (an AABB as the box with the world axes). */
static cl_obb as_obb(const cl_shape *s) { return s->kind == CL_OBB ? s->u.obb : cl_obb_from_aabb(&s->u.aabb); }

/* Sets *n to v / |v| after scaling v by a power of two to magnitude about 1, so the same v at any
 * power-of-two scale gets the same bits (unit_dir rounds differently beyond 1e+-150); 0 when v
 * is zero or not finite. */
static int unit_scaled(double x, double y, double z, cl_vec3 *n) {
    double k = cl_maxabs3(x, y, z), len;
    int e;
    if (!(k > 0 && k <= DBL_MAX)) return 0;
    e = -cl_exp2of(k);
    x = cl_scale2(x, e); y = cl_scale2(y, e); z = cl_scale2(z, e);
    len = sqrt(x * x + y * y + z * z);
    *n = cl_v3(x / len + 0.0, y / len + 0.0, z / len + 0.0);
    return 1;
}

/* The signed separation of sphere (c, r) from box o (> 0 apart, < 0 the overlap's depth), the
 * unit normal out of the box at the nearest point; in the box's frame, as point_box. */
static double sep_sphere_box(cl_vec3 c, double r, const cl_obb *o, cl_vec3 *n) {
    cl_vec3 m = v3sub(c, o->c);
    double p[3], h[3], q[3], len, best = HUGE_VAL;
    int i, bi = 0, bs = 1;
    h[0] = o->h.x; h[1] = o->h.y; h[2] = o->h.z;
    for (i = 0; i < 3; i++) {
        p[i] = v3dot(m, o->u[i]);
        q[i] = p[i] - (p[i] < -h[i] ? -h[i] : p[i] > h[i] ? h[i] : p[i]);
    }
    if (q[0] != 0 || q[1] != 0 || q[2] != 0) {
        cl_vec3 l;
        len = cl_len(q[0], q[1], q[2]);
        (void)unit_scaled(q[0], q[1], q[2], &l);
        *n = cl_v3(l.x * o->u[0].x + l.y * o->u[1].x + l.z * o->u[2].x,
                   l.x * o->u[0].y + l.y * o->u[1].y + l.z * o->u[2].y,
                   l.x * o->u[0].z + l.y * o->u[1].z + l.z * o->u[2].z);
        return len - r;
    }
    for (i = 0; i < 3; i++) {   /* centre inside: out through the nearest face */
        if (r == 0 && h[i] == 0) continue;  /* a point in a flat box: no way out there (point_box) */
        if (h[i] - p[i] < best) { best = h[i] - p[i]; bi = i; bs = 1; }
        if (p[i] + h[i] < best) { best = p[i] + h[i]; bi = i; bs = -1; }
    }
    *n = cl_v3(bs * o->u[bi].x, bs * o->u[bi].y, bs * o->u[bi].z);
    return -(r + best);     /* -inf when no axis is a way out: inside */
}

/* The signed separation of boxes a and b over the separating axes (the largest; > 0 apart, < 0
 * the overlap's depth; -inf when no axis is a way out) and its unit axis pointing from b toward a.
 * Cross axes of near-parallel edges are left out, as cl_sweep_obb_obb leaves them out. */
static double sep_box_box(const cl_obb *a, const cl_obb *b, cl_vec3 *n) {
    cl_vec3 axes[15], dc = v3sub(a->c, b->c);
    double best = -HUGE_VAL;
    int na = 0, i, j;
    for (i = 0; i < 3; i++) axes[na++] = a->u[i];
    for (i = 0; i < 3; i++) axes[na++] = b->u[i];
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            cl_vec3 L = v3cross(a->u[i], b->u[j]);
            if (v3dot(L, L) > 1e-12 && unit_scaled(L.x, L.y, L.z, &L)) axes[na++] = L;
        }
    *n = cl_v3(0, 1, 0);
    for (i = 0; i < na; i++) {
        cl_vec3 L = axes[i];
        double dl = v3dot(dc, L);
        double ra = a->h.x * fabs(v3dot(a->u[0], L)) + a->h.y * fabs(v3dot(a->u[1], L)) + a->h.z * fabs(v3dot(a->u[2], L));
        double rb = b->h.x * fabs(v3dot(b->u[0], L)) + b->h.y * fabs(v3dot(b->u[1], L)) + b->h.z * fabs(v3dot(b->u[2], L));
        double sp = fabs(dl) - (ra + rb);
        if (ra == 0 && rb == 0 && dl == 0) continue;    /* flat, in one plane: no way out (obb_sat) */
        if (sp > best) { best = sp; *n = dl < 0 ? cl_v3(-L.x, -L.y, -L.z) : L; }
    }
    return best;
}

/* The signed separation of a from b (AABB, OBB, Sphere; > 0 apart, < 0 overlapping that deep) and
 * the unit normal out of b toward a at the nearest features: the separating axis that separates
 * most for boxes, the nearest point's offset for spheres. */
static double pair_sep(const cl_shape *a, const cl_shape *b, cl_vec3 *n) {
    if (a->kind == CL_SPHERE && b->kind == CL_SPHERE) {
        cl_vec3 m = v3sub(a->u.sphere.c, b->u.sphere.c);
        if (!unit_scaled(m.x, m.y, m.z, n)) *n = cl_v3(1, 0, 0);
        return cl_len(m.x, m.y, m.z) - (a->u.sphere.r + b->u.sphere.r);
    }
    if (a->kind == CL_SPHERE) {
        cl_obb o = as_obb(b);
        return sep_sphere_box(a->u.sphere.c, a->u.sphere.r, &o, n);
    }
    if (b->kind == CL_SPHERE) {
        cl_obb o = as_obb(a);
        double sp = sep_sphere_box(b->u.sphere.c, b->u.sphere.r, &o, n);
        *n = cl_v3(-n->x + 0.0, -n->y + 0.0, -n->z + 0.0);
        return sp;
    }
    {
        cl_obb oa = as_obb(a), ob = as_obb(b);
        return sep_box_box(&oa, &ob, n);
    }
}

/* s scaled by 2^-8 about the origin (exact unless subnormal). */
static cl_shape scaled_down(const cl_shape *s) {
    cl_shape t = *s;
    const double k = 0x1p-8;
    if (t.kind == CL_AABB) {
        t.u.aabb.min = cl_v3(t.u.aabb.min.x * k, t.u.aabb.min.y * k, t.u.aabb.min.z * k);
        t.u.aabb.max = cl_v3(t.u.aabb.max.x * k, t.u.aabb.max.y * k, t.u.aabb.max.z * k);
    } else if (t.kind == CL_OBB) {
        t.u.obb.c = cl_v3(t.u.obb.c.x * k, t.u.obb.c.y * k, t.u.obb.c.z * k);
        t.u.obb.h = cl_v3(t.u.obb.h.x * k, t.u.obb.h.y * k, t.u.obb.h.z * k);
    } else {
        t.u.sphere.c = cl_v3(t.u.sphere.c.x * k, t.u.sphere.c.y * k, t.u.sphere.c.z * k);
        t.u.sphere.r *= k;
    }
    return t;
}

/* 1 for the pairs whose sweep rounds and gets the rules below: no capsule (capsule.c has its
 * own, decide_at and accept), not two box-like shapes (AABB pairs and world-axis boxes are exact:
 * the World's inline box sweep must stay bit for bit sweep_aabb). Meshes never come here. */
static int rounded_pair(const cl_shape *a, const cl_shape *b) {
    cl_aabb x;
    if (a->kind == CL_CAPSULE || b->kind == CL_CAPSULE) return 0;
    return !(cl_shape_boxlike(a, &x) && cl_shape_boxlike(b, &x));
}

/* How far a motion may close on a contact and still only graze it: 2^-44 of the pair's largest
 * coordinate with the mover at the end of d, a quarter of the allowance shallow_start gives that
 * end (so a grazing motion never ends inside what it grazed); 0 when that overflows. */
static double graze_tol(const cl_shape *a, cl_vec3 d, const cl_shape *b) {
    double m = pair_mag(a, d, b);
    return m < DBL_MAX ? m * 0x1p-44 : 0;
}

/* 1 when a moved by d (d not zero) overlaps b deeper than half the allowance shallow_start gives
 * that end (2^-43 of the pair's largest coordinate there) and deeper than d0 (the start's depth,
 * 0 when apart) plus 2^-47 of d's largest component (worked on at 2^-8 beyond 2^1000, as
 * shallow_start): a contact the rules below would drop (a graze, a hair contact) is then kept.
 * So dropped contacts take the mover past half the allowance only by the rounding of the motion
 * (a mover placed deeper than that, whose slides close on the face by their rounding, is not met
 * again at t = 0 every leg: 16-leg stalls), and grazes do not add up to the allowance: six grazing
 * slides along an OBB, each sinking a quarter of it, made the fifth end inside and world:move
 * backed it off to nothing (review rev14's F2); a graze after a hair contact did the same (a box's
 * corner can go 0.87 of the allowance into a face that its shrunk copy misses, rev14's F1); and
 * with a bound of the start's depth plus 2^-48 of the coordinates, slides closing by 1/100 of the
 * allowance each sank to it, the 101st making nothing (rev15's F1). */
static int deep_end(const cl_shape *a, cl_vec3 d, const cl_shape *b, double d0) {
    cl_shape e = *a, sb = *b;
    cl_vec3 n;
    double m, lim, k = cl_maxabs3(d.x, d.y, d.z);
    if (d.x == 0 && d.y == 0 && d.z == 0) return 0;
    cl_shape_translate(&e, d);
    m = pair_mag(&e, cl_v3(0, 0, 0), b);
    if (!(m < DBL_MAX)) return 0;
    if (m > 0x1p1000) {
        e = scaled_down(&e);
        sb = scaled_down(b);
        m *= 0x1p-8;
        d0 *= 0x1p-8;
        k *= 0x1p-8;
    }
    lim = m * 0x1p-43;
    if (d0 + k * 0x1p-47 > lim) lim = d0 + k * 0x1p-47;
    return pair_sep(&e, &sb, &n) < -lim;
}

/* A start overlap within rounding of touching, for a rounded_pair. r is the pair's sweep of a
 * moved by d against b, OVERLAPPED. An overlap no deeper than 2^-42 of the pair's largest
 * coordinate (a sphere put on an oriented ramp by a formula, a box resting on a slab: the
 * rounding of where they were placed; the allowance mesh triangles and capsules have) is resting
 * contact, not "inside": inside, a mover passes through what it starts in, so such a sphere or box
 * fell into the ramp with no collision (review rev11's P1). The contact is at t = 0 with the
 * normal of the pair's nearest features (the separating axis that separates most, the nearest
 * point's offset for a sphere: the pair's own geometry, not a probe along d, whose depth a motion
 * at a small angle to the face never made measurable, review rev12's F2) when d closes on it by
 * more than graze_tol; else nothing (resting on it, grazing it or leaving: the pair is convex, so
 * a motion that does not close on the nearest features never goes in deeper than that). Data
 * beyond 2^1000 is worked on at 2^-8 scale (exact), so the rule holds at every scale. */
static cl_sweep shallow_start(const cl_shape *a, cl_vec3 d, const cl_shape *b, cl_sweep r) {
    cl_vec3 n;
    double m = pair_mag(a, cl_v3(0, 0, 0), b), sp, c;
    int sc = m > 0x1p1000;
    if (!(m < DBL_MAX)) return r;
    if (sc) {
        cl_shape sa = scaled_down(a), sb = scaled_down(b);
        sp = pair_sep(&sa, &sb, &n);
        m *= 0x1p-8;
    } else {
        sp = pair_sep(a, b, &n);
    }
    if (sp < -m * 0x1p-42) return r;
    c = -v3dot(d, n);
    /* (deep_end takes the start's depth at the true scale) */
    if (!(c > graze_tol(a, d, b)) && (!(c > 0) || !deep_end(a, d, b, sc ? -sp * 0x1p8 : -sp)))
        return separated();
    r.state = CL_TOI_TOUCHING;
    r.t = 0;
    r.n = n;
    {   /* the rank by the box's axes (a sphere's are none): the lower of two boxes' */
        int ka = shallow_axes(a, n), kb = shallow_axes(b, n);
        r.rank = a->kind == CL_SPHERE ? kb : b->kind == CL_SPHERE ? ka : ka < kb ? ka : kb;
    }
    return r;
}

/* s shrunk by e on every side (an axis, or a radius, no larger than e kept: flat and point-like
 * shapes as they are); s is an AABB, OBB or Sphere. */
static cl_shape shrunk(const cl_shape *s, double e) {
    cl_shape t = *s;
    if (t.kind == CL_AABB) {
        cl_aabb *b = &t.u.aabb;
        if (b->max.x - b->min.x > 2 * e) { b->min.x += e; b->max.x -= e; }
        if (b->max.y - b->min.y > 2 * e) { b->min.y += e; b->max.y -= e; }
        if (b->max.z - b->min.z > 2 * e) { b->min.z += e; b->max.z -= e; }
    } else if (t.kind == CL_OBB) {
        cl_vec3 *h = &t.u.obb.h;
        if (h->x > e) h->x -= e;
        if (h->y > e) h->y -= e;
        if (h->z > e) h->z -= e;
    } else if (t.u.sphere.r > e) {
        t.u.sphere.r -= e;
    }
    return t;
}

/* 1 when the contact r (TOUCHING) of a rounded_pair is a hair contact: a and b each shrunk by
 * 2^-44 of the pair's largest coordinate (at the start and at the end of d, the lesser) meet
 * nothing along d. The path then never goes much deeper into b than that (a box's corner up to
 * sqrt(3) times, along a diagonal), which is resting on b (as the triangle sweeps' shrunk hull and
 * sphere): a box or sphere resting a hair inside one tile of a tiled floor (placed there: rounding)
 * met the next tile's side at the seam, 1e-13 below its top, and stopped (review rev12's F6), where
 * the same floor as one box let it slide. Both shapes shrink so that the sweep of b by -d against
 * a answers alike (shrinking the mover alone made 344 of 20,000 such mirrored pairs disagree,
 * review rev14's F3). cl_sweep_shapes keeps the contact when the end is deeper than deep_end
 * allows. */
static int hair_contact(const cl_shape *a, cl_vec3 d, const cl_shape *b) {
    double m0 = pair_mag(a, cl_v3(0, 0, 0), b), m1 = pair_mag(a, d, b), e;
    cl_shape sa, sb;
    cl_sweep s;
    m0 = m0 < m1 ? m0 : m1;
    if (!(m0 < DBL_MAX)) return 0;
    e = m0 * 0x1p-43;
    if (!(e > 0)) return 0;
    sa = shrunk(a, e * 0.5);
    sb = shrunk(b, e * 0.5);
    s = cl_pair_sweep[sa.kind][sb.kind](&sa.u, d, &sb.u);
    return s.state == CL_TOI_SEPARATED;
}

/* Through the pair table (kinds.h). */
cl_sweep cl_sweep_shapes(const cl_shape *a, cl_vec3 d, const cl_shape *b) {
    /* a mesh item is static: the binding never moves one; a mesh moved against a shape is that
     * shape moved back (two meshes never meet in a sweep: SEPARATED) */
    if (a->kind == CL_MESH || b->kind == CL_MESH) {
        cl_sweep r;
        if (a->kind != CL_MESH) return cl_pmesh_sweep(&b->u.mesh, a, d, NULL);
        if (b->kind != CL_MESH) return cl_sweep_flip(cl_pmesh_sweep(&a->u.mesh, b, cl_v3(-d.x, -d.y, -d.z), NULL));
        r.state = CL_TOI_SEPARATED; r.t = 1; r.n = cl_v3(0, 0, 0); r.rank = 0;
        return r;
    }
    {
        cl_sweep r = cl_pair_sweep[a->kind][b->kind](&a->u, d, &b->u);
        if (r.state == CL_TOI_SEPARATED || !rounded_pair(a, b)) return r;
        if (r.state == CL_TOI_OVERLAPPED) return shallow_start(a, d, b, r);
        /* a contact the motion closes on by no more than graze_tol is a graze of the convex pair:
         * none (capsule.c's rule, in absolute terms). A sphere or box slid along an oriented box's
         * face keeps a motion a hair into it (the slide's rounding): met again at t = 0 every leg,
         * it stopped dead (review rev11's P3: 33 of 2,000 sphere moves along OBB ramps, a Character
         * on one made nothing on 21 of 4,000). The bound is absolute, a quarter of the end's
         * allowance: one relative to |d| let a long move end inside (review rev12's F1). */
        if (deep_end(a, d, b, 0)) return r;  /* (first: the usual contact, a fall, ends deep) */
        if (!(-v3dot(d, r.n) > graze_tol(a, d, b)) || hair_contact(a, d, b)) return separated();
        return r;
    }
}

int cl_interiors_overlap(const cl_shape *a, const cl_shape *b) {
    return cl_sweep_shapes(a, cl_v3(0, 0, 0), b).state == CL_TOI_OVERLAPPED;
}
