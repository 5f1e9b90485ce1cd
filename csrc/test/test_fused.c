/* collide: the core built as a compiler that fuses multiplies and adds (FMA) would build it
 * (make check-fused: GNU C mode and an FMA target, clang and gcc). cl.h turns fusing off; fused,
 * cl_tri_overlaps_aabb reported a triangle whose vertex lies in or on a box apart from it (the
 * vertex's projection rounded once, the box's twice: review rev10, 2026-11-30). Random triangles
 * with a vertex in or on boxes with -0/+0 bounds, flat boxes, subnormal coordinates and scales
 * 2^-200..2^200, degenerate triangles: every one must overlap its box. */
#include <stdio.h>
#include <math.h>
#include "cl.h"
#include "mesh.h"

static unsigned long long fu_st = 88172645463325252ULL;
static unsigned long long fu_rn(void) { fu_st ^= fu_st << 13; fu_st ^= fu_st >> 7; fu_st ^= fu_st << 17; return fu_st; }
static double fu_ur(void) { return (double)(fu_rn() >> 11) / 9007199254740992.0; }
static double fu_val(double sc)
{
    switch (fu_rn() % 10) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return 4.9406564584124654e-324 * (double)(fu_rn() % 5) * (fu_rn() & 1 ? 1 : -1);
    case 3: return ldexp(1, (int)(fu_rn() % 400) - 200) * (fu_rn() & 1 ? 1 : -1);
    default: return (fu_ur() - 0.5) * sc;
    }
}

int main(void)
{
    long n, bad = 0, N = 1000000;
#if defined(__FP_FAST_FMA) || defined(__FMA__) || defined(__ARM_FEATURE_FMA)
    printf("fused multiply-add available to the compiler: yes\n");
#else
    printf("fused multiply-add available to the compiler: no (this check proves little here)\n");
#endif
    for (n = 0; n < N; n++) {
        double sc = ldexp(1, (int)(fu_rn() % 401) - 200), lo[3], hi[3];
        cl_aabb b;
        cl_vec3 v[3];
        int k, in = (int)(fu_rn() % 3);
        for (k = 0; k < 3; k++) {
            double x = fu_val(sc), y = fu_rn() % 4 == 0 ? x : fu_val(sc);
            lo[k] = x < y ? x : y;
            hi[k] = x < y ? y : x;
            if (lo[k] == 0 && (fu_rn() & 1)) lo[k] = -0.0;
        }
        b.min = cl_v3(lo[0], lo[1], lo[2]);
        b.max = cl_v3(hi[0], hi[1], hi[2]);
        for (k = 0; k < 3; k++) {
            double c[3];
            int a;
            for (a = 0; a < 3; a++) {
                if (k == in) {
                    unsigned r = (unsigned)(fu_rn() % 4);
                    c[a] = r == 0 ? lo[a] : r == 1 ? hi[a] : lo[a] + (hi[a] - lo[a]) * fu_ur();
                    if (c[a] < lo[a] || c[a] > hi[a] || c[a] != c[a]) c[a] = lo[a];
                } else {
                    c[a] = fu_rn() % 5 == 0 ? (k ? v[0].x : 0) : fu_val(sc * ldexp(1, (int)(fu_rn() % 20)));
                }
            }
            v[k] = cl_v3(c[0], c[1], c[2]);
            if (k != in && k > 0 && fu_rn() % 6 == 0) v[k] = v[k - 1];   /* degenerate */
        }
        if (fabs(v[0].x) > 0x1p200 || fabs(v[1].x) > 0x1p200 || fabs(v[2].x) > 0x1p200) continue;
        if (!cl_tri_overlaps_aabb(v[0], v[1], v[2], &b)) {
            if (bad < 5)
                printf("FAIL: vertex %d (%a %a %a) in box (%a %a %a)-(%a %a %a), triangle apart\n", in, v[in].x,
                       v[in].y, v[in].z, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
            bad++;
        }
    }
    printf("triangles with a vertex in their box: %ld, reported apart: %ld\n", N, bad);
    return bad != 0;
}
