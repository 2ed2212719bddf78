"""From a plan on classes of positions to positions: which stone of the class each power use moves.

Positions of one class are interchangeable for the powers, so any choice reaches the boards after; the only
thing that can go wrong is a board reproducing a crystal between two uses (the turn would have stopped
there). The first choices are tried first and the others only when such a board appears.

A concrete step is one of: ``("I", colour, own)``, ``("E", colour, own)``, ``("A", opp, own)``,
``("T", own, colour)``, ``("V", own, opp)``, ``("P", ((own, opp), ...))``, ``("D", ((own, own), ...))``
where ``own`` is (board, index) on the player's boards and ``opp`` an index into the opponents' positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product

from .search import Problem


def concretize(problem: Problem, plan: list[tuple], mode_f: bool) -> list[tuple] | None:
    """Concrete steps for ``plan``, or None if every choice completes a crystal before the last use."""
    opp_choices = _opponents(problem, plan)
    if not mode_f:
        own = [list(b) for b in problem.own_start]
        return next(_forward_c(problem, plan, opp_choices, 0, own, []), None)
    d = next(i for i, step in enumerate(plan) if step[0] == "D")
    for post_start, post_steps in _backward(problem, plan[d + 1:], opp_choices[d + 1:]):
        own = [list(b) for b in problem.own_start]
        for pre_end, pre_steps in _forward_f(problem, plan[:d], opp_choices[:d], 0, own, []):
            if pre_end != post_start:  # the Dispersion must change something
                return [*pre_steps, ("D", _dispersion(pre_end, post_start)), *post_steps]
    return None


def _opponents(problem: Problem, plan: list[tuple]) -> list:
    """The opponents' positions each step uses: the first of its class (they are all alike)."""
    cur, end = list(problem.opp_start), problem.opp_end
    choices: list = []

    def take(x: int, u: int) -> int:
        i = next(i for i in range(len(cur)) if cur[i] == x and end[i] == u)
        return i

    for step in plan:
        kind = step[0]
        if kind == "A":
            i = take(step[1], step[2])
            cur[i] = 0
            choices.append(i)
        elif kind == "V":
            i = take(step[3], step[4])
            cur[i] = step[1]
            choices.append(i)
        elif kind == "P":
            sent = []
            for x, _, u, k in step[1]:
                for _ in range(k):
                    i = take(0, u)
                    cur[i] = x
                    sent.append(i)
            choices.append(sent)
        else:
            choices.append(None)
    return choices


def _spots(own, end, x: int, t: int | None) -> list[tuple[int, int]]:
    return [(b, i) for b, board in enumerate(own) for i, stone in enumerate(board)
            if stone == x and (t is None or end[b][i] == t)]


def _completes(problem: Problem, own) -> bool:
    return any(tuple(board) in problem.forbidden[b] for b, board in enumerate(own))


def _options(problem: Problem, step: tuple, opp, own, end, backward: bool = False) -> Iterator[tuple[tuple, list]]:
    """(concrete step, changes) for each way of placing ``step``; changes are ((b, i), new stone)."""
    kind = step[0]
    if kind in ("I", "E"):
        colour, t = step[1], (step[2] if len(step) > 2 else None)
        placing = (kind == "I") != backward
        for s in _spots(own, end, 0 if placing else colour, t):
            yield (kind, colour, s), [(s, colour if placing else 0)]
    elif kind == "A":
        x, t = step[1], (step[3] if len(step) > 3 else None)
        for s in _spots(own, end, x if backward else 0, t):
            yield ("A", opp, s), [(s, 0 if backward else x)]
    elif kind in ("T", "V"):
        x, t, y = step[1], step[2], step[3]
        for s in _spots(own, end, y if backward else x, t):
            yield ((kind, s, y) if kind == "T" else ("V", s, opp)), [(s, x if backward else y)]
    elif kind == "P":
        parts = []
        for x, t, _, k in step[1]:
            parts.append([(x, chosen) for chosen in combinations(_spots(own, end, 0 if backward else x, t), k)])
        for pick in product(*parts):
            taken = [s for _, chosen in pick for s in chosen]
            if len(set(taken)) < len(taken):
                continue
            moves = tuple((s, o) for s, o in zip(taken, opp, strict=True))
            yield ("P", moves), [(s, x if backward else 0) for x, chosen in pick for s in chosen]


def _forward_c(problem, plan, opps, i, own, done) -> Iterator[list[tuple]]:
    if i == len(plan):
        yield list(done)
        return
    for concrete, changes in _options(problem, plan[i], opps[i], own, problem.own_end):
        old = [(s, own[s[0]][s[1]]) for s, _ in changes]
        for (b, j), stone in changes:
            own[b][j] = stone
        if i == len(plan) - 1 or not _completes(problem, own):
            done.append(concrete)
            yield from _forward_c(problem, plan, opps, i + 1, own, done)
            done.pop()
        for (b, j), stone in old:
            own[b][j] = stone


def _forward_f(problem, plan, opps, i, own, done) -> Iterator[tuple[list[list[int]], list[tuple]]]:
    """Steps before the Dispersion, from the boards before: every board between them is intermediate."""
    if i == len(plan):
        yield [list(b) for b in own], list(done)
        return
    ends = [[None] * len(b) for b in own]
    for concrete, changes in _options(problem, plan[i], opps[i], own, ends):
        old = [(s, own[s[0]][s[1]]) for s, _ in changes]
        for (b, j), stone in changes:
            own[b][j] = stone
        if not _completes(problem, own):
            done.append(concrete)
            yield from _forward_f(problem, plan, opps, i + 1, own, done)
            done.pop()
        for (b, j), stone in old:
            own[b][j] = stone


def _backward(problem, plan, opps) -> Iterator[tuple[list[list[int]], list[tuple]]]:
    """Steps after the Dispersion, undone from the boards after: (boards right after it, steps)."""
    own = [list(b) for b in problem.own_end]
    ends = [[None] * len(b) for b in own]

    def undo(i: int, done: list[tuple]):
        if i < 0:
            yield [list(b) for b in own], list(reversed(done))
            return
        for concrete, changes in _options(problem, plan[i], opps[i], own, ends, backward=True):
            old = [(s, own[s[0]][s[1]]) for s, _ in changes]
            for (b, j), stone in changes:
                own[b][j] = stone
            if not _completes(problem, own):  # the board before this step is between two uses
                done.append(concrete)
                yield from undo(i - 1, done)
                done.pop()
            for (b, j), stone in old:
                own[b][j] = stone

    yield from undo(len(plan) - 1, [])


def _dispersion(before: list[list[int]], after: list[list[int]]) -> tuple:
    """Moves (from, to) turning one arrangement of the player's boards into another with the same stones."""
    lifted = [(b, i) for b, board in enumerate(before) for i, x in enumerate(board) if x and after[b][i] != x]
    placed = [(b, i) for b, board in enumerate(after) for i, x in enumerate(board) if x and before[b][i] != x]
    moves = []
    for s in lifted:
        colour = before[s[0]][s[1]]
        t = next(t for t in placed if after[t[0]][t[1]] == colour)
        placed.remove(t)
        moves.append((s, t))
    return tuple(moves)
