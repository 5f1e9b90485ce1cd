/* Benchmark of the World core, no Lua involved.
 * By default: the exact scenes of bench/world.lua (its PRNG and generation order), so the C and
 * Lua numbers are for the same boxes, rays and moves: closest-hit raycast among 100,000 random
 * boxes (1024 rays, unbounded and maxt = 50), all overlapping pairs among 10,000 boxes that all
 * move a little every frame (translates + pairs), and moves of one box among 2,000 grid boxes.
 * Timing like bench/lib.lua: CPU time, calibrated runs of BENCH_SAMPLE seconds (default 0.04),
 * 2 warm-up rounds, BENCH_ROUNDS rounds (default 9, >= 7) with variants interleaved, medians.
 * The pairs scene instead runs a steady game loop (translates + pairs every frame, each piece
 * timed, summed over BENCH_FRAMES consecutive frames, default 100; see lua_pairs).
 * Writes the tables to stdout and, as markdown, to argv[1] if given (bench/run.sh does).
 * BENCH_MIN=1 reports the fastest round instead of the median (A/B comparisons on a busy machine).
 * With BENCH_OLD=1 it also runs the older scenes (xorshift PRNG; dense [0,200]^3 and sparse
 * [0,1000]^3 raycasts, pairs, moves) and prints medians of 7 runs.
 * Build and run (from the repository root):
 *   cc -std=c99 -O2 -Wall -Wextra -pedantic -Werror -Icsrc/core -o build/bench-world
 *      csrc/test/bench_world.c $(ls csrc/core/[a-z]*.c) -lm && ./build/bench-world
 * (every C file of csrc/core). */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "world.h"
#include "bench_common.h"

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

/* ---- the exact scenes of bench/world.lua (same PRNG, same generation order) ---- */

static int rounds = 9;          /* BENCH_ROUNDS, >= 7 */
static double sample = 0.04;    /* seconds per timed run */

/* A timed variant: fn(ctx, reps) performs reps * per operations. */
typedef struct variant {
    const char *name;
    void (*fn)(void *ctx, long reps);
    void (*setup)(void *ctx);   /* untimed, before every timed run (may be NULL) */
    void *ctx;
    long per, reps;
    double all[64];             /* ns per operation of every round */
    double ns, spread;
} variant;

/* Times fn(reps) once (after the setup); seconds. */
static double vtime(variant *v, long reps) {
    double t0;
    if (v->setup) v->setup(v->ctx);
    t0 = now();
    v->fn(v->ctx, reps);
    return now() - t0;
}

/* Like lib.compare: calibrates each variant to about `sample` seconds, 2 warm-up rounds, then
 * `rounds` rounds with the order rotated each round; medians and spreads per variant. */
static void compare(variant *vs, int nv) {
    int i, r;
    for (i = 0; i < nv; i++) {
        long n = 1;
        for (;;) {
            double t = vtime(&vs[i], n);
            if (t >= sample / 8 || n >= (1L << 40)) {
                double want = (double)n * sample / (t > 1e-9 ? t : 1e-9);
                vs[i].reps = want < 1 ? 1 : (long)want;
                break;
            }
            n *= 4;
        }
    }
    for (r = -2; r < rounds; r++)
        for (i = 0; i < nv; i++) {
            variant *v = &vs[((i + r + 2) % nv + nv) % nv];
            double t = vtime(v, v->reps);
            if (r >= 0) v->all[r] = t * 1e9 / ((double)v->reps * v->per);
        }
    for (i = 0; i < nv; i++) {
        double lo = vs[i].all[0], hi = vs[i].all[0], tmp[64];
        for (r = 0; r < rounds; r++) {
            tmp[r] = vs[i].all[r];
            if (tmp[r] < lo) lo = tmp[r];
            if (tmp[r] > hi) hi = tmp[r];
        }
        vs[i].ns = getenv("BENCH_MIN") ? lo : median(tmp, rounds);   /* min: A/B tests */
        vs[i].spread = vs[i].ns > 0 ? (hi - lo) / vs[i].ns : 0;
    }
}

#define LNBIG 100000
#define LNRAY 1024

typedef struct rayctx {
    cl_world *w;
    const cl_ray *rays;
    double maxt;
    int hits;
    double tsum;
} rayctx;

static void ray_fn(void *p, long reps) {
    rayctx *c = (rayctx *)p;
    long k;
    int j;
    for (k = 0; k < reps; k++) {
        c->hits = 0;
        c->tsum = 0;
        for (j = 0; j < LNRAY; j++) {
            cl_whit h;
            if (cl_world_raycast(c->w, &c->rays[j], c->maxt, -1, -1, &h) == 1) {
                c->hits++;
                c->tsum += h.t;
            }
        }
    }
}

/* bench/world.lua part 2: 100,000 boxes (rng 7), 1024 rays (rng 11), unbounded and maxt = 50. */
static void lua_raycast(double *us_inf) {
    static cl_ray rs[LNRAY];
    cl_world w;
    lrng g = lrng_new(7), gr = lrng_new(11);
    rayctx c[2];
    variant vs[2];
    double t0, tadd;
    int i;
    cl_world_init(&w, 0.1, balloc, NULL);
    t0 = now();
    for (i = 0; i < LNBIG; i++) {
        double cx = luni(&g, 0, 1000), cy = luni(&g, 0, 1000), cz = luni(&g, 0, 1000);
        double hx = luni(&g, 0.5, 5), hy = luni(&g, 0.5, 5), hz = luni(&g, 0.5, 5);
        cl_shape s;
        s.kind = CL_AABB;
        s.u.aabb.min = cl_v3(cx - hx, cy - hy, cz - hz);
        s.u.aabb.max = cl_v3(cx + hx, cy + hy, cz + hz);
        if (cl_world_add(&w, &s) < 0) { fprintf(stderr, "out of memory\n"); exit(1); }
    }
    tadd = now() - t0;
    for (i = 0; i < LNRAY; i++) {
        double ox = luni(&gr, 0, 1000), oy = luni(&gr, 0, 1000), oz = luni(&gr, 0, 1000);
        double dx = luni(&gr, -1, 1), dy = luni(&gr, -1, 1), dz = luni(&gr, -1, 1);
        if (dx == 0 && dy == 0 && dz == 0) dx = 1;
        cl_ray_make(&rs[i], cl_v3(ox, oy, oz), cl_v3(dx, dy, dz));
    }
    for (i = 0; i < 2; i++) {
        c[i].w = &w;
        c[i].rays = rs;
        c[i].maxt = i ? 50 : HUGE_VAL;
        vs[i].name = i ? "maxt = 50" : "unbounded";
        vs[i].fn = ray_fn;
        vs[i].setup = NULL;
        vs[i].ctx = &c[i];
        vs[i].per = LNRAY;
    }
    /* untimed passes first, as bench/world.lua does: the first raycast after the bulk add
     * rebuilds the tree and the next few hundred build the snapshot; inside the calibration
     * that one-off cost would leave a single 1024-ray pass per timed run */
    for (i = 0; i < 2; i++) ray_fn(&c[i], 1);
    compare(vs, 2);
    out("#### C core: closest-hit raycast among %d random boxes (the scene and %d rays of bench/world.lua)", LNBIG, LNRAY);
    out("");
    out("cl_world_raycast called directly from C (csrc/test/bench_world.c, -O2): no Lua, no binding.");
    out("Add: %.3f us per item (cl_world_add, one pass).", tadd * 1e6 / LNBIG);
    out("");
    out("| ray length | C us/ray | hits | mean t | spread |");
    out("|---|---:|---:|---:|---:|");
    for (i = 0; i < 2; i++) {
        ray_fn(&c[i], 1);
        out("| %s | %.3f | %.0f%% (%d) | %.3f | %.0f%% |", vs[i].name, vs[i].ns / 1000,
            100.0 * c[i].hits / LNRAY, c[i].hits, c[i].hits ? c[i].tsum / c[i].hits : 0.0,
            100 * vs[i].spread);
    }
    out("");
    *us_inf = vs[0].ns / 1000;
    cl_world_free(&w);
}

#define LNP 10000
#define LSIDE 100

/* bench/world.lua part 3 from C: the boxes' centres and velocities (p, v, the world holds these
 * boxes) and copies of them (q, u) that only the floor moves, never told to the world. */
typedef struct pairsctx {
    cl_world *w;
    double px[LNP], py[LNP], pz[LNP], vx[LNP], vy[LNP], vz[LNP];
    double qx[LNP], qy[LNP], qz[LNP], ux[LNP], uy[LNP], uz[LNP];
    int ids[LNP];
} pairsctx;

/* Sums over the frames of one job in one round: seconds per piece, pairs, frames. */
typedef struct pacc {
    double loop, pairs, np;
    int frames;
} pacc;

/* Runs nf frames of the game loop of bench/world.lua: every box moves by its velocity (bouncing
 * off the sides) and is told with cl_world_translate (what world:translate does), the loop timed
 * as one piece; then cl_world_pairs, timed apart. */
static void pairs_frames(pairsctx *c, int nf, pacc *a) {
    int f, i, np;
    for (f = 0; f < nf; f++) {
        double t0 = now(), t1, t2;
        for (i = 0; i < LNP; i++) {
            double dx = c->vx[i], dy = c->vy[i], dz = c->vz[i];
            double x = c->px[i] + dx, y = c->py[i] + dy, z = c->pz[i] + dz;
            if (x < 0 || x > LSIDE) { dx = -dx; c->vx[i] = dx; x = c->px[i] + dx; }
            if (y < 0 || y > LSIDE) { dy = -dy; c->vy[i] = dy; y = c->py[i] + dy; }
            if (z < 0 || z > LSIDE) { dz = -dz; c->vz[i] = dz; z = c->pz[i] + dz; }
            c->px[i] = x; c->py[i] = y; c->pz[i] = z;
            cl_world_translate(c->w, c->ids[i], cl_v3(dx, dy, dz));
        }
        t1 = now();
        np = cl_world_pairs(c->w);
        t2 = now();
        a->loop += t1 - t0;
        a->pairs += t2 - t1;
        a->np += np;
        a->frames++;
    }
}

/* The floor of that loop, timed the same way: the same motion on the copies, without the call
 * (the game's own motion code). */
static void pairs_motion(pairsctx *c, int nf, pacc *a) {
    int f, i;
    for (f = 0; f < nf; f++) {
        double t0 = now();
        for (i = 0; i < LNP; i++) {
            double dx = c->ux[i], dy = c->uy[i], dz = c->uz[i];
            double x = c->qx[i] + dx, y = c->qy[i] + dy, z = c->qz[i] + dz;
            if (x < 0 || x > LSIDE) { dx = -dx; c->ux[i] = dx; x = c->qx[i] + dx; }
            if (y < 0 || y > LSIDE) { dy = -dy; c->uy[i] = dy; y = c->qy[i] + dy; }
            if (z < 0 || z > LSIDE) { dz = -dz; c->uz[i] = dz; z = c->qz[i] + dz; }
            c->qx[i] = x; c->qy[i] = y; c->qz[i] = z;
        }
        a->loop += now() - t0;
        a->frames++;
    }
}

/* cl_world_pairs again and again with nothing moved (every job on the world ends with a pairs
 * call, so each call finds the pair cache up to date). */
static void pairs_alone(pairsctx *c, int nf, pacc *a) {
    int f;
    for (f = 0; f < nf; f++) {
        double t0 = now();
        cl_world_pairs(c->w);
        a->pairs += now() - t0;
        a->frames++;
    }
}

/* Median (BENCH_MIN: the fastest round) and spread ((max - min) / median) of one value per
 * round; the list is not changed. */
static void rstats(const double *all, double *med, double *spread) {
    double tmp[64], lo = all[0], hi = all[0];
    int r;
    for (r = 0; r < rounds; r++) {
        tmp[r] = all[r];
        if (all[r] < lo) lo = all[r];
        if (all[r] > hi) hi = all[r];
    }
    *med = getenv("BENCH_MIN") ? lo : median(tmp, rounds);
    *spread = *med > 0 ? (hi - lo) / *med : 0;
}

/* Writes one table row: the median of the per-round values and their spread. */
static void prow(const char *label, const double *all) {
    double m, s;
    rstats(all, &m, &s);
    out("| %s | %.3f | %.0f%% |", label, m, 100 * s);
}

/* bench/world.lua part 3: 10,000 boxes (rng 23) moving every frame, measured like a game loop
 * that runs for a while: short calibrated runs of a few frames (and runs that moved the world
 * without calling pairs) missed the world's periodic maintenance (fat-box refreshes, refits,
 * tree rebuilds every few dozen frames), so here every frame is translates + pairs, each piece
 * timed and summed over BENCH_FRAMES (default 100) consecutive frames per round, after one
 * warm-up round; the frames, the floor and pairs alone take turns in an order rotated every
 * round; medians of the per-round means. Sets the medians of collide's cost per frame
 * (translates minus the bare motion loop, plus pairs) and of the whole frame, in ms. */
static void lua_pairs(double *collide_ms, double *whole_ms) {
    static pairsctx c;
    static double loop[64], motion[64], prs[64], alone[64], upd[64], col[64], whole[64];
    cl_world w;
    lrng g = lrng_new(23);
    double npsum = 0, spread;
    long nfsum = 0;
    int i, r, k, fr = 100, na, first;
    const char *e = getenv("BENCH_FRAMES");
    if (e != NULL && atoi(e) > 0) fr = atoi(e);
    na = fr / 5 > 5 ? fr / 5 : 5;
    cl_world_init(&w, 0.1, balloc, NULL);
    c.w = &w;
    for (i = 0; i < LNP; i++) {
        double p[3], h[3], v[3], hx, hy, hz;
        cl_shape s;
        lscene_box(&g, LSIDE, p, h, v);
        c.px[i] = p[0]; c.py[i] = p[1]; c.pz[i] = p[2];
        hx = h[0]; hy = h[1]; hz = h[2];
        c.vx[i] = v[0]; c.vy[i] = v[1]; c.vz[i] = v[2];
        c.qx[i] = c.px[i]; c.qy[i] = c.py[i]; c.qz[i] = c.pz[i];
        c.ux[i] = c.vx[i]; c.uy[i] = c.vy[i]; c.uz[i] = c.vz[i];
        s.kind = CL_AABB;
        s.u.aabb.min = cl_v3(c.px[i] - hx, c.py[i] - hy, c.pz[i] - hz);
        s.u.aabb.max = cl_v3(c.px[i] + hx, c.py[i] + hy, c.pz[i] + hz);
        c.ids[i] = cl_world_add(&w, &s);
    }
    first = cl_world_pairs(&w);
    for (r = -1; r < rounds; r++)           /* round -1: warm-up (the world's steady state) */
        for (k = 0; k < 3; k++) {
            int job = (k + r + 1) % 3;
            pacc a = {0, 0, 0, 0};
            if (job == 0) pairs_frames(&c, fr, &a);
            else if (job == 1) pairs_motion(&c, fr, &a);
            else pairs_alone(&c, na, &a);
            if (r < 0) continue;
            if (job == 0) {
                loop[r] = a.loop * 1e3 / a.frames;
                prs[r] = a.pairs * 1e3 / a.frames;
                npsum += a.np;
                nfsum += a.frames;
            } else if (job == 1) {
                motion[r] = a.loop * 1e3 / a.frames;
            } else {
                alone[r] = a.pairs * 1e3 / a.frames;
            }
        }
    for (r = 0; r < rounds; r++) {          /* derived within each round */
        upd[r] = loop[r] - motion[r];
        col[r] = upd[r] + prs[r];
        whole[r] = loop[r] + prs[r];
    }
    out("#### C core: all overlapping pairs among %d boxes moving every frame (the scene of bench/world.lua)", LNP);
    out("");
    out("The steady game loop of bench/world.lua driven from C (csrc/test/bench_world.c, -O2), no Lua: every");
    out("frame moves every box and calls cl_world_translate for it (one loop, timed as one piece), then");
    out("cl_world_pairs (timed apart); CPU time around each piece, summed over %d consecutive frames", fr);
    out("(BENCH_FRAMES; the default 100 includes several waves of the world's periodic maintenance). %d rounds", rounds);
    out("after one warm-up round; the frames, the floor and pairs alone take turns in an order rotated every");
    out("round; every number is the median of the per-round means, spread = (max - min) / median. The floor");
    out("moves copies of the positions. World updates = A minus B; collide per frame = world updates + pairs.");
    out("");
    out("| measure | C ms per frame | spread |");
    out("|---|---:|---:|");
    {
        char lab[160];
        sprintf(lab, "A. the loop: motion + %d x cl_world_translate", LNP);
        prow(lab, loop);
    }
    prow("B. floor of A: the same motion loop without the call (the game's own motion code)", motion);
    prow("world updates: A minus B", upd);
    prow("cl_world_pairs after the moves, timed directly", prs);
    prow("**collide per frame: world updates + pairs**", col);
    prow("**whole frame: A + pairs**", whole);
    {
        char lab[160];
        sprintf(lab, "cl_world_pairs alone, nothing moved since the last call (%d calls per round)", na);
        prow(lab, alone);
    }
    out("");
    out("Pairs per frame: about %.0f (mean over the timed frames; %d before the first frame).",
        nfsum > 0 ? npsum / nfsum : 0.0, first);
    out("");
    rstats(col, collide_ms, &spread);
    rstats(whole, whole_ms, &spread);
    cl_world_free(&w);
}

#define LNSTEP 1024

typedef struct movectx {
    cl_world *w;
    int p;
    double dx[LNSTEP], dy[LNSTEP];
    long ncols;
} movectx;

static void move_fn(void *p, long reps) {
    movectx *c = (movectx *)p;
    long k;
    int j;
    for (k = 0; k < reps; k++)
        for (j = 0; j < LNSTEP; j++) {
            cl_vec3 act;
            c->ncols += cl_world_move(c->w, c->p, cl_v3(c->dx[j], c->dy[j], 0), NULL, NULL, 1, &act);
        }
}

/* bench/world.lua part 4: 2,000 tiles on a 100 x 100 grid (rng 31), 1024 steps. */
static void lua_move(double *us) {
    static unsigned char cells[100][100];
    cl_world w;
    static movectx c;
    lrng g = lrng_new(31);
    variant v;
    int i, j, n = 0, si = 50, sj = 50;
    double mx0, my0;
    cl_shape s;
    cl_world_init(&w, 0.1, balloc, NULL);
    s.kind = CL_AABB;
#define ADDTILE(I, J)                                                                           \
    do {                                                                                        \
        int i_ = (I), j_ = (J);                                                                 \
        if (!cells[i_][j_]) {                                                                   \
            cells[i_][j_] = 1;                                                                  \
            s.u.aabb.min = cl_v3(i_, j_, 0);                                                    \
            s.u.aabb.max = cl_v3(i_ + 1, j_ + 1, 1);                                            \
            cl_world_add(&w, &s);                                                               \
            n++;                                                                                \
        }                                                                                       \
    } while (0)
    for (i = 0; i < 100; i++) { ADDTILE(i, 0); ADDTILE(i, 99); }
    for (j = 1; j < 99; j++) { ADDTILE(0, j); ADDTILE(99, j); }
    while (n < 2000) {
        int a = lint(&g, 1, 98), b = lint(&g, 1, 98);   /* Lua evaluates arguments left to right */
        ADDTILE(a, b);
    }
#undef ADDTILE
    while (cells[si][sj]) si++;
    mx0 = si + 0.1;
    my0 = sj + 0.1;
    s.u.aabb.min = cl_v3(mx0, my0, 0);
    s.u.aabb.max = cl_v3(mx0 + 0.8, my0 + 0.8, 1);
    c.w = &w;
    c.p = cl_world_add(&w, &s);
    for (i = 0; i < LNSTEP; i++) {
        c.dx[i] = luni(&g, -4, 4);
        c.dy[i] = luni(&g, -4, 4);
    }
    c.ncols = 0;
    move_fn(&c, 1);             /* the cross-check pass of bench/world.lua */
    out("#### C core: world:move among %d boxes on a 100x100 grid (the scene of bench/world.lua)", n);
    out("");
    out("Collisions per move (first pass of the %d steps): %.2f.", LNSTEP, (double)c.ncols / LNSTEP);
    v.name = "move"; v.fn = move_fn; v.setup = NULL; v.ctx = &c; v.per = LNSTEP;
    compare(&v, 1);
    out("");
    out("| variant | C us per move | spread |");
    out("|---|---:|---:|");
    out("| cl_world_move (slide, commit) | %.3f | %.0f%% |", v.ns / 1000, 100 * v.spread);
    out("");
    *us = v.ns / 1000;
    cl_world_free(&w);
}

int main(int argc, char **argv) {
    double us_ray, frame_ms, whole_ms, us_move;
    const char *e;
    if ((e = getenv("BENCH_ROUNDS")) != NULL) rounds = atoi(e);
    if (rounds < 7) rounds = 7;
    if (rounds > 64) rounds = 64;
    if ((e = getenv("BENCH_SAMPLE")) != NULL && atof(e) > 0.04) sample = atof(e);
    if (argc > 1 && (md = fopen(argv[1], "w")) == NULL) { perror(argv[1]); return 1; }
    if (getenv("BENCH_OLD")) {
        if (!getenv("NOMOVE")) bench_move();
        if (!getenv("NORAY")) bench_raycast(200);
        if (!getenv("NORAY")) bench_raycast(1000);
        if (!getenv("NOPAIRS")) bench_pairs();
    }
    us_ray = frame_ms = whole_ms = us_move = -1;
    if (!getenv("NORAY")) lua_raycast(&us_ray);
    if (!getenv("NOPAIRS")) lua_pairs(&frame_ms, &whole_ms);
    if (!getenv("NOMOVE")) lua_move(&us_move);
    out("#### C core targets (issue 3)");
    out("");
    if (us_ray >= 0)
        out("- raycast in C: %.3f us per ray (unbounded): target < 3 us %s.", us_ray, us_ray < 3 ? "met" : "MISSED");
    if (frame_ms >= 0)
        out("- pairs among 10,000 moving boxes in C, steady game loop: collide per frame (10,000 cl_world_translate + "
            "cl_world_pairs, motion loop excluded) %.3f ms: target < 3 ms %s; whole frame incl. the motion loop "
            "%.3f ms: %s (the Lua frames add the calls and Lua's motion code).",
            frame_ms, frame_ms < 3 ? "met" : "MISSED", whole_ms, whole_ms < 3 ? "met" : "MISSED");
    if (us_move >= 0)
        out("- move in C: %.3f us per move (the Lua figure adds the call and binding).", us_move);
    out("");
    if (md) fclose(md);
    return 0;
}
