"""Menus chosen with the buttons, and the bookkeeping that sends only what changed to the LEDs and display."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hardware.display.screens import Menu


@dataclass(frozen=True)
class Choice:
    """A menu in progress: ``kind`` says what it decides, ``values`` what each item stands for."""

    kind: str
    title: str
    items: tuple[str, ...]
    values: tuple[Any, ...]
    selected: int = 0
    context: Any = None

    def moved(self, step: int) -> Choice:
        return replace(self, selected=(self.selected + step) % len(self.items))

    @property
    def value(self) -> Any:
        return self.values[self.selected]

    def screen(self) -> Menu:
        return Menu(self.title, self.items, self.selected)


class Outputs:
    """Remembers what the LEDs and the display show, so a response carries only the changes (a pattern
    sent again would restart, and a flash would replay on every commit)."""

    def __init__(self) -> None:
        self.leds: dict[str, Any] = {}
        self.screen: Any = None

    def changes(self, leds: Mapping[str, Any], screen: Any) -> tuple[dict[str, Any], Any]:
        out = {group: pattern for group, pattern in leds.items() if self.leds.get(group) != pattern}
        self.leds.update(out)
        if screen == self.screen:
            return out, None
        self.screen = screen
        return out, screen
