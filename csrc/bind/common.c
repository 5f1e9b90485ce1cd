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
#include <stdio.h>
#include <string.h>

#include "bind.h"

/* The class table (bind.h): the shape kinds in cl_kind order, then Ray, Polygon, World, Mesh, Character. */
const cl_class cl_classes[CL_K_CLASSES] = {
    { CL_MT_AABB, "AABB", 'A', cl_open_aabb },
    { CL_MT_OBB, "OBB", 'O', cl_open_obb },
    { CL_MT_SPHERE, "Sphere", 'S', cl_open_sphere },
    { CL_MT_CAPSULE, "Capsule", 'C', cl_open_capsule },
    { CL_MT_RAY, "Ray", 'R', cl_open_ray },
    { CL_MT_POLYGON, "Polygon", 'P', cl_open_polygon },
    { CL_MT_WORLD, "World", 0, NULL },
    { CL_MT_MESH, "Mesh", 0, cl_open_mesh },
    { "collide.Character", "Character", 0, NULL },
};

/* One byte per class; only the addresses matter. */
static const char class_keys[CL_K_CLASSES] = { 0 };

/* The class tags (bind.h): one byte per tagged class, only the addresses matter. */
const char cl_class_tags[CL_K_TAGS] = { 0 };

/* The payload size of a fixed-size tagged class (a shape kind or Ray); 0 for the others. */
static size_t payload_size(int k) {
    return k < CL_KINDS ? cl_kinds[k].size : k == CL_K_RAY ? sizeof(cl_ray) : 0;
}

/* The classes whose metatables every binding function gets as upvalues 1..4, in this order. */
static const int upvalue_classes[4] = { CL_K_AABB, CL_K_RAY, CL_K_OBB, CL_K_SPHERE };

/* Pushes the metatable of class k from the registry (nil if the class was never created). */
static void pushclass(lua_State *L, int k) {
    cl_rawgetp(L, LUA_REGISTRYINDEX, &class_keys[k]);
    if (lua_isnil(L, -1)) { /* a class made with luaL_newmetatable rather than cl_newclass */
        lua_pop(L, 1);
        lua_getfield(L, LUA_REGISTRYINDEX, cl_classes[k].mt);
    }
}

/* Returns the class index CL_K_* of a collide value at idx, or -1 (never raises). */
static int classof(lua_State *L, int idx) {
    int k, found = -1;
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return -1;
    for (k = 0; k < CL_K_CLASSES && found < 0; k++) {
        pushclass(L, k);
        if (lua_rawequal(L, -1, -2)) found = k;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (found >= 0 && payload_size(found) > 0 && cl_toclass(L, idx, found, payload_size(found)) == NULL)
        return -1;
    if (found == CL_K_POLYGON && cl_topolygon(L, idx) == NULL) return -1;
    if (found == CL_K_MESH && cl_tomesh(L, idx) == NULL) return -1;
    return found;
}

/* Pushes the metatables of AABB, Ray, OBB and Sphere, creating any that is missing, and returns
 * 4: the upvalues every binding function gets (kept for compatibility; no check reads them). */
int cl_pushclassupvalues(lua_State *L) {
    int i;
    for (i = 0; i < 4; i++) {
        int k = upvalue_classes[i];
        pushclass(L, k);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            luaL_newmetatable(L, cl_classes[k].mt);
            lua_pushstring(L, cl_classes[k].mt);
            lua_setfield(L, -2, "__name");
            lua_pushvalue(L, -1);
            cl_rawsetp(L, LUA_REGISTRYINDEX, &class_keys[k]);
        }
    }
    return 4;
}

int cl_argerror(lua_State *L, int arg, const char *fname, const char *msg) {
    lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg, fname, msg);
    return lua_error(L);
}

int cl_optionerror(lua_State *L, int arg, const char *fname) {
    const char *k;
    if (lua_type(L, -2) == LUA_TSTRING || lua_type(L, -2) == LUA_TNUMBER) {
        lua_pushvalue(L, -2);
        k = lua_tostring(L, -1);
    } else {
        k = luaL_typename(L, -2);
    }
    lua_pushfstring(L, "unknown option '%s'", k);
    return cl_argerror(L, arg, fname, lua_tostring(L, -1));
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

/* "collide.AABB, collide.OBB, collide.Sphere or collide.Capsule": every kind's metatable name. */
int cl_shapeerror(lua_State *L, int arg, const char *fname) {
    char buf[256];
    size_t n = 0;
    int k;
    buf[0] = 0;
    for (k = 0; k < CL_KINDS; k++) {
        const char *sep = k == 0 ? "" : k == CL_KINDS - 1 ? " or " : ", ";
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", sep, cl_classes[k].mt);
        if (n >= sizeof buf) break;
    }
    return cl_typeerror(L, arg, fname, buf);
}

int cl_toshape(lua_State *L, int idx, cl_shape *out) {
    const void *p;
    int kind = cl_toshapeptr(L, idx, &p);
    switch (kind) {                     /* a struct copy of known size per kind */
#define COPY(K, T, m) case K: out->u.m = *(const T *)p; break;
    CL_KIND_LIST(COPY)
#undef COPY
    default: return 0;
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
    cl_udhead *h = (cl_udhead *)cl_newuserdata(L, sizeof(cl_udhead) + payload_size(k));
    h->tag = &cl_class_tags[k];
    pushclass(L, k);
    lua_setmetatable(L, -2);
    return h + 1;
}

cl_aabb *cl_newaabb(lua_State *L) { return (cl_aabb *)newobject(L, CL_K_AABB); }
cl_ray *cl_newray(lua_State *L) { return (cl_ray *)newobject(L, CL_K_RAY); }
cl_obb *cl_newobb(lua_State *L) { return (cl_obb *)newobject(L, CL_K_OBB); }
cl_sphere *cl_newsphere(lua_State *L) { return (cl_sphere *)newobject(L, CL_K_SPHERE); }
void *cl_newkind(lua_State *L, cl_kind k) { return newobject(L, (int)k); }

cl_polygon *cl_newpolygon(lua_State *L, size_t n) {
    cl_udhead *h = (cl_udhead *)cl_newuserdata(L, CL_POLYGON_SIZE(n));
    cl_polygon *p = (cl_polygon *)(h + 1);
    h->tag = &cl_class_tags[CL_K_POLYGON];
    p->n = n;
    pushclass(L, CL_K_POLYGON);
    lua_setmetatable(L, -2);
    return p;
}

void cl_pushshape(lua_State *L, const cl_shape *s) {
    switch (s->kind) {
#define PUSH(K, T, m) case K: *(T *)newobject(L, K) = s->u.m; break;
    CL_KIND_LIST(PUSH)
#undef PUSH
    default: break;
    }
}

/* Moves self's position points by d, checked first (nothing changes when one would not be finite). */
int cl_m_translate(lua_State *L, cl_kind k) {
    void *p = (void *)cl_checkkind(L, k, "translate");
    cl_vec3 d = cl_checkvec(L, 2, "translate");
    int axis = cl_kind_moved_finite(k, p, d);
    if (axis) return cl_argerror(L, 1 + axis, "translate", "result is not finite");
    cl_kind_translate(k, p, d);
    lua_pushvalue(L, 1);
    return 1;
}

int cl_m_eq(lua_State *L) {
    cl_shape a, b;
    lua_pushboolean(L, cl_toshape(L, 1, &a) && cl_toshape(L, 2, &b) && cl_shape_equal(&a, &b));
    return 1;
}

void cl_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *metamethods) {
    int k;
    luaL_newmetatable(L, name); /* reuses the existing table when the module is opened again */
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__name");
    for (k = 0; k < CL_K_CLASSES; k++) {
        if (strcmp(name, cl_classes[k].mt) == 0) {
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

/* collide.type(v): the class's short name ("AABB", "Ray", "World", ...) for collide values, else nil. */
int cl_bind_type(lua_State *L) {
    int k = classof(L, 1);
    if (k < 0) lua_pushnil(L);
    else lua_pushstring(L, cl_classes[k].name);
    return 1;
}
