/* collide core, the World: items and their lifecycle (slots, add order, init, free, reserve,
 * add, remove, update, translate). Fat boxes and the tree live in world_tree.c; see
 * world_internal.h for the other World files. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "world_internal.h"

void cl_world_init(cl_world *w, double margin, cl_alloc alloc, void *ud) {
    memset(w, 0, sizeof *w);
    cl_tree_init(&w->tree, alloc, ud);
    w->items = NULL;
    w->lf = NULL;
    w->nl = NULL;
    w->freelist = -1;
    w->xs = NULL;
    w->xsfree = -1;
    w->dhead = -1;
    w->dlen = 0;
    w->mhead = -1;
    w->pfull = 1;
    w->nextseq = 1;
    w->pgfver = -1;
    w->margin = margin;
    w->res = w->tmp = NULL;
    w->hits = NULL;
    w->mc = NULL;
    w->cols = NULL;
    w->alloc = alloc;
    w->ud = ud;
}

void cl_world_free(cl_world *w) {
    cl_tree_free(&w->tree);
    free_buf(w, w->items, w->acap, sizeof(cl_item));
    free_buf(w, w->lf, w->lfcap, sizeof(int));
    free_buf(w, w->nl, w->nlcap, sizeof(int));
    free_buf(w, w->xs, w->xscap, sizeof(cl_xshape));
    free_buf(w, w->res, w->rescap, sizeof(int));
    free_buf(w, w->tmp, w->tmpcap, sizeof(int));
    free_buf(w, w->hits, w->hitcap, sizeof(cl_whit));
    free_buf(w, w->mc, w->mccap, sizeof(cl_mcand));
    free_buf(w, w->mq, w->mqcap, sizeof(int));
    free_buf(w, w->cols, w->colcap, sizeof(cl_col));
    free_buf(w, w->cp, w->cpcap, sizeof(cl_cpair));
    if (w->qnblock) w->alloc(w->ud, w->qnblock, (size_t)w->qncap * sizeof(cl_qnode) + 64, 0);
    free_buf(w, w->qslot, w->qslotcap, sizeof(int));
    if (w->qn2block) w->alloc(w->ud, w->qn2block, (size_t)w->qn2cap * sizeof(cl_qnode) + 64, 0);
    free_buf(w, w->qslot2, w->qslot2cap, sizeof(int));
    if (w->pgblk) w->alloc(w->ud, w->pgblk, w->pgsize, 0);
    free_buf(w, w->qss, w->qsscap, sizeof(cl_sentry));
    free_buf(w, w->ph, w->phcap, sizeof(int));
    free_buf(w, w->pr, w->prcap, sizeof(cl_wpair));
    free_buf(w, w->kp, w->kpcap, sizeof(cl_kpair));
    cl_world_init(w, w->margin, w->alloc, w->ud);
}

/* Ensures a free slot in the side array of shapes; CL_OK or CL_ENOMEM. */
static int xs_reserve(cl_world *w) {
    if (w->xsfree < 0) {
        int old = w->xscap, i;
        ENSURE(w->xs, w->xscap, old + 1);
        for (i = w->xscap - 1; i >= old; i--) {
            w->xs[i].next = w->xsfree;
            w->xsfree = i;
        }
    }
    return CL_OK;
}

int cl_world_reserve(cl_world *w) {
    int r;
    if (xs_reserve(w) != CL_OK) return CL_ENOMEM;
    if (w->freelist < 0) {
        /* the next slot of the block, set up only now (see cl_world.acap): the ids come out in
         * the order the doubling block's free list used to give them (its fresh slots were
         * always at the bottom of the list, below every slot freed since) */
        cl_item *it;
        if (w->lf != NULL && w->cap + 1 > w->lfcap) clw_leaf_finish(w);    /* lf holds lfcap ids */
        ENSURE(w->items, w->acap, w->cap + 1);
        it = &w->items[w->cap];
        it->proxy = CL_NULLNODE;
        it->dirty = 0;
        it->onlist = 0;
        it->mon = 0;
        it->kind = CL_AABB;
        it->xs = -1;                    /* free: the link (see cl_item) */
        w->freelist = w->cap++;
    }
    r = cl_tree_reserve(&w->tree, 1);
    /* a pool that grew (or failed to) cancelled the rebuild under way (review rev33: the leaf
     * indices computed for it stayed in nl, a large block too, until the next rebuild) */
    if (w->nl != NULL && w->nlbld != 0 && (w->tree.bld == NULL || w->nlbld != w->tree.bldno)) clw_nl_drop(w);
    return r;
}

int cl_world_nextid(const cl_world *w) { return w->freelist; }

int cl_world_add(cl_world *w, const cl_shape *s) {
    int id;
    cl_item *it;
    cl_aabb fat;
    if (cl_world_reserve(w) != CL_OK) return CL_ENOMEM;
    id = w->freelist;
    it = &w->items[id];
    w->freelist = it->xs;
    it->xs = -1;
    it->kind = (unsigned char)s->kind;
    if (s->kind != CL_AABB) {           /* a slot is free after the reserve */
        it->xs = w->xsfree;
        w->xsfree = w->xs[it->xs].next;
        w->xs[it->xs].s = *s;
    }
    it->box = cl_shape_aabb(s);
    it->seq = w->nextseq;
    w->nextseq += 1;
    it->vel[0] = it->vel[1] = it->vel[2] = 0;
    /* a new item gets a tight leaf (its box and rounding allowance, no margin): items that are
     * never moved (level geometry, bulk-added scenery) keep the tightest tree for queries and
     * rays; the first update that leaves it fattens the leaf as usual (clw_flush_tree). The leaf
     * waits off the tree until the next traversal links the new leaves (clw_link_tree: built in
     * bulk when they are many, so bulk adds cost no tree search each) */
    fat = widen(&it->box, 0, shape_tol(s, &it->box));
    if (w->nl != NULL && w->nlbld != 0) clw_nl_drop(w);     /* the rebuild is cancelled */
    clw_set_leaf(w, id, cl_tree_insert_lazy(&w->tree, &fat, id));  /* cannot fail after the reserve */
    clw_set_fat(w, it, &w->tree.nodes[it->proxy].box);
    w->tchg += 8;
    w->tver++;
    it->dirty = 0;
    it->vel[0] = it->vel[1] = it->vel[2] = 0;
    if (!it->mon) {
        it->mon = 1;
        it->mnext = w->mhead;
        w->mhead = id;
    }
    w->count++;
    return id;
}

/* Item it, a mesh item, leaves the World or takes another shape: its mesh may be freed after this,
 * and another built at its address, which the move's mesh candidate cache (keyed by that address,
 * cl_pmkeep_cache) and its kept sweep must not take for it. They forget it (the cache stays on or
 * off as it was: a Character's move keeps it on; one whose filter raised an error left it on). */
static void world_mesh_gone(cl_world *w, const cl_item *it) {
    if (it->kind != CL_MESH) return;
    if (w->mkeep.cm == w->xs[it->xs].s.u.mesh.m) {
        w->mkeep.cm = NULL;
        w->mkeep.cn = CL_MESH_UNSURE;
    }
    w->mkeep.ok = 0;
}

void cl_world_remove(cl_world *w, int id) {
    cl_item *it = &w->items[id];
    world_mesh_gone(w, it);
    if (w->nl != NULL && w->nlbld != 0) clw_nl_drop(w);     /* the rebuild is cancelled */
    cl_tree_remove(&w->tree, clw_leaf(w, id));
    w->tchg += 8;
    w->tver++;
    it->proxy = CL_NULLNODE;
    if (it->kind != CL_AABB) {
        w->xs[it->xs].next = w->xsfree;
        w->xsfree = it->xs;
        it->kind = CL_AABB;
    }
    it->xs = w->freelist;               /* a free slot is an AABB: xs is the free-list link */
    it->dirty = 0;
    w->freelist = id;
    w->count--;
    w->ppurge = 1;
}

/* 1 when fat box fat (as doubles; it encloses lo..hi, box b widened by its rounding allowance)
 * is not too loose (clw_fat_snug). The usual case is decided here at the cost of the limits the
 * item once stored: every side's slack within 4 + PRED_MAX margins, the least any axis's limit
 * can be (pred_cap is at least PRED_MAX margins when the margin is positive; the limit's sum
 * rounds monotonically and the terms added to it are positive), so the answer is clw_fat_snug's.
 * A moving item's sides stay within it: it leaves its fat box before its trailing side drifts
 * that far. */
WINLINE int world_snug(const cl_world *w, const cl_aabb *b, const cl_aabb *fat, cl_vec3 lo, cl_vec3 hi) {
    double l = 4 * w->margin + PRED_MAX * w->margin;
    if ((w->margin > 0) & (lo.x - fat->min.x <= l) & (lo.y - fat->min.y <= l) &
        (lo.z - fat->min.z <= l) & (fat->max.x - hi.x <= l) & (fat->max.y - hi.y <= l) &
        (fat->max.z - hi.z <= l))
        return 1;
    return clw_fat_snug(w, b, fat, lo, hi);
}

/* The common tail of every update of item id (its kind already set to s's): its velocity and
 * box b kept, and its leaf marked stale when its fat box no longer encloses b or is too loose.
 * Inlined in cl_world_translate's AABB path (a game's every move) and in clw_update_to. */
WINLINE void update_box(cl_world *w, int id, const cl_shape *s, cl_aabb b) {
    cl_item *it = &w->items[id];
    cl_aabb fat;
    cl_vec3 lo, hi;
    double t;
    to_float3(it->vel, ((b.min.x - it->box.min.x) + (b.max.x - it->box.max.x)) * 0.5,
              ((b.min.y - it->box.min.y) + (b.max.y - it->box.max.y)) * 0.5,
              ((b.min.z - it->box.min.z) + (b.max.z - it->box.max.z)) * 0.5);
    it->box = b;
    if (it->dirty) return;
    fat.min = cl_v3(it->fat.lo[0], it->fat.lo[1], it->fat.lo[2]);     /* as cl_fbox_to */
    fat.max = cl_v3(it->fat.hi[0], it->fat.hi[1], it->fat.hi[2]);
    /* keep the leaf while its fat box still encloses the shape with its rounding allowance and
     * is not too loose. The allowance: an OBB's own (its axes may have changed), else box_tol of
     * fat, the allowance of the largest box inside fat, which is at least this box's whenever the
     * enclosure test passes (the box is then inside fat); so the test is exact or stricter. */
    t = s->kind == CL_OBB || s->kind == CL_MESH ? shape_tol(s, &b) : box_tol(&fat);
    lo = cl_v3(b.min.x - t, b.min.y - t, b.min.z - t);
    hi = cl_v3(b.max.x + t, b.max.y + t, b.max.z + t);
    if ((fat.min.x <= lo.x) & (fat.min.y <= lo.y) & (fat.min.z <= lo.z) &
        (fat.max.x >= hi.x) & (fat.max.y >= hi.y) & (fat.max.z >= hi.z) &&
        world_snug(w, &b, &fat, lo, hi))
        return;
    /* the leaf is refitted on the next tree traversal (pairs do not need the tree) */
    it->dirty = 1;
    if (!it->onlist) {
        it->onlist = 1;
        it->dnext = w->dhead;
        w->dhead = id;
        w->dlen++;
    }
}

/* The tail of cl_world_update: item id now has shape *s (its stored shape may be s) with box b;
 * CL_OK, or CL_ENOMEM (unchanged) when an AABB item gets another kind and no slot is free. */
int clw_update_to(cl_world *w, int id, const cl_shape *s, cl_aabb b) {
    cl_item *it = &w->items[id];
    if (it->kind == CL_MESH && !(s->kind == CL_MESH && s->u.mesh.m == w->xs[it->xs].s.u.mesh.m))
        world_mesh_gone(w, it);
    if (s->kind != CL_AABB) {
        if (it->kind == CL_AABB) {
            cl_shape c = *s;            /* (s may lie in the array the reserve moves) */
            if (xs_reserve(w) != CL_OK) return CL_ENOMEM;
            it->xs = w->xsfree;
            w->xsfree = w->xs[it->xs].next;
            w->xs[it->xs].s = c;
        } else if (&w->xs[it->xs].s != s) w->xs[it->xs].s = *s;
    } else if (it->kind != CL_AABB) {
        w->xs[it->xs].next = w->xsfree;
        w->xsfree = it->xs;
        it->xs = -1;
    }
    it->kind = (unsigned char)s->kind;
    update_box(w, id, s, b);
    return CL_OK;
}

int cl_world_update(cl_world *w, int id, const cl_shape *s) {
    return clw_update_to(w, id, s, cl_shape_aabb(s));
}

int cl_world_translate(cl_world *w, int id, cl_vec3 d) {
    cl_item *it = &w->items[id];
    cl_aabb b;
    int axis;
    cl_shape *sh;
    if (it->kind == CL_AABB) {          /* the common case (as cl_shape_translate): the box moves */
        cl_shape nb;
        b.min.x = it->box.min.x + d.x; b.max.x = it->box.max.x + d.x;
        b.min.y = it->box.min.y + d.y; b.max.y = it->box.max.y + d.y;
        b.min.z = it->box.min.z + d.z; b.max.z = it->box.max.z + d.z;
        if ((b.min.x - b.min.x) + (b.max.x - b.max.x) != 0) return 1;
        if ((b.min.y - b.min.y) + (b.max.y - b.max.y) != 0) return 2;
        if ((b.min.z - b.min.z) + (b.max.z - b.max.z) != 0) return 3;
        nb.kind = CL_AABB;
        update_box(w, id, &nb, b);      /* clw_update_to's work for an AABB staying one (its
                                         * kind only is read) */
        return 0;
    }
    sh = &w->xs[it->xs].s;
    axis = cl_shape_moved_finite(sh, d);    /* any other kind: its position points move */
    if (axis) return axis;
    cl_shape_translate(sh, d);
    clw_update_to(w, id, sh, cl_shape_aabb(sh));
    return 0;
}

const cl_shape *cl_world_shape(const cl_world *w, int id, cl_shape *tmp) {
    if (w->items[id].kind == CL_AABB) memset(tmp, 0, sizeof *tmp);     /* no stray bytes */
    return clw_shape(w, &w->items[id], tmp);
}

cl_kind cl_world_kind(const cl_world *w, int id) { return (cl_kind)w->items[id].kind; }
