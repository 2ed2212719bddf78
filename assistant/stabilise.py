"""The stabiliser: a stream of per-frame readings in, a few committed states out.

The vision reads every frame, including frames with a hand over the board, a cube in mid-air or a zone in
shadow. The table modes must only ever see states that are really on the table, so this module sits between
them: it gates frames that cannot be trusted and commits a state only when the same reading holds for
``agree`` consecutive frames (default 3) and no gate is raised.

A frame raises a gate when:

- the board is not found (``board_found`` false);
- any zone reads ``unknown`` (a hand over a zone reads ``unknown``: that is how the vision says "something
  that is none of my labels"), or any label or count has a confidence under ``min_confidence`` (off unless set);
- any count zone cannot be counted (``null`` or ``"unknown"`` instead of a number);
- the motion score is above ``motion_threshold``.

The first three make the frame's reading worthless: the run of agreeing readings starts again from zero.
Motion is different: a frame's motion score compares it with the previous frame, so it says that something
moved *between* the two frames, not that this frame is blurred. A moving frame therefore breaks the run
(it can never extend the readings before it) but its own reading may start a new run; it can never be the
frame that commits. The effect: when a hand leaves the board, the first frame without the hand starts the
run and, with ``agree=3``, the third frame without the hand commits. Readings that flicker (one zone
changing its mind from frame to frame) never hold for ``agree`` frames, so they never commit.

A committed state identical to the last committed one is not committed again: a hand that passes over the
board and leaves everything as it was produces no commit at all.

>>> s = Stabiliser(agree=3)
>>> reading = {"board_found": True, "zones": {"r0c0": {"label": "bone", "confidence": 0.97}}, "counts": {}}
>>> [s.feed(reading, motion=0.0, frame=i) for i in range(3)][-1].state.label("r0c0")
'bone'
>>> s.feed(reading, motion=0.0, frame=3) is None   # same state again: nothing new to commit
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

UNKNOWN = "unknown"

AGREE = 3
"""Consecutive agreeing, ungated readings needed to commit (frames)."""

MOTION_THRESHOLD = 0.01
"""Motion gate (fraction of the board's area that changed between two frames, 0..1). A hand is several per
cent of the board; one cube put down is about 0.2 %, so placing a piece does not hold the commit back."""

MIN_CONFIDENCE = 0.0
"""Below this confidence (0..1, as the vision reports it) a label or a count is treated as ``unknown``.
Off by default: the vision itself says ``unknown`` for a hidden zone (and ``null`` for a hidden tray), its
confidences are not calibrated probabilities, and an unsure reading that wavers never holds for ``agree``
frames anyway. Raise it if a particular camera gives steady but wrong low-confidence labels."""

CountValue = tuple[tuple[str, int], ...]
"""A count zone's value: sorted (colour, number) pairs; a zone that counts a single colour has ``("count", n)``."""


class ReadingError(ValueError):
    """A reading that does not have the shape ``alchemy-table read --json`` prints."""


@dataclass(frozen=True)
class State:
    """What is on the table: every slot zone's label and every count zone's counts. Plain and hashable.

    >>> st = State.of({"r0c0": "bone", "r0c1": "empty"}, {"reserve-grey": 7})
    >>> st.label("r0c0"), st.count("reserve-grey")
    ('bone', 7)
    >>> State.from_json(st.to_json()) == st
    True
    """

    zones: tuple[tuple[str, str], ...] = ()             # (zone id, label), sorted by zone id
    counts: tuple[tuple[str, CountValue], ...] = ()     # (count zone id, counts), sorted by zone id
    _labels: dict[str, str] = field(init=False, repr=False, compare=False, hash=False)
    _counts: dict[str, CountValue] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self):
        object.__setattr__(self, "_labels", dict(self.zones))
        object.__setattr__(self, "_counts", dict(self.counts))

    @classmethod
    def of(cls, zones: Mapping[str, str], counts: Mapping[str, int | Mapping[str, int]] | None = None) -> State:
        """Build a state from plain mappings; a count is a number or a mapping colour -> number."""
        def value(v):
            return (("count", int(v)),) if isinstance(v, int) else tuple(sorted((str(c), int(n)) for c, n in v.items()))
        return cls(tuple(sorted(zones.items())), tuple(sorted((z, value(v)) for z, v in (counts or {}).items())))

    def label(self, zone_id: str) -> str:
        return self._labels[zone_id]

    def labels(self) -> dict[str, str]:
        return dict(self._labels)

    def count(self, zone_id: str) -> int:
        """The number of pieces in a count zone (all colours together when it counts several)."""
        value = dict(self._counts[zone_id])
        return value["count"] if "count" in value else sum(value.values())

    def colour_counts(self, zone_id: str) -> dict[str, int]:
        return dict(self._counts[zone_id])

    def changed(self, other: State | None) -> tuple[str, ...]:
        """Zone ids (slot and count) whose content differs from ``other``; all of them when ``other`` is None."""
        if other is None:
            return tuple(sorted(self._labels.keys() | self._counts.keys()))
        ids = {z for z in self._labels.keys() | other._labels.keys()
               if self._labels.get(z) != other._labels.get(z)}
        ids |= {z for z in self._counts.keys() | other._counts.keys()
                if self._counts.get(z) != other._counts.get(z)}
        return tuple(sorted(ids))

    def to_json(self) -> dict[str, Any]:
        """The form written to the journal: ``{"zones": {id: label}, "counts": {id: {colour: n}}}``."""
        return {"zones": dict(self.zones), "counts": {z: dict(v) for z, v in self.counts}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> State:
        try:
            zones, counts = data["zones"], data.get("counts", {})
            return cls.of({str(z): str(label) for z, label in zones.items()},
                          {str(z): {str(c): int(n) for c, n in v.items()} for z, v in counts.items()})
        except (KeyError, AttributeError, TypeError, ValueError) as e:
            raise ReadingError(f"state: expected {{'zones': {{id: label}}, 'counts': {{id: {{colour: n}}}}}} "
                               f"({type(e).__name__}: {e})") from None


@dataclass(frozen=True)
class Commit:
    """A committed state and when it was seen."""

    state: State
    frame: Any                # the frame index or timestamp given with the reading that committed
    since: Any                # the frame that started the run of agreeing readings
    previous: State | None    # the state committed before this one (None for the first)

    @property
    def changed(self) -> tuple[str, ...]:
        return self.state.changed(self.previous)

    def to_json(self) -> dict[str, Any]:
        """The ``data`` of a ``state`` record in the journal (docs/journal.md); ``State.from_json`` reads it."""
        return {"frame": self.frame, "since": self.since, **self.state.to_json()}


class Stabiliser:
    """Gate untrustworthy frames; commit a state when ``agree`` consecutive readings agree.

    The object's whole state is in its attributes: ``committed`` (last committed ``State`` or None),
    ``candidate`` (the reading of the current run), ``streak`` (its length in frames) and ``gate`` (why the
    last frame was gated, or None). Pass ``committed`` to carry on after a restart (from the journal) so that
    the state already on record is not committed again.
    """

    def __init__(self, agree: int = AGREE, motion_threshold: float = MOTION_THRESHOLD,
                 min_confidence: float = MIN_CONFIDENCE, committed: State | None = None):
        if not isinstance(agree, int) or agree < 1:
            raise ValueError(f"agree: expected a whole number of frames >= 1, got {agree!r}")
        if not motion_threshold >= 0:
            raise ValueError(f"motion_threshold: expected a number >= 0, got {motion_threshold!r}")
        if not 0 <= min_confidence <= 1:
            raise ValueError(f"min_confidence: expected a number in 0..1, got {min_confidence!r}")
        self.agree = agree
        self.motion_threshold = motion_threshold
        self.min_confidence = min_confidence
        self.committed: State | None = committed
        self.candidate: State | None = None
        self.since: Any = None
        self.streak = 0
        self.gate: str | None = None

    def feed(self, reading: Mapping[str, Any], motion: float | None, frame: Any = None) -> Commit | None:
        """Take one frame's reading and motion score; return the commit it makes, if any.

        ``motion`` compares this frame with the previous one (``vision.motion_score``); None (the first frame,
        nothing to compare with) and NaN count as moving: such a frame may start a run but never commits.
        """
        state, blind = read_state(reading, self.min_confidence)
        moving = motion is None or not motion <= self.motion_threshold
        if blind is not None:
            self.gate, self.candidate, self.since, self.streak = blind, None, None, 0
            return None
        if moving or state != self.candidate:
            self.candidate, self.since, self.streak = state, frame, 1
        else:
            self.streak += 1
        if moving:
            self.gate = ("motion not measured" if motion is None
                         else f"motion {motion:.3g} over {self.motion_threshold:g}")
            return None
        self.gate = None
        if self.streak < self.agree or state == self.committed:
            return None
        commit = Commit(state, frame, self.since, self.committed)
        self.committed = state
        return commit

    def reset(self) -> None:
        """Forget the current run (the board was moved, the game changed); the committed state is kept."""
        self.candidate, self.since, self.streak, self.gate = None, None, 0, None


def last_committed(records: Iterable[Any]) -> State | None:
    """The state of the last ``state`` record among journal records (``assistant.journal.Record``), to resume
    a stabiliser with after a restart: ``Stabiliser(committed=last_committed(records))``."""
    last = None
    for record in records:
        if record.kind == "state":
            last = record
    return None if last is None else State.from_json(last.data)


def read_state(reading: Mapping[str, Any], min_confidence: float = MIN_CONFIDENCE) -> tuple[State | None, str | None]:
    """The state a reading shows, or (None, why it cannot be trusted). Raises ReadingError on a bad shape."""
    if not isinstance(reading, Mapping):
        raise ReadingError(f"reading: expected an object, got {type(reading).__name__}")
    if not reading.get("board_found"):
        return None, "board not found"
    zones, counts = reading.get("zones", {}), reading.get("counts", {})
    if not isinstance(zones, Mapping) or not isinstance(counts, Mapping):
        raise ReadingError("reading: zones and counts must be objects")
    labels = {}
    for zone_id, entry in zones.items():
        label, confidence = _field(entry, "label", f"zones.{zone_id}"), _confidence(entry, f"zones.{zone_id}")
        if not isinstance(label, str):
            raise ReadingError(f"reading: zones.{zone_id}.label: expected a string, got {label!r}")
        if label == UNKNOWN or confidence < min_confidence:
            return None, f"zone {zone_id} {'unknown' if label == UNKNOWN else f'unsure ({confidence:.2f})'}"
        labels[zone_id] = label
    values = {}
    for zone_id, entry in counts.items():
        value, confidence = _count_value(entry, f"counts.{zone_id}"), _confidence(entry, f"counts.{zone_id}")
        if value is None or confidence < min_confidence:
            return None, f"count {zone_id} {'unknown' if value is None else f'unsure ({confidence:.2f})'}"
        values[zone_id] = value
    return State(tuple(sorted(labels.items())), tuple(sorted(values.items()))), None


def _field(entry: Any, key: str, where: str) -> Any:
    if not isinstance(entry, Mapping) or key not in entry:
        raise ReadingError(f"reading: {where}: expected an object with {key!r}")
    return entry[key]


def _confidence(entry: Mapping[str, Any], where: str) -> float:
    c = entry.get("confidence", 1.0)  # a reading without confidence is as sure as the vision makes it
    if isinstance(c, bool) or not isinstance(c, numbers.Real) or math.isnan(c):  # numpy numbers welcome
        raise ReadingError(f"reading: {where}.confidence: expected a number, got {c!r}")
    return float(c)


def _count_value(entry: Any, where: str) -> CountValue | None:
    """Counts from ``{"count": n}``, ``{colour: n}``, or a total with a nested breakdown such as the vision's
    ``{"count": n, "by_label": {colour: n}}`` (the breakdown is kept, the total dropped when it is their sum).
    None if any count is unknown."""
    if not isinstance(entry, Mapping):
        raise ReadingError(f"reading: {where}: expected an object, got {entry!r}")
    pairs: dict[str, int] = {}
    unknown = False
    items = [(k, v) for k, v in entry.items() if k != "confidence" and not isinstance(v, Mapping)]
    items += [(str(c), n) for v in entry.values() if isinstance(v, Mapping) for c, n in v.items()]  # nested form
    for key, v in items:
        if v is None or v == UNKNOWN:
            unknown = True
        elif isinstance(v, str):
            continue  # a descriptive field (the colour a tray holds, say), not a count
        elif isinstance(v, numbers.Real) and not isinstance(v, bool) and v >= 0 and float(v).is_integer():
            pairs[key] = int(v)  # 7, numpy's int64(7) and 7.0 alike
        else:
            raise ReadingError(f"reading: {where}.{key}: expected a count >= 0, got {v!r}")
    if unknown:
        return None
    if not pairs:
        raise ReadingError(f"reading: {where}: no count in {dict(entry)!r}")
    colours = {k: n for k, n in pairs.items() if k != "count"}
    if colours and pairs.get("count") == sum(colours.values()):
        pairs = colours
    return tuple(sorted(pairs.items()))
