/* collide core: the generic operations on a cl_shape, through the kind table (kinds.h). */
#include <stddef.h>
#include <string.h>

#include "vec.h"
#include "kinds.h"

/* ---- dispatch on cl_shape ---- */

/// Overlap for any pair of kinds; symmetric.
int cl_shape_overlaps(const cl_shape *a, const cl_shape *b) {
    if (b->kind == CL_MESH) return cl_pmesh_overlaps(&b->u.mesh, a);
    if (a->kind == CL_MESH) return cl_pmesh_overlaps(&a->u.mesh, b);
    return cl_pair_overlaps[a->kind][b->kind](&a->u, &b->u);
}

/// Inclusive containment of p.
int cl_shape_contains(const cl_shape *s, cl_vec3 p) {
    if (s->kind == CL_MESH) return cl_pmesh_contains(&s->u.mesh, p);
    return cl_kinds[s->kind].contains(&s->u, p); }

/// Ray hit as the kind's raycast.
int cl_shape_raycast(const cl_shape *s, const cl_ray *r, double maxt, cl_hit *out) {
    if (s->kind == CL_MESH) return cl_pmesh_raycast(&s->u.mesh, r, maxt, out, NULL);
    return cl_kinds[s->kind].raycast(&s->u, r, maxt, out);
}

/// Tight enclosing AABB (the box itself for an AABB, without a call).
cl_aabb cl_shape_aabb(const cl_shape *s) {
    if (s->kind == CL_AABB) return s->u.aabb;
    if (s->kind == CL_MESH) return cl_pmesh_aabb(&s->u.mesh);
    return cl_kinds[s->kind].aabb(&s->u);
}

/// Closest point on or in the shape.
cl_vec3 cl_shape_closest(const cl_shape *s, cl_vec3 p) {
    if (s->kind == CL_MESH) return cl_pmesh_closest(&s->u.mesh, p);
    return cl_kinds[s->kind].closest(&s->u, p); }

/// Plane side as the kind's plane test.
int cl_shape_plane(const cl_shape *s, cl_vec3 n, double d) {
    if (s->kind == CL_MESH) return cl_pmesh_plane(&s->u.mesh, n, d);
    return cl_kinds[s->kind].plane(&s->u, n, d); }

/* The position point i of payload s of kind k (a placed mesh's one: its translation). */
static cl_vec3 *pos(cl_kind k, void *s, int i) {
    return k == CL_MESH ? &((cl_pmesh *)s)->c : (cl_vec3 *)((char *)s + cl_kinds[k].pos[i]);
}

/* The number of position points of kind k. */
static int npos(cl_kind k) { return k == CL_MESH ? 1 : cl_kinds[k].npos; }

/// Adds d to each position point of payload s of kind k.
void cl_kind_translate(cl_kind k, void *s, cl_vec3 d) {
    int i, n = npos(k);
    for (i = 0; i < n; i++) *pos(k, s, i) = cl_add(*pos(k, s, i), d);
}

/// 0 if every position point of payload s (kind k) plus d is finite, else the first axis (1..3)
/// where one is not.
int cl_kind_moved_finite(cl_kind k, const void *s, cl_vec3 d) {
    const cl_vec3 *p = pos(k, (void *)s, 0), *q = pos(k, (void *)s, npos(k) - 1);
    double a, b;
    /* x - x is +0 for finite x, NaN otherwise; q is p for a kind with one point */
    a = p->x + d.x; b = q->x + d.x;
    if ((a - a) + (b - b) != 0) return 1;
    a = p->y + d.y; b = q->y + d.y;
    if ((a - a) + (b - b) != 0) return 2;
    a = p->z + d.z; b = q->z + d.z;
    if ((a - a) + (b - b) != 0) return 3;
    return 0;
}

/// Adds d to each position point (both corners of an AABB, a centre otherwise).
void cl_shape_translate(cl_shape *s, cl_vec3 d) { cl_kind_translate(s->kind, &s->u, d); }

/// cl_kind_moved_finite on the shape's payload.
int cl_shape_moved_finite(const cl_shape *s, cl_vec3 d) { return cl_kind_moved_finite(s->kind, &s->u, d); }

/// 1 if same kind and every double of the payload compares equal.
int cl_shape_equal(const cl_shape *a, const cl_shape *b) {
    const double *x = (const double *)&a->u, *y = (const double *)&b->u;
    size_t i, n;
    if (a->kind != b->kind) return 0;
    if (a->kind == CL_MESH) {
        const cl_pmesh *p = &a->u.mesh, *q = &b->u.mesh;
        return p->m == q->m && p->c.x == q->c.x && p->c.y == q->c.y && p->c.z == q->c.z &&
               memcmp(p->u, q->u, sizeof p->u) == 0;
    }
    n = cl_kinds[a->kind].size / sizeof(double);
    for (i = 0; i < n; i++)
        if (x[i] != y[i]) return 0;
    return 1;
}
