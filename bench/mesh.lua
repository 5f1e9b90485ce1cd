-- bench/mesh.lua (issue 16): meshes and frustum culling from Lua.
--   build : collide.Mesh on a 262,088-triangle height field (362 x 362 cells) from flat Lua tables
--           (reading the tables included), median of 5 builds;
--   raycast: mesh:raycast(ray) with camera rays on that mesh, against an empty C call with the
--           same arguments returning 5 numbers (bench_empty's ret5n), per call;
--   culling: world:queryplanes(frustum, nil, out) on 10,000 boxes with about 10% visible, against
--           six box:plane calls per item (all six, and with an early exit at the first plane the
--           box is behind), per frame.
-- Usage: lua bench/mesh.lua [out.md]   (LUA_PATH must reach bench/?.lua)
local lib = require "lib"
local E = require "bench_empty"
local ok, collide = pcall(require, "collide")

local out = lib.writer(arg and arg[1])
if not ok then
  out("collide could not be loaded: ", tostring(collide))
  os.exit(0)
end

local rng = lib.rng(20261125)
local U = rng.uniform

-- ---- the height field ----
local G = 362
local v, idx = {}, {}
for j = 0, G do
  for i = 0, G do
    v[#v + 1], v[#v + 2], v[#v + 3] = i, 3 * math.sin(i * 0.05) * math.cos(j * 0.07) + U(0, 0.3), j
  end
end
for j = 0, G - 1 do
  for i = 0, G - 1 do
    local v0 = j * (G + 1) + i + 1
    local v1, v2 = v0 + 1, v0 + G + 1
    local n = #idx
    idx[n + 1], idx[n + 2], idx[n + 3], idx[n + 4], idx[n + 5], idx[n + 6] = v0, v1, v2 + 1, v0, v2 + 1, v2
  end
end

out("### ", lib.luaname(), ": meshes and frustum culling (issue 16)")
out()

local times, mesh = {}, nil
for k = 1, 5 do
  mesh = nil
  collectgarbage("collect")
  local t0 = os.clock()
  mesh = collide.Mesh(v, idx)
  times[k] = (os.clock() - t0) * 1e3
end
out("| mesh | measured | target |")
out("|---|---|---|")
out("| collide.Mesh(vertices, indices), ", mesh:count(), " triangles, from Lua tables (median of 5) | ",
    lib.fmt(lib.median(times)), " ms | (C build alone <= 100 ms: build/bench-mesh) |")

-- camera rays: from 2 to 10 units above the terrain's top to points at most 10 units away (a steep view)
-- (build/bench-mesh casts the same rays on the same mesh from C: keep them in step)
local NR = 4096
local rays = {}
for k = 1, NR do
  local ox, oy, oz = U(60, G - 60), U(5.5, 13.5), U(60, G - 60)
  local tx, tz = ox + U(-10, 10), oz + U(-10, 10)
  rays[k] = collide.Ray(ox, oy, oz, tx - ox, -oy, tz - oz)
end
local dummy = collide.AABB(0, 0, 0, 1, 1, 1)
local ret5 = E.ret5n
local r = lib.compare({
  { name = "raycast", per = NR, fn = function(n)
      local s = 0
      for _ = 1, n do
        for k = 1, NR do
          local t = mesh:raycast(rays[k])
          if t then s = s + t end
        end
      end
      return s
    end },
  { name = "empty", per = NR, fn = function(n)
      local s = 0
      for _ = 1, n do
        for k = 1, NR do
          local t = ret5(dummy, rays[k])
          if t then s = s + t end
        end
      end
      return s
    end },
})
-- the small case: one ray down onto a 2-triangle quad (C time small and steady: Lua's call cost shows)
local quad = collide.Mesh({ 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1 }, { 1, 2, 3, 1, 3, 4 })
local qray = collide.Ray(0.3, 1, 0.4, 0, -1, 0)
local sq = lib.compare({
  { name = "raycast", per = 100, fn = function(n)
      local s = 0
      for _ = 1, n do
        for _ = 1, 100 do s = s + quad:raycast(qray) end
      end
      return s
    end },
  { name = "empty", per = 100, fn = function(n)
      local s = 0
      for _ = 1, n do
        for _ = 1, 100 do s = s + ret5(dummy, qray) end
      end
      return s
    end },
})
-- the same rays from C (build/bench-mesh writes its time per ray, then the quad's, to the file
-- BENCH_MESH_CNS names)
local cns, cquad
do
  local path = os.getenv("BENCH_MESH_CNS")
  local f = path and io.open(path, "r")
  if f then cns = tonumber(f:read("*l")); cquad = tonumber(f:read("*l")); f:close() end
end
out("| mesh:raycast(ray), ", NR, " camera rays", collide._ffi and " (LuaJIT FFI fast path)" or "", " | ",
    lib.fmt(r.raycast.ns), " ns per ray (", lib.fmt(1e3 / r.raycast.ns, 3), " M rays/s) | Lua <= C + 2 x empty |")
out("| empty C call, same arguments, 5 results | ", lib.fmt(r.empty.ns), " ns | |")
if cns then
  local lim = cns + 2 * r.empty.ns
  out("| the same rays from C (build/bench-mesh) | ", lib.fmt(cns), " ns per ray | Lua ", lib.fmt(r.raycast.ns),
      " ns against C + 2 x empty = ", lib.fmt(lim), " ns: ", r.raycast.ns <= lim and "met" or "MISSED",
      " (Lua / (C + 2 x empty) = ", string.format("%.2f", r.raycast.ns / lim), ") |")
else
  out("| the same rays from C | not measured (BENCH_MESH_CNS not set: run through bench/run.sh) | |")
end
out("| mesh:raycast(ray), one ray onto a 2-triangle quad | ", lib.fmt(sq.raycast.ns), " ns | Lua <= C + 2 x empty |")
out("| empty C call, same arguments, 5 results | ", lib.fmt(sq.empty.ns), " ns | |")
if cquad then
  local lim = cquad + 2 * sq.empty.ns
  out("| the same ray from C (build/bench-mesh) | ", lib.fmt(cquad), " ns | Lua ", lib.fmt(sq.raycast.ns),
      " ns against C + 2 x empty = ", lib.fmt(lim), " ns: ", sq.raycast.ns <= lim and "met" or "MISSED",
      " (Lua - C = ", lib.fmt(sq.raycast.ns - cquad), " ns = ", string.format("%.2f", (sq.raycast.ns - cquad) / sq.empty.ns),
      " x empty) |")
end
out()

-- ---- frustum culling (bench/frustum.lua) ----
require("frustum")(collide, lib, out, lib.luaname())

-- ---- a capsule character walking over a 100,352-triangle terrain ----
require("walk")(collide, lib, out)
