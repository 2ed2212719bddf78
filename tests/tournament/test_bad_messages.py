"""Bad messages on a tournament's topics are one line in the hub's log each, and the hub keeps going."""

from __future__ import annotations

from assistant.sessions import load_session
from assistant.tournament.connection import Broker, make_client
from assistant.tournament.hub import Hub
from assistant.tournament.publisher import Publisher
from assistant.tournament.simulate import SimulatedTable

T1 = "alchemy-table/club/table-1"
T2 = "alchemy-table/club/table-2"


def connected(broker: Broker, client_id: str):
    client = make_client(broker, client_id)
    codes = []
    client.on_connect = lambda c, u, f, reason_code, p: codes.append(reason_code)
    client.connect(broker.host, broker.port)
    client.loop_start()
    return client, codes


def test_forged_malformed_and_foreign_messages_are_logged_once_and_ignored(secured, tmp_path, web):
    said: list[str] = []
    hub = Hub(Broker("127.0.0.1", secured.port, "club", username="hub", password="pw-hub"), say=said.append)
    hub.start()
    table = SimulatedTable("table-1", load_session("chaudron"), tmp_path / "t1")
    publisher = Publisher(Broker("127.0.0.1", secured.port, "club", username="table-1", password="pw-1"),
                          "table-1", table.state_dir)
    mallory, _ = connected(Broker("127.0.0.1", secured.port, "club", username="table-2", password="pw-2"), "m")
    stranger, refused = connected(Broker("127.0.0.1", secured.port, "club"), "anonymous")
    try:
        table.start()
        table.play(len(table.frames) // 2)
        publisher.update(table.pipeline)
        assert web.wait_for(lambda: "table-1" in hub.tables and len(hub.tables["table-1"].current.events) > 3, 10)
        kept_before = list(hub.tables["table-1"].current.events)
        game_id = kept_before[0]["game_id"]
        forged = (b'{"v":1,"type":"event","table":"table-1","game_id":"%s","seq":999,"prev":%d,"kind":"won",'
                  b'"message":"table-1 wins everything"}' % (game_id.encode(), kept_before[-1]["seq"]))
        bad = [(f"{T1}/event", forged),                        # table-2 writing under table-1's name: the ACL drops it
               (f"{T2}/event", forged),                        # on its own topic, claiming table-1
               (f"{T2}/state", b'{"v":1,"type":"state",'),     # malformed JSON
               (f"{T2}/status", b'{"v":2,"type":"status","table":"table-2","online":true}'),  # another version
               (f"{T2}/event", b'{"v":1,"type":"event","table":"table-2","game_id":"g","seq":"1","prev":0,'
                               b'"kind":"x","message":"m"}')]   # a seq that is not a number
        for topic, payload in bad:
            mallory.publish(topic, payload, qos=1).wait_for_publish(5)
        stranger.publish(f"{T1}/event", forged, qos=1)  # not even connected: no password
        table.play(len(table.frames))
        publisher.update(table.pipeline)

        expected = sum(r.kind in ("game", "event") for r in _records(table))
        assert web.wait_for(lambda: len(hub.tables["table-1"].current.events) == expected, 10)
        kept = hub.tables["table-1"].current.events
        assert [e["seq"] for e in kept] == sorted({e["seq"] for e in kept}) and 999 not in [e["seq"] for e in kept]
        assert not any(e["message"] == "table-1 wins everything" for e in kept)
        assert web.wait_for(lambda: hub.rejected == 4, 5)
        lines = [s for s in said if "ignored" in s]
        assert len(lines) == 4 and all("\n" not in s for s in lines)
        assert "claims to be table 'table-1'" in lines[0]
        assert "malformed JSON" in lines[1] and f"{T2}/state" in lines[1]
        assert "version 2" in lines[2]
        assert "seq: expected an integer" in lines[3]
        assert "table-2" not in hub.tables      # nothing of mallory's reached the page
        assert refused and refused[0].is_failure  # no password, no connection
    finally:
        for client in (mallory, stranger):
            client.disconnect()
            client.loop_stop()
        publisher.close(timeout=0.5)
        table.close()
        hub.stop()


def _records(table):
    from assistant.journal import read

    return read(table.state_dir / "game.jsonl")


def test_tables_and_hub_over_tls_with_passwords_and_nothing_in_clear(over_tls, tmp_path, web):
    tls = {"tls": True, "ca_file": over_tls.ca_file}
    hub = Hub(Broker("127.0.0.1", over_tls.port, "club", username="hub", password="pw-hub", **tls))
    hub.start()
    table = SimulatedTable("table-1", load_session("alchemists"), tmp_path / "t1")
    publisher = Publisher(Broker("127.0.0.1", over_tls.port, "club", username="table-1", password="pw-1", **tls),
                          "table-1", table.state_dir)
    plain, codes = connected(Broker("127.0.0.1", over_tls.port, "club", username="table-1", password="pw-1"), "p")
    try:
        table.start()
        table.play(len(table.frames))
        publisher.update(table.pipeline)
        want = [r.seq for r in _records(table) if r.kind in ("game", "event")]
        assert web.wait_for(lambda: "table-1" in hub.tables and
                            [e["seq"] for e in hub.tables["table-1"].current.events] == want, 10)
        assert not codes or codes[0].is_failure   # without TLS the broker does not even answer
    finally:
        plain.loop_stop()
        publisher.close(timeout=0.5)
        table.close()
        hub.stop()
