/* collide core: the World. Items (integer ids) with shapes on a dynamic AABB tree; exact
 * queries, raycasts, pairs, sweeps and bump-style moves. Allocates only through the allocator
 * given to cl_world_init; never raises; functions that may allocate return CL_ENOMEM and leave
 * the world as it was. Result lists live in buffers owned by the world and stay valid until
 * the next call of the same kind. Order: lists by add order (sequence number); hits by t, then
 * add order. Internals that keep repeated calls cheap: a few items updated out of their fat
 * boxes stay off the tree (traversals test them directly); pairs keep a persistent candidate
 * set; a tree left unchanged gets a read-only snapshot of 4-wide 112-byte nodes that serves its
 * traversals (queries, rays, sweeps, moves, pairs), and once many point queries met it, a
 * uniform grid of its leaves for them. */
#ifndef CL_WORLD_H
#define CL_WORLD_H

#include "tree.h"
#include "mesh.h"

/// One item slot. proxy == CL_NULLNODE marks a free slot (next = free-list link).
typedef struct cl_item {
    /* the fields a ray or query test reads first (order, stale flag, slot state, kind, box) lead,
     * so a leaf test usually touches the item's first cache line only. An AABB item's shape is
     * its box; the other kinds keep their shape in the world's side array (cl_world.xs, index
     * xs), so the slot is 112 bytes, not the 264 a whole cl_shape in it needed. The fat-box copy
     * stays (reading the leaf's box from the tree instead made each update a random load: the
     * moving-boxes frame doubled). Bookkeeping that only steers tree upkeep (never an answer) is
     * kept small: flags in bytes, floats for the predictive velocity; the looseness limits are
     * not stored but worked out from the box and the fat box when an update needs them
     * (clw_update_to), and a free slot's link lives in xs (a free slot is an AABB, whose xs
     * nothing reads), since dnext and mnext may still be in use: a removed item can stay on the
     * dirty list and the changed list until they are next drained. No list of live items is
     * kept (the pairs' full rebuild walks the slots) and no generation counter: a cached pair
     * is checked against the low 32 bits of its items' add orders (seq), which every add renews */
    double seq;                 /* add order: 1, 2, 3, ... (exact integers in a double) */
    int proxy;                  /* tree leaf */
    unsigned char dirty;        /* 1 when the tree leaf is stale (shape left its fat box) */
    unsigned char onlist;       /* 1 while on the dirty list (link dnext) */
    unsigned char mon;          /* 1 while on the list of fat boxes changed since the last pairs */
    unsigned char kind;         /* the shape's cl_kind */
    cl_aabb box;                /* tight box of the shape: the shape itself for an AABB item */
    cl_fbox fat;                /* copy of the tree leaf's box (fat box) */
    int xs;                     /* live: the shape's index in cl_world.xs (not an AABB), else -1;
                                   free slot: free-list link */
    float vel[3];               /* displacement of the last update (predictive fattening) */
    int dnext;                  /* dirty list link */
    int mnext;                  /* changed-fat-box list link */
} cl_item;

/* internal: a slot of the side array of shapes that are not AABBs (next: free-list link) */
typedef union cl_xshape {
    cl_shape s;
    int next;
} cl_xshape;

/// Cached candidate pair (pairs): two items whose fat boxes overlapped when last checked,
/// a < b by id, with the low 32 bits of their add orders (a removed item's pairs go stale).
typedef struct cl_cpair {
    int a, b;
    unsigned ga, gb;
} cl_cpair;

/// A found pair with the add orders of its items (sorting key).
typedef struct cl_wpair {
    double sa, sb;
    int a, b;
} cl_wpair;

/* internal: a found pair keyed by its add orders packed into one integer (sa * 2^B + sb, every
 * order below 2^B, B <= 31), for the radix sort of cl_world_pairs */
typedef struct cl_kpair {
    unsigned long long key;
    int a, b;
} cl_kpair;

/// A ray or sweep hit on an item.
typedef struct cl_whit {
    int item;
    double t;
    cl_vec3 n;
} cl_whit;

/// Responses a move filter can choose.
typedef enum cl_resp {
    CL_RESP_IGNORE = 0, CL_RESP_SLIDE = 1, CL_RESP_TOUCH = 2, CL_RESP_CROSS = 3, CL_RESP_BOUNCE = 4
} cl_resp;

/// A move collision: the other item, the response, t along the leg and the normal.
typedef struct cl_col {
    int other;
    cl_resp type;
    double t;
    cl_vec3 n;
} cl_col;

/// Move filter: the response of mover to other (may not return to the caller, e.g. longjmp;
/// the world is then unchanged).
typedef cl_resp (*cl_respond)(void *ctx, int mover, int other);

/// Sweep result state.

/* internal: node of the box-query snapshot (112 bytes, 16-byte aligned: two or three cache
 * lines; no padding to 128, which cost 16 bytes a node, 6 per item at 1,000,000 AABB items): the
 * boxes of up to four children as structure of arrays (b[0..2][k]: child k's lo x, y, z; b[3..5][k]:
 * its hi x, y, z), so a visit tests four boxes with six 4-wide comparisons (a ray: two slots at a
 * time). Child >= 0: snapshot node (never 0, the root); < 0: the leaf of item ~child; 0: an
 * unused slot, whose bounds are NaN (no comparison of a box query holds). */
typedef struct cl_qnode {
    float b[6][4];
    int child[4];
} cl_qnode;

/* internal: entry of the query grid: a leaf of the box-query snapshot (its box, as the
 * snapshot holds it) and its item. */
typedef struct cl_pgent {
    float lo[3], hi[3];
    int item;
} cl_pgent;

/* internal: move candidate */
typedef struct cl_mcand {
    int item;
    int flags;
    cl_sweep s;
} cl_mcand;

typedef struct cl_world {
    cl_tree tree;       /* its pool's nodes are written as they are handed out (cl_tree's lazy):
                         * the unused part of a doubled pool stays out of RSS, 3.5 bytes per item
                         * at 1,000,000 AABB items (2^21 nodes for 2M - 1 used) */
    cl_item *items;
    /* item slots: ids below cap have been handed out once (each is live or on the free list);
     * the block holds acap slots (doubling), and the ones from cap on are not written until an
     * add needs them, so their pages stay untouched (not in the process's RSS: 5.4 bytes per
     * item at 1,000,000 items, whose block has 2^20 slots). Code that checks an id checks
     * id < cap, as before. */
    int cap, count, freelist, acap;
    /* after a whole rebuild of a large tree (the first query after bulk adds), the items' new
     * leaf indices wait here (lf[id], lfcap = the acap it was made for) and are copied into the
     * items a slice per traversal from id lfpos on (clw_leaf_step; lfpos -1: from the next
     * traversal, not the one that rebuilt), instead of all at once in
     * that call: 1,000,000 random writes into the item block were a quarter of that call. While
     * lf is set it is the leaf index of every live item (clw_leaf) and writes go to both. */
    int *lf; int lfcap, lfpos;
    /* during an incremental rebuild, the items' leaf indices in its new tree, computed a slice
     * per traversal (LEAF_SLICE slots, or an eighth of the slots when that is more) from nlpos
     * on once its structure is done (nl_step), for the rebuild nlbld: its install then hands nl
     * over as lf (copied into the items by later traversals) instead of writing every item in
     * its own call. When the rebuild is cancelled (an add, a remove, a reserve that grew the
     * tree's pool) or ends without taking them, a block of at most NL_KEEP_BYTES is kept here
     * for the next rebuild (nlbld 0) and a larger one freed; a whole rebuild takes it as lf */
    int *nl; int nlcap, nlpos; long nlbld;
    cl_xshape *xs; int xscap, xsfree;   /* the shapes of items that are not AABBs, free list */
    double nextseq;
    double margin;
    /* result buffers */
    int *res; int rescap, nres;
    int *tmp; int tmpcap;
    cl_whit *hits; int hitcap, nhits;
    cl_mcand *mc; int mccap, nmc;
    int *mq; int mqcap;                 /* move: candidates of the last tree query, add order */
    cl_col *cols; int colcap, ncols;
    cl_shape mend;                      /* move: the shape the last cl_world_move ended at */
    cl_pmkeep mkeep; int mkeepitem;     /* move: the leg's sweep of mesh item mkeepitem, for its end */
    /* pairs: persistent set of candidate pairs (fat boxes overlap), updated from the items
     * whose fat box changed since the last call (Box2D's move buffer) */
    cl_cpair *cp; int cpcap, ncp;       /* the candidate pairs */
    int *ph; int phcap;                 /* open-addressing hash of cp indices (-1 empty) */
    int mhead;                          /* items whose fat box changed since the last pairs */
    int pfull;                          /* the cache is invalid: rebuild from every item */
    int ppurge;                         /* items were removed since the last pairs */
    cl_wpair *pr; int prcap;
    cl_kpair *kp; int kpcap;            /* radix-sorted pairs: 2 x the pairs (second half: scratch) */
    int dhead, dlen;                    /* deferred leaf refits (items whose shape left the fat box) */
    long tver;                          /* tree version (bumped by every change) */
    cl_qnode *qn; void *qnblock; int qncap; /* box-query snapshot, also walked by closest raycasts
                                           (qn: qnblock aligned to 64) */
    long qnver;                         /* its tree version */
    int *qslot; int qslotcap;           /* tree node -> 4 * snapshot node + slot, -1 if none (kept in
                                           step with leaf enlargements and refits, not rebuilt) */
    cl_qnode *qn2; void *qn2block; int qn2cap; int *qslot2; int qslot2cap; /* the next tree's box-query
                                           snapshot, built while an incremental rebuild waits to install */
    long qn2bld;                        /* the rebuild (cl_tree.bldno) it was built for, 0 if none */
    long qn2fit;                        /* the rebuild whose fitted boxes it holds (copied in the
                                           install's call, or the call before), 0 if none */
    cl_sentry *qss; int qsscap, qssn, qsk; long qsres; /* that build paused half way: its stack,
                                           next node, and the rebuild it is for (0: none) */
    long raysver, wnrays;               /* traversals since the tree reached version raysver */
    double refcost;                     /* cl_tree_cost after the last rebuild (0: none yet) */
    long tchg;                          /* tree changes since the last rebuild (8 per insert,
                                           remove or reinsert, 1 per enlargement) */
    /* query grid (world_query.c): the box-query snapshot's leaves bucketed by a uniform grid,
     * built after many point, box and move queries met the same unchanged tree, so a small query
     * reads a few cells instead of walking the snapshot's levels */
    void *pgblk; size_t pgsize;         /* one block: pgstart[ncell + 1], then the entries */
    int *pgstart; cl_pgent *pgent;      /* cell c's entries: pgent[pgstart[c] .. pgstart[c+1]-1] */
    int pgok; long pgver;               /* 1 when the grid holds the leaves of tree version pgver */
    long pgcver, pgcnt;                 /* queries the walk served at tree version pgcver */
    long pgfver; int pgfails;           /* the version of the last failed build (-1: none), and the
                                         * failed builds since the last good one (pgrid_ready) */
    double pgorg[3], pginv[3]; int pgdim[3]; /* cell of x on axis a: pgrid_cell */
    cl_alloc alloc;
    void *ud;
} cl_world;

/// Initialises an empty world (margin >= 0: fattening of tree boxes). Allocates nothing.
CL_API void cl_world_init(cl_world *w, double margin, cl_alloc alloc, void *ud);
/// Frees all memory; the world is empty and reusable.
CL_API void cl_world_free(cl_world *w);
/// Ensures the next add cannot fail, and that the next update cannot either; CL_OK or CL_ENOMEM.
CL_API int cl_world_reserve(cl_world *w);
/// The id the next cl_world_add will return.
CL_API int cl_world_nextid(const cl_world *w);
/// Adds an item with a copy of shape; returns its id (>= 0) or CL_ENOMEM (world unchanged).
CL_API int cl_world_add(cl_world *w, const cl_shape *s);
/// Removes a live item.
CL_API void cl_world_remove(cl_world *w, int id);
/// Replaces a live item's shape (keeps its add order). Never fails when the item's shape and s
/// are both AABBs or both not AABBs, nor after cl_world_reserve; otherwise may return CL_ENOMEM
/// (world unchanged). Returns CL_OK or CL_ENOMEM.
CL_API int cl_world_update(cl_world *w, int id, const cl_shape *s);
/// Moves live item id's shape by d (cl_shape_translate) and updates it as cl_world_update
/// does (same result as translating a copy and passing it to cl_world_update, without the
/// copies). Returns 0, or 1, 2, 3 when the moved shape's x, y or z coordinates (the first such
/// axis) are not finite, leaving the world unchanged. Never fails otherwise.
CL_API int cl_world_translate(cl_world *w, int id, cl_vec3 d);
/// The item's shape (live id): a pointer into the world (valid until the item changes) or, for an
/// AABB item, to *tmp filled with it.
CL_API const cl_shape *cl_world_shape(const cl_world *w, int id, cl_shape *tmp);
/// The kind of the item's shape (live id).
CL_API cl_kind cl_world_kind(const cl_world *w, int id);

/// Items overlapping s (exact, inclusive) into w->res[0..n-1], add order; n or CL_ENOMEM.
CL_API int cl_world_query(cl_world *w, const cl_shape *s);
/// Items containing p (inclusive) into w->res, add order; n or CL_ENOMEM.
CL_API int cl_world_querypoint(cl_world *w, cl_vec3 p);
/// Items not wholly behind any of the np (1..32) planes planes[4k..4k+3] = nx, ny, nz, d (each side
/// exactly cl_shape_plane's) into w->res, add order: frustum culling through the tree, each node
/// carrying the mask of planes it is not yet known to be in front of; n or CL_ENOMEM.
CL_API int cl_world_queryplanes(cl_world *w, const double *planes, int np);
/// Closest hit with t <= maxt and (t, order) after (aftert, afterseq) (pass -1, -1 for none);
/// 1 and *out on a hit, 0 on none, CL_ENOMEM.
CL_API int cl_world_raycast(cl_world *w, const cl_ray *r, double maxt, double aftert,
                            double afterseq, cl_whit *out);
/// Every hit with t <= maxt into w->hits, by t then order; n or CL_ENOMEM.
CL_API int cl_world_raycastall(cl_world *w, const cl_ray *r, double maxt);
/// Every overlapping pair into w->res as a flat list a0, b0, a1, b1 ... (a added before b),
/// sorted by (order a, order b); the number of pairs or CL_ENOMEM.
CL_API int cl_world_pairs(cl_world *w);
/// First item hit by s moved by d (skipping item skip, -1 for none), with (t, order) after
/// (aftert, afterseq); 1 and *out, 0, or CL_ENOMEM. Items already overlapping s hit at t = 0, n = 0.
CL_API int cl_world_sweep(cl_world *w, const cl_shape *s, cl_vec3 d, int skip, double aftert,
                          double afterseq, cl_whit *out);
/// Every item (but skip) whose shape s moved by d meets, as cl_world_sweep would report it, into
/// w->hits by t then add order; the count or CL_ENOMEM.
CL_API int cl_world_sweepall(cl_world *w, const cl_shape *s, cl_vec3 d, int skip);
/// Moves item id by up to d with the responses respond(ctx, id, other) chooses (NULL: slide);
/// *actual gets the displacement made and the collisions go to w->cols[0..n-1]. Commits the new
/// shape only if commit; either way w->mend gets it. Returns n or CL_ENOMEM (world unchanged).
CL_API int cl_world_move(cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx,
                         int commit, cl_vec3 *actual);
/// Whether a move's caller wants the end of its last leg, which starts at cur, goes along rem and
/// stops at t: blocked (n its contact normal) or not (n NULL). 0: not wanted.
typedef int (*cl_needend)(void *ctx, const cl_shape *cur, cl_vec3 rem, double t, const cl_vec3 *n);
/// cl_world_move(w, id, d, respond, ctx, 0, actual), the same collisions, except that when the
/// last leg ends at a touch or unblocked and need(nctx, ...) answers 0 there, its end is not
/// computed (cheaper: no end checks): w->mend and *actual are then those of the leg's start.
int cl_world_move_ends(cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx,
                       cl_needend need, void *nctx, cl_vec3 *actual);

/// Pushes live item id out of every item whose interior its shape overlaps and that keep(ctx,
/// id, other) does not answer CL_RESP_IGNORE for (NULL: all; asked once per item met): minimum
/// translations (cl_penetration), the deepest first (ties by add order), one per round, up to 16
/// rounds, ending at the position visited with the smallest total depth (the earliest on ties).
/// *end gets that shape and *disp its displacement; commits nothing. Returns the number of items
/// overlapped at the start and not at the end, or CL_ENOMEM. keep may not return (longjmp).
CL_API int cl_world_resolve(cl_world *w, int id, cl_respond keep, void *ctx, cl_shape *end,
                            cl_vec3 *disp);

/// Exact sweep of shape a moved by d against static shape b (open interiors, flat-axis rule);
/// .rank tells face, edge and corner contacts apart (the seams rule of cl_world_move).
CL_API cl_sweep cl_sweep_shapes(const cl_shape *a, cl_vec3 d, const cl_shape *b);

/// 1 if the interiors of a and b intersect (same rules as the sweep at t = 0).
CL_API int cl_interiors_overlap(const cl_shape *a, const cl_shape *b);

#endif
