"""Render test frames of a board: pieces, camera, light, hands; and their ground truth.

>>> import numpy as np
>>> from calibration.layout import load_layout
>>> from vision.render import Conditions, random_state, render_frame
>>> layout = load_layout("chaudron")
>>> rng = np.random.default_rng(1)
>>> frame, truth = render_frame(layout, random_state(layout, rng), Conditions(), rng)
>>> frame.shape, truth["zones"]["r0c0"] in layout.zone("r0c0").labels
((960, 1280, 3), True)

Pose, lighting and hand are explicit parameters (a session keeps its pose and light while a hand comes
and goes); ``random_conditions`` draws them for evaluation sets. Pieces are placed from
``Conditions.placement_seed`` and the zone id, so the same piece in the same zone stays put from one
frame to the next.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration.layout import LABEL_KINDS, Layout, Zone
from vision.colour import rgb_to_lab
from vision.pieces import PieceShape, piece_shapes
from vision.render import piles
from vision.render.artwork import Artwork, paint_artwork
from vision.render.camera import FRAME_SIZE, Pose, make_camera, warp_to_frame
from vision.render.cards import draw_card, draw_finger, finger_polygon, foreign_card, place_card
from vision.render.components import PieceSet
from vision.render.deck import CardStyle
from vision.render.scene import (
    Canvas,
    Hand,
    Lighting,
    Placed,
    draw_board,
    draw_hand,
    draw_hand_shadow,
    draw_piece,
    draw_shadows,
    hand_polygons,
    light,
    rgb_to_bgr01,
)
from vision.render.state import StateError, calibration_state, empty_state, load_state, parse_state, random_state
from vision.render.variation import defocus_kernel, motion_kernel

__all__ = ["FRAME_SIZE", "LIGHTINGS", "Conditions", "Hand", "Lighting", "Pose", "StateError", "calibration_state",
           "empty_state", "lighting_preset", "load_state", "parse_state", "random_conditions", "random_hand",
           "random_state", "render_frame"]

LIGHTINGS = ("warm", "cool", "dim", "daylight")
HIDDEN = 0.2  # a zone this much under a hand is "unknown" in the truth; less (but some) is "partly hidden"
SKINS = ((236, 198, 170), (214, 164, 128), (176, 124, 88), (120, 82, 58), (84, 58, 42))
SLEEVES = ((40, 48, 70), (150, 30, 40), (70, 110, 60), (230, 230, 225), (30, 30, 30), None)
TABLES = ((96, 64, 42), (150, 112, 78), (46, 84, 56), (110, 110, 112), (60, 44, 36))
FOREIGN = ((205, 40, 165), (246, 246, 246), (30, 200, 225), (230, 30, 45), (150, 225, 40), (20, 20, 20))


def lighting_preset(name: str, rng: np.random.Generator | None = None) -> Lighting:
    """The four lightings of the targets: tungsten ``warm``, fluorescent ``cool``, a ``dim`` late-evening
    lamp and ``daylight``; with ``rng``, each varied (gradient, direction, strength) as real rooms are."""
    presets = {
        "warm": Lighting("warm", (1.0, 0.8, 0.58), 0.92),
        "cool": Lighting("cool", (0.8, 0.92, 1.0), 0.92),
        "dim": Lighting("dim", (1.0, 0.78, 0.55), 0.38),
        "daylight": Lighting("daylight", (0.97, 0.98, 1.0), 1.0, elevation_deg=50, shadow=0.5),
    }
    if name not in presets:
        raise ValueError(f"lighting: {name!r}: expected one of {', '.join(LIGHTINGS)}")
    base = presets[name]
    if rng is None:
        return base
    jitter = rng.uniform(0.93, 1.07, 3)
    return replace(base, gains=tuple(float(g * j) for g, j in zip(base.gains, jitter, strict=True)),
                   intensity=float(base.intensity * rng.uniform(0.85, 1.1)),
                   gradient=float(rng.uniform(0.05, 0.3)), gradient_deg=float(rng.uniform(0, 360)),
                   azimuth_deg=float(rng.uniform(0, 360)), elevation_deg=float(rng.uniform(40, 75)),
                   shadow=float(rng.uniform(0.3, 0.55)),
                   glare=float(rng.uniform(0, 0.15)) if rng.random() < 0.3 else 0.0,
                   glare_at=(float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8))))


@dataclass(frozen=True)
class Conditions:
    """Everything about a frame except the pieces: camera, light, an optional hand, the sensor."""
    pose: Pose = field(default_factory=Pose)
    lighting: Lighting = field(default_factory=lambda: lighting_preset("daylight"))
    hand: Hand | None = None
    table_rgb: tuple[int, int, int] = (96, 64, 42)
    noise: float = 2.0  # sensor noise, standard deviation in 8-bit levels
    blur: float = 0.5  # Gaussian blur, sigma in pixels (focus, motion)
    jpeg_quality: int | None = 90
    vignette: float = 0.1  # fraction of light lost in the frame's corners
    jitter_mm: float = 2.5  # how far off-centre a piece may sit in its slot
    specular: float = 0.5  # fraction of pieces that show a highlight
    foreign: tuple[str, ...] = ()  # zones holding an object that is none of their labels
    fingers: tuple[str, ...] = ()  # card zones with a fingertip over a corner of their card
    placement_seed: int = 0
    piles: piles.PileStyle | None = None  # reserve piles as players leave them (vision/render/piles.py)
    # A table's own variation (``vision.render.table``); the defaults leave frames as they always were.
    artwork: Artwork | None = None  # the board's face; None: plain, in the layout's colour
    pieces: PieceSet | None = None  # the table's piece sizes and colours; None: the layout's
    set_down: float = 0.0  # > 0: pieces set down by hand, up to this fraction of half a slot off-centre, any angle
    stacked: tuple[tuple[str, str], ...] = ()  # (slot, label): a seal of that label under the slot's piece
    motion_blur_px: float = 0.0  # camera shake: a straight blur this many pixels long ...
    motion_blur_deg: float = 0.0  # ... in this direction
    defocus_px: float = 0.0  # out of focus: a disc blur of this radius
    cards: CardStyle | None = None  # cards of a deck of look-alike families (vision/render/deck.py); None: plain

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def random_hand(layout: Layout, rng: np.random.Generator) -> Hand:
    """A hand reaching in from a random side of the board towards a random point on it."""
    bw, bh = layout.size
    side = int(rng.integers(4))
    t = rng.uniform(0.15, 0.85)
    entry = [(t * bw, -120.0), (bw + 120.0, t * bh), (t * bw, bh + 120.0), (-120.0, t * bh)][side]
    tip = (float(rng.uniform(0.15, 0.85) * bw), float(rng.uniform(0.15, 0.85) * bh))
    scale = float(np.clip(min(bw, bh) / 250, 0.75, 1.1))
    return Hand(entry, tip, SKINS[int(rng.integers(len(SKINS)))], SLEEVES[int(rng.integers(len(SLEEVES)))],
                float(rng.uniform(60, 160)), scale * float(rng.uniform(0.9, 1.1)))


def random_conditions(layout: Layout, rng: np.random.Generator, lighting: str | None = None,
                      hand: bool | None = None, foreign: bool | None = None) -> Conditions:
    """Random camera pose, light (one of LIGHTINGS unless given), sensor; a hand on about one frame in
    six and a foreign object on about one in ten, unless ``hand``/``foreign`` say."""
    name = lighting or LIGHTINGS[int(rng.integers(len(LIGHTINGS)))]
    pose = Pose(height_mm=float(rng.uniform(650, 950)),
                target_mm=(float(layout.size[0] * rng.uniform(0.45, 0.55)),
                           float(layout.size[1] * rng.uniform(0.45, 0.55))),
                tilt_deg=float(rng.uniform(0, 10)), tilt_towards_deg=float(rng.uniform(0, 360)),
                yaw_deg=float(rng.uniform(-12, 12)), fill=float(rng.uniform(0.62, 0.88)),
                k1=float(rng.uniform(-0.12, 0.06)), k2=float(rng.uniform(-0.02, 0.02)))
    with_hand = rng.random() < 1 / 6 if hand is None else hand
    slots = [z.id for z in layout.zones if z.kind in LABEL_KINDS]
    with_foreign = rng.random() < 0.1 if foreign is None else foreign
    cards = [z.id for z in layout.zones if z.kind == "card"]
    # Only layouts with card zones draw here, so the other layouts' random frames stay as they were.
    fingers = (str(rng.choice(cards)),) if cards and rng.random() < 0.3 else ()
    dim = name == "dim"
    return Conditions(
        pose=pose, lighting=lighting_preset(name, rng),
        hand=random_hand(layout, rng) if with_hand else None,
        table_rgb=TABLES[int(rng.integers(len(TABLES)))],
        noise=float(rng.uniform(2.5, 5.0) if dim else rng.uniform(1.0, 3.0)),
        blur=float(rng.uniform(0.0, 1.0)), jpeg_quality=int(rng.integers(70, 96)),
        vignette=float(rng.uniform(0.0, 0.25)), jitter_mm=float(rng.uniform(0.5, 3.5)),
        specular=float(rng.uniform(0.2, 0.8)),
        foreign=(str(rng.choice(slots)),) if with_foreign and slots else (), fingers=fingers,
        placement_seed=int(rng.integers(2**31)))


def _zone_rng(seed: int, zone_id: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(zone_id.encode())])


def _slot_piece(zone: Zone, label: str, shape: PieceShape, bgr, c: Conditions,
                placed: list[Placed] | None = None) -> Placed:
    if c.set_down > 0:
        return _set_down(zone, label, shape, bgr, c, placed or [])
    rng = _zone_rng(c.placement_seed, zone.id + "/" + label)
    reach = max(shape.size) / 2 if shape.kind in ("cube", "gem") else None
    slack = [max(0.5, (zone.size[i] - (2 * reach if reach else shape.size[i])) / 2) for i in (0, 1)]
    dx, dy = (float(rng.uniform(-1, 1) * min(c.jitter_mm, s)) for s in slack)
    angle = float(rng.uniform(-8, 8)) if shape.kind in ("tile", "card") else float(rng.uniform(0, 90))
    spec = float(rng.uniform(0.5, 1.0)) if rng.random() < c.specular else 0.0
    return Placed(label, shape, (zone.center[0] + dx, zone.center[1] + dy), angle, bgr, spec)


def _reach(shape: PieceShape) -> float:
    """Half the width a piece takes on the board, between its inner and outer radius."""
    w, d = shape.size
    return 0.25 * (min(w, d) + (math.hypot(w, d) if shape.kind in ("cube", "tile", "card") else max(w, d)))


def _set_down(zone: Zone, label: str, shape: PieceShape, bgr, c: Conditions, placed: list[Placed]) -> Placed:
    """A piece as a hand sets it down: anywhere up to ``c.set_down`` of half the slot off its centre,
    turned any angle, a little larger or smaller and lighter or darker than its fellows; moved nearer the
    centre when it would stand on a piece already set down."""
    rng = _zone_rng(c.placement_seed, zone.id + "/" + label)
    k = float(rng.uniform(0.97, 1.03))
    shape = replace(shape, size=(shape.size[0] * k, shape.size[1] * k), height=shape.height * k)
    bgr = tuple(float(np.clip(v * rng.uniform(0.96, 1.04), 0, 1)) for v in bgr)
    angle = float(rng.uniform(0, 360))
    spec = float(rng.uniform(0.5, 1.0)) if rng.random() < c.specular else 0.0
    off = rng.uniform(-1, 1, 2) * c.set_down * np.array(zone.size) / 2
    for shrink in (1.0, 0.75, 0.5, 0.25, 0.0):
        centre = np.array(zone.center) + off * shrink
        if all(np.linalg.norm(centre - np.array(p.center)) >= _reach(shape) + _reach(p.shape) for p in placed):
            break
    return Placed(label, shape, (float(centre[0]), float(centre[1])), angle, bgr, spec)


def _stack(top: Placed, below: str, shapes: dict[str, PieceShape], colours, c: Conditions) -> tuple[Placed, Placed]:
    """A seal of label ``below`` under ``top`` (two seals on one fame-track space), peeking out 1-4 mm:
    (the lower seal, the upper one standing on it)."""
    rng = _zone_rng(c.placement_seed, "stack/" + str(top.center))
    shift = rng.uniform(1, 4) * np.array([math.cos(a := rng.uniform(0, 2 * math.pi)), math.sin(a)])
    lower = Placed(below, shapes[below], (top.center[0] + shift[0], top.center[1] + shift[1]),
                   float(rng.uniform(0, 360)), colours[below], 0.0)
    return lower, replace(top, base_mm=shapes[below].height)


def _pile(zone: Zone, counts: dict[str, int], shapes: dict[str, PieceShape], colours, c: Conditions) -> list[Placed]:
    """Cubes in a count zone: packed on a lattice grown outwards from a random seed (so most touch), the
    same positions for the same seed so that adding a cube adds one place. With ``c.piles``: as players
    leave them (``vision.render.piles``)."""
    if c.piles is not None:
        return piles.pile(zone, counts, shapes, colours, c.placement_seed, c.piles)
    total = sum(counts.values())
    if total == 0:
        return []
    rng = _zone_rng(c.placement_seed, zone.id)
    side = max(max(shapes[label].size) for label in counts)
    pitch = side + 0.4
    left, top, right, bottom = zone.bounds
    nx, ny = int((right - left - 3) // pitch), int((bottom - top - 3) // pitch)
    if nx * ny < total:
        raise StateError(f"counts.{zone.id}: {total} pieces do not fit the zone ({nx * ny} at most)")
    x0 = left + (right - left - nx * pitch) / 2 + pitch / 2
    y0 = top + (bottom - top - ny * pitch) / 2 + pitch / 2
    seeds = [(int(rng.integers(nx)), int(rng.integers(ny))) for _ in range(1 + int(rng.integers(2)))]
    # Two seeds may fall on one cell: it is grown from once (two cubes cannot stand in one place).
    order, seen, frontier = [], set(seeds), list(dict.fromkeys(seeds))
    while frontier and len(order) < nx * ny:
        i = int(rng.integers(len(frontier))) if rng.random() < 0.5 else 0
        cell = frontier.pop(i)
        order.append(cell)
        for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (cell[0] + d[0], cell[1] + d[1])
            if 0 <= n[0] < nx and 0 <= n[1] < ny and n not in seen:
                seen.add(n)
                frontier.append(n)
    labels = [label for label, n in sorted(counts.items()) for _ in range(n)]
    out = []
    for k, label in enumerate(labels):
        gx, gy = order[k]
        jx, jy = rng.uniform(-0.3, 0.3, 2)
        spec = float(rng.uniform(0.4, 0.8)) if rng.random() < c.specular else 0.0
        out.append(Placed(label, shapes[label], (x0 + gx * pitch + jx, y0 + gy * pitch + jy),
                          float(rng.uniform(-4, 4)), colours[label], spec))
    return out


def _foreign_piece(zone: Zone, layout: Layout, c: Conditions) -> Placed:
    """Something that is none of the zone's labels (a die, a coin): the colour furthest from them all."""
    known = rgb_to_lab([layout.colour(label) for label in zone.labels] + [layout.colour("empty")])
    cands = rgb_to_lab(list(FOREIGN))
    far = int(np.argmax([np.min(np.linalg.norm(known - lab, axis=1)) for lab in cands]))
    side = 0.6 * min(zone.size)
    return _slot_piece(zone, "foreign", PieceShape("cube", (side, side), side), rgb_to_bgr01(FOREIGN[far]), c)


def _coverage(mask: np.ndarray, zone_bounds) -> float:
    x0, y0, x1, y1 = (round(v) for v in zone_bounds)
    patch = mask[max(0, y0):y1, max(0, x0):x1]
    return float(patch.mean()) / 255 if patch.size else 0.0


def render_frame(layout: Layout, state: dict[str, Any], conditions: Conditions,
                 rng: np.random.Generator) -> tuple[np.ndarray, dict[str, Any]]:
    """A 1280 x 960 BGR frame of ``layout`` holding ``state`` under ``conditions``, and its ground truth:
    ``{"layout", "zones": {id: label | "unknown"}, "counts": {id: n | None}, "partly_hidden": [...],
    "markers_visible": [...], "conditions": {...}}``. Zones at least 20 % under the hand, or holding a
    foreign object, are ``unknown``; those a little under it are listed in ``partly_hidden``, where either
    their label or ``unknown`` is a right reading. ``rng`` drives the sensor noise only."""
    c = conditions
    state = parse_state(state, layout)
    camera = make_camera(c.pose, layout.size)
    H = camera.homography
    corners = np.array([[0, 0], [FRAME_SIZE[0], 0], [FRAME_SIZE[0], FRAME_SIZE[1]], [0, FRAME_SIZE[1]]], float)
    seen = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    bw, bh = layout.size
    lo = np.maximum(seen.min(axis=0) - 0.1 * max(bw, bh), (-0.8 * bw, -0.8 * bh))
    hi = np.minimum(seen.max(axis=0) + 0.1 * max(bw, bh), (1.8 * bw, 1.8 * bh))
    centre = np.array([[bw / 2, bh / 2], [bw / 2 + 1, bh / 2], [bw / 2, bh / 2 + 1]])
    img_c = cv2.perspectiveTransform(centre.reshape(-1, 1, 2), H).reshape(-1, 2)
    (ax, ay), (bx, by) = img_c[1] - img_c[0], img_c[2] - img_c[0]
    frame_px_per_mm = math.sqrt(abs(ax * by - ay * bx))
    canvas = Canvas(tuple(lo), tuple(hi - lo), float(np.clip(1.4 * frame_px_per_mm, 0.8, 8)))

    paint = (lambda cv: paint_artwork(cv, layout, c.artwork)) if c.artwork is not None else None
    draw_board(canvas, layout, c.table_rgb, np.random.default_rng(c.placement_seed), paint)
    shapes = c.pieces.shapes(layout) if c.pieces else piece_shapes(layout)
    colours = {label: rgb_to_bgr01(c.pieces.colours[label] if c.pieces else layout.colour(label))
               for label in layout.palette}
    pieces: list[Placed] = []
    stacked: dict[str, bool] = {}
    stacked = dict(c.stacked)
    anchors: dict[int, tuple[float, float]] = {}  # a seal under another is drawn in its place in the order
    for z in layout.zones:
        if z.kind == "card" and z.id in c.foreign:
            pieces.append(foreign_card(z, layout, c.placement_seed, c.jitter_mm, c.cards))
        elif z.kind == "card" and state["zones"][z.id] != "empty":
            pieces.append(place_card(z, state["zones"][z.id], layout, c.placement_seed, c.jitter_mm, c.cards))
        elif z.id in c.foreign:
            pieces.append(_foreign_piece(z, layout, c))
        elif z.kind == "slot" and state["zones"][z.id] != "empty":
            label = state["zones"][z.id]
            piece = _slot_piece(z, label, shapes[label], colours[label], c, pieces)
            if z.id in stacked:
                lower, piece = _stack(piece, stacked[z.id], shapes, colours, c)
                anchors[id(lower)] = piece.center
                pieces.append(lower)
            pieces.append(piece)
        elif z.kind == "count":
            pile = _pile(z, state["counts"][z.id], shapes, colours, c)
            stacked[z.id] = any(isinstance(p, piles.Raised) for p in pile)
            pieces.extend(pile)
    skin, sleeve = hand_polygons(c.hand) if c.hand else ([], [])
    draw_shadows(canvas, pieces, c.lighting)
    nadir = camera.C[:2]
    # Far to near (a seal under another in the upper one's place), cubes lying on others last: their base is
    # raised. (Once each: a second pass drew every cube lying on another as a column from the board, and a
    # nearer cube under it over its top.)
    for p in sorted(pieces, key=lambda p: (getattr(p, "z_mm", 0.0),
                                           -float(np.linalg.norm(np.asarray(anchors.get(id(p), p.center)) - nadir)),
                                           p.base_mm)):
        draw = draw_card if p.shape.kind == "card" else piles.draw if isinstance(p, piles.Raised) else draw_piece
        draw(canvas, camera, p, c.lighting)
    _draw_fingers(canvas, layout, pieces, c)
    if c.hand:
        draw_hand_shadow(canvas, skin + sleeve, c.hand, c.lighting)
        draw_hand(canvas, c.hand, skin, sleeve)
    light(canvas, layout, c.lighting)

    frame = warp_to_frame(canvas.image, canvas.from_mm, camera, rgb_to_bgr01(c.table_rgb))
    frame = _sensor(frame, c, rng)
    truth = _truth(layout, state, c, camera, skin + sleeve)
    if c.piles is not None:  # which trays have a cube lying on another
        truth["piles"] = {zid: {"stacked": flag} for zid, flag in stacked.items()}
    return frame, truth


def _draw_fingers(canvas: Canvas, layout: Layout, pieces: list[Placed], c: Conditions) -> None:
    """A fingertip over a corner of the card in each zone of ``c.fingers`` (a player straightening it)."""
    for zid in c.fingers:
        zone = layout.zone(zid)
        card = next((p for p in pieces if p.shape.kind == "card"
                     and abs(p.center[0] - zone.center[0]) <= zone.size[0] / 2
                     and abs(p.center[1] - zone.center[1]) <= zone.size[1] / 2), None)
        if card is not None:
            skin = SKINS[zlib.crc32(f"{c.placement_seed}/{zid}".encode()) % len(SKINS)]
            draw_finger(canvas, finger_polygon(card, c.placement_seed), skin)


def _sensor(frame: np.ndarray, c: Conditions, rng: np.random.Generator) -> np.ndarray:
    h, w = frame.shape[:2]
    if c.vignette > 0:
        yy, xx = np.ogrid[:h, :w]
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        frame = frame * (1 - c.vignette * r2).astype(np.float32)[..., None]
    if c.blur > 0.05:
        frame = cv2.GaussianBlur(frame, (0, 0), c.blur)
    if c.defocus_px > 0:
        frame = cv2.filter2D(frame, -1, defocus_kernel(c.defocus_px), borderType=cv2.BORDER_REPLICATE)
    if c.motion_blur_px > 0:
        frame = cv2.filter2D(frame, -1, motion_kernel(c.motion_blur_px, c.motion_blur_deg),
                             borderType=cv2.BORDER_REPLICATE)
    out = frame * 255.0
    if c.noise > 0:
        out += rng.normal(0, c.noise, out.shape).astype(np.float32)
    out = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    if c.jpeg_quality:
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(c.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _truth(layout: Layout, state, c: Conditions, camera, hand_polys) -> dict[str, Any]:
    bw, bh = layout.size
    mask = np.zeros((math.ceil(bh) + 1, math.ceil(bw) + 1), np.uint8)
    for poly in hand_polys:
        cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
    zones: dict[str, str] = {}
    counts: dict[str, int | None] = {}
    partly: list[str] = []
    for z in layout.zones:
        cover = _coverage(mask, z.bounds)
        hidden = cover >= HIDDEN
        if 0 < cover < HIDDEN:
            partly.append(z.id)
        if z.kind in LABEL_KINDS:
            zones[z.id] = "unknown" if hidden or z.id in c.foreign else state["zones"][z.id]
        else:
            counts[z.id] = None if hidden else sum(state["counts"][z.id].values())
    visible = []
    for m in layout.markers:
        quiet = m.size / 6
        (x0, y0), (x1, y1) = m.corners()[0], m.corners()[2]
        covered = _coverage(mask, (x0 - quiet, y0 - quiet, x1 + quiet, y1 + quiet))
        px = camera.project(np.array(m.corners()))
        inside = bool(np.all((px >= 2) & (px <= np.array(FRAME_SIZE) - 3)))
        if covered == 0 and inside:
            visible.append(m.id)
    return {"layout": layout.name, "zones": zones, "counts": counts, "partly_hidden": partly,
            "markers_visible": visible, "homography": camera.homography.tolist(),
            "conditions": {"lighting": c.lighting.name, "hand": c.hand is not None, "foreign": list(c.foreign),
                           "pose": asdict(c.pose), **({"hand_mm": asdict(c.hand)} if c.hand else {}),
                           **_table_truth(c)}}


def _table_truth(c: Conditions) -> dict[str, Any]:
    """The conditions only a table's frames vary (none for the frames of the old sets, unchanged)."""
    out: dict[str, Any] = {}
    if c.artwork is not None:
        out["board"] = c.artwork.kind
    if c.motion_blur_px or c.defocus_px:
        out["blur"] = {"motion_px": round(c.motion_blur_px, 2), "motion_deg": round(c.motion_blur_deg, 1),
                       "defocus_px": round(c.defocus_px, 2)}
    if c.stacked:
        out["stacked"] = dict(c.stacked)
    if c.set_down:
        out["set_down"] = c.set_down
    return out
