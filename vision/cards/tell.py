"""Telling look-alike cards apart: compare where the cards of a set differ, learnt from the set itself.

Cards of one family share their frame, palette, title band and rules box and differ in their art, title and
numbers: on the coarse thumbnail (``features.describe``) they score alike. Each enrolled photo also gets a
fine descriptor (``features.fine``: 1.5 mm cells, kept shifted by up to a millimetre either way, as the cut
may miss by that much). From the set, once, on loading:

- each pair's *difference map*: per cell, how far the two cards lie apart at their best alignment (either
  may have been enrolled upside down), capped at ``TAU`` and scaled to 0..1;
- each card's *look-alikes* (coarse likeness at least ``LOOK_ALIKE``) and its *own cells*: where it
  differs from every one of them (its title, its numbers, its own art).

A card found on the mat is first warped onto the photo of the nearest candidate (``_aligned``: an affine
fit of their brightness, OpenCV's ECC): the cut misses by a millimetre or more, and a bowed card's print
is stretched, so without it the letters of a title misfit by a cell and speak for the wrong card; and a
glare streak's light is taken off (``glare.streak``: light added along a straight band, lit all along it). The
card as cut, warped, or warped and lightened, whichever deviates from the candidate in the fewest cells, is
then compared with each candidate the coarse score leaves (``CANDIDATE``): per cell the squared distance,
capped (a fingertip or a glare streak costs the cells it covers, never more). Then:

- a tournament over the cells where each two candidates differ picks the nearest (a look-alike of the card
  the query was warped onto winning, the card is warped onto the winner too, kept so if it then deviates less);
- its **evidence** against every other candidate: over the cells where the two differ (weighted by how
  much), how much better the query correlates with it than with the other, 1 when it is exactly this
  card, -1 when it is exactly the other; a correlation, so that blur, dim light or a sleeve's haze, which
  lower the contrast of thin print, do not turn a card's own digits against it; cells hidden count for
  neither, and still count in the whole (a card half hidden has at most half the evidence);
- its **fit**: the mean distance over its own cells and over the query's own cells (where the query
  differs from every look-alike): a card of the family never enrolled has a title, numbers and art of its
  own. A card without look-alikes: the mean over its whole face. Either way, the query may deviate from
  the card over at most ``UNEXPLAINED_MM2`` where nothing lies over it (``_unexplained``, thin strokes
  included); a card enrolled alone of its family is no exception, as a card of that family never enrolled
  shares all but its own title, numbers and art with it. And its fine print must be found again at the
  cut's resolution (``fineprint``: all of it for a card without look-alikes, the blocks of it none of its
  look-alikes shows for the others), where a stranger's title letters and digits differ.

Once the fit holds, the evidence is heard in fine print too (``fine_evidence``: the same measure over the
blocks of the card's print where the other card's photo does not correlate): either scale may give the
evidence against a candidate, and none may speak for another card (a query whose fine print lies nearer a
look-alike than the card is a card of the family never enrolled, or a look-alike's: ``unknown``).

The card is named when its coarse score reaches ``store.ACCEPT``, its fit is within the limits
(``FIT_MAX``, ``QUERY_FIT_MAX``, ``FIT_ALONE``) and its evidence against each other candidate is at least
``EVIDENCE_MIN``; otherwise it is ``unknown``. Something over the card (``seen``) is left out where it
covers the family's common print and has come from beyond the card's edge, and a glare streak (light added
along a straight band, and the pieces its clipped light breaks into along its line) wherever it lies.
The limits were set on rendered decks 101-103 (seeds 901-903); the 1.5 mm cells and ``QUERY_FIT_MAX`` on
decks 301-304 (seed 3001); the streaks, the unexplained area for every card, ``EVIDENCE_MIN`` and all
candidates compared on decks 601-604 (seed 9601); the alignment, the correlation and thin strokes for a card
without look-alikes on decks 801-808 (seeds 9801-9802); the warp onto the winner on cut cards of decks
601-608 and 701-711; figures on fresh decks in docs/cards.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.cards import features, find, fineprint, glare
from vision.cards.glare import GLARE_LIT

TAU = 8.0  # cap of a cell's squared distance (standardised opponent channels, summed over three)
LOOK_ALIKE = 0.75  # coarse score from which two enrolled cards are look-alikes (of one family)
CANDIDATE = 0.55  # coarse score from which a card is compared cell by cell...
CANDIDATE_GAP = 0.25  # ...if it lies at most this far below the best one's (all such: in a family of a dozen, the
# coarse order is noise, and a cut at the best eight left the card itself out on dev deck 603)
FIT_MAX = 0.11  # mean capped distance over a card's own cells, as a fraction of TAU...
QUERY_FIT_MAX = 0.24  # ...over the query's own cells...
FIT_ALONE = 0.04  # ...over the cells of a card without look-alikes (but what came over its edge)...
EDGE_HIDDEN = 0.25  # ...of which at most this fraction came over its edge...
EDGE_MM = 4.5  # ...a patch that reaches this close to it (a card's border, 2.5 to 4.5 mm on the rendered decks)
BESIDE_MM = 2 * EDGE_MM  # ...or this close where something crosses the card's edge beside it (a border of the
# finger's colour, then a frame line: as much again)
EVIDENCE_MIN = 0.45  # the query must lie this much nearer the card than each other candidate (dev decks 601-604:
# cards never enrolled of a family of one picture reached 0.37, 98 % of the cards named rightly lie above 0.45)
DEVIATES = 0.5  # a cell this far from the card (a fraction of TAU) is not the card's print there...
SHARED = 0.25  # ...and a cell where the card lies at most this far from each look-alike is its family's print
HIDDEN_MM2 = 24.0  # a patch of deviating cells over this much of the family's print is something over it
GLARE_MM = 20.0  # a patch brighter than the card in GLARE_LIT of its deviating cells, at least this long...
GLARE_ASPECT = 3.0  # ...and this many times as long as wide is a streak off a sleeve (dev decks 601-604: 7 of the
# 20 cards of the set unread for their unexplained area lay under such streaks; no card never enrolled gained)
ALIGN_MM = 4.0  # the query is warped onto the nearest card's photo (ECC, affine) when they lie this close...
ALIGN_SCALE = 0.5  # ...fitted at this fraction of the cut's resolution (1 px/mm: a quarter of the cost)
ALIGN_DEG = 8.0  # ...turned at most this much from the cut (the finder's fit, a few degrees off at worst)...
ALIGN_STRETCH = 0.05  # ...and stretched or sheared at most this much (a bowed card)
VISIBLE_MIN = 0.5  # a card's own cells are judged where no glare streak washed them out, if that is this much of them
UNEXPLAINED_MM2 = 40.0  # a card of the set deviates over at most this much of its face where nothing lies over it


def told(fit: float, evidence: float) -> bool:
    """Whether a card whose fit (``Teller.fit``: 1 at the limit) and least evidence are these is named."""
    return fit <= 1.0 and evidence >= EVIDENCE_MIN


class Teller:
    """The fine descriptors of a set's cards (each photo of each card), their difference maps and own cells."""

    def __init__(self, names: Sequence[str], photos: Sequence[Sequence[np.ndarray]], coarse: np.ndarray,
                 card_mm: tuple[float, float], px_per_mm: float):
        self.names = list(names)
        self.grid = features.fine_grid(card_mm)
        self.px_per_mm = px_per_mm
        n = len(self.names)
        photos = [list(card_photos) for card_photos in photos]
        # Each card's descriptors are made when first asked: a set smeared to read one shaken card
        # (``store._smeared_set``) judges a few of its cards, and making them all cost a sixth of the reading of a
        # shaken frame. A set read from a library makes them all at once (``learn``).
        # refs[i]: (photos * shifts, rows, cols, 3); the unshifted first photo is refs[i][centre].
        self.refs = _PerCard(n, lambda i: np.concatenate([features.fine_shifted(p, self.grid, px_per_mm)
                                                          for p in photos[i]]))
        self._centre = len(features.SHIFTS_MM) ** 2 // 2
        self._flat = _PerCard(n, lambda i: _flat(self.refs[i]))
        self.greys = _PerCard(n, lambda i: [_grey(p) for p in photos[i]])
        self.photo = [card_photos[0] for card_photos in photos]
        self._glare_ref = _PerCard(n, lambda i: glare.reference(self.photo[i]))
        self.prints = _PerCard(n, lambda i: [fineprint.detail(p, px_per_mm) for p in photos[i]])
        self._images: dict[int, tuple] = {}  # a query's descriptor -> it, its image, the card it was warped onto
        self._own_print: dict[int, np.ndarray] = {}
        self._varies: dict[int, np.ndarray | None] = {}
        self._onto: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
        self._near: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, dict[int, int]]] = {}
        self._done: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # a query's registrations and print, per judge
        self._beside: dict[int, np.ndarray] = {}  # a query's descriptor -> its cells beside an edge crossed, per judge
        self.look_alikes = [[j for j in range(n) if j != i and coarse[i, j] >= LOOK_ALIKE] for i in range(n)]
        self.diff: dict[tuple[int, int], tuple[np.ndarray, int]] = {}
        self._cells: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def own(self, i: int) -> np.ndarray:
        """Card ``i``'s own cells: where it differs from every look-alike (its title, its numbers, its own art)."""
        return self._own_and_shared(i)[0]

    def shared(self, i: int) -> np.ndarray:
        """(rows, cols) 1 where card ``i``'s print is its family's: every look-alike shows what it shows there
        (frame, bands, rules box)."""
        return self._own_and_shared(i)[1]

    def _own_and_shared(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        # Learnt per card when first asked: a set smeared to read one shaken card (``store._through_blur``) asks
        # for the card it judges, not for each of its family's.
        if i not in self._cells:
            own = np.ones((self.grid[1], self.grid[0]), np.float32)
            varying = np.zeros_like(own)
            for j in self.look_alikes[i]:
                own = np.minimum(own, self.difference(i, j))
                varying = np.maximum(varying, self.difference(i, j))
            self._cells[i] = (own, (varying <= SHARED).astype(np.uint8))
        return self._cells[i]

    def _align(self, i: int, j: int) -> tuple[np.ndarray, int]:
        """Cards ``i`` and ``j`` compared at their best alignment (``j``'s photos, shifts and either way up
        against ``i``'s first photo, as either may have been enrolled upside down): the cells where they
        differ (0..1: capped squared distance / TAU) and whether ``j`` is turned half a turn from ``i``."""
        if (i, j) not in self.diff:
            a = self.refs[i][self._centre]
            best = None
            for half in (0, 1):
                d = _capped(self._turn(self.refs[j], half), a)  # every photo and shift at once
                k = int(np.argmin(d.reshape(len(d), -1).sum(axis=1)))
                if best is None or d[k].sum() < best[0].sum():
                    best = (d[k].copy(), half)  # (not a view: it would keep every shift's map)
            self.diff[i, j] = best
        return self.diff[i, j]

    def upside_down(self, i: int, j: int) -> bool:
        """Whether card ``j``'s photo lies half a turn from card ``i``'s (either may have been enrolled upside down)."""
        return bool(self._align(i, j)[1])

    def difference(self, i: int, j: int) -> np.ndarray:
        """The cells where cards ``i`` and ``j`` differ, in ``i``'s frame (0..1)."""
        return self._align(i, j)[0]

    @staticmethod
    def _turn(refs: np.ndarray, half: int) -> np.ndarray:
        return refs[:, ::-1, ::-1] if half else refs

    def distance(self, query: np.ndarray, i: int, half: int = 0) -> np.ndarray:
        """(rows, cols): the query's capped squared distance to card ``i`` (turned half a turn when
        ``half``) per cell, at its best photo and shift (the one nearest overall: |r|² - 2 r.q, one
        product for all), / TAU."""
        key = ("distance", id(query), i, half)
        if key not in self._done:  # asked again by the tournament, the evidence and the fit
            q = query[::-1, ::-1] if half else query
            d = _capped(self.refs[i][self._nearest(query, i, half)], q)
            self._done[key] = (query, d[::-1, ::-1] if half else d)
        return self._done[key][1]

    def _query(self, card: np.ndarray, i: int) -> np.ndarray:
        """The fine descriptor of ``card`` warped onto card ``i`` (``_aligned``), and with a glare streak's
        light taken off (``glare.streak``), or as cut: whichever leaves the fewest cells deviating from ``i``'s
        print (a warp pulled by a fingertip brings it no nearer; a band of light that is not glare neither)."""
        plain = features.fine(card, self.grid)
        warped = self._aligned(card, i)
        options = [(self._deviation(plain, i), plain, card, None)]
        if warped is card and options[0][0][0]:
            # A strong streak pulls the fit of brightness off, and the card as cut is never looked at for one
            # (fresh decks 1400-1415: half the misses under a streak): its light is taken off the card as cut, then
            # the card is fitted (once the ECC fails: no cost to other cards).
            found = glare.streak(card, self._glare_ref[i])
            if found is not None:
                warped = self._aligned(card, i, by=found[0])
        washed = None
        if warped is not card:
            fitted = features.fine(warped, self.grid)
            options.append((self._deviation(fitted, i), fitted, warped, i))
            # A streak's light is looked for where the warped card still deviates in some cell: light that
            # moves no cell off the card's print changes nothing the fit judges (each pass costs 2-4 ms).
            found = glare.streak(warped, self._glare_ref[i]) if options[-1][0][0] else None
            if found is not None:
                lifted, washed = found
                fitted = features.fine(lifted, self.grid)
                options.append((self._deviation(fitted, i), fitted, lifted, i))
        _, q, image, onto = min(options, key=lambda o: o[0])
        # Taken off a streak that clipped the print somewhere (the lamp's light, as bright as the card's lightest
        # print): a hand or an object over the card, lit along a band too, is not as bright (dev deck 1322).
        lightened = len(options) == 3 and image is options[2][2] and bool(washed.any())
        # Where the streak washed the print out (the cells mostly under its light), in the warped card's frame.
        under = None
        if washed is not None and onto is not None:
            under = cv2.resize(washed.view(np.uint8).astype(np.float32), self.grid,
                               interpolation=cv2.INTER_AREA) >= 0.5
        self._images[id(q)] = (q, image, onto, under, lightened)  # the entry keeps its query alive (its id)
        return q

    def _deviation(self, q: np.ndarray, i: int) -> tuple[int, float]:
        """How far the query ``q`` lies from card ``i``, as the fit judges it: the cells that deviate (a
        fingertip's deviate either way), then the distance overall."""
        d = self.distance(q, i)
        return int(np.count_nonzero(d > DEVIATES)), float(d.sum())

    def _aligned(self, card: np.ndarray, i: int, photo: int = 0, by: np.ndarray | None = None) -> np.ndarray:
        """``card`` warped onto card ``i``'s first photo, or its ``photo``-th (an affine fit of their
        brightness, ECC; of ``by``'s brightness when given: ``card`` with a glare streak's light taken off);
        ``card`` itself when the fit fails or goes further than a misplaced cut."""
        ref = self.greys[i][photo]
        q = _grey(card if by is None else by)
        warp = np.eye(2, 3, dtype=np.float32)
        try:
            _, warp = cv2.findTransformECC(ref, q, warp, cv2.MOTION_AFFINE, _ECC, None, 1)
        except cv2.error:
            return card
        h, w = card.shape[:2]
        if not _as_cut(warp, ref.shape, ALIGN_MM * self.px_per_mm * ALIGN_SCALE):
            return card
        warp[:, 2] /= ALIGN_SCALE  # found at ALIGN_SCALE of the card's resolution
        return cv2.warpAffine(card, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_REPLICATE)

    def _registered(self, image: np.ndarray, i: int, photo: int = 0) -> np.ndarray:
        """``_aligned`` of a query's ``image`` onto card ``i``'s ``photo``-th, once per judge: the fine print
        check and the evidence in fine print both register the query onto the card's first photo."""
        key = ("onto", id(image), i, photo)
        if key not in self._done:  # the entry keeps its image alive: its id is not reused
            self._done[key] = (image, self._aligned(image, i, photo))
        return self._done[key][1]

    def _detail(self, image: np.ndarray) -> np.ndarray:
        """``fineprint.detail`` of a query's ``image`` (as given or registered), once per judge."""
        key = ("detail", id(image))
        if key not in self._done:
            self._done[key] = (image, fineprint.detail(image, self.px_per_mm))
        return self._done[key][1]

    def _inside(self, seen: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
        """``fineprint.inside`` of the cells ``seen``, once per judge (the fine print check and the evidence in
        fine print both leave out the blocks something lies over)."""
        mask = seen.astype(bool)
        key = ("inside", mask.tobytes(), mask.shape, shape)
        if key not in self._done:
            self._done[key] = (mask, fineprint.inside(mask, shape, self.px_per_mm))
        return self._done[key][1]

    def _nearest(self, query: np.ndarray, i: int, half: int = 0) -> int:
        """The photo and shift of card ``i`` nearest the query (turned half a turn when ``half``) overall
        (|r|² - 2 r.q), kept for the query being judged."""
        key = (id(query), half)
        entry = self._near.get(key)
        if entry is None or entry[0] is not query:  # the entry keeps its query alive: its id is not reused
            entry = self._near[key] = (query, (query[::-1, ::-1] if half else query).ravel(), {})
        found = entry[2].get(i)
        if found is None:
            flat, sq = self._flat[i]
            found = entry[2][i] = int(np.argmin(sq - 2 * (flat @ entry[1])))
        return found

    def judge(self, card: np.ndarray, coarse: np.ndarray, turns: np.ndarray,
              named_from: float = -np.inf, rescore=None,
              around: np.ndarray | None = None) -> tuple[int | None, float, float]:
        """(the nearest card, None when no card is near; its fit; its least evidence against another
        candidate) for the upright card image ``card``, given each enrolled card's coarse score and best turn
        (0: as cut, 1: a half turn, 2 and 3: quarter turns). ``told`` says whether it is accepted. A nearest
        card whose coarse score is under ``named_from`` cannot be named: the fine print, which can only refuse
        it or add evidence, is not looked at (its fit and evidence are the cells'). ``rescore(image, i)``, when
        given, is card ``i``'s coarse score of a card image: a nearest card under ``named_from`` whose query had
        a glare streak's light taken off is scored so again, and its score in ``coarse`` raised to it (in place).
        ``around``: where something not the mat lies just beyond the card's edge (``find.around_card``), which
        ``seen`` asks."""
        top = float(coarse.max()) if coarse.size else 0.0
        candidates = [int(i) for i in np.argsort(coarse)[::-1]
                      if coarse[i] >= max(CANDIDATE, top - CANDIDATE_GAP)]
        if not candidates:
            return None, 1.0, -1.0
        queries: dict[int, np.ndarray] = {}
        self._near, self._images, self._done, self._beside = {}, {}, {}, {}

        beside: dict[int, np.ndarray] = {}  # per turn: the same for every query made under it

        def make(t: int, onto: int) -> np.ndarray:
            q = self._query(turned(card, t), onto)
            if around is not None:
                if t not in beside:
                    beside[t] = _beside(turned(around.view(np.uint8), t), self.grid)
                self._beside[id(q)] = beside[t]
            return q

        def query_of(c: int) -> np.ndarray:
            """The query under candidate ``c``'s turn, warped onto the nearest candidate with that turn: its
            family shares the frame and layout, so one fit serves every candidate (the cut misses by a
            millimetre or more, a bowed card's print is stretched, and a title's letters misfit by a cell
            tell nothing). Made when first needed: only the candidate standing is compared in its turn."""
            t = int(turns[c])
            if t not in queries:
                queries[t] = make(t, next(i for i in candidates if int(turns[i]) == t))
            return queries[t]

        # A tournament over the cells where each two candidates differ: the nearer one stays. The evidence of
        # the one standing against every candidate at once, again only when another takes its place.
        k, best = 0, candidates[0]
        while True:
            query = query_of(best)  # in the frame of the best candidate's first photo
            d_best = self.distance(query, best)
            seen = self.seen(best, d_best, query)
            others = [c for c in candidates if c != best]
            ev = self.evidence(query, best, others, seen)
            beaten = [m for m in range(len(others)) if candidates.index(others[m]) > k and ev[m] < 0]
            if not beaten:
                break
            best = others[beaten[0]]
            k = candidates.index(best)
        # The query was warped onto the nearest candidate of its turn; one of its look-alikes won: warped onto
        # the winner itself, the card's own title and numbers may fit it better (whichever deviates less). Not
        # when no cell of it deviates from the winner's print: they fit it already (a warp, 4-7 ms, would only
        # lower the distance a little; dev decks 1100-1107: the same cards named, a third of these warps saved).
        target = next(i for i in candidates if int(turns[i]) == int(turns[best]))
        if target != best and self._deviation(query, best)[0] > 0:
            again = make(int(turns[best]), best)
            if self._deviation(again, best) < self._deviation(query, best):
                query = again
                d_best = self.distance(query, best)
                seen = self.seen(best, d_best, query)
                ev = self.evidence(query, best, [c for c in candidates if c != best], seen)
        _, image, onto, _, lightened = self._images[id(query)]
        nameable = bool(coarse[best] >= named_from)
        if not nameable and lightened and rescore is not None:
            # A glare streak lowers the coarse likeness too: the card with its light taken off is scored again.
            coarse[best] = max(coarse[best], rescore(image, best))
            nameable = bool(coarse[best] >= named_from)
        fit = self.fit(query, best, d_best, seen, image if nameable else None)
        least = float(ev.min()) if len(ev) else 1.0
        if fit <= 1.0 and nameable:
            least = self._fine_least(image, onto == best, best, [c for c in candidates if c != best], ev, seen)
        return best, fit, least

    def _fine_least(self, image: np.ndarray, registered: bool, best: int, others: list[int], ev: np.ndarray,
                    seen: np.ndarray) -> float:
        """The least evidence for ``best`` (``ev``: its cells' against each of ``others``) with its fine print
        heard too (``fine_evidence``). Two cards of a family of one picture differ in their digits, title and
        a small mark, which the cells blur in dim light or under a bow: where the cells leave the evidence
        against a candidate under ``EVIDENCE_MIN``, the fine print may give it (either scale suffices). And
        no scale may speak for another card: a query whose fine print lies nearer one of ``best``'s
        look-alikes than ``best`` itself (a card of the family never enrolled, whose title's letters
        correlate with the card's only by the band they sit on) has that as its evidence."""
        weak = [others[m] for m in range(len(others)) if ev[m] < EVIDENCE_MIN]
        rivals = sorted(set(weak) | set(self.look_alikes[best]))
        least = float(ev.min()) if len(ev) else 1.0
        if not rivals:
            return least
        fine = dict(zip(rivals, self.fine_evidence(image, best, rivals, seen, registered), strict=True))
        if weak:
            least = float(min(np.fmax(e, fine[c]) if c in fine else e for c, e in zip(others, ev, strict=True)))
        against = [fine[j] for j in self.look_alikes[best] if np.isfinite(fine[j])]
        return min([least, *(f for f in against if f < 0)])

    def seen(self, i: int, d: np.ndarray, query: np.ndarray) -> np.ndarray:
        """(rows, cols) 1 where the query (``d``: its distance map to card ``i``) shows its print, 0 where
        something lies over it: a glare streak off a sleeve, a fingertip, a hand. Such a thing does not keep
        to where the cards of the family differ: each patch of cells at least ``DEVIATES`` / 2 from ``i``
        that deviates by ``DEVIATES`` over ``HIDDEN_MM2`` of the family's print (where ``i`` and all
        its look-alikes agree: frame, bands, rules box, shared art) and reaches the card's edge (``_at_edge``:
        a fingertip, a hand come from beyond it; nearer something the finder saw cross the edge beside it,
        ``judge``'s ``around``) is hidden, and so is a glare streak wherever it lies
        (``_streaks``: light added along a straight band). A patch inside the card is print: a card never
        enrolled shows its own mark, title and digits over the print its family shares (bench seed 19676, deck
        1538: a fire crystal whose longer title lay over the family's title band, read as fire-5; seed 19682,
        deck 1559: cards of marrow-broth's family, their own marks over its art, read as it at 0.69-0.90, 15
        times). Hidden cells count in neither the evidence nor the query's own cells; ``i``'s own cells count
        whatever lies over them (``fit``), so a card of the family never enrolled is no better hidden. A card
        without look-alikes: all seen."""
        if not self.look_alikes[i]:
            return np.ones(d.shape, np.float32)
        n, labels = cv2.connectedComponents((d > DEVIATES / 2).view(np.uint8), connectivity=8)
        if n <= 1:
            return np.ones(d.shape, np.float32)
        strong_shared = ((d > DEVIATES) & self.shared(i).view(bool)).ravel()
        hidden = np.bincount(labels.ravel(), weights=strong_shared, minlength=n) >= HIDDEN_MM2 / features.FINE_MM ** 2
        hidden &= _at_edge(labels, n, self._beside.get(id(query)))
        hidden |= self._streaks(query, i, d, labels, n)
        hidden[0] = False
        return (~hidden[labels]).astype(np.float32)

    def washed(self, query: np.ndarray) -> np.ndarray:
        """(rows, cols) True where a glare streak found in the query's image (``glare.streak``: light added
        along a straight band, lit all along its lines) washed its print out: the cells mostly under its light
        and as bright as the card's lightest print away from it, or brighter (the lamp's light clipped the
        print). What lies there is the lamp's, neither this card's nor a stranger's print."""
        entry = self._images.get(id(query))
        if entry is None or entry[3] is None:
            return np.zeros((self.grid[1], self.grid[0]), bool)
        return entry[3]

    def _streaks(self, query: np.ndarray, i: int, d: np.ndarray, labels: np.ndarray, n: int) -> np.ndarray:
        """(n,) which labelled patches are a glare streak: light added over the card (the query brighter than
        card ``i`` in nearly all its deviating cells) along a straight band (long and narrow), and the lit
        patches along its line (``tests/cards/test_tell.py``, cool light, seed 611: a streak clipped over a
        scorpion's pale art, its far piece 47 mm² of the family's print, apart from the card's edge)."""
        ref = self.refs[i][self._nearest(query, i)]
        strong = (d > DEVIATES).ravel()
        lit = strong & (query[..., 0] > ref[..., 0]).ravel()
        if not lit.any():  # no cell lit: no streak (nor its shape to measure)
            return np.zeros(n, bool)
        lab = labels.ravel()
        count = np.bincount(lab, minlength=n).astype(np.float64)
        ys, xs = np.indices(d.shape)
        x, y = xs.ravel().astype(np.float64), ys.ravel().astype(np.float64)
        mx = np.bincount(lab, x, n) / count
        my = np.bincount(lab, y, n) / count
        cxx = np.bincount(lab, x * x, n) / count - mx * mx
        cyy = np.bincount(lab, y * y, n) / count - my * my
        cxy = np.bincount(lab, x * y, n) / count - mx * my
        root = np.sqrt(np.maximum(((cxx - cyy) / 2) ** 2 + cxy ** 2, 0))
        # A band of length L and width W: variances L²/12 and W²/12 along and across it (in cells).
        length = np.sqrt(12 * np.maximum((cxx + cyy) / 2 + root, 0)) * features.FINE_MM
        width = np.sqrt(12 * np.maximum((cxx + cyy) / 2 - root, 0)) * features.FINE_MM
        strong_n = np.bincount(lab, strong, n)
        lit_patch = (np.bincount(lab, lit, n) >= GLARE_LIT * np.maximum(strong_n, 1)) & (strong_n > 0)
        streak = lit_patch & (length >= GLARE_MM) & (length >= GLARE_ASPECT * width)
        # A streak's light clipped over the card's brightest print breaks it in pieces along its line: a lit
        # patch whose middle lies within the band of a streak found is that streak's too.
        theta = 0.5 * np.arctan2(2 * cxy, cxx - cyy)  # each patch's long axis
        for k in np.flatnonzero(streak):
            across = np.abs(-(mx - mx[k]) * np.sin(theta[k]) + (my - my[k]) * np.cos(theta[k]))
            streak |= lit_patch & (across * features.FINE_MM <= width[k] / 2 + features.FINE_MM)
        return streak

    def evidence(self, query: np.ndarray, best: int, others: Sequence[int],
                 seen: np.ndarray | None = None) -> np.ndarray:
        """(len(others),): how much nearer the query (in ``best``'s frame) lies to ``best`` than to each of
        ``others`` over the cells where the two differ and that are ``seen``: 1 when it is ``best`` exactly,
        -1 when it is the other; cells not seen count for neither (0), over the whole of where the two
        differ; two enrolled cards that do not differ at all give -1 (they cannot be told)."""
        if not others:
            return np.zeros(0)
        a = self.refs[best][self._nearest(query, best)]
        w, b = [], []
        for other in others:
            w_other, half = self._align(best, other)
            b_other = self.refs[other][self._nearest(query, other, half)]
            w.append(w_other)
            b.append(b_other[::-1, ::-1] if half else b_other)
        w = np.array(w).reshape(len(others), -1)
        ws = w if seen is None else w * seen.ravel()
        # Which of the two the query looks like where they differ, whatever its contrast there (blur, dim
        # light and a sleeve's haze lower it): the weighted correlation with each, 1 - corr(a, b) apart.
        ab, qa, qb = _correlations(ws, query, a, np.array(b))
        out = qa - qb
        # Over the whole of where the two differ: what is hidden speaks for neither, so a card half hidden
        # has at most half the evidence (a card never enrolled hides its own print no better).
        out *= ws.sum(axis=1) / np.maximum(w.sum(axis=1), 1e-12) / np.maximum(1 - ab, 1e-3)
        out[((w * w).sum(axis=1) <= 1e-6) | (ab >= 1 - 1e-3)] = -1.0
        return out

    def fine_evidence(self, image: np.ndarray, a: int, others: Sequence[int], seen: np.ndarray,
                      registered: bool = False) -> np.ndarray:
        """(len(others),): how much nearer the query ``image`` (in card ``a``'s frame; ``registered`` when
        already warped onto ``a``'s photo) lies to ``a`` than to each of ``others`` in fine print: over the
        blocks of print where the two cards' photos do not correlate (``fineprint.CORRELATES``), (corr(q, a)
        - corr(q, b)) / (1 - corr(a, b)), the blocks not wholly ``seen`` counting for neither; 1 when it is
        exactly ``a``, -1 when exactly the other, NaN when the two photos' print differs in no block."""
        px = self.px_per_mm
        pairs = [self._fine_pair(a, b)[1:] for b in others]
        out = np.full(len(others), np.nan)
        union = np.zeros_like(pairs[0][0]) if pairs else None
        for differ, _, _ in pairs:
            union |= differ
        if union is None or not union.any():
            return out
        within = self._inside(seen, image.shape[:2])
        q = self._detail(image if registered else self._registered(image, a))  # onto a's photo, as b's was
        shifted = fineprint.shifted_patches(q, px, union)
        row = np.zeros(union.shape, np.int64)
        row[union] = np.arange(int(union.sum()))
        c_qa = np.zeros(union.shape)
        c_qa[union] = fineprint.best_correlation(fineprint.patches(self.prints[a][0], px, union), shifted)
        for k, (differ, c_ab, patches_b) in enumerate(pairs):
            if differ.any():
                c_qb = fineprint.best_correlation(patches_b, shifted[row[differ]])
                score = np.clip((c_qa[differ] - c_qb) / np.maximum(1 - c_ab[differ], 0.1), -1, 1)
                out[k] = float(score[within[differ]].sum()) / float(differ.sum())
        return out

    def _fine_pair(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Card ``b``'s first photo against ``a``'s, turned as it lies against it and warped onto it: the
        blocks of print (either's) where the two differ (do not correlate); those of ``a``'s own print, their
        correlation per block and ``b``'s print there (``fineprint.patches``). Learnt once per pair, when
        first needed. (Where ``b`` alone has print, the query's correlation with ``a``'s blank says nothing.)"""
        key = (b, a)
        if key not in self._onto:
            photo = self.photo[b][::-1, ::-1] if self._align(a, b)[1] else self.photo[b]
            ref_b = fineprint.detail(self._aligned(photo, a), self.px_per_mm)
            printed, c_ab = fineprint.correlations(self.prints[a][0], ref_b, self.px_per_mm)
            differ = printed & (c_ab < fineprint.CORRELATES)
            mine = differ & fineprint.printed(self.prints[a][0], self.px_per_mm)
            self._onto[key] = (differ, mine, c_ab, fineprint.patches(ref_b, self.px_per_mm, mine))
        return self._onto[key]

    def fit(self, query: np.ndarray, i: int, d: np.ndarray, seen: np.ndarray | None = None,
            image: np.ndarray | None = None) -> float:
        """How far the query (in card ``i``'s frame; ``d`` its distance map to ``i``) lies from card ``i``
        where ``i``'s family differs, as a fraction of ``FIT_MAX``: the larger of its weighted mean distance
        over ``i``'s own cells (where ``i`` differs from every look-alike) and over the query's own cells
        (where the query differs from every look-alike of ``i``): a card of the family never enrolled has
        a title, numbers and art of its own, which ``i`` does not have. A card without look-alikes: the mean
        over all its cells, against ``FIT_ALONE``. Either way its fine print (``fineprint``: all of it for a
        card without look-alikes, else the blocks none of them shows) must be found again in ``image`` (the
        query as its descriptor was made: warped onto ``i``, glare taken off) at the cut's resolution, where a
        card of its family never enrolled shows its own title and numbers."""
        if not self.look_alikes[i]:
            unhidden = _edge_seen(d, self._beside.get(id(query)))
            judged = _visible(unhidden, self.washed(query))
            alone = _alone(d, unhidden, judged) / FIT_ALONE
            if alone <= 1.0 and image is not None and not self._print_found(image, i, None, judged):
                return np.inf
            return alone
        seen = np.ones(d.shape, np.float32) if seen is None else seen
        own = self.own(i)
        # What makes it this card must be seen, whatever lies over it: a stranger under a streak is no excuse.
        # But where a glare streak washed the print out the lamp is seen, not the card nor a stranger: what
        # makes it this card is then judged where it is still seen, if that is at least VISIBLE_MIN of it (a
        # stranger shows its own title, numbers and art there as well).
        washed = self.washed(query)
        visible = own * ~washed
        if float(visible.sum()) < VISIBLE_MIN * float(own.sum()):
            visible = own
        mine = float((visible * d).sum()) / max(float(visible.sum()), 1e-6)
        seen = _visible(seen.astype(bool), washed).astype(np.float32)
        theirs = np.full(d.shape, 1.0, np.float32)
        for j in self.look_alikes[i]:
            theirs = np.minimum(theirs, self.distance(query, j, self._align(i, j)[1]))
        theirs *= seen
        # A card never enrolled shows its own title, numbers or mark somewhere: over more than a card of the set
        # deviates by noise, blur and a millimetre of misfit (measured on dev decks: at most 38 mm²).
        if _unexplained(d, seen) > UNEXPLAINED_MM2:
            return np.inf
        cells = max(mine / FIT_MAX, float((theirs * d).sum()) / max(float(theirs.sum()), 1e-6) / QUERY_FIT_MAX)
        # Its own print at the cut's resolution (a stranger's title letters and digits blur alike in cells), when
        # the cells have not already refused it.
        if cells <= 1.0 and image is not None and not self._print_found(image, i, self._own_blocks(i),
                                                                         seen.astype(bool)):
            return np.inf
        return cells

    def learn(self) -> None:
        """Learn what the fine print check needs of every card of the set (``_own_blocks``: a few seconds for
        twenty look-alikes), each card's own cells and where each two cards differ, at once: done when a reader
        loads the set, not on its first frames."""
        for per_card in (self.refs, self._flat, self.greys, self._glare_ref, self.prints):
            per_card.make_all()
        for i in range(len(self.names)):
            self._own_blocks(i)
            self._varying_blocks(i)
            self.own(i)
        for i in range(len(self.names)):  # and how each two cards differ, which any two candidates need
            for j in range(len(self.names)):
                if i != j:
                    self._align(i, j)

    def _own_blocks(self, i: int) -> np.ndarray:
        """The blocks of card ``i``'s print (``fineprint.blocks``) that none of its look-alikes shows: its
        title's letters, its numbers, its own mark and art, at the cut's resolution (each look-alike's photo
        warped onto ``i``'s first, as a query is). Learnt per card when first asked (``learn`` asks for every
        card's when a reader loads the set), not at each enrolment."""
        if i not in self._own_print:
            own = None
            for j in self.look_alikes[i]:
                differ = self._fine_pair(i, j)[0]
                own = differ if own is None else own & differ
            self._own_print[i] = own
        return self._own_print[i]

    def _varying_blocks(self, i: int) -> np.ndarray | None:
        """The blocks where card ``i``'s family varies at the least: where it differs from the look-alike that
        differs from it over the fewest blocks of print (``_fine_pair``), its nearest: in a family of one picture,
        its title, numbers and mark, and theirs; a card of the family never enrolled differs there too. (Over all
        its look-alikes, those of other art make it the whole card.) None without a look-alike that differs.
        Learnt with ``_own_blocks``."""
        if i not in self._varies:
            pairs = [d for d in (self._fine_pair(i, j)[0] for j in self.look_alikes[i]) if d.any()]
            self._varies[i] = min(pairs, key=lambda d: int(d.sum())) if pairs else None
        return self._varies[i]

    def _print_found(self, image: np.ndarray, i: int, where: np.ndarray | None, seen: np.ndarray) -> bool:
        """Whether the query ``image`` (in card ``i``'s frame) shows ``i``'s fine print again (``fineprint``),
        over its whole face or the blocks in ``where``, as one of ``i``'s photos shows it; blocks not wholly
        ``seen`` (cells: nothing lies over them) are left out, as a fingertip hides a card's print.

        The print is compared at half a millimetre, finer than the query's descriptor was fitted: the query
        chosen for its cells (as cut, or warped onto the nearest candidate) may still lie a millimetre off
        and turned a degree (the cells' shifts forgive that), which moves a title's strokes off the card's.
        So, when its print is not found as given, it is registered again onto each photo it is compared
        with (ECC, affine) and compared so: a card never enrolled registered onto the card fits by its frame
        and bands, its title's letters and digits still differ. A card with look-alikes must also show its print
        where it differs from its nearest look-alike about as clearly as the rest (``fineprint.found_again``)."""
        within = self._inside(seen, image.shape[:2])
        varies = self._varying_blocks(i) if where is not None else None

        def found(ref: np.ndarray, query: np.ndarray) -> bool:
            return fineprint.found_again(ref, query, self.px_per_mm, within, where, varies)

        as_given = self._detail(image)
        for k, ref in enumerate(self.prints[i]):
            if found(ref, as_given):
                return True
            registered = self._registered(image, i, k)
            if registered is not image and found(ref, self._detail(registered)):
                return True
        return False


_NOT_MADE = object()


class _PerCard(Sequence):
    """A card's value made by ``make(i)`` when first asked, then kept."""

    def __init__(self, n: int, make):
        self._make = make
        self._made: list = [_NOT_MADE] * n

    def __len__(self) -> int:
        return len(self._made)

    def __getitem__(self, i: int):
        if self._made[i] is _NOT_MADE:
            self._made[i] = self._make(i)
        return self._made[i]

    def make_all(self) -> None:
        for i in range(len(self)):
            self[i]



def _flat(refs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A card's descriptors as rows, and each row's squared length (``_nearest``)."""
    f = refs.reshape(len(refs), -1)
    return f, (f * f).sum(axis=1)


def _visible(seen: np.ndarray, washed: np.ndarray) -> np.ndarray:
    """(rows, cols) bool: the cells ``seen`` but those a glare streak washed out, if at least ``VISIBLE_MIN`` of
    them remain; else ``seen`` (what is left is too little to judge the card by)."""
    judged = seen & ~washed
    return judged if judged.sum() >= VISIBLE_MIN * seen.sum() else seen


def _alone(d: np.ndarray, seen: np.ndarray, judged: np.ndarray | None = None) -> float:
    """The mean distance to a card without look-alikes (nothing tells where its family's cards would differ)
    over its cells ``seen``: all but the deviating patches that reach its edge (``_edge_seen``: a fingertip, a
    hand come from outside the card; a card of its family never enrolled differs inside it: its art, title and
    numbers); 1 (as far as can be) when such patches hide more than ``EDGE_HIDDEN`` of it. ``judged``: the
    cells ``seen`` but those a glare streak washed out (``_visible``), over which the mean and the unexplained
    area are taken."""
    if seen.mean() < 1 - EDGE_HIDDEN:
        return 1.0
    judged = seen if judged is None else judged
    if _unexplained(d, judged) > UNEXPLAINED_MM2:
        return np.inf
    return float(d[judged].mean())


def _edge_seen(d: np.ndarray, beside: np.ndarray | None = None) -> np.ndarray:
    """(rows, cols) True but in the deviating patches (from card ``d``'s distance map) that reach the card's
    edge (``_at_edge``): a fingertip, a hand come from outside the card."""
    n, labels = cv2.connectedComponents((d > DEVIATES / 2).view(np.uint8), connectivity=8)
    edge = _at_edge(labels, n, beside)
    edge[0] = False
    return ~edge[labels]


def _unexplained(d: np.ndarray, seen: np.ndarray) -> float:
    """The area (mm²) of the card's face, where nothing lies over it, that deviates from the card, thin
    strokes included: a card never enrolled may differ in thin strokes only (dev decks 605-606: a title and
    digits over 70 mm², 40 of them thin; dev deck 804: a card of a family of one picture, enrolled alone,
    taken for its stranger twice). Before the query was warped onto the card a millimetre of misfit left
    lines one cell wide along a plain card's sharp print, and a card without look-alikes counted patches
    two cells across only."""
    return float(((d > DEVIATES) & seen.astype(bool)).sum()) * features.FINE_MM ** 2


def _at_edge(labels: np.ndarray, n: int, beside: np.ndarray | None = None) -> np.ndarray:
    """(n,) whether each of the ``n`` labelled patches reaches the card's edge: within ``EDGE_MM`` of it, or
    within ``BESIDE_MM`` where something crosses the edge beside it (``beside``, from ``_beside``: a dark
    fingertip over a border of its own colour deviates only where it reaches the paler panel inside; bench
    seed 19685, a fire crystal in dim light)."""
    edge = np.zeros(n, bool)
    # Within the card's border: warped onto the card, the cells where a fingertip crosses the border may match it.
    k = max(1, round(EDGE_MM / features.FINE_MM))
    border = np.ones(labels.shape, bool)
    border[k:-k, k:-k] = False
    if beside is not None:
        border |= beside
    edge[labels[border]] = True
    return edge


def _beside(around: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """(rows, cols) bool: the card's cells within ``BESIDE_MM`` of where something that is not the mat crosses
    its edge (``around``: ``find.around_card``, turned as the query is), whichever way the crossing lies from
    them (a fingertip over a corner crosses the outline at the corner and lies along both edges). Only what
    is as narrow as a finger (``find.FINGER_MM``) counts: what lies beyond a whole side is the card's own blur
    in a shaken frame, its shadow or the mat's print, and tells nothing of what lies over it."""
    cols, rows = grid
    e = max(1, round(find.AROUND_MM / features.FINE_MM))
    ring = (cv2.resize(around.astype(np.float32), (cols + 2 * e, rows + 2 * e), interpolation=cv2.INTER_AREA)
            >= 0.5).view(np.uint8)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ring, connectivity=8)
    widest = round(find.FINGER_MM / features.FINE_MM) + e  # (a corner crossed: the ring's corner too)
    wide = np.flatnonzero(np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) > widest)
    crossed = ring.astype(bool) & ~np.isin(labels, wide[wide > 0])
    if not crossed.any():
        return np.zeros((rows, cols), bool)
    # Measured from the crossing, which lies past the sleeve's gap, about half the ring beyond the edge.
    reach = (BESIDE_MM + find.AROUND_MM / 2 + find.GAP_MM / 2) / features.FINE_MM
    far = cv2.distanceTransform((~crossed).view(np.uint8), cv2.DIST_L2, 3)
    return far[e:-e, e:-e] <= reach


def _correlations(w: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, ...]:
    """(k,) each: the correlations of descriptors ``a`` and each ``b``, ``q`` and ``a``, ``q`` and each ``b``
    (``q``, ``a``: rows, cols, 3; ``b``: k, rows, cols, 3) over their cells weighted by each row of ``w``
    (k, cells). All the weighted sums at once, a family of twenty look-alikes being twenty rows (einsum:
    a BLAS matrix product would start threads that cost more than the sums)."""
    k = len(w)
    q, a, b = q.reshape(-1, 3), a.reshape(-1, 3), b.reshape(k, -1, 3)
    total = np.maximum(3 * w.sum(axis=1, dtype=np.float64), 1e-6)
    # What q and a share with every row: their sums per cell, weighted by each row (matrix-vector products).
    s_q, s_a, s_qq, s_aa, s_qa = (np.asarray(w @ v, np.float64) for v in (
        _cells(q), _cells(a), _cells(q * q), _cells(a * a), _cells(q * a)))
    wb = (w[:, :, None] * b).reshape(k, -1)
    b, q, a = b.reshape(k, -1), q.ravel(), a.ravel()
    s_b, s_bb = wb.sum(axis=1, dtype=np.float64), np.einsum("kn,kn->k", wb, b).astype(np.float64)
    s_qb, s_ab = np.asarray(wb @ q, np.float64), np.asarray(wb @ a, np.float64)

    def corr(s_x, s_y, s_xx, s_yy, s_xy):
        xy, xx, yy = s_xy - s_x * s_y / total, s_xx - s_x * s_x / total, s_yy - s_y * s_y / total
        return xy / np.maximum(np.sqrt(np.maximum(xx, 0.0) * np.maximum(yy, 0.0)), 1e-6)

    return corr(s_a, s_b, s_aa, s_bb, s_ab), corr(s_q, s_a, s_qq, s_aa, s_qa), corr(s_q, s_b, s_qq, s_bb, s_qb)


def _cells(v: np.ndarray) -> np.ndarray:
    """(cells,): the three channels of ``v`` (cells, 3) added per cell, as ``sum(axis=1)`` adds them (without its
    overhead on so short an axis: a tenth of the cost)."""
    out = v[:, 0] + v[:, 1]
    out += v[:, 2]
    return out


def _capped(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(..., rows, cols): the squared distance of descriptors ``a`` and ``b`` (..., rows, cols, 3; either may be
    a stack) per cell, capped at ``TAU``, / TAU (the three channels added as ``sum(axis=-1)`` adds them, without
    its overhead: a fifth of its cost)."""
    diff = a - b
    diff *= diff
    d = diff[..., 0] + diff[..., 1]
    d += diff[..., 2]
    np.minimum(d, TAU, out=d)
    d /= TAU
    return d


def _as_cut(warp: np.ndarray, shape: tuple[int, int], shift_px: float) -> bool:
    """Whether an ECC warp (reference -> query pixels, over a reference of ``shape``) is what a cut may miss by:
    the card's centre moved at most ``shift_px``, turned at most ``ALIGN_DEG``, and otherwise stretched or
    sheared by at most ``ALIGN_STRETCH`` (a bowed card, a lens). The turn is judged apart from the stretch, and
    the shift at the centre: the warp turns about the corner, so a cut turned 4 degrees (the finder's fit on
    a card whose edge meets a shadow or the mat's print) moved that corner 3 mm and was refused as a shift."""
    lin = warp[:, :2].astype(np.float64)
    angle = math.atan2(lin[1, 0] - lin[0, 1], lin[0, 0] + lin[1, 1])
    c, s = math.cos(angle), math.sin(angle)
    stretch = np.array([[c, s], [-s, c]]) @ lin  # what is left once the turn is undone
    centre = np.array([shape[1] / 2, shape[0] / 2])
    moved = lin @ centre + warp[:, 2] - centre
    return (abs(math.degrees(angle)) <= ALIGN_DEG and float(np.abs(stretch - np.eye(2)).max()) <= ALIGN_STRETCH
            and float(np.abs(moved).max()) <= shift_px)


def _grey(card: np.ndarray) -> np.ndarray:
    """The card's brightness, softened, as ECC aligns it."""
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, None, fx=ALIGN_SCALE, fy=ALIGN_SCALE, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small.astype(np.float32), (0, 0), 0.75)


_ECC = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 15, 1e-3)


def turned(card: np.ndarray, turn: int) -> np.ndarray:
    """The card image under ``turn`` (as ``features.turns`` orders them), resized to the card's own shape."""
    if turn == 0:
        return card
    if turn == 1:
        return card[::-1, ::-1]
    # ``features.turns`` turns the reference by a quarter (turn 2) or three (turn 3): the query goes back.
    turned = np.ascontiguousarray(np.rot90(card, 3 if turn == 2 else 1))
    return cv2.resize(turned, (card.shape[1], card.shape[0]), interpolation=cv2.INTER_LINEAR)
