-- bench/world.lua (issue 3): the World at scale.
--   1. memory per item and add cost, 100,000 random boxes
--   2. closest-hit raycast among those 100,000 boxes (us per ray; Lua overhead = an empty C call
--      with the same arguments and 5 results), cross-checked against brute force
--   3. all overlapping pairs among 10,000 boxes that each move a little every frame (ms per frame
--      including the 10,000 moves: world:translate, one world:translatemany, and box:set +
--      world:update for comparison),
--      against a pure-Lua sort-and-sweep, cross-checked
--   4. world:move of one item among 2,000 boxes on a grid, moving up to 4 units per step, against
--      a brute-force pure-Lua sweep-and-slide over all items (bench/purelua.lua), cross-checked
-- Usage: lua bench/world.lua [out.md]   (LUA_PATH must reach bench/?.lua)
local lib = require "lib"
local P = require "purelua"
local E = require "bench_empty"
local ok, collide = pcall(require, "collide")

local out = lib.writer(arg and arg[1])
local fmt = lib.fmt
local SAMPLE = math.max(lib.sample, 0.04)

out("### ", lib.luaname(), ": World")
out("")
if not ok then
  out("collide could not be loaded: ", tostring(collide))
  os.exit(0)
end
if type(collide.World) ~= "function" then
  out("collide.World is not available in this build yet; nothing measured.")
  out("")
  os.exit(0)
end

local results = {}   -- target lines, printed at the end

-- Builds a generated loop: "local f, A1.. = ...; return function(reps) ... end" (same shape for
-- every variant so that only the call differs).
local function makeloop(n, body, f, arrays)
  local names, reads, argl = {}, {}, {}
  for i = 1, #arrays do
    names[i] = "A" .. i; reads[i] = "A" .. i .. "[j]"; argl[i] = "a" .. i
  end
  local src = "local f, w, " .. table.concat(names, ", ") .. " = ...\n" ..
    "return function(reps)\n  local s = 0\n  for r = 1, reps do\n    for j = 1, " .. n .. " do\n" ..
    "      local " .. table.concat(argl, ", ") .. " = " .. table.concat(reads, ", ") .. "\n" ..
    "      " .. body .. "\n    end\n  end\n  return s\nend\n"
  local chunk = assert((loadstring or load)(src, "=worldloop"))
  return chunk(f, arrays.w, (table.unpack or unpack)(arrays, 1, #arrays))
end

-- ---------------------------------------------------------------------------------------------
-- 1. memory per item: 100,000 random boxes in [0,1000]^3, half sizes 0.5..5
-- ---------------------------------------------------------------------------------------------
local NBIG = tonumber(os.getenv("BENCH_WORLD_N")) or 100000
local rng = lib.rng(7)
local U = rng.uniform
local big = {}        -- plain-table copies (made after the memory measurement)
local coords = {}
for i = 1, NBIG do
  local cx, cy, cz = U(0, 1000), U(0, 1000), U(0, 1000)
  local hx, hy, hz = U(0.5, 5), U(0.5, 5), U(0.5, 5)
  coords[i] = { cx - hx, cy - hy, cz - hz, cx + hx, cy + hy, cz + hz }
end
local box = collide.AABB(0, 0, 0, 1, 1, 1)
collectgarbage("collect"); collectgarbage("collect")
local g0, rss0 = collectgarbage("count"), lib.rss_kib()
local W = collide.World()
local t0 = os.clock()
for i = 1, NBIG do
  local c = coords[i]
  box:set(c[1], c[2], c[3], c[4], c[5], c[6])
  W:add(i, box)
end
local tadd = os.clock() - t0
collectgarbage("collect"); collectgarbage("collect")
local g1, rss1 = collectgarbage("count"), lib.rss_kib()
local gc_per = (g1 - g0) * 1024 / NBIG
local rss_per = rss0 and rss1 and (rss1 - rss0) * 1024 / NBIG
out("#### Memory and build, ", NBIG, " AABB items (integer keys)")
out("")
out("| measure | value |")
out("|---|---:|")
out("| add, us per item (one pass, incl. box:set) | ", fmt(tadd * 1e6 / NBIG), " |")
out("| Lua heap growth (collectgarbage \"count\"), bytes per item | ", fmt(gc_per), " |")
out("| process RSS growth, bytes per item | ", rss_per and fmt(rss_per) or "n/a", " |")
local acct
for _, name in ipairs({ "memory", "bytes", "stats" }) do
  if type(W[name]) == "function" then
    local okm, v = pcall(W[name], W)
    if okm and type(v) == "number" then
      acct = v
      out("| world:", name, "() / N, bytes per item | ", fmt(v / NBIG), " |")
    end
  end
end
out("")
out("The world allocates through the Lua state's allocator; whether collectgarbage(\"count\") sees")
out("those bytes depends on how the binding allocates (a raw lua_getallocf call bypasses the GC's")
out("counter), so RSS growth is the figure to trust (it also includes malloc overhead).")
out("")
results[#results + 1] = "- memory: " .. fmt(rss_per or gc_per) .. " bytes per item (RSS growth; Lua heap " .. fmt(gc_per) .. ")" ..
  (acct and (", world's own count " .. fmt(acct / NBIG)) or "") .. "; no target set."
for i = 1, NBIG do
  local c = coords[i]
  big[i] = P.aabb(c[1], c[2], c[3], c[4], c[5], c[6])
end
coords = nil

-- ---------------------------------------------------------------------------------------------
-- 2. closest-hit raycast among 100,000 boxes
-- ---------------------------------------------------------------------------------------------
local NRAY = 1024
local rays, prays = {}, {}
local rr = lib.rng(11)
for j = 1, NRAY do
  local ox, oy, oz = rr.uniform(0, 1000), rr.uniform(0, 1000), rr.uniform(0, 1000)
  local dx, dy, dz = rr.uniform(-1, 1), rr.uniform(-1, 1), rr.uniform(-1, 1)
  if dx == 0 and dy == 0 and dz == 0 then dx = 1 end
  local r = collide.Ray(ox, oy, oz, dx, dy, dz)
  rays[j] = r
  local a, b, c = r:origin()
  local d, e, f = r:direction()
  prays[j] = { ox = a, oy = b, oz = c, dx = d, dy = e, dz = f }
end
local obj = E.object()
local objs = {}
for j = 1, NRAY do objs[j] = obj end
local SINK5 = "if r1 then s = s + r2 end"

-- Brute-force closest hit: item, t (ties: lowest index, i.e. order added).
local function brute_raycast(r, maxt)
  local bi, bt = nil, maxt or math.huge
  for i = 1, NBIG do
    local t = P.aabb_raycast(big[i], r, bt)
    if t and (t < bt or (t == bt and not bi)) then bi, bt = i, t end
  end
  return bi, bt
end

local function raycast_bench(maxt, label)
  local call = maxt and "w:raycast(a1, " .. maxt .. ")" or "w:raycast(a1)"
  local ecall = maxt and "a2:ret5n(a1, " .. maxt .. ")" or "a2:ret5n(a1)"
  local vs = {
    { name = "collide", per = NRAY, fn = makeloop(NRAY, "local r1, r2 = " .. call .. "\n" .. SINK5, nil, { rays, w = W }) },
    { name = "empty", per = NRAY, fn = makeloop(NRAY, "local r1, r2 = " .. ecall .. "\n" .. SINK5, nil, { rays, objs, w = W }) },
    { name = "loop", per = NRAY, fn = makeloop(NRAY, "local r1, r2 = nil\n" .. SINK5, nil, { rays, objs, w = W }) },
  }
  -- One untimed pass first (it also counts the hits): the first raycast after the bulk add
  -- rebuilds the tree and the first few hundred build the raycast snapshot. Timed inside the
  -- calibration, that one-off cost made lib.compare settle on a single 1024-ray pass per run,
  -- timed right after its full collectgarbage (cold caches), while the C core bench ran warm.
  local hits, tsum = 0, 0
  for j = 1, NRAY do
    local item, t = W:raycast(rays[j], maxt)
    if item then hits = hits + 1; tsum = tsum + t end
  end
  local r = lib.compare(vs, { sample = SAMPLE })
  -- cross-check a few rays against brute force over all items
  local bad, checked = 0, 0
  for j = 1, NRAY, 128 do
    local item, t = W:raycast(rays[j], maxt)
    local bi, bt = brute_raycast(prays[j], maxt)
    checked = checked + 1
    if item ~= bi or (bi and math.abs(t - bt) > 1e-9 * math.max(1, bt)) then bad = bad + 1 end
  end
  local us = r.collide.ns / 1000
  local lua_over = (r.empty.ns - r.loop.ns) / 1000
  local core = us - (r.empty.ns) / 1000
  out("| ", label, " | ", fmt(us), " | ", fmt(lua_over * 1000), " | ", fmt(core), " | ",
      string.format("%.0f%%", 100 * hits / NRAY), " | ", hits > 0 and fmt(tsum / hits) or "n/a", " | ",
      string.format("%.0f%%", 100 * math.max(r.collide.spread, r.empty.spread)), " | ",
      bad == 0 and ("yes (" .. checked .. " rays)") or (bad .. " of " .. checked .. " differ"), " |")
  return us, core, lua_over
end

out("#### Closest-hit raycast among ", NBIG, " random boxes (", NRAY, " fixed rays, origins inside the cloud)")
out("")
out("Columns: us per ray (loop included); the empty C call `obj:ret5n(ray)` with the same arguments and")
out("5 results, in ns (loop subtracted); the time left for the query itself (collide minus the whole")
out("empty-call loop), hit rate, mean hit distance, spread, and agreement with a brute-force loop over all items.")
out("")
out("| ray length | collide us/ray | empty call ns | query beyond the call, us | hits | mean t | spread | same as brute force |")
out("|---|---:|---:|---:|---:|---:|---:|---|")
local us_inf, core_inf, over_inf = raycast_bench(nil, "unbounded")
raycast_bench(50, "maxt = 50")
out("")
results[#results + 1] = string.format("- raycast among " .. NBIG .. " boxes: %s us per ray (%s us beyond an empty call of %s ns): target < 3 us %s.",
  fmt(us_inf), fmt(core_inf), fmt(over_inf * 1000), core_inf < 3 and "met" or "MISSED")
big = nil

-- ---------------------------------------------------------------------------------------------
-- 3. pairs among 10,000 moving boxes
-- ---------------------------------------------------------------------------------------------
W:destroy()
W = nil
collectgarbage("collect")
local NP, SIDE = tonumber(os.getenv("BENCH_PAIRS_N")) or 10000, 100
local pr = lib.rng(23)
local px, py, pz, hx, hy, hz, vx, vy, vz = {}, {}, {}, {}, {}, {}, {}, {}, {}
local PW = collide.World()
for i = 1, NP do
  px[i], py[i], pz[i] = pr.uniform(0, SIDE), pr.uniform(0, SIDE), pr.uniform(0, SIDE)
  hx[i], hy[i], hz[i] = pr.uniform(0.5, 1.5), pr.uniform(0.5, 1.5), pr.uniform(0.5, 1.5)
  vx[i], vy[i], vz[i] = pr.uniform(-0.05, 0.05), pr.uniform(-0.05, 0.05), pr.uniform(-0.05, 0.05)
  box:set(px[i] - hx[i], py[i] - hy[i], pz[i] - hz[i], px[i] + hx[i], py[i] + hy[i], pz[i] + hz[i])
  PW:add(i, box)
end
local pairsout = {}
local hastranslate = type(PW.translate) == "function"

-- px/py/pz are always where the world has the boxes: every variant that moves them tells the
-- world (variants that only need the same motion use copies, below).

-- Moves every box by its velocity (bouncing off the cube's sides) and tells the world with
-- box:set + world:update (absolute boxes).
local function step_updates()
  for i = 1, NP do
    local x, y, z = px[i] + vx[i], py[i] + vy[i], pz[i] + vz[i]
    if x < 0 or x > SIDE then vx[i] = -vx[i]; x = px[i] + vx[i] end
    if y < 0 or y > SIDE then vy[i] = -vy[i]; y = py[i] + vy[i] end
    if z < 0 or z > SIDE then vz[i] = -vz[i]; z = pz[i] + vz[i] end
    px[i], py[i], pz[i] = x, y, z
    local a, b, c = hx[i], hy[i], hz[i]
    box:set(x - a, y - b, z - c, x + a, y + b, z + c)
    PW:update(i, box)
  end
end

-- The same motion told with world:translate(item, dx, dy, dz) (the offset is the velocity).
local function step_translates()
  for i = 1, NP do
    local dx, dy, dz = vx[i], vy[i], vz[i]
    local x, y, z = px[i] + dx, py[i] + dy, pz[i] + dz
    if x < 0 or x > SIDE then dx = -dx; vx[i] = dx; x = px[i] + dx end
    if y < 0 or y > SIDE then dy = -dy; vy[i] = dy; y = py[i] + dy end
    if z < 0 or z > SIDE then dz = -dz; vz[i] = dz; z = pz[i] + dz end
    px[i], py[i], pz[i] = x, y, z
    PW:translate(i, dx, dy, dz)
  end
end

-- The same motion told with one world:translatemany(items, vx, vy, vz) per frame: the Lua loop
-- only moves px.. and bounces (the velocities are the offsets), then one call moves every box.
local hasbatch = type(PW.translatemany) == "function"
local ids = {}
for i = 1, NP do ids[i] = i end
local function step_batch()
  for i = 1, NP do
    local dx, dy, dz = vx[i], vy[i], vz[i]
    local x, y, z = px[i] + dx, py[i] + dy, pz[i] + dz
    if x < 0 or x > SIDE then dx = -dx; vx[i] = dx; x = px[i] + dx end
    if y < 0 or y > SIDE then dy = -dy; vy[i] = dy; y = py[i] + dy end
    if z < 0 or z > SIDE then dz = -dz; vz[i] = dz; z = pz[i] + dz end
    px[i], py[i], pz[i] = x, y, z
  end
  PW:translatemany(ids, vx, vy, vz)
end

-- Tells the world exactly where every box is (box:set + update from px..): after translates
-- (whose stored boxes accumulate their own rounding) and before a cross-check. Untimed.
local function resync()
  for i = 1, NP do
    box:set(px[i] - hx[i], py[i] - hy[i], pz[i] - hz[i], px[i] + hx[i], py[i] + hy[i], pz[i] + hz[i])
    PW:update(i, box)
  end
end

-- Pure-Lua sort-and-sweep over x of the boxes at X, Y, Z: fills res with pairs (lower index
-- first, sorted like the World's order) and returns the count. Tables lo/order are reused.
local order, lox = {}, {}
for i = 1, NP do order[i] = i end
local function bylo(a, b) return lox[a] < lox[b] end
local function sap_pairs(res, X, Y, Z)
  for i = 1, NP do lox[i] = X[i] - hx[i] end
  table.sort(order, bylo)
  local n = 0
  for k = 1, NP do
    local i = order[k]
    local ixmax = X[i] + hx[i]
    local iy0, iy1, iz0, iz1 = Y[i] - hy[i], Y[i] + hy[i], Z[i] - hz[i], Z[i] + hz[i]
    for m = k + 1, NP do
      local j = order[m]
      if lox[j] > ixmax then break end
      if Y[j] - hy[j] <= iy1 and iy0 <= Y[j] + hy[j] and Z[j] - hz[j] <= iz1 and iz0 <= Z[j] + hz[j] then
        n = n + 1
        res[n] = i < j and i * 65536 + j or j * 65536 + i
      end
    end
  end
  for k = #res, n + 1, -1 do res[k] = nil end
  return n
end

-- cross-check: the pair set of the world equals the sort-and-sweep set
local function check_pairs()
  resync()
  local arr, n = PW:pairs(pairsout)
  local mine = {}
  local m = sap_pairs(mine, px, py, pz)
  if n ~= m then return false, "count " .. n .. " vs " .. m end
  local keys = {}
  for k = 1, n do keys[k] = arr[2 * k - 1] * 65536 + arr[2 * k] end
  table.sort(mine)
  local sorted = {}
  for k = 1, n do sorted[k] = keys[k] end
  table.sort(sorted)
  for k = 1, n do if sorted[k] ~= mine[k] then return false, "pairs not the same set" end end
  for k = 2, n do if keys[k] < keys[k - 1] then return false, "pairs not in (a, b) order" end end
  return true, n
end

-- Copies of the motion state for the variants that move boxes without the world (the floors
-- and pure Lua), so that they never leave the world stale for the frame variants.
local qx, qy, qz, wx, wy, wz = {}, {}, {}, {}, {}, {}
for i = 1, NP do qx[i], qy[i], qz[i], wx[i], wy[i], wz[i] = px[i], py[i], pz[i], vx[i], vy[i], vz[i] end

-- The floors of the update loops: the same Lua loop with empty C calls instead of box:set
-- (7 arguments) + world:update (3 arguments), or instead of world:translate (5 arguments).
local eo = E.object()
local function step_empty()
  for i = 1, NP do
    local x, y, z = qx[i] + wx[i], qy[i] + wy[i], qz[i] + wz[i]
    if x < 0 or x > SIDE then wx[i] = -wx[i]; x = qx[i] + wx[i] end
    if y < 0 or y > SIDE then wy[i] = -wy[i]; y = qy[i] + wy[i] end
    if z < 0 or z > SIDE then wz[i] = -wz[i]; z = qz[i] + wz[i] end
    qx[i], qy[i], qz[i] = x, y, z
    local a, b, c = hx[i], hy[i], hz[i]
    eo:ret0(x - a, y - b, z - c, x + a, y + b, z + c)
    eo:ret0(i, box)
  end
end
-- The floor of the batch: the same motion loop on the copies, with no call at all.
local function step_motion()
  for i = 1, NP do
    local dx, dy, dz = wx[i], wy[i], wz[i]
    local x, y, z = qx[i] + dx, qy[i] + dy, qz[i] + dz
    if x < 0 or x > SIDE then dx = -dx; wx[i] = dx; x = qx[i] + dx end
    if y < 0 or y > SIDE then dy = -dy; wy[i] = dy; y = qy[i] + dy end
    if z < 0 or z > SIDE then dz = -dz; wz[i] = dz; z = qz[i] + dz end
    qx[i], qy[i], qz[i] = x, y, z
  end
end
local function step_empty1()
  for i = 1, NP do
    local dx, dy, dz = wx[i], wy[i], wz[i]
    local x, y, z = qx[i] + dx, qy[i] + dy, qz[i] + dz
    if x < 0 or x > SIDE then dx = -dx; wx[i] = dx; x = qx[i] + dx end
    if y < 0 or y > SIDE then dy = -dy; wy[i] = dy; y = qy[i] + dy end
    if z < 0 or z > SIDE then dz = -dz; wz[i] = dz; z = qz[i] + dz end
    qx[i], qy[i], qz[i] = x, y, z
    eo:ret0(i, dx, dy, dz)
  end
end

-- Brings the world's pair cache up to date (untimed): a frame variant then starts from the
-- state a game loop calling pairs every frame is in, whatever ran before it.
local function catchup() PW:pairs(pairsout) end

local sapres = {}
local vs = {
  { name = "emptyupdates", fn = function(n) for _ = 1, n do step_empty() end return 0 end },
  { name = "frame_update", setup = catchup, fn = function(n) local s = 0 for _ = 1, n do step_updates(); local _, c = PW:pairs(pairsout); s = s + c end return s end },
  { name = "updates", setup = catchup, fn = function(n) for _ = 1, n do step_updates() end return 0 end },
  { name = "pairs", setup = catchup, fn = function(n) local s = 0 for _ = 1, n do local _, c = PW:pairs(pairsout); s = s + c end return s end },
  { name = "purelua", fn = function(n)
      local s = 0
      for _ = 1, n do
        for i = 1, NP do   -- the same per-box motion, on the copies, without the world
          local x, y, z = qx[i] + wx[i], qy[i] + wy[i], qz[i] + wz[i]
          if x < 0 or x > SIDE then wx[i] = -wx[i]; x = qx[i] + wx[i] end
          if y < 0 or y > SIDE then wy[i] = -wy[i]; y = qy[i] + wy[i] end
          if z < 0 or z > SIDE then wz[i] = -wz[i]; z = qz[i] + wz[i] end
          qx[i], qy[i], qz[i] = x, y, z
        end
        s = s + sap_pairs(sapres, qx, qy, qz)
      end
      return s
    end },
}
if hastranslate then
  vs[#vs + 1] = { name = "frame", setup = catchup, fn = function(n) local s = 0 for _ = 1, n do step_translates(); local _, c = PW:pairs(pairsout); s = s + c end return s end }
  vs[#vs + 1] = { name = "translates", setup = catchup, fn = function(n) for _ = 1, n do step_translates() end return 0 end }
  vs[#vs + 1] = { name = "emptytranslates", fn = function(n) for _ = 1, n do step_empty1() end return 0 end }
end
if hasbatch then
  vs[#vs + 1] = { name = "framebatch", setup = catchup, fn = function(n) local s = 0 for _ = 1, n do step_batch(); local _, c = PW:pairs(pairsout); s = s + c end return s end }
  vs[#vs + 1] = { name = "batch", setup = catchup, fn = function(n) for _ = 1, n do step_batch() end return 0 end }
  vs[#vs + 1] = { name = "motion", fn = function(n) for _ = 1, n do step_motion() end return 0 end }
end
local okp, np0 = check_pairs()
local r = lib.compare(vs, { sample = math.max(SAMPLE, 0.06) })
local okp2, np1 = check_pairs()
local frame_ms = (hastranslate and r.frame or r.frame_update).ns / 1e6
local function row(label, e) out("| ", label, " | ", fmt(e.ns / 1e6), " | ", string.format("%.0f%%", e.spread * 100), " |") end
out("#### All overlapping pairs among ", NP, " boxes moving every frame (cube side ", SIDE, ", half sizes 0.5..1.5, speed <= 0.05 per axis)")
out("")
out("Every frame variant starts from a world whose pair cache is up to date (an untimed world:pairs")
out("before each timed run), as in a game loop calling pairs every frame; variants that only copy the")
out("motion (floors, pure Lua) move their own copies of the positions, never the world's.")
out("")
out("| measure | ms per frame | spread |")
out("|---|---:|---:|")
if hastranslate then
  row("frame: " .. NP .. " x world:translate(item, dx,dy,dz) + world:pairs(out)", r.frame)
  row("of which the " .. NP .. " translates", r.translates)
  row("floor of those translates: the same loop with 1 empty C call per box (5 arguments)", r.emptytranslates)
end
if hasbatch then
  row("frame: the same motion + 1 x world:translatemany(items, vx, vy, vz) + world:pairs(out)", r.framebatch)
  row("of which the motion loop + world:translatemany", r.batch)
  row("floor of those: the same motion loop with no call", r.motion)
  out("| of which world:pairs(out) after the moves (batch frame minus batch) | ",
      fmt((r.framebatch.ns - r.batch.ns) / 1e6), " | |")
end
row("frame: " .. NP .. " x (box:set + world:update) + world:pairs(out)", r.frame_update)
row("of which the " .. NP .. " updates (box:set + world:update)", r.updates)
row("floor of those updates: the same loop with 2 empty C calls per box", r.emptyupdates)
if hastranslate then
  out("| of which world:pairs(out) after the moves (translate frame minus translates) | ",
      fmt((r.frame.ns - r.translates.ns) / 1e6), " | |")
end
out("| of which world:pairs(out) after the moves (update frame minus updates) | ",
    fmt((r.frame_update.ns - r.updates.ns) / 1e6), " | |")
row("world:pairs(out) alone, nothing moved since the last call", r.pairs)
row("pure Lua: same motion + sort-and-sweep on x (no world)", r.purelua)
out("")
out("Pairs per frame: about ", tostring(np0), ". Same pair set and order as the pure-Lua sort-and-sweep: ",
    okp and okp2 and "yes (checked at two frames)" or ("NO: " .. tostring(np0) .. " / " .. tostring(np1)), ".")
out("Ratio pure Lua / collide frame: ", fmt(r.ratio("purelua", hastranslate and "frame" or "frame_update")), ".")
out("")
results[#results + 1] = string.format("- pairs among 10,000 moving boxes: %s ms per frame incl. the moves (%s; moves %s ms, pairs alone %s ms)%s: target < 3 ms %s.",
  fmt(frame_ms), hastranslate and "world:translate" or "box:set + world:update",
  fmt((hastranslate and r.translates or r.updates).ns / 1e6), fmt(r.pairs.ns / 1e6),
  hastranslate and string.format("; with box:set + world:update %s ms (updates %s ms)", fmt(r.frame_update.ns / 1e6), fmt(r.updates.ns / 1e6)) or "",
  frame_ms < 3 and "met" or "MISSED")
if hasbatch then
  local bms = r.framebatch.ns / 1e6
  results[#results + 1] = string.format("- the same frame with one world:translatemany per frame instead of " .. NP .. " world:translate calls: %s ms (motion loop + batch %s ms, of which the bare Lua loop %s ms): target < 3 ms %s.",
    fmt(bms), fmt(r.batch.ns / 1e6), fmt(r.motion.ns / 1e6), bms < 3 and "met" or "MISSED")
end
PW:destroy()
PW = nil
collectgarbage("collect")

-- ---------------------------------------------------------------------------------------------
-- 4. move among 2,000 boxes on a grid
-- ---------------------------------------------------------------------------------------------
local G = 100                          -- grid cells per side; unit boxes, z in [0, 1]
local mr = lib.rng(31)
local cells, list = {}, {}
local MW = collide.World()
local function addtile(i, j)
  local key = i * 1000 + j
  if cells[key] then return false end
  cells[key] = true
  box:set(i, j, 0, i + 1, j + 1, 1)
  MW:add(#list + 1, box)
  list[#list + 1] = P.aabb(i, j, 0, i + 1, j + 1, 1)
  return true
end
for i = 0, G - 1 do addtile(i, 0); addtile(i, G - 1) end          -- walls of touching tiles
for j = 1, G - 2 do addtile(0, j); addtile(G - 1, j) end
while #list < 2000 do addtile(mr.int(1, G - 2), mr.int(1, G - 2)) end
local NOBST = #list
-- the mover: 0.8 x 0.8 x 1 box in a free cell near the middle
local si, sj = 50, 50
while cells[si * 1000 + sj] do si = si + 1 end
local mx0, my0 = si + 0.1, sj + 0.1
box:set(mx0, my0, 0, mx0 + 0.8, my0 + 0.8, 1)
MW:add("player", box)
local pm = P.aabb(mx0, my0, 0, mx0 + 0.8, my0 + 0.8, 1)
list[#list + 1] = pm
local NSTEP = 1024
local DX, DY, DZ = {}, {}, {}
for k = 1, NSTEP do DX[k], DY[k], DZ[k] = mr.uniform(-4, 4), mr.uniform(-4, 4), 0 end

-- cross-check: the same 1024 steps on both; where they differ, resynchronise the Lua mover
local differ, ncols_c, first = 0, 0, nil
for k = 1, NSTEP do
  local ax, ay, az, _, nc = MW:move("player", DX[k], DY[k], DZ[k])
  local bx, by, bz = P.move(list, pm, DX[k], DY[k], DZ[k])
  ncols_c = ncols_c + (nc or 0)
  if math.abs(ax - bx) > 1e-9 or math.abs(ay - by) > 1e-9 or math.abs(az - bz) > 1e-9 then
    differ = differ + 1
    first = first or string.format("step %d: collide %.17g,%.17g vs Lua %.17g,%.17g", k, ax, ay, bx, by)
  end
  local x0, y0, z0, x1, y1, z1 = MW:shape("player"):bounds()
  pm.minx, pm.miny, pm.minz, pm.maxx, pm.maxy, pm.maxz = x0, y0, z0, x1, y1, z1
end

local plays = {}
for k = 1, NSTEP do plays[k] = "player" end
local mobjs, pms = {}, {}
for k = 1, NSTEP do mobjs[k], pms[k] = obj, pm end
local SINKM = "if r1 then s = s + r1 end"
local colsout = {}
local mv = {
  { name = "collide", per = NSTEP, fn = makeloop(NSTEP, "local r1 = w:move(a1, a2, a3, a4)\n" .. SINKM, nil, { plays, DX, DY, DZ, w = MW }) },
  { name = "collideout", per = NSTEP, fn = makeloop(NSTEP, "local r1 = w:move(a1, a2, a3, a4, nil, f)\n" .. SINKM, colsout, { plays, DX, DY, DZ, w = MW }) },
  { name = "empty", per = NSTEP, fn = makeloop(NSTEP, "local r1 = a5:ret5n(a1, a2, a3, a4)\n" .. SINKM, nil, { plays, DX, DY, DZ, mobjs, w = MW }) },
  { name = "purelua", per = NSTEP, fn = makeloop(NSTEP, "local r1 = f(w, a1, a2, a3, a4)\n" .. SINKM, P.move, { pms, DX, DY, DZ, w = list }) },
}
local r2 = lib.compare(mv, { sample = SAMPLE })
local move_us = r2.collide.ns / 1000
out("#### world:move among ", NOBST, " boxes on a ", G, "x", G, " grid (walls of touching tiles + random tiles), ",
    "mover 0.8 x 0.8, |dx|, |dy| <= 4 per step")
out("")
out("| variant | us per move | spread |")
out("|---|---:|---:|")
out("| collide world:move | ", fmt(move_us), " | ", string.format("%.0f%%", r2.collide.spread * 100), " |")
out("| collide world:move with an out table for the collisions (reused) | ", fmt(r2.collideout.ns / 1000), " | ", string.format("%.0f%%", r2.collideout.spread * 100), " |")
out("| empty C call, same arguments, 5 results | ", fmt(r2.empty.ns / 1000), " | ", string.format("%.0f%%", r2.empty.spread * 100), " |")
out("| pure Lua brute force over all ", NOBST, " items (purelua.move) | ", fmt(r2.purelua.ns / 1000), " | ", string.format("%.0f%%", r2.purelua.spread * 100), " |")
out("| bump.lua (quoted in issue 3, not measured here) | ~8 | |")
out("")
out("Collisions per move: ", string.format("%.2f", ncols_c / NSTEP), ". Pure Lua / collide: ", fmt(r2.ratio("purelua", "collide")),
    ". Same displacement as the brute-force slide on ", NSTEP - differ, " of ", NSTEP, " steps",
    first and (" (first difference " .. first .. ")") or "", ".")
out("")
results[#results + 1] = string.format("- move among 2,000 grid boxes: %s us per move on %s (target 1 us %s; with an out table %s us; brute-force pure Lua %s us).",
  fmt(move_us), lib.luaname(), move_us <= 1 and "met" or "MISSED", fmt(r2.collideout.ns / 1000), fmt(r2.purelua.ns / 1000))
MW:destroy()

out("#### Targets on ", lib.luaname())
out("")
for _, l in ipairs(results) do out(l) end
out("")
