/* collide core: triangle tests. Owns the watertight ray/triangle test (after Woop, Benthin and
 * Wald, "Watertight Ray/Triangle Intersection", JCGT 2013: the ray is sheared so that it runs
 * along +z from the origin, each vertex is transformed once, and the three edge functions of the
 * projected triangle decide; two triangles sharing an edge compute that edge's function from the
 * same two transformed vertices, so their signs are exact opposites and no ray slips between them),
 * triangle/box by separating axes, and the closest-point tests (triangle/point, triangle/sphere,
 * triangle/segment). Triangles are three vertices a, b, c; a triangle is degenerate when
 * cross(b - a, c - a), computed in doubles, is the zero vector, and degenerate triangles never hit.
 * Every test is exact (up to rounding of the usual formulas) for coordinates whose magnitudes are
 * at most 2^200 (so that products of dot products cannot overflow); callers with larger data scale
 * it by a power of two first (mesh.c does). */
#include "vec.h"

/* fmax and fmin without the library call (same values: NaN gives the other one; the callers never
 * tell -0 from +0). */
static inline double maxd(double a, double b) { return (a > b || b != b) ? a : b; }
static inline double mind(double a, double b) { return (a < b || b != b) ? a : b; }

/* cross(b - a, c - a) of a triangle of size 2^-540 underflowed to zero (a World mesh item's
 * triangles were left out of mesh/mesh pairs), and of size 2^520 overflowed. So: a finite cross
 * product with a component of at least 2^-900 says "not degenerate" at once; otherwise data whose
 * largest |coordinate| mx lies outside [2^-200, 2^200] is judged scaled by cl_range_k's power of
 * two (vec.h: the least scaling into range, a component flushed only when the data has no scaled
 * copy in range at all; scaling 2^601 down into
 * [0.5, 1) flushed a 2^-500 offset and called a triangle of normal (-2^100, 0, 2^100)
 * degenerate). Data in range is judged as given: a triangle tiny against its own coordinates (a
 * cross product whose every component underflows, e.g. size 2^-600 at 0.5) is degenerate in
 * doubles there, as the README defines it, and not at 2^300 times that scale. */
int cl_tri_degenerate(cl_vec3 a, cl_vec3 b, cl_vec3 c)
{
    cl_vec3 n = cl_cross(cl_sub(b, a), cl_sub(c, a));
    double mx;
    int k;
    if ((fabs(n.x) >= 0x1p-900 || fabs(n.y) >= 0x1p-900 || fabs(n.z) >= 0x1p-900) && cl_vfinite(n)) return 0;
    mx = maxd(maxd(cl_maxabs3(a.x, a.y, a.z), cl_maxabs3(b.x, b.y, b.z)), cl_maxabs3(c.x, c.y, c.z));
    k = cl_range_k(mx);
    if (k != 0) {
        a = cl_vscale2(a, k); b = cl_vscale2(b, k); c = cl_vscale2(c, k);
        n = cl_cross(cl_sub(b, a), cl_sub(c, a));
    }
    return n.x == 0 && n.y == 0 && n.z == 0;
}

void cl_tray_make(cl_tray *tr, const cl_ray *r)
{
    double ax = fabs(r->d.x), ay = fabs(r->d.y), az = fabs(r->d.z), dz;
    int kz = ax >= ay ? (ax >= az ? 0 : 2) : (ay >= az ? 1 : 2);
    tr->kz = kz;
    tr->kx = kz == 2 ? 0 : kz + 1;
    tr->ky = tr->kx == 2 ? 0 : tr->kx + 1;
    dz = cl_comp(r->d, kz);
    tr->sx = cl_comp(r->d, tr->kx) / dz;
    tr->sy = cl_comp(r->d, tr->ky) / dz;
    tr->sz = 1.0 / dz;
    tr->o = r->o;
}

/* a*d - b*c with the sign of the exact value (Kahan's difference of products with fma: the result
 * is within 1.5 ulp of the exact value, so it is zero exactly when the exact value is). */
static double diffprod(double a, double d, double b, double c)
{
    double w = b * c;
    double e = fma(-b, c, w);
    double f = fma(a, d, -w);
    return f + e;
}

int cl_tray_hit(const cl_tray *tr, cl_vec3 a, cl_vec3 b, cl_vec3 c, double *t)
{
    double o[3], pa[3], pb[3], pc[3];
    double ax, ay, bx, by, cx, cy, u, v, w, det, tt;
    o[0] = tr->o.x; o[1] = tr->o.y; o[2] = tr->o.z;
    pa[0] = a.x - o[0]; pa[1] = a.y - o[1]; pa[2] = a.z - o[2];
    pb[0] = b.x - o[0]; pb[1] = b.y - o[1]; pb[2] = b.z - o[2];
    pc[0] = c.x - o[0]; pc[1] = c.y - o[1]; pc[2] = c.z - o[2];
    ax = pa[tr->kx] - tr->sx * pa[tr->kz]; ay = pa[tr->ky] - tr->sy * pa[tr->kz];
    bx = pb[tr->kx] - tr->sx * pb[tr->kz]; by = pb[tr->ky] - tr->sy * pb[tr->kz];
    cx = pc[tr->kx] - tr->sx * pc[tr->kz]; cy = pc[tr->ky] - tr->sy * pc[tr->kz];
    u = cx * by - cy * bx;
    v = ax * cy - ay * cx;
    w = bx * ay - by * ax;
    /* a zero may be a rounding artefact: recompute with the exact sign (same value for both
     * triangles of a shared edge, up to sign, so watertightness is kept) */
    if (u == 0 || v == 0 || w == 0) {
        u = diffprod(cx, by, cy, bx);
        v = diffprod(ax, cy, ay, cx);
        w = diffprod(bx, ay, by, ax);
    }
    if ((u < 0 || v < 0 || w < 0) && (u > 0 || v > 0 || w > 0)) return 0;
    det = u + v + w;
    if (det == 0 || det != det) return 0;  /* ray in the triangle's plane, or degenerate */
    tt = (u * pa[tr->kz] + v * pb[tr->kz] + w * pc[tr->kz]) * tr->sz / det;
    if (!(tt >= 0)) {
        /* a t below 0 by less than the rounding of the sheared coordinates (2^-42 of their size
         * along the ray) is an origin on the triangle to rounding: a hit at t = 0, as for an
         * origin exactly on it (a ray starting 1 to 7 ulps above a triangle and aimed into it
         * got t = -1e-15 and missed; spheres and capsules resting that close to a mesh floor
         * were not stopped by it). At most 2^-42 * 2 * sqrt(3) of the larger of the data's and
         * the origin's magnitude: within the slack of cl_mesh_raycast's node test (2^-40 of
         * it), so the tree never prunes a node holding such a hit (fuzz_mesh) */
        double m = cl_maxabs3(cl_maxabs3(pa[0], pa[1], pa[2]), cl_maxabs3(pb[0], pb[1], pb[2]),
                              cl_maxabs3(pc[0], pc[1], pc[2]));
        if (!(tt >= -ldexp(m * fabs(tr->sz), -42))) return 0;
        tt = 0;
    }
    *t = tt;
    return 1;
}

cl_vec3 cl_tri_normal(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 d)
{
    cl_vec3 n = cl_cross(cl_sub(b, a), cl_sub(c, a));
    double l = cl_len(n.x, n.y, n.z);
    if (l == 0) return n;
    n = cl_v3(n.x / l, n.y / l, n.z / l);  /* divided, not multiplied by 1/l: axis normals come out exact */
    return cl_dot(n, d) > 0 ? cl_v3(0.0 - n.x, 0.0 - n.y, 0.0 - n.z) : n;  /* 0 - x: no -0 */
}

int cl_tri_raycast(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_ray *r, double maxt, cl_hit *out)
{
    cl_tray tr;
    double t;
    if (cl_tri_degenerate(a, b, c)) return 0;
    cl_tray_make(&tr, r);
    if (!cl_tray_hit(&tr, a, b, c, &t) || t > maxt) return 0;
    out->t = t;
    out->n = cl_tri_normal(a, b, c, r->d);
    return 1;
}

/* The point of the three edges of abc closest to p (the first of equals). */
static cl_vec3 edgesclosest(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p)
{
    double s, best, dd;
    cl_vec3 q = cl_closest_on_segment(p, a, b, &s), r, e = cl_sub(p, q);
    best = cl_dot(e, e);
    r = cl_closest_on_segment(p, b, c, &s);
    e = cl_sub(p, r);
    dd = cl_dot(e, e);
    if (dd < best) { best = dd; q = r; }
    r = cl_closest_on_segment(p, c, a, &s);
    e = cl_sub(p, r);
    return cl_dot(e, e) < best ? r : q;
}

/* The closest point of the triangle to p by Voronoi regions, before cl_tri_closest keeps it in the
 * triangle's box (rounding can carry it out by a few ulps of the largest coordinate). */
static cl_vec3 closest_raw(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p)
{
    /* Voronoi regions of the vertices, then the edges, then the face (as in Ericson's
     * Real-Time Collision Detection, 5.1.5) */
    cl_vec3 ab = cl_sub(b, a), ac = cl_sub(c, a), ap = cl_sub(p, a), bp, cp;
    double d1 = cl_dot(ab, ap), d2 = cl_dot(ac, ap), d3, d4, d5, d6, va, vb, vc, den;
    if (d1 <= 0 && d2 <= 0) return a;
    bp = cl_sub(p, b);
    d3 = cl_dot(ab, bp);
    d4 = cl_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return b;
    vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return d1 - d3 > 0 ? cl_add(a, cl_mul(ab, d1 / (d1 - d3))) : edgesclosest(a, b, c, p);
    cp = cl_sub(p, c);
    d5 = cl_dot(ab, cp);
    d6 = cl_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return c;
    vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return d2 - d6 > 0 ? cl_add(a, cl_mul(ac, d2 / (d2 - d6))) : edgesclosest(a, b, c, p);
    va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
        return (d4 - d3) + (d5 - d6) > 0 ? cl_add(b, cl_mul(cl_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)))) : edgesclosest(a, b, c, p);
    den = va + vb + vc;
    if (!(den > 0)) return edgesclosest(a, b, c, p);  /* degenerate (or nearly) */
    return cl_add(a, cl_add(cl_mul(ab, vb / den), cl_mul(ac, vc / den)));
}

/* x clamped into [min(a,b,c), max(a,b,c)] (a coordinate of each). */
static inline double clamp3(double x, double a, double b, double c)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    lo = c < lo ? c : lo;
    hi = c > hi ? c : hi;
    return x < lo ? lo : (x > hi ? hi : x);
}

cl_vec3 cl_tri_closest(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p)
{
    /* the exact closest point lies in the triangle's box: clamping only brings the rounded one
     * nearer to it, and keeps it where the mesh tree's boxes say it can be */
    cl_vec3 q = closest_raw(a, b, c, p);
    return cl_v3(clamp3(q.x, a.x, b.x, c.x), clamp3(q.y, a.y, b.y, c.y), clamp3(q.z, a.z, b.z, c.z));
}

/* Projection interval of the box [lo, hi] on axis n: the sum over axes of the smaller and larger
 * of n_i lo_i and n_i hi_i. */
static void boxproj(const cl_aabb *bx, cl_vec3 n, double *mn, double *mx)
{
    double l0 = n.x * bx->min.x, h0 = n.x * bx->max.x;
    double l1 = n.y * bx->min.y, h1 = n.y * bx->max.y;
    double l2 = n.z * bx->min.z, h2 = n.z * bx->max.z;
    *mn = (l0 < h0 ? l0 : h0) + (l1 < h1 ? l1 : h1) + (l2 < h2 ? l2 : h2);
    *mx = (l0 < h0 ? h0 : l0) + (l1 < h1 ? h1 : l1) + (l2 < h2 ? h2 : l2);
}

/* 1 if the triangle and box are separated along axis n (touching is not separated). */
static int separated(const cl_vec3 v[3], const cl_aabb *bx, cl_vec3 n)
{
    double p0 = cl_dot(v[0], n), p1 = cl_dot(v[1], n), p2 = cl_dot(v[2], n), tmn, tmx, bmn, bmx;
    tmn = p0 < p1 ? p0 : p1; if (p2 < tmn) tmn = p2;
    tmx = p0 > p1 ? p0 : p1; if (p2 > tmx) tmx = p2;
    boxproj(bx, n, &bmn, &bmx);
    return tmx < bmn || bmx < tmn;
}

/* 1 if the triangle lies wholly on one side of one of the box's faces (exact comparisons of
 * coordinates: the separating axes along the world axes). */
static int apart(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_aabb *bx)
{
    return (a.x < bx->min.x && b.x < bx->min.x && c.x < bx->min.x) || (a.x > bx->max.x && b.x > bx->max.x && c.x > bx->max.x) ||
           (a.y < bx->min.y && b.y < bx->min.y && c.y < bx->min.y) || (a.y > bx->max.y && b.y > bx->max.y && c.y > bx->max.y) ||
           (a.z < bx->min.z && b.z < bx->min.z && c.z < bx->min.z) || (a.z > bx->max.z && b.z > bx->max.z && c.z > bx->max.z);
}

int cl_tri_overlaps_aabb(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_aabb *bx)
{
    cl_vec3 v[3], e[3];
    int i;
    if (apart(a, b, c, bx)) return 0;  /* the box's three face axes */
    v[0] = a; v[1] = b; v[2] = c;
    e[0] = cl_sub(b, a); e[1] = cl_sub(c, b); e[2] = cl_sub(a, c);
    /* the triangle's normal */
    if (separated(v, bx, cl_cross(e[0], cl_sub(c, a)))) return 0;
    /* the nine edge x box-axis axes: e x x = (0, e.z, -e.y), e x y = (-e.z, 0, e.x), e x z = (e.y, -e.x, 0) */
    for (i = 0; i < 3; i++) {
        if (separated(v, bx, cl_v3(0, e[i].z, -e[i].y))) return 0;
        if (separated(v, bx, cl_v3(-e[i].z, 0, e[i].x))) return 0;
        if (separated(v, bx, cl_v3(e[i].y, -e[i].x, 0))) return 0;
    }
    return 1;
}

int cl_tri_overlaps_obb(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_obb *o)
{
    cl_vec3 p[3], q[3];
    cl_aabb bx = cl_obb_aabb(o);
    int i;
    /* first the box's enclosing AABB in world coordinates (exact comparisons): the frame change
     * below rounds, and a triangle far larger than the box could otherwise be taken to reach it
     * while lying wholly beside it (found by fuzzing); a mesh prunes by the same box */
    if (apart(a, b, c, &bx)) return 0;
    p[0] = a; p[1] = b; p[2] = c;
    for (i = 0; i < 3; i++) {
        cl_vec3 d = cl_sub(p[i], o->c);
        q[i] = cl_v3(cl_dot(d, o->u[0]), cl_dot(d, o->u[1]), cl_dot(d, o->u[2]));
    }
    bx.min = cl_mul(o->h, -1.0);
    bx.max = o->h;
    return cl_tri_overlaps_aabb(q[0], q[1], q[2], &bx);
}

int cl_tri_overlaps_sphere(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_sphere *s)
{
    cl_aabb bx = cl_sphere_aabb(s);
    cl_vec3 q;
    if (apart(a, b, c, &bx)) return 0;  /* as for OBBs: exact, and what a mesh prunes by */
    q = cl_tri_closest(a, b, c, s->c);
    return cl_len_le(q.x - s->c.x, q.y - s->c.y, q.z - s->c.z, s->r);
}

int cl_tri_overlaps_capsule(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_capsule *cp)
{
    cl_aabb bx = cl_segbox(cp->a, cp->b, cp->r);
    cl_vec3 ont, ons;
    if (apart(a, b, c, &bx)) return 0;  /* as for OBBs: exact, and what a mesh prunes by */
    cl_tri_segment(a, b, c, cp->a, cp->b, &ont, &ons);
    return cl_len_le(ont.x - ons.x, ont.y - ons.y, ont.z - ons.z, cp->r);
}

/* Closest points of segments p1q1 and p2q2 (cl_segment_segment; zero-length segments allowed);
 * returns the squared distance and writes the two points. */
static double segseg(cl_vec3 p1, cl_vec3 q1, cl_vec3 p2, cl_vec3 q2, cl_vec3 *c1, cl_vec3 *c2)
{
    double s, t;
    cl_vec3 w;
    cl_segment_segment(p1, q1, p2, q2, &s, &t, c1, c2);
    w = cl_sub(*c1, *c2);
    return cl_dot(w, w);
}

/* The box of the n points v (n <= 3), as min (lo) and max (hi) per axis. */
static void box_of(const cl_vec3 *v, int n, double lo[3], double hi[3])
{
    int i;
    lo[0] = hi[0] = v[0].x; lo[1] = hi[1] = v[0].y; lo[2] = hi[2] = v[0].z;
    for (i = 1; i < n; i++) {
        if (v[i].x < lo[0]) lo[0] = v[i].x;
        if (v[i].x > hi[0]) hi[0] = v[i].x;
        if (v[i].y < lo[1]) lo[1] = v[i].y;
        if (v[i].y > hi[1]) hi[1] = v[i].y;
        if (v[i].z < lo[2]) lo[2] = v[i].z;
        if (v[i].z > hi[2]) hi[2] = v[i].z;
    }
}

/* A lower bound on every squared distance trisegment computes between a point of the box
 * [alo, ahi] and one of [blo, bhi], as it computes it (the end points' closest points on the
 * triangle are clamped into its box; cl_segment_segment's points round out of their segment's box
 * by at most 6 ulps of the largest coordinate, far less than the allowance eps): per axis the gap
 * between the boxes less eps, so that each computed difference is at least as large, and then
 * summed as cl_dot sums (rounding is monotone: the computed distance is at least this sum). */
static double gap2(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3],
                   double eps)
{
    double g[3];
    int i;
    for (i = 0; i < 3; i++) {
        double x = blo[i] - ahi[i], y = alo[i] - bhi[i];
        if (y > x) x = y;
        g[i] = x > eps ? x - eps : 0;   /* NaN: 0 */
    }
    return g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
}

/* A lower bound on the distance between the triangle and the segment pq along the unit normal
 * when pq stays on one side of the triangle's plane (dp, dq: the dot products of its ends with the
 * computed normal n, of length nl, from a, of the same sign), else 0. Exact reasoning with the
 * computed n: the triangle lies within 2^-48 L^3 / |n| of the plane through a normal to n (L: the
 * largest coordinate of b - a, c - a; n's rounding), the segment is at least
 * (min(|dp|, |dq|) - 2^-49 |n| P) / |n| from it (P: the largest coordinate of p - a, q - a; the dot
 * products' rounding); the margins below are 16 times those. Callers keep coordinates in
 * [2^-300, 2^200]; a normal under 2^-400 gives 0. */
static double plane_sep(double nl, cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q, double dp,
                        double dq)
{
    double l, pm, h, m;
    cl_vec3 x;
    if (!((dp > 0 && dq > 0) || (dp < 0 && dq < 0)) || !(nl >= 0x1p-400)) return 0;
    x = cl_sub(b, a); l = cl_maxabs3(x.x, x.y, x.z);
    x = cl_sub(c, a); l = maxd(l, cl_maxabs3(x.x, x.y, x.z));
    x = cl_sub(p, a); pm = cl_maxabs3(x.x, x.y, x.z);
    x = cl_sub(q, a); pm = maxd(pm, cl_maxabs3(x.x, x.y, x.z));
    m = (l * l * l + nl * pm) * 0x1p-44;
    h = (dp > 0 ? (dp < dq ? dp : dq) : (dp > dq ? -dp : -dq)) - m;
    if (!(h > 0)) return 0;
    return h / nl * (1 - 0x1p-44);
}

/* The squared lower bound from a separation h (distance, without the points' rounding): the points
 * trisegment compares lie within 2^-47 sc of the triangle and the segment. */
static double sep2(double h, double sc)
{
    h = h * (1 - 0x1p-44) - sc * 0x1p-43;
    return h > 0 ? h * h * (1 - 0x1p-44) : 0;
}

/* A lower bound on the squared distance trisegment computes between edge e0e1 of the triangle and
 * the segment pq, from the segment's separation hn (plane_sep) along the normal n (length nl) and
 * its separation along the edge's normal in the plane, cross(e1 - e0, n) (orthogonal to n up to
 * rounding: the squares add; the edge lies on its line up to that rounding, less than the
 * margin, 16 times the dot products' rounding). */
static double edge_gap(cl_vec3 n, double hn, cl_vec3 e0, cl_vec3 e1, cl_vec3 p, cl_vec3 q, double sc)
{
    cl_vec3 e = cl_sub(e1, e0), m = cl_cross(e, n), x;
    double ml = sqrt(cl_dot(m, m)), dp, dq, pm, h = 0;
    if (ml >= 0x1p-400) {
        x = cl_sub(p, e0); pm = cl_maxabs3(x.x, x.y, x.z); dp = cl_dot(x, m);
        x = cl_sub(q, e0); pm = maxd(pm, cl_maxabs3(x.x, x.y, x.z)); dq = cl_dot(x, m);
        pm = maxd(pm, cl_maxabs3(e.x, e.y, e.z));
        h = (dp > 0 && dq > 0) ? mind(dp, dq) : (dp < 0 && dq < 0) ? -maxd(dp, dq) : 0;
        h -= pm * ml * 0x1p-43;
        h = h > 0 ? h / ml * (1 - 0x1p-44) : 0;
    }
    return sep2(sqrt(hn * hn + h * h), sc);
}

/* 1 when segment pq crosses the plane of triangle abc (normal n = (b - a) x (c - a); dp, dq the
 * dot products of n with p - a and q - a) inside the triangle, the crossing point in *x. */
static inline int seg_crossing(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q, cl_vec3 n, double dp,
                               double dq, cl_vec3 *x)
{
    if (((dp <= 0 && dq >= 0) || (dp >= 0 && dq <= 0)) && dp != dq) {
        cl_vec3 y = cl_add(p, cl_mul(cl_sub(q, p), dp / (dp - dq)));
        /* the three sides' tests in turn: the first that fails decides (0) */
        *x = y;
        if (!(cl_dot(n, cl_cross(cl_sub(b, a), cl_sub(y, a))) >= 0)) return 0;
        if (!(cl_dot(n, cl_cross(cl_sub(c, b), cl_sub(y, b))) >= 0)) return 0;
        return cl_dot(n, cl_cross(cl_sub(a, c), cl_sub(y, c))) >= 0;
    }
    return 0;
}

/* cl_tri_segment's squared distance, or the first of its candidate distances under lim2 as soon as
 * one is (so the result is under lim2 exactly when cl_tri_segment's is; lim2 < 0 takes them all).
 * With lim2 >= 0 the result is only compared with lim2: candidates that the boxes prove at least
 * lim2 are left out (then a result >= lim2 need not be the distance). */
static double trisegment(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q, double lim2, cl_vec3 *ontri,
                         cl_vec3 *onseg)
{
    cl_vec3 n = cl_cross(cl_sub(b, a), cl_sub(c, a)), t0, s0, t1, s1, w, v[3], x;
    double dp = cl_dot(n, cl_sub(p, a)), dq = cl_dot(n, cl_sub(q, a)), best, d, eps, sc;
    double tlo[3], thi[3], slo[3], shi[3], elo[3], ehi[3], nl = 0, hn = 0;
    int usebox, useplane = 0;
    /* the segment crosses the triangle's plane inside the triangle: distance 0 */
    if (seg_crossing(a, b, c, p, q, n, dp, dq, &x)) {
        *ontri = x;
        *onseg = x;
        return 0;
    }
    /* otherwise the nearest of: the two endpoints to the triangle, the segment to the three edges;
     * a candidate whose boxes' gap bound is at least what it must beat (lim2, or the best so far)
     * cannot win: left out (coordinates up to 2^400, where the bound's allowance holds) */
    v[0] = a; v[1] = b; v[2] = c;
    sc = maxd(maxd(cl_maxabs3(a.x, a.y, a.z), cl_maxabs3(b.x, b.y, b.z)),
              maxd(cl_maxabs3(c.x, c.y, c.z), maxd(cl_maxabs3(p.x, p.y, p.z), cl_maxabs3(q.x, q.y, q.z))));
    usebox = sc <= 0x1p400;
    eps = sc * 0x1p-40 + 0x1p-1000;
    if (usebox) {
        box_of(v, 3, tlo, thi);
        { cl_vec3 pq[2]; pq[0] = p; pq[1] = q; box_of(pq, 2, slo, shi); }
        if (lim2 >= 0 && gap2(tlo, thi, slo, shi, eps) >= lim2) return lim2;
        if (sc >= 0x1p-300 && sc <= 0x1p200) {
            nl = sqrt(cl_dot(n, n));
            hn = plane_sep(nl, a, b, c, p, q, dp, dq);
            if (lim2 >= 0 && sep2(hn, sc) >= lim2) return lim2;
            useplane = nl >= 0x1p-400;
        }
    }
    t0 = cl_tri_closest(a, b, c, p);
    w = cl_sub(t0, p);
    best = cl_dot(w, w);
    s0 = p;
    t1 = cl_tri_closest(a, b, c, q);
    w = cl_sub(t1, q);
    d = cl_dot(w, w);
    if (d < best) { best = d; t0 = t1; s0 = q; }
    if (best < lim2) return best;
    {
        int i;
        double beat = lim2 >= 0 ? lim2 : best;
        for (i = 0; i < 3; i++) {
            cl_vec3 e0 = v[i], e1 = v[i == 2 ? 0 : i + 1];
            if (usebox) {
                cl_vec3 ee[2];
                ee[0] = e0; ee[1] = e1;
                box_of(ee, 2, elo, ehi);
                if (gap2(elo, ehi, slo, shi, eps) >= beat) continue;
                if (useplane && edge_gap(n, hn, e0, e1, p, q, sc) >= beat) continue;
            }
            d = segseg(e0, e1, p, q, &t1, &s1);
            if (d < best) { best = d; t0 = t1; s0 = s1; if (lim2 < 0) beat = best; }
            if (best < lim2) return best;
        }
    }
    *ontri = t0;
    *onseg = s0;
    return best;
}

double cl_tri_segment(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q, cl_vec3 *ontri, cl_vec3 *onseg)
{
    return trisegment(a, b, c, p, q, -1, ontri, onseg);
}

int cl_tri_segment_below(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q, double lim2)
{
    cl_vec3 x, y;
    return trisegment(a, b, c, p, q, lim2, &x, &y) < lim2;
}

int cl_tri_segment_crosses_n(const cl_vec3 *a, const cl_vec3 *b, const cl_vec3 *c, const cl_vec3 *p, const cl_vec3 *q,
                             const cl_vec3 *n, double dp, double dq)
{
    cl_vec3 x;
    return seg_crossing(*a, *b, *c, *p, *q, *n, dp, dq, &x);
}

int cl_tri_segment_crosses(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q)
{
    /* trisegment's first test alone (the same operations) */
    cl_vec3 n = cl_cross(cl_sub(b, a), cl_sub(c, a)), x;
    return seg_crossing(a, b, c, p, q, n, cl_dot(n, cl_sub(p, a)), cl_dot(n, cl_sub(q, a)), &x);
}
