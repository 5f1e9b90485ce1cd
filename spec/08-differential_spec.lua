-- Differential tests: every shape query of collide against the independent pure-Lua reference
-- (spec/support/ref.lua) on at least 10,000 deterministic random cases per query, biased to
-- exact boundary cases (grids, touching faces, flat boxes, rays along faces, 90-degree OBBs,
-- power-of-two huge/tiny scales). Booleans and states must match exactly; numbers within a
-- relative tolerance of 1e-9 (scaled to the case). Non-exact cases (real coordinates, rotated
-- boxes) that sit within rounding of a decision boundary are classified "near-boundary" and
-- skipped; the skip rate is asserted to be small. Exact cases are never skipped.
-- A failure prints Lua code that reproduces the case, the expected and the actual result.
local collide = require "collide"
local ref = require "support.ref"
local gen = require "support.gen"

local unpack = table.unpack or unpack
local abs, huge, max, min, sqrt = math.abs, math.huge, math.max, math.min, math.sqrt

-- COLLIDE_QUICK=1 (set by `make check` under the sanitizers and valgrind) runs a tenth of the cases
local N = os.getenv("COLLIDE_QUICK") and 1000 or 10000 -- compared (non-skipped) cases per query
local MAXSKIP = 0.05     -- largest tolerated share of near-boundary skips
local REL = 1e-9         -- relative tolerance for numbers
local NEAR = 1e-8        -- near-boundary band, relative to the case scale

-- ---------------------------------------------------------------- formatting

local function num(x)
  if type(x) ~= "number" then return tostring(x) end
  if x == huge then return "math.huge" elseif x == -huge then return "-math.huge" end
  if x ~= x then return "0/0" end
  return string.format("%.17g", x)
end

local function list(t, n)
  local parts = {}
  for i = 1, (n or #t) do parts[i] = num(t[i]) end
  return table.concat(parts, ", ")
end

local function pack(...) return { n = select("#", ...), ... } end

-- Returns the source text constructing shape description s.
local function src(s) return "collide." .. s.ctor .. "(" .. list(s.args) .. ")" end

-- Returns a failure text: a reproducer, the expected and the actual values.
local function report(lines, call, expected, got)
  return table.concat(lines, "\n") .. "\nprint(" .. call .. ")\n-- expected (reference): "
    .. list(expected, expected.n) .. "\n-- got (collide):         " .. list(got, got.n)
end

local function make(s) return collide[s.ctor](unpack(s.args)) end

-- Returns true if a and b are equal or both numbers within tol.
local function close(a, b, tol)
  if a == b then return true end
  if type(a) ~= "number" or type(b) ~= "number" then return false end
  return abs(a - b) <= tol
end

-- Returns true if the packed results match: same count, same non-numbers, numbers within
-- tols[i] (or tols when it is a number).
local function same(e, g, tols)
  if e.n ~= g.n then
    -- a trailing nil count difference is still a difference, except both empty of values
    if not (e.n <= 1 and g.n <= 1 and e[1] == nil and g[1] == nil) then return false end
  end
  for i = 1, max(e.n, g.n) do
    local tol = type(tols) == "table" and (tols[i] or 0) or tols
    if not close(e[i], g[i], tol) then return false end
  end
  return true
end

-- Returns the largest magnitude among the numbers of the given arrays (at least tiny).
local function scale(...)
  local m = 0
  for k = 1, select("#", ...) do
    local t = select(k, ...)
    for i = 1, #t do
      local v = t[i]
      if type(v) == "number" and v == v and abs(v) ~= huge then m = max(m, abs(v)) end
    end
  end
  return max(m, 1e-300)
end

-- ---------------------------------------------------------------- harness

local counts = {}

-- Runs make(rng) until N cases were compared. make returns nil (match), "skip" (near-boundary,
-- not compared) or a failure text. Asserts no failure and a small skip rate.
local function differential(name, seed, casefn)
  local rng = gen.new(seed)
  local t0 = os.clock()
  local compared, skipped, fails = 0, 0, {}
  while compared < N and compared + skipped < 2 * N do
    local r, why = casefn(rng)
    if r == "skip" then
      skipped = skipped + 1
      if os.getenv("COLLIDE_DIFF_SKIPS") and skipped <= 40 then
        print(name .. " skip: " .. tostring(why))
      end
    else
      compared = compared + 1
      if r then fails[#fails + 1] = r end
    end
  end
  counts[name] = { compared = compared, skipped = skipped, secs = os.clock() - t0 }
  if #fails > 0 then
    local shown = {}
    for i = 1, min(3, #fails) do shown[i] = fails[i] end
    error(string.format("%s: %d of %d cases differ from the reference (seed %d). First %d:\n\n%s",
      name, #fails, compared, seed, #shown, table.concat(shown, "\n\n")), 0)
  end
  assert.is_true(compared >= N, name .. ": only " .. compared .. " cases compared")
  assert.is_true(skipped <= MAXSKIP * (compared + skipped),
    string.format("%s: %d near-boundary skips of %d cases (more than %g%%)", name, skipped,
      compared + skipped, MAXSKIP * 100))
end

-- ---------------------------------------------------------------- case helpers

local KINDS = { "AABB", "OBB", "Sphere" }

-- Returns a point: on a feature of s (exact for exact shapes) or anywhere.
local function point(ctx, s)
  if s and ctx.rng:chance(s.exact and 0.5 or 0.03) then return ctx:featurepoint(s) end
  return { ctx:coord(), ctx:coord(), ctx:coord() }
end

-- Returns the positional numbers of a shape description (no axes, no ray direction), so a
-- case's scale follows its coordinates.
local function pos(s)
  local n = ({ AABB = 6, OBB = 6, Sphere = 4, Ray = 3 })[s.ctor]
  local t = {}
  for i = 1, n do t[i] = s.args[i] end
  return t
end

-- Returns true if a.b comes out the same in every summation order with exact products
-- (then every implementation computes the same value).
local function exactdot(a, b)
  local p = {}
  for i = 1, 3 do
    local x, e = ref.two_prod(a[i], b[i])
    if e ~= 0 then return false end
    p[i] = x
  end
  local s1 = (p[1] + p[2]) + p[3]
  return s1 == p[1] + (p[2] + p[3]) and s1 == (p[1] + p[3]) + p[2]
end

-- Returns true if point p is on the context's grid (so the case stays exact).
local function ongrid(ctx, p)
  if not ctx.exact then return false end
  for i = 1, #p do
    if ((p[i] / ctx.S) * 4) % 1 ~= 0 then return false end
  end
  return true
end

-- Returns true if the value t sits on the grid of ctx (a dyadic number every implementation
-- computes exactly).
local function gridvalue(ctx, t)
  return ctx.exact and ((t / ctx.S) * 64) % 1 == 0
end

-- Returns a shape description of kind near shape s (touching it on a grid most of the time).
local function near(ctx, s, kind)
  local rng = ctx.rng
  local box = ref.aabbof(ref.fromshape(make(s)))
  local bd = { ctor = "AABB",
    args = { box.min[1], box.min[2], box.min[3], box.max[1], box.max[2], box.max[3] } }
  if kind == "Sphere" then
    local f = ctx:featurepoint(s)
    local r = ctx:size()
    local i = rng:int(1, 3)
    f[i] = f[i] + (rng:chance(0.5) and r or -r)
    return { ctor = "Sphere", args = { f[1], f[2], f[3], r }, exact = ctx.exact }
  end
  local a = ctx:aabbnear(bd)
  if kind == "AABB" then return a end
  local lo, hi = { a.args[1], a.args[2], a.args[3] }, { a.args[4], a.args[5], a.args[6] }
  local c, e = {}, {}
  for i = 1, 3 do c[i], e[i] = (lo[i] + hi[i]) / 2, (hi[i] - lo[i]) / 2 end
  if rng:chance(0.8) then
    -- exact 90-degree axes: half size i goes with the world axis that local axis i maps to
    local ax = gen.permaxes(rng)
    local h = {}
    for i = 1, 3 do
      for j = 1, 3 do if ax[3 * (i - 1) + j] ~= 0 then h[i] = e[j] end end
    end
    local args = { c[1], c[2], c[3], h[1], h[2], h[3] }
    for i = 1, 9 do args[6 + i] = ax[i] end
    return { ctor = "OBB", args = args, exact = ctx.exact and a.exact }
  end
  local args = { c[1], c[2], c[3], e[1], e[2], e[3] }
  local ax = gen.rotaxes(rng)
  for i = 1, 9 do args[6 + i] = ax[i] end
  return { ctor = "OBB", args = args, exact = false }
end

-- ---------------------------------------------------------------- reference sanity

describe("reference implementation (spec/support/ref.lua) sanity", function()
  it("gives the seed 004 ray results against AABB(0.5,0.5,0.5, 2,2,2)", function()
    local b = ref.aabb(0.5, 0.5, 0.5, 2, 2, 2)
    local t = ref.raycast(b, ref.ray(-2, -2, -2, 1, 1, 1))
    assert.is_true(abs(t - 2.5 * sqrt(3)) < 1e-12)
    assert.is_nil(ref.raycast(b, ref.ray(-2, -2, -2, -1, -1, -1)))
    assert.are.same({ 0, 0, 0, 0 }, { ref.raycast(b, ref.ray(1, 1, 1, 0, 1, 0)) })
  end)

  it("ties an edge hit to the lowest axis and grazes faces and edges", function()
    local b = ref.aabb(0, 0, 0, 1, 1, 1)
    assert.are.same({ 1, -1, 0, 0 }, { ref.raycast(b, ref.ray(-1, 0, 0.5, 1, 0, 0)) })
    local t, nx, ny, nz = ref.raycast(b, ref.ray(-1, -1, 0.5, 1, 1, 0))
    assert.is_true(abs(t - sqrt(2)) < 1e-12)
    assert.are.same({ -1, 0, 0 }, { nx, ny, nz })
    -- touches only the corner (1, 0) while leaving through x = 1: entry axis y
    t, nx, ny, nz = ref.raycast(b, ref.ray(0, -1, 0.5, 1, 1, 0))
    assert.are.same({ 0, -1, 0 }, { nx, ny, nz })
    assert.is_nil(ref.raycast(b, ref.ray(-1, 1.5, 0.5, 1, 0, 0)))
    assert.are.same({ 2, 0, 0, 1 }, { ref.raycast(b, ref.ray(0.5, 0.5, 3, 0, 0, -1), 2) })
    assert.is_nil(ref.raycast(b, ref.ray(2, 0.5, 0.5, 1, 0, 0)))
    assert.is_nil(ref.raycast(b, ref.ray(0.5, 0.5, 3, 0, 0, -1), 1.5))
  end)

  it("decides toi by open interiors with the flat-axis rule", function()
    local a = ref.aabb(0, 0, 0, 1, 1, 1)
    assert.are.same({ "touching", 0.5 }, { ref.toi(a, 0, 0, 0, ref.aabb(2, 0, 0, 3, 1, 1), -2, 0, 0) })
    assert.are.same({ "separated", 1 }, { ref.toi(a, 0, 0, 0, ref.aabb(1, 0, 0, 2, 1, 1), 1, 0, 0) })
    assert.are.same({ "separated", 1 }, { ref.toi(a, 0, 0, 0, ref.aabb(1, 0, 0, 2, 1, 1), 0, 1, 0) })
    assert.are.same({ "touching", 0 }, { ref.toi(a, 0, 0, 0, ref.aabb(1, 0, 0, 2, 1, 1), -1, 0, 0) })
    assert.are.same({ "separated", 1 }, { ref.toi(a, 0, 0, 0, ref.aabb(2, 0, 0, 3, 1, 1), -1, 0, 0) })
    assert.are.same({ "overlapped", 0 }, { ref.toi(a, 0, 0, 0, ref.aabb(0.5, 0.5, 0.5, 2, 2, 2), 5, 5, 5) })
    local f = ref.aabb(0, 0, 0, 1, 1, 0)
    assert.are.same({ "touching", 0.5 }, { ref.toi(f, 0, 0, 0, ref.aabb(2, 0, 0, 3, 1, 0), -2, 0, 0) })
    assert.are.same({ "separated", 1 }, { ref.toi(f, 0, 0, 0, ref.aabb(2, 0, 1, 3, 1, 1), -2, 0, 0) })
    -- a flat box strictly inside a thick one's range overlaps it (amin < bmax and bmin < amax)
    assert.are.same({ "overlapped", 0 }, { ref.toi(a, 0, 0, 0, ref.aabb(0.5, 0.5, 0.5, 2, 2, 0.5), 0, 0, 0) })
    assert.are.same({ "touching", 0.5 }, { ref.toi(a, 0, 0, 0, ref.aabb(2, 0.5, 0.5, 2, 2, 0.5), -2, 0, 0) })
    assert.are.same({ "separated", 1 }, { ref.toi(f, 0, 0, 0, ref.aabb(0, 0, 1, 1, 1, 1), 0, 0, -2) })
  end)

  it("finds OBB overlaps by edges, including containment and crossing without corners", function()
    local a = ref.obb(0, 0, 0, 1, 1, 1)
    assert.is_true(ref.overlaps(a, ref.obb(0, 0, 0, 0.1, 0.1, 0.1)))
    assert.is_true(ref.overlaps(ref.obb(0, 0, 0, 0.1, 0.1, 0.1), a))
    -- a long thin bar crossing the box with all corners outside
    assert.is_true(ref.overlaps(a, ref.obb(0, 0, 0, 5, 0.1, 0.1, 0, 1, 0, -1, 0, 0, 0, 0, 1)))
    local s = sqrt(0.5)
    assert.is_false(ref.overlaps(a, ref.obb(2.5, 0, 0, 1, 1, 1, s, s, 0, -s, s, 0, 0, 0, 1)))
    assert.is_true(ref.overlaps(a, ref.obb(2.4, 0, 0, 1, 1, 1, s, s, 0, -s, s, 0, 0, 0, 1)))
    assert.is_true(ref.overlaps(a, ref.aabb(1, 1, 1, 2, 2, 2)))
    assert.is_false(ref.overlaps(a, ref.sphere(2, 2, 1, 1)))
    assert.is_true(ref.overlaps(a, ref.sphere(2, 1, 1, 1)))
  end)

  it("counts polygon edges and vertices as inside (concave polygon)", function()
    local p = { 0, 0, 4, 0, 4, 4, 2, 1, 0, 4 }
    assert.is_true(ref.pointinpolygon(p, 2, 0))
    assert.is_true(ref.pointinpolygon(p, 2, 1))
    assert.is_true(ref.pointinpolygon(p, 3, 2.5))
    assert.is_false(ref.pointinpolygon(p, 2, 2))
    assert.is_true(ref.pointinpolygon(p, 1, 1))
    assert.is_false(ref.pointinpolygon(p, 5, 0))
  end)

  it("plane: touching is 0, zero normal uses the sign of d", function()
    local b = ref.aabb(0, 0, 0, 1, 1, 1)
    assert.are.equal(0, ref.plane(b, 1, 0, 0, 0))
    assert.are.equal(1, ref.plane(b, 1, 0, 0, 0.5))
    assert.are.equal(-1, ref.plane(ref.sphere(0, 0, 0, 1), 0, 0, 0, -2))
    assert.are.equal(0, ref.plane(ref.sphere(0, 0, 0, 5), 3, 4, 0, 25))
    assert.are.equal(1, ref.plane(ref.sphere(0, 0, 0, 5), 3, 4, 0, 25.0001))
  end)
end)

-- ---------------------------------------------------------------- differential specs

describe("differential: collide vs reference", function()
  it("contains for AABB, OBB and Sphere", function()
    for k, kind in ipairs(KINDS) do
      differential("contains " .. kind, 100 + k, function(rng)
        local ctx = gen.context(rng)
        local s = ctx:shape(kind)
        local p = point(ctx, s)
        local ud = make(s)
        local rs = ref.fromshape(ud)
        local e = pack(ref.contains(rs, p[1], p[2], p[3]))
        -- AABB containment is comparisons only: exact for any coordinates
        local exact = kind == "AABB" or (s.exact and ongrid(ctx, p))
        if not exact and abs(ref.pointgap(rs, p[1], p[2], p[3])) <= NEAR * scale(pos(s), p) then
          return "skip"
        end
        local g = pack(ud:contains(p[1], p[2], p[3]))
        if not same(e, g, 0) then
          return report({ "local s = " .. src(s) }, "s:contains(" .. list(p) .. ")", e, g)
        end
      end)
    end
  end)

  it("overlaps for all 9 ordered type pairs, and symmetry", function()
    for i, ka in ipairs(KINDS) do
      for j, kb in ipairs(KINDS) do
        differential("overlaps " .. ka .. "-" .. kb, 200 + 10 * i + j, function(rng)
          local ctx = gen.context(rng)
          local a = ctx:shape(ka)
          local b = rng:chance(a.exact and 0.6 or 0.05) and near(ctx, a, kb) or ctx:shape(kb)
          local ua, ub = make(a), make(b)
          local ra, rb = ref.fromshape(ua), ref.fromshape(ub)
          local e = pack(ref.overlaps(ra, rb))
          -- AABB-AABB is comparisons only: exact for any coordinates
          local exact = (a.exact and b.exact) or (ka == "AABB" and kb == "AABB")
          if not exact and abs(ref.separation(ra, rb)) <= NEAR * scale(pos(a), pos(b)) then
            return "skip"
          end
          local g = pack(ua:overlaps(ub))
          local g2 = pack(ub:overlaps(ua))
          if not same(e, g, 0) then
            return report({ "local a = " .. src(a), "local b = " .. src(b) }, "a:overlaps(b)", e, g)
          end
          if not same(e, g2, 0) then
            return report({ "local a = " .. src(a), "local b = " .. src(b) }, "b:overlaps(a)", e, g2)
          end
        end)
      end
    end
  end)

  -- Returns the t tolerance for a hit with unit normal n on a ray of direction d.
  local function ttol(S, t, d, n)
    local dn = abs(d[1] * n[1] + d[2] * n[2] + d[3] * n[3])
    return REL * (abs(t) + S / max(dn, 1e-3))
  end

  local raynear

  -- Returns the local frame (box table [-h, h], origin, direction) of a ray in a box table.
  local function localray(rs, rr)
    if rs.kind == "AABB" then return rs, rr.o, rr.d end
    local h, u, c = rs.h, rs.u, rs.c
    local o, d = {}, {}
    for i = 1, 3 do
      o[i] = u[i][1] * (rr.o[1] - c[1]) + u[i][2] * (rr.o[2] - c[2]) + u[i][3] * (rr.o[3] - c[3])
      d[i] = u[i][1] * rr.d[1] + u[i][2] * rr.d[2] + u[i][3] * rr.d[3]
    end
    return ref.aabb(-h[1], -h[2], -h[3], h[1], h[2], h[3]), o, d
  end

  -- Returns why a raycast case is near-boundary (so skipped), or nil. e is the reference result.
  function raynear(kind, s, rs, rr, maxt, e, S, exact)
    local eps = NEAR * S
    if e[1] and maxt and maxt ~= huge and e[1] ~= maxt and abs(e[1] - maxt) <= NEAR * (e[1] + maxt) then
      return "t near maxt"
    end
    if kind == "AABB" or (kind == "OBB" and s.exact) then
      -- slab arithmetic on an AABB (or an OBB with exact 90-degree axes on a grid, whose frame
      -- change is exact) is exact except comparisons of quotients with different denominators
      local box, o, d = localray(rs, rr)
      if ref.raymargin(box, o, d) <= NEAR then return "slab times near a tie" end
      return nil
    end
    if exact then return nil end
    local a = pack(ref.raycast(ref.inflate(rs, eps), rr, maxt))
    local b = pack(ref.raycast(ref.inflate(rs, -eps), rr, maxt))
    if (a[1] == nil) ~= (b[1] == nil) or (a[1] == nil) ~= (e[1] == nil) then
      return "hit changes when the shape grows or shrinks"
    end
    if abs(ref.pointgap(rs, rr.o[1], rr.o[2], rr.o[3])) <= eps then return "origin near the surface" end
    if kind == "Sphere" then
      -- the line's distance from the centre against the radius (tangent rays, point spheres)
      local m = { rr.o[1] - rs.c[1], rr.o[2] - rs.c[2], rr.o[3] - rs.c[3] }
      local tc = -(m[1] * rr.d[1] + m[2] * rr.d[2] + m[3] * rr.d[3])
      local px, py, pz = m[1] + tc * rr.d[1], m[2] + tc * rr.d[2], m[3] + tc * rr.d[3]
      if abs(sqrt(px * px + py * py + pz * pz) - rs.r) <= eps then return "tangent" end
      return nil
    end
    if e[1] then
      for i = 2, 4 do
        if not close(a[i], e[i], 1e-6) or not close(b[i], e[i], 1e-6) then return "normal changes" end
      end
    end
    -- rotated box: any tie of slab times, or a ray nearly parallel to and in a face plane
    local box, o, d = localray(rs, rr)
    if ref.raymargin(box, o, d, true) <= NEAR then return "slab times near a tie" end
    for i = 1, 3 do
      if abs(d[i]) <= NEAR and abs(abs(o[i]) - box.max[i]) <= eps then return "in a face plane" end
    end
    return nil
  end

  it("raycast for AABB, OBB and Sphere, with maxt", function()
    for k, kind in ipairs(KINDS) do
      differential("raycast " .. kind, 300 + k, function(rng)
        local ctx = gen.context(rng)
        local s = ctx:shape(kind)
        local r = ctx:ray(s)
        local us, ur = make(s), make(r)
        local rs, rr = ref.fromshape(us), ref.fromshape(ur)
        local exact = s.exact and r.exact
          and (r.dclass == "axis" or (r.dclass == "diag" and kind ~= "Sphere"))
        local maxt
        local p = rng:float()
        if p < 0.1 then maxt = huge
        elseif p < 0.35 then maxt = rng:int(0, 8) / 2 * ctx.S
        elseif p < 0.45 then maxt = 0
        elseif p < 0.6 then
          local t = ref.raycast(rs, rr)
          if t then
            maxt = t
            if kind == "Sphere" then
              -- a sphere's t is irrational in general: just above or below it
              maxt = t * (rng:chance(0.5) and 1 + 1e-6 or 1 - 1e-6)
            end
            if not gridvalue(ctx, maxt) then exact = false end
          end
        end
        local e = pack(ref.raycast(rs, rr, maxt))
        local S = scale(pos(s), pos(r))
        local why = raynear(kind, s, rs, rr, maxt, e, S, exact)
        if why then return "skip", why end
        local g
        if maxt == nil then g = pack(us:raycast(ur)) else g = pack(us:raycast(ur, maxt)) end
        local tols = { 0, 1e-9, 1e-9, 1e-9 }
        if e[1] then
          tols[1] = ttol(S, e[1], rr.d, { e[2], e[3], e[4] })
          if kind == "Sphere" and rs.r > 0 then
            for i = 2, 4 do tols[i] = REL * (1 + S / rs.r) end
          end
        end
        if not same(e, g, tols) then
          return report({ "local s = " .. src(s), "local r = " .. src(r) },
            "s:raycast(r" .. (maxt and (", " .. num(maxt)) or "") .. ")", e, g)
        end
        -- ray:cast is the same query
        local g2
        if maxt == nil then g2 = pack(ur:cast(us)) else g2 = pack(ur:cast(us, maxt)) end
        if not same(g, g2, 0) then
          return report({ "local s = " .. src(s), "local r = " .. src(r) },
            "r:cast(s" .. (maxt and (", " .. num(maxt)) or "") .. ")", g, g2)
        end
      end)
    end
  end)

  it("AABB:clip", function()
    differential("clip", 401, function(rng)
      local ctx = gen.context(rng)
      local s = ctx:aabb()
      local r = ctx:ray(s)
      local us, ur = make(s), make(r)
      local rs, rr = ref.fromshape(us), ref.fromshape(ur)
      local e = pack(ref.clip(rs, rr))
      local S = scale(pos(s), pos(r))
      if ref.raymargin(rs, rr.o, rr.d) <= NEAR then return "skip", src(s) .. " " .. src(r) end
      local g = pack(us:clip(ur))
      local dmin = huge
      for i = 1, 3 do if rr.d[i] ~= 0 then dmin = min(dmin, abs(rr.d[i])) end end
      local tol = {}
      for i = 1, 2 do tol[i] = e[i] and REL * (abs(e[i]) + S / dmin) or 0 end
      if not same(e, g, tol) then
        return report({ "local s = " .. src(s), "local r = " .. src(r) }, "s:clip(r)", e, g)
      end
    end)
  end)

  it("AABB:segment, with zero-length segments and maxfraction", function()
    differential("segment", 501, function(rng)
      local ctx = gen.context(rng)
      local s = ctx:aabb()
      local p1 = point(ctx, s)
      if rng:chance(0.3) then
        local f = ctx:featurepoint(s)
        p1[rng:int(1, 3)] = f[rng:int(1, 3)]
      end
      local p2
      local q = rng:float()
      if q < 0.1 then
        p2 = { p1[1], p1[2], p1[3] }
      elseif q < 0.5 then
        p2 = point(ctx, s)
      else
        -- along an axis or a diagonal, often ending on a face
        local dx, dy, dz = ctx:direction()
        local k = rng:pick({ 1, 2, 0.5, 4 }) * (ctx.exact and ctx.S or ctx.S * 1.37)
        p2 = { p1[1] + dx * k, p1[2] + dy * k, p1[3] + dz * k }
      end
      local maxf
      local p = rng:float()
      if p < 0.1 then maxf = huge
      elseif p < 0.3 then maxf = rng:int(0, 8) / 4
      elseif p < 0.4 then maxf = 0
      end
      local us = make(s)
      local rs = ref.fromshape(us)
      if p >= 0.4 and p < 0.55 then
        maxf = ref.segment(rs, p1[1], p1[2], p1[3], p2[1], p2[2], p2[3], huge)
      end
      local e = pack(ref.segment(rs, p1[1], p1[2], p1[3], p2[1], p2[2], p2[3], maxf))
      local S = scale(pos(s), p1, p2)
      -- slab arithmetic is exact except comparisons of quotients with different denominators
      -- (and f against maxf)
      if ref.raymargin(rs, p1, { p2[1] - p1[1], p2[2] - p1[2], p2[3] - p1[3] }) <= NEAR then
        return "skip", "slab times near a tie"
      end
      if e[1] and maxf and maxf ~= huge and e[1] ~= maxf and abs(e[1] - maxf) <= NEAR * (e[1] + maxf) then
        return "skip", "fraction near maxfraction"
      end
      local args = { p1[1], p1[2], p1[3], p2[1], p2[2], p2[3] }
      local g
      if maxf == nil then g = pack(us:segment(unpack(args))) else
        args[7] = maxf
        g = pack(us:segment(unpack(args)))
      end
      local tols = { 0, 0, 0, 0 }
      if e[1] then
        local len = sqrt((p2[1] - p1[1]) ^ 2 + (p2[2] - p1[2]) ^ 2 + (p2[3] - p1[3]) ^ 2)
        local dn = abs((p2[1] - p1[1]) * e[2] + (p2[2] - p1[2]) * e[3] + (p2[3] - p1[3]) * e[4])
        tols[1] = REL * (abs(e[1]) + S / max(dn, 1e-3 * max(len, 1e-300)))
      end
      if not same(e, g, tols) then
        return report({ "local s = " .. src(s) }, "s:segment(" .. list(args) .. ")", e, g)
      end
    end)
  end)

  it("closest for AABB, OBB and Sphere", function()
    for k, kind in ipairs(KINDS) do
      differential("closest " .. kind, 600 + k, function(rng)
        local ctx = gen.context(rng)
        local s = ctx:shape(kind)
        local p = point(ctx, s)
        if rng:chance(0.1) and kind ~= "AABB" then p = { s.args[1], s.args[2], s.args[3] } end
        local us = make(s)
        local rs = ref.fromshape(us)
        local e = pack(ref.closest(rs, p[1], p[2], p[3]))
        local g = pack(us:closest(p[1], p[2], p[3]))
        local tol = REL * scale(pos(s), p)
        if not same(e, g, tol) then
          return report({ "local s = " .. src(s) }, "s:closest(" .. list(p) .. ")", e, g)
        end
      end)
    end
  end)

  -- Returns a plane normal, the class (exact or not) and a d putting the plane through a
  -- feature of s half of the time.
  local function plane(ctx, s, rng)
    local n = { 0, 0, 0 }
    local exact = true -- small integer (or half) normal
    local q = rng:float()
    if q < 0.45 then
      n[rng:int(1, 3)] = rng:pick({ 1, -1, 2, -0.5 })
    elseif q < 0.8 then
      for i = 1, 3 do n[i] = rng:int(-3, 3) end
    else
      for i = 1, 3 do n[i] = 2 * rng:float() - 1 end
      exact = false
    end
    local d
    if s and s.exact and ctx.exact and exact and rng:chance(0.5) then
      local f = ctx:featurepoint(s)
      d = -(n[1] * f[1] + n[2] * f[2] + n[3] * f[3])
    else
      d = ctx:coord() * rng:int(-3, 3)
    end
    return n, d, exact
  end

  it("plane for AABB, OBB and Sphere", function()
    for k, kind in ipairs(KINDS) do
      differential("plane " .. kind, 700 + k, function(rng)
        local ctx = gen.context(rng)
        local s = ctx:shape(kind)
        local n, d, nint = plane(ctx, s, rng)
        local nexact = nint and ctx.exact
        local us = make(s)
        local rs = ref.fromshape(us)
        local e = pack(ref.plane(rs, n[1], n[2], n[3], d))
        if not (s.exact and nexact)
          and ref.planegap(rs, n[1], n[2], n[3], d)
            <= NEAR * scale(pos(s), { d / max(sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2), 1e-300) }) then
          return "skip"
        end
        local g = pack(us:plane(n[1], n[2], n[3], d))
        if not same(e, g, 0) then
          return report({ "local s = " .. src(s) }, "s:plane(" .. list({ n[1], n[2], n[3], d }) .. ")", e, g)
        end
      end)
    end
  end)

  it("ray:plane", function()
    differential("ray:plane", 801, function(rng)
      local ctx = gen.context(rng)
      local r = ctx:ray()
      local n, d, nint = plane(ctx, nil, rng)
      if ctx.exact and nint and rng:chance(0.3) then
        d = -(n[1] * r.args[1] + n[2] * r.args[2] + n[3] * r.args[3]) -- origin on the plane
      end
      local ur = make(r)
      local rr = ref.fromshape(ur)
      local e = pack(ref.rayplane(rr, n[1], n[2], n[3], d))
      local nl = sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2)
      local S = scale(pos(r), { d / max(nl, 1e-300) })
      local nd = abs(n[1] * rr.d[1] + n[2] * rr.d[2] + n[3] * rr.d[3])
      -- n.o + d is exact on grids with small integer normals
      local s0 = n[1] * rr.o[1] + n[2] * rr.o[2] + n[3] * rr.o[3] + d
      if not (ctx.exact and nint) and abs(s0) <= NEAR * S * nl then return "skip", "origin near plane" end
      if not exactdot(n, rr.d) and nd <= NEAR * nl then return "skip", "direction near parallel" end
      local g = pack(ur:plane(n[1], n[2], n[3], d))
      local tol = e[1] and REL * (abs(e[1]) + S * nl / max(nd, 1e-300)) or 0
      if not same(e, g, tol) then
        return report({ "local r = " .. src(r) }, "r:plane(" .. list({ n[1], n[2], n[3], d }) .. ")", e, g)
      end
    end)
  end)

  it("toi", function()
    differential("toi", 901, function(rng)
      local ctx = gen.context(rng)
      local a = ctx:aabb()
      local b = rng:chance(0.6) and ctx:aabbnear(a) or ctx:aabb()
      if rng:chance(0.2) then
        -- 2D: both flat at the same z
        a.args[6] = a.args[3]
        b.args[3], b.args[6] = a.args[3], a.args[3]
      end
      local da, db = {}, {}
      for i = 1, 3 do
        local q = rng:float()
        if q < 0.3 then da[i], db[i] = 0, 0
        elseif q < 0.45 then da[i] = ctx:coord(); db[i] = da[i]
        else da[i], db[i] = ctx:coord(), ctx:coord() end
      end
      local ua, ub = make(a), make(b)
      local ra, rb = ref.fromshape(ua), ref.fromshape(ub)
      local e = pack(ref.toi(ra, da[1], da[2], da[3], rb, db[1], db[2], db[3]))
      local S = scale(a.args, b.args, da, db)
      if not ctx.exact then
        local eps = NEAR * S
        local x = ref.toi(ref.inflate(ra, eps), da[1], da[2], da[3],
          ref.inflate(rb, eps), db[1], db[2], db[3])
        local y = ref.toi(ref.inflate(ra, -eps), da[1], da[2], da[3],
          ref.inflate(rb, -eps), db[1], db[2], db[3])
        if x ~= e[1] or y ~= e[1] then return "skip", "state changes when the boxes grow or shrink" end
      end
      local g = pack(collide.toi(ua, da[1], da[2], da[3], ub, db[1], db[2], db[3]))
      local dmin = huge
      for i = 1, 3 do
        local dv = abs(db[i] - da[i])
        if dv ~= 0 then dmin = min(dmin, dv) end
      end
      if not same(e, g, { 0, REL * (1 + S / dmin) }) then
        return report({ "local a = " .. src(a), "local b = " .. src(b) },
          "collide.toi(a, " .. list(da) .. ", b, " .. list(db) .. ")", e, g)
      end
    end)
  end)

  it("closestonsegment", function()
    differential("closestonsegment", 1001, function(rng)
      local ctx = gen.context(rng)
      local a = { ctx:coord(), ctx:coord(), ctx:coord() }
      local b = rng:chance(0.1) and { a[1], a[2], a[3] } or { ctx:coord(), ctx:coord(), ctx:coord() }
      local p
      local q = rng:float()
      if q < 0.1 then p = { a[1], a[2], a[3] }
      elseif q < 0.2 then p = { b[1], b[2], b[3] }
      else p = { ctx:coord(), ctx:coord(), ctx:coord() } end
      local args = { p[1], p[2], p[3], a[1], a[2], a[3], b[1], b[2], b[3] }
      local e = pack(ref.closestonsegment(unpack(args)))
      local g = pack(collide.closestonsegment(unpack(args)))
      local S = scale(args)
      local len = sqrt((b[1] - a[1]) ^ 2 + (b[2] - a[2]) ^ 2 + (b[3] - a[3]) ^ 2)
      local tp = REL * S
      local ts = len > 0 and REL * (1 + S / len) or 0
      if not same(e, g, { tp, tp, tp, ts }) then
        return report({}, "collide.closestonsegment(" .. list(args) .. ")", e, g)
      end
    end)
  end)

  it("reflect, with and without elasticity", function()
    differential("reflect", 1101, function(rng)
      local ctx = gen.context(rng)
      local v = { ctx:coord(), ctx:coord(), ctx:coord() }
      local n = { 0, 0, 0 }
      local q = rng:float()
      if q < 0.4 then
        n[rng:int(1, 3)] = rng:chance(0.5) and 1 or -1
      elseif q < 0.7 then
        local l
        repeat
          for i = 1, 3 do n[i] = 2 * rng:float() - 1 end
          l = sqrt(n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2)
        until l > 0.1
        for i = 1, 3 do n[i] = n[i] / l end
      else
        for i = 1, 3 do n[i] = rng:int(-2, 2) / 2 end
      end
      local args = { v[1], v[2], v[3], n[1], n[2], n[3] }
      local p = rng:float()
      if p < 0.3 then args[7] = rng:float() elseif p < 0.6 then args[7] = rng:int(0, 4) / 2 end
      local e = pack(ref.reflect(unpack(args)))
      local g = pack(collide.reflect(unpack(args)))
      local nn = n[1] ^ 2 + n[2] ^ 2 + n[3] ^ 2
      local vl = sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2)
      local tol = REL * vl * (1 + (1 + abs(args[7] or 1)) * nn)
      if not same(e, g, tol) then
        return report({}, "collide.reflect(" .. list(args) .. ")", e, g)
      end
    end)
  end)

  it("pointinpolygon with concave polygons, points on edges and vertices", function()
    differential("pointinpolygon", 1201, function(rng)
      local real = rng:chance(0.1)
      local poly = gen.polygon(rng, real)
      local nv = #poly / 2
      local sc = rng:pick({ 1, 1, 1, 2 ^ 40, 2 ^ -40, 3 })
      local x, y
      local q = rng:float()
      if q < 0.25 then
        local i = rng:int(1, nv)
        x, y = poly[2 * i - 1], poly[2 * i]
      elseif q < 0.45 then
        local i = rng:int(1, nv)
        local j = i % nv + 1
        local k = rng:pick({ 0.5, 0.25, 0.75 })
        x = poly[2 * i - 1] + k * (poly[2 * j - 1] - poly[2 * i - 1])
        y = poly[2 * i] + k * (poly[2 * j] - poly[2 * i])
      elseif q < 0.6 then
        -- same y as a vertex (horizontal ray through a vertex)
        local i = rng:int(1, nv)
        x, y = rng:int(-18, 18) / 2, poly[2 * i]
      else
        x, y = rng:int(-18, 18) / 2, rng:int(-18, 18) / 2
        if real then x, y = x + rng:float(), y + rng:float() end
      end
      for i = 1, #poly do poly[i] = poly[i] * sc end
      x, y = x * sc, y * sc
      local e = pack(ref.pointinpolygon(poly, x, y))
      -- integer polygons (times 3 or a power of two) are exact, and so is a point on a vertex
      local exact = not real or q < 0.25
      if not exact then
        -- near an edge: skip
        for i = 1, nv do
          local j = i % nv + 1
          local ax, ay, bx, by = poly[2 * i - 1], poly[2 * i], poly[2 * j - 1], poly[2 * j]
          local _, _, _, s = ref.closestonsegment(x, y, 0, ax, ay, 0, bx, by, 0)
          local cx, cy = ax + s * (bx - ax), ay + s * (by - ay)
          if sqrt((cx - x) ^ 2 + (cy - y) ^ 2) <= NEAR * 10 * sc then return "skip", "point near an edge" end
        end
      end
      local g = pack(collide.pointinpolygon(poly, x, y))
      if not same(e, g, 0) then
        return report({ "local poly = {" .. list(poly) .. "}" },
          "collide.pointinpolygon(poly, " .. num(x) .. ", " .. num(y) .. ")", e, g)
      end
    end)
  end)

  it("aabb() of OBB and Sphere", function()
    for k, kind in ipairs({ "OBB", "Sphere" }) do
      differential("aabb " .. kind, 1300 + k, function(rng)
        local ctx = gen.context(rng)
        local s = ctx:shape(kind)
        local us = make(s)
        local rb = ref.aabbof(ref.fromshape(us))
        local e = pack(rb.min[1], rb.min[2], rb.min[3], rb.max[1], rb.max[2], rb.max[3])
        local g = pack(us:aabb():bounds())
        if not same(e, g, REL * scale(pos(s))) then
          return report({ "local s = " .. src(s) }, "s:aabb()", e, g)
        end
      end)
    end
  end)

  it("ran the promised number of cases (summary)", function()
    local names = {}
    for name in pairs(counts) do names[#names + 1] = name end
    table.sort(names)
    assert.are.equal(30, #names) -- every differential above ran to the end
    for _, name in ipairs(names) do
      assert.is_true(counts[name].compared >= N, name)
    end
    if os.getenv("COLLIDE_DIFF_VERBOSE") then
      for _, name in ipairs(names) do
        print(string.format("%-28s compared %6d  skipped %4d  %6.2f s", name, counts[name].compared,
          counts[name].skipped, counts[name].secs))
      end
    end
  end)
end)
