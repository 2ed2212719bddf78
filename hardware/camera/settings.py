"""Capture settings as plain data, built by helpers and turned into picamera2's configuration in one place.

>>> s = table_settings(width=1280, height=960, fps=10)
>>> picamera2_kwargs(s)["main"]
{'size': (1280, 960), 'format': 'RGB888'}
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from hardware.exc import BadSetting

# picamera2's "RGB888" is stored B, G, R per pixel: exactly OpenCV's BGR, three channels, no alpha to drop.
FORMAT = "RGB888"
MAX_SIZE = (4608, 3456)  # the largest Pi camera sensor (Camera Module 3); a table needs far less


@dataclass(frozen=True)
class CaptureSettings:
    size: tuple[int, int] = (1280, 960)
    fps: float = 10.0
    settle_s: float = 2.0  # auto exposure and white balance run this long, then are locked
    lock: bool = True
    buffer_count: int = 4
    format: str = FORMAT

    def as_dict(self) -> dict:
        return asdict(self)


def table_settings(width: int = 1280, height: int = 960, fps: float = 10.0, settle_s: float = 2.0,
                   lock: bool = True) -> CaptureSettings:
    """Settings for watching the table: a modest main stream (the reading needs ~1 px per mm, not more)."""
    if not (16 <= width <= MAX_SIZE[0] and 16 <= height <= MAX_SIZE[1]) or width % 2 or height % 2:
        raise BadSetting(f"camera size {width}x{height} must be even and between 16x16 and "
                         f"{MAX_SIZE[0]}x{MAX_SIZE[1]}")
    if not 0 < fps <= 120:
        raise BadSetting(f"camera fps must be between 0 and 120, not {fps!r}")
    if settle_s < 0:
        raise BadSetting(f"camera settle time cannot be negative ({settle_s!r})")
    return CaptureSettings(size=(width, height), fps=float(fps), settle_s=float(settle_s), lock=bool(lock))


def picamera2_kwargs(settings: CaptureSettings) -> dict:
    """Arguments for ``Picamera2.create_video_configuration``."""
    return {
        "main": {"size": settings.size, "format": settings.format},
        "controls": {"FrameRate": settings.fps},
        "buffer_count": settings.buffer_count,
    }


def locked_controls(metadata: dict) -> dict:
    """Controls that freeze exposure and white balance where the automatic loops settled."""
    try:
        return {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": int(metadata["ExposureTime"]),
            "AnalogueGain": float(metadata["AnalogueGain"]),
            "ColourGains": tuple(float(g) for g in metadata["ColourGains"]),
        }
    except KeyError as e:
        raise BadSetting(f"camera metadata has no {e.args[0]}: cannot lock exposure") from None


# Back to automatic exposure, gain and white balance. Current libcamera ignores AeEnable (picamera2 #1269): what
# returns exposure and gain to auto is clearing them, ExposureTime = 0 and AnalogueGain = 0, which picamera2
# turns into ExposureTimeMode / AnalogueGainMode "auto" (picamera2 #1255); older libcamera took 0 as auto too.
UNLOCK = {"AeEnable": True, "AwbEnable": True, "ExposureTime": 0, "AnalogueGain": 0.0}


def supported(controls: dict, available) -> dict:
    """``controls`` without those the camera does not advertise (picamera2 refuses an unknown control)."""
    return dict(controls) if available is None else {k: v for k, v in controls.items() if k in available}
