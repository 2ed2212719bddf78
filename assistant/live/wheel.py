"""The game-select wheel of ``alchemy-table run``: ``game-next`` / ``game-previous`` (the rotary encoder of
``hardware.buttons``) show "Switch game: NAME - confirm?", cycling through the four games; ``confirm`` then
closes the game on the table (its journal archived, as for any new game) and starts the chosen one with its
layouts and set-up from the configuration (``table.layouts.<game>``, ``table.setups.<game>``; layouts picked on
the set-up page, while the service runs, come first); ``back`` or any other command cancels and puts the
game's own screen back. The page names its game (``offer``), whatever question the wheel left open. While the
question is shown, the commands are the wheel's: they do not reach the table mode (nor its journal).

>>> wheel = GameWheel("chaudron", switch=lambda game: game)
>>> wheel.press("game-next").title, wheel.choice
('Switch game', 'alchymia')
>>> wheel.press("back") is None, wheel.choice
(True, None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hardware.display.screens import Message

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")
WHEEL = ("game-next", "game-previous")


class GameWheel:
    """The wheel's state: ``choice`` is the game offered (None: the question is not shown). ``switch(game)``
    is called on ``confirm`` and does the switching."""

    def __init__(self, game: str, switch: Callable[[str], Any], games: tuple[str, ...] = GAMES):
        self.game = game
        self.switch = switch
        self.games = games
        self.choice: str | None = None
        self.saved: Any = None       # the screen the question covers (put back on cancel)

    @property
    def open(self) -> bool:
        return self.choice is not None

    def takes(self, command: str) -> bool:
        """Whether ``command`` is the wheel's (a turn, or anything while the question is shown)."""
        return command in WHEEL or self.open

    def press(self, command: str) -> Any:
        """The wheel's answer to ``command``: the question screen after a turn; after ``confirm``, whatever
        ``switch`` returned; None when the question is cancelled."""
        if command in WHEEL:
            step = 1 if command == "game-next" else -1
            start = self.choice if self.choice is not None else self.game
            self.choice = self.games[(self.games.index(start) + step) % len(self.games)]
            return self.screen()
        choice, self.choice = self.choice, None
        if command == "confirm" and choice is not None:
            self.game = choice
            return self.switch(choice)
        return None

    def offer(self, game: str) -> Message:
        """The question asked for ``game`` by name, whatever game a turn of the wheel left offered."""
        if game not in self.games:
            raise ValueError(f"game: expected one of {', '.join(self.games)}")
        self.choice = game
        return self.screen()

    def screen(self) -> Message:
        current = " (the game on the table)" if self.choice == self.game else ""
        return Message("Switch game", f"switch game: {self.choice}{current} - confirm?", "warn")
