-- Brute-force pure-Lua reference World for the World specs.
--
-- Shapes are plain tables. Every geometric answer is three-valued where rounding could matter:
-- true / false when the answer is certain, nil when the case is ill-conditioned (the exact answer
-- depends on rounding, e.g. a rotated box touching another within 1e-9). Computations on data that
-- lies on a coarse grid (multiples of 1/4, small magnitudes) with axis-aligned boxes are exact in
-- doubles, so those answers are always certain: that is where touching cases are checked exactly.
--
-- Self-contained on purpose (independent of the implementation and of spec/support/ref.lua).

local R = {}

local abs, sqrt, huge, floor = math.abs, math.sqrt, math.huge, math.floor
local TOL = 1e-9

R.TOL = TOL

-- true when x is a multiple of 1/4 of magnitude < 2^20 (products and sums of such stay exact).
local function grid(x)
  return abs(x) < 1048576 and x * 4 == floor(x * 4)
end
R.grid = grid

---------------------------------------------------------------------------------------------
-- shapes

-- Returns an AABB shape table.
function R.aabb(x0, y0, z0, x1, y1, z1)
  return { kind = "AABB", lo = { x0, y0, z0 }, hi = { x1, y1, z1 } }
end

-- Returns a Sphere shape table.
function R.sphere(cx, cy, cz, r)
  return { kind = "Sphere", c = { cx, cy, cz }, r = r }
end

-- Returns an OBB shape table; axes is a list of three 3-vectors (default world axes).
function R.obb(cx, cy, cz, hx, hy, hz, axes)
  axes = axes or { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
  return { kind = "OBB", c = { cx, cy, cz }, h = { hx, hy, hz }, ax = axes }
end

-- Returns a ray table {o=, d=} (d used as given: pass the implementation's normalised direction).
function R.ray(ox, oy, oz, dx, dy, dz)
  return { o = { ox, oy, oz }, d = { dx, dy, dz } }
end

-- Returns the shape table equal to a collide AABB/OBB/Sphere userdata (or a ray table for a Ray).
function R.fromshape(u)
  local collide = require "collide"
  local k = collide.type(u)
  if k == "AABB" then
    return R.aabb(u:bounds())
  elseif k == "Sphere" then
    local x, y, z = u:center()
    return R.sphere(x, y, z, u:radius())
  elseif k == "OBB" then
    local cx, cy, cz = u:center()
    local hx, hy, hz = u:extents()
    local a = { u:axes() }
    return R.obb(cx, cy, cz, hx, hy, hz,
      { { a[1], a[2], a[3] }, { a[4], a[5], a[6] }, { a[7], a[8], a[9] } })
  elseif k == "Ray" then
    local ox, oy, oz = u:origin()
    return R.ray(ox, oy, oz, u:direction())
  end
  error("fromshape: not a shape: " .. tostring(u))
end

-- Returns the AABB table an OBB equals exactly when its axes are a signed permutation of the
-- world axes (nil otherwise); AABBs return themselves; spheres nil.
local function axisbox(s)
  if s.kind == "AABB" then return s end
  if s.kind ~= "OBB" then return nil end
  if s.abox ~= nil then return s.abox or nil end
  local ext = { 0, 0, 0 }
  for k = 1, 3 do
    local a = s.ax[k]
    local nz = 0
    for i = 1, 3 do
      if a[i] ~= 0 then
        if a[i] ~= 1 and a[i] ~= -1 then s.abox = false; return nil end
        nz = nz + 1
        ext[i] = s.h[k]
      end
    end
    if nz ~= 1 then s.abox = false; return nil end
  end
  local c = s.c
  s.abox = R.aabb(c[1] - ext[1], c[2] - ext[2], c[3] - ext[3], c[1] + ext[1], c[2] + ext[2], c[3] + ext[3])
  return s.abox
end
R.axisbox = axisbox

-- Returns true when every number of the shape is on the grid (exact arithmetic).
local function exactshape(s)
  local b = axisbox(s)
  if b then
    for i = 1, 3 do if not (grid(b.lo[i]) and grid(b.hi[i])) then return false end end
    return true
  end
  if s.kind == "Sphere" then
    return grid(s.c[1]) and grid(s.c[2]) and grid(s.c[3]) and grid(s.r)
  end
  return false
end
R.exactshape = exactshape

-- Returns the box of a shape in a generic frame: centre c, half sizes h, axes (world axes for an AABB).
local WORLD = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
local function boxframe(s)
  if s.kind == "OBB" then return s.c, s.h, s.ax end
  local lo, hi = s.lo, s.hi
  return { (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2, (lo[3] + hi[3]) / 2 },
         { (hi[1] - lo[1]) / 2, (hi[2] - lo[2]) / 2, (hi[3] - lo[3]) / 2 }, WORLD
end

local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
local function cross(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end

-- Returns the tight AABB table of a shape.
function R.aabbof(s)
  if s.bb then return s.bb end
  s.bb = R.aabbof_(s)
  return s.bb
end

function R.aabbof_(s)
  local b = axisbox(s)
  if b then return b end
  if s.kind == "Sphere" then
    local c, r = s.c, s.r
    return R.aabb(c[1] - r, c[2] - r, c[3] - r, c[1] + r, c[2] + r, c[3] + r)
  end
  local e = {}
  for i = 1, 3 do
    e[i] = abs(s.ax[1][i]) * s.h[1] + abs(s.ax[2][i]) * s.h[2] + abs(s.ax[3][i]) * s.h[3]
  end
  local c = s.c
  return R.aabb(c[1] - e[1], c[2] - e[2], c[3] - e[3], c[1] + e[1], c[2] + e[2], c[3] + e[3])
end

-- Returns a copy of the shape moved by d.
function R.translated(s, d)
  if s.kind == "AABB" then
    return R.aabb(s.lo[1] + d[1], s.lo[2] + d[2], s.lo[3] + d[3], s.hi[1] + d[1], s.hi[2] + d[2], s.hi[3] + d[3])
  elseif s.kind == "Sphere" then
    return R.sphere(s.c[1] + d[1], s.c[2] + d[2], s.c[3] + d[3], s.r)
  end
  return R.obb(s.c[1] + d[1], s.c[2] + d[2], s.c[3] + d[3], s.h[1], s.h[2], s.h[3], s.ax)
end

-- Returns three-valued (true/false/nil) comparison v <= 0 with a band of half-width tol around 0.
local function le0(v, tol, exact)
  if exact then return v <= 0 end
  if v < -tol then return true end
  if v > tol then return false end
  return nil
end

-- Returns the closest point of a box (any frame) to p and the distance squared.
local function boxclosest(s, p)
  local b = axisbox(s)
  if b then
    local q = {}
    for i = 1, 3 do
      local v = p[i]
      if v < b.lo[i] then v = b.lo[i] elseif v > b.hi[i] then v = b.hi[i] end
      q[i] = v
    end
    local dd = sub(p, q)
    return q, dot(dd, dd)
  end
  local c, h, ax = boxframe(s)
  local d = sub(p, c)
  local q = { c[1], c[2], c[3] }
  local d2 = 0
  for k = 1, 3 do
    local l = dot(d, ax[k])
    local cl = l
    if cl < -h[k] then cl = -h[k] elseif cl > h[k] then cl = h[k] end
    d2 = d2 + (l - cl) * (l - cl)
    for i = 1, 3 do q[i] = q[i] + cl * ax[k][i] end
  end
  return q, d2
end

---------------------------------------------------------------------------------------------
-- static tests (inclusive)

-- Returns true/false/nil (ill-conditioned): point inside or on the shape.
function R.contains(s, x, y, z)
  local p = { x, y, z }
  local pexact = grid(x) and grid(y) and grid(z)
  local b = axisbox(s)
  if b then
    if pexact and exactshape(s) then
      return x >= b.lo[1] and x <= b.hi[1] and y >= b.lo[2] and y <= b.hi[2] and z >= b.lo[3] and z <= b.hi[3]
    end
    local m = -huge
    for i = 1, 3 do m = math.max(m, b.lo[i] - p[i], p[i] - b.hi[i]) end
    return le0(m, TOL * (1 + abs(x) + abs(y) + abs(z)))
  end
  if s.kind == "Sphere" then
    local d = sub(p, s.c)
    local v = dot(d, d) - s.r * s.r
    return le0(v, TOL * (1 + dot(d, d) + s.r * s.r), pexact and exactshape(s))
  end
  local d = sub(p, s.c)
  local m = -huge
  for k = 1, 3 do m = math.max(m, abs(dot(d, s.ax[k])) - s.h[k]) end
  return le0(m, TOL * (1 + abs(x) + abs(y) + abs(z)))
end

-- Returns the SAT separation of two boxes (max over the 15 axes of gap, negative = depth),
-- the axis list entries {L = unit axis, sep =} when wanted.
local function satsep(a, b, wantaxes)
  local ca, ha, xa = boxframe(a)
  local cb, hb, xb = boxframe(b)
  local T = sub(cb, ca)
  local axes = {}
  for k = 1, 3 do axes[#axes + 1] = xa[k] end
  for k = 1, 3 do axes[#axes + 1] = xb[k] end
  for i = 1, 3 do
    for j = 1, 3 do
      local L = cross(xa[i], xb[j])
      local l2 = dot(L, L)
      if l2 > 1e-12 then
        local l = sqrt(l2)
        axes[#axes + 1] = { L[1] / l, L[2] / l, L[3] / l }
      end
    end
  end
  local best, list = -huge, wantaxes and {} or nil
  for n = 1, #axes do
    local L = axes[n]
    local ra = ha[1] * abs(dot(xa[1], L)) + ha[2] * abs(dot(xa[2], L)) + ha[3] * abs(dot(xa[3], L))
    local rb = hb[1] * abs(dot(xb[1], L)) + hb[2] * abs(dot(xb[2], L)) + hb[3] * abs(dot(xb[3], L))
    local s = abs(dot(T, L)) - ra - rb
    if s > best then best = s end
    if list then list[#list + 1] = { L = L, sep = s } end
  end
  return best, list
end

local function scaleof(a, b)
  local A, B = R.aabbof(a), R.aabbof(b)
  local m = 1
  for i = 1, 3 do m = math.max(m, abs(A.lo[i]), abs(A.hi[i]), abs(B.lo[i]), abs(B.hi[i])) end
  return m
end

-- Returns true/false/nil (ill-conditioned): shapes overlap (inclusive).
function R.overlaps(a, b)
  if a.kind == "Sphere" and b.kind ~= "Sphere" then a, b = b, a end
  local exact = exactshape(a) and exactshape(b)
  local ba, bb = axisbox(a), axisbox(b)
  if not (ba and bb) then
    local A, B = R.aabbof(a), R.aabbof(b)
    for i = 1, 3 do
      if A.lo[i] > B.hi[i] + 1e-6 or B.lo[i] > A.hi[i] + 1e-6 then return false end
    end
  end
  if ba and bb then
    if exact then
      for i = 1, 3 do
        if ba.lo[i] > bb.hi[i] or bb.lo[i] > ba.hi[i] then return false end
      end
      return true
    end
    local m = -huge
    for i = 1, 3 do m = math.max(m, ba.lo[i] - bb.hi[i], bb.lo[i] - ba.hi[i]) end
    return le0(m, TOL * scaleof(a, b))
  end
  local tol = TOL * scaleof(a, b)
  if a.kind == "Sphere" then -- both spheres
    local d = sub(a.c, b.c)
    local rr = a.r + b.r
    return le0(dot(d, d) - rr * rr, tol * (1 + rr), exact)
  end
  if b.kind == "Sphere" then
    local _, d2 = boxclosest(a, b.c)
    return le0(d2 - b.r * b.r, tol * (1 + b.r), exact)
  end
  return le0(satsep(a, b), tol)
end

---------------------------------------------------------------------------------------------
-- raycast

local function near(a, b, tol)
  return abs(a - b) <= tol * math.max(1, abs(a), abs(b))
end
R.near = near

-- Returns hit (true/false/nil), t, normal {x,y,z}, alternative normals (list, all acceptable).
function R.raycast(s, ray, maxt)
  maxt = maxt or huge
  local o, d = ray.o, ray.d
  local inside = R.contains(s, o[1], o[2], o[3])
  if inside == nil then return nil end
  if inside then return true, 0, { 0, 0, 0 }, { { 0, 0, 0 } } end
  local axisray = (d[1] ~= 0 and 1 or 0) + (d[2] ~= 0 and 1 or 0) + (d[3] ~= 0 and 1 or 0) == 1
  local exact = exactshape(s) and grid(o[1]) and grid(o[2]) and grid(o[3]) and axisray
  if s.kind == "Sphere" then
    local m = sub(o, s.c)
    local bq = dot(m, d)
    local cq = dot(m, m) - s.r * s.r
    if bq > 0 then return false end -- outside (cq > 0) and pointing away
    local disc = bq * bq - cq
    local sc = 1 + dot(m, m)
    if s.r == 0 then
      if disc < -TOL * sc then return false end
      return nil
    end
    if not exact and abs(disc) <= TOL * sc then return nil end
    if disc < 0 then return false end
    local t = -bq - sqrt(disc)
    if t < 0 then t = 0 end
    if not exact and near(t, maxt, TOL) then return nil end
    if t > maxt then return false end
    local n = { (o[1] + t * d[1] - s.c[1]) / s.r, (o[2] + t * d[2] - s.c[2]) / s.r, (o[3] + t * d[3] - s.c[3]) / s.r }
    return true, t, n, { n }
  end
  local c, h, ax = boxframe(s)
  local b = axisbox(s)
  if b then c, h, ax = nil, nil, WORLD end
  local lo, hi, oo, dd = {}, {}, {}, {}
  for k = 1, 3 do
    if b then
      lo[k], hi[k], oo[k], dd[k] = b.lo[k], b.hi[k], o[k], d[k]
    else
      lo[k], hi[k] = -h[k], h[k]
      oo[k] = dot(sub(o, c), ax[k])
      dd[k] = dot(d, ax[k])
    end
  end
  local tin, tout, entries = -huge, huge, {}
  for k = 1, 3 do
    if dd[k] == 0 then
      if oo[k] < lo[k] or oo[k] > hi[k] then return false end
    else
      local t1, t2 = (lo[k] - oo[k]) / dd[k], (hi[k] - oo[k]) / dd[k]
      if t1 > t2 then t1, t2 = t2, t1 end
      entries[k] = t1
      if t1 > tin then tin = t1 end
      if t2 < tout then tout = t2 end
    end
  end
  local sc = TOL * (1 + abs(tin))
  if not exact then
    if abs(tin - tout) <= sc then return nil end
    if tout < 0 and tout > -sc then return nil end
    if near(tin, maxt, TOL) then return nil end
  end
  if tin > tout or tout < 0 or tin > maxt then return false end
  if tin < 0 then tin = 0 end
  -- normal: largest entry, lowest axis on exact ties; near ties accept either
  local best
  for k = 1, 3 do
    if entries[k] and entries[k] == tin and not best then best = k end
  end
  local function nrm(k)
    local sg = dd[k] > 0 and -1 or 1
    return { sg * ax[k][1], sg * ax[k][2], sg * ax[k][3] }
  end
  local alts = {}
  for k = 1, 3 do
    if entries[k] and (entries[k] == tin or (not exact and near(entries[k], tin, TOL))) then
      alts[#alts + 1] = nrm(k)
    end
  end
  if not best then
    for k = 1, 3 do if entries[k] and near(entries[k], tin, TOL) then best = k; break end end
  end
  return true, tin, nrm(best), alts
end

---------------------------------------------------------------------------------------------
-- sweep: mover shape a displaced by d over t in [0, 1] against the static shape b

-- Per-axis open interval formula for two AABBs (the brief's toi rule incl. the flat-axis rule).
-- Returns status ("hit", "none", "overlap" or nil for ill-conditioned), t, alternative normals.
local function sweepboxes(A, B, d)
  local lo, hi, los = -huge, huge, {}
  for i = 1, 3 do
    local a0, a1, b0, b1, v = A.lo[i], A.hi[i], B.lo[i], B.hi[i], d[i]
    local l, h
    if v == 0 then
      if (a0 < b1 and a1 > b0) or (a0 == a1 and b0 == b1 and a0 == b0) then
        l, h = -huge, huge
      else
        return "none"
      end
    elseif v > 0 then
      l, h = (b0 - a1) / v, (b1 - a0) / v
    else
      l, h = (b1 - a0) / v, (b0 - a1) / v
    end
    los[i] = l
    if l > lo then lo = l end
    if h < hi then hi = h end
  end
  if lo < 0 and hi > 0 then return "overlap", 0, { { 0, 0, 0 } } end
  if not (lo < hi) then
    if near(lo, hi, TOL) and lo >= 0 and lo < 1 then return nil end
    return "none"
  end
  if lo < 0 then return "none" end -- moving apart (hi <= 0)
  if near(lo, 1, TOL) then return nil end
  if lo >= 1 then return "none" end
  if near(lo, hi, TOL) then return nil end
  local alts = {}
  for i = 1, 3 do
    if los[i] > -huge and near(los[i], lo, TOL) then
      local n = { 0, 0, 0 }
      n[i] = d[i] > 0 and -1 or 1
      alts[#alts + 1] = n
    end
  end
  return "hit", lo, alts
end

local function unit(v)
  local l = sqrt(dot(v, v))
  return { v[1] / l, v[2] / l, v[3] / l }
end

-- Returns two functions of t for a moved by t*d against static b: the separation (positive gap,
-- negative depth; convex in t) and the list of acceptable contact normals (out of b toward a).
local function sepfuncs(a, b, d)
  if a.kind == "Sphere" and b.kind == "Sphere" then
    local p, rr = sub(a.c, b.c), a.r + b.r
    local function at(t) return { p[1] + t * d[1], p[2] + t * d[2], p[3] + t * d[3] } end
    return function(t) local v = at(t); return sqrt(dot(v, v)) - rr end,
           function(t) return { unit(at(t)) } end
  end
  if a.kind == "Sphere" or b.kind == "Sphere" then
    local sph, bx, sgn = a, b, 1
    if b.kind == "Sphere" then sph, bx, sgn = b, a, -1 end
    local c, h, ax = boxframe(bx)
    local p0 = sub(sph.c, c)
    local lp, ld = {}, {}
    for k = 1, 3 do lp[k] = dot(p0, ax[k]); ld[k] = sgn * dot(d, ax[k]) end
    local function sep(t)
      local d2, inside = 0, -huge
      for k = 1, 3 do
        local e = abs(lp[k] + t * ld[k]) - h[k]
        if e > 0 then d2 = d2 + e * e end
        if e > inside then inside = e end
      end
      if d2 > 0 then return sqrt(d2) - sph.r end
      return inside - sph.r
    end
    local function normals(t)
      local v = { 0, 0, 0 }
      for k = 1, 3 do
        local l = lp[k] + t * ld[k]
        local cl = math.max(-h[k], math.min(h[k], l))
        for i = 1, 3 do v[i] = v[i] + (l - cl) * ax[k][i] end
      end
      local n = unit(v)
      return { { sgn * n[1], sgn * n[2], sgn * n[3] } }
    end
    return sep, normals
  end
  local ca, ha, xa = boxframe(a)
  local cb, hb, xb = boxframe(b)
  local T0 = sub(cb, ca)
  local axes = {}
  for k = 1, 3 do axes[#axes + 1] = xa[k] end
  for k = 1, 3 do axes[#axes + 1] = xb[k] end
  for i = 1, 3 do
    for j = 1, 3 do
      local L = cross(xa[i], xb[j])
      if dot(L, L) > 1e-12 then axes[#axes + 1] = unit(L) end
    end
  end
  local P, Q, RR = {}, {}, {}
  for k, L in ipairs(axes) do
    P[k] = dot(T0, L)
    Q[k] = -dot(d, L)
    RR[k] = ha[1] * abs(dot(xa[1], L)) + ha[2] * abs(dot(xa[2], L)) + ha[3] * abs(dot(xa[3], L))
          + hb[1] * abs(dot(xb[1], L)) + hb[2] * abs(dot(xb[2], L)) + hb[3] * abs(dot(xb[3], L))
  end
  local function sep(t)
    local m = -huge
    for k = 1, #P do
      local v = abs(P[k] + t * Q[k]) - RR[k]
      if v > m then m = v end
    end
    return m
  end
  local function normals(t)
    local m = sep(t)
    local alts = {}
    for k = 1, #P do
      local v = abs(P[k] + t * Q[k]) - RR[k]
      if abs(v - m) <= 1e-7 * (1 + abs(RR[k])) then
        local L = axes[k]
        if P[k] + t * Q[k] > 0 then L = { -L[1], -L[2], -L[3] } end
        alts[#alts + 1] = L
      end
    end
    return alts
  end
  return sep, normals
end

local function zeroextent(s)
  if s.kind == "Sphere" then return s.r == 0 end
  if s.kind == "OBB" then return s.h[1] == 0 or s.h[2] == 0 or s.h[3] == 0 end
  return s.lo[1] == s.hi[1] or s.lo[2] == s.hi[2] or s.lo[3] == s.hi[3]
end

-- Returns status ("hit", "none", "overlap", or nil when ill-conditioned), t, alternative normals.
-- AABB-like pairs: exact per-axis interval formula. Other pairs: the separation function is convex
-- in t; its minimum is found by golden-section search and its first root by bisection.
function R.sweep(a, b, d)
  local A, B = axisbox(a), axisbox(b)
  if A and B then
    if exactshape(a) and exactshape(b) and grid(d[1]) and grid(d[2]) and grid(d[3]) then
      return sweepboxes(A, B, d)
    end
    local st, t, alts = sweepboxes(A, B, d)
    if st == "hit" or st == "overlap" then return st, t, alts end
    -- non-grid data: a miss could be a rounding-level graze
    local s = (sepfuncs(a, b, d))(0)
    if abs(s) <= 1e-9 * scaleof(a, b) then return nil end
    return st, t, alts
  end
  if (a.kind == "Sphere" and a.r == 0) or (b.kind == "Sphere" and b.r == 0) then return nil end
  if a.kind ~= "Sphere" and b.kind ~= "Sphere" and (zeroextent(a) or zeroextent(b)) then return nil end
  -- swept bounds: far apart is a certain miss
  local sa, sb = R.aabbof(a), R.aabbof(b)
  for i = 1, 3 do
    local lo = math.min(sa.lo[i], sa.lo[i] + d[i])
    local hi = math.max(sa.hi[i], sa.hi[i] + d[i])
    if lo > sb.hi[i] + 1e-6 or hi < sb.lo[i] - 1e-6 then return "none" end
  end
  local sc = scaleof(a, b) + sqrt(dot(d, d))
  local tol = 1e-9 * sc
  local f, normals = sepfuncs(a, b, d)
  local s0 = f(0)
  if s0 < -tol then return "overlap", 0, { { 0, 0, 0 } } end
  local dl = sqrt(dot(d, d))
  if dl == 0 then
    if s0 > tol then return "none" end
    return nil
  end
  if s0 <= tol then
    -- touching at the start: moving in, sliding or moving away
    local dt = 1e-6
    local rate = (f(dt) - s0) / dt
    if rate < -1e-3 * dl then
      -- at t = 0 either way; within rounding of touching, "already overlapping" (zero normal) is
      -- as right as the contact normal
      local alts = normals(0)
      alts[#alts + 1] = { 0, 0, 0 }
      return "hit", 0, alts, true
    end
    -- moving away or sliding: no contact, unless rounding has the interiors overlap at the start
    -- (a hit at t = 0): ill-conditioned either way
    return nil
  end
  -- golden-section minimum on [0, 1]
  local g = (sqrt(5) - 1) / 2
  local x0, x1 = 0, 1
  local c1, c2 = x1 - g * (x1 - x0), x0 + g * (x1 - x0)
  local f1, f2 = f(c1), f(c2)
  for _ = 1, 70 do
    if f1 <= f2 then
      x1, c2, f2 = c2, c1, f1
      c1 = x1 - g * (x1 - x0); f1 = f(c1)
    else
      x0, c1, f1 = c1, c2, f2
      c2 = x0 + g * (x1 - x0); f2 = f(c2)
    end
  end
  local tm = (x0 + x1) / 2
  local fm = f(tm)
  local f1v = f(1)
  if f1v < fm then tm, fm = 1, f1v end
  if fm > tol then return "none" end
  if fm >= -tol then return nil end
  local lo, hi = 0, tm
  for _ = 1, 60 do
    local mid = (lo + hi) / 2
    if f(mid) > 0 then lo = mid else hi = mid end
  end
  local t = (lo + hi) / 2
  if near(t, 1, 1e-7) then return nil end
  -- conditioning: the separation must fall at a decent rate at the root
  local h = math.min(1e-4, tm - t)
  if h <= 0 then return nil end
  local rate = (f(t + h) - f(t)) / h
  if rate > -1e-3 * dl then return nil end
  return "hit", t, normals(t), true
end

---------------------------------------------------------------------------------------------
-- the reference World: a plain list of {item, shape, seq}

local W = {}
W.__index = W

-- Returns a new empty reference world.
function R.world()
  return setmetatable({ list = {}, seq = 0 }, W)
end

-- Returns the index of the item in the list, or nil.
function W:find(item)
  for i, e in ipairs(self.list) do
    if rawequal(e.item, item) then return i end
  end
  return nil
end

function W:add(item, shape)
  assert(not self:find(item), "reference: double add")
  self.seq = self.seq + 1
  self.list[#self.list + 1] = { item = item, shape = shape, seq = self.seq }
end

function W:remove(item)
  table.remove(self.list, assert(self:find(item)))
end

function W:update(item, shape)
  self.list[assert(self:find(item))].shape = shape
end

function W:count() return #self.list end

-- Returns a list of {item=, status=} (status true or nil; certain misses left out), order added.
function W:query(shape, filter)
  local out = {}
  for _, e in ipairs(self.list) do
    if not filter or filter(e.item) then
      local st = R.overlaps(shape, e.shape)
      if st ~= false then out[#out + 1] = { item = e.item, status = st } end
    end
  end
  return out
end

function W:querypoint(x, y, z, filter)
  local out = {}
  for _, e in ipairs(self.list) do
    if not filter or filter(e.item) then
      local st = R.contains(e.shape, x, y, z)
      if st ~= false then out[#out + 1] = { item = e.item, status = st } end
    end
  end
  return out
end

-- Returns a list of {a=, b=, status=} in (order a, order b).
function W:pairs()
  local out, l = {}, self.list
  for i = 1, #l do
    for j = i + 1, #l do
      local st = R.overlaps(l[i].shape, l[j].shape)
      if st ~= false then out[#out + 1] = { a = l[i].item, b = l[j].item, status = st } end
    end
  end
  return out
end

-- Returns a list of {item=, status=, t=, n=, alts=, seq=} of every possible hit (order added).
function W:raycastall(ray, maxt, filter)
  local out = {}
  for _, e in ipairs(self.list) do
    if not filter or filter(e.item) then
      local st, t, n, alts = R.raycast(e.shape, ray, maxt)
      if st ~= false then
        out[#out + 1] = { item = e.item, status = st, t = t, n = n, alts = alts, seq = e.seq }
      end
    end
  end
  return out
end

-- Returns a list of {item=, status=, t=, alts=, seq=, approx=} of every possible sweep hit.
function W:sweep(shape, d, filter)
  local out = {}
  for _, e in ipairs(self.list) do
    if not filter or filter(e.item) then
      local st, t, alts, approx = R.sweep(shape, e.shape, d)
      if st ~= "none" then
        out[#out + 1] = { item = e.item, status = st and true or nil, t = t, alts = alts,
                          seq = e.seq, approx = approx }
      end
    end
  end
  return out
end

-- Returns the sequence number of the item.
function W:seqof(item)
  return self.list[assert(self:find(item))].seq
end

return R
