-- The seed algorithms' own cases (shared/seeds/000, 002, 003, 004), with the seeds' bugs corrected
-- as the brief decides. Expected values worked out by hand.
local collide = require "collide"
local approx = require "support.approx"
local check = approx.check

local AABB, Ray, OBB, Sphere = collide.AABB, collide.Ray, collide.OBB, collide.Sphere
local R3 = math.sqrt(3)

local function toi(...)
  local state, t = collide.toi(...)
  return { state, t }
end

describe("seed 004: the unit test's five rays against AABB(0.5,0.5,0.5, 2,2,2)", function()
  local box = AABB(0.5, 0.5, 0.5, 2, 2, 2)
  -- exactly as written in the seed: Ray(Point, Vector3)
  local rays = {
    Ray(-2, -2, -2, 2, 2, 2),
    Ray(0, 0, 0, 0, 1, 0),
    Ray(0, 0, 0, -1, 0, 0),
    Ray(1, 1, 1, 1, 1, 0),
    Ray(0.4, 1, 1, -1, 0, 0),
  }

  it("hit, miss, miss, hit, miss", function()
    local got = {}
    for i, r in ipairs(rays) do got[i] = box:raycast(r) ~= nil end
    assert.same({ true, false, false, true, false }, got)
  end)

  it("ray 1 hits at t = 2.5*sqrt(3) with the lowest-axis tie normal (-1,0,0)", function()
    check({ 2.5 * R3, -1, 0, 0 }, 1e-12, box:raycast(rays[1]))
  end)

  it("ray 1's line enters at 2.5*sqrt(3) and leaves at 4*sqrt(3) (seed's T1, T2)", function()
    check({ 2.5 * R3, 4 * R3 }, 1e-12, box:clip(rays[1]))
  end)

  it("ray 2 misses: x = 0 lies outside [0.5, 2] and the ray is parallel to x", function()
    assert.is_nil(box:raycast(rays[2]))
    assert.is_nil(box:clip(rays[2]))
  end)

  it("ray 3 misses: the box is behind it", function()
    assert.is_nil(box:raycast(rays[3]))
    assert.is_nil(box:clip(rays[3]))
  end)

  it("ray 4 starts inside: 0, 0,0,0", function()
    check({ 0, 0, 0, 0 }, 0, box:raycast(rays[4]))
  end)

  it("ray 4's line: negative entry, exit at sqrt(2)", function()
    check({ -0.5 * math.sqrt(2), math.sqrt(2) }, 1e-12, box:clip(rays[4]))
  end)

  it("ray 5 misses: it starts just outside the x = 0.5 face moving away", function()
    assert.is_nil(box:raycast(rays[5]))
    assert.is_nil(box:clip(rays[5]))
  end)

  it("ray:cast gives the same answers", function()
    check({ 2.5 * R3, -1, 0, 0 }, 1e-12, rays[1]:cast(box))
    assert.is_nil(rays[2]:cast(box))
    assert.is_nil(rays[3]:cast(box))
    check({ 0, 0, 0, 0 }, 0, rays[4]:cast(box))
    assert.is_nil(rays[5]:cast(box))
  end)

  it("the seed's tMin > tMax test: a ray passing the box diagonally misses", function()
    assert.is_nil(box:raycast(Ray(0, 3.5, 1, 1, -0.5, 0)))
  end)
end)

describe("seed 000: Bounds3::RayCast segment test", function()
  local box = AABB(0.5, 0.5, 0.5, 2, 2, 2)

  it("a diagonal segment enters at fraction 2.5/6 with the x-face normal (tie rule)", function()
    check({ 2.5 / 6, -1, 0, 0 }, 1e-15, box:segment(-2, -2, -2, 4, 4, 4))
  end)

  it("maxFraction bounds the answer (inclusive)", function()
    check({ 2.5 / 6, -1, 0, 0 }, 1e-15, box:segment(-2, -2, -2, 4, 4, 4, 2.5 / 6))
    assert.is_nil(box:segment(-2, -2, -2, 4, 4, 4, 0.4))
  end)

  it("lower starts at 0: a segment starting inside reports 0, 0,0,0", function()
    check({ 0, 0, 0, 0 }, 0, box:segment(1, 1, 1, 5, 5, 5))
  end)

  it("parallel to a slab and outside it (numerator < 0): miss", function()
    assert.is_nil(box:segment(0, 0, 1, 5, 0, 1))
    assert.is_nil(box:segment(0, 2.5, 1, 5, 2.5, 1))
  end)

  it("parallel to a slab and exactly on its plane: no constraint (inclusive)", function()
    check({ 0.1, -1, 0, 0 }, 1e-15, box:segment(0, 0.5, 1, 5, 0.5, 1))
  end)

  it("upper < lower (the segment passes beside the box): miss", function()
    assert.is_nil(box:segment(0, 0.9, 1, 0.9, 0, 1))
  end)

  it("upper == lower (the segment grazes an edge): hit", function()
    check({ 0.5, -1, 0, 0 }, 0, box:segment(0, 1, 1, 1, 0, 1))
  end)

  it("a segment that ends before the box: miss", function()
    assert.is_nil(box:segment(-2, 1, 1, 0, 1, 1))
  end)

  it("a segment from the max side gets the max face's normal", function()
    check({ 0.25, 0, 0, 1 }, 0, box:segment(1, 1, 3, 1, 1, -1))
  end)
end)

describe("seed 003: time of impact of two moving AABBs", function()
  local a = AABB(0, 0, 0, 1, 1, 1)

  it("overlapped: interiors already intersect (t = 0), whatever the motion", function()
    assert.same({ "overlapped", 0 }, toi(a, 0, 0, 0, AABB(0.5, 0.5, 0.5, 2, 2, 2), 0, 0, 0))
    assert.same({ "overlapped", 0 }, toi(a, 0, 0, 0, AABB(0.5, 0.5, 0.5, 2, 2, 2), 5, 5, 5))
    assert.same({ "overlapped", 0 }, toi(a, 0, 0, 0, AABB(0, 0, 0, 1, 1, 1), 1, 0, 0))
  end)

  it("touching: approaching boxes meet at the first contact", function()
    assert.same({ "touching", 0.5 }, toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), -2, 0, 0))
    assert.same({ "touching", 0.25 }, toi(a, 0, 0, 0, AABB(0, 0, -2, 1, 1, -1), 0, 0, 4))
  end)

  it("touching at t = 0: touching at the start and moving into each other", function()
    assert.same({ "touching", 0 }, toi(a, 0, 0, 0, AABB(1, 0, 0, 2, 1, 1), -1, 0, 0))
    assert.same({ "touching", 0 }, toi(a, 0, 0.5, 0, AABB(0, 1, 0, 1, 2, 1), 0, 0, 0))
  end)

  it("separated: too far apart to meet in the step", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), -0.5, 0, 0))
  end)

  it("separated: moving apart", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), 1, 0, 0))
  end)

  it("separated: touching at the start and moving apart", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(1, 0, 0, 2, 1, 1), 1, 0, 0))
  end)

  it("separated: touching at the start and sliding along each other", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(1, 0, 0, 2, 1, 1), 0, 1, 0))
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(1, 0, 0, 2, 1, 1), 0, 5, 5))
  end)

  it("separated: touching only at an edge while moving along it", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(1, 1, 0, 2, 2, 1), 0, 0, 1))
  end)

  it("zero-displacement axis with overlapping intervals: contact on the moving axis", function()
    assert.same({ "touching", 0.5 }, toi(a, 0, 0, 0, AABB(2, 0.5, 0, 3, 1.5, 1), -2, 0, 0))
  end)

  it("zero-displacement axis with disjoint intervals: separated", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(2, 2, 0, 3, 3, 1), -2, 0, 0))
  end)

  it("contact exactly at t = 1 is separated", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), -1, 0, 0))
  end)

  it("contact just before t = 1 is touching", function()
    local r = toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), -1.25, 0, 0)
    assert.same({ "touching", 0.8 }, r)
  end)

  it("the seed's t1_max > t2_min case (axes overlap at different times) is separated with t = 1", function()
    -- x interiors overlap for t in (0.25, 0.875), y only for t in (0.95, 2.25): never both
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(1.5, 2.9, 0, 1.75, 3.5, 1), -2, -2, 0))
  end)
end)

describe("seed 002: sphere, OBB, plane and closest-point tests", function()
  it("sphere/AABB near the max corner subtracts max (the seed's c + max is wrong)", function()
    local b = AABB(0, 0, 0, 1, 1, 1)
    assert.is_true(b:overlaps(Sphere(2, 2, 2, 1.7321)))
    assert.is_false(b:overlaps(Sphere(2, 2, 2, 1.732)))
    assert.is_true(Sphere(1.5, 0.5, 0.5, 0.5):overlaps(b))
    assert.is_false(Sphere(1.5, 0.5, 0.5, 0.499):overlaps(b))
  end)

  it("sphere/sphere is inclusive (the seed's < is <= here)", function()
    assert.is_true(Sphere(0, 0, 0, 1):overlaps(Sphere(0, 3, 4, 4)))
    assert.is_false(Sphere(0, 0, 0, 1):overlaps(Sphere(0, 3, 4, 3.999)))
  end)

  it("OBB change-of-basis containment: P' = B_axis . (P - C)", function()
    -- axes: u = (0.6, 0.8, 0), v = (-0.8, 0.6, 0), w = z; half sizes 5, 1, 1; centre (1, 1, 0)
    local o = OBB(1, 1, 0, 5, 1, 1, 0.6, 0.8, 0, -0.8, 0.6, 0, 0, 0, 1)
    assert.is_true(o:contains(1 + 2.94, 1 + 3.92, 0))          -- local (4.9, 0, 0)
    assert.is_true(o:contains(1 - 0.792, 1 + 0.594, 0.99))     -- local (0, 0.99, 0.99)
    assert.is_false(o:contains(1 + 3.3, 1 + 4.4, 0))  -- local (5.5, 0, 0)
    assert.is_false(o:contains(1 - 1.6, 1 + 1.2, 0))  -- local (0, 2, 0)
    assert.is_false(o:contains(1 + 4, 1 + 3, 0))      -- local (4.8, -1.4, 0)
  end)

  it("AABB/plane uses the diagonal most aligned with the normal", function()
    local b = AABB(0, 0, 0, 1, 1, 1)
    assert.equal(0, b:plane(1, -1, 1, -2))
    assert.equal(-1, b:plane(1, -1, 1, -2.01))
    assert.equal(0, b:plane(1, -1, 1, 1))
    assert.equal(1, b:plane(1, -1, 1, 1.01))
  end)

  it("OBB/plane method 2: r = sum h_i |N . b_i| against |C . N + d|", function()
    local o = OBB(1, 1, 0, 5, 1, 1, 0.6, 0.8, 0, -0.8, 0.6, 0, 0, 0, 1)
    -- N = (0.6, 0.8, 0): C.N = 1.4, r = 5
    assert.equal(0, o:plane(0.6, 0.8, 0, 3.5))
    assert.equal(1, o:plane(0.6, 0.8, 0, 3.7))
    assert.equal(-1, o:plane(0.6, 0.8, 0, -6.5))
    -- N = (0, 0, 1): C.N = 0, r = 1
    assert.equal(0, o:plane(0, 0, 1, -1))
    assert.equal(-1, o:plane(0, 0, 1, -1.5))
  end)

  it("closest point on a line uses P1 + (P2 - P1) * s (the seed's P1 - P1 is wrong)", function()
    check({ 2, 1, 0, 0.5 }, 0, collide.closestonsegment(2, 5, 0, 0, 1, 0, 4, 1, 0))
    check({ 3, 4, 0, 0.25 }, 1e-15, collide.closestonsegment(3, 4, 9, 0, 0, 0, 12, 16, 0))
  end)

  it("vector reflection V' = V - 2(N.V)N", function()
    check({ -3, 4, 0 }, 0, collide.reflect(3, 4, 0, 1, 0, 0))
  end)

  it("2D point inside-outside by the edge crossing test", function()
    local star = { 0, 3, 1, 1, 3, 1, 1.5, -0.5, 2.5, -3, 0, -1.5, -2.5, -3, -1.5, -0.5, -3, 1, -1, 1 }
    assert.is_true(collide.pointinpolygon(star, 0, 0))
    assert.is_true(collide.pointinpolygon(star, 0, 2))
    assert.is_false(collide.pointinpolygon(star, 2, 2))
    assert.is_false(collide.pointinpolygon(star, 0, -2.5))
  end)
end)
