-- bump.lua 3.1.7's own spec suite (../shared/peers/bump.lua/spec, unchanged) run against
-- collide.bump: `require "bump"` is mapped to collide.bump while the files load.
local dir = "../shared/peers/bump.lua/spec/"

-- Returns the file's chunk with this spec's environment (busted's describe, it, assert, spy).
local function loadspec(path)
  local env = getfenv and getfenv(1) or _ENV
  if setfenv then
    local f = assert(loadfile(path))
    return setfenv(f, env)
  end
  return assert(loadfile(path, "t", env))
end

local present = io.open(dir .. "bump_spec.lua", "r")
if not present then
  describe("bump.lua's spec suite", function()
    pending("skipped: " .. dir .. " is absent (bump.lua 3.1.7's specs sit beside the project in ../shared)")
  end)
  return
end
present:close()

describe("bump.lua's spec suite on collide.bump", function()
  -- busted insulates each spec file: these two entries go away after this file
  package.loaded.bump = nil
  package.preload.bump = function() return require "collide.bump" end
  for _, name in ipairs { "bump_spec.lua", "rect_spec.lua", "responses_spec.lua", "World_spec.lua" } do
    describe(name, loadspec(dir .. name))
  end
end)
