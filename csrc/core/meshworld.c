/* collide core: placed meshes, the World's mesh items (cl_pmesh, kind CL_MESH). A placed mesh is
 * a mesh (mesh.h, shared, not owned) with a translation and orthonormal axes; every test brings
 * the other shape into the mesh's own frame (p -> U^T (p - c): exact when the axes are the world
 * axes, the default placement) and runs there through the mesh's hierarchy, then turns normals
 * back. Sweeps and pushes go triangle by triangle (trisweep.c) over the triangles the swept box
 * meets. Never allocates. */
#include <math.h>
#include <string.h>
#include "vec.h"
#include "mesh.h"

/* 1 when the axes are exactly the world axes (the frame change is then a translation). */
/* The largest of three doubles (NaN-free data). */
static double maxd3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

static int world_axes(const cl_pmesh *pm)
{
    return pm->u[0].x == 1 && pm->u[0].y == 0 && pm->u[0].z == 0 && pm->u[1].x == 0 && pm->u[1].y == 1 &&
           pm->u[1].z == 0 && pm->u[2].x == 0 && pm->u[2].y == 0 && pm->u[2].z == 1;
}

/* Returns the direction v in the mesh's frame. */
static cl_vec3 dir_in(const cl_pmesh *pm, cl_vec3 v)
{
    return cl_v3(cl_dot(pm->u[0], v), cl_dot(pm->u[1], v), cl_dot(pm->u[2], v));
}

/* Returns the point p in the mesh's frame. */
static cl_vec3 point_in(const cl_pmesh *pm, cl_vec3 p)
{
    return dir_in(pm, cl_sub(p, pm->c));
}

/* Returns the mesh-frame direction v in the world. */
static cl_vec3 dir_out(const cl_pmesh *pm, cl_vec3 v)
{
    return cl_add(cl_add(cl_mul(pm->u[0], v.x), cl_mul(pm->u[1], v.y)), cl_mul(pm->u[2], v.z));
}

/* Returns the mesh-frame point p in the world. */
static cl_vec3 point_out(const cl_pmesh *pm, cl_vec3 p)
{
    return cl_add(pm->c, dir_out(pm, p));
}

/* Sets *out to shape s (AABB, OBB, Sphere or Capsule) in the mesh's frame: an AABB stays one when
 * the axes are the world axes, else it becomes an OBB. */
static void shape_in(const cl_pmesh *pm, const cl_shape *s, cl_shape *out)
{
    int i;
    switch (s->kind) {
    case CL_AABB:
        if (world_axes(pm)) {
            out->kind = CL_AABB;
            out->u.aabb.min = cl_sub(s->u.aabb.min, pm->c);
            out->u.aabb.max = cl_sub(s->u.aabb.max, pm->c);
            return;
        }
        out->kind = CL_OBB;
        out->u.obb = cl_obb_from_aabb(&s->u.aabb);
        for (i = 0; i < 3; i++) out->u.obb.u[i] = dir_in(pm, out->u.obb.u[i]);
        out->u.obb.c = point_in(pm, out->u.obb.c);
        return;
    case CL_OBB:
        out->kind = CL_OBB;
        out->u.obb.c = point_in(pm, s->u.obb.c);
        out->u.obb.h = s->u.obb.h;
        for (i = 0; i < 3; i++) out->u.obb.u[i] = dir_in(pm, s->u.obb.u[i]);
        return;
    case CL_CAPSULE:
        out->kind = CL_CAPSULE;
        out->u.capsule.a = point_in(pm, s->u.capsule.a);
        out->u.capsule.b = point_in(pm, s->u.capsule.b);
        out->u.capsule.r = s->u.capsule.r;
        return;
    default:
        out->kind = CL_SPHERE;
        out->u.sphere.c = point_in(pm, s->u.sphere.c);
        out->u.sphere.r = s->u.sphere.r;
        return;
    }
}

cl_aabb cl_pmesh_aabb(const cl_pmesh *pm)
{
    const cl_aabb *b = &pm->m->box;
    cl_vec3 mc = cl_mul(cl_add(b->min, b->max), 0.5), mh = cl_mul(cl_sub(b->max, b->min), 0.5), c, h;
    cl_aabb r;
    if (world_axes(pm)) {
        r.min = cl_add(b->min, pm->c);
        r.max = cl_add(b->max, pm->c);
        return r;
    }
    c = point_out(pm, mc);
    h.x = fabs(pm->u[0].x) * mh.x + fabs(pm->u[1].x) * mh.y + fabs(pm->u[2].x) * mh.z;
    h.y = fabs(pm->u[0].y) * mh.x + fabs(pm->u[1].y) * mh.y + fabs(pm->u[2].y) * mh.z;
    h.z = fabs(pm->u[0].z) * mh.x + fabs(pm->u[1].z) * mh.y + fabs(pm->u[2].z) * mh.z;
    r.min = cl_sub(c, h);
    r.max = cl_add(c, h);
    return r;
}

int cl_pmesh_contains(const cl_pmesh *pm, cl_vec3 p)
{
    cl_shape s;
    s.kind = CL_SPHERE;
    s.u.sphere.c = point_in(pm, p);
    s.u.sphere.r = 0;
    return cl_mesh_overlaps(pm->m, &s);
}

int cl_pmesh_raycast(const cl_pmesh *pm, const cl_ray *r, double maxt, cl_hit *out, size_t *tri)
{
    cl_ray lr;
    size_t i;
    lr.o = point_in(pm, r->o);
    lr.d = dir_in(pm, r->d);
    if (!cl_mesh_raycast(pm->m, &lr, maxt, out, &i)) return 0;
    out->n = dir_out(pm, out->n);
    if (tri) *tri = i;
    return 1;
}

cl_vec3 cl_pmesh_closest(const cl_pmesh *pm, cl_vec3 p)
{
    cl_vec3 q;
    size_t i;
    if (!cl_mesh_closest(pm->m, point_in(pm, p), &q, &i)) return p;
    return point_out(pm, q);
}

/* The side of the points v[0..2] of the plane n.x + d = 0: 1 all in front, -1 all behind, else 0. */
static int tri_side(const cl_vec3 *v, cl_vec3 n, double d)
{
    double a = cl_dot(n, v[0]) + d, b = cl_dot(n, v[1]) + d, c = cl_dot(n, v[2]) + d;
    if (a > 0 && b > 0 && c > 0) return 1;
    if (a < 0 && b < 0 && c < 0) return -1;
    return 0;
}

int cl_pmesh_plane(const cl_pmesh *pm, cl_vec3 n, double d)
{
    const cl_mesh *m = pm->m;
    unsigned st[CL_MESH_STACK];
    int sp = 0, side = 2;       /* 2: nothing seen yet */
    double tol;
    cl_vec3 ln = dir_in(pm, n);
    double ld = d + cl_dot(n, pm->c);
    /* no triangle to see (all degenerate): behind every plane, as it overlaps nothing (1 made
     * world:queryplanes keep it or not by whether the tree's box of its vertices was culled) */
    if (m->nprim == 0) return -1;
    /* a node is decided without its triangles only when its box is clear of the plane by more
     * than the rounding of the triangles' own sums */
    tol = 1e-12 * ((fabs(ln.x) + fabs(ln.y) + fabs(ln.z)) * (m->maxabs + 1) + fabs(ld));
    st[sp++] = 0;
    while (sp > 0) {
        const cl_mnode *nd = &m->nodes[st[--sp]];
        double lo = ld, hi = ld;
        int k;
        const float *bl = nd->lo, *bh = nd->hi;
        double c3[3];
        c3[0] = ln.x; c3[1] = ln.y; c3[2] = ln.z;
        for (k = 0; k < 3; k++) {
            double x = c3[k] * bl[k], y = c3[k] * bh[k];
            lo += x < y ? x : y;
            hi += x < y ? y : x;
        }
        if (lo > tol || hi < -tol) {
            int s = lo > tol ? 1 : -1;
            if (side == 2) side = s;
            else if (side != s) return 0;
            continue;
        }
        if (nd->count == 0) {
            st[sp++] = nd->first;
            st[sp++] = nd->first + 1;
            continue;
        }
        for (k = 0; k < (int)nd->count; k++) {
            cl_vec3 v[3];
            int s;
            cl_mesh_triangle(m, m->prim[nd->first + k], &v[0], &v[1], &v[2]);
            s = tri_side(v, ln, ld);
            if (s == 0) return 0;
            if (side == 2) side = s;
            else if (side != s) return 0;
        }
    }
    return side;
}

/* One triangle of a placed mesh (in the other mesh's frame) and whether it met a triangle of m. */
typedef struct trivisit {
    const cl_mesh *m;
    cl_vec3 t[3];
    int hit;
} trivisit;

/* Visitor of a triangle's box query: stops (1) when triangle i overlaps v->t. */
static int visit_tri(void *ud, size_t i)
{
    trivisit *v = (trivisit *)ud;
    cl_vec3 q[3];
    cl_mesh_triangle(v->m, i, &q[0], &q[1], &q[2]);
    v->hit = cl_tri_overlaps_tri(v->t, q);
    return v->hit;
}

/* Returns the box of the three points. */
static cl_aabb box3(const cl_vec3 *t)
{
    cl_aabb b;
    int k;
    b.min = b.max = t[0];
    for (k = 1; k < 3; k++) {
        b.min = cl_v3(fmin(b.min.x, t[k].x), fmin(b.min.y, t[k].y), fmin(b.min.z, t[k].z));
        b.max = cl_v3(fmax(b.max.x, t[k].x), fmax(b.max.y, t[k].y), fmax(b.max.z, t[k].z));
    }
    return b;
}

/* 1 if some triangle of placed mesh a overlaps some triangle of placed mesh b: a's triangles that
 * meet b's box, each brought into b's frame and tested against the triangles of b its box meets. */
static int meshes_overlap(const cl_pmesh *a, const cl_pmesh *b)
{
    cl_aabb ba = cl_pmesh_aabb(a), bb = cl_pmesh_aabb(b);
    trivisit v;
    size_t i;
    if (!cl_aabb_overlaps_aabb(&ba, &bb)) return 0;
    v.m = b->m;
    for (i = 0; i < a->m->nt; i++) {
        cl_shape q;
        int k;
        cl_mesh_triangle(a->m, i, &v.t[0], &v.t[1], &v.t[2]);
        if (cl_tri_degenerate(v.t[0], v.t[1], v.t[2])) continue;
        for (k = 0; k < 3; k++) v.t[k] = point_out(a, v.t[k]);
        q.u.aabb = box3(v.t);
        if (!cl_aabb_overlaps_aabb(&q.u.aabb, &bb)) continue;
        for (k = 0; k < 3; k++) v.t[k] = point_in(b, v.t[k]);
        q.kind = CL_AABB;
        q.u.aabb = box3(v.t);
        v.hit = 0;
        (void)cl_mesh_query_each(b->m, &q, visit_tri, &v);
        if (v.hit) return 1;
    }
    return 0;
}

int cl_pmesh_overlaps(const cl_pmesh *pm, const cl_shape *s)
{
    cl_shape l;
    if (s->kind == CL_MESH) return meshes_overlap(&s->u.mesh, pm);
    shape_in(pm, s, &l);
    return cl_mesh_overlaps(pm->m, &l);
}

/* cl_mesh_triangle inline (mesh.c's vert: the same three stored vertices) for the sweeps' loops,
 * which call it for every candidate triangle. */
static inline void ms_triangle(const cl_mesh *m, size_t i, cl_vec3 *a, cl_vec3 *b, cl_vec3 *c)
{
    const double *v = m->v;
    size_t j = 3 * i;
    const double *p = v + 3 * (m->idx ? (size_t)m->idx[j] : j), *q = v + 3 * (m->idx ? (size_t)m->idx[j + 1] : j + 1),
                 *r = v + 3 * (m->idx ? (size_t)m->idx[j + 2] : j + 2);
    *a = cl_v3(p[0], p[1], p[2]);
    *b = cl_v3(q[0], q[1], q[2]);
    *c = cl_v3(r[0], r[1], r[2]);
}

/* A sweep or push over the triangles of a mesh: the mover in the mesh's frame as a hull (box
 * corners, faces, edges) or a sphere, the displacement, and the best contact so far. */
typedef struct msweep {
    const cl_mesh *m;
    cl_vec3 p[8], fa[3], d;
    int sphere;                 /* 1 a sphere, 2 a capsule, 0 a box */
    cl_sphere sp;
    cl_capsule cp;
    cl_sweep best, pend;        /* pend: a sphere's or capsule's sweep of the triangle being visited */
    double least;               /* the least t of a TOUCHING triangle visited so far (HUGE_VAL: none) */
    double skip;                /* a triangle certainly touching after least + skip is passed over */
    cl_sweep guess;             /* the sweep of triangle gtri, swept first (first_guess) */
    size_t gtri;
    int guessed;
    int gover;                  /* first_guess's cl_tri_overlaps_aabb of gtri and the query box: 1, 0, or -1 (not tested) */
    double gclr, gclr0;         /* the guess's clearances (quad, start segment) */
    const unsigned *klist;      /* a kept sweep's list (NULL: none), its clearances, the place */
    double *kclr, *kclr0;       /* of the triangle visited in it */
    size_t kpos, kn;
    double climit;              /* a still check passes over kept triangles of clearance >= climit */
    double climit0;             /* or of start clearance >= climit0 */
    int known;                  /* in_range: the triangle sweeps' range and degeneracy tests known */
    int mvlater;                /* known, a capsule, and mv not made yet (still_first makes it) */
    cl_capmv mv;                /* known and a capsule: the mover's values for its triangle sweeps */
    cl_tridata *tds;            /* the kept triangles' values (a cl_pmkeep's td: its cache on), or NULL */
    size_t tri;
    int found;
    double depth;
    cl_vec3 n;
    /* the least t of the TOUCHING contacts visited, and for each rank (1 face, 2 edge, 3 vertex)
     * the TOUCHING contact of that rank of least t, then index (pick_tie chooses among them) */
    double tmin, tiew;          /* tiew: the window, at most TIE_T (ms_reset_ties) */
    int rhave[4];
    cl_sweep rbest[4];
    size_t rtri[4];
} msweep;

/* Sets up ms for the mover l (in the mesh's frame): a sphere, a capsule, or a box's corners and
 * axes (an AABB's corners are its exact bounds). */
static void mover_of(msweep *ms, const cl_shape *l)
{
    int i;
    ms->sphere = 0;
    if (l->kind == CL_CAPSULE) {
        ms->sphere = 2;
        ms->cp = l->u.capsule;
        return;
    }
    if (l->kind == CL_SPHERE) {
        ms->sphere = 1;
        ms->sp = l->u.sphere;
        return;
    }
    if (l->kind == CL_AABB) {
        const cl_aabb *b = &l->u.aabb;
        for (i = 0; i < 8; i++)
            ms->p[i] = cl_v3(i & 1 ? b->max.x : b->min.x, i & 2 ? b->max.y : b->min.y, i & 4 ? b->max.z : b->min.z);
        ms->fa[0] = cl_v3(1, 0, 0); ms->fa[1] = cl_v3(0, 1, 0); ms->fa[2] = cl_v3(0, 0, 1);
        return;
    }
    for (i = 0; i < 8; i++) {
        const cl_obb *o = &l->u.obb;
        cl_vec3 x = cl_mul(o->u[0], i & 1 ? o->h.x : -o->h.x), y = cl_mul(o->u[1], i & 2 ? o->h.y : -o->h.y),
                z = cl_mul(o->u[2], i & 4 ? o->h.z : -o->h.z);
        ms->p[i] = cl_add(o->c, cl_add(cl_add(x, y), z));
    }
    for (i = 0; i < 3; i++) ms->fa[i] = l->u.obb.u[i];
}

/* 1 when every sweep of ms's sphere or capsule (moved by ms->d) against a triangle of m's tree
 * has its answer without its two first tests (cl_sweep_capsule_tri_known, _sphere_tri_known): the
 * largest |value| of the triangle and the mover (tri_mx) lies in [2^-200, 2^200] (the mover's
 * within it, the mesh's no larger), so it is not scaled; and m's build judged its triangles as
 * given (its scale 1: cl_range_k(maxabs) == 0), keeping in the tree only those cl_tri_degenerate
 * calls not degenerate: the sweep's own call on the same doubles says the same. */
static int in_range(const msweep *ms)
{
    double mx, mm = ms->m->maxabs;
    if (!(cl_range_k(mm) == 0 && mm <= 0x1p200)) return 0;
    if (ms->sphere == 2)
        mx = maxd3(cl_fmax(cl_maxabs3(ms->cp.a.x, ms->cp.a.y, ms->cp.a.z), cl_maxabs3(ms->cp.b.x, ms->cp.b.y, ms->cp.b.z)),
                   cl_maxabs3(ms->d.x, ms->d.y, ms->d.z), fabs(ms->cp.r));
    else if (ms->sphere == 1)
        mx = maxd3(cl_maxabs3(ms->sp.c.x, ms->sp.c.y, ms->sp.c.z), cl_maxabs3(ms->d.x, ms->d.y, ms->d.z), fabs(ms->sp.r));
    else
        return 0;
    return mx >= 0x1p-200 && mx <= 0x1p200;
}

/* Contacts with two triangles less than this apart in t are one contact (the seams rule picks
 * between them): tiles of one surface meet a mover at times that differ by rounding only. A
 * sweep's window is less for a long move (ms_reset_ties: 2^-40 of the coordinates along it). */
#define TIE_T 0x1p-30

/* Visitor of a sweep: keeps the earliest contact with triangle i (OVERLAPPED first, lowest index).
 * Contacts within the window (tiew, at most TIE_T) of the least t of all TOUCHING contacts tie: among them the lower rank (a
 * face before an edge or a vertex), then the earlier t, then the lower index, so a mover meets a
 * tiled surface as one triangle. The choice depends only on the set of contacts, never on the
 * order of the visits (a running "within TIE_T of the best" is not transitive: a vertex, an edge
 * 0.9 TIE_T later and a face 1.8 TIE_T later gave each of the three by visit order). Of the
 * contacts of one rank only the one of least t (then index) can win: it is within TIE_T of the
 * least t whenever another of its rank is, and comes first among them. So visits keep the least t
 * and that contact for each rank, and pick_tie takes the lowest rank whose contact is within TIE_T
 * of the least t: the same answer as choosing among all the contacts, in every visit order and
 * for any number of them. (A bounded list of all the contacts within TIE_T of the least t so far
 * is not: when full it must turn one away, which an earlier contact can make the winner.) */
static void ms_reset_ties(msweep *ms)
{
    int r;
    double len = cl_len(ms->d.x, ms->d.y, ms->d.z), mx = ms->m->maxabs, w;
    ms->tmin = HUGE_VAL;
    for (r = 0; r < 4; r++) ms->rhave[r] = 0;
    /* the window in t: TIE_T, or less for a long move, so that contacts tie only when they are
     * at most 2^-40 of the coordinates apart along the move (tiles of one surface differ by a
     * few ulps of them): a face 2^-30 later in t could otherwise win over an edge met first,
     * its t leaving the mover inside the edge by up to 2^-30 |d| */
    if (ms->sphere == 2)
        mx = fmax(mx, fmax(fmax(cl_maxabs3(ms->cp.a.x, ms->cp.a.y, ms->cp.a.z),
                                cl_maxabs3(ms->cp.b.x, ms->cp.b.y, ms->cp.b.z)), fabs(ms->cp.r)));
    else if (ms->sphere == 1)
        mx = fmax(mx, fmax(cl_maxabs3(ms->sp.c.x, ms->sp.c.y, ms->sp.c.z), fabs(ms->sp.r)));
    else
        for (r = 0; r < 8; r++) mx = fmax(mx, cl_maxabs3(ms->p[r].x, ms->p[r].y, ms->p[r].z));
    w = mx * 0x1p-40;
    ms->tiew = w < TIE_T * len ? w / len : TIE_T;
}

static int visit_sweep(void *ud, size_t i)
{
    msweep *ms = (msweep *)ud;
    cl_vec3 a, b, c;
    cl_sweep s;
    int r;
    if (ms->sphere) {
        s = ms->pend;                   /* swept by sweep_first */
    } else {
        ms_triangle(ms->m, i, &a, &b, &c);
        s = cl_sweep_hull_tri(ms->p, 8, ms->fa, 3, ms->fa, 3, ms->d, a, b, c);
    }
    if (s.state == CL_TOI_SEPARATED) return 0;
    if (s.state == CL_TOI_TOUCHING && s.t < ms->least) ms->least = s.t;
    if (s.state == CL_TOI_OVERLAPPED) {
        if (ms->found && ms->best.state == CL_TOI_OVERLAPPED && ms->tri < i) return 0;
        ms->best = s; ms->tri = i; ms->found = 1;
        return 0;
    }
    if (ms->found && ms->best.state == CL_TOI_OVERLAPPED) return 0;
    if (s.t < ms->tmin) ms->tmin = s.t;
    r = s.rank < 1 ? 1 : s.rank > 3 ? 3 : s.rank;  /* the triangle sweeps' ranks are 1 to 3 */
    if (!ms->rhave[r] || s.t < ms->rbest[r].t || (s.t == ms->rbest[r].t && i < ms->rtri[r])) {
        ms->rbest[r] = s; ms->rtri[r] = i; ms->rhave[r] = 1;
    }
    return 0;
}

/* Sets ms->best (and ms->found, ms->tri) from the kept contacts when no triangle overlapped: the
 * lowest rank whose contact is within the window (tiew <= TIE_T) of the least t. */
static void pick_tie(msweep *ms)
{
    int r;
    if (ms->found && ms->best.state == CL_TOI_OVERLAPPED) return;
    for (r = 1; r <= 3; r++)
        if (ms->rhave[r] && !(ms->rbest[r].t > ms->tmin + ms->tiew)) {
            ms->best = ms->rbest[r]; ms->tri = ms->rtri[r]; ms->found = 1;
            return;
        }
}

/* The slot of triangle i in a cl_pmkeep's td: bits 20 to 24 of a multiplicative hash of i (a
 * grid's neighbours a row apart, 2 x 224 numbers in bench/walk.lua's terrain, share i's low bits).
 * bench/walk.lua's capsule walk: 114.50 M instructions in 2,200 moves with these, 114.82 M with
 * the hash's top 5 bits, 118.70 M with 16 slots, no fewer with 64. */
static CL_INLINE unsigned mw_tslot(size_t i)
{
    return (unsigned)(((unsigned long)(i & 0xffffffffu) * 2654435761u & 0xffffffffu) >> 20) & (CL_PMTRI - 1);
}

/* cl_sweep_capsule_tri_mv of triangle i (a, b, c), its own values kept in ms->tds when there (the
 * same answer: a slot serves only the triangle whose vertices it holds, bit for bit) */
static CL_INLINE cl_sweep mw_capsule_tri(msweep *ms, size_t i, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax, double *clr,
                                         double *clr0)
{
    if (ms->tds) return cl_sweep_capsule_tri_mvd(&ms->mv, a, b, c, tmax, clr, clr0, &ms->tds[mw_tslot(i)]);
    return cl_sweep_capsule_tri_mv(&ms->mv, a, b, c, tmax, clr, clr0);
}

/* The first half of visit_sweep for a sphere or capsule mover (cl_mesh_query_lazy's pre): sweeps
 * triangle i into ms->pend; 0 (the triangle is passed over) when that is SEPARATED, which
 * visit_sweep would pass over too, so the mesh's exact triangle/box test runs only for contacts.
 * With ms->skip set (a sweep over a list of n candidates: (n + 3) TIE_T), a capsule's contact
 * certainly later than ms->least + ms->skip is passed over too (cl_sweep_capsule_tri_until): such
 * a triangle never changes the sweep's answer. ms->least is the least t of the TOUCHING triangles
 * visited so far and of first_guess's triangle (set only when the walk visits it), so it is never
 * below m, the least t of all the TOUCHING triangles visited: a triangle passed over is later than
 * m + skip >= m + TIE_T >= m + tiew, so it neither lowers m nor lies within the window of it, and visit_sweep and
 * pick_tie choose the same contact with it or without it. An OVERLAPPED triangle (never passed
 * over: its t is 0) wins over every TOUCHING one either way. */
static int sweep_first(void *ud, size_t i)
{
    msweep *ms = (msweep *)ud;
    cl_vec3 a, b, c;
    if (ms->klist) {
        /* cl_mesh_query_list calls pre in the list's order: i's place in it */
        while (ms->kpos < ms->kn && ms->klist[ms->kpos] != i) ms->kpos++;
        if (ms->kpos < ms->kn) {
            double *clr = &ms->kclr[ms->kpos];
            if (ms->guessed && i == ms->gtri) {
                ms->pend = ms->guess;
                *clr = ms->gclr;
                ms->kclr0[ms->kpos] = ms->gclr0;
                /* first_guess tested it against the same box (cl_mesh_query_list's box, the same
                 * vertices): its answer, not the test again */
                if (ms->pend.state != CL_TOI_SEPARATED && ms->gover >= 0)
                    return ms->gover ? CL_MESH_PRE_OVERLAPS : 0;
            } else {
                double tmax = ms->skip > 0 && ms->least < 1 ? ms->least + ms->skip : HUGE_VAL;
                ms_triangle(ms->m, i, &a, &b, &c);
                ms->pend = ms->known ? mw_capsule_tri(ms, i, a, b, c, tmax, clr, &ms->kclr0[ms->kpos])
                                     : cl_sweep_capsule_tri_clear(&ms->cp, ms->d, a, b, c, tmax, clr);
            }
            return ms->pend.state != CL_TOI_SEPARATED;
        }
    }
    if (ms->guessed && i == ms->gtri) {
        ms->pend = ms->guess;
        return ms->pend.state != CL_TOI_SEPARATED;
    }
    ms_triangle(ms->m, i, &a, &b, &c);
    if (ms->known) {
        double clr;
        ms->pend = ms->sphere == 1 ? cl_sweep_sphere_tri_known(&ms->sp, ms->d, a, b, c)
                   : cl_sweep_capsule_tri_mv(&ms->mv, a, b, c,
                                                ms->skip > 0 && ms->least < 1 ? ms->least + ms->skip : HUGE_VAL, &clr,
                                                NULL);
        return ms->pend.state != CL_TOI_SEPARATED;
    }
    ms->pend = ms->sphere == 1 ? cl_sweep_sphere_tri(&ms->sp, ms->d, a, b, c)
               : ms->skip > 0 && ms->least < 1 ? cl_sweep_capsule_tri_until(&ms->cp, ms->d, a, b, c, ms->least + ms->skip)
                               : cl_sweep_capsule_tri(&ms->cp, ms->d, a, b, c);
    return ms->pend.state != CL_TOI_SEPARATED;
}

/* Before a capsule's sweep over the n candidates list (n > 1) with query box q: sweeps the one
 * likely met first (the triangle whose vertices' mean is nearest the end of the segment that
 * leads the motion), kept for its visit, and when it is a contact the sweep visits (TOUCHING, and
 * it meets q: cl_mesh_query_list's test), sets ms->least to its t, so the later triangles of the
 * list are compared with it from the start (sweep_first). Only the speed depends on the guess. */
static void first_guess(msweep *ms, const cl_aabb *q, const unsigned *list, size_t n)
{
    cl_vec3 a, b, c, p = cl_mul(cl_dot(cl_sub(ms->cp.b, ms->cp.a), ms->d) > 0 ? ms->cp.b : ms->cp.a, 3);
    double best = HUGE_VAL;
    size_t k, g = 0;
    for (k = 0; k < n; k++) {
        cl_vec3 e;
        double x;
        ms_triangle(ms->m, list[k], &a, &b, &c);
        e = cl_sub(p, cl_add(cl_add(a, b), c));
        x = cl_dot(e, e);
        if (x < best) { best = x; g = k; }
    }
    ms_triangle(ms->m, list[g], &a, &b, &c);
    ms->gtri = list[g];
    ms->gclr0 = 0;
    ms->guess = ms->known ? mw_capsule_tri(ms, list[g], a, b, c, HUGE_VAL, &ms->gclr, &ms->gclr0)
                          : cl_sweep_capsule_tri_clear(&ms->cp, ms->d, a, b, c, HUGE_VAL, &ms->gclr);
    ms->guessed = 1;
    ms->gover = -1;
    if (ms->guess.state == CL_TOI_TOUCHING) {
        ms->gover = (ms->known && cl_tri_vertex_in(a, b, c, q)) || cl_tri_overlaps_aabb(a, b, c, q);
        if (ms->gover) ms->least = ms->guess.t;
    }
}

/* Returns the box of shape l (in the mesh's frame) at its place and moved by d, widened by a
 * relative 2^-40 for the rounding of the frame change and the triangle tests. */
/* cl_shape_aabb(s), a sphere's or capsule's (the sweeps' movers) by its kind's own function: the
 * same call cl_shape_aabb makes through the kinds table, without the table. */
static cl_aabb mw_box(const cl_shape *s)
{
    if (s->kind == CL_CAPSULE) return cl_capsule_aabb(&s->u.capsule);
    if (s->kind == CL_SPHERE) return cl_sphere_aabb(&s->u.sphere);
    return cl_shape_aabb(s);
}

static cl_aabb swept_local(const cl_shape *l, cl_vec3 d)
{
    cl_aabb b = mw_box(l), r;
    double m, v;
    /* cl_aabb_merge of b and b moved by d (cl_add's sums), its comparisons inline */
    v = b.min.x + d.x; r.min.x = b.min.x < v ? b.min.x : v;
    v = b.min.y + d.y; r.min.y = b.min.y < v ? b.min.y : v;
    v = b.min.z + d.z; r.min.z = b.min.z < v ? b.min.z : v;
    v = b.max.x + d.x; r.max.x = b.max.x > v ? b.max.x : v;
    v = b.max.y + d.y; r.max.y = b.max.y > v ? b.max.y : v;
    v = b.max.z + d.z; r.max.z = b.max.z > v ? b.max.z : v;
    m = cl_fmax(cl_maxabs3(r.min.x, r.min.y, r.min.z), cl_maxabs3(r.max.x, r.max.y, r.max.z));
    m = m * 0x1p-40 + 1e-300;           /* ldexp(m, -40): one rounding of the same exact value */
    r.min = cl_v3(r.min.x - m, r.min.y - m, r.min.z - m);
    r.max = cl_v3(r.max.x + m, r.max.y + m, r.max.z + m);
    return r;
}

cl_sweep cl_pmesh_sweep(const cl_pmesh *pm, const cl_shape *s, cl_vec3 d, size_t *tri)
{
    msweep ms;
    cl_shape l, q;
    shape_in(pm, s, &l);
    mover_of(&ms, &l);
    ms.m = pm->m;
    ms.d = dir_in(pm, d);
    ms.found = 0;
    ms.tri = 0;
    ms.best.state = CL_TOI_SEPARATED; ms.best.t = 1; ms.best.n = cl_v3(0, 0, 0); ms.best.rank = 0;
    ms.least = HUGE_VAL;
    ms.skip = 0;
    ms.guessed = 0;
    ms.klist = NULL;
    ms_reset_ties(&ms);
    ms.known = in_range(&ms);
    ms.tds = NULL;
    if (ms.known && ms.sphere == 2) cl_capmv_make(&ms.mv, &ms.cp, ms.d);
    q.kind = CL_AABB;
    q.u.aabb = swept_local(&l, ms.d);
    if (ms.sphere) (void)cl_mesh_query_lazy(pm->m, &q.u.aabb, sweep_first, visit_sweep, &ms);
    else (void)cl_mesh_query_each(pm->m, &q, visit_sweep, &ms);
    pick_tie(&ms);
    if (ms.best.state == CL_TOI_TOUCHING) ms.best.n = dir_out(pm, ms.best.n);
    if (tri) *tri = ms.tri;
    return ms.best;
}

/* The box of the candidates cl_pmesh_sweep_keep keeps for a sweep whose query box is q (in the
 * mesh's frame) of shape s (in the world): q grown by 2^-36 of the largest coordinate of either,
 * room for the ends of a World leg (the gap kept off a contact and its push out of a graze, a
 * few 2^-40 of the mover's world coordinates) and for their own query boxes. */
static cl_aabb keep_box(const cl_aabb *q, const cl_aabb *sb)
{
    cl_aabb b = *sb, r = *q;
    double m = cl_fmax(cl_fmax(cl_maxabs3(q->min.x, q->min.y, q->min.z), cl_maxabs3(q->max.x, q->max.y, q->max.z)),
                       cl_fmax(cl_maxabs3(b.min.x, b.min.y, b.min.z), cl_maxabs3(b.max.x, b.max.y, b.max.z)));
    m = m * 0x1p-36 + 1e-299;           /* ldexp(m, -36), as swept_local's */
    r.min = cl_v3(r.min.x - m, r.min.y - m, r.min.z - m);
    r.max = cl_v3(r.max.x + m, r.max.y + m, r.max.z + m);
    return r;
}

void cl_pmkeep_cache(cl_pmkeep *k, int on, cl_vec3 gv, double g)
{
    k->con = on;
    k->cm = NULL;
    k->cn = CL_MESH_UNSURE;
    k->cgv = gv;
    k->cg = g;
}

/* 1 if the box a lies inside the box b (0 with a NaN). */
static int mw_inside(const cl_aabb *a, const cl_aabb *b)
{
    return a->min.x >= b->min.x && a->min.y >= b->min.y && a->min.z >= b->min.z && a->max.x <= b->max.x &&
           a->max.y <= b->max.y && a->max.z <= b->max.z;
}

/* cl_mesh_candidates(pm->m, &k->wide, k->tri, CL_PMKEEP), from k's cache when it is on (see
 * cl_mesh_candidates_in: the same answer); a box outside the cache's walks the cache's box
 * again first, grown for the next sweeps. */
static size_t mw_candidates(const cl_pmesh *pm, cl_pmkeep *k)
{
    if (k->con) {
        if (k->cm != pm->m || !mw_inside(&k->wide, &k->cbox)) {
            cl_vec3 v = dir_in(pm, k->cgv);
            cl_aabb b = k->wide;
            double g = k->cg;
            if (v.x < 0) b.min.x += v.x; else b.max.x += v.x;
            if (v.y < 0) b.min.y += v.y; else b.max.y += v.y;
            if (v.z < 0) b.min.z += v.z; else b.max.z += v.z;
            b.min = cl_v3(b.min.x - g, b.min.y - g, b.min.z - g);
            b.max = cl_v3(b.max.x + g, b.max.y + g, b.max.z + g);
            k->cm = pm->m;
            k->cbox = b;
            k->cn = cl_mesh_candidates(pm->m, &b, k->ctri, CL_PMCACHE);
        }
        if (k->cn <= CL_PMCACHE && mw_inside(&k->wide, &k->cbox))
            return cl_mesh_candidates_in(pm->m, &k->wide, k->ctri, k->cn, k->tri, CL_PMKEEP);
    }
    return cl_mesh_candidates(pm->m, &k->wide, k->tri, CL_PMKEEP);
}

cl_sweep cl_pmesh_sweep_keep(const cl_pmesh *pm, const cl_shape *s, cl_vec3 d, cl_pmkeep *k)
{
    cl_aabb sb;
    if (s->kind == CL_SPHERE || s->kind == CL_CAPSULE) sb = mw_box(s);
    return cl_pmesh_sweep_keep_box(pm, s, &sb, d, k);
}

cl_sweep cl_pmesh_sweep_keep_box(const cl_pmesh *pm, const cl_shape *s, const cl_aabb *sb, cl_vec3 d, cl_pmkeep *k)
{
    msweep ms;
    cl_shape l;
    cl_aabb q;
    size_t n;
    k->ok = 0;
    if (s->kind != CL_SPHERE && s->kind != CL_CAPSULE) return cl_pmesh_sweep(pm, s, d, NULL);
    shape_in(pm, s, &l);
    mover_of(&ms, &l);
    ms.m = pm->m;
    ms.d = dir_in(pm, d);
    ms.found = 0;
    ms.tri = 0;
    ms.best.state = CL_TOI_SEPARATED; ms.best.t = 1; ms.best.n = cl_v3(0, 0, 0); ms.best.rank = 0;
    ms.least = HUGE_VAL;
    ms.skip = 0;
    ms.guessed = 0;
    ms.klist = NULL;
    ms_reset_ties(&ms);
    ms.known = in_range(&ms);
    ms.tds = k->con ? k->td : NULL;
    if (ms.known && ms.sphere == 2) cl_capmv_make(&ms.mv, &ms.cp, ms.d);
    q = swept_local(&l, ms.d);
    k->wide = keep_box(&q, sb);
    n = mw_candidates(pm, k);
    /* the sweep's own triangles from the kept ones (cl_mesh_query_list: the same calls as the
     * walk of cl_pmesh_sweep); at most n of them are visited (sweep_first's skip) */
    k->capsule = 0;
    if (n <= CL_PMKEEP) {
        ms.skip = (double)(n + 3) * TIE_T;
        if (ms.sphere == 2) {
            size_t j;
            for (j = 0; j < n; j++) k->clr[j] = k->clr0[j] = 0;
            k->capsule = 1;
            k->cp = ms.cp;
            k->d = ms.d;
            ms.klist = k->tri;
            ms.kclr = k->clr;
            ms.kclr0 = k->clr0;
            ms.kpos = 0;
            ms.kn = n;
        }
        if (ms.sphere == 2 && n > 1) first_guess(&ms, &q, k->tri, n);
    }
    if (n <= CL_PMKEEP && cl_mesh_query_list(pm->m, &q, k->tri, n, sweep_first, visit_sweep, &ms) != CL_MESH_UNSURE) {
        k->ok = 1;
        k->n = n;
        k->pm = *pm;
    } else {
        ms.least = HUGE_VAL;
        ms.skip = 0;
        ms.guessed = 0;
        ms.klist = NULL;
        k->capsule = 0;
        ms_reset_ties(&ms);             /* the walk visits every contact again */
        ms.found = 0;
        ms.best.state = CL_TOI_SEPARATED; ms.best.t = 1; ms.best.n = cl_v3(0, 0, 0); ms.best.rank = 0;
        (void)cl_mesh_query_lazy(pm->m, &q, sweep_first, visit_sweep, &ms);
    }
    pick_tie(&ms);
    if (ms.best.state == CL_TOI_TOUCHING) ms.best.n = dir_out(pm, ms.best.n);
    return ms.best;
}

/* The larger distance of the points p and q from the segments [a, a2] and [b, b2] (p from the
 * first, q from the second), rounded up: each computed to a few ulps of the differences, the
 * margin 2^-44 of them (512 ulps) above that. */
static double seg_off2(cl_vec3 p, cl_vec3 a, cl_vec3 a2, cl_vec3 q, cl_vec3 b, cl_vec3 b2)
{
    double r = 0;
    int k;
    for (k = 0; k < 2; k++) {
        cl_vec3 w = k ? cl_sub(q, b) : cl_sub(p, a), dd = k ? cl_sub(b2, b) : cl_sub(a2, a), v;
        double l2 = cl_dot(dd, dd), tau = 0, x;
        if (l2 > 0) {
            tau = cl_dot(w, dd) / l2;
            tau = tau < 0 ? 0 : tau > 1 ? 1 : tau;
        }
        v = cl_sub(w, cl_mul(dd, tau));
        x = cl_len(v.x, v.y, v.z) * (1 + 0x1p-40) + (cl_maxabs3(w.x, w.y, w.z) + cl_maxabs3(dd.x, dd.y, dd.z)) * 0x1p-44;
        if (!(x <= r)) r = x;
    }
    return r;
}

/* An upper bound on how far the segment [p, q] lies from the segment [a, b] point by point (the
 * larger of |p - a| and |q - b|: p + s (q - p) is that near a + s (b - a)), rounded up (the
 * differences and the length a few ulps off, 2^-40 of it above that). */
static double seg_move(cl_vec3 p, cl_vec3 a, cl_vec3 q, cl_vec3 b)
{
    cl_vec3 u = cl_sub(p, a), v = cl_sub(q, b);
    return cl_fmax(cl_len(u.x, u.y, u.z), cl_len(v.x, v.y, v.z)) * (1 + 0x1p-40) + 0x1p-1000;
}

/* The pre of cl_pmesh_overlaps_kept for a capsule: a kept triangle whose clearance from the leg's
 * swept quad is at least r + the end segment's distance from that quad (ms->climit) is at least r
 * from the end's segment (every point of it lies that near the quad: a convex combination of its
 * ends' nearest points on the quad's sides q0q3, q1q2), where the still sweep finds no overlap (its
 * allowance, 2^-42 of the coordinates, is far above the rounding of its distances): passed over
 * as the sweep would pass it over; so is one whose clearance from the leg's segment at the start
 * (kclr0) is at least r + how far the end's segment lies from it (ms->climit0, seg_move). Else the
 * still sweep (sweep_first's, without skip or guess). */
static int still_first(void *ud, size_t i)
{
    msweep *ms = (msweep *)ud;
    cl_vec3 a, b, c;
    while (ms->kpos < ms->kn && ms->klist[ms->kpos] != i) ms->kpos++;
    if (ms->kpos < ms->kn && (ms->kclr[ms->kpos] >= ms->climit || ms->kclr0[ms->kpos] >= ms->climit0)) return 0;
    ms_triangle(ms->m, i, &a, &b, &c);
    if (ms->known) {
        double clr;
        if (ms->mvlater) {
            cl_capmv_make(&ms->mv, &ms->cp, ms->d);
            ms->mvlater = 0;
        }
        ms->pend = mw_capsule_tri(ms, i, a, b, c, HUGE_VAL, &clr, NULL);
    } else {
        ms->pend = cl_sweep_capsule_tri(&ms->cp, ms->d, a, b, c);
    }
    return ms->pend.state != CL_TOI_SEPARATED;
}

/* Visitor of cl_pmesh_overlaps_kept: a still sphere or capsule meets triangles only OVERLAPPED. */
static int visit_overlap(void *ud, size_t i)
{
    (void)ud; (void)i;
    return 1;
}

int cl_pmesh_overlaps_kept(const cl_pmesh *pm, const cl_shape *s, const cl_pmkeep *k)
{
    msweep ms;
    cl_shape l;
    cl_aabb q;
    size_t r;
    if (!k->ok || (s->kind != CL_SPHERE && s->kind != CL_CAPSULE) || k->pm.m != pm->m ||
        memcmp(&k->pm.c, &pm->c, sizeof pm->c) != 0 || memcmp(k->pm.u, pm->u, sizeof pm->u) != 0)
        return -1;
    /* what cl_pmesh_sweep(pm, s, 0) computes (its d in the mesh's frame, +-0) */
    shape_in(pm, s, &l);
    mover_of(&ms, &l);
    ms.m = pm->m;
    ms.d = dir_in(pm, cl_v3(0, 0, 0));
    ms.least = HUGE_VAL;
    ms.skip = 0;
    ms.guessed = 0;
    ms.klist = NULL;
    ms.known = in_range(&ms);
    /* the kept triangles' values (still_first's sweeps: the same answers, mw_capsule_tri) */
    ms.tds = k->con ? (cl_tridata *)k->td : NULL;
    /* the mover's values, made when a triangle is swept (the kept clearances pass over most) */
    ms.mvlater = ms.known && ms.sphere == 2;
    q = swept_local(&l, ms.d);
    if (!(q.min.x >= k->wide.min.x && q.min.y >= k->wide.min.y && q.min.z >= k->wide.min.z &&
          q.max.x <= k->wide.max.x && q.max.y <= k->wide.max.y && q.max.z <= k->wide.max.z))
        return -1;
    if (k->capsule && l.kind == CL_CAPSULE && l.u.capsule.r == k->cp.r) {
        /* the end's segment near the kept sweep's quad (coordinates where no test scales) */
        const cl_capsule *e = &l.u.capsule, *c0 = &k->cp;
        double mx = cl_fmax(cl_maxabs3(e->a.x, e->a.y, e->a.z), cl_fmax(cl_maxabs3(e->b.x, e->b.y, e->b.z), e->r));
        if (mx >= 0x1p-190 && mx <= 0x1p190) {
            double off = seg_off2(e->a, c0->a, cl_add(c0->a, k->d), e->b, c0->b, cl_add(c0->b, k->d));
            ms.klist = k->tri;
            ms.kclr = (double *)k->clr;
            ms.kclr0 = (double *)k->clr0;
            ms.kpos = 0;
            ms.kn = k->n;
            ms.climit = (e->r + off) * (1 + 0x1p-50);
            ms.climit0 = (e->r + seg_move(e->a, c0->a, e->b, c0->b)) * (1 + 0x1p-50);
            r = cl_mesh_query_list(pm->m, &q, k->tri, k->n, still_first, visit_overlap, &ms);
            if (r == CL_MESH_UNSURE) return -1;
            return r > 0;
        }
    }
    if (ms.mvlater) cl_capmv_make(&ms.mv, &ms.cp, ms.d);
    r = cl_mesh_query_list(pm->m, &q, k->tri, k->n, sweep_first, visit_overlap, &ms);
    if (r == CL_MESH_UNSURE) return -1;
    return r > 0;
}

/* Visitor of a push: keeps the deepest push out of triangle i (ties to the lower index). */
static int visit_push(void *ud, size_t i)
{
    msweep *ms = (msweep *)ud;
    cl_vec3 a, b, c, n;
    double depth;
    int r;
    cl_mesh_triangle(ms->m, i, &a, &b, &c);
    r = ms->sphere == 1 ? cl_penetration_sphere_tri(&ms->sp, a, b, c, &depth, &n)
        : ms->sphere == 2 ? cl_penetration_capsule_tri(&ms->cp, a, b, c, &depth, &n)
                          : cl_penetration_hull_tri(ms->p, 8, ms->fa, 3, ms->fa, 3, a, b, c, &depth, &n);
    if (!r) return 0;
    if (ms->found && (depth < ms->depth || (depth == ms->depth && i > ms->tri))) return 0;
    ms->found = 1; ms->depth = depth; ms->n = n; ms->tri = i;
    return 0;
}

int cl_pmesh_penetration(const cl_pmesh *pm, const cl_shape *s, double *depth, cl_vec3 *n)
{
    msweep ms;
    cl_shape l;
    shape_in(pm, s, &l);
    mover_of(&ms, &l);
    ms.m = pm->m;
    ms.found = 0;
    ms.tri = 0;
    ms.depth = 0;
    (void)cl_mesh_query_each(pm->m, &l, visit_push, &ms);
    if (!ms.found) return 0;
    *depth = ms.depth;
    *n = dir_out(pm, ms.n);
    return 1;
}
