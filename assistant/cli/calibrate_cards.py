"""``alchemy-table calibrate cards``: enrol cards, each shown once in a card zone, into a cards folder.

    alchemy-table calibrate cards --layout alchemists --out cards/ fern.jpg claw.jpg ...
    alchemy-table calibrate cards --layout chaudron-potions --out cards/ tempest=IMG_0042.jpg
    alchemy-table calibrate cards --layout alchemists --out cards/ --camera toad

Each picture shows one card in one of the layout's card zones (the others empty, or name the zone with
``--zone``); the card is named after the picture (``NAME=IMAGE``, or the file's stem). It goes into the set
its zone reads (``set`` in the layout; ``--set`` to name another), in ``DIR/SET/``: the set file naming each
card, and each card's picture cut out upright. Enrolling a card again replaces it.
"""

from __future__ import annotations

import re
from pathlib import Path

from calibration.layout import load_layout
from calibration.store import load_calibration
from vision.cards import card_size
from vision.cards.enrol import EnrolError, cards_shown
from vision.cards.store import ACCEPT, open_set
from vision.image import load_frame

_SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")  # as the store's names: no "/", no ".."


def register_calibrate(sub) -> None:
    p = sub.add_parser("cards", help="enrol cards (each shown once in a card zone) for recognition",
                       description="Enrol cards for the card zones of a layout: each IMAGE shows one card in a "
                                   "card zone; NAME=IMAGE names it (default: the file's stem).")
    p.add_argument("images", nargs="*", metavar="[NAME=]IMAGE")
    p.add_argument("--layout", required=True, help="layout with card zones (alchemists, chaudron-potions, ...)")
    p.add_argument("--out", required=True, metavar="DIR", help="cards folder to create or update (one folder per set)")
    p.add_argument("--set", dest="card_set", metavar="NAME", help="the set to enrol into (default: the zone's set)")
    p.add_argument("--zone", help="the card zone that holds the card (default: the one zone holding a card)")
    p.add_argument("--calibration", metavar="CAL.json", help="calibration file (lens, corners) for finding the board")
    p.add_argument("--camera", metavar="NAME", help="enrol the card NAME from one frame of the camera")
    p.add_argument("--source", default="auto", help="camera source with --camera (default: auto)")
    p.set_defaults(run=run)


def _named(spec: str) -> tuple[str, str]:
    name, sep, path = spec.partition("=")
    if sep and name and path:
        return name, path
    return Path(spec).stem, spec


def _camera_frame(source: str):
    from hardware.camera import open_source
    from hardware.exc import HardwareError

    try:
        with open_source(source, max_failures=3) as camera:
            item = camera.read()
    except HardwareError as e:
        raise OSError(f"--camera: {e}") from None
    if item is None:
        raise OSError(f"--camera: the {source} source gave no frame")
    return item[1]


def run(args) -> int:
    layout = load_layout(args.layout)
    zones = {z.id: z for z in layout.zones if z.kind == "card"}
    if not zones:
        raise ValueError(f"--layout: {layout.name} has no card zone (try alchemists, chaudron-potions, "
                         f"alchymia-crystals)")
    if not args.images and not args.camera:
        raise ValueError("calibrate cards: give [NAME=]IMAGE... or --camera NAME")
    if args.card_set is not None and not _SET_NAME.match(args.card_set):  # never a path out of --out
        raise ValueError(f"--set: expected a set name (letters, digits, _ . -), not a path: {args.card_set!r}")
    if args.zone is not None and args.zone not in zones:
        raise ValueError(f"--zone: {args.zone!r} is not a card zone of {layout.name} (known: {', '.join(zones)})")
    calibration = load_calibration(args.calibration, layout.name) if args.calibration else None
    shots = [(name, path, None) for name, path in map(_named, args.images)]
    if args.camera:
        shots.append((args.camera, "camera", _camera_frame(args.source)))
    sets = {}
    for name, path, frame in shots:
        frame = load_frame(path) if frame is None else frame
        found = cards_shown(frame, layout, calibration, path, args.zone)
        if not found:
            raise EnrolError(f"{path}: no card found in {args.zone or 'any card zone'} of {layout.name} "
                             f"(is the card whole, flat and on a mat of another colour?)")
        if len(found) > 1:
            raise EnrolError(f"{path}: {len(found)} card zones hold a card ({', '.join(found)}): show one card, "
                             f"or name its zone with --zone")
        zone_id, image = next(iter(found.items()))
        set_name = args.card_set or zones[zone_id].card_set
        allowed = sorted({label for z in zones.values() if z.card_set == set_name for label in z.labels} - {"empty"})
        if allowed and name not in allowed:
            raise EnrolError(f"{path}: {name!r} is not a card of set {set_name} in {layout.name} "
                             f"(known: {', '.join(allowed)}; name it NAME=IMAGE)")
        card_set = sets.get(set_name) or open_set(args.out, set_name, card_size(layout))
        sets[set_name] = card_set
        again = name in card_set
        card_set.enrol(name, image, source=str(path), zone=zone_id)
        print(f"{name}: {'re-enrolled (replaced)' if again else 'enrolled'} from {path} ({zone_id}) -> "
              f"{card_set.folder / (name + '.png')}")
        others = [n for n in card_set.names if n != name]
        if others:
            scores = dict(zip(card_set.names, card_set.scores(image).tolist(), strict=True))
            close = max(others, key=scores.get)
            if scores[close] >= ACCEPT:
                print(f"  warning: {name} looks much like {close} ({scores[close]:.2f}): they may be confused; "
                      f"enrol both again under even light")
    for set_name, card_set in sets.items():
        allowed = sorted({label for z in zones.values() if z.card_set == set_name for label in z.labels} - {"empty"})
        missing = [n for n in allowed if n not in card_set]
        print(f"set {set_name}: {len(card_set)} cards enrolled in {card_set.folder}"
              + (f"; not yet: {', '.join(missing)}" if missing else ""))
    return 0
