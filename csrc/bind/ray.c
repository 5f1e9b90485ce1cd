/* collide Lua binding: collide.Ray, a half line with a unit direction. */
#include <stdio.h>
#include <math.h>

#include "bind.h"

/* Reads ox..dz from the six arguments starting at base into *out; raises (naming fname) if one is
 * not a finite number or the direction is zero. Writes *out only when all are valid. */
static void checkray(lua_State *L, int base, const char *fname, cl_ray *out) {
    cl_vec3 o = cl_checkvec(L, base, fname);
    cl_vec3 d = cl_checkvec(L, base + 3, fname);
    cl_ray r;
    if (!cl_ray_make(&r, o, d))
        cl_argerror(L, base + 3, fname, "direction is zero");
    *out = r;
}

/* Pushes the three numbers of v and returns 3. */
static int pushvec(lua_State *L, cl_vec3 v) {
    lua_pushnumber(L, v.x);
    lua_pushnumber(L, v.y);
    lua_pushnumber(L, v.z);
    return 3;
}

/* collide.Ray(ox,oy,oz, dx,dy,dz) -> a new ray with the direction normalised. */
static int ray_new(lua_State *L) {
    cl_ray r;
    checkray(L, 1, "Ray", &r);
    *cl_newray(L) = r;
    return 1;
}

/* ray:origin() -> x,y,z. */
static int ray_origin(lua_State *L) {
    return pushvec(L, cl_checkray(L, 1, "origin")->o);
}

/* ray:direction() -> the unit direction x,y,z. */
static int ray_direction(lua_State *L) {
    return pushvec(L, cl_checkray(L, 1, "direction")->d);
}

/* ray:at(t) -> the point x,y,z at distance t (any finite t) along the ray. */
static int ray_at(lua_State *L) {
    const cl_ray *r = cl_checkray(L, 1, "at");
    double t = cl_checkfinite(L, 2, "at");
    return pushvec(L, cl_ray_at(r, t));
}

/* ray:set(ox,oy,oz, dx,dy,dz) -> ray, changed in place only if every argument is valid. */
static int ray_set(lua_State *L) {
    cl_ray *r = cl_checkray(L, 1, "set");
    cl_ray nr;
    checkray(L, 2, "set", &nr);
    *r = nr;
    lua_pushvalue(L, 1);
    return 1;
}

/* ray:cast(shape[, maxt]) -> t, nx,ny,nz or nil, as shape:raycast(ray, maxt). */
static int ray_cast(lua_State *L) {
    const cl_ray *r = cl_checkray(L, 1, "cast");
    const void *s;
    int kind = cl_toshapeptr(L, 2, &s);
    double maxt;
    cl_hit h;
    if (kind < 0) return cl_shapeerror(L, 2, "cast");
    maxt = cl_optlimit(L, 3, "cast", HUGE_VAL);
    if (!cl_kinds[kind].raycast(s, r, maxt, &h)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* ray:plane(nx,ny,nz,d) -> distance t >= 0 to the plane n.p + d = 0, or nil (parallel or behind). */
static int ray_plane(lua_State *L) {
    const cl_ray *r = cl_checkray(L, 1, "plane");
    cl_vec3 n = cl_checkvec(L, 2, "plane");
    double d = cl_checkfinite(L, 5, "plane");
    double t;
    if (!cl_ray_plane(r, n, d, &t)) { lua_pushnil(L); return 1; }
    lua_pushnumber(L, t);
    return 1;
}

/* tostring(ray) -> "Ray(ox, oy, oz, dx, dy, dz)" with the normalised direction. */
static int ray_tostring(lua_State *L) {
    const cl_ray *r = cl_checkray(L, 1, "__tostring");
    char buf[256];
    snprintf(buf, sizeof buf, "Ray(%.14g, %.14g, %.14g, %.14g, %.14g, %.14g)",
             r->o.x, r->o.y, r->o.z, r->d.x, r->d.y, r->d.z);
    lua_pushstring(L, buf);
    return 1;
}

/* Returns the ray at idx, or NULL if the value is not a collide.Ray (never raises). */
static const cl_ray *toray(lua_State *L, int idx) {
    return (const cl_ray *)cl_toclass(L, idx, CL_K_RAY, sizeof(cl_ray));
}

/* a == b -> true if both are rays with equal origins and directions; false for any other value. */
static int ray_eq(lua_State *L) {
    const cl_ray *a = toray(L, 1), *b = toray(L, 2);
    lua_pushboolean(L, a != NULL && b != NULL
        && a->o.x == b->o.x && a->o.y == b->o.y && a->o.z == b->o.z
        && a->d.x == b->d.x && a->d.y == b->d.y && a->d.z == b->d.z);
    return 1;
}

static const luaL_Reg ray_methods[] = {
    { "origin", ray_origin },
    { "direction", ray_direction },
    { "at", ray_at },
    { "set", ray_set },
    { "cast", ray_cast },
    { "plane", ray_plane },
    { NULL, NULL }
};

static const luaL_Reg ray_metamethods[] = {
    { "__tostring", ray_tostring },
    { "__eq", ray_eq },
    { NULL, NULL }
};

/* Creates the Ray class and adds collide.Ray to the module table on top. */
void cl_open_ray(lua_State *L) {
    cl_newclass(L, CL_MT_RAY, ray_methods, ray_metamethods);
    lua_pushcfunction(L, ray_new);
    lua_setfield(L, -2, "Ray");
}
