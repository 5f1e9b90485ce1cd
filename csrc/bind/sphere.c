/* collide Lua binding: collide.Sphere. */
#include <stdio.h>
#include <math.h>

#include "bind.h"

/* Reads cx,cy,cz,r from the four arguments starting at base into *out; raises (naming fname) if
 * one is not a finite number or r is negative. Writes *out only when all are valid. */
static void checksphere(lua_State *L, int base, const char *fname, cl_sphere *out) {
    cl_vec3 c = cl_checkvec(L, base, fname);
    double r = cl_checkfinite(L, base + 3, fname);
    if (r < 0) cl_argerror(L, base + 3, fname, "radius is negative");
    out->c = c;
    out->r = r;
}

/* Pushes the three numbers of v and returns 3. */
static int pushvec(lua_State *L, cl_vec3 v) {
    lua_pushnumber(L, v.x);
    lua_pushnumber(L, v.y);
    lua_pushnumber(L, v.z);
    return 3;
}

/* collide.Sphere(cx,cy,cz, r) -> a new sphere. */
static int sphere_new(lua_State *L) {
    cl_sphere s;
    checksphere(L, 1, "Sphere", &s);
    *cl_newsphere(L) = s;
    return 1;
}

/* sphere:center() -> x,y,z. */
static int sphere_center(lua_State *L) {
    return pushvec(L, cl_checksphere(L, 1, "center")->c);
}

/* sphere:radius() -> r. */
static int sphere_radius(lua_State *L) {
    lua_pushnumber(L, cl_checksphere(L, 1, "radius")->r);
    return 1;
}

/* sphere:set(cx,cy,cz, r) -> sphere, changed in place only if every argument is valid. */
static int sphere_set(lua_State *L) {
    cl_sphere *s = cl_checksphere(L, 1, "set");
    cl_sphere ns;
    checksphere(L, 2, "set", &ns);
    *s = ns;
    lua_pushvalue(L, 1);
    return 1;
}

/* tostring(sphere) -> "Sphere(cx, cy, cz, r)". */
static int sphere_tostring(lua_State *L) {
    const cl_sphere *s = cl_checksphere(L, 1, "__tostring");
    char buf[160];
    snprintf(buf, sizeof buf, "Sphere(%.14g, %.14g, %.14g, %.14g)", s->c.x, s->c.y, s->c.z, s->r);
    lua_pushstring(L, buf);
    return 1;
}

/* contains, overlaps, penetration, raycast, closest, plane, aabb, translate, __eq: through the kind table */
CL_KIND_METHODS(sphere, CL_SPHERE)

static const luaL_Reg sphere_methods[] = {
    CL_KIND_REGS(sphere),
    { "center", sphere_center },
    { "radius", sphere_radius },
    { "set", sphere_set },
    { NULL, NULL }
};

static const luaL_Reg sphere_metamethods[] = {
    { "__tostring", sphere_tostring },
    { "__eq", sphere_eq },
    { NULL, NULL }
};

/* Creates the Sphere class and adds collide.Sphere to the module table on top. */
void cl_open_sphere(lua_State *L) {
    cl_newclass(L, CL_MT_SPHERE, sphere_methods, sphere_metamethods);
    lua_pushcfunction(L, sphere_new);
    lua_setfield(L, -2, "Sphere");
}
