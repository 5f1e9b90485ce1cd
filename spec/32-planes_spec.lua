-- collide.frustum and world:queryplanes: the six planes of a view-projection matrix (row order of
-- love.math.Transform:getMatrix, OpenGL clip space) checked against the clip-space inequalities on
-- random points, and world:queryplanes against brute force (every item's shape:plane for every
-- plane, add order) on random worlds of AABBs, OBBs and Spheres with moved (stale-leaf) items,
-- random plane sets of 1 to 32 planes, frustums, planes touching boxes exactly; filters, out
-- tables and errors. Capsules and placed mesh items against the placed triangles' corners.
local collide = require "collide"
local util = require "support.util"
local errof = util.errof

local QUICK = os.getenv("COLLIDE_QUICK") ~= nil
local AABB, OBB, Sphere, World = collide.AABB, collide.OBB, collide.Sphere, collide.World

local seed = 99
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local function urand(a, b) return a + (b - a) * rnd() end

-- 4x4 matrices as flat row-major arrays of 16 numbers.
local function matmul(a, b)
  local r = {}
  for i = 0, 3 do
    for j = 0, 3 do
      local s = 0
      for k = 0, 3 do s = s + a[4 * i + k + 1] * b[4 * k + j + 1] end
      r[4 * i + j + 1] = s
    end
  end
  return r
end
local function perspective(fovy, aspect, near, far)
  local f = 1 / math.tan(fovy / 2)
  return { f / aspect, 0, 0, 0,  0, f, 0, 0,  0, 0, (far + near) / (near - far), 2 * far * near / (near - far),  0, 0, -1, 0 }
end
-- A view matrix: rotation about y by yaw, then about x by pitch, after translating by -eye.
local function view(ex, ey, ez, yaw, pitch)
  local cy, sy, cp, sp = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
  local ry = { cy, 0, -sy, 0,  0, 1, 0, 0,  sy, 0, cy, 0,  0, 0, 0, 1 }
  local rx = { 1, 0, 0, 0,  0, cp, sp, 0,  0, -sp, cp, 0,  0, 0, 0, 1 }
  local t = { 1, 0, 0, -ex,  0, 1, 0, -ey,  0, 0, 1, -ez,  0, 0, 0, 1 }
  return matmul(rx, matmul(ry, t))
end
local function randfrustum()
  return matmul(perspective(urand(0.5, 1.5), urand(0.7, 2), urand(0.1, 1), urand(20, 80)),
    view(urand(-20, 20), urand(-5, 5), urand(-20, 20), urand(0, 6.3), urand(-0.6, 0.6)))
end

local function side(p, x, y, z, k)
  return p[4 * k - 3] * x + p[4 * k - 2] * y + p[4 * k - 1] * z + p[4 * k]
end

describe("collide.frustum", function()
  it("identity: the six faces of the cube [-1, 1]^3, normals inwards, unit length", function()
    assert.same({ 1, 0, 0, 1,  -1, 0, 0, 1,  0, 1, 0, 1,  0, -1, 0, 1,  0, 0, 1, 1,  0, 0, -1, 1 },
      collide.frustum { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 })
  end)

  it("a point is in front of all six planes exactly when its clip coordinates satisfy -w < x,y,z < w", function()
    for _ = 1, QUICK and 20 or 80 do
      local m = randfrustum()
      local p = collide.frustum(m)
      assert.equal(24, #p)
      for k = 1, 6 do
        local l = math.sqrt(p[4 * k - 3] ^ 2 + p[4 * k - 2] ^ 2 + p[4 * k - 1] ^ 2)
        assert.is_true(math.abs(l - 1) < 1e-12)
      end
      for _ = 1, 200 do
        local x, y, z = urand(-100, 100), urand(-30, 30), urand(-100, 100)
        local c = {}
        for i = 0, 3 do c[i + 1] = m[4 * i + 1] * x + m[4 * i + 2] * y + m[4 * i + 3] * z + m[4 * i + 4] end
        local w = c[4]
        local margin = 1e-9 * (math.abs(w) + 1)
        local inside = c[1] > -w + margin and c[1] < w - margin and c[2] > -w + margin and c[2] < w - margin
          and c[3] > -w + margin and c[3] < w - margin
        local outside = c[1] < -w - margin or c[1] > w + margin or c[2] < -w - margin or c[2] > w + margin
          or c[3] < -w - margin or c[3] > w + margin
        local infront = true
        for k = 1, 6 do if side(p, x, y, z, k) <= 0 then infront = false end end
        if inside then assert.is_true(infront) end
        if outside then assert.is_false(infront) end
      end
    end
  end)

  it("fills out; errors", function()
    local out = {}
    assert.equal(out, collide.frustum({ 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, out))
    assert.equal(24, #out)
    assert.equal("bad argument #1 to 'frustum' (table expected, got no value)", errof(collide.frustum))
    assert.equal("bad argument #1 to 'frustum' (matrix has not 16 numbers)", errof(collide.frustum, { 1, 2, 3 }))
    assert.equal("bad argument #1 to 'frustum' (matrix number 3 is not finite)",
      errof(collide.frustum, { 1, 0, 1 / 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }))
    assert.equal("bad argument #1 to 'frustum' (matrix number 16 is not a number)",
      errof(collide.frustum, { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, "x" }))
    assert.equal("bad argument #2 to 'frustum' (table expected, got number)",
      errof(collide.frustum, { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, 3))
  end)
end)

-- The brute-force answer: items (in add order) whose shape is not wholly behind any plane.
local function brute(items, shapes, planes, filter)
  local r = {}
  for i, it in ipairs(items) do
    local s = shapes[it]
    if s then
      local keep = true
      for k = 1, #planes / 4 do
        if s:plane(planes[4 * k - 3], planes[4 * k - 2], planes[4 * k - 1], planes[4 * k]) < 0 then keep = false break end
      end
      if keep and (not filter or filter(it)) then r[#r + 1] = it end
    end
  end
  return r
end

local function randshape(spread)
  local x, y, z = urand(-spread, spread), urand(-spread / 4, spread / 4), urand(-spread, spread)
  local k = rnd()
  if k < 0.1 then  -- integer boxes: exact touching with the axis planes below
    x, y, z = math.floor(x), math.floor(y), math.floor(z)
    return AABB(x, y, z, x + 1, y + 1, z + 1)
  elseif k < 0.5 then
    local h = urand(0.1, 2)
    return AABB(x - h, y - h, z - h, x + h, y + urand(0.1, 2), z + h)
  elseif k < 0.8 then
    local o = OBB(x, y, z, urand(0.1, 2), urand(0.1, 2), urand(0.1, 2))
    o:rotate(urand(0, 6.3), urand(-1, 1), urand(-1, 1), urand(0.1, 1))
    return o
  end
  return Sphere(x, y, z, urand(0, 2))
end

describe("world:queryplanes", function()
  it("exact values: touching counts, add order, filter, out cleared", function()
    local w = World()
    w:add("c", AABB(2, 0, 0, 3, 1, 1))
    w:add("a", AABB(0, 0, 0, 1, 1, 1))
    w:add("s", Sphere(5, 0, 0, 1))
    w:add("b", OBB(-2, 0, 0, 1, 1, 1))
    local planes = { 1, 0, 0, -1,  -1, 0, 0, 4 }       -- 1 <= x <= 4
    local out = { "x", "y", "z", "w", "v" }
    local r, n = w:queryplanes(planes, nil, out)
    assert.equal(out, r)
    assert.same({ "c", "a", "s" }, r)                  -- a touches x = 1, s touches x = 4
    assert.equal(3, n)
    r, n = w:queryplanes(planes, function(item) return item ~= "a" end)
    assert.same({ "c", "s" }, r)
    assert.equal(2, n)
    r, n = w:queryplanes({ 1, 0, 0, -1.0000001 })
    assert.same({ "c", "s" }, r)
  end)

  it("errors", function()
    local w = World()
    assert.equal("bad argument #2 to 'queryplanes' (table expected, got no value)", errof(w.queryplanes, w))
    assert.equal("bad argument #2 to 'queryplanes' (no planes)", errof(w.queryplanes, w, {}))
    assert.equal("bad argument #2 to 'queryplanes' (plane array length is not a multiple of 4)",
      errof(w.queryplanes, w, { 1, 0, 0 }))
    local many = {}
    for i = 1, 33 * 4 do many[i] = i % 4 == 0 and 1 or 0 end
    assert.equal("bad argument #2 to 'queryplanes' (more than 32 planes)", errof(w.queryplanes, w, many))
    assert.equal("bad argument #2 to 'queryplanes' (plane number 2 is not finite)",
      errof(w.queryplanes, w, { 1, 0 / 0, 0, 0 }))
    assert.equal("bad argument #2 to 'queryplanes' (plane number 4 is not a number)",
      errof(w.queryplanes, w, { 1, 0, 0, "d" }))
    assert.equal("bad argument #4 to 'queryplanes' (table expected, got number)",
      errof(w.queryplanes, w, { 1, 0, 0, 0 }, nil, 5))
    w:destroy()
    assert.truthy(errof(w.queryplanes, w, { 1, 0, 0, 0 }):find("world is destroyed", 1, true))
  end)

  it("random worlds and plane sets against brute force (moved items included)", function()
    local rounds = QUICK and 6 or 24
    for round = 1, rounds do
      local w, items, shapes = World(), {}, {}
      local n = round % 3 == 0 and 3000 or 300
      for i = 1, n do
        local s = randshape(50)
        items[i], shapes[i] = i, s
        w:add(i, s)
      end
      for _ = 1, QUICK and 20 or 60 do
        -- some moves (stale leaves and refits), some removals
        for _ = 1, 10 do
          local i = math.floor(rnd() * n) + 1
          if shapes[i] then
            if rnd() < 0.1 then
              w:remove(i)
              shapes[i] = nil
            else
              local s = randshape(50)
              shapes[i] = s
              w:update(i, s)
            end
          end
        end
        local planes
        local kind = rnd()
        if kind < 0.4 then
          planes = collide.frustum(randfrustum())
        elseif kind < 0.6 then  -- axis planes at integers: exact touching with integer boxes
          planes = {}
          for k = 1, 1 + math.floor(rnd() * 6) do
            local ax, s = math.floor(rnd() * 3), rnd() < 0.5 and 1 or -1
            planes[#planes + 1] = ax == 0 and s or 0
            planes[#planes + 1] = ax == 1 and s or 0
            planes[#planes + 1] = ax == 2 and s or 0
            planes[#planes + 1] = -s * math.floor(urand(-20, 20))
          end
        else
          planes = {}
          for k = 1, 1 + math.floor(rnd() * 32) do
            local nx, ny, nz = urand(-1, 1), urand(-1, 1), urand(-1, 1)
            planes[#planes + 1], planes[#planes + 2], planes[#planes + 3] = nx, ny, nz
            planes[#planes + 1] = urand(-1, 1) * 60
          end
        end
        local filter = rnd() < 0.2 and function(item) return item % 3 ~= 0 end or nil
        local r, cnt = w:queryplanes(planes, filter)
        local want = brute(items, shapes, planes, filter)
        assert.equal(#want, cnt)
        assert.same(want, r)
      end
    end
  end)
end)

describe("world:queryplanes order", function()
  it("is add order when removals let new items reuse slots (many results: the radix sort of the orders)", function()
    local w, order, alive = collide.World(), {}, {}
    for i = 1, 3000 do
      w:add("a" .. i, collide.AABB(i % 97, 0, i % 89, i % 97 + 1, 1, i % 89 + 1))
      alive["a" .. i] = true
      order[#order + 1] = "a" .. i
    end
    for i = 1, 3000, 2 do w:remove("a" .. i); alive["a" .. i] = nil end
    for i = 1, 1500 do
      w:add("b" .. i, collide.AABB(i % 53, 0, i % 61, i % 53 + 2, 1, i % 61 + 2))
      alive["b" .. i] = true
      order[#order + 1] = "b" .. i
    end
    for _, planes in ipairs { { 0, 1, 0, 10 }, { 1, 0, 0, -40 }, { 0, 0, -1, 20, 1, 0, 0, -3 } } do
      local exp = {}
      for _, k in ipairs(order) do
        local s = alive[k] and w:shape(k)
        local keep = s ~= nil
        for p = 1, #planes, 4 do
          if keep and s:plane(planes[p], planes[p + 1], planes[p + 2], planes[p + 3]) < 0 then keep = false end
        end
        if keep then exp[#exp + 1] = k end
      end
      local r, n = w:queryplanes(planes)
      assert.are.equal(#exp, n)
      assert.is_true(n > 64)
      assert.are.same(exp, r)
    end
  end)
end)

-- Capsules and mesh items (issue 16): a capsule's side is capsule:plane's; a mesh item is wholly
-- behind a plane when every non-degenerate triangle, placed (c + x u + y v + z w), has its three
-- corners behind it. Placements: none, an integer translation, a quarter turn about y (exact
-- arithmetic), and random rotations (cases within rounding of touching are not compared).
describe("world:queryplanes with Capsule and mesh items", function()
  local Capsule, Mesh = collide.Capsule, collide.Mesh
  local unpack = table.unpack or unpack

  it("exact values: touching counts, the placement's rotation is applied", function()
    local w = World()
    w:add("c", Capsule(0, 0, 0, 0, 2, 0, 0.5))                     -- y in [-0.5, 2.5]
    -- a quarter turn about y (local x -> world -z, local z -> world +x): the corners stand at
    -- (4, 10, 1), (4, 10, -1) and (6, 11, 0); unturned, the top corner would be (5, 11, 1)
    w:add("m", Mesh({ -1, 0, -1, 1, 0, -1, 0, 1, 1 }), 5, 10, 0, 0, 0, -1, 0, 1, 0, 1, 0, 0)
    local function q(...) local r, n = w:queryplanes({ ... }); return { table.concat(r, ","), n } end
    assert.same({ "c,m", 2 }, q(0, 1, 0, -2.5))       -- the capsule's top touches y = 2.5
    assert.same({ "m", 1 }, q(0, 1, 0, -2.5000001))
    assert.same({ "c", 1 }, q(0, -1, 0, -0.5))        -- its bottom touches y = -0.5; the mesh is above
    assert.same({ "", 0 }, q(0, -1, 0, -0.5000001))
    assert.same({ "c,m", 2 }, q(0, -1, 0, 10))        -- the mesh's bottom edge touches y = 10
    assert.same({ "c", 1 }, q(0, -1, 0, 9.9999999))
    assert.same({ "m", 1 }, q(1, 1, 0, -17))          -- x + y = 17 touches the turned top corner
    assert.same({ "", 0 }, q(1, 1, 0, -17.0000001))
    assert.same({ "c", 1 }, q(0, 1, 0, 0.5, 0, -1, 0, 2.5))
  end)

  it("random worlds of capsules and placed meshes against brute force", function()
    local function axes()
      local o = OBB(0, 0, 0, 1, 1, 1)
      o:rotate(urand(0, 6.3), urand(-1, 1), urand(-1, 1), urand(0.1, 1))
      return { o:axes() }
    end
    local kept, compared = 0, 0
    for _ = 1, QUICK and 6 or 20 do
      local w, items, info = World(), {}, {}
      for i = 1, 60 do
        local x, y, z = urand(-30, 30), urand(-10, 10), urand(-30, 30)
        if rnd() < 0.5 then
          local c = Capsule(x, y, z, x + urand(-3, 3), y + urand(-3, 3), z + urand(-3, 3), urand(0, 1.5))
          w:add(i, c)
          info[i] = { c = c }
        else
          local v = {}
          for k = 1, 9 * math.floor(urand(1, 12)) do v[k] = urand(-3, 3) end
          if rnd() < 0.2 then v[7], v[8], v[9] = v[1], v[2], v[3] end   -- a degenerate triangle
          local m = Mesh(v)
          local ax = ({ { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, { 0, 0, -1, 0, 1, 0, 1, 0, 0 }, axes(), axes() })[math.floor(urand(1, 5))]
          if rnd() < 0.3 then x, y, z = math.floor(x), math.floor(y), math.floor(z) end
          w:add(i, m, x, y, z, unpack(ax))
          info[i] = { m = m, p = { x, y, z }, ax = ax }
        end
        items[i] = i
      end
      for _ = 1, 20 do
        local planes = {}
        for _ = 1, math.floor(urand(1, 9)) do
          planes[#planes + 1], planes[#planes + 2], planes[#planes + 3] = urand(-1, 1), urand(-1, 1), urand(-1, 1)
          planes[#planes + 1] = urand(-20, 20)
        end
        local r, n = w:queryplanes(planes)
        local got = {}
        for k = 1, n do got[r[k]] = true end
        for i = 1, 60 do
          local f, keep, near = info[i], true, false
          for k = 1, #planes, 4 do
            local nx, ny, nz, d = planes[k], planes[k + 1], planes[k + 2], planes[k + 3]
            if f.c then
              if f.c:plane(nx, ny, nz, d) < 0 then keep = false end
            else
              -- the largest side over the corners of the non-degenerate triangles
              local top, a, p = -math.huge, f.ax, f.p
              for t = 1, f.m:count() do
                local tv = { f.m:triangle(t) }
                local e1 = { tv[4] - tv[1], tv[5] - tv[2], tv[6] - tv[3] }
                local e2 = { tv[7] - tv[1], tv[8] - tv[2], tv[9] - tv[3] }
                if e1[2] * e2[3] - e1[3] * e2[2] ~= 0 or e1[3] * e2[1] - e1[1] * e2[3] ~= 0
                    or e1[1] * e2[2] - e1[2] * e2[1] ~= 0 then
                  for c = 0, 6, 3 do
                    local lx, ly, lz = tv[c + 1], tv[c + 2], tv[c + 3]
                    local s = nx * (p[1] + lx * a[1] + ly * a[4] + lz * a[7]) + ny * (p[2] + lx * a[2] + ly * a[5] + lz * a[8])
                      + nz * (p[3] + lx * a[3] + ly * a[6] + lz * a[9]) + d
                    if s > top then top = s end
                  end
                end
              end
              -- (a mesh of degenerate triangles only is not compared)
              if math.abs(top) < 1e-9 or top == -math.huge then near = true end
              if top < 0 then keep = false end
            end
          end
          if not near then
            assert.equal(keep, got[i] or false, ("item %d (%s)"):format(i, f.c and "capsule" or "mesh"))
            compared = compared + 1
            if keep then kept = kept + 1 end
          end
        end
      end
      w:destroy()
    end
    assert.is_true(kept > compared / 20 and kept < compared * 0.9, kept .. " of " .. compared)
  end)
end)
