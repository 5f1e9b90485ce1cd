-- collide demo for LÖVE 11.x: seed 004's ray/box unit test in an orbitable 3D view, a playground
-- (a player box moved by a collide.Character over stairs, a walkable and a too-steep OBB ramp and
-- a moving platform, among boxes and spheres; mouse raycasts) and a stress scene with thousands
-- of moving items. Started by `make love`.
--
-- Keys: 1 seed scene, 2 playground, 3 stress; right mouse drag or Q/E/R/F orbits, wheel zooms;
-- playground: WASD / arrows move, space jumps; stress: +/- change the item count; Esc quits.
--
-- Command line (all optional; the test modes exit by themselves):
--   --scene seed|playground|stress   scene to start in (default seed)
--   --so PATH                        load collide.so from PATH (default: require "collide")
--   --items N                        item count of the stress scene (default 3000)
--   --screenshot PATH                render a few frames from a fixed camera, save a PNG, quit
--   --check                          with --screenshot: check the captured frame (seed scene:
--                                    the ray colours; playground: the character climbed the
--                                    stairs and is drawn where it stands); exit 1 if wrong
--   --frames N                       run N frames with scripted input (smoke test), then quit

local opts = { scene = "seed", items = 3000 }
local collide, draw

local RED, BLUE, GREEN, YELLOW = { 1, 0, 0 }, { 0, 0, 1 }, { 0, 0.8, 0 }, { 1, 1, 0 }
local HUD_H = 118 -- height of the HUD text at the top (kept out of the pixel check)

-- Returns the options table parsed from LÖVE's argument list; raises on an unknown option.
local function parseargs(args)
  local i = 1
  while args[i] do
    local a = args[i]
    if a == "--scene" or a == "--so" or a == "--screenshot" then
      opts[a:sub(3)] = assert(args[i + 1], a .. " needs a value"); i = i + 2
    elseif a == "--items" or a == "--frames" then
      opts[a:sub(3)] = assert(tonumber(args[i + 1]), a .. " needs a number"); i = i + 2
    elseif a == "--check" then
      opts.check = true; i = i + 1
    else
      error("unknown option " .. a)
    end
  end
  return opts
end

-- Returns the collide module: from --so PATH if given, else require "collide" (LÖVE finds
-- collide.so in the game's source folder), else the repository's build/luajit/collide.so.
local function loadcollide()
  if opts.so then
    local open, err = package.loadlib(opts.so, "luaopen_collide")
    if not open then error("cannot load " .. opts.so .. ": " .. tostring(err)) end
    package.loaded.collide = open("collide")
    return package.loaded.collide
  end
  local ok, mod = pcall(require, "collide")
  if ok then return mod end
  local root = love.filesystem.getSource() .. "/../.."
  package.cpath = root .. "/build/luajit/?.so;" .. package.cpath
  return require("collide")
end

-- Makes require "collide.love" work: from the game folder when it holds collide/love.lua,
-- otherwise from the repository's lua/ folder.
local function loadhelpers()
  local root = love.filesystem.getSource() .. "/../.."
  package.path = package.path .. ";" .. root .. "/lua/?.lua"
  return require("collide.love")
end

local scenes, scene, cam = {}, nil, nil
local frame, started = 0, 0
local stats = { collidems = 0, framems = 0, fps = 0 }

-- Returns an OBB ramp: centre, half sizes, tilted by angle radians about the z axis.
local function ramp(cx, cy, cz, hx, hy, hz, angle)
  local c, s = math.cos(angle), math.sin(angle)
  return collide.OBB(cx, cy, cz, hx, hy, hz, c, s, 0, -s, c, 0, 0, 0, 1)
end

---------------------------------------------------------------- seed 004 scene
local seed = {
  box = nil, rays = {},
  expected = { true, false, false, true, false },
  length = 6,
}
scenes.seed = seed

-- Builds the seed's AABB and five rays.
function seed.load()
  seed.box = collide.AABB(0.5, 0.5, 0.5, 2, 2, 2)
  local r = {
    { -2, -2, -2, 2, 2, 2 }, { 0, 0, 0, 0, 1, 0 }, { 0, 0, 0, -1, 0, 0 },
    { 1, 1, 1, 1, 1, 0 }, { 0.4, 1, 1, -1, 0, 0 },
  }
  for i = 1, #r do seed.rays[i] = collide.Ray(unpack(r[i])) end
end

-- The fixed camera used for screenshots (and the scene's start view).
function seed.camera()
  return draw.camera { target = { 0.3, 0.5, 0.3 }, distance = 10, yaw = -2.57, pitch = 0.55 }
end

function seed.draw()
  love.graphics.setLineWidth(1)
  love.graphics.setColor(0.25, 0.25, 0.3)
  draw.grid(cam, 4, 1, -2.5)
  draw.axes(cam, 1)
  love.graphics.setLineWidth(2)
  love.graphics.setColor(GREEN)
  draw.shape(cam, seed.box)
  love.graphics.setLineWidth(3)
  for i, ray in ipairs(seed.rays) do
    local t = ray:cast(seed.box)
    love.graphics.setColor(t and RED or BLUE)
    draw.ray(cam, ray, seed.length)
  end
  love.graphics.setLineWidth(2)
  for _, ray in ipairs(seed.rays) do
    local t, nx, ny, nz = ray:cast(seed.box)
    if t then
      love.graphics.setColor(YELLOW)
      draw.rayhit(cam, ray, t, nx, ny, nz, 0.6)
    end
  end
  love.graphics.setColor(1, 1, 1)
  local y = 24
  for i, ray in ipairs(seed.rays) do
    local t, nx, ny, nz = ray:cast(seed.box)
    local text = t and string.format("ray %d: hit  t=%.4f  n=(%g, %g, %g)", i, t, nx, ny, nz)
      or string.format("ray %d: miss", i)
    love.graphics.print(text, 8, y)
    y = y + 16
  end
end

-- Returns the screen segments (x1, y1, x2, y2) of the five rays as drawn, and of the hit normals.
function seed.segments()
  local rays, normals = {}, {}
  for i, ray in ipairs(seed.rays) do
    local ox, oy, oz = ray:origin()
    local ex, ey, ez = ray:at(seed.length)
    rays[i] = { cam:segment(ox, oy, oz, ex, ey, ez) }
    local t, nx, ny, nz = ray:cast(seed.box)
    if t then
      local x, y, z = ray:at(t)
      normals[#normals + 1] = { cam:segment(x, y, z, x + nx * 0.6, y + ny * 0.6, z + nz * 0.6) }
    end
  end
  return rays, normals
end

-- Returns the distance from point p to segment s = {x1, y1, x2, y2} in pixels.
local function segdist(px, py, s)
  local dx, dy = s[3] - s[1], s[4] - s[2]
  local l2 = dx * dx + dy * dy
  local f = l2 > 0 and math.max(0, math.min(1, ((px - s[1]) * dx + (py - s[2]) * dy) / l2)) or 0
  local x, y = s[1] + f * dx - px, s[2] + f * dy - py
  return math.sqrt(x * x + y * y)
end

-- Checks the captured frame: along each ray's projected segment (away from the other rays, the
-- hit markers and the HUD) the pixels must be red for the rays seed 004 expects to hit and blue
-- for the others. Returns ok, report lines.
function seed.check(img)
  local rays, normals = seed.segments()
  local w, h = img:getDimensions()
  local lines, ok = {}, true
  for i, s in ipairs(rays) do
    local want = seed.expected[i] and "red" or "blue"
    local counts = { red = 0, blue = 0, other = 0 }
    local samples = 0
    for k = 1, 59 do
      local f = k / 60
      local px, py = s[1] + f * (s[3] - s[1]), s[2] + f * (s[4] - s[2])
      local clear = px >= 4 and py >= 4 and px < w - 4 and py < h - 4
        and py >= HUD_H
      for j, o in ipairs(rays) do
        if clear and j ~= i and segdist(px, py, o) < 8 then clear = false end
      end
      for _, o in ipairs(normals) do
        if clear and segdist(px, py, o) < 10 then clear = false end
      end
      if clear then
        samples = samples + 1
        local r, g, b = img:getPixel(math.floor(px + 0.5), math.floor(py + 0.5))
        local kind = "other"
        if r > 0.6 and g < 0.35 and b < 0.35 then kind = "red"
        elseif b > 0.6 and r < 0.35 and g < 0.35 then kind = "blue" end
        counts[kind] = counts[kind] + 1
      end
    end
    local wrong = want == "red" and counts.blue or counts.red
    local good = samples >= 10 and counts[want] >= 0.8 * samples and wrong == 0
    ok = ok and good
    lines[#lines + 1] = string.format("ray %d: expect %s: %d samples, %d red, %d blue, %d other: %s",
      i, want, samples, counts.red, counts.blue, counts.other, good and "ok" or "FAIL")
  end
  return ok, lines
end

---------------------------------------------------------------- playground
local play = {}
scenes.playground = play

local PLAYER_H = { 0.4, 0.8, 0.4 }
local START = { -8, 0, -6 }          -- the player's feet at the start: at the foot of the stairs
local STEP_H, STEP_D = 0.25, 0.6     -- stair rise and depth
local LANDING_Y = 5 * STEP_H         -- the landing at the top of the five steps

-- Returns the player's box with its feet at x, y, z.
local function playerbox(x, y, z)
  return collide.AABB(x - PLAYER_H[1], y, z - PLAYER_H[3], x + PLAYER_H[1], y + 2 * PLAYER_H[2],
                      z + PLAYER_H[3])
end

-- Returns the response of the player to other: spheres bounce, everything else slides.
local function playerfilter(_, other)
  if other.kind == "sphere" then return "bounce" end
  return "slide"
end

-- Builds a world: a floor of tiles, walls, a walkable 20-degree ramp, a 60-degree ramp (a wall to
-- the character), stairs of 0.25 up to a landing, a platform going up and down, spheres, and the
-- player as a collide.Character (steps up to 0.3, follows the ground down 0.3, slopes up to 50
-- degrees walkable).
function play.load()
  if play.world then play.world:destroy() end
  local world = collide.World()
  play.world = world
  for x = -10, 8, 2 do
    for z = -10, 8, 2 do
      world:add({ kind = "tile", name = "tile" }, collide.AABB(x, -0.5, z, x + 2, 0, z + 2))
    end
  end
  world:add({ kind = "wall", name = "wall north" }, collide.AABB(-10, 0, -10, 10, 2, -9.5))
  world:add({ kind = "wall", name = "wall west" }, collide.AABB(-10, 0, -9.5, -9.5, 2, 10))
  world:add({ kind = "wall", name = "wall south" }, collide.AABB(-10, 0, 9.5, 10, 2, 10))
  world:add({ kind = "wall", name = "wall east" }, collide.AABB(9.5, 0, -9.5, 10, 2, 9.5))
  world:add({ kind = "box", name = "crate" }, collide.AABB(-2, 0, -5, 0, 1, -3))
  world:add({ kind = "box", name = "crate" }, collide.AABB(3, 0, 3, 4, 2, 4))
  world:add({ kind = "box", name = "ledge" }, collide.AABB(4, 1.5, -6, 8, 2, -2))
  world:add({ kind = "ramp", name = "walkable ramp (20 degrees)" }, ramp(2, 0.3, -4, 2.2, 0.15, 2, math.rad(20)))
  world:add({ kind = "steep", name = "steep ramp (60 degrees)" }, ramp(-5, 0.6, 5, 1.2, 0.15, 1.5, math.rad(60)))
  for i = 1, 5 do
    local z0 = -5 + (i - 1) * STEP_D
    world:add({ kind = "stairs", name = "step " .. i }, collide.AABB(-9.5, 0, z0, -6.5, i * STEP_H, z0 + STEP_D))
  end
  world:add({ kind = "stairs", name = "landing" }, collide.AABB(-9.5, 0, -2, -6.5, LANDING_Y, 0))
  play.platform = { kind = "platform", name = "moving platform", y = 0.1 }
  world:add(play.platform, collide.AABB(4, 0.1, 5, 7, 0.4, 8))
  world:add({ kind = "sphere", name = "sphere" }, collide.Sphere(-5, 1, -7, 1))
  world:add({ kind = "sphere", name = "sphere" }, collide.Sphere(0, 0.8, 5, 0.8))
  world:add({ kind = "sphere", name = "sphere" }, collide.Sphere(7, 0.6, 1, 0.6))
  play.player = { kind = "player", name = "player", vx = 0, vy = 0, vz = 0, ground = false }
  world:add(play.player, playerbox(START[1], START[2], START[3]))
  play.character = collide.Character(world, play.player,
    { step = 0.3, snap = 0.3, maxslope = math.rad(50) })
  play.hit = nil
  play.cols = 0
  play.t = 0
  play.platformt = 0
end

function play.camera()
  return draw.camera { target = { -1, 0.8, 1 }, distance = 14, yaw = 0.5, pitch = 0.6 }
end

-- Returns the scripted input of the smoke test at time t: forward, right, jump.
local function autopilot(t)
  return 1, math.sin(t * 1.3), (t % 1.5) < 0.05
end

-- The screenshot's scripted walk: straight up the stairs (+z) for SHOT_FRAMES frames of 1/60 s,
-- from z = -6 to the middle of the landing (z = -1).
local SHOT_FRAMES = 75
play.shotframe = SHOT_FRAMES

-- Moves the platform between y = 0.1 and 1.6 (a sine of period 4 s) with world:translate.
local function moveplatform(dt)
  play.platformt = play.platformt + dt
  local y = 0.85 - 0.75 * math.cos(play.platformt * math.pi / 2)
  play.world:translate(play.platform, 0, y - play.platform.y, 0)
  play.platform.y = y
end

function play.update(dt)
  local p, world = play.player, play.world
  play.t = play.t + dt
  local t0 = love.timer.getTime()
  moveplatform(dt)
  local dx, dz, jump
  local speed = 4
  if opts.screenshot then
    dx, dz, jump = 0, speed * dt, false
  else
    local fwd, right = 0, 0
    if opts.frames then
      fwd, right, jump = autopilot(play.t)
    else
      local k = love.keyboard.isDown
      if k("w", "up") then fwd = fwd + 1 end
      if k("s", "down") then fwd = fwd - 1 end
      if k("d", "right") then right = right + 1 end
      if k("a", "left") then right = right - 1 end
      jump = k("space")
    end
    local sy, cy = math.sin(cam.yaw), math.cos(cam.yaw)
    dx = (-sy * fwd + cy * right) * speed * dt
    dz = (-cy * fwd - sy * right) * speed * dt
  end
  if jump and p.ground then p.vy = 7 end
  p.vy = p.vy - 20 * dt
  local _, _, _, cols, n = play.character:move(dx, p.vy * dt, dz, playerfilter)
  p.ground = play.character:grounded()
  if p.ground and p.vy < 0 then p.vy = 0 end
  for i = 1, n do
    local c = cols[i]
    if c.ny < -0.5 and p.vy > 0 then p.vy = 0 end
  end
  play.cols = n
  local minx, miny, minz, maxx, maxy, maxz = world:shape(p):bounds()
  if miny < -20 then
    world:update(p, playerbox(START[1], START[2], START[3]))
    p.vy = 0
  end
  cam:lookat((minx + maxx) / 2, (miny + maxy) / 2, (minz + maxz) / 2)
  local mx, my
  if opts.frames or opts.screenshot then mx, my = cam.width / 2 + 60, cam.height / 2 + 40
  else mx, my = love.mouse.getPosition() end
  local item, t, nx, ny, nz = world:raycast(collide.Ray(cam:unproject(mx, my)), 1000)
  if item then
    local ox, oy, oz, rdx, rdy, rdz = cam:unproject(mx, my)
    play.hit = { item = item, t = t, x = ox + t * rdx, y = oy + t * rdy, z = oz + t * rdz,
                 nx = nx, ny = ny, nz = nz }
  else
    play.hit = nil
  end
  stats.collidems = (love.timer.getTime() - t0) * 1000
end

-- Checks the screenshot of the scripted walk up the stairs: the character stands grounded on
-- the landing (its feet at the landing's height, having climbed every step), and the player's
-- four vertical edges, as projected, are drawn in the player's colour. Returns ok, report lines.
function play.check(img)
  local lines, ok = {}, true
  local minx, miny, minz, maxx, maxy, maxz = play.world:shape(play.player):bounds()
  local grounded, ground = play.character:grounded()
  local onlanding = grounded and ground and ground.name == "landing" and math.abs(miny - LANDING_Y) < 1e-9
  lines[#lines + 1] = string.format("player feet at y=%.6f z=%.3f, grounded %s on %s: %s", miny,
    (minz + maxz) / 2, tostring(grounded), ground and ground.name or "nothing",
    onlanding and "ok" or "FAIL")
  ok = ok and onlanding
  local w, h = img:getDimensions()
  local samples, green = 0, 0
  for _, c in ipairs { { minx, minz }, { maxx, minz }, { minx, maxz }, { maxx, maxz } } do
    local x1, y1, x2, y2 = cam:segment(c[1], miny, c[2], c[1], maxy, c[2])
    if x1 then
      for k = 2, 18 do
        local f = k / 20
        local px, py = math.floor(x1 + f * (x2 - x1) + 0.5), math.floor(y1 + f * (y2 - y1) + 0.5)
        if px >= 0 and py >= HUD_H and px < w and py < h then
          samples = samples + 1
          local best = 0
          for ox = -1, 1 do
            local r, g, b = img:getPixel(math.max(0, math.min(w - 1, px + ox)), py)
            if g > 0.7 and r < 0.5 and b < 0.6 then best = 1 end
          end
          green = green + best
        end
      end
    end
  end
  local drawn = samples >= 20 and green >= 0.7 * samples
  lines[#lines + 1] = string.format("player edges: %d samples, %d in the player's colour: %s",
    samples, green, drawn and "ok" or "FAIL")
  return ok and drawn, lines
end

local KIND_COLOR = {
  tile = { 0.22, 0.22, 0.27 }, wall = { 0.6, 0.6, 0.7 }, box = { 0.9, 0.6, 0.2 },
  ramp = { 0.3, 0.8, 1 }, steep = { 1, 0.3, 0.2 }, stairs = { 0.9, 0.9, 0.4 },
  platform = { 0.7, 0.4, 1 }, sphere = { 1, 0.4, 0.8 }, player = { 0.2, 1, 0.3 },
}

function play.draw()
  local hititem = play.hit and play.hit.item
  love.graphics.setLineWidth(1)
  draw.world(cam, play.world, nil, function(item)
    if item == hititem then return 1, 1, 1 end
    return unpack(KIND_COLOR[item.kind])
  end)
  if play.hit then
    local h = play.hit
    love.graphics.setLineWidth(2)
    love.graphics.setColor(1, 0.2, 0.2)
    draw.hit(cam, h.x, h.y, h.z, h.nx, h.ny, h.nz, 1)
  end
  love.graphics.setColor(1, 1, 1)
  local p = play.player
  love.graphics.print(string.format("items %d   collisions %d   on ground %s   v = (%.1f, %.1f, %.1f)",
    play.world:count(), play.cols, tostring(p.ground), p.vx, p.vy, p.vz), 8, 24)
  local h = play.hit
  love.graphics.print(h and string.format("mouse ray: %s at t=%.3f, normal (%.2f, %.2f, %.2f)",
    h.item.name, h.t, h.nx, h.ny, h.nz) or "mouse ray: nothing", 8, 40)
  love.graphics.print("WASD/arrows move, space jumps; collide.Character: climbs the stairs and the "
    .. "blue ramp, not the red one; rides the purple platform", 8, 56)
end

---------------------------------------------------------------- stress
local stress = {}
scenes.stress = stress

-- Returns a deterministic pseudo-random number generator (Park-Miller) seeded with s.
local function rng(s)
  local state = s
  return function(lo, hi)
    state = (state * 16807) % 2147483647
    return lo + (hi - lo) * (state / 2147483647)
  end
end

local SIZE = 60

-- Fills a world with opts.items moving boxes and spheres.
function stress.load()
  if stress.world then stress.world:destroy() end
  local world = collide.World()
  stress.world = world
  stress.items = {}
  stress.out = {}
  local rand = rng(12345)
  for i = 1, opts.items do
    local x, y, z = rand(-SIZE, SIZE), rand(-SIZE / 3, SIZE / 3), rand(-SIZE, SIZE)
    local s
    if i % 3 == 0 then
      s = collide.Sphere(x, y, z, rand(0.3, 1.2))
    else
      local hx, hy, hz = rand(0.3, 1.2), rand(0.3, 1.2), rand(0.3, 1.2)
      s = collide.AABB(x - hx, y - hy, z - hz, x + hx, y + hy, z + hz)
    end
    local item = { id = i, shape = s, vx = rand(-4, 4), vy = rand(-2, 2), vz = rand(-4, 4), x = x, y = y, z = z }
    stress.items[i] = item
    world:add(item, s)
  end
  stress.npairs, stress.hit = 0, nil
end

function stress.camera()
  return draw.camera { target = { 0, 0, 0 }, distance = 175, yaw = 0.6, pitch = 0.5 }
end

function stress.update(dt)
  local world = stress.world
  local t0 = love.timer.getTime()
  local lim = { SIZE, SIZE / 3, SIZE }
  for _, it in ipairs(stress.items) do
    local dx, dy, dz = it.vx * dt, it.vy * dt, it.vz * dt
    if math.abs(it.x + dx) > lim[1] then it.vx = -it.vx; dx = -dx end
    if math.abs(it.y + dy) > lim[2] then it.vy = -it.vy; dy = -dy end
    if math.abs(it.z + dz) > lim[3] then it.vz = -it.vz; dz = -dz end
    it.x, it.y, it.z = it.x + dx, it.y + dy, it.z + dz
    it.shape:translate(dx, dy, dz)
    world:update(it, it.shape)
  end
  local t1 = love.timer.getTime()
  local out, npairs = world:pairs(stress.out)
  stress.out, stress.npairs = out, npairs
  local t2 = love.timer.getTime()
  local mx, my
  if opts.frames or opts.screenshot then mx, my = cam.width / 2, cam.height / 2
  else mx, my = love.mouse.getPosition() end
  local ox, oy, oz, dx, dy, dz = cam:unproject(mx, my)
  local item, t, nx, ny, nz = world:raycast(collide.Ray(ox, oy, oz, dx, dy, dz), 2000)
  stress.hit = item and { item = item, x = ox + t * dx, y = oy + t * dy, z = oz + t * dz,
                          nx = nx, ny = ny, nz = nz } or nil
  local t3 = love.timer.getTime()
  stress.ms = { (t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000 }
  stats.collidems = (t3 - t0) * 1000
end

function stress.draw()
  local plain, touching = {}, {}
  local inpair = {}
  for i = 1, 2 * stress.npairs do inpair[stress.out[i]] = true end
  for _, it in ipairs(stress.items) do
    local sx, sy = cam:project(it.x, it.y, it.z)
    if sx then
      local list = inpair[it] and touching or plain
      list[#list + 1] = sx
      list[#list + 1] = sy
    end
  end
  love.graphics.setPointSize(3)
  love.graphics.setColor(0.5, 0.7, 1)
  if #plain > 0 then love.graphics.points(plain) end
  love.graphics.setColor(1, 0.3, 0.2)
  if #touching > 0 then love.graphics.points(touching) end
  love.graphics.setColor(0.4, 0.4, 0.4)
  love.graphics.setLineWidth(1)
  draw.box(cam, 0, 0, 0, SIZE + 1.2, SIZE / 3 + 1.2, SIZE + 1.2, 1, 0, 0, 0, 1, 0, 0, 0, 1)
  if stress.hit then
    local h = stress.hit
    love.graphics.setColor(1, 1, 1)
    love.graphics.setLineWidth(2)
    draw.shape(cam, h.item.shape)
    draw.hit(cam, h.x, h.y, h.z, h.nx, h.ny, h.nz, 3)
  end
  love.graphics.setColor(1, 1, 1)
  local ms = stress.ms or { 0, 0, 0 }
  love.graphics.print(string.format("items %d   overlapping pairs %d (red)   +/- change the count",
    stress.world:count(), stress.npairs), 8, 24)
  love.graphics.print(string.format("update all %.2f ms   pairs %.2f ms   mouse raycast %.3f ms",
    ms[1], ms[2], ms[3]), 8, 40)
end

---------------------------------------------------------------- LÖVE callbacks

-- Switches to the scene called name, building it and resetting the camera.
local function switch(name)
  scene = assert(scenes[name], "unknown scene " .. tostring(name))
  scene.name = name
  cam = scene.camera()
  scene.load()
end

function love.load(args)
  parseargs(args or {})
  local testmode = opts.screenshot or opts.frames
  if testmode then
    -- In the test modes an error must end the process (exit status 1), not show LÖVE's
    -- error screen and wait for a key.
    love.errorhandler = function(msg)
      io.stderr:write(debug.traceback("collide demo error: " .. tostring(msg), 3), "\n")
      return nil
    end
  end
  collide = loadcollide()
  draw = loadhelpers()
  love.graphics.setBackgroundColor(0.06, 0.06, 0.08)
  switch(opts.scene)
  started = love.timer.getTime()
end

-- Frame times of the last FRAMES frames (a ring), for the overlay: LÖVE's own getFPS and
-- getAverageDelta are refreshed once a second, so they read 0 in the first second (and in
-- every screenshot, taken at frame 3).
local FRAMES = 30
local frametimes, framecount = {}, 0

-- Records one frame's real duration dt (seconds) and returns the mean frame ms and fps so far.
local function framestats(dt)
  framecount = framecount + 1
  frametimes[(framecount - 1) % FRAMES + 1] = dt
  local n, sum = math.min(framecount, FRAMES), 0
  for i = 1, n do sum = sum + frametimes[i] end
  local mean = sum / n
  return mean * 1000, mean > 0 and 1 / mean or 0
end

function love.update(dt)
  frame = frame + 1
  stats.framems, stats.fps = framestats(dt)
  local k = love.keyboard.isDown
  if not (opts.frames or opts.screenshot) then
    local o = 1.5 * dt
    if k("q") then cam:orbit(-o, 0) end
    if k("e") then cam:orbit(o, 0) end
    if k("r") then cam:orbit(0, o) end
    if k("f") then cam:orbit(0, -o) end
  end
  if opts.screenshot then dt = 1 / 60 end
  if scene.update then scene.update(math.min(dt, 1 / 20)) end
  if (opts.frames or opts.screenshot) and love.timer.getTime() - started > 20 then
    io.stderr:write("collide demo: timed out\n")
    love.event.quit(2)
  end
end

-- Saves the captured frame to opts.screenshot, runs the pixel check when asked, and quits.
local function finishscreenshot(img)
  local fh = assert(io.open(opts.screenshot, "wb"))
  fh:write(img:encode("png"):getString())
  fh:close()
  print("collide demo: saved " .. opts.screenshot)
  local code = 0
  if opts.check then
    if not scene.check then error("--check works only with --scene seed or playground") end
    local ok, lines = scene.check(img)
    for _, l in ipairs(lines) do print("  " .. l) end
    print(ok and "screenshot check: ok" or "screenshot check: FAILED")
    code = ok and 0 or 1
  end
  love.event.quit(code)
end

function love.draw()
  local t0 = love.timer.getTime()
  scene.draw()
  love.graphics.setColor(0.8, 0.8, 0.8)
  local overlay = string.format("[1] seed 004  [2] playground  [3] stress   scene: %s   "
    .. "collide %.2f ms   frame %.1f ms   %.0f fps", scene.name, stats.collidems, stats.framems,
    stats.fps)
  love.graphics.print(overlay, 8, 6)
  if opts.screenshot and frame == (scene.shotframe or 3) then
    print("collide demo: overlay: " .. overlay)
    love.graphics.captureScreenshot(finishscreenshot)
  elseif opts.frames and frame >= opts.frames then
    print(string.format("collide demo: %d frames of %s ok (last collide %.2f ms, draw %.2f ms)",
      frame, scene.name, stats.collidems, (love.timer.getTime() - t0) * 1000))
    love.event.quit(0)
  end
end

function love.resize(w, h)
  cam:resize(w, h)
end

function love.keypressed(key)
  if key == "escape" then love.event.quit(0)
  elseif key == "1" then switch("seed")
  elseif key == "2" then switch("playground")
  elseif key == "3" then switch("stress")
  elseif scene == stress and (key == "+" or key == "=" or key == "kp+") then
    opts.items = opts.items * 2; stress.load()
  elseif scene == stress and (key == "-" or key == "kp-") then
    opts.items = math.max(100, math.floor(opts.items / 2)); stress.load()
  end
end

function love.mousemoved(_, _, dx, dy)
  if love.mouse.isDown(2) then cam:orbit(-dx * 0.01, dy * 0.01) end
end

function love.wheelmoved(_, y)
  cam:zoom(y > 0 and 0.9 or 1.1)
end
