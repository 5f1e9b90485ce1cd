--- collide.love: pure-Lua debug drawing for collide in LÖVE 11.x.
-- A small perspective camera (orbit around a target, y up, right-handed) projects 3D points to
-- the screen, and wireframe helpers draw shapes, rays, hits and a world's contents with
-- love.graphics 2D primitives (no shaders, no depth buffer). Colours are the caller's
-- (love.graphics.setColor) unless a function takes one. For solid 3D drawing with a shader of
-- your own, cam:viewprojection() gives the camera's matrix (examples/love-walker does that).
--
--   local cl = require "collide.love"
--   local cam = cl.camera { target = { 1, 1, 1 }, distance = 8, yaw = 0.6, pitch = 0.4 }
--   function love.draw() cl.shape(cam, box); cl.ray(cam, ray, 5) end

local M = {}

local sqrt, sin, cos, tan = math.sqrt, math.sin, math.cos, math.tan
local pi = math.pi

local Camera = {}
Camera.__index = Camera

local function normalize(x, y, z)
  local l = sqrt(x * x + y * y + z * z)
  if l == 0 then return 0, 0, 0 end
  return x / l, y / l, z / l
end

local function cross(ax, ay, az, bx, by, bz)
  return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx
end

--- Returns a new camera. Options (all optional): target {x,y,z} (default origin), distance (10),
-- yaw (radians about +y, 0 looks down -z from +z), pitch (radians, positive looks down from
-- above), fov (vertical field of view in radians, 60 degrees), near (0.05), width/height (the
-- window size when omitted).
function M.camera(opts)
  opts = opts or {}
  local t = opts.target or { 0, 0, 0 }
  local w, h = opts.width, opts.height
  if not w and love and love.graphics and love.graphics.getDimensions then
    w, h = love.graphics.getDimensions()
  end
  local cam = setmetatable({
    tx = t[1], ty = t[2], tz = t[3],
    distance = opts.distance or 10,
    yaw = opts.yaw or 0,
    pitch = opts.pitch or 0,
    fov = opts.fov or pi / 3,
    near = opts.near or 0.05,
    width = w or 800, height = h or 600,
  }, Camera)
  cam:update()
  return cam
end

--- Recomputes the eye and view basis from target, distance, yaw, pitch, fov and size; returns self.
function Camera:update()
  local cp = cos(self.pitch)
  self.ex = self.tx + self.distance * cp * sin(self.yaw)
  self.ey = self.ty + self.distance * sin(self.pitch)
  self.ez = self.tz + self.distance * cp * cos(self.yaw)
  local fx, fy, fz = normalize(self.tx - self.ex, self.ty - self.ey, self.tz - self.ez)
  local rx, ry, rz = normalize(cross(fx, fy, fz, 0, 1, 0))
  if rx == 0 and ry == 0 and rz == 0 then rx, ry, rz = 1, 0, 0 end
  local ux, uy, uz = cross(rx, ry, rz, fx, fy, fz)
  self.fx, self.fy, self.fz = fx, fy, fz
  self.rx, self.ry, self.rz = rx, ry, rz
  self.ux, self.uy, self.uz = ux, uy, uz
  self.focal = (self.height / 2) / tan(self.fov / 2)
  return self
end

--- Rotates the camera about its target by dyaw, dpitch radians (pitch kept within +-89 degrees);
-- returns self.
function Camera:orbit(dyaw, dpitch)
  local lim = pi / 2 - 0.02
  self.yaw = self.yaw + dyaw
  self.pitch = math.max(-lim, math.min(lim, self.pitch + (dpitch or 0)))
  return self:update()
end

--- Multiplies the distance to the target by factor (clamped to [0.5, 5000]); returns self.
function Camera:zoom(factor)
  self.distance = math.max(0.5, math.min(5000, self.distance * factor))
  return self:update()
end

--- Moves the orbit target to x, y, z; returns self.
function Camera:lookat(x, y, z)
  self.tx, self.ty, self.tz = x, y, z
  return self:update()
end

--- Sets the viewport size in pixels; returns self.
function Camera:resize(w, h)
  self.width, self.height = w, h
  return self:update()
end

--- Returns the eye position x, y, z.
function Camera:eye()
  return self.ex, self.ey, self.ez
end

--- Returns view-space coordinates (right, up, depth) of a world point.
function Camera:view(x, y, z)
  local vx, vy, vz = x - self.ex, y - self.ey, z - self.ez
  return vx * self.rx + vy * self.ry + vz * self.rz,
         vx * self.ux + vy * self.uy + vz * self.uz,
         vx * self.fx + vy * self.fy + vz * self.fz
end

--- Returns screen x, y and depth of a world point, or nil when it is closer than the near plane.
function Camera:project(x, y, z)
  local vx, vy, vz = self:view(x, y, z)
  if vz < self.near then return nil end
  local s = self.focal / vz
  return self.width / 2 + vx * s, self.height / 2 - vy * s, vz
end

--- Returns the ray through screen pixel sx, sy: origin (the eye) and unit direction, 6 numbers
-- suitable for collide.Ray.
function Camera:unproject(sx, sy)
  local a = (sx - self.width / 2) / self.focal
  local b = -(sy - self.height / 2) / self.focal
  local dx, dy, dz = normalize(self.fx + a * self.rx + b * self.ux,
                               self.fy + a * self.ry + b * self.uy,
                               self.fz + a * self.rz + b * self.uz)
  return self.ex, self.ey, self.ez, dx, dy, dz
end

--- Returns the screen segment x1, y1, x2, y2 of the world segment clipped to the near plane,
-- or nil when the whole segment is behind it.
function Camera:segment(x1, y1, z1, x2, y2, z2)
  local ax, ay, az = self:view(x1, y1, z1)
  local bx, by, bz = self:view(x2, y2, z2)
  local n = self.near
  if az < n and bz < n then return nil end
  if az < n then
    local f = (n - az) / (bz - az)
    ax, ay, az = ax + f * (bx - ax), ay + f * (by - ay), n
  elseif bz < n then
    local f = (n - bz) / (az - bz)
    bx, by, bz = bx + f * (ax - bx), by + f * (ay - by), n
  end
  local hw, hh = self.width / 2, self.height / 2
  local sa, sb = self.focal / az, self.focal / bz
  return hw + ax * sa, hh - ay * sa, hw + bx * sb, hh - by * sb
end

--- Returns the camera's 4x4 view-projection matrix as a table of 16 numbers, row by row (the
-- order love.math.Transform:getMatrix uses): OpenGL's clip space, depth from the near plane to
-- far (default 1000), the same projection as project and unproject. Fills and returns out when
-- given. Send it to a shader with shader:send(name, "row", m); collide.frustum(m) culls with it.
function Camera:viewprojection(far, out)
  far = far or 1000
  local n = self.near
  local sx, sy = 2 * self.focal / self.width, 2 * self.focal / self.height
  local a, b = (far + n) / (far - n), -2 * far * n / (far - n)
  local ex, ey, ez = self.ex, self.ey, self.ez
  local m = out or {}
  m[1], m[2], m[3] = sx * self.rx, sx * self.ry, sx * self.rz
  m[4] = -sx * (self.rx * ex + self.ry * ey + self.rz * ez)
  m[5], m[6], m[7] = sy * self.ux, sy * self.uy, sy * self.uz
  m[8] = -sy * (self.ux * ex + self.uy * ey + self.uz * ez)
  local fe = self.fx * ex + self.fy * ey + self.fz * ez
  m[9], m[10], m[11], m[12] = a * self.fx, a * self.fy, a * self.fz, b - a * fe
  m[13], m[14], m[15], m[16] = self.fx, self.fy, self.fz, -fe
  return m
end

M.Camera = Camera

--- Draws the world segment (x1,y1,z1)-(x2,y2,z2) with the current colour and line width;
-- returns true if any of it was in front of the camera.
function M.line(cam, x1, y1, z1, x2, y2, z2)
  local a, b, c, d = cam:segment(x1, y1, z1, x2, y2, z2)
  if not a then return false end
  love.graphics.line(a, b, c, d)
  return true
end

--- Draws a filled dot of radius r pixels (default 4) at a world point; returns true if visible.
function M.point(cam, x, y, z, r)
  local sx, sy = cam:project(x, y, z)
  if not sx then return false end
  love.graphics.circle("fill", sx, sy, r or 4)
  return true
end

-- The 12 edges of a box given as corner index pairs; corner i has bit 0 = x, 1 = y, 2 = z.
local EDGES = { 0,1, 2,3, 4,5, 6,7, 0,2, 1,3, 4,6, 5,7, 0,4, 1,5, 2,6, 3,7 }

--- Draws the 12 edges of the box with centre c, half sizes h and axes u, v, w (9 numbers).
function M.box(cam, cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz)
  local px, py, pz = {}, {}, {}
  for i = 0, 7 do
    local sx = (i % 2 == 1) and hx or -hx
    local sy = (math.floor(i / 2) % 2 == 1) and hy or -hy
    local sz = (i >= 4) and hz or -hz
    px[i] = cx + sx * ux + sy * vx + sz * wx
    py[i] = cy + sx * uy + sy * vy + sz * wy
    pz[i] = cz + sx * uz + sy * vz + sz * wz
  end
  for e = 1, #EDGES, 2 do
    local a, b = EDGES[e], EDGES[e + 1]
    M.line(cam, px[a], py[a], pz[a], px[b], py[b], pz[b])
  end
end

--- Draws a sphere as its three axis circles plus its screen silhouette (segments per circle,
-- default 24).
function M.sphere(cam, cx, cy, cz, r, segments)
  segments = segments or 24
  local step = 2 * pi / segments
  for axis = 1, 3 do
    local lx, ly, lz
    for i = 0, segments do
      local a, b = cos(i * step) * r, sin(i * step) * r
      local x, y, z
      if axis == 1 then x, y, z = cx, cy + a, cz + b
      elseif axis == 2 then x, y, z = cx + a, cy, cz + b
      else x, y, z = cx + a, cy + b, cz end
      if lx then M.line(cam, lx, ly, lz, x, y, z) end
      lx, ly, lz = x, y, z
    end
  end
  local sx, sy, depth = cam:project(cx, cy, cz)
  if sx and depth > r then
    love.graphics.circle("line", sx, sy, r * cam.focal / sqrt(depth * depth - r * r))
  end
end

--- Draws a capsule (segment a-b, radius r) as its two end spheres and four lines along its
-- sides (segments per circle, default 24).
function M.capsule(cam, ax, ay, az, bx, by, bz, r, segments)
  M.sphere(cam, ax, ay, az, r, segments)
  M.sphere(cam, bx, by, bz, r, segments)
  local dx, dy, dz = bx - ax, by - ay, bz - az
  if dx == 0 and dy == 0 and dz == 0 then return end
  -- two unit vectors across the segment: the world axis least along it, crossed twice
  local ex, ey, ez = 1, 0, 0
  if math.abs(dy) <= math.abs(dx) and math.abs(dy) <= math.abs(dz) then ex, ey, ez = 0, 1, 0
  elseif math.abs(dz) <= math.abs(dx) then ex, ey, ez = 0, 0, 1 end
  local px, py, pz = normalize(cross(dx, dy, dz, ex, ey, ez))
  local qx, qy, qz = normalize(cross(dx, dy, dz, px, py, pz))
  for _, o in ipairs { { px, py, pz }, { -px, -py, -pz }, { qx, qy, qz }, { -qx, -qy, -qz } } do
    local ox, oy, oz = o[1] * r, o[2] * r, o[3] * r
    M.line(cam, ax + ox, ay + oy, az + oz, bx + ox, by + oy, bz + oz)
  end
end

--- Draws the edges of a collide.Mesh's triangles, placed as a World places a mesh item: vertex
-- (x, y, z) at c + x u + y v + z w (default c = 0 and the world axes). Every triangle is drawn:
-- for a large mesh, draw it once into a canvas or a love Mesh instead.
function M.mesh(cam, mesh, cx, cy, cz, ux, uy, uz, vx, vy, vz, wx, wy, wz)
  cx, cy, cz = cx or 0, cy or 0, cz or 0
  if not ux then ux, uy, uz, vx, vy, vz, wx, wy, wz = 1, 0, 0, 0, 1, 0, 0, 0, 1 end
  local function place(x, y, z)
    return cx + x * ux + y * vx + z * wx, cy + x * uy + y * vy + z * wy, cz + x * uz + y * vz + z * wz
  end
  for i = 1, mesh:count() do
    local ax, ay, az, bx, by, bz, qx, qy, qz = mesh:triangle(i)
    ax, ay, az = place(ax, ay, az)
    bx, by, bz = place(bx, by, bz)
    qx, qy, qz = place(qx, qy, qz)
    M.line(cam, ax, ay, az, bx, by, bz)
    M.line(cam, bx, by, bz, qx, qy, qz)
    M.line(cam, qx, qy, qz, ax, ay, az)
  end
end

--- Draws any collide shape (AABB, OBB, Sphere, Capsule, or a Mesh with the placement numbers
-- world:shape returns after it) as a wireframe; raises for other values.
function M.shape(cam, s, ...)
  local collide = package.loaded.collide or require("collide")
  local kind = collide.type(s)
  if kind == "AABB" then
    local cx, cy, cz = s:center()
    local hx, hy, hz = s:extents()
    M.box(cam, cx, cy, cz, hx, hy, hz, 1, 0, 0, 0, 1, 0, 0, 0, 1)
  elseif kind == "OBB" then
    local cx, cy, cz = s:center()
    local hx, hy, hz = s:extents()
    M.box(cam, cx, cy, cz, hx, hy, hz, s:axes())
  elseif kind == "Sphere" then
    local cx, cy, cz = s:center()
    M.sphere(cam, cx, cy, cz, s:radius())
  elseif kind == "Capsule" then
    local ax, ay, az, bx, by, bz = s:segment()
    M.capsule(cam, ax, ay, az, bx, by, bz, s:radius())
  elseif kind == "Mesh" then
    M.mesh(cam, s, ...)
  else
    error("bad argument #2 to 'shape' (collide.AABB, collide.OBB, collide.Sphere, collide.Capsule or "
      .. "collide.Mesh expected, got "
      .. (kind or type(s)) .. ")", 2)
  end
end

--- Draws a ray from its origin to distance length (default 100) with a dot at the origin.
function M.ray(cam, ray, length)
  length = length or 100
  local ox, oy, oz = ray:origin()
  local ex, ey, ez = ray:at(length)
  M.line(cam, ox, oy, oz, ex, ey, ez)
  M.point(cam, ox, oy, oz, 3)
end

--- Draws a hit: a dot at the point and the normal as a line of length len (default 0.5) in
-- colour normalcolor (default yellow); restores the previous colour.
function M.hit(cam, x, y, z, nx, ny, nz, len, normalcolor)
  len = len or 0.5
  local r, g, b, a = love.graphics.getColor()
  M.point(cam, x, y, z, 5)
  love.graphics.setColor(normalcolor or { 1, 1, 0, 1 })
  M.line(cam, x, y, z, x + nx * len, y + ny * len, z + nz * len)
  love.graphics.setColor(r, g, b, a)
end

--- Draws a ray's hit returned by shape:raycast / ray:cast (t, nx, ny, nz) on ray; does nothing
-- when t is nil. Returns the hit point x, y, z when there is one.
function M.rayhit(cam, ray, t, nx, ny, nz, len, normalcolor)
  if not t then return nil end
  local x, y, z = ray:at(t)
  M.hit(cam, x, y, z, nx, ny, nz, len, normalcolor)
  return x, y, z
end

--- Draws the ground grid: lines every step units from -half to half on the plane y = level.
function M.grid(cam, half, step, level)
  half, step, level = half or 10, step or 1, level or 0
  for v = -half, half, step do
    M.line(cam, v, level, -half, v, level, half)
    M.line(cam, -half, level, v, half, level, v)
  end
end

--- Draws the x (red), y (green), z (blue) axes from the origin with length len (default 1);
-- restores the previous colour.
function M.axes(cam, len)
  len = len or 1
  local r, g, b, a = love.graphics.getColor()
  love.graphics.setColor(1, 0.3, 0.3); M.line(cam, 0, 0, 0, len, 0, 0)
  love.graphics.setColor(0.3, 1, 0.3); M.line(cam, 0, 0, 0, 0, len, 0)
  love.graphics.setColor(0.3, 0.3, 1); M.line(cam, 0, 0, 0, 0, 0, len)
  love.graphics.setColor(r, g, b, a)
end

local everything

--- Draws every item of a world whose shape overlaps region (default: a box of +-1e15) and
-- returns how many were drawn. color(item, shape) may return r, g, b[, a] per item (nil keeps
-- the current colour). Uses world:query, so items come in the order they were added.
function M.world(cam, world, region, color)
  local collide = package.loaded.collide or require("collide")
  if not region then
    everything = everything or collide.AABB(-1e15, -1e15, -1e15, 1e15, 1e15, 1e15)
    region = everything
  end
  local items, n = world:query(region)
  local r, g, b, a = love.graphics.getColor()
  for i = 1, n do
    local item = items[i]
    if color then
      local cr, cg, cb, ca = color(item, (world:shape(item)))
      if cr then love.graphics.setColor(cr, cg, cb, ca or 1) else love.graphics.setColor(r, g, b, a) end
    end
    M.shape(cam, world:shape(item))
  end
  love.graphics.setColor(r, g, b, a)
  return n
end

return M
