/* collide Lua binding: collide.World.
 *
 * The userdata holds the core world (csrc/core/world.h) plus a lock counter. Items are mapped
 * to the core's integer ids by two tables kept in the userdata's user value (so an item that
 * refers back to its world does not keep it alive): the user value U is the id -> item array
 * (U[id + 1] = item), U[0] is the item -> id table, U[-1] a spare empty table that move
 * returns when nothing was hit and no out table was given (so such moves make no garbage) and
 * U[-2] the spare collision tables (below).
 *
 * Filters. Calls that take a filter run, when one is given, as a protected call of the same C
 * function ("body") with the lock counter raised; the lock is lowered whether the body returns
 * or raises, and an error is then re-raised unchanged. While locked, add, remove, update,
 * translate, translatemany, move, check and destroy fail with "world is locked (called from a
 * filter)". The core never calls
 * Lua while it holds scratch state a nested query could reuse: queries copy their results into
 * the Lua table before the first filter call; raycast and sweep ask the core for the next hit
 * after the previous one; move keeps its state in buffers only move and check use.
 *
 * Memory: the core allocates through lua_getallocf's allocator; CL_ENOMEM is turned into the
 * error "not enough memory" after the core has left the world consistent. translatemany keeps
 * two scratch arrays in the userdata (per element of its largest batch, per item slot), grown
 * through the same allocator before it reads its first element; so are the fast item -> id maps
 * (lworld.fm, lworld.pc), grown by add before it changes anything. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "bind.h"
#include "world.h"

/* User values of full userdata: the only LUA_VERSION_NUM difference this file needs, kept here
 * because compat.h has no user-value helpers (5.1/LuaJIT use the environment table). */
#if LUA_VERSION_NUM == 501
#define w_newuserdata(L, sz) lua_newuserdata((L), (sz))
#define w_getuv(L, i) lua_getfenv((L), (i))
#define w_setuv(L, i) ((void)lua_setfenv((L), (i)))
#elif LUA_VERSION_NUM < 504
#define w_newuserdata(L, sz) lua_newuserdata((L), (sz))
#define w_getuv(L, i) ((void)lua_getuservalue((L), (i)))
#define w_setuv(L, i) ((void)lua_setuservalue((L), (i)))
#else
#define w_newuserdata(L, sz) lua_newuserdatauv((L), (sz), 1)
#define w_getuv(L, i) ((void)lua_getiuservalue((L), (i), 1))
#define w_setuv(L, i) ((void)lua_setiuservalue((L), (i), 1))
#endif

/* The slot k (0 <= k < cap) of the number at arg when it is the same table key as the integer k,
 * else -1 (the value at arg is known to be a number). Numbers equal as values are one table key
 * on every version: 5.3+ stores a float with an integral value as that integer (lua_tointegerx
 * converts exactly those floats: 2.0 and -0.0 give 2 and 0; and is quickest on integers); on
 * 5.1, 5.2 and LuaJIT the test is on the double (-0.0 equals 0), NaN and values outside
 * [0, cap) failing the range test before the conversion to int. Kept here with the user-value
 * macros: the only other version difference of this file. */
#if LUA_VERSION_NUM >= 503
static inline int w_numslot(lua_State *L, int arg, int cap) {
    int isint;
    lua_Integer k;
    if (cap == 0) return -1;            /* (no map yet: no conversion) */
    k = lua_tointegerx(L, arg, &isint);
    return isint && k >= 0 && k < (lua_Integer)cap ? (int)k : -1;
}
#else
static inline int w_numslot(lua_State *L, int arg, int cap) {
    double d;
    if (cap == 0) return -1;            /* (no map yet: no conversion) */
    d = (double)lua_tonumber(L, arg);
    return d >= 0 && d < (double)cap && d == (double)(int)d ? (int)d : -1;
}
#endif

/* Defined in common.c: pushes the four shape metatables used as upvalues by the type checks. */
int cl_pushclassupvalues(lua_State *L);

/* Scratch of world:translatemany, per batch element: the item's id and its offset (32 bytes: the
 * new shapes are computed again when they are applied, which is cheaper than storing them). */
typedef struct bitem {
    int id;
    cl_vec3 d;
} bitem;

/* Scratch of world:translatemany, per item id: the batch (stamp) that last saw the id, the
 * element where it first appeared and, once it appears again, its slot in the pending shapes
 * (-1 before). */
typedef struct bmark {
    int stamp, first, dup;
} bmark;

/* Slot of the pointer cache (see lworld): an item that is a GC object or a light userdata, by
 * its lua_topointer address and its type, and its id. */
typedef struct pslot {
    const void *p;
    int type, id;
} pslot;

typedef struct lworld {
    cl_world w;
    int alive;
    int lock;
    /* Fast item -> id maps, a cache of U[0] that only gives positive answers (a miss asks U[0]):
     * fm[k] = id + 1 for the item equal to the number k (0 <= k < fmcap; 0: ask U[0]); pc, a
     * direct-mapped table of pcmask + 1 slots (p NULL: empty) for items with an address. An
     * entry exists only while its item is in the world (set by add or by a lookup that found
     * the item in U[0], cleared by remove, all freed by destroy), so its address cannot be
     * reused by another object meanwhile: U holds the item. The entry's address is the one of
     * the value U holds (for strings, an equal string may be another object: it just misses). */
    int *fm; int fmcap;
    pslot *pc; int pcmask;
    /* translatemany scratch (allocated like the core's memory, kept for the next batch) */
    bitem *bi; int bicap;
    bmark *bm; int bmcap, bstamp;
    cl_shape *bs; int bscap;
    /* spare collision tables in U[-2][1..npool]: the tables move and check dropped from the end
     * of an out table (at most POOLMAX), reused before making new ones */
    int npool;
    /* a move's pending redo (domove): the item, its add order and the shape it moved to */
    int redo, redoid;
    /* bumped by every call that rewrites the core's result buffers (res, hits, cols) and by
     * release: a result builder compares it after each Lua allocation (see fresh) */
    unsigned gen;
    double redoseq;
    cl_shape redoshape;
} lworld;

static const char world_key = 0;    /* registry: the World metatable */
static const char bodies_key = 0;   /* registry: table of the cached body closures */

enum { POOLMAX = 16 };                  /* spare collision tables kept per world */

/* ---- helpers ---- */

/* Returns the world at arg 1, raising the standard errors if it is not one or is destroyed. */
/* Returns the World at arg 1 (alive or destroyed), or NULL when it is anything else: a full
 * userdata with the World metatable and a World's size (debug.setmetatable can give another
 * userdata that metatable; metamethods can be called by hand on any value). */
static lworld *toworld(lua_State *L) {
    lworld *lw = (lworld *)lua_touserdata(L, 1);
    int ok = 0;
    if (lw != NULL && lua_type(L, 1) == LUA_TUSERDATA && lua_rawlen(L, 1) == sizeof(lworld) &&
        lua_getmetatable(L, 1)) {
        cl_rawgetp(L, LUA_REGISTRYINDEX, &world_key);
        ok = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    return ok ? lw : NULL;
}

static lworld *checkworld(lua_State *L, const char *fname) {
    lworld *lw = toworld(L);
    if (lw == NULL) cl_typeerror(L, 1, fname, CL_MT_WORLD);
    if (!lw->alive) cl_argerror(L, 1, fname, "world is destroyed");
    return lw;
}

/* Raises the lock error when a filter of this world is running. */
static void checkunlocked(lua_State *L, const lworld *lw) {
    if (lw->lock) luaL_error(L, "world is locked (called from a filter)");
}

/* Result builders read the core's buffers (w.res, w.hits, w.cols) while they make Lua tables,
 * and any Lua allocation may run a finalizer that uses the world: a query there rewrites (and
 * may reallocate) those buffers, a destroy frees them (found in review: a use after free). So a
 * builder takes lw->gen once the core has answered and calls fresh before each read that
 * follows an allocation; a changed gen raises this error (the call's results are lost, nothing
 * was committed: a move commits only after its tables are built). */
static void fresh(lua_State *L, const lworld *lw, unsigned gen, const char *fname) {
    if (lw->gen != gen)
        luaL_error(L, "world used by a finalizer while '%s' built its results", fname);
}

/* Raises the memory error (called only once the world is consistent again). */
static int nomem(lua_State *L) {
    return luaL_error(L, "not enough memory");
}

/* Pushes the id -> item table U of the world at 1 and leaves it on top; returns its index. */
static int pushitems(lua_State *L) {
    w_getuv(L, 1);
    return lua_gettop(L);
}

/* ---- fast maps (lworld.fm, lworld.pc) ---- */

/* 1 for the types whose lua_topointer address identifies the value among live values of that
 * type (two values with the same type and address are the same table key); strings too, but on
 * 5.1-5.3 lua_topointer gives NULL for them (no entry). */
static inline int haspointer(int type) {
    return type == LUA_TTABLE || type == LUA_TUSERDATA || type == LUA_TLIGHTUSERDATA ||
           type == LUA_TFUNCTION || type == LUA_TTHREAD || type == LUA_TSTRING;
}

/* The pc slot of address p. */
static inline pslot *pcslot(const lworld *lw, const void *p) {
    uintptr_t h = (uintptr_t)p;
    return &lw->pc[(int)(((h >> 4) ^ (h >> 13)) & (uintptr_t)lw->pcmask)];
}

/* fastid's answers when the fast maps do not know the item: it has a slot (that a lookup in
 * U[0] that finds it may fill), or none (a number out of fm's range, a value without address). */
enum { F_MISS = -1, F_NOSLOT = -2 };

/* The id of the item at arg from the fast maps, else F_MISS or F_NOSLOT. */
static inline int fastid(lua_State *L, const lworld *lw, int arg) {
    int type;
    if (lw->fm == NULL && lw->pc == NULL) return F_NOSLOT;
    type = lua_type(L, arg);
    if (type == LUA_TNUMBER) {
        int k = w_numslot(L, arg, lw->fmcap);
        return k >= 0 ? lw->fm[k] - 1 : F_NOSLOT;
    }
    if (lw->pc != NULL && haspointer(type)) {
        const void *p = lua_topointer(L, arg);
        const pslot *e;
        if (p == NULL) return F_NOSLOT;
        e = pcslot(lw, p);
        return e->p == p && e->type == type ? e->id : F_MISS;
    }
    return F_NOSLOT;
}

/* Records in the fast maps that the item U[id + 1] (U at index u) has the id (clear 0), or
 * forgets it before it leaves the world (clear 1: only an entry that is still its own); nothing
 * when it has no slot (a number out of fm's range, a value without an address, no pc yet). */
static void fastput(lua_State *L, lworld *lw, int u, int id, int clear) {
    int type;
    lua_rawgeti(L, u, id + 1);
    type = lua_type(L, -1);
    if (type == LUA_TNUMBER) {
        int k = w_numslot(L, -1, lw->fmcap);
        if (k >= 0) lw->fm[k] = clear ? 0 : id + 1;
    } else if (lw->pc != NULL && haspointer(type)) {
        const void *p = lua_topointer(L, -1);
        if (p != NULL) {
            pslot *e = pcslot(lw, p);
            if (!clear) {
                e->p = p;
                e->type = type;
                e->id = id;
            } else if (e->p == p && e->type == type) {
                e->p = NULL;
            }
        }
    }
    lua_pop(L, 1);
}
#define fastset(L, lw, u, id) fastput((L), (lw), (u), (id), 0)
#define fastclear(L, lw, u, id) fastput((L), (lw), (u), (id), 1)

/* Frees the fast maps (the world is being freed). */
static void freefast(lworld *lw) {
    if (lw->fm) lw->w.alloc(lw->w.ud, lw->fm, (size_t)lw->fmcap * sizeof(int), 0);
    if (lw->pc) lw->w.alloc(lw->w.ud, lw->pc, (size_t)(lw->pcmask + 1) * sizeof(pslot), 0);
    lw->fm = NULL; lw->fmcap = 0;
    lw->pc = NULL; lw->pcmask = 0;
}

/* Grows the fast maps so that the item at arg, about to be added as the world's count + 1-th
 * item, gets a slot: fm up to its number when that is a whole number below 4 * count + 1024
 * (memory stays proportional to the count), pc to at least 2 * (count + 1) slots. Returns 0, or
 * -1 when the allocator fails (the maps are then as they were). */
static int fastgrow(lua_State *L, lworld *lw, int arg) {
    int type = lua_type(L, arg), count = lw->w.count;
    if (type == LUA_TNUMBER) {
        int bound = count < (0x7fffffff - 1024) / 8 ? 4 * count + 1024 : 0x7fffffff / 2;
        int k = w_numslot(L, arg, bound);
        if (k >= lw->fmcap) {
            size_t ncap = (size_t)k + (size_t)k / 2 + 64;
            int *nf;
            if (ncap > (size_t)bound) ncap = (size_t)bound;
            nf = (int *)lw->w.alloc(lw->w.ud, lw->fm, (size_t)lw->fmcap * sizeof(int), ncap * sizeof(int));
            if (nf == NULL) return -1;
            memset(nf + lw->fmcap, 0, (ncap - (size_t)lw->fmcap) * sizeof(int));
            lw->fm = nf;
            lw->fmcap = (int)ncap;
        }
    } else if (haspointer(type) && count < 0x7fffffff / 8 &&
               (lw->pc == NULL || lw->pcmask + 1 < 2 * (count + 1))) {
        int n = 64, i, omask = lw->pcmask;
        pslot *np, *op = lw->pc;
        while (n < 2 * (count + 1)) n *= 2;
        np = (pslot *)lw->w.alloc(lw->w.ud, NULL, 0, (size_t)n * sizeof(pslot));
        if (np == NULL) return -1;
        for (i = 0; i < n; i++) np[i].p = NULL;
        lw->pc = np;
        lw->pcmask = n - 1;
        if (op != NULL) {           /* rehash (entries that meet in one slot: the last stays) */
            for (i = 0; i <= omask; i++)
                if (op[i].p != NULL) *pcslot(lw, op[i].p) = op[i];
            lw->w.alloc(lw->w.ud, op, (size_t)(omask + 1) * sizeof(pslot), 0);
        }
    }
    return 0;
}

/* findid after fastid gave fast < 0: the lookup in U[0] (leaves 2 values on the stack), which
 * fills the fast map on F_MISS. */
static inline int slowid(lua_State *L, lworld *lw, int u, int arg, int fast) {
    int isnum, id;
    lua_rawgeti(L, u, 0);
    lua_pushvalue(L, arg);
    lua_rawget(L, -2);          /* a nil or NaN key reads nil */
    id = (int)lua_tonumberx(L, -1, &isnum);
    if (!isnum) return -1;
    if (fast == F_MISS) fastset(L, lw, u, id);
    return id;
}

/* Returns the id of the item at arg (U at index u), or -1 when it is not in the world. */
static int findid(lua_State *L, lworld *lw, int u, int arg) {
    int id = fastid(L, lw, arg);
    if (id >= 0) return id;
    id = slowid(L, lw, u, arg, id);
    lua_pop(L, 2);
    return id;
}

/* Returns the id of the item at arg or raises "item is not in the world". */
static int checkid(lua_State *L, lworld *lw, int u, int arg, const char *fname) {
    int id = findid(L, lw, u, arg);
    if (id < 0) cl_argerror(L, arg, fname, "item is not in the world");
    return id;
}

/* Upvalues of every World method and of the cached bodies, after the
 * four shape metatables every binding function gets: the World metatable, then the interned
 * strings move's collision tables use (set with lua_rawset: no C-string hashing per field). */
enum {
    UV_WORLD = 5, UV_OTHER, UV_TYPE, UV_T, UV_NX, UV_NY, UV_NZ,
    UV_RESP /* + cl_resp: "ignore", "slide", "touch", "cross", "bounce" */, UV_LAST = UV_RESP + 4
};
static const char *const uv_names[] = { "other", "type", "t", "nx", "ny", "nz",
                                        "ignore", "slide", "touch", "cross", "bounce" };

/* Pushes the upvalues above (4 shape metatables, World metatable, strings); returns their count. */
static int pushhotupvalues(lua_State *L) {
    int n = cl_pushclassupvalues(L), i;
    cl_rawgetp(L, LUA_REGISTRYINDEX, &world_key);
    for (i = 0; i < UV_LAST - UV_WORLD; i++) lua_pushstring(L, uv_names[i]);
    return n + 1 + UV_LAST - UV_WORLD;
}

/* Returns the live world at arg 1 of a method (same checks as toworld, the metatable
 * compared with the UV_WORLD upvalue; the size check also rejects light userdata); anything
 * else goes to checkworld for the standard error. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))      /* on every method's path: the call costs a tenth of it */
#endif
static inline lworld *hotworld(lua_State *L, const char *fname) {
    lworld *lw = (lworld *)lua_touserdata(L, 1);
    if (lw != NULL && lua_rawlen(L, 1) == sizeof(lworld) && lua_getmetatable(L, 1)) {
        /* two tables are the same table exactly when lua_topointer gives the same address
         * (a little cheaper than lua_rawequal on 5.4) */
        int same = lua_topointer(L, -1) == lua_topointer(L, lua_upvalueindex(UV_WORLD));
        lua_pop(L, 1);
        if (same && lw->alive) return lw;
    }
    return checkworld(L, fname);
}

/* hotid's lookup in U[0] after fastid gave fast < 0 (kept out of line). */
static int hotslow(lua_State *L, lworld *lw, int arg, int fast, const char *fname) {
    int id = slowid(L, lw, pushitems(L), arg, fast);
    if (id < 0) cl_argerror(L, arg, fname, "item is not in the world");
    lua_pop(L, 3);
    return id;
}

/* Returns the id of the item at arg (the fast maps, else one lookup in U[0]) or raises "item is
 * not in the world"; leaves the stack as it was. */
static inline int hotid(lua_State *L, lworld *lw, int arg, const char *fname) {
    int id = fastid(L, lw, arg);
    return id >= 0 ? id : hotslow(L, lw, arg, id, fname);
}

/* Raises unless the value at arg is nil/absent or a function. */
static int optfilter(lua_State *L, int arg, const char *fname) {
    if (lua_isnoneornil(L, arg)) return 0;
    if (lua_type(L, arg) != LUA_TFUNCTION) cl_typeerror(L, arg, fname, "function");
    return 1;
}

/* Raises unless the value at arg is nil/absent or a table; returns 1 for a table. */
static int opttable(lua_State *L, int arg, const char *fname) {
    if (lua_isnoneornil(L, arg)) return 0;
    if (lua_type(L, arg) != LUA_TTABLE) cl_typeerror(L, arg, fname, "table");
    return 1;
}

/* Sets t[i] = nil for i > n up to the table's border (the table at index t). */
static void cleartail(lua_State *L, int t, int n) {
    int len = (int)lua_rawlen(L, t), i;
    for (i = n + 1; i <= len; i++) {
        lua_pushnil(L);
        lua_rawseti(L, t, i);
    }
    for (i = (len > n ? len : n) + 1;; i++) {   /* anything left after a hole */
        int nil;
        lua_rawgeti(L, t, i);
        nil = lua_isnil(L, -1);
        lua_pop(L, 1);
        if (nil) break;
        lua_pushnil(L);
        lua_rawseti(L, t, i);
    }
}

/* Pushes the result table: out (arg) when given, else a new table for n entries. */
static int pushout(lua_State *L, int arg, int n) {
    if (!lua_isnoneornil(L, arg)) lua_pushvalue(L, arg);
    else lua_createtable(L, n, 0);
    return lua_gettop(L);
}

/* Calls the filter at index f with the value at index v; returns its truthiness. */
static int callfilter(lua_State *L, int f, int v) {
    int keep;
    lua_pushvalue(L, f);
    lua_pushvalue(L, v);
    lua_call(L, 1, 1);
    keep = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return keep;
}

/* Keeps the entries 1..n of table t for which the filter f is truthy (entries are items, or
 * hit tables whose field key holds the item); kept entries move to the front in order, the
 * rest are swapped behind them (so reused inner tables stay in out). Returns the kept count. */
static int filtertable(lua_State *L, int t, int n, int f, const char *key) {
    int i, k = 0;
    for (i = 1; i <= n; i++) {
        int keep;
        lua_rawgeti(L, t, i);
        if (key) {
            lua_getfield(L, -1, key);
            keep = callfilter(L, f, lua_gettop(L));
            lua_pop(L, 1);
        } else {
            keep = callfilter(L, f, lua_gettop(L));
        }
        if (keep) {
            k++;
            if (k != i) {
                lua_rawgeti(L, t, k);
                lua_rawseti(L, t, i);
                lua_rawseti(L, t, k);
            } else {
                lua_pop(L, 1);
            }
        } else {
            lua_pop(L, 1);
        }
    }
    return k;
}

/* Pushes the inner table at out[i], creating it (with nrec fields) when absent. */
static void inner(lua_State *L, int out, int i, int nrec) {
    lua_rawgeti(L, out, i);
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, nrec);
        lua_pushvalue(L, -1);
        lua_rawseti(L, out, i);
    }
}

/* Sets field k of the table on top to number v. */
static void setnum(lua_State *L, const char *k, double v) {
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static int b_query(lua_State *L);
static int b_querypoint(lua_State *L);
static int b_raycast(lua_State *L);
static int b_raycastall(lua_State *L);
static int b_sweep(lua_State *L);
static int b_move(lua_State *L);
static int b_check(lua_State *L);

/* Bodies by index, cached as closures in the registry (no allocation per call on 5.1). */
enum { B_QUERY = 1, B_QUERYPOINT, B_RAYCAST, B_RAYCASTALL, B_SWEEP, B_MOVE, B_CHECK, B_COUNT };
static const lua_CFunction body_fns[B_COUNT] = {
    NULL, b_query, b_querypoint, b_raycast, b_raycastall, b_sweep, b_move, b_check
};

/* Commits the move domove left pending, unless a finalizer run by an allocation since then
 * removed the item or destroyed the world (the item's slot must still hold the same add). */
static void redo(lworld *lw) {
    if (!lw->redo) return;
    lw->redo = 0;
    if (lw->alive && lw->w.items[lw->redoid].proxy != CL_NULLNODE &&
        lw->w.items[lw->redoid].seq == lw->redoseq)
        cl_world_update(&lw->w, lw->redoid, &lw->redoshape);
}

/* Runs body directly, or, when the filter argument is given, as a protected call with the world
 * locked; the lock is released on both paths and errors are re-raised. Returns body's results. */
static int run(lua_State *L, int filterarg, int body, const char *fname) {
    lworld *lw;
    int n, st;
    /* (w_move runs a move without a filter itself: only it commits that move's redo) */
    if (lua_isnoneornil(L, filterarg)) return body_fns[body](L);
    lw = hotworld(L, fname);
    n = lua_gettop(L);
    cl_rawgetp(L, LUA_REGISTRYINDEX, &bodies_key);
    lua_rawgeti(L, -1, body);
    lua_remove(L, -2);
    lua_insert(L, 1);
    lw->lock++;
    st = lua_pcall(L, n, LUA_MULTRET, 0);
    lw->lock--;
    if (st != 0) {
        lw->redo = 0;           /* a move's results were not delivered: it stays undone */
        return lua_error(L);
    }
    redo(lw);
    return lua_gettop(L);
}

/* ---- constructor and bookkeeping ---- */

/* collide.World([options]) -> world. */
static int w_new(lua_State *L) {
    double margin = 0.1;
    lworld *lw;
    void *ud;
    lua_Alloc af;
    if (!lua_isnoneornil(L, 1)) {
        if (lua_type(L, 1) != LUA_TTABLE) cl_typeerror(L, 1, "World", "table");
        lua_pushnil(L);
        while (lua_next(L, 1)) {
            if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "margin") == 0) {
                int isnum;
                double m;
                if (lua_type(L, -1) != LUA_TNUMBER) cl_argerror(L, 1, "World", "margin is not a number");
                m = (double)lua_tonumberx(L, -1, &isnum);
                if (!isfinite(m)) cl_argerror(L, 1, "World", "number is not finite");
                if (m < 0) cl_argerror(L, 1, "World", "margin is negative");
                margin = m;
            } else {
                const char *k;
                if (lua_type(L, -2) == LUA_TSTRING || lua_type(L, -2) == LUA_TNUMBER) {
                    lua_pushvalue(L, -2);
                    k = lua_tostring(L, -1);
                } else {
                    k = luaL_typename(L, -2);
                }
                lua_pushfstring(L, "unknown option '%s'", k);
                cl_argerror(L, 1, "World", lua_tostring(L, -1));
            }
            lua_pop(L, 1);
        }
    }
    af = lua_getallocf(L, &ud);
    lw = (lworld *)w_newuserdata(L, sizeof(lworld));
    cl_world_init(&lw->w, margin, (cl_alloc)af, ud);
    lw->alive = 1;
    lw->lock = 0;
    lw->bi = NULL; lw->bm = NULL; lw->bs = NULL;
    lw->bicap = lw->bmcap = lw->bscap = lw->bstamp = 0;
    lw->redo = 0;
    lw->fm = NULL; lw->fmcap = 0;
    lw->pc = NULL; lw->pcmask = 0;
    lw->npool = 0;
    lw->gen = 0;
    lua_createtable(L, 0, 3);
    lua_newtable(L);
    lua_rawseti(L, -2, 0);
    lua_newtable(L);
    lua_rawseti(L, -2, -1);
    lua_createtable(L, POOLMAX, 0);     /* sized: adding to it never allocates */
    lua_rawseti(L, -2, -2);
    w_setuv(L, -2);
    cl_rawgetp(L, LUA_REGISTRYINDEX, &world_key);
    lua_setmetatable(L, -2);
    return 1;
}

/* world:add(item, shape) -> item. */
static int w_add(lua_State *L) {
    lworld *lw = hotworld(L, "add");
    cl_shape s;
    int u, id;
    checkunlocked(L, lw);
    if (lua_isnoneornil(L, 2)) cl_argerror(L, 2, "add", "item is nil");
    if (lua_type(L, 2) == LUA_TNUMBER) {
        double x = (double)lua_tonumber(L, 2);
        if (x != x) cl_argerror(L, 2, "add", "item is NaN");
    }
    cl_checkshape(L, 3, "add", &s);
    lua_settop(L, 3);
    u = pushitems(L);
    if (findid(L, lw, u, 2) >= 0) cl_argerror(L, 2, "add", "item is already in the world");
    if (cl_world_reserve(&lw->w) != CL_OK || fastgrow(L, lw, 2) != 0) return nomem(L);
    id = cl_world_nextid(&lw->w);
    /* Lua tables first (they may raise); a stale id -> item entry for an unused id is harmless */
    lua_pushvalue(L, 2);
    lua_rawseti(L, u, id + 1);
    lua_rawgeti(L, u, 0);
    lua_pushvalue(L, 2);
    lua_pushinteger(L, id);
    lua_rawset(L, -3);
    cl_world_add(&lw->w, &s);   /* cannot fail after the reserve; returns id */
    fastset(L, lw, u, id);
    lua_pushvalue(L, 2);
    return 1;
}

/* world:remove(item). */
static int w_remove(lua_State *L) {
    lworld *lw = hotworld(L, "remove");
    int u, id;
    checkunlocked(L, lw);
    lua_settop(L, 2);
    u = pushitems(L);
    id = checkid(L, lw, u, 2, "remove");
    fastclear(L, lw, u, id);
    cl_world_remove(&lw->w, id);
    lua_rawgeti(L, u, 0);
    lua_pushvalue(L, 2);
    lua_pushnil(L);
    lua_rawset(L, -3);
    lua_pushnil(L);
    lua_rawseti(L, u, id + 1);
    return 0;
}

/* world:update(item, shape): the hot path is one metatable comparison, one item lookup and the
 * core update (shape read straight from its userdata). */
static int w_update(lua_State *L) {
    lworld *lw = hotworld(L, "update");
    cl_shape s;
    int id;
    checkunlocked(L, lw);
    id = hotid(L, lw, 2, "update");
    cl_checkshape(L, 3, "update", &s);
    cl_world_update(&lw->w, id, &s);
    return 0;
}

/* shapefinite(s moved by d) without making the moved copy: the same additions as
 * cl_shape_translate, on the fields it changes. */
static int movedfinite(const cl_shape *s, cl_vec3 d) {
    const cl_vec3 *p = s->kind == CL_AABB ? &s->u.aabb.min : s->kind == CL_OBB ? &s->u.obb.c : &s->u.sphere.c;
    const cl_vec3 *q = s->kind == CL_AABB ? &s->u.aabb.max : p;
    double a, b;
    a = p->x + d.x; b = q->x + d.x;
    if ((a - a) + (b - b) != 0) return 1;
    a = p->y + d.y; b = q->y + d.y;
    if ((a - a) + (b - b) != 0) return 2;
    a = p->z + d.z; b = q->z + d.z;
    if ((a - a) + (b - b) != 0) return 3;
    return 0;
}

/* Sets *out to s moved by d, copying only the fields its kind uses. */
static void moved(const cl_shape *s, cl_vec3 d, cl_shape *out) {
    out->kind = s->kind;
    if (s->kind == CL_AABB) out->u.aabb = s->u.aabb;
    else if (s->kind == CL_OBB) out->u.obb = s->u.obb;
    else out->u.sphere = s->u.sphere;
    cl_shape_translate(out, d);
}

/* world:translate(item, dx, dy, dz): moves the item's stored shape by the displacement with no
 * collision response (keeps its order). Raises, changing nothing, on a bad number or a result
 * that is not finite (naming dx, dy or dz). */
static int w_translate(lua_State *L) {
    lworld *lw = hotworld(L, "translate");
    cl_vec3 d;
    int id, axis;
    checkunlocked(L, lw);
    id = hotid(L, lw, 2, "translate");
    d = cl_checkvec(L, 3, "translate");
    /* in place in the core (no shape copies); the same finiteness check as shapefinite, world
     * unchanged when an axis fails */
    axis = cl_world_translate(&lw->w, id, d);
    if (axis) return cl_argerror(L, 2 + axis, "translate", "result is not finite");
    return 0;
}

/* Returns the scratch block p of *cap elements of size sz grown to hold at least need (>= 1)
 * through the world's allocator (new elements zeroed, *cap updated), or NULL when that fails
 * (p is then left as it was). */
static void *growscratch(lworld *lw, void *p, int *cap, size_t sz, int need) {
    size_t ncap;
    void *np;
    if (need < 1) need = 1;
    if (need <= *cap) return p;
    if ((size_t)need > (size_t)0x7fffffff / sz) return NULL;
    ncap = (size_t)need + (size_t)need / 2 + 16;
    if (ncap > (size_t)0x7fffffff / sz) ncap = (size_t)need;
    np = lw->w.alloc(lw->w.ud, p, (size_t)*cap * sz, ncap * sz);
    if (np == NULL) return NULL;
    memset((char *)np + (size_t)*cap * sz, 0, (ncap - (size_t)*cap) * sz);
    *cap = (int)ncap;
    return np;
}

/* Frees the translatemany scratch. */
static void freescratch(lworld *lw) {
    if (lw->bi) lw->w.alloc(lw->w.ud, lw->bi, (size_t)lw->bicap * sizeof(bitem), 0);
    if (lw->bm) lw->w.alloc(lw->w.ud, lw->bm, (size_t)lw->bmcap * sizeof(bmark), 0);
    if (lw->bs) lw->w.alloc(lw->w.ud, lw->bs, (size_t)lw->bscap * sizeof(cl_shape), 0);
    lw->bi = NULL; lw->bm = NULL; lw->bs = NULL;
    lw->bicap = lw->bmcap = lw->bscap = lw->bstamp = 0;
    lw->redo = 0;
}

/* Raises "bad argument #arg to 'translatemany' (number expected at index i, got T)" for the
 * non-number at idx (T its __name or type name). Never returns. */
static int batchtypeerror(lua_State *L, int arg, int i, int idx) {
    const char *got;
    if (luaL_getmetafield(L, idx, "__name") && lua_type(L, -1) == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else
        got = luaL_typename(L, idx);
    lua_pushfstring(L, "number expected at index %d, got %s", i, got);
    return cl_argerror(L, arg, "translatemany", lua_tostring(L, -1));
}

/* Raises "bad argument #arg to 'translatemany' (<what> at index i <reason>)". Never returns. */
static int batcherror(lua_State *L, int arg, const char *what, int i, const char *reason) {
    lua_pushfstring(L, "%s at index %d %s", what, i, reason);
    return cl_argerror(L, arg, "translatemany", lua_tostring(L, -1));
}

/* world:translatemany(items, dx, dy, dz): world:translate(items[i], dx[i], dy[i], dz[i]) for
 * i = 1 .. #items in that order, as one call. The arrays are read raw. Every element is checked
 * (and every result found finite) before the first change, so an error changes nothing. An item may
 * appear more than once: its translations add up in order, as separate calls would. */
static int w_translatemany(lua_State *L) {
    lworld *lw = hotworld(L, "translatemany");
    int n, i, map, stamp, ndup = 0;
    checkunlocked(L, lw);
    for (i = 2; i <= 5; i++)
        if (lua_type(L, i) != LUA_TTABLE) cl_typeerror(L, i, "translatemany", "table");
    lua_settop(L, 5);
    w_getuv(L, 1);
    lua_rawgeti(L, -1, 0);
    map = lua_gettop(L);                /* item -> id, at 7 */
    n = (int)lua_rawlen(L, 2);
    if (n == 0) return 0;
    {
        bitem *bi = (bitem *)growscratch(lw, lw->bi, &lw->bicap, sizeof(bitem), n);
        bmark *bm;
        if (bi == NULL) return nomem(L);
        lw->bi = bi;
        bm = (bmark *)growscratch(lw, lw->bm, &lw->bmcap, sizeof(bmark), lw->w.cap);
        if (bm == NULL) return nomem(L);
        lw->bm = bm;
    }
    if (lw->bstamp == 0x7fffffff) {     /* restart the stamps: forget every old mark */
        memset(lw->bm, 0, (size_t)lw->bmcap * sizeof(bmark));
        lw->bstamp = 0;
    }
    stamp = ++lw->bstamp;
    /* pass 1: ids and offsets, and whether each result is finite, in element order; nothing
     * changes (only the pending shapes of items listed more than once are stored) */
    for (i = 1; i <= n; i++) {
        bitem *b = &lw->bi[i - 1];
        bmark *m;
        int isnum, okx, oky, okz, axis, id, fast;
        lua_rawgeti(L, 2, i);
        fast = fastid(L, lw, -1);
        if (fast >= 0) {
            id = fast;
        } else {
            lua_rawget(L, map);
            id = (int)lua_tonumberx(L, -1, &isnum);
            if (!isnum) return batcherror(L, 2, "item", i, "is not in the world");
            if (fast == F_MISS) fastset(L, lw, map - 1, id);
        }
        b->id = id;
        lua_rawgeti(L, 3, i);
        lua_rawgeti(L, 4, i);
        lua_rawgeti(L, 5, i);
        b->d.x = (double)lua_tonumberx(L, -3, &okx);
        b->d.y = (double)lua_tonumberx(L, -2, &oky);
        b->d.z = (double)lua_tonumberx(L, -1, &okz);
        if (!((okx & oky & okz) && (b->d.x - b->d.x) + (b->d.y - b->d.y) + (b->d.z - b->d.z) == 0)) {
            if (!okx) return batchtypeerror(L, 3, i, -3);
            if (b->d.x - b->d.x != 0) return batcherror(L, 3, "number", i, "is not finite");
            if (!oky) return batchtypeerror(L, 4, i, -2);
            if (b->d.y - b->d.y != 0) return batcherror(L, 4, "number", i, "is not finite");
            if (!okz) return batchtypeerror(L, 5, i, -1);
            return batcherror(L, 5, "number", i, "is not finite");
        }
        lua_settop(L, map);
        m = &lw->bm[id];
        if (m->stamp != stamp) {        /* first appearance: moves the world's shape */
            m->stamp = stamp;
            m->first = i - 1;
            m->dup = -1;
            axis = movedfinite(cl_world_shape(&lw->w, id), b->d);
        } else {                        /* moves the result of the item's earlier elements */
            if (m->dup < 0) {
                cl_shape *bs = (cl_shape *)growscratch(lw, lw->bs, &lw->bscap, sizeof(cl_shape), ndup + 1);
                if (bs == NULL) return nomem(L);
                lw->bs = bs;
                m->dup = ndup++;
                moved(cl_world_shape(&lw->w, id), lw->bi[m->first].d, &lw->bs[m->dup]);
            }
            axis = movedfinite(&lw->bs[m->dup], b->d);
            if (!axis) moved(&lw->bs[m->dup], b->d, &lw->bs[m->dup]);
        }
        if (axis) return batcherror(L, 2 + axis, "result", i, "is not finite");
    }
    /* pass 2: the same additions, applied in order, in place (cl_world_translate adds exactly
     * as moved() does); nothing can fail any more: pass 1 checked every result is finite */
    for (i = 0; i < n; i++) (void)cl_world_translate(&lw->w, lw->bi[i].id, lw->bi[i].d);
    return 0;
}

/* world:has(item) -> boolean. */
static int w_has(lua_State *L) {
    int u;
    lworld *lw = hotworld(L, "has");
    lua_settop(L, 2);
    u = pushitems(L);
    lua_pushboolean(L, findid(L, lw, u, 2) >= 0);
    return 1;
}

/* world:count() -> integer. */
static int w_count(lua_State *L) {
    lworld *lw = hotworld(L, "count");
    lua_pushinteger(L, lw->w.count);
    return 1;
}

/* world:shape(item) -> a new copy of its shape. */
static int w_shape(lua_State *L) {
    lworld *lw = hotworld(L, "shape");
    int u, id;
    lua_settop(L, 2);
    u = pushitems(L);
    id = checkid(L, lw, u, 2, "shape");
    cl_pushshape(L, cl_world_shape(&lw->w, id));
    return 1;
}

/* Fills the result table (out at arg outarg, or new) with the items of ids[0..n-1], applies
 * the filter at filterarg, clears the rest; pushes table and count. Returns 2. */
static int pushitemlist(lua_State *L, lworld *lw, int n, int filterarg, int outarg,
                        const char *fname) {
    unsigned gen = lw->gen;
    int u = pushitems(L), t = pushout(L, outarg, n), i, k = n;
    for (i = 0; i < n; i++) {
        fresh(L, lw, gen, fname);           /* pushout and growing out allocate */
        lua_rawgeti(L, u, lw->w.res[i] + 1);
        lua_rawseti(L, t, i + 1);
    }
    if (!lua_isnoneornil(L, filterarg)) k = filtertable(L, t, n, filterarg, NULL);
    if (outarg > 0) cleartail(L, t, k);
    lua_pushvalue(L, t);
    lua_pushinteger(L, k);
    return 2;
}

/* body of world:query(shape[, filter[, out]]) -> array, n. */
static int b_query(lua_State *L) {
    lworld *lw = hotworld(L, "query");
    cl_shape s;
    int n;
    cl_checkshape(L, 2, "query", &s);
    optfilter(L, 3, "query");
    opttable(L, 4, "query");
    lua_settop(L, 4);
    lw->gen++;
    n = cl_world_query(&lw->w, &s);
    if (n < 0) return nomem(L);
    return pushitemlist(L, lw, n, 3, 4, "query");
}

/* body of world:querypoint(x, y, z[, filter[, out]]) -> array, n. */
static int b_querypoint(lua_State *L) {
    lworld *lw = hotworld(L, "querypoint");
    cl_vec3 p;
    int n;
    p.x = cl_checkfinite(L, 2, "querypoint");
    p.y = cl_checkfinite(L, 3, "querypoint");
    p.z = cl_checkfinite(L, 4, "querypoint");
    optfilter(L, 5, "querypoint");
    opttable(L, 6, "querypoint");
    lua_settop(L, 6);
    lw->gen++;
    n = cl_world_querypoint(&lw->w, p);
    if (n < 0) return nomem(L);
    return pushitemlist(L, lw, n, 5, 6, "querypoint");
}

/* Pushes item, t, nx, ny, nz of a hit and returns 5. */
static int pushwhit(lua_State *L, int u, const cl_whit *h) {
    lua_rawgeti(L, u, h->item + 1);
    lua_pushnumber(L, h->t);
    lua_pushnumber(L, h->n.x);
    lua_pushnumber(L, h->n.y);
    lua_pushnumber(L, h->n.z);
    return 5;
}

/* A closest-hit query (a ray with its limit, or a swept shape) and its "next hit after (at, aseq)"
 * step, for firsthit. */
typedef struct hitquery { cl_ray ray; double maxt; cl_shape s; cl_vec3 d; } hitquery;
typedef int (*nexthit)(lworld *lw, const hitquery *q, double at, double aseq, cl_whit *h);
static int nextray(lworld *lw, const hitquery *q, double at, double aseq, cl_whit *h) {
    return cl_world_raycast(&lw->w, &q->ray, q->maxt, at, aseq, h);
}
static int nextsweep(lworld *lw, const hitquery *q, double at, double aseq, cl_whit *h) {
    return cl_world_sweep(&lw->w, &q->s, q->d, -1, at, aseq, h);
}

/* Pushes the first hit the filter at index filterarg keeps (any hit when filterarg is 0), as
 * item, t, nx, ny, nz, or nil. Rejected hits are skipped by asking for the next one after them. */
static int firsthit(lua_State *L, lworld *lw, int filterarg, nexthit next, const hitquery *q) {
    double at = -1, aseq = -1;
    int u = pushitems(L);
    cl_whit h;
    for (;;) {
        int st = next(lw, q, at, aseq, &h);
        if (st < 0) return nomem(L);
        if (st == 0) { lua_pushnil(L); return 1; }
        if (filterarg) {
            int keep;
            lua_rawgeti(L, u, h.item + 1);
            keep = callfilter(L, filterarg, lua_gettop(L));
            lua_pop(L, 1);
            if (!keep) {
                at = h.t;
                aseq = lw->w.items[h.item].seq;
                continue;
            }
        }
        return pushwhit(L, u, &h);
    }
}

/* body of world:raycast(ray[, maxt[, filter]]) -> item, t, nx, ny, nz | nil. */
static int b_raycast(lua_State *L) {
    lworld *lw = hotworld(L, "raycast");
    const cl_ray *r = cl_checkray(L, 2, "raycast");
    int filter;
    hitquery q;
    q.ray = *r;
    q.maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    filter = optfilter(L, 4, "raycast");
    /* no lua_settop: firsthit pushes above whatever was passed and reads arg 4 only when it
     * is the filter (the settop was a tenth of the binding's cost per ray on Lua 5.4) */
    return firsthit(L, lw, filter ? 4 : 0, nextray, &q);
}

/* body of world:raycastall(ray[, maxt[, filter[, out]]]) -> array of hit tables, n. */
static int b_raycastall(lua_State *L) {
    lworld *lw = hotworld(L, "raycastall");
    const cl_ray *r = cl_checkray(L, 2, "raycastall");
    double maxt = cl_optlimit(L, 3, "raycastall", HUGE_VAL);
    int filter = optfilter(L, 4, "raycastall");
    (void)opttable(L, 5, "raycastall");
    int n, u, t, i, k;
    unsigned gen;
    cl_ray ray = *r;
    lua_settop(L, 5);
    gen = ++lw->gen;
    n = cl_world_raycastall(&lw->w, &ray, maxt);
    if (n < 0) return nomem(L);
    u = pushitems(L);
    t = pushout(L, 5, n);
    for (i = 0; i < n; i++) {
        cl_whit h;
        fresh(L, lw, gen, "raycastall");    /* pushout, inner and setfield allocate */
        h = lw->w.hits[i];
        inner(L, t, i + 1, 5);
        lua_rawgeti(L, u, h.item + 1);
        lua_setfield(L, -2, "item");
        setnum(L, "t", h.t);
        setnum(L, "nx", h.n.x);
        setnum(L, "ny", h.n.y);
        setnum(L, "nz", h.n.z);
        lua_pop(L, 1);
    }
    k = filter ? filtertable(L, t, n, 4, "item") : n;
    cleartail(L, t, k);   /* also drops hits a filter rejected from a new table */
    lua_pushvalue(L, t);
    lua_pushinteger(L, k);
    return 2;
}

/* world:pairs([out]) -> flat array a1, b1, a2, b2, ..., npairs. */
static int w_pairs(lua_State *L) {
    lworld *lw = hotworld(L, "pairs");
    int hasout = opttable(L, 2, "pairs"), np, u, t, i;
    unsigned gen;
    lua_settop(L, 2);
    gen = ++lw->gen;
    np = cl_world_pairs(&lw->w);
    if (np < 0) return nomem(L);
    u = pushitems(L);
    t = pushout(L, 2, 2 * np);
    for (i = 0; i < 2 * np; i++) {
        fresh(L, lw, gen, "pairs");         /* pushout and growing out allocate */
        lua_rawgeti(L, u, lw->w.res[i] + 1);
        lua_rawseti(L, t, i + 1);
    }
    if (hasout) cleartail(L, t, 2 * np);
    lua_pushvalue(L, t);
    lua_pushinteger(L, np);
    return 2;
}

/* body of world:sweep(shape, dx, dy, dz[, filter]) -> item, t, nx, ny, nz | nil. */
static int b_sweep(lua_State *L) {
    lworld *lw = hotworld(L, "sweep");
    hitquery q;
    int filter;
    cl_checkshape(L, 2, "sweep", &q.s);
    q.d.x = cl_checkfinite(L, 3, "sweep");
    q.d.y = cl_checkfinite(L, 4, "sweep");
    q.d.z = cl_checkfinite(L, 5, "sweep");
    filter = optfilter(L, 6, "sweep");
    lua_settop(L, 6);
    return firsthit(L, lw, filter ? 6 : 0, nextsweep, &q);
}

/* Context of the move filter callback. */
typedef struct movectx {
    lua_State *L;
    int u;              /* index of the id -> item table */
    const char *fname;
} movectx;

/* Move filter callback: calls filter(item, other) (filter at 6, item at 2) and maps its result
 * to a response (interned strings compared with the UV_RESP upvalues of the running move or
 * check); raises on an unknown response. */
static cl_resp respond(void *ctx, int mover, int other) {
    movectx *c = (movectx *)ctx;
    lua_State *L = c->L;
    int i;
    (void)mover;
    lua_pushvalue(L, 6);
    lua_pushvalue(L, 2);
    lua_rawgeti(L, c->u, other + 1);
    lua_call(L, 2, 1);
    if (!lua_toboolean(L, -1)) { lua_pop(L, 1); return CL_RESP_IGNORE; }
    for (i = 1; i <= 4; i++)
        if (lua_rawequal(L, -1, lua_upvalueindex(UV_RESP + i))) { lua_pop(L, 1); return (cl_resp)i; }
    {
        const char *s;
        if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) s = lua_tostring(L, -1);
        else if (lua_type(L, -1) == LUA_TBOOLEAN) s = "true";
        else s = luaL_typename(L, -1);
        lua_pushfstring(L, "filter returned an unknown response '%s'", s);
        cl_argerror(L, 6, c->fname, lua_tostring(L, -1));
    }
    return CL_RESP_IGNORE;
}

/* Sets field (the upvalue string key) of the table on top to number v. */
static void hotnum(lua_State *L, int key, double v) {
    lua_pushvalue(L, lua_upvalueindex(key));
    lua_pushnumber(L, v);
    lua_rawset(L, -3);
}

/* Pushes the collision table at out[i] (out at index t; U at u): the table already there, else
 * a spare one from U[-2] or a new one, stored at out[i]. */
static void poolinner(lua_State *L, lworld *lw, int u, int t, int i) {
    lua_rawgeti(L, t, i);
    if (lua_type(L, -1) == LUA_TTABLE) return;
    lua_pop(L, 1);
    if (lw->npool > 0) {
        lw->npool--;
        lua_rawgeti(L, u, -2);
        /* U[-2] and its entries are checked: the debug library can replace either */
        if (lua_type(L, -1) == LUA_TTABLE) lua_rawgeti(L, -1, lw->npool + 1);
        else lua_pushnil(L);
        lua_remove(L, -2);
        if (lua_type(L, -1) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 0, 6);
        }
    } else {
        lua_createtable(L, 0, 6);
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, t, i);
}

/* 1 if the value on top is rawequal to one of t[1..n] (t at index t). */
static int inprefix(lua_State *L, int t, int n) {
    int i, found = 0;
    for (i = 1; i <= n && !found; i++) {
        lua_rawgeti(L, t, i);
        found = lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
    }
    return found;
}

/* cleartail for move's out tables: the tables it drops go to the spare tables while there is
 * room (a move with fewer collisions than the last one, then one with more, makes no garbage).
 * A table goes there at most once and only if out[1..n] does not keep it, so the spares never
 * hand out one table twice in a result (an out that held one table several times, found in
 * review). */
static void pooltail(lua_State *L, lworld *lw, int u, int t, int n) {
    int len = (int)lua_rawlen(L, t), i;
    for (i = n + 1;; i++) {
        lua_rawgeti(L, t, i);
        if (i > len && lua_isnil(L, -1)) {      /* past the border and any hole after it */
            lua_pop(L, 1);
            break;
        }
        if (lw->npool < POOLMAX && lua_type(L, -1) == LUA_TTABLE && !inprefix(L, t, n)) {
            lua_rawgeti(L, u, -2);                      /* X, P */
            if (lua_type(L, -1) == LUA_TTABLE) {
                int p = lua_gettop(L);
                lua_pushvalue(L, -2);                   /* X, P, X */
                if (!inprefix(L, p, lw->npool)) {
                    lua_rawseti(L, p, lw->npool + 1);   /* within the preallocated size: no
                                                           allocation, cannot raise */
                    lw->npool++;
                } else {
                    lua_pop(L, 1);
                }
            }
            lua_pop(L, 1);                              /* X */
        }
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, t, i);
    }
}

/* Shared body of move and check on the world lw at 1 (a function with the hot upvalues):
 * -> ax, ay, az, cols, n.
 * Failure leaves the world unchanged: filter errors and CL_ENOMEM happen inside the core, which
 * is asked never to commit (it leaves the end shape in w.mend). A move without collisions is
 * committed right after the core returns, as the core's own commit would (cl_world_update cannot
 * fail); nothing after it allocates (the spare table or out, numbers only). A move with
 * collisions builds its Lua tables (which may raise a memory error) while the item still has its
 * old shape, and is committed with cl_world_update by the caller (redo) once nothing can fail:
 * right after domove returns, or, with a filter, after run()'s protected call returned without
 * error (Lua 5.1 may run a collection step, hence finalizers that raise, as that call returns).
 * One update leaves the item as the former commit by the core, undo and redo did: its box,
 * last displacement and stale-leaf state follow from the old and new shapes and its leaf, which
 * the undo did not change. */
static int domove(lua_State *L, lworld *lw, const char *fname, int commit) {
    cl_vec3 d, a;
    cl_shape end;
    double seq = 0;
    int u, id, filter, hasout, n, t, i;
    unsigned gen;
    movectx ctx;
    id = hotid(L, lw, 2, fname);
    d = cl_checkvec(L, 3, fname);
    filter = optfilter(L, 6, fname);
    hasout = opttable(L, 7, fname);
    /* above every argument, after their checks (so an absent filter or out reads none); no
     * settop to 7: it was a tenth of the binding's cost of a move without collisions */
    u = pushitems(L);
    ctx.L = L;
    ctx.u = u;
    ctx.fname = fname;
    /* with a filter this runs locked inside run(); the lock check above saw the caller's state */
    lw->gen++;
    n = cl_world_move(&lw->w, id, d, filter ? respond : NULL, &ctx, 0, &a);
    gen = lw->gen;                      /* after the filter's own calls, if any */
    if (n < 0) return nomem(L);
    if (commit) {
        if (n == 0) {
            cl_world_update(&lw->w, id, &lw->w.mend);
        } else {
            /* copied now: a finalizer run while the tables are built may move another item */
            end = lw->w.mend;
            seq = lw->w.items[id].seq;
        }
    }
    lua_pushnumber(L, a.x);
    lua_pushnumber(L, a.y);
    lua_pushnumber(L, a.z);
    if (hasout) {
        lua_pushvalue(L, 7);
    } else if (n == 0) {
        lua_rawgeti(L, u, -1);          /* the spare empty table: no garbage */
        cleartail(L, lua_gettop(L), 0);
    } else {
        lua_createtable(L, n, 0);
    }
    t = lua_gettop(L);
    for (i = 0; i < n; i++) {
        cl_col c;
        fresh(L, lw, gen, fname);           /* the tables allocate; nothing committed yet */
        c = lw->w.cols[i];
        if (hasout) poolinner(L, lw, u, t, i + 1);
        else lua_createtable(L, 0, 6);
        lua_pushvalue(L, lua_upvalueindex(UV_OTHER));
        lua_rawgeti(L, u, c.other + 1);
        lua_rawset(L, -3);
        lua_pushvalue(L, lua_upvalueindex(UV_TYPE));
        lua_pushvalue(L, lua_upvalueindex(UV_RESP + (int)c.type));
        lua_rawset(L, -3);
        hotnum(L, UV_T, c.t);
        hotnum(L, UV_NX, c.n.x);
        hotnum(L, UV_NY, c.n.y);
        hotnum(L, UV_NZ, c.n.z);
        if (hasout) lua_pop(L, 1);
        else lua_rawseti(L, t, i + 1);
    }
    if (hasout) pooltail(L, lw, u, t, n);
    /* nothing below raises: the caller commits the redo (redo) once nothing can fail any more */
    if (commit && n > 0) {
        lw->redo = 1;
        lw->redoid = id;
        lw->redoseq = seq;
        lw->redoshape = end;
    }
    lua_pushinteger(L, n);
    return 5;                   /* ax, ay, az, cols, n */
}

static int b_move(lua_State *L) { return domove(L, hotworld(L, "move"), "move", 1); }   /* via run */
static int b_check(lua_State *L) { return domove(L, hotworld(L, "check"), "check", 0); }

static int w_query(lua_State *L) { return run(L, 3, B_QUERY, "query"); }
static int w_querypoint(lua_State *L) { return run(L, 5, B_QUERYPOINT, "querypoint"); }
/* world:raycast without a filter (the hot case) is done here, without run(), b_raycast and
 * firsthit: the same checks in the same order (world, ray, maxt; the filter argument is nil),
 * the ray read in place (nothing runs Lua before the core returns), one hit pushed straight from
 * the id -> item table. With a filter: run() and b_raycast as every filtered call. */
static int w_raycast(lua_State *L) {
    lworld *lw;
    const cl_ray *r;
    double maxt;
    cl_whit h;
    int st;
    if (!lua_isnoneornil(L, 4)) return run(L, 4, B_RAYCAST, "raycast");
    lw = hotworld(L, "raycast");
    r = cl_checkray(L, 2, "raycast");
    maxt = cl_optlimit(L, 3, "raycast", HUGE_VAL);
    st = cl_world_raycast(&lw->w, r, maxt, -1, -1, &h);
    if (st <= 0) {
        if (st < 0) return nomem(L);
        lua_pushnil(L);
        return 1;
    }
    w_getuv(L, 1);
    lua_rawgeti(L, -1, h.item + 1);
    lua_pushnumber(L, h.t);
    lua_pushnumber(L, h.n.x);
    lua_pushnumber(L, h.n.y);
    lua_pushnumber(L, h.n.z);
    return 5;
}
static int w_raycastall(lua_State *L) { return run(L, 4, B_RAYCASTALL, "raycastall"); }
static int w_sweep(lua_State *L) { return run(L, 6, B_SWEEP, "sweep"); }

/* world:move(item, dx, dy, dz[, filter[, out]]) -> ax, ay, az, cols, n. */
static int w_move(lua_State *L) {
    lworld *lw = hotworld(L, "move");
    int n;
    checkunlocked(L, lw);
    if (!lua_isnoneornil(L, 6)) return run(L, 6, B_MOVE, "move");
    n = domove(L, lw, "move", 1);
    redo(lw);
    return n;
}

/* world:check(item, dx, dy, dz[, filter[, out]]) -> as move, changing nothing. */
static int w_check(lua_State *L) {
    lworld *lw = hotworld(L, "check");
    checkunlocked(L, lw);
    if (lua_isnoneornil(L, 6)) return domove(L, lw, "check", 0);
    return run(L, 6, B_CHECK, "check");
}

/* Frees the core world and drops the item tables. */
static void release(lua_State *L, lworld *lw) {
    lw->gen++;
    freescratch(lw);
    freefast(lw);
    lw->npool = 0;
    cl_world_free(&lw->w);
    lw->alive = 0;
    lua_newtable(L);
    w_setuv(L, 1);
}

/* world:destroy(). */
static int w_destroy(lua_State *L) {
    lworld *lw = hotworld(L, "destroy");
    checkunlocked(L, lw);
    release(L, lw);
    return 0;
}

/* __gc: frees the core world if still alive; nothing for a value that is not a World (it can
 * be called by hand: getmetatable(w).__gc(x)). Called by hand from a filter of this world it
 * raises the lock error and frees nothing: the running call still uses the world (the
 * collector itself never finalizes a world a running call holds). */
static int w_gc(lua_State *L) {
    lworld *lw = toworld(L);
    if (lw != NULL && lw->alive) {
        checkunlocked(L, lw);
        freescratch(lw);
        freefast(lw);
        cl_world_free(&lw->w);
        lw->alive = 0;
    }
    return 0;
}

#if LUA_VERSION_NUM >= 504
/* __close: destroys the world (nothing if already destroyed); a non-World is a type error. */
static int w_close(lua_State *L) {
    lworld *lw = toworld(L);
    if (lw == NULL) return cl_typeerror(L, 1, "__close", CL_MT_WORLD);
    if (lw->alive) {
        checkunlocked(L, lw);
        release(L, lw);
    }
    return 0;
}
#endif

/* __tostring: "World(N items)" or "World(destroyed)"; a non-World is a type error. */
static int w_tostring(lua_State *L) {
    lworld *lw = toworld(L);
    if (lw == NULL) return cl_typeerror(L, 1, "__tostring", CL_MT_WORLD);
    if (!lw->alive) lua_pushliteral(L, "World(destroyed)");
    else lua_pushfstring(L, "World(%d items)", lw->w.count);
    return 1;
}

/* Every method is registered with the hot upvalues (pushhotupvalues): hotworld compares the
 * metatable with an upvalue instead of looking it up in the registry. */
static const luaL_Reg world_methods[] = {
    { "add", w_add }, { "remove", w_remove }, { "update", w_update }, { "translate", w_translate },
    { "translatemany", w_translatemany }, { "has", w_has }, { "count", w_count },
    { "shape", w_shape }, { "query", w_query }, { "querypoint", w_querypoint },
    { "raycast", w_raycast }, { "raycastall", w_raycastall }, { "pairs", w_pairs },
    { "sweep", w_sweep }, { "move", w_move }, { "check", w_check }, { "destroy", w_destroy },
    { NULL, NULL }
};

static const luaL_Reg world_metamethods[] = {
    { "__gc", w_gc },
#if LUA_VERSION_NUM >= 504
    { "__close", w_close },
#endif
    { "__tostring", w_tostring }, { NULL, NULL }
};

void cl_open_world(lua_State *L) {
    int i;
    cl_newclass(L, CL_MT_WORLD, NULL, world_metamethods);
    luaL_getmetatable(L, CL_MT_WORLD);
    lua_pushvalue(L, -1);
    cl_rawsetp(L, LUA_REGISTRYINDEX, &world_key);
    lua_getfield(L, -1, "__index");
    luaL_setfuncs(L, world_methods, pushhotupvalues(L));
    lua_pop(L, 2);
    lua_createtable(L, B_COUNT, 0);
    for (i = 1; i < B_COUNT; i++) {
        int nup = pushhotupvalues(L);
        lua_pushcclosure(L, body_fns[i], nup);
        lua_rawseti(L, -2, i);
    }
    cl_rawsetp(L, LUA_REGISTRYINDEX, &bodies_key);
    lua_pushcfunction(L, w_new);
    lua_setfield(L, -2, "World");
}
