/* collide core: spheres (seed 002; inclusive tests, and its sphere/AABB sign fixed). */
#include "vec.h"

/* |a - b| <= r1 + r2, computed at half scale when a difference or the sum would overflow. */
static int dist_le(cl_vec3 a, cl_vec3 b, double r1, double r2)
{
    cl_vec3 d = cl_sub(a, b);
    double r = r1 + r2;
    if (!cl_vfinite(d) || !isfinite(r)) {
        d = cl_halfsub(a, b);
        r = r1 * 0.5 + r2 * 0.5;
    }
    return cl_len_le(d.x, d.y, d.z, r);
}

/// 1 if |p - c| <= r (seed 002 uses <; ours is inclusive).
int cl_sphere_contains(const cl_sphere *s, cl_vec3 p) { return dist_le(p, s->c, s->r, 0.0); }

/// p if inside, else the point of the sphere towards p.
cl_vec3 cl_sphere_closest(const cl_sphere *s, cl_vec3 p)
{
    cl_vec3 d;
    double k;
    if (cl_sphere_contains(s, p)) return p;
    d = cl_sub(p, s->c);
    if (!cl_vfinite(d)) d = cl_halfsub(p, s->c);  /* the ratio below is scale-free */
    k = s->r / cl_len(d.x, d.y, d.z);
    return cl_add(s->c, cl_mul(d, k));
}

/// 1 / -1 / 0 comparing the plane's value at the centre with r |n|.
int cl_sphere_plane(const cl_sphere *s, cl_vec3 n, double d)
{
    cl_vec3 ns, c;
    double ds, v, r, mp = cl_maxabs3(s->c.x, s->c.y, s->c.z);
    int pk;
    if (s->r > mp) mp = s->r;
    if (!cl_plane_scale(n, d, mp, 1016, &ns, &ds, &pk)) return cl_sign(d);
    c = cl_vscale2(s->c, pk);
    v = ns.x * c.x + ns.y * c.y + ns.z * c.z + ds;
    r = cl_scale2(s->r, pk) * sqrt(cl_dot(ns, ns));
    if (v > r) return 1;
    if (v < -r) return -1;
    return 0;
}

/// c +- r on every axis, clamped to finite values.
cl_aabb cl_sphere_aabb(const cl_sphere *s)
{
    cl_aabb a;
    a.min = cl_v3(cl_clampfinite(s->c.x - s->r), cl_clampfinite(s->c.y - s->r), cl_clampfinite(s->c.z - s->r));
    a.max = cl_v3(cl_clampfinite(s->c.x + s->r), cl_clampfinite(s->c.y + s->r), cl_clampfinite(s->c.z + s->r));
    return a;
}

/// 1 and the entry hit (t = 0, n = 0 from inside; n = (p - c)/r, or -d when r == 0); 0 on a miss.
int cl_sphere_raycast(const cl_sphere *s, const cl_ray *r, double maxt, cl_hit *out)
{
    cl_vec3 m = cl_sub(r->o, s->c), l;
    double rad = s->r, scale = 1.0, k, b, disc, cc, q, t, sq;
    if (!cl_vfinite(m)) {
        m = cl_halfsub(r->o, s->c);
        rad *= 0.5;
        scale = 2.0;
    }
    if (cl_len_le(m.x, m.y, m.z, rad)) {  /* same test as contains: origin inside or on it */
        out->t = 0;
        out->n = cl_v3(0, 0, 0);
        return 1;
    }
    k = cl_maxabs3(m.x, m.y, m.z);
    if (rad > k) k = rad;
    if (!(k >= 0x1p-480 && k <= 0x1p480)) {  /* keep the squares in range; t is scaled back */
        int e = cl_exp2of(k);  /* by a power of two: a scene scaled by 2^j gets the same t * 2^j */
        m = cl_vscale2(m, -e);
        rad = cl_scale2(rad, -e);
        scale = cl_scale2(scale, e);
    }
    b = cl_dot(m, r->d);
    if (b >= 0) return 0;  /* outside and not moving towards the centre */
    l = cl_sub(m, cl_mul(r->d, b));  /* centre to the line's closest point (accurate discriminant) */
    disc = rad * rad - cl_dot(l, l);
    if (disc < 0) return 0;
    cc = cl_dot(m, m) - rad * rad;
    sq = sqrt(disc);
    q = -b + sq;
    t = cc / q;  /* near root without cancellation */
    if (t < 0) t = 0;
    if (!(t * scale <= maxt)) return 0;
    out->t = t * scale;
    out->n = cl_mul(r->d, -1.0);
    if (rad > 0) {
        /* hit point minus centre as l - d*sq, not m + d*t: the latter cancels to rounding noise
         * when the sphere is tiny compared with its distance (the normal flipped; fuzzing) */
        cl_vec3 p = cl_sub(l, cl_mul(r->d, sq)), n = cl_v3(p.x / rad, p.y / rad, p.z / rad);
        double len2 = cl_dot(n, n);
        if (!(fabs(len2 - 1) <= 1e-12)) {  /* a tiny sphere far away: p - c lost its digits (fuzzing) */
            double k = cl_maxabs3(p.x, p.y, p.z), len;
            if (k > 0) {
                n = cl_vscale2(p, -cl_exp2of(k));
                len = sqrt(cl_dot(n, n));
                n = cl_v3(n.x / len, n.y / len, n.z / len);
            }
        }
        /* a radius below the rounding of the centre's offset leaves l, and so n, noise: keep -d
         * when n would not face the ray (found by fuzz_geom: r 2^-49 at (4, 4, 4), a ray from
         * (2^-49, 2^-49, 2^-49) at the centre got n along the ray; the capsule's end balls had it) */
        if (fabs(cl_dot(n, n) - 1) <= 1e-12 && cl_dot(n, r->d) <= 0) out->n = n;
    }
    out->n = cl_add(out->n, cl_v3(0, 0, 0));  /* + 0.0: no -0 components */
    return 1;
}

/// 1 if the centres are at most r1 + r2 apart.
int cl_sphere_overlaps_sphere(const cl_sphere *a, const cl_sphere *b) { return dist_le(a->c, b->c, a->r, b->r); }

/// 1 if the box's closest point to the centre is within r (seed 002 has + where - belongs).
int cl_sphere_overlaps_aabb(const cl_sphere *s, const cl_aabb *b)
{
    return dist_le(s->c, cl_aabb_closest(b, s->c), s->r, 0.0);
}

/// 1 if the centre, in the box frame, is within r of the box (a box with world axes up to sign is
/// tested exactly as its AABB, so touching counts as for a sphere and an AABB).
int cl_sphere_overlaps_obb(const cl_sphere *s, const cl_obb *b)
{
    double l[3], sc, h[3], d[3];
    int i;
    if (cl_obb_world_axes(b)) {
        cl_aabb e = cl_obb_aabb(b);
        return cl_sphere_overlaps_aabb(s, &e);
    }
    sc = cl_obb_local(b, s->c, l);
    h[0] = b->h.x * sc; h[1] = b->h.y * sc; h[2] = b->h.z * sc;
    for (i = 0; i < 3; i++) {
        double c = l[i] < -h[i] ? -h[i] : (l[i] > h[i] ? h[i] : l[i]);
        d[i] = l[i] - c;
    }
    return cl_len_le(d[0], d[1], d[2], s->r * sc);
}
