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
# COLLIDE_QUICK=1 is set for the suite under the sanitizers and valgrind: the random loops of the
# specs then run about a quarter of their cases (the full counts run in `make test-lua`); the
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
step() { # name, command...
  local name=$1; shift
  echo "== check $name"
  local t0=$SECONDS
  if "$@"; then echo "check $name: ok ($((SECONDS - t0)) s)"; else echo "check $name: FAILED ($((SECONDS - t0)) s)"; failed+=("$name"); fi
}

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

# The whole suite runs under valgrind (COLLIDE_QUICK=1: a quarter of the random cases).
# VALGRIND_SPECS names a subset when triaging.
VALGRIND_SPECS=${VALGRIND_SPECS:-spec}
run_valgrind() { # configuration
  local l; l=$(interp "$1")
  make --no-print-directory "build/$l/collide.so" >/dev/null || return 1
  # shellcheck disable=SC2086
  busted_env "$1" "./build/$l/?.so" valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    "$l" /usr/bin/busted --cpath="./build/$l/?.so" $VALGRIND_SPECS
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

run_fuzz() {
  local h ok=0
  mkdir -p build/fuzz
  for h in csrc/fuzz/fuzz_*.c; do
    local name; name=$(basename "$h" .c)
    # shellcheck disable=SC2086
    clang -std=c99 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
      -Icsrc/core -o "build/fuzz/$name" "$h" csrc/core/*.c || { ok=1; continue; }
    mkdir -p "build/fuzz/$name.work"
    "build/fuzz/$name" -max_total_time="$FUZZ_SECONDS" -print_final_stats=0 \
      -artifact_prefix="build/fuzz/$name." "build/fuzz/$name.work" "csrc/fuzz/corpus/$name" \
      >"build/fuzz/$name.log" 2>&1 || { ok=1; tail -40 "build/fuzz/$name.log"; }
    echo "fuzz $name: $(grep -c . "build/fuzz/$name.log") log lines, $(ls "build/fuzz/$name.work" | wc -l) new inputs"
  done
  return $ok
}

# CHECK_ONLY="abuse fuzz" runs only the named steps (default: all).
for s in asan valgrind abuse alloc fuzz; do
  case " ${CHECK_ONLY:-$s} " in *" $s "*) ;; *) continue ;; esac
  case $s in
    asan|valgrind|abuse)
      luas=$CHECK_LUAS
      [ "$s" = valgrind ] && luas=$VALGRIND_LUAS
      for c in $luas; do
        if have "$c"; then step "$s $c" "run_$s" "$c"
        else echo "check $s $c: skipped ($(interp "$c") or its headers are not installed)"; fi
      done ;;
    *) step "$s" "run_$s" ;;
  esac
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "make check: FAILED: ${failed[*]}"
  exit 1
fi
echo "make check: all passed"
