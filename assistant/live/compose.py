"""One picture per event: the frame annotated with its reading, beside the LED strip, the display and the
events, so a replay can be checked at a glance.

::

    +-----------------------------+---------------------+
    |                             | display (x3)        |
    |  frame, zones annotated     | LED strip           |
    |  (960 x 720)                | events of this step |
    +-----------------------------+---------------------+
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from assistant.live.boards import Boards
from assistant.live.outputs import Outputs
from assistant.live.pipeline import Step
from hardware.fonts import CHAR_H, draw_text, wrap
from vision.annotate import annotate

FRAME_W, FRAME_H = 960, 720
PANEL_W = 420
PAD = 12
BACKGROUND = (28, 28, 32)
TEXT = (225, 225, 225)
VERDICT = {True: (90, 210, 110), False: (235, 80, 70), None: (200, 200, 120)}


def annotated(frame: np.ndarray, boards: Boards) -> np.ndarray:
    """The frame with every board's last reading drawn on it (BGR)."""
    out = frame
    for board, reading in zip(boards.boards, boards.last, strict=True):
        if reading is not None:
            out = annotate(out, board.layout, reading)
    return out


def compose(frame: np.ndarray, boards: Boards, outputs: Outputs, step: Step | None, title: str = "") -> Image.Image:
    """The composed picture (RGB) for ``step`` over ``frame`` read by ``boards``."""
    picture = annotated(frame, boards)
    picture = cv2.resize(picture, (FRAME_W, FRAME_H), interpolation=cv2.INTER_AREA)
    canvas = Image.new("RGB", (FRAME_W + PANEL_W, FRAME_H), BACKGROUND)
    canvas.paste(Image.fromarray(cv2.cvtColor(picture, cv2.COLOR_BGR2RGB)), (0, 0))
    x, y = FRAME_W + PAD, PAD
    width = PANEL_W - 2 * PAD
    if title:
        draw_text(canvas, (x, y), title, TEXT, scale=2)
        y += 2 * CHAR_H + PAD
    screen = outputs.screen_image()
    if screen is not None:
        screen = screen.convert("RGB")
        scale = max(1, min(3, width // screen.width))
        screen = screen.resize((screen.width * scale, screen.height * scale), Image.NEAREST)
        ImageDraw.Draw(canvas).rectangle((x - 2, y - 2, x + screen.width + 1, y + screen.height + 1),
                                         outline=(90, 90, 100))
        canvas.paste(screen, (x, y))
        y += screen.height + PAD
    strip = outputs.strip_image()
    if strip is not None:
        if strip.width > width:
            strip = strip.resize((width, max(1, strip.height * width // strip.width)), Image.LANCZOS)
        canvas.paste(strip, (x, y))
        y += strip.height + PAD
    if step is not None:
        heading = {"start": "start", "state": f"commit at frame {step.frame}",
                   "command": f"button: {step.command}"}[step.kind]
        draw_text(canvas, (x, y), heading, TEXT)
        y += CHAR_H + 4
        for event in step.events:
            for line in wrap(f"[{event.kind}] {event.message}", width):
                if y > FRAME_H - CHAR_H - PAD:
                    return canvas
                draw_text(canvas, (x, y), line, VERDICT[event.legal])
                y += CHAR_H
            y += 4
    return canvas
