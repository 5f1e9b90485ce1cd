-- Hostile review 5: the calls added in this session (Character, resolve, penetration, Mesh,
-- frustum/queryplanes, collide.bump) attacked from Lua. Cases that crashed run in a child process.
local util = require "support.util"

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
      assert.is_truthy(out:find(tag .. "\t[^\n]*changed through the debug library"), tag .. " in:\n" .. out)
    end
  end)

  it("a user value that is not a table raises (Lua 5.2+: debug.setuservalue takes any value)", function()
    if not debug.setuservalue then return end
    local out = child(setup .. [[
setuv(ch, 5)
try("num-move", ch.move, ch, 1, 0, 0)
try("num-grounded", ch.grounded, ch)
]])
    clean(out)
    for _, tag in ipairs({ "num-move", "num-grounded" }) do
      assert.is_truthy(out:find(tag .. "\t[^\n]*changed through the debug library"), tag .. " in:\n" .. out)
    end
  end)

  it("grounded on a world whose user value was replaced raises", function()
    if not debug.setuservalue then return end
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
