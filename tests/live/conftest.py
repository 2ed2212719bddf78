"""Fixtures of the live tests: the test table mode, and the frames of its own tests (the short sessions of each
game, ``short_frames``, are tests/conftest.py's)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture
def echo_mode(monkeypatch):
    """The Chaudron table mode replaced by the test mode (tests/live/echo_mode.py)."""
    from assistant.table import MODES

    monkeypatch.setitem(MODES, "chaudron", "echo_mode:EchoTable")


@pytest.fixture(scope="session")
def echo_frames(short_frames):
    """Frames for the loop's own tests: the short Chaudron session (cards, and a hand that changes nothing)."""
    return short_frames("chaudron")
