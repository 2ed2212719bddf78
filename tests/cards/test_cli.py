"""``calibrate cards``, ``read --cards``, ``render`` and ``eval --cards`` as a user runs them; errors are one
line and exit 2."""

from __future__ import annotations

import json

import pytest


def render(cli, tmp_path, name: str, zones: dict[str, str], seed: int = 3, layout: str = "alchemists",
           lighting: str = "daylight") -> str:
    state = tmp_path / f"{name}.state.json"
    state.write_text(json.dumps({"zones": zones}))
    out = tmp_path / f"{name}.png"
    code, _, err = cli("render", "--layout", layout, "--state", str(state), "--out", str(out), "--lighting", lighting,
                       "--no-hand", "--seed", str(seed))
    assert code == 0, err
    return str(out)


def test_enrol_then_read_names_the_cards_and_re_enrolling_replaces(cli, tmp_path):
    cards = tmp_path / "cards"
    shots = [render(cli, tmp_path, n, {"card-left": n}, seed=i) for i, n in enumerate(("fern", "claw", "toad"))]
    code, out, err = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), *shots)
    assert code == 0, err
    assert "fern: enrolled" in out and "set alchemists-ingredients: 3 cards" in out and "not yet: feather" in out
    data = json.loads((cards / "alchemists-ingredients" / "set.json").read_text())
    assert sorted(data["cards"]) == ["claw", "fern", "toad"] and data["card_mm"] == [63, 88]
    # Enrolled again under another light, from a picture of another name: the card is replaced, not added.
    again = render(cli, tmp_path, "IMG_0001", {"card-right": "fern"}, seed=9, lighting="warm")
    code, out, _ = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), f"fern={again}")
    assert code == 0 and "fern: re-enrolled (replaced)" in out and "3 cards enrolled" in out
    data = json.loads((cards / "alchemists-ingredients" / "set.json").read_text())
    assert data["cards"]["fern"]["zone"] == "card-right" and data["cards"]["fern"]["source"] == again
    frame = render(cli, tmp_path, "table", {"card-left": "toad", "card-right": "claw"}, seed=21, lighting="cool")
    code, out, _ = cli("read", frame, "--layout", "alchemists", "--cards", str(cards), "--json")
    assert code == 0
    zones = json.loads(out)["zones"]
    assert zones["card-left"]["label"] == "toad" and zones["card-right"]["label"] == "claw"


def test_render_draws_cards_and_a_stranger_is_unknown_in_the_truth(cli, tmp_path):
    out = tmp_path / "mat.png"
    code, _, _ = cli("render", "--layout", "chaudron-potions", "--out", str(out), "--seed", "4")
    assert code == 0
    truth = json.loads(out.with_suffix(".json").read_text())
    labels = set(truth["zones"].values())
    assert len(truth["zones"]) == 7 and labels - {"empty", "unknown"}  # some potions named in the truth
    assert labels <= {"empty", "unknown", "dawn-tonic", "mist-draught", "marrow-broth", "root-knot", "green-sip",
                      "ember-tea", "tempest", "viper-venom", "twin-essence", "smoulder", "sage-stone", "serpent-oil",
                      "elixir-of-life"}


def test_eval_reports_card_accuracy_and_unknown_cards_accepted(cli, tmp_path):
    cards, frames = tmp_path / "cards", tmp_path / "set"
    frames.mkdir()
    shots = [render(cli, tmp_path, n, {"card-left": n}, seed=i) for i, n in enumerate(("root", "flower"))]
    assert cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), *shots)[0] == 0
    render(cli, frames, "a", {"card-left": "flower", "card-right": "root"}, seed=31, lighting="dim")
    render(cli, frames, "b", {"card-left": "root", "card-right": "empty"}, seed=32, lighting="warm")
    code, out, _ = cli("eval", str(frames), "--cards", str(cards), "--json")
    assert code == 0
    table = json.loads(out)
    row = table["cards"]["all"]
    assert row["card_views"] == 3 and row["cards_right_pct"] == 100.0 and row["empty_right_pct"] == 100.0
    assert row["median_ms_per_card_zone"] > 0
    code, out, _ = cli("eval", str(frames), "--cards", str(cards))
    assert code == 0 and "Card zones:" in out and "unknown accepted %" in out


@pytest.mark.parametrize("case", ["no card zone", "no card", "two cards", "not in the set", "bad zone",
                                  "missing image", "nothing to enrol", "no board"])
def test_enrolment_errors_are_one_line_and_exit_2(cli, tmp_path, case):
    cards = str(tmp_path / "cards")
    if case == "no card zone":
        args, expected = ["--layout", "chaudron", "x.png"], "chaudron has no card zone"
    elif case == "no card":
        args, expected = ["--layout", "alchemists", render(cli, tmp_path, "fern", {})], "no card found"
    elif case == "two cards":
        shot = render(cli, tmp_path, "fern", {"card-left": "fern", "card-right": "claw"})
        args, expected = ["--layout", "alchemists", shot], "2 card zones hold a card"
    elif case == "not in the set":
        shot = render(cli, tmp_path, "dragon", {"card-left": "fern"})
        args, expected = ["--layout", "alchemists", shot], "'dragon' is not a card of set alchemists-ingredients"
    elif case == "bad zone":
        args, expected = ["--layout", "alchemists", "--zone", "card-middle", "x.png"], "--zone: 'card-middle'"
    elif case == "missing image":
        args, expected = ["--layout", "alchemists", str(tmp_path / "nope.png")], "nope.png: no such file"
    elif case == "nothing to enrol":
        args, expected = ["--layout", "alchemists"], "give [NAME=]IMAGE... or --camera NAME"
    else:
        blank = tmp_path / "blank.png"
        import cv2
        import numpy as np
        cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
        args, expected = ["--layout", "alchemists", str(blank)], "the board (alchemists) is not found"
    code, out, err = cli("calibrate", "cards", "--out", cards, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


def test_a_broken_set_file_is_one_line(cli, tmp_path):
    folder = tmp_path / "cards" / "alchemists-ingredients"
    folder.mkdir(parents=True)
    (folder / "set.json").write_text("{not json")
    frame = render(cli, tmp_path, "x", {"card-left": "fern"})
    code, _, err = cli("read", frame, "--layout", "alchemists", "--cards", str(tmp_path / "cards"))
    assert code == 2 and "set.json: not valid JSON" in err and err.count("\n") == 1
    code, _, err = cli("read", frame, "--layout", "alchemists", "--cards", str(tmp_path / "none"))
    assert code == 2 and "no such cards folder" in err


def render_deck(cli, tmp_path, name: str, zones: dict[str, str], deck: int, seed: int, lighting: str = "daylight"):
    """A frame of the alchemists mat whose cards are drawn from ``deck`` (render --deck)."""
    state = tmp_path / f"{name}.state.json"
    state.write_text(json.dumps({"zones": zones}))
    out = tmp_path / f"{name}.png"
    code, _, err = cli("render", "--layout", "alchemists", "--state", str(state), "--out", str(out), "--lighting",
                       lighting, "--no-hand", "--seed", str(seed), "--deck", str(deck), "--still")
    assert code == 0, err
    return str(out)


def test_the_enrolled_set_is_checked_pair_by_pair_and_a_second_photo_is_kept(cli, tmp_path):
    cards = tmp_path / "cards"
    # Deck 7: claw, mushroom and root are of one family (one frame and palette).
    shots = [render_deck(cli, tmp_path, n, {"card-left": n}, 7, 40 + i) for i, n in enumerate(("claw", "mushroom"))]
    code, out, err = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), *shots)
    assert code == 0, err
    assert "set alchemists-ingredients: 1 look-alike pairs" in out and "claw / mushroom (likeness" in out
    second = render_deck(cli, tmp_path, "again", {"card-right": "claw"}, 7, 49, "warm")
    code, out, err = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), "--second",
                         f"claw={second}")
    assert code == 0, err
    assert "claw: second photo kept" in out and "2 cards enrolled" in out
    data = json.loads((cards / "alchemists-ingredients" / "set.json").read_text())
    assert data["cards"]["claw"]["more"] == ["claw.2.png"]
    assert (cards / "alchemists-ingredients" / "claw.2.png").exists()
    code, out, _ = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), "--check")
    assert code == 0 and "claw / mushroom" in out and "not yet: feather, fern" in out
    # Enrolled again (not --second), the card's second photo goes with its first.
    code, out, _ = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), f"claw={shots[0]}")
    data = json.loads((cards / "alchemists-ingredients" / "set.json").read_text())
    assert code == 0 and "more" not in data["cards"]["claw"]
    # A second photo of a card not enrolled: one line, exit 2.
    code, out, err = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), "--second",
                         f"root={second}")
    assert code == 2 and out == "" and "--second: root is not enrolled" in err and err.count("\n") == 1
