-- The seams rule: a world of touching tiles moves exactly like the same world with the tiles of
-- each box merged into that one box (API.md, "Movement that games can trust"). A differential over
-- thousands of random tile fields: floors, walls and stairs, each box cut into touching AABB and
-- world-axis OBB tiles added in a shuffled order; movers (AABB, OBB, Sphere) start exactly on seams
-- and corners, walk along floors with gravity and move diagonally into tiled walls, in 3D (up +y)
-- and in 2D (flat boxes, y down). Each frame's displacement and the collisions' types, times and
-- normals must agree with the merged world to rounding. Capsule movers (standing and lying) run
-- over the same kind of fields in tests of their own.
local collide = require "collide"
local gen = require "support.gen"

local AABB, OBB, Sphere, Capsule, World = collide.AABB, collide.OBB, collide.Sphere, collide.Capsule, collide.World
local QUICK = os.getenv("COLLIDE_QUICK")
local FIELDS = QUICK and 500 or 2000
local FRAMES = 6

-- The issue's example, literally: tile A's edge must not win over tile B's face.
describe("seams: the issue's example", function()
  it("a box on two floor tiles, its left edge on the seam, walks left with gravity", function()
    local c = collide
    local w = c.World()
    w:add("A", c.AABB(0,1,0, 1,2,1)); w:add("B", c.AABB(1,1,0, 2,2,1))
    w:add("p", c.AABB(1,0,0, 1.5,1,1))
    local ax, ay, az, cols, n = w:check("p", -0.25, 0.1, 0)
    assert.same({ -0.25, 0, 0 }, { ax, ay, az })
    assert.equal(1, n)
    assert.equal("B", cols[1].other)
    assert.same({ 0, -1, 0, 0 }, { cols[1].nx, cols[1].ny, cols[1].nz, cols[1].t })
  end)

  it("the same with the tiles added in the other order, and walking right off tile A", function()
    local w = World()
    w:add("B", AABB(1, 1, 0, 2, 2, 1)); w:add("A", AABB(0, 1, 0, 1, 2, 1))
    w:add("p", AABB(1, 0, 0, 1.5, 1, 1))
    local ax, ay, az = w:check("p", -0.25, 0.1, 0)
    assert.same({ -0.25, 0, 0 }, { ax, ay, az })
    w:update("p", AABB(0.5, 0, 0, 1, 1, 1))
    ax, ay, az = w:check("p", 0.25, 0.1, 0)
    assert.same({ 0.25, 0, 0 }, { ax, ay, az })
  end)
end)

-- Field generation, in "up" coordinates (up = +y); a 2D field is mapped to y down, flat z.

-- Returns the cut positions of [a, b] on a quarter grid (a and b included), sorted.
local function cuts(r, a, b, most)
  local set, out = { [a] = true, [b] = true }, { a, b }
  for _ = 1, r:int(0, most) do
    local c = a + r:int(1, math.max(1, math.floor((b - a) * 4) - 1)) / 4
    if c > a and c < b and not set[c] then set[c] = true; out[#out + 1] = c end
  end
  table.sort(out)
  return out
end

-- Returns the field's boxes: {lo = {x,y,z}, hi = {x,y,z}, xs, ys, zs (cuts)}.
local function field(r, flat)
  local boxes = {}
  local W, D = r:int(4, 8), flat and 0 or r:int(2, 4)
  local function box(x0, y0, x1, y1)
    local b = { lo = { x0, y0, 0 }, hi = { x1, y1, D } }
    b.xs = cuts(r, x0, x1, 4)
    b.ys = cuts(r, y0, y1, 1)
    b.zs = flat and { 0, 0 } or cuts(r, 0, D, 2)
    boxes[#boxes + 1] = b
  end
  box(0, -1, W, 0)                                    -- the floor
  local right = W
  if r:chance(0.5) then                               -- a wall at the right end
    right = W - r:int(1, 2) / 2
    box(right, 0, W, r:int(2, 6) / 2)
  end
  if r:chance(0.5) then                               -- stairs going up to the right
    local x, h = r:int(2, 5) / 2, 0
    while x < right - 0.5 and r:chance(0.8) do
      local len = math.min(right - x, r:int(1, 4) / 4)
      h = h + r:int(1, 3) / 8
      box(x, 0, x + len, h)
      x = x + len
    end
  end
  return boxes, W, D
end

-- Maps an up-coordinates box to the world's frame: 2D has y down.
local function frame(flat, lo, hi)
  if flat then return lo[1], -hi[2], 0, hi[1], -lo[2], 0 end
  return lo[1], lo[2], lo[3], hi[1], hi[2], hi[3]
end

-- Returns a shape of kind "AABB" or "OBB" (world axes) for the box bounds.
local function boxshape(kind, x0, y0, z0, x1, y1, z1)
  if kind == "AABB" then return AABB(x0, y0, z0, x1, y1, z1) end
  return OBB((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2, (x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2)
end

-- Fills the tiled and merged worlds: boxes in order, each box's tiles shuffled, of the box's kind.
local function build(r, flat, boxes)
  local wt, wm = World(), World()
  local n = 0
  for bi, b in ipairs(boxes) do
    -- one kind per box: an OBB stops 2^-40 short of what it blocks where an AABB touches, and
    -- at a real corner of a box that decides between an edge and a face contact
    local kind = r:chance(0.5) and "AABB" or "OBB"
    wm:add("box" .. bi, boxshape(kind, frame(flat, b.lo, b.hi)))
    local tiles = {}
    for i = 1, #b.xs - 1 do
      for j = 1, #b.ys - 1 do
        for k = 1, math.max(1, #b.zs - 1) do
          local z0, z1 = b.zs[k], b.zs[k + 1] or b.zs[k]
          tiles[#tiles + 1] = { { b.xs[i], b.ys[j], z0 }, { b.xs[i + 1], b.ys[j + 1], z1 } }
        end
      end
    end
    for i = #tiles, 2, -1 do
      local j = r:int(1, i)
      tiles[i], tiles[j] = tiles[j], tiles[i]
    end
    for _, t in ipairs(tiles) do
      n = n + 1
      wt:add("tile" .. n, boxshape(kind, frame(flat, t[1], t[2])))
    end
  end
  return wt, wm, n
end

-- 1 when the mover's interior meets a box's (open intervals; flat axes meet when equal).
local function inside(flat, boxes, kind, lo, hi, c, rad)
  for _, b in ipairs(boxes) do
    local x0, y0, z0, x1, y1, z1 = frame(flat, b.lo, b.hi)
    if kind == "Sphere" then
      local function d(v, a, bb) return v < a and a - v or v > bb and v - bb or 0 end
      local dx, dy, dz = d(c[1], x0, x1), d(c[2], y0, y1), d(c[3], z0, z1)
      if dx * dx + dy * dy + dz * dz < rad * rad then return true end
    else
      local m0 = { frame(flat, lo, hi) }
      local function ov(a0, a1, b0, b1) return (a0 < b1 and a1 > b0) or (a0 == a1 and b0 == b1 and a0 == b0) end
      if ov(m0[1], m0[4], x0, x1) and ov(m0[2], m0[5], y0, y1) and ov(m0[3], m0[6], z0, z1) then return true end
    end
  end
  return false
end

-- 1 when a capsule's segment a-b, sampled at 33 points, comes nearer than rad to a box.
local function capsuleinside(flat, boxes, a, b, rad)
  for i = 0, 32 do
    local q = { a[1] + (b[1] - a[1]) * i / 32, a[2] + (b[2] - a[2]) * i / 32, a[3] + (b[3] - a[3]) * i / 32 }
    if inside(flat, boxes, "Sphere", nil, nil, q, rad) then return true end
  end
  return false
end

-- Returns the mover's shape and its description, or nil when the start overlaps the field.
-- kinds: the mover kinds to draw from.
local function mover(r, flat, boxes, D, kinds)
  local kind = kinds[r:int(1, #kinds)]
  local b = boxes[r:int(1, #boxes)]
  local seamsx = b.xs
  local sx, sy, sz = r:int(2, 12) / 8, r:int(2, 12) / 8, flat and 0 or r:int(2, 12) / 8
  local rad = r:int(1, 6) / 8
  local x = seamsx[r:int(1, #seamsx)]
  local air = r:chance(0.25) and r:int(1, 8) / 4 or 0
  local y = b.hi[2] + air
  local z = flat and 0 or (r:chance(0.5) and b.zs[r:int(1, #b.zs)] or r:int(0, D * 8) / 8)
  local lo, hi, c
  if kind == "Capsule" then     -- standing or lying along x, its lowest point on the tile's top
    if r:chance(0.3) then x = x + (r:chance(0.5) and rad or -rad) end
    local len = r:int(0, 8) / 8
    local a = { x, y + rad, z }
    local b = r:chance(0.4) and { x + len, y + rad, z } or { x, y + rad + len, z }
    if flat then a[2], b[2] = -a[2], -b[2] end
    if capsuleinside(flat, boxes, a, b, rad) then return nil end
    return Capsule(a[1], a[2], a[3], b[1], b[2], b[3], rad), kind
  end
  if kind == "Sphere" then
    if r:chance(0.3) then x = x + (r:chance(0.5) and rad or -rad) end   -- edge of a tile above the seam
    c = { x, y + rad, z }
    if flat then c = { x, -(y + rad), 0 } end
  else
    local side = r:int(0, 2)                      -- seam under the left edge, right edge, or middle
    local x0 = side == 0 and x or side == 1 and x - sx or x - sx / 2
    local z0 = (flat or r:chance(0.5)) and z or z - sz
    lo, hi = { x0, y, z0 }, { x0 + sx, y + sy, z0 + sz }
  end
  if inside(flat, boxes, kind, lo, hi, c, rad) then return nil end
  local shape
  if kind == "Sphere" then shape = Sphere(c[1], c[2], c[3], rad)
  else shape = boxshape(kind, frame(flat, lo, hi)) end
  return shape, kind
end

-- Returns a frame's displacement in the world's frame: walks with gravity or jumps diagonally.
local function step(r, flat)
  local vx, vy, vz
  local u = r:float()
  if u < 0.5 then       -- walking along the ground: sub-pixel to fast, gravity into the floor
    vx = (r:chance(0.3) and r:int(-8, 8) / 32) or (r:float() * 3 - 1.5)
    vy = -(r:chance(0.5) and r:int(1, 4) / 16 or r:float() * 0.3)
    vz = flat and 0 or (r:chance(0.5) and 0 or r:float() * 2 - 1)
  elseif u < 0.8 then   -- diagonally into walls and steps
    vx = (r:chance(0.5) and 1 or -1) * (0.5 + r:float() * 2)
    vy = (r:chance(0.5) and 1 or -1) * r:float() * 2
    vz = flat and 0 or (r:chance(0.3) and (r:float() * 2 - 1) or 0)
  else                  -- exact grid moves
    vx, vy, vz = r:int(-8, 8) / 8, -r:int(0, 4) / 8, flat and 0 or r:int(-4, 4) / 8
  end
  if flat then vy = -vy end
  return vx, vy, vz
end

local function close(a, b) return math.abs(a - b) <= 1e-7 * math.max(1, math.abs(a), math.abs(b)) end

local function same(p, q)
  return p.type == q.type and close(p.t, q.t) and close(p.nx, q.nx) and close(p.ny, q.ny) and close(p.nz, q.nz)
end

-- Returns nil when both moves agree, else a description of the difference. anyorder: contacts
-- whose t agree to rounding may come in either order (a capsule resting in a corner, about 2^-40
-- from both faces, README "Seams"); each must still match one of the other world's, once.
local function differs(a, b, anyorder)
  for i = 1, 3 do
    if not close(a[i], b[i]) then return "displacement" end
  end
  if a[5] ~= b[5] then return "collision count" end
  local used = {}
  for i = 1, a[5] do
    local p, found = a[4][i], false
    if same(p, b[4][i]) and not used[i] then
      used[i], found = true, true
    elseif anyorder then
      for j = 1, b[5] do
        if not used[j] and same(p, b[4][j]) and close(p.t, b[4][i].t) then used[j], found = true, true; break end
      end
    end
    if not found then return "collision " .. i end
  end
end

local function show(m)
  local s = string.format("(%.17g, %.17g, %.17g) %d cols:", m[1], m[2], m[3], m[5])
  for i = 1, m[5] do
    local c = m[4][i]
    s = s .. string.format(" [%s t=%.17g n=(%g,%g,%g)]", tostring(c.other), c.t, c.nx, c.ny, c.nz)
  end
  return s
end

-- Runs `count` random fields with movers of the given kinds; returns how many frames had contacts
-- and how many fields each kind moved in.
local function run(r, flat, count, movers)
  local anyorder = movers[1] == "Capsule"
  local fields, contacts, kinds = 0, 0, {}
  while fields < count do
    local boxes, _, D = field(r, flat)
    local shape, kind = mover(r, flat, boxes, D, movers)
    if shape then
      fields = fields + 1
      kinds[kind] = (kinds[kind] or 0) + 1
      local wt, wm, ntiles = build(r, flat, boxes)
      wt:add("p", shape); wm:add("p", shape)
      local log = {}
      for f = 1, FRAMES do
        local dx, dy, dz = step(r, flat)
        local mt = { wt:move("p", dx, dy, dz) }
        local mm = { wm:move("p", dx, dy, dz) }
        log[#log + 1] = string.format("frame %d move(%.17g, %.17g, %.17g)\n  tiled  %s\n  merged %s",
          f, dx, dy, dz, show(mt), show(mm))
        local why = differs(mt, mm, anyorder)
        if why then
          local desc = {}
          for bi, b in ipairs(boxes) do
            desc[#desc + 1] = string.format("box%d [%g %g %g  %g %g %g] xs={%s} ys={%s} zs={%s}", bi,
              b.lo[1], b.lo[2], b.lo[3], b.hi[1], b.hi[2], b.hi[3], table.concat(b.xs, ","),
              table.concat(b.ys, ","), table.concat(b.zs, ","))
          end
          error(string.format("field %d (%d tiles), %s mover %s differs in %s\n%s\n%s", fields,
            ntiles, kind, tostring(shape), why, table.concat(desc, "\n"), table.concat(log, "\n")), 0)
        end
        if mm[5] > 0 then contacts = contacts + 1 end
      end
      wt:destroy(); wm:destroy()
    end
  end
  return contacts, kinds
end

describe("seams: tiled worlds move like merged worlds", function()
  for _, flat in ipairs({ false, true }) do
    it((flat and "2D (flat boxes, y down)" or "3D (up +y)") ..
       ": random floors, walls and stairs; AABB, OBB and Sphere movers on seams", function()
      local contacts, kinds = run(gen.new(flat and 2512 or 1225), flat, FIELDS, { "AABB", "OBB", "Sphere" })
      -- the fields exercise contacts with every mover kind
      assert.is_true(contacts > FIELDS)
      assert.is_true(kinds.AABB > FIELDS / 5 and kinds.OBB > FIELDS / 5 and kinds.Sphere > FIELDS / 5)
    end)
  end
  for _, flat in ipairs({ false, true }) do
    it((flat and "2D (flat boxes, y down)" or "3D (up +y)") ..
       ": random floors, walls and stairs; standing and lying Capsule movers on seams", function()
      local count = math.floor(FIELDS / 2)
      local contacts, kinds = run(gen.new(flat and 6125 or 5216), flat, count, { "Capsule" })
      assert.equal(count, kinds.Capsule)
      assert.is_true(contacts > count)
    end)
  end
end)

-- Findings of the Capsule differential above on other seeds (5 seeds x 1,000 fields found these
-- two; the seeds used above pass), with their exact reproductions.
describe("seams: Capsule findings", function()
  local function obb(x0, y0, z0, x1, y1, z1)
    return OBB((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2, (x1 - x0) / 2, (y1 - y0) / 2, (z1 - z0) / 2)
  end

  -- A capsule's bottom ball level with a ledge's top edge to rounding, resting in the corner of the
  -- floor and the ledge's face (a hair inside the face, within the resting allowance): a move into
  -- the ledge, down and along it meets the ledge's edge at t = 0 with the normal (-1, 1.1e-11, 0).
  -- The slide's x of 2e-12 that makes the rest perpendicular to it was zeroed (x == -1: taken for
  -- an axis normal), so the same contact came back at t = 0 for all 16 legs: no progress along
  -- the ledge (the tiled world happened to slide). Before the fix a scan of diagonal moves into
  -- curbs as high as the radius stalled in 14% of 36,000 frames.
  it("a capsule in the corner of a floor and a ledge as high as its radius slides along the ledge", function()
    local w = World()
    w:add("floor", obb(0, -1, 0, 7, 0, 4))
    w:add("step", obb(1.5, 0, 0, 2.25, 0.125, 4))
    w:add("p", Capsule(1.3749999999957936, 0.1250000000042065, 3.5, 1.3749999999957936, 0.5000000000042065, 3.5, 0.125))
    local ax, ay, az, _, n = w:check("p", 0.58944934195787591, -0.1875, -0.50199443893692863)
    assert.is_true(n < 16)
    assert.is_true(math.abs(ax) < 1e-9 and math.abs(ay) < 1e-9)
    assert.is_true(math.abs(az + 0.50199443893692863) < 1e-9)
  end)

  it("capsules pressed into floor-and-curb corners (curb as high as the radius) slide along the curb", function()
    local r = gen.new(1512)
    local frames, stalled = 0, 0
    for _, kind in ipairs({ "AABB", "OBB" }) do
      for _ = 1, QUICK and 40 or 150 do
        local w = World()
        local rad = ({ 0.125, 0.25, 0.375, 0.1, 0.3, 0.2 })[r:int(1, 6)]
        local wx = 1 + r:float() * 2
        w:add("floor", boxshape(kind, -5, -1, -500, 10, 0, 500))
        w:add("curb", boxshape(kind, wx, 0, -500, wx + 1, rad, 500))
        local x = r:float() * 0.5
        w:add("p", Capsule(x, rad + r:float() * 0.1, 0, x, rad + 0.6, 0, rad))
        for _ = 1, 40 do
          local dz = -(0.05 + r:float() * 0.5)
          local _, _, az = w:move("p", r:float() * 0.7, -r:float() * 0.3, dz)
          frames = frames + 1
          if math.abs(az - dz) > 1e-6 then stalled = stalled + 1 end   -- a stall loses all of dz
        end
        w:destroy()
      end
    end
    assert.equal(0, stalled)
    assert.is_true(frames >= 80 * 40)
  end)

  -- A capsule exactly as wide as a slot (0.5) between a ledge (OBB, x <= 2.5) and a wall (AABB,
  -- x >= 3): the move into the wall puts it 2^-40 off the wall, so 3e-12 into the ledge's side; the
  -- next leg (straight down) reported the floor at t = 0.906 but leg_end found the end inside the
  -- ledge and backed off to the leg's start: a collision with the floor was reported and the
  -- capsule had not moved towards it (fixed: leg_end pushes an end out of such a graze).
  it("a capsule falling into a slot of its own width reaches the floor it reports", function()
    local w = World()
    w:add("box1", obb(0, -1, 0, 4, 0, 3))
    w:add("box2", AABB(3, 0, 0, 4, 1, 3))
    w:add("box3", AABB(1.5, 0, 0, 1.75, 0.375, 3))
    w:add("box4", obb(1.75, 0, 0, 2.5, 0.75, 3))
    w:add("p", Capsule(2.7499999999965894, 1, 2.4318639169743879, 2.7499999999965894, 1.5, 2.4318639169743879, 0.25))
    local _, ay, _, cols, n = w:check("p", 1.4091682451862546, -0.8282156873757166, 0)
    local floor = false
    for i = 1, n do if cols[i].other == "box1" then floor = true end end
    assert.is_true(floor)
    assert.is_true(math.abs(ay + 0.75) < 1e-9)
  end)
end)
