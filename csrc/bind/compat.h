/* collide Lua binding: every difference between Lua 5.1 (and LuaJIT 2.1), 5.2, 5.3, 5.4 and 5.5
 * (5.5 needs nothing beyond what 5.4 does but cl_gcdebt: LUA_GCSTEP changed there).
 * No other binding file tests LUA_VERSION_NUM. Included by bind.h after lua.h and lauxlib.h.
 * Helpers defined here are static inline, so a file that does not use one gets no warning. */
#ifndef CL_COMPAT_H
#define CL_COMPAT_H

#include "lua.h"
#include "lauxlib.h"

#if LUA_VERSION_NUM == 501
#include "lualib.h"
#ifdef LUA_JITLIBNAME
/* LuaJIT (its lualib.h names the jit library): ffi.c builds the FFI fast path. */
#define CL_LUAJIT 1
#endif
#endif

#if LUA_VERSION_NUM == 501
/* Lua 5.1 and LuaJIT 2.1. LuaJIT already declares some of these; the macros below route both
 * to one implementation so the two 5.1 flavours behave identically. */

/// Registers the functions of l into the table at the top (below nup upvalues), each with the
/// nup upvalues; pops the upvalues (as 5.2's luaL_setfuncs).
static inline void cl_compat_setfuncs(lua_State *L, const luaL_Reg *l, int nup) {
    for (; l->name != NULL; l++) {
        int i;
        for (i = 0; i < nup; i++) lua_pushvalue(L, -nup);
        lua_pushcclosure(L, l->func, nup);
        lua_setfield(L, -(nup + 2), l->name);
    }
    lua_pop(L, nup);
}
#undef luaL_setfuncs
#define luaL_setfuncs(L, l, n) cl_compat_setfuncs((L), (l), (n))

#ifndef luaL_newlib
#define luaL_newlib(L, l) (lua_createtable((L), 0, (int)(sizeof(l) / sizeof((l)[0]) - 1)), luaL_setfuncs((L), (l), 0))
#endif

/// The number at idx (numeric strings converted, as lua_tonumber), *isnum set to whether it was one.
static inline lua_Number cl_compat_tonumberx(lua_State *L, int idx, int *isnum) {
    lua_Number n = lua_tonumber(L, idx);
    *isnum = (n != 0 || lua_isnumber(L, idx));
    return n;
}
#undef lua_tonumberx
#define lua_tonumberx(L, i, n) cl_compat_tonumberx((L), (i), (n))

#define lua_rawlen(L, i) lua_objlen((L), (i))

/// Pushes t[p] for the table t at idx (idx must not be a relative stack index).
static inline void cl_rawgetp(lua_State *L, int idx, const void *p) {
    lua_pushlightuserdata(L, (void *)p);
    lua_rawget(L, idx);
}
/// t[p] = value at the top, popped (idx must not be a relative stack index).
static inline void cl_rawsetp(lua_State *L, int idx, const void *p) {
    lua_pushlightuserdata(L, (void *)p);
    lua_insert(L, -2);
    lua_rawset(L, idx);
}

#else /* 5.2, 5.3, 5.4 */

/// Pushes t[p] for the table t at idx.
static inline void cl_rawgetp(lua_State *L, int idx, const void *p) { (void)lua_rawgetp(L, idx, p); }
/// t[p] = value at the top, popped.
static inline void cl_rawsetp(lua_State *L, int idx, const void *p) { lua_rawsetp(L, idx, p); }

#endif

/// Tells the collector that n bytes were allocated outside its objects (a World's memory), so that
/// it paces its cycles as if Lua objects of that size had been made: the steps that many bytes
/// would have run, which may finish a cycle and run finalizers. Before 5.5 one step request of n
/// kilobytes does that work; 5.5's step request does one basic step whatever its size, so it is
/// asked once per step size (its "GC granularity", 200 tables' worth of bytes by default).
static inline void cl_gcdebt(lua_State *L, size_t n) {
#if LUA_VERSION_NUM >= 505
    size_t step = (size_t)lua_gc(L, LUA_GCPARAM, LUA_GCPSTEPSIZE, -1);
    if (step < 1024) step = 1024;
    for (; n >= step; n -= step) (void)lua_gc(L, LUA_GCSTEP, step);
#else
    (void)lua_gc(L, LUA_GCSTEP, (int)(n > (size_t)0x7fffffff * 1024 ? 0x7fffffff : n / 1024));
#endif
}

#if LUA_VERSION_NUM >= 504
/// A new full userdata of sz bytes with no user values (5.4 would otherwise reserve one).
#define cl_newuserdata(L, sz) lua_newuserdatauv((L), (sz), 0)
#else
#define cl_newuserdata(L, sz) lua_newuserdata((L), (sz))
#endif

#endif
