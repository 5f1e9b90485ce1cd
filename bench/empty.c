/* bench_empty: the floor for a Lua-to-C call. Every function ignores its arguments and pushes a
 * fixed number of results, so a benchmark can time "a C call with the same arguments and the
 * same number of results" next to the real query. Built by bench/run.sh, not part of collide. */
#include "lua.h"
#include "lauxlib.h"

/// Returns nothing.
static int ret0(lua_State *L) { (void)L; return 0; }
/// Returns true (the shape of contains/overlaps).
static int ret1b(lua_State *L) { lua_pushboolean(L, 1); return 1; }
/// Returns one number (plane).
static int ret1n(lua_State *L) { lua_pushnumber(L, 1.0); return 1; }
/// Returns two numbers (clip).
static int ret2n(lua_State *L) { lua_pushnumber(L, 1.0); lua_pushnumber(L, 2.0); return 2; }
/// Returns three numbers (closest, reflect).
static int ret3n(lua_State *L)
{
    lua_pushnumber(L, 1.0); lua_pushnumber(L, 2.0); lua_pushnumber(L, 3.0);
    return 3;
}
/// Returns four numbers (raycast, segment, closestonsegment).
static int ret4n(lua_State *L)
{
    lua_pushnumber(L, 1.0); lua_pushnumber(L, 2.0); lua_pushnumber(L, 3.0); lua_pushnumber(L, 4.0);
    return 4;
}
/// Returns five numbers (world:raycast's item, t, nx, ny, nz).
static int ret5n(lua_State *L)
{
    lua_pushnumber(L, 1.0); lua_pushnumber(L, 2.0); lua_pushnumber(L, 3.0); lua_pushnumber(L, 4.0);
    lua_pushnumber(L, 5.0);
    return 5;
}
/// Returns a short string and a number (toi's state, t).
static int retsn(lua_State *L) { lua_pushliteral(L, "touching"); lua_pushnumber(L, 0.5); return 2; }
/// Returns a new empty userdata whose metatable's __index holds these functions, so that
/// obj:ret1b(...) costs the same method lookup as box:contains(...).
static int object(lua_State *L)
{
    lua_newuserdata(L, 8);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_setmetatable(L, -2);
    return 1;
}

static const luaL_Reg funcs[] = {
    {"ret0", ret0}, {"ret1b", ret1b}, {"ret1n", ret1n}, {"ret2n", ret2n}, {"ret3n", ret3n},
    {"ret4n", ret4n}, {"ret5n", ret5n}, {"retsn", retsn}, {NULL, NULL}
};

/// Sets every function of funcs into the table at the top of the stack.
static void setfuncs(lua_State *L)
{
    const luaL_Reg *r;
    for (r = funcs; r->name != NULL; r++) {
        lua_pushcfunction(L, r->func);
        lua_setfield(L, -2, r->name);
    }
}

/// The module table: the functions above plus object().
int luaopen_bench_empty(lua_State *L)
{
    lua_newtable(L);                 /* module */
    setfuncs(L);
    lua_newtable(L);                 /* metatable */
    lua_newtable(L);                 /* methods */
    setfuncs(L);
    lua_setfield(L, -2, "__index");
    lua_pushcclosure(L, object, 1);
    lua_setfield(L, -2, "object");
    return 1;
}
