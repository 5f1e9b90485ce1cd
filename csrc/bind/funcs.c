/* collide Lua binding: the free functions toi, closestonsegment, reflect and pointinpolygon. */
#include <math.h>

#include "bind.h"

/* Vertices of a polygon read into a stack buffer; larger polygons use a temporary userdata. */
#define POLY_STACK_VERTICES 256

/* Defined in common.c (not in bind.h): the finite vector at arguments arg..arg+2. */
cl_vec3 cl_checkvec(lua_State *L, int arg, const char *fname);

/* collide.toi(a, dax,day,daz, b, dbx,dby,dbz) -> "overlapped", 0 | "touching", t | "separated", 1. */
static int f_toi(lua_State *L) {
    const cl_aabb *a = cl_checkaabb(L, 1, "toi");
    cl_vec3 da = cl_checkvec(L, 2, "toi");
    const cl_aabb *b = cl_checkaabb(L, 5, "toi");
    cl_vec3 db = cl_checkvec(L, 6, "toi");
    double t = 1;
    switch (cl_toi(a, da, b, db, &t)) {
    case CL_TOI_OVERLAPPED: lua_pushliteral(L, "overlapped"); break;
    case CL_TOI_TOUCHING:   lua_pushliteral(L, "touching"); break;
    default:                lua_pushliteral(L, "separated"); break;
    }
    lua_pushnumber(L, t);
    return 2;
}

/* collide.closestonsegment(px,py,pz, ax,ay,az, bx,by,bz) -> x,y,z, s: the closest point of ab to p. */
static int f_closestonsegment(lua_State *L) {
    cl_vec3 p = cl_checkvec(L, 1, "closestonsegment");
    cl_vec3 a = cl_checkvec(L, 4, "closestonsegment");
    cl_vec3 b = cl_checkvec(L, 7, "closestonsegment");
    double s;
    cl_vec3 c = cl_closest_on_segment(p, a, b, &s);
    lua_pushnumber(L, c.x);
    lua_pushnumber(L, c.y);
    lua_pushnumber(L, c.z);
    lua_pushnumber(L, s);
    return 4;
}

/* collide.reflect(vx,vy,vz, nx,ny,nz[, e]) -> x,y,z = v - (1 + e)(n.v)n, e default 1. */
static int f_reflect(lua_State *L) {
    cl_vec3 v = cl_checkvec(L, 1, "reflect");
    cl_vec3 n = cl_checkvec(L, 4, "reflect");
    double e = lua_isnoneornil(L, 7) ? 1.0 : cl_checkfinite(L, 7, "reflect");
    cl_vec3 r = cl_reflect(v, n, e);
    lua_pushnumber(L, r.x);
    lua_pushnumber(L, r.y);
    lua_pushnumber(L, r.z);
    return 3;
}

/* collide.pointinpolygon(poly, x, y) -> boolean; poly = {x1,y1, x2,y2, ...}, at least 3 vertices,
 * read with raw access. Even-odd crossing test; points on an edge or vertex are inside. */
static int f_pointinpolygon(lua_State *L) {
    double stackbuf[2 * POLY_STACK_VERTICES];
    double *xy = stackbuf;
    double x, y;
    size_t len, i;
    if (lua_type(L, 1) != LUA_TTABLE) return cl_typeerror(L, 1, "pointinpolygon", "table");
    x = cl_checkfinite(L, 2, "pointinpolygon");
    y = cl_checkfinite(L, 3, "pointinpolygon");
    len = (size_t)lua_rawlen(L, 1);
    if (len < 6) return cl_argerror(L, 1, "pointinpolygon", "polygon has fewer than 3 vertices");
    if (len % 2 != 0) return cl_argerror(L, 1, "pointinpolygon", "polygon has an odd number of coordinates");
    if (len > 2 * POLY_STACK_VERTICES) xy = (double *)cl_newuserdata(L, len * sizeof(double));
    for (i = 0; i < len; i++) {
        int isnum;
        double c;
        lua_rawgeti(L, 1, (int)(i + 1));
        c = (double)lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum || !isfinite(c)) {
            const char *why = isnum ? "is not finite" : "is not a number";
            lua_pushfstring(L, "polygon coordinate %d %s", (int)(i + 1), why);
            return cl_argerror(L, 1, "pointinpolygon", lua_tostring(L, -1));
        }
        xy[i] = c;
    }
    lua_pushboolean(L, cl_point_in_polygon(xy, len / 2, x, y));
    return 1;
}

static const luaL_Reg funcs[] = {
    { "toi", f_toi },
    { "closestonsegment", f_closestonsegment },
    { "reflect", f_reflect },
    { "pointinpolygon", f_pointinpolygon },
    { NULL, NULL }
};

/* Defined in common.c: pushes the shape metatables as upvalues for fast type checks, returns 4. */
int cl_pushclassupvalues(lua_State *L);

/* Adds the free functions to the module table on top. */
void cl_open_funcs(lua_State *L) {
    luaL_setfuncs(L, funcs, cl_pushclassupvalues(L));
}
