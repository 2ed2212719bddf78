"""Screens drawn with Pillow at the display's own size: 128 x 64 monochrome or 240 x 240 colour.

A screen is plain data; ``render(screen, size, mode)`` draws it. The same screen reads well on both: the
monochrome layout uses the 6 x 11 bitmap font at scale 1 (21 characters a line), the colour one at
scale 2 with a coloured title bar that carries the tone (green ok, red refused, amber warning).

>>> render(Message("Potion refused", "Cauldron 3 is not empty", tone="error"), (128, 64), "1").size
(128, 64)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from hardware.exc import BadSetting
from hardware.fonts import CHAR_H, CHAR_W, draw_text, printable, text_size, wrap

TONES = {"info": (40, 90, 200), "ok": (20, 150, 60), "warn": (220, 140, 0), "error": (200, 30, 30)}
MARKS = {"info": "", "ok": "", "warn": "! ", "error": "X "}


@dataclass(frozen=True)
class Message:
    """A title and a few words: a verdict with its reason, a prompt, a status."""

    title: str
    text: str = ""
    tone: str = "info"


@dataclass(frozen=True)
class Scores:
    """Names and points, in the order given (the caller ranks them); the first row is marked as leading."""

    title: str
    rows: tuple[tuple[str, int], ...]
    note: str = ""


@dataclass(frozen=True)
class Counter:
    """One number out of a maximum, large, with a bar: the Cramés in the cauldron."""

    label: str
    value: int
    maximum: int


@dataclass(frozen=True)
class Menu:
    """A choice made with the buttons: the selected item is drawn inverted."""

    title: str
    items: tuple[str, ...]
    selected: int = 0


class _Canvas:
    """Colours and scales for one display kind, so each screen is written once."""

    def __init__(self, size: tuple[int, int], mode: str):
        if mode not in ("1", "RGB"):
            raise BadSetting(f"a screen is drawn in mode '1' or 'RGB', not {mode!r}")
        self.image = Image.new(mode, size, 0)
        self.draw = ImageDraw.Draw(self.image)
        self.w, self.h = size
        self.colour = mode == "RGB"
        self.scale = 2 if self.colour and self.w >= 200 else 1
        self.fg = (255, 255, 255) if self.colour else 1
        self.bg = (0, 0, 0) if self.colour else 0
        self.line = CHAR_H * self.scale - (1 if self.scale == 1 else 0)  # the font's last row is blank
        self.pad = 2 * self.scale

    def tone(self, tone: str):
        return TONES[tone] if self.colour else self.fg

    def title(self, text: str, tone: str = "info") -> int:
        """An inverted bar across the top; returns the first free row under it."""
        bar = CHAR_H * self.scale + self.pad
        self.draw.rectangle((0, 0, self.w - 1, bar - 1), fill=self.tone(tone))
        text = _fit(MARKS[tone] + text, self.w - 2 * self.pad, self.scale)
        ink = self.bg if not self.colour else (255, 255, 255)
        draw_text(self.image, (self.pad, self.pad // 2 + 1), text, ink, self.scale)
        return bar + self.pad // 2

    def text(self, xy, text: str, scale: int | None = None, fill=None) -> None:
        draw_text(self.image, xy, text, self.fg if fill is None else fill, scale or self.scale)


def _fit(text: str, width_px: int, scale: int) -> str:
    per_line = max(1, width_px // (CHAR_W * scale))
    text = printable(text)
    return text if len(text) <= per_line else text[: per_line - 1] + "."


def render(screen, size: tuple[int, int], mode: str) -> Image.Image:
    """Draw ``screen`` for a display of ``size`` in ``mode`` ('1' monochrome or 'RGB')."""
    c = _Canvas(size, mode)
    if isinstance(screen, Message):
        _message(c, screen)
    elif isinstance(screen, Scores):
        _scores(c, screen)
    elif isinstance(screen, Counter):
        _counter(c, screen)
    elif isinstance(screen, Menu):
        _menu(c, screen)
    else:
        raise BadSetting(f"no way to draw a {type(screen).__name__}")
    return c.image


def _message(c: _Canvas, s: Message) -> None:
    if s.tone not in TONES:
        raise BadSetting(f"a message tone is one of {', '.join(TONES)}, not {s.tone!r}")
    y = c.title(s.title, s.tone)
    lines = wrap(s.text, c.w - 2 * c.pad, c.scale)
    fit = (c.h - y) // c.line
    if len(lines) > fit:
        lines = [*lines[: fit - 1], _fit(lines[fit - 1] + "...", c.w - 2 * c.pad, c.scale)]
    for i, line in enumerate(lines):
        c.text((c.pad, y + i * c.line), line)


def _scores(c: _Canvas, s: Scores) -> None:
    y = c.title(s.title)
    rows = list(s.rows)
    room = (c.h - y - (c.line if s.note else 0)) // c.line
    per_line = (c.w - 2 * c.pad) // (CHAR_W * c.scale)
    for i, (name, points) in enumerate(rows[:room]):
        value = str(points)
        lead = ">" if i == 0 and len(rows) > 1 and points > rows[1][1] else " "
        name = _fit(name, (per_line - len(value) - 2) * CHAR_W * c.scale, c.scale)
        c.text((c.pad, y + i * c.line), lead + name)
        c.text((c.w - c.pad - text_size(value, c.scale)[0], y + i * c.line), value)
    if s.note:
        c.text((c.pad, c.h - c.line), _fit(s.note, c.w - 2 * c.pad, c.scale))


def _counter(c: _Canvas, s: Counter) -> None:
    if s.maximum <= 0:
        raise BadSetting("a counter needs a positive maximum")
    full = s.value >= s.maximum
    y = c.title(s.label, "error" if full else "warn" if s.value * 4 >= s.maximum * 3 else "info")
    big = 3 * c.scale
    number = f"{s.value}/{s.maximum}"
    while big > 1 and text_size(number, big)[0] > c.w - 2 * c.pad:
        big -= 1
    w, h = text_size(number, big)
    bar_h = 6 * c.scale
    c.text(((c.w - w) // 2, y + (c.h - y - bar_h - h) // 2), number, scale=big)
    top = c.h - bar_h - c.pad
    c.draw.rectangle((c.pad, top, c.w - 1 - c.pad, c.h - 1 - c.pad), outline=c.fg)
    inner = c.w - 2 * c.pad - 4
    filled = round(inner * min(max(s.value, 0), s.maximum) / s.maximum)
    if filled:
        fill = c.tone("error" if full else "warn") if c.colour else c.fg
        c.draw.rectangle((c.pad + 2, top + 2, c.pad + 1 + filled, c.h - 3 - c.pad), fill=fill)


def _menu(c: _Canvas, s: Menu) -> None:
    if not s.items or not 0 <= s.selected < len(s.items):
        raise BadSetting("a menu needs items and a selected index among them")
    y = c.title(s.title)
    room = max(1, (c.h - y) // c.line)
    first = min(max(0, s.selected - room // 2), max(0, len(s.items) - room))
    items: Sequence[str] = s.items[first:first + room]
    for i, item in enumerate(items):
        top = y + i * c.line
        if first + i == s.selected:
            c.draw.rectangle((0, top, c.w - 1, top + c.line - 1), fill=c.fg)
            c.text((c.pad, top), _fit(item, c.w - 2 * c.pad, c.scale), fill=c.bg)
        else:
            c.text((c.pad, top), _fit(item, c.w - 2 * c.pad, c.scale))
