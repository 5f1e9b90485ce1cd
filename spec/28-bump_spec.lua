-- bump.lua 3.1.7's own spec suite (../shared/peers/bump.lua/spec, unchanged) run against
-- collide.bump: `require "bump"` is mapped to collide.bump while the files load.
local dir = "../shared/peers/bump.lua/spec/"

-- Returns the file's chunk with this spec's environment (busted's describe, it, assert, spy).
local function loadspec(path)
  local env = getfenv and getfenv(1) or _ENV
  if setfenv then
    local f = assert(loadfile(path))
    return setfenv(f, env)
  end
  return assert(loadfile(path, "t", env))
end

local present = io.open(dir .. "bump_spec.lua", "r")
if not present then
  describe("bump.lua's spec suite", function()
    pending("skipped: " .. dir .. " is absent (bump.lua 3.1.7's specs sit beside the project in ../shared)")
  end)
  return
end
present:close()

describe("bump.lua's spec suite on collide.bump", function()
  -- busted insulates each spec file: these two entries go away after this file
  package.loaded.bump = nil
  package.preload.bump = function() return require "collide.bump" end
  for _, name in ipairs { "bump_spec.lua", "rect_spec.lua", "responses_spec.lua", "World_spec.lua" } do
    describe(name, loadspec(dir .. name))
  end
end)

-- collide.bump's own checks: bump's error texts, non-finite input, callbacks that use the world.
describe("collide.bump: errors and callbacks", function()
  local bump = require "collide.bump"
  local rf = io.open("../shared/peers/bump.lua/bump.lua", "r")
  local real = rf and dofile("../shared/peers/bump.lua/bump.lua")
  if rf then rf:close() end

  -- Returns the error message of f() without a "file:line: " prefix (nil when f succeeds).
  local function errof(f, ...)
    local ok, e = pcall(f, ...)
    if ok then return nil end
    return (tostring(e):gsub("^[^:]*:%d+: ", ""))
  end

  it("raises bump's errors with bump's wording", function()
    local cases = {
      function(b) local w = b.newWorld(); local t = setmetatable({}, { __tostring = function() return "T" end }); w:add(t, 0, 0, 1, 1); w:add(t, 0, 0, 1, 1) end,
      function(b) local w = b.newWorld(); w:getRect(setmetatable({}, { __tostring = function() return "U" end })) end,
      function(b) local w = b.newWorld(); w:add("a", "x", 0, 1, 1) end,
      function(b) local w = b.newWorld(); w:add("a", 0, nil, 1, 1) end,
      function(b) local w = b.newWorld(); w:add("a", 0, 0, -1, 1) end,
      function(b) local w = b.newWorld(); w:add("a", 0, 0, 1, 0) end,
      function(b) local w = b.newWorld(); w:queryRect(0, 0, 0, 1) end,
      function(b) local w = b.newWorld(); w:remove("nope") end,
      function(b) local w = b.newWorld(); w:update("nope", 1, 1) end,
      function(b) local w = b.newWorld(); w:add("a", 0, 0, 1, 1); w:add("b", 2, 0, 1, 1); w:move("a", 5, 0, function() return "zap" end) end,
      function(b) local w = b.newWorld(); w:add("a", 0, 0, 1, 1); w:move("a") end,
    }
    for i, case in ipairs(cases) do
      local mine = errof(case, bump)
      assert.is_string(mine, "case " .. i .. " did not raise")
      if real then assert.equals(errof(case, real), mine, "case " .. i) end
    end
    assert.has_error(function() bump.newWorld(0) end)
    assert.has_error(function() bump.newWorld("") end)
  end)

  it("check without a goal answers as bump (nil goal kept when nothing is hit)", function()
    local w = bump.newWorld()
    w:add("a", 0, 0, 1, 1)
    local x, y, cols, len = w:check("a")
    assert.is_nil(x)
    assert.is_nil(y)
    assert.same({}, cols)
    assert.equals(0, len)
  end)

  it("raises a clear error for NaN and infinite numbers (where bump would corrupt or hang its grid), world unchanged", function()
    local nan, inf = 0 / 0, math.huge
    local w = bump.newWorld()
    w:add("a", 0, 0, 1, 1)
    local calls = {
      function() w:add("b", nan, 0, 1, 1) end,
      function() w:add("b", 0, inf, 1, 1) end,
      function() w:add("b", 0, 0, inf, 1) end,
      function() w:add("b", 0, 0, 1, nan) end,
      function() w:update("a", nan, 0) end,
      function() w:update("a", 0, 0, inf, 1) end,
      function() w:move("a", nan, 0) end,
      function() w:move("a", 0, -inf) end,
      function() w:check("a", inf, 0) end,
      function() w:project("a", 0, 0, 1, 1, nan, 0) end,
      function() w:queryRect(nan, 0, 1, 1) end,
      function() w:queryPoint(0, inf) end,
      function() w:querySegment(0, 0, nan, 1) end,
      function() w:querySegmentWithCoords(inf, 0, 1, 1) end,
    }
    for i, f in ipairs(calls) do
      local e = errof(f)
      assert.is_string(e, "call " .. i)
      assert.truthy(e:find("must be a finite number", 1, true), "call " .. i .. ": " .. e)
    end
    assert.same({ 0, 0, 1, 1 }, { w:getRect("a") })
    assert.equals(1, w:countItems())
    assert.is_false(w:hasItem("b"))
    assert.has_error(function() bump.newWorld(inf) end)
  end)

  it("lets filters and custom responses use the world, and recovers after a filter raises", function()
    local w = bump.newWorld()
    local a, b, c, d = { n = "a" }, { n = "b" }, { n = "c" }, { n = "d" }
    w:add(a, 0, 0, 1, 1)
    w:add(b, 2, 0, 1, 1)
    w:add(c, 4, 0, 1, 1)
    w:add(d, 50, 50, 1, 1)
    -- a filter that moves another item (a nested move) and queries
    local x = w:move(a, 10, 0, function(item, other)
      local _, _, cols = w:move(d, 60, 50)
      assert.equals(0, #cols)
      assert.equals(3, #w:queryRect(-1, -1, 10, 3))
      return "cross"
    end)
    assert.equals(10, x)
    assert.same({ 60, 50, 1, 1 }, { w:getRect(d) })
    -- a filter that removes what it is asked about: the move still answers, the item is gone
    w:update(a, 0, 0)
    local _, _, cols, len = w:move(a, 10, 0, function(item, other)
      if other == b then w:remove(b) end
      return "cross"
    end)
    assert.is_false(w:hasItem(b))
    assert.equals(len, #cols)
    -- a filter that raises: the error comes out unchanged, the world works afterwards
    w:update(a, 0, 0)
    local ok, e = pcall(w.move, w, a, 10, 0, function() error({ tag = "boom" }) end)
    assert.is_false(ok)
    assert.equals("boom", e.tag)
    local x2, _, cols2 = w:move(a, 10, 0, function() return "cross" end)
    assert.equals(10, x2)
    assert.equals(1, #cols2)
    -- a custom response that raises, and one that returns no collisions
    w:addResponse("bad", function() error("bad response") end)
    w:update(a, 0, 0)
    assert.has_error(function() w:move(a, 10, 0, function() return "bad" end) end)
    w:addResponse("stop", function(world, col) return col.touch.x, col.touch.y end)
    w:update(a, 0, 0)
    local x3, y3, cols3, len3 = w:move(a, 10, 0, function() return "stop" end)
    assert.equals(3, x3)
    assert.equals(0, y3)
    assert.equals(1, len3)
    assert.equals(c, cols3[1].other)
  end)

  it("a response replaced through addResponse is called instead of the built-in one", function()
    local w = bump.newWorld()
    w:add("a", 0, 0, 1, 1)
    w:add("b", 2, 0, 1, 1)
    local seen
    w:addResponse("slide", function(world, col, x, y, ww, hh, gx, gy, filter)
      seen = col
      assert.is_false(filter(col.item, col.other)) -- the visited filter: other is visited
      return gx, gy, {}, 0
    end)
    local x, y, cols, len = w:move("a", 5, 0)
    assert.equals(cols[1], seen)
    assert.same({ 5, 0, 1 }, { x, y, len })
  end)
end)
