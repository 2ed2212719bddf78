"""Reading a layout's card zones, for ``vision.read.Reader``.

Each card zone is read against the enrolled set its layout names (``set = "NAME"``): a card name, ``empty``
or ``unknown``, with a confidence, as any other zone. Without the set enrolled, a zone still tells ``empty``
from a card (``unknown``: it cannot be named). A hand over the zone makes it ``unknown``. With the empty mat
enrolled (``calibrate board``), a place is ``empty`` only where it still looks like the mat it was shown: a
hand of the mat's own colour (a brown hand on a brown mat, a pale one on a cream mat) stands out of the mat's
colour no more than the mat does, but it hides what the mat was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import LensModel
from vision.cards import card_size, tell
from vision.cards.find import EMPTY_AREA, GAP_MM, PLAINLY_EMPTY, Found, ZonePatch, around_card, cut_card, find_card
from vision.cards.store import CardLibrary, CardSet, Match
from vision.reading import ZoneReading
from vision.threads import opencv_threads

Sets = CardLibrary | Mapping[str, CardSet] | None
RING_PLAIN = 0.1  # a place whose ring is less plain than this has something over its surroundings...
RING_CHROMA = 0.1  # ...as has one whose ring's chromaticity lies this far from the other places' rings
RING_LEVEL = 2.0  # ...or whose ring is this many times brighter or darker than theirs (the light across a mat's
# places varies by a fifth: 0.78-1.18 of the others' median on dev decks 1420-1427, every lighting)


def _confidence(x: float) -> float:
    """``x`` clipped to [0.5, 1], rounded to 3 places (as np.clip would, at a third of its cost on a scalar)."""
    return round(min(max(float(x), 0.5), 1.0), 3)


class CardZones:
    """The card zones of ``layout`` and the sets they are read against."""

    def __init__(self, layout: Layout, cards: Sets = None, mat=None):
        """``mat``: the empty mat enrolled (a ``vision.board.BoardComparison``), or None."""
        self.zones = [z for z in layout.zones if z.kind == "card"]
        self.card_mm = card_size(layout)
        self.sets: dict[str, CardSet | None] = {}
        for z in self.zones:
            if z.card_set not in self.sets:
                self.sets[z.card_set] = None if cards is None else cards.get(z.card_set)
                if self.sets[z.card_set] is not None:
                    with opencv_threads(1):  # (small images, as ``read``'s: 2.7 processor s against 3.5-4.1)
                        self.sets[z.card_set].learn()  # loading, not the first frame, learns the set
        self.allowed = {z.id: tuple(label for label in z.labels if label != "empty") for z in self.zones}
        self.patches = {z.id: ZonePatch(z.bounds) for z in self.zones}  # with the frame maps, kept
        self.times: list[float] = []  # seconds spent on each card zone of the last read...
        self.cpu_times: list[float] = []  # ...and the processor's seconds (a shared machine's other work left out)
        self._held: set[str] = set()  # zones where the last read found something: no first look there
        self.mat = mat
        if mat is not None:  # each place's pixels in the mat's canonical image, and a card's area there
            px = mat.geometry.px_per_mm
            self._mat_rects = {z.id: (slice(round(z.bounds[1] * px), round(z.bounds[3] * px)),
                                      slice(round(z.bounds[0] * px), round(z.bounds[2] * px))) for z in self.zones}
            self._card_px = {z.id: self.card_mm[0] * self.card_mm[1] * px * px for z in self.zones}
            # What the finder sees standing out of the ring's colour on the enrolled mat itself (its print), widened
            # by a blurred edge's width (the frame's patch lands a little off the mat's).
            self._mat_print = {}
            for z in self.zones:
                patch = ZonePatch(z.bounds)
                patch.look(mat.image, mat.geometry.canonical_from_mm, None, dense=True)
                k = 2 * round(GAP_MM * patch.s) + 1
                self._mat_print[z.id] = cv2.dilate(patch.raw, np.ones((k, k), np.uint8)).view(bool)
            # (each zone's patch pixels in the mat's canonical image: both fixed, so mapped once)
            self._mat_maps = {}
            for z in self.zones:
                grid = self.patches[z.id].grid.astype(np.float32) * np.float32(px) - np.float32(0.5)
                self._mat_maps[z.id] = (np.ascontiguousarray(grid[..., 0]), np.ascontiguousarray(grid[..., 1]))

    def __bool__(self) -> bool:
        return bool(self.zones)

    def read(self, frame: np.ndarray, H: np.ndarray, lens: LensModel | None,
             canonical: Callable[[], np.ndarray] | None = None) -> dict[str, ZoneReading]:
        """``_read`` on one OpenCV thread: a card's images are a few hundred pixels across, and OpenCV's threads
        cost more handing each call out than they save (dev seed 19670, deck 1520, 560 potion places read both
        ways in turn on two cores: the same wall-clock time per place, 3 % more over all, a quarter less
        processor time), and the Pi's other cores are the board reader's and the page's. The whole frame warped
        onto the mat, when asked for, is large: it keeps the process's threads."""
        threads = cv2.getNumThreads()

        def warped() -> np.ndarray:
            with opencv_threads(threads):
                return canonical()

        with opencv_threads(1):
            return self._read(frame, H, lens, None if canonical is None else warped)

    def _read(self, frame: np.ndarray, H: np.ndarray, lens: LensModel | None,
              canonical: Callable[[], np.ndarray] | None = None) -> dict[str, ZoneReading]:
        """Every card zone's reading (``H``: board mm -> ideal frame pixels; ``lens`` if known; ``canonical``: the
        frame warped onto the enrolled mat, asked for only where a card's fit is poor or no card is named).

        The reader's hand mask is not used here: a card is as large as a palm, so on the coarse grid a row
        of cards looks like an arm. A hand over a card zone shows instead as something that is not a
        card's clean rectangle (``unknown``), and a hand over part of a card leaves a match too weak to
        be accepted unless what shows is plainly that card."""
        out: dict[str, ZoneReading] = {}
        self.times, self.cpu_times = [], []
        rings: dict[str, tuple[np.ndarray, float]] = {}
        areas: dict[str, float] = {}  # how much of a card the finder saw stand out where the mat's print does not
        seen: list[np.ndarray] = []  # what differs solidly from the enrolled mat, worked out once if asked

        def unlike_the_mat() -> np.ndarray:
            if not seen:
                seen.append(self.mat.compare(canonical()).solid)
            return seen[0]

        def unlike_at(zid: str):
            def unlike(patch) -> np.ndarray:
                """Where the zone's patch differs from the enrolled mat (patch pixels, bool)."""
                return cv2.remap(unlike_the_mat().view(np.uint8), *self._mat_maps[zid], cv2.INTER_NEAREST,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(bool)
            return unlike

        for z in self.zones:
            start, cpu = time.perf_counter(), time.process_time()
            card_set = self.sets[z.card_set]
            card_mm = card_set.card_mm if card_set is not None else self.card_mm
            found = find_card(frame, H, lens, z.bounds, card_mm, self.patches[z.id], z.id not in self._held,
                              unlike_at(z.id) if self.mat is not None and canonical is not None else None)
            self._held.add(z.id)
            if self.mat is not None and found.kind != "empty":
                patch = self.patches[z.id]
                beyond = self._stood_out(z.id)[patch.zone]
                areas[z.id] = np.count_nonzero(beyond) / (card_mm[0] * card_mm[1] * patch.s ** 2)
            if found.mat is not None:
                rings[z.id] = (np.asarray(found.mat) + 2.0, found.plain)
            if found.kind == "empty":
                self._held.discard(z.id)
                out[z.id] = ZoneReading("empty", _confidence(1 - found.area / 0.4))
            elif card_set is None:
                out[z.id] = ZoneReading("unknown", _confidence(found.area))
            else:
                match = self._match(frame, H, lens, z.id, found, card_set)
                if match is None:  # something that is no card of the set's
                    out[z.id] = ZoneReading("unknown", _confidence(found.area))
                else:  # matched against the whole set: a card of the set that this zone may not show is unknown here
                    name = match.name if match.name in self.allowed[z.id] else None
                    out[z.id] = ZoneReading(name or "unknown", match.confidence if name or not match.name else 0.9)
            self.times.append(time.perf_counter() - start)
            self.cpu_times.append(time.process_time() - cpu)
        start = time.perf_counter()
        for zid in covered(rings):
            if out[zid].label == "empty":
                out[zid] = ZoneReading("unknown", 0.6)
        if self.mat is not None and canonical is not None:
            out.update(self._against_the_mat(out, unlike_the_mat, areas))
        if self.times:
            self.times[-1] += time.perf_counter() - start
        return out

    def _match(self, frame: np.ndarray, H: np.ndarray, lens: LensModel | None, zid: str, found: Found,
               card_set: CardSet) -> Match | None:
        """The set's card that the place ``found`` looked at shows (``Match.name`` None: refused), or None when
        nothing there was cut. Cut where the finder fitted it; where that fit was refused, or the outline was no
        card's rectangle but as large as a card's fifth (``EMPTY_AREA``), the card is found by its print
        (``locate``): in dim light a card of the mat's colours shows only its art and frame lines, and on a mat
        printed with art the outline takes in the art beside the card, so fits on it lie off; the family's face
        is where the card is, whatever lies around it."""
        match = None
        patch = self.patches[zid]
        stood_out = self._stood_out(zid)

        def around(corners_mm: np.ndarray) -> np.ndarray:
            return around_card(stood_out, patch.origin, patch.s, corners_mm, card_set.card_mm)

        if found.kind == "card":
            match = card_set.match(cut_card(frame, H, lens, found.corners_mm, card_set.card_mm),
                                   around=around(found.corners_mm))
        if (match is None or match.name is None) and found.area >= EMPTY_AREA:
            located = card_set.locator.locate(patch.sample(frame, H, lens), patch.origin, patch.s)
            # A place found within half what the matcher's warp takes back (``tell.ALIGN_MM``) of the refused cut
            # is the same cut: the stranger the finder cut cleanly is not judged twice.
            if located is not None and (match is None or _apart(located[0], found.corners_mm) > tell.ALIGN_MM / 2):
                other = card_set.match(cut_card(frame, H, lens, located[0], card_set.card_mm),
                                       around=around(located[0]))
                if other.name is not None or match is None:
                    match = other
        return match

    def _stood_out(self, zid: str) -> np.ndarray:
        """What the finder saw standing out of the mat's colour on the zone's patch (bool), the enrolled mat's
        own print left out when a mat is enrolled."""
        raw = self.patches[zid].raw.view(bool)
        return raw if self.mat is None else raw & ~self._mat_print[zid]

    def _against_the_mat(self, out: dict[str, ZoneReading], unlike_the_mat: Callable[[], np.ndarray],
                         areas: Mapping[str, float]) -> dict[str, ZoneReading]:
        """The places no card was named on, judged against the enrolled mat: a place is ``empty`` only where the
        frame differs from the mat over less than a plainly empty place does (``PLAINLY_EMPTY`` of a card, the
        finder's own limit), whatever the finder made of it (artwork around a place that looked like a card's
        edge to it, a ring of several colours); elsewhere something lies there that is no card, or over it, and
        the place is ``unknown``. Specks of noise (dim light) are left out: what differs solidly counts. (Dev
        seeds 19557, 19561, 19562: 254 empty card places differed solidly over 0.4 % of a place at the 95th
        percentile, 4.1 % at most; the 82 places under a hand over 28 % and more. Session 46 made an ``empty``
        place ``unknown`` from ``EMPTY_AREA`` (a card standing out) only: on dev family tables 19648 a tan hand
        over a tan mat in cool light differed over 16 % of a place and was read ``empty`` at 1.0; of 256 empty
        places there and on 19640 and 19646, the 10 between the two limits lay under a hand's fingertips or
        shadow in 8.)

        A place the finder left ``unknown`` is made ``empty`` so only where what the finder saw standing out of
        the mat's colour, beyond what it sees on the enrolled mat itself (its print), is under ``EMPTY_AREA``
        of a card (its own limit for a place with no card). More is something the comparison with the mat
        missed: fresh family tables 19654, a brown hand over a maroon mat in dim light stood out over 0.39 of a
        place to the finder and 0.03 to the comparison, and two covered places read ``empty`` at 0.92-0.94."""
        unnamed = [zid for zid, r in out.items() if r.label in ("empty", "unknown")]
        if not unnamed:
            return {}
        differs = unlike_the_mat()  # (solidly: specks of noise left out)
        judged = {}
        for zid in unnamed:
            share = np.count_nonzero(differs[self._mat_rects[zid]]) / self._card_px[zid]
            if out[zid].label == "empty" and share >= PLAINLY_EMPTY:
                judged[zid] = ZoneReading("unknown", _confidence(share / EMPTY_AREA))
            elif out[zid].label == "unknown" and share < PLAINLY_EMPTY \
                    and areas.get(zid, 0.0) < EMPTY_AREA:
                judged[zid] = ZoneReading("empty", _confidence(1 - share / (2 * EMPTY_AREA)))
        return judged


def _apart(a: np.ndarray, b: np.ndarray) -> float:
    """How far (mm) two cuts' corners lie apart at most, either cut taken either way up (a card's corners are
    ordered from its top-left, or all turned half a turn)."""
    return float(min(np.abs(a - b).max(), np.abs(np.roll(a, 2, axis=0) - b).max()))


def covered(rings: Mapping[str, tuple[np.ndarray, float]]) -> list[str]:
    """The zones whose surroundings are not the mat: ``rings`` gives each zone's ring colour (BGR + 2) and
    how much of the ring is plainly that colour. A hand or an arm over a place covers its ring too: the ring
    is then of two colours (less than ``RING_PLAIN`` of it plain) or, all covered, not of the mat's colour
    seen round the other places: its chromaticity more than ``RING_CHROMA`` from their median, or its
    brightness ``RING_LEVEL`` times theirs or more, or a ``RING_LEVEL``-th or less (a pale sleeve over a dark
    mat keeps nearly its hue: fresh deck 1430, a potion place under a sleeve four times as bright as the mat
    read `empty`)."""
    out = [zid for zid, (_, plain) in rings.items() if plain < RING_PLAIN]
    if len(rings) >= 2:
        chroma = {zid: mat / mat.sum() for zid, (mat, _) in rings.items()}
        level = {zid: float(mat.mean()) for zid, (mat, _) in rings.items()}
        for zid, c in chroma.items():
            others = [v for k, v in chroma.items() if k != zid]
            brighter = level[zid] / float(np.median([v for k, v in level.items() if k != zid]))
            unlike = float(np.abs(c - np.median(others, axis=0)).max()) > RING_CHROMA
            if (unlike or not 1 / RING_LEVEL < brighter < RING_LEVEL) and zid not in out:
                out.append(zid)
    return out
