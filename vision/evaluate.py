"""Scoring readings against rendered ground truth, per lighting condition.

Rules of the score (the truth is what ``vision.render`` writes next to each frame):
- a slot whose truth is ``unknown`` (under a hand, or holding a foreign object) is right only when read
  ``unknown``: any label there is a confident wrong label;
- a slot listed in ``partly_hidden`` (a little under the hand) is right when read as its label or
  ``unknown``;
- any other slot is right when read as its label; read ``unknown`` it is "unread" (no harm done, the
  stabiliser waits) and a label other than its own is wrong;
- a count is exact when equal; a count given where the truth is unknown is wrong; a tray a little under
  the hand (``partly_hidden``) may be counted exactly or left uncounted, as a slot may be read ``unknown``;
- a board is fully right when no zone is wrong or unread and every count is exact;
- "board found" is counted over sharp frames where at least 3 markers are visible; "found under blur" over
  the blurred frames of table sets, read as a session reads them (the position known from a sharp view of the
  same table, then re-checked on the blurred frame);
- a zone under a hand (truth ``unknown``, no foreign object there) read as a label with confidence 0.5 or
  more is counted apart ("hand zones read"): the reader must never be confident under a hand;
- trays (count zones) are exact, unread (``null`` where the truth is known) or wrong (a count other than
  the truth, or any count under a hand);
- a tray the truth flags with a cube lying on another (``piles``) is scored apart: asked (``null``, "spread
  the pile") or counted exactly is right, any other count is wrong ("stacked wrong"); the trays' figures
  above are the single layers'.
Every frame is read as ``read`` reads one photo (``Reader(spread_stacked=True)``: a tray where a cube seems to
lie on another is unread, with its reason). Table sets (``vision.render.table``) are scored by
``vision.evaluate_tables``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration import files
from calibration.layout import load_layout
from calibration.store import Calibration
from vision.image import load_frame
from vision.read import Reader
from vision.reading import Reading

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")


def percent(part: int, whole: int) -> float | None:
    """``part`` of ``whole`` in percent to two places; None of nothing."""
    return round(100.0 * part / whole, 2) if whole else None


@dataclass
class Tally:
    frames: int = 0
    findable: int = 0  # frames with at least 3 markers visible
    found: int = 0  # of those, found
    zones: int = 0
    wrong: int = 0
    unread: int = 0
    boards_read: int = 0  # frames where the board was found
    boards_right: int = 0
    counts: int = 0
    counts_exact: int = 0
    worst_count_error: int = 0
    trays: int = 0  # counts scored: known counts, and counts given under a hand
    trays_unread: int = 0
    trays_wrong: int = 0
    hand_zones: int = 0  # zones under a hand (truth unknown, no foreign object)
    hand_confident: int = 0  # of those, read as a label with confidence >= 0.5
    stacked: int = 0  # trays with a cube lying on another (truth ``piles``), scored apart
    stacked_asked: int = 0  # of those, left uncounted (with the reason)
    stacked_wrong: int = 0  # ... counted, and not their count
    blurred: int = 0  # blurred frames with at least 3 markers in view
    blurred_found: int = 0
    mistakes: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("frames", "findable", "found", "zones", "wrong", "unread", "boards_read", "boards_right",
                     "counts", "counts_exact", "trays", "trays_unread", "trays_wrong", "hand_zones",
                     "hand_confident", "blurred", "blurred_found", "stacked", "stacked_asked", "stacked_wrong"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.worst_count_error = max(self.worst_count_error, other.worst_count_error)
        self.mistakes.extend(other.mistakes)

    def row(self) -> dict[str, Any]:
        pct = percent
        return {"frames": self.frames, "board_found_pct": pct(self.found, self.findable),
                "zones_wrong_pct": pct(self.wrong, self.zones), "zones_unread_pct": pct(self.unread, self.zones),
                "boards_fully_right_pct": pct(self.boards_right, self.frames),
                "counts_exact_pct": pct(self.counts_exact, self.counts), "worst_count_error": self.worst_count_error,
                "trays": self.trays, "trays_exact_pct": pct(self.counts_exact, self.trays),
                "trays_unread_pct": pct(self.trays_unread, self.trays),
                "trays_wrong_pct": pct(self.trays_wrong, self.trays),
                "zones_under_hand": self.hand_zones, "hand_zones_read_confident": self.hand_confident,
                "board_found_blur_pct": pct(self.blurred_found, self.blurred),
                "stacked_trays": self.stacked, "stacked_asked_pct": pct(self.stacked_asked, self.stacked),
                "stacked_wrong": self.stacked_wrong}


def score(reading: Reading, truth: dict[str, Any], name: str = "") -> Tally:
    t = Tally(frames=1)
    findable = len(truth.get("markers_visible", [])) >= 3
    if truth.get("conditions", {}).get("blur"):
        t.blurred, t.blurred_found = int(findable), int(findable and reading.board_found)
    else:
        t.findable = int(findable)
        t.found = int(findable and reading.board_found)
    foreign = set(truth.get("conditions", {}).get("foreign", []))
    t.hand_zones = sum(1 for zid, want in truth["zones"].items() if want == "unknown" and zid not in foreign)
    stacked = {zid for zid, pile in truth.get("piles", {}).items() if pile.get("stacked")}
    if not reading.board_found:
        t.zones = len(truth["zones"])
        t.unread = t.zones
        t.counts = sum(1 for zid, v in truth["counts"].items() if v is not None and zid not in stacked)
        t.trays = t.trays_unread = t.counts
        t.stacked = t.stacked_asked = sum(1 for zid, v in truth["counts"].items() if v is not None and zid in stacked)
        if not findable:
            t.mistakes.append(f"{name}: board not found (fewer than 3 markers visible)")
        else:
            t.mistakes.append(f"{name}: board not found")
        return t
    t.boards_read = 1
    partly = set(truth.get("partly_hidden", []))
    right = True
    for zid, want in truth["zones"].items():
        zone = reading.zones.get(zid)  # a zone this reader does not read (a card place) counts as unknown
        got = zone.label if zone is not None else "unknown"
        t.zones += 1
        if got == want or (zid in partly and got == "unknown"):
            continue
        right = False
        if want == "unknown" and zid not in foreign and zone is not None and zone.confidence >= 0.5:
            t.hand_confident += 1
        if want != "unknown" and got == "unknown":
            t.unread += 1
        else:
            t.wrong += 1
            t.mistakes.append(f"{name}: {zid}: read {got} ({zone.confidence:.2f}), truth {want}")
    for zid, want in truth["counts"].items():
        got = reading.counts[zid].count
        if zid in stacked and want is not None:
            t.stacked += 1
            if got is None:
                t.stacked_asked += 1
            elif got != want:
                right = False
                t.stacked_wrong += 1
                t.mistakes.append(f"{name}: {zid}: counted {got}, truth {want} with a cube on another")
            continue
        if want is None:
            if got is not None:
                right = False
                t.trays += 1
                t.trays_wrong += 1
                t.mistakes.append(f"{name}: {zid}: counted {got} under a hand")
            continue
        if got is None and zid in partly:
            continue
        t.counts += 1
        t.trays += 1
        if got is None:
            right = False
            t.trays_unread += 1
            continue
        if got == want:
            t.counts_exact += 1
        else:
            right = False
            t.trays_wrong += 1
            t.worst_count_error = max(t.worst_count_error, abs(got - want))
            t.mistakes.append(f"{name}: {zid}: counted {got}, truth {want}")
    t.boards_right = int(right)
    return t


def frames_in(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise OSError(f"{folder}: not a folder")
    frames = sorted(p for p in folder.iterdir()
                    if p.suffix.lower() in IMAGE_SUFFIXES and p.with_suffix(".json").exists())
    if not frames:
        raise ValueError(f"{folder}: no frames with a ground-truth .json beside them")
    return frames


def evaluate(folder: Path, calibrations: dict[str, Calibration] | None = None, cards=None,
             card_tallies: dict | None = None) -> dict[str, Tally]:
    """Read every frame of ``folder`` that has a truth file; tallies per lighting and ``all``. ``cards``
    (a ``vision.cards.store.CardLibrary``) names the cards of card zones; ``card_tallies``, if given, is
    filled with ``vision.cards.evaluate.CardTally`` per lighting and ``all``."""
    readers: dict[str, Reader] = {}
    tallies: dict[str, Tally] = {}
    total = Tally()
    for path in frames_in(folder):
        truth = files.load_json(path.with_suffix(".json"))
        if not isinstance(truth, dict) or not isinstance(truth.get("layout"), str):
            raise ValueError(f"{path.with_suffix('.json')}: layout: expected the name of the frame's layout")
        name = truth["layout"]
        if name not in readers:
            readers[name] = Reader(load_layout(name), (calibrations or {}).get(name), cards=cards,
                                   spread_stacked=True)  # (as `read` reads one photo)
        frame = load_frame(path)
        reader = readers[name]
        reader.locator.invalidate()  # every frame is a new scene: no cached homography
        reading = reader.read(frame)
        t = score(reading, truth, path.name)
        lighting = truth.get("conditions", {}).get("lighting", "unknown")
        if card_tallies is not None and reader.cards:
            from vision.cards.evaluate import CardTally
            for key in (lighting, "all"):
                card_tallies.setdefault(key, CardTally()).add(reading, truth, [z.id for z in reader.cards.zones],
                                                              reader.cards.times if key == "all" else (), path.name)
        tallies.setdefault(lighting, Tally()).add(t)
        total.add(t)
    tallies["all"] = total
    return tallies


COLUMNS = (("frames", "frames"), ("zones wrong %", "zones_wrong_pct"), ("zones unread %", "zones_unread_pct"),
           ("boards fully right %", "boards_fully_right_pct"),
           ("hand zones read >= 0.5", "hand_zones_read_confident"), ("trays exact %", "trays_exact_pct"),
           ("trays unread %", "trays_unread_pct"), ("trays wrong %", "trays_wrong_pct"),
           ("worst tray error", "worst_count_error"), ("stacked asked %", "stacked_asked_pct"),
           ("stacked wrong", "stacked_wrong"), ("board found %", "board_found_pct"),
           ("found under blur %", "board_found_blur_pct"))


def format_table(tallies: dict[str, Tally], first: str = "lighting") -> str:
    """A Markdown table, one row per tally; the hand column reads ``n / zones under a hand``."""
    lines = ["| " + " | ".join([first] + [h for h, _ in COLUMNS]) + " |", "|" + "---|" * (len(COLUMNS) + 1)]
    for name, t in tallies.items():
        r = t.row()
        cells = []
        for _, key in COLUMNS:
            v = r[key]
            if key == "hand_zones_read_confident":
                cells.append(f"{v} / {r['zones_under_hand']}")
            else:
                cells.append("-" if v is None else f"{v:g}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
