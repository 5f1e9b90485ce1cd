#!/usr/bin/env bash
# `make test-love`: the spec suite inside real LÖVE 11.4 (headless), then the demo's screenshot
# test, the bump platformer's and the walker's screenshot tests and a short smoke run of the
# playground and stress scenes (and the walker) under Xvfb (skipped with a
# reason when xvfb-run is not installed). Needs build/luajit/collide.so (the Makefile builds it).
# Exit status 0 only when everything that ran passed.
set -u
cd "$(dirname "$0")/../.."
ROOT="$(pwd)"
SO="$ROOT/build/luajit/collide.so"
OUT="$ROOT/build/love"

if ! command -v love >/dev/null 2>&1; then
  echo "test-love: love is not installed (Debian package 'love'); run 'make deps-love'" >&2
  exit 1
fi
if [ ! -f "$SO" ]; then
  echo "test-love: $SO is missing; run 'make build/luajit/collide.so'" >&2
  exit 1
fi

mkdir -p "$OUT"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
# LÖVE wants a runtime dir, and its save directory goes under XDG_DATA_HOME: keep both private.
export XDG_RUNTIME_DIR="$TMP/run" XDG_DATA_HOME="$TMP/data"
mkdir -m 700 -p "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME"

status=0

echo "== spec suite inside LÖVE ($(love --version 2>/dev/null | head -n 1))"
timeout 400 love "$ROOT/spec/love" --root "$ROOT" --so "$SO" || status=1

if ! command -v xvfb-run >/dev/null 2>&1 || ! command -v Xvfb >/dev/null 2>&1; then
  echo "== screenshot test skipped: xvfb-run/Xvfb not installed (Debian packages 'xvfb' 'xauth')"
  exit $status
fi

XVFB=(xvfb-run -a -s "-screen 0 1024x768x24")
echo "== screenshot test: seed 004 scene under Xvfb, ray colours checked in the captured frame"
rm -f "$OUT/seed004.png"
timeout 120 "${XVFB[@]}" love "$ROOT/examples/love" --so "$SO" --scene seed \
  --screenshot "$OUT/seed004.png" --check 2>"$TMP/shot.err" | tee "$TMP/shot.out"
rc=${PIPESTATUS[0]}
grep -v -e '^ALSA' -e '^AL lib' "$TMP/shot.err" >&2
if [ $rc -ne 0 ] || [ ! -s "$OUT/seed004.png" ]; then
  echo "screenshot test FAILED (status $rc)"
  status=1
fi
# The overlay in the screenshot shows real frame times, not "frame 0.0 ms 0 fps".
if ! grep -Eq 'overlay: .* [1-9][0-9]* fps' "$TMP/shot.out" || grep -q 'overlay: .*frame 0\.0 ms' "$TMP/shot.out"; then
  echo "screenshot test FAILED: the overlay shows no frame time or fps"
  status=1
fi

echo "== collide.bump platformer demo: 360 scripted frames under Xvfb, screenshot and bump.lua replay checked"
rm -f "$OUT/bump-platformer.png"
timeout 180 "${XVFB[@]}" love "$ROOT/examples/love-bump" --so "$SO" --screenshot "$OUT/bump-platformer.png" \
  2>"$TMP/bshot.err" | tee "$TMP/bshot.out"
rc=${PIPESTATUS[0]}
grep -v -e '^ALSA' -e '^AL lib' "$TMP/bshot.err" >&2
if [ $rc -ne 0 ] || [ ! -s "$OUT/bump-platformer.png" ] || ! grep -q 'screenshot check: ok' "$TMP/bshot.out"; then
  echo "collide.bump demo screenshot test FAILED (status $rc)"
  status=1
fi

echo "== walker demo: a character on an .obj level, mouse picking, frustum culling (330 scripted frames under Xvfb)"
rm -f "$OUT/walker.png"
timeout 180 "${XVFB[@]}" love "$ROOT/examples/love-walker" --so "$SO" --screenshot "$OUT/walker.png" \
  2>"$TMP/wshot.err" | tee "$TMP/wshot.out"
rc=${PIPESTATUS[0]}
grep -v -e '^ALSA' -e '^AL lib' "$TMP/wshot.err" >&2
if [ $rc -ne 0 ] || [ ! -s "$OUT/walker.png" ] || ! grep -q 'screenshot check: ok' "$TMP/wshot.out"; then
  echo "walker demo screenshot test FAILED (status $rc)"
  status=1
fi
echo "== walker demo smoke: 400 frames of scripted walking and jumping"
timeout 180 "${XVFB[@]}" love "$ROOT/examples/love-walker" --so "$SO" --frames 400 2>"$TMP/wsmoke.err" \
  || { status=1; echo "walker demo smoke FAILED"; }
grep -v -e '^ALSA' -e '^AL lib' "$TMP/wsmoke.err" >&2

echo "== screenshot test: playground, a collide.Character walking up the stairs (75 scripted frames)"
rm -f "$OUT/playground.png"
timeout 120 "${XVFB[@]}" love "$ROOT/examples/love" --so "$SO" --scene playground \
  --screenshot "$OUT/playground.png" --check 2>"$TMP/pshot.err" | tee "$TMP/pshot.out"
rc=${PIPESTATUS[0]}
grep -v -e '^ALSA' -e '^AL lib' "$TMP/pshot.err" >&2
if [ $rc -ne 0 ] || [ ! -s "$OUT/playground.png" ] || ! grep -q 'screenshot check: ok' "$TMP/pshot.out"; then
  echo "playground screenshot test FAILED (status $rc)"
  status=1
fi

for scene in playground stress; do
  echo "== demo smoke: $scene scene, 30 frames with scripted input"
  timeout 120 "${XVFB[@]}" love "$ROOT/examples/love" --so "$SO" --scene $scene --items 2000 \
    --frames 30 2>"$TMP/smoke.err" || { status=1; echo "demo $scene FAILED"; }
  grep -v -e '^ALSA' -e '^AL lib' "$TMP/smoke.err" >&2
done

[ $status -eq 0 ] && echo "test-love: all passed" || echo "test-love: FAILED"
exit $status
