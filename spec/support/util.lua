-- Small helpers shared by the specs.
local M = {}

-- Returns the error message of f(...) (fails the test when f does not raise).
function M.errof(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return e
end

-- Runs f(...) (trailing nils kept) and returns its error message, or nil if it did not fail.
function M.errmsg(f, ...)
  local args = { n = select("#", ...), ... }
  local ok, msg = pcall(function() return f((table.unpack or unpack)(args, 1, args.n)) end)
  if ok then return nil end
  return msg
end

-- Returns a new array with t[1..n] (the first n entries of a result table).
function M.list(t, n)
  local r = {}
  for i = 1, n do r[i] = t[i] end
  return r
end

-- An object whose finalizer is f (tables get __gc from 5.2 on; newproxy on 5.1 and LuaJIT).
function M.finalizable(f)
  if newproxy then
    local u = newproxy(true)
    getmetatable(u).__gc = f
    return u
  end
  return setmetatable({}, { __gc = f })
end

-- The command that starts this Lua: $COLLIDE_LUA, else luajit or lua5.N by the running version.
function M.luacommand()
  return os.getenv("COLLIDE_LUA") or (jit and "luajit") or ("lua" .. _VERSION:match("%d+%.%d+"))
end

-- Runs the Lua source src in a child process of the same Lua, with this process's package.path
-- and package.cpath (so it loads the same collide); returns everything it printed (stdout and
-- stderr) and its exit status line "exit N" appended by the shell.
function M.runlua(src)
  local name = os.tmpname()
  local f = assert(io.open(name, "w"))
  f:write(("package.path = %q\npackage.cpath = %q\n"):format(package.path, package.cpath), src)
  f:close()
  local p = assert(io.popen(M.luacommand() .. " " .. name .. " 2>&1; echo \"exit $?\""))
  local out = p:read("*a")
  p:close()
  os.remove(name)
  return out
end

return M
