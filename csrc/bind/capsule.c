/* collide Lua binding: collide.Capsule. */
#include <stdio.h>
#include <math.h>

#include "bind.h"

/* Reads ax,ay,az, bx,by,bz, r from the seven arguments starting at base into *out; raises (naming
 * fname) if one is not a finite number or r is negative. Writes *out only when all are valid. */
static void checkcapsule(lua_State *L, int base, const char *fname, cl_capsule *out) {
    cl_vec3 a = cl_checkvec(L, base, fname), b = cl_checkvec(L, base + 3, fname);
    double r = cl_checkfinite(L, base + 6, fname);
    if (r < 0) cl_argerror(L, base + 6, fname, "radius is negative");
    out->a = a;
    out->b = b;
    out->r = r;
}

/* The capsule at argument 1, else a type error naming fname. */
static cl_capsule *selfcapsule(lua_State *L, const char *fname) {
    return (cl_capsule *)cl_checkkind(L, CL_CAPSULE, fname);
}

/* collide.Capsule(ax,ay,az, bx,by,bz, r) -> a new capsule. */
static int capsule_new(lua_State *L) {
    cl_capsule c;
    checkcapsule(L, 1, "Capsule", &c);
    *(cl_capsule *)cl_newkind(L, CL_CAPSULE) = c;
    return 1;
}

/* capsule:segment() -> ax,ay,az, bx,by,bz. */
static int capsule_segment(lua_State *L) {
    const cl_capsule *c = selfcapsule(L, "segment");
    lua_pushnumber(L, c->a.x);
    lua_pushnumber(L, c->a.y);
    lua_pushnumber(L, c->a.z);
    lua_pushnumber(L, c->b.x);
    lua_pushnumber(L, c->b.y);
    lua_pushnumber(L, c->b.z);
    return 6;
}

/* capsule:radius() -> r. */
static int capsule_radius(lua_State *L) {
    lua_pushnumber(L, selfcapsule(L, "radius")->r);
    return 1;
}

/* capsule:set(ax,ay,az, bx,by,bz, r) -> capsule, changed in place only if every argument is valid. */
static int capsule_set(lua_State *L) {
    cl_capsule *c = selfcapsule(L, "set");
    cl_capsule nc;
    checkcapsule(L, 2, "set", &nc);
    *c = nc;
    lua_pushvalue(L, 1);
    return 1;
}

/* tostring(capsule) -> "Capsule(ax, ay, az, bx, by, bz, r)". */
static int capsule_tostring(lua_State *L) {
    const cl_capsule *c = selfcapsule(L, "__tostring");
    char buf[256];
    snprintf(buf, sizeof buf, "Capsule(%.14g, %.14g, %.14g, %.14g, %.14g, %.14g, %.14g)", c->a.x, c->a.y, c->a.z,
             c->b.x, c->b.y, c->b.z, c->r);
    lua_pushstring(L, buf);
    return 1;
}

/* contains, overlaps, penetration, raycast, closest, plane, aabb, translate, __eq: through the kind table */
CL_KIND_METHODS(capsule, CL_CAPSULE)

static const luaL_Reg capsule_methods[] = {
    CL_KIND_REGS(capsule),
    { "segment", capsule_segment },
    { "radius", capsule_radius },
    { "set", capsule_set },
    { NULL, NULL }
};

static const luaL_Reg capsule_metamethods[] = {
    { "__tostring", capsule_tostring },
    { "__eq", capsule_eq },
    { NULL, NULL }
};

/* Creates the Capsule class and adds collide.Capsule to the module table on top. */
void cl_open_capsule(lua_State *L) {
    cl_newclass(L, CL_MT_CAPSULE, capsule_methods, capsule_metamethods);
    lua_pushcfunction(L, capsule_new);
    lua_setfield(L, -2, "Capsule");
}
