"""Requests the page must refuse (aiohttp's test client against the real routes): each gets a 4xx with one
clear line, and nothing in the game changes."""

from __future__ import annotations

import asyncio
import io
import json

import cv2
import numpy as np
import pytest
from aiohttp import FormData
from aiohttp.test_utils import TestClient, TestServer

from assistant.live.boards import Boards
from assistant.live.outputs import Outputs
from assistant.live.pipeline import Pipeline
from assistant.table import make_mode
from assistant.web import Hub
from assistant.web.server import App
from calibration.layout import load_layout

CHANGE = {"X-Alchemy-Table": "1"}


@pytest.fixture
def hub():
    layout = load_layout("alchemists")
    hub = Hub(pin="246810")
    pipeline = Pipeline("alchemists", make_mode("alchemists", layout, {"code": "YYXX"}), Boards.single(layout),
                        Outputs.simulated(), on_step=hub.on_step)
    hub.attach(pipeline)
    pipeline.start()
    return hub


def test_the_pin_is_shown_on_the_table_display_only(hub):
    async def scenario(client):
        shown = await client.post("/api/show-pin", headers=CHANGE)
        return await shown.text(), await (await client.get("/display.png")).read()

    outputs = hub.pipeline.outputs
    game_screen, before = outputs.screen, outputs.display.image.tobytes()
    text, mirror_before = run(hub, scenario)
    hub.service(outputs)  # the loop's thread, at its next frame
    assert outputs.display.image.tobytes() != before and outputs.screen is game_screen
    assert hub.pin not in text and hub.pin not in json.dumps(hub.status(unlocked=True))
    _, mirror_after = run(hub, lambda client: _display(client))
    assert mirror_after == mirror_before  # the page's mirror still shows the game's screen


async def _display(client):
    return None, await (await client.get("/display.png")).read()


def run(hub, scenario):
    async def go():
        async with TestClient(TestServer(App(hub).make())) as client:
            return await scenario(client)
    return asyncio.run(go())


async def refused(response, status: int, words: str) -> str:
    assert response.status == status, await response.text()
    error = (await response.json())["error"]
    assert words in error and "\n" not in error
    return error


def unchanged(hub, before: dict) -> None:
    after = hub.status()
    assert hub.poll() == []
    assert {k: after[k] for k in ("steps", "events", "screen", "players")} == \
        {k: before[k] for k in ("steps", "events", "screen", "players")}


def test_wrong_pin_missing_pin_and_forged_requests_change_nothing(hub):
    before = hub.status()

    async def scenario(client):
        await refused(await client.post("/api/unlock", json={"pin": "000000"}, headers=CHANGE), 403, "wrong PIN")
        await refused(await client.post("/api/press", json={"command": "next"}, headers=CHANGE), 401,
                      "needs the table's PIN")
        # the PIN holder's cookie is not enough without the page's own header, nor from another site's page
        assert (await client.post("/api/unlock", json={"pin": "246810"}, headers=CHANGE)).status == 200
        await refused(await client.post("/api/press", json={"command": "next"}), 403, "X-Alchemy-Table")
        await refused(await client.post("/api/press", json={"command": "next"},
                                        headers={**CHANGE, "Origin": "http://evil.example"}), 403, "another site")
        await refused(await client.post("/api/press", json={"command": "explode"}, headers=CHANGE), 400,
                      "command: expected one of")
        await refused(await client.post("/api/press", data=b"{not json", headers=CHANGE), 400, "not JSON")
        await refused(await client.post("/api/setup/teleport", json={}, headers=CHANGE), 404, "no set-up step")
        await refused(await client.post("/api/setup/corners", json={"layout": "alchemists", "points": [[1, 2]]},
                                        headers=CHANGE), 409, "no frame from the camera")

    run(hub, scenario)
    unchanged(hub, before)


def test_too_many_wrong_pins_wait(hub):
    async def scenario(client):
        for _ in range(5):
            await refused(await client.post("/api/unlock", json={"pin": "1"}, headers=CHANGE), 403, "wrong PIN")
        await refused(await client.post("/api/unlock", json={"pin": hub.pin}, headers=CHANGE), 429, "wait a minute")

    run(hub, scenario)


def test_players_need_their_own_token_and_see_only_their_own_page(hub):
    before = hub.status()

    async def scenario(client):
        await refused(await client.get("/api/player"), 401, "join the game")
        await refused(await client.post("/api/players/join", json={"name": "Ada", "code": "123456"},
                                        headers=CHANGE), 403, "join code: wrong or expired")
        code = hub.players.new_code()
        joined = await client.post("/api/players/join", json={"name": "Ada", "code": code}, headers=CHANGE)
        assert joined.status == 200
        cookie = joined.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and code not in cookie
        await refused(await client.post("/api/players/join", json={"name": "Bea", "code": code}, headers=CHANGE),
                      403, "join code: wrong or expired")  # a code is good for one join
        assert (await client.get("/api/players/Ada")).status == 200
        await refused(await client.get("/api/players/Bea"), 403, "own results only")
        await refused(await client.post("/api/player/scan"), 403, "X-Alchemy-Table")

    run(hub, scenario)
    assert hub.status()["players"] == ["Ada"] and hub.players.scanner_name() is None
    unchanged(hub, {**before, "players": ["Ada"]})


def test_referee_refuses_a_malformed_upload(hub):
    before = hub.status()

    async def scenario(client):
        await client.post("/api/unlock", json={"pin": hub.pin}, headers=CHANGE)
        players = json.dumps({"players": [{"name": "A", "school": "grey", "fame": 3, "screen": {}}]})
        form = FormData()
        form.add_field("endgame", players)
        form.add_field("photo", io.BytesIO(b"GIF89a not a photo at all"), filename="reserve.jpg",
                       content_type="image/jpeg")
        await refused(await client.post("/api/referee", data=form, headers=CHANGE), 400, "photo: not a picture")
        form = FormData()
        form.add_field("endgame", "{players: oops")
        await refused(await client.post("/api/referee", data=form, headers=CHANGE), 400, "players: not valid JSON")
        await refused(await client.post("/api/referee", json={}, headers=CHANGE), 400, "multipart/form-data")

    run(hub, scenario)
    unchanged(hub, before)


def test_nothing_secret_in_the_shared_status(hub):
    async def scenario(client):
        await client.post("/api/unlock", json={"pin": hub.pin}, headers=CHANGE)
        return await (await client.get("/api/status")).text()

    text = run(hub, scenario)
    assert hub.pin not in text and "YYXX" not in text


def test_referee_asks_every_tray_of_a_photo_without_the_board_in_the_form(hub):
    async def scenario(client):
        await client.post("/api/unlock", json={"pin": hub.pin}, headers=CHANGE)
        form = FormData()
        form.add_field("endgame", json.dumps({"players": [{"name": "A", "school": "grey", "fame": 3, "screen": {}},
                                                          {"name": "B", "school": "blue", "fame": 5, "screen": {}}]}))
        _, dark = cv2.imencode(".png", np.zeros((480, 640, 3), np.uint8))
        form.add_field("photo", io.BytesIO(dark.tobytes()), filename="dark.png", content_type="image/png")
        response = await client.post("/api/referee", data=form, headers=CHANGE)
        assert response.status == 200
        return await response.json()

    asked = run(hub, scenario)
    assert asked["ask"] == ["grey", "blue", "orange", "yellow", "green"] and "result" not in asked
    assert asked["message"] == ("the photo: the table's markers are not in the photo; count the trays by hand and "
                                "type them below")


def test_choosing_the_game_needs_the_wheel_of_run_and_one_of_its_games(hub):
    before = hub.status()

    async def scenario(client):
        await refused(await client.post("/api/setup/game", json={"game": "chaudron"}, headers=CHANGE), 401,
                      "needs the table's PIN")
        await client.post("/api/unlock", json={"pin": hub.pin}, headers=CHANGE)
        await refused(await client.post("/api/setup/game", json={"game": "chaudron"}, headers=CHANGE), 409,
                      "choosing the game needs 'alchemy-table run'")
        hub.wheel = ("alchimiste", "chaudron", "alchymia", "alchemists")  # as run sets it
        await refused(await client.post("/api/setup/game", json={"game": "chess"}, headers=CHANGE), 400,
                      "game: expected one of alchimiste, chaudron")
        pick = {"game": "chaudron", "layouts": ["chaudron"]}
        await refused(await client.post("/api/setup/layouts", json=pick), 403, "X-Alchemy-Table header")
        await refused(await client.post("/api/setup/layouts", json=pick, headers=CHANGE), 409,
                      "choosing layouts needs 'alchemy-table run'")
        hub.picked_layouts = {}
        for layouts in (["alchymia-crystals"], ["chaudron", "../chaudron"], [], "chaudron"):
            answer = await client.post("/api/setup/layouts", json={"game": "chaudron", "layouts": layouts},
                                       headers=CHANGE)
            await refused(answer, 400, "layout")
        assert hub.picked_layouts == {}

    run(hub, scenario)
    unchanged(hub, before)
