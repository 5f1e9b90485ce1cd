-- World hardening findings: metamethods called by hand on other values, __gc from inside a
-- filter, and rounding-level contacts (a World answer equals brute force over the same
-- narrowphase, in the same order, whatever the tree layout).
local collide = require "collide"

local AABB, OBB, Sphere, Ray, World = collide.AABB, collide.OBB, collide.Sphere, collide.Ray, collide.World

-- Returns the error message of f(...) (fails the test when f does not raise).
local function errof(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(e)
end

local function has(s, sub) return s:find(sub, 1, true) ~= nil end

local function abc()
  local w = World()
  w:add("a", AABB(0, 0, 0, 1, 1, 1))
  w:add("b", AABB(2, 0, 0, 3, 1, 1))
  w:add("c", AABB(4, 0, 0, 5, 1, 1))
  return w
end

describe("World metamethods called by hand on other values", function()
  local mt = getmetatable(World())

  it("__gc on a non-World does nothing and leaves the value intact", function()
    local b = AABB(0, 0, 0, 1, 1, 1)
    assert.is_nil((mt.__gc(b)))
    assert.equal("AABB(0, 0, 0, 1, 1, 1)", tostring(b))
    assert.is_true(b:contains(0.5, 0.5, 0.5))
    mt.__gc({}); mt.__gc(1); mt.__gc(nil); mt.__gc(Sphere(0, 0, 0, 1)); mt.__gc(Ray(0, 0, 0, 1, 0, 0))
    assert.equal("Sphere(1, 2, 3, 4)", tostring(Sphere(1, 2, 3, 4)))
  end)

  it("__tostring on a non-World is the standard type error", function()
    assert.equal("bad argument #1 to '__tostring' (collide.World expected, got collide.AABB)",
      errof(mt.__tostring, AABB(0, 0, 0, 1, 1, 1)):match("bad argument.*"))
    assert.truthy(has(errof(mt.__tostring, {}), "bad argument #1 to '__tostring' (collide.World expected, got table)"))
    assert.truthy(has(errof(mt.__tostring), "(collide.World expected, got no value)"))
  end)

  it("__close on a non-World is the standard type error (Lua 5.4)", function()
    if not mt.__close then return end
    assert.truthy(has(errof(mt.__close, OBB(0, 0, 0, 1, 1, 1)),
      "bad argument #1 to '__close' (collide.World expected, got collide.OBB)"))
    local w = abc()
    mt.__close(w)
    assert.equal("World(destroyed)", tostring(w))
  end)

  it("a userdata given the World metatable (debug.setmetatable) is not taken for a World", function()
    if not (debug and debug.setmetatable) then return end
    local b = AABB(0, 0, 0, 1, 1, 1)
    local old = getmetatable(b)
    debug.setmetatable(b, mt)
    assert.truthy(has(errof(function() return b:count() end), "collide.World expected"))
    assert.truthy(has(errof(tostring, b), "collide.World expected"))
    mt.__gc(b)
    debug.setmetatable(b, old)
    assert.equal("AABB(0, 0, 0, 1, 1, 1)", tostring(b))
  end)

  it("__gc, __tostring and __close still work on real worlds", function()
    local w = abc()
    assert.equal("World(3 items)", tostring(w))
    mt.__gc(w)
    assert.equal("World(destroyed)", tostring(w))
    assert.truthy(has(errof(w.count, w), "world is destroyed"))
    mt.__gc(w) -- twice: nothing
  end)
end)

describe("World __gc called from inside a filter", function()
  local locked = "world is locked (called from a filter)"
  local function gcfilter(w, ret)
    return function() getmetatable(w).__gc(w); return ret end
  end

  it("raises the lock error and frees nothing, for every call that takes a filter", function()
    local w = abc()
    local r = Ray(-1, 0.5, 0.5, 1, 0, 0)
    local calls = {
      function() return w:raycast(r, nil, gcfilter(w, true)) end,
      function() return w:raycastall(r, nil, gcfilter(w, true)) end,
      function() return w:query(AABB(-1, -1, -1, 9, 9, 9), gcfilter(w, true)) end,
      function() return w:querypoint(0.5, 0.5, 0.5, gcfilter(w, true)) end,
      function() return w:sweep(AABB(-2, 0, 0, -1, 1, 1), 10, 0, 0, gcfilter(w, true)) end,
      function() return w:move("a", 10, 0, 0, gcfilter(w, "slide")) end,
      function() return w:check("a", 10, 0, 0, gcfilter(w, "slide")) end,
    }
    for i, f in ipairs(calls) do
      assert.truthy(has(errof(f), locked), "call " .. i)
      -- the world is alive, unlocked and unchanged
      assert.equal("World(3 items)", tostring(w))
      local t, n = w:querypoint(0.5, 0.5, 0.5)
      assert.equal(1, n)
      assert.equal("a", t[1])
      assert.equal("a", (w:raycast(r)))
      assert.equal("AABB(0, 0, 0, 1, 1, 1)", tostring(w:shape("a")))
    end
    getmetatable(w).__gc(w) -- outside a filter: frees
    assert.equal("World(destroyed)", tostring(w))
  end)
end)

describe("World rounding-level contacts", function()
  it("an OBB whose axes are orthonormal only within 1e-6 is found wherever it contains, margin 0", function()
    local w = World({ margin = 0 })
    local o = OBB(0, 0, 0, 1, 1, 1, 1, 0, 0, 9e-7, 1, 0, 0, 0, 1)
    w:add("o", o)
    assert.is_true(o:contains(-1, 1 + 8e-7, 0))
    local t, n = w:querypoint(-1, 1 + 8e-7, 0)
    assert.equal(1, n)
    assert.equal("o", t[1])
    local p = AABB(-1, 1 + 8e-7, 0, -1, 1 + 8e-7, 0)
    t, n = w:query(p)
    assert.equal(o:overlaps(p) and 1 or 0, n) -- exactly the narrowphase's answer
    local item, hit = w:raycast(Ray(-1, 1 + 8e-7, -5, 0, 0, 1))
    assert.equal("o", item)
    assert.equal(4, hit)
  end)

  -- Fuzz-style numbers: halves in [-8, 8] (touching contacts), sometimes huge or tiny doubles.
  local seed = 12345
  local function rnd()
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  end
  local function num()
    if rnd() < 0.08 then return (rnd() * 2 - 1) * 2 ^ math.floor(rnd() * 600 - 300) end
    return math.floor(rnd() * 33 - 16) / 2
  end
  local function shape()
    local k = rnd()
    local x, y, z = num(), num(), num()
    if k < 0.34 then
      return AABB(x, y, z, x + math.abs(num()), y + math.abs(num()), z + math.abs(num()))
    elseif k < 0.67 then
      local o = OBB(x, y, z, math.abs(num()), math.abs(num()), math.abs(num()))
      if rnd() < 0.5 then o:rotate(num(), num(), num(), 1) end
      return o
    end
    return Sphere(x, y, z, math.abs(num()))
  end

  it("every World answer equals brute force over the items in add order (random worlds)", function()
    local rounds = os.getenv("COLLIDE_QUICK") and 40 or 200
    local bad = 0
    for round = 1, rounds do
      local w = World({ margin = round % 2 == 0 and 0.1 or 0 })
      local items, shapes = {}, {}
      for i = 1, 8 + math.floor(rnd() * 24) do
        local s = (i > 1 and rnd() < 0.2) and shapes[1 + math.floor(rnd() * (i - 1))] or shape()
        items[i], shapes[i] = i, s
        w:add(i, s)
      end
      for _ = 1, 6 do
        local px, py, pz = num(), num(), num()
        local t, n = w:querypoint(px, py, pz)
        local k = 0
        for i = 1, #items do
          if shapes[i]:contains(px, py, pz) then k = k + 1; if t[k] ~= i then bad = bad + 1 end end
        end
        if k ~= n then bad = bad + 1 end
        local q = shape()
        t, n = w:query(q)
        k = 0
        for i = 1, #items do
          if shapes[i]:overlaps(q) then k = k + 1; if t[k] ~= i then bad = bad + 1 end end
        end
        if k ~= n then bad = bad + 1 end
        local ok, ray = pcall(Ray, num(), num(), num(), num(), num(), num())
        if ok then
          local hits, best, bt = {}, nil, nil
          for i = 1, #items do
            local th = shapes[i]:raycast(ray)
            if th then
              hits[#hits + 1] = { i, th }
              if not bt or th < bt then best, bt = i, th end
            end
          end
          table.sort(hits, function(a, b) if a[2] ~= b[2] then return a[2] < b[2] end return a[1] < b[1] end)
          local all, na = w:raycastall(ray)
          if na ~= #hits then bad = bad + 1 end
          for i = 1, math.min(na, #hits) do
            if all[i].item ~= hits[i][1] or all[i].t ~= hits[i][2] then bad = bad + 1 end
          end
          local item, th = w:raycast(ray)
          if item ~= best or th ~= bt then bad = bad + 1 end
        end
      end
      local pr, np = w:pairs()
      local k = 0
      for i = 1, #items do
        for j = i + 1, #items do
          if shapes[i]:overlaps(shapes[j]) then
            if pr[2 * k + 1] ~= i or pr[2 * k + 2] ~= j then bad = bad + 1 end
            k = k + 1
          end
        end
      end
      if k ~= np then bad = bad + 1 end
    end
    assert.equal(0, bad)
  end)
end)

describe("world:move near the limits of doubles", function()
  local function finite(...)
    for i = 1, select("#", ...) do
      local v = select(i, ...)
      if not (v == v and v > -math.huge and v < math.huge) then return false end
    end
    return true
  end

  it("never gives an item an infinite or NaN shape (moves of 1.7e308 from 1e308, any response)", function()
    for _, resp in ipairs({ "slide", "touch", "cross", "bounce" }) do
      local w = World()
      w:add("a", AABB(1e308, 0, 0, 1.5e308, 1, 1))
      w:add("wall", AABB(1.6e308, -10, -10, 1.7e308, 10, 10))
      w:add("far", AABB(1.75e308, 0, 0, 1.79e308, 1, 1))
      local ax, ay, az = w:move("a", 1.7e308, 0, 0, function() return resp end)
      assert.is_true(finite(ax, ay, az), resp)
      assert.is_true(finite(w:shape("a"):bounds()), resp)
      ax, ay, az = w:move("a", 1.7e308, -1.7e308, 1e308, function() return resp end)
      assert.is_true(finite(ax, ay, az), resp)
      assert.is_true(finite(w:shape("a"):bounds()), resp)
    end
    -- nothing in the way: a move whose end would overflow ends where the item is
    local w = World()
    w:add("b", AABB(1.7e308, 0, 0, 1.75e308, 1, 1))
    local ax, ay, az = w:move("b", 1.7e308, 0, 0)
    assert.same({ 0, 0, 0 }, { ax, ay, az })
    assert.same({ 1.7e308, 0, 0, 1.75e308, 1, 1 }, { w:shape("b"):bounds() })
  end)

  it("gives finite normals and positions for a sphere sliding along a box of size 1e28 (fuzz_world finding)", function()
    local w = World()
    w:add("s", Sphere(-1.8564245922408753e+28, -9.2821229612299875e+27, -9.2168551340702461e+27, 6.5))
    local h = 9.2821229612299875e+27
    w:add("box", OBB(-9.74938464272496e+27, 6.5, -9.2821229612299875e+27, h, h, h,
      1, -2.6852393904475555e-36, 1.745405603790911e-35,
      2.6852393904475555e-36, 1, -1.745405603790911e-35,
      -1.745405603790911e-35, 1.745405603790911e-35, 1))
    -- the sphere (radius 6.5) touches the box's bottom face, far within the rounding allowance at
    -- these coordinates (2^-42 of 1.9e28: 4e15): moving 2 up along it grazes it (no collision since
    -- the hair-contact rule, sweep.c); moving 1e20 up into it is a collision
    local ax, ay, az, cols, n = w:check("s", -9.2816481113184947e+27, 2, -8)
    assert.is_true(finite(ax, ay, az))
    for i = 1, n do
      local c = cols[i]
      assert.is_true(finite(c.t, c.nx, c.ny, c.nz))
      assert.near(1, c.nx * c.nx + c.ny * c.ny + c.nz * c.nz, 1e-9)
    end
    ax, ay, az, cols, n = w:move("s", -9.2816481113184947e+27, 1e20, -8)
    assert.is_true(finite(ax, ay, az))
    assert.is_true(n >= 1)
    for i = 1, n do
      local c = cols[i]
      assert.is_true(finite(c.t, c.nx, c.ny, c.nz))
      assert.near(1, c.nx * c.nx + c.ny * c.ny + c.nz * c.nz, 1e-9)
    end
    local cx, cy, cz = w:shape("s"):center()
    assert.is_true(finite(cx, cy, cz))
  end)
end)
