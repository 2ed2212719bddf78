"""``bench live --viewers N``: the live loop's frames per second with the table's page served to N viewers on
loopback (a process of their own: ``assistant.bench.viewers``), against the loop with no page at all. Runs
alternate (none, watched, none, watched...) so a busy machine weighs on both alike; the medians are compared,
and the machine's load average is printed beside them (on a shared machine it is most of the spread)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CONNECT_S = 20.0


def compare(session: Any, folder: Path, viewers: int, repeat: int) -> dict[str, Any]:
    from assistant.sessions.play import play_session
    from assistant.web import Hub
    from assistant.web.server import WebServer

    alone, watched, pictures, encoded = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(max(1, repeat)):
            t0 = time.perf_counter()
            played = play_session(session, folder, Path(tmp) / f"alone{k}", pictures=False)
            alone.append(played.replayed.frames / (time.perf_counter() - t0))
            hub = Hub()
            server = WebServer(hub, "127.0.0.1", 0).start()
            child = subprocess.Popen([sys.executable, "-m", "assistant.bench.viewers", server.url, str(viewers)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            try:
                deadline = time.monotonic() + CONNECT_S
                while server.app.frames.viewers < viewers:
                    if time.monotonic() > deadline or child.poll() is not None:
                        raise OSError(f"bench: only {server.app.frames.viewers} of {viewers} viewers connected")
                    time.sleep(0.05)
                t0 = time.perf_counter()
                played = play_session(session, folder, Path(tmp) / f"watched{k}", pictures=False, web=hub)
                watched.append(played.replayed.frames / (time.perf_counter() - t0))
                encoded.append(server.app.frames.encoded / (time.perf_counter() - t0))
            finally:
                out, _ = child.communicate("", timeout=30)
                server.stop()
            tally = json.loads(out.strip().splitlines()[-1])
            pictures.append(sum(tally["pictures"]) / viewers)
    middle = statistics.median
    return {"frames": played.replayed.frames, "alone": middle(alone), "watched": middle(watched),
            "ratio": middle(watched) / middle(alone), "pictures": middle(pictures), "encoded_fps": middle(encoded),
            "viewers": viewers, "runs": len(alone), "load": os.getloadavg()[0]}


def print_comparison(game: str, result: dict[str, Any]) -> None:
    print(f"{game:<11} {result['frames']:>6} {result['alone']:>9.1f} {result['watched']:>12.1f} "
          f"{result['ratio']:>6.2f} {result['encoded_fps']:>11.1f} {result['pictures']:>16.0f} {result['load']:>5.1f}")


HEADER = (f"{'game':<11} {'frames':>6} {'fps alone':>9} {'fps watched':>12} {'ratio':>6} {'pictures/s':>11} "
          f"{'pictures/viewer':>16} {'load':>5}")
