"""The empty board learnt from the calibration frame, when the board is plain (``calibrate colours`` run
without ``calibrate board``).

What lies under a piece cannot be seen, so a printed board must be shown empty once. A plain board need not
be: its places of one size look alike (an outline printed on one colour), so under each piece of the
calibration frame lies what the empty places of its size show, in the light of where the piece is.

1. The board is located as ``enrol_board`` locates it (every marker clear, or nothing is learnt) and warped
   to the canonical image; the light is divided out (the log of the free board's colour, fitted by one smooth
   surface per channel).
2. What each place's box (the place, half a place around it where a piece set down off its centre may lie,
   and its shadow) should show is taken from its fellows, the places of its kind and size nearest first: each
   pixel from the first fellow whose pixel at the same spot shows the board (no piece may lie there).
3. The board is plain when the empty places show what their fellows show but for the board's grain: of their
   pixels, at most ``PRINTED_SHARE`` differ from the fellows' by ``PRINT_STEP``. On the development tables
   (sets 19796, 19797, 19802, 19806: 48 plain boards and 48 printed) that share was at most 0.6 % on a plain
   board and at least 22 % on a printed one, whatever the light: print differs from place to place.
4. The pieces are the blobs, no thinner than a piece, where the frame differs from that by more than the empty
   places differ from their fellows, within the boxes of the places the calibration table fills (then found
   again with only those blobs hidden: a tray's fellows are trays, all filled, and lend what their cubes leave
   in view). There the prediction replaces the frame; everything else keeps the frame's own pixels.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import Layout, Zone
from calibration.store import BoardImage, Calibration
from vision.board import NOISE_SPREADS, BoardEnrolError, located
from vision.light_field import field_basis
from vision.robust import centre_and_spread

REACH = 0.5  # a piece lies up to this share of its place's size beyond the place (set down off its centre)
SHADOW_MM = 3.0  # and its shadow a little further
OUTLINE_MM = 2.0  # a place's printed outline lies within this of its bounds
MARKER_MM = 3.0  # a marker's white quiet zone and its sticker's edge around its pattern
PRINT_STEP = 0.3  # (log light, a 35 % step) what a printed board's places differ by, and no grain does
PRINTED_SHARE = 0.05  # a board whose empty places differ so in more of them is printed
MIN_TOLERANCE = 0.08  # (log units: 8 % of the light, at least)
PIECE_MM = 4.0  # a blob this wide at least is a piece (a fellow's outline a pixel off is a thin line)
SAME_SIZE_MM = 0.5  # places within this of one another's size are of one size
SHOWN = 0.5  # a place shows the board when at least this share of its box does
FELLOWS_PERCENTILE = 99  # of how far empty places are from what their fellows show: within it, the board


class NotPlain(ValueError):
    """The calibration frame does not show a plain board (or not surely enough) to learn it from."""


def plain_board(frame: np.ndarray, layout: Layout, calibration: Calibration | None = None,
                source: str = "frame") -> BoardImage:
    """The empty board under the calibration frame's pieces (canonical BGR, as ``enrol_board`` gives it).
    Raises NotPlain, saying why, when the board is printed or its place not sure."""
    try:
        reader, location = located(frame, layout, calibration, source)
    except BoardEnrolError as e:
        raise NotPlain(str(e)) from None
    canonical = reader.warp(frame, location.homography, location.lens)
    h, w = canonical.shape[:2]
    s = reader.geometry.px_per_mm
    log = np.log(canonical.astype(np.float32) + 4.0)
    markers = np.zeros((h, w), bool)
    for m in layout.markers:
        (left, top), (right, bottom) = m.corners()[0], m.corners()[2]
        x0, y0, x1, y1 = _px((left - MARKER_MM, top - MARKER_MM, right + MARKER_MM, bottom + MARKER_MM), s, (w, h))
        markers[y0:y1, x0:x1] = True
    filled = _filled(layout)
    free = ~markers  # (the free board: no place or its outline, no marker, nothing a piece may reach)
    for zone in layout.zones:
        grow = OUTLINE_MM + (REACH * max(zone.size) if zone.id in filled and zone.kind == "slot" else 0.0)
        x0, y0, x1, y1 = _px(np.add(zone.bounds, (-grow, -grow, grow, grow)), s, (w, h))
        free[y0:y1, x0:x1] = False
    light = _light(log, free, layout, s)
    flat = cv2.blur(log - light, (3, 3))  # the board's colour, the light divided out (and the noise a little)
    # (the frame's noise: how far a pixel is from the median of the pixels around it, on the free board)
    local = np.abs(flat - cv2.medianBlur(flat, 5)).max(axis=2)
    noise = max(MIN_TOLERANCE, NOISE_SPREADS * centre_and_spread(local[free].astype(np.float64))[0])
    colour = np.median(flat[free], axis=0).astype(np.float32)
    places = [z for z in layout.zones if z.kind in ("slot", "count")]
    boxes = {z.id: _box(z, s, (w, h)) for z in places}
    owner = _owners(places, boxes, s, (w, h))
    set_out = np.zeros((h, w), bool)  # where the calibration frame's pieces may lie
    for zid in filled:
        x0, y0, x1, y1 = boxes[zid]
        set_out[y0:y1, x0:x1] = True
    # Plain: each empty place shows what its fellows show, but for the board's grain and the frame's noise;
    # print differs from place to place by more (``PRINT_STEP``).
    hidden = set_out | markers
    expected, have = _expected(places, boxes, owner, flat, hidden, colour, s)
    off = _off(expected, flat)
    seen = []
    for zone in places:
        if zone.id in filled:
            continue
        x0, y0, x1, y1 = boxes[zone.id]
        judged = have[y0:y1, x0:x1] & ~hidden[y0:y1, x0:x1]
        if judged.mean() >= SHOWN:
            seen.append(off[y0:y1, x0:x1][judged])
    if not seen:
        raise NotPlain(f"{source}: no empty place shows enough of the board to tell whether it is plain: enrol the "
                       f"empty board (calibrate board)")
    seen_off = np.concatenate(seen)
    printed = float((seen_off > PRINT_STEP).mean())
    if printed > PRINTED_SHARE:
        raise NotPlain(f"{source}: the board is printed ({100 * printed:.0f} % of its empty places differ from one "
                       f"another as print does): enrol the empty board (calibrate board)")
    # A piece: a blob unlike what its place's fellows show by more than empty places are unlike theirs (a
    # plain board's grain is not the same under every place), and no thinner than a piece.
    tolerance = max(noise, float(np.percentile(seen_off, FELLOWS_PERCENTILE)))
    core = np.ones((max(3, round(PIECE_MM * s) | 1),) * 2, np.uint8)
    grow = np.ones((max(3, round(2 * SHADOW_MM * s) | 1),) * 2, np.uint8)
    for _ in range(2):  # (then again with only the pieces found hidden: a tray's fellows are trays, all filled)
        unlike = (off > tolerance).astype(np.uint8)
        pieces = cv2.dilate(cv2.morphologyEx(unlike, cv2.MORPH_OPEN, core), grow).view(bool) & set_out & ~markers
        expected, have = _expected(places, boxes, owner, flat, pieces | markers, colour, s)
        off = _off(expected, flat)
    out = flat.copy()
    out[pieces] = expected[pieces]
    image = np.clip(np.exp(out + light) - 4.0, 0, 255).round().astype(np.uint8)
    estimated = location.lens if calibration is None or calibration.camera is None else None
    return BoardImage(image, s, estimated, tuple(sorted(location.markers)), learnt=True)


def _filled(layout: Layout) -> set[str]:
    """The places and trays the calibration table puts a piece in."""
    return {zid for zid, value in layout.calibration.items()
            if (any(n > 0 for n in value.values()) if isinstance(value, dict) else value != "empty")}


def _px(bounds, s: float, size: tuple[int, int]) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = bounds
    w, h = size
    return (max(0, int(np.floor(x0 * s))), max(0, int(np.floor(y0 * s))),
            min(w, int(np.ceil(x1 * s))), min(h, int(np.ceil(y1 * s))))


def _box(zone: Zone, s: float, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The pixels around ``zone`` that its fellows lend: the place, and half a place around it where a piece set
    down off its centre may lie, with its shadow (a tray's pieces stay in the tray)."""
    x0, y0, x1, y1 = zone.bounds
    grow = SHADOW_MM + (REACH * max(zone.size) if zone.kind == "slot" else 0.0)
    return _px((x0 - grow, y0 - grow, x1 + grow, y1 + grow), s, size)


def _owners(places: list[Zone], boxes: dict, s: float, size: tuple[int, int]) -> np.ndarray:
    """(h, w) int: the place whose centre is nearest each pixel, of those whose box holds it (-1: none)."""
    w, h = size
    owner = np.full((h, w), -1, np.int32)
    best = np.full((h, w), np.inf, np.float32)
    for k, zone in enumerate(places):
        x0, y0, x1, y1 = boxes[zone.id]
        ys, xs = np.mgrid[y0:y1, x0:x1]
        d = np.hypot((xs + 0.5) / s - zone.center[0], (ys + 0.5) / s - zone.center[1]).astype(np.float32)
        nearer = d < best[y0:y1, x0:x1]
        best[y0:y1, x0:x1][nearer] = d[nearer]
        owner[y0:y1, x0:x1][nearer] = k
    return owner


def _expected(places: list[Zone], boxes: dict, owner: np.ndarray, flat: np.ndarray, hidden: np.ndarray,
              colour: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    """What each pixel should show: in a place's box (the nearest place's, where boxes overlap), what its
    fellows show there; elsewhere, or where no fellow shows it, the board's colour. And where a fellow did."""
    expected = np.empty_like(flat)
    expected[:] = colour
    have = np.zeros(flat.shape[:2], bool)
    for k, zone in enumerate(places):
        x0, y0, x1, y1 = boxes[zone.id]
        mine = owner[y0:y1, x0:x1] == k
        if not mine.any():
            continue
        predicted, got = _predicted(zone, places, boxes, flat, hidden, s)
        take = mine & got
        expected[y0:y1, x0:x1][take] = predicted[take]
        have[y0:y1, x0:x1] |= take
    return expected, have


def _predicted(zone: Zone, places: list[Zone], boxes: dict, flat: np.ndarray, hidden: np.ndarray, s: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """What ``zone``'s box should show, from the places of its kind and size nearest first, each pixel from the
    first whose pixel at the same spot shows the board; and where one did."""
    x0, y0, x1, y1 = boxes[zone.id]
    h, w = hidden.shape
    predicted = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
    have = np.zeros((y1 - y0, x1 - x0), bool)
    fellows = sorted((z for z in places if z.id != zone.id and z.kind == zone.kind
                      and max(abs(a - b) for a, b in zip(z.size, zone.size, strict=True)) <= SAME_SIZE_MM),
                     key=lambda z: np.hypot(z.center[0] - zone.center[0], z.center[1] - zone.center[1]))
    for fellow in fellows:
        # (the fellow's box laid on this one: the same spot relative to each place)
        dx = round((fellow.center[0] - zone.center[0]) * s)
        dy = round((fellow.center[1] - zone.center[1]) * s)
        a0, b0 = max(x0, -dx), max(y0, -dy)
        a1, b1 = min(x1, w - dx), min(y1, h - dy)
        if a1 <= a0 or b1 <= b0:
            continue
        there = (slice(b0 + dy, b1 + dy), slice(a0 + dx, a1 + dx))
        here = (slice(b0 - y0, b1 - y0), slice(a0 - x0, a1 - x0))
        take = ~hidden[there] & ~have[here]
        predicted[here][take] = flat[there][take]
        have[here] |= take
        if have.all():
            break
    return predicted, have


def _off(predicted: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """How far ``seen`` lies outside what ``predicted`` shows within a pixel (a fellow's outline may land a
    pixel off), the most of the three channels (log units)."""
    square = np.ones((3, 3), np.uint8)
    low, high = cv2.erode(predicted, square), cv2.dilate(predicted, square)
    return (np.maximum(low - seen, 0) + np.maximum(seen - high, 0)).max(axis=2)


def _light(log: np.ndarray, free: np.ndarray, layout: Layout, s: float) -> np.ndarray:
    """The log of the light on every pixel (per channel, up to the board's colour): one smooth surface fitted
    on the free board's 8 mm squares, those far off it (a printed line, a shadow) dropped and fitted again."""
    h, w = free.shape
    cell = max(2, round(8 * s))
    rows, cols = h // cell, w // cell
    centres, values = [], []
    for r in range(rows):
        for c in range(cols):
            square = (slice(r * cell, (r + 1) * cell), slice(c * cell, (c + 1) * cell))
            if free[square].all():
                centres.append(((c + 0.5) * cell / s, (r + 0.5) * cell / s))
                values.append(np.median(log[square].reshape(-1, 3), axis=0))
    if len(values) < 12:
        raise NotPlain(f"{layout.name}: too little free board to measure the light on")
    A = field_basis(np.array(centres), layout.size)
    y = np.array(values)
    keep = np.ones(len(y), bool)
    for _ in range(3):
        coef = np.linalg.lstsq(A[keep], y[keep], rcond=None)[0]
        resid = np.abs(y - A @ coef).max(axis=1)
        centre, spread = centre_and_spread(resid[keep])
        keep = resid <= centre + 3.5 * max(spread, 0.01)
    gy, gx = np.mgrid[0:h, 0:w]
    basis = field_basis(np.stack([(gx.ravel() + 0.5) / s, (gy.ravel() + 0.5) / s], axis=1), layout.size)
    return (basis @ coef).reshape(h, w, 3).astype(np.float32)
