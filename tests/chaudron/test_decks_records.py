"""The TOML deck format, the sample deck, and ``alchemy-table check`` on Chaudron records."""

import json
import random
from pathlib import Path

import pytest

from assistant.decks.chaudron import DeckError, load_deck
from assistant.engines.chaudron import Game
from assistant.engines.chaudron.autoplay import play_game
from assistant.engines.chaudron.game import potion_deck, setup_cauldron
from assistant.records.chaudron import record_of

EXAMPLE = str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "chaudron-game.json")


def _example() -> dict:
    with open(EXAMPLE, encoding="utf-8") as f:
        return json.load(f)


def test_sample_deck_is_marked_and_complete_enough():
    deck = load_deck("sample")
    with open(deck.source, encoding="utf-8") as f:
        assert "NOT the publisher's cards" in f.read()
    for players in range(2, 8):
        potion_deck(deck.potions, players, random.Random(players))  # every table size can be dealt
    twin = deck.potion("twin-essence")
    assert twin.blocks[0].choice == ("bone", "root", "fluid")
    assert deck.ingredient("blue-bonus").add[1].optional


@pytest.mark.parametrize(("toml", "message"), [
    ('[[potion]]\nid = "p"\nname = "P"\nrarity = "common"\nblocks = [{ shape = "BZ" }]\n',
     "potion 'p' (#1): blocks[0].shape: unknown letter 'Z'"),
    ('[[potion]]\nid = "p"\nname = "P"\nrarity = "shiny"\nblocks = [{ shape = "B" }]\n',
     "potion 'p' (#1): rarity: expected one of common"),
    ('[[ingredient]]\nid = "i"\nname = "I"\nadd = [{ shape = "??" }]\n',
     "ingredient 'i' (#1): add[0].shape: a block with '?' cells needs a choice"),
    ('[[ingredient]]\nid = "i"\nname = "I"\n',
     "ingredient 'i' (#1): the card does nothing"),
    ('[[ingredient]]\nid = "i"\nname = "I"\nmove = 1\ncolour = "red"\n',
     "ingredient 'i' (#1): unknown key(s) colour"),
    ('[[ingredient]]\nid = "i"\nname = "I"\nmove = 1\n[[ingredient]]\nid = "i"\nname = "J"\nmove = 2\n',
     "ingredient 'i': id used twice"),
    ('[[potion]\n', "not valid TOML"),
])
def test_deck_errors_name_file_card_and_problem(tmp_path, toml, message):
    path = tmp_path / "deck.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(DeckError) as e:
        load_deck(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


def test_autoplay_game_replays_through_the_physical_check():
    deck = load_deck()
    final, start, turns = play_game(list(deck.potions), deck.pile(), players=3, seed=11)
    rng = random.Random(11)
    game = Game.new(setup_cauldron(rng), potion_deck(list(deck.potions), 3, rng), 3)
    assert game.cauldron == start
    for t in turns:
        if t.kind == "reveal":
            game, _ = game.reveal(t.after)
        else:
            game, verdict = game.play_seen(t.card, t.after)
            assert verdict.legal, (t.card.name, verdict.reason)
    assert game.status == final.status and len(game.made) == len(final.made)


def test_check_the_example_record(cli):
    code, out, err = cli("check", EXAMPLE)
    assert code == 0, out + err
    assert "Cramés" in out and out.strip().splitlines()[-1].endswith(("won", "lost", "playing"))


def test_check_refuses_an_impossible_card_and_stops(cli, tmp_path):
    record = _example()
    k = next(i for i, a in enumerate(record["actions"]) if "play" in a)
    rows = record["actions"][k]["after"]
    rows[0] = ("P" if rows[0][0] != "P" else ".") + rows[0][1:]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, out, _ = cli("check", str(path), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["first_illegal"]["index"] == k and "r0c0" in report["first_illegal"]["reason"]
    assert len(report["steps"]) == k + 1


def test_check_round_structure(cli, tmp_path):
    deck = load_deck()
    _, start, turns = play_game(list(deck.potions), deck.pile(), players=2, seed=5)
    rng = random.Random(5)
    setup_cauldron(rng)
    record = record_of(start, potion_deck(list(deck.potions), 2, rng), 2, turns)
    record["actions"].pop(2)  # round 1 now has one card for two witches
    path = tmp_path / "short.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, out, _ = cli("check", str(path))
    assert code == 1 and "round 1 had 1 card(s) played; each of the 2 witches plays one" in out


@pytest.mark.parametrize(("change", "message"), [
    ({"players": 9}, "players: expected 2 to 7"),
    ({"start": ["BB"]}, "start: the cauldron is 6 x 6, the drawing 1 x 2"),
    ({"potions": ["dawn-tonic"]}, "potions: 2 witches play"),
    ({"deck": "missing.toml"}, "deck: "),
])
def test_malformed_records_exit_2(cli, tmp_path, change, message):
    record = _example()
    record.update(change)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, _out, err = cli("check", str(path))
    assert code == 2 and message in err and "Traceback" not in err


def test_bench_prints_both_medians(cli):
    code, out, _ = cli("bench", "chaudron", "--repeat", "20", "--games", "1")
    assert code == 0
    assert "concoction check" in out and "physical-move check" in out and out.count("median") >= 3
