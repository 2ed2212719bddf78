"""Table modes: one per game, turning what is on the table into game events, verdicts and outputs.

A table mode is driven by the live loop (``assistant.live``), by ``replay`` and ``demo``, and directly by
the tests. It sees only *committed* states (``assistant.stabilise.State``: every slot zone's label and every
count zone's counts, never a hand) and button commands (``hardware.buttons.Command`` values), and answers
each with a :class:`Response`: the game events (for the journal and the log), the LED patterns to play per
named group of the LED map (``status``, ``cauldron-1``..``cauldron-10``, ``player-1``..``player-5``, the
20-pixel ``crame`` bar), and the screen to show.

The contract::

    mode = make_mode("chaudron", layout, setup)   # setup: the game's set-up as plain data (docs/table-*.md)
    mode.start()                                  # -> Response: the opening screen and LEDs
    mode.on_commit(state, previous)               # -> Response, for each committed state
    mode.on_command("confirm")                    # -> Response, for each button command
    mode.on_cards("chaudron-potions", labels)     # -> Response, when a card mat's reading changes

A card mat (``chaudron-potions``, ``alchymia-crystals``: docs/cards.md) lies in view beside the boards. The
live loop treats it as one more board (through the stabiliser and the journal like any other state), but
gives its committed readings (unprefixed zone -> card name, ``empty`` or ``unknown``) to ``on_cards``
instead of ``on_commit``. A mode says which card sets it reads from mats in ``card_mats``; a board whose
zones are all card places of those sets is a mat.

A mode is deterministic: the same calls in the same order give the same responses. That is how a game is
resumed after a power cut: the journal's committed states and commands are fed again to a fresh mode.
Events never carry secrets (the Alchemists assignment stays in its owner-only state file).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assistant.stabilise import State
from calibration.layout import Layout

MODES = {
    "alchimiste": "assistant.table.alchimiste:AlchimisteTable",
    "alchemists": "assistant.table.alchemists:AlchemistsTable",
    "alchymia": "assistant.table.alchymia:AlchymiaTable",
    "chaudron": "assistant.table.chaudron:ChaudronTable",
}


class SetupError(ValueError):
    """A game set-up that cannot be used; the message reads ``SOURCE: key: what is wrong``."""


@dataclass(frozen=True)
class Event:
    """Something that happened in the game, as the table saw it.

    ``kind`` is a short word (``create``, ``copy``, ``illegal``, ``cramé``, ``potion``, ``crystal``,
    ``mix``, ``end``...), ``message`` the sentence shown and logged, ``legal`` the verdict when the event is
    a player's action (None otherwise), ``data`` JSON-able facts for the journal and the tests.
    """

    kind: str
    message: str
    legal: bool | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.legal is not None:
            out["legal"] = self.legal
        if self.data:
            out["data"] = dict(self.data)
        return out


@dataclass(frozen=True)
class Response:
    """What the table answers: events, LED patterns by group (None stops a group), the screen (None keeps
    the one showing). Patterns are ``hardware.leds.patterns`` values, screens ``hardware.display.screens``."""

    events: tuple[Event, ...] = ()
    leds: Mapping[str, Any] = field(default_factory=dict)
    screen: Any = None

    def __add__(self, other: Response) -> Response:
        return Response(self.events + other.events, {**self.leds, **other.leds},
                        other.screen if other.screen is not None else self.screen)


class TableMode(ABC):
    """One game on the table. Subclasses keep their own game state (engine values) between calls."""

    game: ClassVar[str]
    card_mats: ClassVar[tuple[str, ...]] = ()
    """The card sets (``set`` of a layout's card zones) this mode reads from card mats beside its boards."""

    def __init__(self, layout: Layout, setup: Mapping[str, Any] | None = None, source: str = "setup"):
        self.layout = layout
        self.setup = dict(setup or {})
        self.source = source
        # What names this very game, when its set-up alone does not (Alchemists: the secret comes from the
        # state file): written in the journal's game record, and a resume must find the same again.
        self.game_id: str | None = None

    @abstractmethod
    def start(self) -> Response:
        """The opening screen and LEDs, before any state is committed."""

    @abstractmethod
    def on_commit(self, state: State, previous: State | None) -> Response:
        """A new committed state (``previous`` is the last one, None for the first)."""

    def on_command(self, command: str) -> Response:
        """A button command (``next``, ``back``, ``confirm``, ``game-next``, ``game-previous``)."""
        return Response()

    def on_cards(self, mat: str, labels: Mapping[str, str]) -> Response:
        """A card mat's new committed reading: ``mat`` is the mat's board name, ``labels`` its card zones
        (unprefixed) -> card name, ``empty`` or ``unknown``. The default ignores it."""
        return Response()

    @property
    def over(self) -> bool:
        """True once the game has ended (won, lost or scored)."""
        return False


def mode_class(game: str) -> type[TableMode]:
    """The table mode class of ``game`` (imported on demand)."""
    if game not in MODES:
        raise SetupError(f"game: expected one of {', '.join(MODES)}, got {game!r}")
    module, _, name = MODES[game].partition(":")
    return getattr(importlib.import_module(module), name)


def make_mode(game: str, layout: Layout, setup: Mapping[str, Any] | None = None,
              source: str = "setup") -> TableMode:
    """The table mode of ``game`` over ``layout``, set up from ``setup`` (errors raise SetupError)."""
    if game not in MODES:
        raise SetupError(f"{source}: game: expected one of {', '.join(MODES)}, got {game!r}")
    module, _, name = MODES[game].partition(":")
    return getattr(importlib.import_module(module), name)(layout, setup, source)
