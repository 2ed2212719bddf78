"""A table mode for testing the live loop alone: it answers every committed state and every button with
events, LEDs and a screen that depend on everything it has seen (so a wrong rebuild shows).

Every commit gives a ``change`` event naming the zones that changed; every second commit also gives a
``tally`` event (so one state can carry several events); a button gives a ``press`` event.
"""

from __future__ import annotations

from assistant.table import Event, Response, TableMode
from hardware.display.screens import Message
from hardware.leds.patterns import AMBER, GREEN, RED, Flash, Solid


class EchoTable(TableMode):
    game = "echo"
    card_mats = ("chaudron-potions",)   # it stands in for the Chaudron mode, over its frames (potion mat)

    def __init__(self, layout, setup=None, source="setup"):
        super().__init__(layout, setup, source)
        self.commits = 0
        self.presses = 0

    def start(self) -> Response:
        return Response((Event("ready", f"watching {self.layout.name}"),), {"status": Solid(GREEN)},
                        Message("Ready", self.setup.get("greeting", "place the pieces")))

    def on_commit(self, state, previous) -> Response:
        self.commits += 1
        changed = state.changed(previous)
        events = [Event("change", f"commit {self.commits}: {len(changed)} zones changed", True,
                        {"changed": list(changed)})]
        if self.commits % 2 == 0:
            events.append(Event("tally", f"{self.commits} commits, {self.presses} presses"))
        group = f"cauldron-{(self.commits - 1) % 10 + 1}"
        return Response(tuple(events), {group: Solid(RED if self.commits % 3 == 0 else AMBER)},
                        Message(f"Commit {self.commits}", ", ".join(changed[:3])))

    def on_command(self, command) -> Response:
        self.presses += 1
        return Response((Event("press", f"{command} ({self.presses})"),), {"status": Flash(GREEN, 0.5)},
                        Message("Button", str(command), tone="ok"))
