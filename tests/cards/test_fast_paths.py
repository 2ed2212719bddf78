"""The matcher's cheaper paths read as the full computation does: the blocks of fine print compared only where
asked, a glare streak found by its lit lines first, what a judge computes once kept for that judge only, and the
fine print left unlooked at where nothing could name the card, a photo's shifted descriptors cut rather than
warped and made together, the smear's estimate with its photo's part kept; and the card places read on one
OpenCV thread, the process's setting given back. Cards cut from rendered frames of dev deck 1002
(``data/potions-1002``, as in ``test_fine_evidence.py``)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from tests.cards.photos import card_photo
from vision.cards import blur, features, fineprint, glare
from vision.cards.store import ACCEPT, CardSet

SHARED_ART = ["dawn-tonic", "elixir-of-life", "green-sip", "smoulder", "twin-essence"]


def image(name: str) -> np.ndarray:
    return card_photo("potions-1002", name)


@functools.cache
def enrolled() -> CardSet:
    cards = CardSet("chaudron-potions", (63, 88), {n: image(n) for n in SHARED_ART})
    cards.teller.learn()
    return cards


@pytest.mark.parametrize(("photo", "view"), [("tempest", "seen-tempest-a"), ("twin-essence", "stranger-a"),
                                             ("green-sip", "seen-green-sip")])
def test_the_blocks_missing_are_those_every_block_compared_finds(photo, view):
    ref, query = fineprint.detail(image(photo), 2.0), fineprint.detail(image(view), 2.0)
    printed, found = fineprint.blocks(ref, query, 2.0)  # every block, every shift at once
    some = np.zeros(printed.shape, bool)
    some[1::2, ::3] = True
    assert fineprint.missing(ref, query, 2.0) == int((printed & ~found).sum())
    assert fineprint.missing(ref, query, 2.0, some) == int((printed & ~found & some).sum())


def lit(card: np.ndarray, across: float, width: float, light: float) -> np.ndarray:
    """``card`` with a straight streak of ``light`` added, ``width`` px wide, crossing it at ``across`` px."""
    h, w = card.shape[:2]
    ys, xs = np.indices((h, w))
    band = np.abs((xs - w / 2) * np.cos(0.6) + (ys - h / 2) * np.sin(0.6) - across) < width / 2
    return np.clip(card.astype(np.float32) + band[..., None] * light, 0, 255).astype(np.uint8)


def test_a_glare_streak_is_taken_off():
    photo = image("tempest")
    found = glare.streak(lit(photo, 10.0, 12.0, 60.0), glare.reference(photo))
    assert found is not None
    lightened = found[0]
    assert np.abs(lightened.astype(int) - photo).mean() < np.abs(lit(photo, 10.0, 12.0, 60.0).astype(int)
                                                                 - photo).mean() / 3
    assert glare.streak(photo, glare.reference(photo)) is None  # no streak, nothing taken off


def test_what_a_judge_keeps_is_kept_for_that_judge_only():
    cards = enrolled()
    views = ["seen-dawn-tonic", "stranger-a", "seen-twin-essence", "seen-green-sip", "stranger-b"]
    first = [cards.match(image(v)) for v in views]
    # Read again in another order, each after another card: what one card's judge kept never speaks for the next.
    again = {v: cards.match(image(v)) for v in reversed(views)}
    assert [m.name for m in first] == ["dawn-tonic", None, "twin-essence", "green-sip", None]
    for v, m in zip(views, first, strict=True):
        assert (again[v].name, again[v].best, again[v].fit, again[v].evidence) == (m.name, m.best, m.fit, m.evidence)


def test_a_card_the_coarse_score_cannot_name_is_unknown_and_its_nearest_still_found():
    cards = enrolled()
    card = image("seen-twin-essence")
    scores, turns = cards.scored(card)
    best, fit, evidence = cards.teller.judge(card, scores, turns)  # every check made
    fast = cards.teller.judge(card, scores, turns, named_from=float(scores.max()) + 0.01)  # none can be named
    assert cards.names[best] == "twin-essence" and fast[0] == best
    assert fit <= 1.0 and evidence >= 0.45  # named with every check...
    assert scores.max() >= ACCEPT  # ...and would be by the set


def test_a_streak_of_a_warm_lamps_light_is_taken_off_in_its_colour_and_with_its_fading_edges():
    # Under a warm lamp a sleeve reflects light of the lamp's colour, fading across the streak (as rendered decks
    # draw it): grey taken off the streak's core left a yellow band and its two edges lit.
    photo = image("tempest").astype(np.float32) * np.float32([0.6, 0.8, 1.0])  # BGR: the lamp's colour
    h, w = photo.shape[:2]
    ys, xs = np.indices((h, w))
    across = (xs - w / 2) * np.cos(0.6) + (ys - h / 2) * np.sin(0.6) - 10.0
    streak = 70.0 * np.exp(-0.5 * (across / 8.0) ** 2)[..., None] * np.float32([0.6, 0.8, 1.0])
    seen = np.clip(photo + streak, 0, 255).astype(np.uint8)
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    found = glare.streak(seen, glare.reference(photo))
    assert found is not None
    lightened = found[0]
    left = np.abs(lightened.astype(int) - photo)
    assert left.mean() < np.abs(seen.astype(int) - photo).mean() / 4
    assert (left.max(axis=2) > 12).mean() < 0.01  # no band of light or colour left along the streak


def test_card_places_are_read_on_one_opencv_thread_and_the_setting_is_given_back(monkeypatch):
    """A card's images are small: OpenCV's threads only cost processor time there. The board reader keeps them,
    also when reading the cards fails."""
    from calibration.layout import load_layout
    from vision.cards import zones

    layout = load_layout("chaudron-potions")
    places = zones.CardZones(layout)
    frame = np.full((960, 1280, 3), 90, np.uint8)
    H = np.diag([4.0, 4.0, 1.0])
    before = cv2.getNumThreads()
    cv2.setNumThreads(3)
    try:
        assert all(r.label == "empty" for r in places.read(frame, H, None).values())
        assert cv2.getNumThreads() == 3
        seen = []

        def looked(*args, **kwargs):
            seen.append(cv2.getNumThreads())
            raise RuntimeError("the camera went away")

        monkeypatch.setattr(zones, "find_card", looked)
        with pytest.raises(RuntimeError):
            places.read(frame, H, None)
        assert seen == [1]
        assert cv2.getNumThreads() == 3
    finally:
        cv2.setNumThreads(before)


@pytest.mark.parametrize("px_per_mm", [2.0, 3.0, 2.2])
def test_a_photos_shifted_descriptors_are_the_warped_photos(px_per_mm):
    """Whole-pixel shifts are cut from the photo with its border repeated: the same descriptors as the photo
    warped by each shift, to float rounding (and a resolution whose shifts are not whole pixels is still
    warped)."""
    photo = cv2.resize(image("tempest"), None, fx=px_per_mm / 2.0, fy=px_per_mm / 2.0)
    grid = features.fine_grid((63, 88))
    h, w = photo.shape[:2]
    warped = [features.fine(cv2.warpAffine(photo, np.float32([[1, 0, dx * px_per_mm], [0, 1, dy * px_per_mm]]),
                                           (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), grid)
              for dy in features.SHIFTS_MM for dx in features.SHIFTS_MM]
    assert np.allclose(features.fine_shifted(photo, grid, px_per_mm), np.array(warped, np.float32), atol=1e-5)


def fine_one_by_one(card: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """The fine descriptor as first written, one card at a time with OpenCV's blur and statistics."""
    small = cv2.resize(card.astype(np.float32), grid, interpolation=cv2.INTER_AREA) + 4.0
    small /= np.float32(cv2.mean(card)[:3]) + 4.0
    opp = cv2.transform(small, np.array([[1 / 3, 1 / 3, 1 / 3], [0.0, -0.5, 0.5], [-0.5, 0.25, 0.25]], np.float32))
    lum = np.log(np.maximum(opp[..., 0], 0.02))
    opp[..., 0] = lum - cv2.GaussianBlur(lum, (0, 0), features.SHADING_MM / features.FINE_MM,
                                         borderType=cv2.BORDER_REFLECT)
    mean, spread = cv2.meanStdDev(opp)
    opp -= mean.ravel().astype(np.float32)
    spread = spread.ravel()
    opp[..., 0] /= max(float(spread[0]), 1e-3)
    opp[..., 1:] *= features.FINE_CHROMA / max(float(np.sqrt((spread[1:] ** 2).mean())), 0.02)
    return opp


@pytest.mark.parametrize("card_mm", [(63, 88), (44, 68), (70, 70)])
def test_the_fine_descriptors_made_together_are_those_made_one_by_one(card_mm):
    """A photo's 25 shifted descriptors are made at once (the shading's blur as a product with each axis's
    matrix, the statistics as sums): the same as each made alone, for any card size."""
    grid = features.fine_grid(card_mm)
    photo = cv2.resize(image("tempest"), (round(card_mm[0] * 2), round(card_mm[1] * 2)), interpolation=cv2.INTER_AREA)
    dim = (photo.astype(np.float32) * np.float32([0.3, 0.4, 0.5])).astype(np.uint8)  # a dim, warm light
    for card in (photo, dim):
        assert np.allclose(features.fine(card, grid), fine_one_by_one(card, grid), atol=1e-4)
        h, w = card.shape[:2]
        alone = [fine_one_by_one(cv2.warpAffine(card, np.float32([[1, 0, dx * 2.0], [0, 1, dy * 2.0]]), (w, h),
                                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), grid)
                 for dy in features.SHIFTS_MM for dx in features.SHIFTS_MM]
        assert np.allclose(features.fine_shifted(card, grid, 2.0), np.array(alone), atol=1e-4)


def test_the_smear_estimated_with_the_photos_part_kept_is_the_same():
    photo = image("tempest")
    spread = blur.photo_spread(photo, 4.5)
    for smear in [(0.0, 0.0, 0.0), (3.5, 30.0, 0.0), (0.0, 0.0, 1.25)]:
        card = blur.smeared(image("seen-tempest-a"), smear)
        assert np.allclose(blur.scores(card, photo, 4.5, spread), blur.scores(card, photo, 4.5))
