-- LÖVE 11.x configuration of the headless benchmark runner (bench/love/main.lua): no window, no
-- graphics, no audio.
function love.conf(t)
  t.identity = "collide-bench"
  t.version = "11.4"
  t.window = false
  for _, m in ipairs { "audio", "sound", "graphics", "window", "joystick", "physics", "video",
                       "image", "font", "mouse", "keyboard", "touch" } do
    t.modules[m] = false
  end
end
