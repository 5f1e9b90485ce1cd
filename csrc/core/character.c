/* collide core: the character controller (see character.h). Owns the character's settings, its
 * ground state and its collision list; every motion is a cl_world_move of the character's item.
 *
 * A move, in the tradition of Jolt's CharacterVirtual, Godot's move_and_slide and Box2D v3's
 * mover, on collide's exact sweeps:
 * 1. carry: standing on ground that moved since the last move, the character first moves by
 *    that item's displacement (ignoring it), then is lifted out of it if rounding left it inside;
 * 2. on the ground and not moving up: walk by the horizontal part (collide-and-slide, one leg per
 *    cl_world_move whose blocking response is turned into "touch", so that the slide is ours);
 *    when a wall blocked the walk, try it again raised by step and put back down, kept if it got
 *    further and landed on walkable ground (a round bottom landing on the step's edge goes on by
 *    the least distance that lands it on walkable ground); then one probe down by max(snap, fall): walkable
 *    ground within reach is stood on (within rounding, the character does not move at all: no
 *    drift), else it falls;
 * 3. otherwise (in the air, or moving up) the whole displacement slides through the air.
 * Slides: a walkable contact keeps the horizontal part of what is left and follows its plane;
 * a steeper one is a plain slide unless that slide would gain height the motion did not have,
 * then it is a wall (its normal made horizontal); bounce reflects; touch stops. */
#include <math.h>
#include <string.h>
#include "character.h"
#include "tree.h"
#include "vec.h"
#include "kinds.h"

enum { MAXSLIDES = 5 };

/* 1 if every component of a is zero. */
static int iszero(cl_vec3 a) { return a.x == 0 && a.y == 0 && a.z == 0; }

/* The filter wrapper's state: the caller's responses, one item to ignore, the last response. */
typedef struct wrapctx {
    cl_respond respond;
    void *ctx;
    int skip;                   /* ignored item (the carrying ground), -1 for none */
    cl_resp last;               /* the caller's response to the item that blocked last */
} wrapctx;

/* Returns the caller's response to other, with blocking responses turned into touch (the slide
 * is the character's own); the skipped item is ignored. */
static cl_resp wrap(void *p, int mover, int other) {
    wrapctx *wc = (wrapctx *)p;
    cl_resp r;
    if (other == wc->skip) return CL_RESP_IGNORE;
    r = wc->respond ? wc->respond(wc->ctx, mover, other) : CL_RESP_SLIDE;
    if (r == CL_RESP_SLIDE || r == CL_RESP_BOUNCE || r == CL_RESP_TOUCH) {
        wc->last = r;
        return CL_RESP_TOUCH;
    }
    return r;
}

/* Returns the distance below which the character counts as touching: 2^-32 of its coordinates'
 * magnitude (the sweeps leave gaps of 2^-40 of it between non-box pairs), plus 1e-300 as a move's
 * gap: no floor of 2^-32 (it was 2^-32 of 1 + the magnitude), so that a scene scaled by a power
 * of two behaves the same (a scene of size 2^-100 was all "touching"). */
static double char_tol(const cl_shape *s) {
    cl_aabb b = cl_shape_aabb(s);
    double m = fabs(b.min.x), v[5];
    int i;
    v[0] = fabs(b.min.y); v[1] = fabs(b.min.z); v[2] = fabs(b.max.x); v[3] = fabs(b.max.y);
    v[4] = fabs(b.max.z);
    for (i = 0; i < 5; i++) if (v[i] > m) m = v[i];
    return m * 0x1p-32 + 1e-300;        /* ldexp(m, -32): one rounding of the same exact value */
}

/* 1 if a surface with unit normal n is walkable for c. */
static int walkable(const cl_char *c, cl_vec3 n) {
    double nu = cl_dot(n, c->up);
    return nu > 0 && nu >= c->cosmax - 1e-12;
}

/* Returns v with the components along axis normals of n zeroed exactly (rounding leaves dust). */
static cl_vec3 axis_clean(cl_vec3 v, cl_vec3 n) {
    if (n.x == 1 || n.x == -1) v.x = 0;
    if (n.y == 1 || n.y == -1) v.y = 0;
    if (n.z == 1 || n.z == -1) v.z = 0;
    return v;
}

/* Returns what is left of a motion after a contact with normal n (slide rules above); sets
 * *wall when the contact is not walkable. */
static cl_vec3 redirect(const cl_char *c, cl_vec3 left, cl_vec3 n, cl_resp resp, int *wall) {
    cl_vec3 u = c->up, s;
    double nu = cl_dot(n, u), ln = cl_dot(left, n);
    if (resp == CL_RESP_BOUNCE) return cl_sub(left, cl_mul(n, 2 * ln));
    if (walkable(c, n)) {
        /* the horizontal part, lifted onto the plane: the same horizontal advance */
        cl_vec3 h = cl_sub(left, cl_mul(u, cl_dot(left, u)));
        return cl_sub(h, cl_mul(u, cl_dot(h, n) / nu));
    }
    *wall = 1;
    s = axis_clean(cl_sub(left, cl_mul(n, ln)), n);
    /* the slide would climb a too-steep surface (by more than rounding: a motion square to the
     * surface leaves a slide of rounding dust whose climb's sign would decide, by the order of
     * the triangle's vertices, between stopping and sliding down; review rev9's F5): a wall */
    if (cl_dot(s, u) > (cl_dot(left, u) > 0 ? cl_dot(left, u) : 0) + (fabs(left.x) + fabs(left.y) + fabs(left.z)) * 0x1p-40) {
        cl_vec3 nh = cl_sub(n, cl_mul(u, nu));
        double len = sqrt(cl_dot(nh, nh));
        if (len > 1e-9) {
            nh = cl_mul(nh, 1 / len);
            s = axis_clean(cl_sub(left, cl_mul(nh, cl_dot(left, nh))), nh);
        }
    }
    return s;
}

/* Appends the world's last collisions to c->cols (a "touch" made by wrap gets the caller's
 * response back); returns the index in w->cols of the blocking one, -1 for none, or CL_ENOMEM. */
static int keep_cols(cl_char *c, const cl_world *w, cl_resp last, int *blk) {
    int i;
    *blk = -1;
    if (c->ncols + w->ncols > c->colcap) {
        int ncap = c->colcap ? c->colcap : 8;
        void *np;
        while (ncap < c->ncols + w->ncols) {
            if (ncap > (1 << 26)) return CL_ENOMEM;
            ncap *= 2;
        }
        np = c->alloc(c->ud, c->cols, (size_t)c->colcap * sizeof(cl_col), (size_t)ncap * sizeof(cl_col));
        if (!np) return CL_ENOMEM;
        c->cols = (cl_col *)np;
        c->colcap = ncap;
    }
    for (i = 0; i < w->ncols; i++) {
        cl_col col = w->cols[i];
        if (col.type == CL_RESP_TOUCH) { col.type = last; *blk = i; }
        c->cols[c->ncols++] = col;
    }
    return CL_OK;
}

/* Moves the item by d with the character's collide-and-slide; *wall is set when a surface that
 * is not walkable blocked it. Returns CL_OK or CL_ENOMEM. */
static int slide(cl_char *c, cl_world *w, int id, cl_vec3 d, wrapctx *wc, int *wall) {
    int i, k, blk;
    for (i = 0; i < MAXSLIDES && !iszero(d); i++) {
        cl_vec3 made;
        cl_resp r;
        wc->last = CL_RESP_SLIDE;
        k = cl_world_move(w, id, d, wrap, wc, 1, &made);
        if (k < 0) return k;
        r = wc->last;
        if (keep_cols(c, w, r, &blk) != CL_OK) return CL_ENOMEM;
        if (blk < 0 || r == CL_RESP_TOUCH) break;
        d = redirect(c, cl_sub(d, made), w->cols[blk].n, r, wall);
    }
    return CL_OK;
}

/* What a probe's caller does with its end (probe's snap): its state for need_end. */
typedef struct endneed {
    const cl_char *c;
    double snap;                /* the end is used only if more than this below the start */
} endneed;

/* cl_needend of a probe whose caller uses the end only when the probe stops on walkable ground
 * with the end more than e->snap below the item (cl_char_move's snapped), never for e->snap =
 * HUGE_VAL: 0 (not wanted) when it stops on nothing or on unwalkable ground, or (a mover that
 * is not an AABB) when that drop is certainly at most snap. The drop, (pos(cur) - pos(end)) . up, computed: leg_end's end is cur
 * moved by tt rem (0 <= tt <= t) plus gap n and at most one push of up to 2 gaps (gap =
 * move_gap(cur), 2^-40 of M, the largest |coordinate| of cur's box, plus 1e-300), so each
 * position coordinate moves by at most t |rem_i| + 3 gap, each of the two translations rounds by
 * at most 2^-53 (M + |displacement|), and the difference and the dot product add relative
 * roundings of a few 2^-53: bounded by (t R + 3 gap + 2^-50 (M + R + 3 gap)) U, R and U the sums
 * of |rem_i| and |up_i|, and twice that covers every rounding of the bound itself. */
static int need_end(void *p, const cl_shape *cur, cl_vec3 rem, double t, const cl_vec3 *n) {
    const endneed *e = (const endneed *)p;
    cl_aabb b;
    double m, gap, r, u, bound;
    if (!n || !walkable(e->c, *n) || e->snap == HUGE_VAL) return 0;
    if (cur->kind == CL_AABB) return 1;   /* its end is snapped face to face: not bounded here */
    b = cl_shape_aabb(cur);
    m = cl_fmax(cl_maxabs3(b.min.x, b.min.y, b.min.z), cl_maxabs3(b.max.x, b.max.y, b.max.z));
    gap = m * 0x1p-40 + 1e-300;         /* move_gap's ldexp(m, -40), the same value */
    r = fabs(rem.x) + fabs(rem.y) + fabs(rem.z);
    u = fabs(e->c->up.x) + fabs(e->c->up.y) + fabs(e->c->up.z);
    bound = 2 * (t * r + 3 * gap + 0x1p-50 * (m + r + 3 * gap)) * u;
    return !(bound <= e->snap);
}

/* Probes a move of the item by -len along up (nothing changes): returns 1 with the blocking
 * collision in *hit and the end shape in *end, 0 when nothing blocks, or CL_ENOMEM. With snap
 * > 0, the caller reads *end only when the hit is walkable and *end lies more than snap below
 * the item (HUGE_VAL: never); *end is then left unset (the leg's start) in the other cases. */
static int probe(cl_char *c, cl_world *w, int id, double len, wrapctx *wc, cl_col *hit,
                 cl_shape *end, double snap) {
    cl_vec3 made;
    int k, i;
    wc->last = CL_RESP_SLIDE;
    if (snap > 0) {
        endneed e;
        e.c = c;
        e.snap = snap;
        k = cl_world_move_ends(w, id, cl_mul(c->up, -len), wrap, wc, need_end, &e, &made);
    } else {
        k = cl_world_move(w, id, cl_mul(c->up, -len), wrap, wc, 0, &made);
    }
    if (k < 0) return k;
    *end = w->mend;
    for (i = 0; i < k; i++)
        if (w->cols[i].type == CL_RESP_TOUCH) {
            *hit = w->cols[i];
            hit->type = wc->last;
            return 1;
        }
    return 0;
}

/* Lifts the item along up out of item g when rounding left their interiors overlapping after
 * a carry by at most dist. */
static void lift_out(const cl_char *c, cl_world *w, int id, int g, double dist) {
    cl_shape gtmp, tmp, s;
    const cl_shape *gs = cl_world_shape(w, g, &gtmp);
    s = *cl_world_shape(w, id, &tmp);
    double tol = char_tol(&s), h;
    int i;
    if (!cl_interiors_overlap(&s, gs)) return;
    h = dist + tol;
    cl_shape_translate(&s, cl_mul(c->up, h));
    {
        cl_sweep sw = cl_sweep_shapes(&s, cl_mul(c->up, -h), gs);
        if (sw.state == CL_TOI_TOUCHING) cl_shape_translate(&s, cl_mul(c->up, -h * sw.t));
    }
    for (i = 0; i < 60 && cl_interiors_overlap(&s, gs); i++) {
        cl_shape_translate(&s, cl_mul(c->up, tol));
        tol *= 2;
    }
    cl_world_update(w, id, &s);
}

/* 1 if item g is live and still the add it was when stood on (seq). */
static int ground_live(const cl_char *c, const cl_world *w) {
    int g = c->ground;
    return g >= 0 && g < w->cap && w->items[g].proxy != CL_NULLNODE && w->items[g].seq == c->gseq;
}

void cl_char_init(cl_char *c, cl_vec3 up, double maxslope, double step, double snap,
                  cl_alloc alloc, void *ud) {
    memset(c, 0, sizeof *c);
    c->up = up;
    c->cosmax = cos(maxslope);
    c->step = step;
    c->snap = snap;
    c->ground = -1;
    c->alloc = alloc;
    c->ud = ud;
}

void cl_char_free(cl_char *c) {
    if (c->cols) c->alloc(c->ud, c->cols, (size_t)c->colcap * sizeof(cl_col), 0);
    c->cols = NULL;
    c->colcap = c->ncols = 0;
}

int cl_char_grounded(const cl_char *c, const cl_world *w, int *item, cl_vec3 *n) {
    if (!ground_live(c, w)) return 0;
    *item = c->ground;
    *n = c->gn;
    return 1;
}

/* Returns 1 if, from the item's raised shape top (c->ncols being nc there), going on by e along
 * the unit horizontal hdir and probing down by rise lands on walkable ground: the item is left
 * there, its landing in *hit and *end; else 0 (the item somewhere on the way); or CL_ENOMEM. */
static int step_try(cl_char *c, cl_world *w, int id, const cl_shape *top, int nc, cl_vec3 hdir, double e,
                    double rise, wrapctx *wc, cl_col *hit, cl_shape *end) {
    int wall = 0, k, r;
    cl_world_update(w, id, top);
    c->ncols = nc;
    if ((r = slide(c, w, id, cl_mul(hdir, e), wc, &wall)) != CL_OK) return r;
    k = probe(c, w, id, rise, wc, hit, end, 0);
    if (k < 0) return k;
    return k == 1 && walkable(c, hit->n);
}

/* A round-bottomed character raised by a step and carried on by a short walk lands on the step's
 * edge, whose contact normal stays steeper than the top's until its centre is nearly over it (the
 * slower the walk, the steeper): it goes on along the walk by the least extra distance, found by
 * bisection up to the shape's extent along the walk, that lands it on walkable ground (as Jolt's
 * stair step-forward test). Returns 1 with the landing in *hit and *end (the item where it
 * probed from), 0 when no such distance lands walkably, or CL_ENOMEM. */
static int step_forward(cl_char *c, cl_world *w, int id, cl_vec3 dh, double rise, wrapctx *wc, cl_col *hit,
                        cl_shape *end) {
    cl_shape tmp, top = *cl_world_shape(w, id, &tmp);
    cl_aabb b = cl_shape_aabb(&top);
    int nc = c->ncols, i, k;
    double len = sqrt(cl_dot(dh, dh)), lo = 0, hi;
    cl_vec3 hdir;
    if (!(len > 0)) return 0;
    hdir = cl_mul(dh, 1 / len);
    hi = 0.5 * (fabs(hdir.x) * (b.max.x - b.min.x) + fabs(hdir.y) * (b.max.y - b.min.y) +
                fabs(hdir.z) * (b.max.z - b.min.z));
    if (!(hi > 0) || !isfinite(hi)) return 0;
    k = step_try(c, w, id, &top, nc, hdir, hi, rise, wc, hit, end);
    if (k != 1) return k;
    for (i = 0; i < 6; i++) {
        double mid = 0.5 * (lo + hi);
        k = step_try(c, w, id, &top, nc, hdir, mid, rise, wc, hit, end);
        if (k < 0) return k;
        if (k) hi = mid; else lo = mid;
    }
    return step_try(c, w, id, &top, nc, hdir, hi, rise, wc, hit, end);
}

/* The walk of a grounded character by the horizontal displacement dh, with step-up. */
static int walk(cl_char *c, cl_world *w, int id, cl_vec3 dh, wrapctx *wc) {
    cl_shape tmp, s0 = *cl_world_shape(w, id, &tmp), plain;
    int wall = 0, n0 = c->ncols, np, r;
    double prog, len2 = cl_dot(dh, dh);
    r = slide(c, w, id, dh, wc, &wall);
    if (r != CL_OK || !wall || !(c->step > 0)) return r;
    plain = *cl_world_shape(w, id, &tmp);
    np = c->ncols;
    prog = cl_dot(cl_sub(cl_shape_pos(&plain), cl_shape_pos(&s0)), dh);
    if (prog >= len2 * (1 - 1e-12)) return CL_OK;
    {
        /* up by step, the same walk, back down by what it rose: kept if it got further and
         * stands on walkable ground */
        cl_vec3 made;
        cl_col hit;
        cl_shape end;
        double rise, tol = char_tol(&s0);
        int k, blk, ok = 0, wall2 = 0;
        cl_world_update(w, id, &s0);
        wc->last = CL_RESP_SLIDE;
        k = cl_world_move(w, id, cl_mul(c->up, c->step), wrap, wc, 1, &made);
        if (k < 0) return k;
        if (keep_cols(c, w, wc->last, &blk) != CL_OK) return CL_ENOMEM;
        rise = cl_dot(made, c->up);
        if (rise > tol) {
            if ((r = slide(c, w, id, dh, wc, &wall2)) != CL_OK) return r;
            k = probe(c, w, id, rise, wc, &hit, &end, 0);
            if (k == 1 && !walkable(c, hit.n)) k = step_forward(c, w, id, dh, rise, wc, &hit, &end);
            if (k < 0) return k;
            if (k == 1 && walkable(c, hit.n) &&
                cl_dot(cl_sub(cl_shape_pos(&end), cl_shape_pos(&s0)), dh) > prog + tol * sqrt(len2)) {
                cl_world_update(w, id, &end);
                ok = 1;
            }
        }
        if (ok) {
            memmove(c->cols + n0, c->cols + np, (size_t)(c->ncols - np) * sizeof(cl_col));
            c->ncols -= np - n0;
        } else {
            cl_world_update(w, id, &plain);
            c->ncols = np;
        }
    }
    return CL_OK;
}

/* Sets the ground state to item g with normal n (g < 0: none). */
static void set_ground(cl_char *c, const cl_world *w, int g, cl_vec3 n) {
    c->ground = g;
    if (g >= 0) {
        cl_shape tmp;
        c->gseq = w->items[g].seq;
        c->gref = cl_shape_pos(cl_world_shape(w, g, &tmp));
        c->gn = n;
    }
}

int cl_char_move(cl_char *c, cl_world *w, int id, cl_vec3 d, cl_respond respond, void *ctx,
                 cl_vec3 *actual) {
    cl_shape tmp, start = *cl_world_shape(w, id, &tmp);
    cl_vec3 u = c->up, p0 = cl_shape_pos(&start);
    double vy = cl_dot(d, u), tol = char_tol(&start);
    cl_vec3 dv = cl_mul(u, vy), dh = cl_sub(d, dv);
    int grounded = ground_live(c, w), g = -1, r = CL_OK, k, wall = 0;
    cl_vec3 gn = cl_v3(0, 0, 0);
    cl_col hit;
    cl_shape end;
    wrapctx wc;
    wc.respond = respond;
    wc.ctx = ctx;
    wc.skip = -1;
    wc.last = CL_RESP_SLIDE;
    c->ncols = 0;
    {
        /* the move's sweeps of a mesh take their candidates from one walk of a box around their
         * path (the same candidates: see cl_pmkeep_cache): the first sweep's box, its probe
         * down, and a quarter of the displacement's length around them (room for a slide
         * redirected up a slope: bench/walk.lua's capsule walk then walks once a move, 2,185
         * walks in 2,200 moves, where 0 walked 3,684 times; 1 walks as often, a larger box) */
        double plen = grounded && vy <= 0 ? cl_fmax(cl_fmax(c->snap, -vy), tol) : tol;
        cl_pmkeep_cache(&w->mkeep, 1, cl_mul(u, -plen), 0.25 * sqrt(cl_dot(d, d)));
    }
    if (grounded) {
        cl_vec3 cd = cl_sub(cl_shape_pos(cl_world_shape(w, c->ground, &tmp)), c->gref);
        if (!iszero(cd) && cl_vfinite(cd)) {
            wc.skip = c->ground;
            r = slide(c, w, id, cd, &wc, &wall);
            wc.skip = -1;
            if (r != CL_OK) goto fail;
            lift_out(c, w, id, c->ground, sqrt(cl_dot(cd, cd)));
        }
    }
    if (grounded && vy <= 0) {
        double len = c->snap > -vy ? c->snap : -vy;
        if ((r = walk(c, w, id, dh, &wc)) != CL_OK) goto fail;
        if (!(len > tol)) len = tol;
        k = probe(c, w, id, len, &wc, &hit, &end, tol);
        if (k < 0) { r = k; goto fail; }
        if (k == 1 && walkable(c, hit.n)) {
            int blk, snapped = cl_dot(cl_sub(cl_shape_pos(cl_world_shape(w, id, &tmp)), cl_shape_pos(&end)), u) > tol;
            if (snapped) cl_world_update(w, id, &end);
            g = hit.other;
            gn = hit.n;
            /* the contact is reported as world:move reports a floor it moves into */
            if ((vy < 0 || snapped) && keep_cols(c, w, wc.last, &blk) != CL_OK) {
                r = CL_ENOMEM;
                goto fail;
            }
        } else if (vy < 0) {
            if ((r = slide(c, w, id, dv, &wc, &wall)) != CL_OK) goto fail;
        }
    } else {
        if ((r = slide(c, w, id, d, &wc, &wall)) != CL_OK) goto fail;
        if (vy <= 0) {
            k = probe(c, w, id, tol, &wc, &hit, &end, HUGE_VAL);
            if (k < 0) { r = k; goto fail; }
            if (k == 1 && walkable(c, hit.n)) { g = hit.other; gn = hit.n; }
        }
    }
    set_ground(c, w, g, gn);
    {
        cl_vec3 p1 = cl_shape_pos(cl_world_shape(w, id, &tmp));
        *actual = cl_sub(p1, p0);
    }
    cl_pmkeep_cache(&w->mkeep, 0, cl_v3(0, 0, 0), 0);
    return c->ncols;
fail:
    cl_pmkeep_cache(&w->mkeep, 0, cl_v3(0, 0, 0), 0);
    cl_world_update(w, id, &start);
    c->ncols = 0;
    return r;
}
