-- bench/frustum.lua (issue 16): frustum culling of 10,000 boxes with about 10% visible, shared by
-- bench/mesh.lua (Lua 5.4, LuaJIT) and bench/love/main.lua (inside LÖVE). Four ways to find the
-- visible boxes of one frame, timed interleaved by lib.compare (medians of per-round ratios):
--   queryplanes: world:queryplanes(frustum, nil, out), through the World's tree;
--   six:         six box:plane calls per box (all six, as a loop over shapes written naively does);
--   early:       box:plane with an early exit at the first plane the box is wholly behind;
--   flat:        a plain Lua loop over flat arrays of the boxes' bounds (no collide call), testing
--                each plane's most positive corner with an early exit, as g3d-style code does.
-- Usage: require("frustum")(collide, lib, out, title) writes one markdown table through out and
-- returns a table of the numbers (us per frame, ratios, the visible count of each method).
return function(collide, lib, out, title)
  local rng = lib.rng(20261126)
  local U = rng.uniform

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
  -- a camera at (200, 5, 200) looking down -z, 1 rad vertical field of view, 0.5 to 140 units
  local f, near, far, aspect = 1 / math.tan(0.5), 0.5, 140, 1.6
  local proj = { f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / (near - far), 2 * far * near / (near - far), 0, 0, -1, 0 }
  local view = { 1, 0, 0, -200, 0, 1, 0, -5, 0, 0, 1, -200, 0, 0, 0, 1 }
  local P = collide.frustum(matmul(proj, view))

  -- 10,000 boxes over 400 x 400
  local N = 10000
  local w = collide.World()
  local boxes = {}
  local x0, y0, z0, x1, y1, z1 = {}, {}, {}, {}, {}, {}
  for i = 1, N do
    local x, y, z = U(0, 400), U(0, 10), U(0, 400)
    local h = U(0.5, 2)
    boxes[i] = collide.AABB(x - h, y - h, z - h, x + h, y + h, z + h)
    x0[i], y0[i], z0[i], x1[i], y1[i], z1[i] = x - h, y - h, z - h, x + h, y + h, z + h
    w:add(i, boxes[i])
  end
  local res, flatout = {}, {}

  local function flat()
    local k = 0
    for i = 1, N do
      local ax, ay, az, bx, by, bz = x0[i], y0[i], z0[i], x1[i], y1[i], z1[i]
      local vis = true
      for p = 1, 24, 4 do
        local nx, ny, nz = P[p], P[p + 1], P[p + 2]
        local px = nx >= 0 and bx or ax
        local py = ny >= 0 and by or ay
        local pz = nz >= 0 and bz or az
        if nx * px + ny * py + nz * pz + P[p + 3] < 0 then vis = false; break end
      end
      if vis then k = k + 1; flatout[k] = i end
    end
    for j = #flatout, k + 1, -1 do flatout[j] = nil end
    return k
  end
  local function six()
    local s = 0
    for i = 1, N do
      local b = boxes[i]
      local a1 = b:plane(P[1], P[2], P[3], P[4])
      local a2 = b:plane(P[5], P[6], P[7], P[8])
      local a3 = b:plane(P[9], P[10], P[11], P[12])
      local a4 = b:plane(P[13], P[14], P[15], P[16])
      local a5 = b:plane(P[17], P[18], P[19], P[20])
      local a6 = b:plane(P[21], P[22], P[23], P[24])
      if a1 >= 0 and a2 >= 0 and a3 >= 0 and a4 >= 0 and a5 >= 0 and a6 >= 0 then s = s + 1 end
    end
    return s
  end
  local function early()
    local s = 0
    for i = 1, N do
      local b = boxes[i]
      if b:plane(P[1], P[2], P[3], P[4]) >= 0 and b:plane(P[5], P[6], P[7], P[8]) >= 0
          and b:plane(P[9], P[10], P[11], P[12]) >= 0 and b:plane(P[13], P[14], P[15], P[16]) >= 0
          and b:plane(P[17], P[18], P[19], P[20]) >= 0 and b:plane(P[21], P[22], P[23], P[24]) >= 0 then
        s = s + 1
      end
    end
    return s
  end
  local _, visible = w:queryplanes(P, nil, res)
  local counts = { queryplanes = visible, flat = flat(), six = six(), early = early() }

  local c = lib.compare({
    { name = "queryplanes", fn = function(n)
        local s = 0
        for _ = 1, n do
          local _, k = w:queryplanes(P, nil, res)
          s = s + k
        end
        return s
      end },
    { name = "six", fn = function(n) local s = 0; for _ = 1, n do s = s + six() end; return s end },
    { name = "early", fn = function(n) local s = 0; for _ = 1, n do s = s + early() end; return s end },
    { name = "flat", fn = function(n) local s = 0; for _ = 1, n do s = s + flat() end; return s end },
  }, { sample = 0.05 })
  local r = {
    visible = visible, counts = counts,
    queryplanes = c.queryplanes.ns / 1e3, six = c.six.ns / 1e3, early = c.early.ns / 1e3, flat = c.flat.ns / 1e3,
    vs_six = c.ratio("queryplanes", "six"), vs_early = c.ratio("queryplanes", "early"),
    vs_flat = c.ratio("queryplanes", "flat"),
  }
  local function q(x) return string.format("%.3f", x) end
  out("| frustum culling, ", title, ", 10,000 boxes, ", visible, " visible (", string.format("%.1f", visible / 100),
      "%) | per frame | queryplanes / this |")
  out("|---|---|---|")
  out("| world:queryplanes(frustum, nil, out) | ", lib.fmt(r.queryplanes), " us | 1 |")
  out("| six box:plane calls per box | ", lib.fmt(r.six), " us | ", q(r.vs_six), " (target <= 0.2 on Lua 5.4) |")
  out("| box:plane with an early exit | ", lib.fmt(r.early), " us | ", q(r.vs_early), " |")
  out("| plain loop over flat arrays (no collide call) | ", lib.fmt(r.flat), " us | ", q(r.vs_flat),
      " (target <= 0.2 in LÖVE) |")
  out()
  out("(visible boxes found by each: queryplanes ", counts.queryplanes, ", flat arrays ", counts.flat,
      ", six box:plane ", counts.six, ", early exit ", counts.early, ")")
  out()
  return r
end
