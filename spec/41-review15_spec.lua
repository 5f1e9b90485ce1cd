-- Review rev15 (of 4c8ea2e): failed on a real bug (3feb533 and 0565f9e too): deep_end bounded a graze by the start
-- depth plus 2^-48 of the coordinates, so slides closing by 1/100 of the allowance each sank to it and the 101st made
-- nothing, with no collision. Fixed: the bound is the start depth plus 2^-47 of the motion (its rounding).
local collide = require "collide"
local AABB, OBB, World = collide.AABB, collide.OBB, collide.World

describe("review rev15", function()
  it("slides closing 1/100 of the allowance each along a face do not sink to a dead stop", function()
    -- rev14's scene: an AABB resting corner-down on a tilted OBB slab (placed touching by bisection)
    local T = OBB(3, 3, 3, 50, 1, 50, 0.81563646666503031, -0.57856473643507267, 0,
      0.48375985805596916, 0.68198449800167993, 0.54851941097746515,
      -0.31735398844169843, -0.44739243426684333, 0.83613782104443457)
    local M = AABB(3.3984058563616681, 3.7665351553036359, 3.518672886854521,
      4.3984058563616681, 4.7665351553036359, 4.518672886854521)
    local w = World()
    w:add("T", T); w:add("M", M)
    local u = {0.81563646666503031, -0.57856473643507267, 0}
    local n = {0.48375985805596916, 0.68198449800167993, 0.54851941097746515}
    local function mag(sh)
      local a, b, c, d, e, f = sh:aabb():bounds()
      return math.max(math.abs(a), math.abs(b), math.abs(c), math.abs(d), math.abs(e), math.abs(f))
    end
    for k = 1, 130 do
      local A = math.max(mag(w:shape("M")), mag(T)) * 2^-42
      local L = 0.1
      local ax, ay, az, _, nc = w:move("M", u[1] * L - n[1] * 0.01 * A, u[2] * L - n[2] * 0.01 * A,
        u[3] * L - n[3] * 0.01 * A)
      assert.is_true(nc > 0 or (ax * u[1] + ay * u[2] + az * u[3]) > 0.0999,
        ("slide %d made %.17g %.17g %.17g of 0.1 along the face with %d collisions"):format(k, ax, ay, az, nc))
    end
  end)
end)
