"""The live loop of ``alchemy-table run``: the configured camera, LEDs, display and buttons around a
:class:`~assistant.live.pipeline.Pipeline`, with the journal in ``table.state_dir``.

The journal of the game on the table is ``STATE_DIR/game.jsonl``. A new game moves the previous journal
to ``STATE_DIR/games/`` first (nothing is overwritten; under the journal's lock, so never the journal of
another ``run`` still writing it: that is refused); ``--resume`` carries on the game in
``game.jsonl`` (and starts a new one when there is none to carry on). Over a recorded source (an image
folder or a video, for tests and demonstrations), resuming skips the frames already read before the
restart, as a live camera would have moved on.

systemd: READY once the camera has given its first frame (not when it is merely opened: a camera that never
answers must not look healthy), a STATUS line that follows the table (``assistant.live.status``), WATCHDOG
pings while the loop turns (``assistant.notify``), STOPPING on the way out. The camera's exposure is locked
after settling and let settle again (``relock``) when the light stays changed a lot, or when "next" is held
down. SIGTERM and Ctrl-C close the camera, the buttons, the display, the strip and the journal, in that
order, and exit 0.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from assistant import notify
from assistant.config import Config
from assistant.journal import resume, start
from assistant.live.boards import Boards, load_setup
from assistant.live.outputs import Outputs
from assistant.live.pipeline import Pipeline, Step
from assistant.live.status import LightWatch, Status
from assistant.live.wheel import GameWheel
from assistant.stabilise import Stabiliser
from assistant.table import Response, make_mode, mode_class
from assistant.tournament import publisher_from_config
from hardware.buttons import Command
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


def make_factory(layout_specs: list[str] | None, calibration: Sequence[str] = (),
                 cards: str | Path | None = None, layouts: Mapping[str, list[str]] | None = None,
                 picked: Mapping[str, list[str]] | None = None,
                 ) -> Callable[[str, Mapping[str, Any]], tuple[Any, Boards]]:
    """``make(game, setup) -> (mode, boards)`` for a game, reading ``--layout`` values for the first game it
    makes (the game started or resumed), else ``layouts[game]`` (``table.layouts``), else the game's layout;
    ``picked[game]`` (the layouts chosen on the set-up page) before all of them."""
    owner: list[str] = []

    def make(game: str, setup: Mapping[str, Any]):
        owner[:] = owner or [game]
        specs = layout_specs if layout_specs and owner == [game] else (layouts or {}).get(game) or [game]
        specs = (picked or {}).get(game) or specs
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


def choose(game: str, pipeline: Pipeline, wheel: GameWheel, outputs: Outputs) -> Pipeline:
    """The set-up page's game, by name: the question the physical wheel may have left open is answered with
    ``game`` (cancelled when ``game`` is already on the table), never confirmed as it was left."""
    if game == wheel.game:
        return press("back", pipeline, wheel, outputs) if wheel.open else pipeline
    if not wheel.open:
        wheel.saved = outputs.screen  # put back if the switch cannot be made
    wheel.offer(game)
    return press("confirm", pipeline, wheel, outputs)


def switcher(config: Config, path: Path, make, outputs: Outputs, current: list[Pipeline],
             say: Callable[[str], None], web: Any = None) -> Callable[[str], Pipeline]:
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
        pipeline = Pipeline(game, mode, boards, outputs, journal, Stabiliser(), on_step=answered(web),
                            keep=config["table.keep_frames"])
        for note in boards.unenrolled():
            say(note)
        if web is not None:
            web.attach(pipeline)
        pipeline.start()
        current[0] = pipeline
        say(f"switched to a new {game} game")
        return pipeline

    return switch


def run(config: Config, *, game: str | None, resume_game: bool, setup_path: str | None,
        layout_specs: list[str] | None, calibration: Sequence[str], journal_override: str | None,
        say: Callable[[str], None], realtime: bool = False, cards: str | None = None, web: str | None = None) -> int:
    path = journal_path(config, journal_override)
    default_cards = Path(config["table.state_dir"]) / "cards"
    picked: dict[str, list[str]] = {}  # the set-up page's layouts, per game (not written to the configuration)
    make = make_factory(layout_specs, calibration, cards or (default_cards if default_cards.is_dir() else None),
                        config["table.layouts"], picked)
    listen = web or config["web.listen"]
    hub = None
    if listen:
        from assistant.web import Hub
        # (the set-up page writes the first file: the game board's)
        hub = Hub(calibration=calibration[0] if calibration else Path(config["table.state_dir"]) / "calibration.json",
                  cards=cards or default_cards)
    on_step = answered(hub)
    start_game = game or config["table.game"]
    setup = load_setup(setup_path if setup_path or resume_game else config["table.setups"].get(start_game))
    outputs = open_outputs(config)
    buttons = source = pipeline = pinger = publisher = server = None
    previous_term = signal.signal(signal.SIGTERM, _raise_stop)
    try:
        records, journal = resume(path) if resume_game and path.exists() else ((), None)
        if journal is not None and any(r.kind == "game" for r in records):
            try:
                pipeline = Pipeline.resume(records, journal, game, make, outputs, on_step=on_step,
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
            pipeline = Pipeline(name, mode, boards, outputs, journal, Stabiliser(), on_step=on_step,
                                keep=config["table.keep_frames"])
            if hub is not None:
                hub.attach(pipeline)
            pipeline.start()
        if hub is not None:
            hub.attach(pipeline)  # a resumed game: its rebuilt answers
            server = _serve(listen, hub, config, say)
        buttons = config.open_buttons()
        pinger = notify.pinger_from_env(config["service.stall_s"], report=say)
        for note in pipeline.boards.unenrolled():
            say(note)
        status = Status(pipeline.game)
        status.say(f"{pipeline.game}: opening the camera")
        publisher = publisher_from_config(config, say)
        if publisher is not None:
            publisher.update(pipeline)  # the game's start (or where it was resumed), before the camera
        if pinger is not None:
            pinger.start()

        def camera_report(message: str) -> None:
            say(message)
            status.camera_lost(message)
            if publisher is not None:
                publisher.camera(message)

        source = config.open_camera(report=camera_report, heartbeat=pinger.beat if pinger else None)
        recorded = source.name.startswith(("folder ", "video "))
        current = [pipeline]
        wheel = GameWheel(pipeline.game, switcher(config, path, make, outputs, current, say, hub))
        if hub is not None:
            hub.wheel = wheel.games  # the set-up page may turn it
            hub.picked_layouts = picked
        skip = pipeline.next_frame if recorded else 0
        paced = time.monotonic()
        light = LightWatch()
        ready = False
        for t, frame in source:
            if pinger is not None:
                pinger.beat()
            if not ready:
                ready = True
                notify.ready(f"{pipeline.game}: watching the table")
                say(f"{source.name}: first frame read, {frame.shape[1]}x{frame.shape[0]}")
            if skip:
                skip -= 1
                continue
            if realtime and recorded:  # a recording at its own pace, as the camera gave it
                paced = paced if pipeline.frames else time.monotonic() - t
                time.sleep(max(0.0, paced + t - time.monotonic()))
            result = pipeline.feed(frame, t)
            if hub is not None:
                hub.on_frame(result, frame, pipeline)
            status.frame(pipeline.last_reading, result.gate, result.step.events if result.step else ())
            if light.feed(float(frame[::16, ::16].mean())) and source.relock():
                say("the light on the table changed: camera exposure settling again")
            for command in [*buttons.poll(), *(hub.buttons.poll() if hub is not None else ())]:
                if command is Command.RELOCK:
                    if source.relock():
                        light.reset(settling=light.frames)
                        say("relock asked: camera exposure settling again")
                    continue
                before, pipeline = pipeline, press(command.value, pipeline, wheel, outputs)
                if pipeline is not before:  # the game wheel started another game
                    status.game, status.over = pipeline.game, False
            for game in hub.chosen() if hub is not None else ():
                before, pipeline = pipeline, choose(game, pipeline, wheel, outputs)
                if pipeline is not before:
                    status.game, status.over = pipeline.game, False
            if publisher is not None:  # after the journal: the tournament sees only what was committed
                publisher.update(pipeline)
            if hub is not None:
                hub.service(outputs)
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
        if server is not None:
            server.stop()
        if publisher is not None:
            publisher.close()
        with contextlib.suppress(OSError, RuntimeError):
            outputs.close()
        if pipeline is not None:
            pipeline.close()


def answered(web: Any = None) -> Callable[[Step], None]:
    """Each answer printed (journalctl shows it), and told to the web page when one is served."""
    if web is None:
        return print_step

    def both(step: Step) -> None:
        print_step(step)
        web.on_step(step)

    return both


def _serve(listen: str, hub: Any, config: Config, say: Callable[[str], None]) -> Any:
    """The page; a port that cannot be had is said and the table goes on without it (the service keeps
    watching the game)."""
    from assistant.web.serve import start

    try:
        return start(listen, hub, config["table.state_dir"], say)
    except (OSError, ValueError) as e:
        say(f"web page not served: {e}")
        return None


def open_outputs(config: Config) -> Outputs:
    """The strip and the display (``auto`` simulating either on a Pi logs a warning saying why)."""
    strip = config.open_strip()
    try:
        display = config.open_display()
    except BaseException:
        strip.close()
        raise
    return Outputs(Lights(strip, config.led_map()), display)


def _raise_stop(signum, frame):
    raise Stop()
