-- collide.Polygon: a polygon whose coordinates are copied once into a userdata, so that
-- polygon:contains(x, y) reads no table. Exact values, a differential check against
-- collide.pointinpolygon on the same coordinates (the same core test, so bit for bit the same
-- answers), the constructor's validation (pointinpolygon's, naming 'Polygon'), every method's
-- errors, immutability, __tostring/__eq/collide.type, and the LuaLS definitions of its methods.
local collide = require "collide"

local inf, nan = math.huge, 0 / 0
local Polygon = collide.Polygon

-- errof(f, ...): the error message of f(...) (trailing nils kept), or nil if it did not fail
local errof = require("support.util").errmsg

local SQUARE = { 0, 0, 2, 0, 2, 2, 0, 2 }
-- concave: a square with a notch whose tip is (2, 1)
local NOTCH = { 0, 0, 4, 0, 4, 4, 2, 1, 0, 4 }

describe("collide.Polygon: exact values", function()
  it("convex square: inside, outside, and every edge and vertex inside", function()
    local p = Polygon(SQUARE)
    assert.is_true(p:contains(1, 1))
    assert.is_false(p:contains(3, 1))
    assert.is_false(p:contains(-0.0001, 1))
    assert.is_false(p:contains(1, 2.0001))
    for _, q in ipairs { { 2, 1 }, { 1, 0 }, { 1, 2 }, { 0, 1 }, { 0, 0 }, { 2, 2 }, { 2, 0 }, { 0, 2 } } do
      assert.is_true(p:contains(q[1], q[2]), q[1] .. "," .. q[2])
    end
  end)

  it("clockwise order gives the same answers", function()
    local p = Polygon { 0, 0, 0, 2, 2, 2, 2, 0 }
    assert.is_true(p:contains(1, 1))
    assert.is_false(p:contains(3, 1))
    assert.is_true(p:contains(2, 1))
  end)

  it("concave polygon: the notch is outside, its edges and tip are inside", function()
    local p = Polygon(NOTCH)
    assert.is_true(p:contains(2, 0))    -- bottom edge
    assert.is_true(p:contains(2, 1))    -- the notch's tip (a vertex)
    assert.is_true(p:contains(3, 2.5))  -- on the edge (4,4)-(2,1)
    assert.is_false(p:contains(2, 2))   -- in the notch
    assert.is_true(p:contains(1, 1))
    assert.is_false(p:contains(5, 0))
    assert.is_true(p:contains(0.2, 3.5))    -- left of the edge (2,1)-(0,4)
    assert.is_false(p:contains(0.5, 3.5))   -- right of it: in the notch
    assert.is_false(p:contains(2, 3.9))
  end)

  it("self-intersecting polygons follow the even-odd rule (the pentagram's centre is outside)", function()
    local star = {}
    for i = 0, 4 do
      local a = math.pi / 2 + i * 4 * math.pi / 5
      star[#star + 1] = 10 * math.cos(a)
      star[#star + 1] = 10 * math.sin(a)
    end
    local p = Polygon(star)
    assert.is_false(p:contains(0, 0))
    assert.is_true(p:contains(0, 7))
    assert.are.equal(collide.pointinpolygon(star, 0, 0), p:contains(0, 0))
  end)

  it("degenerate polygons: collinear vertices and zero area", function()
    local line = Polygon { 0, 0, 1, 1, 2, 2 }
    assert.is_true(line:contains(1, 1))
    assert.is_true(line:contains(0.5, 0.5))
    assert.is_false(line:contains(1, 0))
    local withmid = Polygon { 0, 0, 1, 0, 2, 0, 2, 2, 0, 2 }  -- (1,0) is collinear
    assert.is_true(withmid:contains(1, 0))
    assert.is_true(withmid:contains(1, 1))
    assert.is_false(withmid:contains(1, -1e-300))
    local dup = Polygon { 0, 0, 0, 0, 2, 0, 2, 2, 0, 2 }    -- a repeated vertex
    assert.is_true(dup:contains(1, 1))
    assert.is_true(dup:contains(0, 0))
  end)

  it("huge and tiny coordinates are exact", function()
    local big = Polygon { -1e308, -1e308, 1e308, -1e308, 1e308, 1e308 }
    assert.is_true(big:contains(0, 0))
    assert.is_false(big:contains(-1e-300, 0))
    local tiny = Polygon { 0, 0, 1, 0, 0.25, 1 }
    assert.is_false(tiny:contains(0, 5e-324))
    assert.is_true(tiny:contains(5e-324, 5e-324))
  end)

  it("collide.pointinpolygon accepts a Polygon too", function()
    local p = Polygon(NOTCH)
    assert.is_true(collide.pointinpolygon(p, 2, 1))
    assert.is_false(collide.pointinpolygon(p, 2, 2))
    assert.is_true(collide.pointinpolygon(p, 1, 1))
  end)

  it("count and vertices give the copied coordinates back exactly", function()
    local xy = { 0.1, -0.0, 1e308, 5e-324, -3, 7 }
    local p = Polygon(xy)
    assert.are.equal(3, p:count())
    local v = p:vertices()
    assert.are.equal(6, #v)
    for i = 1, 6 do assert.are.equal(xy[i], v[i]) end
    assert.is_true(1 / v[2] < 0)  -- -0 kept
    assert.are_not.equal(v, p:vertices())  -- a new table each time
  end)

  it("numeric strings are accepted as pointinpolygon accepts them", function()
    local p = Polygon { "0", 0, 2, "0x2", 0, 2 }
    assert.are.same({ 0, 0, 2, 2, 0, 2 }, p:vertices())
    assert.is_true(p:contains("0.5", 0.5))
  end)

  it("a polygon larger than the stack buffer (1000 and 200,000 vertices)", function()
    -- (COLLIDE_QUICK=2, under valgrind: 20,000, not 200,000; spec/15 reads 200,000 vertices there)
    for _, n in ipairs { 1000, os.getenv("COLLIDE_QUICK") == "2" and 20000 or 200000 } do
      local poly = {}
      for i = 0, n - 1 do
        local a = 2 * math.pi * i / n
        poly[2 * i + 1] = math.cos(a)
        poly[2 * i + 2] = math.sin(a)
      end
      local p = Polygon(poly)
      assert.are.equal(n, p:count())
      assert.is_true(p:contains(0, 0))
      assert.is_true(p:contains(1, 0))  -- a vertex
      assert.is_false(p:contains(1.5, 0))
      assert.are.equal(collide.pointinpolygon(poly, 0.5, -0.3), p:contains(0.5, -0.3))
      local v = p:vertices()
      assert.are.equal(2 * n, #v)
      assert.are.equal(poly[2 * n], v[2 * n])
    end
  end)
end)

-- ------------------------------------------------------------------ differential
-- Deterministic PRNG (LCG mod 2^31), the same on every Lua version.
local seed = 20260601
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local function irnd(a, b) return a + math.floor(rnd() * (b - a + 1)) end
local function pick(t) return t[irnd(1, #t)] end

-- A random polygon (flat array) of one of several nasty families; returns xy and a scale.
local function randompolygon()
  local n = irnd(3, 12)
  local kind = irnd(1, 6)
  -- (no coordinates below about 2^-1000: the core's exact fallback has undefined behaviour when
  -- two factors of a product are both that small; reported, see the H7 notes)
  local scale = ({ 1, 1, 1, 1e300, 1e-300, 2 ^ -1000 })[kind]
  local xy = {}
  if kind == 1 then      -- small integer grid: points on edges and vertices are common and exact
    for i = 1, 2 * n do xy[i] = irnd(-4, 4) end
  elseif kind == 2 then  -- star-shaped, sorted by angle (simple), radii random
    for i = 0, n - 1 do
      local a = 2 * math.pi * (i + rnd() * 0.9) / n
      local r = 1 + rnd() * 9
      xy[2 * i + 1], xy[2 * i + 2] = r * math.cos(a), r * math.sin(a)
    end
  elseif kind == 3 then  -- grid with collinear vertices: each edge's midpoint inserted
    local base = {}
    for i = 1, 2 * math.min(n, 6) do base[i] = 2 * irnd(-3, 3) end
    local m = #base / 2
    for i = 0, m - 1 do
      local j = (i + 1) % m
      xy[#xy + 1], xy[#xy + 2] = base[2 * i + 1], base[2 * i + 2]
      xy[#xy + 1], xy[#xy + 2] = (base[2 * i + 1] + base[2 * j + 1]) / 2, (base[2 * i + 2] + base[2 * j + 2]) / 2
    end
  else                   -- huge or tiny: a grid polygon scaled
    for i = 1, 2 * n do xy[i] = irnd(-4, 4) * scale end
  end
  return xy, scale
end

-- A query point for xy: random, a vertex, an edge's midpoint, or a point just off one.
local function randompoint(xy, scale)
  local n = #xy / 2
  local r = rnd()
  local i = irnd(0, n - 1)
  local j = (i + 1) % n
  if r < 0.2 then return xy[2 * i + 1], xy[2 * i + 2] end
  if r < 0.4 then return (xy[2 * i + 1] + xy[2 * j + 1]) / 2, (xy[2 * i + 2] + xy[2 * j + 2]) / 2 end
  if r < 0.5 then
    local t = rnd()
    return xy[2 * i + 1] + t * (xy[2 * j + 1] - xy[2 * i + 1]), xy[2 * i + 2] + t * (xy[2 * j + 2] - xy[2 * i + 2])
  end
  if r < 0.6 then
    local x, y = xy[2 * i + 1], xy[2 * i + 2]
    local e = scale == 1 and pick { 5e-324, 1e-300, 1e-15, 1e-9 } or 1e-9 * scale
    return x + pick { -e, 0, e }, y + pick { -e, 0, e }
  end
  if r < 0.8 then return irnd(-5, 5) * scale / 2, irnd(-5, 5) * scale / 2 end
  return (rnd() * 12 - 6) * scale, (rnd() * 12 - 6) * scale
end

describe("collide.Polygon: differential against collide.pointinpolygon", function()
  it("10,000 random polygons and points give the same answers (contains and pointinpolygon(Polygon))", function()
    local problems, inside = {}, 0
    local cases = os.getenv("COLLIDE_QUICK") == "2" and 1000 or 10000 -- (a tenth under valgrind)
    for case = 1, cases do
      local xy, scale = randompolygon()
      local p = Polygon(xy)
      for _ = 1, 3 do
        local x, y = randompoint(xy, scale)
        local want = collide.pointinpolygon(xy, x, y)
        local got, got2 = p:contains(x, y), collide.pointinpolygon(p, x, y)
        if want then inside = inside + 1 end
        if got ~= want or got2 ~= want then
          problems[#problems + 1] = ("case %d: {%s} at %.17g, %.17g: pointinpolygon %s, contains %s, pointinpolygon(Polygon) %s")
            :format(case, table.concat(xy, ","), x, y, tostring(want), tostring(got), tostring(got2))
          if #problems >= 5 then break end
        end
      end
      if #problems >= 5 then break end
    end
    assert.are.equal("", table.concat(problems, "\n"))
    local points = 3 * cases
    assert.is_true(inside > points / 6 and inside < points * 5 / 6, "inside " .. inside .. " of " .. points)  -- both answers exercised
  end)

  it("vertices() round-trips: Polygon(p:vertices()) == p", function()
    for _ = 1, 500 do
      local xy = randompolygon()
      local p = Polygon(xy)
      assert.is_true(Polygon(p:vertices()) == p)
      assert.are.same(xy, p:vertices())
    end
  end)
end)

-- ------------------------------------------------------------------ errors
describe("collide.Polygon: errors", function()
  local P = "bad argument #1 to 'Polygon' "
  it("requires a table", function()
    assert.are.equal(P .. "(table expected, got nil)", errof(Polygon, nil))
    assert.are.equal(P .. "(table expected, got no value)", errof(Polygon))
    assert.are.equal(P .. "(table expected, got string)", errof(Polygon, "0,0,1,0,0,1"))
    assert.are.equal(P .. "(table expected, got number)", errof(Polygon, 6))
    assert.are.equal(P .. "(table expected, got collide.AABB)", errof(Polygon, collide.AABB(0, 0, 0, 1, 1, 1)))
    assert.are.equal(P .. "(table expected, got collide.Polygon)", errof(Polygon, Polygon(SQUARE)))
  end)
  it("requires at least 3 vertices and an even number of coordinates", function()
    assert.are.equal(P .. "(polygon has fewer than 3 vertices)", errof(Polygon, {}))
    assert.are.equal(P .. "(polygon has fewer than 3 vertices)", errof(Polygon, { 0, 0, 1, 0, 1 }))
    assert.are.equal(P .. "(polygon has an odd number of coordinates)", errof(Polygon, { 0, 0, 1, 0, 0, 1, 5 }))
  end)
  it("requires every coordinate to be a finite number, naming the first bad one", function()
    assert.are.equal(P .. "(polygon coordinate 3 is not a number)", errof(Polygon, { 0, 0, "x", 0, 0, 1 }))
    assert.are.equal(P .. "(polygon coordinate 6 is not a number)", errof(Polygon, { 0, 0, 1, 0, 0, {} }))
    assert.are.equal(P .. "(polygon coordinate 2 is not finite)", errof(Polygon, { 0, nan, 1, 0, 0, 1 }))
    assert.are.equal(P .. "(polygon coordinate 5 is not finite)", errof(Polygon, { 0, 0, 1, 0, -inf, 1 }))
    local big = {}
    for i = 1, 5000 do big[i] = i % 7 end
    big[4001] = "x"
    assert.are.equal(P .. "(polygon coordinate 4001 is not a number)", errof(Polygon, big))
  end)
  it("gives exactly pointinpolygon's reason for every bad table", function()
    local cases = { {}, { 1 }, { 1, 2, 3, 4 }, { 1, 2, 3, 4, 5 }, { 1, 2, 3, 4, 5, 6, 7 }, { 0, 0, true, 1, 1, 1 },
      { 0, 0, 1, 1, 1, nan }, { 0, 0, 1, 1, 1, "1e999" }, setmetatable({}, { __len = function() return 6 end }),
      setmetatable({ 0, 0, 1 }, { __index = function() return 1 end }) }
    for i, t in ipairs(cases) do
      local a, b = errof(Polygon, t), errof(collide.pointinpolygon, t, 0, 0)
      assert.is_string(a, "case " .. i)
      assert.are.equal(b:gsub("'pointinpolygon'", "'Polygon'"), a, "case " .. i)
    end
  end)
  it("rejects a sparse table whose border exceeds INT_MAX with 'polygon is too large' (5.3+)", function()
    if math.type == nil then return end
    local src = { "return {" }
    for i = 1, 16 do src[#src + 1] = i .. "," end
    src[#src + 1] = "[17]=0,"
    for e = 5, 62 do src[#src + 1] = ("[%d]=0,"):format(2 ^ e) end
    src[#src + 1] = "}"
    local t = load(table.concat(src))()
    if #t > 2147483647 then
      assert.are.equal(P .. "(polygon is too large)", errof(Polygon, t))
    end
  end)

  it("methods check self and their numbers", function()
    local p = Polygon(SQUARE)
    local mt = getmetatable(p).__index
    local box = collide.AABB(0, 0, 0, 1, 1, 1)
    for _, name in ipairs { "contains", "count", "vertices" } do
      local f = mt[name]
      local E = "bad argument #1 to '" .. name .. "' (collide.Polygon expected, got "
      assert.are.equal(E .. "collide.AABB)", errof(f, box, 1, 1))
      assert.are.equal(E .. "table)", errof(f, SQUARE, 1, 1))
      assert.are.equal(E .. "nil)", errof(f, nil, 1, 1))
      assert.are.equal(E .. "no value)", errof(f))
      assert.are.equal(E .. "collide.OBB)", errof(f, collide.OBB(0, 0, 0, 1, 1, 1), 1, 1))
    end
    assert.are.equal("bad argument #2 to 'contains' (number expected, got nil)", errof(p.contains, p, nil, 1))
    assert.are.equal("bad argument #3 to 'contains' (number expected, got no value)", errof(p.contains, p, 1))
    assert.are.equal("bad argument #2 to 'contains' (number expected, got string)", errof(p.contains, p, "a", 1))
    assert.are.equal("bad argument #3 to 'contains' (number expected, got collide.Polygon)", errof(p.contains, p, 1, p))
    assert.are.equal("bad argument #2 to 'contains' (number is not finite)", errof(p.contains, p, nan, 1))
    assert.are.equal("bad argument #3 to 'contains' (number is not finite)", errof(p.contains, p, 1, -inf))
    assert.are.equal("bad argument #1 to '__tostring' (collide.Polygon expected, got collide.AABB)",
      errof(getmetatable(p).__tostring, box))
  end)

  it("pointinpolygon with a Polygon checks x and y as with a table, and keeps its type error", function()
    local p = Polygon(SQUARE)
    assert.are.equal("bad argument #2 to 'pointinpolygon' (number expected, got nil)", errof(collide.pointinpolygon, p, nil, 1))
    assert.are.equal("bad argument #3 to 'pointinpolygon' (number is not finite)", errof(collide.pointinpolygon, p, 1, nan))
    assert.are.equal("bad argument #1 to 'pointinpolygon' (table expected, got collide.AABB)",
      errof(collide.pointinpolygon, collide.AABB(0, 0, 0, 1, 1, 1), 0, 0))
  end)

  it("a real polygon wearing another metatable is still accepted by its tag, foreign userdata are not", function()
    if not debug or not debug.setmetatable then return end
    local p = Polygon(SQUARE)
    local contains = getmetatable(p).__index.contains
    local mt = getmetatable(p)
    local b = collide.AABB(0, 0, 0, 1, 1, 1)
    debug.setmetatable(b, mt)  -- an AABB dressed as a Polygon
    assert.is_nil(collide.type(b))
    assert.are.equal("bad argument #1 to 'contains' (collide.Polygon expected, got collide.Polygon)", errof(contains, b, 1, 1))
    local q = Polygon(SQUARE)
    debug.setmetatable(q, {})
    assert.is_true(contains(q, 1, 1))
    assert.is_nil(collide.type(q))
  end)
end)

-- ------------------------------------------------------------------ the object
describe("collide.Polygon: the object", function()
  it("is immutable: only contains, count and vertices; no fields can be set", function()
    local p = Polygon(SQUARE)
    local names = {}
    for k in pairs(getmetatable(p).__index) do names[#names + 1] = k end
    table.sort(names)
    assert.are.same({ "contains", "count", "vertices" }, names)
    assert.is_nil(getmetatable(p).__newindex)
    assert.is_false(pcall(function() p.n = 5 end))
    assert.is_false(pcall(function() p[1] = 5 end))
  end)

  it("copies its input: later changes to the table or to vertices() do not affect it", function()
    local xy = { 0, 0, 2, 0, 2, 2, 0, 2 }
    local p = Polygon(xy)
    xy[1], xy[5] = 100, -100
    local v = p:vertices()
    v[1] = 50
    assert.are.same(SQUARE, p:vertices())
    assert.is_true(p:contains(1, 1))
  end)

  it("collide.type, __name, __tostring", function()
    local p = Polygon(SQUARE)
    assert.are.equal("Polygon", collide.type(p))
    assert.are.equal("collide.Polygon", getmetatable(p).__name)
    assert.are.equal("Polygon(4 vertices: 0,0, 2,0, 2,2, 0,2)", tostring(p))
    assert.are.equal("Polygon(3 vertices: 0.1,-2.5, 1e+300,3, 0.33333333333333,0)",
      tostring(Polygon { 0.1, -2.5, 1e300, 3, 1 / 3, 0 }))
    local many = {}
    for i = 1, 40 do many[i] = i end
    assert.are.equal("Polygon(20 vertices: 1,2, 3,4, 5,6, 7,8, 9,10, 11,12, 13,14, 15,16, ...)", tostring(Polygon(many)))
  end)

  it("__eq is value equality (same vertices in the same order) and false against anything else", function()
    local p = Polygon(SQUARE)
    assert.is_true(p == Polygon { 0, 0, 2, 0, 2, 2, 0, 2 })
    assert.is_true(p == Polygon { -0.0, 0, 2, 0, 2, 2, 0, 2 })
    assert.is_false(p == Polygon { 2, 0, 2, 2, 0, 2, 0, 0 })    -- same shape, another first vertex
    assert.is_false(p == Polygon { 0, 0, 2, 0, 2, 2 })
    assert.is_false(p == Polygon { 0, 0, 2, 0, 2, 2, 0, 2.5 })
    assert.is_false(p == collide.AABB(0, 0, 0, 2, 2, 0))
    assert.is_false(collide.AABB(0, 0, 0, 2, 2, 0) == p)
    assert.is_false(p == SQUARE)
    local eq = getmetatable(p).__eq
    assert.is_false(eq(p, collide.Sphere(0, 0, 0, 1)))
    assert.is_false(eq(collide.Sphere(0, 0, 0, 1), p))
    assert.is_false(eq(p, nil))
    assert.is_true(eq(p, p))
  end)

  it("is annotated in library/collide.lua (every method, and no other)", function()
    local here = debug.getinfo(1, "S").source:match("^@(.*)$") or ""
    local root = here:match("^(.*)[/\\]spec[/\\][^/\\]*$") or "."
    local fh = io.open(root .. "/library/collide.lua", "r")
    if not fh then return end  -- not shipped next to this spec (e.g. inside LÖVE)
    local text = fh:read("*a")
    fh:close()
    assert.is_truthy(text:find("---@class collide.Polygon\nlocal Polygon = {}", 1, true))
    assert.is_truthy(text:find("\nfunction collide.Polygon(xy) end", 1, true))
    local doc = {}
    for name in text:gmatch("\nfunction Polygon:([%w_]+)%(") do doc[#doc + 1] = name end
    table.sort(doc)
    assert.are.same({ "contains", "count", "vertices" }, doc)
  end)
end)
