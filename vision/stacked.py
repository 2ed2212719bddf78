"""A cube lying on another, told by the length of its side, the tops it hides and its shadow (``read`` asks for
the pile to be spread; the signs other than the sides: after ``side_runs``).

A camera above the table sees the side of every cube that faces it, between the cube's top and the board:
its length in the picture grows with the height of the top (the top's parallax), the same for every cube of
one layer at the same distance from the camera's foot. A cube lying on another shows a side about twice as
long, from its top down to the board past the cube under it. So, from each counted cube's top towards the
camera's foot (the board point under the frame's centre), the run of darker pixels of its colour just past
its top is measured on three rays across the cube (their middle value: a ray through a gap to a neighbour's
side is one ray). A cube whose side is hidden by a neighbour's top measures nothing. A side's length grows with
the cube's distance from the camera's foot as well (a top h up, seen from H, is r h / (H - h) off its base r
from the foot): each is taken as it would be seen ``SIDE_AT_MM`` from the foot, so that one layer's sides are
alike all over the frame. (A tray 110 mm wide about 250 mm from the foot spans 200-310 mm of it: as seen, its
far cubes' sides were half as long again as its near ones'. Dev seed 7611, 570 single-layer trays and 175 with a cube on
another, a tray's cube with a side 1.6 times one layer's asked the spread of 59 single-layer trays and left
37 of the others counted wrong; taken at one distance, 41 and 35.) The frame's own cubes give the length of
one layer's side (the median of each tray's sides seen, the median over the trays); a cube whose side is
``STACKED_SIDE`` times that, or its own cubes' median, is a sign of a cube on another.

A cube lying on another also leaves part of the lower cube's top showing beside it, which no counted cube
covers: the squares that count single-layer tops are a little wider than a top and turned as it is
(``vision.count.stray_top``), so little is left of a single layer's tops: ``STRAY_TOP`` of a top or more left
over is a sign too. No sign alone tells (each is seen on some single layers): ``vision.stacked_model`` weighs
them all together (squares that seem not one layer's, ``not_one_layer``, keep a counted tray in the referee's doubt).
(Dev seeds 6101-6102, 131 trays with a cube on another, 469 single-layer, with these two signs alone:
asked to be spread by the sides alone 37 % of them, 60 counted wrong, by 0.1 of a top left alone 51 %, by
either with 0.15 62 %, with 0.1 72 %, 21 counted wrong; the price, single-layer trays asked to be spread: 5.7,
4.0, 6.8 and 9.4 % of them.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

SIDE_SHADE = 0.88  # a pixel of the cube's colour darker than this (of its lit top) is a side
STACKED_SIDE = 1.6  # a side this many times one layer's is a cube on another (twice, less blur and slant)
MIN_SIDE_PX = 2.0  # one layer's side shorter than this (at SIDE_AT_MM: a camera high above): nothing to tell by
MIN_SEEN = 3  # sides measured in the frame, at least, to take one layer's from
REACH = 3.0  # a side is followed this many cube halves past the top at most
SIDE_AT_MM = 300.0  # sides are compared as seen this far from the camera's foot (about where trays lie)
STRAY_TOP = 0.1  # this much of a top left over by the counted cubes: a lower cube's top showing


def side_runs(v: np.ndarray, mine: np.ndarray, tops: np.ndarray, centres, half: float, foot: np.ndarray,
              px_per_mm: float) -> list[float]:
    """The length of the side seen past each cube's top (``centres``: (row, col) in the crop) towards ``foot``
    (x, y in crop px), the middle of three rays, in px as it would be seen ``SIDE_AT_MM`` from the foot.
    ``v``: brightness relative to the lit tops, ``mine``: the pixels of the cube's colour, ``tops``: its lit
    tops; ``half``: half a top's side, px; ``px_per_mm``: the crop's scale."""
    if not len(centres):
        return []
    h, w = tops.shape
    code = np.where(tops, 2, np.where(mine & (v < SIDE_SHADE), 1, 0)).astype(np.int8)
    c = np.asarray(centres, np.float64)[:, ::-1]  # (x, y)
    to_foot = foot[None] - c
    u = to_foot / np.maximum(np.linalg.norm(to_foot, axis=1, keepdims=True), 1e-9)
    across = np.stack([-u[:, 1], u[:, 0]], axis=1)
    steps = np.arange(0.5 * half, (1 + REACH) * half)
    offsets = np.array([-0.5, 0.0, 0.5]) * half
    # points (cube, ray, step)
    pts = c[:, None, None] + across[:, None, None] * offsets[None, :, None, None] + u[:, None, None] * steps[
        None, None, :, None]
    xi, yi = np.rint(pts[..., 0]).astype(np.int64), np.rint(pts[..., 1]).astype(np.int64)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    along = np.where(inside, code[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)], 0)
    off_top = np.argmax(along != 2, axis=2)  # the first step past the top
    n = along.shape[2]
    idx = np.arange(n)[None, None]
    past = idx >= off_top[..., None]
    side = (along == 1) & past
    # the run of side pixels from the first step past the top: up to the first step that is not side
    stop = np.where(past & ~side, idx, n).min(axis=2)
    runs = np.maximum(stop - off_top, 0)
    runs = np.where(np.any(along != 2, axis=2), runs, 0)
    far = np.maximum(np.linalg.norm(to_foot, axis=1), half) / (SIDE_AT_MM * px_per_mm)
    return [float(r) for r in np.sort(runs, axis=1)[:, 1] / far]


def _layer(runs: list[float]) -> float | None:
    seen = [r for r in runs if r > 0]
    return float(np.median(seen)) if len(seen) >= MIN_SEEN else None


def one_layer(runs: list[list[float]]) -> float | None:
    """One layer's side length in the frame (px): the median over the trays of their cubes' sides (each
    colour's side stands out of the board's shadow more or less: a tray's own cubes are its best measure);
    None if no tray shows enough."""
    trays = [m for m in map(_layer, runs) if m is not None]
    if not trays:
        return None
    side = float(np.median(trays))
    return side if side >= MIN_SIDE_PX else None


def stacked(runs: list[float], layer: float | None) -> bool:
    """A cube's side is two layers' long: against the longer of the tray's own cubes' sides (when it shows
    enough of them) and the frame's. (A dark colour's sides are partly taken for the board's shadow: its
    own are short, and a side of one layer's length stood out of them.)"""
    own = _layer(runs)
    ref = max((x for x in (own, layer) if x is not None), default=None)
    return ref is not None and ref >= MIN_SIDE_PX and bool(runs) and max(runs) >= STACKED_SIDE * ref


def lower_top_shows(stray: float) -> bool:
    """Part of a top that no counted cube covers (``stray``, in tops) is a lower cube's, under another."""
    return stray >= STRAY_TOP


# Signs read on the tops and the board beside them. A single layer's tops are all whole and apart: nothing
# stands above them to hide part of one, and two tops at one height cannot overlap (squares that do not
# overlap have centres at least a side apart). A cube lying on another hides part of its neighbours' tops
# (its top is seen further from the camera's foot than theirs, by one more layer's parallax, and its side
# drawn over them), and casts a shadow twice as long as theirs. Sure signs ask the spread alone; faint
# ones (each also seen on some single layers) when two agree.
CLOSE_TOPS = 0.9  # two counted cubes' centres nearer than this many top sides: their tops overlap
CUT_TOP = 0.75  # a counted cube showing less than this share of the tray's typical top: partly hidden
FAINT_SIDE = 1.4  # a side this many times one layer's
FAINT_STRAY = 0.05  # this much of a top left over
FAINT_CUT = 0.85  # a top this much of the tray's typical one
FAINT_SHORT = 0.3  # the lit tops' area this many cubes short of the count (hidden parts of tops)
SHADOW_SHADE = 0.85  # board darker than this (of the tray's lit board) is in a shadow
SHADOW_LONG = 1.5  # a cube's shadow this many times one layer's ...
SHADOW_MIN_MM = 4.0  # ... when one layer's is this long at least (shorter ones are lost in the blur)
SHADOW_MORE_MM = 3.0  # ... and this much longer
DIRECTIONS = 24  # the shadows are measured this many ways round, the light's way chosen over the frame
SHADED = (0.3, 0.8)  # a top's pixel between these (of the lit tops' brightness) is in a shadow
SHADED_RIM_MM = 1.5  # a top's shadow is looked for this far inside its square


class Shadows:
    """What a tray shows of its cubes' shadows on the board: each pixel's code (0 lit board, 1 board in a shadow,
    2 a cube of the tray's colour, 3 off the crop, which is padded with it as far as a ray reaches) and the
    counted cubes' centres. The shadow past each cube is measured the ways asked (``runs``): the light's way is
    only known over the frame's trays (``Frame.of``)."""

    def __init__(self, code: np.ndarray, centres: np.ndarray, side: float, pad: int):
        self.code, self.centres, self.side, self.pad = code, centres, side, pad
        self._at: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.centres)

    def runs(self, ways, rays=(-0.25, 0.0, 0.25)) -> tuple[np.ndarray, np.ndarray]:
        """The shadow past each cube each of ``ways`` (of ``DIRECTIONS``): from its centre, past its own pixels,
        the run of board in a shadow, px, the middle of ``rays`` across the cube (offsets in top sides); and
        whether it is hidden (it ends under another cube or off the crop: at least that long). (cube, way)."""
        a = np.asarray(ways) * (2 * math.pi / DIRECTIONS)
        u = np.stack([np.cos(a), np.sin(a)], 1).astype(np.float32)  # (x, y) each way
        across = np.stack([-u[:, 1], u[:, 0]], 1)
        steps = np.arange(0.0, self.pad - 2, dtype=np.float32)
        offsets = np.asarray(rays, np.float32) * self.side
        # points (cube, way, ray, step, xy)
        pts = (self.centres[:, None, None, None] + across[None, :, None, None] * offsets[None, None, :, None, None]
               + u[None, :, None, None] * steps[None, None, None, :, None])
        xy = np.rint(pts).astype(np.int32)
        along = self.code.take(xy[..., 1] * self.code.shape[1] + xy[..., 0])
        k = along.shape[-1]
        idx = np.arange(k, dtype=np.int32)
        off = np.argmax(along != 2, axis=-1)  # past the cube's own pixels
        stop = np.where((idx >= off[..., None]) & (along != 1), idx, k).min(axis=-1)
        runs = stop - off
        end = np.take_along_axis(along, np.minimum(stop, k - 1)[..., None], -1)[..., 0]
        hidden = (stop >= k) | (end >= 2)
        key = np.sort(runs * 2 + hidden, axis=-1)[..., len(rays) // 2]  # the middle ray, (run, hidden) in order
        return (key // 2).astype(np.float32), (key % 2).astype(bool)

    def at(self, way: int) -> tuple[np.ndarray, np.ndarray]:
        """``runs`` the light's way (worked out once)."""
        if way not in self._at:
            r, h = self.runs([way])
            self._at[way] = (r[:, 0], h[:, 0])
        return self._at[way]


def top_shares(topness: np.ndarray, squares, side_px: float, piece_px: float) -> list[float]:
    """The share of a whole top each counted cube shows (``squares``: (row, col, turn) each, ``side_px`` wide):
    the topness under its square (where squares overlap, the last one's), over one top's area."""
    if not squares:
        return []
    own = np.zeros(topness.shape, np.uint8)
    for i, (r, c, turn) in enumerate(squares):
        corners = cv2.boxPoints(((c, r), (side_px, side_px), -turn))
        cv2.fillConvexPoly(own, np.round(corners * 16).astype(np.int32), i + 1, cv2.LINE_8, 4)
    sums = np.bincount(own.ravel(), topness.ravel(), len(squares) + 1)[1:]
    return [float(s) / piece_px for s in sums]


def shaded_tops(v: np.ndarray, mine: np.ndarray, squares, side_px: float, px_per_mm: float) -> list[float]:
    """The share of each counted cube's top in a shadow: its square (``squares``: (row, col, turn) each,
    ``side_px`` wide) less ``SHADED_RIM_MM`` all round (its edges, the seams and sides beside it), the pixels of
    its colour (``mine``) between ``SHADED`` of the lit tops' brightness (``v``). A single layer's tops are lit
    whole; a cube lying on others casts its shadow across the tops beside it, a layer below."""
    if not squares:
        return []
    inner = side_px - 2 * SHADED_RIM_MM * px_per_mm
    if inner < 2:
        return [0.0] * len(squares)
    own = np.zeros(v.shape, np.uint8)
    for i, (r, c, turn) in enumerate(squares):
        corners = cv2.boxPoints(((c, r), (inner, inner), -turn))
        cv2.fillConvexPoly(own, np.round(corners * 16).astype(np.int32), i + 1, cv2.LINE_8, 4)
    lo, hi = SHADED
    dark = (mine & (v >= lo) & (v < hi)).ravel()
    ids = own.ravel()
    area = np.bincount(ids, minlength=len(squares) + 1)[1:]
    return [float(d) / a if a else 0.0 for d, a in zip(np.bincount(ids[dark], minlength=len(squares) + 1)[1:],
                                                         area, strict=True)]


def closest(centres, side: float) -> float:
    """The distance between the two nearest counted cubes, in top sides (inf with fewer than two)."""
    if len(centres) < 2:
        return math.inf
    c = np.asarray(centres, np.float64)
    d = np.hypot(c[:, None, 0] - c[None, :, 0], c[:, None, 1] - c[None, :, 1])
    np.fill_diagonal(d, np.inf)
    return float(d.min()) / side


def shadows(luma: np.ndarray, mine: np.ndarray, centres, side: float) -> Shadows:
    """A tray's shadows (``Shadows``): board darker than ``SHADOW_SHADE`` of the lit board (``luma``:
    brightness) is in a shadow; ``mine``: the pixels of the tray's colour; ``centres``: the counted cubes'
    (row, col); ``side``: a top's side, px."""
    board = ~mine
    lit = float(np.median(luma[board])) if board.any() else 0.0
    pad = math.ceil(3 * side) + 2  # (a shadow is followed three top sides at most)
    code = np.where(mine, 2, (board & (luma < SHADOW_SHADE * lit)).view(np.uint8)).astype(np.uint8)
    code = cv2.copyMakeBorder(code, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=3)
    c = np.asarray(centres, np.float32).reshape(-1, 2)[:, ::-1] + pad
    return Shadows(code, c, side, pad)


@dataclass(frozen=True)
class Frame:
    """What the frame's trays tell of one layer: its side, the light's way (one of ``DIRECTIONS``) and one
    layer's shadow that way (px; None where not enough is seen)."""
    side: float | None
    way: int | None
    shadow: float | None

    @classmethod
    def of(cls, sides: list[list[float]], shadows: list[Shadows | None]) -> Frame:
        found = [s for s in shadows if s is not None and len(s)]
        if not found:
            return cls(one_layer(sides), None, None)
        # The light's way: where the cubes' shadows are longest (the middle of each way's runs seen over the
        # frame, one ray a cube)
        runs, hidden = (np.concatenate(x) for x in zip(*(s.runs(range(DIRECTIONS), (0.0,)) for s in found),
                                                        strict=True))
        seen = ~hidden
        typical = [float(np.median(runs[seen[:, k], k])) if seen[:, k].any() else 0.0 for k in range(DIRECTIONS)]
        way = int(np.argmax(typical))
        seen_way = [[float(r) for r, hid in zip(*s.at(way), strict=True) if not hid and r > 0] for s in found]
        return cls(one_layer(sides), way, _shadow_layer(seen_way))


def _shadow_layer(runs: list[list[float]]) -> float | None:
    trays = [m for m in map(_layer, runs) if m is not None]
    return float(np.median(trays)) if trays else None


def long_shadow(s: Shadows | None, frame: Frame, px_per_mm: float) -> bool:
    """A cube's shadow is two layers' long: ``SHADOW_LONG`` times one layer's (the frame's, or the longer of it
    and the tray's own), and ``SHADOW_MORE_MM`` longer."""
    if s is None or frame.way is None or frame.shadow is None or not len(s):
        return False
    runs, hidden = s.at(frame.way)
    own = _layer([float(r) for r, hid in zip(runs, hidden, strict=True) if not hid and r > 0])
    ref = max(x for x in (own, frame.shadow) if x is not None)
    longest = float(runs.max())
    return (ref >= SHADOW_MIN_MM * px_per_mm and longest >= SHADOW_LONG * ref
            and longest - ref >= SHADOW_MORE_MM * px_per_mm)


def signs(c, frame: Frame, px_per_mm: float) -> tuple[list[str], list[str]]:
    """The sure and the faint signs of a cube on another in a counted tray (``c``: a ``CountReading``)."""
    sides = list(c.sides)
    shares = [x for x in c.shares if x > 0]
    typical = float(np.median(shares)) if shares else 0.0
    least = min(shares) / typical if typical > 0 else 1.0
    sure = [name for name, shown in (
        ("a side two layers long", stacked(sides, frame.side)),
        ("a lower top showing", lower_top_shows(c.stray)),
        ("two tops overlapping", c.closest < CLOSE_TOPS),
        ("a top partly hidden", least < CUT_TOP)) if shown]
    ref = max((x for x in (_layer(sides), frame.side) if x is not None), default=None)
    faint = [name for name, shown in (
        (LONG_SIDE, ref is not None and ref >= MIN_SIDE_PX and bool(sides) and max(sides) >= FAINT_SIDE * ref),
        (LONG_SHADOW, long_shadow(c.shadows, frame, px_per_mm)),
        (TOP_LEFT, c.stray >= FAINT_STRAY),
        ("a top cut", least < FAINT_CUT),
        ("tops short of the count", c.count - c.pieces_area >= FAINT_SHORT)) if shown]
    return sure, faint


LONG_SIDE, LONG_SHADOW, TOP_LEFT = "a long side", "a long shadow", "part of a top left over"


def not_one_layer(c) -> bool:
    """The counted cubes' squares cannot be a single layer's: two tops overlapping, or one partly hidden
    (``CLOSE_TOPS``, ``CUT_TOP``). A cube lying on others shows so; so does a count gone wrong (a dim tray
    counted three too many overlapped its squares). Alone it also shows on single layers counted right (a big
    pile's squares a pixel or two off their tops' grid): the learned test weighs it, and a tray it counts stays in
    the referee's doubt (``stacked_model.doubt``)."""
    shares = [x for x in c.shares if x > 0]
    typical = float(np.median(shares)) if shares else 0.0
    return c.closest < CLOSE_TOPS or (typical > 0 and min(shares) / typical < CUT_TOP)
