/* collide core, the World's push-out (cl_world_resolve): an item that overlaps others is moved
 * out of them by minimum translations (cl_penetration), the deepest first, one per round, until
 * it overlaps nothing or 16 rounds have passed; it ends at the position visited whose total
 * depth is smallest (the earliest on ties: it never moves more than it must, and between two
 * walls that squeeze it, it stays where its overlap is smallest). The candidates come from one
 * tree query of the item's box widened by its own size, repeated only when a push leaves it;
 * they live in w->mq and w->mc, move's buffers (a filter cannot move: the binding locks it). */
#include "world_internal.h"

#define RESOLVE_ROUNDS 16
#define RC_ASKED 1      /* the filter was asked about this candidate */
#define RC_SOLID 2      /* ... and kept it solid */
#define RC_START 4      /* the item overlapped it at the start */

/* 1 if box a lies inside box b. */
static int box_inside(const cl_aabb *a, const cl_aabb *b) {
    return a->min.x >= b->min.x && a->min.y >= b->min.y && a->min.z >= b->min.z &&
           a->max.x <= b->max.x && a->max.y <= b->max.y && a->max.z <= b->max.z;
}

/* 1 and the push of s (box sb) out of candidate m when their interiors overlap and the filter
 * (asked once per candidate) keeps m solid; else 0. */
static int push_of(cl_world *w, int id, const cl_shape *s, const cl_aabb *sb, cl_mcand *m,
                   cl_respond keep, void *ctx, double *depth, cl_vec3 *n) {
    const cl_item *o = &w->items[m->item];
    cl_shape sh_;
    if (!cl_aabb_overlaps_aabb(&o->box, sb) || !cl_penetration(s, clw_shape(w, o, &sh_), depth, n)) return 0;
    if (!(m->flags & RC_ASKED)) {
        m->flags |= RC_ASKED;
        if (!keep || keep(ctx, id, m->item) != CL_RESP_IGNORE) m->flags |= RC_SOLID;
    }
    return (m->flags & RC_SOLID) != 0;
}

/* Moves s by depth along unit n out of shape o; two AABBs with an axis normal end face to face
 * exactly (the sum would round back inside). */
static void push_out(cl_shape *s, const cl_shape *o, double depth, cl_vec3 n) {
    if (s->kind == CL_AABB && o->kind == CL_AABB) {
        cl_aabb *a = &s->u.aabb;
        const cl_aabb *b = &o->u.aabb;
        if (n.x == 1 || n.x == -1) {
            double f = n.x > 0 ? b->max.x : b->min.x - (a->max.x - a->min.x);
            a->max.x += f - a->min.x; a->min.x = f;
            return;
        }
        if (n.y == 1 || n.y == -1) {
            double f = n.y > 0 ? b->max.y : b->min.y - (a->max.y - a->min.y);
            a->max.y += f - a->min.y; a->min.y = f;
            return;
        }
        if (n.z == 1 || n.z == -1) {
            double f = n.z > 0 ? b->max.z : b->min.z - (a->max.z - a->min.z);
            a->max.z += f - a->min.z; a->min.z = f;
            return;
        }
    }
    {
        /* other pairs: 2^-40 of the coordinates' size further (plus 1e-300), as a move keeps
         * such a gap (the sum of a push along an irrational direction may round back inside).
         * It was 2^-40 of at least 1: a scene scaled down by 2^-500 was pushed 2^-40 too far,
         * not 2^-540 (no answer may depend on scale) */
        cl_aabb b = cl_shape_aabb(s);
        double m = cl_maxabs3(cl_maxabs3(b.min.x, b.min.y, b.min.z), cl_maxabs3(b.max.x, b.max.y, b.max.z), 0);
        cl_shape_translate(s, cl_mul(n, depth + (ldexp(m, -40) + 1e-300)));
    }
}

int cl_world_resolve(cl_world *w, int id, cl_respond keep, void *ctx, cl_shape *end,
                     cl_vec3 *disp) {
    cl_shape sh_, cur = *clw_shape(w, &w->items[id], &sh_), best = cur;
    cl_aabb qb = w->items[id].box, b;
    double bestsum = HUGE_VAL, reach;
    int nq = -1, round, i, pushed = 0;           /* nq < 0: no query yet */
    reach = cl_maxabs3(qb.max.x - qb.min.x, qb.max.y - qb.min.y, qb.max.z - qb.min.z);
    for (round = 0; round <= RESOLVE_ROUNDS; round++) {
        double sum = 0, deep = 0, d;
        int deepi = -1;
        cl_vec3 n, dn = cl_v3(0, 0, 0);
        b = cl_shape_aabb(&cur);
        if (nq < 0 || !box_inside(&b, &qb)) {
            /* the query box grows to cover every position visited, so the candidates (and
             * their filter answers and start flags, carried over) are a superset of all met */
            int *tq, tcap, k;
            cl_aabb nb = widen(&b, reach, shape_tol(&cur, &b));
            qb = nq < 0 ? nb : cl_aabb_merge(&qb, &nb);
            k = clw_collect_box(w, &qb, id);
            if (k < 0) return k;
            tq = w->tmp; w->tmp = w->mq; w->mq = tq;
            /* add order, not the tree's: the rounds' depth sums (which round is best) must not
             * depend on the tree's shape */
            sort_elems(w->mq, k, sizeof(int), clw_less_seq, w);
            tcap = w->tmpcap; w->tmpcap = w->mqcap; w->mqcap = tcap;
            if (nq < 0) nq = 0;
            ENSURE(w->mc, w->mccap, nq + k);
            for (i = 0; i < k; i++) {
                int j, flags = 0;
                for (j = 0; j < nq; j++)
                    if (w->mc[j].item == w->mq[i]) { flags = w->mc[j].flags; break; }
                w->mc[nq + i].item = w->mq[i];
                w->mc[nq + i].flags = flags;
            }
            if (k > 0) memmove(w->mc, w->mc + nq, (size_t)k * sizeof(cl_mcand));
            nq = k;
        }
        for (i = 0; i < nq; i++) {
            cl_mcand *m = &w->mc[i];
            if (m->item == id || !push_of(w, id, &cur, &b, m, keep, ctx, &d, &n)) continue;
            if (round == 0) m->flags |= RC_START;
            sum += d;
            /* the deepest; ties by add order */
            if (deepi < 0 || d > deep ||
                (d == deep && w->items[m->item].seq < w->items[w->mc[deepi].item].seq)) {
                deep = d; deepi = i; dn = n;
            }
        }
        if (sum < bestsum) { bestsum = sum; best = cur; }
        if (deepi < 0 || round == RESOLVE_ROUNDS) break;
        push_out(&cur, clw_shape(w, &w->items[w->mc[deepi].item], &sh_), deep, dn);
        if (!cl_vfinite(cl_shape_pos(&cur))) break;
    }
    *end = best;
    for (i = 0; i < nq; i++) {             /* solid at the start, no longer overlapped */
        double d;
        cl_vec3 n;
        if ((w->mc[i].flags & RC_START) &&
            !cl_penetration(&best, clw_shape(w, &w->items[w->mc[i].item], &sh_), &d, &n))
            pushed++;
    }
    *disp = cl_sub(cl_shape_pos(&best), cl_shape_pos(clw_shape(w, &w->items[id], &sh_)));
    return pushed;
}
