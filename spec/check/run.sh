#!/usr/bin/env bash
# `make check`: hardening checks. Each step prints one line "check <name>: ok|FAILED"; the script
# exits non-zero if any step failed. Steps:
#   asan      the busted suite on Lua 5.4 against a build with -fsanitize=address,undefined
#   valgrind  the busted suite under valgrind memcheck on the normal Lua 5.4 build
#   abuse     random calls of every public function with random arguments (spec/check/abuse.lua),
#             on the sanitizer build
#   alloc     a World driven by a Lua state whose allocator fails after N allocations
#   fuzz      libFuzzer harnesses of the C core, FUZZ_SECONDS each (default 60), from the corpus
# The fuzz harnesses have one mode, strict: every finding fails the step. Triage knob (never set
# in CI): ABUSE_SKIP (see spec/check/abuse.lua).
# COLLIDE_QUICK=1 is set for the suite under the sanitizers and valgrind: the differential specs
# then run fewer random cases (the full counts run in `make test-lua`).
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
LUAINC=$(pkg-config --cflags lua5.4)
SRC="csrc/core/*.c csrc/bind/*.c"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
failed=()
step() { # name, command...
  local name=$1; shift
  echo "== check $name"
  local t0=$SECONDS
  if "$@"; then echo "check $name: ok ($((SECONDS - t0)) s)"; else echo "check $name: FAILED ($((SECONDS - t0)) s)"; failed+=("$name"); fi
}
busted_env() { # cpath, then the command
  local cpath=$1; shift
  LUA_CPATH="$cpath;;" LUA_PATH="./lua/?.lua;./lua/?/init.lua;./spec/?.lua;;" COLLIDE_QUICK=1 "$@"
}

ASAN_RT=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

build_asan() {
  mkdir -p build/asan
  # shellcheck disable=SC2086
  clang -std=c99 -O1 -g -fPIC -shared $SAN -Wall -Wextra -pedantic $LUAINC -Icsrc/core \
    -o build/asan/collide.so $SRC
}

asan_env() {
  LD_PRELOAD="$ASAN_RT" ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:exitcode=86" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=87" "$@"
}

run_asan() {
  build_asan || return 1
  busted_env ./build/asan/?.so asan_env lua5.4 /usr/bin/busted --cpath=./build/asan/?.so spec
}

# The whole suite runs under valgrind; COLLIDE_QUICK=1 (busted_env) cuts the two differential
# specs to a tenth of their random cases, which keeps this step to a few minutes on 2 cores.
# VALGRIND_SPECS names a subset when triaging.
VALGRIND_SPECS=${VALGRIND_SPECS:-spec}
run_valgrind() {
  make --no-print-directory build/lua5.4/collide.so >/dev/null || return 1
  # shellcheck disable=SC2086
  busted_env ./build/lua5.4/?.so valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    lua5.4 /usr/bin/busted --cpath=./build/lua5.4/?.so $VALGRIND_SPECS
}

run_abuse() {
  [ -f build/asan/collide.so ] || build_asan || return 1
  busted_env ./build/asan/?.so asan_env lua5.4 spec/check/abuse.lua
}

run_alloc() {
  mkdir -p build/check
  # shellcheck disable=SC2086
  clang -std=c99 -O1 -g $SAN -Wall -Wextra $LUAINC -Icsrc/core -Icsrc/bind \
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
  case " ${CHECK_ONLY:-$s} " in *" $s "*) step "$s" "run_$s" ;; esac
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "make check: FAILED: ${failed[*]}"
  exit 1
fi
echo "make check: all passed"
