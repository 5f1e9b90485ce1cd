-- Scripted game scenes written for bump.lua's API, played on any bump-like module (real bump.lua
-- or collide.bump): spec/29 compares their answers frame by frame, bench/bump.lua times them.
-- Every scene is deterministic (its own PRNG, game logic driven only by the world's answers).
-- scene.new(bump, opts) returns an object with :frame() (plays one frame) and, when opts.log is
-- a table, appends one string per world answer to opts.log[frame] (numbers in %.17g); without
-- opts.log nothing is formatted (the benchmark's case).

local scenes = {}

-- Returns a PRNG: rand() in [0, 1), rand(n) an integer in [1, n]; the same on every Lua.
local function prng(seed)
  local s = seed % 2147483646 + 1
  return function(n)
    s = (s * 48271) % 2147483647
    local u = (s - 1) / 2147483646
    if n then return math.floor(u * n) + 1 end
    return u
  end
end

-- Returns the canonical text of a value for logs (numbers in %.17g, integers marked "i" on Lua
-- 5.3+, so that number subtypes are compared too).
local mathtype = math.type
local function fmt(v)
  local t = type(v)
  if t == "number" then
    if mathtype and mathtype(v) == "integer" then return string.format("%di", v) end
    return string.format("%.17g", v)
  end
  if t == "table" then return v.name or "?" end
  return tostring(v)
end

-- Returns a logger: log(...) appends the values' text to the current frame's list (or nothing).
local function logger(opts)
  local out = opts.log
  if not out then return nil, function() end end
  local frame = 0
  local cur
  local function newframe()
    frame = frame + 1
    cur = {}
    out[frame] = cur
  end
  local function log(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = fmt((select(i, ...))) end
    cur[#cur + 1] = table.concat(parts, " ")
  end
  return log, newframe
end

-- Logs every field of a move/check answer.
local function logmove(log, what, item, x, y, cols, len)
  if not log then return end
  log(what, item, x, y, len, #cols)
  for i = 1, len do
    local c = cols[i]
    log(" col", i, c.item, c.other, c.type, c.overlaps, c.ti, c.move.x, c.move.y, c.normal.x, c.normal.y,
      c.touch.x, c.touch.y, c.itemRect.x, c.itemRect.y, c.itemRect.w, c.itemRect.h,
      c.otherRect.x, c.otherRect.y, c.otherRect.w, c.otherRect.h,
      c.slide and c.slide.x, c.slide and c.slide.y, c.bounce and c.bounce.x, c.bounce and c.bounce.y)
  end
end

-- Logs a list of items as a set (sorted names): bump's order of these is its hash order.
local function logset(log, what, items, len)
  if not log then return end
  local names = {}
  for i = 1, len do names[i] = items[i].name end
  table.sort(names)
  log(what, len, #items, table.concat(names, ","))
end

-- Logs a segment query: the set, then the items sorted by (entry along the line, name), so that
-- ties in bump's order do not matter; checks that the order given is sorted by that entry.
local function logsegment(log, bump, world, what, items, len, x1, y1, x2, y2, infos)
  if not log then return end
  local rows = {}
  local prevw = -math.huge
  local sorted = true
  for i = 1, len do
    local item = infos and items[i].item or items[i]
    local l, t, w, h = world:getRect(item)
    local w1 = bump.rect.getSegmentIntersectionIndices(l, t, w, h, x1, y1, x2, y2, -math.huge, math.huge)
    if w1 < prevw then sorted = false end
    prevw = w1
    local row = { w = w1, name = item.name, text = fmt(w1) .. " " .. item.name }
    if infos then
      local o = items[i]
      row.text = row.text .. " " .. table.concat({ fmt(o.ti1), fmt(o.ti2), fmt(o.x1), fmt(o.y1), fmt(o.x2), fmt(o.y2) }, " ")
    end
    rows[i] = row
  end
  table.sort(rows, function(a, b)
    if a.w ~= b.w then return a.w < b.w end
    return a.name < b.name
  end)
  local texts = {}
  for i = 1, len do texts[i] = rows[i].text end
  log(what, len, #items, sorted, table.concat(texts, "; "))
end

-- Returns what every scene starts with: the scene object (its world, and finish(), which logs the
-- item and cell counts after two full collections), the world, the PRNG (seeded by opts.seed or
-- seed), the logger and its frame starter, and item(kind, x,y,w,h), which adds a new item named
-- kind .. number and returns it.
local function setup(bump, opts, seed)
  local rand = prng(opts.seed or seed)
  local log, newframe = logger(opts)
  local world = bump.newWorld(opts.cellSize or 64)
  local nid = 0
  local function item(kind, x, y, w, h)
    nid = nid + 1
    local it = { name = kind .. nid, kind = kind }
    world:add(it, x, y, w, h)
    return it
  end
  local scene = { world = world }
  function scene:finish()
    newframe()
    collectgarbage()
    collectgarbage()
    if log then log("end", world:countItems(), world:countCells()) end
  end
  return scene, world, rand, log, newframe, item
end

-- Adds the four walls (thickness t) around the square [0, S] x [0, S].
local function walls(item, S, t)
  item("wall", -t, -t, S + 2 * t, t)
  item("wall", -t, S, S + 2 * t, t)
  item("wall", -t, 0, t, S)
  item("wall", S, 0, t, S)
end

-- Platformer: a tile level with solid blocks, one-way platforms and coins; players run and jump
-- (slide on blocks, one-way platforms only from above, cross coins, which respawn elsewhere).
function scenes.platformer(bump, opts)
  local scene, world, rand, log, newframe, item = setup(bump, opts, 1)
  local T = 16
  local W, H = opts.width or 60, opts.height or 30
  for cx = 0, W - 1 do item("block", cx * T, (H - 1) * T, T, T) end
  for cy = 0, H - 2 do
    item("block", 0, cy * T, T, T)
    item("block", (W - 1) * T, cy * T, T, T)
  end
  for _ = 1, math.floor(W * H / 40) do
    local cx, cy, len = rand(W - 4) + 1, rand(H - 6) + 2, rand(5)
    local kind = rand() < 0.5 and "oneway" or "block"
    for k = 0, len - 1 do
      -- no two pieces at one place (bump would order their equal collisions by its hash order)
      if cx + k < W - 1 and #world:queryRect((cx + k) * T, cy * T, T, T) == 0 then
        item(kind, (cx + k) * T, cy * T, T, kind == "oneway" and 4 or T)
      end
    end
  end
  local coins = {}
  for _ = 1, opts.coins or 20 do
    coins[#coins + 1] = item("coin", rand() * (W - 4) * T + 2 * T, rand() * (H - 4) * T + T, 6, 6)
  end
  local players = {}
  for _ = 1, opts.players or 8 do
    local p = item("player", rand() * (W - 6) * T + 2 * T, rand() * (H - 8) * T + T, 10 + rand() * 4, 14 + rand() * 6)
    p.vx, p.vy, p.dir, p.ground = 0, 0, rand() < 0.5 and -1 or 1, false
    players[#players + 1] = p
  end
  local function filter(it, other)
    local k = other.kind
    if k == "block" then return "slide" end
    if k == "oneway" then
      local _, y, _, h = world:getRect(it)
      if it.vy >= 0 and y + h <= other.oy + 1e-9 then return "slide" end
      return nil
    end
    if k == "coin" then return "cross" end
    return nil
  end
  for _, it in ipairs(world:getItems()) do
    if it.kind == "oneway" then it.oy = select(2, world:getRect(it)) end
  end
  local dt = 1 / 60
  function scene:frame()
    newframe()
    for _, p in ipairs(players) do
      if rand() < 0.02 then p.dir = -p.dir end
      p.vx = p.dir * (60 + rand() * 40)
      if p.ground and rand() < 0.05 then p.vy = -(250 + rand() * 100) end
      p.vy = math.min(p.vy + 900 * dt, 600)
      local x, y = world:getRect(p)
      local ax, ay, cols, len = world:move(p, x + p.vx * dt, y + p.vy * dt, filter)
      logmove(log, "move", p, ax, ay, cols, len)
      p.ground = false
      for i = 1, len do
        local c = cols[i]
        if c.type == "cross" and c.other.kind == "coin" and world:hasItem(c.other) then
          world:remove(c.other)
          world:add(c.other, rand() * (W - 4) * T + 2 * T, rand() * (H - 4) * T + T, 6, 6)
        elseif c.normal.y < 0 then
          p.vy, p.ground = 0, true
        elseif c.normal.y > 0 then
          p.vy = 0
        elseif c.normal.x ~= 0 then
          p.dir = c.normal.x
        end
      end
      if ay > H * T then world:update(p, 3 * T, T) end
    end
    local items, len = world:queryRect(rand() * W * T, rand() * H * T, 40 + rand() * 80, 40 + rand() * 80)
    logset(log, "queryRect", items, len)
  end
  return scene
end

-- Top-down crowd: agents walk a walled room with blocks (slide), bouncers (bounce), pads (touch,
-- or a custom "stick") and each other (slide, or a custom "skid" built on bump.responses.slide);
-- some moves are checked and projected before moving.
function scenes.crowd(bump, opts)
  local scene, world, rand, log, newframe, item = setup(bump, opts, 2)
  local S = opts.size or 800
  walls(item, S, 20)
  for _ = 1, opts.blocks or 30 do
    local r = rand()
    local kind = r < 0.6 and "wall" or r < 0.85 and "bouncer" or "pad"
    item(kind, rand() * (S - 60), rand() * (S - 60), 10 + rand() * 50, 10 + rand() * 50)
  end
  local agents = {}
  for _ = 1, opts.agents or 40 do
    local x, y = rand() * (S - 20), rand() * (S - 20)
    if #world:queryRect(x, y, 10, 10) == 0 then
      local a = item("agent", x, y, 8 + rand() * 4, 8 + rand() * 4)
      local ang = rand() * 2 * math.pi
      a.vx, a.vy = math.cos(ang) * 80, math.sin(ang) * 80
      agents[#agents + 1] = a
    end
  end
  -- two custom responses: "stick" stops at the touch point (as touch, written by the game),
  -- "skid" delegates to bump's slide and halves what is left of the move
  world:addResponse("stick", function(w, col, x, y, ww, hh, goalX, goalY, filt)
    return col.touch.x, col.touch.y, {}, 0
  end)
  world:addResponse("skid", function(w, col, x, y, ww, hh, goalX, goalY, filt)
    local gx, gy = bump.responses.slide(w, col, x, y, ww, hh, goalX, goalY, filt)
    gx = col.touch.x + (gx - col.touch.x) / 2
    gy = col.touch.y + (gy - col.touch.y) / 2
    local cols, len = w:project(col.item, col.touch.x, col.touch.y, ww, hh, gx, gy, filt)
    return gx, gy, cols, len
  end)
  local function filter(it, other)
    local k = other.kind
    if k == "bouncer" then return "bounce" end
    if k == "pad" then return other.sticky and "stick" or "touch" end
    if k == "agent" and other.skid then return "skid" end
    return "slide"
  end
  -- the same flags on both libraries (getItems' order is bump's hash order)
  local all = world:getItems()
  table.sort(all, function(a, b) return a.name < b.name end)
  for _, it in ipairs(all) do
    it.sticky = rand() < 0.5
    it.skid = rand() < 0.3
  end
  local dt = 1 / 60
  local frameno = 0
  function scene:frame()
    newframe()
    frameno = frameno + 1
    for i, a in ipairs(agents) do
      if rand() < 0.01 then
        local ang = rand() * 2 * math.pi
        a.vx, a.vy = math.cos(ang) * 80, math.sin(ang) * 80
      end
      local x, y = world:getRect(a)
      local gx, gy = x + a.vx * dt, y + a.vy * dt
      if (i + frameno) % 17 == 0 then
        local cx, cy, ccols, clen = world:check(a, gx, gy, filter)
        logmove(log, "check", a, cx, cy, ccols, clen)
        local pcols, plen = world:project(a, x, y, select(3, world:getRect(a)), select(4, world:getRect(a)), gx, gy)
        logmove(log, "project", a, 0, 0, pcols, plen)
      end
      local ax, ay, cols, len = world:move(a, gx, gy, filter)
      logmove(log, "move", a, ax, ay, cols, len)
      for k = 1, len do
        local c = cols[k]
        if c.type == "bounce" then
          if c.normal.x ~= 0 then a.vx = -a.vx end
          if c.normal.y ~= 0 then a.vy = -a.vy end
        elseif c.type == "touch" or c.type == "stick" then
          a.vx, a.vy = -a.vx, -a.vy
        end
      end
    end
    local px, py = rand() * S, rand() * S
    local items, len = world:queryPoint(px, py)
    logset(log, "queryPoint", items, len)
  end
  return scene
end

-- Bullets: shooters fire fast bullets that cross enemies and stop (touch) at walls, where they
-- are removed; enemies drift (update); lasers sweep the map with segment queries.
function scenes.bullets(bump, opts)
  local scene, world, rand, log, newframe, item = setup(bump, opts, 3)
  local S = opts.size or 1000
  walls(item, S, 50)
  for _ = 1, opts.walls or 20 do item("wall", rand() * S, rand() * S, 5 + rand() * 80, 5 + rand() * 80) end
  local enemies = {}
  for _ = 1, opts.enemies or 30 do
    local e = item("enemy", rand() * (S - 30), rand() * (S - 30), 12 + rand() * 10, 12 + rand() * 10)
    e.vx, e.vy = rand() * 40 - 20, rand() * 40 - 20
    enemies[#enemies + 1] = e
  end
  local bullets = {}
  local function filter(it, other)
    local k = other.kind
    if k == "enemy" then return "cross" end
    if k == "wall" then return "touch" end
    return nil
  end
  local function notbullet(it) return it.kind ~= "bullet" end
  local dt = 1 / 60
  function scene:frame()
    newframe()
    for _, e in ipairs(enemies) do
      local x, y = world:getRect(e)
      x = math.max(0, math.min(S - 30, x + e.vx * dt))
      y = math.max(0, math.min(S - 30, y + e.vy * dt))
      world:update(e, x, y)
    end
    for _ = 1, opts.spawn or 3 do
      local x, y = rand() * (S - 10), rand() * (S - 10)
      if #world:queryRect(x, y, 3, 3) == 0 then
        local b = item("bullet", x, y, 3, 3)
        local ang = rand() * 2 * math.pi
        local sp = 600 + rand() * 900
        b.vx, b.vy = math.cos(ang) * sp, math.sin(ang) * sp
        bullets[b] = true
      end
    end
    local list = {}
    for b in pairs(bullets) do list[#list + 1] = b end
    table.sort(list, function(a, b) return a.name < b.name end)
    for _, b in ipairs(list) do
      local x, y = world:getRect(b)
      local ax, ay, cols, len = world:move(b, x + b.vx * dt, y + b.vy * dt, filter)
      logmove(log, "move", b, ax, ay, cols, len)
      for k = 1, len do
        if cols[k].type == "touch" then
          world:remove(b)
          bullets[b] = nil
          break
        end
      end
    end
    for _ = 1, opts.lasers or 2 do
      local x1, y1, x2, y2 = rand() * S, rand() * S, rand() * S, rand() * S
      local items, len = world:querySegment(x1, y1, x2, y2, notbullet)
      logsegment(log, bump, world, "querySegment", items, len, x1, y1, x2, y2, false)
      local infos, ilen = world:querySegmentWithCoords(x1, y1, x2, y2)
      logsegment(log, bump, world, "querySegmentWithCoords", infos, ilen, x1, y1, x2, y2, true)
    end
  end
  return scene
end

-- Big query map: a large tile map, many rectangle, point and segment queries per frame
-- (some on tile edges and corners), and items added and removed.
function scenes.querymap(bump, opts)
  local scene, world, rand, log, newframe, item = setup(bump, opts, 4)
  local T = 32
  local N = opts.tiles or 60
  local tiles = {}
  for cy = 0, N - 1 do
    for cx = 0, N - 1 do
      if rand() < 0.3 then tiles[#tiles + 1] = item("tile", cx * T, cy * T, T, T) end
    end
  end
  function scene:frame()
    newframe()
    for _ = 1, opts.queries or 20 do
      local snap = rand() < 0.3
      local x, y = rand() * N * T, rand() * N * T
      if snap then x, y = math.floor(x / T) * T, math.floor(y / T) * T end
      local w, h = rand() * 200 + 1, rand() * 200 + 1
      if snap then w, h = T * rand(6), T * rand(6) end
      local items, len = world:queryRect(x, y, w, h)
      logset(log, "queryRect", items, len)
      items, len = world:queryPoint(x + (snap and T / 2 or 0), y)
      logset(log, "queryPoint", items, len)
      local x2, y2 = rand() * N * T, rand() * N * T
      if snap then x2, y2 = math.floor(x2 / T) * T, math.floor(y2 / T) * T end
      items, len = world:querySegment(x, y, x2, y2)
      logsegment(log, bump, world, "querySegment", items, len, x, y, x2, y2, false)
    end
    local t = tiles[rand(#tiles)]
    if world:hasItem(t) then
      world:remove(t)
    else
      local cx, cy = rand(N) - 1, rand(N) - 1
      if #world:queryRect(cx * T, cy * T, T, T) == 0 then world:add(t, cx * T, cy * T, T, T) end
    end
  end
  return scene
end

scenes.prng = prng
scenes.fmt = fmt

scenes.names = { "platformer", "crowd", "bullets", "querymap" }

return scenes
