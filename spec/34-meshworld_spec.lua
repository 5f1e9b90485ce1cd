-- Mesh items in a World: world:add(item, mesh [, cx,cy,cz [, axes]]). Every query, raycast,
-- sweep, move and collide.Character treats a mesh item as its triangles. The reference is brute
-- force over every triangle, placed by hand in Lua (c + x u + y v + z w) and tested one by one
-- (each placed triangle as a one-triangle collide.Mesh, whose tests spec/30 checks against pure
-- Lua). Placements whose arithmetic is the reference's (the world axes, integer translations)
-- must agree exactly, touching and rays through shared vertices included; axis permutations and
-- random rotations wherever the answer is clear by 1e-9.
local collide = require "collide"
local errmsg = require("support.util").errmsg

local QUICK = os.getenv("COLLIDE_QUICK") ~= nil
local function iters(n) return QUICK and math.ceil(n / 4) or n end
local unpack = table.unpack or unpack

-- ---------------------------------------------------------------- generators and reference

local rnd = math.random

-- A height field of n x n integer cells (two triangles per cell, random integer heights in
-- [0, hmax]): every inner edge and vertex is shared.
local function heightfield(n, hmax)
  local v, idx = {}, {}
  for j = 0, n do
    for i = 0, n do
      local k = #v
      v[k + 1], v[k + 2], v[k + 3] = i, rnd(0, hmax), j
    end
  end
  local function id(i, j) return j * (n + 1) + i + 1 end
  for j = 0, n - 1 do
    for i = 0, n - 1 do
      local a, b, c, d = id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)
      for _, x in ipairs({ a, b, c, a, c, d }) do idx[#idx + 1] = x end
    end
  end
  return v, idx
end

-- A soup of k random triangles with integer coordinates in [-r, r] (some degenerate).
local function soup(k, r)
  local v = {}
  for i = 1, 9 * k do v[i] = rnd(-r, r) end
  if k > 2 then for i = 1, 9 do v[9 + i] = v[i] end end    -- a duplicate
  if k > 3 then for i = 1, 3 do v[18 + 3 + i] = v[18 + i] end end -- a degenerate one
  return v
end

-- A random rotation (orthonormal to rounding) as three axes.
local function randaxes()
  local a, b, c = rnd() * 2 * math.pi, rnd() * 2 * math.pi, rnd() * 2 * math.pi
  local ca, sa, cb, sb, cc, sc = math.cos(a), math.sin(a), math.cos(b), math.sin(b), math.cos(c), math.sin(c)
  -- Rz(a) * Ry(b) * Rx(c), columns
  local u = { ca * cb, sa * cb, -sb }
  local v = { ca * sb * sc - sa * cc, sa * sb * sc + ca * cc, cb * sc }
  local w = { ca * sb * cc + sa * sc, sa * sb * cc - ca * sc, cb * cc }
  return u, v, w
end

-- The axis permutations with signs that are rotations (exact in every test).
local PERMS = {
  { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } },
  { { 1, 0, 0 }, { 0, 0, -1 }, { 0, 1, 0 } },
  { { 0, 1, 0 }, { -1, 0, 0 }, { 0, 0, 1 } },
  { { 0, 0, 1 }, { 0, 1, 0 }, { -1, 0, 0 } },
  { { 0, 1, 0 }, { 0, 0, 1 }, { 1, 0, 0 } },
  { { -1, 0, 0 }, { 0, -1, 0 }, { 0, 0, 1 } },
}

-- A random placement: {c, u, v, w, exact, args} (args: what follows the mesh in world:add).
local function randplacement()
  local r = rnd(1, 4)
  if r == 1 then return { c = { 0, 0, 0 }, u = PERMS[1][1], v = PERMS[1][2], w = PERMS[1][3], exact = true, args = {} } end
  local c = { rnd(-4, 4), rnd(-4, 4), rnd(-4, 4) }
  if r == 2 then
    return { c = c, u = PERMS[1][1], v = PERMS[1][2], w = PERMS[1][3], exact = true, args = { c[1], c[2], c[3] } }
  end
  local u, v, w
  -- permuted axes are exact arithmetic too, but in another order: a contact exactly on a
  -- boundary edge can go either way (the ray test's shear axis may differ), so not "exact" here
  if r == 3 then
    local p = PERMS[rnd(1, #PERMS)]
    u, v, w = p[1], p[2], p[3]
  else
    u, v, w = randaxes()
    c = { c[1] + rnd(), c[2] + rnd(), c[3] + rnd() }
  end
  return { c = c, u = u, v = v, w = w, exact = false,
           args = { c[1], c[2], c[3], u[1], u[2], u[3], v[1], v[2], v[3], w[1], w[2], w[3] } }
end

-- The point (x, y, z) of the mesh placed by pl.
local function place(pl, x, y, z)
  return pl.c[1] + x * pl.u[1] + y * pl.v[1] + z * pl.w[1],
         pl.c[2] + x * pl.u[2] + y * pl.v[2] + z * pl.w[2],
         pl.c[3] + x * pl.u[3] + y * pl.v[3] + z * pl.w[3]
end

-- The placed triangles of mesh m as one-triangle meshes (false for a degenerate one), and their
-- coordinates.
local function placedtris(m, pl)
  local ts, cs = {}, {}
  for i = 1, m:count() do
    local t = { m:triangle(i) }
    local p = {}
    for k = 0, 2 do
      p[3 * k + 1], p[3 * k + 2], p[3 * k + 3] = place(pl, t[3 * k + 1], t[3 * k + 2], t[3 * k + 3])
    end
    cs[i] = p
    -- Degenerate means degenerate in the mesh's own numbers (the World tests a mesh item in the
    -- mesh's frame): such a triangle never hits, wherever it is placed. Its placed copy must not
    -- stand for it: a rotation's rounding turns collinear integer points (e.g. (-4,3,2), (-1,3,1),
    -- (2,3,0)) into a sliver ~1e-16 wide that does hit, deeper than any 1e-9 margin.
    local degenerate = not collide.Mesh(t):closest(t[1], t[2], t[3])
    local one = collide.Mesh(p)
    local placeddeg = not one:closest(p[1], p[2], p[3])
    -- the converse (a triangle of area >= 1/2 collapsing to exactly collinear points by a rounding
    -- of ~1e-15) cannot happen with these small integer meshes; were it to, this reference could
    -- not stand for the triangle, so say so rather than guess
    assert(degenerate or not placeddeg, "placement made a triangle degenerate")
    if degenerate then ts[i] = false else ts[i] = one end
  end
  return ts, cs
end

-- A random query shape near the region [-6, 8]^3 (integer or half-integer numbers, so that it
-- often touches integer meshes exactly).
local function randshape()
  local k = rnd(1, 4)
  local function co() return rnd(-12, 16) / 2 end
  if k == 1 then
    local x, y, z = co(), co(), co()
    return collide.AABB(x, y, z, x + rnd(0, 6) / 2, y + rnd(0, 6) / 2, z + rnd(0, 6) / 2)
  elseif k == 2 then
    if rnd() < 0.5 then return collide.OBB(co(), co(), co(), rnd(0, 4) / 2, rnd(0, 4) / 2, rnd(0, 4) / 2) end
    local u, v, w = randaxes()
    return collide.OBB(co(), co(), co(), rnd(0, 4) / 2, rnd(0, 4) / 2, rnd(0, 4) / 2,
                       u[1], u[2], u[3], v[1], v[2], v[3], w[1], w[2], w[3])
  end
  if k == 4 then
    local x, y, z = co(), co(), co()
    if rnd() < 0.5 then return collide.Capsule(x, y, z, x + rnd(0, 4), y, z, rnd(0, 4) / 2) end
    return collide.Capsule(x, y, z, co(), co(), co(), rnd(0, 4) / 2)
  end
  return collide.Sphere(co(), co(), co(), rnd(0, 6) / 2)
end

-- The shape grown (g > 0) or shrunk (g < 0) by |g| (a shrunk size stops at 0).
local function grown(s, g)
  local ty = collide.type(s)
  if ty == "AABB" then
    local a, b, c, d, e, f = s:bounds()
    if g < 0 then
      local mx, my, mz = (a + d) / 2, (b + e) / 2, (c + f) / 2
      return collide.AABB(math.min(a - g, mx), math.min(b - g, my), math.min(c - g, mz),
                          math.max(d + g, mx), math.max(e + g, my), math.max(f + g, mz))
    end
    return collide.AABB(a - g, b - g, c - g, d + g, e + g, f + g)
  elseif ty == "OBB" then
    local cx, cy, cz = s:center()
    local hx, hy, hz = s:extents()
    return collide.OBB(cx, cy, cz, math.max(hx + g, 0), math.max(hy + g, 0), math.max(hz + g, 0), s:axes())
  elseif ty == "Capsule" then
    local ax, ay, az, bx, by, bz = s:segment()
    return collide.Capsule(ax, ay, az, bx, by, bz, math.max(s:radius() + g, 0))
  end
  local cx, cy, cz = s:center()
  return collide.Sphere(cx, cy, cz, math.max(s:radius() + g, 0))
end

-- Shape s moved by (dx, dy, dz).
local function moved(s, dx, dy, dz)
  local ty = collide.type(s)
  if ty == "AABB" then
    local a, b, c, d, e, f = s:bounds()
    return collide.AABB(a + dx, b + dy, c + dz, d + dx, e + dy, f + dz)
  elseif ty == "OBB" then
    local cx, cy, cz = s:center()
    local hx, hy, hz = s:extents()
    return collide.OBB(cx + dx, cy + dy, cz + dz, hx, hy, hz, s:axes())
  elseif ty == "Capsule" then
    local ax, ay, az, bx, by, bz = s:segment()
    return collide.Capsule(ax + dx, ay + dy, az + dz, bx + dx, by + dy, bz + dz, s:radius())
  end
  local cx, cy, cz = s:center()
  return collide.Sphere(cx + dx, cy + dy, cz + dz, s:radius())
end

-- 1 when shrinking s by g > 0 stops some size at 0 (grown(s, -g) is then not inside s by g).
local function thin(s, g)
  local ty = collide.type(s)
  if ty == "AABB" then
    local a, b, c, d, e, f = s:bounds()
    return math.min(d - a, e - b, f - c) < 2 * g
  elseif ty == "OBB" then
    return math.min(s:extents()) < g
  end
  return s:radius() < g
end

-- Does some placed triangle of ts overlap shape s?
local function refoverlaps(ts, s)
  for i = 1, #ts do
    if ts[i] and ts[i]:overlaps(s) then return true end
  end
  return false
end

-- The closest hit of the ray on the placed triangles: t, nx, ny, nz, i (lowest i among equal t).
local function refraycast(ts, ray, maxt)
  local bt, bn, bi
  for i = 1, #ts do
    if ts[i] then
      local t, nx, ny, nz = ts[i]:raycast(ray, maxt)
      if t and (not bt or t < bt) then bt, bn, bi = t, { nx, ny, nz }, i end
    end
  end
  if not bt then return nil end
  return bt, bn[1], bn[2], bn[3], bi
end

-- A world of k random mesh items (one or two shared meshes) and a few boxes between them; returns
-- the world and its items in add order, each {name, kind = "mesh" | "box", ts, exact, shape}.
local function randworld(k)
  local w = collide.World()
  local meshes = {}
  for i = 1, 2 do
    local v, idx
    if rnd() < 0.5 then v, idx = heightfield(rnd(1, 4), 2) else v = soup(rnd(1, 8), 4) end
    meshes[i] = collide.Mesh(v, idx)
  end
  local items = {}
  for i = 1, k do
    if rnd() < 0.25 then
      local s = randshape()
      local name = "shape" .. i
      w:add(name, s)
      items[#items + 1] = { name = name, kind = "shape", shape = s, exact = true }
    else
      local m = meshes[rnd(1, 2)]
      local pl = randplacement()
      local name = "mesh" .. i
      w:add(name, m, unpack(pl.args, 1, 12))
      local ts = placedtris(m, pl)
      items[#items + 1] = { name = name, kind = "mesh", ts = ts, exact = pl.exact, mesh = m, pl = pl }
    end
  end
  return w, items
end

-- ---------------------------------------------------------------- specs

describe("mesh items in a World", function()
  it("are added, placed, shared, read back and removed", function()
    local m = collide.Mesh({ 0, 0, 0, 10, 0, 0, 10, 0, 10, 0, 0, 10 }, { 1, 2, 3, 1, 3, 4 })
    local w = collide.World()
    assert.equal("floor", w:add("floor", m))
    w:add("up", m, 0, 5, 0)
    w:add("wall", m, 0, -3, 0, 1, 0, 0, 0, 0, -1, 0, 1, 0)
    assert.equal(3, w:count())
    local r = { w:shape("up") }
    assert.equal(m, r[1])
    assert.same({ 0, 5, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 }, { unpack(r, 2) })
    -- the shared mesh is kept alive by the items that use it
    m = nil
    collectgarbage()
    collectgarbage()
    local item, t, nx, ny, nz, tri = w:raycast(collide.Ray(2, 10, 2, 0, -1, 0))
    assert.same({ "up", 5, 0, 1, 0, 1 }, { item, t, nx, ny, nz, tri })
    item, t, nx, ny, nz, tri = w:raycast(collide.Ray(3, 1, -2, 0, 0, 1))
    assert.same({ "wall", 2, 0, 0, -1, 2 }, { item, t, nx, ny, nz, tri })
    local q, qn = w:querypoint(5, 0, 5)
    assert.same({ "floor" }, { unpack(q, 1, qn) })
    w:remove("up")
    assert.is_false(w:has("up"))
    assert.equal("floor", (w:raycast(collide.Ray(2, 10, 2, 0, -1, 0))))
    -- update: moved elsewhere, turned into a box and back
    w:update("floor", r[1], 0, -1, 0)
    assert.equal(11, select(2, w:raycast(collide.Ray(2, 10, 2, 0, -1, 0))))
    w:update("floor", collide.AABB(0, 0, 0, 1, 1, 1))
    assert.equal("AABB", collide.type(w:shape("floor")))
    w:update("floor", r[1])
    assert.equal(r[1], (w:shape("floor")))
    w:translate("floor", 0, 2, 0)
    assert.equal(2, select(3, w:shape("floor")))
    w:translatemany({ "floor", "wall" }, { 1, 1 }, { 0, 0 }, { 0, 0 })
    assert.equal(1, select(2, w:shape("floor")))
    assert.equal(1, select(2, w:shape("wall")))
  end)

  it("never hit with a triangle that is degenerate in the mesh, however placed (and so the reference)", function()
    -- collinear in the mesh; under this rotation (a failed differential run's) the placed points
    -- round to a sliver that a sphere 3 away overlaps by a clear margin
    local m = collide.Mesh({ -4, 3, 2, -1, 3, 1, 2, 3, 0 })
    local pl = { c = { 1.5951187657580084, 4.8263456973856211, 3.1811336034311504 },
                 u = { -0.47347046301627621, -0.78252481343596303, -0.40432738839727905 },
                 v = { 0.72696895249063365, -0.60636014391367299, 0.32224760354060117 },
                 w = { -0.49733475925760884, -0.14135873595218967, 0.8559648620148933 } }
    pl.args = { pl.c[1], pl.c[2], pl.c[3], pl.u[1], pl.u[2], pl.u[3], pl.v[1], pl.v[2], pl.v[3], pl.w[1], pl.w[2], pl.w[3] }
    local s = collide.Sphere(7, 6.5, 6, 3)
    local w = collide.World()
    w:add("m", m, unpack(pl.args))
    assert.equal(0, select(2, w:query(s)))
    local mx, my, mz = place(pl, -1, 3, 1)
    assert.is_nil(w:raycast(collide.Ray(7, 6.5, 6, mx - 7, my - 6.5, mz - 6)))
    local p = { place(pl, -4, 3, 2) }
    p[4], p[5], p[6] = place(pl, -1, 3, 1)
    p[7], p[8], p[9] = place(pl, 2, 3, 0)
    assert.is_true(collide.Mesh(p):overlaps(collide.Sphere(7, 6.5, 6, 3 - 1e-6)))   -- the sliver
    assert.same({ false }, (placedtris(m, pl)))
  end)

  it("answer queries as their triangles (differential against brute force)", function()
    local checked, skipped = 0, 0
    for _ = 1, iters(60) do
      local w, items = randworld(rnd(1, 6))
      for _ = 1, 20 do
        local s = randshape()
        local got, n = w:query(s)
        local set = {}
        for i = 1, n do set[got[i]] = i end
        local exp, order = {}, {}
        for _, it in ipairs(items) do
          local yes, sure
          if it.kind == "shape" then
            yes, sure = it.shape:overlaps(s), true
          elseif it.exact and collide.type(s) == "AABB" then
            -- integer separating axes of integer numbers: exact, touching included (spheres and
            -- OBBs go through closest points and rotations: rounding decides when touching)
            yes, sure = refoverlaps(it.ts, s), true
          else
            local hi, lo = refoverlaps(it.ts, grown(s, 1e-9)), refoverlaps(it.ts, grown(s, -1e-9))
            -- a shape that cannot shrink by 1e-9 (a point, a segment, a flat box: a zero size
            -- stays 0) has no inner bound, and touching it is rounding's call either way (a point
            -- exactly on a slanted triangle). Its overlap is sure when it survives moves of 1e-9
            -- along each axis both ways: one of them parts two convex sets that only touch.
            if lo and thin(s, 1e-9) then
              for k = 1, 6 do
                local d = { 0, 0, 0 }
                d[(k - 1) % 3 + 1] = k <= 3 and 1e-9 or -1e-9
                lo = lo and refoverlaps(it.ts, moved(grown(s, -1e-9), d[1], d[2], d[3]))
              end
            end
            yes, sure = hi, hi == lo
          end
          if sure then
            checked = checked + 1
            assert(yes == (set[it.name] ~= nil), it.name .. " vs " .. tostring(s))
            if yes then order[#order + 1] = it.name end
          else
            skipped = skipped + 1
            if set[it.name] then order[#order + 1] = it.name end
          end
        end
        assert.same(order, { unpack(got, 1, n) })
        -- querypoint: a vertex of an exactly placed item is on it; a point farther than 1e-9
        -- from every triangle of an item is not (a point exactly on a slanted triangle's inside
        -- or edge may go either way: the closest point's rounding decides)
        local px, py, pz = rnd(-6, 8), rnd(-6, 8), rnd(-6, 8)
        local it, vert = items[rnd(1, #items)], false
        local ti = it.kind == "mesh" and rnd(1, it.mesh:count())
        if it.kind == "mesh" and it.exact and it.ts[ti] then     -- not a degenerate one
          local t = { it.mesh:triangle(ti) }
          local k = rnd(0, 2)
          px, py, pz = place(it.pl, t[3 * k + 1], t[3 * k + 2], t[3 * k + 3])
          vert = true
        end
        got, n = w:querypoint(px, py, pz)
        set = {}
        for i = 1, n do set[got[i]] = true end
        if vert then assert.is_true(set[it.name]) end
        for _, x in ipairs(items) do
          if x.kind == "mesh" and not refoverlaps(x.ts, collide.Sphere(px, py, pz, 1e-9)) then
            assert.is_nil(set[x.name])
          end
        end
      end
    end
    assert(checked > iters(1000) and skipped < checked / 10, checked .. " checked, " .. skipped .. " skipped")
  end)

  it("answer rays as their triangles, through shared vertices and along shared edges", function()
    local checked, worlds = 0, 0
    -- only worlds whose items are all exact are checked exactly (about a quarter): draw more
    -- worlds than iters(60) while too few rays were checked, so the count below is no matter of
    -- luck (with COLLIDE_QUICK, 15 worlds alone fell short for about 1 seed in 8)
    while worlds < iters(60) or (checked <= iters(150) and worlds < iters(600)) do
      worlds = worlds + 1
      local w, items = randworld(rnd(1, 6))
      for _ = 1, 30 do
        -- aim at a vertex, an edge midpoint or a random point of a random item, from an
        -- integer point (often along an edge, through a shared vertex)
        local ox, oy, oz = rnd(-8, 10), rnd(-8, 10), rnd(-8, 10)
        local tx, ty, tz = rnd(-6, 8), rnd(-6, 8), rnd(-6, 8)
        local it = items[rnd(1, #items)]
        if it.kind == "mesh" and rnd() < 0.8 then
          local t = { it.mesh:triangle(rnd(1, it.mesh:count())) }
          local k, k2 = rnd(0, 2), rnd(0, 2)
          local f = it.exact and 0.5 or 0.25 + rnd() / 2   -- off the edges when not exact
          tx, ty, tz = place(it.pl, t[3 * k + 1] * f + t[3 * k2 + 1] * (1 - f), t[3 * k + 2] * f + t[3 * k2 + 2] * (1 - f),
                             t[3 * k + 3] * f + t[3 * k2 + 3] * (1 - f))
          if not it.exact then    -- towards the triangle's inside
            local x, y, z = place(it.pl, (t[1] + t[4] + t[7]) / 3, (t[2] + t[5] + t[8]) / 3, (t[3] + t[6] + t[9]) / 3)
            tx, ty, tz = (tx + x) / 2, (ty + y) / 2, (tz + z) / 2
          elseif rnd() < 0.3 then   -- from another vertex of it: along an edge
            local k3 = rnd(0, 2)
            ox, oy, oz = place(it.pl, 2 * t[3 * k3 + 1] - tx, 2 * t[3 * k3 + 2] - ty, 2 * t[3 * k3 + 3] - tz)
          end
        end
        if ox ~= tx or oy ~= ty or oz ~= tz then
          local ray = collide.Ray(ox, oy, oz, tx - ox, ty - oy, tz - oz)
          local maxt = rnd() < 0.3 and rnd(1, 20) or math.huge
          -- the reference: every item's closest hit, then the nearest (ties by add order)
          local best
          local all = {}
          for _, x in ipairs(items) do
            local t, nx, ny, nz, tri
            if x.kind == "shape" then
              t, nx, ny, nz = x.shape:raycast(ray, maxt)
            else
              t, nx, ny, nz, tri = refraycast(x.ts, ray, maxt)
            end
            if t then
              all[#all + 1] = { x = x, t = t, n = { nx, ny, nz }, tri = tri }
              if not best or t < best.t then best = all[#all] end
            end
          end
          local item, t, nx, ny, nz, tri = w:raycast(ray, maxt)
          local hits, nh = w:raycastall(ray, maxt)
          local exact = true
          for _, x in ipairs(items) do exact = exact and x.exact end
          if exact then
            checked = checked + 1
            if not best then
              assert.is_nil(item)
              assert.equal(0, nh)
            else
              -- permuted axes change the order of the rounding in the triangle test: equal
              -- to an ulp or so, the hit and miss decisions themselves exact
              local function near(a, b) return math.abs(a - b) <= 1e-12 * (1 + math.abs(b)) end
              assert.equal(best.x.name, item)
              assert(near(t, best.t))
              assert(near(nx, best.n[1]) and near(ny, best.n[2]) and near(nz, best.n[3]))
              if best.tri ~= tri then        -- a tie: the world's triangle is hit at that t too
                local tt = best.x.ts[tri]:raycast(ray, maxt)
                assert(tt and near(tt, best.t))
              end
              assert.equal(#all, nh)
              local byname = {}
              for _, h in ipairs(all) do byname[h.x.name] = h end
              for i = 1, nh do
                local h = byname[hits[i].item]
                assert(near(hits[i].t, h.t))
                if h.tri ~= hits[i].tri then
                  local tt = h.x.ts[hits[i].tri]:raycast(ray, maxt)
                  assert(tt and near(tt, h.t))
                end
                if i > 1 then assert(hits[i - 1].t <= hits[i].t) end
              end
            end
          elseif best and item == best.x.name then
            assert(math.abs(t - best.t) <= 1e-9 * (1 + best.t))
          end
        end
      end
    end
    assert(checked > iters(150), checked .. " checked in " .. worlds .. " worlds")
  end)

  it("raycastall gives the triangle and clears it on reused out tables", function()
    local m = collide.Mesh({ 0, 0, 0, 1, 0, 0, 0, 0, 1 })
    local w = collide.World()
    w:add("b", collide.AABB(0, 2, 0, 1, 3, 1))
    w:add("m", m)
    local out = {}
    local hits, n = w:raycastall(collide.Ray(0.25, 5, 0.25, 0, -1, 0), nil, nil, out)
    assert.equal(2, n)
    assert.same({ "b", nil, "m", 1 }, { hits[1].item, hits[1].tri, hits[2].item, hits[2].tri })
    w:remove("b")
    w:add("b", collide.AABB(0, -3, 0, 1, -2, 1))
    hits, n = w:raycastall(collide.Ray(0.25, 5, 0.25, 0, -1, 0), nil, nil, out)
    assert.same({ "m", 1, "b", nil }, { hits[1].item, hits[1].tri, hits[2].item, hits[2].tri })
  end)

  it("overlap shapes in pairs, and other meshes", function()
    local m = collide.Mesh({ 0, 0, 0, 2, 0, 0, 0, 0, 2 })
    local w = collide.World()
    w:add(1, m)
    w:add(2, m, 0, -1, 0.5, 0, 1, 0, -1, 0, 0, 0, 0, 1)       -- stands up through 1: crossing
    w:add(3, m, 10, 0, 0)
    w:add(4, m, 12, 0, 0)                                      -- touches 3 at the vertex (12, 0, 0)
    w:add(5, m, 20, 1, 0)                                      -- parallel to 6, apart
    w:add(6, m, 20, 0, 0)
    w:add(7, collide.Sphere(0.5, 1, 0.5, 1))                   -- touches 1 from above
    w:add(8, collide.AABB(20.5, 0.2, 0.2, 21, 0.8, 0.8))       -- between 5 and 6, touching neither
    local p, n = w:pairs()
    local got = {}
    for i = 1, n do got[#got + 1] = p[2 * i - 1] .. "-" .. p[2 * i] end
    table.sort(got)
    assert.same({ "1-2", "1-7", "2-7", "3-4" }, got)
  end)

  -- A surface over [0, n] x [0, n] (x, z) at height h(x, z) (plane through integer points), as
  -- n x n cells of two triangles each (tiles), or as one big pair of triangles.
  local function surface(n, h, tiles)
    local v, idx = {}, {}
    local k = tiles and n or 1
    local step = n / k
    for j = 0, k do
      for i = 0, k do
        local x, z = i * step, j * step
        v[#v + 1], v[#v + 2], v[#v + 3] = x, h(x, z), z
      end
    end
    for j = 0, k - 1 do
      for i = 0, k - 1 do
        local a, b = j * (k + 1) + i + 1, j * (k + 1) + i + 2
        local c, d = a + k + 1, a + k + 2
        -- alternate the diagonal, so seams run both ways
        if (i + j) % 2 == 0 then
          for _, x in ipairs({ a, b, d, a, d, c }) do idx[#idx + 1] = x end
        else
          for _, x in ipairs({ a, b, c, b, d, c }) do idx[#idx + 1] = x end
        end
      end
    end
    return collide.Mesh(v, idx)
  end

  -- A mover of kind k at (x, y, z) (its lowest point there for a box; its centre r above for a sphere).
  local function mover(k, x, y, z)
    if k == 1 then return collide.AABB(x - 0.5, y, z - 0.5, x + 0.5, y + 1, z + 0.5) end
    if k == 2 then
      local c, s = math.cos(0.3), math.sin(0.3)
      return collide.OBB(x, y + 1, z, 0.5, 0.5, 0.5, c, 0, s, 0, 1, 0, -s, 0, c)
    end
    if k == 4 then return collide.Capsule(x - 0.5, y + 0.5, z, x + 0.5, y + 0.5, z + 0.25, 0.5) end
    return collide.Sphere(x, y + 0.5, z, 0.5)
  end

  it("let movers (AABB, OBB, Sphere, Capsule) slide across the seams of a tessellated floor, ramp and wall as across one triangle pair", function()
    local floors = {
      function() return 0 end,                -- a floor
      function(x) return x / 2 end,           -- a ramp rising along x
      function(x, z) return (x + z) / 4 end,  -- a ramp rising along x and z
    }
    local compared = 0
    for fi, h in ipairs(floors) do
      local placements = { {}, { 0.5, -1, 0.25 }, { 0, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0, 1 } }
      for _, pa in ipairs(placements) do
        local tiled, whole = collide.World(), collide.World()
        tiled:add("floor", surface(16, h, true), unpack(pa))
        whole:add("floor", surface(16, h, false), unpack(pa))
        -- a wall at x = 14 (tiled and whole too), for diagonal moves into it. The movers stay
        -- inside the surfaces: a mover reaching a mesh's own boundary edge at the very time it
        -- meets its face can end apart in the two worlds (not a seam; not covered here)
        local wall = function(x, z) return 0 end
        local wt, ww = surface(24, wall, true), surface(24, wall, false)
        tiled:add("wall", wt, 14, -12, -4, 0, 1, 0, -1, 0, 0, 0, 0, 1)
        whole:add("wall", ww, 14, -12, -4, 0, 1, 0, -1, 0, 0, 0, 0, 1)
        local px, py, pz = 0, 0, 0
        if #pa == 3 then px, py, pz = pa[1], pa[2], pa[3] end
        for _ = 1, iters(120) do
          local k = rnd(1, 4)
          -- on a seam, a corner or anywhere; on the surface or a little above it
          local x = rnd() < 0.6 and rnd(6, 10) or 6 + 4 * rnd()
          local z = rnd() < 0.6 and rnd(6, 10) or 6 + 4 * rnd()
          local y = h(x, z) + (rnd() < 0.5 and 0.25 or 1)
          if #pa == 12 then
            -- the placement turns the surface's x into y: not a floor any more, still seams
            x, y = -y, x
          end
          local m = mover(k, x + px, y + py, z + pz)
          local dx, dy, dz = rnd(-6, 6) / 4, -rnd(0, 12) / 4, rnd(-6, 6) / 4
          tiled:add("m", m)
          whole:add("m", m)
          for _ = 1, 3 do       -- a few moves in a row: resting on the surface between them
            local ax, ay, az, _, n1 = tiled:move("m", dx, dy, dz)
            local bx, by, bz, _, n2 = whole:move("m", dx, dy, dz)
            local tol = 1e-9
            assert(math.abs(ax - bx) <= tol and math.abs(ay - by) <= tol and math.abs(az - bz) <= tol,
              string.format("surface %d, kind %d: tiled %.17g %.17g %.17g, whole %.17g %.17g %.17g",
                            fi, k, ax, ay, az, bx, by, bz))
            assert.equal(n2, n1)
            compared = compared + 1
          end
          tiled:remove("m")
          whole:remove("m")
        end
      end
    end
    assert(compared >= iters(120) * 27)
  end)

  it("carry a walking box or sphere over a tessellated floor without catching", function()
    local w = collide.World()
    w:add("floor", surface(16, function() return 0 end, true))
    for k = 1, 4 do
      w:add("m", mover(k, 0.5, 0, 0.5))
      -- settle on the floor, then walk diagonally with gravity across 30 seams
      w:move("m", 0, -1, 0)
      local ax, ay, az = w:move("m", 15, -0.5, 15)
      assert(math.abs(ax - 15) < 1e-9 and math.abs(az - 15) < 1e-9 and math.abs(ay) < 1e-9)
      w:remove("m")
    end
  end)

  it("carry collide.Character (Sphere, Capsule, AABB) up walkable mesh slopes, steps, and not up steep ones", function()
    local function ramp(slope)
      return surface(16, function(x) return x * slope end, true)
    end
    -- walkable: tan 26.6 degrees, under the default 50
    local w = collide.World()
    w:add("ramp", ramp(0.5), -4, 0, -8)
    w:add("p", collide.Sphere(-3, 1.2, 0, 0.5))
    local ch = collide.Character(w, "p")
    for _ = 1, 20 do ch:move(0.5, -0.2, 0) end
    local x, y = w:shape("p"):center()
    assert(x > 5, "walked " .. x)
    -- resting on the slope: the centre r / cos above the surface
    assert(math.abs(y - ((x + 4) * 0.5 + 0.5 * math.sqrt(1.25))) < 1e-6, "height " .. y)
    assert.is_true((ch:grounded()))
    -- standing still with gravity on the slope: no drift
    local sx, sy, sz = w:shape("p"):center()
    for _ = 1, 50 do ch:move(0, -0.2, 0) end
    local ex, ey, ez = w:shape("p"):center()
    assert(math.abs(ex - sx) < 1e-9 and math.abs(ey - sy) < 1e-9 and math.abs(ez - sz) < 1e-9)
    -- a capsule character walks up it too, and stands on it
    w = collide.World()
    w:add("ramp", ramp(0.5), -4, 0, -8)
    w:add("p", collide.Capsule(-3, 1.2, 0, -3, 2.2, 0, 0.4))
    ch = collide.Character(w, "p")
    for _ = 1, 20 do ch:move(0.5, -0.2, 0) end
    local ax, ay = w:shape("p"):segment()
    assert(ax > 5, "capsule walked " .. ax)
    assert(math.abs(ay - ((ax + 4) * 0.5 + 0.4 * math.sqrt(1.25))) < 1e-6, "capsule height " .. ay)
    assert.is_true((ch:grounded()))
    -- steep: tan 63.4 degrees, a wall for the default limit
    w = collide.World()
    w:add("ramp", ramp(2), 0, 0, -8)
    w:add("floor", surface(16, function() return 0 end, true), -16, 0, -8)
    w:add("p", collide.Sphere(-2, 0.5 + 1e-9, 0, 0.5))
    ch = collide.Character(w, "p")
    for _ = 1, 40 do ch:move(0.5, -0.2, 0) end
    x, y = w:shape("p"):center()
    assert(y < 1.5, "climbed the steep slope to " .. y)
    assert(x < 1, "went into the steep slope: " .. x)
    -- a step of 0.3 made of triangles: climbed with step = 0.4, blocked without
    for _, st in ipairs({ 0, 0.4 }) do
      w = collide.World()
      w:add("floor", surface(16, function() return 0 end, true), -8, 0, -8)
      w:add("ledge", surface(8, function() return 0.3 end, true), 2, 0, -4)
      -- the ledge's side, a tessellated vertical strip at x = 2
      local sv, si = {}, {}
      for z = 0, 8 do
        for _, y in ipairs({ 0, 0.3 }) do sv[#sv + 1], sv[#sv + 2], sv[#sv + 3] = 2, y, z - 4 end
      end
      for q = 0, 7 do
        local a = 2 * q + 1
        for _, x in ipairs({ a, a + 2, a + 1, a + 1, a + 2, a + 3 }) do si[#si + 1] = x end
      end
      w:add("side", collide.Mesh(sv, si))
      w:add("p", collide.AABB(0, 1e-9, -0.5, 1, 2, 0.5))
      ch = collide.Character(w, "p", { step = st })
      for _ = 1, 10 do ch:move(0.5, -0.1, 0) end
      local bx, by = w:shape("p"):bounds()
      if st == 0 then
        assert(bx < 1 + 1e-6, "walked through the ledge: " .. bx)
      else
        assert(bx > 2 and math.abs(by - 0.3) < 1e-6, "did not step up: " .. bx .. " " .. by)
      end
    end
  end)

  it("refuse bad input in the standard wording and leave the world unchanged", function()
    local m = collide.Mesh({ 0, 0, 0, 1, 0, 0, 0, 0, 1 })
    local w = collide.World()
    w:add("m", m)
    w:add("b", collide.AABB(0, 1, 0, 1, 2, 1))
    local cases = {
      { "bad argument #4 to 'add' (number expected, got string)", function() return w:add("x", m, "a", 0, 0) end },
      { "bad argument #6 to 'add' (number expected, got no value)", function() return w:add("x", m, 0, 0) end },
      { "bad argument #5 to 'add' (number is not finite)", function() return w:add("x", m, 0, 0 / 0, 0) end },
      { "bad argument #4 to 'add' (number is not finite)", function() return w:add("x", m, math.huge, 0, 0) end },
      { "bad argument #7 to 'add' (axes are not orthonormal)", function() return w:add("x", m, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 0) end },
      { "bad argument #7 to 'add' (axes are not orthonormal)", function() return w:add("x", m, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1) end },
      { "bad argument #15 to 'add' (number expected, got no value)", function() return w:add("x", m, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0) end },
      { "bad argument #9 to 'add' (number is not finite)", function() return w:add("x", m, 0, 0, 0, 1, 0, 1 / 0, 0, 1, 0, 0, 0, 1) end },
      { "bad argument #2 to 'add' (item is already in the world)", function() return w:add("m", m) end },
      { "bad argument #2 to 'move' (item is a mesh (mesh items do not move))", function() return w:move("m", 1, 0, 0) end },
      { "bad argument #2 to 'check' (item is a mesh (mesh items do not move))", function() return w:check("m", 1, 0, 0) end },
      { "bad argument #2 to 'resolve' (item is a mesh (mesh items do not move))", function() return w:resolve("m") end },
      { "bad argument #2 to 'Character' (item is a mesh (mesh items do not move))", function() return collide.Character(w, "m") end },
      { "bad argument #4 to 'update' (number is not finite)", function() return w:update("m", m, 0 / 0, 0, 0) end },
      { "bad argument #7 to 'update' (axes are not orthonormal)", function() return w:update("b", m, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1) end },
    }
    for _, c in ipairs(cases) do
      assert.equal(c[1], errmsg(c[2]))
      assert.equal(2, w:count())
      assert.equal(m, (w:shape("m")))
      assert.same({ 0, 0, 0 }, { (select(2, w:shape("m"))), (select(3, w:shape("m"))), (select(4, w:shape("m"))) })
      assert.equal("AABB", collide.type(w:shape("b")))
      assert.equal("m", (w:raycast(collide.Ray(0.25, 0.5, 0.25, 0, -1, 0))))
    end
    -- a mesh is not a query or sweep shape
    assert.matches("collide.AABB, collide.OBB, collide.Sphere or collide.Capsule expected, got collide.Mesh",
                   errmsg(w.query, w, m), 1, true)
  end)
end)

-- A user's scene: the walker demo's level.obj read with collide.obj, placed turned a quarter about
-- y and moved away (local x -> world -z, local z -> world +x: exact arithmetic), and a capsule
-- collide.Character walking on it with gravity: across the floor's seams, up the ramp and up the
-- steps. Every frame it is grounded, its feet are on the surface (the level's own coordinates, to
-- rounding) and a capsule a hair thinner overlaps no triangle.
describe("a capsule Character on level.obj placed with a quarter turn", function()
  local obj = require "collide.obj"
  local level = dofile("examples/love-walker/level.lua")
  local v, idx = obj.load("examples/love-walker/level.obj")
  local mesh = collide.Mesh(v, idx)
  local C = { 100, 5, -50 }
  local function toworld(x, y, z) return C[1] + z, C[2] + y, C[3] - x end
  local function tolocal(x, y, z) return C[3] - z, y - C[2], x - C[1] end
  local R, H = 0.35, 1

  -- Walks from local (x, y, z) by local (dx, dz) per frame; surf(x, z) is the surface height under
  -- the feet (nil: not checked there). Returns the feet's final local position.
  local function walk(x, y, z, dx, dz, frames, surf)
    local w = collide.World()
    w:add("level", mesh, C[1], C[2], C[3], 0, 0, -1, 0, 1, 0, 1, 0, 0)
    local wx, wy, wz = toworld(x, y + 0.05, z)
    w:add("p", collide.Capsule(wx, wy + R, wz, wx, wy + R + H, wz, R))
    local ch = collide.Character(w, "p", { step = 0.3, snap = 0.3 })
    local lx, ly, lz
    for f = 1, frames do
      ch:move(dz, -0.2, -dx)
      local s = w:shape("p")
      local ax, ay, az, bx, by, bz = s:segment()
      lx, ly, lz = tolocal(ax, ay - R, az)
      assert.is_true((ch:grounded()), "frame " .. f)
      local want = surf(lx, lz)
      if want then
        -- on a slope the round bottom stands r (1 / cos - 1) above the point under its centre
        assert(ly >= want - 1e-9 and ly <= want + 0.025, ("frame %d: feet %.17g over %.17g"):format(f, ly, want))
      end
      local _, n = w:query(collide.Capsule(ax, ay, az, bx, by, bz, R * (1 - 1e-6)))
      assert.equal(1, n, "frame " .. f)   -- itself only
    end
    w:destroy()
    return lx, ly, lz
  end

  it("walks the floor across its seams at full speed", function()
    assert.equal(1004, mesh:count())
    local x, y, z = walk(-9, 0, -8, 0.05, 0, 280, function() return 0 end)
    assert(math.abs(x - 5) < 1e-9 and math.abs(y) < 1e-9 and math.abs(z + 8) < 1e-9, ("%.17g %.17g %.17g"):format(x, y, z))
    x, y, z = walk(3, 0, 9, 0, -0.04, 100, function() return 0 end)   -- along a column of vertices
    assert(math.abs(x - 3) < 1e-9 and math.abs(y) < 1e-9 and math.abs(z - 5) < 1e-9, ("%.17g %.17g %.17g"):format(x, y, z))
  end)

  it("walks up the ramp at full speed onto the platform", function()
    local x, y, z = walk(0, 0, 7, 0, -0.04, 240, function(_, z)
      if z > 0 then return level.rampheight(z) end
      return level.PLATFORM_Y
    end)
    assert(math.abs(x) < 1e-9 and math.abs(y - 1.5) < 1e-9 and math.abs(z + 2.6) < 1e-9, ("%.17g %.17g %.17g"):format(x, y, z))
  end)

  it("climbs the steps with step = 0.3", function()
    local x, y, z = walk(8, 0, -2, -0.04, 0, 200, function(x)
      if x >= 5.6 + R then return 0 end
      if x <= 2 - R then return level.PLATFORM_Y end
    end)
    assert(x < 0.5 and math.abs(y - 1.5) < 1e-9 and math.abs(z + 2) < 1e-9, ("%.17g %.17g %.17g"):format(x, y, z))
  end)

  -- review finding (2026-11-29): "within 2^-30 the lower rank wins" applied against the best so
  -- far is not transitive; a sphere meeting a vertex, an edge 0.9 x 2^-30 later and a face
  -- 1.8 x 2^-30 later got each of the three by the tree's visit order. The same three triangles
  -- among random far-away ones, inserted anywhere: the same contact every time.
  -- Since 2026-11-30 the window is 2^-40 of the coordinates along the move (at most 2^-30 in t):
  -- here 64 x 2^-40 (a far triangle at 64 sets the scale), so T below is the window in t.
  it("sweeps choose among contacts within the tie window whatever the tree's visit order", function()
    local D = 20
    local T = 64 * 2 ^ -40 / D
    local specials = {
      { -5, 0, -5, 5, 0, -5, 0, 0, 5 },                                         -- face
      { -3, 0.9 * T * D, 0, 3, 0.9 * T * D, 0, 0, 0.9 * T * D - 2, 0 },          -- edge
      { 0, 1.8 * T * D, 0, 0.5, 1.8 * T * D - 3, 0.3, -0.5, 1.8 * T * D - 3, 0.3 }, -- vertex
    }
    local seen = {}
    local rng = require("support.gen").new(3401)
    local World, Sphere, Capsule = collide.World, collide.Sphere, collide.Capsule
    for _ = 1, 60 do
      local tris = {}
      for _ = 1, rng:int(0, 200) do
        local cx, cy, cz = (rng:float() - 0.5) * 40, (rng:float() - 0.5) * 6 - 3, (rng:float() - 0.5) * 40
        local s = rng:float() * 3
        tris[#tris + 1] = { cx, cy, cz, cx + s * rng:float(), cy - s * rng:float(), cz, cx, cy - s, cz + s * rng:float() }
      end
      for k = 1, 3 do table.insert(tris, rng:int(1, #tris + 1), specials[k]) end
      table.insert(tris, rng:int(1, #tris + 1), { 60, -40, 60, 64, -40, 60, 60, -40, 64 })
      local v = {}
      for _, t in ipairs(tris) do for j = 1, 9 do v[#v + 1] = t[j] end end
      local w = World()
      w:add("m", collide.Mesh(v))
      for _, sh in ipairs { Sphere(0, 10, 0, 1), Capsule(0, 10, 0, 0, 11, 0, 1) } do
        local it, t, nx, ny, nz = w:sweep(sh, 0, -D, 0)
        assert.equal("m", it)
        local key = ("%s %.17g %.17g %.17g %.17g"):format(collide.type(sh), t, nx, ny, nz)
        seen[collide.type(sh)] = seen[collide.type(sh)] or key
        assert.equal(seen[collide.type(sh)], key)
      end
      local id = {}
      w:add(id, Sphere(0, 10, 0, 1))
      local _, ay, _, cols, n = w:check(id, 0, -D, 0)
      assert.is_true(n >= 1)
      local key = ("check %.17g %.17g"):format(ay, cols[1].t)
      seen.check = seen.check or key
      assert.equal(seen.check, key)
    end
  end)

  -- review finding (2026-11-29, review6): the list of contacts within 2^-30 held 16; a full list
  -- kept the 16 best by rank, t, index, so a later contact earlier still could drop them all:
  -- 16 floor faces at t_f filled it, an edge at t_f - 0.5 x 2^-30 was turned away (worse rank),
  -- a vertex at t_f - 1.3 x 2^-30 then dropped the faces, and the vertex won. Among the vertex and
  -- the edge (within 2^-30 of the least t) the edge wins, in every order of the 18 triangles.
  -- (The window is now 2^-40 of the coordinates along the move: 10 x 2^-40 here, the sphere's
  -- centre at y = 10 being the largest coordinate; T below is that window in t.)
  it("sweeps choose among more than 16 contacts within the tie window whatever the visit order", function()
    local D = 20
    local T = 10 * 2 ^ -40 / D
    local yE, yV = 0.5 * T * D, 1.3 * T * D
    local rng = require("support.gen").new(3402)
    local ay0
    for round = 1, 40 do
      local side = round % 2 == 0 and -1 or 1
      local tris = {}
      for k = 0, 15 do                                    -- 16 floor faces through (0, 0, 0)
        local z = (k - 7.5) * 0.01
        tris[#tris + 1] = { 0.2 * -side, 0, z - 0.2, 0.2 * -side, 0, z + 0.2, 8 * side, 0, z }
      end
      tris[17] = { 0.5 * side, yE, 0, -6 * side, yE, 0, -3 * side, yE - 2, 0 }         -- edge
      tris[18] = { 0, yV, 0, -5 * side, yV - 3, 0.3, -5 * side, yV - 3, -0.3 }         -- vertex
      local perm, v = {}, {}
      for k = 1, 18 do table.insert(perm, rng:int(1, #perm + 1), k) end
      for _, k in ipairs(perm) do for j = 1, 9 do v[#v + 1] = tris[k][j] end end
      local w = collide.World()
      w:add("m", collide.Mesh(v))
      local it, t, nx, ny, nz, tri = w:sweep(collide.Sphere(0, 10, 0, 1), 0, -D, 0)
      assert.equal("m", it)
      assert.equal(0.45 - 0.5 * T, t)
      assert.same({ 0, 1, 0 }, { nx, ny, nz })
      assert.equal(17, perm[tri])
      local id = {}
      w:add(id, collide.Sphere(0, 10, 0, 1))
      local _, ay, _, cols, n = w:check(id, 0, -D, 0)
      assert.equal(1, n)
      assert.equal(0.45 - 0.5 * T, cols[1].t)
      assert.is_true(ay > -9 + yE and ay < -9 + 1e-6, ("%.17g"):format(ay))   -- the gap kept off the edge
      ay0 = ay0 or ay
      assert.equal(ay0, ay)
    end
  end)
end)

-- Found by the rehearsal CI of 2026-11-30 ("slide across the seams" above failed when its random
-- draw made this case, about 1 run in 100; pre-existing): a capsule against the wall mesh,
-- resting on the floor after two moves, made its third move with 3 collisions on the tiled meshes
-- and 2 on the whole ones. A rounded mover touching a triangle at the start (t = 0) was always a
-- face contact (rank 1) with the normal of its closest points: resting on one tile's face and a
-- hair past the edge it shares with the next tile, it met that next tile as a "face" whose normal
-- was tilted by 1e-11 (its closest point on the shared edge), which the seams rule could pick by
-- index; the slide then kept a 1e-11 component into the wall and met it again.
describe("a capsule sliding into the wall's corner with the floor", function()
  it("reports as many collisions on tiled meshes as on whole ones, with the face's normal", function()
    local function surface(n, tiles)
      local v, idx = {}, {}
      local k = tiles and n or 1
      local step = n / k
      for j = 0, k do for i = 0, k do v[#v + 1], v[#v + 2], v[#v + 3] = i * step, 0, j * step end end
      for j = 0, k - 1 do
        for i = 0, k - 1 do
          local a, b = j * (k + 1) + i + 1, j * (k + 1) + i + 2
          local c, d = a + k + 1, a + k + 2
          local t = (i + j) % 2 == 0 and { a, b, d, a, d, c } or { a, b, c, b, d, c }
          for _, x in ipairs(t) do idx[#idx + 1] = x end
        end
      end
      return collide.Mesh(v, idx)
    end
    local counts = {}
    for _, tiles in ipairs { true, false } do
      local w = collide.World()
      w:add("floor", surface(16, tiles), 0.5, -1, 0.25)
      w:add("wall", surface(24, tiles), 14, -12, -4, 0, 1, 0, -1, 0, 0, 0, 0, 1)
      local x, y, z = 10.5, -0.75, 10.25
      w:add("m", collide.Capsule(x - 0.5, y + 0.5, z, x + 0.5, y + 0.5, z + 0.25, 0.5))
      local r = {}
      for i = 1, 3 do
        local _, _, _, cols, n = w:move("m", 1.5, -1.5, 0.75)
        r[i] = n
        for j = 1, n do
          if cols[j].other == "wall" then assert.same({ -1, 0, 0 }, { cols[j].nx, cols[j].ny, cols[j].nz }) end
        end
      end
      counts[#counts + 1] = table.concat(r, " ")
    end
    assert.equal("1 2 2", counts[1])     -- was "1 2 3" on the tiled meshes
    assert.equal(counts[2], counts[1])
  end)

  -- review finding (rev9, 2026-11-30): the tie window was 2^-30 in t whatever the move's length,
  -- so a face up to 2^-30 |d| farther along the move than an edge met first won (lower rank), and
  -- the sweep's t left the mover inside the edge (7.2e-6 deep at |d| = 1e4). A sphere meets a
  -- fin's top edge at t = s, the floor of the same mesh g |d| farther: the edge wins, the sphere
  -- is not inside it at t. Fails before (s = 0.25 always; s = 0 since the start contacts' ranks).
  it("meets an edge before a face a little farther along a long move, and stays out of the edge", function()
    local r, g = 0.5, 9e-10
    for _, s in ipairs { 0, 0.25 } do
      for _, D in ipairs { 1, 100, 10000 } do
        local h = r + (s + g) * D
        local ey = h - 0.4 - s * D
        local w = collide.World()
        w:add("mesh", collide.Mesh({ 0.3, ey, -5, 0.3, ey, 5, 0.3, ey - 1, 0,
                                     -10, 0, -10, -10, 0, 10, 10, 0, 10,  -10, 0, -10, 10, 0, 10, 10, 0, -10 }))
        local it, t, nx, ny = w:sweep(collide.Sphere(0, h, 0, r), 0, -D, 0)
        assert.equal("mesh", it)
        assert.is_true(math.abs(t - s) <= 1e-12, ("s %g D %g: t %.17g"):format(s, D, t))
        assert.is_true(math.abs(nx + 0.6) < 1e-9 and math.abs(ny - 0.8) < 1e-9, ("n %.17g %.17g"):format(nx, ny))
        local cy = h - t * D
        assert.is_true(r - math.sqrt(0.09 + (cy - ey) ^ 2) <= 1e-12 * (1 + D), ("s %g D %g: inside the edge"):format(s, D))
      end
    end
  end)

  it("touches a tile at the start with the face's own normal, across the edge it shares with the next", function()
    -- two tiles of the floor y = 0 sharing the edge x = 0, the tile past the edge listed first; a
    -- sphere or capsule resting on the other tile (within the rounding allowance of touching), a
    -- hair before the edge, moving into the floor: t = 0 with the normal (0, 1, 0) exactly (it was
    -- the tilted direction to the shared edge, (-2 eps, 1, 0), from the first tile)
    local m = collide.Mesh({ 0, 0, -1, 1, 0, -1, 0, 0, 1,   1, 0, -1, 1, 0, 1, 0, 0, 1,
                             -1, 0, -1, 0, 0, -1, -1, 0, 1,  0, 0, -1, 0, 0, 1, -1, 0, 1 })
    local w = collide.World()
    w:add("floor", m)
    for _, eps in ipairs { 3e-12, 1e-11, 1e-9, 1e-6 } do
      local y = 0.5 - 1e-13
      for _, sh in ipairs { collide.Sphere(-eps, y, 0, 0.5), collide.Capsule(-eps, y, 0, -eps - 0.5, y, 0.2, 0.5) } do
        local it, t, nx, ny, nz = w:sweep(sh, 1, -0.5, 0)
        assert.equal("floor", it)
        assert.equal(0, t)
        assert.same({ 0, 1, 0 }, { nx, ny, nz })
      end
    end
  end)

  it("climbs a step a little higher than the floor (1e-10 to 1e-9 of the radius) instead of stopping at it for good", function()
    -- a tile of y = 0 and, past the edge x = 0, a tile higher by h: a sphere or capsule of radius
    -- 0.5 resting on the first tile moves 4 along x. It meets the step's edge with a normal tilted
    -- by about sqrt(2 h / r) from the face's: within the face-snap rule's 1e-9 in cosine, which
    -- made it the face's own normal (0, 1, 0), square to the move: the slide kept the move as it
    -- was and met the edge again, so world:move stopped at the edge (x 1.99999) and a Character
    -- never moved again (2e-7 a move). The face's normal is taken only when it opposes the move;
    -- here the contact keeps its own normal and the slide rises over the edge, by about
    -- |d| sqrt(2 h / r) as over any higher step.
    for _, h in ipairs { 1e-10, 2e-10, 4e-10, 1e-9 } do
      local v = { -10, 0, -10, 0, 0, -10, 0, 0, 10, -10, 0, 10,   0, h, -10, 10, h, -10, 10, h, 10, 0, h, 10 }
      local m = collide.Mesh(v, { 1, 3, 2, 1, 4, 3, 5, 7, 6, 5, 8, 7 })
      for _, kind in ipairs { "Sphere", "Capsule" } do
        local function shape() return kind == "Sphere" and collide.Sphere(-2, 0.5, 0, 0.5) or collide.Capsule(-2, 0.5, 0, -2, 1.5, 0, 0.5) end
        local w = collide.World()
        w:add("floor", m)
        w:add("p", shape())
        local ax, ay, az, _, n = w:move("p", 4, 0, 0)
        assert.is_true(math.abs(ax - 4) < 1e-6 and az == 0, ("%s h %g: moved %.17g %.17g"):format(kind, h, ax, az))
        assert.is_true(n >= 1 and ay >= h - 1e-12 and ay <= 4 * math.sqrt(2 * h / 0.5) * 1.5, ("%s h %g: rose %.17g"):format(kind, h, ay))
        local w2 = collide.World()
        w2:add("floor", m)
        w2:add("p", shape())
        local ch = collide.Character(w2, "p")
        for i = 1, 3 do
          local bx = ch:move(4, -0.1, 0)
          assert.is_true(math.abs(bx - 4) < 1e-9, ("%s h %g: character move %d went %.17g"):format(kind, h, i, bx))
        end
        assert.is_true(ch:grounded())
      end
    end
  end)

  it("stops a capsule Character pushed square into a too-steep ramp the same way whatever its triangles' vertex order", function()
    -- the ramp y = 1.2 x (50.2 degrees: a wall for the default maxslope of 50) as one triangle
    -- pair, each triangle's vertices listed from each of its corners; the move (1.5, -1.25, 0) is
    -- square to it, so the plain slide left after the contact is rounding dust. Its sign decided
    -- whether that slide "climbed" (then the ramp was taken for a wall: the move's fall slid the
    -- character down the ramp, 0.7548 -1.0695, 2 collisions) or not (0.9714 -0.8095, 1), by the
    -- vertex order (review rev9's F5). A climb within 2^-40 of the motion is not one now
    local P = { { 0, 0, 0 }, { 16, 19.2, 0 }, { 0, 0, 16 }, { 16, 19.2, 16 } }
    local first
    for r1 = 0, 2 do
      for r2 = 0, 2 do
        local t1, t2 = { 1, 2, 4 }, { 1, 4, 3 }
        for _ = 1, r1 do t1 = { t1[2], t1[3], t1[1] } end
        for _ = 1, r2 do t2 = { t2[2], t2[3], t2[1] } end
        local v = {}
        for _, t in ipairs { t1, t2 } do for _, i in ipairs(t) do for c = 1, 3 do v[#v + 1] = P[i][c] end end end
        local w = collide.World()
        w:add("ramp", collide.Mesh(v), 0.5, -1, 0.25)
        w:add("m", collide.Capsule(10.499999999546072, 13.599999999455285, 6.4485097927170703,
                                   10.499999999546072, 14.599999999455285, 6.4485097927170703, 0.4))
        local ch = collide.Character(w, "m")
        local ax, ay, az, _, n = ch:move(1.5, -1.25, 0)
        local got = { ax, ay, az, n }
        if not first then first = got end
        assert.is_true(math.abs(ax - first[1]) < 1e-9 and math.abs(ay - first[2]) < 1e-9 and az == 0 and n == first[4],
          ("rotations %d %d: %.17g %.17g %d, first %.17g %.17g %d"):format(r1, r2, ax, ay, n, first[1], first[2], first[4]))
      end
    end
    assert.is_true(math.abs(first[1] - 0.6476 * 1.5) < 1e-3 and first[4] == 1)
  end)
end)

describe("a sphere or capsule sliding along a tilted mesh quad", function()
  it("does not sink into it by slides that each close a little on it, nor stop there for good", function()
    -- 400 slides of 0.05 along the face, each closing 1/100 of the triangles' rounding allowance
    -- (2^-42 of the coordinates; a start deeper than it is inside). A path going no deeper than the
    -- allowance had no contact: the mover sank to it, then a sphere met the triangle at t = 0 on
    -- every leg (16 collisions, nothing made) for good and a capsule made nothing; now a path going
    -- deeper than half of it is a contact (as sweep.c's deep_end for the other kinds)
    local n = { 0.48375985805596916, 0.68198449800167993, 0.54851941097746515 }
    local u = { 0.81563646666503031, -0.57856473643507267, 0 }
    local v = { n[2] * u[3] - n[3] * u[2], n[3] * u[1] - n[1] * u[3], n[1] * u[2] - n[2] * u[1] }
    local function P(a, b) return 3 + a * u[1] + b * v[1], 3 + a * u[2] + b * v[2], 3 + a * u[3] + b * v[3] end
    local vs = {}
    for _, ab in ipairs { { -50, -50 }, { 50, -50 }, { 50, 50 }, { -50, 50 } } do
      local x, y, z = P(ab[1], ab[2])
      vs[#vs + 1], vs[#vs + 2], vs[#vs + 3] = x, y, z
    end
    local mesh = collide.Mesh(vs, { 1, 2, 3, 1, 3, 4 })
    local A = 60.1 * 2 ^ -42            -- the allowance: the triangles reach 59.6 out, the radius 0.5
    for _, kind in ipairs { "sphere", "capsule" } do
      local w = collide.World()
      w:add("floor", mesh)
      local cx, cy, cz = P(0.3, 0.2)
      cx, cy, cz = cx + n[1] * 0.5, cy + n[2] * 0.5, cz + n[3] * 0.5
      if kind == "sphere" then
        w:add("m", collide.Sphere(cx, cy, cz, 0.5))
      else
        w:add("m", collide.Capsule(cx - u[1] * 0.3, cy - u[2] * 0.3, cz - u[3] * 0.3,
                                   cx + u[1] * 0.3, cy + u[2] * 0.3, cz + u[3] * 0.3, 0.5))
      end
      local function depth()
        local a, b, c, d, e, f = w:shape("m"):aabb():bounds()
        return 0.5 - (((a + d) / 2 - 3) * n[1] + ((b + e) / 2 - 3) * n[2] + ((c + f) / 2 - 3) * n[3])
      end
      local deepest = -math.huge
      for k = 1, 400 do
        local ax, ay, az = w:move("m", u[1] * 0.05 - n[1] * A / 100, u[2] * 0.05 - n[2] * A / 100, u[3] * 0.05 - n[3] * A / 100)
        local made = (ax * u[1] + ay * u[2] + az * u[3]) / 0.05
        assert.is_true(made > 0.999, ("%s, slide %d: made %.6f of it"):format(kind, k, made))
        deepest = math.max(deepest, depth())
      end
      assert.is_true(deepest < 0.6 * A, ("%s: %.3f of the allowance deep"):format(kind, deepest / A))
      local _, _, _, cols, nc = w:move("m", -n[1], -n[2], -n[3])
      assert.are.equal(1, nc)
      assert.are.equal("floor", cols[1].other)
    end
  end)
end)

describe("spheres and capsules resting on random tilted mesh quads and tiled floors", function()
  it("slide along them by slides each closing on them a little, never short and never through", function()
    -- the floor at scales 1..3e5 as one quad or 4 x 4 tiles; the mover placed 0..0.9 of the allowance
    -- (2^-42 of its coordinates, at most every triangle's) deep; 200 slides along the face (turning
    -- back every 50), each closing C allowances on it (C of 0..1, or lifting); then a push into it
    -- must meet it. Before ts_sink: 1,680 short slides in 400 seeds (16-leg stalls, moves backed off to nothing)
    local seeds = os.getenv("COLLIDE_QUICK") and 20 or 60
    for seed = 1, seeds do
      local rng = require("support.gen").new(3450 + seed)
      local function R(a, b) return a + (b - a) * rng:float() end
      local function norm(x, y, z) local l = math.sqrt(x * x + y * y + z * z); return x / l, y / l, z / l end
      local nx, ny, nz = norm(R(-1, 1), R(0.3, 1), R(-1, 1))
      local ux, uy, uz = norm(ny, -nx, 0)
      if R(0, 1) < 0.5 then
        local k = nx
        ux, uy, uz = norm(1 - k * nx, -k * ny, -k * nz)
      end
      local vx, vy, vz = ny * uz - nz * uy, nz * ux - nx * uz, nx * uy - ny * ux
      local S = ({ 1, 8, 60, 1000, 3e5 })[1 + math.floor(R(0, 5))]
      local ox, oy, oz = R(-S, S), R(-S, S), R(-S, S)
      local H = R(0, 1) < 0.5 and 5 or 50
      local k = R(0, 1) < 0.5 and 4 or 1
      local vs, idx = {}, {}
      for j = 0, k do
        for i = 0, k do
          local a, b = -H + 2 * H * i / k, -H + 2 * H * j / k
          vs[#vs + 1], vs[#vs + 2], vs[#vs + 3] = ox + a * ux + b * vx, oy + a * uy + b * vy, oz + a * uz + b * vz
        end
      end
      for j = 0, k - 1 do
        for i = 0, k - 1 do
          local a, b = j * (k + 1) + i + 1, j * (k + 1) + i + 2
          for _, x in ipairs { a, b, b + k + 1, a, b + k + 1, a + k + 1 } do idx[#idx + 1] = x end
        end
      end
      local r = R(0.2, 1)
      local p0, q0 = R(-H * 0.3, H * 0.3), R(-H * 0.3, H * 0.3)
      local px, py, pz = ox + p0 * ux + q0 * vx + nx * r, oy + p0 * uy + q0 * vy + ny * r, oz + p0 * uz + q0 * vz + nz * r
      local A = (math.max(math.abs(px), math.abs(py), math.abs(pz)) + r) * 2 ^ -42
      local dep = R(0, 0.9) * A
      local cx, cy, cz = px - nx * dep, py - ny * dep, pz - nz * dep
      local w = collide.World()
      w:add("floor", collide.Mesh(vs, idx))
      local capsule = R(0, 1) < 0.5
      if capsule then
        local hl = R(0.1, 1)
        w:add("m", collide.Capsule(cx - ux * hl, cy - uy * hl, cz - uz * hl, cx + ux * hl, cy + uy * hl, cz + uz * hl, r))
      else
        w:add("m", collide.Sphere(cx, cy, cz, r))
      end
      local al, be = R(-1, 1), R(-1, 1)
      local dx, dy, dz = norm(al * ux + be * vx, al * uy + be * vy, al * uz + be * vz)
      local C = ({ 0, 0.01, 0.05, 0.3, 1, -0.01 })[1 + math.floor(R(0, 6))]
      local L = H / 400
      local what = ("seed %d, %s, %d x %d tiles, scale %g, closing %g"):format(seed, capsule and "capsule" or "sphere", k, k, S, C)
      for s = 1, 200 do
        local sg = math.floor((s - 1) / 50) % 2 == 0 and 1 or -1
        local ax, ay, az = w:move("m", sg * dx * L - nx * C * A, sg * dy * L - ny * C * A, sg * dz * L - nz * C * A)
        local made = sg * (ax * dx + ay * dy + az * dz) / L
        assert.is_true(made > 0.999, ("%s: slide %d made %.6f of it"):format(what, s, made))
      end
      local _, _, _, _, n = w:move("m", -nx * r, -ny * r, -nz * r)
      assert.is_true(n >= 1, what .. ": pushed through")
    end
  end)
end)
