/* Benchmark of the World core: closest-hit raycast among 100,000 random boxes (dense and sparse)
 * and all overlapping pairs among 10,000 boxes that all move a little every frame, and moves of
 * one box among 2,000 grid boxes.
 * Build and run (from the repository root):
 *   cc -std=c99 -O2 -Wall -Wextra -pedantic -Werror -Icsrc/core -o build/bench-world
 *      csrc/test/bench_world.c $(ls csrc/core/[a-z]*.c) -lm && ./build/bench-world
 * (every C file of csrc/core).
 * Prints medians of 7 runs. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "world.h"

/* Returns a block from the C heap with lua_Alloc's contract. */
static void *balloc(void *ud, void *p, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) { free(p); return NULL; }
    return realloc(p, nsize);
}

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
/* Returns a uniform random number in [0, 1). */
static double rnd(void) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Returns a uniform random vector of length <= len (rejection sampling in the ball). */
static cl_vec3 rndball(double len) {
    for (;;) {
        double x = 2 * rnd() - 1, y = 2 * rnd() - 1, z = 2 * rnd() - 1, q = x * x + y * y + z * z;
        if (q <= 1 && q > 1e-6) return cl_v3(x * len, y * len, z * len);
    }
}

/* Returns the CPU time of this process in seconds (steadier than wall time on a loaded machine). */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Returns a box with a uniform random centre in [0, span]^3 and sizes uniform in [0.5, 2]. */
static cl_shape rndbox(double span) {
    cl_shape s;
    double x = rnd() * span, y = rnd() * span, z = rnd() * span;
    double hx = (0.5 + 1.5 * rnd()) / 2, hy = (0.5 + 1.5 * rnd()) / 2, hz = (0.5 + 1.5 * rnd()) / 2;
    s.kind = CL_AABB;
    s.u.aabb.min = cl_v3(x - hx, y - hy, z - hz);
    s.u.aabb.max = cl_v3(x + hx, y + hy, z + hz);
    return s;
}

/* Returns the median of n values (sorts them). */
static double median(double *v, int n) {
    int i, j;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && v[j] < v[j - 1]; j--) { double x = v[j]; v[j] = v[j - 1]; v[j - 1] = x; }
    return v[n / 2];
}

#define NRAYS 10000
static cl_ray rays[NRAYS];

/* Closest raycast among 100,000 boxes with centres in [0, span]^3; prints the median us/ray. */
static void bench_raycast(double span) {
    cl_world w;
    double t0, build, runs[7], tsum = 0;
    int i, k, hits = 0;
    cl_world_init(&w, 0.1, balloc, NULL);
    t0 = now();
    for (i = 0; i < 100000; i++) {
        cl_shape s = rndbox(span);
        cl_world_add(&w, &s);
    }
    build = now() - t0;
    for (i = 0; i < NRAYS; i++)
        cl_ray_make(&rays[i], cl_v3(rnd() * span, rnd() * span, rnd() * span), rndball(1));
    for (k = 0; k < 7; k++) {
        hits = 0;
        tsum = 0;
        t0 = now();
        for (i = 0; i < NRAYS; i++) {
            cl_whit h;
            if (cl_world_raycast(&w, &rays[i], HUGE_VAL, -1, -1, &h) == 1) { hits++; tsum += h.t; }
        }
        runs[k] = (now() - t0) * 1e6 / NRAYS;
    }
    printf("raycast, 100000 boxes in [0,%g]^3: %.3f us/ray median of 7 (%d/%d hit, mean t %.3f; "
           "build %.1f ms, height %d)\n",
           span, median(runs, 7), hits, NRAYS, hits ? tsum / hits : 0.0, build * 1e3,
           cl_tree_height(&w.tree));
    cl_world_free(&w);
}

/* 10,000 boxes in [0,100]^3 each moved by up to 0.05 per frame, then pairs(); prints median
 * ms/frame over 7 runs of 20 frames (the first pairs() call before timing is not counted). */
static void bench_pairs(void) {
    cl_world w;
    static int ids[10000];
    static cl_shape sh[10000];
    double runs[7], upd = 0;
    int i, f, k, np = 0;
    cl_world_init(&w, 0.1, balloc, NULL);
    for (i = 0; i < 10000; i++) {
        sh[i] = rndbox(100);
        ids[i] = cl_world_add(&w, &sh[i]);
    }
    cl_world_pairs(&w);
    for (k = 0; k < 7; k++) {
        double t0 = now(), tu = 0;
        for (f = 0; f < 20; f++) {
            double t1 = now();
            for (i = 0; i < 10000; i++) {
                cl_shape_translate(&sh[i], rndball(0.05));
                cl_world_update(&w, ids[i], &sh[i]);
            }
            tu += now() - t1;
            np = cl_world_pairs(&w);
        }
        runs[k] = (now() - t0) * 1e3 / 20;
        upd += tu * 1e3 / 20;
    }
    printf("pairs, 10000 moving boxes in [0,100]^3: %.3f ms/frame median of 7x20 frames "
           "(updates %.3f ms/frame mean; %d pairs)\n", median(runs, 7), upd / 7, np);
    cl_world_free(&w);
}

/* world:move of a 0.8 x 0.8 x 1 box among 2,000 unit boxes on a 100 x 100 grid (walls of
 * touching tiles plus random tiles), steps uniform in [-4, 4] on x and y (like bench/world.lua);
 * prints the median us/move over 7 runs of 20,000 moves. */
static void bench_move(void) {
    cl_world w;
    static unsigned char cell[100][100];
    double runs[7];
    int i, j, k, n = 0, p;
    cl_vec3 act;
    cl_world_init(&w, 0.1, balloc, NULL);
    for (i = 0; i < 100; i++)
        for (j = 0; j < 100; j++)
            if (i == 0 || j == 0 || i == 99 || j == 99) cell[i][j] = 1;
    for (i = 0; i < 100; i++)
        for (j = 0; j < 100; j++) n += cell[i][j];
    while (n < 2000) {
        i = 1 + (int)(rnd() * 98);
        j = 1 + (int)(rnd() * 98);
        if (cell[i][j] || (i == 50 && j == 50)) continue;
        cell[i][j] = 1;
        n++;
    }
    for (i = 0; i < 100; i++)
        for (j = 0; j < 100; j++)
            if (cell[i][j]) {
                cl_shape s;
                s.kind = CL_AABB;
                s.u.aabb.min = cl_v3(i, j, 0);
                s.u.aabb.max = cl_v3(i + 1, j + 1, 1);
                cl_world_add(&w, &s);
            }
    {
        cl_shape s;
        s.kind = CL_AABB;
        s.u.aabb.min = cl_v3(50.1, 50.1, 0);
        s.u.aabb.max = cl_v3(50.9, 50.9, 1);
        p = cl_world_add(&w, &s);
    }
    for (k = 0; k < 7; k++) {
        double t0 = now();
        for (i = 0; i < 20000; i++)
            cl_world_move(&w, p, cl_v3((rnd() - 0.5) * 8, (rnd() - 0.5) * 8, 0), NULL, NULL, 1, &act);
        runs[k] = (now() - t0) * 1e6 / 20000;
    }
    printf("move among 2000 grid boxes: %.3f us/move median of 7x20000\n", median(runs, 7));
    cl_world_free(&w);
}

int main(void) {
    if (!getenv("NOMOVE")) bench_move();
    if (!getenv("NORAY")) bench_raycast(200);
    if (!getenv("NORAY")) bench_raycast(1000);
    if (!getenv("NOPAIRS")) bench_pairs();
    return 0;
}
