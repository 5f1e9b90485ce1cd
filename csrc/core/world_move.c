/* collide core, the World's sweeps and moves: the inline box-against-box sweep, cl_world_sweep,
 * and the bump-style cl_world_move (legs, responses, candidate sorting). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "world_internal.h"

/* 1 if box a lies inside box b. */
static int aabb_inside(const cl_aabb *a, const cl_aabb *b) {
    return a->min.x >= b->min.x && a->min.y >= b->min.y && a->min.z >= b->min.z &&
           a->max.x <= b->max.x && a->max.y <= b->max.y && a->max.z <= b->max.z;
}

/* ---- sweeps (cl_world_sweep, move) ---- */

/* One axis of sweep_boxes: the same interval and updates as sweep.c's axis_interval and
 * sweep_aabb loop body (a resting axis gives (-inf, inf), which changes neither lo, hi nor best,
 * so it only decides separation); 0 when the axis separates the boxes for every t. */
WINLINE int box_axis(double a0, double a1, double b0, double b1, double v, int i, double *lo,
                     double *hi, int *best) {
    double l, h;
    if (v == 0) return (a0 < b1 && a1 > b0) || (a0 == a1 && b0 == b1 && a0 == b0);
    if (v > 0) { l = (b0 - a1) / v; h = (b1 - a0) / v; }
    else { l = (b1 - a0) / v; h = (b0 - a1) / v; }
    if (l > *lo) { *lo = l; *best = i; }
    if (h < *hi) *hi = h;
    return 1;
}

/* cl_sweep_shapes for two AABBs, inline (the world's usual case, most candidates separated):
 * the very operations of sweep.c's sweep_aabb and finish, so the result is bit-identical
 * (checked against cl_sweep_shapes on 20 million random pairs, touching, flat and resting axes
 * included); written out here to save the call, the shape dispatch and the struct copies, which
 * cost more than the arithmetic. sweep.c's sweep_aabb must change with it. */
WINLINE void sweep_boxes(const cl_aabb *a, cl_vec3 d, const cl_aabb *b, cl_sweep *s) {
    double lo = -HUGE_VAL, hi = HUGE_VAL;
    int best = -1;
    if (!box_axis(a->min.x, a->max.x, b->min.x, b->max.x, d.x, 0, &lo, &hi, &best) ||
        !box_axis(a->min.y, a->max.y, b->min.y, b->max.y, d.y, 1, &lo, &hi, &best) ||
        !box_axis(a->min.z, a->max.z, b->min.z, b->max.z, d.z, 2, &lo, &hi, &best)) {
        lo = 1;
        hi = 0;
    }
    if (lo < 0 && hi > 0) {
        s->state = CL_TOI_OVERLAPPED; s->t = 0; s->n = cl_v3(0, 0, 0);
    } else if (lo < hi && lo >= 0 && lo < 1) {
        double sg = (best == 0 ? d.x : best == 1 ? d.y : d.z) > 0 ? -1.0 : 1.0;
        s->state = CL_TOI_TOUCHING;
        s->t = lo == 0 ? 0.0 : lo;
        /* best >= 0 here: lo >= 0 > -inf was set by a moving axis */
        s->n = cl_v3(best == 0 ? sg : 0, best == 1 ? sg : 0, best == 2 ? sg : 0);
    } else {
        s->state = CL_TOI_SEPARATED; s->t = 1; s->n = cl_v3(0, 0, 0);
    }
}

/* cl_sweep_shapes(a, d, b), with two AABBs inline. */
WINLINE void sweep_pair(const cl_shape *a, cl_vec3 d, const cl_shape *b, cl_sweep *s) {
    if (a->kind == CL_AABB && b->kind == CL_AABB) sweep_boxes(&a->u.aabb, d, &b->u.aabb, s);
    else *s = cl_sweep_shapes(a, d, b);
}

/* cl_interiors_overlap(a, b) (the sweep by 0 overlapped), with two AABBs inline: every axis a
 * resting one of sweep_aabb, all of them passing gives (-inf, inf), i.e. OVERLAPPED. */
WINLINE int interiors_overlap(const cl_shape *a, const cl_shape *b) {
    if (a->kind == CL_AABB && b->kind == CL_AABB) {
        const cl_aabb *x = &a->u.aabb, *y = &b->u.aabb;
        return ((x->min.x < y->max.x && x->max.x > y->min.x) ||
                (x->min.x == x->max.x && y->min.x == y->max.x && x->min.x == y->min.x)) &&
               ((x->min.y < y->max.y && x->max.y > y->min.y) ||
                (x->min.y == x->max.y && y->min.y == y->max.y && x->min.y == y->min.y)) &&
               ((x->min.z < y->max.z && x->max.z > y->min.z) ||
                (x->min.z == x->max.z && y->min.z == y->max.z && x->min.z == y->min.z));
    }
    return cl_interiors_overlap(a, b);
}

/* interiors_overlap(next, the shape of item o) at the end of a leg: from the candidates the
 * leg's sweep of o kept when o is that mesh item (cl_pmesh_overlaps_kept, the same answer). */
WINLINE int end_overlap(const cl_world *w, const cl_shape *next, int o) {
    cl_shape sh_;
    const cl_shape *s = clw_shape(w, &w->items[o], &sh_);
    if (s->kind == CL_MESH && w->mkeep.ok && w->mkeepitem == o) {
        int r = cl_pmesh_overlaps_kept(&s->u.mesh, next, &w->mkeep);
        if (r >= 0) return r;
    }
    return interiors_overlap(next, s);
}

/* Returns the box enclosing shape s at its place and moved by d, widened for rounding (inline:
 * once or twice per move, the call and the struct copies cost about a third of it). */
WINLINE cl_aabb swept_box_of(const cl_shape *s, const cl_aabb *sb, cl_vec3 d) {
    cl_aabb b, e;
    if (s->kind == CL_AABB) {
        /* the usual mover, inline: the same sums, cl_aabb_merge's comparisons and allowance
         * (an AABB has no OBB part) */
        const cl_aabb *a = &s->u.aabb;
        double v;
        v = a->min.x + d.x; b.min.x = a->min.x < v ? a->min.x : v;
        v = a->min.y + d.y; b.min.y = a->min.y < v ? a->min.y : v;
        v = a->min.z + d.z; b.min.z = a->min.z < v ? a->min.z : v;
        v = a->max.x + d.x; b.max.x = a->max.x > v ? a->max.x : v;
        v = a->max.y + d.y; b.max.y = a->max.y > v ? a->max.y : v;
        v = a->max.z + d.z; b.max.z = a->max.z > v ? a->max.z : v;
        v = box_tol(&b);                    /* widen(&b, 0, shape_tol(NULL, &b)) in place: 0 + v is v */
        b.min.x -= v; b.min.y -= v; b.min.z -= v;
        b.max.x += v; b.max.y += v; b.max.z += v;
        return b;
    }
    b = *sb;
    e = b;
    e.min.x += d.x; e.min.y += d.y; e.min.z += d.z;
    e.max.x += d.x; e.max.y += d.y; e.max.z += d.z;
    b = cl_aabb_merge(&b, &e);
    return widen(&b, 0, shape_tol(s, &b));
}

/* swept_box_of with s's own box (read only when s is not an AABB). */
WINLINE cl_aabb swept_box(const cl_shape *s, cl_vec3 d) {
    cl_aabb b;
    if (s->kind != CL_AABB) b = cl_shape_aabb(s);
    return swept_box_of(s, s->kind == CL_AABB ? &s->u.aabb : &b, d);
}

int cl_world_sweep(cl_world *w, const cl_shape *s, cl_vec3 d, int skip, double aftert,
                   double afterseq, cl_whit *out) {
    cl_aabb q = swept_box(s, d);
    int n = clw_collect_box(w, &q, skip), i, found = 0;
    double bt = 0, bseq = 0;
    cl_shape sh_;
    if (n < 0) return n;
    for (i = 0; i < n; i++) {
        int id = w->tmp[i];
        const cl_item *it = &w->items[id];
        cl_sweep sw;
        if (id == skip) continue;
        sweep_pair(s, d, clw_shape(w, it, &sh_), &sw);
        if (sw.state == CL_TOI_SEPARATED) continue;
        if (sw.t < aftert || (sw.t == aftert && it->seq <= afterseq)) continue;
        if (found && (sw.t > bt || (sw.t == bt && it->seq > bseq))) continue;
        found = 1;
        bt = sw.t;
        bseq = it->seq;
        out->item = id;
        out->t = sw.t;
        out->n = sw.n;
    }
    return found;
}

int cl_world_sweepall(cl_world *w, const cl_shape *s, cl_vec3 d, int skip) {
    cl_aabb q = swept_box(s, d);
    int n = clw_collect_box(w, &q, skip), i, k = 0;
    cl_shape sh_;
    w->nhits = 0;
    if (n < 0) return n;
    ENSURE(w->hits, w->hitcap, n);
    for (i = 0; i < n; i++) {
        int id = w->tmp[i];
        cl_sweep sw;
        if (id == skip) continue;
        sweep_pair(s, d, clw_shape(w, &w->items[id], &sh_), &sw);
        if (sw.state == CL_TOI_SEPARATED) continue;
        w->hits[k].item = id;
        w->hits[k].t = sw.t;
        w->hits[k].n = sw.n;
        k++;
    }
    sort_elems(w->hits, k, sizeof(cl_whit), clw_less_hit, w);
    w->nhits = k;
    return k;
}

/* ---- move ---- */

#define MC_IGNORED 1
#define MC_CROSSED 2
#define MC_RANKED 4     /* s.rank is known (the seams rule) */

/* 1 if other was crossed earlier in this move. */
static int was_crossed(const cl_world *w, int other) {
    int i;
    for (i = 0; i < w->ncols; i++)
        if (w->cols[i].other == other && w->cols[i].type == CL_RESP_CROSS) return 1;
    return 0;
}

/* Appends a collision; CL_OK or CL_ENOMEM. */
static int push_col(cl_world *w, int other, cl_resp type, double t, cl_vec3 n) {
    cl_col *c;
    ENSURE(w->cols, w->colcap, w->ncols + 1);
    c = &w->cols[w->ncols++];
    c->other = other;
    c->type = type;
    c->t = t;
    c->n = n;
    return CL_OK;
}

/* Returns s translated by d. */
static cl_shape moved(const cl_shape *s, cl_vec3 d) {
    cl_shape r = *s;
    cl_shape_translate(&r, d);
    return r;
}

/* Returns the coordinate i of v. */
static double vget(cl_vec3 v, int i) { return i == 0 ? v.x : i == 1 ? v.y : v.z; }
/* Sets the coordinate i of v. */
static void vset(cl_vec3 *v, int i, double x) {
    if (i == 0) v->x = x; else if (i == 1) v->y = x; else v->z = x;
}

/* Moves box nb (the mover after a leg from cb along rem) on axis i so that its face lies on
 * face coordinate f of an obstacle: max side when rem_i > 0, min side otherwise. */
static void snap_face(cl_aabb *nb, int i, double rem_i, double f) {
    double lo = vget(nb->min, i), hi = vget(nb->max, i);
    if (rem_i > 0) {
        lo += f - hi; hi = f;
        if (lo > hi) lo = hi;
    } else {
        hi += f - lo; lo = f;
        if (hi < lo) hi = lo;
    }
    vset(&nb->min, i, lo);
    vset(&nb->max, i, hi);
}

/* Pushes AABB nb (mover moved from cb along rem) out of AABB c on the axis it entered last;
 * returns 0 if no axis qualifies. */
static int snap_out(cl_aabb *nb, const cl_aabb *cb, cl_vec3 rem, const cl_aabb *c) {
    int i, best = -1;
    double beste = -HUGE_VAL;
    for (i = 0; i < 3; i++) {
        double v = vget(rem, i), e;
        if (v > 0 && vget(cb->max, i) <= vget(c->min, i)) e = (vget(c->min, i) - vget(cb->max, i)) / v;
        else if (v < 0 && vget(cb->min, i) >= vget(c->max, i)) e = (vget(c->max, i) - vget(cb->min, i)) / v;
        else continue;
        if (e > beste) { beste = e; best = i; }
    }
    if (best < 0) return 0;
    snap_face(nb, best, vget(rem, best), vget(rem, best) > 0 ? vget(c->min, best) : vget(c->max, best));
    return 1;
}

/* Returns the gap a mover keeps off a non-box contact: 2^-40 of the largest |coordinate| of
 * its box (plus 1e-300, so it is never 0). It never exceeds the rounding allowance box_tol adds
 * to the leg's swept box (EPS_REL > 2^-40 of coordinates at least as large, the same 1e-300), so
 * a leg's end, backed off by it, stays inside the box whose items were the leg's candidates.
 * (It was 2^-40 of the largest |coordinate| plus 1: a sphere of radius 1e-49 moving 1e-48 into
 * another backed off 9e-13, outside that box, into an item no test had seen; fuzz_world.) */
static double move_gap(const cl_aabb *sb) {
    const cl_aabb b = *sb;              /* cl_shape_aabb(s), the caller's */
    double m = cl_maxabs3(cl_maxabs3(b.min.x, b.min.y, b.min.z), cl_maxabs3(b.max.x, b.max.y, b.max.z), 0);
    return m * 0x1p-40 + 1e-300;        /* ldexp(m, -40): one rounding of the same exact value */
}

/* One candidate m of a leg_end pass over next: 0 when it is skipped (overlapped at the leg's
 * start, ignored, crossed), clear of next, or an AABB pair next was pushed out of (*changed
 * set; a world-axis OBB counts as its box); 1 when next stays inside it. */
WINLINE int end_cand(const cl_world *w, const cl_mcand *m, const cl_shape *cur, cl_vec3 rem,
                     cl_shape *next, int *changed) {
    cl_shape sh_;
    const cl_shape *o = clw_shape(w, &w->items[m->item], &sh_);
    cl_aabb ob;
    if (m->s.state == CL_TOI_OVERLAPPED || (m->flags & (MC_IGNORED | MC_CROSSED))) return 0;
    if (!end_overlap(w, next, m->item)) return 0;
    if (next->kind == CL_AABB && cl_shape_boxlike(o, &ob) &&
        snap_out(&next->u.aabb, &cur->u.aabb, rem, &ob) && !interiors_overlap(next, o)) {
        *changed = 1;
        return 0;
    }
    return 1;
}

/* The rank of the contact at t of AABB a moved by d with AABB b: the moving axes whose entry
 * time is t (the very quotients of box_axis, so equal exactly where sweep.c's sweep_aabb counts
 * its ties). */
WINLINE int box_rank(const cl_aabb *a, cl_vec3 d, const cl_aabb *b, double t) {
    int k = 0;
    if (d.x != 0) k += (d.x > 0 ? (b->min.x - a->max.x) / d.x : (b->max.x - a->min.x) / d.x) == t;
    if (d.y != 0) k += (d.y > 0 ? (b->min.y - a->max.y) / d.y : (b->max.y - a->min.y) / d.y) == t;
    if (d.z != 0) k += (d.z > 0 ? (b->min.z - a->max.z) / d.z : (b->max.z - a->min.z) / d.z) == t;
    return k;
}

/* Returns the contact rank of touching candidate m (mover cur moved along rem; 1 face, 2 edge,
 * 3 corner), computed once: sweep_boxes leaves it unset, and ties are rare enough to find it
 * only for them (two AABBs inline: a mover on a floor of tiles ties at every seam it spans). */
static int mc_rank(const cl_world *w, const cl_shape *cur, cl_vec3 rem, cl_mcand *m) {
    if (!(m->flags & MC_RANKED)) {
        cl_shape sh_;
        const cl_shape *o = clw_shape(w, &w->items[m->item], &sh_);
        m->flags |= MC_RANKED;
        if (cur->kind == CL_AABB && o->kind == CL_AABB)
            m->s.rank = box_rank(&cur->u.aabb, rem, &o->u.aabb, m->s.t);
        else
            m->s.rank = cl_sweep_shapes(cur, rem, o).rank;
    }
    return m->s.rank;
}

/* The seams rule: 1 when touching candidate m goes before p, which touches at the same t: the
 * lower rank first (a face before an edge before a corner), then add order. */
static int tie_first(const cl_world *w, const cl_shape *cur, cl_vec3 rem, cl_mcand *m, cl_mcand *p) {
    int rm = mc_rank(w, cur, rem, m), rp = mc_rank(w, cur, rem, p);
    if (rm != rp) return rm < rp;
    return w->items[m->item].seq < w->items[p->item].seq;
}

/* Orders move candidates by add order. */
static int less_mcseq(const void *ctx, const void *a, const void *b) {
    const cl_world *w = (const cl_world *)ctx;
    return w->items[((const cl_mcand *)a)->item].seq < w->items[((const cl_mcand *)b)->item].seq;
}

/* 1 when next is clear of every candidate end_cand does not skip (tested in any order: with
 * none inside, a pass changes nothing whatever its order). */
static int end_clear(const cl_world *w, const cl_shape *next, int nt, int base, int k) {
    int i;
    for (i = 0; i < nt; i++) {
        const cl_mcand *m = &w->mc[i];
        if (m->s.state == CL_TOI_OVERLAPPED || (m->flags & (MC_IGNORED | MC_CROSSED))) continue;
        if (end_overlap(w, next, m->item)) return 0;
    }
    for (i = base; i < base + k; i++) {
        const cl_mcand *m = &w->mc[i];
        if (m->s.state != CL_TOI_SEPARATED) continue;   /* touching: above; overlapped: skipped */
        if (end_overlap(w, next, m->item)) return 0;
    }
    return 1;
}

/* Sets *next (not cur; for an AABB mover a shape whose other bytes are already cur's, see
 * cl_world_move) to where the mover cur ends a leg along rem that stops at t (blocking candidate
 * blk or -1), never leaving its interior inside a candidate it has not ignored or crossed: AABB
 * pairs (an AABB mover and an AABB or world-axis OBB) are snapped face to face; other contacts keep a tiny gap along the normal and back off.
 * The candidates are visited in the order the responses were asked (w->mc[0..nt): the touching
 * ones by t, ties by add order), then the others (the non-touching ones of w->mc[base..base+k),
 * which cl_world_move leaves in query order: they are sorted by add order here, only when next
 * meets one of them, the only case where the order can matter: snap_out changes next). */
WINLINE void leg_end(cl_world *w, const cl_shape *cur, const cl_aabb *cb, cl_vec3 rem, double t, int blk, int nt,
                     int base, int k, cl_shape *next) {
    double tt = t, delta = 0;
    double gap = 0;
    cl_vec3 n = cl_v3(0, 0, 0);
    cl_aabb ob;                             /* the blocker's box when it is box-like */
    cl_shape sh_;
    int iter, i, pass, sorted = 0, badi = 0, nudged = 0;
    if (blk >= 0) {
        const cl_shape *o = clw_shape(w, &w->items[w->mc[blk].item], &sh_);
        n = w->mc[blk].s.n;
        if (!(cur->kind == CL_AABB && cl_shape_boxlike(o, &ob))) gap = move_gap(cb);
    }
    for (iter = 0; iter < 80; iter++) {
        int bad = 0;
        cl_vec3 dd;
        if (tt <= 0) break;                   /* the leg's start is clear of every candidate */
        dd = tt == 1 ? rem : cl_v3(tt * rem.x, tt * rem.y, tt * rem.z);
        if (gap > 0) { dd.x += gap * n.x; dd.y += gap * n.y; dd.z += gap * n.z; }
        if (cur->kind == CL_AABB) {         /* moved(), writing only what an AABB uses */
            const cl_aabb *c = &cur->u.aabb;    /* the sums of cl_shape_translate */
            next->kind = CL_AABB;
            next->u.aabb.min = cl_v3(c->min.x + dd.x, c->min.y + dd.y, c->min.z + dd.z);
            next->u.aabb.max = cl_v3(c->max.x + dd.x, c->max.y + dd.y, c->max.z + dd.z);
        } else {
            *next = moved(cur, dd);
        }
        if (blk >= 0 && tt == t && gap == 0) {
            /* AABB on an AABB or a world-axis OBB: put the face exactly on the obstacle's face */
            const cl_aabb *c = &ob;
            int a = n.x != 0 ? 0 : n.y != 0 ? 1 : 2;
            double f = vget(n, a) > 0 ? vget(c->max, a) : vget(c->min, a);
            snap_face(&next->u.aabb, a, -vget(n, a), f);
        }
        if (end_clear(w, next, nt, base, k)) return;   /* what the first pass would find */
        if (!sorted) {                      /* by add order (unique keys: any sort agrees) */
            sort_elems(&w->mc[base], k, sizeof(cl_mcand), less_mcseq, w);
            sorted = 1;
        }
        for (pass = 0; pass < 3; pass++) {
            int changed = 0;
            bad = 0;
            for (i = 0; i < nt && !bad; i++)
                if ((bad = end_cand(w, &w->mc[i], cur, rem, next, &changed))) badi = i;
            for (i = base; i < base + k && !bad; i++)
                if (w->mc[i].s.state != CL_TOI_TOUCHING &&
                    (bad = end_cand(w, &w->mc[i], cur, rem, next, &changed)))
                    badi = i;
            if (bad || !changed) break;
        }
        if (!bad) return;
        if (gap > 0 && !nudged) {
            /* once: an end inside a candidate by no more than two gaps is pushed out by its depth
             * if that clears it of all (the sweep calls a start that deep in a face a graze: a
             * capsule slid 2^-40 off a wall into a slot as wide as itself sat that far inside the
             * ledge opposite, and every leg down the slot backed off to its start). The push,
             * with the gap, stays inside the leg's query box (cl_world_move widens it by 3
             * allowances more, each at least a gap). */
            double dep;
            cl_vec3 pn;
            nudged = 1;
            if (cl_penetration(next, clw_shape(w, &w->items[w->mc[badi].item], &sh_), &dep, &pn) && dep <= 2 * gap) {
                cl_shape_translate(next, cl_v3(dep * pn.x, dep * pn.y, dep * pn.z));
                if (end_clear(w, next, nt, base, k)) return;
            }
        }
        if (delta == 0) delta = ldexp(tt, -50) + 1e-300;
        tt -= delta;
        delta *= 4;
    }
    *next = *cur;
}

/* cl_vfinite(v) without branches: x - x is +0 for finite x, NaN otherwise, so the sum is 0
 * exactly when every component is finite. */
WINLINE int vfin(cl_vec3 v) {
    return (v.x - v.x) + (v.y - v.y) + (v.z - v.z) == 0;
}

/* 1 if the placed shape s (a moved copy of a valid shape) is finite: its position points (a
 * point plus 0 is finite exactly when the point is); sizes and axes never change in a move. */
static int placed_finite(const cl_shape *s) {
    if (s->kind == CL_AABB) return vfin(s->u.aabb.min) & vfin(s->u.aabb.max);  /* inline, the same test */
    return cl_shape_moved_finite(s, cl_v3(0, 0, 0)) == 0;
}

/* 0 when item o cannot meet a leg whose swept box is q: the box that encloses its shape with
 * the rounding allowance (its tree leaf, or for a stale leaf that widened tight box, as
 * clw_collect_box tests it) misses q. The same exclusion a query of q makes (clw_collect_box tests
 * stale leaves exactly so), so such items are SEPARATED from the leg's sweep and clear of its
 * end; tested in doubles (no float rounding of q: a leaf exactly at q's rounded-out bound,
 * which a float test would keep, encloses that allowance box, which misses q). */
static int move_near(const cl_world *w, int o, const cl_aabb *q) {
    const cl_item *it = &w->items[o];
    cl_aabb tb;
    if (!it->dirty) {
        const cl_fbox *f = &it->fat;
        return ((double)f->lo[0] <= q->max.x) & ((double)f->hi[0] >= q->min.x) &
               ((double)f->lo[1] <= q->max.y) & ((double)f->hi[1] >= q->min.y) &
               ((double)f->lo[2] <= q->max.z) & ((double)f->hi[2] >= q->min.z);
    }
    tb = widen(&it->box, 0, item_tol(w, it));
    return tb.min.x <= q->max.x && tb.max.x >= q->min.x && tb.min.y <= q->max.y &&
           tb.max.y >= q->min.y && tb.min.z <= q->max.z && tb.max.z >= q->min.z;
}

/* Returns cl_shape_aabb(s): an AABB's own box in place (no copy: its coordinates were just
 * stored one by one, and a copy's wider loads would wait for them), else that box made into *b.
 * Made once for each shape a move's mover takes, and read by everything that wanted it (the
 * leg's swept box, the mesh sweep's kept box, move_gap, end_skippable, the item's box at the
 * end). */
static const cl_aabb *cur_box(const cl_shape *s, cl_aabb *b) {
    if (s->kind == CL_AABB) return &s->u.aabb;
    *b = cl_shape_aabb(s);
    return b;
}

/* 1 when a last leg's end may be left uncomputed (need answered 0): the end, its start moved by
 * at most the leg plus a few gaps, is then certainly finite (coordinates and leg under 2^900), so
 * the leg's collision is pushed as when leg_end runs. */
static int end_skippable(const cl_shape *cur, const cl_aabb *cb, cl_vec3 rem) {
    cl_aabb b;
    if (cur->kind == CL_MESH) return 0;
    b = *cb;                            /* cl_shape_aabb(cur), the caller's */
    return cl_maxabs3(cl_maxabs3(b.min.x, b.min.y, b.min.z), cl_maxabs3(b.max.x, b.max.y, b.max.z),
                      cl_maxabs3(rem.x, rem.y, rem.z)) <= 0x1p900;
}

/* When slides along surfaces of unit normals pn then nn meet in a crease the slide rule must
 * handle, its line's direction pn x nn in *e and its squared length (> 2^-40), else 0: the
 * surfaces at an angle, neither at right angles (cl_dot 0: slid one after the other, exactly as
 * ever) nor within 2^-20 of each other's plane (the same face met again, as a sphere's sweep
 * against an OBB's face reports a second contact at t = 0, or two faces parallel to rounding,
 * whose cross product is rounding noise: a crease line of zero or of noise stopped the move
 * dead; found by review rev11: 392 of 2,000 sphere moves on an OBB ramp). */
static double crease_of(cl_vec3 pn, cl_vec3 nn, cl_vec3 *e) {
    double ee;
    if (cl_dot(pn, nn) == 0) return 0;
    *e = cl_cross(pn, nn);
    ee = cl_dot(*e, *e);
    return ee > 0x1p-40 ? ee : 0;
}

/* The box c moved by d (a free leg's end: the same sums wherever it is made). */
WINLINE cl_aabb aabb_moved(const cl_aabb *c, cl_vec3 d) {
    cl_aabb b;
    b.min = cl_v3(c->min.x + d.x, c->min.y + d.y, c->min.z + d.z);
    b.max = cl_v3(c->max.x + d.x, c->max.y + d.y, c->max.z + d.z);
    return b;
}

/* Keeps a leg's query results (w->tmp) in w->mq by swapping the two buffers (a filter may run
 * queries of its own, which reuse w->tmp). */
WINLINE void keep_query(cl_world *w) {
    int *tq = w->tmp, tcap = w->tmpcap;
    w->tmp = w->mq; w->tmpcap = w->mqcap;
    w->mq = tq; w->mqcap = tcap;
}

/* The box a leg's candidates are queried in: the swept box, with room for leg_end's push out of a
 * graze (its comment). */
WINLINE cl_aabb leg_query_box(const cl_shape *cur, const cl_aabb *cb, cl_vec3 rem) {
    cl_aabb q = swept_box_of(cur, cb, rem);
    double e = 3 * box_tol(&q);
    q.min.x -= e; q.min.y -= e; q.min.z -= e;
    q.max.x += e; q.max.y += e; q.max.z += e;
    return q;
}

/* cl_world_move's body; need (NULL: none) as cl_world_move_ends says. pre >= 0: the first leg's
 * query was made (clw_move_commitfree) in the box *preq, its pre candidates are in w->tmp. */
WINLINE int move_legs(cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx, int commit,
                      cl_needend need, void *nctx, cl_vec3 *actual, int pre, const cl_aabb *preq) {
    /* the mover before and after each leg: two buffers swapped, not copied */
    cl_shape sh[2], *cur = &sh[0], *nxt = &sh[1], sh_;
    cl_vec3 rem = d, p0, p1;
    cl_aabb qb = w->items[id].box;      /* set by the first query (nq < 0 until then) */
    cl_aabb cbuf;                       /* cl_shape_aabb(cur) when cur is not an AABB */
    const cl_aabb *cb;                  /* cl_shape_aabb(cur), made once a shape (cur_box) */
    int leg, nq = -1, ncross = 0;      /* ncross: candidates crossed so far (was_crossed) */
    /* the crease rule (below): the normal of the last leg's slide (havepn) and what that leg
     * wanted to make before its slide took the part along that normal out (want) */
    cl_vec3 pn = cl_v3(0, 0, 0), want = cl_v3(0, 0, 0);
    int havepn = 0;
    w->ncols = 0;
    if (w->items[id].kind == CL_AABB) {     /* clw_shape's box, written without its copy */
        sh[0].kind = sh[1].kind = CL_AABB;
        sh[0].u.aabb = sh[1].u.aabb = w->items[id].box;
    } else {
        sh[0] = sh[1] = w->xs[w->items[id].xs].s;
    }
    /* a sphere's or capsule's item box is cl_shape_aabb of its stored shape: every writer of the
     * two (cl_world_add, clw_update_to's callers: cl_world_update, cl_world_translate, the end of
     * this function) stores the shape and that function's box of it together (a mesh item's box
     * is its mesh's, which is not stored with it: computed) */
    if (cur->kind == CL_SPHERE || cur->kind == CL_CAPSULE) cbuf = w->items[id].box, cb = &cbuf;
    else cb = cur_box(cur, &cbuf);
    for (leg = 0; leg < MAX_LEGS; leg++) {
        cl_aabb q;
        int n, i, j, k = 0, nt = 0, blk = -1, reuse = 0;
        cl_resp resp = CL_RESP_SLIDE;
        double tb = 1;
        if (rem.x == 0 && rem.y == 0 && rem.z == 0) break;
        w->mkeep.ok = 0;
        q = pre >= 0 ? *preq : leg_query_box(cur, cb, rem);
        if (nq >= 0 && aabb_inside(&q, &qb)) {
            /* reused candidates (query order kept) are narrowed to those that can meet this
             * leg (move_near): the others are not swept again */
            reuse = 1;
        } else {
            /* a leg whose swept box lies inside the last query's box (a slide along an axis
             * normal: the usual case) reuses its candidates, kept in w->mq in query order (a
             * filter may run queries of its own, which reuse w->tmp: the buffers are swapped,
             * not copied). The add order is not needed here: the touching candidates are
             * ordered below by t and add order, and leg_end sorts the others only when the
             * order can matter. */
            if (pre >= 0) {
                n = pre;                /* this leg's query (leg 0: the same box), made already */
                pre = -1;
            } else {
                n = clw_collect_box(w, &q, id);
                if (n < 0) return n;
            }
            keep_query(w);
            nq = n;
            qb = q;
        }
        ENSURE(w->mc, w->mccap, 2 * nq);
        /* sweeps into the upper half (query order); each touching candidate is also copied
         * into the lower half, kept sorted by t, ties by add order: the order of the responses */
        for (i = 0; i < nq; i++) {
            int o = w->mq[i];
            cl_mcand *m;
            if (o == id || (reuse && !move_near(w, o, &q)) || (ncross > 0 && was_crossed(w, o)))
                continue;
            m = &w->mc[nq + k++];
            m->item = o;
            m->flags = 0;
            if (w->items[o].kind == CL_MESH && (cur->kind == CL_CAPSULE || cur->kind == CL_SPHERE)) {
                /* the same sweep, its candidate triangles kept for the end checks (end_overlap) */
                m->s = cl_pmesh_sweep_keep_box(&w->xs[w->items[o].xs].s.u.mesh, cur, cb, rem, &w->mkeep);
                w->mkeepitem = o;
            } else {
                sweep_pair(cur, rem, clw_shape(w, &w->items[o], &sh_), &m->s);
            }
            if (m->s.state == CL_TOI_TOUCHING) {
                double st = m->s.t;
                for (j = nt++; j > 0 && (st < w->mc[j - 1].s.t ||
                                         (st == w->mc[j - 1].s.t && tie_first(w, cur, rem, m, &w->mc[j - 1])));
                     j--)
                    w->mc[j] = w->mc[j - 1];
                w->mc[j] = *m;
            }
        }
        w->nmc = k;
        for (i = 0; i < nt; i++) {
            cl_resp r = respond ? respond(ctx, id, w->mc[i].item) : CL_RESP_SLIDE;
            if (r == CL_RESP_IGNORE) { w->mc[i].flags |= MC_IGNORED; continue; }
            if (r == CL_RESP_CROSS) {
                w->mc[i].flags |= MC_CROSSED;
                if (push_col(w, w->mc[i].item, CL_RESP_CROSS, w->mc[i].s.t, w->mc[i].s.n) != CL_OK)
                    return CL_ENOMEM;
                ncross++;
                continue;
            }
            blk = i;
            resp = r;
            break;
        }
        if (blk >= 0) tb = w->mc[blk].s.t;
        if (need && (blk < 0 || resp == CL_RESP_TOUCH) &&
            !need(nctx, cur, rem, tb, blk >= 0 ? &w->mc[blk].s.n : NULL) && end_skippable(cur, cb, rem)) {
            /* the last leg (nothing left after a touch or no block), its end not wanted: the
             * collision as below, the end and *actual left at the leg's start */
            if (blk >= 0 && push_col(w, w->mc[blk].item, resp, tb, w->mc[blk].s.n) != CL_OK)
                return CL_ENOMEM;
            break;
        }
        {
            cl_shape *tmp;
            cl_vec3 left = cl_v3(0, 0, 0);
            if (k == 0 && cur->kind == CL_AABB) {
                /* a free leg of a box (no candidate: nothing blocks it, nothing to clear): what
                 * leg_end finds, without it: the box moved by rem (the same sums), kept if finite */
                nxt->kind = CL_AABB;
                nxt->u.aabb = aabb_moved(&cur->u.aabb, rem);
                if (!placed_finite(nxt)) break;
            } else {
                leg_end(w, cur, cb, rem, tb, blk, nt, nq, k, nxt);
                /* coordinates near DBL_MAX: a leg (or a bounce's reflection below) can overflow;
                 * the move then ends where it is, so an item never gets an infinite or NaN shape
                 * (found with moves of 1.7e308 from 1e308: inf and NaN end positions) */
                if (!placed_finite(nxt)) break;
            }
            if (blk >= 0) {
                cl_vec3 nn = w->mc[blk].s.n;
                double f = 1 - tb, dn;
                if (push_col(w, w->mc[blk].item, resp, tb, nn) != CL_OK) return CL_ENOMEM;
                left = cl_v3(f * rem.x, f * rem.y, f * rem.z);
                dn = left.x * nn.x + left.y * nn.y + left.z * nn.z;
                if (resp == CL_RESP_SLIDE) {
                    cl_vec3 raw = left, e = cl_v3(0, 0, 0);
                    double ee = havepn ? crease_of(pn, nn, &e) : 0;
                    left.x -= dn * nn.x; left.y -= dn * nn.y; left.z -= dn * nn.z;
                    /* an axis normal leaves exactly nothing along that axis; only an exact
                     * one: a normal such as (-1, 1e-11, 0) also has -1 there, and zeroing x
                     * would undo the slide's tiny x that makes it perpendicular, so the same
                     * contact came back at t = 0 for every leg (a capsule in a corner) */
                    if ((nn.x == 1 || nn.x == -1) && nn.y == 0 && nn.z == 0) left.x = 0;
                    if ((nn.y == 1 || nn.y == -1) && nn.x == 0 && nn.z == 0) left.y = 0;
                    if ((nn.z == 1 || nn.z == -1) && nn.x == 0 && nn.y == 0) left.z = 0;
                    if (ee > 0) {
                        /* sliding along the last leg's surface (normal pn) into one at an angle
                         * to it: a crease. This leg's motion already lies along pn, so sliding it
                         * along nn too could lift it off pn (a ramp meeting a wall: the mover
                         * rose off the ramp, came back down the next move and rose again,
                         * shaking by 0.0127 a move) or send it back into pn (legs growing by 4x
                         * at a time along the crease until MAX_LEGS ran out: the move stalled).
                         * What the last leg wanted (want, the rest of it) slides along nn alone
                         * when that keeps off pn, else along the crease line (pn x nn), the
                         * motion closest to it that enters neither: the same for orthogonal
                         * surfaces, whose slides keep their exact arithmetic above */
                        cl_vec3 des = cl_mul(want, f), a = des;
                        double an = cl_dot(des, nn);
                        if (an < 0) a = cl_sub(des, cl_mul(nn, an));
                        left = cl_dot(a, pn) >= 0 ? a : cl_mul(e, cl_dot(des, e) / ee);
                        raw = des;
                    }
                    pn = nn;
                    want = raw;
                    havepn = 1;
                } else if (resp == CL_RESP_BOUNCE) {
                    left.x -= 2 * dn * nn.x; left.y -= 2 * dn * nn.y; left.z -= 2 * dn * nn.z;
                    havepn = 0;
                } else {
                    left = cl_v3(0, 0, 0);
                }
            }
            tmp = cur; cur = nxt; nxt = tmp;
            cb = cur_box(cur, &cbuf);
            rem = vfin(left) ? left : cl_v3(0, 0, 0);
        }
    }
    p0 = cl_shape_pos(clw_shape(w, &w->items[id], &sh_));
    p1 = cl_shape_pos(cur);
    *actual = cl_v3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z);
    w->mend = *cur;
    /* cl_world_update(w, id, cur); an AABB is its own box (cl_shape_aabb). commit 2: only a move
     * that met nothing (clw_move_commitfree) */
    if (commit == 1 || (commit == 2 && w->ncols == 0)) clw_update_to(w, id, cur, *cb);
    return w->ncols;
}

int cl_world_move(cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx, int commit,
                  cl_vec3 *actual) {
    return move_legs(w, id, d, respond, ctx, commit, NULL, NULL, actual, -1, NULL);
}

/* clw_move_commitfree's general case: move_legs (commit 2), pre and preq as there; out of line,
 * so that a free move's call does not set up move_legs' frame. */
WNOINLINE int commitfree_legs(cl_world *w, int id, cl_vec3 d, cl_vec3 *actual, int pre, const cl_aabb *preq) {
    return move_legs(w, id, d, NULL, NULL, 2, NULL, NULL, actual, pre, preq);
}

int clw_move_commitfree(cl_world *w, int id, cl_vec3 d, cl_vec3 *actual) {
    const cl_item *it = &w->items[id];
    if (it->kind == CL_AABB && !(d.x == 0 && d.y == 0 && d.z == 0)) {
        /* a box's move: its first leg's query, as move_legs makes it. When that finds no other
         * item, the move is that one free leg and what move_legs does with it is done here
         * (without its shape copies, loops and buffers): the box moved by d (the same sums,
         * kept if finite), committed; the same *actual, w->mend, w->ncols and query buffers.
         * Else move_legs goes on with the candidates found. */
        cl_shape s;
        cl_aabb q;
        int n, i;
        s.kind = CL_AABB;
        s.u.aabb = it->box;
        w->ncols = 0;
        w->mkeep.ok = 0;
        q = leg_query_box(&s, &s.u.aabb, d);
        n = clw_collect_box(w, &q, id);
        if (n < 0) return n;
        for (i = 0; i < n && w->tmp[i] == id; i++) continue;
        if (i < n) return commitfree_legs(w, id, d, actual, n, &q);
        keep_query(w);
        w->nmc = 0;
        w->mend.kind = CL_AABB;
        w->mend.u.aabb = aabb_moved(&s.u.aabb, d);
        if (!(vfin(w->mend.u.aabb.min) & vfin(w->mend.u.aabb.max)))   /* placed_finite's AABB test */
            w->mend.u.aabb = s.u.aabb;          /* move_legs' break: the move ends there */
        {
            cl_vec3 p0 = cl_shape_pos(&s), p1 = cl_shape_pos(&w->mend);
            *actual = cl_v3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z);
        }
        clw_update_to(w, id, &w->mend, w->mend.u.aabb);
        return 0;
    }
    return commitfree_legs(w, id, d, actual, -1, NULL);
}

int cl_world_move_ends(cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx,
                       cl_needend need, void *nctx, cl_vec3 *actual) {
    return move_legs(w, id, d, respond, ctx, 0, need, nctx, actual, -1, NULL);
}
