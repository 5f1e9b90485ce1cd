/* collide Lua binding: the free functions toi, closestonsegment, reflect and pointinpolygon, and the
 * polygon table reader shared with collide.Polygon (polygon.c). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "bind.h"

/* Polygons are read into a stack buffer of CL_POLY_STACK_COORDS (bind.h) coordinates; larger ones
 * use a temporary userdata. Coordinates fetched onto the Lua stack at once: with the buffer
 * userdata at most 17 slots, within the LUA_MINSTACK (20) free slots every C function is given,
 * so no lua_checkstack is needed. */
#define POLY_BATCH 16

/* collide.toi(a, dax,day,daz, b, dbx,dby,dbz) -> "overlapped", 0 | "touching", t | "separated", 1.
 * One test for the common case (both boxes, six finite numbers: x - x is +0 exactly for finite x);
 * on any failure the checks run in argument order and raise the error they always raised. */
static int f_toi(lua_State *L) {
    const cl_aabb *a = (const cl_aabb *)cl_toclass(L, 1, CL_K_AABB, sizeof(cl_aabb));
    const cl_aabb *b = (const cl_aabb *)cl_toclass(L, 5, CL_K_AABB, sizeof(cl_aabb));
    int ok0, ok1, ok2, ok3, ok4, ok5;
    double dax = (double)lua_tonumberx(L, 2, &ok0), day = (double)lua_tonumberx(L, 3, &ok1);
    double daz = (double)lua_tonumberx(L, 4, &ok2), dbx = (double)lua_tonumberx(L, 6, &ok3);
    double dby = (double)lua_tonumberx(L, 7, &ok4), dbz = (double)lua_tonumberx(L, 8, &ok5);
    double t = 1;
    cl_toi_state st;
    if (!((a != NULL) & (b != NULL) & ok0 & ok1 & ok2 & ok3 & ok4 & ok5 &&
          ((dax - dax) + (day - day) + (daz - daz)) + ((dbx - dbx) + (dby - dby) + (dbz - dbz)) == 0)) {
        a = cl_checkaabb(L, 1, "toi");
        cl_checkvec(L, 2, "toi");
        b = cl_checkaabb(L, 5, "toi");
        cl_checkvec(L, 6, "toi");
    }
    /* the state strings are upvalues 1-3 in cl_toi_state order (see cl_open_funcs): no string
     * hashing per call, and no branch on the (in practice random) state */
    st = cl_toi_xyz(a, b, dax, day, daz, dbx, dby, dbz, &t);
    lua_pushvalue(L, lua_upvalueindex(1 + (int)st));
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
    int isnum;
    double e = (double)lua_tonumberx(L, 7, &isnum);
    cl_vec3 r;
    if (!(isnum && isfinite(e))) /* one call on the common paths (a finite e) */
        e = lua_isnoneornil(L, 7) ? 1.0 : cl_checkfinite(L, 7, "reflect");
    r = cl_reflect(v, n, e);
    lua_pushnumber(L, r.x);
    lua_pushnumber(L, r.y);
    lua_pushnumber(L, r.z);
    return 3;
}

/* Reads a polygon table for pointinpolygon and collide.Polygon (see bind.h). Raw access. The
 * length is the table's border (#), which a sparse table can make huge without holding the
 * coordinates: lengths above INT_MAX (or whose byte size overflows size_t) are rejected, and the
 * buffer grows as coordinates are actually read (a missing one errors before anything large is
 * allocated), never from the border up front. Indices stay <= INT_MAX, so int works everywhere. */
static inline const double *readpolygon(lua_State *L, int arg, const char *fname, int slot, double *stackbuf,
                                        size_t *ncoords) {
    double *xy = stackbuf;
    size_t len, i, cap = CL_POLY_STACK_COORDS;
    if (lua_type(L, arg) != LUA_TTABLE) cl_typeerror(L, arg, fname, "table");
    len = (size_t)lua_rawlen(L, arg);
    if (len < 6) cl_argerror(L, arg, fname, "polygon has fewer than 3 vertices");
    if (len > (size_t)INT_MAX || len > (size_t)-1 / sizeof(double))
        cl_argerror(L, arg, fname, "polygon is too large");
    if (len % 2 != 0) cl_argerror(L, arg, fname, "polygon has an odd number of coordinates");
    lua_settop(L, slot - 1);  /* slot holds the heap buffer once the stack one is full */
    /* coordinates are fetched POLY_BATCH at a time and popped together (2 API calls each, not 3) */
    for (i = 0; i < len; i += POLY_BATCH) {
        size_t n = len - i < POLY_BATCH ? len - i : POLY_BATCH, j;
        if (i + n > cap) {  /* grow geometrically, never past len: at most twice what was read */
            size_t ncap = cap < len / 2 ? 2 * cap : len;
            double *nxy = (double *)cl_newuserdata(L, ncap * sizeof(double));
            memcpy(nxy, xy, i * sizeof(double));
            if (xy == stackbuf) lua_settop(L, slot); else lua_replace(L, slot);
            xy = nxy;
            cap = ncap;
        }
        for (j = 0; j < n; j++) lua_rawgeti(L, arg, (int)(i + j + 1));
        for (j = 0; j < n; j++) {
            int isnum;
            double c = (double)lua_tonumberx(L, (int)j - (int)n, &isnum);
            if (!isnum || !isfinite(c)) {
                const char *why = isnum ? "is not finite" : "is not a number";
                lua_pop(L, (int)n);
                lua_pushfstring(L, "polygon coordinate %d %s", (int)(i + j + 1), why);
                cl_argerror(L, arg, fname, lua_tostring(L, -1));
            }
            xy[i + j] = c;
        }
        lua_pop(L, (int)n);
    }
    *ncoords = len;
    return xy;
}

/* The shared entry point (bind.h); f_pointinpolygon inlines readpolygon with its constant
 * arguments instead (measured about 5% faster for 8 vertices than calling this). */
const double *cl_readpolygon(lua_State *L, int arg, const char *fname, int slot, double *stackbuf, size_t *ncoords) {
    return readpolygon(L, arg, fname, slot, stackbuf, ncoords);
}

/* collide.pointinpolygon(poly, x, y) -> boolean; poly = {x1,y1, x2,y2, ...}, at least 3 vertices,
 * or a collide.Polygon. Even-odd crossing test; points on an edge or vertex are inside. The type
 * error still names only "table" (the wording from before Polygon existed). */
static int f_pointinpolygon(lua_State *L) {
    double stackbuf[CL_POLY_STACK_COORDS];
    const double *xy;
    double x, y;
    size_t len;
    if (lua_type(L, 1) != LUA_TTABLE) {
        const cl_polygon *p = cl_topolygon(L, 1);
        if (p == NULL) return cl_typeerror(L, 1, "pointinpolygon", "table");
        x = cl_checkfinite(L, 2, "pointinpolygon");
        y = cl_checkfinite(L, 3, "pointinpolygon");
        lua_pushboolean(L, cl_point_in_polygon_e(p->xy, p->n, cl_polygon_edgetable(p), x, y));
        return 1;
    }
    x = cl_checkfinite(L, 2, "pointinpolygon");
    y = cl_checkfinite(L, 3, "pointinpolygon");
    xy = readpolygon(L, 1, "pointinpolygon", 4, stackbuf, &len);
    lua_pushboolean(L, cl_point_in_polygon(xy, len / 2, x, y));
    return 1;
}

static const luaL_Reg funcs[] = {
    { "closestonsegment", f_closestonsegment },
    { "reflect", f_reflect },
    { "pointinpolygon", f_pointinpolygon },
    { NULL, NULL }
};

/* Defined in common.c: pushes the shape metatables as upvalues for fast type checks, returns 4. */
int cl_pushclassupvalues(lua_State *L);

/* Adds the free functions to the module table on top. toi's upvalues are its three result strings
 * (upvalues 1-3: "overlapped", "touching", "separated"), not the class metatables. */
void cl_open_funcs(lua_State *L) {
    luaL_setfuncs(L, funcs, cl_pushclassupvalues(L));
    lua_pushliteral(L, "overlapped");
    lua_pushliteral(L, "touching");
    lua_pushliteral(L, "separated");
    lua_pushcclosure(L, f_toi, 3);
    lua_setfield(L, -2, "toi");
}
