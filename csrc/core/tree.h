/* collide core: dynamic AABB tree (broadphase). Binary tree of fattened leaf boxes stored as
 * floats rounded outward (so every float box encloses the double box it stands for and the
 * broadphase stays conservative; the exact double narrowphase decides). Nodes live in one
 * index-addressed pool (32-byte hot records: box and children; parent and height kept apart,
 * 5 bytes: 37 bytes a node)
 * that grows by doubling through a caller-given allocator; free nodes sit on a free list.
 * Insertion follows Box2D v3: a branch-and-bound search for the sibling of least surface-area
 * cost, then on the way up rotations that shrink surface area. Heights are not strictly
 * balanced: a rotation restores balance only when a node's children differ in height by more
 * than CL_TREE_SLACK, which keeps the height logarithmic (sorted or coincident inserts) while
 * leaving surface-area grouping alone almost always. Small moves may instead enlarge a leaf in
 * place (ancestors only grow; cl_tree_refit shrinks them back), and cl_tree_rebuild rebuilds
 * the whole tree by surface-area splits and in depth-first memory order after bulk changes. Traversals use
 * an explicit stack that grows and never drops nodes. Never raises; every function that may
 * allocate returns CL_ENOMEM and leaves the tree unchanged on failure. */
#ifndef CL_TREE_H
#define CL_TREE_H

#include "cl.h"

/// Allocator with lua_Alloc's contract: nsize == 0 frees ptr and returns NULL; otherwise returns
/// a block of nsize bytes keeping the first min(osize, nsize) bytes of ptr, or NULL (ptr untouched).
typedef void *(*cl_alloc)(void *ud, void *ptr, size_t osize, size_t nsize);

/// Result codes of the functions that may allocate.
#define CL_OK 0
#define CL_ENOMEM (-1)

/// "No node" index.
#define CL_NULLNODE (-1)
/// Free-list link standing for the untouched nodes lazy..cap-1 of a pool (cl_tree).
#define CL_TREE_LAZY 0x7fffffff

/// Largest allowed height difference between the two children of a node.
#define CL_TREE_SLACK 4

/// Float box, rounded outward from the double box it encloses.
typedef struct cl_fbox {
    float lo[3], hi[3];
} cl_fbox;

/// Hot part of a node (32 bytes). Leaves have child1 == CL_NULLNODE and child2 = payload (the
/// World's item index).
typedef struct cl_tnode {
    cl_fbox box;        /* leaf: fattened box; internal: union of the children */
    int child1, child2;
} cl_tnode;

/// Cold part of a node: its parent. Free nodes use parent as the free-list link. The node's
/// height (leaf 0, internal 1 + max(children), free -1) is a signed char in cl_tree.hgt: heights
/// stay below 80 (siblings differ by at most CL_TREE_SLACK, so a subtree of height h holds at
/// least about 1.32^h leaves, and a pool holds at most 2^29 nodes), and a byte instead of an int
/// saves 3 bytes a node (6.3 bytes per item of a World).
typedef struct cl_tmeta {
    int parent;
} cl_tmeta;

/// Bytes of pool per node: the node, its meta and its height.
#define CL_TREE_NODE_BYTES (sizeof(cl_tnode) + sizeof(cl_tmeta) + sizeof(signed char))

/// An incremental rebuild's blocks (leaf records, second pool) up to this many bytes are kept
/// after its install for the next one (a small tree's rebuilds then write no fresh memory: on
/// hosts where a fresh page costs a fault, ~10 us here, those faults were the slowest frames);
/// larger ones are freed (a big World keeps no second pool).
#define CL_TREE_KEEP_BYTES (4u << 20)

/// The tree. Zero-initialise with cl_tree_init; free with cl_tree_free.
typedef struct cl_tree {
    cl_tnode *nodes;    /* one block: cap nodes, then cap metas, then cap heights */
    cl_tmeta *meta;
    signed char *hgt;
    int cap;            /* nodes allocated */
    int nfree;          /* nodes on the free list */
    int freelist;       /* first free node, or CL_TREE_LAZY: take node lazy next */
    int lazy;           /* nodes lazy..cap-1 are free and never set up (their heights are -1, the
                         * rest is never read; cl_tree_insert_lazy touches some ahead of a bulk
                         * build): they follow CL_TREE_LAZY in the free list, in index order, then
                         * lazynext */
    int lazynext;
    int ahead;          /* cl_tree_insert_lazy's next node to touch ahead (from lazy on) */
    int root;
    int leaves;         /* every leaf, pending ones included */
    int *pend;          /* pending leaves (cl_tree_insert_lazy): allocated, not yet linked */
    int npend, pendcap;
    double built_cost;  /* cl_tree_cost right after the last rebuild (0: none yet) */
    struct cl_tbuild *bld;  /* incremental rebuild under way (cl_tree_rebuild_start), or NULL */
    struct cl_tbuild *old;  /* the last install's record and old pool until cl_tree_rebuild_release */
    struct cl_tbuild *keep; /* a released record whose blocks (at most CL_TREE_KEEP_BYTES) the next
                             * rebuild start reuses, or NULL */
    long bldno;         /* incremental rebuilds started so far */
    cl_alloc alloc;
    void *ud;
} cl_tree;

/// Traversal stack entry: a node and a number attached to it (a ray's entry distance).
typedef struct cl_sentry {
    int node;
    double t;
} cl_sentry;

/// Traversal stack: a local array first, then heap blocks from the tree's allocator.
#define CL_STACK_LOCAL 64
typedef struct cl_stack {
    cl_sentry *p;
    int n, cap;
    cl_sentry local[CL_STACK_LOCAL];
} cl_stack;

/// Returns the float box enclosing the double box b (every bound rounded outward).
CL_API cl_fbox cl_fbox_from(const cl_aabb *b);
/// Returns the double box equal to the float box f.
CL_API cl_aabb cl_fbox_to(const cl_fbox *f);

/// Initialises an empty tree that will allocate through alloc(ud, ...). Allocates nothing.
CL_API void cl_tree_init(cl_tree *t, cl_alloc alloc, void *ud);
/// Frees every node; the tree is empty and reusable afterwards.
CL_API void cl_tree_free(cl_tree *t);
/// Ensures room for nleaves more inserts (lazy or not) and the linking of every pending leaf
/// without allocating; CL_OK or CL_ENOMEM (tree unchanged).
CL_API int cl_tree_reserve(cl_tree *t, int nleaves);
/// Inserts a leaf with the given (already fattened) box and payload; returns its node index, or
/// CL_NULLNODE when memory runs out (tree unchanged). Never allocates after cl_tree_reserve.
CL_API int cl_tree_insert(cl_tree *t, const cl_aabb *box, int data);
/// Allocates a leaf with the given box and payload without linking it into the tree (it is
/// pending: no traversal from the root finds it until cl_tree_link_pending or cl_tree_rebuild);
/// returns its node index, or CL_NULLNODE when memory runs out (tree unchanged). Never allocates
/// after cl_tree_reserve. cl_tree_remove takes a pending leaf too; other calls need it linked.
CL_API int cl_tree_insert_lazy(cl_tree *t, const cl_aabb *box, int data);
/// Links every pending leaf into the tree one by one (as cl_tree_insert, keeping their node
/// indices), oldest first. Never allocates or fails.
CL_API void cl_tree_link_pending(cl_tree *t);
/// Removes the leaf (linked or pending); never allocates or fails.
CL_API void cl_tree_remove(cl_tree *t, int leaf);
/// Gives the leaf a new box (remove then reinsert, reusing the same two nodes); returns the
/// leaf's node index (unchanged). Never allocates or fails.
CL_API int cl_tree_move(cl_tree *t, int leaf, const cl_aabb *box);
/// Gives the leaf a new box without restructuring: ancestors grow until one already encloses
/// it (cheap; boxes only grow, see cl_tree_refit); returns the leaf. Never allocates or fails.
CL_API int cl_tree_enlarge(cl_tree *t, int leaf, const cl_aabb *box);
/// cl_tree_enlarge with the leaf's float box already made (cl_fbox_from of the box).
CL_API int cl_tree_enlarge_fbox(cl_tree *t, int leaf, const cl_fbox *b);
/// Recomputes every internal box as the union of its children (undoes the growth left by
/// cl_tree_enlarge); O(nodes), no allocation. Leaf boxes may have been written in place
/// (nodes[leaf].box) before it: a rebuild under way then takes every leaf's box again.
CL_API void cl_tree_refit(cl_tree *t);
/// Rebuilds the tree top-down by binned surface-area splits (16 centre bins per axis, chosen from
/// at most about 64 evenly strided leaves of the range; ranges of at most 128 leaves bin their
/// widest axis only; ranges of 16 leaves or fewer, or without a usable bin split, split at the
/// median of the widest centre axis: in ranges of at most 16 leaves ties and centres within 16
/// ulps go by the leaves' order in the range), restricted so that the height stays within
/// ceil(log2(leaves)) + 2 and siblings differ by at most CL_TREE_SLACK, written over its own pool
/// in depth-first order (a node's first child follows it), so traversals walk memory forward.
/// Deterministic. Leaves keep their boxes and payloads but get new node indices (the caller
/// re-reads them from the leaves); pending leaves are built in too. Allocates nothing (its leaf
/// records, 32 bytes each, are partitioned in place in nodes of its own pool, which always has
/// room for 2 * leaves - 1 nodes) and returns CL_OK.
CL_API int cl_tree_rebuild(cl_tree *t);
/// Starts an incremental rebuild: the same build as cl_tree_rebuild (same splits), run a slice
/// at a time by cl_tree_rebuild_step into a second pool while the tree keeps serving, from the
/// leaves' boxes of now; leaves may change boxes meanwhile (cl_tree_enlarge, cl_tree_move: the new tree takes their boxes when it is installed), and any other change of
/// structure (insert, remove, link, rebuild, growth) cancels it. Needs no pending leaf and at
/// least two leaves (else does nothing); a rebuild already under way is kept. CL_OK, or
/// CL_ENOMEM (nothing started; 32 bytes per leaf or 4 bytes per pool node + 32 per leaf, whichever
/// is more, and a pool of the tree's size).
CL_API int cl_tree_rebuild_start(cl_tree *t);
/// Allocates now the blocks the next incremental rebuild of t will take (kept in t->keep) and
/// writes them once, when they total at most CL_TREE_KEEP_BYTES (else, or without memory, does
/// nothing): a World calls it after a whole rebuild (bulk adds linked at a level's load), so that
/// the first incremental rebuild's calls, spread over later frames, fault no fresh page.
CL_API void cl_tree_rebuild_prepare(cl_tree *t);
/// Runs the rebuild under way for about work units (a unit: one leaf partitioned once; a whole
/// build is about leaves * (log2(leaves) + 2)); after the call that finished the build, four
/// calls finish the new tree's structure (payloads and free list, half the new nodes a call;
/// heights, in two halves), the next six fit its boxes to the leaves' boxes of then (the leaves'
/// boxes copied in two calls, by halves of the old pool's used range; the internal boxes fitted
/// bottom up in four parts), and the next installs it (so no call pays for more than part of
/// one of these passes): the leaves get new node indices (the caller re-reads them) and their present boxes (those changed
/// since the fit are copied again and their ancestors grown). Returns 1 if it installed the new
/// tree, else 0. Never allocates or fails. The old pool and the build's buffers are freed by
/// cl_tree_rebuild_release (or the next start, cl_tree_free), not by the install.
CL_API int cl_tree_rebuild_step(cl_tree *t, long work);
/// 1 when the next cl_tree_rebuild_step call installs the rebuild under way (its build and fit
/// done), else 0.
CL_API int cl_tree_rebuild_installs(const cl_tree *t);
/// Returns the rebuild's new tree (its pool's nodes; *root, *cap, and *used: nodes used..cap-1
/// are free and unwritten, see cl_tree's lazy) between the end of its
/// structure and the first call that fits it to the leaves' boxes of then (six calls before
/// its install), else
/// NULL. Its structure, node indices and payloads are those the install will take; its boxes
/// are those of the build's start (the fit and the install change them, not the structure).
CL_API const cl_tnode *cl_tree_rebuild_fitted(const cl_tree *t, int *root, int *cap, int *used);
/// Once the rebuild's new tree is fitted (cl_tree_rebuild_step's next call installs it): gives
/// its leaves changed since the fit their present boxes (their ancestors grown as
/// cl_tree_enlarge does) and returns it (its pool's nodes), else NULL (also when the install is
/// to fit every box again). Its boxes are then those the install takes, except those of the
/// leaves cl_tree_rebuild_replayed lists after it.
CL_API const cl_tnode *cl_tree_rebuild_ready(cl_tree *t);
/// The number of leaf box changes the rebuild under way logged since its fit's last part or
/// the last cl_tree_rebuild_ready (those the next of them, or the install, copies into the new
/// tree), -1 when it is to fit every box again (the log ran over, or a cl_tree_refit of the old
/// tree made it stale) or no rebuild is fitted.
CL_API int cl_tree_rebuild_logged(const cl_tree *t);
/// After an install and until cl_tree_rebuild_release: the number of new leaves (*leaves: their
/// node indices, repeats possible) the install gave a box changed since the fit (their ancestors
/// grown as cl_tree_enlarge does), or -1 if it fitted every box again (or nothing is kept).
CL_API int cl_tree_rebuild_replayed(const cl_tree *t, const int **leaves);
/// The map of the rebuild under way from the old tree's leaf node indices to the new tree's (cap
/// entries, read only at the old leaves' indices) once its structure is finished (from the call
/// after its payload passes on; no leaf changes index until its install), else NULL.
CL_API const int *cl_tree_rebuild_leafmap(const cl_tree *t);
/// After an install and until cl_tree_rebuild_release: the map from the old tree's leaf node
/// indices to the new tree's (cap entries, read only at the old leaves' indices), else NULL. A
/// caller that keeps leaf indices by payload re-reads them through it in its own order.
CL_API const int *cl_tree_rebuild_map(const cl_tree *t);
/// Frees what the last install kept (the old pool, the build's buffers), if anything.
CL_API void cl_tree_rebuild_release(cl_tree *t);
/// Cancels the rebuild under way, if any, and frees its memory.
CL_API void cl_tree_rebuild_cancel(cl_tree *t);
/// Height of the tree (0 for one leaf, -1 when empty).
CL_API int cl_tree_height(const cl_tree *t);
/// 1 if every structural invariant holds (parents, heights, children heights within
/// CL_TREE_SLACK, boxes enclose children, counts, free list, pending leaves).
CL_API int cl_tree_validate(const cl_tree *t);
/// Surface-area cost of the tree: sum of internal node areas over the root's area (lower is
/// better for queries); 0 for fewer than two leaves.
CL_API double cl_tree_cost(const cl_tree *t);

/// Starts an empty traversal stack.
CL_API void cl_stack_init(cl_stack *s);
/// Pushes (node, t); returns 0 when growing the stack failed (stack unchanged).
CL_API int cl_stack_push(cl_tree *t, cl_stack *s, int node, double tv);
/// Releases the stack's heap block, if any.
CL_API void cl_stack_free(cl_tree *t, cl_stack *s);

#endif
