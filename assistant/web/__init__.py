"""The table's web page: what the camera sees, the game as it goes, the set-up wizard, the referee and the
Alchemists players' own pages, served by the assistant itself (``run``, ``replay`` and ``demo`` with
``--web [HOST:]PORT``; ``web.listen`` in the configuration for the service).

The live loop and the page meet in one object, :class:`~assistant.web.hub.Hub`: the loop hands it each
frame and each answer of the table (``Step``) and polls its on-screen buttons like the physical ones; the
server (``assistant.web.server``, aiohttp) runs in a thread of its own and only reads what the hub was
given. See docs/web.md.
"""

from assistant.web.hub import Hub

__all__ = ["Hub"]
