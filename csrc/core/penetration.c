/* collide core: penetration, the minimum translation that takes a shape out of another.
 * For shapes A (moved) and B, A + v overlaps B exactly when v is in K = B (+) (-A) (Minkowski),
 * so the shortest v that ends the overlap of the interiors has length dist(0, boundary of K) and
 * the direction of the outward normal there (out of B, toward A). Box pairs: K is a polytope whose
 * face normals are among the 15 separating axes, so the smallest overlap over those axes is the
 * answer. Sphere and box: K is the box rounded by r; a centre inside the box leaves through the
 * nearest face (depth r + distance to it). Interiors are open as in the sweeps: touching or apart
 * gives no penetration, and an axis where both boxes are flat at the same coordinate (2D use)
 * counts as overlapping; the way out of such a pair then stays in their common plane. */
#include "vec.h"
#include "kinds.h"

/* Writes the smaller of the two pushes along the unit axis u (plus moves a along +u) into the
 * running best; keeps the earlier axis on ties. */
static void keep(double plus, double minus, cl_vec3 u, double *best, cl_vec3 *n)
{
    if (plus < *best) { *best = plus; *n = u; }
    if (minus < *best) { *best = minus; *n = cl_mul(u, -1.0); }
}

/* Returns n with -0 components turned into +0. */
static cl_vec3 nozero(cl_vec3 n) { return cl_add(n, cl_v3(0, 0, 0)); }

/// 1 and the smallest of the six face pushes when the open boxes overlap; 0 when they touch or are
/// apart (an axis where both are flat at the same coordinate overlaps but is no way out; 0 when
/// every overlapping axis is such).
int cl_penetration_aabb_aabb(const cl_aabb *a, const cl_aabb *b, double *depth, cl_vec3 *n)
{
    double best = INFINITY;
    cl_vec3 bn = cl_v3(0, 0, 0);
    int i;
    for (i = 0; i < 3; i++) {
        double a0 = cl_comp(a->min, i), a1 = cl_comp(a->max, i), b0 = cl_comp(b->min, i), b1 = cl_comp(b->max, i);
        if (a0 == a1 && b0 == b1 && a0 == b0) continue;  /* flat at the same coordinate */
        if (!(a0 < b1 && a1 > b0)) return 0;
        keep(cl_clampfinite(b1 - a0), cl_clampfinite(a1 - b0), cl_axisvec(i, 1.0), &best, &bn);
    }
    if (!(best < INFINITY)) return 0;
    *depth = best;
    *n = nozero(bn);
    return 1;
}

/* Half sizes of b projected on the unit axis L. */
static double radius(const cl_obb *b, cl_vec3 L)
{
    return b->h.x * fabs(cl_dot(b->u[0], L)) + b->h.y * fabs(cl_dot(b->u[1], L)) + b->h.z * fabs(cl_dot(b->u[2], L));
}

/* The box pair's smallest push over the separating axes (unit), with d = a.c - b.c given (finite).
 * Returns 0 when an axis separates or touches. */
static int obb_sat(const cl_obb *a, const cl_obb *b, cl_vec3 d, double *depth, cl_vec3 *n)
{
    cl_vec3 axes[15], flat = cl_v3(0, 0, 0);
    double best = INFINITY;
    cl_vec3 bn = cl_v3(0, 0, 0);
    int na = 0, i, j;
    for (i = 0; i < 3; i++) axes[na++] = a->u[i];
    for (i = 0; i < 3; i++) axes[na++] = b->u[i];
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            cl_vec3 L = cl_cross(a->u[i], b->u[j]);
            double len = cl_len(L.x, L.y, L.z);
            /* near-parallel edges still give a valid axis once normalised: any unit axis's push
             * ends the overlap, so keeping them can only shorten the answer */
            if (len > 1e-150) axes[na++] = cl_mul(L, 1.0 / len);
        }
    for (i = 0; i < na; i++) {  /* both flat in one plane (2D use): the way out stays in that plane */
        cl_vec3 L = axes[i];
        if (radius(a, L) == 0 && radius(b, L) == 0 && cl_dot(d, L) == 0) { flat = L; break; }
    }
    for (i = 0; i < na; i++) {
        cl_vec3 L = axes[i];
        double ra = radius(a, L), rb = radius(b, L), dl = cl_dot(d, L), r = ra + rb;
        if (ra == 0 && rb == 0 && dl == 0) continue;  /* flat at the same coordinate */
        if (!(r - dl > 0 && r + dl > 0)) return 0;
        if (fabs(cl_dot(L, flat)) <= 1e-12) keep(r - dl, r + dl, L, &best, &bn);
    }
    if (!(best < INFINITY)) return 0;
    *depth = best;
    *n = nozero(bn);
    return 1;
}

/* b with centre and half sizes scaled by 1/4 (exact unless subnormal). */
static cl_obb quarter(const cl_obb *b)
{
    cl_obb q = *b;
    q.c = cl_mul(b->c, 0.25);
    q.h = cl_mul(b->h, 0.25);
    return q;
}

/// 1 and the smallest push over the 15 separating axes (exact: they hold every face normal of
/// the Minkowski difference) when the open boxes overlap; 0 when they touch or are apart.
int cl_penetration_obb_obb(const cl_obb *a, const cl_obb *b, double *depth, cl_vec3 *n)
{
    cl_vec3 d = cl_sub(a->c, b->c);
    double m = cl_maxabs3(d.x, d.y, d.z), ha = cl_maxabs3(a->h.x, a->h.y, a->h.z), hb = cl_maxabs3(b->h.x, b->h.y, b->h.z);
    if (isfinite(m) && m < 0x1p1020 && ha < 0x1p1020 && hb < 0x1p1020) return obb_sat(a, b, d, depth, n);
    {   /* huge coordinates: the same test at quarter scale, depth scaled back */
        cl_obb qa = quarter(a), qb = quarter(b);
        if (!obb_sat(&qa, &qb, cl_sub(qa.c, qb.c), depth, n)) return 0;
        *depth = cl_clampfinite(*depth * 4.0);
        return 1;
    }
}

/// 1 and (r1 + r2 - distance, unit centre-to-centre direction out of b) when the open balls
/// overlap; 0 otherwise. Equal centres push along +x.
int cl_penetration_sphere_sphere(const cl_sphere *a, const cl_sphere *b, double *depth, cl_vec3 *n)
{
    cl_vec3 d = cl_sub(a->c, b->c);
    double r = a->r + b->r, k = 1.0, len;
    if (!cl_vfinite(d) || !isfinite(r)) {
        d = cl_halfsub(a->c, b->c);
        r = a->r * 0.5 + b->r * 0.5;
        k = 2.0;
    }
    len = cl_len(d.x, d.y, d.z);
    if (!(len < r)) return 0;
    *depth = cl_clampfinite((r - len) * k);
    if (len > 0) {
        double m = cl_maxabs3(d.x, d.y, d.z);  /* unit direction without underflow */
        d = cl_v3(d.x / m, d.y / m, d.z / m);
        len = cl_len(d.x, d.y, d.z);
        *n = nozero(cl_v3(d.x / len, d.y / len, d.z / len));
    } else {
        *n = cl_v3(1, 0, 0);
    }
    return 1;
}

/* Point p of a sphere of radius r against the box [lo, hi] in a frame (coordinates scaled by the
 * same power of two as p, lo, hi and r). Writes depth and the unit normal in that frame. */
static int point_box(const double p[3], const double lo[3], const double hi[3], double r, double *depth,
                     double nl[3])
{
    double q[3], len, best = INFINITY;
    int i, out = 0, bi = -1, bs = 1;
    for (i = 0; i < 3; i++) {
        double c = p[i] < lo[i] ? lo[i] : (p[i] > hi[i] ? hi[i] : p[i]);
        q[i] = p[i] - c;
        if (q[i] != 0) out = 1;
    }
    nl[0] = nl[1] = nl[2] = 0;
    if (out) {  /* centre outside: along the closest box point's offset */
        double m;
        len = cl_len(q[0], q[1], q[2]);
        if (!(len < r)) return 0;
        *depth = r - len;
        m = cl_maxabs3(q[0], q[1], q[2]);
        for (i = 0; i < 3; i++) q[i] /= m;
        len = cl_len(q[0], q[1], q[2]);
        for (i = 0; i < 3; i++) nl[i] = q[i] / len + 0.0;
        return 1;
    }
    for (i = 0; i < 3; i++) {  /* centre inside: out through the nearest face */
        double up = hi[i] - p[i], down = p[i] - lo[i];
        if (r == 0 && lo[i] == hi[i]) continue;  /* a point in a flat box: that axis is no way out */
        if (up < best) { best = up; bi = i; bs = 1; }
        if (down < best) { best = down; bi = i; bs = -1; }
    }
    if (bi < 0 || !(r + best > 0)) return 0;
    *depth = r + best;
    nl[bi] = bs;
    return 1;
}

/// 1 and the push of sphere s out of box b (centre outside: r minus its distance, along the
/// closest point's offset; inside: r plus the distance to the nearest face, through that face;
/// exact) when the open shapes overlap; 0 otherwise.
int cl_penetration_sphere_aabb(const cl_sphere *s, const cl_aabb *b, double *depth, cl_vec3 *n)
{
    double p[3], lo[3], hi[3], nl[3], r = s->r;
    int i, k = 0;
    for (i = 0; i < 3; i++) {
        p[i] = cl_comp(s->c, i);
        lo[i] = cl_comp(b->min, i);
        hi[i] = cl_comp(b->max, i);
        if (fabs(p[i]) > 0x1p1020 || fabs(lo[i]) > 0x1p1020 || fabs(hi[i]) > 0x1p1020) k = 1;
    }
    if (k || r > 0x1p1020) {  /* huge: quarter scale so differences stay finite */
        for (i = 0; i < 3; i++) { p[i] *= 0.25; lo[i] *= 0.25; hi[i] *= 0.25; }
        r *= 0.25;
    }
    if (!point_box(p, lo, hi, r, depth, nl)) return 0;
    if (k || s->r > 0x1p1020) *depth = cl_clampfinite(*depth * 4.0);
    *n = cl_v3(nl[0], nl[1], nl[2]);
    return 1;
}

/// 1 and the push of sphere s out of box b, as cl_penetration_sphere_aabb in the box's frame
/// (a box with world axes is its AABB); 0 when the open shapes do not overlap.
int cl_penetration_sphere_obb(const cl_sphere *s, const cl_obb *b, double *depth, cl_vec3 *n)
{
    double p[3], lo[3], hi[3], nl[3], sc, r;
    int i;
    if (cl_obb_world_axes(b)) {
        cl_aabb e = cl_obb_aabb(b);
        return cl_penetration_sphere_aabb(s, &e, depth, n);
    }
    sc = cl_obb_local(b, s->c, p);
    r = s->r * sc;
    for (i = 0; i < 3; i++) {
        hi[i] = cl_comp(b->h, i) * sc;
        lo[i] = -hi[i];
    }
    if (!point_box(p, lo, hi, r, depth, nl)) return 0;
    *depth = cl_clampfinite(*depth / sc);
    *n = nozero(cl_add(cl_add(cl_mul(b->u[0], nl[0]), cl_mul(b->u[1], nl[1])), cl_mul(b->u[2], nl[2])));
    return 1;
}

/// 1 and the push of a out of b for any pair of kinds (the pair table, kinds.h); 0 when the
/// open shapes do not overlap.
int cl_penetration(const cl_shape *a, const cl_shape *b, double *depth, cl_vec3 *n)
{
    /* a placed mesh: the push out of its deepest triangle (two meshes: none) */
    if (b->kind == CL_MESH) return a->kind != CL_MESH && cl_pmesh_penetration(&b->u.mesh, a, depth, n);
    if (a->kind == CL_MESH) {
        if (!cl_pmesh_penetration(&a->u.mesh, b, depth, n)) return 0;
        *n = cl_v3(-n->x + 0.0, -n->y + 0.0, -n->z + 0.0);
        return 1;
    }
    return cl_pair_penetration[a->kind][b->kind](&a->u, &b->u, depth, n);
}
