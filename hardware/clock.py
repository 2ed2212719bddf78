"""Clocks: the wall of time that LED patterns, retries and watchdogs read, and that tests can step.

>>> clock = SteppedClock()
>>> clock.sleep(1.5); clock.now()
1.5
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale."""

    def sleep(self, seconds: float) -> None:
        """Wait; a stepped clock just moves on."""


class MonotonicClock:
    """The real clock: ``time.monotonic`` and ``time.sleep``."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class SteppedClock:
    """A clock that only moves when told to: ``advance`` (or ``sleep``, which records the wait)."""

    def __init__(self, start: float = 0.0):
        self._t = float(start)
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self._t

    def advance(self, seconds: float) -> float:
        self._t += seconds
        return self._t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.advance(max(0.0, seconds))
