"""Configuration: precedence, origins, errors with FILE:line, and the `config show` / `check-hardware` commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from assistant.config import SCHEMA, ConfigError, find_line, load_config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "config.toml"


@pytest.fixture
def files(tmp_path, monkeypatch):
    system, user = tmp_path / "etc.toml", tmp_path / "user.toml"
    monkeypatch.setenv("ALCHEMY_TABLE_SYSTEM_CONFIG", str(system))
    monkeypatch.setenv("ALCHEMY_TABLE_USER_CONFIG", str(user))
    return system, user


def test_defaults_then_system_then_user_then_flags(files):
    system, user = files
    system.write_text("[led]\ncount = 60\nbrightness = 0.5\n\n[display]\nmodel = \"st7789\"\n")
    user.write_text("# mine\n[led]\nbrightness = 0.1\n")
    config = load_config(overrides=["display.model=sh1106"])
    assert config["led.count"] == 60 and config.origin("led.count") == f"{system}:2"
    assert config["led.brightness"] == 0.1 and config.origin("led.brightness") == f"{user}:3"
    assert config["display.model"] == "sh1106" and config.origin("display.model") == "--set display.model=sh1106"
    assert config["led.pin"] == 10 and config.origin("led.pin") == "default"
    assert config.files == (str(system), str(user))


def test_missing_files_are_fine_but_a_named_one_must_exist(files, tmp_path):
    assert load_config().files == ()
    with pytest.raises(OSError):
        load_config(extra_files=[tmp_path / "nope.toml"])


def test_the_example_file_is_the_defaults():
    config = load_config(system_path=EXAMPLE, user_path=None)
    assert all(config[key] == s.default for key, s in SCHEMA.items())
    assert all(config.origin(key).startswith(str(EXAMPLE)) for key in SCHEMA)  # and it sets every key


@pytest.mark.parametrize(("text", "message"), [
    ("[led]\n\n# comment\nbrightness = 2\n", r":4: led.brightness: must be between 0 and 1, not 2$"),
    ("[led]\ncuont = 5\n", r":2: led.cuont: unknown setting \(did you mean led.count\?\)$"),
    ("[camera]\nwidth = \"wide\"\n", r":2: camera.width: must be an integer, not 'wide'$"),
    ("[leds]\ncount = 5\n", r":1: leds: unknown section \(did you mean led\?\)"),
    ("[led]\ncount = 5\ncount = 6\n", r":3: not valid TOML: cannot overwrite a value \(column \d+\)$"),
    ("[buttons]\nnext = 6\n", r":2: buttons.next: GPIO6 is already buttons.back$"),
    ("led.backend = \"neon\"\n", r":1: led.backend: must be one of auto, simulated, ws281x, pi5, not 'neon'$"),
    ("[led]\ncount = 30\n", r":2: led.groups.player-5: pixel 30 is outside the strip of 30"),
    ("[led]\ncount = 30\n[led.groups]\nstatus = [0]\nbar = \"10-20\"\nend = [31]\n",
     r":6: led.groups.end: pixel 31 is outside the strip of 30"),
    ("[camera]\nsource = \"folder\"\n", r":2: camera.source: 'folder' needs camera.path$"),
])
def test_errors_name_the_file_and_line(files, text, message):
    system, _ = files
    system.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config()
    assert str(error.value).startswith(f"{system}:"), str(error.value)
    assert re.search(message, str(error.value)), str(error.value)


def test_flag_errors_name_the_flag(files):
    with pytest.raises(ConfigError, match=r"^--set led.count=lots: led.count: must be an integer"):
        load_config(overrides=["led.count=lots"])
    with pytest.raises(ConfigError, match=r"^--set ledcount: expected KEY=VALUE"):
        load_config(overrides=["ledcount"])
    assert load_config(overrides=["camera.source=folder", "camera.path=/tmp"])["camera.source"] == "folder"


def test_find_line_handles_tables_dotted_and_quoted_keys():
    text = 'a = 1\n[led]\ncount = 3\n[led.groups]\n"odd name" = [1]\n[display]\nled.x = 1\nmodel = "x"\n'
    assert find_line(text, "led.count") == 3
    assert find_line(text, "led.groups.odd name") == 5
    assert find_line(text, "display.model") == 8
    assert find_line(text, "display.led.x") == 7
    assert find_line(text, "led.groups.missing") == 4  # the closest table


def test_config_show_prints_values_and_origins(files, cli):
    system, _ = files
    system.write_text("[led]\ncount = 60\n")
    code, out, err = cli("config", "show", "--set", "led.brightness=0.5", "--simulate")
    assert code == 0, err
    assert f"count = 60  # {system}:2" in out
    assert "brightness = 0.5  # --set led.brightness=0.5" in out
    assert 'backend = "dummy"  # --simulate' in out
    assert "i2c_address = 0x3c  # default" in out
    assert 'crame = "31-50"' in out
    code, out, _ = cli("config", "show", "--json")
    data = json.loads(out)
    assert data["settings"]["led.count"] == {"value": 60, "from": f"{system}:2"}


def test_config_show_error_is_one_line(files, cli):
    system, _ = files
    system.write_text("[display]\nrotate = 5\n")
    code, _, err = cli("config", "show")
    assert code == 2 and err == f"alchemy-table: {system}:2: display.rotate: must be between 0 and 3, not 5\n"


def test_check_hardware_over_simulated_devices(files, cli, tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "f0.png"), np.zeros((30, 40, 3), np.uint8))
    code, out, err = cli("check-hardware", "--simulate", "--hold", "0", "--set", f"camera.path={frames}",
                         "--set", f"led.png={tmp_path / 'leds.png'}", "--set", f"display.png={tmp_path / 'd.png'}")
    assert code == 0, out + err
    lines = dict(line.split(None, 1) for line in out.splitlines())
    assert lines["camera"] == f"ok    folder {frames}: a 40x30 frame"
    assert lines["leds"].startswith("ok    simulated strip of 51 pixels")
    assert lines["display"].startswith("ok    ssd1306 via dummy, 128x64")
    assert lines["buttons"].startswith("ok    keyboard")
    leds = Image.open(tmp_path / "leds.png").convert("RGB")
    assert (0, 255, 0) in {c for _, c in leds.getcolors(1 << 20)}  # the status pixel, green
    assert Image.open(tmp_path / "d.png").size == (128, 64)


def test_check_hardware_reports_a_failing_device_and_goes_on(files, cli, tmp_path):
    code, out, _ = cli("check-hardware", "--simulate", "--hold", "0", "--only", "camera,display",
                       "--set", f"camera.path={tmp_path / 'none.mp4'}")
    assert code == 1
    assert re.match(r"camera +FAIL +.*none.mp4: no such video file\ndisplay +ok ", out), out
    code, _, err = cli("check-hardware", "--only", "toaster")
    assert code == 2 and "unknown device 'toaster'" in err


def test_wiring_table_in_the_docs_matches_the_default_config():
    """The table users wire from must agree with what the program drives."""
    header_pin = {2: 3, 3: 5, 5: 29, 6: 31, 10: 19, 13: 33, 17: 11, 27: 13}
    config = load_config(system_path=None, user_path=None)
    text = (ROOT / "docs" / "hardware.md").read_text()
    table = text.split("## Wiring", 1)[1].split("\n\n")[2]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]
    checked = 0
    for part, _, gpio, pin, setting in rows:
        number = int(re.match(r"GPIO(\d+)", gpio).group(1))
        assert header_pin[number] == int(pin), part
        key, value = re.fullmatch(r"`(\S+) = (\S+)`", setting).groups()
        assert config[key] == int(value, 0), key
        if key.endswith(("pin", "next", "back", "confirm", "encoder_a", "encoder_b")):
            assert config[key] == number, key
            checked += 1
    assert checked == 6
