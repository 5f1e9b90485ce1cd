-- A small platformer written for bump.lua's API (no LÖVE calls here: main.lua draws it, and the
-- screenshot test also plays it headless on real bump.lua to compare). new(bump) returns a game
-- with :update(dt, input) (input: left, right, jump booleans), the world, the player and the map.

local game = {}

local T = 16
-- The level: # block, = one-way platform (passable from below), o coin, P player start.
local MAP = {
  "##############################################",
  "#                                            #",
  "#                                  o o o     #",
  "#                                 =====      #",
  "#          o o                               #",
  "#        ======          o    ###            #",
  "#                      ====                  #",
  "#   o                                   o    #",
  "#  ===         ###              ======  ==   #",
  "#                    o                       #",
  "#          o       =====     o               #",
  "#        #####             #####        o    #",
  "#  P                 o                 ###   #",
  "#       ===        ####        ===           #",
  "#     o    o             o   o      o        #",
  "##############################################",
}
game.T, game.MAP = T, MAP

-- Returns a new game on the bump module given (bump.lua or collide.bump).
function game.new(bump)
  local g = { world = bump.newWorld(64), blocks = {}, coins = {}, score = 0 }
  local world = g.world
  for row, line in ipairs(MAP) do
    for col = 1, #line do
      local ch = line:sub(col, col)
      local x, y = (col - 1) * T, (row - 1) * T
      if ch == "#" then
        local b = { kind = "block" }
        world:add(b, x, y, T, T)
        g.blocks[#g.blocks + 1] = b
      elseif ch == "=" then
        local b = { kind = "oneway", top = y }
        world:add(b, x, y, T, 4)
        g.blocks[#g.blocks + 1] = b
      elseif ch == "o" then
        local c = { kind = "coin" }
        world:add(c, x + 5, y + 5, 6, 6)
        g.coins[#g.coins + 1] = c
      elseif ch == "P" then
        g.player = { kind = "player", vx = 0, vy = 0, ground = false }
        world:add(g.player, x + 2, y + 2, 12, 14)
      end
    end
  end
  g.width, g.height = #MAP[1] * T, #MAP * T

  -- bump's filter of the player's moves: slide on blocks, one-way platforms only from above,
  -- cross coins
  local function filter(item, other)
    if other.kind == "block" then return "slide" end
    if other.kind == "oneway" then
      local _, y, _, h = world:getRect(item)
      if item.vy >= 0 and y + h <= other.top then return "slide" end
      return nil
    end
    if other.kind == "coin" then return "cross" end
    return nil
  end

  function g:update(dt, input)
    local p = self.player
    local speed = 110
    p.vx = (input.right and speed or 0) - (input.left and speed or 0)
    if input.jump and p.ground then p.vy = -300 end
    p.vy = math.min(p.vy + 900 * dt, 500)
    local x, y = world:getRect(p)
    local ax, ay, cols, len = world:move(p, x + p.vx * dt, y + p.vy * dt, filter)
    p.ground = false
    for i = 1, len do
      local c = cols[i]
      if c.other.kind == "coin" then
        if world:hasItem(c.other) then
          world:remove(c.other)
          self.score = self.score + 1
        end
      elseif c.normal.y < 0 then
        p.vy, p.ground = 0, true
      elseif c.normal.y > 0 then
        p.vy = 0
      end
    end
    return ax, ay
  end
  return g
end

-- The scripted input of the test modes at frame n: run right, jump now and then, turn back later.
function game.script(n)
  local phase = math.floor(n / 150) % 3
  return {
    right = phase ~= 2,
    left = phase == 2,
    jump = (n % 32) == 5,
  }
end

return game
