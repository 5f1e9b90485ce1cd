#!/bin/sh
# bench/count.sh: instructions per World method call (callgrind) of two builds of collide.so, for
# comparisons that timing on a busy machine cannot settle. For each OP of bench/count.lua and each
# build, runs the workload with N operations and with 0 under callgrind, collecting only inside
# the method's C function (--toggle-collect: the binding, the core and the Lua API it calls; the
# interpreter's own call overhead is the same for both builds), and prints (Ir(N) - Ir(0)) / N,
# then new / old. The method's C function is named w_<op> or lw_<op> (before and after the split).
# Usage: bench/count.sh OLD_SO_DIR NEW_SO_DIR [lua]   e.g. /tmp/old/build/lua5.4 build/lua5.4
# Environment: COUNT_OPS (default: every op), COUNT_N (default 400; pairs uses COUNT_N / 100 frames).
set -e
cd "$(dirname "$0")/.."
OLD=$1 NEW=$2 LUA=${3:-lua5.4}
OPS=${COUNT_OPS:-"raycast raycastf query querypoint sweep pairs update translate move check"}
N0=${COUNT_N:-400}
ir() {  # ir SODIR OP N: instructions inside the method's C function over one run
  m=$2; [ "$m" = raycastf ] && m=raycast
  LUA_CPATH="$1/?.so" LUA_PATH="./bench/?.lua;./lua/?.lua;;" \
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
      --toggle-collect="w_$m" --toggle-collect="lw_$m" "$LUA" bench/count.lua "$2" "$3" 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
printf '| op (%s) | old Ir/call | new Ir/call | new / old |\n|---|---:|---:|---:|\n' "$LUA"
for op in $OPS; do
  n=$N0
  [ "$op" = pairs ] && n=$((N0 / 100 > 0 ? N0 / 100 : 1))
  o=$(( ($(ir "$OLD" "$op" "$n") - $(ir "$OLD" "$op" 0)) / n ))
  w=$(( ($(ir "$NEW" "$op" "$n") - $(ir "$NEW" "$op" 0)) / n ))
  printf '| %s | %d | %d | %s |\n' "$op" "$o" "$w" "$(awk -v a="$w" -v b="$o" 'BEGIN { printf "%.3f", a / b }')"
done
