---@meta collide
-- Lua Language Server definitions for collide (require "collide"), the C module collide.so.
-- Not loaded at run time: editors read it for completion and type hints. Add this folder to
-- "Lua.workspace.library" (see the README). Checked against the real module by
-- spec/12-annotations_spec.lua: every public function and method has an annotated entry here.

---A shape that AABB, OBB, Sphere and Capsule queries accept.
---@alias collide.Shape collide.AABB|collide.OBB|collide.Sphere|collide.Capsule

---Result of collide.toi.
---@alias collide.ToiState "overlapped"|"touching"|"separated"

---Response a move filter returns for an item; false or nil ignores the item.
---@alias collide.Response "slide"|"touch"|"cross"|"bounce"|false|nil

---The collide module.
---@class collide
---@field _VERSION string the module version, e.g. "0.1.0"
---@field _ffi boolean true when the LuaJIT FFI fast path is installed (LuaJIT with the ffi library and the JIT on, and COLLIDE_FFI not "0" at load time)
---@field _classic table|nil with _ffi, the classic C functions the fast path replaced (AABB.contains, ..., toi, ..., World.move, Character.move, ...), for testing
local collide = {}

---Axis-aligned box; min <= max on every axis (flat boxes allowed).
---@class collide.AABB
local AABB = {}

---Ray origin + t * direction, t >= 0; the direction is stored normalised, so t is a distance.
---@class collide.Ray
local Ray = {}

---Oriented box: centre, half sizes and three orthonormal axes.
---@class collide.OBB
local OBB = {}

---Sphere: centre and radius >= 0.
---@class collide.Sphere
local Sphere = {}

---Capsule: the segment from a to b rounded by a radius >= 0 (a == b is a sphere; radius 0 a bare
---segment, whose interior is empty).
---@class collide.Capsule
local Capsule = {}

---2D polygon (at least 3 vertices, finite coordinates) copied once from a flat array; immutable.
---@class collide.Polygon
local Polygon = {}

---Static triangle mesh with its own bounding volume hierarchy (binned SAH), built once; immutable.
---Triangles are numbered from 1; degenerate ones (zero area) are kept but never hit.
---@class collide.Mesh
local Mesh = {}

---A set of items (any Lua value but nil and NaN), each with a copied shape, on a dynamic AABB tree.
---@class collide.World
local World = {}

---A kinematic character controller for an item of a world (collide.Character).
---@class collide.Character
local Character = {}

---Options of collide.Character; unknown options are errors.
---@class collide.CharacterOptions
---@field up? number[] {x, y, z}, the up direction (default {0, 1, 0}; a 2D game with y down passes {0, -1, 0}); normalised
---@field maxslope? number radians in [0, pi/2] (default 50 degrees): steeper surfaces are walls
---@field step? number highest ledge it steps onto while walking (>= 0, default 0)
---@field snap? number how far it follows the ground down slopes and steps while walking (>= 0, default 0)

---One hit of world:raycastall.
---@class collide.RayHit
---@field item any the item hit
---@field t number distance along the ray
---@field nx number normal x (zero when the origin is inside)
---@field ny number normal y
---@field nz number normal z
---@field tri? integer the triangle hit (1-based) when the item is a mesh item

---One collision of world:move / world:check.
---@class collide.Collision
---@field other any the item collided with
---@field type "slide"|"touch"|"cross"|"bounce" the response applied
---@field t number fraction along the leg where it happened
---@field nx number unit normal pointing out of other, x
---@field ny number normal y
---@field nz number normal z

---Options of collide.World.
---@class collide.WorldOptions
---@field margin? number fattening of the tree boxes (>= 0, default 0.1)

-- ---------------------------------------------------------------- module functions

---Creates an axis-aligned box. Errors if a max is below its min or a number is not finite.
---@param minx number
---@param miny number
---@param minz number
---@param maxx number
---@param maxy number
---@param maxz number
---@return collide.AABB
function collide.AABB(minx, miny, minz, maxx, maxy, maxz) end

---Creates a ray; the direction is normalised (zero direction is an error).
---@param ox number
---@param oy number
---@param oz number
---@param dx number
---@param dy number
---@param dz number
---@return collide.Ray
function collide.Ray(ox, oy, oz, dx, dy, dz) end

---Creates an oriented box. The 9 axis numbers are all given or all omitted (world axes);
---they must be orthonormal within 1e-6.
---@param cx number
---@param cy number
---@param cz number
---@param hx number half size >= 0
---@param hy number
---@param hz number
---@param ux? number
---@param uy? number
---@param uz? number
---@param vx? number
---@param vy? number
---@param vz? number
---@param wx? number
---@param wy? number
---@param wz? number
---@return collide.OBB
function collide.OBB(cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz) end

---Creates a sphere (radius >= 0).
---@param cx number
---@param cy number
---@param cz number
---@param r number
---@return collide.Sphere
function collide.Sphere(cx, cy, cz, r) end

---Creates a capsule: the segment from a to b rounded by r (r >= 0; a == b allowed).
---@param ax number
---@param ay number
---@param az number
---@param bx number
---@param by number
---@param bz number
---@param r number
---@return collide.Capsule
function collide.Capsule(ax, ay, az, bx, by, bz, r) end

---Creates an empty world.
---@param options? collide.WorldOptions
---@return collide.World
function collide.World(options) end

---A character controller for an item already in the world: walks on walkable ground without
---drifting down slopes, follows it down (snap), climbs steps (step), treats surfaces steeper than
---maxslope as walls and is carried by the ground it stands on. Errors name the bad option.
---@param world collide.World
---@param item any an item of the world
---@param options? collide.CharacterOptions
---@return collide.Character
function collide.Character(world, item, options) end

---Returns "AABB", "Ray", "OBB", "Sphere", "Capsule", "World", "Polygon", "Mesh" or "Character" for collide values, nil for anything else.
---@param v any
---@return "AABB"|"Ray"|"OBB"|"Sphere"|"Capsule"|"World"|"Polygon"|"Mesh"|"Character"|nil
function collide.type(v) end

---Time of impact of two AABBs moved by displacements over one step (seed 003).
---@param a collide.AABB
---@param dax number
---@param day number
---@param daz number
---@param b collide.AABB
---@param dbx number
---@param dby number
---@param dbz number
---@return collide.ToiState state
---@return number t 0 when overlapped, first contact in [0,1) when touching, 1 when separated
function collide.toi(a, dax, day, daz, b, dbx, dby, dbz) end

---Closest point to p on the segment a-b and its parameter s in [0,1] (a zero-length segment gives a).
---@param px number
---@param py number
---@param pz number
---@param ax number
---@param ay number
---@param az number
---@param bx number
---@param by number
---@param bz number
---@return number x
---@return number y
---@return number z
---@return number s
function collide.closestonsegment(px, py, pz, ax, ay, az, bx, by, bz) end

---Reflects v about n: v - (1 + e)(n.v)n, n used as given.
---@param vx number
---@param vy number
---@param vz number
---@param nx number
---@param ny number
---@param nz number
---@param elasticity? number default 1
---@return number x
---@return number y
---@return number z
function collide.reflect(vx, vy, vz, nx, ny, nz, elasticity) end

---Even-odd point in polygon test; points on an edge or vertex count as inside.
---@param poly number[]|collide.Polygon flat array {x1,y1, x2,y2, ...} of at least 3 vertices, or a Polygon
---@param x number
---@param y number
---@return boolean
function collide.pointinpolygon(poly, x, y) end

---Creates a polygon from a flat array {x1,y1, x2,y2, ...} (copied; the same checks and errors as
---pointinpolygon). Use it for repeated queries on one polygon: polygon:contains reads no table.
---@param xy number[] at least 3 vertices, every coordinate a finite number
---@return collide.Polygon
function collide.Polygon(xy) end

---The six planes (left, right, bottom, top, near, far; unit normals pointing inside) of a
---view-projection matrix given as 16 numbers in the row order love.math.Transform:getMatrix
---returns (clip = m * (x,y,z,1), OpenGL clip space -w <= x,y,z <= w).
---@param m number[] 16 numbers, rows in order
---@param out? number[] filled instead of a new table
---@return number[] planes flat {nx,ny,nz,d, ...}, 24 numbers
function collide.frustum(m, out) end

---Creates a static triangle mesh: vertices {x1,y1,z1, ...} (finite numbers) and, optionally, indices
---{i1,j1,k1, ...} (1-based vertex numbers, three per triangle); without indices the vertices are
---taken three at a time. Errors: empty, a count not a multiple of 3, a non-finite coordinate, an
---index that is not an integer or is out of range.
---@param vertices number[]
---@param indices? integer[]
---@return collide.Mesh
function collide.Mesh(vertices, indices) end

-- ---------------------------------------------------------------- AABB

---Returns the six bounds.
---@return number minx
---@return number miny
---@return number minz
---@return number maxx
---@return number maxy
---@return number maxz
function AABB:bounds() end

---Returns the centre.
---@return number x
---@return number y
---@return number z
function AABB:center() end

---Returns the half sizes.
---@return number hx
---@return number hy
---@return number hz
function AABB:extents() end

---Changes the box in place; returns it.
---@param minx number
---@param miny number
---@param minz number
---@param maxx number
---@param maxy number
---@param maxz number
---@return collide.AABB self
function AABB:set(minx, miny, minz, maxx, maxy, maxz) end

---Moves the box in place; returns it.
---@param dx number
---@param dy number
---@param dz number
---@return collide.AABB self
function AABB:translate(dx, dy, dz) end

---Inclusive point containment.
---@param x number
---@param y number
---@param z number
---@return boolean
function AABB:contains(x, y, z) end

---Inclusive overlap with any shape.
---@param shape collide.Shape
---@return boolean
function AABB:overlaps(shape) end

---The shortest push out of an overlap: moving this shape by depth * n (unit n, out of shape) leaves
---the two just touching, and no shorter move does. nil when the interiors do not overlap (touching
---is nil). Exact for AABB/AABB, Sphere/Sphere and Sphere/AABB.
---@param shape collide.Shape
---@return number? depth nil when the interiors do not overlap
---@return number nx
---@return number ny
---@return number nz
function AABB:penetration(shape) end

---Ray hit: distance and the unit normal of the face entered; origin inside gives 0, 0,0,0.
---@param ray collide.Ray
---@param maxt? number default math.huge
---@return number? t nil on a miss
---@return number nx
---@return number ny
---@return number nz
function AABB:raycast(ray, maxt) end

---Entry and exit distances of the ray's whole line (tenter may be negative), or nil.
---@param ray collide.Ray
---@return number? tenter
---@return number texit
function AABB:clip(ray) end

---Segment p1 + f(p2 - p1), f in [0, maxfraction]: entry fraction and normal, or nil.
---@param x1 number
---@param y1 number
---@param z1 number
---@param x2 number
---@param y2 number
---@param z2 number
---@param maxfraction? number default 1
---@return number? fraction
---@return number nx
---@return number ny
---@return number nz
function AABB:segment(x1, y1, z1, x2, y2, z2, maxfraction) end

---Closest point on or in the box.
---@param x number
---@param y number
---@param z number
---@return number x
---@return number y
---@return number z
function AABB:closest(x, y, z) end

---Side of the plane n.p + d = 0: 1 wholly in front, -1 wholly behind, 0 crossing or touching.
---@param nx number
---@param ny number
---@param nz number
---@param d number
---@return integer
function AABB:plane(nx, ny, nz, d) end

---New AABB enclosing this box and the other shape's AABB.
---@param other collide.Shape
---@return collide.AABB
function AABB:merge(other) end

---A new copy of the box.
---@return collide.AABB
function AABB:aabb() end

-- ---------------------------------------------------------------- Ray

---Returns the origin.
---@return number x
---@return number y
---@return number z
function Ray:origin() end

---Returns the unit direction.
---@return number x
---@return number y
---@return number z
function Ray:direction() end

---Returns the point at distance t.
---@param t number
---@return number x
---@return number y
---@return number z
function Ray:at(t) end

---Changes the ray in place (direction normalised); returns it.
---@param ox number
---@param oy number
---@param oz number
---@param dx number
---@param dy number
---@param dz number
---@return collide.Ray self
function Ray:set(ox, oy, oz, dx, dy, dz) end

---Same as shape:raycast(ray, maxt).
---@param shape collide.Shape
---@param maxt? number
---@return number? t
---@return number nx
---@return number ny
---@return number nz
function Ray:cast(shape, maxt) end

---Distance t >= 0 where the ray meets the plane n.p + d = 0, or nil (parallel or behind).
---@param nx number
---@param ny number
---@param nz number
---@param d number
---@return number? t
function Ray:plane(nx, ny, nz, d) end

-- ---------------------------------------------------------------- OBB

---Returns the centre.
---@return number x
---@return number y
---@return number z
function OBB:center() end

---Returns the half sizes.
---@return number hx
---@return number hy
---@return number hz
function OBB:extents() end

---Returns the three axes u, v, w as 9 numbers.
---@return number ux
---@return number uy
---@return number uz
---@return number vx
---@return number vy
---@return number vz
---@return number wx
---@return number wy
---@return number wz
function OBB:axes() end

---Changes the box in place (same arguments as collide.OBB); returns it.
---@param cx number
---@param cy number
---@param cz number
---@param hx number
---@param hy number
---@param hz number
---@param ux? number
---@param uy? number
---@param uz? number
---@param vx? number
---@param vy? number
---@param vz? number
---@param wx? number
---@param wy? number
---@param wz? number
---@return collide.OBB self
function OBB:set(cx, cy, cz, hx, hy, hz, ux, uy, uz, vx, vy, vz, wx, wy, wz) end

---Moves the box in place; returns it.
---@param dx number
---@param dy number
---@param dz number
---@return collide.OBB self
function OBB:translate(dx, dy, dz) end

---Rotates the box about its centre (radians, right-handed about the axis); returns it.
---@param angle number
---@param ax number
---@param ay number
---@param az number
---@return collide.OBB self
function OBB:rotate(angle, ax, ay, az) end

---Inclusive point containment.
---@param x number
---@param y number
---@param z number
---@return boolean
function OBB:contains(x, y, z) end

---Inclusive overlap with any shape (15-axis SAT for OBB pairs).
---@param shape collide.Shape
---@return boolean
function OBB:overlaps(shape) end

---The shortest push out of an overlap: moving this shape by depth * n (unit n, out of shape) leaves
---the two just touching, and no shorter move does. nil when the interiors do not overlap (touching
---is nil). Exact for AABB/AABB, Sphere/Sphere and Sphere/AABB.
---@param shape collide.Shape
---@return number? depth nil when the interiors do not overlap
---@return number nx
---@return number ny
---@return number nz
function OBB:penetration(shape) end

---Ray hit as AABB:raycast, in the box's frame; the normal is in world space.
---@param ray collide.Ray
---@param maxt? number
---@return number? t
---@return number nx
---@return number ny
---@return number nz
function OBB:raycast(ray, maxt) end

---Closest point on or in the box.
---@param x number
---@param y number
---@param z number
---@return number x
---@return number y
---@return number z
function OBB:closest(x, y, z) end

---Side of the plane n.p + d = 0: 1, -1 or 0.
---@param nx number
---@param ny number
---@param nz number
---@param d number
---@return integer
function OBB:plane(nx, ny, nz, d) end

---The tight enclosing AABB.
---@return collide.AABB
function OBB:aabb() end

-- ---------------------------------------------------------------- Sphere

---Returns the centre.
---@return number x
---@return number y
---@return number z
function Sphere:center() end

---Returns the radius.
---@return number
function Sphere:radius() end

---Changes the sphere in place; returns it.
---@param cx number
---@param cy number
---@param cz number
---@param r number
---@return collide.Sphere self
function Sphere:set(cx, cy, cz, r) end

---Moves the sphere in place; returns it.
---@param dx number
---@param dy number
---@param dz number
---@return collide.Sphere self
function Sphere:translate(dx, dy, dz) end

---Inclusive point containment.
---@param x number
---@param y number
---@param z number
---@return boolean
function Sphere:contains(x, y, z) end

---Inclusive overlap with any shape.
---@param shape collide.Shape
---@return boolean
function Sphere:overlaps(shape) end

---The shortest push out of an overlap: moving this shape by depth * n (unit n, out of shape) leaves
---the two just touching, and no shorter move does. nil when the interiors do not overlap (touching
---is nil). Exact for AABB/AABB, Sphere/Sphere and Sphere/AABB.
---@param shape collide.Shape
---@return number? depth nil when the interiors do not overlap
---@return number nx
---@return number ny
---@return number nz
function Sphere:penetration(shape) end

---Ray hit; the normal is (p - c) / r (origin inside gives 0, 0,0,0).
---@param ray collide.Ray
---@param maxt? number
---@return number? t
---@return number nx
---@return number ny
---@return number nz
function Sphere:raycast(ray, maxt) end

---Closest point on or in the sphere.
---@param x number
---@param y number
---@param z number
---@return number x
---@return number y
---@return number z
function Sphere:closest(x, y, z) end

---Side of the plane n.p + d = 0: 1, -1 or 0.
---@param nx number
---@param ny number
---@param nz number
---@param d number
---@return integer
function Sphere:plane(nx, ny, nz, d) end

---The enclosing AABB.
---@return collide.AABB
function Sphere:aabb() end

-- ---------------------------------------------------------------- Capsule

---Returns the segment's two ends.
---@return number ax
---@return number ay
---@return number az
---@return number bx
---@return number by
---@return number bz
function Capsule:segment() end

---Returns the radius.
---@return number
function Capsule:radius() end

---Changes the capsule in place (only when every argument is valid); returns it.
---@param ax number
---@param ay number
---@param az number
---@param bx number
---@param by number
---@param bz number
---@param r number
---@return collide.Capsule self
function Capsule:set(ax, ay, az, bx, by, bz, r) end

---Moves the capsule (both ends) in place; returns it.
---@param dx number
---@param dy number
---@param dz number
---@return collide.Capsule self
function Capsule:translate(dx, dy, dz) end

---Inclusive point containment: the point is within the radius of the segment.
---@param x number
---@param y number
---@param z number
---@return boolean
function Capsule:contains(x, y, z) end

---Inclusive overlap with any shape.
---@param shape collide.Shape
---@return boolean
function Capsule:overlaps(shape) end

---The shortest push out of an overlap: moving this capsule by depth * n (unit n, out of shape)
---leaves the two just touching, and no shorter move does (up to rounding). nil when the interiors
---do not overlap (touching is nil).
---@param shape collide.Shape
---@return number? depth nil when the interiors do not overlap
---@return number nx
---@return number ny
---@return number nz
function Capsule:penetration(shape) end

---Ray hit; the normal points from the segment's closest point to the hit (origin inside gives
---0, 0,0,0; a capsule of radius 0 reports the normal facing the ray).
---@param ray collide.Ray
---@param maxt? number
---@return number? t
---@return number nx
---@return number ny
---@return number nz
function Capsule:raycast(ray, maxt) end

---Closest point on or in the capsule.
---@param x number
---@param y number
---@param z number
---@return number x
---@return number y
---@return number z
function Capsule:closest(x, y, z) end

---Side of the plane n.p + d = 0: 1 (wholly in front), -1 (wholly behind) or 0.
---@param nx number
---@param ny number
---@param nz number
---@param d number
---@return integer
function Capsule:plane(nx, ny, nz, d) end

---The enclosing AABB.
---@return collide.AABB
function Capsule:aabb() end

-- ---------------------------------------------------------------- Polygon

---Even-odd point test, exactly collide.pointinpolygon's answer; edges and vertices count as inside.
---@param x number
---@param y number
---@return boolean
function Polygon:contains(x, y) end

---Returns the number of vertices.
---@return integer
function Polygon:count() end

---Returns a new flat array {x1,y1, x2,y2, ...} with a copy of the coordinates.
---@return number[]
function Polygon:vertices() end

-- ---------------------------------------------------------------- Mesh

---Returns the number of triangles.
---@return integer
function Mesh:count() end

---Returns the three vertices of triangle i (1-based).
---@param i integer
---@return number ax, number ay, number az, number bx, number by, number bz, number cx, number cy, number cz
function Mesh:triangle(i) end

---The AABB enclosing every triangle.
---@return collide.AABB
function Mesh:aabb() end

---Closest hit (watertight: no ray slips between triangles sharing an edge; both sides solid):
---t, the unit normal facing the ray, and the triangle (ties in t to the lowest index); nil on a miss.
---@param ray collide.Ray
---@param maxt? number default math.huge
---@return number? t
---@return number nx
---@return number ny
---@return number nz
---@return integer i
function Mesh:raycast(ray, maxt) end

---True if some triangle overlaps the shape (inclusive).
---@param shape collide.AABB|collide.OBB|collide.Sphere
---@return boolean
function Mesh:overlaps(shape) end

---The triangles overlapping the shape (inclusive), ascending, and their count; out is cleared and filled.
---@param shape collide.AABB|collide.OBB|collide.Sphere
---@param out? integer[]
---@return integer[] triangles
---@return integer n
function Mesh:query(shape, out) end

---The closest point of the mesh to (x, y, z) and its triangle (ties to the lowest index); nil if
---every triangle is degenerate.
---@param x number
---@param y number
---@param z number
---@return number? x
---@return number y
---@return number z
---@return integer i
function Mesh:closest(x, y, z) end

-- ---------------------------------------------------------------- World

---Adds item with a copy of shape; errors if the item is nil, NaN or already present. With a Mesh:
---a mesh item (static, shared, kept alive by the world), placed by the translation c and the
---orthonormal axes u, v, w (a vertex (x,y,z) stands at c + x u + y v + z w; default: where it is).
---@generic T
---@param item T
---@param shape collide.Shape|collide.Mesh
---@param cx? number
---@param cy? number
---@param cz? number
---@param ux? number
---@param uy? number
---@param uz? number
---@param vx? number
---@param vy? number
---@param vz? number
---@param wx? number
---@param wy? number
---@param wz? number
---@return T item
function World:add(item, shape, cx, cy, cz, ux, uy, uz, vx, vy, vz, wx, wy, wz) end

---Removes item; errors if it is not in the world.
---@param item any
function World:remove(item) end

---Replaces item's shape with a copy of shape (keeps its order); errors if it is not in the world.
---With a Mesh and a placement (as World:add): the item becomes that placed mesh.
---@param item any
---@param shape collide.Shape|collide.Mesh
---@param cx? number
---@param cy? number
---@param cz? number
---@param ux? number
---@param uy? number
---@param uz? number
---@param vx? number
---@param vy? number
---@param vz? number
---@param wx? number
---@param wy? number
---@param wz? number
function World:update(item, shape, cx, cy, cz, ux, uy, uz, vx, vy, vz, wx, wy, wz) end

---Moves item's stored shape by the displacement with no collision response (keeps its order);
---errors if it is not in the world, a number is not finite or the result is not finite.
---Cheaper than shape:set + world:update for many small moves.
---@param item any
---@param dx number
---@param dy number
---@param dz number
---@return nil
function World:translate(item, dx, dy, dz) end

---world:translate(items[i], dx[i], dy[i], dz[i]) for i = 1 .. #items, in order, as one call
---(an item may appear more than once: its offsets add up in order). The arrays are read raw.
---Every element is checked before anything changes, so an error (naming the argument and the
---index) leaves the world unchanged. Cheaper than one translate call per item.
---@param items any[]
---@param dx number[]
---@param dy number[]
---@param dz number[]
---@return nil
function World:translatemany(items, dx, dy, dz) end

---Whether item is in the world.
---@param item any
---@return boolean
function World:has(item) end

---Number of items.
---@return integer
function World:count() end

---A new copy of item's shape; errors if it is not in the world. A mesh item gives its (shared)
---mesh and its placement: mesh, cx,cy,cz, ux,uy,uz, vx,vy,vz, wx,wy,wz.
---@param item any
---@return collide.Shape|collide.Mesh
---@return number? cx
---@return number? cy
---@return number? cz
---@return number? ux
---@return number? uy
---@return number? uz
---@return number? vx
---@return number? vy
---@return number? vz
---@return number? wx
---@return number? wy
---@return number? wz
function World:shape(item) end

---Items whose shapes overlap shape (exact, inclusive), in the order they were added.
---@param shape collide.Shape
---@param filter? fun(item: any): any truthy keeps the item
---@param out? any[] cleared, filled and returned instead of a new table
---@return any[] items
---@return integer n
function World:query(shape, filter, out) end

---Items whose shapes contain the point, in the order they were added.
---@param x number
---@param y number
---@param z number
---@param filter? fun(item: any): any
---@param out? any[]
---@return any[] items
---@return integer n
function World:querypoint(x, y, z, filter, out) end

---Frustum culling through the tree: the items whose shapes are not wholly behind any of the
---planes (each side decided as shape:plane), in the order they were added.
---@param planes number[] flat {nx,ny,nz,d, ...}, 1 to 32 planes
---@param filter? fun(item: any): any
---@param out? any[]
---@return any[] items
---@return integer n
function World:queryplanes(planes, filter, out) end

---Closest item hit by the ray (ties by the order added), or nil; a mesh item adds its triangle.
---@param ray collide.Ray
---@param maxt? number
---@param filter? fun(item: any): any
---@return any item
---@return number t
---@return number nx
---@return number ny
---@return number nz
---@return integer? tri the triangle hit (1-based) when the item is a mesh item
function World:raycast(ray, maxt, filter) end

---Every hit, nearest first (ties by the order added).
---@param ray collide.Ray
---@param maxt? number
---@param filter? fun(item: any): any
---@param out? collide.RayHit[] its inner tables are reused
---@return collide.RayHit[] hits
---@return integer n
function World:raycastall(ray, maxt, filter, out) end

---Every overlapping pair as a flat array {a1,b1, a2,b2, ...} (a added before b), and the count.
---@param out? any[]
---@return any[] pairs
---@return integer npairs
function World:pairs(out) end

---First item hit by shape moved by the displacement: item, t in [0,1], normal; or nil.
---@param shape collide.Shape
---@param dx number
---@param dy number
---@param dz number
---@param filter? fun(item: any): any
---@return any item
---@return number t
---@return number nx
---@return number ny
---@return number nz
---@return integer? tri the triangle first touched (1-based) when the item is a mesh item
function World:sweep(shape, dx, dy, dz, filter) end

---Moves item by up to the displacement with collision responses; returns the displacement made
---and the collisions in the order they happened.
---@param item any
---@param dx number
---@param dy number
---@param dz number
---@param filter? fun(item: any, other: any): collide.Response
---@param out? collide.Collision[] cleared and filled with the collisions, and returned (its tables are reused)
---@return number ax
---@return number ay
---@return number az
---@return collide.Collision[] cols
---@return integer n
function World:move(item, dx, dy, dz, filter, out) end

---What move would return, changing nothing.
---@param item any
---@param dx number
---@param dy number
---@param dz number
---@param filter? fun(item: any, other: any): collide.Response
---@param out? collide.Collision[] cleared and filled with the collisions, and returned (its tables are reused)
---@return number ax
---@return number ay
---@return number az
---@return collide.Collision[] cols
---@return integer n
function World:check(item, dx, dy, dz, filter, out) end

---Pushes the item out of every item whose interior it overlaps (minimum translations, the deepest
---first, up to 16 rounds; it ends where its total overlap is smallest) and moves it.
---@param item any
---@param filter? fun(item: any, other: any): any truthy keeps other solid (default: all)
---@return number dx
---@return number dy
---@return number dz
---@return integer n the number of items it was pushed out of
function World:resolve(item, filter) end

---Frees the world now; any later method call is an error.
function World:destroy() end

---Moves the character's item by up to the displacement (carried first by ground that moved since
---the last move; walking with step-up and snap on walkable ground; sliding through the air
---otherwise). Returns what world:move returns. Errors if the item left the world or came back as a
---mesh item.
---@param dx number
---@param dy number
---@param dz number
---@param filter? fun(item: any, other: any): collide.Response
---@param out? collide.Collision[] cleared and filled with the collisions, and returned (its tables are reused)
---@return number ax
---@return number ay
---@return number az
---@return collide.Collision[] cols
---@return integer n
function Character:move(dx, dy, dz, filter, out) end

---As of the last move: true, the ground item and its unit normal, or false.
---@return boolean grounded
---@return any item
---@return number nx
---@return number ny
---@return number nz
function Character:grounded() end

return collide
