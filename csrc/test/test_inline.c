/* world.c repeats some core tests inline for speed (the box-against-box sweep of cl_sweep_shapes
 * and cl_interiors_overlap, for the World's sweeps and moves). This test includes world.c to
 * reach those static functions and checks them against the generic core functions, bit for bit,
 * on random box pairs biased to exact contacts, flat boxes and resting axes. Run by
 * `make check-core`; if it fails, world.c and sweep.c have drifted apart. */
#include "world.c"
#include <stdio.h>
#include <string.h>

static unsigned long long rs = 88172645463325252ULL;
static unsigned long long xs(void) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
/* coordinates on small grids (exact contacts), halves, tenths and fine random values */
static double coord(void) {
    switch (xs() % 4) {
    case 0: return (double)((int)(xs() % 9) - 4);
    case 1: return ((int)(xs() % 17) - 8) * 0.5;
    case 2: return ((double)(xs() % 2000001) - 1000000) / 1e5;
    default: return ((int)(xs() % 9) - 4) * 0.1;
    }
}
/* a box, flat on an axis one time in four */
static cl_shape rbox(void) {
    cl_shape s;
    s.kind = CL_AABB;
    s.u.aabb.min = cl_v3(coord(), coord(), coord());
    s.u.aabb.max = s.u.aabb.min;
    if (xs() % 4) s.u.aabb.max.x += fabs(coord());
    if (xs() % 4) s.u.aabb.max.y += fabs(coord());
    if (xs() % 4) s.u.aabb.max.z += fabs(coord());
    return s;
}

int main(void) {
    long i, bad = 0, n = 2000000, cnt[3] = { 0, 0, 0 };
    for (i = 0; i < n; i++) {
        cl_shape a = rbox(), b = rbox();
        cl_vec3 d;
        cl_sweep s1, s2;
        if (xs() % 5 == 0) {            /* a's bottom on b's top: touching faces */
            a.u.aabb.min.y = b.u.aabb.max.y;
            if (a.u.aabb.max.y < a.u.aabb.min.y) a.u.aabb.max.y = a.u.aabb.min.y;
        }
        d = cl_v3(xs() % 3 ? coord() : 0.0, xs() % 3 ? coord() : 0.0, xs() % 3 ? coord() : 0.0);
        s1 = cl_sweep_shapes(&a, d, &b);
        memset(&s2, 0x55, sizeof s2);
        sweep_pair(&a, d, &b, &s2);
        cnt[s1.state == CL_TOI_SEPARATED ? 0 : s1.state == CL_TOI_TOUCHING ? 1 : 2]++;
        if (s1.state != s2.state || memcmp(&s1.t, &s2.t, sizeof s1.t) != 0 ||
            memcmp(&s1.n, &s2.n, sizeof s1.n) != 0) {
            if (bad++ < 5) printf("sweep differs at case %ld\n", i);
        }
        if (interiors_overlap(&a, &b) != cl_interiors_overlap(&a, &b)) {
            if (bad++ < 5) printf("interiors_overlap differs at case %ld\n", i);
        }
    }
    printf("inline box sweeps: %ld cases (separated %ld, touching %ld, overlapped %ld), %ld differ\n",
           n, cnt[0], cnt[1], cnt[2], bad);
    if (cnt[1] < n / 100 || cnt[2] < n / 100) {
        printf("FAIL: too few touching or overlapped cases\n");
        return 1;
    }
    printf("%s\n", bad ? "FAIL" : "ok");
    return bad != 0;
}
