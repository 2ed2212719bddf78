"""LED strips, the LED map and patterns: simulated strip, the real backends through fake drivers."""

from __future__ import annotations

import io
import sys
import types
from typing import ClassVar

import pytest
from PIL import Image

from hardware import platform
from hardware.clock import SteppedClock
from hardware.exc import BadSetting, DeviceClosed, DriverMissing
from hardware.leds import open_strip, resolve_backend
from hardware.leds.map import DEFAULT_COUNT, LedMap, default_groups
from hardware.leds.patterns import GREEN, RED, BarGraph, Flash, Lights, Pulse, Solid
from hardware.leds.simulated import SimulatedStrip

OFF = (0, 0, 0)


def test_brightness_limit_and_gamma_shape_what_goes_on_the_wire():
    strip = SimulatedStrip(3, brightness=0.5, gamma=2.0)
    strip[0] = (255, 255, 255)
    strip[1] = (128, 0, 64)
    strip.show()
    assert strip.shown[0] == (128, 128, 128)  # full white is capped at half
    assert strip.shown[1] == (round(127.5 * (128 / 255) ** 2), 0, round(127.5 * (64 / 255) ** 2))
    assert strip.shown[2] == OFF
    assert strip.pixels[1] == (128, 0, 64)  # the logical colour is kept as set


def test_strip_rejects_bad_settings_and_colours():
    with pytest.raises(BadSetting, match="brightness"):
        SimulatedStrip(3, brightness=1.5)
    with pytest.raises(BadSetting, match="count"):
        SimulatedStrip(0)
    strip = SimulatedStrip(3)
    with pytest.raises(BadSetting, match="colour"):
        strip[0] = (256, 0, 0)
    with pytest.raises(IndexError):
        strip[3] = (1, 2, 3)


def test_close_turns_every_pixel_off_and_refuses_further_shows():
    with SimulatedStrip(4) as strip:
        strip.fill(RED)
        strip.show()
        assert strip.shown == [(64, 0, 0)] * 4
    assert strip.shown == [OFF] * 4
    with pytest.raises(DeviceClosed):
        strip.show()
    strip.close()  # twice is harmless


def test_simulated_strip_draws_png_and_terminal(tmp_path):
    png = tmp_path / "strip.png"
    term = io.StringIO()
    led_map = LedMap.parse({"status": [0], "crame": "1-4"}, 5)
    strip = SimulatedStrip(5, png=str(png), terminal=term, led_map=led_map)
    strip[0] = GREEN
    strip[2] = RED
    strip.show()
    image = Image.open(png).convert("RGB")
    assert image.height > image.width / 10  # two labelled rows
    colours = {c for _, c in image.getcolors(100000)}
    assert GREEN in colours and RED in colours
    line = term.getvalue().strip()
    assert "\x1b[38;2;0;255;0m" in line and "\x1b[38;2;255;0;0m" in line
    assert line.count("●") == 2 and line.count("·") == 3


def test_led_map_ranges_lists_and_errors():
    m = LedMap.parse(default_groups(), DEFAULT_COUNT)
    assert m["status"] == (0,)
    assert m["crame"] == tuple(range(31, 51)) and len(m["crame"]) == 20
    assert [m[f"cauldron-{n}"] for n in range(1, 11)] == [(n,) for n in range(1, 11)]
    assert m["player-5"] == (27, 28, 29, 30)
    with pytest.raises(BadSetting, match=r"^crame: pixel 51 is outside the strip of 51"):
        LedMap.parse({"crame": "40-51"}, 51)
    with pytest.raises(BadSetting, match=r"^bar: a range"):
        LedMap.parse({"bar": "1..4"}, 51)
    with pytest.raises(BadSetting, match="backwards"):
        LedMap.parse({"bar": "5-1"}, 51)
    with pytest.raises(KeyError, match="no LED group 'nope'"):
        m["nope"]


def lights(groups, count):
    clock = SteppedClock()
    strip = SimulatedStrip(count)
    return Lights(strip, LedMap.parse(groups, count), clock), strip, clock


def test_flash_stepped_in_time_pixel_by_pixel():
    lt, strip, clock = lights({"status": [0], "cauldron-1": "1-2"}, 4)
    lt.play("status", Solid(GREEN))
    lt.play("cauldron-1", Flash(RED, period=1.0, duty=0.25, times=2))
    seen = []
    for _ in range(10):
        lt.render()
        seen.append(strip.pixels)
        clock.advance(0.25)
    on, off = (GREEN, RED, RED, OFF), (GREEN, OFF, OFF, OFF)
    assert seen == [on, off, off, off, on, off, off, off, off, off]  # two flashes, then dark


def test_pulse_rises_and_falls_and_starts_when_played():
    lt, strip, clock = lights({"status": [0]}, 1)
    clock.advance(7.3)  # a pattern's time starts when it is played, not at zero
    lt.play("status", Pulse((200, 100, 0), period=2.0, low=0.1))
    values = []
    for _ in range(5):
        lt.render()
        values.append(strip[0])
        clock.advance(0.5)
    assert values == [(20, 10, 0), (110, 55, 0), (200, 100, 0), (110, 55, 0), (20, 10, 0)]


def test_bar_graph_lights_the_count_with_a_ramp():
    lt, strip, _ = lights({"crame": "0-19"}, 20)
    lt.play("crame", BarGraph(7, 20, (GREEN, RED)))
    lt.render()
    lit = [p for p in strip.pixels if p != OFF]
    assert len(lit) == 7
    assert strip[0] == GREEN and strip[6] == (round(255 * 6 / 19), round(255 - 255 * 6 / 19), 0)
    lt.play("crame", BarGraph(20, 20, RED))
    lt.render()
    assert strip.pixels == (RED,) * 20
    lt.play("crame", BarGraph(19.5, 20, RED))  # full only at the maximum
    lt.render()
    assert strip.pixels.count(RED) == 19


def test_stopped_and_unplayed_groups_are_dark():
    lt, strip, _ = lights({"a": [0], "b": [1]}, 3)
    lt.play("a", Solid(RED))
    lt.play("b", Solid(GREEN))
    lt.stop("b")
    lt.render()
    assert strip.pixels == (RED, OFF, OFF)
    with pytest.raises(KeyError):
        lt.play("c", Solid(RED))


def test_auto_backend_is_simulated_off_a_pi(monkeypatch):
    monkeypatch.setattr(platform, "board_model", lambda *a: "")
    assert resolve_backend("auto", 10) == "simulated"
    with open_strip("auto", count=5) as strip:
        assert isinstance(strip, SimulatedStrip)


def test_auto_backend_picks_the_pi5_driver_on_a_pi5(monkeypatch):
    monkeypatch.setattr(platform, "board_model", lambda *a: "Raspberry Pi 5 Model B Rev 1.0")
    monkeypatch.setattr(platform, "has_module", lambda name: name in ("neopixel", "board"))
    assert resolve_backend("auto", 10) == "pi5"
    monkeypatch.setattr(platform, "has_module", lambda name: False)
    assert resolve_backend("auto", 10) == "simulated"


class FakePixelStrip:
    instances: ClassVar[list] = []

    def __init__(self, num, pin, freq_hz, dma, invert, brightness, channel, strip_type):
        self.args = (num, pin, freq_hz, dma, invert, brightness, channel, strip_type)
        self.buffer = [OFF] * num
        self.frames = []
        self.cleaned = False
        FakePixelStrip.instances.append(self)

    def begin(self):
        pass

    def setPixelColorRGB(self, i, r, g, b):
        self.buffer[i] = (r, g, b)

    def show(self):
        self.frames.append(list(self.buffer))

    def _cleanup(self):
        self.cleaned = True


@pytest.fixture
def fake_ws281x(monkeypatch):
    module = types.ModuleType("rpi_ws281x")
    module.PixelStrip = FakePixelStrip
    module.ws = types.SimpleNamespace(WS2811_STRIP_GRB=0x081000, WS2811_STRIP_RGB=0x100800)
    FakePixelStrip.instances = []
    monkeypatch.setitem(sys.modules, "rpi_ws281x", module)
    return module


def test_ws281x_backend_drives_spi_on_gpio10_with_corrected_values(fake_ws281x):
    with open_strip("ws281x", count=3, brightness=1.0, gamma=1.0) as strip:
        strip[1] = (10, 20, 30)
        strip.show()
        driver = FakePixelStrip.instances[0]
        assert driver.args == (3, 10, 800_000, 10, False, 255, 0, 0x081000)
        assert driver.frames[-1] == [OFF, (10, 20, 30), OFF]
    assert driver.frames[-1] == [OFF] * 3 and driver.cleaned


def test_ws281x_pwm_channel_and_bad_pin(fake_ws281x):
    open_strip("ws281x", count=2, pin=19, order="RGB").close()
    assert FakePixelStrip.instances[-1].args[6] == 1 and FakePixelStrip.instances[-1].args[7] == 0x100800
    with pytest.raises(BadSetting, match="GPIO4 cannot drive"):
        open_strip("ws281x", count=2, pin=4)


def test_missing_drivers_are_reported_not_crashed(monkeypatch):
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)  # None in sys.modules makes the import fail
    monkeypatch.setitem(sys.modules, "neopixel", None)
    with pytest.raises(DriverMissing, match=r"rpi_ws281x.*pip install '\.\[pi\]'"):
        open_strip("ws281x", count=2)
    with pytest.raises(DriverMissing, match=r"pi5"):
        open_strip("pi5", count=2)


def test_pi5_backend_through_the_neopixel_driver(monkeypatch):
    made = []

    class NeoPixel(list):
        def __init__(self, pin, n, brightness, auto_write, pixel_order):
            super().__init__([OFF] * n)
            self.setup = (pin, n, brightness, auto_write, pixel_order)
            self.shown = []
            self.deinited = False
            made.append(self)

        def show(self):
            self.shown.append(list(self))

        def deinit(self):
            self.deinited = True

    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel, neopixel.GRB = NeoPixel, "GRB"
    board = types.ModuleType("board")
    board.D10 = "D10"
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.setitem(sys.modules, "board", board)
    with open_strip("pi5", count=2, brightness=0.5, gamma=1.0) as strip:
        strip[0] = (200, 100, 0)
        strip.show()
    driver = made[0]
    assert driver.setup == ("D10", 2, 1.0, False, "GRB")
    assert driver.shown[0] == [(100, 50, 0), OFF]
    assert driver.shown[-1] == [OFF, OFF] and driver.deinited
