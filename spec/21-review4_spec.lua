-- Review of the World binding's item -> id caches and spare collision tables, and of the core's
-- 4-wide box-query snapshot: hostile cases (every kind of item, numbers that are one table key
-- written differently, addresses reused after a collection, destroyed worlds, out tables) and a
-- random differential against a plain Lua reference of what is in the world, with the box
-- queries (query, querypoint, raycast, pairs) checked against the shapes' own tests item by
-- item (long runs of queries over an unchanged tree, so the snapshot is built and used).
local collide = require "collide"
local util = require "support.util"
local errof = util.errof

local AABB, OBB, Sphere, Ray, World = collide.AABB, collide.OBB, collide.Sphere, collide.Ray, collide.World
local unpack = table.unpack or unpack
-- COLLIDE_QUICK=1 (set by `make check` under the sanitizers and valgrind): a quarter of the
-- rounds and operations
local Q = os.getenv("COLLIDE_QUICK") and 4 or 1

-- A deterministic generator, the same cases on every Lua (Park-Miller: the products stay below
-- 2^46, exact in doubles on 5.1, 5.2 and LuaJIT too).
local function lcg(seed)
  local s = seed
  return function(n)
    s = (s * 16807) % 2147483647
    return math.floor(s / 2147483647 * n) + 1
  end
end

local withgc = util.finalizable      -- an object whose finalizer is f

-- The world's user value (uservalue on 5.2+, environment on 5.1 and LuaJIT).
local function uservalue(w)
  if debug.getuservalue then
    local u = debug.getuservalue(w, 1)
    if type(u) == "table" then return u end
  end
  if debug.getfenv then return debug.getfenv(w) end
end

describe("review 4: item lookup edge cases", function()
  it("keeps every number that is a distinct table key apart, and equal ones together", function()
    local w = World()
    local nums = { 0, 1, 2, 63, 64, 1023, 1024, 1025, 4095, 4096, 2 ^ 31 - 1, 2 ^ 31, 2 ^ 32,
                   2 ^ 53, 2 ^ 63, -2 ^ 63, -1, 0.5, 1.5, 2 ^ -1074, 2 ^ -1022, 1e300, math.huge,
                   -math.huge, 2 ^ 53 - 1, 2 ^ 30, 2 ^ 30 - 1 }
    if math.type then
      nums[#nums + 1] = math.maxinteger
      nums[#nums + 1] = math.mininteger
      nums[#nums + 1] = math.tointeger(2 ^ 53) + 1     -- an integer no float equals
      nums[#nums + 1] = math.tointeger(2 ^ 31)          -- integer next to the float 2^31
    end
    local seen, k = {}, 0
    for _, v in ipairs(nums) do
      if seen[v] == nil then
        k = k + 1
        seen[v] = k
        w:add(v, AABB(k, 0, 0, k + 0.5, 1, 1))
      end
    end
    assert.equal(k, w:count())
    for _, v in ipairs(nums) do
      assert.is_true(w:has(v))
      assert.equal(seen[v], (w:shape(v):bounds()))
      if v == math.floor(v) and v > -2 ^ 53 and v < 2 ^ 53 then
        assert.is_true(w:has(v + 0.0))            -- the float of the same value (5.3+)
        assert.equal(seen[v], (w:shape(v + 0.0):bounds()))
      end
    end
    assert.is_true(w:has(-0.0))
    assert.is_false(w:has(0 / 0))
    assert.is_false(w:has(3))
    assert.is_false(w:has(2 ^ 31 + 1))
    assert.is_false(w:has(0.25))
    assert.equal("bad argument #2 to 'add' (item is NaN)", errof(w.add, w, 0 / 0, AABB(0, 0, 0, 1, 1, 1)))
    -- remove the numbers in another spelling; the rest stay findable
    w:remove(-0.0)
    w:remove(1.0)
    assert.is_false(w:has(0))
    assert.is_false(w:has(1))
    assert.is_true(w:has(2))
    assert.equal("bad argument #2 to 'remove' (item is not in the world)", errof(w.remove, w, 0))
    w:add(0.0, AABB(100, 0, 0, 101, 1, 1))
    assert.equal(100, (w:shape(-0.0):bounds()))
    assert.equal(k - 1, w:count())
  end)

  it("finds the fm slot of a number added before the map reached it, after the map grew", function()
    local w = World()
    w:add(5000, AABB(5000, 0, 0, 5001, 1, 1))       -- beyond 4 * count + 1024: no slot yet
    for i = 1, 1200 do w:add(i, AABB(i, 2, 0, i + 1, 3, 1)) end
    assert.is_true(w:has(5000))
    assert.equal(5000, (w:shape(5000.0):bounds()))
    w:translate(5000, 1, 0, 0)
    assert.equal(5001, (w:shape(5000):bounds()))
    w:remove(5000)
    assert.is_false(w:has(5000))
    w:add(5000, AABB(1, 9, 0, 2, 10, 1))
    assert.equal(1, (w:shape(5000):bounds()))
    for i = 1, 1200, 7 do w:remove(i) end
    for i = 1, 1200 do assert.equal(i % 7 ~= 1, w:has(i)) end
  end)

  it("tells apart items of every type, light userdata and coroutines included", function()
    local w = World()
    local items = { "a", "", "1", string.rep("x", 100), {}, {}, function() end, print,
                    coroutine.create(function() end), AABB(0, 0, 0, 1, 1, 1), io.stdout, true, false }
    if debug.upvalueid then
      local a, b = 1, 2
      local f = function() return a, b end
      items[#items + 1] = debug.upvalueid(f, 1)       -- light userdata
      items[#items + 1] = debug.upvalueid(f, 2)
    end
    for i, v in ipairs(items) do w:add(v, AABB(i, 0, 0, i + 0.5, 1, 1)) end
    for i, v in ipairs(items) do
      assert.is_true(w:has(v))
      assert.equal(i, (w:shape(v):bounds()))
    end
    assert.is_true(w:has(string.rep("x", 50) .. string.rep("x", 50)))   -- another object, same key
    assert.is_false(w:has({}))
    assert.is_false(w:has(function() end))
    assert.is_false(w:has(coroutine.create(function() end)))
    for i = #items, 1, -2 do w:remove(items[i]) end
    for i, v in ipairs(items) do assert.equal((#items - i) % 2 == 1, w:has(v)) end
  end)

  it("never answers for a collected item with a new object at the same address", function()
    local w = World()
    local keep = {}
    -- (8 rounds under valgrind, COLLIDE_QUICK=2: each full collection walks busted's whole heap)
    for round = 1, os.getenv("COLLIDE_QUICK") == "2" and 8 or 30 do
      local made = {}
      for i = 1, 20 do
        local t = (i % 3 == 0) and coroutine.create(function() end) or (i % 3 == 1) and {} or function() return i end
        w:add(t, AABB(i, round, 0, i + 1, round + 1, 1))
        made[i] = t
      end
      for i = 1, 20 do
        if i % 4 == 0 then keep[#keep + 1] = made[i] else w:remove(made[i]) end
      end
      made = nil
      collectgarbage("collect")
      for i = 1, 200 do
        local t = (i % 3 == 0) and coroutine.create(function() end) or (i % 3 == 1) and {} or function() return i end
        assert.is_false(w:has(t))
        assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, t, 1, 0, 0))
      end
    end
    assert.equal(#keep, w:count())
    for _, t in ipairs(keep) do assert.is_true(w:has(t)) end
  end)

  it("forgets everything on destroy: a new world at the same address answers afresh", function()
    for round = 1, 20 do
      local w = World()
      local t = {}
      w:add(t, AABB(0, 0, 0, 1, 1, 1))
      w:add(7, AABB(0, 0, 0, 1, 1, 1))
      w:destroy()
      assert.equal("bad argument #1 to 'has' (world is destroyed)", errof(w.has, w, t))
      w = nil
      collectgarbage("collect")
      local w2 = World()
      assert.is_false(w2:has(t))
      assert.is_false(w2:has(7))
      w2:add(7, AABB(5, 0, 0, 6, 1, 1))
      assert.equal(5, (w2:shape(7):bounds()))
    end
  end)

  it("stays consistent when a finalizer adds and removes items during add", function()
    local w = World()
    local fired = 0
    for round = 1, 50 do
      for i = 1, 20 do
        withgc(function()
          fired = fired + 1
          local k = "gc" .. (fired % 7)
          if w:has(k) then w:remove(k) else w:add(k, AABB(fired % 13, 5, 0, fired % 13 + 1, 6, 1)) end
        end)
      end
      local t = {}
      w:add(t, AABB(round, 0, 0, round + 1, 1, 1))
      w:add(1000 + round, AABB(round, 2, 0, round + 1, 3, 1))
      assert.is_true(w:has(t))
      assert.equal(round, (w:shape(t):bounds()))
      assert.equal(round, (w:shape(1000 + round):bounds()))
      w:remove(t)
      assert.is_false(w:has(t))
    end
    collectgarbage("collect")
    local n = 0
    for k = 0, 6 do if w:has("gc" .. k) then n = n + 1 end end
    assert.equal(50 + n, w:count())
  end)
end)

describe("review 4: spare collision tables", function()
  -- a mover at x 0..1 and k unit tiles just to its right, each hit by a move of +1 in x
  local function scene(k)
    local w = World({ margin = 0 })
    w:add("m", AABB(0, 0, 0, 1, 1, 1))
    for i = 1, k do w:add(i, AABB(1.25, 0, i * 0.001, 2.25, 1, 1 + i * 0.001)) end
    return w
  end

  local function cross() return "cross" end

  it("never hands out one table twice in a result, even when out held one table twice", function()
    local w3 = scene(3)
    local a = {}
    local _, _, _, c0, n0 = w3:check("m", 1, 0, 0, cross, { a, {}, {} })
    assert.equal(3, n0)
    w3:check("m", 0, 0, 0, cross, { a, a, a })                           -- no hit: drops a 3 times
    local _, _, _, c3, n3 = w3:check("m", 1, 0, 0, cross, {})
    assert.equal(3, n3)
    assert.are_not.equal(c3[1], c3[2])
    assert.are_not.equal(c3[2], c3[3])
    assert.are_not.equal(c3[1], c3[3])
    assert.equal(1, c3[1].other)
    assert.equal(2, c3[2].other)
    assert.equal(3, c3[3].other)
  end)

  -- (both below were segfaults, found in review: poolinner read U[-2] without checking it is a
  -- table; domove read the core's collision buffer after Lua allocations, which may run a
  -- finalizer that destroys the world; result builders now check the world's generation)
  it("survives the spare tables being replaced through the debug library", function()
    local w = scene(1)
    local out = { {}, {}, {} }
    w:check("m", 1, 0, 0, nil, out)                -- 1 hit: two tables to the spares
    local U = uservalue(w)
    if U then
      U[-2] = 0
      local _, _, _, cols, n = w:check("m", 1, 0, 0, nil, {})
      assert.equal(1, n)
      assert.equal(1, cols[1].other)
      U[-2] = { 5, "x" }
      _, _, _, cols, n = w:check("m", 1, 0, 0, nil, {})
      assert.equal(1, n)
      assert.equal("table", type(cols[1]))
    end
  end)

  it("survives a finalizer that destroys the world while check builds its tables", function()
    for round = 1, 100 / Q do
      local w = World()
      w:add("m", AABB(0, 0, 0, 1, 1, 1))
      for i = 1, 40 do w:add(i, AABB(1.01 + (i - 1) * 0.001, 0, 0, 2, 1, 1)) end
      local fired = false
      for i = 1, 50 do withgc(function() if not fired then fired = true; pcall(w.destroy, w) end end) end
      for k = 1, 30 do
        local ok, e = pcall(w.check, w, "m", 1, 0, 0)
        if not ok then
          -- the call that was building its tables, or a later one on the destroyed world
          assert.is_truthy(tostring(e):find("world used by a finalizer while 'check' built its results", 1, true)
                           or tostring(e):find("destroyed", 1, true), tostring(e))
          break
        end
      end
    end
  end)

  it("a query, raycastall or pairs whose finalizer destroys the world raises, never crashes", function()
    -- out tables that start empty grow while the results are written: several allocations per
    -- call, each of which may run the finalizers (whether one does, inside a call, is up to the
    -- collector: this asserts no crash and the right errors, not how often they happen)
    for _, call in ipairs({
      function(w) return w:query(AABB(0, 0, 0, 50, 1, 1), nil, {}) end,
      function(w) return w:raycastall(Ray(-1, 0.5, 0.5, 1, 0, 0), nil, nil, {}) end,
      function(w) return w:pairs({}) end,
      function(w) return w:querypoint(1.5, 0.5, 0.5, nil, {}) end }) do
      for round = 1, 60 / Q do
        local w = World()
        for i = 1, 40 do w:add(i, AABB(i * 0.5, 0, 0, i * 0.5 + 1, 1, 1)) end
        local fired = false
        for i = 1, 50 do withgc(function() if not fired then fired = true; pcall(w.destroy, w) end end) end
        for k = 1, 30 do
          local ok, e = pcall(call, w)
          if not ok then
            assert.is_truthy(tostring(e):find("world used by a finalizer", 1, true)
                             or tostring(e):find("destroyed", 1, true), tostring(e))
            break
          end
        end
      end
    end
  end)

  it("gives the same results with and without out over random moves of several movers", function()
    local rnd = lcg(4)
    local w, v = World(), World()
    for i = 1, 40 do
      local x, y = rnd(12) - 1, rnd(12) - 1
      w:add(i, AABB(x, y, 0, x + 1, y + 1, 1))
      v:add(i, AABB(x, y, 0, x + 1, y + 1, 1))
    end
    local outs = { {}, {}, {} }
    for step = 1, 3000 / Q do
      local i, dx, dy = rnd(40), (rnd(9) - 5) * 0.75, (rnd(9) - 5) * 0.75
      local out = outs[rnd(3)]
      local ax, ay, az, c1, n1 = w:move(i, dx, dy, 0, nil, out)
      local bx, by, bz, c2, n2 = v:move(i, dx, dy, 0)
      assert.equal(bx, ax); assert.equal(by, ay); assert.equal(bz, az)
      assert.equal(n2, n1)
      assert.equal(n1, #c1)
      local seen = {}
      for k = 1, n1 do
        assert.is_nil(seen[c1[k]])
        seen[c1[k]] = true
        for _, f in ipairs({ "other", "type", "t", "nx", "ny", "nz" }) do assert.equal(c2[k][f], c1[k][f]) end
      end
      -- a table still in another out table is never reused
      for _, o in ipairs(outs) do
        if o ~= out then for k = 1, #o do assert.is_nil(seen[o[k]]) end end
      end
    end
  end)
end)

describe("review 4: box queries over a large world", function()
  it("finds what the shapes' own tests find, as the tree changes and stays unchanged", function()
    local rnd = lcg(77)
    local w = World()
    local box, n = {}, 1500
    for i = 1, n do
      local x, y, z = rnd(400) / 4, rnd(400) / 4, rnd(40) / 4
      box[i] = { x, y, z, x + rnd(12) / 4, y + rnd(12) / 4, z + rnd(8) / 4 }
      w:add(i, AABB(unpack(box[i])))
    end
    for round = 1, 30 / Q do
      -- a few small steps (leaves kept or stale), sometimes many (refits, rebuilds)
      local m = round % 5 == 0 and 600 or rnd(12)
      for k = 1, m do
        local i = rnd(n)
        local dx, dy = (rnd(9) - 5) / 4, (rnd(9) - 5) / 4
        local b = box[i]
        b[1], b[2], b[4], b[5] = b[1] + dx, b[2] + dy, b[4] + dx, b[5] + dy
        w:translate(i, dx, dy, 0)
      end
      for q = 1, 40 do
        local x, y, z = rnd(420) / 4 - 2, rnd(420) / 4 - 2, rnd(44) / 4 - 1
        local qb = { x, y, z, x + rnd(40) / 4, y + rnd(40) / 4, z + rnd(12) / 4 }
        local r, c = w:query(AABB(unpack(qb)))
        local k = 0
        for i = 1, n do
          local b = box[i]
          if b[1] <= qb[4] and qb[1] <= b[4] and b[2] <= qb[5] and qb[2] <= b[5] and b[3] <= qb[6] and qb[3] <= b[6] then
            k = k + 1
            assert.equal(i, r[k])
          end
        end
        assert.equal(k, c)
        local p, pc = w:querypoint(x, y, z)
        k = 0
        for i = 1, n do
          local b = box[i]
          if b[1] <= x and x <= b[4] and b[2] <= y and y <= b[5] and b[3] <= z and z <= b[6] then
            k = k + 1
            assert.equal(i, p[k])
          end
        end
        assert.equal(k, pc)
      end
    end
  end)
end)

-------------------------------------------------------------------------------------------------
-- Random differential: a world driven by random calls with items of every kind, against a plain
-- Lua table of what is in it (item -> shape parameters, add order) and the shapes' own tests.

local function run_differential(seed, nops, trace)
  local rnd = lcg(seed)
  local function num(lo, hi, q) return lo + (rnd((hi - lo) * q + 1) - 1) / q end   -- grid values

  -- the item pool: fixed values, makers of fresh equal values, and fresh objects
  local names = setmetatable({}, { __mode = "k" })
  local pool = {}
  local function fixed(v, name) pool[#pool + 1] = function() return v end; if name then names[v] = name end end
  for _, v in ipairs({ 0, 1, 2, 3, 7, 63, 64, 65, 100, 1023, 1024, 1025, 1087, 1088, 4095, 4096,
                       5000, 2 ^ 31 - 1, 2 ^ 31, 2 ^ 32, 2 ^ 53, 2 ^ 63, -2 ^ 63, -1, -0.0, 0.5, 1.5,
                       2 ^ -1074, 1e300, math.huge, -math.huge }) do fixed(v) end
  if math.type then
    fixed(math.maxinteger); fixed(math.mininteger); fixed(math.tointeger(2 ^ 53) + 1)
  end
  -- a whole number written as a float (5.3+: another value, the same table key)
  pool[#pool + 1] = function() local k = rnd(70) - 1; return k + 0.0 end
  pool[#pool + 1] = function() return rnd(1100) - 1 end
  for _, s in ipairs({ "a", "b", "", "1", "0", "item" }) do fixed(s) end
  -- long strings rebuilt on every use (another object on 5.4 each time)
  pool[#pool + 1] = function() return string.rep("long", 15) .. tostring(rnd(4)) end
  for k = 1, 8 do fixed({}, "T" .. k) end
  for k = 1, 3 do fixed(function() return k end, "F" .. k) end
  fixed(print, "print"); fixed(math.floor, "floor")
  for k = 1, 2 do fixed(coroutine.create(function() end), "C" .. k) end
  for k = 1, 2 do fixed(AABB(k, k, k, k + 1, k + 1, k + 1), "U" .. k) end
  fixed(io.stdout, "stdout")
  fixed(true); fixed(false)
  if debug.upvalueid then
    local a, b = 1, 2
    local f = function() return a + b end
    fixed(debug.upvalueid(f, 1), "LU1"); fixed(debug.upvalueid(f, 2), "LU2")
  end
  -- fresh objects: made now, named, dropped when removed (their addresses get reused)
  local nfresh, fresh = 0, {}
  pool[#pool + 1] = function()
    if #fresh > 0 and rnd(3) > 1 then return fresh[rnd(#fresh)] end
    nfresh = nfresh + 1
    local kind, id = rnd(4), nfresh       -- (id: a new upvalue, else 5.2/5.3 may reuse a closure)
    local v = kind == 1 and {} or kind == 2 and function() return id end
              or kind == 3 and coroutine.create(function() end) or AABB(0, 0, 0, 1, 1, 1)
    names[v] = "N" .. nfresh
    return v
  end

  local function label(v)
    local t = type(v)
    if t == "number" then
      return string.format("%.17g", v) .. (math.type and math.type(v) or "")
    elseif t == "string" then
      return #v > 40 and ("L" .. v:sub(-1)) or ("'" .. v .. "'")
    elseif t == "boolean" then
      return tostring(v)
    end
    return names[v] or ("?" .. t)
  end
  local function log(...)
    if trace then
      local parts = { ... }
      for i = 1, select("#", ...) do parts[i] = tostring(parts[i]) end
      trace(table.concat(parts, " ", 1, select("#", ...)))
    end
  end

  -- shapes as parameter lists; make() builds the collide shape
  local function randshape()
    local kind = rnd(10)
    local x, y, z = num(0, 16, 4), num(0, 16, 4), num(0, 4, 4)
    if kind <= 6 then
      return { "A", x, y, z, x + num(0, 3, 4), y + num(0, 3, 4), z + num(0, 2, 4) }
    elseif kind <= 8 then
      return { "S", x, y, z, num(0, 2, 4) }
    else
      return { "O", x, y, z, num(0.25, 2, 4), num(0.25, 2, 4), num(0.25, 2, 4) }
    end
  end
  local function make(p)
    if p[1] == "A" then return AABB(p[2], p[3], p[4], p[5], p[6], p[7]) end
    if p[1] == "S" then return Sphere(p[2], p[3], p[4], p[5]) end
    return OBB(p[2], p[3], p[4], p[5], p[6], p[7])
  end
  local function moved(p, dx, dy, dz)
    local q = { unpack(p) }
    q[2], q[3], q[4] = q[2] + dx, q[3] + dy, q[4] + dz
    if q[1] == "A" then q[5], q[6], q[7] = q[5] + dx, q[6] + dy, q[7] + dz end
    return q
  end
  -- the parameters of a shape the world returned (same layout as randshape's)
  local function params(s)
    local k = collide.type(s)
    if k == "AABB" then return { "A", s:bounds() } end
    if k == "Sphere" then
      local x, y, z = s:center()
      return { "S", x, y, z, s:radius() }
    end
    local x, y, z = s:center()
    local hx, hy, hz = s:extents()
    return { "O", x, y, z, hx, hy, hz }
  end
  local function same(p, q)
    if #p ~= #q then return false end
    for i = 1, #p do if p[i] ~= q[i] then return false end end
    return true
  end

  local w = World()
  local ref, refn, seq, order = {}, 0, 0, {}   -- ref[item] = { shape params, add order }
  local function pick() return pool[rnd(#pool)]() end
  local function inlist()                      -- the items in the world by add order
    local l = {}
    for item, r in pairs(ref) do l[#l + 1] = { item, r[2] } end
    table.sort(l, function(a, b) return a[2] < b[2] end)
    return l
  end
  local function checkall()
    assert.equal(refn, w:count())
    for item, r in pairs(ref) do
      assert.is_true(w:has(item))
      assert.is_true(same(r[1], params(w:shape(item))), label(item))
    end
  end
  local NOTIN = "(item is not in the world)"

  for step = 1, nops do
    local op = rnd(20)
    if op <= 3 then                                            -- add
      local item, p = pick(), randshape()
      local ok, e = pcall(w.add, w, item, make(p))
      log("add", label(item), ok, ok and "" or e)
      if ref[item] ~= nil then
        assert.is_false(ok)
        assert.equal("bad argument #2 to 'add' (item is already in the world)", e)
      else
        assert.is_true(ok, e)
        seq = seq + 1
        ref[item], refn = { p, seq }, refn + 1
      end
    elseif op <= 5 then                                        -- remove
      local item = pick()
      local ok, e = pcall(w.remove, w, item)
      log("remove", label(item), ok, e)
      if ref[item] ~= nil then
        assert.is_true(ok, e)
        ref[item], refn = nil, refn - 1
        for i = #fresh, 1, -1 do if rawequal(fresh[i], item) then table.remove(fresh, i) end end
      else
        assert.equal("bad argument #2 to 'remove' " .. NOTIN, e)
      end
    elseif op <= 6 then                                        -- has, shape
      local item = pick()
      local h = w:has(item)
      log("has", label(item), h)
      assert.equal(ref[item] ~= nil, h)
      if h then
        assert.is_true(same(ref[item][1], params(w:shape(item))))
      else
        assert.equal("bad argument #2 to 'shape' " .. NOTIN, errof(w.shape, w, item))
      end
    elseif op <= 8 then                                        -- translate / update
      local item = pick()
      if rnd(2) == 1 then
        local dx, dy, dz = num(-1, 1, 8), num(-1, 1, 8), num(-0.5, 0.5, 8)
        local ok, e = pcall(w.translate, w, item, dx, dy, dz)
        log("translate", label(item), ok, e)
        if ref[item] then
          assert.is_true(ok, e)
          ref[item][1] = moved(ref[item][1], dx, dy, dz)
        else
          assert.equal("bad argument #2 to 'translate' " .. NOTIN, e)
        end
      else
        local p = randshape()
        local ok, e = pcall(w.update, w, item, make(p))
        log("update", label(item), ok, e)
        if ref[item] then
          assert.is_true(ok, e)
          ref[item][1] = p
        else
          assert.equal("bad argument #2 to 'update' " .. NOTIN, e)
        end
      end
    elseif op <= 9 then                                        -- translatemany
      local items, dx, dy, dz, bad = {}, {}, {}, {}, nil
      for i = 1, rnd(6) do
        items[i] = pick()
        dx[i], dy[i], dz[i] = num(-1, 1, 4), num(-1, 1, 4), 0
        if bad == nil and ref[items[i]] == nil then bad = i end
      end
      local ok, e = pcall(w.translatemany, w, items, dx, dy, dz)
      log("translatemany", #items, ok, e)
      if bad then
        assert.equal("bad argument #2 to 'translatemany' (item at index " .. bad .. " is not in the world)", e)
      else
        assert.is_true(ok, e)
        for i = 1, #items do ref[items[i]][1] = moved(ref[items[i]][1], dx[i], dy[i], dz[i]) end
      end
    elseif op <= 12 then                                       -- move / check
      local item = pick()
      local commit = rnd(2) == 1
      local dx, dy, dz = num(-3, 3, 4), num(-3, 3, 4), num(-1, 1, 4)
      local filter = rnd(4) == 1 and function(_, o)
        if type(o) == "string" then return nil end
        return type(o) == "number" and "cross" or "slide"
      end or nil
      local out = rnd(2) == 1 and {} or nil
      local f = commit and w.move or w.check
      local ok, ax, ay, az, cols, n = pcall(f, w, item, dx, dy, dz, filter, out)
      log(commit and "move" or "check", label(item), ok, ok and n or ax)
      if ref[item] == nil then
        assert.is_false(ok)
        assert.equal("bad argument #2 to '" .. (commit and "move" or "check") .. "' " .. NOTIN, ax)
      else
        assert.is_true(ok, ax)
        assert.equal(n, #cols)
        if out then assert.equal(out, cols) end
        local seen = {}
        for i = 1, n do
          local c = cols[i]
          assert.is_nil(seen[c])
          seen[c] = true
          assert.is_true(ref[c.other] ~= nil)
          assert.is_false(rawequal(item, c.other))
          if filter then assert.is_truthy(filter(item, c.other)) end
          log("  col", label(c.other), c.type, c.t, c.nx, c.ny, c.nz)
        end
        local before = ref[item][1]
        local after = params(w:shape(item))
        if commit then
          -- the displacement made is the difference of the reference points (min corner or centre)
          assert.equal(ax, after[2] - before[2])
          assert.equal(ay, after[3] - before[3])
          assert.equal(az, after[4] - before[4])
          ref[item][1] = after
        else
          assert.is_true(same(before, after))
        end
        log("  d", ax, ay, az)
      end
    elseif op <= 15 then                                       -- a burst of box queries
      local l = inlist()
      for b = 1, 12 do
        local kind = rnd(3)
        local got, want = {}, {}
        if kind == 1 then
          local p = randshape()
          local q = make(p)
          local r, n = w:query(q)
          for i = 1, n do got[i] = r[i] end
          for _, e in ipairs(l) do if q:overlaps(make(ref[e[1]][1])) then want[#want + 1] = e[1] end end
        elseif kind == 2 then
          local x, y, z = num(0, 18, 4), num(0, 18, 4), num(0, 5, 4)
          local r, n = w:querypoint(x, y, z)
          for i = 1, n do got[i] = r[i] end
          for _, e in ipairs(l) do if make(ref[e[1]][1]):contains(x, y, z) then want[#want + 1] = e[1] end end
        else
          local ray = Ray(num(-2, 18, 4), num(-2, 18, 4), num(-1, 5, 4), num(-1, 1, 4), num(-1, 1, 4), num(-1, 1, 4) + 0.125)
          local hit, t = w:raycast(ray)
          local bt, bi = nil, nil
          for _, e in ipairs(l) do
            local s = ray:cast(make(ref[e[1]][1]))
            if s and (bt == nil or s < bt) then bt, bi = s, e[1] end
          end
          if bi ~= nil then got[1], want[1] = t, bt else got[1], want[1] = hit, nil end
        end
        log("q", kind, #got)
        assert.equal(#want, #got)
        for i = 1, #want do assert.is_true(rawequal(want[i], got[i]), label(want[i]) .. " / " .. label(got[i])) end
      end
    elseif op <= 16 then                                       -- pairs
      local l = inlist()
      local r, n = w:pairs()
      local want = {}
      for i = 1, #l do
        local a = make(ref[l[i][1]][1])
        for j = i + 1, #l do
          if a:overlaps(make(ref[l[j][1]][1])) then want[#want + 1] = l[i][1]; want[#want + 1] = l[j][1] end
        end
      end
      log("pairs", n)
      assert.equal(#want, 2 * n)
      for i = 1, #want do assert.is_true(rawequal(want[i], r[i]), label(want[i]) .. " / " .. label(r[i])) end
    elseif op <= 17 then                                       -- collections (addresses reused)
      if rnd(2) == 1 then collectgarbage("collect") else collectgarbage("step") end
      for i = 1, rnd(20) do local _ = {} end
    elseif op <= 18 then
      if rnd(150) == 1 then                                    -- destroy, and start again
        w:destroy()
        assert.equal("bad argument #1 to 'translate' (world is destroyed)", errof(w.translate, w, 1, 0, 0, 0))
        w = World()
        ref, refn, fresh = {}, 0, {}
        log("destroy")
      else
        checkall()
      end
    else                                                       -- fresh objects in and out
      local item = pool[#pool]()
      if ref[item] == nil then
        local p = randshape()
        w:add(item, make(p))
        seq = seq + 1
        ref[item], refn = { p, seq }, refn + 1
        fresh[#fresh + 1] = item
        log("addfresh", label(item))
      end
    end
  end
  checkall()
end

describe("review 4: random differential against a reference table", function()
  local N = os.getenv("COLLIDE_QUICK") and 400 or 3000   -- calls per seed (spec/11 is the long one)
  for _, seed in ipairs({ 1, 2, 3 }) do
    it("agrees over " .. N .. " random calls (seed " .. seed .. ")", function()
      run_differential(seed, N, rawget(_G, "REVIEW4_TRACE"))
    end)
  end
end)

-- (REVIEW4_TRACE: a function a reviewer's script may set to log every call and compare builds)
