"""Lens calibration from photos of a ChArUco board (``alchemy-table calibrate camera IMAGES...``).

The board is OpenCV's ChArUco pattern in DICT_4X4_50, markers from id 0 upwards: ``charuco_board()``
describes it and ``alchemy-table calibrate camera --print-board FILE.png`` draws it to print. Take 10 or
more photos of it flat, at different places and angles over the field of view.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration import files
from calibration.store import LensModel

SQUARES = (7, 5)
SQUARE_MM = 30.0
MARKER_MM = 22.0
MIN_CORNERS = 8


class CameraCalibrationError(ValueError):
    """Photos from which no lens model can be computed."""


def charuco_board() -> cv2.aruco.CharucoBoard:
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.CharucoBoard(SQUARES, SQUARE_MM, MARKER_MM, dictionary)


def board_image(px_per_mm: float = 10.0) -> np.ndarray:
    w, h = round(SQUARES[0] * SQUARE_MM * px_per_mm), round(SQUARES[1] * SQUARE_MM * px_per_mm)
    return charuco_board().generateImage((w, h), marginSize=round(10 * px_per_mm))


def calibrate_camera(images: list[tuple[str, np.ndarray]]) -> tuple[LensModel, float, int]:
    """(name, grey or BGR image) list -> (lens model, RMS reprojection error px, photos used)."""
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    objects, points, size = [], [], None
    for name, img in images:
        grey = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        if size is None:
            size = grey.shape[::-1]
        elif grey.shape[::-1] != size:
            raise CameraCalibrationError(f"{name}: {grey.shape[1]}x{grey.shape[0]} differs from the first photo")
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < MIN_CORNERS:
            continue
        obj, pts = board.matchImagePoints(corners, ids)
        objects.append(obj)
        points.append(pts)
    if len(objects) < 3:
        raise CameraCalibrationError(f"only {len(objects)} photo(s) show the ChArUco board well enough; need 3 or "
                                     "more, better 10")
    rms, K, dist, _, _ = cv2.calibrateCamera(objects, points, size, None, None)
    return LensModel(K, dist.ravel(), (int(size[0]), int(size[1]))), float(rms), len(objects)


def read_images(paths: list[str]) -> list[tuple[str, np.ndarray]]:
    out = []
    for p in paths:
        try:  # guarded: a regular file whose header says at most the pixel limit
            data = np.frombuffer(files.image_bytes(p, OSError), np.uint8)
            img = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
        except cv2.error:
            img = None
        if img is None:
            raise OSError(f"{p}: not a readable image")
        out.append((str(Path(p)), img))
    return out
