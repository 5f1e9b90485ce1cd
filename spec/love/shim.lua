-- A small stand-in for busted + luassert, enough to run spec/*_spec.lua inside LÖVE (which has
-- no busted) and on Luas without busted's C dependencies (spec/run.lua, Lua 5.5): describe/it/pending, before_each/after_each, setup/teardown (and the lazy_/strict_
-- names), finally, spy.new/spy.on, and luassert-style assertions reached through chains such as
-- assert.are.equal, assert.is_not_nil, assert.has_no.errors. An assertion it does not know is a
-- test failure naming it, so nothing is skipped silently.
local shim = {}

local unpack = unpack or table.unpack

-- Returns v as text for failure messages (strings quoted, numbers with 17 digits).
local function show(v, depth)
  if type(v) == "string" then return string.format("%q", v) end
  if type(v) == "number" then return string.format("%.17g", v) end
  if type(v) == "table" and (depth or 0) < 2 then
    local parts = {}
    for k, x in pairs(v) do
      parts[#parts + 1] = "[" .. show(k, 2) .. "]=" .. show(x, (depth or 0) + 1)
      if #parts > 20 then parts[#parts + 1] = "..."; break end
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(v)
end

-- Returns true when a and b are equal, recursing into tables (luassert's same).
local function deepsame(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do if not deepsame(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

-- Returns the error message without luassert's "file:line: " position prefix.
local function strippos(err)
  if type(err) == "string" then return (err:gsub("^.-:%d+: ", "", 1)) end
  return err
end

-- Returns ok, err from calling fn (an error object of nil still counts as an error).
local function catch(fn, ...)
  if type(fn) ~= "function" and not (getmetatable(fn) or {}).__call then
    error("expected a function to call, got " .. type(fn), 0)
  end
  local ok, err = pcall(fn, ...)
  return ok, err
end

local function typeis(name) return function(v) return type(v) == name, "type " .. name end end

-- Each assertion: function(args...) returns passed (before negation) and a description.
local checks = {
  equal = function(e, a) return e == a, "expected " .. show(e) .. ", got " .. show(a) end,
  same = function(e, a) return deepsame(e, a), "expected the same as " .. show(e) .. ", got " .. show(a) end,
  unique = function(t)
    for i = 1, #t do for j = i + 1, #t do if deepsame(t[i], t[j]) then return false, "unique" end end end
    return true, "unique"
  end,
  near = function(e, a, tol)
    return type(a) == "number" and math.abs(e - a) <= tol, "expected " .. show(e) .. " +- " .. show(tol) .. ", got " .. show(a)
  end,
  ["true"] = function(v) return v == true, "expected true, got " .. show(v) end,
  ["false"] = function(v) return v == false, "expected false, got " .. show(v) end,
  ["nil"] = function(v) return v == nil, "expected nil, got " .. show(v) end,
  truthy = function(v) return not not v, "expected truthy, got " .. show(v) end,
  falsy = function(v) return not v, "expected falsy, got " .. show(v) end,
  number = typeis("number"), string = typeis("string"), table = typeis("table"),
  ["function"] = typeis("function"), userdata = typeis("userdata"), boolean = typeis("boolean"),
  thread = typeis("thread"),
  match = function(pat, s, init, plain)
    return type(s) == "string" and s:find(pat, init, plain) ~= nil, "expected " .. show(s) .. " to match " .. show(pat)
  end,
  error = function(fn, expected, ...)
    local ok, err = catch(fn, ...)
    if ok then return false, "expected an error" end
    if expected == nil then return true, "expected no error, got " .. show(err) end
    err = strippos(err)
    return deepsame(expected, err), "expected error " .. show(expected) .. ", got " .. show(err)
  end,
  error_matches = function(fn, pat, init, plain)
    local ok, err = catch(fn)
    if ok then return false, "expected an error matching " .. show(pat) end
    return type(err) == "string" and err:find(pat, init, plain) ~= nil,
      "expected an error matching " .. show(pat) .. ", got " .. show(err)
  end,
}
local aliases = {
  equals = "equal", errors = "error", matches = "match", error_match = "error_matches",
  matches_error = "error_matches", match_error = "error_matches", same_as = "same",
}
local modifiers = { is = true, are = true, was = true, has = true, does = true, be = true,
                    the = true, a = true, an = true, to = true, been = true, have = true }

local assertproxy

-- Returns a chain object remembering the words seen so far and whether the chain is negated.
function assertproxy(words, negated, spyval)
  return setmetatable({}, {
    __index = function(_, key)
      local w, neg = { unpack(words) }, negated
      for word in tostring(key):gmatch("[^_]+") do
        if word == "not" or word == "no" then neg = not neg
        elseif not modifiers[word] then w[#w + 1] = word end
      end
      return assertproxy(w, neg, spyval)
    end,
    __call = function(_, ...)
      local name = table.concat(words, "_")
      if name == "" then
        local v, msg = ...
        if not v then error(msg or "assertion failed!", 2) end
        return ...
      end
      if name == "spy" then return assertproxy({}, negated, { (...) }) end
      local fn
      if spyval then
        fn = shim.spychecks[aliases[name] or name]
      else
        fn = checks[aliases[name] or name]
      end
      if not fn then error("love spec shim: unsupported assertion '" .. name .. "'", 2) end
      local args = { ... }
      local n = select("#", ...)
      local passed, desc
      if spyval then passed, desc = fn(spyval[1], ...) else passed, desc = fn(...) end
      if negated then passed = not passed; desc = "not: " .. desc end
      if not passed then
        local msgindex = ({ near = 4, error = 3, error_matches = 5, match = 3, equal = 3, same = 3 })[aliases[name] or name] or 2
        local msg = args[msgindex]
        if msgindex > n or type(msg) ~= "string" then msg = nil end
        error((msg and (msg .. ": ") or "") .. name .. " failed: " .. desc, 2)
      end
      return ...
    end,
  })
end

shim.spychecks = {
  called = function(s, n)
    if n == nil then return #s.calls > 0, "expected the spy to be called" end
    return #s.calls == n, "expected " .. n .. " calls, got " .. #s.calls
  end,
  called_with = function(s, ...)
    local want = { n = select("#", ...), ... }
    for _, c in ipairs(s.calls) do
      local same = c.n == want.n
      for i = 1, want.n do if not deepsame(c[i], want[i]) then same = false end end
      if same then return true, "called with the arguments" end
    end
    return false, "expected a call with the given arguments"
  end,
}

-- Returns a spy: a callable table recording each call's arguments in .calls, calling fn if given.
local function newspy(fn)
  local s = { calls = {} }
  return setmetatable(s, {
    __call = function(_, ...)
      s.calls[#s.calls + 1] = { n = select("#", ...), ... }
      if fn then return fn(...) end
    end,
  })
end

shim.spy = {
  new = newspy,
  on = function(t, key) local s = newspy(t[key]); t[key] = s; return s end,
}

-- Returns err with a traceback limited to the frames outside this runner and LÖVE's boot code.
local function traceback(err)
  local lines = { tostring(err) }
  for l in debug.traceback("", 2):gmatch("[^\n]+") do
    if l:match("^%s") and not (l:match("shim%.lua") or l:match("boot%.lua") or l:match("callbacks%.lua")
        or l:match("%[C%]") or l:match("spec/love/main%.lua") or l:match("^%s*main%.lua")) then
      lines[#lines + 1] = l
    end
  end
  return table.concat(lines, "\n")
end

-- Runs every spec file in paths; calls report(status, name, message) per test. Returns the
-- counts passed, failed, pending.
function shim.run(paths, report)
  local passed, failed, pending = 0, 0, 0
  for _, path in ipairs(paths) do
    local root = { name = nil, children = {}, before = {}, after = {}, setup = {}, teardown = {} }
    local current = root
    local finals
    local env = setmetatable({}, { __index = _G })
    local function add(kind, name, fn)
      current.children[#current.children + 1] = { kind = kind, name = name, fn = fn, parent = current,
        children = {}, before = {}, after = {}, setup = {}, teardown = {} }
      return current.children[#current.children]
    end
    env.describe = function(name, fn)
      local node = add("describe", name, fn)
      local saved = current
      current = node
      fn()
      current = saved
    end
    env.context, env.insulate, env.expose = env.describe, env.describe, env.describe
    env.it = function(name, fn) add(fn and "it" or "pending", name, fn) end
    env.spec, env.test = env.it, env.it
    env.pending = function(name) add("pending", name) end
    env.before_each = function(fn) table.insert(current.before, fn) end
    env.after_each = function(fn) table.insert(current.after, fn) end
    env.setup = function(fn) table.insert(current.setup, fn) end
    env.teardown = function(fn) table.insert(current.teardown, fn) end
    env.lazy_setup, env.strict_setup = env.setup, env.setup
    env.lazy_teardown, env.strict_teardown = env.teardown, env.teardown
    env.finally = function(fn) finals[#finals + 1] = fn end
    env.assert = assertproxy({}, false)
    env.spy = shim.spy

    -- the spec runs with env as its globals: setfenv on 5.1 and LuaJIT, loadfile's env from 5.2 on
    local chunk, err
    if setfenv then chunk, err = loadfile(path) else chunk, err = loadfile(path, "t", env) end
    local ok = chunk ~= nil
    if ok then
      if setfenv then setfenv(chunk, env) end
      ok, err = xpcall(chunk, traceback)
    end
    if not ok then
      failed = failed + 1
      report("fail", path .. " (loading)", tostring(err))
    else
      local function title(node)
        local parts = {}
        while node and node.name do table.insert(parts, 1, node.name); node = node.parent end
        return path .. ": " .. table.concat(parts, " ")
      end
      local function runbefore(node)
        if node.parent then runbefore(node.parent) end
        for _, f in ipairs(node.before) do f() end
      end
      local function runafter(node)
        for _, f in ipairs(node.after) do f() end
        if node.parent then runafter(node.parent) end
      end
      local function walk(node)
        local setupok, serr = pcall(function() for _, f in ipairs(node.setup) do f() end end)
        for _, child in ipairs(node.children) do
          if child.kind == "describe" then
            walk(child)
          elseif child.kind == "pending" then
            pending = pending + 1
            report("pending", title(child))
          elseif not setupok then
            failed = failed + 1
            report("fail", title(child), "setup failed: " .. tostring(serr))
          else
            finals = {}
            local tok, terr = xpcall(function() runbefore(node); child.fn() end, traceback)
            for _, f in ipairs(finals) do pcall(f) end
            local aok, aerr = pcall(runafter, node)
            if tok and not aok then tok, terr = false, aerr end
            if tok then passed = passed + 1; report("pass", title(child))
            else failed = failed + 1; report("fail", title(child), tostring(terr)) end
          end
        end
        local tdok, tderr = pcall(function() for _, f in ipairs(node.teardown) do f() end end)
        if not tdok then failed = failed + 1; report("fail", title(node) .. " (teardown)", tostring(tderr)) end
      end
      walk(root)
    end
  end
  return passed, failed, pending
end

return shim
