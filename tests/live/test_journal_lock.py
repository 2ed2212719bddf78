"""One lock for everything that writes or moves a journal: a second ``run`` on the state folder of a run
still writing is refused and moves nothing; a new game archives the previous journal durably."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assistant import journal as journal_module
from assistant.journal import Journal, JournalError, read, start

CHILD = Path(__file__).with_name("run_child.py")


def run_command(frames: Path, state: Path) -> list[str]:
    return [sys.executable, str(CHILD), "run", "--game", "chaudron", "--simulate", "--set", "buttons.backend=none",
            "--set", "camera.source=folder", "--set", f"camera.path={frames}", "--set", "camera.fps=1",
            "--realtime", "--set", f"table.state_dir={state}"]


def environment(tmp: Path) -> dict[str, str]:
    return {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": str(tmp / "no-system.toml"),
            "ALCHEMY_TABLE_USER_CONFIG": str(tmp / "no-user.toml"), "NOTIFY_SOCKET": ""}


def test_a_second_run_on_the_same_state_folder_is_refused_and_moves_nothing(echo_frames, tmp_path):
    _, rendered = echo_frames
    state = tmp_path / "state"
    path = state / "game.jsonl"
    first = subprocess.Popen(run_command(rendered.folder, state), env=environment(tmp_path),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not (path.exists() and read(path)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert path.exists(), "the first run never started its journal"
        second = subprocess.run(run_command(rendered.folder, state), env=environment(tmp_path),
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.count("\n") == 1 and "in use by another process" in second.stderr
        assert not (state / "games").exists()  # the first run's journal was not moved from under it
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGTERM)
        _, err = first.communicate(timeout=30)
    assert first.returncode == 0, err
    records = read(path)
    assert records[0].kind == "game" and [r.seq for r in records] == list(range(1, len(records) + 1))
    assert sum(r.kind == "game" for r in records) == 1


def test_start_is_refused_while_the_journal_is_open_and_touches_nothing(tmp_path):
    path = tmp_path / "game.jsonl"
    with Journal(path) as j:
        j.append("game", {"game": "chaudron"})
        with pytest.raises(JournalError, match="in use by another process"):
            start(path)
        j.append("event", {"after": 1})  # still its own file, still appending
    assert [r.kind for r in read(path)] == ["game", "event"]
    assert not (tmp_path / "games").exists()


def test_a_new_game_archives_the_previous_journal_durably(tmp_path, monkeypatch):
    path = tmp_path / "state" / "game.jsonl"
    with Journal(path) as j:
        j.append("game", {"game": "chaudron"})
    synced: list[Path] = []
    real = journal_module._fsync_folder
    monkeypatch.setattr(journal_module, "_fsync_folder", lambda folder: (synced.append(Path(folder)), real(folder)))
    journal, moved = start(path)
    with journal:
        assert moved is not None and moved.parent == tmp_path / "state" / "games"
        assert moved.name.endswith("-chaudron.jsonl") and [r.kind for r in read(moved)] == ["game"]
        # the rename is on disk in both folders before the new journal is created
        assert synced[:2] == [moved.parent, path.parent] or synced[1:3] == [moved.parent, path.parent]
        assert path.exists() and path.stat().st_size == 0
        with pytest.raises(JournalError, match="in use"):
            Journal(path)


def test_a_journal_path_that_is_not_a_regular_file_is_refused(tmp_path):
    os.mkfifo(tmp_path / "game.jsonl")
    with pytest.raises(JournalError, match="not a regular file"):
        Journal(tmp_path / "game.jsonl")
