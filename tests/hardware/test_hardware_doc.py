"""docs/hardware.md and the README's Pi section walk a new user through commands: every one must exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "docs" / "hardware.md", ROOT / "README.md"]


def subcommands(parser) -> dict:
    for action in parser._actions:  # argparse keeps its sub-parsers there
        if action.__class__.__name__ == "_SubParsersAction":
            return action.choices
    return {}


def commands(text: str) -> list[list[str]]:
    found = []
    for line in text.splitlines():
        for match in re.finditer(r"alchemy-table ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)", line):
            found.append(match.group(1).split())
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_alchemy_table_command_in_the_page_exists(page):
    top = subcommands(build_parser())
    text = page.read_text(encoding="utf-8")
    seen = commands(text)
    assert seen
    for words in seen:
        if words[0] in ("service", "calibration", "user"):  # "the alchemy-table service/user", not a command
            continue
        assert words[0] in top, f"{page.name}: alchemy-table {words[0]} is not a command"
        inner = subcommands(top[words[0]])
        if inner and len(words) > 1 and not words[1].startswith("-"):
            assert words[1] in inner, f"{page.name}: alchemy-table {' '.join(words)} is not a command"


def test_every_install_option_in_the_hardware_page_exists():
    script = (ROOT / "systemd" / "install.sh").read_text(encoding="utf-8")
    text = (ROOT / "docs" / "hardware.md").read_text(encoding="utf-8")
    for option in set(re.findall(r"install\.sh((?: --[a-z-]+(?: [a-z0-9]+)?)+)", text)):
        for flag in re.findall(r"--[a-z-]+", option):
            assert f"{flag})" in script, f"install.sh has no {flag}"


def test_the_docs_cite_only_files_the_repository_has():
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        for cited in re.findall(r"\b([A-Z][A-Z_]+\.md)\b", page.read_text(encoding="utf-8")):
            assert (ROOT / cited).exists() or (ROOT / "docs" / cited).exists(), f"{page.name} cites {cited}"


def test_the_pi_extras_bring_luma_gpio_and_spi():
    import tomllib

    from packaging.requirements import Requirement

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for name in ("pi", "pi5"):
        luma = [Requirement(r) for r in extras[name] if Requirement(r).name == "luma-core"
                or Requirement(r).name == "luma.core"]
        assert luma and {"gpio", "spi"} <= luma[0].extras, f"[{name}] lacks luma.core[gpio,spi]"
