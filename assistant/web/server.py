"""The aiohttp server of the table's page, in a thread of its own beside the live loop.

Pages (``templates/``, plain HTML with the scripts and styles of ``static/``; nothing from a CDN):
``/`` live view, ``/game`` the game and its buttons, ``/setup`` the set-up wizard, ``/referee`` the Alchimiste
referee, ``/player`` an Alchemists player's own page. Updates are pushed on ``/events`` (server-sent events):
``status`` (the game as :meth:`Hub.status` tells it) and ``frame`` (the light, and why the board is not
found); the live picture itself is a stream, ``/live.mjpg`` (``/live.jpg``: the latest one).

>>> from assistant.web.hub import Hub
>>> server = WebServer(Hub(), "127.0.0.1", 0).start()
>>> server.url.startswith("http://127.0.0.1:")
True
>>> server.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import socket
import string
import threading
from importlib import resources
from typing import Any

from aiohttp import web

from assistant.web import referee, wizard
from assistant.web.frames import BOUNDARY, LiveFrames, give_way, mask_cards
from assistant.web.players import PlayerError
from assistant.web.security import (
    PLAYER_COOKIE,
    SESSION_COOKIE,
    Sessions,
    check_post,
    refuse,
    set_cookie,
)
from hardware.buttons import Command

PAGES = {"/": "live.html", "/game": "game.html", "/setup": "setup.html", "/referee": "referee.html",
         "/player": "player.html"}
# Each page's name in the navigation and its title (the page file holds only its <main>; templates/shell.html the rest).
PAGE_NAMES = {"/": ("Live", "Live view"), "/game": ("Game", "Game"), "/setup": ("Set-up", "Set-up"),
              "/referee": ("Referee", "Referee"), "/player": ("Player", "Player")}
MAX_UPLOAD = 16 * 1024 * 1024
KEEP_ALIVE_S = 15.0
STATUS_GAP_S = 0.1  # at most ten pushed statuses a second: the newest holds every event since the last one


def parse_listen(text: str | int) -> tuple[str, int]:
    """``PORT`` or ``HOST:PORT`` (``[::1]:PORT`` for IPv6); ValueError with what is wrong."""
    text = str(text).strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "0.0.0.0", text
    host = host.strip("[]") or "0.0.0.0"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--web {text}: expected PORT or HOST:PORT (a port 0..65535)")
    return host, int(port)


def _template(name: str) -> str:
    return (resources.files("assistant.web") / "templates" / name).read_text(encoding="utf-8")


@functools.cache
def _page_html(path: str) -> str:
    """The whole page at ``path``: the shell (head, navigation, scripts) around the page's own <main>."""
    nav = "".join(f'<a href="{p}" class="here" aria-current="page">{label}</a>' if p == path
                  else f'<a href="{p}">{label}</a>' for p, (label, _) in PAGE_NAMES.items())
    name = PAGES[path]
    return string.Template(_template("shell.html")).substitute(
        title=PAGE_NAMES[path][1], nav=nav, main=_template(name), script=name.removesuffix(".html"))


class App:
    """The routes over one hub."""

    def __init__(self, hub: Any):
        self.hub = hub
        self.sessions = Sessions()
        self.frames = LiveFrames(hub)
        self.subscribers: set[asyncio.Queue] = set()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._status_due = False      # a pushed status is on its way
        self._status_pushed = -STATUS_GAP_S
        self._tasks: list[asyncio.Task] = []

    def make(self) -> web.Application:
        app = web.Application(client_max_size=MAX_UPLOAD)
        r = app.router
        for path in PAGES:
            r.add_get(path, self._page(path))
        r.add_static("/static", str(resources.files("assistant.web") / "static"))
        r.add_get("/events", self.events)
        r.add_get("/live.jpg", self.live_jpg)
        r.add_get("/live.mjpg", self.live_mjpg)
        r.add_get("/display.png", self.display_png)
        r.add_get("/api/status", self.status)
        r.add_post("/api/unlock", self.unlock)
        r.add_post("/api/lock", self.lock)
        r.add_post("/api/show-pin", self.show_pin)
        r.add_post("/api/press", self.press)
        r.add_post("/api/players/code", self.join_code)
        r.add_post("/api/players/join", self.join)
        r.add_get("/api/player", self.player)
        r.add_get("/api/players/{name}", self.player_named)
        r.add_post("/api/player/scan", self.scan)
        r.add_get("/api/setup/layouts", self.setup_layouts)
        r.add_post("/api/setup/layouts", self.setup_pick_layouts)
        r.add_post("/api/setup/game", self.setup_game)  # before /api/setup/{step}: routes match in order
        r.add_get("/setup/frame.jpg", self.setup_frame)
        r.add_get("/setup/guide.jpg", self.setup_guide)
        r.add_post("/api/setup/{step}", self.setup_step)
        r.add_post("/api/referee", self.referee)
        app.on_startup.append(self._startup)
        app.on_cleanup.append(self._cleanup)
        return app

    # -- life ---------------------------------------------------------------------------------------

    async def _startup(self, app: web.Application) -> None:
        self.loop = asyncio.get_running_loop()
        self._tasks.append(asyncio.create_task(self.frames.run(self.publish)))
        self._tasks.append(asyncio.create_task(self._keep_alive()))

        def wake(what: str) -> None:  # any thread (the loop's: after each answer of the table)
            if self._status_due or self.loop is None or self.loop.is_closed():
                return  # a push already on its way takes this answer too (the loop's thread pays nothing)
            self._status_due = True
            with contextlib.suppress(RuntimeError):  # the loop closing
                self.loop.call_soon_threadsafe(self._status_changed)

        self.hub.watch(wake)

    async def _cleanup(self, app: web.Application) -> None:
        for task in self._tasks:
            task.cancel()
        self.frames.close()

    def _status_changed(self) -> None:
        """The game changed: push the status now, or (after a push less than ``STATUS_GAP_S`` ago) once at the
        end of the gap for all the answers in between. A loop answering every frame does not cost every viewer
        a write every frame, and no answer waits more than the gap."""
        self._status_due = True
        wait = self._status_pushed + STATUS_GAP_S - self.loop.time()
        if wait > 0:
            self.loop.call_later(wait, self._push_status)
        else:
            self._push_status()

    def _status_soon(self) -> None:
        """The same from the server's own thread (a player joined or is at the scanner)."""
        if not self._status_due:
            self._status_changed()

    def _push_status(self) -> None:
        self._status_due = False
        self._status_pushed = self.loop.time()
        self.publish("status", None)

    async def _keep_alive(self) -> None:
        """A comment to every open ``/events`` now and then, so that proxies and phones keep it open."""
        while True:
            await asyncio.sleep(KEEP_ALIVE_S)
            self._broadcast(b": still here\n\n")

    def publish(self, kind: str, data: Any) -> None:
        """To every open ``/events``: ``data``, or the status when None, made once for all (a pushed status is
        the same for every viewer: it cannot tell who holds the PIN)."""
        if self.subscribers:
            self._broadcast(_event(kind, self.hub.status(None) if data is None else data))

    def _broadcast(self, data: bytes) -> None:
        for q in list(self.subscribers):
            if q.full():  # a slow viewer: it gets the latest news, not every one
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(data)

    # -- who is asking --------------------------------------------------------------------------------

    def unlocked(self, request: web.Request) -> bool:
        return self.sessions.valid(request.cookies.get(SESSION_COOKIE))

    def require_pin(self, request: web.Request) -> None:
        if request.method == "POST":
            check_post(request)
        if not self.unlocked(request):
            raise refuse(401, "this needs the table's PIN: press 'Show the PIN' and type the PIN the table's "
                              "display shows")

    def require_player(self, request: web.Request):
        player = self.hub.players.by_token(request.cookies.get(PLAYER_COOKIE))
        if player is None:
            raise refuse(401, "no player here: join the game with the code the table's display shows")
        return player

    async def json_body(self, request: web.Request) -> dict[str, Any]:
        try:
            data = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise refuse(400, "the request's body is not JSON") from None
        if not isinstance(data, dict):
            raise refuse(400, "the request's body must be a JSON object")
        return data

    # -- pages and pushes ------------------------------------------------------------------------------

    def _page(self, path: str):
        async def page(request: web.Request) -> web.Response:
            return web.Response(text=_page_html(path), content_type="text/html",
                                headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                         "Referrer-Policy": "no-referrer",
                                         "Content-Security-Policy": "default-src 'self'; img-src 'self' data: "
                                                                    "blob:; frame-ancestors 'none'"})
        return page

    async def events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"})
        await response.prepare(request)
        unlocked = None  # a stream keeps the cookies it opened with: the page asks /api/status for that
        queue: asyncio.Queue = asyncio.Queue(maxsize=16)
        self.subscribers.add(queue)
        try:
            await response.write(_event("status", self.hub.status(unlocked)))
            latest = self.frames.latest
            if latest is not None:
                await response.write(_event("frame", {"n": latest.index, "light": latest.light, "why": latest.why}))
            while True:  # no timer of its own: the keep-alive comes through the queue like the news
                await response.write(await queue.get())
        except ConnectionResetError:  # the viewer left
            pass
        finally:
            self.subscribers.discard(queue)
        return response

    async def live_mjpg(self, request: web.Request) -> web.StreamResponse:
        """The live picture as a stream (multipart/x-mixed-replace, what an ``<img>`` shows as video): each
        picture is written as it is, the same bytes to every viewer."""
        response = web.StreamResponse(headers={"Content-Type": "multipart/x-mixed-replace; boundary="
                                                               + BOUNDARY.decode(), "Cache-Control": "no-store"})
        await response.prepare(request)
        await response.write(b"--%s\r\n" % BOUNDARY)
        self.frames.viewers += 1
        try:
            if self.frames.latest is not None:
                await response.write(self.frames.latest.part)
            while True:  # a viewer still writing when a picture comes gets the one after: the latest, not all
                # shielded: a viewer leaving is cancelled, and must not cancel the picture the others await
                await response.write((await asyncio.shield(self.frames.next())).part)
        except ConnectionResetError:  # the viewer left
            pass
        finally:
            self.frames.viewers -= 1
        return response

    async def live_jpg(self, request: web.Request) -> web.Response:
        latest = await self.frames.refresh(self.publish)
        if latest is None:
            raise refuse(404, "no picture yet: the camera has not given a frame")
        return web.Response(body=latest.jpeg, content_type="image/jpeg", headers={"Cache-Control": "no-store",
                                                                                  "X-Frame": str(latest.index)})

    async def display_png(self, request: web.Request) -> web.Response:
        status = self.hub.status()
        png = await asyncio.get_running_loop().run_in_executor(None, _display_png, self.hub, status["screen"])
        return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "no-store"})

    async def status(self, request: web.Request) -> web.Response:
        return web.json_response(self.hub.status(self.unlocked(request)))

    # -- the PIN ----------------------------------------------------------------------------------------

    async def unlock(self, request: web.Request) -> web.Response:
        check_post(request)
        data = await self.json_body(request)
        if not self.sessions.may_try():
            raise refuse(429, "too many wrong PINs: wait a minute and try again")
        if not self.hub.check_pin(str(data.get("pin", ""))):
            self.sessions.wrong()
            raise refuse(403, "wrong PIN: type the PIN the table's display shows")
        response = web.json_response({"unlocked": True})
        set_cookie(response, SESSION_COOKIE, self.sessions.open())
        return response

    async def lock(self, request: web.Request) -> web.Response:
        check_post(request)
        self.sessions.close(request.cookies.get(SESSION_COOKIE))
        response = web.json_response({"unlocked": False})
        response.del_cookie(SESSION_COOKIE, path="/")
        return response

    async def show_pin(self, request: web.Request) -> web.Response:
        check_post(request)
        self.hub.show_on_display("Table PIN", self.hub.pin)
        return web.json_response({"shown": "the PIN is on the table's display for 30 seconds"})

    async def press(self, request: web.Request) -> web.Response:
        self.require_pin(request)
        data = await self.json_body(request)
        command = data.get("command")
        if command not in {c.value for c in Command}:
            raise refuse(400, f"command: expected one of {', '.join(c.value for c in Command)}")
        self.hub.press(command)
        return web.json_response({"pressed": command})

    # -- Alchemists players ----------------------------------------------------------------------------

    async def join_code(self, request: web.Request) -> web.Response:
        check_post(request)
        try:
            code = self.hub.players.new_code()
        except PlayerError as e:
            raise refuse(409, str(e)) from None
        self.hub.show_on_display("Join the game", f"code {code}", 120.0)
        out: dict[str, Any] = {"shown": "a join code is on the table's display for two minutes"}
        if self.unlocked(request):  # the table's PIN holder may read it out to the players
            out["code"] = code
        return web.json_response(out)

    async def join(self, request: web.Request) -> web.Response:
        check_post(request)
        data = await self.json_body(request)
        try:
            token = self.hub.players.join(str(data.get("name", "")), str(data.get("code", "")))
        except PlayerError as e:
            raise refuse(403 if "code" in str(e).split(":")[0] else 400, str(e)) from None
        self._status_soon()
        response = web.json_response({"joined": " ".join(str(data.get("name")).split())})
        set_cookie(response, PLAYER_COOKIE, token)
        return response

    async def player(self, request: web.Request) -> web.Response:
        player = self.require_player(request)
        page = await asyncio.get_running_loop().run_in_executor(None, self.hub.players.page, player)
        return web.json_response(page)

    async def player_named(self, request: web.Request) -> web.Response:
        player = self.require_player(request)
        if request.match_info["name"].lower() != player.name.lower():
            raise refuse(403, "refused: a player's page shows that player's own results only")
        return await self.player(request)

    async def scan(self, request: web.Request) -> web.Response:
        check_post(request)
        player = self.require_player(request)
        if self.hub.game != "alchemists":
            raise refuse(409, f"the game on the table is {self.hub.game}, not Alchemists")
        self.hub.players.claim(player)
        self._status_soon()
        return web.json_response({"scanning": player.name})

    # -- the set-up wizard -----------------------------------------------------------------------------

    async def setup_layouts(self, request: web.Request) -> web.Response:
        return web.json_response(wizard.layouts(self.hub))

    async def setup_pick_layouts(self, request: web.Request) -> web.Response:
        """The layouts a game is played with, from its next start ("Start this game" or the wheel)."""
        self.require_pin(request)
        body = await self.json_body(request)
        try:
            return web.json_response(wizard.pick_layouts(self.hub, body.get("game"), body.get("layouts")))
        except ValueError as e:
            raise refuse(409 if "needs" in str(e) else 400, str(e)) from None

    async def setup_game(self, request: web.Request) -> web.Response:
        """The game chosen: the game wheel turned to it and confirmed (``run`` only)."""
        self.require_pin(request)
        game = (await self.json_body(request)).get("game")
        try:
            self.hub.turn_wheel_to(str(game))
        except ValueError as e:
            raise refuse(409 if "needs" in str(e) else 400, str(e)) from None
        return web.json_response({"game": game, "started": game != self.hub.game})

    async def setup_frame(self, request: web.Request) -> web.Response:
        self.require_pin(request)
        seen = self._seen()
        private = bool(self.hub.private_zones)
        jpeg = await asyncio.get_running_loop().run_in_executor(  # full size: the corners are clicked on it
            None, lambda: wizard.jpeg(mask_cards(seen.frame, seen.readings) if private else seen.frame))
        return web.Response(body=jpeg, content_type="image/jpeg", headers={"Cache-Control": "no-store"})

    async def setup_guide(self, request: web.Request) -> web.Response:
        self.require_pin(request)
        seen = self._seen()
        layout = request.query.get("layout", "")
        try:
            jpeg = await asyncio.get_running_loop().run_in_executor(None, wizard.guide, self.hub, seen, layout)
        except ValueError as e:
            raise refuse(400, str(e)) from None
        return web.Response(body=jpeg, content_type="image/jpeg", headers={"Cache-Control": "no-store"})

    async def setup_step(self, request: web.Request) -> web.Response:
        self.require_pin(request)
        step = request.match_info["step"]
        if step not in wizard.STEPS:
            raise refuse(404, f"no set-up step {step!r} (steps: {', '.join(wizard.STEPS)})")
        data = await self.json_body(request)
        seen = self._seen()
        try:
            out = await asyncio.get_running_loop().run_in_executor(None, wizard.STEPS[step], self.hub, seen, data)
        except ValueError as e:  # the step's own one-line reason: nothing was stored
            raise refuse(400, str(e)) from None
        return web.json_response(out)

    def _seen(self):
        seen = self.hub.seen
        if seen is None:
            raise refuse(409, "no frame from the camera yet")
        return seen

    # -- the referee ------------------------------------------------------------------------------------

    async def referee(self, request: web.Request) -> web.Response:
        self.require_pin(request)
        if request.content_type not in ("multipart/form-data", "application/x-www-form-urlencoded"):
            raise refuse(400, "the referee takes a form (multipart/form-data): the players, and a photo or "
                              "'use the live frame'")
        form = await request.post()
        fields = {k: v[:100_000] for k, v in form.items() if isinstance(v, str)}
        upload = form.get("photo")
        photo = upload.file.read() if isinstance(upload, web.FileField) else None
        seen = self.hub.seen
        try:
            out = await asyncio.get_running_loop().run_in_executor(None, referee.judge, fields, photo, seen,
                                                                   self.hub)
        except ValueError as e:
            raise refuse(400, str(e)) from None
        return web.json_response(out)


def _event(kind: str, data: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _display_png(hub: Any, described: dict[str, Any] | None) -> bytes:
    from PIL import Image

    from hardware.display.screens import Message
    from hardware.display.screens import render as render_screen

    size, mode = hub.screen_size
    if described and described.get("screen") == "hidden":
        screen = Message(described["title"], described["text"], "info")
    else:
        screen = hub.screen or Message("alchemy-table", "waiting for the game", "info")
    image = render_screen(screen, size, mode).convert("RGB")
    scale = max(1, 384 // image.width)
    image = image.resize((image.width * scale, image.height * scale), Image.NEAREST)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


class WebServer:
    """The server in its own thread and event loop. ``start()`` returns once it listens (OSError if the port
    cannot be had); ``stop()`` closes it."""

    def __init__(self, hub: Any, host: str = "0.0.0.0", port: int = 8080):
        self.hub = hub
        self.host, self.port = host, port
        self.app = App(hub)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/"

    def start(self) -> WebServer:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.create_server((self.host, self.port), family=family, reuse_port=False)
        self.port = sock.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, args=(sock,), name="web", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error is not None:
            raise OSError(f"web page: {self._error}")
        return self

    def _serve(self, sock: socket.socket) -> None:
        give_way()  # on a busy core the loop's thread goes first: its frames, then the viewers' news
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            # a viewer who leaves has its handler cancelled at once (its stream's news no longer queued for it)
            self._runner = web.AppRunner(self.app.make(), access_log=None, shutdown_timeout=1.0,
                                         handler_cancellation=True)
            loop.run_until_complete(self._runner.setup())
            loop.run_until_complete(web.SockSite(self._runner, sock).start())
        except BaseException as e:  # told to start()'s caller
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._runner.cleanup())
        pending = asyncio.all_tasks(loop)  # the viewers' streams still open
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
