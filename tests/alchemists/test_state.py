"""The state file: where it lives, and that nobody but its owner can ever read it."""

from __future__ import annotations

import json
import os
import stat
import tempfile

import pytest

from assistant import alchemists_state as state
from assistant.engines.alchemists import assignment_from_code


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
    assert saved["assignment"] == assignment_from_code(game).as_dict()


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
