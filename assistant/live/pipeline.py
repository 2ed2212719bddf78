"""The live pipeline: frames in; readings, commits, game events, journal records, LEDs and screens out.

Each frame goes through::

    boards.read(frame) -> motion (grey thumbnails) -> stabiliser -> table mode -> journal -> outputs

A committed state reaches the mode through :meth:`Pipeline.dispatch`: the game boards' zones go to
``on_commit``, a card mat's (``chaudron-potions``, ``alchymia-crystals``) to ``on_cards`` when it changed.

and a button command goes ``table mode -> journal -> outputs``. Everything a response says is appended to
the journal and synced (``Journal.append`` returns once the record is on disk) before the LEDs and the
display answer, so whatever the players have seen survives a power cut.

Journal records (docs/journal.md, docs/live.md): one ``game`` record first (game, set-up, boards), then a
``state`` record per commit and a ``command`` record per button command, each followed by one ``event``
record per game event of its response, with ``after`` set to the ``seq`` of the record it answers.

The ``game`` record carries an ``id``: the mode's ``game_id`` where the game's secret lives outside the
journal (Alchemists), else a random one. Resuming a game whose set-up now names another id, or whose
rebuilt answers differ from those journalled, is refused (ResumeError): never another game carried on.

Resuming (:meth:`Pipeline.resume`) rebuilds the game in a fresh mode by feeding it the journal's states and
commands in order with the outputs suppressed; the stabiliser starts from the last committed state, so the
board on the table is not committed again. If the last state or command was journalled but the power went
before all its events were, the rebuilt mode gives them again and they are appended then: a committed
state never loses its events.
"""

from __future__ import annotations

import logging
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assistant.journal import Journal, Record
from assistant.live.boards import Boards
from assistant.live.outputs import Outputs
from assistant.live.timing import StageTimes, stage
from assistant.stabilise import Commit, Stabiliser, State
from assistant.table import Event, Response, TableMode
from vision.motion import motion_between, thumbnail

log = logging.getLogger(__name__)


class ResumeError(ValueError):
    """A journal that cannot be resumed with what was asked (another game, no game record...)."""


@dataclass
class Step:
    """One answer of the table: to the start, a committed state or a command; with the LEDs and screen
    as they stood right after it (for the events log, the composed pictures and the tests)."""

    kind: str                          # "start", "state" or "command"
    frame: int | None                  # the frame that committed (state) or the last frame read (command)
    response: Response
    state: State | None = None
    previous: State | None = None
    command: str | None = None
    leds: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    patterns: dict[str, Any] = field(default_factory=dict)
    screen: Any = None
    seq: int | None = None             # the journal record it answers

    @property
    def events(self) -> tuple[Event, ...]:
        return self.response.events

    def to_json(self) -> dict[str, Any]:
        """One line of the events log (``events.jsonl``)."""
        out: dict[str, Any] = {"step": self.kind, "frame": self.frame}
        if self.command is not None:
            out["command"] = self.command
        if self.state is not None:
            out["changed"] = list(self.state.changed(self.previous))
        out["events"] = [e.to_json() for e in self.events]
        out["leds"] = {g: describe_pattern(p) for g, p in self.patterns.items()}
        out["screen"] = describe_screen(self.screen)
        return out


@dataclass
class FrameResult:
    """What became of one frame."""

    index: int
    time: float | None
    motion: float | None
    gate: str | None                   # why the stabiliser did not trust it, if it did not
    commit: Commit | None
    step: Step | None                  # the table's answer to the commit
    reading: dict[str, Any] | None = None  # kept only with ``keep_readings``


class Pipeline:
    """One game on the table, fed frame by frame (``feed``) and command by command (``command``).

    ``frames`` and ``steps`` hold what became of the last ``keep`` frames and the last ``keep`` answers
    (all of them when ``keep`` is None, as a replay of a recording wants): a live loop runs for days, and
    what it keeps must not grow with the game. The journal, not these, is the record of the game."""

    def __init__(self, game: str, mode: TableMode, boards: Boards, outputs: Outputs,
                 journal: Journal | None = None, stabiliser: Stabiliser | None = None,
                 on_step: Callable[[Step], None] | None = None, keep_readings: bool = False,
                 first_frame: int = 0, keep: int | None = None):
        self.game = game
        self.mode = mode
        self.boards = boards
        self.outputs = outputs
        self.journal = journal
        self.stabiliser = stabiliser or Stabiliser()
        self.on_step = on_step
        self.keep_readings = keep_readings
        self.next_frame = first_frame
        self.steps: deque[Step] = deque(maxlen=keep)
        self.frames: deque[FrameResult] = deque(maxlen=keep)
        self._thumb: np.ndarray | None = None
        self.last_reading: dict[str, Any] | None = None
        self.times: StageTimes | None = None  # set it to time each stage of every frame (bench live)

    # -- starting and resuming --------------------------------------------------------------------------

    def start(self) -> Step:
        """A new game: the ``game`` record, then the mode's opening response. The set-up journalled is the
        mode's own (``mode.setup``): a mode drops what must stay secret (the Alchemists game code)."""
        seq = self._append("game", {"game": self.game, "id": self.mode.game_id or uuid.uuid4().hex,
                                    "setup": dict(self.mode.setup), "boards": self.boards.to_json(),
                                    "agree": self.stabiliser.agree})
        return self._answer(Step("start", None, self.mode.start(), seq=seq))

    @classmethod
    def resume(cls, records: Sequence[Record], journal: Journal | None, game: str | None,
               make: Callable[[str, Mapping[str, Any]], tuple[TableMode, Boards]], outputs: Outputs,
               **kwargs) -> Pipeline:
        """Rebuild a game from its journal records. ``make(game, setup)`` gives a fresh mode and the boards;
        ``game``, if given, must be the journal's. Events the journal lacks for its last state or command
        are appended to ``journal``."""
        opening = next((r for r in records if r.kind == "game"), None)
        if opening is None:
            raise ResumeError("journal: no game record to resume from")
        found = opening.data.get("game")
        if game is not None and found != game:
            raise ResumeError(f"journal: the game on record is {found!r}, not {game!r} (start a new game "
                              f"without --resume)")
        mode, boards = make(found, opening.data.get("setup") or {})
        recorded = opening.data.get("id")
        if mode.game_id is not None and recorded is not None and mode.game_id != recorded:
            raise ResumeError(f"journal: the set-up names another game than the one on record (id {recorded!r}); "
                              f"refusing to carry on a different game: start a new game without --resume")
        states = [r for r in records if r.kind == "state"]
        last = State.from_json(states[-1].data) if states else None
        stabiliser = kwargs.pop("stabiliser", None) or Stabiliser(agree=opening.data.get("agree", 3))
        stabiliser.committed = last
        first = int(states[-1].data.get("frame", -1)) + 1 if states else 0
        pipeline = cls(found, mode, boards, outputs, journal, stabiliser, first_frame=first, **kwargs)
        pipeline._rebuild(records, opening)
        return pipeline

    def _rebuild(self, records: Sequence[Record], opening: Record) -> None:
        answered = [r for r in records if r.seq >= opening.seq and r.kind in ("game", "state", "command")]
        journalled: dict[int, list[dict[str, Any]]] = {}
        for r in records:
            if r.kind == "event" and isinstance(r.data.get("after"), int):
                journalled.setdefault(r.data["after"], []).append(r.data)
        self.outputs.suppressed = True
        previous: State | None = None
        try:
            for k, record in enumerate(answered):
                if record.kind == "game":
                    step = Step("start", None, self.mode.start(), seq=record.seq)
                elif record.kind == "state":
                    state = State.from_json(record.data)
                    step = Step("state", record.data.get("frame"), self.dispatch(state, previous), state,
                                previous, seq=record.seq)
                    previous = state
                else:
                    command = str(record.data.get("command"))
                    step = Step("command", record.data.get("frame"), self.mode.on_command(command),
                                command=command, seq=record.seq)
                self.outputs.apply(step.response)
                self._snapshot(step)
                self.steps.append(step)
                given = [e.to_json() for e in step.events]
                kept = [{k2: v for k2, v in e.items() if k2 != "after"} for e in journalled.get(record.seq, [])]
                if kept != given[:len(kept)] or len(kept) > len(given):
                    raise ResumeError(f"{self._where()}: the game rebuilt from the journal answers record "
                                      f"{record.seq} differently from the journal; refusing to carry on a "
                                      f"different game (start a new game without --resume)")
                elif len(kept) < len(given) and k == len(answered) - 1:
                    for event in given[len(kept):]:  # cut off by a crash before they were journalled
                        self._append("event", {**event, "after": record.seq})
        finally:
            self.outputs.flush()

    # -- frames and commands ----------------------------------------------------------------------------

    def feed(self, frame: np.ndarray, time: float | None = None) -> FrameResult:
        """Read one frame and answer any state it commits."""
        index = self.next_frame
        self.next_frame += 1
        times = self.times
        if times is not None and isinstance(self.boards, Boards):  # it tells finding the boards from reading them
            reading = self.boards.read(frame, times)
        else:  # (any reader of frames will do as boards: the tests give readings directly)
            with stage(times, "read"):
                reading = self.boards.read(frame)
        self.last_reading = reading
        with stage(times, "stabilise"):
            thumb = thumbnail(frame)
            motion = None if self._thumb is None else motion_between(self._thumb, thumb)
            self._thumb = thumb
            commit = self.stabiliser.feed(reading, motion, frame=index)
        step = None
        if commit is not None:
            seq = self._append("state", commit.to_json())
            with stage(times, "table mode"):
                response = self.dispatch(commit.state, commit.previous)
            step = self._answer(Step("state", index, response, commit.state, commit.previous, seq=seq))
        else:
            with stage(times, "outputs"):
                self.outputs.render()
        result = FrameResult(index, time, motion, self.stabiliser.gate, commit, step,
                             reading if self.keep_readings else None)
        self.frames.append(result)
        if times is not None:
            times.end_frame()
        return result

    def command(self, command: str) -> Step:
        """A button command: to the mode, into the journal, then the outputs."""
        command = str(command)
        seq = self._append("command", {"command": command, "frame": self.next_frame - 1})
        return self._answer(Step("command", self.next_frame - 1, self.mode.on_command(command), command=command,
                                 seq=seq))

    def dispatch(self, state: State, previous: State | None) -> Response:
        """A committed state to the table mode: the game boards' zones to ``on_commit`` (when they changed,
        or on the first commit), then each card mat whose reading changed to ``on_cards``. Without mats,
        simply ``on_commit(state, previous)``. Resuming goes through here too, so it rebuilds the same game."""
        split = getattr(self.boards, "split", None)  # boards without mats may be any reader of frames
        board, mats = split(state) if split is not None else (state, {})
        if not mats:
            return self.mode.on_commit(state, previous)
        board_before, mats_before = self.boards.split(previous)
        out = Response()
        if board_before is None or board != board_before:
            out += self.mode.on_commit(board, board_before)
        for name, labels in mats.items():
            if labels != mats_before.get(name):
                out += self.mode.on_cards(name, labels)
        return out

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()

    # -- inside ---------------------------------------------------------------------------------------

    def _answer(self, step: Step) -> Step:
        for event in step.events:  # every event on disk before anything lights up
            self._append("event", {**event.to_json(), "after": step.seq})
        with stage(self.times, "outputs"):
            self.outputs.apply(step.response)
            self._snapshot(step)
        self.steps.append(step)
        if self.on_step is not None:
            self.on_step(step)
        return step

    def _snapshot(self, step: Step) -> None:
        step.leds = self.outputs.led_colours()
        step.patterns = self.outputs.patterns()
        step.screen = self.outputs.screen

    def _append(self, kind: str, data: dict[str, Any]) -> int | None:
        if self.journal is None:
            return None
        with stage(self.times, "journal"):
            return self.journal.append(kind, data).seq

    def _where(self) -> str:
        return str(self.journal.path) if self.journal is not None else "journal"


def describe_pattern(pattern: Any) -> dict[str, Any]:
    """An LED pattern as plain data: its kind and fields (``{"Solid": {"colour": [0, 255, 0]}}``)."""
    from dataclasses import asdict, is_dataclass

    if is_dataclass(pattern) and not isinstance(pattern, type):
        return {"pattern": type(pattern).__name__, **asdict(pattern)}
    return {"pattern": type(pattern).__name__}


def describe_screen(screen: Any) -> dict[str, Any] | None:
    from dataclasses import asdict, is_dataclass

    if screen is None:
        return None
    if is_dataclass(screen) and not isinstance(screen, type):
        return {"screen": type(screen).__name__, **asdict(screen)}
    return {"screen": type(screen).__name__}
