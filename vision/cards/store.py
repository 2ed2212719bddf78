"""Enrolled card sets on disk, and matching a card against one.

A cards folder (``calibrate cards --out DIR``) holds one folder per set::

    DIR/alchemists-ingredients/set.json     {"kind": "alchemy-table card set", "set": "alchemists-ingredients",
                                             "card_mm": [63, 88], "px_per_mm": 2.0,
                                             "cards": {"fern": {"image": "fern.png", "source": "fern.jpg",
                                                                "zone": "card-left"}, ...}}
    DIR/alchemists-ingredients/fern.png     the card as enrolled: upright, cut out of the frame

The set file names each card; the image is what is needed to recognise it again (its descriptor is
computed on loading, so a better descriptor needs no new enrolment). Enrolling a card again replaces it.

Matching: a card is named when its score (``features.block_scores``) reaches ``ACCEPT`` and beats every
other card of the set by ``MARGIN``; otherwise it is ``unknown``. Both were calibrated on rendered cards
never enrolled (docs/cards.md): a card that is not in the set is accepted well under 0.5 % of the time.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.cards import features

KIND = "alchemy-table card set"
ACCEPT = 0.86
MARGIN = 0.10
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class CardSetError(ValueError):
    """A card set that cannot be used; the message reads ``FILE: key: what is wrong``."""


@dataclass(frozen=True)
class Match:
    """The best card for a query: ``name`` (None when unknown), its score, the best other card's score."""

    name: str | None
    score: float
    second: float
    best: str | None = None  # the best-scoring card even when it is not accepted

    @property
    def confidence(self) -> float:
        if self.name is None:
            return round(float(np.clip(1.0 - max(0.0, self.score - 0.4) / (ACCEPT - 0.4) * 0.5, 0.5, 1.0)), 3)
        sure = min((self.score - ACCEPT) / (1 - ACCEPT), (self.score - self.second - MARGIN) / (1 - MARGIN))
        return round(float(np.clip(0.6 + 0.4 * sure, 0.6, 1.0)), 3)


class CardSet:
    """One enrolled set: card name -> upright image, with the descriptors ready for matching."""

    def __init__(self, name: str, card_mm: tuple[float, float], images: Mapping[str, np.ndarray],
                 folder: Path | None = None, meta: Mapping[str, Mapping[str, Any]] | None = None):
        self.name = name
        self.card_mm = (float(card_mm[0]), float(card_mm[1]))
        self.folder = folder
        self.images = dict(images)
        self.meta = {k: dict(v) for k, v in (meta or {}).items()}
        self._index()

    def _index(self) -> None:
        self.names = sorted(self.images)
        quarter = max(self.card_mm) / min(self.card_mm) < 1.1
        refs = [[features.blocks(d) for d in features.turns(features.describe(self.images[n]), quarter)]
                for n in self.names]
        self._refs = np.array(refs, np.float32) if refs else np.zeros((0, 2, 1, 1), np.float32)

    def __contains__(self, name: str) -> bool:
        return name in self.images

    def __len__(self) -> int:
        return len(self.names)

    def scores(self, card: np.ndarray) -> np.ndarray:
        """Each card's best score over the turns: (n,)."""
        if not self.names:
            return np.zeros(0)
        q = features.blocks(features.describe(card))
        n, t = self._refs.shape[:2]
        return features.block_scores(q, self._refs.reshape(n * t, *self._refs.shape[2:])).reshape(n, t).max(axis=1)

    def match(self, card: np.ndarray, allowed: Iterable[str] | None = None) -> Match:
        """The card of this set that ``card`` (upright BGR image) shows, among ``allowed`` names if given."""
        scores = self.scores(card)
        if allowed is not None:
            allow = set(allowed)
            scores = np.where([n in allow for n in self.names], scores, -1.0)
        if scores.size == 0 or scores.max() < -0.5:
            return Match(None, 0.0, 0.0)
        order = np.argsort(scores)[::-1]
        best = float(scores[order[0]])
        second = float(scores[order[1]]) if len(order) > 1 and scores[order[1]] > -0.5 else 0.0
        name = self.names[order[0]]
        accepted = best >= ACCEPT and best - second >= MARGIN
        return Match(name if accepted else None, best, second, name)

    # -- on disk ------------------------------------------------------------------------------------------

    def enrol(self, name: str, image: np.ndarray, **meta: Any) -> None:
        """Add ``name`` (or replace it) with its upright image; written at once when the set has a folder."""
        if not _NAME.match(name):
            raise CardSetError(f"{name!r}: a card name uses letters, digits, '-', '_' and '.' only")
        self.images[name] = image
        self.meta[name] = {k: v for k, v in meta.items() if v is not None}
        self._index()
        if self.folder is not None:
            self.save(self.folder)

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        cards = {}
        for name in self.names:
            path = folder / f"{name}.png"
            if not cv2.imwrite(str(path), self.images[name]):
                raise OSError(f"{path}: cannot write the card image")
            cards[name] = {"image": path.name, **self.meta.get(name, {})}
        data = {"kind": KIND, "set": self.name, "card_mm": list(self.card_mm), "cards": cards}
        tmp = folder / "set.json.tmp"
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, folder / "set.json")  # a set file is never left half-written
        self.folder = folder


def load_set(folder: str | Path) -> CardSet:
    """Read ``folder/set.json`` and the card images it names; raises CardSetError or OSError."""
    folder = Path(folder)
    path = folder / "set.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OSError(f"{path}: no such card set (enrol cards with 'alchemy-table calibrate cards')") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CardSetError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise CardSetError(f"{path}: kind: not a card set (expected \"kind\": \"{KIND}\")")
    name = data.get("set")
    if not isinstance(name, str) or not _NAME.match(name):
        raise CardSetError(f"{path}: set: expected the set's name")
    size = data.get("card_mm")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int | float) and v > 0 for v in size)):
        raise CardSetError(f"{path}: card_mm: expected [width, height] in mm")
    cards = data.get("cards")
    if not isinstance(cards, dict):
        raise CardSetError(f"{path}: cards: expected an object of card name -> {{image}}")
    images, meta = {}, {}
    for card, entry in cards.items():
        if not _NAME.match(card) or not isinstance(entry, dict) or not isinstance(entry.get("image"), str) \
                or not _NAME.match(entry["image"]):  # a plain name: the image is inside the set's folder
            raise CardSetError(f"{path}: cards.{card}: expected {{\"image\": \"FILE.png\"}}")
        image_path = folder / entry["image"]
        image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise CardSetError(f"{path}: cards.{card}: {image_path.name} is missing or not an image")
        images[card] = image
        meta[card] = {k: v for k, v in entry.items() if k != "image"}
    return CardSet(name, (float(size[0]), float(size[1])), images, folder, meta)


class CardLibrary:
    """A cards folder: its sets by name, each loaded when first asked for."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise OSError(f"{self.folder}: no such cards folder")
        self._sets: dict[str, CardSet | None] = {}

    def get(self, name: str) -> CardSet | None:
        if name not in self._sets:
            path = self.folder / name
            self._sets[name] = load_set(path) if (path / "set.json").exists() else None
        return self._sets[name]

    def names(self) -> list[str]:
        return sorted(p.name for p in self.folder.iterdir() if (p / "set.json").exists())


def open_set(folder: str | Path, name: str, card_mm: tuple[float, float]) -> CardSet:
    """The set ``name`` in the cards folder ``folder``, created empty if it is not there yet. The name is a
    plain name (``_NAME``: no ``/``, no ``..``), so the set's folder is always inside ``folder``."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise CardSetError(f"set: expected a set name (letters, digits, _ . -), not a path: {name!r}")
    path = Path(folder) / name
    if (path / "set.json").exists():
        found = load_set(path)
        if found.name != name:
            raise CardSetError(f"{path / 'set.json'}: set: the file says {found.name!r}, the folder {name!r}")
        return found
    return CardSet(name, card_mm, {}, path)
