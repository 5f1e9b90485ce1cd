/* collide Lua binding, world:resolve: pushes an item out of the items it overlaps (core:
 * csrc/core/world_resolve.c). The filter is asked once per item met, with the world locked; the
 * item is moved only once the core has answered, so a filter error changes nothing. */
#include "lworld.h"

/* Context of the resolve filter callback. */
typedef struct resolvectx {
    lua_State *L;
    const lworld *lw;
    int u;              /* index of the id -> item table */
} resolvectx;

/* Calls filter(item, other) (filter at 3, item at 2): truthy keeps other solid. */
static cl_resp keep(void *ctx, int id, int other) {
    resolvectx *c = (resolvectx *)ctx;
    lua_State *L = c->L;
    int solid;
    (void)id;
    lua_pushvalue(L, 3);
    lua_pushvalue(L, 2);
    pushitem(L, c->lw, c->u, other);
    lua_call(L, 2, 1);
    solid = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return solid ? CL_RESP_SLIDE : CL_RESP_IGNORE;
}

/* Body of world:resolve(item [, filter]) -> dx, dy, dz, n (run() calls it locked with a filter). */
int lw_b_resolve(lua_State *L) {
    lworld *lw = hotworld(L, "resolve");
    int id = hotid(L, lw, 2, "resolve"), n;
    cl_shape end;
    cl_vec3 d;
    resolvectx ctx;
    lua_settop(L, 3);
    ctx.L = L;
    ctx.lw = lw;
    ctx.u = pushitems(L);
    lw->gen++;
    n = cl_world_resolve(&lw->w, id, lua_isnil(L, 3) ? NULL : keep, &ctx, &end, &d);
    if (n < 0) return nomem(L);
    if (d.x != 0 || d.y != 0 || d.z != 0) {
        cl_world_update(&lw->w, id, &end);
        lw->gen++;                      /* every change counts for the result builders */
    }
    lua_pushnumber(L, d.x);
    lua_pushnumber(L, d.y);
    lua_pushnumber(L, d.z);
    lua_pushinteger(L, n);
    return 4;
}

/* world:resolve(item [, filter]) -> dx, dy, dz, n. */
int lw_resolve(lua_State *L) {
    lworld *lw = hotworld(L, "resolve");
    checkunlocked(L, lw);
    if (cl_world_kind(&lw->w, hotid(L, lw, 2, "resolve")) == CL_MESH)
        cl_argerror(L, 2, "resolve", "item is a mesh (mesh items do not move)");
    if (!lua_isnoneornil(L, 3) && lua_type(L, 3) != LUA_TFUNCTION) cl_typeerror(L, 3, "resolve", "function");
    return run(L, 3, B_RESOLVE, "resolve");
}
