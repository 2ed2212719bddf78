"""LED strips: N pixels with a brightness limit and gamma, a real backend per driver and a simulated one.

Every backend shares :class:`Strip`: set logical colours (what you mean: ``(255, 0, 0)`` is "red"), then
``show()``. The brightness limit and the gamma curve are applied on the way out, the same for every backend,
so the simulated strip's ``output()`` is exactly what a real strip would be sent.

>>> from hardware.leds import open_strip
>>> with open_strip("simulated", count=3, brightness=0.5) as strip:
...     strip[0] = (255, 0, 0)
...     strip.show()
...     strip.output()[0]
(128, 0, 0)
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

from hardware import platform
from hardware.exc import BadSetting, DeviceClosed

log = logging.getLogger(__name__)
Colour = tuple[int, int, int]
BLACK: Colour = (0, 0, 0)

BACKENDS = ("auto", "simulated", "ws281x", "pi5")
ORDERS = ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR")


def check_colour(colour: Sequence[int]) -> Colour:
    # (spelt out, not a generator over the channels: the live loop checks every pixel of every frame)
    if len(colour) == 3:
        r, g, b = colour
        if (isinstance(r, int) and isinstance(g, int) and isinstance(b, int)
                and 0 <= r <= 255 and 0 <= g <= 255 and 0 <= b <= 255):
            return (r, g, b)
    raise BadSetting(f"a colour is three integers 0..255, not {tuple(colour)!r}")


class Strip(ABC):
    """Base of every backend: the pixel buffer, brightness, gamma, ``show`` and ``close``."""

    backend = "base"
    fallback: str | None = None  # set when ``auto`` on a Pi had to simulate the strip: why

    def __init__(self, count: int, *, brightness: float = 0.25, gamma: float = 2.2):
        if not isinstance(count, int) or count < 1:
            raise BadSetting(f"led count must be a positive integer, not {count!r}")
        if not 0.0 <= brightness <= 1.0:
            raise BadSetting(f"led brightness is a limit between 0 and 1, not {brightness!r}")
        if not 1.0 <= gamma <= 4.0:
            raise BadSetting(f"led gamma must be between 1 and 4, not {gamma!r}")
        self._count = count
        self._brightness = brightness
        self._gamma = gamma
        self._pixels: list[Colour] = [BLACK] * count
        # One lookup table for all three channels: brightness then gamma, rounded once.
        self._table = [round(255 * brightness * (v / 255) ** gamma) for v in range(256)]
        self._closed = False

    @property
    def count(self) -> int:
        return self._count

    @property
    def brightness(self) -> float:
        return self._brightness

    @property
    def gamma(self) -> float:
        return self._gamma

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> Colour:
        return self._pixels[index]

    def __setitem__(self, index: int, colour: Sequence[int]) -> None:
        if not -self._count <= index < self._count:
            raise IndexError(f"pixel {index} is outside a strip of {self._count}")
        self._pixels[index] = check_colour(colour)

    @property
    def pixels(self) -> tuple[Colour, ...]:
        """The logical colours, as set."""
        return tuple(self._pixels)

    def fill(self, colour: Sequence[int]) -> None:
        self._pixels = [check_colour(colour)] * self._count

    def set(self, indices: Iterable[int], colours: Sequence[Colour] | Colour) -> None:
        """Set several pixels: one colour for all, or one colour each."""
        indices = list(indices)
        if colours and isinstance(colours[0], int):
            colours = [colours] * len(indices)  # type: ignore[list-item]
        if len(colours) != len(indices):
            raise BadSetting(f"{len(colours)} colours for {len(indices)} pixels")
        for i, c in zip(indices, colours, strict=True):
            self[i] = c  # type: ignore[assignment]

    def output(self) -> list[Colour]:
        """What goes on the wire: each channel through brightness and gamma."""
        t = self._table
        return [(t[r], t[g], t[b]) for r, g, b in self._pixels]

    def show(self) -> None:
        if self._closed:
            raise DeviceClosed(f"{self.backend} strip is closed")
        self._write(self.output())

    def close(self) -> None:
        """Turn every pixel off and release the driver; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        try:
            self.fill(BLACK)
            self._write(self.output())
        finally:
            self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._count} pixels, brightness {self._brightness}>"

    # Backends implement these two.
    @abstractmethod
    def _write(self, values: list[Colour]) -> None:
        """Send the final (dimmed, gamma-corrected) colours to the device."""

    def _release(self) -> None:  # an optional hook: most devices have nothing to release
        return None


def resolve_backend(backend: str, pin: int) -> str:
    """``auto`` -> the real driver that fits this board, if it can work; otherwise ``simulated``."""
    return resolve(backend, pin)[0]


def resolve(backend: str, pin: int) -> tuple[str, str | None]:
    """(backend, why a Pi falls back to the simulated strip): the reason is None off a Pi, where simulating
    is what ``auto`` is for, and on a Pi whose strip can be driven."""
    if backend not in BACKENDS:
        raise BadSetting(f"led backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend != "auto":
        return backend, None
    if platform.is_pi5():
        if platform.has_module("neopixel") and platform.has_module("board"):
            return "pi5", None
        return "simulated", "a Pi 5 without its NeoPixel driver (pip install '.[pi5]')"
    if not platform.is_raspberry_pi():
        return "simulated", None
    if not platform.has_module("rpi_ws281x"):
        return "simulated", "the rpi_ws281x driver is not installed (pip install '.[pi]')"
    if pin == 10 and not platform.device_exists("/dev/spidev0.0"):
        return "simulated", "SPI is off: no /dev/spidev0.0 (sudo raspi-config nonint do_spi 0, then reboot)"
    return "ws281x", None


def open_strip(backend: str = "auto", *, count: int = 52, pin: int = 10, brightness: float = 0.25,
               gamma: float = 2.2, order: str = "GRB", png: str | None = None, terminal=None,
               led_map=None) -> Strip:
    """Open the strip the configuration names (``auto`` picks the driver for this board or simulates).

    ``png``, ``terminal`` and ``led_map`` (rows of the picture) only concern the simulated strip."""
    if order not in ORDERS:
        raise BadSetting(f"led order must be one of {', '.join(ORDERS)}, not {order!r}")
    backend, fallback = resolve(backend, pin)
    if backend == "simulated":
        from hardware.leds.simulated import SimulatedStrip
        strip = SimulatedStrip(count, brightness=brightness, gamma=gamma, png=png, terminal=terminal,
                               led_map=led_map)
        strip.fallback = fallback
        if fallback:
            log.warning("led.backend auto: the strip is SIMULATED on this Pi: %s", fallback)
        return strip
    if backend == "ws281x":
        from hardware.leds.ws281x import Ws281xStrip
        return Ws281xStrip(count, pin=pin, brightness=brightness, gamma=gamma, order=order)
    from hardware.leds.pi5 import Pi5Strip
    return Pi5Strip(count, pin=pin, brightness=brightness, gamma=gamma, order=order)
