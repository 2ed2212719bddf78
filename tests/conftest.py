"""Shared test helpers."""

from __future__ import annotations

import pytest

from assistant.cli import main


@pytest.fixture
def cli(capsys):
    """Run the CLI in-process: returns (exit code, stdout, stderr)."""

    def run(*argv: str):
        try:
            code = main(list(argv))
        except SystemExit as e:  # argparse's --help/--version/usage errors
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
        out, err = capsys.readouterr()
        return code, out, err

    return run
