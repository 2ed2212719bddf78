"""The Alchemists table mode driven by hand-built states of the scan area and button presses.

The game is TBGJ (docs/alchemists.md): fern R+g+b-, claw R-G-B-, mushroom R+G+B+, flower R-g-b+,
root r-G+b+, scorpion r+g-B+, toad r+G-b-, feather r-g+B-.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from assistant import alchemists_state
from assistant.engines.alchemists import ALCHEMICALS, assignment_from_code
from assistant.stabilise import State
from assistant.table import SetupError, make_mode
from calibration.layout import load_layout
from hardware.display.screens import Menu, Scores, render
from hardware.leds.patterns import BLUE, GREEN, RED, WHITE, Flash, Pulse, Solid

GOLDEN = Path(__file__).parent / "golden"
LAYOUT = load_layout("alchemists")
CODE = "TBGJ"
THEORIES = Path(__file__).parents[2] / "docs" / "examples" / "alchemists-theories.json"
POTION_GROUPS = ["status", *(f"cauldron-{n}" for n in range(1, 11))]


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    """Never read the real state file: each test has its own, holding the example game (imported: its answers
    are the documented ones, not this table's keyed ones)."""
    monkeypatch.setenv(alchemists_state.ENV, str(tmp_path / "state"))
    alchemists_state.record_game(CODE, "apprentice", assignment_from_code(CODE).as_dict(), name="example")
    return tmp_path / "state"


class ScanArea:
    """The two card places and the buttons."""

    def __init__(self, setup: dict | None = None):
        self.mode = make_mode("alchemists", LAYOUT, {"code": CODE} if setup is None else setup, "test-setup")
        self.opening = self.mode.start()
        self.previous: State | None = None
        self.responses = [self.opening]

    def show(self, left: str = "empty", right: str = "empty"):
        state = State.of({"card-left": left, "card-right": right})
        response = self.mode.on_commit(state, self.previous)
        self.previous = state
        self.responses.append(response)
        return response

    def clear(self):
        return self.show()

    def press(self, *commands: str):
        for command in commands:
            self.responses.append(self.mode.on_command(command))
        return self.responses[-1]

    def choose(self, menu_item: str):
        """Press next until ``menu_item`` is selected in the open menu, then confirm."""
        screen = next(r.screen for r in reversed(self.responses) if r.screen is not None)  # the one showing
        assert isinstance(screen, Menu), screen
        steps = (screen.items.index(menu_item) - screen.selected) % len(screen.items)
        if steps:
            self.press(*["next"] * steps)
        return self.press("confirm")

    def action(self, name: str):
        self.press("next")  # opens the action menu
        return self.choose(name)


def test_start_shows_the_default_action():
    area = ScanArea()
    assert [e.kind for e in area.opening.events] == ["start"]
    assert area.opening.screen.title == "Test on a student"
    assert area.opening.leds["status"] == Solid(BLUE)
    assert area.opening.leds["cauldron-1"] is None


def test_two_cards_give_the_potion_solid_for_plus():
    area = ScanArea()
    assert area.show("fern").screen.text == "Show the second card"
    reply = area.show("fern", "toad")
    assert reply.events[0].to_json() == {"kind": "potion", "message": "fern + toad: red+ (healing)",
                                         "data": {"ingredients": ["fern", "toad"], "potion": "red+"}}
    assert {g: reply.leds[g] for g in POTION_GROUPS} == dict.fromkeys(POTION_GROUPS, Solid(RED))
    assert reply.screen.title == "red+: healing" and reply.screen.text == "fern + toad"


def test_a_minus_potion_flashes_and_a_neutral_one_pulses_white():
    area = ScanArea()
    minus = area.show("fern", "claw")
    assert minus.events[0].data["potion"] == "blue-"
    assert minus.leds["cauldron-5"] == Flash(BLUE, 0.5)
    assert "pay 1 gold" in minus.screen.text
    area.clear()
    neutral = area.show("scorpion", "feather")
    assert neutral.events[0].data["potion"] == "neutral"
    assert neutral.leds["status"] == Pulse(WHITE)


def test_the_potion_screen_matches_the_golden_picture():
    reply = ScanArea().show("fern", "toad")
    image = render(reply.screen, (128, 64), "1")
    golden = Image.open(GOLDEN / "alchemists-potion.png").convert("L")
    assert ImageChops.difference(image.convert("L"), golden).getbbox() is None


def test_cards_taken_away_switch_the_potion_off():
    area = ScanArea()
    area.show("fern", "toad")
    reply = area.clear()
    assert reply.events == ()
    assert reply.leds["cauldron-1"] is None and reply.leds["status"] == Solid(BLUE)
    assert area.show("fern", "toad").events  # shown again: answered again


def test_the_same_ingredient_twice_is_not_a_potion():
    reply = ScanArea().show("toad", "toad")
    assert reply.events[0].legal is False
    assert reply.events[0].message == "cannot mix toad with itself: a potion takes two different ingredients"
    assert reply.screen.tone == "error"


def test_drinking_tells_the_effect():
    area = ScanArea()
    area.action("Drink it")
    reply = area.show("fern", "claw")
    assert reply.events[0].kind == "drink"
    assert reply.events[0].data["effect"] == "insanity: lose 1 reputation point"


def test_a_sale_tells_the_quality_never_the_potion():
    area = ScanArea()
    area.action("Sell a potion")
    area.choose("green+ speed")
    area.choose("good (3 gold)")
    armed = area.choose("-1 gold")
    assert armed.screen.title == "Sell a potion"
    assert armed.screen.text == "wants green+, good promised, discount 1"
    reply = area.show("mushroom", "flower")  # R+G+B+ and R-g-b+ give blue+: right sign, other colour
    event = reply.events[0]
    assert event.kind == "sale"
    assert event.data["reached"] == "good" and event.data["kept"] and event.data["coins"] == 2
    assert "potion" not in event.data and "blue" not in event.message
    assert reply.leds["status"] == Solid(GREEN)  # kept: green, whatever the potion's colour
    assert reply.screen.title == "Sale: good"
    area.clear()
    assert area.mode.action == "test"  # one sale per showing


def test_a_bad_potion_sold_costs_reputation_and_flashes_red():
    area = ScanArea()
    area.action("Sell a potion")
    area.choose("red+ healing")
    area.choose("neutral (2 gold)")
    area.choose("no discount")
    reply = area.show("fern", "claw")  # blue-: the wrong sign
    assert reply.events[0].data | {} == {"ingredients": ["fern", "claw"], "wanted": "red+", "promise": "neutral",
                                          "discount": 0, "reached": "bad", "kept": False, "coins": 0,
                                          "reputation": -1}
    assert reply.leds["cauldron-3"] == Flash(RED, 0.5)


def test_cards_shown_while_choosing_are_answered_when_the_menu_is_done():
    area = ScanArea()
    area.action("Sell a potion")
    assert area.show("fern", "toad").events == ()
    area.choose("red+ healing")
    area.choose("perfect (4 gold)")
    reply = area.choose("no discount")
    assert reply.events[0].data["reached"] == "perfect"


def test_an_exhibit_tells_success_or_failure_only():
    area = ScanArea()
    area.action("Exhibit (final)")
    area.choose("red+ healing")
    win = area.show("fern", "toad")
    assert win.events[0].data == {"ingredients": ["fern", "toad"], "promised": "red+", "success": True}
    assert win.leds["status"] == Solid(GREEN)
    area.clear()
    area.action("Exhibit (final)")
    area.choose("blue+ wisdom")
    lose = area.show("fern", "toad")
    assert lose.events[0].data["success"] is False
    assert lose.screen.text == "failure: lose 1 reputation point"
    assert set(lose.events[0].data) == {"ingredients", "promised", "success"}  # never the potion made
    assert "red" not in lose.events[0].message and "red" not in lose.screen.title + lose.screen.text


def test_an_apprentice_debunk_shows_one_aspect_sign():
    area = ScanArea({"code": CODE, "theories": str(THEORIES)})
    area.action("Debunk a theory")
    area.choose("feather")
    reply = area.choose("red")  # feather is r-g+B-; the published theory says R+G+B+
    event = reply.events[0]
    assert event.data == {"ingredient": "feather", "colour": "red", "sign": "-", "debunked": True, "reputation": 2}
    assert reply.leds["status"] == Flash(RED, 0.5)
    assert reply.screen.title == "feather: red -"


def test_a_master_demonstration_judges_the_published_theories():
    area = ScanArea({"code": CODE, "mode": "master", "theories": str(THEORIES)})
    area.action("Debunk a theory")
    # feather + fern give blue-: the published theory of feather, R+G+B+, can never give a - potion.
    reply = area.show("feather", "fern")
    event = reply.events[0]
    assert event.kind == "demonstration" and event.data["potion"] == "blue-"
    assert event.data["debunked"] == ["feather"] and event.data["reputation"] == 2
    assert reply.leds["status"] == Flash(BLUE, 0.5)  # the demonstration's potion is shown to all


def test_the_reveal_asks_again_then_shows_the_answers_and_points():
    area = ScanArea({"code": CODE, "theories": str(THEORIES)})
    area.action("Reveal answers")
    back = area.choose("No, go back")
    assert back.events == () and not area.mode.over
    area.action("Reveal answers")
    reply = area.choose("Yes, reveal all")
    event = reply.events[0]
    assert event.kind == "reveal"
    assert event.data["assignment"] == assignment_from_code(CODE).as_dict()
    assert event.data["points"] == {"Ana": 1, "Bo": 3, "Cy": -4}
    assert isinstance(reply.screen, Menu) and reply.screen.items[0] == "fern R+g+b-"
    assert area.press("next").screen.selected == 1
    scores = area.press("confirm").screen
    assert isinstance(scores, Scores) and scores.rows == (("Bo", 3), ("Ana", 1), ("Cy", -4))
    assert area.mode.over


def test_nothing_secret_is_shown_or_logged_before_the_reveal():
    area = ScanArea({"code": CODE, "theories": str(THEORIES)})
    area.show("fern", "toad")
    area.clear()
    area.action("Sell a potion")
    area.choose("red+ healing")
    area.choose("bad (1 gold)")
    area.choose("no discount")
    area.show("root", "claw")
    area.clear()
    area.action("Debunk a theory")
    area.choose("toad")
    area.choose("blue")
    area.action("Exhibit (final)")
    area.choose("green- paralysis")
    area.show("scorpion", "toad")
    area.clear()
    area.action("Reveal answers")
    area.choose("No, go back")
    secrets = [str(a) for a in ALCHEMICALS] + [CODE, CODE.lower()]
    seen = json.dumps([[e.to_json() for e in r.events] for r in area.responses]) + repr(
        [r.screen for r in area.responses]) + json.dumps(area.mode.setup) + repr(
        {k: v for k, v in vars(area.mode).items() if k != "theories"})  # published theories are public
    assert not [s for s in secrets if s in seen]
    area.action("Reveal answers")
    area.choose("Yes, reveal all")
    assert "R+g+b-" in json.dumps(area.responses[-1].events[0].to_json())


def test_the_current_game_of_the_state_file_is_used_and_named_by_its_id_not_its_code(state_dir):
    alchemists_state.record_game(CODE, "master")  # the example game, now in master mode, the current one
    area = ScanArea({})
    assert area.mode.mode == "master"
    assert set(area.mode.setup) == {"game_id"} and CODE not in json.dumps(area.mode.setup)
    assert area.show("fern", "toad").events[0].data["potion"] == "red+"
    # The journal-safe set-up finds the same game again after a restart.
    again = ScanArea(area.mode.setup)
    assert again.show("fern", "toad").events == area.responses[-1].events


def test_two_games_recorded_in_the_same_second_are_told_apart(state_dir):
    """A time stamp once named the game: two codes recorded in one second, and a restart rebuilt the other."""
    other = "WLUK"
    alchemists_state.record_game(other, "apprentice", name="later")
    data = alchemists_state.load()
    for game in data["games"].values():
        game["created"] = "2025-01-02T20:00:00+00:00"
    alchemists_state.save(data)
    for name, code in (("example", CODE), ("later", other)):
        area = ScanArea({"game": name})
        truth = alchemists_state.find_game(code=code).assignment
        again = ScanArea(area.mode.setup)  # what a resume does with the journal's set-up
        assert again.mode._assignment == truth
        # A journal of the old format (named by its time) is refused, not guessed.
        with pytest.raises(SetupError, match=r"2 games recorded at .*refusing to guess"):
            ScanArea({"created": "2025-01-02T20:00:00+00:00"})


def test_a_journalled_game_missing_from_the_state_file_is_refused_not_replaced(state_dir):
    area = ScanArea({})
    alchemists_state.record_game("WLUK", "apprentice", name="newer")  # the newest game is another one
    data = alchemists_state.load()
    del data["games"][CODE]
    alchemists_state.save(data)
    with pytest.raises(SetupError, match=r"test-setup: game_id: .*no game of this table has the id"):
        ScanArea(area.mode.setup)
    (state_dir / "alchemists.key").unlink()  # a new key: the same codes, other games
    alchemists_state.record_game(CODE, "apprentice", assignment_from_code(CODE).as_dict(), name="example")
    with pytest.raises(SetupError, match="no game of this table has the id"):
        ScanArea(area.mode.setup)


def test_a_code_given_in_the_setup_is_not_kept():
    area = ScanArea({"code": "tbgj", "mode": "apprentice"})
    assert set(area.mode.setup) == {"mode", "game_id"} and area.mode.setup["mode"] == "apprentice"
    assert area.show("fern", "toad").events[0].data["potion"] == "red+"


def test_without_any_game_the_setup_says_how_to_start_one(state_dir):
    alchemists_state.save({"games": {}})
    with pytest.raises(SetupError, match=r"test-setup: game: .*no current game: start one with"):
        ScanArea({})


@pytest.mark.parametrize(("setup", "message"), [
    ({"code": "ABCD"}, "test-setup: code: game code: these four letters are not a game code (a typo?)"),
    ({"code": 12}, "test-setup: code: expected a string"),
    ({"code": CODE, "mode": "expert"}, "test-setup: mode: expected apprentice or master"),
    ({"created": "2020-01-01T00:00:00+00:00"}, "test-setup: created: no game recorded at 2020-01-01"),
    ({"code": CODE, "game": "example"}, "test-setup: game: give the game one way only"),
    ({"code": CODE, "theories": {"theories": [{"ingredient": "fern"}]}},
     "test-setup: theories: theories[0]: alchemical: missing"),
    ({"code": CODE, "colour": "red"}, "test-setup: colour: unknown key"),
])
def test_setup_errors_name_the_key_and_never_the_code(setup, message):
    with pytest.raises(SetupError) as error:
        ScanArea(setup)
    assert str(error.value).startswith(message)
    assert "ABCD" not in str(error.value) and CODE not in str(error.value)


def test_a_state_file_others_can_read_is_refused(state_dir):
    alchemists_state.state_path().chmod(0o644)
    with pytest.raises(SetupError, match=r"test-setup: game: .*readable by other users"):
        ScanArea({})


def test_same_states_and_presses_give_the_same_responses():
    def play():
        area = ScanArea()
        area.show("fern")
        area.show("fern", "claw")
        area.clear()
        area.action("Sell a potion")
        area.choose("blue- insanity")
        area.choose("perfect (4 gold)")
        area.choose("no discount")
        area.show("claw", "fern")
        return area.responses

    assert play() == play()


def test_a_layout_without_the_scan_area_is_a_setup_error():
    with pytest.raises(SetupError, match="test-setup: layout: alchymia has no zone card-left"):
        make_mode("alchemists", load_layout("alchymia"), {"code": CODE}, "test-setup")


def test_a_demonstration_game_is_the_published_derivation_everywhere_and_resumes_by_its_id(state_dir):
    (state_dir / "alchemists.key").unlink(missing_ok=True)
    area = ScanArea({"code": "YYXX", "demo": True})
    assert area.mode._assignment == assignment_from_code("YYXX")
    assert not (state_dir / "alchemists.key").exists()  # no table key is made for it
    assert "YYXX" not in json.dumps(area.mode.setup) and area.mode.setup["demo"] is True
    again = ScanArea(area.mode.setup)  # what a resume does with the journal's set-up
    assert again.mode._assignment == area.mode._assignment and again.mode.game_id == area.mode.game_id
