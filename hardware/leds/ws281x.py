"""WS281x strips through ``rpi-ws281x`` on a Pi 3/4/Zero 2 (``pip install '.[pi]'``).

GPIO10 drives the strip from SPI (``/dev/spidev0.0``): no root, the user needs the ``spi`` group and
``dtparam=spi=on``. GPIO18 or 12 use PWM channel 0, 13 or 19 PWM channel 1, 21 PCM: these need root.
"""

from __future__ import annotations

from hardware.exc import BadSetting, DeviceUnavailable, DriverMissing
from hardware.leds import Colour, Strip

CHANNELS = {10: 0, 12: 0, 18: 0, 21: 0, 13: 1, 19: 1}


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
            hint = "is SPI enabled and the user in group spi?" if pin == 10 else "PWM needs root"
            raise DeviceUnavailable(f"ws281x: cannot start the strip on GPIO{pin}: {e} ({hint})") from e
        self.pin = pin

    def _write(self, values: list[Colour]) -> None:
        for i, (r, g, b) in enumerate(values):
            self._driver.setPixelColorRGB(i, r, g, b)
        self._driver.show()

    def _release(self) -> None:
        cleanup = getattr(self._driver, "_cleanup", None)
        if cleanup is not None:
            cleanup()
