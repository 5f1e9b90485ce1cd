-- Ray: construction (normalised direction), accessors, set, cast, plane.
local collide = require "collide"
local approx = require "support.approx"
local check, fails = approx.check, approx.fails

local AABB, Ray, OBB, Sphere = collide.AABB, collide.Ray, collide.OBB, collide.Sphere
local S, S3 = math.sqrt(0.5), math.sqrt(1 / 3)

describe("Ray construction and accessors", function()
  it("origin returns the origin given", function()
    check({ 1, 2, 3 }, 0, Ray(1, 2, 3, 0, 0, 5):origin())
  end)

  it("direction is normalised", function()
    check({ 0, 0, 1 }, 0, Ray(1, 2, 3, 0, 0, 5):direction())
    check({ -1, 0, 0 }, 0, Ray(0, 0, 0, -0.25, 0, 0):direction())
    check({ 0.6, 0.8, 0 }, 1e-15, Ray(0, 0, 0, 3, 4, 0):direction())
    check({ S3, S3, S3 }, 1e-15, Ray(-2, -2, -2, 2, 2, 2):direction())
    check({ -2 / 3, 1 / 3, 2 / 3 }, 1e-15, Ray(0, 0, 0, -2, 1, 2):direction())
  end)

  it("a huge direction is normalised without overflow", function()
    check({ S, S, 0 }, 1e-15, Ray(0, 0, 0, 1e300, 1e300, 0):direction())
    check({ S3, S3, S3 }, 1e-15, Ray(0, 0, 0, 1e308, 1e308, 1e308):direction())
  end)

  it("a tiny direction is normalised without underflow", function()
    check({ 1, 0, 0 }, 0, Ray(0, 0, 0, 1e-300, 0, 0):direction())
    check({ 0.6, 0.8, 0 }, 1e-15, Ray(0, 0, 0, 3e-310, 4e-310, 0):direction())
    check({ 0, -1, 0 }, 0, Ray(0, 0, 0, 0, -5e-324, 0):direction())
  end)

  it("a zero direction is an error", function()
    fails("bad argument #4 to 'Ray' (direction is zero)", Ray, 1, 2, 3, 0, 0, 0)
  end)

  it("non-finite origin or direction is an error", function()
    fails("number is not finite", Ray, 0 / 0, 0, 0, 1, 0, 0)
    fails("number is not finite", Ray, 0, 0, 0, math.huge, 0, 0)
  end)

  it("at(t) is origin + t * normalised direction", function()
    check({ 1, 2, 5.5 }, 0, Ray(1, 2, 3, 0, 0, 5):at(2.5))
    check({ 1, 2, 3 }, 0, Ray(1, 2, 3, 0, 0, 5):at(0))
    check({ 3, 4, 0 }, 1e-15, Ray(0, 0, 0, 3, 4, 0):at(5))
    check({ 1e308, 0, 0 }, 0, Ray(0, 0, 0, 1, 0, 0):at(1e308))
  end)
end)

describe("Ray:set", function()
  it("changes origin and direction in place and returns the same ray", function()
    local r = Ray(0, 0, 0, 1, 0, 0)
    local same = r:set(1, 1, 1, 0, -3, 0)
    assert.is_true(rawequal(r, same))
    check({ 1, 1, 1 }, 0, r:origin())
    check({ 0, -1, 0 }, 0, r:direction())
  end)

  it("a zero direction raises and leaves the ray unchanged", function()
    local r = Ray(0, 0, 0, 1, 0, 0)
    fails("bad argument #5 to 'set' (direction is zero)", r.set, r, 9, 9, 9, 0, 0, 0)
    check({ 0, 0, 0 }, 0, r:origin())
    check({ 1, 0, 0 }, 0, r:direction())
  end)

  it("a NaN raises and leaves the ray unchanged", function()
    local r = Ray(0, 0, 0, 1, 0, 0)
    fails("number is not finite", r.set, r, 9, 9, 9, 0, 0 / 0, 1)
    check({ 0, 0, 0 }, 0, r:origin())
    check({ 1, 0, 0 }, 0, r:direction())
  end)
end)

describe("Ray:cast", function()
  local r = Ray(-1, 0.5, 0.5, 1, 0, 0)

  it("cast on an AABB equals AABB:raycast", function()
    check({ 1, -1, 0, 0 }, 0, r:cast(AABB(0, 0, 0, 1, 1, 1)))
    assert.is_nil(r:cast(AABB(0, 0, 0, 1, 1, 1), 0.5))
    check({ 1, -1, 0, 0 }, 0, r:cast(AABB(0, 0, 0, 1, 1, 1), 1))
  end)

  it("cast on an OBB equals OBB:raycast", function()
    check({ 1, -1, 0, 0 }, 0, r:cast(OBB(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)))
    assert.is_nil(r:cast(OBB(0.5, 0.5, 0.5, 0.5, 0.5, 0.5), 0.99))
  end)

  it("cast on a Sphere equals Sphere:raycast", function()
    check({ 2, -1, 0, 0 }, 0, r:cast(Sphere(2, 0.5, 0.5, 1)))
    assert.is_nil(r:cast(Sphere(2, 0.5, 0.5, 1), 1.5))
  end)

  it("cast accepts math.huge and rejects a negative maxt", function()
    check({ 1, -1, 0, 0 }, 0, r:cast(AABB(0, 0, 0, 1, 1, 1), math.huge))
    fails("bad argument #3 to 'cast' (limit is negative)", r.cast, r, AABB(0, 0, 0, 1, 1, 1), -1)
  end)

  it("cast from inside gives 0, 0,0,0", function()
    check({ 0, 0, 0, 0 }, 0, Ray(0, 0, 0, 1, 0, 0):cast(Sphere(0, 0, 0, 1)))
  end)

  it("cast rejects a non-shape", function()
    fails("bad argument #2 to 'cast' (collide.AABB, collide.OBB, collide.Sphere or collide.Capsule expected, got collide.Ray)",
      r.cast, r, Ray(0, 0, 0, 1, 0, 0))
  end)
end)

describe("Ray:plane", function()
  it("returns the distance to a plane in front", function()
    assert.equal(5, Ray(0, 0, 0, 1, 0, 0):plane(1, 0, 0, -5))
    assert.equal(9, Ray(0, 10, 0, 0, -1, 0):plane(0, 1, 0, -1))
  end)

  it("a non-unit normal gives the same distance", function()
    assert.equal(5, Ray(0, 0, 0, 1, 0, 0):plane(2, 0, 0, -10))
    assert.equal(5, Ray(0, 0, 0, 1, 0, 0):plane(-4, 0, 0, 20))
  end)

  it("an oblique ray: t is a distance along the normalised direction", function()
    assert.is_true(approx.equal(math.sqrt(2), Ray(0, 0, 0, 1, 1, 0):plane(0, 1, 0, -1), 1e-15))
  end)

  it("a plane behind the origin gives nil", function()
    assert.is_nil(Ray(0, 0, 0, 1, 0, 0):plane(1, 0, 0, 5))
  end)

  it("a parallel ray off the plane gives nil", function()
    assert.is_nil(Ray(0, 0, 0, 0, 1, 0):plane(1, 0, 0, -5))
  end)

  it("origin on the plane gives 0, also when moving away or parallel", function()
    assert.equal(0, Ray(5, 0, 0, 1, 0, 0):plane(1, 0, 0, -5))
    assert.equal(0, Ray(5, 0, 0, -1, 0, 0):plane(1, 0, 0, -5))
    assert.equal(0, Ray(5, 0, 0, 0, 1, 0):plane(1, 0, 0, -5))
  end)
end)

describe("Ray __tostring and __eq", function()
  it("tostring shows origin and normalised direction", function()
    assert.equal("Ray(1, 2, 3, 0, 0, 1)", tostring(Ray(1, 2, 3, 0, 0, 5)))
    assert.equal("Ray(0, 0, 0, 0.6, 0.8, 0)", tostring(Ray(0, 0, 0, 3, 4, 0)))
    assert.equal("Ray(-2, -2, -2, 0.57735026918963, 0.57735026918963, 0.57735026918963)",
      tostring(Ray(-2, -2, -2, 2, 2, 2)))
  end)

  it("== compares origin and stored (normalised) direction", function()
    assert.is_true(Ray(0, 0, 0, 1, 0, 0) == Ray(0, 0, 0, 2, 0, 0))
    assert.is_false(Ray(0, 0, 0, 1, 0, 0) == Ray(0, 0, 0, 0, 1, 0))
    assert.is_false(Ray(0, 0, 0, 1, 0, 0) == Ray(1, 0, 0, 1, 0, 0))
  end)

  it("== with other types is false", function()
    assert.is_false(Ray(0, 0, 0, 1, 0, 0) == AABB(0, 0, 0, 1, 0, 0))
    assert.is_false(Ray(0, 0, 0, 1, 0, 0) == "Ray(0, 0, 0, 1, 0, 0)")
  end)
end)
