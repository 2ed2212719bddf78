"""The deduction aid agrees with a brute-force count over every assignment."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from assistant.engines.alchemists import (
    ALCHEMICALS,
    COLOURS,
    INGREDIENTS,
    POTIONS,
    AlchemistsError,
    AspectFact,
    Assignment,
    MixFact,
    Potion,
    Quality,
    TheoryFact,
    deduce,
    exhibited,
    mix,
    mixed,
    parse_facts,
    quality_reached,
    sold,
    suggest_mix,
    with_sign,
)

# Brute force, written without numpy and without the solver's tables.
TABLE = {(a, b): mix(a, b) for a, b in itertools.permutations(ALCHEMICALS, 2)}
EVERY = [dict(zip(INGREDIENTS, p, strict=True)) for p in itertools.permutations(ALCHEMICALS)]


def holds(fact, world) -> bool:
    if isinstance(fact, MixFact):
        return TABLE[world[fact.ingredients[0]], world[fact.ingredients[1]]] in fact.potions
    if isinstance(fact, AspectFact):
        return world[fact.ingredient].sign(fact.colour) == fact.sign
    return world[fact.ingredient] == fact.alchemical


def brute_force(facts):
    return [w for w in EVERY if all(holds(f, w) for f in facts)]


def random_facts(rng: random.Random, truth: Assignment, count: int, lie: bool = False):
    """Facts as a player would see them in the game ``truth``; with ``lie``, the results are made up."""
    facts = []
    for _ in range(count):
        a, b = rng.sample(INGREDIENTS, 2)
        potion = rng.choice(POTIONS) if lie else mix(truth[a], truth[b])
        kind = rng.choice(["mix", "sign", "sell", "debunk", "exhibit", "theory"])
        if kind == "mix":
            facts.append(mixed(a, b, potion))
        elif kind == "sign" and not potion.neutral:
            facts.append(mixed(a, b, with_sign(potion.sign)))
        elif kind == "sell":
            wanted = rng.choice(POTIONS[:-1])
            facts.append(sold(a, b, wanted, quality_reached(wanted, potion)))
        elif kind == "debunk":
            colour = rng.choice(COLOURS)
            sign = rng.choice((1, -1)) if lie else truth[a].sign(colour)
            facts.append(AspectFact(a, colour, sign))
        elif kind == "exhibit":
            promised = rng.choice(POTIONS[:-1])
            facts.append(exhibited(a, b, promised, promised == potion))
        elif kind == "theory" and rng.random() < 0.3:
            facts.append(TheoryFact(a, rng.choice(ALCHEMICALS) if lie else truth[a]))
    return facts


def compare(facts, deduction):
    worlds = brute_force(facts)
    assert deduction.remaining == len(worlds)
    assert deduction.consistent == bool(worlds)
    if not worlds:
        return
    for n, ingredient in enumerate(INGREDIENTS):
        for alchemical in ALCHEMICALS:
            expected = sum(w[ingredient] == alchemical for w in worlds) / len(worlds)
            assert deduction.probabilities[n, alchemical.index] == pytest.approx(expected)
    listed = deduction.assignments(5)
    assert [a.as_dict() for a in listed] == [{i: str(x) for i, x in w.items()} for w in worlds[:5]]
    # The suggestion is the pair whose result is most uncertain (the largest entropy), as counted by hand.
    best = max(entropy([TABLE[w[a], w[b]] for w in worlds]) for a, b in itertools.combinations(INGREDIENTS, 2))
    suggestion = suggest_mix(deduction)
    assert suggestion.expected_bits == pytest.approx(best)
    a, b = suggestion.ingredients
    assert entropy([TABLE[w[a], w[b]] for w in worlds]) == pytest.approx(best)


def entropy(results) -> float:
    counts = [results.count(p) for p in set(results)]
    return -sum(c / len(results) * math.log2(c / len(results)) for c in counts)


@pytest.mark.parametrize("seed", range(6))
def test_posterior_agrees_with_brute_force_and_keeps_the_truth(seed):
    rng = random.Random(seed)
    truth = Assignment.from_index(rng.randrange(40320))
    facts = random_facts(rng, truth, rng.choice([2, 4, 7]))
    deduction = deduce(facts)
    assert deduction.mask[truth.index], "the true assignment was excluded"
    compare(facts, deduction)


@pytest.mark.parametrize("seed", range(4))
def test_made_up_facts_agree_with_brute_force_including_inconsistency(seed):
    rng = random.Random(100 + seed)
    facts = random_facts(rng, Assignment.from_index(0), 6, lie=True)
    compare(facts, deduce(facts))


def test_many_true_facts_pin_down_the_assignment():
    rng = random.Random(7)
    truth = Assignment.from_index(31337)
    deduction = deduce(random_facts(rng, truth, 40))
    assert deduction.remaining == 1 and deduction.mask[truth.index]
    assert deduction.certain == {i: truth[i] for i in INGREDIENTS}
    assert deduction.assignments() == [truth]
    assert suggest_mix(deduction).expected_bits == 0


def test_contradicting_facts_are_inconsistent_and_the_culprit_is_named():
    facts = [mixed("fern", "toad", Potion.parse("red+")), mixed("fern", "claw", Potion.parse("blue-")),
             mixed("toad", "fern", with_sign(-1))]
    deduction = deduce(facts)
    assert not deduction.consistent and deduction.remaining == 0 and deduction.contradiction == 2
    assert suggest_mix(deduction) is None and deduction.certain == {}


def test_a_minus_of_unknown_colour_is_weaker_than_the_potion_itself():
    exact = deduce([mixed("fern", "toad", Potion.parse("red-"))]).remaining
    sign_only = deduce([mixed("fern", "toad", with_sign(-1))]).remaining
    assert (exact, sign_only) == (40320 // 7, 3 * 40320 // 7)


def test_a_sale_fact_allows_exactly_the_potions_of_its_class():
    def allowed(reached):
        return {str(p) for p in sold("fern", "toad", Potion.parse("green+"), reached).potions}
    assert allowed(Quality.PERFECT) == {"green+"}
    assert allowed(Quality.GOOD) == {"red+", "blue+"}
    assert allowed(Quality.NEUTRAL) == {"neutral"}
    assert allowed(Quality.BAD) == {"red-", "green-", "blue-"}


def test_the_suggestion_stays_within_the_hand():
    deduction = deduce([])
    suggestion = suggest_mix(deduction, hand=["toad", "root", "fern"])
    assert set(suggestion.ingredients) <= {"toad", "root", "fern"}
    assert suggestion.expected_bits == pytest.approx(math.log2(7))  # nothing known: all 7 results equally likely
    assert suggest_mix(deduction, hand=["toad"]) is None


def test_facts_file_forms_parse_to_the_same_facts():
    facts, hand = parse_facts({"facts": [
        {"mix": ["fern", "toad"], "potion": "red+"},
        {"mix": ["fern", "claw"], "potion": "-"},
        {"mix": ["fern", "root"], "potion": ["blue+", "neutral"]},
        {"sell": ["claw", "toad"], "wanted": "green+", "result": "good"},
        {"exhibit": ["claw", "root"], "promised": "red-", "success": False},
        {"debunk": "toad", "colour": "blue", "sign": "+"},
        {"theory": "feather", "alchemical": "R+G+B+"},
    ], "hand": ["fern", "toad"]})
    assert hand == ["fern", "toad"]
    assert [str(f) for f in facts] == [
        "fern + toad: red+", "fern + claw: one of red- green- blue-", "fern + root: one of blue+ neutral",
        "claw + toad: one of red+ blue+", "claw + root: one of red+ green+ green- blue+ blue- neutral",
        "toad: blue is +", "feather is R+G+B+ (trusted theory)"]


@pytest.mark.parametrize(("data", "message"), [
    ({"facts": [{"mix": ["fern", "fern"], "potion": "red+"}]}, "facts\\[0\\]: cannot mix fern with itself"),
    ({"facts": [{"mix": ["fern", "toad"], "potion": "pink"}]}, "facts\\[0\\]: unknown potion"),
    ({"facts": [{"mix": ["fern", "toad"]}]}, "facts\\[0\\]: potion: expected"),
    ({"facts": [{"sell": ["fern", "toad"], "wanted": "red+", "result": "great"}]}, "unknown quality"),
    ({"facts": [{"debunk": "fern", "colour": "pink", "sign": "+"}]}, "unknown colour"),
    ({"facts": [{"mix": ["fern", "toad"], "debunk": "fern"}]}, "exactly one of"),
    ({"facts": [], "hand": ["newt"]}, "hand: unknown ingredient"),
    ({"fact": []}, "expected a list of facts"),
])
def test_a_malformed_facts_file_names_the_place(data, message):
    with pytest.raises(AlchemistsError, match=message):
        parse_facts(data, "F.json")
