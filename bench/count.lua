-- bench/count.lua: fixed workloads of the World for instruction counts (callgrind), where timing
-- on a busy machine is too noisy to compare two builds: the same work on every run.
-- Usage: lua bench/count.lua OP N   (LUA_PATH must reach bench/?.lua, LUA_CPATH the collide.so)
-- OP: raycast, raycastf (with a filter), query, querypoint, sweep, pairs, update, translate, move,
-- check. The scene and a warm-up (so the snapshots exist) are built first; then N operations.
-- bench/count.sh runs it with N and with 0 under callgrind, counting only inside the method's C
-- function, and divides the difference by N. COUNT_TIME=1 also prints the CPU seconds of the N
-- operations (os.clock), for quick timed A/B runs.
local lib = require "lib"
local collide = require "collide"

local op, N = arg[1], tonumber(arg[2]) or 0
local rng = lib.rng(11)
local U = rng.uniform
local box = collide.AABB(0, 0, 0, 1, 1, 1)
local w = collide.World()
local sink = 0

-- random boxes (half sizes 0.5..5) in [0, size]^3 with ids 1..n; returns their centres
local function scatter(n, size)
  local c = {}
  for i = 1, n do
    local x, y, z = U(0, size), U(0, size), U(0, size)
    local hx, hy, hz = U(0.5, 5), U(0.5, 5), U(0.5, 5)
    box:set(x - hx, y - hy, z - hz, x + hx, y + hy, z + hz)
    w:add(i, box)
    c[i] = { x, y, z, hx, hy, hz }
  end
  return c
end

-- N random rays (origins in the cube, unit-ish directions)
local function rays(n, size)
  local r = {}
  for i = 1, n do
    local dx, dy, dz = U(-1, 1), U(-1, 1), U(-1, 1)
    if dx * dx + dy * dy + dz * dz < 1e-6 then dx = 1 end
    r[i] = collide.Ray(U(0, size), U(0, size), U(0, size), dx, dy, dz)
  end
  return r
end

local body
if op == "raycast" or op == "raycastf" or op == "query" or op == "querypoint" or op == "sweep" then
  scatter(20000, 500)
  local R = rays(256, 500)
  local Q, P = {}, {}
  for i = 1, 256 do
    local x, y, z = U(0, 500), U(0, 500), U(0, 500)
    Q[i] = collide.AABB(x - 8, y - 8, z - 8, x + 8, y + 8, z + 8)
    P[i] = { x, y, z }
  end
  local out = {}
  local keep = function(item) return item % 3 ~= 0 end
  if op == "raycast" then
    body = function(i) local it = w:raycast(R[i % 256 + 1]); if it then sink = sink + it end end
  elseif op == "raycastf" then
    body = function(i) local it = w:raycast(R[i % 256 + 1], nil, keep); if it then sink = sink + it end end
  elseif op == "query" then
    body = function(i) local _, n = w:query(Q[i % 256 + 1], nil, out); sink = sink + n end
  elseif op == "querypoint" then
    body = function(i) local p = P[i % 256 + 1]; local _, n = w:querypoint(p[1], p[2], p[3], nil, out); sink = sink + n end
  else
    body = function(i) local q = Q[i % 256 + 1]; local it = w:sweep(q, 20, 5, -10); if it then sink = sink + it end end
  end
elseif op == "pairs" or op == "update" or op == "translate" then
  local c = scatter(10000, 200)
  local out = {}
  if op == "pairs" then      -- one frame: every box moves a little, then pairs
    body = function()
      for i = 1, 10000 do w:translate(i, U(-0.2, 0.2), U(-0.2, 0.2), U(-0.2, 0.2)) end
      local _, n = w:pairs(out)
      sink = sink + n
    end
  elseif op == "update" then
    body = function(i)
      local k = i % 10000 + 1
      local e = c[k]
      e[1] = e[1] + U(-0.3, 0.3)
      box:set(e[1] - e[4], e[2] - e[5], e[3] - e[6], e[1] + e[4], e[2] + e[5], e[3] + e[6])
      w:update(k, box)
    end
  else
    body = function(i) w:translate(i % 10000 + 1, U(-0.3, 0.3), U(-0.3, 0.3), 0) end
  end
  w:pairs(out)
else                         -- move, check: one box among 2,000 grid tiles (bench/world.lua's scene)
  local G, cells, n = 100, {}, 0
  local function tile(i, j)
    local key = i * 1000 + j
    if cells[key] then return end
    cells[key] = true
    box:set(i, j, 0, i + 1, j + 1, 1)
    n = n + 1
    w:add(n, box)
  end
  for i = 0, G - 1 do tile(i, 0); tile(i, G - 1) end
  for j = 1, G - 2 do tile(0, j); tile(G - 1, j) end
  while n < 2000 do tile(rng.int(1, G - 2), rng.int(1, G - 2)) end
  local si, sj = 50, 50
  while cells[si * 1000 + sj] do si = si + 1 end
  box:set(si + 0.1, sj + 0.1, 0, si + 0.9, sj + 0.9, 1)
  w:add("player", box)
  local D = {}
  for i = 1, 1024 do D[i] = { U(-4, 4), U(-4, 4) } end
  local out = {}
  local m = op == "check" and w.check or w.move
  body = function(i)
    local d = D[i % 1024 + 1]
    local _, _, _, _, k = m(w, "player", d[1], d[2], 0, nil, out)
    sink = sink + k
  end
end

for i = 1, op == "pairs" and 2 or 256 do body(i) end  -- warm-up: snapshots built, buffers grown
local t0 = os.clock()
for i = 1, N do body(i) end
local dt = os.clock() - t0
io.write(op, " ", N, " ", sink, os.getenv("COUNT_TIME") and (" " .. dt) or "", "\n")
