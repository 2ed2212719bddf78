"""``calibrate cards --set``: the set's name is a name, never a path out of ``--out``."""

from __future__ import annotations

import json

import pytest

from vision.cards.store import CardSetError, load_set, open_set


@pytest.fixture(scope="module")
def fern(tmp_path_factory):
    """A rendered frame with the fern card in the left place."""
    from assistant.cli import main

    folder = tmp_path_factory.mktemp("fern")
    state = folder / "fern.state.json"
    state.write_text(json.dumps({"zones": {"card-left": "fern"}}))
    out = folder / "fern.png"
    assert main(["render", "--layout", "alchemists", "--state", str(state), "--out", str(out), "--no-hand",
                 "--seed", "3"]) == 0
    return out


@pytest.mark.parametrize("name", ["../escaped", "ABSOLUTE", "a/../../escaped", "..", "."])
def test_a_set_name_that_is_a_path_is_refused_and_nothing_is_written_outside(cli, tmp_path, fern, name):
    out = tmp_path / "deep" / "cards"
    name = str(tmp_path / "deep" / "escaped") if name == "ABSOLUTE" else name
    code, stdout, err = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(out), "--set", name,
                            f"fern={fern}")
    assert code == 2 and stdout == "" and err.count("\n") == 1 and "--set: expected a set name" in err
    assert not (tmp_path / "deep" / "escaped").exists() and not (tmp_path / "escaped").exists()
    assert not (out.parent / "set.json").exists() and not (tmp_path / "deep" / "fern.png").exists()


def test_the_store_itself_confines_set_folders_and_card_images(tmp_path):
    with pytest.raises(CardSetError, match="not a path"):
        open_set(tmp_path / "cards", "../x", (63, 88))
    folder = tmp_path / "cards" / "s"
    folder.mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(b"")
    (folder / "set.json").write_text(json.dumps({"kind": "alchemy-table card set", "set": "s", "card_mm": [63, 88],
                                                 "cards": {"fern": {"image": "../../secret.png"}}}))
    with pytest.raises(CardSetError, match=r"cards\.fern: expected"):
        load_set(folder)
