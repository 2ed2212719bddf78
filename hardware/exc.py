"""Every exception the hardware package raises, in one place (as gpiozero keeps its own in ``exc``).

A device that is missing or fails is an ``OSError`` (the command line prints its message on one line); a
bad setting is a ``ValueError``. Catch ``HardwareError`` to catch both kinds.
"""

from __future__ import annotations


class HardwareError(Exception):
    """Base of every error raised by ``hardware``."""


class BadSetting(HardwareError, ValueError):
    """A device setting that cannot work (a pin out of range, an unknown model, a negative size)."""


class DeviceUnavailable(HardwareError, OSError):
    """The device is absent, busy or unplugged, or failed while in use."""


class DriverMissing(DeviceUnavailable):
    """The Python driver for a real backend is not installed (``pip install '.[pi]'`` brings it)."""

    def __init__(self, backend: str, module: str, hint: str):
        super().__init__(f"{backend}: the driver module {module!r} is not installed ({hint})")
        self.backend = backend
        self.module = module


class DriverBroken(DeviceUnavailable):
    """The driver is installed but cannot be imported (built against another numpy, a library missing):
    no retry can mend it, the installation must be."""

    def __init__(self, backend: str, module: str, error: BaseException, hint: str):
        reason = " ".join(str(error).split()) or type(error).__name__
        super().__init__(f"{backend}: the driver module {module!r} is installed but does not import ({reason}): "
                         f"{hint}")
        self.backend = backend
        self.module = module


class SourceFailed(DeviceUnavailable):
    """A camera source could not give a frame (camera unplugged, device busy, file unreadable)."""


class DeviceClosed(HardwareError, RuntimeError):
    """A device was used after ``close()``."""
