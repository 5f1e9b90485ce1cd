-- world:translatemany(items, dx, dy, dz) (an extension): world:translate for a whole array of
-- items in one call. Results equal to the per-item calls on random data (duplicates included),
-- every error checked before any change (the world is unchanged after an error), locking.
local collide = require "collide"
local util = require "support.util"
local errof = util.errof
local list = util.list
local gen = require "support.gen"

local AABB, OBB, Sphere, World = collide.AABB, collide.OBB, collide.Sphere, collide.World

-- Returns a description of everything a world answers about its items 1..n (shapes, pairs, a
-- query over everything), for comparing two worlds or a world before and after a call.
local function state(w, keys)
  local s = { count = w:count(), shapes = {} }
  for _, k in ipairs(keys) do
    s.shapes[#s.shapes + 1] = w:has(k) and tostring(w:shape(k)) or "absent"
  end
  local p, np = w:pairs()
  s.pairs = list(p, 2 * np)
  local q, nq = w:query(AABB(-1e6, -1e6, -1e6, 1e6, 1e6, 1e6))
  s.query = list(q, nq)
  return s
end

-- Returns a world holding "a" (AABB), "b" (OBB) and "c" (Sphere), added in that order.
local function abc()
  local w = World()
  w:add("a", AABB(0, 0, 0, 1, 1, 1))
  w:add("b", OBB(3, 0.5, 0.5, 0.5, 0.5, 0.5))
  w:add("c", Sphere(6, 0.5, 0.5, 0.5))
  return w
end
local ABC = { "a", "b", "c" }

describe("world:translatemany results", function()
  it("equals world:translate called per element in order, for mixed shapes, random offsets and duplicates", function()
    local rng = gen.new(1701)
    local N = 80
    local a, b = World({ margin = 0.2 }), World({ margin = 0.2 })
    local keys = {}
    local function coord() return rng:int(0, 30) * 0.5 end
    for i = 1, N do
      local k = i % 4 == 0 and ("s" .. i) or i    -- integer and string items
      keys[i] = k
      local s
      if i % 3 == 0 then
        local x, y, z = coord(), coord(), coord()
        s = AABB(x, y, z, x + rng:int(0, 6) * 0.5, y + rng:int(0, 6) * 0.5, z + 0.5)
      elseif i % 3 == 1 then
        s = Sphere(coord(), coord(), coord(), rng:int(1, 4) * 0.5)
      else
        s = OBB(coord(), coord(), coord(), 1, 0.5, 1.5, 0.6, 0.8, 0, -0.8, 0.6, 0, 0, 0, 1)
      end
      a:add(k, s)
      b:add(k, s)
    end
    for round = 1, 60 do
      local n = rng:int(0, 2 * N)
      local items, dx, dy, dz = {}, {}, {}, {}
      for j = 1, n do
        items[j] = keys[rng:int(1, N)]              -- duplicates are common
        dx[j] = rng:int(-8, 8) * 0.125
        dy[j] = rng:chance(0.2) and (rng:float() - 0.5) or rng:int(-8, 8) * 0.125
        dz[j] = rng:chance(0.1) and 1 / 3 or rng:int(-2, 2) * 0.25
      end
      -- extra entries beyond #items are not read
      dx[n + 1], dy[n + 1], dz[n + 1] = 1e300, "x", false
      assert.equal(0, select("#", a:translatemany(items, dx, dy, dz)))
      for j = 1, n do b:translate(items[j], dx[j], dy[j], dz[j]) end
      for _, k in ipairs(keys) do
        assert.equal(b:shape(k), a:shape(k))
      end
      if round % 6 == 0 then assert.same(state(b, keys), state(a, keys)) end
      if round % 20 == 0 then            -- the world changes between batches: ids reused and new
        local k = keys[rng:int(1, N)]
        local s = a:shape(k)
        a:remove(k); b:remove(k)
        a:add(k, s); b:add(k, s)
        local extra = "new" .. round
        a:add(extra, AABB(0, 0, 0, 1, 1, 1)); b:add(extra, AABB(0, 0, 0, 1, 1, 1))
        keys[#keys + 1] = extra
        N = #keys
      end
    end
    assert.same(state(b, keys), state(a, keys))
  end)

  it("moves each kind exactly as shape:translate would and keeps the order added", function()
    local w = abc()
    w:translatemany({ "a", "b", "c", "a" }, { 5.5, 3, 0.25, 0 }, { 0, 0, 0, 0.125 }, { 0, 0, 0, 1 / 3 })
    assert.equal(AABB(0, 0, 0, 1, 1, 1):translate(5.5, 0, 0):translate(0, 0.125, 1 / 3), w:shape("a"))
    assert.equal(OBB(6, 0.5, 0.5, 0.5, 0.5, 0.5), w:shape("b"))
    assert.equal(Sphere(6.25, 0.5, 0.5, 0.5), w:shape("c"))
    local r, n = w:query(AABB(5, 0, 0, 7, 1, 1))
    assert.same({ "a", "b", "c" }, list(r, n))
  end)

  it("accepts empty arrays and numeric strings (as translate does); reads the arrays raw", function()
    local w = abc()
    assert.equal(0, select("#", w:translatemany({}, {}, {}, {})))
    assert.same(state(abc(), ABC), state(w, ABC))
    local meta = { __index = function() error("read through __index") end, __len = function() return 99 end }
    w:translatemany(setmetatable({ "a" }, meta), setmetatable({ "1" }, meta), { "0.5" }, { -2 })
    assert.equal(AABB(1, 0.5, -2, 2, 1.5, -1), w:shape("a"))
  end)
end)

describe("world:translatemany errors", function()
  local T = "translatemany"
  -- Checks that the call raises msg and leaves the world w (items keys) as it was.
  local function fails(msg, w, keys, ...)
    local before = state(w, keys)
    assert.equal(msg, errof(w.translatemany, w, ...))
    assert.same(before, state(w, keys))
  end

  it("rejects a non-world self and a destroyed world", function()
    local w = abc()
    assert.equal("bad argument #1 to '" .. T .. "' (collide.World expected, got table)", errof(w.translatemany, {}, {}, {}, {}, {}))
    assert.equal("bad argument #1 to '" .. T .. "' (collide.World expected, got collide.AABB)",
      errof(w.translatemany, AABB(0, 0, 0, 1, 1, 1), {}, {}, {}, {}))
    w:destroy()
    assert.equal("bad argument #1 to '" .. T .. "' (world is destroyed)", errof(w.translatemany, w, {}, {}, {}, {}))
  end)

  it("rejects arguments that are not tables", function()
    local w = abc()
    fails("bad argument #2 to '" .. T .. "' (table expected, got no value)", w, ABC)
    fails("bad argument #2 to '" .. T .. "' (table expected, got string)", w, ABC, "a", { 1 }, { 1 }, { 1 })
    fails("bad argument #3 to '" .. T .. "' (table expected, got number)", w, ABC, { "a" }, 1, { 1 }, { 1 })
    fails("bad argument #4 to '" .. T .. "' (table expected, got nil)", w, ABC, { "a" }, { 1 }, nil, { 1 })
    fails("bad argument #5 to '" .. T .. "' (table expected, got no value)", w, ABC, { "a" }, { 1 }, { 1 })
    fails("bad argument #5 to '" .. T .. "' (table expected, got collide.AABB)", w, ABC, {}, {}, {}, AABB(0, 0, 0, 1, 1, 1))
  end)

  it("names the first element whose item is not in the world, after valid elements", function()
    local w = abc()
    local z = { 1, 1, 1, 1 }
    fails("bad argument #2 to '" .. T .. "' (item at index 3 is not in the world)", w, ABC, { "a", "b", "zz", "c" }, z, z, z)
    fails("bad argument #2 to '" .. T .. "' (item at index 1 is not in the world)", w, ABC, { 0 / 0 }, z, z, z)
    w:remove("b")
    fails("bad argument #2 to '" .. T .. "' (item at index 2 is not in the world)", w, { "a", "c" }, { "a", "b" }, z, z, z)
  end)

  it("names the array and index of the first offset that is missing, not a number or not finite", function()
    local w = abc()
    local it3 = { "a", "b", "c" }
    local ok = { 1, 2, 3 }
    fails("bad argument #3 to '" .. T .. "' (number expected at index 2, got boolean)", w, ABC, it3, { 1, true, 3 }, ok, ok)
    fails("bad argument #4 to '" .. T .. "' (number expected at index 3, got nil)", w, ABC, it3, ok, { 1, 2 }, ok)
    fails("bad argument #5 to '" .. T .. "' (number expected at index 1, got collide.Sphere)", w, ABC, it3, ok, ok, { Sphere(0, 0, 0, 1), 2, 3 })
    fails("bad argument #4 to '" .. T .. "' (number expected at index 1, got string)", w, ABC, it3, ok, { "x" }, ok)
    fails("bad argument #3 to '" .. T .. "' (number at index 3 is not finite)", w, ABC, it3, { 1, 2, 0 / 0 }, ok, ok)
    fails("bad argument #4 to '" .. T .. "' (number at index 1 is not finite)", w, ABC, it3, ok, { math.huge }, ok)
    fails("bad argument #5 to '" .. T .. "' (number at index 2 is not finite)", w, ABC, it3, ok, ok, { 1, -math.huge, 3 })
    -- within one element: dx before dy before dz
    fails("bad argument #3 to '" .. T .. "' (number expected at index 1, got table)", w, ABC, it3, { {} }, { 0 / 0 }, { "q" })
    -- an earlier element's bad item wins over a later bad number
    fails("bad argument #2 to '" .. T .. "' (item at index 1 is not in the world)", w, ABC, { "q", "a" }, { 1, 0 / 0 }, ok, ok)
  end)

  it("names the axis and index of a result that is not finite, including one reached by an item's earlier elements", function()
    local big = 1.5e308
    local w = World()
    w:add("a", AABB(0, 0, 0, 1, 1, 1))
    w:add("b", OBB(0, 0, 0, 1, 1, 1))
    w:add("c", Sphere(0, 0, 0, 1))
    fails("bad argument #5 to '" .. T .. "' (result at index 2 is not finite)", w, ABC,
      { "a", "a", "b" }, { 1, 0, 0 }, { 0, 0, 0 }, { big, big, 0 })
    fails("bad argument #3 to '" .. T .. "' (result at index 4 is not finite)", w, ABC,
      { "c", "b", "a", "b" }, { 1, big, 2, big }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 })
    fails("bad argument #4 to '" .. T .. "' (result at index 3 is not finite)", w, ABC,
      { "c", "c", "c" }, { 0, 0, 0 }, { -big, 1, -big }, { 0, 0, 0 })
    -- the same offsets in separate batches: the first succeeds, the second fails, changing nothing
    w:translatemany({ "b" }, { big }, { 0 }, { 0 })
    assert.equal(OBB(big, 0, 0, 1, 1, 1), w:shape("b"))
    fails("bad argument #3 to '" .. T .. "' (result at index 1 is not finite)", w, ABC, { "b" }, { big }, { 0 }, { 0 })
  end)

  it("is locked inside a filter and leaves the world unchanged and unlocked", function()
    local w = abc()
    local before = state(w, ABC)
    local inner
    w:query(AABB(-10, -10, -10, 10, 10, 10), function()
      inner = { pcall(w.translatemany, w, { "a" }, { 1 }, { 1 }, { 1 }) }
      return true
    end)
    assert.is_false(inner[1])
    assert.truthy(tostring(inner[2]):find("world is locked (called from a filter)", 1, true), tostring(inner[2]))
    assert.same(before, state(w, ABC))
    w:translatemany({ "a" }, { 1 }, { 1 }, { 1 })     -- unlocked afterwards
    assert.equal(AABB(1, 1, 1, 2, 2, 2), w:shape("a"))
  end)

  it("rejects a userdata that only has the World metatable", function()
    if not (debug and debug.setmetatable) then return end
    local w = abc()
    local fake = AABB(0, 0, 0, 1, 1, 1)
    local old = getmetatable(fake)
    debug.setmetatable(fake, getmetatable(w))
    assert.equal("bad argument #1 to '" .. T .. "' (collide.World expected, got collide.World)",
      errof(w.translatemany, fake, { "a" }, { 1 }, { 1 }, { 1 }))
    debug.setmetatable(fake, old)
    assert.same(state(abc(), ABC), state(w, ABC))
  end)
end)
