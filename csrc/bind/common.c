/* collide Lua binding: the helpers of bind.h shared by every binding file.
 *
 * Type checks. Each collide metatable is stored in the registry twice: under its name (as
 * luaL_newmetatable does, so luaL_checkudata(L, i, CL_MT_WORLD) also works) and under a
 * lightuserdata key, the address of one byte of class_keys below (so several Lua states can
 * use the module at once). For speed, every function registered by cl_newclass (methods and
 * metamethods) and every module function of the binding carries the four shape metatables as
 * upvalues 1..4 (AABB, Ray, OBB, Sphere; see cl_pushclassupvalues), so a check is
 * lua_touserdata + lua_getmetatable + lua_rawequal against an upvalue + pop (+ a size check).
 * A function with NO upvalues (e.g. registered with luaL_setfuncs(L, l, 0)) still works: the
 * missing upvalue is detected and the registry is used instead (a few ns slower).
 * RULE: a C function that calls these checks must either be registered by cl_newclass or have
 * no upvalues of its own; own upvalues in slots 1..4 would make the checks reject good values.
 *
 * Errors. cl_argerror and cl_typeerror raise the string "bad argument #N to 'fname' (msg)" with
 * lua_error, so the message carries no "file:line:" position prefix (luaL_error would prepend
 * the position of the Lua code that called the C function). Unlike luaL_argerror they never
 * rename the function or renumber arguments for method calls: N and fname are exactly what the
 * caller passed, self counting as #1. */
#include <math.h>
#include <string.h>

#include "bind.h"

enum { K_AABB, K_RAY, K_OBB, K_SPHERE, K_WORLD, K_COUNT };

/* One byte per class; only the addresses matter. */
static const char class_keys[K_COUNT] = { 0, 0, 0, 0, 0 };
static const char *const class_names[K_COUNT] = {
    CL_MT_AABB, CL_MT_RAY, CL_MT_OBB, CL_MT_SPHERE, CL_MT_WORLD
};

/* Payload size of each shape class: checked as well, so that a foreign userdata given a collide
 * metatable through the debug library is still rejected rather than read out of bounds. */
static const size_t class_sizes[K_WORLD] = {
    sizeof(cl_aabb), sizeof(cl_ray), sizeof(cl_obb), sizeof(cl_sphere)
};

/* Pushes the metatable of class k from the registry (nil if the class was never created). */
static void pushclass(lua_State *L, int k) {
    cl_rawgetp(L, LUA_REGISTRYINDEX, &class_keys[k]);
    if (lua_isnil(L, -1)) { /* a class made with luaL_newmetatable rather than cl_newclass */
        lua_pop(L, 1);
        lua_getfield(L, LUA_REGISTRYINDEX, class_names[k]);
    }
}

/* Returns 1 if the table on top (a metatable) is the one of shape class k (never raises). Uses
 * the running function's upvalue k + 1 when it exists, else (no such upvalue) the registry. */
static int topisclass(lua_State *L, int k) {
    int same;
    if (lua_rawequal(L, -1, lua_upvalueindex(k + 1))) return 1;
    if (lua_type(L, lua_upvalueindex(k + 1)) != LUA_TNONE) return 0;
    pushclass(L, k);
    same = lua_rawequal(L, -1, -2);
    lua_pop(L, 1);
    return same;
}

/* Returns the payload of the value at idx if it is a full userdata of shape class k, else NULL.
 * The common case (the running function has the class upvalues) is straight-line. */
static void *toclass(lua_State *L, int idx, int k) {
    void *p = lua_touserdata(L, idx);
    int same;
    if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
    same = lua_rawequal(L, -1, lua_upvalueindex(k + 1)) || topisclass(L, k);
    lua_pop(L, 1);
    return same && lua_rawlen(L, idx) == class_sizes[k] ? p : NULL;
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
    if (found >= 0 && found < K_WORLD && lua_rawlen(L, idx) != class_sizes[found]) return -1;
    return found;
}

/* Pushes the metatables of the four shape classes, creating any that is missing, and returns 4:
 * the upvalues every binding function gets, which make the type checks a pointer comparison. */
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

double cl_checknum(lua_State *L, int arg, const char *fname) {
    int isnum;
    lua_Number n = lua_tonumberx(L, arg, &isnum);
    if (!isnum) cl_typeerror(L, arg, fname, "number");
    return (double)n;
}

double cl_checkfinite(lua_State *L, int arg, const char *fname) {
    double n = cl_checknum(L, arg, fname);
    if (!isfinite(n)) cl_argerror(L, arg, fname, "number is not finite");
    return n;
}

/* Reads the vector x, y, z from arguments arg..arg+2, each a finite number (errors as
 * cl_checkfinite, naming the first bad argument). Not in bind.h: declared where used. */
cl_vec3 cl_checkvec(lua_State *L, int arg, const char *fname) {
    int okx, oky, okz;
    double x = (double)lua_tonumberx(L, arg, &okx);
    double y = (double)lua_tonumberx(L, arg + 1, &oky);
    double z = (double)lua_tonumberx(L, arg + 2, &okz);
    if (!(okx && oky && okz && isfinite(x) && isfinite(y) && isfinite(z))) {
        cl_checkfinite(L, arg, fname);
        cl_checkfinite(L, arg + 1, fname);
        cl_checkfinite(L, arg + 2, fname);
    }
    return cl_v3(x, y, z);
}

double cl_optlimit(lua_State *L, int arg, const char *fname, double def) {
    double n;
    if (lua_isnoneornil(L, arg)) return def;
    n = cl_checknum(L, arg, fname);
    if (isnan(n)) cl_argerror(L, arg, fname, "limit is NaN");
    if (n < 0) cl_argerror(L, arg, fname, "limit is negative");
    return n;
}

cl_aabb *cl_checkaabb(lua_State *L, int arg, const char *fname) {
    void *p = toclass(L, arg, K_AABB);
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_AABB);
    return (cl_aabb *)p;
}

cl_ray *cl_checkray(lua_State *L, int arg, const char *fname) {
    void *p = toclass(L, arg, K_RAY);
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_RAY);
    return (cl_ray *)p;
}

cl_obb *cl_checkobb(lua_State *L, int arg, const char *fname) {
    void *p = toclass(L, arg, K_OBB);
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_OBB);
    return (cl_obb *)p;
}

cl_sphere *cl_checksphere(lua_State *L, int arg, const char *fname) {
    void *p = toclass(L, arg, K_SPHERE);
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_SPHERE);
    return (cl_sphere *)p;
}

int cl_toshape(lua_State *L, int idx, cl_shape *out) {
    const void *p = lua_touserdata(L, idx);
    int k = -1;
    if (p == NULL || !lua_getmetatable(L, idx)) return 0;
    if (lua_rawequal(L, -1, lua_upvalueindex(K_AABB + 1))) k = K_AABB;
    else if (lua_rawequal(L, -1, lua_upvalueindex(K_OBB + 1))) k = K_OBB;
    else if (lua_rawequal(L, -1, lua_upvalueindex(K_SPHERE + 1))) k = K_SPHERE;
    else if (lua_type(L, lua_upvalueindex(1)) == LUA_TNONE) { /* no class upvalues: registry */
        if (topisclass(L, K_AABB)) k = K_AABB;
        else if (topisclass(L, K_OBB)) k = K_OBB;
        else if (topisclass(L, K_SPHERE)) k = K_SPHERE;
    }
    lua_pop(L, 1);
    if (k < 0 || lua_rawlen(L, idx) != class_sizes[k]) return 0;
    switch (k) {
    case K_AABB:   out->kind = CL_AABB;   out->u.aabb = *(const cl_aabb *)p; break;
    case K_OBB:    out->kind = CL_OBB;    out->u.obb = *(const cl_obb *)p; break;
    default:       out->kind = CL_SPHERE; out->u.sphere = *(const cl_sphere *)p; break;
    }
    return 1;
}

void cl_checkshape(lua_State *L, int arg, const char *fname, cl_shape *out) {
    if (!cl_toshape(L, arg, out))
        cl_typeerror(L, arg, fname, CL_MT_AABB ", " CL_MT_OBB " or " CL_MT_SPHERE);
}

/* Pushes a new userdata of sz bytes with the metatable of class k and returns its payload. */
static void *newobject(lua_State *L, size_t sz, int k) {
    void *p = cl_newuserdata(L, sz);
    pushclass(L, k);
    lua_setmetatable(L, -2);
    return p;
}

cl_aabb *cl_newaabb(lua_State *L) { return (cl_aabb *)newobject(L, sizeof(cl_aabb), K_AABB); }
cl_ray *cl_newray(lua_State *L) { return (cl_ray *)newobject(L, sizeof(cl_ray), K_RAY); }
cl_obb *cl_newobb(lua_State *L) { return (cl_obb *)newobject(L, sizeof(cl_obb), K_OBB); }
cl_sphere *cl_newsphere(lua_State *L) { return (cl_sphere *)newobject(L, sizeof(cl_sphere), K_SPHERE); }

void cl_pushshape(lua_State *L, const cl_shape *s) {
    switch (s->kind) {
    case CL_AABB:   *cl_newaabb(L) = s->u.aabb; break;
    case CL_OBB:    *cl_newobb(L) = s->u.obb; break;
    case CL_SPHERE: *cl_newsphere(L) = s->u.sphere; break;
    }
}

int cl_pushhit(lua_State *L, const cl_hit *h) {
    lua_pushnumber(L, h->t);
    lua_pushnumber(L, h->n.x);
    lua_pushnumber(L, h->n.y);
    lua_pushnumber(L, h->n.z);
    return 4;
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

/* collide.type(v): "AABB", "Ray", "OBB", "Sphere", "World" for collide values, else nil. */
int cl_bind_type(lua_State *L) {
    static const char *const short_names[K_COUNT] = { "AABB", "Ray", "OBB", "Sphere", "World" };
    int k = classof(L, 1);
    if (k < 0) lua_pushnil(L);
    else lua_pushstring(L, short_names[k]);
    return 1;
}
