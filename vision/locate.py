"""Find the board in a frame: ArUco markers -> homography (board mm -> image pixels).

Every visible marker corner takes part in the fit, so the board is found with a marker hidden by a hand.
Without markers, four board corners stored by ``alchemy-table calibrate corners`` stand in. With a lens
calibration (``calibrate camera``), marker corners are undistorted first and the homography is that of
the ideal pinhole image; ``vision.read`` puts the distortion back when it samples the frame.

The only state is the ``Locator``, which the caller holds: it caches the homography, re-checks it
cheaply (the marker patterns are sampled where they should be) every ``recheck_every`` frames or when
asked, and finds the board again by full detection when the check fails (a bumped board).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import LensModel

ARUCO_DICT = cv2.aruco.DICT_4X4_50
MIN_MARKERS = 2  # 8 corners: enough for a well-conditioned fit when the markers are far apart
MAX_RESIDUAL_PX = 4.0


@functools.cache
def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)


def grey(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def detect_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners in image pixels (top-left, top-right, bottom-right, bottom-left)."""
    corners, ids, _ = _detector().detectMarkers(grey(frame))
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float64) for i, c in zip(ids.ravel(), corners, strict=True)}


@dataclass(frozen=True)
class Location:
    """Where the board is: ``homography`` maps board mm to ideal image pixels (None: not found);
    ``source`` says how it was found: markers, cache, corners or none."""
    homography: np.ndarray | None
    source: str
    markers: tuple[int, ...] = ()
    residual_px: float = 0.0

    @property
    def found(self) -> bool:
        return self.homography is not None


def fit_homography(layout: Layout, detections: dict[int, np.ndarray],
                   lens: LensModel | None = None) -> Location:
    """Homography from every corner of the layout's markers that were detected; RANSAC drops a
    misread marker. Needs at least two of the layout's markers."""
    known = {m.id: m for m in layout.markers}
    used = sorted(i for i in detections if i in known)
    if len(used) < MIN_MARKERS:
        return Location(None, "none", tuple(used))
    board = np.array([known[i].corners() for i in used], np.float64).reshape(-1, 2)
    image = np.concatenate([detections[i] for i in used]).reshape(-1, 2)
    if lens is not None:
        image = lens.undistort_points(image)
    H, inliers = cv2.findHomography(board, image, cv2.RANSAC, MAX_RESIDUAL_PX)
    if H is None or inliers is None or int(inliers.sum()) < 4 * MIN_MARKERS:
        return Location(None, "none", tuple(used))
    keep = inliers.ravel().astype(bool)
    H, _ = cv2.findHomography(board[keep], image[keep], 0)
    proj = cv2.perspectiveTransform(board[keep].reshape(-1, 1, 2), H).reshape(-1, 2)
    residual = float(np.median(np.linalg.norm(proj - image[keep], axis=1)))
    ids = tuple(i for k, i in enumerate(used) if keep[4 * k:4 * k + 4].all())
    return Location(H / H[2, 2], "markers", ids, residual)


def corners_homography(layout: Layout, points_px, lens: LensModel | None = None) -> np.ndarray:
    """Homography from the board's four corners (top-left, top-right, bottom-right, bottom-left of the
    layout's rectangle) clicked in the image."""
    w, h = layout.size
    image = np.asarray(points_px, np.float64).reshape(4, 2)
    if lens is not None:
        image = lens.undistort_points(image)
    return cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), image.astype(np.float32))


def _marker_bits(marker_id: int) -> np.ndarray:
    """The 6 x 6 modules of a marker (black border included): 1 = white."""
    from calibration.plan import marker_image
    return (marker_image(marker_id, 6) > 127).astype(np.uint8)


def check_markers(frame: np.ndarray, layout: Layout, H: np.ndarray, lens: LensModel | None = None) -> int:
    """How many of the layout's markers still show their pattern where ``H`` says they are: a few
    dozen pixel reads, no detection."""
    g = grey(frame)
    h_img, w_img = g.shape
    good = 0
    for m in layout.markers:
        (left, top) = m.corners()[0]
        step = m.size / 6
        cx, cy = np.meshgrid(left + step * (np.arange(6) + 0.5), top + step * (np.arange(6) + 0.5))
        pts = cv2.perspectiveTransform(np.stack([cx, cy], -1).reshape(-1, 1, 2), H).reshape(-1, 2)
        if lens is not None:
            pts = lens.distort_points(pts)
        xi, yi = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
        if xi.min() < 0 or yi.min() < 0 or xi.max() >= w_img or yi.max() >= h_img:
            continue
        values = g[yi, xi].astype(np.float32)
        lo, hi = np.percentile(values, 10), np.percentile(values, 90)
        if hi - lo < 30:
            continue
        bits = (values > (lo + hi) / 2).reshape(6, 6)
        if (bits == _marker_bits(m.id)).mean() >= 0.9:
            good += 1
    return good


class Locator:
    """The cached board position for one layout. ``locate(frame)`` returns a Location.

    >>> locator = Locator(layout)                 # doctest: +SKIP
    >>> location = locator.locate(frame)          # doctest: +SKIP
    """

    def __init__(self, layout: Layout, lens: LensModel | None = None, corners_px=None, recheck_every: int = 30):
        self.layout = layout
        self.lens = lens
        self.corners_px = corners_px
        self.recheck_every = recheck_every
        self.location: Location | None = None
        self._since_check = 0

    def invalidate(self) -> None:
        """Forget the cached position (e.g. after a large change in the picture)."""
        self.location = None

    def locate(self, frame: np.ndarray, check: bool = False) -> Location:
        """The board in ``frame``: the cached homography while it is fresh; otherwise (every
        ``recheck_every`` frames, or when ``check``) a cheap check of the markers, and a full detection
        when that check fails."""
        cached = self.location
        if cached is not None and cached.found and cached.source != "corners":
            self._since_check += 1
            if not check and self._since_check < self.recheck_every:
                return Location(cached.homography, "cache", cached.markers, cached.residual_px)
            self._since_check = 0
            need = min(len(self.layout.markers), max(MIN_MARKERS, len(cached.markers) - 1))
            if check_markers(frame, self.layout, cached.homography, self.lens) >= need:
                return Location(cached.homography, "cache", cached.markers, cached.residual_px)
        self._since_check = 0
        found = fit_homography(self.layout, detect_markers(frame), self.lens)
        if found.found:
            self.location = found
            return found
        if cached is not None and cached.found and cached.source != "corners" and \
                check_markers(frame, self.layout, cached.homography, self.lens) >= 1:
            # Markers hidden by hands but the ones still visible have not moved: the board has not either.
            return Location(cached.homography, "cache", cached.markers, cached.residual_px)
        if self.corners_px is not None:
            self.location = Location(corners_homography(self.layout, self.corners_px, self.lens), "corners")
            return self.location
        self.location = None
        return Location(None, "none", found.markers)
