"""Where the live loop and the web page meet, across two threads.

The loop's thread (``run``, ``replay``, ``demo``) tells the hub about each frame (:meth:`Hub.on_frame`: a
reference to the frame and the boards' readings, nothing copied or encoded there) and each answer of the
table (:meth:`Hub.on_step`), polls its on-screen buttons (:meth:`Hub.poll`, exactly as it polls the physical
ones) and lets it run the few things that must happen on the loop's thread (:meth:`Hub.service`: a PIN or
a join code shown on the table's display, a new calibration put to use). The server's thread reads the
hub's public picture of the game (:meth:`Hub.status`) and is woken by the watchers it registers.

Secrets: the PIN is only ever shown on the table's display (never on a page, never logged); a join code is
shown there and to the PIN holder's page, and is good for one join. The Alchemists scan area is private: its
zones are left out of every public state, its answers go to the scanning player's page only, and the
display and the LEDs answering them are hidden on the shared page.
"""

from __future__ import annotations

import collections
import hmac
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.live.pipeline import FrameResult, Pipeline, Step, describe_screen
from assistant.web.panels import panel
from assistant.web.players import PRIVATE_KINDS, Players
from hardware.buttons import Buttons, Command
from hardware.display.screens import Message

EVENTS_KEPT = 60
SHOW_SECONDS = 30.0


@dataclass
class Seen:
    """The latest frame and what the boards read on it (the server annotates it, off the loop's thread)."""

    index: int
    frame: Any                                   # BGR array, as the camera gave it
    readings: list[tuple[Any, Any]]              # (layout, Reading) per board
    board_found: bool
    missing: list[str] = field(default_factory=list)


class Hub:
    """The game as the page sees it. ``pin``: the table's PIN (six digits, drawn at random by default)."""

    def __init__(self, pin: str | None = None, calibration: str | Path | None = None,
                 cards: str | Path | None = None):
        self.pin = pin or f"{secrets.randbelow(10 ** 6):06d}"
        self.calibration_path = Path(calibration) if calibration else None
        self.cards_path = Path(cards) if cards else None
        self.buttons = Buttons()   # the on-screen buttons: polled by the loop like the physical ones
        self.players = Players()
        self.pipeline: Pipeline | None = None     # touched on the loop's thread only
        self._lock = threading.Lock()
        self._watchers: list[Callable[[str], None]] = []
        self._tasks: queue.SimpleQueue[Callable[[Any], None]] = queue.SimpleQueue()
        self.picked_layouts: dict[str, list[str]] | None = None  # run: per game, the layouts the page chose
        self._chosen: queue.SimpleQueue[str] = queue.SimpleQueue()  # games chosen on the set-up page
        self._overlay_until = 0.0
        self._frame_times: collections.deque[float] = collections.deque(maxlen=30)
        self.seen: Seen | None = None
        self.game: str | None = None
        self.layouts: list[Any] = []
        self.private_zones: frozenset[str] = frozenset()
        self.events: collections.deque[dict[str, Any]] = collections.deque(maxlen=EVENTS_KEPT)
        self.screen: Any = None
        self.screen_size: tuple[tuple[int, int], str] = ((128, 64), "1")
        self.leds: dict[str, list[tuple[int, int, int]]] = {}
        self.state: Any = None
        self.panel: dict[str, Any] = panel(None, None)   # the game's state panel, made on the loop's thread
        self.answers: collections.Counter[str] = collections.Counter()  # Alchemists: scan answers per player
        self.private_screen: Any = None     # the screen answering a private scan (hidden on the shared page)
        self.private_who: str | None = None
        self.over = False
        self.steps = 0
        self.commit_time: float | None = None   # wall clock of the last answer (the browser test's latency)
        self.wheel: tuple[str, ...] = ()   # the games of the loop's game wheel (run); none: a recording's game

    # -- the loop's thread ----------------------------------------------------------------------------

    def attach(self, pipeline: Pipeline) -> None:
        """A game starts on the table (or is resumed, or switched to by the wheel)."""
        self.pipeline = pipeline
        with self._lock:
            self.game = pipeline.game
            self.layouts = [b.layout for b in pipeline.boards.boards]
            self.private_zones = frozenset(
                b.prefix(z.id) for b in pipeline.boards.boards for z in b.layout.zones
                if pipeline.game == "alchemists" and z.kind == "card")
            self.events.clear()
            self.players.reset(pipeline.game)
            self.private_screen = None
            self.answers.clear()
            self.panel = panel(pipeline.game, pipeline.mode)
            outputs = pipeline.outputs
            if outputs.display is not None:
                self.screen_size = (outputs.display.size, outputs.display.mode)
            for step in pipeline.steps:
                self._take(step)
        self._notify("status")

    def on_step(self, step: Step) -> None:
        with self._lock:
            self._take(step)
        self._notify("status")

    def on_frame(self, result: FrameResult, frame: Any, pipeline: Pipeline) -> None:
        """After each frame read: keep references only (the frame array is not written to afterwards)."""
        boards = pipeline.boards
        readings = [(b.layout, r) for b, r in zip(boards.boards, boards.last, strict=True) if r is not None]
        found = all(r.board_found for _, r in readings) and bool(readings)
        missing = [b.name or b.layout.name for b, r in zip(boards.boards, boards.last, strict=True)
                   if r is None or not r.board_found]
        self.seen = Seen(result.index, frame, readings, found, missing)  # the server looks at it when it wants
        self._frame_times.append(time.monotonic())

    def poll(self) -> list[str]:
        """The on-screen buttons pressed since the last poll (command values, oldest first)."""
        return [c.value for c in self.buttons.poll()]

    def service(self, outputs: Any) -> None:
        """Run what the page asked of the loop's thread; put the game's screen back after a PIN or code."""
        while True:
            try:
                task = self._tasks.get_nowait()
            except queue.Empty:
                break
            task(outputs)
        if self._overlay_until and time.monotonic() > self._overlay_until:
            self._overlay_until = 0.0
            if outputs.display is not None and outputs.screen is not None:
                outputs.display.show(outputs.screen)

    # -- the server's thread ----------------------------------------------------------------------------

    def watch(self, wake: Callable[[str], None]) -> None:
        """``wake(what)`` is called (from any thread) with ``"status"`` when the game's picture changed."""
        self._watchers.append(wake)

    def check_pin(self, given: str) -> bool:
        return hmac.compare_digest(str(given).strip().encode(), self.pin.encode())

    def press(self, command: str) -> None:
        """An on-screen button: into the same queue a physical button's command goes."""
        self.buttons.emit(Command(command))

    def turn_wheel_to(self, game: str) -> None:
        """The game wheel set to ``game`` by name and confirmed at the loop's next frame (whatever the physical
        wheel left offered); ValueError when the loop has no wheel (a recording plays its own game) or
        ``game`` is not one of its games."""
        if not self.wheel:
            raise ValueError(f"choosing the game needs 'alchemy-table run' (a recording plays its own game, "
                             f"{self.game})")
        if game not in self.wheel:
            raise ValueError(f"game: expected one of {', '.join(self.wheel)}")
        self._chosen.put(game)

    def chosen(self) -> list[str]:
        """The games chosen on the set-up page since the last call (the loop's thread), oldest first."""
        games = []
        while True:
            try:
                games.append(self._chosen.get_nowait())
            except queue.Empty:
                return games

    def show_on_display(self, title: str, text: str, seconds: float = SHOW_SECONDS) -> None:
        """Show a secret on the table's display (not on ``outputs.screen``, so neither the page's mirror nor
        the replay's pictures ever hold it), for ``seconds``."""

        def show(outputs: Any) -> None:
            if outputs.display is not None:
                outputs.display.show(Message(title, text, "info"))
                self._overlay_until = time.monotonic() + seconds

        self._tasks.put(show)

    def on_loop(self, task: Callable[[Any], None]) -> None:
        """Run ``task(outputs)`` on the loop's thread, at its next frame."""
        self._tasks.put(task)

    def use_calibration(self) -> None:
        """From the next frame, read with the calibration file and the cards the wizard stored."""
        path, cards = self.calibration_path, self.cards_path

        def reload(outputs: Any) -> None:
            from calibration.store import load_calibration
            from vision.read import Reader

            calibration = load_calibration(path) if path is not None and path.exists() else None
            library = None
            if cards is not None and cards.is_dir():
                from vision.cards.store import CardLibrary
                library = CardLibrary(cards)
            for board in self.pipeline.boards.boards:
                # (the page's file is for one layout; another board, a card mat given its own file, keeps its own)
                same = calibration is not None and calibration.layout == board.layout.name
                board.reader = Reader(board.layout, calibration if same else board.reader.calibration, cards=library)

        self._tasks.put(reload)

    @property
    def fps(self) -> float | None:
        times = list(self._frame_times)
        if len(times) < 2 or times[-1] == times[0]:
            return None
        return (len(times) - 1) / (times[-1] - times[0])

    def status(self, unlocked: bool | None = False) -> dict[str, Any]:
        """The shared page's picture of the game: nothing private, nothing secret. ``unlocked``: whether the
        asker holds the PIN (None in a pushed status, which cannot tell)."""
        with self._lock:
            private = self.private_screen is not None and self.private_screen is self.screen
            seen = self.seen
            out: dict[str, Any] = {
                "game": self.game, "frame": seen.index if seen else None,
                "fps": None if self.fps is None else round(self.fps, 1),
                "board_found": seen.board_found if seen else None,
                "missing": seen.missing if seen else [],
                "screen": ({"screen": "hidden", "title": "A player's scan",
                            "text": (f"the answer is on {self.private_who}'s page" if self.private_who
                                     else "the answer is on the table's display")} if private
                           else describe_screen(self.screen)),
                "leds": {} if private else {g: [list(c) for c in colours] for g, colours in self.leds.items()},
                "events": list(self.events),
                "state": self._public_state(), "panel": self.panel,
                "over": self.over, "steps": self.steps, "commit_time": self.commit_time,
                "unlocked": unlocked, "players": self.players.names(),
                "scanner": self.players.scanner_name(),
            }
        return out

    # -- inside ---------------------------------------------------------------------------------------

    def _take(self, step: Step) -> None:
        private = False
        for event in step.events:
            if self.game == "alchemists" and event.kind in PRIVATE_KINDS:
                private = True
                who = self.private_who = self.players.record(event)
                self.answers[who or "nobody (on the table's display)"] += 1
                message = (f"{who}: {event.kind}; the answer is on {who}'s page" if who
                           else f"{event.kind}: the answer is on the table's display")
                self.events.append({"kind": event.kind, "message": message, "legal": None,
                                    "step": self.steps, "at": _where(step)})
            else:
                self.events.append({"kind": event.kind, "message": event.message, "legal": event.legal,
                                    "step": self.steps, "at": _where(step)})
            if event.kind == "reveal":
                self.players.revealed = True
        self.screen = step.screen
        if private:
            self.private_screen = step.screen
        self.leds = dict(step.leds)
        if step.state is not None:
            self.state = step.state
        self.steps += 1
        self.over = self.pipeline is not None and self.pipeline.mode.over
        if self.pipeline is not None:
            self.panel = panel(self.game, self.pipeline.mode, self.answers)
        self.commit_time = time.time()

    def _public_state(self) -> dict[str, Any]:
        if self.state is None:
            return {"zones": {}, "counts": {}}
        zones = {z: label for z, label in self.state.zones if label != "empty" and z not in self.private_zones}
        counts = {z: dict(v) for z, v in self.state.counts if z not in self.private_zones}
        return {"zones": zones, "counts": counts}

    def _notify(self, what: str) -> None:
        for wake in list(self._watchers):
            wake(what)


def _where(step: Step) -> str:
    return ("start" if step.kind == "start" else f"frame {step.frame}" if step.kind == "state"
            else f"button {step.command}")
