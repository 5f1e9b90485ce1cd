/* collide core: private vector helpers shared by the geometry files (not part of the API). */
#ifndef CL_VEC_H
#define CL_VEC_H

#include <math.h>
#include <float.h>
#include <stdint.h>
#include <string.h>
#include "cl.h"

/* Inlined even where the compiler's size heuristics would not (hot helpers called with constant
 * flags, so each caller gets its own specialised copy). */
#if defined(__GNUC__) || defined(__clang__)
#define CL_INLINE inline __attribute__((always_inline))
#else
#define CL_INLINE inline
#endif

/* The first 64-byte aligned address in the block p (allocated with 64 bytes to spare): a cache
 * line's start, for the node arrays the traversals read. */
static inline void *cl_align64(void *p) { return (char *)p + (64 - (uintptr_t)p % 64) % 64; }

/// a + b.
static inline cl_vec3 cl_add(cl_vec3 a, cl_vec3 b) { return cl_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
/// a - b.
static inline cl_vec3 cl_sub(cl_vec3 a, cl_vec3 b) { return cl_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
/// a * s.
static inline cl_vec3 cl_mul(cl_vec3 a, double s) { return cl_v3(a.x * s, a.y * s, a.z * s); }
/// a . b.
static inline double cl_dot(cl_vec3 a, cl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
/// a x b.
static inline cl_vec3 cl_cross(cl_vec3 a, cl_vec3 b)
{
    return cl_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/// 1 if every component is finite.
static inline int cl_vfinite(cl_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
/// a/2 - b/2: half of a - b, finite for any finite a, b (exact unless subnormal).
static inline cl_vec3 cl_halfsub(cl_vec3 a, cl_vec3 b)
{
    return cl_v3(a.x * 0.5 - b.x * 0.5, a.y * 0.5 - b.y * 0.5, a.z * 0.5 - b.z * 0.5);
}
/// Largest of |x|, |y|, |z|.
static inline double cl_maxabs3(double x, double y, double z)
{
    double m = fabs(x), b = fabs(y), c = fabs(z);
    if (b > m) m = b;
    if (c > m) m = c;
    return m;
}
/// fmin(x, y) and fmax(x, y) inline, with the bits glibc's x86-64 fmin and fmax (minsd, maxsd)
/// give at run time for every pair but a signalling NaN (which no shape or displacement reaching
/// them holds: their constructors reject NaN): y when the two compare equal (cl_fmin(+0.0, -0.0)
/// is -0), the other argument for one quiet NaN, x + y for two. No libm call on the hot paths (the
/// box of a capsule mover, the mesh sweeps' boxes).
static inline double cl_fmin(double x, double y) { return x < y ? x : (y == y ? y : (x == x ? x : x + y)); }
static inline double cl_fmax(double x, double y) { return x > y ? x : (y == y ? y : (x == x ? x : x + y)); }
/// Component i (0, 1, 2) of v.
static inline double cl_comp(cl_vec3 v, int i) { return i == 0 ? v.x : (i == 1 ? v.y : v.z); }
/// Vector with component i set to s and the others 0.
static inline cl_vec3 cl_axisvec(int i, double s)
{
    return cl_v3(i == 0 ? s : 0.0, i == 1 ? s : 0.0, i == 2 ? s : 0.0);
}
/// Finite clamp of x to [-DBL_MAX, DBL_MAX] (keeps enclosing boxes finite).
static inline double cl_clampfinite(double x)
{
    return x > DBL_MAX ? DBL_MAX : (x < -DBL_MAX ? -DBL_MAX : x);
}

/// frexp's exponent of x (|x| = f * 2^e, f in [0.5, 1)) for finite non-zero x; from the bits when normal.
static inline int cl_exp2of(double x)
{
    unsigned long long bits;
    int be, e;
    memcpy(&bits, &x, sizeof bits);
    be = (int)((bits >> 52) & 0x7ff);
    if (be != 0) return be - 1022;
    (void)frexp(x, &e);
    return e;
}

/// The power-of-two exponent k that brings data whose largest |value| is mx into the range the
/// triangle tests work in (their products of four coordinates neither underflow nor overflow):
/// 0 for mx in [2^-200, 2^200], for 0 and for a non-finite mx; tiny data goes up into [0.5, 1)
/// (exact), large data down into [2^199, 2^200), the least scaling into range, so that a component
/// is flushed only when the data has no scaled copy in range at all (trisweep.c, tri.c, mesh.c).
static inline int cl_range_k(double mx)
{
    if ((mx >= 0x1p-200 && mx <= 0x1p200) || !(mx > 0 && mx <= DBL_MAX)) return 0;
    return mx > 1 ? 200 - cl_exp2of(mx) : -cl_exp2of(mx);
}

/// x * 2^k, correctly rounded for any k (one multiplication when 2^k is a normal double, else ldexp).
static inline double cl_scale2(double x, int k)
{
    if (k >= -1022 && k <= 1023) {
        unsigned long long pb = (unsigned long long)(k + 1023) << 52;
        double p;
        memcpy(&p, &pb, sizeof p);
        return x * p;
    }
    return ldexp(x, k);
}

/// 1 if |(x,y,z)| <= r (finite inputs, r >= 0), without overflow or underflow in the squares.
static inline int cl_len_le(double x, double y, double z, double r)
{
    double k = cl_maxabs3(x, y, z);
    if (r > k) k = r;
    if (!(k >= 0x1p-480 && k <= 0x1p480)) {
        int e;
        if (k == 0) return 1;
        e = -cl_exp2of(k);  /* a power of two: the answer of the data scaled by 2^e is the data's */
        x = cl_scale2(x, e); y = cl_scale2(y, e); z = cl_scale2(z, e); r = cl_scale2(r, e);
    }
    return x * x + y * y + z * z <= r * r;
}

/// Length of (x,y,z) (finite inputs) without overflow or underflow in the squares.
static inline double cl_len(double x, double y, double z)
{
    double k = cl_maxabs3(x, y, z);
    int e;
    if (k >= 0x1p-480 && k <= 0x1p480) return sqrt(x * x + y * y + z * z);
    if (k == 0) return 0;
    e = cl_exp2of(k);  /* scaled by a power of two: |v * 2^e| is exactly |v| * 2^e */
    x = cl_scale2(x, -e); y = cl_scale2(y, -e); z = cl_scale2(z, -e);
    return cl_scale2(sqrt(x * x + y * y + z * z), e);
}

/// 1 if every axis of the box is a world axis up to sign (one component +-1, the others +-0), so the
/// box is exactly its enclosing AABB (cl_obb_aabb). Nine comparisons.
static inline int cl_obb_world_axes(const cl_obb *b)
{
    int i;
    for (i = 0; i < 3; i++) {
        cl_vec3 u = b->u[i];
        if ((u.x == 0) + (u.y == 0) + (u.z == 0) != 2 || fabs(u.x + u.y + u.z) != 1) return 0;
    }
    return 1;
}

/// Coordinates of p in the box's frame, scaled by the returned factor (1, or 0.25 when p - c or a
/// coordinate would overflow); the scaled coordinates are always finite for finite inputs.
static inline double cl_obb_local(const cl_obb *b, cl_vec3 p, double l[3])
{
    cl_vec3 d = cl_sub(p, b->c);
    l[0] = cl_dot(d, b->u[0]);
    l[1] = cl_dot(d, b->u[1]);
    l[2] = cl_dot(d, b->u[2]);
    if (isfinite(l[0]) && isfinite(l[1]) && isfinite(l[2])) return 1.0;
    d = cl_sub(cl_mul(p, 0.25), cl_mul(b->c, 0.25));
    l[0] = cl_dot(d, b->u[0]);
    l[1] = cl_dot(d, b->u[1]);
    l[2] = cl_dot(d, b->u[2]);
    return 0.25;
}

/* Exponent given to an absent (zero) magnitude: below every product of two finite doubles. */
#define CL_EXP_NONE (-4400)

/// Powers-of-two scaling of the plane n.p + d = 0 for points whose coordinates (and, for OBBs and
/// spheres, sizes) are at most mp in magnitude, chosen from the data: *ns = n * 2^-en (en = 0 when
/// max |n_i| is moderate, else max |ns_i| in [0.5, 1)), *ds = d * 2^K, and *pk = K + en, so that
/// ns.(p * 2^pk) + ds = (n.p + d) * 2^K with the largest term near 2^top (no overflow in sums of a
/// few terms for top <= 1016, and nothing that matters underflows: tiny data is scaled up, large
/// data down). Every scaling is exact, so signs are those of the unscaled expression evaluated in
/// the same order. Returns 0 (nothing written) if n == 0.
static inline int cl_plane_scale(cl_vec3 n, double d, double mp, int top, cl_vec3 *ns, double *ds, int *pk)
{
    double mn = cl_maxabs3(n.x, n.y, n.z);
    int emn, en, m, k;
    if (mn == 0) return 0;
    emn = cl_exp2of(mn);
    en = emn;  /* n scaled to ~1, so the points' scale alone stays in range (a small n with an
                  unscaled n once pushed p past DBL_MAX: found by fuzzing) */
    m = mp > 0 ? emn + cl_exp2of(mp) : CL_EXP_NONE;  /* exponent bound of every n_i * p_i */
    if (d != 0 && cl_exp2of(d) > m) m = cl_exp2of(d);
    k = m == CL_EXP_NONE ? 0 : top - m;             /* everything is zero: any scale will do */
    *ns = en == 0 ? n : cl_v3(cl_scale2(n.x, -en), cl_scale2(n.y, -en), cl_scale2(n.z, -en));
    *ds = cl_scale2(d, k);
    *pk = k + en;
    return 1;
}

/// 1 if x is 0 or 2^-300 <= |x| < 2^301: products of two such numbers and sums of a few of them
/// neither overflow nor become subnormal, and scaling them by powers of two as cl_plane_scale does
/// stays within the normal range (the fast paths of the plane tests rely on this).
static inline int cl_moderate(double x)
{
    unsigned long long b;
    memcpy(&b, &x, sizeof b);
    b <<= 1;  /* sign dropped: biased exponent in bits 53..63, zero iff x is +-0 */
    return b - (723ULL << 53) < (601ULL << 53) || b == 0;  /* exponents -300..300, or zero */
}
/// cl_moderate of the three components.
static inline int cl_moderate3(cl_vec3 v) { return cl_moderate(v.x) && cl_moderate(v.y) && cl_moderate(v.z); }

/// The point p scaled by 2^k (see cl_plane_scale).
static inline cl_vec3 cl_vscale2(cl_vec3 p, int k)
{
    return cl_v3(cl_scale2(p.x, k), cl_scale2(p.y, k), cl_scale2(p.z, k));
}

/// -1, 0, 1: the sign of x (0 for zero).
static inline int cl_sign(double x) { return (x > 0) - (x < 0); }

/// The box of the segment ab grown by r >= 0 on every side (a capsule's box; not rounded outward).
static inline cl_aabb cl_segbox(cl_vec3 a, cl_vec3 b, double r)
{
    cl_aabb x;
    x.min = cl_v3((a.x < b.x ? a.x : b.x) - r, (a.y < b.y ? a.y : b.y) - r, (a.z < b.z ? a.z : b.z) - r);
    x.max = cl_v3((a.x > b.x ? a.x : b.x) + r, (a.y > b.y ? a.y : b.y) + r, (a.z > b.z ? a.z : b.z) + r);
    return x;
}

/// Slab test of the line o + t*d against the box [lo, hi]: entry and exit times, and the axis
/// whose entry is largest (lowest axis on ties; -1 if no axis constrains the entry). 0 if the line
/// misses (a parallel axis with o outside its slab, or entry > exit). Never produces NaN.
static inline int cl_slabs(const double lo[3], const double hi[3], const double o[3], const double d[3],
                           double *tenter, double *texit, int *axis)
{
    double t0 = -INFINITY, t1 = INFINITY;
    int i, ax = -1;
    for (i = 0; i < 3; i++) {
        double a, b;
        if (d[i] == 0) {  /* parallel: explicit, so no 0*inf */
            if (o[i] < lo[i] || o[i] > hi[i]) return 0;
            continue;
        }
        a = (lo[i] - o[i]) / d[i];
        b = (hi[i] - o[i]) / d[i];
        if (d[i] < 0) { double s = a; a = b; b = s; }
        if (a > t0) { t0 = a; ax = i; }
        if (b < t1) t1 = b;
    }
    if (t0 > t1) return 0;
    *tenter = t0; *texit = t1; *axis = ax;
    return 1;
}

/// Returns 1 and the open interval of t where |m + t w|^2 < rr (a = w.w, b = m.w, c = m.m - rr),
/// 0 when never: a graze, where the path's closest approach to the centre is r, never enters.
/// That approach is tested on its own, as the length of m + t w at t = -b/a: the discriminant
/// b*b - a*c cancels, and c = m.m - rr already loses the digits that tell a graze from a dip when
/// |m| is near r (a sphere rolling over the corner two floor tiles share hit it: the seams rule;
/// sweep.c's spheres and capsule.c's rounded pieces use it).
/// Dips below 2^-40 of rr are grazes.
static inline int cl_quad_interval(const double m[3], const double w[3], double rr, double *t0, double *t1)
{
    double a = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    double b = m[0] * w[0] + m[1] * w[1] + m[2] * w[2];
    double c = m[0] * m[0] + m[1] * m[1] + m[2] * m[2] - rr;
    double disc, s, q;
    if (a == 0) {
        if (c < 0) { *t0 = -HUGE_VAL; *t1 = HUGE_VAL; return 1; }
        return 0;
    }
    disc = b * b - a * c;
    if (!(disc > 0)) return 0;
    if (c >= 0) {
        double tc = -b / a, p0 = m[0] + tc * w[0], p1 = m[1] + tc * w[1], p2 = m[2] + tc * w[2];
        if (p0 * p0 + p1 * p1 + p2 * p2 >= rr - ldexp(rr, -40)) return 0;
    }
    s = sqrt(disc);
    if (b >= 0) { q = -(b + s); *t0 = q / a; *t1 = c / q; }
    else { q = s - b; *t0 = c / q; *t1 = q / a; }
    return 1;
}

#endif
