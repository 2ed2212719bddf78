"""Twenty tables play recorded games into a real Mosquitto while the broker is killed twice and one table's
network is cut; the referee's page ends with every committed event of every table, once, in order."""

from __future__ import annotations

import os
import threading
import time

from assistant.journal import read
from assistant.sessions import load_session
from assistant.tournament.connection import Broker
from assistant.tournament.hub import Hub
from assistant.tournament.page import Served
from assistant.tournament.publisher import Publisher, close_all
from assistant.tournament.simulate import SimulatedTable

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")
GAME_S = 9.0                     # each table spreads its recorded game over this long
KILLS = ((2.0, 1.0), (5.0, 1.0))  # (seconds into the games, seconds down): the broker killed twice mid-game
CUT_S = float(os.environ.get("ALCHEMY_TABLE_CUT_S", "4"))
"""How long one table is cut off. The issue says a minute; the test uses 4 s to stay fast (the table's
client has given up its connection and retries either way); ALCHEMY_TABLE_CUT_S=60 runs the minute."""
CUT_AT = 1.5
CUT_TABLE = "table-5"            # an Alchimiste table: the longest game, still playing while cut off


def journal_events(table: SimulatedTable) -> list[tuple[int, str, str]]:
    """What the table committed: its journal's game and event records (the one source of truth)."""
    out = []
    for r in read(table.state_dir / "game.jsonl"):
        if r.kind == "game":
            out.append((r.seq, "game", f"a new game of {r.data['game']}"))
        elif r.kind == "event":
            out.append((r.seq, r.data["kind"], r.data["message"]))
    return out


def test_twenty_tables_lose_nothing_through_broker_kills_and_a_cut(mosquitto, tmp_path, web):
    get, status, wait_for = web.get, web.status, web.wait_for
    broker = Broker("127.0.0.1", mosquitto.port, "club-night")
    said: list[str] = []
    hub = Hub(broker, say=said.append)
    hub.start()
    page = Served(hub)
    cable = web.Cable(mosquitto.port)
    tables, publishers = [], []
    for i in range(20):
        name = f"table-{i + 1}"
        table = SimulatedTable(name, load_session(GAMES[i % 4]), tmp_path / name)
        via = Broker("127.0.0.1", cable.port, "club-night") if name == CUT_TABLE else broker
        tables.append(table)
        publishers.append(Publisher(via, name, table.state_dir))
    try:
        t0 = time.monotonic()
        done = threading.Event()
        timeline: list[str] = []

        def trouble():
            events = sorted([(at, "kill", down) for at, down in KILLS] + [(CUT_AT, "cut", CUT_S)])
            for at, what, length in events:
                time.sleep(max(0.0, t0 + at - time.monotonic()))
                playing = sum(not t.done for t in tables)
                timeline.append(f"{what} at {at} s, {playing} tables playing")
                if what == "kill":
                    mosquitto.kill()
                    time.sleep(length)
                    mosquitto.start()
                else:
                    cable.unplug()
                    threading.Timer(length, cable.plug).start()
            done.set()

        threading.Thread(target=trouble, daemon=True).start()
        for table, publisher in zip(tables, publishers, strict=True):
            table.start()
            publisher.update(table.pipeline)
        while not all(t.done for t in tables):  # each table at its own pace: its whole game in GAME_S
            now = time.monotonic() - t0
            for table, publisher in zip(tables, publishers, strict=True):
                due = int(len(table.frames) * min(1.0, now / GAME_S))
                if table.play(due - table.next):
                    publisher.update(table.pipeline)
            time.sleep(0.02)
        assert done.wait(CUT_S + 10)
        assert all(line.endswith(" tables playing") and not line.endswith(" 0 tables playing") for line in timeline)

        expected = {t.name: journal_events(t) for t in tables}
        assert all(len(events) > 5 for events in expected.values())

        def complete() -> bool:
            return all([(e["seq"], e["kind"], e["message"]) for e in get(f"{page.url}/api/tables/{name}")["events"]]
                       == events for name, events in expected.items())

        assert wait_for(complete, timeout=40 + CUT_S, every=0.5), [
            (name, len(get(f"{page.url}/api/tables/{name}")["events"]), len(events))
            for name, events in expected.items()]

        def glance():
            return {t["table"]: t for t in get(f"{page.url}/api/tables")["tables"]}

        assert wait_for(lambda: all(t["online"] and t["over"] == (t["game"] != "alchymia") for t in glance().values()),
                        timeout=10), [(t["table"], t["online"], t["over"], t["events"]) for t in glance().values()
                                      if not t["online"] or t["over"] != (t["game"] != "alchymia")]
        glance = glance()
        assert sorted(glance) == sorted(expected)
        assert all(t["online"] and not t["missing"] for t in glance.values())
        assert glance["table-1"]["players"][0] == {"name": "Abigail", "score": 49, "fame": 33, "school": "grey"}
        assert glance["table-1"]["alerts"][0]["alert"] == "illegal"   # Abigail's refused creation
        assert glance["table-2"]["cramés"] == 4 and glance["table-2"]["winners"] == ["witches"]

        standings = [(s["game"], s["place"], s["player"], s["table"], s["score"], s["won"])
                     for s in get(f"{page.url}/api/standings")["standings"]]
        alchimiste = [("alchimiste", 1, "Abigail", f"table-{n}", 49, True) for n in (1, 5, 9, 13, 17)]
        alchimiste += [("alchimiste", 6, "Merlin", f"table-{n}", 40, False) for n in (1, 5, 9, 13, 17)]
        chaudron = [("chaudron", 1, "witches", f"table-{n}", 7, True) for n in (2, 6, 10, 14, 18)]
        alchymia = [("alchymia", 1, player, f"table-{n}", 1, False) for n in (3, 7, 11, 15, 19)
                    for player in ("Basile", "Cyrielle")]
        alchymia = sorted(alchymia, key=lambda r: (int(r[3][6:]), r[2]))
        alchymia += [("alchymia", 11, "Ada", f"table-{n}", 0, False) for n in (3, 7, 11, 15, 19)]
        assert standings == alchimiste + alchymia + chaudron

        csv = get(f"{page.url}/results.csv").splitlines()
        assert csv[0] == "tournament,table,game,game_id,player,score,won,result"
        assert sum(line.startswith("club-night,table-1,alchimiste,") for line in csv) == 2
        assert not any(",alchymia," in line for line in csv)   # not over: no result yet
        assert status(f"{page.url}/api/tables/table-99") == 404
        assert hub.rejected == 0 and not [s for s in said if "ignored" in s]
    finally:
        close_all(publishers, timeout=0.5)
        for table in tables:
            table.close()
        cable.close()
        page.close()
        hub.stop()
