-- collide.Mesh: a static triangle mesh with its own bounding volume hierarchy. Exact values, the
-- constructor's validation and every method's errors, __tostring/__eq/collide.type, out tables,
-- watertightness (rays aimed exactly at shared edges and vertices of grids always hit), and a
-- differential against a pure-Lua brute-force reference over every triangle (Moller-Trumbore,
-- polygon clipping, projected closest points) on random meshes: triangle soups with degenerate
-- triangles and height fields, rays through vertices, along edges and at edge midpoints.
-- The reference classifies each triangle with a margin (surely hit, surely missed, too close to
-- call), and the mesh's answer must agree with every sure classification.
local collide = require "collide"
local errof = require("support.util").errmsg

local QUICK = os.getenv("COLLIDE_QUICK") ~= nil
local function iters(n) return QUICK and math.ceil(n / 4) or n end
local unpack = table.unpack or unpack
local EPS = 1e-9

-- ---------------------------------------------------------------- reference (pure Lua)

local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function add(a, b) return { a[1] + b[1], a[2] + b[2], a[3] + b[3] } end
local function mul(a, s) return { a[1] * s, a[2] * s, a[3] * s } end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
local function len(a) return math.sqrt(dot(a, a)) end

-- The triangles of a mesh as {a, b, c} vertex tables, from the same arrays given to collide.Mesh.
local function triangles(v, idx)
  local tris = {}
  local function vert(k) return { v[3 * k - 2], v[3 * k - 1], v[3 * k] } end
  if idx then
    for i = 1, #idx / 3 do tris[i] = { vert(idx[3 * i - 2]), vert(idx[3 * i - 1]), vert(idx[3 * i]) } end
  else
    for i = 1, #v / 9 do tris[i] = { vert(3 * i - 2), vert(3 * i - 1), vert(3 * i) } end
  end
  return tris
end

local function degenerate(t)
  local n = cross(sub(t[2], t[1]), sub(t[3], t[1]))
  return n[1] == 0 and n[2] == 0 and n[3] == 0
end

-- Moller-Trumbore on ray o + s*d (d unit): "hit", t | "miss" | "maybe", t (within EPS of an edge
-- in barycentric terms, of t = 0, or nearly parallel).
local function refray(t, o, d)
  local e1, e2 = sub(t[2], t[1]), sub(t[3], t[1])
  local p = cross(d, e2)
  local det = dot(e1, p)
  if math.abs(det) <= 1e-7 * len(e1) * len(e2) then return "maybe" end  -- t unknown
  local s = sub(o, t[1])
  local u = dot(s, p) / det
  local q = cross(s, e1)
  local v = dot(d, q) / det
  local tt = dot(e2, q) / det
  local w = 1 - u - v
  if u < -EPS or v < -EPS or w < -EPS or tt < -EPS then return "miss" end
  if u > EPS and v > EPS and w > EPS and tt > EPS then return "hit", tt end
  return "maybe", tt
end

-- Closest point of segment ab to p.
local function segclosest(p, a, b)
  local ab = sub(b, a)
  local l = dot(ab, ab)
  local s = l > 0 and dot(sub(p, a), ab) / l or 0
  s = s < 0 and 0 or (s > 1 and 1 or s)
  return add(a, mul(ab, s))
end

-- Closest point of triangle t to p: the plane projection when inside, else the nearest edge point.
local function refclosest(t, p)
  local a, b, c = t[1], t[2], t[3]
  local n = cross(sub(b, a), sub(c, a))
  local nn = dot(n, n)
  if nn > 0 then
    local q = sub(p, mul(n, dot(sub(p, a), n) / nn))
    if dot(cross(sub(b, a), sub(q, a)), n) >= 0 and dot(cross(sub(c, b), sub(q, b)), n) >= 0
        and dot(cross(sub(a, c), sub(q, c)), n) >= 0 then
      return q
    end
  end
  local best, bd
  for _, e in ipairs { { a, b }, { b, c }, { c, a } } do
    local q = segclosest(p, e[1], e[2])
    local d = len(sub(q, p))
    if not bd or d < bd then best, bd = q, d end
  end
  return best
end

-- Clips polygon poly to the half-space s * x_ax <= s * k (Sutherland-Hodgman, inclusive).
local function clip(poly, ax, s, k)
  local out = {}
  for i = 1, #poly do
    local a, b = poly[i], poly[i % #poly + 1]
    local da, db = s * (a[ax] - k), s * (b[ax] - k)
    if da <= 0 then out[#out + 1] = a end
    if (da < 0 and db > 0) or (da > 0 and db < 0) then out[#out + 1] = add(a, mul(sub(b, a), da / (da - db))) end
  end
  return out
end

-- Triangle/box overlap by clipping the triangle to the box [lo, hi] grown by g on every side.
local function reftribox(t, lo, hi, g)
  local poly = { t[1], t[2], t[3] }
  for ax = 1, 3 do
    poly = clip(poly, ax, 1, hi[ax] + g)
    if #poly == 0 then return false end
    poly = clip(poly, ax, -1, lo[ax] - g)
    if #poly == 0 then return false end
  end
  return true
end

-- "yes", "no" or "maybe": does triangle t overlap the shape (a description table)?
local function refoverlap(t, sh)
  if sh.kind == "Sphere" then
    local d = len(sub(refclosest(t, sh.c), sh.c))
    if d < sh.r - EPS then return "yes" elseif d > sh.r + EPS then return "no" end
    return "maybe"
  end
  local tt, lo, hi = t, sh.lo, sh.hi
  if sh.kind == "OBB" then  -- into the box's frame
    tt = {}
    for k = 1, 3 do
      local q = sub(t[k], sh.c)
      tt[k] = { dot(q, sh.u[1]), dot(q, sh.u[2]), dot(q, sh.u[3]) }
    end
    lo, hi = mul(sh.h, -1), sh.h
  end
  local big, small = reftribox(tt, lo, hi, EPS), reftribox(tt, lo, hi, -EPS)
  if big == small then return big and "yes" or "no" end
  return "maybe"
end

-- ---------------------------------------------------------------- random data

local seed = 12345
local function rnd()  -- deterministic on every Lua: a 31-bit LCG
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local function urand(a, b) return a + (b - a) * rnd() end
local function runit()
  while true do
    local v = { urand(-1, 1), urand(-1, 1), urand(-1, 1) }
    local l = len(v)
    if l > 0.1 and l <= 1 then return mul(v, 1 / l) end
  end
end

-- A triangle soup of n triangles (no indices), with repeated-vertex and collinear triangles.
local function soup(n)
  local v = {}
  for i = 1, n do
    local c = { urand(-20, 20), urand(-20, 20), urand(-20, 20) }
    if i % 5 == 0 then c = { urand(-1, 1), urand(-1, 1), urand(-1, 1) } end
    local s = urand(0.2, 4)
    local p = {}
    for k = 1, 3 do p[k] = add(c, { urand(-s, s), urand(-s, s), urand(-s, s) }) end
    if i % 9 == 4 then p[3] = p[2] end                                    -- repeated vertex
    if i % 11 == 6 then p[3] = add(p[1], mul(sub(p[2], p[1]), 2)) end     -- collinear
    for k = 1, 3 do v[#v + 1], v[#v + 2], v[#v + 3] = p[k][1], p[k][2], p[k][3] end
  end
  return v
end

-- A height field of g x g cells (two triangles each, alternating diagonals) with the given step;
-- heights from hf(i, j).
local function grid(g, step, hf)
  local v, idx = {}, {}
  for j = 0, g do
    for i = 0, g do
      v[#v + 1], v[#v + 2], v[#v + 3] = i * step, hf(i, j), j * step
    end
  end
  for j = 0, g - 1 do
    for i = 0, g - 1 do
      local v0 = j * (g + 1) + i + 1
      local v1, v2 = v0 + 1, v0 + g + 1
      local v3 = v2 + 1
      local t = { v0, v1, v3, v0, v3, v2 }
      if (i + j) % 2 == 1 then t = { v0, v1, v2, v1, v3, v2 } end
      for k = 1, 6 do idx[#idx + 1] = t[k] end
    end
  end
  return v, idx
end

-- A random query shape near the box [lo, hi]: the collide shape and its description for the reference.
local function rshape(lo, hi, size)
  local c = { urand(lo[1], hi[1]), urand(lo[2], hi[2]), urand(lo[3], hi[3]) }
  local k = math.floor(rnd() * 3)
  if k == 0 then
    local a = sub(c, { urand(0, size), urand(0, size), urand(0, size) })
    local b = add(c, { urand(0, size), urand(0, size), urand(0, size) })
    return collide.AABB(a[1], a[2], a[3], b[1], b[2], b[3]), { kind = "AABB", lo = a, hi = b }
  elseif k == 1 then
    local box = collide.OBB(c[1], c[2], c[3], urand(0, size), urand(0, size), urand(0, size))
    box:rotate(urand(0, 6.3), urand(-1, 1), urand(-1, 1), 1)
    local ax = { box:axes() }
    return box, { kind = "OBB", c = c, h = { box:extents() },
      u = { { ax[1], ax[2], ax[3] }, { ax[4], ax[5], ax[6] }, { ax[7], ax[8], ax[9] } } }
  end
  local r = urand(0, size)
  return collide.Sphere(c[1], c[2], c[3], r), { kind = "Sphere", c = c, r = r }
end

-- Checks every query of mesh m (built from tris) against the reference on nq random queries;
-- returns the number of rays that hit.
local function differential(m, tris, nq)
  local lo, hi = { m:aabb():bounds() }, nil
  hi = { lo[4], lo[5], lo[6] }
  lo = { lo[1], lo[2], lo[3] }
  local ext = len(sub(hi, lo))
  local out, hits = {}, 0
  for q = 1, nq do
    local t = tris[math.floor(rnd() * #tris) + 1]
    local aim
    local kind = q % 4
    if kind == 0 then aim = t[1]
    elseif kind == 1 then aim = add(t[1], mul(sub(t[2], t[1]), 0.5))
    elseif kind == 2 then aim = mul(add(add(t[1], t[2]), t[3]), 1 / 3)
    else aim = { urand(lo[1], hi[1]), urand(lo[2], hi[2]), urand(lo[3], hi[3]) } end
    local o = add(aim, mul(runit(), ext * urand(0.01, 1)))
    if q % 8 == 5 then o = add(t[1], mul(sub(t[2], t[1]), -urand(0.1, 2))) end  -- on an edge's line
    local maxt = q % 5 == 0 and urand(0, ext) or math.huge
    local dv = sub(aim, o)
    if len(dv) > 0 then
      local ray = collide.Ray(o[1], o[2], o[3], dv[1], dv[2], dv[3])
      local d = { ray:direction() }
      local rt, rnx, rny, rnz, ri = m:raycast(ray, maxt)
      local surest = math.huge
      for _, tr in ipairs(tris) do
        local cls, tt = refray(tr, o, d)
        if cls == "hit" and tt <= maxt and tt < surest then surest = tt end
      end
      if rt == nil then
        assert(surest == math.huge, "ray " .. q .. ": the mesh misses a triangle the reference surely hits")
      else
        hits = hits + 1
        local cls, tt = refray(tris[ri], o, d)
        assert(cls ~= "miss" and (tt == nil or math.abs(tt - rt) <= 1e-7 * (1 + rt)),
          "ray " .. q .. ": reported triangle not hit at t")
        assert(rt <= surest + 1e-7 * (1 + rt), "ray " .. q .. ": a nearer triangle is surely hit")
        assert(rt >= 0 and rt <= maxt, "ray " .. q .. ": t within [0, maxt]")
        local tr = tris[ri]
        local n = cross(sub(tr[2], tr[1]), sub(tr[3], tr[1]))
        n = mul(n, 1 / len(n))
        if dot(n, d) > 0 then n = mul(n, -1) end
        assert(tt == nil or math.abs(rnx - n[1]) < 1e-9 and math.abs(rny - n[2]) < 1e-9 and math.abs(rnz - n[3]) < 1e-9,
          "ray " .. q .. ": normal is the triangle's, facing the ray")
      end
    end
    -- shapes: every sure answer of the reference, ascending, and overlaps agrees with query
    local shape, desc = rshape(lo, hi, ext * (q % 3 == 0 and 0.02 or 0.15))
    local res, n = m:query(shape, out)
    assert(res == out and #out == n, "query fills out")
    local got = {}
    for k = 1, n do
      assert(k == 1 or res[k] > res[k - 1], "query ascending")
      got[res[k]] = true
    end
    for i, tr in ipairs(tris) do
      if not degenerate(tr) then
        local r = refoverlap(tr, desc)
        if r == "yes" then assert(got[i], "query " .. q .. ": misses triangle " .. i) end
        if r == "no" then assert(not got[i], "query " .. q .. ": wrongly lists triangle " .. i) end
      else
        assert(not got[i], "degenerate triangles never overlap")
      end
    end
    assert(m:overlaps(shape) == (n > 0), "overlaps agrees with query")
    -- closest point to a random point
    local p = { urand(lo[1] - 1, hi[1] + 1), urand(lo[2] - 1, hi[2] + 1), urand(lo[3] - 1, hi[3] + 1) }
    local cx, cy, cz, ci = m:closest(p[1], p[2], p[3])
    local best = math.huge
    for _, tr in ipairs(tris) do
      if not degenerate(tr) then best = math.min(best, len(sub(refclosest(tr, p), p))) end
    end
    local cd = len(sub({ cx, cy, cz }, p))
    assert(math.abs(cd - best) <= 1e-9 * (1 + best), "closest: the nearest distance")
    local tr = tris[ci]
    local e1, e2 = sub(tr[2], tr[1]), sub(tr[3], tr[1])
    assert(len(cross(e1, e2)) <= 1e-9 * len(e1) * len(e2) or  -- nearly collinear: the reference is inexact
      len(sub(refclosest(tr, { cx, cy, cz }), { cx, cy, cz })) <= 1e-9 * (1 + best),
      "closest: the point lies on the reported triangle")
  end
  return hits
end

-- ---------------------------------------------------------------- specs

describe("collide.Mesh: exact values", function()
  -- the unit square in y = 0 as two triangles
  local V = { 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1 }
  local I = { 1, 2, 4, 1, 4, 3 }

  it("count, triangle, aabb, tostring, type, eq", function()
    local m = collide.Mesh(V, I)
    assert.equal(2, m:count())
    assert.same({ 0, 0, 0, 1, 0, 1, 0, 0, 1 }, { m:triangle(2) })
    assert.same({ 0, 0, 0, 1, 0, 1 }, { m:aabb():bounds() })
    assert.equal("Mesh(2 triangles, 4 vertices)", tostring(m))
    assert.equal("Mesh", collide.type(m))
    assert.equal("collide.Mesh", getmetatable(m).__name)
    assert.is_true(m == m)
    assert.is_false(m == collide.Mesh(V, I))  -- identity, not value equality
    assert.is_false(m == collide.AABB(0, 0, 0, 1, 1, 1))
  end)

  it("raycast: closest hit, t, normal facing the ray (both sides solid), triangle, maxt", function()
    local m = collide.Mesh(V, I)
    assert.same({ 2, 0, 1, 0, 2 }, { m:raycast(collide.Ray(0.25, 2, 0.75, 0, -1, 0)) })
    assert.same({ 3, 0, -1, 0, 1 }, { m:raycast(collide.Ray(0.75, -3, 0.25, 0, 1, 0)) })
    assert.is_nil(m:raycast(collide.Ray(0.25, 2, 0.75, 0, -1, 0), 1.5))
    assert.equal(2, (m:raycast(collide.Ray(0.25, 2, 0.75, 0, -1, 0), 2)))
    assert.is_nil(m:raycast(collide.Ray(0.25, 2, 0.75, 0, 1, 0)))      -- pointing away
    assert.is_nil(m:raycast(collide.Ray(-1, 0, 0.5, 1, 0, 0)))         -- in the plane
    -- the shared diagonal: both triangles are hit at the same t, the lower index wins
    assert.same({ 1, 0, 1, 0, 1 }, { m:raycast(collide.Ray(0.5, 1, 0.5, 0, -1, 0)) })
    -- a vertex shared by both
    assert.same({ 1, 0, 1, 0, 1 }, { m:raycast(collide.Ray(1, 1, 1, 0, -1, 0)) })
    -- a ray starting on a triangle hits it at t = 0, never -0 (printed "-0", 1 / t = -inf), in
    -- either direction, from the mesh and from mesh items in a World (turned too)
    local w, wt = collide.World(), collide.World()
    w:add("m", m)
    wt:add("m", m, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0)   -- local y -> world z
    for _, dy in ipairs({ -1, 1 }) do
      local r, rt = collide.Ray(0.25, 0, 0.75, 0, dy, 0), collide.Ray(0.25, -0.75, 0, 0, 0, dy)
      assert.equal(math.huge, 1 / m:raycast(r))
      assert.equal(math.huge, 1 / select(2, w:raycast(r)))
      assert.equal(math.huge, 1 / w:raycastall(r)[1].t)
      assert.equal(math.huge, 1 / select(2, wt:raycast(rt)))
    end
  end)

  it("query: ascending triangles, count, out cleared; overlaps; closest with ties to the lower index", function()
    local m = collide.Mesh(V, I)
    local out = { 7, 7, 7, 7, 7 }
    local r, n = m:query(collide.AABB(0.9, -1, 0, 2, 1, 0.05), out)
    assert.equal(out, r)
    assert.equal(1, n)
    assert.same({ 1 }, out)
    r, n = m:query(collide.Sphere(0.5, 0.5, 0.5, 0.5))     -- touches the diagonal's midpoint
    assert.same({ 1, 2 }, r)
    assert.equal(2, n)
    r, n = m:query(collide.Sphere(0.5, 0.5, 0.5, 0.4999))
    assert.same({}, r)
    assert.equal(0, n)
    assert.is_true(m:overlaps(collide.OBB(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)))
    assert.is_false(m:overlaps(collide.OBB(0.5, 0.5001, 0.5, 0.5, 0.5, 0.5)))
    assert.same({ 1, 0, 1, 1 }, { m:closest(2, 3, 2) })
    assert.same({ 0.25, 0, 0.75, 2 }, { m:closest(0.25, -5, 0.75) })
  end)

  it("vertices taken three at a time without indices; degenerate triangles are kept but never hit", function()
    local m = collide.Mesh { 0, 0, 0, 1, 0, 0, 0, 0, 1,   0, 0, 0, 1, 0, 0, 2, 0, 0,   5, 5, 5, 5, 5, 5, 6, 6, 6 }
    assert.equal(3, m:count())
    assert.same({ 0, 0, 0, 1, 0, 0, 2, 0, 0 }, { m:triangle(2) })
    assert.is_nil(m:raycast(collide.Ray(5, 10, 5, 0, -1, 0)))
    assert.same({ 1 }, (m:query(collide.AABB(-1, -1, -1, 9, 9, 9))))
    assert.same({ 0.5, 0, 0, 1 }, { m:closest(0.5, 0, -3) })
    local flat = collide.Mesh { 0, 0, 0, 1, 1, 1, 2, 2, 2 }
    assert.is_nil(flat:closest(0, 0, 0))
    assert.is_nil(flat:raycast(collide.Ray(0, 5, 0, 0, -1, 0)))
    assert.is_false(flat:overlaps(collide.Sphere(0, 0, 0, 10)))
  end)
end)

describe("collide.Mesh: errors", function()
  local m = collide.Mesh { 0, 0, 0, 1, 0, 0, 0, 1, 0 }
  it("malformed meshes", function()
    local cases = {
      { "bad argument #1 to 'Mesh' (table expected, got nil)" },
      { "bad argument #1 to 'Mesh' (table expected, got number)", 5 },
      { "bad argument #1 to 'Mesh' (mesh has no vertices)", {} },
      { "bad argument #1 to 'Mesh' (vertex coordinate count is not a multiple of 3)", { 1, 2, 3, 4 } },
      { "bad argument #1 to 'Mesh' (vertex count is not a multiple of 3 (no indices given))", { 1, 2, 3, 4, 5, 6 } },
      { "bad argument #1 to 'Mesh' (vertex coordinate 5 is not finite)", { 0, 0, 0, 1, 0 / 0, 0, 0, 1, 0 } },
      { "bad argument #1 to 'Mesh' (vertex coordinate 9 is not finite)", { 0, 0, 0, 1, 0, 0, 0, 1, math.huge } },
      { "bad argument #1 to 'Mesh' (vertex coordinate 2 is not a number)", { 0, "x", 0, 1, 0, 0, 0, 1, 0 } },
      { "bad argument #2 to 'Mesh' (table expected, got string)", { 0, 0, 0 }, "1,1,1" },
      { "bad argument #2 to 'Mesh' (mesh has no triangles)", { 0, 0, 0 }, {} },
      { "bad argument #2 to 'Mesh' (index count is not a multiple of 3)", { 0, 0, 0 }, { 1, 1 } },
      { "bad argument #2 to 'Mesh' (index 3 is out of range (1 to 1))", { 0, 0, 0 }, { 1, 1, 2 } },
      { "bad argument #2 to 'Mesh' (index 1 is out of range (1 to 1))", { 0, 0, 0 }, { 0, 1, 1 } },
      { "bad argument #2 to 'Mesh' (index 2 is not an integer)", { 0, 0, 0 }, { 1, 1.5, 1 } },
      { "bad argument #2 to 'Mesh' (index 3 is not an integer)", { 0, 0, 0 }, { 1, 1, "a" } },
      { "bad argument #2 to 'Mesh' (index 1 is not an integer)", { 0, 0, 0 }, { 0 / 0, 1, 1 } },
    }
    for _, c in ipairs(cases) do
      assert.equal(c[1], errof(collide.Mesh, c[2], c[3]))
    end
  end)

  it("methods", function()
    local ray = collide.Ray(0, 0, 1, 0, 0, -1)
    assert.equal("bad argument #1 to 'count' (collide.Mesh expected, got collide.AABB)",
      errof(m.count, collide.AABB(0, 0, 0, 1, 1, 1)))
    assert.equal("bad argument #2 to 'triangle' (triangle index out of range)", errof(m.triangle, m, 2))
    assert.equal("bad argument #2 to 'triangle' (triangle index out of range)", errof(m.triangle, m, 0))
    assert.equal("bad argument #2 to 'triangle' (number has no integer representation)", errof(m.triangle, m, 1.5))
    assert.equal("bad argument #2 to 'triangle' (number expected, got no value)", errof(m.triangle, m))
    assert.equal("bad argument #2 to 'raycast' (collide.Ray expected, got collide.Mesh)", errof(m.raycast, m, m))
    assert.equal("bad argument #3 to 'raycast' (limit is negative)", errof(m.raycast, m, ray, -1))
    assert.equal("bad argument #2 to 'overlaps' (collide.AABB, collide.OBB, collide.Sphere or collide.Capsule expected, got no value)",
      errof(m.overlaps, m))
    assert.equal("bad argument #3 to 'query' (table expected, got number)",
      errof(m.query, m, collide.Sphere(0, 0, 0, 1), 5))
    assert.equal("bad argument #4 to 'closest' (number is not finite)", errof(m.closest, m, 0, 0, 0 / 0))
    assert.equal("bad argument #1 to 'aabb' (collide.Mesh expected, got table)", errof(m.aabb, {}))
    assert.equal("bad argument #1 to '__tostring' (collide.Mesh expected, got table)",
      errof(getmetatable(m).__tostring, {}))
    -- __gc called by hand on anything, twice on a mesh: nothing happens, the mesh still works
    getmetatable(m).__gc({})
    assert.equal(1, m:count())
  end)
end)

describe("collide.Mesh: watertight", function()
  it("rays aimed exactly at grid vertices and points of shared edges never miss", function()
    for _, spec in ipairs {
      { 1 / 3, function() return 0 end },
      { 0.1, function(i, j) return ((i * 7 + j * 13) % 5) * 0.01 end },
      { 0.37, function(i, j) return math.sin(i * 0.9) * math.cos(j * 1.3) * 0.05 end },
    } do
      local g, step = 12, spec[1]
      local v, idx = grid(g, step, spec[2])
      local m = collide.Mesh(v, idx)
      for q = 1, iters(2000) do
        local i, j = 1 + math.floor(rnd() * (g - 1)), 1 + math.floor(rnd() * (g - 1))
        local k = 3 * (j * (g + 1) + i)
        local aim = { v[k + 1], v[k + 2], v[k + 3] }
        if q % 2 == 0 then  -- a point of a mesh edge to a neighbour (a cell's diagonal when it is one)
          local di, dj = unpack(({ { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 }, { 1, 1 }, { -1, -1 }, { 1, -1 }, { -1, 1 } })[1 + q % 8])
          if di ~= 0 and dj ~= 0 then
            local ci, cj = di > 0 and i or i - 1, dj > 0 and j or j - 1
            if (di == dj) ~= ((ci + cj) % 2 == 0) then dj = 0 end  -- the other diagonal: along x
          end
          local k2 = 3 * ((j + dj) * (g + 1) + (i + di))
          local s = rnd()
          aim = add(aim, mul(sub({ v[k2 + 1], v[k2 + 2], v[k2 + 3] }, aim), s))
        end
        -- from above, steeper than every slope: the ray crosses the surface at aim
        local dx, dz = urand(-0.02, 0.02), urand(-0.02, 0.02)
        if step == 1 / 3 then dx, dz = urand(-3, 3), urand(-3, 3) end
        local ray = collide.Ray(aim[1] - dx, aim[2] + 1, aim[3] - dz, dx, -1, dz)
        assert(m:raycast(ray), "a ray through a shared edge or vertex slipped through")
      end
    end
  end)
end)

describe("collide.Mesh: differential against brute force over every triangle", function()
  it("triangle soups with degenerate triangles (no indices)", function()
    for _, n in ipairs { 1, 2, 7, 60, 250 } do
      local v = soup(n)
      local m = collide.Mesh(v)
      assert.equal(n, m:count())
      differential(m, triangles(v), iters(n <= 7 and 100 or 150))
    end
  end)

  it("height fields (indexed): rays through vertices, along and across shared edges", function()
    for _, spec in ipairs {
      { 8, 1, function(i, j) return (i * 3 + j * 5) % 3 end },
      { 12, 0.5, function() return urand(-0.3, 0.3) end },
    } do
      local v, idx = grid(spec[1], spec[2], spec[3])
      local m = collide.Mesh(v, idx)
      local hits = differential(m, triangles(v, idx), iters(200))
      assert.is_true(hits > 0)
    end
  end)

  it("a 20,000-triangle mesh (a few queries: the reference is slow)", function()
    local v, idx = grid(100, 0.25, function() return urand(-0.5, 0.5) end)
    local m = collide.Mesh(v, idx)
    assert.equal(20000, m:count())
    differential(m, triangles(v, idx), iters(4))
  end)
end)
