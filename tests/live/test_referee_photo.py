"""``referee alchimiste ENDGAME.json --photo RESERVE.jpg``: the trays counted in a rendered photo give the same
answer as typed counts; a tray under a hand is named and asked for, never guessed."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.layout import load_layout
from vision.render import Conditions, Hand, render_frame

RESERVE = {"grey": 6, "blue": 2, "orange": 9, "yellow": 0, "green": 4}
PLAYERS = [{"name": "Abigail", "school": "grey", "fame": 31, "screen": {"grey": 2, "blue": 1}},
           {"name": "Merlin", "school": "orange", "fame": 35, "screen": {"orange": 1, "green": 2, "yellow": 1}},
           {"name": "Morgane", "school": "blue", "fame": 33, "screen": {"blue": 3, "grey": 1}}]


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    layout = load_layout("alchimiste")
    state = {"counts": {f"reserve-{c}": {c: n} for c, n in RESERVE.items()}}
    folder = tmp_path_factory.mktemp("referee")
    rng = np.random.default_rng(2)
    clear, _ = render_frame(layout, state, Conditions(placement_seed=4), rng)
    tray = layout.zone("reserve-orange").center
    hand = Hand((900.0, tray[1]), (tray[0] - 20, tray[1]), height_mm=90.0)
    hidden, truth = render_frame(layout, state, Conditions(placement_seed=4, hand=hand), rng)
    assert truth["counts"]["reserve-orange"] is None  # the hand really hides that tray
    cv2.imwrite(str(folder / "reserve.jpg"), clear)
    cv2.imwrite(str(folder / "hand.jpg"), hidden)
    typed = folder / "typed.json"
    typed.write_text(json.dumps({"game": "alchimiste", "players": PLAYERS, "reserve": RESERVE}))
    untyped = folder / "untyped.json"
    untyped.write_text(json.dumps({"game": "alchimiste", "players": PLAYERS}))
    return folder


def referee_from_photo(cli, photos, photo, *extra):
    """Run the referee on ``photo``; trays it names as doubtful are then counted by hand (the true count), as a
    referee would. Returns (stdout, stderr, trays named)."""
    args = ["referee", "alchimiste", str(photos / "untyped.json"), "--photo", str(photos / photo), *extra]
    code, out, err = cli(*args)
    doubtful = err.split("the tray of ", 1)[-1].split(": count", 1)[0] if code == 2 else ""
    named = [c for c in RESERVE if f"{c} (" in doubtful]
    if code == 2:
        assert named and "--count COLOUR=N" in err and err.count("\n") == 1, err
        code, out, err = cli(*args, *[f"--count={c}={RESERVE[c]}" for c in named])
    assert code == 0, err
    return out, err, named


def test_the_photo_answers_exactly_as_the_typed_counts_and_never_guesses(cli, photos):
    code, typed, _ = cli("referee", "alchimiste", str(photos / "typed.json"))
    assert code == 0
    out, err, named = referee_from_photo(cli, photos, "reserve.jpg", "--annotate", str(photos / "annotated.png"))
    assert out == typed
    assert len(named) <= 2  # most trays are counted from the photo...
    for colour, n in RESERVE.items():  # ...and every count taken from it is right
        assert f"{colour} {n}" in err
    assert cv2.imread(str(photos / "annotated.png")).shape == (960, 1280, 3)
    out, _, _ = referee_from_photo(cli, photos, "reserve.jpg", "--json")
    assert json.loads(out)["winners"] == ["Morgane"]


def test_a_tray_under_a_hand_is_named_and_counted_by_hand(cli, photos):
    code, out, err = cli("referee", "alchimiste", str(photos / "untyped.json"), "--photo", str(photos / "hand.jpg"))
    assert code == 2 and out == ""
    assert "orange (hidden: a hand over the tray) 0 to" in err and "--count COLOUR=N" in err and err.count("\n") == 1
    out, err, named = referee_from_photo(cli, photos, "hand.jpg")
    _, typed, _ = cli("referee", "alchimiste", str(photos / "typed.json"))
    assert "orange" in named and out == typed and "orange 9 (by hand)" in err


def test_count_needs_a_colour_of_the_reserve(cli, photos):
    code, _, err = cli("referee", "alchimiste", str(photos / "untyped.json"), "--photo", str(photos / "reserve.jpg"),
                       "--count", "purple=3")
    assert code == 2 and "not a colour of the reserve" in err
