"""Talking to systemd: READY=1, WATCHDOG=1 and STOPPING=1 as datagrams on ``$NOTIFY_SOCKET``.

The socket may be a path or an abstract socket (written ``@name``). Outside systemd there is no socket and
every call is a quiet no-op, so the same program runs by hand. :class:`WatchdogPinger` pings from a thread
only while the main loop keeps calling ``beat()``: if the loop stalls (a hung camera, a dead lock), the pings
stop and systemd restarts the service, which is the point of having a watchdog at all.

>>> notify("READY=1", env={})
False
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Mapping

from hardware.clock import Clock, MonotonicClock


def socket_address(env: Mapping[str, str] | None = None) -> str | None:
    address = (os.environ if env is None else env).get("NOTIFY_SOCKET", "")
    if not address:
        return None
    return "\0" + address[1:] if address.startswith("@") else address


def notify(*states: str, env: Mapping[str, str] | None = None) -> bool:
    """Send ``states`` (``"READY=1"``, ``"STATUS=…"``) in one datagram; True if systemd was told.

    A failure to send is swallowed (a full queue too): the service must never fall over, nor wait, because
    its supervisor is away."""
    address = socket_address(env)
    if address is None:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            # Never wait on a full queue: a supervisor that does not read must not stall the main loop.
            sock.send("\n".join(states).encode("utf-8"), socket.MSG_DONTWAIT)
        return True
    except OSError:
        return False


def ready(status: str = "", env: Mapping[str, str] | None = None) -> bool:
    return notify("READY=1", *([f"STATUS={status}"] if status else []), env=env)


def stopping(env: Mapping[str, str] | None = None) -> bool:
    return notify("STOPPING=1", env=env)


def watchdog(env: Mapping[str, str] | None = None) -> bool:
    return notify("WATCHDOG=1", env=env)


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """systemd's watchdog period in seconds (``$WATCHDOG_USEC``), or None when no watchdog is asked for
    (or it is meant for another process: ``$WATCHDOG_PID``)."""
    env = os.environ if env is None else env
    pid = env.get("WATCHDOG_PID")
    if pid and pid != str(os.getpid()):
        return None
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 1e6 if usec > 0 else None


class WatchdogPinger:
    """Pings every half watchdog period while the main loop is alive.

    ``beat()`` from the main loop each time round; ``tick()`` decides whether to ping now (a thread calls it
    after ``start()``; tests call it with a stepped clock). The loop counts as stalled when it has not beaten
    for ``stall_s``; pinging resumes if it beats again before systemd gives up on it.
    """

    def __init__(self, interval_s: float, *, stall_s: float = 20.0, clock: Clock | None = None,
                 send: Callable[[], bool] | None = None, report: Callable[[str], None] | None = None):
        if interval_s <= 0 or stall_s <= 0:
            raise ValueError("the watchdog interval and the stall time must be positive")
        self.interval_s = interval_s
        self.stall_s = stall_s
        self.clock = clock or MonotonicClock()
        self.send = send or watchdog
        self.report = report or (lambda message: None)
        self.pings = 0
        self.stalled = False
        self._last_beat = self.clock.now()
        self._last_ping: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def beat(self) -> None:
        self._last_beat = self.clock.now()

    def tick(self) -> bool:
        now = self.clock.now()
        silent = now - self._last_beat
        if silent > self.stall_s:
            if not self.stalled:
                self.stalled = True
                self.report(f"main loop silent for {silent:.1f} s: watchdog pings stopped")
            return False
        if self.stalled:
            self.stalled = False
            self.report("main loop alive again: watchdog pings resumed")
        if self._last_ping is not None and now - self._last_ping < self.interval_s / 2:
            return False
        self._last_ping = now
        self.send()
        self.pings += 1
        return True

    def start(self) -> WatchdogPinger:
        self._thread = threading.Thread(target=self._run, name="watchdog-pinger", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        period = min(self.interval_s / 4, 1.0)
        while not self._stop.wait(period):
            self.tick()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def pinger_from_env(stall_s: float = 20.0, env: Mapping[str, str] | None = None,
                    report: Callable[[str], None] | None = None) -> WatchdogPinger | None:
    """The pinger systemd asked for (not started), or None when there is no watchdog."""
    interval = watchdog_interval(env)
    if interval is None or socket_address(env) is None:
        return None
    return WatchdogPinger(interval, stall_s=stall_s, send=lambda: watchdog(env), report=report)
