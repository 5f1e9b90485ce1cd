-- Plain-Lua spec runner for Luas that busted does not run on (its C dependencies exist only for
-- Debian's Luas; `make test-lua55` runs the suite on Lua 5.5 with it): runs the given spec files,
-- or every spec/*_spec.lua, through the LÖVE suite's busted stand-in (spec/love/shim.lua), prints
-- one block per failure and a summary "N passed, N failed", and exits with status 1 on any failure.
-- Run from the repository root: lua spec/run.lua [--verbose] [spec files...], with package.path
-- and package.cpath (LUA_PATH, LUA_CPATH) finding ./lua, ./spec and the collide.so to test.
local verbose, files = false, {}
for _, a in ipairs(arg) do
  if a == "--verbose" then verbose = true else files[#files + 1] = a end
end
if #files == 0 then
  local list = io.popen("ls spec/*_spec.lua")
  for line in list:lines() do files[#files + 1] = line end
  list:close()
end

local shim = dofile("spec/love/shim.lua")
local collide = require "collide"
local t0 = os.clock()
local passed, failed, pending = shim.run(files, function(status, name, msg)
  if status == "fail" then
    print("FAIL " .. name .. "\n    " .. tostring(msg):gsub("\n", "\n    "))
  elseif verbose then
    print(status .. " " .. name)
  end
end)
print(string.format("collide %s on %s: %d spec files, %.1f s", collide._VERSION, jit and jit.version or _VERSION,
  #files, os.clock() - t0))
print(string.format("%d passed, %d failed%s", passed, failed, pending > 0 and string.format(", %d pending", pending) or ""))
os.exit(failed > 0 and 1 or 0)
