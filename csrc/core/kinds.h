/* collide core: the shape kinds in one table. cl_kinds has one row per kind (what the kind
 * provides: bounds, containment, raycast, closest point, plane side, its position points);
 * cl_pair_overlaps, cl_pair_sweep and cl_pair_penetration have one entry per ordered pair of
 * kinds. The geometry itself lives in the kind's own file (aabb.c, obb.c, sphere.c, capsule.c; the
 * other kinds' sweeps in sweep.c, their pushes in penetration.c); the entries here only adapt it to payload pointers (and swap the arguments of mirrored pairs).
 * The tables are static in this header, so a caller with a constant kind (the binding's
 * methods, the FFI fast functions) gets a direct call through the inlined adapter; the
 * dispatchers on cl_shape (kinds.c) index them. Adding a kind: README.md, "Adding a shape kind". */
#ifndef CL_KINDS_H
#define CL_KINDS_H

#include <stddef.h>
#include "cl.h"

/* The adapters are inlined where the kind is a constant (else a call through the table costs
 * a second call and a copy of the result). */
#if defined(__GNUC__) || defined(__clang__)
#define CLK_INLINE inline __attribute__((always_inline))
#else
#define CLK_INLINE inline
#endif

/// Every kind once, for code that needs a case per kind at compile time (a copy of a payload
/// of known size): X(cl_kind constant, payload type, cl_shape union member).
#define CL_KIND_LIST(X) \
    X(CL_AABB, cl_aabb, aabb) X(CL_OBB, cl_obb, obb) X(CL_SPHERE, cl_sphere, sphere) X(CL_CAPSULE, cl_capsule, capsule)

/* ---- rows: one adapter per kind and operation (the payload as the kind's struct) ---- */

static CLK_INLINE cl_aabb clk_aabb_aabb(const void *s) { return *(const cl_aabb *)s; }
static CLK_INLINE int clk_aabb_contains(const void *s, cl_vec3 p) { return cl_aabb_contains((const cl_aabb *)s, p); }
static CLK_INLINE int clk_aabb_raycast(const void *s, const cl_ray *r, double maxt, cl_hit *out) {
    return cl_aabb_raycast((const cl_aabb *)s, r, maxt, out);
}
static CLK_INLINE cl_vec3 clk_aabb_closest(const void *s, cl_vec3 p) { return cl_aabb_closest((const cl_aabb *)s, p); }
static CLK_INLINE int clk_aabb_plane(const void *s, cl_vec3 n, double d) { return cl_aabb_plane((const cl_aabb *)s, n, d); }

static CLK_INLINE cl_aabb clk_obb_aabb(const void *s) { return cl_obb_aabb((const cl_obb *)s); }
static CLK_INLINE int clk_obb_contains(const void *s, cl_vec3 p) { return cl_obb_contains((const cl_obb *)s, p); }
static CLK_INLINE int clk_obb_raycast(const void *s, const cl_ray *r, double maxt, cl_hit *out) {
    return cl_obb_raycast((const cl_obb *)s, r, maxt, out);
}
static CLK_INLINE cl_vec3 clk_obb_closest(const void *s, cl_vec3 p) { return cl_obb_closest((const cl_obb *)s, p); }
static CLK_INLINE int clk_obb_plane(const void *s, cl_vec3 n, double d) { return cl_obb_plane((const cl_obb *)s, n, d); }

static CLK_INLINE cl_aabb clk_sphere_aabb(const void *s) { return cl_sphere_aabb((const cl_sphere *)s); }
static CLK_INLINE int clk_sphere_contains(const void *s, cl_vec3 p) { return cl_sphere_contains((const cl_sphere *)s, p); }
static CLK_INLINE int clk_sphere_raycast(const void *s, const cl_ray *r, double maxt, cl_hit *out) {
    return cl_sphere_raycast((const cl_sphere *)s, r, maxt, out);
}
static CLK_INLINE cl_vec3 clk_sphere_closest(const void *s, cl_vec3 p) { return cl_sphere_closest((const cl_sphere *)s, p); }
static CLK_INLINE int clk_sphere_plane(const void *s, cl_vec3 n, double d) { return cl_sphere_plane((const cl_sphere *)s, n, d); }

static CLK_INLINE cl_aabb clk_capsule_aabb(const void *s) { return cl_capsule_aabb((const cl_capsule *)s); }
static CLK_INLINE int clk_capsule_contains(const void *s, cl_vec3 p) { return cl_capsule_contains((const cl_capsule *)s, p); }
static CLK_INLINE int clk_capsule_raycast(const void *s, const cl_ray *r, double maxt, cl_hit *out) {
    return cl_capsule_raycast((const cl_capsule *)s, r, maxt, out);
}
static CLK_INLINE cl_vec3 clk_capsule_closest(const void *s, cl_vec3 p) { return cl_capsule_closest((const cl_capsule *)s, p); }
static CLK_INLINE int clk_capsule_plane(const void *s, cl_vec3 n, double d) { return cl_capsule_plane((const cl_capsule *)s, n, d); }

/* The kind table: payload size, position points, then the operations. */
static const cl_kindops cl_kinds[CL_KINDS] = {
    { sizeof(cl_aabb), 2, { offsetof(cl_aabb, min), offsetof(cl_aabb, max) },
      clk_aabb_aabb, clk_aabb_contains, clk_aabb_raycast, clk_aabb_closest, clk_aabb_plane },
    { sizeof(cl_obb), 1, { offsetof(cl_obb, c), 0 },
      clk_obb_aabb, clk_obb_contains, clk_obb_raycast, clk_obb_closest, clk_obb_plane },
    { sizeof(cl_sphere), 1, { offsetof(cl_sphere, c), 0 },
      clk_sphere_aabb, clk_sphere_contains, clk_sphere_raycast, clk_sphere_closest, clk_sphere_plane },
    { sizeof(cl_capsule), 2, { offsetof(cl_capsule, a), offsetof(cl_capsule, b) },
      clk_capsule_aabb, clk_capsule_contains, clk_capsule_raycast, clk_capsule_closest, clk_capsule_plane },
};

/* ---- pair overlaps: each unordered pair has one test; the mirrored entry swaps ---- */

static CLK_INLINE int clk_ov_aabb_aabb(const void *a, const void *b) {
    return cl_aabb_overlaps_aabb((const cl_aabb *)a, (const cl_aabb *)b);
}
static CLK_INLINE int clk_ov_aabb_obb(const void *a, const void *b) {
    return cl_obb_overlaps_aabb((const cl_obb *)b, (const cl_aabb *)a);
}
static CLK_INLINE int clk_ov_aabb_sphere(const void *a, const void *b) {
    return cl_sphere_overlaps_aabb((const cl_sphere *)b, (const cl_aabb *)a);
}
static CLK_INLINE int clk_ov_obb_aabb(const void *a, const void *b) { return clk_ov_aabb_obb(b, a); }
static CLK_INLINE int clk_ov_obb_obb(const void *a, const void *b) {
    return cl_obb_overlaps_obb((const cl_obb *)a, (const cl_obb *)b);
}
static CLK_INLINE int clk_ov_obb_sphere(const void *a, const void *b) {
    return cl_sphere_overlaps_obb((const cl_sphere *)b, (const cl_obb *)a);
}
static CLK_INLINE int clk_ov_sphere_aabb(const void *a, const void *b) { return clk_ov_aabb_sphere(b, a); }
static CLK_INLINE int clk_ov_sphere_obb(const void *a, const void *b) { return clk_ov_obb_sphere(b, a); }
static CLK_INLINE int clk_ov_sphere_sphere(const void *a, const void *b) {
    return cl_sphere_overlaps_sphere((const cl_sphere *)a, (const cl_sphere *)b);
}
static CLK_INLINE int clk_ov_capsule_aabb(const void *a, const void *b) {
    return cl_capsule_overlaps_aabb((const cl_capsule *)a, (const cl_aabb *)b);
}
static CLK_INLINE int clk_ov_capsule_obb(const void *a, const void *b) {
    return cl_capsule_overlaps_obb((const cl_capsule *)a, (const cl_obb *)b);
}
static CLK_INLINE int clk_ov_capsule_sphere(const void *a, const void *b) {
    return cl_capsule_overlaps_sphere((const cl_capsule *)a, (const cl_sphere *)b);
}
static CLK_INLINE int clk_ov_capsule_capsule(const void *a, const void *b) {
    return cl_capsule_overlaps_capsule((const cl_capsule *)a, (const cl_capsule *)b);
}
static CLK_INLINE int clk_ov_aabb_capsule(const void *a, const void *b) { return clk_ov_capsule_aabb(b, a); }
static CLK_INLINE int clk_ov_obb_capsule(const void *a, const void *b) { return clk_ov_capsule_obb(b, a); }
static CLK_INLINE int clk_ov_sphere_capsule(const void *a, const void *b) { return clk_ov_capsule_sphere(b, a); }

/* [kind of a][kind of b] */
static const cl_overlapfn cl_pair_overlaps[CL_KINDS][CL_KINDS] = {
    /*             AABB                 OBB                 Sphere                 Capsule */
    /* AABB    */ { clk_ov_aabb_aabb,    clk_ov_aabb_obb,    clk_ov_aabb_sphere,    clk_ov_aabb_capsule },
    /* OBB     */ { clk_ov_obb_aabb,     clk_ov_obb_obb,     clk_ov_obb_sphere,     clk_ov_obb_capsule },
    /* Sphere  */ { clk_ov_sphere_aabb,  clk_ov_sphere_obb,  clk_ov_sphere_sphere,  clk_ov_sphere_capsule },
    /* Capsule */ { clk_ov_capsule_aabb, clk_ov_capsule_obb, clk_ov_capsule_sphere, clk_ov_capsule_capsule },
};

/* ---- pair sweeps (mover a moved by d, static b); a box mover against a sphere is the sphere
 * moved by -d against the box, its normal negated ---- */

static CLK_INLINE cl_sweep clk_sw_aabb_aabb(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_aabb_aabb((const cl_aabb *)a, d, (const cl_aabb *)b);
}
/* An OBB with the world axes sweeps as its box (exact per-axis intervals; the SAT's rounding
 * differs). */
static CLK_INLINE cl_sweep clk_sw_aabb_obb(const void *a, cl_vec3 d, const void *b) {
    cl_aabb bb;
    cl_obb oa;
    if (cl_obb_worldbox((const cl_obb *)b, &bb)) return cl_sweep_aabb_aabb((const cl_aabb *)a, d, &bb);
    oa = cl_obb_from_aabb((const cl_aabb *)a);
    return cl_sweep_obb_obb(&oa, d, (const cl_obb *)b);
}
static CLK_INLINE cl_sweep clk_sw_obb_aabb(const void *a, cl_vec3 d, const void *b) {
    cl_aabb ba;
    cl_obb ob;
    if (cl_obb_worldbox((const cl_obb *)a, &ba)) return cl_sweep_aabb_aabb(&ba, d, (const cl_aabb *)b);
    ob = cl_obb_from_aabb((const cl_aabb *)b);
    return cl_sweep_obb_obb((const cl_obb *)a, d, &ob);
}
static CLK_INLINE cl_sweep clk_sw_obb_obb(const void *a, cl_vec3 d, const void *b) {
    cl_aabb ba, bb;
    if (cl_obb_worldbox((const cl_obb *)a, &ba) && cl_obb_worldbox((const cl_obb *)b, &bb))
        return cl_sweep_aabb_aabb(&ba, d, &bb);
    return cl_sweep_obb_obb((const cl_obb *)a, d, (const cl_obb *)b);
}
static CLK_INLINE cl_sweep clk_sw_sphere_aabb(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_sphere_aabb((const cl_sphere *)a, d, (const cl_aabb *)b);
}
static CLK_INLINE cl_sweep clk_sw_sphere_obb(const void *a, cl_vec3 d, const void *b) {
    cl_aabb bb;
    if (cl_obb_worldbox((const cl_obb *)b, &bb)) return cl_sweep_sphere_aabb((const cl_sphere *)a, d, &bb);
    return cl_sweep_sphere_obb((const cl_sphere *)a, d, (const cl_obb *)b);
}
static CLK_INLINE cl_sweep clk_sw_sphere_sphere(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_sphere_sphere((const cl_sphere *)a, d, (const cl_sphere *)b);
}
static CLK_INLINE cl_sweep clk_sw_aabb_sphere(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_flip(clk_sw_sphere_aabb(b, cl_v3(-d.x, -d.y, -d.z), a));
}
static CLK_INLINE cl_sweep clk_sw_obb_sphere(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_flip(clk_sw_sphere_obb(b, cl_v3(-d.x, -d.y, -d.z), a));
}
/* Capsule pairs: capsule.c sweeps each direction itself (a world-axis OBB as its box there too). */
static CLK_INLINE cl_sweep clk_sw_capsule_aabb(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_capsule_aabb((const cl_capsule *)a, d, (const cl_aabb *)b);
}
static CLK_INLINE cl_sweep clk_sw_capsule_obb(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_capsule_obb((const cl_capsule *)a, d, (const cl_obb *)b);
}
static CLK_INLINE cl_sweep clk_sw_capsule_sphere(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_capsule_sphere((const cl_capsule *)a, d, (const cl_sphere *)b);
}
static CLK_INLINE cl_sweep clk_sw_capsule_capsule(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_capsule_capsule((const cl_capsule *)a, d, (const cl_capsule *)b);
}
static CLK_INLINE cl_sweep clk_sw_aabb_capsule(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_aabb_capsule((const cl_aabb *)a, d, (const cl_capsule *)b);
}
static CLK_INLINE cl_sweep clk_sw_obb_capsule(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_obb_capsule((const cl_obb *)a, d, (const cl_capsule *)b);
}
static CLK_INLINE cl_sweep clk_sw_sphere_capsule(const void *a, cl_vec3 d, const void *b) {
    return cl_sweep_sphere_capsule((const cl_sphere *)a, d, (const cl_capsule *)b);
}

/* [kind of the mover a][kind of the static b] */
static const cl_sweepfn cl_pair_sweep[CL_KINDS][CL_KINDS] = {
    /*             AABB                 OBB                 Sphere                 Capsule */
    /* AABB    */ { clk_sw_aabb_aabb,    clk_sw_aabb_obb,    clk_sw_aabb_sphere,    clk_sw_aabb_capsule },
    /* OBB     */ { clk_sw_obb_aabb,     clk_sw_obb_obb,     clk_sw_obb_sphere,     clk_sw_obb_capsule },
    /* Sphere  */ { clk_sw_sphere_aabb,  clk_sw_sphere_obb,  clk_sw_sphere_sphere,  clk_sw_sphere_capsule },
    /* Capsule */ { clk_sw_capsule_aabb, clk_sw_capsule_obb, clk_sw_capsule_sphere, clk_sw_capsule_capsule },
};

/* ---- pair penetrations (push of a out of b); a box out of a sphere is the sphere's push
 * reversed (anything out of a capsule the capsule's), and a box pair with an OBB the OBB pair
 * test ---- */

static CLK_INLINE int clk_pe_aabb_aabb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_aabb_aabb((const cl_aabb *)a, (const cl_aabb *)b, depth, n);
}
static CLK_INLINE int clk_pe_aabb_obb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    cl_obb oa = cl_obb_from_aabb((const cl_aabb *)a);
    return cl_penetration_obb_obb(&oa, (const cl_obb *)b, depth, n);
}
static CLK_INLINE int clk_pe_obb_aabb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    cl_obb ob = cl_obb_from_aabb((const cl_aabb *)b);
    return cl_penetration_obb_obb((const cl_obb *)a, &ob, depth, n);
}
static CLK_INLINE int clk_pe_obb_obb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_obb_obb((const cl_obb *)a, (const cl_obb *)b, depth, n);
}
static CLK_INLINE int clk_pe_sphere_aabb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_sphere_aabb((const cl_sphere *)a, (const cl_aabb *)b, depth, n);
}
static CLK_INLINE int clk_pe_sphere_obb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_sphere_obb((const cl_sphere *)a, (const cl_obb *)b, depth, n);
}
static CLK_INLINE int clk_pe_sphere_sphere(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_sphere_sphere((const cl_sphere *)a, (const cl_sphere *)b, depth, n);
}
/* 1 after negating *n (+ 0.0 turns -0 into 0) when the reversed push r exists. */
static CLK_INLINE int clk_pe_flip(int r, cl_vec3 *n) {
    if (r) *n = cl_v3(-n->x + 0.0, -n->y + 0.0, -n->z + 0.0);
    return r;
}
static CLK_INLINE int clk_pe_aabb_sphere(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return clk_pe_flip(clk_pe_sphere_aabb(b, a, depth, n), n);
}
static CLK_INLINE int clk_pe_obb_sphere(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return clk_pe_flip(clk_pe_sphere_obb(b, a, depth, n), n);
}
static CLK_INLINE int clk_pe_capsule_aabb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_capsule_aabb((const cl_capsule *)a, (const cl_aabb *)b, depth, n);
}
static CLK_INLINE int clk_pe_capsule_obb(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_capsule_obb((const cl_capsule *)a, (const cl_obb *)b, depth, n);
}
static CLK_INLINE int clk_pe_capsule_sphere(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_capsule_sphere((const cl_capsule *)a, (const cl_sphere *)b, depth, n);
}
static CLK_INLINE int clk_pe_capsule_capsule(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return cl_penetration_capsule_capsule((const cl_capsule *)a, (const cl_capsule *)b, depth, n);
}
static CLK_INLINE int clk_pe_aabb_capsule(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return clk_pe_flip(clk_pe_capsule_aabb(b, a, depth, n), n);
}
static CLK_INLINE int clk_pe_obb_capsule(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return clk_pe_flip(clk_pe_capsule_obb(b, a, depth, n), n);
}
static CLK_INLINE int clk_pe_sphere_capsule(const void *a, const void *b, double *depth, cl_vec3 *n) {
    return clk_pe_flip(clk_pe_capsule_sphere(b, a, depth, n), n);
}

/* [kind of a][kind of b] */
static const cl_penetrationfn cl_pair_penetration[CL_KINDS][CL_KINDS] = {
    /*             AABB                 OBB                 Sphere                 Capsule */
    /* AABB    */ { clk_pe_aabb_aabb,    clk_pe_aabb_obb,    clk_pe_aabb_sphere,    clk_pe_aabb_capsule },
    /* OBB     */ { clk_pe_obb_aabb,     clk_pe_obb_obb,     clk_pe_obb_sphere,     clk_pe_obb_capsule },
    /* Sphere  */ { clk_pe_sphere_aabb,  clk_pe_sphere_obb,  clk_pe_sphere_sphere,  clk_pe_sphere_capsule },
    /* Capsule */ { clk_pe_capsule_aabb, clk_pe_capsule_obb, clk_pe_capsule_sphere, clk_pe_capsule_capsule },
};

/// The first position point of s (an AABB's min corner, a centre otherwise): its placement.
static inline cl_vec3 cl_shape_pos(const cl_shape *s) {
    if (s->kind == CL_MESH) return s->u.mesh.c;
    return *(const cl_vec3 *)((const char *)&s->u + cl_kinds[s->kind].pos[0]);
}

#endif
