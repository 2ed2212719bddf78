"""Checking an enrolled set: can each pair of look-alike cards be told apart at the table?

Each enrolled photo is seen again as the camera might see it at the table (``table_views``: the photo
blurred a little, under a light falling off across it, with sensor noise and JPEG, in both ends up) and
matched against the whole set. A pair of look-alikes is *told apart* when every view of each of the two
is named as itself; a pair is *too close* when their own cells differ over less than ``MIN_MM2``
(then no second photo helps: the cards hardly differ on the print). A second photo of a card (``calibrate
cards --second``) is itself one more view, a real one: it must be named too. A card of no pair that is not
named in its own views is named too (``unread``): its photo does not show it as the table will.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import features
from vision.cards.store import CardSet

MIN_MM2 = 16.0  # area they differ over (summed difference, 0..1 per cell, times its area) below which two
# cards are too close to tell


@dataclass(frozen=True)
class PairCheck:
    first: str
    second: str
    likeness: float  # coarse score between the two
    area_mm2: float  # how much of the card they differ over (summed 0..1 per cell, times its area)
    failed: tuple[str, ...]  # the cards of the pair whose views were not named as themselves

    @property
    def verdict(self) -> str:
        if self.area_mm2 < MIN_MM2:
            return "too close"
        return "needs a second photo" if self.failed else "told apart"


def table_views(photo: np.ndarray, seed: int = 0) -> list[np.ndarray]:
    """``photo`` as the table's camera may see it again: softer, lit unevenly, noisy, compressed, and
    half turned."""
    rng = np.random.default_rng(seed)
    h, w = photo.shape[:2]
    views = []
    for k, (sigma, slope) in enumerate(((0.8, 0.15), (1.2, -0.2))):
        img = cv2.GaussianBlur(photo.astype(np.float32), (0, 0), sigma)
        ramp = 1 + slope * (np.linspace(-0.5, 0.5, w)[None, :] + 0.5 * np.linspace(-0.5, 0.5, h)[:, None])
        img = img * ramp[..., None].astype(np.float32) + rng.normal(0, 3.0, img.shape).astype(np.float32)
        _ok, buf = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 80])
        view = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        views.append(view[::-1, ::-1].copy() if k else view)
    return views


def read_back(card_set: CardSet) -> dict[str, bool]:
    """Whether each card of ``card_set`` is named as itself in every view of its photos as the table may
    see them (``table_views`` of its first photo, and each further photo as it is)."""
    named: dict[str, bool] = {}
    for name in card_set.names:
        photos = card_set.photos(name)
        views = [v for p in photos[:1] for v in table_views(p)] + photos[1:]
        named[name] = all(card_set.match(v).name == name for v in views)
    return named


def check_set(card_set: CardSet, named: dict[str, bool] | None = None) -> list[PairCheck]:
    """Every pair of look-alike cards of ``card_set``, most alike first, with its verdict (``named``: the
    set's ``read_back``, computed when not given)."""
    named = read_back(card_set) if named is None else named
    teller = card_set.teller
    out = []
    for a, b, likeness in card_set.pairs():
        i, j = card_set.names.index(a), card_set.names.index(b)
        area = float(teller.difference(i, j).sum()) * features.FINE_MM ** 2
        failed = tuple(n for n in (a, b) if not named[n])
        out.append(PairCheck(a, b, likeness, area, failed))
    return out


def unread(card_set: CardSet, named: dict[str, bool] | None = None) -> list[str]:
    """The cards of no look-alike pair that are not named in their own views (``read_back``): a card alone
    of its family is held to all its fine print, and a photo too dim, soft or glared to show it again
    would leave the card ``unknown`` at the table, with no pair to say so."""
    named = read_back(card_set) if named is None else named
    paired = {n for a, b, _ in card_set.pairs() for n in (a, b)}
    return [n for n in card_set.names if not named[n] and n not in paired]
