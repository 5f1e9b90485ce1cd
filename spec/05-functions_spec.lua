-- Free functions: toi, closestonsegment, reflect, pointinpolygon, type.
local collide = require "collide"
local approx = require "support.approx"
local check, fails = approx.check, approx.fails

local AABB, Ray, OBB, Sphere = collide.AABB, collide.Ray, collide.OBB, collide.Sphere
local S = math.sqrt(0.5)

local function toi(...)
  local state, t = collide.toi(...)
  return { state, t }
end

describe("collide.toi", function()
  local a = AABB(0, 0, 0, 1, 1, 1)

  it("returns a state string and a number", function()
    local state, t = collide.toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), -2, 0, 0)
    assert.equal("touching", state)
    assert.equal(0.5, t)
  end)

  it("uses the relative motion db - da: moving a, b or both gives the same time", function()
    local b = AABB(2, 0, 0, 3, 1, 1)
    assert.same({ "touching", 0.5 }, toi(a, 2, 0, 0, b, 0, 0, 0))
    assert.same({ "touching", 0.5 }, toi(a, 1, 0, 0, b, -1, 0, 0))
    assert.same({ "separated", 1 }, toi(a, 5, 0, 0, b, 5, 0, 0))
  end)

  it("arguments are not changed", function()
    local b = AABB(2, 0, 0, 3, 1, 1)
    collide.toi(a, 1, 0, 0, b, -1, 0, 0)
    check({ 0, 0, 0, 1, 1, 1 }, 0, a:bounds())
    check({ 2, 0, 0, 3, 1, 1 }, 0, b:bounds())
  end)

  it("a fast box tunnelling through is caught at its first contact", function()
    local r = toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), -10, 0, 0)
    assert.equal("touching", r[1])
    assert.is_true(approx.equal(0.1, r[2], 1e-15))
  end)

  it("diagonal approach: the later axis entry is the contact time", function()
    -- x interiors meet after t = 1/4, y after t = 1/2
    assert.same({ "touching", 0.5 }, toi(a, 0, 0, 0, AABB(1.5, 2, 0, 2.5, 3, 1), -2, -2, 0))
    -- y would need t > 1: no contact in this step
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(2, 2, 0, 3, 3, 1), -2, -1, 0))
  end)

  it("corner touching: moving diagonally into each other is touching at 0", function()
    assert.same({ "touching", 0 }, toi(a, 0, 0, 0, AABB(1, 1, 1, 2, 2, 2), -1, -1, -1))
  end)

  it("corner touching: moving on one axis only never opens the other axes", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(1, 1, 1, 2, 2, 2), -1, 0, 0))
  end)

  it("a 1e-300 relative displacement does not reach", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(2, 0, 0, 3, 1, 1), -1e-300, 0, 0))
  end)

  it("passing by along an edge (touching on the other axis) is separated", function()
    assert.same({ "separated", 1 }, toi(a, 0, 0, 0, AABB(2, 1, 0, 3, 2, 1), -4, 0, 0))
  end)

  it("2D use: boxes flat at the same z with no z motion collide like rectangles", function()
    local f = AABB(0, 0, 0, 1, 1, 0)
    assert.same({ "touching", 0.5 }, toi(f, 0, 0, 0, AABB(2, 0, 0, 3, 1, 0), -2, 0, 0))
    assert.same({ "overlapped", 0 }, toi(f, 0, 0, 0, AABB(0.5, 0.5, 0, 2, 2, 0), 0, 0, 0))
    assert.same({ "touching", 0 }, toi(f, 0, 0, 0, AABB(1, 0, 0, 2, 1, 0), -1, 0, 0))
    assert.same({ "separated", 1 }, toi(f, 0, 0, 0, AABB(1, 0, 0, 2, 1, 0), 0, 1, 0))
  end)

  it("2D use: flat boxes at different z never collide", function()
    assert.same({ "separated", 1 }, toi(AABB(0, 0, 0, 1, 1, 0), 0, 0, 0, AABB(0, 0, 1, 1, 1, 1), 0, 0, 0))
    assert.same({ "separated", 1 }, toi(AABB(0, 0, 0, 1, 1, 0), 0, 0, 0, AABB(2, 0, 1, 3, 1, 1), -2, 0, 0))
  end)

  it("works at 1e300 and 1e-300 scales", function()
    local big = AABB(0, 0, 0, 1e300, 1e300, 1e300)
    assert.same({ "touching", 0.5 }, toi(big, 0, 0, 0, AABB(2e300, 0, 0, 3e300, 1e300, 1e300), -2e300, 0, 0))
    local tiny = AABB(0, 0, 0, 1e-300, 1e-300, 1e-300)
    local r = toi(tiny, 0, 0, 0, AABB(2e-300, 0, 0, 3e-300, 1e-300, 1e-300), -2e-300, 0, 0)
    assert.equal("touching", r[1])
    assert.is_true(approx.equal(0.5, r[2], 1e-12))
  end)

  it("rejects non-AABB boxes and non-finite displacements", function()
    fails("bad argument #5 to 'toi' (collide.AABB expected, got collide.Sphere)",
      collide.toi, a, 0, 0, 0, Sphere(0, 0, 0, 1), 0, 0, 0)
    fails("bad argument #1 to 'toi' (collide.AABB expected, got nil)", collide.toi, nil, 0, 0, 0, a, 0, 0, 0)
    fails("number is not finite", collide.toi, a, 0, 0 / 0, 0, a, 0, 0, 0)
  end)
end)

describe("collide.closestonsegment", function()
  it("projects onto the interior of the segment", function()
    check({ 0.5, 0, 0, 0.5 }, 0, collide.closestonsegment(0.5, 1, 0, 0, 0, 0, 1, 0, 0))
    check({ 1, 1, 1, 0.5 }, 0, collide.closestonsegment(0, 3, 0, 0, 0, 0, 2, 2, 2))
    check({ 1.5, 0, 0, 0.75 }, 0, collide.closestonsegment(1.5, -7, 3, 0, 0, 0, 2, 0, 0))
  end)

  it("clamps to a before the start (s = 0)", function()
    check({ 0, 0, 0, 0 }, 0, collide.closestonsegment(-1, 1, 0, 0, 0, 0, 1, 0, 0))
  end)

  it("clamps to b past the end (s = 1)", function()
    check({ 1, 0, 0, 1 }, 0, collide.closestonsegment(3, -1, 0, 0, 0, 0, 1, 0, 0))
  end)

  it("a point exactly at an end gives that end", function()
    check({ 1, 0, 0, 1 }, 0, collide.closestonsegment(1, 0, 0, 0, 0, 0, 1, 0, 0))
    check({ 0, 0, 0, 0 }, 0, collide.closestonsegment(0, 0, 0, 0, 0, 0, 1, 0, 0))
  end)

  it("a zero-length segment gives a and s = 0", function()
    check({ 1, 2, 3, 0 }, 0, collide.closestonsegment(9, 9, 9, 1, 2, 3, 1, 2, 3))
  end)

  it("no overflow for a 2e300-long segment", function()
    check({ 1e300, 0, 0, 0.5 }, 1e-12, collide.closestonsegment(1e300, 5, 0, 0, 0, 0, 2e300, 0, 0))
  end)

  it("a 2e-300-long segment is not treated as zero length", function()
    check({ 1e-300, 0, 0, 0.5 }, 1e-12, collide.closestonsegment(1e-300, 1, 0, 0, 0, 0, 2e-300, 0, 0))
  end)
end)

describe("collide.reflect", function()
  it("default elasticity 1 mirrors the normal component", function()
    check({ 1, 1, 0 }, 0, collide.reflect(1, -1, 0, 0, 1, 0))
    check({ 1, 2, -3 }, 0, collide.reflect(1, 2, 3, 0, 0, 1))
  end)

  it("elasticity 0 removes the normal component", function()
    check({ 1, 0, 0 }, 0, collide.reflect(1, -1, 0, 0, 1, 0, 0))
  end)

  it("elasticity 0.5 keeps half of it, reversed", function()
    check({ 1, 0.5, 0 }, 0, collide.reflect(1, -1, 0, 0, 1, 0, 0.5))
  end)

  it("a vector along the surface is unchanged", function()
    check({ 3, 0, 0 }, 0, collide.reflect(3, 0, 0, 0, 1, 0))
  end)

  it("a diagonal unit normal", function()
    check({ 0, 1, 0 }, 1e-15, collide.reflect(-1, 0, 0, S, S, 0))
  end)

  it("the normal is used as given, not normalised", function()
    -- n.v = -2: v - 2*(-2)*(0,2,0) = (1, 7, 0)
    check({ 1, 7, 0 }, 0, collide.reflect(1, -1, 0, 0, 2, 0))
  end)

  it("rejects a non-finite elasticity", function()
    fails("number is not finite", collide.reflect, 1, 0, 0, 0, 1, 0, 0 / 0)
  end)
end)

describe("collide.pointinpolygon", function()
  local square = { 0, 0, 2, 0, 2, 2, 0, 2 }
  local c = { 0, 0, 3, 0, 3, 3, 2, 3, 2, 1, 1, 1, 1, 3, 0, 3 }

  it("square: inside and outside", function()
    assert.is_true(collide.pointinpolygon(square, 1, 1))
    assert.is_false(collide.pointinpolygon(square, 3, 1))
    assert.is_false(collide.pointinpolygon(square, -0.0001, 1))
    assert.is_false(collide.pointinpolygon(square, 1, 2.0001))
  end)

  it("points on an edge or a vertex count as inside", function()
    assert.is_true(collide.pointinpolygon(square, 2, 1))
    assert.is_true(collide.pointinpolygon(square, 1, 0))
    assert.is_true(collide.pointinpolygon(square, 1, 2))
    assert.is_true(collide.pointinpolygon(square, 0, 1))
    assert.is_true(collide.pointinpolygon(square, 0, 0))
    assert.is_true(collide.pointinpolygon(square, 2, 2))
  end)

  it("the winding direction does not matter", function()
    local cw = { 0, 2, 2, 2, 2, 0, 0, 0 }
    assert.is_true(collide.pointinpolygon(cw, 1, 1))
    assert.is_false(collide.pointinpolygon(cw, 3, 1))
    assert.is_true(collide.pointinpolygon(cw, 2, 1))
  end)

  it("concave C shape: the notch is outside, the arms inside", function()
    assert.is_false(collide.pointinpolygon(c, 1.5, 2))
    assert.is_true(collide.pointinpolygon(c, 0.5, 2))
    assert.is_true(collide.pointinpolygon(c, 2.5, 2))
    assert.is_true(collide.pointinpolygon(c, 1.5, 0.5))
    assert.is_false(collide.pointinpolygon(c, 1.5, 3.5))
  end)

  it("concave C shape: notch edges are inside, the notch opening is not", function()
    assert.is_true(collide.pointinpolygon(c, 1.5, 1))
    assert.is_true(collide.pointinpolygon(c, 1, 2))
    assert.is_true(collide.pointinpolygon(c, 2, 3))
    assert.is_false(collide.pointinpolygon(c, 1.5, 3))
  end)

  it("a horizontal line through vertices is not double counted", function()
    local tri = { 0, 0, 2, 1, 0, 2 }
    assert.is_true(collide.pointinpolygon(tri, 1, 1))
    assert.is_false(collide.pointinpolygon(tri, -1, 1))
    assert.is_false(collide.pointinpolygon(tri, 3, 1))
    local diamond = { 1, 0, 2, 1, 1, 2, 0, 1 }
    assert.is_true(collide.pointinpolygon(diamond, 1, 1))
    assert.is_false(collide.pointinpolygon(diamond, -0.5, 1))
    assert.is_false(collide.pointinpolygon(diamond, 2.5, 1))
    assert.is_true(collide.pointinpolygon(diamond, 1.5, 1.5))
    assert.is_false(collide.pointinpolygon(diamond, 1.6, 1.6))
  end)

  it("repeated vertices (zero-length edges) change nothing", function()
    local dup = { 0, 0, 2, 0, 2, 0, 2, 2, 0, 2 }
    assert.is_true(collide.pointinpolygon(dup, 1, 1))
    assert.is_true(collide.pointinpolygon(dup, 2, 0))
    assert.is_false(collide.pointinpolygon(dup, 3, 0))
  end)

  it("works at 1e300 scale", function()
    local big = { 0, 0, 2e300, 0, 2e300, 2e300, 0, 2e300 }
    assert.is_true(collide.pointinpolygon(big, 1e300, 1e300))
    assert.is_false(collide.pointinpolygon(big, 3e300, 1e300))
    local tri = { 0, 0, 2e300, 1e300, 0, 2e300 }
    assert.is_true(collide.pointinpolygon(tri, 1e300, 1e300))
    assert.is_false(collide.pointinpolygon(tri, 2.5e300, 1e300))
    assert.is_false(collide.pointinpolygon(tri, 1e300, 0.25e300))
  end)

  it("works at 1e-300 scale", function()
    local tiny = { 0, 0, 2e-300, 0, 2e-300, 2e-300, 0, 2e-300 }
    assert.is_true(collide.pointinpolygon(tiny, 1e-300, 1e-300))
    assert.is_false(collide.pointinpolygon(tiny, 3e-300, 1e-300))
  end)

  it("rejects fewer than 3 vertices, an odd length or a non-number as argument 1", function()
    fails("bad argument #1 to 'pointinpolygon'", collide.pointinpolygon, { 0, 0, 1, 1 }, 0, 0)
    fails("bad argument #1 to 'pointinpolygon'", collide.pointinpolygon, { 0, 0, 1, 0, 1 }, 0, 0)
    fails("bad argument #1 to 'pointinpolygon'", collide.pointinpolygon, { 0, 0, 1, 0, {}, 1 }, 0, 0)
    fails("bad argument #1 to 'pointinpolygon'", collide.pointinpolygon, { 0, 0, 1, 0, 0 / 0, 1 }, 0, 0)
    fails("bad argument #1 to 'pointinpolygon'", collide.pointinpolygon, "0,0,1,0,1,1", 0, 0)
  end)
end)

describe("collide.type", function()
  it("names each collide type", function()
    assert.equal("AABB", collide.type(AABB(0, 0, 0, 1, 1, 1)))
    assert.equal("Ray", collide.type(Ray(0, 0, 0, 1, 0, 0)))
    assert.equal("OBB", collide.type(OBB(0, 0, 0, 1, 1, 1)))
    assert.equal("Sphere", collide.type(Sphere(0, 0, 0, 1)))
  end)

  it("names a World", function()
    if not collide.World then pending("collide.World is not built yet") return end
    assert.equal("World", collide.type(collide.World()))
  end)

  it("is nil for non-collide values, including look-alikes", function()
    assert.is_nil(collide.type(nil))
    assert.is_nil(collide.type(1))
    assert.is_nil(collide.type("AABB"))
    assert.is_nil(collide.type({}))
    assert.is_nil(collide.type(true))
    assert.is_nil(collide.type(print))
    assert.is_nil(collide.type(io.stdout))
    assert.is_nil(collide.type(setmetatable({}, { __name = "collide.AABB" })))
    assert.is_nil(collide.type(coroutine.create(function() end)))
  end)

  it("the metatables carry __name", function()
    assert.equal("collide.AABB", getmetatable(AABB(0, 0, 0, 1, 1, 1)).__name)
    assert.equal("collide.Ray", getmetatable(Ray(0, 0, 0, 1, 0, 0)).__name)
    assert.equal("collide.OBB", getmetatable(OBB(0, 0, 0, 1, 1, 1)).__name)
    assert.equal("collide.Sphere", getmetatable(Sphere(0, 0, 0, 1)).__name)
  end)
end)
