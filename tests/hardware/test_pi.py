"""What a real Raspberry Pi brings that the other tests do not: drivers that fail, boards told apart by their
SoC, buses left off, a camera stack built against another numpy. Real libraries wherever they run off the
Pi: rpi_ws281x built from its sdist, gpiozero's MockFactory, Debian's apt python3-pywt (built against numpy
1.24, as Raspberry Pi OS builds picamera2) over this venv's numpy."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from hardware import platform
from hardware.buttons import ButtonPins, Command, GpioButtons
from hardware.camera.opencv import capture_properties
from hardware.camera.settings import table_settings
from hardware.exc import DeviceUnavailable
from hardware.leds import ORDERS, open_strip

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "assistant"]
APT_PACKAGES = Path("/usr/lib/python3/dist-packages")


def cli(*args, env=None, timeout=60):
    env = {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": "/nonexistent", "ALCHEMY_TABLE_USER_CONFIG": "/nonexistent",
           **(env or {})}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def test_a_ws281x_strip_that_cannot_start_is_one_line_with_its_hint_and_no_crash_at_exit():
    pytest.importorskip("rpi_ws281x", reason="rpi-ws281x is not installed (pip install rpi-ws281x builds it)")
    # Off a Pi the real driver's begin() fails as on a Pi 5 (code -3: hardware not supported). Before the fix,
    # its atexit clean-up then crashed the process with SIGSEGV (exit 139) after printing FAIL.
    result = cli("check-hardware", "--only", "leds", "--hold", "0", "--set", "led.backend=ws281x")
    assert result.returncode == 1, (result.returncode, result.stderr)
    line, = result.stdout.splitlines()
    assert line.startswith("leds     FAIL") and "code -3" in line and 'led.backend = "pi5"' in line
    assert "Traceback" not in result.stderr


def pretend_pi(monkeypatch, model: str, compatible: str = "brcm,bcm2711"):
    monkeypatch.setattr(platform, "board_model", lambda *a: model)
    monkeypatch.setattr(platform, "compatible", lambda *a: (compatible,))


def test_auto_on_a_pi_with_spi_and_i2c_off_simulates_loudly_and_check_hardware_fails(monkeypatch, capsys, caplog):
    from assistant.cli import main

    monkeypatch.setenv("ALCHEMY_TABLE_SYSTEM_CONFIG", "/nonexistent")
    monkeypatch.setenv("ALCHEMY_TABLE_USER_CONFIG", "/nonexistent")
    pretend_pi(monkeypatch, "Raspberry Pi 4 Model B Rev 1.4")
    monkeypatch.setattr(platform, "has_module", lambda name: True)  # the drivers are installed ...
    monkeypatch.setattr(platform, "device_exists", lambda path: False)  # ... but SPI and I2C are off
    with open_strip("auto", count=3) as strip:
        assert strip.backend == "simulated" and "SPI is off" in strip.fallback
    assert "SIMULATED on this Pi" in caplog.text
    assert main(["check-hardware", "--only", "leds,display", "--hold", "0"]) == 1
    leds, display = capsys.readouterr().out.splitlines()
    assert leds.startswith("leds     FAIL") and "/dev/spidev0.0" in leds and "do_spi" in leds
    assert display.startswith("display  FAIL") and "/dev/i2c-1" in display and "do_i2c" in display
    pretend_pi(monkeypatch, "", "")  # off a Pi, simulating is what auto is for
    assert main(["check-hardware", "--only", "leds,display", "--hold", "0"]) == 0


@pytest.mark.parametrize("order", ORDERS)
def test_the_pi5_strip_takes_every_colour_order(monkeypatch, order):
    made = []

    class NeoPixel(list):
        def __init__(self, pin, n, brightness, auto_write, pixel_order):
            super().__init__([(0, 0, 0)] * n)
            made.append(pixel_order)

        def show(self):
            pass

        def deinit(self):
            pass

    # The real module names these four orders only; its pixel buffer takes any order written out.
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel, neopixel.RGB, neopixel.GRB, neopixel.RGBW, neopixel.GRBW = NeoPixel, "RGB", "GRB", "RGBW", "GRBW"
    board = types.ModuleType("board")
    board.D10 = "D10"
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.setitem(sys.modules, "board", board)
    open_strip("pi5", count=2, order=order).close()
    assert made == [order]


def test_a_compute_module_5_and_a_pi_500_are_pi5_family_by_their_soc(tmp_path):
    def board(model: str, *compatible: str) -> bool:
        (tmp_path / "model").write_bytes(model.encode() + b"\0")
        (tmp_path / "compatible").write_bytes(b"".join(c.encode() + b"\0" for c in compatible))
        return platform.is_pi5(tmp_path / "model", tmp_path / "compatible")

    assert board("Raspberry Pi Compute Module 5 Rev 1.0", "raspberrypi,5-compute-module", "brcm,bcm2712")
    assert board("Raspberry Pi 500 Rev 1.0", "raspberrypi,500", "brcm,bcm2712")
    assert board("Raspberry Pi 5 Model B Rev 1.0", "raspberrypi,5-model-b", "brcm,bcm2712")
    assert not board("Raspberry Pi 4 Model B Rev 1.4", "raspberrypi,4-model-b", "brcm,bcm2711")
    assert not board("Raspberry Pi Compute Module 4 Rev 1.0", "raspberrypi,4-compute-module", "brcm,bcm2711")


def test_a_gpio_held_by_another_program_is_one_line_naming_the_pin(monkeypatch):
    # lgpio, gpiozero's driver on Bookworm, raises its own ``error`` ('GPIO busy'), not a GPIOZeroError.
    lgpio = sys.modules.get("lgpio")
    if lgpio is None:
        lgpio = types.ModuleType("lgpio")

        class error(Exception):  # lgpio's own name; its str() is the repr of the text
            def __init__(self, value):
                super().__init__(value)
                self.value = value

            def __str__(self):
                return repr(self.value)

        lgpio.error = error
        monkeypatch.setitem(sys.modules, "lgpio", lgpio)

    class BusyPin(MockPin):
        def __init__(self, factory, info):
            if info.name == "GPIO13":
                raise lgpio.error("GPIO busy")
            super().__init__(factory, info)

    factory = MockFactory(pin_class=BusyPin)
    with pytest.raises(DeviceUnavailable) as caught:
        GpioButtons(ButtonPins(next=5, back=6, confirm=13), pin_factory=factory)
    message = str(caught.value)
    assert message.startswith("buttons: GPIO13 (confirm): GPIO busy") and "pinctrl" in message
    assert "\n" not in message
    GpioButtons(ButtonPins(next=5, back=6, confirm=13, encoder_a=None, encoder_b=None),
                pin_factory=MockFactory()).close()  # the pins taken before the failure were given back


def test_holding_next_asks_for_a_relock_and_a_short_press_does_not():
    factory = MockFactory()
    with GpioButtons(ButtonPins(next=5), pin_factory=factory, hold_s=0.05) as buttons:
        factory.pin(5).drive_low()
        factory.pin(5).drive_high()
        assert buttons.poll() == [Command.NEXT]
        factory.pin(5).drive_low()
        deadline = time.monotonic() + 2
        seen = []
        while Command.RELOCK not in seen and time.monotonic() < deadline:
            seen += buttons.poll()
            time.sleep(0.01)
        factory.pin(5).drive_high()
        assert seen == [Command.NEXT, Command.RELOCK]


def test_usb_cameras_ask_for_mjpg_before_the_size_and_one_buffer():
    import cv2

    props = capture_properties(table_settings(1280, 960, 10))
    names = [p for p, _ in props]
    assert props[0] == (cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
    assert names.index(cv2.CAP_PROP_FOURCC) < names.index(cv2.CAP_PROP_FRAME_WIDTH)
    assert (cv2.CAP_PROP_BUFFERSIZE, 1) in props


@pytest.mark.skipif(not (APT_PACKAGES / "pywt").is_dir(), reason="Debian's python3-pywt is not installed "
                                                                  "(apt-get install python3-pywt)")
def test_a_camera_stack_built_for_another_numpy_is_one_line_and_exit_2_not_a_restart_loop(tmp_path):
    import numpy

    if numpy.__version__.startswith("1."):
        pytest.skip("this venv's numpy is 1.x: the apt stack imports fine")
    # A picamera2 that imports an apt extension the way Raspberry Pi OS's does (simplejpeg), the system
    # packages after the venv's as --system-site-packages puts them: the real "numpy.dtype size changed".
    fake = tmp_path / "site" / "picamera2"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"import sys\nsys.path.append({str(APT_PACKAGES)!r})\nimport pywt\n")
    result = cli("run", "--simulate", "--set", "camera.source=picamera2", "--set", "buttons.backend=none",
                 "--set", f"table.state_dir={tmp_path / 'state'}",
                 env={"PYTHONPATH": str(fake.parent), "NOTIFY_SOCKET": ""})
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "numpy.dtype size changed" in last and "constraints-bookworm.txt" in last
    assert "Traceback" not in result.stderr and "retrying" not in result.stderr
