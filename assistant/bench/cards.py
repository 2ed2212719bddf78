"""``alchemy-table bench cards``: enrol rendered cards, then read many rendered views of them and of cards
never enrolled; prints card accuracy, unknown cards accepted, and the median time per card zone.

    alchemy-table bench cards [--frames 150] [--seed 1] [--decks 1] [--strangers 0.3] [--shake] [--scores] [--second]

Enrolment: each card of the three card layouts (alchemists, chaudron-potions, alchymia-crystals) shown once,
in daylight, no hand (and, with ``--second``, a second photo of each card the pair check asks one for),
as drawn by each deck of ``--decks`` (``vision/render/deck.py``: families of
look-alike cards; ``plain``: the first renderer's unrelated faces). Views: random camera, lighting (the
four), a hand over one frame in six, a fingertip over a card in about one frame in three, cards sleeved
with glare, bowed, blurred as they are set down, and each card zone holding a card never enrolled with
probability ``--strangers`` (a card of the deck's families: the hard case). Frames cycle through the decks.
With ``--shake``, every third frame of each layout is shaken or out of focus as the table sets' are
(``vision.render.table.shake``: up to 9 px); its board is located on the same view rendered still, then
checked on the shaken one, as ``eval`` locates a table's blurred frames.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import numpy as np

from calibration.layout import load_layout
from vision.cards.evaluate import CardTally, format_cards
from vision.read import Reader
from vision.render import LIGHTINGS, random_conditions, random_state, render_frame
from vision.render.card_photos import enrol_rendered
from vision.render.deck import CardStyle
from vision.render.table import shake

LAYOUTS = ("alchemists", "chaudron-potions", "alchymia-crystals")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="alchemy-table bench cards")
    p.add_argument("--frames", type=int, default=150, help="frames rendered, cycling through the layouts")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--decks", default="1", help="comma list of decks (integers, or 'plain'), default 1")
    p.add_argument("--strangers", type=float, default=0.3, help="chance a card zone holds a card never enrolled")
    p.add_argument("--shake", action="store_true",
                   help="shake every third frame of each layout (or put it out of focus), as the table sets do")
    p.add_argument("--scores", action="store_true", help="print the match-score distributions too")
    p.add_argument("--second", action="store_true",
                   help="enrol a second photo of each card the pair check asks one for, as calibrate cards advises")
    args = p.parse_args(argv)
    layouts = [load_layout(name) for name in LAYOUTS]
    decks = [_deck(d) for d in args.decks.split(",")]
    readers = {(layout.name, deck): Reader(layout, cards=enrol_rendered(layout, deck=deck, second=args.second))
               for layout in layouts for deck in decks}
    rng = np.random.default_rng(args.seed)
    tallies: dict[str, CardTally] = {}
    known_scores, stranger_scores = [], []
    cpu: dict[str, list[float]] = {}  # processor ms per card zone, by layout
    for i in range(args.frames):
        layout = layouts[i % len(layouts)]
        lighting = LIGHTINGS[(i // len(layouts)) % len(LIGHTINGS)]
        deck = decks[(i // (len(layouts) * len(LIGHTINGS))) % len(decks)]
        conditions = random_conditions(layout, rng, lighting=lighting, hand=bool(rng.random() < 1 / 6),
                                       foreign=False)
        cards = [z.id for z in layout.zones if z.kind == "card"]
        conditions = replace(conditions, foreign=tuple(z for z in cards if rng.random() < args.strangers),
                             cards=None if deck is None else CardStyle(deck))
        state = random_state(layout, rng, fill=0.8)
        shaken = args.shake and (i // len(layouts)) % 3 == 1
        if shaken:
            motion, defocus = shake(i // (3 * len(layouts)), rng)
            still = conditions
            conditions = replace(conditions, motion_blur_px=motion, defocus_px=defocus,
                                 motion_blur_deg=float(rng.uniform(0, 180)) if motion else 0.0)
        frame, truth = render_frame(layout, state, conditions, rng)
        reader = readers[layout.name, deck]
        reader.locator.invalidate()
        if shaken:  # markers smeared: the board is found on the view held still, then checked, as eval does
            reader.locator.locate(render_frame(layout, state, still, np.random.default_rng(i))[0])
            reader.locator.locate(frame, check=True)
            reading = reader.read(frame, locate=False)
        else:
            reading = reader.read(frame)
        for key in (lighting, "all", *(("shaken",) if shaken else ())):
            tallies.setdefault(key, CardTally()).add(reading, truth, cards, reader.cards.times if key == "all" else (),
                                                     f"{i:04d}-{layout.name}")
        cpu.setdefault(layout.name, []).extend(1000 * t for t in reader.cards.cpu_times)
        if args.scores:
            _collect(reader, frame, reading, truth, known_scores, stranger_scores)
    order = [*LIGHTINGS, "all", "shaken"]
    print(format_cards({k: tallies[k] for k in order if k in tallies}))
    total = tallies["all"]
    print(f"\n{args.frames} frames (seed {args.seed}, decks {args.decks}): {total.views} card views, "
          f"{total.strangers} cards never enrolled, {total.empties} empty card zones")
    if args.second:
        enrolled = [s for r in readers.values() for s in r.cards.sets.values() if s is not None]
        print(f"second photos enrolled where the pair check asked: {sum(len(s.more) for s in enrolled)} of "
              f"{sum(len(s) for s in enrolled)} cards")
    zones = {name: len(readers[name, decks[0]].cards.zones) for name in cpu}
    costs = [f"{name} ({zones[name]} zones) {np.median(v):.1f} / {np.percentile(v, 90):.1f}"
             for name, v in cpu.items()]
    print("cost per card zone, processor ms, median / p90 (the table's column is wall-clock, which other work on a "
          "shared machine inflates): " + ", ".join(costs))
    for line in total.mistakes[:15]:
        print(f"  {line}")
    if args.scores and known_scores:
        k, s = np.array(known_scores), np.array(stranger_scores)
        print(f"\nbest score, right card: p1 {np.percentile(k[:, 0], 1):.3f} p5 {np.percentile(k[:, 0], 5):.3f} "
              f"median {np.median(k[:, 0]):.3f}; margin p1 {np.percentile(k[:, 1], 1):.3f}")
        if len(s):
            print(f"best score, never enrolled: median {np.median(s[:, 0]):.3f} p99 {np.percentile(s[:, 0], 99):.3f} "
                  f"max {s[:, 0].max():.3f}; margin p99 {np.percentile(s[:, 1], 99):.3f} max {s[:, 1].max():.3f}")
    return 0


def _deck(text: str) -> int | None:
    if text.strip() == "plain":
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--decks: {text!r}: expected integers or 'plain'") from None


def _collect(reader, frame, reading, truth, known, strangers) -> None:
    """The best score and margin of each card found, by whether it is enrolled (for calibrating ACCEPT)."""
    from vision.cards.find import cut_card, find_card

    foreign = set(truth["conditions"]["foreign"])
    if not reading.board_found:
        return
    H, lens = reader.locator.location.homography, reader.locator.location.lens
    for z in reader.cards.zones:
        want = truth["zones"][z.id]
        if want == "empty" or (want == "unknown" and z.id not in foreign):
            continue
        card_set = reader.cards.sets[z.card_set]
        found = find_card(frame, H, lens, z.bounds, card_set.card_mm)
        if found.kind != "card":
            continue
        scores = card_set.scores(cut_card(frame, H, lens, found.corners_mm, card_set.card_mm))
        top = np.sort(scores)[::-1]
        entry = (float(top[0]), float(top[0] - top[1]))
        (strangers if z.id in foreign else known).append(entry)
