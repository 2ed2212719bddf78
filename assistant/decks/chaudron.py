"""Le Chaudron Magique card decks, read from TOML (format: ``docs/decks-chaudron.md``).

>>> deck = load_deck("sample")
>>> len(deck.potions) >= 10, deck.ingredient("bone-meal").name
(True, 'Bone Meal')

Errors name the file, the card and the problem, e.g.
``deck.toml: ingredient 'ember' (#3): add[0].shape: unknown letter 'Z' in a drawn grid``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from assistant.engines.chaudron import RARITIES, Block, Ingredient, Potion
from calibration import files

SAMPLE = "sample"
_INGREDIENT_KEYS = {"id", "name", "count", "remove", "add", "remove_all", "or_suffer", "duplicate", "move",
                    "max_burnt", "text"}
_POTION_KEYS = {"id", "name", "rarity", "blocks", "text"}
_BLOCK_KEYS = {"shape", "at", "choice", "optional"}


class DeckError(ValueError):
    """A deck file that cannot be used; the message reads ``FILE: card: what is wrong``."""


@dataclass(frozen=True)
class Deck:
    name: str
    source: str
    potions: tuple[Potion, ...]
    ingredients: tuple[Ingredient, ...]
    counts: dict[str, int]                 # copies of each ingredient card in the pile

    def potion(self, card_id: str) -> Potion:
        for p in self.potions:
            if p.id == card_id:
                return p
        raise KeyError(card_id)

    def ingredient(self, card_id: str) -> Ingredient:
        for c in self.ingredients:
            if c.id == card_id:
                return c
        raise KeyError(card_id)

    def pile(self) -> list[Ingredient]:
        """The ingredient pile, every copy included, in file order (shuffle it yourself)."""
        return [c for c in self.ingredients for _ in range(self.counts[c.id])]


def deck_path(name_or_path: str | Path) -> Path:
    if str(name_or_path) == SAMPLE:
        return Path(str(resources.files("assistant.decks.data").joinpath("chaudron-sample.toml")))
    return Path(name_or_path)


def load_deck(name_or_path: str | Path = SAMPLE) -> Deck:
    """Read a deck: ``"sample"`` (the illustrative deck that ships) or a path to a TOML file."""
    path = deck_path(name_or_path)
    data = files.load_toml(path, DeckError)
    return parse_deck(data, str(path))


def parse_deck(data: dict[str, Any], source: str = "<deck>") -> Deck:
    unknown = set(data) - {"deck", "potion", "ingredient"}
    if unknown:
        raise DeckError(f"{source}: unknown key(s) {', '.join(sorted(unknown))} (expected deck, potion, ingredient)")
    meta = data.get("deck", {})
    if not isinstance(meta, dict):
        raise DeckError(f"{source}: deck: expected a table")
    potions = tuple(_card(source, "potion", i, raw, _potion) for i, raw in enumerate(_list(data, "potion", source)))
    pairs = [_card(source, "ingredient", i, raw, _ingredient)
             for i, raw in enumerate(_list(data, "ingredient", source))]
    if not potions and not pairs:
        raise DeckError(f"{source}: no cards: expected [[potion]] and [[ingredient]] tables")
    ids: set[str] = set()
    for kind, cards in (("potion", potions), ("ingredient", [c for c, _ in pairs])):
        for card in cards:
            if card.id in ids:
                raise DeckError(f"{source}: {kind} {card.id!r}: id used twice")
            ids.add(card.id)
    return Deck(str(meta.get("name", Path(source).stem)), source, potions, tuple(c for c, _ in pairs),
                {c.id: n for c, n in pairs})


def _list(data: dict, key: str, source: str) -> list:
    raw = data.get(key, [])
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        raise DeckError(f"{source}: {key}: expected [[{key}]] tables")
    return raw


def _card(source: str, kind: str, index: int, raw: dict, build):
    label = f"{kind} {raw.get('id')!r} (#{index + 1})" if "id" in raw else f"{kind} #{index + 1}"
    try:
        return build(raw)
    except (ValueError, TypeError) as e:
        raise DeckError(f"{source}: {label}: {e}") from None


def _text(raw: dict, key: str, default: str | None = None) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key}: expected a non-empty string")
    return value


def _int(raw: dict, key: str, default: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key}: expected a whole number, 0 or more, got {value!r}")
    return value


def _keys(raw: dict, allowed: set[str], where: str = "") -> None:
    unknown = set(raw) - allowed
    if unknown:
        raise ValueError(f"{where}unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(allowed))})")


def _blocks(raw: dict, key: str, required: bool = False) -> tuple[Block, ...]:
    items = raw.get(key, [])
    if not isinstance(items, list) or (required and not items):
        raise ValueError(f"{key}: expected a list of blocks" + (" (at least one)" if required else ""))
    out = []
    for i, item in enumerate(items):
        where = f"{key}[{i}]."
        if isinstance(item, str):
            item = {"shape": item}
        if not isinstance(item, dict):
            raise ValueError(f"{key}[{i}]: expected a table like {{ shape = \"BB\" }}")
        _keys(item, _BLOCK_KEYS, where)
        shape = item.get("shape")
        if isinstance(shape, list) and all(isinstance(row, str) for row in shape):
            shape = "\n".join(shape)
        if not isinstance(shape, str) or not shape.strip():
            raise ValueError(f"{where}shape: expected the block drawn as a string, e.g. \"BB\\n.R\"")
        at = item.get("at", [0, 0])
        if (not isinstance(at, list) or len(at) != 2 or not all(isinstance(v, int) and v >= 0 for v in at)):
            raise ValueError(f"{where}at: expected [row, col] on the card, 0 or more")
        choice = item.get("choice", [])
        if not isinstance(choice, list) or not all(isinstance(c, str) for c in choice):
            raise ValueError(f"{where}choice: expected a list of resources")
        optional = item.get("optional", False)
        if not isinstance(optional, bool):
            raise ValueError(f"{where}optional: expected true or false")
        try:
            out.append(Block.parse(shape, at=tuple(at), choice=tuple(choice), optional=optional))
        except ValueError as e:
            raise ValueError(f"{where}shape: {e}") from None
    return tuple(out)


def _potion(raw: dict) -> Potion:
    _keys(raw, _POTION_KEYS)
    rarity = _text(raw, "rarity")
    if rarity not in RARITIES:
        raise ValueError(f"rarity: expected one of {', '.join(RARITIES)}, got {rarity!r}")
    return Potion(_text(raw, "id"), _text(raw, "name"), rarity, _blocks(raw, "blocks", required=True))


def _ingredient(raw: dict) -> tuple[Ingredient, int]:
    _keys(raw, _INGREDIENT_KEYS)
    remove_all = raw.get("remove_all", [])
    if not isinstance(remove_all, list) or not all(isinstance(x, str) for x in remove_all):
        raise ValueError("remove_all: expected a list of resources")
    count = _int(raw, "count", 1)
    if count < 1:
        raise ValueError("count: expected at least 1 copy")
    card = Ingredient(_text(raw, "id"), _text(raw, "name"), remove=_blocks(raw, "remove"), add=_blocks(raw, "add"),
                      remove_all=tuple(remove_all), or_suffer=_int(raw, "or_suffer", 0),
                      duplicate=_int(raw, "duplicate", 0), move=_int(raw, "move", 0),
                      max_burnt=_int(raw, "max_burnt", 5), text=str(raw.get("text", "")))
    return card, count
