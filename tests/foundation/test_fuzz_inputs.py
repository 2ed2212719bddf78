"""Every command that takes a file, given malformed files of every kind: one line on stderr, exit 2, under
10 s and 500 MB; never a traceback, never a hang. In-process (``assistant.cli.main``) for speed, and a few
real processes whose time and peak memory are measured by the kernel.

Kinds: files nested 1,000 deep (JSON and TOML), a FIFO, /dev/zero, a folder, a file over the size limit,
bytes that are not UTF-8, numbers a float cannot hold, the wrong type at the top, images whose header claims
too many pixels (PNG and JPEG), truncated and fake images; then random bytes, and valid example files with
one value replaced by a random one (a string where an object belongs...), drawn by hypothesis
(``FUZZ_EXAMPLES=600`` draws more than the suite's few dozen).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
SECONDS = 10.0
MEGABYTES = 500


def png(width: int, height: int, rows: bytes = b"") -> bytes:
    """A PNG whose header says ``width`` x ``height`` (grey), with ``rows`` as its only data (none: truncated)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    header = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + chunk(b"IDAT", zlib.compress(rows)) + (chunk(b"IEND", b"") if rows else b"")


def jpeg(width: int, height: int) -> bytes:
    """A JPEG header (SOF0) claiming ``width`` x ``height``, then nothing a decoder could use."""
    sof = struct.pack(">BHHB", 8, height, width, 3) + b"".join(struct.pack(">BBB", i, 0x11, 0) for i in (1, 2, 3))
    return b"\xff\xd8" + b"\xff\xc0" + struct.pack(">H", len(sof) + 2) + sof + b"\xff\xda\x00\x08\x01\x01\x00\x00?\x00"


DATA_KINDS: dict[str, Any] = {
    "deep JSON lists": "[" * 1000 + "]" * 1000,
    "deep JSON objects": '{"a":' * 1000 + "1" + "}" * 1000,
    "deep TOML arrays": "a = " + "[" * 1000 + "]" * 1000 + "\n",
    "deep TOML tables": "a = " + "{b = " * 1000 + "1" + "}" * 1000 + "\n",
    "not UTF-8": b"\xff\xfe\x00{\x80\x81",
    "a number no float holds": '{"size": [1e400, 1e400], "players": 1e400, "zones": 1e400}',
    "an integer no float holds": '{"size": [1' + "0" * 400 + ', 1], "players": 1' + "0" * 400 + "}",
    "an integer of 5000 digits": '{"players": ' + "9" * 5000 + "}",
    "NaN": '{"players": NaN}',
    "a list at the top": "[1, 2, 3]",
    "a string at the top": '"board"',
    "null": "null",
    "over the size limit": " " * (64 << 10) + "{}",
    "FIFO": "FIFO",
    "/dev/zero": "/dev/zero",
    "a folder": "FOLDER",
}
IMAGE_KINDS: dict[str, Any] = {
    "PNG of 20000 x 20000": png(20000, 20000),
    "JPEG of 60000 x 60000": jpeg(60000, 60000),
    "PNG of 0 x 0": png(0, 0),
    "truncated PNG": png(64, 48)[:60],
    "PNG with too little data": png(64, 48, b"\x00" * 10),
    "JSON named .png": b'{"not": "an image"}',
    "empty": b"",
    "random bytes": bytes(range(256)) * 4,
    "over the size limit": png(32, 32, b"\x00" * 33 * 32) + b"\x00" * (80 << 10),
    "FIFO": "FIFO",
    "/dev/zero": "/dev/zero",
    "a folder": "FOLDER",
}


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A state folder holding the example Alchemists game, a good image, an empty config and limits small
    enough that "over the size limit" costs little."""
    root = tmp_path_factory.mktemp("fuzz")
    patch = pytest.MonkeyPatch()
    patch.setenv("ALCHEMY_TABLE_STATE_DIR", str(root / "state"))
    patch.setenv("ALCHEMY_TABLE_SYSTEM_CONFIG", str(root / "none.toml"))
    patch.setenv("ALCHEMY_TABLE_USER_CONFIG", str(root / "none.toml"))
    patch.setenv("ALCHEMY_TABLE_MAX_FILE_MB", "0.05")
    patch.setenv("ALCHEMY_TABLE_MAX_IMAGE_MB", "0.05")
    patch.delenv("ALCHEMY_TABLE_DEBUG", raising=False)
    (root / "empty.toml").write_text("")
    (root / "frames").mkdir()
    assert main(["alchemists", "import", str(EXAMPLES / "alchemists-game.json")]) == 0
    yield root
    patch.undo()


# Each command that takes a file: its argv around the file, and the file's suffix.
COMMANDS: dict[str, tuple[str, Any]] = {
    "check": (".json", lambda f, r: ["check", f]),
    "referee": (".json", lambda f, r: ["referee", "alchimiste", f]),
    "alchemists solve": (".json", lambda f, r: ["alchemists", "solve", f]),
    "alchemists solve --trust": (".json", lambda f, r: ["alchemists", "solve", str(EXAMPLES / "alchemists-facts.json"),
                                                        "--trust", f]),
    "alchemists reveal": (".json", lambda f, r: ["alchemists", "reveal", "--game", "example", f]),
    "alchemists import": (".json", lambda f, r: ["alchemists", "import", f, "--name", "fuzzed"]),
    "layout (JSON)": (".json", lambda f, r: ["layout", f, "--json"]),
    "layout (TOML)": (".toml", lambda f, r: ["layout", f, "--json"]),
    "config show": (".toml", lambda f, r: ["config", "show", "--config", f]),
    "read --layout": (".toml", lambda f, r: ["read", str(r / "good.png"), "--layout", f]),
    "read --calibration": (".json", lambda f, r: ["read", str(r / "good.png"), "--layout", "chaudron",
                                                  "--calibration", f]),
    "render --state": (".json", lambda f, r: ["render", "--layout", "chaudron", "--state", f, "--out",
                                              str(r / "rendered.png")]),
    "replay --setup": (".json", lambda f, r: ["replay", str(r / "frames"), "--game", "chaudron", "--setup", f,
                                              "--out", str(r / "replayed")]),
    "replay --commands": (".json", lambda f, r: ["replay", str(r / "frames"), "--game", "chaudron", "--commands", f,
                                                 "--out", str(r / "replayed")]),
    "run --setup": (".json", lambda f, r: ["run", "--game", "alchimiste", "--setup", f, "--simulate", "--set",
                                           "buttons.backend=none", "--set", "camera.source=folder", "--set",
                                           f"camera.path={r / 'frames'}", "--set", f"table.state_dir={r / 'run'}",
                                           "--config", str(r / "empty.toml")]),
    "chaudron deck": (".toml", lambda f, r: ["run", "--game", "chaudron", "--setup", _deck_setup(f, r),
                                             "--simulate", "--set", "buttons.backend=none", "--set",
                                             "camera.source=folder", "--set", f"camera.path={r / 'frames'}",
                                             "--set", f"table.state_dir={r / 'run'}", "--config",
                                             str(r / "empty.toml")]),
}
IMAGE_COMMANDS: dict[str, Any] = {
    "read": lambda f, r: ["read", f, "--layout", "chaudron"],
    "calibrate colours": lambda f, r: ["calibrate", "colours", f, "--layout", "chaudron", "--out", str(r / "c.json")],
    "calibrate corners": lambda f, r: ["calibrate", "corners", f, "--layout", "chaudron", "--points", "1,1", "60,1",
                                       "60,40", "1,40", "--out", str(r / "c.json")],
    "calibrate camera": lambda f, r: ["calibrate", "camera", f, f, f, "--layout", "chaudron", "--out",
                                      str(r / "c.json")],
    "calibrate cards": lambda f, r: ["calibrate", "cards", "--layout", "alchemists", "--out", str(r / "cards"),
                                     f"fern={f}"],
}


def _deck_setup(deck: str, root: Path) -> str:
    path = root / "deck-setup.json"
    path.write_text(json.dumps({"players": 2, "deck": deck}))
    return str(path)


def materialise(root: Path, name: str, suffix: str, content: Any) -> str:
    """The malformed input as a path: written to a file, or a FIFO, /dev/zero, a folder."""
    if content == "/dev/zero":
        return "/dev/zero"
    path = root / f"{name}{suffix}"
    if path.is_dir():
        path.rmdir()
    else:
        path.unlink(missing_ok=True)
    if content == "FIFO":
        os.mkfifo(path)
    elif content == "FOLDER":
        path.mkdir()
    else:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def run_cli(argv: list[str]) -> tuple[int, str, float]:
    """``main(argv)`` in this process: (exit code, stderr, CPU seconds). An exception escaping main fails here."""
    err, out = io.StringIO(), io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse
            code = e.code if isinstance(e.code, int) else 2
    return code, err.getvalue(), time.process_time() - start


def assert_refused(argv: list[str], code: int, err: str, seconds: float) -> None:
    assert code == 2, f"{argv}: exit {code}, stderr {err!r}"
    assert err.count("\n") == 1 and err.startswith("alchemy-table: "), f"{argv}: stderr {err!r}"
    assert "Traceback" not in err and seconds < SECONDS, f"{argv}: {seconds:.1f} s"


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.fixture(scope="module")
def good_image(place):
    import numpy as np
    from PIL import Image

    Image.fromarray(np.full((48, 64, 3), 128, np.uint8)).save(place / "good.png")
    Image.fromarray(np.full((48, 64, 3), 128, np.uint8)).save(place / "frames" / "0001.png")  # a set-up that
    return place / "good.png"  # survives the fuzzing runs one frame and ends well


@pytest.mark.parametrize("command", COMMANDS)
def test_every_data_command_refuses_every_malformed_kind_in_one_line(place, good_image, command):
    suffix, argv_of = COMMANDS[command]
    before = peak_mb()
    for kind, content in DATA_KINDS.items():
        if command == "config show" and kind == "deep JSON objects":
            continue  # not a TOML file at all: refused as such below with every other command's kinds
        path = materialise(place, "input", suffix, content)
        argv = argv_of(path, place)
        assert_refused(argv, *run_cli(argv))
    assert peak_mb() - before < MEGABYTES


@pytest.mark.parametrize("command", IMAGE_COMMANDS)
def test_every_image_command_refuses_every_malformed_image_in_one_line(place, command):
    before = peak_mb()
    for kind, content in IMAGE_KINDS.items():
        path = materialise(place, "frame", ".png" if "JPEG" not in kind else ".jpg", content)
        argv = IMAGE_COMMANDS[command](path, place)
        code, err, seconds = run_cli(argv)
        assert_refused(argv, code, err, seconds)
        if kind in ("PNG of 20000 x 20000", "JPEG of 60000 x 60000"):  # refused from the header
            assert "limit" in err, err
    assert peak_mb() - before < MEGABYTES


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            out += _paths(v, (*prefix, i))
    return out


def _replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.sampled_from([10**400, -1, 0, 2**63]) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)

# Valid files of each JSON command, to be broken one value at a time.
VALID = {
    "check": EXAMPLES / "alchimiste-game.json",
    "referee": EXAMPLES / "alchimiste-endgame.json",
    "alchemists solve": EXAMPLES / "alchemists-facts.json",
    "alchemists reveal": EXAMPLES / "alchemists-theories.json",
    "alchemists import": EXAMPLES / "alchemists-game.json",
}
DERIVED = ("layout (JSON)", "read --calibration", "render --state", "run --setup")


def _valid(name: str, root: Path) -> Any:
    if name in VALID:
        return json.loads(VALID[name].read_text())
    if name == "layout (JSON)":
        return json.loads(run_json(["layout", "alchemists", "--json"]))
    if name == "read --calibration":
        return {"kind": "alchemy-table calibration", "layout": "chaudron", "colours": {"bone": [240, 230, 200]},
                "top_area_mm2": {"bone": 64.0}, "corners": [[0, 0], [63, 0], [63, 47], [0, 47]]}
    if name == "render --state":
        return {"zones": {"r0c0": "bone", "r1c1": "root"}, "counts": {}}
    return {"players": ["Abigail", "Bruno"]}


def run_json(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return out.getvalue()


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 30)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_valid_files_with_one_value_replaced_never_end_in_a_traceback(place, good_image, data):
    name = data.draw(st.sampled_from([*VALID, *DERIVED]), label="command")
    original = _valid(name, place)
    where = data.draw(st.sampled_from(_paths(original)), label="where")
    broken = _replace(original, where, data.draw(JSON_VALUES, label="value"))
    suffix, argv_of = COMMANDS[name]
    path = materialise(place, "mutated", suffix, json.dumps(broken))
    argv = argv_of(path, place)
    code, err, seconds = run_cli(argv)  # an exception escaping main fails the test with its traceback
    assert "Traceback" not in err and seconds < SECONDS
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("alchemy-table: "), f"{argv}: stderr {err!r}"
    else:
        assert code in (0, 1), f"{argv}: exit {code}, {err!r}"  # still valid (1: an illegal action on record)


@settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 25)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command=st.sampled_from(sorted(COMMANDS)), content=st.binary(min_size=1, max_size=300))
def test_random_bytes_are_refused_in_one_line(place, good_image, command, content):
    suffix, argv_of = COMMANDS[command]
    argv = argv_of(materialise(place, "random", suffix, content), place)
    code, err, seconds = run_cli(argv)
    assert "Traceback" not in err and seconds < SECONDS
    assert code in (0, 2) and (code == 0 or err.count("\n") == 1), f"{argv}: exit {code}, stderr {err!r}"


# The command line as the console script runs it, then its own peak memory written down on the way out.
CHILD = """
import sys
from assistant.cli import main
try:
    code = main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as f:
        f.write(open("/proc/self/status").read())
sys.exit(code)
"""


@pytest.mark.parametrize(("argv", "make"), [
    (["check", "{}"], None),
    (["config", "show", "--config", "{}"], "FIFO"),
    (["read", "{}", "--layout", "chaudron"], "PNG of 20000 x 20000"),
])
def test_in_a_real_process_one_line_exit_2_under_10_s_and_500_mb(tmp_path, argv, make):
    if make is None:
        path = "/dev/zero"
    else:
        content = IMAGE_KINDS.get(make, DATA_KINDS.get(make))
        path = materialise(tmp_path, "input", ".jpg" if "JPEG" in make else ".png" if "PNG" in make else ".json",
                           content)
    env = {**os.environ, "ALCHEMY_TABLE_SYSTEM_CONFIG": str(tmp_path / "none.toml"),
           "ALCHEMY_TABLE_USER_CONFIG": str(tmp_path / "none.toml"), "ALCHEMY_TABLE_STATE_DIR": str(tmp_path)}
    env.pop("ALCHEMY_TABLE_DEBUG", None)
    with open(tmp_path / "err", "wb") as err_file:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp_path / "status"),
                                  *[path if a == "{}" else a for a in argv]],
                                 stdout=subprocess.DEVNULL, stderr=err_file, env=env)
        timer = threading.Timer(30, child.kill)  # a hang fails the test, it does not hang it
        timer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)  # the kernel's own figures for this child
        finally:
            timer.cancel()
    err = (tmp_path / "err").read_text()
    assert os.waitstatus_to_exitcode(status) == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    seconds = usage.ru_utime + usage.ru_stime  # CPU time: a loaded machine does not make it slower; a hang
    assert seconds < SECONDS, f"{seconds:.1f} s"  # (no CPU) is caught by the timer's kill above
    # The peak of the program itself (VmHWM; ru_maxrss would count the test runner it was forked from).
    peak = int(re.search(r"VmHWM:\s+(\d+) kB", (tmp_path / "status").read_text()).group(1)) / 1024
    assert peak < MEGABYTES, f"{peak:.0f} MB"


@pytest.mark.parametrize("out", ["FOLDER", "frame.xyz"])
def test_an_output_picture_opencv_cannot_write_is_one_line(cli, tmp_path, out):
    target = tmp_path if out == "FOLDER" else tmp_path / out
    code, _, err = cli("render", "--layout", "chaudron", "--out", str(target), "--seed", "1")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err and str(target) in err
