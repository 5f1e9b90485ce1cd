-- Hostile review 5: the calls added in this session (Character, resolve, penetration, Mesh,
-- frustum/queryplanes, collide.bump) attacked from Lua. Cases that crashed run in a child process.
local util = require "support.util"

-- debug.setuservalue takes a value that is no table on Lua 5.3 and later (5.2 wants a table).
local UV_ANY = debug.setuservalue ~= nil and _VERSION >= "Lua 5.3"

-- Runs src in a child Lua and returns its output (ending in "exit <status>").
local function child(src)
  return util.runlua("local collide = require 'collide'\n" ..
    "local getuv = debug.getuservalue or debug.getfenv\n" ..
    "local setuv = debug.setuservalue or debug.setfenv\n" .. src .. "\nprint('END')\n")
end

-- Asserts the child ran to its end and printed every expected line.
local function clean(out, ...)
  assert.is_truthy(out:find("\nEND\nexit 0\n", 1, true) or out:find("^END\nexit 0\n"), "the child crashed or failed:\n" .. out:sub(-2000))
  for _, want in ipairs({ ... }) do
    assert.is_truthy(out:find(want, 1, true), "missing '" .. want .. "' in:\n" .. out:sub(-2000))
  end
end

describe("review 5: Character user value tampering", function()
  local setup = [[
local w = collide.World()
w:add("p", collide.AABB(0, 1.5, 0, 1, 2.5, 1))
w:add("g", collide.AABB(-5, 0, -5, 10, 1, 10))
local ch = collide.Character(w, "p")
local function try(tag, f, ...) print(tag, select(2, pcall(f, ...))) end
]]

  it("a non-world value in the character's table raises instead of being read as a World", function()
    local out = child(setup .. [[
getuv(ch)[1] = collide.Mesh({0,0,0, 1,0,0, 0,0,1}, {1,2,3})
try("mesh-move", ch.move, ch, 1, 0, 0)
try("mesh-grounded", ch.grounded, ch)
getuv(ch)[1] = collide.Character(w, "g")
try("char-move", ch.move, ch, 1, 0, 0)
getuv(ch)[1] = io.stdout
try("file-grounded", ch.grounded, ch)
]])
    clean(out)
    for _, tag in ipairs({ "mesh-move", "mesh-grounded", "char-move", "file-grounded" }) do
      assert.is_truthy(out:find(tag:gsub("%-", "%%-") .. "\t[^\n]*changed through the debug library"), tag .. " in:\n" .. out)
    end
  end)

  it("a user value that is not a table raises (Lua 5.3+: debug.setuservalue takes any value)", function()
    if not UV_ANY then return end
    local out = child(setup .. [[
setuv(ch, 5)
try("num-move", ch.move, ch, 1, 0, 0)
try("num-grounded", ch.grounded, ch)
]])
    clean(out)
    for _, tag in ipairs({ "num-move", "num-grounded" }) do
      assert.is_truthy(out:find(tag:gsub("%-", "%%-") .. "\t[^\n]*changed through the debug library"), tag .. " in:\n" .. out)
    end
  end)

  it("grounded on a world whose user value was replaced raises", function()
    if not UV_ANY then return end
    local out = child(setup .. [[
ch:move(0, -1, 0)
print("ground", ch:grounded())
setuv(w, 7)
try("wuv-grounded", ch.grounded, ch)
]])
    clean(out, "ground\ttrue\tg", "wuv-grounded\t")
    assert.is_truthy(out:find("wuv%-grounded\t[^\n]*debug library"), out)
  end)
end)

describe("review 5: collide.bump core tables tampered through debug", function()
  local setup = [[
local bump = require "collide.bump"
local w = bump.newWorld(64)
w:add("a", 0, 0, 10, 10)
w:add("b", 20, 0, 10, 10)
local function try(tag, f, ...) print(tag, select(2, pcall(f, ...))) end
]]

  it("a slot number out of range, free or of another item raises (read and freed out of bounds before)", function()
    local out = child(setup .. [[
getuv(w[1])[0].a = 100000
try("big-getRect", w.getRect, w, "a")
try("big-move", w.move, w, "a", 30, 0)
getuv(w[1])[0].a = 2
try("other-remove", w.remove, w, "a")
try("b-rect", w.getRect, w, "b")
w:remove("b")
getuv(w[1])[0].a = 2
try("free-update", w.update, w, "a", 1, 1)
getuv(w[1])[0].a = 1.5
try("frac-has", w.hasItem, w, "a")
]])
    clean(out, "big-getRect\tbump world's tables were changed through the debug library",
      "big-move\tbump world's tables were changed through the debug library",
      "other-remove\tbump world's tables were changed through the debug library",
      "b-rect\t20", "free-update\tbump world's tables were changed through the debug library",
      "frac-has\tbump world's tables were changed through the debug library")
  end)

  it("an item map, sentinel holder or spare list that is no table raises", function()
    local out = child(setup .. [[
local U = getuv(w[1])
local m = U[0]
U[0] = 5
try("map-add", w.add, w, "c", 1, 1, 1, 1)
U[0] = m
local h = U[-1]
U[-1] = 5
try("holder-remove", w.remove, w, "b")
try("holder-countCells", w.countCells, w)
U[-1] = h
U[-2] = 5
try("spare-move", w.move, w, "a", 30, 0)
]])
    clean(out, "map-add\tbump world's tables were changed through the debug library",
      "holder-remove\tbump world's tables were changed through the debug library",
      "holder-countCells\tbump world's tables were changed through the debug library",
      "spare-move\tbump world's tables were changed through the debug library")
  end)

  it("a core whose user value is no table raises (Lua 5.3+)", function()
    if not UV_ANY then return end
    local out = child(setup .. [[
setuv(w[1], 5)
try("uv-add", w.add, w, "c", 1, 1, 1, 1)
try("uv-move", w.move, w, "a", 30, 0)
]])
    clean(out, "uv-add\tbump world's tables were changed through the debug library",
      "uv-move\tbump world's tables were changed through the debug library")
  end)
end)

describe("review 5: collide.bump countCells at huge coordinates", function()
  it("ends when cell numbers pass 2^53 (it looped forever: cell + 1 == cell)", function()
    local name = os.tmpname()
    local f = assert(io.open(name, "w"))
    f:write(("package.path = %q\npackage.cpath = %q\n"):format(package.path, package.cpath), [[
local bump = require "collide.bump"
local w = bump.newWorld(64)
w:add("a", 1e18, 0, 1, 1)
w:add("b", -1e300, -1e300, 1, 1)
w:add("c", 0, 0, 1, 1)
print("cells", w:countCells())
w:remove("a")
print("cells", w:countCells())
print("END")
]])
    f:close()
    local p = assert(io.popen("timeout 20 " .. util.luacommand() .. " " .. name .. " 2>&1; echo \"exit $?\""))
    local out = p:read("*a")
    p:close()
    os.remove(name)
    assert.is_truthy(out:find("\nEND\nexit 0\n", 1, true), "the child hung or failed:\n" .. out:sub(-2000))
    assert.is_truthy(out:find("cells\t%d+\ncells\t%d+\n"), out)
  end)
end)
