"""Finding the card in a card zone, and cutting it out of the frame upright.

The zone (with a margin, as a card laid askew overhangs it) is sampled from the frame through the board
homography at ``PATCH_PX_PER_MM`` (the sampling maps are kept while the homography stays, with the part of
the frame they read: remapped as BGRA, that part gives the same bytes twice as fast). The mat is what
the patch's outer ring mostly shows: its median colour sets the light, and the card is what is clearly
brighter or of another colour (shadows are darker with the same colour, so they are not mistaken for the
card). Holes inside the outline are filled (a card's dark art), then a rectangle of the card's known size is
fitted: at the outline's own angle and a few degrees either way, the position where the rectangle is fullest
and the band around it emptiest (portrait or landscape: the one the outline's size rules out is not tried). A
fingertip over a corner adds a little outside the band and moves the fit by a millimetre at most.

Most zones are empty most of the time, so a zone is first looked at with the same steps at a quarter of the
pixels (``PREVIEW_PX_PER_MM``): plainly empty there, it is empty. Anything else is looked at again at full
resolution, where the card's edges are sharp enough for the fit (a fit at the first look's resolution misses
by a millimetre and costs the matcher; that is why there are two looks). Pixels whose channels all lie near
the mat's (``PLAIN``) cannot pass the test: only the others are tested one by one; and a fingertip is not
looked for when nothing of the outline lies in the zone.

The card is then cut out of the frame itself (one resampling, lens included) as an upright portrait image
of ``CARD_PX_PER_MM``; which end is up is left to the matcher.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.store import LensModel
from vision.geometry import to_frame

PATCH_PX_PER_MM = 2.0
CARD_PX_PER_MM = 2.0
MARGIN_MM = 9.0  # a card turned a quarter and askew overhangs its 80 x 96 mm place by up to this
BAND_MM = 3.0  # the band around the fitted rectangle that should be mat...
GAP_MM = 1.5  # ...beyond this gap: a sleeve's clear rim (a sleeve is 3 mm larger) or a blurred edge is no mat
FINGER_MM = 21.0  # fingers are narrower than this; cards are much wider
AROUND_MM = 4.5  # the ring round a cut card where something crossing its edge is looked for (past GAP_MM)
SEARCH_MM = 10.0  # how far the card's centre may lie from its outline's (a fingertip pulls the outline)
MIN_FILL = 0.8  # the fitted rectangle must be at least this much card...
MAX_BAND = 0.45  # ...and its band at most this much
EMPTY_AREA = 0.2  # less than this fraction of a card's area standing out of the mat: the zone is empty...
FINGERS_AREA = 0.1  # ...unless this much stood out before fingers were cut away: then fingers lie over it
PLAIN = (0.87, 1.149)  # channels all within this of the mat's: surely mat (brightness < 1.5, and spread at most
# 2/3 (1.149 - 0.87) = 0.186 < 0.22 x 0.87, the test's limits)
PREVIEW_PX_PER_MM = 1.0  # the first look...
PLAINLY_EMPTY = 0.05  # ...finding less than this standing out of the mat (a quarter of EMPTY_AREA): empty
BLUR_MM = 0.5  # smoothing of the patch, in mm
FINGER_PX_PER_MM = 0.5  # the fingertip's opening is done at this resolution

_SQUARE3, _SQUARE5 = np.ones((3, 3), np.uint8), np.ones((5, 5), np.uint8)
_FINGER_SIDE = 2 * round(FINGER_MM * FINGER_PX_PER_MM / 2) + 1
_FINGER = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_FINGER_SIDE, _FINGER_SIDE))
_PREV, _NEXT = np.arange(90) - 1, (np.arange(90) + 1) % 90  # neighbouring 1° bins, round the quarter turn
_LEVELS = np.arange(256, dtype=np.float32) + np.float32(2)  # a byte's value + 2, as the mat table divides it
_PLAIN_BELOW = np.array([PLAIN[0], np.nextafter(PLAIN[1], 2.0)])  # "< PLAIN[0]" and "<= PLAIN[1]", float64
_CHANNELS = np.arange(3)  # to look each channel of a pixel up in its own row of the mat table


@dataclass(frozen=True)
class Found:
    """What a zone holds: ``kind`` is ``empty``, ``card`` or ``blob`` (something that is not a card's
    rectangle). For a card, ``corners_mm`` are its four corners (board mm) in the order of an upright
    portrait card: top-left, top-right, bottom-right, bottom-left (or all turned half a turn)."""

    kind: str
    corners_mm: np.ndarray | None = None
    fill: float = 0.0
    band: float = 0.0
    area: float = 0.0  # fraction of a card's area standing out of the mat
    mat: tuple[float, float, float] | None = None  # the ring's colour (BGR), taken as the mat's
    plain: float = 1.0  # the fraction of the ring plainly of that colour


def frame_maps(grid_mm: np.ndarray, H: np.ndarray, lens: LensModel | None) -> tuple[np.ndarray, np.ndarray]:
    """The remap maps (x, y: float32) that sample the frame at a grid of board points (h, w, 2) mm."""
    xy = to_frame(grid_mm, H, lens).astype(np.float32)
    return np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1])


def sample(frame: np.ndarray, grid_mm: np.ndarray, H: np.ndarray, lens: LensModel | None,
           maps: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """The frame's colours at a grid of board points (h, w, 2) mm: one bilinear remap (``maps``: the
    grid's ``frame_maps``, when already known)."""
    return PatchMaps(frame_maps(grid_mm, H, lens) if maps is None else maps, frame.shape).sample(frame)


def patch_grid(bounds: tuple[float, float, float, float], margin: float = MARGIN_MM,
               s: float = PATCH_PX_PER_MM) -> np.ndarray:
    """Board mm at the centre of every pixel of a zone's patch (zone bounds plus ``margin``)."""
    left, top, right, bottom = bounds[0] - margin, bounds[1] - margin, bounds[2] + margin, bounds[3] + margin
    w, h = round((right - left) * s), round((bottom - top) * s)
    xs = left + (np.arange(w) + 0.5) / s
    ys = top + (np.arange(h) + 0.5) / s
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx, gy], axis=-1)


def card_grid(corners_mm: np.ndarray, size_px: tuple[int, int], margin_px: int = 0) -> np.ndarray:
    """Board mm at the centre of every pixel of the upright card image (bilinear in the card's corners),
    widened by ``margin_px`` pixels on every side."""
    w, h = size_px
    u = ((np.arange(-margin_px, w + margin_px) + 0.5) / w)[None, :, None]
    v = ((np.arange(-margin_px, h + margin_px) + 0.5) / h)[:, None, None]
    tl, tr, br, bl = (np.asarray(c, np.float64) for c in corners_mm)
    return (1 - v) * ((1 - u) * tl + u * tr) + v * ((1 - u) * bl + u * br)


def ring_pixels(inside: np.ndarray) -> np.ndarray:
    """The ring's pixels (``~inside``) that set the mat's colour, as indices into the patch's bytes, channel
    by channel: a third of the pixels gives the same median, three times faster."""
    return (np.arange(3)[:, None] + 3 * np.flatnonzero(~inside)[::3]).ravel()


def _medians(px: np.ndarray) -> np.ndarray:
    """Each row's median as ``np.median`` gives it (the mean of the two middle values, in float64), from one
    partition and without its checks: float32."""
    lo, hi = (px.shape[1] - 1) // 2, px.shape[1] // 2
    part = np.partition(px, (lo, hi), axis=1)
    return ((part[:, lo] + part[:, hi].astype(np.float64)) / 2).astype(np.float32)


def _mat_table(smooth: np.ndarray, ring: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(3, 256) float32: each channel's values relative to the mat (the ring's median), (value + 2) / mat;
    a table lookup gives the same floats as dividing the image. Also the mat's colour (BGR + 2) and how much
    of the ring is plainly that colour (a hand or arm over the ring leaves less of it)."""
    px = smooth.reshape(-1).take(ring).reshape(3, -1) if len(ring) >= 60 else smooth.reshape(-1, 3).T
    mat = _medians(px) + np.float32(2)
    rel = (px + np.float32(2)) / mat[:, None]
    plain = float(np.mean(np.all((rel >= PLAIN[0]) & (rel <= PLAIN[1]), axis=0)))
    return _LEVELS / mat[:, None], mat, plain


def _test(b: np.ndarray, g: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(not mat, brightness) of pixels from their channels relative to the mat."""
    lum = b + g
    lum += r
    lum /= 3
    # spread = max(|b - lum|, |g - lum|, |r - lum|), in two buffers: the same floats, less memory to go through
    spread, d = np.subtract(b, lum), np.subtract(g, lum)
    np.abs(spread, out=spread)
    np.abs(d, out=d)
    np.maximum(spread, d, out=spread)
    np.abs(np.subtract(r, lum, out=d), out=d)
    np.maximum(spread, d, out=spread)
    mask = lum > 1.5
    mask |= spread > np.multiply(lum, 0.22, out=d)
    return mask, lum


def _relative(smooth: np.ndarray, table: np.ndarray) -> list[np.ndarray]:
    """The patch's channels relative to the mat (float32): one table lookup each."""
    return [cv2.LUT(plane, table[c]) for c, plane in enumerate(cv2.split(smooth))]


def _plain_range(table: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The byte values, channel by channel, whose relative value lies within ``PLAIN`` (lowest, highest). Each
    channel's table rises: its values below PLAIN[0], and those up to PLAIN[1], are counted (in float64, the
    limits' type, as a search of the table compares)."""
    below, upto = (table < _PLAIN_BELOW[:, None, None]).sum(axis=2).tolist()
    return tuple(below), tuple(n - 1 for n in upto)


def _not_mat(smooth: np.ndarray, table: np.ndarray, dense: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """The pixels that are not mat (uint8 0/1), and the brightness relative to the mat when it was needed.
    A pixel whose channels all lie within ``PLAIN`` of the mat's has its brightness and spread well inside
    the test's limits: in an empty zone (most of its pixels) only the other pixels are tested. ``dense``: a
    card is likely there, test every pixel at once."""
    h, w = smooth.shape[:2]
    if not dense:
        plain = cv2.inRange(smooth, *_plain_range(table))
        dense = cv2.countNonZero(plain) < 0.75 * h * w
    if dense:
        mask, lum = _test(*_relative(smooth, table))
        return mask.view(np.uint8), lum
    odd = np.flatnonzero(plain == 0)
    v = smooth.reshape(-1, 3)[odd]
    raw = np.zeros(h * w, np.uint8)
    raw[odd] = _test(*table[_CHANNELS, v].T)[0]
    return raw.reshape(h, w), None


def _outline(raw: np.ndarray, zone: tuple[slice, slice],
             s: float = PATCH_PX_PER_MM) -> tuple[np.ndarray | None, int, int]:
    """The not-mat mask (at ``s`` px/mm) with specks opened away, holes inside an outline filled and a
    fingertip cut off, and its area inside ``zone`` (px). Cutting only takes pixels away: when none of the
    filled outline lies in the zone (specks in the margin), its area there is 0 without the cut, and no mask
    is given (an empty zone needs none). Also the filled outline's area in the zone before the cut (fingers
    over an empty place are cut away, but they are there)."""
    mask = cv2.morphologyEx(raw, cv2.MORPH_OPEN, _SQUARE3)
    if not cv2.countNonZero(mask):
        return None, 0, 0
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 1, -1)
    whole = cv2.countNonZero(filled[zone])
    if not whole:
        return None, 0, 0
    # A fingertip is narrower than FINGER_MM: opening with a disc that wide takes off what of it lies
    # outside the card. Done at FINGER_PX_PER_MM (the disc is large), then used only to cut away what lies
    # clearly outside it, so the card keeps its own sharp edges.
    h, w = filled.shape
    k = round(s / FINGER_PX_PER_MM)
    small = cv2.resize(filled.astype(np.float32), (max(1, w // k), max(1, h // k)), interpolation=cv2.INTER_AREA)
    opened = cv2.morphologyEx((small > 0.5).view(np.uint8), cv2.MORPH_OPEN, _FINGER)
    mask = filled & cv2.resize(cv2.dilate(opened, _SQUARE3), (w, h), interpolation=cv2.INTER_NEAREST)
    return mask, cv2.countNonZero(mask[zone]), whole


def edge_angle(mask: np.ndarray, lum: np.ndarray) -> float:
    """The card's turn (degrees, modulo 90) from its outline: the strongest direction of the brightness
    gradient along the mask's edge (the image's own anti-aliased edge, not the mask's staircase), folded
    onto a quarter turn. A card's four straight edges outweigh a fingertip's curve."""
    gx = cv2.Sobel(lum, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lum, cv2.CV_32F, 0, 1, ksize=3)
    # Dilated > eroded; the 0/1 bytes seen as booleans, which numpy lists ten times faster.
    edge = np.flatnonzero(cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, _SQUARE5).view(bool))
    gx, gy = gx.ravel()[edge], gy.ravel()[edge]
    mag = np.hypot(gx, gy)
    keep = mag > 0.1 * float((mag.max() if mag.size else 0) or 1)
    folded = np.degrees(np.arctan2(gy[keep], gx[keep])) % 90.0
    hist = np.bincount(np.minimum(89, folded.astype(np.int64)), weights=mag[keep], minlength=90)
    hist = hist + hist[_PREV] * 0.6 + hist[_NEXT] * 0.6  # circular smoothing over 1° bins
    k = int(np.argmax(hist))
    left, mid, right = hist[(k - 1) % 90], hist[k], hist[(k + 1) % 90]
    den = left - 2 * mid + right
    offset = 0.5 * (left - right) / den if den < 0 else 0.0
    return float(k + 0.5 + offset)


def _window_sums(integral: np.ndarray, kw: int, kh: int, S: int) -> np.ndarray:
    """What ``cv2.boxFilter`` (kw x kh, unnormalised, anchored at its centre) gives at the centre of the
    canvas and S px around it, from the canvas's integral image: only those (2S + 1)² boxes are summed."""
    n = 2 * S + 1
    r0 = (integral.shape[0] - 1) // 2 - S - kh // 2
    c0 = (integral.shape[1] - 1) // 2 - S - kw // 2
    a, b = integral[r0:r0 + n, c0:c0 + n], integral[r0:r0 + n, c0 + kw:c0 + kw + n]
    c, d = integral[r0 + kh:r0 + kh + n, c0:c0 + n], integral[r0 + kh:r0 + kh + n, c0 + kw:c0 + kw + n]
    return (d - b - c + a).astype(np.float32)


def _quarter_caps(rect: tuple, thetas: tuple[float, float], cw: int, ch: int) -> list[float]:
    """Upper bounds of the score a ``cw`` x ``ch`` box can reach at each of ``thetas`` (a quarter turn apart)
    for a mask lying within ``rect`` (its outline's minimum-area rectangle). Turned, the mask lies within the
    rectangle's upright bounding box (w x h) widened by 1.5 px (bilinear sampling reaches a pixel away, √2
    once turned), so the box holds at most min(cw, w + 4) x min(ch, h + 4) pixels of it, each at most 1, and
    its band is never negative. A card's outline laid portrait thus rules out fitting it landscape (about
    0.75 at most) as soon as the portrait fit scores more, without turning the mask that way."""
    _, (rw, rh), rect_angle = rect
    caps = []
    for theta in thetas:
        turn = math.radians(rect_angle - theta)
        c, s = abs(math.cos(turn)), abs(math.sin(turn))
        w, h = rw * c + rh * s, rw * s + rh * c  # the turned rectangle's upright bounding box
        caps.append(min(cw, w + 4) * min(ch, h + 4) / (cw * ch) + 0.01)  # + 0.01: rounding, with room
    return caps


def _fit_at(src: np.ndarray, centre: tuple[float, float], theta: float, box: tuple[int, int], b: int, g: int):
    """The best position of a ``box`` (w, h) with a band ``b`` px wide ``g`` px away on ``src`` turned by
    ``theta`` about ``centre``, within ``SEARCH_MM`` of it: (score, turn matrix, x, y on the canvas, fill,
    band, theta)."""
    (cx, cy), (cw, ch) = centre, box
    S = round(SEARCH_MM * PATCH_PX_PER_MM)
    W, H = cw + 2 * (b + g) + 2 * S + 2, ch + 2 * (b + g) + 2 * S + 2
    in_area = cw * ch
    band_area = (cw + 2 * (b + g)) * (ch + 2 * (b + g)) - (cw + 2 * g) * (ch + 2 * g)
    # Turn the mask so that the candidate card is upright, its outline's centre in the canvas's centre.
    R = cv2.getRotationMatrix2D((cx, cy), theta, 1.0)
    R[:, 2] += (W / 2 - cx, H / 2 - cy)
    turned = cv2.integral(cv2.warpAffine(src, R, (W, H), flags=cv2.INTER_LINEAR), sdepth=cv2.CV_64F)
    inner = _window_sums(turned, cw, ch, S)
    gap = _window_sums(turned, cw + 2 * g, ch + 2 * g, S) if g else inner
    outer = _window_sums(turned, cw + 2 * (b + g), ch + 2 * (b + g), S)
    score = inner / in_area - (outer - gap) / band_area
    y, x = divmod(int(np.argmax(score)), score.shape[1])
    return (float(score[y, x]), R, x + W // 2 - S, y + H // 2 - S, float(inner[y, x] / in_area),
            float((outer[y, x] - gap[y, x]) / band_area), theta)


def fit_card(mask: np.ndarray, lum: np.ndarray, card_px: tuple[float, float],
             band_px: float, gap_px: float = 0.0) -> tuple[np.ndarray, float, float]:
    """The card-sized rectangle that best fits ``mask``: (corners in patch px, fill, band).

    Candidate turns: the outline's minimum-area rectangle (exact for a card seen whole) and the edges'
    strongest direction (which a fingertip barely moves), each also a little either way and a quarter turn
    on; for each, the best position within ``SEARCH_MM`` of the outline's centre (the first of equal
    scores). A quarter turn that cannot beat the other (``_quarter_caps``) is not tried."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    rect = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    (cx, cy), _, rect_angle = rect
    angles: list[float] = []
    for a in (rect_angle % 90, edge_angle(mask, lum), rect_angle % 90 - 1.2, rect_angle % 90 + 1.2):
        if all(min(abs(a % 90 - u), 90 - abs(a % 90 - u)) > 0.4 for u in angles):
            angles.append(a % 90)
    box = cw, ch = max(3, round(card_px[0])), max(3, round(card_px[1]))
    b, g = max(1, round(band_px)), max(0, round(gap_px))
    src = mask.astype(np.float32)
    # Portrait or landscape is settled at the outline's own angle; the other angles try that one only. The
    # quarter turn likelier to win goes first (on equal scores the outline's own angle still wins); the
    # bounds hold only for a mask that is one outline.
    pair = (angles[0], angles[0] + 90)
    caps = _quarter_caps(rect, pair, cw, ch) if len(contours) == 1 else [np.inf, np.inf]
    best = None
    for i in sorted((0, 1), key=lambda i: -caps[i]):
        if best is None or caps[i] >= best[0]:
            fit = _fit_at(src, (cx, cy), pair[i], box, b, g)
            if best is None or fit[0] > best[0] or (fit[0] == best[0] and i == 0):
                best = fit
    for theta in angles[1:]:
        quarter = 90 if abs(((best[6] - angles[0]) % 180) - 90) < 1 else 0  # of the best so far
        fit = _fit_at(src, (cx, cy), theta + quarter, box, b, g)
        if fit[0] > best[0]:
            best = fit
    _, R, x, y, fill, band, _ = best
    # boxFilter's anchor is the kernel's centre: (x, y) is the centre of a box of cw x ch pixels.
    x0, y0 = x - (cw - 1) / 2 - 0.5, y - (ch - 1) / 2 - 0.5
    corners = np.array([(x0, y0), (x0 + cw, y0), (x0 + cw, y0 + ch), (x0, y0 + ch)], np.float64)
    back = cv2.invertAffineTransform(R)
    return corners @ back[:, :2].T + back[:, 2], fill, band


class PatchMaps:
    """A patch's remap maps for frames of one size, moved into the part of the frame they read when that part
    is small enough to take a faster remap of the same bytes.

    OpenCV's bilinear remap of a 4-channel image takes half the time of a 3-channel one and gives the same
    values channel by channel: the part of a colour frame a patch reads is made BGRA, remapped and made BGR
    again. The maps move by whole pixels, which float32 coordinates take exactly (a shift towards 0 keeps
    each coordinate's step), and the part reaches a few pixels past what bilinear sampling reads, so no pixel
    meets the part's border unless it meets the frame's (where both replicate the same pixels)."""

    PAD = 4  # px past the last pixel read
    SPREAD = 8  # a part larger than this many times the patch costs more to convert than the remap saves

    def __init__(self, maps: tuple[np.ndarray, np.ndarray], shape: tuple[int, ...]):
        self.rows = self.cols = slice(None)
        self.mx, self.my = maps
        part = self._part(shape)
        self.cut = part is not None
        if self.cut:
            x0, x1, y0, y1 = part
            self.rows, self.cols = slice(y0, y1), slice(x0, x1)
            self.mx, self.my = self.mx - np.float32(x0), self.my - np.float32(y0)

    def _part(self, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
        """(x0, x1, y0, y1): the part of a frame of ``shape`` the maps read, if it is worth cutting out."""
        ends = float(self.mx.min()), float(self.mx.max()), float(self.my.min()), float(self.my.max())
        if not all(map(math.isfinite, ends)):
            return None
        h, w = shape[:2]
        x0, x1 = max(0, math.floor(ends[0]) - self.PAD), min(w, math.floor(ends[1]) + 2 + self.PAD)
        y0, y1 = max(0, math.floor(ends[2]) - self.PAD), min(h, math.floor(ends[3]) + 2 + self.PAD)
        if x1 - x0 < 2 or y1 - y0 < 2 or (x1 - x0) * (y1 - y0) > self.SPREAD * self.mx.size:
            return None
        return x0, x1, y0, y1

    def sample(self, frame: np.ndarray) -> np.ndarray:
        """The patch's pixels: the frame's bilinear remap (border replicated) through the maps, byte for byte."""
        part = frame[self.rows, self.cols]
        if not self.cut or part.ndim != 3 or part.shape[2] != 3:
            return cv2.remap(part, self.mx, self.my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        bgra = cv2.remap(cv2.cvtColor(part, cv2.COLOR_BGR2BGRA), self.mx, self.my, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
        return cv2.cvtColor(bgra, cv2.COLOR_BGRA2BGR)


class ZonePatch:
    """What of a card zone's patch (at ``s`` px/mm) stays from frame to frame: its grid of board points, where
    the zone lies in it, the ring's pixels, and the frame's remap maps (kept as long as the homography, lens
    and frame size)."""

    def __init__(self, bounds: tuple[float, float, float, float], s: float = PATCH_PX_PER_MM):
        self.bounds, self.s = bounds, s
        self.grid = patch_grid(bounds, s=s)
        self.origin = self.grid[0, 0] - 0.5 / s  # the patch's top-left corner, board mm
        left, top = self.origin
        x0, y0 = round((bounds[0] - left) * s), round((bounds[1] - top) * s)
        x1, y1 = round((bounds[2] - left) * s), round((bounds[3] - top) * s)
        self.zone = (slice(y0, y1), slice(x0, x1))
        inside = np.zeros(self.grid.shape[:2], bool)
        inside[self.zone] = True
        self.inside, self.ring = inside, ring_pixels(inside)
        self._maps: tuple[bytes, PatchMaps] | None = None
        self.preview = ZonePatch(bounds, PREVIEW_PX_PER_MM) if s > PREVIEW_PX_PER_MM else None
        self.mat: tuple[tuple[float, ...], float] = ((0.0, 0.0, 0.0), 1.0)
        self.whole = 0
        self.raw: np.ndarray | None = None

    def sample(self, frame: np.ndarray, H: np.ndarray, lens: LensModel | None) -> np.ndarray:
        key = H.tobytes() + (b"" if lens is None else lens.matrix.tobytes() + lens.distortion.tobytes())
        key += np.int64(frame.shape[:2]).tobytes()
        if self._maps is None or self._maps[0] != key:
            self._maps = (key, PatchMaps(frame_maps(self.grid, H, lens), frame.shape))
        return self._maps[1].sample(frame)

    def look(self, frame: np.ndarray, H: np.ndarray, lens: LensModel | None, dense: bool = False):
        """What stands out of the mat: (mask, its area inside the zone in px, the smoothed patch, the mat
        table, the brightness relative to the mat if it was needed); no mask when the area is 0."""
        smooth = cv2.GaussianBlur(self.sample(frame, H, lens), (0, 0), BLUR_MM * self.s)
        table, mat, plain = _mat_table(smooth, self.ring)
        raw, lum = _not_mat(smooth, table, dense)
        self.raw = raw  # what stood out of the ring's colour, pixel by pixel...
        self.mat = (tuple(float(v) - 2 for v in mat), plain)  # ...of the last look...
        mask, area, self.whole = _outline(raw, self.zone, self.s)  # ...and its area before the fingers' cut
        return mask, area, smooth, table, lum


def find_card(frame: np.ndarray, H: np.ndarray, lens: LensModel | None, bounds: tuple[float, float, float, float],
              card_mm: tuple[float, float], zone: ZonePatch | None = None, first_look: bool = True,
              unlike_mat: Callable[[ZonePatch], np.ndarray] | None = None) -> Found:
    """Look for a card of ``card_mm`` (width, height) in the zone ``bounds`` (mm) of ``frame`` (``zone``:
    its ``ZonePatch``, kept from frame to frame by the caller). Without ``first_look`` (the zone held
    something in the last frame and likely does again) only the full-resolution look is taken.
    ``unlike_mat``: where the patch differs from the enrolled empty mat (a card whose border is of the mat's
    colour, or on a mat printed with art, stands out of the enrolled mat whole though not of the ring's colour);
    asked only when the outline against the ring's colour is not a card's rectangle."""
    zone = ZonePatch(bounds) if zone is None else zone
    card_area = card_mm[0] * card_mm[1]
    if zone.preview is not None and first_look:
        zone.preview.look(frame, H, lens)
        area = zone.preview.whole / (card_area * zone.preview.s ** 2)  # fingers count: they are no mat
        if area < PLAINLY_EMPTY:
            return Found("empty", area=area, mat=zone.preview.mat[0], plain=zone.preview.mat[1])
    s = zone.s
    mask, area_px, smooth, table, lum = zone.look(frame, H, lens, dense=not first_look)
    area = area_px / (card_area * s * s)
    whole = zone.whole / (card_area * s * s)
    if area < EMPTY_AREA and whole < FINGERS_AREA:
        return Found("empty", area=area, mat=zone.mat[0], plain=zone.mat[1])
    fill = band = 0.0
    if area >= EMPTY_AREA:
        lum = _test(*_relative(smooth, table))[1] if lum is None else lum
        corners_px, fill, band = fit_card(mask, lum, (card_mm[0] * s, card_mm[1] * s), BAND_MM * s, GAP_MM * s)
    if (fill < MIN_FILL or band > MAX_BAND) and unlike_mat is not None:
        # Pieces that are no card's rectangle, or too thin to be more than fingers, against the ring's colour: a
        # card whose border and panels are of the mat's colour shows only its art and frame lines there (deck
        # 1482 on a cream mat, dev tables 19646: 16 cards of one table). Outlined as the ring's colour's mask is:
        # specks opened away, holes filled, a fingertip cut off.
        against_mat, in_zone, _ = _outline(unlike_mat(zone).view(np.uint8), zone.zone, s)
        if against_mat is not None and in_zone >= EMPTY_AREA * card_area * s * s:
            area = max(area, in_zone / (card_area * s * s))
            lum = _test(*_relative(smooth, table))[1] if lum is None else lum
            corners_px, fill, band = fit_card(against_mat, lum, (card_mm[0] * s, card_mm[1] * s), BAND_MM * s,
                                              GAP_MM * s)
    if fill < MIN_FILL or band > MAX_BAND:  # fingers over the place, no card, or a card that is no rectangle here
        return Found("blob", fill=fill, band=band, area=area if area >= EMPTY_AREA else max(area, whole),
                     mat=zone.mat[0], plain=zone.mat[1])
    corners_mm = (corners_px + 0.5) / s + zone.origin
    return Found("card", corners_mm, fill, band, area, zone.mat[0], zone.mat[1])


def around_card(stood_out: np.ndarray, origin: np.ndarray, s: float, corners_mm: np.ndarray,
                card_mm: tuple[float, float], px_per_mm: float = CARD_PX_PER_MM) -> np.ndarray:
    """Where something that is not the mat lies just beyond the card's edge: (h + 2m, w + 2m) bool in the cut
    card's frame (``cut_card``'s size) widened by m = ``AROUND_MM`` on every side, True only in the ring
    from ``GAP_MM`` (a sleeve's clear rim) to ``AROUND_MM`` beyond the edge. ``stood_out``: what the zone's
    patch (top-left corner ``origin`` mm, ``s`` px/mm) showed standing out of the mat (its own print left
    out). A fingertip over the card crosses its edge there, even where it is of the card's border's colour."""
    size = cut_size(card_mm, px_per_mm)
    m, gap = round(AROUND_MM * px_per_mm), round(GAP_MM * px_per_mm)
    at = (card_grid(corners_mm, size, m) - origin) * s - 0.5
    ring = cv2.remap(stood_out.view(np.uint8), np.ascontiguousarray(at[..., 0], np.float32),
                     np.ascontiguousarray(at[..., 1], np.float32), cv2.INTER_NEAREST,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(bool)
    ring[m - gap:m + size[1] + gap, m - gap:m + size[0] + gap] = False
    if np.count_nonzero(ring) > 0.5 * (ring.size - (size[0] + 2 * gap) * (size[1] + 2 * gap)):
        ring[:] = False
    return ring


def cut_card(frame: np.ndarray, H: np.ndarray, lens: LensModel | None, corners_mm: np.ndarray,
             card_mm: tuple[float, float], px_per_mm: float = CARD_PX_PER_MM) -> np.ndarray:
    """The card, upright (portrait) at ``px_per_mm``, cut from the frame in one resampling."""
    return sample(frame, card_grid(corners_mm, cut_size(card_mm, px_per_mm)), H, lens)


def cut_size(card_mm: tuple[float, float], px_per_mm: float = CARD_PX_PER_MM) -> tuple[int, int]:
    """(width, height) in pixels of a card cut upright at ``px_per_mm`` (``cut_card``, ``around_card``)."""
    return max(8, round(card_mm[0] * px_per_mm)), max(8, round(card_mm[1] * px_per_mm))
