-- collide.Capsule: the API (constructor, getters, set, translate, tostring, __eq, collide.type),
-- bad input in the standard wording, and a differential against an independent pure-Lua reference
-- (point/segment distance by projection, segment/segment, segment/box and segment/triangle
-- distances by ternary search of a convex function, sweeps by a time scan refined by bisection)
-- over thousands of random cases biased to nasty ones: parallel segments, touching shapes, a == b,
-- r == 0, huge and tiny coordinates. Then the World: a capsule as item, query shape, sweep shape
-- and mover, its moves across tile seams against the merged world, and collide.Character with a
-- capsule on a flat floor and a slope.
local collide = require "collide"
local gen = require "support.gen"
local util = require "support.util"
local errof = util.errof

local AABB, OBB, Sphere, Capsule, Ray, World = collide.AABB, collide.OBB, collide.Sphere, collide.Capsule,
  collide.Ray, collide.World
local unpack = table.unpack or unpack
local QUICK = os.getenv("COLLIDE_QUICK")
-- a quarter of the random cases under COLLIDE_QUICK, a sixteenth under COLLIDE_QUICK=2 (valgrind:
-- this spec's pure-Lua references were half of the quick suite's time)
local function iters(n) return QUICK == "2" and math.floor(n / 16) or QUICK and math.floor(n / 4) or n end
local abs, sqrt, max, min, huge = math.abs, math.sqrt, math.max, math.min, math.huge

-- ------------------------------------------------------------------ reference (pure Lua)

local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function mul(a, s) return { a[1] * s, a[2] * s, a[3] * s } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
-- length without overflow or underflow in the squares
local function len(a)
  local m = max(abs(a[1]), abs(a[2]), abs(a[3]))
  if m == 0 then return 0 end
  local x, y, z = a[1] / m, a[2] / m, a[3] / m
  return m * sqrt(x * x + y * y + z * z)
end
local function lerp(a, b, s) return { a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s, a[3] + (b[3] - a[3]) * s } end
local function unit(a) local l = len(a); return { a[1] / l, a[2] / l, a[3] / l } end

-- The point of segment ab closest to p (projection, clamped).
local function onseg(p, a, b)
  local e = sub(b, a)
  local ee = dot(e, e)
  if ee == 0 then return a end
  local s = dot(sub(p, a), e) / ee
  s = s < 0 and 0 or (s > 1 and 1 or s)
  return lerp(a, b, s)
end

-- The minimum of the convex function f on [0, 1] by golden-section search: its argument and value.
local G = (sqrt(5) - 1) / 2
local function argmin(f)
  local lo, hi = 0, 1
  local m1, m2 = hi - G * (hi - lo), lo + G * (hi - lo)
  local f1, f2 = f(m1), f(m2)
  for _ = 1, 72 do
    if f1 <= f2 then
      hi, m2, f2 = m2, m1, f1
      m1 = hi - G * (hi - lo); f1 = f(m1)
    else
      lo, m1, f1 = m1, m2, f2
      m2 = lo + G * (hi - lo); f2 = f(m2)
    end
  end
  local s = (lo + hi) / 2
  local best, bs = f(s), s
  if f(0) <= best then best, bs = f(0), 0 end
  if f(1) < best then best, bs = f(1), 1 end
  return bs, best
end

-- Cores: a segment {a, b}, a point {c}, an AABB {lo, hi}, an OBB {c, h, u = {u1, u2, u3}}, a
-- triangle {t = {p, q, r}}. The closest point of a core to p.
local function closest(core, p)
  if core.kind == "seg" then return onseg(p, core.a, core.b) end
  if core.kind == "pt" then return core.c end
  if core.kind == "aabb" then
    local q = {}
    for i = 1, 3 do q[i] = min(max(p[i], core.lo[i]), core.hi[i]) end
    return q
  end
  if core.kind == "obb" then
    local d, q = sub(p, core.c), core.c
    for i = 1, 3 do
      local x = dot(d, core.u[i])
      x = min(max(x, -core.h[i]), core.h[i])
      q = add(q, mul(core.u[i], x))
    end
    return q
  end
  -- triangle: inside its prism, the projection onto its plane; else the nearest of its edges
  local a, b, c = core.t[1], core.t[2], core.t[3]
  local n = cross(sub(b, a), sub(c, a))
  local nn = dot(n, n)
  if nn > 0 then
    local q = sub(p, mul(n, dot(sub(p, a), n) / nn))
    if dot(cross(sub(b, a), sub(q, a)), n) >= 0 and dot(cross(sub(c, b), sub(q, b)), n) >= 0
       and dot(cross(sub(a, c), sub(q, c)), n) >= 0 then
      return q
    end
  end
  local best, bq = huge, nil
  for _, e in ipairs { { a, b }, { b, c }, { c, a } } do
    local q = onseg(p, e[1], e[2])
    local d = len(sub(p, q))
    if d < best then best, bq = d, q end
  end
  return bq
end

-- Distance between a segment core (or point) and any core, with the closest points (on x, on y).
local function coredist(x, y)
  if x.kind == "pt" then
    local q = closest(y, x.c)
    return len(sub(x.c, q)), x.c, q
  end
  if y.kind == "pt" then
    local q = closest(x, y.c)
    return len(sub(q, y.c)), q, y.c
  end
  local s = argmin(function(s) local p = lerp(x.a, x.b, s); return len(sub(p, closest(y, p))) end)
  local p = lerp(x.a, x.b, s)
  local q = closest(y, p)
  return len(sub(p, q)), p, q
end

-- ------------------------------------------------------------------ shapes with their cores

-- A shape: the collide object, its core (translated by v when given) and radius.
local function capsule(a, b, r) return { obj = Capsule(a[1], a[2], a[3], b[1], b[2], b[3], r), kind = "Capsule",
                                         core = { kind = "seg", a = a, b = b }, r = r } end
local function sphere(c, r) return { obj = Sphere(c[1], c[2], c[3], r), kind = "Sphere", core = { kind = "pt", c = c }, r = r } end
local function aabb(lo, hi) return { obj = AABB(lo[1], lo[2], lo[3], hi[1], hi[2], hi[3]), kind = "AABB",
                                     core = { kind = "aabb", lo = lo, hi = hi }, r = 0 } end
local function obb(c, h, ax)
  local o = OBB(c[1], c[2], c[3], h[1], h[2], h[3], unpack(ax))
  local u = { o:axes() }
  return { obj = o, kind = "OBB", r = 0,
           core = { kind = "obb", c = c, h = h, u = { { u[1], u[2], u[3] }, { u[4], u[5], u[6] }, { u[7], u[8], u[9] } } } }
end

-- The core of shape s moved by v.
local function moved(s, v)
  local c = s.core
  if c.kind == "seg" then return { kind = "seg", a = add(c.a, v), b = add(c.b, v) } end
  if c.kind == "pt" then return { kind = "pt", c = add(c.c, v) } end
  if c.kind == "aabb" then return { kind = "aabb", lo = add(c.lo, v), hi = add(c.hi, v) } end
  return { kind = "obb", c = add(c.c, v), h = c.h, u = c.u }
end

-- Distance between the cores of capsule-or-other shapes x and y (x or y a capsule or sphere),
-- x moved by v; with the closest points.
local function dist(x, y, v)
  local cx, cy = v and moved(x, v) or x.core, y.core
  if cx.kind == "seg" or cx.kind == "pt" then return coredist(cx, cy) end
  local d, q, p = coredist(cy, cx)
  return d, p, q
end

-- The largest |coordinate| of the cores and radii: the scale of a case's rounding.
local function scaleof(...)
  local m = 1e-300
  for _, s in ipairs { ... } do
    local c = s.core
    for _, p in ipairs { c.a, c.b, c.c, c.lo, c.hi, c.h } do
      for i = 1, 3 do m = max(m, abs(p[i])) end
    end
    m = max(m, s.r)
  end
  return m
end

-- ------------------------------------------------------------------ random nasty shapes

local SCALES = { 1, 1, 1, 1, 2 ^ -200, 2 ^ 200, 1 / 1024, 1024 }

-- A random case context: a PRNG, a scale, and whether coordinates sit on a grid.
local function context(r)
  return { r = r, k = r:pick(SCALES), grid = r:chance(0.75) }
end
local function coord(cx) if cx.grid then return cx.r:int(-8, 8) / 2 * cx.k end return (cx.r:float() * 8 - 4) * cx.k end
local function size(cx) if cx.grid then return cx.r:int(0, 6) / 4 * cx.k end return cx.r:float() * 2 * cx.k end
local function point(cx) return { coord(cx), coord(cx), coord(cx) } end
local function axisdir(cx) local v = { 0, 0, 0 }; v[cx.r:int(1, 3)] = cx.r:chance(0.5) and 1 or -1; return v end

-- A random capsule: a == b, axis-parallel, grid or real; r == 0 sometimes.
local function rcapsule(cx)
  local a, b = point(cx), nil
  local u = cx.r:float()
  if u < 0.15 then b = { a[1], a[2], a[3] }
  elseif u < 0.5 then b = add(a, mul(axisdir(cx), cx.r:int(1, 6) / 2 * cx.k))
  else b = point(cx) end
  local r = cx.r:chance(0.1) and 0 or size(cx)
  return capsule(a, b, r)
end
local function rsphere(cx) return sphere(point(cx), cx.r:chance(0.1) and 0 or size(cx)) end
local function raabb(cx)
  local lo = point(cx)
  return aabb(lo, { lo[1] + size(cx), lo[2] + size(cx), lo[3] + size(cx) })
end
local function robb(cx)
  local ax = cx.r:chance(0.3) and gen.permaxes(cx.r) or (cx.r:chance(0.5) and gen.axisrot(cx.r) or gen.rotaxes(cx.r))
  return obb(point(cx), { size(cx), size(cx), size(cx) }, ax)
end
local MAKERS = { Capsule = rcapsule, Sphere = rsphere, AABB = raabb, OBB = robb }
local KINDS = { "AABB", "OBB", "Sphere", "Capsule" }

-- A second capsule made nasty with respect to the first: parallel to it, touching it, or sharing
-- an end.
local function rcapsule_near(cx, c)
  local u = cx.r:float()
  local a, b = c.core.a, c.core.b
  if u < 0.3 then      -- parallel, offset along an axis by the radii sum (touching) or about it
    local off = mul(axisdir(cx), c.r + cx.r:int(0, 4) / 4 * cx.k)
    local r = cx.r:chance(0.5) and 0 or size(cx)
    if cx.r:chance(0.5) then off = mul(off, 1) end
    local s0 = cx.r:int(-2, 2) / 2
    return capsule(add(lerp(a, b, s0), off), add(lerp(a, b, s0 + 1), off), r)
  elseif u < 0.45 then -- sharing an end
    return capsule(b, point(cx), size(cx))
  end
  return rcapsule(cx)
end

-- ------------------------------------------------------------------ API

describe("Capsule: API", function()
  it("makes capsules with segment, radius, tostring, type and value equality", function()
    local c = Capsule(1, 2, 3, 4, 5, 6, 0.5)
    assert.equal("Capsule", collide.type(c))
    assert.same({ 1, 2, 3, 4, 5, 6 }, { c:segment() })
    assert.equal(0.5, c:radius())
    assert.equal("Capsule(1, 2, 3, 4, 5, 6, 0.5)", tostring(c))
    assert.equal("Capsule(0.1, 1e+300, -2.5e-310, 0, 0, 0, 0)", tostring(Capsule(0.1, 1e300, -2.5e-310, 0, 0, 0, 0)))
    assert.equal("collide.Capsule", getmetatable(c).__name)
    assert.is_true(c == Capsule(1, 2, 3, 4, 5, 6, 0.5))
    assert.is_false(c == Capsule(1, 2, 3, 4, 5, 6, 0.25))
    assert.is_false(c == Sphere(1, 2, 3, 0.5))
    assert.is_false(c == AABB(1, 2, 3, 4, 5, 6))
    assert.same({ 0, 0, 0, 0, 0, 0 }, { Capsule(0, 0, 0, 0, 0, 0, 0):segment() })
  end)

  it("set and translate change it in place and return it", function()
    local c = Capsule(0, 0, 0, 0, 1, 0, 1)
    assert.equal(c, c:set(1, 1, 1, 2, 2, 2, 3))
    assert.same({ 1, 1, 1, 2, 2, 2 }, { c:segment() })
    assert.equal(3, c:radius())
    assert.equal(c, c:translate(1, -1, 0.5))
    assert.same({ 2, 0, 1.5, 3, 1, 2.5 }, { c:segment() })
    assert.equal(3, c:radius())
  end)

  it("gives its box, and contains, closest, plane and raycast on simple cases", function()
    local c = Capsule(0, 0, 0, 0, 2, 0, 0.5)
    assert.same({ -0.5, -0.5, -0.5, 0.5, 2.5, 0.5 }, { c:aabb():bounds() })
    assert.is_true(c:contains(0, 2.5, 0))
    assert.is_true(c:contains(0.5, 1, 0))
    assert.is_false(c:contains(0.5, 2.5, 0))
    assert.same({ 0.5, 1, 0 }, { c:closest(3, 1, 0) })
    assert.same({ 0.25, 1, 0 }, { c:closest(0.25, 1, 0) })
    assert.equal(1, c:plane(0, 1, 0, 0.6))
    assert.equal(0, c:plane(0, 1, 0, 0.5))
    assert.equal(-1, c:plane(0, 1, 0, -2.6))
    assert.same({ 4.5, -1, 0, 0 }, { c:raycast(Ray(-5, 1, 0, 1, 0, 0)) })
    assert.same({ 2, 0, 1, 0 }, { c:raycast(Ray(0, 4.5, 0, 0, -1, 0)) })
    assert.same({ 0, 0, 0, 0 }, { c:raycast(Ray(0, 1, 0, 1, 0, 0)) })
    assert.is_nil(c:raycast(Ray(-5, 1, 0, 1, 0, 0), 4))
    assert.is_nil(c:raycast(Ray(-5, 3, 0, 1, 0, 0)))
  end)

  it("overlaps and penetrates every kind, both ways", function()
    local c = Capsule(0, 0, 0, 2, 0, 0, 1)
    for _, o in ipairs { AABB(2.5, -1, -1, 4, 1, 1), OBB(3, 0, 0, 0.5, 0.5, 0.5), Sphere(3.5, 0, 0, 1),
                         Capsule(3.5, -1, 0, 3.5, 1, 0, 1) } do
      assert.is_true(c:overlaps(o), collide.type(o))
      assert.is_true(o:overlaps(c), collide.type(o))
      local d, nx, ny, nz = c:penetration(o)
      assert.equal(0.5, d, collide.type(o))
      assert.same({ -1, 0, 0 }, { nx, ny, nz })
      local d2, mx, my, mz = o:penetration(c)
      assert.equal(0.5, d2, collide.type(o))
      assert.same({ 1, 0, 0 }, { mx, my, mz })
    end
    assert.is_nil(c:penetration(AABB(3, -1, -1, 4, 1, 1)))       -- touching
    assert.is_true(c:overlaps(AABB(3, -1, -1, 4, 1, 1)))
    assert.is_false(c:overlaps(AABB(3.001, -1, -1, 4, 1, 1)))
  end)
end)

describe("Capsule: bad input", function()
  it("the constructor wants seven finite numbers and r >= 0", function()
    local args = { 0, 0, 0, 1, 1, 1, 1 }
    for i = 1, 7 do
      local a = { unpack(args) }
      a[i] = "x"
      assert.equal(("bad argument #%d to 'Capsule' (number expected, got string)"):format(i), errof(Capsule, unpack(a)))
      a[i] = 0 / 0
      assert.equal(("bad argument #%d to 'Capsule' (number is not finite)"):format(i), errof(Capsule, unpack(a)))
      a[i] = math.huge
      assert.equal(("bad argument #%d to 'Capsule' (number is not finite)"):format(i), errof(Capsule, unpack(a)))
      a[i] = nil
      if i == 7 then
        assert.equal("bad argument #7 to 'Capsule' (number expected, got no value)", errof(Capsule, unpack(a, 1, 6)))
      end
    end
    assert.equal("bad argument #7 to 'Capsule' (radius is negative)", errof(Capsule, 0, 0, 0, 1, 1, 1, -1))
    assert.equal("bad argument #7 to 'Capsule' (radius is negative)", errof(Capsule, 0, 0, 0, 1, 1, 1, -1e-300))
    assert.equal("Capsule(1, 2, 3, 4, 5, 6, 7)", tostring(Capsule("1", 2, 3, 4, 5, 6, "7")))
  end)

  it("methods check self and every argument first and change nothing on error", function()
    local c = Capsule(0, 0, 0, 1, 0, 0, 1)
    local function same()
      local t = { c:segment() }
      t[7] = c:radius()
      assert.same({ 0, 0, 0, 1, 0, 0, 1 }, t)
    end
    assert.equal("bad argument #8 to 'set' (radius is negative)", errof(c.set, c, 1, 1, 1, 1, 1, 1, -2)); same()
    assert.equal("bad argument #5 to 'set' (number is not finite)", errof(c.set, c, 1, 1, 1, 0 / 0, 1, 1, 2)); same()
    assert.equal("bad argument #8 to 'set' (number expected, got no value)", errof(c.set, c, 1, 1, 1, 1, 1, 1)); same()
    assert.equal("bad argument #3 to 'translate' (result is not finite)", errof(c.translate, Capsule(0, 1e308, 0, 0, 1.5e308, 0, 1), 0, 1e308, 0))
    assert.equal("bad argument #2 to 'translate' (number is not finite)", errof(c.translate, c, math.huge, 0, 0)); same()
    assert.equal("bad argument #1 to 'segment' (collide.Capsule expected, got collide.Sphere)", errof(c.segment, Sphere(0, 0, 0, 1)))
    assert.equal("bad argument #1 to 'radius' (collide.Capsule expected, got table)", errof(c.radius, {}))
    assert.equal("bad argument #1 to 'contains' (collide.Capsule expected, got collide.AABB)", errof(c.contains, AABB(0, 0, 0, 1, 1, 1), 0, 0, 0))
    local shapes = "collide.AABB, collide.OBB, collide.Sphere or collide.Capsule"
    assert.equal("bad argument #2 to 'overlaps' (" .. shapes .. " expected, got collide.Ray)", errof(c.overlaps, c, Ray(0, 0, 0, 1, 0, 0)))
    assert.equal("bad argument #2 to 'penetration' (" .. shapes .. " expected, got nil)", errof(c.penetration, c, nil))
    assert.equal("bad argument #2 to 'raycast' (collide.Ray expected, got collide.Capsule)", errof(c.raycast, c, c))
    assert.equal("bad argument #3 to 'raycast' (limit is negative)", errof(c.raycast, c, Ray(0, 0, 0, 1, 0, 0), -1))
    assert.equal("bad argument #5 to 'plane' (number is not finite)", errof(c.plane, c, 0, 1, 0, 0 / 0))
    assert.equal("bad argument #4 to 'closest' (number expected, got no value)", errof(c.closest, c, 1, 2))
    same()
    -- a capsule whose end moves past DBL_MAX
    local big = Capsule(0, 0, 0, 1e308, 0, 0, 1)
    assert.equal("bad argument #2 to 'translate' (result is not finite)", errof(big.translate, big, 1e308, 0, 0))
    assert.same({ 0, 0, 0, 1e308, 0, 0 }, { big:segment() })
  end)
end)

-- ------------------------------------------------------------------ differential: point queries

-- Relative closeness at the case's scale.
local function close(a, b, k, tol) return abs(a - b) <= (tol or 1e-9) * k end

describe("Capsule: point queries and rays against the reference", function()
  it("contains, closest, aabb and plane on random nasty capsules", function()
    local r = gen.new(2201)
    local checked, skipped = 0, 0
    for case = 1, iters(4000) do
      local cx = context(r)
      local c = rcapsule(cx)
      local k = scaleof(c)
      local p
      local u = r:float()
      if u < 0.3 then                       -- near the surface: on the segment's closest point plus r
        local q = lerp(c.core.a, c.core.b, r:int(0, 4) / 4)
        p = add(q, mul(axisdir(cx), c.r + r:int(-1, 1) * cx.k / 8))
      elseif u < 0.4 then
        p = lerp(c.core.a, c.core.b, r:float())
      else
        p = point(cx)
      end
      local q = onseg(p, c.core.a, c.core.b)
      local d = len(sub(p, q))
      local what = ("case %d %s p=(%.17g,%.17g,%.17g)"):format(case, tostring(c.obj), p[1], p[2], p[3])
      if abs(d - c.r) <= 1e-12 * k then
        skipped = skipped + 1
      else
        assert.equal(d < c.r, c.obj:contains(p[1], p[2], p[3]), what)
        local x, y, z = c.obj:closest(p[1], p[2], p[3])
        local want = d <= c.r and p or add(q, mul(sub(p, q), c.r / d))
        assert(close(x, want[1], k) and close(y, want[2], k) and close(z, want[3], k), what)
        checked = checked + 1
      end
      -- the box
      local b = { c.obj:aabb():bounds() }
      for i = 1, 3 do
        assert.equal(min(c.core.a[i], c.core.b[i]) - c.r, b[i], what)
        assert.equal(max(c.core.a[i], c.core.b[i]) + c.r, b[i + 3], what)
      end
      -- a plane: an axis plane at a grid position, or a random one
      local n = r:chance(0.6) and axisdir(cx) or unit({ r:float() - 0.5, r:float() - 0.5, r:float() - 0.5 })
      local pd = -dot(n, point(cx))
      local da, db = dot(n, c.core.a) + pd, dot(n, c.core.b) + pd
      local lo, hi = min(da, db), max(da, db)
      local side = c.obj:plane(n[1], n[2], n[3], pd)
      if lo > c.r * (1 + 1e-12) + 1e-12 * k then assert.equal(1, side, what)
      elseif hi < -c.r * (1 + 1e-12) - 1e-12 * k then assert.equal(-1, side, what)
      elseif lo < c.r * (1 - 1e-12) - 1e-12 * k and hi > -c.r * (1 - 1e-12) + 1e-12 * k then assert.equal(0, side, what) end
    end
    assert.is_true(checked > iters(4000) * 0.8, "checked " .. checked .. ", skipped " .. skipped)
  end)

  it("raycast hits the first point within r of the segment, with the normal from its closest point", function()
    local r = gen.new(2202)
    local hits, misses, skipped = 0, 0, 0
    for case = 1, iters(3000) do
      local cx = context(r)
      cx.grid = cx.grid and r:chance(0.7)
      local c = rcapsule(cx)
      local k = scaleof(c)
      local o = point(cx)
      local target = lerp(c.core.a, c.core.b, r:int(0, 4) / 4)
      if r:chance(0.3) then target = add(target, mul(axisdir(cx), c.r)) end   -- grazing and tangent rays
      local dir = r:chance(0.8) and sub(target, o) or { r:float() - 0.5, r:float() - 0.5, r:float() - 0.5 }
      if len(dir) > 0 then
        local ray = Ray(o[1], o[2], o[3], dir[1], dir[2], dir[3])
        local d = { ray:direction() }
        local maxt = r:chance(0.2) and r:float() * 10 * cx.k or huge
        local what = ("case %d %s ray (%.17g,%.17g,%.17g)+t(%.17g,%.17g,%.17g) maxt %g"):format(case, tostring(c.obj),
          o[1], o[2], o[3], d[1], d[2], d[3], maxt)
        -- f(t) = distance from the ray's point to the segment minus r: convex in t
        local T = 20 * k
        local function f(t) local p = add(o, mul(d, t)); return len(sub(p, onseg(p, c.core.a, c.core.b))) - c.r end
        local tm, fm = argmin(function(s) return f(s * T) end)
        tm = tm * T
        local t, nx, ny, nz = c.obj:raycast(ray, maxt)
        if f(0) <= 0 then
          if f(0) < -1e-12 * k then assert.same({ 0, 0, 0, 0 }, { t, nx, ny, nz }, what) end
        elseif fm > 1e-9 * k then
          assert.is_nil(t, what)
          misses = misses + 1
        elseif fm > -1e-6 * k then
          skipped = skipped + 1                     -- grazing: within rounding of tangent
        else
          local lo, hi = 0, tm                      -- the first root of f on [0, tm]
          for _ = 1, 200 do local m = (lo + hi) / 2; if f(m) > 0 then lo = m else hi = m end end
          local tr = (lo + hi) / 2
          if tr <= maxt * (1 - 1e-9) then
            assert(t and close(t, tr, k, 1e-7), what .. " t " .. tostring(t) .. " want " .. tr)
            local p = add(o, mul(d, tr))
            local wn = c.r > 0 and unit(sub(p, onseg(p, c.core.a, c.core.b))) or mul(d, -1)
            assert(close(nx, wn[1], 1, 1e-6) and close(ny, wn[2], 1, 1e-6) and close(nz, wn[3], 1, 1e-6), what)
            assert(close(nx * nx + ny * ny + nz * nz, 1, 1, 1e-12), what)
            hits = hits + 1
          elseif tr > maxt * (1 + 1e-9) then
            assert.is_nil(t, what)
          end
        end
      end
    end
    assert.is_true(hits > iters(3000) / 5 and misses > iters(3000) / 10, ("hits %d misses %d skipped %d"):format(hits, misses, skipped))
  end)

  -- fuzz_world finding: the cylinder's discriminant qb^2 - qa qc cancelled to noise for an origin
  -- far from the capsule, so rays from 2^30 away passing 2.1 outside the side (and from 2^204 away
  -- passing 5e51 outside) hit it. Rays across an x-axis capsule, from 2^4 .. 2^400 times its size away, passing the
  -- axis at a known distance q (the origin's rounding moves the line by about 2^-52 of the distance,
  -- so q within 2^-40 of it of r is not judged): a hit at the cylinder's entry iff q < r.
  it("raycast from far away hits only rays passing within r of the segment (fuzz_world finding)", function()
    local r = gen.new(2203)
    local hits, misses = 0, 0
    for case = 1, iters(4000) do
      local s = 2 ^ r:int(-20, 20)                  -- the capsule's scale
      local x0, y0, z0 = (r:float() - 0.5) * 8 * s, (r:float() - 0.5) * 8 * s, (r:float() - 0.5) * 8 * s
      local len, rad = (1 + r:float() * 4) * s, (0.25 + r:float() * 2) * s
      local c = Capsule(x0, y0, z0, x0 + len, y0, z0, rad)
      local th = r:float() * 2 * math.pi
      local dy, dz = math.cos(th), math.sin(th)     -- across the axis
      local q = rad * (r:chance(0.5) and r:float() * 0.999 or 1.001 + r:float() * 3)
      local u = 0.1 + 0.8 * r:float()
      local px, py, pz = x0 + len * u, y0 - dz * q, z0 + dy * q
      local L = s * 2 ^ ({ 4, 6, 10, 20, 30, 60, 100, 204, 400 })[r:int(1, 9)]
      local ray = Ray(px, py - L * dy, pz - L * dz, 0, dy, dz)
      local t = c:raycast(ray)
      local margin = 2 ^ -40 * L + 2 ^ -40 * s
      local what = ("case %d %s ray from %g away, q/r %.17g"):format(case, tostring(c), L, q / rad)
      if q < rad - margin then
        local want = L - math.sqrt(rad * rad - q * q)
        assert(t and math.abs(t - want) <= 2 ^ -30 * L + 2 ^ -30 * s, what .. " t " .. tostring(t) .. " want " .. want)
        hits = hits + 1
      elseif q > rad + margin then
        assert(t == nil, what .. " t " .. tostring(t))
        misses = misses + 1
      end
    end
    assert.is_true(hits > iters(4000) / 4 and misses > iters(4000) / 4, ("hits %d misses %d"):format(hits, misses))
  end)

  -- fuzz_geom finding (2026-11-29): a ray starting on the side within rounding (contains says
  -- outside, the side's qc <= 0) and going in skipped the side and hit an end ball 2.1e-5 further
  -- on (radius 2^-13). It meets the side at once: t = 0, the side's outward normal. The same
  -- case scaled by powers of 2 (exact: the same roundings).
  it("raycast from a point on the side, going in, hits at once (fuzz_geom finding)", function()
    for e = -60, 60, 4 do
      local k = 2 ^ e
      local c = collide.Capsule(-2 ^ -12 * k, -2 ^ -12 * k, -0.000213623046875 * k, -2 ^ -12 * k, -2 ^ -13 * k,
        -2 ^ -13 * k, 2 ^ -13 * k)
      local ray = collide.Ray(-2 ^ -12 * k, -2 ^ -12 * k, -2 ^ -14 * k, 0, 1, -3)
      local t, nx, ny, nz = c:raycast(ray)
      assert(t and t <= 2 ^ -40 * k, "scale 2^" .. e .. ": t " .. tostring(t))
      assert(math.abs(nx) < 1e-9 and math.abs(ny + 0.6) < 1e-9 and math.abs(nz - 0.8) < 1e-9,
        "scale 2^" .. e .. ": normal " .. tostring(nx) .. " " .. tostring(ny) .. " " .. tostring(nz))
    end
  end)
end)

-- ------------------------------------------------------------------ differential: pairs

-- A random pair (capsule, other of the given kind), nasty with respect to each other.
local function rpair(r, kind)
  local cx = context(r)
  local c = rcapsule(cx)
  local o
  if kind == "Capsule" then o = rcapsule_near(cx, c)
  elseif kind == "Sphere" and r:chance(0.3) then  -- touching a point of the segment's line
    local q = lerp(c.core.a, c.core.b, r:int(-1, 3) / 2)
    local rs = size(cx)
    o = sphere(add(q, mul(axisdir(cx), c.r + rs)), rs)
  elseif (kind == "AABB") and r:chance(0.3) then  -- a box whose face is r from an end
    local e = r:chance(0.5) and c.core.a or c.core.b
    local ax = r:int(1, 3)
    local lo, hi = {}, {}
    for i = 1, 3 do lo[i] = e[i] - size(cx); hi[i] = e[i] + size(cx) end
    lo[ax] = e[ax] + c.r + (r:chance(0.5) and 0 or r:int(-1, 1) * cx.k / 8)
    hi[ax] = lo[ax] + size(cx)
    o = aabb(lo, hi)
  elseif kind == "OBB" and r:chance(0.4) then    -- a box around a point of the segment
    local q = lerp(c.core.a, c.core.b, r:int(0, 4) / 4)
    local h = { size(cx), size(cx), size(cx) }
    o = obb(add(q, mul(axisdir(cx), c.r + r:int(-2, 2) / 4 * cx.k)), h, r:chance(0.5) and gen.axisrot(r) or gen.rotaxes(r))
  else
    o = MAKERS[kind](cx)
  end
  return c, o, cx
end

describe("Capsule: overlaps and penetration against the reference, every kind both ways", function()
  for _, kind in ipairs(KINDS) do
    it("Capsule and " .. kind, function()
      local r = gen.new(2210 + #kind)
      local yes, no, skipped, pushes = 0, 0, 0, 0
      for case = 1, iters(1200) do
        local c, o = rpair(r, kind)
        local k = scaleof(c, o)
        local R = c.r + o.r
        local d = dist(c, o)
        local what = ("case %d %s %s"):format(case, tostring(c.obj), tostring(o.obj))
        if abs(d - R) <= 1e-9 * k then
          skipped = skipped + 1
        else
          local want = d < R
          assert.equal(want, c.obj:overlaps(o.obj), what)
          assert.equal(want, o.obj:overlaps(c.obj), what)
          if want then yes = yes + 1 else no = no + 1 end
          -- penetration: none when apart; else a unit push after which they touch, and no
          -- shorter push along any sampled direction separates them
          local depth, nx, ny, nz = c.obj:penetration(o.obj)
          local d2, mx, my, mz = o.obj:penetration(c.obj)
          if not want then
            assert.is_nil(depth, what)
            assert.is_nil(d2, what)
          elseif R > 0 and d < R - 1e-6 * k then
            assert(depth and d2, what)
            -- the same depth both ways (the direction may tie: collinear segments meeting at an end)
            assert(close(depth, d2, k, 1e-12), what)
            assert(close(nx * nx + ny * ny + nz * nz, 1, 1, 1e-12), what)
            assert(close(mx * mx + my * my + mz * mz, 1, 1, 1e-12), what)
            local after = dist(c, o, { depth * nx, depth * ny, depth * nz })
            assert(close(after, R, k, 1e-7), what .. (" depth %.17g after %.17g R %.17g"):format(depth, after, R))
            after = dist(c, o, { -d2 * mx, -d2 * my, -d2 * mz })
            assert(close(after, R, k, 1e-7), what .. (" reversed: depth %.17g after %.17g R %.17g"):format(d2, after, R))
            -- along sampled directions, the exit distance (bisection on the overlap) is no shorter
            for j = 1, (case % 4 == 0) and 4 or 0 do
              local u = j <= 2 and axisdir({ r = r }) or unit({ r:float() - 0.5, r:float() - 0.5, r:float() - 0.5 })
              local lo, hi = 0, depth * 1.5 + 4 * k
              if dist(c, o, mul(u, hi)) < R then lo = hi end   -- (left undecided: far enough)
              if lo == 0 then
                for _ = 1, 50 do local m = (lo + hi) / 2; if dist(c, o, mul(u, m)) < R then lo = m else hi = m end end
                assert(lo >= depth * (1 - 1e-7) - 1e-7 * k, what .. " shorter exit along a sampled direction")
              end
            end
            pushes = pushes + 1
          end
        end
      end
      assert.is_true(yes > iters(1200) / 12 and no > iters(1200) / 12 and pushes > iters(1200) / 20,
        ("yes %d no %d pushes %d skipped %d"):format(yes, no, pushes, skipped))
    end)
  end
end)

-- ------------------------------------------------------------------ sweeps

-- A random sweep: a mover and a static shape (one of them a capsule), and a displacement aimed at
-- the static shape, along an axis, or random; sometimes starting in contact.
local function rsweep(r, kind, capsule_moves)
  local c, o, cx = rpair(r, kind)
  local m, s = c, o
  if not capsule_moves then m, s = o, c end
  local target = s.core.a or s.core.c or s.core.lo
  local from = m.core.a or m.core.c or m.core.lo
  local u = r:float()
  local d
  if u < 0.4 then d = mul(sub(target, from), r:int(1, 8) / 4)
  elseif u < 0.7 then d = mul(axisdir(cx), r:int(1, 8) / 2 * cx.k)
  else d = { (r:float() - 0.5) * 8 * cx.k, (r:float() - 0.5) * 8 * cx.k, (r:float() - 0.5) * 8 * cx.k } end
  return m, s, d
end

describe("Capsule: sweeps against a time scan of the reference distance", function()
  -- (an eighth of the cases under COLLIDE_QUICK, not a quarter: the time scans are pure Lua
  -- and this describe was a third of the quick suite's time on Lua 5.4, which make check runs
  -- four times under valgrind; the full count runs in make test-lua)
  -- Under COLLIDE_QUICK=2 (valgrind) a sixteenth: its cases are the first of the same fixed
  -- sequence, whose mix of hits, misses and starts in contact the other runs check.
  local function iters(n) return QUICK == "2" and math.floor(n / 16) or QUICK and math.floor(n / 8) or n end
  for _, kind in ipairs(KINDS) do
    for _, cm in ipairs { true, false } do
      if cm or kind ~= "Capsule" then
        local label = cm and ("Capsule moving against " .. kind) or (kind .. " moving against a Capsule")
        it(label, function()
          local r = gen.new(2230 + #kind + (cm and 100 or 0))
          local counts = { hit = 0, miss = 0, start = 0, skipped = 0 }
          for case = 1, iters(400) do
            local m, s, d = rsweep(r, kind, cm)
            local k = scaleof(m, s) + len(d)
            local R = m.r + s.r
            local function f(t) return (dist(m, s, mul(d, t))) end
            local w = World()
            w:add("s", s.obj)
            local item, t, nx, ny, nz = w:sweep(m.obj, d[1], d[2], d[3])
            local what = ("case %d %s moved by (%.17g, %.17g, %.17g) against %s: got %s %s"):format(case,
              tostring(m.obj), d[1], d[2], d[3], tostring(s.obj), tostring(item), tostring(t))
            local f0 = f(0)
            -- the time scan: the first sample inside, refined by bisection; the deepest point by
            -- ternary search (the distance is convex in t) to tell grazes apart
            local tm, fm = argmin(f)
            local first
            for i = 0, 64 do
              if f(i / 64) < R then first = i / 64; break end
            end
            if not first and fm < R then first = tm end
            if R == 0 or abs(f0 - R) <= 1e-9 * k or abs(fm - R) <= 1e-6 * k then
              counts.skipped = counts.skipped + 1         -- resting, grazing, or no interior to meet
            elseif f0 < R then
              assert.equal("s", item, what)
              assert.same({ 0, 0, 0, 0 }, { t, nx, ny, nz }, what)
              counts.start = counts.start + 1
            elseif not first then
              assert.is_nil(item, what)
              counts.miss = counts.miss + 1
            else
              local lo, hi = 0, first
              for _ = 1, 60 do local mid = (lo + hi) / 2; if f(mid) < R then hi = mid else lo = mid end end
              local tr = (lo + hi) / 2
              if tr < 1 - 1e-9 then
                assert.equal("s", item, what)
                assert(abs(t - tr) <= 1e-7 * k / len(d) + 1e-9, what .. " want t " .. tr)
                local _, pm, ps = dist(m, s, mul(d, tr))
                local wn = unit(sub(pm, ps))
                assert(close(nx, wn[1], 1, 1e-5) and close(ny, wn[2], 1, 1e-5) and close(nz, wn[3], 1, 1e-5),
                  what .. (" n (%g, %g, %g) want (%g, %g, %g)"):format(nx, ny, nz, wn[1], wn[2], wn[3]))
                counts.hit = counts.hit + 1
              end
            end
            w:destroy()
          end
          local few = QUICK == "2"
          assert.is_true(counts.hit > (few and 0 or iters(400) / 10) and counts.miss > (few and 0 or iters(400) / 10)
            and counts.start > (few and -1 or 2),
            ("hit %d miss %d start %d skipped %d"):format(counts.hit, counts.miss, counts.start, counts.skipped))
        end)
      end
    end
  end
end)

-- ------------------------------------------------------------------ the World

describe("Capsule in a World", function()
  it("is an item, a query shape and a sweep shape, and meshes query it", function()
    local w = World()
    w:add("c", Capsule(0, 0, 0, 4, 0, 0, 1))
    w:add("b", AABB(5, -1, -1, 6, 1, 1))
    w:add("s", Sphere(2, 3, 0, 1))
    assert.equal("Capsule", collide.type(w:shape("c")))
    assert.same({ "c" }, (w:querypoint(2, 0.5, 0.5)))
    assert.same({ "c", "s" }, (w:query(Capsule(2, 1.5, 0, 2, 1.6, 0, 0.5))))
    assert.same({ "c", "b" }, (w:query(Capsule(4.5, -3, 0, 4.5, 3, 0, 0.5))))
    local item, t, nx = w:raycast(Ray(-3, 0, 0, 1, 0, 0))
    assert.same({ "c", 2, -1 }, { item, t, nx })
    item, t, nx = w:sweep(Capsule(-3, 0, 0, -3, 2, 0, 0.5), 4, 0, 0)
    assert.equal("c", item)
    assert.equal(0.375, t)
    assert.equal(-1, nx)
    local m = collide.Mesh { 0, 0, 0, 1, 0, 0, 0, 0, 1, 5, 0, 5, 6, 0, 5, 5, 0, 6 }
    assert.same({ { 1 }, 1 }, { m:query(Capsule(0.2, 1, 0.2, 0.2, 3, 0.2, 1)) })
    assert.is_false(m:overlaps(Capsule(0.2, 1.01, 0.2, 0.2, 3, 0.2, 1)))
    assert.is_true(m:overlaps(Capsule(-1, 0.5, 5.5, 9, 0.5, 5.5, 0.5)))
  end)

  it("mesh:query with a capsule agrees with the reference segment/triangle distance", function()
    local r = gen.new(2240)
    local v, nt = {}, 60
    for i = 1, nt * 9 do v[i] = r:int(-8, 8) / 2 + (r:chance(0.3) and r:float() or 0) end
    local m = collide.Mesh(v)
    local tris = {}
    for i = 1, nt do
      local t = { m:triangle(i) }
      tris[i] = { kind = "tri", t = { { t[1], t[2], t[3] }, { t[4], t[5], t[6] }, { t[7], t[8], t[9] } } }
    end
    local checked = 0
    for case = 1, iters(400) do
      local cx = context(r)
      cx.k, cx.grid = 1, r:chance(0.6)
      local c = rcapsule(cx)
      local got = m:query(c.obj)
      local set = {}
      for _, i in ipairs(got) do set[i] = true end
      for i = 1, nt do
        local a, b, cc = tris[i].t[1], tris[i].t[2], tris[i].t[3]
        if len(cross(sub(b, a), sub(cc, a))) > 1e-9 then
          local d = coredist(c.core, tris[i])
          if abs(d - c.r) > 1e-9 then
            assert.equal(d < c.r, set[i] == true, ("case %d %s triangle %d distance %.17g"):format(case, tostring(c.obj), i, d))
            checked = checked + 1
          end
        end
      end
    end
    assert.is_true(checked > iters(400) * 40)
  end)

  it("moves and slides along walls and floors, never ending inside", function()
    local w = World()
    w:add("floor", AABB(-10, -1, -10, 10, 0, 10))
    w:add("wall", OBB(5, 2, 0, 0.5, 2, 10))
    w:add("p", Capsule(0, 0.5, 0, 0, 1.5, 0, 0.5))
    -- (a capsule stops 2^-40 of its coordinates short of an OBB, as spheres do)
    local function near(want, got) for i = 1, #want do assert(abs(want[i] - got[i]) < 1e-9, i .. ": " .. got[i]) end end
    local ax, ay, az, cols, n = w:move("p", 10, -1, 2)
    near({ 4, 0, 2 }, { ax, ay, az })
    assert.equal(2, n)
    assert.same({ "floor", "wall" }, { cols[1].other, cols[2].other })
    near({ 4, 0.5, 2, 4, 1.5, 2 }, { w:shape("p"):segment() })
    -- lying, diagonally into the wall: slides along it
    w:update("p", Capsule(0, 0.5, 0, 1, 0.5, 1, 0.5))
    ax, ay, az = w:move("p", 8, 0, 1)
    near({ 3, 0, 1 }, { ax, ay, az })
    -- resolve pushes a sunken capsule out of the floor
    w:update("p", Capsule(0, 0.25, 0, 0, 1.25, 0, 0.5))
    local dx, dy, dz, k = w:resolve("p")
    near({ 0, 0.25, 0, 1 }, { dx, dy, dz, k })
  end)
end)

-- The seams rule (API.md): tiles move like the merged box, for capsule movers standing, lying and
-- lying diagonally, on floors of tiles with gravity and diagonally into walls of tiles.
describe("Capsule: seams", function()
  it("moves on a tiled floor and against a tiled wall as on the merged boxes", function()
    local r = gen.new(2250)
    local function close7(a, b) return abs(a - b) <= 1e-7 * max(1, abs(a), abs(b)) end
    local contacts = 0
    for case = 1, iters(400) do
      local wt, wm = World(), World()
      local tw = r:pick { 1, 0.5, 0.25 }
      -- the floor's tiles, then the wall's, as the merged boxes are added (add order breaks ties)
      for i = -6, 5 do
        for k = -6, 5 do wt:add(("f%d_%d"):format(i, k), AABB(i * tw, -1, k * tw, (i + 1) * tw, 0, (k + 1) * tw)) end
      end
      for i = -6, 5 do
        for j = 0, 7 do wt:add(("w%d_%d"):format(i, j), AABB(1.5, j * tw, i * tw, 2.5, (j + 1) * tw, (i + 1) * tw)) end
      end
      wm:add("floor", AABB(-6 * tw, -1, -6 * tw, 6 * tw, 0, 6 * tw))
      wm:add("wall", AABB(1.5, 0, -6 * tw, 2.5, 8 * tw, 6 * tw))
      local rad = r:int(1, 4) / 8
      local x, z = r:int(-8, 4) / 8, r:int(-8, 8) / 8
      local y = rad + (r:chance(0.2) and r:int(1, 4) / 8 or 0)
      local u = r:float()
      local a, b
      if u < 0.4 then a, b = { x, y, z }, { x, y + r:int(1, 8) / 8, z }
      elseif u < 0.7 then a, b = { x, y, z }, { x + r:int(1, 6) / 8, y, z }
      else a, b = { x, y, z }, { x + r:int(1, 4) / 8, y, z + r:int(-4, 4) / 8 } end
      local shape = Capsule(a[1], a[2], a[3], b[1], b[2], b[3], rad)
      wt:add("p", shape); wm:add("p", shape)
      for f = 1, 6 do
        local dx, dy, dz
        if r:chance(0.6) then dx, dy, dz = r:float() * 1.2 - 0.4, -r:float() * 0.3, r:float() * 1.2 - 0.6
        else dx, dy, dz = r:int(-4, 8) / 8, -r:int(0, 2) / 8, r:int(-4, 4) / 8 end
        local mt = { wt:move("p", dx, dy, dz) }
        local mm = { wm:move("p", dx, dy, dz) }
        local what = ("case %d frame %d %s move (%.17g, %.17g, %.17g): tiles (%.17g, %.17g, %.17g) %d, merged (%.17g, %.17g, %.17g) %d")
          :format(case, f, tostring(shape), dx, dy, dz, mt[1], mt[2], mt[3], mt[5], mm[1], mm[2], mm[3], mm[5])
        for i = 1, 3 do assert(close7(mt[i], mm[i]), what) end
        assert.equal(mm[5], mt[5], what)
        -- the same collisions: type, t and normal to rounding; contacts whose t agree to rounding
        -- (a capsule resting in a corner, 2^-40 from both faces) may come in either order
        local used = {}
        for i = 1, mt[5] do
          local p, found = mt[4][i], false
          for j = 1, mm[5] do
            local q = mm[4][j]
            if not used[j] and p.type == q.type and close7(p.t, q.t) and close7(p.nx, q.nx) and close7(p.ny, q.ny)
               and close7(p.nz, q.nz) and (abs(i - j) == 0 or abs(p.t) < 1e-7) then
              used[j], found = true, true
              break
            end
          end
          assert(found, what .. (" collision %d: tiles %s t=%.17g n=(%g, %g, %g)"):format(i, p.other, p.t, p.nx, p.ny, p.nz))
        end
        if mm[5] > 0 then contacts = contacts + 1 end
      end
      wt:destroy(); wm:destroy()
    end
    assert.is_true(contacts > iters(400) * 3)
  end)
end)

describe("Capsule: Character", function()
  it("stands on a flat floor without drifting, walks, and is grounded", function()
    local w = World()
    w:add("floor", AABB(-50, -1, -50, 50, 0, 50))
    w:add("p", Capsule(0, 0.5, 0, 0, 1.5, 0, 0.5))
    local ch = collide.Character(w, "p")
    for _ = 1, 30 do
      local ax, ay, az = ch:move(0, -0.1, 0)
      assert.same({ 0, 0, 0 }, { ax, ay, az })
    end
    local g, item, nx, ny, nz = ch:grounded()
    assert.same({ true, "floor", 0, 1, 0 }, { g, item, nx, ny, nz })
    for _ = 1, 20 do
      local ax, ay, az = ch:move(0.25, -0.1, 0.125)
      assert.same({ 0.25, 0, 0.125 }, { ax, ay, az })
      assert.is_true((ch:grounded()))
    end
    assert.same({ 5, 0.5, 2.5, 5, 1.5, 2.5 }, { w:shape("p"):segment() })
  end)

  it("stands still on a walkable slope and walks up and down it, on its surface", function()
    for _, deg in ipairs { 10, 30, 45 } do
      local a = math.rad(deg)
      local s, c = math.sin(a), math.cos(a)
      local w = World()
      w:add("ramp", OBB(s, -c, 0, 20, 1, 3, c, s, 0, -s, c, 0, 0, 0, 1))   -- top face through the origin
      local rad = 0.5
      local function surface(x) return x * s / c end
      -- the capsule's lower ball touches the plane: its centre is rad / cos(a)... along the normal
      local cx0 = 0
      local y0 = surface(cx0) + rad / c
      w:add("p", Capsule(cx0, y0, 0, cx0, y0 + 1, 0, rad))
      local ch = collide.Character(w, "p", { snap = 0.3 })
      ch:move(0, -0.05, 0)
      for f = 1, 20 do
        local ax, ay, az = ch:move(0, -0.1, 0)
        assert(abs(ax) < 1e-9 and abs(ay) < 1e-9 and abs(az) < 1e-9, deg .. " deg, frame " .. f .. ": drifted")
        assert.is_true((ch:grounded()))
      end
      local _, item, nx, ny = ch:grounded()
      assert.equal("ramp", item)
      assert(abs(nx + s) < 1e-9 and abs(ny - c) < 1e-9, deg .. " deg: ground normal")
      for _, dir in ipairs { 1, -1 } do
        for f = 1, 10 do
          ch:move(0.2 * dir, -0.1, 0)
          assert.is_true((ch:grounded()), deg .. " deg, walking " .. dir .. ", frame " .. f)
          local x, y = w:shape("p"):segment()
          assert(abs(y - (surface(x) + rad / c)) < 1e-6, deg .. " deg: off the surface at frame " .. f)
        end
      end
    end
  end)
end)
