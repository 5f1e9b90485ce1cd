-- world:translate(item, dx, dy, dz) (an extension): moves an item's stored shape by an offset
-- with no collision response. Errors, exactness, order, queries and pairs against brute force
-- over shape:overlaps, locks. Also: a failing world:move leaves the item where it was even when
-- the failure happens while its collision tables are being built.
local collide = require "collide"
local util = require "support.util"
local errof = util.errof
local list = util.list
local gen = require "support.gen"

local AABB, OBB, Sphere, World = collide.AABB, collide.OBB, collide.Sphere, collide.World

-- Returns a world holding "a" (AABB), "b" (OBB) and "c" (Sphere), added in that order.
local function abc()
  local w = World()
  w:add("a", AABB(0, 0, 0, 1, 1, 1))
  w:add("b", OBB(3, 0.5, 0.5, 0.5, 0.5, 0.5))
  w:add("c", Sphere(6, 0.5, 0.5, 0.5))
  return w
end

describe("world:translate errors", function()
  it("rejects an unknown or nil item like update does", function()
    local w = abc()
    assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, "zz", 1, 2, 3))
    assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, nil, 1, 2, 3))
    assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, 0 / 0, 1, 2, 3))
    w:remove("a")
    assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, "a", 1, 2, 3))
  end)

  it("rejects a non-world self and a destroyed world", function()
    local w = abc()
    assert.equal("bad argument #1 to 'translate' (collide.World expected, got table)", errof(w.translate, {}, "a", 1, 2, 3))
    assert.equal("bad argument #1 to 'translate' (collide.World expected, got collide.AABB)",
      errof(w.translate, AABB(0, 0, 0, 1, 1, 1), "a", 1, 2, 3))
    w:destroy()
    assert.equal("bad argument #1 to 'translate' (world is destroyed)", errof(w.translate, w, "a", 1, 2, 3))
  end)

  it("translate, update, move and check reject a userdata that only has the World metatable", function()
    if not (debug and debug.setmetatable) then return end
    local w = abc()
    local mt = getmetatable(w)
    local fake = AABB(0, 0, 0, 1, 1, 1)
    local old = debug.setmetatable(fake, mt) and getmetatable(AABB(0, 0, 0, 1, 1, 1))
    local calls = {
      translate = function() return w.translate(fake, "a", 1, 0, 0) end,
      update = function() return w.update(fake, "a", AABB(0, 0, 0, 1, 1, 1)) end,
      move = function() return w.move(fake, "a", 1, 0, 0) end,
      check = function() return w.check(fake, "a", 1, 0, 0) end,
    }
    for name, f in pairs(calls) do
      assert.equal("bad argument #1 to '" .. name .. "' (collide.World expected, got collide.World)", errof(f))
    end
    debug.setmetatable(fake, old)
    assert.equal(AABB(0, 0, 0, 1, 1, 1), w:shape("a"))
  end)

  it("rejects missing, non-number, NaN and infinite offsets naming the argument, changing nothing", function()
    local w = abc()
    assert.equal("bad argument #3 to 'translate' (number expected, got no value)", errof(w.translate, w, "a"))
    assert.equal("bad argument #4 to 'translate' (number expected, got string)", errof(w.translate, w, "a", 1, "x", 3))
    assert.equal("bad argument #5 to 'translate' (number expected, got table)", errof(w.translate, w, "a", 1, 2, {}))
    assert.equal("bad argument #3 to 'translate' (number is not finite)", errof(w.translate, w, "a", 0 / 0, 2, 3))
    assert.equal("bad argument #4 to 'translate' (number is not finite)", errof(w.translate, w, "a", 1, math.huge, 3))
    assert.equal("bad argument #5 to 'translate' (number is not finite)", errof(w.translate, w, "a", 1, 2, -math.huge))
    assert.equal(AABB(0, 0, 0, 1, 1, 1), w:shape("a"))
  end)

  it("rejects a result that is not finite for each kind, naming the offending axis, changing nothing", function()
    local big = 1.5e308
    local w = World()
    w:add("a", AABB(0, 0, big, 1, 1, big))
    w:add("b", OBB(big, 0, 0, 1, 1, 1))
    w:add("c", Sphere(0, -big, 0, 1))
    assert.equal("bad argument #5 to 'translate' (result is not finite)", errof(w.translate, w, "a", 1, 1, big))
    assert.equal("bad argument #3 to 'translate' (result is not finite)", errof(w.translate, w, "b", big, 0, 0))
    assert.equal("bad argument #4 to 'translate' (result is not finite)", errof(w.translate, w, "c", 0, -big, 0))
    -- only the max side of an AABB overflows
    w:add("d", AABB(-1, 0, 0, big, 1, 1))
    assert.equal("bad argument #3 to 'translate' (result is not finite)", errof(w.translate, w, "d", big, 0, 0))
    assert.equal(AABB(0, 0, big, 1, 1, big), w:shape("a"))
    assert.equal(OBB(big, 0, 0, 1, 1, 1), w:shape("b"))
    assert.equal(Sphere(0, -big, 0, 1), w:shape("c"))
    assert.equal(AABB(-1, 0, 0, big, 1, 1), w:shape("d"))
    assert.same({ "d" }, list((w:querypoint(0, 0.5, 0.5)), 1))
  end)

  it("accepts numeric strings as luaL_checknumber does and returns nothing", function()
    local w = abc()
    assert.equal(0, select("#", w:translate("a", "1", "0.5", "-2")))
    assert.equal(AABB(1, 0.5, -2, 2, 1.5, -1), w:shape("a"))
  end)
end)

describe("world:translate results", function()
  it("moves each kind exactly as shape:translate would (same additions)", function()
    local w = World()
    local a, o, s = AABB(0.1, 0.2, 0.3, 1.7, 2.9, 3.1), OBB(0.3, 0.7, 1.1, 1, 2, 3, 0, 1, 0, -1, 0, 0, 0, 0, 1), Sphere(0.1, 0.2, 0.3, 0.4)
    w:add(1, a)
    w:add(2, o)
    w:add(3, s)
    w:translate(1, 0.7, -0.1, 1e-9)
    w:translate(2, 1 / 3, 2 / 3, -0.2)
    w:translate(3, 0.2, 0.1, 0.3)
    w:translate(3, -0.05, 0, 0)
    assert.equal(a:translate(0.7, -0.1, 1e-9), w:shape(1))
    assert.equal(AABB(0.1 + 0.7, 0.2 - 0.1, 0.3 + 1e-9, 1.7 + 0.7, 2.9 - 0.1, 3.1 + 1e-9), w:shape(1))
    assert.equal(o:translate(1 / 3, 2 / 3, -0.2), w:shape(2))
    assert.equal(Sphere(0.1 + 0.2 - 0.05, 0.2 + 0.1, 0.3 + 0.3, 0.4), w:shape(3))
  end)

  it("a zero offset changes nothing and the world's answers follow the new place", function()
    local w = abc()
    w:translate("a", 0, 0, 0)
    assert.equal(AABB(0, 0, 0, 1, 1, 1), w:shape("a"))
    w:translate("a", 10, 0, 0)
    local r, n = w:querypoint(0.5, 0.5, 0.5)
    assert.equal(0, n)
    r, n = w:querypoint(10.5, 0.5, 0.5)
    assert.same({ "a" }, list(r, n))
    local item, t = w:raycast(collide.Ray(20, 0.5, 0.5, -1, 0, 0))
    assert.equal("a", item)
    assert.equal(9, t)
  end)

  it("keeps the order added (queries and pairs list a, b, c as before)", function()
    local w = abc()
    w:translate("a", 5.5, 0, 0)   -- now at x 5.5..6.5, overlapping c
    w:translate("b", 3, 0, 0)     -- centre 6: overlaps both
    local r, n = w:query(AABB(5, 0, 0, 7, 1, 1))
    assert.same({ "a", "b", "c" }, list(r, n))
    local p, np = w:pairs()
    assert.equal(3, np)
    assert.same({ "a", "b", "a", "c", "b", "c" }, list(p, 2 * np))
    w:translate("c", -6, 0, 0)    -- away from both; order of the rest unchanged
    p, np = w:pairs()
    assert.same({ "a", "b" }, list(p, 2 * np))
    w:remove("a")
    w:add("a", AABB(6, 0, 0, 7, 1, 1))  -- re-added: now last
    w:translate("a", 0, 0, 0.25)
    r, n = w:query(AABB(5, 0, 0, 7, 1, 1))
    assert.same({ "b", "a" }, list(r, n))
  end)

  it("move starts from the translated place", function()
    local w = World()
    w:add("wall", AABB(10, 0, 0, 11, 1, 1))
    w:add("m", AABB(0, 0, 0, 1, 1, 1))
    w:translate("m", 5, 0, 0)
    local ax, ay, az, cols, n = w:move("m", 10, 0, 0)
    assert.same({ 4, 0, 0, 1 }, { ax, ay, az, n })
    assert.equal("wall", cols[1].other)
    assert.equal(AABB(9, 0, 0, 10, 1, 1), w:shape("m"))
  end)

  it("queries, querypoint and pairs after many translates equal brute force over shape:overlaps", function()
    local rng = gen.new(1403)
    local N = 60
    local w = World({ margin = 0.25 })
    local function coord() return rng:int(0, 24) * 0.5 end
    local function make(k)
      if k == 1 then
        local x, y, z = coord(), coord(), coord()
        return AABB(x, y, z, x + rng:int(0, 6) * 0.5, y + rng:int(0, 6) * 0.5, z + rng:int(0, 6) * 0.5)
      elseif k == 2 then
        return Sphere(coord(), coord(), coord(), rng:int(0, 4) * 0.5)
      else
        return OBB(coord(), coord(), coord(), rng:int(0, 4) * 0.5, rng:int(1, 4) * 0.5, rng:int(1, 4) * 0.5,
          0, 0, 1, 1, 0, 0, 0, 1, 0)
      end
    end
    for i = 1, N do w:add(i, make(i % 3 + 1)) end
    local checked, hits = 0, 0
    for round = 1, 40 do
      for _ = 1, 25 do
        local i = rng:int(1, N)
        local before = w:shape(i)
        local dx, dy, dz = rng:int(-4, 4) * 0.25, rng:int(-4, 4) * 0.25, rng:int(-4, 4) * 0.25
        if rng:chance(0.1) then dx = rng:float() - 0.5 end
        w:translate(i, dx, dy, dz)
        assert.equal(before:translate(dx, dy, dz), w:shape(i))
      end
      local shapes = {}
      for i = 1, N do shapes[i] = w:shape(i) end
      for _ = 1, 5 do
        local q = make(rng:int(1, 3))
        local want = {}
        for i = 1, N do if shapes[i]:overlaps(q) then want[#want + 1] = i end end
        local r, n = w:query(q)
        assert.same(want, list(r, n))
        hits = hits + n
        checked = checked + 1
        local x, y, z = coord(), coord(), coord()
        want = {}
        for i = 1, N do if shapes[i]:contains(x, y, z) then want[#want + 1] = i end end
        r, n = w:querypoint(x, y, z)
        assert.same(want, list(r, n), "round " .. round)
      end
      local want = {}
      for a = 1, N do
        for b = a + 1, N do
          if shapes[a]:overlaps(shapes[b]) then want[#want + 1] = a; want[#want + 1] = b end
        end
      end
      local p, np = w:pairs()
      assert.same(want, list(p, 2 * np))
    end
    assert.truthy(hits > checked, "the random queries hit too little to test anything")
  end)
end)

describe("world:translate and locks", function()
  it("is locked inside every kind of filter and works again afterwards", function()
    local w = abc()
    local calls = {
      function(f) return w:query(AABB(-10, -10, -10, 10, 10, 10), f) end,
      function(f) return w:querypoint(0.5, 0.5, 0.5, f) end,
      function(f) return w:raycast(collide.Ray(-1, 0.5, 0.5, 1, 0, 0), nil, f) end,
      function(f) return w:raycastall(collide.Ray(-1, 0.5, 0.5, 1, 0, 0), nil, f) end,
      function(f) return w:sweep(AABB(-2, 0, 0, -1, 1, 1), 10, 0, 0, f) end,
    }
    for k, call in ipairs(calls) do
      local inner
      call(function() inner = { pcall(w.translate, w, "c", 1, 0, 0) }; return true end)
      assert.is_table(inner, "filter " .. k .. " not called")
      assert.is_false(inner[1])
      assert.truthy(tostring(inner[2]):find("world is locked (called from a filter)", 1, true), tostring(inner[2]))
      assert.equal(Sphere(6, 0.5, 0.5, 0.5), w:shape("c"))
    end
    w:translate("c", 1, 0, 0)
    assert.equal(Sphere(7, 0.5, 0.5, 0.5), w:shape("c"))
  end)

  it("inside a move filter: the error propagates, the mover stays put and the world unlocks", function()
    local w = World()
    w:add("m", AABB(0, 0, 0, 1, 1, 1))
    w:add("o", AABB(2, 0, 0, 3, 1, 1))
    local e = errof(w.move, w, "m", 5, 0, 0, function() w:translate("o", 1, 0, 0); return "slide" end)
    assert.truthy(tostring(e):find("world is locked (called from a filter)", 1, true), tostring(e))
    assert.equal(AABB(0, 0, 0, 1, 1, 1), w:shape("m"))
    assert.equal(AABB(2, 0, 0, 3, 1, 1), w:shape("o"))
    w:translate("o", 1, 0, 0)
    assert.equal(AABB(3, 0, 0, 4, 1, 1), w:shape("o"))
  end)
end)

-- A finalizer that raises makes the next allocation that runs it fail: Lua 5.1, 5.2 and 5.3
-- propagate such errors to the allocating call. 5.4 turns them into warnings, and LuaJIT may
-- crash on them (an error thrown from a finalizer run inside compiled code), so there the test
-- is pending: the failure cannot be provoked safely from Lua.
local finalizable = util.finalizable

-- Provoking the failure needs a finalizer error raised inside the move's table building. Only
-- PUC Lua 5.1's collector does that reliably (5.4 turns finalizer errors into warnings, LuaJIT
-- crashes on them by itself, and 5.2/5.3 seldom run a finalizer inside this move).
local propagates = _VERSION == "Lua 5.1" and type(jit) ~= "table"
describe("world:move failing while it builds its collision tables", function()
  local test = propagates and it or pending
  test("leaves the item where it was (and a successful move puts it at the new place)", function()
    local w = World()
    for i = 1, 40 do w:add(i, AABB(i, 0, 0, i + 0.5, 1, 1)) end
    w:add("m", AABB(0, 0, 0, 0.5, 1, 1))
    local cross = function() return "cross" end
    local armed, failed, passed = false, 0, 0
    local bomb = function() if armed then error("finalizer bomb", 0) end end
    collectgarbage("collect")
    -- 400 attempts or more, until both outcomes were seen: about 1 in 100 moves meets the bomb
    -- alone, fewer after other specs ran (CI once saw none in 400).
    local attempt = 0
    while attempt < 400 or ((failed == 0 or passed == 0) and attempt < 4000) do
      attempt = attempt + 1
      for _ = 1, 20 do finalizable(bomb) end
      local before = w:shape("m")
      local dx = before:bounds() < 20 and 50 or -50
      -- the outer pcall catches a bomb that goes off as the inner pcall starts, before the move
      -- (Lua 5.1 can run finalizers there); such an attempt only checks the item is unchanged
      local started, ok, ax, _, _, cols, n = pcall(function()
        armed = true
        return pcall(w.move, w, "m", dx, 0, 0, cross)
      end)
      armed = false
      if not started then
        assert.equal(before, w:shape("m"))
      elseif ok then
        passed = passed + 1
        assert.equal(40, n)
        assert.equal(40, #cols)
        assert.equal(before:translate(ax, 0, 0), w:shape("m"))
      else
        assert.truthy(tostring(ax):find("finalizer bomb", 1, true), tostring(ax))
        failed = failed + 1
        assert.equal(before, w:shape("m"))
      end
      -- the world is consistent either way: queries agree with the stored shape
      local x0 = w:shape("m"):bounds()
      local r, k = w:querypoint(x0 + 0.25, 0.5, 0.5)
      assert.equal("m", r[k])
    end
    armed = false
    collectgarbage("collect")
    assert.truthy(failed > 0, "no move failed: the test provoked nothing")
    assert.truthy(passed > 0, "no move succeeded")
  end)
end)
