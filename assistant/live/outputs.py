"""What the players see: LED patterns on the strip (through ``Lights`` and the LED map) and the screen.

:class:`Outputs` applies a table mode's :class:`~assistant.table.Response` and remembers what is showing,
so replay and demo can draw it next to the frame. While a game is rebuilt from its journal the outputs are
``suppressed``: the responses are followed (so the last LEDs and screen are known) but nothing is shown
until the rebuild is over, then ``flush()`` shows the final state once.

>>> from hardware.leds.patterns import GREEN, Solid
>>> from hardware.display.screens import Message
>>> from assistant.table import Response
>>> out = Outputs.simulated()
>>> out.apply(Response(leds={"status": Solid(GREEN)}, screen=Message("Ready")))
>>> out.lights.frame()[0], out.screen.title
((0, 255, 0), 'Ready')
"""

from __future__ import annotations

import logging
from typing import Any

from PIL import Image

from assistant.table import Response
from hardware.clock import Clock
from hardware.display import Display
from hardware.display.screens import render as render_screen
from hardware.leds.map import DEFAULT_COUNT, LedMap, default_groups
from hardware.leds.patterns import Lights
from hardware.leds.simulated import draw_pixels

log = logging.getLogger(__name__)


class Outputs:
    """The LEDs and the display of a table; either may be None (not fitted)."""

    def __init__(self, lights: Lights | None, display: Display | None):
        self.lights = lights
        self.display = display
        self.screen: Any = None
        self.suppressed = False
        self._unknown_groups: set[str] = set()

    @classmethod
    def simulated(cls, clock: Clock | None = None, led_map: LedMap | None = None, display_model: str = "ssd1306",
                  strip_png: str | None = None, display_png: str | None = None) -> Outputs:
        """A simulated strip over the default LED map and a dummy display (replay, demo, tests)."""
        from hardware.display import open_display
        from hardware.leds.simulated import SimulatedStrip

        led_map = led_map or LedMap.parse(default_groups(), DEFAULT_COUNT)
        strip = SimulatedStrip(led_map.count, png=strip_png, led_map=led_map)
        return cls(Lights(strip, led_map, clock), open_display("dummy", model=display_model, png=display_png))

    def apply(self, response: Response) -> None:
        """Start the response's LED patterns (None stops a group) and show its screen, if it has one."""
        if self.lights is not None:
            for group, pattern in response.leds.items():
                if group not in self.lights.map:
                    if group not in self._unknown_groups:  # a custom LED map without this group: say so once
                        self._unknown_groups.add(group)
                        log.warning("LED group %r is not in the LED map; its pattern is not shown", group)
                    continue
                if pattern is None:
                    self.lights.stop(group)
                else:
                    self.lights.play(group, pattern)
        if response.screen is not None:
            self.screen = response.screen
            if not self.suppressed and self.display is not None:
                self.display.show(response.screen)
        if not self.suppressed:
            self.render()

    def flush(self) -> None:
        """After a rebuild: show what the last responses left, once."""
        self.suppressed = False
        if self.display is not None and self.screen is not None:
            self.display.show(self.screen)
        self.render()

    def render(self) -> None:
        """Move the LED patterns on (flashes, pulses): the main loop calls this every frame."""
        if self.lights is not None and not self.suppressed:
            self.lights.render()

    def led_colours(self) -> dict[str, list[tuple[int, int, int]]]:
        """The colour of every pixel of every group now (what the tests and the events log look at)."""
        if self.lights is None:
            return {}
        pixels = self.lights.frame()
        return {name: [pixels[i] for i in indices] for name, indices in self.lights.map.groups.items()}

    def patterns(self) -> dict[str, Any]:
        """The pattern playing on each group (groups with none left out)."""
        if self.lights is None:
            return {}
        return {g: p for g in self.lights.map.names if (p := self.lights.playing(g)) is not None}

    def strip_image(self) -> Image.Image | None:
        if self.lights is None:
            return None
        return draw_pixels(tuple(self.lights.frame()), self.lights.map)

    def screen_image(self) -> Image.Image | None:
        """The screen showing, drawn at the display's size (a 128 x 64 OLED when none is fitted)."""
        if self.screen is None:
            return None
        if self.display is not None and self.display.image is not None and not self.suppressed:
            return self.display.image
        size, mode = ((self.display.size, self.display.mode) if self.display is not None
                      else ((128, 64), "1"))
        return render_screen(self.screen, size, mode)

    def close(self) -> None:
        """Blank the display and turn the strip off (each may fail on its own; both are tried)."""
        try:
            if self.display is not None:
                self.display.close()
        finally:
            if self.lights is not None:
                self.lights.strip.close()
