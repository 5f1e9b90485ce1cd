-- Number items come back as the value added: an item added as the integer 3 is reported as 3, an
-- item added as the float 4.0 as 4.0 (math.type on 5.3+), -0.0 as -0.0, by every call that
-- reports items (query, querypoint, raycast, raycastall, pairs, sweep, move's collisions, the
-- filters' arguments, resolve's filter, character:grounded), on the fast paths too (LuaJIT's
-- FFI wrappers). Guards the binding's id -> number map (lworld.nm): such items are kept out of
-- the item table, their value rebuilt from a code (passes before and after that change).
local collide = require "collide"

local AABB, Ray, World = collide.AABB, collide.Ray, collide.World

-- "3 integer +", "4.0 float +", "-0.0 float -" (math.type when there is one).
local function kind(x)
  if type(x) ~= "number" then return type(x) end
  local mt = math.type and math.type(x) or "number"
  return string.format("%.17g %s %s", x, mt, 1 / x < 0 and "-" or "+")
end

-- The items, each in its own unit box along x at 3k (k = its index), all on the ray y = z = 0.5.
local items = { 3, 4.0, -0.0, 0.5, 2 ^ 31, 2 ^ 53, 4294967296, 7, "s", {}, 0.0 + 9, 10, 2 ^ 53 + 2 }

local function world()
  local w = World()
  for k, it in ipairs(items) do w:add(it, AABB(3 * k, 0, 0, 3 * k + 1, 1, 1)) end
  return w
end

local function kinds(list)
  local t = {}
  for i, x in ipairs(list) do t[i] = kind(x) end
  return t
end

local want = kinds(items)

describe("number items keep their value and subtype", function()
  it("query, querypoint, raycast, raycastall, pairs and sweep report the value added", function()
    local w = world()
    assert.same(want, kinds(w:query(AABB(-1, -1, -1, 100, 2, 2))))
    for k = 1, #items do
      assert.same({ want[k] }, kinds(w:querypoint(3 * k + 0.5, 0.5, 0.5)))
      local r = Ray(3 * k - 1, 0.5, 0.5, 1, 0, 0)
      assert.equal(want[k], kind((w:raycast(r, 1.5))))
      local hits = w:raycastall(r, 1.5)
      assert.equal(1, #hits)
      assert.equal(want[k], kind(hits[1].item))
      assert.equal(want[k], kind((w:sweep(AABB(3 * k - 1.5, 0, 0, 3 * k - 0.5, 1, 1), 1, 0, 0))))
    end
    local hits = w:raycastall(Ray(0, 0.5, 0.5, 1, 0, 0))
    local got = {}
    for i, h in ipairs(hits) do got[i] = kind(h.item) end
    assert.same(want, got)
  end)

  it("pairs, move's collisions, filters, resolve and grounded report the value added", function()
    local w = World()
    for k, it in ipairs(items) do w:add(it, AABB(0, 3 * k, 0, 1, 3 * k + 1, 1)) end
    local big = World()
    for k, it in ipairs(items) do big:add(it, AABB(0, 3 * k, 0, 1, 3 * k + 1, 1)) end
    big:add("big", AABB(0.5, 0, 0, 2, 100, 1))
    local p = big:pairs()
    local seen = {}
    for i = 1, #p do if p[i] ~= "big" then seen[#seen + 1] = kind(p[i]) end end
    table.sort(seen)
    local sorted = kinds(items)
    table.sort(sorted)
    assert.same(sorted, seen)
    w:add("mover", AABB(2, 0, 0, 3, 100, 1))
    local fseen = {}
    local _, _, _, cols = w:move("mover", -2, 0, 0, function(a, b) fseen[#fseen + 1] = kind(b); return "cross" end)
    local cseen = {}
    for i, c in ipairs(cols) do cseen[i] = kind(c.other) end
    assert.same(want, cseen)
    assert.same(want, fseen)
    local rseen = {}
    w:resolve("mover", function(a, b) rseen[#rseen + 1] = kind(b); return false end)
    table.sort(rseen)
    assert.same(sorted, rseen)
    for _, it in ipairs(items) do
      local g = World()
      g:add(it, AABB(-10, -1, -10, 10, 0, 10))
      g:add("c", AABB(0, 0.5, 0, 1, 1.5, 1))
      local ch = collide.Character(g, "c")
      ch:move(0, -1, 0)
      local on, item = ch:grounded()
      assert.is_true(on)
      assert.equal(kind(it), kind(item))
    end
  end)

  it("an item removed and added again under the other subtype comes back as the new value", function()
    local w = World()
    w:add(3, AABB(0, 0, 0, 1, 1, 1))
    w:remove(3.0)
    w:add(3.0, AABB(0, 0, 0, 1, 1, 1))
    assert.equal(kind(3.0), kind(w:query(AABB(0, 0, 0, 1, 1, 1))[1]))
    w:remove(3)
    w:add(-0.0, AABB(0, 0, 0, 1, 1, 1))
    assert.equal(kind(-0.0), kind(w:querypoint(0.5, 0.5, 0.5)[1]))
    w:remove(0)
    w:add(0, AABB(0, 0, 0, 1, 1, 1))
    assert.equal(kind(0), kind(w:querypoint(0.5, 0.5, 0.5)[1]))
    assert.has_error(function() w:add(-0.0, AABB(0, 0, 0, 1, 1, 1)) end)
  end)
end)
