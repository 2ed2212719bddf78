"""Display screens against golden PNGs, the dummy display, and the luma backends through fake drivers.

To redraw the golden images after an intended change: ALCHEMY_TABLE_UPDATE_GOLDEN=1 pytest tests/hardware,
then look at every changed picture before keeping it.
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from hardware import platform
from hardware.display import open_display
from hardware.display.screens import Counter, Menu, Message, Scores, render
from hardware.exc import BadSetting, DeviceClosed, DeviceUnavailable, DriverMissing
from hardware.fonts import printable, wrap

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ALCHEMY_TABLE_UPDATE_GOLDEN") == "1"

SCREENS = {
    "refused": Message("Potion refused", "Cauldron 3 already holds a potion: choose an empty cauldron.",
                       tone="error"),
    "scores": Scores("Fame", (("Alice", 34), ("Bruno", 29), ("Chloé", 29), ("Dan", 17), ("Eve", 12))),
    "last-round": Scores("Fame", (("Alice", 34), ("Bruno", 29), ("Chloé", 21)), note="last round"),
    "cramés": Counter("Cramés", 14, 20),
    "game": Menu("Game", ("Alchimiste", "Alchemists", "Alchymia", "Le Chaudron Magique"), selected=2),
}
SIZES = {"oled": ((128, 64), "1"), "lcd": ((240, 240), "RGB")}


def assert_golden(image: Image.Image, name: str) -> None:
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        image.save(path)
    golden = Image.open(path)
    assert golden.size == image.size and golden.mode == image.mode, f"{name}: size or mode differs"
    diff = ImageChops.difference(golden.convert("RGB"), image.convert("RGB")).getbbox()
    assert diff is None, f"{name}: pixels differ from the golden image in {diff}"


@pytest.mark.parametrize("kind", SIZES)
@pytest.mark.parametrize("screen", SCREENS)
def test_screen_matches_golden(screen, kind):
    size, mode = SIZES[kind]
    image = render(SCREENS[screen], size, mode)
    assert image.size == size and image.mode == mode
    assert_golden(image, f"{screen}-{kind}")


def test_screens_differ_when_their_data_does():
    a = render(Counter("Cramés", 14, 20), (128, 64), "1")
    b = render(Counter("Cramés", 15, 20), (128, 64), "1")
    assert ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is not None


def test_long_text_is_wrapped_and_cut_to_the_screen():
    text = "a " * 200
    image = render(Message("Long", text), (128, 64), "1")
    assert image.size == (128, 64)
    assert wrap("the Cramé token is burnt", 60) == ["the Cramé", "token is", "burnt"]  # 10 a line
    assert wrap("abcdefghijklmnop", 36) == ["abcdef", "ghijkl", "mnop"]
    assert printable("a → b ✓") == "a -> b ok"


def test_bad_screens_are_refused():
    with pytest.raises(BadSetting, match="tone"):
        render(Message("x", tone="loud"), (128, 64), "1")
    with pytest.raises(BadSetting, match="menu"):
        render(Menu("x", ("a",), selected=3), (128, 64), "1")


def test_dummy_display_saves_the_screen_as_png(tmp_path):
    png = tmp_path / "screens" / "display.png"
    with open_display("dummy", model="st7789", png=str(png)) as display:
        assert display.size == (240, 240) and display.mode == "RGB"
        display.show(SCREENS["refused"])
        assert_golden(Image.open(png), "refused-lcd")
        assert display.device.image.tobytes() == display.image.tobytes()  # what luma's dummy holds
    with pytest.raises(DeviceClosed, match="closed"):
        display.show(SCREENS["refused"])


def test_dummy_display_rotated_shows_the_same_screen():
    with open_display("dummy", model="sh1106", rotate=2) as display:
        display.show(SCREENS["cramés"])
        assert display.image.size == (128, 64)
        assert_golden(display.image, "cramés-oled")


def test_auto_display_is_dummy_without_the_bus(monkeypatch):
    monkeypatch.setattr(platform, "device_exists", lambda path: False)
    with open_display("auto") as display:
        assert display.backend == "dummy" and display.size == (128, 64)
    with pytest.raises(BadSetting, match="model"):
        open_display("dummy", model="hd44780")


class FakeLumaDevice:
    def __init__(self, serial, width, height, rotate, **kwargs):
        self.serial, self.size, self.rotate, self.kwargs = serial, (width, height), rotate, kwargs
        self.mode = "RGB" if kwargs else "1"
        self.shown = []
        self.cleaned = False

    def display(self, image):
        self.shown.append(image)

    def cleanup(self):
        self.cleaned = True


@pytest.fixture
def fake_luma(monkeypatch):
    serial = types.ModuleType("luma.core.interface.serial")
    serial.i2c = lambda port, address: ("i2c", port, address)
    serial.spi = lambda port, device, gpio_DC, gpio_RST: ("spi", port, device, gpio_DC, gpio_RST)
    oled = types.ModuleType("luma.oled.device")
    oled.ssd1306 = type("ssd1306", (FakeLumaDevice,), {})
    oled.sh1106 = type("sh1106", (FakeLumaDevice,), {})
    lcd = types.ModuleType("luma.lcd.device")
    lcd.st7789 = type("st7789", (FakeLumaDevice,), {})
    for name, module in (("luma.core.interface.serial", serial), ("luma.oled", types.ModuleType("luma.oled")),
                         ("luma.oled.device", oled), ("luma.lcd", types.ModuleType("luma.lcd")),
                         ("luma.lcd.device", lcd)):
        monkeypatch.setitem(sys.modules, name, module)
    sys.modules["luma.oled"].device = oled
    sys.modules["luma.lcd"].device = lcd
    return serial


def test_luma_oled_on_i2c(fake_luma):
    with open_display("luma", model="sh1106", i2c_port=1, i2c_address=0x3D) as display:
        display.show(SCREENS["scores"])
        device = display.device
        assert type(device).__name__ == "sh1106" and device.serial == ("i2c", 1, 0x3D)
        assert_golden(device.shown[0], "scores-oled")
    assert device.cleaned


def test_luma_lcd_on_spi(fake_luma):
    with open_display("luma", model="st7789", spi_port=1, spi_device=0, dc_pin=24, reset_pin=25,
                      backlight_pin=23) as display:
        display.show(SCREENS["game"])
        device = display.device
        assert device.serial == ("spi", 1, 0, 24, 25) and device.kwargs == {"gpio_LIGHT": 23}
        assert_golden(device.shown[0], "game-lcd")


def test_luma_failures_are_one_line_errors(fake_luma, monkeypatch):
    from luma.core.error import DeviceNotFoundError

    def absent(port, address):
        raise DeviceNotFoundError(f"I2C device not found: /dev/i2c-{port}")

    monkeypatch.setattr(fake_luma, "i2c", absent)
    with pytest.raises(DeviceUnavailable, match=r"ssd1306 display on I2C bus 1 address 0x3c: I2C device not found"):
        open_display("luma", model="ssd1306")
    monkeypatch.setitem(sys.modules, "luma.oled", None)
    with pytest.raises(DriverMissing, match=r"luma\.oled"):
        open_display("luma", model="ssd1306")
