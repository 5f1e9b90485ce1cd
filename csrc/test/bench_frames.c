/* Issue 14 side by side: Box2D v3's dynamic tree (its broadphase's way of driving it) and
 * collide's World core on the same scenes, in one binary, frames and items timed one by one.
 *   1. 10,000 boxes moving every frame, all overlapping pairs every frame, 1,000 frames: the
 *      time of every frame (motion + telling the tree + pairs), median, p99, worst.
 *   2. Inserting 100,000 boxes one by one (per item).
 *   3. Closest raycast and box query among those 100,000 boxes.
 * Box2D's tree is 2D, so the shared scenes are 2D: collide gets the same boxes with every z
 * extent [0, 1] (flat), rays and queries with z inside that slab; both sides must find the same
 * pair counts, hits and query counts (checked and printed). Scene 1 also runs collide on the 3D
 * scene of bench/world.lua (not comparable with Box2D; the one the Lua rows measure).
 * Box2D is driven as its broadphase drives its dynamic tree each step: a moved proxy whose
 * tight box left its fat box gets a new fat box (margin 0.1, the World's) through
 * b2DynamicTree_EnlargeProxy and joins the move buffer; then b2DynamicTree_Rebuild(tree, false)
 * (partial rebuild of the enlarged nodes); then a tree query per moved proxy adds the new pairs
 * to a persistent pair set (hash set, Box2D's pair keys); then the contact pass drops pairs whose
 * fat boxes no longer overlap and lists those whose tight boxes overlap (Box2D's narrowphase
 * would run there). collide: cl_world_translate per box, then cl_world_pairs (sorted list).
 * The frames of the scenes are interleaved (frame f of each scene in turn, order rotated), CPU
 * time of this thread. Build: see bench/run.sh (-DHAVE_BOX2D and Box2D's objects when
 * ../shared/peers/box2d-v3 exists; without it only collide's columns are measured).
 * Writes the tables to stdout and, as markdown, to argv[1]. BENCH_FRAMES_N overrides 1,000;
 * BENCH_FRAMES_TRACE=path writes a per-frame trace of collide's 2D scene (CPU and wall time, the
 * tree upkeep of the frame); BENCH_FRAMES_PASSES (default 5) runs the moving-boxes frames that many times for the
 * noise-filtered rows (each frame's least time); BENCH_FRAMES_ONLY=1 stops after the moving-boxes scenes;
 * BENCH_FRAMES_MEMORY=1 prints only the memory rows (bytes per item at 100,000 and 1,000,000);
 * BENCH_FRAMES_STATIC=1 runs only part 2-3 (insertion, raycast, box query) and prints the ratios
 * (=ray: one insertion round, for the rays and queries). */
#define _POSIX_C_SOURCE 199309L
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "world.h"
#include "bench_common.h"

#ifdef HAVE_BOX2D
#include "box2d/collision.h"
#include "box2d/math_functions.h"
#include "box2d/types.h"
#endif

/* Returns a block from the C heap with lua_Alloc's contract, counting the live bytes. */
static size_t live_bytes;
static void *balloc(void *ud, void *p, size_t osize, size_t nsize) {
    void *q;
    (void)ud;
    if (nsize == 0) {
        if (p) live_bytes -= osize;
        free(p);
        return NULL;
    }
    q = realloc(p, nsize);
    if (q) live_bytes += nsize - (p ? osize : 0);
    return q;
}

/* Returns the CPU time of this thread in seconds. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Returns the wall-clock time in seconds (beside CPU time in the trace: a frame whose wall time
 * is far above its CPU time was preempted, not slow). */
static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Returns the minor page faults of this process so far (the trace's per-frame column: a first
 * touch of freshly mapped memory costs a fault that no instruction count shows). */
static long minflt(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* Per-frame trace of collide's 2D scene (BENCH_FRAMES_TRACE=path): frame, CPU ms, wall ms, pairs,
 * the tree upkeep the frame ran ("-": none; "rebuild": a call of an incremental rebuild under way,
 * a slice of the build or a phase of its install; "install": the call that installed it). */
static FILE *trace;

/* The trace's upkeep column: CPU ms spent in the tree's upkeep calls of the frame (a slice of a
 * rebuild, its start, its install, the frees after it), measured apart from the rest of the frame
 * when the bench is linked with -Wl,--wrap=clw_tree_step,--wrap=clw_tree_upkeep,
 * --wrap=clw_tree_release and -DBENCH_WRAP_UPKEEP (the wrappers time the real calls; -1
 * otherwise). Only the 2D collide scene's frames are traced, so only its world is timed. */
static double upkeep_ms;
static const cl_world *upkeep_world;
#ifdef BENCH_WRAP_UPKEEP
void __real_clw_tree_step(cl_world *w);
void __real_clw_tree_upkeep(cl_world *w);
void __real_clw_tree_release(cl_world *w);
void __wrap_clw_tree_step(cl_world *w);
void __wrap_clw_tree_upkeep(cl_world *w);
void __wrap_clw_tree_release(cl_world *w);
void __wrap_clw_tree_step(cl_world *w) {
    double t0 = now();
    __real_clw_tree_step(w);
    if (w == upkeep_world) upkeep_ms += (now() - t0) * 1e3;
}
void __wrap_clw_tree_upkeep(cl_world *w) {
    double t0 = now();
    __real_clw_tree_upkeep(w);
    if (w == upkeep_world) upkeep_ms += (now() - t0) * 1e3;
}
void __wrap_clw_tree_release(cl_world *w) {
    double t0 = now();
    __real_clw_tree_release(w);
    if (w == upkeep_world) upkeep_ms += (now() - t0) * 1e3;
}
#endif

static int dcmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Frame statistics of n per-frame times (ms): median, p99, worst, mean (the list is sorted). */
typedef struct fstats {
    double med, p99, worst, mean;
} fstats;
static fstats fstats_of(double *v, int n) {
    fstats s;
    int i;
    double sum = 0;
    for (i = 0; i < n; i++) sum += v[i];
    qsort(v, (size_t)n, sizeof *v, dcmp);
    s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.p99 = v[(int)ceil(0.99 * n) - 1];
    s.worst = v[n - 1];
    s.mean = sum / n;
    return s;
}

/* Returns the median of n values (sorts them). */
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, dcmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- scene 1: moving boxes ---- */

#define NP 10000
#define MARGIN 0.1

/* The boxes of a moving scene: tight boxes kept by translation (as cl_shape_translate does),
 * velocities, the box centre's bounds. */
typedef struct mscene {
    double lo[3][NP], hi[3][NP], c[3][NP], v[3][NP];
    double side[3];
    int dims;
} mscene;

/* Fills s from bench/world.lua's scene 3 stream (rng 23; side 100): 3D as is, or 2D with x and
 * y scaled by 5 (so each box meets about as many others as in 3D) and every z extent [0, 1]. */
static void mscene_make(mscene *s, int dims) {
    lrng g = lrng_new(23);
    int i, k;
    s->dims = dims;
    for (i = 0; i < NP; i++) {
        double p[3], h[3], vv[3];
        lscene_box(&g, 100, p, h, vv);
        for (k = 0; k < 3; k++) {
            double sc = (dims == 2 && k < 2) ? 5 : 1;
            s->c[k][i] = p[k] * sc;
            s->lo[k][i] = p[k] * sc - h[k];
            s->hi[k][i] = p[k] * sc + h[k];
            s->v[k][i] = vv[k];
        }
        if (dims == 2) { s->lo[2][i] = 0; s->hi[2][i] = 1; s->c[2][i] = 0.5; s->v[2][i] = 0; }
    }
    for (k = 0; k < 3; k++) s->side[k] = (dims == 2 && k < 2) ? 500 : 100;
}

/* Moves box i by its velocity (bouncing off the sides, as bench/world.lua); returns the offset. */
static cl_vec3 mscene_step(mscene *s, int i) {
    double d[3];
    int k;
    for (k = 0; k < s->dims; k++) {
        double x;
        d[k] = s->v[k][i];
        x = s->c[k][i] + d[k];
        if (x < 0 || x > s->side[k]) { d[k] = -d[k]; s->v[k][i] = d[k]; x = s->c[k][i] + d[k]; }
        s->c[k][i] = x;
        s->lo[k][i] += d[k];
        s->hi[k][i] += d[k];
    }
    if (s->dims == 2) d[2] = 0;
    return cl_v3(d[0], d[1], d[2]);
}

/* collide on a moving scene. */
typedef struct cside {
    mscene *s;
    cl_world w;
    int ids[NP];
} cside;

static void cside_init(cside *c, mscene *s) {
    int i;
    c->s = s;
    cl_world_init(&c->w, MARGIN, balloc, NULL);
    for (i = 0; i < NP; i++) {
        cl_shape sh;
        sh.kind = CL_AABB;
        sh.u.aabb.min = cl_v3(s->lo[0][i], s->lo[1][i], s->lo[2][i]);
        sh.u.aabb.max = cl_v3(s->hi[0][i], s->hi[1][i], s->hi[2][i]);
        c->ids[i] = cl_world_add(&c->w, &sh);
    }
}

/* One frame: every box moves and is told to the world, then cl_world_pairs; the pair count. */
static int cside_frame(cside *c) {
    int i;
    for (i = 0; i < NP; i++) cl_world_translate(&c->w, c->ids[i], mscene_step(c->s, i));
    return cl_world_pairs(&c->w);
}

#ifdef HAVE_BOX2D
/* Box2D's tree on a 2D moving scene, with the broadphase's move buffer and pair set. */
typedef struct bside {
    mscene *s;
    b2DynamicTree tree;
    int proxy[NP];
    b2AABB fat[NP];
    unsigned char moved[NP];
    int move[NP], nmove;
    unsigned long long *hk; int *hv; int hcap;     /* pair key -> index in cp (linear probing) */
    int (*cp)[2]; int ncp, cpcap;                  /* the pair set: both fat boxes overlap */
    int *res; int rescap;                          /* this frame's pairs (tight boxes overlap) */
    int qi;                                        /* proxy being queried */
} bside;

/* Returns the float box of box i grown by m (outward rounding is not needed: the tight test
 * that decides a pair is done in double on the scene's boxes). */
static b2AABB bbox(const mscene *s, int i, double m) {
    b2AABB b;
    b.lowerBound.x = (float)(s->lo[0][i] - m);
    b.lowerBound.y = (float)(s->lo[1][i] - m);
    b.upperBound.x = (float)(s->hi[0][i] + m);
    b.upperBound.y = (float)(s->hi[1][i] + m);
    return b;
}

static unsigned long long pkey(int a, int b) {
    return a < b ? ((unsigned long long)a << 32) | (unsigned)b : ((unsigned long long)b << 32) | (unsigned)a;
}
static unsigned hslot(unsigned long long k, int cap) {
    k *= 0x9E3779B97F4A7C15ULL;
    return (unsigned)(k >> 32) & (unsigned)(cap - 1);
}

/* Returns the slot of key k, or the empty slot where it would go. */
static int hfind(const bside *b, unsigned long long k) {
    unsigned i = hslot(k, b->hcap);
    while (b->hv[i] >= 0 && b->hk[i] != k) i = (i + 1) & (unsigned)(b->hcap - 1);
    return (int)i;
}

/* Removes the entry in slot i (backward-shift deletion). */
static void hdel(bside *b, int i) {
    unsigned m = (unsigned)(b->hcap - 1), j = (unsigned)i;
    b->hv[i] = -1;
    for (;;) {
        unsigned h;
        j = (j + 1) & m;
        if (b->hv[j] < 0) return;
        h = hslot(b->hk[j], b->hcap);
        if (((j - h) & m) >= ((j - (unsigned)i) & m)) {
            b->hk[i] = b->hk[j];
            b->hv[i] = b->hv[j];
            b->hv[j] = -1;
            i = (int)j;
        }
    }
}

/* Adds pair (a, b) to the set unless it is there (room is reserved by the caller). */
static void padd(bside *b, int x, int y) {
    unsigned long long k = pkey(x, y);
    int i = hfind(b, k);
    if (b->hv[i] >= 0) return;
    if (b->ncp == b->cpcap) {
        b->cpcap *= 2;
        b->cp = realloc(b->cp, (size_t)b->cpcap * sizeof *b->cp);
    }
    if (2 * (b->ncp + 1) > b->hcap) {          /* keep the load at most 1/2: rehash */
        int oc = b->hcap, j;
        unsigned long long *ok = b->hk;
        int *ov = b->hv;
        b->hcap *= 2;
        b->hk = malloc((size_t)b->hcap * sizeof *b->hk);
        b->hv = malloc((size_t)b->hcap * sizeof *b->hv);
        for (j = 0; j < b->hcap; j++) b->hv[j] = -1;
        for (j = 0; j < oc; j++)
            if (ov[j] >= 0) {
                int s = hfind(b, ok[j]);
                b->hk[s] = ok[j];
                b->hv[s] = ov[j];
            }
        free(ok);
        free(ov);
        i = hfind(b, k);
    }
    b->hk[i] = k;
    b->hv[i] = b->ncp;
    b->cp[b->ncp][0] = x < y ? x : y;
    b->cp[b->ncp][1] = x < y ? y : x;
    b->ncp++;
}

/* Box2D's pair query callback: every proxy whose fat box overlaps the moved one's, each pair of
 * two moved proxies once. */
static bool bquery_cb(int proxyId, uint64_t userData, void *ctx) {
    bside *b = (bside *)ctx;
    int j = (int)userData, i = b->qi;
    (void)proxyId;
    if (j == i) return true;
    if (b->moved[j] && j < i) return true;     /* the query of j finds (j, i) */
    padd(b, i, j);
    return true;
}

static void bside_init(bside *b, mscene *s) {
    int i;
    memset(b, 0, sizeof *b);
    b->s = s;
    b->tree = b2DynamicTree_Create(NP);
    for (i = 0; i < NP; i++) {
        b->fat[i] = bbox(s, i, MARGIN);
        b->proxy[i] = b2DynamicTree_CreateProxy(&b->tree, b->fat[i], B2_DEFAULT_CATEGORY_BITS, (uint64_t)i);
        b->moved[i] = 1;
        b->move[b->nmove++] = i;
    }
    b->hcap = 1 << 16;
    b->hk = malloc((size_t)b->hcap * sizeof *b->hk);
    b->hv = malloc((size_t)b->hcap * sizeof *b->hv);
    for (i = 0; i < b->hcap; i++) b->hv[i] = -1;
    b->cpcap = 1 << 14;
    b->cp = malloc((size_t)b->cpcap * sizeof *b->cp);
    b->rescap = 1 << 14;
    b->res = malloc((size_t)b->rescap * 2 * sizeof *b->res);
}

/* Returns 1 if boxes a and b of the scene overlap (inclusive, double). */
static int toverlap(const mscene *s, int a, int b) {
    return s->lo[0][a] <= s->hi[0][b] && s->lo[0][b] <= s->hi[0][a] &&
           s->lo[1][a] <= s->hi[1][b] && s->lo[1][b] <= s->hi[1][a];
}

/* Finds the pairs after the moves: partial rebuild, queries of the moved proxies, contact pass.
 * Returns the number of pairs whose tight boxes overlap (listed in b->res). */
static int bside_pairs(bside *b) {
    int k, n = 0;
    b2DynamicTree_Rebuild(&b->tree, false);
    for (k = 0; k < b->nmove; k++) {
        b->qi = b->move[k];
        b2DynamicTree_Query(&b->tree, b->fat[b->qi], B2_DEFAULT_MASK_BITS, bquery_cb, b);
    }
    for (k = 0; k < b->nmove; k++) b->moved[b->move[k]] = 0;
    b->nmove = 0;
    for (k = 0; k < b->ncp;) {
        int x = b->cp[k][0], y = b->cp[k][1];
        if (!b2AABB_Overlaps(b->fat[x], b->fat[y])) {       /* contact ends: swap-remove */
            int last = b->ncp - 1;
            hdel(b, hfind(b, pkey(x, y)));
            if (k != last) {
                b->cp[k][0] = b->cp[last][0];
                b->cp[k][1] = b->cp[last][1];
                b->hv[hfind(b, pkey(b->cp[k][0], b->cp[k][1]))] = k;
            }
            b->ncp--;
            continue;
        }
        if (toverlap(b->s, x, y)) {
            if (n == b->rescap) {
                b->rescap *= 2;
                b->res = realloc(b->res, (size_t)b->rescap * 2 * sizeof *b->res);
            }
            b->res[2 * n] = x;
            b->res[2 * n + 1] = y;
            n++;
        }
        k++;
    }
    return n;
}

/* One frame: every box moves; those that left their fat box get a new one (enlarge, move
 * buffer); then the pairs. */
static int bside_frame(bside *b) {
    int i;
    for (i = 0; i < NP; i++) {
        b2AABB t;
        mscene_step(b->s, i);
        t = bbox(b->s, i, 0);
        if (!b2AABB_Contains(b->fat[i], t)) {
            b->fat[i] = bbox(b->s, i, MARGIN);
            b2DynamicTree_EnlargeProxy(&b->tree, b->proxy[i], b->fat[i]);
            if (!b->moved[i]) { b->moved[i] = 1; b->move[b->nmove++] = i; }
        }
    }
    return bside_pairs(b);
}

static void bside_free(bside *b) {
    b2DynamicTree_Destroy(&b->tree);
    free(b->hk); free(b->hv); free(b->cp); free(b->res);
}
#endif

static void frames_row(const char *label, double *ms, int nf, double pairs) {
    fstats s = fstats_of(ms, nf);
    out("| %s | %.3f | %.3f | %.3f | %.2f | %.3f | %.0f |", label, s.med, s.p99, s.worst,
        s.worst / s.med, s.mean, pairs / nf);
}

/* Frees a pass's two collide Worlds and Box2D's side (bb: a bside, unused without Box2D). */
static void frames_free(cside *c2, cside *c3, void *bb) {
#ifdef HAVE_BOX2D
    bside_free((bside *)bb);
#else
    (void)bb;
#endif
    cl_world_free(&c2->w);
    cl_world_free(&c3->w);
}

#ifdef HAVE_BOX2D
#define B2SIDE (&b2)
#define B2TIMES t_b2
#else
#define B2SIDE NULL
#define B2TIMES NULL
#endif

/* Reads (wr 0) or writes (wr 1) the n bytes at p through pipe end fd; exits on an error. */
static void pipe_io(int fd, void *p, size_t n, int wr) {
    char *c = (char *)p;
    while (n > 0) {
        ssize_t k = wr ? write(fd, c, n) : read(fd, c, n);
        if (k <= 0) {
            perror("bench-frames: pipe");
            exit(1);
        }
        c += k;
        n -= (size_t)k;
    }
}

/* A pass's answer through pipe end fd, read by the parent (wr 0) or written by the child (wr 1):
 * the nf frame times of each scene (tb2 NULL without Box2D), the three pair totals, the
 * collide / Box2D mismatches. */
static void pass_io(int fd, int wr, int nf, double *tc2, double *tc3, double *tb2, double *tot, long *mism) {
    pipe_io(fd, tc2, (size_t)nf * sizeof(double), wr);
    pipe_io(fd, tc3, (size_t)nf * sizeof(double), wr);
    if (tb2) pipe_io(fd, tb2, (size_t)nf * sizeof(double), wr);
    pipe_io(fd, tot, 3 * sizeof(double), wr);
    pipe_io(fd, mism, sizeof *mism, wr);
}

/* Scene 1, in npass passes (each the same frames from a new scene: the same work frame by frame).
 * Returns through *col2 / *box2 / *col3 the first pass's statistics (ms) and through *l2 / *l3 /
 * *lb2 those of the least time of each frame over the passes (the noise filter) for the verdicts
 * (box2->med and lb2->med -1 without Box2D). */
static void bench_frames(int nf, int npass, fstats *col2, fstats *box2, fstats *col3, fstats *l2, fstats *l3,
                         fstats *lb2) {
    static mscene s2c, s2b, s3;
    static cside c2, c3;
    static double t_c2[100000], t_c3[100000], m_c2[100000], m_c3[100000];
    double pc2 = 0, pc3 = 0, w0[3] = {0, 0, 0};
    int f, k, pass;
#ifdef HAVE_BOX2D
    static double t_b2[100000], m_b2[100000];
    static bside b2;
    double pb2 = 0;
    long mism = 0;
#endif
    double p0[3] = {0, 0, 0};
    long pmism = 0, badpass = 0;
    for (pass = 0; pass < npass; pass++) {
    FILE *tr = trace;
    int fd[2];
    pid_t pid;
    /* every pass in a child process of its own, forked before any pass ran: each starts as a
     * fresh process does (no heap a former pass freed, no warm caches of its blocks), so a first
     * run's page faults are in every pass and the least of the passes filters only the machine */
    fflush(NULL);
    if (pipe(fd) != 0 || (pid = fork()) < 0) {
        perror("bench-frames: pipe/fork");
        exit(1);
    }
    if (pid > 0) {
        double tot[3];
        long mm;
        int st;
        close(fd[1]);
        pass_io(fd[0], 0, nf, t_c2, t_c3, B2TIMES, tot, &mm);
        if (pass == 0) {
            pipe_io(fd[0], col2, sizeof *col2, 0);
            pipe_io(fd[0], col3, sizeof *col3, 0);
            pipe_io(fd[0], box2, sizeof *box2, 0);
        }
        close(fd[0]);
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench-frames: pass %d failed\n", pass);
            exit(1);
        }
        for (f = 0; f < nf; f++) {      /* the least time of each frame so far */
            m_c2[f] = pass == 0 || t_c2[f] < m_c2[f] ? t_c2[f] : m_c2[f];
            m_c3[f] = pass == 0 || t_c3[f] < m_c3[f] ? t_c3[f] : m_c3[f];
#ifdef HAVE_BOX2D
            m_b2[f] = pass == 0 || t_b2[f] < m_b2[f] ? t_b2[f] : m_b2[f];
#endif
        }
        if (pass == 0) memcpy(p0, tot, sizeof p0);
        else if (memcmp(p0, tot, sizeof p0) != 0) badpass++;   /* the same work in every pass */
        pmism += mm;
        continue;
    }
    close(fd[0]);
    if (pass > 0) trace = NULL;     /* the trace shows the first pass */
    mscene_make(&s2c, 2);
    mscene_make(&s2b, 2);
    mscene_make(&s3, 3);
    cside_init(&c2, &s2c);
    cside_init(&c3, &s3);
    cl_world_pairs(&c2.w);
    cl_world_pairs(&c3.w);
#ifdef HAVE_BOX2D
    bside_init(&b2, &s2b);
    bside_pairs(&b2);
#endif
    /* frame 0, timed apart: every box moves for the first time, so collide gives all 10,000
     * leaves (tight since their add) their first fat boxes and queries their pairs (Box2D's
     * proxies were made fat at creation, in the untimed setup) */
    {
        double t0 = now();
        int n0 = cside_frame(&c2);
        w0[0] = (now() - t0) * 1e3;
        t0 = now();
        cside_frame(&c3);
        w0[1] = (now() - t0) * 1e3;
#ifdef HAVE_BOX2D
        t0 = now();
        if (bside_frame(&b2) != n0) mism++;
        w0[2] = (now() - t0) * 1e3;
#else
        (void)n0;
#endif
    }
    for (f = 0; f < nf; f++) {
        int nc = -1, nb = -1;
        for (k = 0; k < 3; k++) {
            int which = (k + f) % 3;
            double t0 = now(), dt;
            if (which == 0) {
                double w0 = wall();
                long mf0 = trace ? minflt() : 0;
                int bld0 = c2.w.tree.bld != NULL;
                upkeep_world = &c2.w;
                upkeep_ms = 0;
                nc = cside_frame(&c2);
                dt = now() - t0;
                t_c2[f] = dt * 1e3;
                pc2 += nc;
                if (trace) {
                    /* upkeep label: "start" (a rebuild began), "rN" (its Nth call), "install",
                     * "after" (the frame after an install: it frees the replaced blocks) */
                    static int call, inst;
                    char lab[32];
                    if (bld0 && c2.w.tree.bld == NULL) strcpy(lab, "install");
                    else if (!bld0 && c2.w.tree.bld) strcpy(lab, "start"), call = 0;
                    else if (c2.w.tree.bld) sprintf(lab, "r%d", ++call);
                    else strcpy(lab, inst ? "after" : "-");
                    inst = bld0 && c2.w.tree.bld == NULL;
#ifdef BENCH_WRAP_UPKEEP
                    double um = upkeep_ms;
#else
                    double um = -1;
#endif
                    fprintf(trace, "%d %.4f %.4f %d %ld %s %.4f\n", f, dt * 1e3, (wall() - w0) * 1e3, nc,
                            minflt() - mf0, lab, um);
                }
            } else if (which == 1) {
                int n = cside_frame(&c3);
                dt = now() - t0;
                t_c3[f] = dt * 1e3;
                pc3 += n;
            } else {
#ifdef HAVE_BOX2D
                nb = bside_frame(&b2);
                dt = now() - t0;
                t_b2[f] = dt * 1e3;
                pb2 += nb;
#endif
            }
        }
#ifdef HAVE_BOX2D
        if (nb != nc) mism++;
#else
        (void)nb;
#endif
    }
    trace = tr;
    {   /* the child's answer: its times (before the rows sort them), pair totals, mismatches */
        double tot[3];
#ifndef HAVE_BOX2D
        long mism = 0;
        double pb2 = 0;
#endif
        tot[0] = pc2; tot[1] = pc3; tot[2] = pb2;
        pass_io(fd[1], 1, nf, t_c2, t_c3, B2TIMES, tot, &mism);
    }
    if (pass > 0) {
        close(fd[1]);
        frames_free(&c2, &c3, B2SIDE);
        fflush(NULL);
        _exit(0);
    }
    out("#### 10,000 boxes moving every frame, all overlapping pairs every frame, %d frames (C)", nf);
    out("");
    out("The first frame after the adds (every box's first move) is timed apart and not in the rows: collide");
    out("%.3f ms (2D), %.3f ms (3D): all leaves get their first fat box (tight since their add) and are", w0[0], w0[1]);
    out("queried for pairs; Box2D %.3f ms (its proxies were made fat at creation, in the untimed setup).", w0[2]);
    out("");
    out("Every frame: each box moves by its velocity and is told to the tree, then all overlapping pairs");
    out("are listed. Time of each whole frame (motion included), CPU time of this thread; the scenes' frames");
    out("interleaved. 2D scene: bench/world.lua's boxes (rng 23) with x, y scaled by 5 and z flat. Box2D:");
    out("enlarge moved proxies (margin 0.1), b2DynamicTree_Rebuild(false), query the moved proxies into a");
    out("persistent pair set, contact pass (drop pairs whose fat boxes separated, list the tight overlaps,");
    out("unsorted); collide: cl_world_translate per box, cl_world_pairs (sorted list).");
    out("");
    out("| scene, library | median ms | p99 ms | worst ms | worst / median | mean ms | pairs per frame |");
    out("|---|---:|---:|---:|---:|---:|---:|");
    *col2 = fstats_of(t_c2, nf);
    *col3 = fstats_of(t_c3, nf);
    frames_row("2D scene, collide", t_c2, nf, pc2);
#ifdef HAVE_BOX2D
    *box2 = fstats_of(t_b2, nf);
    frames_row("2D scene, Box2D v3 tree", t_b2, nf, pb2);
#else
    box2->med = -1;
#endif
    frames_row("3D scene of bench/world.lua, collide", t_c3, nf, pc3);
    out("");
#ifdef HAVE_BOX2D
    out("Cross-check: collide and Box2D listed the same number of pairs in %d of %d frames%s.",
        nf + 1 - (int)mism, nf + 1, mism ? " (**MISMATCH**)" : "");
    out("");
#endif
    pipe_io(fd[1], col2, sizeof *col2, 1);
    pipe_io(fd[1], col3, sizeof *col3, 1);
    pipe_io(fd[1], box2, sizeof *box2, 1);
    close(fd[1]);
    frames_free(&c2, &c3, B2SIDE);
    fflush(NULL);
    _exit(0);
    }
    *l2 = fstats_of(m_c2, nf);
    *l3 = fstats_of(m_c3, nf);
#ifdef HAVE_BOX2D
    *lb2 = fstats_of(m_b2, nf);
#else
    lb2->med = -1;
#endif
    out("Noise filtered: the same %d frames in %d passes, each in a new process (forked before any pass", nf, npass);
    out("ran), so frame f does the same work and meets the same fresh memory in every pass; each frame's");
    out("least time over the passes (the machine's noise only adds time; a cost of the library's own, such");
    out("as a tree rebuild's slice or a first run's page faults, lands in the same frame in every pass).");
    out("Every pass listed the same pairs as the first%s; collide and Box2D agreed in every frame of %s.",
        badpass ? " **except in some passes (MISMATCH)**" : "", pmism ? "**not every pass (MISMATCH)**" : "every pass");
    out("");
    out("| scene, library, least of %d passes | median ms | p99 ms | worst ms | worst / median |", npass);
    out("|---|---:|---:|---:|---:|");
    out("| 2D scene, collide | %.3f | %.3f | %.3f | %.2f |", l2->med, l2->p99, l2->worst, l2->worst / l2->med);
#ifdef HAVE_BOX2D
    out("| 2D scene, Box2D v3 tree | %.3f | %.3f | %.3f | %.2f |", lb2->med, lb2->p99, lb2->worst,
        lb2->worst / lb2->med);
#endif
    out("| 3D scene, collide | %.3f | %.3f | %.3f | %.2f |", l3->med, l3->p99, l3->worst, l3->worst / l3->med);
    out("");
}

/* ---- scenes 2 and 3: 100,000 static boxes ---- */

#define NB 100000
#define NQ 1024
#define SC 13.5

static double blo[2][NB], bhi[2][NB];
static double rox[NQ], roy[NQ], rdx[NQ], rdy[NQ];
static double qlo[2][NQ], qhi[2][NQ];

/* bench/world.lua's 100,000 boxes (rng 7, [0,1000]^3, half sizes 0.5..5) on x and y with the
 * centres scaled by SC (a ray then crosses about as many boxes per unit length as in the 3D
 * scene; unscaled, 2D boxes cover the plane about 3 times over and nearly every ray starts
 * inside one), its 1024 rays (rng 11, origins scaled alike, z direction dropped), and 1024 query
 * boxes (rng 13: centres in the scaled square, half sizes 10..100). */
static void bscene_make(void) {
    lrng g = lrng_new(7), gr = lrng_new(11), gq = lrng_new(13);
    int i;
    for (i = 0; i < NB; i++) {
        double cx = luni(&g, 0, 1000) * SC, cy = luni(&g, 0, 1000) * SC, hx, hy;
        luni(&g, 0, 1000);
        hx = luni(&g, 0.5, 5); hy = luni(&g, 0.5, 5);
        luni(&g, 0.5, 5);
        blo[0][i] = cx - hx; bhi[0][i] = cx + hx;
        blo[1][i] = cy - hy; bhi[1][i] = cy + hy;
    }
    for (i = 0; i < NQ; i++) {
        rox[i] = luni(&gr, 0, 1000) * SC; roy[i] = luni(&gr, 0, 1000) * SC; luni(&gr, 0, 1000);
        rdx[i] = luni(&gr, -1, 1); rdy[i] = luni(&gr, -1, 1); luni(&gr, -1, 1);
        if (rdx[i] == 0 && rdy[i] == 0) rdx[i] = 1;
    }
    for (i = 0; i < NQ; i++) {
        double cx = luni(&gq, 0, 1000) * SC, cy = luni(&gq, 0, 1000) * SC;
        double hx = luni(&gq, 10, 100), hy = luni(&gq, 10, 100);
        qlo[0][i] = cx - hx; qhi[0][i] = cx + hx;
        qlo[1][i] = cy - hy; qhi[1][i] = cy + hy;
    }
}

static cl_shape cbox(int i) {
    cl_shape s;
    s.kind = CL_AABB;
    s.u.aabb.min = cl_v3(blo[0][i], blo[1][i], 0);
    s.u.aabb.max = cl_v3(bhi[0][i], bhi[1][i], 1);
    return s;
}

/* Entry distance of ray (ox, oy) + t (dx, dy), t >= 0, into box i (slabs, inclusive); -1 if
 * it misses. t is in units of the direction's length. */
static double slab(int i, double ox, double oy, double dx, double dy) {
    double t0 = 0, t1 = HUGE_VAL;
    double o[2], d[2];
    int k;
    o[0] = ox; o[1] = oy; d[0] = dx; d[1] = dy;
    for (k = 0; k < 2; k++) {
        if (d[k] == 0) {
            if (o[k] < blo[k][i] || o[k] > bhi[k][i]) return -1;
        } else {
            double a = (blo[k][i] - o[k]) / d[k], b = (bhi[k][i] - o[k]) / d[k];
            if (a > b) { double x = a; a = b; b = x; }
            if (a > t0) t0 = a;
            if (b < t1) t1 = b;
        }
    }
    return t0 <= t1 ? t0 : -1;
}

#ifdef HAVE_BOX2D
typedef struct bray {
    int ray, best, nq;
    double bt, len;     /* best entry distance (direction units); translation = len * direction */
} bray;

/* Box2D ray callback: exact test on the tight box, clip the ray at the closest hit (ties: the
 * lower index, as collide's add order). */
static float bray_cb(const b2RayCastInput *in, int proxyId, uint64_t userData, void *ctx) {
    bray *r = (bray *)ctx;
    int i = (int)userData;
    double t = slab(i, rox[r->ray], roy[r->ray], rdx[r->ray], rdy[r->ray]);
    (void)proxyId;
    if (t < 0) return in->maxFraction;
    if (r->best < 0 || t < r->bt || (t == r->bt && i < r->best)) { r->bt = t; r->best = i; }
    /* keep equal-t boxes in reach (0 would end the cast) */
    return (float)(r->bt / r->len) * (1 + 1e-6f) + 1e-30f;
}

/* Casts ray i through Box2D's tree bt as its broadphase does (the ray's 3000 * SC reach): the
 * closest box in c->best (-1 for none). */
static void bray_cast(b2DynamicTree *bt, int i, bray *c) {
    b2RayCastInput in;
    c->ray = i; c->best = -1; c->bt = 0; c->nq = 0;
    c->len = 3000 * SC / sqrt(rdx[i] * rdx[i] + rdy[i] * rdy[i]);
    in.origin.x = (float)rox[i]; in.origin.y = (float)roy[i];
    in.translation.x = (float)(rdx[i] * c->len); in.translation.y = (float)(rdy[i] * c->len);
    in.maxFraction = 1;
    b2DynamicTree_RayCast(bt, &in, B2_DEFAULT_MASK_BITS, bray_cb, c);
}

static bool bbq_cb(int proxyId, uint64_t userData, void *ctx) {
    bray *r = (bray *)ctx;
    int i = (int)userData, q = r->ray;
    (void)proxyId;
    if (blo[0][i] <= qhi[0][q] && qlo[0][q] <= bhi[0][i] && blo[1][i] <= qhi[1][q] && qlo[1][q] <= bhi[1][i])
        r->nq++;
    return true;
}
#endif

/* Scenes 2 and 3. */
static void bench_static(double *ins_ratio, double *ray_ratio, double *q_ratio) {
    enum { ROUNDS = 9 };
    double ins_c[ROUNDS], ins_q[ROUNDS], ins_t[ROUNDS], ins_b[ROUNDS], ray_c[ROUNDS], ray_b[ROUNDS], q_c[ROUNDS], q_b[ROUNDS];
    double rr[ROUNDS], qr[ROUNDS], ir[ROUNDS];
    int chit[NQ], cnt_c = 0, cnt_b = 0, same = 0, nh_c = 0, nh_b = 0;
    int r, i, reps = 4, brute = 0;
    cl_world w;
#ifdef HAVE_BOX2D
    b2DynamicTree bt;
    int bhit[NQ];
#endif
    const char *only = getenv("BENCH_FRAMES_STATIC");
    const int rayonly = only != NULL && strcmp(only, "ray") == 0;
    bscene_make();
    /* insertion: fresh trees every round, interleaved (BENCH_FRAMES_STATIC=ray: one round, its
     * numbers copied to the others, to time the rays and queries quickly) */
    for (r = rayonly ? ROUNDS - 1 : 0; r < ROUNDS; r++) {
        double t0;
        cl_tree t;
        cl_world_init(&w, MARGIN, balloc, NULL);
        t0 = now();
        for (i = 0; i < NB; i++) {
            cl_shape s = cbox(i);
            cl_world_add(&w, &s);
        }
        ins_c[r] = (now() - t0) * 1e9 / NB;
        {
            cl_shape q = cbox(0);       /* the first query links the pending leaves */
            cl_world_query(&w, &q);
        }
        ins_q[r] = (now() - t0) * 1e9 / NB;
        cl_world_free(&w);
        cl_tree_init(&t, balloc, NULL);
        t0 = now();
        for (i = 0; i < NB; i++) {
            cl_aabb b;
            b.min = cl_v3(blo[0][i], blo[1][i], 0);
            b.max = cl_v3(bhi[0][i], bhi[1][i], 1);
            cl_tree_insert(&t, &b, i);
        }
        ins_t[r] = (now() - t0) * 1e9 / NB;
        cl_tree_free(&t);
#ifdef HAVE_BOX2D
        bt = b2DynamicTree_Create(16);
        t0 = now();
        for (i = 0; i < NB; i++) {
            b2AABB b;
            b.lowerBound.x = (float)blo[0][i]; b.lowerBound.y = (float)blo[1][i];
            b.upperBound.x = (float)bhi[0][i]; b.upperBound.y = (float)bhi[1][i];
            b2DynamicTree_CreateProxy(&bt, b, B2_DEFAULT_CATEGORY_BITS, (uint64_t)i);
        }
        ins_b[r] = (now() - t0) * 1e9 / NB;
        ir[r] = ins_q[r] / ins_b[r];
        if (r < ROUNDS - 1) b2DynamicTree_Destroy(&bt);
#else
        ins_b[r] = ir[r] = -1;
#endif
    }
    for (r = 0; rayonly && r < ROUNDS - 1; r++) {
        ins_c[r] = ins_c[ROUNDS - 1]; ins_q[r] = ins_q[ROUNDS - 1]; ins_t[r] = ins_t[ROUNDS - 1];
        ins_b[r] = ins_b[ROUNDS - 1]; ir[r] = ir[ROUNDS - 1];
    }
    /* the last round's trees stay for the queries */
    cl_world_init(&w, MARGIN, balloc, NULL);
    for (i = 0; i < NB; i++) {
        cl_shape s = cbox(i);
        cl_world_add(&w, &s);
    }
#ifdef HAVE_BOX2D
    b2DynamicTree_Rebuild(&bt, true);
#endif
    /* one untimed pass each (collide's first query builds its tree and snapshots), checks */
    for (i = 0; i < NQ; i++) {
        cl_ray ray;
        cl_whit h;
        cl_shape q;
        cl_ray_make(&ray, cl_v3(rox[i], roy[i], 0.5), cl_v3(rdx[i], rdy[i], 0));
        chit[i] = cl_world_raycast(&w, &ray, HUGE_VAL, -1, -1, &h) == 1 ? h.item : -1;
        nh_c += chit[i] >= 0;
        q.kind = CL_AABB;
        q.u.aabb.min = cl_v3(qlo[0][i], qlo[1][i], 0.25);
        q.u.aabb.max = cl_v3(qhi[0][i], qhi[1][i], 0.75);
        cnt_c += cl_world_query(&w, &q);
    }
    for (i = 0; i < 64; i++) {       /* brute force: the closest box of the first 64 rays */
        int j, best = -1;
        double bt = HUGE_VAL;
        for (j = 0; j < NB; j++) {
            double t = slab(j, rox[i], roy[i], rdx[i], rdy[i]);
            if (t >= 0 && t < bt) { bt = t; best = j; }
        }
        brute += best == chit[i];
    }
    for (i = 0; i < 400; i++) {      /* the snapshots are built after a few hundred traversals */
        cl_ray ray;
        cl_whit h;
        cl_ray_make(&ray, cl_v3(rox[i], roy[i], 0.5), cl_v3(rdx[i], rdy[i], 0));
        cl_world_raycast(&w, &ray, HUGE_VAL, -1, -1, &h);
    }
#ifdef HAVE_BOX2D
    for (i = 0; i < NQ; i++) {
        bray c;
        bray_cast(&bt, i, &c);
        bhit[i] = c.best;
        nh_b += c.best >= 0;
        same += bhit[i] == chit[i];
        {
            b2AABB qb;
            qb.lowerBound.x = (float)qlo[0][i]; qb.lowerBound.y = (float)qlo[1][i];
            qb.upperBound.x = (float)qhi[0][i]; qb.upperBound.y = (float)qhi[1][i];
            b2DynamicTree_Query(&bt, qb, B2_DEFAULT_MASK_BITS, bbq_cb, &c);
        }
        cnt_b += c.nq;
    }
#endif
    for (r = 0; r < ROUNDS; r++) {
        int k, half;
        for (half = 0; half < 2; half++) {
            int box2d = (half + r) % 2;
            double t0 = now(), tr, tq;
            if (!box2d) {
                for (k = 0; k < reps; k++)
                    for (i = 0; i < NQ; i++) {
                        cl_ray ray;
                        cl_whit h;
                        cl_ray_make(&ray, cl_v3(rox[i], roy[i], 0.5), cl_v3(rdx[i], rdy[i], 0));
                        cl_world_raycast(&w, &ray, HUGE_VAL, -1, -1, &h);
                    }
                tr = now();
                for (k = 0; k < reps; k++)
                    for (i = 0; i < NQ; i++) {
                        cl_shape q;
                        q.kind = CL_AABB;
                        q.u.aabb.min = cl_v3(qlo[0][i], qlo[1][i], 0.25);
                        q.u.aabb.max = cl_v3(qhi[0][i], qhi[1][i], 0.75);
                        cl_world_query(&w, &q);
                    }
                tq = now();
                ray_c[r] = (tr - t0) * 1e9 / (reps * NQ);
                q_c[r] = (tq - tr) * 1e9 / (reps * NQ);
            } else {
#ifdef HAVE_BOX2D
                for (k = 0; k < reps; k++)
                    for (i = 0; i < NQ; i++) {
                        bray c;
                        bray_cast(&bt, i, &c);
                    }
                tr = now();
                for (k = 0; k < reps; k++)
                    for (i = 0; i < NQ; i++) {
                        bray c;
                        b2AABB qb;
                        c.ray = i; c.nq = 0;
                        qb.lowerBound.x = (float)qlo[0][i]; qb.lowerBound.y = (float)qlo[1][i];
                        qb.upperBound.x = (float)qhi[0][i]; qb.upperBound.y = (float)qhi[1][i];
                        b2DynamicTree_Query(&bt, qb, B2_DEFAULT_MASK_BITS, bbq_cb, &c);
                    }
                tq = now();
                ray_b[r] = (tr - t0) * 1e9 / (reps * NQ);
                q_b[r] = (tq - tr) * 1e9 / (reps * NQ);
#else
                (void)t0; (void)tr; (void)tq;
                ray_b[r] = q_b[r] = -1;
#endif
            }
        }
        rr[r] = ray_c[r] / ray_b[r];
        qr[r] = q_c[r] / q_b[r];
    }
    out("#### Inserting 100,000 boxes one by one; closest raycast and box query among them (C)");
    out("");
    out("bench/world.lua's 100,000 boxes (rng 7) on x, y, centres scaled by %g so that rays cross about as many", SC);
    out("boxes per unit length as in 3D (collide: z flat [0, 1]), tight boxes inserted one by");
    out("one into a fresh tree (cl_world_add: the World's whole add, whose leaf waits off the tree until the");
    out("next query, so the row with the first query is the whole cost; cl_tree_insert: the tree's own one-by-one insertion;");
    out("b2DynamicTree_CreateProxy). Then 1024 unbounded rays (rng 11, z direction dropped; Box2D: the exact");
    out("closest hit found by its callback on the tight box, its tree after b2DynamicTree_Rebuild(true)) and");
    out("1024 box queries (rng 13, half sizes 10..100; Box2D's callback counts the tight overlaps). %d rounds,", ROUNDS);
    out("the libraries interleaved; medians; ratios are medians of per-round ratios.");
    out("");
    out("| measure | collide ns | Box2D ns | collide / Box2D |");
    out("|---|---:|---:|---:|");
#ifdef HAVE_BOX2D
    {
        double tr2[ROUNDS];
        for (r = 0; r < ROUNDS; r++) tr2[r] = ins_c[r] / ins_b[r];
        out("| insert, per item: cl_world_add | %.0f | %.0f | %.2f |", median(ins_c, ROUNDS), median(ins_b, ROUNDS), median(tr2, ROUNDS));
        for (r = 0; r < ROUNDS; r++) tr2[r] = ins_q[r] / ins_b[r];
        out("| insert, per item: cl_world_add, then the first query (links the new leaves) | %.0f | %.0f | %.2f |",
            median(ins_q, ROUNDS), median(ins_b, ROUNDS), median(tr2, ROUNDS));
        for (r = 0; r < ROUNDS; r++) tr2[r] = ins_t[r] / ins_b[r];
        out("| insert, per item: cl_tree_insert alone | %.0f | %.0f | %.2f |", median(ins_t, ROUNDS), median(ins_b, ROUNDS), median(tr2, ROUNDS));
    }
    out("| closest raycast, per ray | %.0f | %.0f | %.2f |", median(ray_c, ROUNDS), median(ray_b, ROUNDS), median(rr, ROUNDS));
    out("| box query, per query | %.0f | %.0f | %.2f |", median(q_c, ROUNDS), median(q_b, ROUNDS), median(qr, ROUNDS));
    out("");
    out("Cross-check: rays hitting: collide %d, Box2D %d; same closest item in %d of %d rays; items found by the",
        nh_c, nh_b, same, NQ);
    out("queries: collide %d, Box2D %d%s. Brute force over all boxes agrees with collide's closest item in %d of", cnt_c,
        cnt_b, cnt_c == cnt_b && nh_c == nh_b && same == NQ ? "" : " (**MISMATCH**)", brute);
    out("the first 64 rays.");
    *ins_ratio = median(ir, ROUNDS);
    *ray_ratio = median(rr, ROUNDS);
    *q_ratio = median(qr, ROUNDS);
    b2DynamicTree_Destroy(&bt);
#else
    out("| insert, per item: cl_world_add | %.0f | - | - |", median(ins_c, ROUNDS));
    out("| insert, per item: cl_world_add, then the first query (links the new leaves) | %.0f | - | - |", median(ins_q, ROUNDS));
    (void)ins_q;
    out("| insert, per item: cl_tree_insert alone | %.0f | - | - |", median(ins_t, ROUNDS));
    out("| closest raycast, per ray | %.0f | - | - |", median(ray_c, ROUNDS));
    out("| box query, per query | %.0f | - | - |", median(q_c, ROUNDS));
    out("");
    out("Rays hitting: %d; items found by the queries: %d. Brute force over all boxes agrees with the closest", nh_c, cnt_c);
    out("item in %d of the first 64 rays.", brute);
    (void)same; (void)nh_b; (void)cnt_b; (void)ir; (void)rr; (void)qr; (void)ins_b; (void)ray_b; (void)q_b;
    *ins_ratio = *ray_ratio = *q_ratio = -1;
#endif
    out("");
    cl_world_free(&w);
}

/* Bytes the World holds per item at n AABB items (the counting allocator) once a game's calls
 * have all run on it: after the adds, rounds of a closest raycast, a box query, a point query and
 * a pairs call (at random places), as many as it takes for the tree's upkeep to build every
 * snapshot and cache it keeps (both snapshots are built after leaves / 128 + 8 traversals of an
 * unchanged tree; 2 x that + 2 rounds). The first query's time is that of the first box query.
 * With BENCH_FRAMES_MEMORY=2 the blocks are itemised on stderr. */
static void bench_memory(int n) {
    cl_world w;
    lrng g = lrng_new(7);
    double side = 1000 * cbrt(n / 1e5), t0, tadd, tq = 0;
    size_t b0 = live_bytes;
    int i, r, rounds = 2 * (n / 128 + 8) + 2, hits = 0, found = 0;
    cl_shape q;
    const char *e = getenv("BENCH_FRAMES_MEMORY");
    cl_world_init(&w, MARGIN, balloc, NULL);
    t0 = now();
    for (i = 0; i < n; i++) {
        double cx = luni(&g, 0, side), cy = luni(&g, 0, side), cz = luni(&g, 0, side);
        double hx = luni(&g, 0.5, 5), hy = luni(&g, 0.5, 5), hz = luni(&g, 0.5, 5);
        cl_shape s;
        s.kind = CL_AABB;
        s.u.aabb.min = cl_v3(cx - hx, cy - hy, cz - hz);
        s.u.aabb.max = cl_v3(cx + hx, cy + hy, cz + hz);
        cl_world_add(&w, &s);
    }
    tadd = now() - t0;
    q.kind = CL_AABB;
    for (r = 0; r < rounds; r++) {
        cl_ray ray;
        cl_whit h;
        double x = r ? luni(&g, 0, side) : side / 2, y = r ? luni(&g, 0, side) : side / 2;
        double z = r ? luni(&g, 0, side) : side / 2;
        q.u.aabb.min = cl_v3(x, y, z);
        q.u.aabb.max = cl_v3(x + 10, y + 10, z + 10);
        t0 = now();
        found += cl_world_query(&w, &q);
        if (r == 0) tq = now() - t0;
        {
            cl_vec3 o = cl_v3(luni(&g, 0, side), luni(&g, 0, side), luni(&g, 0, side));
            cl_vec3 d = cl_v3(luni(&g, -1, 1), luni(&g, -1, 1), luni(&g, -1, 1));
            cl_ray_make(&ray, o, d);
        }
        hits += cl_world_raycast(&w, &ray, side / 4, -1, -1, &h);
        found += cl_world_querypoint(&w, cl_v3(x, y, z));
        if (r == 0 || r == rounds - 1) found += cl_world_pairs(&w);    /* builds the pair cache */
    }
    if (e && atoi(e) == 2) {
        double k = 1.0 / n;
        fprintf(stderr, "n %d: items %.1f tree %.1f qn %.1f qslot %.1f (%s) cp %.1f ph %.1f pr %.1f kp %.1f "
                "res %.1f tmp %.1f hits %d found %d\n", n,
                w.acap * sizeof(cl_item) * k, w.tree.cap * CL_TREE_NODE_BYTES * k,
                w.qncap * sizeof(cl_qnode) * k, w.qslotcap * sizeof(int) * k,
                w.qn && w.qnver == w.tver ? "valid" : "stale", w.cpcap * sizeof(cl_cpair) * k,
                w.phcap * sizeof(int) * k, w.prcap * sizeof(cl_wpair) * k, w.kpcap * sizeof(cl_kpair) * k,
                w.rescap * sizeof(int) * k, w.tmpcap * sizeof(int) * k, hits, found);
    }
    out("| %d | %.0f | %.0f | %.1f | %.2f |", n, (double)(live_bytes - b0) / n, (double)sizeof(cl_item),
        tq * 1e3, tadd * 1e9 / n);
    cl_world_free(&w);
}

/* A target's verdict from its one-pass and noise-filtered figures: "met" only when both meet it. */
static const char *verdict(int onepass, int filtered) {
    return onepass && filtered ? "met"
           : filtered ? "met noise filtered, MISSED in one pass"
           : onepass ? "met in one pass, MISSED noise filtered" : "MISSED";
}

int main(int argc, char **argv) {
    fstats c2 = {0, 0, 0, 0}, b2 = c2, c3 = c2, l2 = c2, l3 = c2, lb2 = c2;
    double ir, rr, qr;
    int nf = 1000, npass = 5;
    const char *e = getenv("BENCH_FRAMES_N");
    if (e && atoi(e) > 0 && atoi(e) <= 100000) nf = atoi(e);
    if ((e = getenv("BENCH_FRAMES_PASSES")) != NULL && atoi(e) > 0 && atoi(e) <= 100) npass = atoi(e);
    if (argc > 1 && (md = fopen(argv[1], "w")) == NULL) { perror(argv[1]); return 1; }
    if ((e = getenv("BENCH_FRAMES_TRACE")) != NULL && *e) {
        if ((trace = fopen(e, "w")) == NULL) { perror(e); return 1; }
        fprintf(trace, "frame cpu_ms wall_ms pairs minflt upkeep upkeep_ms\n");
    }
    if (getenv("BENCH_FRAMES_MEMORY")) {     /* the memory table alone */
        bench_memory(100000);
        bench_memory(1000000);
        return 0;
    }
#ifndef HAVE_BOX2D
    out("**Box2D columns skipped:** ../shared/peers/box2d-v3 was not found when bench/run.sh built");
    out("build/bench-frames, so only collide's numbers are measured here.");
    out("");
#endif
    if (getenv("BENCH_FRAMES_STATIC")) {     /* insertion, raycast and box query alone */
        bench_static(&ir, &rr, &qr);
        out("");
        out("- closest raycast collide / Box2D %.2f, box query %.2f, insertion %.2f.", rr, qr, ir);
        if (md) fclose(md);
        return 0;
    }
    bench_frames(nf, npass, &c2, &b2, &c3, &l2, &l3, &lb2);
    if (trace) fclose(trace);
    if (getenv("BENCH_FRAMES_ONLY")) {
        if (md) fclose(md);
        return 0;
    }
    bench_static(&ir, &rr, &qr);
    out("#### World memory and the first query after bulk adds (C, 3D boxes like bench/world.lua, side scaled to keep the density)");
    out("");
    out("| items | bytes per item (allocator) | sizeof(cl_item) | first query ms | add ns per item |");
    out("|---:|---:|---:|---:|---:|");
    bench_memory(100000);
    bench_memory(1000000);
    out("");
    out("#### C targets (issue 14)");
    out("");
    out("- worst frame / median frame, collide 2D scene: one pass %.2f, noise filtered (least of %d passes) %.2f; "
        "3D scene: %.2f, %.2f (target <= 1.5): %s.",
        c2.worst / c2.med, npass, l2.worst / l2.med, c3.worst / c3.med, l3.worst / l3.med,
        verdict(c2.worst <= 1.5 * c2.med && c3.worst <= 1.5 * c3.med, l2.worst <= 1.5 * l2.med && l3.worst <= 1.5 * l3.med));
    if (b2.med > 0) {
        out("- median frame collide / Box2D: one pass %.2f, noise filtered %.2f (target <= 0.5): %s; worst frame "
            "collide / Box2D worst: %.2f, %.2f (target <= 1): %s.",
            c2.med / b2.med, l2.med / lb2.med, verdict(c2.med <= 0.5 * b2.med, l2.med <= 0.5 * lb2.med),
            c2.worst / b2.worst, l2.worst / lb2.worst, verdict(c2.worst <= b2.worst, l2.worst <= lb2.worst));
        out("- insertion collide / Box2D per item, cl_world_add then the first query: %.2f (target <= 1): %s; closest raycast %.2f, box query %.2f (targets <= 0.5): %s, %s.",
            ir, ir <= 1 ? "met" : "MISSED", rr, qr, rr <= 0.5 ? "met" : "MISSED", qr <= 0.5 ? "met" : "MISSED");
    }
    out("");
    if (md) fclose(md);
    return 0;
}
