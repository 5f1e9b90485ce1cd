/* collide Lua binding: collide.OBB, the oriented box. */
#include <stdio.h>
#include <math.h>

#include "bind.h"

/* Orthonormality tolerance of the given axes (API.md). */
#define AXES_TOL 1e-6

/* Reads cx..hz and the optional nine axis numbers from the arguments starting at base into *out;
 * raises (naming fname) on a non-finite number, a negative half size, only some of the axes, or
 * axes that are not orthonormal. Axes are stored exactly as given; none gives the world axes.
 * Writes *out only when all are valid. */
static void checkobb(lua_State *L, int base, const char *fname, cl_obb *out) {
    static const char *const reason[3] = {
        "half size x is negative", "half size y is negative", "half size z is negative"
    };
    int i, axes = 0;
    cl_obb b;
    b.c = cl_checkvec(L, base, fname);
    b.h = cl_checkvec(L, base + 3, fname);
    for (i = 6; i < 15; i++) axes |= !lua_isnoneornil(L, base + i);
    if (axes) {
        for (i = 0; i < 3; i++) b.u[i] = cl_checkvec(L, base + 6 + 3 * i, fname);
    } else {
        b.u[0] = cl_v3(1, 0, 0);
        b.u[1] = cl_v3(0, 1, 0);
        b.u[2] = cl_v3(0, 0, 1);
    }
    if (b.h.x < 0) cl_argerror(L, base + 3, fname, reason[0]);
    if (b.h.y < 0) cl_argerror(L, base + 4, fname, reason[1]);
    if (b.h.z < 0) cl_argerror(L, base + 5, fname, reason[2]);
    if (axes && !cl_axes_orthonormal(b.u, AXES_TOL))
        cl_argerror(L, base + 6, fname, "axes are not orthonormal");
    *out = b;
}

/* Pushes the three numbers of v and returns 3. */
static int pushvec(lua_State *L, cl_vec3 v) {
    lua_pushnumber(L, v.x);
    lua_pushnumber(L, v.y);
    lua_pushnumber(L, v.z);
    return 3;
}

/* collide.OBB(cx,cy,cz, hx,hy,hz[, ux,uy,uz, vx,vy,vz, wx,wy,wz]) -> a new oriented box. */
static int obb_new(lua_State *L) {
    cl_obb b;
    checkobb(L, 1, "OBB", &b);
    *cl_newobb(L) = b;
    return 1;
}

/* obb:center() -> x,y,z. */
static int obb_center(lua_State *L) {
    return pushvec(L, cl_checkobb(L, 1, "center")->c);
}

/* obb:extents() -> the half sizes hx,hy,hz. */
static int obb_extents(lua_State *L) {
    return pushvec(L, cl_checkobb(L, 1, "extents")->h);
}

/* obb:axes() -> ux,uy,uz, vx,vy,vz, wx,wy,wz. */
static int obb_axes(lua_State *L) {
    const cl_obb *b = cl_checkobb(L, 1, "axes");
    pushvec(L, b->u[0]);
    pushvec(L, b->u[1]);
    pushvec(L, b->u[2]);
    return 9;
}

/* obb:set(same arguments as collide.OBB) -> obb, changed in place only if every argument is valid;
 * without axes the box gets the world axes, as the constructor. */
static int obb_set(lua_State *L) {
    cl_obb *b = cl_checkobb(L, 1, "set");
    cl_obb nb;
    checkobb(L, 2, "set", &nb);
    *b = nb;
    lua_pushvalue(L, 1);
    return 1;
}

/* obb:translate(dx,dy,dz) -> obb, moved in place; raises (changing nothing) if the centre overflows. */
static int obb_translate(lua_State *L) {
    cl_obb *b = cl_checkobb(L, 1, "translate");
    cl_vec3 d = cl_checkvec(L, 2, "translate");
    cl_vec3 c = cl_v3(b->c.x + d.x, b->c.y + d.y, b->c.z + d.z);
    if (!isfinite(c.x)) return cl_argerror(L, 2, "translate", "result is not finite");
    if (!isfinite(c.y)) return cl_argerror(L, 3, "translate", "result is not finite");
    if (!isfinite(c.z)) return cl_argerror(L, 4, "translate", "result is not finite");
    b->c = c;
    lua_pushvalue(L, 1);
    return 1;
}

/* obb:rotate(angle, ax,ay,az) -> obb, rotated in place about its centre (radians, right-handed). */
static int obb_rotate(lua_State *L) {
    cl_obb *b = cl_checkobb(L, 1, "rotate");
    double angle = cl_checkfinite(L, 2, "rotate");
    cl_vec3 a = cl_checkvec(L, 3, "rotate");
    cl_obb nb = *b;
    if (!cl_obb_rotate(&nb, angle, a)) return cl_argerror(L, 3, "rotate", "axis is zero");
    *b = nb;
    lua_pushvalue(L, 1);
    return 1;
}

/* obb:contains(x,y,z) -> boolean (inclusive). */
static int obb_contains(lua_State *L) {
    const cl_obb *b = cl_checkobb(L, 1, "contains");
    cl_vec3 p = cl_checkvec(L, 2, "contains");
    lua_pushboolean(L, cl_obb_contains(b, p));
    return 1;
}

/* obb:overlaps(shape) -> boolean (inclusive) for an AABB, OBB or Sphere. */
static int obb_overlaps(lua_State *L) {
    const cl_obb *b = cl_checkobb(L, 1, "overlaps");
    const void *o;
    int hit;
    switch (cl_toshapeptr(L, 2, &o)) {
    case CL_AABB:   hit = cl_obb_overlaps_aabb(b, (const cl_aabb *)o); break;
    case CL_OBB:    hit = cl_obb_overlaps_obb(b, (const cl_obb *)o); break;
    case CL_SPHERE: hit = cl_sphere_overlaps_obb((const cl_sphere *)o, b); break;
    default:        return cl_shapeerror(L, 2, "overlaps");
    }
    lua_pushboolean(L, hit);
    return 1;
}

/* obb:penetration(shape) -> depth, nx,ny,nz (moving obb by depth * n, unit n out of shape, leaves
 * them just touching), or nil when the interiors do not overlap; shape is an AABB, OBB or Sphere. */
static int obb_penetration(lua_State *L) {
    cl_shape a, b;
    cl_hit h;
    a.kind = CL_OBB;
    a.u.obb = *cl_checkobb(L, 1, "penetration");
    cl_checkshape(L, 2, "penetration", &b);
    if (!cl_penetration(&a, &b, &h.t, &h.n)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* obb:raycast(ray[, maxt]) -> t, nx,ny,nz or nil. */
static int obb_raycast(lua_State *L) {
    const cl_obb *b = cl_checkobb(L, 1, "raycast");
    const cl_ray *r = cl_checkray(L, 2, "raycast");
    double maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    cl_hit h;
    if (!cl_obb_raycast(b, r, maxt, &h)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* obb:closest(x,y,z) -> the closest point x,y,z on or in the box. */
static int obb_closest(lua_State *L) {
    const cl_obb *b = cl_checkobb(L, 1, "closest");
    return pushvec(L, cl_obb_closest(b, cl_checkvec(L, 2, "closest")));
}

/* obb:plane(nx,ny,nz,d) -> 1 (wholly in front), -1 (wholly behind) or 0 (crossing or touching). */
static int obb_plane(lua_State *L) {
    const cl_obb *b = cl_checkobb(L, 1, "plane");
    cl_vec3 n = cl_checkvec(L, 2, "plane");
    double d = cl_checkfinite(L, 5, "plane");
    lua_pushinteger(L, cl_obb_plane(b, n, d));
    return 1;
}

/* obb:aabb() -> a new AABB, the tight box enclosing the OBB. */
static int obb_aabb(lua_State *L) {
    cl_aabb a = cl_obb_aabb(cl_checkobb(L, 1, "aabb"));
    *cl_newaabb(L) = a;
    return 1;
}

/* tostring(obb) -> "OBB(cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz)". */
static int obb_tostring(lua_State *L) {
    const cl_obb *b = cl_checkobb(L, 1, "__tostring");
    char buf[512];
    snprintf(buf, sizeof buf, "OBB(%.14g, %.14g, %.14g, %.14g, %.14g, %.14g, "
             "%.14g, %.14g, %.14g, %.14g, %.14g, %.14g, %.14g, %.14g, %.14g)",
             b->c.x, b->c.y, b->c.z, b->h.x, b->h.y, b->h.z,
             b->u[0].x, b->u[0].y, b->u[0].z, b->u[1].x, b->u[1].y, b->u[1].z,
             b->u[2].x, b->u[2].y, b->u[2].z);
    lua_pushstring(L, buf);
    return 1;
}

/* a == b -> true if both are OBBs with equal centres, half sizes and axes; false for any other value. */
static int obb_eq(lua_State *L) {
    cl_shape a, b;
    lua_pushboolean(L, cl_toshape(L, 1, &a) && cl_toshape(L, 2, &b) && cl_shape_equal(&a, &b));
    return 1;
}

static const luaL_Reg obb_methods[] = {
    { "center", obb_center },
    { "extents", obb_extents },
    { "axes", obb_axes },
    { "set", obb_set },
    { "translate", obb_translate },
    { "rotate", obb_rotate },
    { "contains", obb_contains },
    { "overlaps", obb_overlaps },
    { "penetration", obb_penetration },
    { "raycast", obb_raycast },
    { "closest", obb_closest },
    { "plane", obb_plane },
    { "aabb", obb_aabb },
    { NULL, NULL }
};

static const luaL_Reg obb_metamethods[] = {
    { "__tostring", obb_tostring },
    { "__eq", obb_eq },
    { NULL, NULL }
};

/* Creates the OBB class and adds collide.OBB to the module table on top. */
void cl_open_obb(lua_State *L) {
    cl_newclass(L, CL_MT_OBB, obb_methods, obb_metamethods);
    lua_pushcfunction(L, obb_new);
    lua_setfield(L, -2, "OBB");
}
