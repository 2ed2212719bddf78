"""A rendered session (hands coming and going) through ``replay``, with the test table mode: what is
committed, when, and what the LEDs, the display, the events log and the pictures show."""

from __future__ import annotations

import json

from assistant.journal import read
from assistant.sessions.play import play_session


def test_hands_never_commit_and_each_state_commits_within_three_frames_of_the_hand_leaving(echo_mode, echo_frames,
                                                                                           tmp_path):
    session, rendered = echo_frames
    played = play_session(session, rendered.folder, tmp_path / "out", pictures=False)
    assert played.wrong_commits == []
    frames = rendered.frames
    commits = [s for s in played.replayed.pipeline.steps if s.kind == "state"]
    assert all(not frames[s.frame]["hand"] for s in commits)
    # The opening board, then three of the four steps: the hand that passes over changes nothing.
    states = rendered.manifest["states"]
    moves = [tuple(sorted(z for z in states[i + 1]["zones"] if states[i + 1]["zones"][z] != states[i]["zones"][z]))
             for i in (0, 1, 3)]
    assert [s.state.changed(s.previous) for s in commits[1:]] == moves and all(moves)
    assert played.kinds(2) == []
    assert played.latencies == [3, 3, 3]


def test_replay_command_writes_pictures_events_and_journal(echo_mode, echo_frames, tmp_path, cli):
    _, rendered = echo_frames
    out = tmp_path / "replay"
    commands = tmp_path / "presses.json"
    commands.write_text(json.dumps([{"frame": 12, "command": "confirm"}]))
    code, stdout, stderr = cli("replay", str(rendered.folder), "--game", "chaudron", "--out", str(out),
                               "--commands", str(commands))
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert lines[0] == "start: ready: watching chaudron"
    assert "button confirm: press: confirm (1)" in lines
    assert f"{len(rendered.frames)}/{len(rendered.frames)} frames" in stderr and "4 states committed" in stderr
    log = [json.loads(line) for line in (out / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [entry["step"] for entry in log] == ["start", "state", "state", "state", "command", "state"]
    press = log[4]
    assert press["screen"] == {"screen": "Message", "title": "Button", "text": "confirm", "tone": "ok"}
    assert press["leds"]["status"]["pattern"] == "Flash"
    assert [e["kind"] for e in log[-1]["events"]] == ["change", "tally"]
    pictures = sorted(p.name for p in out.glob("*.png"))
    assert pictures == ["000-ready.png", "001-change.png", "002-change.png", "003-change.png", "004-press.png",
                        "005-change.png"]
    assert [r.kind for r in read(out / "journal.jsonl")][:3] == ["game", "event", "state"]


def test_replay_errors_are_one_line(cli, tmp_path):
    code, _, err = cli("replay", str(tmp_path / "nothing"), "--game", "chaudron", "--out", str(tmp_path / "o"))
    assert code == 2 and err.count("\n") == 1 and "no such image folder or video file" in err
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    frames = tmp_path / "frames"
    frames.mkdir()
    code, _, err = cli("replay", str(frames), "--game", "chaudron", "--out", str(tmp_path / "busy"))
    assert code == 2 and "choose an empty --out" in err
