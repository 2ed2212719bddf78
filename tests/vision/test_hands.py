"""Hands over the board and the light field they must not bend: rendered frames against their truth."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.light_field import board_tint, field_basis, fit_light_field
from vision.read import Reader
from vision.render import Hand


def _wrong_and_unread(reading, truth):
    wrong = {z: (want, reading.zones[z].label) for z, want in truth["zones"].items()
             if reading.zones[z].label not in (want, "unknown")}
    wrong.update({z: (want, reading.zones[z].label) for z, want in truth["zones"].items()
                  if want == "unknown" and reading.zones[z].label != "unknown"})
    unread = [z for z, want in truth["zones"].items() if want != "unknown" and reading.zones[z].label == "unknown"
              and z not in truth["partly_hidden"]]
    return wrong, unread


def test_a_dark_hand_over_most_of_a_small_board_is_not_taken_for_its_light(rendered):
    # A dark brown hand and its shadow lie over most of the free board: a light field through those cells
    # would make the hand look like the board (brown on brown), and the zones under it read as labels.
    hand = Hand(entry_mm=(-120.0, 150.0), tip_mm=(95.0, 70.0), skin=(84, 58, 42), sleeve=(70, 110, 60),
                height_mm=120.0, scale=0.8)
    layout, frame, truth = rendered("alchymia", "daylight", 6, hand=hand)
    hidden = [z for z, label in truth["zones"].items() if label == "unknown"]
    assert len(hidden) >= 2
    reading = Reader(layout).read(frame)
    wrong, unread = _wrong_and_unread(reading, truth)
    assert wrong == {}
    assert unread == []


def test_pieces_beside_the_fingers_stay_readable(rendered):
    # The hand's mask grows over what looks like the hand, not over the pieces it touches.
    hand = Hand(entry_mm=(120.0, 360.0), tip_mm=(110.0, 150.0), skin=(176, 124, 88), sleeve=(150, 30, 40))
    layout, frame, truth = rendered("chaudron", "cool", 7, hand=hand)
    reading = Reader(layout).read(frame)
    wrong, unread = _wrong_and_unread(reading, truth)
    assert wrong == {}
    assert len(unread) <= 1, unread
    beside = [z for z, want in truth["zones"].items() if want not in ("unknown", "empty")
              and z not in truth["partly_hidden"]]
    assert beside and all(reading.zones[z].label == truth["zones"][z] for z in beside)


@pytest.mark.parametrize("seed", [4, 5])
def test_a_pale_bare_arm_over_a_pale_board_in_dim_light_is_a_hand(rendered, seed):
    # Pale skin over the beige Alchimiste board in dim light: one grid cell's colour is within the noise of
    # the board's, but a patch of them is redder. Missed, the twenty places under the arm read as labels.
    hand = Hand(entry_mm=(-120.0, 265.0), tip_mm=(560.0, 215.0), skin=(236, 198, 170), sleeve=None,
                height_mm=84.0, scale=1.08)
    layout, frame, truth = rendered("alchimiste", "dim", seed, hand=hand)
    assert sum(label == "unknown" for label in truth["zones"].values()) >= 15
    wrong, unread = _wrong_and_unread(Reader(layout).read(frame), truth)
    assert wrong == {}
    assert len(unread) <= 1, unread


def test_the_same_frame_reads_the_same_whatever_came_before(rendered):
    hand = Hand(entry_mm=(-120.0, 150.0), tip_mm=(120.0, 110.0), skin=(214, 164, 128), sleeve=(40, 48, 70))
    layout, frame, _ = rendered("chaudron", "warm", 1, hand=hand)
    reader = Reader(layout)
    cv2.setRNGSeed(1)
    first = reader.read(frame)
    cv2.setRNGSeed(12345)  # the hand's colours are clustered without OpenCV's random generator
    second = reader.read(frame)
    assert first.hand_cells.any()
    assert np.array_equal(first.hand_cells, second.hand_cells)
    assert first.to_dict() == second.to_dict()


def _board_cells(n=24, seed=0):
    rng = np.random.default_rng(seed)
    xs, ys = np.meshgrid(np.linspace(5, 395, n), np.linspace(5, 295, n))
    centres = np.stack([xs.ravel(), ys.ravel()], 1)
    basis = field_basis(centres, (400.0, 300.0))
    light = 1.0 + 0.2 * (centres[:, 0] / 400 - 0.5)  # a gradient across the board
    board = np.array([90.0, 150.0, 190.0])  # BGR under a warm light
    colours = board * light[:, None] * rng.uniform(0.98, 1.02, (len(centres), 1))
    return centres, basis, light, board, colours


def test_a_hands_shadow_is_not_the_light():
    centres, basis, light, board, colours = _board_cells()
    # A hand's shadow (a blob, darker by 40 %) over a sixth of the board, on a light gradient.
    shadow = np.hypot((centres[:, 0] - 180) / 90, (centres[:, 1] - 150) / 76) < 1
    assert shadow.mean() > 0.15
    colours[shadow] *= 0.6
    field = fit_light_field(basis, colours)
    lit = field.gain(basis, np.array([1.0, 1.0, 1.0]))  # gain = ref / field: the field is the lit board
    assert np.allclose(lit, 1.0 / (board * light[:, None]), rtol=0.05)


def test_a_hand_over_most_of_the_board_is_not_the_light_when_the_markers_show_it():
    centres, basis, light, board, colours = _board_cells(seed=1)
    hand = centres[:, 0] < 240
    colours[hand] = np.array([60.0, 95.0, 160.0]) * light[hand, None]  # skin: redder than the board
    log_board = np.log(board)
    field = fit_light_field(basis, colours, log_board - log_board.mean())
    lit = field.gain(basis, np.array([1.0, 1.0, 1.0]))
    assert np.allclose(lit[~hand], 1.0 / (board * light[~hand, None]), rtol=0.05)
    assert np.allclose(lit[hand], 1.0 / (board * light[hand, None]), rtol=0.08)


@pytest.mark.parametrize("side", [0.3, 0.7])
def test_a_hand_over_a_fifth_of_the_board_does_not_tilt_the_lights_colour_read_off_the_board(side):
    # The markers' paper clipped: the board's own cells tell how the light's colour changes over it (a warm
    # lamp's side redder by a third). A skin-coloured arm on either side must not tilt that, or the arm would
    # look like the board.
    centres, basis, light, _, colours = _board_cells(seed=2)
    x = centres[:, 0] / 400
    warm = np.exp(np.outer(x - 0.5, [-0.3, 0.0, 0.3]))  # bluer on the left, redder on the right
    colours = colours * warm
    arm = np.abs(x - side) < 0.1
    assert 0.15 < arm.mean() < 0.25
    colours[arm] = np.array([60.0, 95.0, 160.0]) * light[arm, None]
    tint = board_tint(basis, colours, 0.03, 0.08)
    assert tint is not None
    assert np.allclose(basis[:, :3] @ tint[:3], np.log(warm) - np.log(warm).mean(axis=1, keepdims=True), atol=0.02)
    assert board_tint(basis[~arm], colours[~arm] / warm[~arm], 0.03, 0.08) is None  # one light: no tint


def test_a_tray_the_hand_reaches_is_never_counted_wrong(rendered):
    # Fingers over the edge of a tray hide a cube or two, an arm's shadow darkens the tops it crosses:
    # either way the count waits (None) rather than come out short.
    for tip in ((640.0, 380.0), (700.0, 300.0)):
        hand = Hand(entry_mm=(920.0, 420.0), tip_mm=tip, skin=(176, 124, 88), sleeve=(40, 48, 70), height_mm=140.0)
        layout, frame, truth = rendered("alchimiste", "daylight", 5, hand=hand)
        reading = Reader(layout).read(frame)
        got = {z: reading.counts[z].count for z in truth["counts"]}
        assert all(got[z] in (None, want) for z, want in truth["counts"].items()), (got, truth["counts"])
        assert got["reserve-grey"] == truth["counts"]["reserve-grey"]  # the tray away from the arm is counted



def test_a_few_mask_cells_spilt_beside_a_tray_do_not_stop_its_count(replayed):
    # Frame 474 of the evaluation set of seed 5151: the hand, in dim light, lies beside the green tray but
    # not over it. One cell of its mask spilt onto the tray, which then read None as if a finger hid a cube.
    # Less of the mask than a quarter of a cube's top cannot hide one.
    layout, frame, truth = replayed("alchimiste", "dim", (
        325792620249488970798592283604336818139, 183734952537347186201523562105745901841, 0, 2453461938))
    assert "reserve-green" not in truth["partly_hidden"]
    reading = Reader(layout).read(frame)
    assert reading.hand_cells.any()
    assert {z: reading.counts[z].count for z in truth["counts"]} == truth["counts"]

@pytest.mark.parametrize("seed, light, entry, tip, height, scale", [
    (32, "daylight", (920.0, 169.96499889572598), (225.56862557067126, 425.8009254945266), 122.4522260929636,
     1.051420787163926),
    (49, "cool", (490.6621411923191, 680.0), (104.07127988888976, 153.26663690447867), 94.27163027696477,
     1.1274082525211049),
], ids=["daylight", "cool"])
def test_a_speck_cut_off_from_the_hand_does_not_hide_a_place(rendered, seed, light, entry, tip, height, scale):
    # Once the pieces the hand's blob took in are given back, a few cells of it can stay behind, apart from
    # the hand: a cube's dark side, a shadow between two cubes, a glint. Left in the mask, they made a place
    # beside the hand (not under it) read unknown.
    hand = Hand(entry_mm=entry, tip_mm=tip, skin=(120, 82, 58), sleeve=(150, 30, 40), height_mm=height, scale=scale)
    layout, frame, truth = rendered("alchimiste", light, seed, hand=hand)
    assert sum(label == "unknown" for label in truth["zones"].values()) >= 3
    wrong, unread = _wrong_and_unread(Reader(layout).read(frame), truth)
    assert wrong == {}
    assert unread == []


def test_a_pale_finger_broken_up_in_dim_light_still_hides_its_place(replayed):
    # Frame 320 of the evaluation set of seed 777 (`render --layout alchimiste,alchymia,chaudron --seed 777`),
    # replayed from the random generator's state there: pale fingers over the Chaudron grid in dim light look
    # like the board, and the hand mask breaks up into small parts. The part over r5c4 (a fingertip over a
    # fifth of the place and more) lies beside its finger's: it must stay, or the place reads "empty".
    layout, frame, truth = replayed("chaudron", "dim", (
        246125961851216264783858462225704352928, 225602981554823962289316896657083664657, 1, 127016777))
    assert truth["zones"]["r5c4"] == "unknown"
    wrong, _ = _wrong_and_unread(Reader(layout).read(frame), truth)
    assert wrong == {}


# Hand frames of the evaluation sets (`render --layout alchimiste,alchymia,chaudron --seed S`) that once read a
# place wrong or left one unread, replayed from the random generator's state at them: (layout, lighting,
# state, what the truth says of the places in question). Every place must now read right or, under the hand,
# unknown.
HAND_FRAMES = {
    # Seed 2026, frame 51: a black sleeve lies over two seal places. Their cells look like a black seal, so
    # they were given back as pieces the hand touches, and read "seal-black" with full confidence, though the
    # sleeve lies all around them.
    "sleeve over seals": ("alchimiste", "cool", (219289981815853840649001669507659997366,
                                                 253583831573602660626028118101560951819, 1, 338617334),
                          {"cauldron-4.seal": "unknown", "cauldron-10.seal": "unknown"}),
    # Seed 6006, frame 99 (a set rendered after the rule above): a dark finger passes just below a red seal.
    # A one-cell hole in the mask's ragged edge there, filled, put 4 of the place's 42 cells under the hand
    # instead of 3, and the seal, plainly visible, read unknown.
    "a cell's hole at the edge": ("alchimiste", "cool", (208061812311882576608394021124040223659,
                                                         241272585065894587379359666723879087699, 1, 353450023),
                                  {"cauldron-1.seal": "seal-red"}),
    # Seed 8128, frame 539: a dark hand with a black sleeve on the Chaudron board in daylight, beside a glare.
    # The glare is brighter than the board ("not board"), joined the arm's blob and its colours, and the hand
    # grew over the rest of it: four places beside the hand read unknown.
    "glare beside the arm": ("chaudron", "daylight", (206745972184009074126439690750769873724,
                                                      22996576443545506725097600616024665385, 1, 3362694363),
                             {"r0c2": "empty", "r0c3": "empty", "r1c2": "root", "r2c2": "root"}),
    # Seed 777, frame 447: cells of plain board beside the hand were closed into its core; the not-board
    # test calls them board and they do not look like the hand: they are the board, and track-21 is read.
    "board closed into the core": ("alchimiste", "cool", (324950232617913001255339344957865425387,
                                                          225602981554823962289316896657083664657, 0, 3045737771),
                                   {"track-21": "empty"}),
    # Seed 2026, frame 54: the same with a pale hand in dim light, the board closed in beside a finger lying
    # over the green cube's place below it.
    "board closed in beside a finger": ("alchimiste", "dim", (223406121122429939743422809402681869896,
                                                              253583831573602660626028118101560951819, 0, 1126911117),
                                        {"cauldron-4.ingredient-5": "green"}),
    # Seed 2026, frame 390: beside a hand in dim light, the seams of shadow between pieces and the cubes' dark
    # sides look like the hand, a cell or two wide; the growth carried the mask along them onto a tile's place.
    "shadow seams beside the hand": ("alchimiste", "dim", (286024462082447503608379920458858688135,
                                                           253583831573602660626028118101560951819, 1, 701383134),
                                     {"cauldron-4.tile": "tile"}),
    # Seed 8128, frame 152: the same on the Chaudron board, a pale hand with a dark red sleeve.
    "shadow seams on the Chaudron board": ("chaudron", "dim", (205203401124087195733368561689826571036,
                                                               22996576443545506725097600616024665385, 1, 2136918449),
                                           {"r1c4": "stone"}),
    # Seed 31337, frame 197: a fingertip over a fifth of an empty place, two mask cells of its 42 (5 %): read
    # "empty" with full confidence at the 8 % the places were left unknown from.
    "a fingertip over an empty place": ("chaudron", "cool", (83867826754564259986436728065265801102,
                                                             154037830374290453493919786809450178471, 1, 910625391),
                                        {"r2c3": "unknown"}),
    # Seed 2026, frame 219: in cool light the hand's shadow beside it is too dark for the board, and the core
    # took it in with the hand; its cells do not look like the hand, but inner and "not board" they were kept,
    # four of them on the yellow cube's place below.
    "the hand's shadow taken into its core": ("alchimiste", "cool", (269833965159324907306337592325398773217,
                                                                      253583831573602660626028118101560951819, 0,
                                                                      377330997),
                                              {"cauldron-6.ingredient-5": "yellow"}),
    # Seed 31337, frame 222: the same in dim light, below a sleeve, over an empty place.
    "the sleeve's shadow taken into its core": ("alchimiste", "dim", (217741261701922315512331536060484799280,
                                                                       154037830374290453493919786809450178471, 0,
                                                                       1242542417),
                                                {"cauldron-10.ingredient-5": "empty"}),
    # Seed 9191, frame 498: OpenCV's closing and opening with even squares left the hand's core two cells down
    # and right of the hand; kept where it looked like the hand, or not like the board, it lay over three places
    # below and right of a hand in dim light.
    "the core two cells off the hand": ("alchimiste", "dim", (123282991343876352126754263069746247764,
                                                              21976972981223717771121867495305190143, 0,
                                                              2628604156),
                                        {"cauldron-4.seal": "seal-red", "cauldron-4.ingredient-1": "empty",
                                         "cauldron-8.ingredient-1": "empty"}),
    # Seed 9191, frame 507: a line of cells a cell wide, like a dark hand in cool light, along the hand onto a grey
    # cube's place: the seam between two pieces, not a finger.
    "a seam a cell wide along the hand": ("alchimiste", "cool", (159706324698621365612346479744764754724,
                                                                 21976972981223717771121867495305190143, 1,
                                                                 3005152419),
                                          {"cauldron-8.ingredient-2": "grey"}),
    # Seed 2026, frame 20: a pale hand over the Chaudron board in dim light, held high, brighter than the board
    # and a few units redder: within the noise of its colour, which in dim light is blotched in patches larger than
    # the redder-patch test's. Not found, three places under it read labels.
    "a pale hand raised towards the lamp": ("chaudron", "dim", (121903004758161822624624703167360847830,
                                                                253583831573602660626028118101560951819, 0,
                                                                1231912291),
                                            {"r1c5": "unknown", "r2c5": "unknown", "r3c5": "unknown"}),
    # Seed 6006, frame 239: a pale hand in daylight, held high over the Chaudron board, brighter than it and less
    # yellow, but hardly redder: its wrist at the board's edge passed for a glare, was taken out of its blob, and
    # what was left no longer reached the edge. Not found, eleven places under it read labels.
    "a pale wrist taken for a glare": ("chaudron", "daylight", (310815980806192873774934173629007940603,
                                                                241272585065894587379359666723879087699, 0,
                                                                3380421765),
                                       {"r0c1": "unknown", "r0c2": "unknown", "r1c1": "unknown", "r1c3": "unknown",
                                        "r2c2": "unknown"}),
    # Seed 2026, frame 276: a long finger in warm light reaches beyond the 40 mm the mask grew from the palm's core:
    # its tip over the corner of an empty place was left out, and the place read "empty" with confidence.
    "a long finger's tip": ("alchimiste", "warm", (48683063930049708742140387968582723826,
                                                  253583831573602660626028118101560951819, 0, 3194501409),
                            {"cauldron-3.ingredient-2": "unknown"}),
}


# Places of those frames left unread since the hand mask lies where the hand is (``vision.masks``: it lay two
# cells down and right of it): in frame 54 of seed 2026 a cell of the finger's shadow beside it, like the hand,
# is now on the orange cube's place to its right, 8 % of it (4 % before): unread, not wrong. The place the case
# is about, below the finger, reads right.
MAY_STAY_UNREAD = {"board closed in beside a finger": ["cauldron-4.ingredient-2"]}


@pytest.mark.parametrize("case", list(HAND_FRAMES))
def test_hand_frames_that_once_read_a_place_wrong_or_left_it_unread(replayed, case):
    name, light, state, places = HAND_FRAMES[case]
    layout, frame, truth = replayed(name, light, state)
    assert {z: truth["zones"][z] for z in places} == places
    reading = Reader(layout).read(frame)
    wrong, unread = _wrong_and_unread(reading, truth)
    assert wrong == {}
    assert {z: reading.zones[z].label for z in places} == places
    assert [z for z in unread if z not in MAY_STAY_UNREAD.get(case, [])] == []


def test_a_pale_bare_arm_held_high_in_dim_light_is_found(replayed):
    # Seed 9191, frame 474: a pale bare arm across the Alchimiste board in dim light, brighter than the board and
    # redder by less than the board's blotches of colour noise. It was not found at all: 23 places under it read
    # labels. Found, the cauldrons' places under the forearm and the hand read unknown. (Where the arm enters, over
    # the track along the board's edge and a tile's place, five places still read empty: its shadow lies there.)
    layout, frame, truth = replayed("alchimiste", "dim", (16073593229050955334517340392971072662,
                                                           21976972981223717771121867495305190143, 0, 1464227520))
    under = [f"cauldron-{c}.{p}" for c, p in [(3, "seal"), (3, "ingredient-2"), (3, "ingredient-3"),
                                               (3, "ingredient-5"), (4, "ingredient-1"), (4, "ingredient-4"),
                                               (4, "tile"), (9, "seal"), (9, "ingredient-1"), (9, "ingredient-3"),
                                               (9, "ingredient-5")]]
    assert all(truth["zones"][z] == "unknown" for z in under)
    reading = Reader(layout).read(frame)
    assert {z: reading.zones[z].label for z in under} == dict.fromkeys(under, "unknown")


def test_a_dim_board_with_no_hand_shows_none(replayed):
    # Seed 9191, frame 548: the Chaudron board in dim light, no hand. The frame's noise was estimated at 1.4
    # times the lowest quarter of the board cells' ΔE (Gaussian noise's ratio); in dim light JPEG's and the
    # quantisation's errors, grown by the light's gain, put the median at twice that quarter, a sixth of the
    # free board was flagged "not board", and patches of it along the board's edge made a hand over three
    # places. The board cells the light field was fitted on tell the noise as it is.
    layout, frame, truth = replayed("chaudron", "dim", (225503842532402378675216589746308822105,
                                                        21976972981223717771121867495305190143, 1, 3140423295))
    assert not truth["conditions"]["hand"]
    reading = Reader(layout).read(frame)
    assert not reading.hand_cells.any()
    wrong, unread = _wrong_and_unread(reading, truth)
    assert wrong == {}
    assert unread == []
