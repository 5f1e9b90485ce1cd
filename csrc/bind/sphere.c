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

/* sphere:translate(dx,dy,dz) -> sphere, moved in place; raises (changing nothing) on overflow. */
static int sphere_translate(lua_State *L) {
    cl_sphere *s = cl_checksphere(L, 1, "translate");
    cl_vec3 d = cl_checkvec(L, 2, "translate");
    cl_vec3 c = cl_v3(s->c.x + d.x, s->c.y + d.y, s->c.z + d.z);
    if (!isfinite(c.x)) return cl_argerror(L, 2, "translate", "result is not finite");
    if (!isfinite(c.y)) return cl_argerror(L, 3, "translate", "result is not finite");
    if (!isfinite(c.z)) return cl_argerror(L, 4, "translate", "result is not finite");
    s->c = c;
    lua_pushvalue(L, 1);
    return 1;
}

/* sphere:contains(x,y,z) -> boolean (inclusive). */
static int sphere_contains(lua_State *L) {
    const cl_sphere *s = cl_checksphere(L, 1, "contains");
    cl_vec3 p = cl_checkvec(L, 2, "contains");
    lua_pushboolean(L, cl_sphere_contains(s, p));
    return 1;
}

/* sphere:overlaps(shape) -> boolean (inclusive) for an AABB, OBB or Sphere. */
static int sphere_overlaps(lua_State *L) {
    const cl_sphere *s = cl_checksphere(L, 1, "overlaps");
    const void *o;
    int hit;
    switch (cl_toshapeptr(L, 2, &o)) {
    case CL_AABB:   hit = cl_sphere_overlaps_aabb(s, (const cl_aabb *)o); break;
    case CL_OBB:    hit = cl_sphere_overlaps_obb(s, (const cl_obb *)o); break;
    case CL_SPHERE: hit = cl_sphere_overlaps_sphere(s, (const cl_sphere *)o); break;
    default:        return cl_shapeerror(L, 2, "overlaps");
    }
    lua_pushboolean(L, hit);
    return 1;
}

/* sphere:penetration(shape) -> depth, nx,ny,nz (moving sphere by depth * n, unit n out of shape, leaves
 * them just touching), or nil when the interiors do not overlap; shape is an AABB, OBB or Sphere. */
static int sphere_penetration(lua_State *L) {
    cl_shape a, b;
    cl_hit h;
    a.kind = CL_SPHERE;
    a.u.sphere = *cl_checksphere(L, 1, "penetration");
    cl_checkshape(L, 2, "penetration", &b);
    if (!cl_penetration(&a, &b, &h.t, &h.n)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* sphere:raycast(ray[, maxt]) -> t, nx,ny,nz or nil. */
static int sphere_raycast(lua_State *L) {
    const cl_sphere *s = cl_checksphere(L, 1, "raycast");
    const cl_ray *r = cl_checkray(L, 2, "raycast");
    double maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    cl_hit h;
    if (!cl_sphere_raycast(s, r, maxt, &h)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* sphere:closest(x,y,z) -> the closest point x,y,z on or in the sphere. */
static int sphere_closest(lua_State *L) {
    const cl_sphere *s = cl_checksphere(L, 1, "closest");
    return pushvec(L, cl_sphere_closest(s, cl_checkvec(L, 2, "closest")));
}

/* sphere:plane(nx,ny,nz,d) -> 1 (wholly in front), -1 (wholly behind) or 0 (crossing or touching). */
static int sphere_plane(lua_State *L) {
    const cl_sphere *s = cl_checksphere(L, 1, "plane");
    cl_vec3 n = cl_checkvec(L, 2, "plane");
    double d = cl_checkfinite(L, 5, "plane");
    lua_pushinteger(L, cl_sphere_plane(s, n, d));
    return 1;
}

/* sphere:aabb() -> a new AABB, the tight box enclosing the sphere. */
static int sphere_aabb(lua_State *L) {
    cl_aabb a = cl_sphere_aabb(cl_checksphere(L, 1, "aabb"));
    *cl_newaabb(L) = a;
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

/* a == b -> true if both are spheres with equal centres and radii; false for any other value. */
static int sphere_eq(lua_State *L) {
    cl_shape a, b;
    lua_pushboolean(L, cl_toshape(L, 1, &a) && cl_toshape(L, 2, &b) && cl_shape_equal(&a, &b));
    return 1;
}

static const luaL_Reg sphere_methods[] = {
    { "center", sphere_center },
    { "radius", sphere_radius },
    { "set", sphere_set },
    { "translate", sphere_translate },
    { "contains", sphere_contains },
    { "overlaps", sphere_overlaps },
    { "penetration", sphere_penetration },
    { "raycast", sphere_raycast },
    { "closest", sphere_closest },
    { "plane", sphere_plane },
    { "aabb", sphere_aabb },
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
