/* collide Lua binding, world:move and world:check: the response callback that calls the filter,
 * the collision tables with their spares (U[-2]), and the commit of a move (redo). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lworld.h"

/* Context of the move filter callback. */
typedef struct movectx {
    lua_State *L;
    const lworld *lw;
    int u;              /* index of the id -> item table */
    int farg;           /* the filter's argument number in errors (6; a character's move: 5) */
    const char *fname;
} movectx;

/* Move filter callback: calls filter(item, other) (filter at 6, item at 2) and maps its result
 * to a response (interned strings compared with the UV_RESP upvalues of the running move or
 * check); raises on an unknown response. */
static cl_resp respond(void *ctx, int mover, int other) {
    movectx *c = (movectx *)ctx;
    lua_State *L = c->L;
    int i;
    (void)mover;
    lua_pushvalue(L, 6);
    lua_pushvalue(L, 2);
    pushitem(L, c->lw, c->u, other);
    lua_call(L, 2, 1);
    if (!lua_toboolean(L, -1)) { lua_pop(L, 1); return CL_RESP_IGNORE; }
    for (i = 1; i <= 4; i++)
        if (lua_rawequal(L, -1, lua_upvalueindex(UV_RESP + i))) { lua_pop(L, 1); return (cl_resp)i; }
    {
        const char *s;
        if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) s = lua_tostring(L, -1);
        else if (lua_type(L, -1) == LUA_TBOOLEAN) s = "true";
        else s = luaL_typename(L, -1);
        lua_pushfstring(L, "filter returned an unknown response '%s'", s);
        cl_argerror(L, c->farg, c->fname, lua_tostring(L, -1));
    }
    return CL_RESP_IGNORE;
}

/* Pushes ax, ay, az and the collision table of cols[0..n-1] (into out at 7 when hasout, with
 * the spare tables; else a new table, or the spare empty one for none). U at u; gen as fresh. */
static void pushresults(lua_State *L, lworld *lw, int u, cl_vec3 a, const cl_col *cols, int n,
                        int hasout, unsigned gen, const char *fname) {
    int t, i;
    lua_pushnumber(L, a.x);
    lua_pushnumber(L, a.y);
    lua_pushnumber(L, a.z);
    if (hasout) {
        lua_pushvalue(L, 7);
    } else if (n == 0) {
        lua_rawgeti(L, u, -1);          /* the spare empty table: no garbage */
        if (lua_type(L, -1) == LUA_TTABLE) {
            lw_cleartail(L, lua_gettop(L), 0);
        } else {                        /* replaced through the debug library */
            lua_pop(L, 1);
            lua_newtable(L);
        }
    } else {
        lua_createtable(L, n, 0);
    }
    t = lua_gettop(L);
    for (i = 0; i < n; i++) {
        cl_col c;
        fresh(L, lw, gen, fname);           /* the tables allocate; nothing committed yet */
        c = cols[i];
        if (hasout) lw_poolinner(L, &lw->npool, -2, 6, u, t, i + 1);
        else lua_createtable(L, 0, 6);
        lua_pushvalue(L, lua_upvalueindex(UV_OTHER));
        pushitem(L, lw, u, c.other);
        lua_rawset(L, -3);
        lua_pushvalue(L, lua_upvalueindex(UV_TYPE));
        lua_pushvalue(L, lua_upvalueindex(UV_RESP + (int)c.type));
        lua_rawset(L, -3);
        hotnum(L, UV_T, c.t);
        hotnum(L, UV_NX, c.n.x);
        hotnum(L, UV_NY, c.n.y);
        hotnum(L, UV_NZ, c.n.z);
        if (hasout) lua_pop(L, 1);
        else lua_rawseti(L, t, i + 1);
    }
    if (hasout) lw_pooltail(L, &lw->npool, POOLMAX, -2, u, t, n);
}

/* Shared body of move and check on the world lw at 1 (a function with the hot upvalues):
 * -> ax, ay, az, cols, n.
 * Failure leaves the world unchanged: filter errors and CL_ENOMEM happen inside the core, which
 * is asked never to commit (it leaves the end shape in w.mend). A move without collisions is
 * committed right after the core returns, as the core's own commit would (cl_world_update cannot
 * fail); nothing after it allocates (the spare table or out, numbers only). A move with
 * collisions builds its Lua tables (which may raise a memory error) while the item still has its
 * old shape, and is committed with cl_world_update by the caller (redo) once nothing can fail:
 * right after domove returns, or, with a filter, after run()'s protected call returned without
 * error (Lua 5.1 may run a collection step, hence finalizers that raise, as that call returns).
 * One update leaves the item as the former commit by the core, undo and redo did: its box,
 * last displacement and stale-leaf state follow from the old and new shapes and its leaf, which
 * the undo did not change. */
static int domove(lua_State *L, lworld *lw, const char *fname, int commit) {
    cl_vec3 d, a;
    cl_shape end;
    double seq = 0;
    int u, id, filter, hasout, n;
    unsigned gen;
    movectx ctx;
    id = hotid(L, lw, 2, fname);
    if (cl_world_kind(&lw->w, id) == CL_MESH) cl_argerror(L, 2, fname, "item is a mesh (mesh items do not move)");
    d = cl_checkvec(L, 3, fname);
    filter = optfilter(L, 6, fname);
    hasout = opttable(L, 7, fname);
    /* above every argument, after their checks (so an absent filter or out reads none); no
     * settop to 7: it was a tenth of the binding's cost of a move without collisions */
    u = pushitems(L);
    ctx.L = L;
    ctx.lw = lw;
    ctx.u = u;
    ctx.farg = 6;
    ctx.fname = fname;
    /* with a filter this runs locked inside run(); the lock check above saw the caller's state */
    lw->gen++;
    n = cl_world_move(&lw->w, id, d, filter ? respond : NULL, &ctx, 0, &a);
    gen = lw->gen;                      /* after the filter's own calls, if any */
    if (n < 0) return nomem(L);
    if (commit) {
        if (n == 0) {
            cl_world_update(&lw->w, id, &lw->w.mend);
            gen = ++lw->gen;            /* a change (for builders running further out) */
        } else {
            /* copied now: a finalizer run while the tables are built may move another item */
            end = lw->w.mend;
            seq = lw->w.items[id].seq;
        }
    }
    pushresults(L, lw, u, a, lw->w.cols, n, hasout, gen, fname);
    /* nothing below raises: the caller commits the redo (redo) once nothing can fail any more */
    if (commit && n > 0) {
        lw->redo = 1;
        lw->redoid = id;
        lw->redoseq = seq;
        lw->redoshape = end;
    }
    lua_pushinteger(L, n);
    return 5;                   /* ax, ay, az, cols, n */
}

int lw_b_move(lua_State *L) { return domove(L, hotworld(L, "move"), "move", 1); }   /* via run */
int lw_b_check(lua_State *L) { return domove(L, hotworld(L, "check"), "check", 0); }

/* world:move(item, dx, dy, dz[, filter[, out]]) -> ax, ay, az, cols, n. */
int lw_move(lua_State *L) {
    lworld *lw = hotworld(L, "move");
    int n;
    checkunlocked(L, lw);
    if (!lua_isnoneornil(L, 6)) return run(L, 6, B_MOVE, "move");
    n = domove(L, lw, "move", 1);
    redo(lw);
    return n;
}

/* world:check(item, dx, dy, dz[, filter[, out]]) -> as move, changing nothing. */
int lw_check(lua_State *L) {
    lworld *lw = hotworld(L, "check");
    checkunlocked(L, lw);
    if (lua_isnoneornil(L, 6)) return domove(L, lw, "check", 0);
    return run(L, 6, B_CHECK, "check");
}

/* Frees the core world and drops the item tables. */

/* character:move's body (see character.c) on the stack world, item, dx, dy, dz, filter, out,
 * character, for live item id: -> ax, ay, az, cols, n as world:move. The core commits the
 * character's legs as it goes; a move with collisions is put back at its start while the tables
 * are built and committed by the caller's redo, as domove does, so a failure (a filter error:
 * the caller puts the item back; out of memory) leaves the item where it was. */
int lw_charmove(lua_State *L, lworld *lw, int id, cl_char *c, const char *fname) {
    cl_vec3 d = cl_v3((double)lua_tonumber(L, 3), (double)lua_tonumber(L, 4), (double)lua_tonumber(L, 5));
    cl_vec3 a;
    cl_shape tmp, start = *cl_world_shape(&lw->w, id, &tmp), end;
    double seq = lw->w.items[id].seq;
    int u = pushitems(L), n, filter = !lua_isnil(L, 6), hasout = !lua_isnil(L, 7);
    unsigned gen;
    movectx ctx;
    ctx.L = L;
    ctx.lw = lw;
    ctx.u = u;
    ctx.farg = 5;
    ctx.fname = fname;
    lw->gen++;
    n = cl_char_move(c, &lw->w, id, d, filter ? respond : NULL, &ctx, &a);
    gen = lw->gen;
    if (n < 0) return nomem(L);
    if (n > 0) {
        end = *cl_world_shape(&lw->w, id, &tmp);
        cl_world_update(&lw->w, id, &start);
    }
    pushresults(L, lw, u, a, c->cols, n, hasout, gen, fname);
    if (n > 0) {
        lw->redo = 1;
        lw->redoid = id;
        lw->redoseq = seq;
        lw->redoshape = end;
    }
    lua_pushinteger(L, n);
    return 5;
}
