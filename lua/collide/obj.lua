-- collide.obj: a pure-Lua reader of Wavefront .obj geometry, returning the flat vertex and index
-- arrays collide.Mesh takes.
--
--   local obj = require "collide.obj"
--   local vertices, indices = obj.load("level.obj")        -- or obj.parse(text [, name])
--   local mesh = collide.Mesh(vertices, indices)
--
-- Reads `v x y z [w]` (a fourth number, or three colour numbers after x y z, are ignored) and
-- `f` lines: each face vertex is `v`, `v/vt`, `v//vn` or `v/vt/vn` (only v is used), positive
-- (1-based) or negative (-1 is the latest vertex so far), always a vertex defined above; faces of more than three vertices are
-- fanned into triangles (1,2,3), (1,3,4), ... Comments (#), blank lines, CRLF line ends and
-- backslash line continuations are handled; every other statement (vt, vn, o, g, s, usemtl,
-- mtllib, l, p, ...) is skipped. Malformed lines raise "name:line: reason" (name defaults to
-- "obj"). Returns vertices, indices, and the number of triangles.
local M = {}

local tonumber = tonumber

-- Raises name:line: msg at the caller of parse or load.
local function fail(name, line, msg)
  error(("%s:%d: %s"):format(name, line, msg), 0)
end

-- The vertex number of a face token v, v/vt, v//vn or v/vt/vn (each a signed integer), or nil.
local function facevertex(tok)
  return tok:match("^([+-]?%d+)$") or tok:match("^([+-]?%d+)/[+-]?%d+$")
      or tok:match("^([+-]?%d+)/[+-]?%d*/[+-]?%d+$")
end

-- parse(text [, name]) -> vertices, indices, ntriangles.
function M.parse(text, name)
  if type(text) ~= "string" then
    error(("bad argument #1 to 'parse' (string expected, got %s)"):format(type(text)), 2)
  end
  name = name or "obj"
  local v, idx, nv, ni, count, ntri = {}, {}, 0, 0, 0, 0  -- count: vertices so far
  local lineno, pending, pendingline = 0, nil, nil
  local face = {}
  for raw in (text:gsub("\r\n?", "\n") .. "\n"):gmatch("([^\n]*)\n") do
    lineno = lineno + 1
    local line = raw  -- a copy: Lua 5.5's loop variables are constant
    if pending then line = pending .. " " .. line end
    local start = pendingline or lineno
    if line:sub(-1) == "\\" then  -- continued on the next line
      pending, pendingline = line:sub(1, -2), start
    else
      pending, pendingline = nil, nil
      line = line:gsub("#.*", "")
      local op, rest = line:match("^%s*(%S+)%s*(.-)%s*$")
      if op == "v" then
        local n, c = 0, {}
        for tok in rest:gmatch("%S+") do
          local x = tonumber(tok)
          if x == nil or x ~= x or x == math.huge or x == -math.huge then
            fail(name, start, ("vertex coordinate '%s' is not a finite number"):format(tok))
          end
          n = n + 1
          c[n] = x
        end
        if n ~= 3 and n ~= 4 and n ~= 6 and n ~= 7 then
          fail(name, start, ("vertex has %d numbers (3 expected, 4 with w, 6 or 7 with a colour)"):format(n))
        end
        v[nv + 1], v[nv + 2], v[nv + 3] = c[1], c[2], c[3]
        nv, count = nv + 3, count + 1
      elseif op == "f" then
        local n = 0
        for tok in rest:gmatch("%S+") do
          local vs = facevertex(tok)
          if vs == nil then fail(name, start, ("bad face vertex '%s'"):format(tok)) end
          local k = tonumber(vs)
          if k < 0 then k = count + 1 + k end
          if k < 1 or k > count then
            fail(name, start, ("face vertex '%s' is out of range (%d vertices so far)"):format(tok, count))
          end
          n = n + 1
          face[n] = k
        end
        if n < 3 then fail(name, start, ("face has %d vertices (at least 3 expected)"):format(n)) end
        for i = 2, n - 1 do
          idx[ni + 1], idx[ni + 2], idx[ni + 3] = face[1], face[i], face[i + 1]
          ni, ntri = ni + 3, ntri + 1
        end
      end
    end
  end
  if pending then fail(name, pendingline, "line continuation at the end of the file") end
  return v, idx, ntri
end

-- load(filename) -> vertices, indices, ntriangles: parse of the file's text, named by the file.
function M.load(filename)
  if type(filename) ~= "string" then
    error(("bad argument #1 to 'load' (string expected, got %s)"):format(type(filename)), 2)
  end
  local fh, err = io.open(filename, "rb")
  if not fh then error(err, 2) end
  local text = fh:read("*a")
  fh:close()
  return M.parse(text, filename)
end

return M
