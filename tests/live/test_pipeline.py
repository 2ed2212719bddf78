"""The pipeline on its own, over readings given directly: journal before outputs, resuming, several boards."""

from __future__ import annotations

import numpy as np
import pytest
from echo_mode import EchoTable

from assistant.journal import Journal, read
from assistant.live import Outputs, Pipeline, ResumeError
from assistant.live.boards import Boards, board_layouts
from assistant.stabilise import Stabiliser
from calibration.layout import load_layout
from hardware.leds.patterns import AMBER, RED


class Scripted:
    """Boards whose readings are given: frame k of value v reads ``readings[v]``."""

    def __init__(self, readings):
        self.readings = readings
        self.layout = load_layout("chaudron")

    def read(self, frame):
        return self.readings[int(frame[0, 0, 0])]

    def to_json(self):
        return [{"name": "", "layout": "chaudron", "markers": [10, 11, 12, 13]}]


def reading(**zones):
    return {"board_found": True, "zones": {z: {"label": v, "confidence": 0.9} for z, v in zones.items()},
            "counts": {}}


READINGS = [reading(r0c0="empty", r0c1="empty"), reading(r0c0="bone", r0c1="empty"),
            reading(r0c0="bone", r0c1="root"), reading(r0c0="unknown", r0c1="root")]


def frame(value: int, moved: bool = False) -> np.ndarray:
    f = np.zeros((60, 80, 3), np.uint8)
    f[0, 0, 0] = value
    if moved:
        f[10:50, 10:70] = 200  # a hand: most of the thumbnail changes
    return f


def play(pipeline, script):
    for value, moved in script:
        pipeline.feed(frame(value, moved))


# Three still frames of state 0, a hand, state 1, a hand, state 2.
SCRIPT = [(0, False)] * 3 + [(3, True)] + [(1, False)] * 4 + [(3, True)] + [(2, False)] * 4


class CheckingOutputs(Outputs):
    """Outputs that check, each time they are asked to answer, that the journal already holds the answer."""

    def __init__(self, path):
        base = Outputs.simulated()
        super().__init__(base.lights, base.display)
        self.path = path
        self.checked = 0

    def apply(self, response):
        on_disk = [r.data.get("message") for r in read(self.path) if r.kind == "event"]
        for event in response.events:
            assert event.message in on_disk, f"{event.message!r} shown before it was journalled"
        self.checked += len(response.events)
        super().apply(response)


def new_pipeline(path, outputs=None, setup=None):
    layout = load_layout("chaudron")
    return Pipeline("chaudron", EchoTable(layout, setup), Scripted(READINGS), outputs or Outputs.simulated(),
                    Journal(path), Stabiliser())


def test_every_answer_is_journalled_and_synced_before_the_outputs_show_it(tmp_path):
    path = tmp_path / "game.jsonl"
    outputs = CheckingOutputs(path)
    pipeline = new_pipeline(path, outputs)
    pipeline.start()
    play(pipeline, SCRIPT)
    pipeline.command("confirm")
    pipeline.close()
    assert outputs.checked == 1 + 1 + 2 + 1 + 1  # ready; commit 1; commit 2 (+tally); commit 3; the press
    records = read(path)
    assert [r.kind for r in records] == ["game", "event", "state", "event", "state", "event", "event", "state",
                                         "event", "command", "event"]
    for r in records:  # each event names the record it answers, which comes before it
        if r.kind == "event":
            assert records[r.data["after"] - 1].kind in ("game", "state", "command")
            assert r.data["after"] < r.seq
    states = [r.data for r in records if r.kind == "state"]
    assert [s["zones"]["r0c0"] for s in states] == ["empty", "bone", "bone"]
    assert [s["frame"] for s in states] == [2, 6, 11]  # the hand's frame never commits; 3 still frames do


def test_resume_rebuilds_the_game_and_carries_on_where_it_stopped(tmp_path):
    path = tmp_path / "game.jsonl"
    first = new_pipeline(path, setup={"greeting": "hello"})
    first.start()
    play(first, SCRIPT[:9])
    first.command("next")
    leds_before = first.outputs.led_colours()
    first.close()

    journal = Journal(path)
    records = journal.records
    outputs = Outputs.simulated()
    again = Pipeline.resume(records, journal, "chaudron",
                            lambda game, setup: (EchoTable(load_layout("chaudron"), setup), Scripted(READINGS)),
                            outputs)
    assert again.mode.commits == 2 and again.mode.presses == 1 and again.mode.setup == {"greeting": "hello"}
    assert again.stabiliser.committed.label("r0c0") == "bone"
    assert again.next_frame == 7  # after the last committed frame
    assert outputs.led_colours() == leds_before
    assert outputs.screen.title == "Button"
    assert len(read(path)) == len(records)  # rebuilding appends nothing
    play(again, [(1, False)] * 3 + [(2, False)] * 4)  # the board already on record is not committed again
    again.close()
    states = [r.data["zones"]["r0c1"] for r in read(path) if r.kind == "state"]
    assert states == ["empty", "empty", "root"]
    assert [r.data["message"] for r in read(path) if r.kind == "event"][-2:] == [
        "next (1)", "commit 3: 1 zones changed"]


def test_resume_appends_the_events_a_crash_cut_off_and_only_those(tmp_path):
    path = tmp_path / "game.jsonl"
    first = new_pipeline(path)
    first.start()
    play(first, SCRIPT)
    first.close()
    records = read(path)
    full = [r.data for r in records if r.kind == "event"]
    # The power went after the last state and the first of its... here: before any of its events.
    last_state = max(r.seq for r in records if r.kind == "state")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)[:last_state]
    path.write_text("".join(lines), encoding="utf-8")
    journal = Journal(path)
    Pipeline.resume(journal.records, journal, None,
                    lambda game, setup: (EchoTable(load_layout("chaudron"), setup), Scripted(READINGS)),
                    Outputs.simulated()).close()
    assert [r.data for r in read(path) if r.kind == "event"] == full


def test_resume_refuses_another_game_and_a_journal_without_a_game(tmp_path):
    path = tmp_path / "game.jsonl"
    p = new_pipeline(path)
    p.start()
    p.close()
    journal = Journal(path)
    with pytest.raises(ResumeError, match="'chaudron', not 'alchimiste'"):
        Pipeline.resume(journal.records, journal, "alchimiste", None, Outputs.simulated())
    journal.close()
    with pytest.raises(ResumeError, match="no game record"):
        Pipeline.resume([], None, None, None, Outputs.simulated())


def test_led_patterns_follow_the_answers():
    layout = load_layout("chaudron")
    outputs = Outputs.simulated()
    pipeline = Pipeline("chaudron", EchoTable(layout), Scripted(READINGS), outputs, None, Stabiliser())
    pipeline.start()
    play(pipeline, SCRIPT)
    commits = [s for s in pipeline.steps if s.kind == "state"]
    assert [s.patterns.get("cauldron-3") for s in commits][-1].colour == RED
    assert outputs.led_colours()["cauldron-1"] == [AMBER]
    assert outputs.led_colours()["cauldron-4"] == [(0, 0, 0)]
    assert commits[-1].screen.title == "Commit 3"


def test_several_boards_are_read_with_prefixed_zone_ids_and_need_their_own_markers():
    layout = load_layout("alchymia")
    layouts = board_layouts(layout, ["ada", "bob"])
    assert [m.id for m in layouts["bob"].markers] == [24, 25, 26, 27]
    boards = Boards.from_specs(["alchymia"])
    assert boards.names == [""]
    with pytest.raises(ValueError, match="share a marker id"):
        from assistant.live.boards import Board
        from vision.read import Reader
        Boards([Board("ada", layout, Reader(layout)), Board("bob", layout, Reader(layout))])
