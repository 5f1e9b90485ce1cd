-- bench/world.lua (issue 3): the World at scale.
--   1. memory per item and add cost, 100,000 random boxes
--   2. closest-hit raycast among those 100,000 boxes (us per ray; Lua overhead = an empty C call
--      with the same arguments and 5 results), cross-checked against brute force
--   3. all overlapping pairs among 10,000 boxes that each move a little every frame (ms per frame
--      including the 10,000 updates), against a pure-Lua sort-and-sweep, cross-checked
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
  local r = lib.compare(vs, { sample = SAMPLE })
  local hits, tsum = 0, 0
  for j = 1, NRAY do
    local item, t = W:raycast(rays[j], maxt)
    if item then hits = hits + 1; tsum = tsum + t end
  end
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

-- Moves every box by its velocity (bouncing off the cube's sides) and updates the world.
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

-- Pure-Lua sort-and-sweep over x: fills res with pairs (lower index first, sorted like the
-- World's order) and returns the count. Tables lo/order are reused.
local order, lox = {}, {}
for i = 1, NP do order[i] = i end
local function bylo(a, b) return lox[a] < lox[b] end
local function sap_pairs(res)
  for i = 1, NP do lox[i] = px[i] - hx[i] end
  table.sort(order, bylo)
  local n = 0
  for k = 1, NP do
    local i = order[k]
    local ixmax = px[i] + hx[i]
    local iy0, iy1, iz0, iz1 = py[i] - hy[i], py[i] + hy[i], pz[i] - hz[i], pz[i] + hz[i]
    for m = k + 1, NP do
      local j = order[m]
      if lox[j] > ixmax then break end
      if py[j] - hy[j] <= iy1 and iy0 <= py[j] + hy[j] and pz[j] - hz[j] <= iz1 and iz0 <= pz[j] + hz[j] then
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
  local arr, n = PW:pairs(pairsout)
  local mine = {}
  local m = sap_pairs(mine)
  if n ~= m then return false, "count " .. n .. " vs " .. m end
  local keys = {}
  for k = 1, n do keys[k] = arr[2 * k - 1] * 65536 + arr[2 * k] end
  table.sort(mine)
  local sorted = {}
  for k = 1, n do sorted[k] = keys[k] end
  table.sort(sorted)
  for k = 1, n do if sorted[k] ~= mine[k] then return false, "pair sets differ" end end
  for k = 2, n do if keys[k] < keys[k - 1] then return false, "pairs not in (a, b) order" end end
  return true, n
end

-- The floor of the update loop: the same Lua loop with two empty C calls per box instead of
-- box:set (7 arguments) and world:update (3 arguments).
local eo = E.object()
local function step_empty()
  for i = 1, NP do
    local x, y, z = px[i] + vx[i], py[i] + vy[i], pz[i] + vz[i]
    if x < 0 or x > SIDE then vx[i] = -vx[i]; x = px[i] + vx[i] end
    if y < 0 or y > SIDE then vy[i] = -vy[i]; y = py[i] + vy[i] end
    if z < 0 or z > SIDE then vz[i] = -vz[i]; z = pz[i] + vz[i] end
    px[i], py[i], pz[i] = x, y, z
    local a, b, c = hx[i], hy[i], hz[i]
    eo:ret0(x - a, y - b, z - c, x + a, y + b, z + c)
    eo:ret0(i, box)
  end
end

local sapres = {}
local vs = {
  { name = "emptyupdates", fn = function(n) for _ = 1, n do step_empty() end return 0 end },
  { name = "frame", fn = function(n) local s = 0 for _ = 1, n do step_updates(); local _, c = PW:pairs(pairsout); s = s + c end return s end },
  { name = "updates", fn = function(n) for _ = 1, n do step_updates() end return 0 end },
  { name = "pairs", fn = function(n) local s = 0 for _ = 1, n do local _, c = PW:pairs(pairsout); s = s + c end return s end },
  { name = "purelua", fn = function(n)
      local s = 0
      for _ = 1, n do
        for i = 1, NP do   -- the same per-box motion, without the world
          local x, y, z = px[i] + vx[i], py[i] + vy[i], pz[i] + vz[i]
          if x < 0 or x > SIDE then vx[i] = -vx[i]; x = px[i] + vx[i] end
          if y < 0 or y > SIDE then vy[i] = -vy[i]; y = py[i] + vy[i] end
          if z < 0 or z > SIDE then vz[i] = -vz[i]; z = pz[i] + vz[i] end
          px[i], py[i], pz[i] = x, y, z
        end
        s = s + sap_pairs(sapres)
      end
      return s
    end },
}
local okp, np0 = check_pairs()
local r = lib.compare(vs, { sample = math.max(SAMPLE, 0.06) })
-- the pure-Lua variant moved the boxes without the world: resynchronise before re-checking
for i = 1, NP do
  box:set(px[i] - hx[i], py[i] - hy[i], pz[i] - hz[i], px[i] + hx[i], py[i] + hy[i], pz[i] + hz[i])
  PW:update(i, box)
end
local okp2, np1 = check_pairs()
local frame_ms = r.frame.ns / 1e6
out("#### All overlapping pairs among ", NP, " boxes moving every frame (cube side ", SIDE, ", half sizes 0.5..1.5, speed <= 0.05 per axis)")
out("")
out("| measure | ms per frame | spread |")
out("|---|---:|---:|")
out("| frame: ", NP, " x (box:set + world:update) + world:pairs(out) | ", fmt(frame_ms), " | ", string.format("%.0f%%", r.frame.spread * 100), " |")
out("| of which the ", NP, " updates | ", fmt(r.updates.ns / 1e6), " | ", string.format("%.0f%%", r.updates.spread * 100), " |")
out("| floor of those updates: the same loop with 2 empty C calls per box | ", fmt(r.emptyupdates.ns / 1e6), " | ", string.format("%.0f%%", r.emptyupdates.spread * 100), " |")
out("| of which world:pairs(out) | ", fmt(r.pairs.ns / 1e6), " | ", string.format("%.0f%%", r.pairs.spread * 100), " |")
out("| pure Lua: same motion + sort-and-sweep on x (no world) | ", fmt(r.purelua.ns / 1e6), " | ", string.format("%.0f%%", r.purelua.spread * 100), " |")
out("")
out("Pairs per frame: about ", tostring(np0), ". Same pair set and order as the pure-Lua sort-and-sweep: ",
    okp and okp2 and "yes (checked at two frames)" or ("NO: " .. tostring(np0) .. " / " .. tostring(np1)), ".")
out("Ratio pure Lua / collide frame: ", fmt(r.ratio("purelua", "frame")), ".")
out("")
results[#results + 1] = string.format("- pairs among 10,000 moving boxes: %s ms per frame incl. updates (updates %s ms, pairs %s ms): target < 3 ms %s.",
  fmt(frame_ms), fmt(r.updates.ns / 1e6), fmt(r.pairs.ns / 1e6), frame_ms < 3 and "met" or "MISSED")
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
local mv = {
  { name = "collide", per = NSTEP, fn = makeloop(NSTEP, "local r1 = w:move(a1, a2, a3, a4)\n" .. SINKM, nil, { plays, DX, DY, DZ, w = MW }) },
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
out("| empty C call, same arguments, 5 results | ", fmt(r2.empty.ns / 1000), " | ", string.format("%.0f%%", r2.empty.spread * 100), " |")
out("| pure Lua brute force over all ", NOBST, " items (purelua.move) | ", fmt(r2.purelua.ns / 1000), " | ", string.format("%.0f%%", r2.purelua.spread * 100), " |")
out("| bump.lua (quoted in issue 3, not measured here) | ~8 | |")
out("")
out("Collisions per move: ", string.format("%.2f", ncols_c / NSTEP), ". Pure Lua / collide: ", fmt(r2.ratio("purelua", "collide")),
    ". Same displacement as the brute-force slide on ", NSTEP - differ, " of ", NSTEP, " steps",
    first and (" (first difference " .. first .. ")") or "", ".")
out("")
results[#results + 1] = string.format("- move among 2,000 grid boxes: %s us per move on %s (target 1 us %s; brute-force pure Lua %s us).",
  fmt(move_us), lib.luaname(), move_us <= 1 and "met" or "MISSED", fmt(r2.purelua.ns / 1000))
MW:destroy()

out("#### Targets on ", lib.luaname())
out("")
for _, l in ipairs(results) do out(l) end
out("")
