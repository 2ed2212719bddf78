"""The hub's page and its ordering of events, fed straight from messages (no broker needed)."""

from __future__ import annotations

import re

from assistant.tournament import messages
from assistant.tournament.hub import Hub
from assistant.tournament.page import Served

TOPIC = "alchemy-table/club/table-1/"


def event(seq: int, prev: int, kind: str = "card", message: str = "", **extra) -> bytes:
    return messages.encode("event", "table-1", {"game_id": "g1", "seq": seq, "prev": prev, "kind": kind,
                                                "message": message or f"event {seq}", **extra})


def test_events_are_kept_once_in_journal_order_whatever_order_they_arrive_in():
    hub = Hub(None)
    for seq, prev in ((1, 0), (5, 3), (3, 1), (1, 0), (3, 1), (8, 5)):
        hub.receive(TOPIC + "event", event(seq, prev))
    log = hub.table("table-1", "g1")
    assert [e["seq"] for e in log["events"]] == [1, 3, 5, 8]
    assert hub.duplicates == 2 and not log["missing"]
    hub.receive(TOPIC + "event", event(12, 10))      # 10 never came: held back, the table asked again
    assert [e["seq"] for e in hub.table("table-1", "g1")["events"]][-1] == 8
    assert hub.table("table-1", "g1")["missing"]


def test_the_page_ships_everything_it_needs_and_answers_bad_requests_with_4xx(web):
    hub = Hub(None)
    hub.receive(TOPIC + "status", messages.encode("status", "table-1", {"online": True, "game_id": "g1",
                                                                         "game": "chaudron"}))
    hub.receive(TOPIC + "event", event(1, 0, "card", "Bone Meal: 16 Cramés", legal=True, data={"cramés": 16}))
    page = Served(hub)
    try:
        html = web.get(page.url + "/")
        linked = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert sorted(linked) == ["hub.css", "hub.js", "results.csv"]   # nothing from elsewhere
        assert "fetch(" in web.get(page.url + "/hub.js") and "body" in web.get(page.url + "/hub.css")
        feed = web.get(page.url + "/api/feed?after=0")   # an event is there: no waiting
        assert feed["next"] == 1 and feed["events"][0]["message"] == "Bone Meal: 16 Cramés"
        glance = web.get(page.url + "/api/tables")["tables"][0]
        assert glance["online"] and glance["alerts"] == [{"alert": "cramés", "message": "16 Cramés in the cauldron",
                                                          "seq": 1}]
        assert web.status(page.url + "/api/feed?after=soon") == 400
        assert web.status(page.url + "/api/tables/table-2") == 404
    finally:
        page.close()
