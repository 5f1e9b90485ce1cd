-- collide.bump: bump.lua 3.1.7's API (kikito/bump.lua) on collide's C core. A game switches by
-- replacing `require "bump"` with `require "collide.bump"`. The world is a plain table (its
-- methods live in a shared metatable, as bump's); the work of add/remove/update/move/check/
-- project and of the queries is done in C (csrc/bind/bump.c on csrc/core/bump.c: a dynamic AABB
-- tree instead of bump's grid, bump's collision test, sort and responses). This file holds what
-- bump's API needs in Lua: the module fields, bump.rect, bump.responses, newWorld, toCell,
-- toWorld and addResponse. See the README, "Switching from bump.lua", for what differs.

local collide = require "collide"
local C = collide._bump

local abs, floor, ceil, min, max = math.abs, math.floor, math.ceil, math.min, math.max
local huge = math.huge
local DELTA = 1e-10 -- bump's margin

local bump = {
  _VERSION     = 'bump v3.1.7',
  _URL         = 'https://github.com/kikito/bump.lua',
  _DESCRIPTION = 'A collision detection library for Lua',
  _LICENSE     = [[
    MIT LICENSE

    Copyright (c) 2014 Enrique García Cota

    Permission is hereby granted, free of charge, to any person obtaining a
    copy of this software and associated documentation files (the
    "Software"), to deal in the Software without restriction, including
    without limitation the rights to use, copy, modify, merge, publish,
    distribute, sublicense, and/or sell copies of the Software, and to
    permit persons to whom the Software is furnished to do so, subject to
    the following conditions:

    The above copyright notice and this permission notice shall be included
    in all copies or substantial portions of the Software.

    THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
    OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
    MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
    IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
    CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
    TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
    SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
  ]]
}

------------------------------------------------------------------------------------------------
-- bump.rect: bump's rectangle functions (the C core repeats these tests in the same arithmetic)

local rect = {}

-- Returns the corner of the rect nearest to (px, py) on each axis (the far side on ties).
function rect.getNearestCorner(x, y, w, h, px, py)
  local cx = abs(x - px) < abs(x + w - px) and x or x + w
  local cy = abs(y - py) < abs(y + h - py) and y or y + h
  return cx, cy
end

-- Returns ti1, ti2, nx1, ny1, nx2, ny2 where the segment (x1,y1)-(x2,y2) clipped to [ti1, ti2]
-- (default [0, 1]) enters and leaves the rect, or nil when it misses (Liang-Barsky).
function rect.getSegmentIntersectionIndices(x, y, w, h, x1, y1, x2, y2, ti1, ti2)
  ti1, ti2 = ti1 or 0, ti2 or 1
  local dx, dy = x2 - x1, y2 - y1
  local nx1, ny1, nx2, ny2 = 0, 0, 0, 0
  -- the four sides in bump's order: left, right, top, bottom
  for side = 1, 4 do
    local p, q, nx, ny
    if side == 1 then p, q, nx, ny = -dx, x1 - x, -1, 0
    elseif side == 2 then p, q, nx, ny = dx, x + w - x1, 1, 0
    elseif side == 3 then p, q, nx, ny = -dy, y1 - y, 0, -1
    else p, q, nx, ny = dy, y + h - y1, 0, 1 end
    if p == 0 then
      if q <= 0 then return nil end
    elseif p < 0 then
      local r = q / p
      if r > ti2 then return nil end
      if r > ti1 then ti1, nx1, ny1 = r, nx, ny end
    else
      local r = q / p
      if r < ti1 then return nil end
      if r < ti2 then ti2, nx2, ny2 = r, nx, ny end
    end
  end
  return ti1, ti2, nx1, ny1, nx2, ny2
end

-- Returns the Minkowski difference of the two rects (a rect).
function rect.getDiff(x1, y1, w1, h1, x2, y2, w2, h2)
  return x2 - x1 - w1, y2 - y1 - h1, w1 + w2, h1 + h2
end

-- Returns true when (px, py) is inside the rect by more than bump's margin on every side.
function rect.containsPoint(x, y, w, h, px, py)
  return px - x > DELTA and py - y > DELTA and x + w - px > DELTA and y + h - py > DELTA
end

-- Returns true when the two rects' interiors intersect (touching is not intersecting).
function rect.isIntersecting(x1, y1, w1, h1, x2, y2, w2, h2)
  return x1 < x2 + w2 and x2 < x1 + w1 and y1 < y2 + h2 and y2 < y1 + h1
end

-- Returns the square distance between the two rects' centres (as bump computes it).
function rect.getSquareDistance(x1, y1, w1, h1, x2, y2, w2, h2)
  local dx = x1 - x2 + (w1 - w2) / 2
  local dy = y1 - y2 + (h1 - h2) / 2
  return dx * dx + dy * dy
end

-- Returns bump's collision table when the first rect moving to (goalX, goalY) hits the second
-- (or already overlaps it), else nil.
function rect.detectCollision(x1, y1, w1, h1, x2, y2, w2, h2, goalX, goalY)
  goalX, goalY = goalX or x1, goalY or y1
  local dx, dy = goalX - x1, goalY - y1
  local x, y, w, h = rect.getDiff(x1, y1, w1, h1, x2, y2, w2, h2)
  local overlaps, ti, nx, ny, tx, ty
  if rect.containsPoint(x, y, w, h, 0, 0) then
    local px, py = rect.getNearestCorner(x, y, w, h, 0, 0)
    ti = -min(w1, abs(px)) * min(h1, abs(py))
    overlaps = true
    if dx == 0 and dy == 0 then
      if abs(px) < abs(py) then py = 0 else px = 0 end
      nx = px > 0 and 1 or px == 0 and 0 or -1
      ny = py > 0 and 1 or py == 0 and 0 or -1
      tx, ty = x1 + px, y1 + py
    else
      local t1, _, n1, n2 = rect.getSegmentIntersectionIndices(x, y, w, h, 0, 0, dx, dy, -huge, 1)
      if not t1 then return nil end
      nx, ny = n1, n2
      tx, ty = x1 + dx * t1, y1 + dy * t1
    end
  else
    local t1, t2, n1, n2 = rect.getSegmentIntersectionIndices(x, y, w, h, 0, 0, dx, dy, -huge, huge)
    if not (t1 and t1 < 1 and abs(t1 - t2) >= DELTA and (0 < t1 + DELTA or (0 == t1 and t2 > 0))) then
      return nil
    end
    ti, nx, ny, overlaps = t1, n1, n2, false
    tx, ty = x1 + dx * ti, y1 + dy * ti
  end
  return {
    overlaps  = overlaps,
    ti        = ti,
    move      = { x = dx, y = dy },
    normal    = { x = nx, y = ny },
    touch     = { x = tx, y = ty },
    itemRect  = { x = x1, y = y1, w = w1, h = h1 },
    otherRect = { x = x2, y = y2, w = w2, h = h2 },
  }
end

bump.rect = rect

------------------------------------------------------------------------------------------------
-- bump.responses: the four built-in responses. world:check/move run these in C when a world's
-- response is one of these very functions; called directly (say from a custom response) they
-- do the same through world:project.

local responses = {}

-- touch: stops at the touch point; no further collisions.
function responses.touch(world, col, x, y, w, h, goalX, goalY, filter)
  return col.touch.x, col.touch.y, {}, 0
end

-- cross: goes on to the goal, colliding with what lies on the way from the start.
function responses.cross(world, col, x, y, w, h, goalX, goalY, filter)
  local cols, len = world:project(col.item, x, y, w, h, goalX, goalY, filter)
  return goalX, goalY, cols, len
end

-- slide: keeps the move along the surface hit (sets col.slide).
function responses.slide(world, col, x, y, w, h, goalX, goalY, filter)
  goalX, goalY = goalX or x, goalY or y
  local touch, move = col.touch, col.move
  if move.x ~= 0 or move.y ~= 0 then
    if col.normal.x ~= 0 then goalX = touch.x else goalY = touch.y end
  end
  col.slide = { x = goalX, y = goalY }
  local cols, len = world:project(col.item, touch.x, touch.y, w, h, goalX, goalY, filter)
  return goalX, goalY, cols, len
end

-- bounce: mirrors the rest of the move off the surface hit (sets col.bounce).
function responses.bounce(world, col, x, y, w, h, goalX, goalY, filter)
  goalX, goalY = goalX or x, goalY or y
  local tx, ty = col.touch.x, col.touch.y
  local bx, by = tx, ty
  local move = col.move
  if move.x ~= 0 or move.y ~= 0 then
    local rx, ry = goalX - tx, goalY - ty
    if col.normal.x == 0 then ry = -ry else rx = -rx end
    bx, by = tx + rx, ty + ry
  end
  col.bounce = { x = bx, y = by }
  local cols, len = world:project(col.item, tx, ty, w, h, bx, by, filter)
  return bx, by, cols, len
end

bump.responses = responses
C.setresponses(responses.touch, responses.cross, responses.slide, responses.bounce)

------------------------------------------------------------------------------------------------
-- World

local World = {}
for name, f in pairs(C.methods) do World[name] = f end
local World_mt = { __index = World }

-- The user value of each core this module made (weak keys): its [0] maps items to slot numbers
-- and its [slot] holds the item (see csrc/bind/bump.c). Only the FFI path reads it.
local UV = setmetatable({}, { __mode = "k" })

-- LuaJIT with the JIT on (collide._ffi): getRect, update, move and check with nothing in the way,
-- and queryRect, queryPoint and querySegment without a filter or an out table go through the FFI (csrc/bind/bump.c's fast functions), so compiled game loops stay
-- compiled; anything else (a collision, an out table, a nil goal, bad or irregular arguments, a
-- world tampered with) falls back to the classic method, which does the work or raises its error.
if collide._ffi and C.fast then
  local ffi = require "ffi"
  local anyfnp = ffi.typeof("void (**)(void)")
  local function cfn(name, sig)
    return ffi.cast(sig, ffi.cast(anyfnp, C.fast[name])[0])
  end
  local FRECT = cfn("rect", "int (*)(void *, double, double *)")
  local FUPDATE = cfn("update", "int (*)(void *, double, double, double, double, double, int, int, double *)")
  local FMOVE = cfn("move", "int (*)(void *, double, double, double, int, double *)")
  local OUT = ffi.new("double[4]")
  local ghost = C.ghost
  local classic = { getRect = World.getRect, update = World.update, move = World.move, check = World.check }
  local type, rawget = type, rawget

  -- Returns the core of world w and the slot number of item when both are regular, else nil.
  local function slotof(w, item)
    if type(w) ~= "table" then return nil end
    local core = rawget(w, 1)
    local U = UV[core]
    if U == nil then return nil end
    local map = U[0]
    if type(map) ~= "table" then return nil end
    local slot = map[item]
    if slot ~= nil and U[slot] == item then return core, slot end
    return nil
  end

  function World.getRect(w, item)
    local core, slot = slotof(w, item)
    if core and FRECT(core, slot, OUT) > 0 then return OUT[0], OUT[1], OUT[2], OUT[3] end
    return classic.getRect(w, item)
  end

  function World.update(w, item, x, y, ww, hh)
    if type(x) == "number" and type(y) == "number" and (ww == nil or type(ww) == "number")
       and (hh == nil or type(hh) == "number") then
      local core, slot = slotof(w, item)
      if core then
        local st = FUPDATE(core, slot, x, y, ww or 0, hh or 0, ww ~= nil and 1 or 0, hh ~= nil and 1 or 0, OUT)
        if st > 0 then
          if st == 2 then ghost(w, OUT[0], OUT[1], OUT[2], OUT[3]) end
          return
        end
      end
    end
    return classic.update(w, item, x, y, ww, hh)
  end

  -- Returns the fast answer of move (domove 1) or check (0), or the classic method's.
  local function movecheck(domove, f, w, item, goalX, goalY, filter, cols)
    if cols == nil and type(goalX) == "number" and type(goalY) == "number" then
      local core, slot = slotof(w, item)
      if core then
        local st = FMOVE(core, slot, goalX, goalY, domove, OUT)
        if st > 0 then
          if st == 2 then ghost(w, OUT[0], OUT[1], OUT[2], OUT[3]) end
          return goalX, goalY, {}, 0
        end
      end
    end
    return f(w, item, goalX, goalY, filter, cols)
  end

  function World.move(w, item, goalX, goalY, filter, cols)
    return movecheck(1, classic.move, w, item, goalX, goalY, filter, cols)
  end

  function World.check(w, item, goalX, goalY, filter, cols)
    return movecheck(0, classic.check, w, item, goalX, goalY, filter, cols)
  end

  -- Queries without a filter or an out table: C writes the slot numbers, Lua makes the list.
  local FQUERY = cfn("query", "int (*)(void *, int, double, double, double, double, int *, int)")
  local intvla = ffi.typeof("int[?]")
  local SLOTS, SCAP = intvla(256), 256
  -- Returns the items and their number, or nil when the fast path does not apply.
  local function query(w, kind, a, b, c, d)
    if type(w) ~= "table" then return nil end
    local core = rawget(w, 1)
    local U = UV[core]
    if U == nil then return nil end
    local n = FQUERY(core, kind, a, b, c, d, SLOTS, SCAP)
    if n > SCAP then
      local cap = SCAP
      while cap < n do cap = 2 * cap end
      SLOTS, SCAP = intvla(cap), cap
      n = FQUERY(core, kind, a, b, c, d, SLOTS, SCAP)
    end
    if n < 0 or n > SCAP then return nil end
    local items = {}
    for i = 0, n - 1 do items[i + 1] = U[SLOTS[i]] end
    return items, n
  end
  for _, q in ipairs({ { "queryRect", 0, 4 }, { "queryPoint", 1, 2 }, { "querySegment", 2, 4 } }) do
    local f, kind, nums = World[q[1]], q[2], q[3]
    classic[q[1]] = f
    World[q[1]] = function(w, a, b, c, d, e, g)
      local filter, out
      if nums == 2 then filter, out = c, d else filter, out = e, g end
      if filter == nil and out == nil and type(a) == "number" and type(b) == "number"
         and (nums == 2 or (type(c) == "number" and type(d) == "number")) then
        local items, n = query(w, kind, a, b, nums == 2 and 0 or c, nums == 2 and 0 or d)
        if items then return items, n end
      end
      return f(w, a, b, c, d, e, g)
    end
  end
end

-- Registers (or replaces) the response called for collisions of type name.
function World:addResponse(name, response)
  self.responses[name] = response
end

-- Returns the cell (cx, cy) holding the point, as bump's grid numbers cells (from 1).
function World:toCell(x, y)
  local cs = self.cellSize
  return floor(x / cs) + 1, floor(y / cs) + 1
end

-- Returns the world position of the top-left corner of cell (cx, cy).
function World:toWorld(cx, cy)
  local cs = self.cellSize
  return (cx - 1) * cs, (cy - 1) * cs
end

-- Returns a new world; cellSize (default 64) only matters to toCell, toWorld and countCells.
function bump.newWorld(cellSize)
  cellSize = cellSize or 64
  if type(cellSize) ~= 'number' or not (cellSize > 0) then
    error('cellSize must be a positive integer, but was ' .. tostring(cellSize) .. '(' .. type(cellSize) .. ')', 2)
  end
  if cellSize == huge then
    error('cellSize must be a finite number, but was ' .. tostring(cellSize) .. '(number)', 2)
  end
  local core, uv = C.new(cellSize)
  UV[core] = uv
  local world = setmetatable({
    core, -- the C core, at [1] (the quickest key for the C methods)
    cellSize  = cellSize,
    responses = {},
  }, World_mt)
  world:addResponse('touch', responses.touch)
  world:addResponse('cross', responses.cross)
  world:addResponse('slide', responses.slide)
  world:addResponse('bounce', responses.bounce)
  return world
end

return bump
