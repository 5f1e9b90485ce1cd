/* collide core: bump.lua's rules (kikito/bump.lua 3.1.7, 2D axis-aligned rectangles) on collide's
 * dynamic tree. Owns the rectangles of a bump world (slot per item, doubles x, y, w, h), one tree
 * leaf per item (a flat 3D box, z = 0, fattened when the item moves), and bump's exact tests:
 * the collision of a moving rectangle with a still one (bump's rect.detectCollision, same
 * arithmetic in the same order, so the same doubles come out), bump's candidates (the items
 * sharing one of its grid cells, so that what a grid of that cell size misses is missed), the sort of a projection's
 * collisions (time, then square distance, then slot), the segment test (Liang-Barsky, bump's
 * sides order) and the strict rectangle and point tests. The tree gives candidates (conservative:
 * inclusive float boxes rounded outward); the exact double tests decide. Never raises, never calls
 * Lua; allocates only through the allocator given to cl_bump_init and reports failure. */
#ifndef CL_BUMP_H
#define CL_BUMP_H

#include "tree.h"

/// bump's floating-point margin (DELTA in bump.lua).
#define CL_BUMP_DELTA 1e-10

/// One collision of a projection (bump's col table without the Lua parts): the other's slot,
/// whether the item already overlapped it, bump's ti (time in [0, 1), or minus the overlap's
/// pseudo-area), the normal, the touch position, and the square distance used to break ties.
typedef struct cl_bcol {
    double ti, nx, ny, tx, ty, dist;
    int id, overlaps;
} cl_bcol;

/// One item a segment meets: its slot, the segment's entry and exit fractions clipped to [0, 1],
/// and the sort weight (the entry fraction along the infinite line).
typedef struct cl_bseg {
    double ti1, ti2, weight;
    double nx, ny;     /* normal of the side entered (0, 0 when the segment starts inside) */
    double cells[4];   /* its grid cells (scratch of the traversal) */
    int id, seen;
} cl_bseg;

/// A bump world's geometry. Zero-initialise through cl_bump_init; free with cl_bump_free.
typedef struct cl_bump {
    cl_tree tree;
    double *rect;      /* 4 doubles per slot: x, y, w, h */
    double *cells;     /* 4 doubles per slot: its bump grid cells (cl_bump_cellrect) */
    int *leaf;         /* per slot: tree leaf, or CL_NULLNODE when the slot is free */
    int *nextfree;     /* per slot: next free slot (free slots only) */
    int cap, count, freelist;
    int changes;       /* leaf reinserts, adds and removes since the last tree rebuild */
    double cellsize;   /* bump's grid cell size: candidates are the items sharing a grid cell */
    /* bump's grid itself, an accelerator of cl_bump_project's candidates (the tree stays the
     * reference): hash of the cells (key cx, cy; gkeys 2 doubles and ghead 1 int per entry, -1
     * free) to lists of memberships (mnext, mid: next and slot), per slot gin (1 when its cells
     * are in the grid, 0 when it spans more than BUMP_GRIDSPAN cells or is far out) and stamp
     * (dedup of a query). Used while gbig == 0 (no item out of it); goff after a failed
     * allocation (everything freed, the tree answers alone from then on). */
    double *gkeys;
    int *ghead, gcap, gused;
    int *mnext, *mid, mcap, mfree;
    unsigned char *gin;
    unsigned *stamp, gstamp;
    int gslots, gbig, goff;
} cl_bump;

/// Initialises an empty world of bump grid cell size cellsize (finite, > 0) allocating through
/// alloc(ud, ...). Allocates nothing.
CL_API void cl_bump_init(cl_bump *b, double cellsize, cl_alloc alloc, void *ud);
/// Frees everything; the world is empty and reusable.
CL_API void cl_bump_free(cl_bump *b);
/// Adds the rectangle (finite x, y, w > 0, h > 0); returns its slot (>= 0), or CL_ENOMEM with the
/// world unchanged.
CL_API int cl_bump_add(cl_bump *b, double x, double y, double w, double h);
/// Removes the item in slot id (a live slot).
CL_API void cl_bump_remove(cl_bump *b, int id);
/// Gives the item in slot id a new rectangle; returns 1 when it left some of its grid cells
/// (oldcells then holds its previous cells), else 0. Never fails (the grid accelerator may
/// allocate; when it cannot, it is dropped and the tree answers alone).
CL_API int cl_bump_update(cl_bump *b, int id, double x, double y, double w, double h, double oldcells[4]);
/// 1 if slot id holds an item.
CL_API int cl_bump_live(const cl_bump *b, int id);

/// Slots of the items whose tree boxes touch the box [x0, x1] x [y0, y1] (a superset of the items
/// touching it), at most cap written to out; returns how many there are (more than cap: grow and
/// ask again), or CL_ENOMEM if the traversal stack could not grow.
CL_API int cl_bump_candidates(cl_bump *b, double x0, double y0, double x1, double y1, int *out, int cap);

/// Sets c to bump's cells of the rectangle (grid_toCellRect): first and last column, first and
/// last row (c[0], c[1], c[2], c[3]), cells numbered from 1 as bump numbers them.
CL_API void cl_bump_cellrect(double cs, double x, double y, double w, double h, double c[4]);
/// bump's candidates near the box [x0, x1] x [y0, y1] for the cells q (first and last column,
/// first and last row): the items touching the box with a grid cell among q, that is the items
/// bump's grid would list for q that can touch the box; count and capacity as cl_bump_candidates.
CL_API int cl_bump_cellcands(cl_bump *b, double x0, double y0, double x1, double y1, const double q[4], int *out,
                             int cap);
/// bump's rect.detectCollision(x1,y1,w1,h1, x2,y2,w2,h2, gx,gy): 1 and *c filled (all but id and
/// dist) when the first rectangle moving to (gx, gy) collides with the second, else 0.
CL_API int cl_bump_detect(const double r1[4], const double r2[4], double gx, double gy, cl_bcol *c);
/// bump's rect.getSegmentIntersectionIndices: 1 and the fractions and normals when the segment
/// (x1,y1)-(x2,y2) clipped to [*ti1, *ti2] meets the rectangle, else 0 (outputs then undefined).
CL_API int cl_bump_segindices(const double r[4], double x1, double y1, double x2, double y2,
                              double *ti1, double *ti2, double n[4]);

/// bump's project: the collisions of the rectangle r moving to (gx, gy) with every item except the
/// slots in skip[0..nskip-1], sorted as bump sorts them (ti, then square distance, then slot).
/// cand (candcap ints) is scratch, out receives at most outcap collisions. Returns the number of
/// collisions (at most outcap), or a number greater than candcap or outcap when a buffer is too
/// small (grow both to at least that and ask again), or CL_ENOMEM.
CL_API int cl_bump_project(cl_bump *b, const double r[4], double gx, double gy, const int *skip, int nskip,
                           int *cand, int candcap, cl_bcol *out, int outcap);

/// bump's querySegment: the items the segment (x1,y1)-(x2,y2) meets inside (0, 1) (corner grazes
/// included) that have a grid cell among those bump's grid traversal visits, sorted by the entry
/// fraction along the infinite line (ties by slot). Capacities and result as cl_bump_project.
CL_API int cl_bump_segment(cl_bump *b, double x1, double y1, double x2, double y2,
                           int *cand, int candcap, cl_bseg *out, int outcap);

/// collide's closest raycast on a bump world: every item the segment (x1,y1)-(x2,y2) meets (bump's
/// segment test inside (0, 1), corner grazes included, no grid cells involved), sorted by the entry
/// fraction ti1 along the segment (ties by slot), with the normal of the side entered. Capacities
/// and result as cl_bump_project.
CL_API int cl_bump_rayhits(cl_bump *b, double x1, double y1, double x2, double y2,
                           int *cand, int candcap, cl_bseg *out, int outcap);

/// Sorts n collisions as bump's project does (ti, then dist, then slot).
CL_API void cl_bump_sortcols(cl_bcol *c, int n);

#endif
