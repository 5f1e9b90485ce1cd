/* collide core: rays and axis-aligned boxes (seeds 000, 002, 004). */
#include "vec.h"

/// 1 and a ray with unit direction (scaled by its largest component first); 0 if d is zero or not finite.
int cl_ray_make(cl_ray *out, cl_vec3 o, cl_vec3 d)
{
    double m = cl_maxabs3(d.x, d.y, d.z), len;
    if (!(m > 0) || !isfinite(m)) return 0;
    d = cl_v3(d.x / m, d.y / m, d.z / m);
    len = sqrt(cl_dot(d, d));
    out->o = o;
    out->d = cl_v3(d.x / len, d.y / len, d.z / len);
    return 1;
}

/// o + t*d; components with d_i == 0 stay o_i exactly (no inf*0 for huge t).
cl_vec3 cl_ray_at(const cl_ray *r, double t)
{
    return cl_v3(r->d.x == 0 ? r->o.x : r->o.x + t * r->d.x,
                 r->d.y == 0 ? r->o.y : r->o.y + t * r->d.y,
                 r->d.z == 0 ? r->o.z : r->o.z + t * r->d.z);
}

/// 1 and t >= 0 where the ray meets the plane (0 if the origin is on it); 0 if parallel or behind.
int cl_ray_plane(const cl_ray *r, cl_vec3 n, double d, double *t)
{
    cl_vec3 ns, o;
    double ds, s, v, q;
    int pk;
    if (!cl_plane_scale(n, d, cl_maxabs3(r->o.x, r->o.y, r->o.z), 0, &ns, &ds, &pk)) {
        if (d != 0) return 0;  /* zero normal: every point or no point is on it */
        *t = 0;
        return 1;
    }
    /* s = (n.o + d) * 2^K, its largest term near 1: no overflow, tiny coordinates keep their sign */
    o = cl_vscale2(r->o, pk);
    s = ns.x * o.x + ns.y * o.y + ns.z * o.z + ds;
    if (s == 0) { *t = 0; return 1; }
    v = cl_dot(ns, r->d);
    if (v == 0) return 0;
    q = -s / v;
    if (!(q >= 0)) return 0;
    if (isfinite(q)) {
        *t = cl_scale2(q, -pk) + 0.0;  /* t = q / 2^pk; +inf only when the true distance exceeds DBL_MAX */
    } else {                           /* v is tiny: divide a scaled-down s */
        *t = cl_scale2((-s * 0x1p-200) / v, 200 - pk) + 0.0;
    }
    return 1;
}

/// 1 if min <= p <= max on every axis.
int cl_aabb_contains(const cl_aabb *b, cl_vec3 p)
{
    /* & rather than &&: six compares cost less than the mispredicted early exits of random points */
    return (p.x >= b->min.x) & (p.x <= b->max.x) & (p.y >= b->min.y) & (p.y <= b->max.y) &
           (p.z >= b->min.z) & (p.z <= b->max.z);
}

/// 1 if the closed boxes share a point.
int cl_aabb_overlaps_aabb(const cl_aabb *a, const cl_aabb *b)
{
    /* branch-free, as cl_aabb_contains */
    return (a->min.x <= b->max.x) & (b->min.x <= a->max.x) & (a->min.y <= b->max.y) &
           (b->min.y <= a->max.y) & (a->min.z <= b->max.z) & (b->min.z <= a->max.z);
}

/* v clamped to [lo, hi] (lo <= hi): the same value as v < lo ? lo : (v > hi ? hi : v), written as a
 * min then a max so that it compiles without branches (whether a point is outside a face is random
 * in practice, and mispredicted branches cost more than the whole clamp). */
static double clampd(double v, double lo, double hi)
{
    double t = hi < v ? hi : v;
    return lo > t ? lo : t;
}

/// p clamped to the box.
cl_vec3 cl_aabb_closest(const cl_aabb *b, cl_vec3 p)
{
    return cl_v3(clampd(p.x, b->min.x, b->max.x), clampd(p.y, b->min.y, b->max.y),
                 clampd(p.z, b->min.z, b->max.z));
}

/// 1 / -1 / 0 by the plane's value at the box's two extreme vertices along n.
int cl_aabb_plane(const cl_aabb *b, cl_vec3 n, double d)
{
    cl_vec3 ns, lo, hi;
    double ds, slo, shi, mp, m2;
    int pk;
    /* Fast path, same answers: when every input is 0 or of moderate magnitude, no product, sum or
     * scaled value below can overflow or become subnormal, so the power-of-two scaling of the
     * general path multiplies every intermediate result by exactly 2^K and changes no sign; the
     * plain expressions, evaluated in the same order, decide the same way (a zero n gives the sign
     * of d, as below). Branch-free: n_i times the extreme coordinate is the smaller (for lo) or
     * larger (for hi) of the two products, since rounding is monotonic (only the sign of a zero
     * product can differ, which no comparison sees); and slo <= shi. */
    if (cl_moderate3(n) && cl_moderate(d) && cl_moderate3(b->min) && cl_moderate3(b->max)) {
        double px0 = n.x * b->min.x, px1 = n.x * b->max.x, py0 = n.y * b->min.y, py1 = n.y * b->max.y;
        double pz0 = n.z * b->min.z, pz1 = n.z * b->max.z;
        slo = (px0 < px1 ? px0 : px1) + (py0 < py1 ? py0 : py1) + (pz0 < pz1 ? pz0 : pz1) + d;
        shi = (px0 > px1 ? px0 : px1) + (py0 > py1 ? py0 : py1) + (pz0 > pz1 ? pz0 : pz1) + d;
        return (slo > 0) - (shi < 0);
    }
    mp = cl_maxabs3(b->min.x, b->min.y, b->min.z);
    m2 = cl_maxabs3(b->max.x, b->max.y, b->max.z);
    if (m2 > mp) mp = m2;
    if (!cl_plane_scale(n, d, mp, 1016, &ns, &ds, &pk)) return cl_sign(d);
    lo.x = ns.x >= 0 ? b->min.x : b->max.x;  hi.x = ns.x >= 0 ? b->max.x : b->min.x;
    lo.y = ns.y >= 0 ? b->min.y : b->max.y;  hi.y = ns.y >= 0 ? b->max.y : b->min.y;
    lo.z = ns.z >= 0 ? b->min.z : b->max.z;  hi.z = ns.z >= 0 ? b->max.z : b->min.z;
    lo = cl_vscale2(lo, pk);
    hi = cl_vscale2(hi, pk);
    slo = ns.x * lo.x + ns.y * lo.y + ns.z * lo.z + ds;
    shi = ns.x * hi.x + ns.y * hi.y + ns.z * hi.z + ds;
    if (slo > 0) return 1;
    if (shi < 0) return -1;
    return 0;
}

/// Componentwise min of the mins and max of the maxes.
cl_aabb cl_aabb_merge(const cl_aabb *a, const cl_aabb *b)
{
    cl_aabb m;
    m.min = cl_v3(a->min.x < b->min.x ? a->min.x : b->min.x, a->min.y < b->min.y ? a->min.y : b->min.y,
                  a->min.z < b->min.z ? a->min.z : b->min.z);
    m.max = cl_v3(a->max.x > b->max.x ? a->max.x : b->max.x, a->max.y > b->max.y ? a->max.y : b->max.y,
                  a->max.z > b->max.z ? a->max.z : b->max.z);
    return m;
}

/* Seed 004 fixed: its tMaxX uses max.y (we use max.x) and says "tMin less than tMax: no
 * collision" (reversed: entry > exit is the miss); parallel axes are tested explicitly. */

/// 1 and the entry hit (t = 0, n = 0 when the origin is in the box) with t <= maxt; 0 on a miss.
int cl_aabb_raycast(const cl_aabb *b, const cl_ray *r, double maxt, cl_hit *out)
{
    double lo[3], hi[3], o[3], d[3], t0, t1;
    int ax;
    if (cl_aabb_contains(b, r->o)) {
        out->t = 0;
        out->n = cl_v3(0, 0, 0);
        return 1;
    }
    lo[0] = b->min.x; lo[1] = b->min.y; lo[2] = b->min.z;
    hi[0] = b->max.x; hi[1] = b->max.y; hi[2] = b->max.z;
    o[0] = r->o.x; o[1] = r->o.y; o[2] = r->o.z;
    d[0] = r->d.x; d[1] = r->d.y; d[2] = r->d.z;
    /* origin outside: the line's inside interval lies wholly ahead (t0 > 0) or behind */
    if (!cl_slabs(lo, hi, o, d, &t0, &t1, &ax) || ax < 0 || !(t0 >= 0) || !(t0 <= maxt)) return 0;
    out->t = t0;
    out->n = cl_axisvec(ax, d[ax] > 0 ? -1.0 : 1.0);
    return 1;
}

/// 1 with entry/exit distances of the whole line through the box; 0 if it misses or exits before 0.
int cl_aabb_clip(const cl_aabb *b, const cl_ray *r, double *tenter, double *texit)
{
    double lo[3], hi[3], o[3], d[3], t0, t1;
    int ax;
    lo[0] = b->min.x; lo[1] = b->min.y; lo[2] = b->min.z;
    hi[0] = b->max.x; hi[1] = b->max.y; hi[2] = b->max.z;
    o[0] = r->o.x; o[1] = r->o.y; o[2] = r->o.z;
    d[0] = r->d.x; d[1] = r->d.y; d[2] = r->d.z;
    if (!cl_slabs(lo, hi, o, d, &t0, &t1, &ax) || t1 < 0) return 0;
    *tenter = t0 + 0.0;
    *texit = t1 + 0.0;
    return 1;
}

/* One axis of seed 000's clipping: the planes -x <= -lo and x <= hi as fractions num / den, the
 * entering one raising *lower (strictly, so the lowest axis wins ties), the leaving one lowering
 * *upper. 0 if the segment misses: parallel and outside, or the interval became empty (lower only
 * rises and upper only falls, so testing once per axis decides as testing after every plane). */
static CL_INLINE int seg_axis(double p, double lo, double hi, double d, int i, double *lower, double *upper,
                              int *ax)
{
    double f0, f1;
    if (d == 0) return !(p - lo < 0) && !(hi - p < 0);
    f0 = (p - lo) / -d;
    f1 = (hi - p) / d;
    if (d > 0) {  /* plane 0 is entered, plane 1 left */
        if (f0 > *lower) { *lower = f0; *ax = i; }
        if (f1 < *upper) *upper = f1;
    } else {
        if (f0 < *upper) *upper = f0;
        if (f1 > *lower) { *lower = f1; *ax = i; }
    }
    return !(*upper < *lower);
}

/// 1 and seed 000's entry fraction in [0, maxf] with the entered face's normal; 0 on a miss.
int cl_aabb_segment(const cl_aabb *b, cl_vec3 p1, cl_vec3 p2, double maxf, cl_hit *out)
{
    double lower = 0, upper = maxf, s = 1.0;
    cl_vec3 d = cl_sub(p2, p1);
    int ax = -1;
    if (!cl_vfinite(d)) {  /* p2 - p1 overflows: the fractions are scale-free, so halve everything */
        d = cl_halfsub(p2, p1);
        s = 0.5;
    }
    if (s == 1.0) {
        if (!seg_axis(p1.x, b->min.x, b->max.x, d.x, 0, &lower, &upper, &ax) ||
            !seg_axis(p1.y, b->min.y, b->max.y, d.y, 1, &lower, &upper, &ax) ||
            !seg_axis(p1.z, b->min.z, b->max.z, d.z, 2, &lower, &upper, &ax))
            return 0;
    } else if (!seg_axis(p1.x * 0.5, b->min.x * 0.5, b->max.x * 0.5, d.x, 0, &lower, &upper, &ax) ||
               !seg_axis(p1.y * 0.5, b->min.y * 0.5, b->max.y * 0.5, d.y, 1, &lower, &upper, &ax) ||
               !seg_axis(p1.z * 0.5, b->min.z * 0.5, b->max.z * 0.5, d.z, 2, &lower, &upper, &ax)) {
        return 0;
    }
    out->t = lower;
    out->n = ax < 0 ? cl_v3(0, 0, 0) : cl_axisvec(ax, cl_comp(d, ax) > 0 ? -1.0 : 1.0);
    return 1;
}
