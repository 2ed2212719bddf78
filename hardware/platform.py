"""What board we run on and which drivers are importable: every platform difference is decided here.

``auto`` backends ask these functions; tests replace them (or the files they read) to pretend.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")
# The SoC, not the model's name, says which drivers work: a Compute Module 5 or a Pi 500 is a BCM2712 with
# the RP1 behind it, as a Pi 5 is, but its model string does not start "Raspberry Pi 5".
COMPATIBLE_FILE = Path("/proc/device-tree/compatible")
PI5_SOC = "brcm,bcm2712"


def board_model(model_file: Path = MODEL_FILE) -> str:
    """The board's model string (``Raspberry Pi 5 Model B Rev 1.0``), or ``''`` off a Pi."""
    try:
        return model_file.read_bytes().rstrip(b"\0").decode("ascii", "replace").strip()
    except OSError:
        return ""


def is_raspberry_pi(model_file: Path = MODEL_FILE) -> bool:
    return board_model(model_file).startswith("Raspberry Pi")


def compatible(compatible_file: Path = COMPATIBLE_FILE) -> tuple[str, ...]:
    """The device tree's ``compatible`` strings (``raspberrypi,5-model-b``, ``brcm,bcm2712``), or ``()``."""
    try:
        raw = compatible_file.read_bytes()
    except OSError:
        return ()
    return tuple(part.decode("ascii", "replace") for part in raw.split(b"\0") if part)


def is_pi5(model_file: Path = MODEL_FILE, compatible_file: Path = COMPATIBLE_FILE) -> bool:
    """A Pi 5, Compute Module 5 or Pi 500: anything built on the BCM2712 (GPIO behind the RP1)."""
    return PI5_SOC in compatible(compatible_file) or board_model(model_file).startswith("Raspberry Pi 5")


def has_module(name: str) -> bool:
    """True when ``import name`` would find the module, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def device_exists(path: str) -> bool:
    return Path(path).exists()
