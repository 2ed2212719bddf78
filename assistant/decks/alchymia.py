"""Alchymia decks: crystal structures and potion cards read from a TOML file.

The format is documented in ``docs/decks-alchymia.md``; ``data/alchymia-sample.toml`` is an illustrative
sample deck (not the publisher's cards). Errors read ``FILE: card NAME: what is wrong``.

>>> deck = load_deck()
>>> len(deck.potions), [len(stack) for stack in deck.crystals]
(55, [5, 5, 5, 5, 5])
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from assistant.engines.alchymia import ELEMENTS, AlchymiaError, Board, CrystalCard, Deck, Element, PotionCard
from calibration import files

SAMPLE = "alchymia-sample"


class DeckError(ValueError):
    """A deck file that cannot be used; the message reads ``FILE: card NAME: what is wrong``."""


def deck_path(name_or_path: str | Path = SAMPLE) -> Path:
    """``alchymia-sample`` (the sample shipped with the package) or a path to a ``.toml`` file."""
    if str(name_or_path) == SAMPLE:
        return Path(str(resources.files("assistant.decks") / "data" / f"{SAMPLE}.toml"))
    path = Path(name_or_path)
    if not path.is_file():
        raise DeckError(f"{path}: no such deck file (or give {SAMPLE} for the sample deck)")
    return path


def load_deck(name_or_path: str | Path = SAMPLE) -> Deck:
    path = deck_path(name_or_path)
    data = files.load_toml(path, DeckError)
    return parse_deck(data, str(path))


def load_deck_for(name_or_path: str | Path, rows: int, cols: int) -> Deck:
    """``load_deck``, for boards of ``rows`` x ``cols``: a deck drawn for other boards is an error."""
    deck = load_deck(name_or_path)
    if (deck.rows, deck.cols) != (rows, cols):
        raise DeckError(f"its crystals are {deck.rows} x {deck.cols}, the layout's boards are {rows} x {cols}")
    return deck


def parse_deck(data: dict[str, Any], source: str = "<deck>") -> Deck:
    """Build a Deck from the TOML data; raises DeckError naming ``source``, the card and the problem."""
    head = data.get("deck", {})
    if not isinstance(head, dict):
        raise DeckError(f"{source}: deck: expected a table with rows and cols")
    rows, cols = head.get("rows", 3), head.get("cols", 3)
    for key, value in (("rows", rows), ("cols", cols)):
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 9:
            raise DeckError(f"{source}: deck: {key}: expected a whole number from 1 to 9, got {value!r}")
    raw_crystals = data.get("crystal", [])
    if not isinstance(raw_crystals, list) or not raw_crystals:
        raise DeckError(f"{source}: crystal: expected [[crystal]] tables, one per crystal card")
    stacks: dict[Element, list[CrystalCard]] = {e: [] for e in ELEMENTS}
    for i, raw in enumerate(raw_crystals):
        card = _crystal(raw, i, rows, cols, source)
        for other in stacks[card.element]:
            if card.structure.matches(other.structure):
                raise DeckError(f"{source}: card {card.name}: same structure as {other.name} (up to a rotation)"
                                f" in the {card.element} stack")
        stacks[card.element].append(card)
    empty = [e.value for e in ELEMENTS if not stacks[e]]
    if empty:
        raise DeckError(f"{source}: crystal: no card for the {empty[0]} element")
    raw_potions = data.get("potions")
    if not isinstance(raw_potions, dict) or not raw_potions:
        raise DeckError(f'{source}: potions: expected a [potions] table of NAME = "LETTERS" (e.g. p01 = "GGY")')
    potions = []
    for name, letters in raw_potions.items():
        if not isinstance(letters, str):
            raise DeckError(f"{source}: card {name}: expected a string of potion letters, got {letters!r}")
        try:
            potions.append(PotionCard(name, letters))
        except AlchymiaError as e:
            raise DeckError(f"{source}: card {name}: {_without_card(e)}") from None
    try:
        return Deck(rows, cols, tuple(tuple(stacks[e]) for e in ELEMENTS), tuple(potions))
    except AlchymiaError as e:
        raise DeckError(f"{source}: {e}") from None


def _crystal(raw: Any, i: int, rows: int, cols: int, source: str) -> CrystalCard:
    if not isinstance(raw, dict):
        raise DeckError(f"{source}: crystal {i + 1}: expected a table with name, element and structure")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise DeckError(f"{source}: crystal {i + 1}: name: expected a card name")
    where = f"{source}: card {name}"
    element = raw.get("element")
    try:
        element = Element(element)
    except ValueError:
        raise DeckError(f"{where}: element: expected one of {', '.join(e.value for e in ELEMENTS)}, "
                        f"got {element!r}") from None
    structure = raw.get("structure")
    if not isinstance(structure, list) or not all(isinstance(row, str) for row in structure):
        raise DeckError(f'{where}: structure: expected a list of rows of letters, e.g. ["G..", ".W.", "..R"]')
    if len(structure) != rows:
        raise DeckError(f"{where}: structure: {len(structure)} rows, the deck's boards have {rows}")
    for r, row in enumerate(structure):
        if len(row.replace(" ", "")) != cols:
            raise DeckError(f"{where}: structure: row {r + 1} has {len(row.replace(' ', ''))} positions, "
                            f"expected {cols}")
    try:
        return CrystalCard(name, element, Board.parse("\n".join(structure)))
    except AlchymiaError as e:
        raise DeckError(f"{where}: structure: {_without_card(e)}") from None


def _without_card(error: AlchymiaError) -> str:
    text = str(error)
    return text.split(": ", 1)[1] if text.startswith(("potion card ", "crystal card ")) else text


def ordered_stacks(deck: Deck, raw: dict[str, Any], source: str, *, error: type[ValueError],
                   players: list[str] | None = None, partial: bool = False) -> Deck:
    """The deck with its crystal stacks ordered as a record or a set-up says: ``seed`` (shuffled as
    ``Game.new`` shuffles them, for these ``players``) or ``crystals`` (element -> card names, top first);
    else the deck's own order. With ``partial`` a stack may list only its first cards, the rest following in
    the deck's order (a table set-up); otherwise every card of the stack is listed once (a record)."""
    from assistant.engines.alchymia import Game

    if "seed" in raw and "crystals" in raw:
        raise error(f"{source}: seed: give the crystal stacks either by seed or by crystals, not both")
    if "seed" in raw:
        seed = raw["seed"]
        if not isinstance(seed, int | str) or isinstance(seed, bool):
            raise error(f"{source}: seed: expected a number or a string")
        stacks = Game.new(deck, players or ["a", "b"], seed).table.stacks
        return Deck(deck.rows, deck.cols, stacks, deck.potions)
    order = raw.get("crystals")
    if order is None:
        return deck
    if not isinstance(order, dict):
        raise error(f"{source}: crystals: expected an object of element -> card names, top first")
    stacks = list(deck.crystals)
    for key, names in order.items():
        try:
            element = Element(key)
        except ValueError:
            raise error(f"{source}: crystals.{key}: not an element ({', '.join(e.value for e in ELEMENTS)})") \
                from None
        stack = deck.stack(element)
        by_name = {card.name: card for card in stack}
        if partial:
            if (not isinstance(names, list) or any(n not in by_name for n in names)
                    or len(set(names)) != len(names)):
                raise error(f"{source}: crystals.{key}: expected {key} card names of the deck, top first "
                            f"({', '.join(by_name)})")
            stacks[ELEMENTS.index(element)] = (*(by_name[n] for n in names),
                                               *(c for c in stack if c.name not in names))
        else:
            if not isinstance(names, list) or sorted(map(str, names)) != sorted(by_name):
                raise error(f"{source}: crystals.{key}: expected every {key} card of the deck once "
                            f"({', '.join(sorted(by_name))})")
            stacks[ELEMENTS.index(element)] = tuple(by_name[n] for n in names)
    return Deck(deck.rows, deck.cols, tuple(stacks), deck.potions)
