/* collide Lua binding: the LuaJIT FFI fast path (built only against LuaJIT headers).
 *
 * A classic lua_CFunction call costs LuaJIT ~30 ns (it leaves compiled code, and every argument
 * goes through the C API). Here every hot query has a second, plain C entry point taking the shape
 * userdata as `const void *` (LuaJIT's FFI passes a full userdata as a pointer to its payload, where
 * our cl_udhead tag sits) and numbers as doubles, writing its results into a caller-given double
 * buffer. An embedded Lua chunk (below; run from luaopen_collide) casts these to FFI function
 * pointers and replaces the methods and free functions by small Lua wrappers, which LuaJIT compiles
 * into direct calls. No symbol is exported and nothing is looked up through ffi.C or ffi.load: the
 * chunk gets the function addresses as light userdata.
 *
 * Fast function contract: each returns -1 for anything irregular (a wrong class tag, a non-finite
 * number, a negative or NaN limit, a max below its min, a zero direction...) WITHOUT writing
 * anything; the wrapper then calls the classic C function with the original arguments, which
 * raises the exact classic error. Otherwise it returns >= 0 (0 = miss/false, 1 = hit/true or "done",
 * plane: side + 1, toi: the state) with the results in out[]. Each computes exactly what the
 * classic function computes, with the same core calls, so results are bit for bit the same.
 *
 * Safety. A wrapper passes a value to C only if type(v) == "userdata", its real metatable (read with
 * debug.getmetatable, which ignores a __metatable field: getmetatable would return a field that any
 * script can set on its own userdata's metatable, e.g. a newproxy's) is that class's metatable and
 * the light userdata metatable is not (so v is a full userdata; the FFI would pass a light userdata's
 * raw address). The C side then checks the class tag, as the classic check does; the classic check
 * also compares the payload size (lua_rawlen), which the FFI does not expose.
 * - debug.getmetatable is taken once, when collide is loaded, from the registry's loaded-library
 *   table (package.loaded.debug), so removing or replacing the global debug later changes nothing;
 *   when it is not there, or is not a C function, the FFI path stays off (module._ffi is false).
 * - Without debug.setmetatable only collide can give a full userdata a collide metatable
 *   (setmetatable works on tables only), so v is a real shape and the tag is in bounds.
 * - With debug.setmetatable a script can put a collide metatable on a foreign full userdata. The C
 *   side then reads the first 8 bytes of its payload (the tag; never writes, and the payload is read
 *   only when the tag matches, which only a shape's can). For payloads of 8 bytes or more that read is
 *   in bounds; for smaller ones (newproxy() has 0 bytes) it reads up to 8 bytes past the payload, inside
 *   the heap: an out-of-bounds read that cannot fault but that a sanitizer would report. Lua files pass
 *   their FILE * instead (NULL once closed: checked). Closing this fully needs the payload size (only
 *   in LuaJIT's private GCudata header) or a weak set of live shapes (a hash lookup per argument): not
 *   done; such a script can crash LuaJIT anyway (binary chunks via load, or the ffi library).
 * - The results buffer is shared: a debug hook (debug.sethook) that itself calls collide between a
 *   fast call and the wrapper's reads of the buffer could change the numbers returned; nothing else
 *   runs Lua code there (no allocation, no metamethod). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "mesh.h"

#ifdef CL_LUAJIT

/* ffi_world.c: installs the World methods' fast path (module at mod, its _classic set). */
CL_API void lw_open_ffi(lua_State *L, int mod);

/* Orthonormality tolerance of OBB axes, the same as obb.c's AXES_TOL (API.md). */
#define FFI_AXES_TOL 1e-6
/* Polygons with more coordinates than this take the classic path (the wrapper's buffer stays small). */
#define FFI_POLY_MAX 4096

/* The payload of the shape userdata ud if its tag is class k, else NULL. ud is NULL for a closed
 * Lua file given a shape metatable with debug.setmetatable (the FFI passes a file's FILE *). */
static const void *payload(const void *ud, int k) {
    const cl_udhead *h = (const cl_udhead *)ud;
    return h != NULL && h->tag == &cl_class_tags[k] ? (const void *)(h + 1) : NULL;
}
#define AABB_OF(ud)   ((const cl_aabb *)payload((ud), CL_K_AABB))
#define RAY_OF(ud)    ((const cl_ray *)payload((ud), CL_K_RAY))
#define OBB_OF(ud)    ((const cl_obb *)payload((ud), CL_K_OBB))
#define SPHERE_OF(ud) ((const cl_sphere *)payload((ud), CL_K_SPHERE))
#define CAPSULE_OF(ud) ((const cl_capsule *)payload((ud), CL_K_CAPSULE))
/* A polygon's count needs no size check here: only collide makes a userdata with this tag, and it
 * always sizes it for its count (see the header comment for what reading the tag itself assumes). */
#define POLYGON_OF(ud) ((const cl_polygon *)payload((ud), CL_K_POLYGON))

/* The cl_kind of the shape userdata ud (any kind; *p set to its payload), else -1. */
static int shapekind(const void *ud, const void **p) {
    const cl_udhead *h = (const cl_udhead *)ud;
    int k;
    if (h == NULL) return -1;
    /* compared for equality with each tag, never by arithmetic on the word: a foreign payload's first
     * word can hold padding nobody wrote (a FILE's, after its int flags), and no answer may depend
     * on those bits (valgrind on LuaJIT, spec/16) */
    for (k = 0; k < CL_KINDS; k++)
        if (h->tag == &cl_class_tags[k]) {
            *p = h + 1;
            return k;
        }
    return -1;
}

/* 1 if x, y and z are all finite (x - x is 0 for finite x, NaN otherwise), as cl_checkvec. */
static int fin3(double x, double y, double z) { return (x - x) + (y - y) + (z - z) == 0; }
static int fin1(double x) { return x - x == 0; }

/* Writes v to out[0..2]. */
static void put3(double *out, cl_vec3 v) { out[0] = v.x; out[1] = v.y; out[2] = v.z; }
/* Writes the hit to out[0..3] and returns 1. */
static int puthit(double *out, const cl_hit *h) { out[0] = h->t; put3(out + 1, h->n); return 1; }

/* ---- every shape kind: the methods of CL_KIND_METHODS (bind.h), through the kind table (those
 * taking a row adapter CLK_INLINE, as bind.h's: gcc -O1 would not inline the adapter) ---- */

/* shape:contains(x,y,z): 0 or 1. */
static CLK_INLINE int fast_contains(cl_kind k, int (*contains)(const void *, cl_vec3), const void *ud, double x,
                                double y, double z) {
    const void *s = payload(ud, (int)k);
    if (s == NULL || !fin3(x, y, z)) return -1;
    return contains(s, cl_v3(x, y, z)) != 0;
}
/* shape:overlaps(other): 0 or 1. */
static inline int fast_overlaps(cl_kind k, const void *ud, const void *oud) {
    const void *s = payload(ud, (int)k), *o;
    int ko;
    if (s == NULL || (ko = shapekind(oud, &o)) < 0) return -1;
    return cl_pair_overlaps[k][ko](s, o) != 0;
}
/* shape:raycast(ray, maxt): 0 (miss) or 1 with t,nx,ny,nz. */
static CLK_INLINE int fast_raycast(cl_kind k, int (*raycast)(const void *, const cl_ray *, double, cl_hit *),
                               const void *ud, const void *rud, double maxt, double *out) {
    const void *s = payload(ud, (int)k);
    const cl_ray *r = RAY_OF(rud);
    cl_hit h;
    if (s == NULL || r == NULL || !(maxt >= 0)) return -1;
    return raycast(s, r, maxt, &h) ? puthit(out, &h) : 0;
}
/* shape:closest(x,y,z): 1 with the point. */
static CLK_INLINE int fast_closest(cl_kind k, cl_vec3 (*closest)(const void *, cl_vec3), const void *ud, double x, double y,
                               double z, double *out) {
    const void *s = payload(ud, (int)k);
    if (s == NULL || !fin3(x, y, z)) return -1;
    put3(out, closest(s, cl_v3(x, y, z)));
    return 1;
}
/* shape:plane(nx,ny,nz,d): side + 1 (0, 1 or 2). */
static CLK_INLINE int fast_plane(cl_kind k, int (*plane)(const void *, cl_vec3, double), const void *ud, double nx,
                             double ny, double nz, double d) {
    const void *s = payload(ud, (int)k);
    if (s == NULL || !fin3(nx, ny, nz) || !fin1(d)) return -1;
    return plane(s, cl_v3(nx, ny, nz), d) + 1;
}
/* shape:translate(dx,dy,dz): 1 after moving, -1 (unchanged) on a non-finite delta or result. */
static inline int fast_translate(cl_kind k, const void *ud, double dx, double dy, double dz) {
    void *s = (void *)payload(ud, (int)k);
    cl_vec3 d = cl_v3(dx, dy, dz);
    if (s == NULL || !fin3(dx, dy, dz) || cl_kind_moved_finite(k, s, d)) return -1;
    cl_kind_translate(k, s, d);
    return 1;
}
/* Defines f_<prefix>_contains, _overlaps, _raycast, _closest, _plane and _translate for kind k
 * (FAST_KIND_ENTRIES lists them in the table of fast functions). Each passes the kind's row
 * function by its name in kinds.h (clk_<prefix>_<op>), so the call is direct and inlined. */
#define FAST_KIND(prefix, k) \
    static int f_##prefix##_contains(const void *ud, double x, double y, double z, double *out) { \
        (void)out; return fast_contains(k, clk_##prefix##_contains, ud, x, y, z); } \
    static int f_##prefix##_overlaps(const void *ud, const void *oud, double *out) { \
        (void)out; return fast_overlaps(k, ud, oud); } \
    static int f_##prefix##_raycast(const void *ud, const void *rud, double maxt, double *out) { \
        return fast_raycast(k, clk_##prefix##_raycast, ud, rud, maxt, out); } \
    static int f_##prefix##_closest(const void *ud, double x, double y, double z, double *out) { \
        return fast_closest(k, clk_##prefix##_closest, ud, x, y, z, out); } \
    static int f_##prefix##_plane(const void *ud, double nx, double ny, double nz, double d, double *out) { \
        (void)out; return fast_plane(k, clk_##prefix##_plane, ud, nx, ny, nz, d); } \
    static int f_##prefix##_translate(const void *ud, double dx, double dy, double dz, double *out) { \
        (void)out; return fast_translate(k, ud, dx, dy, dz); }
#define FAST_KIND_ENTRIES(prefix) \
    F(prefix##_contains), F(prefix##_overlaps), F(prefix##_raycast), F(prefix##_closest), \
    F(prefix##_plane), F(prefix##_translate)

FAST_KIND(aabb, CL_AABB)
FAST_KIND(obb, CL_OBB)
FAST_KIND(sphere, CL_SPHERE)
FAST_KIND(capsule, CL_CAPSULE)

/* ---- AABB ---- */

/* box:bounds(): 6 numbers. */
static int f_aabb_bounds(const void *ud, double *out) {
    const cl_aabb *b = AABB_OF(ud);
    if (b == NULL) return -1;
    put3(out, b->min);
    put3(out + 3, b->max);
    return 1;
}
/* box:center(): the midpoint, computed as aabb.c does. */
static int f_aabb_center(const void *ud, double *out) {
    const cl_aabb *b = AABB_OF(ud);
    if (b == NULL) return -1;
    put3(out, cl_v3(0.5 * b->min.x + 0.5 * b->max.x, 0.5 * b->min.y + 0.5 * b->max.y, 0.5 * b->min.z + 0.5 * b->max.z));
    return 1;
}
/* box:extents(): the half sizes, computed as aabb.c does. */
static int f_aabb_extents(const void *ud, double *out) {
    const cl_aabb *b = AABB_OF(ud);
    if (b == NULL) return -1;
    put3(out, cl_v3(0.5 * b->max.x - 0.5 * b->min.x, 0.5 * b->max.y - 0.5 * b->min.y, 0.5 * b->max.z - 0.5 * b->min.z));
    return 1;
}
/* box:set(...): 1 after setting, -1 (box unchanged) on a non-finite number or a max below its min. */
static int f_aabb_set(const void *ud, double x0, double y0, double z0, double x1, double y1, double z1, double *out) {
    cl_aabb *b = (cl_aabb *)AABB_OF(ud);
    (void)out;
    if (b == NULL || !fin3(x0, y0, z0) || !fin3(x1, y1, z1) || x1 < x0 || y1 < y0 || z1 < z0) return -1;
    b->min = cl_v3(x0, y0, z0);
    b->max = cl_v3(x1, y1, z1);
    return 1;
}
/* box:clip(ray): 0 or 1 with tenter, texit. */
static int f_aabb_clip(const void *ud, const void *rud, double *out) {
    const cl_aabb *b = AABB_OF(ud);
    const cl_ray *r = RAY_OF(rud);
    double t0, t1;
    if (b == NULL || r == NULL) return -1;
    if (!cl_aabb_clip(b, r, &t0, &t1)) return 0;
    out[0] = t0;
    out[1] = t1;
    return 1;
}
/* box:segment(p1, p2, maxfraction): 0 or 1 with f,nx,ny,nz. */
static int f_aabb_segment(const void *ud, double x1, double y1, double z1, double x2, double y2, double z2,
                          double maxf, double *out) {
    const cl_aabb *b = AABB_OF(ud);
    cl_hit h;
    if (b == NULL || !fin3(x1, y1, z1) || !fin3(x2, y2, z2) || !(maxf >= 0)) return -1;
    return cl_aabb_segment(b, cl_v3(x1, y1, z1), cl_v3(x2, y2, z2), maxf, &h) ? puthit(out, &h) : 0;
}

/* ---- OBB ---- */

/* obb:center(): 1 with the centre. */
static int f_obb_center(const void *ud, double *out) {
    const cl_obb *b = OBB_OF(ud);
    if (b == NULL) return -1;
    put3(out, b->c);
    return 1;
}
/* obb:extents(): 1 with the half sizes. */
static int f_obb_extents(const void *ud, double *out) {
    const cl_obb *b = OBB_OF(ud);
    if (b == NULL) return -1;
    put3(out, b->h);
    return 1;
}
/* obb:axes(): 9 numbers. */
static int f_obb_axes(const void *ud, double *out) {
    const cl_obb *b = OBB_OF(ud);
    if (b == NULL) return -1;
    put3(out, b->u[0]);
    put3(out + 3, b->u[1]);
    put3(out + 6, b->u[2]);
    return 1;
}
/* obb:set(c, h[, axes]): axes = 0 means the world axes (u.. ignored), 1 the nine given numbers;
 * 1 after setting, -1 (unchanged) on anything obb.c's checkobb rejects. */
static int f_obb_set(const void *ud, double cx, double cy, double cz, double hx, double hy, double hz,
                     double ux, double uy, double uz, double vx, double vy, double vz,
                     double wx, double wy, double wz, double axes, double *out) {
    cl_obb *b = (cl_obb *)OBB_OF(ud);
    cl_obb nb;
    (void)out;
    if (b == NULL || !fin3(cx, cy, cz) || !fin3(hx, hy, hz)) return -1;
    if (axes != 0) {
        if (!fin3(ux, uy, uz) || !fin3(vx, vy, vz) || !fin3(wx, wy, wz)) return -1;
        nb.u[0] = cl_v3(ux, uy, uz);
        nb.u[1] = cl_v3(vx, vy, vz);
        nb.u[2] = cl_v3(wx, wy, wz);
    } else {
        nb.u[0] = cl_v3(1, 0, 0);
        nb.u[1] = cl_v3(0, 1, 0);
        nb.u[2] = cl_v3(0, 0, 1);
    }
    if (hx < 0 || hy < 0 || hz < 0) return -1;
    if (axes != 0 && !cl_axes_orthonormal(nb.u, FFI_AXES_TOL)) return -1;
    nb.c = cl_v3(cx, cy, cz);
    nb.h = cl_v3(hx, hy, hz);
    *b = nb;
    return 1;
}
/* obb:rotate(angle, ax,ay,az): 1 after rotating, -1 (unchanged) on a bad number or a zero axis. */
static int f_obb_rotate(const void *ud, double angle, double ax, double ay, double az, double *out) {
    cl_obb *b = (cl_obb *)OBB_OF(ud);
    cl_obb nb;
    (void)out;
    if (b == NULL || !fin1(angle) || !fin3(ax, ay, az)) return -1;
    nb = *b;
    if (!cl_obb_rotate(&nb, angle, cl_v3(ax, ay, az))) return -1;
    *b = nb;
    return 1;
}

/* ---- Sphere ---- */

/* sphere:center(): 1 with the centre. */
static int f_sphere_center(const void *ud, double *out) {
    const cl_sphere *s = SPHERE_OF(ud);
    if (s == NULL) return -1;
    put3(out, s->c);
    return 1;
}
/* sphere:radius(): 1 with r. */
static int f_sphere_radius(const void *ud, double *out) {
    const cl_sphere *s = SPHERE_OF(ud);
    if (s == NULL) return -1;
    out[0] = s->r;
    return 1;
}
/* sphere:set(c, r): 1 after setting, -1 (unchanged) on a non-finite number or a negative radius. */
static int f_sphere_set(const void *ud, double cx, double cy, double cz, double r, double *out) {
    cl_sphere *s = (cl_sphere *)SPHERE_OF(ud);
    (void)out;
    if (s == NULL || !fin3(cx, cy, cz) || !fin1(r) || r < 0) return -1;
    s->c = cl_v3(cx, cy, cz);
    s->r = r;
    return 1;
}

/* ---- Capsule ---- */

/* capsule:segment(): 6 numbers. */
static int f_capsule_segment(const void *ud, double *out) {
    const cl_capsule *c = CAPSULE_OF(ud);
    if (c == NULL) return -1;
    put3(out, c->a);
    put3(out + 3, c->b);
    return 1;
}
/* capsule:radius(): 1 with r. */
static int f_capsule_radius(const void *ud, double *out) {
    const cl_capsule *c = CAPSULE_OF(ud);
    if (c == NULL) return -1;
    out[0] = c->r;
    return 1;
}
/* capsule:set(a, b, r): 1 after setting, -1 (unchanged) on a non-finite number or a negative radius. */
static int f_capsule_set(const void *ud, double ax, double ay, double az, double bx, double by, double bz, double r,
                         double *out) {
    cl_capsule *c = (cl_capsule *)CAPSULE_OF(ud);
    (void)out;
    if (c == NULL || !fin3(ax, ay, az) || !fin3(bx, by, bz) || !fin1(r) || r < 0) return -1;
    c->a = cl_v3(ax, ay, az);
    c->b = cl_v3(bx, by, bz);
    c->r = r;
    return 1;
}

/* ---- Ray ---- */

/* ray:origin(): 1 with the origin. */
static int f_ray_origin(const void *ud, double *out) {
    const cl_ray *r = RAY_OF(ud);
    if (r == NULL) return -1;
    put3(out, r->o);
    return 1;
}
/* ray:direction(): 1 with the unit direction. */
static int f_ray_direction(const void *ud, double *out) {
    const cl_ray *r = RAY_OF(ud);
    if (r == NULL) return -1;
    put3(out, r->d);
    return 1;
}
/* ray:at(t): 1 with the point at t, -1 if t is not finite. */
static int f_ray_at(const void *ud, double t, double *out) {
    const cl_ray *r = RAY_OF(ud);
    if (r == NULL || !fin1(t)) return -1;
    put3(out, cl_ray_at(r, t));
    return 1;
}
/* ray:set(o, d): 1 after setting, -1 (unchanged) on a non-finite number or a zero direction. */
static int f_ray_set(const void *ud, double ox, double oy, double oz, double dx, double dy, double dz, double *out) {
    cl_ray *r = (cl_ray *)RAY_OF(ud);
    cl_ray nr;
    (void)out;
    if (r == NULL || !fin3(ox, oy, oz) || !fin3(dx, dy, dz)) return -1;
    if (!cl_ray_make(&nr, cl_v3(ox, oy, oz), cl_v3(dx, dy, dz))) return -1;
    *r = nr;
    return 1;
}
/* ray:cast(shape, maxt): 0 or 1 with the hit. */
static int f_ray_cast(const void *ud, const void *sud, double maxt, double *out) {
    const cl_ray *r = RAY_OF(ud);
    const void *s;
    cl_hit h;
    int k;
    if (r == NULL || !(maxt >= 0) || (k = shapekind(sud, &s)) < 0) return -1;
    return cl_kinds[k].raycast(s, r, maxt, &h) ? puthit(out, &h) : 0;
}
/* ray:plane(nx,ny,nz,d): 0 or 1 with t. */
static int f_ray_plane(const void *ud, double nx, double ny, double nz, double d, double *out) {
    const cl_ray *r = RAY_OF(ud);
    double t;
    if (r == NULL || !fin3(nx, ny, nz) || !fin1(d)) return -1;
    if (!cl_ray_plane(r, cl_v3(nx, ny, nz), d, &t)) return 0;
    out[0] = t;
    return 1;
}

/* mesh:raycast(ray, maxt): 0 (miss) or 1 with t,nx,ny,nz and the 1-based triangle index in out[4]. */
static int f_mesh_raycast(const void *ud, const void *rud, double maxt, double *out) {
    const cl_mesh *m = cl_mesh_payload(ud);
    const cl_ray *r = RAY_OF(rud);
    cl_hit h;
    size_t tri;
    if (m == NULL || r == NULL || !(maxt >= 0)) return -1;
    if (!cl_mesh_raycast(m, r, maxt, &h, &tri)) return 0;
    out[4] = (double)tri + 1;
    return puthit(out, &h);
}

/* ---- free functions ---- */

/* toi(a, da, b, db): the cl_toi_state (0, 1, 2) with t in out[0]. */
static int f_toi(const void *aud, double dax, double day, double daz, const void *bud,
                 double dbx, double dby, double dbz, double *out) {
    const cl_aabb *a = AABB_OF(aud), *b = AABB_OF(bud);
    double t = 1;
    int st;
    if (a == NULL || b == NULL || !fin3(dax, day, daz) || !fin3(dbx, dby, dbz)) return -1;
    st = (int)cl_toi_xyz(a, b, dax, day, daz, dbx, dby, dbz, &t);  /* cl_toi, numbers in registers */
    out[0] = t;
    return st;
}
/* closestonsegment(p, a, b): 1 with x,y,z,s. */
static int f_closestonsegment(double px, double py, double pz, double ax, double ay, double az,
                              double bx, double by, double bz, double *out) {
    double s;
    if (!fin3(px, py, pz) || !fin3(ax, ay, az) || !fin3(bx, by, bz)) return -1;
    put3(out, cl_closest_on_segment(cl_v3(px, py, pz), cl_v3(ax, ay, az), cl_v3(bx, by, bz), &s));
    out[3] = s;
    return 1;
}
/* reflect(v, n, e): 1 with x,y,z. */
static int f_reflect(double vx, double vy, double vz, double nx, double ny, double nz, double e, double *out) {
    if (!fin3(vx, vy, vz) || !fin3(nx, ny, nz) || !fin1(e)) return -1;
    put3(out, cl_reflect(cl_v3(vx, vy, vz), cl_v3(nx, ny, nz), e));
    return 1;
}
/* pointinpolygon: xy[0..2n-1] copied by the wrapper (2n <= FFI_POLY_MAX, n >= 3): 0 or 1, -1 if
 * a coordinate or the point is not finite. */
static int f_pointinpolygon(const double *xy, int n, double x, double y) {
    int r;
    if (!fin1(x) || !fin1(y) || n < 3 || n > FFI_POLY_MAX / 2) return -1;
    r = cl_point_in_polygon_finite(xy, (size_t)n, x, y);  /* the coordinates' check in the same pass */
    return r < 0 ? -1 : r != 0;
}

/* polygon:contains(x, y) and pointinpolygon(polygon, x, y): 0 or 1. */
static int f_polygon_contains(const void *ud, double x, double y, double *out) {
    const cl_polygon *p = POLYGON_OF(ud);
    (void)out;
    if (p == NULL || !fin1(x) || !fin1(y)) return -1;
    return cl_point_in_polygon_e(p->xy, p->n, cl_polygon_edgetable(p), x, y) != 0;
}

/* Every fast function by name; the chunk derives each C type from its own argument list.
 * Function pointers travel as light userdata pointing at the .fn fields (ISO C has no conversion
 * between function and object pointers; void (*)(void) is the generic function pointer type). */
typedef void (*anyfn)(void);
static const struct { const char *name; anyfn fn; } fast[] = {
#define F(name) { #name, (anyfn)f_##name }
    FAST_KIND_ENTRIES(aabb), FAST_KIND_ENTRIES(obb), FAST_KIND_ENTRIES(sphere), FAST_KIND_ENTRIES(capsule),
    F(aabb_bounds), F(aabb_center), F(aabb_extents), F(aabb_set), F(aabb_clip), F(aabb_segment),
    F(obb_center), F(obb_extents), F(obb_axes), F(obb_set), F(obb_rotate),
    F(sphere_center), F(sphere_radius), F(sphere_set), F(capsule_segment), F(capsule_radius), F(capsule_set),
    F(ray_origin), F(ray_direction), F(ray_at), F(ray_set), F(ray_cast), F(ray_plane),
    F(toi), F(closestonsegment), F(reflect), F(pointinpolygon), F(polygon_contains), F(mesh_raycast),
#undef F
};

/* The Lua chunk (run by cl_open_ffi), one string literal per line. Adjacent literals form one
 * piece; pieces are separated by commas and each stays under 4095 characters, the longest literal
 * ISO C99 guarantees (-pedantic warns beyond it): start a new piece when adding lines. */
static const char *const chunk[] = {
    "-- collide.ffi (embedded in csrc/bind/ffi.c): replaces the hot shape methods and free functions by\n"
    "-- Lua wrappers calling the C fast functions through the LuaJIT FFI. Arguments: the module table,\n"
    "-- the tagged classes' metatables by short name, the fast functions by name (light userdata pointing\n"
    "-- at a C function pointer), debug.getmetatable, and the tagged classes as { short name, letter, is a\n"
    "-- shape kind } in the order of the class table (bind.h). Returns true when the wrappers are\n"
    "-- installed, false when the FFI or the JIT is unavailable. Replaces nothing unless every wrapper\n"
    "-- was built. getmetatable below is debug.getmetatable: the real metatable, whatever its __metatable says.\n"
    "local M, MT, FAST, getmetatable, CLASSES = ...\n"
    "local type, pcall, require, loadstring = type, pcall, require, loadstring\n"
    "local ok, ffi = pcall(require, \"ffi\")\n"
    "if not ok or type(ffi) ~= \"table\" then return false end\n"
    "-- Interpreted FFI calls cost more than classic C calls: without the JIT keep the classic path.\n"
    "if not (type(jit) == \"table\" and type(jit.status) == \"function\" and jit.status()) then return false end\n"
    "\n"
    "local MA, MR, MO, MS, MP = MT.AABB, MT.Ray, MT.OBB, MT.Sphere, MT.Polygon\n"
    "-- Light userdata share one metatable (debug.setmetatable on one sets it for all), which the JIT\n"
    "-- folds to a constant: checking that it is not the class metatable keeps a light userdata (an\n"
    "-- arbitrary address) from ever reaching the C side, at no cost in compiled code.\n"
    "local LUD = FAST.aabb_contains\n"
    "local OUT = ffi.new(\"double[9]\")\n"
    "local HUGE = math.huge\n"
    "local anyfnp = ffi.typeof(\"void (**)(void)\")\n"
    "local classic, install = {}, {}\n"
    "-- Every tagged class's metatable as M<letter> in the wrappers' sources (MLIST, MTS), and isshape's\n"
    "-- comparisons with the shape kinds' metatables.\n"
    "local MLIST, MTS, ISKIND = {}, {}, {}\n"
    "for i, c in ipairs(CLASSES) do\n"
    "  classic[c[1]] = {}\n"
    "  MLIST[i], MTS[i] = \"M\" .. c[2], MT[c[1]]\n"
    "  if c[3] then ISKIND[#ISKIND + 1] = \"m == M\" .. c[2] end\n"
    "end\n"
    "MLIST = table.concat(MLIST, \", \")\n"
    "\n",
    "-- The fast function name as an FFI function pointer taking the given C parameter list.\n"
    "local function cfn(name, params)\n"
    "  return ffi.cast(\"int (*)(\" .. params .. \")\", ffi.cast(anyfnp, FAST[name])[0])\n"
    "end\n"
    "\n"
    "-- isshape(m): m is the metatable of a shape kind (and not the light userdata's).\n"
    "local isshape = assert(loadstring(\"local getmetatable, LUD, \" .. MLIST .. \" = ...\\n\" ..\n"
    "  \"return function(m) return (\" .. table.concat(ISKIND, \" or \") .. \") and getmetatable(LUD) ~= m end\",\n"
    "  \"=collide.ffi.isshape\"))(getmetatable, LUD, unpack(MTS))\n"
    "\n"
    "-- Argument kinds: a class's letter (A R O S P ...) = a userdata of that class; s = a shape of any kind;\n"
    "-- n = number; l = optional limit (nil -> math.huge); o = optional number (nil -> 1).\n"
    "local CTYPE = { s = \"const void *\", n = \"double\", l = \"double\", o = \"double\" }\n"
    "local MTNAME = {}\n"
    "for _, c in ipairs(CLASSES) do CTYPE[c[2]], MTNAME[c[2]] = \"const void *\", \"M\" .. c[2] end\n"
    "-- Result kinds: the statement run with the status st >= 0 (see ffi.c); a digit = that many numbers.\n"
    "local RET = {\n"
    "  b = \"if st >= 0 then return st > 0 end\",\n"
    "  h = \"if st > 0 then return OUT[0], OUT[1], OUT[2], OUT[3] elseif st == 0 then return nil end\",\n"
    "  c = \"if st > 0 then return OUT[0], OUT[1] elseif st == 0 then return nil end\",\n"
    "  t = \"if st > 0 then return OUT[0] elseif st == 0 then return nil end\",\n"
    "  p = \"if st >= 0 then return st - 1 end\",\n"
    "  self = \"if st >= 0 then return a1 end\",\n"
    "  toi = \"if st == 0 then return 'overlapped', OUT[0] elseif st == 1 then return 'touching', OUT[0] \" ..\n"
    "        \"elseif st == 2 then return 'separated', OUT[0] end\",\n"
    "}\n"
    "\n"
    "-- Builds the wrapper of classic function C: checks the kinds, calls the fast function, and\n"
    "-- returns the classic function's result for anything else (it raises the classic error).\n"
    "local function wrap(name, kinds, ret, C)\n"
    "  local params, conds, args, locals = {}, {}, {}, {}\n"
    "  for i = 1, #kinds do\n"
    "    local k, a = kinds:sub(i, i), \"a\" .. i\n"
    "    locals[i], params[i], args[i] = a, CTYPE[k], a\n"
    "    if k == \"n\" then\n"
    "      conds[i] = \"type(\" .. a .. \") == 'number'\"\n"
    "    elseif k == \"l\" or k == \"o\" then\n"
    "      conds[i] = \"(\" .. a .. \" == nil or type(\" .. a .. \") == 'number')\"\n"
    "      args[i] = \"(\" .. a .. \" or \" .. (k == \"l\" and \"HUGE\" or \"1\") .. \")\"\n"
    "    elseif k == \"s\" then\n",
    "      conds[i] = \"type(\" .. a .. \") == 'userdata' and isshape(getmetatable(\" .. a .. \"))\"\n"
    "    else\n"
    "      local m = MTNAME[k]\n"
    "      conds[i] = \"type(\" .. a .. \") == 'userdata' and getmetatable(\" .. a .. \") == \" .. m ..\n"
    "                 \" and getmetatable(LUD) ~= \" .. m\n"
    "    end\n"
    "  end\n"
    "  params[#params + 1] = \"double *\"\n"
    "  args[#args + 1] = \"OUT\"\n"
    "  local rs = RET[ret] or (\"if st >= 0 then return OUT[0]\" .. (\", OUT[%d]\"):rep(ret - 1):format(1, 2, 3, 4, 5, 6, 7, 8) .. \" end\")\n"
    "  local src = \"local getmetatable, type, isshape, F, C, OUT, LUD, HUGE, \" .. MLIST .. \" = ...\\n\" ..\n"
    "    \"return function(...)\\n\" ..\n"
    "    \"  local \" .. table.concat(locals, \", \") .. \" = ...\\n\" ..\n"
    "    \"  if \" .. table.concat(conds, \" and \") .. \" then\\n\" ..\n"
    "    \"    local st = F(\" .. table.concat(args, \", \") .. \")\\n\" ..\n"
    "    \"    \" .. rs .. \"\\n\" ..\n"
    "    \"  end\\n\" ..\n"
    "    \"  return C(...)\\n\" ..\n"
    "    \"end\\n\"\n"
    "  local chunk = assert(loadstring(src, \"=collide.ffi.\" .. name))\n"
    "  return chunk(getmetatable, type, isshape, cfn(name, table.concat(params, \", \")), C, OUT, LUD, HUGE, unpack(MTS))\n"
    "end\n"
    "\n"
    "-- class, method, fast function, argument kinds (self first), result kind\n"
    "local METHODS = {\n"
    "  { \"AABB\", \"bounds\", \"aabb_bounds\", \"A\", 6 },\n"
    "  { \"AABB\", \"center\", \"aabb_center\", \"A\", 3 },\n"
    "  { \"AABB\", \"extents\", \"aabb_extents\", \"A\", 3 },\n"
    "  { \"AABB\", \"set\", \"aabb_set\", \"Annnnnn\", \"self\" },\n"
    "  { \"AABB\", \"clip\", \"aabb_clip\", \"AR\", \"c\" },\n"
    "  { \"AABB\", \"segment\", \"aabb_segment\", \"Annnnnno\", \"h\" },\n"
    "  { \"OBB\", \"center\", \"obb_center\", \"O\", 3 },\n"
    "  { \"OBB\", \"extents\", \"obb_extents\", \"O\", 3 },\n"
    "  { \"OBB\", \"axes\", \"obb_axes\", \"O\", 9 },\n"
    "  { \"OBB\", \"rotate\", \"obb_rotate\", \"Onnnn\", \"self\" },\n"
    "  { \"Sphere\", \"center\", \"sphere_center\", \"S\", 3 },\n"
    "  { \"Sphere\", \"radius\", \"sphere_radius\", \"S\", 1 },\n"
    "  { \"Sphere\", \"set\", \"sphere_set\", \"Snnnn\", \"self\" },\n"
    "  { \"Capsule\", \"segment\", \"capsule_segment\", \"C\", 6 },\n"
    "  { \"Capsule\", \"radius\", \"capsule_radius\", \"C\", 1 },\n"
    "  { \"Capsule\", \"set\", \"capsule_set\", \"Cnnnnnnn\", \"self\" },\n"
    "  { \"Ray\", \"origin\", \"ray_origin\", \"R\", 3 },\n"
    "  { \"Ray\", \"direction\", \"ray_direction\", \"R\", 3 },\n"
    "  { \"Ray\", \"at\", \"ray_at\", \"Rn\", 3 },\n"
    "  { \"Ray\", \"set\", \"ray_set\", \"Rnnnnnn\", \"self\" },\n"
    "  { \"Ray\", \"cast\", \"ray_cast\", \"Rsl\", \"h\" },\n"
    "  { \"Ray\", \"plane\", \"ray_plane\", \"Rnnnn\", \"t\" },\n"
    "  { \"Polygon\", \"contains\", \"polygon_contains\", \"Pnn\", \"b\" },\n"
    "}\n"
    "-- every shape kind's methods of FAST_KIND (ffi.c): name, arguments after self, result kind\n"
    "local KIND_METHODS = { { \"contains\", \"nnn\", \"b\" }, { \"overlaps\", \"s\", \"b\" }, { \"raycast\", \"Rl\", \"h\" },\n"
    "  { \"closest\", \"nnn\", 3 }, { \"plane\", \"nnnn\", \"p\" }, { \"translate\", \"nnn\", \"self\" } }\n"
    "for _, c in ipairs(CLASSES) do\n"
    "  if c[3] then\n"
    "    for _, k in ipairs(KIND_METHODS) do\n"
    "      METHODS[#METHODS + 1] = { c[1], k[1], c[1]:lower() .. \"_\" .. k[1], c[2] .. k[2], k[3] }\n"
    "    end\n"
    "  end\n"
    "end\n"
    "for _, m in ipairs(METHODS) do\n"
    "  local methods = MT[m[1]].__index\n"
    "  local C = methods[m[2]]\n"
    "  if type(C) ~= \"function\" then return false end\n"
    "  classic[m[1]][m[2]] = C\n"
    "  install[#install + 1] = { methods, m[2], wrap(m[3], m[4], m[5], C) }\n"
    "end\n"
    "local FUNCS = {\n"
    "  { \"toi\", \"toi\", \"AnnnAnnn\", \"toi\" },\n"
    "  { \"closestonsegment\", \"closestonsegment\", \"nnnnnnnnn\", 4 },\n"
    "  { \"reflect\", \"reflect\", \"nnnnnno\", 3 },\n"
    "}\n",
    "for _, f in ipairs(FUNCS) do\n"
    "  local C = M[f[1]]\n"
    "  if type(C) ~= \"function\" then return false end\n"
    "  classic[f[1]] = C\n"
    "  install[#install + 1] = { M, f[1], wrap(f[2], f[3], f[4], C) }\n"
    "end\n"
    "\n"
    "-- obb:set: the world-axes form (no axis argument, or all nil) or all nine axis numbers.\n"
    "do\n"
    "  local C = MO.__index.set\n"
    "  local F = cfn(\"obb_set\", \"const void *\" .. (\", double\"):rep(16) .. \", double *\")\n"
    "  classic.OBB.set = C\n"
    "  install[#install + 1] = { MO.__index, \"set\", function(...)\n"
    "    local b, cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz = ...\n"
    "    if type(b) == \"userdata\" and getmetatable(b) == MO and getmetatable(LUD) ~= MO and type(cx) == \"number\"\n"
    "       and type(cy) == \"number\" and type(cz) == \"number\" and type(hx) == \"number\" and type(hy) == \"number\"\n"
    "       and type(hz) == \"number\" then\n"
    "      local st = -1\n"
    "      if ux == nil and uy == nil and uz == nil and vx == nil and vy == nil and vz == nil\n"
    "         and wx == nil and wy == nil and wz == nil then\n"
    "        st = F(b, cx, cy, cz, hx, hy, hz, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, OUT)\n"
    "      elseif type(ux) == \"number\" and type(uy) == \"number\" and type(uz) == \"number\"\n"
    "         and type(vx) == \"number\" and type(vy) == \"number\" and type(vz) == \"number\"\n"
    "         and type(wx) == \"number\" and type(wy) == \"number\" and type(wz) == \"number\" then\n"
    "        st = F(b, cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz, 1, OUT)\n"
    "      end\n"
    "      if st >= 0 then return b end\n"
    "    end\n"
    "    return C(...)\n"
    "  end }\n"
    "end\n"
    "\n"
    "-- pointinpolygon: the coordinates are copied into a reusable buffer, then C tests the point. Any\n"
    "-- table with a metatable, a short, odd or large length or a non-number entry takes the classic path.\n"
    "-- A collide.Polygon goes straight to polygon_contains (same test, no copy).\n"
    "-- The copy of up to UNROLL coordinates is straight-line code: a loop inside the wrapper would become\n"
    "-- its own trace, and leaving it returns through the interpreter (about 100 ns per call).\n"
    "do\n"
    "  local C = M.pointinpolygon\n"
    "  local F = cfn(\"pointinpolygon\", \"const double *, int, double, double\")\n"
    "  local FP = cfn(\"polygon_contains\", \"const void *, double, double, double *\")\n"
    "  local vla = ffi.typeof(\"double[?]\")\n"
    "  local MAX, UNROLL = 4096, 32  -- MAX = FFI_POLY_MAX in ffi.c\n"
    "  local buf, cap = vla(64), 64\n"
    "  -- copy(poly, b, n): true after b[0..n-1] = poly[1..n] if all are numbers (6 <= n even), else false.\n"
    "  local src = { \"local type = ...\\nreturn function(poly, b, n)\\n\",\n"
    "    \"  if n > \" .. UNROLL .. \" then\\n\",\n"
    "    \"    for i = 1, n do local v = poly[i]; if type(v) ~= 'number' then return false end; b[i - 1] = v end\\n\",\n"
    "    \"    return true\\n  end\\n  local v\\n\" }\n"
    "  for i = 1, UNROLL do\n"
    "    if i > 6 and i % 2 == 1 then src[#src + 1] = \"  if n == \" .. (i - 1) .. \" then return true end\\n\" end\n"
    "    src[#src + 1] = (\"  v = poly[%d]; if type(v) ~= 'number' then return false end; b[%d] = v\\n\"):format(i, i - 1)\n"
    "  end\n"
    "  src[#src + 1] = \"  return true\\nend\\n\"\n"
    "  local copy = assert(loadstring(table.concat(src), \"=collide.ffi.pointinpolygon\"))(type)\n"
    "  classic.pointinpolygon = C\n"
    "  install[#install + 1] = { M, \"pointinpolygon\", function(...)\n"
    "    local poly, x, y = ...\n"
    "    if type(poly) == \"table\" and getmetatable(poly) == nil and type(x) == \"number\" and type(y) == \"number\" then\n"
    "      local n = #poly\n"
    "      if n >= 6 and n <= MAX and n % 2 == 0 then\n"
    "        if n > cap then\n"
    "          local c = cap\n"
    "          while c < n do c = 2 * c end\n"
    "          local nb = vla(c)  -- may run finalizers: buf and cap change together after it\n"
    "          buf, cap = nb, c\n"
    "        end\n"
    "        local b = buf\n"
    "        if copy(poly, b, n) then\n"
    "          local st = F(b, n / 2, x, y)\n",
    "          if st >= 0 then return st > 0 end\n"
    "        end\n"
    "      end\n"
    "    elseif type(poly) == \"userdata\" and getmetatable(poly) == MP and getmetatable(LUD) ~= MP\n"
    "       and type(x) == \"number\" and type(y) == \"number\" then\n"
    "      local st = FP(poly, x, y, OUT)\n"
    "      if st >= 0 then return st > 0 end\n"
    "    end\n"
    "    return C(...)\n"
    "  end }\n"
    "end\n"
    "\n"
    "-- mesh:raycast(ray[, maxt]): t, nx, ny, nz and the triangle index, or nil (MT.Mesh: the Mesh class).\n"
    "do\n"
    "  local MM = MT.Mesh\n"
    "  local C = type(MM) == \"table\" and type(MM.__index) == \"table\" and MM.__index.raycast\n"
    "  if type(C) ~= \"function\" then return false end\n"
    "  local F = cfn(\"mesh_raycast\", \"const void *, const void *, double, double *\")\n"
    "  classic.Mesh = { raycast = C }\n"
    "  install[#install + 1] = { MM.__index, \"raycast\", function(...)\n"
    "    local m, r, maxt = ...\n"
    "    if type(m) == \"userdata\" and getmetatable(m) == MM and getmetatable(LUD) ~= MM and type(r) == \"userdata\"\n"
    "       and getmetatable(r) == MR and getmetatable(LUD) ~= MR and (maxt == nil or type(maxt) == \"number\") then\n"
    "      local st = F(m, r, maxt or HUGE, OUT)\n"
    "      if st > 0 then return OUT[0], OUT[1], OUT[2], OUT[3], OUT[4] elseif st == 0 then return nil end\n"
    "    end\n"
    "    return C(...)\n"
    "  end }\n"
    "end\n"
    "\n"
    "for _, r in ipairs(install) do r[1][r[2]] = r[3] end\n"
    "M._classic = classic\n"
    "return true\n",
}; /* end of chunk */

/* lua_load reader over the chunk's pieces (ISO C99 only guarantees 4095-character literals). */
static const char *readchunk(lua_State *L, void *data, size_t *size) {
    size_t *i = (size_t *)data;
    (void)L;
    if (*i >= sizeof(chunk) / sizeof(chunk[0])) return NULL;
    *size = strlen(chunk[*i]);
    return chunk[(*i)++];
}

/* Pushes debug.getmetatable as loaded (package.loaded.debug, from the registry) and returns 1, or
 * returns 0 (nothing pushed) when the debug library is not loaded or that is not a C function. */
static int pushrealgetmt(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "debug");
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "getmetatable");
            if (lua_iscfunction(L, -1)) {
                lua_replace(L, -3);
                lua_pop(L, 1);
                return 1;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return 0;
}

/* Runs the chunk with (module, metatables, fast functions, debug.getmetatable, classes); sets module._ffi.
 * Any error in the chunk leaves the classic functions in place (it replaces them only at its very
 * end); so does a missing debug library (see the header: the real metatable is needed). */
void cl_open_ffi(lua_State *L) {
    const char *env = getenv("COLLIDE_FFI");
    size_t piece = 0, i;
    int on = 0, mod = lua_gettop(L), k;
    luaL_checkstack(L, 8, "collide: stack overflow");
    if (env == NULL || strcmp(env, "0") != 0) {
        if (lua_load(L, readchunk, &piece, "=collide.ffi") == 0) {
            lua_pushvalue(L, mod);
            lua_createtable(L, 0, CL_K_TAGS);
            for (k = 0; k < CL_K_TAGS; k++) {
                luaL_getmetatable(L, cl_classes[k].mt);
                lua_setfield(L, -2, cl_classes[k].name);
            }
            luaL_getmetatable(L, CL_MT_MESH);  /* untagged, but mesh:raycast has a fast path */
            lua_setfield(L, -2, "Mesh");
            lua_createtable(L, 0, (int)(sizeof(fast) / sizeof(fast[0])));
            for (i = 0; i < sizeof(fast) / sizeof(fast[0]); i++) {
                lua_pushlightuserdata(L, (void *)&fast[i].fn);
                lua_setfield(L, -2, fast[i].name);
            }
            if (pushrealgetmt(L)) {
                lua_createtable(L, CL_K_TAGS, 0);
                for (k = 0; k < CL_K_TAGS; k++) {
                    lua_createtable(L, 3, 0);
                    lua_pushstring(L, cl_classes[k].name);
                    lua_rawseti(L, -2, 1);
                    lua_pushlstring(L, &cl_classes[k].letter, 1);
                    lua_rawseti(L, -2, 2);
                    lua_pushboolean(L, k < CL_KINDS);
                    lua_rawseti(L, -2, 3);
                    lua_rawseti(L, -2, k + 1);
                }
                on = lua_pcall(L, 5, 1, 0) == 0 && lua_toboolean(L, -1);
            }
        }
        lua_settop(L, mod);  /* drops the chunk (and its arguments) or its result or error message */
        if (on) lw_open_ffi(L, mod);  /* ffi_world.c: the World methods */
    }
    lua_pushboolean(L, on);
    lua_setfield(L, mod, "_ffi");
}

#else /* not LuaJIT */

/* Sets module._ffi = false: the FFI fast path exists only on LuaJIT. */
void cl_open_ffi(lua_State *L) {
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "_ffi");
}

#endif
