"""Enrolled cards are recognised in any quarter turn, under the four lightings, with a fingertip over a
corner; cards never enrolled and empty places are not taken for an enrolled card."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.cards.store import CardSet
from vision.read import Reader
from vision.render import LIGHTINGS, random_conditions, render_frame
from vision.render.cards import place_card

ALCHEMISTS = load_layout("alchemists")
INGREDIENTS = ALCHEMISTS.game["ingredients"]


def view(seed: int, zones: dict[str, str], lighting: str, fingers=(), foreign=()):
    rng = np.random.default_rng(seed)
    conditions = random_conditions(ALCHEMISTS, rng, lighting=lighting, hand=False, foreign=False)
    conditions = replace(conditions, fingers=tuple(fingers), foreign=tuple(foreign))
    return render_frame(ALCHEMISTS, {"zones": zones}, conditions, rng), conditions


def read(card_set: CardSet, frame):
    reader = Reader(ALCHEMISTS, cards={card_set.name: card_set})
    reading = reader.read(frame)
    assert reading.board_found
    return {zone: (z.label, z.confidence) for zone, z in reading.zones.items()}


@pytest.mark.parametrize("lighting", LIGHTINGS)
def test_enrolled_cards_are_named_under_every_lighting(ingredients, lighting):
    for k in range(2):
        left, right = INGREDIENTS[(2 * k + LIGHTINGS.index(lighting)) % 8], INGREDIENTS[(2 * k + 5) % 8]
        seed = 40 + 10 * LIGHTINGS.index(lighting) + k
        (frame, _), _ = view(seed, {"card-left": left, "card-right": right}, lighting)
        got = read(ingredients, frame)
        assert got["card-left"][0] == left and got["card-right"][0] == right, (seed, got)
        assert min(got["card-left"][1], got["card-right"][1]) >= 0.6


def _turn(seed: int, name: str) -> int:
    """The quarter turn the renderer gives ``name`` in card-left for the view of ``seed`` (0..3)."""
    conditions = random_conditions(ALCHEMISTS, np.random.default_rng(seed), lighting="warm", hand=False,
                                   foreign=False)
    placed = place_card(ALCHEMISTS.zone("card-left"), name, ALCHEMISTS, conditions.placement_seed,
                        conditions.jitter_mm)
    return round(placed.angle_deg / 90) % 4


@pytest.mark.parametrize("turn", range(4))
def test_a_card_is_named_in_each_quarter_turn(ingredients, turn):
    name = INGREDIENTS[turn * 2 + 1]
    seed = next(s for s in range(200, 400) if _turn(s, name) == turn)
    (frame, _), _ = view(seed, {"card-left": name}, "warm")
    assert read(ingredients, frame)["card-left"][0] == name


def test_a_fingertip_over_a_corner_does_not_stop_the_card_being_named(ingredients):
    for seed in range(3):
        zones = {"card-left": INGREDIENTS[seed], "card-right": INGREDIENTS[seed + 4]}
        (frame, _), _ = view(70 + seed, zones, LIGHTINGS[seed], fingers=("card-left", "card-right"))
        got = read(ingredients, frame)
        assert {z: label for z, (label, _) in got.items()} == zones, seed


def test_cards_never_enrolled_are_unknown_and_empty_places_empty(ingredients):
    for seed in range(3):
        (frame, truth), _ = view(90 + seed, {"card-right": "empty"}, LIGHTINGS[seed + 1], foreign=("card-left",))
        assert truth["zones"] == {"card-left": "unknown", "card-right": "empty"}
        got = read(ingredients, frame)
        assert got["card-left"][0] == "unknown" and got["card-right"][0] == "empty", (seed, got)


def test_a_card_missing_from_the_set_is_unknown_not_its_nearest_neighbour(ingredients):
    partial = CardSet(ingredients.name, ingredients.card_mm,
                      {n: ingredients.images[n] for n in ingredients.names if n != "toad"})
    (frame, _), _ = view(101, {"card-left": "toad", "card-right": "fern"}, "warm")
    got = read(partial, frame)
    assert got["card-left"][0] == "unknown" and got["card-right"][0] == "fern"


def test_without_an_enrolled_set_a_card_zone_tells_only_empty_from_a_card():
    (frame, _), _ = view(102, {"card-left": "claw"}, "cool")
    got = {z: r.label for z, r in Reader(ALCHEMISTS).read(frame).zones.items()}
    assert got == {"card-left": "unknown", "card-right": "empty"}


def test_reading_keeps_the_read_json_shape(ingredients):
    (frame, _), _ = view(103, {"card-left": "root", "card-right": "scorpion"}, "daylight")
    data = Reader(ALCHEMISTS, cards={ingredients.name: ingredients}).read(frame).to_dict()
    assert set(data) == {"layout", "board_found", "homography", "zones", "counts"}
    assert data["zones"]["card-left"]["label"] == "root" and data["counts"] == {}
    assert set(data["zones"]["card-right"]) == {"label", "confidence"}
