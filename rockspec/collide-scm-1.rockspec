-- LuaRocks build of collide: `luarocks make rockspec/collide-scm-1.rockspec` from the source tree.
-- The C source list must name every file in csrc/core and csrc/bind (checked by `make test-rockspec`).
rockspec_format = "3.0"
package = "collide"
version = "scm-1"
source = {
  url = "git+file:///./",
}
description = {
  summary = "Fast, exact 3D collision detection for Lua with a C core",
  detailed = [[
AABB, OBB, Sphere and Ray queries (raycasts with normals, overlaps, time of impact, closest
points, planes) and a World: a dynamic AABB tree broadphase with queries, raycasts, pairs,
sweeps and bump-style moves. One C module for Lua 5.1-5.4, LuaJIT 2.1 and LÖVE 11.x.]],
  license = "MIT",
  labels = { "collision", "geometry", "gamedev", "love2d" },
}
dependencies = {
  "lua >= 5.1, < 5.6",
}
build = {
  type = "builtin",
  modules = {
    collide = {
      sources = {
        "csrc/core/aabb.c", "csrc/core/bump.c", "csrc/core/capsule.c", "csrc/core/character.c", "csrc/core/kinds.c", "csrc/core/misc.c",
        "csrc/core/obb.c", "csrc/core/penetration.c",
        "csrc/core/sphere.c",
        "csrc/core/sweep.c", "csrc/core/tree.c", "csrc/core/world.c", "csrc/core/world_move.c",
        "csrc/core/world_pairs.c", "csrc/core/world_query.c", "csrc/core/world_resolve.c", "csrc/core/world_tree.c", "csrc/core/tri.c", "csrc/core/mesh.c", "csrc/core/trisweep.c", "csrc/core/meshworld.c",
        "csrc/bind/aabb.c", "csrc/bind/bump.c", "csrc/bind/capsule.c", "csrc/bind/character.c", "csrc/bind/common.c", "csrc/bind/ffi.c", "csrc/bind/ffi_world.c", "csrc/bind/funcs.c",
        "csrc/bind/mesh.c", "csrc/bind/module.c", "csrc/bind/obb.c", "csrc/bind/planes.c", "csrc/bind/polygon.c", "csrc/bind/ray.c", "csrc/bind/sphere.c",
        "csrc/bind/world.c", "csrc/bind/world_items.c", "csrc/bind/world_move.c",
        "csrc/bind/world_query.c", "csrc/bind/world_resolve.c", "csrc/bind/world_results.c",
      },
      incdirs = { "csrc/core", "csrc/bind" },
      libraries = { "m" },
    },
    ["collide.love"] = "lua/collide/love.lua",
    ["collide.bump"] = "lua/collide/bump.lua",
    ["collide.obj"] = "lua/collide/obj.lua",
  },
  copy_directories = { "library", "examples" },
}
