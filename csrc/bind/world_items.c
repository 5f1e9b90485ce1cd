/* collide Lua binding, the World's item lookup: which value is a World (lw_toworld,
 * lw_checkworld) and item <-> id: the id -> item table U, the item -> id table U[0] and the fast
 * item -> id maps that cache it (lworld.fm for numbers, lworld.pc by address). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lworld.h"

/* Returns the World at index idx (alive or destroyed), or NULL when it is anything else: a full
 * userdata with the World metatable and a World's size (debug.setmetatable can give another
 * userdata that metatable; metamethods can be called by hand on any value). */
lworld *lw_toworldat(lua_State *L, int idx) {
    lworld *lw;
    int ok = 0;
    if (idx < 0) idx = lua_gettop(L) + idx + 1;
    lw = (lworld *)lua_touserdata(L, idx);
    if (lw != NULL && lua_type(L, idx) == LUA_TUSERDATA && lua_rawlen(L, idx) == sizeof(lworld) &&
        lua_getmetatable(L, idx)) {
        cl_rawgetp(L, LUA_REGISTRYINDEX, &lw_world_key);
        ok = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    return ok ? lw : NULL;
}

/* Returns the World at arg 1 (alive or destroyed), or NULL (see lw_toworldat). */
lworld *lw_toworld(lua_State *L) {
    return lw_toworldat(L, 1);
}

/* Returns the world at arg 1, raising the standard errors if it is not one or is destroyed. */
lworld *lw_checkworld(lua_State *L, const char *fname) {
    lworld *lw = lw_toworld(L);
    if (lw == NULL) cl_typeerror(L, 1, fname, CL_MT_WORLD);
    if (!lw->alive) cl_argerror(L, 1, fname, "world is destroyed");
    return lw;
}

/* Records in the fast maps that the item whose id is id (pushitem, U at index u) has the id
 * (clear 0), or forgets it before it leaves the world (clear 1: only an entry that is still its
 * own); nothing when it has no slot (a number out of fm's range, a value without an address, no
 * pc yet). */
void lw_fastput(lua_State *L, lworld *lw, int u, int id, int clear) {
    int type;
    pushitem(L, lw, u, id);
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
/* Frees the fast maps (the world is being freed). */
void lw_freefast(lworld *lw) {
    if (lw->fm) lw->w.alloc(lw->w.ud, lw->fm, (size_t)lw->fmall * sizeof(int), 0);
    if (lw->pc) lw->w.alloc(lw->w.ud, lw->pc, (size_t)(lw->pcmask + 1) * sizeof(pslot), 0);
    if (lw->nm) lw->w.alloc(lw->w.ud, lw->nm, (size_t)lw->nmall * sizeof(int), 0);
    lw->fm = NULL; lw->fmcap = lw->fmall = 0;
    lw->nm = NULL; lw->nmcap = lw->nmall = lw->nmn = 0;
    lw->pc = NULL; lw->pcmask = 0;
}

/* Makes the lazily written int map *map (fm, nm: written up to *cap, a block of *all ints) reach
 * index k (nothing when k < *cap, k = -1 included): the block grown to k + k / 2 + 64 ints, at
 * most limit but at least k + 1, and zeroed from *cap up to k only (the rest of the block is
 * never written, so it stays out of the process's RSS: see lworld.fmall). Returns 0, or -1 when
 * the allocator fails (the map is then as it was). */
static int intmap_reach(lworld *lw, int **map, int *cap, int *all, int k, size_t limit) {
    if (k < *cap) return 0;
    if (k >= *all) {
        size_t ncap = (size_t)k + (size_t)k / 2 + 64;
        int *nm;
        if (ncap > limit) ncap = limit;
        if (ncap < (size_t)k + 1) ncap = (size_t)k + 1;
        nm = (int *)lw->w.alloc(lw->w.ud, *map, (size_t)*all * sizeof(int), ncap * sizeof(int));
        if (nm == NULL) return -1;
        *map = nm;
        *all = (int)ncap;
    }
    memset(*map + *cap, 0, (size_t)(k + 1 - *cap) * sizeof(int));
    *cap = k + 1;
    return 0;
}

/* Grows the fast maps so that the item at arg, about to be added as the world's count + 1-th
 * item, gets a slot: fm up to its number when that is a whole number below 4 * count + 1024
 * (memory stays proportional to the count), pc to at least 2 * (count + 1) slots. Returns 0, or
 * -1 when the allocator fails (the maps are then as they were). */
int lw_fastgrow(lua_State *L, lworld *lw, int arg) {
    int type = lua_type(L, arg), count = lw->w.count;
    if (type == LUA_TNUMBER) {
        int bound = count < (0x7fffffff - 1024) / 8 ? 4 * count + 1024 : 0x7fffffff / 2;
        int k = w_numslot(L, arg, bound);
        if (intmap_reach(lw, &lw->fm, &lw->fmcap, &lw->fmall, k, (size_t)bound) != 0) return -1;
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

/* Grows nm, when the item at arg is a number that fm (already grown by lw_fastgrow) has a slot
 * for and NM_ON holds it there alone, so that it has the next add's id (cl_world_nextid, after
 * cl_world_reserve): by half as ids grow, capped at the core's slot block, zeroed only up to that id
 * (as fm: the rest of the block stays out of the process's RSS). Returns 0, or -1 when the
 * allocator fails (nm is then as it was). */
int lw_nmgrow(lua_State *L, lworld *lw, int arg) {
    int id = cl_world_nextid(&lw->w);
    if (!NM_ON || lua_type(L, arg) != LUA_TNUMBER || w_numslot(L, arg, lw->fmcap) < 0 ||
        id < lw->nmcap)
        return 0;
    /* nm stays proportional to the number items it holds (nmn): an id past twice their number
     * (plus 1024) keeps its item in U[id + 1] instead (add), so one number item among 1,000,000
     * table items does not write 4 MB of nm (review rev18's F3) */
    if (id > 2 * lw->nmn + 1024) return 0;
    /* capped at the core's slot block (acap, doubling, >= id + 1 after cl_world_reserve), not at
     * cap (the ids handed out: id + 1 here, which made nm grow by one int per add: review rev18's
     * F1) */
    return intmap_reach(lw, &lw->nm, &lw->nmcap, &lw->nmall, id, (size_t)lw->w.acap);
}

/* lw_findid after fastid gave fast < 0: the lookup in U[0] (leaves 2 values on the stack), which
 * fills the fast map on F_MISS. */
static inline int slowid(lua_State *L, lworld *lw, int u, int arg, int fast) {
    int id;
    pushidmap(L, u);
    lua_pushvalue(L, arg);
    lua_rawget(L, -2);          /* a nil or NaN key reads nil */
    id = idfrommap(L, lw, -1);
    if (id < 0) return -1;
    if (fast == F_MISS) fastset(L, lw, u, id);
    return id;
}

/* Returns the id of the item at arg (U at index u), or -1 when it is not in the world. */
int lw_findid(lua_State *L, lworld *lw, int u, int arg) {
    int id = fastid(L, lw, arg);
    if (id >= 0) return id;
    id = slowid(L, lw, u, arg, id);
    lua_pop(L, 2);
    return id;
}

/* Returns the id of the item at arg or raises "item is not in the world". */
int lw_checkid(lua_State *L, lworld *lw, int u, int arg, const char *fname) {
    int id = lw_findid(L, lw, u, arg);
    if (id < 0) cl_argerror(L, arg, fname, "item is not in the world");
    return id;
}


/* hotid's lookup in U[0] after fastid gave fast < 0 (kept out of line). */
int lw_hotslow(lua_State *L, lworld *lw, int arg, int fast, const char *fname) {
    int id = slowid(L, lw, pushitems(L), arg, fast);
    if (id < 0) cl_argerror(L, arg, fname, "item is not in the world");
    lua_pop(L, 3);
    return id;
}
