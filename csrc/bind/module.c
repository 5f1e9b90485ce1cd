/* collide Lua binding: the module entry point, the only exported symbol of collide.so. */
#include "bind.h"

/* Defined in the binding files (one per type; the free functions in funcs.c, type in common.c). */
void cl_open_aabb(lua_State *L);
void cl_open_ray(lua_State *L);
void cl_open_obb(lua_State *L);
void cl_open_sphere(lua_State *L);
void cl_open_funcs(lua_State *L);
int cl_bind_type(lua_State *L);
void cl_open_ffi(lua_State *L);  /* ffi.c: the LuaJIT FFI fast path; sets module._ffi */

/* Adds AABB, Ray, OBB, Sphere, Polygon, their classes and the free functions to the module table on top. */
void cl_open_shapes(lua_State *L) {
    cl_open_aabb(L);
    cl_open_ray(L);
    cl_open_obb(L);
    cl_open_sphere(L);
    cl_open_funcs(L);
    cl_open_polygon(L);
    cl_open_mesh(L);
    cl_open_planes(L);
    lua_pushcfunction(L, cl_bind_type);
    lua_setfield(L, -2, "type");
}

/* require "collide": returns the module table. */
__attribute__((visibility("default"))) int luaopen_collide(lua_State *L) {
    /* The openers below keep up to ~28 values on the stack; Lua only guarantees LUA_MINSTACK (20)
     * to a C function, and Lua 5.1 does not grow it on push (a plain `lua5.1 script.lua` that
     * required collide wrote past the stack). */
    luaL_checkstack(L, 48, "collide: not enough Lua stack to open the module");
    lua_newtable(L);
    lua_pushliteral(L, "0.1.0");
    lua_setfield(L, -2, "_VERSION");
    cl_open_shapes(L);
    cl_open_world(L);
    cl_open_character(L);
    cl_open_bump(L);
    cl_open_ffi(L);
    return 1;
}
