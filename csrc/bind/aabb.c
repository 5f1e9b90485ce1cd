/* collide Lua binding: collide.AABB, the axis-aligned box. */
#include <stdio.h>
#include <math.h>

#include "bind.h"

/* Reads minx..maxz from the six arguments starting at base into *out; raises (naming fname) if
 * one is not a finite number or a max is below its min. Writes *out only when all are valid. */
static void checkbounds(lua_State *L, int base, const char *fname, cl_aabb *out) {
    static const char *const reason[3] = {
        "max x is less than min x", "max y is less than min y", "max z is less than min z"
    };
    cl_vec3 lo = cl_checkvec(L, base, fname);
    cl_vec3 hi = cl_checkvec(L, base + 3, fname);
    if (hi.x < lo.x) cl_argerror(L, base + 3, fname, reason[0]);
    if (hi.y < lo.y) cl_argerror(L, base + 4, fname, reason[1]);
    if (hi.z < lo.z) cl_argerror(L, base + 5, fname, reason[2]);
    out->min = lo;
    out->max = hi;
}

/* collide.AABB(minx,miny,minz, maxx,maxy,maxz) -> a new box. */
static int aabb_new(lua_State *L) {
    cl_aabb b;
    checkbounds(L, 1, "AABB", &b);
    *cl_newaabb(L) = b;
    return 1;
}

/* box:bounds() -> minx,miny,minz, maxx,maxy,maxz. */
static int aabb_bounds(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "bounds");
    lua_pushnumber(L, b->min.x);
    lua_pushnumber(L, b->min.y);
    lua_pushnumber(L, b->min.z);
    lua_pushnumber(L, b->max.x);
    lua_pushnumber(L, b->max.y);
    lua_pushnumber(L, b->max.z);
    return 6;
}

/* box:center() -> x,y,z, the midpoint (halves first, so huge finite boxes do not overflow). */
static int aabb_center(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "center");
    lua_pushnumber(L, 0.5 * b->min.x + 0.5 * b->max.x);
    lua_pushnumber(L, 0.5 * b->min.y + 0.5 * b->max.y);
    lua_pushnumber(L, 0.5 * b->min.z + 0.5 * b->max.z);
    return 3;
}

/* box:extents() -> hx,hy,hz, the half sizes (halves first, as center). */
static int aabb_extents(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "extents");
    lua_pushnumber(L, 0.5 * b->max.x - 0.5 * b->min.x);
    lua_pushnumber(L, 0.5 * b->max.y - 0.5 * b->min.y);
    lua_pushnumber(L, 0.5 * b->max.z - 0.5 * b->min.z);
    return 3;
}

/* box:set(minx,miny,minz, maxx,maxy,maxz) -> box, changed in place only if every argument is valid. */
static int aabb_set(lua_State *L) {
    cl_aabb *b = cl_checkaabb(L, 1, "set");
    cl_aabb nb;
    checkbounds(L, 2, "set", &nb);
    *b = nb;
    lua_pushvalue(L, 1);
    return 1;
}

/* box:translate(dx,dy,dz) -> box, moved in place; raises (changing nothing) if a result overflows. */
static int aabb_translate(lua_State *L) {
    cl_aabb *b = cl_checkaabb(L, 1, "translate");
    cl_vec3 d = cl_checkvec(L, 2, "translate");
    cl_aabb nb;
    nb.min = cl_v3(b->min.x + d.x, b->min.y + d.y, b->min.z + d.z);
    nb.max = cl_v3(b->max.x + d.x, b->max.y + d.y, b->max.z + d.z);
    if (!isfinite(nb.min.x) || !isfinite(nb.max.x)) return cl_argerror(L, 2, "translate", "result is not finite");
    if (!isfinite(nb.min.y) || !isfinite(nb.max.y)) return cl_argerror(L, 3, "translate", "result is not finite");
    if (!isfinite(nb.min.z) || !isfinite(nb.max.z)) return cl_argerror(L, 4, "translate", "result is not finite");
    *b = nb;
    lua_pushvalue(L, 1);
    return 1;
}

/* box:contains(x,y,z) -> boolean (inclusive). */
static int aabb_contains(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "contains");
    cl_vec3 p = cl_checkvec(L, 2, "contains");
    lua_pushboolean(L, cl_aabb_contains(b, p));
    return 1;
}

/* box:overlaps(shape) -> boolean (inclusive) for an AABB, OBB or Sphere. */
static int aabb_overlaps(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "overlaps");
    const void *o;
    int hit;
    switch (cl_toshapeptr(L, 2, &o)) {
    case CL_AABB:   hit = cl_aabb_overlaps_aabb(b, (const cl_aabb *)o); break;
    case CL_OBB:    hit = cl_obb_overlaps_aabb((const cl_obb *)o, b); break;
    case CL_SPHERE: hit = cl_sphere_overlaps_aabb((const cl_sphere *)o, b); break;
    default:        return cl_shapeerror(L, 2, "overlaps");
    }
    lua_pushboolean(L, hit);
    return 1;
}

/* box:penetration(shape) -> depth, nx,ny,nz (moving box by depth * n, unit n out of shape, leaves
 * them just touching), or nil when the interiors do not overlap; shape is an AABB, OBB or Sphere. */
static int aabb_penetration(lua_State *L) {
    cl_shape a, b;
    cl_hit h;
    a.kind = CL_AABB;
    a.u.aabb = *cl_checkaabb(L, 1, "penetration");
    cl_checkshape(L, 2, "penetration", &b);
    if (!cl_penetration(&a, &b, &h.t, &h.n)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* box:raycast(ray[, maxt]) -> t, nx,ny,nz or nil. */
static int aabb_raycast(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "raycast");
    const cl_ray *r = cl_checkray(L, 2, "raycast");
    double maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    cl_hit h;
    if (!cl_aabb_raycast(b, r, maxt, &h)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* box:clip(ray) -> tenter, texit of the ray's whole line, or nil (line misses or texit < 0). */
static int aabb_clip(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "clip");
    const cl_ray *r = cl_checkray(L, 2, "clip");
    double t0, t1;
    if (!cl_aabb_clip(b, r, &t0, &t1)) { lua_pushnil(L); return 1; }
    lua_pushnumber(L, t0);
    lua_pushnumber(L, t1);
    return 2;
}

/* box:segment(x1,y1,z1, x2,y2,z2[, maxfraction]) -> fraction, nx,ny,nz or nil. */
static int aabb_segment(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "segment");
    cl_vec3 p1 = cl_checkvec(L, 2, "segment");
    cl_vec3 p2 = cl_checkvec(L, 5, "segment");
    double maxf = cl_optlimit(L, 8, "segment", 1.0);
    cl_hit h;
    if (!cl_aabb_segment(b, p1, p2, maxf, &h)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}

/* box:closest(x,y,z) -> the closest point x,y,z on or in the box. */
static int aabb_closest(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "closest");
    cl_vec3 c = cl_aabb_closest(b, cl_checkvec(L, 2, "closest"));
    lua_pushnumber(L, c.x);
    lua_pushnumber(L, c.y);
    lua_pushnumber(L, c.z);
    return 3;
}

/* box:plane(nx,ny,nz,d) -> 1 (wholly in front), -1 (wholly behind) or 0 (crossing or touching). */
static int aabb_plane(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "plane");
    cl_vec3 n = cl_checkvec(L, 2, "plane");
    double d = cl_checkfinite(L, 5, "plane");
    lua_pushinteger(L, cl_aabb_plane(b, n, d));
    return 1;
}

/* box:merge(shape) -> a new AABB enclosing the box and the shape's enclosing AABB. */
static int aabb_merge(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "merge");
    cl_shape o;
    cl_aabb ob, m;
    cl_checkshape(L, 2, "merge", &o);
    ob = cl_shape_aabb(&o);
    m = cl_aabb_merge(b, &ob);
    *cl_newaabb(L) = m;
    return 1;
}

/* box:aabb() -> a new AABB equal to the box. */
static int aabb_aabb(lua_State *L) {
    cl_aabb b = *cl_checkaabb(L, 1, "aabb");
    *cl_newaabb(L) = b;
    return 1;
}

/* tostring(box) -> "AABB(minx, miny, minz, maxx, maxy, maxz)". */
static int aabb_tostring(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "__tostring");
    char buf[256];
    snprintf(buf, sizeof buf, "AABB(%.14g, %.14g, %.14g, %.14g, %.14g, %.14g)",
             b->min.x, b->min.y, b->min.z, b->max.x, b->max.y, b->max.z);
    lua_pushstring(L, buf);
    return 1;
}

/* a == b -> true if both are AABBs with equal bounds; false for any other value. */
static int aabb_eq(lua_State *L) {
    cl_shape a, b;
    lua_pushboolean(L, cl_toshape(L, 1, &a) && cl_toshape(L, 2, &b) && cl_shape_equal(&a, &b));
    return 1;
}

static const luaL_Reg aabb_methods[] = {
    { "bounds", aabb_bounds },
    { "center", aabb_center },
    { "extents", aabb_extents },
    { "set", aabb_set },
    { "translate", aabb_translate },
    { "contains", aabb_contains },
    { "overlaps", aabb_overlaps },
    { "penetration", aabb_penetration },
    { "raycast", aabb_raycast },
    { "clip", aabb_clip },
    { "segment", aabb_segment },
    { "closest", aabb_closest },
    { "plane", aabb_plane },
    { "merge", aabb_merge },
    { "aabb", aabb_aabb },
    { NULL, NULL }
};

static const luaL_Reg aabb_metamethods[] = {
    { "__tostring", aabb_tostring },
    { "__eq", aabb_eq },
    { NULL, NULL }
};

/* Creates the AABB class and adds collide.AABB to the module table on top. */
void cl_open_aabb(lua_State *L) {
    cl_newclass(L, CL_MT_AABB, aabb_methods, aabb_metamethods);
    lua_pushcfunction(L, aabb_new);
    lua_setfield(L, -2, "AABB");
}
