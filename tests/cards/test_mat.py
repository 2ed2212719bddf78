"""A card mat enrolled empty (``calibrate board``): a place is ``empty`` only where it still looks like the mat it
was shown. A hand of the mat's own colour over an empty place reads ``unknown``; an empty place on a mat printed
with artwork, which the card finder cannot tell from a card's edge, reads ``empty``. (Tables 3 and 9 of `render
--layout all --set S --tables 16 --frames-per-table 6 --boards both --blur --seed 19562`, a dev seed.)"""

from __future__ import annotations

import itertools
import json
from functools import cache, lru_cache

import cv2
import numpy as np
import pytest

from calibration.layout import load_layout
from calibration.store import Calibration, load_calibration
from vision.board import enrol_board
from vision.read import Reader
from vision.render.card_photos import enrol_rendered
from vision.render.state import empty_state
from vision.render.table import random_table, table_frame, write_table

SEED = 19562
DARK_HAND = (3, "plain", (245567465965268690936435806690356132563, 1, 2507994541), "warm", True)


@cache
def _deck(layout_name: str, deck: int | None = None):
    """The layout's cards of ``deck`` enrolled from rendered photos (``enrol_rendered``), once for the tests that
    only read with them (rendering the photos is most of a test's time)."""
    return enrol_rendered(load_layout(layout_name), deck=deck)


@lru_cache(maxsize=2)
def _table(index: int, kind: str, frame_state, lighting: str, hand: bool):
    """(the empty mat, a frame of it) of table ``index`` of the set, drawn from the generator's recorded states."""
    layout = load_layout("alchymia-crystals")
    rng = np.random.default_rng([SEED, index])
    table = random_table(layout, rng, kind)
    inc = rng.bit_generator.state["state"]["inc"]

    def at(state):
        rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": state[0], "inc": inc},
                                   "has_uint32": state[1], "uinteger": state[2]}

    empty_at = {3: (168076349129433054152637762708296647253, 1, 384267973),
                9: (11306381726069361351767748835689556614, 1, 3229946771)}[index]
    at(empty_at)
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    at(frame_state)
    frame, truth = table_frame(table, layout, rng, lighting, hand=hand)
    return layout, empty, frame, truth



def _set_frame(folder, layout, kind: str, index: int, frame: int, seed: int, deck: int, blur: bool = False,
               frames_per_table: int | None = None):
    """(the empty mat, frame ``frame``, its truth) of table ``index`` of `render --tables ... --seed SEED --deck
    DECK`, drawn as the set drew it (``frames_per_table``: the set's, as the lightings run on from table to
    table; only the frames up to ``frame`` are drawn), into ``folder``."""
    paths = write_table(folder, layout, kind, index, frames_per_table or frame + 1, seed, blur, deck=deck)
    played = list(itertools.islice(paths, 3 + frame))[-1]  # (after the empty mat and the calibration frame)
    empty, image = cv2.imread(str(played.parent / "empty.png")), cv2.imread(str(played))
    return empty, image, json.loads(played.with_suffix(".json").read_text())


def _against_the_mat(layout, empty, frame, cards=None):
    """The frame read with the mat enrolled empty (as `calibrate board` enrols it)."""
    return Reader(layout, Calibration(layout.name, board=enrol_board(empty, layout)), cards=cards).read(frame)

def test_a_dark_hand_over_an_empty_place_of_a_dark_mat_is_not_read_empty():
    """A brown hand (skin 74, 49, 38) over the brown mat in warm light, its palm over the air crystal's empty
    place: the finder sees nothing standing out of the mat's colour there, and read it `empty` at 1.0."""
    layout, empty, frame, truth = _table(*DARK_HAND)
    assert truth["zones"]["crystal-air"] == "unknown"
    assert tuple(truth["conditions"]["hand_mm"]["skin"]) == (74, 49, 38)
    assert Reader(layout).read(frame).zones["crystal-air"].label == "empty"  # (the mat not enrolled)
    reading = _against_the_mat(layout, empty, frame)
    under = [zid for zid, want in truth["zones"].items() if want == "unknown"]
    assert all(reading.zones[zid].label == "unknown" for zid in under), reading.zones


def test_empty_places_on_a_mat_printed_with_artwork_read_empty_and_its_cards_do_not():
    """Dim light over an illustrated mat, three places empty, two holding crystals (no deck enrolled: the cards
    cannot be named, so they read `unknown`). The finder took the artwork around the empty places for a card's
    edge: `unknown`."""
    layout, empty, frame, truth = _table(9, "illustrated", (325934554272104895390018469161111702655, 0, 1203873441),
                                         "dim", False)
    empties = [zid for zid, want in truth["zones"].items() if want == "empty"]
    assert len(empties) == 3
    before = Reader(layout).read(frame)
    assert any(before.zones[zid].label != "empty" for zid in empties)
    reading = _against_the_mat(layout, empty, frame)
    for zid, want in truth["zones"].items():
        assert reading.zones[zid].label == ("empty" if want == "empty" else "unknown"), (zid, reading.zones[zid])


def test_calibrate_board_enrols_a_card_mat(cli, tmp_path):
    layout, empty, _, _ = _table(*DARK_HAND)
    cv2.imwrite(str(tmp_path / "mat.png"), empty)
    code, out, err = cli("calibrate", "board", str(tmp_path / "mat.png"), "--layout", layout.name,
                         "--out", str(tmp_path / "cal.json"))
    assert code == 0, err
    assert "empty board enrolled" in out
    assert load_calibration(tmp_path / "cal.json", layout.name).board is not None


def test_the_live_loop_reads_the_mat_with_its_own_calibration_beside_the_boards(tmp_path):
    """``run`` and ``replay`` take one calibration file per layout (``--calibration`` again): the game board's, and
    the mat's enrolled empty; each board of the table reads with its own, and a file for no board in view, or a
    second file for one layout, is refused with one line."""
    from assistant.live.boards import Boards
    from assistant.table import mode_class

    layout, empty, frame, _ = _table(*DARK_HAND)
    mat = Calibration(layout.name, board=enrol_board(empty, layout))
    mat.save(tmp_path / "mat.json")
    Calibration("alchymia").save(tmp_path / "board.json")
    specs, mats = ["alchymia", layout.name], mode_class("alchymia").card_mats
    boards = Boards.from_specs(specs, [str(tmp_path / "board.json"), str(tmp_path / "mat.json")], mat_sets=mats)
    reader = next(b.reader for b in boards.boards if b.mat)
    assert reader.read(frame).zones["crystal-air"].label == "unknown"  # the dark hand over the empty place
    only_board = Boards.from_specs(specs, str(tmp_path / "board.json"), mat_sets=mats)
    assert next(b.reader for b in only_board.boards if b.mat).read(frame).zones["crystal-air"].label == "empty"
    # (`run` and `replay` say which boards of pieces have no empty board enrolled: a mat reads its cards either way)
    assert [note.split(":")[0] for note in only_board.unenrolled()] == ["alchymia"]
    with pytest.raises(ValueError, match="a second calibration for layout 'alchymia-crystals'"):
        Boards.from_specs(specs, [str(tmp_path / "mat.json")] * 2, mat_sets=mats)
    with pytest.raises(ValueError, match="made for layout 'alchymia-crystals', not for the boards in view"):
        Boards.from_specs(["chaudron"], [str(tmp_path / "mat.json")])


def test_cards_whose_border_is_of_the_mats_colour_are_found_against_the_enrolled_mat():
    """Table 14 of `render --layout alchemists,alchymia-crystals,chaudron-potions --set S --tables 12
    --frames-per-table 6 --boards both --blur --hands 0.5 --seed 19585` (a dev seed), frame f002 (cool light): the
    potion cards' pale borders on a cream mat do not stand out of the ring's colour, so the finder saw no card's
    rectangle and every card read `unknown`. Against the enrolled mat each card stands out whole, and is named;
    without it, each is found by its print (``vision.cards.locate``) and named too."""
    layout = load_layout("chaudron-potions")
    rng = np.random.default_rng([19585, 14])
    table = random_table(layout, rng, "plain")
    inc = rng.bit_generator.state["state"]["inc"]
    rng.bit_generator.state = {"bit_generator": "PCG64", "has_uint32": 0, "uinteger": 3512959890,
                               "state": {"state": 243164518388202891620148866313766959628, "inc": inc}}
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    rng.bit_generator.state = {"bit_generator": "PCG64", "has_uint32": 0, "uinteger": 922254541,
                               "state": {"state": 194208859662995236241284381626444020272, "inc": inc}}
    frame, truth = table_frame(table, layout, rng, "cool")
    cards = {zid: want for zid, want in truth["zones"].items() if want not in ("empty", "unknown")}
    assert len(cards) == 2 and not truth["partly_hidden"]
    deck = _deck(layout.name)
    before = Reader(layout, cards=deck).read(frame)
    assert all(before.zones[zid].label == want for zid, want in cards.items()), before.zones
    reading = _against_the_mat(layout, empty, frame, deck)
    assert all(reading.zones[zid].label in (want, "unknown") for zid, want in truth["zones"].items()), reading.zones
    assert all(reading.zones[zid].label == want for zid, want in cards.items()), reading.zones


def test_cards_showing_only_their_art_against_the_mats_colour_are_found_against_the_enrolled_mat(tmp_path):
    """Table 2 of `render --layout alchemists,alchymia-crystals,chaudron-potions --tables 12 --deck 1482 --seed
    19646` (deck 1482's potions: a tan border and white rules panels on a cream mat), its second frame rendered
    without blur (warm light): only each card's art and frame lines stand out of the ring's colour, in pieces no
    wider than fingers, so the finder cut them all away and read both tempests `unknown` (16 cards of the table's
    frames so). Against the enrolled mat each card stands out whole, and is named."""
    layout = load_layout("chaudron-potions")
    empty, frame, truth = _set_frame(tmp_path, layout, "plain", 2, 1, 19646, 1482)
    cards = {zid: want for zid, want in truth["zones"].items() if want not in ("empty", "unknown")}
    assert cards == {"potion-3": "tempest", "potion-6": "tempest"}
    deck = _deck(layout.name, 1482)
    reading = _against_the_mat(layout, empty, frame, deck)
    assert all(reading.zones[zid].label in (want, "unknown") for zid, want in truth["zones"].items()), reading.zones
    assert all(reading.zones[zid].label == want for zid, want in cards.items()), reading.zones


def test_a_hand_of_the_mats_hue_over_a_place_is_not_read_empty_against_the_enrolled_mat(tmp_path):
    """Table 1 of `render --layout alchemists,alchymia-crystals,chaudron-potions --tables 12 --deck 1484 --seed
    19648` (a dev set), its first frame: a tan hand (skin 213, 167, 125) over the tan mat in cool light, its
    fingers over the air crystal's empty place. Against the enrolled mat it differs over 16 % of a place (the
    hand's edges and the gaps between its fingers; its palm is the mat's colour), under the 20 % of a card that
    once made an empty place `unknown`, and the place read `empty` at 1.0."""
    layout = load_layout("alchymia-crystals")
    empty, frame, truth = _set_frame(tmp_path, layout, "plain", 1, 0, 19648, 1484)
    under = [zid for zid, want in truth["zones"].items() if want == "unknown"]
    assert "crystal-air" in under and tuple(truth["conditions"]["hand_mm"]["skin"]) == (213, 167, 125)
    reading = _against_the_mat(layout, empty, frame)
    assert all(reading.zones[zid].label == "unknown" for zid in under), reading.zones
    assert all(reading.zones[zid].label != "empty" or want == "empty" for zid, want in truth["zones"].items())


def test_the_set_up_pages_new_calibration_leaves_the_mats_own(tmp_path):
    """The set-up page's `use` re-reads every board with the page's file (the game board's) and the cards it
    enrolled; the mat given its own file keeps it."""
    from assistant.live.boards import Boards
    from assistant.live.outputs import Outputs
    from assistant.live.pipeline import Pipeline
    from assistant.table import make_mode, mode_class
    from assistant.web import Hub

    layout, empty, frame, _ = _table(*DARK_HAND)
    Calibration(layout.name, board=enrol_board(empty, layout)).save(tmp_path / "mat.json")
    Calibration("alchymia").save(tmp_path / "board.json")
    boards = Boards.from_specs(["alchymia", layout.name], [str(tmp_path / "board.json"), str(tmp_path / "mat.json")],
                               mat_sets=mode_class("alchymia").card_mats)
    hub = Hub(pin="246810", calibration=tmp_path / "board.json")
    mode = make_mode("alchymia", boards.layout, {"players": ["Ada", "Bea"]})
    hub.attach(Pipeline("alchymia", mode, boards, Outputs.simulated(), on_step=hub.on_step))
    hub.use_calibration()
    hub._tasks.get_nowait()(None)  # (what the loop runs at its next frame)
    mat = next(b.reader for b in boards.boards if b.mat)
    assert mat.calibration is not None and mat.read(frame).zones["crystal-air"].label == "unknown"
    game = next(b.reader for b in boards.boards if not b.mat)
    assert game.calibration is not None and game.calibration.layout == "alchymia"


def test_a_hand_the_comparison_with_the_mat_misses_is_not_read_empty(tmp_path):
    """Table 2 of `render --layout alchemists,alchymia-crystals,chaudron-potions --tables 12 --deck 1495 --seed
    19654` (fresh when first read, then debugged on), its first frame: a brown hand (skin 77, 57, 33) over the
    maroon potion mat in dim light. The comparison with the enrolled mat sees under 5 % of potion-4 and potion-6
    differ, and made the finder's `unknown` (0.39 of a place standing out of the mat's colour, none on the
    enrolled mat) `empty` at 0.92-0.94."""
    layout = load_layout("chaudron-potions")
    empty, frame, truth = _set_frame(tmp_path, layout, "plain", 2, 0, 19654, 1495)
    under = [zid for zid, want in truth["zones"].items() if want == "unknown"]
    assert {"potion-4", "potion-6"} <= set(under) and truth["conditions"]["lighting"] == "dim"
    reading = _against_the_mat(layout, empty, frame)
    assert all(reading.zones[zid].label == "unknown" for zid in under), reading.zones
    assert all(reading.zones[zid].label != "empty" or want == "empty" for zid, want in truth["zones"].items())


def test_a_card_half_unlike_the_mat_in_dim_light_is_cut_and_named(tmp_path):
    """Table 5 of `render --layout alchemists,alchymia-crystals,chaudron-potions --tables 12 --frames-per-table 6
    --boards both --blur --hands 0.5 --deck 1470 --seed 19640` (a dev set), its third frame: dim light over the
    illustrated potion mat. Against the enrolled mat the mist-draught on potion-6 differs from it over under 0.8 of
    its rectangle (its panels of the mat's hue in that light), nothing around it: the finder left it `unknown`.
    Half of it is enough to cut it, and the matcher names it."""
    layout = load_layout("chaudron-potions")
    empty, frame, truth = _set_frame(tmp_path, layout, "illustrated", 5, 2, 19640, 1470, blur=True)
    assert truth["zones"]["potion-6"] == "mist-draught" and truth["conditions"]["lighting"] == "dim"
    deck = _deck(layout.name, 1470)
    reading = _against_the_mat(layout, empty, frame, deck)
    assert reading.zones["potion-6"].label == "mist-draught", reading.zones
    assert all(reading.zones[zid].label in (want, "unknown") for zid, want in truth["zones"].items()), reading.zones


def test_a_card_refused_as_fitted_on_the_rings_colour_is_fitted_again_against_the_mat(tmp_path):
    """Table 11 of `render --layout alchemists,alchymia-crystals,chaudron-potions --tables 12 --frames-per-table 6
    --boards both --blur --hands 0.5 --deck 1470 --seed 19640` (a dev set), its third frame: daylight over the
    illustrated potion mat. What stands out of the ring's colour round potion-1 takes in the mat's art, the
    rectangle fitted on it lies half on the art, and the matcher refused the serpent-oil so cut. Fitted again on
    what differs from the enrolled mat, it is cut whole and named."""
    layout = load_layout("chaudron-potions")
    empty, frame, truth = _set_frame(tmp_path, layout, "illustrated", 11, 2, 19640, 1470, blur=True,
                                     frames_per_table=6)
    assert truth["zones"]["potion-1"] == "serpent-oil" and truth["conditions"]["lighting"] == "daylight"
    deck = _deck(layout.name, 1470)
    reading = _against_the_mat(layout, empty, frame, deck)
    assert reading.zones["potion-1"].label == "serpent-oil", reading.zones
    assert all(reading.zones[zid].label in (want, "unknown") for zid, want in truth["zones"].items()), reading.zones
