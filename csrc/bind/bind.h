/* collide Lua binding: helpers shared by every binding file. Only this directory includes Lua. */
#ifndef CL_BIND_H
#define CL_BIND_H

#include "lua.h"
#include "lauxlib.h"
#include "cl.h"
#include "compat.h"

#include <math.h>
#include <stddef.h>

/* Metatable names (also each metatable's __name). */
#define CL_MT_AABB   "collide.AABB"
#define CL_MT_RAY    "collide.Ray"
#define CL_MT_OBB    "collide.OBB"
#define CL_MT_SPHERE "collide.Sphere"
#define CL_MT_WORLD  "collide.World"
#define CL_MT_POLYGON "collide.Polygon"
#define CL_MT_MESH   "collide.Mesh"

/// Raises "bad argument #arg to 'fname' (msg)". arg counts self as 1 for methods. Never returns.
int cl_argerror(lua_State *L, int arg, const char *fname, const char *msg);
/// Raises "bad argument #arg to 'fname' (expected expected, got T)", T being the value's __name
/// or type name, or "no value". Never returns.
int cl_typeerror(lua_State *L, int arg, const char *fname, const char *expected);
/// Shape userdata layout: a cl_udhead (the class tag) followed by the payload (cl_aabb, cl_ray,
/// cl_obb or cl_sphere). The tag of class k is &cl_class_tags[k], a static address, so a type check
/// is lua_touserdata + lua_rawlen + one pointer comparison: two API calls, no metatable, no upvalue
/// (functions may have any upvalues). The size must match exactly and is checked BEFORE the tag is
/// read, so a smaller foreign userdata is never read out of bounds. Memory safety does not depend on
/// the tag being unforgeable: payloads are plain doubles, so a forged userdata of the right size and
/// tag (only C code could make one) yields wrong numbers, never a memory error. Values are validated
/// (finite, ordered) when a shape is created or set; a forged one is not checked further.
/// The one visible difference from a metatable check: a real shape whose metatable was replaced
/// with debug.setmetatable is still accepted by the methods (it keeps its tag).
/// Polygons (polygon.c) use the same header with a payload of varying size, a cl_polygon: their
/// check (cl_topolygon) reads the tag only once the userdata is large enough for the header, and
/// the vertex count only once the tag matches, then requires the size to match that count exactly.
typedef union cl_udhead { const char *tag; double align_; } cl_udhead;
/// Class tags: the four fixed-size shape classes (CL_K_SHAPES of them), then Polygon.
enum { CL_K_AABB, CL_K_RAY, CL_K_OBB, CL_K_SPHERE, CL_K_SHAPES, CL_K_POLYGON = CL_K_SHAPES, CL_K_TAGS };
extern const char cl_class_tags[CL_K_TAGS];

/// Payload of a collide.Polygon: n >= 3 vertices, xy[0..2n-1] = x1,y1, x2,y2, ... (all finite;
/// immutable once made), followed, for n <= CL_POLY_EDGES_MAX, by the core's edge table
/// (cl_polygon_edges, CL_POLY_EDGE_DOUBLES(n) doubles). The userdata is exactly
/// CL_POLYGON_SIZE(n) bytes.
typedef struct cl_polygon { size_t n; double xy[]; } cl_polygon;
#define CL_POLYGON_HEAD (sizeof(cl_udhead) + sizeof(cl_polygon))
#define CL_POLYGON_DOUBLES(n) \
    (2 * (size_t)(n) + ((size_t)(n) <= CL_POLY_EDGES_MAX ? CL_POLY_EDGE_DOUBLES(n) : 0))
#define CL_POLYGON_SIZE(n) (CL_POLYGON_HEAD + CL_POLYGON_DOUBLES(n) * sizeof(double))
/// The polygon's edge table, or NULL if it has none (more than CL_POLY_EDGES_MAX vertices).
static inline const double *cl_polygon_edgetable(const cl_polygon *p) {
    return p->n <= CL_POLY_EDGES_MAX ? p->xy + 2 * p->n : NULL;
}

/// The payload of the value at idx if it is a shape userdata of class k with payload size sz, else NULL.
static inline void *cl_toclass(lua_State *L, int idx, int k, size_t sz) {
    cl_udhead *h = (cl_udhead *)lua_touserdata(L, idx);
    if (h != NULL && lua_rawlen(L, idx) == sizeof(cl_udhead) + sz && h->tag == &cl_class_tags[k])
        return h + 1;
    return NULL;
}

/// The payload of the value at idx if it is a collide.Polygon, else NULL. Memory safety as for
/// cl_toclass: the size is at least the smallest polygon's (every count's size is at least a
/// 3-vertex polygon's) before the tag is read, and the count is read only from a tagged userdata
/// and must then match the size exactly (for large counts compared by division, so a forged count
/// cannot overflow into a match).
static inline const cl_polygon *cl_topolygon(lua_State *L, int idx) {
    const cl_udhead *h = (const cl_udhead *)lua_touserdata(L, idx);
    const cl_polygon *p;
    size_t len, n;
    if (h == NULL) return NULL;
    len = (size_t)lua_rawlen(L, idx);
    if (len < CL_POLYGON_SIZE(3) || h->tag != &cl_class_tags[CL_K_POLYGON]) return NULL;
    p = (const cl_polygon *)(h + 1);
    n = p->n;
    if (n <= CL_POLY_EDGES_MAX ? len != CL_POLYGON_SIZE(n)
                               : ((len - CL_POLYGON_HEAD) % (2 * sizeof(double)) != 0 ||
                                  (len - CL_POLYGON_HEAD) / (2 * sizeof(double)) != n))
        return NULL;
    return p;
}

/// The cl_kind of the AABB, OBB or Sphere at idx with *payload set to its data; -1 for anything else.
static inline int cl_toshapeptr(lua_State *L, int idx, const void **payload) {
    const cl_udhead *h = (const cl_udhead *)lua_touserdata(L, idx);
    size_t len;
    if (h == NULL) return -1;
    len = (size_t)lua_rawlen(L, idx);
    *payload = h + 1;
    if (len == sizeof(cl_udhead) + sizeof(cl_aabb) && h->tag == &cl_class_tags[CL_K_AABB]) return CL_AABB;
    if (len == sizeof(cl_udhead) + sizeof(cl_sphere) && h->tag == &cl_class_tags[CL_K_SPHERE]) return CL_SPHERE;
    if (len == sizeof(cl_udhead) + sizeof(cl_obb) && h->tag == &cl_class_tags[CL_K_OBB]) return CL_OBB;
    return -1;
}

/// The slow paths of the inline checks below: each raises the error the full check would raise
/// (or, for cl_optlimit_slow, returns the limit). Not for direct use.
double cl_checknum_slow(lua_State *L, int arg, const char *fname);
double cl_checkfinite_slow(lua_State *L, int arg, const char *fname);
double cl_optlimit_slow(lua_State *L, int arg, const char *fname, double def);
void cl_checkvec_slow(lua_State *L, int arg, const char *fname);

/// A number argument (as luaL_checknumber), with errors worded by cl_typeerror.
static inline double cl_checknum(lua_State *L, int arg, const char *fname) {
    int isnum;
    lua_Number n = lua_tonumberx(L, arg, &isnum);
    return isnum ? (double)n : cl_checknum_slow(L, arg, fname);
}
/// A finite number argument; NaN and infinities raise "number is not finite".
static inline double cl_checkfinite(lua_State *L, int arg, const char *fname) {
    int isnum;
    double n = (double)lua_tonumberx(L, arg, &isnum);
    return isnum && isfinite(n) ? n : cl_checkfinite_slow(L, arg, fname);
}
/// An optional limit (maxt, maxfraction): def when nil or absent; otherwise a number >= 0, +inf allowed.
static inline double cl_optlimit(lua_State *L, int arg, const char *fname, double def) {
    int isnum;
    double n;
    if (lua_gettop(L) < arg) return def;
    n = (double)lua_tonumberx(L, arg, &isnum);
    return isnum && n >= 0 ? n : cl_optlimit_slow(L, arg, fname, def);
}
/// The vector x, y, z at arguments arg..arg+2, each a finite number (errors as cl_checkfinite,
/// naming the first bad argument).
static inline cl_vec3 cl_checkvec(lua_State *L, int arg, const char *fname) {
    int okx, oky, okz;
    cl_vec3 v;
    v.x = (double)lua_tonumberx(L, arg, &okx);
    v.y = (double)lua_tonumberx(L, arg + 1, &oky);
    v.z = (double)lua_tonumberx(L, arg + 2, &okz);
    /* x - x is +0 for every finite x and NaN for NaN and infinities: one test for all three */
    if (!((okx & oky & okz) && (v.x - v.x) + (v.y - v.y) + (v.z - v.z) == 0))
        cl_checkvec_slow(L, arg, fname);
    return v;
}

/// The userdata at arg if it is of that type, else a type error naming the type.
static inline cl_aabb *cl_checkaabb(lua_State *L, int arg, const char *fname) {
    void *p = cl_toclass(L, arg, CL_K_AABB, sizeof(cl_aabb));
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_AABB);
    return (cl_aabb *)p;
}
static inline cl_ray *cl_checkray(lua_State *L, int arg, const char *fname) {
    void *p = cl_toclass(L, arg, CL_K_RAY, sizeof(cl_ray));
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_RAY);
    return (cl_ray *)p;
}
static inline cl_obb *cl_checkobb(lua_State *L, int arg, const char *fname) {
    void *p = cl_toclass(L, arg, CL_K_OBB, sizeof(cl_obb));
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_OBB);
    return (cl_obb *)p;
}
static inline cl_sphere *cl_checksphere(lua_State *L, int arg, const char *fname) {
    void *p = cl_toclass(L, arg, CL_K_SPHERE, sizeof(cl_sphere));
    if (p == NULL) cl_typeerror(L, arg, fname, CL_MT_SPHERE);
    return (cl_sphere *)p;
}
/// The type error of a shape argument that accepts AABB, OBB or Sphere. Never returns.
int cl_shapeerror(lua_State *L, int arg, const char *fname);
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
/// Pushes a new collide.Polygon of n vertices (count set, coordinates uninitialised) and returns
/// its payload. The caller checks that CL_POLYGON_SIZE(n) does not overflow.
cl_polygon *cl_newpolygon(lua_State *L, size_t n);

/// Reads the polygon table at arg (raw access) with pointinpolygon's checks and errors (naming arg
/// and fname): a table, at least 3 vertices, an even count, every coordinate a finite number.
/// Sets the stack top to slot - 1 first (arguments up to there must already be checked), and may
/// keep a buffer userdata at slot. Returns the coordinates (stackbuf, of CL_POLY_STACK_COORDS
/// doubles, or that buffer) and sets *ncoords to their number.
#define CL_POLY_STACK_COORDS 512
const double *cl_readpolygon(lua_State *L, int arg, const char *fname, int slot, double *stackbuf, size_t *ncoords);

/// Most planes world:queryplanes takes (one bit each in the core's masks).
#define CL_MAXPLANES 32
/// Reads a flat plane array {nx,ny,nz,d, ...} (1 to CL_MAXPLANES planes, finite numbers) at arg
/// into p; returns the plane count, or raises naming fname and arg (planes.c).
int cl_readplanes(lua_State *L, int arg, const char *fname, double p[4 * CL_MAXPLANES]);

/// Pushes t, nx, ny, nz and returns 4.
static inline int cl_pushhit(lua_State *L, const cl_hit *h) {
    lua_pushnumber(L, h->t);
    lua_pushnumber(L, h->n.x);
    lua_pushnumber(L, h->n.y);
    lua_pushnumber(L, h->n.z);
    return 4;
}

/// Creates the metatable name (with __name, __index = methods table) from the two lists, leaves
/// nothing on the stack. methods and metamethods may be NULL. Every function gets the four shape
/// metatables as upvalues 1-4 (AABB, Ray, OBB, Sphere); the type checks no longer read them.
void cl_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *metamethods);

/* Each part adds its constructors and functions to the module table at the top of the stack. */
void cl_open_shapes(lua_State *L);   /* AABB, Ray, OBB, Sphere and the free functions */
void cl_open_world(lua_State *L);    /* World */
void cl_open_character(lua_State *L); /* Character (character.c) */
void cl_open_polygon(lua_State *L);  /* Polygon (polygon.c) */
void cl_open_mesh(lua_State *L);     /* Mesh (mesh.c) */
void cl_open_planes(lua_State *L);   /* frustum (planes.c) */

struct cl_mesh;
/// The mesh (core struct, mesh.h) of the collide.Mesh at idx, or NULL for any other value (size and
/// tag checked as for shapes; never raises).
const struct cl_mesh *cl_tomesh(lua_State *L, int idx);
void cl_open_bump(lua_State *L);     /* module._bump, the C half of collide.bump (bump.c) */

#endif
