-- LÖVE 11.x configuration of the collide.bump platformer demo.
function love.conf(t)
  t.identity = "collide-bump-demo"
  t.version = "11.4"
  t.window.title = "collide.bump platformer (a bump.lua game on collide)"
  t.window.width = 736
  t.window.height = 300
  t.window.msaa = 0
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
end
