"""``replay --web`` as a user starts it: the page is up while the recording plays, its PIN is in an
owner-only file and nowhere in what the command prints, and Ctrl-C stops it cleanly."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request


def test_replay_serves_the_page_and_keeps_its_pin_out_of_the_output(alchemists_frames, tmp_path):
    _, rendered = alchemists_frames
    out = tmp_path / "out"
    env = {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": str(tmp_path / "none.toml"),
           "ALCHEMY_TABLE_USER_CONFIG": str(tmp_path / "none.toml")}
    child = subprocess.Popen([sys.executable, "-m", "assistant", "replay", str(rendered.folder), "--game",
                              "alchemists", "--web", "127.0.0.1:0", "--out", str(out), "--no-pictures"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             preexec_fn=_hears_ctrl_c)
    try:
        first = child.stderr.readline()
        assert "web page on http://127.0.0.1:" in first, first
        url = first.split("web page on ")[1].split(";")[0].split()[0]
        deadline = time.monotonic() + 60
        while True:  # the recording plays at its own pace; its last frame stays on the table
            status = json.loads(urllib.request.urlopen(url + "api/status").read())
            if status["steps"] >= 3 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert status["game"] == "alchemists" and status["board_found"] is True
        assert any("the answer is on the table's display" in e["message"] for e in status["events"])
    finally:
        child.send_signal(signal.SIGINT)
        stdout, stderr = child.communicate(timeout=30)
    pin_file = out / "web-pin"
    pin = pin_file.read_text().strip()
    assert stat.S_IMODE(pin_file.stat().st_mode) == 0o600 and len(pin) == 6 and pin.isdigit()
    assert child.returncode == 0 and "Traceback" not in stderr
    assert pin not in first + stdout + stderr + (out / "journal.jsonl").read_text()


def _hears_ctrl_c() -> None:
    """In the child before it starts: Ctrl-C as at a terminal. A suite started in the background (``make test &``)
    ignores Ctrl-C, a child inherits that, and Python then never turns it into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
