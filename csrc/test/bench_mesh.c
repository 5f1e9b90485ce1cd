/* Mesh speed from C (bench/run.sh's mesh part; no Lua): building a 262,088-triangle height-field
 * mesh (median of 5 builds, in ms), its memory per triangle, and closest-hit raycasts on it (rays
 * per second: primary rays of 16 cameras above the terrain in scanline order, grazing rays
 * across the whole terrain, and rays in random directions from random points above it). Times
 * are CPU time of the process (CLOCK_PROCESS_CPUTIME_ID), so other load on the machine slows
 * them less than wall-clock times. Writes a markdown table to argv[1] (or stdout).
 * Also casts bench/mesh.lua's camera rays on bench/mesh.lua's mesh (the same numbers: its PRNG,
 * lib.rng, is replicated here) and writes the C time per ray in ns to argv[2], for mesh.lua's
 * "Lua minus C" verdict, then the C time of its small case (a ray onto a 2-triangle quad) on a second
 * line. Usage: build/bench-mesh [out.md [camera.ns]] */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include "cl.h"
#include "mesh.h"

static unsigned long long rs = 0x9E3779B97F4A7C15ULL;
static double rnd(void)
{
    rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
    return (double)((rs * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);  /* CPU time: the machine may be shared */
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
static void *al(void *ud, void *p, size_t o, size_t n)
{
    (void)ud; (void)o;
    if (n == 0) { free(p); return NULL; }
    return realloc(p, n);
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define G 362   /* cells per side: 2 * 362^2 = 262,088 triangles */
#define NRAYS 1000000
#define LUARAYS 4096  /* bench/mesh.lua's NR */

/* bench/lib.lua's rng (Park-Miller, seed 20261125 as bench/mesh.lua): the next uniform in [lo, hi]. */
static long long pm = 20261125;
static double pmu(double lo, double hi)
{
    pm = (pm * 48271) % 2147483647;
    return lo + (hi - lo) * ((double)pm / 2147483647);
}

/* The C time in ns of bench/mesh.lua's small case: one ray down onto a 2-triangle quad (median of
 * 9 rounds of about 0.05 s): a C time small and steady enough to compare Lua's call costs with. */
static double smallquad(void)
{
    static const double qv[12] = { 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1 };
    static const unsigned qi[6] = { 0, 1, 2, 0, 2, 3 };
    cl_mesh m;
    cl_ray r;
    double ns[9], sink = 0;
    int k, q, reps = 1;
    if (cl_mesh_init(&m, 4, 2, 1, al, NULL) != CL_OK) return -1;
    memcpy(m.v, qv, sizeof qv);
    memcpy(m.idx, qi, sizeof qi);
    if (cl_mesh_build(&m) != CL_OK) return -1;
    cl_ray_make(&r, cl_v3(0.3, 1, 0.4), cl_v3(0, -1, 0));
    for (k = -1; k < 9; k++) {
        double t0 = now(), dt;
        for (q = 0; q < reps; q++) {
            cl_hit h;
            size_t tri;
            if (cl_mesh_raycast(&m, &r, HUGE_VAL, &h, &tri)) sink += h.t;
        }
        dt = now() - t0;
        if (k < 0) reps = dt > 0 ? (int)(0.05 / dt) + 1 : 1000000;
        else ns[k] = dt * 1e9 / reps;
    }
    qsort(ns, 9, sizeof *ns, cmpd);
    cl_mesh_free(&m);
    return sink > 0 ? ns[4] : -1;
}

/* Builds bench/mesh.lua's height field and camera rays the way it does, casts the rays (rounds of
 * all of them, median of 9 rounds of about 0.05 s) and returns the C time per ray in ns. */
static double luacamera(const unsigned *idx)
{
    size_t nv = (size_t)(G + 1) * (G + 1), nt = (size_t)2 * G * G;
    cl_mesh m;
    cl_ray *rays = (cl_ray *)malloc(LUARAYS * sizeof(cl_ray));
    double ns[9], sink = 0;
    int i, j, k, r, reps = 1;
    if (rays == NULL || cl_mesh_init(&m, nv, nt, 1, al, NULL) != CL_OK) return -1;
    for (j = 0; j <= G; j++)
        for (i = 0; i <= G; i++) {
            double *p = m.v + 3 * (j * (G + 1) + i);
            p[0] = i;
            p[1] = 3 * sin(i * 0.05) * cos(j * 0.07) + pmu(0, 0.3);
            p[2] = j;
        }
    memcpy(m.idx, idx, 3 * nt * sizeof(unsigned));
    if (cl_mesh_build(&m) != CL_OK) return -1;
    for (k = 0; k < LUARAYS; k++) {
        double ox = pmu(60, G - 60), oy = pmu(5.5, 13.5), oz = pmu(60, G - 60);
        double tx = ox + pmu(-10, 10), tz = oz + pmu(-10, 10);
        cl_ray_make(&rays[k], cl_v3(ox, oy, oz), cl_v3(tx - ox, -oy, tz - oz));
    }
    for (r = -1; r < 9; r++) {  /* round -1 calibrates */
        double t0 = now(), dt;
        int q;
        for (q = 0; q < reps; q++)
            for (k = 0; k < LUARAYS; k++) {
                cl_hit h;
                size_t tri;
                if (cl_mesh_raycast(&m, &rays[k], HUGE_VAL, &h, &tri)) sink += h.t;
            }
        dt = now() - t0;
        if (r < 0) reps = dt > 0 ? (int)(0.05 / dt) + 1 : 100;
        else ns[r] = dt * 1e9 / ((double)reps * LUARAYS);
    }
    qsort(ns, 9, sizeof *ns, cmpd);
    cl_mesh_free(&m);
    free(rays);
    return sink >= 0 ? ns[4] : -1;
}

int main(int argc, char **argv)
{
    size_t nv = (size_t)(G + 1) * (G + 1), nt = (size_t)2 * G * G, i, hits = 0;
    double *v = (double *)malloc(3 * nv * sizeof(double)), times[5], tb, tr0, tr1, tr2;
    unsigned *idx = (unsigned *)malloc(3 * nt * sizeof(unsigned));
    cl_ray *rays = (cl_ray *)malloc(NRAYS * sizeof(cl_ray));
    cl_mesh m;
    int k, j;
    FILE *out = argc > 1 ? fopen(argv[1], "w") : stdout;
    if (!v || !idx || !rays || !out) return 1;
    for (j = 0; j <= G; j++)
        for (i = 0; i <= G; i++) {
            double *p = v + 3 * (j * (G + 1) + i);
            p[0] = (double)i;
            p[1] = 3 * sin(i * 0.05) * cos(j * 0.07) + rnd() * 0.3;
            p[2] = (double)j;
        }
    for (j = 0; j < G; j++)
        for (i = 0; i < G; i++) {
            unsigned *t = idx + 6 * (j * G + i), v0 = (unsigned)(j * (G + 1) + i), v1 = v0 + 1, v2 = v0 + G + 1, v3 = v2 + 1;
            t[0] = v0; t[1] = v1; t[2] = v3; t[3] = v0; t[4] = v3; t[5] = v2;
        }
    for (k = 0; k < 5; k++) {
        double t0;
        cl_mesh_init(&m, nv, nt, 1, al, NULL);
        memcpy(m.v, v, 3 * nv * sizeof(double));
        memcpy(m.idx, idx, 3 * nt * sizeof(unsigned));
        t0 = now();
        if (cl_mesh_build(&m) != CL_OK) return 1;
        times[k] = (now() - t0) * 1e3;
        if (k < 4) cl_mesh_free(&m);
    }
    qsort(times, 5, sizeof *times, cmpd);
    tb = times[2];
    /* primary rays: 16 cameras, 6 to 14 units above the terrain, each looking down 30 degrees
     * with a 90-degree field of view, 250 x 250 pixels in scanline order (as a renderer casts them) */
    for (k = 0; k < NRAYS; k++) {
        static cl_vec3 o, f, r, u;
        int px = k % 250, py = (k / 250) % 250;
        if (k % 62500 == 0) {
            double yaw = rnd() * 6.283, c = cos(yaw), s = sin(yaw);
            o = cl_v3(60 + rnd() * (G - 120), 6 + rnd() * 8, 60 + rnd() * (G - 120));
            f = cl_v3(c * 0.866, -0.5, s * 0.866);
            r = cl_v3(-s, 0, c);
            u = cl_v3(f.y * r.z - f.z * r.y, f.z * r.x - f.x * r.z, f.x * r.y - f.y * r.x);
        }
        {
            double sx = (px + 0.5) / 125.0 - 1, sy = 1 - (py + 0.5) / 125.0;
            cl_ray_make(&rays[k], o, cl_v3(f.x + sx * r.x + sy * u.x, f.y + sx * r.y + sy * u.y, f.z + sx * r.z + sy * u.z));
        }
    }
    {
        double t0 = now();
        for (k = 0; k < NRAYS; k++) {
            cl_hit h;
            size_t tri;
            hits += (size_t)cl_mesh_raycast(&m, &rays[k], HUGE_VAL, &h, &tri);
        }
        tr0 = NRAYS / (now() - t0);
    }
    /* grazing: from 20 to 30 units up to random points anywhere on the terrain (long, shallow) */
    for (k = 0; k < NRAYS; k++) {
        cl_vec3 o = cl_v3(rnd() * G, 20 + rnd() * 10, rnd() * G), a = cl_v3(rnd() * G, 0, rnd() * G);
        cl_ray_make(&rays[k], o, cl_v3(a.x - o.x, a.y - o.y, a.z - o.z));
    }
    {
        double t0 = now();
        for (k = 0; k < NRAYS; k++) {
            cl_hit h;
            size_t tri;
            hits += (size_t)cl_mesh_raycast(&m, &rays[k], HUGE_VAL, &h, &tri);
        }
        tr1 = NRAYS / (now() - t0);
    }
    /* incoherent: random directions from random points above the terrain */
    for (k = 0; k < NRAYS; k++) {
        cl_vec3 o = cl_v3(rnd() * G, 5 + rnd() * 10, rnd() * G), d = cl_v3(rnd() * 2 - 1, rnd() * 2 - 1, rnd() * 2 - 1);
        if (!cl_ray_make(&rays[k], o, d)) cl_ray_make(&rays[k], o, cl_v3(0, -1, 0));
    }
    {
        double t0 = now();
        for (k = 0; k < NRAYS; k++) {
            cl_hit h;
            size_t tri;
            hits += (size_t)cl_mesh_raycast(&m, &rays[k], HUGE_VAL, &h, &tri);
        }
        tr2 = NRAYS / (now() - t0);
    }
    fprintf(out, "| mesh (C core, -O2), %lu triangles | measured | target |\n|---|---|---|\n", (unsigned long)nt);
    fprintf(out, "| build (binned SAH, median of 5) | %.1f ms | <= 100 ms |\n", tb);
    fprintf(out, "| memory (vertices, indices, tree) | %.1f bytes per triangle | <= 64 |\n",
            (double)cl_mesh_bytes(&m) / (double)nt);
    fprintf(out, "| closest-hit raycast, primary rays (16 cameras x 250 x 250 pixels) | %.2f M rays/s | >= 1.5 M/s |\n", tr0 * 1e-6);
    fprintf(out, "| closest-hit raycast, grazing rays across the terrain | %.2f M rays/s | |\n", tr1 * 1e-6);
    fprintf(out, "| closest-hit raycast, random directions | %.2f M rays/s | |\n", tr2 * 1e-6);
    fprintf(out, "\n(%lu of %d rays hit; tree: %lu nodes, height %d)\n", (unsigned long)hits, 3 * NRAYS,
            (unsigned long)m.nnodes, m.depth);
    cl_mesh_free(&m);
    if (argc > 2) {
        double ns = luacamera(idx), small = smallquad();
        FILE *f = fopen(argv[2], "w");
        if (f == NULL || ns < 0 || small < 0) return 1;
        fprintf(f, "%.2f\n%.2f\n", ns, small);
        fclose(f);
        fprintf(out, "\nbench/mesh.lua's %d camera rays on its mesh, from C: %.1f ns per ray (median of 9 rounds); "
                "one ray onto a 2-triangle quad: %.1f ns\n", LUARAYS, ns, small);
    }
    free(v); free(idx); free(rays);
    if (out != stdout) fclose(out);
    return 0;
}
