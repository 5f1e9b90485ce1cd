-- collide.bump against real bump.lua 3.1.7 (../shared/peers/bump.lua/bump.lua): scripted game
-- scenes (spec/support/bumpscenes.lua: a platformer with one-way platforms and coins, a top-down
-- crowd with slide/bounce/touch, bullets with cross and segment queries, a big query map) played
-- on both; every answer of every frame must be the same (sets where bump's order is its hash
-- order, segment hits sorted by their entry along the line, countCells after a collection).
local scenes = require "support.bumpscenes"
local cbump = require "collide.bump"

local path = "../shared/peers/bump.lua/bump.lua"
local f = io.open(path, "r")
if not f then
  describe("collide.bump against bump.lua", function()
    pending("skipped: " .. path .. " is absent (bump.lua 3.1.7 sits beside the project in ../shared)")
  end)
  return
end
f:close()
local rbump = dofile(path)

local quick = os.getenv("COLLIDE_QUICK") ~= nil

-- Plays the scene on both modules; returns the first differing frame's description, or nil.
local function compare(name, opts, frames)
  local la, lb = {}, {}
  local oa, ob = {}, {}
  for k, v in pairs(opts) do oa[k], ob[k] = v, v end
  oa.log, ob.log = la, lb
  local sa, sb = scenes[name](rbump, oa), scenes[name](cbump, ob)
  for i = 1, frames do
    sa:frame()
    sb:frame()
    local fa, fb = la[i], lb[i]
    for k = 1, math.max(#fa, #fb) do
      if fa[k] ~= fb[k] then
        return ("frame %d, answer %d:\n  bump.lua:     %s\n  collide.bump: %s"):format(i, k, tostring(fa[k]), tostring(fb[k]))
      end
    end
  end
  sa:finish()
  sb:finish()
  local fa, fb = la[frames + 1], lb[frames + 1]
  if fa[1] ~= fb[1] then return ("at the end: bump.lua %s, collide.bump %s"):format(fa[1], fb[1]) end
  local n = 0
  for i = 1, frames do n = n + #la[i] end
  return nil, n
end

describe("collide.bump against bump.lua, frame by frame", function()
  local seeds = quick and 2 or 6
  local frames = quick and 60 or 200
  for _, name in ipairs(scenes.names) do
    for seed = 1, seeds do
      local cell = ({ 64, 32, 100, 16, 64, 50 })[seed]
      it(("%s, seed %d, cell size %d: every answer the same"):format(name, seed, cell), function()
        local diff, n = compare(name, { seed = seed, cellSize = cell }, frames)
        assert(diff == nil, diff)
        assert.is_true(n > frames)
      end)
    end
  end
end)
