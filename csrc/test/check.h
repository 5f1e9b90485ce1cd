/* The plain-C tests' shared harness (`make check-core`): pass and fail counters with ENSURE and
 * CHECK, COLLIDE_QUICK's iteration count, the fixed-seed PRNG and small vector helpers. A test file
 * defines CHECK_SEED (its PRNG seed) before including this, and prints "N passed, N failed" last.
 * Every helper is static inline: a file that uses only some of them compiles without warnings. */
#ifndef CL_TEST_CHECK_H
#define CL_TEST_CHECK_H

#include <stdio.h>
#include <math.h>
#include "cl.h"

#ifndef CHECK_SEED
#define CHECK_SEED 0x9E3779B97F4A7C15ULL
#endif

static int passed, failed;
/* Set from COLLIDE_QUICK by main: a quarter of the random cases. */
static int quick;

/* Counts a check; prints the first 40 failures with their place and condition. */
#define ENSURE(cond, what)                                                              \
    do {                                                                                \
        if (cond) passed++;                                                             \
        else {                                                                          \
            failed++;                                                                   \
            if (failed < 40) printf("FAIL %s:%d: %s  [%s]\n", __FILE__, __LINE__, what, #cond); \
        }                                                                               \
    } while (0)

/* A random-loop check: counts failures quietly, prints the first 30 with printf-style details. */
#define CHECK(cond, what, ...)                                                          \
    do {                                                                                \
        if (cond) passed++;                                                             \
        else {                                                                          \
            if (failed++ < 30) {                                                        \
                printf("FAIL %s:%d: %s  [%s] ", __FILE__, __LINE__, what, #cond);       \
                printf(__VA_ARGS__);                                                    \
                printf("\n");                                                           \
            }                                                                           \
        }                                                                               \
    } while (0)

#define PI 3.14159265358979323846

/* Returns n, or a quarter of it under COLLIDE_QUICK. */
static inline int iters(int n) { return quick ? (n + 3) / 4 : n; }

/* ---- fixed-seed PRNG (xorshift64*) ---- */
static unsigned long long rng_state = CHECK_SEED;
/* Returns the next number in [0, 1). */
static inline double rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}
/* Returns a number in [a, b). */
static inline double urand(double a, double b) { return a + (b - a) * rnd(); }

/* ---- vectors ---- */
static inline double dot(cl_vec3 a, cl_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline cl_vec3 vsub(cl_vec3 a, cl_vec3 b) { return cl_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline cl_vec3 vadd(cl_vec3 a, cl_vec3 b) { return cl_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline cl_vec3 vmul(cl_vec3 a, double s) { return cl_v3(a.x * s, a.y * s, a.z * s); }
/* Returns a x b. */
static inline cl_vec3 vcross(cl_vec3 a, cl_vec3 b)
{
    return cl_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
/* 1 if a is exactly (x, y, z). */
static inline int veq(cl_vec3 a, double x, double y, double z) { return a.x == x && a.y == y && a.z == z; }
/* The box from (a, b, c) to (d, e, f). */
static inline cl_aabb box(double a, double b, double c, double d, double e, double f)
{
    cl_aabb x;
    x.min = cl_v3(a, b, c);
    x.max = cl_v3(d, e, f);
    return x;
}
/* The sphere of centre (x, y, z) and radius r. */
static inline cl_sphere sph(double x, double y, double z, double r)
{
    cl_sphere s;
    s.c = cl_v3(x, y, z);
    s.r = r;
    return s;
}
/* 1 if a and b differ by at most tol. */
static inline int near(double a, double b, double tol) { return fabs(a - b) <= tol; }

#endif
