"""docs/journal.md states the journal's promises, each naming the test that holds it: those tests exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_promise_names_a_test_that_exists():
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", (ROOT / "docs" / "journal.md").read_text())
    assert len(named) >= 15
    for path, name in named:
        tree = ast.parse((ROOT / path).read_text())
        tests = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert name in tests, f"docs/journal.md names {path}::{name}, which does not exist"
