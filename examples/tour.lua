-- A short tour of collide, printed to the terminal: `make demo`.
-- Runs on any Lua 5.1-5.4 or LuaJIT with collide.so on package.cpath.
local collide = require "collide"

local function fmt(x)
  if x == nil then return "-" end
  return (string.format("%.6g", x))
end

local function vec(x, y, z)
  return "(" .. fmt(x) .. ", " .. fmt(y) .. ", " .. fmt(z) .. ")"
end

print("collide " .. tostring(collide._VERSION) .. " on " .. (jit and jit.version or _VERSION))
print()

-- Seed 004's unit-test scene: one box and five rays; hits would be drawn red, misses blue.
local box = collide.AABB(0.5, 0.5, 0.5, 2, 2, 2)
print("Seed 004: five rays against " .. tostring(box))
local rays = {
  { -2, -2, -2,   2, 2, 2 },
  {  0,  0,  0,   0, 1, 0 },
  {  0,  0,  0,  -1, 0, 0 },
  {  1,  1,  1,   1, 1, 0 },
  { 0.4, 1,  1,  -1, 0, 0 },
}
for i, r in ipairs(rays) do
  local ray = collide.Ray(r[1], r[2], r[3], r[4], r[5], r[6])
  local t, nx, ny, nz = box:raycast(ray)
  if t then
    local x, y, z = ray:at(t)
    local note = (t == 0) and "  (starts inside)" or ""
    print(string.format("  ray %d  HIT   t = %-10s point %-24s normal %s%s",
      i, fmt(t), vec(x, y, z), vec(nx, ny, nz), note))
  else
    print(string.format("  ray %d  miss", i))
  end
end
print("  (ray 1's t is 2.5*sqrt(3) = " .. fmt(2.5 * math.sqrt(3)) .. ")")
print()

-- Time of impact of two moving boxes over one step (seed 003).
local a = collide.AABB(0, 0, 0, 1, 1, 1)
local b = collide.AABB(3, 0, 0, 4, 1, 1)
print("Time of impact: " .. tostring(a) .. " moves +4 in x, " .. tostring(b) .. " stays")
local state, t = collide.toi(a, 4, 0, 0, b, 0, 0, 0)
print(string.format("  %s at t = %s: a has moved to x = %s when it first touches b", state, fmt(t), fmt(4 * t)))
state, t = collide.toi(a, 0, 4, 0, b, 0, 0, 0)
print(string.format("  moving +4 in y instead: %s (t = %s)", state, fmt(t)))
print()

-- An oriented box rotated 45 degrees about z, against an axis-aligned box.
local obb = collide.OBB(0, 0, 0, 1, 1, 1)
obb:rotate(math.pi / 4, 0, 0, 1)
local near = collide.AABB(1.3, -0.2, -0.2, 2, 0.2, 0.2)
local far = collide.AABB(1.5, -0.2, -0.2, 2, 0.2, 0.2)
print("Oriented box: a unit cube turned 45 degrees about z reaches x = " .. fmt(math.sqrt(2)))
print("  overlaps box starting at x = 1.3: " .. tostring(obb:overlaps(near)))
print("  overlaps box starting at x = 1.5: " .. tostring(obb:overlaps(far)))
local minx, _, _, maxx = obb:aabb():bounds()
print("  its tight AABB spans x from " .. fmt(minx) .. " to " .. fmt(maxx))
local ray = collide.Ray(5, 0, 0, -1, 0, 0)
local rt, nx, ny, nz = obb:raycast(ray)
print("  a ray from (5,0,0) towards -x hits it at t = " .. fmt(rt) .. " with normal " .. vec(nx, ny, nz))
print()

-- Spheres and planes.
local ball = collide.Sphere(0, 3, 0, 1)
print("A sphere, " .. tostring(ball) .. ", against the floor plane y = 0 (n = (0,1,0), d = 0): "
  .. ball:plane(0, 1, 0, 0) .. " (1 = wholly in front)")
print("  touches the box " .. tostring(collide.AABB(-1, -1, -1, 1, 2, 1)) .. ": "
  .. tostring(ball:overlaps(collide.AABB(-1, -1, -1, 1, 2, 1))))
print()

-- A World, if this build has one: a floor of tiles and a player sliding along it.
if collide.World then
  local world = collide.World()
  for i = 0, 9 do
    world:add("tile" .. i, collide.AABB(i, -1, 0, i + 1, 0, 1))
  end
  world:add("wall", collide.AABB(8, 0, 0, 9, 3, 1))
  world:add("player", collide.AABB(0.25, 0, 0.25, 0.75, 1, 0.75))
  print("World: " .. tostring(world) .. "; the player rests on a floor of 10 tiles and walks +10 in x")
  local ax, ay, az, cols, n = world:move("player", 10, 0, 0)
  print(string.format("  moved %s, %d collision(s)", vec(ax, ay, az), n))
  for i = 1, n do
    local c = cols[i]
    print(string.format("    %s with %s at t = %s, normal %s", c.type, tostring(c.other), fmt(c.t), vec(c.nx, c.ny, c.nz)))
  end
  local item, t2 = world:raycast(collide.Ray(0.5, 5, 0.5, 0, -1, 0))
  print("  a ray straight down from (0.5, 5, 0.5) first hits " .. tostring(item) .. " at t = " .. fmt(t2))
  world:destroy()
end
