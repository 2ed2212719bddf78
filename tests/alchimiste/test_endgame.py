"""End-game scoring: screen points, dense school ranking, rewards by player count, the tie-break."""

from __future__ import annotations

import pytest

from assistant.engines.alchimiste import REWARDS, Cubes, EndPlayer, IllegalAction, school_places, score_endgame

SCHOOLS = ("grey", "blue", "orange", "yellow", "green")


def table(fames, screens, schools=SCHOOLS):
    return [EndPlayer(f"P{i}", school, fame, Cubes.of(screen))
            for i, (fame, screen, school) in enumerate(zip(fames, screens, schools, strict=False))]


def test_the_issue_example():
    players = [EndPlayer("Abigail", "grey", 31, Cubes.of(grey=2, blue=1)),
               EndPlayer("Merlin", "orange", 30, Cubes.of(orange=4))]
    result = score_endgame(players, Cubes.of(grey=3, blue=0, orange=5))
    assert result.reserve_after == Cubes.of(grey=5, blue=1, orange=9)
    assert result.to_dict() == {
        "players": [
            {"name": "Abigail", "fame": 31, "screen_points": 1, "school_place": 1, "school_reward": 6, "total": 38},
            {"name": "Merlin", "fame": 30, "screen_points": 2, "school_place": 2, "school_reward": 0, "total": 32},
        ],
        "winners": ["Abigail"],
    }


def test_screen_points_are_one_per_two_cubes_rounded_down():
    result = score_endgame(table([0, 0], [{"blue": 5}, {"green": 1}]), Cubes())
    assert [line.screen_points for line in result.lines] == [2, 0]


def test_screens_are_emptied_into_the_reserve_before_ranking():
    # Before emptying, grey (2) beats blue (4); Abigail's 5 grey behind her screen turn it round.
    result = score_endgame(table([0, 0], [{"grey": 5}, {}]), Cubes.of(grey=2, blue=4))
    assert [line.school_place for line in result.lines] == [2, 1]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_rewards_by_player_count(n):
    reserve = Cubes.of({school: i for i, school in enumerate(SCHOOLS[:n])})
    result = score_endgame(table([10] * n, [{}] * n), reserve)
    assert tuple(line.school_reward for line in result.lines) == REWARDS[n]
    assert [line.school_place for line in result.lines] == list(range(1, n + 1))
    assert result.winners == ("P0",)


def test_equal_counts_share_a_place_and_no_place_is_skipped():
    places = school_places(Cubes.of(grey=2, blue=2, orange=5, yellow=7), ["grey", "blue", "orange", "yellow"])
    assert places == {"grey": 1, "blue": 1, "orange": 2, "yellow": 3}
    result = score_endgame(table([0] * 4, [{}] * 4), Cubes.of(grey=2, blue=2, orange=5, yellow=7))
    assert [line.school_reward for line in result.lines] == [12, 12, 8, 4]


def test_all_schools_tied_all_first():
    result = score_endgame(table([0] * 3, [{}] * 3), Cubes.each(4))
    assert [line.school_place for line in result.lines] == [1, 1, 1]
    assert [line.school_reward for line in result.lines] == [10, 10, 10]


def test_only_schools_in_play_are_ranked():
    # Green has no school in play: its 0 cubes take no place.
    result = score_endgame(table([0, 0, 0], [{}] * 3), Cubes.of(grey=3, blue=4, orange=6, green=0))
    assert [line.school_place for line in result.lines] == [1, 2, 3]


def test_a_tie_goes_to_the_larger_school_reward():
    # P0: 40 + 0 + 10 = 50; P1: 45 + 0 + 5 = 50; P2: 50 + 0 + 0 = 50.
    result = score_endgame(table([40, 45, 50], [{}] * 3), Cubes.of(grey=1, blue=2, orange=3))
    assert [line.total for line in result.lines] == [50, 50, 50]
    assert result.winners == ("P0",)


def test_a_tie_after_the_tie_break_is_shared():
    result = score_endgame(table([40, 40, 44], [{}] * 3), Cubes.of(grey=1, blue=1, orange=3))
    assert [line.total for line in result.lines] == [50, 50, 49]
    assert result.winners == ("P0", "P1")


def test_fame_decides_before_the_school_reward():
    result = score_endgame(table([60, 40], [{}, {}]), Cubes.of(grey=5, blue=1))
    assert result.winners == ("P0",) and result.lines[1].school_reward == 6


@pytest.mark.parametrize("players, reserve, message", [
    (table([0], [{}]), Cubes(), "Alchimiste is played by 2 to 5 adepts, not 1"),
    (table([0] * 6, [{}] * 6, (*SCHOOLS, "grey")), Cubes(), "Alchimiste is played by 2 to 5 adepts, not 6"),
    (table([0, 0], [{}, {}], ("blue", "blue")), Cubes(), "school 'blue' is used twice (players 1 and 2)"),
    (table([0, 0], [{}, {}], ("grey", "purple")), Cubes(), "no ingredient 'purple'"),
    (table([-1, 0], [{}, {}]), Cubes(), "P0: fame cannot be negative"),
    (table([0, 0], [{"grey": 10}, {}]), Cubes.of(grey=7),
     "grey: 17 cubes in the reserve and behind the screens, but a 2-player game has only 16 grey in play"),
])
def test_tables_that_cannot_come_from_a_game(players, reserve, message):
    with pytest.raises(IllegalAction, match=message.replace("(", r"\(").replace(")", r"\)")):
        score_endgame(players, reserve)


def test_a_negative_count_is_refused():
    with pytest.raises(IllegalAction, match=r"blue: a count cannot be negative \(-1\)"):
        Cubes.of(blue=-1)
