"""Starting the page beside a command's loop: ``--web [HOST:]PORT`` of ``run``, ``replay`` and ``demo``."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

from assistant.web.hub import Hub
from assistant.web.server import WebServer, parse_listen

PIN_FILE = "web-pin"


def start(listen: str, hub: Hub, pin_folder: str | Path | None, say: Callable[[str], None]) -> WebServer:
    """Serve ``hub`` on ``listen``; the PIN is written to ``pin_folder/web-pin`` (owner only), never printed."""
    host, port = parse_listen(listen)
    server = WebServer(hub, host, port).start()
    where = ""
    if pin_folder is not None:
        path = Path(pin_folder) / PIN_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(hub.pin + "\n")
        where = f", and in {path} (readable by you only)"
    network = f" (on the network: http://{socket.gethostname()}:{server.port}/)" if host in ("0.0.0.0", "::") else ""
    say(f"web page on {server.url}{network}; its PIN is on the table's display ('Show the PIN'){where}")
    return server
