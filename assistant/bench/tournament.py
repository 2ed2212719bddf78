"""``alchemy-table bench tournament [--tables 20,100] [--pace S]``: a real Mosquitto on loopback, the hub and
its page, and simulated tables replaying the recorded sessions (assistant.tournament.simulate).

Two figures per number of tables:

- **delay**: each table plays its game over ``--pace`` seconds (a commit every few tenths of a second per
  table, faster than any real table); the delay of each event is from the moment its table committed it (the
  journal synced, the step answered) to the moment the page's feed (``/api/feed``, the long poll the
  referee's page waits on) handed it to a client. Median and 99th percentile.
- **messages/s**: the tables' journals, already played, are published all at once by fresh publishers
  (connected first); the hub's rate is the messages it took in (events, alerts, results, states, statuses)
  from the moment the tables were told to publish to the last message in.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from assistant.sessions import load_session
from assistant.tournament.connection import Broker
from assistant.tournament.hub import Hub
from assistant.tournament.mosquitto import Mosquitto
from assistant.tournament.page import Served
from assistant.tournament.publisher import Publisher, close_all
from assistant.tournament.simulate import SimulatedTable

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench tournament")
    parser.add_argument("--tables", default="20,100", help="numbers of tables, comma-separated (default 20,100)")
    parser.add_argument("--pace", type=float, default=10.0, help="seconds over which each table plays its game")
    args = parser.parse_args(argv)
    sessions = {g: load_session(g) for g in GAMES}
    print(f"{'tables':>6} {'events':>7} {'delay median':>13} {'delay p99':>10} {'hub msgs/s':>11} {'burst msgs':>10}")
    for n in (int(x) for x in args.tables.split(",")):
        with tempfile.TemporaryDirectory(prefix="alchemy-bench-") as folder:
            events, delays, rate, burst = run(n, args.pace, sessions, Path(folder))
        delays.sort()
        p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]
        print(f"{n:>6} {events:>7} {statistics.median(delays) * 1000:>10.1f} ms {p99 * 1000:>7.1f} ms "
              f"{rate:>11.0f} {burst:>10}", flush=True)
    return 0


def run(n: int, pace: float, sessions, folder: Path) -> tuple[int, list[float], float, int]:
    with Mosquitto() as mosquitto:
        broker = Broker("127.0.0.1", mosquitto.port, "bench")
        hub = Hub(broker, say=lambda message: None)
        hub.start()
        page = Served(hub)
        try:
            if not hub.subscribed.wait(10):
                raise RuntimeError("the hub did not subscribe")
            delays, events = _paced(n, pace, sessions, folder / "paced", broker, page.url)
            rate, burst = _burst(n, sessions, folder / "burst", mosquitto.port)
        finally:
            page.close()
            hub.stop()
    return events, delays, rate, burst


def _paced(n, pace, sessions, folder, broker, url) -> tuple[list[float], int]:
    committed: dict[tuple[str, int], float] = {}
    arrived: dict[tuple[str, int], float] = {}
    stop = threading.Event()

    def follow():
        after = 0
        while not stop.is_set():
            with urllib.request.urlopen(f"{url}/api/feed?after={after}", timeout=30) as response:
                feed = json.loads(response.read())
            now = time.perf_counter()
            after = feed["next"]
            for e in feed["events"]:
                arrived.setdefault((e["table"], e["seq"]), now)

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    tables, publishers = [], []
    for i in range(n):
        name = f"table-{i + 1}"

        def on_step(step, name=name):
            if step.seq is not None:  # the answered record, then its events: all on disk now
                now = time.perf_counter()
                first = step.seq if step.kind == "start" else step.seq + 1
                for seq in range(first, step.seq + len(step.events) + 1):
                    committed[(name, seq)] = now

        table = SimulatedTable(name, sessions[GAMES[i % 4]], folder / name, on_step=on_step)
        tables.append(table)
        publishers.append(Publisher(broker, name, table.state_dir))
    t0 = time.monotonic()
    for table, publisher in zip(tables, publishers, strict=True):
        table.start()
        publisher.update(table.pipeline)
    while not all(t.done for t in tables):
        now = time.monotonic() - t0
        for table, publisher in zip(tables, publishers, strict=True):
            if table.play(int(len(table.frames) * min(1.0, now / pace)) - table.next):
                publisher.update(table.pipeline)
        time.sleep(0.01)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not committed.keys() <= arrived.keys():
        time.sleep(0.1)
    stop.set()
    close_all(publishers, timeout=0.2)
    for table in tables:
        table.close()
    missing = committed.keys() - arrived.keys()
    if missing:
        raise RuntimeError(f"{len(missing)} committed events never reached the page")
    return [arrived[k] - committed[k] for k in committed], len(committed)


def _burst(n, sessions, folder, port) -> tuple[float, int]:
    """Every table's whole game published at once into a fresh hub."""
    tables = []
    for i in range(n):
        table = SimulatedTable(f"table-{i + 1}", sessions[GAMES[i % 4]], folder / f"table-{i + 1}")
        table.start()
        table.play(len(table.frames))
        tables.append(table)
    broker = Broker("127.0.0.1", port, "burst")
    hub = Hub(broker, say=lambda message: None, client_id="bench-burst-hub")
    times: list[float] = []
    hub.on_change(lambda: times.append(time.perf_counter()))
    hub.start()
    if not hub.subscribed.wait(10):
        raise RuntimeError("the hub did not subscribe")
    publishers = [Publisher(broker, t.name, t.state_dir) for t in tables]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(p.connected for p in publishers):
        time.sleep(0.05)
    time.sleep(0.5)  # their greetings in
    before, start = hub.received, time.perf_counter()
    for table, publisher in zip(tables, publishers, strict=True):
        publisher.update(table.pipeline)
    want = sum(_events(t) for t in tables)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and sum(len(v.current.events) for v in hub.tables.values()
                                               if v.current) < want:
        time.sleep(0.05)
    close_all(publishers, timeout=0.2)
    for table in tables:
        table.close()
    hub.stop()
    received = hub.received - before
    return received / (times[-1] - start), received


def _events(table: SimulatedTable) -> int:
    from assistant.journal import read

    return sum(r.kind in ("game", "event") for r in read(table.state_dir / "game.jsonl"))
