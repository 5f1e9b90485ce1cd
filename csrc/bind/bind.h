/* collide Lua binding: helpers shared by every binding file. Only this directory includes Lua. */
#ifndef CL_BIND_H
#define CL_BIND_H

#include "lua.h"
#include "lauxlib.h"
#include "cl.h"
#include "kinds.h"
#include "compat.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Metatable names (also each metatable's __name). */
#define CL_MT_AABB   "collide.AABB"
#define CL_MT_RAY    "collide.Ray"
#define CL_MT_OBB    "collide.OBB"
#define CL_MT_SPHERE "collide.Sphere"
#define CL_MT_CAPSULE "collide.Capsule"
#define CL_MT_WORLD  "collide.World"
#define CL_MT_POLYGON "collide.Polygon"
#define CL_MT_MESH   "collide.Mesh"

/// Raises "bad argument #arg to 'fname' (msg)". arg counts self as 1 for methods. Never returns.
int cl_argerror(lua_State *L, int arg, const char *fname, const char *msg);
/// Raises "bad argument #arg to 'fname' (unknown option 'k')" for the options table's key k at
/// index -2 (as lua_next leaves it; a key that is not a string or number is named by its type).
/// Never returns.
int cl_optionerror(lua_State *L, int arg, const char *fname);
/// Raises "bad argument #arg to 'fname' (expected expected, got T)", T being the value's __name
/// or type name, or "no value". Never returns.
int cl_typeerror(lua_State *L, int arg, const char *fname, const char *expected);
/// Shape userdata layout: a cl_udhead (the class tag) followed by the payload (cl_aabb, cl_ray,
/// cl_obb, cl_sphere or cl_capsule). The tag of class k is &cl_class_tags[k], a static address, so
/// a type check is lua_touserdata + lua_rawlen + one pointer comparison: two API calls, no metatable, no upvalue
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
/// Class tags: the shape kinds first (the tag index of a shape is its cl_kind), then Ray and
/// Polygon. World, Mesh (its own tag, mesh.c) and Character follow them in the class table.
enum { CL_K_AABB = CL_AABB, CL_K_OBB = CL_OBB, CL_K_SPHERE = CL_SPHERE, CL_K_CAPSULE = CL_CAPSULE,
       CL_K_RAY = CL_KINDS, CL_K_POLYGON, CL_K_TAGS, CL_K_WORLD = CL_K_TAGS, CL_K_MESH, CL_K_CHARACTER, CL_K_CLASSES };
extern const char cl_class_tags[CL_K_TAGS];

/// The binding's class table (common.c), one row per class in CL_K_* order, so rows
/// 0..CL_KINDS-1 are the shape kinds: the metatable name (also its __name), collide.type's
/// name, the letter the FFI wrappers' argument lists use for it (ffi.c), and the function that
/// creates the class and adds its constructor to the module table on top (NULL: opened elsewhere).
typedef struct cl_class {
    const char *mt, *name;
    char letter;
    void (*open)(lua_State *L);
} cl_class;
extern const cl_class cl_classes[CL_K_CLASSES];

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

/// The cl_kind of the shape (of any kind) at idx with *payload set to its data; -1 for anything
/// else. The tag is read only from a userdata large enough for it; its index (the kind) then
/// gives the exact size the userdata must have.
static inline int cl_toshapeptr(lua_State *L, int idx, const void **payload) {
    const cl_udhead *h = (const cl_udhead *)lua_touserdata(L, idx);
    size_t len, k;
    if (h == NULL) return -1;
    len = (size_t)lua_rawlen(L, idx);
    if (len < sizeof(cl_udhead)) return -1;
    k = (size_t)((uintptr_t)h->tag - (uintptr_t)cl_class_tags);  /* huge unless a tag of ours */
    if (k >= CL_KINDS || len != sizeof(cl_udhead) + cl_kinds[k].size) return -1;
    *payload = h + 1;
    return (int)k;
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
/// The type error of a shape argument that accepts every kind. Never returns.
int cl_shapeerror(lua_State *L, int arg, const char *fname);
/// Copies the shape (any kind) at arg into out, else a type error.
void cl_checkshape(lua_State *L, int arg, const char *fname, cl_shape *out);
/// 1 and fills out if the value at idx is a shape (any kind); 0 otherwise (never raises).
int cl_toshape(lua_State *L, int idx, cl_shape *out);


/// Pushes a new userdata of the shape's type holding a copy of it.
void cl_pushshape(lua_State *L, const cl_shape *s);
/// Pushes a new shape userdata of kind k (tag and metatable set, payload uninitialised) and
/// returns its payload.
void *cl_newkind(lua_State *L, cl_kind k);
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

/// The payload of self (argument 1) if it is a shape of kind k, else a type error naming the class.
static inline const void *cl_checkkind(lua_State *L, cl_kind k, const char *fname) {
    void *p = cl_toclass(L, 1, (int)k, cl_kinds[k].size);
    if (p == NULL) cl_typeerror(L, 1, fname, cl_classes[k].mt);
    return p;
}
/* The methods every shape kind has, through the kind table; each kind's file stamps its own
 * copies with CL_KIND_METHODS and lists them with CL_KIND_REGS. Those that take a row adapter
 * are CLK_INLINE too: gcc -O1 does not inline through a function pointer argument, and an
 * always_inline adapter it cannot inline is a compile error. */
/// shape:contains(x,y,z) -> boolean (inclusive).
static CLK_INLINE int cl_m_contains(lua_State *L, cl_kind k, int (*contains)(const void *, cl_vec3)) {
    const void *s = cl_checkkind(L, k, "contains");
    cl_vec3 p = cl_checkvec(L, 2, "contains");
    lua_pushboolean(L, contains(s, p));
    return 1;
}
/// shape:overlaps(other) -> boolean (inclusive) for a shape of any kind.
static inline int cl_m_overlaps(lua_State *L, cl_kind k) {
    const void *s = cl_checkkind(L, k, "overlaps"), *o;
    int ko = cl_toshapeptr(L, 2, &o);
    if (ko < 0) return cl_shapeerror(L, 2, "overlaps");
    lua_pushboolean(L, cl_pair_overlaps[k][ko](s, o));
    return 1;
}
/// shape:penetration(other) -> depth, nx,ny,nz (moving shape by depth * n, unit n out of other,
/// leaves them just touching), or nil when the interiors do not overlap; other is any kind.
static inline int cl_m_penetration(lua_State *L, cl_kind k) {
    const void *s = cl_checkkind(L, k, "penetration"), *o;
    int ko = cl_toshapeptr(L, 2, &o);
    cl_hit h;
    if (ko < 0) return cl_shapeerror(L, 2, "penetration");
    if (!cl_pair_penetration[k][ko](s, o, &h.t, &h.n)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}
/// shape:raycast(ray[, maxt]) -> t, nx,ny,nz or nil.
static CLK_INLINE int cl_m_raycast(lua_State *L, cl_kind k, int (*raycast)(const void *, const cl_ray *, double, cl_hit *)) {
    const void *s = cl_checkkind(L, k, "raycast");
    const cl_ray *r = cl_checkray(L, 2, "raycast");
    double maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    cl_hit h;
    if (!raycast(s, r, maxt, &h)) { lua_pushnil(L); return 1; }
    return cl_pushhit(L, &h);
}
/// shape:closest(x,y,z) -> the closest point x,y,z on or in the shape.
static CLK_INLINE int cl_m_closest(lua_State *L, cl_kind k, cl_vec3 (*closest)(const void *, cl_vec3)) {
    const void *s = cl_checkkind(L, k, "closest");
    cl_vec3 c = closest(s, cl_checkvec(L, 2, "closest"));
    lua_pushnumber(L, c.x);
    lua_pushnumber(L, c.y);
    lua_pushnumber(L, c.z);
    return 3;
}
/// shape:plane(nx,ny,nz,d) -> 1 (wholly in front), -1 (wholly behind) or 0 (crossing or touching).
static CLK_INLINE int cl_m_plane(lua_State *L, cl_kind k, int (*plane)(const void *, cl_vec3, double)) {
    const void *s = cl_checkkind(L, k, "plane");
    cl_vec3 n = cl_checkvec(L, 2, "plane");
    double d = cl_checkfinite(L, 5, "plane");
    lua_pushinteger(L, plane(s, n, d));
    return 1;
}
/// shape:aabb() -> a new AABB, the tight box enclosing the shape.
static CLK_INLINE int cl_m_aabb(lua_State *L, cl_kind k, cl_aabb (*aabb)(const void *)) {
    cl_aabb a = aabb(cl_checkkind(L, k, "aabb"));
    *cl_newaabb(L) = a;
    return 1;
}
/// shape:translate(dx,dy,dz) -> shape, moved in place; raises (changing nothing, naming dx, dy
/// or dz) when a moved position is not finite.
int cl_m_translate(lua_State *L, cl_kind k);
/// a == b -> true if both are shapes of the same kind with equal fields; false for any other value.
int cl_m_eq(lua_State *L);
/// Defines prefix_contains, _overlaps, _penetration, _raycast, _closest, _plane, _aabb, _translate and _eq
/// (static lua_CFunctions) for kind k, each passing the kind's row function by its name in
/// kinds.h (clk_<prefix>_<op>), so that the call is direct and inlined.
#define CL_KIND_METHODS(prefix, k) \
    static int prefix##_contains(lua_State *L) { return cl_m_contains(L, k, clk_##prefix##_contains); } \
    static int prefix##_overlaps(lua_State *L) { return cl_m_overlaps(L, k); } \
    static int prefix##_penetration(lua_State *L) { return cl_m_penetration(L, k); } \
    static int prefix##_raycast(lua_State *L) { return cl_m_raycast(L, k, clk_##prefix##_raycast); } \
    static int prefix##_closest(lua_State *L) { return cl_m_closest(L, k, clk_##prefix##_closest); } \
    static int prefix##_plane(lua_State *L) { return cl_m_plane(L, k, clk_##prefix##_plane); } \
    static int prefix##_aabb(lua_State *L) { return cl_m_aabb(L, k, clk_##prefix##_aabb); } \
    static int prefix##_translate(lua_State *L) { return cl_m_translate(L, k); } \
    static int prefix##_eq(lua_State *L) { return cl_m_eq(L); }
/// The luaL_Reg entries of CL_KIND_METHODS's methods (__eq goes with the metamethods).
#define CL_KIND_REGS(prefix) \
    { "contains", prefix##_contains }, { "overlaps", prefix##_overlaps }, \
    { "penetration", prefix##_penetration }, { "raycast", prefix##_raycast }, \
    { "closest", prefix##_closest }, { "plane", prefix##_plane }, { "aabb", prefix##_aabb }, \
    { "translate", prefix##_translate }

/// Creates the metatable name (with __name, __index = methods table) from the two lists, leaves
/// nothing on the stack. methods and metamethods may be NULL. Every function gets the four shape
/// metatables as upvalues 1-4 (AABB, Ray, OBB, Sphere); the type checks no longer read them.
void cl_newclass(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *metamethods);

/* Each part adds its constructors and functions to the module table at the top of the stack. */
void cl_open_shapes(lua_State *L);   /* every class of cl_classes but World, the free functions */
void cl_open_world(lua_State *L);    /* World */
void cl_open_character(lua_State *L); /* Character (character.c) */
void cl_open_aabb(lua_State *L);     /* one per class (its file) */
void cl_open_obb(lua_State *L);
void cl_open_sphere(lua_State *L);
void cl_open_capsule(lua_State *L);
void cl_open_ray(lua_State *L);
void cl_open_polygon(lua_State *L);
void cl_open_mesh(lua_State *L);
void cl_open_planes(lua_State *L);   /* frustum (planes.c) */

struct cl_mesh;
/// The mesh (core struct, mesh.h) of the collide.Mesh at idx, or NULL for any other value (size and
/// tag checked as for shapes; never raises).
const struct cl_mesh *cl_tomesh(lua_State *L, int idx);
/// The mesh of a collide.Mesh userdata given by its payload address (as the LuaJIT FFI passes it),
/// or NULL when the tag there is not the Mesh class's (ffi.c; reads the tag only, see ffi.c's header).
const struct cl_mesh *cl_mesh_payload(const void *ud);
void cl_open_bump(lua_State *L);     /* module._bump, the C half of collide.bump (bump.c) */

/* Forgets the item at index item, of slot id, in a world's user value U (at index u) whose U[0],
 * at index map, maps items to ids and whose U[id + 1] is the item (the World's and collide.bump's
 * layout): both entries become nil. */
static inline void cl_forget_item(lua_State *L, int u, int map, int item, int id) {
    lua_pushvalue(L, item);
    lua_pushnil(L);
    lua_rawset(L, map);
    lua_pushnil(L);
    lua_rawseti(L, u, id + 1);
}

#endif
