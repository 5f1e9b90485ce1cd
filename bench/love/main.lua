-- Headless benchmark runner inside real LÖVE 11.x (bench/run.sh's mesh part runs it when `love` is
-- installed): loads collide.so built for LuaJIT by path and runs bench/frustum.lua (frustum culling
-- of 10,000 boxes: world:queryplanes against a plain LuaJIT loop over flat arrays and box:plane
-- calls), writing its markdown table to the --out file.
--   love bench/love [--root DIR] [--so PATH] [--out FILE]
-- DIR defaults to the repository (two folders up), PATH to DIR/build/luajit/collide.so.

local function main(args)
  local root = love.filesystem.getSource():gsub("/bench/love/?$", "")
  local so, outpath
  local i = 1
  while args[i] do
    local a = args[i]
    if a == "--root" then root = args[i + 1]; i = i + 2
    elseif a == "--so" then so = args[i + 1]; i = i + 2
    elseif a == "--out" then outpath = args[i + 1]; i = i + 2
    else i = i + 1 end
  end
  so = so or (root .. "/build/luajit/collide.so")
  local open, err = package.loadlib(so, "luaopen_collide")
  if not open then
    print("cannot load " .. so .. ": " .. tostring(err))
    return 1
  end
  local collide = open("collide")
  package.loaded.collide = collide
  package.path = root .. "/bench/?.lua;" .. package.path
  local lib = require "lib"
  local out = lib.writer(outpath)
  local major, minor, rev = love.getVersion()
  local name = string.format("LÖVE %d.%d.%d (%s, FFI path %s)", major, minor, rev, jit and jit.version or _VERSION,
    collide._ffi and "on" or "off")
  out("### ", name, ": frustum culling (issue 16)")
  out()
  require("frustum")(collide, lib, out, "LÖVE")
  return 0
end

function love.load(args)
  love.errorhandler = function(msg)
    print(debug.traceback("bench/love error: " .. tostring(msg), 3))
    return nil
  end
  love.event.quit(main(args or {}))
end
