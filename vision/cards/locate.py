"""Locating a card by its print, where its outline did not give its place.

The finder (``find``) fits a card's rectangle on what stands out of the mat. Where the card's border and
panels are of the mat's colours (dim light, a cream card on a cream mat), or the mat is printed with art around
the place, that outline is a blob: half a card, or a card and the art beside it, and the rectangle fitted on it
lies off. The card's print does not depend on the mat: a family's cards share their frame, bands and rules box,
so the family's mean face, matched over the place, finds where a card of the family lies whatever the mat
shows around it. The match is a normalised correlation of brightness (``cv2.TM_CCOEFF_NORMED``): the light's
level and contrast, low in dim light, do not change it.

The place's patch is turned by each of ``TURNS_DEG`` (a card is set down a little askew, any way round) and
each family's face, upright, upside down or either way across, is matched over it at ``COARSE_PX_PER_MM``; the
best turn and position are then looked for again at ``FINE_PX_PER_MM`` near it. What is found is only a place
to cut: the matcher (``store.CardSet.match``) names the card or refuses it as it does any cut, so a stranger of
a known family, located as well as a known card, is still refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import cv2
import numpy as np

COARSE_PX_PER_MM = 0.5  # the search over every turn and position...
FINE_PX_PER_MM = 1.0  # ...then refined near the best
TURNS_DEG = tuple(range(-15, 16, 3))  # a card set down askew, any way round (the renderer's: up to 12 degrees)
FINE_TURNS_DEG = (-1.5, 0.0, 1.5)  # around the best coarse turn
LOCATED_MIN = 0.5  # a best correlation below this is no card's print: not worth the matcher's time (dev tables
# 19662-19663: the cards named so correlated 0.79 and more; of the places searched and refused, half under 0.5)


def families(look_alikes: Sequence[Sequence[int]]) -> list[list[int]]:
    """The set's cards grouped into families: the cards joined, directly or through others, as look-alikes
    (``tell.Teller.look_alikes``: card ``i``'s look-alikes are ``look_alikes[i]``)."""
    seen: set[int] = set()
    out = []
    for start in range(len(look_alikes)):
        if start in seen:
            continue
        family, todo = [], [start]
        seen.add(start)
        while todo:
            i = todo.pop()
            family.append(i)
            todo.extend(j for j in look_alikes[i] if j not in seen)
            seen.update(look_alikes[i])
        out.append(sorted(family))
    return out


def _faces(grey: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """A portrait face's four ways round as templates: (image, quarter turns clockwise)."""
    return [(grey, 0), (np.ascontiguousarray(grey[::-1, ::-1]), 2),
            (np.ascontiguousarray(np.rot90(grey, -1)), 1), (np.ascontiguousarray(np.rot90(grey, 1)), 3)]


class CardLocator:
    """The mean face of each family of an enrolled set, at the two resolutions the search uses."""

    def __init__(self, photos: list[np.ndarray], look_alikes: Sequence[Sequence[int]], card_mm: tuple[float, float],
                 upside_down: Callable[[int, int], bool]):
        """``upside_down(i, j)``: whether card ``j``'s photo lies half a turn from card ``i``'s (a card may be
        enrolled either way up): a family's photos are all turned one way before they are averaged."""
        self.card_mm = card_mm
        greys = [cv2.cvtColor(p, cv2.COLOR_BGR2GRAY).astype(np.float32) for p in photos]
        means = []
        for members in families(look_alikes):
            first = members[0]
            means.append(np.mean([greys[i][::-1, ::-1] if i != first and upside_down(first, i) else greys[i]
                                  for i in members], axis=0))
        self.templates: dict[float, list[list[tuple[np.ndarray, int]]]] = {}
        for s in (COARSE_PX_PER_MM, FINE_PX_PER_MM):
            size = (max(4, round(card_mm[0] * s)), max(4, round(card_mm[1] * s)))
            self.templates[s] = [_faces(cv2.resize(mean, size, interpolation=cv2.INTER_AREA)) for mean in means]

    def locate(self, patch: np.ndarray, origin: tuple[float, float], s: float) -> tuple[np.ndarray, float] | None:
        """The card's corners (board mm, as ``find.Found.corners_mm`` orders them) on a place's ``patch`` (BGR,
        ``s`` px/mm, its top-left corner at ``origin`` mm), and the correlation of the best match; None when no
        face fits within the patch, or none correlates with it by ``LOCATED_MIN``."""
        grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
        coarse = self._search(grey, s, COARSE_PX_PER_MM, TURNS_DEG)
        if coarse is None:
            return None
        _, turn, family, way, _ = coarse
        fine = self._search(grey, s, FINE_PX_PER_MM, tuple(turn + d for d in FINE_TURNS_DEG), (family, way))
        score, *_, corners = fine if fine is not None else coarse
        return (corners + np.asarray(origin, np.float64), score) if score >= LOCATED_MIN else None

    def _search(self, grey: np.ndarray, s: float, at: float, turns, only: tuple[int, int] | None = None):
        """The best (score, turn, family, way round, corners in patch mm) over ``turns`` at ``at`` px/mm, of
        every family's face every way round, or ``only`` (family, way)."""
        h, w = grey.shape
        small = cv2.resize(grey, (max(1, round(w * at / s)), max(1, round(h * at / s))), interpolation=cv2.INTER_AREA)
        sh, sw = small.shape
        mm = np.array([w / sw / s, h / sh / s])  # a small pixel's size, mm (x, y)
        mid = ((sw - 1) / 2, (sh - 1) / 2)
        best = None
        for turn in turns:
            R = cv2.getRotationMatrix2D(mid, turn, 1.0)
            turned = cv2.warpAffine(small, R, (sw, sh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            back = cv2.invertAffineTransform(R)  # (pixel indices: a pixel's centre at +0.5)
            for f, faces in enumerate(self.templates[at]):
                for template, way in faces:
                    th, tw = template.shape
                    if (only is not None and (f, way) != only) or th > sh or tw > sw:
                        continue
                    _, score, _, (x, y) = cv2.minMaxLoc(cv2.matchTemplate(turned, template, cv2.TM_CCOEFF_NORMED))
                    if best is None or score > best[0]:
                        corners = (np.array(_WAYS[way]) * (tw, th) + (x - 0.5, y - 0.5)) @ back[:, :2].T
                        corners += back[:, 2] + 0.5
                        best = (float(score), float(turn), f, way, corners * mm)
        return best


# Where a portrait card's corners (top-left, top-right, bottom-right, bottom-left) lie on its face turned ``way``
# quarter turns clockwise, as fractions of the turned face's width and height.
_WAYS = {0: [(0, 0), (1, 0), (1, 1), (0, 1)], 2: [(1, 1), (0, 1), (0, 0), (1, 0)],
         1: [(1, 0), (1, 1), (0, 1), (0, 0)], 3: [(0, 1), (0, 0), (1, 0), (1, 1)]}
