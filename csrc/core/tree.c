/* collide core: dynamic AABB tree. See tree.h for the design. */
#include "tree.h"

/* Union of two boxes. */
static cl_aabb box_union(const cl_aabb *a, const cl_aabb *b) {
    cl_aabb r;
    r.min.x = a->min.x < b->min.x ? a->min.x : b->min.x;
    r.min.y = a->min.y < b->min.y ? a->min.y : b->min.y;
    r.min.z = a->min.z < b->min.z ? a->min.z : b->min.z;
    r.max.x = a->max.x > b->max.x ? a->max.x : b->max.x;
    r.max.y = a->max.y > b->max.y ? a->max.y : b->max.y;
    r.max.z = a->max.z > b->max.z ? a->max.z : b->max.z;
    return r;
}

/* Half the surface area of the box plus its half perimeter (so flat and degenerate boxes still
 * compare by size): the insertion cost measure. */
static double box_cost(const cl_aabb *b) {
    double dx = b->max.x - b->min.x, dy = b->max.y - b->min.y, dz = b->max.z - b->min.z;
    return dx * dy + dy * dz + dz * dx + 1e-9 * (dx + dy + dz);
}

/* 1 if a encloses b. */
static int box_encloses(const cl_aabb *a, const cl_aabb *b) {
    return a->min.x <= b->min.x && a->min.y <= b->min.y && a->min.z <= b->min.z &&
           a->max.x >= b->max.x && a->max.y >= b->max.y && a->max.z >= b->max.z;
}

void cl_tree_init(cl_tree *t, cl_alloc alloc, void *ud) {
    t->nodes = NULL;
    t->cap = 0;
    t->nfree = 0;
    t->freelist = CL_NULLNODE;
    t->root = CL_NULLNODE;
    t->leaves = 0;
    t->alloc = alloc;
    t->ud = ud;
}

void cl_tree_free(cl_tree *t) {
    if (t->nodes) t->alloc(t->ud, t->nodes, (size_t)t->cap * sizeof(cl_tnode), 0);
    cl_tree_init(t, t->alloc, t->ud);
}

/* Grows the pool so that at least need nodes are free; CL_OK or CL_ENOMEM (pool unchanged). */
static int tree_grow(cl_tree *t, int need) {
    int ncap, i;
    cl_tnode *p;
    if (t->nfree >= need) return CL_OK;
    ncap = t->cap ? t->cap : 16;
    while (ncap - t->cap + t->nfree < need) {
        if (ncap > (1 << 29)) return CL_ENOMEM;
        ncap *= 2;
    }
    p = (cl_tnode *)t->alloc(t->ud, t->nodes, (size_t)t->cap * sizeof(cl_tnode),
                             (size_t)ncap * sizeof(cl_tnode));
    if (!p) return CL_ENOMEM;
    /* link the new nodes in front of the free list, lowest index first */
    for (i = ncap - 1; i >= t->cap; i--) {
        p[i].height = -1;
        p[i].parent = t->freelist;
        p[i].child1 = p[i].child2 = CL_NULLNODE;
        p[i].data = -1;
        t->freelist = i;
    }
    t->nfree += ncap - t->cap;
    t->nodes = p;
    t->cap = ncap;
    return CL_OK;
}

int cl_tree_reserve(cl_tree *t, int nleaves) {
    return tree_grow(t, 2 * nleaves);
}

/* Takes a node off the free list (the caller made sure one is there). */
static int node_alloc(cl_tree *t) {
    int i = t->freelist;
    cl_tnode *n = &t->nodes[i];
    t->freelist = n->parent;
    t->nfree--;
    n->parent = n->child1 = n->child2 = CL_NULLNODE;
    n->height = 0;
    n->data = -1;
    return i;
}

/* Returns node i to the free list. */
static void node_release(cl_tree *t, int i) {
    cl_tnode *n = &t->nodes[i];
    n->height = -1;
    n->child1 = n->child2 = CL_NULLNODE;
    n->parent = t->freelist;
    t->freelist = i;
    t->nfree++;
}

/* Recomputes box and height of internal node i from its children. */
static void node_refit(cl_tree *t, int i) {
    cl_tnode *n = &t->nodes[i];
    const cl_tnode *a = &t->nodes[n->child1], *b = &t->nodes[n->child2];
    n->box = box_union(&a->box, &b->box);
    n->height = 1 + (a->height > b->height ? a->height : b->height);
}

/* Makes node c take a's place under a's parent (or as the root). */
static void replace_child(cl_tree *t, int a, int c) {
    int p = t->nodes[a].parent;
    t->nodes[c].parent = p;
    if (p == CL_NULLNODE) t->root = c;
    else if (t->nodes[p].child1 == a) t->nodes[p].child1 = c;
    else t->nodes[p].child2 = c;
}

/* If the subtree at a is unbalanced by more than one level, rotates its taller child up (AVL
 * style, choosing the taller grandchild to stay below); returns the subtree's new root. */
static int balance(cl_tree *t, int a) {
    cl_tnode *A = &t->nodes[a];
    int b, c, diff;
    if (A->child1 == CL_NULLNODE || A->height < 2) return a;
    b = A->child1;
    c = A->child2;
    diff = t->nodes[c].height - t->nodes[b].height;
    if (diff > 1 || diff < -1) {
        /* up: the taller child; keep: the other child of a */
        int up = diff > 1 ? c : b;
        cl_tnode *U = &t->nodes[up];
        int f = U->child1, g = U->child2, tall, shortc;
        if (t->nodes[f].height > t->nodes[g].height) { tall = f; shortc = g; }
        else { tall = g; shortc = f; }
        /* up replaces a; a becomes up's child together with the taller grandchild */
        replace_child(t, a, up);
        U->child1 = a;
        U->child2 = tall;
        A->parent = up;
        t->nodes[tall].parent = up;
        /* a keeps its other child and takes the shorter grandchild */
        if (up == c) A->child2 = shortc; else A->child1 = shortc;
        t->nodes[shortc].parent = a;
        node_refit(t, a);
        node_refit(t, up);
        return up;
    }
    return a;
}

/* Replaces child x of p by y (both given as node indices). */
static void set_child(cl_tree *t, int p, int x, int y) {
    if (t->nodes[p].child1 == x) t->nodes[p].child1 = y; else t->nodes[p].child2 = y;
    t->nodes[y].parent = p;
}

/* Surface-area rotation (as Box2D v3 does): swaps a child of a with a grandchild under its
 * sibling when that shrinks the sibling's box the most, keeping the height balance within
 * CL_TREE_SLACK. */
#define CL_TREE_SLACK 1
static void rotate_sah(cl_tree *t, int a) {
    int side, best_x = -1, best_y = -1, best_p = -1;
    double best_gain = 0;
    for (side = 0; side < 2; side++) {
        int x = side ? t->nodes[a].child2 : t->nodes[a].child1;    /* child moved down */
        int p = side ? t->nodes[a].child1 : t->nodes[a].child2;    /* sibling, gets x */
        int k;
        if (t->nodes[p].child1 == CL_NULLNODE) continue;
        for (k = 0; k < 2; k++) {
            int y = k ? t->nodes[p].child2 : t->nodes[p].child1;  /* grandchild moved up */
            int z = k ? t->nodes[p].child1 : t->nodes[p].child2;  /* stays under p */
            cl_aabb u = box_union(&t->nodes[x].box, &t->nodes[z].box);
            double gain = box_cost(&t->nodes[p].box) - box_cost(&u);
            int hp = 1 + (t->nodes[x].height > t->nodes[z].height ? t->nodes[x].height : t->nodes[z].height);
            int d1 = t->nodes[x].height - t->nodes[z].height, d2 = hp - t->nodes[y].height;
            if (d1 > CL_TREE_SLACK || d1 < -CL_TREE_SLACK || d2 > CL_TREE_SLACK || d2 < -CL_TREE_SLACK)
                continue;
            if (gain > best_gain) { best_gain = gain; best_x = x; best_y = y; best_p = p; }
        }
    }
    if (best_x < 0) return;
    set_child(t, a, best_x, best_y);
    set_child(t, best_p, best_y, best_x);
    node_refit(t, best_p);
}

/* Walks from node i to the root, balancing, rotating and refitting every ancestor. */
static void walk_up(cl_tree *t, int i) {
    while (i != CL_NULLNODE) {
        i = balance(t, i);
        node_refit(t, i);
        if (t->nodes[i].height >= 2) {
            rotate_sah(t, i);
            node_refit(t, i);
        }
        i = t->nodes[i].parent;
    }
}

/* Links an allocated leaf into the tree next to the best sibling found by the surface-area
 * heuristic (greedy descent with the inherited enlargement cost). Needs one free node. */
static void insert_leaf(cl_tree *t, int leaf) {
    const cl_aabb *lb = &t->nodes[leaf].box;
    int i, sibling, parent, np;
    if (t->root == CL_NULLNODE) {
        t->root = leaf;
        t->nodes[leaf].parent = CL_NULLNODE;
        return;
    }
    i = t->root;
    while (t->nodes[i].child1 != CL_NULLNODE) {
        const cl_tnode *n = &t->nodes[i];
        int c1 = n->child1, c2 = n->child2;
        cl_aabb u = box_union(&n->box, lb), u1, u2;
        double area = box_cost(&n->box), ucost = box_cost(&u);
        double here = 2.0 * ucost;            /* new parent of i and leaf */
        double inherit = 2.0 * (ucost - area);
        double cost1, cost2;
        u1 = box_union(&t->nodes[c1].box, lb);
        u2 = box_union(&t->nodes[c2].box, lb);
        cost1 = box_cost(&u1) + inherit;
        if (t->nodes[c1].child1 != CL_NULLNODE) cost1 -= box_cost(&t->nodes[c1].box);
        cost2 = box_cost(&u2) + inherit;
        if (t->nodes[c2].child1 != CL_NULLNODE) cost2 -= box_cost(&t->nodes[c2].box);
        if (here < cost1 && here < cost2) break;
        if (cost1 < cost2) i = c1;
        else if (cost2 < cost1) i = c2;
        else i = t->nodes[c1].height <= t->nodes[c2].height ? c1 : c2; /* ties: the shorter side */
    }
    sibling = i;
    parent = t->nodes[sibling].parent;
    np = node_alloc(t);
    t->nodes[np].parent = parent;
    t->nodes[np].child1 = sibling;
    t->nodes[np].child2 = leaf;
    if (parent == CL_NULLNODE) t->root = np;
    else if (t->nodes[parent].child1 == sibling) t->nodes[parent].child1 = np;
    else t->nodes[parent].child2 = np;
    t->nodes[sibling].parent = np;
    t->nodes[leaf].parent = np;
    walk_up(t, np);
}

/* Unlinks a leaf (the leaf node stays allocated); frees its former parent. */
static void unlink_leaf(cl_tree *t, int leaf) {
    int parent = t->nodes[leaf].parent, grand, sibling;
    if (parent == CL_NULLNODE) {
        t->root = CL_NULLNODE;
        return;
    }
    grand = t->nodes[parent].parent;
    sibling = t->nodes[parent].child1 == leaf ? t->nodes[parent].child2 : t->nodes[parent].child1;
    replace_child(t, parent, sibling);
    node_release(t, parent);
    t->nodes[leaf].parent = CL_NULLNODE;
    walk_up(t, grand);
}

int cl_tree_insert(cl_tree *t, const cl_aabb *box, int data) {
    int leaf;
    if (tree_grow(t, 2) != CL_OK) return CL_NULLNODE;
    leaf = node_alloc(t);
    t->nodes[leaf].box = *box;
    t->nodes[leaf].data = data;
    insert_leaf(t, leaf);
    t->leaves++;
    return leaf;
}

void cl_tree_remove(cl_tree *t, int leaf) {
    unlink_leaf(t, leaf);
    node_release(t, leaf);
    t->leaves--;
}

int cl_tree_move(cl_tree *t, int leaf, const cl_aabb *box) {
    unlink_leaf(t, leaf);   /* frees one node, which insert_leaf takes back */
    t->nodes[leaf].box = *box;
    insert_leaf(t, leaf);
    return leaf;
}

int cl_tree_height(const cl_tree *t) {
    return t->root == CL_NULLNODE ? -1 : t->nodes[t->root].height;
}

int cl_tree_validate(const cl_tree *t) {
    int i, leaves = 0, used = 0, nfree = 0;
    for (i = 0; i < t->cap; i++) {
        const cl_tnode *n = &t->nodes[i];
        if (n->height < 0) { nfree++; continue; }
        used++;
        if (n->parent == CL_NULLNODE) {
            if (t->root != i) return 0;
        } else {
            const cl_tnode *p = &t->nodes[n->parent];
            if (p->child1 != i && p->child2 != i) return 0;
        }
        if (n->child1 == CL_NULLNODE) {
            if (n->child2 != CL_NULLNODE || n->height != 0) return 0;
            leaves++;
        } else {
            const cl_tnode *a = &t->nodes[n->child1], *b = &t->nodes[n->child2];
            int h = 1 + (a->height > b->height ? a->height : b->height);
            int d = a->height - b->height;
            if (a->parent != i || b->parent != i || n->height != h) return 0;
            if (d > 2 || d < -2) return 0;
            if (!box_encloses(&n->box, &a->box) || !box_encloses(&n->box, &b->box)) return 0;
        }
    }
    for (i = t->freelist; i != CL_NULLNODE; i = t->nodes[i].parent) nfree--;
    return nfree == 0 && leaves == t->leaves && used == t->cap - t->nfree &&
           (t->leaves == 0 ? t->root == CL_NULLNODE : used == 2 * t->leaves - 1);
}

void cl_stack_init(cl_stack *s) {
    s->p = s->local;
    s->n = 0;
    s->cap = CL_STACK_LOCAL;
}

int cl_stack_push(cl_tree *t, cl_stack *s, int v) {
    if (s->n == s->cap) {
        int ncap = s->cap * 2, i;
        int *np;
        if (s->p == s->local) {
            np = (int *)t->alloc(t->ud, NULL, 0, (size_t)ncap * sizeof(int));
            if (!np) return 0;
            for (i = 0; i < s->n; i++) np[i] = s->local[i];
        } else {
            np = (int *)t->alloc(t->ud, s->p, (size_t)s->cap * sizeof(int), (size_t)ncap * sizeof(int));
            if (!np) return 0;
        }
        s->p = np;
        s->cap = ncap;
    }
    s->p[s->n++] = v;
    return 1;
}

void cl_stack_free(cl_tree *t, cl_stack *s) {
    if (s->p != s->local) t->alloc(t->ud, s->p, (size_t)s->cap * sizeof(int), 0);
    cl_stack_init(s);
}
