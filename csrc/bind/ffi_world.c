/* collide Lua binding: the LuaJIT FFI fast path of the World (built only against LuaJIT headers):
 * world:move, world:query, world:querypoint, world:raycast and world:raycastall (the last without
 * an out table: with one it takes the classic path) without a filter, and a Character's move
 * without a filter and grounded (collide._classic.Character keeps the classic methods).
 *
 * As for the shapes (ffi.c, whose header explains the FFI conventions and the safety argument),
 * each method gets a plain C entry point below taking the World userdata as a pointer to its
 * payload (the lworld, whose first field is the tag &lw_world_key) and numbers as doubles, and an
 * embedded Lua chunk (below; run by cl_open_ffi once the shapes' chunk is installed) replaces the
 * method by a Lua wrapper that LuaJIT compiles into a direct call.
 *
 * What C cannot do, the wrapper does in Lua: items are arbitrary Lua values, so the wrapper maps an
 * item to its id (a number item first through the World's number map lworld.fm, which alone holds
 * the number items it has a slot for (FM_ONLY): the fast function looks it up; any other item, or
 * a number fm does not know, through the World's own item -> id table U[0]) and ids back to items
 * through U (U[id + 1]), the user value of the World (read once per world with debug.getfenv,
 * taken when collide is loaded, and cached in a weak table); it builds the result tables exactly as the
 * classic functions do (world_results.c, world_move.c: raw sets, out tables cleared past the
 * results, the spare collision tables of move's out tables through lworld.npool, read and written
 * through the FFI at its offset). Filters are Lua functions that the classic path calls with the
 * world locked: a call given a filter takes the classic path, as does any irregular call (a
 * fast function returns -1 without changing anything; the classic function then raises the exact
 * classic error): wrong types, non-finite numbers, an item not in the world, a locked or destroyed
 * world, more results than the wrapper's buffers hold (which grow for the next call).
 *
 * Reentrancy: a Lua allocation while the wrapper builds its tables may run a finalizer that uses
 * collide. The ids and collisions sit in buffers shared by the wrappers, so a wrapper that builds
 * results marks them busy from before its fast call and any fast call meanwhile takes the classic
 * path; the fast call itself reports the World's gen (lworld.gen) once the core has answered, and
 * a finalizer that changes this world (the gen moves: read again after the tables are built)
 * raises the classic error "world used by a finalizer while 'f' built its results", and a move
 * is then not committed (the classic move commits after building its tables too: world_move.c's
 * redo).
 *
 * A Character (character.c) is a userdata tagged like the World (its payload starts with
 * &char_key) whose user value is {world, item}: its wrappers read that table at every call (a
 * user value replaced through the debug library is seen: the classic path then raises), map the
 * item to its id as world:move's wrapper does and run cl_char_move as the classic path does
 * (world_move.c's lw_charmove): a move with collisions is put back at its start while the tables
 * are built and committed by fw_commit, as world:move's.
 *
 * Known difference: a user value replaced with debug.setfenv after the wrapper first met the
 * world is not seen by the wrapper (it keeps the tables the World made; the classic path reads
 * the new one). Entries changed inside those tables are seen by both. On LuaJIT a number item
 * keeps its U[id + 1] entry (lworld.h's NM_ON is 0 there), so the wrappers read every item from U.
 * Second known difference: the record tables the wrappers make new (move's collisions, raycastall's
 * hits) come from table constructors, a copy of a template LuaJIT laid out while it grew, so their
 * pairs() order may differ from the classic tables' (the same keys and values: review rev25 saw it
 * in 22 of 100 processes; Lua leaves that order unspecified, and it changes between processes
 * anyway, string hashes being seeded per process). A constructor made them 15-45% cheaper. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lworld.h"

#ifdef CL_LUAJIT

/* character.c: the character whose userdata payload is ud (its tag checked), else NULL. */
CL_API cl_char *lw_fastchar(void *ud);
/* world_move.c (declared in the core's world_internal.h): cl_world_move without responses that
 * commits only a move that met nothing (n = 0). */
CL_API int clw_move_commitfree(cl_world *w, int id, cl_vec3 d, cl_vec3 *actual);

/* 1 if x, y and z are all finite (as cl_checkvec). */
static int fin3w(double x, double y, double z) { return (x - x) + (y - y) + (z - z) == 0; }

/* The live World whose payload is ud (any lock state), else NULL (NULL ud: a closed Lua file
 * wearing the World metatable, whose FILE * the FFI passes). */
static lworld *liveworld(void *ud) {
    lworld *lw = (lworld *)ud;
    return lw != NULL && lw->tag == &lw_world_key && lw->alive ? lw : NULL;
}

/* The id of the item that is the number x through the fast map lworld.fm (as lworld.h's fastid:
 * the double tests of w_numslot on 5.1 and LuaJIT, -0.0 in slot 0, NaN out of range), or -1 when
 * fm has no live entry for it (the wrapper then asks U[0], where the classic lookup goes too). */
static int fw_numid(const lworld *lw, double x) {
    int k;
    if (!(x >= 0 && x < (double)lw->fmcap)) return -1;
    k = (int)x;
    if ((double)k != x || !liveid(lw, lw->fm[k] - 1)) return -1;
    return lw->fm[k] - 1;
}

/* The id of the mover of fw_move and fc_move: the number item did through fw_numid (num 1; -3
 * when fm does not know it), else did itself, a live item's id; -1 when it is no live item or a
 * mesh item (never moved). */
static int fw_moverid(const lworld *lw, double did, int num) {
    int id;
    if (num) {
        if ((id = fw_numid(lw, did)) < 0) return -3;
    } else {
        if (!(did >= 0 && did < (double)lw->w.cap)) return -1;
        id = (int)did;
        if ((double)id != did || !liveid(lw, id)) return -1;
    }
    return cl_world_kind(&lw->w, id) == CL_MESH ? -1 : id;
}

/* Copies the shape of any kind at the shape userdata payload sud into *s; 0 if it is not one. */
static int toshape(const void *sud, cl_shape *s) {
    const cl_udhead *h = (const cl_udhead *)sud;
    int k;
    if (h == NULL) return 0;
    /* the kind by equality with each tag, never by arithmetic on the word (as ffi.c's shapekind:
     * a foreign payload's first word may hold bytes nobody wrote) */
    for (k = 0; k < CL_KINDS && h->tag != &cl_class_tags[k]; k++) continue;
    switch (k) {
#define COPY(K, T, m) case K: s->u.m = *(const T *)(const void *)(h + 1); break;
    CL_KIND_LIST(COPY)
#undef COPY
    default: return 0;
    }
    s->kind = (cl_kind)k;
    return 1;
}

/* Copies the n result ids of the last query into ids when n <= cap; returns n (>= 0), or -1
 * when the core ran out of memory (the classic call then raises it). */
static int putres(const lworld *lw, int n, int32_t *ids, int cap) {
    if (n > 0 && n <= cap) memcpy(ids, lw->w.res, (size_t)n * sizeof(int32_t));  /* res is NULL until a result */
    return n < 0 ? -1 : n;
}

/* world:querypoint(x, y, z): the number n of items containing the point, their ids in ids[0..n-1]
 * if n <= cap (else nothing copied: the wrapper takes the classic path), and the World's gen once
 * the core has answered in *gen (the wrapper compares it after building the list: taken here, not
 * by a later call, so a finalizer run in between cannot go unseen); -1 if irregular. */
static int fw_querypoint(void *ud, double x, double y, double z, int32_t *ids, int cap, double *gen) {
    lworld *lw = liveworld(ud);
    int n;
    if (lw == NULL || !fin3w(x, y, z)) return -1;
    lw->gen++;
    n = putres(lw, cl_world_querypoint(&lw->w, cl_v3(x, y, z)), ids, cap);
    *gen = lw->gen;
    return n;
}

/* world:query(shape): as fw_querypoint, for the items overlapping the shape at sud. */
static int fw_query(void *ud, const void *sud, int32_t *ids, int cap, double *gen) {
    lworld *lw = liveworld(ud);
    cl_shape s;
    int n;
    if (lw == NULL || !toshape(sud, &s)) return -1;
    lw->gen++;
    n = putres(lw, cl_world_query(&lw->w, &s), ids, cap);
    *gen = lw->gen;
    return n;
}

/* The triangle a ray hit on item id, as world_query.c's raytri + 1 (the mesh's own raycast names
 * it), for a mesh item; 0 for any other item or when that raycast misses. */
static double fw_tri(const lworld *lw, int id, const cl_ray *r, double maxt) {
    cl_shape tmp;
    const cl_shape *s = cl_world_shape(&lw->w, id, &tmp);
    cl_hit mh;
    size_t tri;
    return s->kind == CL_MESH && cl_pmesh_raycast(&s->u.mesh, r, maxt, &mh, &tri) ? (double)tri + 1 : 0;
}

/* world:raycast(ray, maxt): 0 (no hit), 1 with t, nx, ny, nz, id in out[0..4], or 2 (a mesh item)
 * with also the triangle in out[5] as world_query.c's lw_raycast reports it (its raytri + 1: the
 * mesh's own raycast names the triangle); -1 if irregular. */
static int fw_raycast(void *ud, const void *rud, double maxt, double *out) {
    lworld *lw = liveworld(ud);
    const cl_udhead *h = (const cl_udhead *)rud;
    const cl_ray *r;
    cl_whit hit;
    int st;
    if (lw == NULL || h == NULL || h->tag != &cl_class_tags[CL_K_RAY] || !(maxt >= 0)) return -1;
    r = (const cl_ray *)(const void *)(h + 1);
    st = cl_world_raycast(&lw->w, r, maxt, -1, -1, &hit);
    if (st <= 0) return st < 0 ? -1 : 0;
    out[0] = hit.t;
    out[1] = hit.n.x;
    out[2] = hit.n.y;
    out[3] = hit.n.z;
    out[4] = hit.item;
    if (cl_world_kind(&lw->w, hit.item) != CL_MESH) return 1;
    out[5] = fw_tri(lw, hit.item, r, maxt);
    return 2;
}

/* world:raycastall(ray, maxt) without a filter or an out table: the hit count n (>= 0), each hit
 * as t, nx, ny, nz, id, tri in hits[6i..6i+5] when n <= cap (else nothing copied: the wrapper grows
 * its buffer and takes the classic path), tri being a mesh item's triangle + 1 as world_query.c's
 * lw_b_raycastall reports it (raytri + 1), 0 for any other hit (no tri field); the World's gen once
 * the core has answered in *gen (as fw_querypoint's); -1 if irregular (the checks of fw_raycast). */
static int fw_raycastall(void *ud, const void *rud, double maxt, double *hits, int cap, double *gen) {
    lworld *lw = liveworld(ud);
    const cl_udhead *h = (const cl_udhead *)rud;
    const cl_ray *r;
    int n, i;
    if (lw == NULL || h == NULL || h->tag != &cl_class_tags[CL_K_RAY] || !(maxt >= 0)) return -1;
    r = (const cl_ray *)(const void *)(h + 1);
    lw->gen++;
    n = cl_world_raycastall(&lw->w, r, maxt);
    if (n < 0) return -1;
    if (n <= cap) {
        for (i = 0; i < n; i++) {
            const cl_whit *wh = &lw->w.hits[i];
            double *o = hits + 6 * i;
            o[0] = wh->t;
            o[1] = wh->n.x;
            o[2] = wh->n.y;
            o[3] = wh->n.z;
            o[4] = wh->item;
            o[5] = fw_tri(lw, wh->item, r, maxt);
        }
    }
    *gen = lw->gen;
    return n;
}

/* Writes collisions c[0..n-1] as other id, type, t, nx, ny, nz into cols[6i..6i+5]. */
static void putcols(const cl_col *c, int n, double *cols) {
    int i;
    for (i = 0; i < n; i++, c++) {
        double *o = cols + 6 * i;
        o[0] = c->other;
        o[1] = (double)c->type;
        o[2] = c->t;
        o[3] = c->n.x;
        o[4] = c->n.y;
        o[5] = c->n.z;
    }
}

/* world:move(item, dx, dy, dz) for the item's id did (num 0), or for the number item did (num 1:
 * its id from fm; -3, nothing done, when fm does not know it), without a filter: the collision
 * count n with ax, ay, az in out[0..2] and each collision as other id, type, t, nx, ny, nz in
 * cols[6i..6i+5]. n = 0: the move is committed (as domove does). n > 0: nothing committed, the
 * end shape kept in lworld's redo fields (lworld.redo stays 0) for fw_commit, the World's gen in
 * out[4] (what fw_commit expects; taken here, as fw_querypoint's). -1 if irregular
 * (an id that is no live item or a mesh item, a locked world, a pending classic redo, a
 * non-finite delta, out of memory), -2 (world unchanged, the count in out[3]) when n > cap. */
static int fw_move(void *ud, double did, int num, double dx, double dy, double dz, double *out, double *cols,
                   int cap) {
    lworld *lw = liveworld(ud);
    int id, n;
    cl_vec3 a;
    if (lw == NULL || lw->lock || lw->redo || !fin3w(dx, dy, dz)) return -1;
    if ((id = fw_moverid(lw, did, num)) < 0) return id;
    lw->gen++;
    n = clw_move_commitfree(&lw->w, id, cl_v3(dx, dy, dz), &a);   /* n = 0: committed */
    if (n < 0) return -1;
    out[0] = a.x;
    out[1] = a.y;
    out[2] = a.z;
    if (n == 0) {
        lw->gen++;
        return 0;
    }
    if (n > cap) {
        out[3] = n;
        return -2;
    }
    putcols(lw->w.cols, n, cols);
    lw->redoid = id;
    lw->redoseq = lw->w.items[id].seq;
    lw->redoshape = lw->w.mend;
    out[4] = lw->gen;
    return n;
}

/* character:move(dx, dy, dz) without a filter, for the character at cud whose item has id did (or
 * is the number did, num 1, as fw_move's) in the World at ud: as fw_move (the same results in out
 * and cols, the same returns), the move made by cl_char_move as character.c's classic path does
 * (world_move.c's lw_charmove): the core commits the character's legs as it goes; a move with
 * collisions is put back at its start and left pending for fw_commit (the World's gen in out[4]),
 * the character's own state (its ground) already updated. -2 (the count in out[3]) also leaves
 * the move pending: the wrapper grows its buffer and takes the collisions with fc_cols. -1 if
 * irregular, nothing changed (a foreign userdata, a dead or locked world, a pending classic redo,
 * an id that is no live item or a mesh item, a non-finite delta, out of memory: the core put the
 * item back and left the character as it was). */
static int fc_move(void *cud, void *ud, double did, int num, double dx, double dy, double dz, double *out,
                   double *cols, int cap) {
    cl_char *c = lw_fastchar(cud);
    lworld *lw = liveworld(ud);
    int id, n;
    double seq;
    cl_shape start, tmp;
    cl_vec3 a;
    if (c == NULL || lw == NULL || lw->lock || lw->redo || !fin3w(dx, dy, dz)) return -1;
    if ((id = fw_moverid(lw, did, num)) < 0) return id;
    start = *cl_world_shape(&lw->w, id, &tmp);
    seq = lw->w.items[id].seq;
    lw->gen++;
    n = cl_char_move(c, &lw->w, id, cl_v3(dx, dy, dz), NULL, NULL, &a);
    if (n < 0) return -1;
    out[0] = a.x;
    out[1] = a.y;
    out[2] = a.z;
    if (n == 0) {
        lw->gen++;
        return 0;
    }
    lw->redoid = id;
    lw->redoseq = seq;
    lw->redoshape = *cl_world_shape(&lw->w, id, &tmp);
    cl_world_update(&lw->w, id, &start);
    out[4] = lw->gen;
    if (n > cap) {
        out[3] = n;
        return -2;
    }
    putcols(c->cols, n, cols);
    return n;
}

/* After fc_move returned -2: copies the character's n collisions into cols (cap of them) and
 * returns n, if the world's gen is still gen (nothing ran on it since) and they fit; else -1. */
static int fc_cols(void *cud, void *ud, double gen, int n, double *cols, int cap) {
    cl_char *c = lw_fastchar(cud);
    lworld *lw = liveworld(ud);
    if (c == NULL || lw == NULL || (double)lw->gen != gen || c->ncols != n || n > cap) return -1;
    putcols(c->cols, n, cols);
    return n;
}

/* character:grounded() for the character at cud in the World at ud (any lock state): 0 (not
 * grounded), 1 with the ground's id in out[0] and its normal in out[1..3]; -1 if irregular. */
static int fc_grounded(void *cud, void *ud, double *out) {
    cl_char *c = lw_fastchar(cud);
    lworld *lw = liveworld(ud);
    int g;
    cl_vec3 n;
    if (c == NULL || lw == NULL) return -1;
    if (!cl_char_grounded(c, &lw->w, &g, &n)) return 0;
    out[0] = g;
    out[1] = n.x;
    out[2] = n.y;
    out[3] = n.z;
    return 1;
}

/* Commits the move fw_move left pending if the world's gen is still gen (nothing changed it
 * while the wrapper built the tables): 1; else 0 (nothing done; the wrapper raises). */
static int fw_commit(void *ud, double gen) {
    lworld *lw = liveworld(ud);
    if (lw == NULL || (double)lw->gen != gen || lw->w.items[lw->redoid].proxy == CL_NULLNODE ||
        lw->w.items[lw->redoid].seq != lw->redoseq)
        return 0;
    cl_world_update(&lw->w, lw->redoid, &lw->redoshape);
    lw->gen++;
    return 1;
}

/* The World's gen (any state; ud is a World: its fast call just succeeded). */
static double fw_gen(void *ud) {
    return (double)((const lworld *)ud)->gen;
}

/* The World's count of spare collision tables (lworld.npool), set to set first when set >= 0. */
static int fw_npool(void *ud, int set) {
    lworld *lw = (lworld *)ud;
    if (set >= 0) lw->npool = set;
    return lw->npool;
}

/* The fast functions by name (light userdata pointing at the .fn fields, as in ffi.c). */
typedef void (*anyfnw)(void);
static const struct { const char *name; anyfnw fn; } wfast[] = {
    { "querypoint", (anyfnw)fw_querypoint }, { "query", (anyfnw)fw_query },
    { "raycast", (anyfnw)fw_raycast }, { "raycastall", (anyfnw)fw_raycastall }, { "move", (anyfnw)fw_move },
    { "commit", (anyfnw)fw_commit },
    { "gen", (anyfnw)fw_gen }, { "npool", (anyfnw)fw_npool }, { "charmove", (anyfnw)fc_move },
    { "charcols", (anyfnw)fc_cols }, { "grounded", (anyfnw)fc_grounded },
};

/* The Lua chunk (run by lw_open_ffi), pieces of under 4095 characters as in ffi.c. */
static const char *const wchunk[] = {
/* CHUNK BEGIN */
    "-- collide.ffi.world (embedded in csrc/bind/ffi_world.c): replaces world:move, query, querypoint,\n"
    "-- raycast and raycastall, and character:move and grounded, by Lua wrappers calling the C fast\n"
    "-- functions through the LuaJIT FFI when no filter (and for raycastall no out table) is given.\n"
    "-- Arguments: the module, the World metatable, the shape kinds' metatables as a set, the Ray metatable, the fast functions by name, debug.getmetatable,\n"
    "-- debug.getfenv, the classic table and the Character metatable.\n"
    "-- Replaces nothing unless all was built. Nothing here allocates on a warm call with out tables,\n"
    "-- interpreted too (no cdata is made: every FFI call returns a number).\n"
    "local M, MW, KINDMT, MR, FAST, getmetatable, getfenv, classic, MCH = ...\n"
    "local ffi = require \"ffi\"\n"
    "local type, rawget, rawset, rawequal, error, setmetatable = type, rawget, rawset, rawequal, error, setmetatable\n"
    "local HUGE = math.huge\n"
    "local ok, tnew = pcall(require, \"table.new\")\n"
    "if not ok or type(tnew) ~= \"function\" then tnew = function() return {} end end\n"
    "local anyfnp = ffi.typeof(\"void (**)(void)\")\n"
    "local function cfn(name, params, ret)\n"
    "  return ffi.cast((ret or \"int\") .. \" (*)(\" .. params .. \")\", ffi.cast(anyfnp, FAST[name])[0])\n"
    "end\n"
    "local FQP = cfn(\"querypoint\", \"void *, double, double, double, int32_t *, int, double *\")\n"
    "local FQ = cfn(\"query\", \"void *, const void *, int32_t *, int, double *\")\n"
    "local FRC = cfn(\"raycast\", \"void *, const void *, double, double *\")\n"
    "local FRA = cfn(\"raycastall\", \"void *, const void *, double, double *, int, double *\")\n"
    "local FMV = cfn(\"move\", \"void *, double, int, double, double, double, double *, double *, int\")\n"
    "local FCM = cfn(\"commit\", \"void *, double\")\n"
    "local FGEN = cfn(\"gen\", \"void *\", \"double\")\n"
    "local FNP = cfn(\"npool\", \"void *, int\")\n"
    "local FCMV = cfn(\"charmove\", \"void *, void *, double, int, double, double, double, double *, double *, int\")\n"
    "local FCC = cfn(\"charcols\", \"void *, void *, double, int, double *, int\")\n"
    "local FCG = cfn(\"grounded\", \"void *, void *, double *\")\n"
    "local ivla, dvla = ffi.typeof(\"int32_t[?]\"), ffi.typeof(\"double[?]\")\n"
    "-- Light userdata share one metatable: checking that it is not the World's keeps them from C (ffi.c).\n"
    "local LUD = FAST.move\n"
    "local OUT = dvla(8)\n"
    "-- The result buffer of the wrappers that set busy before their fast call (move, character:move,\n"
    "-- grounded, query, querypoint, raycastall; the last three write only the gen, in MOUT[0]) and read it\n"
    "-- before clearing busy, so a finalizer run meanwhile (at a trace exit, or by an allocation) takes the\n"
    "-- classic path for those, and its raycasts write OUT, not this. IDS, COLS and HITS are guarded alike.\n"
    "local MOUT = dvla(8)\n"
    "local IDS, IDCAP = ivla(256), 256\n"
    "local COLS, COLCAP = dvla(6 * 64), 64\n"
    "local HITS, HITCAP = dvla(6 * 64), 64\n"
    "local RESP = { [0] = \"ignore\", \"slide\", \"touch\", \"cross\", \"bounce\" }\n"
    "local POOLMAX = 16   -- world.c's POOLMAX (lworld.h)\n"
    "-- the user value U of each World met (see ffi_world.c), by World; weak keys\n"
    "local UV = setmetatable({}, { __mode = \"k\" })\n"

    "-- true while a wrapper reads the shared buffers after a Lua allocation: fast calls then go classic\n"
    "local busy = false\n"
    "local W = MW.__index\n"
    "if type(W) ~= \"table\" then return end\n"
    "local C = {}\n"
    "for _, name in ipairs { \"move\", \"query\", \"querypoint\", \"raycast\", \"raycastall\" } do\n"
    "  if type(W[name]) ~= \"function\" then return end\n"
    "  C[name] = W[name]\n"
    "end\n"
    "-- the Character's classic methods (none: its wrappers are not installed)\n"
    "local CHM = type(MCH) == \"table\" and rawget(MCH, \"__index\")\n"
    "local CC\n"
    "if type(CHM) == \"table\" and type(CHM.move) == \"function\" and type(CHM.grounded) == \"function\" then\n"
    "  CC = { move = CHM.move, grounded = CHM.grounded }\n"
    "end\n"
    "\n",
    "-- U of the World w (a World's payload, its metatable checked), cached; nil if it is no table.\n"
    "local function items(w)\n"
    "  local U = getfenv(w)\n"
    "  if type(U) ~= \"table\" then return nil end\n"
    "  UV[w] = U\n"
    "  return U\n"
    "end\n"
    "\n"
    "-- Loops are kept off the common paths: a loop inside a wrapper becomes a trace of its own and the\n"
    "-- caller's trace is left at its exit (as in ffi.c's pointinpolygon); so every loop below is behind\n"
    "-- a test that tells whether it has anything to do, and short result lists are written unrolled.\n"
    "\n"
    "-- world_results.c's lw_cleartail: t[i] = nil for i > n up to the border and past any hole.\n"
    "-- (Nothing to do when t[n + 1] is nil and the border is at most n: the callers test that first.)\n"
    "local function cleartail(t, n)\n"
    "  local len = #t\n"
    "  if len <= n + 4 then             -- a tail of at most 4 (the usual case) without a loop\n"
    "    if len > n then rawset(t, n + 1, nil) end\n"
    "    if len > n + 1 then rawset(t, n + 2, nil) end\n"
    "    if len > n + 2 then rawset(t, n + 3, nil) end\n"
    "    if len > n + 3 then rawset(t, n + 4, nil) end\n"
    "    if rawget(t, (len > n and len or n) + 1) == nil then return end\n"
    "  end\n"
    "  for i = n + 1, len do rawset(t, i, nil) end\n"
    "  local i = (len > n and len or n) + 1\n"
    "  while rawget(t, i) ~= nil do\n"
    "    rawset(t, i, nil)\n"
    "    i = i + 1\n"
    "  end\n"
    "end\n"
    "\n"
    "-- 1..n of t holds x (rawequal).\n"
    "local function inprefix(t, n, x)\n"
    "  for i = 1, n do\n"
    "    if rawequal(rawget(t, i), x) then return true end\n"
    "  end\n"
    "  return false\n"
    "end\n"
    "\n"
    "-- world_results.c's lw_poolinner for move's pool U[-2]: the table at out[i], else a spare or a\n"
    "-- new one, stored there.\n"
    "local function poolinner(w, U, t, i)\n"
    "  local x = rawget(t, i)\n"
    "  if type(x) == \"table\" then return x end\n"
    "  local np = FNP(w, -1)\n"
    "  if np > 0 then\n"
    "    np = np - 1\n"
    "    FNP(w, np)\n"
    "    local P = rawget(U, -2)\n",
    "    if type(P) == \"table\" then x = rawget(P, np + 1) else x = nil end\n"
    "    if type(x) ~= \"table\" then x = tnew(0, 6) end\n"
    "  else\n"
    "    x = tnew(0, 6)\n"
    "  end\n"
    "  rawset(t, i, x)\n"
    "  return x\n"
    "end\n"
    "\n"
    "-- world_results.c's lw_pooltail for move's pool U[-2] (at most POOLMAX spares).\n"
    "local function pooltail(w, U, t, n)\n"
    "  local len = #t\n"
    "  local i = n + 1\n"
    "  while true do\n"
    "    local x = rawget(t, i)\n"
    "    if i > len and x == nil then break end\n"
    "    if FNP(w, -1) < POOLMAX and type(x) == \"table\" and not inprefix(t, n, x) then\n"
    "      local P = rawget(U, -2)\n"
    "      if type(P) == \"table\" then\n"
    "        local np = FNP(w, -1)\n"
    "        if not inprefix(P, np, x) then\n"
    "          rawset(P, np + 1, x)\n"
    "          FNP(w, np + 1)\n"
    "        end\n"
    "      end\n"
    "    end\n"
    "    rawset(t, i, nil)\n"
    "    i = i + 1\n"
    "  end\n"
    "end\n"
    "\n"
    "-- Raises the classic error of a World changed by a finalizer while fname built its results.\n"
    "local function changed(fname)\n"
    "  busy = false\n"
    "  error(\"world used by a finalizer while '\" .. fname .. \"' built its results\", 0)\n"
    "end\n"
    "\n"
    "-- The item list of IDS[0..n-1] (into out, or a new table), as lw_pushitemlist without a filter.\n"
    "-- The caller set busy before the fast call, which left the World's gen in MOUT[0]; clears busy.\n"
    "-- With no result nothing is read after an allocation, so nothing to check (a finalizer run by the\n"
    "-- new table's allocation cannot make an empty answer stale; lw_pushitemlist checks and may raise).\n"
    "local function itemlist(w, U, n, out, fname)\n"
    "  if n == 0 then\n"
    "    busy = false\n"
    "    if out == nil then return tnew(0, 0), 0 end\n"
    "    if rawget(out, 1) ~= nil or #out > 0 then cleartail(out, 0) end\n"
    "    return out, 0\n"
    "  end\n"
    "  local gen = MOUT[0]\n"
    "  local t = out\n"
    "  if t == nil then\n"
    "    if n <= 3 then                -- short lists by constructors (an allocation of a constant size)\n"
    "      if n == 1 then\n"
    "        t = { rawget(U, IDS[0] + 1) }\n"
    "      elseif n == 2 then\n"
    "        t = { rawget(U, IDS[0] + 1), rawget(U, IDS[1] + 1) }\n"
    "      else\n"
    "        t = { rawget(U, IDS[0] + 1), rawget(U, IDS[1] + 1), rawget(U, IDS[2] + 1) }\n"
    "      end\n"
    "      if FGEN(w) ~= gen then changed(fname) end\n"
    "      busy = false\n"
    "      return t, n\n"
    "    end\n"
    "    t = tnew(n, 0)\n"
    "  end\n"
    "  if n <= 8 then\n"
    "    rawset(t, 1, rawget(U, IDS[0] + 1))\n"
    "    if n >= 2 then rawset(t, 2, rawget(U, IDS[1] + 1)) end\n"
    "    if n >= 3 then rawset(t, 3, rawget(U, IDS[2] + 1)) end\n"
    "    if n >= 4 then rawset(t, 4, rawget(U, IDS[3] + 1)) end\n"
    "    if n >= 5 then rawset(t, 5, rawget(U, IDS[4] + 1)) end\n"
    "    if n >= 6 then rawset(t, 6, rawget(U, IDS[5] + 1)) end\n"
    "    if n >= 7 then rawset(t, 7, rawget(U, IDS[6] + 1)) end\n"
    "    if n >= 8 then rawset(t, 8, rawget(U, IDS[7] + 1)) end\n"
    "  else\n"
    "    for i = 1, n do rawset(t, i, rawget(U, IDS[i - 1] + 1)) end\n"
    "  end\n"
    "  if FGEN(w) ~= gen then changed(fname) end\n"
    "  busy = false\n"
    "  if out ~= nil and (rawget(t, n + 1) ~= nil or #t > n) then cleartail(t, n) end\n"
    "  return t, n\n"
    "end\n"
    "\n"
    "-- Capacity c doubled until it holds n (the growth of IDS, COLS and HITS).\n"
    "local function doubled(c, n)\n"
    "  while c < n do c = 2 * c end\n"
    "  return c\n"
    "end\n"
    "\n"
    "-- Grows IDS to hold n ids (the wrapper then takes the classic path for this call).\n"
    "local function growids(n)\n"
    "  local c = doubled(IDCAP, n)\n"
    "  IDS, IDCAP = ivla(c), c\n"
    "end\n"
    "\n",
    "local function querypoint(...)\n"
    "  local w, x, y, z, f, out = ...\n"
    "  if f == nil and not busy and type(w) == \"userdata\" and getmetatable(w) == MW and getmetatable(LUD) ~= MW\n"
    "     and type(x) == \"number\" and type(y) == \"number\" and type(z) == \"number\"\n"
    "     and (out == nil or type(out) == \"table\") then\n"
    "    local U = UV[w] or items(w)\n"
    "    if U then\n"
    "      busy = true\n"
    "      local n = FQP(w, x, y, z, IDS, IDCAP, MOUT)\n"
    "      if n >= 0 and n <= IDCAP then return itemlist(w, U, n, out, \"querypoint\") end\n"
    "      busy = false\n"
    "      if n > IDCAP then growids(n) end\n"
    "    end\n"
    "  end\n"
    "  return C.querypoint(...)\n"
    "end\n"
    "\n"
    "local function query(...)\n"
    "  local w, s, f, out = ...\n"
    "  if f == nil and not busy and type(w) == \"userdata\" and getmetatable(w) == MW and getmetatable(LUD) ~= MW\n"
    "     and type(s) == \"userdata\" and KINDMT[getmetatable(s)] and getmetatable(LUD) ~= getmetatable(s)\n"
    "     and (out == nil or type(out) == \"table\") then\n"
    "    local U = UV[w] or items(w)\n"
    "    if U then\n"
    "      busy = true\n"
    "      local n = FQ(w, s, IDS, IDCAP, MOUT)\n"
    "      if n >= 0 and n <= IDCAP then return itemlist(w, U, n, out, \"query\") end\n"
    "      busy = false\n"
    "      if n > IDCAP then growids(n) end\n"
    "    end\n"
    "  end\n"
    "  return C.query(...)\n"
    "end\n"
    "\n"
    "local function raycast(...)\n"
    "  local w, r, maxt, f = ...\n"
    "  if f == nil and type(w) == \"userdata\" and getmetatable(w) == MW and getmetatable(LUD) ~= MW\n"
    "     and type(r) == \"userdata\" and getmetatable(r) == MR and getmetatable(LUD) ~= MR\n"
    "     and (maxt == nil or type(maxt) == \"number\") then\n"
    "    local U = UV[w] or items(w)\n"
    "    if U then\n"
    "      local st = FRC(w, r, maxt or HUGE, OUT)\n"
    "      if st == 1 then return rawget(U, OUT[4] + 1), OUT[0], OUT[1], OUT[2], OUT[3] end\n"
    "      if st == 2 then return rawget(U, OUT[4] + 1), OUT[0], OUT[1], OUT[2], OUT[3], OUT[5] end\n"
    "      if st == 0 then return nil end\n"
    "    end\n"
    "  end\n"
    "  return C.raycast(...)\n"
    "end\n"
    "\n"
    "-- One hit of HITS (from k) as lw_b_raycastall's hit table (tri only on a mesh item's hit).\n"
    "local function newhit(U, k)\n"
    "  local tri = HITS[k + 5]\n"
    "  if tri == 0 then\n"
    "    return { item = rawget(U, HITS[k + 4] + 1), t = HITS[k], nx = HITS[k + 1], ny = HITS[k + 2], nz = HITS[k + 3] }\n"
    "  end\n"
    "  return { item = rawget(U, HITS[k + 4] + 1), t = HITS[k], nx = HITS[k + 1], ny = HITS[k + 2], nz = HITS[k + 3],\n"
    "           tri = tri }\n"
    "end\n"
    "\n"
    "-- raycastall without a filter or an out table (those take the classic path): a new list of new hit\n"
    "-- tables, built as itemlist builds its list (busy set before the fast call, the gen checked after).\n"
    "local function raycastall(...)\n"
    "  local w, r, maxt, f, out = ...\n"
    "  if f == nil and out == nil and not busy and type(w) == \"userdata\" and getmetatable(w) == MW\n"
    "     and getmetatable(LUD) ~= MW and type(r) == \"userdata\" and getmetatable(r) == MR\n"
    "     and getmetatable(LUD) ~= MR and (maxt == nil or type(maxt) == \"number\") then\n"
    "    local U = UV[w] or items(w)\n"
    "    if U then\n"
    "      busy = true\n"
    "      local n = FRA(w, r, maxt or HUGE, HITS, HITCAP, MOUT)\n"
    "      if n >= 0 and n <= HITCAP then\n"
    "        local gen, t = MOUT[0]\n"
    "        if n == 0 then\n"
    "          busy = false\n"
    "          return {}, 0\n"
    "        elseif n == 1 then\n"
    "          t = { newhit(U, 0) }\n"
    "        elseif n == 2 then\n"
    "          t = { newhit(U, 0), newhit(U, 6) }\n"
    "        else\n"
    "          t = tnew(n, 0)\n"
    "          for i = 1, n do rawset(t, i, newhit(U, 6 * (i - 1))) end\n"
    "        end\n"
    "        if FGEN(w) ~= gen then changed(\"raycastall\") end\n"
    "        busy = false\n"
    "        return t, n\n"
    "      end\n"
    "      busy = false\n"
    "      if n > HITCAP then\n"
    "        local c = doubled(HITCAP, n)\n"
    "        HITS, HITCAP = dvla(6 * c), c\n"
    "      end\n"
    "    end\n"
    "  end\n"
    "  return C.raycastall(...)\n"
    "end\n"
    "\n"
    "-- Collision i of COLS (from 1) as a new table: a constructor with constant keys (LuaJIT copies a\n"
    "-- template: cheaper than an empty table and six stores into its hash part).\n",
    "local function newcol(U, i)\n"
    "  local k = 6 * (i - 1)\n"
    "  return { other = rawget(U, COLS[k] + 1), type = RESP[COLS[k + 1]], t = COLS[k + 2],\n"
    "           nx = COLS[k + 3], ny = COLS[k + 4], nz = COLS[k + 5] }\n"
    "end\n"
    "\n"
    "-- Writes collision i of COLS into out[i]: the table there or a spare (poolinner).\n"
    "local function putcol(w, U, t, i)\n"
    "  local c = poolinner(w, U, t, i)\n"
    "  local k = 6 * (i - 1)\n"
    "  rawset(c, \"other\", rawget(U, COLS[k] + 1))\n"
    "  rawset(c, \"type\", RESP[COLS[k + 1]])\n"
    "  rawset(c, \"t\", COLS[k + 2])\n"
    "  rawset(c, \"nx\", COLS[k + 3])\n"
    "  rawset(c, \"ny\", COLS[k + 4])\n"
    "  rawset(c, \"nz\", COLS[k + 5])\n"
    "end\n"
    "\n"
    "-- Grows COLS to hold n collisions.\n"
    "local function growcols(n)\n"
    "  local c = doubled(COLCAP, n)\n"
    "  COLS, COLCAP = dvla(6 * c), c\n"
    "end\n"
    "\n"
    "-- move's collision table when nothing was hit (the move is committed already): out, else the spare\n"
    "-- empty table U[-1] (nothing allocates), else a new one. The caller has read OUT.\n"
    "local function nocols(w, U, out)\n"
    "  local t = out\n"
    "  if t == nil then\n"
    "    t = rawget(U, -1)\n"
    "    if type(t) ~= \"table\" then t = {} elseif rawget(t, 1) ~= nil or #t > 0 then cleartail(t, 0) end\n"
    "  elseif rawget(t, 1) ~= nil or #t > 0 then\n"
    "    pooltail(w, U, t, 0)\n"
    "  end\n"
    "  return t\n"
    "end\n"
    "\n"
    "-- move's collision table of COLS[0..n-1] (into out, else a new table), then the commit of the move\n"
    "-- the fast function left pending. The caller set busy and read MOUT; gen: the World's after the\n"
    "-- call (MOUT[4], written by the fast function).\n"
    "local function cols(w, U, n, out, gen)\n"
    "  local t = out\n"
    "  if t == nil then\n"
    "    if n == 1 then\n"
    "      t = { newcol(U, 1) }\n"
    "    elseif n == 2 then\n"
    "      t = { newcol(U, 1), newcol(U, 2) }\n"
    "    else\n"
    "      t = tnew(n, 0)\n"
    "      for i = 1, n do rawset(t, i, newcol(U, i)) end\n"
    "    end\n"
    "  else\n"
    "    if n <= 2 then\n"
    "      putcol(w, U, t, 1)\n"
    "      if n == 2 then putcol(w, U, t, 2) end\n"
    "    else\n"
    "      for i = 1, n do putcol(w, U, t, i) end\n"
    "    end\n"
    "    if rawget(t, n + 1) ~= nil or #t > n then pooltail(w, U, t, n) end\n"
    "  end\n"
    "  if FCM(w, gen) == 0 then changed(\"move\") end\n"
    "  busy = false\n"
    "  return t\n"
    "end\n"
    "\n"
    "local function move(...)\n"
    "  local w, item, dx, dy, dz, f, out = ...\n"
    "  if f == nil and not busy and type(w) == \"userdata\" and getmetatable(w) == MW and getmetatable(LUD) ~= MW\n"
    "     and type(dx) == \"number\" and type(dy) == \"number\" and type(dz) == \"number\"\n"
    "     and (out == nil or type(out) == \"table\") then\n"
    "    local U = UV[w] or items(w)\n"
    "    if U then\n"
    "      busy = true\n"
    "      -- a number item: its id from fm (-3: fm does not know it), else from U[0] as before\n"
    "      local n = -3\n"
    "      if type(item) == \"number\" then n = FMV(w, item, 1, dx, dy, dz, MOUT, COLS, COLCAP) end\n"
    "      if n == -3 then\n"
    "        local U0 = rawget(U, 0)\n"
    "        local id = type(U0) == \"table\" and rawget(U0, item)\n"
    "        n = type(id) == \"number\" and FMV(w, id, 0, dx, dy, dz, MOUT, COLS, COLCAP) or -1\n"
    "      end\n"
    "      local ax, ay, az = MOUT[0], MOUT[1], MOUT[2]\n"
    "      if n == 0 then\n"
    "        busy = false\n"
    "        return ax, ay, az, nocols(w, U, out), 0\n"
    "      elseif n > 0 then\n"
    "        return ax, ay, az, cols(w, U, n, out, MOUT[4]), n\n"
    "      end\n"
    "      busy = false\n"
    "      if n == -2 then growcols(MOUT[3]) end\n"
    "    end\n"
    "  end\n"
    "  return C.move(...)\n"
    "end\n"
    "\n",
    "-- U of the Character ch's world, the world and ch's user value {world, item}, when that holds a World\n"
    "-- whose U is a table, else nil. The user value is read at every call (not cached as a World's U: a\n"
    "-- Character's replaced through the debug library takes the classic path, which raises).\n"
    "local function charitems(ch)\n"
    "  local T = getfenv(ch)\n"
    "  if type(T) ~= \"table\" then return nil end\n"
    "  local w = rawget(T, 1)\n"
    "  if type(w) == \"userdata\" and getmetatable(w) == MW and getmetatable(LUD) ~= MW then\n"
    "    local U = UV[w] or items(w)\n"
    "    if U then return U, w, T end\n"
    "  end\n"
    "  return nil\n"
    "end\n"
    "\n"
    "-- character:move: as move, on the Character's world and item (both read through its user value)\n"
    "local function charmove(...)\n"
    "  local ch, dx, dy, dz, f, out = ...\n"
    "  if f == nil and not busy and type(ch) == \"userdata\" and getmetatable(ch) == MCH and getmetatable(LUD) ~= MCH\n"
    "     and type(dx) == \"number\" and type(dy) == \"number\" and type(dz) == \"number\"\n"
    "     and (out == nil or type(out) == \"table\") then\n"
    "    local U, w, T = charitems(ch)\n"
    "    if U then\n"
    "      busy = true\n"
    "      local item = rawget(T, 2)\n"
    "      local n = -3                  -- the item's id as in move\n"
    "      if type(item) == \"number\" then n = FCMV(ch, w, item, 1, dx, dy, dz, MOUT, COLS, COLCAP) end\n"
    "      if n == -3 then\n"
    "        local U0 = rawget(U, 0)\n"
    "        local id = type(U0) == \"table\" and rawget(U0, item)\n"
    "        n = type(id) == \"number\" and FCMV(ch, w, id, 0, dx, dy, dz, MOUT, COLS, COLCAP) or -1\n"
    "      end\n"
    "      local ax, ay, az = MOUT[0], MOUT[1], MOUT[2]\n"
    "      if n == 0 then\n"
    "        busy = false\n"
    "        return ax, ay, az, nocols(w, U, out), 0\n"
    "      elseif n > 0 or n == -2 then\n"
    "        local gen = MOUT[4]\n"
    "        if n == -2 then           -- the move is made and pending: the collisions are taken after the growth\n"
    "          n = MOUT[3]\n"
    "          growcols(n)\n"
    "          if FCC(ch, w, gen, n, COLS, COLCAP) ~= n then changed(\"move\") end\n"
    "        end\n"
    "        return ax, ay, az, cols(w, U, n, out, gen), n\n"
    "      end\n"
    "      busy = false\n"
    "    end\n"
    "  end\n"
    "  return CC.move(...)\n"
    "end\n"
    "\n"
    "-- character:grounded\n"
    "local function grounded(...)\n"
    "  local ch = ...\n"
    "  if not busy and type(ch) == \"userdata\" and getmetatable(ch) == MCH and getmetatable(LUD) ~= MCH then\n"
    "    local U, w = charitems(ch)\n"
    "    if U then\n"
    "      busy = true\n"
    "      local st = FCG(ch, w, MOUT)\n"
    "      local g, nx, ny, nz = MOUT[0], MOUT[1], MOUT[2], MOUT[3]\n"
    "      busy = false\n"
    "      if st == 0 then return false end\n"
    "      if st == 1 then return true, rawget(U, g + 1), nx, ny, nz end\n"
    "    end\n"
    "  end\n"
    "  return CC.grounded(...)\n"
    "end\n"
    "\n"
    "classic.World = C\n"
    "W.querypoint, W.query, W.raycast, W.raycastall, W.move = querypoint, query, raycast, raycastall, move\n"
    "if CC then\n"
    "  classic.Character = CC\n"
    "  CHM.move, CHM.grounded = charmove, grounded\n"
    "end\n"
/* CHUNK END */
};

/* lua_load reader over the chunk's pieces. */
static const char *readwchunk(lua_State *L, void *data, size_t *size) {
    size_t *i = (size_t *)data;
    (void)L;
    if (*i >= sizeof(wchunk) / sizeof(wchunk[0])) return NULL;
    *size = strlen(wchunk[*i]);
    return wchunk[(*i)++];
}

/* Pushes package.loaded.debug[name] (from the registry) when it is a C function and returns 1;
 * else returns 0 with nothing pushed. */
static int pushdebugfn(lua_State *L, const char *name) {
    int ok = 0;
    lua_getfield(L, LUA_REGISTRYINDEX, "_LOADED");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "debug");
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, name);
            ok = lua_iscfunction(L, -1);
            if (ok) lua_replace(L, -3);
            else lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    if (!ok) lua_pop(L, 1);
    return ok;
}

/* Runs the chunk with (module, World metatable, shape kind metatables as a set, Ray metatable,
 * fast functions, debug.getmetatable, debug.getfenv, classic table, Character metatable). Leaves the classic methods in place on any failure (the chunk replaces them only
 * at its end). The module at mod has _classic (the shapes' chunk ran). */
void lw_open_ffi(lua_State *L, int mod) {
    size_t piece = 0, i;
    int top = lua_gettop(L), k;
    luaL_checkstack(L, 16, "collide: stack overflow");
    lua_getfield(L, mod, "_classic");
    if (!lua_istable(L, -1) || lua_load(L, readwchunk, &piece, "=collide.ffi.world") != 0) {
        lua_settop(L, top);
        return;
    }
    lua_insert(L, -2);                                  /* chunk, classic */
    lua_pushvalue(L, mod);
    cl_rawgetp(L, LUA_REGISTRYINDEX, &lw_world_key);
    lua_createtable(L, 0, CL_KINDS);
    for (k = 0; k < CL_KINDS; k++) {
        luaL_getmetatable(L, cl_classes[k].mt);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
    }
    luaL_getmetatable(L, cl_classes[CL_K_RAY].mt);
    lua_createtable(L, 0, (int)(sizeof(wfast) / sizeof(wfast[0])));
    for (i = 0; i < sizeof(wfast) / sizeof(wfast[0]); i++) {
        lua_pushlightuserdata(L, (void *)&wfast[i].fn);
        lua_setfield(L, -2, wfast[i].name);
    }
    if (!pushdebugfn(L, "getmetatable") || !pushdebugfn(L, "getfenv")) {
        lua_settop(L, top);
        return;
    }
    lua_pushvalue(L, top + 2);                          /* classic */
    lua_remove(L, top + 2);
    luaL_getmetatable(L, "collide.Character");          /* (nil without one: no wrappers) */
    if (lua_pcall(L, 9, 0, 0) != 0) lua_pop(L, 1);     /* the message: classic methods stay */
    lua_settop(L, top);
}

#endif
