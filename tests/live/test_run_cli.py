"""``alchemy-table run`` as a user meets it: a missing camera, SIGTERM, a game already on record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from assistant.journal import read


def env(tmp_path):
    return {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": str(tmp_path / "none.toml"),
            "ALCHEMY_TABLE_USER_CONFIG": str(tmp_path / "none.toml"), "NOTIFY_SOCKET": ""}


def test_a_missing_camera_is_one_clear_line_retried_and_sigterm_stops_cleanly(tmp_path):
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps({"players": 2}))
    child = subprocess.Popen([sys.executable, "-m", "assistant", "run", "--game", "chaudron", "--setup", str(setup),
                              "--simulate", "--set", "buttons.backend=none", "--set", "camera.source=opencv",
                              "--set", "camera.device=/nonexistent/camera", "--set",
                              f"table.state_dir={tmp_path / 'state'}", "--set", "web.listen="],
                             env=env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = child.stderr.readline()
    if "no empty board enrolled" in first:  # (said once before the camera opens: no calibration is given here)
        first = child.stderr.readline()
    child.send_signal(signal.SIGTERM)
    _, rest = child.communicate(timeout=30)
    assert "cannot open the camera" in first and "retrying in" in first
    assert child.returncode == 0
    assert "Traceback" not in rest and rest.splitlines()[-1] == "alchemy-table: stopping"
    records = read(tmp_path / "state" / "game.jsonl")
    assert records[0].kind == "game" and records[0].data["setup"] == {"players": 2}


def test_a_new_game_keeps_the_previous_journal_and_resume_needs_the_same_game(tmp_path, cli, echo_mode,
                                                                                short_frames):
    _, rendered = short_frames("chaudron")
    state = tmp_path / "state"
    args = ["run", "--game", "chaudron", "--simulate", "--set", "buttons.backend=none", "--set",
            "camera.source=folder", "--set", f"camera.path={rendered.folder}", "--set", f"table.state_dir={state}",
            "--config", str(tmp_path / "empty.toml")]
    (tmp_path / "empty.toml").write_text("")
    code, _, err = cli(*args)
    assert code == 0, err
    first = (state / "game.jsonl").read_text()
    code, _, err = cli(*args)
    assert code == 0 and "previous game kept as" in err
    kept = list((state / "games").iterdir())
    assert len(kept) == 1 and kept[0].read_text() == first and kept[0].name.endswith("-chaudron.jsonl")
    code, _, err = cli("run", "--game", "alchimiste", "--resume", *args[3:])
    assert code == 2 and "the game on record is 'chaudron', not 'alchimiste'" in err
