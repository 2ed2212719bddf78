"""The service as systemd sees it: READY only once the camera has given a frame, a STATUS line that follows
the table, relocking the camera's exposure when the light changes; and the commands that take a frame
through the live path (``capture``, ``calibrate colours --camera``), and the configured calibration."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

import cv2
import numpy as np
import pytest

from assistant.live.status import LightWatch, Status
from assistant.table import Event


def setup(tmp_path) -> str:
    path = tmp_path / "setup.json"
    path.write_text(json.dumps({"players": 2}))
    return str(path)


def env(tmp_path, **extra):
    return {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": str(tmp_path / "none.toml"),
            "ALCHEMY_TABLE_USER_CONFIG": str(tmp_path / "none.toml"), **extra}


def datagrams(sock, until: bytes, limit: int = 50) -> list[bytes]:
    seen = []
    while len(seen) < limit:
        seen.append(sock.recv(4096))
        if until in seen[-1]:
            break
    return seen


def test_no_ready_while_the_camera_gives_no_frame_and_the_status_says_why(tmp_path):
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(30)
    child = subprocess.Popen([sys.executable, "-m", "assistant", "run", "--game", "chaudron", "--setup",
                              setup(tmp_path), "--simulate", "--set", "buttons.backend=none", "--set",
                              "camera.source=opencv", "--set", "camera.device=/nonexistent/camera", "--set",
                              f"table.state_dir={tmp_path / 'state'}"],
                             env=env(tmp_path, NOTIFY_SOCKET=str(path)), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    try:
        seen = datagrams(sock, b"camera lost")
    finally:
        child.send_signal(signal.SIGTERM)
        child.communicate(timeout=30)
    assert seen[0] == b"STATUS=chaudron: opening the camera"
    assert b"cannot open the camera" in seen[-1] and not any(b"READY=1" in d for d in seen)
    assert child.returncode == 0


def test_ready_comes_with_the_first_frame_then_the_table_status(tmp_path, echo_frames):
    _, rendered = echo_frames
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(60)
    result = subprocess.run([sys.executable, "-m", "assistant", "run", "--game", "chaudron", "--setup", setup(tmp_path),
                             "--simulate", "--set", "buttons.backend=none", "--set", "camera.source=folder", "--set",
                             f"camera.path={rendered.folder}", "--set", f"table.state_dir={tmp_path / 'state'}"],
                            env=env(tmp_path, NOTIFY_SOCKET=str(path)), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    seen = datagrams(sock, b"STOPPING=1")
    ready = next(i for i, d in enumerate(seen) if d.startswith(b"READY=1"))
    assert seen[:ready] == [b"STATUS=chaudron: opening the camera"]
    assert b"STATUS=chaudron: watching the table" in seen[ready:]
    assert "first frame read, 1280x960" in result.stderr
    # (no calibration given: the user is told once that the board is read without its empty board enrolled)
    assert result.stderr.count("chaudron: no empty board enrolled") == 1


def test_status_names_the_missing_board_and_the_end_of_the_game():
    sent = []
    status = Status("alchymia", send=sent.append)
    status.frame({"board_found": False, "missing": ["bea"], "markers_seen": {"bea": "1 of 4"}}, None, ())
    status.frame({"board_found": True}, "motion", ())
    status.frame({"board_found": True}, None, (Event("game-over", "game over after round 7"),))
    status.frame({"board_found": False, "missing": ["bea"]}, None, ())  # over stays over
    assert sent == ["alchymia: board not found (bea: 1 of 4 markers seen); is it in view and lit?",
                    "alchymia: watching the table", "alchymia: game over (turn the game wheel for a new game)"]


def test_the_light_changed_for_good_asks_one_relock_a_passing_hand_none():
    watch = LightWatch(ratio=1.5, frames=30)
    levels = [100.0] * 50 + [45.0] * 20 + [100.0] * 50  # a hand's shadow for 2 s
    assert not any(watch.feed(v) for v in levels)
    lamp = [watch.feed(v) for v in [220.0] * 30]  # a lamp switched on and left on
    assert lamp.count(True) == 1 and lamp[-1]
    # The camera settles again (the level back near mid-grey): the new level is the reference, no relock more.
    assert not any(watch.feed(v) for v in [220.0] * 5 + [160.0] * 10 + [128.0] * 200)


def test_relock_sends_only_the_controls_the_camera_advertises():
    from hardware.camera.picamera import PiCameraSource
    from hardware.camera.settings import UNLOCK, supported

    assert supported(UNLOCK, {"ExposureTime": 0, "AnalogueGain": 0, "AwbEnable": 0}) == {
        "AwbEnable": True, "ExposureTime": 0, "AnalogueGain": 0.0}  # no AeEnable on libcamera 0.5
    assert supported(UNLOCK, None) == UNLOCK
    assert PiCameraSource.relock.__doc__ and "cleared" in PiCameraSource.relock.__doc__


@pytest.fixture
def chaudron_folder(tmp_path, echo_frames):
    """One frame of the Chaudron board as a camera folder."""
    _, rendered = echo_frames
    folder = tmp_path / "camera"
    folder.mkdir()
    frame = cv2.imread(str(rendered.folder / rendered.frames[0]["file"]))
    cv2.imwrite(str(folder / "frame-0.png"), frame)
    return folder


def test_capture_saves_the_frame_and_says_which_boards_are_seen(tmp_path, cli, chaudron_folder):
    camera = ["--set", "camera.source=folder", "--set", f"camera.path={chaudron_folder}"]
    out = tmp_path / "seen.png"
    code, stdout, _ = cli("capture", "--out", str(out), "--annotate", "--set", "table.game=chaudron", *camera)
    assert code == 0
    assert stdout.splitlines()[0].startswith(f"1280x960 frame saved to {out}; markers seen: 10, 11, 12, 13")
    assert stdout.splitlines()[1] == "  chaudron: found (4 of its 4 markers seen: 10, 11, 12, 13)"
    seen = cv2.imread(str(out))
    assert seen.shape == (960, 1280, 3)
    assert not np.array_equal(seen, cv2.imread(str(chaudron_folder / "frame-0.png")))  # drawn on
    code, stdout, _ = cli("capture", "--out", str(out), "--layout", "alchimiste", *camera)
    assert code == 1 and "alchimiste: NOT FOUND (0 of its" in stdout


def test_calibrate_colours_from_the_camera_learns_what_it_learns_from_the_file(tmp_path, cli, chaudron_folder):
    frame = chaudron_folder / "frame-0.png"
    assert cli("calibrate", "colours", str(frame), "--layout", "chaudron", "--out", str(tmp_path / "a.json"))[0] == 0
    code, _, err = cli("calibrate", "colours", "--camera", "--layout", "chaudron", "--out", str(tmp_path / "b.json"),
                       "--set", "camera.source=folder", "--set", f"camera.path={chaudron_folder}")
    assert code == 0, err
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert a["layout"] == b["layout"] == "chaudron" and a["colours"] == b["colours"]
    code, _, err = cli("calibrate", "colours", "--layout", "chaudron", "--out", str(tmp_path / "c.json"))
    assert code == 2 and "--camera" in err


def test_run_reads_the_calibration_file_of_the_configuration(tmp_path, cli, chaudron_folder):
    cal = tmp_path / "cal.json"
    code, _, err = cli("calibrate", "corners", str(chaudron_folder / "frame-0.png"), "--layout", "alchimiste",
                       "--points", "100,100", "1100,100", "1100,900", "100,900", "--out", str(cal))
    assert code == 0, err
    code, _, err = cli("run", "--game", "chaudron", "--setup", setup(tmp_path), "--simulate", "--set",
                       f"calibration.file={cal}", "--set",
                       "camera.source=folder", "--set", f"camera.path={chaudron_folder}", "--set",
                       f"table.state_dir={tmp_path / 'state'}", "--set", "buttons.backend=none")
    assert code == 2 and f"{cal}: layout: made for layout 'alchimiste'" in err
