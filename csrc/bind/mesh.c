/* collide Lua binding: collide.Mesh, a static triangle mesh (core: mesh.c, tri.c). The userdata is
 * a cl_udhead (the tag mesh_tag) followed by a cl_mesh whose blocks come from the Lua state's
 * allocator; it is made empty (nothing to free) before anything can fail, filled from the tables,
 * then built, and freed by __gc. Immutable. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bind.h"
#include "mesh.h"

/* Tag of a Mesh userdata (only its address matters). */
static const char mesh_tag = 0;

/* Triangle indices query() collects on the C stack before it needs a heap buffer. */
#define QUERY_STACK 256

const cl_mesh *cl_tomesh(lua_State *L, int idx) {
    const cl_udhead *h = (const cl_udhead *)lua_touserdata(L, idx);
    if (h == NULL || lua_rawlen(L, idx) != sizeof(cl_udhead) + sizeof(cl_mesh) || h->tag != &mesh_tag) return NULL;
    return (const cl_mesh *)(h + 1);
}

const cl_mesh *cl_mesh_payload(const void *ud) {
    const cl_udhead *h = (const cl_udhead *)ud;
    return h != NULL && h->tag == &mesh_tag ? (const cl_mesh *)(h + 1) : NULL;
}

/* The mesh at arg, else a type error naming collide.Mesh. */
static const cl_mesh *checkmesh(lua_State *L, int arg, const char *fname) {
    const cl_mesh *m = cl_tomesh(L, arg);
    if (m == NULL) cl_typeerror(L, arg, fname, CL_MT_MESH);
    return m;
}

/* Returns element i (0-based) of the array at arg, read raw, as a number; *isnum is 0 when it is
 * not one. */
static double rawnum(lua_State *L, int arg, size_t i, int *isnum) {
    double c;
    lua_rawgeti(L, arg, (int)(i + 1));
    c = (double)lua_tonumberx(L, -1, isnum);
    lua_pop(L, 1);
    return c;
}

/* Raises "bad argument #arg to 'Mesh' (<what> <i + 1> <reason>)". */
static void itemerror(lua_State *L, int arg, const char *what, size_t i, const char *reason) {
    lua_pushfstring(L, "%s %d %s", what, (int)(i + 1), reason);
    cl_argerror(L, arg, "Mesh", lua_tostring(L, -1));
}

/* Reads the flat coordinate array at arg into out[0..n-1], raising at the first value that is not
 * a finite number. */
static void readcoords(lua_State *L, int arg, double *out, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        int isnum;
        double c = rawnum(L, arg, i, &isnum);
        if (!isnum || !isfinite(c)) itemerror(L, arg, "vertex coordinate", i, isnum ? "is not finite" : "is not a number");
        out[i] = c;
    }
}

/* Reads the flat index array at arg into out[0..n-1], 0-based, raising at the first value that is
 * not an integer in [1, nv]. */
static void readindices(lua_State *L, int arg, unsigned *out, size_t n, size_t nv) {
    size_t i;
    for (i = 0; i < n; i++) {
        int isnum;
        double c = rawnum(L, arg, i, &isnum);
        if (!isnum || c != floor(c)) itemerror(L, arg, "index", i, "is not an integer");
        if (!(c >= 1 && c <= (double)nv)) {
            lua_pushfstring(L, "is out of range (1 to %d)", (int)nv);
            itemerror(L, arg, "index", i, lua_tostring(L, -1));
        }
        out[i] = (unsigned)(c - 1);
    }
}

/* collide.Mesh(vertices[, indices]) -> a new mesh. vertices = {x1,y1,z1, ...}; indices = {i1,j1,k1,
 * ...} (1-based), or absent: vertices three at a time. */
static int mesh_new(lua_State *L) {
    size_t nc, ni = 0, nv, nt;
    int indexed = !lua_isnoneornil(L, 2);
    cl_udhead *h;
    cl_mesh *m;
    void *ud;
    lua_Alloc af;
    if (lua_type(L, 1) != LUA_TTABLE) return cl_typeerror(L, 1, "Mesh", "table");
    if (indexed && lua_type(L, 2) != LUA_TTABLE) return cl_typeerror(L, 2, "Mesh", "table");
    lua_settop(L, 2);
    nc = (size_t)lua_rawlen(L, 1);
    if (nc == 0) return cl_argerror(L, 1, "Mesh", "mesh has no vertices");
    if (nc > (size_t)INT_MAX) return cl_argerror(L, 1, "Mesh", "mesh is too large");
    if (nc % 3 != 0) return cl_argerror(L, 1, "Mesh", "vertex coordinate count is not a multiple of 3");
    nv = nc / 3;
    if (indexed) {
        ni = (size_t)lua_rawlen(L, 2);
        if (ni == 0) return cl_argerror(L, 2, "Mesh", "mesh has no triangles");
        if (ni > (size_t)INT_MAX) return cl_argerror(L, 2, "Mesh", "mesh is too large");
        if (ni % 3 != 0) return cl_argerror(L, 2, "Mesh", "index count is not a multiple of 3");
        nt = ni / 3;
    } else {
        if (nv % 3 != 0) return cl_argerror(L, 1, "Mesh", "vertex count is not a multiple of 3 (no indices given)");
        nt = nv / 3;
    }
    /* the userdata first, empty (its __gc frees nothing), so any later error leaks nothing */
    h = (cl_udhead *)cl_newuserdata(L, sizeof(cl_udhead) + sizeof(cl_mesh));
    h->tag = &mesh_tag;
    m = (cl_mesh *)(h + 1);
    memset(m, 0, sizeof *m);
    luaL_getmetatable(L, CL_MT_MESH);
    lua_setmetatable(L, -2);
    af = lua_getallocf(L, &ud);
    if (cl_mesh_init(m, nv, nt, indexed, (cl_alloc)af, ud) != CL_OK) return luaL_error(L, "not enough memory");
    readcoords(L, 1, m->v, nc);
    if (indexed) readindices(L, 2, m->idx, ni, nv);
    if (cl_mesh_build(m) != CL_OK) return luaL_error(L, "not enough memory");
    return 1;
}

/* mesh:count() -> the number of triangles. */
static int mesh_count(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)checkmesh(L, 1, "count")->nt);
    return 1;
}

/* Pushes the three numbers of v. */
static void pushvec(lua_State *L, cl_vec3 v) {
    lua_pushnumber(L, v.x);
    lua_pushnumber(L, v.y);
    lua_pushnumber(L, v.z);
}

/* mesh:triangle(i) -> ax,ay,az, bx,by,bz, cx,cy,cz of triangle i (1-based). */
static int mesh_triangle(lua_State *L) {
    const cl_mesh *m = checkmesh(L, 1, "triangle");
    double i = cl_checknum(L, 2, "triangle");
    cl_vec3 a, b, c;
    if (i != floor(i)) return cl_argerror(L, 2, "triangle", "number has no integer representation");
    if (!(i >= 1 && i <= (double)m->nt)) return cl_argerror(L, 2, "triangle", "triangle index out of range");
    cl_mesh_triangle(m, (size_t)i - 1, &a, &b, &c);
    pushvec(L, a);
    pushvec(L, b);
    pushvec(L, c);
    return 9;
}

/* mesh:aabb() -> a new AABB enclosing every triangle. */
static int mesh_aabb(lua_State *L) {
    const cl_mesh *m = checkmesh(L, 1, "aabb");
    *cl_newaabb(L) = m->box;
    return 1;
}

/* mesh:raycast(ray[, maxt]) -> t, nx,ny,nz, i (closest hit, the normal facing the ray) or nil. */
static int mesh_raycast(lua_State *L) {
    const cl_mesh *m = checkmesh(L, 1, "raycast");
    const cl_ray *r = cl_checkray(L, 2, "raycast");
    double maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    cl_hit h;
    size_t tri;
    if (!cl_mesh_raycast(m, r, maxt, &h, &tri)) { lua_pushnil(L); return 1; }
    cl_pushhit(L, &h);
    lua_pushinteger(L, (lua_Integer)tri + 1);
    return 5;
}

/* mesh:overlaps(shape) -> boolean (inclusive): some triangle overlaps the AABB, OBB or Sphere. */
static int mesh_overlaps(lua_State *L) {
    const cl_mesh *m = checkmesh(L, 1, "overlaps");
    cl_shape s;
    cl_checkshape(L, 2, "overlaps", &s);
    lua_pushboolean(L, cl_mesh_overlaps(m, &s));
    return 1;
}

/* mesh:query(shape[, out]) -> the triangles (1-based, ascending) overlapping the shape, and their
 * number; out, when given, is cleared and filled. */
static int mesh_query(lua_State *L) {
    const cl_mesh *m = checkmesh(L, 1, "query");
    unsigned stackbuf[QUERY_STACK], *buf = stackbuf;
    cl_shape s;
    size_t n, i, old = 0;
    cl_checkshape(L, 2, "query", &s);
    if (!lua_isnoneornil(L, 3) && lua_type(L, 3) != LUA_TTABLE) return cl_typeerror(L, 3, "query", "table");
    lua_settop(L, 3);
    n = cl_mesh_query(m, &s, buf, QUERY_STACK);
    if (n > QUERY_STACK) {  /* a buffer of the exact size, then the query again */
        buf = (unsigned *)cl_newuserdata(L, n * sizeof(unsigned));
        lua_replace(L, 2);  /* the shape is copied in s */
        cl_mesh_query(m, &s, buf, n);
    }
    if (lua_istable(L, 3)) {
        old = (size_t)lua_rawlen(L, 3);
        lua_pushvalue(L, 3);
    } else {
        lua_createtable(L, n > (size_t)INT_MAX ? 0 : (int)n, 0);
    }
    for (i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)buf[i] + 1);
        lua_rawseti(L, -2, (int)(i + 1));
    }
    for (i = old; i > n; i--) {
        lua_pushnil(L);
        lua_rawseti(L, -2, (int)i);
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 2;
}

/* mesh:closest(x,y,z) -> x,y,z, i: the closest point of the mesh and its triangle, or nil when
 * every triangle is degenerate. */
static int mesh_closest(lua_State *L) {
    const cl_mesh *m = checkmesh(L, 1, "closest");
    cl_vec3 p = cl_checkvec(L, 2, "closest"), q;
    size_t tri;
    if (!cl_mesh_closest(m, p, &q, &tri)) { lua_pushnil(L); return 1; }
    pushvec(L, q);
    lua_pushinteger(L, (lua_Integer)tri + 1);
    return 4;
}

/* tostring(mesh) -> "Mesh(12 triangles, 8 vertices)". */
static int mesh_tostring(lua_State *L) {
    const cl_mesh *m = checkmesh(L, 1, "__tostring");
    char buf[96];
    snprintf(buf, sizeof buf, "Mesh(%lu triangles, %lu vertices)", (unsigned long)m->nt, (unsigned long)m->nv);
    lua_pushstring(L, buf);
    return 1;
}

/* a == b -> true only for the same mesh (identity: meshes are immutable and may be large). */
static int mesh_eq(lua_State *L) {
    lua_pushboolean(L, lua_rawequal(L, 1, 2));
    return 1;
}

/* __gc: frees the mesh's blocks (a mesh whose construction failed holds only what was allocated). */
static int mesh_gc(lua_State *L) {
    const cl_mesh *m = cl_tomesh(L, 1);
    if (m != NULL) cl_mesh_free((cl_mesh *)m);     /* (the userdata is the mesh's own memory) */
    return 0;
}

static const luaL_Reg mesh_methods[] = {
    { "count", mesh_count },
    { "triangle", mesh_triangle },
    { "aabb", mesh_aabb },
    { "raycast", mesh_raycast },
    { "overlaps", mesh_overlaps },
    { "query", mesh_query },
    { "closest", mesh_closest },
    { NULL, NULL }
};

static const luaL_Reg mesh_metamethods[] = {
    { "__tostring", mesh_tostring },
    { "__eq", mesh_eq },
    { "__gc", mesh_gc },
    { NULL, NULL }
};

/* Creates the Mesh class and adds collide.Mesh to the module table on top. */
void cl_open_mesh(lua_State *L) {
    cl_newclass(L, CL_MT_MESH, mesh_methods, mesh_metamethods);
    lua_pushcfunction(L, mesh_new);
    lua_setfield(L, -2, "Mesh");
}
