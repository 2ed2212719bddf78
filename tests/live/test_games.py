"""Each game's short session, rendered (hands included) and replayed end to end through the real pipeline and
the real table mode: the events and verdicts of every move, the LEDs and the screens the players see."""

from __future__ import annotations

from assistant.journal import read
from assistant.sessions.play import play_session
from hardware.leds.patterns import BLUE, GREEN, RED, WHITE


def play(short_frames, game, tmp_path):
    session, rendered = short_frames(game)
    played = play_session(session, rendered.folder, tmp_path / game, pictures=False)
    assert played.wrong_commits == []           # never a state the table did not show (hands included)
    assert played.mismatches == []              # every move gives the events the shipped session expects
    assert played.latencies and max(played.latencies) <= 3
    return played


def answers(played, step):
    """The table's answers (pipeline steps) to script step ``step``."""
    return played.by_step[step + 1]


def test_chaudron_cards_potions_and_the_crame_bar(short_frames, tmp_path):
    played = play(short_frames, "chaudron", tmp_path)
    opening = [e for s in answers(played, -1) for e in s.events]
    assert [e.message for e in opening if e.kind == "reveal"] == ["revealed Dawn Tonic"]   # from the potion mat
    first = answers(played, 0)[-1]              # the card, and Green Sip read from the potion mat
    card = first.events[0]
    assert (card.kind, card.legal) == ("card", True) and "Mixed Bundle" in card.message
    assert [e.kind for e in first.events] == ["card", "potion", "wait"]
    assert "revealed Green Sip" in first.events[-1].message
    assert first.state.label("chaudron-potions/potion-2") == "green-sip"
    assert first.patterns["crame"].value == 0 and first.patterns["crame"].maximum == 20
    assert first.screen.title == "Do it on the table"
    taken = answers(played, 1)[-1]              # Green Sip taken out in other cells than the engine's; Twin Essence
    assert [(e.kind, e.message) for e in taken.events] == [
        ("reveal", "revealed Green Sip"), ("potion", "concocted Green Sip"), ("reveal", "revealed Twin Essence")]
    assert answers(played, 2) == []             # the hand passing over changed nothing: no commit, no answer
    both = answers(played, 3)[-1]               # two potion cards laid at once: taken in the mat's order
    assert [e.message for e in both.events if e.kind == "reveal"] == ["revealed Tempest", "revealed Viper Venom"]
    assert both.patterns["cauldron-1"].colour == GREEN
    journal = read(tmp_path / "chaudron" / "journal.jsonl")
    assert [r.kind for r in journal].count("state") == 4
    assert journal[0].data["boards"][-1] == {"name": "chaudron-potions", "layout": "chaudron-potions",
                                             "markers": [40, 41, 42, 43], "mat": True}


def test_alchimiste_creations_and_an_illegal_potion(short_frames, tmp_path):
    played = play(short_frames, "alchimiste", tmp_path)
    create = answers(played, 0)[-1]
    assert (create.events[0].kind, create.events[0].legal) == ("create", True)
    assert "cauldron 4 with fame tile 7: +7" in create.events[0].message
    assert create.patterns["cauldron-4"].colour == GREEN and create.patterns["player-2"].colour == WHITE
    illegal = answers(played, 2)[-1]
    event = illegal.events[0]
    assert (event.kind, event.legal) == ("illegal", False)
    assert event.message.endswith("cauldron 7 produces blue and green, so its potion cannot use blue")
    assert type(illegal.patterns["cauldron-7"]).__name__ == "Flash" and illegal.patterns["cauldron-7"].colour == RED
    assert illegal.screen.title == "Illegal potion" and illegal.screen.tone == "error"
    back = answers(played, 3)[-1]                # taken back: the refusal goes, the scores show
    assert "cauldron-7" not in back.patterns and back.patterns["status"].colour == GREEN
    assert back.screen.rows == (("Abigail", 7), ("Merlin", 3))


def test_alchymia_boards_read_together_turns_checked_and_a_crystal(short_frames, tmp_path):
    played = play(short_frames, "alchymia", tmp_path)
    opening = [e for s in answers(played, -1) for e in s.events]   # the crystal mat read: the stacks' tops
    assert [e.data["card"] for e in opening if e.kind == "top"] == ["air-4", "earth-5", "time-5"]
    move = answers(played, 1)[-1]
    assert [(e.kind, e.legal) for e in move.events] == [("turn", True), ("move", True)]
    assert move.screen.title == "Basile: legal" and move.patterns["player-2"].colour == GREEN
    crystal = answers(played, 4)[-1]
    assert crystal.events[-1].kind == "crystal" and "time-5" in crystal.events[-1].message
    assert crystal.patterns["player-2"].colour == RED                     # time: red, until the turn comes back
    assert crystal.screen.title == "Basile: time crystal"
    state = crystal.state.labels()
    assert state["basile/r1c1"] == "red" and state["ada/r0c2"] == "blue" and state["cyrielle/r0c0"] == "yellow"
    assert state["alchymia-crystals/crystal-time"] == "time-5"             # the target read from the mat
    after = answers(played, 5)[-1]                                        # the next time crystal shown
    assert [(e.kind, e.data["card"]) for e in after.events] == [("top", "time-2")]


def test_alchemists_cards_give_the_potion_and_the_buttons_sell(short_frames, tmp_path):
    played = play(short_frames, "alchemists", tmp_path)
    test = answers(played, 0)[-1]
    assert test.events[0].kind == "potion" and test.events[0].data["potion"] == "blue-"
    assert type(test.patterns["status"]).__name__ == "Flash" and test.patterns["status"].colour == BLUE
    assert test.screen.title == "blue-: insanity"
    menus = [a.screen for a in answers(played, 1) if a.kind == "command"]
    assert [m.title for m in menus][-4:] == ["Adventurer wants", "Quality promised", "Discount", "Sell a potion"]
    sale = answers(played, 2)[-1]
    assert sale.events[0].kind == "sale" and sale.screen.title == "Sale: bad"
    assert sale.patterns["cauldron-1"].colour == RED
    assert "YYXX" not in (tmp_path / "alchemists" / "journal.jsonl").read_text()   # the game code stays secret
