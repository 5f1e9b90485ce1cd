/* collide Lua binding: helpers shared by every binding file. Only this directory includes Lua. */
#ifndef CL_BIND_H
#define CL_BIND_H

#include "lua.h"
#include "lauxlib.h"
#include "cl.h"
#include "compat.h"

/* Metatable names (also each metatable's __name). */
#define CL_MT_AABB   "collide.AABB"
#define CL_MT_RAY    "collide.Ray"
#define CL_MT_OBB    "collide.OBB"
#define CL_MT_SPHERE "collide.Sphere"
#define CL_MT_WORLD  "collide.World"

/// Raises "bad argument #arg to 'fname' (msg)". arg counts self as 1 for methods. Never returns.
int cl_argerror(lua_State *L, int arg, const char *fname, const char *msg);
/// Raises "bad argument #arg to 'fname' (expected expected, got T)", T being the value's __name
/// or type name, or "no value". Never returns.
int cl_typeerror(lua_State *L, int arg, const char *fname, const char *expected);
/// A number argument (as luaL_checknumber), with errors worded by cl_typeerror.
double cl_checknum(lua_State *L, int arg, const char *fname);
/// A finite number argument; NaN and infinities raise "number is not finite".
double cl_checkfinite(lua_State *L, int arg, const char *fname);
/// An optional limit (maxt, maxfraction): def when nil or absent; otherwise a number >= 0, +inf allowed.
double cl_optlimit(lua_State *L, int arg, const char *fname, double def);

/// The userdata at arg if it is of that type, else a type error naming the type.
cl_aabb   *cl_checkaabb(lua_State *L, int arg, const char *fname);
cl_ray    *cl_checkray(lua_State *L, int arg, const char *fname);
cl_obb    *cl_checkobb(lua_State *L, int arg, const char *fname);
cl_sphere *cl_checksphere(lua_State *L, int arg, const char *fname);
/// Copies the AABB, OBB or Sphere at arg into out, else a type error.
void cl_checkshape(lua_State *L, int arg, const char *fname, cl_shape *out);
/// 1 and fills out if the value at idx is an AABB, OBB or Sphere; 0 otherwise (never raises).
int cl_toshape(lua_State *L, int idx, cl_shape *out);

/// Pushes a new userdata of the shape's type holding a copy of it.
void cl_pushshape(lua_State *L, const cl_shape *s);
/// Push new userdata of each type (uninitialised payload) and return the payload.
cl_aabb   *cl_newaabb(lua_State *L);
cl_ray    *cl_newray(lua_State *L);
cl_obb    *cl_newobb(lua_State *L);
cl_sphere *cl_newsphere(lua_State *L);

/// Pushes t, nx, ny, nz and returns 4.
int cl_pushhit(lua_State *L, const cl_hit *h);

/// Creates the metatable name (with __name, __index = methods table) from the two lists, leaves
/// nothing on the stack. methods and metamethods may be NULL.
void cl_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *metamethods);

/* Each part adds its constructors and functions to the module table at the top of the stack. */
void cl_open_shapes(lua_State *L);   /* AABB, Ray, OBB, Sphere and the free functions */
void cl_open_world(lua_State *L);    /* World */

#endif
