"""``alchemy-table check`` on Alchymia records."""

import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "alchymia-game.json"


def record(tmp_path, turns, **extra):
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"game": "alchymia", "players": ["Ada", "Bea", "Cy"], "turns": turns, **extra}))
    return str(path)


def test_the_example_game_is_legal_to_its_winner(cli):
    code, out, err = cli("check", str(EXAMPLE))
    assert code == 0, out + err
    assert "holds the five crystals and wins" in out and "(boards read)" in out and "takes " in out
    code, out, _ = cli("check", str(EXAMPLE), "--json")
    data = json.loads(out)
    assert data["legal"] and data["final"]["winner"] is not None
    assert len(data["final"]["crystals"][data["final"]["winner"]]) == 5


def test_an_illegal_turn_stops_the_replay(cli, tmp_path):
    turns = [
        {"card": "G", "uses": [{"power": "Integration", "colour": "green", "to": "Ada r1c1"}]},
        {"card": "GY", "uses": [{"power": "Attraction", "from": "Ada r1c1", "to": "Bea r0c0"}]},
        {"card": "R", "uses": [{"power": "Integration", "colour": "red", "to": "Cy r0c0"}]},
    ]
    code, out, _ = cli("check", record(tmp_path, turns))
    assert code == 1
    assert "#1" in out and "Attraction needs the Earth crystal" in out and "#2" not in out


def test_boards_read_after_a_turn_are_explained(cli, tmp_path):
    turns = [
        {"card": "GY", "after": {"Ada": ["...", ".G.", "..Y"]}},
        {"card": "B", "after": {"Bea": "B../.../..."}},
        {"card": "R", "after": {"Ada": ["...", ".G.", "..."]}},  # Cy cannot touch Ada's board
    ]
    code, out, _ = cli("check", record(tmp_path, turns))
    assert code == 1
    assert "Integration: green onto Ada r1c1" in out and "Integration: blue onto Bea r0c0" in out
    assert "Ada's board changed" in out


@pytest.mark.parametrize("turn, message", [
    ({"card": "G"}, "turns[0]: give either uses"),
    ({"card": "XYZ", "uses": []}, "turns[0].card: 'XYZ' is neither a card of the deck"),
    ({"card": "G", "uses": [{"power": "Fly"}]}, "turns[0].uses[0].power: expected one of Integration"),
    ({"card": "G", "uses": [{"power": "Integration", "colour": "green", "to": "Zed r0c0"}]},
     "turns[0].uses[0].to: 'Zed' is not a player"),
    ({"card": "G", "uses": [{"power": "Integration", "colour": "green", "to": "Ada r5c0"}]},
     "turns[0].uses[0].to: no position r5c0"),
    ({"card": "G", "player": "Bea", "uses": []}, "turns[0].player: it is Ada's turn"),
    ({"card": "G", "after": {"Ada": ["G..", "..."]}}, "turns[0].after.Ada: a 2 x 3 board"),
])
def test_malformed_records_get_one_line(cli, tmp_path, turn, message):
    path = record(tmp_path, [turn])
    code, _out, err = cli("check", path)
    assert code == 2 and message in err and "Traceback" not in err
    assert err.count("\n") == 1 and f"{path}: turns[0]" in err


def test_a_deck_of_another_size_than_the_layout_is_refused(cli, tmp_path):
    code, _, err = cli("check", record(tmp_path, [], layout="chaudron"))
    assert code == 2 and "deck: its crystals are 3 x 3, the layout's boards are 6 x 6" in err


def test_crystal_stacks_in_a_given_order(cli, tmp_path):
    order = {"earth": ["earth-2", "earth-1", "earth-3", "earth-4", "earth-5"]}
    turns = [{"card": "GG", "uses": [{"power": "Integration", "colour": "green", "to": "Ada r0c0"},
                                     {"power": "Integration", "colour": "green", "to": "Ada r0c1"}]},
             {"card": "Y", "uses": [{"power": "Integration", "colour": "yellow", "to": "Bea r0c0"}]},
             {"card": "Y", "uses": [{"power": "Integration", "colour": "yellow", "to": "Cy r0c0"}]},
             {"card": "Y", "uses": [{"power": "Integration", "colour": "yellow", "to": "Ada r2c1"}]}]
    code, out, _ = cli("check", record(tmp_path, turns, crystals=order))
    assert code == 0 and "takes earth-2 (earth)" in out
    code, _, err = cli("check", record(tmp_path, turns, crystals={"earth": ["earth-2"]}))
    assert code == 2 and "crystals.earth: expected every earth card of the deck once" in err
