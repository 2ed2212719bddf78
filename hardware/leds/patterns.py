"""LED patterns (solid, flash, pulse, bar graph) and :class:`Lights`, which plays them on a mapped strip.

A pattern is plain data with one method, ``colours(t, n)``: the colours of a group of ``n`` pixels ``t``
seconds after the pattern started. Time comes from a clock, so tests step it and compare pixel by pixel:

>>> from hardware.clock import SteppedClock
>>> from hardware.leds.simulated import SimulatedStrip
>>> from hardware.leds.map import LedMap
>>> clock = SteppedClock()
>>> lights = Lights(SimulatedStrip(2), LedMap.parse({"status": [0], "cauldron-1": [1]}, 2), clock)
>>> lights.play("cauldron-1", Flash((255, 0, 0), period=1.0))
>>> lights.render(); lights.strip[1]
(255, 0, 0)
>>> clock.advance(0.5); lights.render(); lights.strip[1]
0.5
(0, 0, 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware.clock import Clock, MonotonicClock
from hardware.exc import BadSetting
from hardware.leds import BLACK, Colour, Strip, check_colour
from hardware.leds.map import LedMap

RED: Colour = (255, 0, 0)
GREEN: Colour = (0, 255, 0)
BLUE: Colour = (0, 0, 255)
AMBER: Colour = (255, 150, 0)
WHITE: Colour = (255, 255, 255)


def _scale(colour: Colour, level: float) -> Colour:
    return (round(colour[0] * level), round(colour[1] * level), round(colour[2] * level))


def _mix(a: Colour, b: Colour, f: float) -> Colour:
    return (round(a[0] + (b[0] - a[0]) * f), round(a[1] + (b[1] - a[1]) * f), round(a[2] + (b[2] - a[2]) * f))


@dataclass(frozen=True)
class Solid:
    colour: Colour

    def __post_init__(self):
        check_colour(self.colour)

    def colours(self, t: float, n: int) -> list[Colour]:
        return [self.colour] * n


@dataclass(frozen=True)
class Flash:
    """On for ``duty`` of each ``period``, then ``off``; after ``times`` flashes (if given) it stays off."""

    colour: Colour
    period: float = 1.0
    duty: float = 0.5
    times: int | None = None
    off: Colour = BLACK

    def __post_init__(self):
        check_colour(self.colour)
        check_colour(self.off)
        if self.period <= 0 or not 0 < self.duty < 1:
            raise BadSetting("a flash needs a positive period and a duty strictly between 0 and 1")

    def colours(self, t: float, n: int) -> list[Colour]:
        cycle, phase = divmod(max(t, 0.0), self.period)
        # A tiny tolerance so that stepping by period/2 lands on the edge the caller meant.
        on = phase < self.duty * self.period - 1e-9
        if self.times is not None and cycle >= self.times:
            on = False
        return [self.colour if on else self.off] * n


@dataclass(frozen=True)
class Pulse:
    """Breathes between ``low`` and full brightness, a raised cosine starting at ``low``."""

    colour: Colour
    period: float = 2.0
    low: float = 0.1

    def __post_init__(self):
        check_colour(self.colour)
        if self.period <= 0 or not 0 <= self.low <= 1:
            raise BadSetting("a pulse needs a positive period and a low level between 0 and 1")

    def level(self, t: float) -> float:
        return self.low + (1 - self.low) * (1 - math.cos(2 * math.pi * t / self.period)) / 2

    def colours(self, t: float, n: int) -> list[Colour]:
        return [_scale(self.colour, self.level(t))] * n


@dataclass(frozen=True)
class BarGraph:
    """``value`` out of ``maximum`` as lit pixels from the first; a bar is full only at the maximum.

    ``colour`` may be one colour or a pair ``(start, end)``: each lit pixel then takes the colour of its
    position along the bar (green to red for the Cramé bar, so the danger shows before the count is read).
    """

    value: float
    maximum: float
    colour: Colour | tuple[Colour, Colour] = GREEN
    empty: Colour = BLACK

    def __post_init__(self):
        if self.maximum <= 0:
            raise BadSetting(f"a bar graph needs a positive maximum, not {self.maximum!r}")
        check_colour(self.empty)

    def lit(self, n: int) -> int:
        fraction = min(max(self.value / self.maximum, 0.0), 1.0)
        return math.floor(fraction * n + 1e-9)

    def colours(self, t: float, n: int) -> list[Colour]:
        lit = self.lit(n)
        if isinstance(self.colour[0], int):
            ramp = [self.colour] * n  # type: ignore[list-item]
        else:
            start, end = self.colour  # type: ignore[misc]
            ramp = [_mix(start, end, i / (n - 1) if n > 1 else 0.0) for i in range(n)]
        return [ramp[i] if i < lit else self.empty for i in range(n)]  # type: ignore[misc]


class Lights:
    """Patterns playing on the groups of a mapped strip. Call ``render()`` from the main loop (a few
    times a second); pixels in no playing group are off."""

    def __init__(self, strip: Strip, led_map: LedMap, clock: Clock | None = None):
        if led_map.count > strip.count:
            raise BadSetting(f"the LED map needs {led_map.count} pixels but the strip has {strip.count}")
        self.strip = strip
        self.map = led_map
        self.clock = clock or MonotonicClock()
        self._playing: dict[str, tuple[object, float]] = {}

    def play(self, group: str, pattern) -> None:
        """Start ``pattern`` on ``group`` now (its time starts at zero)."""
        self.map[group]  # raises for an unknown group
        self._playing[group] = (pattern, self.clock.now())

    def stop(self, group: str) -> None:
        self._playing.pop(group, None)

    def stop_all(self) -> None:
        self._playing.clear()

    def playing(self, group: str):
        entry = self._playing.get(group)
        return entry[0] if entry else None

    def frame(self) -> list[Colour]:
        """The colour of every pixel now, without showing it."""
        now = self.clock.now()
        pixels = [BLACK] * self.strip.count
        for group, (pattern, started) in self._playing.items():
            indices = self.map[group]
            for i, c in zip(indices, pattern.colours(now - started, len(indices)), strict=True):  # type: ignore[attr-defined]
                pixels[i] = c
        return pixels

    def render(self) -> None:
        self.strip.set(range(self.strip.count), self.frame())
        self.strip.show()
