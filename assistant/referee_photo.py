"""The Alchimiste referee from one photo of the reserve: ``referee alchimiste ENDGAME.json --photo RESERVE.jpg``.

The five reserve trays are counted through the same reading as ``alchemy-table read`` (``vision.read.Reader``
on the ``alchimiste`` layout); the counts then go to the referee exactly as typed counts would. A tray that
cannot be counted with confidence (hidden by a hand, or a count the vision is unsure of) is never guessed:
it is named and the referee is asked to count it by hand, either by answering with ``--count COLOUR=N`` or,
without it, with a one-line error (exit 2). ``--annotate OUT.png`` draws the reading with the count used for
each tray and where it came from.

With ``--photo`` the ENDGAME.json file needs no ``reserve`` (if it has one, the photo's counts replace it).
"""

from __future__ import annotations

import sys
from typing import Any

import cv2
import numpy as np

from assistant.records import RecordError, read_json
from assistant.records.alchimiste import read_endgame
from assistant.referee_doubt import changes_nothing, decides, most_in_reserve, possible_counts, values_text

LAYOUT = "alchimiste"
TRAY = "reserve-{colour}"
IN_DOUBT = "in doubt: {values}, changes no result"  # a tray not counted with confidence that decides nothing
HIDDEN_UNDER = 2  # cubes a counted tray may hide under others when the stacked test is unsure of it
MAY_LIE = "a cube may lie on another"
MAY_HIDE = "photo; " + MAY_LIE + ": {values}, changes no result"  # such a tray, when it decides nothing


class UncountedTray(ValueError):
    """A tray that the photo does not count with confidence, with no ``--count`` for it (``colours``: the
    trays to count by hand)."""

    def __init__(self, message: str, colours: tuple[str, ...] = ()):
        super().__init__(message)
        self.colours = tuple(colours)


def add_arguments(parser) -> None:
    parser.add_argument("--photo", metavar="RESERVE.jpg",
                        help="count the reserve trays in this photo of the table instead of the file's reserve")
    parser.add_argument("--annotate", metavar="OUT.png", help="with --photo: draw the counts used on the photo")
    parser.add_argument("--count", action="append", default=[], metavar="COLOUR=N",
                        help="with --photo: a tray counted by hand (for a tray the photo cannot count)")
    parser.add_argument("--calibration", metavar="CAL.json", help="with --photo: colour calibration of the camera")
    parser.add_argument("--layout", default=LAYOUT, help="with --photo: the table's layout (default alchimiste)")


def endgame(args) -> tuple[list, Any]:
    """The players and the reserve for the referee: from the file, or with ``--photo`` from the photo."""
    data = read_json(args.endgame)
    if not getattr(args, "photo", None):
        if args.count or args.annotate:
            raise RecordError("--count and --annotate go with --photo")
        return read_endgame(data, args.endgame)
    if not isinstance(data, dict):
        raise RecordError(f"{args.endgame}: expected an object with players")
    players, _ = read_endgame({**data, "reserve": data.get("reserve", {})}, args.endgame)
    counts, origin = photo_counts(args.photo, by_hand(args.count), args.annotate, args.calibration, args.layout,
                                  players)
    print(f"reserve from {args.photo}: " + ", ".join(f"{c} {'?' if origin[c].startswith('in doubt') else n}"
                                                      + (f" ({origin[c]})" if origin[c] != "photo" else "")
                                                      for c, n in counts.items()), file=sys.stderr)
    _, reserve = read_endgame({"players": data["players"], "reserve": counts}, f"{args.photo} (reserve)")
    return players, reserve


def by_hand(items: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        colour, sep, number = item.partition("=")
        if not sep or not number.strip().isdigit():
            raise RecordError(f"--count {item}: expected COLOUR=N, e.g. --count yellow=4")
        out[colour.strip()] = int(number)
    return out


def photo_counts(photo: str, hand: dict[str, int], annotate_to: str | None = None, calibration: str | None = None,
                 layout_name: str = LAYOUT, players=None) -> tuple[dict[str, int], dict[str, str]]:
    """(count per colour, where each came from: ``photo``, ``by hand`` or ``in doubt: ...``). Raises UncountedTray,
    naming for each tray in doubt the counts it may hold and, given the ``players``, the results that hang on
    it. Given the ``players``, trays in doubt that together change no school place nor the winner, whatever
    they hold, are not asked: each takes the middle of the counts it may hold, its origin saying so."""
    from calibration.layout import load_layout
    from calibration.store import load_calibration
    from vision.image import load_frame
    from vision.read import Reader

    layout = load_layout(layout_name)
    colours = list(layout.game.get("colours", ()))
    unknown = [c for c in hand if c not in colours]
    if unknown:
        raise RecordError(f"--count {unknown[0]}: not a colour of the reserve ({', '.join(colours)})")
    frame = load_frame(photo)
    reader = Reader(layout, load_calibration(calibration, layout.name) if calibration else None, spread_stacked=True)
    reading = reader.read(frame)
    if not reading.board_found:
        raise UncountedTray(f"{photo}: the table's markers are not in the photo; count the trays by hand and type "
                            f"them in ENDGAME.json", tuple(c for c in colours if c not in hand))
    counts, origin, doubtful = tray_counts(reading.counts, colours, hand, players)
    if annotate_to:
        _annotate(frame, layout, reading, counts, origin, list(doubtful), annotate_to)
    if doubtful:
        raise UncountedTray(f"{photo}: cannot count with confidence the tray of "
                            + "; ".join(_doubt(colour, why, values, counts, doubtful, players)
                                        for colour, (why, values) in doubtful.items())
                            + f"; count {'it' if len(doubtful) == 1 else 'them'} by hand and give --count COLOUR=N",
                            tuple(doubtful))
    return counts, origin


def tray_counts(trays: dict, colours: list[str], hand: dict[str, int], players=None
                ) -> tuple[dict[str, int], dict[str, str], dict[str, tuple[str, list[int]]]]:
    """(count per colour, where each came from, the trays in doubt: colour -> (why, the counts it may hold))
    from the photo's ``trays`` (zone id -> ``CountReading``) and the counts given by ``hand``. A tray counted
    where a cube may yet lie on another (``in_doubt``: the stacked test's ``doubt`` at its ``unsure`` or more) is
    in doubt too: its cubes are the count or up to ``HIDDEN_UNDER`` more. Trays in doubt that, given the ``players``,
    change no school place nor the winner whatever they hold are not asked: each takes the middle of the
    counts it may hold (such a counted tray, its count), its origin saying so."""
    from vision.reading import low_confidence

    counts: dict[str, int] = {}
    origin: dict[str, str] = {}
    doubtful: dict[str, tuple[str, list[int]]] = {}  # colour: (why, the counts it may hold)
    for colour in colours:
        tray = trays.get(TRAY.format(colour=colour))
        if colour in hand:
            counts[colour], origin[colour] = hand[colour], "by hand"
        elif tray is None or tray.count is None or low_confidence(tray):
            why = ("not in the layout" if tray is None else _unread(tray.reason) if tray.count is None
                   else f"unsure: {tray.count}? (confidence {tray.confidence:.2f})")
            most = most_in_reserve(players, colour) if players else 40
            doubtful[colour] = (why, possible_counts(None if tray is None else tray.count,
                                                     0.0 if tray is None else tray.pieces_area, tray is None, most))
        elif tray.in_doubt:
            # counted, but a cube may lie on another there: hidden, its cubes are one or two more than counted
            most = most_in_reserve(players, colour) if players else 40
            doubtful[colour] = (f"{MAY_LIE}: {tray.count}?",
                                list(range(min(tray.count, most), min(tray.count + HIDDEN_UNDER, most) + 1)))
        else:
            counts[colour], origin[colour] = int(tray.count), "photo"
    if doubtful and players and changes_nothing(players, counts, {c: v for c, (_, v) in doubtful.items()}):
        # whatever the trays in doubt hold, no school place nor the winner changes: none is asked (a tray counted
        # keeps its count, the most likely)
        for colour, (why, values) in doubtful.items():
            counts[colour], origin[colour] = ((values[0], MAY_HIDE.format(values=values_text(values)))
                                              if why.startswith(MAY_LIE) else
                                              (values[len(values) // 2], IN_DOUBT.format(values=values_text(values))))
        doubtful = {}
    # (in the trays' own order, whichever were in doubt: the page and the annotation list them so)
    return {c: counts[c] for c in colours if c in counts}, origin, doubtful


def _unread(reason: str | None) -> str:
    """Why a tray has no count: its pile to spread, or hidden (by what)."""
    if reason and reason.startswith("spread"):
        return reason
    return f"hidden: {reason}" if reason else "hidden"


def _doubt(colour: str, why: str, values: list[int], counts: dict[str, int], doubtful, players) -> str:
    """"grey (unsure: 8?) 7 or 8: decides first place between Abigail and Merlin"."""
    text = f"{colour} ({why}) {values_text(values)}"
    if not players:
        return text
    # the other trays in doubt at their middle value (each tray's stake is named on its own)
    rest = {**counts, **{c: v[len(v) // 2] for c, (_, v) in doubtful.items() if c != colour}}
    return f"{text}: {decides(players, rest, colour, values)}"


def _annotate(frame: np.ndarray, layout, reading, counts: dict[str, int], origin: dict[str, str],
              doubtful: list[str], path: str) -> None:
    from vision.annotate import annotate

    picture = annotate(frame, layout, reading)
    missing = set(doubtful)
    for colour in layout.game.get("colours", ()):
        zone = layout.zone(TRAY.format(colour=colour))
        tray = reading.counts.get(zone.id)
        if tray is not None and tray.cubes and colour not in missing:
            # each cube counted, numbered, so that the referee checks the count by eye
            at = reading.to_frame(tray.cubes)
            for k, (x, y) in enumerate(at, 1):
                cv2.circle(picture, (int(x), int(y)), 5, (255, 255, 255), 2, cv2.LINE_AA)
                cv2.putText(picture, str(k), (int(x) - 4, int(y) + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.3, (0, 0, 0), 1,
                            cv2.LINE_AA)
        left, top, _, _ = zone.bounds
        corner = reading.to_frame([left + 2, top + 2])
        if colour in missing:
            text, ink = f"{colour}: COUNT BY HAND", (40, 40, 230)
        elif origin[colour].startswith("in doubt"):
            text, ink = f"{colour}: {origin[colour]}", (40, 170, 230)
        else:
            text, ink = f"{colour}: {counts[colour]} ({origin[colour]})", (60, 200, 60)
        org = (int(corner[0]), int(corner[1]) + 14)
        cv2.putText(picture, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(picture, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, ink, 1, cv2.LINE_AA)
    from vision.image import save_image

    save_image(path, picture)
