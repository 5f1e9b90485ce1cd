-- bench/ffiworld.lua: world:move, query, querypoint and raycast against bump.lua 3.1.7 doing the same
-- work in the same run (issue 14: on LuaJIT each call at most 0.1x bump.lua's time), through the
-- method users call (on LuaJIT the FFI wrappers of csrc/bind/ffi_world.c) and, on LuaJIT, through
-- the classic C methods (collide._classic.World) as the before column. One 2D scene: 2,000 tiles of
-- 8-40 units on a 2,000 x 2,000 field (cell size 64 for bump.lua), the same rectangles as collide
-- AABBs with z in [0, 1]; items are tables, as in games. Variants interleaved round by round
-- (bench/lib.lua); every ratio is the median of per-round ratios. Writes markdown to arg[1].
-- Same work on both sides: the same items found (cross-checked per call kind below); new result
-- tables on every call on both sides in the collide column (bump.lua's API has no out tables: the
-- out-table column is collide's own extra and does not count for the target), except a move that
-- meets nothing, whose empty collision list is collide's one spare table (as documented; bump.lua
-- makes a new one); bump.lua's movers
-- keep their x in a local (as collide's move takes a delta, nothing is read back per move); for
-- the segment, raycast (the first item) and raycastall (every item, sorted, as querySegment).
-- Needs ../shared/peers/bump.lua/bump.lua (skipped with a note otherwise).
local lib = require "lib"
local collide = require "collide"
local out, outf = lib.writer(arg[1])
local fmt = lib.fmt

local path = "../shared/peers/bump.lua/bump.lua"
local f = io.open(path, "r")
if not f then
  out("#### World calls vs bump.lua (", lib.luaname(), ")")
  out("")
  out("skipped: ", path, " is absent")
  return
end
f:close()
local bump = dofile(path)

local NT, SIZE, NQ = 2000, 2000, 1024
local r = lib.rng(14)
local B = bump.newWorld(64)
local W = collide.World()
for i = 1, NT do
  local x, y = r.uniform(0, SIZE), r.uniform(0, SIZE)
  local w, h = r.uniform(8, 40), r.uniform(8, 40)
  local it = { id = i }
  B:add(it, x, y, w, h)
  W:add(it, collide.AABB(x, y, 0, x + w, y + h, 1))
end
-- movers: a free one far from the tiles, one sliding along a wall
local free, slider, wall = { id = "free" }, { id = "slider" }, { id = "wall" }
B:add(free, -500, -500, 10, 10); W:add(free, collide.AABB(-500, -500, 0, -490, -490, 1))
B:add(wall, -1000, -200, 400, 20); W:add(wall, collide.AABB(-1000, -200, 0, -600, -180, 1))
B:add(slider, -900, -210, 10, 10); W:add(slider, collide.AABB(-900, -210, 0, -890, -200, 1))

-- inputs
local PX, PY, QX, QY, QW, QH, SX, SY, SX2, SY2 = {}, {}, {}, {}, {}, {}, {}, {}, {}, {}
for k = 1, NQ do
  PX[k], PY[k] = r.uniform(0, SIZE), r.uniform(0, SIZE)
  QX[k], QY[k], QW[k], QH[k] = r.uniform(0, SIZE), r.uniform(0, SIZE), r.uniform(10, 60), r.uniform(10, 60)
  SX[k], SY[k] = r.uniform(0, SIZE), r.uniform(0, SIZE)
  local a = r.uniform(0, 2 * math.pi)
  SX2[k], SY2[k] = SX[k] + 150 * math.cos(a), SY[k] + 150 * math.sin(a)
end
local box, ray = collide.AABB(0, 0, 0, 1, 1, 1), collide.Ray(0, 0, 0.5, 1, 0, 0)
local CW = collide._classic and collide._classic.World
local M = getmetatable(W).__index

-- cross-check: the same answers (counts of items found per call kind, first items hit)
local nbp, ncp, nbr, ncr, nbs, ncs, hitsame, hitn = 0, 0, 0, 0, 0, 0, 0, 0
for k = 1, NQ do
  local _, a = B:queryPoint(PX[k], PY[k])
  local _, b = W:querypoint(PX[k], PY[k], 0.5)
  nbp, ncp = nbp + a, ncp + b
  local _, a2 = B:queryRect(QX[k], QY[k], QW[k], QH[k])
  box:set(QX[k], QY[k], 0, QX[k] + QW[k], QY[k] + QH[k], 1)
  local _, b2 = W:query(box)
  nbr, ncr = nbr + a2, ncr + b2
  local items, a3 = B:querySegment(SX[k], SY[k], SX2[k], SY2[k])
  ray:set(SX[k], SY[k], 0.5, SX2[k] - SX[k], SY2[k] - SY[k], 0)
  local it = W:raycast(ray, 150)
  local _, b3 = W:raycastall(ray, 150)
  nbs, ncs = nbs + a3, ncs + b3
  if items[1] or it then
    hitn = hitn + 1
    if items[1] == it then hitsame = hitsame + 1 end
  end
end

-- Results kept (the "kept" columns): each call's result table is stored in KEEP[k] (overwritten
-- every round), as a game that keeps or hands on the list does. In the other columns the result is
-- dropped at once, which lets LuaJIT sink (not allocate at all) a new table that a call makes inside
-- the caller's trace, as collide's FFI wrappers do; bump.lua's tables escape into its own and are
-- always made. The "tables alone" column builds only the tables the collide column's calls return
-- (the same lengths and items, filled as the FFI wrappers fill theirs; the sliding move's list of
-- one six-field collision, by table constructors) and keeps them: about what any implementation
-- returning those new tables pays before doing any work (compared with bump.lua's kept column).
local okn, tnew = pcall(require, "table.new")
if not okn or type(tnew) ~= "function" then tnew = function() return {} end end
local KEEP = {}
for k = 1, NQ do KEEP[k] = false end
local PITEMS, QITEMS = {}, {}
for k = 1, NQ do
  PITEMS[k] = W:querypoint(PX[k], PY[k], 0.5)
  box:set(QX[k], QY[k], 0, QX[k] + QW[k], QY[k] + QH[k], 1)
  QITEMS[k] = W:query(box)
end
local function listof(L)
  local N = {}
  for k = 1, NQ do N[k] = #L[k] end
  return function(n)
    local s = 0
    for _ = 1, n do
      for k = 1, NQ do
        local src, c = L[k], N[k]
        local t = tnew(c, 0)
        if c > 0 then          -- as the FFI wrapper's item lists: up to 8 unrolled
          if c <= 8 then
            t[1] = src[1]
            if c >= 2 then t[2] = src[2] end
            if c >= 3 then t[3] = src[3] end
            if c >= 4 then t[4] = src[4] end
            if c >= 5 then t[5] = src[5] end
            if c >= 6 then t[6] = src[6] end
            if c >= 7 then t[7] = src[7] end
            if c >= 8 then t[8] = src[8] end
          else
            for i = 1, c do t[i] = src[i] end
          end
        end
        KEEP[k] = t
        s = s + c
      end
    end
    return s
  end
end

-- variants: op -> { bump = fn, collide = fn, classic = fn (LuaJIT), bumpkept = fn, kept = fn, tables = fn }
local qout = {}
local freex, sliderx = B:getRect(free), B:getRect(slider)   -- bump.lua's movers' x, kept here
-- Each variant's loop is a function of its own prototype (a chunk loaded per variant): LuaJIT
-- records one trace per loop in the bytecode, so the ~40 variants below shared one loop trace when
-- they shared one prototype, each call then leaving it through the side trace of its variant's
-- closure guard and reaching its body across trace links (-jv: root trace of this loop, side traces
-- "-> 35", stitched C calls), a fixed cost per call that weighed most on the cheapest calls. With a
-- loop of its own, each variant is recorded as a game's loop calling it would be: one loop trace
-- with the body inlined (same work, same results).
local loadsrc = loadstring or load
local function loops(body)
  return loadsrc([[
    local body, NQ = ...
    return function(n)
      local s = 0
      for _ = 1, n do
        for k = 1, NQ do s = s + body(k) end
      end
      return s
    end]])(body, NQ)
end
local ops = {
  { "querypoint(x, y, z) / queryPoint(x, y)",
    bump = loops(function(k) local _, c = B:queryPoint(PX[k], PY[k]); return c end),
    collide = loops(function(k) local _, c = W:querypoint(PX[k], PY[k], 0.5); return c end),
    out = loops(function(k) local _, c = W:querypoint(PX[k], PY[k], 0.5, nil, qout); return c end),
    classic = CW and loops(function(k) local _, c = CW.querypoint(W, PX[k], PY[k], 0.5); return c end),
    bumpkept = loops(function(k) local t, c = B:queryPoint(PX[k], PY[k]); KEEP[k] = t; return c end),
    kept = loops(function(k) local t, c = W:querypoint(PX[k], PY[k], 0.5); KEEP[k] = t; return c end),
    tables = listof(PITEMS) },
  { "query(box) / queryRect (box:set per call)",
    bump = loops(function(k) local _, c = B:queryRect(QX[k], QY[k], QW[k], QH[k]); return c end),
    collide = loops(function(k)
      box:set(QX[k], QY[k], 0, QX[k] + QW[k], QY[k] + QH[k], 1)
      local _, c = W:query(box); return c end),
    out = loops(function(k)
      box:set(QX[k], QY[k], 0, QX[k] + QW[k], QY[k] + QH[k], 1)
      local _, c = W:query(box, nil, qout); return c end),
    classic = CW and loops(function(k)
      box:set(QX[k], QY[k], 0, QX[k] + QW[k], QY[k] + QH[k], 1)
      local _, c = CW.query(W, box); return c end),
    bumpkept = loops(function(k) local t, c = B:queryRect(QX[k], QY[k], QW[k], QH[k]); KEEP[k] = t; return c end),
    kept = loops(function(k)
      box:set(QX[k], QY[k], 0, QX[k] + QW[k], QY[k] + QH[k], 1)
      local t, c = W:query(box); KEEP[k] = t; return c end),
    tables = listof(QITEMS) },
  { "raycast(ray, 150) / querySegment, 150 units (ray:set per call)",
    bump = loops(function(k) local _, c = B:querySegment(SX[k], SY[k], SX2[k], SY2[k]); return c end),
    collide = loops(function(k)
      ray:set(SX[k], SY[k], 0.5, SX2[k] - SX[k], SY2[k] - SY[k], 0)
      return W:raycast(ray, 150) and 1 or 0 end),
    classic = CW and loops(function(k)
      ray:set(SX[k], SY[k], 0.5, SX2[k] - SX[k], SY2[k] - SY[k], 0)
      return CW.raycast(W, ray, 150) and 1 or 0 end) },
  { "raycastall(ray, 150) / querySegment, 150 units (ray:set per call)",
    bump = loops(function(k) local _, c = B:querySegment(SX[k], SY[k], SX2[k], SY2[k]); return c end),
    collide = loops(function(k)
      ray:set(SX[k], SY[k], 0.5, SX2[k] - SX[k], SY2[k] - SY[k], 0)
      local _, c = W:raycastall(ray, 150); return c end),
    out = loops(function(k)
      ray:set(SX[k], SY[k], 0.5, SX2[k] - SX[k], SY2[k] - SY[k], 0)
      local _, c = W:raycastall(ray, 150, nil, qout); return c end) },
  { "move, nothing in the way (there and back)",
    bump = loops(function(k)
      local d = (k % 2 == 1) and 3 or -3
      local x, _, _, c = B:move(free, freex + d, -500)
      freex = x; return c end),
    collide = loops(function(k)
      local _, _, _, _, c = W:move(free, (k % 2 == 1) and 3 or -3, 0, 0); return c end),
    classic = CW and loops(function(k)
      local _, _, _, _, c = CW.move(W, free, (k % 2 == 1) and 3 or -3, 0, 0); return c end) },
  { "move, sliding along a wall (one collision)",
    bump = loops(function(k)
      local d = (k % 2 == 1) and 3 or -3
      local x, _, _, c = B:move(slider, sliderx + d, -208)
      sliderx = x; return c end),
    collide = loops(function(k)
      local _, _, _, _, c = W:move(slider, (k % 2 == 1) and 3 or -3, 2, 0); return c end),
    out = loops(function(k)
      local _, _, _, _, c = W:move(slider, (k % 2 == 1) and 3 or -3, 2, 0, nil, qout); return c end),
    classic = CW and loops(function(k)
      local _, _, _, _, c = CW.move(W, slider, (k % 2 == 1) and 3 or -3, 2, 0); return c end),
    bumpkept = loops(function(k)
      local d = (k % 2 == 1) and 3 or -3
      local x, _, cols, c = B:move(slider, sliderx + d, -208)
      sliderx = x; KEEP[k] = cols; return c end),
    kept = loops(function(k)
      local _, _, _, cols, c = W:move(slider, (k % 2 == 1) and 3 or -3, 2, 0); KEEP[k] = cols; return c end),
    tables = loops(function(k)
      -- constructors with constant keys: cheaper on LuaJIT than tnew and six stores (review rev19)
      KEEP[k] = { { other = wall, type = "slide", t = k * 0.001, nx = 0, ny = 1, nz = 0 } }
      return 1 end) },
}

out("#### World calls vs bump.lua 3.1.7 (", lib.luaname(), "): ns per call, ", NT, " tiles, bump cell size 64")
out("")
out("Methods as users call them", collide._ffi and " (the FFI wrappers: collide._ffi is true)" or
    " (classic C methods: no FFI path here)", "; `classic` = collide._classic.World's C methods,",
    " the same calls before the World fast path. Ratios: collide / bump.lua, medians of per-round ratios.")
out("")
out("| call | bump.lua ns | collide ns | collide / bump | with out table ns | out / bump | classic ns | classic / bump | kept: bump.lua ns | kept: collide ns | kept: collide / bump | result tables alone ns | tables / bump kept |")
out("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
local summary = {}
for _, op in ipairs(ops) do
  local vs = { { name = "bump", per = NQ, fn = op.bump }, { name = "collide", per = NQ, fn = op.collide } }
  if op.out then vs[#vs + 1] = { name = "out", per = NQ, fn = op.out } end
  if op.classic then vs[#vs + 1] = { name = "classic", per = NQ, fn = op.classic } end
  if op.bumpkept then vs[#vs + 1] = { name = "bumpkept", per = NQ, fn = op.bumpkept } end
  if op.kept then vs[#vs + 1] = { name = "kept", per = NQ, fn = op.kept } end
  if op.tables then vs[#vs + 1] = { name = "tables", per = NQ, fn = op.tables } end
  local res = lib.compare(vs)
  local function col(name, ref)
    if not res[name] then return "", "" end
    return fmt(res[name].ns), string.format("%.3f", res.ratio(name, ref or "bump"))
  end
  local cn, cr = col("collide")
  local on, orr = col("out")
  local kn, kr = col("classic")
  local bk = res.bumpkept and fmt(res.bumpkept.ns) or ""
  local ckn, ckr = col("kept", "bumpkept")
  local tn, tr = col("tables", "bumpkept")
  out("| ", op[1], " | ", fmt(res.bump.ns), " | ", cn, " | ", cr, " | ", on, " | ", orr, " | ", kn, " | ", kr,
      " | ", bk, " | ", ckn, " | ", ckr, " | ", tn, " | ", tr, " |")
  summary[#summary + 1] = { op[1], res.ratio("collide", "bump"), res.out and res.ratio("out", "bump"),
                            res.classic and res.ratio("classic", "bump"), res.kept and res.ratio("kept", "bumpkept"),
                            res.tables and res.ratio("tables", "bumpkept") }
end
out("")
out("Cross-check, items found over the ", NQ, " inputs, bump.lua / collide: points ", nbp, " / ", ncp,
    ", boxes ", nbr, " / ", ncr, ", segments (querySegment / raycastall) ", nbs, " / ", ncs,
    " (borders: bump.lua's queries exclude touching edges); the same first item on ",
    hitsame, " of ", hitn, " segments that hit something (bump.lua orders by where the segment enters).")
out("")
out("Target (issue 14, LuaJIT): collide / bump.lua <= 0.1 for the same work, i.e. the collide column (new",
    " result tables per call on both sides); the out-table column has no bump.lua counterpart. The collide",
    " and bump.lua columns drop each result at once, which lets LuaJIT sink (never allocate) a table that",
    " collide's FFI wrapper makes inside the loop's trace; the `kept` columns store every result (KEEP[k]),",
    " as a game that keeps the list does, so both libraries allocate theirs. `result tables alone`: the same",
    " loop building and keeping only the tables the collide column's calls return (the same lengths and",
    " items; for the sliding move a list of one collision table with the six fields), no collide call: the",
    " share of bump.lua's kept time any implementation returning those new tables pays before any work.")
out("")
for _, s in ipairs(summary) do
  out(("- %s: collide / bump.lua %.3f%s%s%s%s (target <= 0.1 on LuaJIT: %s)."):format(s[1], s[2],
    s[3] and (", with an out table %.3f (no bump.lua counterpart)"):format(s[3]) or "",
    s[4] and (", classic C method %.3f"):format(s[4]) or "",
    s[5] and (", results kept %.3f"):format(s[5]) or "",
    s[6] and (", its result tables alone %.3f of bump.lua's kept time"):format(s[6]) or "",
    s[2] <= 0.1 and "met" or "MISSED"))
end
out("")
if outf then outf:close() end
