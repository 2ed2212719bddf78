"""``alchemy-table calibrate cards``: enrol cards, each shown once in a card zone, into a cards folder.

    alchemy-table calibrate cards --layout alchemists --out cards/ fern.jpg claw.jpg ...
    alchemy-table calibrate cards --layout chaudron-potions --out cards/ tempest=IMG_0042.jpg
    alchemy-table calibrate cards --layout alchemists --out cards/ --camera toad
    alchemy-table calibrate cards --layout alchymia-crystals --out cards/ --second fire-2=IMG_0107.jpg
    alchemy-table calibrate cards --layout alchymia-crystals --out cards/ --check

Each picture shows one card in one of the layout's card zones (the others empty, or name the zone with
``--zone``); the card is named after the picture (``NAME=IMAGE``, or the file's stem). It goes into the set
its zone reads (``set`` in the layout; ``--set`` to name another), in ``DIR/SET/``: the set file naming each
card, and each card's picture cut out upright. Enrolling a card again replaces it.

After enrolling (and with ``--check`` alone) every pair of look-alike cards of the set is checked: can the
two be told apart at the table (``vision.cards.check``)? A pair that cannot names the card that needs a
second photo: taken again (another moment, the card moved), it is given with ``--second``. A card of no
pair that is not named from its own photo as the table may see it is named too (its photo too dim, soft or
glared).
"""

from __future__ import annotations

import re
from pathlib import Path

from calibration.layout import load_layout
from calibration.store import load_calibration
from vision.cards import card_size
from vision.cards.check import check_set, read_back, unread
from vision.cards.enrol import EnrolError, cards_shown
from vision.cards.store import open_set
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
    p.add_argument("--second", action="store_true",
                   help="keep the pictures as a second photo of cards already enrolled (for look-alikes)")
    p.add_argument("--check", action="store_true",
                   help="only check the enrolled set(s): which look-alike pairs can be told apart")
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
    if args.check and not args.images and not args.camera:
        names = sorted({z.card_set for z in zones.values()} if not args.card_set else {args.card_set})
        return _report({n: open_set(args.out, n, card_size(layout)) for n in names}, zones)
    if not args.images and not args.camera:
        raise ValueError("calibrate cards: give [NAME=]IMAGE... or --camera NAME (or --check)")
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
        if args.second and not again:
            raise EnrolError(f"{path}: --second: {name} is not enrolled in {set_name} yet (enrol it first)")
        card_set.enrol(name, image, second=args.second, source=str(path), zone=zone_id)
        what = "second photo kept" if args.second else "re-enrolled (replaced)" if again else "enrolled"
        print(f"{name}: {what} from {path} ({zone_id}) -> {card_set.folder}")
    return _report(sets, zones)


def _report(sets: dict, zones: dict) -> int:
    """Each set's look-alike pairs and whether they can be told apart; then what is left to enrol."""
    for set_name, card_set in sets.items():
        if not len(card_set):
            print(f"set {set_name}: no card enrolled in {card_set.folder}")
            continue
        named = read_back(card_set)
        checks = check_set(card_set, named)
        bad = [c for c in checks if c.verdict != "told apart"]
        print(f"set {set_name}: {len(checks)} look-alike pairs, {len(checks) - len(bad)} told apart")
        for c in checks:
            line = f"  {c.first} / {c.second} (likeness {c.likeness:.2f}, {c.area_mm2:.0f} mm² differ): {c.verdict}"
            if c.verdict == "needs a second photo":
                line += f": enrol {' and '.join(c.failed)} again with --second (another picture)"
            elif c.verdict == "too close":
                line += ": they barely differ on the print; they will read unknown rather than be confused"
            print(line)
        for name in unread(card_set, named):
            print(f"  {name}: not named from its own photo as the table may see it (too dim, soft or glared?): "
                  f"enrol it again in better light, or add another picture with --second")
    for set_name, card_set in sets.items():
        allowed = sorted({label for z in zones.values() if z.card_set == set_name for label in z.labels} - {"empty"})
        missing = [n for n in allowed if n not in card_set]
        print(f"set {set_name}: {len(card_set)} cards enrolled in {card_set.folder}"
              + (f"; not yet: {', '.join(missing)}" if missing else ""))
    return 0
