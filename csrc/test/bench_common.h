/* Helpers shared by the C benchmarks (bench_world.c, bench_frames.c): the markdown writer and
 * bench/lib.lua's PRNG (so a C scene is the Lua scene of the same seed). Static inline: each
 * bench takes what it uses. Include after <stdarg.h>, <stdio.h> and <math.h>. */
#ifndef CL_BENCH_COMMON_H
#define CL_BENCH_COMMON_H

static FILE *md;                /* markdown output (argv[1]) or NULL */

/* Writes a formatted line to stdout and to the markdown file. */
static void out(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    if (md) {
        va_start(ap, fmt);
        vfprintf(md, fmt, ap);
        va_end(ap);
        fprintf(md, "\n");
        fflush(md);
    }
}

/* bench/lib.lua's rng: Park-Miller minimal standard LCG (a = a * 48271 mod 2^31 - 1). */
typedef struct lrng {
    unsigned long long a;
} lrng;

/* Returns the generator of seed (as lib.rng(seed)). */
static inline lrng lrng_new(long seed) {
    lrng r;
    long a = seed % 2147483647;
    if (a <= 0) a += 2147483646;
    r.a = (unsigned long long)a;
    return r;
}
/* Returns the next number in (0, 1). */
static inline double lnext(lrng *r) {
    r->a = r->a * 48271ULL % 2147483647ULL;
    return (double)r->a / 2147483647.0;
}
/* Returns a uniform number in [lo, hi] (lib.rng's uniform). */
static inline double luni(lrng *r, double lo, double hi) { return lo + (hi - lo) * lnext(r); }
/* Returns an integer in [lo, hi] (lib.rng's int). */
static inline int lint(lrng *r, int lo, int hi) { return lo + (int)floor(lnext(r) * (hi - lo + 1)); }

/* Draws the next box of bench/world.lua's moving-boxes scene (rng 23 there) in its order: centre
 * p in [0, side]^3, half sizes h in [0.5, 1.5], velocity v in [-0.05, 0.05]^3. */
static inline void lscene_box(lrng *g, double side, double p[3], double h[3], double v[3]) {
    int k;
    for (k = 0; k < 3; k++) p[k] = luni(g, 0, side);
    for (k = 0; k < 3; k++) h[k] = luni(g, 0.5, 1.5);
    for (k = 0; k < 3; k++) v[k] = luni(g, -0.05, 0.05);
}

#endif
