"""Reserve piles as players leave them: loose, touching in any direction, turned at any angle, along the
tray's edge or in its corner, cubes a little unlike each other in size and colour, and now and then a cube
lying on another (``stacked`` in the truth).

``_pile`` in ``vision.render`` delegates here when ``Conditions.piles`` gives a ``PileStyle``; without one the
packed lattice stays (old frames replay byte for byte).

A cube on another is drawn as a cube whose base is raised: a cube at height z seen by a camera at height H
is, for the camera, a cube standing on a board H - z below it with its footprint seen H / (H - z) larger
(``_LiftedBase``), so the scene's own ``draw_piece`` draws it.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.layout import Zone
from vision.pieces import PieceShape
from vision.render.lamps import irradiance
from vision.render.scene import SHIFT, Placed, _footprint, _shadow_offset, draw_piece

GAP_MM = 0.3  # between two touching cubes (none quite flush)
EDGE_MM = 1.0  # a cube keeps this far inside the tray's walls
TRIES = 60
TIDY = 0.3  # share of tables whose players leave their piles packed square (``random_style``)


@dataclass(frozen=True)
class PileStyle:
    """How players leave their piles. ``touch``: share of cubes set against one already there (else
    anywhere free); ``turn``: share turned at any angle (else within a few degrees of the tray);
    ``walls``: share of piles started in a corner or along an edge; ``scale``: the cubes' real size over the
    layout's (the same for every cube: one game's set); ``size_tol``, ``colour_tol``: each cube's spread
    around it; ``stacked``: share of trays (of 2 cubes and more) where one or two cubes lie on others."""
    touch: float = 0.6
    turn: float = 0.5
    walls: float = 0.4
    scale: float = 1.0
    size_tol: float = 0.03
    colour_tol: float = 0.04
    stacked: float = 0.0


@dataclass(frozen=True)
class Raised(Placed):
    """A cube lying on others: its base ``z_mm`` above the board (``shape.height`` is its top's height,
    so that its shadow is cast from there); ``below``: the pile's cubes drawn before it, on whose tops its
    shadow falls."""
    z_mm: float = 0.0
    below: tuple[Placed, ...] = ()


def random_style(rng: np.random.Generator, stacked: float = 0.0) -> PileStyle:
    """A table's way with its piles, and its cube set's size (-10 % to +8 % of the layout's). At ``TIDY`` of the
    tables the players are tidy: every cube set square against the others from a wall, the piles packed in rows
    (a way players leave their reserve that the renderer did not draw; docs/counting.md, session 58)."""
    style = PileStyle(touch=float(rng.uniform(0.2, 0.9)), turn=float(rng.uniform(0.0, 1.0)),
                      walls=float(rng.uniform(0.2, 0.7)), scale=float(rng.uniform(0.9, 1.08)),
                      size_tol=float(rng.uniform(0.0, 0.04)), colour_tol=float(rng.uniform(0.0, 0.06)),
                      stacked=stacked)
    # (the coin from a child of the generator, ``spawn``: the parent draws on as before, and a table whose players
    # are not tidy, its light, camera and reserves are the same as before there were tidy ones)
    tidy = rng.spawn(1)[0].random() < TIDY
    return replace(style, touch=1.0, turn=0.0, walls=1.0) if tidy else style


def pile(zone: Zone, counts: dict[str, int], shapes: dict[str, PieceShape], colours, seed: int,
         style: PileStyle) -> list[Placed]:
    """The cubes of a count zone left as ``style`` says (the same for the same seed and zone)."""
    total = sum(counts.values())
    if total == 0:
        return []
    rng = np.random.default_rng([seed, zlib.crc32(zone.id.encode()), 23])
    labels = [label for label, n in sorted(counts.items()) for _ in range(n)]
    raised = 0
    if total >= 2 and rng.random() < style.stacked:
        raised = 1 + int(total >= 6 and rng.random() < 0.3)
    sides = [max(shapes[label].size) * style.scale * float(rng.uniform(1 - style.size_tol, 1 + style.size_tol))
             for label in labels]
    for attempt in range(8):
        # A big pile that jams left loosely is pushed together, as a player would: more cubes set against
        # others, fewer turned, then slid square against them, at last in rows from a corner (``_lattice``).
        k = min(1.0, attempt / 4)
        tighter = PileStyle(touch=style.touch + (1 - style.touch) * k, turn=style.turn * (1 - k), walls=style.walls)
        ground = _lay(zone, sides[:total - raised], tighter, rng, square=attempt >= 4)
        if ground is not None:
            break
    else:
        ground = _lattice(zone, sides[:total - raised])
    out: list[Placed] = []
    for (cx, cy, angle), side, label in zip(ground, sides, labels, strict=False):
        out.append(Placed(label, PieceShape("cube", (side, side), side), (cx, cy), angle,
                          _tint(colours[label], style, rng), _spec(rng)))
    for k in range(raised):
        label, side = labels[total - raised + k], sides[total - raised + k]
        under = out[int(rng.integers(len(out) - k))]  # on a cube of the board (or the first raised one)
        lean = rng.random() < 0.4  # half off its cube, one edge down: its base about half a cube up
        reach = rng.uniform(0.35, 0.6) if lean else rng.uniform(0.0, 0.2)
        a = rng.uniform(0, 2 * math.pi)
        cx, cy = under.center[0] + reach * side * math.cos(a), under.center[1] + reach * side * math.sin(a)
        z = under.shape.height * (0.5 if lean else 1.0)
        out.append(Raised(label, PieceShape("cube", (side, side), z + side), (cx, cy), float(rng.uniform(0, 90)),
                          _tint(colours[label], style, rng), _spec(rng), z, tuple(out)))
    return out


def _spec(rng: np.random.Generator) -> float:
    return float(rng.uniform(0.4, 0.8)) if rng.random() < 0.5 else 0.0


def _tint(bgr, style: PileStyle, rng: np.random.Generator) -> tuple[float, float, float]:
    k = 1 + float(rng.uniform(-style.colour_tol, style.colour_tol))
    return tuple(float(np.clip(c * k * (1 + rng.uniform(-0.3, 0.3) * style.colour_tol), 0, 1)) for c in bgr)


def _square(cx: float, cy: float, angle: float, side: float) -> np.ndarray:
    a = math.radians(angle)
    u, v = np.array([math.cos(a), math.sin(a)]) * side / 2, np.array([-math.sin(a), math.cos(a)]) * side / 2
    c = np.array([cx, cy])
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def _apart(p: np.ndarray, q: np.ndarray, gap: float = GAP_MM) -> bool:
    """Two convex squares at least ``gap`` apart along some side's normal (separating axes)."""
    for poly in (p, q):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            n = np.array([-edge[1], edge[0]]) / (np.linalg.norm(edge) + 1e-12)
            a, b = p @ n, q @ n
            if a.max() + gap <= b.min() or b.max() + gap <= a.min():
                return True
    return False


def _free(poly: np.ndarray, at, side: float, polys: list[np.ndarray], placed, sides: list[float]) -> bool:
    """``poly`` is GAP_MM clear of every cube laid: by their distances first (inscribed circles that meet
    overlap, circumscribed ones that do not cannot), the separating axes only for the cubes in between."""
    if not placed:
        return True
    centres = np.array([p[:2] for p in placed])
    other = np.array(sides[:len(placed)])
    d = np.hypot(centres[:, 0] - at[0], centres[:, 1] - at[1])
    if np.any(d < (side + other) / 2 + GAP_MM):
        return False
    near = np.flatnonzero(d <= (side + other) / math.sqrt(2) + GAP_MM)
    return all(_apart(poly, polys[j]) for j in near)


def _lay(zone: Zone, sides: list[float], style: PileStyle, rng: np.random.Generator, square: bool = False
         ) -> list[tuple[float, float, float]] | None:
    """Centres and angles of cubes of ``sides`` on the tray's floor, none overlapping; None if they jam."""
    left, top, right, bottom = zone.bounds
    lo, hi = np.array([left + EDGE_MM, top + EDGE_MM]), np.array([right - EDGE_MM, bottom - EDGE_MM])
    placed: list[tuple[float, float, float]] = []
    polys: list[np.ndarray] = []
    corner = square or rng.random() < style.walls
    for side in sides:
        for _try in range(TRIES):
            angle = float(rng.uniform(0, 90)) if rng.random() < style.turn else float(rng.uniform(-4, 4))
            if placed and rng.random() < style.touch:
                # against a cube already there: one of its faces, slid along it
                j = int(rng.integers(len(placed)))
                (cx, cy, ca), other = placed[j], sides[j]
                angle = ca if square else ca + float(rng.uniform(-3, 3)) if rng.random() < 0.7 else angle
                face = math.radians(ca + 90 * int(rng.integers(4)))
                d = (side + other) / 2 + GAP_MM + float(rng.uniform(0, 0.1 if square else 0.6))
                slide = 0.0 if square else float(rng.uniform(-0.5, 0.5)) * side
                x = cx + d * math.cos(face) - slide * math.sin(face)
                y = cy + d * math.sin(face) + slide * math.cos(face)
            elif not placed and corner:
                # the first cube in a corner or along a wall
                x, y = rng.uniform(lo, hi)
                if square or rng.random() < 0.5:
                    x = lo[0] + side / 2 if rng.random() < 0.5 else hi[0] - side / 2
                if square or rng.random() < 0.5:
                    y = lo[1] + side / 2 if rng.random() < 0.5 else hi[1] - side / 2
                angle = 0.0 if square else float(rng.uniform(-2, 2))
            else:
                x, y = rng.uniform(lo, hi)
            poly = _square(x, y, angle, side)
            if poly.min(axis=0)[0] < lo[0] or poly.min(axis=0)[1] < lo[1] or np.any(poly.max(axis=0) > hi):
                continue
            if _free(poly, (x, y), side, polys, placed, sides):
                placed.append((float(x), float(y), angle))
                polys.append(poly)
                break
        else:
            return None
    return placed


def draw(canvas, camera, p: Raised, lighting) -> None:
    """A cube lying on others: its shadow on the tops of the cubes below it (``top_shadows``), then
    ``draw_piece`` from the plane of its base (its footprint as the camera sees it there, drawn with sides its
    own height)."""
    top_shadows(canvas, camera, p, lighting)
    side = p.shape.size[0]
    k = camera.height / (camera.height - p.z_mm)
    centre = camera.lift(np.array([p.center]), p.z_mm)[0]
    seen = Placed(p.label, PieceShape("cube", (side * k, side * k), side), (float(centre[0]), float(centre[1])),
                  p.angle_deg, p.bgr, p.specular)
    draw_piece(canvas, _LiftedBase(camera, p.z_mm, k), seen, lighting)


def _lattice(zone: Zone, sides: list[float]) -> list[tuple[float, float, float]]:
    """Cubes pushed square into rows from the tray's corner: what a jammed pile comes to."""
    left, top, right, bottom = zone.bounds
    pitch = max(sides) + GAP_MM + 0.05  # (clear of the gap, not on it)
    cols = int((right - left - 2 * EDGE_MM) // pitch)
    if cols * int((bottom - top - 2 * EDGE_MM) // pitch) < len(sides):
        from vision.render.state import StateError
        raise StateError(f"counts.{zone.id}: {len(sides)} cubes do not fit the zone")
    return [(left + EDGE_MM + pitch * (k % cols + 0.5), top + EDGE_MM + pitch * (k // cols + 0.5), 0.0)
            for k in range(len(sides))]


class _LiftedBase:
    """``lift`` for a footprint already seen at height ``z`` (scaled ``k``): the point ``h`` above it."""

    def __init__(self, camera, z: float, k: float):
        self.camera, self.z, self.k = camera, z, k

    def lift(self, xy: np.ndarray, h: float) -> np.ndarray:
        c = self.camera.C[:2]
        base = c + (np.asarray(xy, float) - c) / self.k  # back to the board plane
        return self.camera.lift(base, self.z + h)


def top_shadows(canvas, camera, p: Raised, lighting) -> None:
    """The shadow of a cube lying on others across the tops of the cubes below it (``p.below``), as a camera
    sees it: the board's shadows are drawn before the pieces, and a cube's top was lit whole even under a
    cube lying beside it a layer higher. Each top is a plane at its own height; the part of ``p`` above it
    casts on it along the light (each source's share of the light taken away under a mixed light)."""
    lights = [(lighting, 1.0)]
    if lighting.sources:
        at = [np.array([v], np.float32) for v in p.center]
        levels = [float(irradiance(s, *at).sum()) for s in lighting.sources]
        ambient = 3 * lighting.intensity * float(np.mean(lighting.gains))
        lights = [(replace(lighting, azimuth_deg=s.azimuth_deg, elevation_deg=s.elevation_deg, sources=()),
                   level / (ambient + sum(levels))) for s, level in zip(lighting.sources, levels, strict=True)]
    side = p.shape.size[0]
    reach = 4 * side  # (a long shadow at a low light's elevation)
    base = _footprint(p)
    for q in p.below:
        hq = q.shape.height
        if p.shape.height <= hq or np.hypot(*np.subtract(q.center, p.center)) > reach:
            continue
        top = camera.lift(_footprint(q), hq).astype(np.float32)
        for one, share in lights:
            # the part of p above q's top, cast onto q's top's plane: between its lowest and highest points there
            low, high = max(p.z_mm, hq) - hq, p.shape.height - hq
            cast = np.concatenate([base - _shadow_offset(one, low), base - _shadow_offset(one, high)])
            hull = cv2.convexHull(camera.lift(cast, hq).astype(np.float32))
            area, part = cv2.intersectConvexConvex(hull.reshape(-1, 2), top)
            if part is None or area <= 0:
                continue
            _darken(canvas, part.reshape(-1, 2), one.shadow * share)


def _darken(canvas, poly_mm: np.ndarray, depth: float) -> None:
    """The canvas under ``poly_mm`` (board mm) darkened by ``depth`` (its antialiased edge in part)."""
    pts = canvas.px(poly_mm)
    x, y, w, h = cv2.boundingRect(pts >> SHIFT)
    x0, y0 = max(0, x - 2), max(0, y - 2)
    x1, y1 = min(canvas.w, x + w + 2), min(canvas.h, y + h + 2)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(mask, [pts - (np.array([x0, y0]) << SHIFT)], 1.0, cv2.LINE_AA, SHIFT)
    canvas.image[y0:y1, x0:x1] *= (1 - depth * mask)[..., None]
