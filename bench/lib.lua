-- bench/lib.lua: timing harness for the collide benchmarks.
-- Times with os.clock (process CPU time), calibrates a repeat count per variant, then runs
-- ROUNDS rounds in which every variant is timed once (rotating the order each round), and
-- reports the MEDIAN per-call time of each variant. Ratios are computed inside each round
-- (variant a and variant b timed back to back) and the median of those ratios is reported.
local M = {}

local clock = os.clock
local floor = math.floor

M.rounds = tonumber(os.getenv("BENCH_ROUNDS")) or 9       -- >= 7 required by the brief
M.sample = tonumber(os.getenv("BENCH_SAMPLE")) or 0.015   -- seconds of CPU per sample
M.warmup = tonumber(os.getenv("BENCH_WARMUP")) or 2       -- discarded rounds before those
if M.rounds < 7 then M.rounds = 7 end

-- Returns the median of a list of numbers (the list is copied, not changed).
function M.median(list)
  local t = {}
  for i = 1, #list do t[i] = list[i] end
  table.sort(t)
  local n = #t
  if n == 0 then return nil end
  if n % 2 == 1 then return t[(n + 1) / 2] end
  return (t[n / 2] + t[n / 2 + 1]) / 2
end

-- Returns the spread of a list as (max - min) / median, a crude noise measure.
function M.spread(list)
  local lo, hi = math.huge, -math.huge
  for i = 1, #list do
    if list[i] < lo then lo = list[i] end
    if list[i] > hi then hi = list[i] end
  end
  local m = M.median(list)
  if not m or m == 0 then return 0 end
  return (hi - lo) / m
end

-- Returns the seconds one call fn(n) took and the value fn returned. setup (optional) runs first,
-- untimed (e.g. to bring shared state back to a steady state after another variant ran).
function M.time(fn, n, setup)
  if setup then setup() end
  collectgarbage("collect")
  local t0 = clock()
  local sink = fn(n)
  return clock() - t0, sink
end

-- Returns a repeat count n for which fn(n) takes about `target` seconds (also warms up the JIT).
function M.calibrate(fn, target, setup)
  target = target or M.sample
  local n = 1
  while true do
    local t = M.time(fn, n, setup)
    if t >= target / 8 or n >= 2 ^ 40 then
      local want = n * target / math.max(t, 1e-9)
      return math.max(1, floor(want))
    end
    n = n * 4
  end
end

-- Times every variant. variants: list of {name=, fn=function(n) ... return sink end, per=k,
-- setup=function() end (optional, run untimed before every timing of fn)} where each fn(n)
-- performs n*per operations. Returns a table by name of
-- {ns = median ns per operation, all = {ns per round}, spread =, sink = last sink}, plus
-- ratio(a, b): median over rounds of ns(a)/ns(b).
function M.compare(variants, opts)
  opts = opts or {}
  local rounds = opts.rounds or M.rounds
  local target = opts.sample or M.sample
  local res = {}
  for _, v in ipairs(variants) do
    v.n = v.n or M.calibrate(v.fn, target, v.setup)
    res[v.name] = { all = {}, per = v.per or 1 }
  end
  local nv = #variants
  -- warm-up rounds, discarded: LuaJIT keeps compiling side traces well after calibration
  for r = 1 - (opts.warmup or M.warmup), rounds do
    for k = 0, nv - 1 do
      local v = variants[(k + r) % nv + 1]
      local t, sink = M.time(v.fn, v.n, v.setup)
      local e = res[v.name]
      if r >= 1 then e.all[r] = t * 1e9 / (v.n * e.per) end
      e.sink = sink
    end
  end
  for _, e in pairs(res) do
    e.ns = M.median(e.all)
    e.spread = M.spread(e.all)
  end
  function res.ratio(a, b)
    local ea, eb = res[a], res[b]
    if not ea or not eb then return nil end
    local q = {}
    for r = 1, #ea.all do q[r] = ea.all[r] / eb.all[r] end
    return M.median(q)
  end
  return res
end

-- A fixed-seed PRNG (Park-Miller minimal standard LCG, exact in doubles and in 5.4 integers),
-- identical on every Lua version, so every run uses the same inputs.
function M.rng(seed)
  local a = (seed or 1) % 2147483647
  if a <= 0 then a = a + 2147483646 end
  local r = {}
  function r.next()
    a = (a * 48271) % 2147483647
    return a / 2147483647
  end
  function r.uniform(lo, hi) return lo + (hi - lo) * r.next() end
  function r.int(lo, hi) return lo + floor(r.next() * (hi - lo + 1)) end
  return r
end

-- Runs s:frame() n times with the collector stopped (collected first); returns the seconds and the
-- KB of garbage per frame (bench/bump.lua, bench/bumpfloor.lua).
function M.frameround(s, n)
  collectgarbage()
  collectgarbage("stop")
  local k0, t0 = collectgarbage("count"), os.clock()
  for _ = 1, n do s:frame() end
  local t1, k1 = os.clock(), collectgarbage("count")
  collectgarbage("restart")
  return (t1 - t0) / n, (k1 - k0) / n
end

-- Formats a number for the tables.
function M.fmt(x, digits)
  if x == nil then return "n/a" end
  if x ~= x then return "nan" end
  digits = digits or 3
  if x >= 1000 then return string.format("%.0f", x) end
  if x >= 100 then return string.format("%.0f", x) end
  if x >= 10 then return string.format("%.1f", x) end
  return string.format("%." .. (digits - 1) .. "f", x)
end

-- Returns the interpreter's name: "LuaJIT 2.1..." or _VERSION.
function M.luaname()
  if type(jit) == "table" and jit.version then return jit.version end
  return _VERSION
end

-- Resident set size of this process in KiB (Linux /proc), or nil.
function M.rss_kib()
  local f = io.open("/proc/self/statm", "r")
  if not f then return nil end
  local s = f:read("*l")
  f:close()
  local _, res = s:match("^(%d+)%s+(%d+)")
  if not res then return nil end
  return tonumber(res) * 4
end

-- Writes a line to the output file and to stdout.
function M.writer(path)
  local f = path and assert(io.open(path, "w"))
  return function(...)
    local s = table.concat({ ... })
    io.write(s, "\n")
    io.flush()
    if f then f:write(s, "\n"); f:flush() end
  end, f
end

-- Fills world W with bench/world.lua's moving-boxes scene (rng 23): np boxes (items 1..np, set on
-- the AABB box and added) with centres in [0, side]^3, half sizes in [0.5, 1.5] and velocities in
-- [-0.05, 0.05]^3, drawn in that order per box (csrc/test/bench_common.h's lscene_box draws the
-- same). Returns the lists px, py, pz, hx, hy, hz, vx, vy, vz.
function M.movingboxes(W, box, np, side)
  local pr = M.rng(23)
  local px, py, pz, hx, hy, hz, vx, vy, vz = {}, {}, {}, {}, {}, {}, {}, {}, {}
  for i = 1, np do
    px[i], py[i], pz[i] = pr.uniform(0, side), pr.uniform(0, side), pr.uniform(0, side)
    hx[i], hy[i], hz[i] = pr.uniform(0.5, 1.5), pr.uniform(0.5, 1.5), pr.uniform(0.5, 1.5)
    vx[i], vy[i], vz[i] = pr.uniform(-0.05, 0.05), pr.uniform(-0.05, 0.05), pr.uniform(-0.05, 0.05)
    box:set(px[i] - hx[i], py[i] - hy[i], pz[i] - hz[i], px[i] + hx[i], py[i] + hy[i], pz[i] + hz[i])
    W:add(i, box)
  end
  return px, py, pz, hx, hy, hz, vx, vy, vz
end

return M
