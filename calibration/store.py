"""Calibration files: what ``alchemy-table calibrate`` learns and ``read``/``eval`` use.

One JSON file per board and camera, each part optional::

    {"kind": "alchemy-table calibration", "layout": "chaudron",
     "colours": {"bone": [236, 228, 210], ...},        # pieces' real colours (RGB, normalised light)
     "top_area_mm2": {"bone": 236.0, ...},              # one piece's visible top, from count zones
     "corners": [[x, y], [x, y], [x, y], [x, y]],       # board corners in the image (no-marker fallback)
     "camera": {"matrix": [[...]], "distortion": [...], "image_size": [w, h]},
     "board": {"px_per_mm": 1.2, "png": "<base64>",     # the empty board as this camera sees it (canonical),
               "lens": {...},                           # the lens estimated from its markers (no "camera"),
               "markers": [0, 1, 2, 3],                 # and the markers it was placed by;
               "learnt": true},                         # learnt from the calibration frame (a plain board)
     "estimated_lens": {...},                           # the lens estimated from the calibration frame's markers
     "pieces": {"bone": {"lab": [L, a, b], "area_mm2": 240.0}, ...},  # pieces against that board
     "tops_unlearnt": {"grey": "cube size not learnt: ..."}}  # pieces whose top the trays could not tell

``board`` and ``pieces`` come from ``calibrate board`` and ``calibrate colours`` run after it: the reader then
decides "piece or not" against the enrolled board (``vision.board``), not against the layout's board colour.
``colours`` learnt with ``pieces`` (against the enrolled board) are the pieces in white light, as the trays are
then counted; colours learnt before the board was enrolled are relative to the layout's board colour, and the
reader of an enrolled board leaves them aside. A board ``calibrate colours`` learnt from its own frame (a plain
board, ``"learnt": true``) is read against as one enrolled empty; ``calibrate colours`` learns it again from
each new frame, and ``calibrate board`` replaces it.

``calibrate`` sub-commands merge into an existing file, so one file collects them all.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import files

KIND = "alchemy-table calibration"


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message reads ``FILE: key: what is wrong``."""


@dataclass(frozen=True)
class LensModel:
    """Pinhole intrinsics and OpenCV distortion coefficients of one camera."""
    matrix: np.ndarray
    distortion: np.ndarray
    image_size: tuple[int, int]

    def undistort_points(self, pts) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 1, 2)
        return cv2.undistortPoints(p, self.matrix, self.distortion, P=self.matrix).reshape(-1, 2)

    def distort_points(self, pts) -> np.ndarray:
        """Ideal pixels -> the pixels the sensor records (OpenCV's model, k1 k2 p1 p2 [k3])."""
        p = np.asarray(pts, np.float64)
        fx, fy, cx, cy = self.matrix[0, 0], self.matrix[1, 1], self.matrix[0, 2], self.matrix[1, 2]
        d = np.zeros(5)
        d[:min(5, self.distortion.size)] = self.distortion.ravel()[:5]
        k1, k2, p1, p2, k3 = d
        x, y = (p[..., 0] - cx) / fx, (p[..., 1] - cy) / fy
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.stack([xd * fx + cx, yd * fy + cy], axis=-1)

    def to_dict(self) -> dict[str, Any]:
        return {"matrix": self.matrix.tolist(), "distortion": self.distortion.ravel().tolist(),
                "image_size": list(self.image_size)}


@dataclass(frozen=True)
class BoardImage:
    """The empty board as the camera saw it, warped to the canonical top-down image (BGR uint8) at
    ``px_per_mm``; stored in the calibration file as a PNG (lossless: it is the reference every frame is
    compared with). ``lens``: the camera's lens as estimated from the board's markers at enrolment, when no
    lens was calibrated (an empty board shows every marker: a frame with a hand over some may not show enough
    to estimate it again, and is fitted through this one; ``vision.locate.Locator``)."""
    image: np.ndarray
    px_per_mm: float
    lens: LensModel | None = None
    # the markers the board was placed by when it was enrolled (``calibrate board`` warns of the others,
    # ``vision.board.markers_unseen``; the reader leaves what lies beyond them unread, ``placed_by_estimate``);
    # empty in a file written before they were stored
    markers: tuple[int, ...] = field(default=(), compare=False)
    # learnt from the calibration frame (a plain board, ``vision.board_learn``), not photographed empty: read
    # against the same way, but learnt again from each new calibration frame
    learnt: bool = False

    def to_dict(self) -> dict[str, Any]:
        ok, png = cv2.imencode(".png", self.image)
        if not ok:
            raise CalibrationError("board: cannot encode the board image")
        out = {"px_per_mm": self.px_per_mm, "png": base64.b64encode(png.tobytes()).decode("ascii")}
        if self.lens is not None:
            out["lens"] = self.lens.to_dict()
        if self.markers:
            out["markers"] = list(self.markers)
        if self.learnt:
            out["learnt"] = True
        return out


@dataclass(frozen=True)
class PieceModel:
    """One piece as the calibration frame showed it against the enrolled board: its lit top's colour (CIE
    Lab, in the enrolled board's light) and the area it covers seen from the camera (mm², sides included)."""
    lab: tuple[float, float, float]
    area_mm2: float

    def to_dict(self) -> dict[str, Any]:
        return {"lab": [round(v, 2) for v in self.lab], "area_mm2": round(self.area_mm2, 1)}


@dataclass(frozen=True)
class Calibration:
    layout: str
    colours: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    top_area_mm2: dict[str, float] = field(default_factory=dict)
    corners: tuple[tuple[float, float], ...] | None = None
    camera: LensModel | None = None
    board: BoardImage | None = None
    pieces: dict[str, PieceModel] = field(default_factory=dict)
    # labels whose one top ``calibrate colours`` could not learn (its calibration trays disagreed), each with the
    # reason: their trays are left uncounted with it (``vision.learn._top_areas``)
    tops_unlearnt: dict[str, str] = field(default_factory=dict)
    # the lens ``calibrate colours`` estimated from the calibration frame's markers, with no lens calibrated: a
    # frame showing too few markers to estimate its own is fitted through it (``vision.locate.Locator``)
    estimated_lens: LensModel | None = None

    @property
    def fallback_lens(self) -> LensModel | None:
        """The lens a frame showing too few markers is fitted through: the empty board's, else the calibration
        frame's (both estimated from every marker of the layout)."""
        if self.board is not None and self.board.lens is not None:
            return self.board.lens
        return self.estimated_lens

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": KIND, "layout": self.layout}
        if self.colours:
            out["colours"] = {k: list(v) for k, v in self.colours.items()}
        if self.top_area_mm2:
            out["top_area_mm2"] = {k: round(v, 2) for k, v in self.top_area_mm2.items()}
        if self.corners is not None:
            out["corners"] = [list(p) for p in self.corners]
        if self.camera is not None:
            out["camera"] = self.camera.to_dict()
        if self.board is not None:
            out["board"] = self.board.to_dict()
        if self.pieces:
            out["pieces"] = {k: v.to_dict() for k, v in self.pieces.items()}
        if self.tops_unlearnt:
            out["tops_unlearnt"] = dict(self.tops_unlearnt)
        if self.estimated_lens is not None:
            out["estimated_lens"] = self.estimated_lens.to_dict()
        return out

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")


def load_calibration(path: str | Path, layout_name: str | None = None) -> Calibration:
    """Read and check a calibration file; ``layout_name`` must match the file's layout if given."""
    path = Path(path)
    data = files.load_json(path, CalibrationError)
    return parse_calibration(data, str(path), layout_name)


def parse_calibration(data: Any, source: str, layout_name: str | None = None) -> Calibration:
    def fail(key: str, message: str) -> CalibrationError:
        return CalibrationError(f"{source}: {key}: {message}")

    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise fail("kind", f"not a calibration file (expected \"kind\": \"{KIND}\")")
    layout = data.get("layout")
    if not isinstance(layout, str) or not layout:
        raise fail("layout", "missing")
    if layout_name is not None and layout != layout_name:
        raise fail("layout", f"made for layout {layout!r}, not {layout_name!r}")
    for key in ("colours", "top_area_mm2", "camera", "estimated_lens"):
        if data.get(key) is not None and not isinstance(data[key], dict):
            raise fail(key, f"expected an object, got {type(data[key]).__name__}")
    colours = {}
    for label, rgb in (data.get("colours") or {}).items():
        if not (isinstance(rgb, list) and len(rgb) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in rgb)):
            raise fail(f"colours.{label}", f"expected [r, g, b] in 0..255, got {rgb!r}")
        colours[label] = tuple(rgb)
    areas = {}
    for label, a in (data.get("top_area_mm2") or {}).items():
        if isinstance(a, bool) or not isinstance(a, int | float) or not (math.isfinite(a) and a > 0):
            raise fail(f"top_area_mm2.{label}", f"expected an area in mm², got {a!r}")
        areas[label] = float(a)
    corners = data.get("corners")
    if corners is not None:
        if not (isinstance(corners, list) and len(corners) == 4 and all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) for v in p) for p in corners)):
            raise fail("corners", "expected four [x, y] image points")
        corners = tuple((float(p[0]), float(p[1])) for p in corners)
    camera = _parse_lens(data.get("camera"), fail, "camera")
    board = _parse_board(data.get("board"), fail)
    pieces = {}
    raw_pieces = data.get("pieces") or {}
    if not isinstance(raw_pieces, dict):
        raise fail("pieces", "expected an object of label: {lab, area_mm2}")
    for label, p in raw_pieces.items():
        lab, area = (p.get("lab"), p.get("area_mm2")) if isinstance(p, dict) else (None, None)
        if not (isinstance(lab, list) and len(lab) == 3 and all(_finite(v) for v in lab)):
            raise fail(f"pieces.{label}.lab", f"expected [L, a, b], got {lab!r}")
        if not (_finite(area) and area > 0):
            raise fail(f"pieces.{label}.area_mm2", f"expected an area in mm², got {area!r}")
        pieces[label] = PieceModel((float(lab[0]), float(lab[1]), float(lab[2])), float(area))
    unlearnt = data.get("tops_unlearnt") or {}
    if not isinstance(unlearnt, dict) or not all(isinstance(v, str) for v in unlearnt.values()):
        raise fail("tops_unlearnt", "expected an object of label: reason")
    return Calibration(layout, colours, areas, corners, camera, board, pieces, dict(unlearnt),
                       _parse_lens(data.get("estimated_lens"), fail, "estimated_lens"))


def _finite(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v)


def _parse_lens(raw: Any, fail, key: str) -> LensModel | None:
    if raw is None:
        return None
    try:
        matrix = np.array(raw["matrix"], np.float64).reshape(3, 3)
        dist = np.array(raw["distortion"], np.float64).ravel()
        size = (int(raw["image_size"][0]), int(raw["image_size"][1]))
    except (KeyError, TypeError, ValueError, IndexError):
        raise fail(key, "expected matrix (3 x 3), distortion (list) and image_size [w, h]") from None
    if not np.isfinite(matrix).all() or not np.isfinite(dist).all() or dist.size < 4:
        raise fail(key, "matrix and distortion must be finite, distortion at least k1 k2 p1 p2")
    return LensModel(matrix, dist, size)


def _parse_board(raw: Any, fail) -> BoardImage | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("png"), str) or not _finite(raw.get("px_per_mm")) \
            or raw["px_per_mm"] <= 0:
        raise fail("board", "expected {px_per_mm, png} as 'calibrate board' writes it")
    try:
        data = base64.b64decode(raw["png"], validate=True)
    except (ValueError, binascii.Error):
        raise fail("board.png", "not base64") from None
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is None:
        raise fail("board.png", "not a PNG image")
    if raw.get("lens") is not None and not isinstance(raw["lens"], dict):
        raise fail("board.lens", f"expected an object, got {type(raw['lens']).__name__}")
    markers = raw.get("markers", [])
    if not isinstance(markers, list) or not all(isinstance(m, int) and not isinstance(m, bool) for m in markers):
        raise fail("board.markers", "expected a list of marker ids")
    if not isinstance(raw.get("learnt", False), bool):
        raise fail("board.learnt", "expected true or false")
    return BoardImage(image, float(raw["px_per_mm"]), _parse_lens(raw.get("lens"), fail, "board.lens"),
                      tuple(sorted(markers)), raw.get("learnt", False))


def merge_into(path: str | Path, layout_name: str, **parts: Any) -> Calibration:
    """Update ``path`` (created if absent) with the given parts, keeping the others."""
    path = Path(path)
    base = load_calibration(path, layout_name) if path.exists() else Calibration(layout_name)
    values = {"colours": base.colours, "top_area_mm2": base.top_area_mm2, "corners": base.corners,
              "camera": base.camera, "board": base.board, "pieces": base.pieces,
              "tops_unlearnt": base.tops_unlearnt, "estimated_lens": base.estimated_lens}
    values.update(parts)
    cal = Calibration(layout_name, **values)
    cal.save(path)
    return cal
