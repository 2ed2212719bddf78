"""``alchemy-table run`` over a folder of rendered frames, killed with SIGKILL at random points many times and
resumed with ``--resume``: the journal is never damaged and ends exactly as an uninterrupted run's."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from assistant.journal import read

CHILD = Path(__file__).with_name("run_child.py")
KILLS = 10
TIME_LIMIT_S = 30.0  # on a loaded machine, stop killing early; at least MIN_KILLS are needed (a start costs seconds)
MIN_KILLS = 4


FPS = 15  # frames read at this pace (--realtime), so that the kills spread over the whole game


def command(frames: Path, journal: Path, resume: bool) -> list[str]:
    return [sys.executable, str(CHILD), "run", "--game", "chaudron", "--journal", str(journal), "--simulate",
            "--set", "buttons.backend=none", "--set", "camera.source=folder", "--set", f"camera.path={frames}",
            "--set", f"camera.fps={FPS}", "--realtime", "--set", f"table.state_dir={journal.parent}",
            "--set", "web.listen=", *(["--resume"] if resume else [])]


def environment(tmp: Path, notify: Path) -> dict[str, str]:
    return {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": str(tmp / "no-system.toml"),
            "ALCHEMY_TABLE_USER_CONFIG": str(tmp / "no-user.toml"), "NOTIFY_SOCKET": str(notify)}


def drain(sock: socket.socket) -> None:
    sock.settimeout(0)
    try:
        while True:
            sock.recv(4096)
    except BlockingIOError:
        pass


def next_state(sock) -> bytes:
    """The next datagram that is not a STATUS line (those follow the table as it goes)."""
    while True:
        message = sock.recv(4096)
        if not message.startswith(b"STATUS="):
            return message


def left_to_do(journal: Path, frames: int) -> float:
    """The fraction of the frames a resumed run still reads (it skips those before the last commit)."""
    states = [r.data["frame"] for r in read(journal) if r.kind == "state"] if journal.exists() else []
    return (frames - (states[-1] + 1 if states else 0)) / frames


def content(path: Path) -> list[tuple[str, dict]]:
    """The journal without what may differ between runs (append times; where a run of frames began; the game's
    id, drawn at its start: the reference is a game of its own)."""
    return [(r.kind, {k: v for k, v in r.data.items() if k != "since" and not (r.kind == "game" and k == "id")})
            for r in read(path)]


def test_sigkill_at_random_points_loses_no_event_and_resume_ends_as_an_uninterrupted_run(echo_frames, tmp_path):
    _, rendered = echo_frames
    notify_path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify_path))
    env = environment(tmp_path, notify_path)

    reference = tmp_path / "reference" / "game.jsonl"
    start = time.monotonic()
    child = subprocess.Popen(command(rendered.folder, reference, False), env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    sock.settimeout(30)
    assert next_state(sock).startswith(b"READY=1")
    ready = time.monotonic()
    _, err = child.communicate(timeout=60)
    assert child.returncode == 0, err
    assert "Traceback" not in err
    start_up, loop = ready - start, time.monotonic() - ready
    assert next_state(sock) == b"STOPPING=1"
    expected = content(reference)
    assert sum(kind == "event" for kind, _ in expected) == 7  # no buttons pressed here

    rng = random.Random(5)
    games, kills, cut_short = 1, 0, 0  # cut_short: kills that left a game half-way (a resume had work to do)
    journal = tmp_path / "killed-1" / "game.jsonl"
    began = time.monotonic()
    while kills < KILLS and time.monotonic() - began < TIME_LIMIT_S:
        drain(sock)  # a killed child's READY must not be taken for the next one's
        child = subprocess.Popen(command(rendered.folder, journal, True), env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        if rng.random() < 0.25:
            time.sleep(rng.uniform(0, start_up))  # in the start-up: opening or resuming the journal
        else:
            sock.settimeout(30)
            while not sock.recv(4096).startswith(b"READY=1"):
                pass
            time.sleep(rng.uniform(0, 0.8 * loop * left_to_do(journal, len(rendered.frames))))
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate()
        assert "Traceback" not in err, err
        if child.returncode == 0:  # the game got to its end before the kill: check it, start another
            assert content(journal) == expected
            games += 1
            journal = tmp_path / f"killed-{games}" / "game.jsonl"
            continue
        kills += 1
        if journal.exists():
            cut_short += len(read(journal)) < len(expected)  # a torn last line is a warning; damage would raise
    assert kills >= MIN_KILLS and cut_short >= MIN_KILLS // 2, (kills, cut_short)
    done = subprocess.run(command(rendered.folder, journal, True), env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert content(journal) == expected
    sock.close()
