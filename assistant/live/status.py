"""What the service tells systemd while it runs: READY once the camera has given a frame, then a STATUS line
that follows the table (``systemctl status alchemy-table`` shows it), and when the light has changed enough
that the locked exposure no longer fits.

>>> sent = []
>>> status = Status("chaudron", send=sent.append)
>>> status.frame({"board_found": True, "zones": {}}, gate=None, events=())
>>> status.frame({"board_found": True, "zones": {}}, gate=None, events=())   # unchanged: not sent again
>>> sent
['chaudron: watching the table']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from assistant import notify

ENDING_EVENTS = ("game-over", "end", "win")  # the table modes' events that close a game


class Status:
    """Sends ``STATUS=`` to systemd when the line changes (``send`` replaces systemd in tests)."""

    def __init__(self, game: str, send: Callable[[str], Any] | None = None):
        self.game = game
        self.send = send or (lambda text: notify.notify(f"STATUS={text}"))
        self.text: str | None = None
        self.over = False

    def say(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.send(text)

    def camera_lost(self, message: str) -> None:
        self.say(f"{self.game}: camera lost: {message}")

    def frame(self, reading: Mapping[str, Any] | None, gate: str | None, events: Iterable[Any]) -> None:
        """After each frame: the game's end, the board not found (and which), or watching."""
        if any(getattr(e, "kind", None) in ENDING_EVENTS for e in events):
            self.over = True
        if self.over:
            self.say(f"{self.game}: game over (turn the game wheel for a new game)")
        elif reading is not None and not reading.get("board_found", True):
            seen = reading.get("markers_seen", {})
            missing = ", ".join(f"{name}: {seen[name]} markers seen" if name in seen else name
                                for name in reading.get("missing", ())) or "the board"
            self.say(f"{self.game}: board not found ({missing}); is it in view and lit?")
        else:  # (not the gate: it changes with every hand, and each change would be one more datagram)
            self.say(f"{self.game}: watching the table")


class LightWatch:
    """Says when the light on the table has changed a lot for a while: the frame's mean level stays more than
    ``ratio`` times brighter or darker than when exposure was locked for ``frames`` frames in a row. A hand
    or a passing shadow darkens part of the frame for a moment; a lamp switched on or the dusk stays."""

    def __init__(self, ratio: float = 1.5, frames: int = 30):
        self.ratio = ratio
        self.frames = frames
        self.reference: float | None = None
        self.run = 0
        self.skip = 0

    def feed(self, level: float) -> bool:
        """The frame's mean level (0..255); True when it is time to relock (the reference then restarts)."""
        level = max(level, 1.0)
        if self.skip:  # the camera is settling again after a relock: no reference yet
            self.skip -= 1
            return False
        if self.reference is None:
            self.reference = level
            return False
        changed = max(level / self.reference, self.reference / level) >= self.ratio
        self.run = self.run + 1 if changed else 0
        if self.run >= self.frames:
            self.reset(settling=self.frames)
            return True
        return False

    def reset(self, settling: int = 0) -> None:
        """Forget the reference (after any relock); the next ``settling`` frames are not looked at."""
        self.reference = None
        self.run = 0
        self.skip = settling
