"""Enrolled card sets on disk, and matching a card against one.

A cards folder (``calibrate cards --out DIR``) holds one folder per set::

    DIR/alchemists-ingredients/set.json     {"kind": "alchemy-table card set", "set": "alchemists-ingredients",
                                             "card_mm": [63, 88], "px_per_mm": 2.0,
                                             "cards": {"fern": {"image": "fern.png", "source": "fern.jpg",
                                                                "zone": "card-left"}, ...}}
    DIR/alchemists-ingredients/fern.png     the card as enrolled: upright, cut out of the frame

The set file names each card; the image is what is needed to recognise it again (its descriptors are
computed on loading, so a better descriptor needs no new enrolment). Enrolling a card again replaces it; a
second photo of a card (``enrol(..., second=True)``) is kept beside the first as ``NAME.2.png``, listed
under ``"more"``.

Matching: the coarse score (``features.block_scores``, each card's best photo and turn) finds the
candidates; ``tell`` picks the nearest where look-alikes differ and says whether it is that card. A card is
named when its coarse score reaches ``ACCEPT`` and ``tell`` accepts it; otherwise it is ``unknown``. A card
smeared beyond a cell (``blur``) is judged again against its candidates smeared as it is: refused as cut, it may
be named so (``_through_blur``); named as cut, it must stay the nearest, as surely, or it is ``unknown``.
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

from vision.cards import blur, features, locate, tell
from vision.cards.find import CARD_PX_PER_MM

KIND = "alchemy-table card set"
ACCEPT = 0.86
SMEARED_KEPT = 8  # smeared copies of a set kept (a shaken frame's cards share a few smears)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class CardSetError(ValueError):
    """A card set that cannot be used; the message reads ``FILE: key: what is wrong``."""


@dataclass(frozen=True)
class Match:
    """The card told for a query: ``name`` (None when unknown), its coarse score, the best other card's
    coarse score, the card the fine comparison found nearest (even when not accepted), its ``fit`` over its
    own cells and its least ``evidence`` against the other candidates (``tell``)."""

    name: str | None
    score: float
    second: float
    best: str | None = None
    fit: float = 1.0
    evidence: float = -1.0

    @property
    def confidence(self) -> float:
        if self.name is None:
            return round(float(np.clip(1.0 - max(0.0, self.score - 0.4) / (ACCEPT - 0.4) * 0.5, 0.5, 1.0)), 3)
        sure = min((self.score - ACCEPT) / (1 - ACCEPT), 1.0 - self.fit,
                   (self.evidence - tell.EVIDENCE_MIN) / (1 - tell.EVIDENCE_MIN))
        return round(float(np.clip(0.6 + 0.4 * sure, 0.6, 1.0)), 3)


class CardSet:
    """One enrolled set: card name -> upright image (and any further photos of it), ready for matching."""

    def __init__(self, name: str, card_mm: tuple[float, float], images: Mapping[str, np.ndarray],
                 folder: Path | None = None, meta: Mapping[str, Mapping[str, Any]] | None = None,
                 more: Mapping[str, Iterable[np.ndarray]] | None = None, smear: tuple | None = None):
        """``smear``: these photos are the set's smeared so (``blur``), to read a smeared card with."""
        self.name = name
        self.smear = smear
        self.card_mm = (float(card_mm[0]), float(card_mm[1]))
        self.folder = folder
        self.images = dict(images)
        self.more = {k: list(v) for k, v in (more or {}).items() if k in self.images and list(v)}
        self.meta = {k: dict(v) for k, v in (meta or {}).items()}
        self._index()

    def photos(self, name: str) -> list[np.ndarray]:
        """Every enrolled photo of ``name``: the first, then any further ones, each lying the way the first does."""
        return [self.images[name], *self._further.get(name, [])]

    def _index(self) -> None:
        # Each further photo lies the way the card's first does: the teller draws a card's own cells and its
        # differences from its look-alikes in its first photo's frame, and compares a query with whichever photo
        # lies nearest it. A second photo enrolled the other way up put them half a turn off the card's print
        # (bench seed 19748, deck 1658: time-2 under a glare streak named time-3, whose second photo lay so).
        self._further = {n: [_as_first(self.images[n], p) for p in ps] for n, ps in self.more.items()}
        self._smeared: dict[tuple, CardSet] = {}  # (smear, names) -> those cards smeared so; anew as the set changes
        self._spreads: dict[str, np.ndarray] = {}  # card name -> its first photo's ``blur.photo_spread``
        self.names = sorted(self.images)
        quarter = max(self.card_mm) / min(self.card_mm) < 1.1
        # One coarse reference per photo and turn; a card scores its best photo's score.
        self._owner = np.array([i for i, n in enumerate(self.names) for _ in self.photos(n)], np.int64)
        refs = [[features.blocks(d) for d in features.turns(features.describe(photo), quarter)]
                for n in self.names for photo in self.photos(n)]
        self._refs = np.array(refs, np.float32) if refs else np.zeros((0, 2, 1, 1), np.float32)
        n = len(self.names)
        coarse = np.zeros((n, n), np.float32)
        for i, name in enumerate(self.names):
            coarse[i] = self.scored(self.images[name])[0]
        self.likeness = np.maximum(coarse, coarse.T)  # coarse score between enrolled cards (either way round)
        self._teller: tell.Teller | None = None
        self._locator: locate.CardLocator | None = None

    @property
    def teller(self) -> tell.Teller:
        """The set's fine descriptors and where its cards differ (``tell``), made when first asked. Made at each
        enrolment, every pair's difference was learnt again for each card added: enrolling 25 crystals one by one
        and learning the set cost 17-18 processor seconds, made once 4.2 (docs/cards.md, session 50)."""
        if self._teller is None:
            self._teller = tell.Teller(self.names, [self.photos(n) for n in self.names], self.likeness,
                                       self.card_mm, CARD_PX_PER_MM)
        return self._teller

    @property
    def locator(self) -> locate.CardLocator:
        """The set's families' faces, to find a card by its print (made when first asked)."""
        if self._locator is None:
            self._locator = locate.CardLocator([self.images[n] for n in self.names], self.teller.look_alikes,
                                               self.card_mm, self.teller.upside_down)
        return self._locator

    def learn(self) -> None:
        """Learn all that reading a card of the set asks of its photos alone, when a reader loads it rather than on
        its first frames: the teller's pairs (``tell.Teller.learn``) and, for every card with look-alikes, its
        photo's part of the smear estimate (``_smear``: 10 processor ms a card, asked at its first reading)."""
        self.teller.learn()
        for i, name in enumerate(self.names):
            if self.teller.look_alikes[i]:
                self._spread(name)

    def __contains__(self, name: str) -> bool:
        return name in self.images

    def __len__(self) -> int:
        return len(self.names)

    def scored(self, card: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each card's coarse score (its best photo under its best turn) and that turn: (n,), (n,)."""
        n = len(self.names)
        if not n:
            return np.zeros(0), np.zeros(0, np.int64)
        q = features.blocks(features.describe(card))
        m, t = self._refs.shape[:2]
        per = features.block_scores(q, self._refs.reshape(m * t, *self._refs.shape[2:])).reshape(m, t)
        best = np.full(n, -np.inf)
        turn = np.zeros(n, np.int64)
        for k in range(m):
            i = self._owner[k]
            j = int(np.argmax(per[k]))
            if per[k, j] > best[i]:
                best[i], turn[i] = per[k, j], j
        return best, turn

    def scores(self, card: np.ndarray) -> np.ndarray:
        """Each card's best coarse score over its photos and the turns: (n,)."""
        return self.scored(card)[0]

    def match(self, card: np.ndarray, allowed: Iterable[str] | None = None, around: np.ndarray | None = None) -> Match:
        """The card of this set that ``card`` (upright BGR image) shows, among ``allowed`` names if given.
        ``around``: where something that is not the mat crosses the card's edge (``find.around_card``)."""
        scores, turns = self.scored(card)
        if allowed is not None:
            allow = set(allowed)
            scores = np.where([n in allow for n in self.names], scores, -1.0)
        if scores.size == 0 or scores.max() < -0.5:
            return Match(None, 0.0, 0.0)
        nearest, fit, evidence = self.teller.judge(card, scores, turns, ACCEPT,
                                                   lambda image, i: float(self.scored(image)[0][i]), around)
        first = int(np.argmax(scores)) if nearest is None else nearest
        best = float(scores[first])
        others = scores[np.arange(len(scores)) != first]
        second = float(others.max()) if others.size and others.max() > -0.5 else 0.0
        accepted = nearest is not None and best >= ACCEPT and tell.told(fit, evidence)
        if nearest is not None and evidence > 0 and self.smear is None and self.teller.look_alikes[nearest]:
            smear = self._smear(card, int(turns[nearest]), self.names[nearest])
            if blur.beyond_the_cells(smear):
                smeared = self._smeared_set(scores, smear)
                found = smeared.match(card, allowed, around)
                if not accepted:
                    through = self._through_blur(nearest, smeared, found)
                    if through is not None:
                        return through
                elif found.best != self.names[nearest] or found.evidence < tell.EVIDENCE_MIN:
                    # Named as cut, a smeared card must stay as much nearer the card than each other candidate
                    # once they are smeared as it is: what tells it from a look-alike (a digit, a title's letters)
                    # is what a smear takes first, and the sharp photos may then say nothing true (fresh bench
                    # 19688 frame 95: time-2 shaken 8.6 px named time-4 at evidence 0.47; smeared alike, 0.34).
                    accepted = False
        return Match(self.names[first] if accepted else None, best, second, self.names[first], fit, evidence)

    def _smear(self, card: np.ndarray, turn: int, name: str) -> tuple[float, float, float]:
        """How ``card`` (under ``turn``) is smeared, against ``name``'s first photo (``blur.estimate``), with what
        the estimate asks of the photo alone kept per card (``blur.photo_spread``): every card named with
        look-alikes is asked, 2 processor ms each so, 13 without."""
        return blur.estimate(tell.turned(card, turn), self.images[name], tell.EDGE_MM, self._spread(name))

    def _spread(self, name: str) -> np.ndarray:
        """What the smear estimate asks of ``name``'s first photo alone (``blur.photo_spread``), kept."""
        if name not in self._spreads:
            self._spreads[name] = blur.photo_spread(self.images[name], tell.EDGE_MM)
        return self._spreads[name]

    def _smeared_set(self, scores: np.ndarray, smear: tuple[float, float, float]) -> CardSet:
        """The candidates the coarse score leaves (as ``tell`` takes them) with all their look-alikes, their
        photos smeared by ``smear`` (``blur``): smeared alike, they tell where the smear leaves the family's
        cards different, and a card of the family never enrolled differs from the card as they do. Kept for
        the next cards of a shaken frame (``SMEARED_KEPT``)."""
        top = float(scores.max())
        kept = {int(i) for i in np.flatnonzero(scores >= max(tell.CANDIDATE, top - tell.CANDIDATE_GAP))}
        kept |= {j for i in list(kept) for j in self.teller.look_alikes[i]}
        names = tuple(self.names[i] for i in sorted(kept))
        key = (smear, names)
        if key not in self._smeared:
            if len(self._smeared) >= SMEARED_KEPT:
                self._smeared.pop(next(iter(self._smeared)))
            self._smeared[key] = CardSet(
                self.name, self.card_mm, {n: blur.smeared(self.images[n], smear) for n in names},
                more={n: [blur.smeared(p, smear) for p in self.more.get(n, [])] for n in names}, smear=smear)
        return self._smeared[key]

    def _through_blur(self, nearest: int, smeared: CardSet, found: Match) -> Match | None:
        """The card refused as it is, read again against its candidates' photos smeared as it is smeared
        (``smeared``: ``_smeared_set``; ``found``: the card matched against it): a shaken frame, a card moving as
        it is set down. None when still not named.

        ``match`` asks only for a card that lies nearer its nearest candidate than every other as cut (evidence
        above 0), and it may be named only as that card: the smear explains why its print misfits, not which
        card it is (a card never enrolled, nearer another candidate as cut, was nearest the card once both were
        smeared 2.5 mm: potions-1002's stranger-b). Its fit is held to a limit shrunk as the smear shrinks its
        differences from its look-alikes (``_shrunk``).
        A card enrolled without look-alikes is not read through a smear: what tells it from a card of its family
        never enrolled is its fine print (``fineprint``), which the smear takes away (deck 804's lone scorpion:
        a stranger differing in its title and digits, smeared 4 mm, passed for it). Nor is a card whose own
        cells, smeared, differ from its look-alikes' over less than ``tell.UNEXPLAINED_MM2``, what a card of the
        set may deviate over by noise and misfit alone: a fit over so little tells it from no card of its family,
        and its fine print is gone too (bench seed 19674, deck 1533: a stranger of marrow-broth's family with
        marrow-broth's art, its title and digits smeared 3.5 mm away, fitted its 15 mm² at 0.96 of the limit)."""
        if found.name != self.names[nearest]:
            return None
        left = self._own_smeared(nearest, smeared)
        if float(left.sum()) * features.FINE_MM ** 2 < tell.UNEXPLAINED_MM2:
            return None
        return found if found.fit <= self._shrunk(nearest, left) else None

    def _own_smeared(self, i: int, smeared: CardSet) -> np.ndarray:
        """Card ``i``'s own cells as ``smeared`` has them (0..1: where it differs from every look-alike, all
        smeared alike)."""
        j = smeared.names.index(self.names[i])
        soft = np.ones_like(self.teller.own(i))  # its own cells as the teller has them, against the same cards
        for la in self.teller.look_alikes[i]:
            soft = np.minimum(soft, smeared.teller.difference(j, smeared.names.index(self.names[la])))
        return soft

    def _shrunk(self, i: int, left: np.ndarray) -> float:
        """How much nearer its look-alikes card ``i`` lies smeared than here, over its own cells (``left``: they,
        smeared): the smear brings a card of its family never enrolled as much nearer, so the fit's limit shrinks
        as much (a stranger of bench deck 1476's marrow-broth, smeared 0.9 mm, fitted it at 0.88 of the limit:
        its own cells had come 0.82 as near)."""
        return float(left.sum()) / max(float(self.teller.own(i).sum()), 1e-6)

    def pairs(self) -> list[tuple[str, str, float]]:
        """Enrolled look-alikes: (card, card, likeness) for every pair whose coarse scores are alike, most
        alike first."""
        out = [(self.names[i], self.names[j], float(self.likeness[i, j])) for i in range(len(self.names))
               for j in range(i + 1, len(self.names)) if self.likeness[i, j] >= tell.LOOK_ALIKE]
        return sorted(out, key=lambda p: -p[2])

    # -- on disk ------------------------------------------------------------------------------------------

    def enrol(self, name: str, image: np.ndarray, second: bool = False, **meta: Any) -> None:
        """Add ``name`` (or replace it, dropping any second photo) with its upright image; with ``second``,
        keep ``image`` as the second photo of ``name``, already enrolled (replacing an earlier second photo).
        Written at once when the set has a folder."""
        if not _NAME.match(name):
            raise CardSetError(f"{name!r}: a card name uses letters, digits, '-', '_' and '.' only")
        if second:
            if name not in self.images:
                raise CardSetError(f"{name!r}: a second photo is of a card already enrolled (enrol {name} first)")
            self.more[name] = [image]
            self.meta.setdefault(name, {})["second"] = {k: v for k, v in meta.items() if v is not None}
        else:
            self.images[name] = image
            self.more.pop(name, None)
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
            for k, photo in enumerate(self.more.get(name, []), 2):
                extra = folder / f"{name}.{k}.png"
                if not cv2.imwrite(str(extra), photo):
                    raise OSError(f"{extra}: cannot write the card image")
                cards[name].setdefault("more", []).append(extra.name)
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
    images, meta, more = {}, {}, {}
    for card, entry in cards.items():
        if not _NAME.match(card) or not isinstance(entry, dict) or not isinstance(entry.get("image"), str) \
                or not _NAME.match(entry["image"]):  # a plain name: the image is inside the set's folder
            raise CardSetError(f"{path}: cards.{card}: expected {{\"image\": \"FILE.png\"}}")
        extra = entry.get("more", [])
        if not (isinstance(extra, list) and all(isinstance(e, str) for e in extra)):
            raise CardSetError(f"{path}: cards.{card}.more: expected a list of image files")
        images[card], *more[card] = (_image(path, card, folder / f) for f in [entry["image"], *extra])
        meta[card] = {k: v for k, v in entry.items() if k not in ("image", "more")}
    return CardSet(name, (float(size[0]), float(size[1])), images, folder, meta, more)


def _as_first(first: np.ndarray, photo: np.ndarray) -> np.ndarray:
    """``photo`` of a card turned half a turn where it lies so from the card's ``first`` photo (by their coarse
    descriptors, as cards are scored)."""
    query = features.blocks(features.describe(first))
    refs = np.array([features.blocks(d) for d in features.turns(features.describe(photo))], np.float32)
    if int(np.argmax(features.block_scores(query, refs))) == 1:
        return np.ascontiguousarray(photo[::-1, ::-1])
    return photo


def _image(path: Path, card: str, image_path: Path) -> np.ndarray:
    image = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
    if image is None:
        raise CardSetError(f"{path}: cards.{card}: {image_path.name} is missing or not an image")
    return image


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
