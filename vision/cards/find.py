"""Finding the card in a card zone, and cutting it out of the frame upright.

The zone (with a margin, as a card laid askew overhangs it) is sampled from the frame through the board
homography at ``PATCH_PX_PER_MM``. The mat is what the patch's outer ring mostly shows: its median colour
sets the light, and the card is what is clearly brighter or of another colour (shadows are darker with the
same colour, so they are not mistaken for the card). Holes inside the outline are filled (a card's dark
art), then a rectangle of the card's known size is fitted: at the outline's own angle and a few degrees
either way, the position where the rectangle is fullest and the band around it emptiest. A fingertip over
a corner adds a little outside the band and moves the fit by a millimetre at most.

The card is then cut out of the frame itself (one resampling, lens included) as an upright portrait image
of ``CARD_PX_PER_MM``; which end is up is left to the matcher.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.store import LensModel

PATCH_PX_PER_MM = 2.0
CARD_PX_PER_MM = 2.0
MARGIN_MM = 9.0  # a card turned a quarter and askew overhangs its 80 x 96 mm place by up to this
BAND_MM = 3.0  # the band around the fitted rectangle that should be mat
FINGER_MM = 21.0  # fingers are narrower than this; cards are much wider
SEARCH_MM = 10.0  # how far the card's centre may lie from its outline's (a fingertip pulls the outline)
MIN_FILL = 0.8  # the fitted rectangle must be at least this much card...
MAX_BAND = 0.45  # ...and its band at most this much
EMPTY_AREA = 0.2  # less than this fraction of a card's area standing out of the mat: the zone is empty


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


def to_frame(pts_mm: np.ndarray, H: np.ndarray, lens: LensModel | None) -> np.ndarray:
    """Board mm -> frame pixels (through the lens when it is known)."""
    pts = np.asarray(pts_mm, np.float64)
    shape = pts.shape
    img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
    if lens is not None:
        img = lens.distort_points(img)
    return img.reshape(shape)


def sample(frame: np.ndarray, grid_mm: np.ndarray, H: np.ndarray, lens: LensModel | None) -> np.ndarray:
    """The frame's colours at a grid of board points (h, w, 2) mm: one bilinear remap."""
    xy = to_frame(grid_mm, H, lens).astype(np.float32)
    return cv2.remap(frame, np.ascontiguousarray(xy[..., 0]), np.ascontiguousarray(xy[..., 1]), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def patch_grid(bounds: tuple[float, float, float, float], margin: float = MARGIN_MM,
               s: float = PATCH_PX_PER_MM) -> np.ndarray:
    """Board mm at the centre of every pixel of a zone's patch (zone bounds plus ``margin``)."""
    left, top, right, bottom = bounds[0] - margin, bounds[1] - margin, bounds[2] + margin, bounds[3] + margin
    w, h = round((right - left) * s), round((bottom - top) * s)
    xs = left + (np.arange(w) + 0.5) / s
    ys = top + (np.arange(h) + 0.5) / s
    gx, gy = np.meshgrid(xs, ys)
    return np.stack([gx, gy], axis=-1)


def card_grid(corners_mm: np.ndarray, size_px: tuple[int, int]) -> np.ndarray:
    """Board mm at the centre of every pixel of the upright card image (bilinear in the card's corners)."""
    w, h = size_px
    u = ((np.arange(w) + 0.5) / w)[None, :, None]
    v = ((np.arange(h) + 0.5) / h)[:, None, None]
    tl, tr, br, bl = (np.asarray(c, np.float64) for c in corners_mm)
    return (1 - v) * ((1 - u) * tl + u * tr) + v * ((1 - u) * bl + u * br)


def foreground(patch: np.ndarray, inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixels that are not mat: clearly brighter, or of another colour, than the median of the ring
    (``~inside``). Holes inside an outline are filled. Returns a uint8 mask (0/1) and the brightness
    relative to the mat (float32)."""
    smooth = cv2.GaussianBlur(patch, (0, 0), 1.0).astype(np.float32) + 2.0
    ring = smooth[~inside][::3]  # a third of the ring gives the same median, three times faster
    mat = np.median(ring if len(ring) >= 20 else smooth.reshape(-1, 3), axis=0)
    b, g, r = cv2.split(smooth / mat)
    lum = (b + g + r) / 3
    spread = np.maximum(np.maximum(np.abs(b - lum), np.abs(g - lum)), np.abs(r - lum))
    mask = ((lum > 1.5) | (spread > 0.22 * lum)).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 1, -1)
    # A fingertip is narrower than FINGER_MM: opening with a disc that wide takes off what of it lies
    # outside the card. Done at a quarter of the resolution (the disc is large), then used only to cut
    # away what lies clearly outside it, so the card keeps its own sharp edges.
    h, w = filled.shape
    small = cv2.resize(filled.astype(np.float32), (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    side = 2 * round(FINGER_MM * PATCH_PX_PER_MM / 8) + 1
    opened = cv2.morphologyEx((small > 0.5).astype(np.uint8), cv2.MORPH_OPEN,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
    keep = cv2.resize(cv2.dilate(opened, np.ones((3, 3), np.uint8)), (w, h), interpolation=cv2.INTER_NEAREST)
    return filled & keep, lum


def edge_angle(mask: np.ndarray, lum: np.ndarray) -> float:
    """The card's turn (degrees, modulo 90) from its outline: the strongest direction of the brightness
    gradient along the mask's edge (the image's own anti-aliased edge, not the mask's staircase), folded
    onto a quarter turn. A card's four straight edges outweigh a fingertip's curve."""
    gx = cv2.Sobel(lum, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lum, cv2.CV_32F, 0, 1, ksize=3)
    kernel = np.ones((5, 5), np.uint8)
    edge = cv2.dilate(mask, kernel) > cv2.erode(mask, kernel)
    mag = np.hypot(gx, gy) * edge
    keep = mag > 0.1 * float(mag.max() or 1)
    folded = np.degrees(np.arctan2(gy[keep], gx[keep])) % 90.0
    hist = np.bincount(np.minimum(89, folded.astype(np.int64)), weights=mag[keep], minlength=90)
    hist = hist + np.roll(hist, 1) * 0.6 + np.roll(hist, -1) * 0.6  # circular smoothing over 1° bins
    k = int(np.argmax(hist))
    left, mid, right = hist[(k - 1) % 90], hist[k], hist[(k + 1) % 90]
    den = left - 2 * mid + right
    offset = 0.5 * (left - right) / den if den < 0 else 0.0
    return float(k + 0.5 + offset)


def fit_card(mask: np.ndarray, lum: np.ndarray, card_px: tuple[float, float],
             band_px: float) -> tuple[np.ndarray, float, float]:
    """The card-sized rectangle that best fits ``mask``: (corners in patch px, fill, band).

    Candidate turns: the outline's minimum-area rectangle (exact for a card seen whole) and the edges'
    strongest direction (which a fingertip barely moves), each also a little either way and a quarter turn
    on; for each, the best position within ``SEARCH_MM`` of the outline's centre."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    (cx, cy), _, rect_angle = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    angles: list[float] = []
    for a in (rect_angle % 90, edge_angle(mask, lum), rect_angle % 90 - 1.2, rect_angle % 90 + 1.2):
        if all(min(abs(a % 90 - u), 90 - abs(a % 90 - u)) > 0.4 for u in angles):
            angles.append(a % 90)
    cw, ch = max(3, round(card_px[0])), max(3, round(card_px[1]))
    b = max(1, round(band_px))
    S = round(SEARCH_MM * PATCH_PX_PER_MM)
    W, H = cw + 2 * b + 2 * S + 2, ch + 2 * b + 2 * S + 2
    in_area, band_area = cw * ch, (cw + 2 * b) * (ch + 2 * b) - cw * ch
    src = mask.astype(np.float32)
    best = None
    # Portrait or landscape is settled at the outline's own angle; the other angles try that one only.
    candidates = [angles[0], angles[0] + 90]
    for theta in candidates + [None] * (len(angles) - 1):
        if theta is None:
            quarter = 90 if abs(((best[6] - angles[0]) % 180) - 90) < 1 else 0
            theta = angles[len(candidates) - 1] + quarter
            candidates.append(theta)
        # Turn the mask so that the candidate card is upright, its outline's centre in the canvas's centre.
        R = cv2.getRotationMatrix2D((cx, cy), theta, 1.0)
        R[:, 2] += (W / 2 - cx, H / 2 - cy)
        turned = cv2.warpAffine(src, R, (W, H), flags=cv2.INTER_LINEAR)
        inner = cv2.boxFilter(turned, -1, (cw, ch), normalize=False, borderType=cv2.BORDER_CONSTANT)
        outer = cv2.boxFilter(turned, -1, (cw + 2 * b, ch + 2 * b), normalize=False, borderType=cv2.BORDER_CONSTANT)
        window = (slice(H // 2 - S, H // 2 + S + 1), slice(W // 2 - S, W // 2 + S + 1))
        score = inner[window] / in_area - (outer[window] - inner[window]) / band_area
        y, x = np.unravel_index(int(np.argmax(score)), score.shape)
        if best is None or score[y, x] > best[0]:
            y, x = y + H // 2 - S, x + W // 2 - S
            best = (float(score[y - H // 2 + S, x - W // 2 + S]), R, x, y, float(inner[y, x] / in_area),
                    float((outer[y, x] - inner[y, x]) / band_area), theta)
    _, R, x, y, fill, band, _ = best
    # boxFilter's anchor is the kernel's centre: (x, y) is the centre of a box of cw x ch pixels.
    x0, y0 = x - (cw - 1) / 2 - 0.5, y - (ch - 1) / 2 - 0.5
    box = np.array([(x0, y0), (x0 + cw, y0), (x0 + cw, y0 + ch), (x0, y0 + ch)], np.float64)
    back = cv2.invertAffineTransform(R)
    corners = box @ back[:, :2].T + back[:, 2]
    return corners, fill, band


def find_card(frame: np.ndarray, H: np.ndarray, lens: LensModel | None, bounds: tuple[float, float, float, float],
              card_mm: tuple[float, float], grid_mm: np.ndarray | None = None) -> Found:
    """Look for a card of ``card_mm`` (width, height) in the zone ``bounds`` (mm) of ``frame``."""
    grid = patch_grid(bounds) if grid_mm is None else grid_mm
    patch = sample(frame, grid, H, lens)
    s = PATCH_PX_PER_MM
    left, top = grid[0, 0] - 0.5 / s
    inside = np.zeros(patch.shape[:2], bool)
    x0, y0 = round((bounds[0] - left) * s), round((bounds[1] - top) * s)
    x1, y1 = round((bounds[2] - left) * s), round((bounds[3] - top) * s)
    inside[y0:y1, x0:x1] = True
    mask, lum = foreground(patch, inside)
    area = float(mask[inside].sum()) / (card_mm[0] * card_mm[1] * s * s)
    if area < EMPTY_AREA:
        return Found("empty", area=area)
    corners_px, fill, band = fit_card(mask, lum, (card_mm[0] * s, card_mm[1] * s), BAND_MM * s)
    if fill < MIN_FILL or band > MAX_BAND:
        return Found("blob", fill=fill, band=band, area=area)
    corners_mm = (corners_px + 0.5) / s + (left, top)
    return Found("card", corners_mm, fill, band, area)


def cut_card(frame: np.ndarray, H: np.ndarray, lens: LensModel | None, corners_mm: np.ndarray,
             card_mm: tuple[float, float], px_per_mm: float = CARD_PX_PER_MM) -> np.ndarray:
    """The card, upright (portrait) at ``px_per_mm``, cut from the frame in one resampling."""
    size = (max(8, round(card_mm[0] * px_per_mm)), max(8, round(card_mm[1] * px_per_mm)))
    return sample(frame, card_grid(corners_mm, size), H, lens)
