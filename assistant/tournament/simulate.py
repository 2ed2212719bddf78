"""Simulated tables for the tournament's tests and bench: a recorded session played through the real
pipeline from the stabiliser onward (stabiliser -> table mode -> journal -> publisher), fed with the readings
the vision gives of the session's frames instead of the frames themselves (rendering and reading 20 tables'
frames would take minutes; the vision has its own tests and evaluations).

The readings follow the session script frame by frame as ``sessions.render`` draws it: while a hand is over
the board (``hand_frames``) the zones it changes read ``unknown`` (a tray under it cannot be counted) and the
motion score is high; then ``steady_frames`` still frames of the new state (the first still moving: the
hand leaving); then the step's button presses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.journal import Journal
from assistant.live.boards import Board, Boards, is_mat
from assistant.live.outputs import Outputs
from assistant.live.pipeline import Pipeline, Step
from assistant.sessions import Session
from assistant.table import make_mode, mode_class

HAND_MOTION = 0.05   # a hand is several per cent of the board (stabilise.MOTION_THRESHOLD is 0.01)


@dataclass(frozen=True)
class Frame:
    reading: dict[str, Any]
    motion: float
    commands: tuple[str, ...] = ()


def frames(session: Session) -> Iterator[Frame]:
    """The session's frames as readings, in order."""
    states = session.states()
    yield from _still(states[0], session.steady_frames, ())
    for step, before, after in zip(session.steps, states[:-1], states[1:], strict=True):
        changed = {z for z in after["zones"] if after["zones"][z] != before["zones"].get(z)}
        changed |= {z for z in after["counts"] if after["counts"][z] != before["counts"].get(z)}
        if step.hand:
            hidden = _reading(before, hidden=changed)
            for _ in range(session.hand_frames):
                yield Frame(hidden, HAND_MOTION)
        yield from _still(after, step.steady or session.steady_frames, step.commands, moved=step.hand)


def _still(state: dict[str, Any], n: int, commands: tuple[str, ...], moved: bool = False) -> Iterator[Frame]:
    reading = _reading(state)
    for i in range(n):
        yield Frame(reading, HAND_MOTION if moved and i == 0 else 0.0, commands if i == n - 1 else ())


def _reading(state: dict[str, Any], hidden: set[str] = frozenset()) -> dict[str, Any]:
    zones = {z: {"label": "unknown" if z in hidden else label, "confidence": 0.95}
             for z, label in state["zones"].items()}
    counts = {}
    for z, c in state["counts"].items():
        value = dict(c) if len(c) > 1 else {"count": sum(c.values())}
        counts[z] = dict.fromkeys(value) if z in hidden else value
        counts[z]["confidence"] = 0.9
    return {"board_found": True, "zones": zones, "counts": counts}


class ReadingPipeline(Pipeline):
    """The live pipeline fed with readings (and motion scores) rather than frames."""

    def feed_reading(self, reading: dict[str, Any], motion: float) -> Step | None:
        index = self.next_frame
        self.next_frame += 1
        commit = self.stabiliser.feed(reading, motion, frame=index)
        if commit is None:
            return None
        seq = self._append("state", commit.to_json())
        return self._answer(Step("state", index, self.dispatch(commit.state, commit.previous), commit.state,
                                 commit.previous, seq=seq))


class SimulatedTable:
    """One table playing ``session`` into ``state_dir/game.jsonl``; ``on_step`` sees each answer."""

    def __init__(self, name: str, session: Session, state_dir: str | Path,
                 on_step: Callable[[Step], None] | None = None):
        self.name = name
        self.session = session
        self.state_dir = Path(state_dir)
        sets = mode_class(session.game).card_mats
        boards = Boards([Board(board, layout, None, is_mat(layout, sets))  # type: ignore[arg-type]
                         for board, layout in session.board_layouts().items()])
        mode = make_mode(session.game, boards.layout, session.setup)
        self.pipeline = ReadingPipeline(session.game, mode, boards, Outputs(None, None),
                                        Journal(self.state_dir / "game.jsonl"), on_step=on_step)
        self.frames = list(frames(session))
        self.next = 0

    def start(self) -> Step:
        return self.pipeline.start()

    @property
    def done(self) -> bool:
        return self.next >= len(self.frames)

    def play(self, n: int = 1) -> int:
        """Feed the next ``n`` frames (and their button presses); the number fed."""
        fed = 0
        while fed < n and not self.done:
            frame = self.frames[self.next]
            self.pipeline.feed_reading(frame.reading, frame.motion)
            for command in frame.commands:
                self.pipeline.command(command)
            self.next += 1
            fed += 1
        return fed

    def close(self) -> None:
        self.pipeline.close()
