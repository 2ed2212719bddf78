"""The state file: where it lives, and that nobody but its owner can ever read it."""

from __future__ import annotations

import json
import os
import stat
import tempfile

import pytest

from assistant import alchemists_state as state
from assistant.engines.alchemists import assignment_from_code, code_for_index


def mode_of(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_writes_code_mode_and_assignment_to_an_owner_only_file(cli, state_dir):
    code, out, _ = cli("alchemists", "new", "--master", "--json")
    assert code == 0
    game = json.loads(out)["code"]
    path = state_dir / "alchemists.json"
    assert mode_of(path) == 0o600 and mode_of(state_dir) == 0o700
    saved = json.loads(path.read_text())["games"][game]
    assert saved["mode"] == "master"
    assert saved["assignment"] == assignment_from_code(game, state.table_key()).as_dict()
    assert mode_of(state_dir / "alchemists.key") == 0o600


def test_a_code_read_off_the_table_reveals_nothing_on_another_machine(cli, state_dir, tmp_path, monkeypatch):
    code, out, _ = cli("alchemists", "new", "--json")
    game = json.loads(out)["code"]
    here = json.loads(cli("alchemists", "reveal", "--json")[1])["assignment"]  # the current game: no code typed
    assert here == state.find_game(code=game).assignment.as_dict()
    assert here != assignment_from_code(game).as_dict()  # not the unkeyed, published derivation
    monkeypatch.setenv("ALCHEMY_TABLE_STATE_DIR", str(tmp_path / "elsewhere"))  # another machine, its own key
    code, out, _ = cli("alchemists", "reveal", game, "--json")
    assert code == 0 and json.loads(out)["assignment"] != here
    # Over many codes, two tables agree no more than chance would (1 in 40,320 per code).
    keys = [b"a" * 32, b"b" * 32]
    codes = [code_for_index(n) for n in range(0, 40320, 97)]
    same = sum(assignment_from_code(c, keys[0]) == assignment_from_code(c, keys[1]) for c in codes)
    assert same <= 1


def test_the_key_is_created_once_owner_only_and_a_readable_one_is_refused(state_dir):
    old = os.umask(0)
    try:
        key = state.table_key()
    finally:
        os.umask(old)
    assert len(key) == 32 and mode_of(state_dir / "alchemists.key") == 0o600
    assert state.table_key() == key
    (state_dir / "alchemists.key").chmod(0o644)
    with pytest.raises(state.StateError, match="readable by other users"):
        state.table_key()


def test_export_and_import_move_a_game_between_machines_with_its_answers(cli, state_dir, tmp_path, monkeypatch):
    assert cli("alchemists", "new", "--master", "--name", "friday")[0] == 0
    mixed = cli("alchemists", "mix", "fern", "toad", "--json")[1]
    out_file = tmp_path / "friday.json"
    code, _, err = cli("alchemists", "export", "--game", "friday", "--out", str(out_file))
    assert code == 0, err
    assert mode_of(out_file) == 0o600
    assert cli("alchemists", "export", "--out", str(out_file))[0] == 2  # never over an existing file
    monkeypatch.setenv("ALCHEMY_TABLE_STATE_DIR", str(tmp_path / "other"))
    code, _, err = cli("alchemists", "import", str(out_file))
    assert code == 0, err
    assert cli("alchemists", "mix", "--game", "friday", "fern", "toad", "--json")[1] == mixed
    assert cli("alchemists", "debunk", "fern", "toad", "--json")[0] == 0  # master mode came along


def test_commands_take_the_game_by_name_or_the_current_one(cli, state_dir):
    assert cli("alchemists", "new", "--name", "first")[0] == 0
    first = state.find_game(name="first")
    assert cli("alchemists", "new", "--name", "second")[0] == 0
    assert state.find_game().name == "second"
    code, out, _ = cli("alchemists", "reveal", "--game", "first", "--json")
    assert json.loads(out)["assignment"] == first.assignment.as_dict()
    code, out, err = cli("alchemists", "mix", "--game", "third", "fern", "toad")
    assert code == 2 and err.count("\n") == 1 and "no game named 'third'" in err
    assert first.code not in err and state.find_game().code not in err


def test_the_file_is_never_readable_by_others_even_while_it_is_written(cli, state_dir, monkeypatch):
    seen = []
    real_mkstemp, real_replace = tempfile.mkstemp, os.replace

    def mkstemp(*args, **kwargs):
        fd, name = real_mkstemp(*args, **kwargs)
        seen.append(("created", mode_of(name)))
        return fd, name

    def replace(source, target):
        seen.append(("renamed", mode_of(source)))
        return real_replace(source, target)

    monkeypatch.setattr(state.tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(state.os, "replace", replace)
    old = os.umask(0)  # the most permissive umask must not matter
    try:
        assert cli("alchemists", "new")[0] == 0
        assert cli("alchemists", "new")[0] == 0
    finally:
        os.umask(old)
    assert seen == [("created", 0o600), ("renamed", 0o600)] * 2
    assert mode_of(state_dir / "alchemists.json") == 0o600
    assert len(json.loads((state_dir / "alchemists.json").read_text())["games"]) == 2
    assert [p.name for p in state_dir.iterdir() if p.name.endswith(".tmp")] == []


def test_a_state_file_readable_by_others_is_refused(cli, state_dir):
    assert cli("alchemists", "new")[0] == 0
    (state_dir / "alchemists.json").chmod(0o644)
    code, out, err = cli("alchemists", "new")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "readable by other users" in err and "chmod 600" in err


def test_a_corrupt_state_file_is_a_one_line_error(cli, state_dir):
    state_dir.mkdir()
    path = state_dir / "alchemists.json"
    path.write_text("{not json")
    path.chmod(0o600)
    code, _, err = cli("alchemists", "new")
    assert code == 2 and "not valid JSON" in err and err.count("\n") == 1


@pytest.mark.parametrize(("environ", "expected"), [
    ({"ALCHEMY_TABLE_STATE_DIR": "/x/state", "XDG_STATE_HOME": "/y"}, "/x/state/alchemists.json"),
    ({"XDG_STATE_HOME": "/y"}, "/y/alchemy-table/alchemists.json"),
    ({"ALCHEMY_TABLE_STATE_DIR": "", "XDG_STATE_HOME": ""}, "~/.local/state/alchemy-table/alchemists.json"),
])
def test_where_the_state_file_lives(environ, expected):
    assert str(state.state_path(environ)) == os.path.expanduser(expected)
