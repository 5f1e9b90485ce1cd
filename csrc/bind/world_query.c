/* collide Lua binding, the World's read-only methods: query, querypoint, raycast, raycastall,
 * pairs and sweep, with their bodies (run() calls them as protected calls when given a filter). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lworld.h"

/* body of world:query(shape[, filter[, out]]) -> array, n. */
int lw_b_query(lua_State *L) {
    lworld *lw = hotworld(L, "query");
    cl_shape s;
    int n;
    cl_checkshape(L, 2, "query", &s);
    optfilter(L, 3, "query");
    opttable(L, 4, "query");
    lua_settop(L, 4);
    lw->gen++;
    n = cl_world_query(&lw->w, &s);
    if (n < 0) return nomem(L);
    return lw_pushitemlist(L, lw, n, 3, 4, "query");
}

/* body of world:querypoint(x, y, z[, filter[, out]]) -> array, n. */
int lw_b_querypoint(lua_State *L) {
    lworld *lw = hotworld(L, "querypoint");
    cl_vec3 p;
    int n;
    p.x = cl_checkfinite(L, 2, "querypoint");
    p.y = cl_checkfinite(L, 3, "querypoint");
    p.z = cl_checkfinite(L, 4, "querypoint");
    optfilter(L, 5, "querypoint");
    opttable(L, 6, "querypoint");
    lua_settop(L, 6);
    lw->gen++;
    n = cl_world_querypoint(&lw->w, p);
    if (n < 0) return nomem(L);
    return lw_pushitemlist(L, lw, n, 5, 6, "querypoint");
}

/* body of world:queryplanes(planes[, filter[, out]]) -> array, n: the items not wholly behind any plane. */
int lw_b_queryplanes(lua_State *L) {
    lworld *lw = hotworld(L, "queryplanes");
    double p[4 * CL_MAXPLANES];
    int np = cl_readplanes(L, 2, "queryplanes", p), n;
    optfilter(L, 3, "queryplanes");
    opttable(L, 4, "queryplanes");
    lua_settop(L, 4);
    lw->gen++;
    n = cl_world_queryplanes(&lw->w, p, np);
    if (n < 0) return nomem(L);
    return lw_pushitemlist(L, lw, n, 3, 4, "queryplanes");
}

/* A closest-hit query (a ray with its limit, or a swept shape), its "next hit after (at, aseq)"
 * step and its "every hit, by t then add order, into w.hits" form, for firsthit. */
typedef struct hitquery { cl_ray ray; double maxt; cl_shape s; cl_vec3 d; int isray; } hitquery;

/* The triangle (0-based) a ray (limit maxt) meets first on item id, or -1 when the item is
 * not a mesh: the core's hit names the item; its mesh's own raycast, the same test, names the
 * triangle. */
static lua_Integer raytri(lworld *lw, int id, const cl_ray *r, double maxt) {
    cl_shape tmp;
    const cl_shape *s = cl_world_shape(&lw->w, id, &tmp);
    cl_hit h;
    size_t tri;
    if (s->kind != CL_MESH || !cl_pmesh_raycast(&s->u.mesh, r, maxt, &h, &tri)) return -1;
    return (lua_Integer)tri;
}

/* Pushes item, t, nx, ny, nz of a hit and, on a mesh item, the triangle (1-based: the first
 * one the ray meets, or the swept shape touches); returns 5 or 6. */
static int pushwhit(lua_State *L, lworld *lw, int u, const cl_whit *h, const hitquery *q) {
    cl_kind kind = cl_world_kind(&lw->w, h->item);
    pushitem(L, lw, u, h->item);
    lua_pushnumber(L, h->t);
    lua_pushnumber(L, h->n.x);
    lua_pushnumber(L, h->n.y);
    lua_pushnumber(L, h->n.z);
    if (kind != CL_MESH) return 5;
    if (q->isray) {
        lua_pushinteger(L, raytri(lw, h->item, &q->ray, q->maxt) + 1);
    } else {
        size_t tri;
        cl_shape tmp;
        (void)cl_pmesh_sweep(&cl_world_shape(&lw->w, h->item, &tmp)->u.mesh, &q->s, q->d, &tri);
        lua_pushinteger(L, (lua_Integer)tri + 1);
    }
    return 6;
}
typedef int (*nexthit)(lworld *lw, const hitquery *q, double at, double aseq, cl_whit *h);
typedef int (*allhits)(lworld *lw, const hitquery *q);
static int nextray(lworld *lw, const hitquery *q, double at, double aseq, cl_whit *h) {
    return cl_world_raycast(&lw->w, &q->ray, q->maxt, at, aseq, h);
}
static int nextsweep(lworld *lw, const hitquery *q, double at, double aseq, cl_whit *h) {
    return cl_world_sweep(&lw->w, &q->s, q->d, -1, at, aseq, h);
}
static int allray(lworld *lw, const hitquery *q) {
    return cl_world_raycastall(&lw->w, &q->ray, q->maxt);
}
static int allsweep(lworld *lw, const hitquery *q) {
    return cl_world_sweepall(&lw->w, &q->s, q->d, -1);
}

/* Rejected hits after which firsthit stops asking for the next hit (a whole search each) and
 * takes every hit at once: a filter that rejects most hits then costs one search, not one per hit
 * (a row of 16,000 rejected items took 6.9 s, quadratic). */
enum { NEXT_MAX = 4 };

/* Pushes the first hit the filter at index filterarg keeps (any hit when filterarg is 0), as
 * item, t, nx, ny, nz, or nil. The first rejected hits are skipped by asking for the next one
 * after them; after NEXT_MAX, every hit after the last rejected one is copied (w.hits is rewritten
 * by any query the filter makes) into a userdata and offered in order. The filter runs with the
 * world locked, so the hits stay valid. */
static int firsthit(lua_State *L, lworld *lw, int filterarg, nexthit next, allhits all,
                    const hitquery *q, const char *fname) {
    double at = -1, aseq = -1;
    int u = pushitems(L), rejected = 0, n, i, k;
    unsigned gen;
    cl_whit h, *copy;
    for (;;) {
        int st = next(lw, q, at, aseq, &h);
        if (st < 0) return nomem(L);
        if (st == 0) { lua_pushnil(L); return 1; }
        if (filterarg) {
            int keep;
            pushitem(L, lw, u, h.item);
            keep = callfilter(L, filterarg, lua_gettop(L));
            lua_pop(L, 1);
            if (!keep) {
                at = h.t;
                aseq = lw->w.items[h.item].seq;
                if (++rejected == NEXT_MAX) break;
                continue;
            }
        }
        return pushwhit(L, lw, u, &h, q);
    }
    gen = ++lw->gen;
    n = all(lw, q);
    if (n < 0) return nomem(L);
    for (k = 0; k < n; k++) {               /* skip the hits up to the last rejected one */
        const cl_whit *x = &lw->w.hits[k];
        if (x->t > at || (x->t == at && lw->w.items[x->item].seq > aseq)) break;
    }
    copy = (cl_whit *)cl_newuserdata(L, (size_t)(n - k) * sizeof(cl_whit) + 1);
    fresh(L, lw, gen, fname);               /* the allocation may run a finalizer */
    memcpy(copy, lw->w.hits + k, (size_t)(n - k) * sizeof(cl_whit));
    for (i = 0; i < n - k; i++) {
        int keep;
        pushitem(L, lw, u, copy[i].item);
        keep = callfilter(L, filterarg, lua_gettop(L));
        lua_pop(L, 1);
        if (keep) return pushwhit(L, lw, u, &copy[i], q);
    }
    lua_pushnil(L);
    return 1;
}

/* body of world:raycast(ray[, maxt[, filter]]) -> item, t, nx, ny, nz | nil. */
int lw_b_raycast(lua_State *L) {
    lworld *lw = hotworld(L, "raycast");
    const cl_ray *r = cl_checkray(L, 2, "raycast");
    int filter;
    hitquery q;
    q.ray = *r;
    q.isray = 1;
    q.maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    filter = optfilter(L, 4, "raycast");
    /* no lua_settop: firsthit pushes above whatever was passed and reads arg 4 only when it
     * is the filter (the settop was a tenth of the binding's cost per ray on Lua 5.4) */
    return firsthit(L, lw, filter ? 4 : 0, nextray, allray, &q, "raycast");
}

/* body of world:raycastall(ray[, maxt[, filter[, out]]]) -> array of hit tables, n. */
int lw_b_raycastall(lua_State *L) {
    lworld *lw = hotworld(L, "raycastall");
    const cl_ray *r = cl_checkray(L, 2, "raycastall");
    double maxt = cl_optlimit(L, 3, "raycastall", HUGE_VAL);
    int filter = optfilter(L, 4, "raycastall");
    int hasout = opttable(L, 5, "raycastall");
    int n, u, t, i, k;
    unsigned gen;
    cl_ray ray = *r;
    lua_settop(L, 5);
    gen = ++lw->gen;
    n = cl_world_raycastall(&lw->w, &ray, maxt);
    if (n < 0) return nomem(L);
    u = pushitems(L);
    if (hasout) {           /* the pool of spare hit tables, made and sized once */
        lua_rawgeti(L, u, -3);
        if (lua_type(L, -1) != LUA_TTABLE) {
            lua_createtable(L, HPOOLMAX, 0);
            lua_rawseti(L, u, -3);
            lw->nhpool = 0;
        }
        lua_pop(L, 1);
    }
    t = pushout(L, 5, n);
    for (i = 0; i < n; i++) {
        cl_whit h;
        lua_Integer tri;
        fresh(L, lw, gen, "raycastall");    /* the pool, pushout, inner and the field sets allocate */
        h = lw->w.hits[i];
        /* a mesh item's triangle, read now: a finalizer run by the allocations below may free
         * the world (the shapes raytri reads) */
        tri = raytri(lw, h.item, &ray, maxt);
        if (hasout) lw_poolinner(L, &lw->nhpool, -3, 5, u, t, i + 1);
        else inner(L, t, i + 1, 5);
        lua_pushliteral(L, "item");         /* every field written raw (no __newindex) */
        pushitem(L, lw, u, h.item);
        lua_rawset(L, -3);
        hotnum(L, UV_T, h.t);
        hotnum(L, UV_NX, h.n.x);
        hotnum(L, UV_NY, h.n.y);
        hotnum(L, UV_NZ, h.n.z);
        if (tri >= 0 || hasout) {           /* cleared on a reused table */
            lua_pushvalue(L, lua_upvalueindex(UV_TRI));
            if (tri >= 0) lua_pushinteger(L, tri + 1); else lua_pushnil(L);
            lua_rawset(L, -3);
        }
        lua_pop(L, 1);
    }
    fresh(L, lw, gen, "raycastall");        /* the last hit's allocations */
    k = filter ? lw_filtertable(L, t, n, 4, "item") : n;
    /* also drops hits a filter rejected; those of an out table are kept as spares */
    if (hasout) lw_pooltail(L, &lw->nhpool, HPOOLMAX, -3, u, t, k);
    else lw_cleartail(L, t, k);
    lua_pushvalue(L, t);
    lua_pushinteger(L, k);
    return 2;
}

/* world:pairs([out]) -> flat array a1, b1, a2, b2, ..., npairs. */
int lw_pairs(lua_State *L) {
    lworld *lw = hotworld(L, "pairs");
    int hasout = opttable(L, 2, "pairs"), np, u, t, i;
    unsigned gen;
    lua_settop(L, 2);
    gen = ++lw->gen;
    np = cl_world_pairs(&lw->w);
    if (np < 0) return nomem(L);
    u = pushitems(L);
    t = pushout(L, 2, 2 * np);
    for (i = 0; i < 2 * np; i++) {
        fresh(L, lw, gen, "pairs");         /* pushout and growing out allocate */
        pushitem(L, lw, u, lw->w.res[i]);
        lua_rawseti(L, t, i + 1);
    }
    fresh(L, lw, gen, "pairs");             /* the last entry's allocation */
    if (hasout) lw_cleartail(L, t, 2 * np);
    lua_pushvalue(L, t);
    lua_pushinteger(L, np);
    return 2;
}

/* body of world:sweep(shape, dx, dy, dz[, filter]) -> item, t, nx, ny, nz | nil. */
int lw_b_sweep(lua_State *L) {
    lworld *lw = hotworld(L, "sweep");
    hitquery q;
    int filter;
    cl_checkshape(L, 2, "sweep", &q.s);
    q.isray = 0;
    q.d.x = cl_checkfinite(L, 3, "sweep");
    q.d.y = cl_checkfinite(L, 4, "sweep");
    q.d.z = cl_checkfinite(L, 5, "sweep");
    filter = optfilter(L, 6, "sweep");
    lua_settop(L, 6);
    return firsthit(L, lw, filter ? 6 : 0, nextsweep, allsweep, &q, "sweep");
}

int lw_query(lua_State *L) { return run(L, 3, B_QUERY, "query"); }
int lw_querypoint(lua_State *L) { return run(L, 5, B_QUERYPOINT, "querypoint"); }
int lw_queryplanes(lua_State *L) { return run(L, 3, B_QUERYPLANES, "queryplanes"); }
/* world:raycast without a filter (the hot case) is done here, without run(), lw_b_raycast and
 * firsthit: the same checks in the same order (world, ray, maxt; the filter argument is nil),
 * the ray read in place (nothing runs Lua before the core returns), one hit pushed straight from
 * the id -> item table. With a filter: run() and lw_b_raycast as every filtered call. */
int lw_raycast(lua_State *L) {
    lworld *lw;
    const cl_ray *r;
    double maxt;
    cl_whit h;
    int st;
    if (!lua_isnoneornil(L, 4)) return run(L, 4, B_RAYCAST, "raycast");
    lw = hotworld(L, "raycast");
    r = cl_checkray(L, 2, "raycast");
    maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    st = cl_world_raycast(&lw->w, r, maxt, -1, -1, &h);
    if (st <= 0) {
        if (st < 0) return nomem(L);
        lua_pushnil(L);
        return 1;
    }
    pushitem(L, lw, pushitems(L), h.item);
    lua_pushnumber(L, h.t);
    lua_pushnumber(L, h.n.x);
    lua_pushnumber(L, h.n.y);
    lua_pushnumber(L, h.n.z);
    if (cl_world_kind(&lw->w, h.item) != CL_MESH) return 5;
    lua_pushinteger(L, raytri(lw, h.item, r, maxt) + 1);
    return 6;
}
int lw_raycastall(lua_State *L) { return run(L, 4, B_RAYCASTALL, "raycastall"); }
int lw_sweep(lua_State *L) { return run(L, 6, B_SWEEP, "sweep"); }
