"""Reading the files users give, guarded: every layout, calibration, record, set-up, config and image goes
through here before it is parsed.

What a file may be, checked before its content is trusted:

- a regular file: a FIFO would hang the reader, ``/dev/zero`` would fill memory, a folder is a mistake;
- at most ``max_file_bytes()`` bytes (data files, 8 MiB unless ``ALCHEMY_TABLE_MAX_FILE_MB`` says otherwise)
  or ``max_image_bytes()`` (images, 64 MiB, ``ALCHEMY_TABLE_MAX_IMAGE_MB``);
- JSON and TOML nested at most ``MAX_DEPTH`` deep (deeper ones end parsers and walkers in RecursionError),
  with finite numbers only (no NaN, no infinities, no 10^400 that overflows a float later: integers at
  most ``MAX_INTEGER``);
- an image at most ``max_pixels()`` pixels (50 megapixels, ``ALCHEMY_TABLE_MAX_PIXELS``), read from its
  header before a pixel is decoded: a 1 MB PNG can claim 20000 x 20000 pixels and take gigabytes to decode.

Every refusal is one line, ``FILE: what is wrong``, raised as the caller's own error type (a ValueError
subclass: ``LayoutError``, ``RecordError``...), so each module keeps its exceptions.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "deep.json"
>>> _ = path.write_text("[" * 100 + "]" * 100)
>>> try:
...     load_json(path)
... except ValueError as e:
...     print(str(e).split(": ", 1)[1])
nested more than 64 deep
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import tomllib
import warnings
from pathlib import Path
from typing import Any

MAX_DEPTH = 64            # the deepest legitimate file (a layout) is 5 deep
MAX_INTEGER = 10 ** 18    # seeds and counts are far below; a float holds it (as an approximation)
DEFAULT_FILE_MB = 8       # the largest legitimate data file (a long game record) is well under 1 MB
DEFAULT_IMAGE_MB = 64     # a 12-megapixel PNG from the Pi camera is about 20 MB
DEFAULT_PIXELS = 50_000_000


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name}: expected a number, got {raw!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name}: expected a number above 0, got {raw!r}")
    return value


def max_file_bytes() -> int:
    return int(_env_number("ALCHEMY_TABLE_MAX_FILE_MB", DEFAULT_FILE_MB) * (1 << 20))


def max_image_bytes() -> int:
    return int(_env_number("ALCHEMY_TABLE_MAX_IMAGE_MB", DEFAULT_IMAGE_MB) * (1 << 20))


def max_pixels() -> int:
    return int(_env_number("ALCHEMY_TABLE_MAX_PIXELS", DEFAULT_PIXELS))


def read_bytes(path: str | os.PathLike[str], limit: int | None = None,
               error: type[Exception] = ValueError) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes (default ``max_file_bytes()``)."""
    path = Path(path)
    limit = max_file_bytes() if limit is None else limit
    try:  # O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        info = os.fstat(fd)
        problem = _not_a_file(info, limit)
        chunks, size = [], 0
        while problem is None and (chunk := os.read(fd, min(1 << 20, limit + 1 - size) or 1)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while being read
                problem = f"more than the limit of {limit} bytes"
    except OSError as e:
        problem = f"cannot read: {e.strerror or e}"
    finally:
        os.close(fd)
    if problem is not None:  # raised here: ``error`` may be OSError itself
        raise error(f"{path}: {problem}")
    return b"".join(chunks)


def _not_a_file(info: os.stat_result, limit: int) -> str | None:
    if stat.S_ISDIR(info.st_mode):
        return "a folder, not a file"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file (a device, a pipe or a socket)"
    if info.st_size > limit:
        return f"{info.st_size} bytes, more than the limit of {limit}"
    return None


def read_text(path: str | os.PathLike[str], limit: int | None = None,
              error: type[Exception] = ValueError) -> str:
    """A UTF-8 text file, guarded as :func:`read_bytes`."""
    raw = read_bytes(path, limit, error)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not a UTF-8 text file (byte {e.start})") from None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]!r} is not finite")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number a file may hold")


def parse_json(text: str, source: str, error: type[Exception] = ValueError) -> Any:
    """JSON text -> data, or ``error("SOURCE: not valid JSON: ...")``; finite numbers, nesting limited."""
    try:
        data = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise error(f"{source}: nested more than {MAX_DEPTH} deep") from None
    except ValueError as e:  # JSONDecodeError, NaN and friends, an integer of more than 4300 digits
        raise error(f"{source}: not valid JSON: {_first_line(e)}") from None
    check_depth(data, source, error)
    return data


def parse_toml(text: str, source: str, error: type[Exception] = ValueError) -> dict[str, Any]:
    """TOML text -> a table, or ``error("SOURCE: not valid TOML: ...")``; finite numbers, nesting limited."""
    try:
        data = tomllib.loads(text, parse_float=_finite)
    except RecursionError:
        raise error(f"{source}: nested more than {MAX_DEPTH} deep") from None
    except ValueError as e:  # TOMLDecodeError, inf and nan, an integer of more than 4300 digits
        raise error(f"{source}: not valid TOML: {_first_line(e)}") from None
    check_depth(data, source, error)
    return data


def load_json(path: str | os.PathLike[str], error: type[Exception] = ValueError) -> Any:
    return parse_json(read_text(path, error=error), str(path), error)


def load_toml(path: str | os.PathLike[str], error: type[Exception] = ValueError) -> dict[str, Any]:
    return parse_toml(read_text(path, error=error), str(path), error)


def load_data(path: str | os.PathLike[str], error: type[Exception] = ValueError) -> Any:
    """TOML for a ``.toml`` file, JSON for anything else."""
    return (load_toml if Path(path).suffix == ".toml" else load_json)(path, error)


def check_depth(data: Any, source: str, error: type[Exception] = ValueError) -> None:
    """Refuse data nested more than ``MAX_DEPTH`` deep (walked without recursion), or holding an integer
    beyond ``MAX_INTEGER`` (10^400 overflows the float every measure becomes)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
            raise error(f"{source}: an integer of {len(str(abs(value)))} digits: no file holds such a number")
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list | tuple):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            raise error(f"{source}: nested more than {MAX_DEPTH} deep")
        stack.extend((child, depth + 1) for child in children)


def image_bytes(path: str | os.PathLike[str], error: type[Exception] = ValueError) -> bytes:
    """An image file's bytes, once its header says it has at most ``max_pixels()`` pixels.

    Pillow's ``Image.open`` reads the header only; nothing is decoded here. A file Pillow cannot identify
    is refused too: the decoder behind (OpenCV) would be trusting a header nobody checked."""
    from PIL import Image, UnidentifiedImageError

    data = read_bytes(path, max_image_bytes(), error)
    limit = max_pixels()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                width, height = image.size
    except Image.DecompressionBombError:  # Pillow's own, looser limit: the header said too much
        raise error(f"{path}: the image is larger than the limit of {limit} pixels") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):  # SyntaxError: a bad header
        raise error(f"{path}: not a readable image (corrupt, or not PNG/JPEG/BMP)") from None
    if width * height > limit:
        raise error(f"{path}: {width} x {height} pixels, more than the limit of {limit} "
                    f"(ALCHEMY_TABLE_MAX_PIXELS)")
    if width < 1 or height < 1:
        raise error(f"{path}: an image of {width} x {height} pixels")
    return data


def _first_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
