"""Reading frames from files, with one-line errors."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def load_frame(path: str | Path) -> np.ndarray:
    """A BGR uint8 image; OSError ``FILE: ...`` if missing or not an image OpenCV can decode."""
    path = Path(path)
    if not path.is_file():
        raise OSError(f"{path}: no such file")
    data = np.fromfile(str(path), np.uint8)
    frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if frame is None:
        raise OSError(f"{path}: not a readable image (corrupt, or not PNG/JPEG/BMP)")
    return frame
