-- Pure-Lua reference implementation of collide's shape queries, written independently of the
-- C core and on purpose with different algorithms (face rectangles with exact products instead
-- of slab comparisons, edge clipping instead of SAT, per-axis open time intervals with exact
-- cross-multiplied comparisons for toi, winding numbers plus an explicit on-edge test for
-- polygons), so the two cannot share a bug. Semantics follow /work/brief.md exactly.
--
-- Shapes are plain tables: AABB {kind="AABB", min={x,y,z}, max={x,y,z}},
-- OBB {kind="OBB", c={..}, h={..}, u={{..},{..},{..}}}, Sphere {kind="Sphere", c={..}, r=r},
-- Ray {o={..}, d={..}} (d unit length).
local ref = {}

local abs, sqrt, huge, max = math.abs, math.sqrt, math.huge, math.max

-- ---------------------------------------------------------------- exact arithmetic helpers

local SPLIT = 134217729 -- 2^27 + 1, Veltkamp splitter for doubles

-- Returns p, e with p = fl(a*b) and p + e == a*b exactly (no FMA needed).
local function two_prod(a, b)
  local p = a * b
  local c = SPLIT * a
  local ah = c - (c - a)
  local al = a - ah
  c = SPLIT * b
  local bh = c - (c - b)
  local bl = b - bh
  return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl
end

-- Returns the exact sign (-1, 0, 1) of a*b - c*d.
local function cmp_prod(a, b, c, d)
  local p1, e1 = two_prod(a, b)
  local p2, e2 = two_prod(c, d)
  if p1 > p2 then return 1 elseif p1 < p2 then return -1 end
  if e1 > e2 then return 1 elseif e1 < e2 then return -1 end
  return 0
end
ref.cmp_prod = cmp_prod
ref.two_prod = two_prod

local function sign(x) if x > 0 then return 1 elseif x < 0 then return -1 end return 0 end

-- ---------------------------------------------------------------- constructors

-- Returns an AABB table.
function ref.aabb(minx, miny, minz, maxx, maxy, maxz)
  return { kind = "AABB", min = { minx, miny, minz }, max = { maxx, maxy, maxz } }
end

-- Returns an OBB table (world axes when the 9 axis numbers are omitted).
function ref.obb(cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz)
  if ux == nil then
    ux, uy, uz, vx, vy, vz, wx, wy, wz = 1, 0, 0, 0, 1, 0, 0, 0, 1
  end
  return { kind = "OBB", c = { cx, cy, cz }, h = { hx, hy, hz },
           u = { { ux, uy, uz }, { vx, vy, vz }, { wx, wy, wz } } }
end

-- Returns a Sphere table.
function ref.sphere(cx, cy, cz, r)
  return { kind = "Sphere", c = { cx, cy, cz }, r = r }
end

-- Returns a Ray table whose direction is normalised (largest component scaled first).
function ref.ray(ox, oy, oz, dx, dy, dz)
  local m = max(abs(dx), abs(dy), abs(dz))
  if m == 0 then error("direction is zero", 2) end
  dx, dy, dz = dx / m, dy / m, dz / m
  local len = sqrt(dx * dx + dy * dy + dz * dz)
  return { o = { ox, oy, oz }, d = { dx / len, dy / len, dz / len } }
end

-- Returns the table form of a collide AABB/OBB/Sphere/Ray userdata (read through its accessors;
-- a ray's stored direction is taken as is, not renormalised).
function ref.fromshape(ud)
  local collide = package.loaded.collide or require("collide")
  local k = collide.type(ud)
  if k == "AABB" then
    return ref.aabb(ud:bounds())
  elseif k == "OBB" then
    local cx, cy, cz = ud:center()
    local hx, hy, hz = ud:extents()
    return ref.obb(cx, cy, cz, hx, hy, hz, ud:axes())
  elseif k == "Sphere" then
    local cx, cy, cz = ud:center()
    return ref.sphere(cx, cy, cz, ud:radius())
  elseif k == "Ray" then
    local ox, oy, oz = ud:origin()
    local dx, dy, dz = ud:direction()
    return { o = { ox, oy, oz }, d = { dx, dy, dz } }
  end
  error("fromshape: not a collide shape: " .. tostring(ud), 2)
end

-- ---------------------------------------------------------------- frames
-- Every box is handled as a "frame box": world point p has local coordinates
-- x_i = u_i . (p - c), and the box is lo <= x <= hi. For an AABB the frame is the world frame
-- with c = 0, so its local coordinates are the world ones, exactly.

local WORLD = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }
local ZERO = { 0, 0, 0 }

-- Returns c, axes, lo, hi of the frame box of an AABB or OBB table.
local function frame(s)
  if s.kind == "AABB" then
    return ZERO, WORLD, s.min, s.max
  end
  local h = s.h
  return s.c, s.u, { -h[1], -h[2], -h[3] }, { h[1], h[2], h[3] }
end

-- Returns the local coordinates of world point (x, y, z) in frame (c, u).
local function tolocal(c, u, x, y, z)
  if u == WORLD and c == ZERO then return x, y, z end
  local px, py, pz = x - c[1], y - c[2], z - c[3]
  local a, b, e = u[1], u[2], u[3]
  return a[1] * px + a[2] * py + a[3] * pz,
         b[1] * px + b[2] * py + b[3] * pz,
         e[1] * px + e[2] * py + e[3] * pz
end

-- Returns a direction expressed in frame u.
local function dirlocal(u, x, y, z)
  if u == WORLD then return x, y, z end
  local a, b, e = u[1], u[2], u[3]
  return a[1] * x + a[2] * y + a[3] * z, b[1] * x + b[2] * y + b[3] * z, e[1] * x + e[2] * y + e[3] * z
end

-- Returns the world point of local coordinates (a, b, e) in frame (c, u).
local function toworld(c, u, a, b, e)
  if u == WORLD and c == ZERO then return a, b, e end
  local U, V, W = u[1], u[2], u[3]
  return c[1] + a * U[1] + b * V[1] + e * W[1],
         c[2] + a * U[2] + b * V[2] + e * W[2],
         c[3] + a * U[3] + b * V[3] + e * W[3]
end

local function inbox(lo, hi, x, y, z)
  return x >= lo[1] and x <= hi[1] and y >= lo[2] and y <= hi[2] and z >= lo[3] and z <= hi[3]
end

-- ---------------------------------------------------------------- ray vs box, by faces
-- Origin outside: the entry point lies on a front face (one the ray crosses from outside to
-- inside). For each front face i (lowest axis first) decide exactly whether the line meets the
-- closed face rectangle: for the other axes j, o_j + (num/d_i) d_j within [lo_j, hi_j] is
-- decided by the exact sign of num*d_j - (lo_j - o_j)*d_i. Every valid front face is met at the
-- same exact time, so the first valid one is the entry face and the tie rule (lowest axis) holds.

-- Returns true if the line o + t*d meets the plane x_i = plane inside the face rectangle.
local function face_ok(lo, hi, o, d, i, num)
  local di = d[i]
  local s = di > 0 and 1 or -1
  for j = 1, 3 do
    if j ~= i then
      local dj, oj = d[j], o[j]
      if dj == 0 then
        if oj < lo[j] or oj > hi[j] then return false end
      else
        if cmp_prod(num, dj, lo[j] - oj, di) * s < 0 then return false end
        if cmp_prod(num, dj, hi[j] - oj, di) * s > 0 then return false end
      end
    end
  end
  return true
end

-- Returns t, axis of the entry of the ray o + t*d (t >= 0, t <= maxt) into box [lo, hi]
-- (t = 0, axis 0 if o is inside), or nil. d need not be unit length.
local function box_ray(lo, hi, o, d, maxt)
  if inbox(lo, hi, o[1], o[2], o[3]) then return 0, 0 end
  for i = 1, 3 do
    local di = d[i]
    if di ~= 0 then
      local num = (di > 0 and lo[i] or hi[i]) - o[i]
      if num == 0 or (num > 0) == (di > 0) then
        if face_ok(lo, hi, o, d, i, num) then
          local t = num / di
          if t > maxt then return nil end
          return t, i
        end
      end
    end
  end
  return nil
end

-- Returns tenter, axis_enter, texit of the whole line o + t*d through box [lo, hi], or nil.
local function box_line(lo, hi, o, d)
  local tin, ain, tout
  for i = 1, 3 do
    local di = d[i]
    if di ~= 0 then
      if tin == nil then
        local num = (di > 0 and lo[i] or hi[i]) - o[i]
        if face_ok(lo, hi, o, d, i, num) then tin, ain = num / di, i end
      end
      if tout == nil then
        local num = (di > 0 and hi[i] or lo[i]) - o[i]
        if face_ok(lo, hi, o, d, i, num) then tout = num / di end
      end
    end
  end
  if tin == nil or tout == nil then return nil end
  return tin, ain, tout
end

-- ---------------------------------------------------------------- queries

-- Returns true if the shape contains the point (inclusive).
function ref.contains(s, x, y, z)
  if s.kind == "AABB" then
    return inbox(s.min, s.max, x, y, z)
  elseif s.kind == "OBB" then
    -- six world-space half-spaces n.p <= n.c + h instead of a change of basis
    local c, p = s.c, { x, y, z }
    for i = 1, 3 do
      local n = s.u[i]
      local np = n[1] * p[1] + n[2] * p[2] + n[3] * p[3]
      local nc = n[1] * c[1] + n[2] * c[2] + n[3] * c[3]
      if np - nc > s.h[i] or nc - np > s.h[i] then return false end
    end
    return true
  else
    local dx, dy, dz = x - s.c[1], y - s.c[2], z - s.c[3]
    return dx * dx + dy * dy + dz * dz <= s.r * s.r
  end
end

-- corner k (1..8) takes hi on axis i when BITS[k][i] is true
local BITS = {}
for k = 0, 7 do BITS[k + 1] = { k % 2 == 1, k % 4 >= 2, k >= 4 } end

-- Returns the 8 corners of a frame box in local coordinates of another frame (c2, u2).
local function corners_in(s, c2, u2)
  local c, u, lo, hi = frame(s)
  local out = {}
  for k = 1, 8 do
    local b = BITS[k]
    local x, y, z = toworld(c, u, b[1] and hi[1] or lo[1], b[2] and hi[2] or lo[2], b[3] and hi[3] or lo[3])
    out[k] = { tolocal(c2, u2, x, y, z) }
  end
  return out
end

-- the 12 edges of a box as pairs of corner indices
local EDGES = { { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 8 }, { 1, 3 }, { 2, 4 }, { 5, 7 }, { 6, 8 },
                { 1, 5 }, { 2, 6 }, { 3, 7 }, { 4, 8 } }

local scratch = { 0, 0, 0 }

-- Returns true if some edge of box a (closed segment) meets box b.
local function edges_meet(a, b)
  local c2, u2, lo, hi = frame(b)
  local k = corners_in(a, c2, u2)
  for n = 1, 12 do
    local e = EDGES[n]
    local p, q = k[e[1]], k[e[2]]
    scratch[1], scratch[2], scratch[3] = q[1] - p[1], q[2] - p[2], q[3] - p[3]
    if box_ray(lo, hi, p, scratch, 1) then return true end
  end
  return false
end

-- Returns the squared distance from a world point to a frame box.
local function box_dist2(s, x, y, z)
  local c, u, lo, hi = frame(s)
  local p = { tolocal(c, u, x, y, z) }
  local d2 = 0
  for i = 1, 3 do
    local v = p[i]
    if v < lo[i] then d2 = d2 + (lo[i] - v) ^ 2 elseif v > hi[i] then d2 = d2 + (v - hi[i]) ^ 2 end
  end
  return d2
end

-- Returns true if the two shapes overlap (inclusive; touching counts).
function ref.overlaps(a, b)
  if a.kind == "Sphere" and b.kind == "Sphere" then
    local dx, dy, dz = a.c[1] - b.c[1], a.c[2] - b.c[2], a.c[3] - b.c[3]
    local r = a.r + b.r
    return dx * dx + dy * dy + dz * dz <= r * r
  elseif a.kind == "Sphere" then
    return box_dist2(b, a.c[1], a.c[2], a.c[3]) <= a.r * a.r
  elseif b.kind == "Sphere" then
    return box_dist2(a, b.c[1], b.c[2], b.c[3]) <= b.r * b.r
  elseif a.kind == "AABB" and b.kind == "AABB" then
    for i = 1, 3 do
      if a.max[i] < b.min[i] or b.max[i] < a.min[i] then return false end
    end
    return true
  end
  -- two convex boxes meet iff an edge of one meets the other (edges include the corners, so
  -- one box inside the other is covered by the inner box's edges)
  return edges_meet(a, b) or edges_meet(b, a)
end

-- Returns t, nx, ny, nz of the ray's entry into the shape with t <= maxt (default +inf),
-- 0,0,0,0 if the origin is inside or on the surface, or nil.
function ref.raycast(s, ray, maxt)
  maxt = maxt or huge
  local o, d = ray.o, ray.d
  if s.kind == "Sphere" then
    local c, r = s.c, s.r
    local m = { o[1] - c[1], o[2] - c[2], o[3] - c[3] }
    if m[1] * m[1] + m[2] * m[2] + m[3] * m[3] <= r * r then return 0, 0, 0, 0 end
    -- closest approach along the ray, then half the chord
    local tc = -(m[1] * d[1] + m[2] * d[2] + m[3] * d[3])
    if tc < 0 then return nil end
    local px, py, pz = m[1] + tc * d[1], m[2] + tc * d[2], m[3] + tc * d[3]
    local p2 = px * px + py * py + pz * pz
    if p2 > r * r then return nil end
    local t = tc - sqrt(r * r - p2)
    if t > maxt then return nil end
    if r == 0 then return t, -d[1], -d[2], -d[3] end
    return t, (o[1] + t * d[1] - c[1]) / r, (o[2] + t * d[2] - c[2]) / r, (o[3] + t * d[3] - c[3]) / r
  end
  local c, u, lo, hi = frame(s)
  local lo_o = { tolocal(c, u, o[1], o[2], o[3]) }
  local lo_d = { dirlocal(u, d[1], d[2], d[3]) }
  local t, axis = box_ray(lo, hi, lo_o, lo_d, maxt)
  if t == nil then return nil end
  if axis == 0 then return 0, 0, 0, 0 end
  local sg = lo_d[axis] > 0 and -1 or 1
  local n = u[axis]
  return t, sg * n[1] + 0, sg * n[2] + 0, sg * n[3] + 0
end

-- Returns tenter, texit of the ray's whole line through the AABB, or nil (miss or texit < 0).
function ref.clip(box, ray)
  local tin, _, tout = box_line(box.min, box.max, ray.o, ray.d)
  if tin == nil or tout < 0 then return nil end
  return tin, tout
end

-- Returns f, nx, ny, nz of seed 000's segment test p1 + f*(p2 - p1), f in [0, maxf], or nil.
function ref.segment(box, x1, y1, z1, x2, y2, z2, maxf)
  maxf = maxf or 1
  local lo, hi = box.min, box.max
  if inbox(lo, hi, x1, y1, z1) then return 0, 0, 0, 0 end
  local d = { x2 - x1, y2 - y1, z2 - z1 }
  if d[1] == 0 and d[2] == 0 and d[3] == 0 then return nil end
  local f, axis = box_ray(lo, hi, { x1, y1, z1 }, d, maxf)
  if f == nil then return nil end
  local n = { 0, 0, 0 }
  n[axis] = d[axis] > 0 and -1 or 1
  return f, n[1], n[2], n[3]
end

-- Returns the tight AABB table of a shape.
function ref.aabbof(s)
  if s.kind == "AABB" then
    return ref.aabb(s.min[1], s.min[2], s.min[3], s.max[1], s.max[2], s.max[3])
  elseif s.kind == "Sphere" then
    local c, r = s.c, s.r
    return ref.aabb(c[1] - r, c[2] - r, c[3] - r, c[1] + r, c[2] + r, c[3] + r)
  end
  local e = {}
  for i = 1, 3 do
    e[i] = s.h[1] * abs(s.u[1][i]) + s.h[2] * abs(s.u[2][i]) + s.h[3] * abs(s.u[3][i])
  end
  local c = s.c
  return ref.aabb(c[1] - e[1], c[2] - e[2], c[3] - e[3], c[1] + e[1], c[2] + e[2], c[3] + e[3])
end

-- Returns the closest point x, y, z on or in the shape.
function ref.closest(s, x, y, z)
  if s.kind == "Sphere" then
    local c, r = s.c, s.r
    local dx, dy, dz = x - c[1], y - c[2], z - c[3]
    local l2 = dx * dx + dy * dy + dz * dz
    if l2 <= r * r then return x, y, z end
    local k = r / sqrt(l2)
    return c[1] + dx * k, c[2] + dy * k, c[3] + dz * k
  elseif s.kind == "AABB" then
    local function cl(v, a, b) if v < a then return a elseif v > b then return b end return v end
    return cl(x, s.min[1], s.max[1]), cl(y, s.min[2], s.max[2]), cl(z, s.min[3], s.max[3])
  end
  -- OBB: subtract the excess along each axis from the point itself
  local l = { tolocal(s.c, s.u, x, y, z) }
  local p = { x, y, z }
  for i = 1, 3 do
    local ex = 0
    if l[i] > s.h[i] then ex = l[i] - s.h[i] elseif l[i] < -s.h[i] then ex = l[i] + s.h[i] end
    if ex ~= 0 then
      for k = 1, 3 do p[k] = p[k] - ex * s.u[i][k] end
    end
  end
  return p[1], p[2], p[3]
end

-- Returns 1 if n.p + d > 0 for every point of the shape, -1 if < 0 for every point, else 0.
function ref.plane(s, nx, ny, nz, d)
  if s.kind == "Sphere" then
    local c, r = s.c, s.r
    local v = nx * c[1] + ny * c[2] + nz * c[3] + d
    local nn = nx * nx + ny * ny + nz * nz
    -- |v| > r*|n| decided on squares, exactly
    if v == 0 then return 0 end
    local p1, e1 = two_prod(v, v)
    local rr = r * r
    local p2, e2 = two_prod(rr, nn)
    local gt = p1 > p2 or (p1 == p2 and e1 > e2)
    if not gt then return 0 end
    return v > 0 and 1 or -1
  end
  -- boxes: evaluate every corner in world space
  local c, u, lo, hi = frame(s)
  local pos, neg = false, false
  for k = 1, 8 do
    local bt = BITS[k]
    local x, y, z = toworld(c, u, bt[1] and hi[1] or lo[1], bt[2] and hi[2] or lo[2],
      bt[3] and hi[3] or lo[3])
    local v = nx * x + ny * y + nz * z + d
    if v > 0 then pos = true elseif v < 0 then neg = true else return 0 end
  end
  if pos and not neg then return 1 elseif neg and not pos then return -1 end
  return 0
end

-- Returns t >= 0 where the ray meets the plane n.p + d = 0 (0 if the origin is on it), or nil.
function ref.rayplane(ray, nx, ny, nz, d)
  local o, dir = ray.o, ray.d
  local s = nx * o[1] + ny * o[2] + nz * o[3] + d
  if s == 0 then return 0 end
  local nd = nx * dir[1] + ny * dir[2] + nz * dir[3]
  if nd == 0 or sign(s) == sign(nd) then return nil end
  return -s / nd
end

-- Returns the open set of times at which the open intervals (amin, amax) and
-- (bmin + t*d, bmax + t*d) intersect (as sets: a flat interval is empty): "all", "none", or
-- n1, n2, d with the set (n1/d, n2/d), d > 0.
local function axis_times(amin, amax, bmin, bmax, d)
  -- flat-axis rule: no motion, both flat at the same coordinate (2D use)
  if d == 0 and amin == amax and bmin == bmax and amin == bmin then return "all" end
  if d == 0 then
    if amin < bmax and bmin < amax then return "all" end
    return "none"
  end
  -- amin < bmax + t d and bmin + t d < amax
  local n1, n2 = amin - bmax, amax - bmin
  if d < 0 then n1, n2, d = -n2, -n1, -d end
  return n1, n2, d
end

-- Returns the exact sign of n1/d1 - n2/d2 for d1, d2 > 0.
local function cmp_frac(n1, d1, n2, d2)
  return cmp_prod(n1, d2, n2, d1)
end

-- Returns state, t of seed 003 (corrected) for AABB tables a, b moved by da, db over one step.
function ref.toi(a, dax, day, daz, b, dbx, dby, dbz)
  local dv = { dbx - dax, dby - day, dbz - daz }
  -- L = max of the lower ends, H = min of the upper ends, kept as exact fractions
  local Ln, Ld, Hn, Hd -- nil means -inf / +inf
  for i = 1, 3 do
    local n1, n2, d = axis_times(a.min[i], a.max[i], b.min[i], b.max[i], dv[i])
    if n1 == "none" then return "separated", 1 end
    if n1 ~= "all" then
      if Ln == nil or cmp_frac(n1, d, Ln, Ld) > 0 then Ln, Ld = n1, d end
      if Hn == nil or cmp_frac(n2, d, Hn, Hd) < 0 then Hn, Hd = n2, d end
    end
  end
  if Ln == nil then return "overlapped", 0 end -- every axis overlaps for all times
  -- open set (L, H): empty when L >= H
  if cmp_frac(Ln, Ld, Hn, Hd) >= 0 then return "separated", 1 end
  if Ln < 0 then
    -- L < 0 < H means overlapping at t = 0; H <= 0 means it was all in the past
    if Hn > 0 then return "overlapped", 0 end
    return "separated", 1
  end
  -- 0 <= L: first meeting at L, counts when L < 1
  if Ln < Ld then return "touching", Ln / Ld + 0 end
  return "separated", 1
end

-- Returns x, y, z, s of the point of segment ab closest to p.
function ref.closestonsegment(px, py, pz, ax, ay, az, bx, by, bz)
  if ax == bx and ay == by and az == bz then return ax, ay, az, 0 end
  local ux, uy, uz = bx - ax, by - ay, bz - az
  local proj = (px - ax) * ux + (py - ay) * uy + (pz - az) * uz
  local len2 = ux * ux + uy * uy + uz * uz
  if proj <= 0 then return ax, ay, az, 0 end
  if proj >= len2 then return bx, by, bz, 1 end
  local s = proj / len2
  return ax + s * ux, ay + s * uy, az + s * uz, s
end

-- Returns v - (1+e)(n.v)n (e default 1) as tangential part minus e times the normal part.
function ref.reflect(vx, vy, vz, nx, ny, nz, e)
  e = e or 1
  local k = nx * vx + ny * vy + nz * vz
  local ax, ay, az = k * nx, k * ny, k * nz -- normal part
  local tx, ty, tz = vx - ax, vy - ay, vz - az -- tangential part
  return tx - e * ax, ty - e * ay, tz - e * az
end

-- Returns the exact sign of cross(b - a, p - a) (differences rounded as computed).
local function orient(ax, ay, bx, by, px, py)
  return cmp_prod(bx - ax, py - ay, by - ay, px - ax)
end

-- Returns true if (x, y) is inside the polygon or on its boundary: explicit on-edge test, then
-- the winding number (equal to the even-odd rule for simple polygons).
function ref.pointinpolygon(poly, x, y)
  local n = #poly / 2
  for i = 1, n do
    local j = i % n + 1
    local ax, ay, bx, by = poly[2 * i - 1], poly[2 * i], poly[2 * j - 1], poly[2 * j]
    if orient(ax, ay, bx, by, x, y) == 0
       and x >= math.min(ax, bx) and x <= math.max(ax, bx)
       and y >= math.min(ay, by) and y <= math.max(ay, by) then
      return true
    end
  end
  local wn = 0
  for i = 1, n do
    local j = i % n + 1
    local ax, ay, bx, by = poly[2 * i - 1], poly[2 * i], poly[2 * j - 1], poly[2 * j]
    if ay <= y then
      if by > y and orient(ax, ay, bx, by, x, y) > 0 then wn = wn + 1 end
    elseif by <= y and orient(ax, ay, bx, by, x, y) < 0 then
      wn = wn - 1
    end
  end
  return wn ~= 0
end

-- ---------------------------------------------------------------- conditioning helpers
-- Used by the differential spec to classify non-exact cases that sit within rounding of a
-- decision boundary.

-- Returns a copy of the shape grown by eps on every side (eps < 0 shrinks, never below flat).
function ref.inflate(s, eps)
  if s.kind == "AABB" then
    local lo, hi = {}, {}
    for i = 1, 3 do
      lo[i], hi[i] = s.min[i] - eps, s.max[i] + eps
      if lo[i] > hi[i] then lo[i] = (s.min[i] + s.max[i]) / 2; hi[i] = lo[i] end
    end
    return ref.aabb(lo[1], lo[2], lo[3], hi[1], hi[2], hi[3])
  elseif s.kind == "OBB" then
    local h = {}
    for i = 1, 3 do h[i] = max(0, s.h[i] + eps) end
    return { kind = "OBB", c = s.c, h = h, u = s.u }
  end
  return ref.sphere(s.c[1], s.c[2], s.c[3], max(0, s.r + eps))
end

-- Returns an approximate signed distance from the point to the shape's boundary (negative
-- inside): for boxes the largest local excess max_i(|x_i - centre_i| - h_i), which is 0 on the
-- boundary even for flat boxes.
function ref.pointgap(s, x, y, z)
  if s.kind == "Sphere" then
    local dx, dy, dz = x - s.c[1], y - s.c[2], z - s.c[3]
    return sqrt(dx * dx + dy * dy + dz * dz) - s.r
  end
  local c, u, lo, hi = frame(s)
  local p = { tolocal(c, u, x, y, z) }
  local g = -huge
  for i = 1, 3 do
    local m, h = (lo[i] + hi[i]) / 2, (hi[i] - lo[i]) / 2
    g = max(g, abs(p[i] - m) - h)
  end
  return g
end

-- Returns centre and unit axes/half sizes of a box table (AABB or OBB) for projections.
local function boxparts(s)
  if s.kind == "OBB" then return s.c, s.u, s.h end
  local c, h = {}, {}
  for i = 1, 3 do c[i], h[i] = (s.min[i] + s.max[i]) / 2, (s.max[i] - s.min[i]) / 2 end
  return c, WORLD, h
end

local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

-- Returns an approximate signed separation of two shapes (negative = penetration depth): for
-- two boxes the largest gap over the 15 SAT axes (near-parallel cross axes left out), for a
-- sphere the signed distance of its centre to the other shape minus its radius.
function ref.separation(a, b)
  if a.kind == "Sphere" and b.kind == "Sphere" then
    local dx, dy, dz = a.c[1] - b.c[1], a.c[2] - b.c[2], a.c[3] - b.c[3]
    return sqrt(dx * dx + dy * dy + dz * dz) - a.r - b.r
  elseif a.kind == "Sphere" or b.kind == "Sphere" then
    local sp, bx = a, b
    if b.kind == "Sphere" then sp, bx = b, a end
    local g = ref.pointgap(bx, sp.c[1], sp.c[2], sp.c[3])
    if g > 0 then g = sqrt(box_dist2(bx, sp.c[1], sp.c[2], sp.c[3])) end
    return g - sp.r
  end
  local ca, ua, ha = boxparts(a)
  local cb, ub, hb = boxparts(b)
  local axes = { ua[1], ua[2], ua[3], ub[1], ub[2], ub[3] }
  for i = 1, 3 do
    for j = 1, 3 do
      local p, q = ua[i], ub[j]
      local x, y, z = p[2] * q[3] - p[3] * q[2], p[3] * q[1] - p[1] * q[3], p[1] * q[2] - p[2] * q[1]
      local l = sqrt(x * x + y * y + z * z)
      if l > 1e-6 then axes[#axes + 1] = { x / l, y / l, z / l } end
    end
  end
  local t = { cb[1] - ca[1], cb[2] - ca[2], cb[3] - ca[3] }
  local sep = -huge
  for _, L in ipairs(axes) do
    local ra = ha[1] * abs(dot(ua[1], L)) + ha[2] * abs(dot(ua[2], L)) + ha[3] * abs(dot(ua[3], L))
    local rb = hb[1] * abs(dot(ub[1], L)) + hb[2] * abs(dot(ub[2], L)) + hb[3] * abs(dot(ub[3], L))
    sep = max(sep, abs(dot(t, L)) - ra - rb)
  end
  return sep
end

-- Returns the smallest distance (in units of |n|) of the shape's extreme values of n.p + d from
-- zero: small means the plane touches the shape.
function ref.planegap(s, nx, ny, nz, d)
  local nl = sqrt(nx * nx + ny * ny + nz * nz)
  if nl == 0 then return huge end
  if s.kind == "Sphere" then
    local v = nx * s.c[1] + ny * s.c[2] + nz * s.c[3] + d
    return abs(abs(v) - s.r * nl) / nl
  end
  local c, u, h = boxparts(s)
  local n = { nx, ny, nz }
  local v = dot(n, c) + d
  local r = h[1] * abs(dot(u[1], n)) + h[2] * abs(dot(u[2], n)) + h[3] * abs(dot(u[3], n))
  return math.min(abs(v - r), abs(v + r)) / nl
end

-- Returns the smallest relative gap between slab times of different axes whose directions
-- differ in magnitude (entry vs entry decides the normal, entry vs exit decides a hit); only
-- those comparisons of correctly rounded quotients can come out differently from exact
-- arithmetic. Slab times of the line o + t*d against the AABB [lo, hi]; huge if none.
-- strict: also count exact ties and equal-magnitude directions (for inputs that are themselves
-- rounded differently by another implementation, e.g. a rotated frame).
function ref.raymargin(box, o, d, strict)
  local lo, hi = box.min, box.max
  local ent, ext, en, xn, dd = {}, {}, {}, {}, {}
  for i = 1, 3 do
    if d[i] ~= 0 then
      local na, nb = lo[i] - o[i], hi[i] - o[i]
      if d[i] < 0 then na, nb = nb, na end
      local k = #ent + 1
      ent[k], ext[k], en[k], xn[k], dd[k] = na / d[i], nb / d[i], na, nb, d[i]
    end
  end
  local g = huge
  -- gap between quotients x = nx/dx and y = ny/dy; an exact tie is no risk (both round alike)
  local function gap(x, nx, dx, y, ny, dy)
    if not strict and cmp_prod(nx, dy, ny, dx) == 0 then return end
    local r = abs(x - y) / max(abs(x) + abs(y), 1e-300)
    if r < g then g = r end
  end
  for i = 1, #ent do
    for j = 1, #ent do
      if i ~= j and (strict or abs(dd[i]) ~= abs(dd[j])) then
        gap(ent[i], en[i], dd[i], ext[j], xn[j], dd[j])
        gap(ent[i], en[i], dd[i], ent[j], en[j], dd[j])
      end
    end
  end
  return g
end

return ref
