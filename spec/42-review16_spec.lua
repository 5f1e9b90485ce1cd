-- Review rev16 (of 2bbc1db, trisweep.c's ts_sink): this test fails on 2bbc1db (and 4a17f27) on a real bug; it passes on
-- a0d68fa. A capsule that slides along a tilted mesh quad, each slide closing 0.002 of the triangles' rounding
-- allowance on it (below ts_sink's rounding terms, so the slides still add up), sinks to the allowance (0.9999 of it
-- here, as on a0d68fa); from there every slide met the face at t = 0 on all 16 legs and made nothing, for good
-- (a0d68fa: one contact at t = 0, the whole slide made). The state: a random loop's case (review rev16's mfuzz_gap,
-- seed 177) before its slide 151, every number written exactly.
local collide = require "collide"

describe("a capsule sunk to a mesh face's allowance by slides each closing a little on it", function()
  it("still slides along the face (no 16-leg stall)", function()
    local vs = { 0.14212955981694519, -45.614359352792469, 44.162156506626971, 9.2071433059066479, -41.392330719160917,
      44.162156506626971, 2.7616161031561646, -51.238594426405008, 36.31956318005372, 11.826629849245869,
      -47.016565792773456, 36.31956318005372 }
    local w = collide.World()
    w:add("F", collide.Mesh(vs, { 1, 2, 4, 1, 4, 3 }))
    w:add("M", collide.Capsule(5.4007282371775709, -47.318132180331716, 38.096653118630279,
      6.2229823689632422, -46.935167456200048, 38.096653118630279, 0.81076352106602445))
    local d = { -0.0020512428484748095, 0.0075514821432513647, 0.0097476930715291159 }
    local L2 = d[1] * d[1] + d[2] * d[2] + d[3] * d[3]
    for k = 1, 10 do
      local ax, ay, az, _, n = w:move("M", d[1], d[2], d[3])
      local made = (ax * d[1] + ay * d[2] + az * d[3]) / L2
      assert.is_true(made > 0.999, ("move %d: made %.6f of it, %d collisions"):format(k, made, n))
    end
  end)
end)
