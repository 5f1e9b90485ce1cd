-- bench/bump.lua: collide.bump against bump.lua 3.1.7 on the scenes of spec/support/bumpscenes.lua
-- (platformer, crowd, bullets, query map), in one run: time per frame (os.clock, median over
-- rounds, the two libraries interleaved round by round) and garbage per frame (collector stopped
-- while a round runs). Writes a markdown table to the file named by arg[1] (or stdout).
-- Needs ../shared/peers/bump.lua/bump.lua (skipped with a note otherwise).
package.path = "./spec/?.lua;" .. package.path
local scenes = require "support.bumpscenes"
local cbump = require "collide.bump"
local lib = require "lib"
local out = arg[1] and assert(io.open(arg[1], "w")) or io.stdout
local version = jit and jit.version or _VERSION

local path = "../shared/peers/bump.lua/bump.lua"
local f = io.open(path, "r")
if not f then
  out:write(("#### collide.bump vs bump.lua (%s)\n\nskipped: %s is absent\n"):format(version, path))
  return
end
f:close()
local rbump = dofile(path)

local ROUNDS = tonumber(os.getenv("BENCH_ROUNDS") or "9")
local FRAMES = tonumber(os.getenv("BENCH_BUMP_FRAMES") or "60")
-- the bench's scene sizes: larger than the differential spec's
local OPTS = {
  platformer = { players = 40, coins = 40, width = 100, height = 40 },
  crowd = { agents = 300, blocks = 60, size = 1600 },
  bullets = { enemies = 100, walls = 40, spawn = 8, lasers = 6, size = 1600 },
  querymap = { tiles = 120, queries = 40 },
}

-- Returns the scene on the module, warmed up by a few frames.
local function make(mod, name)
  local o = { seed = 7, cellSize = 64 }
  for k, v in pairs(OPTS[name]) do o[k] = v end
  local s = scenes[name](mod, o)
  for _ = 1, 20 do s:frame() end
  return s
end

local function round(s) return lib.frameround(s, FRAMES) end
local median = lib.median

out:write(("#### collide.bump vs bump.lua 3.1.7 (%s): per frame, cell size 64\n\n"):format(version))
out:write("| scene | bump.lua us | collide.bump us | speed-up | bump.lua KB | collide.bump KB | garbage ratio |\n")
out:write("|---|---:|---:|---:|---:|---:|---:|\n")
for _, name in ipairs(scenes.names) do
  local sr, sc = make(rbump, name), make(cbump, name)
  local tr, tc, gr, gc, ratio = {}, {}, {}, {}, {}
  for i = 1, ROUNDS do
    local a, ga = round(sr)
    local b, gb = round(sc)
    tr[i], tc[i], gr[i], gc[i], ratio[i] = a, b, ga, gb, a / b
  end
  local mr, mc, mgr, mgc = median(tr), median(tc), median(gr), median(gc)
  out:write(("| %s | %.1f | %.1f | %.1fx | %.1f | %.1f | %.2f |\n"):format(name, mr * 1e6, mc * 1e6, median(ratio),
    mgr, mgc, mgc / mgr))
end
out:write("\n")
