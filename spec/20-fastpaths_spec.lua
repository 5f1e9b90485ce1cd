-- The issue-2 fast paths must not change a single answer:
--   * OBB:overlaps(OBB): a bounding-sphere early out before the separating axis test;
--   * collide.toi: a branch-free core and a single combined argument test in the binding;
--   * pointinpolygon / Polygon:contains: a two-edges-at-a-time (SSE2) crossing test for up to 32
--     vertices (collide.Polygon keeps a precomputed edge table for it), and on LuaJIT a finiteness
--     check merged into it.
-- Each is compared here with a plain-Lua copy of the code it replaced, written with the very same
-- floating-point operations in the same order (so the same roundings; Lua numbers are doubles),
-- or for polygons with an exact even-odd reference, on random inputs and on the nasty cases an
-- early out could get wrong: boxes just touching or an ulp apart, tiny rotations (near-parallel
-- edges), centre distances at the early out's threshold, huge and tiny coordinates, points on
-- vertices and edges and at a vertex's y. Bad input keeps its errors.
local collide = require "collide"

local abs, sqrt, floor = math.abs, math.sqrt, math.floor
local inf, nan = math.huge, 0 / 0
local errof = require("support.util").errmsg
-- COLLIDE_QUICK=1 (set by `make check` under the sanitizers and valgrind): a quarter of the cases
local Q = os.getenv("COLLIDE_QUICK") and 4 or 1
-- COLLIDE_QUICK=2 (valgrind): the two longest pure-Lua reference loops run a quarter of that again
local Q2 = os.getenv("COLLIDE_QUICK") == "2" and 4 or 1

-- A small deterministic generator (Park-Miller), so every Lua version sees the same cases.
local function rng(seed)
  local s = seed
  local r = {}
  function r.next()
    s = (s * 48271) % 2147483647
    return s / 2147483647
  end
  function r.uniform(a, b) return a + (b - a) * r.next() end
  function r.int(a, b) return a + floor(r.next() * (b - a + 1)) end
  function r.pick(t) return t[r.int(1, #t)] end
  return r
end

local function finite(x) return x - x == 0 end

-- ---------------------------------------------------------------- OBB: the old SAT, in Lua

local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

-- sat(a, b, s) of csrc/core/obb.c (world = 0): -1 on overflow at this scale, else 1/0.
local function sat(a, b, s)
  local tv
  if s == 1 then
    tv = { b.c[1] - a.c[1], b.c[2] - a.c[2], b.c[3] - a.c[3] }
  else
    tv = { b.c[1] * s - a.c[1] * s, b.c[2] * s - a.c[2] * s, b.c[3] * s - a.c[3] * s }
  end
  local ah = { a.h[1] * s, a.h[2] * s, a.h[3] * s }
  local bh = { b.h[1] * s, b.h[2] * s, b.h[3] * s }
  local t = { dot(tv, a.u[1]), dot(tv, a.u[2]), dot(tv, a.u[3]) }
  if not finite(abs(t[1]) + abs(t[2]) + abs(t[3]) + ah[1] + ah[2] + ah[3] + bh[1] + bh[2] + bh[3]) then
    return -1
  end
  local R, AR = {}, {}
  for i = 1, 3 do
    R[i], AR[i] = {}, {}
    for j = 1, 3 do
      R[i][j] = dot(a.u[i], b.u[j])
      AR[i][j] = abs(R[i][j])
    end
  end
  for i = 1, 3 do
    if abs(t[i]) > ah[i] + (bh[1] * AR[i][1] + bh[2] * AR[i][2] + bh[3] * AR[i][3]) then return 0 end
  end
  for j = 1, 3 do
    if abs(t[1] * R[1][j] + t[2] * R[2][j] + t[3] * R[3][j]) >
       (ah[1] * AR[1][j] + ah[2] * AR[2][j] + ah[3] * AR[3][j]) + bh[j] then
      return 0
    end
  end
  local nxt = { 2, 3, 1 }
  for i = 1, 3 do
    local i1, i2 = nxt[i], nxt[nxt[i]]
    for j = 1, 3 do
      local j1, j2 = nxt[j], nxt[nxt[j]]
      if abs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) >
           (ah[i1] * AR[i2][j] + ah[i2] * AR[i1][j]) + (bh[j1] * AR[i][j2] + bh[j2] * AR[i][j1])
         and not (R[i1][j] * R[i1][j] + R[i2][j] * R[i2][j] < 1e-12) then
        return 0
      end
    end
  end
  return 1
end

local function oldsat(a, b)
  local r = sat(a, b, 1)
  if r >= 0 then return r == 1 end
  return sat(a, b, 0.0625) ~= 0
end

-- The old answer: the C code orders the operands by their bytes first; where the two orders
-- disagree (rounding-level contacts) either may be the answer, so nil is returned.
local function oldoverlaps(a, b)
  local ab, ba = oldsat(a, b), oldsat(b, a)
  if ab == ba then return ab end
  return nil
end

-- A random rotation (unit quaternion) by up to maxangle radians (any rotation when nil), as
-- three axes that collide.OBB accepts.
local function rotation(r, maxangle)
  local w, x, y, z
  if maxangle then
    x, y, z = r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1)
    local l = sqrt(x * x + y * y + z * z)
    local h = r.next() * maxangle / 2
    w, x, y, z = math.cos(h), x / l * math.sin(h), y / l * math.sin(h), z / l * math.sin(h)
  else
    w, x, y, z = r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1)
    local l = sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / l, x / l, y / l, z / l
  end
  return { { 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y) },
           { 2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x) },
           { 2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y) } }
end

-- Makes the collide.OBB and the plain table of the same box (axes as collide stores them).
local function mkobb(c, h, u)
  local b = collide.OBB(c[1], c[2], c[3], h[1], h[2], h[3], u[1][1], u[1][2], u[1][3],
                        u[2][1], u[2][2], u[2][3], u[3][1], u[3][2], u[3][3])
  local ux, uy, uz, vx, vy, vz, wx, wy, wz = b:axes()
  return b, { c = c, h = h, u = { { ux, uy, uz }, { vx, vy, vz }, { wx, wy, wz } } }
end

-- Checks that a:overlaps(b) for the boxes (ca, ha, ua) and (cb, hb, ub) gives the old test's
-- answer (where it has one) in both argument orders.
local function sameasold(ca, ha, ua, cb, hb, ub)
  local a, la = mkobb(ca, ha, ua)
  local b, lb = mkobb(cb, hb, ub)
  local want = oldoverlaps(la, lb)
  if want ~= nil then assert.are.equal(want, a:overlaps(b)) end
  assert.are.equal(a:overlaps(b), b:overlaps(a))
end

local WORLD = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }

describe("OBB:overlaps(OBB) with the bounding-sphere early out", function()
  it("gives the old answer on random pairs and on pairs at the early out's threshold", function()
    local r = rng(20261121)
    local n, same, skipped, fired = 0, 0, 0, 0
    for k = 1, 4000 / Q do
      local scale = r.pick { 1, 1, 1, 1e-300, 1e-150, 1e150, 1e300, 2 ^ -1000 }
      local ua = r.next() < 0.2 and WORLD or rotation(r, r.next() < 0.5 and 2 ^ -r.int(0, 45) or nil)
      local ub = r.next() < 0.2 and WORLD or rotation(r, r.next() < 0.5 and 2 ^ -r.int(0, 45) or nil)
      local ha = { r.uniform(0, 5) * scale, r.uniform(0, 5) * scale, r.uniform(0, 5) * scale }
      local hb = { r.uniform(0, 5) * scale, r.uniform(0, 5) * scale, r.uniform(0, 5) * scale }
      if r.next() < 0.1 then ha[r.int(1, 3)] = 0 end
      local r2 = dot(ha, ha) + dot(hb, hb)
      local dx, dy, dz = r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1)
      local dl = sqrt(dx * dx + dy * dy + dz * dz)
      local dist
      local mode = k % 4
      if mode == 0 then      -- at the early out's threshold D^2 = 2.0625 R^2, within a relative 2^-e
        dist = sqrt(2.0625 * r2) * (1 + (r.next() - 0.5) * 2 ^ -r.int(1, 52))
      elseif mode == 1 then  -- circumspheres just touching
        dist = sqrt(dot(ha, ha)) + sqrt(dot(hb, hb))
      elseif mode == 2 then
        dist = sqrt(2 * r2) * r.uniform(0, 1.3)
      else
        dist = sqrt(2 * r2) * 2 ^ r.uniform(-3, 6)
      end
      local off = r.next() < 0.3 and r.uniform(-1e3, 1e3) * scale or 0
      local ca = { off, off, -off }
      local cb = { off + dx / dl * dist, off + dy / dl * dist, -off + dz / dl * dist }
      if finite(cb[1] + cb[2] + cb[3]) then
        local a, la = mkobb(ca, ha, ua)
        local b, lb = mkobb(cb, hb, ub)
        local want = oldoverlaps(la, lb)
        local ab, ba = a:overlaps(b), b:overlaps(a)
        assert.are.equal(ab, ba)
        n = n + 1
        if want == nil then
          skipped = skipped + 1
        else
          assert.are.equal(want, ab)
          same = same + 1
        end
        local tx, ty, tz = cb[1] - ca[1], cb[2] - ca[2], cb[3] - ca[3]
        if tx * tx + ty * ty + tz * tz > 2.0625 * r2 then fired = fired + 1 end
      end
    end
    assert.is_true(same > 3000 / Q and skipped < 50 / Q + 1, same .. " compared, " .. skipped .. " order-dependent")
    assert.is_true(fired > 500 / Q, "the early out fired " .. fired .. " times")
  end)

  it("boxes touching face to face, an ulp apart, and rotated by tiny angles", function()
    local r = rng(7)
    for k = 1, 600 / Q do
      local u = k % 3 == 0 and WORLD or rotation(r, k % 3 == 1 and 2 ^ -r.int(10, 50) or nil)
      local ub = k % 2 == 0 and u or rotation(r, 2 ^ -r.int(20, 50))
      local h = { r.uniform(0.5, 3), r.uniform(0.5, 3), r.uniform(0.5, 3) }
      local axis = r.int(1, 3)
      -- b's centre along a's axis at exactly the touching distance (for equal frames), then nudged
      -- by a few ulps either way
      local d = 2 * h[axis]
      local nudge = r.pick { 0, 1, -1, 2 ^ -52, -2 ^ -52, 2 ^ -40, -2 ^ -40 }
      d = d * (1 + nudge)
      local ca = { 0, 0, 0 }
      local cb = { u[axis][1] * d, u[axis][2] * d, u[axis][3] * d }
      sameasold(ca, h, u, cb, h, ub)
    end
  end)

  it("exact cases: far apart, just apart, touching, huge and tiny", function()
    local a = collide.OBB(0, 0, 0, 1, 1, 1)
    assert.is_false(a:overlaps(collide.OBB(100, 0, 0, 1, 1, 1)))
    assert.is_false(a:overlaps(collide.OBB(2.0000000000000004, 0, 0, 1, 1, 1)))
    assert.is_true(a:overlaps(collide.OBB(2, 0, 0, 1, 1, 1)))
    assert.is_true(a:overlaps(collide.OBB(2, 2, 2, 1, 1, 1)))        -- corner to corner
    assert.is_false(a:overlaps(collide.OBB(2, 2, 2.0000000000000004, 1, 1, 1)))
    local big = 1e300
    assert.is_false(collide.OBB(-big, 0, 0, 1, 1, 1):overlaps(collide.OBB(big, 0, 0, 1, 1, 1)))
    assert.is_true(collide.OBB(-big, 0, 0, big, 1, 1):overlaps(collide.OBB(big, 0, 0, big, 1, 1)))
    local tiny = 1e-300
    assert.is_true(collide.OBB(0, 0, 0, tiny, tiny, tiny):overlaps(collide.OBB(2 * tiny, 0, 0, tiny, tiny, tiny)))
    assert.is_false(collide.OBB(0, 0, 0, tiny, tiny, tiny):overlaps(collide.OBB(3 * tiny, 0, 0, tiny, tiny, tiny)))
    -- point boxes: separated by any distance, overlapping only at the same centre
    assert.is_false(collide.OBB(0, 0, 0, 0, 0, 0):overlaps(collide.OBB(5e-324, 0, 0, 0, 0, 0)))
    assert.is_true(collide.OBB(1, 2, 3, 0, 0, 0):overlaps(collide.OBB(1, 2, 3, 0, 0, 0)))
  end)

  -- huge offsets and sizes: pairs on both sides of 2^500 (where the sphere sums d2 and r2 reach
  -- 2^1000, the early out's range guard) and of sat()'s overflow check with its 1/16-scale retry
  it("gives the old answer for huge pairs (offsets and sizes near 2^500 and 2^1000)", function()
    local r = rng(20261122)
    for k = 1, 2000 / Q do
      local s = r.pick { 2 ^ 497, 2 ^ 499, 2 ^ 500, 2 ^ 501, 2 ^ 503, 2 ^ 1000, 2 ^ 1018, 2 ^ 1021 }
      local hs = r.pick { s, s / 4, 1, 2 ^ 500 }
      local ua, ub = rotation(r), rotation(r, r.pick { 1e-7, 3 })
      local ca = { r.uniform(-1, 1) * s, r.uniform(-1, 1) * s, r.uniform(-1, 1) * s }
      local cb = { r.uniform(-1, 1) * s, r.uniform(-1, 1) * s, r.uniform(-1, 1) * s }
      local ha = { r.uniform(0, 1) * hs, r.uniform(0, 1) * hs, r.uniform(0, 1) * hs }
      local hb = { r.uniform(0, 1) * hs, r.uniform(0, 1) * hs, r.uniform(0, 1) * hs }
      sameasold(ca, ha, ua, cb, hb, ub)
    end
  end)

  it("the generic shape queries agree (Sphere, AABB operands unchanged)", function()
    local a = collide.OBB(0, 0, 0, 1, 2, 3)
    assert.is_true(a:overlaps(collide.Sphere(0, 0, 4, 1)))
    assert.is_false(a:overlaps(collide.Sphere(0, 0, 4.0000001, 1)))
    assert.is_true(a:overlaps(collide.AABB(1, 2, 3, 4, 5, 6)))
    assert.is_false(a:overlaps(collide.AABB(1.0000001, 2, 3, 4, 5, 6)))
  end)
end)

-- ---------------------------------------------------------------- toi: the old core, in Lua

local function oldaxis(amin, amax, bmin, bmax, dai, dbi, lo, hi)
  local d = dbi - dai
  local enter, leave
  if d == 0 then
    if amin == amax and bmin == bmax and amin == bmin then return true, lo, hi end
    return amin < bmax and bmin < amax, lo, hi
  end
  if finite(d) then
    local q0, q1 = (amin - bmax) / d, (amax - bmin) / d
    if q0 < q1 then enter, leave = q0, q1 else enter, leave = q1, q0 end
  else
    d = dbi * 0.5 - dai * 0.5
    if d > 0 then
      enter, leave = (amin * 0.5 - bmax * 0.5) / d, (amax * 0.5 - bmin * 0.5) / d
    else
      enter, leave = (amax * 0.5 - bmin * 0.5) / d, (amin * 0.5 - bmax * 0.5) / d
    end
  end
  if enter > lo then lo = enter end
  if leave < hi then hi = leave end
  return true, lo, hi
end

local function oldtoi(a, da, b, db)
  local lo, hi = -inf, inf
  for i = 1, 3 do
    local ok
    ok, lo, hi = oldaxis(a[i], a[i + 3], b[i], b[i + 3], da[i], db[i], lo, hi)
    if not ok then return "separated", 1 end
  end
  if lo < 0 and hi > 0 then return "overlapped", 0 end
  if lo < hi and lo < 1 and hi > 0 then return "touching", lo + 0.0 end
  return "separated", 1
end

-- 1/x tells +0 from -0
local function samenum(x, y) return x == y and (x ~= 0 or 1 / x == 1 / y) end

describe("collide.toi, branch-free", function()
  it("gives the old state and time, bit for bit, on random and nasty inputs", function()
    local r = rng(99)
    local specials = { 0, -0.0, 1, -1, 0.5, 2, -2, 3, 1e308, -1e308, 1.7e308, -1.7e308, 5e-324, 1e-300 }
    local function v()
      local p = r.next()
      if p < 0.3 then return r.pick(specials) end
      if p < 0.6 then return r.int(-4, 4) end
      if p < 0.7 then return (r.next() - 0.5) * 2 ^ r.int(-1000, 1000) end
      return r.uniform(-10, 10)
    end
    local counts = {}
    for k = 1, 6000 / Q do
      local a, b = {}, {}
      for i = 1, 3 do
        local x, y = v(), v()
        if r.next() < 0.1 then y = x end
        a[i], a[i + 3] = math.min(x, y), math.max(x, y)
        x, y = v(), v()
        if r.next() < 0.1 then y = x end
        b[i], b[i + 3] = math.min(x, y), math.max(x, y)
      end
      local da, db = { v(), v(), v() }, { v(), v(), v() }
      if r.next() < 0.2 then db = { da[1], da[2], da[3] } end
      if r.next() < 0.2 then db[1] = da[1] end
      local A = collide.AABB(a[1], a[2], a[3], a[4], a[5], a[6])
      local B = collide.AABB(b[1], b[2], b[3], b[4], b[5], b[6])
      local ws, wt = oldtoi(a, da, b, db)
      local s, t = collide.toi(A, da[1], da[2], da[3], B, db[1], db[2], db[3])
      assert.are.equal(ws, s)
      assert.is_true(samenum(wt, t), ws .. ": " .. tostring(wt) .. " vs " .. tostring(t))
      counts[s] = (counts[s] or 0) + 1
    end
    assert.is_true((counts.overlapped or 0) > 100 / Q and (counts.touching or 0) > 100 / Q and (counts.separated or 0) > 100 / Q)
  end)

  it("keeps every argument error, in argument order", function()
    local A, B = collide.AABB(0, 0, 0, 1, 1, 1), collide.AABB(2, 0, 0, 3, 1, 1)
    local P = "bad argument #"
    assert.are.equal(P .. "1 to 'toi' (collide.AABB expected, got nil)",
      errof(collide.toi, nil, 1, 0, 0, B, 0, 0, 0))
    assert.are.equal(P .. "1 to 'toi' (collide.AABB expected, got collide.OBB)",
      errof(collide.toi, collide.OBB(0, 0, 0, 1, 1, 1), 0 / 0, 0, 0, B, 0, 0, 0))
    assert.are.equal(P .. "2 to 'toi' (number is not finite)", errof(collide.toi, A, nan, 0, 0, B, 0, 0, 0))
    assert.are.equal(P .. "4 to 'toi' (number is not finite)", errof(collide.toi, A, 0, 0, inf, nil, 0, 0, 0))
    assert.are.equal(P .. "3 to 'toi' (number expected, got string)", errof(collide.toi, A, 0, "x", 0, B, 0, 0, 0))
    assert.are.equal(P .. "5 to 'toi' (collide.AABB expected, got no value)", errof(collide.toi, A, 0, 0, 0))
    assert.are.equal(P .. "5 to 'toi' (collide.AABB expected, got table)", errof(collide.toi, A, 0, 0, 0, {}, nan))
    assert.are.equal(P .. "7 to 'toi' (number is not finite)", errof(collide.toi, A, 0, 0, 0, B, 0, -inf, nan))
    assert.are.equal(P .. "8 to 'toi' (number expected, got no value)", errof(collide.toi, A, 0, 0, 0, B, 0, 0))
    -- numeric strings convert, as before
    assert.are.same({ collide.toi(A, 1, 0, 0, B, 0, 0, 0) }, { collide.toi(A, "1", 0, 0, B, 0, 0, "0") })
  end)
end)

-- ---------------------------------------------------------------- polygons: exact even-odd

-- Sign of (bx - ax)(py - ay) - (by - ay)(px - ax), exactly: every case below is built from small
-- integers times a common power of two (unit), and on those integers every difference and
-- product is exact in doubles.
local function orient(ax, ay, bx, by, px, py, unit)
  ax, ay, bx, by, px, py = ax / unit, ay / unit, bx / unit, by / unit, px / unit, py / unit
  local d = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
  return d > 0 and 1 or (d < 0 and -1 or 0)
end

-- Even-odd rule with boundary points inside, exactly (coordinates = integers * unit, |int| < 2^24).
local function refpip(poly, x, y, unit)
  local n = #poly / 2
  local inside = false
  for i = 1, n do
    local j = i % n + 1
    local ax, ay, bx, by = poly[2 * i - 1], poly[2 * i], poly[2 * j - 1], poly[2 * j]
    local o = orient(ax, ay, bx, by, x, y, unit)
    if o == 0 and x >= math.min(ax, bx) and x <= math.max(ax, bx) and y >= math.min(ay, by) and y <= math.max(ay, by) then
      return true
    end
    if (ay > y) ~= (by > y) then
      if (by > ay) == (o > 0) then inside = not inside end
    end
  end
  return inside
end

describe("pointinpolygon and Polygon:contains, two edges at a time", function()
  it("give the exact answer on random polygons of 3 to 40 vertices (odd and even counts)", function()
    local r = rng(4242)
    local counts = { [true] = 0, [false] = 0 }
    for k = 1, 1500 / Q / Q2 do
      local n = 3 + (k % 38)
      local unit = r.pick { 1, 0.5, 2 ^ -1000, 2 ^ -1040, 2 ^ 900, 2 ^ -30 }
      local R = r.int(4, 4000)
      local poly = {}
      for i = 0, n - 1 do
        local q = r.next() < 0.5 and R or r.int(1, R)
        -- star-shaped around the origin (simple), or random (self-intersecting) vertices
        if k % 3 == 0 then
          poly[2 * i + 1], poly[2 * i + 2] = r.int(-R, R) * unit, r.int(-R, R) * unit
        else
          local ang = 2 * math.pi * i / n
          poly[2 * i + 1], poly[2 * i + 2] = floor(q * math.cos(ang)) * unit, floor(q * math.sin(ang)) * unit
        end
      end
      local P = collide.Polygon(poly)
      for m = 1, 6 do
        local x, y
        local p = r.next()
        if p < 0.2 then            -- on a vertex
          local i = r.int(0, n - 1)
          x, y = poly[2 * i + 1], poly[2 * i + 2]
        elseif p < 0.4 then        -- on an edge (an exact midpoint) or next to it
          local i = r.int(0, n - 1)
          local j = (i + 1) % n
          x = (poly[2 * i + 1] + poly[2 * j + 1]) / 2
          y = (poly[2 * i + 2] + poly[2 * j + 2]) / 2
          if (x / unit) % 1 ~= 0 or (y / unit) % 1 ~= 0 then
            x, y = floor(x / unit) * unit, floor(y / unit) * unit
          end
        elseif p < 0.55 then       -- at a vertex's y
          local i = r.int(0, n - 1)
          x, y = r.int(-R - 2, R + 2) * unit, poly[2 * i + 2]
        else
          x, y = r.int(-R - 2, R + 2) * unit, r.int(-R - 2, R + 2) * unit
        end
        local want = refpip(poly, x, y, unit)
        assert.are.equal(want, collide.pointinpolygon(poly, x, y))
        assert.are.equal(want, P:contains(x, y))
        assert.are.equal(want, collide.pointinpolygon(P, x, y))
        counts[want] = counts[want] + 1
      end
    end
    assert.is_true(counts[true] > 1500 / Q / Q2 and counts[false] > 1500 / Q / Q2)
  end)

  it("points an ulp off a diagonal edge or a vertex", function()
    -- the triangle (0,0) (1,0) (1,1): its diagonal is y = x
    local tri = { 0, 0, 1, 0, 1, 1 }
    local P = collide.Polygon(tri)
    for _, q in ipairs { { 0.5, 0.5, true }, { 0.5, 0.5 - 2 ^ -54, true }, { 0.5, 0.5 + 2 ^ -53, false },
                         { 1, 1, true }, { 1 + 2 ^ -52, 1, false }, { 1, 1 + 2 ^ -52, false },
                         { 1, 1 - 2 ^ -53, true }, { 0, 0, true }, { -5e-324, 0, false },
                         { 5e-324, 5e-324, true }, { 5e-324, 0, true }, { 0, -5e-324, false } } do
      assert.are.equal(q[3], P:contains(q[1], q[2]), q[1] .. "," .. q[2])
      assert.are.equal(q[3], collide.pointinpolygon(tri, q[1], q[2]), q[1] .. "," .. q[2])
    end
  end)

  it("a 33-vertex polygon (the other path) and a 32-vertex one agree with the reference", function()
    for _, n in ipairs { 31, 32, 33, 64 } do
      local poly = {}
      for i = 0, n - 1 do
        local ang = 2 * math.pi * i / n
        local q = i % 2 == 0 and 1000 or 400
        poly[2 * i + 1], poly[2 * i + 2] = floor(q * math.cos(ang)), floor(q * math.sin(ang))
      end
      local P = collide.Polygon(poly)
      for x = -1000, 1000, 37 * Q2 do
        for y = -1000, 1000, 41 * Q2 do
          local want = refpip(poly, x, y, 1)
          assert.are.equal(want, P:contains(x, y))
          assert.are.equal(want, collide.pointinpolygon(poly, x, y))
        end
      end
    end
  end)

  it("keeps the errors for non-finite coordinates (the LuaJIT path checks them in the same pass)", function()
    local P = "bad argument #1 to 'pointinpolygon' "
    for _, bad in ipairs { inf, -inf, nan } do
      for pos = 1, 16 do
        local poly = { 0, 0, 4, 0, 4, 4, 2, 1, 0, 4, -1, 2, -2, 0, -1, -1 }
        poly[pos] = bad
        assert.are.equal(P .. "(polygon coordinate " .. pos .. " is not finite)",
          errof(collide.pointinpolygon, poly, 1, 1))
      end
    end
    assert.are.equal("bad argument #2 to 'pointinpolygon' (number is not finite)",
      errof(collide.pointinpolygon, { 0, 0, 1, 0, 0, 1 }, nan, 0))
    assert.are.equal("bad argument #3 to 'contains' (number is not finite)",
      errof(collide.Polygon { 0, 0, 1, 0, 0, 1 }.contains, collide.Polygon { 0, 0, 1, 0, 0, 1 }, 0, inf))
  end)
end)
