-- bench/shapes.lua (issue 2): each single query from Lua, against
--   empty  : an empty C function called the same way with the same arguments, returning the same
--            number of results (bench_empty; the floor for any Lua-to-C call),
--   empty0 : the same empty call returning nothing,
--   purelua: the same algorithm in plain Lua on tables (bench/purelua.lua).
-- Every variant runs the same generated loop over the same 256 fixed-seed cases; only the call
-- differs. Usage: lua bench/shapes.lua [out.md]   (LUA_PATH must reach bench/?.lua)
local lib = require "lib"
local P = require "purelua"
local E = require "bench_empty"
local ok, collide = pcall(require, "collide")

local out = lib.writer(arg and arg[1])
local NCASE = 256

if not ok then
  out("collide could not be loaded: ", tostring(collide))
  os.exit(0)
end

local rng = lib.rng(20240601)
local U = rng.uniform

-- ---- input generators (one case = collide arguments + the same inputs as plain tables) ----

local function box()
  local cx, cy, cz = U(-10, 10), U(-10, 10), U(-10, 10)
  local hx, hy, hz = U(0.5, 5), U(0.5, 5), U(0.5, 5)
  return collide.AABB(cx - hx, cy - hy, cz - hz, cx + hx, cy + hy, cz + hz),
         P.aabb(cx - hx, cy - hy, cz - hz, cx + hx, cy + hy, cz + hz)
end

local function point() return U(-15, 15), U(-15, 15), U(-15, 15) end

-- A ray from a random point roughly toward the middle of the scene (about half hit a box).
local function ray()
  local ox, oy, oz = U(-25, 25), U(-25, 25), U(-25, 25)
  local tx, ty, tz = U(-12, 12), U(-12, 12), U(-12, 12)
  local r = collide.Ray(ox, oy, oz, tx - ox, ty - oy, tz - oz)
  -- the plain-Lua ray takes collide's normalised direction so both see identical numbers
  local a, b, c = r:origin()
  local d, e, f = r:direction()
  return r, { ox = a, oy = b, oz = c, dx = d, dy = e, dz = f }
end

-- A random rotation as three orthonormal axes (from a random unit quaternion).
local function axes()
  local w, x, y, z = U(-1, 1), U(-1, 1), U(-1, 1), U(-1, 1)
  local l = math.sqrt(w * w + x * x + y * y + z * z)
  w, x, y, z = w / l, x / l, y / l, z / l
  return 1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
         2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
         2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)
end

local function obb()
  local cx, cy, cz = U(-10, 10), U(-10, 10), U(-10, 10)
  local hx, hy, hz = U(0.5, 5), U(0.5, 5), U(0.5, 5)
  local b = collide.OBB(cx, cy, cz, hx, hy, hz, axes())
  return b, P.obb(cx, cy, cz, hx, hy, hz, b:axes())
end

local function sphere()
  local cx, cy, cz, r = U(-10, 10), U(-10, 10), U(-10, 10), U(0.5, 5)
  return collide.Sphere(cx, cy, cz, r), P.sphere(cx, cy, cz, r)
end

local function unitvec()
  local x, y, z = U(-1, 1), U(-1, 1), U(-1, 1)
  local l = math.sqrt(x * x + y * y + z * z)
  return x / l, y / l, z / l
end

-- A star-shaped 8-vertex polygon around the origin (concave), as a flat array.
local POLY = {}
for i = 0, 7 do
  local a = i * math.pi / 4
  local r = (i % 2 == 0) and 10 or 4
  POLY[#POLY + 1] = r * math.cos(a)
  POLY[#POLY + 1] = r * math.sin(a)
end
-- The same polygon as a collide.Polygon (nil on a collide without it: that row is then n/a). Its
-- points come from their own generator so the other rows keep their inputs.
local POLYOBJ = type(collide.Polygon) == "function" and collide.Polygon(POLY) or nil
local prng = lib.rng(20240602)

-- ---- the queries: collide method or function, empty function of the same arity, plain Lua ----
-- gen() returns the collide argument list and the plain-Lua argument list of one case.
-- sink: Lua statement folding the results r1..r4 into s, so nothing is optimised away.
local SINK_B = "if r1 then s = s + 1 end"
local SINK_N = "if r1 then s = s + r1 end"
local SINK_N2 = "if r1 then s = s + r1 + r2 end"
local SINK_N3 = "if r1 then s = s + r1 + r2 + r3 end"
local SINK_N4 = "if r1 then s = s + r1 + r2 + r3 + r4 end"
local SINK_S = "if r1 then s = s + r2; if r1 == 'overlapped' then s = s + 1000 end end"

local Q = {
  { name = "AABB:contains(x,y,z)", method = "contains", ret = "ret1b", pure = P.aabb_contains, sink = SINK_B,
    gen = function() local c, l = box(); local x, y, z = point(); return { c, x, y, z }, { l, x, y, z } end },
  { name = "AABB:overlaps(AABB)", method = "overlaps", ret = "ret1b", pure = P.aabb_overlaps, sink = SINK_B,
    gen = function() local c1, l1 = box(); local c2, l2 = box(); return { c1, c2 }, { l1, l2 } end },
  { name = "AABB:raycast(ray)", method = "raycast", ret = "ret4n", pure = P.aabb_raycast, sink = SINK_N4,
    gen = function() local c, l = box(); local rc, rl = ray(); return { c, rc }, { l, rl } end },
  { name = "AABB:raycast(ray, maxt)", method = "raycast", ret = "ret4n", pure = P.aabb_raycast, sink = SINK_N4,
    gen = function() local c, l = box(); local rc, rl = ray(); return { c, rc, 30 }, { l, rl, 30 } end },
  { name = "AABB:clip(ray)", method = "clip", ret = "ret2n", pure = P.aabb_clip, sink = SINK_N2,
    gen = function() local c, l = box(); local rc, rl = ray(); return { c, rc }, { l, rl } end },
  { name = "AABB:segment(x1,y1,z1,x2,y2,z2)", method = "segment", ret = "ret4n", pure = P.aabb_segment, sink = SINK_N4,
    gen = function()
      local c, l = box(); local a, b, d = point(); local e, f, g = point()
      return { c, a, b, d, e, f, g }, { l, a, b, d, e, f, g }
    end },
  { name = "AABB:closest(x,y,z)", method = "closest", ret = "ret3n", pure = P.aabb_closest, sink = SINK_N3,
    gen = function() local c, l = box(); local x, y, z = point(); return { c, x, y, z }, { l, x, y, z } end },
  { name = "AABB:plane(nx,ny,nz,d)", method = "plane", ret = "ret1n", pure = P.aabb_plane, sink = SINK_N,
    gen = function()
      local c, l = box(); local x, y, z = unitvec(); local d = U(-10, 10)
      return { c, x, y, z, d }, { l, x, y, z, d }
    end },
  { name = "OBB:overlaps(OBB)", method = "overlaps", ret = "ret1b", pure = P.obb_overlaps, sink = SINK_B,
    gen = function() local c1, l1 = obb(); local c2, l2 = obb(); return { c1, c2 }, { l1, l2 } end },
  { name = "OBB:contains(x,y,z)", method = "contains", ret = "ret1b", pure = P.obb_contains, sink = SINK_B,
    gen = function() local c, l = obb(); local x, y, z = point(); return { c, x, y, z }, { l, x, y, z } end },
  { name = "OBB:raycast(ray)", method = "raycast", ret = "ret4n", pure = P.obb_raycast, sink = SINK_N4,
    gen = function() local c, l = obb(); local rc, rl = ray(); return { c, rc }, { l, rl } end },
  { name = "Sphere:overlaps(Sphere)", method = "overlaps", ret = "ret1b", pure = P.sphere_overlaps, sink = SINK_B,
    gen = function() local c1, l1 = sphere(); local c2, l2 = sphere(); return { c1, c2 }, { l1, l2 } end },
  { name = "Sphere:raycast(ray)", method = "raycast", ret = "ret4n", pure = P.sphere_raycast, sink = SINK_N4,
    gen = function() local c, l = sphere(); local rc, rl = ray(); return { c, rc }, { l, rl } end },
  { name = "toi(a, da, b, db)", func = "toi", ret = "retsn", pure = P.toi, sink = SINK_S,
    gen = function()
      local a, la = box(); local b, lb = box()
      local d = { U(-10, 10), U(-10, 10), U(-10, 10), U(-10, 10), U(-10, 10), U(-10, 10) }
      return { a, d[1], d[2], d[3], b, d[4], d[5], d[6] }, { la, d[1], d[2], d[3], lb, d[4], d[5], d[6] }
    end },
  { name = "pointinpolygon(poly8, x, y)", func = "pointinpolygon", ret = "ret1b", pure = P.pointinpolygon, sink = SINK_B,
    gen = function() local x, y = U(-11, 11), U(-11, 11); return { POLY, x, y }, { POLY, x, y } end },
  -- the prebuilt polygon: empty = obj:ret1b(x, y) on a dummy userdata (same arguments: obj, x, y)
  { name = "Polygon:contains(x, y) (poly8)", method = "contains", ret = "ret1b", pure = P.pointinpolygon, sink = SINK_B,
    requires = "Polygon",
    gen = function()
      local x, y = prng.uniform(-11, 11), prng.uniform(-11, 11)
      return { POLYOBJ or false, x, y }, { POLY, x, y }
    end },
  { name = "reflect(v, n, e)", func = "reflect", ret = "ret3n", pure = P.reflect, sink = SINK_N3,
    gen = function()
      local a, b, c = U(-5, 5), U(-5, 5), U(-5, 5); local x, y, z = unitvec(); local e = U(0, 1)
      return { a, b, c, x, y, z, e }, { a, b, c, x, y, z, e }
    end },
  { name = "closestonsegment(p, a, b)", func = "closestonsegment", ret = "ret4n", pure = P.closestonsegment, sink = SINK_N4,
    gen = function()
      local t = {}
      for i = 1, 9 do t[i] = U(-10, 10) end
      return t, t
    end },
}

-- ---- loop generator: the same loop for every variant, only the call expression differs ----

-- Returns fn(reps) running the call over all cases reps times, returning the sink.
local function makeloop(call, sink, nargs, f, arrays)
  local names, reads = {}, {}
  for i = 1, nargs do
    names[i] = "A" .. i
    reads[i] = "A" .. i .. "[j]"
  end
  local argl = {}
  for i = 1, nargs do argl[i] = "a" .. i end
  local src = "local f, " .. table.concat(names, ", ") .. " = ...\n" ..
    "return function(reps)\n" ..
    "  local s = 0\n" ..
    "  for r = 1, reps do\n" ..
    "    for j = 1, " .. NCASE .. " do\n" ..
    "      local " .. table.concat(argl, ", ") .. " = " .. table.concat(reads, ", ") .. "\n" ..
    "      local r1, r2, r3, r4 = " .. call .. "\n" ..
    "      " .. sink .. "\n" ..
    "    end\n" ..
    "  end\n" ..
    "  return s\n" ..
    "end\n"
  local chunk = assert((loadstring or load)(src, "=loop"))
  return chunk(f, (table.unpack or unpack)(arrays, 1, nargs))
end

-- Builds the four variants of one query; nil and a reason if collide lacks it or it fails.
local function variants(q)
  local C, L = {}, {}
  local nargs
  for j = 1, NCASE do
    local c, l = q.gen()
    nargs = #c
    for i = 1, nargs do
      C[i] = C[i] or {}; L[i] = L[i] or {}
      C[i][j], L[i][j] = c[i], l[i]
    end
  end
  local argrest = {}
  for i = 2, nargs do argrest[#argrest + 1] = "a" .. i end
  local rest = table.concat(argrest, ", ")
  local all = "a1" .. (rest ~= "" and ", " .. rest or "")
  local ccall, cfun
  if q.requires and collide[q.requires] == nil then return nil, "no collide." .. q.requires end
  if q.method then
    if type(C[1][1][q.method]) ~= "function" then return nil, "no method " .. q.method end
    ccall = "a1:" .. q.method .. "(" .. rest .. ")"
  else
    cfun = collide[q.func]
    if type(cfun) ~= "function" then return nil, "no function collide." .. q.func end
    ccall = "f(" .. all .. ")"
  end
  local cloop = makeloop(ccall, q.sink, nargs, cfun, C)
  local okc, err = pcall(cloop, 1)
  if not okc then return nil, "collide call failed: " .. tostring(err) end
  -- empty calls: same call syntax; a method call goes to a dummy userdata with the same kind
  -- of metatable (__index = methods table), so the method lookup is paid too
  local EC = {}
  for i = 1, nargs do EC[i] = C[i] end
  local ecall, ecall0
  if q.method then
    local objs = {}
    local o = E.object()
    for j = 1, NCASE do objs[j] = o end
    EC[1] = objs
    ecall, ecall0 = "a1:" .. q.ret .. "(" .. rest .. ")", "a1:ret0(" .. rest .. ")"
  else
    ecall, ecall0 = "f(" .. all .. ")", "f(" .. all .. ")"
  end
  local res = {
    { name = "collide", fn = cloop, per = NCASE },
    { name = "empty", fn = makeloop(ecall, q.sink, nargs, E[q.ret], EC), per = NCASE },
    { name = "empty0", fn = makeloop(ecall0, q.sink, nargs, E.ret0, EC), per = NCASE },
    { name = "purelua", fn = makeloop("f(" .. all .. ")", q.sink, nargs, q.pure, L), per = NCASE },
    { name = "loop", fn = makeloop("nil", q.sink, nargs, nil, C), per = NCASE },
  }
  return res, C, L
end

-- Number of cases (of NCASE) where collide and the plain-Lua version give different results
-- (numbers compared with a relative tolerance of 1e-9), and the first such case as text.
local function differences(q, C, L)
  local unpack = table.unpack or unpack
  local bad, first = 0, nil
  for j = 1, NCASE do
    local ca, la = {}, {}
    for i = 1, #C do ca[i], la[i] = C[i][j], L[i][j] end
    local rc, rl
    if q.method then
      local self = ca[1]
      rc = { self[q.method](unpack(ca)) }
    else
      rc = { collide[q.func](unpack(ca)) }
    end
    rl = { q.pure(unpack(la)) }
    local same = #rc == #rl
    for i = 1, math.max(#rc, #rl) do
      local a, b = rc[i], rl[i]
      if type(a) == "number" and type(b) == "number" then
        if math.abs(a - b) > 1e-9 * math.max(1, math.abs(a)) then same = false end
      elseif a ~= b then
        same = false
      end
    end
    if not same then
      bad = bad + 1
      if not first then
        local fa, fb = {}, {}
        for i = 1, #rc do fa[i] = tostring(rc[i]) end
        for i = 1, #rl do fb[i] = tostring(rl[i]) end
        local args = {}
        for i = 1, #ca do
          args[i] = type(ca[i]) == "number" and string.format("%.17g", ca[i]) or tostring(ca[i])
        end
        first = "case " .. j .. " (" .. table.concat(args, ", ") .. "): collide " .. table.concat(fa, ",") ..
          " vs Lua " .. (#fb > 0 and table.concat(fb, ",") or "nil")
      end
    end
  end
  return bad, first
end

-- ---- run ----

out("### ", lib.luaname(), ": single queries (ns per call, medians of ", lib.rounds, " runs)")
out("")
if type(jit) == "table" then
  -- csrc/bind/ffi.c: on LuaJIT the queries are FFI calls unless COLLIDE_FFI=0; the `empty` floor
  -- stays an empty classic C call, as issue 2 defines it
  out("collide's LuaJIT FFI fast path: ", collide._ffi and "on" or "off (classic C functions)",
      " (collide._ffi; COLLIDE_FFI=0 turns it off). `empty` is still an empty classic C call.")
  out("")
end

-- reference: the cost of the call forms themselves
if not os.getenv("BENCH_PROFILE") then
  local o = E.object()
  local x = {}
  for j = 1, NCASE do x[j] = j end
  local X = { x, x, x, x }
  local O = { {}, x, x, x }
  for j = 1, NCASE do O[1][j] = o end
  local r = lib.compare({
    { name = "plain", fn = makeloop("f(a1, a2, a3, a4)", SINK_B, 4, E.ret0, X), per = NCASE },
    { name = "method", fn = makeloop("a1:ret0(a2, a3, a4)", SINK_B, 4, nil, O), per = NCASE },
    { name = "noop", fn = makeloop("nil", SINK_B, 4, nil, X), per = NCASE },
  })
  out("Call floor (4 arguments, no results): empty C function as a local `f(a,x,y,z)` ",
      lib.fmt(r.plain.ns), " ns; as a method `obj:f(x,y,z)` ", lib.fmt(r.method.ns),
      " ns; the loop alone ", lib.fmt(r.noop.ns), " ns (included in every number below).")
  out("")
end

out("Columns: ns per call with the loop's own cost (column `loop`) subtracted; ratios are medians")
out("of per-run ratios of those net times. `gross` is collide/empty without subtracting the loop.")
out("`empty` returns as many results as the real call, `empty0` returns nothing.")
out("")
out("| query | collide | empty | empty0 | pure Lua | loop | collide/empty | gross | collide/empty0 | purelua/collide | spread | <= 2x empty | same results as pure Lua |")
out("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
local met, missed, notes = 0, 0, {}
-- BENCH_ONLY="OBB:overlaps,toi": run only the queries whose name contains one of these (plain
-- substrings, comma-separated); for quick comparisons, not for RESULTS.md
local only = os.getenv("BENCH_ONLY")
local function wanted(name)
  if not only or only == "" then return true end
  for part in only:gmatch("[^,]+") do
    if name:find(part, 1, true) then return true end
  end
  return false
end
for _, q in ipairs(Q) do if wanted(q.name) then
  -- LuaJIT: start every query from an empty trace cache so one query's traces (and any
  -- blacklisting) never affect the next
  if type(jit) == "table" and jit.flush then jit.flush() end
  local vs, C, L = variants(q)
  -- BENCH_PROFILE=collide (or empty, empty0, purelua, loop) with BENCH_REPS=n: runs only that
  -- variant's loop n times (n * 256 calls) for the first query BENCH_ONLY selects, untimed, then
  -- exits: for instruction counts under valgrind (run two counts of reps and take the difference)
  local prof = os.getenv("BENCH_PROFILE")
  if prof and vs then
    for _, v in ipairs(vs) do
      if v.name == prof then v.fn(tonumber(os.getenv("BENCH_REPS")) or 1) end
    end
    os.exit(0)
  end
  if not vs then
    out("| ", q.name, " | n/a (", C, ") | | | | | | | | | | | |")
  else
    local r = lib.compare(vs)
    local rl = r.loop.all
    -- per-run net ratio (a - loop) / (b - loop)
    local function net(a, b)
      local q2 = {}
      for k = 1, #rl do q2[k] = (r[a].all[k] - rl[k]) / math.max(r[b].all[k] - rl[k], 1e-3) end
      return lib.median(q2)
    end
    local function netns(a)
      local q2 = {}
      for k = 1, #rl do q2[k] = r[a].all[k] - rl[k] end
      return lib.median(q2)
    end
    local ce, ce0, lc = net("collide", "empty"), net("collide", "empty0"), net("purelua", "collide")
    local gross = r.ratio("collide", "empty")
    local bad, first = differences(q, C, L)
    local spread = math.max(r.collide.spread, r.empty.spread, r.purelua.spread)
    local verdict = ce <= 2 and "met" or "MISSED"
    if ce <= 2 then met = met + 1 else missed = missed + 1 end
    if first then notes[#notes + 1] = q.name .. ": " .. first end
    out("| ", q.name, " | ", lib.fmt(netns("collide")), " | ", lib.fmt(netns("empty")), " | ", lib.fmt(netns("empty0")),
        " | ", lib.fmt(netns("purelua")), " | ", lib.fmt(r.loop.ns), " | ", lib.fmt(ce), " | ", lib.fmt(gross),
        " | ", lib.fmt(ce0), " | ", lib.fmt(lc),
        " | ", string.format("%.0f%%", spread * 100), " | ", verdict, " | ",
        bad == 0 and "yes" or (bad .. " of " .. NCASE .. " differ"), " |")
  end
end end
out("")
out("Target collide/empty <= 2 (net): met by ", met, ", missed by ", missed, " queries on ", lib.luaname(), ".")
for _, n in ipairs(notes) do out("- differs: ", n) end
out("")
