"""WS281x strips through ``rpi-ws281x`` on a Pi 3/4/Zero 2 (``pip install '.[pi]'``).

GPIO10 drives the strip from SPI (``/dev/spidev0.0``): no root, the user needs the ``spi`` group and
``dtparam=spi=on``. GPIO18 or 12 use PWM channel 0, 13 or 19 PWM channel 1, 21 PCM: these need root.
On a Pi 3 the SPI clock follows the core clock: ``core_freq=250`` in config.txt (Pi 4: ``core_freq=500``
and ``core_freq_min=500``), or the colours come out wrong (docs/hardware.md).

The driver registers an ``atexit`` clean-up when the strip is made; if ``begin()`` then fails, that clean-up
finalises a device the library already freed and the process dies with SIGSEGV at exit. So a failed start
unregisters it and frees the bare structure itself.
"""

from __future__ import annotations

import atexit
import re

from hardware.exc import BadSetting, DeviceUnavailable, DriverMissing
from hardware.leds import Colour, Strip

CHANNELS = {10: 0, 12: 0, 18: 0, 21: 0, 13: 1, 19: 1}
# What to do about each ws2811_init failure (the library's ws2811_return_t codes).
HINTS = {
    -3: "this board is not one rpi-ws281x supports: on a Pi 5, CM5 or Pi 500 use led.backend = \"pi5\" "
        "with pip install '.[pi5]'",
    -4: "PWM and PCM pins need root; use GPIO10 (SPI) for the service",
    -5: "PWM and PCM pins need root; use GPIO10 (SPI) for the service",
    -6: "PWM and PCM pins need root; use GPIO10 (SPI) for the service",
    -9: "PWM and PCM pins need root; use GPIO10 (SPI) for the service",
    -11: "this GPIO cannot drive a strip on this board",
    -13: "is SPI enabled (sudo raspi-config nonint do_spi 0) and the user in group spi?",
}


def hint(pin: int, message: str) -> str:
    found = re.search(r"code (-?\d+)", message)
    code = int(found.group(1)) if found else None
    if code in HINTS:
        return HINTS[code]
    return "is SPI enabled and the user in group spi?" if pin == 10 else "PWM and PCM pins need root"


class Ws281xStrip(Strip):
    backend = "ws281x"

    def __init__(self, count: int, *, pin: int = 10, brightness: float = 0.25, gamma: float = 2.2,
                 order: str = "GRB", dma: int = 10, frequency_hz: int = 800_000):
        super().__init__(count, brightness=brightness, gamma=gamma)
        if pin not in CHANNELS:
            raise BadSetting(f"ws281x: GPIO{pin} cannot drive a strip (use 10 for SPI, or 18, 12, 13, 19, 21)")
        try:
            import rpi_ws281x
        except ImportError:
            raise DriverMissing("ws281x", "rpi_ws281x", "pip install '.[pi]'") from None
        strip_type = getattr(rpi_ws281x.ws, f"WS2811_STRIP_{order}")
        # Brightness and gamma are ours (the same on every backend), so the driver runs at full scale.
        self._driver = rpi_ws281x.PixelStrip(count, pin, frequency_hz, dma, False, 255, CHANNELS[pin], strip_type)
        try:
            self._driver.begin()
        except RuntimeError as e:
            self._forget(rpi_ws281x)
            raise DeviceUnavailable(f"ws281x: cannot start the strip on GPIO{pin}: {e} ({hint(pin, str(e))})") from e
        self.pin = pin

    def _forget(self, rpi_ws281x) -> None:
        """After a failed ``begin()``: no finalising at exit (it would crash), free the bare structure."""
        cleanup = getattr(self._driver, "_cleanup", None)
        if cleanup is not None:
            atexit.unregister(cleanup)
        leds = getattr(self._driver, "_leds", None)
        delete = getattr(getattr(rpi_ws281x, "ws", None), "delete_ws2811_t", None)
        if leds is not None and delete is not None:
            delete(leds)
            self._driver._leds = None

    def _write(self, values: list[Colour]) -> None:
        for i, (r, g, b) in enumerate(values):
            self._driver.setPixelColorRGB(i, r, g, b)
        self._driver.show()

    def _release(self) -> None:
        cleanup = getattr(self._driver, "_cleanup", None)
        if cleanup is not None:
            cleanup()
            atexit.unregister(cleanup)
