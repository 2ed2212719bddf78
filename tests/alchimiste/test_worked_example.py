"""The rulebook's worked example: Abigail creates, Merlin copies (001 text, 'Exemple')."""

from __future__ import annotations

import pytest

from assistant.engines.alchimiste import Copy, Create, Cubes

MIX = Cubes.of(blue=2, grey=2, orange=1)
# Both adepts hold the mix; each drew 12 cubes from a 2-player bag of 6 per colour.
SCREENS = [{"grey": 2, "blue": 2, "orange": 2, "yellow": 3, "green": 3},
           {"grey": 3, "blue": 3, "orange": 3, "yellow": 2, "green": 1}]


@pytest.mark.parametrize("full", [False, True], ids=["public", "full-information"])
def test_abigail_creates_and_merlin_copies(new_game, produces, full):
    assert produces[9] == ("yellow", "green")
    start = new_game(2, SCREENS if full else None)

    game = start.play(Create(10, MIX, 9), "Abigail")
    abigail = game.adepts[0]
    assert abigail.fame == 9 and abigail.seals == 4
    assert abigail.count == 12 - 5 + 2
    assert abigail.known["yellow"] >= 1 and abigail.known["green"] >= 1
    assert game.reserve == Cubes.of(grey=10, blue=10, orange=10, yellow=9, green=9)
    assert game.cauldron(10).potion.mix == MIX and game.cauldron(10).potion.creator == 0
    assert 9 not in game.tiles

    game = game.play(Copy(10, MIX, "grey"), "Merlin")
    abigail, merlin = game.adepts
    assert game.scores() == {"Abigail": 9, "Merlin": 9}
    assert abigail.count == 10 and abigail.known["grey"] >= 1     # the tribute went behind her screen
    assert merlin.count == 12 - 5 + 2
    assert game.reserve == Cubes.of(grey=10, blue=10, orange=10, yellow=8, green=8)
    # Everything paid except the tribute leaves the game (not back to the reserve).
    assert game.removed == start.removed + Cubes.of(blue=2, grey=1, orange=1)
    assert game.cauldron(10).potion.mix == MIX                     # the potion stays on the Compendium
    if full:
        assert abigail.known == Cubes.of(SCREENS[0]) - MIX + Cubes.of(yellow=1, green=1, grey=1)
        assert merlin.known == Cubes.of(SCREENS[1]) - MIX + Cubes.of(yellow=1, green=1)
