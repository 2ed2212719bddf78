"""``alchemy-table referee GAME ENDGAME.json``: score the end of a game from what lies on the table.

For Alchimiste: each adept's fame and screen, and the reserve as counted before the screens are emptied
(docs/referee-alchimiste.md). Prints fame, screen points, school place and reward, total and the winner(s);
``--json`` for machines.
"""

from __future__ import annotations

import json

from assistant import referee_photo
from assistant.engines.alchimiste import COLOURS, IllegalAction, score_endgame
from assistant.records import RecordError
from assistant.records.alchimiste import result_lines

GAMES = ("alchimiste",)


def register(sub) -> None:
    p = sub.add_parser("referee", help="score the end of a game (Alchimiste: screens, school places, winners)",
                       description="Score the end of a game from a table of what lies on it. Alchimiste: "
                                   "ENDGAME.json gives each player's name, school, fame and screen, and the "
                                   "reserve counted before the screens are emptied.")
    p.add_argument("game", choices=GAMES, metavar="GAME", help=f"the game ({', '.join(GAMES)})")
    p.add_argument("endgame", metavar="ENDGAME.json")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    referee_photo.add_arguments(p)
    p.set_defaults(run=run)


def run(args) -> int:
    players, reserve = referee_photo.endgame(args)  # the file's reserve, or the trays counted in --photo
    try:
        result = score_endgame(players, reserve)
    except IllegalAction as e:
        raise RecordError(f"{args.endgame}: {e}") from None
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
        return 0
    after = ", ".join(f"{colour} {n}" for colour, n in zip(COLOURS, result.reserve_after.counts, strict=True))
    print(f"Alchimiste end game, {len(players)} players; reserve once the screens are emptied: {after}")
    width = max(len(line.name) for line in result.lines)
    print(f"{'player':<{width}}  {'fame':>4}  {'screen':>6}  {'school':<6}  {'left':>4}  {'place':>5}  "
          f"{'reward':>6}  {'total':>5}")
    for line in result.lines:
        print(f"{line.name:<{width}}  {line.fame:>4}  {line.screen_points:>6}  {line.school:<6}  "
              f"{result.reserve_after[line.school]:>4}  {line.school_place:>5}  {line.school_reward:>6}  "
              f"{line.total:>5}")
    print(result_lines(result)[-1])
    return 0
