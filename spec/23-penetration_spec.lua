-- shape:penetration(other) for every pair of AABB, OBB and Sphere: exact values, touching is nil,
-- the 2D flat rule, errors, and a random differential against the pure-Lua reference below
-- (separating axes for box pairs, closest points for spheres, written from the definitions) with the
-- defining property checked on every answer: the depth is the distance along n that takes the shape
-- out (support functions), and n is unit.
local collide = require "collide"

local abs, sqrt, huge, floor = math.abs, math.sqrt, math.huge, math.floor
local N = os.getenv("COLLIDE_QUICK") and 750 or 3000  -- random pairs (a quarter under COLLIDE_QUICK)

-- ---------------------------------------------------------------- the pure-Lua reference

local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function scale(a, s) return { a[1] * s, a[2] * s, a[3] * s } end
local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function len(a) return sqrt(dot(a, a)) end
local WORLD = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }

-- A reference shape as a box (centre, half sizes, axes) or a ball (centre, radius).
local function asbox(s)
  if s.kind == "aabb" then
    local c, h = {}, {}
    for i = 1, 3 do c[i] = (s.min[i] + s.max[i]) / 2; h[i] = (s.max[i] - s.min[i]) / 2 end
    return c, h, WORLD
  end
  return s.c, s.h, s.u
end

-- Largest p.L over the shape.
local function support(s, L)
  if s.kind == "sphere" then return dot(s.c, L) + s.r * len(L) end
  local c, h, u = asbox(s)
  return dot(c, L) + h[1] * abs(dot(u[1], L)) + h[2] * abs(dot(u[2], L)) + h[3] * abs(dot(u[3], L))
end

-- How far a must move along unit L to leave b.
local function along(a, b, L) return support(b, L) + support(a, scale(L, -1)) end

-- Box pair: the smallest push over the face normals of both boxes and every edge cross product.
local function boxes(a, b)
  local _, _, ua = asbox(a)
  local _, _, ub = asbox(b)
  local axes = {}
  for i = 1, 3 do axes[#axes + 1] = ua[i]; axes[#axes + 1] = ub[i] end
  for i = 1, 3 do
    for j = 1, 3 do
      local L = cross(ua[i], ub[j])
      if len(L) > 1e-150 then axes[#axes + 1] = scale(L, 1 / len(L)) end
    end
  end
  local best, bn = huge, nil
  for _, L in ipairs(axes) do
    for _, s in ipairs({ 1, -1 }) do
      local M = scale(L, s)
      local d = along(a, b, M)
      if d <= 0 then return nil end
      if d < best then best, bn = d, M end
    end
  end
  return best, bn
end

-- Sphere a out of box b, in the box's frame.
local function spherebox(a, b)
  local c, h, u = asbox(b)
  local d = sub(a.c, c)
  local l, q, out = {}, {}, false
  for i = 1, 3 do
    l[i] = dot(d, u[i])
    local cl = math.max(-h[i], math.min(h[i], l[i]))
    q[i] = l[i] - cl
    if q[i] ~= 0 then out = true end
  end
  if out then
    local ql = len(q)
    if ql >= a.r then return nil end
    local n = { 0, 0, 0 }
    for i = 1, 3 do for k = 1, 3 do n[k] = n[k] + u[i][k] * q[i] / ql end end
    return a.r - ql, n
  end
  local best, bi, bs = huge, nil, nil
  for i = 1, 3 do
    if h[i] - l[i] < best then best, bi, bs = h[i] - l[i], i, 1 end
    if l[i] + h[i] < best then best, bi, bs = l[i] + h[i], i, -1 end
  end
  if a.r + best <= 0 then return nil end
  return a.r + best, scale(u[bi], bs)
end

-- The reference penetration of a out of b: depth, n or nil.
local function refpen(a, b)
  if a.kind == "sphere" and b.kind == "sphere" then
    local d = sub(a.c, b.c)
    local l = len(d)
    if l >= a.r + b.r then return nil end
    return a.r + b.r - l, l > 0 and scale(d, 1 / l) or { 1, 0, 0 }
  end
  if a.kind == "sphere" then return spherebox(a, b) end
  if b.kind == "sphere" then
    local d, n = spherebox(b, a)
    if d then return d, scale(n, -1) end
    return nil
  end
  return boxes(a, b)
end

-- ---------------------------------------------------------------- random shapes

local seed = 12345
local function rnd()  -- a small LCG with the same sequence on every Lua
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local function urand(a, b) return a + (b - a) * rnd() end
local function rco(a, b, grid) local v = urand(a, b); return grid and floor(v * 4) / 4 or v end

local function rrot()
  local p = rnd()
  if p < 0.2 then return { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } end
  local w, x, y, z = urand(-1, 1), urand(-1, 1), urand(-1, 1), urand(-1, 1)
  if p < 0.3 then w, x, y, z = 1, x * 1e-9, y * 1e-9, z * 1e-9 end
  local l = sqrt(w * w + x * x + y * y + z * z)
  w, x, y, z = w / l, x / l, y / l, z / l
  return { { 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y) },
           { 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x) },
           { 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y) } }
end

-- A reference shape and the collide object for it, scaled by k (a power of two: exact).
local function rshape(kind, grid, k)
  local c = { rco(-1, 1, grid) * k, rco(-1, 1, grid) * k, rco(-1, 1, grid) * k }
  if kind == "aabb" then
    local h = { rco(0.25, 1, grid) * k, rco(0.25, 1, grid) * k, rco(0.25, 1, grid) * k }
    local s = { kind = kind, min = sub(c, h), max = { c[1] + h[1], c[2] + h[2], c[3] + h[3] } }
    return s, collide.AABB(s.min[1], s.min[2], s.min[3], s.max[1], s.max[2], s.max[3])
  elseif kind == "obb" then
    local h = { rco(0.25, 1, grid) * k, rco(0.25, 1, grid) * k, rco(0.25, 1, grid) * k }
    local u = rrot()
    local s = { kind = kind, c = c, h = h, u = u }
    local o = collide.OBB(c[1], c[2], c[3], h[1], h[2], h[3], u[1][1], u[1][2], u[1][3], u[2][1], u[2][2], u[2][3],
      u[3][1], u[3][2], u[3][3])
    -- the object's axes after its orthonormality check: the reference uses the very same ones
    local ax = { o:axes() }
    s.u = { { ax[1], ax[2], ax[3] }, { ax[4], ax[5], ax[6] }, { ax[7], ax[8], ax[9] } }
    return s, o
  end
  local s = { kind = kind, c = c, r = rco(0.25, 1, grid) * k }
  return s, collide.Sphere(c[1], c[2], c[3], s.r)
end

-- ---------------------------------------------------------------- specs

describe("shape:penetration", function()
  it("pushes a box out of a box along the smallest of the six face pushes", function()
    local a, b = collide.AABB(0, 0, 0, 2, 2, 2), collide.AABB(1.5, 0.25, 0.5, 4, 1, 1)
    assert.same({ 0.5, 1, 0, 0 }, { b:penetration(a) })
    assert.same({ 0.5, -1, 0, 0 }, { a:penetration(b) })
    assert.same({ 1.5, 1, 0, 0 }, { collide.AABB(0.5, 0.5, 0.5, 1.5, 1.5, 1.5):penetration(a) })
  end)

  it("is nil for touching and separated shapes", function()
    local a = collide.AABB(0, 0, 0, 2, 2, 2)
    assert.is_nil(collide.AABB(2, 0, 0, 3, 1, 1):penetration(a))
    assert.is_nil(collide.AABB(2, 2, 2, 3, 3, 3):penetration(a))
    assert.is_nil(collide.Sphere(5, 1, 1, 3):penetration(a))
    assert.is_nil(collide.Sphere(3, 4, 0, 2):penetration(collide.Sphere(0, 0, 0, 3)))
    assert.is_nil(collide.OBB(3, 1, 1, 1, 1, 1):penetration(a))
    assert.is_nil(collide.AABB(5, 0, 0, 6, 1, 1):penetration(a))
  end)

  it("pushes spheres exactly, a centre inside a box through the nearest face", function()
    local box = collide.AABB(0, 0, 0, 4, 4, 4)
    assert.same({ 1.5, -1, 0, 0 }, { collide.Sphere(1, 2, 3, 0.5):penetration(box) })
    assert.same({ 0.5, 1, 0, 0 }, { collide.Sphere(5, 2, 2, 1.5):penetration(box) })
    assert.same({ 0.5, 0.6, 0.8, 0 }, { collide.Sphere(7, 8, 2, 5.5):penetration(box) })
    assert.same({ 2, 0.6, 0.8, 0 }, { collide.Sphere(3, 4, 0, 6):penetration(collide.Sphere(0, 0, 0, 1)) })
    assert.same({ 0.5, -1, 0, 0 }, { collide.AABB(-1, -1, -1, 1, 1, 1):penetration(collide.Sphere(1.5, 0, 0, 1)) })
    local obb = collide.OBB(0, 0, 0, 2, 1, 1, 0.6, 0.8, 0, -0.8, 0.6, 0, 0, 0, 1)
    assert.same({ 1.5, -0.8, 0.6, 0 }, { collide.Sphere(0, 0, 0, 0.5):penetration(obb) })
  end)

  it("keeps flat boxes in one plane (2D) within that plane", function()
    local a, b = collide.AABB(0, 0, 0, 2, 2, 0), collide.AABB(1.5, 1.75, 0, 3, 3, 0)
    assert.same({ 0.25, 0, 1, 0 }, { b:penetration(a) })
    local o = collide.OBB(0, 0, 0, 1, 1, 0, 0.6, 0.8, 0, -0.8, 0.6, 0, 0, 0, 1)
    local d, nx, ny, nz = o:penetration(collide.AABB(0.5, -3, 0, 3, 3, 0))
    assert.is_true(abs(d - 0.9) < 1e-15)
    assert.same({ -1, 0, 0 }, { nx, ny, nz })
  end)

  it("raises the usual errors and changes nothing", function()
    local a = collide.AABB(0, 0, 0, 1, 1, 1)
    local SHAPES = "collide.AABB, collide.OBB, collide.Sphere or collide.Capsule"
    for _, self in ipairs({ a, collide.OBB(0, 0, 0, 1, 1, 1), collide.Sphere(0, 0, 0, 1) }) do
      local mt = getmetatable(self).__name
      local ok, err = pcall(self.penetration, self, 5)
      assert.is_false(ok)
      assert.equal("bad argument #2 to 'penetration' (" .. SHAPES .. " expected, got number)", err)
      ok, err = pcall(self.penetration, self)
      assert.equal("bad argument #2 to 'penetration' (" .. SHAPES .. " expected, got no value)", err)
      ok, err = pcall(self.penetration, {}, a)
      assert.equal("bad argument #1 to 'penetration' (" .. mt .. " expected, got table)", err)
      ok, err = pcall(self.penetration, collide.Ray(0, 0, 0, 1, 0, 0), a)
      assert.equal("bad argument #1 to 'penetration' (" .. mt .. " expected, got collide.Ray)", err)
    end
    assert.same({ 0, 0, 0, 1, 1, 1 }, { a:bounds() })
  end)

  it("agrees with the pure-Lua reference on random pairs (exact kinds exactly)", function()
    local kinds = { "aabb", "obb", "sphere" }
    local scales = { 1, 1, 1, 2 ^ -300, 2 ^ 300 }
    local found, skipped = 0, 0
    for i = 1, N do
      local ka, kb = kinds[floor(rnd() * 3) + 1], kinds[floor(rnd() * 3) + 1]
      local grid, k = rnd() < 0.3, scales[floor(rnd() * #scales) + 1]
      local ra, a = rshape(ka, grid, k)
      local rb, b = rshape(kb, grid, k)
      local d, nx, ny, nz = a:penetration(b)
      local rd, rn = refpen(ra, rb)
      local tol = 1e-9 * 4 * k
      if (rd and rd <= tol) or (d and not rd and d <= tol) then
        skipped = skipped + 1  -- within rounding of touching
      else
        local where = string.format("case %d: %s out of %s at scale %g", i, ka, kb, k)
        assert(((d ~= nil) == (rd ~= nil)), where .. ": reference says " .. tostring(rd) .. ", got " .. tostring(d))
        if d then
          found = found + 1
          local n = { nx, ny, nz }
          assert(abs(dot(n, n) - 1) <= 1e-12, where .. ": normal not unit")
          assert(abs(d - rd) <= tol, string.format("%s: depth %.17g, reference %.17g", where, d, rd))
          assert(abs(along(ra, rb, n) - d) <= tol, string.format("%s: moving by depth along n does not just end it", where))
          local exact = ka ~= "obb" and kb ~= "obb" and not (ka == "sphere" and kb == "sphere")
          if exact and grid and k == 1 and ka == "aabb" and kb == "aabb" then
            assert(d == rd and nx == rn[1] and ny == rn[2] and nz == rn[3], where .. ": AABB pairs are exact")
          end
        end
      end
    end
    assert(found > N / 5, "too few overlapping pairs: " .. found)
    assert(skipped < N / 50, "too many near-touching pairs skipped: " .. skipped)
  end)
end)
