-- Headless spec runner inside real LÖVE 11.4: loads collide.so built for LuaJIT, runs
-- spec/love/checks.lua and every spec/*_spec.lua through a small busted stand-in (shim.lua),
-- prints one line per failure and a summary "N passed, N failed", and exits with status 1 on
-- any failure (0 otherwise). Run by spec/love/run.sh:
--   love spec/love [--root DIR] [--so PATH] [--verbose] [spec files...]
-- DIR defaults to the repository (two folders up), PATH to DIR/build/luajit/collide.so.

local function main(args)
  local root = love.filesystem.getSource():gsub("/spec/love/?$", "")
  local so, verbose, files = nil, false, {}
  local i = 1
  while args[i] do
    local a = args[i]
    if a == "--root" then root = args[i + 1]; i = i + 2
    elseif a == "--so" then so = args[i + 1]; i = i + 2
    elseif a == "--verbose" then verbose = true; i = i + 1
    else files[#files + 1] = a; i = i + 1 end
  end
  so = so or (root .. "/build/luajit/collide.so")

  -- The C module: loaded by path, so neither LÖVE's own loader nor a stale copy can interfere.
  local open, err = package.loadlib(so, "luaopen_collide")
  if not open then
    print("cannot load " .. so .. ": " .. tostring(err))
    print("0 passed, 1 failed")
    return 1
  end
  package.loaded.collide = open("collide")
  -- the same module for specs that start a child luajit (util.runlua passes package.cpath on)
  package.cpath = (so:match("^(.*/)") or "./") .. "?.so;" .. package.cpath
  package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. root .. "/spec/?.lua;" .. package.path
  local shim = dofile(love.filesystem.getSource() .. "/shim.lua")

  if #files == 0 then
    files[1] = love.filesystem.getSource() .. "/checks.lua"
    local list = io.popen('ls "' .. root .. '/spec/"*_spec.lua 2>/dev/null')
    for line in list:lines() do files[#files + 1] = line end
    list:close()
  end

  local passed, failed, pending = shim.run(files, function(status, name, msg)
    if status == "fail" then
      print("FAIL " .. name .. "\n    " .. tostring(msg):gsub("\n", "\n    "))
    elseif verbose then
      print(status .. " " .. name)
    end
  end)
  local major, minor, rev = love.getVersion()
  print(string.format("collide in LÖVE %d.%d.%d (%s): %d spec files", major, minor, rev,
    jit and jit.version or _VERSION, #files))
  print(string.format("%d passed, %d failed%s", passed, failed,
    pending > 0 and string.format(", %d pending", pending) or ""))
  return failed > 0 and 1 or 0
end

function love.load(args)
  -- An error outside a test ends the run with status 1 instead of LÖVE's error screen.
  love.errorhandler = function(msg)
    print(debug.traceback("spec/love error: " .. tostring(msg), 3))
    return nil
  end
  love.event.quit(main(args or {}))
end
