-- Review rev14 (of 0565f9e): its two tests failed on real bugs (F1 on 0565f9e; F2 on 3feb533 too), fixed by deep_end
-- (sweep.c); review rev15 (of 4c8ea2e): its test failed on a real bug (3feb533 and 0565f9e too), fixed in the next commit.
local collide = require "collide"
local AABB, OBB, World = collide.AABB, collide.OBB, collide.World

-- an AABB resting corner-down on a tilted OBB slab (placed touching by bisection)
local function scene()
  local T = OBB(3, 3, 3, 50, 1, 50, 0.81563646666503031, -0.57856473643507267, 0,
    0.48375985805596916, 0.68198449800167993, 0.54851941097746515,
    -0.31735398844169843, -0.44739243426684333, 0.83613782104443457)
  local M = AABB(3.3984058563616681, 3.7665351553036359, 3.518672886854521,
    4.3984058563616681, 4.7665351553036359, 4.518672886854521)
  local w = World()
  w:add("T", T); w:add("M", M)
  return w
end
local u = {0.81563646666503031, -0.57856473643507267, 0}
-- a slide of L along the slab's face closing 0.24 of the 2^-42 allowance (1.8e-12 here): a graze
local function slide(L)
  return u[1] * L + (0.0008156364650775945 - u[1] * 0.001), u[2] * L + (-0.00057856473867297354 - u[2] * 0.001),
    -1.7999412789816842e-12
end

describe("review rev14", function()
  it("a slide along a face is not stopped dead, with no collision, after a hair push into it (F1)", function()
    local w = scene()
    -- straight into the slab by 1.19e-11 (1.67 e, e = 2^-43 of the coordinates): 0565f9e drops it as a
    -- hair contact and the box ends 0.85 of the allowance inside
    w:move("M", -5.6409942034464801e-12, -7.9524386655966468e-12, -6.3961380140883289e-12)
    local dx, dy, dz = slide(5)
    local ax, ay, az, _, n = w:move("M", dx, dy, dz)
    assert.is_true(n > 0 or (ax * u[1] + ay * u[2]) > 4.99,
      ("made %.17g %.17g %.17g of 5 along the face with %d collisions"):format(ax, ay, az, n))
  end)

  it("successive grazing slides along a face do not sink to a dead stop (F2: 3feb533 too)", function()
    local w = scene()
    for k = 1, 6 do
      local dx, dy, dz = slide(0.1)
      local ax, ay, az, _, n = w:move("M", dx, dy, dz)
      assert.is_true(n > 0 or (ax * u[1] + ay * u[2]) > 0.0999,
        ("slide %d made %.17g %.17g %.17g of 0.1 along the face with %d collisions"):format(k, ax, ay, az, n))
    end
  end)

  -- rev15's F1: deep_end bounded a graze by the start's depth plus 2^-48 of the coordinates, so slides
  -- closing by 1/100 of the allowance each sank to it and the 101st made nothing, with no collision
  it("slides closing 1/100 of the allowance each along a face do not sink to a dead stop (rev15 F1)", function()
    local w = scene()
    local n = {0.48375985805596916, 0.68198449800167993, 0.54851941097746515}
    local function mag(sh)
      local a, b, c, d, e, f = sh:aabb():bounds()
      return math.max(math.abs(a), math.abs(b), math.abs(c), math.abs(d), math.abs(e), math.abs(f))
    end
    for k = 1, 130 do
      local A = math.max(mag(w:shape("M")), mag(w:shape("T"))) * 2^-42
      local L = 0.1
      local ax, ay, az, _, nc = w:move("M", u[1] * L - n[1] * 0.01 * A, u[2] * L - n[2] * 0.01 * A,
        u[3] * L - n[3] * 0.01 * A)
      assert.is_true(nc > 0 or (ax * u[1] + ay * u[2] + az * u[3]) > 0.0999,
        ("slide %d made %.17g %.17g %.17g of 0.1 along the face with %d collisions"):format(k, ax, ay, az, nc))
    end
  end)
end)
