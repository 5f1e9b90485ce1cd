/* bench_meshc: the C side of bench/mesh.lua's "Lua <= C + 2 x empty" verdict, measured in the same
 * process as the Lua calls and interleaved with them round by round (bench/lib.lua's compare), so
 * that both see the same machine load and the same caches. Built by bench/run.sh from this file
 * and the core sources (csrc/core), like build/bench-mesh; not part of collide.
 *
 *   local C = require "bench_meshc"
 *   local m = C.mesh(v, idx)      -- a cl_mesh built from the same flat 1-based tables as collide.Mesh
 *   m:rays(flat)                  -- flat = { ox, oy, oz, dx, dy, dz, ... }: the rays to cast (cl_ray_make)
 *   s = m:cast(n)                 -- casts every ray n times with cl_mesh_raycast; the sum of hit t
 */
#include <math.h>
#include <stdlib.h>
#include "lua.h"
#include "lauxlib.h"
#include "cl.h"
#include "mesh.h"

#if LUA_VERSION_NUM < 502
#define lua_rawlen lua_objlen
#endif

typedef struct cmesh {
    cl_mesh m;
    int built;
    cl_ray *rays;
    int nrays;
} cmesh;

static void *al(void *ud, void *p, size_t o, size_t n)
{
    (void)ud; (void)o;
    if (n == 0) { free(p); return NULL; }
    return realloc(p, n);
}

static cmesh *check(lua_State *L) { return (cmesh *)luaL_checkudata(L, 1, "bench_meshc"); }

static int m_gc(lua_State *L)
{
    cmesh *c = check(L);
    if (c->built) cl_mesh_free(&c->m);
    c->built = 0;
    free(c->rays);
    c->rays = NULL;
    return 0;
}

static int m_rays(lua_State *L)
{
    cmesh *c = check(L);
    int n, k;
    luaL_checktype(L, 2, LUA_TTABLE);
    n = (int)lua_rawlen(L, 2) / 6;
    free(c->rays);
    c->rays = (cl_ray *)malloc((size_t)(n > 0 ? n : 1) * sizeof(cl_ray));
    c->nrays = 0;
    if (c->rays == NULL) return luaL_error(L, "out of memory");
    for (k = 0; k < n; k++) {
        double q[6];
        int j;
        for (j = 0; j < 6; j++) {
            lua_rawgeti(L, 2, 6 * k + j + 1);
            q[j] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        if (!cl_ray_make(&c->rays[c->nrays], cl_v3(q[0], q[1], q[2]), cl_v3(q[3], q[4], q[5])))
            return luaL_error(L, "ray %d has a zero direction", k + 1);
        c->nrays++;
    }
    return 0;
}

static int m_cast(lua_State *L)
{
    cmesh *c = check(L);
    lua_Integer n = luaL_checkinteger(L, 2), q;
    double sum = 0;
    int k;
    for (q = 0; q < n; q++)
        for (k = 0; k < c->nrays; k++) {
            cl_hit h;
            size_t tri;
            if (cl_mesh_raycast(&c->m, &c->rays[k], HUGE_VAL, &h, &tri)) sum += h.t;
        }
    lua_pushnumber(L, sum);
    return 1;
}

static int l_mesh(lua_State *L)
{
    size_t nv, nt, i;
    cmesh *c;
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    nv = lua_rawlen(L, 1) / 3;
    nt = lua_rawlen(L, 2) / 3;
    c = (cmesh *)lua_newuserdata(L, sizeof *c);
    c->built = 0;
    c->rays = NULL;
    c->nrays = 0;
    luaL_getmetatable(L, "bench_meshc");
    lua_setmetatable(L, -2);
    if (cl_mesh_init(&c->m, nv, nt, 1, al, NULL) != CL_OK) return luaL_error(L, "out of memory");
    c->built = 1;  /* freeable from here on */
    for (i = 0; i < 3 * nv; i++) {
        lua_rawgeti(L, 1, (int)i + 1);
        c->m.v[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    for (i = 0; i < 3 * nt; i++) {
        lua_Number x;
        lua_rawgeti(L, 2, (int)i + 1);
        x = lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!(x >= 1 && x <= (lua_Number)nv)) return luaL_error(L, "index %d out of range", (int)i + 1);
        c->m.idx[i] = (unsigned)x - 1;
    }
    if (cl_mesh_build(&c->m) != CL_OK) return luaL_error(L, "out of memory");
    return 1;
}

int luaopen_bench_meshc(lua_State *L)
{
    static const luaL_Reg methods[] = { { "rays", m_rays }, { "cast", m_cast }, { NULL, NULL } };
    int k;
    luaL_newmetatable(L, "bench_meshc");
    lua_pushcfunction(L, m_gc);
    lua_setfield(L, -2, "__gc");
    lua_newtable(L);
    for (k = 0; methods[k].name; k++) {
        lua_pushcfunction(L, methods[k].func);
        lua_setfield(L, -2, methods[k].name);
    }
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushcfunction(L, l_mesh);
    lua_setfield(L, -2, "mesh");
    return 1;
}
