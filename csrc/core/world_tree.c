/* collide core, the World's tree upkeep: fat boxes with predictive margins, deferred refits of
 * stale leaves (clw_flush_tree), rebuilds, and the builder of the read-only snapshot of an
 * unchanged tree (4-wide nodes, walked by box queries and closest raycasts). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include "world_internal.h"

/* The longest predictive extension of a fat box on axis a (0-2) of an item with tight box b:
 * PRED_MAX margins, or PRED_REL times the box's extent on that axis if that is more (so a
 * steadily moving item keeps its leaf for about PRED_MUL steps unless it is fast for its size);
 * none when the margin is 0 (tight leaves, as asked). */
static double pred_cap(const cl_world *w, const cl_aabb *b, int a) {
    double ext = a == 0 ? b->max.x - b->min.x : a == 1 ? b->max.y - b->min.y : b->max.z - b->min.z;
    double c = PRED_MAX * w->margin, r = PRED_REL * ext;
    if (w->margin <= 0) return 0;
    if (!(r < 1e30)) r = 1e30;  /* finite fat boxes even for boxes of extent ~1e308 */
    return r > c ? r : c;
}

/* Sets the fat box of item it (a copy of its tree leaf's box; clw_update_to judges its looseness
 * with clw_fat_snug). */
void clw_set_fat(const cl_world *w, cl_item *it, const cl_fbox *fb) {
    (void)w;
    it->fat = *fb;
}

/* Returns the limit k rounded up to a float: the looser limit only delays a refit. Without a
 * branch on the rounding's direction in the usual case (positive, in range): that branch goes
 * either way at random (with it, before world_snug's shortcut, clw_update_to took 15% of the
 * moving-boxes loop's perf samples instead of 10%). */
static float wtree_up(double k) {
    float f;
    uint32_t u;
    if (!(k > 0 && k <= FLT_MAX)) {     /* rare: a negative margin, huge boxes, NaN */
        f = k > FLT_MAX ? HUGE_VALF : (float)k;
        return (double)f < k ? nextafterf(f, HUGE_VALF) : f;
    }
    f = (float)k;
    memcpy(&u, &f, sizeof u);
    u += (double)f < k;                 /* the next float up: its bits plus one */
    memcpy(&f, &u, sizeof f);
    return f;
}

/* 1 when fat box fat (as doubles; it encloses lo..hi, box b widened by its rounding allowance)
 * is not too loose: on each axis neither side has more slack than 3 margins of drift beyond the
 * most a fresh fat box gets (margin + pred_cap for box b), plus room for the outward rounding of
 * fat to floats, as a float rounded up. These limits were once kept in the item (12 bytes, set
 * with its fat box, from its box then); worked out from the present box they are the same for an
 * item that only moves (its extents stay the same), and differ only for one whose size changed
 * since (its limits are now those of its present size). clw_update_to decides the usual case
 * itself (world_snug) and calls this only when a side has more than 4 + PRED_MAX margins. */
int clw_fat_snug(const cl_world *w, const cl_aabb *b, const cl_aabb *fat, cl_vec3 lo, cl_vec3 hi) {
    double m = fabs(fat->min.x), v, l, r = 4 * w->margin, e = 2 * FLT_EPSILON;
    v = fabs(fat->min.y); if (v > m) m = v;
    v = fabs(fat->min.z); if (v > m) m = v;
    v = fabs(fat->max.x); if (v > m) m = v;
    v = fabs(fat->max.y); if (v > m) m = v;
    v = fabs(fat->max.z); if (v > m) m = v;
    l = r + pred_cap(w, b, 0);
    v = wtree_up(l + (m + l) * e + 1e-299);
    if (!((lo.x - fat->min.x <= v) & (fat->max.x - hi.x <= v))) return 0;
    l = r + pred_cap(w, b, 1);
    v = wtree_up(l + (m + l) * e + 1e-299);
    if (!((lo.y - fat->min.y <= v) & (fat->max.y - hi.y <= v))) return 0;
    l = r + pred_cap(w, b, 2);
    v = wtree_up(l + (m + l) * e + 1e-299);
    return (lo.z - fat->min.z <= v) & (fat->max.z - hi.z <= v);
}

/* Returns a factor in [0.5, 1.5) for item id's next predictive extension, a hash of the id
 * and the tree version: items fattened in the same frame (the first step after bulk adds, a
 * group started together) then leave their fat boxes over a spread of frames rather than all
 * in the same one (such a wave of refits and pair queries was the worst frame of a game loop),
 * and keep spreading since each refit draws anew. Deterministic (the version follows the calls). */
static double pred_jitter(const cl_world *w, int id) {
    uint32_t h = (uint32_t)id * 2654435761u ^ (uint32_t)w->tver * 2246822519u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return 0.5 + (double)(h & 0xffff) / 65536.0;
}

/* Returns the fat box of item id: its box widened by the margin, and further along its last
 * displacement by PRED_MUL times it (Box2D v2's predictive aabbMultiplier, but larger) times
 * pred_jitter, at most pred_cap, so an item moving steadily leaves its fat box rarely. */
static cl_aabb fat_box(const cl_world *w, int id) {
    const cl_item *it = &w->items[id];
    cl_aabb f = widen(&it->box, w->margin, item_tol(w, it));
    double cap, e, mul = PRED_MUL * pred_jitter(w, id);
    cap = pred_cap(w, &it->box, 0);
    e = mul * it->vel[0]; e = e > cap ? cap : e < -cap ? -cap : e;
    if (e > 0) f.max.x += e; else f.min.x += e;
    cap = pred_cap(w, &it->box, 1);
    e = mul * it->vel[1]; e = e > cap ? cap : e < -cap ? -cap : e;
    if (e > 0) f.max.y += e; else f.min.y += e;
    cap = pred_cap(w, &it->box, 2);
    e = mul * it->vel[2]; e = e > cap ? cap : e < -cap ? -cap : e;
    if (e > 0) f.max.z += e; else f.min.z += e;
    return f;
}

/* Notes a new tree structure (a rebuild just installed): snapshots out of date, changes
 * counted from zero, its cost kept for later comparisons, the items' leaf indices re-read.
 * handover: an incremental install whose items' new indices nl_step computed (cl_world.nl, for
 * this rebuild, every slot, no lf under way): nl becomes lf, copied into the items a slice per
 * later traversal (clw_leaf_step), so the install's call writes no item.
 * map (an incremental install's old leaf -> new leaf, or NULL): the items are then walked in
 * their own order, each leaf index looked up in map (a block of cap ints, mostly in cache),
 * instead of walking the new pool and writing each leaf's item at random: the same indices,
 * but a stream through the items rather than a cache miss per item (the install frame's largest
 * cost in memory traffic, frame22's cache simulation). Every item with a leaf had it when the
 * rebuild started (an add or a remove cancels a rebuild), so map holds it (a copy of a whole
 * rebuild's indices still under way (cl_world.lf) is finished in the same pass).
 * After a whole rebuild (map NULL) of a tree of more than LEAF_SLICE leaves, in a World whose slots
 * are at most twice its leaves (review rev24: a World that once held a million items and now holds
 * 2,000 scanned 32,768 slots a call for 31 calls after each rebuild), the new indices go
 * into w->lf (a block of acap ints: its random writes stay in cache) and the items get them a
 * slice per traversal (clw_leaf_step); without memory for lf, or in a smaller World, they are
 * written into the items at once. */
/* Keeps block blk (cap ints: an lf whose copy ended, or an nl not handed over) as w->nl's block
 * for the next rebuild's leaf indices when none is kept and it is at most NL_KEEP_BYTES (a small
 * World's rebuilds then allocate no block, as its tree's: cl_tree_rebuild_prepare), else frees
 * it. */
#define NL_KEEP_BYTES (CL_TREE_KEEP_BYTES / 16)
static void nl_keep(cl_world *w, int *blk, int cap) {
    if (blk == NULL || blk == w->nl) return;
    if (w->nl == NULL && (size_t)cap * sizeof(int) <= NL_KEEP_BYTES) {
        w->nl = blk;
        w->nlcap = cap;
        w->nlbld = 0;
        return;
    }
    free_buf(w, blk, cap, sizeof(int));
}

/* A block of at least acap ints for a rebuild's leaf indices (nl or lf): the kept one (w->nl, taken
 * out of it) when large enough, else a fresh one (a kept one too small freed); NULL without
 * memory. Its size goes to *cap. */
static int *nl_take(cl_world *w, int *cap) {
    int *blk = w->nl;
    if (blk == NULL || w->nlcap < w->acap) {
        free_buf(w, blk, w->nlcap, sizeof(int));
        blk = (int *)w->alloc(w->ud, NULL, 0, (size_t)w->acap * sizeof(int));
        w->nlcap = blk != NULL ? w->acap : 0;
    }
    *cap = w->nlcap;
    w->nl = NULL;
    w->nlcap = 0;
    w->nlbld = 0;
    return blk;
}

void clw_nl_drop(cl_world *w) {
    int *nl = w->nl;
    w->nl = NULL;
    w->nlbld = 0;
    nl_keep(w, nl, w->nlcap);
    if (w->nl == NULL) w->nlcap = 0;
}

static void tree_rebuilt(cl_world *w, const int *map, int handover) {
    cl_tree *t = &w->tree;
    int i, *lf;
    w->tchg = 0;
    w->tver++;
    w->refcost = t->built_cost;
    if (handover) {                 /* the new indices computed ahead (w->nl, no lf under way) */
        w->lf = w->nl;
        w->lfcap = w->nlcap;
        w->lfpos = 0;               /* copied into the items from the next call on (this
                                       one runs no other upkeep step) */
        w->nl = NULL;
        w->nlcap = 0;
        w->nlbld = 0;
        return;
    }
    if (map != NULL) {
        clw_nl_drop(w);             /* any indices in nl were for this rebuild (not used) */
        for (i = 0; i < w->cap; i++)
            if (w->items[i].proxy != CL_NULLNODE) w->items[i].proxy = map[clw_leaf(w, i)];
        nl_keep(w, w->lf, w->lfcap);
        w->lf = NULL;
        return;
    }
    lf = w->lf;
    if (lf == NULL && t->leaves > LEAF_SLICE && w->cap <= 2L * t->leaves) {   /* large and dense (a
                                          * sparse World's copy would scan many free slots a call) */
        int cap;
        lf = nl_take(w, &cap);      /* nl's block if large enough (review rev33: it was freed
                                       first, then a block of its size allocated) */
        if (lf != NULL) w->lfcap = cap;
    }
    clw_nl_drop(w);                 /* any indices left in nl were for a cancelled rebuild */
    if (lf == NULL) {
        for (i = 0; i < 2 * t->leaves - 1; i++)
            if (t->nodes[i].child1 == CL_NULLNODE) w->items[t->nodes[i].child2].proxy = i;
        return;
    }
    for (i = 0; i < 2 * t->leaves - 1; i++)
        if (t->nodes[i].child1 == CL_NULLNODE) lf[t->nodes[i].child2] = i;
    w->lf = lf;
    w->lfpos = -1;                  /* the copy starts with the next call, not this one */
}

void clw_leaf_step(cl_world *w) {
    int i, end;
    if (w->lfpos < 0) {
        w->lfpos = 0;
        return;
    }
    end = w->cap - w->lfpos > LEAF_SLICE ? w->lfpos + LEAF_SLICE : w->cap;
    for (i = w->lfpos; i < end; i++)
        if (w->items[i].proxy != CL_NULLNODE) w->items[i].proxy = w->lf[i];
    w->lfpos = end;
    if (end == w->cap) {
        nl_keep(w, w->lf, w->lfcap);
        w->lf = NULL;
    }
}

void clw_leaf_finish(cl_world *w) {
    while (w->lf != NULL) clw_leaf_step(w);
}

/* Rebuilds the tree (cl_tree_rebuild, pending leaves built in) and re-reads the items' leaf
 * indices; should the rebuild fail (it allocates nothing now, but its contract allows
 * CL_ENOMEM), links the pending leaves one by one and refits every internal box instead (the
 * tree stays valid, only slower to search). */
void clw_tree_rebuild(cl_world *w) {
    cl_tree *t = &w->tree;
    if (cl_tree_rebuild(t) != CL_OK) {
        w->tchg = 0;
        w->tver++;
        cl_tree_link_pending(t);
        cl_tree_refit(t);
        return;
    }
    tree_rebuilt(w, NULL, 0);
    cl_tree_rebuild_prepare(t);
}

/* The tree's upkeep once it has changed about twice its size since the last rebuild: starts an
 * incremental rebuild (cl_tree_rebuild_start, run by clw_tree_step a slice per traversal, so no
 * single call pays for a whole rebuild), or rebuilds at once after 8 changes per leaf (when
 * adds and removes keep cancelling the incremental one, or memory ran short for it). */
void clw_tree_upkeep(cl_world *w) {
    if (w->tchg >= 8L * w->tree.leaves || cl_tree_rebuild_start(&w->tree) != CL_OK)
        clw_tree_rebuild(w);
}

static void qsnap_refit(cl_world *w);
static void qsnap_path(cl_world *w, int leaf);
static void wtree_fill(const cl_tnode *nodes, cl_qnode *qn, const int *qslot, int n);
static int qsnap_spare_step(cl_world *w, const cl_tnode *nodes, int root, int cap, int used, long bno);

/* One call's share of the items' new leaf indices for the rebuild bno under way, whose leaf map
 * (old leaf -> new) is map: LEAF_SLICE item slots from nlpos on (or an eighth of them, if more),
 * into w->nl (a block of acap ints like lf: the one kept (nl_keep), or allocated by the first
 * call; without memory, none: nlbld -bno, the install then writes the items itself). Every item
 * with a leaf had it when the rebuild started and keeps its old leaf index until the install
 * (an add or a remove cancels the rebuild; a reinsertion keeps the leaf's node), so the
 * indices computed early stay right. */
static void nl_step(cl_world *w, const int *map, long bno) {
    int i, end, slice;
    if (w->nlbld != bno || w->nlcap < w->cap) {    /* (the slots may grow meanwhile, within acap:
                                                   cl_world_reserve sets up the next one without
                                                   an add; nl holds acap ints, and the item
                                                   block grows only with the tree's pool, which
                                                   cancels: the second test is a guard) */
        int cap;
        w->nl = nl_take(w, &cap);   /* (the one kept, or a fresh block) */
        if (w->nl == NULL) {
            w->nlbld = -bno;
            return;
        }
        w->nlcap = cap;
        w->nlbld = bno;
        w->nlpos = 0;
    }
    slice = w->cap / 8 + 1 > LEAF_SLICE ? w->cap / 8 + 1 : LEAF_SLICE;    /* at most 8 calls */
    end = w->cap - w->nlpos > slice ? w->nlpos + slice : w->cap;
    for (i = w->nlpos; i < end; i++)
        if (w->items[i].proxy != CL_NULLNODE) w->nl[i] = map[w->items[i].proxy];
    w->nlpos = end;
}

/* Runs a slice of the incremental rebuild under way (1 / REBUILD_STEPS of a whole build) and
 * takes the new tree when that installed it. Once the new tree's structure is done, a dense
 * World's calls first compute the items' new leaf indices (nl_step), which the install hands
 * over as lf. While a box-query snapshot is in use, calls between the build and its fit build
 * the new tree's snapshot into the spare buffers (several calls, qsnap_spare_step; if memory
 * runs out the rebuild goes on without); after the fit's last part, the next traversal copies
 * the fitted boxes into it before its leaf changes and installs (clw_tree_install_first), so
 * the install only swaps the snapshot in: the pairs after an install do not pay for a whole
 * snapshot build, and no call pays for more than part of one pass over the tree. When leaves
 * changed between the fit and that traversal (no API call does that), the copy is made here,
 * after the changes (wtree_fill), and the install waits a call; an install here (a refit made
 * the rebuild stale, or the traversal could not install first) copies the paths of the leaves
 * it gave a box changed since the fill (qsnap_path) or every slotted box. The blocks the
 * install replaces are freed by the next call (clw_tree_release). */
void clw_tree_step(cl_world *w) {
    cl_tree *t = &w->tree;
    long n = t->leaves, bno = t->bldno;
    int lg = 0, root, cap, used;
    const cl_tnode *nodes;
    const int *map;
    if (w->lf == NULL && w->cap <= 2L * n && (w->nlbld == bno ? w->nlpos < w->cap : w->nlbld != -bno) &&
        cl_tree_rebuild_fitted(t, &root, &cap, &used) != NULL && (map = cl_tree_rebuild_leafmap(t)) != NULL) {
        nl_step(w, map, bno);       /* a dense World: the items' new indices, before the fit (so
                                       a call that finds the fit done only fills or installs) */
        return;
    }
    if (w->qn != NULL && w->qn2bld != bno && w->qn2bld != -bno &&
        (nodes = cl_tree_rebuild_fitted(t, &root, &cap, &used)) != NULL) {
        int r = qsnap_spare_step(w, nodes, root, cap, used, bno);
        if (r != 0) w->qn2bld = r > 0 ? bno : -bno;
        return;
    }
    if (w->qn2bld == bno && w->qn2fit != bno && w->qslot2cap >= t->cap &&
        (nodes = cl_tree_rebuild_ready(t)) != NULL) {
        wtree_fill(nodes, w->qn2, w->qslot2, w->qslot2cap);
        w->qn2fit = bno;
        return;
    }
    while ((1L << lg) < n) lg++;
    if (cl_tree_rebuild_step(t, n * (lg + 2) / REBUILD_STEPS + 256)) {
        tree_rebuilt(w, cl_tree_rebuild_map(t), w->nlbld == bno && w->nlpos >= w->cap && w->lf == NULL);
        if (w->qn2bld == bno && w->qslot2cap >= t->cap) {
            cl_qnode *q = w->qn; void *qb = w->qnblock; int qc = w->qncap, *qs = w->qslot, qsc = w->qslotcap;
            const int *lv;
            int nl = cl_tree_rebuild_replayed(t, &lv), i;
            w->qn = w->qn2; w->qnblock = w->qn2block; w->qncap = w->qn2cap;
            w->qslot = w->qslot2; w->qslotcap = w->qslot2cap;
            w->qn2 = q; w->qn2block = qb; w->qn2cap = qc; w->qslot2 = qs; w->qslot2cap = qsc;
            if (w->qn2fit == bno && nl >= 0) {
                for (i = 0; i < nl; i++) qsnap_path(w, lv[i]);  /* boxes changed since the fill */
            } else {
                qsnap_refit(w);     /* the boxes fitted and grown since the snapshot was built */
            }
            w->qnver = w->tver;
        }
        w->qn2bld = 0;
        w->qn2fit = 0;
    }
}

/* The install of the incremental rebuild under way, run by a traversal before it links and
 * refits its leaves (settle_tree, cp_refresh, raycastall) when that is the rebuild's next step,
 * with the new tree's box-query snapshot filled now (its fitted boxes copied: wtree_fill) or
 * already, or no snapshot in use: only traversals change leaves (an add or a remove cancels
 * the rebuild), and the step before (the fit's last part) ran after the last traversal's
 * changes, so nothing is logged since: the fill needs no replay, and the install finds no leaf
 * to replay and no path to copy; this traversal's changes then go to the new tree and its
 * snapshot as any frame's do, instead of to the old tree, logged, and replayed by an install
 * after them. When something was logged (or the rebuild is stale) it declines and the step
 * after the changes fills. Returns 1 if it installed (the traversal skips its step), else 0. */
int clw_tree_install_first(cl_world *w) {
    cl_tree *t = &w->tree;
    const cl_tnode *nodes;
    long bno = t->bldno;
    if (!cl_tree_rebuild_installs(t)) return 0;
    if (w->qn2bld == bno && w->qslot2cap >= t->cap) {  /* the new tree's snapshot (clw_tree_step's fill) */
        if (w->qn2fit != bno) {         /* its fill: no box changed since the fit's last part */
            if (cl_tree_rebuild_logged(t) != 0 || (nodes = cl_tree_rebuild_ready(t)) == NULL) return 0;
            wtree_fill(nodes, w->qn2, w->qslot2, w->qslot2cap);
            w->qn2fit = bno;
        }
    } else if (w->qn != NULL) {
        return 0;                       /* no new snapshot: the install after the changes, as before */
    }
    clw_tree_step(w);                   /* the install (no fill left to it) */
    return 1;
}

/* Releases the old pool and the rebuild's buffers an install kept (cl_tree_rebuild_release: freed,
 * or kept for the next rebuild when small) and frees the spare box-query snapshot blocks (after an
 * install: the old snapshot) unless they are small enough to keep for the next rebuild's spare
 * (clw_spare_kept: then the next rebuild writes no fresh pages for it), a call after the install
 * so that call does not pay for the frees too. */
void clw_tree_release(cl_world *w) {
    cl_tree_rebuild_release(&w->tree);
    if (!clw_spare_kept(w)) {
        if (w->qn2block) w->alloc(w->ud, w->qn2block, (size_t)w->qn2cap * sizeof(cl_qnode) + 64, 0);
        free_buf(w, w->qslot2, w->qslot2cap, sizeof(int));
        w->qn2 = NULL; w->qn2block = NULL; w->qn2cap = 0;
        w->qslot2 = NULL; w->qslot2cap = 0;
    }
    w->qn2bld = 0;
    w->qn2fit = 0;
}

/* Links the leaves of the items added since the last traversal: one by one while they are
 * few, else by rebuilding the whole tree with them (a binned-SAH build of every leaf costs less
 * than a tree search per new leaf once they are a fifth of the tree, and it leaves a better
 * tree). Leaves linked one by one keep their node indices. */
void clw_link_tree(cl_world *w) {
    cl_tree *t = &w->tree;
    if (t->npend == 0) return;
    w->tver++;
    if (t->leaves >= 64 && 5L * t->npend >= t->leaves) clw_tree_rebuild(w);
    else cl_tree_link_pending(t);
}

/* Copies tree node i's box into its box-query snapshot slot s (4 * node + slot). */
static void qslot_copy(cl_world *w, int i, int s) {
    const cl_fbox *b = &w->tree.nodes[i].box;
    cl_qnode *q = &w->qn[s >> 2];
    int j = s & 3;
    q->b[0][j] = b->lo[0]; q->b[1][j] = b->lo[1]; q->b[2][j] = b->lo[2];
    q->b[3][j] = b->hi[0]; q->b[4][j] = b->hi[1]; q->b[5][j] = b->hi[2];
}

/* Keeps the box-query snapshot in step with cl_tree_enlarge(leaf) (no change of structure, so
 * the grouping stays valid): copies the leaf's new box and those of its ancestors into their
 * slots (opened nodes have none). Enlargement changes a run of ancestors from the leaf up, so
 * the walk stops at the first slotted ancestor whose slot already holds its box. */
static void qsnap_path(cl_world *w, int leaf) {
    int i = leaf;
    while (i != CL_NULLNODE) {
        int s = w->qslot[i];
        if (s >= 0) {
            const cl_fbox *b = &w->tree.nodes[i].box;
            const cl_qnode *q = &w->qn[s >> 2];
            int j = s & 3;
            if (i != leaf && q->b[0][j] == b->lo[0] && q->b[1][j] == b->lo[1] &&
                q->b[2][j] == b->lo[2] && q->b[3][j] == b->hi[0] && q->b[4][j] == b->hi[1] &&
                q->b[5][j] == b->hi[2])
                break;
            qslot_copy(w, i, s);
        }
        i = w->tree.meta[i].parent;
    }
}

/* Copies every slotted tree node's box into the snapshot (after a refit, same structure). */
static void qsnap_refit(cl_world *w) {
    int i;
    for (i = 0; i < w->qslotcap; i++)
        if (w->qslot[i] >= 0) qslot_copy(w, i, w->qslot[i]);
}

/* Copies the box of every node of nodes (n of them) that has a slot in qslot into snapshot qn:
 * the spare snapshot takes the rebuild's fitted boxes in the install's call, before its leaf
 * changes (clw_tree_install_first), or after them in the call before the install. */
static void wtree_fill(const cl_tnode *nodes, cl_qnode *qn, const int *qslot, int n) {
    int i;
    for (i = 0; i < n; i++) {
        int s = qslot[i], j = s & 3;
        const cl_fbox *b = &nodes[i].box;
        cl_qnode *q;
        if (s < 0) continue;
        q = &qn[s >> 2];
        q->b[0][j] = b->lo[0]; q->b[1][j] = b->lo[1]; q->b[2][j] = b->lo[2];
        q->b[3][j] = b->hi[0]; q->b[4][j] = b->hi[1]; q->b[5][j] = b->hi[2];
    }
}

/* Refits the tree leaves of every item updated out of its fat box since the last traversal
 * (newest first; the list order is fixed by the calls, so the tree stays deterministic), and
 * queues them for the pair cache. */
void clw_flush_tree(cl_world *w) {
    /* more than half the leaves stale (bulk updates, the first step of items added tight): set
     * them in place and refit the whole tree, far cheaper than as many reinsertions; rebuild it
     * if that left it much worse than after the last rebuild (teleports, long drifts) */
    int bulk, qsync;
    clw_link_tree(w);               /* new leaves first: stale ones may be among them */
    bulk = w->tree.leaves >= 64 && w->dlen > w->tree.leaves / 2;
    /* a valid box-query snapshot is kept valid through enlargements and refits (its structure
     * is the tree's until a leaf is reinserted or the tree rebuilt): far cheaper than rebuilding
     * it for the next pairs' queries */
    qsync = w->qn != NULL && w->qnver == w->tver && w->tree.cap <= w->qslotcap;
    while (w->dhead >= 0) {
        int id = w->dhead;
        cl_item *it = &w->items[id];
        w->dhead = it->dnext;
        it->onlist = 0;
        if (it->dnext >= 0) {       /* the next leaf and its parent link: random, from memory */
            int p = clw_leaf(w, it->dnext);
            if (p != CL_NULLNODE) {
                WPREFETCH(&w->tree.nodes[p]);
                WPREFETCH(&w->tree.meta[p]);
            }
        }
        if (it->dirty && it->proxy != CL_NULLNODE) {
            int leaf = clw_leaf(w, id);
            cl_aabb nf = fat_box(w, id);
            cl_fbox nfb = fbox_of(&nf);             /* cl_fbox_from's bits */
            it->dirty = 0;
            w->tver++;
            if (bulk) {
                w->tree.nodes[leaf].box = nfb;          /* ancestors fixed by the rebuild */
            } else if (fboxes_overlap(&it->fat, &nfb)) {     /* a small step: grow the ancestors
                                                               (the next rebuild refits them) */
                cl_tree_enlarge_fbox(&w->tree, leaf, &nfb);
                if (qsync) qsnap_path(w, leaf);
                w->tchg++;
            } else {
                clw_set_leaf(w, id, cl_tree_move(&w->tree, leaf, &nf));
                w->tchg += 8;
                qsync = 0;
            }
            clw_set_fat(w, it, &nfb);
            if (!it->mon) {
                it->mon = 1;
                it->mnext = w->mhead;
                w->mhead = id;
            }
        }
    }
    w->dlen = 0;
    if (bulk) {
        cl_tree_refit(&w->tree);
        if (w->refcost <= 0 || cl_tree_cost(&w->tree) > REBUILD_COST * w->refcost) {
            clw_tree_rebuild(w);
        } else if (qsync) {
            qsnap_refit(w);
            w->qnver = w->tver;
        }
        return;
    }
    if (qsync) w->qnver = w->tver;
}

/* Returns the array of a snapshot: cur when its block (*blk, *cap elements of size sz) holds
 * need elements, else a new block's first 64-byte aligned address (the old block freed), or
 * NULL when memory runs out (*blk NULL, *cap 0). A small block (up to half CL_TREE_KEEP_BYTES:
 * with its slot array, a spare kept between rebuilds) gets 1/16 more room, so that the next
 * rebuilds' snapshots, a little larger or smaller, still fit in it (no fresh pages); a larger one
 * is sized exactly. */
static void *snap_block(cl_world *w, void *cur, void **blk, int *cap, int need, size_t sz) {
    void *b;
    int room = need;
    if (need <= *cap) return cur;
    if (*blk) w->alloc(w->ud, *blk, (size_t)*cap * sz + 64, 0);
    *blk = NULL;
    *cap = 0;
    if ((size_t)need * sz <= CL_TREE_KEEP_BYTES / 2) room = need + need / 16;
    b = w->alloc(w->ud, NULL, 0, (size_t)room * sz + 64);
    if (!b) return NULL;
    *blk = b;
    *cap = room;
    return cl_align64(b);
}

/* Gives a small World (the spare blocks kept between rebuilds: clw_spare_kept) its spare box-query
 * snapshot blocks, as large as the snapshot's, when it has none, and writes them once: the first
 * incremental rebuild's snapshot then faults no fresh page (as cl_tree_rebuild_prepare for the
 * tree's blocks). Without memory, nothing (the rebuild allocates them as before). */
static void spare_prepare(cl_world *w) {
    size_t qb = (size_t)w->qncap * sizeof(cl_qnode) + 64, sb = (size_t)w->qslotcap * sizeof(int);
    if (w->qn2block != NULL || w->qslot2 != NULL || w->qncap == 0 || w->qslotcap == 0 ||
        !clw_spare_fits(w->qncap, w->qslotcap))
        return;
    w->qn2block = w->alloc(w->ud, NULL, 0, qb);
    w->qslot2 = w->qn2block ? (int *)w->alloc(w->ud, NULL, 0, sb) : NULL;
    if (w->qslot2 == NULL) {
        if (w->qn2block) w->alloc(w->ud, w->qn2block, qb, 0);
        w->qn2block = NULL;
        return;
    }
    memset(w->qn2block, 0, qb);
    memset(w->qslot2, 0, sb);
    w->qn2 = (cl_qnode *)cl_align64(w->qn2block);
    w->qn2cap = w->qncap;
    w->qslot2cap = w->qslotcap;
}

/* Builds the box-query snapshot: the binary tree collapsed into 4-wide nodes, in depth-first
 * order (a node's first inner child follows it); CL_OK or CL_ENOMEM (no snapshot). Needs at
 * least two leaves. Each snapshot node stands for a piece of the tree: a tree node and up to two
 * more inner nodes below it, connected (the nodes it opens); its slots are the children of the
 * piece that are not in it (a piece of p inner nodes has p + 1 of them). The pieces are chosen
 * bottom up so that they are as few as can be (qsnap_sizes), about (n - 1) / 3 for n leaves: a
 * collapse from the top that fills each node (or opens both children or one) ends near the
 * leaves with many nodes of two or three leaf slots, about n / 2 nodes in the trees a rebuild
 * makes, so half again the memory, and a query visits about as many nodes more. The block is
 * sized to the count. Which leaves a query finds does not depend on the grouping (every box
 * encloses its subtree's), only the order it finds them in, which no result depends on. */
int clw_qsnap_build(cl_world *w) {
    int r = clw_qsnap_into(w, w->tree.nodes, w->tree.root, w->tree.cap, w->tree.lazy, &w->qn, &w->qnblock, &w->qncap,
                           &w->qslot, &w->qslotcap);
    if (r == CL_OK) {
        w->qnver = w->tver;
        spare_prepare(w);
    }
    return r;
}

/* Which children of an inner tree node the piece holding it also holds (bit 0: child1, bit 1:
 * child2), given s1, s2: the sizes of the children's own pieces as qsnap_sizes left them (0 for a
 * leaf, which is a slot, never opened). The piece grows by both while it stays within three
 * inner nodes, else by the smaller (child2 on a tie), else by neither. Deciding at each node,
 * from the bottom, to cut the children whose pieces are largest gives the fewest pieces (the
 * greedy partition of a tree into connected parts of bounded size, Kundu and Misra 1977). */
static int qsnap_opens(int s1, int s2) {
    if (s1 + s2 <= 2) return (s1 > 0) | (s2 > 0) << 1;
    if (s2 <= s1 && s2 <= 2) return s2 > 0 ? 2 : 0;
    if (s1 < s2) return s1 > 0 ? 1 : 0;
    return 0;
}

/* One step of qsnap_sizes at inner node i, its children's sizes known: size[i] gets the size of
 * its open piece; returns how many of its children's pieces it cuts off (new pieces). */
static int qsnap_size_at(const cl_tnode *nodes, int *size, int i) {
    int a = nodes[i].child1, b = nodes[i].child2;
    int s1 = nodes[a].child1 != CL_NULLNODE ? size[a] : 0;
    int s2 = nodes[b].child1 != CL_NULLNODE ? size[b] : 0;
    int m = qsnap_opens(s1, s2);
    size[i] = 1 + (m & 1 ? s1 : 0) + (m & 2 ? s2 : 0);
    return (s1 > 0 && !(m & 1)) + (s2 > 0 && !(m & 2));
}

/* The bottom-up pass of the snapshot build: size[i] gets the size of the open piece of every
 * inner node i of the tree (nodes 0..used-1, root root; free nodes look like leaves; nodes
 * used..cap-1 are free and unwritten, cl_tree's lazy, so not read); returns the
 * number of pieces (snapshot nodes: the root's and one per inner child left out of its parent's
 * piece), or CL_ENOMEM. A tree fresh from a rebuild has every child after its parent in the
 * pool, so one backward pass over it sees children first (sequential reads, no stack); a tree
 * changed since (reinserted leaves take free nodes anywhere) is walked in post-order instead. */
static int qsnap_sizes(cl_world *w, const cl_tnode *nodes, int root, int used, int *size) {
    cl_stack st;
    int count = 1, i;
    for (i = used - 1; i >= 0; i--) {
        int a = nodes[i].child1, b = nodes[i].child2;
        if (a == CL_NULLNODE) continue;
        if (a < i || b < i) break;
        count += qsnap_size_at(nodes, size, i);
    }
    if (i < 0) return count;
    count = 1;
    cl_stack_init(&st);
    st.p[st.n].node = root;
    st.p[st.n].t = 0;
    st.n++;
    while (st.n > 0) {
        int a, b;
        i = st.p[--st.n].node;
        a = nodes[i].child1;
        b = nodes[i].child2;
        if (st.p[st.n].t == 0) {            /* first visit: the children first */
            int ok = SPUSH(&w->tree, &st, i, 1.0);
            if (ok && nodes[b].child1 != CL_NULLNODE) ok = SPUSH(&w->tree, &st, b, 0.0);
            if (ok && nodes[a].child1 != CL_NULLNODE) ok = SPUSH(&w->tree, &st, a, 0.0);
            if (!ok) {
                cl_stack_free(&w->tree, &st);
                return CL_ENOMEM;
            }
        } else {
            count += qsnap_size_at(nodes, size, i);
        }
    }
    cl_stack_free(&w->tree, &st);
    return count;
}

/* The first part of clw_qsnap_into: the snapshot's blocks (a slot per tree node, all -1 but the
 * piece sizes of the inner nodes under root, which the walk reads and replaces; the nodes'
 * block sized to the pieces: kept while it holds them and is not an eighth larger); CL_OK or
 * CL_ENOMEM. */
static int qsnap_blocks(cl_world *w, const cl_tnode *nodes, int root, int cap, int used, cl_qnode **qnp, void **blk,
                        int *qncap, int **qslotp, int *qslotcap) {
    int need, k;
    if (cap > *qslotcap) {                  /* the slot of every tree node (qsnap_path) */
        free_buf(w, *qslotp, *qslotcap, sizeof(int));
        *qslotcap = 0;
        *qslotp = (int *)w->alloc(w->ud, NULL, 0, (size_t)cap * sizeof(int));
        if (!*qslotp) return CL_ENOMEM;
        *qslotcap = cap;
    }
    for (k = 0; k < *qslotcap; k++) (*qslotp)[k] = -1;
    need = qsnap_sizes(w, nodes, root, used, *qslotp);
    if (need < 0) return CL_ENOMEM;
    if (*qncap > need + need / 8) {         /* much larger than needed: a fresh block */
        w->alloc(w->ud, *blk, (size_t)*qncap * sizeof(cl_qnode) + 64, 0);
        *blk = NULL;
        *qncap = 0;
    }
    *qnp = (cl_qnode *)snap_block(w, *qnp, blk, qncap, need, sizeof(cl_qnode));
    return *qnp ? CL_OK : CL_ENOMEM;
}

/* The walk of clw_qsnap_into from the stack st (entries: tree node, and (t) the slot that gets its
 * snapshot index: 4 * parent + slot), the next snapshot node *kp, until the stack is empty or
 * budget nodes are made; CL_OK (st.n > 0: paused) or CL_ENOMEM. */
static int qsnap_walk(cl_world *w, const cl_tnode *nodes, cl_stack *st, int *kp, long budget,
                      cl_qnode *qnodes, int qncap, int *qslot) {
    cl_tree *t = &w->tree;      /* its allocator for the stack */
    int k = *kp;
    while (st->n > 0 && budget-- > 0) {
        int i = st->p[--st->n].node, slot = (int)st->p[st->n].t, me = k++, ns = 1, j, m, sl[4], op[4];
        cl_qnode *qn = &qnodes[me];
        if (me >= qncap) return CL_ENOMEM;  /* never (the count above); no snapshot rather than an overrun */
        if (slot >= 0) qnodes[slot / 4].child[slot % 4] = me;
        else qslot[i] = -1;                 /* the root: no slot */
        sl[0] = i; op[0] = 1;
        for (j = 0; j < ns; ) {             /* open the piece's nodes in place: its slots in order */
            int x = sl[j], a, b, s1, s2, q;
            if (!op[j]) { j++; continue; }
            a = nodes[x].child1; b = nodes[x].child2;
            s1 = nodes[a].child1 != CL_NULLNODE ? qslot[a] : 0;
            s2 = nodes[b].child1 != CL_NULLNODE ? qslot[b] : 0;
            m = qsnap_opens(s1, s2);
            if (x != i) qslot[x] = -1;      /* an opened node: no slot */
            for (q = ns; q > j + 1; q--) { sl[q] = sl[q - 1]; op[q] = op[q - 1]; }
            sl[j] = a; op[j] = m & 1;
            sl[j + 1] = b; op[j + 1] = m >> 1;
            ns++;
        }
        for (j = 0; j < ns; j++) {
            const cl_tnode *c = &nodes[sl[j]];
            qn->b[0][j] = c->box.lo[0]; qn->b[1][j] = c->box.lo[1]; qn->b[2][j] = c->box.lo[2];
            qn->b[3][j] = c->box.hi[0]; qn->b[4][j] = c->box.hi[1]; qn->b[5][j] = c->box.hi[2];
            qn->child[j] = c->child1 == CL_NULLNODE ? ~c->child2 : 0;
            qslot[sl[j]] = 4 * me + j;
        }
        for (; j < 4; j++) {
            qn->b[0][j] = qn->b[1][j] = qn->b[2][j] = qn->b[3][j] = qn->b[4][j] = qn->b[5][j] = (float)NAN;
            qn->child[j] = 0;
        }
        for (j = ns - 1; j >= 0; j--)       /* the first inner slot is built next */
            if (qn->child[j] >= 0 && !SPUSH(t, st, sl[j], 4.0 * me + j)) return CL_ENOMEM;
    }
    *kp = k;
    return CL_OK;
}

int clw_qsnap_into(cl_world *w, const cl_tnode *nodes, int root, int cap, int used, cl_qnode **qnp, void **blk,
                   int *qncap, int **qslotp, int *qslotcap) {
    cl_stack st;
    int k = 0, r;
    if (qsnap_blocks(w, nodes, root, cap, used, qnp, blk, qncap, qslotp, qslotcap) != CL_OK) return CL_ENOMEM;
    cl_stack_init(&st);
    st.p[st.n].node = root;
    st.p[st.n].t = -1;
    st.n++;
    r = qsnap_walk(w, nodes, &st, &k, LONG_MAX, *qnp, *qncap, *qslotp);
    cl_stack_free(&w->tree, &st);
    return r;
}

/* clw_qsnap_into of the rebuild bno's new tree into the spare buffers over several calls (the
 * first sets up the blocks and sizes the pieces, a pass over the tree; each later one makes up to
 * leaves / 10 + 1 snapshot nodes, of about 0.37 leaves in a typical tree (qsnap_sizes' fewest
 * pieces), so mostly five calls, each about a tenth of a frame's work; the walk's stack kept
 * in w->qss between them; the new tree does not change meanwhile: the rebuild waits for this
 * build): 1 when built, 0 when paused, -1 on CL_ENOMEM (the rebuild then goes on without). */
static int qsnap_spare_step(cl_world *w, const cl_tnode *nodes, int root, int cap, int used, long bno) {
    cl_stack st;
    int k = 0, r, i;
    long budget = w->tree.leaves / 10 + 1;
    cl_stack_init(&st);
    if (w->qsres != bno) {                  /* a fresh build */
        budget = 0;                         /* the blocks and the sizes pass are this call's work */
        w->qsres = 0;
        if (qsnap_blocks(w, nodes, root, cap, used, &w->qn2, &w->qn2block, &w->qn2cap, &w->qslot2, &w->qslot2cap) != CL_OK)
            return -1;
        st.p[st.n].node = root;
        st.p[st.n].t = -1;
        st.n++;
    } else {                                /* resumed */
        for (i = 0; i < w->qssn; i++)
            if (!SPUSH(&w->tree, &st, w->qss[i].node, w->qss[i].t)) {
                cl_stack_free(&w->tree, &st);
                w->qsres = 0;
                return -1;
            }
        k = w->qsk;
        w->qsres = 0;
    }
    r = qsnap_walk(w, nodes, &st, &k, budget, w->qn2, w->qn2cap, w->qslot2);
    if (r == CL_OK && st.n > 0) {           /* pause: keep the stack */
        if (st.n > w->qsscap) {             /* with room to spare: the next builds' stacks fit */
            int room = st.n + st.n / 2 + 16;
            free_buf(w, w->qss, w->qsscap, sizeof(cl_sentry));
            w->qsscap = 0;
            w->qss = (cl_sentry *)w->alloc(w->ud, NULL, 0, (size_t)room * sizeof(cl_sentry));
            if (w->qss != NULL) w->qsscap = room;
        }
        if (w->qss != NULL) {
            memcpy(w->qss, st.p, (size_t)st.n * sizeof(cl_sentry));
            w->qssn = st.n;
            w->qsk = k;
            w->qsres = bno;
        }
        cl_stack_free(&w->tree, &st);
        return w->qsres == bno ? 0 : -1;
    }
    cl_stack_free(&w->tree, &st);
    return r == CL_OK ? 1 : -1;
}
