/* collide core: capsules (a segment ab rounded by r >= 0; a == b is a sphere). Closest-point tests
 * reduce to the sphere's: a capsule touches what the ball of radius r at its segment's closest
 * point touches. Closest points: segment/segment after Ericson 5.1.9, segment/box exactly as the
 * minimum of a convex piecewise quadratic (breakpoints where the segment crosses the box's planes).
 *
 * Penetration and sweeps use the Minkowski set K = B (+) (-A): A + v overlaps B exactly when v is
 * in K. With A's core (segment, box or point) and B's core, K is a core set C rounded by the sum R
 * of the radii. Sweeps are the ray t*d (t in [0, 1]) against the open K, decomposed into convex
 * open pieces whose union is the open K:
 *   - capsule/sphere: C is a segment, K a capsule (two balls and an open cylinder);
 *   - capsule/capsule: C is a parallelogram P; K is P thickened by R along its normal (a zonotope)
 *     plus the capsules around P's four edges;
 *   - capsule/box (either moving): C is box (+) segment; K is the box grown by R along each of its
 *     axes, each swept along the segment (zonotopes), plus, for each of the box's 12 edges, the
 *     parallelogram edge (+) segment rounded by R (as above).
 * A zonotope c + sum l_i g_i (|l_i| <= 1) is the intersection of the slabs over its face normals
 * g_i x g_j, so the ray meets it during the intersection of open slab intervals (as sweep.c's
 * separating axes over time). K is convex, so the ray's time in it is the span of the pieces'
 * intervals; its entry piece gives the normal (out of K: out of the static shape, toward the mover),
 * refined for rounded pairs to the direction between the shapes' closest points at the contact.
 * Pieces whose bounding box the ray cannot reach before the first entry found are skipped; for
 * rounded pairs the start is decided first by the closest-point distance (as penetration decides
 * it), so a resting contact stops the search at t = 0, and a contact the motion does not close on
 * by more than rounding is a graze, never entered (the pieces' arithmetic, shifted and scaled,
 * cannot tell a resting or sliding contact from a dip by itself).
 * The contact's rank (cl_sweep) against a box is the number of its axes the segment's closest
 * point lies outside of there (as a sphere's: 1 on a face, 2 at an edge, 3 at a corner).
 * Interiors are open 3D sets: the flat-axis rule of box pairs does not apply to capsules. */
#include "vec.h"

/* ---- basic capsule queries ---- */

/// Box of the segment grown by r, clamped to finite values.
cl_aabb cl_capsule_aabb(const cl_capsule *c)
{
    cl_aabb o;
    o.min = cl_v3(cl_clampfinite(cl_fmin(c->a.x, c->b.x) - c->r), cl_clampfinite(cl_fmin(c->a.y, c->b.y) - c->r),
                  cl_clampfinite(cl_fmin(c->a.z, c->b.z) - c->r));
    o.max = cl_v3(cl_clampfinite(cl_fmax(c->a.x, c->b.x) + c->r), cl_clampfinite(cl_fmax(c->a.y, c->b.y) + c->r),
                  cl_clampfinite(cl_fmax(c->a.z, c->b.z) + c->r));
    return o;
}

/* The ball of radius r at p. */
static cl_sphere ball(cl_vec3 p, double r)
{
    cl_sphere s;
    s.c = p;
    s.r = r;
    return s;
}

/// 1 if p is within r of the segment (inclusive).
int cl_capsule_contains(const cl_capsule *c, cl_vec3 p)
{
    double s;
    cl_sphere b = ball(cl_closest_on_segment(p, c->a, c->b, &s), c->r);
    return cl_sphere_contains(&b, p);
}

/// p itself when inside, else the point at distance r from the segment's closest point toward p.
cl_vec3 cl_capsule_closest(const cl_capsule *c, cl_vec3 p)
{
    double s;
    cl_sphere b = ball(cl_closest_on_segment(p, c->a, c->b, &s), c->r);
    return cl_sphere_closest(&b, p);
}

/// 1 / -1 when both end balls are wholly in front of / behind the plane, else 0 (the capsule is
/// their convex hull).
int cl_capsule_plane(const cl_capsule *c, cl_vec3 n, double d)
{
    cl_sphere sa = ball(c->a, c->r), sb = ball(c->b, c->r);
    int x = cl_sphere_plane(&sa, n, d), y = cl_sphere_plane(&sb, n, d);
    return x == y ? x : 0;
}

/* Largest |component| of the vectors' components and of r: the scale to work at. */
static double scale_of(const cl_vec3 *v, int n, double r)
{
    double k = r;
    int i;
    for (i = 0; i < n; i++) {
        double m = cl_maxabs3(v[i].x, v[i].y, v[i].z);
        if (m > k) k = m;
    }
    return k;
}

/* A power of two near k (1 for zero), to divide by so values are near 1 (exactly: products of
 * four such values neither overflow nor underflow). */
static double pow2_near(double k)
{
    if (k == 0) return 1.0;
    return cl_scale2(1.0, cl_exp2of(k));
}

/* Unit vector along v (finite, non-zero), without overflow or underflow; 0 if v is zero. */
static int unit(cl_vec3 v, cl_vec3 *n)
{
    double m = cl_maxabs3(v.x, v.y, v.z), len;
    if (!(m > 0) || !isfinite(m)) return 0;
    v = cl_v3(v.x / m, v.y / m, v.z / m);
    len = sqrt(cl_dot(v, v));
    *n = cl_add(cl_v3(v.x / len, v.y / len, v.z / len), cl_v3(0, 0, 0));
    return 1;
}

/// 1 and the entry hit (t = 0, n = 0 from inside; normal from the segment's closest point; -d
/// when r == 0): the first of the two end balls and the side of the cylinder between them.
int cl_capsule_raycast(const cl_capsule *c, const cl_ray *r, double maxt, cl_hit *out)
{
    cl_sphere sa = ball(c->a, c->r), sb = ball(c->b, c->r);
    cl_hit h, best;
    int found = 0;
    if (cl_capsule_contains(c, r->o)) {
        out->t = 0;
        out->n = cl_v3(0, 0, 0);
        return 1;
    }
    best.t = INFINITY;
    best.n = cl_v3(0, 0, 0);
    if (cl_sphere_raycast(&sa, r, maxt, &h)) { best = h; found = 1; }
    if (cl_sphere_raycast(&sb, r, maxt, &h) && h.t < best.t) { best = h; found = 1; }
    {   /* the side: |perp(m + t d)| = r with the axis parameter in [0, 1], at a scale near 1 */
        cl_vec3 v[3], m, e, mp, dp;
        double k, rr, ee, qa, qb, qc, disc, t, s;
        v[0] = cl_halfsub(r->o, c->a); v[1] = cl_halfsub(c->b, c->a); v[2] = cl_v3(0, 0, 0);
        k = pow2_near(scale_of(v, 2, c->r * 0.5));
        m = cl_mul(v[0], 1.0 / k);
        e = cl_mul(v[1], 1.0 / k);
        rr = c->r * 0.5 / k;
        ee = cl_dot(e, e);
        if (ee > 0) {
            mp = cl_sub(m, cl_mul(e, cl_dot(m, e) / ee));
            dp = cl_sub(r->d, cl_mul(e, cl_dot(r->d, e) / ee));
            qa = cl_dot(dp, dp);
            qb = cl_dot(mp, dp);
            qc = cl_dot(mp, mp) - rr * rr;
            disc = -1;
            if (qa > 0 && qc <= 0 && qb < 0) {
                /* the origin on the side within rounding (cl_capsule_contains said outside) and
                 * the ray going in: it meets the side at once; the root below would be <= 0 and
                 * the side skipped, leaving an end ball's later hit (fuzz_geom: a capsule of
                 * radius 2^-13 at 2^-12, a ray from its side hit 2.1e-5 further on) */
                disc = 0;
            } else if (qa > 0 && qc > 0 && qb < 0) {
                /* the discriminant qb^2 - qa qc as qa (rr^2 - |l|^2), l = mp - dp qb / qa the
                 * line's closest approach to the axis: qb^2 and qa qc cancel to rounding noise
                 * when the origin is far away (fuzz_world: a ray from 2^204 away passing 5e51 from
                 * the axis, and one from 2^30 away passing 2.1 outside it, hit) */
                cl_vec3 l = cl_sub(mp, cl_mul(dp, qb / qa));
                double dl = rr * rr - cl_dot(l, l);
                if (dl >= 0) disc = qa * dl;
            }
            if (disc >= 0) {
                t = qc > 0 ? qc / (-qb + sqrt(disc)) : 0;  /* near root without cancellation */
                s = (cl_dot(m, e) + t * cl_dot(r->d, e)) / ee;
                t *= 2 * k;                                /* back to the ray's units */
                if (s >= 0 && s <= 1 && t <= maxt && t < best.t) {
                    cl_vec3 n;
                    best.t = t;
                    best.n = cl_mul(r->d, -1.0);
                    /* a radius below the rounding of the coordinates leaves the normal noise:
                     * keep -d when it would not face the ray (found by fuzz_geom, r 4 at 7.5e16) */
                    if (rr > 0 && unit(cl_add(mp, cl_mul(dp, t / (2 * k))), &n) && cl_dot(n, r->d) <= 0) best.n = n;
                    best.n = cl_add(best.n, cl_v3(0, 0, 0));
                    found = 1;
                }
            }
        }
    }
    /* an end ball's radius below its centre's rounding leaves its normal noise too (found by
     * fuzz_geom: r 1.8e-15 at (4, 4, 4) gave n along the ray) */
    if (found && cl_dot(best.n, r->d) > 0) best.n = cl_add(cl_mul(r->d, -1.0), cl_v3(0, 0, 0));
    if (found) *out = best;
    return found;
}

/* ---- closest points ---- */

/* x clamped to [0, 1]. */
static double clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

static cl_vec3 seg_point(cl_vec3 a, cl_vec3 b, double s);

/// Closest points between segments p0p1 and q0q1 (either may be a point): parameters s, t in
/// [0, 1] and the points; Ericson's clamped solution (parallel segments: s = 0 or the clamped end).
void cl_segment_segment(cl_vec3 p0, cl_vec3 p1, cl_vec3 q0, cl_vec3 q1, double *s, double *t, cl_vec3 *onp,
                        cl_vec3 *onq)
{
    cl_vec3 v[3], u, w, x;
    double k, a, b, c, d, e, den, ss, tt;
    v[0] = cl_halfsub(p1, p0); v[1] = cl_halfsub(q1, q0); v[2] = cl_halfsub(p0, q0);
    k = pow2_near(scale_of(v, 3, 0));
    u = cl_mul(v[0], 1.0 / k);
    x = cl_mul(v[1], 1.0 / k);
    w = cl_mul(v[2], 1.0 / k);
    a = cl_dot(u, u); b = cl_dot(u, x); c = cl_dot(x, x); d = cl_dot(u, w); e = cl_dot(x, w);
    if (a == 0 && c == 0) { ss = 0; tt = 0; }
    else if (a == 0) { ss = 0; tt = clamp01(e / c); }
    else if (c == 0) { tt = 0; ss = clamp01(-d / a); }
    else {
        den = a * c - b * b;
        ss = den > 0 ? clamp01((b * e - c * d) / den) : 0;
        if (den < a * c * 0x1p-8) {
            /* nearly parallel (under about 3.6 degrees): a c - b b and b e - c d cancel to
             * about 1e-16 / sin^2 of the angle, so ss slid along the segments, and the points'
             * difference leaned along their twist (fuzz_geom: capsules 5.9e9 long, 10.5 apart
             * at 4.6e-5 rad, s off by 5e-3 of itself, pushed 0.0022 rad off and still
             * overlapping). The same quotient as cross products, |u x x|^2 and
             * (u x x).(x x w) (Lagrange's identity), is good to 1e-16 / sin of the angle. */
            cl_vec3 cr = cl_cross(u, x);
            den = cl_dot(cr, cr);
            ss = den > 0 ? clamp01(cl_dot(cr, cl_cross(x, w)) / den) : 0;
        }
        tt = (b * ss + e) / c;
        if (tt < 0) { tt = 0; ss = clamp01(-d / a); }
        else if (tt > 1) { tt = 1; ss = clamp01((b - d) / a); }
    }
    *onp = seg_point(p0, p1, ss);
    *onq = seg_point(q0, q1, tt);
    if (a > 0 && c > 0) {
        /* nearly parallel segments get ss and tt only to 1e-16 of their length, which for long
         * ones lands far from where they are closest (fuzz_geom found 7e32-long capsules 5.4
         * apart at their ends missing each other one way round): the closest points of each
         * end to the other segment compete, taken directly from the end */
        cl_vec3 ends[4], dv;
        double best, dd, par;
        int i;
        ends[0] = p0; ends[1] = p1; ends[2] = q0; ends[3] = q1;
        dv = cl_mul(cl_halfsub(*onp, *onq), 1.0 / k);
        best = cl_dot(dv, dv);
        for (i = 0; i < 4; i++) {
            cl_vec3 o, m;
            if (i < 2) {
                par = clamp01(cl_dot(cl_mul(cl_halfsub(ends[i], q0), 1.0 / k), x) / c);
                m = seg_point(q0, q1, par);
            } else {
                par = clamp01(cl_dot(cl_mul(cl_halfsub(ends[i], p0), 1.0 / k), u) / a);
                m = seg_point(p0, p1, par);
            }
            o = ends[i];
            dv = cl_mul(cl_halfsub(o, m), 1.0 / k);
            dd = cl_dot(dv, dv);
            if (dd < best) {
                best = dd;
                if (i < 2) { ss = i; tt = par; *onp = o; *onq = m; }
                else { tt = i - 2; ss = par; *onq = o; *onp = m; }
            }
        }
    }
    *s = ss; *t = tt;
}

/* Closest point parameter s of the segment p + s w (s in [0, 1]) to the box [lo, hi], all in one
 * frame with values near 1: the squared distance is convex and quadratic between the parameters
 * where the segment crosses the box's planes, so its minimum is the best of the pieces' minima.
 * Minima equal to rounding (2^-40 relative) tie: the one outside the box's slabs on fewer axes
 * wins (a segment lying on a face touches it in the face, not at an edge its end reaches past). */
static double seg_box_param(const double p[3], const double w[3], const double lo[3], const double hi[3])
{
    double br[8], best = INFINITY, bs = 0;
    int nb = 0, i, j, bout = 4;
    br[nb++] = 0;
    br[nb++] = 1;
    for (i = 0; i < 3; i++)
        if (w[i] != 0) {
            double s0 = (lo[i] - p[i]) / w[i], s1 = (hi[i] - p[i]) / w[i];
            if (s0 > 0 && s0 < 1) br[nb++] = s0;
            if (s1 > 0 && s1 < 1) br[nb++] = s1;
        }
    for (i = 1; i < nb; i++)  /* insertion sort */
        for (j = i; j > 0 && br[j] < br[j - 1]; j--) { double x = br[j]; br[j] = br[j - 1]; br[j - 1] = x; }
    for (i = 0; i + 1 < nb; i++) {
        double s0 = br[i], s1 = br[i + 1], mid = s0 * 0.5 + s1 * 0.5, qa = 0, qb = 0, s, f = 0;
        int out = 0;
        if (!(s1 > s0)) continue;
        for (j = 0; j < 3; j++) {
            double x = p[j] + mid * w[j], bound;
            if (x < lo[j]) bound = lo[j];
            else if (x > hi[j]) bound = hi[j];
            else continue;
            out = 1;
            qa += w[j] * w[j];
            qb += w[j] * (p[j] - bound);
        }
        if (!out) return mid;  /* the segment is in the box here: a point well inside it */
        /* a flat piece (inside, or outside only on axes the segment is parallel to): its middle,
         * which is inside the box's slabs without the rounding of a crossing parameter */
        s = qa > 0 ? -qb / qa : mid;
        s = s < s0 ? s0 : (s > s1 ? s1 : s);
        out = 0;
        for (j = 0; j < 3; j++) {
            double x = p[j] + s * w[j], q = x < lo[j] ? lo[j] - x : (x > hi[j] ? x - hi[j] : 0);
            f += q * q;
            out += q != 0;
        }
        {
            double tie = 0x1p-40 * (f > best ? f : best);
            if (f < best - tie || (f <= best + tie && out < bout)) { best = f; bs = s; bout = out; }
        }
    }
    return bs;
}

/* A box in a frame: its axes (world), the frame's origin, and the box's bounds in the frame. An
 * AABB uses the world frame (its coordinates exactly); an OBB its own, centred. */
typedef struct frame {
    cl_vec3 u[3], o;
    double lo[3], hi[3];
    int world;                  /* the world frame: coordinates are world coordinates */
    cl_shape box;               /* the box itself (for its closest points) */
} frame;

/* The frame of an AABB. */
static frame aabb_frame(const cl_aabb *b)
{
    frame f;
    int i;
    f.u[0] = cl_v3(1, 0, 0); f.u[1] = cl_v3(0, 1, 0); f.u[2] = cl_v3(0, 0, 1);
    f.o = cl_v3(0, 0, 0);
    f.world = 1;
    f.box.kind = CL_AABB;
    f.box.u.aabb = *b;
    for (i = 0; i < 3; i++) { f.lo[i] = cl_comp(b->min, i); f.hi[i] = cl_comp(b->max, i); }
    return f;
}

/* The frame of an OBB (its AABB's when its axes are world axes, as the other tests do). */
static frame obb_frame(const cl_obb *b)
{
    frame f;
    int i;
    if (cl_obb_world_axes(b)) {
        cl_aabb e = cl_obb_aabb(b);
        return aabb_frame(&e);
    }
    f.u[0] = b->u[0]; f.u[1] = b->u[1]; f.u[2] = b->u[2];
    f.o = b->c;
    f.world = 0;
    f.box.kind = CL_OBB;
    f.box.u.obb = *b;
    for (i = 0; i < 3; i++) { f.hi[i] = cl_comp(b->h, i); f.lo[i] = -f.hi[i]; }
    return f;
}

/* Frame coordinates of p, each divided by k (k a power of two; differences taken at half scale). */
static void to_frame(const frame *f, cl_vec3 p, double k, double l[3])
{
    int i;
    if (f->world) {
        l[0] = p.x / k; l[1] = p.y / k; l[2] = p.z / k;
        return;
    }
    {
        cl_vec3 d = cl_mul(cl_halfsub(p, f->o), 2.0 / k);  /* k >= 2^400 whenever p - o could overflow */
        for (i = 0; i < 3; i++) l[i] = cl_dot(d, f->u[i]);
    }
}

/* World vector of frame components v (a direction: no origin). */
static cl_vec3 from_frame(const frame *f, const double v[3])
{
    return cl_add(cl_add(cl_mul(f->u[0], v[0]), cl_mul(f->u[1], v[1])), cl_mul(f->u[2], v[2]));
}

/* Segment/box closest points in the frame at scale 1/k: the segment's point (frame coordinates
 * ps), the box's point (pb), and the parameter; the inputs p, w, lo, hi are written too. */
typedef struct segbox {
    double k, m, p[3], w[3], lo[3], hi[3], ps[3], pb[3], s;
} segbox;

/* Fills sb for the segment ab against the frame's box. */
static void seg_box(const frame *f, cl_vec3 a, cl_vec3 b, segbox *sb)
{
    double la[3], lb[3], m = 0;
    int i;
    cl_vec3 v[2];
    v[0] = a; v[1] = b;
    if (f->world) {
        m = scale_of(v, 2, 0);
        for (i = 0; i < 3; i++) m = fmax(m, fmax(fabs(f->lo[i]), fabs(f->hi[i])));
    } else {
        v[0] = cl_halfsub(a, f->o); v[1] = cl_halfsub(b, f->o);
        m = 2 * scale_of(v, 2, 0);
        for (i = 0; i < 3; i++) m = fmax(m, f->hi[i]);
    }
    /* at most 2^1023: pow2_near of a value from 2^1023 up is 2^1024, an infinite k that read
     * every frame value as 0 (a capsule inside a box reaching 2^1023 had no penetration) */
    sb->k = m >= 0x1p1023 ? 0x1p1023 : pow2_near(m);
    sb->m = m / sb->k;
    to_frame(f, a, sb->k, la);
    to_frame(f, b, sb->k, lb);
    for (i = 0; i < 3; i++) {
        sb->p[i] = la[i];
        sb->w[i] = lb[i] - la[i];
        sb->lo[i] = f->lo[i] / sb->k;
        sb->hi[i] = f->hi[i] / sb->k;
    }
    sb->s = seg_box_param(sb->p, sb->w, sb->lo, sb->hi);
    for (i = 0; i < 3; i++) {
        double x = sb->s == 1 ? lb[i] : sb->p[i] + sb->s * sb->w[i];
        sb->ps[i] = x;
        sb->pb[i] = x < sb->lo[i] ? sb->lo[i] : (x > sb->hi[i] ? sb->hi[i] : x);
    }
}

/* The world point of the segment ab at the closest parameter of sb. */
static cl_vec3 seg_point(cl_vec3 a, cl_vec3 b, double s)
{
    cl_vec3 p;
    if (s == 0) return a;
    if (s == 1) return b;
    p = cl_add(a, cl_mul(cl_sub(b, a), s));
    if (!cl_vfinite(p)) p = cl_add(a, cl_mul(cl_halfsub(b, a), 2 * s));
    return p;
}

/* Closest points of the segment ab and the frame's box moved by shift: the segment's parameter
 * (returned) and point p, and the box's point q; with nout, the number of the box's axes on whose
 * slab the segment's point lies outside (1 over a face, 2 beside an edge, 3 beyond a corner). */
static double frame_closest(const frame *f, cl_vec3 a, cl_vec3 b, cl_vec3 shift, cl_vec3 *p, cl_vec3 *q, int *nout)
{
    segbox sb;
    int moved = shift.x != 0 || shift.y != 0 || shift.z != 0;
    seg_box(f, moved ? cl_sub(a, shift) : a, moved ? cl_sub(b, shift) : b, &sb);
    if (nout != NULL) *nout = (sb.ps[0] != sb.pb[0]) + (sb.ps[1] != sb.pb[1]) + (sb.ps[2] != sb.pb[2]);
    *p = seg_point(a, b, sb.s);
    *q = moved ? cl_add(cl_shape_closest(&f->box, cl_sub(*p, shift)), shift) : cl_shape_closest(&f->box, *p);
    return sb.s;
}

/// Closest points between the segment ab and the box: the segment's parameter s and point, and
/// the box's point (equal to the segment's where they meet). Exact up to rounding.
void cl_segment_aabb(cl_vec3 a, cl_vec3 b, const cl_aabb *box, double *s, cl_vec3 *onseg, cl_vec3 *onbox)
{
    frame f = aabb_frame(box);
    *s = frame_closest(&f, a, b, cl_v3(0, 0, 0), onseg, onbox, NULL);
}

/// cl_segment_aabb for an oriented box (in its frame).
void cl_segment_obb(cl_vec3 a, cl_vec3 b, const cl_obb *box, double *s, cl_vec3 *onseg, cl_vec3 *onbox)
{
    frame f = obb_frame(box);
    *s = frame_closest(&f, a, b, cl_v3(0, 0, 0), onseg, onbox, NULL);
}

/* ---- overlaps (closed shapes: touching counts) ---- */

/// 1 if the segment comes within r + s.r of the centre.
int cl_capsule_overlaps_sphere(const cl_capsule *c, const cl_sphere *s)
{
    double t;
    cl_sphere b = ball(cl_closest_on_segment(s->c, c->a, c->b, &t), c->r);
    return cl_sphere_overlaps_sphere(&b, s);
}

/// 1 if the segments come within the sum of the radii. Symmetric: the pair is taken in one order
/// (by its bytes), since the closest points' rounding depends on the order where the segments'
/// coordinates span hundreds of binary orders (fuzz_world).
int cl_capsule_overlaps_capsule(const cl_capsule *x, const cl_capsule *y)
{
    double s, t;
    cl_vec3 p, q;
    cl_sphere bp, bq;
    if (memcmp(x, y, sizeof *x) > 0) {
        const cl_capsule *z = x;
        x = y;
        y = z;
    }
    cl_segment_segment(x->a, x->b, y->a, y->b, &s, &t, &p, &q);
    bp = ball(p, x->r);
    bq = ball(q, y->r);
    return cl_sphere_overlaps_sphere(&bp, &bq);
}

/* 1 when the offset q from the box to the segment's closest point (world frame: both exact
 * but for the rounding of that point, p + s w) is within that rounding on every axis, which is
 * relative to the segment's own coordinates on the axis, never to the box's size (a huge floor). */
static int seg_in_noise(const segbox *sb, const double q[3])
{
    int i;
    for (i = 0; i < 3; i++)
        if (fabs(q[i]) > 0x1p-40 * (fabs(sb->p[i]) + fabs(sb->w[i]))) return 0;
    return 1;
}

/* Fills sb for the capsule's segment and the frame's box, q with the offset from the box's
 * closest point to the segment's (frame, / sb->k) and *len with its length; 1 when the segment
 * meets the box (the offset is the rounding of the segment's point), else 0. Overlap and
 * penetration both decide here, so they agree: a segment crossing a rotated box 5e-48 thick
 * (r 3e-33) lands 1e-16 off it, which penetration read as meeting it (depth 1.1) and the ball
 * test at that point as missing (fuzz_geom). */
static int seg_meets_box(const cl_capsule *c, const frame *f, segbox *sb, double q[3], double *len)
{
    int i, apart = 0;
    seg_box(f, c->a, c->b, sb);
    for (i = 0; i < 3; i++) q[i] = sb->ps[i] - sb->pb[i];
    *len = cl_len(q[0], q[1], q[2]);
    if (!f->world) return *len <= 0x1p-40 * sb->m;
    /* A segment whose own box misses the box's on an axis never meets it, however long: the
     * noise allowance grows with the segment's span, and a segment from 2^236 down to 2^196 in x
     * met a box at the origin (the World, whose boxes are exact, disagreed: fuzz_world). */
    for (i = 0; i < 3; i++) {
        double sa = cl_comp(c->a, i), sbb = cl_comp(c->b, i);
        if ((sa < sbb ? sa : sbb) > f->hi[i] || (sa > sbb ? sa : sbb) < f->lo[i]) apart = 1;
    }
    return !apart && seg_in_noise(sb, q);
}

/* 1 when the segment meets the frame's box (seg_meets_box), else whether it comes within r of
 * it (in the frame, as penetration measures it: touching counts). */
static int capsule_frame_overlaps(const cl_capsule *c, const frame *f)
{
    segbox sb;
    double q[3], len;
    if (seg_meets_box(c, f, &sb, q, &len)) return 1;
    return len <= c->r / sb.k;
}

/// 1 if the segment meets the box or the ball of radius r at its closest point touches it.
int cl_capsule_overlaps_aabb(const cl_capsule *c, const cl_aabb *b)
{
    frame f = aabb_frame(b);
    return capsule_frame_overlaps(c, &f);
}

/// cl_capsule_overlaps_aabb for an oriented box.
int cl_capsule_overlaps_obb(const cl_capsule *c, const cl_obb *b)
{
    frame f = obb_frame(b);
    return capsule_frame_overlaps(c, &f);
}

/* ---- penetration ---- */

/* A unit vector perpendicular to the unit-or-zero direction e (x when e is zero), turned so that
 * its dot with away is >= 0. */
static cl_vec3 perp(cl_vec3 e, cl_vec3 away)
{
    cl_vec3 n = cl_v3(1, 0, 0), ax;
    double ex = fabs(e.x), ey = fabs(e.y), ez = fabs(e.z);
    if (ex > 0 || ey > 0 || ez > 0) {
        ax = ex <= ey && ex <= ez ? cl_v3(1, 0, 0) : (ey <= ez ? cl_v3(0, 1, 0) : cl_v3(0, 0, 1));
        (void)unit(cl_cross(e, ax), &n);
    }
    if (cl_dot(n, away) < 0) n = cl_mul(n, -1.0);
    return cl_add(n, cl_v3(0, 0, 0));
}

/* Penetration of two rounded cores whose closest points are p (on the mover's core) and q, with
 * the radii sum r and the scale sc of the data; when p and q (nearly) meet, the way out is along
 * fallback (unit, chosen by the caller) by r. */
static int rounded_push(cl_vec3 p, cl_vec3 q, double r, double sc, cl_vec3 fallback, double *depth, cl_vec3 *n)
{
    cl_vec3 d = cl_sub(p, q);
    double k = 1, len;
    if (!cl_vfinite(d) || !isfinite(r)) { d = cl_halfsub(p, q); r *= 0.5; k = 2; sc *= 0.5; }
    len = cl_len(d.x, d.y, d.z);
    if (!(len < r)) return 0;
    if (len <= 0x1p-40 * sc || !unit(d, n)) {  /* the offset is rounding noise: the caller's way */
        *n = fallback;
        *depth = cl_clampfinite(r * k);
        return 1;
    }
    *depth = cl_clampfinite((r - len) * k);
    return 1;
}

/// 1 and the push of capsule c out of sphere s (r1 + r2 minus the segment's distance to the
/// centre; a centre on the segment pushes perpendicular to it by r1 + r2); exact.
int cl_penetration_capsule_sphere(const cl_capsule *c, const cl_sphere *s, double *depth, cl_vec3 *n)
{
    double t, sc;
    cl_vec3 p = cl_closest_on_segment(s->c, c->a, c->b, &t), e = cl_v3(0, 0, 0), v[3];
    v[0] = c->a; v[1] = c->b; v[2] = s->c;
    sc = scale_of(v, 3, c->r + s->r);
    (void)unit(cl_halfsub(c->b, c->a), &e);
    return rounded_push(p, s->c, c->r + s->r, sc, perp(e, cl_halfsub(p, s->c)), depth, n);
}

/// 1 and the push of capsule x out of capsule y (the radii sum minus the segments' distance along
/// their closest points' offset; crossing segments push along their common normal by the radii
/// sum, which is the minimum); exact up to rounding.
int cl_penetration_capsule_capsule(const cl_capsule *x, const cl_capsule *y, double *depth, cl_vec3 *n)
{
    double s, t, sc;
    cl_vec3 p, q, ex = cl_v3(0, 0, 0), ey = cl_v3(0, 0, 0), nn, v[4], away;
    cl_segment_segment(x->a, x->b, y->a, y->b, &s, &t, &p, &q);
    v[0] = x->a; v[1] = x->b; v[2] = y->a; v[3] = y->b;
    sc = scale_of(v, 4, x->r + y->r);
    (void)unit(cl_halfsub(x->b, x->a), &ex);
    (void)unit(cl_halfsub(y->b, y->a), &ey);
    away = cl_halfsub(p, q);
    if (away.x == 0 && away.y == 0 && away.z == 0)  /* from y's middle toward x's */
        away = cl_sub(cl_add(cl_mul(x->a, 0.25), cl_mul(x->b, 0.25)), cl_add(cl_mul(y->a, 0.25), cl_mul(y->b, 0.25)));
    nn = cl_cross(ex, ey);
    if (cl_len(nn.x, nn.y, nn.z) > 1e-8 && unit(nn, &nn)) {  /* not (nearly) parallel: their common normal */
        if (cl_dot(nn, away) < 0) nn = cl_add(cl_mul(nn, -1.0), cl_v3(0, 0, 0));
    } else {
        nn = perp(ex.x != 0 || ex.y != 0 || ex.z != 0 ? ex : ey, away);
    }
    return rounded_push(p, q, x->r + y->r, sc, nn, depth, n);
}

/* Capsule c out of the frame's box: shallow (the segment misses the box) along the closest
 * points' offset; deep (the segment meets the box) through the face of box (+) segment nearest
 * the origin, over its face normals (the box's axes and the segment x each axis). */
static int capsule_box(const cl_capsule *c, const frame *f, double *depth, cl_vec3 *n)
{
    segbox sb;
    double q[3], len, r, best = INFINITY;
    int i, j, meets;
    cl_vec3 bn = cl_v3(0, 0, 0);
    meets = seg_meets_box(c, f, &sb, q, &len);
    r = c->r / sb.k;
    if (!meets) {  /* shallow */
        cl_vec3 nl;
        if (!(len < r)) return 0;
        if (!unit(cl_v3(q[0], q[1], q[2]), &nl)) return 0;
        q[0] = nl.x; q[1] = nl.y; q[2] = nl.z;
        *n = f->world ? nl : from_frame(f, q);
        (void)unit(*n, n);
        *depth = cl_clampfinite((r - len) * sb.k);
        return 1;
    }
    for (i = 0; i < 6; i++) {  /* deep: axes e_i, then w x e_i (both signs) */
        double L[3], hb = 0, pa = 0, pb = 0, m, push;
        cl_vec3 l;
        if (i < 3) { L[0] = i == 0; L[1] = i == 1; L[2] = i == 2; }
        else {
            int k = i - 3;
            cl_vec3 w = cl_v3(sb.w[0], sb.w[1], sb.w[2]);
            if (!unit(cl_cross(w, cl_axisvec(k, 1.0)), &l)) continue;
            L[0] = l.x; L[1] = l.y; L[2] = l.z;
        }
        for (j = 0; j < 2; j++) {
            int k2;
            hb = 0; pa = 0; pb = 0;
            for (k2 = 0; k2 < 3; k2++) {
                double Lk = j ? -L[k2] : L[k2];
                hb += Lk > 0 ? sb.hi[k2] * Lk : sb.lo[k2] * Lk;
                pa += sb.p[k2] * Lk;
                pb += (sb.p[k2] + sb.w[k2]) * Lk;
            }
            m = pa < pb ? pa : pb;
            push = hb - m;  /* move the segment along L until its lowest point reaches the box's top */
            if (push < best) {
                double v[3];
                best = push;
                for (k2 = 0; k2 < 3; k2++) v[k2] = j ? -L[k2] : L[k2];
                bn = f->world ? cl_v3(v[0], v[1], v[2]) : from_frame(f, v);
            }
        }
    }
    if (best < 0) best = 0;
    if (!(r + best > 0)) return 0;
    *depth = cl_clampfinite((r + best) * sb.k);
    (void)unit(bn, n);
    return 1;
}

/// 1 and the push of capsule c out of box b: the radius minus the segment's distance along the
/// closest points' offset, or, when the segment meets the box, the radius plus the distance out
/// of box (+) segment through its nearest face; exact up to rounding.
int cl_penetration_capsule_aabb(const cl_capsule *c, const cl_aabb *b, double *depth, cl_vec3 *n)
{
    frame f = aabb_frame(b);
    return capsule_box(c, &f, depth, n);
}

/// cl_penetration_capsule_aabb for an oriented box (in its frame).
int cl_penetration_capsule_obb(const cl_capsule *c, const cl_obb *b, double *depth, cl_vec3 *n)
{
    frame f = obb_frame(b);
    return capsule_box(c, &f, depth, n);
}

/* ---- sweeps: the ray t*d against the open K, piece by piece ---- */

/* What the pieces found so far: the ray starts inside one, or the first entry t >= 0 with its
 * normal. (K's open time interval is the union of the pieces' open intervals.) */
typedef struct span {
    int inside;
    int decided;                /* the start was found outside: a piece around t = 0 is a contact at 0 */
    double first;
    cl_vec3 n;
} span;

/* Folds a piece's open interval (t0, t1) with its entry normal into the span. */
static void fold(span *sp, double t0, double t1, cl_vec3 n)
{
    if (!(t0 < t1)) return;
    if (t0 < 0 && t1 > 0) {
        if (!sp->decided) sp->inside = 1;
        else if (sp->first > 0) { sp->first = 0; sp->n = n; }
    } else if (t0 >= 0 && t0 < sp->first) {
        sp->first = t0; sp->n = n;
    }
}

/* 0 when a piece inside the box of the points pts grown by r (values near 1; padded by 2^-30 for
 * rounding) cannot change the span: the ray t*d is not in that box at any t of (0 or before,
 * min(first, 1)), or the ray already starts inside K. Culling only; the pieces decide. */
static int may_matter(const span *sp, cl_vec3 d, const cl_vec3 *pts, int np, double r)
{
    double lim = sp->first < 1 ? sp->first : 1, t0 = -INFINITY, t1 = INFINITY;
    int i, k;
    if (sp->inside || (sp->decided && sp->first == 0)) return 0;
    for (k = 0; k < 3; k++) {
        double lo = INFINITY, hi = -INFINITY, v = cl_comp(d, k), a, b;
        for (i = 0; i < np; i++) {
            double x = cl_comp(pts[i], k);
            if (x < lo) lo = x;
            if (x > hi) hi = x;
        }
        lo -= r + 0x1p-30;
        hi += r + 0x1p-30;
        if (v == 0) {
            if (!(lo <= 0 && hi >= 0)) return 0;
            continue;
        }
        a = lo / v; b = hi / v;
        if (v < 0) { double x = a; a = b; b = x; }
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
    }
    return t1 >= 0 && t0 <= lim && t0 <= t1;
}

/* 1 and the open interval of t where |m + t w| < r: cl_quad_interval (dips below rounding are
 * grazes, which never enter). */
static int quad(cl_vec3 m, cl_vec3 w, double r, double *t0, double *t1)
{
    double mv[3], wv[3];
    mv[0] = m.x; mv[1] = m.y; mv[2] = m.z;
    wv[0] = w.x; wv[1] = w.y; wv[2] = w.z;
    return cl_quad_interval(mv, wv, r * r, t0, t1);
}

/* The unit normal of the ball or cylinder piece at the entry: x = m + t w (offset from the
 * core), or -w when that offset is zero. */
static cl_vec3 entry_normal(cl_vec3 x, cl_vec3 w)
{
    cl_vec3 n = cl_v3(0, 0, 0);
    if (!unit(x, &n)) (void)unit(cl_mul(w, -1.0), &n);
    return n;
}

/* The ray t*d against the open capsule segment p0p1 rounded by r (values near 1): two balls and
 * the open cylinder between them. */
static void piece_capsule(span *sp, cl_vec3 d, cl_vec3 p0, cl_vec3 p1, double r)
{
    double t0, t1, ee;
    cl_vec3 m, e, pts[2];
    pts[0] = p0; pts[1] = p1;
    if (!(r > 0) || !may_matter(sp, d, pts, 2, r)) return;
    m = cl_mul(p0, -1.0);
    if (quad(m, d, r, &t0, &t1))
        fold(sp, t0, t1, entry_normal(cl_add(m, cl_mul(d, t0)), d));
    e = cl_sub(p1, p0);
    ee = cl_dot(e, e);
    if (ee == 0) return;
    m = cl_mul(p1, -1.0);
    if (quad(m, d, r, &t0, &t1))
        fold(sp, t0, t1, entry_normal(cl_add(m, cl_mul(d, t0)), d));
    {   /* the cylinder: perpendicular offset within r while the axis parameter is in (0, 1) */
        cl_vec3 mp, dp;
        double me, de, s0, s1;
        m = cl_mul(p0, -1.0);
        me = cl_dot(m, e);
        de = cl_dot(d, e);
        mp = cl_sub(m, cl_mul(e, me / ee));
        dp = cl_sub(d, cl_mul(e, de / ee));
        if (!quad(mp, dp, r, &t0, &t1)) return;
        if (de == 0) {
            if (!(me > 0 && me < ee)) return;
        } else {
            s0 = -me / de; s1 = (ee - me) / de;
            if (s0 > s1) { double x = s0; s0 = s1; s1 = x; }
            if (s0 > t0) t0 = s0;
            if (s1 < t1) t1 = s1;
        }
        if (t0 < t1) fold(sp, t0, t1, entry_normal(cl_add(mp, cl_mul(dp, t0)), dp));
    }
}

/* The ray t*d against the open zonotope c + sum l_i g[i] (|l_i| < 1 inside): the open slabs over
 * the face normals g_i x g_j (every non-zero one). A zonotope without volume (all its face normals
 * parallel: flat) is empty. */
static void piece_zonotope(span *sp, cl_vec3 d, cl_vec3 c, const cl_vec3 *g, int ng)
{
    double lo = -INFINITY, hi = INFINITY;
    cl_vec3 bn = cl_v3(0, 0, 0), first = cl_v3(0, 0, 0), ext = cl_v3(0, 0, 0), box[2];
    int i, j, k, axes = 0, solid = 0;
    for (i = 0; i < ng; i++) ext = cl_add(ext, cl_v3(fabs(g[i].x), fabs(g[i].y), fabs(g[i].z)));
    box[0] = cl_sub(c, ext); box[1] = cl_add(c, ext);
    if (!may_matter(sp, d, box, 2, 0)) return;
    for (i = 0; i < ng; i++)
        for (j = i + 1; j < ng; j++) {
            cl_vec3 L = cl_cross(g[i], g[j]), X;
            double cl, rho = 0, v, a, b;
            if (L.x == 0 && L.y == 0 && L.z == 0) continue;
            if (axes++ == 0) first = L;
            X = cl_cross(L, first);  /* two face normals apart: the generators span space */
            if (cl_dot(X, X) > 1e-24 * cl_dot(L, L) * cl_dot(first, first)) solid = 1;
            cl = cl_dot(c, L);
            for (k = 0; k < ng; k++) rho += fabs(cl_dot(g[k], L));
            v = cl_dot(d, L);
            if (v == 0) {
                if (!(fabs(cl) < rho)) return;
                continue;
            }
            a = (cl - rho) / v; b = (cl + rho) / v;
            if (v < 0) { double x = a; a = b; b = x; }
            if (a > lo) { lo = a; bn = v > 0 ? cl_mul(L, -1.0) : L; }
            if (b < hi) hi = b;
            if (!(lo < hi)) return;
        }
    if (!solid) return;  /* flat or thinner: no interior */
    {
        cl_vec3 n = cl_v3(0, 0, 0);
        if (lo > -INFINITY) (void)unit(bn, &n);
        fold(sp, lo, hi, n);
    }
}

/* The ray t*d against the open parallelogram e0e1 (+) segment s0s1 rounded by r (values near 1):
 * its prism (thickened by r along the normal) and the capsules around its four edges. With
 * corners set, the capsules at the e0 and e1 ends are left to the caller (shared corners). */
static void piece_parallelogram(span *sp, cl_vec3 d, cl_vec3 e0, cl_vec3 e1, cl_vec3 s0, cl_vec3 s1, double r,
                                int corners)
{
    cl_vec3 g[3], nn, pts[4];
    pts[0] = cl_add(e0, s0); pts[1] = cl_add(e1, s0); pts[2] = cl_add(e0, s1); pts[3] = cl_add(e1, s1);
    if (!(r > 0) || !may_matter(sp, d, pts, 4, r)) return;
    g[0] = cl_mul(cl_sub(e1, e0), 0.5);
    g[1] = cl_mul(cl_sub(s1, s0), 0.5);
    if (unit(cl_cross(g[0], g[1]), &nn)) {
        cl_vec3 c = cl_mul(cl_add(cl_add(e0, e1), cl_add(s0, s1)), 0.5);
        g[2] = cl_mul(nn, r);
        piece_zonotope(sp, d, c, g, 3);
    }
    piece_capsule(sp, d, cl_add(e0, s0), cl_add(e1, s0), r);
    piece_capsule(sp, d, cl_add(e0, s1), cl_add(e1, s1), r);
    if (!corners) {
        piece_capsule(sp, d, cl_add(e0, s0), cl_add(e0, s1), r);
        piece_capsule(sp, d, cl_add(e1, s0), cl_add(e1, s1), r);
    }
}

/* The state of the span. */
static cl_toi_state finish(const span *sp, double *t, cl_vec3 *n)
{
    if (sp->inside) { *t = 0; *n = cl_v3(0, 0, 0); return CL_TOI_OVERLAPPED; }
    if (sp->first < 1) { *t = sp->first + 0.0; *n = cl_add(sp->n, cl_v3(0, 0, 0)); return CL_TOI_TOUCHING; }
    *t = 1;
    *n = cl_v3(0, 0, 0);
    return CL_TOI_SEPARATED;
}

/* Judges the contact of rounded shapes (radii sum R > 0) that the pieces found, from the closest
 * points of the mover's core (pm) and the static core (pf) there: when the motion d does not close
 * on it by more than rounding (its direction within 2^-40 of the tangent plane, or moving apart),
 * the ray only grazes K or rests on it and, K being convex, never enters: SEPARATED (a capsule
 * lying on floor tiles that slides over their seams, or along them, is not caught by a tile it
 * grazes: the seams rule). Otherwise TOUCHING with *n the direction between the closest points
 * (where pieces meet at the contact, as at a rounded box's edge, the pieces' own normals tie).
 * Pieces that give an entry far inside R (rounding elsewhere) keep their own normal. */
static cl_toi_state accept(cl_toi_state st, cl_vec3 pm, cl_vec3 pf, double R, cl_vec3 d, cl_vec3 *n)
{
    cl_vec3 u, w, x = cl_sub(pm, pf);
    if (st != CL_TOI_TOUCHING || !(R > 0)) return st;
    if (!cl_vfinite(x)) x = cl_halfsub(pm, pf), R *= 0.5;
    if (!(cl_len(x.x, x.y, x.z) >= 0.5 * R) || !unit(x, &u)) return st;
    if (!unit(d, &w) || !(cl_dot(u, w) < -0x1p-40)) return CL_TOI_SEPARATED;
    *n = u;
    return st;
}

/* The sweep result of a state, its t and n (t = 1, n = 0 when SEPARATED), and the contact's rank
 * (1 face, 2 edge, 3 corner; 0 unless TOUCHING). */
static cl_sweep result(cl_toi_state st, double t, cl_vec3 n, int rank)
{
    cl_sweep r;
    r.state = st;
    r.t = st == CL_TOI_SEPARATED ? 1 : t;
    r.n = st == CL_TOI_TOUCHING ? n : cl_v3(0, 0, 0);
    r.rank = st == CL_TOI_TOUCHING ? (rank < 1 ? 1 : rank) : 0;
    return r;
}

/* Decides the start of a sweep of rounded shapes (radii sum R) by the closest points p, q of
 * their cores: inside when nearer than R by more than rounding (2^-42 of the largest coordinate
 * or R: a capsule put on a slope by computation, a hair inside it, is resting on it, not inside,
 * so it does not fall through), then OVERLAPPED; else decided outside (a piece around t = 0 is
 * then a contact at 0, for accept to judge). Nothing for R == 0. */
static void decide_at(span *sp, cl_vec3 p, cl_vec3 q, double R)
{
    cl_vec3 x = cl_sub(p, q);
    double m = fmax(fmax(cl_maxabs3(p.x, p.y, p.z), cl_maxabs3(q.x, q.y, q.z)), R);
    if (!(R > 0)) return;
    if (!cl_vfinite(x)) x = cl_halfsub(p, q), R *= 0.5, m *= 0.5;
    if (cl_len(x.x, x.y, x.z) < R - ldexp(m, -42)) sp->inside = 1;
    sp->decided = 1;
}

/* p moved by t * d. */
static cl_vec3 at(cl_vec3 p, cl_vec3 d, double t) { return t == 0 ? p : cl_add(p, cl_mul(d, t)); }

/* An empty span. */
static span empty(void)
{
    span sp;
    sp.inside = 0; sp.decided = 0; sp.first = INFINITY; sp.n = cl_v3(0, 0, 0);
    return sp;
}

/* The ray t*d against the open box (+) segment s0s1 rounded by r, the box given by its centre c,
 * unit axes u and half sizes h (all values near 1): first the box grown by r along each axis and
 * swept along the segment; then, unless skip_rounded says the entry found is on K's surface, the
 * rounded pieces along the box's edges. */
typedef int (*surface_fn)(const void *ctx, double t);
static void pieces_box_segment(span *sp, cl_vec3 d, cl_vec3 c, const cl_vec3 u[3], const double h[3], cl_vec3 s0,
                               cl_vec3 s1, double r, surface_fn on_surface, const void *ctx)
{
    cl_vec3 g[4], corner[8], ext, box[2];
    int k, i, j;
    g[3] = cl_mul(cl_sub(s1, s0), 0.5);
    ext = cl_v3(fabs(g[3].x), fabs(g[3].y), fabs(g[3].z));  /* K's box: nothing else can matter */
    for (i = 0; i < 3; i++) ext = cl_add(ext, cl_v3(h[i] * fabs(u[i].x), h[i] * fabs(u[i].y), h[i] * fabs(u[i].z)));
    box[0] = cl_sub(cl_add(c, cl_mul(cl_add(s0, s1), 0.5)), ext);
    box[1] = cl_add(cl_add(c, cl_mul(cl_add(s0, s1), 0.5)), ext);
    if (!may_matter(sp, d, box, 2, r)) return;
    for (k = 0; k < 3; k++) {  /* the box grown by r along axis k, swept along the segment */
        for (i = 0; i < 3; i++) g[i] = cl_mul(u[i], h[i] + (i == k ? r : 0));
        piece_zonotope(sp, d, cl_add(c, cl_mul(cl_add(s0, s1), 0.5)), g, 4);
    }
    if (!(r > 0) || sp->inside || (sp->decided && sp->first == 0)) return;
    /* K is convex: an entry into a grown box at a point of K's surface is K's entry */
    if (sp->decided && sp->first < 1 && on_surface(ctx, sp->first)) return;
    for (i = 0; i < 8; i++)
        corner[i] = cl_add(c, cl_add(cl_add(cl_mul(u[0], i & 1 ? h[0] : -h[0]), cl_mul(u[1], i & 2 ? h[1] : -h[1])),
                                     cl_mul(u[2], i & 4 ? h[2] : -h[2])));
    for (i = 0; i < 8; i++) piece_capsule(sp, d, cl_add(corner[i], s0), cl_add(corner[i], s1), r);
    for (k = 0; k < 3; k++)  /* the 4 edges along axis k: corner i (bit k clear) to i | bit k */
        for (i = 0; i < 8; i++) {
            if (i & (1 << k)) continue;
            j = i | (1 << k);
            piece_parallelogram(sp, d, corner[i], corner[j], s0, s1, r, 1);
        }
}

/* Scale for a sweep: a power of two near the largest of the data. */
static double sweep_scale(const cl_vec3 *v, int n, double r)
{
    double m = scale_of(v, n, r);
    return m > DBL_MAX ? 0x1p1023 : pow2_near(m);
}

/// Sweep of capsule a moved by d against static capsule b (rank 1: rounded shapes meet as faces).
cl_sweep cl_sweep_capsule_capsule(const cl_capsule *a, cl_vec3 d, const cl_capsule *b)
{
    span sp = empty();
    cl_toi_state st;
    cl_vec3 v[5], s0, s1, e0, e1, dd, n, p, q;
    double k, t, u, w;
    v[0] = a->a; v[1] = a->b; v[2] = b->a; v[3] = b->b; v[4] = d;
    k = 2 * sweep_scale(v, 5, a->r + b->r);
    cl_segment_segment(a->a, a->b, b->a, b->b, &u, &w, &p, &q);
    decide_at(&sp, p, q, a->r + b->r);
    /* K = b's segment - a's segment, rounded by the radii sum (values / k, relative to a's start) */
    e0 = cl_mul(cl_halfsub(b->a, a->a), 2 / k);
    e1 = cl_mul(cl_halfsub(b->b, a->a), 2 / k);
    s0 = cl_v3(0, 0, 0);
    s1 = cl_mul(cl_halfsub(a->a, a->b), 2 / k);
    dd = cl_mul(d, 1 / k);
    piece_parallelogram(&sp, dd, e0, e1, s0, s1, (a->r / k + b->r / k), 0);
    st = finish(&sp, &t, &n);
    if (st == CL_TOI_TOUCHING) {
        cl_segment_segment(at(a->a, d, t), at(a->b, d, t), b->a, b->b, &u, &w, &p, &q);
        st = accept(st, p, q, a->r + b->r, d, &n);
    }
    return result(st, t, n, 1);
}

/// Sweep of capsule a moved by d against static sphere s (rank 1).
cl_sweep cl_sweep_capsule_sphere(const cl_capsule *a, cl_vec3 d, const cl_sphere *s)
{
    span sp = empty();
    cl_toi_state st;
    cl_vec3 v[4], n;
    double k, t, u;
    v[0] = a->a; v[1] = a->b; v[2] = s->c; v[3] = d;
    k = 2 * sweep_scale(v, 4, a->r + s->r);
    decide_at(&sp, cl_closest_on_segment(s->c, a->a, a->b, &u), s->c, a->r + s->r);
    piece_capsule(&sp, cl_mul(d, 1 / k), cl_mul(cl_halfsub(s->c, a->a), 2 / k), cl_mul(cl_halfsub(s->c, a->b), 2 / k),
                  a->r / k + s->r / k);
    st = finish(&sp, &t, &n);
    if (st == CL_TOI_TOUCHING)
        st = accept(st, cl_closest_on_segment(s->c, at(a->a, d, t), at(a->b, d, t), &u), s->c, a->r + s->r, d, &n);
    return result(st, t, n, 1);
}

/// Sweep of sphere s moved by d against static capsule b (rank 1).
cl_sweep cl_sweep_sphere_capsule(const cl_sphere *s, cl_vec3 d, const cl_capsule *b)
{
    span sp = empty();
    cl_toi_state st;
    cl_vec3 v[4], n, c;
    double k, t, u;
    v[0] = b->a; v[1] = b->b; v[2] = s->c; v[3] = d;
    k = 2 * sweep_scale(v, 4, b->r + s->r);
    decide_at(&sp, s->c, cl_closest_on_segment(s->c, b->a, b->b, &u), b->r + s->r);
    piece_capsule(&sp, cl_mul(d, 1 / k), cl_mul(cl_halfsub(b->a, s->c), 2 / k), cl_mul(cl_halfsub(b->b, s->c), 2 / k),
                  b->r / k + s->r / k);
    st = finish(&sp, &t, &n);
    if (st == CL_TOI_TOUCHING) {
        c = at(s->c, d, t);
        st = accept(st, c, cl_closest_on_segment(c, b->a, b->b, &u), b->r + s->r, d, &n);
    }
    return result(st, t, n, 1);
}

/* The frame's box as centre (world, relative to origin o, divided by k), axes and half sizes / k. */
static void box_of(const frame *f, cl_vec3 o, double k, cl_vec3 *c, cl_vec3 u[3], double h[3])
{
    int i;
    double lc[3];
    cl_vec3 off;
    for (i = 0; i < 3; i++) {
        u[i] = f->u[i];
        h[i] = (f->hi[i] * 0.5 - f->lo[i] * 0.5) / k;
        lc[i] = (f->lo[i] * 0.5 + f->hi[i] * 0.5) / k;
    }
    off = from_frame(f, lc);                               /* the box's centre from the frame origin */
    *c = cl_add(cl_mul(cl_halfsub(f->o, o), 2 / k), off);
}

/* decide_at for the segment ab rounded by r and the frame's box. */
static void decide(span *sp, const frame *f, cl_vec3 a, cl_vec3 b, double r)
{
    cl_vec3 p, q;
    if (!(r > 0)) return;
    (void)frame_closest(f, a, b, cl_v3(0, 0, 0), &p, &q, NULL);
    decide_at(sp, p, q, r);
}

/* A capsule and a box at time t of a sweep (the capsule moving, or the box when box_moves). */
typedef struct sweepctx {
    const frame *f;
    const cl_capsule *c;
    cl_vec3 d;
    int box_moves;
} sweepctx;

/* 1 when the dot product of a and b is negative. A finite dot product of at least 2^-900 in
 * magnitude has the right sign as computed (a product lost to underflow is below 2^-1022);
 * otherwise a and b are each scaled by a power of two near their largest component first (a
 * capsule of size 2^-538 moving 2^-537 had products below 2^-1074, which read 0 as "not closing",
 * and its sweep's t against a box came out 2^-40 off the scale-1 one). The scaled dot product is
 * taken only there: scaling a = (2^1000, -2^-100, 0) flushes its -2^-100, whose product with
 * b = (0, 1, 0) decides the sign. */
static int closing(cl_vec3 a, cl_vec3 b)
{
    double ma = cl_maxabs3(a.x, a.y, a.z), mb = cl_maxabs3(b.x, b.y, b.z), dd = cl_dot(a, b);
    if (fabs(dd) >= 0x1p-900 && fabs(dd) <= DBL_MAX) return dd < 0;
    if (!(ma > 0 && mb > 0)) return 0;
    a = cl_vscale2(a, -cl_exp2of(ma));
    b = cl_vscale2(b, -cl_exp2of(mb));
    return cl_dot(a, b) < 0;
}

/* 1 when at time t the capsule and the box are (to 1e-9 of the radius) r apart and closing (the
 * motion has a negative component along the mover's offset from the static shape): the ray then
 * enters K there, and K, being convex, is entered once. */
static int on_surface(const void *ctx, double t)
{
    const sweepctx *x = (const sweepctx *)ctx;
    cl_vec3 p, q, v;
    if (x->box_moves) {
        (void)frame_closest(x->f, x->c->a, x->c->b, cl_mul(x->d, t), &p, &q, NULL);
        v = cl_halfsub(q, p);  /* the moving box's point from the capsule's */
    } else {
        (void)frame_closest(x->f, at(x->c->a, x->d, t), at(x->c->b, x->d, t), cl_v3(0, 0, 0), &p, &q, NULL);
        v = cl_halfsub(p, q);
    }
    return cl_len(v.x, v.y, v.z) >= x->c->r * 0.5 * (1 - 1e-9) && closing(v, x->d);
}

/* The rank of a contact of a segment rounded by r with the frame's box: nout, the axes the
 * segment's closest point lies outside of; for r == 0 (where the two meet at the contact) the
 * frame components of the unit normal n that are not rounding noise. */
static int box_rank(const frame *f, double r, int nout, cl_vec3 n)
{
    int i, k = 0;
    if (r > 0) return nout;
    for (i = 0; i < 3; i++) k += fabs(f->world ? cl_comp(n, i) : cl_dot(n, f->u[i])) > 0x1p-30;
    return k;
}

/* A box side farther out than 2^CLIP_FAR times the sweep's reach is cut back (clip_frame). */
#define CLIP_FAR 0x1p10

/* Cuts the frame's box to the part the sweep can reach when a side of it lies far beyond (a floor
 * of half size 1e15 under a capsule of size 1, whose sweep would otherwise work at the box's
 * scale, off by its rounding there: 0.03 at 1e15, a contact at t = 0 at 1e20). In the frame, the
 * capsule's ends at the start and at the end (b's ends moved by -d when the box moves) bound
 * everything within r of the swept segment; that bound widened by r and by its own extent (plus
 * 2^-30 of the coordinates, for the frame's rounding) is the region. A side beyond 2^CLIP_FAR
 * times the coordinates (so beyond the region) is moved to the region's side: every point of the
 * box within r of the swept segment stays, so the sweep is the same, worked at the reach's scale.
 * The sides of a box not that far out are kept as they are (the same answers as before). Returns
 * f itself when no side is that far out, else cut, filled with the cut box, or NULL when a cut
 * leaves nothing (the box lies beyond the region: SEPARATED). */
static const frame *clip_frame(const frame *f, frame *cut, const cl_capsule *cp, cl_vec3 d, int box_moves)
{
    cl_vec3 pt[4];
    double l[4][3], mn[3], mx[3], lo[3], hi[3], L = cp->r, ext = 0, pad, far;
    int i, j, any = 0;
    pt[0] = cp->a; pt[1] = cp->b;
    pt[2] = box_moves ? cl_sub(cp->a, d) : cl_add(cp->a, d);
    pt[3] = box_moves ? cl_sub(cp->b, d) : cl_add(cp->b, d);
    for (j = 0; j < 4; j++) {
        if (f->world) {
            l[j][0] = pt[j].x; l[j][1] = pt[j].y; l[j][2] = pt[j].z;
        } else {
            cl_vec3 x = cl_sub(pt[j], f->o);
            for (i = 0; i < 3; i++) l[j][i] = cl_dot(x, f->u[i]);
        }
        for (i = 0; i < 3; i++) if (fabs(l[j][i]) > L) L = fabs(l[j][i]);
    }
    /* huge, tiny or non-finite values: as before */
    if (!(L >= 0x1p-400 && L <= 0x1p400)) return f;
    far = CLIP_FAR * L;
    for (i = 0; i < 3; i++) any |= f->lo[i] < -far || f->hi[i] > far;
    if (!any) return f;
    for (i = 0; i < 3; i++) {
        mn[i] = mx[i] = l[0][i];
        for (j = 1; j < 4; j++) {
            if (l[j][i] < mn[i]) mn[i] = l[j][i];
            if (l[j][i] > mx[i]) mx[i] = l[j][i];
        }
        if (mx[i] - mn[i] > ext) ext = mx[i] - mn[i];
    }
    pad = 2 * cp->r + ext + L * 0x1p-30;
    for (i = 0; i < 3; i++) {
        lo[i] = f->lo[i] < -far ? mn[i] - pad : f->lo[i];
        hi[i] = f->hi[i] > far ? mx[i] + pad : f->hi[i];
        if (!(lo[i] <= hi[i])) return NULL;   /* a side cut back past the other: out of reach */
    }
    *cut = *f;
    if (f->world) {
        for (i = 0; i < 3; i++) { cut->lo[i] = lo[i]; cut->hi[i] = hi[i]; }
        cut->box.u.aabb.min = cl_v3(lo[0], lo[1], lo[2]);
        cut->box.u.aabb.max = cl_v3(hi[0], hi[1], hi[2]);
    } else {   /* the cut box re-centred: its centre from the frame's, its half sizes */
        double mid[3], h[3];
        for (i = 0; i < 3; i++) { mid[i] = lo[i] * 0.5 + hi[i] * 0.5; h[i] = hi[i] * 0.5 - lo[i] * 0.5; }
        cut->o = cl_add(f->o, from_frame(f, mid));
        for (i = 0; i < 3; i++) { cut->lo[i] = -h[i]; cut->hi[i] = h[i]; }
        cut->box.u.obb.c = cut->o;
        cut->box.u.obb.h = cl_v3(h[0], h[1], h[2]);
    }
    return cut;
}

/* Sweep of capsule cp and the frame's box, one of them moved by d: the capsule when box_moves is
 * 0, else the box (the normal is the mover's, as for every sweep). */
static cl_sweep frame_capsule_sweep(const frame *box, const cl_capsule *cp, cl_vec3 d, int box_moves)
{
    span sp = empty();
    sweepctx ctx;
    cl_toi_state st;
    cl_vec3 v[6], c, u[3], n, p, q;
    double h[3], k, t;
    int i, nout = 0;
    frame cut;
    const frame *f = clip_frame(box, &cut, cp, d, box_moves);
    if (f == NULL) return result(CL_TOI_SEPARATED, 1, cl_v3(0, 0, 0), 0);
    v[0] = cp->a; v[1] = cp->b; v[2] = d; v[3] = f->o;
    v[4] = cl_v3(f->lo[0], f->lo[1], f->lo[2]); v[5] = cl_v3(f->hi[0], f->hi[1], f->hi[2]);
    k = 2 * sweep_scale(v, 6, cp->r);
    box_of(f, cp->a, k, &c, u, h);  /* the box's centre relative to the capsule's start */
    for (i = 0; i < 3; i++) if (h[i] < 0) h[i] = 0;
    decide(&sp, f, cp->a, cp->b, cp->r);
    ctx.f = f; ctx.c = cp; ctx.d = d; ctx.box_moves = box_moves;
    if (!box_moves)  /* K = box - segment: the segment from 0 to a - b, relative to the capsule's start */
        pieces_box_segment(&sp, cl_mul(d, 1 / k), c, u, h, cl_v3(0, 0, 0), cl_mul(cl_halfsub(cp->a, cp->b), 2 / k),
                           cp->r / k, on_surface, &ctx);
    else  /* K = segment - box: the reflected box (centre -c) swept along 0 .. b - a */
        pieces_box_segment(&sp, cl_mul(d, 1 / k), cl_mul(c, -1.0), u, h, cl_v3(0, 0, 0),
                           cl_mul(cl_halfsub(cp->b, cp->a), 2 / k), cp->r / k, on_surface, &ctx);
    st = finish(&sp, &t, &n);
    if (st == CL_TOI_TOUCHING) {
        if (!box_moves) {
            (void)frame_closest(f, at(cp->a, d, t), at(cp->b, d, t), cl_v3(0, 0, 0), &p, &q, &nout);
            st = accept(st, p, q, cp->r, d, &n);
        } else {
            (void)frame_closest(f, cp->a, cp->b, cl_mul(d, t), &p, &q, &nout);
            st = accept(st, q, p, cp->r, d, &n);
        }
    }
    return result(st, t, n, box_rank(f, cp->r, nout, n));
}

/// Sweep of capsule a moved by d against static AABB b (rank: the box's axes the segment's
/// closest point lies outside of at the contact).
cl_sweep cl_sweep_capsule_aabb(const cl_capsule *a, cl_vec3 d, const cl_aabb *b)
{
    frame f = aabb_frame(b);
    return frame_capsule_sweep(&f, a, d, 0);
}

/// Sweep of capsule a moved by d against static OBB b (rank as for an AABB, in its frame).
cl_sweep cl_sweep_capsule_obb(const cl_capsule *a, cl_vec3 d, const cl_obb *b)
{
    frame f = obb_frame(b);
    return frame_capsule_sweep(&f, a, d, 0);
}

/// Sweep of AABB a moved by d against static capsule b (rank: the box's axes the segment's
/// closest point lies outside of at the contact).
cl_sweep cl_sweep_aabb_capsule(const cl_aabb *a, cl_vec3 d, const cl_capsule *b)
{
    frame f = aabb_frame(a);
    return frame_capsule_sweep(&f, b, d, 1);
}

/// Sweep of OBB a moved by d against static capsule b (rank as for an AABB, in its frame).
cl_sweep cl_sweep_obb_capsule(const cl_obb *a, cl_vec3 d, const cl_capsule *b)
{
    frame f = obb_frame(a);
    return frame_capsule_sweep(&f, b, d, 1);
}
