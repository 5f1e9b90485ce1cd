#!/usr/bin/env bash
# `make check`: hardening checks. Each step prints one line "check <name>: ok|FAILED (N s)"; the
# script exits non-zero if any step failed. Steps, each on every Lua configuration of CHECK_LUAS
# (default "lua5.4 luajit luajit-noffi lua5.1": LuaJIT with the FFI fast path on, and off with
# COLLIDE_FFI=0; a configuration whose interpreter or headers are missing is reported and skipped):
#   asan      the busted suite against a build with -fsanitize=address,undefined
#   valgrind  the busted suite under valgrind memcheck on the normal build
#   abuse     random calls of every public function with random arguments (spec/check/abuse.lua),
#             on the sanitizer build
# and once:
#   alloc     a World driven by a Lua 5.4 state whose allocator fails after N allocations, and
#             dropped worlds under a byte cap (csrc/test/alloc_host.c)
#   fuzz      libFuzzer harnesses of the C core, FUZZ_SECONDS each (default 60), from the corpus
# The fuzz harnesses have one mode, strict: every finding fails the step. Triage knob (never set
# in CI): ABUSE_SKIP (see spec/check/abuse.lua).
# COLLIDE_QUICK=1 is set for the suite under the sanitizers (2 under valgrind, see run_valgrind):
# the random loops of the specs then run about a quarter of their cases (the full counts run in
# `make test-lua`); the
# abuse test makes ABUSE_CALLS calls per configuration (default 120,000 on Lua 5.4 and 40,000 on
# the others, whose builds are otherwise the same C).
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
SRC="csrc/core/*.c csrc/bind/*.c"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
CHECK_LUAS=${CHECK_LUAS:-"lua5.4 luajit luajit-noffi lua5.1"}
# VALGRIND_LUAS picks the configurations valgrind runs (default: all of CHECK_LUAS).
VALGRIND_LUAS=${VALGRIND_LUAS:-$CHECK_LUAS}
failed=()

# A configuration's interpreter and pkg-config name (luajit-noffi: luajit with COLLIDE_FFI=0).
interp() { case $1 in luajit-noffi) echo luajit ;; *) echo "$1" ;; esac; }
ffienv() { case $1 in luajit-noffi) echo 0 ;; *) echo 1 ;; esac; }
have() { # configuration: 0 when its interpreter and headers are installed
  local l; l=$(interp "$1")
  command -v "$l" >/dev/null 2>&1 && pkg-config --exists "$l" 2>/dev/null
}

busted_env() { # configuration, cpath, then the command
  local c=$1 cpath=$2; shift 2
  LUA_CPATH="$cpath;;" LUA_PATH="./lua/?.lua;./lua/?/init.lua;./spec/?.lua;;" COLLIDE_QUICK=1 \
    COLLIDE_FFI=$(ffienv "$c") COLLIDE_LUA=$(interp "$c") "$@"
}

ASAN_RT=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

build_asan() { # configuration: build/asan/<interpreter>/collide.so
  local l; l=$(interp "$1")
  [ -f "build/asan/$l/collide.so" ] && [ -z "$(find $SRC csrc/*/*.h -newer "build/asan/$l/collide.so" 2>/dev/null)" ] && return 0
  mkdir -p "build/asan/$l"
  # shellcheck disable=SC2046,SC2086
  clang -std=c99 -O1 -g -fPIC -shared $SAN -Wall -Wextra -pedantic $(pkg-config --cflags "$l") -Icsrc/core \
    -o "build/asan/$l/collide.so" $SRC
}

asan_env() {
  LD_PRELOAD="$ASAN_RT" ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:exitcode=86" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87" "$@"
}

run_asan() { # configuration
  local l; l=$(interp "$1")
  build_asan "$1" || return 1
  busted_env "$1" "./build/asan/$l/?.so" asan_env "$l" /usr/bin/busted --cpath="./build/asan/$l/?.so" spec
}

# The whole suite runs under valgrind, with COLLIDE_QUICK=2: a quarter of the random cases, and
# a sixteenth in the longest pure-Lua reference loops (valgrind runs the interpreter some 40 times
# slower, and those loops repeat the same C paths; ASan runs them at COLLIDE_QUICK=1).
# LuaJIT runs with -Ohotloop=30000 -Omaxside=0 under valgrind: valgrind translates every new
# trace anew, and with LuaJIT's default thresholds spec/08 ran over 4 CPU minutes without ending
# (23 s with these; 108 s with -Ohotloop alone: side traces). The JIT stays on, so the FFI fast
# path is installed and runs (it needs the JIT on at load time), and only the longest loops are
# compiled; the ASan and abuse steps run LuaJIT with its default thresholds. (-Ohotexit=30000
# instead made spec/10 take over 40 s, not 1.) VALGRIND_SPECS names a subset when triaging.
VALGRIND_SPECS=${VALGRIND_SPECS:-spec}
run_valgrind() { # configuration
  local l jit=(); l=$(interp "$1")
  [ "$l" = luajit ] && jit=(-Ohotloop=30000 -Omaxside=0)
  make --no-print-directory "build/$l/collide.so" >/dev/null || return 1
  # shellcheck disable=SC2086
  busted_env "$1" "./build/$l/?.so" env COLLIDE_QUICK=2 valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    "$l" "${jit[@]}" /usr/bin/busted --cpath="./build/$l/?.so" $VALGRIND_SPECS
}

run_abuse() { # configuration
  local l calls; l=$(interp "$1")
  calls=${ABUSE_CALLS:-$([ "$1" = lua5.4 ] && echo 120000 || echo 40000)}
  build_asan "$1" || return 1
  busted_env "$1" "./build/asan/$l/?.so" asan_env "$l" spec/check/abuse.lua "$calls"
}

run_alloc() {
  mkdir -p build/check
  # shellcheck disable=SC2046,SC2086
  clang -std=c99 -O1 -g $SAN -Wall -Wextra $(pkg-config --cflags lua5.4) -Icsrc/core -Icsrc/bind \
    -o build/check/alloc_host csrc/test/alloc_host.c $SRC $(pkg-config --libs lua5.4) -lm || return 1
  ASAN_OPTIONS="detect_leaks=1" ./build/check/alloc_host
}

build_fuzz() { # harness name: build/fuzz/<name>
  mkdir -p build/fuzz
  clang -std=c99 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Icsrc/core -o "build/fuzz/$1" "csrc/fuzz/$1.c" csrc/core/*.c
}

run_fuzz() { # harness name
  local name=$1
  rm -rf "build/fuzz/$name.work"; mkdir -p "build/fuzz/$name.work"
  if ! "build/fuzz/$name" -max_total_time="$FUZZ_SECONDS" -print_final_stats=0 \
      -artifact_prefix="build/fuzz/$name." "build/fuzz/$name.work" "csrc/fuzz/corpus/$name" \
      >"build/fuzz/$name.log" 2>&1; then
    tail -40 "build/fuzz/$name.log"; return 1
  fi
  echo "fuzz $name: $(grep -c . "build/fuzz/$name.log") log lines, $(ls "build/fuzz/$name.work" | wc -l) new inputs"
}

# The steps run CHECK_JOBS at a time (default: the machine's cores, at most 4), in the order
# valgrind, asan, abuse (each in the order of its configurations), fuzz, alloc;
# each step's output is kept in build/check/log/<step>.log and printed whole when it ends, so the
# log reads as if they had run one by one. Everything a step builds is built before any runs.
CHECK_JOBS=${CHECK_JOBS:-$(n=$(nproc 2>/dev/null || echo 1); [ "$n" -gt 4 ] && n=4; echo "$n")}
jobs_list=() # "step configuration function argument" in the order they start
# CHECK_ONLY="abuse fuzz" runs only the named steps (default: all).
wanted() { case " ${CHECK_ONLY:-$1} " in *" $1 "*) return 0 ;; esac; return 1; }
add_job() { jobs_list+=("$*"); }
for s in valgrind asan abuse; do
  wanted "$s" || continue
  luas=$CHECK_LUAS
  [ "$s" = valgrind ] && luas=$VALGRIND_LUAS
  for c in $luas; do
    if have "$c"; then add_job "$s $c" "run_$s" "$c"
    else echo "check $s $c: skipped ($(interp "$c") or its headers are not installed)"; fi
  done
done
if wanted fuzz; then
  for h in csrc/fuzz/fuzz_*.c; do add_job "fuzz $(basename "$h" .c)" run_fuzz "$(basename "$h" .c)"; done
fi
wanted alloc && add_job "alloc -" run_alloc -

# Builds first, one at a time (two configurations share one sanitizer build).
prebuild() {
  local j name fn c
  for j in "${jobs_list[@]}"; do
    read -r name c2 fn c <<<"$j"
    case $fn in
      run_asan|run_abuse) build_asan "$c" || return 1 ;;
      run_valgrind) make --no-print-directory "build/$(interp "$c")/collide.so" >/dev/null || return 1 ;;
      run_fuzz) build_fuzz "$c" || return 1 ;;
    esac
  done
}
mkdir -p build/check/log
if ! prebuild; then echo "make check: FAILED: a build"; exit 1; fi

declare -A started=()
running=0
finish_one() { # waits for any job, prints the first finished one's log and status
  wait -n 2>/dev/null || true
  local j name
  for j in "${!started[@]}"; do
    name=$j
    [ -f "build/check/log/$name.rc" ] || continue
    local rc t; rc=$(cut -d' ' -f1 "build/check/log/$name.rc"); t=$(cut -d' ' -f2 "build/check/log/$name.rc")
    echo "== check $name"
    cat "build/check/log/$name.log"
    if [ "$rc" = 0 ]; then echo "check $name: ok ($t s)"; else echo "check $name: FAILED ($t s)"; failed+=("$name"); fi
    unset "started[$j]"
    running=$((running - 1))
  done
}
for j in "${jobs_list[@]}"; do
  read -r s c fn arg <<<"$j"
  name="$s $c"; [ "$c" = - ] && name=$s
  while [ "$running" -ge "$CHECK_JOBS" ]; do finish_one; done
  rm -f "build/check/log/$name.rc"
  ( t0=$SECONDS; "$fn" "$arg" >"build/check/log/$name.log" 2>&1; rc=$?
    echo "$rc $((SECONDS - t0))" >"build/check/log/$name.rc.tmp"; mv "build/check/log/$name.rc.tmp" "build/check/log/$name.rc" ) &
  started[$name]=1
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do finish_one; done

if [ ${#failed[@]} -gt 0 ]; then
  echo "make check: FAILED: ${failed[*]}"
  exit 1
fi
echo "make check: all passed"
