-- collide.bump demo for LÖVE 11.x: a small platformer written for bump.lua (game.lua uses only
-- bump's API) running on collide.bump. Started by `make love-bump`. Keys: arrows / A D move,
-- space or up jumps, Esc quits.
--
-- Command line (all optional; the test modes exit by themselves):
--   --so PATH          load collide.so from PATH (default: require "collide", then the repository's build)
--   --screenshot PATH  play FRAMES frames of scripted input, save a PNG of the last one, check it, quit
--   --frames N         frames played before the screenshot (default 360)
-- The check (exit status 1 when it fails): the player's pixels are where collide.bump says it is,
-- and, when ../shared/peers/bump.lua is there, the same scripted game played headless on real
-- bump.lua ends with the same player position, score and item count.

local opts = { frames = 360 }
local bump, game, g
local frame = 0
local check -- the screenshot check, defined below love.draw

local PLAYER = { 1, 0.8, 0.2 }

-- Returns the options parsed from LÖVE's argument list; raises on an unknown option.
local function parseargs(args)
  local i = 1
  while args[i] do
    local a = args[i]
    if a == "--so" or a == "--screenshot" then
      opts[a:sub(3)] = assert(args[i + 1], a .. " needs a value"); i = i + 2
    elseif a == "--frames" then
      opts.frames = assert(tonumber(args[i + 1]), "--frames needs a number"); i = i + 2
    else
      error("unknown option " .. a)
    end
  end
end

-- Returns the repository root (this folder is examples/love-bump).
local function root()
  return love.filesystem.getSource() .. "/../.."
end

-- Loads collide (from --so, require, or the repository's LuaJIT build) and collide.bump.
local function loadbump()
  if opts.so then
    local open, err = package.loadlib(opts.so, "luaopen_collide")
    if not open then error("cannot load " .. opts.so .. ": " .. tostring(err)) end
    package.loaded.collide = open("collide")
  elseif not pcall(require, "collide") then
    package.cpath = root() .. "/build/luajit/?.so;" .. package.cpath
  end
  package.path = root() .. "/lua/?.lua;" .. package.path
  return require("collide.bump")
end

function love.load(args)
  parseargs(args or {})
  if opts.screenshot then
    love.errorhandler = function(msg)
      io.stderr:write(debug.traceback("collide.bump demo error: " .. tostring(msg), 3), "\n")
      return nil
    end
  end
  bump = loadbump()
  game = require "game"
  g = game.new(bump)
  love.graphics.setBackgroundColor(0.07, 0.08, 0.1)
end

-- The player's input: scripted in the test mode, else the keyboard.
local function input()
  if opts.screenshot then return game.script(frame) end
  local k = love.keyboard.isDown
  return { left = k("left", "a"), right = k("right", "d"), jump = k("space", "up", "w") }
end

function love.update(dt)
  frame = frame + 1
  if opts.screenshot then dt = 1 / 60 end
  g:update(math.min(dt, 1 / 30), input())
end

function love.draw()
  local world = g.world
  for _, b in ipairs(g.blocks) do
    local x, y, w, h = world:getRect(b)
    if b.kind == "block" then love.graphics.setColor(0.35, 0.4, 0.5) else love.graphics.setColor(0.3, 0.7, 0.4) end
    love.graphics.rectangle("fill", x, y, w, h)
  end
  love.graphics.setColor(1, 0.9, 0)
  for _, c in ipairs(g.coins) do
    if world:hasItem(c) then
      local x, y, w, h = world:getRect(c)
      love.graphics.circle("fill", x + w / 2, y + h / 2, w / 2)
    end
  end
  local px, py, pw, ph = world:getRect(g.player)
  love.graphics.setColor(PLAYER)
  love.graphics.rectangle("fill", px, py, pw, ph)
  love.graphics.setColor(0.9, 0.9, 0.9)
  love.graphics.print(("%s on collide   coins %d   items %d"):format(bump._VERSION, g.score, world:countItems()), 20, 270)
  if opts.screenshot and frame >= opts.frames then
    if not opts.captured then
      opts.captured = true
      love.graphics.captureScreenshot(function(img) love.event.quit(check(img)) end)
    end
  end
end

-- Saves the screenshot, checks it and the headless bump.lua replay; returns the exit status.
function check(img)
  local fh = assert(io.open(opts.screenshot, "wb"))
  fh:write(img:encode("png"):getString())
  fh:close()
  print("collide.bump demo: saved " .. opts.screenshot)
  local ok = true
  local px, py, pw, ph = g.world:getRect(g.player)
  -- the player's centre pixel has the player's colour, the pixel 4 below its feet does not
  local r, gg, b = img:getPixel(math.floor(px + pw / 2), math.floor(py + ph / 2))
  local isplayer = math.abs(r - PLAYER[1]) < 0.05 and math.abs(gg - PLAYER[2]) < 0.05 and math.abs(b - PLAYER[3]) < 0.05
  print(("  player at %.3f, %.3f: centre pixel %.2f %.2f %.2f %s"):format(px, py, r, gg, b, isplayer and "ok" or "WRONG"))
  ok = ok and isplayer
  print(("  frames %d, coins %d, items %d, on ground %s"):format(frame, g.score, g.world:countItems(), tostring(g.player.ground)))
  if g.score == 0 then
    print("  no coin collected: the scripted run did not play")
    ok = false
  end
  -- the same scripted game on real bump.lua, headless
  local path = root() .. "/../shared/peers/bump.lua/bump.lua"
  local f = io.open(path, "r")
  if f then
    f:close()
    local real = dofile(path)
    local rg = game.new(real)
    for n = 1, frame do rg:update(1 / 60, game.script(n)) end
    local rx, ry = rg.world:getRect(rg.player)
    local same = rx == px and ry == py and rg.score == g.score and rg.world:countItems() == g.world:countItems()
    print(("  bump.lua replay: player %.3f, %.3f, coins %d, items %d: %s"):format(rx, ry, rg.score,
      rg.world:countItems(), same and "same" or "DIFFERENT"))
    ok = ok and same
  else
    print("  bump.lua replay skipped: " .. path .. " is absent")
  end
  print(ok and "screenshot check: ok" or "screenshot check: FAILED")
  return ok and 0 or 1
end

function love.keypressed(key)
  if key == "escape" then love.event.quit(0) end
end
