"""The Raspberry Pi camera through picamera2 (apt ``python3-picamera2``; a venv with system packages).

One video configuration built from :class:`CaptureSettings`; frames come from the main stream in
``RGB888`` (B, G, R in memory: OpenCV's order). Automatic exposure and white balance run for
``settle_s``, then are locked where they settled, so that a hand or a dark card does not shift the colours
of the pieces; ``relock()`` lets them settle again (after the room's light changed). The camera is always
closed: on ``close()``, on leaving a ``with`` block, and at interpreter exit otherwise.
"""

from __future__ import annotations

import weakref

from hardware.camera import Frame, Source, as_bgr
from hardware.camera.settings import UNLOCK, CaptureSettings, locked_controls, picamera2_kwargs, supported
from hardware.clock import Clock, MonotonicClock
from hardware.exc import DriverBroken, DriverMissing, SourceFailed

HINT = "sudo apt install python3-picamera2, and make the venv with --system-site-packages"
# Raspberry Pi OS builds its camera stack (picamera2, simplejpeg) against its own numpy 1.x: a venv that pulled
# numpy 2 breaks it with "numpy.dtype size changed". install.sh installs with systemd/constraints-bookworm.txt.
BROKEN_HINT = ("the venv's numpy is not the one the apt camera stack was built for; reinstall with "
               "sudo systemd/install.sh, or pip install -c systemd/constraints-bookworm.txt '.[pi]'")


def _close_camera(camera) -> None:
    try:
        camera.stop()
    finally:
        camera.close()


def import_picamera2():
    """picamera2's ``Picamera2`` class, or one line saying why not: absent, or present but broken."""
    try:
        from picamera2 import Picamera2
    except ModuleNotFoundError as e:
        if e.name in ("picamera2", "libcamera"):
            raise DriverMissing("picamera2", "picamera2", HINT) from None
        raise DriverBroken("picamera2", "picamera2", e, BROKEN_HINT) from e
    except (ImportError, ValueError, AttributeError, RuntimeError) as e:
        raise DriverBroken("picamera2", "picamera2", e, BROKEN_HINT) from e
    return Picamera2


class PiCameraSource(Source):
    def __init__(self, settings: CaptureSettings, *, camera_num: int = 0, clock: Clock | None = None):
        super().__init__()
        self.name = f"picamera2 camera {camera_num}"
        self.settings = settings
        self.clock = clock or MonotonicClock()
        Picamera2 = import_picamera2()
        try:
            self._camera = Picamera2(camera_num)
        except (RuntimeError, IndexError, OSError) as e:
            raise SourceFailed(f"{self.name}: cannot open the camera ({e})") from e
        self._finalizer = weakref.finalize(self, _close_camera, self._camera)
        try:
            self._camera.configure(self._camera.create_video_configuration(**picamera2_kwargs(settings)))
            self._camera.start()
        except (RuntimeError, OSError, ValueError) as e:
            self._finalizer()
            raise SourceFailed(f"{self.name}: cannot start the camera ({e})") from e
        self.locked: dict | None = None
        self._settle_from = self.clock.now()

    def _read(self) -> Frame | None:
        try:
            request = self._camera.capture_request()
            try:
                frame = request.make_array("main")
                metadata = request.get_metadata()
            finally:
                request.release()
        except (RuntimeError, OSError) as e:
            raise SourceFailed(f"{self.name}: capture failed ({e})") from e
        now = self.clock.now()
        if self.settings.lock and self.locked is None and now - self._settle_from >= self.settings.settle_s:
            self.lock(metadata)
        stamp = metadata.get("SensorTimestamp")
        return (stamp / 1e9 if stamp else now), as_bgr(frame)

    def lock(self, metadata: dict | None = None) -> dict:
        """Freeze exposure and white balance at the values in ``metadata`` (default: the latest frame's)."""
        controls = locked_controls(metadata if metadata is not None else self._camera.capture_metadata())
        controls = supported(controls, getattr(self._camera, "camera_controls", None))
        self._camera.set_controls(controls)
        self.locked = controls
        return controls

    def relock(self) -> bool:
        """Let the automatic loops run again (exposure and gain cleared, not only AeEnable: see
        ``settings.UNLOCK``); the next settle period ends in a new lock."""
        self._camera.set_controls(supported(UNLOCK, getattr(self._camera, "camera_controls", None)))
        self.locked = None
        self._settle_from = self.clock.now()
        return True

    def _release(self) -> None:
        self._finalizer()
