"""Shared test helpers, and the short sessions of each game rendered once per test session (the live tests
replay them, the web page's tests serve them)."""

from __future__ import annotations

import json
import os

import cv2
import pytest

from assistant.cli import main

if os.environ.get("PYTEST_XDIST_WORKER"):
    # One worker per core already (``make test``): OpenCV's own threads would only contend for the same cores.
    cv2.setNumThreads(1)

PASS_OVER = {"say": "a hand passes over the cauldron and leaves it as it was", "hand": True, "hand_to": "r2c2",
             "expect": []}


@pytest.fixture
def cli(capsys):
    """Run the CLI in-process: returns (exit code, stdout, stderr)."""

    def run(*argv: str):
        try:
            code = main(list(argv))
        except SystemExit as e:  # argparse's --help/--version/usage errors
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        out, err = capsys.readouterr()
        return code, out, err

    return run


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
    """``short_frames(game)`` -> (session, Rendered): the game's short session rendered on first use, once for
    the whole run (Alchemists: a test, a sale chosen with the buttons, the sale; Alchimiste: two creations, an
    illegal potion taken back; Chaudron: cards, potions and a hand that changes nothing; Alchymia: four moves
    and a time crystal)."""
    from assistant.sessions import parse_session
    from assistant.sessions.render import render_session

    cache: dict[str, tuple] = {}

    def get(game: str):
        if game not in cache:
            session = parse_session(short_session(game), f"short {game}")
            cache[game] = session, render_session(session, tmp_path_factory.mktemp(f"{game}-frames"), workers=2)
        return cache[game]

    return get
