"""OpenCV's thread count set for a while and given back after (the setting is the process's)."""

from __future__ import annotations

import contextlib

import cv2


@contextlib.contextmanager
def opencv_threads(n: int = 1):
    """OpenCV on ``n`` threads inside the block; the process's setting given back after, also on an error. The card
    places are read on one (``vision.cards.zones``), and ``bench vision`` counts the read budget in single-threaded
    warps."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(n)
    try:
        yield
    finally:
        cv2.setNumThreads(threads)
