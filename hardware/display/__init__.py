"""Displays: screens drawn with Pillow and shown through luma (OLED, LCD) or luma's dummy device (PNG).

>>> from hardware.display import open_display
>>> from hardware.display.screens import Message
>>> with open_display("dummy", model="ssd1306") as display:
...     _ = display.show(Message("Ready", "Place the board"))
...     display.image.size, display.image.mode
((128, 64), '1')
"""

from __future__ import annotations

import logging
from pathlib import Path

from PIL import Image

from hardware import platform
from hardware.display.screens import render
from hardware.exc import BadSetting, DeviceClosed, DeviceUnavailable, DriverMissing

# model -> (width, height, Pillow mode, bus)
MODELS = {"ssd1306": (128, 64, "1", "i2c"), "sh1106": (128, 64, "1", "i2c"), "st7789": (240, 240, "RGB", "spi")}
BACKENDS = ("auto", "luma", "dummy")
log = logging.getLogger(__name__)


class Display:
    """One screen: ``show`` a screen (or a ready Pillow image), ``close`` to blank it and free the bus."""

    def __init__(self, device, *, backend: str, model: str, png: str | None = None):
        self.device = device
        self.backend = backend
        self.model = model
        self.png = png
        self.image: Image.Image | None = None
        self.fallback: str | None = None  # set when ``auto`` on a Pi had to use the dummy display: why
        self._closed = False

    @property
    def size(self) -> tuple[int, int]:
        return tuple(self.device.size)  # type: ignore[return-value]

    @property
    def mode(self) -> str:
        return self.device.mode

    def show(self, screen) -> Image.Image:
        if self._closed:
            raise DeviceClosed(f"{self.model} display is closed")
        image = screen if isinstance(screen, Image.Image) else render(screen, self.size, self.mode)
        if image.size != self.size:
            raise BadSetting(f"an image of {image.size} cannot go on a {self.size} display")
        image = image.convert(self.mode)
        self.device.display(image)
        self.image = image
        if self.png:
            image.save(self.png)
        return image

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.device.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Display {self.model} via {self.backend} {self.size[0]}x{self.size[1]}>"


def bus_device(model: str, *, i2c_port: int = 1, spi_port: int = 1, spi_device: int = 0) -> str:
    return f"/dev/i2c-{i2c_port}" if MODELS[model][3] == "i2c" else f"/dev/spidev{spi_port}.{spi_device}"


def resolve_backend(backend: str, model: str, **bus) -> str:
    """``auto`` -> ``luma`` when its driver is installed and the bus exists, otherwise ``dummy``."""
    return resolve(backend, model, **bus)[0]


def resolve(backend: str, model: str, **bus) -> tuple[str, str | None]:
    """(backend, why a Pi falls back to the dummy display): None off a Pi, where that is what ``auto`` is for."""
    if backend not in BACKENDS:
        raise BadSetting(f"display backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if backend != "auto":
        return backend, None
    driver = "luma.lcd" if model == "st7789" else "luma.oled"
    device = bus_device(model, **bus)
    if platform.has_module(driver) and platform.device_exists(device):
        return "luma", None
    if not platform.is_raspberry_pi():
        return "dummy", None
    if not platform.has_module(driver):
        return "dummy", f"the {driver} driver is not installed (pip install '.[pi]')"
    bus_name, command = ("I2C", "do_i2c") if MODELS[model][3] == "i2c" else ("SPI", "do_spi")
    return "dummy", f"{bus_name} is off: no {device} (sudo raspi-config nonint {command} 0, then reboot)"


def open_display(backend: str = "auto", *, model: str = "ssd1306", i2c_port: int = 1, i2c_address: int = 0x3C,
                 spi_port: int = 1, spi_device: int = 0, dc_pin: int = 24, reset_pin: int = 25,
                 backlight_pin: int = 23, rotate: int = 0, png: str | None = None) -> Display:
    if model not in MODELS:
        raise BadSetting(f"display model must be one of {', '.join(MODELS)}, not {model!r}")
    if rotate not in (0, 1, 2, 3):
        raise BadSetting(f"display rotate is 0..3 (quarter turns), not {rotate!r}")
    width, height, mode, bus = MODELS[model]
    backend, fallback = resolve(backend, model, i2c_port=i2c_port, spi_port=spi_port, spi_device=spi_device)
    if backend == "dummy":
        from luma.core.device import dummy
        if png:
            Path(png).parent.mkdir(parents=True, exist_ok=True)
        display = Display(dummy(width=width, height=height, rotate=rotate, mode=mode), backend="dummy",
                          model=model, png=png)
        display.fallback = fallback
        if fallback:
            log.warning("display.backend auto: the display is SIMULATED on this Pi: %s", fallback)
        return display
    return Display(_luma_device(model, width, height, bus, i2c_port, i2c_address, spi_port, spi_device, dc_pin,
                                reset_pin, backlight_pin, rotate), backend="luma", model=model)


def _luma_device(model, width, height, bus, i2c_port, i2c_address, spi_port, spi_device, dc_pin, reset_pin,
                 backlight_pin, rotate):
    try:
        if bus == "i2c":
            from luma.oled import device as driver
        else:
            from luma.lcd import device as driver
    except ImportError:
        module = "luma.lcd" if bus == "spi" else "luma.oled"
        raise DriverMissing(model, module, "pip install '.[pi]'") from None
    from luma.core.error import Error as LumaError
    from luma.core.interface.serial import i2c, spi
    try:
        if bus == "i2c":
            serial = i2c(port=i2c_port, address=i2c_address)
            return getattr(driver, model)(serial, width=width, height=height, rotate=rotate)
        serial = spi(port=spi_port, device=spi_device, gpio_DC=dc_pin, gpio_RST=reset_pin)
        return getattr(driver, model)(serial, width=width, height=height, rotate=rotate, gpio_LIGHT=backlight_pin)
    except (OSError, LumaError) as e:
        where = f"I2C bus {i2c_port} address {i2c_address:#04x}" if bus == "i2c" else f"SPI {spi_port}.{spi_device}"
        raise DeviceUnavailable(f"{model} display on {where}: {e}") from e
