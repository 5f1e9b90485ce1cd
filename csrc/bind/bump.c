/* collide Lua binding: the C half of collide.bump (lua/collide/bump.lua), bump.lua 3.1.7's world on
 * csrc/core/bump.c. Owns the core userdata (module._bump.new), the item <-> slot tables, the scratch
 * buffers, and every world method whose work is in C: add, remove, update, getRect, hasItem,
 * countItems, getItems, countCells, project, check, move, queryRect, queryPoint, querySegment and
 * querySegmentWithCoords. Methods take the world table as self and find the core at self[1] (an
 * integer key: the quickest lookup; bump's world has no array part).
 * Errors use bump's wording (no position prefix); non-finite numbers, which would corrupt bump's
 * grid or hang it, raise "<name> must be a finite number, ...". Every Lua call made in the middle
 * of an operation (filters, custom responses) is protected: on error the scratch is released and
 * the error is raised again, unchanged. A callback may use the world again (nested operations get
 * their own scratch). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "bump.h"

#if LUA_VERSION_NUM == 501
#define b_newuserdata(L, sz) lua_newuserdata((L), (sz))
#define b_getuv(L, i) lua_getfenv((L), (i))
#define b_setuv(L, i) ((void)lua_setfenv((L), (i)))
#elif LUA_VERSION_NUM < 504
#define b_newuserdata(L, sz) lua_newuserdata((L), (sz))
#define b_getuv(L, i) ((void)lua_getuservalue((L), (i)))
#define b_setuv(L, i) ((void)lua_setuservalue((L), (i)))
#else
#define b_newuserdata(L, sz) lua_newuserdatauv((L), (sz), 1)
#define b_getuv(L, i) ((void)lua_getiuservalue((L), (i), 1))
#define b_setuv(L, i) ((void)lua_setiuservalue((L), (i), 1))
#endif

static const char core_key = 'b';      /* registry: the core metatable; its address tags cores */
static const char builtin_key = 'r';   /* registry: builtin response function -> kind */
static const char tostring_key = 's';  /* registry: the global tostring at load time */

/* Scratch buffers of one operation: candidates, collisions, segment hits, visited slots. */
typedef struct bscratch {
    int *cand;
    cl_bcol *cols;
    cl_bseg *segs;
    int cap;
    int *vis;
    int viscap;
} bscratch;

/* The core userdata. Its user value U holds the items: U[id + 1] = item, U[0] = item -> id + 1,
 * U[-1] = a weak-valued table whose [1] disappears at the next garbage collection (countCells). */
typedef struct bcore {
    const char *tag;    /* &core_key: marks a real core (checked with the size) */
    unsigned calls;     /* Lua callbacks made so far (a move re-finds its item only after one) */
    cl_bump b;
    bscratch s;
    int busy;           /* s is in use by an operation that called Lua */
    double cellsize;
    double *ghost;      /* cell rects (l, t, r, b) emptied since the last collection */
    int nghost, ghostcap;
    unsigned char *intf; /* per slot: which of x, y, w, h (bits 1, 2, 4, 8) were given as integers */
    int intcap;
} bcore;

/* Lua 5.3+ number subtypes, as bump's answers have them: a value is pushed as an integer where
 * bump's Lua arithmetic on the values it was given would give one. Integer flags: 1 x, 2 y, 4 w, 8 h
 * of a rect; ISINT(L, i): the value at i is an integer. */
#if LUA_VERSION_NUM >= 503
#define ISINT(L, i) lua_isinteger((L), (i))
#else
#define ISINT(L, i) ((void)(L), (void)(i), 0)
#endif

/* Pushes v, as an integer when isint (and v is integral and fits) on Lua 5.3+. */
static void pushnum(lua_State *L, double v, int isint) {
#if LUA_VERSION_NUM >= 503
    if (isint && v >= -9.2e18 && v <= 9.2e18 && v == floor(v)) {
        lua_pushinteger(L, (lua_Integer)v);
        return;
    }
#else
    (void)isint;
#endif
    lua_pushnumber(L, v);
}

/* Integer flags of the numbers at idx..idx+n-1 (bit k for idx + k). */
static int intflags(lua_State *L, int idx, int n) {
    int k, f = 0;
    for (k = 0; k < n; k++) f |= ISINT(L, idx + k) ? 1 << k : 0;
    return f;
}


enum { R_CUSTOM = 0, R_TOUCH = 1, R_CROSS = 2, R_SLIDE = 3, R_BOUNCE = 4 };

/* Returns the allocator's block resized (NULL on failure, old block kept). */
static void *bgrow(lua_State *L, void *p, size_t osz, size_t nsz) {
    void *ud;
    lua_Alloc af = lua_getallocf(L, &ud);
    return af(ud, p, osz, nsz);
}

/* Frees the buffers of a scratch. */
static void scratch_free(lua_State *L, bscratch *s) {
    if (s->cap) {
        bgrow(L, s->cand, (size_t)s->cap * sizeof(int), 0);
        bgrow(L, s->cols, (size_t)s->cap * sizeof(cl_bcol), 0);
        bgrow(L, s->segs, (size_t)s->cap * sizeof(cl_bseg), 0);
    }
    if (s->viscap) bgrow(L, s->vis, (size_t)s->viscap * sizeof(int), 0);
    memset(s, 0, sizeof *s);
}

/* Returns 1 once the scratch holds need entries in each result buffer, 0 when memory ran out. */
static int scratch_reserve(lua_State *L, bscratch *s, int need) {
    int ncap = s->cap ? s->cap : 64;
    void *a, *c, *g;
    while (ncap < need) ncap *= 2;
    if (ncap == s->cap) return 1;
    a = bgrow(L, NULL, 0, (size_t)ncap * sizeof(int));
    c = bgrow(L, NULL, 0, (size_t)ncap * sizeof(cl_bcol));
    g = bgrow(L, NULL, 0, (size_t)ncap * sizeof(cl_bseg));
    if (!a || !c || !g) {
        if (a) bgrow(L, a, (size_t)ncap * sizeof(int), 0);
        if (c) bgrow(L, c, (size_t)ncap * sizeof(cl_bcol), 0);
        if (g) bgrow(L, g, (size_t)ncap * sizeof(cl_bseg), 0);
        return 0;
    }
    {
        int *keepv = s->vis, keepc = s->viscap;
        s->vis = NULL;
        s->viscap = 0;
        scratch_free(L, s);
        s->vis = keepv;
        s->viscap = keepc;
    }
    s->cand = (int *)a;
    s->cols = (cl_bcol *)c;
    s->segs = (cl_bseg *)g;
    s->cap = ncap;
    return 1;
}

/* __gc of a scratch userdata (nested operations). */
static int scratch_gc(lua_State *L) {
    scratch_free(L, (bscratch *)lua_touserdata(L, 1));
    return 0;
}

/* __gc of the core. */
static int core_gc(lua_State *L) {
    bcore *c = (bcore *)lua_touserdata(L, 1);
    cl_bump_free(&c->b);
    scratch_free(L, &c->s);
    if (c->ghostcap) bgrow(L, c->ghost, (size_t)c->ghostcap * 4 * sizeof(double), 0);
    c->ghost = NULL;
    c->ghostcap = c->nghost = 0;
    if (c->intcap) bgrow(L, c->intf, (size_t)c->intcap, 0);
    c->intf = NULL;
    c->intcap = 0;
    return 0;
}

/* Raises the out-of-memory error. */
static int nomem(lua_State *L) {
    lua_pushliteral(L, "not enough memory");
    return lua_error(L);
}

/* Pushes tostring(v) for the value at idx (the global tostring saved at load time). */
static void pushtostring(lua_State *L, int idx) {
    idx = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
    cl_rawgetp(L, LUA_REGISTRYINDEX, &tostring_key);
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1);
    if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        lua_pushstring(L, luaL_typename(L, idx));
    }
}

/* The core of the world at index 1 (self[1]), pushed just above the nargs arguments (the stack is
 * cut or padded to nargs first); raises if self is no world. */
static bcore *getcore(lua_State *L, int nargs) {
    bcore *c = NULL;
    lua_settop(L, nargs);
    if (lua_type(L, 1) == LUA_TTABLE) {
        lua_rawgeti(L, 1, 1);
        c = (bcore *)lua_touserdata(L, -1);
        if (c && (lua_rawlen(L, -1) != sizeof(bcore) || c->tag != &core_key)) c = NULL;
    }
    if (!c) luaL_error(L, "bad self: expected a world made by bump.newWorld");
    return c;
}

/* Returns idx when the value there is a table to use as an out table, 0 when it is no table;
 * raises "bad argument #n to 'name' (out table is a bump world)" when it is a bump world (clearing
 * it would wipe the world). n counts the arguments after self, as in a method call, whatever the
 * call looked like (on LuaJIT the FFI path's wrappers call the methods, so the call information
 * luaL_argerror reads names the wrapper). */
static int outarg(lua_State *L, int idx, const char *name) {
    bcore *c;
    if (!lua_istable(L, idx)) return 0;
    lua_rawgeti(L, idx, 1);
    c = (bcore *)lua_touserdata(L, -1);
    if (c && lua_rawlen(L, -1) == sizeof(bcore) && c->tag == &core_key)
        luaL_error(L, "bad argument #%d to '%s' (out table is a bump world)", idx - 1, name);
    lua_pop(L, 1);
    return idx;
}

/* Raises bump's error for a missing item (the value at idx). */
static int notadded(lua_State *L, int idx) {
    pushtostring(L, idx);
    lua_pushfstring(L, "Item %s must be added to the world before getting its rect. "
                       "Use world:add(item, x,y,w,h) to add it first.", lua_tostring(L, -1));
    return lua_error(L);
}

/* Raises the error for a core whose tables were changed through the debug library. */
static int tampered(lua_State *L) {
    return luaL_error(L, "bump world's tables were changed through the debug library");
}

/* Pushes U[k] (U at index u: 0 the item -> slot map, -1 the sentinel holder, -2 the spares);
 * raises if it is no longer a table (debug.setuservalue). */
static void uvtable(lua_State *L, int u, int k) {
    lua_rawgeti(L, u, k);
    if (lua_type(L, -1) != LUA_TTABLE) tampered(L);
}

/* Returns the slot of the item at idx, or -1; u is the index of the user value table, the core
 * just below it. A slot that is out of range, free or holds another item raises (a map changed
 * through the debug library). (A raw read with a nil or NaN key gives nil.) */
static int findid(lua_State *L, int u, int idx) {
    const bcore *c = (const bcore *)lua_touserdata(L, u - 1);
    int isnum, id, same;
    lua_Number n;
    uvtable(L, u, 0);
    lua_pushvalue(L, idx);
    lua_rawget(L, -2);
    n = lua_tonumberx(L, -1, &isnum);
    lua_pop(L, 2);
    if (!isnum) return -1;
    if (!(n >= 1 && n <= c->b.count) || (lua_Number)(int)n != n) tampered(L);
    id = (int)n - 1;
    if (c->b.leaf[id] == CL_NULLNODE) tampered(L);
    lua_rawgeti(L, u, id + 1);
    same = lua_rawequal(L, -1, idx);
    lua_pop(L, 1);
    if (!same) tampered(L);
    return id;
}

/* Raises bump's type error "name must be a number, but was v(a type)" (or the finite-number one). */
static int numerror(lua_State *L, int idx, const char *name) {
    pushtostring(L, idx);
    if (lua_type(L, idx) == LUA_TNUMBER)
        lua_pushfstring(L, "%s must be a finite number, but was %s(a number)", name, lua_tostring(L, -1));
    else
        lua_pushfstring(L, "%s must be a number, but was %s(a %s)", name, lua_tostring(L, -1), luaL_typename(L, idx));
    return lua_error(L);
}

/* Returns the finite number at idx, else raises bump's error naming it. */
static double checkn(lua_State *L, int idx, const char *name) {
    double v;
    if (lua_type(L, idx) != LUA_TNUMBER) numerror(L, idx, name);
    v = (double)lua_tonumber(L, idx);
    if (v - v != 0) numerror(L, idx, name);
    return v;
}

/* Returns the positive finite number at idx, else raises bump's error naming it. */
static double checkpos(lua_State *L, int idx, const char *name) {
    double v = lua_type(L, idx) == LUA_TNUMBER ? (double)lua_tonumber(L, idx) : 0;
    if (!(v > 0) || v - v != 0) {
        pushtostring(L, idx);
        if (lua_type(L, idx) == LUA_TNUMBER && !(v <= 0))
            lua_pushfstring(L, "%s must be a finite number, but was %s(number)", name, lua_tostring(L, -1));
        else
            lua_pushfstring(L, "%s must be a positive integer, but was %s(%s)", name, lua_tostring(L, -1),
                            luaL_typename(L, idx));
        lua_error(L);
    }
    return v;
}

/* Reads bump's rect x, y, w, h at idx..idx+3 into r, raising bump's errors. */
static void checkrect(lua_State *L, int idx, double r[4]) {
    r[0] = checkn(L, idx, "x");
    r[1] = checkn(L, idx + 1, "y");
    r[2] = checkpos(L, idx + 2, "w");
    r[3] = checkpos(L, idx + 3, "h");
}

/* Reads the goal coordinate at idx: 0 for nil or false (bump's `goal or x`), else 1 with *v set
 * to the finite number; raises otherwise, first releasing the core's scratch if own. */
static int readgoal(lua_State *L, bcore *c, int own, int idx, const char *name, double *v) {
    int isnum;
    double n = (double)lua_tonumberx(L, idx, &isnum);
    if (isnum && lua_type(L, idx) == LUA_TNUMBER && n - n == 0) {
        *v = n;
        return 1;
    }
    if (!lua_toboolean(L, idx)) return 0;
    if (own) c->busy = 0;
    return numerror(L, idx, name);
}

/* Returns the scratch of an operation: the core's, or a fresh one (kept at the top of the stack)
 * when an outer operation of this world is still using it; *own says which. */
static bscratch *takescratch(lua_State *L, bcore *c, int *own) {
    bscratch *s;
    if (!c->busy) {
        *own = 1;
        lua_pushnil(L);
        return &c->s;
    }
    *own = 0;
    s = (bscratch *)b_newuserdata(L, sizeof(bscratch));
    memset(s, 0, sizeof *s);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, scratch_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    return s;
}

/* Calls the function below nargs arguments with nres results, protected: on error releases the
 * core's scratch if this operation owns it and raises the error again. */
static void pcallback(lua_State *L, bcore *c, int own, int nargs, int nres) {
    c->calls++;
    if (lua_pcall(L, nargs, nres, 0) != 0) {
        if (own) c->busy = 0;
        lua_error(L);
    }
}

/* Returns 1 when a core call's result n (a count, CL_ENOMEM, or a count above the scratch's
 * capacity) fits s; otherwise grows s for n and returns 0 (call again), or releases the core's
 * scratch if own and raises when memory ran out. */
static int fits(lua_State *L, bcore *c, bscratch *s, int own, int n) {
    if (n >= 0 && n <= s->cap) return 1;
    if (n == CL_ENOMEM || !scratch_reserve(L, s, n)) {
        if (own) c->busy = 0;
        nomem(L);
    }
    return 0;
}

/* Runs cl_bump_project into s, growing it; returns the number of collisions. On memory failure
 * releases the core's scratch if this operation owns it (own) and raises. */
static int project(lua_State *L, bcore *c, bscratch *s, int own, const double r[4], double gx, double gy,
                   const int *skip, int nskip) {
    int n;
    do n = cl_bump_project(&c->b, r, gx, gy, skip, nskip, s->cand, s->cap, s->cols, s->cap);
    while (!fits(L, c, s, own, n));
    return n;
}

/* Sets t[k] = {x = v[0], y = v[1]} (n = 2) or {x, y, w, h} (n = 4) for the table at t (absolute
 * index), v[i] an integer where bit i of flags is set; with reuse, fills the table already at t[k]
 * if there is one. */
static void setnums(lua_State *L, int t, const char *k, const double *v, int n, int flags, int reuse) {
    static const char *const names[4] = {"x", "y", "w", "h"};
    int i;
    if (reuse) {
        lua_getfield(L, t, k);
        if (!lua_istable(L, -1)) {
            lua_pop(L, 1);
            reuse = 0;
        }
    }
    if (!reuse) lua_createtable(L, 0, n);
    for (i = 0; i < n; i++) {
        pushnum(L, v[i], flags >> i & 1);
        lua_setfield(L, -2, names[i]);
    }
    if (reuse) lua_pop(L, 1);
    else lua_setfield(L, t, k);
}

/* setnums of the pair (x, y). */
static void setxy(lua_State *L, int t, const char *k, double x, double y, int flags, int reuse) {
    double v[2];
    v[0] = x;
    v[1] = y;
    setnums(L, t, k, v, 2, flags, reuse);
}

/* Moves t[k] (a slide or bounce table of a reused collision) to the spare list U[-2], t[k] = nil. */
static void tospare(lua_State *L, int u, int t, const char *k) {
    lua_getfield(L, t, k);
    if (lua_istable(L, -1)) {
        int n;
        uvtable(L, u, -2);
        n = (int)lua_rawlen(L, -1);
        if (n < 64) {
            lua_pushvalue(L, -2);
            lua_rawseti(L, -2, n + 1);
        }
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_setfield(L, t, k);
    }
    lua_pop(L, 1);
}

/* Sets t[k] = {x = x, y = y} (flags as setnums) with a table from the spare list U[-2] when there is one. */
static void setxyspare(lua_State *L, int u, int t, const char *k, double x, double y, int flags) {
    int n;
    uvtable(L, u, -2);
    n = (int)lua_rawlen(L, -1);
    if (n == 0) {
        lua_pop(L, 1);
        setxy(L, t, k, x, y, flags, 0);
        return;
    }
    lua_rawgeti(L, -1, n);
    lua_pushnil(L);
    lua_rawseti(L, -3, n);
    lua_setfield(L, t, k);
    lua_pop(L, 1);
    setxy(L, t, k, x, y, flags, 1);
}

/* Returns bump's "abs(a - x) < abs(b - x) and a or b" flag: fa or fb, as nearest picks a or b. */
static int nearestf(double x, double a, int fa, double b, int fb) {
    return fabs(a - x) < fabs(b - x) ? fa : fb;
}

/* Which numbers of collision k are integers in bump's arithmetic (rect.detectCollision) when the
 * rect r (flags rf) moves to (gx, gy) (flags gf: 1 gx, 2 gy) against o (flags of): bits 1 ti,
 * 2 touch.x, 4 touch.y, 8 move.x, 16 move.y (the normal is always an integer). ti and touch are
 * integers only for an item already overlapping and standing still. */
static int colflags(const double *r, int rf, const double *o, int of, double gx, double gy, int gf,
                    const cl_bcol *k) {
    int x1 = rf & 1, y1 = rf >> 1 & 1, w1 = rf >> 2 & 1, h1 = rf >> 3 & 1;
    int x2 = of & 1, y2 = of >> 1 & 1, w2 = of >> 2 & 1, h2 = of >> 3 & 1;
    int dxf = (gf & 1) & x1, dyf = (gf >> 1 & 1) & y1, f = dxf << 3 | dyf << 4;
    double d0 = o[0] - r[0] - r[2], d1 = o[1] - r[1] - r[3], dw = r[2] + o[2], dh = r[3] + o[3];
    int d0f = x2 & x1 & w1, d1f = y2 & y1 & h1, dwf = w1 & w2, dhf = h1 & h2;
    double px, py;
    int pxf, pyf, wif, hif;
    if (!k->overlaps) return f;
    px = fabs(d0) < fabs(d0 + dw) ? d0 : d0 + dw;
    py = fabs(d1) < fabs(d1 + dh) ? d1 : d1 + dh;
    pxf = nearestf(0, d0, d0f, d0 + dw, d0f & dwf);
    pyf = nearestf(0, d1, d1f, d1 + dh, d1f & dhf);
    /* math.min(w1, abs(px)): the second only when strictly smaller */
    wif = fabs(px) < r[2] ? pxf : w1;
    hif = fabs(py) < r[3] ? pyf : h1;
    f |= wif & hif;
    if (gx - r[0] == 0 && gy - r[1] == 0) {
        if (fabs(px) < fabs(py)) pyf = 1;  /* py = 0 */
        else pxf = 1;                      /* px = 0 */
        f |= (x1 & pxf) << 1 | (y1 & pyf) << 2;
    }
    return f;
}

/* Pushes bump's col table for collision k: item at iidx, other at oidx, type at tidx, the item's
 * rectangle r (integer flags rf) moving by (dx, dy), number subtypes cf (colflags). With outi (an out table, else 0), the table at out[pos] is
 * filled instead of a new one when it is a table (its slide/bounce tables go to the spare list U[-2]). */
static void pushcol(lua_State *L, bcore *c, const cl_bcol *k, int iidx, int oidx, int tidx, const double r[4],
                    int rf, double dx, double dy, int cf, int u, int outi, int pos) {
    int t, reuse = 0;
    if (outi) {
        lua_rawgeti(L, outi, pos);
        reuse = lua_istable(L, -1);
        if (!reuse) lua_pop(L, 1);
    }
    if (!reuse) lua_createtable(L, 0, 12);
    t = lua_gettop(L);
    if (reuse) {
        tospare(L, u, t, "slide");
        tospare(L, u, t, "bounce");
    }
    lua_pushboolean(L, k->overlaps);
    lua_setfield(L, t, "overlaps");
    pushnum(L, k->ti, cf & 1);
    lua_setfield(L, t, "ti");
    setxy(L, t, "move", dx, dy, cf >> 3 & 3, reuse);
    setxy(L, t, "normal", k->nx, k->ny, 3, reuse);
    setxy(L, t, "touch", k->tx, k->ty, cf >> 1 & 3, reuse);
    setnums(L, t, "itemRect", r, 4, rf, reuse);
    setnums(L, t, "otherRect", c->b.rect + 4 * k->id, 4, c->intf[k->id], reuse);
    lua_pushvalue(L, oidx);
    lua_setfield(L, t, "other");
    lua_pushvalue(L, iidx);
    lua_setfield(L, t, "item");
    lua_pushvalue(L, tidx);
    lua_setfield(L, t, "type");
}

/* Clears out[from..] (the entries of an out table past the answer's length). */
static void truncate(lua_State *L, int outi, int from) {
    for (;; from++) {
        lua_rawgeti(L, outi, from);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            return;
        }
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, outi, from);
    }
}

/* Returns the number field k.x of the table field k of the table at t (0 when absent); *isint
 * says whether it is an integer. */
static double getxy(lua_State *L, int t, const char *k, const char *xy, int *isint) {
    double v;
    lua_getfield(L, t, k);
    *isint = 0;
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    lua_getfield(L, -1, xy);
    v = (double)lua_tonumber(L, -1);
    *isint = ISINT(L, -1);
    lua_pop(L, 2);
    return v;
}

/* Pushes the item of slot id (U at u). */
static void pushitem(lua_State *L, int u, int id) {
    lua_rawgeti(L, u, id + 1);
}

/* Pops n values and overwrites their slots with nil. Used where a slot held the weak-valued
 * table's [1] (countCells' marker): on LuaJIT a C function's slots above its top can lie inside
 * the calling Lua function's frame, which the collector marks whole, so a stale copy there kept
 * the marker alive through a full collection (seen once in the LÖVE suite: bump.lua's spec
 * "marks empty cells & rows for deallocation" counted 2 cells after collectgarbage). */
static void popclear(lua_State *L, int n) {
    int i;
    lua_pop(L, n);
    for (i = 0; i < n; i++) lua_pushnil(L);
    lua_pop(L, n);
}

/* Records a cell rect emptied (l, t, r, b): countCells counts it until the next collection. */
static void addghost(lua_State *L, bcore *c, int u, const double *cr) {
    int top = lua_gettop(L);
    uvtable(L, u, -1);
    lua_rawgeti(L, -1, 1);
    if (lua_isnil(L, -1) || c->nghost > 4096 + 4 * c->b.count) {
        /* a collection happened since the first ghost (or too many): start over */
        c->nghost = 0;
        lua_newtable(L);
        lua_rawseti(L, -3, 1);
    }
    lua_settop(L, top + 3);     /* the three slots used (the table, its [1], a new marker) */
    popclear(L, 3);
    if (c->nghost == c->ghostcap) {
        int ncap = c->ghostcap ? 2 * c->ghostcap : 16;
        double *g = (double *)bgrow(L, c->ghost, (size_t)c->ghostcap * 4 * sizeof(double),
                                    (size_t)ncap * 4 * sizeof(double));
        if (!g) return;  /* countCells may undercount emptied cells; nothing else depends on it */
        c->ghost = g;
        c->ghostcap = ncap;
    }
    memcpy(c->ghost + 4 * c->nghost++, cr, 4 * sizeof(double));
}

/* Pushes the user value of the core at index ci, returns its absolute index; raises if it is
 * no longer a table. */
static int pushuv(lua_State *L, int ci) {
    b_getuv(L, ci);
    if (lua_type(L, -1) != LUA_TTABLE) tampered(L);
    return lua_gettop(L);
}

/* Prologue of a method taking a filter at fi among nargs arguments: cuts or pads the stack to
 * nargs, turns a false filter into nil, pushes the core and its user value (*u: its index). */
static bcore *qopen(lua_State *L, int nargs, int fi, int *u) {
    bcore *c;
    lua_settop(L, nargs);
    if (!lua_toboolean(L, fi)) {
        lua_pushnil(L);
        lua_replace(L, fi);
    }
    c = getcore(L, nargs);
    *u = pushuv(L, lua_gettop(L));
    return c;
}

/* Epilogue of a query: releases the scratch if own, clears the out table (at outi, 0: none) past
 * len, and returns the results table at resi and len. */
static int qclose(lua_State *L, bcore *c, int own, int resi, int outi, int len) {
    if (own) c->busy = 0;
    if (outi) truncate(L, resi, len + 1);
    lua_pushvalue(L, resi);
    lua_pushinteger(L, len);
    return 2;
}

/* Returns 1 when the filter at fi (nil: accept all) accepts the item at the top: filter(item), or
 * filter(item at ii, other at the top) when ii != 0. Calls are protected as pcallback's. */
static int accepts(lua_State *L, bcore *c, int own, int fi, int ii) {
    int ok;
    if (lua_isnil(L, fi)) return 1;
    lua_pushvalue(L, fi);
    if (ii) lua_pushvalue(L, ii);
    lua_pushvalue(L, ii ? -3 : -2);
    pcallback(L, c, own, ii ? 2 : 1, 1);
    ok = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return ok;
}

/* module._bump.new(cellSize) -> core, its user value (the FFI path reads the item maps). */
static int b_new(lua_State *L) {
    double cs = (double)luaL_checknumber(L, 1);
    bcore *c;
    void *ud;
    lua_Alloc af = lua_getallocf(L, &ud);
    c = (bcore *)b_newuserdata(L, sizeof(bcore));
    memset(c, 0, sizeof *c);
    c->tag = &core_key;
    cl_bump_init(&c->b, cs, (cl_alloc)af, ud);
    c->cellsize = cs;
    cl_rawgetp(L, LUA_REGISTRYINDEX, &core_key);
    lua_setmetatable(L, -2);
    lua_createtable(L, 16, 2);
    lua_newtable(L);
    lua_rawseti(L, -2, 0);
    lua_newtable(L);                 /* weak holder of the collection sentinel */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_rawseti(L, -2, -1);
    lua_newtable(L);                 /* spare slide/bounce tables of reused collisions */
    lua_rawseti(L, -2, -2);
    lua_pushvalue(L, -1);
    b_setuv(L, -3);
    return 2;
}

/* module._bump.setresponses(touch, cross, slide, bounce): the builtin responses handled in C. */
static int b_setresponses(lua_State *L) {
    int i;
    lua_createtable(L, 0, 4);
    for (i = 1; i <= 4; i++) {
        luaL_checktype(L, i, LUA_TFUNCTION);
        lua_pushvalue(L, i);
        lua_pushinteger(L, i);
        lua_rawset(L, -3);
    }
    cl_rawsetp(L, LUA_REGISTRYINDEX, &builtin_key);
    return 0;
}

/* world:add(item, x,y,w,h) -> item. */
static int w_add(lua_State *L) {
    bcore *c = getcore(L, 6);
    int ci = lua_gettop(L), u = pushuv(L, ci), id;
    double r[4];
    if (findid(L, u, 2) >= 0) {
        pushtostring(L, 2);
        lua_pushfstring(L, "Item %s added to the world twice.", lua_tostring(L, -1));
        return lua_error(L);
    }
    checkrect(L, 3, r);
    if (c->intcap <= c->b.count) {
        int ncap = c->intcap ? 2 * c->intcap : 16;
        unsigned char *f = (unsigned char *)bgrow(L, c->intf, (size_t)c->intcap, (size_t)ncap);
        if (!f) return nomem(L);
        c->intf = f;
        c->intcap = ncap;
    }
    if (lua_isnil(L, 2)) return luaL_error(L, "table index is nil");
    if (lua_type(L, 2) == LUA_TNUMBER && lua_tonumber(L, 2) != lua_tonumber(L, 2))
        return luaL_error(L, "table index is NaN");
    /* Lua tables first (they may raise), then the core (which only reports) */
    uvtable(L, u, 0);
    lua_pushvalue(L, 2);
    lua_pushinteger(L, c->b.freelist >= 0 ? c->b.freelist + 1 : c->b.count + 1);
    lua_rawset(L, -3);
    lua_pushvalue(L, 2);
    lua_rawseti(L, u, c->b.freelist >= 0 ? c->b.freelist + 1 : c->b.count + 1);
    id = cl_bump_add(&c->b, r[0], r[1], r[2], r[3]);
    if (id < 0) {
        lua_pushvalue(L, 2);
        lua_pushnil(L);
        lua_rawset(L, -3);
        return nomem(L);
    }
    c->intf[id] = (unsigned char)intflags(L, 3, 4);
    lua_pushvalue(L, 2);
    return 1;
}

/* world:remove(item). */
static int w_remove(lua_State *L) {
    bcore *c = getcore(L, 2);
    int ci = lua_gettop(L), u = pushuv(L, ci), id = findid(L, u, 2);
    double cr[4];
    if (id < 0) return notadded(L, 2);
    memcpy(cr, c->b.cells + 4 * id, sizeof cr);
    addghost(L, c, u, cr);
    cl_bump_remove(&c->b, id);
    lua_rawgeti(L, u, 0);
    cl_forget_item(L, u, lua_gettop(L), 2, id);
    return 0;
}

/* Moves slot id to n (x, y, w, h; integer flags nf), recording the cells it leaves for countCells.
 * As bump's update, nothing changes (number subtypes included) when n equals the rect. */
static void doupdate(lua_State *L, bcore *c, int u, int id, const double *n, int nf) {
    double *r = c->b.rect + 4 * id;
    if (r[0] != n[0] || r[1] != n[1] || r[2] != n[2] || r[3] != n[3]) {
        double old[4];
        c->intf[id] = (unsigned char)nf;
        if (cl_bump_update(&c->b, id, n[0], n[1], n[2], n[3], old)) addghost(L, c, u, old);
    }
}

/* world:update(item, x,y [,w,h]). */
static int w_update(lua_State *L) {
    bcore *c = getcore(L, 6);
    int ci = lua_gettop(L), u = pushuv(L, ci), id = findid(L, u, 2);
    double n[4];
    if (id < 0) return notadded(L, 2);
    n[0] = checkn(L, 3, "x");
    n[1] = checkn(L, 4, "y");
    n[2] = lua_toboolean(L, 5) ? checkpos(L, 5, "w") : c->b.rect[4 * id + 2];
    n[3] = lua_toboolean(L, 6) ? checkpos(L, 6, "h") : c->b.rect[4 * id + 3];
    doupdate(L, c, u, id, n, intflags(L, 3, 2) | (lua_toboolean(L, 5) ? ISINT(L, 5) << 2 : c->intf[id] & 4) |
                                 (lua_toboolean(L, 6) ? ISINT(L, 6) << 3 : c->intf[id] & 8));
    return 0;
}

/* world:getRect(item) -> x,y,w,h. */
static int w_getrect(lua_State *L) {
    bcore *c = getcore(L, 2);
    int ci = lua_gettop(L), u = pushuv(L, ci), id = findid(L, u, 2), i;
    if (id < 0) return notadded(L, 2);
    for (i = 0; i < 4; i++) pushnum(L, c->b.rect[4 * id + i], c->intf[id] >> i & 1);
    return 4;
}

/* world:hasItem(item) -> boolean. */
static int w_hasitem(lua_State *L) {
    int ci, u;
    getcore(L, 2);
    ci = lua_gettop(L);
    u = pushuv(L, ci);
    lua_pushboolean(L, findid(L, u, 2) >= 0);
    return 1;
}

/* world:countItems() -> number of items. */
static int w_countitems(lua_State *L) {
    bcore *c = getcore(L, 1);
    int id, n = 0;
    for (id = 0; id < c->b.count; id++) n += c->b.leaf[id] != CL_NULLNODE;
    lua_pushinteger(L, n);
    return 1;
}

/* world:getItems() -> items, len (in slot order). */
static int w_getitems(lua_State *L) {
    bcore *c = getcore(L, 1);
    int ci = lua_gettop(L), u = pushuv(L, ci), id, n = 0;
    lua_createtable(L, c->b.count, 0);
    for (id = 0; id < c->b.count; id++) {
        if (c->b.leaf[id] == CL_NULLNODE) continue;
        pushitem(L, u, id);
        lua_rawseti(L, -2, ++n);
    }
    lua_pushinteger(L, n);
    return 2;
}

/* Adds the cells of cell rect cr to the set t at index t (keys "cx,cy" as numbers pairs); a
 * cell number past 2^53, where adding 1 changes nothing, ends its row or column. */
static void addcells(lua_State *L, int t, const double *cr) {
    double cx, cy;
    for (cy = cr[1]; cy <= cr[3]; cy = cy + 1 > cy ? cy + 1 : HUGE_VAL) {
        for (cx = cr[0]; cx <= cr[2]; cx = cx + 1 > cx ? cx + 1 : HUGE_VAL) {
            lua_pushnumber(L, cy);
            lua_rawget(L, t);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                lua_newtable(L);
                lua_pushnumber(L, cy);
                lua_pushvalue(L, -2);
                lua_rawset(L, t);
            }
            lua_pushnumber(L, cx);
            lua_pushboolean(L, 1);
            lua_rawset(L, -3);
            lua_pop(L, 1);
        }
    }
}

/* world:countCells() -> the cells bump's grid would hold: those of the items, plus those emptied
 * since the last garbage collection. */
static int w_countcells(lua_State *L) {
    bcore *c = getcore(L, 1);
    int ci = lua_gettop(L), u = pushuv(L, ci), t, id, i, n = 0;
    uvtable(L, u, -1);
    lua_rawgeti(L, -1, 1);
    if (lua_isnil(L, -1)) c->nghost = 0;
    popclear(L, 2);
    lua_newtable(L);
    t = lua_gettop(L);
    for (id = 0; id < c->b.count; id++) {
        if (c->b.leaf[id] == CL_NULLNODE) continue;
        addcells(L, t, c->b.cells + 4 * id);
    }
    for (i = 0; i < c->nghost; i++) addcells(L, t, c->ghost + 4 * i);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            n++;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pushinteger(L, n);
    return 1;
}

/* The visited filter of a custom response: upvalues filter (or nil) and visited set. */
static int visitedfilter(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(2));
    if (lua_toboolean(L, -1)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    lua_pop(L, 1);
    if (lua_isnil(L, lua_upvalueindex(1))) {
        lua_pushliteral(L, "slide");
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

/* Pushes the collision type the filter at fi gives the item at ii and the other at the top
 * ("slide" when the filter is nil); returns its truth. */
static int pushtype(lua_State *L, bcore *c, int own, int fi, int ii) {
    if (lua_isnil(L, fi)) {
        lua_pushliteral(L, "slide");
        return 1;
    }
    lua_pushvalue(L, fi);
    lua_pushvalue(L, ii);
    lua_pushvalue(L, -3);
    pcallback(L, c, own, 2, 1);
    return lua_toboolean(L, -1);
}

/* Finds the first collision of a projection that the filter accepts (in bump's order): pushes its
 * other item and its type and returns its index in s->cols, or -1 (nothing pushed). filter at fi
 * (nil: every collision is "slide"), item at ii. */
static int firstaccepted(lua_State *L, bcore *c, bscratch *s, int own, int u, int n, int fi, int ii) {
    int k;
    for (k = 0; k < n; k++) {
        int id = s->cols[k].id;
        if (!cl_bump_live(&c->b, id)) continue;
        pushitem(L, u, id);
        if (pushtype(L, c, own, fi, ii)) return k;
        lua_pop(L, 2);
    }
    return -1;
}

/* Appends slot id to the visited slots of s (count *nv); raises on memory failure. */
static void visit(lua_State *L, bcore *c, bscratch *s, int own, int *nv, int id) {
    if (*nv == s->viscap) {
        int ncap = s->viscap ? 2 * s->viscap : 16;
        int *v = (int *)bgrow(L, s->vis, (size_t)s->viscap * sizeof(int), (size_t)ncap * sizeof(int));
        if (!v) {
            if (own) c->busy = 0;
            nomem(L);
        }
        s->vis = v;
        s->viscap = ncap;
    }
    s->vis[(*nv)++] = id;
}

/* world:check(item, goalX, goalY, filter) / world:move(...): bump's check loop in C with the four
 * builtin responses; custom responses are called as bump calls them. Returns goalX, goalY, cols, len. */
static int checkmove(lua_State *L, int domove) {
    bcore *c;
    bscratch *s;
    unsigned calls;
    int outi, u, id, own, nv = 0, len = 0, fi = 5, gxi = 3, gyi = 4, colsi, respi, builti, vfi, coli, typei, n, k;
    double r0[4], pr[4], gx, gy, dx = 0, dy = 0, tx = 0, ty = 0, nx = 0;
    double vgx = 0, vgy = 0;   /* the goal slots' numbers, when hasgx/hasgy (else nil or false) */
    int hasgx, hasgy;
    int r0f, prf, tf = 0, gxf, gyf; /* integer flags of r0, pr, the touch (1 x, 2 y), the goal */
    c = qopen(L, 6, fi, &u);
    outi = outarg(L, 6, domove ? "move" : "check");
    id = findid(L, u, 2);
    if (id < 0) return notadded(L, 2);
    memcpy(r0, c->b.rect + 4 * id, sizeof r0);
    r0f = prf = c->intf[id];
    calls = c->calls;
    hasgx = readgoal(L, c, 0, gxi, "goalX", &vgx);
    hasgy = readgoal(L, c, 0, gyi, "goalY", &vgy);
    /* nil slots: world.responses and the builtin table (read at the first collision), the visited
     * filter and its visited set (made when a custom response needs them) */
    respi = lua_gettop(L) + 1;
    builti = respi + 1;
    vfi = respi + 2;
    lua_settop(L, respi + 3);
    if (outi) lua_pushvalue(L, outi);
    else lua_newtable(L);
    colsi = lua_gettop(L);
    s = takescratch(L, c, &own);
    if (own) c->busy = 1;
    coli = lua_gettop(L) + 1;        /* the current collision's table */
    typei = coli + 1;                /* its type */
    lua_settop(L, typei);
    visit(L, c, s, own, &nv, id);
    memcpy(pr, r0, sizeof pr);
    goto project;
    for (;;) {
        int kind;
        /* the collision at coli (type at typei) with touch, normal and move in tx.. dx.. */
        lua_pushvalue(L, coli);
        lua_rawseti(L, colsi, ++len);
        lua_getfield(L, coli, "other");
        k = findid(L, u, lua_gettop(L));
        if (k >= 0) visit(L, c, s, own, &nv, k);
        if (!lua_isnil(L, vfi + 1) && !lua_isnil(L, -1)) {
            lua_pushboolean(L, 1);
            lua_rawset(L, vfi + 1);
        } else {
            lua_pop(L, 1);
        }
        if (lua_isnil(L, builti)) {
            lua_getfield(L, 1, "responses");
            lua_replace(L, respi);
            cl_rawgetp(L, LUA_REGISTRYINDEX, &builtin_key);
            lua_replace(L, builti);
        }
        lua_pushvalue(L, typei);
        lua_gettable(L, respi);
        if (lua_isnil(L, -1)) {
            if (own) c->busy = 0;
            pushtostring(L, typei);
            lua_pushfstring(L, "Unknown collision type: %s (%s)", lua_tostring(L, -1), luaL_typename(L, typei));
            return lua_error(L);
        }
        lua_pushvalue(L, -1);
        lua_rawget(L, builti);
        kind = lua_isnil(L, -1) ? R_CUSTOM : (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        gx = hasgx ? vgx : r0[0];
        gy = hasgy ? vgy : r0[1];
        gxf = hasgx ? ISINT(L, gxi) : r0f & 1;
        gyf = hasgy ? ISINT(L, gyi) : r0f >> 1 & 1;
        if (kind == R_TOUCH) {
            lua_pop(L, 1);
            pushnum(L, tx, tf & 1);
            lua_replace(L, gxi);
            pushnum(L, ty, tf >> 1 & 1);
            lua_replace(L, gyi);
            hasgx = hasgy = 1;
            vgx = tx;
            vgy = ty;
            break;
        } else if (kind == R_CROSS) {
            lua_pop(L, 1);
            memcpy(pr, r0, sizeof pr);
            prf = r0f;
        } else if (kind == R_SLIDE || kind == R_BOUNCE) {
            lua_pop(L, 1);
            if (kind == R_SLIDE) {
                if (dx != 0 || dy != 0) {
                    if (nx != 0) gx = tx, gxf = tf & 1;
                    else gy = ty, gyf = tf >> 1 & 1;
                }
                setxyspare(L, u, coli, "slide", gx, gy, gxf | gyf << 1);
            } else {
                double bx = tx, by = ty;
                int bxf = tf & 1, byf = tf >> 1 & 1;
                if (dx != 0 || dy != 0) {
                    double bnx = gx - tx, bny = gy - ty;
                    if (nx == 0) bny = -bny;
                    else bnx = -bnx;
                    bx = tx + bnx;
                    by = ty + bny;
                    bxf &= gxf;
                    byf &= gyf;
                }
                setxyspare(L, u, coli, "bounce", bx, by, bxf | byf << 1);
                gx = bx;
                gy = by;
                gxf = bxf;
                gyf = byf;
            }
            pushnum(L, gx, gxf);
            lua_replace(L, gxi);
            pushnum(L, gy, gyf);
            lua_replace(L, gyi);
            hasgx = hasgy = 1;
            vgx = gx;
            vgy = gy;
            pr[0] = tx;
            pr[1] = ty;
            prf = (prf & 12) | tf;
        } else {
            /* custom: response(world, col, x,y,w,h, goalX, goalY, visitedFilter) */
            int i;
            if (lua_isnil(L, vfi)) {
                lua_newtable(L);
                for (i = 0; i < nv; i++) {
                    pushitem(L, u, s->vis[i]);
                    lua_pushboolean(L, 1);
                    lua_rawset(L, -3);
                }
                lua_pushvalue(L, 2);
                lua_pushboolean(L, 1);
                lua_rawset(L, -3);
                lua_replace(L, vfi + 1);
                lua_pushvalue(L, fi);
                lua_pushvalue(L, vfi + 1);
                lua_pushcclosure(L, visitedfilter, 2);
                lua_replace(L, vfi);
            }
            lua_pushvalue(L, 1);
            lua_pushvalue(L, coli);
            for (i = 0; i < 4; i++) pushnum(L, r0[i], r0f >> i & 1);
            lua_pushvalue(L, gxi);
            lua_pushvalue(L, gyi);
            lua_pushvalue(L, vfi);
            pcallback(L, c, own, 9, 4);
            n = (int)lua_tonumber(L, -1);
            lua_pop(L, 1);
            /* stack: ..., goalX, goalY, projected cols */
            lua_pushvalue(L, -3);
            lua_replace(L, gxi);
            lua_pushvalue(L, -2);
            lua_replace(L, gyi);
            hasgx = readgoal(L, c, own, gxi, "goalX", &vgx);
            hasgy = readgoal(L, c, own, gyi, "goalY", &vgy);
            if (n > 0 && lua_istable(L, -1)) {
                lua_rawgeti(L, -1, 1);
                lua_replace(L, coli);
                lua_pop(L, 3);
                if (!lua_istable(L, coli)) break;
                lua_getfield(L, coli, "type");
                lua_replace(L, typei);
                tx = getxy(L, coli, "touch", "x", &i);
                tf = i;
                ty = getxy(L, coli, "touch", "y", &i);
                tf |= i << 1;
                nx = getxy(L, coli, "normal", "x", &i);
                dx = getxy(L, coli, "move", "x", &i);
                dy = getxy(L, coli, "move", "y", &i);
                continue;
            }
            lua_pop(L, 3);
            break;
        }
    project:
        gx = hasgx ? vgx : pr[0];
        gy = hasgy ? vgy : pr[1];
        n = project(L, c, s, own, pr, gx, gy, s->vis, nv);
        k = firstaccepted(L, c, s, own, u, n, fi, 2);
        if (k < 0) break;
        dx = gx - pr[0];
        dy = gy - pr[1];
        {
            const cl_bcol *cc = &s->cols[k];
            int gf = (hasgx ? ISINT(L, gxi) : prf & 1) | (hasgy ? ISINT(L, gyi) : prf >> 1 & 1) << 1;
            int cf = colflags(pr, prf, c->b.rect + 4 * cc->id, c->intf[cc->id], gx, gy, gf, cc);
            pushcol(L, c, cc, 2, lua_gettop(L) - 1, lua_gettop(L), pr, prf, dx, dy, cf, u, outi, len + 1);
            tf = cf >> 1 & 3;
        }
        lua_replace(L, coli);
        lua_replace(L, typei);
        lua_pop(L, 1);
        tx = s->cols[k].tx;
        ty = s->cols[k].ty;
        nx = s->cols[k].nx;
    }
    if (own) c->busy = 0;
    if (domove) {
        double nr[4];
        /* bump's move calls update(item, goalX, goalY): a nil goal raises update's error */
        nr[0] = hasgx ? vgx : checkn(L, gxi, "x");
        nr[1] = hasgy ? vgy : checkn(L, gyi, "y");
        nr[2] = c->b.rect[4 * id + 2];
        nr[3] = c->b.rect[4 * id + 3];
        /* the item may have been removed by a callback: bump's update would raise */
        if (calls != c->calls) {
            id = findid(L, u, 2);
            if (id < 0) return notadded(L, 2);
        }
        doupdate(L, c, u, id, nr, (c->intf[id] & 12) | ISINT(L, gxi) | ISINT(L, gyi) << 1);
    }
    if (outi) truncate(L, colsi, len + 1);
    lua_pushvalue(L, gxi);
    lua_pushvalue(L, gyi);
    lua_pushvalue(L, colsi);
    lua_pushinteger(L, len);
    return 4;
}

/* world:check(item, goalX, goalY, filter) -> goalX, goalY, cols, len. */
static int w_check(lua_State *L) {
    return checkmove(L, 0);
}

/* world:move(item, goalX, goalY, filter) -> goalX, goalY, cols, len. */
static int w_move(lua_State *L) {
    return checkmove(L, 1);
}

/* world:project(item, x,y,w,h, goalX, goalY, filter) -> collisions, len. */
static int w_project(lua_State *L) {
    bcore *c;
    bscratch *s;
    int outi, u, id, own, n, k, len = 0, fi = 9, resi, nskip, rf, gf;
    double r[4], gx, gy;
    c = qopen(L, 10, fi, &u);
    outi = outarg(L, 10, "project");
    checkrect(L, 3, r);
    rf = intflags(L, 3, 4);
    gf = readgoal(L, c, 0, 7, "goalX", &gx) ? ISINT(L, 7) : (gx = r[0], rf & 1);
    gf |= (readgoal(L, c, 0, 8, "goalY", &gy) ? ISINT(L, 8) : (gy = r[1], rf >> 1 & 1)) << 1;
    id = findid(L, u, 2);
    if (outi) lua_pushvalue(L, outi);
    else lua_newtable(L);
    resi = lua_gettop(L);
    s = takescratch(L, c, &own);
    if (own) c->busy = 1;
    nskip = 0;
    if (id >= 0) visit(L, c, s, own, &nskip, id);
    n = project(L, c, s, own, r, gx, gy, s->vis, nskip);
    for (k = 0; k < n; k++) {
        int oid = s->cols[k].id;
        if (!cl_bump_live(&c->b, oid)) continue;
        pushitem(L, u, oid);
        if (pushtype(L, c, own, fi, 2)) {
            const cl_bcol *cc = &s->cols[k];
            pushcol(L, c, cc, 2, lua_gettop(L) - 1, lua_gettop(L), r, rf, gx - r[0], gy - r[1],
                    colflags(r, rf, c->b.rect + 4 * cc->id, c->intf[cc->id], gx, gy, gf, cc), u, outi, len + 1);
            lua_rawseti(L, resi, ++len);
        }
        lua_pop(L, 2);
    }
    return qclose(L, c, own, resi, outi, len);
}

/* Pushes the out table at idx when it is one (not a bump world: an error naming the method name),
 * else a new table. */
static void pushout(lua_State *L, int idx, const char *name) {
    if (outarg(L, idx, name)) lua_pushvalue(L, idx);
    else lua_newtable(L);
}

/* qsort comparator of slots. */
static int idcmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Sorts n slots ascending (the deterministic order of query results). */
static void sortids(int *ids, int n) {
    int i, j;
    if (n > 24) {
        qsort(ids, (size_t)n, sizeof *ids, idcmp);
        return;
    }
    for (i = 1; i < n; i++) {
        int v = ids[i];
        for (j = i; j > 0 && ids[j - 1] > v; j--) ids[j] = ids[j - 1];
        ids[j] = v;
    }
}

/* 1 when the rect o strictly intersects the rect r (bump's rect.isIntersecting), or with point,
 * strictly contains the point r[0], r[1] by bump's margin (rect.containsPoint). */
static int boxhit(const double *o, const double *r, int point) {
    if (point)
        return r[0] - o[0] > CL_BUMP_DELTA && r[1] - o[1] > CL_BUMP_DELTA && o[0] + o[2] - r[0] > CL_BUMP_DELTA &&
               o[1] + o[3] - r[1] > CL_BUMP_DELTA;
    return r[0] < o[0] + o[2] && o[0] < r[0] + r[2] && r[1] < o[1] + o[3] && o[1] < r[1] + r[3];
}

/* Writes to s->cand the slots of the items strictly intersecting the rect r (or with point,
 * strictly containing the point r[0], r[1]) among bump's candidates for its grid cells, unsorted;
 * returns their number, or what cl_bump_cellcands returns when s is too small or memory ran out. */
static int boxcands(bcore *c, bscratch *s, const double r[4], int point) {
    double q[4], box[4];
    int n, k, m = 0;
    if (point) {
        q[0] = q[2] = floor(r[0] / c->cellsize) + 1;
        q[1] = q[3] = floor(r[1] / c->cellsize) + 1;
    } else {
        cl_bump_cellrect(c->cellsize, r[0], r[1], r[2], r[3], q);
    }
    box[0] = r[0];
    box[1] = r[1];
    box[2] = r[0] + r[2];
    box[3] = r[1] + r[3];
    n = cl_bump_cellcands(&c->b, box[0], box[1], box[2], box[3], q, s->cand, s->cap);
    if (n < 0 || n > s->cap) return n;
    for (k = 0; k < n; k++)
        if (boxhit(c->b.rect + 4 * s->cand[k], r, point)) s->cand[m++] = s->cand[k];
    return m;
}

/* world:queryRect(x,y,w,h, filter) -> items, len (items strictly intersecting the rect), or with
 * point, world:queryPoint(x,y, filter) -> items, len (items strictly containing the point, bump's
 * margin); both in slot order. */
static int boxquery(lua_State *L, int point) {
    int nargs = point ? 5 : 7, fi = nargs - 1, u, own, n, k, m = 0, resi;
    bcore *c = qopen(L, nargs, fi, &u);
    bscratch *s;
    double r[4];
    if (point) {
        r[0] = checkn(L, 2, "x");
        r[1] = checkn(L, 3, "y");
        r[2] = r[3] = 0;
    } else {
        checkrect(L, 2, r);
    }
    pushout(L, nargs, point ? "queryPoint" : "queryRect");
    resi = lua_gettop(L);
    s = takescratch(L, c, &own);
    do m = boxcands(c, s, r, point);
    while (!fits(L, c, s, own, m));
    sortids(s->cand, m);
    if (own) c->busy = 1;
    for (k = 0, n = 0; k < m; k++) {
        if (!cl_bump_live(&c->b, s->cand[k])) continue;
        pushitem(L, u, s->cand[k]);
        if (accepts(L, c, own, fi, 0)) lua_rawseti(L, resi, ++n);
        else lua_pop(L, 1);
    }
    return qclose(L, c, own, resi, lua_istable(L, nargs) ? nargs : 0, n);
}

/* world:queryRect(x,y,w,h, filter) -> items, len. */
static int w_queryrect(lua_State *L) {
    return boxquery(L, 0);
}

/* world:queryPoint(x,y, filter) -> items, len. */
static int w_querypoint(lua_State *L) {
    return boxquery(L, 1);
}

/* A core segment query: cl_bump_segment or cl_bump_rayhits. */
typedef int (*segfn)(cl_bump *, double, double, double, double, int *, int, cl_bseg *, int);

/* Prologue of the segment method name (x1,y1,x2,y2, filter at 6, nargs arguments, an out table
 * at 7 when nargs is 7): reads the segment into p, pushes the results table, takes a scratch (*s, *own: see takescratch) and runs the core query f into it; returns
 * the core (*u: the user value's index) and sets *n to the number of hits. */
static bcore *segopen(lua_State *L, int nargs, const char *name, segfn f, double p[4], bscratch **s, int *own,
                     int *u, int *n) {
    bcore *c = qopen(L, nargs, 6, u);
    p[0] = checkn(L, 2, "x1");
    p[1] = checkn(L, 3, "y1");
    p[2] = checkn(L, 4, "x2");
    p[3] = checkn(L, 5, "y2");
    if (nargs > 6) pushout(L, nargs, name);
    *s = takescratch(L, c, own);
    do *n = f(&c->b, p[0], p[1], p[2], p[3], (*s)->cand, (*s)->cap, (*s)->segs, (*s)->cap);
    while (!fits(L, c, *s, 0, *n));
    if (*own) c->busy = 1;
    return c;
}

/* world:querySegment / querySegmentWithCoords (withcoords) -> items or infos, len. */
static int segquery(lua_State *L, int withcoords) {
    bscratch *s;
    int u, own, n, k, len = 0, resi;
    double p[4];
    bcore *c = segopen(L, 7, withcoords ? "querySegmentWithCoords" : "querySegment", cl_bump_segment, p, &s, &own,
                       &u, &n);
    double dx = p[2] - p[0], dy = p[3] - p[1];
    int pf = intflags(L, 2, 4);  /* x1, y1, x2, y2 */
    resi = u + 1;
    for (k = 0; k < n; k++) {
        const cl_bseg *g = &s->segs[k];
        if (!cl_bump_live(&c->b, g->id)) continue;
        pushitem(L, u, g->id);
        if (!accepts(L, c, own, 6, 0)) {
            lua_pop(L, 1);
            continue;
        }
        if (withcoords) {
            lua_rawgeti(L, resi, len + 1);
            if (!lua_istable(L, -1) || !lua_istable(L, 7)) {
                lua_pop(L, 1);
                lua_createtable(L, 0, 7);
            }
            lua_insert(L, -2);
            lua_setfield(L, -2, "item");
            /* bump's ti1 and ti2 start as the integers 0 and 1 and become floats when changed */
            int i1 = g->ti1 == 0, i2 = g->ti2 == 1;
            pushnum(L, g->ti1, i1);
            lua_setfield(L, -2, "ti1");
            pushnum(L, g->ti2, i2);
            lua_setfield(L, -2, "ti2");
            pushnum(L, p[0] + dx * g->ti1, i1 && (pf & 5) == 5);
            lua_setfield(L, -2, "x1");
            pushnum(L, p[1] + dy * g->ti1, i1 && (pf & 10) == 10);
            lua_setfield(L, -2, "y1");
            pushnum(L, p[0] + dx * g->ti2, i2 && (pf & 5) == 5);
            lua_setfield(L, -2, "x2");
            pushnum(L, p[1] + dy * g->ti2, i2 && (pf & 10) == 10);
            lua_setfield(L, -2, "y2");
        }
        lua_rawseti(L, resi, ++len);
    }
    return qclose(L, c, own, resi, lua_istable(L, 7) ? 7 : 0, len);
}

/* world:querySegment(x1,y1,x2,y2, filter) -> items, len. */
static int w_querysegment(lua_State *L) {
    return segquery(L, 0);
}

/* world:querySegmentWithCoords(x1,y1,x2,y2, filter) -> infos, len. */
static int w_querysegmentwithcoords(lua_State *L) {
    return segquery(L, 1);
}

/* world:raycast(x1,y1,x2,y2, filter) -> item, x, y, nx, ny, ti (collide's closest raycast: the
 * first item along the segment the filter accepts, where the segment enters it, the normal of the
 * side entered, its fraction), or nil. */
static int w_raycast(lua_State *L) {
    bscratch *s;
    int u, own, n, k;
    double p[4];
    bcore *c = segopen(L, 6, "raycast", cl_bump_rayhits, p, &s, &own, &u, &n);
    for (k = 0; k < n; k++) {
        const cl_bseg *g = &s->segs[k];
        double t = g->ti1;
        if (!cl_bump_live(&c->b, g->id)) continue;
        pushitem(L, u, g->id);
        if (!accepts(L, c, own, 6, 0)) {
            lua_pop(L, 1);
            continue;
        }
        if (own) c->busy = 0;
        lua_pushnumber(L, p[0] + (p[2] - p[0]) * t);
        lua_pushnumber(L, p[1] + (p[3] - p[1]) * t);
        lua_pushnumber(L, g->nx);
        lua_pushnumber(L, g->ny);
        lua_pushnumber(L, t);
        return 6;
    }
    if (own) c->busy = 0;
    lua_pushnil(L);
    return 1;
}

/* module._bump.ghost(world, l, t, r, b): records the cell rect an FFI move or update left (for
 * countCells), as a classic update does. */
static int b_ghost(lua_State *L) {
    bcore *c = getcore(L, 5);
    int u = pushuv(L, lua_gettop(L)), i;
    double cr[4];
    for (i = 0; i < 4; i++) cr[i] = (double)luaL_checknumber(L, i + 2);
    addghost(L, c, u, cr);
    return 0;
}

#ifdef CL_LUAJIT
/* ---- LuaJIT FFI fast path (see lua/collide/bump.lua): plain C entry points taking the core
 * userdata (the FFI passes a full userdata as a pointer to its payload; the Lua side passes only
 * cores it made) and the item's slot number as U[0] gives it (slot + 1, as a double). Each returns
 * -1 for anything irregular or not handled here (a slot out of range, not integral or free, a
 * non-finite or non-positive number, an operation of this world in progress, a collision, a scratch
 * too small) WITHOUT changing anything; the wrapper then calls the classic method, which does the
 * whole work or raises the classic error. ---- */

/* The slot of slot number v in core c if it is a live one, else -1. */
static int ffslot(const bcore *c, double v) {
    int id;
    if (c->tag != &core_key || !(v >= 1 && v <= c->b.count)) return -1;
    id = (int)v - 1;
    return (double)(id + 1) == v && c->b.leaf[id] != CL_NULLNODE ? id : -1;
}

/* Moves slot id to n as doupdate does; returns 1, or 2 with the cells it left in out[0..3]. */
static int ffupdate(bcore *c, int id, const double *n, double *out) {
    double *r = c->b.rect + 4 * id;
    if (r[0] != n[0] || r[1] != n[1] || r[2] != n[2] || r[3] != n[3])
        if (cl_bump_update(&c->b, id, n[0], n[1], n[2], n[3], out)) return 2;
    return 1;
}

/* getRect: 1 with x, y, w, h in out[0..3]. */
static int ff_rect(void *ud, double slot, double *out) {
    const bcore *c = (const bcore *)ud;
    int id = ffslot(c, slot);
    if (id < 0) return -1;
    memcpy(out, c->b.rect + 4 * id, 4 * sizeof(double));
    return 1;
}

/* update(item, x, y [, w, h]) with w, h given when hasw, hash: 1 or 2 (see ffupdate). */
static int ff_update(void *ud, double slot, double x, double y, double w, double h, int hasw, int hash,
                     double *out) {
    bcore *c = (bcore *)ud;
    int id = ffslot(c, slot);
    double n[4];
    if (id < 0 || x - x != 0 || y - y != 0) return -1;
    n[0] = x;
    n[1] = y;
    n[2] = hasw ? w : c->b.rect[4 * id + 2];
    n[3] = hash ? h : c->b.rect[4 * id + 3];
    if (!(n[2] > 0) || !(n[3] > 0) || n[2] - n[2] != 0 || n[3] - n[3] != 0) return -1;
    return ffupdate(c, id, n, out);
}

/* check (domove 0) or move (1) toward (gx, gy) when nothing is in the way (no collision at all,
 * so no filter or response would be called): 1, or 2 after a move that left cells (see ffupdate). */
static int ff_move(void *ud, double slot, double gx, double gy, int domove, double *out) {
    bcore *c = (bcore *)ud;
    int id = ffslot(c, slot), n;
    double r[4];
    if (id < 0 || c->busy || gx - gx != 0 || gy - gy != 0) return -1;
    memcpy(r, c->b.rect + 4 * id, sizeof r);
    n = cl_bump_project(&c->b, r, gx, gy, &id, 1, c->s.cand, c->s.cap, c->s.cols, c->s.cap);
    if (n != 0) return -1;
    if (!domove) return 1;
    r[0] = gx;
    r[1] = gy;
    return ffupdate(c, id, r, out);
}

/* queryRect (kind 0: a, b, c, d = x, y, w, h), queryPoint (1: x, y) or querySegment (2: x1, y1,
 * x2, y2) without a filter: the count n of items, with their slot numbers in out[0..n-1] in the
 * classic method's order when n <= cap (nothing written when n > cap: call again with room). */
static int ff_query(void *ud, int kind, double a, double b, double cc, double d, int *out, int cap) {
    bcore *c = (bcore *)ud;
    bscratch *s = &c->s;
    double r[4];
    int n, k, m;
    if (c->tag != &core_key || c->busy || a - a != 0 || b - b != 0) return -1;
    if (kind != 1 && (cc - cc != 0 || d - d != 0)) return -1;
    if (kind == 0 && !(cc > 0 && d > 0)) return -1;
    if (kind == 2) {
        n = cl_bump_segment(&c->b, a, b, cc, d, s->cand, s->cap, s->segs, s->cap);
        if (n < 0 || n > s->cap) return -1;
        if (n > cap) return n;
        for (k = 0; k < n; k++) out[k] = s->segs[k].id + 1;
        return n;
    }
    r[0] = a;
    r[1] = b;
    r[2] = kind == 0 ? cc : 0;
    r[3] = kind == 0 ? d : 0;
    m = boxcands(c, s, r, kind == 1);
    if (m < 0 || m > s->cap) return -1;
    if (m > cap) return m;
    sortids(s->cand, m);
    for (k = 0; k < m; k++) out[k] = s->cand[k] + 1;
    return m;
}

/* The fast functions by name, for the Lua side (light userdata pointing at each pointer). */
static const struct {
    const char *name;
    void (*fn)(void);
} ffast[] = {
    {"rect", (void (*)(void))ff_rect},
    {"update", (void (*)(void))ff_update},
    {"move", (void (*)(void))ff_move},
    {"query", (void (*)(void))ff_query},
};
#endif

static const luaL_Reg methods[] = {
    {"raycast", w_raycast},
    {"add", w_add},
    {"remove", w_remove},
    {"update", w_update},
    {"move", w_move},
    {"check", w_check},
    {"project", w_project},
    {"getRect", w_getrect},
    {"hasItem", w_hasitem},
    {"countItems", w_countitems},
    {"getItems", w_getitems},
    {"countCells", w_countcells},
    {"queryRect", w_queryrect},
    {"queryPoint", w_querypoint},
    {"querySegment", w_querysegment},
    {"querySegmentWithCoords", w_querysegmentwithcoords},
    {NULL, NULL}
};

/* Adds module._bump = {new, setresponses, ghost, methods, and on LuaJIT fast} to the module table at
 * the top. */
void cl_open_bump(lua_State *L) {
    lua_createtable(L, 0, 2);
    lua_pushcfunction(L, core_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "collide.bump core");
    lua_setfield(L, -2, "__name");
    cl_rawsetp(L, LUA_REGISTRYINDEX, &core_key);
    lua_getglobal(L, "tostring");
    cl_rawsetp(L, LUA_REGISTRYINDEX, &tostring_key);
    lua_createtable(L, 0, 3);
    lua_pushcfunction(L, b_new);
    lua_setfield(L, -2, "new");
    lua_pushcfunction(L, b_setresponses);
    lua_setfield(L, -2, "setresponses");
    lua_pushcfunction(L, b_ghost);
    lua_setfield(L, -2, "ghost");
#ifdef CL_LUAJIT
    {
        size_t i;
        lua_createtable(L, 0, (int)(sizeof ffast / sizeof ffast[0]));
        for (i = 0; i < sizeof ffast / sizeof ffast[0]; i++) {
            lua_pushlightuserdata(L, (void *)&ffast[i].fn);
            lua_setfield(L, -2, ffast[i].name);
        }
        lua_setfield(L, -2, "fast");
    }
#endif
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "methods");
    lua_setfield(L, -2, "_bump");
}
