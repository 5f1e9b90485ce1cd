/* collide core: private vector helpers shared by the geometry files (not part of the API). */
#ifndef CL_VEC_H
#define CL_VEC_H

#include <math.h>
#include <float.h>
#include <string.h>
#include "cl.h"

/* Inlined even where the compiler's size heuristics would not (hot helpers called with constant
 * flags, so each caller gets its own specialised copy). */
#if defined(__GNUC__) || defined(__clang__)
#define CL_INLINE inline __attribute__((always_inline))
#else
#define CL_INLINE inline
#endif

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

/// 1 if |(x,y,z)| <= r (finite inputs, r >= 0), without overflow or underflow in the squares.
static inline int cl_len_le(double x, double y, double z, double r)
{
    double k = cl_maxabs3(x, y, z);
    if (r > k) k = r;
    if (!(k >= 0x1p-480 && k <= 0x1p480)) {
        if (k == 0) return 1;
        x /= k; y /= k; z /= k; r /= k;
    }
    return x * x + y * y + z * z <= r * r;
}

/// Length of (x,y,z) (finite inputs) without overflow or underflow in the squares.
static inline double cl_len(double x, double y, double z)
{
    double k = cl_maxabs3(x, y, z);
    if (k >= 0x1p-480 && k <= 0x1p480) return sqrt(x * x + y * y + z * z);
    if (k == 0) return 0;
    x /= k; y /= k; z /= k;
    return k * sqrt(x * x + y * y + z * z);
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

/// Rescales the plane n.p + d = 0 by a power of two (exact) so that max |n_i| is in [0.5, 1) and
/// returns d * that / 8 in *d8; evaluate as n'.(p/8) + d8 (no overflow for finite p). 0 if n == 0.
static inline int cl_plane_scale(cl_vec3 n, double d, cl_vec3 *ns, double *d8)
{
    double m = cl_maxabs3(n.x, n.y, n.z), p;
    unsigned long long bits;
    int be;
    if (m == 0) return 0;
    memcpy(&bits, &m, sizeof bits);
    be = (int)((bits >> 52) & 0x7ff);  /* biased exponent: m = f * 2^(be - 1022), f in [0.5, 1) */
    if (be >= 1 && be <= 2041) {       /* 2^(1022 - be) / 8 is a normal double: multiply (fast) */
        unsigned long long pb = (unsigned long long)(2045 - be) << 52;
        memcpy(&p, &pb, sizeof p);     /* p = 2^(1022 - be) */
        *ns = cl_v3(n.x * p, n.y * p, n.z * p);
        *d8 = d * (p * 0.125);
        return 1;
    } else {
        int e;
        (void)frexp(m, &e);
        *ns = cl_v3(ldexp(n.x, -e), ldexp(n.y, -e), ldexp(n.z, -e));
        *d8 = ldexp(d, -e - 3);
        return 1;
    }
}

/// -1, 0, 1: the sign of x (0 for zero).
static inline int cl_sign(double x) { return (x > 0) - (x < 0); }

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

#endif
