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

/* tostring(box) -> "AABB(minx, miny, minz, maxx, maxy, maxz)". */
static int aabb_tostring(lua_State *L) {
    const cl_aabb *b = cl_checkaabb(L, 1, "__tostring");
    char buf[256];
    snprintf(buf, sizeof buf, "AABB(%.14g, %.14g, %.14g, %.14g, %.14g, %.14g)",
             b->min.x, b->min.y, b->min.z, b->max.x, b->max.y, b->max.z);
    lua_pushstring(L, buf);
    return 1;
}

/* contains, overlaps, penetration, raycast, closest, plane, aabb, translate, __eq: through the kind table */
CL_KIND_METHODS(aabb, CL_AABB)

static const luaL_Reg aabb_methods[] = {
    CL_KIND_REGS(aabb),
    { "bounds", aabb_bounds },
    { "center", aabb_center },
    { "extents", aabb_extents },
    { "set", aabb_set },
    { "clip", aabb_clip },
    { "segment", aabb_segment },
    { "merge", aabb_merge },
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
