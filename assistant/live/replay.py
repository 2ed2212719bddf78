"""A recorded source (an image folder or a video file) through the real pipeline, with simulated outputs.

Writes to ``out``: ``journal.jsonl`` (the journal, as ``run`` would keep it), ``events.jsonl`` (one line
per answer of the table: its events, the LED patterns and the screen) and, for each answer that carries
events, one composed picture ``NNN-KIND.png`` (annotated frame, LED strip, display, events).

Button presses can be scripted: a ``commands.json`` in the image folder (or given with ``commands``) lists
``{"frame": N, "command": "confirm"}``, pressed right after frame N is read. Recorded sessions write it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from assistant.journal import start
from assistant.live.boards import Boards
from assistant.live.compose import compose
from assistant.live.outputs import Outputs
from assistant.live.pipeline import Pipeline, Step
from assistant.stabilise import Stabiliser
from assistant.table import make_mode
from calibration import files
from hardware.buttons import Command
from hardware.camera import Source
from hardware.clock import SteppedClock

COMMANDS_FILE = "commands.json"
OUTPUT_NAMES = ("journal.jsonl", "events.jsonl")


@dataclass
class Replayed:
    pipeline: Pipeline
    pictures: list[Path]
    frames: int


def open_recorded(path: str | Path) -> Source:
    """An image folder or a video file; a clear one-line error otherwise."""
    from hardware.camera.folder import FolderSource
    from hardware.camera.opencv import VideoFileSource

    path = Path(path)
    if path.is_dir():
        return FolderSource(path)
    if path.is_file():
        return VideoFileSource(path)
    raise FileNotFoundError(2, "no such image folder or video file", str(path))


def read_commands(path: str | Path) -> dict[int, list[str]]:
    """``[{"frame": N, "command": C}, ...]`` -> ``{N: [C, ...]}``; errors ``FILE: [i].key: what``."""
    path = Path(path)
    data = files.load_json(path)
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of {{\"frame\": N, \"command\": C}}")
    out: dict[int, list[str]] = {}
    known = [c.value for c in Command]
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("frame"), int) or item["frame"] < 0:
            raise ValueError(f"{path}: [{i}].frame: expected a frame number >= 0")
        if item.get("command") not in known:
            raise ValueError(f"{path}: [{i}].command: expected one of {', '.join(known)}, got {item.get('command')!r}")
        out.setdefault(item["frame"], []).append(item["command"])
    return out


class Progress:
    """A progress bar on a terminal; on anything else, a line every tenth of the way."""

    def __init__(self, total: int | None, stream: TextIO | None = None, label: str = "frames"):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.label = label
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._shown = -1

    def update(self, done: int, note: str = "") -> None:
        if self.total:
            tenth = done * 10 // self.total
            if not self.tty and (tenth == self._shown or (done != self.total and tenth == 0)):
                return
            self._shown = tenth
            filled = done * 30 // self.total
            bar = f"[{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total} {self.label}"
        else:
            if not self.tty and done % 50:
                return
            bar = f"{done} {self.label}"
        text = f"{bar} {note}".rstrip()
        self.stream.write(f"\r{text}\x1b[K" if self.tty else text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def replay(source: Source, game: str, boards: Boards, setup: Mapping[str, Any], out: str | Path | None,
           commands: Mapping[int, Iterable[str]] | None = None, on_step: Callable[[Step], None] | None = None,
           progress: Progress | None = None, pictures: bool = True, keep_readings: bool = False,
           stabiliser: Stabiliser | None = None, title: str = "", web: Any = None, realtime: bool = False,
           hold: bool = False, wait: Callable[[], bool] | None = None) -> Replayed:
    """Play ``source`` through the pipeline of ``game``; see the module's docstring for what ``out`` gets.

    ``web`` (an ``assistant.web.Hub``) is told every frame and answer, and its on-screen buttons are pressed
    like the scripted ones; ``realtime`` reads the frames at their own pace; ``hold`` keeps the game (and
    its buttons) going after the last frame until Ctrl-C; ``wait`` (with ``web``): after the first frame (which
    never commits) the recording waits while ``wait()`` is true, the page's buttons and requests taken."""
    out_dir = Path(out) if out is not None else None
    journal = None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        journal = start(out_dir / "journal.jsonl", archive=None).journal  # the old one replaced under its lock
        for name in OUTPUT_NAMES:
            if name != "journal.jsonl":
                (out_dir / name).unlink(missing_ok=True)
        for old in out_dir.glob("[0-9][0-9][0-9]-*.png"):
            old.unlink()
    commands = dict(commands or {})
    clock = SteppedClock()
    outputs = Outputs.simulated(clock)
    events_log = open(out_dir / "events.jsonl", "w", encoding="utf-8") if out_dir is not None else None  # noqa: SIM115
    written: list[Path] = []
    current: dict[str, Any] = {"frame": None}

    def answered(step: Step) -> None:
        if web is not None:
            web.on_step(step)
        if events_log is not None:
            events_log.write(json.dumps(step.to_json(), ensure_ascii=False, default=str) + "\n")
            events_log.flush()
        if step.kind == "start" or step.events:
            if current["frame"] is None:
                current["pending"] = step  # the opening screen is drawn over the first frame read
            else:
                picture(step)
        if on_step is not None:
            on_step(step)

    def picture(step: Step) -> None:
        if out_dir is None or not pictures:
            return
        kind = step.events[0].kind if step.events else step.kind
        path = out_dir / f"{len(written):03d}-{_safe(kind)}.png"
        compose(current["frame"], boards, outputs, step, title).save(path)
        written.append(path)

    mode = make_mode(game, boards.layout, setup, source="setup")
    pipeline = Pipeline(game, mode, boards, outputs, journal, stabiliser, on_step=answered,
                        keep_readings=keep_readings)
    n = 0
    paced = None
    try:
        if web is not None:
            web.attach(pipeline)
        pipeline.start()
        for t, frame in source:
            if realtime:  # the recording at the pace the camera gave it
                paced = time.monotonic() - t if paced is None else paced
                time.sleep(max(0.0, paced + t - time.monotonic()))
            clock.advance(max(0.0, t - clock.now()))
            current["frame"] = frame
            result = pipeline.feed(frame, t)  # a first frame never commits: it has no motion score yet
            if "pending" in current:
                picture(current.pop("pending"))
            if web is not None:
                web.on_frame(result, frame, pipeline)
            for command in [*commands.get(result.index, ()), *(web.poll() if web is not None else ())]:
                pipeline.command(command)
            if web is not None:
                web.service(outputs)
            n += 1
            if n == 1 and wait is not None and web is not None:  # the first frame on the page while it waits
                began = time.monotonic()
                while wait():
                    idle(pipeline, outputs, web, clock)
                paced = None if paced is None else paced + time.monotonic() - began
            if progress is not None:
                progress.update(n, f"{sum(len(s.events) for s in pipeline.steps)} events")
        while hold and web is not None:  # the last frame stays on the table; the page's buttons still work
            idle(pipeline, outputs, web, clock)
    finally:
        if progress is not None:
            progress.close()
        if events_log is not None:
            events_log.close()
        pipeline.close()
        outputs.close()
    return Replayed(pipeline, written, n)


def idle(pipeline: Pipeline, outputs: Outputs, web: Any, clock: SteppedClock, seconds: float = 0.05) -> None:
    """A moment with no frame: the page's buttons and requests taken, the outputs kept alive."""
    time.sleep(seconds)
    clock.advance(seconds)
    for command in web.poll():
        pipeline.command(command)
    web.service(outputs)
    outputs.render()


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in text.lower()) or "event"


def source_length(source: Source) -> int | None:
    if hasattr(source, "files"):
        return len(source.files)
    capture = getattr(source, "_capture", None)
    if capture is not None:
        import cv2
        n = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
        return n if n > 0 else None
    return None


def commands_beside(path: str | Path) -> dict[int, list[str]]:
    """The ``commands.json`` of an image folder, if it has one."""
    path = Path(path)
    file = path / COMMANDS_FILE if path.is_dir() else None
    return read_commands(file) if file is not None and file.is_file() else {}


def ensure_empty_or_ours(out: Path) -> None:
    """Refuse to scatter pictures over a folder that holds other things than a previous replay's output."""
    if not out.exists():
        return
    if not out.is_dir():
        raise NotADirectoryError(20, "not a folder", str(out))
    foreign = [p.name for p in out.iterdir() if p.name not in OUTPUT_NAMES and not _ours(p.name)]
    if foreign:
        raise FileExistsError(17, f"holds other files ({foreign[0]}...); choose an empty --out", os.fspath(out))


def _ours(name: str) -> bool:
    return len(name) > 4 and name[:3].isdigit() and name[3] == "-" and name.endswith(".png")
