"""The Le Chaudron Magique table mode: the cauldron seen after each ingredient card, checked by the engine.

A round, as the table sees it (docs/table-chaudron.md):

1. **Reveal.** With the potion deck in the set-up the engine reveals the top potion itself; otherwise the
   players name it with the buttons (or ``reveal_potion(card_id)``, which the card camera will call). Timer
   cubes go on every waiting potion; a fourth cube forces a concoction, and the table waits until the
   cauldron shows it done (the resources taken, the Cramés put down) in some way the rules allow.
2. **Ingredients.** Each change of the cauldron is one card's effect. The card is the one chosen with the
   buttons, or, when none was chosen, any ingredient card of the deck that explains the change (the first
   in deck order is named). The check is the engine's physical-move check, from the cauldron after the
   last accepted card, so a card applied over several commits is accepted when it is complete; meanwhile
   the change is shown as unexplained. A card that changes nothing is entered with the buttons.
3. When the cauldron shows a waiting potion that a card has just completed but nobody has taken out yet,
   the potion is announced with its cells; the card is accepted once they are out.

After as many cards as witches, the next round starts. The Cramés fill the 20-pixel ``crame`` bar; 20 lose,
the seventh potion wins (even if its card passes 20 Cramés, as the rules say).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from assistant.engines.chaudron import (
    CRAMES_TO_LOSE,
    POTIONS_TO_MAKE,
    Cauldron,
    Game,
    IllegalMove,
    Ingredient,
    Potion,
    Revealed,
    Verdict,
    check_move,
    concoct,
)
from assistant.stabilise import State
from assistant.table import Event, Response, SetupError, TableMode
from assistant.table.outputs import Choice, Outputs
from calibration.layout import Layout
from hardware.display.screens import Counter, Message
from hardware.leds.patterns import AMBER, BLUE, GREEN, RED, BarGraph, Flash, Pulse, Solid

from .setup import read_setup

TIMER = 3           # "Vous avez 3 tours pour concocter chacune de vos Potions"
ANY, NO_CHANGE = "any", "no-change"
START_PIECES = {"bone": 2, "root": 2, "fluid": 2, "fire": 1, "poison": 1}


def _cells(cells) -> str:
    return " ".join(f"r{r}c{c}" for r, c in cells)


def _changes(before: Cauldron, after: Cauldron) -> str:
    return ", ".join(f"{before.name(i)} {a}->{b}" for i, (a, b) in enumerate(zip(before.cells, after.cells,
                                                                                strict=True)) if a != b)


def _taken_out(before: Cauldron, after: Cauldron, potion: Potion):
    """``(after, how)`` when ``after`` is ``before`` with exactly the cells of one way of concocting
    ``potion`` taken out (the players chose other cells than the engine would), else None."""
    removed = [i for i, (a, b) in enumerate(zip(before.cells, after.cells, strict=True)) if a != b]
    if not removed or any(after.cells[i] != "empty" for i in removed):
        return None
    only = before.with_cells({divmod(i, before.cols): "empty" for i in range(len(before.cells)) if i not in removed})
    done = concoct(only, potion)
    if done is None or set(done[1].removed) != {divmod(i, before.cols) for i in removed}:
        return None
    return after, done[1]


class ChaudronTable(TableMode):
    game = "chaudron"
    card_mats = ("chaudron-potions",)

    def __init__(self, layout: Layout, setup: Mapping[str, Any] | None = None, source: str = "setup"):
        super().__init__(layout, setup, source)
        self.cfg = read_setup(layout, self.setup, source)
        self.known = self.cfg.potions is not None
        self.cards = tuple(self.cfg.deck.ingredients)
        self.state: Game | None = None
        self.seen: Cauldron | None = None
        self.phase = "throw"       # throw, reveal (a potion to name), settle (the table to match), play, over
        self.settle: tuple[Callable[[Cauldron | None], tuple[Game, list[str]]], str] | None = None
        self.played = 0            # cards accepted this round
        self.reveal_kind = "round"  # the potion awaited: step 1 of a round, or "mid" (none left waiting)
        self.card: Ingredient | None = None
        self.choice: Choice | None = None
        self.verdict: tuple[str, str, str] | None = None   # (LED, title, text) of the last change seen
        self.out = Outputs()

    @property
    def over(self) -> bool:
        return self.phase == "over"

    # -- the contract ---------------------------------------------------------------------------------

    def start(self) -> Response:
        if self.cfg.start is not None:
            return self._respond(self._begin(self.cfg.start))
        return self._respond([], Message("Le Chaudron Magique", "Throw 2 bones, 2 roots, 2 fluids, a fire crystal "
                                         "and a poison seed into the cauldron", "info"))

    def on_commit(self, state: State, previous: State | None) -> Response:
        seen = self.cfg.cauldron(state)
        self.seen = seen
        if self.state is None:
            return self._respond(self._begin(seen))
        if self.phase == "settle":
            return self._respond(self._try_settle(seen))
        if self.phase == "play":
            return self._respond(self._card_seen(seen))
        return self._respond([])

    def on_command(self, command: str) -> Response:
        if self.phase in ("throw", "over") or command not in ("next", "back", "confirm"):
            return Response()  # the game wheel selects the game: not this mode's business
        if self.choice is None:
            if self.phase == "reveal":
                self._ask_potion()
            elif self.phase == "play":
                self._ask_card(1 if command == "next" else -1 if command == "back" else 0)
            return self._respond([])
        if command != "confirm":
            self.choice = self.choice.moved(1 if command == "next" else -1)
            return self._respond([])
        choice, self.choice = self.choice, None
        if choice.kind == "potion":
            return self.reveal_potion(choice.value)
        return self._respond(self._card_chosen(choice.value))

    def reveal_potion(self, card_id: str) -> Response:
        """The potion card just revealed (from the buttons now, from the card camera later)."""
        try:
            potion = self.cfg.deck.potion(card_id)
        except KeyError:
            raise SetupError(f"{self.source}: potion: no potion {card_id!r} in the deck") from None
        if self.known or self.phase != "reveal":
            latest = self.state.revealed[-1].potion.id if self.state and self.state.revealed else None
            if latest == card_id:
                return Response()
            return self._respond([Event("illegal", f"{potion.name} revealed, but no potion is due "
                                        + (f"(the last one revealed is {latest})" if latest else "now"), False,
                                        {"potion": card_id})])
        if any(p.id == card_id for p in self._seen_potions()):
            return self._respond([Event("illegal", f"{potion.name} was revealed already", False,
                                        {"potion": card_id})])
        self.choice = None
        return self._respond(self._reveal(potion))

    def on_cards(self, mat: str, labels: Mapping[str, str]) -> Response:
        """The potion mat (layout ``chaudron-potions``) read by the live loop: see :meth:`on_potion_cards`."""
        return self.on_potion_cards(labels)

    def on_potion_cards(self, labels: Mapping[str, str]) -> Response:
        """What the card zones of the potion mat read (zone -> card id, ``empty`` or ``unknown``; layout
        ``chaudron-potions``): a potion card that was not there before is the one just revealed. Cards
        already seen are the potions of the game so far; several new ones at once are taken in the mat's
        order (potion-1, potion-2...), as the players lay them out."""
        def order(zone: str) -> tuple[int, str]:
            tail = zone.rsplit("-", 1)[-1]
            return (int(tail) if tail.isdigit() else 0, zone)

        seen = {p.id for p in self._seen_potions()}
        out = Response()
        for zone in sorted(labels, key=order):
            card = labels[zone]
            if card in ("empty", "unknown") or card in seen:
                continue
            seen.add(card)
            try:
                self.cfg.deck.potion(card)
            except KeyError:
                out += Response((Event("reading", f"{zone} shows {card!r}, not a potion of deck {self.cfg.deck.name}",
                                       data={"zone": zone, "card": card}),))
                continue
            out += self.reveal_potion(card)
        return out

    # -- the start and the reveals ----------------------------------------------------------------------

    def _begin(self, start: Cauldron) -> list[Event]:
        self.state = Game.new(start, self.cfg.potions or (), self.cfg.players)
        self.seen = self.seen or start
        events = [Event("start", f"{self.cfg.players} witches, deck {self.cfg.deck.name}: the cauldron is set",
                        data={"players": self.cfg.players, "cauldron": str(start).splitlines()})]
        counts = {label: start.count(label) for label in START_PIECES}
        if counts != START_PIECES:
            events.append(Event("setup", "the throw should hold 2 bones, 2 roots, 2 fluids, 1 fire crystal and 1 "
                                         f"poison seed; the cauldron has {counts}", False, {"counts": counts}))
        return events + self._round()

    def _round(self) -> list[Event]:
        self.played, self.reveal_kind = 0, "round"
        if self.known or len(self._seen_potions()) >= POTIONS_TO_MAKE:
            return self._reveal(None)  # the engine knows the top potion, or none is left: only the timers
        self.phase = "reveal"
        self._ask_potion()
        return []

    def _reveal(self, potion: Potion | None) -> list[Event]:
        """Reveal a potion: the top of the deck, or ``potion`` when the players named it."""
        if potion is not None and self.reveal_kind == "mid":
            return self._settle(lambda after: self._reveal_now(potion, after), f"reveal {potion.name}")
        base = self.state if potion is None else replace(self.state, deck=(potion, *self.state.deck))
        return self._settle(lambda after: self._fix(base.reveal(after)), "the reveal")

    def _reveal_now(self, potion: Potion, after: Cauldron | None) -> tuple[Game, list[str]]:
        """A potion revealed because none was left waiting: one cube, and concocted at once if it can be."""
        g = self.state
        done = concoct(g.cauldron, potion)
        if done is None:
            return replace(g, revealed=(Revealed(potion, 1),)), [f"revealed {potion.name}"]
        cauldron, how = done
        if after is not None and after != cauldron:
            other = _taken_out(g.cauldron, after, potion)  # the players may take any cells that make it
            if other is None:
                raise IllegalMove(f"take {_cells(how.removed)} out of the cauldron for {potion.name}")
            cauldron, how = other
        made = (*g.made, potion)
        return replace(g, cauldron=cauldron, made=made, status=self._status(made, cauldron)), [
            f"revealed {potion.name}", f"concocted {potion.name}"]

    def _settle(self, step: Callable[[Cauldron | None], tuple[Game, list[str]]], what: str) -> list[Event]:
        """Play a reveal; if the engine's way of doing it changes the cauldron, wait for the table to match."""
        try:
            g, notes = step(None)
        except IllegalMove as e:  # the engine's own choice cannot fail; kept for a deck that contradicts it
            return [Event("illegal", f"{what}: {e}", False)]
        if g.cauldron == self.seen:
            return self._settled(g, notes)
        self.phase, self.settle = "settle", (step, "; ".join(notes) + ": " + _changes(self.state.cauldron,
                                                                                      g.cauldron))
        return [Event("wait", f"{'; '.join(notes)}: the cauldron must change ({_changes(self.seen, g.cauldron)})",
                      data={"notes": notes, "expected": str(g.cauldron).splitlines()})]

    def _try_settle(self, seen: Cauldron) -> list[Event]:
        step, _ = self.settle
        try:
            g, notes = step(seen)
        except IllegalMove:
            return []
        return self._settled(g, notes)

    def _settled(self, g: Game, notes: list[str]) -> list[Event]:
        self.state, self.settle, self.phase = g, None, "play"
        events = []
        for note in notes:
            kind = "forced" if note.startswith("forced") else "reveal" if note.startswith("revealed") else "potion"
            events.append(Event(kind, note, data={"round": g.round, "waiting": self._waiting()}))
        return events + self._after_change()

    def _fix(self, result: tuple[Game, list[str]]) -> tuple[Game, list[str]]:
        """With the potions named one by one, an empty deck does not mean every potion was made."""
        g, notes = result
        if not self.known and g.status == "won" and len(g.made) < POTIONS_TO_MAKE:
            g = replace(g, status="playing")
        return g, notes

    def _status(self, made, cauldron: Cauldron) -> str:
        if len(made) >= POTIONS_TO_MAKE:
            return "won"
        return "lost" if cauldron.burnt >= CRAMES_TO_LOSE else "playing"

    # -- the ingredient cards ----------------------------------------------------------------------------

    def _try(self, card: Ingredient, after: Cauldron) -> tuple[Game | None, Verdict]:
        g = self.state
        if self.known:
            g2, verdict = g.play_seen(card, after)
            return (g2 if verdict.legal else None), verdict
        # The rest of the deck is unknown: the engine must not reveal from it nor call the game won.
        verdict = check_move(g.cauldron, after, card, [r.potion for r in g.revealed], None)
        if not verdict.legal:
            return None, verdict
        res = verdict.resolution
        made = (*g.made, *(c.potion for c in res.concocted))
        revealed = tuple(g.revealed[i] for i in res.still_revealed)
        return replace(g, cauldron=res.cauldron, revealed=revealed, made=made,
                       status=self._status(made, res.cauldron)), verdict

    def _card_seen(self, seen: Cauldron) -> list[Event]:
        g = self.state
        if seen == g.cauldron:
            self.verdict = None
            return []
        cards = (self.card,) if self.card else self.cards
        verdicts = []
        for card in cards:
            g2, verdict = self._try(card, seen)
            if g2 is not None:
                return self._accept(card, g2, verdict)
            verdicts.append(verdict)
        for r in g.revealed:  # a potion completed but not yet taken out of the cauldron?
            done = concoct(seen, r.potion)
            if done is None:
                continue
            emptied, how = done
            if any(self._try(card, emptied)[0] is not None for card in cards):
                text = f"{r.potion.name} is made: take {_cells(how.removed)} out of the cauldron"
                if self.verdict != ("ready", r.potion.name, text):
                    self.verdict = ("ready", r.potion.name, text)
                    return [Event("ready", text, data={"potion": r.potion.id, "cells": _cells(how.removed)})]
                return []
        reason = (verdicts[0].reason if self.card else
                  f"no ingredient card of the deck explains this change ({_changes(g.cauldron, seen)})")
        title = f"{self.card.name}?" if self.card else "Unexplained change"
        if self.verdict == ("illegal", title, reason):
            return []
        self.verdict = ("illegal", title, reason)
        return [Event("illegal", reason, False, {"card": self.card.id if self.card else None,
                                                 "changes": _changes(g.cauldron, seen)})]

    def _accept(self, card: Ingredient, g2: Game, verdict: Verdict) -> list[Event]:
        res, chosen = verdict.resolution, self.card is not None
        self.state, self.card, self.played = g2, None, self.played + 1
        burnt = f"{res.burnt} Cramé{'s' if res.burnt > 1 else ''}" if res.burnt else "no Cramé"
        text = f"{card.name}{'' if chosen else ' (found by the table)'}: {burnt}"
        self.verdict = ("legal", card.name, text)
        events = [Event("card", text, True, {"card": card.id, "chosen": chosen, "burnt": res.burnt,
                                             "cramés": g2.burnt, "round": g2.round, "steps": list(res.steps)})]
        for c in res.concocted:
            events.append(Event("potion", f"concocted {c.potion.name}: emptied {_cells(c.removed)}",
                                data={"potion": c.potion.id, "cells": _cells(c.removed)}))
        for p in res.revealed:
            events.append(Event("reveal", f"revealed {p.name}", data={"potion": p.id, "waiting": self._waiting()}))
        return events + self._after_change()

    def _card_chosen(self, value: Any) -> list[Event]:
        if value == NO_CHANGE:
            g = self.state
            for card in (self.card,) if self.card else self.cards:
                g2, verdict = self._try(card, g.cauldron)
                if g2 is not None:
                    return self._accept(card, g2, verdict)
            name = self.card.name if self.card else "no card of the deck"
            self.verdict = ("illegal", "No change?", f"{name} cannot leave the cauldron as it is")
            return [Event("illegal", self.verdict[2], False, {"card": self.card.id if self.card else None})]
        self.card = None if value == ANY else value
        if self.seen is not None and self.seen != self.state.cauldron:
            self.verdict = None
            return self._card_seen(self.seen)  # the change already on the table, checked with that card
        return []

    def _after_change(self) -> list[Event]:
        g = self.state
        if g.status == "won":
            self.phase = "over"
            return [Event("won", f"all {POTIONS_TO_MAKE} potions are made: the witches win",
                          data={"cramés": g.burnt, "round": g.round})]
        if g.status == "lost":
            self.phase = "over"
            return [Event("lost", f"the cauldron holds {g.burnt} Cramés: it explodes, the witches lose",
                          data={"cramés": g.burnt, "round": g.round})]
        if self.phase != "play":
            return []
        if not g.revealed and not self.known:
            # A potion was made and none is left waiting: the next one is revealed at once, with one cube.
            self.phase, self.reveal_kind = "reveal", "mid"
            self._ask_potion()
            return []
        if self.played >= self.cfg.players:
            return self._round()
        return []

    # -- menus ----------------------------------------------------------------------------------------

    def _seen_potions(self) -> list[Potion]:
        g = self.state
        return [*g.made, *(r.potion for r in g.revealed)] if g else []

    def _ask_potion(self) -> None:
        seen = {p.id for p in self._seen_potions()}
        potions = [p for p in self.cfg.deck.potions if p.id not in seen]
        self.choice = Choice("potion", "Potion revealed?", tuple(p.name for p in potions),
                             tuple(p.id for p in potions))

    def _ask_card(self, step: int) -> None:
        items = [("Any card", ANY), *((c.name, c) for c in self.cards), ("Played: no change", NO_CHANGE)]
        values = tuple(v for _, v in items)
        selected = values.index(self.card) if self.card in values else 0
        self.choice = Choice("card", "Card played?", tuple(n for n, _ in items), values, selected).moved(step)

    def _waiting(self) -> dict[str, int]:
        return {r.potion.id: r.cubes for r in self.state.revealed}

    # -- answering ------------------------------------------------------------------------------------

    def _leds(self) -> dict[str, Any]:
        g = self.state
        burnt = g.burnt if g else (self.seen.burnt if self.seen else 0)
        leds: dict[str, Any] = {"crame": BarGraph(burnt, CRAMES_TO_LOSE, (GREEN, RED))}
        if self.phase == "over":
            leds["status"] = Solid(GREEN) if g.status == "won" else Flash(RED)
        elif self.phase in ("reveal", "settle") or self.choice:
            leds["status"] = Solid(AMBER)
        else:
            leds["status"] = Pulse(BLUE)
        verdict = self.verdict[0] if self.verdict else None
        leds["cauldron-1"] = {"legal": Solid(GREEN), "illegal": Flash(RED), "ready": Pulse(AMBER)}.get(
            verdict, Pulse(AMBER) if self.phase == "settle" else None)
        return leds

    def _standing(self) -> Any:
        g = self.state
        if self.choice is not None:
            return self.choice.screen()
        if self.phase == "over":
            if g.status == "won":
                return Message("The witches win", f"All {POTIONS_TO_MAKE} potions made, {g.burnt} Cramés", "ok")
            return Message("Cauldron exploded", f"{g.burnt} Cramés: the witches lose", "error")
        if self.phase == "settle":
            return Message("Do it on the table", self.settle[1], "warn")
        if self.verdict is not None:
            kind, title, text = self.verdict
            return Message(title, text, {"legal": "ok", "illegal": "error", "ready": "warn"}[kind])
        if g is None:
            return None
        return Counter(f"Cramés, round {g.round}", g.burnt, CRAMES_TO_LOSE)

    def _respond(self, events: list[Event], screen: Any = None) -> Response:
        if screen is None:
            screen = self._standing()
            waiting = self._timers()
            if isinstance(screen, Message) and screen.tone == "ok" and waiting and self.phase != "over":
                screen = replace(screen, text=f"{screen.text}. Waiting: {waiting}")
        leds, screen = self.out.changes(self._leds(), screen)
        return Response(tuple(events), leds, screen)

    def _timers(self) -> str:
        if self.state is None:
            return ""
        return ", ".join(f"{r.potion.name} {r.cubes}/{TIMER}" for r in self.state.revealed)
