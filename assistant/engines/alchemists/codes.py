"""Game codes and the secret assignment they stand for.

A game is identified by four letters. The derivation is ours (not the publisher's) and is documented in
docs/alchemists.md:

1. Read the letters as a number in base 26 (A=0 ... Z=25, first letter most significant): ``v`` in
   ``0 .. 26**4 - 1``.
2. Scramble it with an affine map of that range onto itself, ``n = (MULTIPLIER * v + OFFSET) mod 26**4``;
   MULTIPLIER is coprime to 26, so the map is a bijection and neighbouring codes land far apart.
3. Only the codes with ``n < 8! = 40320`` are game codes; every other four-letter word is refused, which
   also catches most typos (about 91% of them).
4. ``n`` is the rank of the assignment in lexicographic order: written in the factorial number system, its
   digits pick, for each ingredient in the order fern claw mushroom flower root scorpion toad feather, one
   of the alchemicals not yet used, in the order of ``ALCHEMICALS``.

So the 40,320 game codes and the 40,320 assignments are in one-to-one correspondence. Nothing here draws at
random: the command line draws ``n`` and asks for ``code_for_index(n)``.

Keyed by the table: with a ``key`` (the table's secret, kept beside its state file), step 4's rank is
``HMAC-SHA256(key, "alchemists-game:" + CODE) mod 8!`` instead of ``n``, so a code read off the table
tells nothing on a machine without the key, and codes cannot be listed with their answers. Steps 1-3
still say which words are codes. ``game_id`` names a game in a journal: another HMAC of the code, which
says nothing about the code or its answers without the key.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Mapping
from dataclasses import dataclass

from .alchemicals import ALCHEMICALS, INGREDIENTS, Alchemical, AlchemistsError, parse_ingredient

LETTERS = 4
SPACE = 26 ** LETTERS
GAMES = math.factorial(len(INGREDIENTS))  # 40,320
MULTIPLIER = 104_729  # prime, so coprime to 26 = 2 * 13
OFFSET = 271_828
_INVERSE = pow(MULTIPLIER, -1, SPACE)


@dataclass(frozen=True, repr=False)
class Assignment:
    """The secret: the alchemical of each ingredient, in ``INGREDIENTS`` order.

    Its ``repr`` hides the answer so that it cannot slip into a log or a traceback by accident; read it
    with ``assignment["fern"]`` or ``as_dict()`` when it is meant to be shown (the grand reveal).
    """

    alchemicals: tuple[Alchemical, ...]

    def __post_init__(self) -> None:
        if len(self.alchemicals) != len(INGREDIENTS) or set(self.alchemicals) != set(ALCHEMICALS):
            raise AlchemistsError("an assignment gives each of the eight ingredients a different alchemical")

    def __repr__(self) -> str:
        return "Assignment(<secret>)"

    __str__ = __repr__

    def __getitem__(self, ingredient: str) -> Alchemical:
        return self.alchemicals[INGREDIENTS.index(parse_ingredient(ingredient))]

    def as_dict(self) -> dict[str, str]:
        return {ingredient: str(a) for ingredient, a in zip(INGREDIENTS, self.alchemicals, strict=True)}

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str | Alchemical]) -> Assignment:
        names = {parse_ingredient(k): v for k, v in mapping.items()}
        missing = [i for i in INGREDIENTS if i not in names]
        if missing:
            raise AlchemistsError(f"assignment: missing {', '.join(missing)}")
        return cls(tuple(v if isinstance(v, Alchemical) else Alchemical.parse(v) for v in
                         (names[i] for i in INGREDIENTS)))

    @property
    def index(self) -> int:
        """Rank in lexicographic order (0 .. 40319): the row of this assignment in the solver's tables."""
        rest = list(range(len(ALCHEMICALS)))
        rank = 0
        for position, alchemical in enumerate(self.alchemicals):
            digit = rest.index(alchemical.index)
            rank += digit * math.factorial(len(INGREDIENTS) - 1 - position)
            rest.pop(digit)
        return rank

    @classmethod
    def from_index(cls, rank: int) -> Assignment:
        if not 0 <= rank < GAMES:
            raise AlchemistsError(f"assignment index must be in 0..{GAMES - 1}")
        rest = list(ALCHEMICALS)
        chosen = []
        for position in range(len(INGREDIENTS)):
            digit, rank = divmod(rank, math.factorial(len(INGREDIENTS) - 1 - position))
            chosen.append(rest.pop(digit))
        return cls(tuple(chosen))


def normalise_code(text: str) -> str:
    """Upper-case the code and check its form. Messages never repeat the code: it is part of the secret."""
    code = str(text).strip().upper()
    if len(code) != LETTERS or not all("A" <= c <= "Z" for c in code):
        got = f"{len(code)} characters" if len(code) != LETTERS else "something other than letters"
        raise AlchemistsError(f"game code: expected {LETTERS} letters A-Z, got {got}")
    return code


def _number(code: str) -> int:
    value = 0
    for c in code:
        value = value * 26 + (ord(c) - ord("A"))
    return value


def index_of_code(text: str) -> int:
    """The assignment rank a game code stands for."""
    n = (MULTIPLIER * _number(normalise_code(text)) + OFFSET) % SPACE
    if n >= GAMES:
        raise AlchemistsError("game code: these four letters are not a game code (a typo?)")
    return n


def code_for_index(rank: int) -> str:
    """The game code of the assignment of rank ``rank`` (0 .. 40319)."""
    if not 0 <= rank < GAMES:
        raise AlchemistsError(f"assignment index must be in 0..{GAMES - 1}")
    value = ((rank - OFFSET) * _INVERSE) % SPACE
    letters = []
    for _ in range(LETTERS):
        value, digit = divmod(value, 26)
        letters.append(chr(ord("A") + digit))
    return "".join(reversed(letters))


def keyed_index(text: str, key: bytes) -> int:
    """The assignment rank of a game code at the table whose secret key is ``key``."""
    code = code_for_index(index_of_code(text))  # a game code, upper case
    if not isinstance(key, bytes) or len(key) < 16:
        raise AlchemistsError("the table's key must be at least 16 bytes")
    digest = hmac.new(key, f"alchemists-game:{code}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest, "big") % GAMES


def game_id(text: str, key: bytes) -> str:
    """A name for the game in a journal: stable for a code at one table, and telling nothing about either."""
    code = code_for_index(index_of_code(text))
    if not isinstance(key, bytes) or len(key) < 16:
        raise AlchemistsError("the table's key must be at least 16 bytes")
    return hmac.new(key, f"alchemists-id:{code}".encode(), hashlib.sha256).hexdigest()[:20]


def assignment_from_code(text: str, key: bytes | None = None) -> Assignment:
    """The assignment of a game code: keyed by the table when ``key`` is given, else the unkeyed derivation."""
    return Assignment.from_index(index_of_code(text) if key is None else keyed_index(text, key))


def code_from_assignment(assignment: Assignment) -> str:
    return code_for_index(assignment.index)
