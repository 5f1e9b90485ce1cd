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
        lua_rawgeti(L, u, lw->w.res[i] + 1);
        lua_rawseti(L, t, i + 1);
    }
    if (!lua_isnoneornil(L, filterarg)) k = lw_filtertable(L, t, n, filterarg, NULL);
    if (outarg > 0) lw_cleartail(L, t, k);
    lua_pushvalue(L, t);
    lua_pushinteger(L, k);
    return 2;
}
