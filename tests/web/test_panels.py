"""The game page's state panel of the games the browser tests do not play (Chaudron, Alchymia): the shipped
sessions' states fed straight to the table mode, as ``dry_run`` does, with the hub told each answer as the
live loop tells it; the panel is then what the page draws (tests/web/test_browser.py draws Alchimiste's)."""

from __future__ import annotations

import re

from assistant.web import Hub


def played(session_table, game: str) -> tuple[Hub, list[str], list[dict]]:
    """The hub after the whole session; every event message; the panel after each step of the session."""
    table = session_table(game, serve=False)
    panels = []
    for i in range(len(table.states)):
        table.feed(i)
        panels.append(table.hub.status()["panel"])
    return table.hub, [e["message"] for e in table.hub.events], panels


def facts(panel: dict) -> dict[str, str]:
    return dict(panel["facts"])


def rows(panel: dict, caption: str) -> list[list[str]]:
    return next((t["rows"] for t in panel["tables"] if t["caption"] == caption), [])


def test_chaudron_panel_follows_the_game(session_table):
    hub, messages, panels = played(session_table, "chaudron")
    first = facts(panels[0])
    assert first["Cramés"] == "0 of 20" and first["Potions made"] == "0 of 7"
    end = hub.status()["panel"]
    made = [re.match(r"concocted ([\w ]+?)(:| \(|$)", m).group(1) for m in messages if m.startswith("concocted")]
    assert [r[0] for r in rows(end, "Potions made")] == made and len(made) == 7
    assert facts(end)["Potions made"] == "7 of 7" and facts(end)["Now"] == "won"
    assert facts(end)["Cramés"] == "4 of 20"  # two from Distil, two from Viper Venom's forced concoction
    assert "4 burnt" in facts(end)["In the cauldron"]
    # each potion shown while it waits, with its timer cubes, and only once it is revealed
    waiting = [p for p in panels if rows(p, "Potions revealed")]
    assert waiting and all(re.fullmatch(r"\d of 3", r[1]) for p in waiting for r in rows(p, "Potions revealed"))
    revealed = [m.removeprefix("revealed ") for m in messages if m.startswith("revealed ") and ";" not in m]
    assert {r[0] for p in waiting for r in rows(p, "Potions revealed")} <= set(revealed)


def test_alchymia_panel_counts_each_players_crystals(session_table):
    hub, messages, panels = played(session_table, "alchymia")
    first = facts(panels[0])
    assert first["To play"] == "the first to move" and first["Turns played"] == "0"
    end = hub.status()["panel"]
    assert facts(end)["To play"] in ("Ada", "Basile", "Cyrielle") and int(facts(end)["Turns played"]) > 0
    won = dict.fromkeys(("Ada", "Basile", "Cyrielle"), 0)
    for m in messages:
        if " completes " in m:
            won[m.split()[0]] += 1
    assert {r[0]: int(r[1]) for r in rows(end, "Crystals won")} == won and sum(won.values()) > 0
    assert "Basile" in [r[0] for r in rows(end, "Crystals won") if "time" in r[2]]
    assert [r[0] for r in rows(end, "Crystal cards")] == ["earth", "air", "water", "fire", "time"]
