"""A folder of images as a camera: files in natural order (frame2 before frame10).

Timestamps come from a sidecar file ``timestamps.txt`` in the folder (one ``NAME SECONDS`` per line,
``#`` comments, comma or spaces between), or else from a fixed rate: frame i at ``i / fps``.
A file that is not an image is reported and skipped, and so is one whose header claims more pixels than
``ALCHEMY_TABLE_MAX_PIXELS`` (50 million; the limit of every image the program reads, calibration.files,
which hardware does not import): a 1 MB PNG can claim 20000 x 20000 and take gigabytes to decode.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import cv2

from hardware.camera import Frame, Source, as_bgr
from hardware.exc import BadSetting, SourceFailed

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
SIDECAR = "timestamps.txt"


def _max_pixels() -> int:
    try:
        return int(float(os.environ.get("ALCHEMY_TABLE_MAX_PIXELS") or 50_000_000))
    except ValueError:
        return 50_000_000


def _header_pixels(path: Path) -> int | None:
    """Width x height as the file's header says (Pillow reads the header only), None if it cannot tell."""
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                return image.size[0] * image.size[1]
    except Image.DecompressionBombError:
        return _max_pixels() + 1
    except Exception:  # not an image Pillow knows: OpenCV decides, as before
        return None


def natural_key(name: str):
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def read_sidecar(path: Path) -> dict[str, float]:
    """``{file name: seconds}``; errors are ``FILE:line: what is wrong``."""
    times: dict[str, float] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.replace(",", " ").split()
        if len(parts) != 2:
            raise BadSetting(f"{path}:{number}: expected 'NAME SECONDS', got {line!r}")
        try:
            times[parts[0]] = float(parts[1])
        except ValueError:
            raise BadSetting(f"{path}:{number}: {parts[1]!r} is not a number of seconds") from None
    return times


class FolderSource(Source):
    def __init__(self, path: str | Path, *, fps: float = 10.0, report: Callable[[str], None] | None = None):
        super().__init__()
        self.path = Path(path)
        self.name = f"folder {self.path}"
        if not self.path.is_dir():
            raise SourceFailed(f"{self.path}: not a folder of images")
        if fps <= 0:
            raise BadSetting(f"{self.path}: fps must be positive, not {fps!r}")
        self.files = sorted((p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES),
                            key=lambda p: natural_key(p.name))
        if not self.files:
            raise SourceFailed(f"{self.path}: no images (.png, .jpg, ...) in this folder")
        sidecar = self.path / SIDECAR
        self.times = read_sidecar(sidecar) if sidecar.exists() else None
        if self.times is not None:
            missing = [p.name for p in self.files if p.name not in self.times]
            if missing:
                raise BadSetting(f"{sidecar}: no timestamp for {missing[0]}")
        self.fps = fps
        self.report = report or (lambda message: None)
        self._next = 0

    def __len__(self) -> int:
        return len(self.files)

    def _read(self) -> Frame | None:
        while self._next < len(self.files):
            index, path = self._next, self.files[self._next]
            self._next += 1
            if not path.is_file():  # a FIFO would hang the decoder
                self.report(f"{path}: not a regular file, skipped")
                continue
            pixels = _header_pixels(path)
            if pixels is not None and pixels > _max_pixels():
                self.report(f"{path}: {pixels} pixels, more than the limit of {_max_pixels()}, skipped")
                continue
            image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            if image is None:
                self.report(f"{path}: not a readable image, skipped")
                continue
            if image.dtype != "uint8":
                image = cv2.convertScaleAbs(image, alpha=255.0 / max(1, int(image.max())))
            t = self.times[path.name] if self.times is not None else index / self.fps
            return t, as_bgr(image)
        return None
