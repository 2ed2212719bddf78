"""A table's side: what the broker acknowledged survives a restart, and ``alchemy-table run`` publishes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

from assistant.journal import read
from assistant.sessions import load_session
from assistant.tournament import publisher as publishing
from assistant.tournament.connection import Broker
from assistant.tournament.hub import Hub
from assistant.tournament.publisher import ACKED_FILE, Publisher
from assistant.tournament.simulate import SimulatedTable


def committed(table: SimulatedTable) -> list[int]:
    return [r.seq for r in read(table.state_dir / "game.jsonl") if r.kind in ("game", "event")]


def saved(table: SimulatedTable) -> int | None:
    path = table.state_dir / ACKED_FILE
    return json.loads(path.read_text())["acked"] if path.exists() else None


def test_a_table_restarted_publishes_what_the_broker_never_acknowledged_and_nothing_twice(mosquitto, tmp_path, web):
    broker = Broker("127.0.0.1", mosquitto.port, "club")
    said: list[str] = []
    hub = Hub(broker, say=said.append)
    hub.start()
    assert web.wait_for(hub.subscribed.is_set, 10)
    table = SimulatedTable("table-1", load_session("alchimiste"), tmp_path / "t1")
    first = Publisher(broker, "table-1", table.state_dir, say=said.append)
    second = None
    try:
        table.start()
        table.play(60)
        first.update(table.pipeline)
        acked = committed(table)[-1]
        assert web.wait_for(lambda: first.acked == acked, 10)
        assert web.wait_for(lambda: saved(table) == acked, 5)   # kept in the state folder
        mosquitto.kill()
        assert web.wait_for(lambda: not hub.subscribed.is_set(), 10)
        table.play(50)                        # the table plays on without a broker
        first.update(table.pipeline)
        first.client.loop_stop()              # then the power goes: what paho was holding is gone
        first._stop = True
        table.play(len(table.frames))
        mosquitto.start()
        assert web.wait_for(hub.subscribed.is_set, 15)  # the hub is listening again: a duplicate would reach it
        second = Publisher(broker, "table-1", table.state_dir, say=said.append)  # the table back up
        second.update(table.pipeline)
        want = committed(table)
        assert web.wait_for(lambda: [e["seq"] for e in hub.table("table-1")["events"]] == want, 20)
        assert hub.duplicates == 0            # nothing the broker had acknowledged was published again
        assert any(f"the broker has the records up to {acked}; publishing from there" in s for s in said)
    finally:
        if second is not None:
            second.close(timeout=0.5)
        table.close()
        hub.stop()


def test_a_camera_lost_while_the_table_greets_the_broker_is_what_the_broker_keeps(mosquitto, tmp_path, web,
                                                                                   monkeypatch):
    """The broker comes back and the publisher's thread builds its greeting status (camera ok) just as the
    live loop reports the camera lost: the retained status a hub joining later reads must say lost, not the
    stale ok handed to paho after it."""
    main, armed, building, built = threading.get_ident(), threading.Event(), threading.Event(), threading.Event()
    clock = publishing._now

    def slow_now():
        if armed.is_set() and threading.get_ident() != main and not building.is_set():
            building.set()
            time.sleep(0.5)  # the camera's state is read; the status is not yet with paho
            built.set()
        return clock()

    monkeypatch.setattr(publishing, "_now", slow_now)
    broker = Broker("127.0.0.1", mosquitto.port, "club")
    table = SimulatedTable("table-3", load_session("chaudron"), tmp_path / "t3")
    publisher = Publisher(broker, "table-3", table.state_dir)
    late = Hub(broker)
    try:
        table.start()
        publisher.update(table.pipeline)
        assert web.wait_for(lambda: publisher.connected and publisher.acked >= 1 and not publisher._pending, 10)
        armed.set()
        mosquitto.kill()
        assert web.wait_for(lambda: not publisher.connected, 10)
        mosquitto.start()
        assert building.wait(20)  # reconnected: the thread is greeting the broker
        publisher.camera("opencv 0: cannot open the camera; retrying in 0.5 s")
        assert built.wait(5) and web.wait_for(lambda: publisher.connected and not publisher._pending, 10)
        late.start()
        assert web.wait_for(lambda: (late.table("table-3") or {}).get("online"), 10)
        assert late.table("table-3")["camera"] == "lost"
    finally:
        publisher.close(timeout=0.5)
        table.close()
        late.stop()


def test_run_publishes_its_game_and_the_camera_lost_and_says_goodbye(mosquitto, tmp_path, web):
    hub = Hub(Broker("127.0.0.1", mosquitto.port, "club"))
    hub.start()
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"players": 2}))
    env = {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": str(tmp_path / "none.toml"),
           "ALCHEMY_TABLE_USER_CONFIG": str(tmp_path / "none.toml"), "NOTIFY_SOCKET": ""}
    sets = ["buttons.backend=none", "camera.source=opencv", "camera.device=/nonexistent/camera",
            f"table.state_dir={tmp_path / 'state'}", "tournament.broker=127.0.0.1", f"tournament.port={mosquitto.port}",
            "tournament.name=club", "tournament.table=table-9"]
    child = subprocess.Popen([sys.executable, "-m", "assistant", "run", "--game", "chaudron", "--setup", str(setup),
                              "--simulate", *[a for s in sets for a in ("--set", s)]],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def seen_all() -> bool:  # (the camera's loss may reach the hub before the game's first state: two topics)
            t = hub.table("table-9") or {}
            return t.get("camera") == "lost" and bool(t.get("state")) and bool(t.get("events"))

        if not web.wait_for(seen_all, 60):
            child.kill()
            _, err = child.communicate()
            raise AssertionError(f"the hub saw {hub.table('table-9')}; the table said:\n{err[-4000:]}")
        seen = hub.table("table-9")
        assert seen["online"] and seen["state"]["game"] == "chaudron"
        assert [(e["kind"], e["data"]["setup"]) for e in seen["events"]] == [("game", {"players": 2})]
        assert hub.tables["table-9"].camera_alerts[0]["message"].startswith("opencv /nonexistent/camera: cannot open")
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=30)
        assert child.returncode == 0 and "Traceback" not in err
        assert web.wait_for(lambda: not hub.table("table-9")["online"], 5)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
        hub.stop()


def test_a_new_game_on_the_table_still_publishes_the_end_of_the_one_before(mosquitto, tmp_path, web):
    from assistant.journal import start

    broker = Broker("127.0.0.1", mosquitto.port, "club")
    hub = Hub(broker)
    hub.start()
    first = SimulatedTable("table-1", load_session("alchemists"), tmp_path / "t1")
    publisher = Publisher(broker, "table-1", first.state_dir)
    second = None
    try:
        first.start()
        publisher.update(first.pipeline)
        first.play(len(first.frames))           # the whole game, the reveal at its end...
        first.close()
        started = start(first.state_dir / "game.jsonl")      # ...then the game wheel starts another one
        started.journal.close()
        old = read(started.moved)
        second = SimulatedTable("table-1", load_session("chaudron"), tmp_path / "t1")
        second.start()
        second.play(20)
        publisher.update(second.pipeline)       # the publisher looks only now
        new = read(second.state_dir / "game.jsonl")
        want = [[r.seq for r in records if r.kind in ("game", "event")] for records in (old, new)]

        def games():
            view = hub.table("table-1")
            return view and [[e["seq"] for e in hub.table("table-1", g)["events"]] for g in view["games"]]

        assert web.wait_for(lambda: games() == want, 10), games()
        assert hub.table("table-1")["game_id"].startswith("chaudron-")
        assert web.wait_for(lambda: hub.table("table-1", hub.table("table-1")["games"][0])["result"] is not None, 5)
    finally:
        publisher.close(timeout=0.5)
        if second is not None:
            second.close()
        hub.stop()
