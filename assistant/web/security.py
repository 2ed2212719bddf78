"""Who may change the game: the holder of the table's PIN (a session cookie), and each Alchemists player
(their own token cookie). Viewing is open.

- Both cookies are HttpOnly (no script reads them) and SameSite=Strict (no other site's page sends them).
- Every request that changes something is a POST carrying the ``X-Alchemy-Table`` header: a page of another
  origin cannot add it without a CORS preflight, which this server never grants; an ``Origin`` other than the
  page's own is refused too.
- Wrong PINs are counted: after ``MAX_TRIES`` within a minute, unlocking waits (429).
- Nothing secret travels in a URL, and the server keeps no access log.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time

from aiohttp import web

SESSION_COOKIE = "table_session"
PLAYER_COOKIE = "table_player"
CSRF_HEADER = "X-Alchemy-Table"
MAX_TRIES = 5
TRY_WINDOW_S = 60.0


def refuse(status: int, message: str) -> web.HTTPException:
    """A 4xx with one clear line, as JSON (``{"error": ...}``)."""
    cls = {400: web.HTTPBadRequest, 401: web.HTTPUnauthorized, 403: web.HTTPForbidden, 404: web.HTTPNotFound,
           409: web.HTTPConflict, 429: web.HTTPTooManyRequests}[status]
    return cls(text=json.dumps({"error": message}), content_type="application/json")


class Sessions:
    """The PIN holders' sessions (hashes of their cookies) and the count of wrong PINs."""

    def __init__(self):
        self._lock = threading.Lock()
        self._sessions: set[bytes] = set()
        self._wrong: list[float] = []

    def open(self) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._sessions.add(_digest(token))
        return token

    def close(self, token: str | None) -> None:
        if token:
            with self._lock:
                self._sessions.discard(_digest(token))

    def valid(self, token: str | None) -> bool:
        if not token:
            return False
        digest = _digest(token)
        with self._lock:
            return any(hmac.compare_digest(digest, s) for s in self._sessions)

    def may_try(self) -> bool:
        now = time.monotonic()
        with self._lock:
            self._wrong = [t for t in self._wrong if t > now - TRY_WINDOW_S]
            return len(self._wrong) < MAX_TRIES

    def wrong(self) -> None:
        with self._lock:
            self._wrong.append(time.monotonic())


def check_post(request: web.Request) -> None:
    """The CSRF rule for every request that changes something."""
    if request.headers.get(CSRF_HEADER) != "1":
        raise refuse(403, f"refused: a request that changes the table needs the {CSRF_HEADER} header (send it "
                          f"from the table's own page)")
    origin = request.headers.get("Origin")
    if origin and origin.split("://", 1)[-1] != request.host:
        raise refuse(403, "refused: this request comes from another site's page")


def set_cookie(response: web.StreamResponse, name: str, value: str) -> None:
    response.set_cookie(name, value, httponly=True, samesite="Strict", path="/")


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()
