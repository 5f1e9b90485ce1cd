-- LÖVE 11.x configuration of the collide demo: one window, no audio (nothing is played).
function love.conf(t)
  t.identity = "collide-demo"
  t.version = "11.4"
  t.window.title = "collide demo"
  t.window.width = 960
  t.window.height = 640
  t.window.resizable = true
  t.window.msaa = 0
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
end
