-- collide.love's wireframe drawing, outside LÖVE: love.graphics is replaced by a recorder of the
-- segments drawn, and each drawing is compared with the shape's own geometry (every segment end
-- projects back onto the shape's surface or the mesh's placed triangles). collide.love.shape and
-- world() raised for a Capsule or a Mesh item before they drew them.
local collide = require "collide"
local AABB, Capsule, Mesh, World = collide.AABB, collide.Capsule, collide.Mesh, collide.World

-- A love.graphics stand-in that keeps the drawn lines (screen coordinates) and circles.
local lines, circles = {}, 0
local saved_love
local function stub()
  lines, circles = {}, 0
  saved_love = rawget(_G, "love")
  _G.love = { graphics = {
    line = function(a, b, c, d) lines[#lines + 1] = { a, b, c, d } end,
    circle = function() circles = circles + 1 end,
    getColor = function() return 1, 1, 1, 1 end,
    setColor = function() end,
  } }
end
local function unstub() _G.love = saved_love end

local cl = require "collide.love"
local cam = cl.camera { target = { 0, 0, 0 }, distance = 20, yaw = 0.3, pitch = 0.4, width = 800, height = 600 }

-- The world point on the screen point (sx, sy) at the given depth along the view ray.
local function onray(sx, sy, x, y, z)
  local ox, oy, oz, dx, dy, dz = cam:unproject(sx, sy)
  -- the ray point nearest (x, y, z)
  local t = ((x - ox) * dx + (y - oy) * dy + (z - oz) * dz) / (dx * dx + dy * dy + dz * dz)
  return ox + t * dx, oy + t * dy, oz + t * dz
end

describe("collide.love draws every shape kind", function()
  before_each(stub)
  after_each(unstub)

  it("a capsule: its end spheres and four side lines, each at distance r from the segment", function()
    local c = Capsule(-1, 0.5, 0.25, 2, 1, -0.5, 0.75)
    cl.shape(cam, c)
    assert.is_true(#lines > 4 and circles == 2, "lines " .. #lines .. ", silhouettes " .. circles)
    -- every line end lies on the capsule's surface: its view ray passes within r of the segment
    -- at some point, and no line end is farther than r from the segment along that ray
    local ax, ay, az, bx, by, bz = c:segment()
    local function segdist(x, y, z)
      local dx, dy, dz = bx - ax, by - ay, bz - az
      local t = ((x - ax) * dx + (y - ay) * dy + (z - az) * dz) / (dx * dx + dy * dy + dz * dz)
      t = math.max(0, math.min(1, t))
      local px, py, pz = ax + t * dx - x, ay + t * dy - y, az + t * dz - z
      return math.sqrt(px * px + py * py + pz * pz)
    end
    -- the four side lines are the last four drawn: both ends at distance exactly r
    for i = #lines - 3, #lines do
      local l = lines[i]
      for e = 0, 1 do
        local sx, sy = l[1 + 2 * e], l[2 + 2 * e]
        -- the side line's world end is on the ray, nearest the corresponding segment end
        local wx, wy, wz = onray(sx, sy, e == 0 and ax or bx, e == 0 and ay or by, e == 0 and az or bz)
        local d = segdist(wx, wy, wz)
        assert.is_true(d <= 0.75 + 1e-6, "side line end within r of the segment: " .. d)
      end
    end
  end)

  it("a placed mesh: three edges per triangle, at the placed vertices", function()
    local m = Mesh({ 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0 }, { 1, 2, 3, 2, 4, 3 })
    local s, c = math.sqrt(0.5), { 1, 2, 3 }
    local w = World()
    w:add("m", m, c[1], c[2], c[3], s, s, 0, -s, s, 0, 0, 0, 1)
    local n = cl.world(cam, w)
    assert.equal(1, n)
    assert.equal(6, #lines)
    -- each line end is the screen image of a placed vertex
    local placed = {}
    for i = 1, m:count() do
      local t = { m:triangle(i) }
      for k = 0, 2 do
        local x, y, z = t[3 * k + 1], t[3 * k + 2], t[3 * k + 3]
        placed[#placed + 1] = { cam:project(c[1] + x * s - y * s, c[2] + x * s + y * s, c[3] + z) }
      end
    end
    for _, l in ipairs(lines) do
      for e = 0, 1 do
        local found = false
        for _, p in ipairs(placed) do
          if math.abs(p[1] - l[1 + 2 * e]) < 1e-9 and math.abs(p[2] - l[2 + 2 * e]) < 1e-9 then found = true end
        end
        assert.is_true(found, "a line end at a placed vertex")
      end
    end
  end)

  it("a world of an AABB, a capsule and a mesh item draws all three; other values raise", function()
    local w = World()
    w:add("b", AABB(0, 0, 0, 1, 1, 1))
    w:add("c", Capsule(3, 0, 0, 3, 2, 0, 0.5))
    w:add("m", Mesh({ -3, 0, 0, -2, 0, 0, -3, 1, 0 }))
    assert.equal(3, cl.world(cam, w))
    assert.is_true(#lines >= 12 + 4 + 3)
    local ok, err = pcall(cl.shape, cam, {})
    assert.is_false(ok)
    assert.is_truthy(err:find("collide.Capsule or collide.Mesh expected, got table", 1, true))
  end)
end)
