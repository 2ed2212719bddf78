"""The referee's page, served by the hub (aiohttp): everything it needs ships in the package, no CDN.

==========================  ==============================================================================
``/``                       the page: every table at a glance, the standings, one table's log when chosen
``/api/tables``             every table in one line (JSON)
``/api/tables/{table}``     one table's full event log (``?game=GAME_ID`` for an earlier game)
``/api/standings``          the players of every table, ranked within each game
``/api/feed?after=N``       the events kept after feed index N; waits up to 25 s for one (the page's push)
``/results.csv``            the finished games, one line per player
==========================  ==============================================================================
"""

from __future__ import annotations

import asyncio
import contextlib
from importlib import resources

from aiohttp import web

from assistant.tournament.hub import Hub

STATIC = ("hub.html", "hub.js", "hub.css")
TYPES = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
WAIT_S = 25.0
HUB = web.AppKey("hub", Hub)


def make_app(hub: Hub) -> web.Application:
    app = web.Application()
    app[HUB] = hub
    changed = asyncio.Event()

    async def wire(app: web.Application) -> None:
        loop = asyncio.get_running_loop()
        hub.on_change(lambda: loop.call_soon_threadsafe(changed.set))

    async def closing(app: web.Application) -> None:
        closed.set()
        changed.set()  # the long polls answer now rather than hold the shutdown

    app.on_startup.append(wire)
    app.on_shutdown.append(closing)
    closed = asyncio.Event()
    files = {name: (resources.files("assistant.tournament") / "static" / name).read_bytes() for name in STATIC}

    def static(name: str):
        async def handler(request: web.Request) -> web.Response:
            return web.Response(body=files[name], content_type=TYPES[name.rsplit(".", 1)[1]], charset="utf-8")
        return handler

    async def tables(request: web.Request) -> web.Response:
        return web.json_response({"tables": hub.glance(), "rejected": hub.rejected})

    async def table(request: web.Request) -> web.Response:
        found = hub.table(request.match_info["table"], request.query.get("game"))
        if found is None:
            raise web.HTTPNotFound(text=f"no table {request.match_info['table']!r} in this tournament")
        return web.json_response(found)

    async def standings(request: web.Request) -> web.Response:
        return web.json_response({"standings": hub.standings()})

    async def feed(request: web.Request) -> web.Response:
        try:
            after = int(request.query.get("after", "0"))
        except ValueError:
            raise web.HTTPBadRequest(text="after: expected a whole number") from None
        deadline = asyncio.get_running_loop().time() + WAIT_S
        while True:
            changed.clear()  # cleared before looking: a change after this look wakes the wait below
            upto, events = hub.feed_after(after)
            left = deadline - asyncio.get_running_loop().time()
            if events or left <= 0 or closed.is_set():
                return web.json_response({"next": upto, "events": events})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), left)

    async def results(request: web.Request) -> web.Response:
        return web.Response(text=hub.results_csv(), content_type="text/csv", charset="utf-8",
                            headers={"Content-Disposition": 'attachment; filename="results.csv"'})

    app.router.add_get("/", static("hub.html"))
    app.router.add_get("/hub.js", static("hub.js"))
    app.router.add_get("/hub.css", static("hub.css"))
    app.router.add_get("/api/tables", tables)
    app.router.add_get("/api/tables/{table}", table)
    app.router.add_get("/api/standings", standings)
    app.router.add_get("/api/feed", feed)
    app.router.add_get("/results.csv", results)
    return app


class Served:
    """The page served on a thread of its own (the bench, the tests): ``url`` once started."""

    def __init__(self, hub: Hub, host: str = "127.0.0.1", port: int = 0):
        import threading

        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.url = ""
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._serve, args=(hub, host, port), name="hub-page", daemon=True)
        self._thread.start()
        if not self._ready.wait(10) or not self.url:
            raise RuntimeError("the hub's page did not start")

    def _serve(self, hub: Hub, host: str, port: int) -> None:
        asyncio.set_event_loop(self.loop)

        async def start() -> None:
            self._runner = web.AppRunner(make_app(hub), shutdown_timeout=1.0)  # not a long poll's 25 s
            await self._runner.setup()
            site = web.TCPSite(self._runner, host, port)
            await site.start()
            bound = self._runner.addresses[0]
            self.url = f"http://{bound[0]}:{bound[1]}"

        try:
            self.loop.run_until_complete(start())
        finally:
            self._ready.set()
        self.loop.run_forever()

    def close(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
