"""``alchemy-table bench tournament [--tables 20,100] [--pace S]``: a real Mosquitto on loopback, the hub and
its page, and N tables publishing the recorded sessions' games.

Each recorded session is first played once through the real pipeline (simulated tables, as in the tests);
the bench's tables then replay those games' journal records into journals of their own (appended and synced
as the live loop does), step by step, each with the compact state the table mode had after it. On a real
evening each table's engine runs on its own Pi: replaying the journals keeps 100 tables' engines off the
two cores the broker and the hub are measured on.

- **delay**: each table replays its game over ``--pace`` seconds (a step every 0.1-0.3 s per table, far
  busier than a real table); an event's delay runs from its journal append returning (committed) to the
  moment the page's feed (``/api/feed``, the long poll the referee's page waits on) handed it to a client.
  Median and 99th percentile.
- **hub msgs/s**: the finished journals are published at once by fresh publishers (connected first) to a
  fresh hub; its rate is the messages it took in (events, alerts, results, states, statuses) from the moment
  the tables were told to publish to the last one in.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.journal import Journal, Record, read
from assistant.sessions import load_session
from assistant.tournament.connection import Broker
from assistant.tournament.hub import Hub
from assistant.tournament.mosquitto import Mosquitto
from assistant.tournament.page import Served
from assistant.tournament.publisher import Publisher, close_all
from assistant.tournament.simulate import SimulatedTable
from assistant.tournament.summary import summary

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")


@dataclass
class Recorded:
    """A game played once: its journal records in steps, each with the compact state after it."""

    game: str
    steps: list[tuple[list[Record], dict[str, Any]]]

    @property
    def events(self) -> int:
        return sum(r.kind in ("game", "event") for records, _ in self.steps for r in records)


def record(game: str, folder: Path) -> Recorded:
    marks: list[tuple[int, dict[str, Any]]] = []
    holder: dict[str, SimulatedTable] = {}

    def on_step(step):
        marks.append((holder["t"].pipeline.journal.next_seq - 1, summary(game, holder["t"].pipeline.mode)))

    table = holder["t"] = SimulatedTable(game, load_session(game), folder / game, on_step=on_step)
    table.start()
    table.play(len(table.frames))
    table.close()
    records = read(folder / game / "game.jsonl")
    steps, start = [], 0
    for last, state in marks:
        steps.append((records[start:last], state))
        start = last
    return Recorded(game, steps)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench tournament")
    parser.add_argument("--tables", default="20,100", help="numbers of tables, comma-separated (default 20,100)")
    parser.add_argument("--pace", type=float, default=10.0, help="seconds over which each table replays its game")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="alchemy-bench-") as folder:
        games = [record(g, Path(folder) / "recorded") for g in GAMES]
        print(f"games recorded through the pipeline: {', '.join(f'{g.game} ({g.events} events)' for g in games)}")
        print(f"{'tables':>6} {'events':>7} {'delay median':>13} {'delay p99':>10} {'hub msgs/s':>11} "
              f"{'burst msgs':>10}")
        for n in (int(x) for x in args.tables.split(",")):
            events, delays, rate, burst = run(n, args.pace, games, Path(folder) / f"n{n}")
            delays.sort()
            p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]
            print(f"{n:>6} {events:>7} {statistics.median(delays) * 1000:>10.1f} ms {p99 * 1000:>7.1f} ms "
                  f"{rate:>11.0f} {burst:>10}", flush=True)
    return 0


def run(n: int, pace: float, games: list[Recorded], folder: Path) -> tuple[int, list[float], float, int]:
    with Mosquitto() as mosquitto:
        broker = Broker("127.0.0.1", mosquitto.port, "bench")
        hub = Hub(broker, say=lambda message: None)
        hub.start()
        page = Served(hub)
        try:
            if not hub.subscribed.wait(10):
                raise RuntimeError("the hub did not subscribe")
            delays, events = _paced(n, pace, games, folder / "paced", broker, page.url)
        finally:
            page.close()
            hub.stop()
        rate, burst = _burst(n, folder, mosquitto.port)
    return events, delays, rate, burst


class Replaying:
    """A table replaying a recorded game into its own journal, step by step."""

    def __init__(self, name: str, game: Recorded, folder: Path, broker: Broker):
        self.name, self.game = name, game
        self.path = folder / name / "game.jsonl"
        self.journal = Journal(self.path)
        self.publisher = Publisher(broker, name, self.path.parent)
        self.next = 0
        self.committed: dict[int, float] = {}

    def play(self, upto: int) -> None:
        while self.next < min(upto, len(self.game.steps)):
            records, state = self.game.steps[self.next]
            for r in records:
                seq = self.journal.append(r.kind, r.data).seq
                if r.kind in ("game", "event"):
                    self.committed[seq] = time.perf_counter()
            self.publisher.note(self.path, self.journal.next_seq - 1, state)
            self.next += 1

    @property
    def done(self) -> bool:
        return self.next >= len(self.game.steps)


def _paced(n, pace, games, folder, broker, url) -> tuple[list[float], int]:
    arrived: dict[tuple[str, int], float] = {}
    stop = threading.Event()

    def follow():
        after = 0
        while not stop.is_set():
            try:
                with urllib.request.urlopen(f"{url}/api/feed?after={after}", timeout=30) as response:
                    feed = json.loads(response.read())
            except OSError:
                return  # the page closed at the end of the run
            now = time.perf_counter()
            after = feed["next"]
            for e in feed["events"]:
                arrived.setdefault((e["table"], e["seq"]), now)

    threading.Thread(target=follow, daemon=True).start()
    tables = [Replaying(f"table-{i + 1}", games[i % len(games)], folder, broker) for i in range(n)]
    t0 = time.monotonic()
    while not all(t.done for t in tables):
        share = min(1.0, (time.monotonic() - t0) / pace)
        for t in tables:
            t.play(round(len(t.game.steps) * share))
        time.sleep(0.005)
    committed = {(t.name, seq): at for t in tables for seq, at in t.committed.items()}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not committed.keys() <= arrived.keys():
        time.sleep(0.1)
    stop.set()
    close_all([t.publisher for t in tables], timeout=0.5)
    for t in tables:
        t.journal.close()
    missing = committed.keys() - arrived.keys()
    if missing:
        raise RuntimeError(f"{len(missing)} committed events never reached the page")
    return [arrived[k] - committed[k] for k in committed], len(committed)


def _burst(n, folder, port) -> tuple[float, int]:
    """The paced run's finished journals, published at once by fresh publishers into a fresh hub."""
    broker = Broker("127.0.0.1", port, "burst")
    hub = Hub(broker, say=lambda message: None, client_id="bench-burst-hub")
    times: list[float] = []
    hub.on_change(lambda: times.append(time.perf_counter()))
    hub.start()
    if not hub.subscribed.wait(10):
        raise RuntimeError("the hub did not subscribe")
    paths = []
    for i in range(n):
        path = folder / "burst" / f"table-{i + 1}" / "game.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes((folder / "paced" / f"table-{i + 1}" / "game.jsonl").read_bytes())
        paths.append(path)
    publishers = [Publisher(broker, path.parent.name, path.parent) for path in paths]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(p.connected for p in publishers):
        time.sleep(0.05)
    time.sleep(0.5)  # their greetings in
    want = sum(sum(r.kind in ("game", "event") for r in read(path)) for path in paths)
    before, start = hub.received, time.perf_counter()
    for publisher, path in zip(publishers, paths, strict=True):
        publisher.note(path, 0, {})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and sum(len(g.events) for v in hub.tables.values()
                                               for g in v.games.values()) < want:
        time.sleep(0.02)
    received = hub.received - before
    span = times[-1] - start
    close_all(publishers, timeout=0.2)
    hub.stop()
    return received / span, received
