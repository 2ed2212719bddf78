"""Board faces: plain boards of any plausible colour, and illustrated boards printed with random artwork.

A real board is rarely the layout's nominal colour and rarely plain: the Compendium and the cauldron are
printed with pictures, coloured panels under the slots, rings around them, lettering. ``Artwork`` is one
board's face, drawn again identically from its ``seed``; ``paint_artwork`` paints it in the board's own
millimetres, so the same board looks the same from any camera. The markers are drawn over it afterwards
(``vision.render.scene``), intact.

>>> import numpy as np
>>> from calibration.layout import load_layout
>>> layout = load_layout("chaudron")
>>> art = random_artwork(layout, np.random.default_rng(1), "illustrated")
>>> face = board_face(layout, art, 2.0)
>>> face.shape, bool(face.std() > 0.05)
((480, 480, 3), True)
"""

from __future__ import annotations

import math
import string
from dataclasses import asdict, dataclass
from typing import Any

import cv2
import numpy as np

from calibration.layout import Layout
from vision.render.scene import SHIFT, Canvas, rgb_to_bgr01, smooth_noise

BOARD_KINDS = ("plain", "illustrated")
# Board colours seen on real tables besides the layout's own (RGB).
BOARD_COLOURS = {
    "cream": (236, 226, 200), "ivory": (242, 238, 224), "pale grey": (200, 200, 196), "sand": (206, 184, 142),
    "kraft": (176, 140, 98), "dark wood": (92, 62, 40), "walnut": (64, 44, 32), "dark blue": (38, 52, 84),
    "teal": (36, 90, 96), "green felt": (46, 92, 60), "slate": (70, 74, 80), "burgundy": (100, 36, 44),
    "black": (30, 30, 32),
}
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
         cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_SCRIPT_COMPLEX)


@dataclass(frozen=True)
class Artwork:
    """One board's face: ``plain`` (one colour, mottled, zone outlines or not) or ``illustrated``."""
    kind: str
    base_rgb: tuple[int, int, int]
    seed: int
    outlines: bool = True

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def random_artwork(layout: Layout, rng: np.random.Generator, kind: str) -> Artwork:
    """A board face of ``kind``: its colour the layout's (about one board in three) or another plausible
    board colour, each a little off; outlines printed round the slots on most boards."""
    if kind not in BOARD_KINDS:
        raise ValueError(f"board: {kind!r}: expected one of {', '.join(BOARD_KINDS)}")
    if rng.random() < 0.35:
        base = np.array(layout.colour("empty"), float)
    else:
        names = sorted(BOARD_COLOURS)
        base = np.array(BOARD_COLOURS[names[int(rng.integers(len(names)))]], float)
    base = np.clip(base + rng.normal(0, 6, 3), 0, 255)
    return Artwork(kind, tuple(round(v) for v in base), int(rng.integers(2**31)), bool(rng.random() < 0.7))


def _colour(rng: np.random.Generator, pieces: list[np.ndarray], base: np.ndarray) -> np.ndarray:
    """An artwork colour (BGR 0..1): dark, pale, saturated, near the board's, or a piece's own colour (the
    hard cases: dark art under pale pieces, pale under dark ones, a piece's colour under the slots)."""
    pick = rng.random()
    if pick < 0.2:
        hsv = (rng.uniform(0, 180), rng.uniform(0, 0.6), rng.uniform(0.06, 0.3))
    elif pick < 0.4:
        hsv = (rng.uniform(0, 180), rng.uniform(0, 0.25), rng.uniform(0.8, 0.97))
    elif pick < 0.55 and pieces:
        return np.clip(pieces[int(rng.integers(len(pieces)))] * rng.uniform(0.85, 1.1), 0, 1)
    elif pick < 0.7:
        return np.clip(base * rng.uniform(0.6, 1.3) + rng.normal(0, 0.04, 3), 0, 1)
    else:
        hsv = (rng.uniform(0, 180), rng.uniform(0.3, 0.9), rng.uniform(0.3, 0.9))
    px = np.uint8([[[round(hsv[0]) % 180, round(hsv[1] * 255), round(hsv[2] * 255)]]])
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32) / 255.0


def _blend(img: np.ndarray, mask: np.ndarray, colour: np.ndarray) -> None:
    img[:] = img * (1 - mask[..., None]) + mask[..., None] * colour.astype(np.float32)


def _groups(layout: Layout) -> dict[str, list]:
    """Zones printed on one panel: those whose ids share the part before the first '.', or a row of a
    grid (``r2c0``, ``r2c1`` ...); a zone of its own otherwise."""
    out: dict[str, list] = {}
    for z in layout.zones:
        key = z.id.split(".")[0] if "." in z.id else (z.id.split("c")[0] if z.id.startswith("r") else z.id)
        out.setdefault(key, []).append(z)
    return out


def board_face(layout: Layout, art: Artwork, px_per_mm: float) -> np.ndarray:
    """The board's printed face (BGR float 0..1) at ``px_per_mm``, in board coordinates."""
    face = Canvas((0.0, 0.0), layout.size, px_per_mm)
    img = face.image
    rng = np.random.default_rng(art.seed)
    base = np.array(rgb_to_bgr01(art.base_rgb), np.float32)
    img[:] = base
    img *= (1 + 0.025 * smooth_noise(img.shape[:2], 24, rng))[..., None]
    s = face.s
    pieces = [np.array(rgb_to_bgr01(layout.colour(label)), np.float32) for label in layout.palette]
    if art.kind == "illustrated":
        _illustrate(face, layout, rng, base, pieces)
    bw, bh = layout.size
    width = max(1, round(0.7 * s))
    if art.outlines:
        dark = float(base.mean()) > 0.35
        line = base * (0.72 if dark else 1.6)
        for z in layout.zones:
            left, top, right, bottom = z.bounds
            cv2.polylines(img, [face.px([(left, top), (right, top), (right, bottom), (left, bottom)])], True,
                          tuple(np.clip(line, 0, 1).tolist()), width, cv2.LINE_AA, SHIFT)
    cv2.polylines(img, [face.px([(0, 0), (bw, 0), (bw, bh), (0, bh)])], True, tuple((base * 0.5).tolist()),
                  width + 1, cv2.LINE_AA, SHIFT)
    return np.clip(img, 0, 1)


def _illustrate(face: Canvas, layout: Layout, rng: np.random.Generator, base: np.ndarray,
                pieces: list[np.ndarray]) -> None:
    img = face.image
    s = face.s
    bw, bh = layout.size
    span = max(bw, bh)
    h, w = img.shape[:2]
    # Smooth colour fields: washes of one or two colours over parts of the board.
    for _ in range(int(rng.integers(1, 4))):
        field = smooth_noise((h, w), int(rng.integers(3, 9)), rng)
        cut = rng.uniform(-0.3, 0.5)
        mask = np.clip((field - cut) * rng.uniform(2, 8), 0, 1) * rng.uniform(0.4, 1.0)
        _blend(img, mask.astype(np.float32), _colour(rng, pieces, base))
    # Blobs: ellipses, some with soft edges.
    for _ in range(int(rng.integers(3, 14))):
        mask = np.zeros((h, w), np.float32)
        centre = face.px([(rng.uniform(0, bw), rng.uniform(0, bh))])[0].tolist()
        axes = tuple(int(rng.uniform(0.03, 0.25) * span * s * (1 << SHIFT)) for _ in range(2))
        cv2.ellipse(mask, tuple(centre), axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1, cv2.LINE_AA, SHIFT)
        if rng.random() < 0.5:
            mask = cv2.GaussianBlur(mask, (0, 0), rng.uniform(1, 8) * s)
        _blend(img, mask * float(rng.uniform(0.5, 1.0)), _colour(rng, pieces, base))
    # Long lines and curves.
    for _ in range(int(rng.integers(2, 10))):
        pts = np.column_stack([rng.uniform(-0.1, 1.1, 4) * bw, rng.uniform(-0.1, 1.1, 4) * bh])
        t = np.linspace(0, 1, 40)[:, None]
        curve = ((1 - t) ** 3 * pts[0] + 3 * (1 - t) ** 2 * t * pts[1] + 3 * (1 - t) * t ** 2 * pts[2]
                 + t ** 3 * pts[3])
        cv2.polylines(img, [face.px(curve)], False, tuple(_colour(rng, pieces, base).tolist()),
                      max(1, round(rng.uniform(0.4, 3) * s)), cv2.LINE_AA, SHIFT)
    # Panels under groups of slots and blocks under single slots, rings round some of them.
    p_panel, p_block, p_ring = rng.uniform(0, 0.8), rng.uniform(0, 0.9), rng.uniform(0, 0.6)
    colours = [_colour(rng, pieces, base) for _ in range(int(rng.integers(2, 6)))]
    round_blocks = rng.random() < 0.5
    for group in _groups(layout).values():
        if len(group) > 1 and rng.random() < p_panel:
            left = min(z.bounds[0] for z in group) - rng.uniform(1, 6)
            top = min(z.bounds[1] for z in group) - rng.uniform(1, 6)
            right = max(z.bounds[2] for z in group) + rng.uniform(1, 6)
            bottom = max(z.bounds[3] for z in group) + rng.uniform(1, 6)
            face.poly(img, [(left, top), (right, top), (right, bottom), (left, bottom)],
                      tuple(colours[int(rng.integers(len(colours)))].tolist()))
        for z in group:
            (cx, cy), (zw, zh) = z.center, z.size
            if rng.random() < p_block:
                colour = tuple((colours[int(rng.integers(len(colours)))] if rng.random() < 0.7
                                else _colour(rng, pieces, base)).tolist())
                m = rng.uniform(-0.15, 0.15) * min(zw, zh)
                if round_blocks:
                    cv2.circle(img, tuple(face.px([(cx, cy)])[0].tolist()),
                               int((0.5 * min(zw, zh) + m) * s * (1 << SHIFT)), colour, -1, cv2.LINE_AA, SHIFT)
                else:
                    face.poly(img, [(cx - zw / 2 - m, cy - zh / 2 - m), (cx + zw / 2 + m, cy - zh / 2 - m),
                                    (cx + zw / 2 + m, cy + zh / 2 + m), (cx - zw / 2 - m, cy + zh / 2 + m)], colour)
            if rng.random() < 0.3:
                # An icon printed in the slot (the ingredient it takes, a number): small, any colour.
                r = rng.uniform(0.12, 0.3) * min(zw, zh)
                k = int(rng.integers(3, 7))
                a0 = rng.uniform(0, 2 * math.pi)
                pts = [(cx + r * math.cos(a0 + 2 * math.pi * i / k), cy + r * math.sin(a0 + 2 * math.pi * i / k))
                       for i in range(k)]
                face.poly(img, pts, tuple(_colour(rng, pieces, base).tolist()))
            if rng.random() < p_ring:
                r = rng.uniform(0.4, 0.62) * min(zw, zh)
                cv2.circle(img, tuple(face.px([(cx, cy)])[0].tolist()), int(r * s * (1 << SHIFT)),
                           tuple(_colour(rng, pieces, base).tolist()), max(1, round(rng.uniform(0.6, 2.5) * s)),
                           cv2.LINE_AA, SHIFT)
    # Lettering: words in printed and script fonts, some across the slots.
    for _ in range(int(rng.integers(3, 16))):
        word = "".join(rng.choice(list(string.ascii_letters + "  "), int(rng.integers(3, 12))))
        height_mm = rng.uniform(2.5, 0.06 * span + 3)
        font = FONTS[int(rng.integers(len(FONTS)))]
        scale = height_mm * s / 22.0  # Hershey fonts are about 22 px tall at scale 1
        thick = max(1, round(scale * rng.uniform(1, 2.5)))
        colour = _colour(rng, pieces, base)
        (tw, th), below = cv2.getTextSize(word, font, scale, thick)
        x, y = (int(v) for v in (face.px([(rng.uniform(0, 0.9) * bw, rng.uniform(0.05, 1) * bh)])[0] >> SHIFT))
        # putText draws 8-bit images only: the word is drawn as a mask over its own box, then laid on.
        pad = thick + 2
        x0, y0, x1, y1 = max(0, x - pad), max(0, y - th - pad), min(w, x + tw + pad), min(h, y + below + pad)
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.putText(mask, word, (x - x0, y - y0), font, scale, 255, thick, cv2.LINE_AA)
        _blend(img[y0:y1, x0:x1], mask.astype(np.float32) / 255.0, colour)
    # Printed vignetting: the picture darkens (or pales) towards the board's edges.
    if rng.random() < 0.6:
        xs, ys = face.mm_grid()
        r2 = ((xs - bw / 2) / (bw / 2)) ** 2 + ((ys - bh / 2) / (bh / 2)) ** 2
        img *= (1 - rng.uniform(0.1, 0.45) * np.clip(r2 / 2, 0, 1))[..., None]


_LAID: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def paint_artwork(canvas: Canvas, layout: Layout, art: Artwork) -> None:
    """Lay the board's face on ``canvas`` (over the table drawn there). The face as laid is kept for the
    next frame on the same canvas (a table's frames share one camera, so it is painted once)."""
    key = (layout.name, layout.size, art, canvas.s, tuple(canvas.origin.tolist()), canvas.w, canvas.h)
    if key not in _LAID:
        _LAID.clear()
        face = board_face(layout, art, canvas.s)
        bw, bh = layout.size
        # Board mm -> canvas px is a translation between two canvases of one scale.
        M = np.float64([[1, 0, -canvas.origin[0] * canvas.s], [0, 1, -canvas.origin[1] * canvas.s]])
        warped = cv2.warpAffine(face, M, (canvas.w, canvas.h), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        mask = np.zeros((canvas.h, canvas.w), np.float32)
        canvas.poly(mask, [(0, 0), (bw, 0), (bw, bh), (0, bh)], 1.0)
        _LAID[key] = (warped * mask[..., None], mask[..., None])
    face, mask = _LAID[key]
    canvas.image *= 1 - mask
    canvas.image += face
