-- Deterministic random generators for the differential spec. The PRNG uses only exact double
-- arithmetic (products below 2^53), so it yields the same sequence on Lua 5.1-5.4 and LuaJIT
-- (math.random differs between versions). Generators are biased to nasty cases: coarse grids
-- (faces touch exactly, origins on slab planes), flat boxes, axis-parallel and diagonal
-- directions, exact 90-degree OBB axes, and huge/tiny scales that are powers of two (so grid
-- arithmetic stays exact); a minority of cases use real-valued coordinates and rotations.
local gen = {}

local floor, sqrt, abs = math.floor, math.sqrt, math.abs

local M1, A1 = 2147483647, 48271
local M2, A2 = 2147483399, 40692

local Rng = {}
Rng.__index = Rng

-- Returns a new generator for the given integer seed (combined L'Ecuyer-style LCG pair).
function gen.new(seed)
  local self = setmetatable({}, Rng)
  self.s1 = seed % (M1 - 1) + 1
  self.s2 = (seed * 7 + 12345) % (M2 - 1) + 1
  return self
end

-- Returns a uniform float in [0, 1).
function Rng:float()
  self.s1 = (self.s1 * A1) % M1
  self.s2 = (self.s2 * A2) % M2
  local z = (self.s1 - self.s2) % (M1 - 1)
  return z / (M1 - 1)
end

-- Returns a uniform integer in [a, b] (as a float-safe whole number).
function Rng:int(a, b)
  return a + floor(self:float() * (b - a + 1))
end

-- Returns true with probability p.
function Rng:chance(p) return self:float() < p end

-- Returns a random element of array t.
function Rng:pick(t) return t[floor(self:float() * #t) + 1] end

-- ---------------------------------------------------------------- number contexts
-- A context decides how coordinates and sizes are drawn for one case: an exact grid
-- (multiples of 1/2 times a power of two) or real values at a scale S.

local GRIDSCALES = { 1, 1, 1, 1, 1, 1, 2 ^ 40, 2 ^ -40, 2 ^ 20, 2 ^ -20 }
local REALSCALES = { 1, 1, 1e6, 1e12, 1e-6, 1e-12, 3.7 }

local Ctx = {}
Ctx.__index = Ctx

-- Returns a context; realp is the probability of a real-valued (non-exact) one.
function gen.context(rng, realp)
  local c = setmetatable({ rng = rng }, Ctx)
  if rng:chance(realp or 0.15) then
    c.exact = false
    c.S = rng:pick(REALSCALES)
  else
    c.exact = true
    c.S = rng:pick(GRIDSCALES)
  end
  return c
end

-- Returns a coordinate.
function Ctx:coord()
  local r = self.rng
  if self.exact then return r:int(-8, 8) / 2 * self.S end
  if r:chance(0.05) then return 0 end
  return (2 * r:float() - 1) * 4 * self.S
end

-- Returns a non-negative size (often 0 = flat on grids).
function Ctx:size()
  local r = self.rng
  if self.exact then
    if r:chance(0.2) then return 0 end
    return r:int(1, 6) / 2 * self.S
  end
  if r:chance(0.05) then return 0 end
  return r:float() * 3 * self.S
end

-- ---------------------------------------------------------------- shapes
-- Shape descriptions: {ctor = "AABB"|"OBB"|"Sphere"|"Ray", args = {...}, exact = bool}.

-- Returns an AABB description.
function Ctx:aabb()
  local a = {}
  for i = 1, 3 do a[i] = self:coord() end
  for i = 1, 3 do a[i + 3] = a[i] + self:size() end
  return { ctor = "AABB", args = a, exact = self.exact }
end

-- Returns an AABB description touching or near box b (shares a face, edge or corner plane).
function Ctx:aabbnear(b)
  local a = self:aabb()
  local r = self.rng
  for i = 1, 3 do
    if r:chance(0.5) then
      local w = a.args[i + 3] - a.args[i]
      if r:chance(0.5) then
        a.args[i] = b.args[i + 3]                 -- my min on its max
      else
        a.args[i] = b.args[i] - w                 -- my max on its min
      end
      a.args[i + 3] = a.args[i] + w
    end
  end
  return a
end

-- Returns 9 numbers of a signed permutation matrix (exact orthonormal axes, either handedness).
function gen.permaxes(r)
  local perms = { { 1, 2, 3 }, { 1, 3, 2 }, { 2, 1, 3 }, { 2, 3, 1 }, { 3, 1, 2 }, { 3, 2, 1 } }
  local p = r:pick(perms)
  local out = {}
  for i = 1, 3 do
    local row = { 0, 0, 0 }
    row[p[i]] = r:chance(0.5) and 1 or -1
    out[#out + 1], out[#out + 2], out[#out + 3] = row[1], row[2], row[3]
  end
  return out
end

-- Returns 9 numbers of a rotation from a random unit quaternion.
function gen.rotaxes(r)
  local w, x, y, z
  repeat
    w, x, y, z = 2 * r:float() - 1, 2 * r:float() - 1, 2 * r:float() - 1, 2 * r:float() - 1
  until w * w + x * x + y * y + z * z > 0.01
  local l = sqrt(w * w + x * x + y * y + z * z)
  w, x, y, z = w / l, x / l, y / l, z / l
  return {
    1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
    2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
    2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y),
  }
end

-- Returns 9 numbers of a rotation by angle about one world axis (45 degrees is nasty).
function gen.axisrot(r)
  local ang = r:chance(0.5) and math.pi / 4 or r:float() * 2 * math.pi
  local c, s = math.cos(ang), math.sin(ang)
  local k = r:int(1, 3)
  if k == 1 then return { 1, 0, 0, 0, c, s, 0, -s, c } end
  if k == 2 then return { c, 0, -s, 0, 1, 0, s, 0, c } end
  return { c, s, 0, -s, c, 0, 0, 0, 1 }
end

-- Returns an OBB description; exact axes on grid contexts most of the time.
function Ctx:obb()
  local r = self.rng
  local a = { self:coord(), self:coord(), self:coord(), self:size(), self:size(), self:size() }
  local axes, exact
  local p = r:float()
  if self.exact and p < 0.8 then
    axes, exact = gen.permaxes(r), true
  elseif p < 0.85 then
    axes, exact = nil, self.exact
  elseif p < 0.93 then
    axes, exact = gen.rotaxes(r), false
  else
    axes, exact = gen.axisrot(r), false
  end
  if axes then for i = 1, 9 do a[6 + i] = axes[i] end end
  return { ctor = "OBB", args = a, exact = exact }
end

-- Returns a Sphere description.
function Ctx:sphere()
  return { ctor = "Sphere", args = { self:coord(), self:coord(), self:coord(), self:size() },
           exact = self.exact }
end

-- Returns a shape description of the named kind.
function Ctx:shape(kind)
  if kind == "AABB" then return self:aabb() elseif kind == "OBB" then return self:obb() end
  return self:sphere()
end

-- Returns dx, dy, dz and a class: "axis" (one non-zero component), "diag" (all non-zero
-- components of equal magnitude) or "other".
function Ctx:direction(target)
  local r = self.rng
  local p = r:float()
  local d = { 0, 0, 0 }
  if p < 0.4 then
    d[r:int(1, 3)] = (r:chance(0.5) and 1 or -1) * r:pick({ 1, 2, 0.5, 3 })
  elseif p < 0.7 then
    local m = r:pick({ 1, 3, 0.25 })
    for i = 1, 3 do d[i] = (r:chance(0.5) and 1 or -1) * m end
    if r:chance(0.5) then d[r:int(1, 3)] = 0 end
  elseif p < 0.94 or not target then
    repeat
      for i = 1, 3 do d[i] = self.exact and r:int(-3, 3) or (2 * r:float() - 1) end
    until d[1] ~= 0 or d[2] ~= 0 or d[3] ~= 0
  else
    d = target
    if d[1] == 0 and d[2] == 0 and d[3] == 0 then d = { 1, 0, 0 } end
  end
  local nz, mag, same = 0, nil, true
  for i = 1, 3 do
    if d[i] ~= 0 then
      nz = nz + 1
      if mag == nil then mag = abs(d[i]) elseif abs(d[i]) ~= mag then same = false end
    end
  end
  local class = (nz == 1) and "axis" or (same and "diag" or "other")
  return d[1], d[2], d[3], class
end

-- Returns a point on a feature of shape description s (corner, edge middle, face centre).
function Ctx:featurepoint(s)
  local r = self.rng
  local a = s.args
  if s.ctor == "AABB" then
    local p = {}
    for i = 1, 3 do p[i] = r:pick({ a[i], a[i + 3], (a[i] + a[i + 3]) / 2 }) end
    return p
  elseif s.ctor == "OBB" then
    local p = { a[1], a[2], a[3] }
    for i = 1, 3 do
      local k = r:pick({ -1, 1, 0 }) * a[3 + i]
      local ax = { 0, 0, 0 }
      if a[7] then ax = { a[4 + 3 * i], a[5 + 3 * i], a[6 + 3 * i] } else ax[i] = 1 end
      for j = 1, 3 do p[j] = p[j] + k * ax[j] end
    end
    return p
  end
  local p = { a[1], a[2], a[3] }
  local i = r:int(1, 3)
  p[i] = p[i] + (r:chance(0.5) and 1 or -1) * a[4]
  return p
end

-- Returns a Ray description (exactness class in .dclass) aimed at shape s now and then.
function Ctx:ray(s)
  local r = self.rng
  if s and s.exact and self.exact and r:chance(0.25) then
    -- through a corner, edge or face point along an axis or a diagonal: exact ties
    local f = self:featurepoint(s)
    local dx, dy, dz, class
    repeat dx, dy, dz, class = self:direction()
    until class == "axis" or (class == "diag" and s.ctor ~= "Sphere")
    local k = r:int(0, 4) / 2 * self.S
    local function sg(v) if v > 0 then return 1 elseif v < 0 then return -1 end return 0 end
    local o = { f[1] - k * sg(dx), f[2] - k * sg(dy), f[3] - k * sg(dz) }
    if r:chance(0.3) then dx, dy, dz = -dx, -dy, -dz end
    return { ctor = "Ray", args = { o[1], o[2], o[3], dx, dy, dz }, exact = true, dclass = class }
  end
  local o = { self:coord(), self:coord(), self:coord() }
  if s and r:chance(self.exact and 0.3 or 0.05) then
    -- origin on a slab plane of the shape: copy a feature coordinate
    local f = self:featurepoint(s)
    local i = r:int(1, 3)
    o[i] = f[i]
  end
  local target
  if s and self.exact then
    local f = self:featurepoint(s)
    target = { f[1] - o[1], f[2] - o[2], f[3] - o[3] }
  end
  local dx, dy, dz, class = self:direction(target)
  return { ctor = "Ray", args = { o[1], o[2], o[3], dx, dy, dz }, exact = self.exact, dclass = class }
end

-- Returns a flat polygon array {x1,y1,...} of a simple star-shaped (often concave) polygon with
-- integer vertices (or real ones when real is true), in either orientation.
function gen.polygon(r, real)
  local cx, cy = r:int(-2, 2) + 0.5, r:int(-2, 2) + 0.5
  local n = r:int(3, 12)
  local pts, seen = {}, {}
  for _ = 1, n * 3 do
    if #pts >= n then break end
    local x, y
    if real then
      x, y = (2 * r:float() - 1) * 8, (2 * r:float() - 1) * 8
    else
      x, y = r:int(-8, 8), r:int(-8, 8)
    end
    local dx, dy = x - cx, y - cy
    -- one vertex per exact direction from the centre (keeps the star simple)
    local key
    if real then
      key = string.format("%.17g", math.atan2 and math.atan2(dy, dx) or math.atan(dy, dx))
    else
      local g = 0
      local a, b = abs(dx * 2), abs(dy * 2)
      while b ~= 0 do a, b = b, a % b end
      g = a
      key = (dx * 2 / g) .. ":" .. (dy * 2 / g)
    end
    if not seen[key] then
      seen[key] = true
      pts[#pts + 1] = { x, y, math.atan2 and math.atan2(dy, dx) or math.atan(dy, dx) }
    end
  end
  if #pts < 3 then return gen.polygon(r, real) end
  table.sort(pts, function(p, q) return p[3] < q[3] end)
  -- every angular gap below pi keeps the star polygon simple
  for i = 1, #pts do
    local gap = (i < #pts) and (pts[i + 1][3] - pts[i][3]) or (pts[1][3] + 2 * math.pi - pts[i][3])
    if gap >= math.pi - 1e-9 then return gen.polygon(r, real) end
  end
  local poly = {}
  local rev = r:chance(0.5)
  for i = 1, #pts do
    local p = pts[rev and (#pts + 1 - i) or i]
    poly[#poly + 1], poly[#poly + 2] = p[1], p[2]
  end
  return poly
end

return gen
