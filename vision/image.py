"""Reading frames from files, with one-line errors."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.files import image_bytes


def load_frame(path: str | Path) -> np.ndarray:
    """A BGR uint8 image; OSError ``FILE: ...`` if missing, not a regular file, larger than the pixel limit
    (checked from the header, before decoding: ``calibration.files``) or not an image OpenCV can decode."""
    path = Path(path)
    if not path.exists():
        raise OSError(f"{path}: no such file")
    try:
        data = np.frombuffer(image_bytes(path), np.uint8)
    except ValueError as e:
        raise OSError(str(e)) from None
    try:
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error:  # a header Pillow accepted but OpenCV's decoder does not
        frame = None
    if frame is None:
        raise OSError(f"{path}: not a readable image (corrupt, or not PNG/JPEG/BMP)")
    return frame


def save_image(path: str | Path, image: np.ndarray) -> Path:
    """Write a picture; OSError ``FILE: ...`` for a name OpenCV has no writer for, a folder, or a failure
    (OpenCV raises its own error for an unknown extension, which is the user's mistake, not a crash)."""
    path = Path(path)
    if path.is_dir():
        raise OSError(f"{path}: a folder; give a file name ending in .png or .jpg")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        written = cv2.imwrite(str(path), image)
    except cv2.error:
        written = False
    if not written:
        raise OSError(f"{path}: cannot write the picture (use .png or .jpg)")
    return path
