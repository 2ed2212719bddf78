"""``alchemy-table bench NAME|all``: run a benchmark and print its figures."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import assistant.bench as benches


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(benches.__path__) if not m.name.startswith("_"))


def register(sub) -> None:
    p = sub.add_parser("bench", help="run a benchmark and print its figures (medians, ratios)",
                       description=f"Benchmarks: {', '.join(available()) or '(none yet)'}, or all.")
    p.add_argument("name", metavar="NAME|all")
    p.add_argument("args", nargs=argparse.REMAINDER, help="options passed to the benchmark")
    p.set_defaults(run=run)


def run(args) -> int:
    names = available() if args.name == "all" else [args.name]
    for name in names:
        if name not in available():
            raise ValueError(f"bench: no benchmark {name!r} (known: {', '.join(available()) or 'none'})")
    status = 0
    for name in names:
        print(f"== bench {name}")
        status |= importlib.import_module(f"assistant.bench.{name}").main(list(args.args))
    return status
