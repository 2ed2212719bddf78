"""The LED map: named groups of pixels on the strip (per cauldron, per player board, the Cramé bar, status).

In the configuration a group is a list of pixel numbers or a range written ``"FIRST-LAST"``:

>>> m = LedMap.parse({"status": [0], "crame": "1-20"}, count=21)
>>> m["crame"][:3], len(m["crame"])
((1, 2, 3), 20)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from hardware.exc import BadSetting

_RANGE = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_\-]*$")


def default_groups() -> dict[str, str | list[int]]:
    """The default wiring: one strip of 51 pixels laid around the table, in this order."""
    groups: dict[str, str | list[int]] = {"status": [0]}
    for n in range(1, 11):
        groups[f"cauldron-{n}"] = [n]  # Alchimiste's ten cauldrons; Chaudron's one cauldron is cauldron-1
    for p in range(5):
        first = 11 + 4 * p
        groups[f"player-{p + 1}"] = f"{first}-{first + 3}"
    groups["crame"] = "31-50"
    return groups


DEFAULT_COUNT = 51


@dataclass(frozen=True)
class LedMap:
    groups: Mapping[str, tuple[int, ...]]
    count: int

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.groups)

    def __getitem__(self, name: str) -> tuple[int, ...]:
        try:
            return self.groups[name]
        except KeyError:
            raise KeyError(f"no LED group {name!r} (groups: {', '.join(self.groups)})") from None

    def __contains__(self, name: object) -> bool:
        return name in self.groups

    @classmethod
    def parse(cls, groups: Mapping[str, object], count: int) -> LedMap:
        """Check and expand the groups; a ``BadSetting`` message starts with the group's name."""
        out: dict[str, tuple[int, ...]] = {}
        for name, spec in groups.items():
            if not _NAME.match(name):
                raise BadSetting(f"{name}: a group name is lower-case letters, digits, '-' and '_'")
            out[name] = _pixels(name, spec, count)
        return cls(out, count)


def _pixels(name: str, spec: object, count: int) -> tuple[int, ...]:
    if isinstance(spec, str):
        m = _RANGE.match(spec)
        if not m:
            raise BadSetting(f"{name}: a range is written \"FIRST-LAST\", not {spec!r}")
        first, last = int(m.group(1)), int(m.group(2))
        if last < first:
            raise BadSetting(f"{name}: the range {spec!r} runs backwards")
        pixels = tuple(range(first, last + 1))
    elif isinstance(spec, list) and spec and all(isinstance(p, int) and not isinstance(p, bool) for p in spec):
        pixels = tuple(spec)
    else:
        raise BadSetting(f"{name}: a group is a list of pixel numbers or \"FIRST-LAST\", not {spec!r}")
    bad = [p for p in pixels if not 0 <= p < count]
    if bad:
        raise BadSetting(f"{name}: pixel {bad[0]} is outside the strip of {count} (0..{count - 1})")
    if len(set(pixels)) != len(pixels):
        raise BadSetting(f"{name}: a pixel is listed twice")
    return pixels
