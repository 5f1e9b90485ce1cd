-- AABB: constructor, accessors, mutation, queries. Expected values worked out by hand.
local collide = require "collide"
local approx = require "support.approx"
local check, fails = approx.check, approx.fails

local AABB, Ray, OBB, Sphere = collide.AABB, collide.Ray, collide.OBB, collide.Sphere
local S = math.sqrt(0.5)

local function unit() return AABB(0, 0, 0, 1, 1, 1) end

describe("AABB construction and accessors", function()
  it("bounds returns the six numbers given", function()
    check({ 1, 2, 3, 4, 6, 8 }, 0, AABB(1, 2, 3, 4, 6, 8):bounds())
  end)

  it("center is the midpoint of each axis", function()
    check({ 2.5, 4, 5.5 }, 0, AABB(1, 2, 3, 4, 6, 8):center())
  end)

  it("extents are the half sizes of each axis", function()
    check({ 1.5, 2, 2.5 }, 0, AABB(1, 2, 3, 4, 6, 8):extents())
  end)

  it("a flat box (min == max on an axis) is allowed and has zero extent there", function()
    local b = AABB(1, 1, 1, 1, 2, 3)
    check({ 1, 1, 1, 1, 2, 3 }, 0, b:bounds())
    check({ 0, 0.5, 1 }, 0, b:extents())
  end)

  it("accepts numeric strings like luaL_checknumber", function()
    check({ 1, 2, 3, 4, 5, 6 }, 0, AABB("1", "2", "3", "4", "5", "6"):bounds())
  end)

  it("rejects a max below its min, naming the max argument", function()
    fails("bad argument #4 to 'AABB' (max x is less than min x)", AABB, 0, 0, 0, -1, 1, 1)
    fails("bad argument #5 to 'AABB' (max y is less than min y)", AABB, 0, 0, 0, 1, -1, 1)
    fails("bad argument #6 to 'AABB' (max z is less than min z)", AABB, 0, 0, 0, 1, 1, -1)
  end)

  it("rejects NaN and infinite coordinates", function()
    fails("number is not finite", AABB, 0 / 0, 0, 0, 1, 1, 1)
    fails("number is not finite", AABB, 0, 0, 0, math.huge, 1, 1)
    fails("number is not finite", AABB, -math.huge, 0, 0, 1, 1, 1)
  end)

  it("aabb() returns an equal copy, not the same userdata", function()
    local b = AABB(1, 2, 3, 4, 5, 6)
    local c = b:aabb()
    assert.is_false(rawequal(b, c))
    assert.is_true(b == c)
    c:translate(1, 0, 0)
    check({ 1, 2, 3, 4, 5, 6 }, 0, b:bounds())
  end)
end)

describe("AABB:set and AABB:translate", function()
  it("set changes the box in place and returns the same box", function()
    local b = unit()
    local r = b:set(-1, -2, -3, 4, 5, 6)
    assert.is_true(rawequal(b, r))
    check({ -1, -2, -3, 4, 5, 6 }, 0, b:bounds())
  end)

  it("set with a max below its min raises and leaves the box unchanged", function()
    local b = unit()
    fails("bad argument #5 to 'set' (max x is less than min x)", b.set, b, 5, 0, 0, 4, 1, 1)
    check({ 0, 0, 0, 1, 1, 1 }, 0, b:bounds())
  end)

  it("set with a NaN raises and leaves the box unchanged", function()
    local b = unit()
    fails("number is not finite", b.set, b, 0, 0, 0, 2, 2, 0 / 0)
    check({ 0, 0, 0, 1, 1, 1 }, 0, b:bounds())
  end)

  it("translate moves both corners in place and returns the same box", function()
    local b = AABB(0, 1, 2, 3, 4, 5)
    local r = b:translate(1, -2, 0.5)
    assert.is_true(rawequal(b, r))
    check({ 1, -1, 2.5, 4, 2, 5.5 }, 0, b:bounds())
  end)

  it("translate whose result overflows raises and changes nothing", function()
    local b = AABB(0, 0, 0, 1e308, 1, 1)
    fails("result is not finite", b.translate, b, 1e308, 0, 0)
    check({ 0, 0, 0, 1e308, 1, 1 }, 0, b:bounds())
  end)

  it("translate with an infinite displacement raises and changes nothing", function()
    local b = unit()
    fails("number is not finite", b.translate, b, 0, math.huge, 0)
    check({ 0, 0, 0, 1, 1, 1 }, 0, b:bounds())
  end)
end)

describe("AABB:contains", function()
  local b = unit()

  it("contains an interior point", function()
    assert.is_true(b:contains(0.5, 0.25, 0.75))
  end)

  it("contains points on faces, edges and corners (inclusive)", function()
    assert.is_true(b:contains(1, 0.5, 0.5))
    assert.is_true(b:contains(0, 0.5, 0))
    assert.is_true(b:contains(0, 0, 0))
    assert.is_true(b:contains(1, 1, 1))
  end)

  it("does not contain a point one ulp outside a face", function()
    assert.is_false(b:contains(1 + 2 ^ -52, 0.5, 0.5))
    assert.is_false(b:contains(0.5, -1e-300, 0.5))
  end)

  it("does not contain far points", function()
    assert.is_false(b:contains(2, 0.5, 0.5))
    assert.is_false(b:contains(-5, -5, -5))
  end)

  it("a flat box contains points in its plane only", function()
    local f = AABB(0, 0, 0, 1, 1, 0)
    assert.is_true(f:contains(0.5, 0.5, 0))
    assert.is_false(f:contains(0.5, 0.5, 1e-300))
  end)

  it("a point box contains exactly its point", function()
    local p = AABB(2, 3, 4, 2, 3, 4)
    assert.is_true(p:contains(2, 3, 4))
    assert.is_false(p:contains(2, 3, 4 + 2 ^ -50))
  end)
end)

describe("AABB:overlaps", function()
  local a = unit()

  it("AABB-AABB: overlapping, contained and identical boxes overlap", function()
    assert.is_true(a:overlaps(AABB(0.5, 0.5, 0.5, 2, 2, 2)))
    assert.is_true(a:overlaps(AABB(0.25, 0.25, 0.25, 0.5, 0.5, 0.5)))
    assert.is_true(a:overlaps(unit()))
  end)

  it("AABB-AABB: touching at a face, an edge or a corner counts", function()
    assert.is_true(a:overlaps(AABB(1, 0, 0, 2, 1, 1)))
    assert.is_true(a:overlaps(AABB(1, 1, 0, 2, 2, 1)))
    assert.is_true(a:overlaps(AABB(1, 1, 1, 2, 2, 2)))
    assert.is_true(AABB(-1, -1, -1, 0, 0, 0):overlaps(a))
  end)

  it("AABB-AABB: a gap on any one axis separates", function()
    assert.is_false(a:overlaps(AABB(1 + 2 ^ -52, 0, 0, 2, 1, 1)))
    assert.is_false(a:overlaps(AABB(0, 1.5, 0, 1, 2, 1)))
    assert.is_false(a:overlaps(AABB(0, 0, -2, 1, 1, -0.5)))
  end)

  it("AABB-OBB: an axis-aligned OBB touching a face overlaps, one with a gap does not", function()
    assert.is_true(a:overlaps(OBB(2, 0.5, 0.5, 1, 0.5, 0.5)))
    assert.is_false(a:overlaps(OBB(2 + 2 ^ -40, 0.5, 0.5, 1, 0.5, 0.5)))
  end)

  it("AABB-OBB: a 45-degree OBB reaches sqrt(2)/2 along x", function()
    -- unit cube rotated 45 degrees about z: reaches 0.5*sqrt(2) ~ 0.7071 from its centre along x
    assert.is_true(a:overlaps(OBB(1.7, 0.5, 0.5, 0.5, 0.5, 0.5, S, S, 0, -S, S, 0, 0, 0, 1)))
    assert.is_false(a:overlaps(OBB(1.72, 0.5, 0.5, 0.5, 0.5, 0.5, S, S, 0, -S, S, 0, 0, 0, 1)))
  end)

  it("OBB-AABB and Sphere-AABB touching at a face count from the other side too", function()
    assert.is_true(OBB(2, 0.5, 0.5, 1, 0.5, 0.5):overlaps(a))
    -- u = world y with half size 1: spans y in [1, 3] (touching) or [1.5, 3.5] (apart)
    assert.is_true(OBB(0.5, 2, 0.5, 1, 0.5, 0.5, 0, 1, 0, -1, 0, 0, 0, 0, 1):overlaps(a))
    assert.is_false(OBB(0.5, 2.5, 0.5, 1, 0.5, 0.5, 0, 1, 0, -1, 0, 0, 0, 0, 1):overlaps(a))
    assert.is_true(Sphere(0.5, 0.5, -1, 1):overlaps(a))
  end)

  it("AABB-Sphere: a sphere touching a face or an edge overlaps", function()
    assert.is_true(a:overlaps(Sphere(2, 0.5, 0.5, 1)))
    assert.is_true(a:overlaps(Sphere(2, 1, 1, 1)))
    assert.is_true(a:overlaps(Sphere(0.5, 0.5, 0.5, 0)))
  end)

  it("AABB-Sphere: a sphere just short of a face does not overlap", function()
    assert.is_false(a:overlaps(Sphere(2 + 1e-9, 0.5, 0.5, 1)))
  end)

  it("AABB-Sphere: near the max corner uses c - max (seed 002's plus sign corrected)", function()
    -- corner (1,1,1) is sqrt(3) ~ 1.7320508 from (2,2,2)
    assert.is_true(a:overlaps(Sphere(2, 2, 2, 1.7321)))
    assert.is_false(a:overlaps(Sphere(2, 2, 2, 1.732)))
  end)

  it("overlaps is symmetric for every pair involving an AABB", function()
    local o = OBB(1.7, 0.5, 0.5, 0.5, 0.5, 0.5, S, S, 0, -S, S, 0, 0, 0, 1)
    local s = Sphere(2, 2, 2, 1.7321)
    assert.is_true(o:overlaps(a))
    assert.is_true(s:overlaps(a))
    assert.is_false(Sphere(2, 2, 2, 1.732):overlaps(a))
    assert.is_true(AABB(1, 0, 0, 2, 1, 1):overlaps(a))
  end)

  it("rejects a non-shape argument with a typed message", function()
    fails("bad argument #2 to 'overlaps' (collide.AABB, collide.OBB, collide.Sphere or collide.Capsule expected, got table)",
      a.overlaps, a, {})
    fails("bad argument #2 to 'overlaps' (collide.AABB, collide.OBB, collide.Sphere or collide.Capsule expected, got collide.Ray)",
      a.overlaps, a, Ray(0, 0, 0, 1, 0, 0))
  end)
end)

describe("AABB:raycast", function()
  local b = unit()

  it("hits each of the six faces with the outward normal of that face", function()
    check({ 1, -1, 0, 0 }, 0, b:raycast(Ray(-1, 0.5, 0.5, 1, 0, 0)))
    check({ 1, 1, 0, 0 }, 0, b:raycast(Ray(2, 0.5, 0.5, -1, 0, 0)))
    check({ 1, 0, -1, 0 }, 0, b:raycast(Ray(0.5, -1, 0.5, 0, 1, 0)))
    check({ 1, 0, 1, 0 }, 0, b:raycast(Ray(0.5, 2, 0.5, 0, -1, 0)))
    check({ 1, 0, 0, -1 }, 0, b:raycast(Ray(0.5, 0.5, -1, 0, 0, 1)))
    check({ 1, 0, 0, 1 }, 0, b:raycast(Ray(0.5, 0.5, 2, 0, 0, -1)))
  end)

  it("t is a distance: a non-unit direction gives the same t", function()
    check({ 3, -1, 0, 0 }, 0, b:raycast(Ray(-3, 0.5, 0.5, 7, 0, 0)))
  end)

  it("an oblique ray reports the face it enters last", function()
    -- (-1, 0.5, 0.25) + s*(4, 1, 0) crosses x = 0 at s = 0.25 (y = 0.75): distance 0.25*sqrt(17)
    check({ 0.25 * math.sqrt(17), -1, 0, 0 }, 1e-12, b:raycast(Ray(-1, 0.5, 0.25, 4, 1, 0)))
  end)

  it("origin inside gives 0 with a zero normal", function()
    check({ 0, 0, 0, 0 }, 0, b:raycast(Ray(0.5, 0.5, 0.5, 1, 0, 0)))
  end)

  it("origin on the surface gives 0 even when pointing away", function()
    check({ 0, 0, 0, 0 }, 0, b:raycast(Ray(0, 0.5, 0.5, -1, 0, 0)))
    check({ 0, 0, 0, 0 }, 0, b:raycast(Ray(1, 1, 1, 1, 1, 1)))
  end)

  it("a ray travelling in the plane of a face hits (inclusive parallel slab)", function()
    check({ 1, -1, 0, 0 }, 0, b:raycast(Ray(-1, 0, 0.5, 1, 0, 0)))
    check({ 1, -1, 0, 0 }, 0, b:raycast(Ray(-1, 1, 0.5, 1, 0, 0)))
  end)

  it("a ray travelling along an edge hits", function()
    check({ 1, -1, 0, 0 }, 0, b:raycast(Ray(-1, 0, 0, 1, 0, 0)))
    check({ 2, 0, 0, 1 }, 0, b:raycast(Ray(1, 1, 3, 0, 0, -1)))
  end)

  it("a parallel ray just outside a face misses", function()
    assert.is_nil(b:raycast(Ray(-1, 1 + 2 ^ -52, 0.5, 1, 0, 0)))
    assert.is_nil(b:raycast(Ray(-1, -1e-300, 0.5, 1, 0, 0)))
  end)

  it("origin on a slab plane with zero direction on that axis gives no NaN", function()
    check({ 1, 0, -1, 0 }, 0, b:raycast(Ray(0, -1, 0.5, 0, 1, 0)))
    check({ 1, 0, -1, 0 }, 0, b:raycast(Ray(1, -1, 0.5, 0, 1, 0)))
  end)

  it("origin on a slab plane with a diagonal direction grazes an edge (entry == exit) and hits", function()
    -- x from 0 (on plane x=0), y from -1: enters y=0 at sqrt(2) exactly where x leaves at x=1
    check({ math.sqrt(2), 0, -1, 0 }, 1e-12, b:raycast(Ray(0, -1, 0.5, 1, 1, 0)))
  end)

  it("origin on a slab plane moving away from the box misses", function()
    assert.is_nil(b:raycast(Ray(0, -1, 0.5, -1, 1, 0)))
  end)

  it("grazing an edge from outside (entry == exit) is a hit", function()
    check({ math.sqrt(2), -1, 0, 0 }, 1e-12, b:raycast(Ray(-1, 0, 0.5, 1, 1, 0)))
  end)

  it("ties at a corner pick the lowest axis: x, then y, then z", function()
    check({ math.sqrt(3), -1, 0, 0 }, 1e-12, b:raycast(Ray(-1, -1, -1, 1, 1, 1)))
    check({ math.sqrt(3), 1, 0, 0 }, 1e-12, b:raycast(Ray(2, 2, -1, -1, -1, 1)))
    check({ math.sqrt(2), 0, -1, 0 }, 1e-12, b:raycast(Ray(0.5, -1, -1, 0, 1, 1)))
    check({ math.sqrt(2), -1, 0, 0 }, 1e-12, b:raycast(Ray(-1, 0.5, -1, 1, 0, 1)))
  end)

  it("a flat box is hit on either side and edge-on", function()
    local f = AABB(0, 0, 0, 1, 1, 0)
    check({ 5, 0, 0, 1 }, 0, f:raycast(Ray(0.5, 0.5, 5, 0, 0, -1)))
    check({ 5, 0, 0, -1 }, 0, f:raycast(Ray(0.5, 0.5, -5, 0, 0, 1)))
    check({ 1, -1, 0, 0 }, 0, f:raycast(Ray(-1, 0.5, 0, 1, 0, 0)))
    assert.is_nil(f:raycast(Ray(-1, 0.5, 1e-300, 1, 0, 0)))
  end)

  it("misses when the box is behind the ray", function()
    assert.is_nil(b:raycast(Ray(-1, 0.5, 0.5, -1, 0, 0)))
    assert.is_nil(b:raycast(Ray(3, 3, 3, 1, 1, 1)))
  end)

  it("misses when the line passes beside the box", function()
    assert.is_nil(b:raycast(Ray(-1, 2, 0.5, 1, 0, 0)))
    assert.is_nil(b:raycast(Ray(-1, -1, 0.5, 1, 3, 0)))
  end)

  it("maxt: t == maxt is a hit, t > maxt a miss", function()
    local r = Ray(-1, 0.5, 0.5, 1, 0, 0)
    check({ 1, -1, 0, 0 }, 0, b:raycast(r, 1))
    assert.is_nil(b:raycast(r, 0.5))
    assert.is_nil(b:raycast(r, 1 - 2 ^ -52))
  end)

  it("maxt may be math.huge; default is unlimited", function()
    check({ 1, -1, 0, 0 }, 0, b:raycast(Ray(-1, 0.5, 0.5, 1, 0, 0), math.huge))
    check({ 1e300, -1, 0, 0 }, 0, b:raycast(Ray(-1e300, 0.5, 0.5, 1, 0, 0)))
  end)

  it("an explicit nil maxt or maxfraction means the default", function()
    check({ 1, -1, 0, 0 }, 0, b:raycast(Ray(-1, 0.5, 0.5, 1, 0, 0), nil))
    check({ 0.25, -1, 0, 0 }, 0, b:segment(-1, 0.5, 0.5, 3, 0.5, 0.5, nil))
    assert.is_nil(b:segment(-2, 0.5, 0.5, -1, 0.5, 0.5, nil))
  end)

  it("maxt 0: origin inside hits at 0, origin outside misses", function()
    check({ 0, 0, 0, 0 }, 0, b:raycast(Ray(0.5, 0.5, 0.5, 1, 0, 0), 0))
    assert.is_nil(b:raycast(Ray(-1, 0.5, 0.5, 1, 0, 0), 0))
  end)

  it("rejects a negative or NaN maxt", function()
    local r = Ray(-1, 0.5, 0.5, 1, 0, 0)
    fails("bad argument #3 to 'raycast' (limit is negative)", b.raycast, b, r, -1)
    fails("bad argument #3 to 'raycast' (limit is NaN)", b.raycast, b, r, 0 / 0)
  end)

  it("rejects a non-ray argument", function()
    fails("bad argument #2 to 'raycast' (collide.Ray expected, got collide.AABB)", b.raycast, b, unit())
  end)
end)

describe("AABB:clip", function()
  local b = unit()

  it("returns entry and exit of the whole line", function()
    check({ 1, 2 }, 0, b:clip(Ray(-1, 0.5, 0.5, 1, 0, 0)))
  end)

  it("tenter is negative when the origin is inside", function()
    check({ -0.5, 0.5 }, 0, b:clip(Ray(0.5, 0.5, 0.5, 1, 0, 0)))
  end)

  it("texit == 0 (origin on the far face) is still returned", function()
    check({ -1, 0 }, 0, b:clip(Ray(1, 0.5, 0.5, 1, 0, 0)))
  end)

  it("nil when the line misses", function()
    assert.is_nil(b:clip(Ray(-1, 2, 0.5, 1, 0, 0)))
  end)

  it("nil when the box is wholly behind (texit < 0)", function()
    assert.is_nil(b:clip(Ray(2, 0.5, 0.5, 1, 0, 0)))
  end)

  it("a diagonal line: entry and exit distances", function()
    check({ math.sqrt(3), 2 * math.sqrt(3) }, 1e-12, b:clip(Ray(-1, -1, -1, 1, 1, 1)))
  end)
end)

describe("AABB:segment (seed 000)", function()
  local b = unit()

  it("returns the entry fraction and the face normal", function()
    check({ 0.25, -1, 0, 0 }, 0, b:segment(-1, 0.5, 0.5, 3, 0.5, 0.5))
    check({ 0.5, 1, 0, 0 }, 0, b:segment(3, 0.5, 0.5, -1, 0.5, 0.5))
    check({ 0.5, 0, 1, 0 }, 0, b:segment(0.5, 3, 0.5, 0.5, -1, 0.5))
    check({ 0.75, 0, 0, -1 }, 0, b:segment(0.5, 0.5, -3, 0.5, 0.5, 1))
  end)

  it("the remaining faces: -y and +z", function()
    check({ 0.25, 0, -1, 0 }, 0, b:segment(0.5, -1, 0.5, 0.5, 3, 0.5))
    check({ 0.5, 0, 0, 1 }, 0, b:segment(0.5, 0.5, 3, 0.5, 0.5, -1))
  end)

  it("a segment ending exactly on the face hits at fraction 1", function()
    check({ 1, -1, 0, 0 }, 0, b:segment(-1, 0.5, 0.5, 0, 0.5, 0.5))
  end)

  it("a segment ending before the box misses", function()
    assert.is_nil(b:segment(-2, 0.5, 0.5, -1, 0.5, 0.5))
  end)

  it("maxfraction limits the fraction, inclusive", function()
    check({ 0.25, -1, 0, 0 }, 0, b:segment(-1, 0.5, 0.5, 3, 0.5, 0.5, 0.25))
    assert.is_nil(b:segment(-1, 0.5, 0.5, 3, 0.5, 0.5, 0.2))
  end)

  it("maxfraction above 1 extends the segment beyond p2", function()
    check({ 2, -1, 0, 0 }, 0, b:segment(-2, 0.5, 0.5, -1, 0.5, 0.5, 2))
    check({ 2, -1, 0, 0 }, 0, b:segment(-2, 0.5, 0.5, -1, 0.5, 0.5, math.huge))
  end)

  it("start inside gives 0 with a zero normal", function()
    check({ 0, 0, 0, 0 }, 0, b:segment(0.5, 0.5, 0.5, 3, 0.5, 0.5))
  end)

  it("a zero-length segment inside or on the surface gives 0, 0,0,0", function()
    check({ 0, 0, 0, 0 }, 0, b:segment(0.5, 0.5, 0.5, 0.5, 0.5, 0.5))
    check({ 0, 0, 0, 0 }, 0, b:segment(1, 1, 1, 1, 1, 1))
  end)

  it("a zero-length segment outside misses", function()
    assert.is_nil(b:segment(2, 2, 2, 2, 2, 2))
  end)

  it("a parallel segment outside the slab misses", function()
    assert.is_nil(b:segment(-1, 2, 0.5, 3, 2, 0.5))
  end)

  it("rejects a negative maxfraction", function()
    fails("bad argument #8 to 'segment' (limit is negative)", b.segment, b, 0, 0, 0, 1, 1, 1, -0.5)
  end)
end)

describe("AABB:closest", function()
  local b = unit()

  it("a point inside is its own closest point", function()
    check({ 0.25, 0.5, 0.75 }, 0, b:closest(0.25, 0.5, 0.75))
  end)

  it("a point outside is clamped onto the box", function()
    check({ 1, 0, 0.5 }, 0, b:closest(2, -1, 0.5))
    check({ 0, 1, 1 }, 0, b:closest(-5, 5, 5))
  end)
end)

describe("AABB:plane", function()
  local b = unit()

  it("1 when wholly in front, -1 when wholly behind, 0 when crossing", function()
    assert.equal(1, b:plane(1, 0, 0, 1))
    assert.equal(-1, b:plane(1, 0, 0, -2))
    assert.equal(0, b:plane(1, 0, 0, -0.5))
  end)

  it("touching a face is 0 on either side", function()
    assert.equal(0, b:plane(1, 0, 0, 0))
    assert.equal(0, b:plane(1, 0, 0, -1))
  end)

  it("uses the diagonal most aligned with the normal (corner touching is 0)", function()
    assert.equal(0, b:plane(1, 1, 1, -3))
    assert.equal(-1, b:plane(1, 1, 1, -3.5))
    assert.equal(1, b:plane(1, 1, 1, 0.5))
    assert.equal(0, b:plane(-1, -1, -1, 3))
    assert.equal(0, b:plane(1, -1, 0, 0))
    assert.equal(1, b:plane(1, -1, 0, 1.5))
  end)

  it("works with a non-unit normal", function()
    assert.equal(0, b:plane(2, 0, 0, -1))
    assert.equal(1, b:plane(0, 0, 4, 5))
    assert.equal(0, b:plane(0, 0, 4, -4))
    assert.equal(-1, b:plane(0, 0, 4, -4.0000001))
  end)

  it("a zero normal gives the sign of d", function()
    assert.equal(1, b:plane(0, 0, 0, 1))
    assert.equal(-1, b:plane(0, 0, 0, -1))
    assert.equal(0, b:plane(0, 0, 0, 0))
  end)
end)

describe("AABB:merge", function()
  it("returns a new box enclosing both, leaving both unchanged", function()
    local a, c = unit(), AABB(2, -1, 0.5, 3, 0.5, 4)
    local m = a:merge(c)
    assert.is_false(rawequal(m, a))
    assert.equal("AABB", collide.type(m))
    check({ 0, -1, 0, 3, 1, 4 }, 0, m:bounds())
    check({ 0, 0, 0, 1, 1, 1 }, 0, a:bounds())
    check({ 2, -1, 0.5, 3, 0.5, 4 }, 0, c:bounds())
  end)

  it("merging with a contained box gives the outer box", function()
    check({ 0, 0, 0, 1, 1, 1 }, 0, unit():merge(AABB(0.2, 0.2, 0.2, 0.3, 0.3, 0.3)):bounds())
  end)

  it("merges with a sphere's bounding box", function()
    check({ 0, 0, 0, 6, 6, 6 }, 0, unit():merge(Sphere(5, 5, 5, 1)):bounds())
  end)

  it("merges with an OBB's tight bounding box", function()
    local o = OBB(3, 0, 0, 1, 1, 1, S, S, 0, -S, S, 0, 0, 0, 1)
    local r2 = math.sqrt(2)
    check({ 0, -r2, -1, 3 + r2, r2, 1 }, 1e-12, unit():merge(o):bounds())
  end)
end)

describe("AABB __tostring and __eq", function()
  it("tostring uses %.14g numbers joined by ', '", function()
    assert.equal("AABB(0.5, 0.5, 0.5, 2, 2, 2)", tostring(AABB(0.5, 0.5, 0.5, 2, 2, 2)))
    assert.equal("AABB(-1.25, 0, 1e+300, 3, 0.1, 1e+301)", tostring(AABB(-1.25, 0, 1e300, 3, 0.1, 1e301)))
    assert.equal("AABB(0, 0, 0, 0.33333333333333, 0.66666666666667, 1)", tostring(AABB(0, 0, 0, 1 / 3, 2 / 3, 1)))
  end)

  it("== compares every bound", function()
    assert.is_true(unit() == AABB(0, 0, 0, 1, 1, 1))
    assert.is_false(unit() == AABB(0, 0, 0, 1, 1, 2))
    assert.is_true(unit() ~= AABB(-1, 0, 0, 1, 1, 1))
  end)

  it("== treats -0 and 0 as equal (fields compared with ==)", function()
    assert.is_true(AABB(-0.0, 0, 0, 1, 1, 1) == unit())
  end)

  it("== with other types is false, never an error", function()
    assert.is_false(unit() == OBB(0.5, 0.5, 0.5, 0.5, 0.5, 0.5))
    assert.is_false(unit() == Sphere(0, 0, 0, 1))
    assert.is_false(unit() == Ray(0, 0, 0, 1, 0, 0))
    assert.is_false(unit() == {})
    assert.is_false(unit() == 1)
  end)
end)

describe("AABB with huge and tiny coordinates", function()
  it("center and extents of a +-1e300 box are exact", function()
    local b = AABB(-1e300, -1e300, -1e300, 1e300, 1e300, 1e300)
    check({ 0, 0, 0 }, 0, b:center())
    check({ 1e300, 1e300, 1e300 }, 0, b:extents())
  end)

  it("center and extents near the largest double do not overflow", function()
    local b = AABB(1e308, -1e308, 0, 1.5e308, 1e308, 1)
    check({ 1.25e308, 0, 0.5 }, 1e-15, b:center())
    check({ 0.25e308, 1e308, 0.5 }, 1e-15, b:extents())
  end)

  it("raycast at 1e300 scale hits at the right distance", function()
    local b = AABB(1e300, 1e300, 1e300, 2e300, 2e300, 2e300)
    check({ 1e300, -1, 0, 0 }, 1e-15, b:raycast(Ray(0, 1.5e300, 1.5e300, 1, 0, 0)))
  end)

  it("a 1e-300 box is hit and clipped without NaN", function()
    local b = AABB(0, 0, 0, 1e-300, 1e-300, 1e-300)
    assert.is_true(b:contains(5e-301, 5e-301, 5e-301))
    check({ 1, -1, 0, 0 }, 0, b:raycast(Ray(-1, 5e-301, 5e-301, 1, 0, 0)))
    check({ 1, 1 }, 1e-15, b:clip(Ray(-1, 5e-301, 5e-301, 1, 0, 0)))
  end)

  it("a direction component of 1e-320 does not produce NaN", function()
    check({ 1, -1, 0, 0 }, 1e-15, unit():raycast(Ray(-1, 0.5, 0.5, 1, 1e-320, 0)))
  end)

  it("segment at 1e300 scale", function()
    check({ 0.5, -1, 0, 0 }, 0, unit():segment(-1e300, 0.5, 0.5, 1e300, 0.5, 0.5))
  end)

  it("segment whose p2 - p1 overflows still gives the right fraction", function()
    check({ 0.5, -1, 0, 0 }, 0, unit():segment(-1e308, 0.5, 0.5, 1e308, 0.5, 0.5))
  end)

  it("overlaps and plane at huge and tiny scale", function()
    local big = AABB(0, 0, 0, 1e300, 1e300, 1e300)
    assert.is_true(big:overlaps(AABB(1e300, 0, 0, 2e300, 1e300, 1e300)))
    assert.is_false(big:overlaps(AABB(1.5e300, 0, 0, 2e300, 1e300, 1e300)))
    assert.equal(0, AABB(-1e300, -1e300, -1e300, 1e300, 1e300, 1e300):plane(1, 1, 1, 0))
    assert.equal(-1, unit():plane(1, 0, 0, -1e300))
    assert.equal(1, AABB(1, 1, 1, 2, 2, 2):plane(1e-300, 0, 0, 0))
    assert.equal(0, AABB(1, 1, 1, 2, 2, 2):plane(2 ^ -1000, 0, 0, -2 ^ -1000))
  end)

  it("plane with a 1e300 normal and offset", function()
    -- 1e300*(x + y) - 2.5e300 <= 2e300 - 2.5e300 < 0 over the unit box
    assert.equal(-1, unit():plane(1e300, 1e300, 0, -2.5e300))
    assert.equal(1, unit():plane(-1e300, -1e300, 0, 2.5e300))
    assert.equal(0, unit():plane(1e300, 1e300, 0, -1.5e300))
  end)

  it("merge of far-apart huge boxes", function()
    check({ -1e308, 0, 0, 1e308, 1, 1 }, 0, AABB(-1e308, 0, 0, -1e307, 1, 1):merge(AABB(1e307, 0, 0, 1e308, 1, 1)):bounds())
  end)
end)

describe("AABB argument checking on queries", function()
  local b = unit()

  it("query coordinates must be finite numbers", function()
    fails("bad argument #2 to 'contains' (number is not finite)", b.contains, b, 0 / 0, 0, 0)
    fails("bad argument #3 to 'closest' (number is not finite)", b.closest, b, 0, math.huge, 0)
    fails("bad argument #5 to 'plane' (number is not finite)", b.plane, b, 1, 0, 0, -math.huge)
    fails("bad argument #4 to 'segment' (number is not finite)", b.segment, b, 0, 0, 0 / 0, 1, 1, 1)
  end)

  it("numeric strings are accepted for query coordinates", function()
    assert.is_true(b:contains("0.5", "0.5", "1"))
    check({ 1, 0, 0 }, 0, b:closest("3", "-1", "0"))
  end)

  it("a method called on the wrong type names the expected type", function()
    fails("bad argument #1 to 'bounds' (collide.AABB expected, got collide.Sphere)", b.bounds, Sphere(0, 0, 0, 1))
    fails("bad argument #1 to 'contains' (collide.AABB expected, got no value)", b.contains)
  end)

  it("merge rejects a non-shape", function()
    fails("bad argument #2 to 'merge' (collide.AABB, collide.OBB, collide.Sphere or collide.Capsule expected, got number)", b.merge, b, 5)
  end)
end)
