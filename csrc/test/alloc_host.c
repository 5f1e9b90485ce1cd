/* A World under memory pressure (issue 5). A Lua 5.4 host whose allocator fails every growing
 * allocation after the first N (counted from the start of the script); for N = 0, 1, 2, ...
 * until the script runs to the end without a failure, it runs a World script (create, add 200
 * mixed items, update, remove, query, querypoint, raycast, raycastall, pairs, sweep, move,
 * check) in lua_pcall. The script must either finish or raise "not enough memory"; then, with
 * allocation allowed again, a check script verifies the world (if it was created): its count,
 * membership and shapes match what the script recorded as done, a query and pairs equal a
 * brute-force answer, and the world still accepts new items. Prints "N passed, N failed".
 * Build: see spec/check/run.sh (the collide sources are compiled in; luaopen_collide is put
 * into package.preload). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua.h"
#include "lauxlib.h"
#include "lualib.h"

int luaopen_collide(lua_State *L);

typedef struct limit {
    long count;         /* growing allocations since armed */
    long max;           /* fail when count reaches max (-1: never) */
    int armed;
    long failures;      /* allocations refused */
    size_t bytes, peak; /* bytes allocated now, and the most at any time */
    size_t cap;         /* refuse growth beyond this many bytes (0: no cap) */
} limit;

/* lua_Alloc that refuses growing allocations once armed and past the limit, or past the byte cap
 * (never a shrink). */
static void *lalloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    limit *l = (limit *)ud;
    void *p;
    if (ptr == NULL) osize = 0;         /* (Lua passes a type code then) */
    if (nsize == 0) {
        free(ptr);
        l->bytes -= osize;
        return NULL;
    }
    if (ptr == NULL || nsize > osize) {
        if (l->cap > 0 && l->bytes + (nsize - osize) > l->cap) { l->failures++; return NULL; }
        if (l->armed) {
            if (l->max >= 0 && l->count >= l->max) { l->failures++; return NULL; }
            l->count++;
        }
    }
    p = realloc(ptr, nsize);
    if (p != NULL) {
        l->bytes += nsize - osize;
        if (l->bytes > l->peak) l->peak = l->bytes;
    }
    return p;
}

/* Setup (allocation unlimited): every table the script writes into is preallocated, so the
 * script's bookkeeping after a successful call never allocates. */
static const char *setup_src =
    "collide = require 'collide'\n"
    "W = nil\n"
    "NITEMS = 200\n"
    "ADDED, REMOVED, UPDATED, MOVED = {}, {}, {}, {}\n"
    "MX, MY, MZ = {}, {}, {}\n"
    "for i = 1, NITEMS do ADDED[i] = false; REMOVED[i] = false; UPDATED[i] = false; MOVED[i] = false;"
    " MX[i] = 0.5; MY[i] = 0.5; MZ[i] = 0.5 end\n"
    "STEP = 0\n"
    /* translatemany batch: items 91 and 92 twice (offsets add up), 93..98 once */
    "TI = {91, 92, 93, 91, 94, 95, 96, 97, 98, 92}\n"
    "TX, TY, TZ = {}, {}, {}\n"
    "for k = 1, #TI do TX[k] = 0.25; TY[k] = 0.5; TZ[k] = 0 end\n"
    /* the shape of item i: v = 0 original, 1 updated; moved by (mx, my, mz) */
    "function shapeof(i, v, mx, my, mz)\n"
    "  local x, y, z = (i % 10) * 1.5 + v * 0.25 + mx, (i // 10 % 5) * 1.5 + my, (i // 50) * 1.5 + mz\n"
    "  local k = i % 3\n"
    "  if k == 0 then return collide.AABB(x, y, z, x + 1 + v, y + 1, z + 1) end\n"
    "  if k == 1 then return collide.OBB(x + 0.5, y + 0.5, z + 0.5, 0.5, 0.75, 0.5, 0.6, 0.8, 0, -0.8, 0.6, 0, 0, 0, 1) end\n"
    "  return collide.Sphere(x + 0.5, y + 0.5, z + 0.5, 0.6 + v * 0.1)\n"
    "end\n";

/* The script under memory pressure. */
static const char *script_src =
    "W = collide.World()\n"
    "STEP = 1\n"
    "for i = 1, NITEMS do W:add(i, shapeof(i, 0, 0, 0, 0)); ADDED[i] = true end\n"
    "STEP = 2\n"
    "for i = 1, 60 do W:update(i, shapeof(i, 1, 0, 0, 0)); UPDATED[i] = true end\n"
    "STEP = 3\n"
    "for i = 150, NITEMS, 3 do W:remove(i); REMOVED[i] = true end\n"
    "STEP = 4\n"
    "local probe = collide.AABB(2, 2, 0, 8, 5, 3)\n"
    "local t, n = W:query(probe)\n"
    "t, n = W:query(probe, function(it) return it % 2 == 0 end, {})\n"
    "t, n = W:querypoint(3.5, 1.7, 0.5)\n"
    "local ray = collide.Ray(-5, 0.5, 0.5, 1, 0.01, 0.02)\n"
    "W:raycast(ray)\n"
    "W:raycast(ray, 100, function(it) return it > 5 end)\n"
    "t, n = W:raycastall(ray, 50)\n"
    "t, n = W:raycastall(ray, 50, nil, t)\n"
    "STEP = 5\n"
    "t, n = W:pairs()\n"
    "t, n = W:pairs({})\n"
    "W:sweep(probe, 3, 0, 0)\n"
    "W:sweep(collide.Sphere(-3, 0.5, 0.5, 0.5), 20, 0, 0, function(it) return it ~= 1 end)\n"
    "STEP = 6\n"
    "for i = 61, 80 do\n"
    "  local ax, ay, az = W:move(i, 0, 0, 9, function(a, b) return b % 2 == 0 and 'slide' or 'cross' end)\n"
    "  MX[i], MY[i], MZ[i] = ax, ay, az; MOVED[i] = true\n"
    "end\n"
    "STEP = 7\n"
    "for i = 81, 90 do W:check(i, 2, 0, 0) end\n"
    "STEP = 8\n"
    "W:translatemany(TI, TX, TY, TZ)\n"
    "for k = 1, #TI do local i = TI[k]\n"
    "  if MOVED[i] then MX[i], MY[i], MZ[i] = MX[i] + TX[k], MY[i] + TY[k], MZ[i] + TZ[k]\n"
    "  else MX[i], MY[i], MZ[i] = TX[k], TY[k], TZ[k]; MOVED[i] = true end\n"
    "end\n"
    "STEP = 9\n";

/* Runs with allocation allowed again: returns nothing, or raises a description of the first
 * inconsistency. */
static const char *verify_src =
    "if W == nil then\n"
    "  for i = 1, NITEMS do assert(not ADDED[i], 'item added without a world') end\n"
    "  return\n"
    "end\n"
    "local live = {}\n"
    "local n = 0\n"
    "for i = 1, NITEMS do\n"
    "  local want = ADDED[i] and not REMOVED[i]\n"
    "  if W:has(i) ~= want then error('item ' .. i .. ' has() is ' .. tostring(W:has(i)) .. ' at step ' .. STEP) end\n"
    "  if want then\n"
    "    n = n + 1\n"
    "    local s = W:shape(i)\n"
    "    local e = shapeof(i, UPDATED[i] and 1 or 0, 0, 0, 0)\n"
    "    if MOVED[i] then\n"
    "      e:translate(MX[i], MY[i], MZ[i])\n"
    "    end\n"
    "    local a, b = tostring(s), tostring(e)\n"
    "    if a ~= b then\n"
    "      error('item ' .. i .. ' shape ' .. a .. ' expected ' .. b .. ' at step ' .. STEP)\n"
    "    end\n"
    "    live[#live + 1] = i\n"
    "  end\n"
    "end\n"
    "if W:count() ~= n then error('count ' .. W:count() .. ' expected ' .. n .. ' at step ' .. STEP) end\n"
    "local probe = collide.AABB(1, 1, -1, 9, 6, 4)\n"
    "local got, gn = W:query(probe)\n"
    "local k = 0\n"
    "for _, i in ipairs(live) do\n"
    "  if probe:overlaps(W:shape(i)) then\n"
    "    k = k + 1\n"
    "    if got[k] ~= i then error('query item ' .. k .. ' is ' .. tostring(got[k]) .. ' expected ' .. i) end\n"
    "  end\n"
    "end\n"
    "if gn ~= k then error('query count ' .. gn .. ' expected ' .. k) end\n"
    "local pairs_, np = W:pairs()\n"
    "local q = 0\n"
    "for x = 1, #live do for y = x + 1, #live do\n"
    "  if W:shape(live[x]):overlaps(W:shape(live[y])) then\n"
    "    q = q + 1\n"
    "    if pairs_[2 * q - 1] ~= live[x] or pairs_[2 * q] ~= live[y] then error('pair ' .. q .. ' differs') end\n"
    "  end\n"
    "end end\n"
    "if np ~= q then error('pairs ' .. np .. ' expected ' .. q) end\n"
    "W:add('extra', collide.AABB(0, 0, 0, 1, 1, 1))\n"
    "assert(W:count() == n + 1 and W:has('extra'))\n"
    "W:remove('extra')\n";

/* Loads src as a chunk named name; returns 0 or prints the error. */
static int load(lua_State *L, const char *src, const char *name) {
    if (luaL_loadbuffer(L, src, strlen(src), name) != LUA_OK) {
        fprintf(stderr, "alloc_host: %s: %s\n", name, lua_tostring(L, -1));
        return 1;
    }
    return 0;
}

/* A new state on the allocator l with the standard libraries and collide in package.preload. */
static lua_State *newstate(limit *l) {
    lua_State *L = lua_newstate(lalloc, l);
    if (L == NULL) return NULL;
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_collide);
    lua_setfield(L, -2, "collide");
    lua_pop(L, 1);
    return L;
}

/* One run with the limit n: 0 passed, 1 failed; *done = 1 when the script completed. */
static int run(long n, int *done, long *used) {
    limit l = { 0, -1, 0, 0, 0, 0, 0 };
    lua_State *L = newstate(&l);
    int st, bad = 0;
    *done = 0;
    if (L == NULL) return 1;
    if (load(L, setup_src, "=setup") || lua_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "alloc_host: setup failed: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    if (load(L, script_src, "=script")) { lua_close(L); return 1; }
    l.max = n;
    l.armed = 1;
    st = lua_pcall(L, 0, 0, 0);
    l.armed = 0;
    *used = l.count;
    if (st == LUA_OK) {
        *done = l.failures == 0;
    } else {
        const char *msg = lua_tostring(L, -1);
        if (st != LUA_ERRMEM && (msg == NULL || strstr(msg, "not enough memory") == NULL)) {
            fprintf(stderr, "alloc_host: N=%ld: unexpected error (status %d): %s\n", n, st, msg ? msg : "?");
            bad = 1;
        }
        if (l.failures == 0) {
            fprintf(stderr, "alloc_host: N=%ld: error without an allocation failure: %s\n", n, msg ? msg : "?");
            bad = 1;
        }
    }
    lua_settop(L, 0);
    if (load(L, verify_src, "=verify") || lua_pcall(L, 0, 0, 0) != LUA_OK) {
        fprintf(stderr, "alloc_host: N=%ld: world inconsistent: %s\n", n, lua_tostring(L, -1));
        bad = 1;
    }
    lua_close(L);
    return bad;
}

/* Worlds of 20,000 items made and dropped without destroy, with the collector stopped: only the
 * collection World:add runs when its memory cannot grow can free them (issue 13: add failed at
 * the cap while dropped worlds waited to be collected). */
static const char *worlds_src =
    "local collide = require 'collide'\n"
    "local box = collide.AABB(0, 0, 0, 1, 1, 1)\n"
    "collectgarbage('collect')\n"
    "collectgarbage('stop')\n"
    "for r = 1, ROUNDS do\n"
    "  local w = collide.World()\n"
    "  for i = 1, 20000 do w:add(i, box) end\n"
    "end\n";

/* Runs worlds_src with ROUNDS = rounds under a cap of cap bytes (0: none); returns 0 when it
 * completed, else prints the error and returns 1; *peak = the most bytes in use. */
static int worlds(int rounds, size_t cap, size_t *peak) {
    limit l = { 0, -1, 0, 0, 0, 0, 0 };
    lua_State *L = newstate(&l);
    int st;
    if (L == NULL) return 1;
    lua_pushinteger(L, rounds);
    lua_setglobal(L, "ROUNDS");
    l.cap = cap;
    st = load(L, worlds_src, "=worlds") || lua_pcall(L, 0, 0, 0) != LUA_OK;
    if (st) fprintf(stderr, "alloc_host: worlds under a cap of %zu bytes: %s\n", cap, lua_tostring(L, -1));
    *peak = l.peak;
    lua_close(L);
    return st;
}

int main(int argc, char **argv) {
    long n, maxn = argc > 1 ? atol(argv[1]) : 200000, used = 0, total = 0;
    int passed = 0, failed = 0, done = 0;
    for (n = 0; n <= maxn && !done; n++) {
        if (run(n, &done, &used)) failed++;
        else passed++;
        if (failed >= 20) break;
    }
    if (!done) {
        fprintf(stderr, "alloc_host: the script never completed (N up to %ld)\n", n - 1);
        failed++;
    }
    total = used;
    printf("alloc_host: N = 0..%ld (script needs %ld allocations)\n", n - 1, total);
    {
        /* one world's peak, then 8 worlds under a cap of 2.5 worlds' worth */
        size_t one = 0, peak = 0;
        if (worlds(1, 0, &one) || worlds(8, one * 5 / 2, &peak)) failed++;
        else passed++;
        printf("alloc_host: 8 dropped worlds of 20,000 items, collector stopped, cap %zu bytes"
               " (2.5 worlds): peak %zu bytes\n", one * 5 / 2, peak);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
