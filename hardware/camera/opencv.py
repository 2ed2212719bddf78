"""OpenCV sources: ``VideoCapture`` on a USB camera or stream, and a video file read frame by frame."""

from __future__ import annotations

from pathlib import Path

import cv2

from hardware.camera import Frame, Source, as_bgr
from hardware.camera.settings import CaptureSettings
from hardware.clock import Clock, MonotonicClock
from hardware.exc import SourceFailed


def _quiet_open(device: int | str) -> cv2.VideoCapture:
    """Open without OpenCV's console warnings for an absent device: the failure is reported in one line."""
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    try:
        return cv2.VideoCapture(device)
    finally:
        cv2.utils.logging.setLogLevel(level)


def capture_properties(settings: CaptureSettings) -> list[tuple[int, float]]:
    """What a USB camera is asked for, in this order. MJPG first: V4L2 picks the size within the format, and
    uncompressed YUYV at 1280x960 gives most webcams 5 to 8 fps over USB 2. Then one buffer: by default V4L2
    queues four, and a loop slower than the camera reads frames a few hundred milliseconds old (a hand that
    has left the table still seen)."""
    width, height = settings.size
    return [(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG")), (cv2.CAP_PROP_FRAME_WIDTH, width),
            (cv2.CAP_PROP_FRAME_HEIGHT, height), (cv2.CAP_PROP_FPS, settings.fps), (cv2.CAP_PROP_BUFFERSIZE, 1)]


class VideoCaptureSource(Source):
    """A live camera: ``device`` is an index (``0`` for /dev/video0) or a stream URL. Timestamps are the
    clock's at capture. A failed grab raises ``SourceFailed`` (wrap it in ``Retrying`` to ride it out)."""

    def __init__(self, device: int | str, settings: CaptureSettings, *, clock: Clock | None = None):
        super().__init__()
        self.name = f"opencv {device}"
        self.clock = clock or MonotonicClock()
        self._capture = _quiet_open(device)
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceFailed(f"{self.name}: cannot open the camera (absent, or busy in another program?)")
        for prop, value in capture_properties(settings):
            self._capture.set(prop, value)

    def _read(self) -> Frame | None:
        ok, frame = self._capture.read()
        if not ok or frame is None:
            raise SourceFailed(f"{self.name}: no frame (camera unplugged or busy?)")
        return self.clock.now(), as_bgr(frame)

    def _release(self) -> None:
        self._capture.release()


class VideoFileSource(Source):
    """A recorded video: frame i at ``i / fps`` of the file (10 fps if the file does not say)."""

    def __init__(self, path: str | Path):
        super().__init__()
        self.path = Path(path)
        self.name = f"video {self.path}"
        if not self.path.is_file():
            raise SourceFailed(f"{self.path}: no such video file")
        self._capture = _quiet_open(str(self.path))
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceFailed(f"{self.path}: not a video OpenCV can read")
        fps = self._capture.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 10.0
        self._index = 0

    def _read(self) -> Frame | None:
        ok, frame = self._capture.read()
        if not ok or frame is None:
            return None
        t = self._index / self.fps
        self._index += 1
        return t, as_bgr(frame)

    def _release(self) -> None:
        self._capture.release()
