"""Text for small screens: Pillow's built-in bitmap font, drawn at whole-number scales.

A bitmap font stays sharp on a 1-bit OLED (anti-aliased text thresholds into ragged strokes) and draws
the same pixels on every machine and Pillow version, which keeps the golden screen images exact. The
font is 6 x 11 pixels per character and covers Latin-1 (é, è, à, ç: the French game vocabulary).

>>> text_size("Cramé", scale=2)
(60, 22)
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw, ImageFont

CHAR_W, CHAR_H = 6, 11
_REPLACE = {"→": "->", "←": "<-", "…": "...", "–": "-", "—": "-", "’": "'", "‘": "'", "“": '"', "”": '"',
            "✓": "ok", "✗": "x", "œ": "oe", "Œ": "OE"}


@cache
def _font() -> ImageFont.ImageFont:
    return ImageFont.load_default_imagefont()


def printable(text: str) -> str:
    """The text in the font's Latin-1 range (typographic marks swapped for plain ones, others as '?')."""
    out = []
    for ch in text:
        ch = _REPLACE.get(ch, ch)
        out.append(ch if all(ord(c) < 256 for c in ch) and ch.isprintable() else "?")
    return "".join(out)


def text_size(text: str, scale: int = 1) -> tuple[int, int]:
    return (len(printable(text)) * CHAR_W * scale, CHAR_H * scale)


def draw_text(image: Image.Image, xy: tuple[int, int], text: str, fill, scale: int = 1) -> None:
    """Draw one line of text with its top-left corner at ``xy``, ``scale`` times the font's size."""
    text = printable(text)
    if not text:
        return
    mask = Image.new("1", (len(text) * CHAR_W, CHAR_H))
    ImageDraw.Draw(mask).text((0, 0), text, font=_font(), fill=1)
    if scale != 1:
        mask = mask.resize((mask.width * scale, mask.height * scale), Image.Resampling.NEAREST)
    image.paste(fill, (int(xy[0]), int(xy[1])), mask)


def wrap(text: str, width_px: int, scale: int = 1) -> list[str]:
    """Break text into lines no wider than ``width_px`` (on spaces; a word too long is cut)."""
    per_line = max(1, width_px // (CHAR_W * scale))
    lines: list[str] = []
    for paragraph in printable(text).split("\n"):
        line = ""
        for word in paragraph.split():
            while len(word) > per_line:
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:per_line])
                word = word[per_line:]
            candidate = f"{line} {word}" if line else word
            if len(candidate) <= per_line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines
