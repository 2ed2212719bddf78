"""Fixtures of the live tests: the test table mode, and short sessions of each game rendered once per test
session (the shipped sessions' first steps, one hand frame per move) into a temporary folder."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

PASS_OVER = {"say": "a hand passes over the cauldron and leaves it as it was", "hand": True, "hand_to": "r2c2",
             "expect": []}


def short_session(game: str) -> dict:
    """The first moves of the game's shipped session, with one hand frame per move (fast to render)."""
    from assistant.sessions import session_path

    raw = json.loads(session_path(game).read_text(encoding="utf-8"))
    steps = raw["steps"]
    if game == "chaudron":
        steps = [*steps[:2], PASS_OVER, steps[2]]   # Green Sip and Twin Essence, Tempest and Viper Venom: the mat
    elif game == "alchimiste":
        steps = steps[:4]            # two creations, the illegal potion, taken back
    elif game == "alchymia":
        steps = steps[:6]            # four moves, Basile's time crystal, the next time crystal on the mat
    else:
        steps = steps[:3]            # a test, the sale chosen with the buttons, the sale
    return {**raw, "steps": steps, "hand_frames": 1, "steady_frames": 3}


@pytest.fixture(scope="session")
def short_frames(tmp_path_factory):
    """``short_frames(game)`` -> (session, Rendered), rendered on first use."""
    from assistant.sessions import parse_session
    from assistant.sessions.render import render_session

    cache: dict[str, tuple] = {}

    def get(game: str):
        if game not in cache:
            session = parse_session(short_session(game), f"short {game}")
            cache[game] = session, render_session(session, tmp_path_factory.mktemp(f"{game}-frames"), workers=2)
        return cache[game]

    return get


@pytest.fixture
def echo_mode(monkeypatch):
    """The Chaudron table mode replaced by the test mode (tests/live/echo_mode.py)."""
    from assistant.table import MODES

    monkeypatch.setitem(MODES, "chaudron", "echo_mode:EchoTable")


@pytest.fixture(scope="session")
def echo_frames(short_frames):
    """Frames for the loop's own tests: the short Chaudron session (cards, and a hand that changes nothing)."""
    return short_frames("chaudron")
