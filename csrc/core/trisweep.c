/* collide core: a convex hull (a box) or a sphere moved against a triangle, the push out of a
 * triangle, and triangle/triangle overlap: what the World needs of a mesh item's triangles
 * (meshworld.c). The hull tests are separating-axis tests on the complete set of axes (the
 * triangle's normal, the hull's face normals, the cross products of the hull's edges with the
 * triangle's), so the sweep is exact up to rounding: the moving hull meets the triangle exactly
 * when its projection meets the triangle's on every axis at once. Coordinates up to 2^200 (the
 * products of dot products stay finite), as tri.c. */
#include <math.h>
#include <string.h>
#include "vec.h"

/* fmax and fmin without the library call (same values: NaN gives the other one; the callers never
 * tell -0 from +0); ldexp by a constant is written as the product by that power of two (one
 * rounding either way, so the same value). */
static inline double maxd(double a, double b) { return (a > b || b != b) ? a : b; }
static inline double mind(double a, double b) { return (a < b || b != b) ? a : b; }

/* Entry times closer than this are one contact, decided for the triangle's face (as meshworld.c's
 * ties between triangles). */
#define TIE_T 0x1p-30

/* Most axes a hull/triangle test uses: the normal, 3 faces, 3 x 3 edge pairs. */
#define MAXAX 13

/* Fills ax with the separating axes of the hull (faces fa, edges ed) and triangle abc, the
 * triangle's normal first, then the faces, then the edge pairs (zero cross products left out:
 * parallel edges, which the face axes decide); returns their number, 0 for a degenerate
 * triangle. *nface is the number of face axes (normal and hull faces) at the start. */
static int axes_of(const cl_vec3 *fa, int nf, const cl_vec3 *ed, int ne, cl_vec3 a, cl_vec3 b, cl_vec3 c,
                   cl_vec3 *ax, int *nface)
{
    cl_vec3 e[3];
    int i, j, k = 0;
    ax[k] = cl_cross(cl_sub(b, a), cl_sub(c, a));
    if (ax[k].x == 0 && ax[k].y == 0 && ax[k].z == 0) return 0;
    k++;
    for (i = 0; i < nf; i++) ax[k++] = fa[i];
    *nface = k;
    e[0] = cl_sub(b, a); e[1] = cl_sub(c, b); e[2] = cl_sub(a, c);
    for (i = 0; i < ne; i++)
        for (j = 0; j < 3; j++) {
            cl_vec3 x = cl_cross(ed[i], e[j]);
            if (x.x != 0 || x.y != 0 || x.z != 0) ax[k++] = x;
        }
    return k;
}

/* The projection interval [*lo, *hi] of the n points p on axis l. */
static void proj(const cl_vec3 *p, int n, cl_vec3 l, double *lo, double *hi)
{
    int i;
    double mn = cl_dot(p[0], l), mx = mn;
    for (i = 1; i < n; i++) {
        double v = cl_dot(p[i], l);
        if (v < mn) mn = v;
        if (v > mx) mx = v;
    }
    *lo = mn;
    *hi = mx;
}

/* cl_len, its common case inline (the capsule/triangle sweep's normals and edge normals: a call
 * each otherwise): the same expression in range, cl_len itself outside it. */
static CL_INLINE double ts_len(double x, double y, double z)
{
    double k = cl_maxabs3(x, y, z);
    if (k >= 0x1p-480 && k <= 0x1p480) return sqrt(x * x + y * y + z * z);
    return cl_len(x, y, z);
}

/* Returns v divided by its length (v non-zero), -0 turned into 0. */
static cl_vec3 unit(cl_vec3 v)
{
    double l = ts_len(v.x, v.y, v.z);
    return cl_v3(v.x / l + 0.0, v.y / l + 0.0, v.z / l + 0.0);
}

/* The rounding allowance of a contact between projections x0..x1 and y0..y1: 2^-42 of their
 * largest magnitude (the leg end's gap, cl_world_move, is 2^-40 of the mover's). */
static double allowance(double x0, double x1, double y0, double y1)
{
    return maxd(maxd(fabs(x0), fabs(x1)), maxd(fabs(y0), fabs(y1))) * 0x1p-42;
}

/* The public tests below work on the data as given: their products of up to four coordinates
 * underflow below about 2^-256 and overflow above 2^256 (a capsule of size 2^-300 crossed a
 * triangle it misses by 2^-302, two triangles of size 2^342 overlapped). Data whose largest
 * |value| mx lies outside [2^-200, 2^200] is first scaled by the power of two 2^k of cl_range_k
 * (vec.h: the least scaling into range; scaling into [0.5, 1) instead flushed a 2^-900 gap of
 * triangles of size 2^300 and made them overlap). The answers of the data scaled by 2^e are then
 * its answers (t, normals, ranks; a depth times 2^e). k == 0: the data is worked on as given. */

/* The largest |value| of the triangle, the n points p, the vector d and r (a radius, or 0). */
static double tri_mx(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_vec3 *p, int n, cl_vec3 d, double r)
{
    double m = maxd(maxd(cl_maxabs3(a.x, a.y, a.z), cl_maxabs3(b.x, b.y, b.z)),
                    maxd(cl_maxabs3(c.x, c.y, c.z), maxd(cl_maxabs3(d.x, d.y, d.z), fabs(r))));
    int i;
    for (i = 0; i < n; i++) m = maxd(m, cl_maxabs3(p[i].x, p[i].y, p[i].z));
    return m;
}

cl_sweep cl_sweep_hull_tri(const cl_vec3 *p, int np, const cl_vec3 *fa, int nf, const cl_vec3 *ed, int ne,
                           cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    cl_vec3 ax[MAXAX], t[3];
    cl_sweep s;
    double lo = -HUGE_VAL, hi = HUGE_VAL, bv = 0, ln = -HUGE_VAL, vn = 0;
    int nface = 0, n, i, best = -1, k = np <= 8 ? cl_range_k(tri_mx(a, b, c, p, np, d, 0)) : 0;
    if (k != 0) {   /* cl_range_k: scaled into range */
        cl_vec3 q[8];
        for (i = 0; i < np; i++) q[i] = cl_vscale2(p[i], k);
        return cl_sweep_hull_tri(q, np, fa, nf, ed, ne, cl_vscale2(d, k), cl_vscale2(a, k), cl_vscale2(b, k),
                                 cl_vscale2(c, k));
    }
    n = axes_of(fa, nf, ed, ne, a, b, c, ax, &nface);
    s.state = CL_TOI_SEPARATED; s.t = 1; s.n = cl_v3(0, 0, 0); s.rank = 0;
    if (n == 0) return s;
    t[0] = a; t[1] = b; t[2] = c;
    for (i = 0; i < n; i++) {
        double m0, m1, t0, t1, v = cl_dot(d, ax[i]), l, h, e;
        proj(p, np, ax[i], &m0, &m1);
        proj(t, 3, ax[i], &t0, &t1);
        /* the open hull shrunk by the rounding allowance: a hull resting on a triangle (or within
         * rounding of it, as after a slide along a slanted one) is not in it, and slides freely */
        e = allowance(m0, m1, t0, t1);
        if (m1 - m0 > 2 * e) { m0 += e; m1 -= e; }
        if (v == 0) {
            /* a resting axis: open hull against closed triangle (flat against flat as sweep.c) */
            if (!((m0 < t1 && m1 > t0) || (m0 == m1 && t0 == t1 && m0 == t0))) return s;
            continue;
        }
        if (v > 0) { l = (t0 - m1) / v; h = (t1 - m0) / v; }
        else { l = (t1 - m0) / v; h = (t0 - m1) / v; }
        if (i == 0) { ln = l; vn = v; }
        if (l > lo) { lo = l; best = i; bv = v; }
        if (h < hi) hi = h;
    }
    if (lo < 0 && hi > 0) {
        s.state = CL_TOI_OVERLAPPED; s.t = 0;
    } else if (lo < hi && lo >= 0 && lo < 1) {
        cl_vec3 u;
        /* an axis that enters with the triangle's normal up to rounding (a box edge reaching
         * the triangle's edge as it lands on its face): the face contact */
        if (best != 0 && ln >= lo - TIE_T) { best = 0; bv = vn; }
        u = unit(ax[best]);
        s.state = CL_TOI_TOUCHING;
        s.t = lo == 0 ? 0.0 : lo;
        s.n = bv > 0 ? cl_v3(0.0 - u.x, 0.0 - u.y, 0.0 - u.z) : u;
        s.rank = best == 0 ? 1 : 2;     /* on the triangle's face, else on its edge or vertex */
    }
    return s;
}

int cl_penetration_hull_tri(const cl_vec3 *p, int np, const cl_vec3 *fa, int nf, const cl_vec3 *ed, int ne,
                            cl_vec3 a, cl_vec3 b, cl_vec3 c, double *depth, cl_vec3 *n)
{
    cl_vec3 ax[MAXAX], t[3];
    int nface = 0, k, i, found = 0, e = np <= 8 ? cl_range_k(tri_mx(a, b, c, p, np, cl_v3(0, 0, 0), 0)) : 0;
    double best = HUGE_VAL;
    if (e != 0) {   /* cl_range_k: scaled into range, the depth back */
        cl_vec3 q[8];
        for (i = 0; i < np; i++) q[i] = cl_vscale2(p[i], e);
        found = cl_penetration_hull_tri(q, np, fa, nf, ed, ne, cl_vscale2(a, e), cl_vscale2(b, e), cl_vscale2(c, e),
                                        depth, n);
        if (found) *depth = cl_scale2(*depth, -e);
        return found;
    }
    k = axes_of(fa, nf, ed, ne, a, b, c, ax, &nface);
    if (k == 0) return 0;
    t[0] = a; t[1] = b; t[2] = c;
    for (i = 0; i < k; i++) {
        cl_vec3 u = unit(ax[i]);
        double m0, m1, t0, t1;
        proj(p, np, u, &m0, &m1);
        proj(t, 3, u, &t0, &t1);
        if (!(m0 < t1 && m1 > t0)) return 0;   /* the open hull misses the triangle */
        if (t1 - m0 < best) { best = t1 - m0; *n = u; found = 1; }
        if (m1 - t0 < best) { best = m1 - t0; *n = cl_v3(0.0 - u.x, 0.0 - u.y, 0.0 - u.z); found = 1; }
    }
    *depth = best;
    return found;
}

/* The rank of a sphere contact at centre q with the capsule of edge pq0..pq1: 2 on the edge's
 * inside, 3 at a vertex. */
static int edge_rank(cl_vec3 q, cl_vec3 e0, cl_vec3 e1)
{
    double s;
    (void)cl_closest_on_segment(q, e0, e1, &s);
    return s > 0 && s < 1 ? 2 : 3;
}

/* A triangle reaching farther out than 2^CUT_FAR times the sweep's reach is cut back (cut_tri). */
#define CUT_FAR 0x1p10

/* Cuts triangle t back to the part a sweep can reach when it reaches far beyond it (a floor
 * triangle with coordinates of 1e13 under a sphere of radius 1, whose rounding allowance, 2^-42 of
 * the coordinates, would exceed the radius: the sphere passed through it). pt[0..np-1] are the
 * mover's core points at the start and at the end of the sweep (everything the sweep can meet is
 * within r of their box), r its radius. The region is that box widened by twice r, by its extent and
 * by 2^-40 of the triangle's coordinates (far above the rounding below); the triangle is replaced by
 * the one of points whose barycentric coordinates are at least their least values m_i over the
 * region (the region's part of the triangle is in it: a copy of the triangle scaled about a point
 * of it, its edges parallel to the old ones, on them where the region reaches them, the others out
 * of reach), repeated while the coordinates are still far out (at most 6 times: each cut takes
 * about 2^36 off them). The sweep then works at the reach's scale. The new vertices are computed
 * on the old plane to the rounding of their own coordinates and about 2^-100 of the old ones
 * (affine; a plane of constant x, y or z keeps that coordinate exactly): *extra, 2^-90 of the old
 * coordinates, bounds that, and the caller adds it to its allowance. Triangles not that far out, huge (over 2^200) or tiny coordinates,
 * slivers and degenerate triangles are kept as they are (the same answers as before). Returns 0 when no part
 * of the triangle is in the region (nothing to meet: SEPARATED), else 1. */
/* s + x rounded; its rounding error (exact, Knuth's TwoSum) is added to *c. */
static double sum2(double s, double x, double *c)
{
    double t = s + x, z = t - s;
    *c += (s - (t - z)) + (x - z);
    return t;
}

/* p + m (q - p) + n (w - p) for one coordinate, its error about 2^-100 of the coordinates before
 * the final rounding (the differences and products split exactly into two doubles each, summed as
 * Ogita, Rump and Oishi's Sum2), so a point of the plane of three far vertices lands on that plane
 * to the rounding of its own coordinates. */
static double affine(double p, double q, double w, double m, double n)
{
    double c = 0, s = p, dq, dqe = 0, dw, dwe = 0, h;
    dq = sum2(q, -p, &dqe);
    dw = sum2(w, -p, &dwe);
    h = m * dq;
    s = sum2(s, h, &c);
    c += fma(m, dq, -h) + m * dqe;
    h = n * dw;
    s = sum2(s, h, &c);
    c += fma(n, dw, -h) + n * dwe;
    return s + c;
}

static int cut_tri(cl_vec3 t[3], const cl_vec3 *pt, int np, double r, double *extra)
{
    double L = r, S, S0, mn[3], mx[3], ext = 0;
    int i, k, it;
    *extra = 0;
    for (i = 0; i < np; i++) L = maxd(L, cl_maxabs3(pt[i].x, pt[i].y, pt[i].z));
    S0 = S = maxd(maxd(cl_maxabs3(t[0].x, t[0].y, t[0].z), cl_maxabs3(t[1].x, t[1].y, t[1].z)),
                  cl_maxabs3(t[2].x, t[2].y, t[2].z));
    if (!(S > CUT_FAR * L) || !(L >= 0x1p-190) || !(S <= 0x1p200)) return 1;
    for (k = 0; k < 3; k++) {
        mn[k] = mx[k] = cl_comp(pt[0], k);
        for (i = 1; i < np; i++) {
            mn[k] = mind(mn[k], cl_comp(pt[i], k));
            mx[k] = maxd(mx[k], cl_comp(pt[i], k));
        }
        ext = maxd(ext, mx[k] - mn[k]);
    }
    for (it = 0; it < 6 && S > CUT_FAR * L; it++) {
        cl_vec3 n = cl_cross(cl_sub(t[1], t[0]), cl_sub(t[2], t[0])), u[3];
        double nn = cl_dot(n, n), pad = 2 * r + ext + S * 0x1p-40, m[3], h[3], ee = 0;
        cl_vec3 mid;
        for (i = 0; i < 3; i++) {
            cl_vec3 e = cl_sub(t[(i + 1) % 3], t[i]);
            ee = maxd(ee, cl_dot(e, e));
        }
        /* slivers (twice the area under 2^-8 of the longest edge squared) are kept: the
         * barycentric coordinates' rounding grows as the area shrinks */
        if (!(nn >= 0x1p-900 && nn >= ee * ee * 0x1p-16)) break;
        for (k = 0; k < 3; k++) h[k] = (mx[k] - mn[k]) * 0.5 + pad;
        mid = cl_v3(mn[0] * 0.5 + mx[0] * 0.5, mn[1] * 0.5 + mx[1] * 0.5, mn[2] * 0.5 + mx[2] * 0.5);
        for (i = 0; i < 3; i++) {
            /* barycentric coordinate i of a point x (of its projection on the plane): dot(x - p, g) */
            cl_vec3 p = t[(i + 1) % 3], g = cl_mul(cl_cross(n, cl_sub(t[(i + 2) % 3], p)), 1 / nn);
            double lmin = cl_dot(cl_sub(mid, p), g) - (fabs(g.x) * h[0] + fabs(g.y) * h[1] + fabs(g.z) * h[2]);
            m[i] = lmin > 0 ? lmin : 0;
        }
        if (!(m[0] + m[1] + m[2] < 1)) return 0;
        if (m[0] == 0 && m[1] == 0 && m[2] == 0) break;
        for (i = 0; i < 3; i++) {
            int j = (i + 1) % 3, l = (i + 2) % 3;
            u[i] = cl_v3(affine(t[i].x, t[j].x, t[l].x, m[j], m[l]), affine(t[i].y, t[j].y, t[l].y, m[j], m[l]),
                         affine(t[i].z, t[j].z, t[l].z, m[j], m[l]));
        }
        if (cl_tri_degenerate(u[0], u[1], u[2])) break;
        t[0] = u[0]; t[1] = u[1]; t[2] = u[2];
        S = maxd(maxd(cl_maxabs3(t[0].x, t[0].y, t[0].z), cl_maxabs3(t[1].x, t[1].y, t[1].z)),
                 cl_maxabs3(t[2].x, t[2].y, t[2].z));
        *extra = S0 * 0x1p-90;
    }
    return 1;
}

static cl_sweep sphere_tri(const cl_sphere *sp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c, double extra,
                           int known);
static cl_sweep capsule_tri(const cl_capmv *mv, cl_vec3 a, cl_vec3 b, cl_vec3 c, double mt, double extra,
                            double tmax, double *clear, double *clear0, int known, cl_tridata *td);
static void ts_tri_make(cl_tridata *td, cl_vec3 a, cl_vec3 b, cl_vec3 c);
static CL_INLINE int ts_tri_is(const cl_tridata *td, cl_vec3 a, cl_vec3 b, cl_vec3 c);

/* The largest |coordinate| of the n points p (finite: plain comparisons, no NaN case). */
static inline double pts_max(const cl_vec3 *p, int n)
{
    double m = 0;
    int i;
    for (i = 0; i < n; i++) {
        double x = fabs(p[i].x), y = fabs(p[i].y), z = fabs(p[i].z);
        m = m > x ? m : x;
        m = m > y ? m : y;
        m = m > z ? m : z;
    }
    return m;
}

/* cl_sweep_sphere_tri's work on data in range (k == 0); known: abc is not degenerate as given. */
static inline cl_sweep sphere_in_range(const cl_sphere *sp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c, int known)
{
    cl_vec3 t[3], pt[2];
    double extra = 0;
    cl_sweep s;
    pt[0] = sp->c; pt[1] = cl_add(sp->c, d);
    t[0] = a; t[1] = b; t[2] = c;
    /* the common case first: not far out (cut_tri's own test) */
    if (pts_max(t, 3) > CUT_FAR * (sp->r > pts_max(pt, 2) ? sp->r : pts_max(pt, 2)) &&
        !cut_tri(t, pt, 2, sp->r, &extra)) {
        s.state = CL_TOI_SEPARATED; s.t = 1; s.n = cl_v3(0, 0, 0); s.rank = 0;
        return s;
    }
    /* cut_tri left t as given when it left extra 0 (its one exit that keeps the triangle whole) */
    return sphere_tri(sp, d, t[0], t[1], t[2], extra, known && extra == 0);
}

cl_sweep cl_sweep_sphere_tri(const cl_sphere *sp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    int k = cl_range_k(tri_mx(a, b, c, &sp->c, 1, d, sp->r));
    if (k != 0) {   /* cl_range_k: scaled into range */
        cl_sphere s2;
        s2.c = cl_vscale2(sp->c, k); s2.r = cl_scale2(sp->r, k);
        return cl_sweep_sphere_tri(&s2, cl_vscale2(d, k), cl_vscale2(a, k), cl_vscale2(b, k), cl_vscale2(c, k));
    }
    return sphere_in_range(sp, d, a, b, c, 0);
}

cl_sweep cl_sweep_sphere_tri_known(const cl_sphere *sp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    return sphere_in_range(sp, d, a, b, c, 1);
}

cl_sweep cl_sweep_capsule_tri(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    return cl_sweep_capsule_tri_until(cp, d, a, b, c, HUGE_VAL);
}

cl_sweep cl_sweep_capsule_tri_until(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax)
{
    double clear;
    return cl_sweep_capsule_tri_clear(cp, d, a, b, c, tmax, &clear);
}

void cl_capmv_make(cl_capmv *mv, const cl_capsule *cp, cl_vec3 d)
{
    int i;
    double m;
    mv->cp = *cp;
    mv->d = d;
    mv->pt[0] = cp->a; mv->pt[1] = cp->b; mv->pt[2] = cl_add(cp->a, d); mv->pt[3] = cl_add(cp->b, d);
    /* the parallelogram the segment sweeps, in its order round (capsule_tri's q) */
    mv->q[0] = mv->pt[0]; mv->q[1] = mv->pt[1]; mv->q[2] = mv->pt[3]; mv->q[3] = mv->pt[2];
    mv->L = pts_max(mv->pt, 4);
    if (cp->r > mv->L) mv->L = cp->r;
    /* the mover's parts of the maxima capsule_tri and plane_apart take over the triangle and the
     * mover (maxd of |values|: the same whatever the order, NaN left out as maxd leaves it out) */
    mv->me = maxd(cl_maxabs3(cp->a.x, cp->a.y, cp->a.z), cl_maxabs3(cp->b.x, cp->b.y, cp->b.z));
    mv->ms = maxd(mv->me, maxd(cl_maxabs3(d.x, d.y, d.z), cp->r));
    m = 0;
    for (i = 0; i < 4; i++) m = maxd(m, cl_maxabs3(mv->q[i].x, mv->q[i].y, mv->q[i].z));
    mv->mq = m;
    mv->len = cl_len(d.x, d.y, d.z);
}

/* The largest |coordinate| of the triangle abc (maxd of its vertices' cl_maxabs3). */
static inline double tri_max(cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    return maxd(maxd(cl_maxabs3(a.x, a.y, a.z), cl_maxabs3(b.x, b.y, b.z)), cl_maxabs3(c.x, c.y, c.z));
}

/* cl_sweep_capsule_tri_clear's work on data in range (k == 0); known: abc is not degenerate as
 * given and the data is finite (then pts_max of the triangle is tri_max). td: NULL, or the values
 * of a, b, c (cl_sweep_capsule_tri_mvd's: its key checked), its mt tri_max(a, b, c). */
static inline cl_sweep capsule_in_range(const cl_capmv *mv, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax,
                                        double *clear, double *clear0, int known, cl_tridata *td)
{
    cl_vec3 t[3];
    double extra, mt;
    cl_sweep s;
    t[0] = a; t[1] = b; t[2] = c;
    extra = 0;
    mt = td ? td->mt : known ? tri_max(a, b, c) : pts_max(t, 3);
    if (mt > CUT_FAR * mv->L) {
        if (!cut_tri(t, mv->pt, 4, mv->cp.r, &extra)) {
            s.state = CL_TOI_SEPARATED; s.t = 1; s.n = cl_v3(0, 0, 0); s.rank = 0;
            return s;
        }
        return capsule_tri(mv, t[0], t[1], t[2], -1, extra, tmax, NULL, NULL, 0, NULL);
    }
    /* t is abc as given here: td's key */
    return capsule_tri(mv, t[0], t[1], t[2], known ? mt : -1, extra, tmax, clear, clear0, known, td);
}

cl_sweep cl_sweep_capsule_tri_clear(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax,
                                    double *clear)
{
    cl_vec3 pt[2];
    cl_capmv mv;
    int k;
    *clear = 0;
    pt[0] = cp->a; pt[1] = cp->b;
    k = cl_range_k(tri_mx(a, b, c, pt, 2, d, cp->r));
    if (k != 0) {   /* cl_range_k: scaled into range */
        cl_capsule c2;
        c2.a = cl_vscale2(cp->a, k); c2.b = cl_vscale2(cp->b, k); c2.r = cl_scale2(cp->r, k);
        return cl_sweep_capsule_tri_until(&c2, cl_vscale2(d, k), cl_vscale2(a, k), cl_vscale2(b, k), cl_vscale2(c, k),
                                          tmax);
    }
    cl_capmv_make(&mv, cp, d);
    return capsule_in_range(&mv, a, b, c, tmax, clear, NULL, 0, NULL);
}

cl_sweep cl_sweep_capsule_tri_known(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax,
                                    double *clear)
{
    cl_capmv mv;
    cl_capmv_make(&mv, cp, d);
    return cl_sweep_capsule_tri_mv(&mv, a, b, c, tmax, clear, NULL);
}

cl_sweep cl_sweep_capsule_tri_mv(const cl_capmv *mv, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax, double *clear,
                                 double *clear0)
{
    *clear = 0;
    if (clear0) *clear0 = 0;
    return capsule_in_range(mv, a, b, c, tmax, clear, clear0, 1, NULL);
}

cl_sweep cl_sweep_capsule_tri_mvd(const cl_capmv *mv, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax, double *clear,
                                  double *clear0, cl_tridata *td)
{
    *clear = 0;
    if (clear0) *clear0 = 0;
    /* td's key is checked here, once (capsule_tri takes a td it is given as a, b, c's), and its
     * mt kept with the rest: tri_max of the same bits, the same value */
    if (!ts_tri_is(td, a, b, c)) {
        ts_tri_make(td, a, b, c);
        td->mt = tri_max(a, b, c);
    }
    return capsule_in_range(mv, a, b, c, tmax, clear, clear0, 1, td);
}

/* A contact of normal *n (unit) with a triangle of unit normal nu met along the face's plane: *n
 * within 1e-9 (in cosine) of +-nu. Then *n becomes the face's own normal (towards the mover) and
 * the answer is 1: a face contact. The sweeps' later contacts use it (an edge's capsule met on its
 * side that continues the face: the ray slipped between the moved faces of two tiles), and so do
 * the contacts at the start (t = 0) of a sphere or capsule: one resting on the face of one tile and
 * touching the edge it shares with the next meets both tiles as the face, never with a normal
 * tilted by rounding, so the seams rule gives the face whichever tile it picks; otherwise a start
 * contact is an edge or corner contact (rank 2) of normal the closest points' direction. Only a
 * face normal that opposes the move d is taken: the edge of a step higher than the floor by 1e-10
 * to 1e-9 of the radius is met with a normal within 1e-9 of the step's face, but that face's
 * normal is square to a move along the floor, so the slide kept the move as it was and met the
 * edge again, for good (review rev9's F2); the contact's own normal lets the slide rise over it
 * as over any higher step. The contacts the seams rule needs come from moves into the face (a
 * start contact needs a path closer to it than the allowance; a ray that slipped between two
 * tiles' moved faces was going into them), so they keep the face's normal (spec/34's tiled and
 * whole surfaces give the same moves as before). */
static int ts_face_snap(cl_vec3 *n, cl_vec3 nu, cl_vec3 d)
{
    double k = cl_dot(*n, nu);
    cl_vec3 f;
    if (!(fabs(k) >= 1 - 1e-9)) return 0;
    f = k > 0 ? nu : cl_v3(0.0 - nu.x, 0.0 - nu.y, 0.0 - nu.z);
    if (!(cl_dot(f, d) < 0)) return 0;
    *n = f;
    return 1;
}

/* A start touching the triangle (or within rounding of touching) and moving in: TOUCHING at t 0
 * along n (the start's unit separation), a face contact when n is within 1e-9 of the face's unit
 * normal nu (ts_face_snap) (the two such cases of sphere_tri and of capsule_tri). */
static cl_sweep ts_touch_start(cl_vec3 n, cl_vec3 nu, cl_vec3 d)
{
    cl_sweep s;
    s.state = CL_TOI_TOUCHING; s.t = 0;
    s.n = n;
    s.rank = ts_face_snap(&s.n, nu, d) ? 1 : 2;
    return s;
}

/* r less the depth a sphere or capsule of radius r may go into a triangle along a path d with no
 * contact (ts_sink2: its square); e is the allowance (a start deeper than e is inside:
 * OVERLAPPED), d2 the start's squared distance. Half the allowance, or, for a start deeper than
 * that, the start's depth plus the rounding of the motion (2^-47 of d's largest component) and of
 * the distances (2^-8 of the allowance: 2^-50 of the coordinates; without it a sphere met the
 * triangle again at t = 0 on every leg of a slide), at most e. With e itself, slides each closing
 * 1/100 of the allowance on a tilted mesh quad sank to it, then a sphere met the triangle at t = 0
 * on every leg (16 collisions, nothing made) for good and a capsule made nothing (sweep.c's
 * deep_end is the same rule for the other kinds; the start's depth term lets a mover placed
 * deeper than half the allowance slide, its slides closing on the face by their rounding). */
static double ts_sink(double r, double e, double d2, cl_vec3 d)
{
    double lim = e * 0.5;
    if (d2 < r * r) {
        double dep = r - sqrt(d2) + cl_maxabs3(d.x, d.y, d.z) * 0x1p-47 + e * 0x1p-8;
        if (dep > lim) lim = dep < e ? dep : e;
    }
    return r - lim;
}

/* ts_sink squared. */
static double ts_sink2(double r, double e, double d2, cl_vec3 d)
{
    double k = ts_sink(r, e, d2, d);
    return k * k;
}

/* The sweep of cl_sweep_sphere_tri, the allowance raised by extra (cut_tri). */
static cl_sweep sphere_tri(const cl_sphere *sp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c, double extra,
                           int known)
{
    cl_sweep s;
    cl_vec3 q, w, v[3], nu;
    cl_ray ray;
    double r = sp->r, d2, len, bt = HUGE_VAL, e, in2;
    int i, rank = 0;
    s.state = CL_TOI_SEPARATED; s.t = 1; s.n = cl_v3(0, 0, 0); s.rank = 0;
    if (!known && cl_tri_degenerate(a, b, c)) return s;
    /* the open sphere shrunk by the rounding allowance (as cl_sweep_hull_tri): in2 is the squared
     * distance below which the centre is inside the triangle's neighbourhood */
    e = (maxd(maxd(cl_maxabs3(a.x, a.y, a.z), cl_maxabs3(b.x, b.y, b.z)),
              maxd(cl_maxabs3(c.x, c.y, c.z), cl_maxabs3(sp->c.x, sp->c.y, sp->c.z))) + r) * 0x1p-42 + extra;
    if (!(r > e)) return s;             /* (nearly) a point: no interior to meet a flat triangle */
    in2 = (r - e) * (r - e);
    q = cl_tri_closest(a, b, c, sp->c);
    w = cl_sub(sp->c, q);
    d2 = cl_dot(w, w);
    if (d2 < in2) { s.state = CL_TOI_OVERLAPPED; s.t = 0; return s; }
    if (d.x == 0 && d.y == 0 && d.z == 0) return s;
    /* a path that never goes deeper than ts_sink allows does not enter (a sphere sliding on the
     * triangle or past its edges) */
    if (!cl_tri_segment_below(a, b, c, sp->c, cl_add(sp->c, d), ts_sink2(r, e, d2, d))) return s;
    /* touching at the start and moving in */
    if (d2 <= r * r) return ts_touch_start(unit(w), unit(cl_cross(cl_sub(b, a), cl_sub(c, a))), d);
    len = cl_len(d.x, d.y, d.z);
    if (!cl_ray_make(&ray, sp->c, d)) return s;
    /* the faces moved out by r on both sides */
    nu = unit(cl_cross(cl_sub(b, a), cl_sub(c, a)));
    for (i = -1; i <= 1; i += 2) {
        cl_vec3 o = cl_mul(nu, i * r);
        cl_hit h;
        if (cl_tri_raycast(cl_add(a, o), cl_add(b, o), cl_add(c, o), &ray, len, &h) && h.t < bt &&
            cl_dot(h.n, d) < 0) {
            bt = h.t; s.n = h.n; rank = 1;
        }
    }
    /* the edges' capsules (their end caps are the vertices' balls) */
    v[0] = a; v[1] = b; v[2] = c;
    for (i = 0; i < 3; i++) {
        cl_capsule cp;
        cl_hit h;
        cp.a = v[i]; cp.b = v[(i + 1) % 3]; cp.r = r;
        if (cl_capsule_raycast(&cp, &ray, len, &h) && h.t < bt && cl_dot(h.n, d) < 0) {
            bt = h.t; s.n = h.n;
            rank = edge_rank(cl_ray_at(&ray, h.t), cp.a, cp.b);
        }
    }
    if (rank == 0 && !(d2 <= (r + e) * (r + e))) return s;
    if (rank == 0) {
        /* the path goes deeper than ts_sink allows, yet no piece is met: a start within rounding
         * of touching (the ray starts behind the moved faces, which are as far off as the rounding
         * of the coordinates), the touching start's contact */
        return ts_touch_start(unit(w), nu, d);
    }
    /* an edge's capsule met on its side that continues the face (the ray slipped between the
     * moved faces of two tiles, which rounding leaves apart): a face contact */
    if (rank > 1 && ts_face_snap(&s.n, nu, d)) rank = 1;
    bt /= len;
    if (!(bt < 1)) { s.n = cl_v3(0, 0, 0); return s; }
    s.state = CL_TOI_TOUCHING;
    s.t = bt;
    s.rank = rank;
    return s;
}

/* The closest hit (t < *bt, normal facing against d) of the ray on triangle pqr moved by +-r along
 * its unit normal (no hit for a degenerate one): sets *bt, *n, *rank (rk) and returns 1. */
static int offset_hits(const cl_ray *ray, double len, cl_vec3 d, cl_vec3 p, cl_vec3 q, cl_vec3 w, double r, int rk,
                       double *bt, cl_vec3 *n, int *rank)
{
    cl_vec3 nx = cl_cross(cl_sub(q, p), cl_sub(w, p));
    int i, got = 0;
    if (nx.x == 0 && nx.y == 0 && nx.z == 0) return 0;
    nx = unit(nx);
    for (i = -1; i <= 1; i += 2) {
        cl_vec3 o = cl_mul(nx, i * r);
        cl_hit h;
        if (cl_tri_raycast(cl_add(p, o), cl_add(q, o), cl_add(w, o), ray, len, &h) && h.t < *bt && cl_dot(h.n, d) < 0) {
            *bt = h.t; *n = h.n; *rank = rk; got = 1;
        }
    }
    return got;
}

/* The closest hit (t < *bt, entering) of the ray on the capsule pq of radius r: as offset_hits. */
static int capsule_hits(const cl_ray *ray, double len, cl_vec3 d, cl_vec3 p, cl_vec3 q, double r, int rk, double *bt,
                        cl_vec3 *n, int *rank)
{
    cl_capsule cp;
    cl_hit h;
    cp.a = p; cp.b = q; cp.r = r;
    if (!cl_capsule_raycast(&cp, ray, len, &h) || !(h.t < *bt) || !(cl_dot(h.n, d) < 0)) return 0;
    *bt = h.t; *n = h.n; *rank = rk;
    return 1;
}

/* 1 when the box of the points k[0..n-1] grown by g meets the box pb (no piece of the swept
 * triangle farther than g from the path's box can meet the path). */
static int near_path(const cl_aabb *pb, const cl_vec3 *k, int n, double g)
{
    cl_aabb b;
    int i;
    b.min = b.max = k[0];
    for (i = 1; i < n; i++) {
        b.min = cl_v3(mind(b.min.x, k[i].x), mind(b.min.y, k[i].y), mind(b.min.z, k[i].z));
        b.max = cl_v3(maxd(b.max.x, k[i].x), maxd(b.max.y, k[i].y), maxd(b.max.z, k[i].z));
    }
    return !(b.min.x - g > pb->max.x || b.max.x + g < pb->min.x || b.min.y - g > pb->max.y ||
             b.max.y + g < pb->min.y || b.min.z - g > pb->max.z || b.max.z + g < pb->min.z);
}

/* The least t at which the segment moved by d can come within r of the plane of abc, from the
 * computed distances x0, x1 of its ends at the start and x2, x3 at the end along the normal (of
 * length nl, each within m of the exact one; lim bounds r nl plus m) on the side of x0 and x1, less
 * slack (a length) by the path's own measure: -HUGE_VAL when the ends do not both start beyond lim
 * on that side, moving towards it by more than 4 m (else the bound could fall below the slack's
 * measure). The nearer end stays the nearer one: the capsule meets the triangle no sooner than
 * (x - r nl) / (x - xe) exactly, x and xe the nearer end's distances; the bound's numerator is
 * below that by 4 nl slack at least, its denominator (< 3 nl |d| with the 4 m) above. */
static double plane_after(double x0, double x1, double x2, double x3, double nl, double m, double lim, double slack)
{
    double xs = mind(x0, x1), xe = mind(x2, x3), h;
    if (!(xs > lim)) {
        xs = -maxd(x0, x1);
        xe = -maxd(x2, x3);
    }
    h = xs - lim - 4 * nl * slack;
    if (!(h > 0 && xs - xe > 4 * m)) return -HUGE_VAL;
    return h / (xs - xe + 2 * m);
}

/* 1 when the segment pq moved by d stays farther than r from the plane of abc on one side all the
 * way (the four corners k: p, q, p + d, q + d of the parallelogram it sweeps beyond r plus a
 * rounding margin; s the largest |value| of them, d, r and abc): no part
 * of the swept capsule reaches the triangle; with tmax < 1 also when it can come that near only
 * after tmax (plane_after, slack the sweep's margin for rounding). 0 when unsure (huge or tiny
 * coordinates, slivers). */
/* What plane_apart and tri_quad_gap (and frame_of) both compute of the triangle abc and the mover's
 * four corners k (mv->pt: p, q, p + d, q + d), computed once (tp_make) with the operations each made
 * on its own before: the edges ab, ac, the normal n = ab x ac, its length nl = ts_len(n) and
 * ql = sqrt(n . n) (the same value when ts_len takes its in-range case), the dot products
 * x[i] = (k[i] - a) . n, kk the largest |component| of the k[i] - a and ee that of ab and ac. The
 * callers' maxima and minima over these are order-free (maxd/mind of finite values; NaN ones are
 * left out whatever the order; only a zero's sign can depend on it, which no comparison sees). */
/* The triangle's own part (ab, ac, n, nl, ql, ee) is in t (a cl_tridata: ts_tri_make, made once
 * for a triangle a mesh sweep keeps, or kept from an earlier sweep of it), the corners' (x, kk)
 * here. */
typedef struct tsplane { cl_tridata *t; double x[4], kk; } tsplane;

/* The triangle's part of tsplane into td, its key set to a, b, c and the other values (frame, edge
 * normals) marked not made. */
static void ts_tri_make(cl_tridata *td, cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    double kx;
    td->f.v[0] = a; td->f.v[1] = b; td->f.v[2] = c;
    td->ab = cl_sub(b, a); td->ac = cl_sub(c, a); td->n = cl_cross(td->ab, td->ac);
    kx = cl_maxabs3(td->n.x, td->n.y, td->n.z);
    td->ql = sqrt(cl_dot(td->n, td->n));
    td->nl = kx >= 0x1p-480 && kx <= 0x1p480 ? td->ql : cl_len(td->n.x, td->n.y, td->n.z);   /* ts_len */
    td->ee = maxd(cl_maxabs3(td->ab.x, td->ab.y, td->ab.z), cl_maxabs3(td->ac.x, td->ac.y, td->ac.z));
    td->have = 1;
}

/* 1 when td holds the values of the triangle a, b, c: made, and its key the same bits (a NaN or a
 * zero's sign included, so every value made of them is the same too) */
static CL_INLINE int ts_tri_is(const cl_tridata *td, cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    return td->have && memcmp(&td->f.v[0], &a, sizeof a) == 0 && memcmp(&td->f.v[1], &b, sizeof b) == 0 &&
           memcmp(&td->f.v[2], &c, sizeof c) == 0;
}

static CL_INLINE void tp_make(tsplane *p, const cl_vec3 *k, cl_tridata *td, cl_vec3 a)
{
    int i;
    p->t = td;
    p->kk = 0;
    for (i = 0; i < 4; i++) {
        cl_vec3 y = cl_sub(k[i], a);
        p->kk = maxd(p->kk, cl_maxabs3(y.x, y.y, y.z));
        p->x[i] = cl_dot(y, td->n);
    }
}

static int plane_apart(const tsplane *tp, double r, double s, double tmax, double slack, double *clear)
{
    double lim, lo = HUGE_VAL, hi = -HUGE_VAL, nl, m, ee, kk = tp->kk;
    const double *x = tp->x;
    int i;
    if (!(s > 0x1p-250 && s < 0x1p250)) return 0;
    nl = tp->t->nl;
    for (i = 0; i < 4; i++) {
        lo = mind(lo, x[i]);
        hi = maxd(hi, x[i]);
    }
    /* the margin m for the rounding of the dot products x (against the exact ones of the corners
     * k as computed: the full test sees the same corners) and of nl, at the triangle's own scale:
     * with E the largest |component| of the edges ab, ac and K that of the k - a, n's components
     * err by under 10 E^2 ulps (2^-53), x by under 36 K E^2 + 18 K E^2 ulps, nl by under 18 E^2
     * ulps of which r nl's factor covers the relative part; m = 2^-43 (K + r) E^2 is 1024 ulps
     * of it, about 18 times what these add up to. Edges under 2^-240 (their squares near the
     * underflow) keep the margin of the coordinates' scale, 2^-36 s^3, which bounds it anyway. */
    ee = tp->t->ee;
    m = ee > 0x1p-240 ? (kk + r) * ee * ee * 0x1p-43 : s * s * s * 0x1p-36;
    lim = r * nl * (1 + 0x1p-40) + m;
    if (lo > lim || hi < -lim) {
        /* the clearance: the corners' distance from the triangle's plane, the rounding of x (m)
         * and of nl (under 18 E^2 ulps, 2^-45 E^2 here) taken off */
        if (clear && ee > 0x1p-240) *clear = ((lo > lim ? lo : -hi) - m) / (nl + ee * ee * 0x1p-45) * (1 - 0x1p-48);
        return 1;
    }
    return tmax < 1 && plane_after(x[0], x[1], x[2], x[3], nl, m, lim, slack) > tmax;
}

/* A lower bound on the squared distance between any two points cl_tri_segment computes (one near
 * triangle abc, one near the convex quadrilateral k[0..3], or the other way round: each within 2^-47
 * sc of its set, sc the largest coordinate), or 0 when unsure: the separation along the triangle's
 * normal n and along one of its edges' outward normals m (cross(e, n): orthogonal to n up to
 * rounding, so the squares add), each found from computed dot products less a margin 16 times their
 * rounding (as tri.c's plane_gap). Coordinates in [2^-300, 2^200] only. *seg2 is the same bound
 * for the quad's side k[0] k[1] alone (the segment at the start: the corners' dot products are the
 * same ones, so are the margins), or 0. *side is 1 when the corners' computed dot products with n
 * (those of cl_tri_segment_crosses(a, b, c, k[i], k[j]): the same operations) all are > 0 or all
 * < 0 (NaN ones left out, which no crossing test passes either). */
/* tri_quad_gap's values of the triangle's edges, made once into td (have & 4): for edge j (from
 * v[j] to the next vertex: e, ab for j = 0), its normal mj = e x n across the triangle's normal,
 * ml = |mj|, tx the largest of 0 and the third vertex's (x: its difference from v[j], ac for
 * j = 0) dot product with mj, pe the largest |component| of e and x. */
static void ts_edges(cl_tridata *td)
{
    const cl_vec3 *v = td->f.v;
    int j;
    if (td->have & 4) return;
    for (j = 0; j < 3; j++) {
        cl_vec3 e = j == 0 ? td->ab : cl_sub(v[j == 2 ? 0 : j + 1], v[j]), mj = cl_cross(e, td->n),
                x = j == 0 ? td->ac : cl_sub(v[j == 0 ? 2 : j - 1], v[j]);
        td->mj[j] = mj;
        td->ml[j] = sqrt(cl_dot(mj, mj));
        td->pe[j] = maxd(cl_maxabs3(e.x, e.y, e.z), cl_maxabs3(x.x, x.y, x.z));
        td->tx[j] = maxd(0, cl_dot(x, mj));
    }
    td->have |= 4;
}

static double tri_quad_gap(const tsplane *tp, cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_vec3 *k, double sc, double *seg2,
                           int *side)
{
    cl_vec3 v[3], y[4];
    double nl, h1 = 0, h2 = 0, h, l, pm, lo = HUGE_VAL, hi = -HUGE_VAL, m, g1 = 0, g2 = 0, slo = HUGE_VAL,
           shi = -HUGE_VAL;
    int i, j;
    *seg2 = 0;
    *side = 0;
    if (!(sc >= 0x1p-300 && sc <= 0x1p200)) return 0;
    v[0] = a; v[1] = b; v[2] = c;
    /* tp's n, ql (sqrt(n . n)), ee (the edges' largest |component|), kk (the corners') and dot
     * products: k is mv->q, the corners tp has in the order 0, 1, 3, 2 */
    nl = tp->t->ql;
    if (!(nl >= 0x1p-400)) return 0;
    l = tp->t->ee;
    pm = tp->kk;
    for (i = 0; i < 4; i++) {
        double y = tp->x[i < 2 ? i : 5 - i];
        lo = mind(lo, y);
        hi = maxd(hi, y);
        if (i == 1) { slo = lo; shi = hi; }
    }
    *side = lo > 0 || hi < 0;
    m = (l * l * l + nl * pm) * 0x1p-44;
    if (lo - m > 0) h1 = (lo - m) / nl * (1 - 0x1p-44);
    else if (-hi - m > 0) h1 = (-hi - m) / nl * (1 - 0x1p-44);
    if (slo - m > 0) g1 = (slo - m) / nl * (1 - 0x1p-44);
    else if (-shi - m > 0) g1 = (-shi - m) / nl * (1 - 0x1p-44);
    ts_edges(tp->t);
    for (j = 0; j < 3; j++) {
        cl_vec3 mj = tp->t->mj[j];
        double ml = tp->t->ml[j], smin = HUGE_VAL, ssmin = HUGE_VAL, tmax, sep;
        /* edge ab (j == 0): pm's maxd chain over the |components| of e, x and the k[i] - a is tp's
         * maxd(ee, kk): a maxd chain is the largest of its non-NaN values in any order (NaN ones
         * left out) once it has one, and ee (e's, then x's) is one */
        int quick = j == 0 && tp->t->ee >= 0;
        if (!(ml >= 0x1p-400)) continue;
        tmax = tp->t->tx[j];
        /* the start side's corners first: when they give no separation (ssmin - tmax not > 0,
         * tmax >= 0 never NaN), neither do all four (smin <= ssmin: mind never rises), whatever
         * the margin (>= 0 or NaN): both seps below come out not > 0, so the edge adds nothing
         * and its other corners and pm are not needed */
        for (i = 0; i < 4; i++) {
            y[i] = cl_sub(k[i], v[j]);
            smin = mind(smin, cl_dot(y[i], mj));
            if (i == 1) {
                ssmin = smin;
                if (!(ssmin - tmax > 0)) break;
            }
        }
        if (i < 4) continue;
        /* pm's maxd chain as before (the same values in the same order) */
        pm = quick ? maxd(tp->t->ee, tp->kk) : tp->t->pe[j];
        if (!quick)
            for (i = 0; i < 4; i++) pm = maxd(pm, cl_maxabs3(y[i].x, y[i].y, y[i].z));
        sep = smin - tmax - pm * ml * 0x1p-43;
        if (sep > 0) h2 = maxd(h2, sep / ml * (1 - 0x1p-44));
        sep = ssmin - tmax - pm * ml * 0x1p-43;
        if (sep > 0) g2 = maxd(g2, sep / ml * (1 - 0x1p-44));
    }
    h = sqrt(g1 * g1 + g2 * g2) * (1 - 0x1p-44) - sc * 0x1p-43;
    if (h > 0) *seg2 = h * h * (1 - 0x1p-44);
    h = sqrt(h1 * h1 + h2 * h2) * (1 - 0x1p-44) - sc * 0x1p-43;
    if (!(h > 0)) return 0;
    return h * h * (1 - 0x1p-44);
}

/* The separation of the triangle (tp: a and its edges ab, ac) and the quad whose corners less a are
 * y[0..3] along the computed direction u, or 0: the corners' least minus the vertices' largest
 * projection, or the other way round, less a margin, over |u|. Taking u as given (only the
 * projections round), each projection errs by under 5 ulps (2^-53) of pm |u| sqrt(3) (the
 * difference's rounding and the dot product's; pm: the largest |component| of ab, ac and the
 * y[i]), so the two by under 2^-48.8 pm |u|; the margin 2^-43 pm |u| is about 56 times that
 * (tri_quad_gap's, for its edge normals) and also covers the subtractions' rounding. The division
 * by the computed |u| (a few ulps off) loses 2^-44 of it. Every point of the triangle and every
 * point of the quad are at least that far apart. |u| and pm under 2^-400 give 0 (no product near
 * the underflow, where rounding is not relative). */
static double ts_axis_sep(cl_vec3 u, const tsplane *tp, const cl_vec3 *y, double pm)
{
    double ml = sqrt(cl_dot(u, u)), tb, tc, tlo, thi, klo = HUGE_VAL, khi = -HUGE_VAL, x, sep;
    int i;
    if (!(ml >= 0x1p-400 && pm >= 0x1p-400)) return 0;
    tb = cl_dot(tp->t->ab, u);
    tc = cl_dot(tp->t->ac, u);
    tlo = mind(0, mind(tb, tc));
    thi = maxd(0, maxd(tb, tc));
    for (i = 0; i < 4; i++) {
        x = cl_dot(y[i], u);
        klo = mind(klo, x);
        khi = maxd(khi, x);
    }
    sep = maxd(klo - thi, tlo - khi) - pm * ml * 0x1p-43;
    return sep > 0 ? sep / ml * (1 - 0x1p-44) : 0;
}

/* tri_quad_gap's bound taken along the directions e x d (e an edge of abc, d the motion: the
 * direction between the triangle's edge and the path of the segment's end): the largest of those
 * at least lim2, else 0. It bounds every distance the grazing check computes (the points it
 * compares lie within 2^-47 sc of the triangle and of the quad k, as tri_quad_gap assumes: its
 * tail, the same operations), and its root less 2^-48 of it (capsule_tri's *clear, as from
 * tri_quad_gap's) the distance between the triangle and the quad. A capsule sliding over a ridge
 * between two tiles is that far from the tile beyond it, which neither the tile's normal nor its
 * edges' normals in its plane show. Coordinates in [2^-300, 2^200] (tri_quad_gap's), so no cross
 * or dot product overflows. */
static double ts_edge_far(const tsplane *tp, cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_vec3 *k, cl_vec3 d,
                          double sc, double lim2)
{
    cl_vec3 y[4], bc = cl_sub(c, b);
    double pm = maxd(maxd(tp->t->ee, tp->kk), cl_maxabs3(bc.x, bc.y, bc.z)), h, best = 0;
    int i, j;
    if (!(sc >= 0x1p-300 && sc <= 0x1p200)) return 0;
    for (i = 0; i < 4; i++) y[i] = cl_sub(k[i], a);
    for (j = 0; j < 3; j++) {
        h = ts_axis_sep(cl_cross(j == 0 ? tp->t->ab : j == 1 ? tp->t->ac : bc, d), tp, y, pm);
        h = h * (1 - 0x1p-44) - sc * 0x1p-43;
        if (h > 0 && h * h * (1 - 0x1p-44) >= lim2 && h * h * (1 - 0x1p-44) > best) best = h * h * (1 - 0x1p-44);
    }
    return best;
}

/* The grazing check's ten tests (the triangle against the parallelogram q's four sides, the
 * ends' paths first, then the triangle's edges against its two halves), the first near one
 * deciding: below lim2 (cl_tri_segment_below), or with crossonly only their crossing parts
 * (cl_tri_segment_crosses, what decides them all when tri_quad_gap is at least lim2). */
static int quad_near(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_vec3 *q, double lim2, int crossonly)
{
    static const int ek[4] = { 3, 1, 2, 0 };
    cl_vec3 v[3];
    int k;
    v[0] = a; v[1] = b; v[2] = c;
    for (k = 0; k < 4; k++)
        if (crossonly ? cl_tri_segment_crosses(a, b, c, q[ek[k]], q[(ek[k] + 1) % 4])
                      : cl_tri_segment_below(a, b, c, q[ek[k]], q[(ek[k] + 1) % 4], lim2))
            return 1;
    for (k = 0; k < 3; k++)
        if (crossonly ? cl_tri_segment_crosses(q[0], q[1], q[2], v[k], v[(k + 1) % 3]) ||
                            cl_tri_segment_crosses(q[0], q[2], q[3], v[k], v[(k + 1) % 3])
                      : cl_tri_segment_below(q[0], q[1], q[2], v[k], v[(k + 1) % 3], lim2) ||
                            cl_tri_segment_below(q[0], q[2], q[3], v[k], v[(k + 1) % 3], lim2))
            return 1;
    return 0;
}

/* cl_tri_segment_crosses(a, b, c, p, q) given what it computes first: the normal n = (b - a) x
 * (c - a) and dp = n . (p - a), dq = n . (q - a) (the caller's, the same operations). Its first
 * test (seg_crossing's: the ends on either side of the plane, or on it) is made here, so that an
 * edge that does not reach the plane costs no call. */
static CL_INLINE int ts_crosses(const cl_vec3 *a, const cl_vec3 *b, const cl_vec3 *c, const cl_vec3 *p,
                                const cl_vec3 *q, const cl_vec3 *n, double dp, double dq)
{
    if (!(((dp <= 0 && dq >= 0) || (dp >= 0 && dq <= 0)) && dp != dq)) return 0;
    return cl_tri_segment_crosses_n(a, b, c, p, q, n, dp, dq);
}

/* The normal *n and the dot products t[i] that cl_tri_segment_crosses(p0, p1, p2, v[i], v[j])
 * computes for the points v[0..2] (its normal (p1 - p0) x (p2 - p0) with v[i] - p0, the same
 * operations); returns 1 when they all are > 0 or all < 0: then no such call finds a crossing
 * (it needs the two of an edge to differ in sign or be 0). */
static int one_side(cl_vec3 p0, cl_vec3 p1, cl_vec3 p2, const cl_vec3 *v, cl_vec3 *n, double *t)
{
    *n = cl_cross(cl_sub(p1, p0), cl_sub(p2, p0));
    t[0] = cl_dot(*n, cl_sub(v[0], p0));
    t[1] = cl_dot(*n, cl_sub(v[1], p0));
    t[2] = cl_dot(*n, cl_sub(v[2], p0));
    return (t[0] > 0 && t[1] > 0 && t[2] > 0) || (t[0] < 0 && t[1] < 0 && t[2] < 0);
}

/* quad_near(a, b, c, q, lim2, 1), the tests whose answer is certain from the signs of their dot
 * products left out (they find no crossing): the quad's sides when side (tri_quad_gap's: the
 * corners on one side of abc's plane), the triangle's edges against a half of the quad whose plane
 * has the three vertices on one side (one_side). The same answer: a test left out returns 0. The
 * tests made take their normal and dot products from tp (abc's n and the corners' x: tp_make's
 * (k - a) . n is n . (k - a), the same products summed in the same order; q[i] is tp's corner
 * i < 2 ? i : 5 - i) and from one_side (the halves'). */
static int quad_crosses(const tsplane *tp, cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_vec3 *q, int side)
{
    static const int ek[4] = { 3, 1, 2, 0 };
    cl_vec3 v[3], n1, n2;
    double x[4], t1[3], t2[3];
    int k, s1, s2;
    v[0] = a; v[1] = b; v[2] = c;
    if (!side) {
        for (k = 0; k < 4; k++) x[k] = tp->x[k < 2 ? k : 5 - k];
        for (k = 0; k < 4; k++) {
            int i = ek[k], j = (ek[k] + 1) % 4;
            if (ts_crosses(&v[0], &v[1], &v[2], &q[i], &q[j], &tp->t->n, x[i], x[j])) return 1;
        }
    }
    s1 = one_side(q[0], q[1], q[2], v, &n1, t1);
    s2 = one_side(q[0], q[2], q[3], v, &n2, t2);
    if (s1 && s2) return 0;
    for (k = 0; k < 3; k++) {
        int j = (k + 1) % 3;
        if ((!s1 && ts_crosses(&q[0], &q[1], &q[2], &v[k], &v[j], &n1, t1[k], t1[j])) ||
            (!s2 && ts_crosses(&q[0], &q[2], &q[3], &v[k], &v[j], &n2, t2[k], t2[j])))
            return 1;
    }
    return 0;
}

/* The face's frame: its unit normal n0 (abc turns anticlockwise about it) and its edges' inward
 * normals in the plane m[i] = n0 x (v[i+1] - v[i]), of lengths ml[i]; ok: every ml[i] > 0. */
typedef cl_triframe faceframe;

/* n: (b - a) x (c - a), nl: ts_len of it (tp_make's; n0 is unit(n)) */
static void frame_of(faceframe *f, cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 n, double nl)
{
    int i;
    f->v[0] = a; f->v[1] = b; f->v[2] = c;
    f->n0 = cl_v3(n.x / nl + 0.0, n.y / nl + 0.0, n.z / nl + 0.0);
    for (i = 0; i < 3; i++) {
        f->m[i] = cl_cross(f->n0, cl_sub(f->v[i == 2 ? 0 : i + 1], f->v[i]));
        f->ml[i] = ts_len(f->m[i].x, f->m[i].y, f->m[i].z);
    }
    f->ok = f->ml[0] > 0 && f->ml[1] > 0 && f->ml[2] > 0;
}

/* How far the projection of x on the face's plane lies inside the triangle (the least distance to
 * its edges' lines; negative outside); f->ok. */
static double inside_by(const faceframe *f, cl_vec3 x)
{
    double k = HUGE_VAL;
    int i;
    for (i = 0; i < 3; i++) k = mind(k, cl_dot(cl_sub(x, f->v[i]), f->m[i]) / f->ml[i]);
    return k;
}

/* 1 when none of the swept triangle's pieces after its face (capsule_tri's order: the face abc
 * moved out by r comes first) can be met before bt, the face's hit on the ray of the capsule's end a
 * (origin o = a, unit direction ray->d): then that hit is the sweep's answer as it stands. The other
 * pieces lie within r of the prism T - [0, 1] sg (T the triangle abc, sg = b - a of the capsule): the
 * back triangle T - sg (its face and edges) and the side quads between T's edges and the back
 * triangle's (with their edges), all points z - l sg with l = 1 or z on T's boundary. Their computed
 * hits lie within r + g of them (near_path's trust: g is its margin over r). With n the unit normal
 * facing o, h(x) = n.(x - a), sigma = n.sg > 0 (the back triangle behind T), S the path's part
 * o .. o + bt d, H <= h along S (the least at its two ends), delta <= the distance in the plane
 * from S's projection to T's boundary (S's projection inside T; each edge's distance is linear
 * along S), s >= |sg - sigma n|: a point y = z - l sg is at height -l sigma and, for z on T's
 * boundary, at least delta - l s from x in the plane, so
 *   |x - y|^2 >= (H + l sigma)^2 + (delta' - l s)+^2 >= H^2 + delta'^2 + 2 l (H sigma - delta' s)
 * with delta' = min(delta, H sigma / s): at least H^2 + delta'^2; the back triangle (l = 1) is at
 * least H + sigma away. When both exceed r + g, no later piece has a hit at t < bt (strictly less
 * is what replaces a hit). mu (about 2^-38 of the coordinates, far above the rounding of these few
 * products, a few ulps) is taken off every computed bound. */
static int face_first(const faceframe *f, const cl_ray *ray, double bt, cl_vec3 sg, double r, double g, double mu)
{
    cl_vec3 n = f->n0, o = ray->o, sp;
    double h0 = cl_dot(cl_sub(o, f->v[0]), n), h1, H, sigma, sl, delta, dl, rg = r + g;
    if (!f->ok) return 0;
    if (h0 < 0) { n = cl_v3(-n.x, -n.y, -n.z); h0 = -h0; }
    h1 = h0 + bt * cl_dot(ray->d, n);
    H = mind(h0, h1) - mu;
    sigma = cl_dot(sg, n);
    if (!(H > 0 && sigma - mu > 0 && H + sigma - 2 * mu > rg)) return 0;
    /* each edge's distance is linear along the path: its ends decide */
    delta = mind(inside_by(f, o), inside_by(f, cl_add(o, cl_mul(ray->d, bt)))) - mu;
    if (!(delta > 0)) return 0;
    sp = cl_sub(sg, cl_mul(n, sigma));
    sl = ts_len(sp.x, sp.y, sp.z) + mu;
    sigma -= mu;
    dl = H * sigma / sl;
    if (dl < delta) delta = dl;
    return (H * H + delta * delta) * (1 - 0x1p-40) > rg * rg;
}

/* 1 when the grazing check's first test (quad_near: the triangle against the path of the capsule's
 * end a, from p = a + d back to a) certainly finds it nearer than lim (the allowance): p's projection
 * lies inside the triangle by more than mu and its height over the plane is under lim - 4 mu, so its
 * distance to the triangle is that height, and the one cl_tri_closest computes (within 2^-47 of the
 * coordinates, as tri_quad_gap assumes; mu is 2^-38 of them) is under lim too. */
static int end_deep(const faceframe *f, cl_vec3 p, double lim, double mu)
{
    return f->ok && fabs(cl_dot(cl_sub(p, f->v[0]), f->n0)) + 4 * mu < lim && inside_by(f, p) - mu > 0;
}

/* 1 when capsule_tri's three tests on the start distance (d2 = cl_tri_segment of the triangle and
 * the segment cp->a cp->b, its points ontri and onseg, w = unit(onseg - ontri)) certainly give
 * what a face-on start gives: d2 >= in2 and d2 > r^2 (no overlap, no touch at t = 0), w.d <
 * -2^-40 len (it approaches), and the until bound on sqrt(d2) not above tmax; then they need not be
 * computed. With nu the triangle's exact unit normal facing the segment and H the least height of
 * the segment over its plane (its ends' least), every point of the triangle is at height 0 and of
 * the segment at least H: the distance is at least H. cl_tri_segment's points lie within 2^-47 sc
 * of their sets (sc the largest |coordinate|: tri_quad_gap's trust) and the end p* of least height,
 * whose projection lies inside the triangle (inside_by beyond end_deep's mu), is at distance
 * h* from it, so its candidate (cl_tri_closest's point, as accurate) bounds d2 from above:
 *   H - 2 eps <= nu.(onseg - ontri),  |onseg - ontri| = sqrt(d2) <= h* + 2 eps   (eps = 2^-44 sc)
 * so d2 > r^2 when H - 2 eps > r, and cos(w, nu) >= c = (H - 2 eps) / (h* + 2 eps), whence
 * w.d <= c nu.d + sqrt(1 - c^2) len for nu.d < 0. The computed normal n0 errs from nu by under
 * 2^-47 E^2 / |n| + 2^-50 (E the largest |component| of the edges ab, ac; |n| = |ab x ac|): the
 * heights by under del = 2^-43 (K + E) (2 + E^2 / |n|) (K that of the ends less a), nu.d by under
 * 2^-44 (2 + E^2 / |n|) len. Every bound is taken with margins of 2^-46 or more over the rounding
 * of its few operations. Only for E^2 / |n| <= 16 (no sliver): then inside_by's error, from n0's,
 * is far under its margin, and cl_tri_closest's point for p* is within 2^-47 sc of p*'s projection;
 * |w| is 1 to 2^-50, so |w - (w.nu) nu| <= sqrt(1 - c^2) + 2^-24.5 (sn adds 2^-20). */
static int face_start(const faceframe *f, const cl_capsule *cp, cl_vec3 d, double r, double e, double tmax, double sc,
                      double len)
{
    cl_vec3 ab, ac, x, lo;
    double ha, hb, h, ka, ee, nl, q, del, eps, nd, H, U, c, sn;
    if (!f->ok) return 0;
    ab = cl_sub(f->v[1], f->v[0]);
    ac = cl_sub(f->v[2], f->v[0]);
    ee = maxd(cl_maxabs3(ab.x, ab.y, ab.z), cl_maxabs3(ac.x, ac.y, ac.z));
    x = cl_cross(ab, ac);
    nl = ts_len(x.x, x.y, x.z);
    if (!(nl > 0)) return 0;
    q = ee * ee / nl;
    if (!(q <= 16)) return 0;
    x = cl_sub(cp->a, f->v[0]);
    ka = cl_maxabs3(x.x, x.y, x.z);
    ha = cl_dot(x, f->n0);
    x = cl_sub(cp->b, f->v[0]);
    ka = maxd(ka, cl_maxabs3(x.x, x.y, x.z));
    hb = cl_dot(x, f->n0);
    nd = cl_dot(d, f->n0);
    if (ha < 0) { ha = -ha; hb = -hb; nd = -nd; }
    lo = ha <= hb ? cp->a : cp->b;
    h = ha <= hb ? ha : hb;
    del = (ka + ee) * (2 + q) * 0x1p-43;
    eps = sc * 0x1p-44;
    H = h - del - 2 * eps;              /* <= the least true height less 2 eps */
    if (!(H * (1 - 0x1p-46) > r)) return 0;
    if (!(inside_by(f, lo) - e * 16 > 0)) return 0;
    U = (h + del + 2 * eps) * (1 + 0x1p-46);    /* >= sqrt(d2) */
    /* the until bound: sqrt(d2) - r under e 2^18 makes its numerator <= 0, never above tmax >= 0 */
    if (tmax < 1 && !(tmax >= 0 && U - r < e * 0x1p18 * (1 - 0x1p-40))) return 0;
    c = H / U - 0x1p-46;
    if (!(c > 0.5)) return 0;
    sn = sqrt((1 - c) * (1 + c)) * (1 + 0x1p-40) + 0x1p-20;
    nd += len * (2 + q) * 0x1p-44;
    if (!(nd < 0)) return 0;
    return c * nd + (sn + 0x1p-38) * len < 0;
}

/* The sweep of cl_sweep_capsule_tri, the allowance raised by extra (cut_tri); SEPARATED also when
 * the contact certainly comes after tmax (cl_sweep_capsule_tri_until). clear: as
 * cl_sweep_capsule_tri_clear's; clear0 (when not NULL): a lower bound on the distance between the
 * triangle and the segment at the start (tri_quad_gap's, less 2^-48 of it), whatever the answer,
 * else left as it is. */
static cl_sweep capsule_tri(const cl_capmv *mv, cl_vec3 a, cl_vec3 b, cl_vec3 c, double mt, double extra,
                            double tmax, double *clear, double *clear0, int known, cl_tridata *td)
{
    cl_sweep s;
    cl_vec3 ontri, onseg, w, nu, sg, v[3], u[3], n = cl_v3(0, 0, 0), d = mv->d;
    const cl_vec3 *q = mv->q;
    const cl_capsule *cp = &mv->cp;
    cl_ray ray;
    cl_aabb pb;
    faceframe *ff;
    tsplane tp;
    cl_tridata own;
    double r = cp->r, e, in2, inh2, sk, d2, len, g, bt = HUGE_VAL;
    int i, rank = 0, far, deep;
    s.state = CL_TOI_SEPARATED; s.t = 1; s.n = cl_v3(0, 0, 0); s.rank = 0;
    if (!known && cl_tri_degenerate(a, b, c)) return s;
    /* mt: the triangle's largest |coordinate| (tri_max; < 0: not given) */
    if (!(mt >= 0)) mt = tri_max(a, b, c);
    e = (maxd(mt, mv->me) + r) * 0x1p-42 + extra;
    if (!(r > e)) return s;             /* (nearly) a segment: no interior to meet a flat triangle */
    /* the triangle's own values: td's (cl_sweep_capsule_tri_mvd checked that it holds them, the
     * same bits), else made here */
    if (!td) {
        td = &own;
        ts_tri_make(td, a, b, c);
    }
    tp_make(&tp, mv->pt, td, a);
    if (plane_apart(&tp, r, maxd(mt, mv->ms), tmax, e * 0x1p18, clear)) return s;
    in2 = (r - e) * (r - e);
    /* sk: ts_sink for a start that does not touch (r less the least depth it allows, half the
     * allowance); inh2, its square: a path never that near does not enter, whatever the start */
    sk = r - e * 0.5;
    inh2 = sk * sk;
    if (d.x == 0 && d.y == 0 && d.z == 0) {
        if (cl_tri_segment_below(a, b, c, cp->a, cp->b, in2)) { s.state = CL_TOI_OVERLAPPED; s.t = 0; }
        return s;
    }
    /* the parallelogram the segment sweeps: when the triangle is at least the allowance away from
     * it (tri_quad_gap, a bound on every distance the tests below compute), only a crossing found
     * by the grazing check's tests can make the path near; without one the answer is SEPARATED
     * whatever the start distance (it is at least the allowance too: no overlap) */
    {
        double sc = maxd(mt, mv->mq);
        int side;
        double gs2, g2 = tri_quad_gap(&tp, a, b, c, q, sc, &gs2, &side);
        /* the start segment's clearance (cl_sweep_capsule_tri_mv) */
        if (clear0 && gs2 > 0) *clear0 = sqrt(gs2) * (1 - 0x1p-48);
        far = g2 >= inh2;
        if (far && !quad_crosses(&tp, a, b, c, q, side)) {
            if (clear) *clear = sqrt(g2) * (1 - 0x1p-48);
            return s;
        }
        len = mv->len;
        /* the until bound below, from a lower bound on the start distance (at most the d2 computed
         * below, so that d2 is no overlap, and the bound below on it holds too): the same answer
         * without computing d2 */
        if (tmax < 1 && (sqrt(gs2) - r - e * 0x1p18) / len > tmax) return s;
        /* far along an edge's direction x d instead: the same answer as above (SEPARATED unless
         * a crossing; with one, every test below runs as before, and quad_near, which it makes
         * skip, would find the crossing); *clear from it as from tri_quad_gap's. Not tried when
         * end_deep finds the path certainly near (then no bound reaches in2, and the grazing
         * check below is passed whatever quad_near says) */
        if (!(td->have & 2)) {
            frame_of(&td->f, a, b, c, td->n, td->nl);
            td->have |= 2;
        }
        ff = &td->f;
        deep = !far && end_deep(ff, q[3], r - e, e * 16);
        if (!far && !deep && (g2 = ts_edge_far(&tp, a, b, c, q, d, sc, inh2)) > 0) {
            far = 1;
            if (!quad_crosses(&tp, a, b, c, q, side)) {
                if (clear) *clear = sqrt(g2) * (1 - 0x1p-48);
                return s;
            }
        }
    }
    if (known && face_start(ff, cp, d, r, e, tmax, maxd(mt, mv->mq), len)) {
        /* the start distance's three tests below certainly pass, and d2 > r^2 (face_start) */
        d2 = HUGE_VAL;
        w = cl_v3(0, 0, 0);
    } else {
        d2 = cl_tri_segment(a, b, c, cp->a, cp->b, &ontri, &onseg);
        if (d2 < in2) { s.state = CL_TOI_OVERLAPPED; s.t = 0; return s; }
        /* the distance between the moving capsule's segment and the triangle is convex in t: a
         * start that does not approach (to rounding, 2^-40 of the motion) stays at least its
         * distance less that, so it never goes deeper than ts_sink allows (a capsule sliding on the
         * triangle) when that is enough; or when ts_sink allows the allowance itself (a start
         * within rounding of it), since then every leg's rounding would be a contact at t = 0: 16
         * collisions and nothing made, for good (review rev16's F1; sliding on, the start's
         * contacts kept it out). (It returned SEPARATED whatever the depth: a capsule slid 0.12 at
         * a time, each slide closing 9e-14 on a floor at coordinates near 54, sank to the allowance
         * and made nothing from then on.) */
        w = unit(cl_sub(onseg, ontri));
        /* (ts_sink is r - e / 2 for a start that does not touch: sk as it is) */
        if (d2 < r * r) sk = ts_sink(r, e, d2, d);
        if (!(cl_dot(w, d) < -(len * 0x1p-40)) && (sqrt(d2) - len * 0x1p-40 >= sk || sk <= r - e)) return s;
        /* the segment's distance to the triangle falls by at most len per unit of t: no contact
         * comes before (sqrt(d2) - r) / len. The margin, 2^18 allowances (2^-24 of the
         * coordinates), is far above the rounding of d2 and of the t the ray pieces below compute
         * (a few ulps of the coordinates, and of t) */
        if (tmax < 1 && (sqrt(d2) - r - e * 0x1p18) / len > tmax) return s;
    }
    /* nor does a path that never comes closer than the allowance (grazing an edge, or touching
     * only at the end): the distance between the triangle and the parallelogram the segment
     * sweeps, from its edges against the triangle and the triangle's edges against it (the
     * first distance under the allowance decides) */
    if (!far && !deep && !quad_near(a, b, c, q, sk * sk, 0)) return s;
    if (d2 <= r * r) return ts_touch_start(w, ff->n0, d);    /* ff->n0: the face's unit normal (frame_of) */
    if (!cl_ray_make(&ray, cp->a, d)) return s;
    /* the ray of the capsule's end a against the triangle swept back along the segment (the
     * prism of abc and abc - sg), rounded by r: its faces moved out, its edges' capsules */
    sg = cl_sub(cp->b, cp->a);
    v[0] = a; v[1] = b; v[2] = c;
    for (i = 0; i < 3; i++) u[i] = cl_sub(v[i], sg);
    /* a piece whose box grown by r (and 2^-30 of the scale for rounding) misses the path's box
     * has no hit: left out */
    pb.min = pb.max = cp->a;
    pb.min = cl_v3(mind(pb.min.x, cp->a.x + d.x), mind(pb.min.y, cp->a.y + d.y), mind(pb.min.z, cp->a.z + d.z));
    pb.max = cl_v3(maxd(pb.max.x, cp->a.x + d.x), maxd(pb.max.y, cp->a.y + d.y), maxd(pb.max.z, cp->a.z + d.z));
    g = r + e * 0x1p14;
    if (near_path(&pb, v, 3, g)) offset_hits(&ray, len, d, a, b, c, r, 1, &bt, &n, &rank);
    /* a hit on the face well inside it, the rest of the prism behind: the other pieces come later */
    if (!(rank == 1 && face_first(ff, &ray, bt, sg, r, g - r, e * 16 + bt * 0x1p-38))) {
        if (near_path(&pb, u, 3, g)) offset_hits(&ray, len, d, u[0], u[1], u[2], r, 1, &bt, &n, &rank);
        for (i = 0; i < 3; i++) {
            int j = (i + 1) % 3;
            cl_vec3 k[4];
            k[0] = v[i]; k[1] = v[j]; k[2] = u[j]; k[3] = u[i];
            if (!near_path(&pb, k, 4, g)) continue;
            offset_hits(&ray, len, d, v[i], v[j], u[j], r, 2, &bt, &n, &rank);
            offset_hits(&ray, len, d, v[i], u[j], u[i], r, 2, &bt, &n, &rank);
            if (near_path(&pb, k, 2, g)) capsule_hits(&ray, len, d, v[i], v[j], r, 2, &bt, &n, &rank);
            if (near_path(&pb, k + 2, 2, g)) capsule_hits(&ray, len, d, u[i], u[j], r, 2, &bt, &n, &rank);
            k[1] = u[i];
            if (near_path(&pb, k, 2, g)) capsule_hits(&ray, len, d, v[i], u[i], r, 2, &bt, &n, &rank);
        }
    }
    if (rank == 0 && !(d2 <= (r + e) * (r + e))) return s;    /* (d2 is HUGE_VAL after face_start) */
    if (rank == 0) {
        /* the path goes deeper than ts_sink allows, yet no piece is met: a start within rounding
         * of touching (sphere_tri's case; a capsule 7e-13 off a triangle at coordinates near
         * 3e5, moved 6.5e-8 into it, met nothing and ended inside it), the touching start's
         * contact */
        return ts_touch_start(w, ff->n0, d);
    }
    nu = ff->n0;     /* unit(cl_cross(cl_sub(b, a), cl_sub(c, a))), frame_of's */
    /* met along the face's plane (lying on it, or where two tiles meet): a face contact */
    if (rank > 1 && ts_face_snap(&n, nu, d)) rank = 1;
    bt /= len;
    if (!(bt < 1)) return s;
    s.state = CL_TOI_TOUCHING;
    s.t = bt;
    s.n = n;
    s.rank = rank;
    return s;
}

int cl_penetration_capsule_tri(const cl_capsule *cp, cl_vec3 a, cl_vec3 b, cl_vec3 c, double *depth, cl_vec3 *n)
{
    cl_vec3 ontri, onseg, nu, pt[2];
    double d2, ha, hb, up, down;
    int k;
    pt[0] = cp->a; pt[1] = cp->b;
    k = cl_range_k(tri_mx(a, b, c, pt, 2, cl_v3(0, 0, 0), cp->r));
    if (k != 0) {   /* cl_range_k: scaled into range, the depth back */
        cl_capsule c2;
        c2.a = cl_vscale2(cp->a, k); c2.b = cl_vscale2(cp->b, k); c2.r = cl_scale2(cp->r, k);
        if (!cl_penetration_capsule_tri(&c2, cl_vscale2(a, k), cl_vscale2(b, k), cl_vscale2(c, k), depth, n)) return 0;
        *depth = cl_scale2(*depth, -k);
        return 1;
    }
    if (cl_tri_degenerate(a, b, c)) return 0;
    d2 = cl_tri_segment(a, b, c, cp->a, cp->b, &ontri, &onseg);
    if (!(d2 < cp->r * cp->r)) return 0;
    if (d2 > 0) {
        *depth = cp->r - sqrt(d2);
        *n = unit(cl_sub(onseg, ontri));
        return 1;
    }
    /* the segment crosses the triangle: out along its normal, to the nearer side */
    nu = unit(cl_cross(cl_sub(b, a), cl_sub(c, a)));
    ha = cl_dot(cl_sub(cp->a, a), nu);
    hb = cl_dot(cl_sub(cp->b, a), nu);
    up = cp->r - fmin(ha, hb);
    down = cp->r + fmax(ha, hb);
    if (up <= down) { *depth = up; *n = nu; }
    else { *depth = down; *n = cl_v3(0.0 - nu.x, 0.0 - nu.y, 0.0 - nu.z); }
    return 1;
}

int cl_penetration_sphere_tri(const cl_sphere *sp, cl_vec3 a, cl_vec3 b, cl_vec3 c, double *depth, cl_vec3 *n)
{
    cl_vec3 q, w;
    double d2;
    int k = cl_range_k(tri_mx(a, b, c, &sp->c, 1, cl_v3(0, 0, 0), sp->r));
    if (k != 0) {   /* cl_range_k: scaled into range, the depth back */
        cl_sphere s2;
        s2.c = cl_vscale2(sp->c, k); s2.r = cl_scale2(sp->r, k);
        if (!cl_penetration_sphere_tri(&s2, cl_vscale2(a, k), cl_vscale2(b, k), cl_vscale2(c, k), depth, n)) return 0;
        *depth = cl_scale2(*depth, -k);
        return 1;
    }
    if (cl_tri_degenerate(a, b, c)) return 0;
    q = cl_tri_closest(a, b, c, sp->c);
    w = cl_sub(sp->c, q);
    d2 = cl_dot(w, w);
    if (!(d2 < sp->r * sp->r)) return 0;
    if (d2 > 0) {
        double l = sqrt(d2);
        *depth = sp->r - l;
        *n = unit(w);
    } else {
        /* the centre on the triangle: out through its face (an edge is at least r away) */
        *depth = sp->r;
        *n = unit(cl_cross(cl_sub(b, a), cl_sub(c, a)));
    }
    return 1;
}

int cl_tri_overlaps_tri(const cl_vec3 p[3], const cl_vec3 q[3])
{
    cl_vec3 np, nq, ax[17];
    int i, j, k = 0, e = cl_range_k(tri_mx(p[0], p[1], p[2], q, 3, cl_v3(0, 0, 0), 0));
    if (e != 0) {   /* cl_range_k: scaled into range */
        cl_vec3 ps[3], qs[3];
        for (i = 0; i < 3; i++) { ps[i] = cl_vscale2(p[i], e); qs[i] = cl_vscale2(q[i], e); }
        return cl_tri_overlaps_tri(ps, qs);
    }
    np = cl_cross(cl_sub(p[1], p[0]), cl_sub(p[2], p[0]));
    nq = cl_cross(cl_sub(q[1], q[0]), cl_sub(q[2], q[0]));
    if ((np.x == 0 && np.y == 0 && np.z == 0) || (nq.x == 0 && nq.y == 0 && nq.z == 0)) return 0;
    ax[k++] = np;
    ax[k++] = nq;
    for (i = 0; i < 3; i++) {
        cl_vec3 ep = cl_sub(p[(i + 1) % 3], p[i]), eq = cl_sub(q[(i + 1) % 3], q[i]);
        ax[k++] = cl_cross(np, ep);      /* in-plane edge normals: the coplanar case */
        ax[k++] = cl_cross(nq, eq);
        for (j = 0; j < 3; j++) {
            cl_vec3 x = cl_cross(ep, cl_sub(q[(j + 1) % 3], q[j]));
            if (x.x != 0 || x.y != 0 || x.z != 0) ax[k++] = x;
        }
    }
    for (i = 0; i < k; i++) {
        double p0, p1, q0, q1;
        proj(p, 3, ax[i], &p0, &p1);
        proj(q, 3, ax[i], &q0, &q1);
        if (p1 < q0 || q1 < p0) return 0;
    }
    return 1;
}
