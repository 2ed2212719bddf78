"""The cauldron's text form, blocks and groups, and concoction (grids drawn like the rulebook's pictures)."""

import pytest

from assistant.engines.chaudron import Block, Cauldron, Potion, concoct, concoctable, forced, link
from assistant.engines.chaudron.shapes import orientations


def pot(text: str) -> Cauldron:
    return Cauldron.parse(text)


def potion(*blocks: Block, name: str = "P") -> Potion:
    return Potion(name.lower(), name, "common", tuple(blocks))


def test_text_round_trip_and_cells():
    text = "B R F f\nP S X .\n. . . ."
    c = pot(text)
    assert (c.rows, c.cols) == (3, 4)
    assert c[0, 3] == "fire" and c[1, 1] == "stone" and c[1, 2] == "burnt" and c[2, 0] == "empty"
    assert str(c) == "BRFf\nPSX.\n...."
    assert Cauldron.parse(str(c)) == c


def test_bad_drawings_are_refused():
    with pytest.raises(ValueError, match="unknown letter 'Z'"):
        pot("BZ\n..")
    with pytest.raises(ValueError, match="differ in length"):
        pot("BB\n.")


def test_orientations_turned_and_flipped():
    def count(text):
        return len(orientations([(r, c, 1) for r, c, _ in Block.parse(text).cells]))

    assert count("B.\nB.\nBB") == 8   # the L: four turns, and its mirror image four more
    assert count("BBB\n.B.") == 4      # the T is its own mirror image
    assert count("BB") == 2 and count("BB\nBB") == 1


def test_every_orientation_of_an_asymmetric_potion():
    p = potion(Block.parse("BR\nF."))
    shapes = ["BR\nF.", "RB\n.F", "F.\nBR", ".F\nRB", "BF\nR.", "FB\n.R", "R.\nBF", ".R\nFB"]
    for shape in shapes:
        rows = shape.splitlines()
        grid = "\n".join(r + "...." for r in rows) + "\n......\n......"
        assert concoctable(pot(grid), p) is not None, shape
    assert concoctable(pot("B.R...\nF.....\n......"), p) is None  # not touching: not the shape


def test_diagonal_blocks_are_linked_and_far_blocks_are_not():
    groups = link([Block.parse("B"), Block.parse("R", at=(1, 1)), Block.parse("F", at=(0, 4))])
    assert [g.size for g in groups] == [2, 1]
    diagonal = potion(Block.parse("B"), Block.parse("R", at=(1, 1)))
    assert concoctable(pot("B..\n.R.\n..."), diagonal) is not None
    assert concoctable(pot("B..\n...\n..R"), diagonal) is None  # too far: the group is rigid
    apart = potion(Block.parse("B"), Block.parse("R", at=(0, 4)))
    assert concoctable(pot("B..\n...\n..R"), apart) is not None  # separate blocks go anywhere


def test_a_choice_is_the_same_for_the_whole_block():
    twin = potion(Block.parse("??", choice=("bone", "root")))
    assert concoctable(pot("BB.\n...\n..."), twin) is not None
    assert concoctable(pot("RR.\n...\n..."), twin) is not None
    assert concoctable(pot("BR.\n...\n..."), twin) is None
    assert concoctable(pot("FF.\n...\n..."), twin) is None


def test_stone_as_wildcard_stays_and_as_itself_is_removed():
    dawn = potion(Block.parse("BR"))
    after, how = concoct(pot("BS.\n...\n..."), dawn)
    assert how.wildcard == (0, 1) and how.removed == ((0, 0),)
    assert str(after) == ".S.\n...\n..."
    sage = potion(Block.parse("SB"))
    after, how = concoct(pot("SB.\n...\n..."), sage)
    assert how.wildcard is None and str(after) == "...\n...\n..."


def test_one_wildcard_per_potion():
    three = potion(Block.parse("BRF"))
    assert concoctable(pot("BSS\n...\n..."), three) is None
    assert concoctable(pot("BSF\n...\n..."), three) is not None


def test_a_stone_is_kept_when_real_resources_do():
    dawn = potion(Block.parse("BR"))
    how = concoctable(pot("BS.\nR..\n..."), dawn)
    assert how.wildcard is None and set(how.removed) == {(0, 0), (1, 0)}


def test_forced_concoction_takes_what_it_can_and_burns_for_the_rest():
    p = potion(Block.parse("BRF"))
    how = forced(pot("BR.\n...\n..."), p)
    assert how.missing == 1 and how.burnt == 1 and set(how.removed) == {(0, 0), (0, 1)}


def test_forced_concoction_missing_stone_costs_five():
    p = potion(Block.parse("SB"))
    how = forced(pot("B..\n...\n..."), p)
    assert how.missing == 1 and how.burnt == 5
    how = forced(pot("...\n...\n..."), p)
    assert how.missing == 2 and how.burnt == 6 and how.removed == ()
