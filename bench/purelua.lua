-- bench/purelua.lua: the same queries as collide, written in plain Lua the way a Lua user would
-- write them: shapes are tables with named number fields, results are returned as numbers.
-- Used by the benchmarks as the "pure Lua" column and as a cross-check of collide's results.
--   AABB   {minx=, miny=, minz=, maxx=, maxy=, maxz=}
--   Ray    {ox=, oy=, oz=, dx=, dy=, dz=}        (d unit length)
--   OBB    {cx=, cy=, cz=, hx=, hy=, hz=, ux=, uy=, uz=, vx=, vy=, vz=, wx=, wy=, wz=}
--   Sphere {cx=, cy=, cz=, r=}
local P = {}

local huge, sqrt, abs = math.huge, math.sqrt, math.abs

-- Returns an AABB table.
function P.aabb(minx, miny, minz, maxx, maxy, maxz)
  return { minx = minx, miny = miny, minz = minz, maxx = maxx, maxy = maxy, maxz = maxz }
end

-- Returns a ray table with the direction normalised.
function P.ray(ox, oy, oz, dx, dy, dz)
  local l = sqrt(dx * dx + dy * dy + dz * dz)
  return { ox = ox, oy = oy, oz = oz, dx = dx / l, dy = dy / l, dz = dz / l }
end

-- Returns an OBB table (axes given as three unit vectors).
function P.obb(cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz)
  return { cx = cx, cy = cy, cz = cz, hx = hx, hy = hy, hz = hz,
           ux = ux, uy = uy, uz = uz, vx = vx, vy = vy, vz = vz, wx = wx, wy = wy, wz = wz }
end

-- Returns a sphere table.
function P.sphere(cx, cy, cz, r) return { cx = cx, cy = cy, cz = cz, r = r } end

-- true if the point is in the box (inclusive).
function P.aabb_contains(b, x, y, z)
  return x >= b.minx and x <= b.maxx and y >= b.miny and y <= b.maxy and z >= b.minz and z <= b.maxz
end

-- true if the boxes overlap or touch.
function P.aabb_overlaps(a, b)
  return a.minx <= b.maxx and b.minx <= a.maxx and a.miny <= b.maxy and b.miny <= a.maxy
     and a.minz <= b.maxz and b.minz <= a.maxz
end

-- Slab test of o + t*d against [min, max] on one axis, folded into (tmin, tmax, axis):
-- returns the new tmin, tmax, axis, or nil when the slab is missed while parallel.
local function slab(o, d, lo, hi, tmin, tmax, axis, i)
  if d == 0 then
    if o < lo or o > hi then return nil end
    return tmin, tmax, axis
  end
  local t1, t2 = (lo - o) / d, (hi - o) / d
  if t1 > t2 then t1, t2 = t2, t1 end
  if t1 > tmin then tmin, axis = t1, i end
  if t2 < tmax then tmax = t2 end
  return tmin, tmax, axis
end

-- Unit normal -sign(d) along axis i (1, 2, 3).
local function axisnormal(i, dx, dy, dz)
  if i == 1 then return 0 < dx and -1 or 1, 0, 0 end
  if i == 2 then return 0, 0 < dy and -1 or 1, 0 end
  return 0, 0, 0 < dz and -1 or 1
end

-- t, nx, ny, nz of the ray's entry into the box with t <= maxt, or nil; origin inside: 0,0,0,0.
function P.aabb_raycast(b, r, maxt)
  maxt = maxt or huge
  local ox, oy, oz, dx, dy, dz = r.ox, r.oy, r.oz, r.dx, r.dy, r.dz
  if ox >= b.minx and ox <= b.maxx and oy >= b.miny and oy <= b.maxy and oz >= b.minz and oz <= b.maxz then
    return 0, 0, 0, 0
  end
  local tmin, tmax, axis = -huge, huge, 0
  tmin, tmax, axis = slab(ox, dx, b.minx, b.maxx, tmin, tmax, axis, 1)
  if not tmin then return nil end
  tmin, tmax, axis = slab(oy, dy, b.miny, b.maxy, tmin, tmax, axis, 2)
  if not tmin then return nil end
  tmin, tmax, axis = slab(oz, dz, b.minz, b.maxz, tmin, tmax, axis, 3)
  if not tmin then return nil end
  if tmax < tmin or tmax < 0 or tmin > maxt then return nil end
  return tmin, axisnormal(axis, dx, dy, dz)
end

-- tenter, texit of the ray's whole line through the box, or nil (miss or texit < 0).
function P.aabb_clip(b, r)
  local tmin, tmax, axis = -huge, huge, 0
  tmin, tmax, axis = slab(r.ox, r.dx, b.minx, b.maxx, tmin, tmax, axis, 1)
  if not tmin then return nil end
  tmin, tmax, axis = slab(r.oy, r.dy, b.miny, b.maxy, tmin, tmax, axis, 2)
  if not tmin then return nil end
  tmin, tmax = slab(r.oz, r.dz, b.minz, b.maxz, tmin, tmax, axis, 3)
  if not tmin then return nil end
  if tmax < tmin or tmax < 0 then return nil end
  return tmin, tmax
end

-- Segment p1 -> p2: entry fraction f in [0, maxf] and normal, or nil; start inside: 0,0,0,0.
function P.aabb_segment(b, x1, y1, z1, x2, y2, z2, maxf)
  maxf = maxf or 1
  if P.aabb_contains(b, x1, y1, z1) then return 0, 0, 0, 0 end
  local dx, dy, dz = x2 - x1, y2 - y1, z2 - z1
  local tmin, tmax, axis = -huge, huge, 0
  tmin, tmax, axis = slab(x1, dx, b.minx, b.maxx, tmin, tmax, axis, 1)
  if not tmin then return nil end
  tmin, tmax, axis = slab(y1, dy, b.miny, b.maxy, tmin, tmax, axis, 2)
  if not tmin then return nil end
  tmin, tmax, axis = slab(z1, dz, b.minz, b.maxz, tmin, tmax, axis, 3)
  if not tmin then return nil end
  if tmax < tmin or tmax < 0 or tmin > maxf then return nil end
  return tmin, axisnormal(axis, dx, dy, dz)
end

-- Closest point on or in the box.
function P.aabb_closest(b, x, y, z)
  if x < b.minx then x = b.minx elseif x > b.maxx then x = b.maxx end
  if y < b.miny then y = b.miny elseif y > b.maxy then y = b.maxy end
  if z < b.minz then z = b.minz elseif z > b.maxz then z = b.maxz end
  return x, y, z
end

-- 1 wholly in front of n.p + d = 0, -1 wholly behind, 0 crossing or touching.
function P.aabb_plane(b, nx, ny, nz, d)
  -- the corner nearest along n (p-vertex) and the farthest (n-vertex)
  local lo = d + nx * (nx >= 0 and b.minx or b.maxx) + ny * (ny >= 0 and b.miny or b.maxy)
               + nz * (nz >= 0 and b.minz or b.maxz)
  if lo > 0 then return 1 end
  local hi = d + nx * (nx >= 0 and b.maxx or b.minx) + ny * (ny >= 0 and b.maxy or b.miny)
               + nz * (nz >= 0 and b.maxz or b.minz)
  if hi < 0 then return -1 end
  return 0
end

-- true if the point is in the OBB (inclusive; change of basis).
function P.obb_contains(b, x, y, z)
  local px, py, pz = x - b.cx, y - b.cy, z - b.cz
  return abs(px * b.ux + py * b.uy + pz * b.uz) <= b.hx
     and abs(px * b.vx + py * b.vy + pz * b.vz) <= b.hy
     and abs(px * b.wx + py * b.wy + pz * b.wz) <= b.hz
end

-- Scratch tables for the SAT, filled on each call (no garbage per call).
local R, AR = { {}, {}, {} }, { {}, {}, {} }
local A, B = { {}, {}, {} }, { {}, {}, {} }
local ea, eb, t = {}, {}, {}

-- Stores three numbers into the array v.
local function set3(v, x, y, z) v[1], v[2], v[3] = x, y, z end

-- true if two OBBs overlap or touch: separating axis test on 15 axes, skipping cross
-- products of (nearly) parallel edges.
function P.obb_overlaps(a, b)
  set3(A[1], a.ux, a.uy, a.uz); set3(A[2], a.vx, a.vy, a.vz); set3(A[3], a.wx, a.wy, a.wz)
  set3(B[1], b.ux, b.uy, b.uz); set3(B[2], b.vx, b.vy, b.vz); set3(B[3], b.wx, b.wy, b.wz)
  set3(ea, a.hx, a.hy, a.hz); set3(eb, b.hx, b.hy, b.hz)
  for i = 1, 3 do
    local Ai, Ri, ARi = A[i], R[i], AR[i]
    for j = 1, 3 do
      local Bj = B[j]
      local v = Ai[1] * Bj[1] + Ai[2] * Bj[2] + Ai[3] * Bj[3]
      Ri[j] = v
      ARi[j] = abs(v)
    end
  end
  local dx, dy, dz = b.cx - a.cx, b.cy - a.cy, b.cz - a.cz
  set3(t, dx * A[1][1] + dy * A[1][2] + dz * A[1][3],
          dx * A[2][1] + dy * A[2][2] + dz * A[2][3],
          dx * A[3][1] + dy * A[3][2] + dz * A[3][3])
  for i = 1, 3 do          -- a's face axes
    if abs(t[i]) > ea[i] + eb[1] * AR[i][1] + eb[2] * AR[i][2] + eb[3] * AR[i][3] then return false end
  end
  for j = 1, 3 do          -- b's face axes
    local s = t[1] * R[1][j] + t[2] * R[2][j] + t[3] * R[3][j]
    if abs(s) > eb[j] + ea[1] * AR[1][j] + ea[2] * AR[2][j] + ea[3] * AR[3][j] then return false end
  end
  for i = 1, 3 do          -- edge-edge axes a_i x b_j
    local i1, i2 = i % 3 + 1, (i + 1) % 3 + 1
    for j = 1, 3 do
      if 1 - R[i][j] * R[i][j] > 1e-12 then
        local j1, j2 = j % 3 + 1, (j + 1) % 3 + 1
        local ra = ea[i1] * AR[i2][j] + ea[i2] * AR[i1][j]
        local rb = eb[j1] * AR[i][j2] + eb[j2] * AR[i][j1]
        if abs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) > ra + rb then return false end
      end
    end
  end
  return true
end

-- t, nx, ny, nz of the ray's entry into the OBB with t <= maxt, or nil; origin inside: 0,0,0,0.
function P.obb_raycast(b, r, maxt)
  maxt = maxt or huge
  local px, py, pz = r.ox - b.cx, r.oy - b.cy, r.oz - b.cz
  local ox = px * b.ux + py * b.uy + pz * b.uz
  local oy = px * b.vx + py * b.vy + pz * b.vz
  local oz = px * b.wx + py * b.wy + pz * b.wz
  local hx, hy, hz = b.hx, b.hy, b.hz
  if abs(ox) <= hx and abs(oy) <= hy and abs(oz) <= hz then return 0, 0, 0, 0 end
  local dx = r.dx * b.ux + r.dy * b.uy + r.dz * b.uz
  local dy = r.dx * b.vx + r.dy * b.vy + r.dz * b.vz
  local dz = r.dx * b.wx + r.dy * b.wy + r.dz * b.wz
  local tmin, tmax, axis = -huge, huge, 0
  tmin, tmax, axis = slab(ox, dx, -hx, hx, tmin, tmax, axis, 1)
  if not tmin then return nil end
  tmin, tmax, axis = slab(oy, dy, -hy, hy, tmin, tmax, axis, 2)
  if not tmin then return nil end
  tmin, tmax, axis = slab(oz, dz, -hz, hz, tmin, tmax, axis, 3)
  if not tmin then return nil end
  if tmax < tmin or tmax < 0 or tmin > maxt then return nil end
  local s
  if axis == 1 then
    s = dx > 0 and -1 or 1
    return tmin, s * b.ux, s * b.uy, s * b.uz
  elseif axis == 2 then
    s = dy > 0 and -1 or 1
    return tmin, s * b.vx, s * b.vy, s * b.vz
  end
  s = dz > 0 and -1 or 1
  return tmin, s * b.wx, s * b.wy, s * b.wz
end

-- true if two spheres overlap or touch.
function P.sphere_overlaps(a, b)
  local dx, dy, dz, r = b.cx - a.cx, b.cy - a.cy, b.cz - a.cz, a.r + b.r
  return dx * dx + dy * dy + dz * dz <= r * r
end

-- t, nx, ny, nz of the ray's entry into the sphere with t <= maxt, or nil; origin inside: 0,0,0,0.
function P.sphere_raycast(s, r, maxt)
  maxt = maxt or huge
  local mx, my, mz = r.ox - s.cx, r.oy - s.cy, r.oz - s.cz
  local dx, dy, dz = r.dx, r.dy, r.dz
  local b = mx * dx + my * dy + mz * dz
  local c = mx * mx + my * my + mz * mz - s.r * s.r
  if c <= 0 then return 0, 0, 0, 0 end
  if b > 0 then return nil end
  local disc = b * b - c
  if disc < 0 then return nil end
  local t = -b - sqrt(disc)
  if t < 0 then t = 0 end
  if t > maxt then return nil end
  local rad = s.r
  if rad == 0 then return t, -dx, -dy, -dz end
  return t, (mx + t * dx) / rad, (my + t * dy) / rad, (mz + t * dz) / rad
end

-- Open-interior overlap interval of one axis for box b moving by d relative to box a:
-- returns enter, exit (possibly -inf, inf), or nil if never.
local function toiaxis(amin, amax, bmin, bmax, d)
  if d == 0 then
    if (amin < bmax and bmin < amax) or (amin == amax and bmin == bmax and amin == bmin) then
      return -huge, huge
    end
    return nil
  end
  local t1, t2 = (amin - bmax) / d, (amax - bmin) / d
  if t1 > t2 then t1, t2 = t2, t1 end
  return t1, t2
end

-- Time of impact of AABB a moved by da and b moved by db: state, t (see API.md).
function P.toi(a, dax, day, daz, b, dbx, dby, dbz)
  local e1, x1 = toiaxis(a.minx, a.maxx, b.minx, b.maxx, dbx - dax)
  if not e1 then return "separated", 1 end
  local e2, x2 = toiaxis(a.miny, a.maxy, b.miny, b.maxy, dby - day)
  if not e2 then return "separated", 1 end
  local e3, x3 = toiaxis(a.minz, a.maxz, b.minz, b.maxz, dbz - daz)
  if not e3 then return "separated", 1 end
  local enter = e1 > e2 and e1 or e2
  if e3 > enter then enter = e3 end
  local exit = x1 < x2 and x1 or x2
  if x3 < exit then exit = x3 end
  if enter >= exit then return "separated", 1 end
  if enter < 0 then
    if exit > 0 then return "overlapped", 0 end
    return "separated", 1
  end
  if enter < 1 then return "touching", enter end
  return "separated", 1
end

-- Closest point on segment ab to p, and its parameter s in [0, 1].
function P.closestonsegment(px, py, pz, ax, ay, az, bx, by, bz)
  local dx, dy, dz = bx - ax, by - ay, bz - az
  local dd = dx * dx + dy * dy + dz * dz
  if dd == 0 then return ax, ay, az, 0 end
  local s = ((px - ax) * dx + (py - ay) * dy + (pz - az) * dz) / dd
  if s < 0 then s = 0 elseif s > 1 then s = 1 end
  return ax + s * dx, ay + s * dy, az + s * dz, s
end

-- v - (1 + e)(n.v)n.
function P.reflect(vx, vy, vz, nx, ny, nz, e)
  local k = (1 + (e or 1)) * (nx * vx + ny * vy + nz * vz)
  return vx - k * nx, vy - k * ny, vz - k * nz
end

-- Even-odd crossing test; points on an edge or vertex count as inside.
function P.pointinpolygon(poly, x, y)
  local n = #poly
  local inside = false
  local jx, jy = poly[n - 1], poly[n]
  for i = 1, n, 2 do
    local ix, iy = poly[i], poly[i + 1]
    -- on the edge (collinear and within its bounding box)?
    if (ix - x) * (jy - y) - (jx - x) * (iy - y) == 0
       and x >= (ix < jx and ix or jx) and x <= (ix < jx and jx or ix)
       and y >= (iy < jy and iy or jy) and y <= (iy < jy and jy or iy) then
      return true
    end
    if (iy > y) ~= (jy > y) and x < (jx - ix) * (y - iy) / (jy - iy) + ix then
      inside = not inside
    end
    jx, jy = ix, iy
  end
  return inside
end

-- ---- a brute-force "world" for move: a plain array of AABB tables ----

-- First contact of box m moved by (dx, dy, dz) with any other box of the list (open interiors,
-- items overlapping at the start ignored): t, axis (1..3), index; or nil. Contacts at the same t:
-- the fewest axes entering at that t first (a face before an edge before a corner: the seams
-- rule), then list order.
local function firsthit(list, m, dx, dy, dz)
  local best, bestaxis, besti, bestrank = huge, 0, nil, 4
  local mminx, mminy, mminz, mmaxx, mmaxy, mmaxz = m.minx, m.miny, m.minz, m.maxx, m.maxy, m.maxz
  for i = 1, #list do
    local o = list[i]
    if o ~= m then
      -- per-axis open interval of times when the interiors overlap
      local enter, exit, axis = -huge, huge, 0
      local ok, ex, ey, ez = true, nil, nil, nil
      if dx == 0 then
        ok = mminx < o.maxx and o.minx < mmaxx
      else
        local t1, t2 = (o.minx - mmaxx) / dx, (o.maxx - mminx) / dx
        if t1 > t2 then t1, t2 = t2, t1 end
        enter, exit, axis, ex = t1, t2, 1, t1
      end
      if ok then
        if dy == 0 then
          ok = mminy < o.maxy and o.miny < mmaxy
        else
          local t1, t2 = (o.miny - mmaxy) / dy, (o.maxy - mminy) / dy
          if t1 > t2 then t1, t2 = t2, t1 end
          ey = t1
          if t1 > enter then enter, axis = t1, 2 end
          if t2 < exit then exit = t2 end
        end
      end
      if ok then
        if dz == 0 then
          ok = mminz < o.maxz and o.minz < mmaxz
        else
          local t1, t2 = (o.minz - mmaxz) / dz, (o.maxz - mminz) / dz
          if t1 > t2 then t1, t2 = t2, t1 end
          ez = t1
          if t1 > enter then enter, axis = t1, 3 end
          if t2 < exit then exit = t2 end
        end
      end
      if ok and enter < exit and enter >= 0 and enter <= 1 and enter <= best then
        local rank = (ex == enter and 1 or 0) + (ey == enter and 1 or 0) + (ez == enter and 1 or 0)
        if enter < best or rank < bestrank then
          best, bestaxis, besti, bestrank = enter, axis, i, rank
        end
      end
    end
  end
  if besti then return best, bestaxis, besti end
  return nil
end

-- Moves box m (an element of list) by up to (dx, dy, dz), sliding along what it hits, like
-- world:move with the default response. Returns ax, ay, az and the collision list and count.
function P.move(list, m, dx, dy, dz)
  local sx, sy, sz = m.minx, m.miny, m.minz
  local cols, n = {}, 0
  for _ = 1, 16 do
    if dx == 0 and dy == 0 and dz == 0 then break end
    local t, axis, i = firsthit(list, m, dx, dy, dz)
    if not t then
      m.minx, m.maxx = m.minx + dx, m.maxx + dx
      m.miny, m.maxy = m.miny + dy, m.maxy + dy
      m.minz, m.maxz = m.minz + dz, m.maxz + dz
      break
    end
    local o = list[i]
    local nx, ny, nz = axisnormal(axis, dx, dy, dz)
    local mx, my, mz = t * dx, t * dy, t * dz
    m.minx, m.maxx = m.minx + mx, m.maxx + mx
    m.miny, m.maxy = m.miny + my, m.maxy + my
    m.minz, m.maxz = m.minz + mz, m.maxz + mz
    -- snap the touching faces together so rounding never leaves the mover inside
    if axis == 1 then
      local w = m.maxx - m.minx
      if nx < 0 then m.maxx = o.minx; m.minx = o.minx - w else m.minx = o.maxx; m.maxx = o.maxx + w end
    elseif axis == 2 then
      local w = m.maxy - m.miny
      if ny < 0 then m.maxy = o.miny; m.miny = o.miny - w else m.miny = o.maxy; m.maxy = o.maxy + w end
    else
      local w = m.maxz - m.minz
      if nz < 0 then m.maxz = o.minz; m.minz = o.minz - w else m.minz = o.maxz; m.maxz = o.maxz + w end
    end
    n = n + 1
    cols[n] = { other = o, type = "slide", t = t, nx = nx, ny = ny, nz = nz }
    -- slide: the rest of the displacement minus its component along the normal
    local k = 1 - t
    dx, dy, dz = dx * k, dy * k, dz * k
    if axis == 1 then dx = 0 elseif axis == 2 then dy = 0 else dz = 0 end
  end
  return m.minx - sx, m.miny - sy, m.minz - sz, cols, n
end

return P
