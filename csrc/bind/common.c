/* collide Lua binding: the helpers of bind.h shared by every binding file.
 *
 * Type checks. Shape userdata carry a class tag (see cl_udhead in bind.h): the hot checks are
 * inline in bind.h (lua_touserdata + lua_rawlen + a pointer comparison) and read no metatable and
 * no upvalue. Each collide metatable is still stored in the registry twice: under its name (as
 * luaL_newmetatable does, so luaL_checkudata(L, i, CL_MT_WORLD) also works) and under a
 * lightuserdata key, the address of one byte of class_keys below; new shapes get their metatable
 * from there, and collide.type compares metatables. Functions registered by cl_newclass (and the
 * module functions of funcs.c except toi) still get the four shape metatables as upvalues 1..4
 * (cl_pushclassupvalues) for code that wants them, but no check reads them any more: a C function
 * may have any upvalues.
 *
 * Errors. cl_argerror and cl_typeerror raise the string "bad argument #N to 'fname' (msg)" with
 * lua_error, so the message carries no "file:line:" position prefix (luaL_error would prepend
 * the position of the Lua code that called the C function). Unlike luaL_argerror they never
 * rename the function or renumber arguments for method calls: N and fname are exactly what the
 * caller passed, self counting as #1. */
#include <math.h>
#include <string.h>

#include "bind.h"

/* Polygon comes after World so that the fixed-size shape classes stay K_AABB..K_SPHERE < K_WORLD. */
enum { K_AABB, K_RAY, K_OBB, K_SPHERE, K_WORLD, K_POLYGON, K_MESH, K_CHARACTER, K_COUNT };

/* One byte per class; only the addresses matter. */
static const char class_keys[K_COUNT] = { 0, 0, 0, 0, 0, 0, 0, 0 };
static const char *const class_names[K_COUNT] = {
    CL_MT_AABB, CL_MT_RAY, CL_MT_OBB, CL_MT_SPHERE, CL_MT_WORLD, CL_MT_POLYGON, CL_MT_MESH,
    "collide.Character"
};

/* The class tags (bind.h): one byte per tagged class, only the addresses matter. The K_* order
 * above and the CL_K_* order of bind.h are the same for the four fixed-size shapes; Polygon's tag
 * is cl_class_tags[CL_K_POLYGON] and its class K_POLYGON. */
const char cl_class_tags[CL_K_TAGS] = { 0, 0, 0, 0, 0 };

/* Full userdata size (tag header + payload) of each shape class. */
static const size_t class_sizes[K_WORLD] = {
    sizeof(cl_udhead) + sizeof(cl_aabb), sizeof(cl_udhead) + sizeof(cl_ray),
    sizeof(cl_udhead) + sizeof(cl_obb), sizeof(cl_udhead) + sizeof(cl_sphere)
};

/* Pushes the metatable of class k from the registry (nil if the class was never created). */
static void pushclass(lua_State *L, int k) {
    cl_rawgetp(L, LUA_REGISTRYINDEX, &class_keys[k]);
    if (lua_isnil(L, -1)) { /* a class made with luaL_newmetatable rather than cl_newclass */
        lua_pop(L, 1);
        lua_getfield(L, LUA_REGISTRYINDEX, class_names[k]);
    }
}

/* Returns the class index K_* of a collide value at idx, or -1 (never raises). */
static int classof(lua_State *L, int idx) {
    int k, found = -1;
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return -1;
    for (k = 0; k < K_COUNT && found < 0; k++) {
        pushclass(L, k);
        if (lua_rawequal(L, -1, -2)) found = k;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (found >= 0 && found < K_WORLD && cl_toclass(L, idx, found, class_sizes[found] - sizeof(cl_udhead)) == NULL)
        return -1;
    if (found == K_POLYGON && cl_topolygon(L, idx) == NULL) return -1;
    if (found == K_MESH && cl_tomesh(L, idx) == NULL) return -1;
    return found;
}

/* Pushes the metatables of the four shape classes, creating any that is missing, and returns 4:
 * the upvalues every binding function gets (kept for compatibility; no check reads them). */
int cl_pushclassupvalues(lua_State *L) {
    int k;
    for (k = 0; k < K_WORLD; k++) {
        pushclass(L, k);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            luaL_newmetatable(L, class_names[k]);
            lua_pushstring(L, class_names[k]);
            lua_setfield(L, -2, "__name");
            lua_pushvalue(L, -1);
            cl_rawsetp(L, LUA_REGISTRYINDEX, &class_keys[k]);
        }
    }
    return K_WORLD;
}

int cl_argerror(lua_State *L, int arg, const char *fname, const char *msg) {
    lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg, fname, msg);
    return lua_error(L);
}

int cl_typeerror(lua_State *L, int arg, const char *fname, const char *expected) {
    const char *got;
    if (luaL_getmetafield(L, arg, "__name") && lua_type(L, -1) == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else
        got = lua_isnone(L, arg) ? "no value" : luaL_typename(L, arg);
    lua_pushfstring(L, "bad argument #%d to '%s' (%s expected, got %s)", arg, fname, expected, got);
    return lua_error(L);
}

double cl_checknum_slow(lua_State *L, int arg, const char *fname) {
    int isnum;
    lua_Number n = lua_tonumberx(L, arg, &isnum);
    if (!isnum) cl_typeerror(L, arg, fname, "number");
    return (double)n;
}

double cl_checkfinite_slow(lua_State *L, int arg, const char *fname) {
    double n = cl_checknum_slow(L, arg, fname);
    if (!isfinite(n)) cl_argerror(L, arg, fname, "number is not finite");
    return n;
}

void cl_checkvec_slow(lua_State *L, int arg, const char *fname) {
    cl_checkfinite_slow(L, arg, fname);
    cl_checkfinite_slow(L, arg + 1, fname);
    cl_checkfinite_slow(L, arg + 2, fname);
}

double cl_optlimit_slow(lua_State *L, int arg, const char *fname, double def) {
    double n;
    if (lua_isnoneornil(L, arg)) return def;
    n = cl_checknum_slow(L, arg, fname);
    if (isnan(n)) cl_argerror(L, arg, fname, "limit is NaN");
    if (n < 0) cl_argerror(L, arg, fname, "limit is negative");
    return n;
}

int cl_shapeerror(lua_State *L, int arg, const char *fname) {
    return cl_typeerror(L, arg, fname, CL_MT_AABB ", " CL_MT_OBB " or " CL_MT_SPHERE);
}

int cl_toshape(lua_State *L, int idx, cl_shape *out) {
    const void *p;
    int kind = cl_toshapeptr(L, idx, &p);
    switch (kind) {
    case CL_AABB:   out->u.aabb = *(const cl_aabb *)p; break;
    case CL_OBB:    out->u.obb = *(const cl_obb *)p; break;
    case CL_SPHERE: out->u.sphere = *(const cl_sphere *)p; break;
    default:        return 0;
    }
    out->kind = (cl_kind)kind;
    return 1;
}

void cl_checkshape(lua_State *L, int arg, const char *fname, cl_shape *out) {
    if (!cl_toshape(L, arg, out)) cl_shapeerror(L, arg, fname);
}

/* Pushes a new shape userdata of class k (tag set, payload uninitialised, the metatable of class
 * k) and returns its payload. */
static void *newobject(lua_State *L, int k) {
    cl_udhead *h = (cl_udhead *)cl_newuserdata(L, class_sizes[k]);
    h->tag = &cl_class_tags[k];
    pushclass(L, k);
    lua_setmetatable(L, -2);
    return h + 1;
}

cl_aabb *cl_newaabb(lua_State *L) { return (cl_aabb *)newobject(L, K_AABB); }
cl_ray *cl_newray(lua_State *L) { return (cl_ray *)newobject(L, K_RAY); }
cl_obb *cl_newobb(lua_State *L) { return (cl_obb *)newobject(L, K_OBB); }
cl_sphere *cl_newsphere(lua_State *L) { return (cl_sphere *)newobject(L, K_SPHERE); }

cl_polygon *cl_newpolygon(lua_State *L, size_t n) {
    cl_udhead *h = (cl_udhead *)cl_newuserdata(L, CL_POLYGON_SIZE(n));
    cl_polygon *p = (cl_polygon *)(h + 1);
    h->tag = &cl_class_tags[CL_K_POLYGON];
    p->n = n;
    pushclass(L, K_POLYGON);
    lua_setmetatable(L, -2);
    return p;
}

void cl_pushshape(lua_State *L, const cl_shape *s) {
    switch (s->kind) {
    case CL_AABB:   *cl_newaabb(L) = s->u.aabb; break;
    case CL_OBB:    *cl_newobb(L) = s->u.obb; break;
    case CL_SPHERE: *cl_newsphere(L) = s->u.sphere; break;
    }
}

void cl_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *metamethods) {
    int k;
    luaL_newmetatable(L, name); /* reuses the existing table when the module is opened again */
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__name");
    for (k = 0; k < K_COUNT; k++) {
        if (strcmp(name, class_names[k]) == 0) {
            lua_pushvalue(L, -1);
            cl_rawsetp(L, LUA_REGISTRYINDEX, &class_keys[k]);
        }
    }
    if (metamethods != NULL) luaL_setfuncs(L, metamethods, cl_pushclassupvalues(L));
    lua_newtable(L);
    if (methods != NULL) luaL_setfuncs(L, methods, cl_pushclassupvalues(L));
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

/* collide.type(v): "AABB", "Ray", "OBB", "Sphere", "World", "Polygon", "Character" for collide
 * values, else nil. */
int cl_bind_type(lua_State *L) {
    static const char *const short_names[K_COUNT] = { "AABB", "Ray", "OBB", "Sphere", "World", "Polygon",
                                                      "Mesh", "Character" };
    int k = classof(L, 1);
    if (k < 0) lua_pushnil(L);
    else lua_pushstring(L, short_names[k]);
    return 1;
}
