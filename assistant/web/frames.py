"""The live picture: each frame annotated and encoded (JPEG) once for every viewer, at most 5 times a second,
in a thread of its own, and only while someone is watching; the loop's thread never waits for it, nor is it
asked to do anything for it.

In an Alchemists game the scan area is blacked out (its card places, where the board's homography and the camera's
lens put them);
when the board is not found, the whole picture is coarsened: a camera can still be aimed, no card read.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.annotate import annotate

MAX_FPS = 5.0
WIDTH = 960
QUALITY = 75
MASK_MARGIN_MM = 8.0
BOUNDARY = b"picture"
MARKER_SEEN = (255, 255, 0)  # BGR cyan: a marker seen while the board is not found
ENCODER_NICE = 10


@dataclass(frozen=True)
class Encoded:
    index: int
    jpeg: bytes
    light: int              # mean brightness of the frame, percent of white
    why: str | None         # why the board is not found (None when it is)

    @functools.cached_property
    def part(self) -> bytes:
        """The picture as one part of the ``/live.mjpg`` stream, made once for every viewer."""
        return (b"Content-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(self.jpeg) + self.jpeg
                + b"\r\n--" + BOUNDARY + b"\r\n")  # the boundary right after: a browser shows a part then


def picture(seen: Any, private: bool, markers: dict[int, np.ndarray] | None = None) -> np.ndarray:
    """The frame with the readings drawn, the scan area masked when ``private``, at most ``WIDTH`` wide (BGR);
    ``markers`` (id -> corners in the frame's pixels), the markers seen while the board is not found, outlined
    with their ids so that the camera can be aimed.

    Scaled first, then drawn at the size it is shown (the boards' homographies scaled with it): drawing on the
    camera's frame and scaling after cost three times the CPU (two full-size copies) for fainter lines."""
    frame, readings = seen.frame, seen.readings
    h, w = frame.shape[:2]
    if w > WIDTH:  # linear: INTER_AREA at this 4:3 ratio costs five times the CPU (cv2's threads beside the loop)
        scale = WIDTH / w
        frame = cv2.resize(frame, (WIDTH, round(h * scale)), interpolation=cv2.INTER_LINEAR)
        readings = [(layout, _scaled(reading, scale)) for layout, reading in readings]
    out = frame
    for layout, reading in readings:
        out = annotate(out, layout, reading)
    out = mask_cards(out, readings) if private else out
    scale = out.shape[1] / w
    for marker, corners in (markers or {}).items():
        pts = np.round(corners * scale).astype(np.int32)
        cv2.polylines(out, [pts], True, MARKER_SEEN, 2, cv2.LINE_AA)
        x, y = pts.min(axis=0)
        cv2.putText(out, str(marker), (int(x), max(12, int(y) - 6)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, MARKER_SEEN, 2,
                    cv2.LINE_AA)
    return out


def _scaled(reading: Any, scale: float) -> Any:
    """``reading`` as drawn on its frame scaled by ``scale``: its homography scaled, and its lens too (the lens
    bends the frame's own pixels: a point is bent, then scaled, which is the same as scaling the lens's focal
    length and centre with the picture; the private masks would otherwise miss the card places)."""
    if reading.homography is None:
        return reading
    s = np.diag([scale, scale, 1.0])
    lens = reading.lens
    if lens is not None:
        w, h = lens.image_size
        lens = dataclasses.replace(lens, matrix=s @ lens.matrix, image_size=(round(w * scale), round(h * scale)))
    return dataclasses.replace(reading, homography=s @ reading.homography, lens=lens)


def mask_cards(image: np.ndarray, readings: list[tuple[Any, Any]]) -> np.ndarray:
    """Every card place blacked out; the whole picture coarsened when a board with card places is not found."""
    out = image.copy()
    for layout, reading in readings:
        zones = [z for z in layout.zones if z.kind == "card"]
        if not zones:
            continue
        if not reading.board_found or reading.homography is None:  # cannot place it: nothing may be readable
            h, w = out.shape[:2]
            small = cv2.resize(out, (max(1, w // 32), max(1, h // 32)), interpolation=cv2.INTER_AREA)
            return cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)
        for z in zones:
            left, top, right, bottom = z.bounds
            m = MASK_MARGIN_MM
            corners = np.array([[[left - m, top - m], [right + m, top - m], [right + m, bottom + m],
                                 [left - m, bottom + m]]], np.float64)
            pts = reading.to_frame(corners[0]).astype(np.int32)
            cv2.fillPoly(out, [pts], (40, 40, 40))
            x, y = pts.mean(axis=0).astype(int)
            cv2.putText(out, "private", (int(x) - 45, int(y)), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (200, 200, 200), 2,
                        cv2.LINE_AA)
    return out


def seen_markers(seen: Any) -> dict[int, np.ndarray]:
    """The markers in the frame, looked for only when the board is not found (then they say why)."""
    if seen.board_found:
        return {}
    from vision.locate import detect_markers

    return detect_markers(seen.frame)


def why_not_found(seen: Any, markers: dict[int, np.ndarray] | None = None) -> str | None:
    if seen.board_found:
        return None
    found = len(seen_markers(seen) if markers is None else markers)
    expected = sum(len(layout.markers) for layout, _ in seen.readings)
    where = f" ({', '.join(seen.missing)})" if seen.missing else ""
    if found == 0:
        return f"board not found{where}: no marker seen (is the camera above the board, the light on?)"
    return (f"board not found{where}: {found} of {expected} markers seen; uncover the others or store the corners "
            f"in the set-up")


def encode(seen: Any, private: bool) -> Encoded:
    markers = seen_markers(seen)
    image = picture(seen, private, markers)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    if not ok:
        raise OSError("cannot encode the live picture")
    return Encoded(seen.index, data.tobytes(), light(seen.frame), why_not_found(seen, markers))


def light(frame: np.ndarray) -> int:
    """The frame's mean brightness, percent of white (from every 8th pixel of every 8th row: a mean needs no
    more, and the full frame would cost more than the picture)."""
    return round(float(cv2.cvtColor(np.ascontiguousarray(frame[::8, ::8]), cv2.COLOR_BGR2GRAY).mean()) / 2.55)


def give_way() -> None:
    """The calling thread (the encoder's, the server's) gives way to the loop's when they want the same core
    (Linux: a thread's own nice value); a picture or a status late by a few milliseconds is not seen, a frame
    read late is."""
    with contextlib.suppress(OSError, AttributeError):  # elsewhere: the same priority as the loop
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + ENCODER_NICE))


class LiveFrames:
    """The latest encoded picture, kept fresh while someone watches the stream (``/live.mjpg``).

    The encoder looks for a new frame ``max_fps`` times a second rather than being woken by every frame: the
    loop's thread never signals it, and the server's thread stays asleep between pictures. The viewers all
    await one future per picture (:meth:`next`), resolved once for all of them: a viewer costs one write a
    picture, no timer and no task of its own."""

    def __init__(self, hub: Any, max_fps: float = MAX_FPS, repeat_s: float = 1.0):
        self.hub = hub
        self.period = 1.0 / max_fps
        self.repeat_s = repeat_s
        self.latest: Encoded | None = None
        self.viewers = 0
        self.encoded = 0
        self._next: asyncio.Future | None = None
        self._encoding = asyncio.Lock()  # the stream's refresh and a /live.jpg at once: still one encoding
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="web-jpeg", initializer=give_way)

    def next(self) -> asyncio.Future:
        """The next picture (or the same one again after ``repeat_s`` without a new one: a browser shows a
        stream's picture when the next part comes)."""
        if self._next is None or self._next.done():
            self._next = asyncio.get_running_loop().create_future()
        return self._next

    def _tell(self, picture: Encoded) -> None:
        if self._next is not None and not self._next.done():
            self._next.set_result(picture)

    async def run(self, publish) -> None:
        loop = asyncio.get_running_loop()
        told = loop.time()
        while True:
            await asyncio.sleep(self.period)
            if self.viewers > 0:
                before = self.latest
                await self.refresh(publish)
                if self.latest is not before:
                    told = loop.time()
                elif self.latest is not None and loop.time() - told >= self.repeat_s:
                    self._tell(self.latest)
                    told = loop.time()

    async def refresh(self, publish=None) -> Encoded | None:
        """Encode the latest frame if it is newer than the picture kept; tell the viewers."""
        async with self._encoding:
            seen = self.hub.seen
            if seen is None or (self.latest is not None and self.latest.index == seen.index):
                return self.latest
            loop = asyncio.get_running_loop()
            self.latest = await loop.run_in_executor(self._executor, encode, seen, bool(self.hub.private_zones))
            self.encoded += 1
        self._tell(self.latest)
        if publish is not None:
            fps = self.hub.fps
            publish("frame", {"n": self.latest.index, "light": self.latest.light, "why": self.latest.why,
                              "board_found": seen.board_found, "fps": None if fps is None else round(fps, 1)})
        return self.latest

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
