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
import threading
import time
from pathlib import Path
from typing import Any

CONNECT_S = 20.0


def thread_cpu(native_id: int) -> float:
    """CPU seconds a thread of this process has used (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds another process has used (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_cpu() -> float:
    """CPU seconds used so far by the page's threads (the server's event loop and the picture encoder)."""
    return sum(thread_cpu(t.native_id) for t in threading.enumerate()
               if t.name == "web" or t.name.startswith("web-jpeg"))


def compare(session: Any, folder: Path, viewers: int, repeat: int) -> dict[str, Any]:
    from assistant.sessions.play import play_session
    from assistant.web import Hub
    from assistant.web.server import WebServer

    alone, watched, pictures, encoded = [], [], [], []
    # CPU ms per frame of the loop's thread; cores of the page's threads and of the viewers' process
    loop_alone, loop_watched, page, clients = [], [], [], []
    main = threading.main_thread().native_id
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(max(1, repeat)):
            t0, c0 = time.perf_counter(), thread_cpu(main)
            played = play_session(session, folder, Path(tmp) / f"alone{k}", pictures=False)
            alone.append(played.replayed.frames / (time.perf_counter() - t0))
            loop_alone.append(1000 * (thread_cpu(main) - c0) / played.replayed.frames)
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
                t0, c0, s0, v0 = time.perf_counter(), thread_cpu(main), server_cpu(), process_cpu(child.pid)
                played = play_session(session, folder, Path(tmp) / f"watched{k}", pictures=False, web=hub)
                took = time.perf_counter() - t0
                watched.append(played.replayed.frames / took)
                encoded.append(server.app.frames.encoded / took)
                loop_watched.append(1000 * (thread_cpu(main) - c0) / played.replayed.frames)
                page.append((server_cpu() - s0) / took)
                clients.append((process_cpu(child.pid) - v0) / took)
            finally:
                out, _ = child.communicate("", timeout=30)
                server.stop()
            tally = json.loads(out.strip().splitlines()[-1])
            pictures.append(sum(tally["pictures"]) / viewers)
    middle = statistics.median
    return {"frames": played.replayed.frames, "alone": middle(alone), "watched": middle(watched),
            "ratio": middle(watched) / middle(alone), "pictures": middle(pictures), "encoded_fps": middle(encoded),
            "viewers": viewers, "runs": len(alone), "load": os.getloadavg()[0],
            "loop_ms_alone": middle(loop_alone), "loop_ms_watched": middle(loop_watched),
            "server_cores": middle(page), "viewer_cores": middle(clients)}


def print_comparison(game: str, r: dict[str, Any]) -> None:
    ms_ratio = r["loop_ms_watched"] / r["loop_ms_alone"]
    print(f"{game:<11} {r['frames']:>6} {r['alone']:>9.1f} {r['watched']:>12.1f} {r['ratio']:>6.2f} "
          f"{r['loop_ms_alone']:>14.1f} {r['loop_ms_watched']:>16.1f} {ms_ratio:>9.2f} "
          f"{r['server_cores']:>12.3f} {r['viewer_cores']:>14.3f} {r['encoded_fps']:>10.1f} {r['pictures']:>15.0f} "
          f"{r['load']:>5.1f}")


HEADER = (f"{'game':<11} {'frames':>6} {'fps alone':>9} {'fps watched':>12} {'ratio':>6} {'loop ms alone':>14} "
          f"{'loop ms watched':>16} {'ms ratio':>9} {'page cores':>12} {'viewers cores':>14} {'pictures/s':>10} "
          f"{'pictures/viewer':>15} {'load':>5}")
FOOTNOTE = ("loop ms: CPU time of the loop's thread per frame; page cores: CPU of the page's threads (server and "
            "encoder) per second of loop; viewers cores: CPU of the viewers' process (on a table it is the phones'), "
            "taken from the same cores here")
