"""The search behind the turn checker: which power uses turn the boards before into the boards after.

Stones of one colour are alike and the camera only sees colours, so the search works on *classes* of
positions rather than on positions: every position is described by (stone now, stone wanted at the end),
and the state counts the positions of each class (36 of them, 0 standing for an empty position). Positions
of one class are interchangeable for every later power use; only the completion of a crystal (a board that
reproduces a top card at an intermediate step stops the turn) tells them apart, and that is settled when a
plan found on classes is made concrete (``concretize``), trying the other positions of a class if needed.

Two searches:
- without Dispersion, the player's own positions are classes like the opponents' ones;
- with Dispersion (white potion, Air crystal), his own boards are only a count of stones per colour: the
  Dispersion puts them back in any arrangement, so positions before it are taken from the board before the
  turn and positions after it are read back from the board after it.

Each search is iterative deepening on the number of uses with an admissible lower bound (positions that
must still change, stones that must still leave or enter the reserve), so legal turns are found at the
smallest number of uses and a turn no power could produce is refused after a short exhaustive search.
At most one Dispersion is used in an explanation: a second one adds no arrangement the first cannot give.
"""

from __future__ import annotations

from collections.abc import Iterator

from .powers import ATTRACTION, DISPERSION, EXTRACTION, INTEGRATION, INVERSION, PURIFICATION, TRANSFORMATION

G, W, B, Y, R = 1, 2, 3, 4, 5
COLOUR_INTS = (1, 2, 3, 4, 5)
CODE = {INTEGRATION: "I", EXTRACTION: "E", ATTRACTION: "A", DISPERSION: "D", TRANSFORMATION: "T",
        PURIFICATION: "P", INVERSION: "V"}
TO_EMPTY = tuple(x * 6 for x in COLOUR_INTS)                                          # (x, empty)
CLEAR_OTHER = tuple(x * 6 + u for x in COLOUR_INTS for u in COLOUR_INTS if u != x)   # (x, u), u another colour
FILL = tuple(u for u in COLOUR_INTS)                                                  # (empty, u)
PLACE = tuple(x * 6 + t for t in COLOUR_INTS for x in range(6) if x != t)            # own (x, t), t a colour


def _bump(counts: tuple[int, ...], a: int, b: int) -> list[int]:
    """Counts with one position moved from class ``a`` to class ``b``."""
    out = list(counts)
    out[a] -= 1
    out[b] += 1
    return out


class Problem:
    """One search: the player's powers and potions, the start (after any emptying) and the wanted end.

    Boards are lists of ints (0 empty, 1..5 the colours in COLOURS order). ``own_start``/``own_end`` list
    the player's boards; ``opp_start``/``opp_end`` every position of the opponents' boards, flattened.
    ``forbidden[b]`` holds the cell tuples that would complete a crystal on own board ``b``."""

    def __init__(self, powers: dict[int, set[str]], potions: list[int], own_start, own_end, opp_start, opp_end,
                 reserve_start: list[int], reserve_end: list[int], forbidden: list[set[tuple[int, ...]]]):
        self.powers = powers
        self.potions = tuple(potions)
        self.own_start = [list(b) for b in own_start]
        self.own_end = [list(b) for b in own_end]
        self.opp_start, self.opp_end = list(opp_start), list(opp_end)
        self.reserve_start, self.reserve_end = tuple(reserve_start), tuple(reserve_end)
        self.forbidden = forbidden
        self.capacity = sum(len(b) for b in own_start)
        opp = [0] * 36
        for a, b in zip(opp_start, opp_end, strict=True):
            opp[a * 6 + b] += 1
        self.opp0 = tuple(opp)
        own = [0] * 36
        for board_a, board_b in zip(own_start, own_end, strict=True):
            for a, b in zip(board_a, board_b, strict=True):
                own[a * 6 + b] += 1
        self.own0 = tuple(own)
        self.mult0 = _multiset(own_start)
        self.mult_end = _multiset(own_end)
        self.can = {code: colour for colour, codes in powers.items() for code in codes if code in "ADTPV"}

    # lower bound ------------------------------------------------------------------------------------
    def _advanced(self, pot, code: str) -> int:
        colour = self.can.get(code)
        return pot[colour] if colour else 0

    def _base(self, pot, code: str) -> list[int]:
        return [0] + [pot[c] if code in self.powers[c] else 0 for c in COLOUR_INTS]

    def bound(self, own, opp, res, pot, mode_f: bool, dispersed: bool) -> int:
        """A lower bound on the uses still needed (a large number if the end cannot be reached)."""
        g, b, y, r = (self._advanced(pot, k) for k in "APTV")
        to_empty = sum(opp[i] for i in TO_EMPTY)
        clear_other = sum(opp[i] for i in CLEAR_OTHER)
        fill = sum(opp[i] for i in FILL)
        if to_empty > g or to_empty + clear_other > g + r or (fill and not b):
            return 99
        lb_opp = to_empty + clear_other + (1 if fill else 0)
        n_i, n_e = self._base(pot, "I"), self._base(pot, "E")
        plus = minus = 0
        for c in COLOUR_INTS:
            d = res[c] - self.reserve_end[c]
            if d > 0:
                if d > n_i[c] + y:
                    return 99
                plus += d
            elif d < 0:
                if -d > n_e[c] + y:
                    return 99
                minus -= d
        lb_res = plus + minus - min(y, plus, minus)
        extra = 0
        if mode_f:
            if not dispersed:
                if not self._advanced(pot, "D"):
                    return 99
                extra = 1
            gain = lose = 0
            for c in COLOUR_INTS:
                d = self.mult_end[c] - own[c]
                if d > 0:
                    gain += d
                else:
                    lose -= d
            lb_own = gain + (0 if lose <= gain else (1 if b else lose - gain))
        else:
            place = sum(own[i] for i in PLACE)
            clear = sum(own[i] for i in TO_EMPTY)
            if clear and not b and any(own[x * 6] > n_e[x] + y + r for x in COLOUR_INTS):
                return 99
            lb_own = place + (0 if not clear else (1 if b else clear))
        return max(lb_own, lb_res + lb_opp) + extra

    # moves on classes -------------------------------------------------------------------------------
    def children(self, own, opp, res, pot, mode_f: bool, dispersed: bool, budget: int) -> Iterator[tuple]:
        """(step, own, opp, res, pot, dispersed) for every use of one potion from this state."""
        for c in COLOUR_INTS:
            if not pot[c]:
                continue
            pot2 = list(pot)
            pot2[c] -= 1
            pot2 = tuple(pot2)
            for code in self.powers[c]:
                if code == "I" and res[c]:
                    res2 = _res(res, c, -1)
                    if mode_f:
                        if sum(own) < self.capacity:
                            yield ("I", c), _inc(own, c), opp, res2, pot2, dispersed
                    else:
                        for t in range(6):
                            if own[t]:
                                yield ("I", c, t), tuple(_bump(own, t, c * 6 + t)), opp, res2, pot2, dispersed
                elif code == "E":
                    res2 = _res(res, c, +1)
                    if mode_f:
                        if own[c]:
                            yield ("E", c), _inc(own, c, -1), opp, res2, pot2, dispersed
                    else:
                        for t in range(6):
                            if own[c * 6 + t]:
                                yield ("E", c, t), tuple(_bump(own, c * 6 + t, t)), opp, res2, pot2, dispersed
                elif code == "A":
                    yield from self._attraction(own, opp, res, pot2, mode_f, dispersed)
                elif code == "T":
                    yield from self._transformation(own, opp, res, pot2, mode_f, dispersed)
                elif code == "V":
                    yield from self._inversion(own, opp, res, pot2, mode_f, dispersed)
                elif code == "P":
                    yield from self._purification(own, opp, res, pot2, mode_f, dispersed, budget)
                elif code == "D" and mode_f and not dispersed and sum(own):
                    yield ("D",), own, opp, res, pot2, True

    def _attraction(self, own, opp, res, pot, mode_f, dispersed):
        for x in COLOUR_INTS:
            for u in range(6):
                if not opp[x * 6 + u]:
                    continue
                opp2 = tuple(_bump(opp, x * 6 + u, u))
                if mode_f:
                    if sum(own) < self.capacity:
                        yield ("A", x, u), _inc(own, x), opp2, res, pot, dispersed
                else:
                    for t in range(6):
                        if own[t]:
                            yield ("A", x, u, t), tuple(_bump(own, t, x * 6 + t)), opp2, res, pot, dispersed

    def _transformation(self, own, opp, res, pot, mode_f, dispersed):
        for x in COLOUR_INTS:
            for t in ([None] if mode_f else range(6)):
                if not (own[x] if mode_f else own[x * 6 + t]):
                    continue
                for y in COLOUR_INTS:
                    if y == x or not res[y]:
                        continue
                    res2 = list(res)
                    res2[x] += 1
                    res2[y] -= 1
                    own2 = _inc(_inc(own, x, -1), y) if mode_f else tuple(_bump(own, x * 6 + t, y * 6 + t))
                    yield ("T", x, t, y), own2, opp, tuple(res2), pot, dispersed

    def _inversion(self, own, opp, res, pot, mode_f, dispersed):
        for x in COLOUR_INTS:
            for t in ([None] if mode_f else range(6)):
                if not (own[x] if mode_f else own[x * 6 + t]):
                    continue
                for y in COLOUR_INTS:
                    if y == x:
                        continue
                    for u in range(6):
                        if not opp[y * 6 + u]:
                            continue
                        opp2 = tuple(_bump(opp, y * 6 + u, x * 6 + u))
                        own2 = _inc(_inc(own, x, -1), y) if mode_f else tuple(_bump(own, x * 6 + t, y * 6 + t))
                        yield ("V", x, t, y, u), own2, opp2, res, pot, dispersed

    def _purification(self, own, opp, res, pot, mode_f, dispersed, budget):
        """Stones sent to the opponents' free positions: every choice of how many stones of each class go
        to each class of free position, where stones sent somewhere they must later leave again (or taken
        from where they must stay) count against ``budget``, the uses left beyond the lower bound."""
        dests = [u for u in range(6) if opp[u]]
        if not dests:
            return
        kinds: list[tuple[object, int, int, int]] = []  # (source, colour, destination, damage)
        if mode_f:
            sources = []
            for x in COLOUR_INTS:
                spare = max(own[x] - self.mult_end[x], 0)
                if spare:
                    sources.append(((x, 0), x, spare, 0))
                if own[x] - spare:
                    sources.append(((x, 1), x, own[x] - spare, 1))
        else:
            sources = [(x * 6 + t, x, own[x * 6 + t], 1 if t == x else 0)
                       for x in COLOUR_INTS for t in range(6) if own[x * 6 + t]]
        avail = {src: n for src, _, n, _ in sources}
        for src, x, _, own_damage in sources:
            for u in dests:
                kinds.append((src, x, u, own_damage + (0 if u == x else 1)))
        kinds.sort(key=lambda k: k[3])
        room = {u: opp[u] for u in dests}
        chosen: list[tuple[object, int, int, int]] = []

        def walk(i: int, damage: int):
            if i == len(kinds):
                if chosen:
                    yield tuple(chosen)
                return
            src, x, u, dmg = kinds[i]
            most = min(avail[src], room[u])
            if dmg:
                most = min(most, (budget - damage) // dmg)
            for k in range(most, -1, -1):
                if k:
                    avail[src] -= k
                    room[u] -= k
                    chosen.append((src, x, u, k))
                yield from walk(i + 1, damage + k * dmg)
                if k:
                    chosen.pop()
                    avail[src] += k
                    room[u] += k

        for sent in walk(0, 0):
            own2, opp2 = list(own), list(opp)
            for src, x, u, k in sent:
                if mode_f:
                    own2[x] -= k
                else:
                    own2[src] -= k
                    own2[src % 6] += k
                opp2[u] -= k
                opp2[x * 6 + u] += k
            step = ("P", tuple((x, None if mode_f else src % 6, u, k) for src, x, u, k in sent))
            yield step, tuple(own2), tuple(opp2), res, pot, dispersed

    # the search -------------------------------------------------------------------------------------
    def plans(self, mode_f: bool) -> Iterator[list[tuple]]:
        """Plans (lists of steps on classes) reaching the end, fewest uses first."""
        own = tuple(self.mult0) if mode_f else self.own0
        res, pot = self.reserve_start, self.potions
        total = sum(pot)
        first = self.bound(own, self.opp0, res, pot, mode_f, False)
        for limit in range(max(first, 1), total + 1):
            failed: set = set()
            yield from self._dfs(own, self.opp0, res, pot, mode_f, False, limit, [], failed)

    def _goal(self, own, opp, mode_f, dispersed) -> bool:
        if any(opp[x * 6 + u] for x in range(6) for u in range(6) if x != u):
            return False
        if mode_f:
            return dispersed and all(own[c] == self.mult_end[c] for c in COLOUR_INTS)
        return not any(own[x * 6 + t] for x in range(6) for t in range(6) if x != t)

    def _dfs(self, own, opp, res, pot, mode_f, dispersed, left, path, failed):
        """Plans of exactly ``left`` more uses from this state (shorter ones were found at a lower limit)."""
        key = (own, opp, res, pot, dispersed, left)
        if key in failed:
            return
        found = False
        for step, own2, opp2, res2, pot2, disp2 in self.children(own, opp, res, pot, mode_f, dispersed, left - 1):
            lb = self.bound(own2, opp2, res2, pot2, mode_f, disp2)
            if lb > left - 1:
                continue
            path.append(step)
            if left == 1:
                if self._goal(own2, opp2, mode_f, disp2):
                    found = True
                    yield list(path)
            else:
                for plan in self._dfs(own2, opp2, res2, pot2, mode_f, disp2, left - 1, path, failed):
                    found = True
                    yield plan
            path.pop()
        if not found:
            failed.add(key)


def _inc(mult, c: int, k: int = 1) -> tuple[int, ...]:
    out = list(mult)
    out[c] += k
    return tuple(out)


def _res(res, c: int, k: int) -> tuple[int, ...]:
    out = list(res)
    out[c] += k
    return tuple(out)


def _multiset(boards) -> tuple[int, ...]:
    counts = [0] * 6
    for board in boards:
        for x in board:
            if x:
                counts[x] += 1
    return tuple(counts)

