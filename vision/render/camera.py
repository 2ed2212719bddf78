"""The rendered camera: a pinhole above the board, with lens distortion.

World frame: the board's millimetres (x right, y down) and z pointing down into the table, so that a
camera straight above the board with no rotation is the identity in OpenCV's camera convention and sits
at z = -height. A point at height h above the board is at z = -h.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.store import LensModel

FRAME_SIZE = (1280, 960)  # width, height in pixels


@dataclass(frozen=True)
class Pose:
    """Where the camera is: ``height_mm`` above the table, looking at ``target_mm`` (a point of the board
    plane, board coordinates), tilted ``tilt_deg`` from vertical towards ``tilt_towards_deg`` (0 = +x,
    90 = +y), the board turned ``yaw_deg`` in the picture, with ``fill`` the fraction of the frame the
    board spans, and radial lens distortion ``k1``, ``k2`` (OpenCV's model)."""

    height_mm: float = 750.0
    target_mm: tuple[float, float] | None = None  # None: the board's centre
    tilt_deg: float = 0.0
    tilt_towards_deg: float = 0.0
    yaw_deg: float = 0.0
    fill: float = 0.75
    k1: float = 0.0
    k2: float = 0.0


@dataclass(frozen=True)
class Camera:
    K: np.ndarray  # 3 x 3 intrinsics
    dist: np.ndarray  # OpenCV distortion coefficients (k1, k2, p1, p2, k3)
    R: np.ndarray  # world -> camera rotation
    C: np.ndarray  # camera centre in world coordinates (z = -height)

    @property
    def homography(self) -> np.ndarray:
        """Board mm (x, y, 1) -> ideal (undistorted) image pixels."""
        t = -self.R @ self.C
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], t])
        return H / H[2, 2]

    @property
    def height(self) -> float:
        return float(-self.C[2])

    def lift(self, xy: np.ndarray, h: float) -> np.ndarray:
        """Board-plane points where a point at height ``h`` above ``xy`` appears (its parallax)."""
        c = self.C[:2]
        return c + (np.asarray(xy, dtype=float) - c) * (self.height / (self.height - h))

    def project(self, xy_mm: np.ndarray) -> np.ndarray:
        """Board-plane points -> distorted image pixels (what the sensor sees)."""
        pts = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 1, 2)
        obj = np.concatenate([pts, np.zeros((len(pts), 1, 1))], axis=2)
        rvec, _ = cv2.Rodrigues(self.R)
        tvec = -self.R @ self.C
        img, _ = cv2.projectPoints(obj, rvec, tvec, self.K, self.dist)
        return img.reshape(-1, 2)


def _rotation(pose: Pose) -> np.ndarray:
    yaw = math.radians(pose.yaw_deg)
    rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
    tilt = math.radians(pose.tilt_deg)
    axis = np.array([-math.sin(math.radians(pose.tilt_towards_deg)), math.cos(math.radians(pose.tilt_towards_deg)),
                     0.0])
    rt, _ = cv2.Rodrigues(axis * tilt)
    return rz @ rt


def make_camera(pose: Pose, board_size: tuple[float, float]) -> Camera:
    """The camera of ``pose`` over a board of ``board_size`` mm, its focal length chosen so the board spans
    ``pose.fill`` of the frame."""
    R = _rotation(pose)
    target = np.array(pose.target_mm if pose.target_mm is not None else (board_size[0] / 2, board_size[1] / 2))
    axis = R.T @ np.array([0.0, 0.0, 1.0])  # optical axis in world coordinates
    s = pose.height_mm / axis[2]
    C = np.array([target[0], target[1], 0.0]) - s * axis
    corners = np.array([[0, 0, 0], [board_size[0], 0, 0], [board_size[0], board_size[1], 0], [0, board_size[1], 0]],
                       dtype=float)
    cam = (R @ (corners - C).T).T
    xy = cam[:, :2] / cam[:, 2:3]
    w, h = FRAME_SIZE
    # Board corners at f = 1, relative to the principal point: fit the widest extent into the frame.
    extent_x = 2 * np.max(np.abs(xy[:, 0]))
    extent_y = 2 * np.max(np.abs(xy[:, 1]))
    f = pose.fill * min(w / extent_x, h / extent_y)
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    dist = np.array([pose.k1, pose.k2, 0.0, 0.0, 0.0])
    return Camera(K, dist, R, C)


@functools.lru_cache(maxsize=8)
def _ideal_grid(K_key: tuple, dist_key: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """For every sensor pixel, the ideal (undistorted) pixel it sees; computed on a coarse grid and
    interpolated, since distortion is smooth. And the pixels beyond the lens's image circle (None: none).

    OpenCV's radial model bends back past the radius where its distortion stops growing: a strong barrel lens
    over a wide frame would show the scene folded back in the frame's corners (a second copy of the board's
    edge, its markers included). No lens does; past that radius the sensor sees the lens's barrel, dark."""
    K = np.array(K_key).reshape(3, 3)
    dist = np.array(dist_key)
    w, h = FRAME_SIZE
    step = 8
    # Sample at the centre of every step x step block: cv2.resize maps block centres onto those pixels
    # exactly (sampling at the blocks' corners shifted the whole picture by (step - 1) / 2 pixels against
    # the camera model, and so against the truth's homography).
    bx, by = -(-w // step), -(-h // step)
    gx, gy = np.meshgrid((np.arange(bx) * step + (step - 1) / 2).astype(np.float32),
                         (np.arange(by) * step + (step - 1) / 2).astype(np.float32))
    pts = np.stack([gx, gy], axis=-1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(pts, K, dist, P=K).reshape(by, bx, 2)
    circle = _mend_far_out(ideal, np.stack([gx, gy], axis=-1), K, dist)
    full_x = cv2.resize(ideal[..., 0], (bx * step, by * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
    full_y = cv2.resize(ideal[..., 1], (bx * step, by * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
    outside = None
    if circle is not None:
        yy, xx = np.ogrid[:h, :w]
        outside = np.hypot((xx - K[0, 2]) / K[0, 0], (yy - K[1, 2]) / K[1, 1]) >= circle
    return full_x, full_y, outside if outside is not None and outside.any() else None


def _mend_far_out(ideal: np.ndarray, sensor: np.ndarray, K: np.ndarray, dist: np.ndarray) -> float | None:
    """Mends ``ideal`` (in place) where OpenCV's iterations did not land on the point that distorts to the
    ``sensor`` pixel, or landed past the fold (far out, where the distortion is strong), by inverting the
    radial model along its rising part; returns the image circle's radius (normalised: the most that part
    reaches), None if all landed well."""
    k1, k2 = float(dist[0]), float(dist[1])
    f, (cx, cy) = K[0, 0], (K[0, 2], K[1, 2])
    r2 = ((ideal[..., 0] - cx) ** 2 + (ideal[..., 1] - cy) ** 2) / (f * f)
    radius = np.linspace(0.0, 4.0, 40001)
    distorted = radius * (1 + k1 * radius ** 2 + k2 * radius ** 4)
    falls = np.flatnonzero(np.diff(distorted) <= 0)
    rising = falls[0] + 1 if len(falls) else len(radius)
    radius, distorted = radius[:rising], distorted[:rising]
    # (off: not landed, or landed on the part that bends back, which no ray reaches first)
    landed = LensModel(K, dist, FRAME_SIZE).distort_points(ideal)
    off = (np.hypot(*(landed - sensor).transpose(2, 0, 1)) > 0.05) | (r2 > radius[-1] ** 2)
    if not off.any():
        return None
    sx, sy = (sensor[..., 0] - cx) / f, (sensor[..., 1] - cy) / f
    seen = np.hypot(sx, sy)
    scale = np.interp(seen, distorted, radius) / np.maximum(seen, 1e-12)
    ideal[..., 0] = np.where(off, sx * scale * f + cx, ideal[..., 0])
    ideal[..., 1] = np.where(off, sy * scale * f + cy, ideal[..., 1])
    return float(distorted[-1])


def warp_to_frame(texture: np.ndarray, texture_from_mm: np.ndarray, camera: Camera,
                  border: tuple[int, int, int]) -> np.ndarray:
    """Image the board-plane ``texture`` (pixels = ``texture_from_mm`` @ mm) through ``camera``."""
    w, h = FRAME_SIZE
    frame_from_texture = camera.homography @ np.linalg.inv(texture_from_mm)
    if not camera.dist.any():
        return cv2.warpPerspective(texture, frame_from_texture, (w, h), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    ix, iy, outside = _ideal_grid(tuple(camera.K.ravel()), tuple(camera.dist.ravel()))
    T = np.linalg.inv(frame_from_texture)
    den = T[2, 0] * ix + T[2, 1] * iy + T[2, 2]
    mx = ((T[0, 0] * ix + T[0, 1] * iy + T[0, 2]) / den).astype(np.float32)
    my = ((T[1, 0] * ix + T[1, 1] * iy + T[1, 2]) / den).astype(np.float32)
    frame = cv2.remap(texture, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                      borderValue=border)
    if outside is not None:
        frame[outside] = 0.0  # (the lens's barrel)
    return frame
