-- World differential: random operation sequences on collide.World and on the brute-force reference
-- (spec/support/worldref.lua), comparing every result and its order.
local collide = require "collide"
local ref = require "support.worldref"

local AABB, OBB, Sphere, Ray = collide.AABB, collide.OBB, collide.Sphere, collide.Ray
local abs, floor, sqrt = math.abs, math.floor, math.sqrt
local unpack = table.unpack or unpack

-- Park-Miller minimal standard PRNG: every product < 2^53, so identical on 5.1/5.3/5.4/LuaJIT.
local function prng(seed)
  local s = seed
  local r = {}
  function r.int(a, b)
    s = (s * 16807) % 2147483647
    return a + s % (b - a + 1)
  end
  function r.float()
    s = (s * 16807) % 2147483647
    return s / 2147483647
  end
  function r.pick(t) return t[r.int(1, #t)] end
  return r
end

-- Random shapes, biased to exact touching (grid coordinates), shared places and flat boxes.
local function generators(R)
  local g = {}
  local function coord()
    local v = R.int(-8, 8)
    if R.int(1, 4) == 1 then v = v + 0.5 end
    return v
  end
  function g.aabb()
    if R.int(1, 10) == 1 then
      local x, y, z = R.float() * 16 - 8, R.float() * 16 - 8, R.float() * 16 - 8
      return AABB(x, y, z, x + R.float() * 3, y + R.float() * 3, z + R.float() * 3)
    end
    local sizes = { 0, 1, 1, 2, 3, 4, 0.5 }
    local x, y, z = coord(), coord(), coord()
    return AABB(x, y, z, x + R.pick(sizes), y + R.pick(sizes), z + R.pick(sizes))
  end
  local perms = { { 1, 2, 3 }, { 2, 3, 1 }, { 3, 1, 2 }, { 2, 1, 3 }, { 1, 3, 2 }, { 3, 2, 1 } }
  function g.obb()
    if R.int(1, 2) == 1 then
      -- a signed permutation of the world axes: exact arithmetic
      local p = R.pick(perms)
      local ax = {}
      for k = 1, 3 do
        local v = { 0, 0, 0 }
        v[p[k]] = R.int(0, 1) == 0 and 1 or -1
        for i = 1, 3 do ax[#ax + 1] = v[i] end
      end
      local hs = { 0.5, 1, 1.5, 2, 0.5, 1 }
      return OBB(coord(), coord(), coord(), R.pick(hs), R.pick(hs), R.pick(hs), unpack(ax))
    end
    local a, b, c, d = R.float() - 0.5, R.float() - 0.5, R.float() - 0.5, R.float() - 0.5
    local l = sqrt(a * a + b * b + c * c + d * d)
    a, b, c, d = a / l, b / l, c / l, d / l
    local m = {
      1 - 2 * (c * c + d * d), 2 * (b * c + a * d), 2 * (b * d - a * c),
      2 * (b * c - a * d), 1 - 2 * (b * b + d * d), 2 * (c * d + a * b),
      2 * (b * d + a * c), 2 * (c * d - a * b), 1 - 2 * (b * b + c * c),
    }
    return OBB(R.float() * 16 - 8, R.float() * 16 - 8, R.float() * 16 - 8,
      0.25 + R.float() * 2, 0.25 + R.float() * 2, 0.25 + R.float() * 2, unpack(m))
  end
  function g.sphere()
    if R.int(1, 4) == 1 then
      return Sphere(R.float() * 16 - 8, R.float() * 16 - 8, R.float() * 16 - 8, 0.25 + R.float() * 2)
    end
    return Sphere(coord(), coord(), coord(), R.pick({ 0.5, 1, 1.5, 2, 3, 0 }))
  end
  function g.shape()
    local k = R.int(1, 10)
    if k <= 5 then return g.aabb() elseif k <= 8 then return g.obb() end
    return g.sphere()
  end
  function g.ray()
    local o = { coord(), coord(), coord() }
    if R.int(1, 5) == 1 then o = { R.float() * 20 - 10, R.float() * 20 - 10, R.float() * 20 - 10 } end
    local d
    if R.int(1, 5) <= 3 then
      d = { 0, 0, 0 }
      d[R.int(1, 3)] = R.int(0, 1) == 0 and 1 or -1
    else
      repeat d = { R.int(-2, 2), R.int(-2, 2), R.int(-2, 2) } until d[1] ~= 0 or d[2] ~= 0 or d[3] ~= 0
    end
    return Ray(o[1], o[2], o[3], d[1], d[2], d[3])
  end
  function g.maxt()
    local k = R.int(1, 5)
    if k <= 2 then return nil elseif k == 3 then return math.huge end
    return R.int(0, 20)
  end
  function g.point()
    if R.int(1, 5) == 1 then return R.float() * 20 - 10, R.float() * 20 - 10, R.float() * 20 - 10 end
    return coord(), coord(), coord()
  end
  return g
end

local function fmt(v)
  if type(v) == "number" then return string.format("%.17g", v) end
  return tostring(v)
end

describe("worldref self-check against the shape methods", function()
  it("overlaps, contains and raycast agree wherever the reference is certain", function()
    local R = prng(4242)
    local g = generators(R)
    local checked, skipped = 0, 0
    for i = 1, 3000 do
      local a, b = g.shape(), g.shape()
      local ra, rb = ref.fromshape(a), ref.fromshape(b)
      local want = ref.overlaps(ra, rb)
      if want == nil then skipped = skipped + 1 else
        checked = checked + 1
        assert(a:overlaps(b) == want, ("case %d: %s overlaps %s: want %s"):format(i, tostring(a), tostring(b), tostring(want)))
      end
      local x, y, z = g.point()
      local c = ref.contains(ra, x, y, z)
      if c ~= nil then
        assert(a:contains(x, y, z) == c, ("case %d: %s contains %s %s %s: want %s"):format(i, tostring(a), fmt(x), fmt(y), fmt(z), tostring(c)))
      end
      local ray, maxt = g.ray(), g.maxt()
      local st, t, _, alts = ref.raycast(ra, ref.fromshape(ray), maxt)
      if st ~= nil then
        local gt, nx, ny, nz = a:raycast(ray, maxt)
        local msg = ("case %d: %s raycast %s maxt %s: want %s %s got %s %s %s %s"):format(i, tostring(a), tostring(ray),
          fmt(maxt), tostring(st), fmt(t), fmt(gt), fmt(nx), fmt(ny), fmt(nz))
        assert(st == (gt ~= nil), msg)
        if st then
          assert(ref.near(t, gt, 1e-9), msg)
          local okn = false
          for _, n in ipairs(alts) do
            if abs(n[1] - nx) <= 1e-9 and abs(n[2] - ny) <= 1e-9 and abs(n[3] - nz) <= 1e-9 then okn = true end
          end
          assert(okn, msg)
        end
      end
    end
    assert.is_true(skipped < checked / 20, "too many ill-conditioned cases: " .. skipped)
  end)

  it("the AABB sweep reference agrees with collide.toi", function()
    local R = prng(777)
    local g = generators(R)
    for i = 1, 3000 do
      local a, b = g.aabb(), g.aabb()
      local d = { R.int(-6, 6), R.int(-6, 6), R.int(-6, 6) }
      if R.int(1, 3) == 1 then d[R.int(1, 3)] = 0 end
      local st, t = ref.sweep(ref.fromshape(a), ref.fromshape(b), d)
      local s2, t2 = collide.toi(a, d[1], d[2], d[3], b, 0, 0, 0)
      local msg = ("case %d: %s by %s,%s,%s vs %s: ref %s %s toi %s %s"):format(i, tostring(a), d[1], d[2], d[3],
        tostring(b), tostring(st), fmt(t), s2, fmt(t2))
      if st == "overlap" then assert(s2 == "overlapped", msg)
      elseif st == "none" then assert(s2 == "separated", msg)
      elseif st == "hit" then assert(s2 == "touching" and ref.near(t, t2, 1e-12), msg) end
    end
  end)
end)

describe("World differential against the brute-force reference", function()
  it("10,000 random operations give the same results in the same order", function()
    local R = prng(20240611)
    local g = generators(R)
    local W = collide.World()
    local RW = ref.world()
    local items, nitems = {}, 0 -- list of items currently in the world
    local tag = {}              -- item -> small integer used by filters
    local made = 0
    local stats = { ops = 0, compared = 0, skipped = 0 }
    local out, rout, pout = {}, {}, {}

    local function newitem()
      made = made + 1
      local k = made % 3
      local it
      if k == 0 then it = "s" .. made elseif k == 1 then it = { id = made } else it = 100000 + made end
      tag[it] = made % 4
      return it
    end
    local function removeat(i)
      items[i] = items[nitems]
      items[nitems] = nil
      nitems = nitems - 1
    end
    local function name(it)
      if type(it) == "table" then return "{id=" .. it.id .. "}" end
      return tostring(it)
    end
    local function filterfor()
      if R.int(1, 4) > 1 then return nil end
      local keep = R.int(0, 3)
      return function(it) return tag[it] ~= keep end
    end
    local ctx = ""
    local function fail(msg) error(ctx .. ": " .. msg, 2) end
    local function check(cond, msg) if not cond then fail(msg) end end

    -- Compares an order-added list from the world with the reference list of {item=, status=}.
    local function sameordered(arr, n, want)
      check(arr[n + 1] == nil, "entry after n")
      local j = 1
      for k = 1, n do
        local it = arr[k]
        while want[j] and not rawequal(want[j].item, it) do
          check(want[j].status == nil, "missing item " .. name(want[j].item) .. " at position " .. k ..
            " (got " .. name(it) .. ")")
          stats.skipped = stats.skipped + 1
          j = j + 1
        end
        check(want[j] ~= nil, "unexpected or out-of-order item " .. name(it) .. " at position " .. k)
        if want[j].status == nil then stats.skipped = stats.skipped + 1 end
        j = j + 1
        stats.compared = stats.compared + 1
      end
      while want[j] do
        check(want[j].status == nil, "missing item " .. name(want[j].item) .. " at the end")
        j = j + 1
      end
    end

    local function normalok(alts, nx, ny, nz, tol)
      for _, a in ipairs(alts) do
        if abs(a[1] - nx) <= tol and abs(a[2] - ny) <= tol and abs(a[3] - nz) <= tol then return true end
      end
      return false
    end
    local function altstr(alts)
      local s = {}
      for _, a in ipairs(alts or {}) do s[#s + 1] = "(" .. fmt(a[1]) .. "," .. fmt(a[2]) .. "," .. fmt(a[3]) .. ")" end
      return table.concat(s, " ")
    end
    local function findref(list, it)
      for _, e in ipairs(list) do if rawequal(e.item, it) then return e end end
      return nil
    end

    local OPS = os.getenv("COLLIDE_QUICK") and 1000 or 10000 -- COLLIDE_QUICK=1 under make check
    for op = 1, OPS do
      stats.ops = stats.ops + 1
      local r = R.int(1, 100)
      if nitems < 8 then r = 1 end
      if nitems > 60 and r <= 20 then r = 25 end
      if r <= 20 then
        local it = newitem()
        local sh
        if nitems > 0 and R.int(1, 4) == 1 then
          sh = W:shape(items[R.int(1, nitems)]) -- same place as another item
        else
          sh = g.shape()
        end
        ctx = ("op %d add %s %s"):format(op, name(it), tostring(sh))
        check(rawequal(W:add(it, sh), it), "add did not return the item")
        RW:add(it, ref.fromshape(sh))
        nitems = nitems + 1
        items[nitems] = it
      elseif r <= 28 then
        local i = R.int(1, nitems)
        ctx = ("op %d remove %s"):format(op, name(items[i]))
        W:remove(items[i])
        RW:remove(items[i])
        removeat(i)
      elseif r <= 40 then
        local it = items[R.int(1, nitems)]
        local sh
        if R.int(1, 3) == 1 then
          sh = W:shape(it)
          sh:translate(R.int(-1, 1), R.int(-1, 1), R.int(-1, 1) * 0.5)
        else
          sh = g.shape()
        end
        ctx = ("op %d update %s %s"):format(op, name(it), tostring(sh))
        W:update(it, sh)
        RW:update(it, ref.fromshape(sh))
      elseif r <= 54 then
        local sh = R.int(1, 5) == 1 and W:shape(items[R.int(1, nitems)]) or g.shape()
        local f = filterfor()
        ctx = ("op %d query %s filter %s"):format(op, tostring(sh), tostring(f ~= nil))
        local arr, n = W:query(sh, f, R.int(1, 2) == 1 and out or nil)
        sameordered(arr, n, RW:query(ref.fromshape(sh), f))
      elseif r <= 63 then
        local x, y, z = g.point()
        local f = filterfor()
        ctx = ("op %d querypoint %s %s %s"):format(op, fmt(x), fmt(y), fmt(z))
        local arr, n = W:querypoint(x, y, z, f, out)
        sameordered(arr, n, RW:querypoint(x, y, z, f))
      elseif r <= 80 then
        local ray, maxt, f = g.ray(), g.maxt(), filterfor()
        ctx = ("op %d raycast %s maxt %s filter %s"):format(op, tostring(ray), fmt(maxt), tostring(f ~= nil))
        local want = RW:raycastall(ref.fromshape(ray), maxt, f)
        local arr, n = W:raycastall(ray, maxt, f, R.int(1, 2) == 1 and rout or nil)
        check(arr[n + 1] == nil, "raycastall: entry after n")
        local seen = {}
        local prevt, prevseq
        for k = 1, n do
          local h = arr[k]
          local e = findref(want, h.item)
          check(e ~= nil, "raycastall: unexpected hit " .. name(h.item) .. " t=" .. fmt(h.t))
          check(not seen[e], "raycastall: duplicate " .. name(h.item))
          seen[e] = true
          if e.status == nil then stats.skipped = stats.skipped + 1 else
            stats.compared = stats.compared + 1
            check(ref.near(e.t, h.t, 1e-9), "raycastall: " .. name(h.item) .. " t want " .. fmt(e.t) .. " got " .. fmt(h.t))
            check(normalok(e.alts, h.nx, h.ny, h.nz, 1e-9), "raycastall: " .. name(h.item) .. " normal " ..
              fmt(h.nx) .. "," .. fmt(h.ny) .. "," .. fmt(h.nz) .. " want one of " .. altstr(e.alts))
          end
          if prevt then
            check(prevt < h.t or (prevt == h.t and prevseq < e.seq),
              "raycastall: not sorted by (t, order added) at position " .. k)
          end
          prevt, prevseq = h.t, e.seq
        end
        for _, e in ipairs(want) do
          check(seen[e] or e.status == nil, "raycastall: missing hit " .. name(e.item) .. " t=" .. fmt(e.t))
        end
        local it, t, nx, ny, nz = W:raycast(ray, maxt, f)
        if n == 0 then
          check(it == nil, "raycast: hit " .. name(it) .. " but raycastall found nothing")
        else
          check(rawequal(it, arr[1].item) and t == arr[1].t and nx == arr[1].nx and ny == arr[1].ny and nz == arr[1].nz,
            "raycast: " .. name(it) .. " t=" .. fmt(t) .. " differs from raycastall's first " .. name(arr[1].item) ..
            " t=" .. fmt(arr[1].t))
        end
      elseif r <= 85 then
        ctx = ("op %d pairs"):format(op)
        local arr, n = W:pairs(R.int(1, 2) == 1 and pout or nil)
        check(arr[2 * n + 1] == nil, "pairs: entry after 2n")
        local want = RW:pairs()
        local j = 1
        for k = 1, n do
          local a, b = arr[2 * k - 1], arr[2 * k]
          while want[j] and not (rawequal(want[j].a, a) and rawequal(want[j].b, b)) do
            check(want[j].status == nil, "pairs: missing " .. name(want[j].a) .. "," .. name(want[j].b) ..
              " at " .. k .. " (got " .. name(a) .. "," .. name(b) .. ")")
            j = j + 1
          end
          check(want[j] ~= nil, "pairs: unexpected or out-of-order pair " .. name(a) .. "," .. name(b) .. " at " .. k)
          j = j + 1
          stats.compared = stats.compared + 1
        end
        while want[j] do
          check(want[j].status == nil, "pairs: missing " .. name(want[j].a) .. "," .. name(want[j].b) .. " at the end")
          j = j + 1
        end
      else
        local sh
        local k = R.int(1, 10)
        local d = { R.int(-6, 6), R.int(-6, 6), R.int(-6, 6) }
        if R.int(1, 2) == 1 then d[R.int(1, 3)] = 0 end
        if R.int(1, 4) == 1 then d = { 0, 0, 0 }; d[R.int(1, 3)] = R.int(-6, 6) end
        if k <= 4 then
          -- a copy of an item moved by its own width along one axis: touching it exactly, then
          -- moving into it, away from it or sliding along it
          sh = W:shape(items[R.int(1, nitems)])
          local bb = ref.aabbof(ref.fromshape(sh))
          local ax, sg = R.int(1, 3), R.int(0, 1) == 0 and -1 or 1
          local off = { 0, 0, 0 }
          off[ax] = sg * (bb.hi[ax] - bb.lo[ax])
          sh:translate(off[1], off[2], off[3])
          local m = R.int(1, 3)
          if m == 1 then d[ax] = -sg * R.int(1, 4) elseif m == 2 then d[ax] = 0 end
        elseif k <= 6 then
          local x, y, z = g.point()
          sh = AABB(x, y, z, x + R.int(0, 2) * 0.5, y + R.int(0, 2) * 0.5, z + R.int(0, 2) * 0.5)
        else
          sh = g.shape()
        end
        local f = filterfor()
        ctx = ("op %d sweep %s by %s,%s,%s filter %s"):format(op, tostring(sh), d[1], d[2], d[3], tostring(f ~= nil))
        local want = RW:sweep(ref.fromshape(sh), d, f)
        local it, t, nx, ny, nz = W:sweep(sh, d[1], d[2], d[3], f)
        if it == nil then
          for _, e in ipairs(want) do
            check(e.status == nil, "sweep: nil but " .. name(e.item) .. " is hit at t=" .. fmt(e.t))
          end
          stats.compared = stats.compared + 1
        else
          local e = findref(want, it)
          check(e ~= nil, "sweep: unexpected hit " .. name(it) .. " t=" .. fmt(t))
          if e.status == nil then stats.skipped = stats.skipped + 1 else
            stats.compared = stats.compared + 1
            local tol = e.approx and 1e-7 or 1e-9
            check(ref.near(e.t, t, tol), "sweep: " .. name(it) .. " t want " .. fmt(e.t) .. " got " .. fmt(t))
            check(normalok(e.alts, nx, ny, nz, e.approx and 1e-6 or 1e-9), "sweep: " .. name(it) .. " normal " ..
              fmt(nx) .. "," .. fmt(ny) .. "," .. fmt(nz) .. " want one of " .. altstr(e.alts))
          end
          check(t >= 0 and t <= 1, "sweep: t out of [0,1]")
          for _, y in ipairs(want) do
            if y.status and y ~= e then
              check(y.t >= t - 1e-7, "sweep: " .. name(y.item) .. " is hit earlier (t=" .. fmt(y.t) .. ") than " ..
                name(it) .. " (t=" .. fmt(t) .. ")")
              -- exact ties (same t, same single entering axis, or both at 0) go to the item added first
              if e.status and y.seq < e.seq and y.t == e.t and not y.approx and not e.approx
                and (y.t == 0 or (#y.alts == 1 and #e.alts == 1 and y.alts[1][1] == e.alts[1][1]
                  and y.alts[1][2] == e.alts[1][2] and y.alts[1][3] == e.alts[1][3])) then
                fail("sweep: tie at t=" .. fmt(t) .. " went to " .. name(it) .. " but " .. name(y.item) ..
                  " was added first")
              end
            end
          end
        end
      end
      if op % 97 == 0 then
        ctx = ("op %d count/has"):format(op)
        check(W:count() == nitems, "count " .. W:count() .. " want " .. nitems)
        for i = 1, nitems do check(W:has(items[i]), "has " .. name(items[i])) end
      end
    end
    io.stderr:write(("\n[11-world-differential] %s: %d ops, %d results compared, %d ill-conditioned skipped\n")
      :format(_VERSION, stats.ops, stats.compared, stats.skipped))
    assert.is_true(stats.compared > OPS)
    assert.is_true(stats.skipped < stats.compared / 20)
  end)
end)

describe("World differential with many items (tree shape stress)", function()
  it("sorted adds, items all at one point, small and large updates: queries match the reference", function()
    local R = prng(99)
    local W = collide.World({ margin = 0.25 })
    local RW = ref.world()
    local items = {}
    local function add(it, sh)
      W:add(it, sh); RW:add(it, ref.fromshape(sh)); items[#items + 1] = it
    end
    for i = 1, 600 do add(i, AABB(i, 0, 0, i + 1, 1, 1)) end            -- sorted along x, touching
    for i = 1, 150 do add("p" .. i, AABB(5, 5, 5, 6, 6, 6)) end           -- all at one place
    for i = 1, 150 do add("s" .. i, Sphere(R.int(0, 600), R.int(-3, 3), R.int(-3, 3), 0.5)) end
    for _ = 1, 600 do
      local it = items[R.int(1, #items)]
      local sh = W:shape(it)
      if R.int(1, 2) == 1 then sh:translate(0.25, 0, -0.25) else sh:translate(R.int(-150, 150), R.int(-2, 2), 0) end
      W:update(it, sh); RW:update(it, ref.fromshape(sh))
    end
    -- (COLLIDE_QUICK=2, under valgrind: 30 of the 150 reference queries, each a brute-force pass
    -- over 900 items in pure Lua)
    for k = 1, os.getenv("COLLIDE_QUICK") == "2" and 30 or 150 do
      local x = R.int(-5, 605)
      local y, z = R.int(-3, 3), R.int(-3, 3)
      local q = AABB(x, y, z, x + R.int(0, 6), y + R.int(0, 3), z + R.int(0, 3))
      local arr, n = W:query(q)
      local want = RW:query(ref.fromshape(q))
      local got = {}
      for i = 1, n do got[i] = arr[i] end
      local exp = {}
      for i, e in ipairs(want) do assert(e.status, "ill-conditioned reference case"); exp[i] = e.item end
      assert.same(exp, got, "query " .. k .. " " .. tostring(q))
      local ray = Ray(x + 0.5, 0.5, -10, 0, 0, 1)
      local it, t = W:raycast(ray)
      local best
      for _, e in ipairs(RW:raycastall(ref.fromshape(ray))) do
        assert(e.status, "ill-conditioned reference case")
        if not best or e.t < best.t or (e.t == best.t and e.seq < best.seq) then best = e end
      end
      if best then
        assert.equal(best.item, it); assert.equal(best.t, t)
      else
        assert(it == nil, "raycast " .. k .. " " .. tostring(ray) .. " hit " .. tostring(it) .. " at t=" .. tostring(t) ..
          (it ~= nil and W:has(it) and (" shape " .. tostring(W:shape(it))) or "") .. " but nothing is there")
      end
    end
    local arr, n = W:pairs()
    local want = RW:pairs()
    assert.equal(#want, n)
    for i, e in ipairs(want) do
      assert(rawequal(arr[2 * i - 1], e.a) and rawequal(arr[2 * i], e.b), "pair " .. i)
    end
  end)
end)

describe("World point and box queries of an unchanged tree", function()
  it("answer alike before and after the grid of the snapshot's leaves is built, and as the reference", function()
    -- a query of a tree version walks the snapshot until that version has served its leaves + 64
    -- queries, then reads a grid of its leaves (world_query.c's pgrid) when the query's cells hold
    -- few leaves: the same points and boxes asked again must give the same items in the same order
    -- (shapes in 17 x 17 clusters of the differential's scenes: touching faces, shared places,
    -- flat boxes; points on the grid; boxes from a point to a point, spheres around one)
    for seed = 1, 3 do
      local R = prng(4200 + seed)
      local g = generators(R)
      local W, RW = collide.World(), ref.world()
      local items, n = {}, os.getenv("COLLIDE_QUICK") == "2" and 120 or 300
      local function off() return 16 * R.int(-8, 8), 16 * R.int(-8, 8) end
      for i = 1, n do
        local sh = g.shape()
        local ox, oz = off()
        sh:translate(ox, 0, oz)
        W:add(i, sh); RW:add(i, ref.fromshape(sh)); items[i] = i
      end
      for version = 1, 3 do
        local pts = {}
        for k = 1, n + 200 do
          local x, y, z = g.point()
          local ox, oz = off()
          pts[k] = { x + ox, y, z + oz }
        end
        local boxes = {}
        for k = 1, n + 200 do
          local x, y, z = g.point()
          local ox, oz = off()
          x, z = x + ox, z + oz
          if R.int(1, 4) == 1 then
            boxes[k] = collide.Sphere(x, y, z, R.int(0, 4) * 0.5)
          else
            local x2, y2, z2 = g.point()
            local w, h, d = math.abs(x2) % 6, math.abs(y2) % 3, math.abs(z2) % 6
            boxes[k] = collide.AABB(x, y, z, x + w, y + h, z + d)
          end
        end
        local firstb = {}
        -- one answer (arr, m) to the query named what: each item once; on the first pass only
        -- items the reference lists, and every item it is certain of, in its order; on later
        -- passes the first pass's list
        local function check(first, k, pass, what, arr, m, want)
          local got, once = {}, {}
          for i = 1, m do
            got[i] = arr[i]
            assert(not once[arr[i]], ("seed %d version %d: %s lists %s twice"):format(seed, version, what,
              tostring(arr[i])))
            once[arr[i]] = true
          end
          if pass > 1 then
            assert.same(first[k], got, ("seed %d version %d pass %d %s"):format(seed, version, pass, what))
            return
          end
          first[k] = got
          local j, can, wl = 1, {}, want()
          for _, e in ipairs(wl) do can[e.item] = true end
          for i = 1, m do
            assert(can[got[i]], ("seed %d version %d: %s is not in %s"):format(seed, version, what, tostring(got[i])))
          end
          for _, e in ipairs(wl) do
            if e.status ~= nil then  -- the reference is certain of it: it must be there, in order
              while got[j] ~= nil and not rawequal(got[j], e.item) do j = j + 1 end
              assert(got[j] ~= nil, ("seed %d version %d: %s misses %s"):format(seed, version, what, tostring(e.item)))
            end
          end
        end
        local first = {}
        for pass = 1, 3 do
          for k, p in ipairs(pts) do
            local arr, m = W:querypoint(p[1], p[2], p[3])
            check(first, k, pass, ("point %s %s %s"):format(p[1], p[2], p[3]), arr, m,
              function() return RW:querypoint(p[1], p[2], p[3]) end)
            local q = boxes[k]
            arr, m = W:query(q)
            check(firstb, k, pass, tostring(q), arr, m, function() return RW:query(ref.fromshape(q)) end)
          end
        end
        for _ = 1, 10 do       -- a new version
          local it = items[R.int(1, n)]
          local sh = W:shape(it)
          sh:translate(R.int(-2, 2), R.int(-1, 1), R.int(-2, 2))
          W:update(it, sh); RW:update(it, ref.fromshape(sh))
        end
      end
    end
  end)
end)
