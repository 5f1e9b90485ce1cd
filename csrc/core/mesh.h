/* collide core: a static triangle mesh with its own bounding volume hierarchy (mesh.c).
 *
 * Vertices are doubles (exactly what was given); triangles are three 0-based vertex numbers each
 * (or, without an index array, vertices 3i, 3i+1, 3i+2). The hierarchy is a binary tree of float
 * boxes rounded outward (each encloses its triangles exactly), built once, top-down, by binned
 * surface-area splits; a node's two children are adjacent in the node array and leaves hold runs
 * of a permutation of the non-degenerate triangles (degenerate ones are left out of the tree, so
 * they never hit). Memory: 24 bytes per vertex, 12 per indexed triangle, 4 per tree triangle (16 in
 * an indexed mesh: its vertex numbers again, in leaf order, for rays) and 32 per node (about 0.7
 * nodes per triangle: leaves of about 3) plus 64. Every block comes from the allocator given to
 * cl_mesh_init. Queries never allocate. */
#ifndef CL_MESH_H
#define CL_MESH_H

#include "cl.h"
#include "tree.h"

/// A node: float box; a leaf (count > 0) holds prim[first .. first+count-1]; an internal node
/// (count == 0) has its children at nodes first and first + 1.
typedef struct cl_mnode {
    float lo[3], hi[3];
    unsigned first, count;
} cl_mnode;

/// The mesh. Fill v (and idx) after cl_mesh_init, then call cl_mesh_build once.
typedef struct cl_mesh {
    double *v;          /* 3 * nv coordinates */
    unsigned *idx;      /* 3 * nt vertex numbers (0-based, < nv), or NULL: vertices taken three at a time */
    unsigned *prim;     /* the nprim non-degenerate triangles, in leaf order */
    cl_mnode *nodes;    /* nnodes nodes, root first (none when nprim == 0); node 1 is unused, so that
                           each pair of children shares one 64-byte cache line */
    void *nodemem;      /* the block holding nodes (nnodes * sizeof(cl_mnode) + 64 bytes; nodes is
                           its first 64-byte aligned address) */
    size_t nv, nt, nprim, nnodes;
    cl_aabb box;        /* bounds of every triangle's vertices (degenerate ones included) */
    double maxabs;      /* largest coordinate magnitude of those vertices */
    int depth;          /* height of the tree (0: one leaf) */
    cl_alloc alloc;
    void *ud;
    unsigned *lidx;     /* 3 * nprim vertex numbers: tree triangle k's (of prim[k]) at 3k, for the ray
                           walk (no prim -> idx load); NULL without idx (or when its allocation failed:
                           the walk then reads idx) */
} cl_mesh;

/// Largest tree depth cl_mesh_build makes (below depth 32 it splits at the median, so the height
/// stays within 32 + log2(triangles)); traversal stacks have CL_MESH_STACK entries.
#define CL_MESH_STACK 80

/// Callback of cl_mesh_query_each: triangle i overlaps; return nonzero to stop.
typedef int (*cl_mesh_visit)(void *ud, size_t i);

/// Sets up an empty mesh of nv vertices and nt triangles (indexed: with an index array) and
/// allocates its vertex and index arrays (uninitialised) through alloc. nv and nt must be below
/// 2^32. CL_OK, or CL_ENOMEM with nothing allocated. Free with cl_mesh_free either way.
CL_API int cl_mesh_init(cl_mesh *m, size_t nv, size_t nt, int indexed, cl_alloc alloc, void *ud);
/// Builds the bounds and the tree once v (all finite) and idx (each < nv) are filled. CL_OK, or
/// CL_ENOMEM (the mesh stays freeable, not queryable).
CL_API int cl_mesh_build(cl_mesh *m);
/// Frees every block; the mesh is empty afterwards.
CL_API void cl_mesh_free(cl_mesh *m);
/// Bytes held by the mesh (vertices, indices, tree).
CL_API size_t cl_mesh_bytes(const cl_mesh *m);
/// The three vertices of triangle i (< nt).
CL_API void cl_mesh_triangle(const cl_mesh *m, size_t i, cl_vec3 *a, cl_vec3 *b, cl_vec3 *c);
/// Closest hit with t in [0, maxt] (watertight, both sides solid, normal facing the ray): 1 with
/// the hit and triangle *tri; ties in t go to the lowest triangle index. 0 for a miss. The hit is
/// the least t of cl_mesh_rayhit over the triangles, exactly.
CL_API int cl_mesh_raycast(const cl_mesh *m, const cl_ray *r, double maxt, cl_hit *out, size_t *tri);
/// Triangle i's hit as cl_mesh_raycast counts it: 1 and *t in [0, maxt] when the watertight test
/// (cl_tray_hit, at the scale the mesh's tests run at) hits; its t is raised, if below, to the
/// ray's entry into the triangle's box (over the axes with a nonzero direction component whose
/// reciprocal is finite) less 2^-44 of that entry and 2^-40 of the larger of the data's and the
/// origin's magnitude. A t computed to within that rounding is never raised; a ray nearly in the
/// plane of a thin triangle can get a test t short of the box entry by far more, and the raise
/// keeps it in the box (what makes the tree's box-entry pruning exact). 0 for a degenerate
/// triangle (as cl_mesh_build tests it) or a miss.
CL_API int cl_mesh_rayhit(const cl_mesh *m, const cl_ray *r, size_t i, double maxt, double *t);
/// 1 if some triangle overlaps the shape (inclusive; cl_tri_overlaps_*).
CL_API int cl_mesh_overlaps(const cl_mesh *m, const cl_shape *s);
/// Calls visit for every triangle overlapping the shape, in tree order (not sorted), until visit
/// returns nonzero; returns the number of calls.
CL_API size_t cl_mesh_query_each(const cl_mesh *m, const cl_shape *s, cl_mesh_visit visit, void *ud);
/// cl_mesh_query_each for the box (an AABB shape), its test split for visitors that reject most
/// triangles more cheaply than that test: for each triangle whose coordinates do not put it beyond
/// one of the box's faces, in the same order, calls pre; when pre returns nonzero and the triangle
/// overlaps the box (cl_mesh_query_each's exact test), calls post (nonzero: stop). post sees exactly
/// the triangles cl_mesh_query_each's visit would that pre keeps. Returns the number of post calls.
CL_API size_t cl_mesh_query_lazy(const cl_mesh *m, const cl_aabb *box, cl_mesh_visit pre, cl_mesh_visit post,
                                 void *ud);
/// What cl_mesh_candidates and cl_mesh_query_list return when the box lies outside [2^-200, 2^200]
/// (with the mesh: the triangle tests then scale the data) and they do nothing.
#define CL_MESH_UNSURE ((size_t)-1)
/// What a pre of cl_mesh_query_list returns for a triangle it knows overlaps the box (see there).
#define CL_MESH_PRE_OVERLAPS 2
/// The triangles cl_mesh_query_lazy would call pre for, for this box or any box inside it: those of
/// the leaves the walk meets that are not beyond a face of the box, in walk order, written into
/// out[0..cap-1]; returns their number (more than cap: out holds the first cap), or CL_MESH_UNSURE.
CL_API size_t cl_mesh_candidates(const cl_mesh *m, const cl_aabb *box, unsigned *out, size_t cap);
/// cl_mesh_query_lazy over list[0..n-1], what cl_mesh_candidates returned for a box containing
/// box (all of them): the same calls in the same order, without a walk; or CL_MESH_UNSURE, no call.
/// pre may return CL_MESH_PRE_OVERLAPS for a triangle when it has itself found with
/// cl_tri_overlaps_aabb that the triangle (its vertices as stored) overlaps box: the test is then
/// not made again.
CL_API size_t cl_mesh_query_list(const cl_mesh *m, const cl_aabb *box, const unsigned *list, size_t n,
                                 cl_mesh_visit pre, cl_mesh_visit post, void *ud);
/// cl_mesh_candidates(m, box, out, cap) from list[0..n-1], what cl_mesh_candidates returned for a
/// box containing box (n of them, all written): the same triangles in the same order, the same
/// count and CL_MESH_UNSURE, without a walk.
CL_API size_t cl_mesh_candidates_in(const cl_mesh *m, const cl_aabb *box, const unsigned *list, size_t n,
                                    unsigned *out, size_t cap);
/// Writes the indices of the triangles overlapping the shape, ascending, into out[0..cap-1] and
/// returns their number; when that exceeds cap, out holds an unspecified part of them.
CL_API size_t cl_mesh_query(const cl_mesh *m, const cl_shape *s, unsigned *out, size_t cap);
/// cl_mesh_query_each, cl_mesh_overlaps and cl_mesh_query for the capsule cp (the same as for a
/// cl_shape of kind CL_CAPSULE; cl_tri_overlaps_capsule: the triangle within r of the segment).
CL_API size_t cl_mesh_capsule_each(const cl_mesh *m, const cl_capsule *cp, cl_mesh_visit visit, void *ud);
CL_API int cl_mesh_overlaps_capsule(const cl_mesh *m, const cl_capsule *cp);
CL_API size_t cl_mesh_query_capsule(const cl_mesh *m, const cl_capsule *cp, unsigned *out, size_t cap);
/// Room for the candidate triangles a cl_pmkeep holds.
#define CL_PMKEEP 96
/// Room for the candidates of a cl_pmkeep's cache (cl_pmkeep_cache).
#define CL_PMCACHE 128
/// Room for the triangles' own values a cl_pmkeep's cache keeps (a power of 2).
#define CL_PMTRI 32
/// A placed mesh's sweep kept for the overlap checks at its end (cl_pmesh_sweep_keep): the
/// candidate triangles of a box slightly larger than the sweep's (cl_mesh_candidates), when ok.
typedef struct cl_pmkeep {
    int ok;
    size_t n;
    cl_aabb wide;       /* the box of the candidates, in the mesh's frame */
    cl_pmesh pm;        /* the placed mesh swept */
    unsigned tri[CL_PMKEEP];
    int capsule;        /* a capsule's sweep: its segment cp and d (mesh frame), and per candidate */
    cl_capsule cp;      /* its certified clearance from the swept quad (cl_sweep_capsule_tri_clear, */
    cl_vec3 d;          /* 0 when unknown) */
    double clr[CL_PMKEEP];
    double clr0[CL_PMKEEP]; /* and its clearance from the segment at the start (0: unknown) */
    /* the cache (cl_pmkeep_cache): when con, the candidates of mesh cm for the box cbox (mesh's
     * frame), cn of them (more than CL_PMCACHE, or CL_MESH_UNSURE: not usable); a sweep whose
     * box is not inside cbox walks cbox again, made of its box and that box moved by the world
     * vector cgv (in the mesh's frame), grown by cg */
    int con;
    const cl_mesh *cm;
    cl_aabb cbox;
    cl_vec3 cgv;
    double cg;
    size_t cn;
    unsigned ctri[CL_PMCACHE];
    /* while con, a capsule's triangle sweeps keep each triangle's own values (cl_tridata) in
     * slot mw_tslot(i) of td (meshworld.c), kept from move to move (empty: have 0, as the
     * world's zeroed memory holds it); a slot serves only the triangle whose vertices it holds,
     * bit for bit, whatever mesh it came from, so no stale slot can change an answer */
    cl_tridata td[CL_PMTRI];
} cl_pmkeep;
/// Turns the candidate cache of k on (on != 0) or off, empty either way: while it is on, the
/// sweeps of cl_pmesh_sweep_keep take their candidates from the cache's list when their box is
/// inside its box (the same candidates, only faster), else walk a box of theirs grown by the
/// world vector gv and by g, for the sweeps that follow (a character's move: gv its probe down).
/// The caller keeps every mesh swept alive and unchanged while it is on.
CL_API void cl_pmkeep_cache(cl_pmkeep *k, int on, cl_vec3 gv, double g);
/// cl_pmesh_sweep(pm, s, d, NULL), keeping its candidates in *k for cl_pmesh_overlaps_kept (k->ok
/// is 0 when they are not kept: more than CL_PMKEEP, huge or tiny coordinates, a box mover).
CL_API struct cl_sweep cl_pmesh_sweep_keep(const cl_pmesh *pm, const cl_shape *s, cl_vec3 d, cl_pmkeep *k);
/// cl_pmesh_sweep_keep with sb = cl_shape_aabb(s), the caller's (read for a sphere or capsule).
CL_API struct cl_sweep cl_pmesh_sweep_keep_box(const cl_pmesh *pm, const cl_shape *s, const cl_aabb *sb, cl_vec3 d,
                                               cl_pmkeep *k);
/// Whether the interiors of s and the placed mesh overlap, as cl_interiors_overlap(s, mesh)
/// answers it, from the candidates kept by a sweep of the same placed mesh: 1 or 0, or -1 when
/// they cannot tell (s not a sphere or capsule, or its box not inside the kept one).
CL_API int cl_pmesh_overlaps_kept(const cl_pmesh *pm, const cl_shape *s, const cl_pmkeep *k);
/// The point of the mesh closest to p and its triangle (ties to the lowest index): 1, or 0 when
/// the mesh has no non-degenerate triangle.
CL_API int cl_mesh_closest(const cl_mesh *m, cl_vec3 p, cl_vec3 *q, size_t *tri);

/* 1 when a vertex of abc lies in the box x (closed; exact comparisons): then cl_tri_overlaps_aabb(a,
 * b, c, x) returns 1 when no product of a coordinate and an axis component overflows (coordinates
 * of the triangle and the box at most 2^200: products under 2^610), and the build does not fuse
 * multiply-adds (cl.h). Its face test cannot separate them, and on each axis n the rounded
 * projection of that vertex stays between the box's: every rounded product n_i v_i lies between
 * the rounded n_i lo_i and n_i hi_i (rounding is monotone), and each rounded sum of them, in the
 * same order (x + y) + z, between the box's sums of the least and of the greatest products
 * (monotone again). mesh.c's list walk and meshworld.c's first guess skip the test by it. */
static inline int cl_tri_vertex_in(cl_vec3 a, cl_vec3 b, cl_vec3 c, const cl_aabb *x)
{
    return (a.x >= x->min.x && a.x <= x->max.x && a.y >= x->min.y && a.y <= x->max.y && a.z >= x->min.z && a.z <= x->max.z) ||
           (b.x >= x->min.x && b.x <= x->max.x && b.y >= x->min.y && b.y <= x->max.y && b.z >= x->min.z && b.z <= x->max.z) ||
           (c.x >= x->min.x && c.x <= x->max.x && c.y >= x->min.y && c.y <= x->max.y && c.z >= x->min.z && c.z <= x->max.z);
}

#endif
