/* collide Lua binding, the World's internals: the header every csrc/bind/world*.c file includes
 * (and only those). It owns the userdata's layout (lworld) and its scratch types, the user-value
 * macros (the only Lua version differences of the World binding), the upvalue and body indices,
 * the small helpers every method calls on its hot path (static inline: hotworld, hotid and the
 * fast-map read fastid, the argument checks, run's direct path), and the declarations of what
 * one file calls in another (prefix lw_). Which file owns what (see world.c for the design):
 *   world.c          constructor, item methods (add, remove, update, translate, translatemany,
 *                    has, count, shape), destroy, __gc, __close, __tostring, registration
 *   world_items.c    which value is a World; item <-> id: the U tables and the fast maps
 *   world_results.c  result tables: clearing an out table's tail, filtering, item lists
 *   world_query.c    query, querypoint, raycast, raycastall, pairs, sweep
 *   world_move.c     move and check: the response callback, collision tables and their spares
 *   world_resolve.c  resolve (push-out of overlaps)
 *   character.c      collide.Character (its move's body is in world_move.c)
 *   ffi_world.c      the LuaJIT FFI fast path of move, query, querypoint and raycast */
#ifndef CL_LWORLD_H
#define CL_LWORLD_H

#include <stdint.h>

#include "bind.h"
#include "world.h"
#include "character.h"

/* User values of full userdata: the only LUA_VERSION_NUM difference the World binding needs,
 * kept here because compat.h has no user-value helpers (5.1/LuaJIT use the environment table). */
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
 * macros: the only other version difference of the World binding. */
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

/* 1 when add keeps a number item that has a slot in the fast map fm out of U[0] (lworld.fm):
 * Lua 5.4 and later, and 5.1 and LuaJIT (whose FFI fast path, ffi_world.c, asks fm through C
 * before U[0]; on 5.1 a raw set of nil to an absent key inserts it, so remove sets U[0][item]
 * to nil only when the item is there: w_remove). Not on 5.2 and 5.3, which are not tested. */
#define FM_ONLY (LUA_VERSION_NUM >= 504 || LUA_VERSION_NUM == 501)

/* 1 when add keeps such a number item out of U[id + 1] too, its id -> item entry in lworld.nm
 * alone: where FM_ONLY is, but not on LuaJIT, whose FFI wrappers (ffi_world.c) read U[id + 1]
 * first; there nm would cost each number item in a result a missed read and an FFI call (+15%
 * instructions a result item) to save 8 bytes an id (LuaJIT is at 256 bytes an item without it). */
#ifdef CL_LUAJIT
#define NM_ON 0
#else
#define NM_ON FM_ONLY
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
    /* &lw_world_key, first: the LuaJIT FFI fast path (ffi_world.c) reads it from a userdata
     * wearing the World metatable before it trusts the rest (see ffi.c's header on the tag) */
    const char *tag;
    cl_world w;
    int alive;
    int lock;
    /* Fast item -> id maps, a cache of U[0] that only gives positive answers (a miss asks U[0]):
     * fm[k] = id + 1 for the item equal to the number k (0 <= k < fmcap; 0: ask U[0]); pc, a
     * direct-mapped table of pcmask + 1 slots (p NULL: empty) for items with an address. An
     * entry exists only while its item is in the world (set by add or by a lookup that found
     * the item in U[0], cleared by remove, all freed by destroy), so its address cannot be
     * reused by another object meanwhile: U holds the item. The entry's address is the one of
     * the value U holds (for strings, an equal string may be another object: it just misses).
     * With FM_ONLY (Lua 5.4+, 5.1, LuaJIT) a number item that has an fm slot when it is added is kept in fm
     * alone, not in U[0] (fm is then its only item -> id entry: an fm entry is cleared only by
     * the item's remove, and fm only grows), which saves U[0] its 16 bytes a slot there; with
     * NM_ON its id -> item entry is nm's (below), not U[id + 1], when nm reaches its id.
     * fm's block holds fmall ints (grown by half), of which only the first fmcap are written
     * (zeroed as the numbers added reach them): the rest stays untouched, out of the process's
     * RSS (up to 2 bytes per item when the items are the numbers 1 to n). */
    int *fm; int fmcap, fmall;
    /* The reverse of fm for the number items it alone holds (NM_ON): nm[id] is the item whose
     * id is id, coded by w_numcode (0: not such an item, ask U[id + 1]), so U holds no entry for
     * them either (U's array part was 16 bytes an id on 5.4, 8 on 5.1 and LuaJIT). Set by add,
     * cleared by remove (the one way an id leaves use), zeroed as it grows: an id not in use
     * reads 0, so add writes only its own number items' codes; grown like fm (intmap_reach),
     * written only up to the largest id it was grown for (nmcap of nmall ints). pushitem is the
     * one reader. */
    int *nm; int nmcap, nmall;
    int nmn;                    /* the number of items nm holds (lw_nmgrow's bound) */
    pslot *pc; int pcmask;
    /* translatemany scratch (allocated like the core's memory, kept for the next batch) */
    bitem *bi; int bicap;
    bmark *bm; int bmcap, bstamp;
    cl_shape *bs; int bscap;
    /* spare collision tables in U[-2][1..npool]: the tables move and check dropped from the end
     * of an out table (at most POOLMAX), reused before making new ones */
    int npool;
    /* spare hit tables of raycastall in U[-3][1..nhpool] (U[-3] made, sized HPOOLMAX, by the
     * first raycastall with an out table) */
    int nhpool;
    /* a move's pending redo (domove): the item, its add order and the shape it moved to */
    int redo, redoid;
    /* bumped by every call that rewrites the core's result buffers (res, hits, cols), by every
     * change of the items (add, remove, update, translate, translatemany, a move's commit) and
     * by release: a result builder compares it after each Lua allocation (see fresh) */
    unsigned gen;
    double redoseq;
    cl_shape redoshape;
    /* the Lua state's allocator, which every World allocation goes through (world.c's walloc),
     * and the bytes it grew by since the collector was last told (gcreport) */
    lua_Alloc af; void *aud;
    size_t grown;
} lworld;

/* Bytes of World growth after which add tells the collector (gcreport). */
enum { GC_REPORT = 64 * 1024 };
/* How many bytes of Lua objects one byte of World memory counts as for the collector (gcreport). */
enum { GC_WEIGHT = 4 };


enum { POOLMAX = 16 };                  /* spare collision tables kept per world */
enum { HPOOLMAX = 256 };                /* spare raycastall hit tables kept per world */


/* ---- shared between the World binding's files (hidden in the shared object: CL_API) ---- */

/* world.c: registry keys (their addresses): the World metatable; the cached body closures */
CL_API extern const char lw_world_key, lw_bodies_key;
/* ffi_world.c: installs the LuaJIT FFI fast path of the World methods (module at mod) */
CL_API void lw_open_ffi(lua_State *L, int mod);
/* world.c: run with the filter argument given (see run below) */
CL_API int lw_runfiltered(lua_State *L, int body, const char *fname);
/* world_items.c: the World at index idx (alive or destroyed), or NULL when it is anything else */
CL_API lworld *lw_toworldat(lua_State *L, int idx);
/* world_items.c: the World at arg 1 (alive or destroyed), or NULL when it is anything else */
CL_API lworld *lw_toworld(lua_State *L);
/* world_items.c: the live World at arg 1, else raises the standard errors */
CL_API lworld *lw_checkworld(lua_State *L, const char *fname);
/* world_items.c: records (clear 0) or forgets (clear 1) item U[id + 1]'s id in the fast maps */
CL_API void lw_fastput(lua_State *L, lworld *lw, int u, int id, int clear);
/* world_items.c: frees the fast maps */
CL_API void lw_freefast(lworld *lw);
/* world_items.c: grows the fast maps for the item at arg about to be added; 0, or -1 */
CL_API int lw_fastgrow(lua_State *L, lworld *lw, int arg);
/* world_items.c: grows nm for the add of the item at arg (id cl_world_nextid) when fm alone
 * will hold it; 0, or -1 */
CL_API int lw_nmgrow(lua_State *L, lworld *lw, int arg);
/* world_items.c: the id of the item at arg (U at index u), or -1 */
CL_API int lw_findid(lua_State *L, lworld *lw, int u, int arg);
/* world_items.c: the id of the item at arg, or raises "item is not in the world" */
CL_API int lw_checkid(lua_State *L, lworld *lw, int u, int arg, const char *fname);
/* world_items.c: hotid's lookup in U[0] after a fast-map miss */
CL_API int lw_hotslow(lua_State *L, lworld *lw, int arg, int fast, const char *fname);
/* world_results.c: sets t[i] = nil for i > n up to the table's border */
CL_API void lw_cleartail(lua_State *L, int t, int n);
/* world_results.c: pushes out[i] (out at t, U at u), taking a spare from the pool U[slot] or a
 * new table with nrec fields when out[i] is not a table. */
CL_API void lw_poolinner(lua_State *L, int *npool, int slot, int nrec, int u, int t, int i);
/* world_results.c: lw_cleartail giving the dropped tables to the pool U[slot] (up to max). */
CL_API void lw_pooltail(lua_State *L, int *npool, int max, int slot, int u, int t, int n);
/* world_results.c: keeps the entries 1..n of table t the filter f keeps; the kept count */
CL_API int lw_filtertable(lua_State *L, int t, int n, int f, const char *key);
/* world_results.c: pushes the item list of w.res[0..n-1] (filtered, into out) and its count */
CL_API int lw_pushitemlist(lua_State *L, lworld *lw, int n, int filterarg, int outarg,
                           const char *fname);
/* world_query.c: the query methods (lw_*) and the bodies run() calls (lw_b_*) */
CL_API int lw_query(lua_State *L);
CL_API int lw_querypoint(lua_State *L);
CL_API int lw_raycast(lua_State *L);
CL_API int lw_raycastall(lua_State *L);
CL_API int lw_pairs(lua_State *L);
CL_API int lw_sweep(lua_State *L);
CL_API int lw_b_query(lua_State *L);
CL_API int lw_b_querypoint(lua_State *L);
CL_API int lw_b_raycast(lua_State *L);
CL_API int lw_b_raycastall(lua_State *L);
CL_API int lw_b_sweep(lua_State *L);
/* world_resolve.c: world:resolve and its body */
CL_API int lw_resolve(lua_State *L);
CL_API int lw_b_resolve(lua_State *L);
/* world.c: pushes the hot upvalues every World method (and a Character's) gets; their count */
CL_API int lw_pushhotupvalues(lua_State *L);
/* world_move.c: character:move's body (character.c) on the stack world, item, dx, dy, dz, filter,
 * out, character */
CL_API int lw_charmove(lua_State *L, lworld *lw, int id, cl_char *c, const char *fname);
CL_API int lw_queryplanes(lua_State *L);
CL_API int lw_b_queryplanes(lua_State *L);
/* world_move.c: move and check, and their bodies */
CL_API int lw_move(lua_State *L);
CL_API int lw_check(lua_State *L);
CL_API int lw_b_move(lua_State *L);
CL_API int lw_b_check(lua_State *L);

/* Raises the lock error when a filter of this world is running. */
static inline void checkunlocked(lua_State *L, const lworld *lw) {
    if (lw->lock) luaL_error(L, "world is locked (called from a filter)");
}

/* Result builders read the core's buffers (w.res, w.hits, w.cols) while they make Lua tables,
 * and any Lua allocation may run a finalizer that uses the world: a query there rewrites (and
 * may reallocate) those buffers, a destroy frees them (found in review: a use after free). So a
 * builder takes lw->gen once the core has answered and calls fresh before each read that
 * follows an allocation; a changed gen raises this error (the call's results are lost, nothing
 * was committed: a move commits only after its tables are built). */
static inline void fresh(lua_State *L, const lworld *lw, unsigned gen, const char *fname) {
    if (lw->gen != gen)
        luaL_error(L, "world used by a finalizer while '%s' built its results", fname);
}

/* Raises the memory error (called only once the world is consistent again). */
static inline int nomem(lua_State *L) {
    return luaL_error(L, "not enough memory");
}

/* The debug library can replace the user value U and any entry of it (debug.setuservalue,
 * debug.getuservalue(w)[k] = v; debug.setfenv on 5.1 and LuaJIT): every read of U, of U[0] and
 * of U[-1] checks the type, every id read from U[0] is checked to name a live slot (lw_slowid),
 * and so is every id from the fast maps (an entry that a tampered U[id + 1] kept from being
 * cleared). U[-2] is checked where it is used (world_move.c). A check that fails raises this
 * error; a tampered item entry U[id + 1] only makes results name that value (not for a number
 * item nm holds, whose U[id + 1] the C functions never read: pushitem). */
static inline int tampered(lua_State *L) {
    return luaL_error(L, "world's item tables were changed through the debug library");
}

/* 1 if id names a live item slot of the world. */
static inline int liveid(const lworld *lw, int id) {
    return id >= 0 && id < lw->w.cap && lw->w.items[id].proxy != CL_NULLNODE;
}

/* The id at idx, read from U[0]: -1 for nil (not in the world), else a live slot, or raises. */
static inline int idfrommap(lua_State *L, const lworld *lw, int idx) {
    int isnum, id;
    double d;
    if (lua_type(L, idx) == LUA_TNIL) return -1;
    d = (double)lua_tonumberx(L, idx, &isnum);
    id = isnum && d >= 0 && d < (double)lw->w.cap ? (int)d : -1;
    if (id < 0 || (double)id != d || !liveid(lw, id)) tampered(L);
    return id;
}

/* Pushes the id -> item table U of the world at 1 and leaves it on top; returns its index. */
static inline int pushitems(lua_State *L) {
    w_getuv(L, 1);
    if (lua_type(L, -1) != LUA_TTABLE) tampered(L);
    return lua_gettop(L);
}

/* Pushes the item -> id table U[0] (U at index u); returns its index. */
static inline int pushidmap(lua_State *L, int u) {
    lua_rawgeti(L, u, 0);
    if (lua_type(L, -1) != LUA_TTABLE) tampered(L);
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
        return k < 0 ? F_NOSLOT : liveid(lw, lw->fm[k] - 1) ? lw->fm[k] - 1 : F_MISS;
    }
    if (lw->pc != NULL && haspointer(type)) {
        const void *p = lua_topointer(L, arg);
        const pslot *e;
        if (p == NULL) return F_NOSLOT;
        e = pcslot(lw, p);
        return e->p == p && e->type == type && liveid(lw, e->id) ? e->id : F_MISS;
    }
    return F_NOSLOT;
}

/* ---- id -> number item (lworld.nm) ---- */

/* nm's code of a float -0.0 item (fm keeps it in slot 0, as 0 and 0.0). */
#define NM_NEGZERO (-0x7fffffff - 1)

/* The nm code of the number item at arg, whose fm slot is k (0 <= k < 0x7fffffff): k + 1 for an
 * integer (and on 5.1, 5.2 and LuaJIT, which have one number type, for every number but -0.0),
 * -(k + 1) for a float with an integral value on 5.3+, NM_NEGZERO for -0.0, so that pushitem
 * gives back the value added: math.type and the sign of zero included. */
static inline int w_numcode(lua_State *L, int arg, int k) {
    double d;
#if LUA_VERSION_NUM >= 503
    if (lua_isinteger(L, arg)) return k + 1;
#endif
    d = (double)lua_tonumber(L, arg);
    if (k == 0 && 1 / d < 0) return NM_NEGZERO;
#if LUA_VERSION_NUM >= 503
    return -(k + 1);
#else
    return k + 1;
#endif
}

/* Pushes the number item of nm code v (not 0). */
static inline void w_pushnumcode(lua_State *L, int v) {
    if (v == NM_NEGZERO) lua_pushnumber(L, -0.0);
#if LUA_VERSION_NUM >= 503
    else if (v > 0) lua_pushinteger(L, (lua_Integer)v - 1);
    else lua_pushnumber(L, (lua_Number)(-(v + 1)));
#else
    else lua_pushnumber(L, (lua_Number)(v - 1));
#endif
}

/* Pushes the item whose id is id (U at index u): from nm for a number item fm alone holds, else
 * U[id + 1]. Every push of an item by its id in C goes through here (LuaJIT's FFI wrappers read U,
 * which holds every item there: NM_ON is 0). */
static inline void pushitem(lua_State *L, const lworld *lw, int u, int id) {
    int v;
    if (id < lw->nmcap && (v = lw->nm[id]) != 0) w_pushnumcode(L, v);
    else lua_rawgeti(L, u, id + 1);
}

#define fastset(L, lw, u, id) lw_fastput((L), (lw), (u), (id), 0)
#define fastclear(L, lw, u, id) lw_fastput((L), (lw), (u), (id), 1)

/* Upvalues of every World method and of the cached bodies, after the
 * four shape metatables every binding function gets: the World metatable, then the interned
 * strings move's collision tables use (set with lua_rawset: no C-string hashing per field), then
 * raycastall's "tri" (an upvalue also keeps it alive: a key set to nil in every reused hit table
 * does not, and a collection freed it, so the next call made it again: 28 bytes on LuaJIT). */
enum {
    UV_WORLD = 5, UV_OTHER, UV_TYPE, UV_T, UV_NX, UV_NY, UV_NZ,
    UV_RESP /* + cl_resp: "ignore", "slide", "touch", "cross", "bounce" */, UV_TRI = UV_RESP + 5,
    UV_LAST = UV_TRI
};

/* Returns the live world at arg 1 of a method (same checks as lw_toworld, the metatable
 * compared with the UV_WORLD upvalue; the size check also rejects light userdata); anything
 * else goes to lw_checkworld for the standard error. */
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
    return lw_checkworld(L, fname);
}

/* Returns the id of the item at arg (the fast maps, else one lookup in U[0]) or raises "item is
 * not in the world"; leaves the stack as it was. */
static inline int hotid(lua_State *L, lworld *lw, int arg, const char *fname) {
    int id = fastid(L, lw, arg);
    return id >= 0 ? id : lw_hotslow(L, lw, arg, id, fname);
}

/* Raises unless the value at arg is nil/absent or a function. */
static inline int optfilter(lua_State *L, int arg, const char *fname) {
    if (lua_isnoneornil(L, arg)) return 0;
    if (lua_type(L, arg) != LUA_TFUNCTION) cl_typeerror(L, arg, fname, "function");
    return 1;
}

/* Raises unless the value at arg is nil/absent or a table; returns 1 for a table. */
static inline int opttable(lua_State *L, int arg, const char *fname) {
    if (lua_isnoneornil(L, arg)) return 0;
    if (lua_type(L, arg) != LUA_TTABLE) cl_typeerror(L, arg, fname, "table");
    return 1;
}


/* Pushes the result table: out (arg) when given, else a new table for n entries. */
static inline int pushout(lua_State *L, int arg, int n) {
    if (!lua_isnoneornil(L, arg)) lua_pushvalue(L, arg);
    else lua_createtable(L, n, 0);
    return lua_gettop(L);
}

/* Calls the filter at index f with the value at index v; returns its truthiness. */
static inline int callfilter(lua_State *L, int f, int v) {
    int keep;
    lua_pushvalue(L, f);
    lua_pushvalue(L, v);
    lua_call(L, 1, 1);
    keep = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return keep;
}


/* Pushes the inner table at out[i], creating it (with nrec fields) when absent. */
static inline void inner(lua_State *L, int out, int i, int nrec) {
    lua_rawgeti(L, out, i);
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, nrec);
        lua_pushvalue(L, -1);
        lua_rawseti(L, out, i);
    }
}

/* Sets field key (the upvalue string key) of the table on top to number v, raw (a reused
 * result table with a __newindex must not run Lua code in the middle of a call). */
static inline void hotnum(lua_State *L, int key, double v) {
    lua_pushvalue(L, lua_upvalueindex(key));
    lua_pushnumber(L, v);
    lua_rawset(L, -3);
}

/* Bodies by index, cached as closures in the registry (no allocation per call on 5.1). */
enum { B_QUERY = 1, B_QUERYPOINT, B_RAYCAST, B_RAYCASTALL, B_SWEEP, B_MOVE, B_CHECK, B_QUERYPLANES,
       B_RESOLVE, B_COUNT };
static const lua_CFunction body_fns[B_COUNT] = {
    NULL, lw_b_query, lw_b_querypoint, lw_b_raycast, lw_b_raycastall, lw_b_sweep, lw_b_move, lw_b_check,
    lw_b_queryplanes, lw_b_resolve
};

/* Commits the move domove left pending, unless a finalizer run by an allocation since then
 * removed the item or destroyed the world (the item's slot must still hold the same add). */
static inline void redo(lworld *lw) {
    if (!lw->redo) return;
    lw->redo = 0;
    if (lw->alive && lw->w.items[lw->redoid].proxy != CL_NULLNODE &&
        lw->w.items[lw->redoid].seq == lw->redoseq) {
        cl_world_update(&lw->w, lw->redoid, &lw->redoshape);
        lw->gen++;
    }
}

/* Runs body directly, or, when the filter argument is given, as a protected call with the world
 * locked (lw_runfiltered); the lock is released on both paths and errors are re-raised. Returns
 * body's results. */
static inline int run(lua_State *L, int filterarg, int body, const char *fname) {
    /* (w_move runs a move without a filter itself: only it commits that move's redo) */
    if (lua_isnoneornil(L, filterarg)) return body_fns[body](L);
    return lw_runfiltered(L, body, fname);
}

#endif
