-- The walker demo's level, described as a few solids, and its Wavefront .obj text.
-- `lua level.lua > level.obj` regenerates the level.obj the demo loads (the screenshot test
-- checks that the two agree). Units are metres, y is up; the level spans x, z in [-10, 10].
--
-- Solids (the .obj has one object `o` per solid, in this order):
--   floor     a 20 x 20 grid of 1 m quads at y = 0 (800 triangles: the seams a walker crosses)
--   ramp      a wedge rising 1.5 m over 4 m (20.6 degrees) toward -z, its top a 4 x 4 grid
--   platform  a 4 x 4 m block 1.5 m high that the ramp and the steps lead up to
--   step1..6  six 0.25 m steps, 0.6 m deep, climbing from the east floor to the platform
--   walls     four walls round the floor, 2 m high, and a low wall (1 m) in the north-west
--   pillars   four square pillars and one turned by 45 degrees about y (kind prism, turn in radians)
local M = {}

M.RAMP = { x0 = -2, x1 = 2, zlow = 4, zhigh = 0, height = 1.5 }
M.PLATFORM_Y = 1.5
M.STEP_H, M.STEP_D = 0.25, 0.6

-- Returns the list of solids: { name =, kind = "grid"|"box"|"wedge"|"prism", ... }.
function M.solids()
  local s = {}
  s[#s + 1] = { name = "floor", kind = "grid", x0 = -10, x1 = 10, z0 = -10, z1 = 10, y = 0, cell = 1 }
  local r = M.RAMP
  s[#s + 1] = { name = "ramp", kind = "wedge", x0 = r.x0, x1 = r.x1, zlow = r.zlow, zhigh = r.zhigh,
                height = r.height, cells = 4 }
  s[#s + 1] = { name = "platform", kind = "box", min = { -2, 0, -4 }, max = { 2, M.PLATFORM_Y, 0 } }
  for i = 1, 6 do
    local xr = 2 + M.STEP_D * (7 - i)
    s[#s + 1] = { name = "step" .. i, kind = "box", min = { xr - M.STEP_D, 0, -4 },
                  max = { xr, M.STEP_H * i, 0 } }
  end
  s[#s + 1] = { name = "wall north", kind = "box", min = { -10.5, 0, -10.5 }, max = { 10.5, 2, -10 } }
  s[#s + 1] = { name = "wall south", kind = "box", min = { -10.5, 0, 10 }, max = { 10.5, 2, 10.5 } }
  s[#s + 1] = { name = "wall west", kind = "box", min = { -10.5, 0, -10 }, max = { -10, 2, 10 } }
  s[#s + 1] = { name = "wall east", kind = "box", min = { 10, 0, -10 }, max = { 10.5, 2, 10 } }
  s[#s + 1] = { name = "low wall", kind = "box", min = { -8, 0, -6.25 }, max = { -4, 1, -5.75 } }
  for _, p in ipairs { { -6, 2 }, { -6, 7 }, { 6, 6 }, { 6, -7.5 } } do
    s[#s + 1] = { name = "pillar", kind = "box", min = { p[1] - 0.4, 0, p[2] - 0.4 },
                  max = { p[1] + 0.4, 3, p[2] + 0.4 } }
  end
  s[#s + 1] = { name = "turned pillar", kind = "prism", center = { -2, 0, 6.5 }, half = 0.5,
                height = 3, turn = math.pi / 4 }
  return s
end

-- Returns the height of the walkable surface of the ramp at z (0 outside it).
function M.rampheight(z)
  local r = M.RAMP
  local f = (r.zlow - z) / (r.zlow - r.zhigh)
  return r.height * math.max(0, math.min(1, f))
end

-- Appends the vertices and faces of one solid to the writer w (w.v(x, y, z) returns the vertex
-- number, w.f(a, b, c, ...) writes a face; faces wind counter-clockwise seen from outside).
local function emit(w, s)
  if s.kind == "grid" then
    local n = math.floor((s.x1 - s.x0) / s.cell + 0.5)
    local m = math.floor((s.z1 - s.z0) / s.cell + 0.5)
    local id = {}
    for j = 0, m do
      for i = 0, n do id[j * (n + 1) + i] = w.v(s.x0 + i * s.cell, s.y, s.z0 + j * s.cell) end
    end
    for j = 0, m - 1 do
      for i = 0, n - 1 do
        local a = j * (n + 1) + i
        w.f(id[a], id[a + n + 1], id[a + n + 2], id[a + 1])
      end
    end
  elseif s.kind == "wedge" then
    -- the top: a cells x cells grid from (x0, 0, zlow) up to (x1, height, zhigh)
    local c, id = s.cells, {}
    for j = 0, c do
      local z = s.zlow + (s.zhigh - s.zlow) * j / c
      for i = 0, c do id[j * (c + 1) + i] = w.v(s.x0 + (s.x1 - s.x0) * i / c, s.height * j / c, z) end
    end
    for j = 0, c - 1 do
      for i = 0, c - 1 do
        local a = j * (c + 1) + i
        w.f(id[a], id[a + 1], id[a + c + 2], id[a + c + 1])
      end
    end
    -- the two vertical sides (the high end is against the platform, the bottom on the floor)
    w.f(w.v(s.x0, 0, s.zlow), w.v(s.x0, s.height, s.zhigh), w.v(s.x0, 0, s.zhigh))
    w.f(w.v(s.x1, 0, s.zlow), w.v(s.x1, 0, s.zhigh), w.v(s.x1, s.height, s.zhigh))
  else
    -- box or turned square prism: four corners round the bottom, the same at the top
    local c, y0, y1 = {}, nil, nil
    if s.kind == "box" then
      local a, b = s.min, s.max
      c = { { a[1], a[3] }, { a[1], b[3] }, { b[1], b[3] }, { b[1], a[3] } }
      y0, y1 = a[2], b[2]
    else
      for k = 0, 3 do
        local t = s.turn + 5 * math.pi / 4 - k * math.pi / 2
        c[k + 1] = { s.center[1] + math.sqrt(2) * s.half * math.cos(t),
                     s.center[3] + math.sqrt(2) * s.half * math.sin(t) }
      end
      y0, y1 = s.center[2], s.center[2] + s.height
    end
    local lo, hi = {}, {}
    for k = 1, 4 do
      lo[k] = w.v(c[k][1], y0, c[k][2])
      hi[k] = w.v(c[k][1], y1, c[k][2])
    end
    w.f(hi[1], hi[2], hi[3], hi[4])
    for k = 1, 4 do
      local n = k % 4 + 1
      w.f(lo[k], lo[n], hi[n], hi[k])
    end
  end
end

-- Returns the level as .obj text: a header comment, then per solid an `o` line, its `v` lines and
-- its `f` lines (1-based vertex numbers; quads are fanned into triangles by the reader).
function M.obj()
  local out, nv = { "# collide walker demo level: generated by examples/love-walker/level.lua" }, 0
  local w = {}
  function w.v(x, y, z)
    nv = nv + 1
    out[#out + 1] = ("v %.17g %.17g %.17g"):format(x, y, z)
    return nv
  end
  function w.f(...)
    out[#out + 1] = "f " .. table.concat({ ... }, " ")
  end
  for _, s in ipairs(M.solids()) do
    out[#out + 1] = "o " .. s.name:gsub(" ", "_")
    emit(w, s)
  end
  return table.concat(out, "\n") .. "\n"
end

if not love and arg and arg[0] and arg[0]:match("level%.lua$") then
  io.write(M.obj())
end

return M
