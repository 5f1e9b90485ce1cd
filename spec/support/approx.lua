-- Number comparisons for the specs: exact or within a tolerance, over several return values.
local approx = {}

local function fmt(t, n)
  local parts = {}
  for i = 1, n do
    local v = t[i]
    parts[i] = type(v) == "number" and string.format("%.17g", v) or tostring(v)
  end
  return "(" .. table.concat(parts, ", ") .. ")"
end

-- Returns true when a and b are numbers within tol of each other, absolutely or relative to the
-- larger magnitude; NaN never matches.
function approx.equal(a, b, tol)
  if type(a) ~= "number" or type(b) ~= "number" then return false end
  if a == b then return true end
  if a ~= a or b ~= b then return false end
  local d = math.abs(a - b)
  return d <= tol or d <= tol * math.max(math.abs(a), math.abs(b))
end

-- Raises a spec failure unless the values after tol match the array expected one by one
-- (tol 0 means exactly equal) and there are at least as many values as expected.
function approx.check(expected, tol, ...)
  local n = select("#", ...)
  local got = { ... }
  local ok = n >= #expected
  for i = 1, #expected do
    if not approx.equal(expected[i], got[i], tol) then ok = false end
  end
  if not ok then
    error(string.format("expected %s (tolerance %g), got %s", fmt(expected, #expected), tol, fmt(got, n)), 2)
  end
end

-- Raises a spec failure unless every value given is a finite number (not NaN, not infinite).
function approx.finite(...)
  local n = select("#", ...)
  local got = { ... }
  for i = 1, n do
    local v = got[i]
    if type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge then
      error("expected finite numbers, got " .. fmt(got, n), 2)
    end
  end
  if n == 0 then error("expected finite numbers, got no value", 2) end
end

-- Returns the error message of f(...) (nil if it did not raise).
function approx.errmsg(f, ...)
  local ok, e = pcall(f, ...)
  if ok then return nil end
  return tostring(e)
end

-- Raises a spec failure unless f(...) raises an error whose message contains text.
function approx.fails(text, f, ...)
  local e = approx.errmsg(f, ...)
  if e == nil then error("expected an error containing '" .. text .. "', but the call succeeded", 2) end
  if not e:find(text, 1, true) then
    error("expected an error containing '" .. text .. "', got '" .. e .. "'", 2)
  end
end

return approx
