/* The World's files repeat some core tests inline for speed (world_move.c: the box-against-box
 * sweep of cl_sweep_shapes and cl_interiors_overlap, for the World's sweeps and moves;
 * world_internal.h: tree.c's cl_fbox_from, for its queries). This test includes every
 * csrc/core/world*.c file (the Makefile links the rest of the core) to reach those static
 * functions and checks them against the generic core functions, bit for bit, on random box
 * pairs biased to exact contacts, flat boxes and resting axes, and float boxes of every
 * magnitude; if it fails, the World's copies and sweep.c or tree.c have drifted apart. It also
 * sets a two-entry stack for the box-query walk, which then grows on the heap, and checks that
 * walk against brute force, with that growth failing too. Run by `make check-core`. */
#define CL_QSTACK 2         /* the box-query walk's stack grows on the heap at once (see walk_check) */
#include "world.c"
#include "world_tree.c"
#include "world_query.c"
#include "world_pairs.c"
#include "world_move.c"
#include "world_resolve.c"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Item id's shape: cl_world_shape into one of four rotating buffers (for tests only). */
static const cl_shape *wsh(const cl_world *w, int id) {
    static cl_shape b[4];
    static int k;
    k = (k + 1) & 3;
    return cl_world_shape(w, id, &b[k]);
}

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

/* a double for the float-box rounding: exact floats, their neighbours, zeros, tiny and huge
 * values, the float range's ends, infinities, random values of every magnitude */
static double fcoord(void) {
    static const double special[] = { 0.0, -0.0, 1e-300, -1e-300, 1e-45, -1e-45, 1.4e-45, -1.4e-45,
                                      FLT_MAX, -FLT_MAX, 3.4028235677973366e38, -3.4028235677973366e38,
                                      3.402823466385289e38, -3.402823466385289e38, 1e39, -1e39, DBL_MAX,
                                      -DBL_MAX, HUGE_VAL, -HUGE_VAL, FLT_MIN, -FLT_MIN, 1e-310, -1e-310 };
    double v;
    switch (xs() % 6) {
    case 0: return special[xs() % (sizeof special / sizeof special[0])];
    case 1: v = (float)coord(); return xs() % 2 ? v : nextafter(v, xs() % 2 ? HUGE_VAL : -HUGE_VAL);
    case 2: return ldexp((double)(xs() % 2000001) - 1000000, (int)(xs() % 300) - 150);
    case 3: return ldexp((double)(xs() % 2000001) - 1000000, (int)(xs() % 2100) - 1070);
    default: return coord() * 100.3;
    }
}

/* fbox_of against cl_fbox_from, bit for bit; the number that differ */
static long check_fbox(long n) {
    long i, bad = 0;
    for (i = 0; i < n; i++) {
        cl_aabb b;
        cl_fbox f1, f2;
        b.min = cl_v3(fcoord(), fcoord(), fcoord());
        b.max = cl_v3(fcoord(), fcoord(), fcoord());
        f1 = cl_fbox_from(&b);
        f2 = fbox_of(&b);
        if (memcmp(&f1, &f2, sizeof f1) != 0 && bad++ < 5)
            printf("fbox_of differs: %.17g %.17g %.17g %.17g %.17g %.17g\n", b.min.x, b.min.y, b.min.z,
                   b.max.x, b.max.y, b.max.z);
    }
    printf("float boxes: %ld cases, %ld differ\n", n, bad);
    return bad;
}

/* allocator failing after wfail more allocations (-1: never), counting live bytes */
static long wfail = -1, wlive;
static void *walloc(void *ud, void *p, size_t osize, size_t nsize) {
    (void)ud;
    if (nsize == 0) {
        if (p) wlive -= (long)osize;
        free(p);
        return NULL;
    }
    if (wfail == 0) return NULL;
    if (wfail > 0) wfail--;
    p = realloc(p, nsize);
    if (p) wlive += (long)nsize - (long)osize;
    return p;
}

/* The box-query snapshot walk with a two-entry local stack (so it grows on the heap), against
 * brute force, and with that growth failing (CL_ENOMEM, nothing leaked); the number of bad
 * results. */
static long walk_check(void) {
    cl_world w;
    int i, k, bad = 0, fails = 0, snapped = 0;
    cl_shape s;
    cl_world_init(&w, 0.1, walloc, NULL);
    s.kind = CL_AABB;
    for (i = 0; i < 3000; i++) {
        double x = (double)(xs() % 100), y = (double)(xs() % 100), z = (double)(xs() % 100);
        if (i % 3 == 0) x = y = z = 50;             /* a thousand coincident boxes */
        s.u.aabb.min = cl_v3(x, y, z);
        s.u.aabb.max = cl_v3(x + 1 + (double)(xs() % 3), y + 1, z + 1);
        cl_world_add(&w, &s);
    }
    for (k = 0; k < 400; k++) {
        cl_shape q;
        int n, m = 0, id;
        double x = (double)(xs() % 100), y = (double)(xs() % 100), z = (double)(xs() % 100), e = (double)(xs() % 30);
        q.kind = CL_AABB;
        q.u.aabb.min = cl_v3(x - e, y - e, z - e);
        q.u.aabb.max = cl_v3(x + e, y + e, z + e);
        wfail = k % 5 == 3 ? 0 : -1;
        n = cl_world_query(&w, &q);
        wfail = -1;
        if (w.qn && w.qnver == w.tver) snapped++;
        if (n == CL_ENOMEM) { fails++; continue; }
        for (id = 0; id < w.cap; id++)
            if (w.items[id].proxy != CL_NULLNODE) m += cl_shape_overlaps(&q, wsh(&w, id));
        if (n != m) bad++;
    }
    cl_world_free(&w);
    printf("query walks with a growing stack: %d bad, %d failed allocations, %d over the snapshot, %ld bytes left\n",
           bad, fails, snapped, wlive);
    return bad + (fails == 0) + (snapped < 200) + (wlive != 0);
}

/* The walks from a leaf up (clw_collect_box with a live skip item: qsnap_query's leaf when the
 * snapshot is valid and holds it, else clw_collect_fbox's; a third of the queries, in runs of
 * 500, find the snapshot out of date, another third the query grid built, which then answers
 * those whose cells hold few leaves), against brute force over the tree's leaves: every live
 * item but skip whose leaf box meets the query's float box, or for a stale leaf whose widened
 * tight box meets the query box, exactly once. Worlds of 2D tiles, 3D boxes and coincident
 * boxes; query boxes around the skip item (a move's swept box: the usual case), touching it, far
 * from it and huge; stale leaves pending; the stack grows on the heap (CL_QSTACK 2) and that
 * growth fails now and then. The number of bad results. */
static long near_check(void) {
    static unsigned char seen[4000];
    long bad = 0, up = 0, treeup = 0, fails = 0, gridded = 0;
    int round;
    for (round = 0; round < 6; round++) {
        cl_world w;
        int i, k, nitems = 300 + 600 * round;
        cl_shape s;
        cl_world_init(&w, round % 2 ? 0.1 : 0, walloc, NULL);
        s.kind = CL_AABB;
        for (i = 0; i < nitems; i++) {
            double x = (double)(xs() % 200), y = (double)(xs() % 200), z = round % 3 == 0 ? 0 : (double)(xs() % 200);
            if (round == 4 && i % 4 == 0) x = y = z = 100;     /* coincident boxes */
            s.u.aabb.min = cl_v3(x, y, z);
            s.u.aabb.max = cl_v3(x + 1 + (double)(xs() % 8), y + 1 + (double)(xs() % 8), round % 3 == 0 ? 1 : z + 1);
            cl_world_add(&w, &s);
        }
        for (k = 0; k < 3000; k++) {
            int id = (int)(xs() % (unsigned)nitems), n, m = 0, j, ok = 1, slotted;
            cl_aabb q, b = w.items[id].box;
            cl_fbox fq;
            double e = xs() % 4 == 0 ? (double)(xs() % 40) : (double)(xs() % 4) * 0.5;
            if (k % 97 == 5) {                  /* a few stale leaves (at most DIRTY_MAX: kept) */
                cl_world_translate(&w, (int)(xs() % (unsigned)nitems), cl_v3(30, 0, 0));
            }
            switch (xs() % 4) {
            case 0: q = b; break;                                           /* its own box */
            case 1: q = b; q.min.x = q.max.x; q.max.x += e; break;          /* touching it */
            case 2: q.min = cl_v3(b.min.x - e, b.min.y - e, b.min.z - e);   /* around it */
                    q.max = cl_v3(b.max.x + e, b.max.y + e, b.max.z + e); break;
            default: q.min = cl_v3((double)(xs() % 200), (double)(xs() % 200), 0);  /* anywhere */
                     q.max = cl_v3(q.min.x + e, q.min.y + e, 200); break;
            }
            fq = fbox_of(&q);
            if ((k / 500) % 3 == 1) {   /* the snapshot out of date: the tree's walk up */
                w.qnver = -5;
                w.raysver = w.tver;
                w.wnrays = 0;
            } else if ((k / 500) % 3 == 2 && !(w.pgok && w.pgver == w.tver)) {
                settle_tree(&w);        /* the query grid built now: it answers what it can */
                if (qsnap_now(&w)) pgrid_build(&w);
            }
            wfail = k % 7 == 3 ? (long)(xs() % 3) : -1;
            n = clw_collect_box(&w, &q, id);
            wfail = -1;
            slotted = w.qn && w.qnver == w.tver && w.qslot[clw_leaf(&w, id)] >= 0;
            if (n == CL_ENOMEM) { fails++; continue; }
            up += slotted;
            gridded += w.pgok && w.pgver == w.tver;
            treeup += !(w.qn && w.qnver == w.tver) && clw_tree_leaf(&w, id) >= 0;
            memset(seen, 0, sizeof seen);
            for (j = 0; j < n; j++) {
                int c = w.tmp[j];
                if (c < 0 || c >= w.cap || seen[c]) ok = 0;
                else seen[c] = 1;
            }
            for (j = 0; j < w.cap; j++) {
                const cl_item *it = &w.items[j];
                int want;
                if (it->proxy == CL_NULLNODE || j == id) continue;
                if (!it->dirty) {
                    want = fboxes_overlap(&w.tree.nodes[clw_leaf(&w, j)].box, &fq);
                } else {
                    cl_aabb tb = widen(&it->box, 0, item_tol(&w, it));
                    want = tb.min.x <= q.max.x && tb.max.x >= q.min.x && tb.min.y <= q.max.y &&
                           tb.max.y >= q.min.y && tb.min.z <= q.max.z && tb.max.z >= q.min.z;
                }
                if (want != seen[j]) ok = 0;
                m += want;
            }
            if (!ok && bad++ < 5) printf("near walk differs: round %d, query %d, item %d (%d found, %d wanted)\n",
                                         round, k, id, n, m);
        }
        cl_world_free(&w);
    }
    printf("walks from a leaf up: %ld bad, %ld from a slotted leaf, %ld in the tree, %ld with the grid valid, "
           "%ld failed allocations, %ld bytes left\n", bad, up, treeup, gridded, fails, wlive);
    return bad + (up < 5000) + (treeup < 5000) + (gridded < 3000) + (fails == 0) + (wlive != 0);
}

/* The grid's queries (pgrid_query, built at once by pgrid_build) against the snapshot walk
 * (qsnap_query, top down, and for mode 3 also up from the skip item's leaf) for the same float
 * boxes, as sets: modes 0 (points), 1 (AABB query
 * boxes), 2 (a sphere) and 3 (candidates, skip left out). Scenes: unit tiles on an integer floor
 * (shared edges and corners on cell bounds), the same with outliers far off (the edge cells'
 * clamping) and a few huge tiles, 3D boxes, tiny coordinates; query boxes on integer coordinates
 * (touching tiles and cell bounds), spanning one to many cells, points on tile corners, infinite
 * and NaN boxes; stale leaves pending; growth of the result buffers failing now and then. The
 * number of bad results. */
static long grid_check(void) {
    static unsigned char seen[3][5000];
    long bad = 0, answered = 0, walked = 0, fails = 0, multi = 0, built = 0;
    int round;
    for (round = 0; round < 8; round++) {
        cl_world w;
        int i, k, nitems = 400 + 500 * (round % 4);
        double sc = round == 7 ? 1e-30 : 1;       /* tiny coordinates */
        cl_shape s;
        cl_world_init(&w, round % 2 ? 0.1 : 0, walloc, NULL);
        s.kind = CL_AABB;
        for (i = 0; i < nitems; i++) {
            double x = (double)(xs() % 60), y = (double)(xs() % 60), z = 0, ex = 1, ey = 1, ez = 1;
            if (round % 4 == 2) { z = (double)(xs() % 60); ex = 1 + (double)(xs() % 5); ez = 1 + (double)(xs() % 5); }
            if (round % 4 == 1 && i % 97 == 0) { x = 150; y = -90; }     /* outliers */
            if (round % 4 == 3 && i % 151 == 0) { ex = 12; ey = 9; }      /* huge tiles */
            s.u.aabb.min = cl_v3(x * sc, y * sc, z * sc);
            s.u.aabb.max = cl_v3((x + ex) * sc, (y + ey) * sc, (z + ez) * sc);
            cl_world_add(&w, &s);
        }
        s.u.aabb.min = s.u.aabb.max = cl_v3(0, 0, 0);
        cl_world_query(&w, &s);                      /* links the tree */
        for (i = 0; i < 3; i++)                      /* a few stale leaves */
            cl_world_translate(&w, (int)(xs() % (unsigned)nitems), cl_v3(7 * sc, 0, 0));
        settle_tree(&w);
        if (!qsnap_now(&w) || pgrid_build(&w) != CL_OK) {
            printf("grid check: round %d built no grid\n", round);
            cl_world_free(&w);
            bad++;
            continue;
        }
        built++;
        for (k = 0; k < 4000; k++) {
            int mode = (int)(xs() % 4), skip = (int)(xs() % (unsigned)nitems), n[3], v, j, ok = 1;
            double x = (double)(xs() % 64) - 2, y = (double)(xs() % 64) - 2, z = (double)(xs() % 64) - 2;
            double e = xs() % 3 == 0 ? (double)(xs() % 20) : (double)(xs() % 3) * 0.5;
            cl_aabb q;
            cl_shape qs;
            cl_vec3 p = cl_v3(0, 0, 0);
            cl_fbox fq;
            if (xs() % 2) { x += 0.25 * (double)(xs() % 4); y += 0.25 * (double)(xs() % 4); }
            q.min = cl_v3(x * sc, y * sc, z * sc);
            q.max = cl_v3((x + e) * sc, (y + e) * sc, (z + e * (xs() % 2)) * sc);
            if (mode == 3 && xs() % 2) {    /* around the skip item (a move's usual query) */
                q = w.items[skip].box;
                q.min = cl_v3(q.min.x - e * sc, q.min.y - e * sc, q.min.z - e * sc);
                q.max = cl_v3(q.max.x + e * sc, q.max.y + e * sc, q.max.z + e * sc);
            }
            if (k % 211 == 7) q.max.x = HUGE_VAL;
            if (k % 401 == 9) q.min.y = NAN;
            if (k % 13 == 1) q.min = q.max = cl_v3(-HUGE_VAL, -HUGE_VAL, -HUGE_VAL);
            qs.kind = CL_AABB;
            qs.u.aabb = q;
            if (mode == 0) {                /* a point, as cl_world_querypoint's box */
                p = q.min;
                q.max = q.min;
                q = widen(&q, 0, querypoint_tol(p));
            } else if (mode == 2) {         /* a sphere: cl_world_query's box of it */
                cl_aabb b;
                qs.kind = CL_SPHERE;
                qs.u.sphere.c = q.min;
                qs.u.sphere.r = (e + 0.5) * sc;
                b = cl_shape_aabb(&qs);
                q = widen(&b, 0, shape_tol(&qs, &b));
            } else {
                q = widen(&q, 0, box_tol(&q));
            }
            fq = fbox_of(&q);
            for (v = 0; v < (mode == 3 ? 3 : 2); v++) {     /* grid, walk down, walk up (mode 3) */
                if (v == 0 && k % 9 == 4) {     /* the result buffers grow, and that fails */
                    free_buf(&w, w.res, w.rescap, sizeof(int)); w.res = NULL; w.rescap = 0;
                    free_buf(&w, w.tmp, w.tmpcap, sizeof(int)); w.tmp = NULL; w.tmpcap = 0;
                    wfail = (long)(xs() % 2);
                }
                n[v] = v == 0 ? pgrid_query(&w, &fq, mode, p, &qs, mode == 3 ? skip : -1)
                              : qsnap_query(&w, &fq, mode, p, &qs, v == 2 ? clw_snap_leaf(&w, skip) : -1);
                wfail = -1;
                memset(seen[v], 0, sizeof seen[v]);
                for (j = 0; j < n[v]; j++) {
                    int c = mode == 3 ? w.tmp[j] : w.res[j];
                    if (c < 0 || c >= w.cap || seen[v][c] || (v == 0 && mode == 3 && c == skip)) ok = 0;
                    else seen[v][c] = 1;
                }
            }
            if (n[0] == -2) { walked++; continue; }
            if (n[0] == CL_ENOMEM) { fails++; continue; }
            answered++;
            multi += pgrid_cell(fq.lo[0], w.pgorg[0], w.pginv[0], w.pgdim[0]) !=
                     pgrid_cell(fq.hi[0], w.pgorg[0], w.pginv[0], w.pgdim[0]);
            if (mode == 3 && skip < w.cap) seen[1][skip] = seen[2][skip] = 0;   /* a walk may list it */
            if (n[1] < 0 || memcmp(seen[0], seen[1], sizeof seen[0]) != 0) ok = 0;
            if (mode == 3 && (n[2] < 0 || memcmp(seen[0], seen[2], sizeof seen[0]) != 0)) ok = 0;
            if (!ok && bad++ < 5) printf("grid query differs: round %d, query %d, mode %d (%d found, %d walked)\n",
                                         round, k, mode, n[0], n[1]);
        }
        cl_world_free(&w);
    }
    {   /* who builds it: in a World of more than PG_BUILDMAX leaves only point queries do (a
         * build is one call's pass over the leaves); a strip over many cells is the walk's */
        cl_world w;
        cl_shape s;
        int i, k, boxbuilt, pointbuilt;
        cl_fbox strip;
        cl_world_init(&w, 0.1, walloc, NULL);
        s.kind = CL_AABB;
        for (i = 0; i <= PG_BUILDMAX; i++) {  /* rows of unit tiles, none at y 40 .. 50 */
            double y = (double)(i / 200 + (i / 200 >= 40 ? 10 : 0));
            s.u.aabb.min = cl_v3((double)(i % 200), y, 0);
            s.u.aabb.max = cl_v3((double)(i % 200) + 1, y + 1, 1);
            cl_world_add(&w, &s);
        }
        for (k = 0; k < PG_BUILDMAX + 200; k++) {
            s.u.aabb.min = cl_v3((double)(k % 190), (double)(k % 80), 0);
            s.u.aabb.max = cl_v3(s.u.aabb.min.x + 2, s.u.aabb.min.y + 2, 1);
            cl_world_query(&w, &s);
            clw_collect_box(&w, &s.u.aabb, k % (PG_BUILDMAX + 1));
        }
        boxbuilt = w.pgok;
        for (k = 0; k < PG_BUILDMAX + 200; k++) cl_world_querypoint(&w, cl_v3((double)(k % 190) + 0.5, 3.5, 0.5));
        pointbuilt = w.pgok && w.pgver == w.tver;
        strip.lo[0] = 0.5f; strip.lo[1] = 45.5f; strip.lo[2] = 0.5f;     /* over empty cells */
        strip.hi[0] = 190.5f; strip.hi[1] = 45.5f; strip.hi[2] = 0.5f;
        k = pointbuilt ? pgrid_query(&w, &strip, 1, cl_v3(0, 0, 0), &s, -1) : 0;
        printf("grid of %d leaves: built by box and move queries %d, by point queries %d; a strip over %d cells: %d\n",
               PG_BUILDMAX + 1, boxbuilt, pointbuilt,
               pgrid_cell(190.5, w.pgorg[0], w.pginv[0], w.pgdim[0]) - pgrid_cell(0.5, w.pgorg[0], w.pginv[0], w.pgdim[0]) + 1, k);
        bad += boxbuilt != 0 || pointbuilt != 1 || k != -2;
        cl_world_free(&w);
    }
    printf("grid queries: %ld bad, %ld answered (%ld over several columns), %ld left to the walk, %ld failed "
           "allocations, %ld grids, %ld bytes left\n", bad, answered, multi, walked, fails, built, wlive);
    return bad + (answered < 15000) + (multi < 3000) + (walked < 300) + (fails == 0) + (wlive != 0);
}

int main(void) {
    long i, bad = 0, n = 2000000, cnt[3] = { 0, 0, 0 }, other = check_fbox(1000000) + walk_check() + near_check() +
         grid_check();
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
    printf("%s\n", bad || other ? "FAIL" : "ok");
    return bad || other;
}
