-- collide.obj: the pure-Lua .obj reader. Exact results for each statement form (v with w or a
-- colour, f with v, v/vt, v//vn, v/vt/vn, negative indices, polygons fanned), comments, CRLF and
-- line continuations, every error with its line number, load() from a file, and a round trip:
-- random meshes written as .obj text in random index styles and polygon sizes read back to the
-- same triangles, then given to collide.Mesh.
local obj = require "collide.obj"
local collide = require "collide"

local QUICK = os.getenv("COLLIDE_QUICK") ~= nil

describe("collide.obj: parse", function()
  it("vertices and a triangle", function()
    local v, i, n = obj.parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    assert.same({ 0, 0, 0, 1, 0, 0, 0, 1, 0 }, v)
    assert.same({ 1, 2, 3 }, i)
    assert.equal(3, #i)
    assert.equal(1, n)
  end)

  it("a fourth number (w) and a colour are ignored; every face-vertex form reads its vertex", function()
    local v, i, n = obj.parse(table.concat({
      "v 0 0 0 1", "v 1 0 0 0.5 0.5 0.5", "v 1 0 1 1 0 0 0", "v 0 0 1",
      "vt 0 0", "vt 1 0", "vn 0 1 0",
      "f 1/1 2/2/1 3//1 4",
    }, "\n"))
    assert.same({ 0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1 }, v)
    assert.same({ 1, 2, 3, 1, 3, 4 }, i)
    assert.equal(2, n)
  end)

  it("negative indices count back from the latest vertex so far", function()
    local _, i = obj.parse("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 5 5 5\nf -4 -1 2\n")
    assert.same({ 1, 2, 3, 1, 4, 2 }, i)
  end)

  it("polygons are fanned from their first vertex", function()
    local _, i, n = obj.parse("v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nf 1 2 3 4 5\n")
    assert.same({ 1, 2, 3, 1, 3, 4, 1, 4, 5 }, i)
    assert.equal(3, n)
  end)

  it("comments, blank lines, CRLF, continuations; other statements skipped", function()
    local text = "# header\r\nmtllib a.mtl\r\no thing\r\n\r\nv 0 0 0 # a comment\r\nv 1 \\\r\n 0 0\r\n"
      .. "g group\r\ns off\r\nusemtl m\r\nv 0 1 0\r\nl 1 2\r\np 1\r\nvn 0 0 1\r\nf 1 2 3"
    local v, i = obj.parse(text)
    assert.same({ 0, 0, 0, 1, 0, 0, 0, 1, 0 }, v)
    assert.same({ 1, 2, 3 }, i)
  end)

  it("no faces: empty indices", function()
    local v, i, n = obj.parse("v 1 2 3\n")
    assert.same({ 1, 2, 3 }, v)
    assert.same({}, i)
    assert.equal(0, n)
  end)
end)

describe("collide.obj: errors name the line", function()
  local function err(text, name)
    local ok, e = pcall(obj.parse, text, name)
    assert.is_false(ok)
    return e
  end

  it("malformed statements", function()
    assert.equal("obj:2: vertex has 2 numbers (3 expected, 4 with w, 6 or 7 with a colour)", err("v 0 0 0\nv 1 2\n"))
    assert.equal("obj:1: vertex has 5 numbers (3 expected, 4 with w, 6 or 7 with a colour)", err("v 1 2 3 4 5\n"))
    assert.equal("obj:1: vertex coordinate 'x' is not a finite number", err("v 1 x 3\n"))
    assert.equal("obj:1: vertex coordinate 'inf' is not a finite number", err("v 1 inf 3\n"))
    assert.equal("obj:1: vertex coordinate 'nan' is not a finite number", err("v nan 1 3\n"))
    assert.equal("obj:4: face has 2 vertices (at least 3 expected)", err("v 0 0 0\nv 1 0 0\n\nf 1 2\n"))
    assert.equal("obj:4: face vertex '4' is out of range (3 vertices so far)", err("v 0 0 0\nv 1 0 0\nv 1 1 1\nf 1 2 4\n"))
    -- vertices must come before the faces that use them
    assert.equal("obj:2: face vertex '2' is out of range (1 vertices so far)", err("v 0 0 0\nf 1 2 3\nv 1 0 0\nv 1 1 1\n"))
    assert.equal("obj:2: face vertex '0' is out of range (1 vertices so far)", err("v 0 0 0\nf 0 1 1\n"))
    assert.equal("obj:2: face vertex '-2' is out of range (1 vertices so far)", err("v 0 0 0\nf 1 1 -2\n"))
    assert.equal("obj:2: bad face vertex '1.5'", err("v 0 0 0\nf 1 1 1.5\n"))
    assert.equal("obj:2: bad face vertex '1/2/3/4'", err("v 0 0 0\nf 1 1 1/2/3/4\n"))
    assert.equal("obj:2: bad face vertex 'a'", err("v 0 0 0\nf 1 1 a\n"))
    assert.equal("obj:2: bad face vertex '1/'", err("v 0 0 0\nf 1 1 1/\n"))
    assert.equal("level.obj:3: face has 0 vertices (at least 3 expected)", err("v 0 0 0\r\n\r\nf\r\n", "level.obj"))
    assert.equal("obj:2: vertex has 2 numbers (3 expected, 4 with w, 6 or 7 with a colour)", err("v 0 0 0\nv 1 \\\n 2\n"))
    assert.equal("obj:1: line continuation at the end of the file", err("v 0 0 0 \\"))
    assert.equal("bad argument #1 to 'parse' (string expected, got nil)", select(2, pcall(obj.parse)))
  end)
end)

describe("collide.obj: load", function()
  it("reads a file, names it in errors, reports a missing file", function()
    local path = os.tmpname()
    local fh = assert(io.open(path, "wb"))
    fh:write("v 0 0 0\nv 4 0 0\nv 0 0 4\nf 1 2 3\n")
    fh:close()
    local v, i = obj.load(path)
    local m = collide.Mesh(v, i)
    assert.same({ 2, 0, 1, 0, 1 }, { m:raycast(collide.Ray(1, 2, 1, 0, -1, 0)) })
    fh = assert(io.open(path, "wb"))
    fh:write("v 0 0 0\nf 1 2 3\n")
    fh:close()
    local ok, e = pcall(obj.load, path)
    assert.is_false(ok)
    assert.equal(path .. ":2: face vertex '2' is out of range (1 vertices so far)", e)
    os.remove(path)
    ok, e = pcall(obj.load, path)
    assert.is_false(ok)
    assert.truthy(e:find(path, 1, true))
    assert.equal("bad argument #1 to 'load' (string expected, got number)", select(2, pcall(obj.load, 5)))
  end)
end)

describe("collide.obj: round trip", function()
  it("random meshes written in random styles read back to the same triangles", function()
    local seed = 7
    local function rnd(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n
    end
    for _ = 1, QUICK and 10 or 40 do
      local nv = 3 + rnd(30)
      local lines, coords, want = {}, {}, {}
      for k = 1, nv do
        local x, y, z = rnd(2001) / 8 - 125, rnd(2001) / 16 - 62.5, rnd(2001) * 0.37
        coords[#coords + 1], coords[#coords + 2], coords[#coords + 3] = x, y, z
        lines[#lines + 1] = ("v %.17g %.17g %.17g"):format(x, y, z)
        if rnd(4) == 0 then lines[#lines + 1] = "vt 0.5 0.5" end
        if k >= 3 and rnd(3) == 0 then  -- a face of 3 to 6 vertices among those so far
          local n, poly = 3 + rnd(4), {}
          for j = 1, n do
            local vi = 1 + rnd(k)
            local tok = rnd(2) == 0 and tostring(vi) or tostring(vi - k - 1)  -- positive or negative
            local style = rnd(4)
            if style == 1 then tok = tok .. "/1" elseif style == 2 then tok = tok .. "//1"
            elseif style == 3 then tok = tok .. "/1/1" end
            poly[j] = tok
            want[#want + 1] = vi
          end
          lines[#lines + 1] = "f " .. table.concat(poly, " ")
          -- the expected fan
          local fan, base = {}, #want - n
          for j = 2, n - 1 do
            fan[#fan + 1], fan[#fan + 2], fan[#fan + 3] = want[base + 1], want[base + j], want[base + j + 1]
          end
          for j = 1, n do want[#want] = nil end
          for j = 1, #fan do want[#want + 1] = fan[j] end
        end
      end
      local v, i, n = obj.parse(table.concat(lines, rnd(2) == 0 and "\n" or "\r\n"))
      assert.same(coords, v)
      assert.same(want, i)
      assert.equal(#want / 3, n)
      if n > 0 then assert.equal(n, collide.Mesh(v, i):count()) end
    end
  end)
end)
