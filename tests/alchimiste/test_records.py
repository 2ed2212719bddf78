"""``alchemy-table check`` on Alchimiste records: verdicts, running scores, the end, and bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "alchimiste-game.json"
PLAYERS = [{"name": "Abigail", "seal": "purple", "school": "grey"},
           {"name": "Merlin", "seal": "black", "school": "orange"}]
OPENING = [{"player": "Abigail", "create": 10, "mix": {"blue": 2, "grey": 2, "orange": 1}, "tile": 9},
           {"player": "Merlin", "copy": 10, "mix": {"blue": 2, "grey": 2, "orange": 1}, "tribute": "grey"}]


def write(tmp_path, record):
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"game": "alchimiste", **record}))
    return str(path)


def example():
    return json.loads(EXAMPLE.read_text())


def test_the_example_game_is_legal_to_the_end(cli):
    code, out, _ = cli("check", str(EXAMPLE), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["legal"] and len(report["steps"]) == len(example()["actions"])
    final = report["final"]
    assert final["over"] and final["winners"] == ["Abigail"]
    assert final["exhausted"] == ["grey", "orange", "yellow"]
    assert {p["name"]: p["total"] for p in final["players"]} == {"Abigail": 72, "Merlin": 64}
    assert report["steps"][1]["scores"] == {"Abigail": 9, "Merlin": 9}
    assert report["steps"][1]["detail"] == {"fame": 9, "track": {"space": 9, "laps": 0},
                                            "received": {"yellow": 1, "green": 1}, "tribute_to": "Abigail"}
    lap = report["steps"][26]
    assert lap["scores"]["Abigail"] == 57 and lap["detail"]["track"] == {"space": 7, "laps": 1}


def test_the_example_in_text(cli):
    code, out, _ = cli("check", str(EXAMPLE))
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("#0   ok      Abigail creates 2 grey, 2 blue, 1 orange in cauldron 10 "
                               "with fame tile 9: +9, receives 1 yellow, 1 green")
    assert lines[0].endswith("  [Abigail 9, Merlin 0]")
    assert "+8 (completes lap 1)" in lines[26]
    assert lines[-4] == "game over after round 17: grey, orange, yellow exhausted in the reserve"
    assert lines[-3] == "  Abigail: fame 66 + screen 6 + school grey (place 2, 10 left) 0 = 72"
    assert lines[-1] == "winner: Abigail"


def test_first_illegal_action_stops_the_replay(cli, tmp_path):
    actions = [*OPENING, {"player": "Abigail", "copy": 10, "mix": {"blue": 2, "grey": 2, "orange": 1},
                          "tribute": "grey"}, {"player": "Merlin", "take": "grey"}]
    path = write(tmp_path, {"players": PLAYERS, "actions": actions})
    code, out, _ = cli("check", path, "--json")
    report = json.loads(out)
    assert code == 1 and not report["legal"]
    assert report["first_illegal"] == {"index": 2, "reason": "Abigail cannot copy their own potion (cauldron 10)"}
    assert len(report["steps"]) == 3                      # nothing after it
    assert report["steps"][2]["scores"] == {"Abigail": 9, "Merlin": 9}
    assert report["final"] == {"over": False, "round": 2, "to_play": "Abigail"}
    code, out, _ = cli("check", path)
    assert out.splitlines()[-2] == ("first illegal action: #2: Abigail cannot copy their own potion (cauldron 10) "
                                    "(nothing after it was applied)")


def test_out_of_turn_in_a_record(cli, tmp_path):
    path = write(tmp_path, {"players": PLAYERS, "actions": [OPENING[0], {"player": "Abigail", "take": "grey"}]})
    code, out, _ = cli("check", path, "--json")
    assert code == 1 and json.loads(out)["first_illegal"]["reason"] == "it is Merlin's turn, not Abigail's"


def test_public_game_over_without_reveal_gives_screen_points(cli, tmp_path):
    record = example()
    del record["reveal"]
    code, out, _ = cli("check", write(tmp_path, record), "--json")
    final = json.loads(out)["final"]
    assert code == 0 and final["over"] and not final["revealed"]
    assert final["screen_points"] == {"Abigail": 6, "Merlin": 10}


def test_a_reveal_that_contradicts_the_game(cli, tmp_path):
    record = example()
    record["reveal"]["Merlin"]["grey"] -= 1
    record["reveal"]["Merlin"]["blue"] += 1
    code, out, _ = cli("check", write(tmp_path, record), "--json")
    report = json.loads(out)
    assert code == 1
    # Merlin took grey from the reserve four times late in the game: they are known to be behind his screen.
    assert report["first_illegal"]["index"] == len(record["actions"])
    assert report["first_illegal"]["reason"].startswith("Merlin's screen must hold at least")


def test_a_reveal_before_the_end(cli, tmp_path):
    record = {"players": PLAYERS, "actions": OPENING, "reveal": {"Abigail": {}, "Merlin": {}}}
    code, out, _ = cli("check", write(tmp_path, record), "--json")
    assert code == 1
    assert json.loads(out)["first_illegal"]["reason"] == "the game is not over: round 2, Abigail to play"


def test_full_information_record(cli, tmp_path):
    screens = [{"grey": 2, "blue": 2, "orange": 2, "yellow": 3, "green": 3},
               {"grey": 3, "blue": 3, "orange": 3, "yellow": 2, "green": 1}]
    players = [{**p, "screen": s} for p, s in zip(PLAYERS, screens, strict=True)]
    actions = [*OPENING, {"player": "Abigail", "draw": ["grey", "green"]}, {"player": "Merlin", "draw": 2}]
    code, out, _ = cli("check", write(tmp_path, {"players": players, "actions": actions}), "--json")
    report = json.loads(out)
    assert code == 1 and report["first_illegal"] == {
        "index": 3, "reason": "the colours drawn must be given in a full-information game"}
    actions[2] = {"player": "Abigail", "draw": ["yellow", "yellow"]}
    code, out, _ = cli("check", write(tmp_path, {"players": players, "actions": actions}), "--json")
    assert json.loads(out)["first_illegal"] == {"index": 2, "reason": "the bag holds 1 grey, 1 blue, 1 orange, "
                                                "1 yellow, 2 green: 2 yellow cannot come out of it"}


@pytest.mark.parametrize("change, message", [
    (lambda r: r["players"][1].update(seal="purple"), "players[1].seal: 'purple' is used twice (players 1 and 2)"),
    (lambda r: r["players"][1].update(seal="gold"), "players[1].seal: 'gold' is not one of red, white"),
    (lambda r: r["players"][1].update(school="violet"), "players[1].school: 'violet' is not one of grey"),
    (lambda r: r["actions"][0].update(tile="9"), "actions[0].tile: expected a whole number, got '9'"),
    (lambda r: r["actions"][0].update(take="grey"), "actions[0]: expected exactly one of create, copy, take"),
    (lambda r: r["actions"][1].pop("tribute"), "actions[1].tribute: missing"),
    (lambda r: r["actions"][1].update(player="Zed"), "actions[1].player: 'Zed' is not one of Abigail, Merlin"),
    (lambda r: r["actions"][1]["mix"].update(pink=1), "actions[1].mix.pink: not a colour"),
    (lambda r: r["players"][0].update(screen={"grey": 12}), "players: give every player's starting \"screen\""),
    (lambda r: r.update(layout="nowhere.toml"), "nowhere.toml: no such layout file"),
    (lambda r: r.update(moves=[]), "moves: unknown key"),
])
def test_malformed_records_are_one_line_errors(cli, tmp_path, change, message):
    record = {"players": json.loads(json.dumps(PLAYERS)), "actions": json.loads(json.dumps(OPENING))}
    change(record)
    path = write(tmp_path, record)
    code, out, err = cli("check", path)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err


def test_a_layout_beside_the_record_changes_the_cauldrons(cli, tmp_path):
    from calibration.layout import layout_path
    text = layout_path("alchimiste").read_text().replace('["yellow", "green"],\n]', '["blue", "grey"],\n]')
    (tmp_path / "my-board.toml").write_text(text)
    record = {"layout": "my-board.toml", "players": PLAYERS, "actions": OPENING[:1]}
    code, out, _ = cli("check", write(tmp_path, record), "--json")
    assert code == 1     # cauldron 10 now produces blue and grey: Abigail's mix is not allowed there
    assert json.loads(out)["first_illegal"]["reason"] == \
        "cauldron 10 produces blue and grey, so its potion cannot use blue"
