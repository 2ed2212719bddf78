"""The live loop of ``alchemy-table run``: the configured camera, LEDs, display and buttons around a
:class:`~assistant.live.pipeline.Pipeline`, with the journal in ``table.state_dir``.

The journal of the game on the table is ``STATE_DIR/game.jsonl``. A new game moves the previous journal
to ``STATE_DIR/games/`` first (nothing is overwritten; under the journal's lock, so never the journal of
another ``run`` still writing it: that is refused); ``--resume`` carries on the game in
``game.jsonl`` (and starts a new one when there is none to carry on). Over a recorded source (an image
folder or a video, for tests and demonstrations), resuming skips the frames already read before the
restart, as a live camera would have moved on.

systemd: READY once the devices are open, WATCHDOG pings while the loop turns (``assistant.notify``),
STOPPING on the way out. SIGTERM and Ctrl-C close the camera, the buttons, the display, the strip and the
journal, in that order, and exit 0.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from assistant import notify
from assistant.config import Config
from assistant.journal import resume, start
from assistant.live.boards import Boards, load_setup
from assistant.live.outputs import Outputs
from assistant.live.pipeline import Pipeline, Step
from assistant.live.wheel import GameWheel
from assistant.stabilise import Stabiliser
from assistant.table import Response, make_mode, mode_class
from hardware.display.screens import Message
from hardware.leds.patterns import Lights

JOURNAL = "game.jsonl"


class Stop(Exception):
    """SIGTERM: leave the loop and close everything."""


def journal_path(config: Config, override: str | None = None) -> Path:
    return Path(override) if override else Path(config["table.state_dir"]) / JOURNAL


def print_step(step: Step, out=None) -> None:
    """Each event as one line, as it happens (journalctl shows them under the service)."""
    out = out or sys.stdout
    where = ("start" if step.kind == "start" else f"frame {step.frame}" if step.kind == "state"
             else f"button {step.command}")
    for event in step.events:
        verdict = "" if event.legal is None else (" [legal]" if event.legal else " [ILLEGAL]")
        kind = "" if event.kind == where else f"{event.kind}: "  # "start: start: ..." says it twice
        print(f"{where}: {kind}{event.message}{verdict}", file=out, flush=True)


def make_factory(layout_specs: list[str] | None, calibration: str | None,
                 cards: str | Path | None = None, layouts: Mapping[str, list[str]] | None = None,
                 ) -> Callable[[str, Mapping[str, Any]], tuple[Any, Boards]]:
    """``make(game, setup) -> (mode, boards)`` for a game, reading ``--layout`` values for the first game it
    makes (the game started or resumed), else ``layouts[game]`` (``table.layouts``), else the game's layout."""
    owner: list[str] = []

    def make(game: str, setup: Mapping[str, Any]):
        owner[:] = owner or [game]
        specs = layout_specs if layout_specs and owner == [game] else (layouts or {}).get(game) or [game]
        boards = Boards.from_specs(specs, calibration, cards, mat_sets=mode_class(game).card_mats)
        return make_mode(game, boards.layout, setup, source="setup"), boards

    return make


def press(command: str, pipeline: Pipeline, wheel: GameWheel, outputs: Outputs) -> Pipeline:
    """A button command: the game wheel's (``game-next``/``game-previous``, then its ``confirm`` or its
    cancel), or the game's. Returns the pipeline of the game on the table (a new one after a switch)."""
    if not wheel.takes(command):
        pipeline.command(command)
        return pipeline
    was_open, shown = wheel.open, outputs.screen
    answer = wheel.press(command)
    if isinstance(answer, Pipeline):
        return answer
    if not was_open:
        wheel.saved = shown  # the game's own screen, put back when the question is cancelled
    screen = answer if answer is not None else wheel.saved
    if screen is not None:
        outputs.apply(Response(screen=screen))
    return pipeline


def switcher(config: Config, path: Path, make, outputs: Outputs, current: list[Pipeline],
             say: Callable[[str], None]) -> Callable[[str], Pipeline]:
    """``switch(game)``: close the game on the table, archive its journal, start ``game`` with its set-up
    from ``table.setups.<game>``."""

    def switch(game: str) -> Pipeline:
        old = current[0]
        try:  # a set-up or layout that cannot be used leaves the game on the table as it is
            mode, boards = make(game, load_setup(config["table.setups"].get(game)))
        except (ValueError, OSError) as e:
            say(f"cannot switch to {game}: {e}")
            outputs.apply(Response(screen=Message(f"Cannot start {game}", str(e), "error")))
            return old
        old.close()
        journal, moved = start(path)  # the previous journal is archived under the journal's lock
        if moved is not None:
            say(f"previous game kept as {moved}")
        pipeline = Pipeline(game, mode, boards, outputs, journal, Stabiliser(), on_step=print_step,
                            keep=config["table.keep_frames"])
        pipeline.start()
        current[0] = pipeline
        say(f"switched to a new {game} game")
        return pipeline

    return switch


def run(config: Config, *, game: str | None, resume_game: bool, setup_path: str | None,
        layout_specs: list[str] | None, calibration: str | None, journal_override: str | None,
        say: Callable[[str], None], realtime: bool = False, cards: str | None = None) -> int:
    path = journal_path(config, journal_override)
    default_cards = Path(config["table.state_dir"]) / "cards"
    make = make_factory(layout_specs, calibration, cards or (default_cards if default_cards.is_dir() else None),
                        config["table.layouts"])
    start_game = game or config["table.game"]
    setup = load_setup(setup_path if setup_path or resume_game else config["table.setups"].get(start_game))
    outputs = open_outputs(config)
    buttons = source = pipeline = pinger = None
    previous_term = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        records, journal = resume(path) if resume_game and path.exists() else ((), None)
        if journal is not None and any(r.kind == "game" for r in records):
            try:
                pipeline = Pipeline.resume(records, journal, game, make, outputs, on_step=print_step,
                                           keep=config["table.keep_frames"])
            except BaseException:
                journal.close()
                raise
            say(f"resuming the {pipeline.game} game of {path} ({sum(r.kind == 'state' for r in records)} states "
                f"on record)")
        else:
            if journal is not None:
                journal.close()
            if resume_game:
                say(f"{path}: no game to resume; starting a new one")
            name = start_game
            mode, boards = make(name, setup)
            journal, moved = start(path)  # refused while another process has the journal open
            if moved is not None:
                say(f"previous game kept as {moved}")
            pipeline = Pipeline(name, mode, boards, outputs, journal, Stabiliser(), on_step=print_step,
                                keep=config["table.keep_frames"])
            pipeline.start()
        buttons = config.open_buttons()
        pinger = notify.pinger_from_env(config["service.stall_s"], report=say)
        source = config.open_camera(report=say, heartbeat=pinger.beat if pinger else None)
        recorded = source.name.startswith(("folder ", "video "))
        notify.ready(f"{pipeline.game}: watching the table")
        if pinger is not None:
            pinger.start()
        current = [pipeline]
        wheel = GameWheel(pipeline.game, switcher(config, path, make, outputs, current, say))
        skip = pipeline.next_frame if recorded else 0
        paced = time.monotonic()
        for t, frame in source:
            if pinger is not None:
                pinger.beat()
            if skip:
                skip -= 1
                continue
            if realtime and recorded:  # a recording at its own pace, as the camera gave it
                paced = paced if pipeline.frames else time.monotonic() - t
                time.sleep(max(0.0, paced + t - time.monotonic()))
            pipeline.feed(frame, t)
            for command in buttons.poll():
                pipeline = press(command.value, pipeline, wheel, outputs)
        if recorded:
            say(f"{source.name}: end of the recording")
        return 0
    except (KeyboardInterrupt, Stop):
        say("stopping")
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        notify.stopping()
        for closing in (source, buttons):
            if closing is not None:
                with contextlib.suppress(OSError, RuntimeError):
                    closing.close()
        if pinger is not None:
            pinger.stop()
        with contextlib.suppress(OSError, RuntimeError):
            outputs.close()
        if pipeline is not None:
            pipeline.close()


def open_outputs(config: Config) -> Outputs:
    strip = config.open_strip()
    try:
        display = config.open_display()
    except BaseException:
        strip.close()
        raise
    return Outputs(Lights(strip, config.led_map()), display)


def _raise_stop(signum, frame):
    raise Stop()
