"""``alchemy-table hub``: the referee's hub of a tournament, and its page (docs/tournament.md)."""

from __future__ import annotations

import sys

from assistant.config import add_arguments, from_args


def register(sub) -> None:
    p = sub.add_parser("hub", help="the referee's hub: every table of a tournament on one page (MQTT)",
                       description="Subscribe to a tournament on its MQTT broker ([tournament] in the "
                                   "configuration: broker, port, name, tls, ca_file, username, password_file) and "
                                   "serve the referee's page: every table at a glance, each table's event log, the "
                                   "standings, the results as CSV.")
    p.add_argument("--tournament", metavar="NAME", help="the tournament (default: tournament.name)")
    p.add_argument("--listen", metavar="HOST", default="0.0.0.0", help="address of the page (default: all)")
    p.add_argument("--port", type=int, default=8090, help="port of the page (default: 8090)")
    add_arguments(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from dataclasses import replace

    from aiohttp import web

    from assistant.tournament.connection import Broker
    from assistant.tournament.hub import Hub
    from assistant.tournament.messages import check_name
    from assistant.tournament.page import make_app

    config = from_args(args)
    broker = Broker.from_config(config.section("tournament"))
    if args.tournament:
        broker = replace(broker, tournament=check_name("name", args.tournament))

    def say(message: str) -> None:
        print(f"alchemy-table: {message}", file=sys.stderr, flush=True)

    hub = Hub(broker, say=say)
    hub.start()
    say(f"hub of {broker.tournament} on {broker.host}:{broker.port}; the page on http://{args.listen}:{args.port}/")
    try:
        web.run_app(make_app(hub), host=args.listen, port=args.port, print=None, access_log=None)
    finally:
        hub.stop()
    return 0
