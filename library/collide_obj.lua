---@meta collide.obj
-- Lua Language Server definitions for collide.obj (require "collide.obj"): a pure-Lua reader of
-- Wavefront .obj geometry for collide.Mesh. Not loaded at run time. See the README, "Reading .obj files".

---@class collide.obj
local obj = {}

---Reads .obj text: `v` lines (x y z; a w or a colour is ignored) and `f` lines (v, v/vt, v//vn or
---v/vt/vn, positive or negative; polygons fanned into triangles); other statements are skipped.
---Raises "name:line: reason" for a malformed line.
---@param text string
---@param name? string used in error messages, default "obj"
---@return number[] vertices flat {x1,y1,z1, ...}
---@return integer[] indices flat 1-based, three per triangle
---@return integer n the number of triangles
function obj.parse(text, name) end

---obj.parse of a file's contents, named by the file in errors.
---@param filename string
---@return number[] vertices
---@return integer[] indices
---@return integer n
function obj.load(filename) end

return obj
