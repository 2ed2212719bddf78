"""Rendered cards: generated faces (never a publisher's art), laid in card zones, a finger over a corner.

A face is drawn from its name alone: a seed (CRC-32 of the name) picks a light border, a panel colour and
pattern, a handful of coloured glyphs and a banner with the name. Two names give two different faces in
the same style, which is what a set of real cards looks like to the recogniser (a common frame, different
art). A card never enrolled is simply a name outside the set.

With a ``CardStyle`` (``Conditions.cards``) the faces are those of one deck (``CardStyle.deck``) drawn as
real decks are: in families (``family_of``) that share a frame, palette, title band, background and
rules box and differ only in their art, title and numbers (``deck_face``); a deck may be sleeved (a glare
streak off the sleeve), a card may be bowed (shaded across), blurred as it is set down, laid any way up.

>>> face = card_face("fern", (63, 88), 2.0)
>>> face.shape, face.dtype
((176, 126, 3), dtype('float32'))
>>> bool((face != card_face("claw", (63, 88), 2.0)).any())
True
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.layout import Layout, Zone
from vision.cards import CARD_MM, card_size
from vision.pieces import PieceShape
from vision.render.camera import Camera
from vision.render.deck import GLYPHS, CardLook, CardStyle, card_look, deck_face, dress, glyph, hsv, motion_blur
from vision.render.scene import SHIFT, Canvas, Placed

CARD_HEIGHT = 0.5
FOREIGN_PREFIX = "~stranger-"  # a card that belongs to no set: what a foreign object in a card zone is


PRINTED_PX_PER_MM = 8.0  # a face is printed once at this resolution; a camera sees it at its own


@functools.lru_cache(maxsize=64)
def _face(name: str, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    s = px_per_mm
    w, h = max(8, round(size_mm[0] * s)), max(8, round(size_mm[1] * s))
    img = np.empty((h, w, 3), np.uint8)
    border = np.array([220, 235, 242], np.float32) * rng.uniform(0.94, 1.0)  # cream card stock
    img[:] = border
    b = round(3.5 * s)
    hue = rng.uniform(0, 360)
    panel = hsv(hue, rng.uniform(0.25, 0.7), rng.uniform(0.45, 0.85))
    second = hsv(hue + rng.uniform(60, 300), rng.uniform(0.3, 0.8), rng.uniform(0.35, 0.9))
    inner = img[b:h - b, b:w - b]
    inner[:] = panel
    ih, iw = inner.shape[:2]
    yy, xx = np.mgrid[0:ih, 0:iw].astype(np.float32)
    pattern = int(rng.integers(4))
    if pattern == 0:  # stripes at a seeded angle
        a = rng.uniform(0, math.pi)
        period = rng.uniform(6, 14) * s
        mask = (np.sin((xx * math.cos(a) + yy * math.sin(a)) * 2 * math.pi / period) > 0.3)
    elif pattern == 1:  # rings about a seeded centre
        c = (rng.uniform(0, iw), rng.uniform(0, ih))
        period = rng.uniform(7, 15) * s
        mask = np.sin(np.hypot(xx - c[0], yy - c[1]) * 2 * math.pi / period) > 0.2
    elif pattern == 2:  # dots on a lattice
        period = rng.uniform(7, 12) * s
        mask = (np.hypot((xx % period) - period / 2, (yy % period) - period / 2) < period * rng.uniform(0.2, 0.35))
    else:  # a diagonal split
        a = rng.uniform(0, 2 * math.pi)
        mask = (xx - iw / 2) * math.cos(a) + (yy - ih / 2) * math.sin(a) > rng.uniform(-0.2, 0.2) * iw
    inner[mask] = (inner[mask] * 0.45 + second * 0.55).astype(np.uint8)
    # Glyphs in the picture area (above the banner).
    banner = round(12 * s)
    for _ in range(int(rng.integers(3, 6))):
        r = rng.uniform(5, 12) * s
        centre = (rng.uniform(r * 0.6, iw - r * 0.6), rng.uniform(r * 0.6, ih - banner - r * 0.6))
        colour = hsv(rng.uniform(0, 360), rng.uniform(0.5, 1.0), rng.choice([0.15, 0.55, 0.95]))
        glyph(inner, GLYPHS[int(rng.integers(len(GLYPHS)))], centre, r, rng.uniform(0, 2 * math.pi), colour)
    # The banner: a dark band with the card's name.
    inner[ih - banner:] = hsv(hue + 180, 0.35, 0.22)
    text = name.replace(FOREIGN_PREFIX, "").replace("-", " ")[:18]
    scale = 1.0
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    scale = min(0.9 * iw / max(tw, 1), 0.55 * banner / max(th, 1))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    cv2.putText(inner, text, (max(0, (iw - tw) // 2), ih - (banner - th) // 2), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (242, 242, 242), max(1, round(scale * 1.5)), cv2.LINE_AA)
    return img.astype(np.float32) / 255.0


def card_face(name: str, size_mm: tuple[float, float] = CARD_MM, px_per_mm: float = 4.0,
              deck: int | None = None) -> np.ndarray:
    """The generated face of the card ``name``: a BGR float32 image (0..1), portrait, ``px_per_mm``; of
    the deck ``deck`` (a family face, ``deck_face``) when given.

    A card is one printed object: the face is drawn once at ``PRINTED_PX_PER_MM`` and resampled to the
    resolution asked for. Drawn at each resolution anew, its strokes' widths were rounded to whole pixels
    and its rules box counted its lines in pixels, so a card's enrolment photo and a table's frame showed
    two printings of it, bolder or with a line more (a card of the set refused as a stranger)."""
    size = (float(size_mm[0]), float(size_mm[1]))
    s = round(float(px_per_mm), 2)
    printed = max(PRINTED_PX_PER_MM, s)
    face = deck_face(name, deck, size, printed) if deck is not None else _face(name, size, printed)
    if s == printed:
        return face.copy()
    return cv2.resize(face, (max(8, round(size[0] * s)), max(8, round(size[1] * s))), interpolation=cv2.INTER_AREA)


def _zone_rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(key.encode())])


@dataclass(frozen=True)
class PlacedCard(Placed):
    """A card laid on the mat: of a deck's ``style`` (None: the plain faces) and lying as ``look`` says."""

    style: CardStyle | None = None
    look: CardLook = field(default_factory=CardLook)


def place_card(zone: Zone, name: str, layout: Layout, seed: int, jitter_mm: float = 2.5,
               style: CardStyle | None = None) -> PlacedCard:
    """A card laid in ``zone``: any quarter turn, a little askew, a little off-centre (the same for the same
    seed, zone and card); drawn from the deck of ``style`` when given, sleeved, bowed or blurred as it
    says."""
    rng = _zone_rng(seed, zone.id + "/card/" + name)
    w, h = card_size(layout)
    angle = 90.0 * int(rng.integers(4)) + float(rng.uniform(-12, 12))
    dx, dy = (float(v) for v in rng.uniform(-1, 1, 2) * jitter_mm)
    look = card_look(style, name, seed) if style is not None else CardLook()
    return PlacedCard(name, PieceShape("card", (w, h), CARD_HEIGHT), (zone.center[0] + dx, zone.center[1] + dy),
                      angle, (1.0, 1.0, 1.0), 0.0, style, look)


def foreign_card(zone: Zone, layout: Layout, seed: int, jitter_mm: float = 2.5,
                 style: CardStyle | None = None) -> PlacedCard:
    """A card of no set (a card from another game, a card never enrolled) in ``zone``: of the deck's look
    with ``style`` (one of its families)."""
    return place_card(zone, f"{FOREIGN_PREFIX}{seed % 100000}-{zone.id}", layout, seed, jitter_mm, style)


def _corners(p: Placed) -> np.ndarray:
    """The card's corners in board mm: top-left, top-right, bottom-right, bottom-left of its face."""
    w, h = p.shape.size[0] / 2, p.shape.size[1] / 2
    a = math.radians(p.angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.array([(-w, -h), (w, -h), (w, h), (-w, h)]) @ rot.T + np.asarray(p.center)


def draw_card(canvas: Canvas, camera: Camera, p: Placed, lighting=None) -> None:
    """The card's face mapped onto its top (lifted by its thickness), with a thin dark edge."""
    top = camera.lift(_corners(p), p.shape.height)
    dst = (top - canvas.origin) * canvas.s - 0.5
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(canvas.w, x1), min(canvas.h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    style, look = getattr(p, "style", None), getattr(p, "look", CardLook())
    face = card_face(p.label, p.shape.size, max(2.0, canvas.s), None if style is None else style.deck)
    if style is not None:
        face = dress(face, look, max(2.0, canvas.s))
    fh, fw = face.shape[:2]
    src = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]) - 0.5
    M = cv2.getPerspectiveTransform(src, (dst - (x0, y0)).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, M, size, flags=cv2.INTER_AREA if canvas.s < 2 else cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(np.ones((fh, fw), np.float32), M, size, flags=cv2.INTER_LINEAR)[..., None]
    if look.blur_mm:
        warped = motion_blur(warped * alpha, look.blur_mm * canvas.s, look.blur_deg)
        alpha = motion_blur(alpha[..., 0], look.blur_mm * canvas.s, look.blur_deg)[..., None]
        warped = np.minimum(warped / np.maximum(alpha, 1e-3), 1.0)
    if look.sleeved:  # the sleeve's clear rim, a millimetre round the card, a little lighter than the mat
        rim = cv2.dilate(alpha[..., 0], np.ones((3, 3), np.uint8), iterations=max(1, round(canvas.s))) - alpha[..., 0]
        roi = canvas.image[y0:y1, x0:x1]
        roi[:] = roi * (1 - 0.25 * rim[..., None]) + 0.25 * rim[..., None] * 0.85
    roi = canvas.image[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + warped * alpha
    cv2.polylines(canvas.image, [canvas.px(top)], True, (0.35, 0.35, 0.35), max(1, round(0.4 * canvas.s)),
                  cv2.LINE_AA, SHIFT)


def finger_polygon(p: Placed, seed: int) -> np.ndarray:
    """A fingertip over one corner of the card ``p`` (board mm): a capsule about 16 mm wide reaching in from
    outside the card, covering the corner by 10 to 18 mm."""
    rng = _zone_rng(seed, "finger/" + p.label)
    corner = int(rng.integers(4))
    corners = _corners(p)
    c = corners[corner]
    centre = np.asarray(p.center)
    inward = (centre - c) / np.linalg.norm(centre - c)
    turn = math.radians(rng.uniform(-35, 35))
    d = np.array([inward[0] * math.cos(turn) - inward[1] * math.sin(turn),
                  inward[0] * math.sin(turn) + inward[1] * math.cos(turn)])
    tip = c + d * rng.uniform(10, 18)
    base = tip - d * 70
    width = rng.uniform(14, 18)
    n = np.array([-d[1], d[0]])
    angles = np.linspace(-math.pi / 2, math.pi / 2, 10)
    tip_end = [tip + width / 2 * (math.cos(a) * d + math.sin(a) * n) for a in angles]
    return np.array([*tip_end, base + n * width / 2, base - n * width / 2])


def draw_finger(canvas: Canvas, poly: np.ndarray, skin_rgb) -> None:
    """Skin over the card, darker towards its outline (rounded, as a finger seen from above)."""
    mask = np.zeros((canvas.h, canvas.w), np.uint8)
    cv2.fillPoly(mask, [canvas.px(poly)], 255, cv2.LINE_AA, SHIFT)
    inside = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3) / canvas.s
    shade = 0.6 + 0.4 * np.clip(inside / 6.0, 0, 1)
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    colour = np.array((skin_rgb[2], skin_rgb[1], skin_rgb[0]), np.float32) / 255.0 * shade[..., None]
    canvas.image[:] = canvas.image * (1 - alpha) + colour * alpha
