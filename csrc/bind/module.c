/* collide Lua binding: the module entry point, the only exported symbol of collide.so. */
#include "bind.h"

/* Defined in the binding files (the free functions in funcs.c, type in common.c). */
void cl_open_funcs(lua_State *L);
int cl_bind_type(lua_State *L);
void cl_open_ffi(lua_State *L);  /* ffi.c: the LuaJIT FFI fast path; sets module._ffi */

/* Adds every class of cl_classes that has an opener (the shape kinds, Ray, Polygon), the free
 * functions and collide.type to the module table on top. */
void cl_open_shapes(lua_State *L) {
    int k;
    for (k = 0; k < CL_K_CLASSES; k++)
        if (cl_classes[k].open != NULL) cl_classes[k].open(L);
    cl_open_funcs(L);
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
