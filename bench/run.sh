#!/bin/sh
# bench/run.sh: `make bench` (after `make build`). Builds bench_empty.so next to collide.so for
# lua5.4 and luajit, runs bench/shapes.lua (issue 2) and bench/world.lua (issue 3) on both, and
# writes bench/RESULTS.md: machine, versions, date, then every table of this run. Anything
# below the KEEP marker line of an existing bench/RESULTS.md (hand-written analysis) is kept.
# The world part also builds build/bench-world (csrc/test/bench_world.c: the same scenes driven
# from C, no Lua) and puts its "C core" tables next to the Lua ones, with the raycast verdict
# that compares C (< 3 us) and Lua minus C (<= one empty call).
# Environment: BENCH_ROUNDS (runs per median, >= 7, default 9), BENCH_SAMPLE (seconds per run),
# BENCH_FRAMES (consecutive game-loop frames per round in the moving-boxes pairs tables, default
# 100), BENCH_LUAS (default "lua5.4 luajit"), BENCH_PARTS (default "shapes world frames bump"; bump = bench/bump.lua,
# collide.bump against ../shared/peers/bump.lua in the same run; bumpfloor = bench/bumpfloor.lua, what any
# implementation of bump's API must pay on those scenes (a replay world), beside both; ffiworld = bench/ffiworld.lua, world:move, query,
# querypoint and raycast against bump.lua doing the same work, with the classic C methods beside them).
# The frames part (issue 14) builds build/bench-frames (csrc/test/bench_frames.c: collide's core
# and Box2D v3's dynamic tree side by side; Box2D's sources are compiled from
# ../shared/peers/box2d-v3 when that folder exists, else its columns are skipped with a note)
# and runs bench/frames.lua (1,000-frame loop, bulk adds, memory, raycastall garbage) on each Lua;
# BENCH_FRAMES_N (default 1000) frames, BENCH_FRAMES_PASSES (default 5) passes of them for the
# noise-filtered rows (each frame's least time), BENCH_BIG=0 skips the 1,000,000-item rows in Lua.
# The mesh part (issue 16) builds build/bench-mesh (csrc/test/bench_mesh.c: build time, bytes per
# triangle, rays per second in C) and build/<lua>/bench_meshc.so (bench/meshc.c: bench/mesh.lua's
# rays cast from C in the Lua process, interleaved, for its Lua-minus-C verdict), runs
# bench/mesh.lua on each Lua (raycast, frustum culling of bench/frustum.lua, the capsule walk of
# bench/walk.lua) and bench/frustum.lua inside LÖVE (bench/love, headless).
set -e
cd "$(dirname "$0")/.."

LUAS=${BENCH_LUAS:-"lua5.4 luajit"}
PARTS=${BENCH_PARTS:-"shapes world frames bump bumpfloor mesh ffiworld"}
BOX2D=../shared/peers/box2d-v3
CC=${CC:-cc}
OUT=build/bench
RESULTS=bench/RESULTS.md
MARK='<!-- KEEP: everything below this line is hand-written and kept by bench/run.sh -->'
mkdir -p "$OUT"

for v in $LUAS; do
  mkdir -p "build/$v"
  # the empty-call floor, built like collide.so (same -O2 -fPIC -shared, same Lua headers)
  $CC -std=c99 -O2 -fPIC -shared -Wall -Wextra -pedantic $(pkg-config --cflags "$v") \
      -o "build/$v/bench_empty.so" bench/empty.c
  # bench/mesh.lua's in-process C side (the same rays cast from C, interleaved with the Lua calls)
  case " $PARTS " in *" mesh "*)
    $CC -std=c99 -O2 -fPIC -shared -Wall -Wextra -pedantic $(pkg-config --cflags "$v") -Icsrc/core \
        -o "build/$v/bench_meshc.so" bench/meshc.c $(ls csrc/core/[a-z]*.c) -lm ;;
  esac
  [ -f "build/$v/collide.so" ] || make --no-print-directory "build/$v/collide.so"
done

for part in $PARTS; do
  if [ "$part" = mesh ]; then
    echo "== build/bench-mesh (C core: mesh build, memory, raycasts)"
    rm -f "$OUT/mesh-c.md"
    if ! $CC -std=c99 -O2 -Wall -Wextra -pedantic -Icsrc/core -o build/bench-mesh \
           csrc/test/bench_mesh.c $(ls csrc/core/[a-z]*.c) -lm ||
       ! ./build/bench-mesh "$OUT/mesh-c.md" "$OUT/mesh-camera.ns" >"$OUT/mesh-c.out" 2>"$OUT/mesh-c.err"; then
      cat "$OUT/mesh-c.err" >&2
      { echo; echo "**build/bench-mesh failed:**"; echo; sed 's/^/    /' "$OUT/mesh-c.err"; echo; } >>"$OUT/mesh-c.md"
    fi
    # bench/mesh.lua compares its camera rays from Lua with the same rays from C
    export BENCH_MESH_CNS="$OUT/mesh-camera.ns"
    # frustum culling inside LÖVE (headless: bench/love/conf.lua turns window and graphics off)
    rm -f "$OUT/mesh-love.md"
    if command -v love >/dev/null 2>&1 && [ -f build/luajit/collide.so ]; then
      echo "== bench/love (frustum culling inside LÖVE)"
      ltmp=$(mktemp -d)
      if ! XDG_RUNTIME_DIR="$ltmp" XDG_DATA_HOME="$ltmp" timeout 300 love bench/love --root "$(pwd)" \
             --so "$(pwd)/build/luajit/collide.so" --out "$OUT/mesh-love.md" >"$OUT/mesh-love.out" 2>"$OUT/mesh-love.err"; then
        { echo; echo "**bench/love failed:**"; echo; sed 's/^/    /' "$OUT/mesh-love.out" "$OUT/mesh-love.err"; echo; } >>"$OUT/mesh-love.md"
      fi
      rm -rf "$ltmp"
    else
      echo "(LÖVE not installed or build/luajit/collide.so missing: the LÖVE frustum table is skipped)" >"$OUT/mesh-love.md"
    fi
  fi
  if [ "$part" = world ]; then
    echo "== build/bench-world (C core, the scenes of bench/world.lua)"
    rm -f "$OUT/core.md"
    if ! $CC -std=c99 -O2 -Wall -Wextra -pedantic -Icsrc/core -o build/bench-world \
           csrc/test/bench_world.c $(ls csrc/core/[a-z]*.c) -lm ||
       ! ./build/bench-world "$OUT/core.md" >"$OUT/core.out" 2>"$OUT/core.err"; then
      cat "$OUT/core.err" >&2
      { echo; echo "**build/bench-world failed:**"; echo; sed 's/^/    /' "$OUT/core.err"; echo; } >>"$OUT/core.md"
    fi
  fi
  if [ "$part" = frames ]; then
    echo "== build/bench-frames (C: collide's core and Box2D v3's tree side by side)"
    rm -f "$OUT/frames-c.md"
    b2flags="" b2objs=""
    if [ -f "$BOX2D/src/dynamic_tree.c" ]; then
      mkdir -p build/box2d
      for f in dynamic_tree aabb core math_functions table bitset; do
        $CC -std=c17 -O2 -DNDEBUG -I"$BOX2D/include" -I"$BOX2D/src" -c "$BOX2D/src/$f.c" -o "build/box2d/$f.o"
        b2objs="$b2objs build/box2d/$f.o"
      done
      b2flags="-DHAVE_BOX2D -I$BOX2D/include"
    else
      echo "   $BOX2D not found: Box2D columns skipped"
    fi
    if ! $CC -std=c17 -O2 -Wall -Wextra $b2flags -Icsrc/core -o build/bench-frames \
           csrc/test/bench_frames.c $(ls csrc/core/[a-z]*.c) $b2objs -lm ||
       ! ./build/bench-frames "$OUT/frames-c.md" >"$OUT/frames-c.out" 2>"$OUT/frames-c.err"; then
      cat "$OUT/frames-c.err" >&2
      { echo; echo "**build/bench-frames failed:**"; echo; sed 's/^/    /' "$OUT/frames-c.err"; echo; } >>"$OUT/frames-c.md"
    fi
  fi
  for v in $LUAS; do
    echo "== bench/$part.lua on $v"
    if ! LUA_CPATH="./build/$v/?.so" LUA_PATH="./bench/?.lua;./lua/?.lua;;" \
         "$v" "bench/$part.lua" "$OUT/$part-$v.md" 2>"$OUT/$part-$v.err"; then
      cat "$OUT/$part-$v.err" >&2
      { echo; echo "**bench/$part.lua failed on $v:**"; echo; sed 's/^/    /' "$OUT/$part-$v.err"; echo; } >>"$OUT/$part-$v.md"
    fi
  done
done

tail=""
if [ -f "$RESULTS" ] && grep -qF "$MARK" "$RESULTS"; then
  tail=$(sed -n "/^$(printf '%s' "$MARK" | sed 's/[][\.*^$/]/\\&/g')\$/,\$p" "$RESULTS" | sed 1d)
fi

{
  echo "# collide benchmark results"
  echo
  echo "Generated by \`make bench\` (bench/run.sh); every table below comes from one run."
  echo
  echo "- machine: $(lscpu | grep 'Model name' | sed 's/.*: *//'), $(nproc) CPUs, $(uname -sr)"
  for v in $LUAS; do echo "- $v: $($v -v 2>&1 | head -1)"; done
  echo "- compiler: $($CC --version | head -1); collide.so built by the Makefile (-O2), bench_empty.so with -O2"
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); collide commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git status --porcelain -- csrc 2>/dev/null | grep -q . && echo ' + uncommitted csrc changes')"
  echo "- method: os.clock (CPU time); each number is the MEDIAN of ${BENCH_ROUNDS:-9} runs of about ${BENCH_SAMPLE:-0.015} s (world: longer);"
  echo "  variants are interleaved round by round and every ratio is the median of per-round ratios;"
  echo "  inputs come from a fixed-seed PRNG (bench/lib.lua), so runs are comparable. \`spread\` = (max - min) / median over the runs."
  echo "  Exception: the moving-boxes pairs tables (world) time each piece of a steady game loop (every frame moves"
  echo "  every box, tells the world, calls pairs), summed over ${BENCH_FRAMES:-100} consecutive frames per round; medians of the per-round means."
  echo
  for part in $PARTS; do
    case $part in
      shapes) echo "## Issue 2: single queries" ;;
      world) echo "## Issue 3: World" ;;
      bump) echo "## Issue 15: collide.bump against bump.lua 3.1.7 (scenes of spec/support/bumpscenes.lua)" ;;
      bumpfloor) echo "## Issue 15: the floor of bump's API on the same scenes (a replay world: bench/bumpfloor.lua)" ;;
      frames) echo "## Issue 14: frame spikes, bulk adds, memory (collide beside Box2D v3's dynamic tree)" ;;
      mesh) echo "## Issue 16: meshes and frustum culling" ;;
      ffiworld) echo "## Issue 14: World calls against bump.lua 3.1.7 (LuaJIT: the FFI World fast path)" ;;
      *) echo "## $part" ;;
    esac
    echo
    if [ "$part" = mesh ] && [ -f "$OUT/mesh-c.md" ]; then
      echo "### C (build/bench-mesh, CPU time of the process)"
      echo
      cat "$OUT/mesh-c.md"
      echo
    fi
    if [ "$part" = frames ] && [ -f "$OUT/frames-c.md" ]; then
      echo "### C (build/bench-frames)"
      echo
      cat "$OUT/frames-c.md"
    fi
    for v in $LUAS; do [ -f "$OUT/$part-$v.md" ] && cat "$OUT/$part-$v.md"; echo; done
    if [ "$part" = mesh ] && [ -f "$OUT/mesh-love.md" ]; then cat "$OUT/mesh-love.md"; echo; fi
    if [ "$part" = world ] && [ -f "$OUT/core.md" ]; then
      echo "### C core (build/bench-world, the same scenes without Lua)"
      echo
      cat "$OUT/core.md"
      # raycast verdict: the C query alone (< 3 us), and what Lua adds on top of it (<= one
      # empty C call with the same arguments), from the unbounded rows of this run
      c=$(awk -F'|' '$2 ~ /^ *unbounded *$/ { gsub(/ /, "", $3); print $3; exit }' "$OUT/core.md")
      echo "#### Raycast verdict (unbounded rays, C core and each Lua of this run)"
      echo
      if [ -n "$c" ]; then
        echo "- C core: $c us per ray: target < 3 us $(awk -v c="$c" 'BEGIN { print (c < 3) ? "met" : "MISSED" }')."
        for v in $LUAS; do
          [ -f "$OUT/world-$v.md" ] || continue
          awk -F'|' -v c="$c" -v v="$v" '$2 ~ /^ *unbounded *$/ {
              gsub(/ /, "", $3); gsub(/ /, "", $4); lua = $3 + 0; e = $4 + 0;
              d = (lua - c) * 1000; s3 = $3; s4 = $4;
              printf "- %s: %s us per ray, %.0f ns more than the C core; one empty call with the same arguments: %s ns: %s.\n",
                     v, s3, d, s4, (d <= e) ? "met" : "MISSED (or noise: the runs are not interleaved)"; exit }' "$OUT/world-$v.md"
        done
      else
        echo "- C core: no number (see above)."
      fi
      echo
    fi
  done
  echo "$MARK"
  if [ -n "$tail" ]; then printf '%s\n' "$tail"; fi
} >"$RESULTS.tmp"
mv "$RESULTS.tmp" "$RESULTS"
echo "wrote $RESULTS"
