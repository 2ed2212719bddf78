"""The command line: help lists the commands, errors are one line, layouts draw to PNG."""

from __future__ import annotations

import subprocess
import sys

from PIL import Image

from assistant import __version__
from calibration.layout import load_layout


def test_help_lists_the_commands(cli):
    code, out, _ = cli("--help")
    assert code == 0
    for command in ("layout", "check", "bench", "demo"):
        assert f"    {command} " in out


def test_version(cli):
    code, out, _ = cli("--version")
    assert code == 0 and out.strip() == f"alchemy-table {__version__}"


def test_unknown_command_is_one_line_exit_2(cli):
    code, out, err = cli("fly")
    assert code == 2 and out == "" and err.count("\n") == 1


def test_layout_list_names_every_layout(cli):
    code, out, _ = cli("layout", "list")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == ["alchemists", "alchimiste", "alchymia",
                                                              "alchymia-crystals", "chaudron", "chaudron-potions"]


def test_layout_png_is_drawn_to_scale(cli, tmp_path):
    out = tmp_path / "plan.png"
    code, _, _ = cli("layout", "chaudron", "--png", str(out), "--px-per-mm", "3")
    assert code == 0
    image = Image.open(out).convert("RGB")
    assert image.size == (240 * 3 + 20, 240 * 3 + 20)
    # Marker 10's top-left module is black, and the board around it carries the background colour.
    layout = load_layout("chaudron")
    assert image.getpixel((10 + 5 * 3 + 2, 10 + 5 * 3 + 2)) == (0, 0, 0)
    assert image.getpixel((10 + 120 * 3 + 2, 10 + 2)) == layout.colour("empty")


def test_console_script_runs_without_traceback(tmp_path):
    missing = tmp_path / "nowhere.toml"
    result = subprocess.run([sys.executable, "-m", "assistant", "layout", str(missing)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.strip() == f"alchemy-table: {missing}: no such layout file"


def test_check_rejects_an_unknown_game(cli, tmp_path):
    record = tmp_path / "r.json"
    record.write_text('{"game": "monopoly"}')
    code, _, err = cli("check", str(record))
    assert code == 2 and "game: expected one of" in err


def test_demo_plays_a_session_and_draws_every_layout(cli, tmp_path):
    """What ``make demo`` does, over the shortest session (the others are replayed in tests/live)."""
    code, out, _ = cli("demo", "--game", "alchymia", "--out", str(tmp_path))
    assert code == 0 and "NOT AS SCRIPTED" not in out
    for name in ("alchemists", "alchimiste", "alchymia", "chaudron"):
        assert (tmp_path / f"layout-{name}.png").is_file()
    assert "illegal: Ada" in out                         # the scripted illegal move is called out
    assert len(list((tmp_path / "alchymia").glob("*-illegal.png"))) == 1
    assert (tmp_path / "alchymia" / "journal.jsonl").stat().st_size > 0
