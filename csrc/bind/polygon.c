/* collide Lua binding: collide.Polygon, a 2D polygon whose coordinates are copied once into a
 * userdata (layout: bind.h, cl_polygon), so that point queries read no table. Immutable. */
#include <stdio.h>
#include <string.h>

#include "bind.h"

/* Vertices __tostring shows before "...". */
#define TOSTRING_VERTICES 8

/* The polygon at arg, else a type error naming collide.Polygon. */
static const cl_polygon *checkpolygon(lua_State *L, int arg, const char *fname) {
    const cl_polygon *p = cl_topolygon(L, arg);
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_POLYGON);
    return p;
}

/* collide.Polygon(xy) -> a new polygon; xy = {x1,y1, x2,y2, ...} read with pointinpolygon's checks
 * and errors. The coordinates are read into a buffer first and copied into a userdata of exactly
 * the right size once all are known to be valid; polygons of up to CL_POLY_EDGES_MAX vertices
 * also get the core's edge table (bind.h), for faster tests. */
static int polygon_new(lua_State *L) {
    double stackbuf[CL_POLY_STACK_COORDS];
    size_t len;
    const double *xy = cl_readpolygon(L, 1, "Polygon", 2, stackbuf, &len);
    cl_polygon *p;
    /* unreachable where size_t has 64 bits (len <= INT_MAX); kept for 32-bit hosts */
    if (len / 2 > ((size_t)-1 - CL_POLYGON_HEAD) / (2 * sizeof(double)))
        return cl_argerror(L, 1, "Polygon", "polygon is too large");
    p = cl_newpolygon(L, len / 2);
    memcpy(p->xy, xy, len * sizeof(double));
    if (len / 2 <= CL_POLY_EDGES_MAX) cl_polygon_edges(p->xy, len / 2, p->xy + len);
    return 1;
}

/* polygon:contains(x, y) -> boolean: the even-odd test of collide.pointinpolygon (edges and
 * vertices inside), bit for bit the same answer. */
static int polygon_contains(lua_State *L) {
    const cl_polygon *p = cl_topolygon(L, 1);
    int okx, oky;
    double x = (double)lua_tonumberx(L, 2, &okx), y = (double)lua_tonumberx(L, 3, &oky);
    /* one test for the common case (x - x is +0 exactly for finite x); on any failure the checks
     * run in argument order and raise the error they always raised */
    if (!(p != NULL && (okx & oky) && (x - x) + (y - y) == 0)) {
        p = checkpolygon(L, 1, "contains");
        x = cl_checkfinite(L, 2, "contains");
        y = cl_checkfinite(L, 3, "contains");
    }
    lua_pushboolean(L, cl_point_in_polygon_e(p->xy, p->n, cl_polygon_edgetable(p), x, y));
    return 1;
}

/* polygon:count() -> the number of vertices. */
static int polygon_count(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)checkpolygon(L, 1, "count")->n);
    return 1;
}

/* polygon:vertices() -> a new flat array {x1,y1, x2,y2, ...} (a copy). */
static int polygon_vertices(lua_State *L) {
    const cl_polygon *p = checkpolygon(L, 1, "vertices");
    size_t i;
    lua_createtable(L, (int)(2 * p->n), 0);  /* 2n <= INT_MAX: checked when the polygon was made */
    for (i = 0; i < 2 * p->n; i++) {
        lua_pushnumber(L, p->xy[i]);
        lua_rawseti(L, -2, (int)(i + 1));
    }
    return 1;
}

/* tostring(polygon) -> "Polygon(3 vertices: 0,0, 1,0, 0,1)"; after TOSTRING_VERTICES vertices
 * the rest is shown as "...". */
static int polygon_tostring(lua_State *L) {
    const cl_polygon *p = checkpolygon(L, 1, "__tostring");
    size_t i, shown = p->n < TOSTRING_VERTICES ? p->n : TOSTRING_VERTICES;
    char buf[96];
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    snprintf(buf, sizeof buf, "Polygon(%lu vertices:", (unsigned long)p->n);
    luaL_addstring(&b, buf);
    for (i = 0; i < shown; i++) {
        snprintf(buf, sizeof buf, "%s %.14g,%.14g", i > 0 ? "," : "", p->xy[2 * i], p->xy[2 * i + 1]);
        luaL_addstring(&b, buf);
    }
    luaL_addstring(&b, shown < p->n ? ", ...)" : ")");
    luaL_pushresult(&b);
    return 1;
}

/* a == b -> true if both are polygons with the same vertices in the same order from the same first
 * vertex (coordinates compared with ==, so -0 equals 0); false for any other value. */
static int polygon_eq(lua_State *L) {
    const cl_polygon *a = cl_topolygon(L, 1), *b = cl_topolygon(L, 2);
    int eq = a != NULL && b != NULL && a->n == b->n;
    size_t i;
    for (i = 0; eq && i < 2 * a->n; i++) eq = a->xy[i] == b->xy[i];
    lua_pushboolean(L, eq);
    return 1;
}

static const luaL_Reg polygon_methods[] = {
    { "contains", polygon_contains },
    { "count", polygon_count },
    { "vertices", polygon_vertices },
    { NULL, NULL }
};

static const luaL_Reg polygon_metamethods[] = {
    { "__tostring", polygon_tostring },
    { "__eq", polygon_eq },
    { NULL, NULL }
};

/* Creates the Polygon class and adds collide.Polygon to the module table on top. */
void cl_open_polygon(lua_State *L) {
    cl_newclass(L, CL_MT_POLYGON, polygon_methods, polygon_metamethods);
    lua_pushcfunction(L, polygon_new);
    lua_setfield(L, -2, "Polygon");
}
