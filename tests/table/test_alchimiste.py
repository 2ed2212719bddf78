"""The Alchimiste table mode, driven like a real table: pieces put down one commit at a time."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from assistant.engines.alchimiste import COLOURS, Cubes, EndPlayer, score_endgame
from assistant.stabilise import State
from assistant.table import Response, SetupError, make_mode
from calibration.layout import load_layout
from hardware.display.screens import Menu, Message, Scores, render
from hardware.leds.patterns import AMBER, GREEN, RED, WHITE, Flash, Pulse, Solid

LAYOUT = load_layout("alchimiste")
SLOTS = [z.id for z in LAYOUT.zones if z.kind == "slot"]
GOLDEN = Path(__file__).parent / "golden"
PLAYERS = [{"name": "Abigail", "seal": "purple"}, {"name": "Merlin", "seal": "black"}]


class Table:
    """The physical table: what the camera commits. Seals stacked on a space show only the top one."""

    def __init__(self, per_colour: int = 10):
        self.labels = dict.fromkeys(SLOTS, "empty")
        for v in range(1, 11):
            self.labels[f"tile-{v}"] = "tile"
        self.track: dict[int, list[str]] = {0: ["black", "purple"]}   # bottom to top
        self.reserve = dict.fromkeys(COLOURS, per_colour)

    def state(self) -> State:
        labels = dict(self.labels)
        for space, seals in self.track.items():
            if seals:
                labels[f"track-{space}"] = f"seal-{seals[-1]}"
        return State.of(labels, {f"reserve-{c}": {c: n} for c, n in self.reserve.items()})

    def put_cubes(self, cauldron: int, *colours: str) -> None:
        for k in range(1, 6):
            self.labels[f"cauldron-{cauldron}.ingredient-{k}"] = colours[k - 1] if k <= len(colours) else "empty"

    def put_seal(self, cauldron: int, seal: str | None) -> None:
        self.labels[f"cauldron-{cauldron}.seal"] = f"seal-{seal}" if seal else "empty"

    def take_tile(self, value: int, onto: int | None = None) -> None:
        self.labels[f"tile-{value}"] = "empty"
        if onto is not None:
            self.labels[f"cauldron-{onto}.tile"] = "tile"

    def move_seal(self, seal: str, to: int) -> None:
        for seals in self.track.values():
            if seal in seals:
                seals.remove(seal)
        self.track.setdefault(to, []).append(seal)

    def take(self, colour: str, n: int = 1) -> None:
        self.reserve[colour] -= n


class Game:
    """A table mode with its table: change the table, then ``commit()`` as the stabiliser would."""

    def __init__(self, setup=None):
        self.mode = make_mode("alchimiste", LAYOUT, {"players": PLAYERS} if setup is None else setup)
        self.table = Table()
        self.previous: State | None = None
        self.responses = [self.mode.start()]

    def commit(self) -> Response:
        state = self.table.state()
        response = self.mode.on_commit(state, self.previous)
        self.previous = state
        self.responses.append(response)
        return response

    def press(self, *commands: str) -> Response:
        total = Response()
        for command in commands:
            response = self.mode.on_command(command)
            self.responses.append(response)
            total = total + response
        return total

    def create(self, cauldron: int, seal: str, tile: int, *cubes: str) -> Response:
        self.table.put_cubes(cauldron, *cubes)
        self.table.put_seal(cauldron, seal)
        self.table.take_tile(tile, onto=cauldron)
        return self.commit()


def assert_golden(picture: Image.Image, name: str) -> None:
    """Compare with a picture checked by eye; ALCHEMY_GOLDEN=update writes it anew (look at it before keeping)."""
    path = GOLDEN / name
    if os.environ.get("ALCHEMY_GOLDEN") == "update":
        picture.save(path)
    assert ImageChops.difference(picture.convert("RGB"), Image.open(path).convert("RGB")).getbbox() is None


def kinds(response: Response) -> list[str]:
    return [e.kind for e in response.events]


def abigail_opens(game: Game) -> None:
    """The rulebook's example: Abigail creates 2 blue, 2 grey, 1 orange in cauldron 10 with tile 9."""
    game.commit()
    game.create(10, "purple", 9, "blue", "blue", "grey", "grey", "orange")
    game.table.move_seal("purple", 9)
    game.table.take("yellow")
    game.table.take("green")
    game.commit()


def test_a_creation_is_judged_only_once_complete():
    game = Game()
    first = game.commit()
    assert kinds(first) == ["start"]
    assert first.leds["status"] == Solid(GREEN) and first.leds["player-1"] == Solid(WHITE)

    # Cubes first: not a potion yet.
    game.table.put_cubes(10, "blue", "blue", "grey", "grey", "orange")
    r = game.commit()
    assert r.events == ()
    assert r.leds["cauldron-10"] == Pulse(AMBER)
    assert r.screen == Message("Potion not finished", "cauldron 10 waits for a seal and a fame tile", "warn")

    # Then the seal: still waiting for the tile.
    game.table.put_seal(10, "purple")
    r = game.commit()
    assert r.events == () and "cauldron-10" not in r.leds
    assert r.screen.text == "cauldron 10 waits for a fame tile"

    # The tile taken from the supply (not yet on the cauldron) completes it.
    game.table.take_tile(9)
    r = game.commit()
    assert kinds(r) == ["create"]
    create = r.events[0]
    assert create.legal is True
    assert create.data == {"player": "Abigail", "cauldron": 10, "mix": {"grey": 2, "blue": 2, "orange": 1},
                           "tile": 9, "fame": 9, "received": {"yellow": 1, "green": 1}}
    assert r.leds["cauldron-10"] == Solid(GREEN)
    assert r.leds["player-1"] is None and r.leds["player-2"] == Solid(WHITE)
    assert r.screen.title == "Potion created" and r.screen.tone == "ok"
    assert "Then: Abigail's seal is on space 0: the score 9 puts it on space 9" in r.screen.text

    # The follow-ups: tile on the cauldron, seal to 9, produced cubes from the reserve.
    game.table.labels["cauldron-10.tile"] = "tile"
    game.table.move_seal("purple", 9)
    r = game.commit()
    assert r.events == () and r.screen == Message("Check the table", "take 1 yellow, 1 green from the reserve",
                                                  "warn")
    game.table.take("yellow")
    game.table.take("green")
    r = game.commit()
    assert r.events == ()
    assert r.screen == Scores("Round 1", (("Abigail", 9), ("Merlin", 0)), "Merlin to play")
    assert r.leds["status"] == Solid(GREEN)


def test_an_illegal_creation_is_red_with_the_reason_until_fixed():
    game = Game()
    game.commit()
    r = game.create(10, "purple", 9, "yellow", "blue")  # cauldron 10 produces yellow and green
    assert kinds(r) == ["illegal"] and r.events[0].legal is False
    assert r.leds["cauldron-10"] == Flash(RED) and r.leds["status"] == Flash(RED)
    reason = "cauldron 10 produces yellow and green, so its potion cannot use yellow"
    assert r.events[0].message == f"Abigail creates 1 blue, 1 yellow in cauldron 10 with fame tile 9: {reason}"
    assert r.screen == Message("Illegal potion", reason, "error")
    assert game.commit().events == ()  # the same table again: judged once
    game.table.put_cubes(10, "grey", "blue")
    r = game.commit()
    assert kinds(r) == ["create"] and r.leds["cauldron-10"] == Solid(GREEN)


def test_two_player_opening_needs_a_tile_of_five_or_more():
    game = Game()
    game.commit()
    r = game.create(3, "purple", 2, "blue")
    assert r.events[0].data["reason"] == ("with 2 players the first potion of the game needs a fame tile of 5 or "
                                          "more, not 2")


def test_a_creation_out_of_turn_is_refused():
    game = Game()
    game.commit()
    r = game.create(10, "black", 9, "blue")
    assert r.events[0].data["reason"] == "it is Abigail's turn, not Merlin's"


def test_a_copy_is_read_from_the_seal_and_the_tribute_chosen_with_the_buttons():
    game = Game()
    abigail_opens(game)
    game.table.move_seal("black", 9)  # Merlin's seal moves by the value of cauldron 10's tile
    r = game.commit()
    assert r.events == ()
    assert r.screen == Menu("Merlin to Abigail", ("grey", "blue", "orange"), 0)
    assert game.press("next").screen == Menu("Merlin to Abigail", ("grey", "blue", "orange"), 1)
    r = game.press("confirm")
    assert kinds(r) == ["copy"]
    assert r.events[0].data == {"player": "Merlin", "cauldron": 10, "tile": 9, "tribute": "blue",
                                "creator": "Abigail", "fame": 9, "received": {"yellow": 1, "green": 1}}
    assert r.leds["cauldron-10"] == Flash(WHITE, period=0.5, times=3, off=GREEN)
    assert r.screen.text.startswith("Merlin copies cauldron 10 paying 2 grey, 2 blue, 1 orange, tribute blue")
    game.table.take("yellow")
    game.table.take("green")
    r = game.commit()
    assert r.screen == Scores("Round 2", (("Abigail", 9), ("Merlin", 9)), "Abigail to play")


def test_a_seal_moved_to_the_wrong_space_is_shown():
    game = Game()
    abigail_opens(game)
    game.table.move_seal("black", 4)  # no potion is worth 4
    r = game.commit()
    assert kinds(r) == ["track"] and r.events[0].legal is False
    assert r.events[0].data == {"player": "Merlin", "space": 4, "expected": 0}
    assert r.screen.title == "Fame track" and r.leds["status"] == Solid(AMBER)
    game.table.move_seal("black", 0)
    assert game.commit().screen.title == "Round 1"


def test_a_cube_taken_from_the_reserve_is_a_take_and_draws_come_from_the_menu():
    game = Game()
    abigail_opens(game)
    game.table.take("grey")
    r = game.commit()
    assert [(e.kind, e.message) for e in r.events] == [("take", "Merlin takes grey from the reserve")]
    r = game.press("confirm")
    assert r.screen == Menu("Action not seen", ("Drew from the bag", "Passed", "Close"), 0)
    r = game.press("confirm")
    assert [(e.kind, e.message) for e in r.events] == [("draw", "Abigail draws 2 from the bag")]
    assert game.mode.engine.to_play.name == "Merlin"
    r = game.press("confirm", "next", "confirm")   # "Passed" while the reserve is full
    assert r.events[0].legal is False and "can still take ingredients" in r.events[0].message


def _exhaust(game: Game) -> list:
    """After Abigail's opening, the adepts take grey, blue and orange in turn until they run out."""
    events = []
    for colour in ("grey", "blue", "orange"):
        for _ in range(10):
            game.table.take(colour)
            events += game.commit().events
    return events


def test_exhausted_colours_announce_the_last_round_and_the_screens_are_counted_in_the_trays():
    game = Game({"players": [dict(PLAYERS[0], school="grey"), PLAYERS[1]]})
    abigail_opens(game)
    events = _exhaust(game)
    assert [e.kind for e in events].count("take") == 30
    last = [e for e in events if e.kind == "last-round"]
    assert len(last) == 1 and last[0].data == {"exhausted": ["grey", "blue", "orange"], "round": 16}
    assert game.responses[-1].screen.title == "Last round"
    game.table.take("yellow")        # Merlin's take ends the round: the game is over
    r = game.commit()
    assert kinds(r) == ["take", "game-over"]
    assert r.screen == Message("End of the game", "Abigail: empty your screen into the reserve trays, then press "
                                                  "confirm", "info")
    assert r.leds["status"] == Pulse((0, 0, 255))
    engine = game.mode.engine
    screens, pool = [], list(engine.pool.colours())
    for adept in engine.adepts:   # what each screen holds: what was seen going in, the rest unseen cubes
        unseen, pool = pool[:adept.unknown], pool[adept.unknown:]
        screens.append(adept.known + Cubes.listing(unseen))
    # A miscounted tray is refused, then counted again.
    game.table.reserve["green"] += screens[0].total - 1
    game.commit()
    r = game.press("confirm")
    assert r.events[0].legal is False and r.screen.title == "Count again"
    assert r.screen.text.startswith("Abigail's screen holds 24 cubes, the reserve trays gained 23")
    game.table.reserve["green"] -= screens[0].total - 1
    for c, n in screens[0].items():
        game.table.reserve[c] += n
    game.commit()
    r = game.press("confirm")
    assert kinds(r) == ["screen"] and r.screen == Menu("Merlin's school", ("blue", "orange", "yellow", "green"), 0)
    r = game.press("next", "confirm")     # Merlin's school: orange
    assert r.screen.text.startswith("Merlin: empty your screen")
    for c, n in screens[1].items():
        game.table.reserve[c] += n
    game.commit()
    r = game.press("confirm")
    assert kinds(r) == ["screen", "end"]
    end = r.events[-1].data
    assert [p["name"] for p in end["players"]] == ["Abigail", "Merlin"]
    expected = score_endgame([EndPlayer("Abigail", "grey", 9, screens[0]),
                              EndPlayer("Merlin", "orange", 0, screens[1])], engine.reserve)
    assert end == expected.to_dict()
    assert r.events[-1].message == ("Abigail wins: Abigail 9 + 12 + 6 (grey place 1) = 27; "
                                    "Merlin 0 + 14 + 0 (orange place 2) = 14")
    assert isinstance(r.screen, Scores) and r.screen.title == "Final scores"
    assert game.mode.over
    assert_golden(render(r.screen, (128, 64), "1"), "alchimiste-final.png")


def test_the_reveal_can_come_from_the_setup():
    setup = {"players": [dict(PLAYERS[0], school="grey"), dict(PLAYERS[1], school="orange")],
             "reveal": {"Abigail": {}, "Merlin": {}}}
    game = Game(setup)
    abigail_opens(game)
    _exhaust(game)
    game.table.take("yellow")
    r = game.commit()
    # Empty screens cannot be right: the engine knows what went behind them.
    assert kinds(r) == ["take", "game-over", "illegal"]
    assert "Abigail's screen should hold" in r.events[-1].message


def test_the_refused_screen_renders_with_its_reason():
    game = Game()
    game.commit()
    r = game.create(10, "purple", 9, "yellow", "blue")
    assert_golden(render(r.screen, (128, 64), "1"), "alchimiste-refused.png")
    assert_golden(render(r.screen, (240, 240), "RGB"), "alchimiste-refused-colour.png")


def test_same_states_give_the_same_responses():
    def play() -> list[Response]:
        game = Game()
        abigail_opens(game)
        game.table.move_seal("black", 9)
        game.commit()
        game.press("next", "confirm")
        game.table.take("grey")
        game.commit()
        return game.responses

    assert play() == play()


@pytest.mark.parametrize("setup, message", [
    ({"players": PLAYERS, "colour": 1}, "setup: colour: unknown key (expected players, reveal)"),
    ({"players": [PLAYERS[0]]}, "setup: players: expected a list of 2 to 5 players in turn order"),
    ({"players": [PLAYERS[0], {"name": "Merlin", "seal": "gold"}]},
     "setup: players[1].seal: expected one of red, white, black, purple, pink, got 'gold'"),
    ({"players": [PLAYERS[0], {"name": "Abigail", "seal": "red"}]}, "setup: players[1].name: 'Abigail' is used twice"),
    ({"players": [dict(PLAYERS[0], school="teal"), PLAYERS[1]]},
     "setup: players[0].school: expected one of grey, blue, orange, yellow, green, got 'teal'"),
    ({"players": PLAYERS, "reveal": {"Abigail": {}}}, "setup: reveal: give every player's school in players to score "
                                                      "a reveal"),
    ({"reveal": {}}, "setup: reveal: needs the players (with their schools) in the set-up"),
])
def test_setup_errors_name_the_key(setup, message):
    with pytest.raises(SetupError) as e:
        make_mode("alchimiste", LAYOUT, setup)
    assert str(e.value) == message


def test_players_cannot_be_inferred_from_stacked_seals():
    mode = make_mode("alchimiste", LAYOUT, {})
    with pytest.raises(SetupError, match="list the players in the set-up"):
        mode.on_commit(Table().state(), None)


def test_a_seal_moved_before_the_tile_is_taken_waits_for_the_creation():
    game = Game()
    game.commit()
    game.table.put_cubes(10, "blue", "grey")
    game.table.put_seal(10, "purple")
    game.table.move_seal("purple", 9)
    r = game.commit()
    assert r.events == () and r.screen.text == "cauldron 10 waits for a fame tile"
    game.table.take_tile(9, onto=10)
    game.table.take("yellow")
    game.table.take("green")
    r = game.commit()
    assert kinds(r) == ["create"]
    assert r.screen.text == ("Abigail creates 1 grey, 1 blue in cauldron 10 with fame tile 9: +9, receives "
                             "1 yellow, 1 green")


def test_a_copy_of_a_one_colour_potion_needs_no_tribute_menu():
    game = Game()
    game.commit()
    game.create(10, "purple", 6, "blue")
    game.table.move_seal("purple", 6)
    game.table.take("yellow")
    game.table.take("green")
    game.commit()
    game.table.move_seal("black", 6)
    r = game.commit()
    assert [(e.kind, e.data["tribute"]) for e in r.events] == [("copy", "blue")]
