"""A game in the journal is named by an id recorded at its start: resuming restores exactly that game, or
refuses with one line; it never rebuilds another game and carries on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from assistant import alchemists_state
from assistant.engines.alchemists import assignment_from_code
from assistant.journal import Journal, read
from assistant.live import Outputs, Pipeline, ResumeError
from assistant.stabilise import Stabiliser
from assistant.table import make_mode
from calibration.layout import load_layout

LAYOUT = load_layout("alchemists")
CARDS = [("empty", "empty"), ("flower", "root")]


class Cards:
    """The scan area's reading: frame value v shows CARDS[v]."""

    layout = LAYOUT

    def read(self, frame):
        left, right = CARDS[int(frame[0, 0, 0])]
        return {"board_found": True, "counts": {},
                "zones": {"card-left": {"label": left, "confidence": 0.9},
                          "card-right": {"label": right, "confidence": 0.9}}}

    def to_json(self):
        return [{"name": "", "layout": "alchemists", "markers": [0, 1, 2, 3]}]


def make(game, setup):
    return make_mode(game, LAYOUT, setup, source="setup"), Cards()


def frame(value):
    f = np.zeros((12, 16, 3), np.uint8)
    f[0, 0, 0] = value
    return f


@pytest.fixture
def state_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(alchemists_state.ENV, str(tmp_path / "state"))
    return tmp_path / "state"


def play_one_mix(path, setup):
    mode, boards = make("alchemists", setup)
    pipeline = Pipeline("alchemists", mode, boards, Outputs.simulated(), Journal(path), Stabiliser())
    pipeline.start()
    for value in (0, 0, 0, 1, 1, 1):
        pipeline.feed(frame(value))
    pipeline.close()
    return [r for r in read(path) if r.kind == "event" and r.data.get("kind") == "potion"]


def test_the_game_record_carries_an_id_that_names_the_game_and_not_its_code(state_dir, tmp_path):
    alchemists_state.record_game("TBGJ", "apprentice", name="tonight")
    potions = play_one_mix(tmp_path / "game.jsonl", {"game": "tonight"})
    opening = read(tmp_path / "game.jsonl")[0]
    assert opening.data["id"] == alchemists_state.find_game(name="tonight").id
    assert "TBGJ" not in (tmp_path / "game.jsonl").read_text()
    assert len(potions) == 1
    journal = Journal(tmp_path / "game.jsonl")
    again = Pipeline.resume(journal.records, journal, "alchemists", make, Outputs.simulated())
    again.close()
    assert again.mode._assignment == alchemists_state.find_game(name="tonight").assignment


def test_two_codes_recorded_in_the_same_second_resume_as_the_game_that_was_played(state_dir, tmp_path):
    # The game played is not the first by code nor the last by time: a time stamp would pick another.
    for code, name in (("WLUK", "played"), ("TBGJ", "other")):
        alchemists_state.record_game(code, "apprentice", name=name)
    data = alchemists_state.load()
    for game in data["games"].values():
        game["created"] = "2025-01-02T20:00:00+00:00"
    alchemists_state.save(data)
    path = tmp_path / "game.jsonl"
    potions = play_one_mix(path, {"game": "played"})
    journal = Journal(path)
    again = Pipeline.resume(journal.records, journal, "alchemists", make, Outputs.simulated())
    again.feed(frame(0)), again.feed(frame(0)), again.feed(frame(0))
    again.close()
    assert again.mode._assignment == alchemists_state.find_game(name="played").assignment
    assert [r.data for r in read(path) if r.kind == "event" and r.data.get("kind") == "potion"] == \
        [r.data for r in potions]


def test_resume_of_a_game_gone_from_the_state_file_is_one_line_exit_2(state_dir, tmp_path, cli):
    alchemists_state.record_game("TBGJ", "apprentice", name="tonight")
    path = tmp_path / "game.jsonl"
    play_one_mix(path, {})
    before = path.read_bytes()
    data = alchemists_state.load()
    del data["games"]["TBGJ"]
    alchemists_state.save(data)
    alchemists_state.record_game("WLUK", "apprentice", name="newer")  # the newest game is another one
    (tmp_path / "empty.toml").write_text("")
    code, _, err = cli("run", "--resume", "--journal", str(path), "--simulate", "--set", "buttons.backend=none",
                       "--set", f"camera.path={tmp_path}", "--set", "camera.source=folder",
                       "--set", f"table.state_dir={tmp_path}", "--config", str(tmp_path / "empty.toml"))
    assert code == 2 and err.count("\n") == 1 and "no game of this table has the id" in err
    assert "TBGJ" not in err and "WLUK" not in err
    assert path.read_bytes() == before  # nothing appended, nothing moved


def test_a_journal_the_rebuilt_game_answers_differently_is_refused(state_dir, tmp_path):
    alchemists_state.record_game("TBGJ", "apprentice", assignment_from_code("TBGJ").as_dict(), name="tonight")
    path = tmp_path / "game.jsonl"
    play_one_mix(path, {})
    lines = path.read_text().splitlines()
    # The state file's answers changed under the journal (a hand-edited file, another version...).
    data = alchemists_state.load()
    data["games"]["TBGJ"]["assignment"] = assignment_from_code("WLUK").as_dict()
    alchemists_state.save(data)
    journal = Journal(path)
    with pytest.raises(ResumeError, match=r"answers record .* differently from the journal; refusing"):
        Pipeline.resume(journal.records, journal, "alchemists", make, Outputs.simulated())
    journal.close()
    assert path.read_text().splitlines() == lines
    assert json.loads(lines[0])["data"]["setup"] == {"game_id": alchemists_state.find_game().id}
