-- The World's item -> id lookup: the binding keeps fast maps beside the item table (items that
-- are whole numbers, items that are objects by address) and must answer exactly as the table
-- would, for every value: 1 and 1.0 are one item (one table key), so are 0 and -0.0; 1.5, 2^53,
-- huge and negative numbers, the string "1", long strings made twice, tables whose address a
-- collected item had, items removed and added again, destroyed worlds. Each item gets its own
-- box, so a lookup that found the wrong item shows up in world:shape.
local collide = require "collide"
local util = require "support.util"
local errof = util.errof

local AABB, World = collide.AABB, collide.World

-- The box of the item numbered k (its min x is 3k: tells the items apart).
local function boxof(k)
  return AABB(3 * k, 0, 0, 3 * k + 1, 1, 1)
end

-- The min x of the item's stored shape.
local function xof(w, item)
  local x = w:shape(item):bounds()
  return x
end

-- A deterministic generator (no math.random: the same cases on every Lua).
local function lcg(seed)
  local s = seed
  return function(n)
    s = (s * 1103515245 + 12345) % 2147483648
    return s % n + 1
  end
end

describe("world item lookup: numbers", function()
  it("treats 1 and 1.0, 0 and -0.0 as the same item, as table keys are", function()
    local w = World()
    w:add(1, boxof(1))
    w:add(-0.0, boxof(2))
    assert.is_true(w:has(1.0))
    assert.is_true(w:has(0))
    assert.is_true(w:has(-0.0))
    assert.equal(3, xof(w, 1.0))
    assert.equal(6, xof(w, 0))
    assert.equal("bad argument #2 to 'add' (item is already in the world)", errof(w.add, w, 1.0, boxof(3)))
    assert.equal("bad argument #2 to 'add' (item is already in the world)", errof(w.add, w, 0, boxof(3)))
    w:translate(1.0, 1, 0, 0)
    assert.equal(4, xof(w, 1))
    w:update(0, boxof(5))
    assert.equal(15, xof(w, -0.0))
    w:remove(1.0)
    assert.is_false(w:has(1))
    assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, 1, 1, 0, 0))
    w:remove(0)
    assert.is_false(w:has(-0.0))
    assert.equal(0, w:count())
  end)

  it("keeps non-integral, negative, huge and string-like items apart from whole numbers", function()
    local w = World()
    local items = { 1, 1.5, -1, -0.5, 2 ^ 31, 2 ^ 32 + 1, 2 ^ 53, 2 ^ 63, -2 ^ 63, 1e300, -1e300,
                    math.huge, -math.huge, 2 ^ -1074, "1", "1.0", "0", 2, 3 }
    for k, item in ipairs(items) do w:add(item, boxof(k)) end
    for k, item in ipairs(items) do
      assert.is_true(w:has(item))
      assert.equal(3 * k, xof(w, item))
    end
    assert.is_false(w:has(4))
    assert.is_false(w:has(0))
    assert.is_false(w:has(2.5))
    assert.is_false(w:has("2"))
    assert.is_false(w:has(-2))
    assert.equal("bad argument #2 to 'add' (item is NaN)", errof(w.add, w, 0 / 0, boxof(1)))
    assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, 0 / 0, 1, 0, 0))
    -- remove every other one; the rest are still found, the removed ones are not
    for k = 1, #items, 2 do w:remove(items[k]) end
    for k, item in ipairs(items) do
      assert.equal(k % 2 == 0, w:has(item))
      if k % 2 == 0 then assert.equal(3 * k, xof(w, item)) end
    end
  end)

  if math.type then
    it("treats an integer and the float of the same value as one item (Lua 5.3+)", function()
      local w = World()
      w:add(math.maxinteger, boxof(1))
      w:add(math.mininteger, boxof(2))
      w:add(7, boxof(3))
      assert.is_true(w:has(7.0))
      assert.is_true(w:has(math.mininteger + 0.0))   -- -2^63 is exact as a float
      assert.is_false(w:has(math.maxinteger + 0.0))  -- 2^63: another number
      assert.equal(3, xof(w, math.maxinteger))
      assert.equal(9, xof(w, 7.0))
      -- the item keeps the value it was added with
      local items = w:querypoint(9.5, 0.5, 0.5)
      assert.equal("integer", math.type(items[1]))
    end)
  end

  it("finds numbers added before the map covered them, and forgets them on remove", function()
    local w = World()
    w:add(5000, boxof(5000))            -- far beyond what an empty world maps
    for k = 1, 3000 do w:add(k, boxof(k)) end
    assert.equal(15000, xof(w, 5000))
    assert.equal(15000, xof(w, 5000.0))
    w:translate(5000, 1, 0, 0)
    assert.equal(15001, xof(w, 5000))
    w:remove(5000)
    assert.is_false(w:has(5000))
    assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, 5000, 1, 0, 0))
    w:add(5000, boxof(7))
    assert.equal(21, xof(w, 5000))
    for k = 1, 3000 do assert.equal(3 * k, xof(w, k)) end
  end)
end)

describe("world item lookup: objects", function()
  it("finds equal long strings made separately and forgets them on remove", function()
    local w = World()
    local long = string.rep("x", 100)
    w:add(long, boxof(1))
    local again = string.rep("xx", 50)
    assert.is_true(w:has(again))
    assert.equal(3, xof(w, again))
    w:translate(again, 1, 0, 0)
    assert.equal(4, xof(w, long))
    w:remove(again)
    assert.is_false(w:has(long))
    assert.is_false(w:has(string.rep("x", 100)))
    long, again = nil, nil
    collectgarbage("collect")
    -- new strings (some may take the old addresses) are not items
    for i = 1, 2000 do
      local s = string.rep("x", 100 + i % 3) .. i
      assert.is_false(w:has(s))
    end
    assert.is_false(w:has(string.rep("x", 100)))
  end)

  it("never takes a new table at a collected item's address for that item", function()
    local w = World()
    for round = 1, 5 do
      local ts = {}
      for k = 1, 300 do ts[k] = {}; w:add(ts[k], boxof(k)) end
      for k = 1, 300 do assert.equal(3 * k, xof(w, ts[k])) end
      for k = 1, 300 do w:remove(ts[k]) end
      ts = nil
      collectgarbage("collect")
      for _ = 1, 600 do
        local t = {}
        assert.is_false(w:has(t))
        assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, t, 1, 0, 0))
      end
      assert.equal(0, w:count())
    end
  end)

  it("tells apart items of every type, also after the world is destroyed", function()
    local w = World()
    local f, co, ud = function() end, coroutine.create(function() end), AABB(0, 0, 0, 1, 1, 1)
    local items = { f, co, ud, {}, true, false, "s", print, w }
    for k, item in ipairs(items) do w:add(item, boxof(k)) end
    for k, item in ipairs(items) do assert.equal(3 * k, xof(w, item)) end
    assert.is_false(w:has(function() end))
    assert.is_false(w:has(AABB(0, 0, 0, 1, 1, 1)))
    assert.is_false(w:has({}))
    w:destroy()
    assert.equal("bad argument #1 to 'has' (world is destroyed)", errof(w.has, w, f))
    local w2 = World()
    for k, item in ipairs(items) do assert.is_false(w2:has(item)) end
    w2:add(f, boxof(1))
    assert.is_true(w2:has(f))
    assert.is_false(w2:has(co))
  end)
end)

describe("world item lookup against a plain table", function()
  it("answers has, shape, translate, move and remove as a reference map does, over many changes", function()
    local rnd = lcg(19)
    local pool = {}
    for k = 0, 40 do pool[#pool + 1] = k end
    for k = 0, 10 do pool[#pool + 1] = k + 0.5 end
    for k = 1, 10 do pool[#pool + 1] = -k end
    pool[#pool + 1] = 2 ^ 40
    pool[#pool + 1] = 1e200
    for k = 1, 15 do pool[#pool + 1] = "s" .. k end
    for k = 1, 5 do pool[#pool + 1] = string.rep("long", 12) .. k end
    for k = 1, 20 do pool[#pool + 1] = {} end
    for k = 1, 5 do pool[#pool + 1] = AABB(0, 0, 0, 1, 1, 1) end
    pool[#pool + 1] = true
    local n = #pool
    -- values equal to pool entries but written differently (1.0 for 1, a rebuilt long string)
    local function alias(v)
      if type(v) == "number" and v == math.floor(v) and rnd(2) == 1 then return v + 0.0 end
      if type(v) == "string" and #v > 40 and rnd(2) == 1 then return (v:sub(1, 1) .. v:sub(2)) end
      return v
    end
    local w = World()
    local ref, x = {}, {}            -- ref[k]: pool[k] is in the world; x[k]: its min x
    local count, nextx = 0, 0
    for step = 1, 6000 do
      local k = rnd(n)
      local item = alias(pool[k])
      local op = rnd(6)
      if op == 1 then
        if ref[k] then
          assert.equal("bad argument #2 to 'add' (item is already in the world)", errof(w.add, w, item, boxof(0)))
        else
          nextx = nextx + 1
          w:add(item, boxof(nextx))
          ref[k], x[k], count = true, 3 * nextx, count + 1
        end
      elseif op == 2 then
        if ref[k] then
          w:remove(item)
          ref[k], count = nil, count - 1
        else
          assert.equal("bad argument #2 to 'remove' (item is not in the world)", errof(w.remove, w, item))
        end
      elseif op == 3 then
        if ref[k] then
          w:translate(item, 1, 0, 0)
          x[k] = x[k] + 1
        else
          assert.equal("bad argument #2 to 'translate' (item is not in the world)", errof(w.translate, w, item, 1, 0, 0))
        end
      elseif op == 4 then
        if ref[k] then
          -- far from every other box (y = 10): a free move
          w:update(item, AABB(x[k], 10, 0, x[k] + 1, 11, 1))
          local ax = w:move(item, 1, 0, 0)
          assert.equal(1, ax)
          w:update(item, AABB(x[k] + 1, 0, 0, x[k] + 2, 1, 1))
          x[k] = x[k] + 1
        else
          assert.equal("bad argument #2 to 'move' (item is not in the world)", errof(w.move, w, item, 1, 0, 0))
          assert.equal("bad argument #2 to 'update' (item is not in the world)", errof(w.update, w, item, boxof(0)))
        end
      elseif op == 5 then
        assert.equal(ref[k] == true, w:has(item))
        if ref[k] then assert.equal(x[k], xof(w, item)) end
      else
        collectgarbage("step")
      end
      if step % 500 == 0 then
        assert.equal(count, w:count())
        for j = 1, n do
          assert.equal(ref[j] == true, w:has(pool[j]))
          if ref[j] then assert.equal(x[j], xof(w, pool[j])) end
        end
      end
    end
  end)
end)

describe("world:move and world:check with an out table", function()
  -- A room of unit tiles with a mover inside: moves hit 0, 1, 2 or more tiles.
  local function room()
    local w = World()
    local rnd = lcg(5)
    for i = 0, 19 do
      w:add({ "tile", i, 0 }, AABB(i, 0, 0, i + 1, 1, 1))
      w:add({ "tile", i, 19 }, AABB(i, 19, 0, i + 1, 20, 1))
      w:add({ "tile", 0, i }, AABB(0, i, 0, 1, i + 1, 1))
      w:add({ "tile", 19, i }, AABB(19, i, 0, 20, i + 1, 1))
    end
    for _ = 1, 40 do
      local i, j = rnd(16) + 1, rnd(16) + 1
      if not (i == 9 and j == 9) then w:add({ "tile", i, j }, AABB(i, j, 0, i + 1, j + 1, 1)) end
    end
    w:add("m", AABB(9.1, 9.1, 0, 9.9, 9.9, 1))
    return w
  end

  it("gives what a move without out gives, with no entries past n, whatever the last move left", function()
    local w = room()
    local rnd = lcg(8)
    local out = {}
    local seen = {}
    for _ = 1, 400 do
      local dx, dy = (rnd(161) - 81) / 10, (rnd(161) - 81) / 10
      local ax, ay, az, cols, n = w:check("m", dx, dy, 0)
      local bx, by, bz, ocols, on = w:check("m", dx, dy, 0, nil, out)
      assert.equal(out, ocols)
      assert.same({ ax, ay, az, n }, { bx, by, bz, on })
      seen[n] = true
      for i = 1, n do assert.same(cols[i], out[i]) end
      for k in pairs(out) do assert.is_true(type(k) == "number" and k >= 1 and k <= n) end
      if rnd(3) == 1 then w:move("m", dx / 4, dy / 4, 0, nil, out) end
    end
    assert.is_true(seen[0] and seen[1] and seen[2])
  end)

  it("returns new collision tables without out, never one an out table held", function()
    local w = room()
    local rnd = lcg(9)
    local out, seen = {}, {}
    for _ = 1, 200 do
      local dx, dy = (rnd(161) - 81) / 10, (rnd(161) - 81) / 10
      -- (without out first: tables an out table dropped in the last round are not reused here)
      local _, _, _, cols, m = w:check("m", dx, dy, 0)
      assert.is_nil(seen[cols])
      for i = 1, m do
        assert.is_nil(seen[cols[i]])
        seen[cols[i]] = true
      end
      local _, _, _, _, n = w:check("m", dx, dy, 0, nil, out)
      assert.equal(m, n)
      for i = 1, n do seen[out[i]] = true end
    end
  end)

  it("clears what the caller left past the collisions, holes included, and keeps other keys", function()
    local w = room()
    local out = { {}, "x", {}, 7, nil, {}, name = "kept" }
    local _, _, _, cols, n = w:move("m", 0, 0, 0, nil, out)
    assert.equal(0, n)
    assert.equal(out, cols)
    assert.is_nil(out[1])
    assert.is_nil(out[3])
    assert.equal("kept", out.name)
    local _, _, _, _, n2 = w:move("m", -20, 0, 0, nil, out)
    assert.is_true(n2 >= 1)
    assert.equal("slide", out[1].type)
    assert.is_nil(out[n2 + 1])
    assert.equal("kept", out.name)
    -- a hole inside the border: everything up to the border goes, and what follows it
    local t = { {}, {}, {}, {} }
    t[2] = nil
    t[5], t[6] = {}, "y"
    w:check("m", 0, 0, 0, nil, t)
    for i = 1, 6 do assert.is_nil(t[i]) end
  end)
end)
