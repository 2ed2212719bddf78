"""Camera sources: one iterator of ``(timestamp_s, frame)`` with ``frame`` a BGR ``uint8`` array (H, W, 3).

Backends: picamera2 (the Pi camera), OpenCV ``VideoCapture`` (USB camera or stream), an image folder, a
video file. Live cameras are wrapped in :class:`hardware.camera.retry.Retrying`: a camera that is unplugged
or busy is reported and reopened with back-off, never a crash.

>>> import numpy as np, cv2, tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> for i in range(3):
...     _ = cv2.imwrite(str(folder / f"frame{i}.png"), np.full((8, 8, 3), i, np.uint8))
>>> with open_source("folder", path=str(folder), fps=4) as source:
...     [(t, int(frame[0, 0, 0])) for t, frame in source]
[(0.0, 0), (0.25, 1), (0.5, 2)]
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator

import numpy as np

from hardware import platform
from hardware.clock import Clock
from hardware.exc import BadSetting, DeviceClosed

Frame = tuple[float, np.ndarray]
SOURCES = ("auto", "picamera2", "opencv", "folder", "video")


class Source(ABC):
    """Base of every source: ``read()`` gives the next frame, ``None`` at the end, or raises ``SourceFailed``."""

    name = "source"

    def __init__(self):
        self._closed = False

    def read(self) -> Frame | None:
        if self._closed:
            raise DeviceClosed(f"{self.name} is closed")
        return self._read()

    @abstractmethod
    def _read(self) -> Frame | None:
        """The next frame from the device, or None when a recording has ended."""

    def __iter__(self) -> Iterator[Frame]:
        while True:
            item = self.read()
            if item is None:
                return
            yield item

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._release()

    def _release(self) -> None:  # an optional hook: most devices have nothing to release
        return None

    def relock(self) -> bool:
        """Let exposure and white balance settle again (the light changed); False when the source has no
        automatic loops to run (files, USB cameras)."""
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def as_bgr(image: np.ndarray) -> np.ndarray:
    """Any 8-bit image as 3-channel BGR (grey is repeated, a 4th channel dropped)."""
    if image.ndim == 2:
        return np.repeat(image[:, :, None], 3, axis=2)
    if image.shape[2] == 4:
        return np.ascontiguousarray(image[:, :, :3])
    if image.shape[2] == 1:
        return np.repeat(image, 3, axis=2)
    return image


def resolve_source(source: str, path: str = "") -> str:
    """``auto``: the path if one is given, else the Pi camera on a Pi that has picamera2, else OpenCV."""
    if source not in SOURCES:
        raise BadSetting(f"camera source must be one of {', '.join(SOURCES)}, not {source!r}")
    if source != "auto":
        return source
    if path:
        return "folder" if os.path.isdir(path) else "video"
    if platform.is_raspberry_pi() and platform.has_module("picamera2"):
        return "picamera2"
    return "opencv"


def open_source(source: str = "auto", *, device: int | str = 0, path: str = "", width: int = 1280,
                height: int = 960, fps: float = 10.0, settle_s: float = 2.0, lock: bool = True,
                clock: Clock | None = None, report: Callable[[str], None] | None = None,
                heartbeat: Callable[[], None] | None = None, max_failures: int | None = None) -> Source:
    """Open the configured source. Live cameras come wrapped in retries; files fail at once if unusable."""
    from hardware.camera.settings import table_settings

    kind = resolve_source(source, path)
    if kind == "folder":
        from hardware.camera.folder import FolderSource
        return FolderSource(path, fps=fps, report=report)
    if kind == "video":
        from hardware.camera.opencv import VideoFileSource
        return VideoFileSource(path)
    from hardware.camera.retry import Retrying
    settings = table_settings(width, height, fps, settle_s, lock)
    if kind == "picamera2":
        from hardware.camera.picamera import PiCameraSource
        camera = int(device) if isinstance(device, int) else 0

        def opener() -> Source:
            return PiCameraSource(settings, camera_num=camera, clock=clock)

        name = f"picamera2 camera {camera}"
    else:
        from hardware.camera.opencv import VideoCaptureSource

        def opener() -> Source:
            return VideoCaptureSource(device, settings, clock=clock)

        name = f"opencv {device}"
    return Retrying(opener, name=name, clock=clock, report=report, heartbeat=heartbeat, max_failures=max_failures)
