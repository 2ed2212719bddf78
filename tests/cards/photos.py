"""Card images kept with the tests (``data/FOLDER/NAME.webp``, lossless): cards as the reader cut them from
rendered frames, and the enrolment photos of their families."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

DATA = Path(__file__).parent / "data"


def card_photo(folder: str, name: str) -> np.ndarray:
    """The BGR image ``data/folder/name.webp``."""
    img = cv2.imread(str(DATA / folder / f"{name}.webp"), cv2.IMREAD_COLOR)
    assert img is not None, f"{folder}/{name}"
    return img
