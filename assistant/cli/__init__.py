"""The ``alchemy-table`` command line.

Each subcommand lives in its own module in this package and exposes ``register(subparsers)``, which adds
its parser and sets ``run=function(args) -> exit code``. Modules are found at start-up, so a new command is
a new file. User errors (``ValueError`` and ``OSError`` with their messages: bad files, bad arguments,
illegal states) print one line and exit 2; set ALCHEMY_TABLE_DEBUG=1 to see the traceback instead.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from assistant import __version__

# Before numpy and OpenCV load their BLAS (OpenBLAS): it wakes a thread per core for the place model's small
# products and leaves them spinning, which on a Pi takes cores from the camera and the page for nothing (the
# reader is single-threaded by design). A user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

PROG = "alchemy-table"


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with a pointer to --help), exit 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> Parser:
    parser = Parser(
        prog=PROG,
        description="Table assistant for alchemy board games: reads the pieces with a camera, checks them "
                    "against the rules, answers on LEDs and a display.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except (ValueError, OSError) as e:
        if os.environ.get("ALCHEMY_TABLE_DEBUG"):
            raise
        print(f"{PROG}: {_one_line(e)}", file=sys.stderr)
        return 2


def _one_line(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename and error.strerror:
        return f"{error.filename}: {error.strerror}"
    return " ".join(str(error).split()) or type(error).__name__
