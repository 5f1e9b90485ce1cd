-- bench/walk.lua (issue 16): a capsule collide.Character walking over a 100,352-triangle terrain
-- (224 x 224 cells of rolling hills, slopes up to about 30 degrees, a Mesh item in a World): the
-- time per character:move(dx, dy, dz, nil, out) of a steady walk (0.1 units per move along a
-- heading that turns slowly and turns back towards the middle near the edges, with gravity).
-- Needs collide.Capsule, Mesh items in a World and capsule characters: without them, a row says
-- what is missing. A sphere character of the capsule's radius walks the same way, for reference.
-- Usage: require("walk")(collide, lib, out); returns the capsule's us per move or nil.
return function(collide, lib, out)
  local function missing(what)
    out("| a capsule character on a 100,352-triangle terrain | not measured: ", what, " | <= 10 us per move on Lua 5.4 |")
    out()
  end
  if type(collide.Capsule) ~= "function" then return missing("collide.Capsule is not in this build") end

  local G = 224
  local v, idx = {}, {}
  local rng = lib.rng(20261127)
  for j = 0, G do
    for i = 0, G do
      local h = 2 * math.sin(i * 0.11) * math.cos(j * 0.07) + 0.8 * math.sin((i + j) * 0.23) + rng.uniform(0, 0.05)
      v[#v + 1], v[#v + 2], v[#v + 3] = i, h, j
    end
  end
  for j = 0, G - 1 do
    for i = 0, G - 1 do
      local v0 = j * (G + 1) + i + 1
      local v1, v2 = v0 + 1, v0 + G + 1
      local n = #idx
      idx[n + 1], idx[n + 2], idx[n + 3], idx[n + 4], idx[n + 5], idx[n + 6] = v0, v2 + 1, v1, v0, v2, v2 + 1
    end
  end
  local terrain = collide.Mesh(v, idx)
  local notes
  local w = collide.World()
  local ok, e = pcall(w.add, w, "terrain", terrain)
  if not ok then return missing("a Mesh item in a World failed: " .. tostring(e)) end
  -- walks a character of the given shape ("Capsule" or "Sphere"); returns us per move, the grounded
  -- fraction and the end point, or nil and why it could not be measured
  local function walk(kind)
    local w = collide.World()
    local ok, e = pcall(w.add, w, "terrain", terrain)
    if not ok then return nil, "a Mesh item in a World failed: " .. tostring(e) end
    local x, z, r = G / 2, G / 2, 0.4
    local top = 6  -- above every hill
    local shape = kind == "Capsule" and collide.Capsule(x, top + r, z, x, top + r + 1, z, r) or collide.Sphere(x, top + r, z, r)
    ok, e = pcall(w.add, w, "player", shape)
    if not ok then return nil, "a " .. kind .. " item in a World failed: " .. tostring(e) end
    local ch
    ok, ch = pcall(collide.Character, w, "player", { step = 0.3, snap = 0.3 })
    if not ok then return nil, "collide.Character on a " .. kind .. " failed: " .. tostring(ch) end
    local cols = {}
    local heading, grounded, moves = 0.3, 0, 0
    local function step()
      if x < 20 or x > G - 20 or z < 20 or z > G - 20 then
        heading = math.atan2 and math.atan2(G / 2 - z, G / 2 - x) or math.atan(G / 2 - z, G / 2 - x)
      else
        heading = heading + 0.004
      end
      local ax, _, az = ch:move(0.1 * math.cos(heading), -0.2, 0.1 * math.sin(heading), nil, cols)
      x, z = x + ax, z + az
      moves = moves + 1
      if ch:grounded() then grounded = grounded + 1 end
    end
    for _ = 1, 200 do step() end  -- fall onto the terrain, then walk
    if grounded == 0 then
      return nil, "the " .. kind:lower() .. " character never lands on the terrain (it falls through the mesh item)"
    end
    grounded, moves = 0, 0
    local c = lib.compare({
      { name = "move", fn = function(n) for _ = 1, n do step() end; return x end },
    }, { sample = 0.05 })
    return c.move.ns / 1e3, grounded / math.max(moves, 1), x, z, moves
  end

  out("| a character on a ", terrain:count(), "-triangle terrain (", lib.luaname(), ") | per move | target |")
  out("|---|---|---|")
  local us
  for _, kind in ipairs { "Capsule", "Sphere" } do
    local t, g, x, z, moves = walk(kind)
    if kind == "Capsule" then us = t end
    if t then
      out("| ", kind:lower(), " character:move(dx, -0.2, dz, nil, out), a steady walk | ", lib.fmt(t), " us | ",
          kind == "Capsule" and ("<= 10 us on Lua 5.4: " .. (t <= 10 and "met" or "MISSED")) or "(reference: sphere of the capsule's radius)",
          " |")
      notes = (notes or "") .. ("%s: %d timed moves, grounded after %.0f%% of them, ended at x = %.1f, z = %.1f. "):format(
        kind, moves, 100 * g, x, z)
    else
      out("| ", kind:lower(), " character | not measured: ", g, " | ", kind == "Capsule" and "<= 10 us on Lua 5.4" or "", " |")
    end
  end
  out()
  if notes then out("(", notes, ")"); out() end
  return us
end
