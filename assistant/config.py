"""The configuration: defaults, then ``/etc/alchemy-table/config.toml``, then the user's
``~/.config/alchemy-table/config.toml`` (under ``$XDG_CONFIG_HOME`` if set), then command-line flags; each
later one wins, key by key.

Every value remembers where it came from (``config show`` prints it). Errors name the place:
``FILE:LINE: KEY: what is wrong`` (tomllib gives no line for a value, so the key's line is found in the
text). ``ALCHEMY_TABLE_SYSTEM_CONFIG`` and ``ALCHEMY_TABLE_USER_CONFIG`` move the two files (tests do).

A file's ``[led.groups]`` replaces the whole LED map rather than adding to it: two half-maps of the same
strip would light the wrong pixels.

>>> config = load_config(system_path=None, user_path=None, overrides=["led.count=60"])
>>> config["led.count"], config.origin("led.count"), config.origin("led.pin")
(60, '--set led.count=60', 'default')
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration import files
from hardware.exc import BadSetting
from hardware.leds.map import DEFAULT_COUNT, LedMap, default_groups

SYSTEM_PATH = Path("/etc/alchemy-table/config.toml")
GAMES = ("alchimiste", "alchemists", "alchymia", "chaudron")


class ConfigError(ValueError):
    """A configuration that cannot be used; the message reads ``FILE:LINE: KEY: what is wrong``."""


def _xdg_user_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "alchemy-table" / "config.toml"


# --- the schema: every key, its default and its check ------------------------------------------------


def _choice(*options: str) -> Callable[[Any], str | None]:
    def check(v):
        if not isinstance(v, str) or v not in options:
            return f"must be one of {', '.join(options)}, not {v!r}"
        return None
    return check


def _int(lo: int | None = None, hi: int | None = None, *, optional: bool = False) -> Callable[[Any], str | None]:
    def check(v):
        if optional and v is False:
            return None
        if not isinstance(v, int) or isinstance(v, bool):
            return f"must be an integer{' (or false when not fitted)' if optional else ''}, not {v!r}"
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            return f"must be between {lo} and {hi}, not {v}" if hi is not None else f"must be at least {lo}, not {v}"
        return None
    return check


def _float(lo: float, hi: float | None = None) -> Callable[[Any], str | None]:
    def check(v):
        if not isinstance(v, int | float) or isinstance(v, bool):
            return f"must be a number, not {v!r}"
        if v < lo or (hi is not None and v > hi):
            return f"must be between {lo} and {hi}, not {v}" if hi is not None else f"must be at least {lo}, not {v}"
        return None
    return check


def _bool(v):
    return None if isinstance(v, bool) else f"must be true or false, not {v!r}"


def _str(v):
    return None if isinstance(v, str) else f"must be a string, not {v!r}"


def _listen(v):
    if not isinstance(v, str | int) or isinstance(v, bool):
        return "expected PORT or HOST:PORT, e.g. \"8080\""
    if str(v).strip() == "":
        return None
    from assistant.web.server import parse_listen
    try:
        parse_listen(v)
    except ValueError:
        return f"expected PORT or HOST:PORT (a port 0..65535), got {v!r}"
    return None


def _device(v):
    if isinstance(v, bool) or not isinstance(v, int | str):
        return f"must be a camera index (0 for /dev/video0) or a stream URL, not {v!r}"
    return None


def _groups(v):
    if not isinstance(v, dict) or not v:
        return "must be a table of named pixel groups"
    return None


def _per_game(kind: type) -> Callable[[Any], str | None]:
    """A table keyed by game: lists of layout specs (``list``) or set-up file paths (``str``)."""
    def check(v):
        if not isinstance(v, dict) or any(k not in GAMES for k in v):
            return f"must be a table keyed by game ({', '.join(GAMES)}), not {v!r}"
        for k, item in v.items():
            if kind is list and not (isinstance(item, list) and item and all(isinstance(x, str) for x in item)):
                return f"{k}: must be a list of layouts ([\"NAME=\"]LAYOUT), not {item!r}"
            if kind is str and not isinstance(item, str):
                return f"{k}: must be a set-up file path, not {item!r}"
        return None
    return check


def _topic_level(optional: bool = False) -> Callable[[Any], str | None]:
    """A name that is one MQTT topic level: no ``/ + #``, nothing a subscriber would mistake."""
    def check(v):
        if not isinstance(v, str) or not (re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", v) or (optional and not v)):
            return f"must be 1-64 letters, digits, '_', '.' or '-' (it is a topic level), not {v!r}"
        return None
    return check


@dataclass(frozen=True)
class Setting:
    key: str
    default: Any
    check: Callable[[Any], str | None]
    help: str


PIN = _int(0, 27)
SETTINGS = (
    Setting("table.game", "alchimiste", _choice(*GAMES), "the game on the table at start-up"),
    Setting("table.state_dir", "/var/lib/alchemy-table", _str, "where the journal and calibration live"),
    Setting("table.layouts", {}, _per_game(list), "per game, the --layout values used when the game wheel (or "
            "run without --layout) starts it: {chaudron = [\"chaudron\", \"chaudron-potions\"]}; default the game's"),
    Setting("table.setups", {}, _per_game(str), "per game, the set-up file used when the game wheel (or run "
            "without --setup) starts it; default none"),
    Setting("calibration.file", "", _str, "the calibration file (calibrate colours, board, corners...) that run "
            "reads when --calibration is not given; keep it where the service can read it (/etc/alchemy-table or "
            "table.state_dir, not a home folder)"),
    Setting("table.keep_frames", 100, _int(1, 10_000), "the live loop keeps what became of the last N frames and "
            "its last N answers (pictures, the web page), whatever the game's length; the journal keeps the game"),
    Setting("camera.source", "auto", _choice("auto", "picamera2", "opencv", "folder", "video"),
            "auto: camera.path if set, the Pi camera on a Pi, else OpenCV"),
    Setting("camera.device", 0, _device, "OpenCV camera index or stream URL; picamera2 camera number"),
    Setting("camera.path", "", _str, "image folder or video file (folder/video sources)"),
    Setting("camera.width", 1280, _int(16, 4608), "frame width, px"),
    Setting("camera.height", 960, _int(16, 3456), "frame height, px"),
    Setting("camera.fps", 10.0, _float(0.1, 120), "frames per second (also the folder rate without timestamps)"),
    Setting("camera.settle_s", 2.0, _float(0), "seconds of automatic exposure before it is locked"),
    Setting("camera.lock", True, _bool, "lock exposure and white balance after settling"),
    Setting("led.backend", "auto", _choice("auto", "simulated", "ws281x", "pi5"), "LED strip driver"),
    Setting("led.count", DEFAULT_COUNT, _int(1, 2000), "pixels on the strip"),
    Setting("led.pin", 10, PIN, "data GPIO: 10 = SPI (no root), 18 = PWM (root)"),
    Setting("led.brightness", 0.25, _float(0, 1), "brightness limit, 0..1"),
    Setting("led.gamma", 2.2, _float(1, 4), "gamma correction"),
    Setting("led.order", "GRB", _choice("RGB", "RBG", "GRB", "GBR", "BRG", "BGR"), "colour order of the chips"),
    Setting("led.png", "", _str, "simulated strip: picture rewritten on every change"),
    Setting("led.groups", default_groups(), _groups, "named groups of pixels"),
    Setting("display.backend", "auto", _choice("auto", "luma", "dummy"), "luma: the real display; dummy: PNG"),
    Setting("display.model", "ssd1306", _choice("ssd1306", "sh1106", "st7789"),
            "ssd1306/sh1106 128x64 I2C OLED, st7789 240x240 SPI LCD"),
    Setting("display.i2c_port", 1, _int(0, 22), "I2C bus (OLED)"),
    Setting("display.i2c_address", 0x3C, _int(0x03, 0x77), "I2C address (OLED; 0x3C or 0x3D)"),
    Setting("display.spi_port", 1, _int(0, 6), "SPI bus (LCD); SPI 0 carries the LED strip"),
    Setting("display.spi_device", 0, _int(0, 2), "SPI chip select (LCD)"),
    Setting("display.dc_pin", 24, PIN, "data/command GPIO (LCD)"),
    Setting("display.reset_pin", 25, PIN, "reset GPIO (LCD)"),
    Setting("display.backlight_pin", 23, PIN, "backlight GPIO (LCD)"),
    Setting("display.rotate", 0, _int(0, 3), "quarter turns"),
    Setting("display.png", "", _str, "dummy display: picture rewritten on every screen"),
    Setting("buttons.backend", "auto", _choice("auto", "gpio", "keyboard", "none"),
            "auto: GPIO on a Pi, keyboard elsewhere"),
    Setting("buttons.next", 5, _int(0, 27, optional=True), "GPIO of the next button"),
    Setting("buttons.back", 6, _int(0, 27, optional=True), "GPIO of the back button"),
    Setting("buttons.confirm", 13, _int(0, 27, optional=True), "GPIO of the confirm button"),
    Setting("buttons.encoder_a", 17, _int(0, 27, optional=True), "GPIO of the game wheel's A contact"),
    Setting("buttons.encoder_b", 27, _int(0, 27, optional=True), "GPIO of the game wheel's B contact"),
    Setting("buttons.bounce_ms", 20, _int(0, 1000), "debounce time"),
    Setting("service.stall_s", 20.0, _float(1), "main loop silent this long: stop the watchdog pings"),
    Setting("tournament.broker", "", _str, "MQTT broker of the tournament (host); empty: no tournament"),
    Setting("tournament.port", 1883, _int(1, 65535), "broker port (1883; 8883 with TLS)"),
    Setting("tournament.name", "tournament", _topic_level(), "the tournament's name (a topic level)"),
    Setting("tournament.table", "", _topic_level(optional=True), "this table's name; default the host name"),
    Setting("tournament.tls", False, _bool, "connect to the broker with TLS"),
    Setting("tournament.ca_file", "", _str, "TLS: the CA certificate (default: the system's)"),
    Setting("tournament.username", "", _str, "user name on the broker (its password file)"),
    Setting("tournament.password_file", "", _str, "file holding the password, so it is never printed"),
    Setting("web.listen", "8080", _listen, "the table's page: PORT (all addresses) or HOST:PORT; \"\": not served"),
)
SCHEMA = {s.key: s for s in SETTINGS}
SECTIONS = tuple(dict.fromkeys(k.split(".")[0] for k in SCHEMA))


# --- the resolved configuration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    values: dict[str, Any]
    origins: dict[str, str]
    files: tuple[str, ...] = field(default=())

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def origin(self, key: str) -> str:
        return self.origins[key]

    def section(self, name: str) -> dict[str, Any]:
        return {k.split(".", 1)[1]: v for k, v in self.values.items() if k.startswith(name + ".")}

    def as_toml(self) -> str:
        """The resolved configuration as TOML, each value with its origin as a comment."""
        lines: list[str] = []
        for name in SECTIONS:
            lines.append(f"[{name}]")
            for key, value in self.section(name).items():
                if key == "groups":
                    continue
                shown = f"{value:#04x}" if key.endswith("address") else _toml(value)
                lines.append(f"{key} = {shown}  # {self.origins[f'{name}.{key}']}")
            if name == "led":
                lines.append(f"\n[led.groups]  # {self.origins['led.groups']}")
                lines.extend(f"{_toml_key(g)} = {_toml(p)}" for g, p in self.values["led.groups"].items())
            lines.append("")
        return "\n".join(lines)

    def led_map(self) -> LedMap:
        return LedMap.parse(self.values["led.groups"], self.values["led.count"])

    # Builders: the only place where configuration keys meet hardware arguments.
    def open_camera(self, **kwargs):
        from hardware.camera import open_source
        c = self.section("camera")
        return open_source(c["source"], device=c["device"], path=c["path"], width=c["width"], height=c["height"],
                           fps=c["fps"], settle_s=c["settle_s"], lock=c["lock"], **kwargs)

    def open_strip(self, **kwargs):
        from hardware.leds import open_strip
        c = self.section("led")
        return open_strip(c["backend"], count=c["count"], pin=c["pin"], brightness=c["brightness"],
                          gamma=c["gamma"], order=c["order"], png=c["png"] or None, led_map=self.led_map(),
                          **kwargs)

    def open_display(self):
        from hardware.display import open_display
        c = self.section("display")
        return open_display(c["backend"], model=c["model"], i2c_port=c["i2c_port"], i2c_address=c["i2c_address"],
                            spi_port=c["spi_port"], spi_device=c["spi_device"], dc_pin=c["dc_pin"],
                            reset_pin=c["reset_pin"], backlight_pin=c["backlight_pin"], rotate=c["rotate"],
                            png=c["png"] or None)

    def button_pins(self):
        from hardware.buttons import ButtonPins
        c = self.section("buttons")
        return ButtonPins(**{k: (None if c[k] is False else c[k])
                             for k in ("next", "back", "confirm", "encoder_a", "encoder_b")})

    def open_buttons(self, **kwargs):
        from hardware.buttons import open_buttons
        c = self.section("buttons")
        return open_buttons(c["backend"], self.button_pins(), bounce_s=c["bounce_ms"] / 1000 or None, **kwargs)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_\-]+", key) else _toml(key)


# --- loading ------------------------------------------------------------------------------------------------


def load_config(system_path: str | Path | bool | None = True, user_path: str | Path | bool | None = True,
                extra_files: Iterable[str | Path] = (), overrides: Iterable[str] = (),
                flags: dict[str, Any] | None = None) -> Config:
    """Resolve the configuration. ``user_path=True`` means the user's default path; ``None`` skips a file.
    The system and user files are optional; ``extra_files`` (``--config``) must exist. ``overrides`` are
    ``KEY=VALUE`` strings (``--set``), ``flags`` are ``{key: (value, origin)}`` from named flags."""
    if system_path is True:
        system_path = system_path_default()
    if user_path is True:
        user_path = user_path_default()
    values = {s.key: s.default for s in SETTINGS}
    origins = {s.key: "default" for s in SETTINGS}
    read: list[str] = []
    for path, required in [(system_path, False), (user_path, False), *((p, True) for p in extra_files)]:
        if path is None:
            continue
        path = Path(path)
        if not required and not path.exists():
            continue
        text, data = _read_toml(path)
        read.append(str(path))
        for key, value in _flatten(path, text, data):
            where = f"{path}:{find_line(text, key) or 1}"
            problem = SCHEMA[key].check(value)
            if problem:
                raise ConfigError(f"{where}: {key}: {problem}")
            values[key] = float(value) if isinstance(SCHEMA[key].default, float) else value
            origins[key] = where
    for item in overrides:
        key, value = _parse_override(item)
        values[key] = float(value) if isinstance(SCHEMA[key].default, float) else value
        origins[key] = f"--set {item}"
    for key, (value, origin) in (flags or {}).items():
        values[key] = value
        origins[key] = origin
    _check_together(values, origins)
    return Config(values, origins, tuple(read))


def user_path_default() -> Path:
    return Path(os.environ["ALCHEMY_TABLE_USER_CONFIG"]) if os.environ.get("ALCHEMY_TABLE_USER_CONFIG") \
        else _xdg_user_path()


def system_path_default() -> Path:
    return Path(os.environ.get("ALCHEMY_TABLE_SYSTEM_CONFIG") or SYSTEM_PATH)


def _read_toml(path: Path) -> tuple[str, dict]:
    text = files.read_text(path, error=OSError)  # regular file, size limit; a missing file stays an OSError
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(f"{path}: nested more than {files.MAX_DEPTH} deep") from None
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        message = str(e)[: m.start()].strip() if m else str(e)
        line = m.group(1) if m else "1"
        column = f" (column {m.group(2)})" if m else ""
        raise ConfigError(f"{path}:{line}: not valid TOML: {message[:1].lower() + message[1:]}{column}") from None
    except ValueError as e:  # an integer of more than 4300 digits
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    files.check_depth(data, str(path), ConfigError)
    return text, data


def _flatten(path: Path, text: str, data: dict) -> list[tuple[str, Any]]:
    out = []
    for section, table in data.items():
        if section not in SECTIONS:
            raise ConfigError(f"{path}:{find_line(text, section) or 1}: {section}: unknown section"
                              f"{_suggest(section, SECTIONS)} (sections: {', '.join(SECTIONS)})")
        if not isinstance(table, dict):
            raise ConfigError(f"{path}:{find_line(text, section) or 1}: {section}: must be a table [{section}]")
        for key, value in table.items():
            full = f"{section}.{key}"
            if full not in SCHEMA:
                known = [k for k in SCHEMA if k.startswith(section + ".")]
                raise ConfigError(f"{path}:{find_line(text, full) or 1}: {full}: unknown setting"
                                  f"{_suggest(full, known)}")
            out.append((full, value))
    return out


def _suggest(word: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def _parse_override(item: str) -> tuple[str, Any]:
    key, sep, raw = item.partition("=")
    key = key.strip()
    if not sep:
        raise ConfigError(f"--set {item}: expected KEY=VALUE, e.g. --set led.count=60")
    if key not in SCHEMA:
        raise ConfigError(f"--set {item}: {key}: unknown setting{_suggest(key, SCHEMA)}")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()  # a bare word is a string: --set camera.source=folder
    problem = SCHEMA[key].check(value)
    if problem:
        raise ConfigError(f"--set {item}: {key}: {problem}")
    return key, value


def _check_together(values: dict[str, Any], origins: dict[str, str]) -> None:
    """Checks that need more than one value; the error points at the value that has to change."""
    try:
        LedMap.parse(values["led.groups"], values["led.count"])
    except BadSetting as e:
        origin = origins["led.groups"]
        group = str(e).split(":", 1)[0]
        if origin != "default" and ":" in origin:
            path = origin.rsplit(":", 1)[0]
            line = find_line(Path(path).read_text(encoding="utf-8"), f"led.groups.{group}")
            origin = f"{path}:{line or origin.rsplit(':', 1)[1]}"
        elif origin == "default":
            origin = origins["led.count"]
        raise ConfigError(f"{origin}: led.groups.{e}") from None
    if values["camera.source"] in ("folder", "video") and not values["camera.path"]:
        raise ConfigError(f"{origins['camera.source']}: camera.source: {values['camera.source']!r} needs "
                          f"camera.path")
    pins = {}
    for key in ("buttons.next", "buttons.back", "buttons.confirm", "buttons.encoder_a", "buttons.encoder_b"):
        pin = values[key]
        if pin is False:
            continue
        if pin in pins:
            # Blame the value somebody set, not the default it collides with.
            blame, other = (key, pins[pin]) if origins[key] != "default" else (pins[pin], key)
            raise ConfigError(f"{origins[blame]}: {blame}: GPIO{pin} is already {other}")
        pins[pin] = key
    if (values["buttons.encoder_a"] is False) != (values["buttons.encoder_b"] is False):
        raise ConfigError(f"{origins['buttons.encoder_a']}: buttons.encoder_a: the game wheel needs both "
                          f"encoder_a and encoder_b (or neither)")
    if values["led.backend"] != "simulated" and values["led.pin"] in pins:
        key = "led.pin"
        raise ConfigError(f"{origins[key]}: {key}: GPIO{values[key]} is already {pins[values[key]]}")


# --- finding a key's line in TOML text ----------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_ASSIGN = re.compile(r"^\s*((?:[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*'))*)"
                     r"\s*=")
_PART = re.compile(r"[A-Za-z0-9_\-]+|\"[^\"]*\"|'[^']*'")


def _parts(dotted: str) -> list[str]:
    return [p[1:-1] if p[0] in "\"'" else p for p in _PART.findall(dotted)]


def find_line(text: str, key: str) -> int | None:
    """The 1-based line where the dotted ``key`` is set (or, failing that, the line of its closest table)."""
    want = key.split(".")
    best: tuple[int, int] | None = None  # (matched depth, line)
    table: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            table = _parts(header.group(1))
            full = table
        else:
            assign = _ASSIGN.match(line)
            if not assign:
                continue
            full = table + _parts(assign.group(1))
        if full == want:
            return number
        depth = len(full)
        if full == want[:depth] and (best is None or depth > best[0]):
            best = (depth, number)
    return best[1] if best else None


# --- command-line flags ---------------------------------------------------------------------------------

SIMULATE = {"led.backend": "simulated", "display.backend": "dummy", "buttons.backend": "keyboard"}


def add_arguments(parser) -> None:
    """The configuration flags every command that uses the hardware takes."""
    group = parser.add_argument_group("configuration")
    group.add_argument("--config", metavar="FILE", action="append", default=[],
                       help="read this TOML file after the system and user files (may be repeated)")
    group.add_argument("--set", metavar="KEY=VALUE", dest="overrides", action="append", default=[],
                       help="set one value, e.g. --set led.count=60 (wins over every file; may be repeated)")
    group.add_argument("--simulate", action="store_true",
                       help="simulated LEDs, dummy display and keyboard buttons, whatever the files say")


def from_args(args) -> Config:
    flags = {key: (value, "--simulate") for key, value in SIMULATE.items()} if args.simulate else {}
    # --simulate is a flag like the others, but an explicit --set still wins over it.
    explicit = {item.partition("=")[0].strip() for item in args.overrides}
    flags = {k: v for k, v in flags.items() if k not in explicit}
    return load_config(extra_files=args.config, overrides=args.overrides, flags=flags)
