"""WS281x strips on a Raspberry Pi 5 through Adafruit's NeoPixel driver (``pip install '.[pi5]'``).

The Pi 5 moved GPIO behind the RP1 chip, where ``rpi-ws281x`` cannot reach; Adafruit's driver uses the
RP1's PIO instead and takes any GPIO. Blinka's ``board`` names the pins ``D0``..``D27``. The colour order goes
to the driver as its string (``"BRG"``): ``neopixel`` names only ``RGB``, ``GRB``, ``RGBW`` and ``GRBW``, but its
pixel buffer takes any order written out. ``/dev/pio0`` must be readable by the service's user
(docs/hardware.md gives the udev rule).
"""

from __future__ import annotations

from hardware.exc import BadSetting, DeviceUnavailable, DriverMissing
from hardware.leds import Colour, Strip


class Pi5Strip(Strip):
    backend = "pi5"

    def __init__(self, count: int, *, pin: int = 10, brightness: float = 0.25, gamma: float = 2.2,
                 order: str = "GRB"):
        super().__init__(count, brightness=brightness, gamma=gamma)
        if not 0 <= pin <= 27:
            raise BadSetting(f"pi5: GPIO{pin} is not a header pin (0..27)")
        try:
            import board
            import neopixel
        except ImportError:
            raise DriverMissing("pi5", "neopixel", "pip install '.[pi5]'") from None
        try:
            self._driver = neopixel.NeoPixel(getattr(board, f"D{pin}"), count, brightness=1.0, auto_write=False,
                                             pixel_order=order)
        except (OSError, RuntimeError, ValueError) as e:
            raise DeviceUnavailable(f"pi5: cannot start the strip on GPIO{pin}: {e}") from e
        self.pin = pin

    def _write(self, values: list[Colour]) -> None:
        for i, colour in enumerate(values):
            self._driver[i] = colour
        self._driver.show()

    def _release(self) -> None:
        self._driver.deinit()
