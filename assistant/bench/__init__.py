"""Benchmarks: each module ``assistant.bench.<name>`` has ``main(argv: list[str]) -> int`` that prints its
figures (medians over repeated runs, and ratios where a target is a ratio). Run with
``alchemy-table bench NAME`` or ``alchemy-table bench all``. Never timed assertions in the tests."""
