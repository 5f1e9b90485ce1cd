-- Review rev13 (cap18's mesh candidate cache, 7f1d017): fails on 7f1d017..bb2bb70, fixed after.
local collide = require "collide"

-- a 20 x 20 floor of 800 triangles at y = 0 (x, z in [-10, 10]), its triangles in an order
-- shuffled by k (k = 0: grid order)
local function floor(k)
  local tris = {}
  for i = 0, 19 do
    for j = 0, 19 do
      local x0, z0, x1, z1 = i - 10, j - 10, i - 9, j - 9
      tris[#tris + 1] = { x0, 0, z0, x1, 0, z0, x1, 0, z1 }
      tris[#tris + 1] = { x0, 0, z0, x1, 0, z1, x0, 0, z1 }
    end
  end
  local s = 12345 + k
  if k > 0 then
    for n = #tris, 2, -1 do
      s = (s * 1103515245 + 12345) % 2147483648
      local r = s % n + 1
      tris[n], tris[r] = tris[r], tris[n]
    end
  end
  local v = {}
  for _, t in ipairs(tris) do for _, c in ipairs(t) do v[#v + 1] = c end end
  return collide.Mesh(v)
end

describe("review13: a filter error inside character:move", function()
  it("leaves no mesh candidates behind for later moves against another mesh", function()
    -- 7f1d017 turns the world's candidate cache on at a character move's start and off at its
    -- end; a filter's error leaves it on, keyed by the cl_mesh's address only. A mesh collected
    -- and another made at its address (every mesh userdata has the same size) then got the old
    -- mesh's triangle numbers: the sphere sank 0.05 into the new floor with no collision (or
    -- read past the end of a smaller mesh's triangles: ASan heap-buffer-overflow)
    local w = collide.World()
    w:add("floor", floor(0))
    w:add("s", collide.Sphere(0.3, 0.5, 0.3, 0.5))
    w:add("wall", collide.AABB(0.9, -1, -5, 2, 3, 5))
    local ch = collide.Character(w, "s")
    ch:move(0, -0.1, 0)
    local ok = pcall(ch.move, ch, 0.2, -0.1, 0.1, function(_, other)
      if other == "wall" then error("filter error") end
      return "slide"
    end)
    assert.is_false(ok)
    w:remove("wall")
    local sunk = 0
    for k = 1, 60 do
      w:remove("floor")
      collectgarbage(); collectgarbage()
      w:add("floor", floor(k))
      local _, ay, _, _, n = w:check("s", 0.02, -0.05, 0)
      local _, my, _, _, mn = w:move("s", 0.02, -0.05, 0)
      if ay ~= 0 or n ~= 1 or my ~= 0 or mn ~= 1 then sunk = sunk + 1 end
      w:update("s", collide.Sphere(0.3, 0.5, 0.3, 0.5))
    end
    assert.are.equal(0, sunk)
  end)
end)
