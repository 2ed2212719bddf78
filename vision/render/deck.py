"""Rendered decks of look-alike cards, and how a card lies on the mat (sleeve, glare, bow, motion blur).

A deck (an integer) sorts every card name into one of ``FAMILIES`` families (``family_of``: names that
differ only by a trailing number, as ``fire-1``..``fire-5``, are always one family). The cards of a family
share their frame, palette, title band, art background and rules box, as a game's ingredient cards or the
crystal cards of one element do, and differ only in their art, their title and their numbers; in some
families even the art is the family's, with one small mark of the card's own (the hardest case: cards told
apart by their numbers and title). A card never enrolled is any other name: it falls in one of the deck's
families too. Nothing here is a publisher's art.

How a card lies (``CardLook``) is drawn per card and placement: a sleeved deck's cards show a clear rim
and, now and then, a glare streak off the sleeve; a card may be bowed (shaded across its width) or blurred
as it is being set down. ``CardStyle.handled`` off gives the still, unblurred, glare-free card a user
enrols.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.scene import SHIFT

FAMILIES = 3  # families per deck
GLYPHS = ("disc", "ring", "triangle", "diamond", "star", "cross", "bar", "moon")
# BGR card stock: cream, silver, gold, sky. (A card must stand out from the mat: docs/cards.md.)
BORDERS = ((0.86, 0.92, 0.95), (0.72, 0.74, 0.76), (0.25, 0.62, 0.85), (0.85, 0.70, 0.45))


@dataclass(frozen=True)
class CardStyle:
    """Cards drawn from ``deck``; ``handled``: as laid during play (glare, motion blur) or not (enrolment)."""

    deck: int = 0
    handled: bool = True


@dataclass(frozen=True)
class CardLook:
    """How one card lies: sleeved (with a glare streak of ``glare`` strength at ``glare_at``), bowed by
    ``bow`` (shading across), blurred over ``blur_mm`` along ``blur_deg``."""

    sleeved: bool = False
    glare: float = 0.0
    glare_at: tuple[float, float, float] = (0.5, 0.0, 6.0)  # where across (0..1), direction (rad), width mm
    bow: float = 0.0
    bow_deg: float = 0.0  # 0: bowed across the width, 90: along the length
    blur_mm: float = 0.0
    blur_deg: float = 0.0


def hsv(h: float, s: float, v: float) -> np.ndarray:
    """A BGR colour (0..255) from hue in degrees, saturation and value."""
    px = np.uint8([[[round(h / 2) % 180, round(s * 255), round(v * 255)]]])
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def glyph(img: np.ndarray, kind: str, centre, r: float, angle: float, colour) -> None:
    """One glyph of radius ``r`` px at ``centre`` px."""
    cx, cy = centre
    scale = 1 << SHIFT

    def poly(points):
        pts = np.array([(cx + x * math.cos(angle) - y * math.sin(angle), cy + x * math.sin(angle) + y * math.cos(angle))
                        for x, y in points])
        cv2.fillPoly(img, [np.round(pts * scale).astype(np.int32)], colour.tolist(), cv2.LINE_AA, SHIFT)

    if kind == "disc":
        cv2.circle(img, (round(cx * scale), round(cy * scale)), round(r * scale), colour.tolist(), -1, cv2.LINE_AA,
                   SHIFT)
    elif kind == "ring":
        cv2.circle(img, (round(cx * scale), round(cy * scale)), round(r * 0.8 * scale), colour.tolist(),
                   max(1, round(r * 0.35)), cv2.LINE_AA, SHIFT)
    elif kind == "triangle":
        poly([(r * math.cos(a), r * math.sin(a)) for a in (-math.pi / 2, math.pi / 6, 5 * math.pi / 6)])
    elif kind == "diamond":
        poly([(0, -r), (0.6 * r, 0), (0, r), (-0.6 * r, 0)])
    elif kind == "star":
        poly([((r if i % 2 == 0 else 0.42 * r) * math.cos(i * math.pi / 5 - math.pi / 2),
               (r if i % 2 == 0 else 0.42 * r) * math.sin(i * math.pi / 5 - math.pi / 2)) for i in range(10)])
    elif kind == "cross":
        t = 0.3 * r
        poly([(-r, -t), (r, -t), (r, t), (-r, t)])
        poly([(-t, -r), (t, -r), (t, r), (-t, r)])
    elif kind == "bar":
        poly([(-r, -0.28 * r), (r, -0.28 * r), (r, 0.28 * r), (-r, 0.28 * r)])
    else:  # moon: a disc with a bite taken out in the colour beneath it
        cv2.circle(img, (round(cx * scale), round(cy * scale)), round(r * scale), colour.tolist(), -1, cv2.LINE_AA,
                   SHIFT)
        off = (cx + 0.45 * r * math.cos(angle), cy + 0.45 * r * math.sin(angle))
        cv2.circle(img, (round(off[0] * scale), round(off[1] * scale)), round(0.8 * r * scale),
                   img[min(img.shape[0] - 1, max(0, round(off[1]))), min(img.shape[1] - 1, max(0, round(off[0])))]
                   .tolist(), -1, cv2.LINE_AA, SHIFT)


def family_key(name: str) -> str:
    """The part of a card name its family is drawn from: the name without a trailing number."""
    stem = name.rstrip("0123456789").rstrip("-_. ")
    return stem or name


def family_of(name: str, deck: int) -> int:
    """The family (0..FAMILIES-1) of the card ``name`` in ``deck``."""
    return zlib.crc32(f"{deck}/{family_key(name)}".encode()) % FAMILIES


def _rng(*keys) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32("/".join(map(str, keys)).encode())])


def _text(img, text: str, box: tuple[float, float, float, float], colour, thick: float = 1.0) -> None:
    """``text`` centred in ``box`` (x0, y0, x1, y1 px), as large as fits."""
    x0, y0, x1, y1 = box
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 2)
    scale = min(0.92 * (x1 - x0) / max(tw, 1), 0.7 * (y1 - y0) / max(th, 1))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    org = (round((x0 + x1 - tw) / 2), round((y0 + y1 + th) / 2))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, max(1, round(scale * 1.6 * thick)),
                cv2.LINE_AA)


@functools.lru_cache(maxsize=64)
def deck_face(name: str, deck: int, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The face of ``name`` in ``deck``: BGR float32 (0..1), portrait, ``px_per_mm``."""
    family = family_of(name, deck)
    f = _rng("family", deck, family)
    c = _rng("card", deck, name)
    s = px_per_mm
    w, h = max(8, round(size_mm[0] * s)), max(8, round(size_mm[1] * s))
    Hh = size_mm[1]
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(BORDERS[int(f.integers(len(BORDERS)))], np.float32) * 255 * f.uniform(0.92, 1.0)
    hue = f.uniform(0, 360)
    palette = [hsv(hue + d, f.uniform(0.35, 0.85), f.uniform(0.3, 0.9)) for d in (0, *f.uniform(40, 320, 4))]
    b = f.uniform(2.5, 4.5)
    px = lambda v: round(v * s)  # noqa: E731 (mm -> px)
    # The frame: a panel of the family's colour inside the border, and a thin line round it.
    img[px(b):h - px(b), px(b):w - px(b)] = palette[0]
    cv2.rectangle(img, (px(b + 0.8), px(b + 0.8)), (w - px(b + 0.8), h - px(b + 0.8)), palette[1].tolist(),
                  max(1, px(0.5)), cv2.LINE_AA)
    # Title band (top or bottom of the art), art window, rules box: where, the family's.
    top_title = f.random() < 0.6
    band_h = f.uniform(7, 10)
    art_top, art_bottom = b + 2 + (band_h + 1 if top_title else 0), Hh * f.uniform(0.55, 0.62)
    band_y = b + 2 if top_title else art_bottom + 1
    rules_y0 = (art_bottom + 2) if top_title else band_y + band_h + 1.5
    art = img[px(art_top):px(art_bottom), px(b + 2):w - px(b + 2)]
    ah, aw = art.shape[:2]
    yy, xx = np.mgrid[0:ah, 0:aw].astype(np.float32)
    a = f.uniform(0, math.pi)
    ramp = (xx * math.cos(a) + yy * math.sin(a)) / max(aw, ah)
    art[:] = palette[2] * (0.75 + 0.5 * ramp[..., None])
    period = f.uniform(5, 11) * s
    lines = np.sin((xx * math.cos(a + 1.2) + yy * math.sin(a + 1.2)) * 2 * math.pi / period) > 0.6
    art[lines] = art[lines] * 0.7 + palette[3] * 0.3
    # The art: the card's own glyphs in the family's colours; or, in a family of one picture, the family's
    # glyphs and one small mark of the card's own.
    shared_art = f.random() < 0.35
    g = f if shared_art else c
    ink = [palette[1], palette[3], palette[4], hsv(hue + 180, 0.2, 0.95), hsv(hue, 0.6, 0.15)]
    own = [(g, int(g.integers(2, 5)))]
    if shared_art:
        own.append((c, 1))
    for r_gen, n in own:
        for _ in range(n):
            r = r_gen.uniform(3, 5.5) * s if r_gen is c and shared_art else r_gen.uniform(5, 11) * s
            centre = (r_gen.uniform(0.5 * r, aw - 0.5 * r), r_gen.uniform(0.5 * r, ah - 0.5 * r))
            glyph(art, GLYPHS[int(r_gen.integers(len(GLYPHS)))], centre, r, r_gen.uniform(0, 2 * math.pi),
                  ink[int(r_gen.integers(len(ink)))])
    # The title band and the card's title (OpenCV writes text on bytes only).
    img = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    y0, y1 = px(band_y), px(band_y + band_h)
    img[y0:y1, px(b + 1.5):w - px(b + 1.5)] = palette[1] * 0.45
    light_ink = (235.0, 240.0, 242.0)
    _text(img, name.replace("-", " ")[:16], (px(b + 9), y0, w - px(b + 3), y1), light_ink)
    # The cost medallion on the title band: the card's first number.
    cx, cy, r = px(b + 4.5), (y0 + y1) // 2, px(band_h / 2 + 0.5)
    cv2.circle(img, (cx, cy), r, palette[4].tolist(), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, cy), r, light_ink, max(1, px(0.4)), cv2.LINE_AA)
    _text(img, str(int(c.integers(10))), (cx - 0.7 * r, cy - r, cx + 0.7 * r, cy + r), light_ink, 1.3)
    # The rules box: parchment and lines of "text" (the family's), and a number of the card's own in it.
    rx0, rx1, ry1 = px(b + 2.5), w - px(b + 2.5), h - px(b + 2)
    ry0 = px(rules_y0)
    img[ry0:ry1, rx0:rx1] = np.array([200, 225, 232], np.float32) * f.uniform(0.85, 1.0)
    # Laid out in millimetres: counted in pixels, a card printed at another resolution (its enrolment photo, a
    # table's frame) had a line more or fewer, as no printed card has.
    y = rules_y0 + 2.5
    while y < Hh - b - 2 - 9:
        length = f.uniform(0.5, 0.95) * (rx1 - rx0 - px(14))
        cv2.line(img, (rx0 + px(2), px(y)), (rx0 + px(2) + round(length), px(y)), (80, 80, 90), max(1, px(0.9)))
        y += f.uniform(3.0, 4.0)
    nx0 = rx1 - px(12)
    _text(img, f"{int(c.integers(1, 10))}", (nx0, ry1 - px(11), rx1 - px(1), ry1 - px(1)), (40, 40, 60), 1.4)
    return img.astype(np.float32) / 255.0


def card_look(style: CardStyle, name: str, seed: int) -> CardLook:
    """How the card ``name`` lies for the placement ``seed``: sleeved with its deck, bowed, blurred."""
    sleeved = zlib.crc32(f"sleeves/{style.deck}".encode()) % 5 < 2  # two decks in five are sleeved
    r = _rng("look", seed, name)
    glare = 0.0
    if style.handled and r.random() < (0.6 if sleeved else 0.1):
        glare = float(r.uniform(0.25, 0.6) if sleeved else r.uniform(0.1, 0.25))
    glare_at = (float(r.uniform(0.1, 0.9)), float(r.uniform(0, math.pi)), float(r.uniform(3, 10)))
    bow = float(r.uniform(0.06, 0.2)) if r.random() < 0.35 else 0.0
    bow_deg = float(r.choice([0.0, 90.0]))
    moving = style.handled and r.random() < 0.2
    return CardLook(sleeved, glare, glare_at, bow, bow_deg, float(r.uniform(1.0, 4.0)) if moving else 0.0,
                    float(r.uniform(0, 180)))


def dress(face: np.ndarray, look: CardLook, px_per_mm: float) -> np.ndarray:
    """The face as it looks on the table: bowed (shaded across), sleeved (a little haze), the glare."""
    h, w = face.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u, v = (xx + 0.5) / w, (yy + 0.5) / h
    out = face
    if look.bow:
        t = u if look.bow_deg < 45 else v
        # Lifted edges catch less light than the crest: cos-shaped, darker at one edge than the other.
        shade = 1.0 - look.bow * (np.abs(2 * t - 1) ** 2) * (0.6 + 0.4 * t)
        out = out * shade[..., None]
    if look.sleeved:
        out = out * 0.94 + 0.035
    if look.glare:
        at, angle, width = look.glare_at
        d = (xx - at * w) * math.cos(angle) + (yy - 0.5 * h) * math.sin(angle)
        streak = np.exp(-0.5 * (d / (width * px_per_mm / 2)) ** 2)
        out = out + look.glare * streak[..., None]
    return np.clip(out, 0, 1).astype(np.float32)


def motion_blur(image: np.ndarray, length_px: float, angle_deg: float) -> np.ndarray:
    """``image`` smeared along a line of ``length_px`` at ``angle_deg`` (a card moving as it is set down)."""
    n = max(3, math.ceil(length_px) | 1)
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    cv2.line(kernel, (round(c - dx * length_px / 2), round(c - dy * length_px / 2)),
             (round(c + dx * length_px / 2), round(c + dy * length_px / 2)), 1.0, 1, cv2.LINE_AA)
    return cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6), borderType=cv2.BORDER_CONSTANT)
