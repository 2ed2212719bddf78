"""Drawing the scene in the board plane: table, board, markers, shadows, pieces, hand, light.

Everything is drawn into a "texture" in board millimetres (``px_per_mm`` pixels per mm, offset so that
the part of the table the camera sees fits), which the camera module then images. Pieces stand up from
the board: their top faces are drawn where the camera sees them (the parallax of ``Camera.lift``), so
tall pieces far from the camera lean outwards and show their sides, as in a real photograph.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.plan import marker_image
from vision.pieces import PieceShape
from vision.render.camera import Camera
from vision.render.lamps import Source, irradiance

SHIFT = 4  # sub-pixel bits for cv2 polygon drawing
PAPER_WHITE = (0.95, 0.95, 0.94)  # BGR of the marker stickers' white


@dataclass(frozen=True)
class Placed:
    """One piece on the board: where it stands (mm), turned by ``angle_deg``, with its colour (BGR 0..1)."""
    label: str
    shape: PieceShape
    center: tuple[float, float]
    angle_deg: float
    bgr: tuple[float, float, float]
    specular: float  # 0: matte; up to 1: a bright highlight on the top face
    # What it stands on (a seal stacked on another: that seal's height); by keyword only, so that a subclass's
    # own fields (vision/render/cards.py) follow ``specular`` when given in order.
    base_mm: float = field(default=0.0, kw_only=True)


@dataclass(frozen=True)
class Lighting:
    """Light over the table: colour ``gains`` (RGB multipliers), overall ``intensity``, a linear
    ``gradient`` (fraction of brightness change from the board's centre to its edge, along
    ``gradient_deg``), the direction the light comes from (``azimuth_deg`` in the board plane,
    ``elevation_deg`` above it) which places shadows, and a soft ``glare`` patch (0..0.3)."""
    name: str
    gains: tuple[float, float, float]
    intensity: float = 1.0
    gradient: float = 0.0
    gradient_deg: float = 0.0
    azimuth_deg: float = 45.0
    elevation_deg: float = 60.0
    shadow: float = 0.45  # how much light a shadow takes away
    glare: float = 0.0
    glare_at: tuple[float, float] = (0.5, 0.5)  # fraction of the board size
    # Mixed light (``vision.render.lamps``): sources of their own colour and place add to an ambient
    # ``gains`` x ``intensity``; ``gradient`` and ``glare`` are then unused. Empty: one light as above.
    sources: tuple[Source, ...] = ()


@dataclass(frozen=True)
class Hand:
    """A hand reaching over the board: the arm comes in from ``entry_mm`` (outside the board) and the
    fingertips reach ``tip_mm``; ``skin`` and ``sleeve`` are RGB colours; ``height_mm`` places its shadow."""
    entry_mm: tuple[float, float]
    tip_mm: tuple[float, float]
    skin: tuple[int, int, int] = (205, 155, 120)
    sleeve: tuple[int, int, int] | None = (60, 70, 110)
    height_mm: float = 100.0
    scale: float = 1.0


def rgb_to_bgr01(rgb) -> tuple[float, float, float]:
    return (rgb[2] / 255.0, rgb[1] / 255.0, rgb[0] / 255.0)


class Canvas:
    """A float BGR image over a rectangle of the board plane, drawn to in millimetres."""

    def __init__(self, origin_mm: tuple[float, float], size_mm: tuple[float, float], px_per_mm: float):
        self.origin = np.array(origin_mm, dtype=float)
        self.s = px_per_mm
        self.w = math.ceil(size_mm[0] * px_per_mm)
        self.h = math.ceil(size_mm[1] * px_per_mm)
        self.image = np.zeros((self.h, self.w, 3), np.float32)
        self._blank: np.ndarray | None = None

    def blank(self) -> np.ndarray:
        """A float32 plane of zeros the canvas's size, made once: whoever draws in it blanks it again (a new
        plane per highlight was a third of the cost of drawing the pieces)."""
        if self._blank is None:
            self._blank = np.zeros((self.h, self.w), np.float32)
        return self._blank

    @property
    def from_mm(self) -> np.ndarray:
        """Homography board mm -> canvas pixels."""
        s = self.s
        return np.array([[s, 0, -self.origin[0] * s - 0.5], [0, s, -self.origin[1] * s - 0.5], [0, 0, 1.0]])

    def px(self, pts_mm) -> np.ndarray:
        p = (np.asarray(pts_mm, dtype=float).reshape(-1, 2) - self.origin) * self.s - 0.5
        return np.round(p * (1 << SHIFT)).astype(np.int32)

    def poly(self, img, pts_mm, colour) -> None:
        cv2.fillPoly(img, [self.px(pts_mm)], colour, lineType=cv2.LINE_AA, shift=SHIFT)

    def mm_grid(self, step: int = 1) -> tuple[np.ndarray, np.ndarray]:
        xs = (np.arange(0, self.w, step) + 0.5) / self.s + self.origin[0]
        ys = (np.arange(0, self.h, step) + 0.5) / self.s + self.origin[1]
        return np.meshgrid(xs.astype(np.float32), ys.astype(np.float32))


def smooth_noise(shape: tuple[int, int], cells: int, rng: np.random.Generator) -> np.ndarray:
    """Low-frequency noise in -1..1 over ``shape`` (mottled paper, light unevenness)."""
    small = rng.uniform(-1, 1, (max(2, shape[0] * cells // max(shape)), max(2, shape[1] * cells // max(shape))))
    return cv2.resize(small.astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def draw_board(canvas: Canvas, layout: Layout, table_rgb, rng: np.random.Generator,
               paint: Callable[[Canvas], None] | None = None) -> None:
    """The table, the board on it and its markers. ``paint`` draws the board's face (its artwork,
    ``vision.render.artwork``); without it the board is plain, in the layout's colour."""
    img = canvas.image
    img[:] = rgb_to_bgr01(table_rgb)
    grain = 1 + 0.06 * smooth_noise((img.shape[0], img.shape[1]), 40, rng)
    img *= grain[..., None]
    if paint is not None:
        paint(canvas)
    else:
        _plain_board(canvas, layout, rng)
    _draw_markers(canvas, layout)


def _plain_board(canvas: Canvas, layout: Layout, rng: np.random.Generator) -> None:
    img = canvas.image
    bw, bh = layout.size
    board = [(0, 0), (bw, 0), (bw, bh), (0, bh)]
    bg = np.array(rgb_to_bgr01(layout.colour("empty")))
    canvas.poly(img, board, tuple(bg.tolist()))
    # Mottled print: a few percent of slow variation, as on real cardboard.
    x0, y0 = canvas.px([(0, 0)])[0] >> SHIFT
    x1, y1 = canvas.px([(bw, bh)])[0] >> SHIFT
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(canvas.w, x1), min(canvas.h, y1)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] *= (1 + 0.025 * smooth_noise((y1 - y0, x1 - x0), 24, rng))[..., None]
    line = tuple((bg * 0.72).tolist())
    width = max(1, round(0.7 * canvas.s))
    for z in layout.zones:
        left, top, right, bottom = z.bounds
        cv2.polylines(img, [canvas.px([(left, top), (right, top), (right, bottom), (left, bottom)])], True, line,
                      width, cv2.LINE_AA, SHIFT)
    cv2.polylines(img, [canvas.px(board)], True, tuple((bg * 0.5).tolist()), width + 1, cv2.LINE_AA, SHIFT)


def _draw_markers(canvas: Canvas, layout: Layout) -> None:
    """The printed ArUco stickers, each with its white quiet zone: drawn last, over any artwork."""
    img = canvas.image
    for m in layout.markers:
        quiet = m.size / 6  # one module of white around the pattern, as on a printed sticker
        (lf, t), (r, b) = m.corners()[0], m.corners()[2]
        canvas.poly(img, [(lf - quiet, t - quiet), (r + quiet, t - quiet), (r + quiet, b + quiet),
                          (lf - quiet, b + quiet)], PAPER_WHITE)
        side = max(12, round(m.size * canvas.s))
        pattern = marker_image(m.id, side).astype(np.float32) / 255.0 * 0.93 + 0.04
        src = np.float32([[0, 0], [side, 0], [0, side]])
        dst = np.float32([(canvas.px([p])[0] / (1 << SHIFT) + 0.5) for p in ((lf, t), (r, t), (lf, b))])
        A = cv2.getAffineTransform(src, dst)
        warped = cv2.warpAffine(pattern, A, (canvas.w, canvas.h), flags=cv2.INTER_LINEAR, borderValue=-1.0)
        inside = warped >= 0
        img[inside] = warped[inside][:, None] * np.array(PAPER_WHITE, np.float32)


def _footprint(p: Placed, n: int = 24) -> np.ndarray:
    """Base outline of a piece in mm (a polygon)."""
    cx, cy = p.center
    a = math.radians(p.angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    if p.shape.kind in ("disc", "seal"):
        t = np.linspace(0, 2 * math.pi, n, endpoint=False)
        local = np.stack([np.cos(t) * p.shape.size[0] / 2, np.sin(t) * p.shape.size[1] / 2], axis=1)
    elif p.shape.kind == "gem":
        t = np.linspace(0, 2 * math.pi, 6, endpoint=False)
        local = np.stack([np.cos(t) * p.shape.size[0] / 2, np.sin(t) * p.shape.size[1] / 2], axis=1)
    else:
        w, d = p.shape.size[0] / 2, p.shape.size[1] / 2
        local = np.array([(-w, -d), (w, -d), (w, d), (-w, d)])
    rot = np.array([[ca, -sa], [sa, ca]])
    return local @ rot.T + (cx, cy)


def _light_dir(lighting: Lighting) -> np.ndarray:
    a = math.radians(lighting.azimuth_deg)
    return np.array([math.cos(a), math.sin(a)])


def _shadow_offset(lighting: Lighting, height_mm: float) -> np.ndarray:
    """How far (board mm, x and y) the shadow of something ``height_mm`` above the board falls from it."""
    cot = 1 / math.tan(math.radians(max(15.0, lighting.elevation_deg)))
    return _light_dir(lighting) * height_mm * cot


def _piece_shadow_mask(canvas: Canvas, pieces: list[Placed], lighting: Lighting) -> np.ndarray:
    mask = np.zeros((canvas.h, canvas.w), np.float32)
    for p in pieces:
        base = _footprint(p)
        moved = base - _shadow_offset(lighting, p.shape.height + p.base_mm)
        hull = cv2.convexHull(np.concatenate([base, moved]).astype(np.float32)).reshape(-1, 2)
        canvas.poly(mask, hull, 1.0)
    return cv2.GaussianBlur(mask, (0, 0), 0.8 * canvas.s)


def draw_shadows(canvas: Canvas, pieces: list[Placed], lighting: Lighting) -> None:
    """Cast the pieces' sharp shadows on the board, away from the light (before the pieces are drawn)."""
    if lighting.sources:
        _source_shadows(canvas, lighting, lambda one: _piece_shadow_mask(canvas, pieces, one), 1.0)
        return
    mask = _piece_shadow_mask(canvas, pieces, lighting)
    canvas.image *= (1 - lighting.shadow * np.clip(mask, 0, 1))[..., None]


def _hand_shadow_mask(canvas: Canvas, hand_polys: list[np.ndarray], hand: Hand, lighting: Lighting) -> np.ndarray:
    soft = np.zeros((canvas.h, canvas.w), np.float32)
    offset = _shadow_offset(lighting, hand.height_mm)
    for poly in hand_polys:
        canvas.poly(soft, poly - offset, 1.0)
    return cv2.GaussianBlur(soft, (0, 0), 6 * canvas.s)


def draw_hand_shadow(canvas: Canvas, hand_polys: list[np.ndarray], hand: Hand, lighting: Lighting) -> None:
    """The hand's soft shadow, over the board and the pieces under it alike (drawn after the pieces)."""
    if lighting.sources:
        _source_shadows(canvas, lighting, lambda one: _hand_shadow_mask(canvas, hand_polys, hand, one), 0.8)
        return
    soft = _hand_shadow_mask(canvas, hand_polys, hand, lighting)
    canvas.image *= (1 - lighting.shadow * 0.8 * np.clip(soft, 0, 1))[..., None]


def _source_shadows(canvas: Canvas, lighting: Lighting, mask_for: Callable[[Lighting], np.ndarray],
                    depth: float) -> None:
    """One shadow per source of a mixed light, each taking away that source's share of the light there
    (in its colour): what is left in a lamp's shadow is the window's light."""
    fields = _light_fields(canvas, lighting)
    total = sum(fields[1:], fields[0])
    for src, share in zip(lighting.sources, fields[1:], strict=True):
        one = replace(lighting, azimuth_deg=src.azimuth_deg, elevation_deg=src.elevation_deg, sources=())
        mask = np.clip(mask_for(one), 0, 1)
        canvas.image *= 1 - (lighting.shadow * depth * mask)[..., None] * (share / total)


def _light_fields(canvas: Canvas, lighting: Lighting) -> list[np.ndarray]:
    """The BGR light over the canvas of a mixed lighting: the ambient first, then each source's."""
    xs, ys = canvas.mm_grid(step=8)
    ambient = np.ones((*xs.shape, 3), np.float32) * np.array(lighting.gains[::-1], np.float32) * lighting.intensity
    fields = [ambient] + [irradiance(src, xs, ys)[..., ::-1] for src in lighting.sources]
    return [cv2.resize(f.astype(np.float32), (canvas.w, canvas.h), interpolation=cv2.INTER_LINEAR) for f in fields]


def _shade(bgr, k: float) -> tuple[float, float, float]:
    return tuple(float(min(1.0, c * k)) for c in bgr)


def draw_piece(canvas: Canvas, camera: Camera, p: Placed, lighting: Lighting) -> None:
    img = canvas.image
    base = _footprint(p, 32)
    h = p.shape.height
    if p.base_mm:
        footprint = base
        base = camera.lift(footprint, p.base_mm)
        top = camera.lift(footprint, p.base_mm + h)
    else:
        top = camera.lift(base, h)
    toward = _light_dir(lighting)
    centre = np.asarray(p.center)
    if h > 1:
        # Sides: each base edge to its top edge, shaded by how much it faces the light.
        n = len(base)
        for i in range(n):
            j = (i + 1) % n
            mid = (base[i] + base[j]) / 2 - centre
            normal = mid / (np.linalg.norm(mid) + 1e-9)
            k = 0.58 + 0.2 * max(0.0, float(normal @ toward))
            canvas.poly(img, [base[i], base[j], top[j], top[i]], _shade(p.bgr, k))
    top_c = top.mean(axis=0)
    kind = p.shape.kind
    if kind == "gem":
        inner = top_c + (top - top_c) * 0.55
        for i in range(6):
            j = (i + 1) % 6
            k = 0.8 + 0.15 * math.cos(i * math.pi / 3 - math.radians(lighting.azimuth_deg))
            canvas.poly(img, [top[i], top[j], inner[j], inner[i]], _shade(p.bgr, k))
        canvas.poly(img, inner, _shade(p.bgr, 1.0))
    else:
        canvas.poly(img, top, _shade(p.bgr, 1.0))
    if kind == "seal":
        ring = top_c + (top - top_c) * 0.62
        cv2.polylines(img, [canvas.px(ring)], True, _shade(p.bgr, 0.8), max(1, round(1.2 * canvas.s)),
                      cv2.LINE_AA, SHIFT)
    elif kind == "disc":
        ring = top_c + (top - top_c) * 0.8
        cv2.polylines(img, [canvas.px(ring)], True, _shade(p.bgr, 0.88), max(1, round(0.6 * canvas.s)),
                      cv2.LINE_AA, SHIFT)
    elif kind == "tile":
        canvas.poly(img, top_c + (top - top_c) * 0.35, _shade(p.bgr, 0.78))
    elif kind == "card":
        inner = top_c + (top - top_c) * 0.9
        cv2.polylines(img, [canvas.px(top)], True, _shade(p.bgr, 0.55), max(1, round(1.5 * canvas.s)),
                      cv2.LINE_AA, SHIFT)
        canvas.poly(img, top_c + (inner - top_c) * np.array([0.55, 0.35]), _shade(p.bgr, 0.82))
    elif kind == "cube":
        cv2.polylines(img, [canvas.px(top)], True, _shade(p.bgr, 0.86), max(1, round(0.5 * canvas.s)),
                      cv2.LINE_AA, SHIFT)
    if p.specular > 0:
        spot = top_c + toward * 0.2 * p.shape.size[0] * 0.5
        r = 0.13 * min(p.shape.size) * p.specular
        if r * canvas.s >= 1:
            glow = canvas.blank()
            cv2.circle(glow, tuple((canvas.px([spot])[0]).tolist()), int(r * canvas.s * (1 << SHIFT)), 1.0, -1,
                       cv2.LINE_AA, SHIFT)
            x, y = (canvas.px([spot])[0] >> SHIFT).tolist()
            pad = int(3 * r * canvas.s) + 2  # (over r * s + 2 px: the whole spot, its antialiased edge too)
            ys, xs = slice(max(0, y - pad), y + pad), slice(max(0, x - pad), x + pad)
            g = cv2.GaussianBlur(glow[ys, xs], (0, 0), max(0.5, r * canvas.s * 0.4)) * 0.75 * p.specular
            glow[ys, xs] = 0  # blank again for the next piece
            img[ys, xs] = img[ys, xs] * (1 - g[..., None]) + g[..., None] * 1.0


def hand_polygons(hand: Hand) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The hand's outline in board mm: (skin polygons, sleeve polygons)."""
    entry = np.asarray(hand.entry_mm, float)
    tip = np.asarray(hand.tip_mm, float)
    u = tip - entry
    u /= np.linalg.norm(u) + 1e-9
    v = np.array([-u[1], u[0]])
    s = hand.scale
    palm = tip - u * 95 * s

    def capsule(a, b, width, n=8):
        d = (b - a) / (np.linalg.norm(b - a) + 1e-9)
        w = np.array([-d[1], d[0]])
        r = width / 2
        angles = np.linspace(-math.pi / 2, math.pi / 2, n)
        tip_end = [b + r * (math.cos(x) * d + math.sin(x) * w) for x in angles]
        back_end = [a - r * (math.cos(x) * d + math.sin(x) * w) for x in angles]
        return np.array(tip_end + back_end)

    t = np.linspace(0, 2 * math.pi, 28, endpoint=False)
    palm_poly = palm + np.outer(np.cos(t) * 48 * s, u) + np.outer(np.sin(t) * 42 * s, v)
    skin = [palm_poly]
    for offset, reach in ((-27, 82), (-9, 95), (9, 92), (26, 78)):
        a = palm + u * 25 * s + v * offset * s
        b = palm + u * reach * s + v * offset * 1.15 * s
        skin.append(capsule(a, b, 17 * s))
    skin.append(capsule(palm + v * 30 * s - u * 10 * s, palm + v * 68 * s + u * 30 * s, 20 * s))
    wrist = palm - u * 40 * s
    elbow = entry - u * 320
    forearm = np.array([palm + v * 34 * s, wrist + v * 32 * s, wrist - v * 32 * s, palm - v * 34 * s])
    skin.append(forearm)
    if hand.sleeve is None:
        skin.append(np.array([wrist + v * 32 * s, elbow + v * 45 * s, elbow - v * 45 * s, wrist - v * 32 * s]))
        return skin, []
    cuff = wrist - u * 45 * s
    skin.append(np.array([wrist + v * 32 * s, cuff + v * 34 * s, cuff - v * 34 * s, wrist - v * 32 * s]))
    sleeve = [np.array([cuff + v * 40 * s, elbow + v * 52 * s, elbow - v * 52 * s, cuff - v * 40 * s])]
    return skin, sleeve


def draw_hand(canvas: Canvas, hand: Hand, skin: list[np.ndarray], sleeve: list[np.ndarray]) -> None:
    """Skin and sleeve, rounded by darkening towards the outline (a cylinder seen from above)."""
    for polys, rgb in ((sleeve, hand.sleeve), (skin, hand.skin)):
        if not polys:
            continue
        mask = np.zeros((canvas.h, canvas.w), np.uint8)
        for poly in polys:
            cv2.fillPoly(mask, [canvas.px(poly)], 255, cv2.LINE_AA, SHIFT)
        # Worked out over the arm's bounding box only, with a pixel of bare canvas around it (so the distance
        # to the outline is the same as over the whole canvas): elsewhere alpha is 0 and nothing changes.
        x, y, w, h = cv2.boundingRect(mask)
        if not w:
            continue
        box = np.s_[max(0, y - 1):y + h + 1, max(0, x - 1):x + w + 1]
        mask, image = mask[box], canvas.image[box]
        inside = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3) / canvas.s
        shade = 0.62 + 0.38 * np.clip(inside / 9.0, 0, 1)
        alpha = (mask.astype(np.float32) / 255.0)[..., None]
        colour = np.array(rgb_to_bgr01(rgb), np.float32) * shade[..., None]
        image[:] = image * (1 - alpha) + colour * alpha


def light(canvas: Canvas, layout: Layout, lighting: Lighting) -> None:
    """Colour temperature, intensity, gradient and glare, over the whole table."""
    if lighting.sources:
        canvas.image *= sum(_light_fields(canvas, lighting))
        return
    xs, ys = canvas.mm_grid(step=8)
    bw, bh = layout.size
    d = np.array([math.cos(math.radians(lighting.gradient_deg)), math.sin(math.radians(lighting.gradient_deg))])
    half = 0.5 * math.hypot(bw, bh)
    field = 1 + lighting.gradient * ((xs - bw / 2) * d[0] + (ys - bh / 2) * d[1]) / half
    if lighting.glare > 0:
        gx, gy = lighting.glare_at[0] * bw, lighting.glare_at[1] * bh
        field += lighting.glare * np.exp(-(((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * (0.18 * half) ** 2)))
    field = cv2.resize(np.clip(field, 0.2, 2.0).astype(np.float32), (canvas.w, canvas.h),
                       interpolation=cv2.INTER_LINEAR)
    gains = np.array(lighting.gains[::-1], np.float32) * lighting.intensity
    canvas.image *= field[..., None]
    canvas.image *= gains
