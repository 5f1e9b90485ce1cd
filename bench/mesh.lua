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

-- camera rays: from 2 to 10 units above the terrain's top to points at most 60 units away
local NR = 256
local rays = {}
for k = 1, NR do
  local ox, oy, oz = U(60, G - 60), U(5.5, 13.5), U(60, G - 60)
  local tx, tz = ox + U(-60, 60), oz + U(-60, 60)
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
out("| mesh:raycast(ray), camera rays | ", lib.fmt(r.raycast.ns), " ns per ray (",
    lib.fmt(1e3 / r.raycast.ns, 3), " M rays/s) | |")
out("| empty C call, same arguments, 5 results | ", lib.fmt(r.empty.ns), " ns | |")
out()

-- ---- frustum culling: 10,000 boxes over 400 x 400, a camera seeing about 10% of them ----
local function matmul(a, b)
  local m = {}
  for i = 0, 3 do
    for j = 0, 3 do
      local s = 0
      for k = 0, 3 do s = s + a[4 * i + k + 1] * b[4 * k + j + 1] end
      m[4 * i + j + 1] = s
    end
  end
  return m
end
local f, near, far, aspect = 1 / math.tan(0.5), 0.5, 140, 1.6
local proj = { f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), 2 * far * near / (near - far), 0, 0, -1, 0 }
local view = { 1, 0, 0, -200, 0, 1, 0, -5, 0, 0, 1, -200, 0, 0, 0, 1 }  -- at (200, 5, 200) looking down -z
local planes = collide.frustum(matmul(proj, view))
local w = collide.World()
local boxes = {}
for i = 1, 10000 do
  local x, y, z = U(0, 400), U(0, 10), U(0, 400)
  local h = U(0.5, 2)
  boxes[i] = collide.AABB(x - h, y - h, z - h, x + h, y + h, z + h)
  w:add(i, boxes[i])
end
local res = {}
local _, visible = w:queryplanes(planes, nil, res)
local P = planes
local c = lib.compare({
  { name = "queryplanes", fn = function(n)
      local s = 0
      for _ = 1, n do
        local _, k = w:queryplanes(P, nil, res)
        s = s + k
      end
      return s
    end },
  { name = "six", fn = function(n)
      local s = 0
      for _ = 1, n do
        for i = 1, 10000 do
          local b = boxes[i]
          local a1 = b:plane(P[1], P[2], P[3], P[4])
          local a2 = b:plane(P[5], P[6], P[7], P[8])
          local a3 = b:plane(P[9], P[10], P[11], P[12])
          local a4 = b:plane(P[13], P[14], P[15], P[16])
          local a5 = b:plane(P[17], P[18], P[19], P[20])
          local a6 = b:plane(P[21], P[22], P[23], P[24])
          if a1 >= 0 and a2 >= 0 and a3 >= 0 and a4 >= 0 and a5 >= 0 and a6 >= 0 then s = s + 1 end
        end
      end
      return s
    end },
  { name = "early", fn = function(n)
      local s = 0
      for _ = 1, n do
        for i = 1, 10000 do
          local b = boxes[i]
          if b:plane(P[1], P[2], P[3], P[4]) >= 0 and b:plane(P[5], P[6], P[7], P[8]) >= 0
              and b:plane(P[9], P[10], P[11], P[12]) >= 0 and b:plane(P[13], P[14], P[15], P[16]) >= 0
              and b:plane(P[17], P[18], P[19], P[20]) >= 0 and b:plane(P[21], P[22], P[23], P[24]) >= 0 then
            s = s + 1
          end
        end
      end
      return s
    end },
}, { sample = 0.05 })
out("| frustum culling, 10,000 boxes, ", visible, " visible (", string.format("%.1f", visible / 100), "%) | per frame | ratio |")
out("|---|---|---|")
out("| world:queryplanes(frustum, nil, out) | ", lib.fmt(c.queryplanes.ns / 1e3), " us | 1 |")
out("| six box:plane calls per box | ", lib.fmt(c.six.ns / 1e3), " us | queryplanes / six = ",
    string.format("%.3f", c.ratio("queryplanes", "six")), " (target <= 0.2 on Lua 5.4) |")
out("| box:plane with an early exit | ", lib.fmt(c.early.ns / 1e3), " us | queryplanes / early = ",
    string.format("%.3f", c.ratio("queryplanes", "early")), " |")
out()
