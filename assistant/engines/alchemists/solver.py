"""The deduction aid: which assignments a player's facts still allow, and the mix that tells the most.

Every one of the 8! = 40,320 assignments is a row of one precomputed table (row ``k`` is
``Assignment.from_index(k)``), and so is the potion every pair of ingredients gives under it. A fact is
then one vectorised lookup over all rows, and every assignment that survives all the facts is equally
likely (each game code is drawn uniformly). Since a mix's result is fixed by the assignment, the expected
information of a mix is the entropy of its result over the surviving rows.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .alchemicals import ALCHEMICALS, INGREDIENTS, POTIONS, Alchemical, Potion, mix, parse_ingredient
from .codes import Assignment
from .facts import AspectFact, Fact, MixFact, TheoryFact

N_ING = len(INGREDIENTS)
N_ALC = len(ALCHEMICALS)
N_POT = len(POTIONS)
PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(N_ING), 2))


@cache
def tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(permutations, mixing table, potions): built once.

    permutations[k, i]: alchemical index of ingredient i in assignment k (lexicographic order = code rank);
    mixing[a, b]: potion index of alchemicals a and b (-1 on the diagonal);
    potions[p, k]: potion index of the ingredient pair PAIRS[p] in assignment k.
    """
    permutations = np.array(list(itertools.permutations(range(N_ALC))), dtype=np.int8)
    mixing = np.full((N_ALC, N_ALC), -1, dtype=np.int8)
    for a, b in itertools.permutations(range(N_ALC), 2):
        mixing[a, b] = POTIONS.index(mix(ALCHEMICALS[a], ALCHEMICALS[b]))
    potions = np.stack([mixing[permutations[:, i], permutations[:, j]] for i, j in PAIRS])
    for array in (permutations, mixing, potions):
        array.setflags(write=False)
    return permutations, mixing, potions


def _pair_row(first: str, second: str) -> int:
    i, j = sorted((INGREDIENTS.index(first), INGREDIENTS.index(second)))
    return PAIRS.index((i, j))


def fact_mask(fact: Fact) -> np.ndarray:
    """A boolean over the 40,320 assignments: True where the fact holds."""
    permutations, _, potions = tables()
    if isinstance(fact, MixFact):
        allowed = np.zeros(N_POT, dtype=bool)
        allowed[[p.index for p in fact.potions]] = True
        return allowed[potions[_pair_row(*fact.ingredients)]]
    column = permutations[:, INGREDIENTS.index(fact.ingredient)]
    if isinstance(fact, AspectFact):
        allowed = np.array([a.sign(fact.colour) == fact.sign for a in ALCHEMICALS])
        return allowed[column]
    if isinstance(fact, TheoryFact):
        return column == fact.alchemical.index
    raise TypeError(f"not a fact: {fact!r}")


@dataclass(frozen=True)
class Deduction:
    """What a set of facts leaves possible."""

    mask: np.ndarray = field(repr=False, compare=False)  # over the 40,320 assignments
    remaining: int
    contradiction: int | None  # index of the first fact that left nothing possible, when inconsistent

    @property
    def consistent(self) -> bool:
        return self.remaining > 0

    @property
    def probabilities(self) -> np.ndarray:
        """8 x 8: probability that ingredient i (INGREDIENTS order) is alchemical a (ALCHEMICALS order)."""
        if not self.remaining:
            return np.zeros((N_ING, N_ALC))
        rows = tables()[0][self.mask].astype(np.intp) + np.arange(N_ING) * N_ALC
        counts = np.bincount(rows.ravel(), minlength=N_ING * N_ALC).reshape(N_ING, N_ALC)
        return counts / self.remaining

    def probability(self, ingredient: str, alchemical: Alchemical) -> float:
        return float(self.probabilities[INGREDIENTS.index(parse_ingredient(ingredient)), alchemical.index])

    @property
    def certain(self) -> dict[str, Alchemical]:
        """The ingredients whose alchemical every remaining assignment agrees on."""
        if not self.remaining:
            return {}
        p = self.probabilities
        return {INGREDIENTS[i]: ALCHEMICALS[int(np.argmax(p[i]))] for i in range(N_ING) if p[i].max() == 1.0}

    def assignments(self, limit: int | None = None) -> list[Assignment]:
        """The remaining assignments (the first ``limit`` of them, in code-rank order)."""
        rows = np.flatnonzero(self.mask)[:limit]
        return [Assignment.from_index(int(k)) for k in rows]

    @property
    def bits(self) -> float:
        """Uncertainty left, in bits: log2 of the number of remaining assignments."""
        return math.log2(self.remaining) if self.remaining else 0.0


def deduce(facts: Iterable[Fact]) -> Deduction:
    mask = np.ones(len(tables()[0]), dtype=bool)
    contradiction = None
    for index, fact in enumerate(facts):
        mask &= fact_mask(fact)
        if contradiction is None and not mask.any():
            contradiction = index
    return Deduction(mask, int(mask.sum()), contradiction)


@dataclass(frozen=True)
class MixSuggestion:
    ingredients: tuple[str, str]
    expected_bits: float                 # expected reduction of uncertainty, in bits
    outcomes: tuple[tuple[Potion, float], ...]  # the possible results and their probabilities


def suggest_mix(deduction: Deduction, hand: Sequence[str] | None = None) -> MixSuggestion | None:
    """The mix with the largest expected information gain, among pairs of ``hand`` (all ingredients when
    None). None when facts are inconsistent or no pair is possible. Ties go to the earlier pair."""
    if not deduction.remaining:
        return None
    names = INGREDIENTS if hand is None else {parse_ingredient(h) for h in hand}
    rows = [p for p, (i, j) in enumerate(PAIRS) if INGREDIENTS[i] in names and INGREDIENTS[j] in names]
    if not rows:
        return None
    counts = outcome_counts(deduction, rows)
    probabilities = counts / deduction.remaining
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = -np.where(probabilities > 0, probabilities * np.log2(probabilities), 0.0).sum(axis=1)
    best = int(np.argmax(entropy))
    i, j = PAIRS[rows[best]]
    outcomes = tuple((POTIONS[p], float(probabilities[best, p])) for p in range(N_POT) if counts[best, p])
    return MixSuggestion((INGREDIENTS[i], INGREDIENTS[j]), max(float(entropy[best]), 0.0), outcomes)


def outcome_counts(deduction: Deduction, rows: Sequence[int]) -> np.ndarray:
    """len(rows) x 7: how many remaining assignments give each potion, for each pair PAIRS[row]."""
    selected = tables()[2][list(rows)][:, deduction.mask].astype(np.intp)
    selected += (np.arange(len(rows)) * N_POT)[:, None]
    return np.bincount(selected.ravel(), minlength=len(rows) * N_POT).reshape(len(rows), N_POT)

