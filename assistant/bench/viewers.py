"""Viewers of the table's page for ``bench live --viewers N``, in a process of their own (as phones would be
other machines): each keeps the pushed updates (``/events``) and the live picture stream (``/live.mjpg``) open.

``python -m assistant.bench.viewers URL N`` runs until its standard input closes, then prints one JSON line:
``{"viewers": N, "pictures": [per viewer], "bytes": total, "errors": n}``.
"""

from __future__ import annotations

import asyncio
import json
import sys

import aiohttp


async def viewer(session: aiohttp.ClientSession, url: str, tally: dict, k: int) -> None:
    """One viewer of the live page: its pushed updates and its picture stream, both read to the end."""

    async def updates() -> None:
        async with session.get(url + "events") as stream:
            async for _ in stream.content.iter_any():
                pass

    async def pictures() -> None:
        async with session.get(url + "live.mjpg") as stream:
            async for chunk in stream.content.iter_any():
                tally["pictures"][k] += chunk.count(b"Content-Type: image/jpeg")
                tally["bytes"] += len(chunk)

    try:
        await asyncio.gather(updates(), pictures())
    except (TimeoutError, aiohttp.ClientError):
        tally["errors"] += 1


async def main(url: str, n: int) -> dict:
    tally = {"viewers": n, "pictures": [0] * n, "bytes": 0, "errors": 0}
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        tasks = [asyncio.create_task(viewer(session, url, tally, k)) for k in range(n)]
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the bench is done
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return tally


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], int(sys.argv[2])))), flush=True)
