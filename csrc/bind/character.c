/* collide Lua binding: collide.Character, the character controller (core: csrc/core/character.c).
 * A userdata holding the core's cl_char; its user value is {world, item}: the character finds
 * its item's id again at every call (an item removed and added again is followed; one that left
 * raises). Its move runs through world_move.c (lw_charmove), which calls the filter and builds
 * the collision tables exactly as world:move does. On LuaJIT, move without a filter and grounded
 * are replaced by FFI wrappers (ffi_world.c), which read the payload's tag through lw_fastchar. */
#include <math.h>
#include <string.h>

#include "lworld.h"

typedef struct lchar {
    /* &char_key, first: the LuaJIT FFI fast path (ffi_world.c) reads it from a userdata wearing
     * the Character metatable before it trusts the rest (as lworld's tag) */
    const char *tag;
    cl_char c;
} lchar;

static const char char_key = 0;     /* registry: the Character metatable; the payload's tag */
static const char charbody_key = 0; /* registry: the move body with a filter (see ch_move) */

/* Returns the Character at idx, or NULL for anything else (metatable and size checked). */
static lchar *tochar(lua_State *L, int idx) {
    lchar *ch = (lchar *)lua_touserdata(L, idx);
    int same;
    if (ch == NULL || lua_type(L, idx) != LUA_TUSERDATA || lua_rawlen(L, idx) != sizeof(lchar) ||
        !lua_getmetatable(L, idx))
        return NULL;
    cl_rawgetp(L, LUA_REGISTRYINDEX, &char_key);
    same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? ch : NULL;
}

/* Returns the Character at arg 1 or raises the standard type error. */
static lchar *checkchar(lua_State *L, const char *fname) {
    lchar *ch = tochar(L, 1);
    if (ch == NULL) cl_typeerror(L, 1, fname, "collide.Character");
    return ch;
}

/* Raises "bad argument #3 to 'Character' (option 'name' ...)". */
static int opterror(lua_State *L, const char *name, const char *what) {
    lua_pushfstring(L, "option '%s' %s", name, what);
    return cl_argerror(L, 3, "Character", lua_tostring(L, -1));
}

/* Returns the option value on top as a finite number in [lo, hi] or raises. */
static double optnum(lua_State *L, const char *name, double lo, double hi, const char *what) {
    double v;
    if (lua_type(L, -1) != LUA_TNUMBER) opterror(L, name, what);
    v = (double)lua_tonumber(L, -1);
    if (!isfinite(v) || v < lo || v > hi) opterror(L, name, what);
    return v;
}

/* Returns the unit up vector of the option table on top ({x, y, z}, finite, not zero). */
static cl_vec3 optup(lua_State *L) {
    double v[3], len;
    int i;
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != 3)
        opterror(L, "up", "is not a table of 3 numbers");
    for (i = 0; i < 3; i++) {
        lua_rawgeti(L, -1, i + 1);
        if (lua_type(L, -1) != LUA_TNUMBER) opterror(L, "up", "is not a table of 3 numbers");
        v[i] = (double)lua_tonumber(L, -1);
        lua_pop(L, 1);
        if (!isfinite(v[i])) opterror(L, "up", "is not finite");
    }
    len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(len > 0) || !isfinite(len)) opterror(L, "up", "is a zero vector");
    return cl_v3(v[0] / len, v[1] / len, v[2] / len);
}

/* collide.Character(world, item [, options]) -> character. */
static int ch_new(lua_State *L) {
    lworld *lw = lw_checkworld(L, "Character");
    cl_vec3 up = cl_v3(0, 1, 0);
    double maxslope = 50 * 3.14159265358979323846 / 180, step = 0, snap = 0;
    int id;
    lchar *ch;
    void *ud;
    lua_Alloc af;
    lua_settop(L, 3);
    id = lw_findid(L, lw, pushitems(L), 2);
    if (id < 0) cl_argerror(L, 2, "Character", "item is not in the world");
    if (cl_world_kind(&lw->w, id) == CL_MESH) cl_argerror(L, 2, "Character", "item is a mesh (mesh items do not move)");
    lua_pop(L, 1);
    if (!lua_isnil(L, 3)) {
        if (lua_type(L, 3) != LUA_TTABLE) cl_typeerror(L, 3, "Character", "table");
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            if (k && strcmp(k, "up") == 0) up = optup(L);
            else if (k && strcmp(k, "maxslope") == 0)
                maxslope = optnum(L, k, 0, 3.14159265358979323846 / 2, "is not a number in [0, pi/2]");
            else if (k && strcmp(k, "step") == 0) step = optnum(L, k, 0, HUGE_VAL, "is not a finite number >= 0");
            else if (k && strcmp(k, "snap") == 0) snap = optnum(L, k, 0, HUGE_VAL, "is not a finite number >= 0");
            else cl_optionerror(L, 3, "Character");
            lua_pop(L, 1);
        }
    }
    af = lua_getallocf(L, &ud);
    ch = (lchar *)w_newuserdata(L, sizeof(lchar));
    ch->tag = &char_key;
    cl_char_init(&ch->c, up, maxslope, step, snap, (cl_alloc)af, ud);
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, 2);
    w_setuv(L, -2);
    cl_rawgetp(L, LUA_REGISTRYINDEX, &char_key);
    lua_setmetatable(L, -2);
    return 1;
}

/* Pushes the character's world (at 1) and item; returns the live world, raises as bad
 * argument #1 of fname ("world is destroyed"), or the tampering error when its user value is
 * no longer {world, item} (debug.setuservalue). */
static lworld *charworld(lua_State *L, const char *fname) {
    lworld *lw = NULL;
    w_getuv(L, 1);
    if (lua_type(L, -1) != LUA_TTABLE) tampered(L);     /* (the debug library can replace it) */
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    lua_remove(L, -3);
    lw = lw_toworldat(L, -2);
    if (lw == NULL) tampered(L);
    if (!lw->alive) cl_argerror(L, 1, fname, "world is destroyed");
    return lw;
}

/* The move body on the stack world, item, dx, dy, dz, filter, out, character (see ch_move). */
static int ch_body(lua_State *L) {
    lworld *lw = (lworld *)lua_touserdata(L, 1);
    lchar *ch = (lchar *)lua_touserdata(L, 8);
    int id = lw_findid(L, lw, pushitems(L), 2);
    lua_pop(L, 1);
    return lw_charmove(L, lw, id, &ch->c, "move");
}

/* character:move(dx, dy, dz [, filter [, out]]) -> ax, ay, az, cols, n. */
static int ch_move(lua_State *L) {
    lchar *ch = checkchar(L, "move");
    lworld *lw;
    int id, st;
    cl_shape start, tmp;
    double seq;
    (void)cl_checkvec(L, 2, "move");
    if (!lua_isnoneornil(L, 5) && lua_type(L, 5) != LUA_TFUNCTION) cl_typeerror(L, 5, "move", "function");
    if (!lua_isnoneornil(L, 6) && lua_type(L, 6) != LUA_TTABLE) cl_typeerror(L, 6, "move", "table");
    lua_settop(L, 6);
    lw = charworld(L, "move");                  /* ..., world, item */
    checkunlocked(L, lw);
    /* the stack world:move's body reads: world, item, dx, dy, dz, filter, out; the character
     * after them */
    lua_pushvalue(L, 1);                        /* ..., world, item, ch */
    lua_replace(L, 1);                          /* ch, dx, dy, dz, filter, out, world, item */
    lua_insert(L, 1);                           /* item, ch, dx, ... */
    lua_insert(L, 1);                           /* world, item, ch, dx, dy, dz, filter, out */
    lua_pushvalue(L, 3);
    lua_remove(L, 3);                           /* world, item, dx, dy, dz, filter, out, ch */
    id = lw_findid(L, lw, pushitems(L), 2);
    lua_pop(L, 1);
    if (id < 0) cl_argerror(L, 1, "move", "character's item is not in its world");
    if (cl_world_kind(&lw->w, id) == CL_MESH)      /* (removed and added again as a mesh) */
        cl_argerror(L, 1, "move", "character's item is a mesh (mesh items do not move)");
    (void)ch;
    if (lua_isnil(L, 6)) {
        int n = lw_charmove(L, lw, id, &ch->c, "move");
        redo(lw);
        return n;
    }
    /* with a filter: locked and protected; an error puts the item back where it started */
    start = *cl_world_shape(&lw->w, id, &tmp);
    seq = lw->w.items[id].seq;
    cl_rawgetp(L, LUA_REGISTRYINDEX, &charbody_key);
    lua_insert(L, 1);
    lw->lock++;
    st = lua_pcall(L, 8, LUA_MULTRET, 0);
    lw->lock--;
    if (st != 0) {
        lw->redo = 0;
        /* the filter's error left cl_char_move without its exit: turn off the mesh candidate cache
         * it turned on (keyed by the mesh's address: left on, a later world:move took a new mesh
         * made at a collected one's address for it, review rev13's F1) */
        if (lw->alive) cl_pmkeep_cache(&lw->w.mkeep, 0, cl_v3(0, 0, 0), 0);
        if (lw->alive && lw->w.items[id].proxy != CL_NULLNODE && lw->w.items[id].seq == seq) {
            cl_world_update(&lw->w, id, &start);
            lw->gen++;
        }
        return lua_error(L);
    }
    redo(lw);
    return lua_gettop(L);
}

/* character:grounded() -> true, item, nx, ny, nz, or false (as of the last move). */
static int ch_grounded(lua_State *L) {
    lchar *ch = checkchar(L, "grounded");
    lworld *lw = charworld(L, "grounded");
    int g;
    cl_vec3 n;
    if (!cl_char_grounded(&ch->c, &lw->w, &g, &n)) {
        lua_pushboolean(L, 0);
        return 1;
    }
    w_getuv(L, -2);                             /* the world's U */
    if (lua_type(L, -1) != LUA_TTABLE) tampered(L);
    lua_pushboolean(L, 1);
    pushitem(L, lw, lua_gettop(L) - 1, g);
    lua_pushnumber(L, n.x);
    lua_pushnumber(L, n.y);
    lua_pushnumber(L, n.z);
    return 5;
}

#ifdef CL_LUAJIT
/* ffi_world.c's fast path: the character whose userdata payload is ud (its tag checked), else
 * NULL (ud NULL: a closed Lua file wearing the Character metatable, whose FILE * the FFI
 * passes). */
CL_API cl_char *lw_fastchar(void *ud);
cl_char *lw_fastchar(void *ud) {
    lchar *ch = (lchar *)ud;
    return ch != NULL && ch->tag == &char_key ? &ch->c : NULL;
}
#endif

/* __gc: frees the collision buffer. */
static int ch_gc(lua_State *L) {
    lchar *ch = tochar(L, 1);
    if (ch) cl_char_free(&ch->c);
    return 0;
}

/* __tostring: "Character(up x, y, z)". */
static int ch_tostring(lua_State *L) {
    lchar *ch = checkchar(L, "__tostring");
    char buf[160];
    snprintf(buf, sizeof buf, "Character(up %.14g, %.14g, %.14g)", ch->c.up.x + 0.0, ch->c.up.y + 0.0,
             ch->c.up.z + 0.0);
    lua_pushstring(L, buf);
    return 1;
}

static const luaL_Reg char_methods[] = {
    { "move", ch_move }, { "grounded", ch_grounded }, { NULL, NULL }
};

static const luaL_Reg char_metamethods[] = {
    { "__gc", ch_gc }, { "__tostring", ch_tostring }, { NULL, NULL }
};

/* Adds collide.Character to the module table on top (after cl_open_world). */
void cl_open_character(lua_State *L) {
    int nup;
    luaL_newmetatable(L, "collide.Character");
    lua_pushvalue(L, -1);
    cl_rawsetp(L, LUA_REGISTRYINDEX, &char_key);
    luaL_setfuncs(L, char_metamethods, 0);
    lua_newtable(L);
    luaL_setfuncs(L, char_methods, lw_pushhotupvalues(L));
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    nup = lw_pushhotupvalues(L);
    lua_pushcclosure(L, ch_body, nup);
    cl_rawsetp(L, LUA_REGISTRYINDEX, &charbody_key);
    lua_pushcfunction(L, ch_new);
    lua_setfield(L, -2, "Character");
}
