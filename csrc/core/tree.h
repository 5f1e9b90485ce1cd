/* collide core: dynamic AABB tree (broadphase). Binary tree of fattened leaf boxes, nodes in
 * one index-addressed pool that grows by doubling through a caller-given allocator, free nodes
 * on a free list, insertion by the surface-area heuristic followed by height-balancing
 * rotations on the way up (so sorted or coincident inserts keep the height logarithmic).
 * Traversals use an explicit stack that grows and never drops nodes. Never raises; every
 * function that may allocate returns CL_ENOMEM and leaves the tree unchanged on failure. */
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

/// One tree node. Leaves have child1 == CL_NULLNODE and carry data; free nodes have height -1
/// and use parent as the free-list link.
typedef struct cl_tnode {
    cl_aabb box;        /* leaf: fattened box; internal: union of the children */
    int parent;
    int child1, child2;
    int height;         /* leaf 0, internal 1 + max(children), free -1 */
    int data;           /* leaf payload (the World's item index) */
} cl_tnode;

/// The tree. Zero-initialise with cl_tree_init; free with cl_tree_free.
typedef struct cl_tree {
    cl_tnode *nodes;
    int cap;            /* nodes allocated */
    int nfree;          /* nodes on the free list */
    int freelist;
    int root;
    int leaves;
    cl_alloc alloc;
    void *ud;
} cl_tree;

/// Traversal stack: a local array first, then heap blocks from the tree's allocator.
#define CL_STACK_LOCAL 64
typedef struct cl_stack {
    int *p;
    int n, cap;
    int local[CL_STACK_LOCAL];
} cl_stack;

/// Initialises an empty tree that will allocate through alloc(ud, ...). Allocates nothing.
CL_API void cl_tree_init(cl_tree *t, cl_alloc alloc, void *ud);
/// Frees every node; the tree is empty and reusable afterwards.
CL_API void cl_tree_free(cl_tree *t);
/// Ensures room for nleaves more inserts without allocating; CL_OK or CL_ENOMEM (tree unchanged).
CL_API int cl_tree_reserve(cl_tree *t, int nleaves);
/// Inserts a leaf with the given (already fattened) box and payload; returns its node index, or
/// CL_NULLNODE when memory runs out (tree unchanged). Never allocates after cl_tree_reserve.
CL_API int cl_tree_insert(cl_tree *t, const cl_aabb *box, int data);
/// Removes the leaf; never allocates or fails.
CL_API void cl_tree_remove(cl_tree *t, int leaf);
/// Gives the leaf a new box (remove then reinsert, reusing the same two nodes); returns the
/// leaf's new node index. Never allocates or fails.
CL_API int cl_tree_move(cl_tree *t, int leaf, const cl_aabb *box);
/// Height of the tree (0 for one leaf, -1 when empty).
CL_API int cl_tree_height(const cl_tree *t);
/// 1 if every structural invariant holds (parents, heights, children heights within 2, boxes
/// enclose children, counts).
CL_API int cl_tree_validate(const cl_tree *t);

/// Starts an empty traversal stack.
CL_API void cl_stack_init(cl_stack *s);
/// Pushes v; returns 0 when growing the stack failed (stack unchanged).
CL_API int cl_stack_push(cl_tree *t, cl_stack *s, int v);
/// Releases the stack's heap block, if any.
CL_API void cl_stack_free(cl_tree *t, cl_stack *s);

#endif
