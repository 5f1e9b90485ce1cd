-- Small helpers shared by the World specs.
local M = {}

-- Returns the error message of f(...) (fails the test when f does not raise).
function M.errof(f, ...)
  local ok, e = pcall(f, ...)
  assert(not ok, "expected an error")
  return e
end

-- Returns a new array with t[1..n] (the first n entries of a result table).
function M.list(t, n)
  local r = {}
  for i = 1, n do r[i] = t[i] end
  return r
end

return M
