/* collide core, the World's pairs: the persistent candidate-pair cache (hash set of pairs whose
 * fat boxes overlap), its refresh from the items that moved, and the sorts of cl_world_pairs. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "world_internal.h"

/* ---- pairs: persistent candidate pairs ---- */

/* Returns the home slot of pair (a, b) in a hash of mask + 1 slots. */
static unsigned phash(int a, int b, unsigned mask) {
    unsigned h = (unsigned)a * 0x9E3779B1u ^ ((unsigned)b * 0x85EBCA77u + 0x165667B1u);
    h ^= h >> 15;
    return h & mask;
}

/* Returns the hash slot holding pair (a, b), or the empty slot where it would go. */
static int ph_find(const cl_world *w, int a, int b) {
    unsigned mask = (unsigned)w->phcap - 1, h = phash(a, b, mask);
    for (;;) {
        int k = w->ph[h];
        if (k < 0 || (w->cp[k].a == a && w->cp[k].b == b)) return (int)h;
        h = (h + 1) & mask;
    }
}

/* Empties hash slot h, shifting later entries of its probe run back (linear probing). */
static void ph_erase(cl_world *w, unsigned h) {
    unsigned mask = (unsigned)w->phcap - 1, j = h;
    for (;;) {
        int k;
        unsigned home;
        j = (j + 1) & mask;
        k = w->ph[j];
        if (k < 0) break;
        home = phash(w->cp[k].a, w->cp[k].b, mask);
        /* entry k may fill slot h unless its home lies cyclically in (h, j] */
        if ((j > h && (home <= h || home > j)) || (j < h && home <= h && home > j)) {
            w->ph[h] = k;
            h = j;
        }
    }
    w->ph[h] = -1;
}

/* Rebuilds the hash with room for need pairs at load <= 1/2; CL_OK or CL_ENOMEM (unchanged). */
static int ph_rehash(cl_world *w, int need) {
    int cap = 64, i;
    int *np;
    while (cap < 2 * need) {
        if (cap > (1 << 28)) return CL_ENOMEM;
        cap *= 2;
    }
    if (cap <= w->phcap) return CL_OK;
    np = (int *)w->alloc(w->ud, NULL, 0, (size_t)cap * sizeof(int));
    if (!np) return CL_ENOMEM;
    free_buf(w, w->ph, w->phcap, sizeof(int));
    w->ph = np;
    w->phcap = cap;
    for (i = 0; i < cap; i++) np[i] = -1;
    for (i = 0; i < w->ncp; i++) w->ph[ph_find(w, w->cp[i].a, w->cp[i].b)] = i;
    return CL_OK;
}

/* Drops candidate pair k (moves the last pair into its place). */
static void cp_drop(cl_world *w, int k) {
    int last = --w->ncp;
    ph_erase(w, (unsigned)ph_find(w, w->cp[k].a, w->cp[k].b));
    if (k != last) {
        w->cp[k] = w->cp[last];
        w->ph[ph_find(w, w->cp[k].a, w->cp[k].b)] = k;
    }
}

/* Adds candidate pair (x, y) unless present; CL_OK or CL_ENOMEM (set unchanged). */
static int cp_add(cl_world *w, int x, int y) {
    int a = x < y ? x : y, b = x < y ? y : x, h;
    if (2 * (w->ncp + 1) > w->phcap && ph_rehash(w, w->ncp + 1) != CL_OK) return CL_ENOMEM;
    h = ph_find(w, a, b);
    if (w->ph[h] >= 0) return CL_OK;
    ENSURE(w->cp, w->cpcap, w->ncp + 1);
    w->cp[w->ncp].a = a;
    w->cp[w->ncp].b = b;
    w->cp[w->ncp].ga = item_gen(&w->items[a]);
    w->cp[w->ncp].gb = item_gen(&w->items[b]);
    w->ph[h] = w->ncp++;
    return CL_OK;
}

/* Adds a candidate pair for every item whose fat box overlaps the fat box of m; CL_OK or
 * CL_ENOMEM. */
static int cp_query(cl_world *w, int m, int snap) {
    int n = snap ? clw_collect_snap(w, &w->items[m].fat, -1) : clw_collect_fbox(w, &w->items[m].fat, -1), i;
    if (n < 0) return n;
    for (i = 0; i < n; i++)
        if (w->tmp[i] != m && cp_add(w, m, w->tmp[i]) != CL_OK) return CL_ENOMEM;
    return CL_OK;
}

/* cp_refresh without the tree's upkeep. */
static int cp_update(cl_world *w) {
    int i, id, snap;
    clw_flush_tree(w);
    if (w->pfull) {
        w->ncp = 0;
        for (i = 0; i < w->phcap; i++) w->ph[i] = -1;
        while (w->mhead >= 0) {         /* everything is queried below */
            w->items[w->mhead].mon = 0;
            w->mhead = w->items[w->mhead].mnext;
        }
        w->ppurge = 0;
        snap = qsnap_now(w);
        for (id = 0; id < w->cap; id++)     /* every live item (the order of the cached pairs
                                               never shows: the found pairs are sorted) */
            if (w->items[id].proxy != CL_NULLNODE && cp_query(w, id, snap) != CL_OK) return CL_ENOMEM;
        w->pfull = 0;
        return CL_OK;
    }
    if (w->ppurge) {
        for (i = 0; i < w->ncp;) {
            const cl_cpair *c = &w->cp[i];
            if (w->items[c->a].proxy == CL_NULLNODE || item_gen(&w->items[c->a]) != c->ga ||
                w->items[c->b].proxy == CL_NULLNODE || item_gen(&w->items[c->b]) != c->gb)
                cp_drop(w, i);
            else
                i++;
        }
        w->ppurge = 0;
    }
    /* many queries against the same tree: walk the box-query snapshot (built once, O(n), kept
     * for the queries that follow while the tree does not change) */
    for (i = 0, id = w->mhead; id >= 0 && i <= w->tree.leaves / 32 + 16; id = w->items[id].mnext) i++;
    snap = w->tree.leaves >= 2 && w->qn != NULL && w->qnver == w->tver;    /* kept up by clw_flush_tree */
    if (!snap) snap = id >= 0 && qsnap_now(w);
    while (w->mhead >= 0) {
        cl_item *it = &w->items[w->mhead];
        id = w->mhead;
        w->mhead = it->mnext;
        it->mon = 0;
        if (it->proxy != CL_NULLNODE && cp_query(w, id, snap) != CL_OK) {
            w->pfull = 1;
            return CL_ENOMEM;
        }
    }
    return CL_OK;
}

/* Brings the candidate set up to date: drops pairs of removed items, adds the pairs of every
 * item whose fat box changed (or of all items when the cache is invalid), then runs the tree's
 * upkeep (after the queries: a rebuild installed then leaves its box-query snapshot to the next
 * call rather than to this one), or before them the install of a rebuild whose new snapshot is
 * ready or that has no snapshot in use (clw_tree_install_first: the queries then walk the new
 * one). On failure the cache is marked invalid (rebuilt by the next call) and CL_ENOMEM
 * returned. */
static int cp_refresh(cl_world *w) {
    int done = tree_install_first(w), r = cp_update(w);
    if (!done) tree_maint(w);
    return r;
}

/* Returns 1 if pair x comes before pair y: by add order of a, then of b. */
static int pair_less(const cl_wpair *x, const cl_wpair *y) {
    return x->sa < y->sa || (x->sa == y->sa && x->sb < y->sb);
}

/* Sifts pair r down the max-heap a[0..n-1]. */
static void pair_sift(cl_wpair *a, int r, int n) {
    for (;;) {
        int c = 2 * r + 1;
        cl_wpair x;
        if (c >= n) return;
        if (c + 1 < n && pair_less(&a[c], &a[c + 1])) c++;
        if (!pair_less(&a[r], &a[c])) return;
        x = a[r]; a[r] = a[c]; a[c] = x;
        r = c;
    }
}

/* Heap-sorts the pairs by (order a, order b); the keys are unique. */
static void pair_sort(cl_wpair *a, int n) {
    int i;
    for (i = n / 2 - 1; i >= 0; i--) pair_sift(a, i, n);
    for (i = n - 1; i > 0; i--) {
        cl_wpair x = a[0];
        a[0] = a[i];
        a[i] = x;
        pair_sift(a, 0, i);
    }
}

cl_kpair *clw_kpair_sort(cl_kpair *a, cl_kpair *tmp, int n, int bits) {
    /* as few passes as 11-bit digits need, the bits spread evenly over them (28 bits: three
     * digits of 10 bits rather than 11, 11 and 6: half the counters to clear and sum) */
    int npass = (bits + 10) / 11, width = npass > 0 ? (bits + npass - 1) / npass : 1;
    int nb = 1 << width, shift, i;
    unsigned long long mask = (unsigned long long)nb - 1;
    if (n < 2) return a;
    for (shift = 0; shift < bits; shift += width) {
        int cnt[2048], sum = 0;
        cl_kpair *x;
        for (i = 0; i < nb; i++) cnt[i] = 0;
        for (i = 0; i < n; i++) cnt[(a[i].key >> shift) & mask]++;
        if (cnt[(a[0].key >> shift) & mask] == n) continue;
        for (i = 0; i < nb; i++) { int c = cnt[i]; cnt[i] = sum; sum += c; }
        for (i = 0; i < n; i++) tmp[cnt[(a[i].key >> shift) & mask]++] = a[i];
        x = a; a = tmp; tmp = x;
    }
    return a;
}

/* Pairs (Box2D's scheme): a persistent set of candidate pairs whose fat tree boxes overlap,
 * updated only for items whose fat box changed; each call drops the candidates whose fat
 * boxes no longer overlap, runs the exact narrowphase on the rest and sorts the pairs by
 * (order a, order b): by an LSD radix sort of the two orders packed into one integer while
 * every order fits 31 bits (always, short of 2^31 adds), else by a heap sort. Every
 * overlapping pair is a candidate: shapes lie inside their fat boxes, and two fat boxes can
 * only start to overlap when one of them changes, which queues its item for a tree query. */
/* how many candidate pairs ahead the contact pass prefetches the items of */
#define PAIR_AHEAD 8

int cl_world_pairs(cl_world *w) {
    int i, np = 0, bits = 0, keyed;
    cl_shape sx, sy;
    w->nres = 0;
    if (cp_refresh(w) != CL_OK) return CL_ENOMEM;
    /* narrowphase: the overlapping candidates, each as (earlier added, later added), into res,
     * or straight into kp with their sorting key while the items are at hand (radix sort) */
    while (bits < 32 && (double)(1UL << bits) <= w->nextseq) bits++;
    keyed = bits < 32;
    ENSURE(w->res, w->rescap, w->ncp > 0 ? 2 * w->ncp : 1);
    if (keyed) ENSURE(w->kp, w->kpcap, w->ncp > 0 ? 2 * w->ncp : 1);
    for (i = 0; i < w->ncp;) {
        const cl_cpair *c = &w->cp[i];
        const cl_item *x = &w->items[c->a], *y = &w->items[c->b];
        if (i + PAIR_AHEAD < w->ncp) {      /* the items of a pair further on: random, from memory */
            const cl_item *px = &w->items[c[PAIR_AHEAD].a], *py = &w->items[c[PAIR_AHEAD].b];
            WPREFETCH(&px->box);
            WPREFETCH(&px->fat);
            WPREFETCH(&py->box);
            WPREFETCH(&py->fat);
        }
        if (!fboxes_overlap(&x->fat, &y->fat)) {
            cp_drop(w, i);
            continue;
        }
        i++;
        /* two AABBs (the usual case) tested inline, as cl_aabb_overlaps_aabb */
        if (x->kind == CL_AABB && y->kind == CL_AABB
                ? (x->box.min.x <= y->box.max.x) & (y->box.min.x <= x->box.max.x) &
                  (x->box.min.y <= y->box.max.y) & (y->box.min.y <= x->box.max.y) &
                  (x->box.min.z <= y->box.max.z) & (y->box.min.z <= x->box.max.z)
                : cl_shape_overlaps(clw_shape(w, x, &sx), clw_shape(w, y, &sy))) {
            int first = x->seq < y->seq;
            if (keyed) {
                cl_kpair *pp = &w->kp[np];
                pp->a = first ? c->a : c->b;
                pp->b = first ? c->b : c->a;
                pp->key = first ? (unsigned long long)x->seq << bits | (unsigned long long)y->seq
                                : (unsigned long long)y->seq << bits | (unsigned long long)x->seq;
            } else {
                w->res[2 * np] = first ? c->a : c->b;
                w->res[2 * np + 1] = first ? c->b : c->a;
            }
            np++;
        }
    }
    /* order by (add order of a, add order of b): a radix sort of the two orders packed into one
     * integer key while every order is below 2^31, else a heap sort (keys are unique) */
    if (keyed) {
        cl_kpair *src;
        /* the second half of kp (scratch) starts at np: kp holds 2 * ncp >= 2 * np entries */
        src = clw_kpair_sort(w->kp, w->kp + np, np, 2 * bits);
        for (i = 0; i < np; i++) {
            w->res[2 * i] = src[i].a;
            w->res[2 * i + 1] = src[i].b;
        }
        w->nres = 2 * np;
        return np;
    }
    ENSURE(w->pr, w->prcap, np > 0 ? np : 1);
    for (i = 0; i < np; i++) {
        cl_wpair *pp = &w->pr[i];
        pp->a = w->res[2 * i];
        pp->b = w->res[2 * i + 1];
        pp->sa = w->items[pp->a].seq;
        pp->sb = w->items[pp->b].seq;
    }
    pair_sort(w->pr, np);
    for (i = 0; i < np; i++) {
        w->res[2 * i] = w->pr[i].a;
        w->res[2 * i + 1] = w->pr[i].b;
    }
    w->nres = 2 * np;
    return np;
}
