"""Where a frame's time goes in the live loop: seconds per stage, frame by frame (``bench live`` prints them).

>>> times = StageTimes()
>>> with times("read"):
...     pass
>>> times.end_frame(); sorted(times.frames[0])
['read']
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

STAGES = ("locate", "read", "stabilise", "table mode", "journal", "outputs")


class StageTimes:
    """``with times(stage):`` adds the block's time to the stage for the current frame; ``end_frame()``
    files the frame's times in ``frames`` (one dict per frame, stages that did not run left out)."""

    def __init__(self):
        self.current: dict[str, float] = {}
        self.frames: list[dict[str, float]] = []

    @contextlib.contextmanager
    def __call__(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.current[stage] = self.current.get(stage, 0.0) + time.perf_counter() - start

    def end_frame(self) -> dict[str, float]:
        done, self.current = self.current, {}
        self.frames.append(done)
        return done


def stage(times: StageTimes | None, name: str):
    """``times(name)``, or a context that does nothing when nothing is being timed."""
    return times(name) if times is not None else contextlib.nullcontext()
