"""The Alchimiste table mode: committed states and buttons in, engine verdicts, LEDs and screens out.

The engine (``assistant.engines.alchimiste.Game``, public-information mode: screens are hidden) holds the
game; every commit is compared with it, not with the previous commit, so a move caught half-done by one
commit is simply read again, whole, by the next.

What is read from the table (docs/table-alchimiste.md has the full story):

- **Creation**: a cauldron without a potion on record that shows a seal and cubes and whose fame tile has
  been taken (it lies on the cauldron, or exactly one tile is missing from the supply). Until then the
  cauldron pulses amber and the display says what it waits for: players put the cubes, then the seal, then
  the tile, and a commit may fall between any two.
- **Copy**: a seal that moves along the fame track by exactly the value of another adept's potion. The
  tribute (which cube the creator gets) happens behind the screens, so it is chosen with the buttons when
  the potion has more than one colour.
- **Take**: one cube gone from the reserve, nothing else pending: the adept to play took it.
- **Draw** and **pass**: invisible to the camera, chosen from the action menu (``confirm``).
- **End**: when the engine ends the game, each adept in turn empties their screen into the reserve trays
  and presses ``confirm``; the trays' growth is that screen. Or the set-up gives ``reveal``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assistant.engines.alchimiste import (
    COLOURS,
    SETUP,
    TRACK_SPACES,
    Copy,
    Create,
    Cubes,
    Draw,
    EndPlayer,
    EndResult,
    Game,
    IllegalAction,
    Pass,
    Take,
    describe,
    score_endgame,
)
from assistant.stabilise import State
from assistant.table import Event, Response, SetupError, TableMode
from assistant.table.outputs import Choice, Outputs
from calibration.layout import Layout
from hardware.display.screens import Message, Scores
from hardware.leds.patterns import AMBER, BLUE, GREEN, RED, WHITE, Flash, Pulse, Solid

from .board import Board, Geometry, Player, infer_players, read_board, read_players, read_reveal

SETUP_KEYS = ("players", "reveal")
ACTIONS = (("Drew from the bag", "draw"), ("Passed", "pass"), ("Close", None))


def _diff(a: Cubes, b: Cubes) -> dict[str, int]:
    """a - b per colour, negative numbers kept (``Cubes`` refuses them)."""
    return {c: a[c] - b[c] for c in COLOURS if a[c] != b[c]}


def _listing(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n} {c}" for c, n in counts.items())


class AlchimisteTable(TableMode):
    game = "alchimiste"

    def __init__(self, layout: Layout, setup: Mapping[str, Any] | None = None, source: str = "setup"):
        super().__init__(layout, setup, source)
        for key in self.setup:
            if key not in SETUP_KEYS:
                raise SetupError(f"{source}: {key}: unknown key (expected {', '.join(SETUP_KEYS)})")
        self.geo = Geometry.of(layout, source)
        self.players: list[Player] | None = None
        self.reveal: list[Cubes] | None = None
        if "players" in self.setup:
            self.players = read_players(self.setup["players"], self.geo, source)
            if "reveal" in self.setup:
                if any(p.school is None for p in self.players):
                    raise SetupError(f"{source}: reveal: give every player's school in players to score a reveal")
                self.reveal = read_reveal(self.setup["reveal"], self.players, source)
        elif "reveal" in self.setup:
            raise SetupError(f"{source}: reveal: needs the players (with their schools) in the set-up")
        self.engine: Game | None = None
        self.board: Board | None = None
        self.refused: dict[str, tuple[Any, str]] = {}  # what is refused -> (what was seen, the reason)
        self.waiting: dict[int, str] = {}              # open cauldron -> what its creation waits for
        self.issues: list[str] = []                    # the table differs from the game (to-dos, mistakes)
        self.choice: Choice | None = None
        self.last_copy: int | None = None
        self.last_round = False
        self.end: dict[str, Any] | None = None         # the screens being emptied at the end
        self.result: EndResult | None = None
        self.out = Outputs()

    # -- the contract ---------------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.result is not None

    def start(self) -> Response:
        return self._respond([], Message("Alchimiste", "Seals on space 0, the ten fame tiles in the supply, "
                                         "the reserve filled: the table reads the first state", "info"))

    def on_commit(self, state: State, previous: State | None) -> Response:
        board = read_board(state, self.geo)
        events: list[Event] = []
        if self.engine is None:
            events.append(self._begin(board))
        moved = self._moved_seals(board)
        self.board = board
        for detect in (self._creations, self._copies, self._take):
            if self.engine.over:
                break
            events += detect(board)
            events += self._after_play()
        self._check(board)
        return self._respond(events + self._misplaced(moved))

    def on_command(self, command: str) -> Response:
        if self.engine is None or self.result is not None:
            return Response()
        if self.choice is not None:
            if command in ("next", "back"):
                self.choice = self.choice.moved(1 if command == "next" else -1)
                return self._respond([])
            if command == "confirm":
                choice, self.choice = self.choice, None
                return self._respond(self._chosen(choice))
            return Response()
        if command != "confirm":
            return Response()  # the game wheel selects the game: not this mode's business
        if self.end is not None:
            return self._respond(self._screen_emptied())
        self.choice = Choice("action", "Action not seen", tuple(a for a, _ in ACTIONS), tuple(v for _, v in ACTIONS))
        return self._respond([])

    # -- the start ------------------------------------------------------------------------------------

    def _begin(self, board: Board) -> Event:
        if self.players is None:
            self.players = infer_players(board, self.geo, self.source)
        # Schools are secret until the end; the engine wants distinct ones, so unknown ones get stand-ins
        # that only the end-game scoring would read, and it is given the real ones.
        spare = [c for c in COLOURS if c not in {p.school for p in self.players}]
        schools = [p.school or spare.pop(0) for p in self.players]
        try:
            self.engine = Game.new([(p.name, s) for p, s in zip(self.players, schools, strict=True)],
                                   self.geo.produces)
        except IllegalAction as e:
            raise SetupError(f"{self.source}: players: {e}") from None
        n = len(self.players)
        return Event("start", f"{n} adepts: {', '.join(f'{p.name} ({p.seal})' for p in self.players)}; "
                              f"{SETUP[n].reserve} of each colour in the reserve",
                     data={"players": [{"name": p.name, "seal": p.seal} for p in self.players],
                           "reserve": SETUP[n].reserve})

    # -- reading the changes ---------------------------------------------------------------------------

    def _creations(self, board: Board) -> list[Event]:
        g = self.engine
        open_ = {n: c for n, c in board.cauldrons.items() if g.cauldron(n).potion is None and not c.empty}
        for key in [k for k in self.refused if k[0] == "create" and k[1] not in open_]:
            del self.refused[key]  # emptied again: the refusal is settled
        missing = sorted(set(g.tiles) - board.supply)
        ready = [c for c in open_.values() if c.seal is not None and c.mix.total and (c.tile or missing)]
        self.waiting = {}
        for n, c in open_.items():
            if c not in ready:
                lack = [w for w, ok in (("cubes", c.mix.total), ("a seal", c.seal), ("a fame tile", c.tile or missing))
                        if not ok]
                self.waiting[n] = f"cauldron {n} waits for {' and '.join(lack)}"
        if not ready:
            return []
        if not missing:
            for c in ready:
                self.waiting[c.number] = f"cauldron {c.number} has a tile but none is missing from the supply"
            return []
        if len(missing) > 1 or len(ready) > 1:
            for c in ready:
                self.waiting[c.number] = (f"cauldron {c.number}: tiles {', '.join(map(str, missing))} are gone from "
                                          f"the supply for {len(ready)} new potion(s): one potion at a time")
            return []
        c, tile = ready[0], missing[0]
        seen = (c.seal, c.mix, tile)
        if self.refused.get(("create", c.number), (None,))[0] == seen:
            return []  # judged already, nothing changed
        player = self._player(c.seal)
        action = Create(c.number, c.mix, tile)
        who = player.name if player else f"the {c.seal} seal"
        why = f"no adept plays the {c.seal} seal" if player is None else g.reason(action, player.name)
        text = describe(action, who)
        if why is not None:
            self.refused[("create", c.number)] = (seen, why)
            return [Event("illegal", f"{text}: {why}", False, {"action": "create", "cauldron": c.number,
                                                                "player": who, "reason": why})]
        self.refused.pop(("create", c.number), None)
        self.engine = g.play(action, player.name)
        got = g.payout(c.number)
        self.last_copy = None
        return [Event("create", f"{text}: +{tile}" + (f", receives {got}" if got.total else ""), True,
                      {"player": player.name, "cauldron": c.number, "mix": c.mix.to_dict(), "tile": tile,
                       "fame": self.engine.adepts[g.turn].fame, "received": got.to_dict()})]

    def _copies(self, board: Board) -> list[Event]:
        g = self.engine
        for i, p in enumerate(self.players):
            spaces = board.track.get(p.seal, ())
            key = ("copy", p.seal)
            target = self._copy_target(i, spaces)
            if target is None:
                self.refused.pop(key, None)
                if self.choice and self.choice.kind == "tribute" and self.choice.context[0] == i:
                    self.choice = None  # the seal went back: no copy after all
                continue
            if key in self.refused and self.refused[key][0] == (spaces, target):
                continue
            potion = g.cauldron(target).potion
            colours = [c for c, _ in potion.mix.items()]
            if len(colours) == 1:
                return self._copy(i, target, colours[0])
            if self.choice is None or self.choice.kind != "tribute":
                creator = g.adepts[potion.creator].name
                self.choice = Choice("tribute", f"{p.name} to {creator}", tuple(colours), tuple(colours),
                                     context=(i, target))
        return []

    def _copy_target(self, i: int, spaces: tuple[int, ...]) -> int | None:
        """The cauldron whose potion adept ``i``'s seal move copies, if it moved by one potion's value."""
        if len(spaces) != 1 or self._opened_by(self.players[i].seal):
            return None
        step = (spaces[0] - self.engine.adepts[i].fame) % TRACK_SPACES
        for c in self.engine.cauldrons:
            if c.potion is not None and c.potion.tile == step and step and c.potion.creator != i:
                return c.number
        return None

    def _copying(self, seal: str) -> bool:
        i = next(k for k, p in enumerate(self.players) if p.seal == seal)
        return self._copy_target(i, self.board.track.get(seal, ())) is not None

    def _copy(self, i: int, number: int, tribute: str) -> list[Event]:
        g, name = self.engine, self.players[i].name
        potion = g.cauldron(number).potion
        action = Copy(number, potion.mix, tribute)
        why = g.reason(action, name)
        text = describe(action, name)
        if why is not None:
            seal = self.players[i].seal
            self.refused[("copy", seal)] = ((self.board.track.get(seal, ()), number), why)
            return [Event("illegal", f"{text}: {why}", False, {"action": "copy", "cauldron": number, "player": name,
                                                                "reason": why})]
        got = g.payout(number)
        self.engine = g.play(action, name)
        self.last_copy = number
        creator = g.adepts[potion.creator].name
        return [Event("copy", f"{text}: +{potion.tile}, {tribute} to {creator}"
                              + (f", receives {got}" if got.total else ""), True,
                      {"player": name, "cauldron": number, "tile": potion.tile, "tribute": tribute,
                       "creator": creator, "fame": self.engine.adepts[i].fame, "received": got.to_dict()})]

    def _take(self, board: Board) -> list[Event]:
        g = self.engine
        if board.reserve is None or self.waiting or any(k[0] == "create" for k in self.refused) or (
                self.choice and self.choice.kind == "tribute"):
            self.refused.pop(("take",), None)
            return []
        gone = {c: -n for c, n in _diff(board.reserve, g.reserve).items()}
        if list(gone.values()) != [1]:
            self.refused.pop(("take",), None)
            return []
        colour = next(iter(gone))
        if self.refused.get(("take",), (None,))[0] == board.reserve:
            return []
        name = g.to_play.name
        action = Take(colour)
        why = g.reason(action, name)
        if why is not None:
            self.refused[("take",)] = (board.reserve, why)
            return [Event("illegal", f"{describe(action, name)}: {why}", False,
                          {"action": "take", "player": name, "colour": colour, "reason": why})]
        self.engine = g.play(action, name)
        self.last_copy = None
        return [Event("take", describe(action, name), True, {"player": name, "colour": colour})]

    def _chosen(self, choice: Choice) -> list[Event]:
        if choice.kind == "tribute":
            i, number = choice.context
            return self._copy(i, number, choice.value) + self._after_play()
        if choice.kind == "school":
            self.end["schools"][choice.context] = choice.value
            return []
        if choice.value is None:
            return []
        g = self.engine
        action = Draw(min(2, g.bag)) if choice.value == "draw" else Pass()
        name = g.to_play.name
        why = g.reason(action, name)
        if why is not None:
            return [Event("illegal", f"{describe(action, name)}: {why}", False,
                          {"action": choice.value, "player": name, "reason": why})]
        self.engine = g.play(action, name)
        self.last_copy = None
        return [Event(choice.value, describe(action, name), True, {"player": name}), *self._after_play()]

    def _after_play(self) -> list[Event]:
        g = self.engine
        events = []
        if len(g.exhausted) >= 3 and not g.over and not self.last_round:
            self.last_round = True
            events.append(Event("last-round", f"last round: {', '.join(g.exhausted)} exhausted in the reserve; the "
                                              f"game ends when the turn comes back to {g.adepts[0].name}",
                                data={"exhausted": list(g.exhausted), "round": g.round}))
        if g.over and self.end is None and self.result is None:
            self.choice = None
            events.append(Event("game-over", f"game over after round {g.round}: {', '.join(g.exhausted)} "
                                             f"exhausted", data={"round": g.round, "exhausted": list(g.exhausted)}))
            if self.reveal is not None:
                events += self._finish(self.reveal)
            else:
                self.end = {"schools": {}, "screens": [], "baseline": g.reserve}
                self._ask_school()
        return events

    # -- the end --------------------------------------------------------------------------------------

    def _ask_school(self) -> None:
        k = len(self.end["screens"])
        if k < len(self.players) and self.players[k].school is None and k not in self.end["schools"]:
            taken = {p.school for p in self.players} | set(self.end["schools"].values())
            free = tuple(c for c in COLOURS if c not in taken)
            self.choice = Choice("school", f"{self.players[k].name}'s school", free, free, context=k)

    def _schools(self) -> list[str]:
        chosen = self.end["schools"] if self.end else {}
        return [p.school or chosen[k] for k, p in enumerate(self.players)]

    def _screen_emptied(self) -> list[Event]:
        k = len(self.end["screens"])
        adept, now = self.engine.adepts[k], self.board.reserve
        if now is None:
            self.end["problem"] = "the reserve trays cannot be counted: clear them and press confirm again"
            return []
        grew = _diff(now, self.end["baseline"])
        if any(n < 0 for n in grew.values()) or sum(grew.values()) != adept.count:
            self.end["problem"] = (f"{adept.name}'s screen holds {adept.count} cubes, the reserve trays gained "
                                   f"{sum(grew.values())} ({_listing(grew) or 'none'}): check the trays")
            return [Event("illegal", self.end["problem"], False, {"player": adept.name, "gained": grew})]
        self.end.pop("problem", None)
        screen = Cubes.of(grew)
        self.end["screens"].append(screen)
        self.end["baseline"] = now
        events = [Event("screen", f"{adept.name}'s screen: {screen} ({screen.total // 2} points)",
                        data={"player": adept.name, "screen": screen.to_dict()})]
        if len(self.end["screens"]) == len(self.players):
            return events + self._finish(self.end["screens"])
        self._ask_school()
        return events

    def _finish(self, screens: list[Cubes]) -> list[Event]:
        g = self.engine
        why = g.reveal_reason(screens)
        if why is None:
            players = [EndPlayer(a.name, school, a.fame, s)
                       for a, school, s in zip(g.adepts, self._schools(), screens, strict=True)]
            try:
                self.result = score_endgame(players, g.reserve)
            except IllegalAction as e:
                why = str(e)
        if why is not None:
            self.end = None
            self.refused[("end",)] = (None, why)
            return [Event("illegal", f"the screens cannot be scored: {why}", False, {"action": "end", "reason": why})]
        self.end = None
        r = self.result
        winners = " and ".join(r.winners)
        return [Event("end", f"{winners} win{'s' if len(r.winners) == 1 else ''}: " + "; ".join(
            f"{x.name} {x.fame} + {x.screen_points} + {x.school_reward} ({x.school} place {x.school_place}) = "
            f"{x.total}" for x in r.lines), data=r.to_dict())]

    # -- comparing the table with the game --------------------------------------------------------------

    def _moved_seals(self, board: Board) -> list[tuple[str, int]]:
        if self.board is None or self.players is None:
            return []
        out = []
        for p in self.players:
            now, before = board.track.get(p.seal, ()), self.board.track.get(p.seal, ())
            if len(now) == 1 and now != before:
                out.append((p.seal, now[0]))
        return out

    def _misplaced(self, moved: list[tuple[str, int]]) -> list[Event]:
        """A seal just moved to a space its score does not give, and no copy or open creation explains."""
        events = []
        for seal, space in moved:
            expected = self._space(seal)
            if (space == expected or ("copy", seal) in self.refused or self._copying(seal)
                    or self._opened_by(seal)):
                continue
            name = self._name(seal)
            events.append(Event("track", f"{name}'s seal moved to space {space}: the score puts it on space "
                                         f"{expected}", False, {"player": name, "space": space, "expected": expected}))
        return events

    def _check(self, board: Board) -> None:
        g, issues = self.engine, []
        for i, p in enumerate(self.players):
            spaces, space = board.track.get(p.seal, ()), g.adepts[i].fame % TRACK_SPACES
            if self._opened_by(p.seal) or space in spaces:
                continue
            if not spaces:
                stacked = any(space in s for s in board.track.values())
                if not stacked:
                    issues.append(f"{p.name}'s seal is not on the track: put it on space {space}")
            else:
                issues.append(f"{p.name}'s seal is on space {', '.join(map(str, spaces))}: "
                              f"the score {g.adepts[i].fame} puts it on space {space}")
        for c in g.cauldrons:
            seen = board.cauldrons[c.number]
            if c.potion is None:
                continue
            seal = self.players[c.potion.creator].seal
            if seen.mix != c.potion.mix or seen.seal != seal:
                issues.append(f"cauldron {c.number} should show {seal} seal and {c.potion.mix}")
            elif not seen.tile:
                issues.append(f"put fame tile {c.potion.tile} on cauldron {c.number}")
        if board.reserve is not None and self.result is None and self.end is None and not self.waiting:
            diff = _diff(board.reserve, g.reserve)
            extra = {c: n for c, n in diff.items() if n > 0}
            short = {c: -n for c, n in diff.items() if n < 0}
            if extra:
                issues.append(f"take {_listing(extra)} from the reserve")
            if short and ("take",) not in self.refused:
                issues.append(f"the reserve lacks {_listing(short)}: put them back")
        self.issues = issues

    # -- answering ------------------------------------------------------------------------------------

    def _player(self, seal: str | None) -> Player | None:
        return next((p for p in self.players if p.seal == seal), None)

    def _name(self, seal: str) -> str:
        return self._player(seal).name

    def _space(self, seal: str) -> int:
        i = next(k for k, p in enumerate(self.players) if p.seal == seal)
        return self.engine.adepts[i].fame % TRACK_SPACES

    def _opened_by(self, seal: str) -> bool:
        """Is a creation with this seal still open (not on record)? Its seal may move before it is judged."""
        return self.board is not None and any(
            c.seal == seal and self.engine.cauldron(n).potion is None for n, c in self.board.cauldrons.items())

    def _refusal(self, what: Any) -> str:
        """A screen title for a refusal: ``what`` is a key of ``refused`` or an illegal event's data."""
        action = what[0] if isinstance(what, tuple) else what.get("action")
        return {"create": "Illegal potion", "copy": "Illegal copy", "take": "Illegal take", "draw": "Illegal draw",
                "pass": "Illegal pass", "end": "Cannot score"}.get(action, "Refused")

    def _leds(self) -> dict[str, Any]:
        leds: dict[str, Any] = {}
        g = self.engine
        refused = {k[1] for k in self.refused if k[0] == "create"}
        for n in self.geo.cauldrons:
            seen = self.board.cauldrons[n] if self.board else None
            if g is not None and g.cauldron(n).potion is not None:
                leds[f"cauldron-{n}"] = (Flash(WHITE, period=0.5, times=3, off=GREEN) if n == self.last_copy
                                         else Solid(GREEN))
            elif n in refused:
                leds[f"cauldron-{n}"] = Flash(RED)
            elif seen is not None and not seen.empty:
                leds[f"cauldron-{n}"] = Pulse(AMBER)
            else:
                leds[f"cauldron-{n}"] = None
        if self.result is not None or self.end is not None:
            leds["status"] = Solid(GREEN) if self.result is not None else Pulse(BLUE)
        elif self.refused:
            leds["status"] = Flash(RED)
        elif self.waiting or self.issues or self.choice:
            leds["status"] = Solid(AMBER)
        else:
            leds["status"] = Solid(GREEN) if g is not None else Pulse(BLUE)
        for k in range(5):
            playing = g is not None and not g.over and k == g.turn
            leds[f"player-{k + 1}"] = Solid(WHITE) if playing else None
        return leds

    def _standing(self) -> Any:
        g = self.engine
        if self.result is not None:
            r = self.result
            rows = tuple(sorted(((x.name, x.total) for x in r.lines), key=lambda row: -row[1]))
            return Scores("Final scores", rows, f"winner: {' & '.join(r.winners)}")
        if self.choice is not None:
            return self.choice.screen()
        if self.end is not None:
            if "problem" in self.end:
                return Message("Count again", self.end["problem"], "error")
            name = self.players[len(self.end["screens"])].name
            return Message("End of the game", f"{name}: empty your screen into the reserve trays, then press "
                                              f"confirm", "info")
        if self.refused:
            key, (_, why) = next(iter(self.refused.items()))
            return Message(self._refusal(key), why, "error")
        if self.waiting:
            return Message("Potion not finished", next(iter(self.waiting.values())), "warn")
        if self.issues:
            return Message("Check the table", self.issues[0], "warn")
        if g is None:
            return None
        rows = tuple(sorted(((a.name, a.fame) for a in g.adepts), key=lambda row: -row[1]))
        note = f"{g.to_play.name} to play" + (f"; out: {', '.join(g.exhausted)}" if g.exhausted else "")
        return Scores("Last round" if self.last_round else f"Round {g.round}", rows, note)

    def _respond(self, events: list[Event], screen: Any = None) -> Response:
        if screen is None:
            screen = self._standing()
            news = [e for e in events if e.kind in ("create", "copy", "take", "draw", "pass", "illegal", "track",
                                                    "last-round")]
            if news and self.choice is None and self.end is None and self.result is None:
                last = news[-1]
                todo = f" Then: {self.issues[0]}" if last.legal and self.issues else ""
                if last.kind == "illegal" and "reason" in last.data:
                    return self._send(events, Message(self._refusal(last.data), last.data["reason"], "error"))
                title = {"illegal": "Refused", "track": "Fame track", "last-round": "Last round",
                         "create": "Potion created", "copy": "Potion copied", "take": "Ingredient taken",
                         "draw": "Drew from the bag", "pass": "Passed"}[last.kind]
                tone = "error" if last.legal is False else "warn" if last.kind == "last-round" else "ok"
                screen = Message(title, last.message + ("." if todo else "") + todo, tone)
        return self._send(events, screen)

    def _send(self, events: list[Event], screen: Any) -> Response:
        leds, screen = self.out.changes(self._leds() if self.board or self.engine else
                                        {"status": Pulse(BLUE)}, screen)
        return Response(tuple(events), leds, screen)

