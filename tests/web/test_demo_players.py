"""``demo --web``: the Alchemists session waits on its first frame for a player at the scanner, so that players
can join from their phones before its scans are played (at their own pace they are over in seconds)."""

from __future__ import annotations

import threading
import time

from assistant.cli.demo import _players
from assistant.sessions.play import play_session
from assistant.web import Hub
from assistant.web.server import WebServer


def test_the_alchemists_session_waits_for_a_player_at_the_scanner(alchemists_frames, capsys):
    session, rendered = alchemists_frames
    hub = Hub()
    server = WebServer(hub, "127.0.0.1", 0).start()
    played = []
    loop = threading.Thread(target=lambda: played.append(
        play_session(session, rendered.folder, None, pictures=False, web=hub, wait=_players(hub, server.url))))
    try:
        loop.start()
        deadline = time.monotonic() + 60
        while hub.game != "alchemists" or "I am at the scanner" not in capsys.readouterr().out:
            assert time.monotonic() < deadline and loop.is_alive(), "the session never waited for its players"
            time.sleep(0.05)
        time.sleep(0.5)
        assert hub.seen.index == 0 and hub.steps == 1 and loop.is_alive()  # the first frame on the page, no scan
        ada = hub.players.by_token(hub.players.join("Ada", hub.players.new_code()))
        hub.players.claim(ada)  # 'I am at the scanner'
        loop.join(120)
    finally:
        server.stop()
    assert not loop.is_alive() and played
    results = hub.players.page(ada)["results"]
    assert results and "fern + toad" in results[0]["message"]  # the session's first scan went to Ada's page
