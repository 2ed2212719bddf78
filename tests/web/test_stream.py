"""The live picture stream (``/live.mjpg``) with several viewers: one viewer leaving does not end the others'."""

from __future__ import annotations

import asyncio

import aiohttp
import numpy as np

from assistant.web import Hub
from assistant.web.hub import Seen
from assistant.web.server import WebServer


def test_a_viewer_leaving_does_not_stop_the_others_pictures():
    hub = Hub()
    frame = np.full((480, 640, 3), 90, np.uint8)
    hub.seen = Seen(0, frame, [], True)
    server = WebServer(hub, "127.0.0.1", 0).start()

    async def pictures(stream, n: int) -> int:
        seen = 0
        async for chunk in stream.content.iter_any():
            seen += chunk.count(b"Content-Type: image/jpeg")
            if seen >= n:
                break
        return seen

    async def scenario() -> int:
        async with aiohttp.ClientSession() as session:
            staying = await session.get(server.url + "live.mjpg")
            leaving = await session.get(server.url + "live.mjpg")
            await asyncio.wait_for(asyncio.gather(pictures(staying, 1), pictures(leaving, 1)), 10)
            leaving.close()  # while both wait for the next picture
            await asyncio.sleep(0.5)
            for k in range(1, 4):  # new frames from the camera
                hub.seen = Seen(k, frame, [], True)
                await asyncio.sleep(0.3)
            return await asyncio.wait_for(pictures(staying, 2), 10)

    try:
        assert asyncio.run(scenario()) >= 2
    finally:
        server.stop()
