"""Every Alchemists test gets its own state directory, so no test ever touches the user's real one."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def state_dir(tmp_path, monkeypatch):
    directory = tmp_path / "state"
    monkeypatch.setenv("ALCHEMY_TABLE_STATE_DIR", str(directory))
    return directory
