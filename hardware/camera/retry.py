"""Ride out a failing live camera: report, close, wait (doubling back-off), reopen. Only a driver that is
missing or cannot be imported is raised at once: no wait mends an installation.

>>> from hardware.clock import SteppedClock
>>> from hardware.exc import SourceFailed
>>> attempts = []
>>> def opener():
...     attempts.append(1)
...     raise SourceFailed("camera 0: busy")
>>> source = Retrying(opener, name="camera 0", clock=SteppedClock(), report=print, max_failures=3)
>>> source.read() is None
camera 0: busy; retrying in 0.5 s
camera 0: busy; retrying in 1 s
camera 0: busy; giving up after 3 failures in a row
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from hardware.camera import Frame, Source
from hardware.clock import Clock, MonotonicClock
from hardware.exc import DeviceUnavailable, DriverBroken, DriverMissing

FIRST_WAIT_S = 0.5
LONGEST_WAIT_S = 30.0
HEARTBEAT_EVERY_S = 1.0  # waits are sliced so the service watchdog sees a live loop, not a stall


class Retrying(Source):
    """A live source that reopens itself. ``read()`` returns the next frame, or ``None`` only after
    ``max_failures`` failures in a row (``None``: keep trying forever) or after ``close()``."""

    def __init__(self, opener: Callable[[], Source], *, name: str = "camera", clock: Clock | None = None,
                 report: Callable[[str], None] | None = None, heartbeat: Callable[[], None] | None = None,
                 max_failures: int | None = None, first_wait_s: float = FIRST_WAIT_S,
                 longest_wait_s: float = LONGEST_WAIT_S):
        super().__init__()
        self.opener = opener
        self.name = name
        self.clock = clock or MonotonicClock()
        self.report = report or (lambda message: None)
        self.heartbeat = heartbeat
        self.max_failures = max_failures
        self.first_wait_s = first_wait_s
        self.longest_wait_s = longest_wait_s
        self.source: Source | None = None
        self.failures = 0  # in a row
        self.total_failures = 0
        self.opens = 0

    def _read(self) -> Frame | None:
        while not self.closed:
            try:
                if self.source is None:
                    self.source = self.opener()
                    self.opens += 1
                    if self.failures:
                        self.report(f"{self.name}: back after {_failures(self.failures)}")
                frame = self.source.read()
            except (DriverMissing, DriverBroken):
                raise  # an installation problem: waiting will not mend it
            except (DeviceUnavailable, OSError, RuntimeError) as e:
                if not self._failed(e):
                    return None
                continue
            if frame is None:  # a live source that ends (a stream closed) is a failure too
                if not self._failed(DeviceUnavailable(f"{self.name}: the stream ended")):
                    return None
                continue
            self.failures = 0
            return frame
        return None

    def relock(self) -> bool:
        return self.source is not None and self.source.relock()

    def _failed(self, error: BaseException) -> bool:
        """Report and wait; False when it is time to give up."""
        self._drop()
        self.failures += 1
        self.total_failures += 1
        message = " ".join(str(error).split()) or type(error).__name__
        if self.max_failures is not None and self.failures >= self.max_failures:
            self.report(f"{message}; giving up after {_failures(self.failures)} in a row")
            return False
        wait = min(self.longest_wait_s, self.first_wait_s * 2 ** (self.failures - 1))
        self.report(f"{message}; retrying in {wait:g} s")
        self._wait(wait)
        return True

    def _wait(self, seconds: float) -> None:
        while seconds > 0 and not self.closed:
            step = min(seconds, HEARTBEAT_EVERY_S)
            if self.heartbeat is not None:
                self.heartbeat()
            self.clock.sleep(step)
            seconds -= step

    def _drop(self) -> None:
        if self.source is not None:
            # Closing a camera that just vanished may fail too; it is gone either way.
            with contextlib.suppress(OSError, RuntimeError):
                self.source.close()
            self.source = None

    def _release(self) -> None:
        self._drop()


def _failures(n: int) -> str:
    return f"{n} failure" if n == 1 else f"{n} failures"
