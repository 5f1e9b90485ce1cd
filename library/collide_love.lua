---@meta collide.love
-- Lua Language Server definitions for collide.love (require "collide.love"): pure-Lua debug
-- drawing for collide in LÖVE 11.x, a perspective orbit camera and wireframe helpers. Not loaded
-- at run time. See the README, "Using collide in LÖVE".

---An orbit camera (y up, right-handed): eye, view basis and focal length in pixels.
---@class collide.love.Camera
---@field tx number orbit target
---@field ty number
---@field tz number
---@field distance number from the eye to the target
---@field yaw number radians about +y (0 looks down -z from +z)
---@field pitch number radians (positive looks down from above)
---@field fov number vertical field of view, radians
---@field near number near plane distance
---@field width number viewport size in pixels
---@field height number
---@field focal number (height / 2) / tan(fov / 2)
---@field ex number eye position
---@field ey number
---@field ez number
local Camera = {}

---Recomputes the eye and view basis from target, distance, yaw, pitch, fov and size.
---@return collide.love.Camera self
function Camera:update() end

---Rotates about the target (pitch kept within +-89 degrees).
---@param dyaw number
---@param dpitch? number
---@return collide.love.Camera self
function Camera:orbit(dyaw, dpitch) end

---Multiplies the distance to the target by factor (clamped to [0.5, 5000]).
---@param factor number
---@return collide.love.Camera self
function Camera:zoom(factor) end

---Moves the orbit target.
---@param x number
---@param y number
---@param z number
---@return collide.love.Camera self
function Camera:lookat(x, y, z) end

---Sets the viewport size in pixels.
---@param w number
---@param h number
---@return collide.love.Camera self
function Camera:resize(w, h) end

---The eye position.
---@return number x
---@return number y
---@return number z
function Camera:eye() end

---View-space coordinates of a world point: right, up, depth.
---@param x number
---@param y number
---@param z number
---@return number right
---@return number up
---@return number depth
function Camera:view(x, y, z) end

---Screen position and depth of a world point, or nil when it is closer than the near plane.
---@param x number
---@param y number
---@param z number
---@return number? sx
---@return number? sy
---@return number? depth
function Camera:project(x, y, z) end

---The ray through screen pixel sx, sy: the eye and a unit direction (arguments for collide.Ray).
---@param sx number
---@param sy number
---@return number ox
---@return number oy
---@return number oz
---@return number dx
---@return number dy
---@return number dz
function Camera:unproject(sx, sy) end

---The screen segment of a world segment clipped to the near plane, or nil when wholly behind it.
---@param x1 number
---@param y1 number
---@param z1 number
---@param x2 number
---@param y2 number
---@param z2 number
---@return number? x1
---@return number? y1
---@return number? x2
---@return number? y2
function Camera:segment(x1, y1, z1, x2, y2, z2) end

---The 4x4 view-projection matrix, 16 numbers row by row (love.math.Transform:getMatrix order),
---OpenGL clip space from the near plane to far, the projection of project/unproject: for
---shader:send(name, "row", m) and collide.frustum(m).
---@param far? number default 1000
---@param out? number[] filled and returned
---@return number[] m
function Camera:viewprojection(far, out) end

---@class collide.love
---@field Camera collide.love.Camera the camera metatable's index table
local M = {}

---@class collide.love.CameraOptions
---@field target? number[] {x,y,z}, default the origin
---@field distance? number default 10
---@field yaw? number default 0
---@field pitch? number default 0
---@field fov? number vertical, radians, default 60 degrees
---@field near? number default 0.05
---@field width? number default the window's
---@field height? number

---A new camera.
---@param opts? collide.love.CameraOptions
---@return collide.love.Camera
function M.camera(opts) end

---Draws a world segment in the current colour; true if any of it was in front of the camera.
---@param cam collide.love.Camera
---@param x1 number
---@param y1 number
---@param z1 number
---@param x2 number
---@param y2 number
---@param z2 number
---@return boolean
function M.line(cam, x1, y1, z1, x2, y2, z2) end

---Draws a dot of radius r pixels (default 4) at a world point; true if visible.
---@param cam collide.love.Camera
---@param x number
---@param y number
---@param z number
---@param r? number
---@return boolean
function M.point(cam, x, y, z, r) end

---Draws the 12 edges of the box with centre c, half sizes h and axes u, v, w.
---@param cam collide.love.Camera
---@param cx number
---@param cy number
---@param cz number
---@param hx number
---@param hy number
---@param hz number
---@param ux number
---@param uy number
---@param uz number
---@param vx number
---@param vy number
---@param vz number
---@param wx number
---@param wy number
---@param wz number
function M.box(cam, cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz) end

---Draws a sphere's three axis circles and its silhouette.
---@param cam collide.love.Camera
---@param cx number
---@param cy number
---@param cz number
---@param r number
---@param segments? integer per circle, default 24
function M.sphere(cam, cx, cy, cz, r, segments) end

---Draws a capsule (segment a-b, radius r) as its two end spheres and four lines along its sides.
---@param cam collide.love.Camera
---@param ax number
---@param ay number
---@param az number
---@param bx number
---@param by number
---@param bz number
---@param r number
---@param segments? integer per circle, default 24
function M.capsule(cam, ax, ay, az, bx, by, bz, r, segments) end

---Draws the edges of a mesh's triangles, placed as a World places a mesh item: vertex (x, y, z)
---at c + x u + y v + z w (default c = 0 and the world axes). Draws every triangle.
---@param cam collide.love.Camera
---@param mesh collide.Mesh
---@param cx? number
---@param cy? number
---@param cz? number
---@param ux? number
---@param uy? number
---@param uz? number
---@param vx? number
---@param vy? number
---@param vz? number
---@param wx? number
---@param wy? number
---@param wz? number
function M.mesh(cam, mesh, cx, cy, cz, ux, uy, uz, vx, vy, vz, wx, wy, wz) end

---Draws an AABB, OBB, Sphere, Capsule, or a Mesh followed by the placement numbers world:shape
---returns, as a wireframe; raises for other values.
---@param cam collide.love.Camera
---@param s collide.AABB|collide.OBB|collide.Sphere|collide.Capsule|collide.Mesh
---@param ... number a mesh's placement (cx,cy,cz, ux,uy,uz, vx,vy,vz, wx,wy,wz)
function M.shape(cam, s, ...) end

---Draws a ray to distance length (default 100) with a dot at its origin.
---@param cam collide.love.Camera
---@param ray collide.Ray
---@param length? number
function M.ray(cam, ray, length) end

---Draws a hit point and its normal (length len, default 0.5, colour normalcolor, default yellow).
---@param cam collide.love.Camera
---@param x number
---@param y number
---@param z number
---@param nx number
---@param ny number
---@param nz number
---@param len? number
---@param normalcolor? number[]
function M.hit(cam, x, y, z, nx, ny, nz, len, normalcolor) end

---Draws the hit t, nx, ny, nz of a raycast on ray (nothing when t is nil); returns the point.
---@param cam collide.love.Camera
---@param ray collide.Ray
---@param t number?
---@param nx number?
---@param ny number?
---@param nz number?
---@param len? number
---@param normalcolor? number[]
---@return number? x
---@return number? y
---@return number? z
function M.rayhit(cam, ray, t, nx, ny, nz, len, normalcolor) end

---Draws a grid on the plane y = level, lines every step from -half to half.
---@param cam collide.love.Camera
---@param half? number default 10
---@param step? number default 1
---@param level? number default 0
function M.grid(cam, half, step, level) end

---Draws the x, y, z axes (red, green, blue) from the origin.
---@param cam collide.love.Camera
---@param len? number default 1
function M.axes(cam, len) end

---Draws every item whose shape overlaps region (default everything); returns how many.
---@param cam collide.love.Camera
---@param world collide.World
---@param region? collide.AABB|collide.OBB|collide.Sphere
---@param color? fun(item: any, shape: any): number?, number?, number?, number?
---@return integer n
function M.world(cam, world, region, color) end

return M
