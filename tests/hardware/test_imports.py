"""``import hardware`` works anywhere: no driver is imported until its backend is opened. And the
interactive examples in the docstrings are true."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import pytest

MODULES = ["hardware", "hardware.clock", "hardware.fonts", "hardware.platform", "hardware.exc", "hardware.buttons",
           "hardware.leds", "hardware.leds.map", "hardware.leds.patterns", "hardware.leds.simulated",
           "hardware.leds.ws281x", "hardware.leds.pi5", "hardware.display", "hardware.display.screens",
           "hardware.camera", "hardware.camera.settings", "hardware.camera.retry", "hardware.camera.folder",
           "hardware.camera.opencv", "hardware.camera.picamera", "assistant.config", "assistant.notify"]


def test_every_module_imports_without_any_pi_driver():
    drivers = ["picamera2", "rpi_ws281x", "neopixel", "board", "luma.oled", "luma.lcd"]
    code = ("import sys\n"
            f"for name in {drivers!r}: sys.modules[name] = None  # any import of them would fail\n"
            f"for name in {MODULES!r}: __import__(name)\n"
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    failed, _ = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert failed == 0
