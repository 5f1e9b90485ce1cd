-- Editor support: library/collide.lua (Lua Language Server ---@meta file) must annotate exactly
-- the public API of the real module: every function of collide.* and every method reached through
-- getmetatable(instance).__index, with a description and a ---@param per parameter; and nothing
-- that the module does not have.
local collide = require "collide"

-- The repository root: the folder above this spec file.
local here = debug.getinfo(1, "S").source:match("^@(.*)$") or ""
local root = here:match("^(.*)[/\\]spec[/\\][^/\\]*$") or "."
local LIBRARY = root .. "/library/collide.lua"

-- Methods that return nothing, so their annotation has no ---@return.
local NO_RETURN = { ["World:remove"] = true, ["World:update"] = true, ["World:destroy"] = true }

-- Returns the parsed definition file: classes (local name -> class name) and functions
-- (key "collide.name" or "Local:name" -> { params = {...}, block = {...lines}, line = n }).
local function parse(path)
  local fh = assert(io.open(path, "r"), "cannot open " .. path)
  local text = fh:read("*a")
  fh:close()
  local lines = {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  local classes, funcs, block, pendingclass = {}, {}, {}, nil
  for n, l in ipairs(lines) do
    if l:match("^%-%-%-") then
      block[#block + 1] = l
      pendingclass = l:match("^%-%-%-@class%s+([%w%.]+)") or pendingclass
    else
      local loc = l:match("^local%s+([%w_]+)%s*=%s*{}")
      if loc and pendingclass then classes[loc] = pendingclass end
      local owner, sep, name, params = l:match("^function%s+([%w_]+)([%.:])([%w_]+)%s*%((.-)%)")
      if owner then
        local p = {}
        for word in params:gmatch("[%w_]+") do p[#p + 1] = word end
        funcs[owner .. sep .. name] = { params = p, block = block, line = n, owner = owner, name = name, sep = sep }
      end
      block, pendingclass = {}, nil
    end
  end
  return { text = text, classes = classes, funcs = funcs }
end

local lib = parse(LIBRARY)

local instances = {
  AABB = function() return collide.AABB(0, 0, 0, 1, 1, 1) end,
  Ray = function() return collide.Ray(0, 0, 0, 1, 0, 0) end,
  OBB = function() return collide.OBB(0, 0, 0, 1, 1, 1) end,
  Sphere = function() return collide.Sphere(0, 0, 0, 1) end,
  Capsule = function() return collide.Capsule(0, 0, 0, 0, 1, 0, 0.5) end,
  World = function() return collide.World() end,
  Polygon = function() return collide.Polygon { 0, 0, 1, 0, 0, 1 } end,
  Mesh = function() return collide.Mesh { 0, 0, 0, 1, 0, 0, 0, 1, 0 } end,
  Character = function()
    local w = collide.World()
    w:add(1, collide.AABB(0, 0, 0, 1, 1, 1))
    return collide.Character(w, 1)
  end,
}
local TYPES = { "AABB", "Ray", "OBB", "Sphere", "Capsule", "World", "Polygon", "Mesh", "Character" }

-- Returns the sorted public method names of the type's instances (functions in __index).
local function methods(typename)
  local v = instances[typename]()
  local index = getmetatable(v).__index
  assert(type(index) == "table", typename .. ": __index is not a table")
  local names = {}
  for k, f in pairs(index) do
    if type(f) == "function" and type(k) == "string" and k:sub(1, 2) ~= "__" then names[#names + 1] = k end
  end
  table.sort(names)
  return names
end

-- Returns the sorted keys of the module's function fields.
local function modulefunctions()
  local names = {}
  for k, v in pairs(collide) do
    if type(v) == "function" then names[#names + 1] = k end
  end
  table.sort(names)
  return names
end

-- Returns the sorted annotated names of the parsed file (default library/collide.lua) with the
-- given owner and separator.
local function annotated(owner, sep, parsed)
  local names = {}
  for _, f in pairs((parsed or lib).funcs) do
    if f.owner == owner and f.sep == sep then names[#names + 1] = f.name end
  end
  table.sort(names)
  return names
end

-- Returns the elements of a that are not in b, joined by ", " ("" when none).
local function missing(a, b)
  local set, out = {}, {}
  for _, v in ipairs(b) do set[v] = true end
  for _, v in ipairs(a) do if not set[v] then out[#out + 1] = v end end
  return table.concat(out, ", ")
end

-- Returns "" when every function of the parsed file has a description, a ---@param per parameter
-- (in order) and a ---@return (unless listed in noreturn), else the problems joined by "; ".
local function documented(parsed, noreturn)
  local problems = {}
  for key, f in pairs(parsed.funcs) do
    local described, params, returns = false, {}, false
    for _, l in ipairs(f.block) do
      if not l:match("^%-%-%-@") and l:match("^%-%-%-%s*%S") then described = true end
      local p = l:match("^%-%-%-@param%s+([%w_]+)")
      if p then params[#params + 1] = p end
      if l:match("^%-%-%-@return%s") then returns = true end
    end
    local want = table.concat(f.params, ",")
    if not described then problems[#problems + 1] = key .. ": no description" end
    if table.concat(params, ",") ~= want then
      problems[#problems + 1] = key .. ": ---@param " .. table.concat(params, ",") .. " but signature " .. want
    end
    if not returns and not noreturn[key] then problems[#problems + 1] = key .. ": no ---@return" end
  end
  table.sort(problems)
  return table.concat(problems, "; ")
end

describe("library/collide.lua (Lua Language Server definitions)", function()
  it("is a ---@meta file that loads as Lua and declares a class for the module and every type", function()
    assert.is_truthy(lib.text:match("^%-%-%-@meta collide"))
    assert.is_function(loadfile(LIBRARY))
    assert.equal("collide", lib.classes.collide)
    for _, t in ipairs(TYPES) do
      assert.equal("collide." .. t, lib.classes[t])
    end
  end)

  it("annotates every function of the module table", function()
    assert.equal("", missing(modulefunctions(), annotated("collide", ".")))
  end)

  it("annotates no module function that the module lacks", function()
    assert.equal("", missing(annotated("collide", "."), modulefunctions()))
  end)

  for _, t in ipairs(TYPES) do
    it("annotates every method of " .. t .. " (getmetatable(instance).__index) and no other", function()
      local real = methods(t)
      assert.is_true(#real > 0)
      local doc = annotated(t, ":")
      assert.equal("", missing(real, doc))
      assert.equal("", missing(doc, real))
    end)
  end

  it("gives every annotated function a description, a ---@param per parameter and its returns", function()
    assert.equal("", documented(lib, NO_RETURN))
  end)
end)

-- library/collide_bump.lua annotates collide.bump the same way: every function of the module
-- table and of bump.rect and bump.responses (documented as fields of the module's class), every
-- world method (getmetatable(world).__index), and nothing that the module lacks.
describe("library/collide_bump.lua (Lua Language Server definitions of collide.bump)", function()
  local bump = require "collide.bump"
  local blib = parse(root .. "/library/collide_bump.lua")
  local BUMP_NO_RETURN = { ["World:remove"] = true, ["World:update"] = true, ["World:addResponse"] = true }

  -- Returns the sorted names of the table's function fields (metamethod-like "__" names left out).
  local function functions(t)
    local names = {}
    for k, v in pairs(t) do
      if type(v) == "function" and type(k) == "string" and k:sub(1, 2) ~= "__" then names[#names + 1] = k end
    end
    table.sort(names)
    return names
  end

  -- Returns the sorted names listed in the ---@field line of the module's class for the field name:
  -- "name table a, b, c" lists a, b, c; "name {a: T, b: T}" lists a, b.
  local function fieldnames(name)
    local class = blib.text:match("\n%-%-%-@class collide%.bump\n(.-)\nlocal ")
    local line = class and class:match("%-%-%-@field " .. name .. " ([^\n]*)")
    assert.is_string(line, "no ---@field " .. name)
    local names = {}
    local list = line:match("^table [%w%.]+: (.*)$") or line:match("^table bump%.%w+: (.*)$")
    if list then
      for w in list:gmatch("[%w_]+") do names[#names + 1] = w end
    else
      for w in line:gmatch("([%w_]+):") do names[#names + 1] = w end
    end
    table.sort(names)
    return names
  end

  it("is a ---@meta file that loads as Lua and declares the module's and the world's classes", function()
    assert.is_truthy(blib.text:match("^%-%-%-@meta collide%.bump"))
    assert.is_function(loadfile(root .. "/library/collide_bump.lua"))
    assert.equal("collide.bump", blib.classes.bump)
    assert.equal("collide.bump.World", blib.classes.World)
  end)

  it("annotates every function of the module table and no other", function()
    assert.equal("", missing(functions(bump), annotated("bump", ".", blib)))
    assert.equal("", missing(annotated("bump", ".", blib), functions(bump)))
  end)

  it("annotates every world method (getmetatable(world).__index) and no other", function()
    local real = functions(getmetatable(bump.newWorld()).__index)
    assert.is_true(#real > 15)
    local doc = annotated("World", ":", blib)
    assert.equal("", missing(real, doc))
    assert.equal("", missing(doc, real))
  end)

  it("lists every function of bump.rect and bump.responses in their fields, and no other", function()
    for _, name in ipairs({ "rect", "responses" }) do
      local real, doc = functions(bump[name]), fieldnames(name)
      assert.is_true(#real >= 4)
      assert.equal("", missing(real, doc))
      assert.equal("", missing(doc, real))
    end
  end)

  it("gives every annotated function a description, a ---@param per parameter and its returns", function()
    assert.equal("", documented(blib, BUMP_NO_RETURN))
  end)
end)

-- library/collide_love.lua annotates collide.love the same way: every function of the module and
-- every camera method (collide.love's Camera table), and nothing that the module lacks.
describe("library/collide_love.lua (Lua Language Server definitions of collide.love)", function()
  local cl = require "collide.love"
  local llib = parse(root .. "/library/collide_love.lua")
  local LOVE_NO_RETURN = { ["M.box"] = true, ["M.sphere"] = true, ["M.shape"] = true, ["M.capsule"] = true, ["M.mesh"] = true, ["M.ray"] = true,
                           ["M.hit"] = true, ["M.grid"] = true, ["M.axes"] = true }

  -- Returns the sorted names of the table's function fields.
  local function functions(t)
    local names = {}
    for k, v in pairs(t) do
      if type(v) == "function" and type(k) == "string" and k:sub(1, 2) ~= "__" then names[#names + 1] = k end
    end
    table.sort(names)
    return names
  end

  it("is a ---@meta file that loads as Lua and declares the module's and the camera's classes", function()
    assert.is_truthy(llib.text:match("^%-%-%-@meta collide%.love"))
    assert.is_function(loadfile(root .. "/library/collide_love.lua"))
    assert.equal("collide.love", llib.classes.M)
    assert.equal("collide.love.Camera", llib.classes.Camera)
  end)

  it("annotates every function of the module and every camera method, and no other", function()
    local real, doc = functions(cl), annotated("M", ".", llib)
    assert.is_true(#real >= 10)
    assert.equal("", missing(real, doc))
    assert.equal("", missing(doc, real))
    real, doc = functions(cl.Camera), annotated("Camera", ":", llib)
    assert.is_true(#real >= 10)
    assert.equal("", missing(real, doc))
    assert.equal("", missing(doc, real))
  end)

  it("gives every annotated function a description, a ---@param per parameter and its returns", function()
    assert.equal("", documented(llib, LOVE_NO_RETURN))
  end)
end)

-- library/collide_obj.lua annotates collide.obj the same way: every function of the module, and
-- nothing that the module lacks.
describe("library/collide_obj.lua (Lua Language Server definitions of collide.obj)", function()
  local co = require "collide.obj"
  local olib = parse(root .. "/library/collide_obj.lua")

  it("is a ---@meta file that loads as Lua and declares the module's class", function()
    assert.is_truthy(olib.text:match("^%-%-%-@meta collide%.obj"))
    assert.is_function(loadfile(root .. "/library/collide_obj.lua"))
    assert.equal("collide.obj", olib.classes.obj)
  end)

  it("annotates every function of the module, and no other, each with its parameters and returns", function()
    local real = {}
    for k, v in pairs(co) do if type(v) == "function" then real[#real + 1] = k end end
    table.sort(real)
    local doc = annotated("obj", ".", olib)
    assert.same({ "load", "parse" }, real)
    assert.equal("", missing(real, doc))
    assert.equal("", missing(doc, real))
    assert.equal("", documented(olib, {}))
  end)
end)

-- The README's API tables write each call as `obj:name(a, b [, c])`: the annotated parameters of
-- the same function must be the same number (an optional one forgotten in library/ shows here).
describe("library/collide.lua against the README's API tables", function()
  local OWNER = { box = "AABB", ray = "Ray", obb = "OBB", sphere = "Sphere", capsule = "Capsule", world = "World",
                  poly = "Polygon", character = "Character", collide = "collide" }

  -- Returns { {key =, count =, row =} } for every call in the README's tables whose arguments
  -- are written out (rows with "..." abbreviations are skipped).
  local function readmecalls()
    local fh = assert(io.open(root .. "/README.md", "r"))
    local text = fh:read("*a")
    fh:close()
    local calls = {}
    for row in text:gmatch("\n(|[^\n]*)") do
      for obj, sep, name, args in row:gmatch("`(%a+)([%.:])([%w_]+)%(([^)`]*)%)`") do
        local owner = OWNER[obj]
        if owner and not args:find("...", 1, true) then
          local n = 0
          for word in args:gsub("[%[%]]", ""):gmatch("[^,%s]+") do n = n + 1 end
          calls[#calls + 1] = { key = owner .. sep .. name, count = n, row = row }
        end
      end
    end
    return calls
  end

  it("annotates as many parameters as the README writes for each call", function()
    local calls, problems = readmecalls(), {}
    assert.is_true(#calls > 40)
    for _, c in ipairs(calls) do
      local f = lib.funcs[c.key]
      if f and #f.params ~= c.count then
        problems[#problems + 1] = c.key .. ": README " .. c.count .. ", library/ " .. #f.params
      end
    end
    table.sort(problems)
    assert.equal("", table.concat(problems, "; "))
  end)
end)

describe("the README's first example", function()
  it("prints what its --> comment says on this Lua", function()
    local fh = assert(io.open(root .. "/README.md", "r"))
    local text = fh:read("*a")
    fh:close()
    local code = assert(text:match("```lua\n(.-)```"), "no lua block")
    local printed = {}
    local env = setmetatable({
      require = require,
      print = function(...)
        local parts = {}
        for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
        printed[#printed + 1] = table.concat(parts, "  ")
      end,
    }, { __index = _G })
    local chunk = assert((loadstring or load)(code, "README", "t", env))
    if setfenv then setfenv(chunk, env) end
    chunk()
    local expected = {}
    for want in code:gmatch("%-%->%s*(.-)%s%s%s") do expected[#expected + 1] = want end
    assert.is_true(#expected > 0)
    -- Lua 5.3+ prints floats with a ".0"; older Luas print whole floats as integers.
    if math.type == nil then
      for i, want in ipairs(expected) do expected[i] = want:gsub("(%d)%.0(%f[^%d])", "%1") end
    end
    -- Lua 5.5 prints 17 digits when 14 do not give the number back: compare at 5.4's 14 digits.
    if _VERSION >= "Lua 5.5" then
      for i, line in ipairs(printed) do
        printed[i] = line:gsub("%-?%d+%.%d+", function(s)
          local f = string.format("%.14g", tonumber(s))
          return f:find("[%.e]") and f or f .. ".0"
        end)
      end
    end
    assert.same(expected, printed)
  end)
end)
