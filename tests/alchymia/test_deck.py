"""The deck file format: the sample deck, and errors naming the file, the card and the problem."""

import pytest

from assistant.decks.alchymia import DeckError, deck_path, load_deck
from assistant.engines.alchymia import ELEMENTS, Board, Colour

GOOD = """
[deck]
rows = 3
cols = 3
{crystals}
[potions]
p1 = "GY"
p2 = "WWBR"
"""


def crystal(name, element, rows):
    return f'[[crystal]]\nname = "{name}"\nelement = "{element}"\nstructure = {rows}\n'


def deck_file(tmp_path, crystals=None, potions=None, head=None):
    if crystals is None:
        crystals = "".join(crystal(f"{e.value}-1", e.value, '["G..", ".G.", "..G"]') for e in ELEMENTS)
    text = GOOD.format(crystals=crystals)
    if potions is not None:
        text = text.split("[potions]")[0] + "[potions]\n" + potions
    if head is not None:
        text = head + text.split("cols = 3", 1)[1]
    path = tmp_path / "deck.toml"
    path.write_text(text)
    return path


def test_the_sample_deck_is_complete_and_marked_as_not_the_publishers():
    deck = load_deck()
    assert [len(s) for s in deck.crystals] == [5] * 5 and len(deck.potions) == 55
    assert all(1 <= len(p.potions) <= 4 for p in deck.potions)
    assert {c: sum(p.potions.count(c) for p in deck.potions) for c in Colour} == dict.fromkeys(Colour, 27)
    assert "NOT THE PUBLISHER'S" in deck_path().read_text()


def test_a_deck_file_loads(tmp_path):
    deck = load_deck(deck_file(tmp_path))
    assert deck.crystals[0][0].structure == Board.parse("G.. .G. ..G")
    assert [p.letters for p in deck.potions] == ["GY", "WWBR"]


@pytest.mark.parametrize("change, message", [
    ({"crystals": crystal("e1", "earth", '["G..", ".G."]')}, "card e1: structure: 2 rows, the deck's boards have 3"),
    ({"crystals": crystal("e1", "earth", '["G..", ".GG.", "..G"]')}, "card e1: structure: row 2 has 4 positions"),
    ({"crystals": crystal("e1", "metal", '["G..", ".G.", "..G"]')}, "card e1: element: expected one of earth"),
    ({"crystals": crystal("e1", "earth", '["X..", ".G.", "..G"]')}, "card e1: structure: unknown stone colour 'X'"),
    ({"crystals": crystal("e1", "earth", '["...", "...", "..."]')}, "card e1: structure: the structure has no stone"),
    ({"crystals": crystal("e1", "earth", '["G..", "...", "..."]') + crystal("e2", "earth", '["..G", "...", "..."]')},
     "card e2: same structure as e1 (up to a rotation)"),
    ({"crystals": crystal("e1", "earth", '["G..", "...", "..."]')}, "crystal: no card for the air element"),
    ({"potions": 'p1 = "GGGGG"\n'}, "card p1: a card carries 1 to 4 potions, not 5"),
    ({"potions": 'p1 = "GQ"\n'}, "card p1: unknown stone colour 'Q'"),
    ({"potions": "p1 = 3\n"}, "card p1: expected a string of potion letters"),
    ({"head": "[deck]\nrows = 0\ncols = 3"}, "deck: rows: expected a whole number from 1 to 9"),
])
def test_errors_name_the_file_the_card_and_the_problem(tmp_path, change, message):
    path = deck_file(tmp_path, **change)
    with pytest.raises(DeckError) as e:
        load_deck(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


def test_unreadable_files(tmp_path):
    with pytest.raises(DeckError, match="no such deck file"):
        load_deck(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[deck\n")
    with pytest.raises(DeckError, match="not valid TOML"):
        load_deck(bad)
