---@meta collide.bump
-- Lua Language Server definitions for collide.bump (require "collide.bump"): bump.lua 3.1.7's API
-- on collide's core. Not loaded at run time. See the README, "Switching from bump.lua".

---A bump collision (bump's col table).
---@class collide.bump.Collision
---@field item any the item that moved (nil for world:project without an item)
---@field other any the item it collided with
---@field type any what the filter returned for the pair (a response name)
---@field overlaps boolean true when the item already overlapped other before moving
---@field ti number time of contact in [0, 1), or minus the overlap's pseudo-area when overlapping
---@field move {x: number, y: number} the displacement tried
---@field normal {x: number, y: number} the normal of other's side that was hit
---@field touch {x: number, y: number} where the item stops touching other
---@field itemRect {x: number, y: number, w: number, h: number}
---@field otherRect {x: number, y: number, w: number, h: number}
---@field slide {x: number, y: number}|nil set by the slide response
---@field bounce {x: number, y: number}|nil set by the bounce response

---A segment query hit with coordinates.
---@class collide.bump.SegmentInfo
---@field item any
---@field ti1 number
---@field ti2 number
---@field x1 number
---@field y1 number
---@field x2 number
---@field y2 number

---A response: returns goalX, goalY, cols, len.
---@alias collide.bump.Response fun(world: collide.bump.World, col: collide.bump.Collision, x: number, y: number, w: number, h: number, goalX: number, goalY: number, filter: function): number, number, collide.bump.Collision[], integer

---A bump world (a plain table).
---@class collide.bump.World
---@field cellSize number
---@field responses table<any, collide.bump.Response>
local World = {}

---Adds item with rect x,y,w,h (w, h > 0); returns item.
---@param item any any value but nil or NaN
---@param x number
---@param y number
---@param w number
---@param h number
---@return any
function World:add(item, x, y, w, h) end
---Removes item.
---@param item any
function World:remove(item) end
---Moves/resizes item without collisions (w, h default to the current ones).
---@param item any
---@param x number
---@param y number
---@param w? number
---@param h? number
function World:update(item, x, y, w, h) end
---Moves item toward the goal with bump's collision resolution; returns the actual position and the
---collisions. Extension: cols, an out table refilled with the answer (no garbage).
---@param item any
---@param goalX number
---@param goalY number
---@param filter? fun(item: any, other: any): any
---@param cols? collide.bump.Collision[]
---@return number actualX, number actualY, collide.bump.Collision[] cols, integer len
function World:move(item, goalX, goalY, filter, cols) end
---As move, without moving the item.
---@param item any
---@param goalX number
---@param goalY number
---@param filter? fun(item: any, other: any): any
---@param cols? collide.bump.Collision[]
---@return number actualX, number actualY, collide.bump.Collision[] cols, integer len
function World:check(item, goalX, goalY, filter, cols) end
---The collisions of rect x,y,w,h moving to the goal (item excluded), sorted as bump sorts them.
---@param item any the item to leave out (may be one not in the world)
---@param x number
---@param y number
---@param w number
---@param h number
---@param goalX? number
---@param goalY? number
---@param filter? fun(item: any, other: any): any
---@param cols? collide.bump.Collision[] extension: out table
---@return collide.bump.Collision[] cols, integer len
function World:project(item, x, y, w, h, goalX, goalY, filter, cols) end
---Items whose rects strictly intersect the rect (in slot order).
---@param x number
---@param y number
---@param w number
---@param h number
---@param filter? fun(item: any): boolean
---@param items? any[] extension: out table
---@return any[] items, integer len
function World:queryRect(x, y, w, h, filter, items) end
---Items strictly containing the point (in slot order).
---@param x number
---@param y number
---@param filter? fun(item: any): boolean
---@param items? any[] extension: out table
---@return any[] items, integer len
function World:queryPoint(x, y, filter, items) end
---Items the segment touches, sorted along the segment's line.
---@param x1 number
---@param y1 number
---@param x2 number
---@param y2 number
---@param filter? fun(item: any): boolean
---@param items? any[] extension: out table
---@return any[] items, integer len
function World:querySegment(x1, y1, x2, y2, filter, items) end
---As querySegment, with the entry and exit fractions and points.
---@param x1 number
---@param y1 number
---@param x2 number
---@param y2 number
---@param filter? fun(item: any): boolean
---@param infos? collide.bump.SegmentInfo[] extension: out table
---@return collide.bump.SegmentInfo[] infos, integer len
function World:querySegmentWithCoords(x1, y1, x2, y2, filter, infos) end
---Extension: collide's closest raycast. The first item along the segment that filter accepts, where
---the segment enters it, the normal of that side and the fraction along the segment; nil if none.
---@param x1 number
---@param y1 number
---@param x2 number
---@param y2 number
---@param filter? fun(item: any): boolean
---@return any item, number x, number y, number nx, number ny, number ti
function World:raycast(x1, y1, x2, y2, filter) end
---True when item is in the world.
---@param item any
---@return boolean
function World:hasItem(item) end
---Every item (in slot order) and their number.
---@return any[] items, integer len
function World:getItems() end
---The number of items.
---@return integer
function World:countItems() end
---The item's rect (the numbers last given for it).
---@param item any
---@return number x, number y, number w, number h
function World:getRect(item) end
---Cells bump's grid would hold (items' cells and cells emptied since the last collection).
---@return integer
function World:countCells() end
---The grid cell (numbered from 1) holding the point.
---@param x number
---@param y number
---@return number cx, number cy
function World:toCell(x, y) end
---The top-left corner of the grid cell cx, cy.
---@param cx number
---@param cy number
---@return number x, number y
function World:toWorld(cx, cy) end
---Registers a response for the collision type name.
---@param name any the type a filter returns
---@param response collide.bump.Response
function World:addResponse(name, response) end

---@class collide.bump
---@field _VERSION string "bump v3.1.7"
---@field _URL string
---@field _DESCRIPTION string
---@field _LICENSE string
---@field rect table bump.rect: getNearestCorner, getSegmentIntersectionIndices, getDiff, containsPoint, isIntersecting, getSquareDistance, detectCollision
---@field responses {touch: collide.bump.Response, cross: collide.bump.Response, slide: collide.bump.Response, bounce: collide.bump.Response}
local bump = {}

---A new world; cellSize (default 64) is bump's grid cell size.
---@param cellSize? number
---@return collide.bump.World
function bump.newWorld(cellSize) end

return bump
