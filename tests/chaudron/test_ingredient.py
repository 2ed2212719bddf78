"""Ingredient cards: removal, addition, Cramés, the cap, concoction in the middle of an addition, duplicate,
move; checked both by applying a play and by the physical-move check the table uses."""

import pytest

from assistant.engines.chaudron import Block, Cauldron, IllegalMove, Ingredient, Play, Potion, apply, check_move, place

B = Block.parse


def pot(text: str) -> Cauldron:
    return Cauldron.parse(text)


def card(**kw) -> Ingredient:
    return Ingredient(kw.pop("id", "c"), kw.pop("name", "Card"), **kw)


EMPTY3 = "...\n...\n..."


def test_removal_takes_the_block_and_burns_for_each_missing():
    c = card(remove=(B("BB"),))
    res = apply(pot("BB.\n...\n..."), c)
    assert str(res.cauldron) == EMPTY3 and res.burnt == 0
    res = apply(pot("B..\n...\n..."), c)
    assert res.burnt == 1 and res.cauldron.burnt == 1
    res = apply(pot("...\n...\n..."), c)
    assert res.burnt == 2


def test_stone_is_no_wildcard_for_an_ingredient():
    res = apply(pot("BS.\n...\n..."), card(remove=(B("BR"),)))
    assert res.burnt == 1 and res.cauldron.count("stone") == 1


def test_remove_all_never_burns():
    c = card(remove_all=("fire",), add=(B("B"),))
    res = apply(pot("f.f\n...\n..f"), c)
    assert res.cauldron.count("fire") == 0 and res.burnt == 0
    assert apply(pot(EMPTY3), c).burnt == 0


def test_or_suffer_by_choice_or_by_force():
    c = card(remove=(B("F"),), or_suffer=2, add=(B("B"),))
    assert apply(pot("F..\n...\n..."), c).burnt == 0
    assert apply(pot("F..\n...\n..."), c, Play(suffer=True)).burnt == 2
    res = apply(pot(EMPTY3), c)  # nothing to remove: the card's 2 Cramés, not 1 per missing
    assert res.burnt == 2
    before = pot(EMPTY3)
    with pytest.raises(IllegalMove, match="2 Cramés must be taken"):
        apply(before, c, Play(removals=(place(before, c.remove_groups[0], "F..\n...\n...", adding=False),)))


def test_adding_off_the_cauldron_burns_and_adds_nothing():
    c = card(add=(B("BBB"),))
    before = pot(EMPTY3)
    hanging = place(before, c.add_groups[0], "...\n...\n.BB", outside=1)
    res = apply(before, c, Play(additions=(hanging,), burnt=((0, 0),)))
    assert str(res.cauldron) == "X..\n...\n.BB" and res.burnt == 1
    assert check_move(before, pot("X..\n...\n.BB"), c).burnt == 1
    assert check_move(before, pot("...\n...\n.BB"), c).reason == "1 Cramé missing: Card causes 1 Cramé here"


def test_overlap_replaces_and_burns_only_without_room():
    c = card(add=(B("RR"),))
    full = pot("BB.\nFFF\nFFF")
    # No room for two roots side by side: one goes over a bone for 1 Cramé, which then has no empty cell
    # left and replaces a resource (the other bone) without a further Cramé.
    verdict = check_move(full, pot("XRR\nFFF\nFFF"), c)
    assert verdict.legal and verdict.burnt == 1
    assert check_move(full, pot("RRX\nFFF\nFFF"), c).burnt == 2  # over both bones: 2 Cramés
    roomy = pot("B..\n...\n...")
    assert not check_move(roomy, pot("RR.\n..X\n..."), c).legal  # there was room: no overlapping
    with pytest.raises(IllegalMove, match="fits on empty ones"):
        apply(roomy, c, Play(additions=(place(roomy, c.add_groups[0], "RR.\n...\n..."),)))


def test_an_addition_replaces_resources_never_a_cramé():
    # "des Ressources devaient être ajoutées par-dessus d'autres Ressources déjà existantes, remplacez
    # l'ancienne Ressource": a Cramé is not a resource, so covering one (which would take it off the
    # cauldron once the card's 5 Cramés are reached) is not a way to add.
    c = card(remove=(B("PPPPP"),), add=(B("BBB"),))
    before = pot("XXX\nXXX\nXXX")
    with pytest.raises(IllegalMove, match="goes over a Cramé"):
        apply(before, c, Play(additions=(place(before, c.add_groups[0], "BBB\n...\n..."),)))
    assert not check_move(before, pot("BBB\nXXX\nXXX"), c).legal
    res = apply(before, c)  # the block goes off the cauldron: its Cramés are over the card's 5
    assert res.burnt == 5 and res.cauldron.burnt == 9
    assert check_move(before, before, c).legal


def test_no_room_left_counts_the_cells_the_cards_other_blocks_take():
    # "parce que il ne vous reste plus assez de place dans le Chaudron": once the bone has taken the last
    # empty cell, the root has no room and may replace a resource for 1 Cramé.
    c = card(add=(B("B"), B("R", at=(0, 2))))
    before = pot("FFF\nFFF\nFF.")
    play = Play(additions=(place(before, c.add_groups[0], "...\n...\n..B"),
                           place(before, c.add_groups[1], "R..\n...\n...")), burnt=((1, 2),))
    res = apply(before, c, play)
    assert str(res.cauldron) == "RFF\nFFX\nFFB" and res.burnt == 1
    assert check_move(before, pot("RFF\nFFX\nFFB"), c).legal
    # Both over resources while the empty cell stays free: there was room for one of them.
    assert not check_move(before, pot("RFB\nFFX\nFFX"), c).legal
    with pytest.raises(IllegalMove, match="fits on empty ones"):
        apply(before, c, Play(additions=(place(before, c.add_groups[0], "..B\n...\n..."),
                                         place(before, c.add_groups[1], "R..\n...\n..."))))


def test_a_cramé_replaces_a_resource_only_when_no_cell_is_empty():
    c = card(remove=(B("f"),))
    assert check_move(pot("BB\nRR"), pot("XB\nRR"), c).legal
    assert not check_move(pot("B.\nRR"), pot("X.\nRR"), c).legal


def test_five_cramés_at_most_per_card_unless_it_says_so():
    c = card(remove=(B("fff\nfff"),))
    assert apply(pot("...\n...\n..."), c).burnt == 5
    assert check_move(pot(EMPTY3), pot("XXX\nXX.\n..."), c).legal
    assert not check_move(pot(EMPTY3), pot("XXX\nXXX\n..."), c).legal
    wild = card(remove=(B("fff\nfff"),), max_burnt=6)
    assert apply(pot(EMPTY3), wild).burnt == 6


def test_concoction_in_the_middle_of_an_addition_frees_room():
    # The cauldron is full but for one cell; the potion "BR" is waiting. Adding "RR" from the right: the
    # first root completes the potion, which frees the bone's cell for the second root: no Cramé at all.
    dawn = Potion("dawn", "Dawn", "common", (B("BR"),))
    c = card(add=(B("RR"),))
    before = pot("FFF\nFB.\nFFF")
    res = apply(before, c, Play(additions=(place(before, c.add_groups[0], "...\n.RR\n..."),),
                                order=((1, 2), (1, 1))), revealed=[dawn])
    assert [x.potion.name for x in res.concocted] == ["Dawn"]
    assert str(res.cauldron) == "FFF\nFR.\nFFF" and res.burnt == 0
    verdict = check_move(before, pot("FFF\nFR.\nFFF"), c, revealed=[dawn])
    assert verdict.legal and verdict.burnt == 0 and verdict.resolution.concocted[0].potion is dawn
    # Without the potion, the same sight cannot be explained.
    assert not check_move(before, pot("FFF\nFR.\nFFF"), c).legal


def test_optional_blue_block_may_be_left_out():
    c = card(add=(B("B"), B("F", at=(1, 1), optional=True)))
    before = pot(EMPTY3)
    assert check_move(before, pot("B..\n.F.\n..."), c).legal
    assert check_move(before, pot("B..\n...\n..."), c).legal
    assert not check_move(before, pot("B..\n...\n..F"), c).legal  # linked: it must touch the bone's corner
    assert not check_move(before, pot("...\n.F.\n..."), c).legal  # the bone is not optional


def test_duplicate_copies_anywhere_and_burns_when_full():
    c = card(duplicate=1)
    assert check_move(pot("f..\n...\n..."), pot("f..\n...\n..f"), c).legal
    assert not check_move(pot("f..\n...\n..."), pot("f..\n...\n..B"), c).legal
    verdict = check_move(pot("fB\nRR"), pot("ff\nRX"), c)  # over the bone, then a Cramé over a root
    assert verdict.legal and verdict.burnt == 1


def test_moves_go_to_empty_cells_and_are_optional():
    c = card(move=1)
    assert check_move(pot("X..\n...\n..."), pot("...\n...\n..X"), c).legal  # a Cramé moves too
    assert check_move(pot("X..\n...\n..."), pot("X..\n...\n..."), c).legal
    assert not check_move(pot("XB.\n...\n..."), pot("...\n...\nBX."), c).legal  # only one move
    with pytest.raises(IllegalMove, match="not empty"):
        apply(pot("XB\n.."), c, Play(moves=(((0, 0), (0, 1)),)))


def test_physical_check_explains_or_refuses():
    c = card(name="Bone for Roots", remove=(B("B"),), add=(B("RRR"),))
    before = pot("B...\n....\n....\n....")
    good = check_move(before, pot("....\n.RRR\n....\n...."), c)
    assert good.legal and good.burnt == 0
    assert any("took r0c0" in s for s in good.resolution.steps)
    bent = check_move(before, pot("....\n.RR.\n..R.\n...."), c)
    assert not bent.legal and "no way of playing Bone for Roots" in bent.reason
    alien = check_move(before, pot("....\n.RRR\n....\n...P"), c)
    assert alien.reason == "r3c3: empty became poison, which Bone for Roots cannot do"
    kept = check_move(before, pot("B...\n.RRR\n....\n...."), c)  # the bone stayed: 1 Cramé is due
    assert kept.reason == "1 Cramé missing: Bone for Roots causes 1 Cramé here"
