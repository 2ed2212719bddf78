"""The stabiliser: hands over the board never commit, a steady board commits within 3 frames."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.stabilise import UNKNOWN, ReadingError, Stabiliser, State, read_state

GRID = [f"r{r}c{c}" for r in range(4) for c in range(4)]
STILL, MOVING = 0.0, 0.2  # fraction of the board that changed: a hand is several per cent


def reading(labels: dict[str, str], counts: dict[str, int] | None = None, found: bool = True,
            confidence: float = 0.95) -> dict:
    """A reading in the shape ``alchemy-table read --json`` prints."""
    return {"board_found": found,
            "zones": {z: {"label": label, "confidence": confidence} for z, label in labels.items()},
            "counts": {z: {"count": n, "confidence": confidence} for z, n in (counts or {}).items()}}


def board(**pieces: str) -> dict[str, str]:
    return {z: pieces.get(z, "empty") for z in GRID}


def with_hand(labels: dict[str, str], covered: list[str]) -> dict[str, str]:
    return {z: UNKNOWN if z in covered else label for z, label in labels.items()}


def run(stabiliser: Stabiliser, frames: list[tuple[dict, float]]) -> list[tuple[int, State]]:
    """Feed (reading, motion) frames; return (frame index, state) for every commit."""
    commits = []
    for i, (r, motion) in enumerate(frames):
        c = stabiliser.feed(r, motion, frame=i)
        if c is not None:
            commits.append((i, c.state))
    return commits


def test_a_steady_board_commits_on_the_third_frame_and_only_once():
    s = Stabiliser()
    empty = reading(board())
    assert run(s, [(empty, None)] + [(empty, STILL)] * 10) == [(2, State.of(board()))]  # None: no previous frame
    assert s.committed == State.of(board())


def test_a_hand_putting_a_piece_down_commits_within_three_frames_of_leaving():
    s = Stabiliser(committed=State.of(board()))
    before, after = board(), board(r1c1="bone")
    frames = [(reading(before), STILL)] * 3
    # The hand comes in from the right, hides a column, then the piece's zone, then goes out again.
    frames += [(reading(with_hand(before, ["r1c3"])), MOVING), (reading(with_hand(before, ["r1c2", "r1c3"])), MOVING),
               (reading(with_hand(before, ["r1c1", "r1c2"])), MOVING), (reading(with_hand(after, ["r1c1"])), 0.001),
               (reading(with_hand(after, ["r1c2", "r1c3"])), MOVING), (reading(with_hand(after, ["r1c3"])), MOVING)]
    hand_gone = len(frames)
    frames += [(reading(after), MOVING)] + [(reading(after), STILL)] * 6  # the first clean frame still moved
    commits = run(s, frames)
    assert commits == [(hand_gone + 2, State.of(after))]


def test_a_hand_held_still_over_a_zone_never_commits():
    s = Stabiliser()
    hidden = reading(with_hand(board(r0c0="root"), ["r0c0", "r0c1"]))
    assert run(s, [(hidden, STILL)] * 20) == []
    assert s.gate == "zone r0c0 unknown"


def test_a_hand_passing_over_a_committed_board_commits_nothing():
    labels = board(r2c2="fire")
    s = Stabiliser(committed=State.of(labels))
    frames = [(reading(with_hand(labels, GRID[i:i + 3])), MOVING) for i in range(0, 14, 2)]
    frames += [(reading(labels), MOVING)] + [(reading(labels), STILL)] * 5
    assert run(s, frames) == []


def test_motion_alone_holds_the_commit_back_until_the_board_is_still():
    s = Stabiliser()
    labels = reading(board(r3c3="stone"))
    commits = run(s, [(labels, MOVING)] * 8 + [(labels, STILL)] * 4)
    assert commits == [(9, State.of(board(r3c3="stone")))]  # run starts at frame 7, the last moving one


def test_a_lost_board_gates_and_restarts_the_run():
    s = Stabiliser()
    good, lost = reading(board()), {"board_found": False, "zones": {}, "counts": {}}
    commits = run(s, [(good, STILL), (good, STILL), (lost, STILL), (good, STILL), (good, STILL), (good, STILL)])
    assert commits == [(5, State.of(board()))]


def test_one_zone_flickering_never_commits():
    s = Stabiliser(committed=State.of(board()))
    a, b = reading(board(r0c0="bone")), reading(board(r0c0="root"))
    pattern = [a, a, b, a, b, b, a, a, b] * 5  # never three in a row
    assert run(s, [(r, STILL) for r in pattern]) == []
    assert s.committed == State.of(board())


def test_low_confidence_is_treated_as_unknown():
    s = Stabiliser(min_confidence=0.6)
    unsure = reading(board(r0c0="bone"), confidence=0.4)
    assert run(s, [(unsure, STILL)] * 5) == []
    assert s.gate == "zone r0c0 unsure (0.40)"
    # By default the vision's own "unknown" is the judge: a steady unsure label commits.
    assert run(Stabiliser(), [(unsure, STILL)] * 3) == [(2, State.of(board(r0c0="bone")))]


def test_counts_commit_and_an_uncountable_tray_gates():
    s = Stabiliser()
    seven, eight = reading({}, {"reserve-grey": 7}), reading({}, {"reserve-grey": 8})
    blocked = {"board_found": True, "zones": {}, "counts": {"reserve-grey": {"count": None, "confidence": 0.2}}}
    commits = run(s, [(seven, STILL)] * 3 + [(blocked, STILL)] * 4 + [(eight, STILL)] * 3)
    assert [(i, c.count("reserve-grey")) for i, c in commits] == [(2, 7), (9, 8)]


def test_count_shapes_per_colour_and_nested():
    flat = {"board_found": True, "zones": {},
            "counts": {"tray": {"grey": 2, "blue": 3, "colour": "mixed", "confidence": 0.9}}}
    nested = {"board_found": True, "zones": {},  # as vision.read prints it: the total and its breakdown
              "counts": {"tray": {"count": 5, "by_label": {"blue": 3, "grey": 2}, "confidence": 0.9}}}
    a, _ = read_state(flat)
    b, _ = read_state(nested)
    assert a == b and a.count("tray") == 5 and a.colour_counts("tray") == {"blue": 3, "grey": 2}
    numpy_made = {"board_found": True, "zones": {"a": {"label": "bone", "confidence": np.float32(0.9)}},
                  "counts": {"tray": {"count": np.int64(4), "confidence": np.float32(0.8)}}}
    assert read_state(numpy_made) == (State.of({"a": "bone"}, {"tray": 4}), None)
    _, why = read_state({"board_found": True, "zones": {}, "counts": {"tray": {"grey": "unknown", "blue": 1}}})
    assert why == "count tray unknown"


@pytest.mark.parametrize("bad, message", [
    ({"board_found": True, "zones": {"a": {"confidence": 0.9}}}, "zones.a: expected an object with 'label'"),
    ({"board_found": True, "zones": {"a": {"label": 3}}}, "zones.a.label: expected a string"),
    ({"board_found": True, "counts": {"t": {"count": -1}}}, "counts.t.count: expected a count >= 0"),
    ({"board_found": True, "counts": {"t": {"confidence": 0.9}}}, "counts.t: no count"),
    ({"board_found": True, "zones": {"a": {"label": "x", "confidence": "high"}}}, "zones.a.confidence"),
])
def test_a_malformed_reading_is_a_one_line_error(bad, message):
    with pytest.raises(ReadingError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Stabiliser().feed(bad, STILL)


def test_state_json_round_trip_and_changes():
    a = State.of(board(r0c0="bone"), {"reserve-grey": 7, "tray": {"blue": 1, "grey": 2}})
    b = State.of(board(r0c1="bone"), {"reserve-grey": 6, "tray": {"blue": 1, "grey": 2}})
    assert State.from_json(a.to_json()) == a and hash(State.from_json(a.to_json())) == hash(a)
    assert b.changed(a) == ("r0c0", "r0c1", "reserve-grey")
    with pytest.raises(ReadingError, match="state: expected"):
        State.from_json({"counts": {}})


def test_agree_one_still_refuses_a_moving_frame_and_bad_settings_are_refused():
    s = Stabiliser(agree=1)
    r = reading(board())
    assert run(s, [(r, MOVING), (r, STILL)]) == [(1, State.of(board()))]
    for kwargs in ({"agree": 0}, {"motion_threshold": -1}, {"min_confidence": 2}):
        with pytest.raises(ValueError):
            Stabiliser(**kwargs)


# Property tests. A frame is drawn as (kind, labels, motion): kind "blind" hides a zone or loses the board.
ZONES = ["a", "b", "c"]
LABELS = ["empty", "bone", "root"]
labels_st = st.fixed_dictionaries({z: st.sampled_from(LABELS) for z in ZONES})
frame_st = st.tuples(st.sampled_from(["clean", "clean", "hand", "lost"]), labels_st,
                     st.sampled_from([STILL, STILL, 0.005, MOVING]))


def make(kind: str, labels: dict[str, str]) -> dict:
    if kind == "lost":
        return {"board_found": False}
    if kind == "hand":
        return reading({**labels, "b": UNKNOWN})
    return reading(labels)


@settings(max_examples=300, deadline=None)
@given(st.lists(frame_st, max_size=60), st.integers(1, 4))
def test_commits_never_hold_unknown_and_always_follow_agree_identical_clean_frames(frames, agree):
    s = Stabiliser(agree=agree)
    readings = [make(kind, labels) for kind, labels, _ in frames]
    for i, (r, (_, _, motion)) in enumerate(zip(readings, frames, strict=True)):
        commit = s.feed(r, motion, frame=i)
        if commit is None:
            continue
        assert UNKNOWN not in commit.state.labels().values()
        assert motion <= s.motion_threshold  # never on a frame where something moves
        window = frames[commit.since:i + 1]
        assert len(window) >= agree
        assert all(kind == "clean" and State.of(labels) == commit.state for kind, labels, _ in window)
        assert all(m <= s.motion_threshold for _, _, m in window[1:])
        assert commit.state != commit.previous


@settings(max_examples=300, deadline=None)
@given(st.lists(frame_st, max_size=40), st.sampled_from(["hand", "lost"]), st.booleans(), labels_st,
       st.integers(1, 4), st.integers(0, 5))
def test_a_reading_held_steady_after_the_last_gate_commits_at_exactly_the_agreeth_frame(
        prefix, last_gate, leaving_moves, held, agree, extra):
    s = Stabiliser(agree=agree)
    for i, (kind, labels, motion) in enumerate(prefix):
        s.feed(make(kind, labels), motion, frame=i)
    s.feed(make(last_gate, held), MOVING, frame="gate")  # the hand is still there
    before = s.committed
    commits = []
    for j in range(agree + 1 + extra):
        # The first frame without the hand may still carry its motion; that is the last gate.
        motion = MOVING if j == 0 and leaving_moves else STILL
        commit = s.feed(reading(held), motion, frame=j)
        if commit is not None:
            commits.append(commit.frame)
    first_counted = 1 if leaving_moves and agree == 1 else 0  # a moving frame can start a run, never commit it
    expected = [] if State.of(held) == before else [first_counted + agree - 1]
    assert commits == expected
    assert s.committed == State.of(held)
