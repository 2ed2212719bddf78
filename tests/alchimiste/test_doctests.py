"""The examples in the engine's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["", ".rules", ".cubes", ".actions", ".endgame", ".game"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"assistant.engines.alchimiste{name}")
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failed == 0
    if name in ("", ".rules", ".cubes", ".actions", ".endgame"):
        assert tried > 0
