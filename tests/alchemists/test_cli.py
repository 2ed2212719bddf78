"""``alchemy-table alchemists``: the answers at the table, their JSON, secrecy, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant import alchemists_state as state
from assistant.engines.alchemists import (
    ALCHEMICALS,
    Assignment,
    assignment_from_code,
    brew,
    code_for_index,
    index_of_code,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLE_CODE = "TBGJ"  # the game of the examples in docs/alchemists.md
SECRETS = [str(a) for a in ALCHEMICALS]


@pytest.fixture(autouse=True)
def example_game(cli):
    """The game of the examples in docs/alchemists.md, imported as a user would (its answers travel with it)."""
    code, _, err = cli("alchemists", "import", str(DOCS / "examples/alchemists-game.json"))
    assert code == 0, err


def table(code: str):
    """The answers of a code at this table (keyed by the table's key)."""
    return state.find_game(code=code).assignment


def new_game(cli, *options) -> str:
    code, out, _ = cli("alchemists", "new", "--json", *options)
    assert code == 0
    return json.loads(out)["code"]


def answer(cli, *argv):
    code, out, err = cli("alchemists", *argv, "--json")
    assert code == 0, err
    assert not any(s in out for s in SECRETS), "an answer gave away an alchemical"
    return json.loads(out)


def test_new_draws_a_valid_code_and_shows_nothing_else_secret(cli):
    codes = {new_game(cli) for _ in range(5)}
    assert all(len(c) == 4 and c.isalpha() and c.isupper() for c in codes)
    assert len(codes) > 1
    code, out, _ = cli("alchemists", "new")
    assert code == 0 and not any(s in out for s in SECRETS)
    assert all(table(c) == assignment_from_code(c, state.table_key()) for c in codes)


def test_new_with_an_existing_code_records_that_game(cli, state_dir):
    assert new_game(cli, "--code", EXAMPLE_CODE.lower(), "--master") == EXAMPLE_CODE
    saved = json.loads((state_dir / "alchemists.json").read_text())["games"]
    assert saved[EXAMPLE_CODE]["mode"] == "master"


def test_mix_answers_the_potion(cli):
    game = new_game(cli)
    secret = table(game)
    assert answer(cli, "mix", game, "fern", "toad") == {"potion": str(brew(secret, "fern", "toad"))}
    drunk = answer(cli, "mix", game.lower(), "toad", "fern", "--drink")
    assert drunk["potion"] == str(brew(secret, "fern", "toad")) and "effect" in drunk


def test_mix_for_the_exhibition_says_only_whether_the_promise_holds(cli):
    potion = str(brew(table(EXAMPLE_CODE), "fern", "toad"))  # red+
    assert answer(cli, "mix", EXAMPLE_CODE, "fern", "toad", "--exhibit", potion) == {
        "promised": potion, "success": True, "reputation": 0}
    assert answer(cli, "mix", EXAMPLE_CODE, "fern", "toad", "--exhibit", "blue-") == {
        "promised": "blue-", "success": False, "reputation": -1}
    # A failure at 15 (green zone) costs 2.
    assert answer(cli, "mix", EXAMPLE_CODE, "fern", "toad", "--exhibit", "blue-", "--reputation", "15")[
        "reputation"] == -2
    code, out, _ = cli("alchemists", "mix", EXAMPLE_CODE, "fern", "toad", "--exhibit", "blue-", "--reputation", "18")
    assert code == 0 and out.strip() == "exhibit blue-: failure: not the potion promised; lose 3 reputation points"


def test_drinking_insanity_loses_more_in_the_upper_zones(cli):
    # In the example game fern + claw is blue- (insanity, « -1 point de réputation »).
    assert answer(cli, "mix", EXAMPLE_CODE, "fern", "claw", "--drink") == {
        "potion": "blue-", "effect": "insanity: lose 1 reputation point", "reputation": -1}
    assert answer(cli, "mix", EXAMPLE_CODE, "fern", "claw", "--drink", "--reputation", "20") == {
        "potion": "blue-", "effect": "insanity: lose 3 reputation points", "reputation": -3}
    assert answer(cli, "mix", EXAMPLE_CODE, "fern", "toad", "--drink", "--reputation", "20")["reputation"] == 0


def test_sell_answers_the_quality_class_not_the_potion(cli):
    # In the example game fern + claw is blue-: for a red+ wanted, the wrong sign.
    sale = answer(cli, "sell", EXAMPLE_CODE, "fern", "claw", "--wanted", "red+", "--promise", "bad")
    assert sale == {"wanted": "red+", "promise": "bad", "reached": "bad", "kept": True, "coins": 1,
                    "reputation": -1}
    sale = answer(cli, "sell", EXAMPLE_CODE, "fern", "toad", "--wanted", "red+", "--promise", "perfect",
                  "--discount", "2")
    assert (sale["reached"], sale["kept"], sale["coins"], sale["reputation"]) == ("perfect", True, 2, 0)
    assert "potion" not in sale


def test_apprentice_debunk_shows_one_sign(cli):
    new_game(cli, "--code", EXAMPLE_CODE)  # apprentice; feather is r-g+B-
    shown = answer(cli, "debunk", EXAMPLE_CODE, "feather", "blue")
    assert shown == {"ingredient": "feather", "colour": "blue", "sign": "-", "debunked": None, "reputation": 0}
    code, out, _ = cli("alchemists", "debunk", EXAMPLE_CODE, "feather", "blue", "--theory", "R+G+B+", "--json")
    assert code == 0 and json.loads(out)["debunked"] is True and json.loads(out)["reputation"] == 2


def test_master_debunk_is_a_demonstration(cli):
    new_game(cli, "--code", EXAMPLE_CODE, "--master")
    demo = answer(cli, "debunk", EXAMPLE_CODE, "fern", "toad")  # red+
    assert demo == {"potion": "red+"}
    code, out, _ = cli("alchemists", "debunk", EXAMPLE_CODE, "fern", "toad", "--theory", "fern=r-g+B-", "--json")
    assert code == 0
    assert json.loads(out) == {"potion": "red+", "debunked": ["fern"], "conflict": False, "success": True,
                               "reputation": 2}


def test_apprentice_debunk_reveals_the_seals_and_their_penalties(cli):
    new_game(cli, "--code", EXAMPLE_CODE)  # feather is r-g+B-: the theory R+G+B+ is wrong on blue
    seals = ("--theory", "R+G+B+", "--seal", "Ana=gold", "--seal", "Bo=hedge-blue", "--seal", "Cy=hedge-red")
    shown = answer(cli, "debunk", EXAMPLE_CODE, "feather", "blue", *seals)
    assert shown["debunked"] is True and shown["reputation"] == 2
    assert shown["penalties"] == {"Ana": -5, "Bo": 0, "Cy": -5}  # the blue hedge has the right colour
    # Zones: Ana at 15 loses 6; Cy debunks Cy's own theory from 12: +2 first (14, green), then -6.
    zoned = answer(cli, "debunk", EXAMPLE_CODE, "feather", "blue", *seals, "--reputation", "Ana=15",
                   "--reputation", "12", "--player", "Cy")
    assert zoned["penalties"] == {"Ana": -6, "Bo": 0, "Cy": -6}
    assert (zoned["player"], zoned["total"]) == ("Cy", -4)
    code, out, _ = cli("alchemists", "debunk", EXAMPLE_CODE, "feather", "blue", *seals)
    assert code == 0 and "Ana gold -5, Bo hedge-blue 0 (spared: its doubt was blue), Cy hedge-red -5" in out


def test_a_failed_debunk_reveals_no_seal_and_loses_by_the_zone(cli):
    new_game(cli, "--code", EXAMPLE_CODE)  # feather's green aspect is +, as the theory says
    stands = answer(cli, "debunk", EXAMPLE_CODE, "feather", "green", "--theory", "R+G+B+", "--seal", "Ana=gold",
                    "--reputation", "18")
    assert stands["debunked"] is False and stands["reputation"] == -3 and stands["penalties"] == {}
    code, out, _ = cli("alchemists", "debunk", EXAMPLE_CODE, "feather", "green", "--theory", "R+G+B+")
    assert code == 0 and "the debunker loses 1 reputation point" in out


def test_master_debunk_of_two_theories_chains_the_penalties(cli):
    new_game(cli, "--code", EXAMPLE_CODE, "--master")  # fern + toad is red+: r- on fern and R- on toad are wrong
    demo = answer(cli, "debunk", EXAMPLE_CODE, "fern", "toad", "--theory", "fern=r-g+B-", "--theory",
                  "toad=R-G-B-", "--seal", "fern:Ana=gold", "--seal", "toad:Ana=hedge-blue",
                  "--seal", "toad:Bo=hedge-red", "--reputation", "Ana=15")
    assert demo["debunked"] == ["fern", "toad"] and demo["reputation"] == 2
    # Ana: gold at 15 (green) -6, down to 9; then the blue hedge (red was debunked) at 9: -5. Bo's red hedge: 0.
    assert demo["penalties"] == {"Ana": -11, "Bo": 0}


def test_master_conflict_already_known_costs_a_point(cli):
    new_game(cli, "--code", EXAMPLE_CODE, "--master")
    # fern + toad is red+; R+g+b- and R+G+B+ can each give red+, but together give green+: a conflict.
    theories = ("--theory", "fern=R+g+b-", "--theory", "toad=R+G+B+", "--seal", "toad:Ana=gold")
    new = answer(cli, "debunk", EXAMPLE_CODE, "fern", "toad", *theories)
    assert (new["conflict"], new["success"], new["reputation"], new["penalties"]) == (True, True, 2, {})
    again = answer(cli, "debunk", EXAMPLE_CODE, "fern", "toad", *theories, "--already-in-conflict")
    assert (again["conflict"], again["success"], again["reputation"]) == (True, False, -1)
    zoned = answer(cli, "debunk", EXAMPLE_CODE, "fern", "toad", *theories, "--already-in-conflict",
                   "--reputation", "18")
    assert zoned["reputation"] == -3


@pytest.mark.parametrize(("mode", "argv", "message"), [
    ("", ("feather", "blue", "--seal", "Ana=gold"), "give that theory with --theory"),
    ("", ("feather", "blue", "--theory", "R+G+B+", "--already-in-conflict"), "master-mode rule"),
    ("", ("feather", "blue", "--theory", "R+G+B+", "--seal", "Ana=bronze"), "unknown seal 'bronze'"),
    ("", ("feather", "blue", "--theory", "R+G+B+", "--seal", "Ana"), "expected PLAYER=SEAL"),
    ("", ("feather", "blue", "--theory", "R+G+B+", "--seal", "Ana=gold", "--seal", "Ana=silver"),
     "two seals of one player"),
    ("", ("feather", "blue", "--theory", "R+G+B+", "--reputation", "high"), "expected a number N"),
    ("", ("feather", "blue", "--reputation", "3", "--reputation", "4"), "given twice"),
    ("", ("feather", "blue", "--reputation", "Ana=3", "--reputation", "4", "--player", "Ana"), "two reputations"),
    ("--master", ("fern", "toad", "--theory", "fern=R+g+b-", "--theory", "toad=R+G+B+", "--seal", "Ana=gold"),
     "say which one the seal is on"),
    ("--master", ("fern", "toad", "--theory", "fern=R+g+b-", "--seal", "toad:Ana=gold"), "no --theory of toad"),
    ("--master", ("fern", "toad", "--theory", "fern=R+g+b-", "--already-in-conflict"), "both ingredients"),
])
def test_bad_seals_reputations_and_conflicts_are_one_line_errors(cli, mode, argv, message):
    new_game(cli, "--code", EXAMPLE_CODE, *([mode] if mode else []))
    code, out, err = cli("alchemists", "debunk", EXAMPLE_CODE, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err
    assert not any(s in err for s in SECRETS if s not in argv)


@pytest.mark.parametrize(("mode", "argv", "message"), [
    ("", ("fern", "toad"), "apprentice game"),
    ("--master", ("fern", "red"), "master game"),
])
def test_a_debunk_of_the_wrong_mode_is_refused(cli, mode, argv, message):
    new_game(cli, "--code", EXAMPLE_CODE, *([mode] if mode else []))
    code, _, err = cli("alchemists", "debunk", EXAMPLE_CODE, *argv)
    assert code == 2 and message in err


def test_reveal_without_theories_only_reveals(cli):
    shown = json.loads(cli("alchemists", "reveal", EXAMPLE_CODE, "--json")[1])
    assert shown == {"assignment": assignment_from_code(EXAMPLE_CODE).as_dict()}
    assert Assignment.from_mapping(shown["assignment"]) == assignment_from_code(EXAMPLE_CODE)


def test_reveal_scores_the_example_theories(cli):
    code, out, _ = cli("alchemists", "reveal", EXAMPLE_CODE, str(DOCS / "examples/alchemists-theories.json"),
                       "--json")
    assert code == 0
    result = json.loads(out)
    assert result["points"] == {"Ana": 1, "Bo": 3, "Cy": -4}
    assert [t["correct"] for t in result["theories"]] == [True, True, False, False]
    assert result["theories"][2]["wrong_aspects"] == ["blue"]


def test_solve_the_example_facts(cli):
    code, out, _ = cli("alchemists", "solve", str(DOCS / "examples/alchemists-facts.json"), "--json")
    assert code == 0
    result = json.loads(out)
    truth = assignment_from_code(EXAMPLE_CODE).as_dict()
    assert result["status"] == "ok" and result["remaining"] == len(result["assignments"]) == 6
    assert truth in result["assignments"]
    assert result["certain"] == {"fern": truth["fern"], "toad": truth["toad"]}
    assert all(result["probabilities"][i][a] > 0 for i, a in truth.items())
    assert set(result["next_mix"]["ingredients"]) <= {"fern", "root", "feather", "flower"}  # the hand
    assert result["next_mix"]["ingredients"] == ["root", "feather"]  # as docs/alchemists.md says
    assert result["next_mix"]["expected_bits"] == pytest.approx(1.79, abs=0.005)
    assert sum(result["next_mix"]["outcomes"].values()) == pytest.approx(1, abs=1e-3)


def test_solve_says_inconsistent_when_a_trusted_theory_is_wrong(cli):
    code, out, _ = cli("alchemists", "solve", str(DOCS / "examples/alchemists-facts.json"),
                       "--trust", str(DOCS / "examples/alchemists-theories.json"), "--json")
    assert code == 1
    result = json.loads(out)
    assert result["status"] == "inconsistent" and "toad" in result["fact"]


def test_solve_in_words(cli, tmp_path):
    facts = tmp_path / "f.json"
    facts.write_text(json.dumps({"facts": [{"mix": ["fern", "toad"], "potion": "-"}]}))
    code, out, _ = cli("alchemists", "solve", str(facts), "--hand", "fern", "toad", "claw")
    assert code == 0
    assert out.startswith(f"1 facts: {3 * 40320 // 7} of 40320 assignments still possible")
    assert "next mix: " in out and "certain: nothing yet" in out


@pytest.mark.parametrize("argv", [
    ("mix", "ABCDE", "fern", "toad"),
    ("mix", "AB1D", "fern", "toad"),
    ("mix", code_for_index(3), "fern", "fern"),
    ("mix", code_for_index(3), "fern", "newt"),
    ("sell", code_for_index(3), "fern", "toad", "--wanted", "neutral", "--promise", "good"),
    ("sell", code_for_index(3), "fern", "toad", "--wanted", "red+", "--promise", "bad", "--discount", "1"),
    ("debunk", code_for_index(3), "fern", "purple"),
    ("reveal", code_for_index(3), "/no/such/theories.json"),
    ("solve", "/no/such/facts.json"),
    ("new", "--code", "QQ"),
])
def test_user_errors_are_one_line_exit_2_and_never_repeat_the_secret(cli, argv):
    code, out, err = cli("alchemists", *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert argv[1] not in err or not argv[1].isalpha()  # the code is never repeated
    assert not any(s in err for s in SECRETS)


def test_a_bad_facts_file_names_the_file_and_the_place(cli, tmp_path):
    facts = tmp_path / "f.json"
    facts.write_text(json.dumps({"facts": [{"mix": ["fern", "toad"], "potion": "red+"}, {"debunk": "fern"}]}))
    code, _, err = cli("alchemists", "solve", str(facts))
    assert code == 2 and f"{facts}: facts[1]: colour: missing" in err


def test_alchemists_without_a_subcommand_shows_help(cli):
    code, out, _ = cli("alchemists")
    assert code == 2 and "solve" in out and "reveal" in out


def test_new_never_draws_a_code_this_table_has_recorded(cli, monkeypatch):
    """Were the draw to fall on the imported example game's code, that game (and its answers) is left alone."""
    draws = iter([index_of_code(EXAMPLE_CODE), index_of_code(EXAMPLE_CODE), 7])
    monkeypatch.setattr("secrets.randbelow", lambda n: next(draws))
    before = table(EXAMPLE_CODE)
    assert new_game(cli) == code_for_index(7)
    assert table(EXAMPLE_CODE) == before
