/* collide core: time of impact (seed 003), segment, reflection, polygon. */
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "vec.h"

/* Seed 003 corrected: boxes overlap on an axis when amin < bmax and bmin < amax, strictly (the
 * seed counts touching boxes as overlapped; a flat box strictly inside a thick one does overlap),
 * "separated" always has t = 1 (seed's last branch returns 0), and first contact must be < 1
 * (seed's t1 >= 1 test); each axis gives the open interval of times it overlaps. */

#if defined(__GNUC__) || defined(__clang__)
#define CL_NOINLINE __attribute__((noinline))
#else
#define CL_NOINLINE
#endif

/* a < b ? a : b and a > b ? a : b, without a branch: GCC compiles the plain conditionals in
 * toi_axis to jumps on the sign of the motion, which mispredict in random use; SSE2's minsd and
 * maxsd are exactly these expressions (the second operand when unordered or equal). */
#if defined(__SSE2__)
static inline double min_lt(double a, double b) { return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b))); }
static inline double max_gt(double a, double b) { return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b))); }
#else
static inline double min_lt(double a, double b) { return a < b ? a : b; }
static inline double max_gt(double a, double b) { return a > b ? a : b; }
#endif

/* One axis of cl_toi: narrows (lo, hi) to the open interval of times the boxes overlap on it
 * (no change for an axis that always overlaps). 0 if the axis never overlaps (separated). */
static CL_INLINE int toi_axis(double amin, double amax, double bmin, double bmax, double dai, double dbi,
                              double *lo, double *hi)
{
    double d = dbi - dai, enter, leave;
    if (d == 0) {
        if (amin == amax && bmin == bmax && amin == bmin) return 1;  /* flat-axis rule (2D) */
        return amin < bmax && bmin < amax;
    }
    if (isfinite(d)) {
        /* enter is (amin - bmax) / d when d > 0, else (amax - bmin) / d, and leave the other one:
         * as amin - bmax <= amax - bmin and rounding is monotonic, that is the smaller and the
         * larger quotient (equal quotients differ at most in the sign of a zero, which no test
         * sees and the result's + 0.0 removes). Branch-free: the sign of d is random in practice. */
        double q0 = (amin - bmax) / d, q1 = (amax - bmin) / d;
        enter = min_lt(q0, q1);
        leave = max_gt(q1, q0);
    } else {  /* the relative motion overflows: the times are scale-free, so halve everything */
        d = dbi * 0.5 - dai * 0.5;
        enter = (d > 0 ? amin * 0.5 - bmax * 0.5 : amax * 0.5 - bmin * 0.5) / d;
        leave = (d > 0 ? amax * 0.5 - bmin * 0.5 : amin * 0.5 - bmax * 0.5) / d;
    }
    *lo = max_gt(enter, *lo);
    *hi = min_lt(leave, *hi);
    return 1;
}

/// State and time: OVERLAPPED at 0, TOUCHING at first contact in [0, 1), else SEPARATED at 1.
cl_toi_state cl_toi(const cl_aabb *a, cl_vec3 da, const cl_aabb *b, cl_vec3 db, double *t)
{
    return cl_toi_xyz(a, b, da.x, da.y, da.z, db.x, db.y, db.z, t);
}

/* cl_toi's answer from the axes' verdict ok and the time window (lo, hi), without branches
 * (the state is random in practice): OVERLAPPED at 0 when lo < 0 < hi, TOUCHING at lo when the
 * window is non-empty and meets [0, 1), else SEPARATED at 1. ok = 0 or an empty window gives
 * SEPARATED, which is why the axes need no early exits (lo only rises and hi only falls). */
static CL_INLINE cl_toi_state toi_finish(int ok, double lo, double hi, double *t)
{
    int ov = ok & (lo < 0) & (hi > 0), touch = ok & (lo < hi) & (lo < 1) & (hi > 0);
    uint64_t tb, lb, one = UINT64_C(0x3ff0000000000000), mt, mo;
    lo += 0.0;  /* lo >= 0 when touching; + 0.0 turns -0 into 0 */
    memcpy(&lb, &lo, 8);
    mt = (uint64_t)0 - (uint64_t)(touch & !ov);
    mo = (uint64_t)0 - (uint64_t)ov;
    tb = ((lb & mt) | (one & ~mt)) & ~mo;  /* lo, 1 or 0 (the bits of 1.0 and +0.0) */
    memcpy(t, &tb, 8);
    return (cl_toi_state)(2 - touch - ov);
}

/* The axes one by one (toi_axis), for any motion; out of line, so that the common case below
 * keeps its registers to itself. */
static CL_NOINLINE cl_toi_state toi_general(const cl_aabb *a, const cl_aabb *b, double dax, double day,
                                            double daz, double dbx, double dby, double dbz, double *t)
{
    double lo = -INFINITY, hi = INFINITY;
    int ok = toi_axis(a->min.x, a->max.x, b->min.x, b->max.x, dax, dbx, &lo, &hi);
    ok &= toi_axis(a->min.y, a->max.y, b->min.y, b->max.y, day, dby, &lo, &hi);
    ok &= toi_axis(a->min.z, a->max.z, b->min.z, b->max.z, daz, dbz, &lo, &hi);
    return toi_finish(ok, lo, hi, t);
}

#if defined(__SSE2__)
/* toi_axis's general branch for one axis, both quotients in one register: (q0, q1) =
 * ((amin - bmax) / d, (amax - bmin) / d) lane by lane (the same roundings), then enter =
 * min_lt(q0, q1) and leave = max_gt(q1, q0) in lane 0 of the lane-wise min and max against the
 * swapped pair, and (lo, hi) narrowed as toi_axis narrows them. */
static CL_INLINE void toi_axis_sse2(const double *amin, const double *amax, const double *bmax, const double *bmin,
                                     double d, __m128d *lo, __m128d *hi)
{
    __m128d am = _mm_loadh_pd(_mm_load_sd(amin), amax), bm = _mm_loadh_pd(_mm_load_sd(bmax), bmin);
    __m128d q = _mm_div_pd(_mm_sub_pd(am, bm), _mm_set1_pd(d)), qs = _mm_shuffle_pd(q, q, 1);
    *lo = _mm_max_sd(_mm_min_pd(q, qs), *lo);
    *hi = _mm_min_sd(_mm_max_pd(qs, q), *hi);
}
#endif

/// cl_toi with the displacements as six numbers (passed in registers: the binding's entry).
cl_toi_state cl_toi_xyz(const cl_aabb *a, const cl_aabb *b, double dax, double day, double daz,
                        double dbx, double dby, double dbz, double *t)
{
#if defined(__SSE2__)
    double dx = dbx - dax, dy = dby - day, dz = dbz - daz, p = dx * dy * dz;
    /* the common case, every relative motion finite and non-zero: then so is their product,
     * unless it underflows, and a finite non-zero product has only finite non-zero factors (an
     * infinite one makes it infinite or NaN); an underflow merely takes the general path */
    if ((p != 0) & (p - p == 0)) {
        __m128d lo = _mm_set_sd(-INFINITY), hi = _mm_set_sd(INFINITY);
        toi_axis_sse2(&a->min.x, &a->max.x, &b->max.x, &b->min.x, dx, &lo, &hi);
        toi_axis_sse2(&a->min.y, &a->max.y, &b->max.y, &b->min.y, dy, &lo, &hi);
        toi_axis_sse2(&a->min.z, &a->max.z, &b->max.z, &b->min.z, dz, &lo, &hi);
        return toi_finish(1, _mm_cvtsd_f64(lo), _mm_cvtsd_f64(hi), t);
    }
#endif
    return toi_general(a, b, dax, day, daz, dbx, dby, dbz, t);
}

/* Seed 002's closest point on a line has (P1 - P1) where (P2 - P1) belongs, and its end tests
 * and ratio have sign slips; we use s = (p - a).(b - a) / |b - a|^2 clamped to [0, 1]. */

/// Closest point of segment ab to p and its parameter s (a and 0 for a zero-length segment).
cl_vec3 cl_closest_on_segment(cl_vec3 p, cl_vec3 a, cl_vec3 b, double *s)
{
    cl_vec3 ab = cl_sub(b, a), ap = cl_sub(p, a);
    double num, den, f;
    if (a.x == b.x && a.y == b.y && a.z == b.z) { *s = 0; return a; }
    num = cl_dot(ap, ab);
    den = cl_dot(ab, ab);
    if (!cl_vfinite(ab) || !cl_vfinite(ap) || !isfinite(num) || !(den >= 0x1p-900 && den <= 0x1p900)) {
        /* extreme magnitudes: divide both vectors by the power of two 2^ek near the largest
         * component (s is scale-free; a power of two changes no rounding, so the s of a scene
         * scaled by 2^e is the s of the scene itself) */
        double k;
        int ek;
        cl_vec3 q;
        if (!cl_vfinite(ab) || !cl_vfinite(ap)) { ab = cl_halfsub(b, a); ap = cl_halfsub(p, a); }
        ek = cl_exp2of(cl_maxabs3(ab.x, ab.y, ab.z));
        k = cl_scale2(1.0, ek);
        q = ap;
        ab = cl_vscale2(ab, -ek);
        ap = cl_vscale2(ap, -ek);
        /* terms with ab_i == 0 are skipped: ap_i / k may have overflowed (inf * 0 would be NaN) */
        num = (ab.x != 0 ? ap.x * ab.x : 0.0) + (ab.y != 0 ? ap.y * ab.y : 0.0) + (ab.z != 0 ? ap.z * ab.z : 0.0);
        den = cl_dot(ab, ab);
        if (num != num) {  /* +inf and -inf terms: scale ap by its own largest component instead */
            int ea = cl_exp2of(cl_maxabs3(q.x, q.y, q.z));
            double ka = cl_scale2(1.0, ea);
            q = cl_vscale2(q, -ea);
            num = cl_dot(q, ab) / den * (ka / k);
            den = 1.0;
        }
    }
    if (!(num > 0)) { *s = 0; return a; }
    if (num >= den) { *s = 1; return b; }
    f = num / den;
    *s = f;
    ab = cl_sub(b, a);
    if (cl_vfinite(ab)) return cl_add(a, cl_mul(ab, f));
    return cl_add(cl_mul(a, 1.0 - f), cl_mul(b, f));  /* a and b of opposite signs: no overflow */
}

/// v - (1 + e)(n.v)n; never NaN (a component with n_i == 0 stays v_i). A component whose true
/// value exceeds DBL_MAX in magnitude is returned as +-inf (the others are still accurate).
cl_vec3 cl_reflect(cl_vec3 v, cl_vec3 n, double e)
{
    double k = (1.0 + e) * cl_dot(n, v), mn, mv, dot, r[3];
    cl_vec3 res = cl_sub(v, cl_mul(n, k));
    int i;
    if (cl_vfinite(res)) return res;
    /* overflow: scale n and v to unit size, then apply the scales one at a time (no inf*0) */
    mn = cl_maxabs3(n.x, n.y, n.z);
    mv = cl_maxabs3(v.x, v.y, v.z);
    if (mn == 0 || mv == 0) return v;
    dot = cl_dot(cl_v3(n.x / mn, n.y / mn, n.z / mn), cl_v3(v.x / mv, v.y / mv, v.z / mv));
    if (dot == 0 || 1.0 + e == 0) return v;
    for (i = 0; i < 3; i++) {
        /* v_i - (1+e)(n.v)n_i = (v_i/mv - f) * mv, f = (1+e)(n.v/mv)n_i; inf never meets 0 */
        double ni = cl_comp(n, i), vi = cl_comp(v, i), u = ni / mn, f;
        if (ni == 0) { r[i] = vi; continue; }
        /* n_i / mn underflowed (n_i tiny beside mn): n_i * mn cannot (n_i != 0, mn >= |n_i|) */
        f = u != 0 ? (1.0 + e) * dot * u * mn * mn : ((1.0 + e) * dot) * (ni * mn) * mn;
        r[i] = (vi / mv - f) * mv;
    }
    return cl_v3(r[0], r[1], r[2]);
}

/* ---- exact 2D orientation (Shewchuk-style filter, then an exact expansion) ---- */

static void two_sum(double a, double b, double *x, double *y)
{
    double s = a + b, bv = s - a, av = s - bv;
    *x = s;
    *y = (a - av) + (b - bv);
}

static void two_diff(double a, double b, double *x, double *y)
{
    double s = a - b, bv = a - s, av = s + bv;
    *x = s;
    *y = (a - av) + (bv - b);
}

/* Fixed-point accumulator for orient_big: 32-bit digits (held in int64 so carries can wait), digit 0
 * worth 2^-2148 (the lowest bit of a product of two doubles); 4352 bits hold the sum of six such
 * products exactly (each is below 2^2048). */
#define BIG_DIGITS 136
#define BIG_LOW 2148

/* acc += sign * m * 2^pos (m < 2^64, pos >= 0): split into 32-bit digits, one addition each. */
static void big_add(long long acc[BIG_DIGITS], unsigned long long m, int pos, int sign)
{
    int w = pos / 32, sh = pos % 32, h;
    for (h = 0; h < 2; h++) {
        unsigned long long part = ((h == 0 ? m : m >> 32) & 0xffffffffULL) << sh;  /* < 2^63 */
        long long d0 = (long long)(part & 0xffffffffULL), d1 = (long long)(part >> 32);
        acc[w + h] += sign * d0;
        acc[w + h + 1] += sign * d1;
    }
}

/* acc += sign * x * y, exactly: each factor as a 53-bit integer times a power of two. */
static void big_addprod(long long acc[BIG_DIGITS], double x, double y, int sign)
{
    int ex, ey, pos;
    unsigned long long mx, my, x0, x1, y0, y1;
    if (x == 0 || y == 0) return;
    if (x < 0) { x = -x; sign = -sign; }
    if (y < 0) { y = -y; sign = -sign; }
    mx = (unsigned long long)ldexp(frexp(x, &ex), 53);  /* x = mx * 2^(ex - 53), exactly */
    my = (unsigned long long)ldexp(frexp(y, &ey), 53);
    /* A subnormal's frexp exponent puts its lowest mantissa bit below 2^-1074, where its bits are
     * all zero: shift them out so every factor's lowest bit is worth at least 2^-1074 and pos
     * stays >= 0 (a negative shift in big_add was undefined behaviour; found by UBSan). */
    if (ex - 53 < -1074) { mx >>= -1074 - (ex - 53); ex = -1074 + 53; }
    if (ey - 53 < -1074) { my >>= -1074 - (ey - 53); ey = -1074 + 53; }
    pos = ex - 53 + ey - 53 + BIG_LOW;
    x0 = mx & 0xffffffffULL; x1 = mx >> 32;
    y0 = my & 0xffffffffULL; y1 = my >> 32;
    big_add(acc, x0 * y0, pos, sign);
    big_add(acc, x0 * y1, pos + 32, sign);
    big_add(acc, x1 * y0, pos + 32, sign);
    big_add(acc, x1 * y1, pos + 64, sign);
}

/* Exact sign of (ax - cx)(by - cy) - (ay - cy)(bx - cx) for any finite doubles, as the exact sum
 * ax by - ax cy - cx by - ay bx + ay cx + cy bx in the fixed-point accumulator (no rounding, no
 * underflow or overflow anywhere). Slow; used when the expansion below could lose bits. */
static int orient_big(double ax, double ay, double bx, double by, double cx, double cy)
{
    long long acc[BIG_DIGITS], carry = 0;
    int i, nonzero = 0;
    memset(acc, 0, sizeof acc);
    big_addprod(acc, ax, by, 1);
    big_addprod(acc, ax, cy, -1);
    big_addprod(acc, cx, by, -1);
    big_addprod(acc, ay, bx, -1);
    big_addprod(acc, ay, cx, 1);
    big_addprod(acc, cy, bx, 1);
    for (i = 0; i < BIG_DIGITS; i++) {  /* normalise to digits in [0, 2^32); the final carry is the sign */
        long long t = acc[i] + carry, d = (long long)((unsigned long long)t & 0xffffffffULL);
        carry = (t - d) / 4294967296LL;
        if (d != 0) nonzero = 1;
    }
    if (carry < 0) return -1;
    return nonzero;
}

/* Sign of (ax - cx)(by - cy) - (ay - cy)(bx - cx): > 0 if c, a, b turn left; exact for all finite
 * inputs (a float filter, then an exact expansion, then orient_big when a difference overflows or
 * a product of non-zero parts under- or overflows). */
static int orient_sign(double ax, double ay, double bx, double by, double cx, double cy)
{
    double l = (ax - cx) * (by - cy), r = (ay - cy) * (bx - cx), det = l - r, sum = fabs(l) + fabs(r);
    double v[8], h[16], m = 0;
    int i, j, n = 0;
    if (isfinite(sum) && sum > 0x1p-900) {
        double bound = 3.3306690738754716e-16 * sum;  /* (3 + 16 eps) eps, Shewchuk's ccwerrboundA */
        if (det > bound) return 1;
        if (-det > bound) return -1;
    }
    /* exact: each difference as hi + lo, then 16 exact products (product + fma error) */
    two_diff(ax, cx, &v[0], &v[1]);
    two_diff(by, cy, &v[2], &v[3]);
    two_diff(ay, cy, &v[4], &v[5]);
    two_diff(bx, cx, &v[6], &v[7]);
    for (i = 0; i < 8; i += 2)
        if (fabs(v[i]) > m) m = fabs(v[i]);
    if (m == 0) return 0;
    /* beyond this range (or a difference overflowed: m is inf or NaN) the products or their errors
     * may round: decide in the fixed-point accumulator */
    if (!(m <= 0x1p400)) return orient_big(ax, ay, bx, by, cx, cy);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++) {
            /* +(A_i * B_j) and -(C_i * D_j), each as product + exact fma error, added to h */
            double terms[4], p = v[i] * v[2 + j], q = v[4 + i] * v[6 + j];
            int k, t;
            /* a product of non-zero parts below 2^-968 may have lost bits or an fma error */
            if ((v[i] != 0 && v[2 + j] != 0 && !(fabs(p) >= 0x1p-968)) ||
                (v[4 + i] != 0 && v[6 + j] != 0 && !(fabs(q) >= 0x1p-968)))
                return orient_big(ax, ay, bx, by, cx, cy);
            terms[0] = p;
            terms[1] = fma(v[i], v[2 + j], -p);
            terms[2] = -q;
            terms[3] = -fma(v[4 + i], v[6 + j], -q);
            for (t = 0; t < 4; t++) {
                double c = terms[t];
                for (k = 0; k < n; k++) two_sum(c, h[k], &c, &h[k]);  /* grow the expansion */
                h[n++] = c;
            }
        }
    for (i = n - 1; i >= 0; i--)  /* the most significant non-zero component gives the sign */
        if (h[i] != 0) return h[i] > 0 ? 1 : -1;
    return 0;
}

/* The exact crossing test, edge by edge: the reference that cl_point_in_polygon's fast pass
 * falls back to. */
static int point_in_polygon_exact(const double *xy, size_t n, double x, double y)
{
    size_t i, j;
    int inside = 0;
    if (n == 0) return 0;
    for (i = 0, j = n - 1; i < n; j = i++) {
        double xi = xy[2 * i], yi = xy[2 * i + 1], xj = xy[2 * j], yj = xy[2 * j + 1];
        double xlo = xi < xj ? xi : xj, xhi = xi < xj ? xj : xi;
        double ylo = yi < yj ? yi : yj, yhi = yi < yj ? yj : yi;
        int straddle, s;
        if (y < ylo || y > yhi || x > xhi) continue;  /* neither on this edge nor crossed to the right */
        straddle = (yi > y) != (yj > y);
        if (x < xlo) {
            if (straddle) inside = !inside;
            continue;
        }
        s = orient_sign(xj, yj, x, y, xi, yi);
        if (s == 0) return 1;  /* collinear and within the edge's range: on the edge */
        if (straddle && ((yj > yi) == (s > 0))) inside = !inside;
    }
    return inside;
}

/* Index of the lowest set bit of m != 0. */
static inline int lowbit(unsigned long m)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzl(m);
#else
    int k = 0;
    while (!(m & 1UL)) { m >>= 1; k++; }
    return k;
#endif
}

#if defined(__SSE2__)
/* Polygons up to this many vertices take pip_sse2; larger ones the mask pass below. */
#define PIP_SSE2_MAX 32

/* The fast pass of cl_point_in_polygon (below) without a branch per edge, two edges per step
 * with SSE2: every edge's straddle test and orient_sign's float filter are computed (the very
 * same expressions, lane by lane, so the same roundings), and only the straddling edges'
 * results are kept, by masks. Returns the parity, or -1 when the exact loop must decide (a
 * vertex at the point's y, or a straddling edge whose filter gives no sign): exactly the cases
 * where the mask pass falls back. Edge k runs from vertex k - 1 (j) to vertex k (i).
 * Simplifications, each the same decision as the mask pass's on every input (all coordinates
 * finite): a vertex at y is yi == y; "pos || -det > bound" is |det| > bound (bound >= 0 or NaN);
 * isfinite(sum) needs no test of its own (an infinite sum makes bound infinite, so |det| > bound
 * fails and the pair falls back anyway); on a straddling edge with no vertex at y, yj > yi is
 * exactly "vertex j above y". An odd count's last step pairs edge n - 1 with the degenerate edge
 * from vertex n - 1 to itself, which never straddles.
 * With check != 0 (a constant), the coordinates may be anything and -2 is returned if one is
 * not finite (x - x is 0 exactly for finite x, NaN otherwise): one pass instead of two for a
 * caller that has not checked them (the LuaJIT path). */
static CL_INLINE int pip_sse2(const double *xy, size_t n, double x, double y, int check)
{
    const __m128d X = _mm_set1_pd(x), Y = _mm_set1_pd(y), ERR = _mm_set1_pd(3.3306690738754716e-16);
    const __m128d TINY = _mm_set1_pd(0x1p-900), SIGN = _mm_set1_pd(-0.0);
    __m128d par = _mm_setzero_pd(), bad = _mm_setzero_pd(), fin = _mm_setzero_pd();
    __m128d vj = _mm_loadu_pd(xy + 2 * (n - 1));
    size_t k;
    int m;
    for (k = 0; k < n; k += 2) {
        __m128d v0 = _mm_loadu_pd(xy + 2 * k), v1 = k + 1 < n ? _mm_loadu_pd(xy + 2 * k + 2) : v0;
        __m128d xi = _mm_unpacklo_pd(v0, v1), yi = _mm_unpackhi_pd(v0, v1);
        __m128d xj = _mm_unpacklo_pd(vj, v0), yj = _mm_unpackhi_pd(vj, v0);
        __m128d aj = _mm_cmpgt_pd(yj, Y), strad = _mm_xor_pd(_mm_cmpgt_pd(yi, Y), aj);
        __m128d l = _mm_mul_pd(_mm_sub_pd(xj, xi), _mm_sub_pd(Y, yi));
        __m128d r = _mm_mul_pd(_mm_sub_pd(yj, yi), _mm_sub_pd(X, xi));
        __m128d det = _mm_sub_pd(l, r);
        __m128d sum = _mm_add_pd(_mm_andnot_pd(SIGN, l), _mm_andnot_pd(SIGN, r));
        __m128d bound = _mm_mul_pd(ERR, sum);
        __m128d sure = _mm_and_pd(_mm_cmpgt_pd(_mm_andnot_pd(SIGN, det), bound), _mm_cmpgt_pd(sum, TINY));
        if (check) fin = _mm_add_pd(fin, _mm_add_pd(_mm_sub_pd(v0, v0), _mm_sub_pd(v1, v1)));
        bad = _mm_or_pd(bad, _mm_or_pd(_mm_cmpeq_pd(yi, Y), _mm_andnot_pd(sure, strad)));
        /* toggle when the point is left of the edge: (yj > yi) == (det > bound) */
        par = _mm_xor_pd(par, _mm_andnot_pd(_mm_xor_pd(aj, _mm_cmpgt_pd(det, bound)), strad));
        vj = v1;
    }
    if (check && _mm_movemask_pd(_mm_cmpeq_pd(fin, _mm_setzero_pd())) != 3) return -2;
    if (_mm_movemask_pd(bad) != 0) return -1;
    m = _mm_movemask_pd(par);
    return (m ^ (m >> 1)) & 1;
}
#endif

/// 1 if (x, y) is on the boundary or inside by the even-odd rule.
/// Fast pass (the exact loop's per-edge range tests are data-dependent branches that mispredict
/// for random points): one comparison per vertex gives a bit mask of the edges that straddle y,
/// and only those are visited. When no vertex has the point's y and orient_sign's float filter
/// (the very same expressions) gives a sign for every straddling edge, the answer is the exact
/// loop's: the only edges the exact loop counts are then the straddling ones (the others lie
/// wholly above y, wholly below it, or reach it only at a vertex at the point's y, excluded); for
/// those it toggles exactly when the exact orientation puts the point left of the edge (its
/// "x < xlo" shortcut is that case, "x > xhi" the opposite), which is the filter's sign; no
/// orientation is 0, so there is no boundary hit; and the parity does not depend on the order of
/// the edges. Anything else (a vertex at the point's y, a point on or within rounding of an
/// edge, extreme magnitudes) is left to the exact loop. With SSE2, polygons of up to
/// PIP_SSE2_MAX vertices take pip_sse2 instead: the same decisions without a branch per edge.
int cl_point_in_polygon(const double *xy, size_t n, double x, double y)
{
    size_t base;
    unsigned parity = 0;
    if (n == 0) return 0;
#if defined(__SSE2__)
    if (n <= PIP_SSE2_MAX) {
        int r = pip_sse2(xy, n, x, y, 0);
        return r >= 0 ? r : point_in_polygon_exact(xy, n, x, y);
    }
#endif
    for (base = 0; base < n; base += 32) {  /* 32 vertices per mask (unsigned long has >= 32 bits) */
        size_t m = n - base < 32 ? n - base : 32, k;
        size_t prev = base == 0 ? n - 1 : base - 1;  /* the vertex before vertex base */
        unsigned long full = m == 32 ? 0xffffffffUL : (1UL << m) - 1, above = 0, below = 0, straddle;
        for (k = m; k-- > 0;) {  /* bit k of above / below: vertex base+k is above / below y */
            double yk = xy[2 * (base + k) + 1];
            above = (above << 1) | (unsigned long)(yk > y);
            below = (below << 1) | (unsigned long)(yk < y);
        }
        if ((above | below) != full) return point_in_polygon_exact(xy, n, x, y);  /* a vertex at y */
        /* bit k: the edge from vertex base+k-1 (j) to vertex base+k (i) straddles y */
        straddle = (above ^ ((above << 1) | (unsigned long)(xy[2 * prev + 1] > y))) & full;
        while (straddle) {
            size_t i, j;
            double xi, yi, xj, yj, l, r, det, sum, bound;
            unsigned pos;
            k = (size_t)lowbit(straddle);
            straddle &= straddle - 1;
            i = base + k;
            j = i == 0 ? n - 1 : i - 1;
            xi = xy[2 * i]; yi = xy[2 * i + 1]; xj = xy[2 * j]; yj = xy[2 * j + 1];
            /* orient_sign(xj, yj, x, y, xi, yi)'s filter */
            l = (xj - xi) * (y - yi);
            r = (yj - yi) * (x - xi);
            det = l - r;
            sum = fabs(l) + fabs(r);
            bound = 3.3306690738754716e-16 * sum;
            pos = det > bound;
            if (!(isfinite(sum) && sum > 0x1p-900 && (pos || -det > bound)))
                return point_in_polygon_exact(xy, n, x, y);
            parity ^= (unsigned)(yj > yi) == pos;  /* toggle when the point is left of the edge */
        }
    }
    return (int)parity;
}

/// cl_point_in_polygon for coordinates not yet checked: -1 if one of them is not finite.
int cl_point_in_polygon_finite(const double *xy, size_t n, double x, double y)
{
    size_t i;
    double z = 0;
#if defined(__SSE2__)
    if (n > 0 && n <= PIP_SSE2_MAX) {
        int r = pip_sse2(xy, n, x, y, 1);
        return r >= 0 ? r : (r == -2 ? -1 : point_in_polygon_exact(xy, n, x, y));
    }
#endif
    for (i = 0; i < 2 * n; i++) z += xy[i] - xy[i];  /* 0 if all are finite, else NaN */
    if (z != 0) return -1;
    return cl_point_in_polygon(xy, n, x, y);
}

/* The edge table: the bounding box (xmin, ymin, xmax, ymax), then for each pair of edges
 * (2p, 2p + 1) ten doubles: xi of both, yi of both, yj of both, xj - xi of both, yj - yi of both
 * (edge k runs from vertex j = k - 1 to vertex i = k, as in pip_sse2, and the differences are
 * the ones the filter computes, so the same values). An odd count gets a last, degenerate edge
 * from vertex n - 1 to itself, which never straddles. */
void cl_polygon_edges(const double *xy, size_t n, double *e)
{
    size_t k, m = (n + 1) / 2 * 2;
    e[0] = e[2] = xy[0];
    e[1] = e[3] = xy[1];
    for (k = 1; k < n; k++) {
        if (xy[2 * k] < e[0]) e[0] = xy[2 * k];
        if (xy[2 * k] > e[2]) e[2] = xy[2 * k];
        if (xy[2 * k + 1] < e[1]) e[1] = xy[2 * k + 1];
        if (xy[2 * k + 1] > e[3]) e[3] = xy[2 * k + 1];
    }
    for (k = 0; k < m; k++) {
        size_t i = k < n ? k : n - 1, j = k < n ? (k == 0 ? n - 1 : k - 1) : n - 1;
        double *q = e + 4 + 10 * (k / 2) + k % 2;
        q[0] = xy[2 * i];
        q[2] = xy[2 * i + 1];
        q[4] = xy[2 * j + 1];
        q[6] = xy[2 * j] - xy[2 * i];
        q[8] = xy[2 * j + 1] - xy[2 * i + 1];
    }
}

/// cl_point_in_polygon with the edge table e of cl_polygon_edges (NULL: none).
int cl_point_in_polygon_e(const double *xy, size_t n, const double *e, double x, double y)
{
#if defined(__SSE2__)
    /* A point outside the bounding box is outside (it is on no edge, and a horizontal ray from
     * it crosses no edge, or every straddling edge, an even number); else pip_sse2's loop on the
     * table: five loads per pair of edges instead of two loads, four shuffles and two
     * subtractions. */
    if (e != NULL && n > 0 && n <= CL_POLY_EDGES_MAX) {
        static const double err[2] = { 3.3306690738754716e-16, 3.3306690738754716e-16 };
        static const double tiny[2] = { 0x1p-900, 0x1p-900 }, sign[2] = { -0.0, -0.0 };
        const __m128d X = _mm_set1_pd(x), Y = _mm_set1_pd(y), ERR = _mm_loadu_pd(err);
        const __m128d TINY = _mm_loadu_pd(tiny), SIGN = _mm_loadu_pd(sign), P = _mm_set_pd(y, x);
        __m128d par = _mm_setzero_pd(), bad = _mm_setzero_pd();
        const double *q = e + 4, *end = e + CL_POLY_EDGE_DOUBLES(n);
        int m;
        if (_mm_movemask_pd(_mm_or_pd(_mm_cmplt_pd(P, _mm_loadu_pd(e)), _mm_cmpgt_pd(P, _mm_loadu_pd(e + 2))))) return 0;
        for (; q < end; q += 10) {
            __m128d xi = _mm_loadu_pd(q), yi = _mm_loadu_pd(q + 2), yj = _mm_loadu_pd(q + 4);
            __m128d aj = _mm_cmpgt_pd(yj, Y), strad = _mm_xor_pd(_mm_cmpgt_pd(yi, Y), aj);
            __m128d l = _mm_mul_pd(_mm_loadu_pd(q + 6), _mm_sub_pd(Y, yi));
            __m128d r = _mm_mul_pd(_mm_loadu_pd(q + 8), _mm_sub_pd(X, xi));
            __m128d det = _mm_sub_pd(l, r);
            __m128d sum = _mm_add_pd(_mm_andnot_pd(SIGN, l), _mm_andnot_pd(SIGN, r));
            __m128d bound = _mm_mul_pd(ERR, sum);
            __m128d sure = _mm_and_pd(_mm_cmpgt_pd(_mm_andnot_pd(SIGN, det), bound), _mm_cmpgt_pd(sum, TINY));
            bad = _mm_or_pd(bad, _mm_or_pd(_mm_cmpeq_pd(yi, Y), _mm_andnot_pd(sure, strad)));
            par = _mm_xor_pd(par, _mm_andnot_pd(_mm_xor_pd(aj, _mm_cmpgt_pd(det, bound)), strad));
        }
        if (_mm_movemask_pd(bad) != 0) return point_in_polygon_exact(xy, n, x, y);
        m = _mm_movemask_pd(par);
        return (m ^ (m >> 1)) & 1;
    }
#else
    (void)e;
#endif
    return cl_point_in_polygon(xy, n, x, y);
}
