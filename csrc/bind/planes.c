/* collide Lua binding: plane arrays. Reads the flat plane arrays world:queryplanes takes, and
 * collide.frustum, which makes one from a view-projection matrix. */
#include <math.h>

#include "bind.h"
#include "vec.h"

int cl_readplanes(lua_State *L, int arg, const char *fname, double p[4 * CL_MAXPLANES]) {
    size_t len, i;
    if (lua_type(L, arg) != LUA_TTABLE) return cl_typeerror(L, arg, fname, "table");
    len = (size_t)lua_rawlen(L, arg);
    if (len == 0) return cl_argerror(L, arg, fname, "no planes");
    if (len % 4 != 0) return cl_argerror(L, arg, fname, "plane array length is not a multiple of 4");
    if (len > 4 * CL_MAXPLANES) return cl_argerror(L, arg, fname, "more than 32 planes");
    for (i = 0; i < len; i++) {
        int isnum;
        double c;
        lua_rawgeti(L, arg, (int)i + 1);
        c = (double)lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum || !isfinite(c)) {
            lua_pushfstring(L, "plane number %d %s", (int)i + 1, isnum ? "is not finite" : "is not a number");
            return cl_argerror(L, arg, fname, lua_tostring(L, -1));
        }
        p[i] = c;
    }
    return (int)(len / 4);
}

/* collide.frustum(m[, out]) -> the flat array {nx,ny,nz,d, ...} of the 6 planes (left, right,
 * bottom, top, near, far) of the view-projection matrix m = {e11,e12,e13,e14, e21,...,e44} (rows
 * in order, as love.math.Transform:getMatrix returns them; clip = m * (x,y,z,1), OpenGL clip space
 * -w <= x,y,z <= w), each normal pointing into the frustum and scaled to unit length (a plane
 * with a zero normal is left as is); out, when given, is filled instead of a new table. */
static int f_frustum(lua_State *L) {
    double m[16], pl[24];
    int i, k;
    if (lua_type(L, 1) != LUA_TTABLE) return cl_typeerror(L, 1, "frustum", "table");
    if (!lua_isnoneornil(L, 2) && lua_type(L, 2) != LUA_TTABLE) return cl_typeerror(L, 2, "frustum", "table");
    if (lua_rawlen(L, 1) != 16) return cl_argerror(L, 1, "frustum", "matrix has not 16 numbers");
    for (i = 0; i < 16; i++) {
        int isnum;
        lua_rawgeti(L, 1, i + 1);
        m[i] = (double)lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum || !isfinite(m[i])) {
            lua_pushfstring(L, "matrix number %d %s", i + 1, isnum ? "is not finite" : "is not a number");
            return cl_argerror(L, 1, "frustum", lua_tostring(L, -1));
        }
    }
    /* Gribb and Hartmann: row 4 plus or minus rows 1, 2, 3 */
    for (k = 0; k < 6; k++) {
        int r = k / 2;
        double s = k % 2 == 0 ? 1.0 : -1.0, l;
        for (i = 0; i < 4; i++) pl[4 * k + i] = m[12 + i] + s * m[4 * r + i];
        l = cl_len(pl[4 * k], pl[4 * k + 1], pl[4 * k + 2]);
        if (l > 0 && isfinite(l))
            for (i = 0; i < 4; i++) pl[4 * k + i] /= l;
    }
    if (lua_istable(L, 2)) lua_pushvalue(L, 2);
    else lua_createtable(L, 24, 0);
    for (i = 0; i < 24; i++) {
        lua_pushnumber(L, pl[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* Adds collide.frustum to the module table on top. */
void cl_open_planes(lua_State *L) {
    lua_pushcfunction(L, f_frustum);
    lua_setfield(L, -2, "frustum");
}
