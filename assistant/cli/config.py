"""``alchemy-table config show``: the resolved configuration and where each value came from."""

from __future__ import annotations

import json

from assistant.config import add_arguments, from_args, system_path_default, user_path_default


def register(sub) -> None:
    p = sub.add_parser("config", help="show the resolved configuration and where each value came from",
                       description="The configuration is read from /etc/alchemy-table/config.toml, then "
                                   "~/.config/alchemy-table/config.toml, then the command-line flags.")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="print every setting with its value and origin")
    show.add_argument("--json", action="store_true", help="print as JSON")
    add_arguments(show)
    show.set_defaults(run=run_show)


def run_show(args) -> int:
    config = from_args(args)
    if args.json:
        values = {key: {"value": value, "from": config.origin(key)} for key, value in config.values.items()}
        print(json.dumps({"files": list(config.files), "settings": values}, indent=2, ensure_ascii=False))
        return 0
    searched = [str(system_path_default()), str(user_path_default()), *args.config]
    print("# files, in order (later wins):")
    for path in searched:
        print(f"#   {path}{'' if path in config.files else '  (absent)'}")
    print()
    print(config.as_toml(), end="")
    return 0
