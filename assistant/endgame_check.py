"""The referee from a photo against rendered end-games (``alchemy-table eval-piles --endgames N``).

Each end-game: 2 to 5 adepts with their schools, fame and screens, a reserve that the game could leave
(never more cubes of a colour than the player count puts in play), its trays laid as players leave them
(now and then a cube on another) under a random light, now and then a hand over the table. The table is
calibrated as a user would (its calibration frame, ``calibrate colours``); the photo goes through the
referee's own path (``referee_photo.photo_counts``). A result is announced when every tray is counted:
right when every school place and the winners are the truth's, wrong otherwise; else the trays in doubt
are asked (or the counts make no game, more cubes than in play, and the referee refuses them).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from assistant.engines.alchimiste import COLOURS, Cubes, EndPlayer, IllegalAction, score_endgame
from assistant.engines.alchimiste.rules import SETUP
from assistant.referee_photo import TRAY, UncountedTray, photo_counts
from calibration.layout import load_layout
from vision.evaluate_piles import LAYOUT, LIGHTS, render, table, table_calibration

NAMES = ("Abigail", "Merlin", "Nicolas", "Perenelle", "Paracelse")


@dataclass
class EndgameTally:
    games: int = 0
    announced: int = 0
    wrong: int = 0
    asked: int = 0
    mistakes: list[str] = field(default_factory=list)


def random_endgame(rng: np.random.Generator) -> tuple[list[EndPlayer], dict[str, int]]:
    """Players and a reserve (before the screens are emptied) a game could end with."""
    n = int(rng.integers(2, 6))
    schools = list(rng.permutation(COLOURS))[:n]
    in_play = SETUP[n].in_play
    left = dict.fromkeys(COLOURS, in_play)
    players = []
    for name, school in zip(NAMES, schools, strict=False):
        screen = {}
        for c in COLOURS:
            k = int(rng.integers(0, min(5, left[c]) + 1))
            screen[c], left[c] = k, left[c] - k
        players.append(EndPlayer(name, str(school), int(rng.integers(10, 45)), Cubes.of(**screen)))
    reserve = {c: int(rng.integers(0, min(18, left[c]) + 1)) for c in COLOURS}
    return players, reserve


def check(seed: int, games: int, stacked: float = 0.2, progress=None) -> EndgameTally:
    layout = load_layout(LAYOUT)
    tally = EndgameTally()
    rng = np.random.default_rng([seed, 99])
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(games):
            light = LIGHTS[int(rng.integers(len(LIGHTS)))]
            c, style = table(layout, light, rng, stacked)
            calibration = table_calibration(layout, c, style, light, rng)
            players, reserve = random_endgame(rng)
            state = {"counts": {TRAY.format(colour=col): {col: n} for col, n in reserve.items()}}
            frame, _ = render(layout, state, replace(c, piles=style), light, rng)
            photo, cal = Path(tmp) / "reserve.png", Path(tmp) / "cal.json"
            cv2.imwrite(str(photo), frame)
            if calibration is not None:
                calibration.save(cal)
            truth = score_endgame(players, Cubes.of(**reserve))
            tally.games += 1
            try:
                counts, _ = photo_counts(str(photo), {}, None, None if calibration is None else str(cal), LAYOUT,
                                         players)
            except UncountedTray:
                tally.asked += 1
                if progress:
                    progress(g, tally)
                continue
            try:
                got = score_endgame(players, Cubes.of(**counts))
            except IllegalAction:  # more cubes counted than the game has: the referee refuses the table
                tally.asked += 1
                continue
            tally.announced += 1
            if [line.school_place for line in got.lines] != [line.school_place for line in truth.lines] or \
                    got.winners != truth.winners:
                tally.wrong += 1
                tally.mistakes.append(f"s{seed} game {g} ({light}): reserve {reserve}, read {counts}")
            if progress:
                progress(g, tally)
    return tally
