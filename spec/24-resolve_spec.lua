-- world:resolve(item [, filter]) -> dx, dy, dz, n: push-out of overlaps (API.md, "Movement that
-- games can trust"), against a brute-force pure-Lua reference of the documented rule over every
-- item: minimum translations (the smallest of the six face pushes of an AABB pair, lower axis
-- and + first on ties), the deepest first (ties by add order), one per round, up to 16 rounds,
-- ending at the visited position with the smallest total depth (the earliest on ties).
local collide = require "collide"
local gen = require "support.gen"
local util = require "support.util"
local errof = util.errof

local AABB, Sphere, World = collide.AABB, collide.Sphere, collide.World
local QUICK = os.getenv("COLLIDE_QUICK")
local CASES = QUICK and 500 or 3000

-- ---- the reference ----

-- Returns depth, axis, sign of the minimum push of box a out of box b ({x0,y0,z0,x1,y1,z1}),
-- or nil when their open interiors do not overlap (a flat axis shared by both is no way out).
local function pen(a, b)
  local best, axis, sign = math.huge, nil, nil
  for i = 1, 3 do
    local a0, a1, b0, b1 = a[i], a[i + 3], b[i], b[i + 3]
    if not (a0 == a1 and b0 == b1 and a0 == b0) then
      if not (a0 < b1 and a1 > b0) then return nil end
      if b1 - a0 < best then best, axis, sign = b1 - a0, i, 1 end
      if a1 - b0 < best then best, axis, sign = a1 - b0, i, -1 end
    end
  end
  if axis then return best, axis, sign end
end

-- Returns the reference displacement and count for box m among items {box=, solid=} (add order).
local function resolve(items, m)
  local cur = { m[1], m[2], m[3], m[4], m[5], m[6] }
  local best, bestsum, start = cur, math.huge, {}
  for round = 0, 16 do
    local sum, deep, di, dax, dsg = 0, nil, nil, nil, nil
    for i, it in ipairs(items) do
      local d, ax, sg = pen(cur, it.box)
      if d and it.solid then
        if round == 0 then start[i] = true end
        sum = sum + d
        if not deep or d > deep then deep, di, dax, dsg = d, i, ax, sg end
      end
    end
    if sum < bestsum then bestsum, best = sum, { cur[1], cur[2], cur[3], cur[4], cur[5], cur[6] } end
    if not di or round == 16 then break end
    local b = items[di].box
    local f = dsg > 0 and b[dax + 3] or b[dax] - (cur[dax + 3] - cur[dax])
    cur[dax + 3] = cur[dax + 3] + (f - cur[dax])
    cur[dax] = f
  end
  local n = 0
  for i in pairs(start) do
    if not pen(best, items[i].box) then n = n + 1 end
  end
  return best[1] - m[1], best[2] - m[2], best[3] - m[3], n, best
end

-- ---- specs ----

describe("world:resolve", function()
  it("an item 1/4 into two floor tiles (a seam under it) is pushed up 1/4 out of both", function()
    local w = World()
    w:add("A", AABB(0, 0, 0, 1, 1, 1)); w:add("B", AABB(1, 0, 0, 2, 1, 1))
    w:add("p", AABB(0.5, 0.75, 0, 1.5, 1.75, 1))
    assert.same({ 0, 0.25, 0, 2 }, { w:resolve("p") })
    assert.same({ 0.5, 1, 0, 1.5, 2, 1 }, { w:shape("p"):bounds() })
    assert.same({ 0, 0, 0, 0 }, { w:resolve("p") })      -- touching: nothing to do
  end)

  it("a corner: out of the floor and the wall, no further than each needs", function()
    local w = World()
    w:add("floor", AABB(-10, -1, -1, 10, 0, 1)); w:add("wall", AABB(2, -1, -1, 3, 10, 1))
    w:add("p", AABB(1.25, -0.5, 0, 2.125, 0.5, 1))
    assert.same({ -0.125, 0.5, 0, 2 }, { w:resolve("p") })
  end)

  it("between two walls that squeeze it, it stays where its overlap is smallest", function()
    local w = World()
    w:add("A", AABB(-10, -10, -10, 0.25, 10, 10)); w:add("B", AABB(0.875, -10, -10, 10, 10, 10))
    w:add("p", AABB(0, 0, 0, 1, 1, 1))
    assert.same({ 0, 0, 0, 0 }, { w:resolve("p") })
    w:update("p", AABB(0.125, 0, 0, 1.125, 1, 1))            -- depths 1/8 and 1/4: still the smallest sum
    assert.same({ 0, 0, 0, 0 }, { w:resolve("p") })
  end)

  it("a sphere overlapping one box moves by its minimum translation (and a 2^-40 gap)", function()
    local w = World()
    w:add("box", AABB(0, 0, 0, 2, 1, 2))
    w:add("s", Sphere(1, 1.25, 1, 0.5))
    local dx, dy, dz, n = w:resolve("s")
    assert.same({ 0, 0, 1 }, { dx, dz, n })
    assert.is_true(dy >= 0.25 and dy - 0.25 <= 4 * 2 ^ -40)
    assert.is_false(w:shape("s"):overlaps(AABB(0, 0, 0, 2, 1 - 1e-15, 2)))
    w:update("s", Sphere(2.3, 1.4, 1, 0.75))                 -- off the corner edge, along its offset
    dx, dy, dz, n = w:resolve("s")
    local ox, oy = 0.3, 0.4
    local depth = 0.75 - 0.5
    assert.is_true(math.abs(dx - depth * ox / 0.5) < 1e-9 and math.abs(dy - depth * oy / 0.5) < 1e-9)
    assert.equal(0, dz); assert.equal(1, n)
  end)

  it("the filter names the solid items, is asked once per item met, and its error changes nothing", function()
    local w = World()
    w:add("ghost", AABB(0, 0, 0, 2, 1, 1)); w:add("floor", AABB(0, -1, 0, 2, 0.5, 1))
    w:add("p", AABB(0.5, 0.25, 0, 1.5, 1.25, 1))
    local asked = {}
    local dx, dy, dz, n = w:resolve("p", function(item, other)
      assert.equal("p", item)
      asked[other] = (asked[other] or 0) + 1
      return other ~= "ghost"
    end)
    assert.same({ 0, 0.25, 0, 1 }, { dx, dy, dz, n })
    assert.same({ ghost = 1, floor = 1 }, asked)
    w:update("p", AABB(0.5, 0.25, 0, 1.5, 1.25, 1))
    assert.equal("boom", errof(w.resolve, w, "p", function() error("boom", 0) end))
    assert.same({ 0.5, 0.25, 0, 1.5, 1.25, 1 }, { w:shape("p"):bounds() })
    local e = errof(w.resolve, w, "p", function() w:remove("floor"); return true end)
    assert.truthy(e:find("world is locked", 1, true), e)
    assert.is_true(w:has("floor"))
    assert.same({ 0, 0.75, 0, 2 }, { w:resolve("p") })        -- unlocked; out of both
  end)

  it("rejects bad arguments in the usual wording, changing nothing", function()
    local w = World()
    w:add("p", AABB(0, 0, 0, 1, 1, 1))
    assert.equal("bad argument #2 to 'resolve' (item is not in the world)", errof(w.resolve, w, "q"))
    assert.equal("bad argument #3 to 'resolve' (function expected, got number)", errof(w.resolve, w, "p", 5))
    assert.equal("bad argument #1 to 'resolve' (collide.World expected, got table)", errof(w.resolve, {}, "p"))
    w:destroy()
    assert.equal("bad argument #1 to 'resolve' (world is destroyed)", errof(w.resolve, w, "p"))
  end)

  for _, flat in ipairs({ false, true }) do
    it("equals the brute-force reference on random fields of touching and overlapping boxes" ..
       (flat and " (2D, flat boxes)" or ""), function()
      local r = gen.new(flat and 77 or 24)
      local moved, squeezed = 0, 0
      for case = 1, CASES do
        local w, items = World(), {}
        local function q(a, b) return r:int(a * 4, b * 4) / 4 end
        for i = 1, r:int(1, 8) do
          local x0, y0, z0 = q(-3, 3), q(-3, 3), flat and 0 or q(-3, 3)
          local b = { x0, y0, z0, x0 + q(0.25, 3), y0 + q(0.25, 3), flat and 0 or z0 + q(0.25, 3) }
          if r:chance(0.3) and #items > 0 then          -- a tile touching the previous one
            local p = items[#items].box
            b = { p[4], p[2], p[3], p[4] + (p[4] - p[1]), p[5], p[6] }
          end
          items[i] = { box = b, solid = r:chance(0.8), name = "o" .. i }
          w:add(items[i].name, AABB(b[1], b[2], b[3], b[4], b[5], b[6]))
        end
        local x0, y0, z0 = q(-2, 2), q(-2, 2), flat and 0 or q(-2, 2)
        if r:chance(0.8) then                            -- starting inside an item, mostly
          local b = items[r:int(1, #items)].box
          x0, y0 = b[1] + q(0, 1), b[2] + q(0, 1)
          z0 = flat and 0 or b[3] + q(0, 1)
        end
        local m = { x0, y0, z0, x0 + q(0.25, 2), y0 + q(0.25, 2), flat and 0 or z0 + q(0.25, 2) }
        if r:chance(0.5) then                            -- a real-valued start
          local ox, oy = r:float() - 0.5, r:float() - 0.5
          m = { m[1] + ox, m[2] + oy, m[3], m[4] + ox, m[5] + oy, m[6] }
        end
        w:add("m", AABB(m[1], m[2], m[3], m[4], m[5], m[6]))
        local solid = {}
        for _, it in ipairs(items) do solid[it.name] = it.solid end
        local filter = nil
        if r:chance(0.7) then filter = function(_, other) return solid[other] end
        else for _, it in ipairs(items) do it.solid = true end end
        local wx, wy, wz, wn, best = resolve(items, m)
        local dx, dy, dz, n = w:resolve("m", filter)
        if not (dx == wx and dy == wy and dz == wz and n == wn) then
          error(string.format("case %d: got %.17g %.17g %.17g %d, reference %.17g %.17g %.17g %d", case,
            dx, dy, dz, n, wx, wy, wz, wn), 0)
        end
        assert.same(best, { w:shape("m"):bounds() })
        if wx ~= 0 or wy ~= 0 or wz ~= 0 then moved = moved + 1 end
        if wn == 0 and (wx ~= 0 or wy ~= 0 or wz ~= 0) then squeezed = squeezed + 1 end
        w:destroy()
      end
      assert.is_true(moved > CASES / 5)
    end)
  end
end)
