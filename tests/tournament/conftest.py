"""A real Mosquitto on loopback (temporary configuration, free port), a hub with its page, and a cable that
can be pulled out between one table and the broker."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from assistant.tournament.mosquitto import INSTALL, Mosquitto, find, free_port


@pytest.fixture
def mosquitto():
    if find() is None:
        pytest.fail(f"mosquitto is not installed; `make test` installs it as root, or run: sudo {INSTALL}")
    broker = Mosquitto().start()
    yield broker
    broker.stop()


@pytest.fixture
def secured():
    """A Mosquitto that requires a password file and lets each user write only under its own table name."""
    if find() is None:
        pytest.fail(f"mosquitto is not installed; `make test` installs it as root, or run: sudo {INSTALL}")
    broker = Mosquitto(users={"table-1": "pw-1", "table-2": "pw-2", "hub": "pw-hub"}).start()
    yield broker
    broker.stop()


@pytest.fixture
def over_tls():
    """A Mosquitto with a password file, the ACL and TLS only (its CA in ``ca_file``)."""
    if find() is None:
        pytest.fail(f"mosquitto is not installed; `make test` installs it as root, or run: sudo {INSTALL}")
    broker = Mosquitto(users={"table-1": "pw-1", "hub": "pw-hub"}, tls=True).start()
    yield broker
    broker.stop()


def get(url: str):
    """GET a JSON page (or the text of another), as a referee's browser would."""
    with urllib.request.urlopen(url, timeout=10) as response:
        body = response.read().decode("utf-8")
        return json.loads(body) if response.headers.get_content_type() == "application/json" else body


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


def wait_for(condition, timeout: float, every: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return condition()


class Cable:
    """A TCP pass-through from a local port to the broker's: ``unplug()`` cuts every connection through it
    and refuses new ones (the table's network is gone), ``plug()`` gives it back."""

    def __init__(self, port: int):
        self.target = port
        self.port = free_port()
        self.plugged = True
        self._links: list[socket.socket] = []
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if not self.plugged:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=2)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._links += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def unplug(self) -> None:
        self.plugged = False
        with self._lock:
            links, self._links = self._links, []
        for s in links:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def plug(self) -> None:
        self.plugged = True

    def close(self) -> None:
        self.unplug()
        self._server.close()


@pytest.fixture
def web():
    """The page and network helpers: ``web.get(url)``, ``web.status(url)``, ``web.wait_for(...)``,
    ``web.Cable(port)`` (test modules cannot import conftest under --import-mode=importlib)."""
    import types

    return types.SimpleNamespace(get=get, status=status, wait_for=wait_for, Cable=Cable)
