/* collide Lua binding: collide.World. This file: the constructor, the item methods, destroy and
 * the metamethods, and the registration; lworld.h lists the other World binding files.
 *
 * The userdata holds the core world (csrc/core/world.h) plus a lock counter. Items are mapped
 * to the core's integer ids by two tables kept in the userdata's user value (so an item that
 * refers back to its world does not keep it alive): the user value U is the id -> item array
 * (U[id + 1] = item; not for a number item the C maps hold alone: lworld.fm, lworld.nm), U[0] is
 * the item -> id table, U[-1] a spare empty table that move
 * returns when nothing was hit and no out table was given (so such moves make no garbage) and
 * U[-2] the spare collision tables (below).
 *
 * Filters. Calls that take a filter run, when one is given, as a protected call of the same C
 * function ("body") with the lock counter raised; the lock is lowered whether the body returns
 * or raises, and an error is then re-raised unchanged. While locked, add, remove, update,
 * translate, translatemany, move, check and destroy fail with "world is locked (called from a
 * filter)". The core never calls
 * Lua while it holds scratch state a nested query could reuse: queries copy their results into
 * the Lua table before the first filter call; raycast and sweep ask the core for the next hit
 * after the previous one; move keeps its state in buffers only move and check use.
 *
 * Memory: the core allocates through lua_getallocf's allocator; CL_ENOMEM is turned into the
 * error "not enough memory" after the core has left the world consistent. translatemany keeps
 * two scratch arrays in the userdata (per element of its largest batch, per item slot), grown
 * through the same allocator before it reads its first element; so are the fast item -> id maps
 * (lworld.fm, lworld.pc), grown by add before it changes anything. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lworld.h"
#include "mesh.h"

const char lw_world_key = 0;    /* registry: the World metatable */
const char lw_bodies_key = 0;   /* registry: table of the cached body closures */

/* run with the filter argument given: body as a protected call with the world locked; the lock
 * is released on both paths and errors are re-raised. Returns body's results. */
int lw_runfiltered(lua_State *L, int body, const char *fname) {
    lworld *lw;
    int n, st;
    lw = hotworld(L, fname);
    n = lua_gettop(L);
    cl_rawgetp(L, LUA_REGISTRYINDEX, &lw_bodies_key);
    lua_rawgeti(L, -1, body);
    lua_remove(L, -2);
    lua_insert(L, 1);
    lw->lock++;
    st = lua_pcall(L, n, LUA_MULTRET, 0);
    lw->lock--;
    if (st != 0) {
        lw->redo = 0;           /* a move's results were not delivered: it stays undone */
        return lua_error(L);
    }
    redo(lw);
    return lua_gettop(L);
}


static const char *const uv_names[] = { "other", "type", "t", "nx", "ny", "nz",
                                        "ignore", "slide", "touch", "cross", "bounce", "tri" };

/* Pushes the upvalues above (4 shape metatables, World metatable, strings); returns their count. */
int lw_pushhotupvalues(lua_State *L) {
    int n = cl_pushclassupvalues(L), i;
    cl_rawgetp(L, LUA_REGISTRYINDEX, &lw_world_key);
    for (i = 0; i < UV_LAST - UV_WORLD; i++) lua_pushstring(L, uv_names[i]);
    return n + 1 + UV_LAST - UV_WORLD;
}
/* ---- constructor and bookkeeping ---- */

/* The World's allocator (ud: the lworld): the Lua state's, counting the growth in lw->grown. */
static void *walloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    lworld *lw = (lworld *)ud;
    void *p = lw->af(lw->aud, ptr, ptr != NULL ? osize : 0, nsize);
    if (p != NULL && ptr == NULL) lw->grown += nsize;
    else if (p != NULL && nsize > osize) lw->grown += nsize - osize;
    return p;
}

/* Tells the collector about the World memory allocated since the last report (once it is
 * GC_REPORT bytes or more): without it the collector sees only the Lua tables of a world, about
 * a tenth of it, and dropped worlds pile up. Each byte counts GC_WEIGHT times: the collector
 * paces itself by allocation AND by the live size it found (the next cycle waits until the Lua
 * heap has grown by a pause's share of that size), and World memory never enters that size, so
 * counted once, worlds of some sizes (5,000 to 8,000 items of 136 bytes; 3,000 to 4,000 of 264)
 * were dropped faster than two cycles (a finalized world's) came round: 29 waited after 150
 * worlds. May run finalizers: called only when the world is consistent and the call's work is
 * done. */
static void gcreport(lua_State *L, lworld *lw) {
    if (lw->grown >= GC_REPORT) {
        size_t n = lw->grown;
        lw->grown = 0;
        cl_gcdebt(L, n > (size_t)-1 / GC_WEIGHT ? (size_t)-1 : n * GC_WEIGHT);
    }
}

/* collide.World([options]) -> world. */
static int w_new(lua_State *L) {
    double margin = 0.1;
    lworld *lw;
    void *ud;
    lua_Alloc af;
    if (!lua_isnoneornil(L, 1)) {
        if (lua_type(L, 1) != LUA_TTABLE) cl_typeerror(L, 1, "World", "table");
        lua_pushnil(L);
        while (lua_next(L, 1)) {
            if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "margin") == 0) {
                int isnum;
                double m;
                if (lua_type(L, -1) != LUA_TNUMBER) cl_argerror(L, 1, "World", "margin is not a number");
                m = (double)lua_tonumberx(L, -1, &isnum);
                if (!isfinite(m)) cl_argerror(L, 1, "World", "number is not finite");
                if (m < 0) cl_argerror(L, 1, "World", "margin is negative");
                margin = m;
            } else {
                cl_optionerror(L, 1, "World");
            }
            lua_pop(L, 1);
        }
    }
    af = lua_getallocf(L, &ud);
    lw = (lworld *)w_newuserdata(L, sizeof(lworld));
    lw->tag = &lw_world_key;
    lw->af = af;
    lw->aud = ud;
    lw->grown = 0;
    cl_world_init(&lw->w, margin, walloc, lw);
    lw->alive = 1;
    lw->lock = 0;
    lw->bi = NULL; lw->bm = NULL; lw->bs = NULL;
    lw->bicap = lw->bmcap = lw->bscap = lw->bstamp = 0;
    lw->redo = 0;
    lw->fm = NULL; lw->fmcap = lw->fmall = 0;
    lw->nm = NULL; lw->nmcap = lw->nmall = lw->nmn = 0;
    lw->pc = NULL; lw->pcmask = 0;
    lw->npool = 0;
    lw->nhpool = 0;
    lw->gen = 0;
    lua_createtable(L, 0, 3);
    lua_newtable(L);
    lua_rawseti(L, -2, 0);
    lua_newtable(L);
    lua_rawseti(L, -2, -1);
    lua_createtable(L, POOLMAX, 0);     /* sized: adding to it never allocates */
    lua_rawseti(L, -2, -2);
    w_setuv(L, -2);
    cl_rawgetp(L, LUA_REGISTRYINDEX, &lw_world_key);
    lua_setmetatable(L, -2);
    return 1;
}

/* Orthonormality tolerance of a mesh item's axes (as OBB axes, API.md). */
#define MESH_AXES_TOL 1e-6

/* Reads the item shape at arg into *s: a shape, or a Mesh followed by its optional placement
 * (cx,cy,cz, then the nine axis numbers, as OBB's: none, the centre only, or all twelve; absent:
 * where it is, the world axes). Raises in the standard wording on a bad value, before anything
 * changes; returns 1 for a mesh item. */
static int checkitemshape(lua_State *L, int arg, const char *fname, cl_shape *s) {
    const cl_mesh *m = cl_tomesh(L, arg);
    cl_pmesh pm;
    int i, axes = 0;
    if (m == NULL) {
        cl_checkshape(L, arg, fname, s);
        return 0;
    }
    pm.m = m;
    pm.c = cl_v3(0, 0, 0);
    pm.u[0] = cl_v3(1, 0, 0);
    pm.u[1] = cl_v3(0, 1, 0);
    pm.u[2] = cl_v3(0, 0, 1);
    for (i = 4; i < 13; i++) axes |= !lua_isnoneornil(L, arg + i);
    if (axes || !lua_isnoneornil(L, arg + 1) || !lua_isnoneornil(L, arg + 2) || !lua_isnoneornil(L, arg + 3))
        pm.c = cl_checkvec(L, arg + 1, fname);
    if (axes) {
        for (i = 0; i < 3; i++) pm.u[i] = cl_checkvec(L, arg + 4 + 3 * i, fname);
        if (!cl_axes_orthonormal(pm.u, MESH_AXES_TOL)) cl_argerror(L, arg + 4, fname, "axes are not orthonormal");
    }
    s->kind = CL_MESH;
    s->u.mesh = pm;
    return 1;
}

/* Keeps the Mesh at index mi (0: none) alive for item id in U[-4] (U at index u), made by the
 * first mesh item; may raise (memory) only before it changes anything. */
static void setmeshref(lua_State *L, int u, int id, int mi) {
    lua_rawgeti(L, u, -4);
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        if (mi == 0) return;
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawseti(L, u, -4);
    }
    if (mi) lua_pushvalue(L, mi); else lua_pushnil(L);
    lua_rawseti(L, -2, id + 1);
    lua_pop(L, 1);
}

static int add(lua_State *L, int retry);

/* world:add(item, shape) -> item. */
static int w_add(lua_State *L) {
    return add(L, 1);
}

/* w_add; retry: when the World's memory cannot grow, run a full collection (dropped worlds
 * waiting for it free theirs) and try once more from the start (finalizers may have changed the
 * world; nothing was changed before the failure). */
static int add(lua_State *L, int retry) {
    lworld *lw = hotworld(L, "add");
    cl_shape s;
    int u, id, ismesh, k;
    checkunlocked(L, lw);
    if (lua_isnoneornil(L, 2)) cl_argerror(L, 2, "add", "item is nil");
    if (lua_type(L, 2) == LUA_TNUMBER) {
        double x = (double)lua_tonumber(L, 2);
        if (x != x) cl_argerror(L, 2, "add", "item is NaN");
    }
    ismesh = checkitemshape(L, 3, "add", &s);
    if (!ismesh) lua_settop(L, 3);
    u = pushitems(L);
    if (lw_findid(L, lw, u, 2) >= 0) cl_argerror(L, 2, "add", "item is already in the world");
    if (cl_world_reserve(&lw->w) != CL_OK || lw_fastgrow(L, lw, 2) != 0 || lw_nmgrow(L, lw, 2) != 0) {
        if (!retry) return nomem(L);
        lua_settop(L, u - 1);
        lua_gc(L, LUA_GCCOLLECT, 0);
        return add(L, 0);
    }
    id = cl_world_nextid(&lw->w);
    /* Lua tables first (they may raise); a stale id -> item entry for an unused id is harmless,
     * and so is a mesh kept for it (replaced by the next add of that id) */
    if (ismesh) setmeshref(L, u, id, 3);
    pushidmap(L, u);                    /* checked before anything changes */
    if (!FM_ONLY || lua_type(L, 2) != LUA_TNUMBER || (k = w_numslot(L, 2, lw->fmcap)) < 0) {
        lua_pushvalue(L, 2);
        lua_rawseti(L, u, id + 1);
        lua_pushvalue(L, 2);
        lua_pushinteger(L, id);
        lua_rawset(L, -3);
    } else if (NM_ON && id < lw->nmcap) {
        /* fm and nm alone hold it (lw_nmgrow made nm[id]): no U entry at all */
        lw->nm[id] = w_numcode(L, 2, k);
        lw->nmn++;
    } else {
        /* LuaJIT, or an id nm does not reach (lw_nmgrow): fm alone holds item -> id, U[id + 1]
         * the item */
        lua_pushvalue(L, 2);
        lua_rawseti(L, u, id + 1);
    }
    cl_world_add(&lw->w, &s);   /* cannot fail after the reserve; returns id */
    lw->gen++;                  /* every change counts for the result builders (fresh) */
    fastset(L, lw, u, id);
    lua_pushvalue(L, 2);
    gcreport(L, lw);
    return 1;
}

/* world:remove(item). */
static int w_remove(lua_State *L) {
    lworld *lw = hotworld(L, "remove");
    int u, id, map;
    checkunlocked(L, lw);
    lua_settop(L, 2);
    u = pushitems(L);
    id = lw_checkid(L, lw, u, 2, "remove");
    map = pushidmap(L, u);              /* checked before anything changes */
    if (cl_world_kind(&lw->w, id) == CL_MESH) setmeshref(L, u, id, 0);
    fastclear(L, lw, u, id);
    cl_world_remove(&lw->w, id);
    lw->gen++;
    if (id < lw->nmcap && lw->nm[id] != 0) {
        /* a number item fm and nm alone held: it has no U entry to clear (5.1's raw set of nil
         * to an absent key would insert it: see below) */
        lw->nm[id] = 0;
        lw->nmn--;
        return 0;
    }
#if FM_ONLY && LUA_VERSION_NUM < 504
    /* (fm and nm alone held the number items added with an fm slot: above) a number item not in
     * U[0] (its U[0] replaced through the debug library) must not be set to nil there: 5.1's raw
     * set of nil to an absent key would insert it (a rehash that may allocate, after the core
     * changed): only U[id + 1] goes */
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_pushvalue(L, 2);
        lua_rawget(L, map);
        if (lua_isnil(L, -1)) {
            lua_pushnil(L);
            lua_rawseti(L, u, id + 1);
            return 0;
        }
        lua_pop(L, 1);
    }
#endif
    cl_forget_item(L, u, map, 2, id);
    return 0;
}

/* world:update(item, shape): the hot path is one metatable comparison, one item lookup and the
 * core update (shape read straight from its userdata). */
static int w_update(lua_State *L) {
    lworld *lw = hotworld(L, "update");
    cl_shape s;
    int id, ismesh;
    checkunlocked(L, lw);
    id = hotid(L, lw, 2, "update");
    ismesh = checkitemshape(L, 3, "update", &s);
    /* an AABB item getting another kind needs a slot for that shape in the core */
    if (s.kind != CL_AABB && cl_world_kind(&lw->w, id) == CL_AABB && cl_world_reserve(&lw->w) != CL_OK)
        return nomem(L);
    if (ismesh || cl_world_kind(&lw->w, id) == CL_MESH) {
        /* to or from a mesh: the mesh it keeps alive changes first (may raise) */
        lua_settop(L, 15);
        setmeshref(L, pushitems(L), id, s.kind == CL_MESH ? 3 : 0);
    }
    cl_world_update(&lw->w, id, &s);
    lw->gen++;
    return 0;
}

/* Sets *out to s moved by d, copying only the fields its kind uses. */
static void moved(const cl_shape *s, cl_vec3 d, cl_shape *out) {
    out->kind = s->kind;
    switch (s->kind) {
#define COPY(K, T, m) case K: out->u.m = s->u.m; break;
    CL_KIND_LIST(COPY)
    COPY(CL_MESH, cl_pmesh, mesh)
#undef COPY
    default: break;
    }
    cl_shape_translate(out, d);
}

/* world:translate(item, dx, dy, dz): moves the item's stored shape by the displacement with no
 * collision response (keeps its order). Raises, changing nothing, on a bad number or a result
 * that is not finite (naming dx, dy or dz). */
static int w_translate(lua_State *L) {
    lworld *lw = hotworld(L, "translate");
    cl_vec3 d;
    int id, axis;
    checkunlocked(L, lw);
    id = hotid(L, lw, 2, "translate");
    d = cl_checkvec(L, 3, "translate");
    /* in place in the core (no shape copies); the same finiteness check as cl_shape_moved_finite, world
     * unchanged when an axis fails */
    axis = cl_world_translate(&lw->w, id, d);
    lw->gen++;
    if (axis) return cl_argerror(L, 2 + axis, "translate", "result is not finite");
    return 0;
}

/* Returns the scratch block p of *cap elements of size sz grown to hold at least need (>= 1)
 * through the world's allocator (new elements zeroed, *cap updated), or NULL when that fails
 * (p is then left as it was). */
static void *growscratch(lworld *lw, void *p, int *cap, size_t sz, int need) {
    size_t ncap;
    void *np;
    if (need < 1) need = 1;
    if (need <= *cap) return p;
    if ((size_t)need > (size_t)0x7fffffff / sz) return NULL;
    ncap = (size_t)need + (size_t)need / 2 + 16;
    if (ncap > (size_t)0x7fffffff / sz) ncap = (size_t)need;
    np = lw->w.alloc(lw->w.ud, p, (size_t)*cap * sz, ncap * sz);
    if (np == NULL) return NULL;
    memset((char *)np + (size_t)*cap * sz, 0, (ncap - (size_t)*cap) * sz);
    *cap = (int)ncap;
    return np;
}

/* Frees the translatemany scratch. */
static void freescratch(lworld *lw) {
    if (lw->bi) lw->w.alloc(lw->w.ud, lw->bi, (size_t)lw->bicap * sizeof(bitem), 0);
    if (lw->bm) lw->w.alloc(lw->w.ud, lw->bm, (size_t)lw->bmcap * sizeof(bmark), 0);
    if (lw->bs) lw->w.alloc(lw->w.ud, lw->bs, (size_t)lw->bscap * sizeof(cl_shape), 0);
    lw->bi = NULL; lw->bm = NULL; lw->bs = NULL;
    lw->bicap = lw->bmcap = lw->bscap = lw->bstamp = 0;
    lw->redo = 0;
}

/* Raises "bad argument #arg to 'translatemany' (number expected at index i, got T)" for the
 * non-number at idx (T its __name or type name). Never returns. */
static int batchtypeerror(lua_State *L, int arg, int i, int idx) {
    const char *got;
    if (luaL_getmetafield(L, idx, "__name") && lua_type(L, -1) == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else
        got = luaL_typename(L, idx);
    lua_pushfstring(L, "number expected at index %d, got %s", i, got);
    return cl_argerror(L, arg, "translatemany", lua_tostring(L, -1));
}

/* Raises "bad argument #arg to 'translatemany' (<what> at index i <reason>)". Never returns. */
static int batcherror(lua_State *L, int arg, const char *what, int i, const char *reason) {
    lua_pushfstring(L, "%s at index %d %s", what, i, reason);
    return cl_argerror(L, arg, "translatemany", lua_tostring(L, -1));
}

/* world:translatemany(items, dx, dy, dz): world:translate(items[i], dx[i], dy[i], dz[i]) for
 * i = 1 .. #items in that order, as one call. The arrays are read raw. Every element is checked
 * (and every result found finite) before the first change, so an error changes nothing. An item may
 * appear more than once: its translations add up in order, as separate calls would. */
static int w_translatemany(lua_State *L) {
    lworld *lw = hotworld(L, "translatemany");
    int n, i, map, stamp, ndup = 0;
    checkunlocked(L, lw);
    for (i = 2; i <= 5; i++)
        if (lua_type(L, i) != LUA_TTABLE) cl_typeerror(L, i, "translatemany", "table");
    lua_settop(L, 5);
    map = pushidmap(L, pushitems(L));   /* item -> id, at 7 */
    n = (int)lua_rawlen(L, 2);
    if (n == 0) return 0;
    {
        bitem *bi = (bitem *)growscratch(lw, lw->bi, &lw->bicap, sizeof(bitem), n);
        bmark *bm;
        if (bi == NULL) return nomem(L);
        lw->bi = bi;
        bm = (bmark *)growscratch(lw, lw->bm, &lw->bmcap, sizeof(bmark), lw->w.cap);
        if (bm == NULL) return nomem(L);
        lw->bm = bm;
    }
    if (lw->bstamp == 0x7fffffff) {     /* restart the stamps: forget every old mark */
        memset(lw->bm, 0, (size_t)lw->bmcap * sizeof(bmark));
        lw->bstamp = 0;
    }
    stamp = ++lw->bstamp;
    /* pass 1: ids and offsets, and whether each result is finite, in element order; nothing
     * changes (only the pending shapes of items listed more than once are stored) */
    for (i = 1; i <= n; i++) {
        bitem *b = &lw->bi[i - 1];
        bmark *m;
        int okx, oky, okz, axis, id, fast;
        cl_shape tmp;
        lua_rawgeti(L, 2, i);
        fast = fastid(L, lw, -1);
        if (fast >= 0) {
            id = fast;
        } else {
            lua_rawget(L, map);
            id = idfrommap(L, lw, -1);
            if (id < 0) return batcherror(L, 2, "item", i, "is not in the world");
            if (fast == F_MISS) fastset(L, lw, map - 1, id);
        }
        b->id = id;
        lua_rawgeti(L, 3, i);
        lua_rawgeti(L, 4, i);
        lua_rawgeti(L, 5, i);
        b->d.x = (double)lua_tonumberx(L, -3, &okx);
        b->d.y = (double)lua_tonumberx(L, -2, &oky);
        b->d.z = (double)lua_tonumberx(L, -1, &okz);
        if (!((okx & oky & okz) && (b->d.x - b->d.x) + (b->d.y - b->d.y) + (b->d.z - b->d.z) == 0)) {
            if (!okx) return batchtypeerror(L, 3, i, -3);
            if (b->d.x - b->d.x != 0) return batcherror(L, 3, "number", i, "is not finite");
            if (!oky) return batchtypeerror(L, 4, i, -2);
            if (b->d.y - b->d.y != 0) return batcherror(L, 4, "number", i, "is not finite");
            if (!okz) return batchtypeerror(L, 5, i, -1);
            return batcherror(L, 5, "number", i, "is not finite");
        }
        lua_settop(L, map);
        m = &lw->bm[id];
        if (m->stamp != stamp) {        /* first appearance: moves the world's shape */
            m->stamp = stamp;
            m->first = i - 1;
            m->dup = -1;
            axis = cl_shape_moved_finite(cl_world_shape(&lw->w, id, &tmp), b->d);
        } else {                        /* moves the result of the item's earlier elements */
            if (m->dup < 0) {
                cl_shape *bs = (cl_shape *)growscratch(lw, lw->bs, &lw->bscap, sizeof(cl_shape), ndup + 1);
                if (bs == NULL) return nomem(L);
                lw->bs = bs;
                m->dup = ndup++;
                moved(cl_world_shape(&lw->w, id, &tmp), lw->bi[m->first].d, &lw->bs[m->dup]);
            }
            axis = cl_shape_moved_finite(&lw->bs[m->dup], b->d);
            if (!axis) moved(&lw->bs[m->dup], b->d, &lw->bs[m->dup]);
        }
        if (axis) return batcherror(L, 2 + axis, "result", i, "is not finite");
    }
    /* pass 2: the same additions, applied in order, in place (cl_world_translate adds exactly
     * as moved() does); nothing can fail any more: pass 1 checked every result is finite */
    for (i = 0; i < n; i++) (void)cl_world_translate(&lw->w, lw->bi[i].id, lw->bi[i].d);
    lw->gen++;
    return 0;
}

/* world:has(item) -> boolean. */
static int w_has(lua_State *L) {
    int u;
    lworld *lw = hotworld(L, "has");
    lua_settop(L, 2);
    u = pushitems(L);
    lua_pushboolean(L, lw_findid(L, lw, u, 2) >= 0);
    return 1;
}

/* world:count() -> integer. */
static int w_count(lua_State *L) {
    lworld *lw = hotworld(L, "count");
    lua_pushinteger(L, lw->w.count);
    return 1;
}

/* world:shape(item) -> a new copy of its shape. */
static int w_shape(lua_State *L) {
    lworld *lw = hotworld(L, "shape");
    int u, id;
    cl_shape tmp;
    lua_settop(L, 2);
    u = pushitems(L);
    id = lw_checkid(L, lw, u, 2, "shape");
    if (cl_world_kind(&lw->w, id) == CL_MESH) {
        /* a mesh item: its mesh (shared, from U[-4]) and placement */
        const cl_pmesh *pm = &cl_world_shape(&lw->w, id, &tmp)->u.mesh;
        int i;
        lua_rawgeti(L, u, -4);
        if (lua_type(L, -1) != LUA_TTABLE) tampered(L);
        lua_rawgeti(L, -1, id + 1);
        if (cl_tomesh(L, -1) != pm->m) tampered(L);
        lua_pushnumber(L, pm->c.x); lua_pushnumber(L, pm->c.y); lua_pushnumber(L, pm->c.z);
        for (i = 0; i < 3; i++) {
            lua_pushnumber(L, pm->u[i].x); lua_pushnumber(L, pm->u[i].y); lua_pushnumber(L, pm->u[i].z);
        }
        return 13;
    }
    cl_pushshape(L, cl_world_shape(&lw->w, id, &tmp));
    return 1;
}

static void release(lua_State *L, lworld *lw) {
    lw->gen++;
    freescratch(lw);
    lw_freefast(lw);
    lw->npool = 0;
    lw->nhpool = 0;
    cl_world_free(&lw->w);
    lw->alive = 0;
    lua_newtable(L);
    w_setuv(L, 1);
}

/* world:destroy(). */
static int w_destroy(lua_State *L) {
    lworld *lw = hotworld(L, "destroy");
    checkunlocked(L, lw);
    release(L, lw);
    return 0;
}

/* __gc: frees the core world if still alive; nothing for a value that is not a World (it can
 * be called by hand: getmetatable(w).__gc(x)). Called by hand from a filter of this world it
 * raises the lock error and frees nothing: the running call still uses the world (the
 * collector itself never finalizes a world a running call holds). */
static int w_gc(lua_State *L) {
    lworld *lw = lw_toworld(L);
    if (lw != NULL && lw->alive) {
        checkunlocked(L, lw);
        lw->gen++;      /* a result builder this finalizer interrupts must see it (fresh), as
                         * after destroy: __gc called by hand from a finalizer (review rev18's F2) */
        freescratch(lw);
        lw_freefast(lw);
        cl_world_free(&lw->w);
        lw->alive = 0;
    }
    return 0;
}

#if LUA_VERSION_NUM >= 504
/* __close: destroys the world (nothing if already destroyed); a non-World is a type error. */
static int w_close(lua_State *L) {
    lworld *lw = lw_toworld(L);
    if (lw == NULL) return cl_typeerror(L, 1, "__close", CL_MT_WORLD);
    if (lw->alive) {
        checkunlocked(L, lw);
        release(L, lw);
    }
    return 0;
}
#endif

/* __tostring: "World(N items)" or "World(destroyed)"; a non-World is a type error. */
static int w_tostring(lua_State *L) {
    lworld *lw = lw_toworld(L);
    if (lw == NULL) return cl_typeerror(L, 1, "__tostring", CL_MT_WORLD);
    if (!lw->alive) lua_pushliteral(L, "World(destroyed)");
    else lua_pushfstring(L, "World(%d items)", lw->w.count);
    return 1;
}

/* Every method is registered with the hot upvalues (lw_pushhotupvalues): hotworld compares the
 * metatable with an upvalue instead of looking it up in the registry. */
static const luaL_Reg world_methods[] = {
    { "add", w_add }, { "remove", w_remove }, { "update", w_update }, { "translate", w_translate },
    { "translatemany", w_translatemany }, { "has", w_has }, { "count", w_count },
    { "shape", w_shape }, { "query", lw_query }, { "querypoint", lw_querypoint }, { "queryplanes", lw_queryplanes },
    { "raycast", lw_raycast }, { "raycastall", lw_raycastall }, { "pairs", lw_pairs },
    { "sweep", lw_sweep }, { "move", lw_move }, { "check", lw_check }, { "resolve", lw_resolve },
    { "destroy", w_destroy },
    { NULL, NULL }
};

static const luaL_Reg world_metamethods[] = {
    { "__gc", w_gc },
#if LUA_VERSION_NUM >= 504
    { "__close", w_close },
#endif
    { "__tostring", w_tostring }, { NULL, NULL }
};

void cl_open_world(lua_State *L) {
    int i;
    cl_newclass(L, CL_MT_WORLD, NULL, world_metamethods);
    luaL_getmetatable(L, CL_MT_WORLD);
    lua_pushvalue(L, -1);
    cl_rawsetp(L, LUA_REGISTRYINDEX, &lw_world_key);
    lua_getfield(L, -1, "__index");
    luaL_setfuncs(L, world_methods, lw_pushhotupvalues(L));
    lua_pop(L, 2);
    lua_createtable(L, B_COUNT, 0);
    for (i = 1; i < B_COUNT; i++) {
        int nup = lw_pushhotupvalues(L);
        lua_pushcclosure(L, body_fns[i], nup);
        lua_rawseti(L, -2, i);
    }
    cl_rawsetp(L, LUA_REGISTRYINDEX, &lw_bodies_key);
    lua_pushcfunction(L, w_new);
    lua_setfield(L, -2, "World");
}
