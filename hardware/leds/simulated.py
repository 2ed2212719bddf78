"""The simulated strip: keeps its pixels, and draws them to a PNG or to a truecolour terminal.

Pictures show the logical colours (what the pixel means), not the dimmed wire values: a strip limited to
a quarter of its brightness still looks red, not dark brown, to the eye in the room.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from hardware.fonts import CHAR_W, draw_text
from hardware.leds import Colour, Strip
from hardware.leds.map import LedMap

PIXEL = 14  # drawn diameter, px
GAP = 4
PER_ROW = 20
OFF_RIM = (70, 70, 70)


class SimulatedStrip(Strip):
    """A strip in memory. ``shown`` is the last wire output; ``shows`` counts the ``show()`` calls.

    ``png``: a path rewritten on every ``show()``; ``terminal``: a text stream that gets one line per show.
    Neither is drawn for the final all-off of ``close()``, so the picture keeps the last pattern shown.
    """

    backend = "simulated"

    def __init__(self, count: int, *, brightness: float = 0.25, gamma: float = 2.2, png: str | None = None,
                 terminal=None, led_map: LedMap | None = None):
        super().__init__(count, brightness=brightness, gamma=gamma)
        self.png = png
        self.terminal = terminal
        self.led_map = led_map
        self.shown: list[Colour] = [(0, 0, 0)] * count
        self.shown_pixels: tuple[Colour, ...] = self.pixels
        self.shows = 0

    def _write(self, values: list[Colour]) -> None:
        self.shown = list(values)
        self.shown_pixels = self.pixels
        self.shows += 1
        if self.png and not self.closed:
            self.image().save(self.png)
        if self.terminal is not None and not self.closed:
            print(self.terminal_line(), file=self.terminal, flush=True)

    def image(self, led_map: LedMap | None = None) -> Image.Image:
        """The shown pixels as a picture: one labelled row per map group, or rows of 20 without a map."""
        return draw_pixels(self.shown_pixels, led_map or self.led_map)

    def terminal_line(self) -> str:
        """The shown pixels as coloured blocks (24-bit ANSI); an unlit pixel is a dim dot."""
        cells = []
        for r, g, b in self.shown_pixels:
            cells.append("\x1b[2m·\x1b[0m" if (r, g, b) == (0, 0, 0) else f"\x1b[38;2;{r};{g};{b}m●\x1b[0m")
        return "".join(cells)


def draw_pixels(pixels: tuple[Colour, ...], led_map: LedMap | None = None) -> Image.Image:
    if led_map is None:
        rows = [(f"{i}-{min(i + PER_ROW, len(pixels)) - 1}", tuple(range(i, min(i + PER_ROW, len(pixels)))))
                for i in range(0, len(pixels), PER_ROW)]
    else:
        rows = [(name, led_map[name]) for name in led_map.names]
    label_w = max(len(name) for name, _ in rows) * CHAR_W + 2 * GAP
    widest = max(len(indices) for _, indices in rows)
    step = PIXEL + GAP
    image = Image.new("RGB", (label_w + widest * step + GAP, len(rows) * step + GAP), (20, 20, 24))
    draw = ImageDraw.Draw(image)
    for row, (name, indices) in enumerate(rows):
        y = GAP + row * step
        draw_text(image, (GAP, y + (PIXEL - 11) // 2 + 1), name, (200, 200, 200))
        for k, index in enumerate(indices):
            x = label_w + k * step
            colour = pixels[index]
            rim = OFF_RIM if colour == (0, 0, 0) else colour
            draw.ellipse((x, y, x + PIXEL - 1, y + PIXEL - 1), fill=colour, outline=rim)
    return image
