"""Game codes: a deterministic bijection between the codes in use and the 40,320 assignments."""

from __future__ import annotations

import itertools
import string

import pytest

from assistant.engines.alchemists import (
    ALCHEMICALS,
    GAMES,
    AlchemistsError,
    Assignment,
    assignment_from_code,
    code_for_index,
    code_from_assignment,
    index_of_code,
)


def all_codes():
    return ("".join(letters) for letters in itertools.product(string.ascii_uppercase, repeat=4))


def test_the_codes_in_use_map_one_to_one_onto_every_assignment():
    ranks = []
    for code in all_codes():
        try:
            ranks.append(index_of_code(code))
        except AlchemistsError:
            continue
    assert len(ranks) == GAMES == 40320
    assert sorted(ranks) == list(range(GAMES))
    assignments = {tuple(Assignment.from_index(r).alchemicals) for r in ranks}
    assert len(assignments) == GAMES
    assert assignments == set(itertools.permutations(ALCHEMICALS))


def test_code_and_assignment_round_trip_both_ways():
    for rank in range(0, GAMES, 997):
        code = code_for_index(rank)
        assert len(code) == 4 and code.isalpha() and code.isupper()
        assignment = assignment_from_code(code)
        assert assignment.index == rank
        assert code_from_assignment(assignment) == code
        assert Assignment.from_mapping(assignment.as_dict()) == assignment


def test_the_derivation_is_deterministic_and_pinned():
    # Pinned so that a game started with one version of the program is the same game with the next.
    assert assignment_from_code(code_for_index(0)).as_dict() == {
        "fern": "r-g+B-", "claw": "r+g-B+", "mushroom": "r+G-b-", "flower": "r-G+b+",
        "root": "R-g-b+", "scorpion": "R+g+b-", "toad": "R-G-B-", "feather": "R+G+B+"}
    assert assignment_from_code("yyxx").index == 12345


def test_lower_case_and_spaces_are_accepted():
    code = code_for_index(777)
    assert index_of_code(f" {code.lower()} ") == 777


@pytest.mark.parametrize("bad", ["", "ABC", "ABCDE", "AB1D", "AB D", "ÀBCD"])
def test_a_malformed_code_is_a_one_line_error_that_does_not_repeat_it(bad):
    with pytest.raises(AlchemistsError, match="expected 4 letters") as error:
        index_of_code(bad)
    assert "\n" not in str(error.value) and (not bad.strip() or bad.strip() not in str(error.value))


def test_a_four_letter_word_that_is_not_a_game_code_is_refused():
    unused = next(c for c in all_codes() if not _valid(c))
    with pytest.raises(AlchemistsError, match="not a game code"):
        assignment_from_code(unused)


def _valid(code: str) -> bool:
    try:
        index_of_code(code)
    except AlchemistsError:
        return False
    return True


def test_the_assignment_does_not_show_itself_by_accident():
    assignment = assignment_from_code(code_for_index(5))
    for text in (repr(assignment), str(assignment), f"{assignment}"):
        assert not any(str(a) in text for a in ALCHEMICALS)
