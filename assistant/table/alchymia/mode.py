"""The Alchymia table mode: committed boards in, turn verdicts, crystals and the winner out.

A turn is judged as it happens. The table at the start of the turn is the baseline; every committed state
is compared with it as a whole (the uses so far, with one card), so a turn caught half-done by a commit is
legal as long as what is on the boards can be explained, and the next commit simply extends it. The turn
ends when:

- the player completes a crystal (the rules stop the turn at once);
- the player presses ``confirm`` ("my turn is done");
- a change arrives that the mover's card cannot explain but that the next player's turn, played from the
  boards as they were, does: the mover had finished.

A change that no card (or not the card chosen) explains is flagged with the engine's reason. The players
either put the stones back (the flag goes) or press ``confirm`` to accept the boards as they are (the game
carries on from them). A completed board may be cleared in several handfuls: while it holds only stones of
the completed structure, it counts as emptied.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from assistant.engines.alchymia import (
    COLOURS,
    AlchymiaError,
    Board,
    Element,
    Explanation,
    PotionCard,
    Table,
    check_turn,
)
from assistant.engines.alchymia.table import STONES_PER_COLOUR
from assistant.stabilise import State
from assistant.table import Event, Response, SetupError, TableMode
from hardware.display.screens import Menu, Message, Scores
from hardware.leds.patterns import AMBER, BLUE, GREEN, RED, WHITE, Flash, Pulse, Solid

from .setup import default_boards, parse_card, parse_setup, prefixes, read_boards

ELEMENT_LIGHT = {Element.EARTH: GREEN, Element.AIR: WHITE, Element.WATER: BLUE, Element.FIRE: AMBER,
                 Element.TIME: RED}
ANY_CARD = "any card of the deck"


@dataclass(frozen=True)
class _Pending:
    """The current turn as far as it is seen: who, the boards read, and the verdict."""

    player: int
    boards: tuple[tuple[Board, ...], ...]
    explanation: Explanation | None    # None: flagged
    cards: tuple[str, ...] = ()        # the cards (potions) that explain it
    reason: str | None = None


def _plainness(explanation: Explanation) -> tuple[int, int, int]:
    """Orders explanations from the plainest. A board read empty can be stones taken off, or a crystal
    completed and cleared at once; without the card to tell them apart the plainer reading wins (no
    crystal, no emptied board, fewest uses): a crystal is only credited when the table saw it or nothing
    else explains the change."""
    return len(explanation.taken), len(explanation.emptied), len(explanation.uses)


class AlchymiaTable(TableMode):
    """Alchymia: per player board, turns checked by ``check_turn``, crystals light ``player-N``."""

    game = "alchymia"
    card_mats = ("alchymia-crystals",)

    def __init__(self, layout, setup=None, source: str = "setup"):
        super().__init__(layout, setup, source)
        self.config = parse_setup(self.setup, layout.game, source)
        letters = sorted({"".join(sorted(card.letters)) for card in self.config.deck.potions},
                         key=lambda s: (len(s), s))
        self.combos = tuple(PotionCard(s, s) for s in letters)  # the deck's cards, one per set of potions
        self.players: tuple[str, ...] = ()
        self.boards: dict[str, tuple[str, ...]] = {}
        self.table: Table | None = None
        self.mover: int | None = None
        self.pending: _Pending | None = None
        self.card: PotionCard | None = None   # chosen with the buttons for the current turn
        self.turns = 0
        self.clearing: dict[tuple[int, int], Board] = {}
        self.menu: int | None = None
        self.was: int | None = None   # the player expected before a move out of turn still under way
        if self.config.players is not None:
            self._begin(self.config.players)

    # set-up ----------------------------------------------------------------------------------------
    def _begin(self, players: tuple[str, ...], boards: dict[str, tuple[str, ...]] | None = None) -> None:
        first = self.config.first
        if first is not None and first not in players:
            raise SetupError(f"{self.source}: first: {first!r} is not one of the players ({', '.join(players)})")
        try:
            self.table = Table.new(players, self.config.deck, self.config.expert)
        except AlchymiaError as e:
            raise SetupError(f"{self.source}: players: {e}") from None
        self.players = players
        self.boards = boards or self.config.boards or default_boards(players)
        if first is not None:
            self.mover = players.index(first)

    def _infer(self, state: State) -> None:
        """Players named after the boards of the first state (one board each, in sorted order)."""
        found = prefixes(state)
        if not 2 <= len(found) <= 5:
            raise SetupError(f"{self.source}: players: not given, and the state shows {len(found)} boards "
                             f"({', '.join(found) or 'no NAME/rRcC zone'}); give players and boards")
        if len(found) == 2:
            raise SetupError(f"{self.source}: boards: a 2-player game needs two boards per player; give players "
                             f"and boards")
        self._begin(tuple(found), {p: (p,) for p in found})

    @property
    def over(self) -> bool:
        return self.table is not None and self.table.winner is not None

    # the contract ----------------------------------------------------------------------------------
    def start(self) -> Response:
        if self.table is None:
            return Response((Event("start", "Alchymia: waiting for the boards"),), {"status": Solid(BLUE)},
                            Message("Alchymia", "Waiting for the boards", "info"))
        data = {"players": list(self.players), "boards": {p: list(b) for p, b in self.boards.items()},
                "crystals": self._tops()}
        names = ", ".join(self.players)
        return Response((Event("start", f"Alchymia: {names}", data=data),), self._turn_lights(),
                        Message("Alchymia", f"{names}. {self._to_play()}"))

    def on_commit(self, state: State, previous: State | None) -> Response:
        opening = Response()
        if self.table is None:
            self._infer(state)
            opening = self.start()
        try:
            read = read_boards(state, self.players, self.boards, self.config.rows, self.config.cols)
        except AlchymiaError as e:
            if previous is None:
                raise SetupError(f"{self.source}: boards: {e} (zones seen for boards: "
                                 f"{', '.join(prefixes(state)) or 'none'})") from None
            return opening + Response((Event("reading", str(e)),), {"status": Flash(AMBER)},
                                      Message("Cannot read the boards", str(e), "warn"))
        if self.over:
            return opening + Response(screen=self._winner_screen())
        out = self._judge(self._view(read))
        if out.screen is not None:
            self.menu = None  # the verdict replaces the card menu on the display
        return opening + out

    def on_command(self, command: str) -> Response:
        if self.table is None or self.over:
            return Response()
        if command in ("next", "back"):
            return self._move_menu(1 if command == "next" else -1)
        if command != "confirm":
            return Response()
        if self.menu is not None:
            return self._choose_card()
        p = self.pending
        if p is not None and p.explanation is not None:
            return self._close(p, "turn done")
        if p is not None:
            return self._accept(p)
        return Response(screen=Message("Nothing to confirm", self._to_play()))

    # judging ---------------------------------------------------------------------------------------
    def _judge(self, boards) -> Response:
        table = self.table
        pending = self.pending
        if boards == table.boards:
            self.pending = None
            if self.was is not None:  # a move out of turn taken back: the turn is the expected player's again
                self.mover, self.was = self.was, None
            if pending is None:
                return Response()
            name = self.players[pending.player]
            return Response((Event("undo", f"{name}: the boards are back as they were"),),
                            self._turn_lights(), Message("Boards as before", self._to_play()))
        if pending is not None and boards == pending.boards:
            return Response()  # nothing new on the boards as judged (a completed board cleared, say)
        if pending is not None and pending.explanation is not None:
            return self._go_on(pending, boards)
        order = [self.mover] if self.mover is not None else []
        order += [p for p in range(len(self.players)) if p not in order and boards[p] != table.boards[p]]
        first_reason = None
        for player in order:
            explanation, cards, reason = self._explain(table, player, boards, self._card())
            if explanation is not None:
                expected, self.mover = self.mover, player
                legal = self._legal(player, boards, explanation, cards)
                if expected is None or expected == player:
                    return legal
                # Played out of turn: the table follows the players, and says so (amber status).
                name, wanted = self.players[player], self.players[expected]
                warning = Event("order", f"{name} played, but it was {wanted}'s turn",
                                data={"player": name, "expected": wanted})
                if legal.events[-1].kind == "move":  # the turn is still under way: an undo gives it back
                    self.was = expected
                return Response((warning, *legal.events), {**legal.leds, "status": Solid(AMBER)}, legal.screen)
            first_reason = first_reason or reason
        who = order[0] if order else 0
        return self._flag(who, boards, first_reason or "the boards changed, but no player's turn explains it")

    def _go_on(self, pending: _Pending, boards) -> Response:
        """A commit during a turn already under way: more of the same turn, or the next player's turn."""
        explanation, cards, reason = self._explain(self.table, pending.player, boards, self._card())
        if explanation is not None:
            return self._legal(pending.player, boards, explanation, cards)
        after = pending.explanation.table
        following = (pending.player + 1) % len(self.players)
        later = self.config.cards[self.turns + 1] if self.turns + 1 < len(self.config.cards) else None
        if boards != after.boards:
            nxt, nxt_cards, _ = self._explain(after, following, boards, later)
            if nxt is not None:
                return self._close(pending, "the next player has started") + self._legal(following, boards, nxt,
                                                                                          nxt_cards)
        return self._flag(pending.player, boards, reason)

    def _card(self) -> PotionCard | None:
        if self.card is not None:
            return self.card
        return self.config.cards[self.turns] if self.turns < len(self.config.cards) else None

    def _explain(self, table: Table, player: int, boards, card: PotionCard | None):
        """(explanation, cards that explain it, reason): with ``card``, or else with any card of the deck."""
        if card is not None:
            try:
                return check_turn(table, player, boards, card), (card.letters,), None
            except AlchymiaError as e:
                return None, (), f"with {card.letters}: {e}"
        best, found, reasons = None, [], {}
        for combo in self.combos:
            try:
                explanation = check_turn(table, player, boards, combo)
            except AlchymiaError as e:
                reasons[combo.letters] = str(e)
                continue
            found.append(combo.letters)
            if best is None or _plainness(explanation) < _plainness(best):
                best = explanation
        if best is not None:
            return best, tuple(found), None
        # The reason given is the one for the card with the most different potions: the widest attempt.
        widest = max(self.combos, key=lambda c: (len(set(c.letters)), len(c.letters))).letters
        return None, (), f"no card explains it (with {widest}: {reasons[widest]})"

    def _legal(self, player: int, boards, explanation: Explanation, cards: tuple[str, ...]) -> Response:
        self.pending = _Pending(player, boards, explanation, cards)
        name = self.players[player]
        lines = explanation.lines(self.table)
        card = cards[0] if len(cards) == 1 else f"{cards[0]} or {len(cards) - 1} other"
        event = Event("move", f"{name}: {'; '.join(lines)}", True,
                      {"player": name, "uses": lines, "cards": list(cards)})
        out = Response((event,), {self._group(player): Solid(GREEN), "status": Solid(GREEN)},
                       Message(f"{name}: legal", f"{'; '.join(lines)} (card {card})", "ok"))
        if explanation.taken:
            out += self._close(self.pending, "crystal completed")
        return out

    def _flag(self, player: int, boards, reason: str) -> Response:
        self.pending = _Pending(player, boards, None, (), reason)
        name = self.players[player]
        event = Event("illegal", f"{name}: {reason}", False, {"player": name, "reason": reason})
        return Response((event,), {self._group(player): Flash(RED, 0.5), "status": Flash(RED, 0.5)},
                        Message(f"{name}: not allowed", reason, "error"))

    def _close(self, pending: _Pending, why: str) -> Response:
        """End ``pending``'s turn: its table becomes the baseline, crystals are taken, the next player plays."""
        player, explanation = pending.player, pending.explanation
        name = self.players[player]
        uses = explanation.lines(self.table)
        self.table = explanation.table
        for b, board in enumerate(pending.boards[player]):
            if not board.is_empty and self.table.boards[player][b].is_empty and explanation.taken:
                self.clearing[(player, b)] = board
        self.mover, self.was = (player + 1) % len(self.players), None
        self.turns += 1
        self.card, self.pending = None, None
        taken = [card.name for card in explanation.taken]
        events = [Event("turn", f"{name}'s turn is over ({why})", True,
                        {"player": name, "cards": list(pending.cards), "uses": uses,
                         "taken": taken})]
        leds: dict[str, Any] = {self._group(player): None}
        screen = self._scores()
        for card in explanation.taken:
            held = len(self.table.crystals[player])
            events.append(Event("crystal", f"{name} completes {card.name} and takes the {card.element} crystal "
                                           f"({held} of 5)", True,
                                {"player": name, "card": card.name, "element": card.element.value, "held": held}))
            leds[self._group(player)] = Solid(ELEMENT_LIGHT[card.element])
            screen = Message(f"{name}: {card.element} crystal", f"{card.name} completed: {held} of 5 crystals. "
                                                               f"Empty the board. {self._to_play()}", "ok")
        if self.table.winner is not None:
            events.append(Event("win", f"{name} holds the five crystals and wins", True, {"player": name}))
            leds = dict.fromkeys(self._groups()) | {self._group(player): Pulse(GREEN), "status": Solid(GREEN)}
            return Response(tuple(events), leds, self._winner_screen())
        leds[self._group(self.mover)] = Pulse(WHITE)
        return Response(tuple(events), leds, screen)

    def _accept(self, pending: _Pending) -> Response:
        """The players keep the boards as they are: the game carries on from them."""
        on_boards = [sum(b.count(c) for boards in pending.boards for b in boards) for c in COLOURS]
        over = [c for c, n in zip(COLOURS, on_boards, strict=True) if n > STONES_PER_COLOUR]
        if over:
            return Response(screen=Message("Cannot accept", f"more than {STONES_PER_COLOUR} {over[0]} stones "
                                                            f"on the boards: check the reading", "error"))
        reserve = tuple(STONES_PER_COLOUR - n for n in on_boards)
        self.table = replace(self.table, boards=pending.boards, reserve=reserve)
        name = self.players[pending.player]
        self.mover, self.was = (pending.player + 1) % len(self.players), None
        self.turns += 1
        self.card, self.pending = None, None
        event = Event("accept", f"the boards are accepted as they are after {name}'s turn",
                      data={"player": name, "boards": {p: [b.line() for b in self.table.boards[i]]
                                                       for i, p in enumerate(self.players)}})
        return Response((event,), self._turn_lights(), Message("Boards accepted", self._to_play(), "warn"))

    def _view(self, read):
        """The boards as judged: a completed board still being cleared counts as emptied."""
        if not self.clearing:
            return read
        out = [list(boards) for boards in read]
        for (p, b), shown in list(self.clearing.items()):
            board = read[p][b]
            if board.is_empty or not all(c is None or c is s for c, s in zip(board.cells, shown.cells, strict=True)):
                del self.clearing[(p, b)]  # emptied, or something else put on it: read as it is from now on
            else:
                out[p][b] = board.cleared()
        return tuple(tuple(boards) for boards in out)

    # the card menu ---------------------------------------------------------------------------------
    def _items(self) -> tuple[str, ...]:
        return (ANY_CARD, *(" ".join(c.letters) for c in self.combos))

    def _move_menu(self, step: int) -> Response:
        items = self._items()
        if self.menu is None:  # the first press opens the menu on the current choice
            current = self._card()
            letters = [c.letters for c in self.combos]
            key = "".join(sorted(current.letters)) if current is not None else None
            self.menu = letters.index(key) + 1 if key in letters else 0
        else:
            self.menu = (self.menu + step) % len(items)
        who = self.players[self.mover] if self.mover is not None else "the player"
        return Response(screen=Menu(f"Card played by {who}", items, self.menu))

    def _choose_card(self) -> Response:
        choice, self.menu = self.menu, None
        self.card = None if choice == 0 else self.combos[choice - 1]
        who = self.players[self.mover] if self.mover is not None else "the player"
        text = f"{who} plays {self.card.letters}" if self.card else f"{who}: any card of the deck"
        out = Response((Event("card", text, data={"card": self.card.letters if self.card else None}),),
                       screen=Message("Card played", text))
        pending = self.pending
        if pending is None:
            return out
        self.pending = None
        self.mover = pending.player
        return out + self._judge(pending.boards)

    def play_card(self, card: str) -> Response:
        """The card played this turn, by name or potions (for a later reader of the discard pile)."""
        try:
            chosen = parse_card(card, self.config.deck)
        except AlchymiaError as e:
            return Response(screen=Message("Unknown card", str(e), "warn"))
        letters = "".join(sorted(chosen.letters))
        self.menu = next((i + 1 for i, c in enumerate(self.combos) if c.letters == letters), None)
        if self.menu is None:
            self.card = chosen
            return Response(screen=Message("Card played", f"{chosen.letters} (not a card of the deck)", "warn"))
        return self._choose_card()

    def show_crystal(self, card: str) -> Response:
        """The crystal card now on top of its stack (for a later reader of the crystal cards): the stacks
        are public, and a completion is recognised against the top cards only."""
        if self.table is None:
            return Response(screen=Message("No game yet", "show the boards first", "warn"))
        stacks = list(self.table.stacks)
        for i, stack in enumerate(stacks):
            names = [c.name for c in stack]
            if card in names:
                chosen = stack[names.index(card)]
                stacks[i] = (chosen, *(c for c in stack if c is not chosen))
                break
        else:
            return Response(screen=Message("Unknown crystal", f"{card} is not in any stack left", "warn"))
        self.table = replace(self.table, stacks=tuple(stacks))
        text = f"{chosen.element}: {chosen.name} on top ({chosen.structure.line()})"
        out = Response((Event("top", text, data={"element": chosen.element.value, "card": chosen.name}),),
                       screen=Message("Crystal on top", text))
        pending, self.pending = self.pending, None
        if pending is None:
            return out
        self.mover = pending.player
        return out + self._judge(pending.boards)

    def on_cards(self, mat: str, labels) -> Response:
        """The crystal mat (layout ``alchymia-crystals``) read by the live loop: see :meth:`on_crystal_cards`."""
        return self.on_crystal_cards(dict(labels))

    def on_crystal_cards(self, labels: dict[str, str]) -> Response:
        """What the card zones of the crystal mat read (zone -> crystal name, ``empty`` or ``unknown``;
        layout ``alchymia-crystals``): each crystal seen on top of a stack that is not the top the table
        knows becomes the top (``show_crystal``). An empty place or a card not read changes nothing: a
        stack is only emptied by the game itself."""
        if self.table is None:
            return Response()
        out = Response()
        for zone in sorted(labels):
            card = labels[zone]
            if card in ("empty", "unknown") or card in self._tops().values():
                continue
            out += self.show_crystal(card)
        return out

    # outputs ---------------------------------------------------------------------------------------
    def _group(self, player: int) -> str:
        return f"player-{player + 1}"

    def _groups(self) -> list[str]:
        return [self._group(p) for p in range(len(self.players))]

    def _turn_lights(self) -> dict[str, Any]:
        leds: dict[str, Any] = {"status": Solid(BLUE)}
        for p in range(len(self.players)):
            held = self.table.crystals[p]
            leds[self._group(p)] = Solid(ELEMENT_LIGHT[held[-1].element]) if held and p != self.mover else None
        if self.mover is not None:
            leds[self._group(self.mover)] = Pulse(WHITE)
        return leds

    def _to_play(self) -> str:
        return f"{self.players[self.mover]} to play" if self.mover is not None else "First player: make a move"

    def _tops(self) -> dict[str, str | None]:
        return {e.value: (card.name if (card := self.table.top(e)) else None) for e in Element}

    def _scores(self) -> Scores:
        rows = sorted(((p, len(self.table.crystals[i])) for i, p in enumerate(self.players)), key=lambda r: -r[1])
        return Scores("Crystals", tuple(rows), self._to_play())

    def _winner_screen(self) -> Message:
        name = self.players[self.table.winner]
        return Message(f"{name} wins", "The five crystals: earth, air, water, fire and time.", "ok")
