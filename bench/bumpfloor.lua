-- bench/bumpfloor.lua: the floor of bump's API on the scenes of spec/support/bumpscenes.lua, next to
-- bump.lua 3.1.7 and collide.bump in the same run. The floor is a "replay world": a first run of each
-- scene on collide.bump records every answer the world gives (a tape); the replay world then gives
-- those answers back call by call with no collision work at all, but builds every table bump's API
-- returns (each move/check/project's cols table, each collision's col with its move, normal, touch,
-- itemRect and otherRect tables, slide/bounce tables, query lists, segment infos) and calls the
-- game's filters and custom responses where the API calls them, as few times as the API allows
-- (the filter once per collision found, in bump's order, until one accepts; the visited filter of a
-- custom response made once per move). Its frame time is the scene's own Lua + those tables and
-- calls + reading the tape: what any implementation of the API must pay, so bump.lua / floor is the
-- best speed-up any implementation could reach on that scene.
--
-- Usage (from the repository root; collide's module on LUA_CPATH):
--   lua5.4 bench/bumpfloor.lua [out.md]      -- the table (BENCH_ROUNDS, BENCH_BUMP_FRAMES as bench/bump.lua)
--   lua5.4 bench/bumpfloor.lua --check       -- replays each scene with its logs on and compares them
--                                               with collide.bump's, answer by answer
-- Needs ../shared/peers/bump.lua/bump.lua for the timing (the check runs without it).
package.path = "./spec/?.lua;" .. package.path
local scenes = require "support.bumpscenes"
local cbump = require "collide.bump"
local lib = require "lib"

local ROUNDS = tonumber(os.getenv("BENCH_ROUNDS") or "9")
local FRAMES = tonumber(os.getenv("BENCH_BUMP_FRAMES") or "60")
local WARM = 20
-- the bench's scene sizes (bench/bump.lua's)
local OPTS = {
  platformer = { players = 40, coins = 40, width = 100, height = 40 },
  crowd = { agents = 300, blocks = 60, size = 1600 },
  bullets = { enemies = 100, walls = 40, spawn = 8, lasers = 6, size = 1600 },
  querymap = { tiles = 120, queries = 40 },
}

local function sceneopts(name, log)
  local o = { seed = 7, cellSize = 64, log = log }
  for k, v in pairs(OPTS[name]) do o[k] = v end
  return o
end

------------------------------------------------------------------------------------------------
-- The recorder: a bump-like module whose worlds are real collide.bump worlds with every method
-- wrapped (as instance fields, so the callbacks the core makes with the world see them too), each
-- writing its answer onto the tape in the order the replay world reads it. Items are numbered in
-- the order they are first added (a replayed scene adds the same items in the same order).

local function recorder(tape)
  local n = 0
  local function put(v) n = n + 1; tape[n] = v end
  local ID, nid = {}, 0
  local stack = {} -- the calls in progress that log filter events (the innermost owns the events)
  local builtin = {}
  for _, f in pairs(cbump.responses) do builtin[f] = true end

  -- Returns the filter passed to the core for a call with token tok: logs each call (the other's
  -- number) when tok's call is the innermost, and reserves a collision's 16 slots after an accept
  -- when cols is a list (move, check, project).
  local function wrapfilter(tok, filter, reserved)
    return function(item, other)
      local mine = stack[#stack] == tok
      if mine then put(ID[other]) end
      local t
      if filter then t = filter(item, other) else t = "slide" end
      if mine and t and reserved then
        reserved[#reserved + 1] = n + 1
        for _ = 1, 16 do put(false) end
      end
      return t
    end
  end
  local function fillcol(at, c)
    local v = { c.overlaps, c.ti, c.move.x, c.move.y, c.normal.x, c.normal.y, c.touch.x, c.touch.y,
      c.itemRect.x, c.itemRect.y, c.itemRect.w, c.itemRect.h, c.otherRect.x, c.otherRect.y, c.otherRect.w,
      c.otherRect.h }
    for i = 1, 16 do tape[at + i - 1] = v[i] end
  end
  local function putlist(items, len)
    put(len)
    for i = 1, len do put(ID[items[i]]) end
  end

  local R = { rect = cbump.rect, responses = cbump.responses, _VERSION = cbump._VERSION }
  function R.newWorld(cs)
    local w = cbump.newWorld(cs)
    local W = getmetatable(w).__index
    function w:add(item, ...)
      if not ID[item] then nid = nid + 1; ID[item] = nid end
      return W.add(self, item, ...)
    end
    function w:getRect(item)
      local a, b, c, d = W.getRect(self, item)
      put(a); put(b); put(c); put(d)
      return a, b, c, d
    end
    function w:hasItem(item)
      local v = W.hasItem(self, item)
      put(v)
      return v
    end
    function w:countItems() local v = W.countItems(self); put(v); return v end
    function w:countCells() local v = W.countCells(self); put(v); return v end
    function w:getItems()
      local items, len = W.getItems(self)
      putlist(items, len)
      return items, len
    end
    for _, q in ipairs({ { "queryRect", 5 }, { "queryPoint", 3 }, { "querySegment", 5 } }) do
      local f, fi = W[q[1]], q[2]
      w[q[1]] = function(self, ...)
        local args = { ... }
        local tok = {}
        local filter = args[fi]
        if filter then
          args[fi] = function(item)
            if stack[#stack] == tok then put(ID[item]) end
            return filter(item)
          end
        end
        stack[#stack + 1] = tok
        local items, len = f(self, (table.unpack or unpack)(args, 1, fi))
        stack[#stack] = nil
        put(0)
        putlist(items, len)
        return items, len
      end
    end
    function w:querySegmentWithCoords(x1, y1, x2, y2, filter)
      local tok = {}
      local f = filter and function(item)
        if stack[#stack] == tok then put(ID[item]) end
        return filter(item)
      end
      stack[#stack + 1] = tok
      local infos, len = W.querySegmentWithCoords(self, x1, y1, x2, y2, f)
      stack[#stack] = nil
      put(0)
      put(len)
      for i = 1, len do
        local o = infos[i]
        put(ID[o.item]); put(o.ti1); put(o.ti2); put(o.x1); put(o.y1); put(o.x2); put(o.y2)
      end
      return infos, len
    end
    function w:project(item, x, y, ww, hh, gx, gy, filter)
      local tok, reserved = {}, {}
      stack[#stack + 1] = tok
      local cols, len = W.project(self, item, x, y, ww, hh, gx, gy, wrapfilter(tok, filter, reserved))
      stack[#stack] = nil
      put(0)
      assert(#reserved == len)
      for i = 1, len do fillcol(reserved[i], cols[i]) end
      return cols, len
    end
    for _, m in ipairs({ "move", "check" }) do
      local f = W[m]
      w[m] = function(self, item, gx, gy, filter)
        local tok, reserved = {}, {}
        stack[#stack + 1] = tok
        local ax, ay, cols, len = f(self, item, gx, gy, wrapfilter(tok, filter, reserved))
        stack[#stack] = nil
        -- the collisions found by the loop's own projections (the first, and each after a builtin
        -- response other than touch) are the reserved ones; the others came from custom responses
        local k, projected = 0, true
        for i = 1, len do
          if projected then
            k = k + 1
            fillcol(reserved[k], cols[i])
          end
          local r = self.responses[cols[i].type]
          projected = builtin[r] and r ~= cbump.responses.touch
        end
        assert(k == #reserved)
        if projected then put(0) end -- the last projection accepted nothing
        return ax, ay, cols, len
      end
    end
    function w:addResponse(name, resp)
      if builtin[resp] then return W.addResponse(self, name, resp) end
      return W.addResponse(self, name, function(world, col, x, y, ww, hh, gx, gy, filt)
        put(x); put(y); put(ww); put(hh)
        return resp(world, col, x, y, ww, hh, gx, gy, filt)
      end)
    end
    return w
  end
  return R, function() return n end
end

------------------------------------------------------------------------------------------------
-- The replay: a bump-like module answering from the tape. Each method reads exactly what the
-- recorder wrote for it and builds bump's answer tables; add, remove and update do nothing.

local function replay(tape)
  local T = tape
  local p = 0
  local I, ID, nid = {}, {}, 0

  local M = { rect = cbump.rect, _VERSION = cbump._VERSION }
  -- bump's responses: collide.bump's own Lua functions (bump.lua's code), which call world:project
  -- on whatever world they are given: here the replay world
  local responses = cbump.responses
  M.responses = responses
  local TOUCH, CROSS, SLIDE, BOUNCE = responses.touch, responses.cross, responses.slide, responses.bounce

  local World = {}
  local World_mt = { __index = World }

  function World:add(item, x, y, w, h)
    if not ID[item] then nid = nid + 1; ID[item] = nid; I[nid] = item end
    return item
  end
  function World:remove(item) end
  function World:update(item, x, y, w, h) end
  function World:getRect(item)
    local q = p
    p = q + 4
    return T[q + 1], T[q + 2], T[q + 3], T[q + 4]
  end
  function World:hasItem(item) p = p + 1; return T[p] end
  function World:countItems() p = p + 1; return T[p] end
  function World:countCells() p = p + 1; return T[p] end
  local function list()
    p = p + 1
    local n = T[p]
    local items = {}
    for i = 1, n do items[i] = I[T[p + i]] end
    p = p + n
    return items, n
  end
  function World:getItems() return list() end
  -- the filter calls of a query (the items the tape lists, up to a 0)
  local function filters(filter)
    while true do
      p = p + 1
      local id = T[p]
      if id == 0 then break end
      filter(I[id])
    end
  end
  -- the filter calls of a query, then its list
  local function query(filter)
    filters(filter)
    return list()
  end
  function World:queryRect(x, y, w, h, filter) return query(filter) end
  function World:queryPoint(x, y, filter) return query(filter) end
  function World:querySegment(x1, y1, x2, y2, filter) return query(filter) end
  function World:querySegmentWithCoords(x1, y1, x2, y2, filter)
    filters(filter)
    p = p + 1
    local n = T[p]
    local infos = {}
    for i = 1, n do
      local q = p
      p = q + 7
      infos[i] = { item = I[T[q + 1]], ti1 = T[q + 2], ti2 = T[q + 3], x1 = T[q + 4], y1 = T[q + 5], x2 = T[q + 6],
        y2 = T[q + 7] }
    end
    return infos, n
  end

  -- bump's col table for the collision whose 16 numbers come next on the tape
  local function readcol(item, other, typ)
    local q = p
    p = q + 16
    return {
      overlaps = T[q + 1], ti = T[q + 2],
      move = { x = T[q + 3], y = T[q + 4] },
      normal = { x = T[q + 5], y = T[q + 6] },
      touch = { x = T[q + 7], y = T[q + 8] },
      itemRect = { x = T[q + 9], y = T[q + 10], w = T[q + 11], h = T[q + 12] },
      otherRect = { x = T[q + 13], y = T[q + 14], w = T[q + 15], h = T[q + 16] },
      item = item, other = other, type = typ,
    }
  end
  -- one projection of a move's loop: the filter called on its collisions in order until one
  -- accepts; returns that collision's table, or nil
  local function leg(item, filter)
    while true do
      p = p + 1
      local id = T[p]
      if id == 0 then return nil end
      local other = I[id]
      local t
      if filter then t = filter(item, other) else t = "slide" end
      if t then return readcol(item, other, t) end
    end
  end

  function World:project(item, x, y, w, h, goalX, goalY, filter)
    local cols, len = {}, 0
    while true do
      p = p + 1
      local id = T[p]
      if id == 0 then break end
      local other = I[id]
      local t
      if filter then t = filter(item, other) else t = "slide" end
      if t then
        len = len + 1
        cols[len] = readcol(item, other, t)
      end
    end
    return cols, len
  end

  -- bump's check loop: the builtin responses inline (their tables made as bump makes them),
  -- custom ones called with the visited filter
  local function check(self, item, goalX, goalY, filter)
    local cols, len = {}, 0
    local visited, vfilter
    local col = leg(item, filter)
    local responsesof = self.responses
    while col do
      len = len + 1
      cols[len] = col
      if visited then visited[col.other] = true end
      local r = responsesof[col.type]
      if r == TOUCH then
        local t = col.touch
        goalX, goalY = t.x, t.y
        break
      elseif r == CROSS then
        col = leg(item, filter)
      elseif r == SLIDE then
        local t, m = col.touch, col.move
        if m.x ~= 0 or m.y ~= 0 then
          if col.normal.x ~= 0 then goalX = t.x else goalY = t.y end
        end
        col.slide = { x = goalX, y = goalY }
        col = leg(item, filter)
      elseif r == BOUNCE then
        local t, m = col.touch, col.move
        local tx, ty = t.x, t.y
        local bx, by = tx, ty
        if m.x ~= 0 or m.y ~= 0 then
          local rx, ry = goalX - tx, goalY - ty
          if col.normal.x == 0 then ry = -ry else rx = -rx end
          bx, by = tx + rx, ty + ry
        end
        col.bounce = { x = bx, y = by }
        goalX, goalY = bx, by
        col = leg(item, filter)
      else
        if not visited then
          visited = { [item] = true }
          for i = 1, len do visited[cols[i].other] = true end
          vfilter = function(it, other)
            if visited[other] then return false end
            if filter then return filter(it, other) end
            return "slide"
          end
        end
        local q = p
        p = q + 4
        local pcols, plen
        goalX, goalY, pcols, plen = r(self, col, T[q + 1], T[q + 2], T[q + 3], T[q + 4], goalX, goalY, vfilter)
        col = plen > 0 and pcols[1] or nil
      end
    end
    return goalX, goalY, cols, len
  end
  World.check = check
  World.move = check

  function World:addResponse(name, response)
    self.responses[name] = response
  end

  function M.newWorld(cellSize)
    local world = setmetatable({ cellSize = cellSize or 64, responses = {} }, World_mt)
    world:addResponse('touch', TOUCH)
    world:addResponse('cross', CROSS)
    world:addResponse('slide', SLIDE)
    world:addResponse('bounce', BOUNCE)
    return world
  end
  return M, function() return p end
end

------------------------------------------------------------------------------------------------

-- Records scene name for frames frames (after its construction), with logs when log is a table.
local function record(name, frames, log)
  local tape = {}
  local R, len = recorder(tape)
  local s = scenes[name](R, sceneopts(name, log))
  for _ = 1, frames do s:frame() end
  return tape, len()
end

if arg[1] == "--check" then
  local frames = tonumber(os.getenv("BENCH_BUMP_FRAMES") or "40")
  local bad = 0
  for _, name in ipairs(scenes.names) do
    -- the answers on collide.bump alone, recorded with their logs, and replayed with logs
    local plain = {}
    local s = scenes[name](cbump, sceneopts(name, plain))
    for _ = 1, frames do s:frame() end
    local rlog, flog = {}, {}
    local tape, n = record(name, frames, rlog)
    local M, pos = replay(tape)
    local f = scenes[name](M, sceneopts(name, flog))
    for _ = 1, frames do f:frame() end
    local same, lines = true, 0
    for i = 1, frames do
      for j = 1, math.max(#plain[i], #flog[i], #rlog[i]) do
        lines = lines + 1
        if plain[i][j] ~= flog[i][j] or rlog[i][j] ~= plain[i][j] then
          if same then
            print(("%s frame %d line %d:\n  collide %s\n  record  %s\n  replay  %s"):format(name, i, j,
              tostring(plain[i][j]), tostring(rlog[i][j]), tostring(flog[i][j])))
          end
          same = false
        end
      end
    end
    if pos() ~= n then same = false; print(("%s: replay read %d of %d tape entries"):format(name, pos(), n)) end
    print(("%s: %d frames, %d answer lines, tape %d entries: %s"):format(name, frames, lines, n,
      same and "replay identical" or "DIFFERENT"))
    if not same then bad = bad + 1 end
  end
  os.exit(bad == 0 and 0 or 1)
end

local out = arg[1] and assert(io.open(arg[1], "w")) or io.stdout
local version = jit and jit.version or _VERSION
local path = "../shared/peers/bump.lua/bump.lua"
local fh = io.open(path, "r")
if not fh then
  out:write(("#### bump's API floor (%s)\n\nskipped: %s is absent\n"):format(version, path))
  return
end
fh:close()
local rbump = dofile(path)

local function round(s) return lib.frameround(s, FRAMES) end
local median = lib.median

out:write(("#### bump's API floor (%s): per frame, cell size 64, %d rounds of %d frames\n\n"):format(version,
  ROUNDS, FRAMES))
out:write("| scene | bump.lua us | collide.bump us | floor us | bump/collide | bump/floor | collide/floor | floor KB |\n")
out:write("|---|---:|---:|---:|---:|---:|---:|---:|\n")
for _, name in ipairs(scenes.names) do
  local tape = record(name, WARM + ROUNDS * FRAMES)
  local M = replay(tape)
  local function make(mod)
    local s = scenes[name](mod, sceneopts(name))
    for _ = 1, WARM do s:frame() end
    return s
  end
  local sr, sc, sf = make(rbump), make(cbump), make(M)
  local tr, tc, tf, gf, rc, rf, cf = {}, {}, {}, {}, {}, {}, {}
  for i = 1, ROUNDS do
    local a = round(sr)
    local b = round(sc)
    local c, g = round(sf)
    tr[i], tc[i], tf[i], gf[i] = a, b, c, g
    rc[i], rf[i], cf[i] = a / b, a / c, b / c
  end
  out:write(("| %s | %.1f | %.1f | %.1f | %.1fx | %.1fx | %.1fx | %.1f |\n"):format(name, median(tr) * 1e6,
    median(tc) * 1e6, median(tf) * 1e6, median(rc), median(rf), median(cf), median(gf)))
  tape = nil
  collectgarbage()
end
out:write("\n")
