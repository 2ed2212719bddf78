"""The sd_notify protocol against a temporary socket: READY, WATCHDOG, STOPPING, and silence after a stall."""

from __future__ import annotations

import os
import socket

import pytest

from assistant import notify
from hardware.clock import SteppedClock


@pytest.fixture
def systemd(tmp_path):
    """A datagram socket standing in for systemd; returns (env, receive)."""
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5)

    def receive(timeout=5.0):
        sock.settimeout(timeout)
        try:
            return sock.recv(4096).decode()
        except TimeoutError:
            return None

    yield {"NOTIFY_SOCKET": path}, receive
    sock.close()


def test_ready_watchdog_and_stopping_reach_the_socket(systemd):
    env, receive = systemd
    assert notify.ready("watching the table", env=env)
    assert receive() == "READY=1\nSTATUS=watching the table"
    assert notify.watchdog(env=env)
    assert receive() == "WATCHDOG=1"
    assert notify.stopping(env=env)
    assert receive() == "STOPPING=1"


def test_abstract_socket():
    name = f"alchemy-table-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(5)
    try:
        assert notify.ready(env={"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(100) == b"READY=1"
    finally:
        sock.close()


def test_without_systemd_nothing_is_sent_and_nothing_breaks(tmp_path):
    assert notify.ready(env={}) is False
    assert notify.watchdog(env={"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}) is False  # socket vanished


def test_watchdog_interval_from_the_environment():
    assert notify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert notify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 30.0
    assert notify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert notify.watchdog_interval({}) is None
    assert notify.watchdog_interval({"WATCHDOG_USEC": "soon"}) is None


def test_pinger_pings_every_half_period_then_falls_silent_when_the_loop_stalls(systemd):
    env, receive = systemd
    clock = SteppedClock()
    reports = []
    pinger = notify.WatchdogPinger(10.0, stall_s=12.0, clock=clock, send=lambda: notify.watchdog(env),
                                   report=reports.append)
    sent = []
    for second in range(40):
        if second < 20:
            pinger.beat()  # the main loop runs for 20 s, then hangs
        sent.append(pinger.tick())
        clock.advance(1.0)
    assert [s for s, ping in enumerate(sent) if ping] == [0, 5, 10, 15, 20, 25, 30]
    assert pinger.stalled and reports == ["main loop silent for 13.0 s: watchdog pings stopped"]
    assert [receive() for _ in range(7)] == ["WATCHDOG=1"] * 7
    assert receive(timeout=0.2) is None  # silence: systemd will restart the service
    pinger.beat()
    assert pinger.tick() and not pinger.stalled and receive() == "WATCHDOG=1"


def test_pinger_thread_pings_the_real_socket(systemd):
    env, receive = systemd
    pinger = notify.pinger_from_env(stall_s=30.0, env={**env, "WATCHDOG_USEC": "200000"})
    with pinger:
        assert receive() == "WATCHDOG=1"
        pinger.beat()
    assert not pinger._thread.is_alive()
    assert notify.pinger_from_env(env=env) is None  # no WATCHDOG_USEC: no watchdog asked for
