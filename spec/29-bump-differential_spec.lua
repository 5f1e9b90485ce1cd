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

-- Single operations on crowded random worlds, biased to bump's nasty cases: integer coordinates
-- (touching faces, shared corners), items already overlapping, zero and tiny moves, goals on
-- cell borders; every response type and custom responses. Cases whose first leg has two
-- collisions bump cannot order (equal ti and distance: its hash order decides) are skipped.
describe("collide.bump against bump.lua, random single moves and queries", function()
  local quick = os.getenv("COLLIDE_QUICK") ~= nil

  -- A PRNG: rand() in [0, 1), rand(n) in [1, n], the same on every Lua (the scenes' own).
  local prng = scenes.prng

  -- Returns a coordinate: mostly integers on a small grid, sometimes a cell border or a fraction.
  local function coord(rand)
    local r = rand()
    if r < 0.6 then return rand(40) - 5 end
    if r < 0.75 then return 16 * (rand(4) - 1) end
    if r < 0.8 then return 16 * (rand(4) - 1) - 1e-12 end
    return rand() * 40 - 5
  end

  -- Returns the canonical text of a value (the scenes' own: numbers in %.17g, integers marked on
  -- Lua 5.3+, so that bump's number subtypes are compared too).
  local t = scenes.fmt

  -- Returns the canonical text of a move/check/project answer.
  local function text(x, y, cols, len)
    local parts = { t(x), t(y), t(len), t(#cols) }
    for i = 1, #cols do
      local c = cols[i]
      local f = { c.other.name, c.type, c.overlaps, c.ti, c.move.x, c.move.y, c.normal.x, c.normal.y, c.touch.x,
        c.touch.y, c.itemRect.x, c.itemRect.y, c.itemRect.w, c.itemRect.h, c.otherRect.x, c.otherRect.y,
        c.otherRect.w, c.otherRect.h, c.slide and c.slide.x, c.slide and c.slide.y, c.bounce and c.bounce.x,
        c.bounce and c.bounce.y }
      for k = 1, 22 do f[k] = t(f[k]) end
      parts[#parts + 1] = table.concat(f, " ")
    end
    return table.concat(parts, " | ")
  end

  -- Returns true when bump's first projection of the move has a tie it orders by hash.
  local function tied(world, item, gx, gy, filter)
    local x, y, w, h = world:getRect(item)
    local cols = world:project(item, x, y, w, h, gx, gy, filter)
    for i = 2, #cols do
      local a, b = cols[i - 1], cols[i]
      if a.ti == b.ti then
        local ir = a.itemRect
        local da = rbump.rect.getSquareDistance(ir.x, ir.y, ir.w, ir.h, a.otherRect.x, a.otherRect.y, a.otherRect.w, a.otherRect.h)
        local db = rbump.rect.getSquareDistance(ir.x, ir.y, ir.w, ir.h, b.otherRect.x, b.otherRect.y, b.otherRect.w, b.otherRect.h)
        if da == db then return true end
      end
    end
    return false
  end

  it("every move, check and project answer is bump's", function()
    local rand = prng(2023) -- state 2024
    local worlds, compared, skipped = quick and 8 or 30, 0, 0
    local types = { "slide", "touch", "cross", "bounce", "halt" }
    local halt = function(world, col) return col.touch.x, col.touch.y, {}, 0 end
    for _ = 1, worlds do
      local cell = ({ 16, 32, 64, 10 })[rand(4)]
      local A, B = rbump.newWorld(cell), cbump.newWorld(cell)
      A:addResponse("halt", halt)
      B:addResponse("halt", halt)
      local items = {}
      for i = 1, 25 + rand(25) do
        local it = { name = i, kind = rand(#types) }
        local x, y = coord(rand), coord(rand)
        local w, h = rand(6), rand(6)
        if rand() < 0.2 then w, h = w + rand(), h + rand() end
        A:add(it, x, y, w, h)
        B:add(it, x, y, w, h)
        items[#items + 1] = it
      end
      local filter = function(item, other) return types[other.kind] end
      for _ = 1, quick and 40 or 100 do
        local it = items[rand(#items)]
        local x, y = A:getRect(it)
        local gx, gy
        local r = rand()
        if r < 0.15 then gx, gy = x, y
        elseif r < 0.3 then gx, gy = x + (rand() - 0.5) * 1e-9, y
        elseif r < 0.7 then gx, gy = coord(rand), coord(rand)
        else gx, gy = x + (rand() - 0.5) * 30, y + (rand() - 0.5) * 30 end
        if tied(A, it, gx, gy, filter) then
          skipped = skipped + 1
          A:update(it, gx, gy)
          B:update(it, gx, gy)
        else
          local w, h = select(3, A:getRect(it))
          local pa = text(0, 0, A:project(it, gx, gy, w, h, x, y, filter))
          local pb = text(0, 0, B:project(it, gx, gy, w, h, x, y, filter))
          local ca = text(A:check(it, gx, gy, filter))
          local cb = text(B:check(it, gx, gy, filter))
          local ma = text(A:move(it, gx, gy, filter))
          local mb = text(B:move(it, gx, gy, filter))
          assert.equals(pa, pb)
          assert.equals(ca, cb)
          assert.equals(ma, mb)
          compared = compared + 1
        end
        local ra, rb = { A:getRect(it) }, { B:getRect(it) }
        for k = 1, 4 do ra[k], rb[k] = t(ra[k]), t(rb[k]) end
        assert.same(ra, rb)
      end
    end
    assert.is_true(compared > skipped * 3, ("compared %d, skipped %d"):format(compared, skipped))
  end)
end)

-- Moves and updates that leave grid cells (on LuaJIT these go through the FFI path, which hands
-- the cells left to the classic side): with the collector stopped, bump.lua keeps every emptied
-- cell, and so must countCells here.
describe("collide.bump against bump.lua: countCells after cells are left", function()
  it("counts the cells emptied since the last collection as bump.lua does", function()
    local prng = scenes.prng
    local rand = prng(99)
    collectgarbage()
    collectgarbage("stop")
    local ok, err = pcall(function()
      for _ = 1, 20 do
        local cell = ({ 8, 16, 64 })[rand(3)]
        local A, B = rbump.newWorld(cell), cbump.newWorld(cell)
        local items = {}
        for i = 1, 10 do
          local it = { name = i }
          local x, y, w, h = rand() * 200, rand() * 200, 1 + rand() * 10, 1 + rand() * 10
          A:add(it, x, y, w, h)
          B:add(it, x, y, w, h)
          items[i] = it
        end
        for _ = 1, 30 do
          local it = items[rand(#items)]
          local x, y = A:getRect(it)
          local gx, gy = x + (rand() - 0.5) * 40, y + (rand() - 0.5) * 40
          if rand() < 0.5 then
            A:update(it, gx, gy)
            B:update(it, gx, gy)
          else
            local ax, ay = A:move(it, gx, gy)
            local bx, by = B:move(it, gx, gy)
            assert.same({ ax, ay }, { bx, by })
          end
          assert.equals(A:countCells(), B:countCells())
        end
      end
    end)
    collectgarbage("restart")
    assert(ok, err)
  end)
end)
