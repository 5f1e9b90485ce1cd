-- bench/world.lua (issue 3): the World at scale.
--   1. memory per item and add cost, 100,000 random boxes
--   2. closest-hit raycast among those 100,000 boxes (us per ray; Lua overhead = an empty C call
--      with the same arguments and 5 results), cross-checked against brute force
--   3. all overlapping pairs among 10,000 boxes that each move a little every frame, as a steady
--      game loop (every frame: motion, tell the world with world:translate / one
--      world:translatemany / box:set + world:update, then world:pairs; each piece timed and
--      summed over BENCH_FRAMES consecutive frames), against a pure-Lua sort-and-sweep, cross-checked
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
local PW = collide.World()
local px, py, pz, hx, hy, hz, vx, vy, vz = lib.movingboxes(PW, box, NP, SIDE)
local pairsout = {}
local hastranslate = type(PW.translate) == "function"
local hasbatch = type(PW.translatemany) == "function"
local ids = {}
for i = 1, NP do ids[i] = i end

-- The method: a steady game loop. Short calibrated runs (lib.compare) of a few frames, and runs
-- that moved the world without calling pairs, missed the world's periodic maintenance (fat-box
-- refreshes, refits, tree rebuilds every few dozen frames) and measured a state no game is in.
-- Here every frame that touches the world moves every box, tells the world (one of three
-- styles), then calls world:pairs(out); the pieces of each frame are timed with os.clock and
-- summed over FR consecutive frames. Each round runs FR frames of every style (same motion on
-- the same world, so the styles can take turns), the floors, pairs alone and pure Lua, in an
-- order rotated each round; one warm-up round is discarded; reported: the median over rounds
-- of the per-frame means. Every job on the world ends with a pairs call, so whatever runs next
-- finds the world as a game loop leaves it.
local FR = math.max(1, math.floor(tonumber(os.getenv("BENCH_FRAMES")) or 100))
local PAIRS_ALONE = math.max(5, math.floor(FR / 5))   -- pairs calls per round, nothing moved
local PURE_FRAMES = math.max(1, math.floor(FR / 50))  -- pure Lua frames per round (slow)
local clock = os.clock

-- px/py/pz are always where the world has the boxes. Each frames_* runs nf frames on the world
-- and adds to acc (seconds): tell (the loop with the calls, or the batch call alone), motion
-- (the batch style's motion loop, timed apart), pairs; plus the pair count (np) and frames.

-- world:translate(item, dx, dy, dz) in the motion loop (the offset is the velocity)
local function frames_translate(nf, acc)
  local tt, tp, np = 0, 0, 0
  for _ = 1, nf do
    local t0 = clock()
    for i = 1, NP do
      local dx, dy, dz = vx[i], vy[i], vz[i]
      local x, y, z = px[i] + dx, py[i] + dy, pz[i] + dz
      if x < 0 or x > SIDE then dx = -dx; vx[i] = dx; x = px[i] + dx end
      if y < 0 or y > SIDE then dy = -dy; vy[i] = dy; y = py[i] + dy end
      if z < 0 or z > SIDE then dz = -dz; vz[i] = dz; z = pz[i] + dz end
      px[i], py[i], pz[i] = x, y, z
      PW:translate(i, dx, dy, dz)
    end
    local t1 = clock()
    local _, c = PW:pairs(pairsout)
    local t2 = clock()
    tt, tp, np = tt + (t1 - t0), tp + (t2 - t1), np + c
  end
  acc.tell, acc.pairs, acc.np, acc.frames = acc.tell + tt, acc.pairs + tp, acc.np + np, acc.frames + nf
end

-- the motion loop alone (velocities are the offsets), then one world:translatemany per frame
local function frames_batch(nf, acc)
  local tm, tt, tp, np = 0, 0, 0, 0
  for _ = 1, nf do
    local t0 = clock()
    for i = 1, NP do
      local dx, dy, dz = vx[i], vy[i], vz[i]
      local x, y, z = px[i] + dx, py[i] + dy, pz[i] + dz
      if x < 0 or x > SIDE then dx = -dx; vx[i] = dx; x = px[i] + dx end
      if y < 0 or y > SIDE then dy = -dy; vy[i] = dy; y = py[i] + dy end
      if z < 0 or z > SIDE then dz = -dz; vz[i] = dz; z = pz[i] + dz end
      px[i], py[i], pz[i] = x, y, z
    end
    local t1 = clock()
    PW:translatemany(ids, vx, vy, vz)
    local t2 = clock()
    local _, c = PW:pairs(pairsout)
    local t3 = clock()
    tm, tt, tp, np = tm + (t1 - t0), tt + (t2 - t1), tp + (t3 - t2), np + c
  end
  acc.motion, acc.tell, acc.pairs = acc.motion + tm, acc.tell + tt, acc.pairs + tp
  acc.np, acc.frames = acc.np + np, acc.frames + nf
end

-- box:set + world:update (absolute boxes) in the motion loop
local function frames_update(nf, acc)
  local tt, tp, np = 0, 0, 0
  for _ = 1, nf do
    local t0 = clock()
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
    local t1 = clock()
    local _, c = PW:pairs(pairsout)
    local t2 = clock()
    tt, tp, np = tt + (t1 - t0), tp + (t2 - t1), np + c
  end
  acc.tell, acc.pairs, acc.np, acc.frames = acc.tell + tt, acc.pairs + tp, acc.np + np, acc.frames + nf
end

-- world:pairs(out) again and again with nothing moved (the world's last change was followed by
-- a pairs call, so each call finds the cache up to date)
local function frames_pairsalone(nf, acc)
  local tp = 0
  for _ = 1, nf do
    local t0 = clock()
    PW:pairs(pairsout)
    tp = tp + (clock() - t0)
  end
  acc.pairs, acc.frames = acc.pairs + tp, acc.frames + nf
end

-- Tells the world exactly where every box is (box:set + update from px..): before a
-- cross-check (translates accumulate their own rounding in the stored boxes). Untimed; the
-- check then calls pairs, so this is a frame like any other for the world.
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

-- Copies of the motion state for the jobs that move boxes without the world (the floors and
-- pure Lua), so that they never touch the world's positions.
local qx, qy, qz, wx, wy, wz = {}, {}, {}, {}, {}, {}
for i = 1, NP do qx[i], qy[i], qz[i], wx[i], wy[i], wz[i] = px[i], py[i], pz[i], vx[i], vy[i], vz[i] end

-- The floors, timed per frame like the frames above (into acc.tell): the same loops on the
-- copies with empty C calls instead of world:translate (5 arguments) or box:set (7) +
-- world:update (3), and the bare motion loop with no call (the game's own motion code).
local eo = E.object()
local function floor_translate(nf, acc)
  local tt = 0
  for _ = 1, nf do
    local t0 = clock()
    for i = 1, NP do
      local dx, dy, dz = wx[i], wy[i], wz[i]
      local x, y, z = qx[i] + dx, qy[i] + dy, qz[i] + dz
      if x < 0 or x > SIDE then dx = -dx; wx[i] = dx; x = qx[i] + dx end
      if y < 0 or y > SIDE then dy = -dy; wy[i] = dy; y = qy[i] + dy end
      if z < 0 or z > SIDE then dz = -dz; wz[i] = dz; z = qz[i] + dz end
      qx[i], qy[i], qz[i] = x, y, z
      eo:ret0(i, dx, dy, dz)
    end
    tt = tt + (clock() - t0)
  end
  acc.tell, acc.frames = acc.tell + tt, acc.frames + nf
end
local function floor_update(nf, acc)
  local tt = 0
  for _ = 1, nf do
    local t0 = clock()
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
    tt = tt + (clock() - t0)
  end
  acc.tell, acc.frames = acc.tell + tt, acc.frames + nf
end
local function floor_motion(nf, acc)
  local tt = 0
  for _ = 1, nf do
    local t0 = clock()
    for i = 1, NP do
      local dx, dy, dz = wx[i], wy[i], wz[i]
      local x, y, z = qx[i] + dx, qy[i] + dy, qz[i] + dz
      if x < 0 or x > SIDE then dx = -dx; wx[i] = dx; x = qx[i] + dx end
      if y < 0 or y > SIDE then dy = -dy; wy[i] = dy; y = qy[i] + dy end
      if z < 0 or z > SIDE then dz = -dz; wz[i] = dz; z = qz[i] + dz end
      qx[i], qy[i], qz[i] = x, y, z
    end
    tt = tt + (clock() - t0)
  end
  acc.tell, acc.frames = acc.tell + tt, acc.frames + nf
end
-- pure Lua: the same motion on the copies + sort-and-sweep, one piece per frame
local sapres = {}
local function frames_purelua(nf, acc)
  local tt, np = 0, 0
  for _ = 1, nf do
    local t0 = clock()
    for i = 1, NP do
      local x, y, z = qx[i] + wx[i], qy[i] + wy[i], qz[i] + wz[i]
      if x < 0 or x > SIDE then wx[i] = -wx[i]; x = qx[i] + wx[i] end
      if y < 0 or y > SIDE then wy[i] = -wy[i]; y = qy[i] + wy[i] end
      if z < 0 or z > SIDE then wz[i] = -wz[i]; z = qz[i] + wz[i] end
      qx[i], qy[i], qz[i] = x, y, z
    end
    np = np + sap_pairs(sapres, qx, qy, qz)
    tt = tt + (clock() - t0)
  end
  acc.tell, acc.np, acc.frames = acc.tell + tt, acc.np + np, acc.frames + nf
end

-- The jobs of a round: name, runner, frames per round.
local jobs = {}
if hastranslate then jobs[#jobs + 1] = { name = "translate", run = frames_translate, n = FR } end
if hasbatch then jobs[#jobs + 1] = { name = "batch", run = frames_batch, n = FR } end
jobs[#jobs + 1] = { name = "update", run = frames_update, n = FR }
if hastranslate then jobs[#jobs + 1] = { name = "floor_translate", run = floor_translate, n = FR } end
jobs[#jobs + 1] = { name = "floor_update", run = floor_update, n = FR }
jobs[#jobs + 1] = { name = "motion", run = floor_motion, n = FR }
jobs[#jobs + 1] = { name = "pairsalone", run = frames_pairsalone, n = PAIRS_ALONE }
jobs[#jobs + 1] = { name = "purelua", run = frames_purelua, n = PURE_FRAMES }

-- per[name][key] = list over rounds of ms per frame (key: tell, motion, pairs)
local okp, np0 = check_pairs()
local per, npsum, nfsum = {}, 0, 0
for _, j in ipairs(jobs) do per[j.name] = { tell = {}, motion = {}, pairs = {} } end
local ROUNDS = lib.rounds
for r = 0, ROUNDS do                      -- round 0: warm-up (JIT, the world's steady state)
  collectgarbage("collect")               -- untimed; the timed loops allocate nothing
  for k = 0, #jobs - 1 do
    local j = jobs[(k + r) % #jobs + 1]
    local acc = { tell = 0, motion = 0, pairs = 0, np = 0, frames = 0 }
    j.run(j.n, acc)
    if r >= 1 then
      local p = per[j.name]
      p.tell[r], p.motion[r], p.pairs[r] = acc.tell * 1e3 / acc.frames, acc.motion * 1e3 / acc.frames, acc.pairs * 1e3 / acc.frames
      if j.name == "translate" or j.name == "batch" or j.name == "update" then
        npsum, nfsum = npsum + acc.np, nfsum + acc.frames
      end
    end
  end
end
local okp2, np1 = check_pairs()

-- Derived per round, per style: updates (the batch call alone; for the loop styles the loop
-- minus the bare motion loop of the same round), collide = updates + pairs, and the whole frame.
local st = {}
for _, name in ipairs({ "translate", "batch", "update" }) do
  local p = per[name]
  if p then
    local s = { tell = p.tell, pairs = p.pairs, updates = {}, collide = {}, whole = {}, motion = {} }
    for r = 1, ROUNDS do
      local m = name == "batch" and p.motion[r] or per.motion.tell[r]
      s.motion[r] = m
      s.updates[r] = name == "batch" and p.tell[r] or p.tell[r] - m
      s.collide[r] = s.updates[r] + p.pairs[r]
      s.whole[r] = p.tell[r] + p.pairs[r] + (name == "batch" and m or 0)
    end
    st[name] = s
  end
end
local med, spr = lib.median, lib.spread
local function cell(list)
  if not list then return "n/a" end
  return fmt(med(list)) .. " (" .. string.format("%.0f%%", spr(list) * 100) .. ")"
end
local cols = {}
if hastranslate then cols[#cols + 1] = { "translate", NP .. " x world:translate" } end
if hasbatch then cols[#cols + 1] = { "batch", "1 x world:translatemany" } end
cols[#cols + 1] = { "update", NP .. " x (box:set + world:update)" }
local function trow(label, get)
  local t = { "| ", label }
  for _, c in ipairs(cols) do t[#t + 1] = " | "; t[#t + 1] = cell(get(c[1])) end
  t[#t + 1] = " |"
  out(table.concat(t))
end

out("#### All overlapping pairs among ", NP, " boxes moving every frame (cube side ", SIDE, ", half sizes 0.5..1.5, speed <= 0.05 per axis)")
out("")
out("A steady game loop: every frame moves every box (bouncing off the cube's sides), tells the world,")
out("then calls world:pairs(out). Each piece of a frame is timed with os.clock and summed over ", FR, " consecutive")
out("frames (BENCH_FRAMES; the default 100 includes several waves of the world's periodic maintenance: fat-box")
out("refreshes, refits, tree rebuilds). Each of ", ROUNDS, " rounds (after one warm-up round) runs ", FR, " frames of each style on the")
out("same world (the same motion, so they can take turns), the floors, pairs alone and pure Lua, in an order")
out("rotated every round; no frame moves the world without calling pairs. Every number is the median of the")
out("per-round means, in ms per frame, with the spread ((max - min) / median over the rounds). The floors and")
out("pure Lua move their own copies of the positions, never the world's. World updates are what telling the")
out("world costs on top of the game's bare motion loop, Lua-to-C calls included (the floor row shows what")
out("empty C calls alone cost); collide's cost per frame is world updates + pairs; the whole frame adds the")
out("bench's own motion loop. Both are compared with the 3 ms target under \"Targets\" below.")
out("")
local hdr, sep = { "| ms per frame" }, { "|---" }
for _, c in ipairs(cols) do hdr[#hdr + 1] = " | " .. c[2]; sep[#sep + 1] = "|---:" end
out(table.concat(hdr), " |")
out(table.concat(sep), "|")
trow("A. telling the world, timed: the motion loop with the calls (the batch: the call alone)", function(n) return st[n].tell end)
trow("floor of A: the same loop with empty C calls (1 call of 5 arguments; 2 calls of 7 and 3)", function(n)
  return n == "translate" and per.floor_translate.tell or n == "update" and per.floor_update.tell or nil end)
trow("B. the game's motion loop without calls (the batch: timed in the frame; others: on the copies)", function(n) return st[n].motion end)
trow("world updates: A minus B (the batch: A)", function(n) return st[n].updates end)
trow("world:pairs(out) after the moves, timed directly", function(n) return st[n].pairs end)
trow("**collide per frame: world updates + pairs**", function(n) return st[n].collide end)
trow("**whole frame: A + pairs (the batch: + B)**", function(n) return st[n].whole end)
out("")
out("| other | ms per frame | spread |")
out("|---|---:|---:|")
out("| world:pairs(out) alone, nothing moved since the last call (", PAIRS_ALONE, " calls per round) | ", fmt(med(per.pairsalone.pairs)), " | ",
    string.format("%.0f%%", spr(per.pairsalone.pairs) * 100), " |")
out("| pure Lua: the same motion + sort-and-sweep on x, no world (", PURE_FRAMES, PURE_FRAMES == 1 and " frame" or " frames", " per round) | ", fmt(med(per.purelua.tell)), " | ",
    string.format("%.0f%%", spr(per.purelua.tell) * 100), " |")
out("")
local ref = hastranslate and "translate" or "update"
local q = {}
for r = 1, ROUNDS do q[r] = per.purelua.tell[r] / st[ref].whole[r] end
out("Pairs per frame: about ", nfsum > 0 and string.format("%.0f", npsum / nfsum) or "?", " (mean over the timed frames; ", tostring(np0),
    " at the first check). Same pair set and order as the pure-Lua sort-and-sweep: ",
    okp and okp2 and "yes (checked before and after the rounds)" or ("NO: " .. tostring(np0) .. " / " .. tostring(np1)), ".")
out("Ratio pure Lua / whole collide frame (", ref == "translate" and "world:translate" or "box:set + world:update", "), median of per-round ratios: ", fmt(med(q)), ".")
out("")
local function verdict(ms) return ms < 3 and "met" or "MISSED" end
local names = { translate = "world:translate", batch = "world:translatemany", update = "box:set + world:update" }
local cparts, wparts = {}, {}
for _, c in ipairs(cols) do
  local s = st[c[1]]
  local cm, wm = med(s.collide), med(s.whole)
  cparts[#cparts + 1] = string.format("%s %s ms (updates %s + pairs %s): %s", names[c[1]], fmt(cm), fmt(med(s.updates)), fmt(med(s.pairs)), verdict(cm))
  wparts[#wparts + 1] = string.format("%s %s ms: %s", names[c[1]], fmt(wm), verdict(wm))
end
results[#results + 1] = "- pairs among " .. NP .. " moving boxes, steady game loop, collide's cost per frame (world updates + world:pairs, the bench's motion loop excluded), target < 3 ms: " ..
  table.concat(cparts, "; ") .. "."
results[#results + 1] = "- the same, whole frame including the bench's own Lua motion loop (" .. fmt(med(per.motion.tell)) .. " ms bare), target < 3 ms: " ..
  table.concat(wparts, "; ") .. "."
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

-- ---------------------------------------------------------------------------------------------
-- 5. movement that games can trust (issue 12): collide.Character on a 2,000-tile level against a
--    plain world:move with the same collisions, and world:resolve of an item overlapping one
--    other against a world:check of a short move (out tables everywhere: no garbage)
-- ---------------------------------------------------------------------------------------------
if collide.Character and collide.World().resolve then
  local function level()   -- a 2D platformer floor of 2,000 touching 1 x 1 tiles, y down
    local lw = collide.World()
    for i = 0, 1999 do box:set(i, 10, 0, i + 1, 11, 0); lw:add(i, box) end
    box:set(5, 9, 0, 5.75, 10, 0); lw:add("p", box)
    return lw
  end
  local LW, LC = level(), level()
  local ch = collide.Character(LC, "p", { up = { 0, -1, 0 } })
  local NW = 1024
  local WX = {}
  for k = 1, NW do WX[k] = k <= NW / 2 and 0.37 or -0.37 end   -- there and back: each round the same
  local o1, o2, o3 = {}, {}, {}
  local ncw, ncc = 0, 0
  for k = 1, NW do
    local _, _, _, _, a = LW:move("p", WX[k], 0.2, 0, nil, o1)
    local _, _, _, _, b = ch:move(WX[k], 0.2, 0, nil, o2)
    ncw, ncc = ncw + a, ncc + b
  end
  -- resolve: an item 1/4 into a floor, put back each time by update (timed alone and subtracted)
  local RW = collide.World()
  box:set(0, 0, 0, 100, 1, 1); RW:add("floor", box)
  box:set(20, 1, 0, 21, 2, 1); RW:add("r", box)
  box:set(10, 0, 0, 11, 1, 1); RW:add("q", box)
  local sunk = collide.AABB(10, 0.75, 0, 11, 1.75, 1)
  local mvs = {
    { name = "move", per = NW, fn = function(reps)
        local s = 0
        for _ = 1, reps do for k = 1, NW do s = s + LW:move("p", WX[k], 0.2, 0, nil, o1) end end
        return s
      end },
    { name = "character", per = NW, fn = function(reps)
        local s = 0
        for _ = 1, reps do for k = 1, NW do s = s + ch:move(WX[k], 0.2, 0, nil, o2) end end
        return s
      end },
    { name = "resolve", per = NW, fn = function(reps)
        local s = 0
        for _ = 1, reps do for _ = 1, NW do RW:update("q", sunk); s = s + RW:resolve("q") end end
        return s
      end },
    { name = "update", per = NW, fn = function(reps)
        local s = 0
        for _ = 1, reps do for _ = 1, NW do RW:update("q", sunk); s = s + 1 end end
        return s
      end },
    { name = "check", per = NW, fn = function(reps)
        local s = 0
        for _ = 1, reps do for _ = 1, NW do s = s + RW:check("r", 0.1, -0.05, 0, nil, o3) end end
        return s
      end },
  }
  local r5 = lib.compare(mvs, { sample = SAMPLE })
  local cm, rs = r5.ratio("character", "move"), (r5.resolve.ns - r5.update.ns) / r5.check.ns
  out("#### Movement (issue 12): character and push-out, out tables, medians of interleaved rounds")
  out("")
  out("| variant | us per call | spread |")
  out("|---|---:|---:|")
  out("| world:move on a floor of 2,000 touching tiles (walking with gravity) | ", fmt(r5.move.ns / 1000), " | ", string.format("%.0f%%", r5.move.spread * 100), " |")
  out("| character:move, the same level and displacements | ", fmt(r5.character.ns / 1000), " | ", string.format("%.0f%%", r5.character.spread * 100), " |")
  out("| world:update + world:resolve of an item 1/4 into one floor | ", fmt(r5.resolve.ns / 1000), " | ", string.format("%.0f%%", r5.resolve.spread * 100), " |")
  out("| world:update alone (subtracted from the row above) | ", fmt(r5.update.ns / 1000), " | ", string.format("%.0f%%", r5.update.spread * 100), " |")
  out("| world:check of a short move into the floor | ", fmt(r5.check.ns / 1000), " | ", string.format("%.0f%%", r5.check.spread * 100), " |")
  out("")
  out("Collisions per step: world:move ", string.format("%.2f", ncw / NW), ", character:move ", string.format("%.2f", ncc / NW), ".")
  out("")
  results[#results + 1] = string.format("- character:move on a 2,000-tile level: %.2f x world:move with the same collisions (target <= 2: %s).",
    cm, cm <= 2 and "met" or "MISSED")
  results[#results + 1] = string.format("- world:resolve of an item overlapping one other: %.2f x world:check of a short move (target <= 2: %s).",
    rs, rs <= 2 and "met" or "MISSED")
  LW:destroy(); LC:destroy(); RW:destroy()
end

out("#### Targets on ", lib.luaname())
out("")
for _, l in ipairs(results) do out(l) end
out("")
