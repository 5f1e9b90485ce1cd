-- collide.Character: the kinematic controller of API.md ("Movement that games can trust"):
-- standing on walkable slopes without drifting, ground snap, step-up, steep slopes as walls,
-- moving platforms, 3D (up +y) and 2D (flat boxes, y down), option validation.
local collide = require "collide"
local util = require "support.util"
local errof = util.errof

local AABB, OBB, Sphere, World, Character = collide.AABB, collide.OBB, collide.Sphere, collide.World,
  collide.Character

local function near(want, got, tol, what)
  tol = tol or 1e-9
  assert(type(got) == "number" and math.abs(want - got) <= tol * math.max(1, math.abs(want)),
    (what or "value") .. ": expected " .. string.format("%.17g", want) .. " got " .. tostring(got))
end

-- A ramp rising toward +x at angle a (radians) about z: an OBB whose top face passes through
-- (0, top, 0). Returns the OBB and the height of its top face at x.
local function ramp(a, top, hz)
  local s, c = math.sin(a), math.cos(a)
  local o = OBB(s, top - c, 0, 20, 1, hz or 3, c, s, 0, -s, c, 0, 0, 0, 1)
  return o, function(x) return top + x * s / c end
end

-- The reference point of an item's shape (AABB min corner, else centre).
local function pos(w, item)
  local s = w:shape(item)
  if collide.type(s) == "AABB" then
    local x, y, z = s:bounds()
    return x, y, z
  end
  return s:center()
end

describe("Character: options and bad input", function()
  local function world()
    local w = World()
    w:add("p", AABB(0, 0, 0, 1, 2, 1))
    return w
  end

  it("is a collide.Character made for an item of a world, with defaults", function()
    local w = world()
    local ch = Character(w, "p")
    assert.equal("Character", collide.type(ch))
    assert.is_string(tostring(ch))
    assert.is_false(ch:grounded())
    ch = Character(w, "p", { up = { 0, 2, 0 }, maxslope = math.rad(30), step = 0.5, snap = 0.25 })
    assert.equal("Character", collide.type(ch))
    ch = Character(w, "p", {})
    assert.equal("Character", collide.type(ch))
  end)

  it("rejects bad worlds, items and option tables in the usual wording", function()
    local w = world()
    assert.equal("bad argument #1 to 'Character' (collide.World expected, got number)",
      errof(Character, 5, "p"))
    assert.equal("bad argument #2 to 'Character' (item is not in the world)", errof(Character, w, "q"))
    assert.equal("bad argument #3 to 'Character' (table expected, got number)", errof(Character, w, "p", 5))
  end)

  it("rejects unknown options and bad option values, naming the option", function()
    local w = world()
    local bad = {
      { { bogus = 1 }, "bogus" },
      { { Up = { 0, 1, 0 } }, "Up" },
      { { up = { 0, 0, 0 } }, "up" },
      { { up = { 0, 1 } }, "up" },
      { { up = "y" }, "up" },
      { { up = { 0, 1 / 0, 0 } }, "up" },
      { { up = { 0, 0 / 0, 0 } }, "up" },
      { { maxslope = -0.1 }, "maxslope" },
      { { maxslope = 2 }, "maxslope" },
      { { maxslope = "steep" }, "maxslope" },
      { { step = -1 }, "step" },
      { { step = 1 / 0 }, "step" },
      { { snap = 0 / 0 }, "snap" },
      { { snap = {} }, "snap" },
    }
    for _, case in ipairs(bad) do
      local e = errof(Character, w, "p", case[1])
      assert.equal("bad argument #3 to 'Character' (", e:sub(1, 32), e)
      assert.truthy(e:find("'" .. case[2] .. "'", 1, true), e)
    end
    assert.same({ 0, 0, 0, 1, 2, 1 }, { w:shape("p"):bounds() })
    assert.equal(1, w:count())
  end)

  it("move validates its arguments and leaves the item unchanged on error", function()
    local w = world()
    local ch = Character(w, "p")
    assert.equal("bad argument #2 to 'move' (number expected, got string)", errof(ch.move, ch, "x", 0, 0))
    assert.equal("bad argument #3 to 'move' (number expected, got no value)", errof(ch.move, ch, 1))
    assert.truthy(errof(ch.move, ch, 0 / 0, 0, 0):find("bad argument #2 to 'move'", 1, true))
    assert.truthy(errof(ch.move, ch, 1, 0, 0, 5):find("bad argument #5 to 'move'", 1, true))
    assert.truthy(errof(ch.move, ch, 1, 0, 0, nil, 5):find("bad argument #6 to 'move'", 1, true))
    assert.truthy(errof(ch.move, {}, 1, 0, 0):find("bad argument #1 to 'move'", 1, true))
    assert.same({ 0, 0, 0, 1, 2, 1 }, { w:shape("p"):bounds() })
  end)

  it("a filter's error or bad response leaves the item where it started and the world unlocked", function()
    local w = World()
    w:add("floor", AABB(-10, -1, -3, 20, 0, 3))
    w:add("wall", AABB(3, 0, -3, 4, 5, 3))
    w:add("p", AABB(0, 0, -0.5, 1, 2, 0.5))
    local ch = Character(w, "p", { step = 0.5, snap = 0.5 })
    ch:move(0, -0.1, 0)
    local before = { w:shape("p"):bounds() }
    local calls = 0
    local e = errof(ch.move, ch, 5, -0.1, 0, function()     -- the walk to the wall is made first
      calls = calls + 1
      if calls == 2 then error("boom", 0) end
      return "slide"
    end)
    assert.equal("boom", e)
    assert.equal(2, calls)
    assert.same(before, { w:shape("p"):bounds() })
    assert.equal("bad argument #5 to 'move' (filter returned an unknown response 'fly')",
      errof(ch.move, ch, 5, -0.1, 0, function() return "fly" end))
    assert.same(before, { w:shape("p"):bounds() })
    e = errof(ch.move, ch, 5, -0.1, 0, function() w:add("x", AABB(0, 0, 0, 1, 1, 1)); return "slide" end)
    assert.truthy(e:find("world is locked", 1, true), e)
    assert.same(before, { w:shape("p"):bounds() })
    assert.is_false(w:has("x"))
    local ax = ch:move(5, -0.1, 0)              -- unlocked again: walks to the wall
    near(2, ax)
  end)

  it("a character whose item left its world raises a clear error", function()
    local w = world()
    local ch = Character(w, "p")
    w:remove("p")
    assert.equal("bad argument #1 to 'move' (character's item is not in its world)", errof(ch.move, ch, 1, 0, 0))
    w:add("p", AABB(5, 0, 0, 6, 1, 1))   -- the same item added again: the character follows it
    local ax = ch:move(1, 0, 0)
    assert.equal(1, ax)
    w:destroy()
    assert.equal("bad argument #1 to 'move' (world is destroyed)", errof(ch.move, ch, 1, 0, 0))
  end)

  -- Mesh items never move (world:move and collide.Character refuse one), but character:move of a
  -- character whose item was removed and added again as a mesh moved the mesh item.
  it("a character whose item came back as a mesh raises, the mesh left where it is", function()
    if not collide.Mesh then return end
    local w = world()
    local ch = Character(w, "p")
    local mesh = collide.Mesh({ 0, 0, 0, 1, 0, 0, 0, 0, 1 }, { 1, 2, 3 })
    w:remove("p")
    w:add("p", mesh, 2, 3, 4)
    for _, f in ipairs { false, function() return "slide" end } do
      assert.equal("bad argument #1 to 'move' (character's item is a mesh (mesh items do not move))",
        errof(ch.move, ch, 1, -0.5, 0, f or nil))
      local _, x, y, z = w:shape("p")
      assert.same({ 2, 3, 4 }, { x, y, z })
    end
    w:remove("p")
    w:add("p", AABB(5, 0, 0, 6, 1, 1))   -- a movable shape again: followed
    assert.equal(1, (ch:move(1, 0, 0)))
  end)
end)

describe("Character: slopes (3D, up +y)", function()
  local A = math.atan(0.5)   -- 26.6 degrees

  for _, kind in ipairs({ "AABB", "Sphere" }) do
    it(kind .. " standing on a walkable 26.6-degree ramp never drifts over 90 frames of gravity", function()
      local w = World()
      local r, h = ramp(A, 0)
      w:add("ramp", r)
      if kind == "AABB" then w:add("p", AABB(1, h(2) + 0.5, -0.5, 2, h(2) + 2.5, 0.5))
      else w:add("p", Sphere(1.5, h(1.5) + 1.5, 0, 0.5)) end
      local ch = Character(w, "p")
      ch:move(0, -1.2, 0)                      -- lands
      local g, item, nx, ny, nz = ch:grounded()
      assert.is_true(g)
      assert.equal("ramp", item)
      near(-math.sin(A), nx, 1e-9, "nx"); near(math.cos(A), ny, 1e-9, "ny"); near(0, nz, 1e-9, "nz")
      local x0, y0, z0 = pos(w, "p")
      for f = 1, 90 do
        ch:move(0, -0.2, 0)
        assert.is_true((ch:grounded()), "frame " .. f)
      end
      local x1, y1, z1 = pos(w, "p")
      near(x0, x1, 1e-9, "x"); near(y0, y1, 1e-9, "y"); near(z0, z1, 1e-9, "z")
    end)
  end

  it("walking down and up a walkable ramp stays grounded every frame, on the surface", function()
    local w = World()
    local r, h = ramp(A, 0)
    w:add("ramp", r)
    w:add("p", AABB(4, h(5), -0.5, 5, h(5) + 2, 0.5))
    local ch = Character(w, "p", { snap = 0.25 })
    ch:move(0, -0.1, 0)
    for f = 1, 30 do                          -- down: 0.25 along x drops 0.125 per frame
      ch:move(-0.25, -0.2, 0)
      assert.is_true((ch:grounded()), "down, frame " .. f)
      local x0, y0 = w:shape("p"):bounds()
      near(h(x0 + 1), y0, 1e-6, "height on the ramp, frame " .. f)
    end
    local xa = w:shape("p"):bounds()
    near(5 - 1 - 30 * 0.25, xa, 1e-6, "walked the whole way down")
    for f = 1, 30 do                          -- up again
      ch:move(0.25, -0.2, 0)
      assert.is_true((ch:grounded()), "up, frame " .. f)
      local x0, y0 = w:shape("p"):bounds()
      near(h(x0 + 1), y0, 1e-6, "height on the ramp, frame " .. f)
    end
    assert.is_true(w:shape("p"):bounds() > xa + 5)
  end)

  it("without snap, walking down a ramp leaves the ground (snap is what keeps it)", function()
    local w = World()
    local r, h = ramp(A, 0)
    w:add("ramp", r)
    w:add("p", AABB(4, h(5), -0.5, 5, h(5) + 2, 0.5))
    local ch = Character(w, "p")
    ch:move(0, -0.1, 0)
    assert.is_true((ch:grounded()))
    ch:move(-0.25, 0, 0)
    assert.is_false((ch:grounded()))
  end)

  it("a slope steeper than maxslope is a wall: walking into it never climbs it", function()
    local w = World()
    w:add("floor", AABB(-10, -1, -3, 20, 0, 3))
    local r = ramp(math.rad(60), 0)
    w:add("steep", r)
    w:translate("steep", 3, 0, 0)               -- its face meets the floor at x = 3
    w:add("p", AABB(0, 0, -0.5, 1, 2, 0.5))
    local ch = Character(w, "p", { step = 0.2, snap = 0.2 })
    local _, ylo = w:shape("p"):bounds()
    for f = 1, 40 do
      ch:move(0.3, -0.2, 0.05)
      local x0, y0 = w:shape("p"):bounds()
      near(ylo, y0, 1e-9, "height, frame " .. f)
      assert.is_true(x0 + 1 <= 3 + 1e-9, "frame " .. f)
      assert.is_true((ch:grounded()))
    end
    local x0 = w:shape("p"):bounds()
    near(2, x0, 1e-9, "pressed against the steep face")
    -- a 30-degree maxslope makes the 26.6-degree ramp walkable but not a 35-degree one
    local w2 = World()
    local r2, h2 = ramp(math.rad(35), 0)
    w2:add("ramp", r2)
    w2:add("p", AABB(-3, h2(-2) + 0.01, -0.5, -2, h2(-2) + 2.01, 0.5))
    local ch2 = Character(w2, "p", { maxslope = math.rad(30) })
    local _, y20 = w2:shape("p"):bounds()
    for _ = 1, 20 do ch2:move(0.2, -0.05, 0) end
    local _, y21 = w2:shape("p"):bounds()
    assert.is_true(y21 < y20, "slid down instead of climbing")
  end)
end)

describe("Character: steps (3D, up +y)", function()
  local function stairs(rise)
    local w = World()
    w:add("floor", AABB(-10, -1, -3, 20, 0, 3))
    for i = 0, 3 do w:add("step" .. i, AABB(2 + i, 0, -3, 3 + i, rise * (i + 1), 3)) end
    w:add("top", AABB(6, 0, -3, 12, rise * 4, 3))
    w:add("p", AABB(0, 0, -0.5, 1, 2, 0.5))
    return w
  end

  it("steps no higher than step are climbed; walking back down them within snap stays grounded", function()
    local w = stairs(0.25)
    local ch = Character(w, "p", { step = 0.3, snap = 0.3 })
    for _ = 1, 45 do ch:move(0.2, -0.2, 0) end
    local x0, y0 = w:shape("p"):bounds()
    near(9, x0, 1e-9, "walked to the top")
    near(1, y0, 1e-9, "on the top")
    assert.is_true((ch:grounded()))
    local _, item = ch:grounded()
    assert.equal("top", item)
    local last = y0
    for f = 1, 45 do
      ch:move(-0.2, -0.2, 0)
      assert.is_true((ch:grounded()), "down, frame " .. f)
      local _, y = w:shape("p"):bounds()
      assert.is_true(y <= last + 1e-12, "never rises walking down")
      last = y
    end
    local xe, ye = w:shape("p"):bounds()
    near(0, ye, 1e-9, "back on the floor")
    near(0, xe, 1e-9, "back at the start")
  end)

  it("round-bottomed characters climb steps at any walking speed (capsule and sphere)", function()
    -- raised by step and carried on by a short walk, a round bottom lands on the step's edge, whose
    -- contact normal is steeper than maxslope until its centre is nearly over it: at 0.05 per move
    -- the step-up was refused every time and the character stood at the first step's face
    for _, speed in ipairs { 0.02, 0.05, 0.1, 0.2 } do
      for _, kind in ipairs { "capsule", "sphere" } do
        local w = stairs(0.25)
        w:remove("p")
        if kind == "capsule" then
          w:add("p", collide.Capsule(0.5, 0.35, 0, 0.5, 1.65, 0, 0.35))
        else
          w:add("p", Sphere(0.5, 0.35, 0, 0.35))
        end
        local ch = Character(w, "p", { step = 0.3, snap = 0.3 })
        local lastx = -1
        for _ = 1, math.ceil(9 / speed) do
          local ax = ch:move(speed, -0.05, 0)
          assert.is_true(ax <= speed * 1.01 + 0.35, "never runs ahead by more than its radius")
          local x0 = w:shape("p"):aabb():bounds()
          assert.is_true(x0 >= lastx - 1e-9, "never walks back")
          lastx = x0
        end
        local x0, y0 = w:shape("p"):aabb():bounds()
        assert.is_true(x0 > 7, kind .. " at " .. speed .. " per move walked to the top (x " .. x0 .. ")")
        near(1, y0, 1e-9, kind .. " on the top")
        local g, item = ch:grounded()
        assert.is_true(g)
        assert.equal("top", item)
      end
    end
  end)

  it("a step higher than step stops it; a jump clears it", function()
    local w = stairs(0.5)
    local ch = Character(w, "p", { step = 0.3, snap = 0.3 })
    for _ = 1, 20 do ch:move(0.2, -0.2, 0) end
    local x0, y0 = w:shape("p"):bounds()
    near(1, x0, 1e-9, "stopped at the first step's face")
    near(0, y0, 1e-9, "still on the floor")
    assert.is_true((ch:grounded()))
    ch:move(0, 0.6, 0)                      -- a jump: moving away from the ground
    assert.is_false((ch:grounded()))
    ch:move(0.5, -0.05, 0)
    ch:move(0, -1, 0)
    local _, item = ch:grounded()
    assert.equal("step0", item)
  end)
end)

describe("Character: moving platforms", function()
  it("a platform moved since the last move carries the character standing on it", function()
    local w = World()
    w:add("plat", AABB(0, -1, -2, 4, 0, 2))
    w:add("wall", AABB(9, -5, -5, 10, 5, 5))
    w:add("p", AABB(1, 0, -0.5, 2, 2, 0.5))
    local ch = Character(w, "p")
    ch:move(0, -0.1, 0)
    local _, item = ch:grounded()
    assert.equal("plat", item)
    w:update("plat", AABB(1.5, -1, -2, 5.5, 0, 2))   -- sideways by 1.5
    local ax, ay, az = ch:move(0, -0.1, 0)
    near(1.5, ax); near(0, ay); near(0, az)
    w:translate("plat", 0, 0.5, 0)                    -- up into the character
    ax, ay, az = ch:move(0, -0.1, 0)
    near(0, ax); near(0.5, ay); near(0, az)
    w:translate("plat", 0, -0.3, 0)                   -- down
    ax, ay, az = ch:move(0.25, -0.1, 0)
    near(0.25, ax); near(-0.3, ay); near(0, az)
    assert.is_true((ch:grounded()))
    local want, got = { 2.75, 0.2, -0.5, 3.75, 2.2, 0.5 }, { w:shape("p"):bounds() }
    for i = 1, 6 do near(want[i], got[i], 1e-9, "bound " .. i) end
    w:translate("plat", 6, 0, 0)                      -- into the wall: carried until it
    ch:move(0, -0.1, 0)
    local x1, _, _, x2 = w:shape("p"):bounds()
    near(9, x2, 1e-9, "stopped by the wall")
    near(8, x1, 1e-9)
  end)

  it("a platform that moved while the character was in the air does not carry it", function()
    local w = World()
    w:add("plat", AABB(0, -1, -2, 4, 0, 2))
    w:add("p", AABB(1, 1, -0.5, 2, 3, 0.5))
    local ch = Character(w, "p")
    ch:move(0, -0.5, 0)
    assert.is_false((ch:grounded()))
    w:translate("plat", 1, 0, 0)
    local ax = ch:move(0, -0.1, 0)
    near(0, ax)
  end)
end)

describe("Character: 2D (flat boxes, up {0,-1,0}, y down)", function()
  it("walks, climbs a step, stands on a walkable ramp without drifting", function()
    local w = World()
    w:add("floor", AABB(-10, 0, 0, 30, 1, 0))
    w:add("step", AABB(3, -0.25, 0, 5, 0, 0))
    w:add("p", AABB(0, -2, 0, 1, 0, 0))
    local ch = Character(w, "p", { up = { 0, -1, 0 }, step = 0.3, snap = 0.3 })
    for _ = 1, 15 do ch:move(0.25, 0.2, 0) end
    local x0, y0, _, _, y1 = w:shape("p"):bounds()
    near(3.75, x0); near(-2.25, y0); near(-0.25, y1)
    local g, item, nx, ny, nz = ch:grounded()
    assert.is_true(g); assert.equal("step", item)
    assert.same({ 0, -1, 0 }, { nx, ny, nz })
    -- a 26.6-degree ramp in 2D, rising to the right (y down): a flat OBB
    local a = math.atan(0.5)
    local s, c = math.sin(a), math.cos(a)
    local w2 = World()
    w2:add("ramp", OBB(s, c, 0, 20, 1, 0, c, -s, 0, s, c, 0, 0, 0, 1))
    local hx = function(x) return -x * s / c end          -- top face height at x (y down)
    w2:add("p", AABB(1, hx(2) - 2.5, 0, 2, hx(2) - 0.5, 0))
    local ch2 = Character(w2, "p", { up = { 0, -1, 0 } })
    ch2:move(0, 1, 0)
    assert.is_true((ch2:grounded()))
    local p0 = { w2:shape("p"):bounds() }
    for _ = 1, 90 do ch2:move(0, 0.2, 0) end
    local p1 = { w2:shape("p"):bounds() }
    for i = 1, 6 do near(p0[i], p1[i], 1e-9) end
  end)
end)

describe("Character: results", function()
  it("move returns the displacement and the collisions like world:move, into out when given", function()
    local w = World()
    w:add("floor", AABB(-10, -1, -3, 20, 0, 3))
    w:add("wall", AABB(3, 0, -3, 4, 5, 3))
    w:add("p", AABB(0, 0, -0.5, 1, 2, 0.5))
    local ch = Character(w, "p")
    local out = {}
    local ax, ay, az, cols, n = ch:move(3, -0.5, 0, nil, out)
    assert.equal(out, cols)
    near(2, ax); near(0, ay); near(0, az)
    assert.is_true(n >= 2)
    local saw = {}
    for i = 1, n do saw[cols[i].other] = true end
    assert.is_true(saw.floor and saw.wall)
    -- a filter sees (item, other) and can make the wall crossable
    ax = ch:move(3, -0.5, 0, function(_, other) return other == "wall" and "cross" or "slide" end)
    near(3, ax)
  end)
end)

describe("Character: random levels", function()
  local gen = require "support.gen"
  local MOVES = os.getenv("COLLIDE_QUICK") and 1500 or 6000

  it("never ends inside an item it was not inside, reports what it made, and its ground is real", function()
    local r = gen.new(2612)
    local moves, grounded = 0, 0
    while moves < MOVES do
      local w, items = World(), {}
      local flat = r:chance(0.3)
      local function add(name, s) w:add(name, s); items[#items + 1] = name end
      local function box(x0, y0, x1, y1, z0, z1)
        if flat then return AABB(x0, y0, 0, x1, y1, 0) end
        return AABB(x0, y0, z0 or -3, x1, y1, z1 or 3)
      end
      for i = 0, r:int(4, 12) do add("f" .. i, box(i, -1, i + 1, 0)) end          -- a floor of tiles
      for i = 1, r:int(0, 4) do                                                   -- steps and blocks
        local x, h = r:int(1, 10) / 2, r:int(1, 8) / 8
        add("s" .. i, box(x, 0, x + r:int(1, 4) / 4, h))
      end
      if r:chance(0.5) then                                                       -- a ramp
        local a = math.rad(r:int(10, 70))
        local s, c = math.sin(a), math.cos(a)
        add("ramp", OBB(r:int(2, 10) + s, -c, 0, 3, 1, flat and 0 or 3, c, s, 0, -s, c, 0, 0, 0, 1))
      end
      local sphere = not flat and r:chance(0.3)
      local x0 = r:int(0, 16) / 4
      if sphere then w:add("p", Sphere(x0, 3, 0, 0.4)) else w:add("p", box(x0, 2, x0 + 0.75, 3.5, -0.4, 0.4)) end
      local ch = Character(w, "p", { step = r:int(0, 3) / 8, snap = r:int(0, 3) / 8, maxslope = math.rad(r:int(20, 60)) })
      for _ = 1, 40 do
        local before = w:shape("p")
        local inside = {}
        for _, it in ipairs(items) do inside[it] = before:penetration(w:shape(it)) ~= nil end
        local dx, dy, dz = r:float() * 0.6 - 0.3, r:chance(0.1) and 0.5 or -r:float() * 0.3,
          flat and 0 or r:float() * 0.2 - 0.1
        local ax, ay, az, cols, n = ch:move(dx, dy, dz)
        moves = moves + 1
        local after = w:shape("p")
        local b0, b1 = { before:aabb():bounds() }, { after:aabb():bounds() }
        assert.is_true(math.abs((b1[1] - b0[1]) - ax) < 1e-9 and math.abs((b1[2] - b0[2]) - ay) < 1e-9 and
          math.abs((b1[3] - b0[3]) - az) < 1e-9, "reported displacement")
        assert.equal(n, #cols)
        for _, it in ipairs(items) do
          if not inside[it] then
            local d = after:penetration(w:shape(it))
            assert(d == nil or d < 1e-9, "ended inside " .. it .. " by " .. tostring(d))
          end
        end
        local g, item, nx, ny, nz = ch:grounded()
        if g then
          grounded = grounded + 1
          assert.is_true(w:has(item) and item ~= "p")
          assert.is_true(math.abs(nx * nx + ny * ny + nz * nz - 1) < 1e-9)
        end
      end
      w:destroy()
    end
    assert.is_true(grounded > MOVES / 4)
  end)
end)
