"""Boards as text, camera labels, rotations (never reflections)."""

import pytest

from assistant.engines.alchymia import AlchymiaError, Board, Colour

CROSS = Board.parse("""
    G . .
    . W .
    . . R
""")


def test_text_round_trip():
    assert str(CROSS) == "G..\n.W.\n..R"
    assert Board.parse(str(CROSS)) == CROSS
    assert Board.parse("G.. .W. ..R") == CROSS == Board.parse("G../.W./..R")
    assert CROSS.line() == "G../.W./..R"
    assert CROSS["r1c1"] is Colour.WHITE and CROSS["r0c1"] is None


def test_camera_labels_round_trip():
    labels = CROSS.labels()
    assert labels["r0c0"] == "green" and labels["r0c1"] == "empty"
    assert Board.from_labels(labels) == CROSS
    with pytest.raises(AlchymiaError, match="r2c2 is missing"):
        Board.from_labels({k: v for k, v in labels.items() if k != "r2c2"})
    with pytest.raises(AlchymiaError, match="unknown stone 'purple'"):
        Board.from_labels({**labels, "r0c0": "purple"})


def test_bad_text_is_refused():
    with pytest.raises(AlchymiaError, match="unknown stone colour 'X'"):
        Board.parse("X.. ... ...")
    with pytest.raises(AlchymiaError, match="different lengths"):
        Board.parse("G.. .. ...")
    with pytest.raises(AlchymiaError, match="no position r3c0"):
        CROSS.put("r3c0", Colour.RED)


def test_rotations_are_quarter_turns_clockwise():
    corner = Board.parse("GW. ... ...")
    assert str(corner.rotated(1)) == "..G\n..W\n..."
    assert str(corner.rotated(2)) == "...\n...\n.WG"
    assert corner.rotated(4) == corner
    assert len(corner.rotations()) == 4 and len(Board.parse("G.G ... G.G").rotations()) == 1


def test_a_structure_matches_under_rotation_but_not_reflection():
    structure = Board.parse("GW. ... ..R")
    assert Board.parse("..G ..W R..").matches(structure)          # a quarter turn
    assert Board.parse("R.. ... .WG").matches(structure)          # half a turn
    assert not Board.parse(".WG ... R..").matches(structure)      # the mirror image: boards are never flipped
    assert not Board.parse("GW. ... ..Y").matches(structure)


def test_non_square_boards_turn_too():
    wide = Board.parse("GW. ...")
    assert (wide.rotated().rows, wide.rotated().cols) == (3, 2)
    assert Board.parse("... .WG").matches(wide) and not Board.parse("... GW.").matches(wide)
