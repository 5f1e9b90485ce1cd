-- Bad input to every public function and method (World excepted): exact error text, argument
-- numbers counting self, fixed function names, and objects left unchanged by a failed call.
-- Also __eq against other types, __tostring text and collide.type.
local collide = require "collide"

local unpack = table.unpack or unpack
local inf, nan = math.huge, 0 / 0

-- errof(f, ...): the error message of f(...) (trailing nils kept), or nil if it did not fail
local errof = require("support.util").errmsg

local function box() return collide.AABB(0, 0, 0, 1, 1, 1) end
local function ray() return collide.Ray(-1, 0.5, 0.5, 1, 0, 0) end
local function obb() return collide.OBB(0, 0, 0, 1, 1, 1) end
local function sphere() return collide.Sphere(0, 0, 0, 1) end
local function polygon() return collide.Polygon { 0, 0, 1, 0, 0, 1 } end

local SHAPES = "collide.AABB, collide.OBB, collide.Sphere or collide.Capsule"

-- Values that are not numbers, with the type name an error reports for them.
local function nonnumbers()
  return {
    { nil, "nil" }, { true, "boolean" }, { "abc", "string" }, { {}, "table" },
    { print, "function" }, { ray(), "collide.Ray" }, { sphere(), "collide.Sphere" },
  }
end

-- Values that are not shapes (AABB/OBB/Sphere), with their reported type names.
local function nonshapes()
  return {
    { nil, "nil" }, { 1, "number" }, { "abc", "string" }, { {}, "table" },
    { print, "function" }, { ray(), "collide.Ray" }, { polygon(), "collide.Polygon" },
  }
end

-- Values that are not rays.
local function nonrays()
  return {
    { nil, "nil" }, { 1, "number" }, { "abc", "string" }, { {}, "table" },
    { box(), "collide.AABB" }, { obb(), "collide.OBB" }, { sphere(), "collide.Sphere" },
    { polygon(), "collide.Polygon" },
  }
end

-- A copy of args with args[i] = v (n kept, so a nil stays an explicit argument).
local function with(args, i, v)
  local t = { n = math.max(args.n, i) }
  for k = 1, t.n do t[k] = args[k] end
  t[i] = v
  return t
end

-- Argument lists: valid arguments (after self for methods), and which positions are finite
-- numbers (num), optional limits (limit), shapes (shape), rays (ray), AABBs (aabb).
-- optfrom: truncating the arguments at this position is valid (optional trailing group).
local CASES = {
  -- constructors and free functions (no self)
  { name = "AABB", f = function(...) return collide.AABB(...) end, args = { 0, 0, 0, 1, 1, 1 }, num = { 1, 2, 3, 4, 5, 6 } },
  { name = "Ray", f = function(...) return collide.Ray(...) end, args = { 0, 0, 0, 1, 0, 0 }, num = { 1, 2, 3, 4, 5, 6 } },
  { name = "OBB", f = function(...) return collide.OBB(...) end, args = { 0, 0, 0, 1, 1, 1 }, num = { 1, 2, 3, 4, 5, 6 } },
  { name = "OBB", label = "OBB with axes", f = function(...) return collide.OBB(...) end,
    args = { 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1 }, num = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 }, optfrom = 7 },
  { name = "Sphere", f = function(...) return collide.Sphere(...) end, args = { 0, 0, 0, 1 }, num = { 1, 2, 3, 4 } },
  { name = "toi", f = function(...) return collide.toi(...) end, args = { box(), 1, 0, 0, box(), 0, 0, 0 },
    aabb = { 1, 5 }, num = { 2, 3, 4, 6, 7, 8 } },
  { name = "closestonsegment", f = function(...) return collide.closestonsegment(...) end,
    args = { 0, 0, 0, 1, 1, 1, 2, 2, 2 }, num = { 1, 2, 3, 4, 5, 6, 7, 8, 9 } },
  { name = "reflect", f = function(...) return collide.reflect(...) end, args = { 1, -1, 0, 0, 1, 0, 0.5 },
    num = { 1, 2, 3, 4, 5, 6, 7 }, optfrom = 7, nilok = { [7] = true } },
  { name = "pointinpolygon", f = function(...) return collide.pointinpolygon(...) end,
    args = { { 0, 0, 1, 0, 0, 1 }, 0.25, 0.25 }, num = { 2, 3 } },
  { name = "pointinpolygon", label = "pointinpolygon with a Polygon", f = function(...) return collide.pointinpolygon(...) end,
    args = { polygon(), 0.25, 0.25 }, num = { 2, 3 } },
  { name = "Polygon", f = function(...) return collide.Polygon(...) end, args = { { 0, 0, 1, 0, 0, 1 } } },

  -- Polygon methods (more in spec/18-polygon_spec.lua)
  { self = polygon, mt = "collide.Polygon", name = "contains", args = { 0.25, 0.25 }, num = { 1, 2 } },
  { self = polygon, mt = "collide.Polygon", name = "count", args = {} },
  { self = polygon, mt = "collide.Polygon", name = "vertices", args = {} },

  -- AABB methods
  { self = box, mt = "collide.AABB", name = "bounds", args = {} },
  { self = box, mt = "collide.AABB", name = "center", args = {} },
  { self = box, mt = "collide.AABB", name = "extents", args = {} },
  { self = box, mt = "collide.AABB", name = "set", args = { 0, 0, 0, 2, 2, 2 }, num = { 1, 2, 3, 4, 5, 6 } },
  { self = box, mt = "collide.AABB", name = "translate", args = { 1, 2, 3 }, num = { 1, 2, 3 } },
  { self = box, mt = "collide.AABB", name = "contains", args = { 0.5, 0.5, 0.5 }, num = { 1, 2, 3 } },
  { self = box, mt = "collide.AABB", name = "overlaps", args = { box() }, shape = { 1 } },
  { self = box, mt = "collide.AABB", name = "raycast", args = { ray(), 10 }, ray = { 1 }, limit = { 2 } },
  { self = box, mt = "collide.AABB", name = "clip", args = { ray() }, ray = { 1 } },
  { self = box, mt = "collide.AABB", name = "segment", args = { -1, 0.5, 0.5, 2, 0.5, 0.5, 1 },
    num = { 1, 2, 3, 4, 5, 6 }, limit = { 7 } },
  { self = box, mt = "collide.AABB", name = "closest", args = { 2, 2, 2 }, num = { 1, 2, 3 } },
  { self = box, mt = "collide.AABB", name = "plane", args = { 1, 0, 0, -5 }, num = { 1, 2, 3, 4 } },
  { self = box, mt = "collide.AABB", name = "merge", args = { sphere() }, shape = { 1 } },
  { self = box, mt = "collide.AABB", name = "aabb", args = {} },

  -- Ray methods
  { self = ray, mt = "collide.Ray", name = "origin", args = {} },
  { self = ray, mt = "collide.Ray", name = "direction", args = {} },
  { self = ray, mt = "collide.Ray", name = "at", args = { 2 }, num = { 1 } },
  { self = ray, mt = "collide.Ray", name = "set", args = { 1, 2, 3, 0, 1, 0 }, num = { 1, 2, 3, 4, 5, 6 } },
  { self = ray, mt = "collide.Ray", name = "cast", args = { box(), 10 }, shape = { 1 }, limit = { 2 } },
  { self = ray, mt = "collide.Ray", name = "plane", args = { 1, 0, 0, -5 }, num = { 1, 2, 3, 4 } },

  -- OBB methods
  { self = obb, mt = "collide.OBB", name = "center", args = {} },
  { self = obb, mt = "collide.OBB", name = "extents", args = {} },
  { self = obb, mt = "collide.OBB", name = "axes", args = {} },
  { self = obb, mt = "collide.OBB", name = "set", args = { 1, 2, 3, 1, 1, 1 }, num = { 1, 2, 3, 4, 5, 6 } },
  { self = obb, mt = "collide.OBB", name = "set", label = "set with axes",
    args = { 1, 2, 3, 1, 1, 1, 0, 1, 0, -1, 0, 0, 0, 0, 1 }, num = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 }, optfrom = 7 },
  { self = obb, mt = "collide.OBB", name = "translate", args = { 1, 2, 3 }, num = { 1, 2, 3 } },
  { self = obb, mt = "collide.OBB", name = "rotate", args = { 0.5, 0, 0, 1 }, num = { 1, 2, 3, 4 } },
  { self = obb, mt = "collide.OBB", name = "contains", args = { 0.5, 0.5, 0.5 }, num = { 1, 2, 3 } },
  { self = obb, mt = "collide.OBB", name = "overlaps", args = { obb() }, shape = { 1 } },
  { self = obb, mt = "collide.OBB", name = "raycast", args = { ray(), 10 }, ray = { 1 }, limit = { 2 } },
  { self = obb, mt = "collide.OBB", name = "closest", args = { 2, 2, 2 }, num = { 1, 2, 3 } },
  { self = obb, mt = "collide.OBB", name = "plane", args = { 1, 0, 0, -5 }, num = { 1, 2, 3, 4 } },
  { self = obb, mt = "collide.OBB", name = "aabb", args = {} },

  -- Sphere methods
  { self = sphere, mt = "collide.Sphere", name = "center", args = {} },
  { self = sphere, mt = "collide.Sphere", name = "radius", args = {} },
  { self = sphere, mt = "collide.Sphere", name = "set", args = { 1, 2, 3, 4 }, num = { 1, 2, 3, 4 } },
  { self = sphere, mt = "collide.Sphere", name = "translate", args = { 1, 2, 3 }, num = { 1, 2, 3 } },
  { self = sphere, mt = "collide.Sphere", name = "contains", args = { 0.5, 0.5, 0.5 }, num = { 1, 2, 3 } },
  { self = sphere, mt = "collide.Sphere", name = "overlaps", args = { sphere() }, shape = { 1 } },
  { self = sphere, mt = "collide.Sphere", name = "raycast", args = { ray(), 10 }, ray = { 1 }, limit = { 2 } },
  { self = sphere, mt = "collide.Sphere", name = "closest", args = { 2, 2, 2 }, num = { 1, 2, 3 } },
  { self = sphere, mt = "collide.Sphere", name = "plane", args = { 1, 0, 0, -5 }, num = { 1, 2, 3, 4 } },
  { self = sphere, mt = "collide.Sphere", name = "aabb", args = {} },
}

-- Calls the case with the argument list a (n = a.n); methods get a fresh self first.
local function call(c, a)
  if c.self then
    local s = c.self()
    return errof(s[c.name], s, unpack(a, 1, a.n))
  end
  return errof(c.f, unpack(a, 1, a.n))
end

-- "bad argument #N to 'name' (reason)", N shifted by one for methods (self is #1).
local function msg(c, pos, reason)
  return ("bad argument #%d to '%s' (%s)"):format(pos + (c.self and 1 or 0), c.name, reason)
end

-- The type an argument position expects, as worded in errors.
local function expected(c, p)
  for _, q in ipairs(c.shape or {}) do if q == p then return SHAPES end end
  for _, q in ipairs(c.ray or {}) do if q == p then return "collide.Ray" end end
  for _, q in ipairs(c.aabb or {}) do if q == p then return "collide.AABB" end end
  return "number"
end

local function required(c)
  local r = {}
  for _, list in ipairs { c.num or {}, c.shape or {}, c.ray or {}, c.aabb or {} } do
    for _, p in ipairs(list) do
      if not c.optfrom or p < c.optfrom or p > c.optfrom then r[#r + 1] = p end
    end
  end
  table.sort(r)
  return r
end

for _, c in ipairs(CASES) do
  local label = c.label or (c.self and (c.mt:sub(9) .. ":" .. c.name) or ("collide." .. c.name))
  local args = { n = #c.args, unpack(c.args) }

  describe(label, function()
    it("succeeds with valid arguments", function()
      assert.is_nil(call(c, args))
    end)

    if c.self then
      it("rejects a wrong self, naming '" .. c.name .. "' and argument #1", function()
        local fn = c.self()[c.name]
        local others = { { nil, "no value", true }, { 1, "number" }, { "abc", "string" }, { {}, "table" } }
        for _, mk in ipairs { box, ray, obb, sphere, polygon } do
          local o = mk()
          if getmetatable(o).__name ~= c.mt then others[#others + 1] = { o, getmetatable(o).__name } end
        end
        for _, o in ipairs(others) do
          local e
          if o[3] then e = errof(fn) else e = errof(fn, o[1], unpack(args, 1, args.n)) end
          assert.are.equal(("bad argument #1 to '%s' (%s expected, got %s)"):format(c.name, c.mt, o[2]), e)
        end
      end)
    end

    for _, p in ipairs(c.num or {}) do
      it("rejects a non-number, NaN or infinity as argument " .. p, function()
        for _, v in ipairs(nonnumbers()) do
          if v[1] ~= nil or not (c.nilok and c.nilok[p]) then
            assert.are.equal(msg(c, p, "number expected, got " .. v[2]), call(c, with(args, p, v[1])))
          end
        end
        for _, v in ipairs { nan, inf, -inf } do
          assert.are.equal(msg(c, p, "number is not finite"), call(c, with(args, p, v)))
        end
      end)
      it("accepts a numeric string as argument " .. p, function()
        assert.is_nil(call(c, with(args, p, tostring(args[p]))))
      end)
    end

    for _, p in ipairs(c.shape or {}) do
      it("rejects a non-shape as argument " .. p, function()
        for _, v in ipairs(nonshapes()) do
          assert.are.equal(msg(c, p, SHAPES .. " expected, got " .. v[2]), call(c, with(args, p, v[1])))
        end
      end)
      it("accepts every shape type as argument " .. p, function()
        for _, mk in ipairs { box, obb, sphere } do
          assert.is_nil(call(c, with(args, p, mk())))
        end
      end)
    end

    for _, p in ipairs(c.ray or {}) do
      it("rejects a non-ray as argument " .. p, function()
        for _, v in ipairs(nonrays()) do
          assert.are.equal(msg(c, p, "collide.Ray expected, got " .. v[2]), call(c, with(args, p, v[1])))
        end
      end)
    end

    for _, p in ipairs(c.aabb or {}) do
      it("rejects a non-AABB as argument " .. p, function()
        for _, v in ipairs { { nil, "nil" }, { 1, "number" }, { {}, "table" }, { obb(), "collide.OBB" },
                             { sphere(), "collide.Sphere" }, { ray(), "collide.Ray" } } do
          assert.are.equal(msg(c, p, "collide.AABB expected, got " .. v[2]), call(c, with(args, p, v[1])))
        end
      end)
    end

    for _, p in ipairs(c.limit or {}) do
      it("checks the limit argument " .. p, function()
        assert.are.equal(msg(c, p, "limit is negative"), call(c, with(args, p, -1)))
        assert.are.equal(msg(c, p, "limit is negative"), call(c, with(args, p, -inf)))
        assert.are.equal(msg(c, p, "limit is NaN"), call(c, with(args, p, nan)))
        assert.are.equal(msg(c, p, "number expected, got string"), call(c, with(args, p, "abc")))
        assert.are.equal(msg(c, p, "number expected, got boolean"), call(c, with(args, p, true)))
        assert.are.equal(msg(c, p, "number expected, got table"), call(c, with(args, p, {})))
        assert.is_nil(call(c, with(args, p, inf)))
        assert.is_nil(call(c, with(args, p, 0)))
        assert.is_nil(call(c, with(args, p, nil)))
      end)
    end

    local req = required(c)
    if #req > 0 then
      it("reports a missing argument as 'no value' at its position", function()
        for _, p in ipairs(req) do
          local a = { n = p - 1, unpack(args, 1, p - 1) }
          assert.are.equal(msg(c, p, expected(c, p) .. " expected, got no value"), call(c, a))
        end
      end)
    end
    if c.optfrom then
      it("accepts the optional arguments from " .. c.optfrom .. " left out", function()
        assert.is_nil(call(c, { n = c.optfrom - 1, unpack(args, 1, c.optfrom - 1) }))
      end)
    end
  end)
end

describe("AABB bounds", function()
  it("rejects a max below its min on the offending max argument", function()
    assert.are.equal("bad argument #4 to 'AABB' (max x is less than min x)", errof(collide.AABB, 0, 0, 0, -1, 1, 1))
    assert.are.equal("bad argument #5 to 'AABB' (max y is less than min y)", errof(collide.AABB, 0, 0, 0, 1, -1, 1))
    assert.are.equal("bad argument #6 to 'AABB' (max z is less than min z)", errof(collide.AABB, 0, 0, 0, 1, 1, -1))
  end)
  it("allows flat boxes (min == max)", function()
    local b = collide.AABB(1, 2, 3, 1, 2, 3)
    assert.are.same({ 1, 2, 3, 1, 2, 3 }, { b:bounds() })
  end)
  it("set with a max below its min names 'set', counts self, and changes nothing", function()
    local b = collide.AABB(1, 2, 3, 4, 5, 6)
    assert.are.equal("bad argument #5 to 'set' (max x is less than min x)", errof(b.set, b, 0, 0, 0, -1, 1, 1))
    assert.are.equal("bad argument #6 to 'set' (max y is less than min y)", errof(b.set, b, 0, 0, 0, 1, -1, 1))
    assert.are.equal("bad argument #7 to 'set' (max z is less than min z)", errof(b.set, b, 0, 0, 0, 1, 1, -1))
    assert.are.equal("bad argument #7 to 'set' (number is not finite)", errof(b.set, b, 0, 0, 0, 1, 1, nan))
    assert.are.same({ 1, 2, 3, 4, 5, 6 }, { b:bounds() })
  end)
  it("set returns the same box, changed", function()
    local b = box()
    assert.are.equal(b, b:set(1, 1, 1, 2, 2, 2))
    assert.is_true(rawequal(b, b:set(1, 1, 1, 2, 2, 3)))
    assert.are.same({ 1, 1, 1, 2, 2, 3 }, { b:bounds() })
  end)
  it("translate whose result overflows names the offending axis and changes nothing", function()
    local b = collide.AABB(0, 0, 0, 1e308, 1e308, 1e308)
    assert.are.equal("bad argument #2 to 'translate' (result is not finite)", errof(b.translate, b, 1e308, 0, 0))
    assert.are.equal("bad argument #3 to 'translate' (result is not finite)", errof(b.translate, b, 0, 1e308, 0))
    assert.are.equal("bad argument #4 to 'translate' (result is not finite)", errof(b.translate, b, 0, 0, 1e308))
    assert.are.equal("bad argument #4 to 'translate' (number is not finite)", errof(b.translate, b, 1, 1, inf))
    assert.are.same({ 0, 0, 0, 1e308, 1e308, 1e308 }, { b:bounds() })
  end)
end)

describe("Ray direction", function()
  it("rejects a zero direction as argument #4", function()
    assert.are.equal("bad argument #4 to 'Ray' (direction is zero)", errof(collide.Ray, 1, 2, 3, 0, 0, 0))
  end)
  it("accepts tiny and huge directions (normalised without underflow or overflow)", function()
    assert.are.same({ 1, 0, 0 }, { collide.Ray(0, 0, 0, 1e-320, 0, 0):direction() })
    assert.are.same({ 0, -1, 0 }, { collide.Ray(0, 0, 0, 0, -1e308, 0):direction() })
  end)
  it("set with a zero direction names 'set', argument #5, and changes nothing", function()
    local r = collide.Ray(1, 2, 3, 0, 0, 2)
    assert.are.equal("bad argument #5 to 'set' (direction is zero)", errof(r.set, r, 9, 9, 9, 0, 0, 0))
    assert.are.equal("bad argument #7 to 'set' (number is not finite)", errof(r.set, r, 9, 9, 9, 1, 1, nan))
    assert.are.same({ 1, 2, 3 }, { r:origin() })
    assert.are.same({ 0, 0, 1 }, { r:direction() })
  end)
  it("at rejects a non-finite distance", function()
    local r = ray()
    assert.are.equal("bad argument #2 to 'at' (number is not finite)", errof(r.at, r, inf))
  end)
end)

describe("OBB", function()
  local ROT = { 0, 1, 0, -1, 0, 0, 0, 0, 1 } -- world axes turned 90 degrees about z

  local function state(b)
    return { { b:center() }, { b:extents() }, { b:axes() } }
  end

  it("rejects a negative half size on its argument", function()
    assert.are.equal("bad argument #4 to 'OBB' (half size x is negative)", errof(collide.OBB, 0, 0, 0, -1, 1, 1))
    assert.are.equal("bad argument #5 to 'OBB' (half size y is negative)", errof(collide.OBB, 0, 0, 0, 1, -1, 1))
    assert.are.equal("bad argument #6 to 'OBB' (half size z is negative)", errof(collide.OBB, 0, 0, 0, 1, 1, -0.5))
  end)
  it("accepts zero half sizes", function()
    assert.are.same({ 0, 0, 0 }, { collide.OBB(0, 0, 0, 0, 0, 0):extents() })
  end)
  it("requires all nine axis numbers or none", function()
    assert.are.equal("bad argument #10 to 'OBB' (number expected, got no value)",
      errof(collide.OBB, 0, 0, 0, 1, 1, 1, 1, 0, 0))
    assert.are.equal("bad argument #15 to 'OBB' (number expected, got no value)",
      errof(collide.OBB, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0))
    assert.are.equal("bad argument #7 to 'OBB' (number expected, got nil)",
      errof(collide.OBB, 0, 0, 0, 1, 1, 1, nil, 0, 0, 0, 1, 0, 0, 0, 1))
  end)
  it("rejects axes that are not orthonormal as argument #7", function()
    local E = "bad argument #7 to 'OBB' (axes are not orthonormal)"
    assert.are.equal(E, errof(collide.OBB, 0, 0, 0, 1, 1, 1, 2, 0, 0, 0, 1, 0, 0, 0, 1))       -- u not unit
    assert.are.equal(E, errof(collide.OBB, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1))       -- u == v
    assert.are.equal(E, errof(collide.OBB, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0))       -- w zero
    assert.are.equal(E, errof(collide.OBB, 0, 0, 0, 1, 1, 1, 1, 1e-5, 0, 0, 1, 0, 0, 0, 1))    -- off by 1e-5
  end)
  it("accepts axes orthonormal within 1e-6, and either handedness, storing them as given", function()
    local b = collide.OBB(0, 0, 0, 1, 1, 1, 1, 1e-7, 0, 0, 1, 0, 0, 0, 1)
    assert.are.same({ 1, 1e-7, 0, 0, 1, 0, 0, 0, 1 }, { b:axes() })
    local l = collide.OBB(0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, -1)
    assert.are.same({ 1, 0, 0, 0, 1, 0, 0, 0, -1 }, { l:axes() })
  end)
  it("set with bad arguments names 'set', counts self, and changes nothing", function()
    local b = collide.OBB(1, 2, 3, 4, 5, 6, unpack(ROT))
    local before = state(b)
    assert.are.equal("bad argument #5 to 'set' (half size x is negative)", errof(b.set, b, 0, 0, 0, -1, 1, 1))
    assert.are.equal("bad argument #8 to 'set' (axes are not orthonormal)",
      errof(b.set, b, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1))
    assert.are.equal("bad argument #11 to 'set' (number expected, got no value)", errof(b.set, b, 0, 0, 0, 1, 1, 1, 1, 0, 0))
    assert.are.equal("bad argument #16 to 'set' (number is not finite)",
      errof(b.set, b, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, nan))
    assert.are.same(before, state(b))
  end)
  it("rotate about a zero axis is an error on argument #3 and changes nothing", function()
    local b = collide.OBB(1, 2, 3, 4, 5, 6, unpack(ROT))
    local before = state(b)
    assert.are.equal("bad argument #3 to 'rotate' (axis is zero)", errof(b.rotate, b, 1, 0, 0, 0))
    assert.are.equal("bad argument #2 to 'rotate' (number is not finite)", errof(b.rotate, b, inf, 0, 0, 1))
    assert.are.equal("bad argument #5 to 'rotate' (number is not finite)", errof(b.rotate, b, 1, 0, 0, nan))
    assert.are.same(before, state(b))
  end)
  it("translate whose centre overflows is an error and changes nothing", function()
    local b = collide.OBB(1e308, 1e308, 1e308, 1, 1, 1)
    local before = state(b)
    assert.are.equal("bad argument #2 to 'translate' (result is not finite)", errof(b.translate, b, 1e308, 0, 0))
    assert.are.equal("bad argument #3 to 'translate' (result is not finite)", errof(b.translate, b, 0, 1e308, 0))
    assert.are.equal("bad argument #4 to 'translate' (result is not finite)", errof(b.translate, b, 0, 0, 1e308))
    assert.are.same(before, state(b))
  end)
end)

describe("Sphere", function()
  it("rejects a negative radius as argument #4", function()
    assert.are.equal("bad argument #4 to 'Sphere' (radius is negative)", errof(collide.Sphere, 0, 0, 0, -1))
  end)
  it("accepts a zero radius", function()
    assert.are.equal(0, collide.Sphere(1, 2, 3, 0):radius())
  end)
  it("set with a negative radius names 'set', argument #5, and changes nothing", function()
    local s = collide.Sphere(1, 2, 3, 4)
    assert.are.equal("bad argument #5 to 'set' (radius is negative)", errof(s.set, s, 0, 0, 0, -1))
    assert.are.equal("bad argument #2 to 'set' (number is not finite)", errof(s.set, s, nan, 0, 0, 1))
    assert.are.same({ 1, 2, 3 }, { s:center() })
    assert.are.equal(4, s:radius())
  end)
  it("translate whose centre overflows is an error and changes nothing", function()
    local s = collide.Sphere(-1e308, -1e308, -1e308, 1)
    assert.are.equal("bad argument #2 to 'translate' (result is not finite)", errof(s.translate, s, -1e308, 0, 0))
    assert.are.equal("bad argument #4 to 'translate' (result is not finite)", errof(s.translate, s, 0, 0, -1e308))
    assert.are.same({ -1e308, -1e308, -1e308 }, { s:center() })
  end)
end)

describe("collide.pointinpolygon", function()
  local P = "bad argument #1 to 'pointinpolygon' "
  it("requires a table", function()
    assert.are.equal(P .. "(table expected, got nil)", errof(collide.pointinpolygon, nil, 0, 0))
    assert.are.equal(P .. "(table expected, got no value)", errof(collide.pointinpolygon))
    assert.are.equal(P .. "(table expected, got string)", errof(collide.pointinpolygon, "0,0,1,0,0,1", 0, 0))
    assert.are.equal(P .. "(table expected, got collide.AABB)", errof(collide.pointinpolygon, box(), 0, 0))
  end)
  it("requires at least 3 vertices", function()
    assert.are.equal(P .. "(polygon has fewer than 3 vertices)", errof(collide.pointinpolygon, {}, 0, 0))
    assert.are.equal(P .. "(polygon has fewer than 3 vertices)", errof(collide.pointinpolygon, { 0, 0, 1, 0 }, 0, 0))
  end)
  it("requires an even number of coordinates", function()
    assert.are.equal(P .. "(polygon has an odd number of coordinates)",
      errof(collide.pointinpolygon, { 0, 0, 1, 0, 0, 1, 5 }, 0, 0))
  end)
  it("requires every coordinate to be a finite number, naming the first bad one", function()
    assert.are.equal(P .. "(polygon coordinate 3 is not a number)",
      errof(collide.pointinpolygon, { 0, 0, "x", 0, 0, 1 }, 0, 0))
    assert.are.equal(P .. "(polygon coordinate 6 is not a number)",
      errof(collide.pointinpolygon, { 0, 0, 1, 0, 0, {} }, 0, 0))
    assert.are.equal(P .. "(polygon coordinate 2 is not finite)",
      errof(collide.pointinpolygon, { 0, nan, 1, 0, 0, 1 }, 0, 0))
    assert.are.equal(P .. "(polygon coordinate 5 is not finite)",
      errof(collide.pointinpolygon, { 0, 0, 1, 0, -inf, 1 }, 0, 0))
  end)
  it("handles polygons larger than the stack buffer", function()
    local poly, n = {}, 1000
    for i = 0, n - 1 do
      local a = 2 * math.pi * i / n
      poly[#poly + 1] = math.cos(a)
      poly[#poly + 1] = math.sin(a)
    end
    assert.is_true(collide.pointinpolygon(poly, 0, 0))
    assert.is_false(collide.pointinpolygon(poly, 2, 0))
    poly[2 * n - 1] = nan
    assert.are.equal(P .. ("(polygon coordinate %d is not finite)"):format(2 * n - 1), errof(collide.pointinpolygon, poly, 0, 0))
  end)
end)

describe("errors", function()
  it("carry no position prefix and name the method however it was reached", function()
    local b, r = box(), ray()
    assert.are.equal("bad argument #1 to 'contains' (collide.AABB expected, got collide.Ray)",
      errof(getmetatable(b).__index.contains, r, 1, 2, 3))
    local contains = b.contains
    assert.are.equal("bad argument #4 to 'contains' (number expected, got no value)", errof(contains, b, 1, 2))
    assert.are.equal("bad argument #2 to 'overlaps' (collide.AABB, collide.OBB, collide.Sphere or collide.Capsule expected, got table)",
      errof(b.overlaps, b, {}))
  end)
  it("metamethods check their self too", function()
    assert.are.equal("bad argument #1 to '__tostring' (collide.AABB expected, got collide.Ray)",
      errof(getmetatable(box()).__tostring, ray()))
    assert.are.equal("bad argument #1 to '__tostring' (collide.Sphere expected, got table)",
      errof(getmetatable(sphere()).__tostring, {}))
  end)
  it("report a table's string __name as its type", function()
    local fake = setmetatable({}, { __name = "my.Thing" })
    assert.are.equal("bad argument #2 to 'overlaps' (" .. SHAPES .. " expected, got my.Thing)", errof(box().overlaps, box(), fake))
    local fake2 = setmetatable({}, { __name = 42 })
    assert.are.equal("bad argument #2 to 'contains' (number expected, got table)", errof(box().contains, box(), fake2, 1, 1))
  end)
  it("reject a table whose metatable merely claims a collide __name", function()
    local fake = setmetatable({}, { __name = "collide.AABB", __index = getmetatable(box()).__index })
    assert.are.equal("bad argument #1 to 'contains' (collide.AABB expected, got collide.AABB)", errof(fake.contains, fake, 1, 1, 1))
  end)
end)

describe("__eq", function()
  it("compares shapes of the same type by value", function()
    assert.is_true(collide.AABB(0, 0, 0, 1, 1, 1) == collide.AABB(0, 0, 0, 1, 1, 1))
    assert.is_false(collide.AABB(0, 0, 0, 1, 1, 1) == collide.AABB(0, 0, 0, 1, 1, 2))
    assert.is_true(collide.OBB(1, 2, 3, 1, 1, 1) == collide.OBB(1, 2, 3, 1, 1, 1))
    assert.is_false(collide.OBB(1, 2, 3, 1, 1, 1) == collide.OBB(1, 2, 3, 1, 1, 1, 0, 1, 0, -1, 0, 0, 0, 0, 1))
    assert.is_true(collide.Sphere(1, 2, 3, 4) == collide.Sphere(1, 2, 3, 4))
    assert.is_false(collide.Sphere(1, 2, 3, 4) == collide.Sphere(1, 2, 3, 5))
    assert.is_true(collide.Ray(0, 0, 0, 2, 0, 0) == collide.Ray(0, 0, 0, 1, 0, 0))
    assert.is_false(collide.Ray(0, 0, 0, 1, 0, 0) == collide.Ray(0, 0, 0, 0, 1, 0))
  end)
  it("is false, never an error, against other types", function()
    local values = { box(), ray(), obb(), sphere() }
    local others = { 1, "AABB(0, 0, 0, 1, 1, 1)", {}, true, print, io.stdout }
    for i, a in ipairs(values) do
      for j, b in ipairs(values) do
        if i ~= j then
          assert.is_false(a == b)
          assert.is_true(a ~= b)
        end
      end
      for _, o in ipairs(others) do
        assert.is_false(a == o)
        assert.is_false(o == a)
      end
    end
    -- an AABB and an OBB covering the same space are still different types
    assert.is_false(collide.AABB(-1, -1, -1, 1, 1, 1) == collide.OBB(0, 0, 0, 1, 1, 1))
  end)
end)

describe("__tostring", function()
  it("formats each type with %.14g numbers", function()
    assert.are.equal("AABB(0.5, 0.5, 0.5, 2, 2, 2)", tostring(collide.AABB(0.5, 0.5, 0.5, 2, 2, 2)))
    assert.are.equal("AABB(-1e+20, 0.33333333333333, 0, 1e-300, 1, 1)", tostring(collide.AABB(-1e20, 1 / 3, 0, 1e-300, 1, 1)))
    assert.are.equal("Ray(1, 2, 3, 0, 0, 1)", tostring(collide.Ray(1, 2, 3, 0, 0, 5)))
    assert.are.equal("Ray(0, 0, 0, 0.70710678118655, 0.70710678118655, 0)", tostring(collide.Ray(0, 0, 0, 1, 1, 0)))
    assert.are.equal("OBB(1, 2, 3, 0.5, 0.5, 0.5, 1, 0, 0, 0, 1, 0, 0, 0, 1)", tostring(collide.OBB(1, 2, 3, 0.5, 0.5, 0.5)))
    assert.are.equal("OBB(0, 0, 0, 1, 2, 3, 0, 1, 0, -1, 0, 0, 0, 0, 1)",
      tostring(collide.OBB(0, 0, 0, 1, 2, 3, 0, 1, 0, -1, 0, 0, 0, 0, 1)))
    assert.are.equal("Sphere(1, 2, 3, 4)", tostring(collide.Sphere(1, 2, 3, 4)))
    assert.are.equal("Sphere(-0.25, 1e+100, 3, 0)", tostring(collide.Sphere(-0.25, 1e100, 3, 0)))
  end)
end)

describe("collide.type and metatables", function()
  it("names each collide type and gives nil for anything else", function()
    assert.are.equal("AABB", collide.type(box()))
    assert.are.equal("Ray", collide.type(ray()))
    assert.are.equal("OBB", collide.type(obb()))
    assert.are.equal("Sphere", collide.type(sphere()))
    assert.are.equal("Polygon", collide.type(polygon()))
    for _, v in ipairs { 1, "AABB", {}, true, print, io.stdout, setmetatable({}, getmetatable(box())),
                         setmetatable({}, getmetatable(polygon())) } do
      assert.is_nil(collide.type(v))
    end
    assert.is_nil(collide.type(nil))
    assert.is_nil(collide.type())
  end)
  it("sets __name on every metatable and the module version", function()
    assert.are.equal("collide.AABB", getmetatable(box()).__name)
    assert.are.equal("collide.Ray", getmetatable(ray()).__name)
    assert.are.equal("collide.OBB", getmetatable(obb()).__name)
    assert.are.equal("collide.Sphere", getmetatable(sphere()).__name)
    assert.are.equal("0.1.0", collide._VERSION)
  end)
  it("plane returns integers 1, -1, 0", function()
    assert.are.equal("1", tostring(box():plane(1, 0, 0, 5)))
    assert.are.equal("-1", tostring(box():plane(1, 0, 0, -5)))
    assert.are.equal("0", tostring(box():plane(1, 0, 0, -0.5)))
  end)
end)
