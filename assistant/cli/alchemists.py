"""``alchemy-table alchemists``: the game master that replaces the Alchemists companion app, and a deduction
aid.

Subcommands: ``new``, ``mix``, ``sell``, ``debunk``, ``reveal``, ``export``, ``import``, ``solve``; every
one takes ``--json``. The game is the current one of the state file (``--game NAME`` for another); a CODE
typed first still works but is seen by every local user in ``ps``. Secrecy: only ``new`` prints the code
and only ``reveal`` (and ``export``, into an owner-only file) the assignment; error messages never repeat
either (stderr may end up in the system journal).
"""

from __future__ import annotations

import json
import os
import secrets

from assistant import alchemists_state as state
from assistant.cli import Parser
from assistant.engines import alchemists as al
from assistant.records import read_json


def register(sub) -> None:
    p = sub.add_parser("alchemists", help="Alchemists: game master (secret answers) and deduction aid",
                       description="The game master that replaces the Alchemists app (new, mix, sell, debunk, "
                                   "reveal) and a deduction aid for one player (solve). See docs/alchemists.md.")
    p.set_defaults(run=lambda args: _usage(p))
    cmds = p.add_subparsers(dest="alchemists_command", metavar="SUBCOMMAND", parser_class=Parser)

    c = cmds.add_parser("new", help="start a game: draw a secret code; it becomes the current game")
    c.add_argument("--master", action="store_true", help="master mode (debunks are demonstrations by a mix)")
    c.add_argument("--code", help="record an existing game code on this machine instead of drawing one (its "
                                  "answers are this table's: to move a game between machines, export/import it)")
    c.add_argument("--name", help="the game's name for --game (default game-1, game-2...)")
    c.set_defaults(run=run_new)

    c = cmds.add_parser("mix", help="test on a student or drink: the potion two ingredients make")
    _code_and_pair(c)
    c.add_argument("--drink", action="store_true", help="you drink it: say what a negative potion does")
    c.add_argument("--exhibit", metavar="POTION", help="final exhibition: say only whether it is POTION")
    c.add_argument("--reputation", type=int, metavar="N",
                   help="your reputation: its zone deepens the loss of an insanity or a failed exhibit")
    c.set_defaults(run=run_mix)

    c = cmds.add_parser("sell", help="sell to the adventurer: the quality class reached")
    _code_and_pair(c)
    c.add_argument("--wanted", required=True, metavar="POTION", help="the potion the adventurer wants")
    c.add_argument("--promise", required=True, metavar="QUALITY", help="perfect, good, neutral or bad")
    c.add_argument("--discount", type=int, default=0, metavar="N", help="discount card played: 0..3")
    c.add_argument("--reputation", type=int, metavar="N", help="your reputation (its zone changes the price)")
    c.set_defaults(run=run_sell)

    c = cmds.add_parser("debunk", help="apprentice: ING COLOUR shows an aspect; master: ING ING, a demonstration")
    c.add_argument("words", nargs="+", metavar="[CODE] ING COLOUR|ING")
    _game_option(c)
    c.add_argument("--theory", action="append", default=[], metavar="[ING=]ALCHEMICAL",
                   help="the published theory being debunked (repeat for both ingredients in master mode)")
    c.add_argument("--seal", action="append", default=[], metavar="[ING:]PLAYER=SEAL",
                   help="a seal on that theory: gold, silver or hedge-COLOUR (repeat; ING: says which theory "
                        "when two are given); a successful debunk reveals them and says each owner's penalty")
    c.add_argument("--reputation", action="append", default=[], metavar="N|PLAYER=N",
                   help="your reputation (N) or a seal owner's (PLAYER=N): the zone deepens a loss")
    c.add_argument("--player", metavar="NAME", help="your name on the seals, to debunk your own theory")
    c.add_argument("--already-in-conflict", action="store_true",
                   help="master: the two theories already have a conflict token (showing it again costs 1)")
    c.set_defaults(run=run_debunk)

    c = cmds.add_parser("reveal", help="the grand reveal: the assignment, and the theories' victory points")
    c.add_argument("words", nargs="*", metavar="[CODE] [THEORIES.json]")
    _game_option(c)
    c.set_defaults(run=run_reveal)

    c = cmds.add_parser("export", help="write a game (code and answers) to an owner-only file, for import")
    _game_option(c)
    c.add_argument("--out", required=True, metavar="FILE", help="the file to create (never overwritten)")
    c.set_defaults(run=run_export)

    c = cmds.add_parser("import", help="record a game exported on another machine; it becomes the current game")
    c.add_argument("file", metavar="FILE")
    c.add_argument("--name", help="its name here (default: its name there, or the next free one)")
    c.set_defaults(run=run_import)

    c = cmds.add_parser("solve", help="deduction aid: what your facts still allow, and the best next mix")
    c.add_argument("facts", metavar="FACTS.json")
    c.add_argument("--trust", metavar="THEORIES.json", help="also trust every theory in this file")
    c.add_argument("--hand", nargs="+", metavar="ING", help="suggest a mix among these ingredients only")
    c.add_argument("--list", type=int, default=10, metavar="N",
                   help="list the remaining assignments when there are at most N (default 10)")
    c.set_defaults(run=run_solve)

    for parser in cmds.choices.values():
        parser.add_argument("--json", action="store_true", help="answer in JSON")


def _usage(parser) -> int:
    parser.print_help()
    return 2


def _code_and_pair(parser) -> None:
    parser.add_argument("words", nargs="+", metavar="[CODE] ING ING")
    _game_option(parser)


def _game_option(parser) -> None:
    parser.add_argument("--game", metavar="NAME", help="the game by name (default: the current game)")


def _game(args, count: int) -> tuple[state.Game, list[str]]:
    """The game (CODE first among ``words``, else ``--game NAME``, else the current one) and the ``count``
    words that follow the code. Messages never repeat a code."""
    words = list(args.words)
    if len(words) not in (count, count + 1):
        raise al.AlchemistsError(f"expected {count} words after the optional code, got {len(words)}")
    code = words.pop(0) if len(words) == count + 1 else None
    if code is not None and args.game is not None:
        raise al.AlchemistsError("give the game by --game NAME or by its code, not both")
    return state.find_game(code=code, name=args.game), words


def _emit(args, data: dict, lines: list[str]) -> None:
    print(json.dumps(data, ensure_ascii=False) if args.json else "\n".join(lines))


def _lose(change: int, verb: str = "lose") -> str:
    """``-2`` -> "lose 2 reputation points"."""
    return f"{verb} {-change} reputation point{'s' if change < -1 else ''}"


def _percent(p: float) -> str:
    return "." if p == 0 else ("<1" if p < 0.005 else f"{100 * p:.0f}")


def run_new(args) -> int:
    if args.code is not None:
        code = al.code_for_index(al.index_of_code(args.code))
    else:  # a code this table has not recorded yet (a recorded one keeps its own answers)
        recorded = state.load(state.state_path())["games"]
        code = al.code_for_index(secrets.randbelow(al.GAMES))
        while code in recorded:
            code = al.code_for_index(secrets.randbelow(al.GAMES))
    mode = al.MASTER if args.master else al.APPRENTICE
    path = state.record_game(code, mode, name=args.name)  # the answers: the code's, keyed by this table
    game = state.find_game(code=code)
    _emit(args, {"code": code, "mode": mode, "name": game.name},
          [f"code {code} ({mode} mode), game {game.name}, now the current game",
           "keep it to the game master; the other commands find the game without it (--game NAME)",
           f"game saved in {path} (readable by you only)"])
    return 0


def run_export(args) -> int:
    game = state.find_game(name=args.game)
    data = (json.dumps(state.export_game(game), indent=2) + "\n").encode()
    fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # never over another file
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    _emit(args, {"name": game.name, "file": args.out},
          [f"game {game.name} written to {args.out} (readable by you only: it holds the answers)",
           f"on the other machine: alchemy-table alchemists import {args.out}"])
    return 0


def run_import(args) -> int:
    game = state.import_game(read_json(args.file), args.file, name=args.name)
    _emit(args, {"name": game.name, "mode": game.mode},
          [f"game {game.name} ({game.mode} mode) recorded, now the current game"])
    return 0


def run_mix(args) -> int:
    found, (args.first, args.second) = _game(args, 2)
    game = found.assignment
    if args.exhibit is not None:
        if args.drink:
            raise al.AlchemistsError("an exhibited potion is shown, not drunk: use --exhibit or --drink")
        result = al.exhibit(game, args.first, args.second, al.Potion.parse(args.exhibit), args.reputation)
        verdict = ("success: it is the potion promised" if result.success
                   else f"failure: not the potion promised; {_lose(result.penalty)}")
        _emit(args, {"promised": str(result.promised), "success": result.success, "reputation": result.penalty},
              [f"exhibit {result.promised}: {verdict}"])
        return 0
    first, second = al.parse_ingredient(args.first), al.parse_ingredient(args.second)
    potion = al.brew(game, first, second)
    data: dict = {"potion": str(potion)}
    lines = [f"{first} + {second}: {potion} ({potion.effect})"]
    if args.drink:
        data["effect"] = al.drink_effect(potion, args.reputation)
        data["reputation"] = al.drink_reputation(potion, args.reputation)
        lines.append(f"you drank it: {data['effect'] or 'no effect'}")
    elif potion.sign < 0:
        lines.append(al.master.STUDENT_NOTE)
    _emit(args, data, lines)
    return 0


def run_sell(args) -> int:
    found, (args.first, args.second) = _game(args, 2)
    game = found.assignment
    potion = al.brew(game, args.first, args.second)
    sale = al.sell(potion, al.Potion.parse(args.wanted), al.Quality.parse(args.promise), args.discount,
                   args.reputation)
    meaning = {"perfect": f"the potion wanted, {sale.wanted}",
               "good": f"the right sign, {'+' if sale.wanted.sign > 0 else '-'}, but another colour",
               "neutral": "a neutral potion",
               "bad": "the wrong sign; colour not told"}[sale.reached.value]
    paid = (f"promise kept: the adventurer pays {sale.coins} gold" if sale.kept
            else "promise not kept: the adventurer pays nothing")
    lines = [f"quality reached: {sale.reached} ({meaning})", paid]
    if sale.reputation:
        lines.append(f"a {sale.reached} potion: lose {-sale.reputation} reputation point"
                     f"{'s' if sale.reputation < -1 else ''}")
    _emit(args, {"wanted": str(sale.wanted), "promise": str(sale.promise), "reached": str(sale.reached),
                 "kept": sale.kept, "coins": sale.coins, "reputation": sale.reputation}, lines)
    return 0


def _debunk_mode(game: state.Game, what: str) -> str:
    """The game's recorded mode, else the one the arguments imply (this machine may not have made it)."""
    is_colour = what.strip().lower() in {c.value for c in al.COLOURS}
    recorded = game.mode or None
    if recorded == al.APPRENTICE and not is_colour:
        raise al.AlchemistsError("this is an apprentice game: debunk CODE INGREDIENT COLOUR "
                                 "(red, green or blue)")
    if recorded == al.MASTER and is_colour:
        raise al.AlchemistsError("this is a master game: a debunk is a demonstration, debunk CODE ING ING")
    return recorded or (al.APPRENTICE if is_colour else al.MASTER)


def _theories(values: list[str], default: str) -> dict[str, al.Alchemical]:
    theories: dict[str, al.Alchemical] = {}
    for value in values:
        ingredient, _, alchemical = value.rpartition("=")
        ingredient = al.parse_ingredient(ingredient) if ingredient else default
        if ingredient in theories:
            raise al.AlchemistsError(f"--theory: two theories about {ingredient}")
        theories[ingredient] = al.Alchemical.parse(alchemical)
    return theories


def _seals(values: list[str], theories: dict[str, al.Alchemical]) -> dict[str, tuple[al.Seal, ...]]:
    """``--seal [ING:]PLAYER=SEAL`` values, by the ingredient of the theory they are on."""
    seals: dict[str, list[al.Seal]] = {}
    for value in values:
        owner, equals, kind = value.rpartition("=")
        ingredient, _, player = owner.rpartition(":")
        if not equals or not player.strip():
            raise al.AlchemistsError(f"--seal {value!r}: expected PLAYER=SEAL (SEAL: gold, silver, hedge-red, "
                                     "hedge-green or hedge-blue)")
        if ingredient:
            ingredient = al.parse_ingredient(ingredient)
        elif len(theories) == 1:
            ingredient = next(iter(theories))
        elif not theories:
            raise al.AlchemistsError("--seal: a seal is on a published theory: give that theory with --theory")
        else:
            raise al.AlchemistsError("--seal: two theories are given: say which one the seal is on, "
                                     "ING:PLAYER=SEAL")
        if ingredient not in theories:
            raise al.AlchemistsError(f"--seal: no --theory of {ingredient} for this seal to be on")
        seals.setdefault(ingredient, []).append(al.Seal(player.strip(), al.SealKind.parse(kind)))
    return {i: al.reveal.check_seals(s, f"the theory of {i}") for i, s in seals.items()}


def _reputations(values: list[str], player: str | None) -> tuple[int | None, dict[str, int]]:
    """``--reputation N|PLAYER=N`` values: the debunker's reputation, and each named player's."""
    own: int | None = None
    named: dict[str, int] = {}
    for value in values:
        name, equals, number = value.rpartition("=")
        try:
            n = int(number)
        except ValueError:
            raise al.AlchemistsError(f"--reputation {value!r}: expected a number N, or PLAYER=N") from None
        if not equals:
            if own is not None:
                raise al.AlchemistsError("--reputation: your own reputation is given twice")
            own = n
        elif not name.strip():
            raise al.AlchemistsError(f"--reputation {value!r}: expected a player's name before =")
        elif name.strip() in named:
            raise al.AlchemistsError(f"--reputation: {name.strip()}'s reputation is given twice")
        else:
            named[name.strip()] = n
    if player is not None and player in named:
        if own is not None and own != named[player]:
            raise al.AlchemistsError(f"--reputation: two reputations for you, {player}")
        own = named[player]
    return own, named


def _penalties(args, seals: dict[str, tuple[al.Seal, ...]], debunked: tuple[str, ...], colour: al.Colour | None,
               gain: int, own: int | None, named: dict[str, int], lines: list[str]) -> dict[str, int]:
    """The seals' penalties of the debunked theories (none when nothing is debunked), in text and by player.

    The seals are revealed after the debunk is scored, so the debunker's own seals are judged at the
    reputation after the gain; with two theories debunked, the second is judged at what the first left."""
    current = dict(named)
    if args.player is not None and own is not None:
        current[args.player] = own + gain
    penalties: dict[str, int] = {}
    for ingredient in debunked:
        if ingredient not in seals:
            continue
        changes = al.seal_penalties(seals[ingredient], colour, current)
        shown = []
        for seal in seals[ingredient]:
            change = changes[seal.player]
            note = f"{change:+d}" if change else f"0 (spared: its doubt was {colour})"
            shown.append(f"{seal.player} {seal.kind} {note}")
            penalties[seal.player] = penalties.get(seal.player, 0) + change
            if seal.player in current:
                current[seal.player] += change
        lines.append(f"seals on the theory of {ingredient}: " + ", ".join(shown))
    hidden = [i for i in seals if i not in debunked]
    if hidden:
        lines.append(f"the seals on the theory of {' and '.join(hidden)} stay hidden (not debunked)")
    return penalties


def _player_total(args, data: dict, lines: list[str], change: int, penalties: dict[str, int]) -> None:
    if args.player is not None:
        total = change + penalties.get(args.player, 0)
        data |= {"player": args.player, "total": total}
        lines.append(f"{args.player}, in all: {total:+d} reputation")


def run_debunk(args) -> int:
    found, (args.ingredient, args.what) = _game(args, 2)
    game = found.assignment
    first = al.parse_ingredient(args.ingredient)
    theories = _theories(args.theory, first)
    seals = _seals(args.seal, theories)
    if args.player is not None and not args.player.strip():
        raise al.AlchemistsError("--player: an empty name")
    own, named = _reputations(args.reputation, args.player)
    if _debunk_mode(found, args.what) == al.APPRENTICE:
        if set(theories) - {first}:
            raise al.AlchemistsError(f"--theory: an apprentice debunk of {first} judges a theory of {first} only")
        if args.already_in_conflict:
            raise al.AlchemistsError("--already-in-conflict: conflicts are a master-mode rule")
        shown = al.debunk_aspect(game, first, al.Colour.parse(args.what), theories.get(first), own)
        sign = "+" if shown.sign > 0 else "-"
        lines = [f"{first}: the {shown.colour} aspect is {sign}"]
        if shown.debunked is not None:
            lines.append(f"theory {shown.theory} debunked: +{shown.reputation} reputation" if shown.debunked
                         else f"theory {shown.theory} stands: the debunker {_lose(shown.reputation, 'loses')}")
        data: dict = {"ingredient": first, "colour": str(shown.colour), "sign": sign,
                      "debunked": shown.debunked, "reputation": shown.reputation}
        if seals:
            debunked = (first,) if shown.debunked else ()
            data["penalties"] = _penalties(args, seals, debunked, shown.debunked_colour, shown.reputation, own,
                                           named, lines)
        if shown.debunked is not None:
            _player_total(args, data, lines, shown.reputation, data.get("penalties", {}))
        _emit(args, data, lines)
        return 0
    demo = al.demonstrate(game, first, args.what, theories, args.already_in_conflict, own)
    lines = [f"{demo.ingredients[0]} + {demo.ingredients[1]}: {demo.potion} ({demo.potion.effect})"]
    data = {"potion": str(demo.potion)}
    if theories:
        if demo.debunked:
            lines.append(f"debunked: the theory of {' and '.join(demo.debunked)}; +{demo.reputation} reputation")
        elif demo.conflict and demo.already_in_conflict:
            lines.append(f"conflict already known: nothing new shown; the debunker {_lose(demo.reputation, 'loses')}")
        elif demo.conflict:
            lines.append(f"conflict: the two theories cannot both be right; +{demo.reputation} reputation")
        else:
            lines.append(f"nothing debunked: the debunker {_lose(demo.reputation, 'loses')}")
        data |= {"debunked": list(demo.debunked), "conflict": demo.conflict, "success": demo.success,
                 "reputation": demo.reputation}
        if seals:
            data["penalties"] = _penalties(args, seals, demo.debunked, demo.debunked_colour, demo.reputation, own,
                                           named, lines)
        _player_total(args, data, lines, demo.reputation, data.get("penalties", {}))
    _emit(args, data, lines)
    return 0


def run_reveal(args) -> int:
    words = list(args.words)
    if len(words) > 2:
        raise al.AlchemistsError(f"expected at most a code and a theories file, got {len(words)} words")
    is_code = len(words) == 2 or (len(words) == 1 and len(words[0]) == al.codes.LETTERS and words[0].isalpha()
                                  and not os.path.exists(words[0]))
    args.words = words[:1] if is_code else []
    args.theories = words[-1] if words and (len(words) == 2 or not is_code) else None
    found, _ = _game(args, 0)
    game = found.assignment
    assignment = game.as_dict()
    lines = ["the answers:"] + [f"  {ingredient:<9} {alchemical}" for ingredient, alchemical in assignment.items()]
    data: dict = {"assignment": assignment}
    if args.theories is not None:
        revelation = al.grand_reveal(game, al.parse_theories(read_json(args.theories), args.theories))
        lines.append("theories:")
        data["theories"] = []
        for v in revelation.verdicts:
            verdict = "right" if v.correct else f"wrong ({', '.join(map(str, v.wrong))} wrong; it is {v.truth})"
            seals = ", ".join(f"{s.player} {s.kind} {points:+d}" for s, points in v.points) or "no seals"
            lines.append(f"  {v.theory.ingredient:<9} {v.theory.alchemical}  {verdict}: {seals}")
            data["theories"].append({
                "ingredient": v.theory.ingredient, "alchemical": str(v.theory.alchemical), "correct": v.correct,
                "wrong_aspects": [str(c) for c in v.wrong],
                "seals": [{"player": s.player, "seal": str(s.kind), "points": points} for s, points in v.points]})
        data["points"] = revelation.points
        lines.append("victory points: " + (", ".join(f"{player} {points:+d}" for player, points
                                                      in revelation.points.items()) or "none"))
    _emit(args, data, lines)
    return 0


def run_solve(args) -> int:
    facts, hand = al.parse_facts(read_json(args.facts), args.facts)
    if args.trust:
        facts += [al.TheoryFact(t.ingredient, t.alchemical)
                  for t in al.parse_theories(read_json(args.trust), args.trust)]
    if args.hand:
        hand = [al.parse_ingredient(h) for h in args.hand]
    deduction = al.deduce(facts)
    if not deduction.consistent:
        k = deduction.contradiction
        _emit(args, {"status": "inconsistent", "facts": len(facts), "contradiction": k, "fact": str(facts[k])},
              [f"inconsistent: no assignment fits these facts; fact #{k} ({facts[k]}) contradicts the ones "
               "before it"])
        return 1
    probabilities = deduction.probabilities
    certain = deduction.certain
    suggestion = al.suggest_mix(deduction, hand)
    listed = deduction.assignments(args.list) if deduction.remaining <= args.list else []
    data = {
        "status": "ok", "facts": len(facts), "remaining": deduction.remaining,
        "bits": round(deduction.bits, 3),
        "probabilities": {i: {str(a): round(float(probabilities[n, a.index]), 4) for a in al.ALCHEMICALS}
                          for n, i in enumerate(al.INGREDIENTS)},
        "certain": {i: str(a) for i, a in certain.items()},
        "next_mix": None if suggestion is None else {
            "ingredients": list(suggestion.ingredients), "expected_bits": round(suggestion.expected_bits, 3),
            "outcomes": {str(p): round(q, 4) for p, q in suggestion.outcomes}},
        "assignments": [a.as_dict() for a in listed],
    }
    lines = [f"{len(facts)} facts: {deduction.remaining} of {al.GAMES} assignments still possible "
             f"({deduction.bits:.2f} bits left)",
             "percent     " + " ".join(f"{a!s:>6}" for a in al.ALCHEMICALS)]
    for n, ingredient in enumerate(al.INGREDIENTS):
        lines.append(f"  {ingredient:<9} " + " ".join(f"{_percent(p):>6}" for p in probabilities[n]))
    lines.append("certain: " + (", ".join(f"{i} = {a}" for i, a in certain.items()) or "nothing yet"))
    if suggestion is not None and suggestion.expected_bits > 0:
        outcomes = ", ".join(f"{p} {100 * q:.0f}%" for p, q in suggestion.outcomes)
        lines.append(f"next mix: {' + '.join(suggestion.ingredients)}, expected to tell "
                     f"{suggestion.expected_bits:.2f} bits ({outcomes})")
    else:
        lines.append("next mix: " + ("no mix tells anything more" if suggestion else "no pair in the hand"))
    for a in listed:
        lines.append("possible: " + " ".join(f"{i}={x}" for i, x in a.as_dict().items()))
    _emit(args, data, lines)
    return 0
