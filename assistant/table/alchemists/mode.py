"""The Alchemists table mode: two ingredient cards in the scan area, the app's answer on the LEDs and display.

The action is chosen with the buttons before the cards are shown (the companion app's menu): ``next`` or
``back`` opens the menu and moves in it, ``confirm`` chooses. The default action is a test on a student:
two cards shown give the potion. A sale, an exhibit and a debunk ask their questions (the potion the
adventurer wants, the promise, the discount...) one menu after the other, then read the cards. Once the
cards are taken away the table goes back to testing.

What is shown is what the app shows to the table, never more: the potion of a test, a drink or a master
demonstration; only the quality class of a sale; only success or failure of an exhibit; the sign of one
aspect for an apprentice debunk. The assignment itself appears (in an event and on the display) only when
the players choose "Reveal answers" and confirm it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assistant.engines import alchemists as al
from assistant.engines.alchemists.master import STUDENT_NOTE
from assistant.stabilise import State
from assistant.table import Event, Response, SetupError, TableMode
from hardware.display.screens import Menu, Message, Scores
from hardware.leds.patterns import BLUE, GREEN, RED, WHITE, Flash, Pulse, Solid

from .setup import parse_setup

CARDS = ("card-left", "card-right")
EMPTY = "empty"
GROUPS = ("status", *(f"cauldron-{n}" for n in range(1, 11)))  # the pixels that show the potion
LIGHT = {al.Colour.RED: RED, al.Colour.GREEN: GREEN, al.Colour.BLUE: BLUE}

ACTIONS = {"test": "Test on a student", "drink": "Drink it", "sell": "Sell a potion",
           "debunk": "Debunk a theory", "exhibit": "Exhibit (final)", "reveal": "Reveal answers"}
COLOURED = tuple(p for p in al.POTIONS if not p.neutral)


def potion_light(potion: al.Potion):
    """Colour and sign as a pattern: solid for +, flashing for -, a white pulse for neutral."""
    if potion.neutral:
        return Pulse(WHITE)
    return Solid(LIGHT[potion.colour]) if potion.sign > 0 else Flash(LIGHT[potion.colour], 0.5)


@dataclass
class _Flow:
    """A menu under way: the action, its questions still to ask, the answers so far, the open menu."""

    action: str
    questions: list[tuple[str, str, list[tuple[Any, str]]]]
    answers: dict[str, Any] = field(default_factory=dict)
    selected: int = 0

    @property
    def menu(self) -> Menu:
        _, title, items = self.questions[0]
        return Menu(title, tuple(text for _, text in items), self.selected)


class AlchemistsTable(TableMode):
    """Alchemists: the app's answers for the scan area's two cards, actions chosen with the buttons."""

    game = "alchemists"

    def __init__(self, layout, setup=None, source: str = "setup"):
        super().__init__(layout, setup, source)
        config = parse_setup(self.setup, source)
        self._assignment = config.assignment
        self.mode = config.mode
        self.theories = {t.ingredient: t for t in config.theories} if config.theories is not None else None
        self.setup = config.public  # the code never stays in the set-up: the journal may write it
        self.game_id = config.game_id
        missing = [z for z in CARDS if z not in {zone.id for zone in layout.zones}]
        if missing:
            raise SetupError(f"{source}: layout: {layout.name} has no zone {missing[0]} (the scan area)")
        self.action, self.answers = "test", {}
        self.flow: _Flow | None = None
        self.cards: tuple[str, ...] = ()
        self.answer_list: Menu | None = None   # the answers after the reveal, scrolled with the buttons
        self.revealed = False

    @property
    def over(self) -> bool:
        return self.revealed

    # the contract ----------------------------------------------------------------------------------
    def start(self) -> Response:
        return Response((Event("start", f"Alchemists ({self.mode} mode)", data={"mode": self.mode}),),
                        self._lights(None), self._prompt())

    def on_commit(self, state: State, previous: State | None) -> Response:
        labels = state.labels()
        shown = tuple(labels.get(z, EMPTY) for z in CARDS)
        bad = [label for label in shown if label != EMPTY and label not in al.INGREDIENTS]
        if bad:
            return Response((Event("reading", f"the scan area shows {bad[0]!r}, not an ingredient card"),),
                            {"status": Flash(WHITE, 0.5)}, Message("Not an ingredient", bad[0], "warn"))
        cards = tuple(label for label in shown if label != EMPTY)
        if cards == self.cards:
            return Response()
        self.cards = cards
        if len(cards) < 2:
            if self.flow is None and self.action != "test" and self.answers.get("done"):
                self.action, self.answers = "test", {}  # one sale, drink, debunk or exhibit per showing
            if self.flow is not None:
                return Response(leds=self._lights(None))
            text = "Show the second card" if cards else None
            return Response(leds=self._lights(None), screen=self._prompt(text))
        if self.flow is not None:
            return Response()  # the answer waits until the menu is done
        return self._resolve()

    def on_command(self, command: str) -> Response:
        if command not in ("next", "back", "confirm"):
            return Response()
        step = 1 if command == "next" else -1
        if self.answer_list is not None:
            return self._scroll(step) if command != "confirm" else self._close_answers()
        if self.flow is None:
            if command == "confirm":
                return Response(screen=self._prompt())
            actions = list(ACTIONS)
            self.flow = _Flow("", [("action", "Action", [(a, ACTIONS[a]) for a in actions])],
                              selected=actions.index(self.action))
            return Response(screen=self.flow.menu)
        flow = self.flow
        items = flow.questions[0][2]
        if command != "confirm":
            flow.selected = (flow.selected + step) % len(items)
            return Response(screen=flow.menu)
        key = flow.questions[0][0]
        value = items[flow.selected][0]
        flow.questions.pop(0)
        flow.selected = 0
        if key == "action":
            flow.action = value
            flow.questions = self._questions(value)
        else:
            flow.answers[key] = value
        if flow.questions:
            return Response(screen=flow.menu)
        return self._arm(flow)

    # actions ---------------------------------------------------------------------------------------
    def _questions(self, action: str) -> list[tuple[str, str, list[tuple[Any, str]]]]:
        potions = [(p, f"{p} {p.effect}") for p in COLOURED]
        if action == "sell":
            return [("wanted", "Adventurer wants", potions),
                    ("promise", "Quality promised", [(q, f"{q} ({q.price} gold)") for q in al.Quality]),
                    ("discount", "Discount", [(0, "no discount"), *((d, f"-{d} gold") for d in (1, 2, 3))])]
        if action == "debunk" and self.mode == al.APPRENTICE:
            return [("ingredient", "Ingredient", [(i, i) for i in al.INGREDIENTS]),
                    ("colour", "Aspect", [(c, c.value) for c in al.COLOURS])]
        if action == "exhibit":
            return [("promised", "Potion promised", potions)]
        if action == "reveal":
            return [("sure", "Reveal answers?", [(False, "No, go back"), (True, "Yes, reveal all")])]
        return []

    def _arm(self, flow: _Flow) -> Response:
        self.flow = None
        self.action, self.answers = flow.action, flow.answers
        if flow.action == "reveal":
            if flow.answers["sure"]:
                return self._reveal()
            self.action, self.answers = "test", {}
            return Response(screen=self._prompt())
        if flow.action == "debunk" and self.mode == al.APPRENTICE:
            return self._debunk_aspect()
        if len(self.cards) == 2:
            return self._resolve()
        return Response(leds=self._lights(None), screen=self._prompt())

    def _resolve(self) -> Response:
        """The answer for the two cards on the scan area, under the armed action."""
        first, second = self.cards
        self.answers["done"] = True
        pair = {"ingredients": [first, second]}
        try:
            potion = al.brew(self._assignment, first, second)
        except al.AlchemistsError as e:
            return Response((Event("mix", str(e), False, pair),), {"status": Flash(RED, 0.5)},
                            Message("Not a potion", str(e), "error"))
        if self.action == "sell":
            return self._sell(potion, pair)
        if self.action == "exhibit":
            return self._exhibit(potion, pair)
        if self.action == "debunk":
            return self._demonstrate(first, second, pair)
        title = f"{potion}: {potion.effect}"
        text = f"{first} + {second}"
        if self.action == "drink":
            effect = al.drink_effect(potion)
            text += f". You drank it: {effect or 'no effect'}"
            data = {**pair, "potion": str(potion), "effect": effect}
            event = Event("drink", f"{first} + {second}: {potion} ({potion.effect}), drunk", data=data)
        else:
            if potion.sign < 0:
                text += f". {STUDENT_NOTE[2:].capitalize()}"
            event = Event("potion", f"{first} + {second}: {potion} ({potion.effect})",
                          data={**pair, "potion": str(potion)})
        tone = "info" if potion.neutral else "ok" if potion.sign > 0 else "warn"
        return Response((event,), self._lights(potion_light(potion)), Message(title, text, tone))

    def _sell(self, potion: al.Potion, pair: dict) -> Response:
        wanted, promise, discount = self.answers["wanted"], self.answers["promise"], self.answers["discount"]
        try:
            sale = al.sell(potion, wanted, promise, discount)
        except al.AlchemistsError as e:  # a promise that would pay nothing
            return Response((Event("sale", str(e), False, pair),), {"status": Flash(RED, 0.5)},
                            Message("Sale refused", str(e), "error"))
        paid = f"promise kept: {sale.coins} gold" if sale.kept else "promise not kept: no gold"
        if sale.reputation:
            paid += f", {sale.reputation} reputation"
        data = {**pair, "wanted": str(wanted), "promise": str(promise), "discount": discount,
                "reached": str(sale.reached), "kept": sale.kept, "coins": sale.coins, "reputation": sale.reputation}
        event = Event("sale", f"sale of {wanted}: quality {sale.reached}; {paid}", data=data)
        light = Solid(GREEN) if sale.kept else Flash(RED, 0.5)  # never the potion's colour: it stays unknown
        return Response((event,), self._lights(light),
                        Message(f"Sale: {sale.reached}", paid, "ok" if sale.kept else "error"))

    def _exhibit(self, potion: al.Potion, pair: dict) -> Response:
        promised = self.answers["promised"]
        success = al.exhibit(self._assignment, *self.cards, promised).success
        text = "success: the potion promised" if success else "failure: lose 1 reputation point"
        event = Event("exhibit", f"exhibit of {promised}: {text}",
                      data={**pair, "promised": str(promised), "success": success})
        return Response((event,), self._lights(Solid(GREEN) if success else Flash(RED, 0.5)),
                        Message(f"Exhibit {promised}", text, "ok" if success else "error"))

    def _demonstrate(self, first: str, second: str, pair: dict) -> Response:
        theories = {i: self.theories[i].alchemical for i in (first, second) if self.theories and i in self.theories}
        shown = al.demonstrate(self._assignment, first, second, theories)
        data = {**pair, "potion": str(shown.potion)}
        text = f"{first} + {second}: {shown.potion} ({shown.potion.effect})"
        if theories:
            verdict = (f"debunks {', '.join(shown.debunked)}" if shown.debunked
                       else "the two theories conflict" if shown.conflict else "debunks nothing")
            text += f"; {verdict}: {shown.reputation:+d} reputation"
            data |= {"debunked": list(shown.debunked), "conflict": shown.conflict, "reputation": shown.reputation}
        return Response((Event("demonstration", text, data=data),), self._lights(potion_light(shown.potion)),
                        Message(f"Demonstration: {shown.potion}", text, "info"))

    def _debunk_aspect(self) -> Response:
        ingredient, colour = self.answers["ingredient"], self.answers["colour"]
        theory = self.theories.get(ingredient) if self.theories else None
        shown = al.debunk_aspect(self._assignment, ingredient, colour, theory.alchemical if theory else None)
        sign = "+" if shown.sign > 0 else "-"
        text = f"{ingredient}: the {colour} aspect is {sign}"
        data = {"ingredient": ingredient, "colour": colour.value, "sign": sign}
        if shown.debunked is not None:
            text += f"; the theory is {'debunked' if shown.debunked else 'not debunked'} ({shown.reputation:+d})"
            data |= {"debunked": shown.debunked, "reputation": shown.reputation}
        self.action, self.answers = "test", {}
        light = Solid(LIGHT[colour]) if shown.sign > 0 else Flash(LIGHT[colour], 0.5)
        return Response((Event("debunk", text, data=data),), self._lights(light),
                        Message(f"{ingredient}: {colour} {sign}", text, "info"))

    def _reveal(self) -> Response:
        self.revealed = True
        self.action, self.answers = "test", {}
        answers = self._assignment.as_dict()
        data: dict[str, Any] = {"assignment": answers}
        items = [f"{ingredient} {alchemical}" for ingredient, alchemical in answers.items()]
        if self.theories is not None:
            points = al.grand_reveal(self._assignment, self.theories.values()).points
            data["points"] = points
            items += [f"{player}: {p:+d} VP" for player, p in sorted(points.items(), key=lambda kv: -kv[1])]
        message = "the answers: " + ", ".join(items[:len(answers)])
        self.answer_list = Menu("The answers", tuple(items), 0)
        return Response((Event("reveal", message, data=data),), self._lights(Pulse(WHITE)), self.answer_list)

    def _scroll(self, step: int) -> Response:
        menu = self.answer_list
        self.answer_list = Menu(menu.title, menu.items, (menu.selected + step) % len(menu.items))
        return Response(screen=self.answer_list)

    def _close_answers(self) -> Response:
        self.answer_list = None
        if self.theories is None:
            return Response(screen=self._prompt())
        points = al.grand_reveal(self._assignment, self.theories.values()).points
        rows = tuple(sorted(points.items(), key=lambda kv: -kv[1]))
        return Response(screen=Scores("Theories: VP", rows, "the grand reveal"))

    # outputs ---------------------------------------------------------------------------------------
    def _lights(self, pattern) -> dict[str, Any]:
        leds: dict[str, Any] = dict.fromkeys(GROUPS, pattern)
        if pattern is None:
            leds["status"] = Solid(BLUE)
        return leds

    def _prompt(self, text: str | None = None) -> Message:
        a = self.answers
        if self.action == "sell":
            detail = f"wants {a['wanted']}, {a['promise']} promised, discount {a['discount']}"
        elif self.action == "exhibit":
            detail = f"{a['promised']} promised"
        else:
            detail = "Show two ingredient cards"
        return Message(ACTIONS[self.action], text or (detail if self.action in ("sell", "exhibit")
                                                      else f"{detail}. Next: other actions"))
