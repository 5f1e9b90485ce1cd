#!/bin/sh
# bench/ab.sh: old build against new build, timed: runs bench/world.lua (and bench/shapes.lua if
# AB_PARTS says so) with each build's collide.so in turn, AB_K times (default 3) alternating
# old, new, old, new..., so both see the same machine load over the run; then prints, for every
# row of every table, the median over the rounds of new / old for each number (lower is faster
# for times; a ratio above 1.10 in a time column is a row more than 10% slower).
# Usage: bench/ab.sh OLD_SO_DIR NEW_SO_DIR [lua]   e.g. /tmp/old/build/lua5.4 build/lua5.4
# Each SO_DIR must also hold bench_empty.so (bench/run.sh builds it next to collide.so).
set -e
cd "$(dirname "$0")/.."
OLD=$1 NEW=$2 LUA=${3:-lua5.4}
K=${AB_K:-3}
PARTS=${AB_PARTS:-world}
OUT=build/ab
mkdir -p "$OUT"
for d in "$OLD" "$NEW"; do
  [ -f "$d/bench_empty.so" ] || cc -std=c99 -O2 -fPIC -shared $(pkg-config --cflags "$LUA") -o "$d/bench_empty.so" bench/empty.c
done
for part in $PARTS; do
  r=1
  while [ $r -le "$K" ]; do
    for b in old new; do
      d=$OLD; [ $b = new ] && d=$NEW
      echo "== $part $LUA $b round $r" >&2
      LUA_CPATH="$d/?.so" LUA_PATH="./bench/?.lua;./lua/?.lua;;" "$LUA" "bench/$part.lua" "$OUT/$part-$LUA-$b-$r.md" >/dev/null
    done
    r=$((r + 1))
  done
  "$LUA" - "$OUT" "$part" "$LUA" "$K" <<'LUAEOF'
local dir, part, lua, K = arg[1], arg[2], arg[3], tonumber(arg[4])
local function rows(path)            -- key -> list of numbers, keys in order
  local t, order, head = {}, {}, ""
  for line in io.lines(path) do
    if line:match("^|") then
      local cells = {}
      for c in line:gmatch("|([^|]*)") do cells[#cells + 1] = c:match("^%s*(.-)%s*$") end
      if cells[2] and cells[2]:match("^%-%-%-") then
      elseif #order == 0 or not t[head .. "\0" .. cells[1]] then
        local nums, isnum = {}, false
        for i = 2, #cells do
          local v = tonumber((cells[i]:gsub("^~", ""):match("^[%d%.]+")))
          nums[i - 1] = v or false
          if v then isnum = true end
        end
        if isnum then
          local k = head .. "\0" .. cells[1]
          t[k] = nums; order[#order + 1] = k
        else
          head = cells[1] .. "|" .. (cells[2] or "")
        end
      end
    else
      head = line:match("^#+ (.*)") and line or head
    end
  end
  return t, order
end
local function median(l) table.sort(l); local n = #l; return n % 2 == 1 and l[(n + 1) / 2] or (l[n / 2] + l[n / 2 + 1]) / 2 end
local old, new, order = {}, {}, nil
for r = 1, K do
  local o, ord = rows(dir .. "/" .. part .. "-" .. lua .. "-old-" .. r .. ".md")
  old[r] = o; order = order or ord
  new[r] = (rows(dir .. "/" .. part .. "-" .. lua .. "-new-" .. r .. ".md"))
end
print(("| %s on %s: row (table header, row) | new / old per number column (median of %d rounds) |"):format(part, lua, K))
print("|---|---|")
for _, k in ipairs(order) do
  local cols, ratios = #old[1][k], {}
  for c = 1, cols do
    local l = {}
    for r = 1, K do
      local a, b = old[r][k] and old[r][k][c], new[r][k] and new[r][k][c]
      if a and b and a > 0 then l[#l + 1] = b / a end
    end
    ratios[c] = #l > 0 and ("%.2f"):format(median(l)) or "-"
  end
  local h, label = k:match("^(.-)%z(.*)$")
  print(("| %s / %s | %s |"):format(h:gsub("|", " "):sub(1, 50), label, table.concat(ratios, " ")))
end
LUAEOF
done
