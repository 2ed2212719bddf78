"""``alchemy-table referee alchimiste ENDGAME.json``: text, JSON, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "alchimiste-endgame.json"
ISSUE = {"players": [{"name": "Abigail", "school": "grey", "fame": 31, "screen": {"grey": 2, "blue": 1}},
                     {"name": "Merlin", "school": "orange", "fame": 30, "screen": {"orange": 4}}],
         "reserve": {"grey": 3, "blue": 0, "orange": 5, "yellow": 0, "green": 0}}


def write(tmp_path, data, name="endgame.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_json_answer(cli, tmp_path):
    code, out, err = cli("referee", "alchimiste", write(tmp_path, ISSUE), "--json")
    assert code == 0 and err == ""
    answer = json.loads(out)
    assert answer["winners"] == ["Abigail"]
    assert answer["players"][1] == {"name": "Merlin", "fame": 30, "screen_points": 2, "school_place": 2,
                                    "school_reward": 0, "total": 32}


def test_text_answer(cli, tmp_path):
    code, out, _ = cli("referee", "alchimiste", write(tmp_path, ISSUE))
    assert code == 0
    lines = out.splitlines()
    assert "grey 5, blue 1, orange 9" in lines[0]
    assert lines[2].split() == ["Abigail", "31", "1", "grey", "5", "1", "6", "38"]
    assert lines[3].split() == ["Merlin", "30", "2", "orange", "9", "2", "0", "32"]
    assert lines[-1] == "winner: Abigail"


def test_shared_victory_is_announced(cli, tmp_path):
    data = {"players": [{"name": "A", "school": "grey", "fame": 40, "screen": {}},
                        {"name": "B", "school": "blue", "fame": 40, "screen": {}}],
            "reserve": {"grey": 1, "blue": 1}}
    code, out, _ = cli("referee", "alchimiste", write(tmp_path, data))
    assert code == 0 and out.splitlines()[-1] == "winners (a shared victory): A, B"


def test_fame_as_a_place_on_the_track(cli, tmp_path):
    data = json.loads(json.dumps(ISSUE))
    data["players"][1]["fame"] = {"space": 7, "laps": 1}
    _, out, _ = cli("referee", "alchimiste", write(tmp_path, data), "--json")
    assert json.loads(out)["players"][1]["fame"] == 57 and json.loads(out)["winners"] == ["Merlin"]


def test_the_shipped_example(cli):
    code, out, _ = cli("referee", "alchimiste", str(EXAMPLE), "--json")
    assert code == 0
    answer = json.loads(out)
    assert [p["school_place"] for p in answer["players"]] == [2, 2, 1]
    assert [p["total"] for p in answer["players"]] == [37, 42, 45]
    assert answer["winners"] == ["Morgane"]


@pytest.mark.parametrize("change, message", [
    (lambda d: d["players"][1].update(school="grey"),
     "players[1].school: school grey is used twice (Abigail and Merlin)"),
    (lambda d: d["reserve"].update(blue=-2), "reserve.blue: a count cannot be negative (-2)"),
    (lambda d: d["players"][0]["screen"].update(grey=-1), "players[0].screen.grey: a count cannot be negative"),
    (lambda d: d.update(players=d["players"][:1]), "players: Alchimiste is played by 2 to 5 adepts, got 1"),
    (lambda d: d.update(players=d["players"] * 3), "players: Alchimiste is played by 2 to 5 adepts, got 6"),
    (lambda d: d["reserve"].update(purple=1), "reserve.purple: not a colour"),
    (lambda d: d["players"][0].pop("screen"), "players[0].screen: missing"),
    (lambda d: d["players"][0].update(fame={"space": 50}), "players[0].fame: the fame track has spaces 0 to 49"),
    (lambda d: d["reserve"].update(grey=14), "grey: 16 cubes in the reserve and behind the screens, but"),
])
def test_errors_are_one_line_naming_the_file_and_key(cli, tmp_path, change, message):
    data = json.loads(json.dumps(ISSUE))
    change(data)
    path = write(tmp_path, data)
    if "16 cubes" in message:
        data["reserve"]["grey"] = 15
        path = write(tmp_path, data)
        message = message.replace("16 cubes", "17 cubes")
    code, out, err = cli("referee", "alchimiste", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"alchemy-table: {path}: {message}")


def test_unknown_game_and_missing_file(cli, tmp_path):
    code, _, err = cli("referee", "chess", write(tmp_path, ISSUE))
    assert code == 2 and "invalid choice: 'chess'" in err
    code, _, err = cli("referee", "alchimiste", str(tmp_path / "none.json"))
    assert code == 2 and err.count("\n") == 1 and "cannot read" in err
