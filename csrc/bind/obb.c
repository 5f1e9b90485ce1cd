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

/* contains, overlaps, penetration, raycast, closest, plane, aabb, translate, __eq: through the kind table */
CL_KIND_METHODS(obb, CL_OBB)

static const luaL_Reg obb_methods[] = {
    CL_KIND_REGS(obb),
    { "center", obb_center },
    { "extents", obb_extents },
    { "axes", obb_axes },
    { "set", obb_set },
    { "rotate", obb_rotate },
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
