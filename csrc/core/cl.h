/* collide core: pure C99 geometry. Includes no Lua header, never allocates, never raises.
 * Every function here is total on finite inputs that satisfy the stated invariants; the
 * Lua binding validates arguments before calling in. All coordinates are doubles.
 * Symbols share the prefix cl_. */
#ifndef CL_H
#define CL_H

#include <stddef.h>

/* Every expression is rounded as written: a compiler must not fuse a multiply and an add into one
 * FMA (rounded once), which breaks the reasoning of exact tests (tri.c's triangle/box test counts
 * on a vertex's projection rounding as the box's does: fused, a triangle whose vertex lies on a
 * box's face was reported apart; review rev10, 2026-11-30). clang fuses by default when the target
 * has FMA (arm64, -march=x86-64-v3), even with -std=c99; gcc does in its GNU modes (-std=gnu99,
 * LuaRocks' builtin builds) but never in ISO C modes (the Makefile's -std=c99). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__) && !defined(__STRICT_ANSI__) && (defined(__FP_FAST_FMA) || defined(__FP_FAST_FMAF))
#pragma GCC optimize("fp-contract=off")
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CL_API __attribute__((visibility("hidden")))
#else
#define CL_API
#endif

/// A 3D vector or point.
typedef struct cl_vec3 { double x, y, z; } cl_vec3;

/// Axis-aligned box. Invariant: min.i <= max.i on every axis (flat boxes allowed).
typedef struct cl_aabb { cl_vec3 min, max; } cl_aabb;

/// Ray o + t*d, t >= 0. Invariant: d has unit length (cl_ray_make normalises), so t is a distance.
typedef struct cl_ray { cl_vec3 o, d; } cl_ray;

/// Oriented box: centre c, half sizes h (>= 0), orthonormal axes u[0], u[1], u[2].
typedef struct cl_obb { cl_vec3 c, h; cl_vec3 u[3]; } cl_obb;

/// Sphere: centre c, radius r >= 0.
typedef struct cl_sphere { cl_vec3 c; double r; } cl_sphere;

/// Capsule: the segment ab rounded by r >= 0 (a == b is a sphere; r == 0 a segment, whose
/// interior is empty).
typedef struct cl_capsule { cl_vec3 a, b; double r; } cl_capsule;

/// A hit: distance or fraction t, and the unit normal n pointing out of the shape that was hit.
/// A query whose start is inside the shape reports t = 0 and n = (0,0,0).
typedef struct cl_hit { double t; cl_vec3 n; } cl_hit;

/// Shape kinds a World item or a generic query can hold; CL_KINDS counts them. What each kind
/// provides is its row of cl_kinds and its entries in the pair tables (kinds.c); README.md's
/// "Adding a shape kind" lists every place a new kind goes.
/// CL_MESH, outside the table (a World item only, never a query shape or a mover): a placed mesh,
/// dispatched by the cl_shape functions to meshworld.c.
typedef enum cl_kind { CL_AABB = 0, CL_OBB = 1, CL_SPHERE = 2, CL_CAPSULE = 3, CL_KINDS, CL_MESH = 64 } cl_kind;

struct cl_mesh;
/// A placed mesh (meshworld.c): the mesh (mesh.h, not owned) with a translation c and orthonormal
/// axes u: the mesh's vertex v stands at c + v.x u[0] + v.y u[1] + v.z u[2]. c comes first (its
/// position point, as the other kinds' first one, at offset 0).
typedef struct cl_pmesh { cl_vec3 c; cl_vec3 u[3]; const struct cl_mesh *m; } cl_pmesh;

/// A tagged shape, used by the generic dispatchers and the World.
typedef struct cl_shape {
    cl_kind kind;
    union { cl_aabb aabb; cl_obb obb; cl_sphere sphere; cl_capsule capsule; cl_pmesh mesh; } u;
} cl_shape;

/// Result of cl_toi: interiors already intersect, first contact during the step, or none.
typedef enum cl_toi_state { CL_TOI_OVERLAPPED = 0, CL_TOI_TOUCHING = 1, CL_TOI_SEPARATED = 2 } cl_toi_state;

/// A sweep result: the state, the time t in [0, 1] and the normal.
struct cl_sweep {
    cl_toi_state state;         /* OVERLAPPED: t = 0, n = 0; TOUCHING: t in [0,1); SEPARATED */
    double t;
    cl_vec3 n;                  /* unit, out of the static shape toward the mover */
    int rank;                   /* TOUCHING: 1 a face contact (one direction of entry, a sphere
                                   on a face or a sphere), 2 an edge contact (two directions tied,
                                   a sphere on an edge), 3 a corner contact (three or more); a
                                   sphere's or capsule's contact with a triangle at t = 0 is 1
                                   (with the face's exact normal) when its direction is within
                                   1e-9 in cosine of the face's normal, else 2 */
};

/* ---- vectors ---- */
static inline cl_vec3 cl_v3(double x, double y, double z) { cl_vec3 v; v.x = x; v.y = y; v.z = z; return v; }

/* ---- ray ---- */
/// Makes a ray from an origin and a non-zero finite direction, normalising the direction
/// without overflow or underflow (scales by the largest component first). Returns 0 if d is zero.
CL_API int cl_ray_make(cl_ray *out, cl_vec3 o, cl_vec3 d);
/// Point o + t*d.
CL_API cl_vec3 cl_ray_at(const cl_ray *r, double t);
/// Distance t >= 0 where the ray meets the plane n.p + d = 0 (n need not be unit length);
/// returns 0 when the ray is parallel to the plane (and not in it) or the plane is behind.
/// A ray starting on the plane gives t = 0.
CL_API int cl_ray_plane(const cl_ray *r, cl_vec3 n, double d, double *t);

/* ---- AABB ---- */
/// Inclusive point containment.
CL_API int cl_aabb_contains(const cl_aabb *b, cl_vec3 p);
/// Inclusive overlap (touching counts).
CL_API int cl_aabb_overlaps_aabb(const cl_aabb *a, const cl_aabb *b);
/// Closest point on or in the box.
CL_API cl_vec3 cl_aabb_closest(const cl_aabb *b, cl_vec3 p);
/// Plane side: 1 wholly in front (n.p + d > 0 for every point), -1 wholly behind, 0 crossing or touching.
CL_API int cl_aabb_plane(const cl_aabb *b, cl_vec3 n, double d);
/// Smallest box enclosing both.
CL_API cl_aabb cl_aabb_merge(const cl_aabb *a, const cl_aabb *b);
/// Ray hit with t in [0, maxt] (maxt may be +inf); origin inside (inclusive) gives t = 0, n = 0.
/// The normal is the face entered last; at an edge or corner the lowest axis (x, then y, then z) wins.
CL_API int cl_aabb_raycast(const cl_aabb *b, const cl_ray *r, double maxt, cl_hit *out);
/// Entry and exit distances of the ray's whole line (tenter may be negative); 0 if the line
/// misses or texit < 0.
CL_API int cl_aabb_clip(const cl_aabb *b, const cl_ray *r, double *tenter, double *texit);
/// Seed 000's segment test on p1 + f*(p2 - p1): entry fraction f in [0, maxf] and normal.
/// Start inside gives f = 0, n = 0. A zero-length segment is a point test.
CL_API int cl_aabb_segment(const cl_aabb *b, cl_vec3 p1, cl_vec3 p2, double maxf, cl_hit *out);

/* ---- OBB ---- */
/// 1 if u, v, w are orthonormal within tol (|u.u - 1| <= tol, |u.v| <= tol, ...).
CL_API int cl_axes_orthonormal(const cl_vec3 u[3], double tol);
/// Rotates the box about its centre by angle radians about axis a (non-zero; right-handed),
/// then re-orthonormalises the axes. Returns 0 (box unchanged) if a is zero.
CL_API int cl_obb_rotate(cl_obb *b, double angle, cl_vec3 a);
/// Inclusive point containment (change of basis).
CL_API int cl_obb_contains(const cl_obb *b, cl_vec3 p);
/// Closest point on or in the box.
CL_API cl_vec3 cl_obb_closest(const cl_obb *b, cl_vec3 p);
/// Plane side, as cl_aabb_plane.
CL_API int cl_obb_plane(const cl_obb *b, cl_vec3 n, double d);
/// Tight enclosing AABB.
CL_API cl_aabb cl_obb_aabb(const cl_obb *b);
/// Ray hit as cl_aabb_raycast, in the box's frame; the normal is returned in world space.
CL_API int cl_obb_raycast(const cl_obb *b, const cl_ray *r, double maxt, cl_hit *out);
/// An OBB equal to the AABB (world axes).
CL_API cl_obb cl_obb_from_aabb(const cl_aabb *a);
/// (Added.) 1 and *box = the box b covers when every axis of b is a world axis (one component
/// +-1, the others 0: b is an AABB, corners c -+ the matching half extents), else 0 (*box unchanged).
CL_API int cl_obb_worldbox(const cl_obb *b, cl_aabb *box);
/// (Added.) 1 and *box = the shape's box when it is an AABB or a world-axis OBB (cl_obb_worldbox),
/// else 0: such shapes take the exact AABB paths of the sweeps and the World's move.
CL_API int cl_shape_boxlike(const cl_shape *s, cl_aabb *box);
/// Inclusive separating-axis overlap (15 axes; near-parallel edge axes are skipped safely).
CL_API int cl_obb_overlaps_obb(const cl_obb *a, const cl_obb *b);
/// Inclusive overlap with an AABB.
CL_API int cl_obb_overlaps_aabb(const cl_obb *a, const cl_aabb *b);
/// (Added for the World's swept SAT.) Writes the separating axes of the pair, unit length: a's
/// three axes, b's three axes, then each a.u[i] x b.u[j] (i-major) whose squared length is at
/// least 1e-12 (parallel edges are skipped, as in cl_obb_overlaps_obb). Returns the count (6..15).
CL_API int cl_obb_axes(const cl_obb *a, const cl_obb *b, cl_vec3 out[15]);
/// (Added.) Projection of the box onto axis: it covers [center - radius, center + radius]
/// (center = c.axis, radius = sum h_i |u_i.axis|).
CL_API void cl_obb_project(const cl_obb *b, cl_vec3 axis, double *center, double *radius);

/* ---- Sphere ---- */
CL_API int cl_sphere_contains(const cl_sphere *s, cl_vec3 p);
CL_API cl_vec3 cl_sphere_closest(const cl_sphere *s, cl_vec3 p);
CL_API int cl_sphere_plane(const cl_sphere *s, cl_vec3 n, double d);
CL_API cl_aabb cl_sphere_aabb(const cl_sphere *s);
/// Ray hit; origin inside gives t = 0, n = 0.
CL_API int cl_sphere_raycast(const cl_sphere *s, const cl_ray *r, double maxt, cl_hit *out);
/// Inclusive overlaps.
CL_API int cl_sphere_overlaps_sphere(const cl_sphere *a, const cl_sphere *b);
CL_API int cl_sphere_overlaps_aabb(const cl_sphere *s, const cl_aabb *b);
CL_API int cl_sphere_overlaps_obb(const cl_sphere *s, const cl_obb *b);

/* ---- triangles (tri.c) ---- */
/// 1 if the triangle abc is degenerate: cross(b - a, c - a), computed in doubles, is zero.
/// Degenerate triangles never hit (every triangle test below answers no for them).
CL_API int cl_tri_degenerate(cl_vec3 a, cl_vec3 b, cl_vec3 c);
/// A ray prepared for the watertight triangle test: the origin, the dominant axis kz of the
/// direction, the two others kx, ky, and the shear sx = d.kx/d.kz, sy = d.ky/d.kz, sz = 1/d.kz.
typedef struct cl_tray { cl_vec3 o; double sx, sy, sz; int kx, ky, kz; } cl_tray;
/// Prepares r (unit direction) for cl_tray_hit.
CL_API void cl_tray_make(cl_tray *tr, const cl_ray *r);
/// Watertight ray/triangle test (Woop, Benthin and Wald 2013): 1 and the distance *t >= 0 if the
/// ray meets the triangle, either side, edges and vertices included; 0 if it misses or lies in the
/// triangle's plane. Two triangles sharing an edge are tested with the same edge function up to
/// sign, so a ray through a shared edge or vertex never misses both. Does not test degeneracy.
CL_API int cl_tray_hit(const cl_tray *tr, cl_vec3 a, cl_vec3 b, cl_vec3 c, double *t);
/// The triangle's unit normal, turned to face against d (n.d <= 0); zero if degenerate.
CL_API cl_vec3 cl_tri_normal(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 d);
/// Ray hit with t in [0, maxt]: the watertight test, the normal facing the ray. 0 for a miss or
/// a degenerate triangle.
CL_API int cl_tri_raycast(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_ray *r, double maxt, cl_hit *out);
/// The point of the triangle (on its face, an edge or a vertex) closest to p; for a degenerate
/// triangle the closest point of its three edges.
CL_API cl_vec3 cl_tri_closest(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p);
/// Inclusive triangle/box overlap by separating axes: the box's 3 face axes, the triangle's
/// normal, and the 9 cross products of the triangle's edges with the box's axes (13 axes).
CL_API int cl_tri_overlaps_aabb(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_aabb *bx);
/// Inclusive triangle/OBB overlap: cl_tri_overlaps_aabb in the box's frame.
CL_API int cl_tri_overlaps_obb(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_obb *o);
/// Inclusive triangle/sphere overlap: the closest point of the triangle is within r of the centre.
CL_API int cl_tri_overlaps_sphere(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_sphere *s);
/// Inclusive triangle/capsule overlap: the distance between the triangle and the capsule's segment
/// (cl_tri_segment) is at most r.
CL_API int cl_tri_overlaps_capsule(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_capsule *cp);
/// Squared distance between the triangle and the segment pq (p == q allowed), with the closest
/// points on each (0 and the crossing point when the segment passes through the triangle).
CL_API double cl_tri_segment(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q, cl_vec3 *ontri, cl_vec3 *onseg);
/// 1 when cl_tri_segment(a, b, c, p, q) < lim2, deciding from the first of its candidate distances
/// under lim2 (the crossing, the ends, then the edges) without computing the others.
CL_API int cl_tri_segment_below(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q, double lim2);
/// 1 when cl_tri_segment(a, b, c, p, q) decides 0 by its first test (the segment crosses the
/// triangle's plane inside it, as computed), without computing the other candidates.
CL_API int cl_tri_segment_crosses(cl_vec3 a, cl_vec3 b, cl_vec3 c, cl_vec3 p, cl_vec3 q);
/// cl_tri_segment_crosses(a, b, c, p, q) given the normal n = (b - a) x (c - a) and the dot products
/// dp = n . (p - a), dq = n . (q - a) as it computes them (internal: trisweep.c has them).
int cl_tri_segment_crosses_n(const cl_vec3 *a, const cl_vec3 *b, const cl_vec3 *c, const cl_vec3 *p, const cl_vec3 *q,
                             const cl_vec3 *n, double dp, double dq);

/* ---- triangle sweeps, pushes and the triangle pair (trisweep.c) ---- */
/// The sweep of the convex hull of the np points p (a box: its 8 corners), whose face normals are
/// fa[0..nf-1] and edge directions ed[0..ne-1] (nf, ne <= 3), moved by d against the triangle abc, by
/// separating axes (the triangle's normal, the hull's faces, the edge cross products), with the
/// conventions of cl_sweep_aabb_aabb: OVERLAPPED when the open hull meets the closed triangle at the
/// start, TOUCHING at the first t in [0, 1) where it comes to meet it (rank 1 when the axis is the
/// triangle's normal: a contact on its face; 2 otherwise: on its edge or vertex), else SEPARATED. A degenerate triangle is SEPARATED. The
/// hull is shrunk by a rounding allowance (2^-42 of the magnitudes on each axis), so a hull resting
/// on a triangle, or within rounding of it after a slide along a slanted one, slides on.
CL_API struct cl_sweep cl_sweep_hull_tri(const cl_vec3 *p, int np, const cl_vec3 *fa, int nf, const cl_vec3 *ed, int ne,
                                  cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c);
/// The sweep of sphere s moved by d against the triangle abc: the ray of its centre against the
/// triangle's faces moved out by r and the capsules of its edges (rank 1 a face, 2 an edge, 3 a
/// vertex). Conventions and allowance as cl_sweep_hull_tri: a path whose centre never comes within
/// r of the triangle (less the allowance) is SEPARATED; a sphere of radius within the allowance
/// (a point) never meets a triangle. A triangle reaching farther out than 2^10 times the sweep's
/// coordinates is first replaced by the smaller one of its plane holding all of it the sweep can
/// reach (so the allowance is at the mover's scale: trisweep.c, cut_tri).
CL_API struct cl_sweep cl_sweep_sphere_tri(const cl_sphere *s, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c);
/// The sweep of capsule cp moved by d against the triangle abc: the ray of its end a against the
/// triangle swept back along its segment, rounded by r (the moved-out faces, the edges' capsules);
/// rank 1 on the triangle's face (also along its plane), 2 otherwise. The distance is convex in t,
/// so a start that does not approach is SEPARATED. Conventions and allowance as cl_sweep_sphere_tri.
CL_API struct cl_sweep cl_sweep_capsule_tri(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c);
/// cl_sweep_capsule_tri, except that a contact that certainly comes after t = tmax may be reported
/// SEPARATED (the mesh sweep's triangles that cannot be its first contact: meshworld.c).
CL_API struct cl_sweep cl_sweep_capsule_tri_until(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c,
                                                  double tmax);
/// cl_sweep_capsule_tri_until, also setting *clear to a lower bound on the distance between the
/// triangle and the quadrilateral of the segment's ends at the start and moved by d (those sums
/// rounded) when a SEPARATED answer came from such a bound (the plane test, the quad's gap, its gap
/// along an edge's direction x d), else 0.
CL_API struct cl_sweep cl_sweep_capsule_tri_clear(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c,
                                                  double tmax, double *clear);
/// cl_sweep_capsule_tri_clear and cl_sweep_sphere_tri (internal: meshworld.c) for data the caller
/// knows in range (their largest |value| within [2^-200, 2^200]: no scaling) and the triangle not
/// degenerate as given (cl_tri_degenerate(a, b, c) == 0); the same answers without those tests.
struct cl_sweep cl_sweep_capsule_tri_known(const cl_capsule *cp, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c,
                                           double tmax, double *clear);
struct cl_sweep cl_sweep_sphere_tri_known(const cl_sphere *s, cl_vec3 d, cl_vec3 a, cl_vec3 b, cl_vec3 c);
/// A capsule mover's values that every one of its triangle sweeps takes (internal: a mesh sweep
/// computes them once, cl_capmv_make, for all its triangles): the capsule, d, its ends at the start
/// and moved by d (pt: a, b, a + d, b + d), and maxima of their |coordinates|.
typedef struct cl_capmv {
    cl_capsule cp;
    cl_vec3 d, pt[4], q[4];
    double L, me, ms, mq, len;
} cl_capmv;
void cl_capmv_make(cl_capmv *mv, const cl_capsule *cp, cl_vec3 d);
/// cl_sweep_capsule_tri_known(&mv->cp, mv->d, a, b, c, tmax, clear) (the same answer and *clear);
/// with clear0 not NULL also *clear0: a lower bound on the distance between the triangle and the
/// segment mv->cp at the start when the sweep found one (its quad's gap), else 0.
struct cl_sweep cl_sweep_capsule_tri_mv(const cl_capmv *mv, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax,
                                        double *clear, double *clear0);
/// A triangle's own values the capsule sweep computes (internal: trisweep.c), kept by a mesh sweep
/// for a triangle it sweeps again (meshworld.c): the frame of its face (v: the vertices a, b, c,
/// the key, compared bit for bit), its edges ab, ac, normal n = ab x ac and their lengths and
/// maxima, its edges' normals mj across n, mt its largest |coordinate| (set by
/// cl_sweep_capsule_tri_mvd); have: 0 (nothing kept), else 1 | 2 (the frame made) |
/// 4 (the edge normals made). Each value is a function of the vertices' bits alone, so a kept one
/// is the value the sweep computes.
typedef struct cl_triframe { cl_vec3 v[3], n0, m[3]; double ml[3]; int ok; } cl_triframe;
typedef struct cl_tridata {
    cl_triframe f;
    cl_vec3 ab, ac, n, mj[3];
    double nl, ql, ee, ml[3], tx[3], pe[3], mt;
    int have;
} cl_tridata;
/// cl_sweep_capsule_tri_mv, taking the triangle's values from *td when they are those of a, b, c
/// (else making them there); the same answers.
struct cl_sweep cl_sweep_capsule_tri_mvd(const cl_capmv *mv, cl_vec3 a, cl_vec3 b, cl_vec3 c, double tmax,
                                         double *clear, double *clear0, cl_tridata *td);
/// The push of capsule cp out of the triangle: along the closest points, or, when the segment
/// crosses the triangle, along its normal to the nearer side (0 when the open capsule misses it).
CL_API int cl_penetration_capsule_tri(const cl_capsule *cp, cl_vec3 a, cl_vec3 b, cl_vec3 c, double *depth, cl_vec3 *n);
/// The push of the hull (as cl_sweep_hull_tri) out of the triangle: 1 with the depth and the unit
/// n along which the hull moves (the shortest, by separating axes), 0 when the open hull misses it.
CL_API int cl_penetration_hull_tri(const cl_vec3 *p, int np, const cl_vec3 *fa, int nf, const cl_vec3 *ed, int ne,
                                   cl_vec3 a, cl_vec3 b, cl_vec3 c, double *depth, cl_vec3 *n);
/// The push of sphere s out of the triangle (0 when the open sphere misses it).
CL_API int cl_penetration_sphere_tri(const cl_sphere *s, cl_vec3 a, cl_vec3 b, cl_vec3 c, double *depth, cl_vec3 *n);
/// Inclusive triangle/triangle overlap by separating axes (normals, edge pairs, in-plane edge
/// normals); 0 when either is degenerate.
CL_API int cl_tri_overlaps_tri(const cl_vec3 p[3], const cl_vec3 q[3]);

/* ---- placed meshes, the World's mesh items (meshworld.c): as the cl_shape operations ---- */
CL_API cl_aabb cl_pmesh_aabb(const cl_pmesh *pm);
/// 1 if the point lies on a triangle.
CL_API int cl_pmesh_contains(const cl_pmesh *pm, cl_vec3 p);
/// Closest hit (cl_mesh_raycast in the mesh's frame, the normal turned back); *tri may be NULL.
CL_API int cl_pmesh_raycast(const cl_pmesh *pm, const cl_ray *r, double maxt, cl_hit *out, size_t *tri);
/// The closest point of the placed mesh (p itself when every triangle is degenerate).
CL_API cl_vec3 cl_pmesh_closest(const cl_pmesh *pm, cl_vec3 p);
/// As cl_aabb_plane over the non-degenerate triangles (-1 when there is none: nothing to see).
CL_API int cl_pmesh_plane(const cl_pmesh *pm, cl_vec3 n, double d);
/// Inclusive overlap of a shape (AABB, OBB, Sphere or a placed mesh) with the placed mesh.
CL_API int cl_pmesh_overlaps(const cl_pmesh *pm, const cl_shape *s);
/// The sweep of shape s (AABB, OBB or Sphere) moved by d against the triangles: the earliest
/// contact over them (OVERLAPPED first; ties by rank, then triangle index); *tri the triangle.
CL_API struct cl_sweep cl_pmesh_sweep(const cl_pmesh *pm, const cl_shape *s, cl_vec3 d, size_t *tri);
/// The push of s out of the triangle it is deepest in (ties to the lowest index), as cl_penetration.
CL_API int cl_pmesh_penetration(const cl_pmesh *pm, const cl_shape *s, double *depth, cl_vec3 *n);

/* ---- the kind table (kinds.c) ---- */
/// What a shape kind provides. Every function takes the kind's payload: &shape->u of a cl_shape,
/// or a shape userdata's payload in the binding (the same struct, e.g. a cl_aabb *). A payload is
/// made of doubles only (size / sizeof(double) of them) and is valid when finite.
typedef struct cl_kindops {
    size_t size;                        /* sizeof the payload struct */
    int npos;                           /* 1 or 2 position points (at most 2) ... */
    size_t pos[2];                      /* ... at these byte offsets: the cl_vec3s a translation moves */
    cl_aabb (*aabb)(const void *s);     /* tight enclosing box */
    int (*contains)(const void *s, cl_vec3 p);                                   /* inclusive */
    int (*raycast)(const void *s, const cl_ray *r, double maxt, cl_hit *out);    /* as cl_aabb_raycast */
    cl_vec3 (*closest)(const void *s, cl_vec3 p);                                /* on or in the shape */
    int (*plane)(const void *s, cl_vec3 n, double d);                            /* as cl_aabb_plane */
} cl_kindops;
/// The table itself, cl_kinds (one row per kind, indexed by cl_kind), is in kinds.h, with:
/// inclusive overlap of payloads a (kind ka) and b (kind kb): cl_pair_overlaps[ka][kb](a, b),
/// symmetric ([ka][kb] and [kb][ka] run the same test), and
typedef int (*cl_overlapfn)(const void *a, const void *b);
/// the sweep of payload a (kind ka) moved by d against the static payload b (kind kb), as
/// cl_sweep_shapes: cl_pair_sweep[ka][kb](a, d, b).
typedef struct cl_sweep cl_sweep;
typedef cl_sweep (*cl_sweepfn)(const void *a, cl_vec3 d, const void *b);
/// and the push of payload a out of payload b, as cl_penetration: cl_pair_penetration[ka][kb].
typedef int (*cl_penetrationfn)(const void *a, const void *b, double *depth, cl_vec3 *n);

/* ---- generic dispatch on cl_shape (through the kind table) ---- */
CL_API int cl_shape_overlaps(const cl_shape *a, const cl_shape *b);
CL_API int cl_shape_contains(const cl_shape *s, cl_vec3 p);
CL_API int cl_shape_raycast(const cl_shape *s, const cl_ray *r, double maxt, cl_hit *out);
CL_API cl_aabb cl_shape_aabb(const cl_shape *s);
CL_API cl_vec3 cl_shape_closest(const cl_shape *s, cl_vec3 p);
CL_API int cl_shape_plane(const cl_shape *s, cl_vec3 n, double d);
/// Moves the shape by (dx, dy, dz): adds d to each of its position points.
CL_API void cl_shape_translate(cl_shape *s, cl_vec3 d);
/// 0 if every position point of s moved by d is finite; else the first axis (1, 2 or 3 for x, y,
/// z) on which one is not. The sums are cl_shape_translate's.
CL_API int cl_shape_moved_finite(const cl_shape *s, cl_vec3 d);
/// cl_shape_translate and cl_shape_moved_finite on a payload s of kind k.
CL_API void cl_kind_translate(cl_kind k, void *s, cl_vec3 d);
CL_API int cl_kind_moved_finite(cl_kind k, const void *s, cl_vec3 d);
/// Value equality (same kind, all fields equal).
CL_API int cl_shape_equal(const cl_shape *a, const cl_shape *b);

/* ---- sweeps (sweep.c): mover a moved by d over t in [0, 1] against static b ---- */
/// The pair sweeps, each as cl_sweep_shapes (world.h) for its two kinds (mover first).
CL_API cl_sweep cl_sweep_aabb_aabb(const cl_aabb *a, cl_vec3 d, const cl_aabb *b);
CL_API cl_sweep cl_sweep_obb_obb(const cl_obb *a, cl_vec3 d, const cl_obb *b);
CL_API cl_sweep cl_sweep_sphere_aabb(const cl_sphere *s, cl_vec3 d, const cl_aabb *b);
CL_API cl_sweep cl_sweep_sphere_obb(const cl_sphere *s, cl_vec3 d, const cl_obb *b);
CL_API cl_sweep cl_sweep_sphere_sphere(const cl_sphere *a, cl_vec3 d, const cl_sphere *b);
/// a's answer for the swapped pair: r from moving b by -d against a, with the normal negated
/// (so it points out of b toward a again).
CL_API cl_sweep cl_sweep_flip(cl_sweep r);

/* ---- free functions ---- */
/// Seed 003, corrected: time of impact of AABB a moved by da and b moved by db over one step.
/// OVERLAPPED (t = 0) if the interiors intersect at the start; TOUCHING with first contact t in
/// [0, 1) if the interiors come to intersect during the step; otherwise SEPARATED (t = 1).
/// Interiors are open boxes, except that on an axis with no relative motion where both boxes are
/// flat at the same coordinate the boxes count as overlapping on that axis (2D use).
CL_API cl_toi_state cl_toi(const cl_aabb *a, cl_vec3 da, const cl_aabb *b, cl_vec3 db, double *t);
/// (Added.) cl_toi with the displacements da = (dax, day, daz) and db = (dbx, dby, dbz) as numbers.
CL_API cl_toi_state cl_toi_xyz(const cl_aabb *a, const cl_aabb *b, double dax, double day, double daz,
                               double dbx, double dby, double dbz, double *t);
/// Closest point on segment ab to p and its parameter s in [0, 1]; zero-length gives a, s = 0.
CL_API cl_vec3 cl_closest_on_segment(cl_vec3 p, cl_vec3 a, cl_vec3 b, double *s);
/// v - (1 + e)(n.v)n. n is used as given (callers pass a unit normal).
CL_API cl_vec3 cl_reflect(cl_vec3 v, cl_vec3 n, double e);
/// Crossing-number test of (x, y) against the polygon xy[0..2n-1] (n vertices, n >= 3).
/// Points on an edge or vertex count as inside.
CL_API int cl_point_in_polygon(const double *xy, size_t n, double x, double y);
/// (Added.) An edge table speeds up cl_point_in_polygon for polygons of at most
/// CL_POLY_EDGES_MAX vertices that are tested many times: CL_POLY_EDGE_DOUBLES(n) doubles written
/// once by cl_polygon_edges (layout private to misc.c), then passed to cl_point_in_polygon_e,
/// which gives cl_point_in_polygon's answer (e may be NULL: then it is cl_point_in_polygon).
#define CL_POLY_EDGES_MAX 32
#define CL_POLY_EDGE_DOUBLES(n) (4 + (size_t)5 * (((size_t)(n) + 1) / 2 * 2))
CL_API void cl_polygon_edges(const double *xy, size_t n, double *e);
CL_API int cl_point_in_polygon_e(const double *xy, size_t n, const double *e, double x, double y);
/// (Added.) cl_point_in_polygon for coordinates that may not be finite (x and y must be): -1 if
/// one of xy[0..2n-1] is not finite, else the same answer.
CL_API int cl_point_in_polygon_finite(const double *xy, size_t n, double x, double y);

/* ---- Capsule (capsule.c) ---- */
/// Box of the segment grown by r (clamped to finite values).
CL_API cl_aabb cl_capsule_aabb(const cl_capsule *c);
/// Inclusive containment: p within r of the segment.
CL_API int cl_capsule_contains(const cl_capsule *c, cl_vec3 p);
/// Closest point on or in the capsule (p itself when inside).
CL_API cl_vec3 cl_capsule_closest(const cl_capsule *c, cl_vec3 p);
/// Plane side as cl_aabb_plane: 1 / -1 when both end balls are wholly in front / behind, else 0
/// (cl_sphere_plane of each end ball).
CL_API int cl_capsule_plane(const cl_capsule *c, cl_vec3 n, double d);
/// Ray hit with t in [0, maxt]; origin inside (inclusive) gives t = 0, n = 0. The normal points
/// from the segment's closest point to the hit point (-d when r == 0).
CL_API int cl_capsule_raycast(const cl_capsule *c, const cl_ray *r, double maxt, cl_hit *out);
/// Closest points of segments p0p1 and q0q1 (points allowed): parameters s, t in [0, 1], points
/// onp, onq (parallel segments: one of the closest pairs).
CL_API void cl_segment_segment(cl_vec3 p0, cl_vec3 p1, cl_vec3 q0, cl_vec3 q1, double *s, double *t,
                               cl_vec3 *onp, cl_vec3 *onq);
/// Closest points of segment ab and a box: parameter s, onseg, and onbox (= onseg where they meet).
/// Exact up to rounding: the minimum of the convex piecewise-quadratic squared distance.
CL_API void cl_segment_aabb(cl_vec3 a, cl_vec3 b, const cl_aabb *box, double *s, cl_vec3 *onseg, cl_vec3 *onbox);
/// cl_segment_aabb in an oriented box's frame (a box with world axes is its AABB).
CL_API void cl_segment_obb(cl_vec3 a, cl_vec3 b, const cl_obb *box, double *s, cl_vec3 *onseg, cl_vec3 *onbox);
/* Inclusive overlaps (touching counts): the ball of radius r at the segment's closest point
 * against the other shape, with the sphere tests. */
/// Capsule/sphere: the segment within r + s.r of the centre.
CL_API int cl_capsule_overlaps_sphere(const cl_capsule *c, const cl_sphere *s);
/// Capsule/capsule: the segments within the sum of the radii.
CL_API int cl_capsule_overlaps_capsule(const cl_capsule *a, const cl_capsule *b);
/// Capsule/AABB: the ball at the segment's point closest to the box touches the box.
CL_API int cl_capsule_overlaps_aabb(const cl_capsule *c, const cl_aabb *b);
/// Capsule/OBB: as cl_capsule_overlaps_aabb, in the box's frame.
CL_API int cl_capsule_overlaps_obb(const cl_capsule *c, const cl_obb *b);
/* Penetration of capsule c out of the other shape, as cl_penetration (1, depth, unit n out of the
 * other; 0 when the open shapes do not overlap). The other shape out of the capsule: the same
 * depth with n negated. Segments that meet (or a centre on the segment) push along their common
 * normal (perpendicular to the segment) by the radii sum; a segment meeting a box leaves box (+)
 * segment through its nearest face (face normals: the box's axes and segment x axis), plus r. */
/// Capsule out of a sphere (exact).
CL_API int cl_penetration_capsule_sphere(const cl_capsule *c, const cl_sphere *s, double *depth, cl_vec3 *n);
/// Capsule out of a capsule (exact up to rounding).
CL_API int cl_penetration_capsule_capsule(const cl_capsule *a, const cl_capsule *b, double *depth, cl_vec3 *n);
/// Capsule out of an AABB (exact up to rounding).
CL_API int cl_penetration_capsule_aabb(const cl_capsule *c, const cl_aabb *b, double *depth, cl_vec3 *n);
/// Capsule out of an OBB, in its frame (exact up to rounding).
CL_API int cl_penetration_capsule_obb(const cl_capsule *c, const cl_obb *b, double *depth, cl_vec3 *n);
/* Exact sweeps of the first shape moved by d (t in [0, 1]) against the static second, as
 * cl_sweep_shapes (world.h): OVERLAPPED (t = 0, n = 0) when the open interiors meet at the start;
 * TOUCHING with the first contact t in [0, 1) and the unit normal n out of the static shape when
 * they come to meet, with the contact's rank; else SEPARATED (t = 1, n = 0). Resting or grazing
 * contact does not block. Interiors are open 3D sets (no flat-axis rule; a capsule with r == 0
 * only meets boxes' interiors). Rank: 1 against a capsule or sphere; against a box, the box's axes
 * on whose slabs the segment's closest point lies outside at the contact (1 a face, 2 an edge, 3 a
 * corner, as a sphere's; for r == 0 the axes the normal is not perpendicular to). */
/// Capsule a moved by d against capsule b.
CL_API cl_sweep cl_sweep_capsule_capsule(const cl_capsule *a, cl_vec3 d, const cl_capsule *b);
/// Capsule a moved by d against sphere s.
CL_API cl_sweep cl_sweep_capsule_sphere(const cl_capsule *a, cl_vec3 d, const cl_sphere *s);
/// Sphere s moved by d against capsule b.
CL_API cl_sweep cl_sweep_sphere_capsule(const cl_sphere *s, cl_vec3 d, const cl_capsule *b);
/// Capsule a moved by d against AABB b.
CL_API cl_sweep cl_sweep_capsule_aabb(const cl_capsule *a, cl_vec3 d, const cl_aabb *b);
/// Capsule a moved by d against OBB b.
CL_API cl_sweep cl_sweep_capsule_obb(const cl_capsule *a, cl_vec3 d, const cl_obb *b);
/// AABB a moved by d against capsule b.
CL_API cl_sweep cl_sweep_aabb_capsule(const cl_aabb *a, cl_vec3 d, const cl_capsule *b);
/// OBB a moved by d against capsule b.
CL_API cl_sweep cl_sweep_obb_capsule(const cl_obb *a, cl_vec3 d, const cl_capsule *b);

/* ---- penetration (penetration.c) ---- */
/* The minimum translation of a out of b: moving a by depth * n (unit n, out of b toward a) leaves
 * the two just touching and no shorter translation does. Interiors are open as in the sweeps:
 * touching or apart returns 0 (nothing written). An axis where both boxes are flat at the same
 * coordinate (2D use) overlaps but is no way out. */
/// AABB pair: the smallest of the six face pushes (exact). 0 when touching, apart, or when every
/// overlapping axis is flat at the same coordinate (two equal points).
CL_API int cl_penetration_aabb_aabb(const cl_aabb *a, const cl_aabb *b, double *depth, cl_vec3 *n);
/// Box pair: the smallest push over the 15 separating axes (they hold every face normal of the
/// Minkowski difference, so this is the true minimum up to rounding).
CL_API int cl_penetration_obb_obb(const cl_obb *a, const cl_obb *b, double *depth, cl_vec3 *n);
/// Sphere pair: r1 + r2 minus the centre distance along the centre offset (exact); equal centres
/// push along +x.
CL_API int cl_penetration_sphere_sphere(const cl_sphere *a, const cl_sphere *b, double *depth, cl_vec3 *n);
/// Sphere s out of box b (exact): centre outside, r minus its distance along the closest point's
/// offset; centre inside (or on the surface), r plus the distance to the nearest face, through that
/// face (ties: lowest axis, + before -). A point sphere (r = 0) overlaps only a box it is strictly inside.
CL_API int cl_penetration_sphere_aabb(const cl_sphere *s, const cl_aabb *b, double *depth, cl_vec3 *n);
/// Sphere s out of oriented box b: cl_penetration_sphere_aabb in the box's frame.
CL_API int cl_penetration_sphere_obb(const cl_sphere *s, const cl_obb *b, double *depth, cl_vec3 *n);
/// Any pair of cl_shape kinds (a box out of a sphere is the sphere's push reversed).
CL_API int cl_penetration(const cl_shape *a, const cl_shape *b, double *depth, cl_vec3 *n);

#endif
