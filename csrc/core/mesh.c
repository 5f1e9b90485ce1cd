/* collide core: static triangle meshes (see mesh.h). Owns the mesh's memory, its tree build
 * (binned surface-area splits as in tinybvh's BVH::Build: centroids binned on each axis (on the
 * widest one in nodes of at most 128 triangles), the split of least area-weighted cost, a leaf
 * when splitting costs more than testing) and its
 * queries (ray, shape overlap, closest point), each a depth-first walk with a fixed stack.
 * Triangle tests are tri.c's. Data larger than 2^200 in magnitude is scaled by a power of two
 * for the triangle tests (see tri.c), so nothing overflows. */
#include <stdint.h>
#include <stdlib.h>
#include "vec.h"
#include "mesh.h"

/* SSE2 for the build's box unions and binning when the compiler targets it (every x86-64), else
 * the same arithmetic per axis (define CL_NO_SIMD to force it; the same tree) */
#if defined(__SSE2__) && !defined(CL_NO_SIMD)
#include <emmintrin.h>
#define MSIMD 1
#else
#define MSIMD 0
#endif

#define BINS 8          /* centroid bins per axis */
#define MAXLEAF 8       /* a node with more triangles is always split */
#define SAMPLE 64       /* a node of more than 2 SAMPLE triangles bins SAMPLE of them */
#define TRAVERSE 2.0    /* cost of visiting a node, in triangle tests (the leaf decision) */
#define MEDIANDEPTH 32  /* from this depth on, split at the median (bounds the height) */
#define SLACK 0x1p-44   /* relative slack of box tests against rounding in the slab arithmetic */

int cl_mesh_init(cl_mesh *m, size_t nv, size_t nt, int indexed, cl_alloc alloc, void *ud)
{
    memset(m, 0, sizeof *m);
    m->alloc = alloc;
    m->ud = ud;
    m->nv = nv;
    m->nt = nt;
    m->v = (double *)alloc(ud, NULL, 0, 3 * nv * sizeof(double));
    if (m->v == NULL && nv > 0) return CL_ENOMEM;
    if (indexed) {
        m->idx = (unsigned *)alloc(ud, NULL, 0, 3 * nt * sizeof(unsigned));
        if (m->idx == NULL && nt > 0) {
            alloc(ud, m->v, 3 * nv * sizeof(double), 0);
            m->v = NULL;
            return CL_ENOMEM;
        }
    }
    return CL_OK;
}

void cl_mesh_free(cl_mesh *m)
{
    if (m->alloc == NULL) return;
    if (m->v) m->alloc(m->ud, m->v, 3 * m->nv * sizeof(double), 0);
    if (m->idx) m->alloc(m->ud, m->idx, 3 * m->nt * sizeof(unsigned), 0);
    if (m->prim) m->alloc(m->ud, m->prim, m->nprim * sizeof(unsigned), 0);
    if (m->lidx) m->alloc(m->ud, m->lidx, 3 * m->nprim * sizeof(unsigned), 0);
    if (m->nodemem) m->alloc(m->ud, m->nodemem, m->nnodes * sizeof(cl_mnode) + 64, 0);
    m->v = NULL; m->idx = NULL; m->prim = NULL; m->nodes = NULL; m->nodemem = NULL; m->lidx = NULL;
    m->nv = m->nt = m->nprim = m->nnodes = 0;
}

size_t cl_mesh_bytes(const cl_mesh *m)
{
    return 3 * m->nv * sizeof(double) + (m->idx ? 3 * m->nt * sizeof(unsigned) : 0) +
           m->nprim * sizeof(unsigned) + (m->lidx ? 3 * m->nprim * sizeof(unsigned) : 0) +
           (m->nodemem ? m->nnodes * sizeof(cl_mnode) + 64 : 0);
}

/* Returns the vertex of triangle i at corner k (0..2). */
static inline cl_vec3 vert(const cl_mesh *m, size_t i, int k)
{
    const double *p = m->v + 3 * (m->idx ? (size_t)m->idx[3 * i + k] : 3 * i + k);
    return cl_v3(p[0], p[1], p[2]);
}

void cl_mesh_triangle(const cl_mesh *m, size_t i, cl_vec3 *a, cl_vec3 *b, cl_vec3 *c)
{
    *a = vert(m, i, 0);
    *b = vert(m, i, 1);
    *c = vert(m, i, 2);
}

/* The vertices of triangle i multiplied by sc (a power of two; 1 leaves them exact). */
static inline void trisc(const cl_mesh *m, size_t i, double sc, cl_vec3 *a, cl_vec3 *b, cl_vec3 *c)
{
    *a = cl_mul(vert(m, i, 0), sc);
    *b = cl_mul(vert(m, i, 1), sc);
    *c = cl_mul(vert(m, i, 2), sc);
}

/* The power of two the triangle tests scale data by, given its largest magnitude mx: 2^k of
 * cl_range_k (vec.h), as trisweep.c's tests and cl_tri_degenerate scale (scaling large data into
 * [0.5, 1) instead flushed small components that have a copy in range: the build dropped as
 * degenerate a triangle cl_tri_degenerate keeps, and two mesh items paired or not by their order
 * in the World). */
static double scalefor(double mx) { return cl_scale2(1.0, cl_range_k(mx)); }

static void leafidx(cl_mesh *m);

/* ---- build ---- */

/* The smaller and the larger of two finite doubles (inline: fmin and fmax are library calls). */
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }

/* Build scratch, in two arrays: per tree position (permuted as the build partitions) a triangle's
 * float centroid and number; per triangle number its float box (lane 3 unused), SSE-shaped. */
typedef struct crec { float c[3]; unsigned id; } crec;
typedef struct fb4 { float lo[4], hi[4]; } fb4;
/* A record with its box: the build of a small node's subtree works on these, gathered once. */
typedef struct lrec { crec k; fb4 b; } lrec;

/* A float nearest to the finite double d, clamped to the float range (no out-of-range conversion). */
static float tofloat(double d)
{
    return (float)(d > FLT_MAX ? FLT_MAX : (d < -FLT_MAX ? -FLT_MAX : d));
}

#if !MSIMD
/* An empty float box (grows to anything). */
static cl_fbox fempty(void)
{
    cl_fbox f;
    int k;
    for (k = 0; k < 3; k++) { f.lo[k] = INFINITY; f.hi[k] = -INFINITY; }
    return f;
}
#endif

/* Half the surface area of the box lo..hi, x*y + z*(x+y) of its extents (in doubles: exact
 * extents, no overflow; may be inf or NaN for unbounded boxes). The SSE2 form (area4) computes the
 * same doubles. */
static double area3(const float *lo, const float *hi)
{
    double x = (double)hi[0] - lo[0], y = (double)hi[1] - lo[1], z = (double)hi[2] - lo[2];
    return x * y + z * (x + y);
}

static double farea(const cl_fbox *f) { return area3(f->lo, f->hi); }

/* The centroid of the record at p (a crec or an lrec: both begin with it) on axis ax. */
#define CEN(p, ax) (((const crec *)(const void *)(p))->c[ax])

/* Reorders the n records of size sz at base so that the k-th has the k-th smallest centroid on
 * axis ax, the ones before it none larger and the ones after none smaller (Hoare's selection,
 * median-of-three pivot). Records are crecs or lrecs (the median fallback only: rare). */
static void selectk(void *base, size_t sz, long n, long k, int ax)
{
    unsigned char *r = (unsigned char *)base, t[sizeof(lrec)];
    long lo = 0, hi = n - 1;
    while (hi > lo) {
        long i = lo, j = hi, mid = lo + (hi - lo) / 2;
        float a = CEN(r + lo * sz, ax), b = CEN(r + mid * sz, ax), c = CEN(r + hi * sz, ax), piv;
        piv = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        while (i <= j) {
            while (CEN(r + i * sz, ax) < piv) i++;
            while (CEN(r + j * sz, ax) > piv) j--;
            if (i <= j) {
                memcpy(t, r + i * sz, sz);
                memcpy(r + i * sz, r + j * sz, sz);
                memcpy(r + j * sz, t, sz);
                i++; j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
}

/* The bin of centroid coordinate c on an axis: lo the centroid bounds' low end, sc the bins per
 * unit, top the last bin (nbins - 1) as a float. The binning and the partition both use it (or
 * its SSE form, which computes the same floats), so a partition puts each triangle on the side
 * its bin is on. */
static inline int binof(float c, float lo, float sc, float top)
{
    float f = (c - lo) * sc;
    f = f > 0 ? f : 0;
    f = f < top ? f : top;
    return (int)f;
}

/* Box union and centroid bounds, 4 lanes at a time with SSE2 (lane 3 ignored), else per axis. */
#if MSIMD
static inline void b4grow(fb4 *f, const fb4 *g)
{
    _mm_storeu_ps(f->lo, _mm_min_ps(_mm_loadu_ps(f->lo), _mm_loadu_ps(g->lo)));
    _mm_storeu_ps(f->hi, _mm_max_ps(_mm_loadu_ps(f->hi), _mm_loadu_ps(g->hi)));
}
#else
static inline void b4grow(fb4 *f, const fb4 *g)
{
    int k;
    for (k = 0; k < 3; k++) {
        f->lo[k] = g->lo[k] < f->lo[k] ? g->lo[k] : f->lo[k];
        f->hi[k] = g->hi[k] > f->hi[k] ? g->hi[k] : f->hi[k];
    }
}
#endif

static fb4 b4empty(void)
{
    fb4 f;
    int k;
    for (k = 0; k < 4; k++) { f.lo[k] = INFINITY; f.hi[k] = -INFINITY; }
    return f;
}

static cl_fbox fbox_of4(const fb4 *f)
{
    cl_fbox b;
    memcpy(b.lo, f->lo, sizeof b.lo);
    memcpy(b.hi, f->hi, sizeof b.hi);
    return b;
}

/* The union of the boxes of the records q[0..n-1]. */
static cl_fbox unionof(const lrec *q, unsigned n)
{
    fb4 f = b4empty();
    unsigned i;
    for (i = 0; i < n; i++) b4grow(&f, &q[i].b);
    return fbox_of4(&f);
}

/* The bounds of the centroids of the n records of size sz at base (crecs or lrecs). */
static cl_fbox centroidsof(const void *base, size_t sz, unsigned n)
{
    const unsigned char *r = (const unsigned char *)base;
    cl_fbox f;
    unsigned i;
#if MSIMD
    __m128 lo = _mm_set1_ps(INFINITY), hi = _mm_set1_ps(-INFINITY);
    float t4[4];
    for (i = 0; i < n; i++) {
        __m128 c = _mm_loadu_ps(((const crec *)(const void *)(r + i * sz))->c);  /* lane 3, the number, ignored */
        lo = _mm_min_ps(lo, c);
        hi = _mm_max_ps(hi, c);
    }
    _mm_storeu_ps(t4, lo); memcpy(f.lo, t4, sizeof f.lo);
    _mm_storeu_ps(t4, hi); memcpy(f.hi, t4, sizeof f.hi);
#else
    int k;
    f = fempty();
    for (i = 0; i < n; i++)
        for (k = 0; k < 3; k++) {
            float c = CEN(r + i * sz, k);
            f.lo[k] = c < f.lo[k] ? c : f.lo[k];
            f.hi[k] = c > f.hi[k] ? c : f.hi[k];
        }
#endif
    return f;
}

#if MSIMD
/* area3 of the float box lo..hi (lanes 0-2), in SSE2 doubles: the same operations, the same result */
static inline double area4(__m128 lo, __m128 hi)
{
    __m128d d = _mm_sub_pd(_mm_cvtps_pd(hi), _mm_cvtps_pd(lo));
    __m128d z = _mm_sub_sd(_mm_cvtps_pd(_mm_movehl_ps(hi, hi)), _mm_cvtps_pd(_mm_movehl_ps(lo, lo)));
    __m128d yx = _mm_shuffle_pd(d, d, 1);
    return _mm_cvtsd_f64(_mm_add_sd(_mm_mul_sd(d, yx), _mm_mul_sd(z, _mm_add_sd(d, yx))));
}
#endif

/* The bins per unit of centroid extent on each axis (0: that axis is not binned) for nbins bins
 * over the centroid bounds cb, on every axis or (only >= 0) on that one; nonzero if some axis is
 * binned. */
static int binscale(const cl_fbox *cb, int nbins, int only, float sc[4])
{
    int ax;
    for (ax = 0; ax < 3; ax++) {
        double ext = (double)cb->hi[ax] - cb->lo[ax];
        if (only >= 0 && ax != only) { sc[ax] = 0; continue; }
        sc[ax] = ext > 0 && ext <= FLT_MAX ? (float)(nbins / ext * (1 - 0x1p-20)) : 0;
        if (!(sc[ax] <= FLT_MAX)) sc[ax] = 0;  /* an extent too small for float bins: none */
    }
    sc[3] = 0;
    return sc[0] > 0 || sc[1] > 0 || sc[2] > 0;
}

/* The binned surface-area split of the records q[0..ns-1] (the node's triangles or a sample of
 * them): centroids binned on the three axes in one pass (nbins bins over the centroid bounds cmin
 * and scales sc), then per axis the least cost (left area * left count + right area * right count)
 * over the bin planes that leave triangles on both sides. Returns the axis (-1: no such plane), its
 * plane *bestb (a triangle goes left when its bin is below it) and *bestcost. The SSE2 and the
 * plain forms compute the same doubles and choose the same plane. */
static int binsah(const lrec *q, unsigned ns, int nbins, const float *cmin, const float *sc, float top,
                  int *bestb, double *bestcost)
{
    unsigned bn[3][BINS], i;
    int ax, b, bestax = -1;
    double la[BINS];
#if MSIMD
    __m128 blo[3][BINS], bhi[3][BINS];
    const __m128 pinf = _mm_set1_ps(INFINITY), ninf = _mm_set1_ps(-INFINITY);
    memset(bn, 0, sizeof bn);
    for (ax = 0; ax < 3; ax++)
        for (b = 0; b < nbins && sc[ax] > 0; b++) { blo[ax][b] = pinf; bhi[ax][b] = ninf; }
    {
        const float cm4[4] = { cmin[0], cmin[1], cmin[2], 0 };
        const __m128 vlo = _mm_loadu_ps(cm4), vsc = _mm_loadu_ps(sc), vtop = _mm_set1_ps(top),
                     zero = _mm_setzero_ps();
        if (!(sc[0] > 0 && sc[1] > 0 && sc[2] > 0)) {  /* not every axis: bin only the binned ones */
            for (ax = 0; ax < 3; ax++) {
                const float lo = cmin[ax], s = sc[ax];
                if (s == 0) continue;
                for (i = 0; i < ns; i++) {
                    int k = binof(q[i].k.c[ax], lo, s, top);
                    bn[ax][k]++;
                    blo[ax][k] = _mm_min_ps(blo[ax][k], _mm_loadu_ps(q[i].b.lo));
                    bhi[ax][k] = _mm_max_ps(bhi[ax][k], _mm_loadu_ps(q[i].b.hi));
                }
            }
        } else
        for (i = 0; i < ns; i++) {
            int k[4];
            __m128 f = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(q[i].k.c), vlo), vsc);
            __m128 glo = _mm_loadu_ps(q[i].b.lo), ghi = _mm_loadu_ps(q[i].b.hi);
            f = _mm_min_ps(_mm_max_ps(f, zero), vtop);
            _mm_storeu_si128((__m128i *)k, _mm_cvttps_epi32(f));
            for (ax = 0; ax < 3; ax++) {
                bn[ax][k[ax]]++;
                blo[ax][k[ax]] = _mm_min_ps(blo[ax][k[ax]], glo);
                bhi[ax][k[ax]] = _mm_max_ps(bhi[ax][k[ax]], ghi);
            }
        }
    }
    for (ax = 0; ax < 3; ax++) {
        __m128 alo = pinf, ahi = ninf;
        unsigned ln = 0, rn = 0;
        if (sc[ax] == 0) continue;
        /* left areas by a forward sweep, then the right ones and the costs backward */
        for (b = 0; b < nbins - 1; b++) {
            ln += bn[ax][b];
            alo = _mm_min_ps(alo, blo[ax][b]);
            ahi = _mm_max_ps(ahi, bhi[ax][b]);
            la[b] = ln ? area4(alo, ahi) * ln : 0;
        }
        alo = pinf; ahi = ninf;
        for (b = nbins - 1; b > 0; b--) {
            double cost;
            rn += bn[ax][b];
            alo = _mm_min_ps(alo, blo[ax][b]);
            ahi = _mm_max_ps(ahi, bhi[ax][b]);
            if (rn == 0 || rn == ns) continue;
            cost = la[b - 1] + area4(alo, ahi) * rn;
            if (cost < *bestcost) { *bestcost = cost; bestax = ax; *bestb = b; }
        }
    }
#else
    fb4 bb[3][BINS];
    for (ax = 0; ax < 3; ax++)
        for (b = 0; b < nbins; b++) { bb[ax][b] = b4empty(); bn[ax][b] = 0; }
    for (i = 0; i < ns; i++)
        for (ax = 0; ax < 3; ax++) {
            int k = binof(q[i].k.c[ax], cmin[ax], sc[ax], top);
            bn[ax][k]++;
            b4grow(&bb[ax][k], &q[i].b);
        }
    for (ax = 0; ax < 3; ax++) {
        fb4 acc = b4empty();
        unsigned ln = 0, rn = 0;
        if (sc[ax] == 0) continue;
        for (b = 0; b < nbins - 1; b++) {
            ln += bn[ax][b];
            b4grow(&acc, &bb[ax][b]);
            la[b] = ln ? area3(acc.lo, acc.hi) * ln : 0;
        }
        acc = b4empty();
        for (b = nbins - 1; b > 0; b--) {
            double cost;
            rn += bn[ax][b];
            b4grow(&acc, &bb[ax][b]);
            if (rn == 0 || rn == ns) continue;
            cost = la[b - 1] + area3(acc.lo, acc.hi) * rn;
            if (cost < *bestcost) { *bestcost = cost; bestax = ax; *bestb = b; }
        }
    }
#endif
    return bestax;
}

/* The axis of cb's largest extent (the first of equal ones). */
static int widest(const cl_fbox *cb)
{
    int ax = 0, k;
    for (k = 1; k < 3; k++)
        if ((double)cb->hi[k] - cb->lo[k] > (double)cb->hi[ax] - cb->lo[ax]) ax = k;
    return ax;
}

/* The median split of n records of size sz at base on the widest centroid axis of cb (when no bin
 * split exists, or deep): returns the left count and the children's centroid bounds. */
static unsigned mediansplit(void *base, size_t sz, unsigned n, const cl_fbox *cb, cl_fbox *lcb, cl_fbox *rcb)
{
    int ax = widest(cb);
    unsigned nl = n / 2;
    selectk(base, sz, (long)n, (long)nl, ax);
    *lcb = centroidsof(base, sz, nl);
    *rcb = centroidsof((unsigned char *)base + nl * sz, sz, n - nl);
    return nl;
}

/* Splits a node of more than 2 SAMPLE triangles (r[0..n-1], centroid bounds cb; bx the boxes by
 * triangle number): the binned surface-area plane chosen from SAMPLE of them taken at an even
 * stride partitions all (both sides get triangles: the sampled ones are on both sides), or the
 * median when no plane exists or at depth MEDIANDEPTH and below. Returns the left count and the
 * children's centroid bounds. */
static unsigned splitbig(const fb4 *bx, crec *r, unsigned n, const cl_fbox *cb, int depth, cl_fbox *lcb,
                         cl_fbox *rcb)
{
    unsigned stride = n / SAMPLE, off = stride / 2, i, l = 0;
    int bestax = -1, bestb = 0;
    double bestcost = HUGE_VAL;
    float sc[4], top = (float)(BINS - 1);
    if (depth < MEDIANDEPTH && binscale(cb, BINS, -1, sc)) {
        lrec q[SAMPLE];
        for (i = 0; i < SAMPLE; i++) {
            q[i].k = r[off + i * stride];
            q[i].b = bx[q[i].k.id];
        }
        bestax = binsah(q, SAMPLE, BINS, cb->lo, sc, top, &bestb, &bestcost);
    }
    if (bestax < 0) return mediansplit(r, sizeof *r, n, cb, lcb, rcb);
    {
        const float lo = cb->lo[bestax], s = sc[bestax];
        /* partition without branches on the side (Lomuto's: r[0..l-1] left, r[l..i-1] right; each
         * record swaps with r[l], which only moves a right one when it is right too), then each
         * side's centroid bounds */
        for (i = 0; i < n; i++) {
            crec t = r[i];
            unsigned left = binof(t.c[bestax], lo, s, top) < bestb;
            r[i] = r[l];
            r[l] = t;
            l += left;
        }
    }
    *lcb = centroidsof(r, sizeof *r, l);
    *rcb = centroidsof(r + l, sizeof *r, n - l);
    return l;
}

/* Splits a node of at most 2 SAMPLE triangles (q[0..n-1], their boxes with them; centroid bounds
 * cb; nb their box, read only when n <= MAXLEAF) or leaves it: returns the left count (0: a leaf)
 * and the children's centroid bounds. The binned surface-area plane over all of them on the widest
 * centroid axis only (as many bins as triangles when fewer than BINS; the three axes cost about 25%
 * more build time on the bench terrain for the same tree cost within 1%); a leaf when that costs
 * more than testing the triangles (and there are at most MAXLEAF); the median when no plane exists
 * or at depth MEDIANDEPTH and below. */
static unsigned splitsmall(lrec *q, unsigned n, const cl_fbox *nb, const cl_fbox *cb, int depth, cl_fbox *lcb,
                           cl_fbox *rcb)
{
    int bestax = -1, bestb = 0, nbins = n < BINS ? (int)n : BINS;
    double bestcost = HUGE_VAL;
    float sc[4], top = (float)(nbins - 1);
    unsigned i, l = 0;
    if (n <= 1 || (n <= MAXLEAF && n <= TRAVERSE)) return 0;  /* no split costs less than n */
    if (depth < MEDIANDEPTH && binscale(cb, nbins, widest(cb), sc))
        bestax = binsah(q, n, nbins, cb->lo, sc, top, &bestb, &bestcost);
    if (bestax < 0) return n <= MAXLEAF ? 0 : mediansplit(q, sizeof *q, n, cb, lcb, rcb);
    /* split when cheaper than a leaf: traversal + triangles by area ratio */
    if (n <= MAXLEAF && !(TRAVERSE + bestcost / farea(nb) < (double)n)) return 0;
    {
        const float lo = cb->lo[bestax], s = sc[bestax];
        for (i = 0; i < n; i++) {  /* splitbig's partition */
            lrec t = q[i];
            unsigned left = binof(t.k.c[bestax], lo, s, top) < bestb;
            q[i] = q[l];
            q[l] = t;
            l += left;
        }
    }
    *lcb = centroidsof(q, sizeof *q, l);
    *rcb = centroidsof(q + l, sizeof *q, n - l);
    return l;
}

/* Returns finite d rounded down to a float (never above d), clamped to -inf..FLT_MAX: the bits of
 * tree.c's f_down (cl_fbox_from), inlined, its usual case without a data-dependent branch. */
static inline float fdown(double d)
{
    float f;
    uint32_t u, step;
    if (!(d >= -FLT_MAX && d <= FLT_MAX)) return d > FLT_MAX ? FLT_MAX : -INFINITY;
    f = (float)d;
    memcpy(&u, &f, sizeof u);
    step = (double)f > d;
    if ((u & 0x7fffffffu) == 0) return step ? -0x1p-149f : f;
    u += step * ((u >> 31) * 2u - 1u);  /* positive: one float down; negative: one up in magnitude */
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Triangle i's float box (b: rounded outward, as cl_fbox_from) and float centroid (c). */
static void tribox(cl_vec3 p, cl_vec3 q, cl_vec3 r, cl_aabb *t, fb4 *b, float c[3])
{
    t->min = cl_v3(dmin(p.x, dmin(q.x, r.x)), dmin(p.y, dmin(q.y, r.y)), dmin(p.z, dmin(q.z, r.z)));
    t->max = cl_v3(dmax(p.x, dmax(q.x, r.x)), dmax(p.y, dmax(q.y, r.y)), dmax(p.z, dmax(q.z, r.z)));
    b->lo[0] = fdown(t->min.x); b->lo[1] = fdown(t->min.y); b->lo[2] = fdown(t->min.z);
    b->hi[0] = -fdown(-t->max.x); b->hi[1] = -fdown(-t->max.y); b->hi[2] = -fdown(-t->max.z);
    b->lo[3] = b->hi[3] = 0;
    c[0] = tofloat(t->min.x * 0.5 + t->max.x * 0.5);
    c[1] = tofloat(t->min.y * 0.5 + t->max.y * 0.5);
    c[2] = tofloat(t->min.z * 0.5 + t->max.z * 0.5);
}

/* Builds the subtree of node ni (at most 2 SAMPLE triangles: rec[first .. first+count-1]; depth
 * depth, centroid bounds cb), its triangles' records and boxes gathered into q (cache-resident):
 * each node split or left as a leaf as cl_mesh_build's loop does, nodes numbered in the same order
 * from *used on, leaf boxes made here, the subtree's triangles written into prim in leaf order. */
static void buildsmall(cl_mesh *m, const fb4 *bx, const crec *rec, lrec *q, unsigned ni, int depth,
                       const cl_fbox *cb, size_t *used)
{
    struct { unsigned node; int depth; cl_fbox cb; } stack[CL_MESH_STACK];
    int sp = 0;
    unsigned first = m->nodes[ni].first, n0 = m->nodes[ni].count, i;
    for (i = 0; i < n0; i++) {
        q[i].k = rec[first + i];
        q[i].b = bx[q[i].k.id];
    }
    stack[sp].node = ni; stack[sp].depth = depth; stack[sp].cb = *cb; sp++;
    while (sp > 0) {
        unsigned nj = stack[--sp].node, nl, f, n;
        int d = stack[sp].depth;
        cl_mnode *nd = &m->nodes[nj];
        cl_fbox lcb, rcb, b;
        if (d > m->depth) m->depth = d;
        f = nd->first - first;
        n = nd->count;
        if (n <= MAXLEAF) b = unionof(q + f, n);  /* the leaf test's box and a leaf's */
        nl = splitsmall(q + f, n, &b, &stack[sp].cb, d, &lcb, &rcb);
        if (nl == 0) {
            memcpy(nd->lo, b.lo, sizeof b.lo);
            memcpy(nd->hi, b.hi, sizeof b.hi);
            continue;
        }
        {
            cl_mnode *l = &m->nodes[*used], *r = &m->nodes[*used + 1];
            l->first = first + f; l->count = nl;
            r->first = first + f + nl; r->count = n - nl;
            nd->first = (unsigned)*used;
            nd->count = 0;
            stack[sp].node = (unsigned)*used + 1; stack[sp].depth = d + 1; stack[sp].cb = rcb; sp++;
            stack[sp].node = (unsigned)*used; stack[sp].depth = d + 1; stack[sp].cb = lcb; sp++;
            *used += 2;
        }
    }
    for (i = 0; i < n0; i++) m->prim[first + i] = q[i].k.id;
}

int cl_mesh_build(cl_mesh *m)
{
    fb4 *bx;
    crec *rec;
    lrec q[2 * SAMPLE];
    size_t i, nn, used, np = 0;
    struct { unsigned node; int depth; cl_fbox cb; } stack[CL_MESH_STACK];
    int sp = 0;
    double mx = 0, sc;
    m->nprim = 0;
    m->depth = 0;
    if (m->nt == 0) { m->box.min = m->box.max = cl_v3(0, 0, 0); return CL_OK; }
    bx = (fb4 *)m->alloc(m->ud, NULL, 0, m->nt * sizeof(fb4));
    rec = bx ? (crec *)m->alloc(m->ud, NULL, 0, m->nt * sizeof(crec)) : NULL;
    if (rec == NULL) {
        if (bx) m->alloc(m->ud, bx, m->nt * sizeof(fb4), 0);
        return CL_ENOMEM;
    }
    /* each triangle's float box and centroid, the bounds, and the tree's triangles: the
     * non-degenerate ones (tested at the scale queries use: a second pass when that is not 1) */
    {
        cl_aabb box;
        box.min = cl_v3(HUGE_VAL, HUGE_VAL, HUGE_VAL);
        box.max = cl_v3(-HUGE_VAL, -HUGE_VAL, -HUGE_VAL);
        for (i = 0; i < m->nt; i++) {
            cl_vec3 a, b, c;
            cl_aabb t;
            cl_mesh_triangle(m, i, &a, &b, &c);
            tribox(a, b, c, &t, &bx[i], rec[np].c);
            box.min = cl_v3(dmin(box.min.x, t.min.x), dmin(box.min.y, t.min.y), dmin(box.min.z, t.min.z));
            box.max = cl_v3(dmax(box.max.x, t.max.x), dmax(box.max.y, t.max.y), dmax(box.max.z, t.max.z));
            rec[np].id = (unsigned)i;
            np += !cl_tri_degenerate(a, b, c);
        }
        m->box = box;
        mx = cl_maxabs3(box.min.x, box.min.y, box.min.z);
        if (cl_maxabs3(box.max.x, box.max.y, box.max.z) > mx) mx = cl_maxabs3(box.max.x, box.max.y, box.max.z);
        m->maxabs = mx;
    }
    sc = scalefor(mx);
    if (sc != 1) {
        np = 0;
        for (i = 0; i < m->nt; i++) {
            cl_vec3 a, b, c;
            cl_aabb t;
            fb4 f;
            trisc(m, i, sc, &a, &b, &c);
            if (cl_tri_degenerate(a, b, c)) continue;
            cl_mesh_triangle(m, i, &a, &b, &c);
            tribox(a, b, c, &t, &f, rec[np].c);
            rec[np++].id = (unsigned)i;
        }
    }
    if (np == 0) goto done;
    m->prim = (unsigned *)m->alloc(m->ud, NULL, 0, np * sizeof(unsigned));
    nn = 2 * np;  /* the root, the unused node 1 and np - 1 pairs of children at most */
    m->nodemem = m->prim ? m->alloc(m->ud, NULL, 0, nn * sizeof(cl_mnode) + 64) : NULL;
    if (m->nodemem == NULL) {
        if (m->prim) m->alloc(m->ud, m->prim, np * sizeof(unsigned), 0);
        m->prim = NULL;
        m->alloc(m->ud, rec, m->nt * sizeof(crec), 0);
        m->alloc(m->ud, bx, m->nt * sizeof(fb4), 0);
        return CL_ENOMEM;
    }
    m->nodes = (cl_mnode *)cl_align64(m->nodemem);
    memset(&m->nodes[1], 0, sizeof(cl_mnode));
    m->nprim = np;
    m->nnodes = nn;
    /* top-down: each node is split, nodes of at most 2 SAMPLE triangles by buildsmall (the whole
     * subtree, leaf boxes and prim); the internal nodes' boxes come after, bottom-up */
    m->nodes[0].first = 0;
    m->nodes[0].count = (unsigned)np;
    used = 2;
    stack[sp].node = 0; stack[sp].depth = 0; stack[sp].cb = centroidsof(rec, sizeof *rec, (unsigned)np); sp++;
    while (sp > 0) {
        unsigned ni = stack[--sp].node, nl, first, n;
        int depth = stack[sp].depth;
        cl_mnode *nd = &m->nodes[ni];
        cl_fbox lcb, rcb;
        if (depth > m->depth) m->depth = depth;
        first = nd->first;
        n = nd->count;
        if (n <= 2 * SAMPLE) {
            buildsmall(m, bx, rec, q, ni, depth, &stack[sp].cb, &used);
            continue;
        }
        nl = splitbig(bx, rec + first, n, &stack[sp].cb, depth, &lcb, &rcb);
        {
            cl_mnode *l = &m->nodes[used], *r = &m->nodes[used + 1];
            l->first = first; l->count = nl;
            r->first = first + nl; r->count = n - nl;
            nd->first = (unsigned)used;
            nd->count = 0;
            stack[sp].node = (unsigned)used + 1; stack[sp].depth = depth + 1; stack[sp].cb = rcb; sp++;
            stack[sp].node = (unsigned)used; stack[sp].depth = depth + 1; stack[sp].cb = lcb; sp++;
            used += 2;
        }
    }
    /* the internal nodes' boxes, children before parents (children come later in the node array):
     * the union of their children's */
    for (i = used; i-- > 2;) {
        cl_mnode *nd = &m->nodes[i];
        const cl_mnode *l, *r;
        int k;
        if (nd->count) continue;
        l = &m->nodes[nd->first];
        r = l + 1;
        for (k = 0; k < 3; k++) {
            nd->lo[k] = l->lo[k] < r->lo[k] ? l->lo[k] : r->lo[k];
            nd->hi[k] = l->hi[k] > r->hi[k] ? l->hi[k] : r->hi[k];
        }
    }
    if (m->nodes[0].count == 0) {
        const cl_mnode *l = &m->nodes[m->nodes[0].first], *r = l + 1;
        int k;
        for (k = 0; k < 3; k++) {
            m->nodes[0].lo[k] = l->lo[k] < r->lo[k] ? l->lo[k] : r->lo[k];
            m->nodes[0].hi[k] = l->hi[k] > r->hi[k] ? l->hi[k] : r->hi[k];
        }
    }
    if (used < nn) {  /* give back the unused node slots, the nodes moved back to an aligned address */
        size_t off = (size_t)((unsigned char *)m->nodes - (unsigned char *)m->nodemem);
        void *s = m->alloc(m->ud, m->nodemem, nn * sizeof(cl_mnode) + 64, used * sizeof(cl_mnode) + 64);
        if (s != NULL) {
            m->nodemem = s;
            m->nodes = (cl_mnode *)cl_align64(s);
            if ((unsigned char *)m->nodes != (unsigned char *)s + off)
                memmove(m->nodes, (unsigned char *)s + off, used * sizeof(cl_mnode));
            m->nnodes = used;
        }
    }
done:
    m->alloc(m->ud, rec, m->nt * sizeof(crec), 0);
    m->alloc(m->ud, bx, m->nt * sizeof(fb4), 0);
    leafidx(m);
    return CL_OK;
}

/* ---- queries ---- */

/* Enclosing double box of node n, scaled by sc. */
static inline cl_aabb nodebox(const cl_mnode *n, double sc)
{
    cl_aabb b;
    b.min = cl_v3(n->lo[0] * sc, n->lo[1] * sc, n->lo[2] * sc);
    b.max = cl_v3(n->hi[0] * sc, n->hi[1] * sc, n->hi[2] * sc);
    return b;
}

/* A ray prepared for the node tests: origin, reciprocal direction (1/0 = +-inf for an axis it runs
 * parallel to), per axis the offset of the face it enters first in a node's float[6] box (lo[k] at
 * k, hi[k] at 3 + k) and whether the axis counts in entry distances (use: a nonzero component
 * with a finite reciprocal), the slack of the box tests, and the triangle test's set-up with the
 * scale of the data (sc, a power of two) it runs at. */
typedef struct mray {
    double o[3], inv[3], d[3], slack, sc;
    int nearf[3], farf[3], use[3], div;
    cl_tray tr;
} mray;

/* The lower bound on a triangle's t that the walk prunes by, from an entry distance e >= 0 (of a
 * node's box or a triangle's): e less 2^-44 of it and the slack, e capped at DBL_MAX. Nondecreasing
 * in e (the product by 1 - 2^-44, exact, then the difference: each rounding is monotone), so a
 * triangle's bound is at least that of every node holding it. */
static CL_INLINE double lowt(double e, const mray *r)
{
    e = e < DBL_MAX ? e : DBL_MAX;
    return e * (1 - SLACK) - r->slack;
}

/* The entry distance (at least 0) of the ray into node n's box over the axes it uses, each
 * (near face - o) * inv: rayslab's entry for a box the ray meets when div is 0, computed alone when
 * div is 1 (rayslab divides then). */
static CL_INLINE double rayent(const cl_mnode *n, const mray *r)
{
    float f[6];
    double e = 0, a;
    int k;
    memcpy(f, n, sizeof f);
    for (k = 0; k < 3; k++) {
        if (!r->use[k]) continue;
        a = ((double)f[r->nearf[k]] - r->o[k]) * r->inv[k];
        e = a > e ? a : e;
    }
    return e;
}

/* The same entry distance into a triangle's own box (its unscaled vertices pa, pb, pc). The
 * triangle's box lies inside the float box of every node holding it and each step rounds
 * monotonically, so this is at least each such node's rayent (and rayslab's entry): lowt of it
 * bounds the node's. */
static double trient(const double *pa, const double *pb, const double *pc, const mray *r)
{
    double e = 0, x;
    int k;
    for (k = 0; k < 3; k++) {
        double p = pa[k], q = pb[k], s = pc[k], f;
        if (!r->use[k]) continue;
        f = r->d[k] > 0 ? dmin(p, dmin(q, s)) : dmax(p, dmax(q, s));
        x = (f - r->o[k]) * r->inv[k];
        e = x > e ? x : e;
    }
    return e;
}

/* Entry distance of the ray into node n's box within [0, tmax], or -1 if it misses. Each axis
 * gives its entry and exit times (face - o) * inv; for a parallel axis they are +-inf, or NaN
 * with the origin exactly on a face, and the comparisons are written so that NaN never narrows
 * the interval (an origin on a face is inside the slab, inclusive). With div (a direction
 * component so small that its reciprocal overflows) the times are divisions instead, slower but
 * exact in the same way. The exit gets a relative
 * slack and an absolute one (r->slack, 2^-40 of the data's magnitude: about the rounding of a
 * triangle test's t) against rounding, so that a ray grazing a box at an edge, a corner or a face
 * holding a triangle is not lost. */
static CL_INLINE double rayslab(const cl_mnode *n, const mray *r, double tmax, int div)
{
    float f[6];  /* lo[0..2] then hi[0..2] */
    double tn = 0, tf = tmax, a, b;
    memcpy(f, n, sizeof f);
    a = div ? ((double)f[r->nearf[0]] - r->o[0]) / r->d[0] : ((double)f[r->nearf[0]] - r->o[0]) * r->inv[0];
    b = div ? ((double)f[r->farf[0]] - r->o[0]) / r->d[0] : ((double)f[r->farf[0]] - r->o[0]) * r->inv[0];
    tn = a > tn ? a : tn;
    tf = b < tf ? b : tf;
    a = div ? ((double)f[r->nearf[1]] - r->o[1]) / r->d[1] : ((double)f[r->nearf[1]] - r->o[1]) * r->inv[1];
    b = div ? ((double)f[r->farf[1]] - r->o[1]) / r->d[1] : ((double)f[r->farf[1]] - r->o[1]) * r->inv[1];
    tn = a > tn ? a : tn;
    tf = b < tf ? b : tf;
    a = div ? ((double)f[r->nearf[2]] - r->o[2]) / r->d[2] : ((double)f[r->nearf[2]] - r->o[2]) * r->inv[2];
    b = div ? ((double)f[r->farf[2]] - r->o[2]) / r->d[2] : ((double)f[r->farf[2]] - r->o[2]) * r->inv[2];
    tn = a > tn ? a : tn;
    tf = b < tf ? b : tf;
    return tn <= tf + fabs(tf) * SLACK + r->slack ? tn : -1;
}

/* The prune bound of node n if the ray meets its box (rayslab): lowt of its entry; else -HUGE_VAL
 * (lowt is never below -r->slack). */
static CL_INLINE double raynode(const cl_mnode *n, const mray *r, int div)
{
    double tn = rayslab(n, r, HUGE_VAL, div);
    if (tn < 0) return -HUGE_VAL;
    /* without div, a finite rayslab entry is rayent's: an axis the ray runs parallel to gives -inf
     * or NaN for a box it meets (the origin inside that slab), which neither counts (+inf, the
     * origin outside, is a miss unless the exits overflow too: rayent then) */
    return lowt(div || tn == HUGE_VAL ? rayent(n, r) : tn, r);
}

/* The vertex coordinates of tree triangle k (triangle i = prim[k]): from lidx (no dependent load
 * of idx), else from idx, else the three vertices at 3i. */
static CL_INLINE void leafverts(const cl_mesh *m, size_t k, size_t i, const double **pa, const double **pb,
                                const double **pc)
{
    const unsigned *x = m->lidx ? m->lidx + 3 * k : m->idx ? m->idx + 3 * i : NULL;
    if (x) {
        *pa = m->v + 3 * (size_t)x[0]; *pb = m->v + 3 * (size_t)x[1]; *pc = m->v + 3 * (size_t)x[2];
    } else {
        *pa = m->v + 9 * i; *pb = *pa + 3; *pc = *pa + 6;
    }
}

/* A triangle's hit as the walk counts it (its vertices pa, pb, pc, unscaled): the watertight test's
 * t (at scale sc) raised to lowt of the ray's entry into the triangle's box; 1 with *t when that
 * is at most lim (and finite). The raise makes the box-entry pruning exact: a ray nearly in the
 * plane of a thin triangle gets a test t far short of the true one (2^-30 of the data's
 * magnitude: fuzz_mesh), possibly short of the box entry, while a t computed well (to within the
 * slack) is never raised. */
static CL_INLINE int rayhit(const mray *mr, const double *pa, const double *pb, const double *pc, double lim,
                            double *tp)
{
    cl_vec3 a, b, c;
    double t, lo, sc = mr->sc;
    a = cl_v3(pa[0] * sc, pa[1] * sc, pa[2] * sc);
    b = cl_v3(pb[0] * sc, pb[1] * sc, pb[2] * sc);
    c = cl_v3(pc[0] * sc, pc[1] * sc, pc[2] * sc);
    if (!cl_tray_hit(&mr->tr, a, b, c, &t)) return 0;
    t /= sc;
    if (!(t <= lim && t < HUGE_VAL)) return 0;  /* raising only makes it larger */
    lo = lowt(trient(pa, pb, pc, mr), mr);
    if (lo > t) t = lo;
    if (!(t <= lim)) return 0;
    *tp = t;
    return 1;
}

/* The triangles of leaf nd against the ray: updates *best, *besti, *found (ties in t to the lowest
 * index; rayhit's lim is the best t so far, so a later hit is at most that). */
static CL_INLINE void rayleaf(const cl_mesh *m, const mray *mr, const cl_mnode *nd, double *best, size_t *besti,
                              int *found)
{
    size_t k, end = (size_t)nd->first + nd->count;
    for (k = nd->first; k < end; k++) {
        size_t i = m->prim[k];
        const double *pa, *pb, *pc;
        double t;
        leafverts(m, k, i, &pa, &pb, &pc);
        if (rayhit(mr, pa, pb, pc, *best, &t) && (!*found || t < *best || i < *besti)) {
            *best = t; *besti = i; *found = 1;
        }
    }
}

/* A walk's step once a node's children are tested: ul and ur say which is met, tl and tr their
 * bounds. Goes on to the nearer met child, pushing the other with its bound, and returns 1; or
 * returns 0 when neither is met. */
static CL_INLINE int raydescend(unsigned first, int ul, int ur, double tl, double tr, unsigned *stack,
                                double *tin, int *sp, unsigned *ni)
{
    if (ul && ur) {  /* the nearer first */
        if (tl <= tr) {
            stack[*sp] = first + 1; tin[*sp] = tr; (*sp)++;
            *ni = first;
        } else {
            stack[*sp] = first; tin[*sp] = tl; (*sp)++;
            *ni = first + 1;
        }
        return 1;
    }
    if (ul || ur) {
        *ni = first + (unsigned)!ul;
        return 1;
    }
    return 0;
}

/* Pops the next pushed node whose bound is not past best into *ni; 0 when none is left. */
static CL_INLINE int raypop(const unsigned *stack, const double *tin, int *sp, double best, unsigned *ni)
{
    do {
        if (*sp == 0) return 0;
        (*sp)--;
    } while (tin[*sp] > best);
    *ni = stack[*sp];
    return 1;
}

/* The closest-hit walk of cl_mesh_raycast from the root (whose box the ray meets): updates *best,
 * *besti and returns 1 when a triangle is hit at t <= maxt. div as rayslab's (a constant in each
 * call, so each gets its own copy). Each pushed node carries its bound (raynode): every triangle
 * in it counts a t at least that, so a node whose bound exceeds the best t so far holds nothing
 * nearer, nor a tie. The nearer child of a node is visited next, the farther one pushed. */
static CL_INLINE int raywalk(const cl_mesh *m, const mray *mr, double maxt, int div, double *bestp,
                             size_t *bestip)
{
    unsigned stack[CL_MESH_STACK];
    double tin[CL_MESH_STACK];  /* each pushed node's bound */
    double best = maxt;
    size_t besti = 0;
    int sp = 0, found = 0;
    unsigned ni = 0;
    for (;;) {
        const cl_mnode *nd = &m->nodes[ni];
        if (nd->count) {
            rayleaf(m, mr, nd, &best, &besti, &found);
        } else {
            const cl_mnode *l = &m->nodes[nd->first], *rr = l + 1;
            double tl = raynode(l, mr, div), trr = raynode(rr, mr, div);
            int ul = tl != -HUGE_VAL && !(tl > best), ur = trr != -HUGE_VAL && !(trr > best);
            if (raydescend(nd->first, ul, ur, tl, trr, stack, tin, &sp, &ni)) continue;
        }
        if (!raypop(stack, tin, &sp, best, &ni)) break;
    }
    *bestp = best;
    *bestip = besti;
    return found;
}

#if MSIMD
/* Fetches what the visit of node n (met by the ray) reads first into the caches ahead of it: its
 * children, or its triangles' vertex numbers. */
static CL_INLINE void rayfetch(const cl_mesh *m, const cl_mnode *n)
{
    if (!n->count) __builtin_prefetch(m->nodes + n->first);
    else if (m->lidx) __builtin_prefetch(m->lidx + 3 * (size_t)n->first);
}

/* raywalk without div, both children of a node tested at once in two SSE2 lanes: each child's
 * float box converted to double exactly, then rayslab's and lowt's arithmetic in the same order
 * (max / min keep the second operand, the running value, when the first is NaN, as rayslab's
 * comparisons do), so each child is met or not, with the same bound, as raynode decides; an
 * entry of +inf (rare) takes raynode itself. The children of a met inner child are fetched
 * ahead of their visit. */
static int raywalk2(const cl_mesh *m, const mray *mr, double maxt, double *bestp, size_t *bestip)
{
#define LD2(q) _mm_cvtps_pd(_mm_unpacklo_ps(_mm_load_ss((const float *)(const void *)(q)), \
                                           _mm_load_ss((const float *)(const void *)((q) + sizeof(cl_mnode)))))
    unsigned stack[CL_MESH_STACK];
    double tin[CL_MESH_STACK];  /* each pushed node's bound */
    double best = maxt, te[2];
    size_t besti = 0;
    int sp = 0, found = 0;
    unsigned ni = 0;
    const unsigned char *base = (const unsigned char *)m->nodes;
    const size_t n0 = 4 * (size_t)mr->nearf[0], n1 = 4 * (size_t)mr->nearf[1], n2 = 4 * (size_t)mr->nearf[2];
    const size_t f0 = 4 * (size_t)mr->farf[0], f1 = 4 * (size_t)mr->farf[1], f2 = 4 * (size_t)mr->farf[2];
    const __m128d o0 = _mm_set1_pd(mr->o[0]), o1 = _mm_set1_pd(mr->o[1]), o2 = _mm_set1_pd(mr->o[2]);
    const __m128d v0 = _mm_set1_pd(mr->inv[0]), v1 = _mm_set1_pd(mr->inv[1]), v2 = _mm_set1_pd(mr->inv[2]);
    const __m128d zero = _mm_setzero_pd(), huge = _mm_set1_pd(HUGE_VAL), sign = _mm_set1_pd(-0.0);
    const __m128d rel = _mm_set1_pd(SLACK), abs_ = _mm_set1_pd(mr->slack), dmaxv = _mm_set1_pd(DBL_MAX);
    const __m128d low = _mm_set1_pd(1 - SLACK);
    for (;;) {
        const cl_mnode *nd = (const cl_mnode *)(const void *)(base + (size_t)ni * sizeof(cl_mnode));
        if (nd->count) {
            rayleaf(m, mr, nd, &best, &besti, &found);
        } else {
            const unsigned char *p = base + (size_t)nd->first * sizeof(cl_mnode);
            __m128d tn, tf;
            int hit;
            tn = _mm_max_pd(_mm_mul_pd(_mm_sub_pd(LD2(p + n0), o0), v0), zero);
            tf = _mm_min_pd(_mm_mul_pd(_mm_sub_pd(LD2(p + f0), o0), v0), huge);
            tn = _mm_max_pd(_mm_mul_pd(_mm_sub_pd(LD2(p + n1), o1), v1), tn);
            tf = _mm_min_pd(_mm_mul_pd(_mm_sub_pd(LD2(p + f1), o1), v1), tf);
            tn = _mm_max_pd(_mm_mul_pd(_mm_sub_pd(LD2(p + n2), o2), v2), tn);
            tf = _mm_min_pd(_mm_mul_pd(_mm_sub_pd(LD2(p + f2), o2), v2), tf);
            /* tn <= tf + |tf| * SLACK + slack */
            hit = _mm_movemask_pd(_mm_cmple_pd(tn, _mm_add_pd(_mm_add_pd(tf, _mm_mul_pd(_mm_andnot_pd(sign, tf), rel)),
                                                              abs_)));
            if (hit) {
                const cl_mnode *l = (const cl_mnode *)(const void *)p;
                int ul, ur;
                _mm_storeu_pd(te, _mm_sub_pd(_mm_mul_pd(_mm_min_pd(tn, dmaxv), low), abs_));
                if (_mm_movemask_pd(_mm_cmpeq_pd(tn, huge)) & hit) {
                    if (hit & 1) te[0] = raynode(l, mr, 0);
                    if (hit & 2) te[1] = raynode(l + 1, mr, 0);
                }
                ul = (hit & 1) && !(te[0] > best);
                ur = (hit & 2) && !(te[1] > best);
                if (ul) rayfetch(m, l);
                if (ur) rayfetch(m, l + 1);
                if (raydescend(nd->first, ul, ur, te[0], te[1], stack, tin, &sp, &ni)) continue;
            }
        }
        if (!raypop(stack, tin, &sp, best, &ni)) break;
    }
    *bestp = best;
    *bestip = besti;
    return found;
#undef LD2
}
#endif

/* Sets up mr for the ray r against mesh m. */
static void rayprep(const cl_mesh *m, const cl_ray *r, mray *mr)
{
    cl_ray rs;
    int k;
    double mx = fmax(m->maxabs, cl_maxabs3(r->o.x, r->o.y, r->o.z));
    mr->sc = scalefor(mx);
    rs.o = cl_mul(r->o, mr->sc);
    rs.d = r->d;
    cl_tray_make(&mr->tr, &rs);
    mr->o[0] = r->o.x; mr->o[1] = r->o.y; mr->o[2] = r->o.z;
    mr->slack = mx * 0x1p-40;
    mr->div = 0;
    for (k = 0; k < 3; k++) {
        double d = cl_comp(r->d, k);
        mr->d[k] = d;
        mr->inv[k] = 1.0 / d;
        mr->use[k] = d != 0 && isfinite(mr->inv[k]);
        if (d != 0 && !isfinite(mr->inv[k])) mr->div = 1;
        mr->nearf[k] = signbit(d) ? 3 + k : k;
        mr->farf[k] = signbit(d) ? k : 3 + k;
    }
}

int cl_mesh_raycast(const cl_mesh *m, const cl_ray *r, double maxt, cl_hit *out, size_t *tri)
{
    double best, root;
    size_t besti;
    int found;
    mray mr;
    if (m->nprim == 0) return 0;
    rayprep(m, r, &mr);
    root = raynode(&m->nodes[0], &mr, mr.div);
    if (root == -HUGE_VAL || root > maxt) return 0;
    if (mr.div) found = raywalk(m, &mr, maxt, 1, &best, &besti);
    else
#if MSIMD
        found = raywalk2(m, &mr, maxt, &best, &besti);
#else
        found = raywalk(m, &mr, maxt, 0, &best, &besti);
#endif
    if (!found) return 0;
    {
        cl_vec3 a, b, c;
        trisc(m, besti, mr.sc, &a, &b, &c);
        out->t = best == 0 ? 0 : best;  /* a ray starting on a triangle: t = +0, not the edge test's -0 */
        out->n = cl_tri_normal(a, b, c, r->d);
        *tri = besti;
    }
    return 1;
}

int cl_mesh_rayhit(const cl_mesh *m, const cl_ray *r, size_t i, double maxt, double *t)
{
    mray mr;
    cl_vec3 a, b, c;
    const double *pa, *pb, *pc;
    if (i >= m->nt) return 0;
    trisc(m, i, scalefor(m->maxabs), &a, &b, &c);  /* the tree's triangles: as cl_mesh_build picks them */
    if (cl_tri_degenerate(a, b, c)) return 0;
    rayprep(m, r, &mr);
    if (m->idx) {
        pa = m->v + 3 * (size_t)m->idx[3 * i]; pb = m->v + 3 * (size_t)m->idx[3 * i + 1];
        pc = m->v + 3 * (size_t)m->idx[3 * i + 2];
    } else {
        pa = m->v + 9 * i; pb = pa + 3; pc = pa + 6;
    }
    if (!rayhit(&mr, pa, pb, pc, maxt, t)) return 0;
    if (*t == 0) *t = 0;
    return 1;
}

/* Fills m->lidx (see mesh.h) after the build, for an indexed mesh with tree triangles; on a failed
 * allocation it stays NULL and the ray walk reads idx instead (the same vertices). */
static void leafidx(cl_mesh *m)
{
    size_t k;
    m->lidx = NULL;
    if (m->idx == NULL || m->nprim == 0) return;
    m->lidx = (unsigned *)m->alloc(m->ud, NULL, 0, 3 * m->nprim * sizeof(unsigned));
    if (m->lidx == NULL) return;
    for (k = 0; k < m->nprim; k++) memcpy(m->lidx + 3 * k, m->idx + 3 * (size_t)m->prim[k], 3 * sizeof(unsigned));
}

/* A query shape scaled by sc, its enclosing box (unscaled, for the node tests) and whether
 * triangle i overlaps it. */
typedef struct squery { cl_shape s; cl_capsule cap; int capsule; cl_aabb box; double sc; } squery;

static void squery_capsule(const cl_mesh *m, const cl_capsule *cp, squery *q);

/* Sets up q for s; 0 if the kind is not supported. */
static int squery_make(const cl_mesh *m, const cl_shape *s, squery *q)
{
    double mx;
    if (s->kind == CL_CAPSULE) {
        squery_capsule(m, &s->u.capsule, q);
        return 1;
    }
    q->s = *s;
    q->capsule = 0;
    switch (s->kind) {
    case CL_AABB:
        q->box = s->u.aabb;
        break;
    case CL_OBB:
        q->box = cl_obb_aabb(&s->u.obb);
        break;
    case CL_SPHERE:
        q->box = cl_sphere_aabb(&s->u.sphere);
        break;
    default:
        return 0;
    }
    mx = cl_maxabs3(q->box.min.x, q->box.min.y, q->box.min.z);
    if (cl_maxabs3(q->box.max.x, q->box.max.y, q->box.max.z) > mx) mx = cl_maxabs3(q->box.max.x, q->box.max.y, q->box.max.z);
    if (s->kind == CL_OBB && cl_maxabs3(s->u.obb.h.x, s->u.obb.h.y, s->u.obb.h.z) > mx)
        mx = cl_maxabs3(s->u.obb.h.x, s->u.obb.h.y, s->u.obb.h.z);
    if (s->kind == CL_SPHERE && s->u.sphere.r > mx) mx = s->u.sphere.r;
    q->sc = scalefor(cl_fmax(mx, m->maxabs));
    if (q->sc != 1) {
        switch (s->kind) {
        case CL_AABB:
            q->s.u.aabb.min = cl_mul(s->u.aabb.min, q->sc);
            q->s.u.aabb.max = cl_mul(s->u.aabb.max, q->sc);
            break;
        case CL_OBB:
            q->s.u.obb.c = cl_mul(s->u.obb.c, q->sc);
            q->s.u.obb.h = cl_mul(s->u.obb.h, q->sc);
            break;
        default:
            q->s.u.sphere.c = cl_mul(s->u.sphere.c, q->sc);
            q->s.u.sphere.r = s->u.sphere.r * q->sc;
            break;
        }
    }
    return 1;
}

/* 1 if triangle i overlaps the query's shape. */
static int squery_tri(const cl_mesh *m, const squery *q, size_t i)
{
    cl_vec3 a, b, c;
    trisc(m, i, q->sc, &a, &b, &c);
    if (q->capsule) return cl_tri_overlaps_capsule(a, b, c, &q->cap);
    switch (q->s.kind) {
    case CL_AABB: return cl_tri_overlaps_aabb(a, b, c, &q->s.u.aabb);
    case CL_OBB:  return cl_tri_overlaps_obb(a, b, c, &q->s.u.obb);
    default:      return cl_tri_overlaps_sphere(a, b, c, &q->s.u.sphere);
    }
}

/* 1 if node n's box overlaps the box b (inclusive). */
static inline int nodeoverlaps(const cl_mnode *n, const cl_aabb *b)
{
    return !(n->lo[0] > b->max.x || n->hi[0] < b->min.x || n->lo[1] > b->max.y || n->hi[1] < b->min.y ||
             n->lo[2] > b->max.z || n->hi[2] < b->min.z);
}

/* The capsule query: box and scale as squery_make's. */
static void squery_capsule(const cl_mesh *m, const cl_capsule *cp, squery *q)
{
    double mx;
    q->capsule = 1;
    q->cap = *cp;
    q->box = cl_segbox(cp->a, cp->b, cp->r);
    mx = fmax(cl_maxabs3(q->box.min.x, q->box.min.y, q->box.min.z), cl_maxabs3(q->box.max.x, q->box.max.y, q->box.max.z));
    q->sc = scalefor(fmax(fmax(mx, cp->r), m->maxabs));
    if (q->sc != 1) {
        q->cap.a = cl_mul(cp->a, q->sc);
        q->cap.b = cl_mul(cp->b, q->sc);
        q->cap.r = cp->r * q->sc;
    }
}

/* The overlap walk of a prepared query: calls visit for each triangle overlapping it until visit
 * returns nonzero; returns the number of calls. */
static size_t qwalk(const cl_mesh *m, const squery *q, cl_mesh_visit visit, void *ud)
{
    unsigned stack[CL_MESH_STACK];
    int sp = 0;
    size_t calls = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        const cl_mnode *nd = &m->nodes[stack[--sp]];
        if (!nodeoverlaps(nd, &q->box)) continue;
        if (nd->count) {
            unsigned j;
            for (j = 0; j < nd->count; j++) {
                size_t i = m->prim[nd->first + j];
                if (squery_tri(m, q, i)) {
                    calls++;
                    if (visit(ud, i)) return calls;
                }
            }
        } else {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
        }
    }
    return calls;
}

/* 1 when the triangle abc lies wholly beyond one face of the box b (tri.c's first test of
 * cl_tri_overlaps_aabb, the same exact comparisons): it cannot overlap it. */
static inline int tri_box_apart(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_aabb *x)
{
    return (a.x < x->min.x && b.x < x->min.x && c.x < x->min.x) || (a.x > x->max.x && b.x > x->max.x && c.x > x->max.x) ||
           (a.y < x->min.y && b.y < x->min.y && c.y < x->min.y) || (a.y > x->max.y && b.y > x->max.y && c.y > x->max.y) ||
           (a.z < x->min.z && b.z < x->min.z && c.z < x->min.z) || (a.z > x->max.z && b.z > x->max.z && c.z > x->max.z);
}

size_t cl_mesh_query_lazy(const cl_mesh *m, const cl_aabb *box, cl_mesh_visit pre, cl_mesh_visit post, void *ud)
{
    unsigned stack[CL_MESH_STACK];
    int sp = 0;
    size_t calls = 0;
    cl_shape s;
    squery q;
    if (m->nprim == 0) return 0;
    s.kind = CL_AABB;
    s.u.aabb = *box;
    (void)squery_make(m, &s, &q);
    /* qwalk's walk, its triangle test split: the cheap part first (a triangle it fails is never
     * visited), then pre, and the exact test only for triangles pre keeps */
    stack[sp++] = 0;
    while (sp > 0) {
        const cl_mnode *nd = &m->nodes[stack[--sp]];
        if (!nodeoverlaps(nd, &q.box)) continue;
        if (nd->count) {
            unsigned j;
            for (j = 0; j < nd->count; j++) {
                size_t i = m->prim[nd->first + j];
                cl_vec3 a, b, c;
                trisc(m, i, q.sc, &a, &b, &c);
                if (tri_box_apart(a, b, c, &q.s.u.aabb) || !pre(ud, i) ||
                    !cl_tri_overlaps_aabb(a, b, c, &q.s.u.aabb))
                    continue;
                calls++;
                if (post(ud, i)) return calls;
            }
        } else {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
        }
    }
    return calls;
}

size_t cl_mesh_candidates(const cl_mesh *m, const cl_aabb *box, unsigned *out, size_t cap)
{
    unsigned stack[CL_MESH_STACK];
    int sp = 0;
    size_t n = 0;
    cl_shape s;
    squery q;
    if (m->nprim == 0) return 0;
    s.kind = CL_AABB;
    s.u.aabb = *box;
    (void)squery_make(m, &s, &q);
    if (q.sc != 1) return CL_MESH_UNSURE;
    stack[sp++] = 0;
    while (sp > 0) {
        const cl_mnode *nd = &m->nodes[stack[--sp]];
        if (!nodeoverlaps(nd, &q.box)) continue;
        if (nd->count) {
            unsigned j;
            for (j = 0; j < nd->count; j++) {
                unsigned i = m->prim[nd->first + j];
                if (tri_box_apart(vert(m, i, 0), vert(m, i, 1), vert(m, i, 2), box)) continue;
                if (n < cap) out[n] = i;
                n++;
            }
        } else {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
        }
    }
    return n;
}

/* The walk of a box b inside box c visits a subsequence of c's nodes in the same order (a node
 * that overlaps b overlaps c), so b's candidates appear in c's list in b's order; and a triangle
 * of c's list not beyond a face of b is one of b's: its box overlaps b, so do the float boxes of
 * its leaf and of that leaf's ancestors (rounded outward from its box), and b's walk meets it. */
/* 1 when squery_make's scale for the box (an AABB query) is 1: its computation of it, without
 * the copy of the box into a query. */
static int box_unscaled(const cl_mesh *m, const cl_aabb *box)
{
    double mx = cl_maxabs3(box->min.x, box->min.y, box->min.z);
    if (cl_maxabs3(box->max.x, box->max.y, box->max.z) > mx) mx = cl_maxabs3(box->max.x, box->max.y, box->max.z);
    return scalefor(cl_fmax(mx, m->maxabs)) == 1;
}

size_t cl_mesh_candidates_in(const cl_mesh *m, const cl_aabb *box, const unsigned *list, size_t n, unsigned *out,
                             size_t cap)
{
    size_t k, r = 0;
    if (m->nprim == 0) return 0;
    if (!box_unscaled(m, box)) return CL_MESH_UNSURE;
    for (k = 0; k < n; k++) {
        unsigned i = list[k];
        if (tri_box_apart(vert(m, i, 0), vert(m, i, 1), vert(m, i, 2), box)) continue;
        if (r < cap) out[r] = i;
        r++;
    }
    return r;
}

size_t cl_mesh_query_list(const cl_mesh *m, const cl_aabb *box, const unsigned *list, size_t n, cl_mesh_visit pre,
                          cl_mesh_visit post, void *ud)
{
    size_t calls = 0, k;
    int inr;
    if (m->nprim == 0) return 0;
    if (!box_unscaled(m, box)) return CL_MESH_UNSURE;
    inr = -1;       /* whether cl_tri_vertex_in may decide: found when first needed */
    /* cl_mesh_query_lazy's triangles: those of the list (every triangle of a leaf the walk of a
     * larger box met that is not beyond a face of it, in walk order) not beyond a face of box;
     * the exact test's answer is 1 when a vertex lies in the box (cl_tri_vertex_in) */
    for (k = 0; k < n; k++) {
        size_t i = list[k];
        cl_vec3 a = vert(m, i, 0), b = vert(m, i, 1), c = vert(m, i, 2);
        int r;
        if (tri_box_apart(a, b, c, box) || !(r = pre(ud, i))) continue;
        if (r != CL_MESH_PRE_OVERLAPS) {
            /* sc == 1: the mesh's coordinates are at most 2^200 (or the box's are not finite) */
            if (inr < 0)
                inr = cl_maxabs3(box->min.x, box->min.y, box->min.z) <= 0x1p200 &&
                      cl_maxabs3(box->max.x, box->max.y, box->max.z) <= 0x1p200;
            if (!(inr && cl_tri_vertex_in(a, b, c, box)) && !cl_tri_overlaps_aabb(a, b, c, box)) continue;
        }
        calls++;
        if (post(ud, i)) return calls;
    }
    return calls;
}

size_t cl_mesh_query_each(const cl_mesh *m, const cl_shape *s, cl_mesh_visit visit, void *ud)
{
    squery q;
    if (m->nprim == 0 || !squery_make(m, s, &q)) return 0;
    return qwalk(m, &q, visit, ud);
}

size_t cl_mesh_capsule_each(const cl_mesh *m, const cl_capsule *cp, cl_mesh_visit visit, void *ud)
{
    squery q;
    if (m->nprim == 0) return 0;
    squery_capsule(m, cp, &q);
    return qwalk(m, &q, visit, ud);
}

/* Visitor of cl_mesh_overlaps: stops at the first triangle. */
static int visit_stop(void *ud, size_t i)
{
    (void)ud; (void)i;
    return 1;
}

int cl_mesh_overlaps(const cl_mesh *m, const cl_shape *s)
{
    return cl_mesh_query_each(m, s, visit_stop, NULL) > 0;
}

/* Output buffer of cl_mesh_query. */
typedef struct qout { unsigned *out; size_t cap, n; } qout;

/* Visitor of cl_mesh_query: stores the index while there is room. */
static int visit_store(void *ud, size_t i)
{
    qout *o = (qout *)ud;
    if (o->n < o->cap) o->out[o->n] = (unsigned)i;
    o->n++;
    return 0;
}

/* qsort order of unsigned indices. */
static int cmpu(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* Sorts the indices a query stored, when they all fitted; returns their number. */
static size_t qsorted(qout *o)
{
    if (o->n <= o->cap && o->n > 1) qsort(o->out, o->n, sizeof *o->out, cmpu);
    return o->n;
}

size_t cl_mesh_query(const cl_mesh *m, const cl_shape *s, unsigned *out, size_t cap)
{
    qout o;
    o.out = out; o.cap = cap; o.n = 0;
    cl_mesh_query_each(m, s, visit_store, &o);
    return qsorted(&o);
}

int cl_mesh_overlaps_capsule(const cl_mesh *m, const cl_capsule *cp)
{
    return cl_mesh_capsule_each(m, cp, visit_stop, NULL) > 0;
}

size_t cl_mesh_query_capsule(const cl_mesh *m, const cl_capsule *cp, unsigned *out, size_t cap)
{
    qout o;
    o.out = out; o.cap = cap; o.n = 0;
    cl_mesh_capsule_each(m, cp, visit_store, &o);
    return qsorted(&o);
}

/* Squared distance from p to the box b (0 inside). */
static inline double boxdist2(const cl_aabb *b, cl_vec3 p)
{
    double dx = p.x < b->min.x ? b->min.x - p.x : (p.x > b->max.x ? p.x - b->max.x : 0);
    double dy = p.y < b->min.y ? b->min.y - p.y : (p.y > b->max.y ? p.y - b->max.y : 0);
    double dz = p.z < b->min.z ? b->min.z - p.z : (p.z > b->max.z ? p.z - b->max.z : 0);
    return dx * dx + dy * dy + dz * dz;
}

int cl_mesh_closest(const cl_mesh *m, cl_vec3 p, cl_vec3 *q, size_t *tri)
{
    struct { unsigned node; double d; } stack[CL_MESH_STACK];
    int sp = 0, found = 0;
    double best = HUGE_VAL, sc;
    size_t besti = 0;
    cl_vec3 bq = p, ps;
    if (m->nprim == 0) return 0;
    sc = scalefor(fmax(m->maxabs, cl_maxabs3(p.x, p.y, p.z)));
    ps = cl_mul(p, sc);
    stack[sp].node = 0; stack[sp].d = 0; sp++;
    while (sp > 0) {
        const cl_mnode *nd;
        sp--;
        /* cl_tri_closest's point lies in its triangle's box, inside this node's: its distance is
         * at least the node's up to rounding (relative, and absolute among subnormals), so the
         * node can hold a closer or tied triangle only within that margin */
        if (stack[sp].d > best * (1 + SLACK) + 0x1p-1060) continue;
        nd = &m->nodes[stack[sp].node];
        if (nd->count) {
            unsigned j;
            for (j = 0; j < nd->count; j++) {
                size_t i = m->prim[nd->first + j];
                cl_vec3 a, b, c, x, e;
                double d;
                trisc(m, i, sc, &a, &b, &c);
                x = cl_tri_closest(a, b, c, ps);
                e = cl_sub(x, ps);
                d = cl_dot(e, e);
                if (!found || d < best || (d == best && i < besti)) {
                    best = d; besti = i; bq = x; found = 1;
                }
            }
        } else {
            unsigned l = nd->first;
            cl_aabb bl = nodebox(&m->nodes[l], sc), br = nodebox(&m->nodes[l + 1], sc);
            double dl = boxdist2(&bl, ps), dr = boxdist2(&br, ps);
            /* the nearer child is popped first */
            if (dl <= dr) {
                stack[sp].node = l + 1; stack[sp].d = dr; sp++;
                stack[sp].node = l; stack[sp].d = dl; sp++;
            } else {
                stack[sp].node = l; stack[sp].d = dl; sp++;
                stack[sp].node = l + 1; stack[sp].d = dr; sp++;
            }
        }
    }
    if (sc != 1) {  /* back to the mesh's scale, kept in its box (no overflow, no NaN) */
        int e = -cl_exp2of(sc) + 1;
        bq = cl_v3(cl_scale2(bq.x, e), cl_scale2(bq.y, e), cl_scale2(bq.z, e));
        bq = cl_v3(fmax(m->box.min.x, fmin(m->box.max.x, bq.x)), fmax(m->box.min.y, fmin(m->box.max.y, bq.y)),
                   fmax(m->box.min.z, fmin(m->box.max.z, bq.z)));
    }
    *q = bq;
    *tri = besti;
    return found;
}
