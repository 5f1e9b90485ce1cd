/* collide Lua binding, the World's result tables: clearing what an out table held past the
 * results, filtering a result table in place, and the item-list builder of query and querypoint. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lworld.h"

/* Sets t[i] = nil for i > n up to the table's border (the table at index t). */
void lw_cleartail(lua_State *L, int t, int n) {
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
/* Pushes the result table at out[i] (out at index t; U at u): the table already there, else a
 * spare one from the pool U[slot] (*npool spares in U[slot][1..*npool]) or a new one with nrec
 * fields, stored at out[i]. */
void lw_poolinner(lua_State *L, int *npool, int slot, int nrec, int u, int t, int i) {
    lua_rawgeti(L, t, i);
    if (lua_type(L, -1) == LUA_TTABLE) return;
    lua_pop(L, 1);
    if (*npool > 0) {
        (*npool)--;
        lua_rawgeti(L, u, slot);
        /* U[slot] and its entries are checked: the debug library can replace either */
        if (lua_type(L, -1) == LUA_TTABLE) lua_rawgeti(L, -1, *npool + 1);
        else lua_pushnil(L);
        lua_remove(L, -2);
        if (lua_type(L, -1) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 0, nrec);
        }
    } else {
        lua_createtable(L, 0, nrec);
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

/* lw_cleartail for out tables of result tables: the tables it drops go to the pool U[slot]
 * while it holds fewer than max (a call with fewer results than the last one, then one with
 * more, makes no garbage). The pool table must have room for max entries already (adding to it
 * never allocates, so this cannot raise). A table goes there at most once and only if
 * out[1..n] does not keep it, so the pool never hands out one table twice in a result (an out
 * that held one table several times, found in review). */
void lw_pooltail(lua_State *L, int *npool, int max, int slot, int u, int t, int n) {
    int len = (int)lua_rawlen(L, t), i;
    for (i = n + 1;; i++) {
        lua_rawgeti(L, t, i);
        if (i > len && lua_isnil(L, -1)) {      /* past the border and any hole after it */
            lua_pop(L, 1);
            break;
        }
        if (*npool < max && lua_type(L, -1) == LUA_TTABLE && !inprefix(L, t, n)) {
            lua_rawgeti(L, u, slot);                    /* X, P */
            if (lua_type(L, -1) == LUA_TTABLE) {
                int p = lua_gettop(L);
                lua_pushvalue(L, -2);                   /* X, P, X */
                if (!inprefix(L, p, *npool)) {
                    lua_rawseti(L, p, *npool + 1);      /* within the presized part: no
                                                           allocation, cannot raise */
                    (*npool)++;
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

/* Keeps the entries 1..n of table t for which the filter f is truthy (entries are items, or
 * hit tables whose field key holds the item); kept entries move to the front in order, the
 * rest are swapped behind them (so reused inner tables stay in out). Returns the kept count. */
int lw_filtertable(lua_State *L, int t, int n, int f, const char *key) {
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
/* Fills the result table (out at arg outarg, or new) with the items of ids[0..n-1], applies
 * the filter at filterarg, clears the rest; pushes table and count. Returns 2. */
int lw_pushitemlist(lua_State *L, lworld *lw, int n, int filterarg, int outarg,
                        const char *fname) {
    unsigned gen = lw->gen;
    int u = pushitems(L), t = pushout(L, outarg, n), i, k = n;
    for (i = 0; i < n; i++) {
        fresh(L, lw, gen, fname);           /* pushout and growing out allocate */
        pushitem(L, lw, u, lw->w.res[i]);
        lua_rawseti(L, t, i + 1);
    }
    fresh(L, lw, gen, fname);               /* the last entry's allocation */
    if (!lua_isnoneornil(L, filterarg)) k = lw_filtertable(L, t, n, filterarg, NULL);
    if (outarg > 0) lw_cleartail(L, t, k);
    lua_pushvalue(L, t);
    lua_pushinteger(L, k);
    return 2;
}
