"""What board we run on and which drivers are importable: every platform difference is decided here.

``auto`` backends ask these functions; tests replace them (or the files they read) to pretend.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

MODEL_FILE = Path("/proc/device-tree/model")


def board_model(model_file: Path = MODEL_FILE) -> str:
    """The board's model string (``Raspberry Pi 5 Model B Rev 1.0``), or ``''`` off a Pi."""
    try:
        return model_file.read_bytes().rstrip(b"\0").decode("ascii", "replace").strip()
    except OSError:
        return ""


def is_raspberry_pi(model_file: Path = MODEL_FILE) -> bool:
    return board_model(model_file).startswith("Raspberry Pi")


def is_pi5(model_file: Path = MODEL_FILE) -> bool:
    return board_model(model_file).startswith("Raspberry Pi 5")


def has_module(name: str) -> bool:
    """True when ``import name`` would find the module, without importing it."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def device_exists(path: str) -> bool:
    return Path(path).exists()
