-- bench/mesh.lua (issue 16): meshes and frustum culling from Lua.
--   build : collide.Mesh on a 262,088-triangle height field (362 x 362 cells) from flat Lua tables
--           (reading the tables included), median of 5 builds;
--   raycast: mesh:raycast(ray) with camera rays on that mesh, against an empty C call with the
--           same call syntax returning 5 numbers (bench_empty's obj:ret5n(ray)) and against the
--           same rays cast from C in this process (bench/meshc.c), interleaved, per call;
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
local rays, flat = {}, {}
for k = 1, NR do
  local ox, oy, oz = U(60, G - 60), U(5.5, 13.5), U(60, G - 60)
  local tx, tz = ox + U(-10, 10), oz + U(-10, 10)
  rays[k] = collide.Ray(ox, oy, oz, tx - ox, -oy, tz - oz)
  local f = 6 * k - 6
  flat[f + 1], flat[f + 2], flat[f + 3], flat[f + 4], flat[f + 5], flat[f + 6] = ox, oy, oz, tx - ox, -oy, tz - oz
end
-- the same mesh and rays cast from C in this process (bench/meshc.c, built by bench/run.sh next to
-- collide.so), interleaved round by round with the Lua calls: same load, same caches
local okc, CM = pcall(require, "bench_meshc")
local cmesh, cquadm
if okc then
  cmesh = CM.mesh(v, idx)
  cmesh:rays(flat)
  local s = 0
  for k = 1, NR do s = s + (mesh:raycast(rays[k]) or 0) end
  if cmesh:cast(1) ~= s then
    error("bench/mesh.lua: bench_meshc's rays found a sum of t " .. cmesh:cast(1) .. ", collide's " .. s)
  end
end
-- the empty call has the same call syntax as mesh:raycast(ray): a method call on a dummy userdata
-- whose metatable's __index holds the empty functions, so the method lookup is paid too (as
-- bench/shapes.lua's empty calls)
local eobj = E.object()
local function withc(variants, cm, per)
  if cm then variants[#variants + 1] = { name = "c", per = per, fn = function(n) return cm:cast(n) end } end
  return variants
end
local r = lib.compare(withc({
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
          local t = eobj:ret5n(rays[k])
          if t then s = s + t end
        end
      end
      return s
    end },
}, cmesh, NR))
-- the small case: one ray down onto a 2-triangle quad (C time small and steady: Lua's call cost shows)
local quad = collide.Mesh({ 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1 }, { 1, 2, 3, 1, 3, 4 })
local qray = collide.Ray(0.3, 1, 0.4, 0, -1, 0)
if okc then
  cquadm = CM.mesh({ 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1 }, { 1, 2, 3, 1, 3, 4 })
  local q = {}
  for _ = 1, 100 do for _, x in ipairs({ 0.3, 1, 0.4, 0, -1, 0 }) do q[#q + 1] = x end end
  cquadm:rays(q)
end
local sq = lib.compare(withc({
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
        for _ = 1, 100 do s = s + eobj:ret5n(qray) end
      end
      return s
    end },
}, cquadm, 100))
-- the same rays from C: in this process when bench_meshc loaded (interleaved), else from
-- build/bench-mesh (another process, minutes apart: it writes its time per ray, then the quad's,
-- to the file BENCH_MESH_CNS names)
local cns, cquad, cfrom = r.c and r.c.ns, sq.c and sq.c.ns, "bench/meshc.c, this process, interleaved"
if not cns then
  cfrom = "build/bench-mesh"
  local path = os.getenv("BENCH_MESH_CNS")
  local f = path and io.open(path, "r")
  if f then cns = tonumber(f:read("*l")); cquad = tonumber(f:read("*l")); f:close() end
end
out("| mesh:raycast(ray), ", NR, " camera rays", collide._ffi and " (LuaJIT FFI fast path)" or "", " | ",
    lib.fmt(r.raycast.ns), " ns per ray (", lib.fmt(1e3 / r.raycast.ns, 3), " M rays/s) | Lua <= C + 2 x empty |")
out("| empty C call, same call syntax (obj:ret5n(ray)), 5 results | ", lib.fmt(r.empty.ns), " ns | |")
if cns then
  local lim = cns + 2 * r.empty.ns
  out("| the same rays from C (", cfrom, ") | ", lib.fmt(cns), " ns per ray | Lua ", lib.fmt(r.raycast.ns),
      " ns against C + 2 x empty = ", lib.fmt(lim), " ns: ", r.raycast.ns <= lim and "met" or "MISSED",
      " (Lua / (C + 2 x empty) = ", string.format("%.2f", r.raycast.ns / lim), ") |")
else
  out("| the same rays from C | not measured (BENCH_MESH_CNS not set: run through bench/run.sh) | |")
end
out("| mesh:raycast(ray), one ray onto a 2-triangle quad | ", lib.fmt(sq.raycast.ns), " ns | Lua <= C + 2 x empty |")
out("| empty C call, same call syntax (obj:ret5n(ray)), 5 results | ", lib.fmt(sq.empty.ns), " ns | |")
if cquad then
  local lim = cquad + 2 * sq.empty.ns
  out("| the same ray from C (", cfrom, ") | ", lib.fmt(cquad), " ns | Lua ", lib.fmt(sq.raycast.ns),
      " ns against C + 2 x empty = ", lib.fmt(lim), " ns: ", sq.raycast.ns <= lim and "met" or "MISSED",
      " (Lua - C = ", lib.fmt(sq.raycast.ns - cquad), " ns = ", string.format("%.2f", (sq.raycast.ns - cquad) / sq.empty.ns),
      " x empty) |")
end
out()

-- ---- frustum culling (bench/frustum.lua) ----
require("frustum")(collide, lib, out, lib.luaname())

-- ---- a capsule character walking over a 100,352-triangle terrain ----
require("walk")(collide, lib, out)
