-- LÖVE 11.x configuration of the collide walker demo: one window with a depth buffer.
function love.conf(t)
  t.identity = "collide-walker-demo"
  t.version = "11.4"
  t.window.title = "collide walker: a character on an .obj level"
  t.window.width = 960
  t.window.height = 600
  t.window.depth = 24
  t.window.resizable = true
  t.window.msaa = 0
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
end
