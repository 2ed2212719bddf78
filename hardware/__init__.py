"""Camera sources, LED strips, displays and buttons: a small protocol, a real and a simulated backend each.

Every driver is imported lazily inside its backend, so ``import hardware`` works on any machine, and the
simulated backends are what ``auto`` picks wherever the real device is absent.

- ``hardware.camera``: ``open_source(...)`` -> an iterator of ``(timestamp_s, BGR frame)``
- ``hardware.leds``: ``open_strip(...)`` -> a strip; ``hardware.leds.map.LedMap`` names groups of pixels;
  ``hardware.leds.patterns`` plays solid, flash, pulse and bar-graph patterns on them
- ``hardware.display``: ``open_display(...)``; ``hardware.display.screens`` draws what it shows
- ``hardware.buttons``: ``open_buttons(...)`` -> commands (next, back, confirm, game select)
- ``hardware.exc``: every exception; ``hardware.clock``: real and stepped clocks
"""
