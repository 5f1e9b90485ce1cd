-- bump.lua 3.1.7's own spec suite (../shared/peers/bump.lua/spec, unchanged) run against
-- collide.bump: `require "bump"` is mapped to collide.bump while the files load.
-- table.unpack (5.2+) or unpack (5.1, LuaJIT): every argument, not only the first
local unpackn = table.unpack or unpack
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

-- The opt-in extensions: out tables (moves and queries without garbage), the deterministic order
-- of query results, and world:raycast (collide's closest raycast).
describe("collide.bump extensions", function()
  local bump = require "collide.bump"
  local quick = os.getenv("COLLIDE_QUICK") ~= nil

  -- A PRNG: rand() in [0, 1), the same on every Lua.
  local function prng(seed)
    local s = seed
    return function()
      s = (s * 48271) % 2147483647
      return (s - 1) / 2147483646
    end
  end

  -- Returns two worlds holding the same random boxes (names 1..n), many touching on a 4-unit grid.
  local function twins(rand, n)
    local a, b = bump.newWorld(16), bump.newWorld(16)
    local items = {}
    for i = 1, n do
      local x, y = math.floor(rand() * 50) * 4, math.floor(rand() * 50) * 4
      local w, h = 4 * (1 + math.floor(rand() * 4)), 4 * (1 + math.floor(rand() * 4))
      if rand() < 0.3 then x, y = x + rand(), y + rand() end
      local it = { name = i }
      items[i] = it
      a:add(it, x, y, w, h)
      b:add(it, x, y, w, h)
    end
    return a, b, items
  end

  it("move, check, project and the queries with an out table answer exactly as without", function()
    local rand = prng(11)
    local a, b, items = twins(rand, 120)
    local responses = { "slide", "touch", "cross", "bounce" }
    local filter = function(item, other) return responses[(item.name + other.name) % 4 + 1] end
    local outc, outp, outq, outs, outi = {}, {}, {}, {}, {}
    for _ = 1, quick and 300 or 1500 do
      local it = items[1 + math.floor(rand() * #items)]
      local x, y = a:getRect(it)
      local gx, gy = x + (rand() - 0.5) * 40, y + (rand() - 0.5) * 40
      local r1 = { a:move(it, gx, gy, filter) }
      local r2 = { b:move(it, gx, gy, filter, outc) }
      assert.same(r1, r2)
      assert.equals(outc, r2[3])
      assert.equals(r2[4], #outc)
      local w, h = select(3, a:getRect(it))
      assert.same({ a:project(it, gx, gy, w, h, x, y, filter) }, { b:project(it, gx, gy, w, h, x, y, filter, outp) })
      local qx, qy, qw, qh = rand() * 200, rand() * 200, rand() * 60 + 1, rand() * 60 + 1
      assert.same({ a:queryRect(qx, qy, qw, qh) }, { b:queryRect(qx, qy, qw, qh, nil, outq) })
      assert.same({ a:queryPoint(qx, qy) }, { b:queryPoint(qx, qy, nil, outq) })
      assert.same({ a:querySegment(qx, qy, gx, gy) }, { b:querySegment(qx, qy, gx, gy, nil, outs) })
      assert.same({ a:querySegmentWithCoords(qx, qy, gx, gy) }, { b:querySegmentWithCoords(qx, qy, gx, gy, nil, outi) })
    end
  end)

  it("a steady move with an out table makes no garbage", function()
    local w = bump.newWorld()
    local wall = w:add({}, 100, 0, 10, 100)
    local p = w:add({}, 80, 10, 10, 10)
    local cols = {}
    local function frame()
      w:update(p, 80, 10)
      local _, _, c, len = w:move(p, 95, 12, nil, cols)
      assert(len == 1 and c[1].other == wall)
    end
    local function run(k) for _ = 1, k do frame() end end
    run(2000)
    -- LuaJIT's trace compiler allocates GC objects of its own (traces, and each retry of a trace
    -- that aborts, at randomised intervals): a warm-up did not keep them out of the measure (66
    -- and 69 KB in two LÖVE runs), so the library is measured with the JIT off and its traces
    -- flushed, as in spec/09 (the interpreter sinks no allocation: a stricter measure)
    if jit then jit.off(); jit.flush() end
    collectgarbage()
    collectgarbage("stop")
    run(20)
    local before = collectgarbage("count")
    run(2000)
    local grew = (collectgarbage("count") - before) * 1024
    collectgarbage("restart")
    if jit then jit.on() end
    assert.is_true(grew < 2000 * 8, ("%d bytes for 2000 moves"):format(grew))
  end)

  it("queries list items in slot order: the order of add, a removed item's slot reused by the next add", function()
    local w = bump.newWorld()
    local names = {}
    for i = 1, 30 do
      local it = { name = i }
      names[i] = it
      w:add(it, (i * 7919) % 31, (i * 104729) % 17, 5, 5)
    end
    local items = w:queryRect(-10, -10, 100, 100)
    assert.equals(30, #items)
    for i = 1, 30 do assert.equals(names[i], items[i]) end
    w:remove(names[5])
    local new = { name = "new" }
    w:add(new, 0, 0, 5, 5)
    items = w:queryRect(-10, -10, 100, 100)
    assert.equals(new, items[5])
  end)

  it("world:raycast gives the closest item along the segment, as a brute force over bump.rect does", function()
    local rand = prng(5)
    local w, _, items = twins(rand, 150)
    local gsi = bump.rect.getSegmentIntersectionIndices
    for _ = 1, quick and 500 or 3000 do
      local x1, y1 = rand() * 220 - 10, rand() * 220 - 10
      local x2, y2 = rand() * 220 - 10, rand() * 220 - 10
      if rand() < 0.3 then x1, y1, x2, y2 = math.floor(x1 / 4) * 4, math.floor(y1 / 4) * 4, math.floor(x2 / 4) * 4, math.floor(y2 / 4) * 4 end
      local best, bt, bnx, bny
      for _, it in ipairs(items) do
        local l, t, ww, hh = w:getRect(it)
        local t1, t2, nx, ny = gsi(l, t, ww, hh, x1, y1, x2, y2, 0, 1)
        if t1 and ((0 < t1 and t1 < 1) or (0 < t2 and t2 < 1)) and (not bt or t1 < bt) then
          best, bt, bnx, bny = it, t1, nx, ny
        end
      end
      local item, x, y, nx, ny, t = w:raycast(x1, y1, x2, y2)
      assert.equals(best, item)
      if best then
        assert.same({ x1 + (x2 - x1) * bt, y1 + (y2 - y1) * bt, bnx, bny, bt }, { x, y, nx, ny, t })
      end
      -- with a filter: the closest accepted one
      local odd = w:raycast(x1, y1, x2, y2, function(it) return it.name % 2 == 1 end)
      if odd then assert.equals(1, odd.name % 2) end
    end
  end)
end)

-- Random calls of every world method with random argument types and counts: each returns or raises
-- a string error; a call that raises leaves every item's rect as it was; nothing crashes.
describe("collide.bump out tables", function()
  it("refuse a bump world as the out table (clearing it would wipe that world)", function()
    local bump = require "collide.bump"
    local w = bump.newWorld(64)
    w:add("a", 0, 0, 10, 10)
    -- the whole standard wording, the method named and its argument counted after self (also on
    -- LuaJIT, where the FFI path's Lua wrappers call the classic methods)
    for _, c in ipairs {
      { function() return w:queryPoint(5, 5, nil, w) end, "#4 to 'queryPoint'" },
      { function() return w:queryRect(0, 0, 20, 20, nil, w) end, "#6 to 'queryRect'" },
      { function() return w:querySegment(-1, 5, 20, 5, nil, w) end, "#6 to 'querySegment'" },
      { function() return w:querySegmentWithCoords(-1, 5, 20, 5, nil, w) end, "#6 to 'querySegmentWithCoords'" },
      { function() return w:move("a", 30, 0, nil, w) end, "#5 to 'move'" },
      { function() return w:check("a", 30, 0, nil, w) end, "#5 to 'check'" },
      { function() return w:project("a", 0, 0, 10, 10, 30, 0, nil, w) end, "#9 to 'project'" },
    } do
      local ok, err = pcall(c[1])
      assert.is_false(ok)
      assert.truthy(tostring(err):find("bad argument " .. c[2] .. " (out table is a bump world)", 1, true), tostring(err))
      assert.same({ 0, 0, 10, 10 }, { w:getRect("a") })
      assert.equal(1, w:countItems())
    end
  end)
end)

describe("collide.bump under API abuse", function()
  local bump = require "collide.bump"
  local quick = os.getenv("COLLIDE_QUICK") ~= nil

  it("every method answers or raises a clean error, and failed calls change nothing", function()
    local s = 99
    local function rnd(n)
      s = (s * 48271) % 2147483647
      return s % n + 1
    end
    local w = bump.newWorld(({ 16, 64, 7.5 })[rnd(3)])
    local items = {}
    for i = 1, 20 do
      items[i] = { i = i }
      w:add(items[i], rnd(100), rnd(100), rnd(20), rnd(20))
    end
    local values = { nil, false, true, 0, -1, 1, 2.5, 1e308, -1e308, 0 / 0, math.huge, -math.huge, "", "5",
      {}, function() end, function() return "slide" end, function() return "cross" end,
      function() return "bogus" end, function() error("in filter") end, coroutine.create(function() end),
      w, items[1], items[2], bump.newWorld() }
    local methods = { "add", "remove", "update", "move", "check", "project", "queryRect", "queryPoint",
      "querySegment", "querySegmentWithCoords", "hasItem", "getItems", "countItems", "getRect", "countCells",
      "toCell", "toWorld", "raycast" }
    local function snapshot()
      local t = {}
      for i, it in ipairs(items) do
        t[i] = w:hasItem(it) and table.concat({ w:getRect(it) }, " ") or "-"
      end
      return table.concat(t, ";") .. "|" .. w:countItems()
    end
    local function arg()
      if rnd(3) == 1 then return items[rnd(#items)] end
      if rnd(2) == 1 then return rnd(200) - 50 end
      return values[rnd(#values + 1)]
    end
    for _ = 1, quick and 2500 or 10000 do
      local name = methods[rnd(#methods)]
      local n = rnd(10) - 1
      local args = {}
      for k = 1, n do args[k] = arg() end
      local self = rnd(20) == 1 and values[rnd(#values)] or w
      local before = snapshot()
      local ok, err = pcall(w[name], self, unpackn(args, 1, n))
      if not ok then
        assert(type(err) == "string", name .. " raised a " .. type(err))
        assert.equals(before, snapshot(), name .. " changed the world while failing: " .. err)
      end
      -- keep the population up
      for i = 1, #items do
        if not w:hasItem(items[i]) and rnd(4) == 1 then w:add(items[i], rnd(100), rnd(100), rnd(20), rnd(20)) end
      end
    end
    -- the world still answers as a fresh copy of it does
    local copy = bump.newWorld(w.cellSize)
    for _, it in ipairs(items) do
      if w:hasItem(it) then copy:add(it, w:getRect(it)) end
    end
    for _ = 1, 200 do
      local x, y, ww, hh = rnd(120) - 10, rnd(120) - 10, rnd(40), rnd(40)
      local a = w:queryRect(x, y, ww, hh)
      local b = copy:queryRect(x, y, ww, hh)
      local sa, sb = {}, {}
      for i, v in ipairs(a) do sa[i] = v.i end
      for i, v in ipairs(b) do sb[i] = v.i end
      table.sort(sa)
      table.sort(sb)
      assert.same(sb, sa)
    end
  end)
end)
