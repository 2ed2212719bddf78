"""Scoring the card zones of rendered frames: card accuracy, unknown cards accepted, time per card zone.

Rules of the score (the truth is what ``vision.render`` writes; a foreign object in a card zone is a card of
no set, drawn in the same style):
- a card view (the truth names a card) is right when read as that card, or ``unknown`` while a hand lies a
  little over it (``partly_hidden``); read ``unknown`` otherwise it is unread, any other reading is wrong;
- a stranger (a card never enrolled) is accepted, wrongly, when read as any card name;
- an empty zone is right when read ``empty``; read as a card name it is a card seen where there is none;
- a zone under a hand (truth ``unknown`` without a stranger) must not read ``empty`` (nor a card).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.evaluate import percent


@dataclass
class CardTally:
    views: int = 0
    right: int = 0
    wrong: int = 0
    unread: int = 0
    strangers: int = 0
    accepted: int = 0
    empties: int = 0
    empties_right: int = 0
    empty_as_card: int = 0
    covered: int = 0
    covered_empty: int = 0
    times: list[float] = field(default_factory=list)
    mistakes: list[str] = field(default_factory=list)

    def add(self, reading, truth: dict[str, Any], zone_ids, times=(), name: str = "") -> None:
        """Score one frame's card zones (``zone_ids``); ``times`` are the seconds each zone took."""
        self.times.extend(times)
        if not reading.board_found:
            return
        partly = set(truth.get("partly_hidden", []))
        foreign = set(truth.get("conditions", {}).get("foreign", []))
        for zid in zone_ids:
            want, z = truth["zones"][zid], reading.zones[zid]
            got = z.label
            if zid in foreign:
                self.strangers += 1
                if got not in ("unknown", "empty"):
                    self.accepted += 1
                    self.mistakes.append(f"{name}: {zid}: a card never enrolled read as {got} ({z.confidence:.2f})")
            elif want == "empty":
                self.empties += 1
                self.empties_right += got == "empty"
                if got != "empty" and got != "unknown":
                    self.empty_as_card += 1
                    self.mistakes.append(f"{name}: {zid}: read {got} ({z.confidence:.2f}), truth empty")
            elif want == "unknown":
                self.covered += 1
                if got == "empty":
                    self.covered_empty += 1
                    self.mistakes.append(f"{name}: {zid}: read empty ({z.confidence:.2f}) under a hand")
            elif want != "unknown":
                self.views += 1
                if got == want or (zid in partly and got == "unknown"):
                    self.right += 1
                elif got == "unknown":
                    self.unread += 1
                else:
                    self.wrong += 1
                    self.mistakes.append(f"{name}: {zid}: read {got} ({z.confidence:.2f}), truth {want}")

    def merge(self, other: CardTally) -> None:
        for key in ("views", "right", "wrong", "unread", "strangers", "accepted", "empties", "empties_right",
                    "empty_as_card", "covered", "covered_empty"):
            setattr(self, key, getattr(self, key) + getattr(other, key))
        self.times.extend(other.times)
        self.mistakes.extend(other.mistakes)

    def row(self) -> dict[str, Any]:
        pct = percent
        return {"card_views": self.views, "cards_right_pct": pct(self.right, self.views),
                "cards_wrong_pct": pct(self.wrong, self.views), "cards_unread_pct": pct(self.unread, self.views),
                "unknown_cards": self.strangers, "unknown_cards_accepted_pct": pct(self.accepted, self.strangers),
                "empty_right_pct": pct(self.empties_right, self.empties), "empty_read_as_card": self.empty_as_card,
                "covered_places": self.covered, "covered_read_empty": self.covered_empty,
                "median_ms_per_card_zone": round(1000 * float(np.median(self.times)), 2) if self.times else None}


def format_cards(tallies: dict[str, CardTally]) -> str:
    head = ("lighting", "card views", "cards right %", "wrong %", "unread %", "unknown cards",
            "unknown accepted %", "empty right %", "empty read as card", "covered", "covered read empty",
            "median ms / card zone")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, t in tallies.items():
        r = t.row()
        cells = [r["card_views"], r["cards_right_pct"], r["cards_wrong_pct"], r["cards_unread_pct"], r["unknown_cards"],
                 r["unknown_cards_accepted_pct"], r["empty_right_pct"], r["empty_read_as_card"], r["covered_places"],
                 r["covered_read_empty"], r["median_ms_per_card_zone"]]
        lines.append(f"| {name} | " + " | ".join("-" if v is None else f"{v:g}" for v in cells) + " |")
    return "\n".join(lines)
