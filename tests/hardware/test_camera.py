"""Camera sources over synthetic frames: folder, video file, retries, and picamera2 through a fake module."""

from __future__ import annotations

import sys
import types
from typing import ClassVar

import cv2
import numpy as np
import pytest

from hardware.camera import Source, open_source, resolve_source
from hardware.camera.folder import FolderSource
from hardware.camera.opencv import VideoCaptureSource, VideoFileSource
from hardware.camera.retry import Retrying
from hardware.camera.settings import locked_controls, picamera2_kwargs, table_settings
from hardware.clock import SteppedClock
from hardware.exc import BadSetting, DriverMissing, SourceFailed


def frame(index: int, size=(48, 128)) -> np.ndarray:
    """A small synthetic table: a grey background and a coloured square whose place and colour encode the
    index, so that a frame read back can be told from its neighbours even after compression."""
    h, w = size
    image = np.full((h, w, 3), 120, np.uint8)
    x = 4 + 6 * index
    image[10:30, x:x + 12] = ((37 * index) % 256, 200, 255 - (37 * index) % 256)
    return image


def index_of(image: np.ndarray) -> int:
    column = image[20, :, 1].astype(int)
    x = int(np.argmax(column > 160))
    return (x - 4) // 6


def write_folder(folder, n, names=None, ext=".png"):
    names = names or [f"frame{i}{ext}" for i in range(n)]
    for i, name in enumerate(names):
        assert cv2.imwrite(str(folder / name), frame(i))
    return names


def test_folder_in_natural_order_at_a_fixed_rate(tmp_path):
    # Written out of order, and with frame10 which plain sorting would put before frame2.
    names = [f"frame{i}.png" for i in range(12)]
    for i in (11, 3, 0, 10, 2, 1, 4, 5, 6, 7, 8, 9):
        cv2.imwrite(str(tmp_path / names[i]), frame(i))
    (tmp_path / "notes.txt").write_text("not a frame")
    with FolderSource(tmp_path, fps=5) as source:
        got = list(source)
    assert [t for t, _ in got] == [i / 5 for i in range(12)]
    assert [index_of(f) for _, f in got] == list(range(12))
    assert all(f.shape == (48, 128, 3) and f.dtype == np.uint8 for _, f in got)
    assert np.array_equal(got[3][1], frame(3))  # PNG: exact


def test_folder_timestamps_from_the_sidecar(tmp_path):
    names = write_folder(tmp_path, 3)
    (tmp_path / "timestamps.txt").write_text(
        "# name seconds\n" + "\n".join(f"{n}, {t}" for n, t in zip(names, (0.0, 0.4, 1.25), strict=True)))
    assert [t for t, _ in FolderSource(tmp_path)] == [0.0, 0.4, 1.25]
    (tmp_path / "timestamps.txt").write_text(f"{names[0]} 0\n{names[1]} soon\n")
    with pytest.raises(BadSetting, match=r"timestamps.txt:2: 'soon' is not a number"):
        FolderSource(tmp_path)
    (tmp_path / "timestamps.txt").write_text(f"{names[0]} 0\n")
    with pytest.raises(BadSetting, match=r"no timestamp for frame1\.png"):
        FolderSource(tmp_path)


def test_folder_skips_a_broken_image_with_a_report_and_makes_grey_bgr(tmp_path):
    write_folder(tmp_path, 2)
    (tmp_path / "frame1.png").write_bytes(b"not a png")
    cv2.imwrite(str(tmp_path / "frame2.png"), np.full((8, 8), 77, np.uint8))
    reports = []
    frames = list(FolderSource(tmp_path, report=reports.append))
    assert len(frames) == 2 and frames[1][1].shape == (8, 8, 3) and frames[1][1][0, 0].tolist() == [77] * 3
    assert len(reports) == 1 and "frame1.png: not a readable image, skipped" in reports[0]


def test_folder_errors_are_one_line(tmp_path):
    with pytest.raises(SourceFailed, match="no images"):
        FolderSource(tmp_path)
    with pytest.raises(SourceFailed, match="not a folder"):
        FolderSource(tmp_path / "missing")


def test_video_file_frames_and_timestamps(tmp_path):
    path = tmp_path / "session.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 8.0, (128, 48))
    assert writer.isOpened()
    for i in range(6):
        writer.write(frame(i))
    writer.release()
    with open_source("auto", path=str(path)) as source:
        assert isinstance(source, VideoFileSource)
        got = list(source)
    assert [t for t, _ in got] == [i / 8 for i in range(6)]
    assert [index_of(f) for _, f in got] == list(range(6))
    assert all(f.shape == (48, 128, 3) for _, f in got)


def test_unreadable_video_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\0" * 100)
    with pytest.raises(SourceFailed, match="not a video"):
        VideoFileSource(bad)
    with pytest.raises(SourceFailed, match="no such video"):
        VideoFileSource(tmp_path / "none.mp4")


def test_absent_usb_camera_fails_cleanly():
    with pytest.raises(SourceFailed, match="cannot open the camera"):
        VideoCaptureSource("/nonexistent/video-device", table_settings())


class Flaky(Source):
    """A live source that gives ``good`` frames then fails (a camera pulled out)."""

    def __init__(self, good: int, start: int):
        super().__init__()
        self.good, self.next = good, start
        self.name = "flaky"

    def _read(self):
        if self.good == 0:
            raise SourceFailed("flaky: no frame (camera unplugged or busy?)")
        self.good -= 1
        self.next += 1
        return float(self.next - 1), frame(self.next - 1)


def test_retry_reopens_a_failing_source_with_back_off():
    clock = SteppedClock()
    plan = [SourceFailed("camera 0: busy"), SourceFailed("camera 0: busy"), 2, 3]  # fail, fail, 2 frames, 3 frames
    made = []
    reports = []
    beats = []

    def opener():
        step = plan.pop(0)
        if isinstance(step, Exception):
            raise step
        source = Flaky(step, start=0)
        made.append(source)
        return source

    source = Retrying(opener, name="camera 0", clock=clock, report=reports.append, heartbeat=lambda: beats.append(1),
                      max_failures=5)
    got = [source.read() for _ in range(5)]
    assert [t for t, _ in got] == [0.0, 1.0, 0.0, 1.0, 2.0]
    assert clock.sleeps == [0.5, 1.0, 0.5]  # doubled while failing in a row, back to the start after frames
    assert reports == ["camera 0: busy; retrying in 0.5 s", "camera 0: busy; retrying in 1 s",
                       "camera 0: back after 2 failures",
                       "flaky: no frame (camera unplugged or busy?); retrying in 0.5 s",
                       "camera 0: back after 1 failure"]
    assert len(beats) == 3 and made[0].closed  # the failed source was closed before reopening
    source.close()
    assert made[1].closed


def test_retry_waits_are_capped_and_sliced_for_the_watchdog():
    clock = SteppedClock()
    beats = []

    def opener():
        raise SourceFailed("camera 0: unplugged")

    source = Retrying(opener, clock=clock, heartbeat=lambda: beats.append(clock.now()), max_failures=9,
                      longest_wait_s=4.0)
    assert source.read() is None  # gives up without raising
    assert sum(clock.sleeps) == 0.5 + 1 + 2 + 4 * 5
    assert max(clock.sleeps) <= 1.0 and len(beats) == len(clock.sleeps)


def test_retry_survives_a_driver_that_raises_anything_os_like():
    calls = []

    def opener():
        calls.append(1)
        if len(calls) == 1:
            raise OSError(16, "Device or resource busy")
        return Flaky(1, 0)

    source = Retrying(opener, clock=SteppedClock())
    t, f = source.read()
    assert t == 0.0 and f.shape == (48, 128, 3)


def test_resolve_source():
    assert resolve_source("auto", path="/") == "folder"
    assert resolve_source("auto", path="x.mp4") == "video"
    with pytest.raises(BadSetting, match="camera source"):
        resolve_source("webcam")


def test_capture_settings_are_plain_data():
    s = table_settings(width=1640, height=1232, fps=15, settle_s=1.5)
    assert s.as_dict() == {"size": (1640, 1232), "fps": 15.0, "settle_s": 1.5, "lock": True, "buffer_count": 4,
                           "format": "RGB888"}
    assert picamera2_kwargs(s) == {"main": {"size": (1640, 1232), "format": "RGB888"},
                                   "controls": {"FrameRate": 15.0}, "buffer_count": 4}
    with pytest.raises(BadSetting, match="even"):
        table_settings(width=1281)
    with pytest.raises(BadSetting, match="cannot lock"):
        locked_controls({"ExposureTime": 1000})


class FakeRequest:
    def __init__(self, camera):
        self.camera = camera

    def make_array(self, stream):
        assert stream == "main"
        self.camera.captures += 1
        return frame(self.camera.captures % 8)

    def get_metadata(self):
        return {"SensorTimestamp": 1_000_000_000 * self.camera.captures, "ExposureTime": 12000 + self.camera.captures,
                "AnalogueGain": 2.0, "ColourGains": (1.8, 1.4)}

    def release(self):
        self.camera.released += 1


class FakePicamera2:
    instances: ClassVar[list] = []
    fail_start = False

    def __init__(self, camera_num=0):
        self.camera_num = camera_num
        self.captures = self.released = 0
        self.controls = []
        self.calls = []
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, **kwargs):
        return {"video": kwargs}

    def configure(self, config):
        self.calls.append(("configure", config))

    def start(self):
        if FakePicamera2.fail_start:
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        self.calls.append(("start",))

    def capture_request(self):
        return FakeRequest(self)

    def set_controls(self, controls):
        self.controls.append(controls)

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


@pytest.fixture
def fake_picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    FakePicamera2.instances = []
    FakePicamera2.fail_start = False
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return module


def test_picamera2_configures_settles_locks_and_relocks(fake_picamera2):
    from hardware.camera.picamera import PiCameraSource

    clock = SteppedClock()
    with PiCameraSource(table_settings(640, 480, fps=10, settle_s=2.0), clock=clock) as source:
        cam = FakePicamera2.instances[0]
        assert cam.calls[0] == ("configure", {"video": {"main": {"size": (640, 480), "format": "RGB888"},
                                                        "controls": {"FrameRate": 10.0}, "buffer_count": 4}})
        t, f = source.read()
        assert (t, f.shape) == (1.0, (48, 128, 3)) and cam.controls == []  # still settling
        clock.advance(2.0)
        source.read()
        assert cam.controls == [{"AeEnable": False, "AwbEnable": False, "ExposureTime": 12002,
                                 "AnalogueGain": 2.0, "ColourGains": (1.8, 1.4)}]
        source.read()
        assert len(cam.controls) == 1  # locked once
        source.relock()
        assert cam.controls[-1] == {"AeEnable": True, "AwbEnable": True, "ExposureTime": 0, "AnalogueGain": 0.0}
        source.read()
        clock.advance(2.0)
        source.read()
        assert cam.controls[-1]["ExposureTime"] == 12005 and cam.released == cam.captures == 5
    assert cam.calls[-2:] == [("stop",), ("close",)]
    source.close()
    assert cam.calls.count(("close",)) == 1


def test_picamera2_busy_camera_is_closed_and_retried(fake_picamera2):
    FakePicamera2.fail_start = True
    reports = []
    clock = SteppedClock()
    source = open_source("picamera2", width=640, height=480, clock=clock, report=reports.append, max_failures=2)
    assert source.read() is None
    assert all(cam.calls[-1] == ("close",) for cam in FakePicamera2.instances) and len(FakePicamera2.instances) == 2
    assert reports[0].startswith("picamera2 camera 0: cannot start the camera (Failed to acquire camera")
    FakePicamera2.fail_start = False
    source = open_source("picamera2", width=640, height=480, clock=clock, report=reports.append)
    assert source.read()[1].shape == (48, 128, 3)
    source.close()
    assert FakePicamera2.instances[-1].calls[-1] == ("close",)


def test_picamera2_missing_says_how_to_install(monkeypatch):
    from hardware.camera.picamera import PiCameraSource

    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(DriverMissing, match="python3-picamera2"):
        PiCameraSource(table_settings())


def test_a_folder_source_skips_an_image_bomb_and_a_fifo_with_a_line_each(tmp_path):
    import os
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    cv2.imwrite(str(tmp_path / "1.png"), np.full((8, 8, 3), 10, np.uint8))
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 20000, 20000, 8, 0, 0, 0, 0))
    (tmp_path / "2.png").write_bytes(b"\x89PNG\r\n\x1a\n" + header + chunk(b"IDAT", zlib.compress(b"\x00" * 100)))
    os.mkfifo(tmp_path / "3.png")
    cv2.imwrite(str(tmp_path / "4.png"), np.full((8, 8, 3), 40, np.uint8))
    said = []
    with FolderSource(tmp_path, report=said.append) as source:
        frames = [frame[0, 0, 0] for _, frame in source]
    assert frames == [10, 40]
    assert "more than the limit" in said[0] and "not a regular file" in said[1]
