/* collide core: oriented boxes (seed 002; SAT after Gottschalk's OBBTree / Ericson 4.4). */
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "vec.h"

/// 1 if |u_i.u_i - 1| <= tol and |u_i.u_j| <= tol for i != j (NaN fails).
int cl_axes_orthonormal(const cl_vec3 u[3], double tol)
{
    int i, j;
    for (i = 0; i < 3; i++) {
        if (!(fabs(cl_dot(u[i], u[i]) - 1.0) <= tol)) return 0;
        for (j = i + 1; j < 3; j++)
            if (!(fabs(cl_dot(u[i], u[j])) <= tol)) return 0;
    }
    return 1;
}

static cl_vec3 normalize(cl_vec3 v)
{
    double len = cl_len(v.x, v.y, v.z);
    return len > 0 ? cl_v3(v.x / len, v.y / len, v.z / len) : v;
}

/// 1 after rotating the axes by angle about a (Rodrigues) and re-orthonormalising; 0 if a is zero.
int cl_obb_rotate(cl_obb *b, double angle, cl_vec3 a)
{
    double m = cl_maxabs3(a.x, a.y, a.z), c, s;
    cl_vec3 k, u[3], w;
    int i;
    if (!(m > 0) || !isfinite(m)) return 0;
    k = normalize(cl_v3(a.x / m, a.y / m, a.z / m));
    c = cos(angle);
    s = sin(angle);
    for (i = 0; i < 3; i++) {
        cl_vec3 v = b->u[i];
        u[i] = cl_add(cl_add(cl_mul(v, c), cl_mul(cl_cross(k, v), s)), cl_mul(k, cl_dot(k, v) * (1.0 - c)));
    }
    /* Gram-Schmidt; the third axis is +-(u0 x u1), the sign keeping the box's handedness */
    u[0] = normalize(u[0]);
    u[1] = normalize(cl_sub(u[1], cl_mul(u[0], cl_dot(u[1], u[0]))));
    w = normalize(cl_cross(u[0], u[1]));
    if (cl_dot(w, u[2]) < 0) w = cl_mul(w, -1.0);
    b->u[0] = cl_add(u[0], cl_v3(0, 0, 0));  /* + 0.0 turns -0 components into 0 */
    b->u[1] = cl_add(u[1], cl_v3(0, 0, 0));
    b->u[2] = cl_add(w, cl_v3(0, 0, 0));
    return 1;
}

/// 1 if p's coordinates in the box frame are within the half sizes.
int cl_obb_contains(const cl_obb *b, cl_vec3 p)
{
    double l[3], s = cl_obb_local(b, p, l);
    return (fabs(l[0]) <= b->h.x * s) & (fabs(l[1]) <= b->h.y * s) & (fabs(l[2]) <= b->h.z * s);  /* no branches */
}

static double clampd(double v, double h) { return v < -h ? -h : (v > h ? h : v); }

/// p itself when inside (inclusive), else c + the sum of the axes times the local coordinates
/// clamped to the half sizes (offsets summed first; at quarter scale if that overflows).
cl_vec3 cl_obb_closest(const cl_obb *b, cl_vec3 p)
{
    double l[3], s = cl_obb_local(b, p, l), a0, a1, a2, q;
    cl_vec3 off, r;
    a0 = clampd(l[0], b->h.x * s);
    a1 = clampd(l[1], b->h.y * s);
    a2 = clampd(l[2], b->h.z * s);
    if (a0 == l[0] && a1 == l[1] && a2 == l[2]) return p;  /* contained: nothing was clamped */
    if (s == 1.0) {
        off = cl_add(cl_add(cl_mul(b->u[0], a0), cl_mul(b->u[1], a1)), cl_mul(b->u[2], a2));
        r = cl_add(b->c, off);
        if (cl_vfinite(r)) return r;
    }
    /* quarter scale: each offset is at most h/4 per axis, so c/4 + the offsets stays finite */
    q = s == 1.0 ? 0.25 : 1.0;
    off = cl_add(cl_add(cl_mul(b->u[0], a0 * q), cl_mul(b->u[1], a1 * q)), cl_mul(b->u[2], a2 * q));
    return cl_mul(cl_add(cl_mul(b->c, 0.25), off), 4.0);
}

/// 1 / -1 / 0 comparing the plane's value at the centre with the box's projected radius.
int cl_obb_plane(const cl_obb *b, cl_vec3 n, double d)
{
    cl_vec3 ns, c, h;
    double ds, s, r, mp = cl_maxabs3(b->c.x, b->c.y, b->c.z), m2 = cl_maxabs3(b->h.x, b->h.y, b->h.z);
    int pk;
    if (m2 > mp) mp = m2;
    if (!cl_plane_scale(n, d, mp, 1016, &ns, &ds, &pk)) return cl_sign(d);
    c = cl_vscale2(b->c, pk);
    h = cl_vscale2(b->h, pk);
    s = ns.x * c.x + ns.y * c.y + ns.z * c.z + ds;
    r = h.x * fabs(cl_dot(ns, b->u[0])) + h.y * fabs(cl_dot(ns, b->u[1])) + h.z * fabs(cl_dot(ns, b->u[2]));
    if (s > r) return 1;
    if (s < -r) return -1;
    return 0;
}

/// Centre +- the box's extent along each world axis, clamped to finite values. For world-axis boxes
/// the extent is exactly a half size, so the bounds are c - h and c + h rounded once.
cl_aabb cl_obb_aabb(const cl_obb *b)
{
    cl_aabb a;
    double e[3];
    int i;
    for (i = 0; i < 3; i++)
        e[i] = b->h.x * fabs(cl_comp(b->u[0], i)) + b->h.y * fabs(cl_comp(b->u[1], i)) +
               b->h.z * fabs(cl_comp(b->u[2], i));
    a.min = cl_v3(cl_clampfinite(b->c.x - e[0]), cl_clampfinite(b->c.y - e[1]), cl_clampfinite(b->c.z - e[2]));
    a.max = cl_v3(cl_clampfinite(b->c.x + e[0]), cl_clampfinite(b->c.y + e[1]), cl_clampfinite(b->c.z + e[2]));
    return a;
}

/// 1 and the entry hit in the box frame (normal turned back to world space); 0 on a miss.
int cl_obb_raycast(const cl_obb *b, const cl_ray *r, double maxt, cl_hit *out)
{
    double o[3], lo[3], hi[3], d[3], t0, t1, s = cl_obb_local(b, r->o, o);
    int ax;
    hi[0] = b->h.x * s; hi[1] = b->h.y * s; hi[2] = b->h.z * s;
    if (fabs(o[0]) <= hi[0] && fabs(o[1]) <= hi[1] && fabs(o[2]) <= hi[2]) {
        out->t = 0;
        out->n = cl_v3(0, 0, 0);
        return 1;
    }
    lo[0] = -hi[0]; lo[1] = -hi[1]; lo[2] = -hi[2];
    d[0] = cl_dot(r->d, b->u[0]); d[1] = cl_dot(r->d, b->u[1]); d[2] = cl_dot(r->d, b->u[2]);
    if (!cl_slabs(lo, hi, o, d, &t0, &t1, &ax) || ax < 0 || !(t0 >= 0)) return 0;  /* outside: ahead or behind */
    t0 /= s;
    if (!(t0 <= maxt)) return 0;
    out->t = t0;
    out->n = cl_add(cl_mul(b->u[ax], d[ax] > 0 ? -1.0 : 1.0), cl_v3(0, 0, 0));  /* + 0.0: no -0 */
    return 1;
}

/// The box as an OBB with world axes.
cl_obb cl_obb_from_aabb(const cl_aabb *a)
{
    cl_obb o;
    o.c = cl_v3(a->min.x * 0.5 + a->max.x * 0.5, a->min.y * 0.5 + a->max.y * 0.5, a->min.z * 0.5 + a->max.z * 0.5);
    o.h = cl_v3(a->max.x * 0.5 - a->min.x * 0.5, a->max.y * 0.5 - a->min.y * 0.5, a->max.z * 0.5 - a->min.z * 0.5);
    o.u[0] = cl_v3(1, 0, 0);
    o.u[1] = cl_v3(0, 1, 0);
    o.u[2] = cl_v3(0, 0, 1);
    return o;
}

int cl_obb_worldbox(const cl_obb *b, cl_aabb *box)
{
    double hw[3] = { 0, 0, 0 };
    int k, seen = 0;
    for (k = 0; k < 3; k++) {
        const cl_vec3 *u = &b->u[k];
        double h = k == 0 ? b->h.x : k == 1 ? b->h.y : b->h.z;
        int a = fabs(u->x) == 1 && u->y == 0 && u->z == 0 ? 0
              : u->x == 0 && fabs(u->y) == 1 && u->z == 0 ? 1
              : u->x == 0 && u->y == 0 && fabs(u->z) == 1 ? 2 : -1;
        if (a < 0 || (seen & (1 << a))) return 0;
        seen |= 1 << a;
        hw[a] = h;
    }
    box->min = cl_v3(b->c.x - hw[0], b->c.y - hw[1], b->c.z - hw[2]);
    box->max = cl_v3(b->c.x + hw[0], b->c.y + hw[1], b->c.z + hw[2]);
    return 1;
}

int cl_shape_boxlike(const cl_shape *s, cl_aabb *box)
{
    if (s->kind == CL_AABB) { *box = s->u.aabb; return 1; }
    return s->kind == CL_OBB && cl_obb_worldbox(&s->u.obb, box);
}

/* Cross-product axes shorter than this (squared; the edges are unit) are parallel edges, which
 * the face axes already decide; testing them would compare rounding noise. */
#define CL_PARALLEL_SQ 1e-12

/* The 15-axis test on precomputed inputs: t = centre offset in a's frame, ah and bh = half sizes
 * (all scaled alike), R[i][j] = a.u[i] . b.u[j] (rows filled by ROW before first use, so a pair
 * separated on one of a's face axes computes only what that axis needs). Every axis compares
 * exactly the quantities the plain loop form would, so the order of the tests changes nothing.
 * world != 0: b has the world axes, so R[i][j] is component j of a.u[i] (the dot product with a
 * unit axis equals it up to the sign of a zero, which no comparison below can see). */
static CL_INLINE int sat_tests(const cl_obb *a, const cl_obb *b, int world, const double t[3],
                               const double ah[3], const double bh[3])
{
    double R[3][3], AR[3][3];
#define ROW(i)                                                                       \
    do {                                                                             \
        if (world) {                                                                 \
            R[i][0] = a->u[i].x; R[i][1] = a->u[i].y; R[i][2] = a->u[i].z;          \
        } else {                                                                     \
            R[i][0] = cl_dot(a->u[i], b->u[0]);                                      \
            R[i][1] = cl_dot(a->u[i], b->u[1]);                                      \
            R[i][2] = cl_dot(a->u[i], b->u[2]);                                      \
        }                                                                            \
        AR[i][0] = fabs(R[i][0]); AR[i][1] = fabs(R[i][1]); AR[i][2] = fabs(R[i][2]); \
    } while (0)
#define FACE_A(i) (fabs(t[i]) > ah[i] + (bh[0] * AR[i][0] + bh[1] * AR[i][1] + bh[2] * AR[i][2]))
#define FACE_B(j)                                                                    \
    (fabs(t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j]) >                        \
     (ah[0] * AR[0][j] + ah[1] * AR[1][j] + ah[2] * AR[2][j]) + bh[j])
    /* A_i x B_j separates only when the gap is positive and the edges are not parallel (checked
     * second: the same decision, and the parallel test is rarely reached) */
#define EDGE(i, i1, i2, j, j1, j2)                                                   \
    (fabs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) >                                     \
         (ah[i1] * AR[i2][j] + ah[i2] * AR[i1][j]) + (bh[j1] * AR[i][j2] + bh[j2] * AR[i][j1]) && \
     !(R[i1][j] * R[i1][j] + R[i2][j] * R[i2][j] < CL_PARALLEL_SQ))
    ROW(0);
    if (FACE_A(0)) return 0;
    ROW(1);
    if (FACE_A(1)) return 0;
    ROW(2);
    if (FACE_A(2)) return 0;
    if (FACE_B(0) || FACE_B(1) || FACE_B(2)) return 0;
    if (EDGE(0, 1, 2, 0, 1, 2) || EDGE(0, 1, 2, 1, 2, 0) || EDGE(0, 1, 2, 2, 0, 1)) return 0;
    if (EDGE(1, 2, 0, 0, 1, 2) || EDGE(1, 2, 0, 1, 2, 0) || EDGE(1, 2, 0, 2, 0, 1)) return 0;
    if (EDGE(2, 0, 1, 0, 1, 2) || EDGE(2, 0, 1, 1, 2, 0) || EDGE(2, 0, 1, 2, 0, 1)) return 0;
    return 1;
#undef ROW
#undef FACE_A
#undef FACE_B
#undef EDGE
}

/* SAT with every length scaled by s (1 or 1/16). Returns -1 when a quantity overflowed at this
 * scale (retry with the smaller one), else 1 if no axis strictly separates (inclusive), else 0. */
static CL_INLINE int sat(const cl_obb *a, const cl_obb *b, int world, double s)
{
    double t[3], ah[3], bh[3];
    cl_vec3 tv = s == 1.0 ? cl_sub(b->c, a->c) : cl_sub(cl_mul(b->c, s), cl_mul(a->c, s));
    ah[0] = a->h.x * s; ah[1] = a->h.y * s; ah[2] = a->h.z * s;
    bh[0] = b->h.x * s; bh[1] = b->h.y * s; bh[2] = b->h.z * s;
    t[0] = cl_dot(tv, a->u[0]);
    t[1] = cl_dot(tv, a->u[1]);
    t[2] = cl_dot(tv, a->u[2]);
    if (!isfinite(fabs(t[0]) + fabs(t[1]) + fabs(t[2]) + ah[0] + ah[1] + ah[2] + bh[0] + bh[1] + bh[2]))
        return -1;
    return sat_tests(a, b, world, t, ah, bh);
}

/* Overlap of a with b (b with world axes when world != 0): at full scale, or at 1/16 for huge
 * boxes, where every sum stays below DBL_MAX. */
#if defined(__GNUC__) || defined(__clang__)
#define CL_NOINLINE __attribute__((noinline))
#else
#define CL_NOINLINE
#endif
/* The rare 1/16-scale retry, out of line: the hot path keeps a single inlined copy of the test. */
static CL_NOINLINE int sat_small(const cl_obb *a, const cl_obb *b, int world)
{
    return sat(a, b, world, 0.0625) != 0;
}
static CL_INLINE int sat_scaled(const cl_obb *a, const cl_obb *b, int world)
{
    int r = sat(a, b, world, 1.0);
    return r >= 0 ? r : sat_small(a, b, world);
}

/* memcmp(a, b, sizeof *a) <= 0, without the library call (a measurable part of a query): where
 * the byte order is known, 8 bytes at a time; the first differing word decides, compared as the
 * big-endian number of its bytes, which orders exactly as memcmp orders those bytes. */
static inline int bytes_le(const cl_obb *a, const cl_obb *b)
{
    const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;
    size_t k = 0;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    defined(__ORDER_BIG_ENDIAN__)
    for (; k + 8 <= sizeof *a; k += 8) {
        uint64_t wa, wb;
        memcpy(&wa, pa + k, 8);
        memcpy(&wb, pb + k, 8);
        if (wa != wb) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return __builtin_bswap64(wa) < __builtin_bswap64(wb);
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            return wa < wb;
#else
            return memcmp(pa + k, pb + k, 8) < 0;
#endif
        }
    }
#endif
    return memcmp(pa + k, pb + k, sizeof *a - k) <= 0;  /* the rest (nothing for an OBB) */
}

/* The bounding-sphere early out of cl_obb_overlaps_obb: D2 = |b.c - a.c|^2 > SPHERE_K * R2 with
 * R2 = |a.h|^2 + |b.h|^2 (each box lies within |h| (1 + 2e-6) of its centre, axes being
 * orthonormal within 1e-6; (ra + rb)^2 <= 2 (ra^2 + rb^2) avoids a square root) means, with the
 * rounding of D2 and R2 (a few ulps: sums of non-negative products, and the range guards keep
 * underflow and overflow out), that the centres are more than 1.015 times the sum of the
 * circumradii apart: the boxes are disjoint, by at least 1.5% of their sizes. Then the separating
 * axis test finds a separating axis too: for disjoint boxes one of the 15 axes separates them by
 * at least 1/sqrt(3) of their distance (the distance's direction lies in the normal cone of the
 * Minkowski difference at its nearest point; that cone lies within an octant of a's frame, so it
 * is spanned by at most 3 facet normals with pairwise non-negative dot products, and the best of
 * them has cosine >= 1/sqrt(3) with it; a skipped near-parallel edge axis is within 45 degrees of
 * one of a's face normals, the facet it stands for being thinner than 1e-6 of the sizes), while
 * what the test neglects (axes orthonormal only within 1e-6, skipped near-parallel edge pairs,
 * rounding) moves its quantities by about 1e-6 of the sizes. Checked against the full test on
 * millions of random, near-threshold, tiny-rotation and 1e-6-perturbed pairs (spec/20 has a
 * sample): no difference even at SPHERE_K = 2 (a factor 1.9, which is wrong, is caught). It
 * settles about 70% of the benchmark's random pairs with a dozen operations. */
#define SPHERE_K 2.0625

/// 1 unless one of the 15 SAT axes (minus parallel-edge ones) strictly separates the boxes.
/// The operands are put in a fixed order first, so rounding-level contacts give the same answer
/// for (a, b) and (b, a) (found by fuzzing: the frames of A and B round differently).
int cl_obb_overlaps_obb(const cl_obb *a, const cl_obb *b)
{
    double d2, r2;
    const cl_obb *p, *q;
    int le;
#if defined(__SSE2__)
    {   /* x and y in one register, z alone: the same sums in another order (any order will do) */
        __m128d t = _mm_sub_pd(_mm_loadu_pd(&b->c.x), _mm_loadu_pd(&a->c.x));
        __m128d h = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(&a->h.x), _mm_loadu_pd(&a->h.x)),
                               _mm_mul_pd(_mm_loadu_pd(&b->h.x), _mm_loadu_pd(&b->h.x)));
        double tz = b->c.z - a->c.z;
        t = _mm_mul_pd(t, t);
        d2 = (_mm_cvtsd_f64(t) + _mm_cvtsd_f64(_mm_unpackhi_pd(t, t))) + tz * tz;
        r2 = (_mm_cvtsd_f64(h) + _mm_cvtsd_f64(_mm_unpackhi_pd(h, h))) + (a->h.z * a->h.z + b->h.z * b->h.z);
    }
#else
    {
        double tx = b->c.x - a->c.x, ty = b->c.y - a->c.y, tz = b->c.z - a->c.z;
        d2 = tx * tx + ty * ty + tz * tz;
        r2 = (a->h.x * a->h.x + a->h.y * a->h.y + a->h.z * a->h.z) + (b->h.x * b->h.x + b->h.y * b->h.y + b->h.z * b->h.z);
    }
#endif
    /* & instead of && so the compiler keeps one branch; d2 < 2^1000 also rejects an overflowed
     * centre distance */
    if ((d2 > SPHERE_K * r2) & (r2 > 0x1p-600) & (d2 < 0x1p1000)) return 0;
    /* pointers picked without a branch (the order is random in practice), one copy of the test */
    le = bytes_le(a, b);
    p = le ? a : b;
    q = le ? b : a;
    return sat_scaled(p, q, 0);
}

/// 1 if the OBB and the AABB overlap: the AABB's face axes first, as exact interval tests against
/// the OBB's enclosing box (which is the OBB itself when its axes are world axes up to sign, so
/// touching counts exactly as between two AABBs); otherwise the full SAT.
int cl_obb_overlaps_aabb(const cl_obb *a, const cl_aabb *b)
{
    cl_aabb e = cl_obb_aabb(a);
    cl_obb o;
    if (!cl_aabb_overlaps_aabb(&e, b)) return 0;
    if (cl_obb_world_axes(a)) return 1;
    o = cl_obb_from_aabb(b);
    return sat_scaled(a, &o, 1);
}

/// Number of SAT axes (unit) between the boxes: 3 + 3 face axes then each non-parallel A_i x B_j.
int cl_obb_axes(const cl_obb *a, const cl_obb *b, cl_vec3 out[15])
{
    int i, j, n = 0;
    for (i = 0; i < 3; i++) out[n++] = a->u[i];
    for (i = 0; i < 3; i++) out[n++] = b->u[i];
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            cl_vec3 c = cl_cross(a->u[i], b->u[j]);
            double sq = cl_dot(c, c);
            if (sq < CL_PARALLEL_SQ) continue;
            out[n++] = cl_mul(c, 1.0 / sqrt(sq));
        }
    return n;
}

/// Centre and radius of the box's projection onto axis: the box covers c.axis +- radius.
void cl_obb_project(const cl_obb *b, cl_vec3 axis, double *center, double *radius)
{
    *center = cl_dot(b->c, axis);
    *radius = b->h.x * fabs(cl_dot(b->u[0], axis)) + b->h.y * fabs(cl_dot(b->u[1], axis)) +
              b->h.z * fabs(cl_dot(b->u[2], axis));
}
