-- collide walker demo for LÖVE 11.x: a capsule character walks over a level read from level.obj with
-- collide.obj (a tessellated floor, a ramp, steps, walls and pillars; one Mesh item in a World),
-- the mouse ray picks the level's triangle under the cursor (world:raycast reports it; drawn
-- highlighted), and a field of 2,000 boxes round the level is
-- culled to the view frustum with collide.frustum and world:queryplanes. Drawn in 3D with a
-- small shader (a view-projection matrix from collide.love's camera) and a depth buffer.
-- Started by `make love-walker`.
--
-- Keys: WASD / arrows walk (relative to the camera), space jumps, right mouse drag or Q/E
-- orbits, wheel zooms, Esc quits.
--
-- Command line (all optional; the test modes exit by themselves):
--   --so PATH          load collide.so from PATH (default: require "collide", then the repository's build)
--   --screenshot PATH  play the scripted walk up the ramp, save a PNG of the frame on its middle,
--                      check it and the rest of the walk (onto the platform, down the steps and
--                      back up), quit (exit 1 when a check fails)
--   --frames N         smoke test: N frames of scripted input, then quit
--   --scenery N        number of scenery boxes (default 2000)
--   --player KIND      the player's shape: capsule (default; radius 0.35 m, 1.8 m tall) or box
--                      (an AABB 0.7 x 1.8 x 0.7 m)

local opts = { scenery = 2000, player = "capsule" }
local collide, cl, obj, level

local FAR = 70                          -- the far plane: scenery beyond it is culled
local SPEED, GRAVITY, JUMP = 3, 20, 7   -- m/s, m/s^2, m/s
local RADIUS, HEIGHT = 0.35, 1.8        -- the player's capsule: radius, total height
local START = { 0, 0, 7.5 }             -- the player's feet at the start, south of the ramp
local PLAYER_RGB = { 1, 0.55, 0.1 }
local PICK_RGB = { 1, 0.1, 0.9 }

local world, scenery, mesh               -- collide: the level's World, the scenery's World, the level Mesh
local player, character, levelitem
local state = { vy = 0, grounded = false }
local cam, vp = nil, {}                  -- collide.love camera and its view-projection matrix
local pick                               -- the mouse ray's hit: { t=, x=, y=, z=, nx=, ny=, nz=, tri= }
local cull = { planes = {}, out = {}, n = 0, total = 0, ms = 0 }
local gfx = {}                           -- LÖVE shader and meshes
local frame, movems = 0, 0
local walk = { feet = {}, grounded = {}, worst = 0, frames = 0 } -- the scripted walk's record per frame

-- Returns the options parsed from LÖVE's argument list; raises on an unknown option.
local function parseargs(args)
  local i = 1
  while args[i] do
    local a = args[i]
    if a == "--so" or a == "--screenshot" or a == "--player" then
      opts[a:sub(3)] = assert(args[i + 1], a .. " needs a value"); i = i + 2
    elseif a == "--frames" or a == "--scenery" then
      opts[a:sub(3)] = assert(tonumber(args[i + 1]), a .. " needs a number"); i = i + 2
    else
      error("unknown option " .. a)
    end
  end
  if opts.player ~= "box" and opts.player ~= "capsule" then error("--player must be capsule or box") end
end

-- Loads collide (from --so, require, or the repository's LuaJIT build), collide.love and collide.obj.
local function loadmodules()
  local root = love.filesystem.getSource() .. "/../.."
  if opts.so then
    local open, err = package.loadlib(opts.so, "luaopen_collide")
    if not open then error("cannot load " .. opts.so .. ": " .. tostring(err)) end
    package.loaded.collide = open("collide")
  elseif not pcall(require, "collide") then
    package.cpath = root .. "/build/luajit/?.so;" .. package.cpath
  end
  package.path = package.path .. ";" .. root .. "/lua/?.lua"
  collide, cl, obj = require("collide"), require("collide.love"), require("collide.obj")
  level = require("level")
end

---------------------------------------------------------------- the level and the player

-- Returns the player's shape with its feet at x, y, z: a capsule or a box (--player).
local function playershape(x, y, z)
  if opts.player == "capsule" then
    return collide.Capsule(x, y + RADIUS, z, x, y + HEIGHT - RADIUS, z, RADIUS)
  end
  return collide.AABB(x - RADIUS, y, z - RADIUS, x + RADIUS, y + HEIGHT, z + RADIUS)
end

-- Returns the player's feet x, y, z from its shape in the world.
local function feet()
  local s = world:shape(player)
  if collide.type(s) == "AABB" then
    local minx, miny, minz, maxx, _, maxz = s:bounds()
    return (minx + maxx) / 2, miny, (minz + maxz) / 2
  end
  local ax, ay, az = s:segment()
  return ax, ay - s:radius(), az
end

-- Reads level.obj, builds the Mesh and the World (the mesh as one item) with the player's
-- Character in it.
local function loadlevel()
  local text = assert(love.filesystem.read("level.obj"))
  local vertices, indices = obj.parse(text, "level.obj")
  mesh = collide.Mesh(vertices, indices)
  world = collide.World()
  levelitem = { name = "level" }
  world:add(levelitem, mesh)
  player = { name = "player" }
  world:add(player, playershape(START[1], START[2], START[3]))
  character = collide.Character(world, player, { step = 0.3, snap = 0.3, maxslope = math.rad(50) })
end

-- Returns a deterministic pseudo-random number generator (Park-Miller) seeded with s.
local function rng(s)
  local state = s
  return function(lo, hi)
    state = (state * 16807) % 2147483647
    return lo + (hi - lo) * (state / 2147483647)
  end
end

-- Fills the scenery World with opts.scenery boxes standing on the ground outside the walls.
local function loadscenery()
  scenery = collide.World()
  local rand = rng(4242)
  local n = 0
  while n < opts.scenery do
    local x, z = rand(-60, 60), rand(-60, 60)
    if math.abs(x) > 12 or math.abs(z) > 12 then
      n = n + 1
      local hw, h = rand(0.3, 0.9), rand(1, 5)
      local box = { cx = x, cy = h / 2, cz = z, sx = 2 * hw, sy = h, sz = 2 * hw,
                    r = rand(0.2, 0.4), g = rand(0.45, 0.7), b = rand(0.3, 0.5) }
      scenery:add(box, collide.AABB(x - hw, 0, z - hw, x + hw, h, z + hw))
    end
  end
  cull.total = n
end

---------------------------------------------------------------- drawing

local VERTEX_FORMAT = { { "VertexPosition", "float", 3 }, { "VertexNormal", "float", 3 }, { "VertexColor", "byte", 4 } }

-- The shader: positions scaled and offset (a per-draw model transform), then the camera's
-- view-projection; `bias` pulls depth toward the eye (outlines and highlights drawn over
-- surfaces); `lit` mixes in a two-sided light from above.
local SHADER = [[
uniform mat4 viewproj;
uniform vec3 offset;
uniform vec3 scale;
uniform float bias;
uniform float lit;
varying vec3 normal;
#ifdef VERTEX
attribute vec3 VertexNormal;
vec4 position(mat4 unused, vec4 p) {
  normal = VertexNormal;
  vec4 clip = viewproj * vec4(p.xyz * scale + offset, 1.0);
  clip.z -= bias * clip.w;
  return clip;
}
#endif
#ifdef PIXEL
vec4 effect(vec4 color, Image tex, vec2 uv, vec2 screen) {
  float d = abs(dot(normalize(normal), normalize(vec3(0.4, 1.0, 0.25))));
  return vec4(color.rgb * mix(1.0, 0.5 + 0.5 * d, lit), color.a);
}
#endif
]]

-- Returns the unit normal of triangle a, b, c (tables of 3 numbers).
local function trinormal(a, b, c)
  local ux, uy, uz = b[1] - a[1], b[2] - a[2], b[3] - a[3]
  local vx, vy, vz = c[1] - a[1], c[2] - a[2], c[3] - a[3]
  local nx, ny, nz = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
  local l = math.sqrt(nx * nx + ny * ny + nz * nz)
  return nx / l, ny / l, nz / l
end

-- Returns the colour of a level triangle from its geometry: a checkered floor, blue slopes,
-- sand-coloured tops, grey walls.
local function levelcolor(ny, cx, cy, cz)
  if ny > 0.999 then
    if cy < 1e-9 then
      if (math.floor(cx) + math.floor(cz)) % 2 == 0 then return 0.58, 0.6, 0.62 end
      return 0.46, 0.48, 0.5
    end
    return 0.86, 0.76, 0.5
  elseif ny > 0.2 then
    return 0.35, 0.6, 0.95
  end
  return 0.68, 0.66, 0.64
end

-- Returns a LÖVE mesh of the collide mesh's triangles, flat shaded (three vertices per triangle).
local function levelmesh(m)
  local verts = {}
  for i = 1, m:count() do
    local ax, ay, az, bx, by, bz, cx, cy, cz = m:triangle(i)
    local nx, ny, nz = trinormal({ ax, ay, az }, { bx, by, bz }, { cx, cy, cz })
    local r, g, b = levelcolor(ny, (ax + bx + cx) / 3, (ay + by + cy) / 3, (az + bz + cz) / 3)
    for _, p in ipairs { { ax, ay, az }, { bx, by, bz }, { cx, cy, cz } } do
      verts[#verts + 1] = { p[1], p[2], p[3], nx, ny, nz, r, g, b, 1 }
    end
  end
  return love.graphics.newMesh(VERTEX_FORMAT, verts, "triangles", "static")
end

-- Returns a LÖVE mesh of the unit cube centred on the origin (white, face normals).
local function cubemesh()
  local verts = {}
  for axis = 1, 3 do
    for _, sgn in ipairs { -0.5, 0.5 } do
      local corners = {}
      for _, st in ipairs { { -0.5, -0.5 }, { 0.5, -0.5 }, { 0.5, 0.5 }, { -0.5, 0.5 } } do
        local p = { 0, 0, 0 }
        p[axis], p[axis % 3 + 1], p[(axis + 1) % 3 + 1] = sgn, st[1], st[2]
        corners[#corners + 1] = p
      end
      local n = { 0, 0, 0 }
      n[axis] = sgn * 2
      for _, k in ipairs { 1, 2, 3, 1, 3, 4 } do
        local p = corners[k]
        verts[#verts + 1] = { p[1], p[2], p[3], n[1], n[2], n[3], 1, 1, 1, 1 }
      end
    end
  end
  return love.graphics.newMesh(VERTEX_FORMAT, verts, "triangles", "static")
end

-- Returns a LÖVE mesh of a vertical capsule (radius r, segment from y = -h to y = h), smooth
-- normals, white: rings of latitude from the bottom pole to the top pole, each stitched to the next.
local function capsulemesh(r, h, sides, rings)
  local ring = {}
  for k = 0, rings do
    local phi = -math.pi / 2 + math.pi * k / rings
    local y = r * math.sin(phi) + (k < rings / 2 and -h or h)
    ring[#ring + 1] = { y, math.cos(phi), math.sin(phi) }
    if k * 2 == rings then ring[#ring + 1] = { r * math.sin(phi) - h, 1, 0 } end
  end
  table.sort(ring, function(a, b) return a[1] < b[1] end)
  local verts = {}
  local function vertex(rg, s)
    local t = 2 * math.pi * s / sides
    local c, sn = math.cos(t), math.sin(t)
    verts[#verts + 1] = { r * rg[2] * c, rg[1], r * rg[2] * sn, rg[2] * c, rg[3], rg[2] * sn, 1, 1, 1, 1 }
  end
  for k = 1, #ring - 1 do
    local a, b = ring[k], ring[k + 1]
    for s = 0, sides - 1 do
      vertex(a, s); vertex(a, s + 1); vertex(b, s + 1)
      vertex(a, s); vertex(b, s + 1); vertex(b, s)
    end
  end
  return love.graphics.newMesh(VERTEX_FORMAT, verts, "triangles", "static")
end

-- Creates the shader and the LÖVE meshes.
local function loadgraphics()
  gfx.shader = love.graphics.newShader(SHADER)
  gfx.level = levelmesh(mesh)
  gfx.cube = cubemesh()
  gfx.capsule = capsulemesh(RADIUS, HEIGHT / 2 - RADIUS, 24, 12)
  gfx.ground = love.graphics.newMesh(VERTEX_FORMAT, {
    { -70, -0.02, -70, 0, 1, 0, 0.16, 0.22, 0.16, 1 }, { -70, -0.02, 70, 0, 1, 0, 0.16, 0.22, 0.16, 1 },
    { 70, -0.02, 70, 0, 1, 0, 0.16, 0.22, 0.16, 1 }, { 70, -0.02, -70, 0, 1, 0, 0.16, 0.22, 0.16, 1 },
  }, "fan", "static")
  gfx.pick = love.graphics.newMesh(VERTEX_FORMAT, 3, "triangles", "stream")
end

---------------------------------------------------------------- input and update

-- The scripted walk: { dx, dz, frames } legs at SPEED: north up the ramp to its middle (z = 2;
-- the screenshot is taken there, at frame SHOT_FRAME), on up onto the platform, east down the
-- steps to the floor (frame DOWN_FRAMES), then west back up them onto the platform (frame
-- SCRIPT_FRAMES).
local SCRIPT = { { 0, -1, 110 }, { 0, -1, 80 }, { 1, 0, 140 }, { -1, 0, 120 } }
local SHOT_FRAME, DOWN_FRAMES, SCRIPT_FRAMES = 110, 330, 450
-- The point the scripted mouse points at: on the ramp, beside the player's path.
local PICK_AT = { -1.3, 0, 3.6 }

-- Returns the walk direction (x, z, unit or zero) and whether to jump this frame.
local function input()
  if opts.screenshot or opts.frames then
    local f = frame
    for _, leg in ipairs(SCRIPT) do
      if f <= leg[3] then return leg[1], leg[2], false end
      f = f - leg[3]
    end
    local t = f / 60
    return math.cos(t * 0.7), math.sin(t * 0.7), f % 90 == 0
  end
  local k = love.keyboard.isDown
  local fwd = (k("w", "up") and 1 or 0) - (k("s", "down") and 1 or 0)
  local right = (k("d", "right") and 1 or 0) - (k("a", "left") and 1 or 0)
  local sy, cy = math.sin(cam.yaw), math.cos(cam.yaw)
  local dx, dz = -sy * fwd + cy * right, -cy * fwd - sy * right
  local l = math.sqrt(dx * dx + dz * dz)
  if l > 0 then dx, dz = dx / l, dz / l end
  return dx, dz, k("space")
end

-- Returns the mouse position: the scripted one (PICK_AT on screen) in the test modes.
local function mouse()
  if opts.screenshot or opts.frames then
    local x, y = cam:project(PICK_AT[1], PICK_AT[2], PICK_AT[3])
    if x then return x, y end
    return cam.width / 2, cam.height / 2
  end
  return love.mouse.getPosition()
end

-- Returns true for every item but the player (the mouse ray's filter).
local function notplayer(item) return item ~= player end

-- Casts the mouse ray into the level; sets pick to the closest hit and its triangle, or nil.
local function updatepick()
  local ox, oy, oz, dx, dy, dz = cam:unproject(mouse())
  local ray = collide.Ray(ox, oy, oz, dx, dy, dz)
  local item, t, nx, ny, nz, tri = world:raycast(ray, FAR, notplayer)
  if item ~= levelitem then t = nil end
  pick = t and { t = t, x = ox + t * dx, y = oy + t * dy, z = oz + t * dz, nx = nx, ny = ny, nz = nz,
                 tri = tri } or nil
end

-- Culls the scenery to the camera's frustum: cull.out[1..cull.n] are the boxes to draw.
local function updatecull()
  local t0 = love.timer.getTime()
  cam:viewprojection(FAR, vp)
  collide.frustum(vp, cull.planes)
  local _, n = scenery:queryplanes(cull.planes, nil, cull.out)
  cull.n, cull.ms = n, (love.timer.getTime() - t0) * 1000
end

-- Returns how far the player's shape is from resting exactly on the level: the gap below it
-- when it floats, minus the depth when it sinks (0 when it touches without overlapping; to
-- 1e-6 m, the resolution of this test).
local function support()
  local s = world:shape(player)
  local function grown(e)
    if collide.type(s) == "AABB" then
      local a, b, c, d, e2, f = s:bounds()
      return collide.AABB(a - e, b - e, c - e, d + e, e2 + e, f + e)
    end
    local ax, ay, az, bx, by, bz = s:segment()
    return collide.Capsule(ax, ay, az, bx, by, bz, s:radius() + e)
  end
  if mesh:overlaps(grown(-1e-6)) then return -1 end
  if not mesh:overlaps(grown(1e-6)) then return 1 end
  return 0
end

-- Advances the game by dt seconds: the player's input and move, the camera, picking and culling.
local function tick(dt)
  frame = frame + 1
  local k = love.keyboard.isDown
  if not (opts.screenshot or opts.frames) then
    if k("q") then cam:orbit(-1.5 * dt, 0) end
    if k("e") then cam:orbit(1.5 * dt, 0) end
  end
  local dx, dz, jump = input()
  if jump and state.grounded then state.vy = JUMP end
  state.vy = state.vy - GRAVITY * dt
  local t0 = love.timer.getTime()
  local _, _, _, cols, n = character:move(dx * SPEED * dt, state.vy * dt, dz * SPEED * dt)
  movems = (love.timer.getTime() - t0) * 1000
  state.grounded = character:grounded()
  if state.grounded and state.vy < 0 then state.vy = 0 end
  for i = 1, n do
    if cols[i].ny < -0.5 and state.vy > 0 then state.vy = 0 end
  end
  local x, y, z = feet()
  if y < -10 then
    world:update(player, playershape(START[1], START[2], START[3]))
    state.vy = 0
  end
  if opts.screenshot and frame <= SCRIPT_FRAMES then
    walk.feet[frame], walk.grounded[frame] = y, state.grounded
    if state.grounded then
      walk.frames = walk.frames + 1
      local s = support()
      if s ~= 0 then walk.worst = walk.worst + 1 end
    end
  end
  cam:lookat(x, y + 1.2, z)
  updatepick()
  updatecull()
end

function love.update(dt)
  if opts.screenshot or opts.frames then dt = 1 / 60 end
  tick(math.min(dt, 1 / 30))
end

local offset, scale = {}, {} -- reused, so that drawing makes no garbage

-- Sets the shader's model transform: scale by sx, sy, sz, then move by x, y, z.
local function setmodel(x, y, z, sx, sy, sz)
  offset[1], offset[2], offset[3] = x, y, z
  scale[1], scale[2], scale[3] = sx, sy, sz
  gfx.shader:send("offset", offset)
  gfx.shader:send("scale", scale)
end

-- Draws the 3D scene with the depth buffer on.
local function drawscene()
  local g, sh = love.graphics, gfx.shader
  g.setDepthMode("lequal", true)
  g.setShader(sh)
  sh:send("viewproj", "row", vp)
  sh:send("bias", 0)
  sh:send("lit", 1)
  setmodel(0, 0, 0, 1, 1, 1)
  g.setColor(1, 1, 1)
  g.draw(gfx.ground)
  g.draw(gfx.level)
  for i = 1, cull.n do
    local b = cull.out[i]
    setmodel(b.cx, b.cy, b.cz, b.sx, b.sy, b.sz)
    g.setColor(b.r, b.g, b.b)
    g.draw(gfx.cube)
  end
  local x, y, z = feet()
  g.setColor(PLAYER_RGB)
  if collide.type(world:shape(player)) == "AABB" then
    setmodel(x, y + HEIGHT / 2, z, 2 * RADIUS, HEIGHT, 2 * RADIUS)
    g.draw(gfx.cube)
  else
    setmodel(x, y + HEIGHT / 2, z, 1, 1, 1)
    g.draw(gfx.capsule)
  end
  -- the level's triangle edges, then the picked triangle, drawn over the surfaces
  setmodel(0, 0, 0, 1, 1, 1)
  sh:send("lit", 0)
  sh:send("bias", 2e-4)
  g.setWireframe(true)
  g.setColor(0.15, 0.15, 0.18)
  g.draw(gfx.level)
  g.setWireframe(false)
  if pick then
    local ax, ay, az, bx, by, bz, cx, cy, cz = mesh:triangle(pick.tri)
    gfx.pick:setVertices({ { ax, ay, az, 0, 1, 0, 1, 1, 1, 1 }, { bx, by, bz, 0, 1, 0, 1, 1, 1, 1 },
                           { cx, cy, cz, 0, 1, 0, 1, 1, 1, 1 } })
    sh:send("bias", 4e-4)
    g.setColor(PICK_RGB)
    g.draw(gfx.pick)
  end
  g.setShader()
  g.setDepthMode()
end

-- Draws the mouse cursor (a cross with a gap), the picked point's normal and the HUD text.
local function drawoverlay()
  local g = love.graphics
  local mx, my = mouse()
  g.setColor(1, 1, 1)
  g.setLineWidth(1)
  for _, d in ipairs { { 1, 0 }, { -1, 0 }, { 0, 1 }, { 0, -1 } } do
    g.line(mx + d[1] * 5, my + d[2] * 5, mx + d[1] * 12, my + d[2] * 12)
  end
  if pick then
    g.setColor(1, 1, 0)
    g.setLineWidth(2)
    cl.line(cam, pick.x, pick.y, pick.z, pick.x + pick.nx * 0.6, pick.y + pick.ny * 0.6, pick.z + pick.nz * 0.6)
  end
  local grounded, ground, _, gny = character:grounded()
  local x, y, z = feet()
  local lines = {
    ("level.obj: %d triangles, player %s   collide %s"):format(mesh:count(),
      opts.player,
      collide._VERSION),
    ("feet (%.2f, %.2f, %.2f)   %s   move %.3f ms"):format(x, y, z,
      grounded and ("on %s, slope %.1f deg"):format(ground.name, math.deg(math.acos(math.min(1, gny))))
      or "in the air", movems),
    pick and ("mouse ray: triangle %d at t = %.2f, normal (%.2f, %.2f, %.2f)"):format(pick.tri, pick.t,
      pick.nx, pick.ny, pick.nz) or "mouse ray: nothing",
    ("scenery: %d of %d boxes in the frustum, drawn (collide.frustum + world:queryplanes %.3f ms)"):format(
      cull.n, cull.total, cull.ms),
    "WASD walk, space jumps, right drag / Q E orbit, wheel zooms, Esc quits",
  }
  g.setColor(0, 0, 0, 0.55)
  g.rectangle("fill", 0, 0, cam.width, 8 + 16 * #lines)
  g.setColor(1, 1, 1)
  for i, l in ipairs(lines) do g.print(l, 8, 4 + 16 * (i - 1)) end
end

local check -- the screenshot check, defined below

function love.draw()
  drawscene()
  drawoverlay()
  if opts.screenshot and frame >= SHOT_FRAME and not opts.captured then
    opts.captured = true
    love.graphics.captureScreenshot(function(img) love.event.quit(check(img)) end)
  elseif opts.frames and frame >= opts.frames then
    print(("collide walker: %d frames ok (move %.3f ms, culling %.3f ms, %d of %d boxes drawn)"):format(
      frame, movems, cull.ms, cull.n, cull.total))
    love.event.quit(0)
  end
end

function love.load(args)
  parseargs(args or {})
  if opts.screenshot or opts.frames then
    love.errorhandler = function(msg)
      io.stderr:write(debug.traceback("collide walker demo error: " .. tostring(msg), 3), "\n")
      return nil
    end
  end
  loadmodules()
  PICK_AT[2] = level.rampheight(PICK_AT[3])
  loadlevel()
  loadscenery()
  loadgraphics()
  cam = cl.camera { target = { START[1], START[2] + 1.2, START[3] }, distance = 9, yaw = 0.75,
                    pitch = 0.5, near = 0.1 }
  love.graphics.setBackgroundColor(0.55, 0.7, 0.85)
end

function love.resize(w, h)
  cam:resize(w, h)
end

function love.keypressed(key)
  if key == "escape" then love.event.quit(0) end
end

function love.mousemoved(_, _, dx, dy)
  if love.mouse.isDown(2) then cam:orbit(-dx * 0.01, dy * 0.01) end
end

function love.wheelmoved(_, y)
  cam:zoom(y > 0 and 0.9 or 1.1)
end

---------------------------------------------------------------- the screenshot check

-- Returns the screen position of a world point through the view-projection matrix vp.
local function toscreen(x, y, z)
  local cx = vp[1] * x + vp[2] * y + vp[3] * z + vp[4]
  local cy = vp[5] * x + vp[6] * y + vp[7] * z + vp[8]
  local cw = vp[13] * x + vp[14] * y + vp[15] * z + vp[16]
  return (cx / cw + 1) / 2 * cam.width, (1 - cy / cw) / 2 * cam.height
end

-- Returns true when pixel x, y of img has colour rgb (each channel within tol).
local function pixelis(img, x, y, rgb, tol)
  local r, g, b = img:getPixel(math.floor(x), math.floor(y))
  return math.abs(r - rgb[1]) < tol and math.abs(g - rgb[2]) < tol and math.abs(b - rgb[3]) < tol
end

-- Returns the level triangle seen through the centre of pixel px, py (integers), or nil when
-- the player or nothing is there.
local function seen(px, py)
  local ray = collide.Ray(cam:unproject(px + 0.5, py + 0.5))
  local t, _, _, _, tri = mesh:raycast(ray, FAR)
  local tp = world:shape(player):raycast(ray, FAR)
  if not t or (tp and tp <= t) then return nil end
  return tri
end

-- The checks of the screenshot; returns ok and report lines.
local checks = {}

function checks.levelfile()
  local fresh = level.obj()
  local same = love.filesystem.read("level.obj") == fresh
  return same, ("level.obj is level.lua's output (%d bytes): %s"):format(#fresh, same and "ok" or "DIFFERENT")
end

function checks.matrix()
  local worst = 0
  for _, p in ipairs { { 0, 0, 0 }, { -3, 2, 5 }, { 8, 0.5, -9 }, { PICK_AT[1], PICK_AT[2], PICK_AT[3] } } do
    local ax, ay = toscreen(p[1], p[2], p[3])
    local bx, by = cam:project(p[1], p[2], p[3])
    worst = math.max(worst, math.abs(ax - bx), math.abs(ay - by))
  end
  local ok = worst < 1e-6
  return ok, ("camera:viewprojection agrees with camera:project to %.1e px: %s"):format(worst, ok and "ok" or "FAIL")
end

-- At the screenshot: the player walked from the floor up the ramp and stands on its middle,
-- grounded with the ramp's normal, having rested exactly on the level in every grounded frame.
function checks.walk()
  local x, y, z = feet()
  local grounded, ground, nx, ny, nz = character:grounded()
  local r = level.RAMP
  local run = r.zlow - r.zhigh
  local len = math.sqrt(run * run + r.height * r.height)
  local onramp = grounded and ground == levelitem and math.abs(nx) < 1e-9 and math.abs(ny - run / len) < 1e-9
    and math.abs(nz - r.height / len) < 1e-9
  local onfloor = math.abs(walk.feet[1]) < 1e-9
  local mid = math.abs(z - 2) < 0.05 and math.abs(x) < 0.05
  local ok = onfloor and onramp and mid and walk.worst == 0 and support() == 0
  return ok, ("walk: from the floor (feet %.4f) up the ramp to (%.3f, %.4f, %.3f), grounded %s on %s, "
    .. "normal (%.3f, %.3f, %.3f); resting exactly on the level in %d of %d grounded frames: %s"):format(
    walk.feet[1], x, y, z, tostring(grounded), ground and ground.name or "nothing", nx or 0, ny or 0,
    nz or 0, walk.frames - walk.worst, walk.frames, ok and "ok" or "FAIL")
end

-- Returns how many of the 7 levels (floor and 6 steps) the player stood grounded on, exactly at
-- the level's height, in frames f0 to f1 of the scripted walk.
local function levels(f0, f1)
  local heights, n = {}, 0
  for f = f0, f1 do
    local i = math.floor(walk.feet[f] / level.STEP_H + 0.5)
    if walk.grounded[f] and math.abs(walk.feet[f] - i * level.STEP_H) < 1e-9 then heights[i] = true end
  end
  for i = 0, 6 do
    if heights[i] then n = n + 1 end
  end
  return n
end

-- After the screenshot, the rest of the scripted walk (no drawing): onto the platform and down
-- the steps; the player must end grounded on the floor east of them, having stood on every step
-- on the way down (grounded at each step's height) and rested exactly on the level in every
-- grounded frame.
function checks.stairs()
  while frame < DOWN_FRAMES do tick(1 / 60) end
  local x, y, z = feet()
  local grounded = character:grounded()
  local steps = levels(SHOT_FRAME + 80, DOWN_FRAMES)
  local ok = grounded and math.abs(y) < 1e-9 and math.abs(walk.feet[SHOT_FRAME + 80] - level.PLATFORM_Y) < 1e-9
    and steps == 7 and walk.worst == 0 and math.abs(x - 7) < 0.05 and math.abs(z + 2) < 0.05
  return ok, ("stairs: on the platform at frame %d (feet %.4f), down %d of 7 levels (6 steps and the "
    .. "floor) to (%.3f, %.4f, %.3f) grounded %s; resting exactly on the level in %d of %d grounded "
    .. "frames: %s"):format(SHOT_FRAME + 80, walk.feet[SHOT_FRAME + 80], steps, x, y, z, tostring(grounded),
    walk.frames - walk.worst, walk.frames, ok and "ok" or "FAIL")
end

-- Then west back up the steps at the same walking speed (0.05 m per move for a round-bottomed
-- character, the slow case of the step-up): grounded on every level on the way up and ending
-- grounded on the platform, resting exactly on the level in every grounded frame.
function checks.upstairs()
  while frame < SCRIPT_FRAMES do tick(1 / 60) end
  local x, y, z = feet()
  local grounded = character:grounded()
  local steps = levels(DOWN_FRAMES + 1, SCRIPT_FRAMES)
  local ok = grounded and math.abs(y - level.PLATFORM_Y) < 1e-9 and steps == 7 and walk.worst == 0
  return ok, ("upstairs: up %d of 7 levels to (%.3f, %.4f, %.3f) grounded %s; resting exactly on the level "
    .. "in %d of %d grounded frames: %s"):format(steps, x, y, z, tostring(grounded), walk.frames - walk.worst,
    walk.frames, ok and "ok" or "FAIL")
end

function checks.player(img)
  local x, y, z = feet()
  local sx, sy = toscreen(x, y + HEIGHT / 2, z)
  local r, g, b = img:getPixel(math.floor(sx), math.floor(sy))
  local ok = r > 0.45 and b < 0.12 and g < r and g > b
  return ok, ("player drawn at its place (%d, %d): pixel %.2f %.2f %.2f: %s"):format(sx, sy, r, g, b,
    ok and "ok" or "FAIL")
end

-- Returns the distance in pixels from px, py to the segment x1, y1 - x2, y2.
local function segdist(px, py, x1, y1, x2, y2)
  local dx, dy = x2 - x1, y2 - y1
  local l2 = dx * dx + dy * dy
  local f = l2 > 0 and math.max(0, math.min(1, ((px - x1) * dx + (py - y1) * dy) / l2)) or 0
  return math.sqrt((x1 + f * dx - px) ^ 2 + (y1 + f * dy - py) ^ 2)
end

-- Every pixel round the picked triangle's image that sees one triangle through itself and its
-- neighbours two pixels away (not an edge, where the outlines are drawn) must be highlighted
-- when it sees the picked triangle and not when it sees another.
function checks.pick(img)
  if not pick then return false, "mouse ray: no hit: FAIL" end
  local ax, ay, az, bx, by, bz, cx, cy, cz = mesh:triangle(pick.tri)
  local dist = math.sqrt((pick.x - PICK_AT[1]) ^ 2 + (pick.y - PICK_AT[2]) ^ 2 + (pick.z - PICK_AT[3]) ^ 2)
  local mx, my = mouse()
  local x1, y1 = toscreen(ax, ay, az)
  local x2, y2 = toscreen(bx, by, bz)
  local x3, y3 = toscreen(cx, cy, cz)
  local nx1, ny1 = toscreen(pick.x, pick.y, pick.z)
  local nx2, ny2 = toscreen(pick.x + pick.nx * 0.6, pick.y + pick.ny * 0.6, pick.z + pick.nz * 0.6)
  local inside, lit, outside, wrong = 0, 0, 0, 0
  for py = math.floor(math.max(104, math.min(y1, y2, y3) - 12)), math.floor(math.min(cam.height - 3, math.max(y1, y2, y3) + 12)) do
    for px = math.floor(math.max(2, math.min(x1, x2, x3) - 12)), math.floor(math.min(cam.width - 3, math.max(x1, x2, x3) + 12)) do
      local tri = seen(px, py)
      local clean = tri and (px - mx) ^ 2 + (py - my) ^ 2 > 15 * 15 and segdist(px, py, nx1, ny1, nx2, ny2) > 5
      for _, d in ipairs { { -2, 0 }, { 2, 0 }, { 0, -2 }, { 0, 2 } } do
        if clean and seen(px + d[1], py + d[2]) ~= tri then clean = false end
      end
      if clean then
        local highlighted = pixelis(img, px, py, PICK_RGB, 0.1)
        if tri == pick.tri then
          inside = inside + 1
          if highlighted then lit = lit + 1 end
        else
          outside = outside + 1
          if highlighted then wrong = wrong + 1 end
        end
      end
    end
  end
  -- and no pixel of the whole frame away from the triangle's image has the highlight's colour
  local stray = 0
  local minx, maxx = math.min(x1, x2, x3) - 2, math.max(x1, x2, x3) + 2
  local miny, maxy = math.min(y1, y2, y3) - 2, math.max(y1, y2, y3) + 2
  for py = 0, cam.height - 1 do
    for px = 0, cam.width - 1 do
      if (px < minx or px > maxx or py < miny or py > maxy) and pixelis(img, px, py, PICK_RGB, 0.1) then
        stray = stray + 1
      end
    end
  end
  local ok = dist < 1e-6 and pick.ny > 0.5 and pick.ny < 0.99 and inside >= 20 and lit == inside
    and outside >= 20 and wrong == 0 and stray == 0
  return ok, ("mouse ray: triangle %d hit %.1e m from the aimed ramp point; %d of %d pixels seeing it "
    .. "highlighted, %d of %d pixels round it seeing other triangles highlighted, %d highlighted pixels "
    .. "elsewhere: %s"):format(pick.tri, dist, lit, inside, wrong, outside, stray, ok and "ok" or "FAIL")
end

function checks.culling()
  local inside, same = 0, true
  local listed = {}
  for i = 1, cull.n do listed[cull.out[i]] = true end
  local all = scenery:query(collide.AABB(-1e9, -1e9, -1e9, 1e9, 1e9, 1e9))
  for _, b in ipairs(all) do
    local vis = true
    for p = 1, 24, 4 do
      local nx, ny, nz, d = cull.planes[p], cull.planes[p + 1], cull.planes[p + 2], cull.planes[p + 3]
      local reach = math.abs(nx) * b.sx / 2 + math.abs(ny) * b.sy / 2 + math.abs(nz) * b.sz / 2
      if nx * b.cx + ny * b.cy + nz * b.cz + d + reach < 0 then vis = false end
    end
    if vis then inside = inside + 1 end
    if vis ~= (listed[b] or false) then same = false end
  end
  local ok = same and inside == cull.n and cull.n > 0 and cull.n < cull.total
  return ok, ("culling: %d of %d boxes drawn, %d by brute force over the six planes, same set %s: %s"):format(
    cull.n, cull.total, inside, tostring(same), ok and "ok" or "FAIL")
end

-- Saves the screenshot, runs the checks and returns the exit status.
function check(img)
  local fh = assert(io.open(opts.screenshot, "wb"))
  fh:write(img:encode("png"):getString())
  fh:close()
  print("collide walker: saved " .. opts.screenshot)
  local all = true
  for _, name in ipairs { "levelfile", "matrix", "walk", "player", "pick", "culling", "stairs", "upstairs" } do
    local ok, line = checks[name](img)
    print("  " .. line)
    all = all and ok
  end
  print(all and "screenshot check: ok" or "screenshot check: FAILED")
  return all and 0 or 1
end
