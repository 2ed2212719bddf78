"""The page in a real browser: Debian's chromium, headless, driven by Playwright (the system browser as its
executable; ``make test`` installs chromium). Screenshots at phone (390 x 844) and laptop (1280 x 800) sizes
go to ``test-artifacts/``; the latency from a commit to the page is printed."""

from __future__ import annotations

import json
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
SIZES = {"phone": (390, 844), "laptop": (1280, 800)}
WAIT_MS = 30_000  # a shared, loaded machine: the reading and counting behind some steps take seconds

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="needs chromium: apt-get install -y chromium (make test does it as root)")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    for tag, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_timeout(150)
        page.screenshot(path=ARTIFACTS / f"{name}-{tag}.png", full_page=True)


def readme_picture(page, name: str, element: str | None = None) -> None:
    """The README's picture of a page (``docs/img/web-NAME.png`` is a copy, see docs/web.md): a phone's
    screen, scrolled to the section of ``element``."""
    page.set_viewport_size({"width": 390, "height": 844})
    if element is not None:
        page.evaluate(f"document.querySelector({json.dumps(element)}).closest('section').scrollIntoView()")
    page.wait_for_timeout(150)
    page.screenshot(path=ARTIFACTS / f"web-{name}.png")


def unlock(page, pin: str) -> None:
    page.fill("#pin input", pin)
    page.click("#pin [data-do=unlock]")
    page.wait_for_selector("#pin [data-do=lock]", state="visible", timeout=WAIT_MS)


def press(page, table, label: str) -> float:
    """Press an on-screen button and let the loop take it; returns the wall clock of the table's answer."""
    steps = table.hub.steps
    page.click(f"[data-command={label}]")
    deadline = time.monotonic() + 5
    while table.pump() == 0:
        assert time.monotonic() < deadline, f"the {label} press never reached the loop"
        time.sleep(0.005)
    assert table.hub.steps == steps + 1
    return table.hub.commit_time


def wait_steps(page, steps: int) -> float:
    """Wait until the game page shows the answer numbered ``steps``; the wall clock when it showed it."""
    page.wait_for_function(f"document.body.dataset.steps == {steps}", timeout=WAIT_MS)
    return float(page.evaluate("document.body.dataset.shownAt")) / 1000


def join(player_page, game_page, name: str) -> None:
    game_page.click("#join-code")
    game_page.wait_for_function("document.getElementById('join-note').textContent.includes('join code: ')",
                                timeout=WAIT_MS)
    code = game_page.text_content("#join-note").split("join code: ")[1].strip()
    player_page.fill("#name", name)
    player_page.fill("#code", code)
    player_page.click("#join")
    player_page.wait_for_selector(f"#me-name:text('{name}')", timeout=WAIT_MS)
    game_page.wait_for_selector(f"#players:has-text('{name}')", timeout=WAIT_MS)


def results(page) -> str:
    return page.text_content("#results") or ""


def test_game_buttons_and_two_players_over_a_recorded_session(alchemists_table, browser):
    table = alchemists_table
    shared = browser.new_context(bypass_csp=True)  # the test's own probes are evaluated scripts
    game = shared.new_page()
    game.goto(table.url + "game")
    table.feed(3)
    game.wait_for_selector("#events li:has-text('Alchemists (apprentice mode)')", timeout=WAIT_MS)
    unlock(game, table.hub.pin)

    ada_context, bea_context = browser.new_context(bypass_csp=True), browser.new_context(bypass_csp=True)
    ada, bea = ada_context.new_page(), bea_context.new_page()
    for page in (ada, bea):
        page.goto(table.url + "player")
    join(ada, game, "Ada")
    join(bea, game, "Bea")
    game.wait_for_selector("#players:has-text('Ada, Bea')", timeout=WAIT_MS)

    # Ada scans fern and toad: her page has the potion, Bea's and the shared page do not
    ada.click("#scan")
    ada.wait_for_selector("#scan-note:has-text('yours only')", timeout=WAIT_MS)
    table.feed(9)
    ada.wait_for_selector("#results li:has-text('fern + toad')", timeout=WAIT_MS)
    assert "blue-" in results(ada)
    game.wait_for_selector("#events li:has-text(\"the answer is on Ada's page\")", timeout=WAIT_MS)
    assert "fern" not in game.text_content("#events") and "blue-" not in game.text_content("#events")
    assert "fern" not in results(bea) and "nothing scanned yet" in results(bea)
    ada.wait_for_selector("#remaining:has-text('assignments still possible')", timeout=WAIT_MS)
    # the shared state panel says whose answer it was, never what it was
    game.wait_for_selector("#panel tr:has-text('Ada') td:text-is('1')", timeout=WAIT_MS)
    assert "secret until the reveal" in game.text_content("#panel")
    assert "blue" not in game.text_content("#panel") and "fern" not in game.text_content("#panel")

    # the cards taken away; the sale chosen with the page's buttons, as the session's players did with the
    # physical ones
    table.feed(10, scripted=False)
    latencies = []
    for label in ("next", "next", "next", "confirm", "confirm", "confirm", "confirm"):
        committed = press(game, table, label)
        latencies.append(wait_steps(game, table.hub.steps) - committed)
    assert "Sell a potion" in game.get_attribute("#display", "alt")
    print(f"\ncommit -> browser latency over {len(latencies)} presses: median "
          f"{1000 * sorted(latencies)[len(latencies) // 2]:.0f} ms, worst {1000 * max(latencies):.0f} ms "
          f"(target < 300 ms)")

    bea.click("#scan")
    bea.wait_for_selector("#scan-note:has-text('yours only')", timeout=WAIT_MS)
    table.feed(14, scripted=False)
    bea.wait_for_selector("#results li:has-text('sale of red+')", timeout=WAIT_MS)
    assert "mushroom" not in results(ada) and "sale" not in results(ada)
    assert "fern" not in results(bea)
    assert "mushroom" not in game.text_content("#events")
    # a player's page asking for another player's results is refused
    refused = ada.request.get(table.url + "api/players/Bea")
    assert refused.status == 403 and "own results only" in refused.json()["error"]

    # the shared live view masks the scan area
    live = shared.new_page()
    live.goto(table.url)
    live.wait_for_function("document.getElementById('live').naturalWidth > 0", timeout=WAIT_MS)
    picture = cv2.imdecode(np.frombuffer(urllib.request.urlopen(table.url + "live.jpg").read(), np.uint8), 1)
    reading = table.pipeline.boards.last[0]
    zone = table.pipeline.boards.layout.zone("card-left")
    left, top, right, bottom = zone.bounds
    inner = np.array([[[left + 10, top + 10], [right - 10, bottom - 10]]], np.float64)
    (x0, y0), (x1, y1) = cv2.perspectiveTransform(inner, reading.homography)[0] * picture.shape[1] / 1280
    patch = picture[int(min(y0, y1)):int(max(y0, y1)), int(min(x0, x1)):int(max(x0, x1))]
    raw = cv2.resize(table.frames[14], (picture.shape[1], picture.shape[0]))
    raw_patch = raw[int(min(y0, y1)):int(max(y0, y1)), int(min(x0, x1)):int(max(x0, x1))]
    assert patch.size and raw_patch.std() > 3 * patch.std()  # the card's picture is gone, a flat grey is left
    shoot(live, "live")
    shoot(game, "game")
    shoot(ada, "player")
    readme_picture(ada, "player")
    for context in (shared, ada_context, bea_context):
        context.close()


def test_state_panel_of_an_alchimiste_game(recorded_table, browser):
    table = recorded_table("alchimiste")
    context = browser.new_context()
    page = context.new_page()
    page.goto(table.url + "game")
    page.wait_for_selector("#panel :text('waiting for the first reading')", timeout=WAIT_MS)
    while not any(e["message"].startswith("2 adepts") for e in table.hub.events):  # the set-up is read
        table.feed(table.next)
    page.wait_for_selector("#panel tr:has-text('Abigail') >> td:nth-child(3):text-is('0')", timeout=WAIT_MS)
    assert "Fame tiles in the supply1, 2, 3, 4, 5, 6, 7, 8, 9, 10" in page.text_content("#panel dl")
    # pushed as it changes: each creation moves its adept's seal on the fame track and fills its cauldron
    table.feed(len(table.frames) - 1)
    page.wait_for_selector("#panel tr:has-text('Merlin') >> td:nth-child(3):text-is('3')", timeout=WAIT_MS)
    assert [r[:3] for r in cells(page, "Fame track")] == [["Abigail", "purple", "7"], ["Merlin", "black", "3"]]
    cauldrons = cells(page, "Cauldrons")
    assert ["4", "grey + green", "Abigail: 1 blue, 2 orange, tile 7"] in cauldrons
    assert ["10", "yellow + green", "Merlin: 1 grey, 1 blue, tile 3"] in cauldrons
    assert ["7", "blue + green", "open"] in cauldrons  # the illegal potion was never accepted
    assert "Fame tiles in the supply1, 2, 4, 5, 6, 8, 9, 10" in page.text_content("#panel dl")
    assert "school" not in page.text_content("#panel").lower()  # secret until the end
    shoot(page, "game-alchimiste")
    readme_picture(page, "game", "#panel")
    context.close()


def cells(page, caption: str) -> list[list[str]]:
    """The panel table's rows as cell texts, read from the DOM: innerText's tabs depend on layout."""
    rows = page.locator(f"#panel table:has(caption:text('{caption}')) tbody tr")
    return rows.evaluate_all("rows => rows.map(r => Array.from(r.cells, c => c.textContent.trim()))")


def fact(page, label: str) -> str:
    return page.text_content(f"#panel dt:text-is('{label}') + dd") or ""


def test_state_panels_of_chaudron_and_alchymia(session_table, browser):
    """What a player sees of the two other games on the game page, pushed as the table commits and as the
    page's buttons act (the shipped sessions' states fed straight, no camera: fast)."""
    context = browser.new_context()
    page = context.new_page()

    chaudron = session_table("chaudron")
    chaudron.feed(3)
    page.goto(chaudron.url + "game")
    unlock(page, chaudron.hub.pin)
    page.wait_for_selector("#panel dt:text-is('Cramés')", timeout=WAIT_MS)
    assert fact(page, "Cramés") == "0 of 20" and fact(page, "Potions made") == "3 of 7"
    assert cells(page, "Potions revealed") == [["Tempest", "2 of 3"], ["Viper Venom", "1 of 3"]]
    press(page, chaudron, "next")  # the card menu, as the physical button opens it
    page.wait_for_selector("#display[alt*='Card played?']", state="attached", timeout=WAIT_MS)
    chaudron.feed(9)  # Viper Venom's forced concoction: two Cramés
    page.wait_for_selector("#panel dt:text-is('Cramés') + dd:text-is('2 of 20')", timeout=WAIT_MS)
    assert fact(page, "Potions made") == "6 of 7"
    # the verdict as it happens, with its reason; the LED strip mirrored
    page.wait_for_selector("#events li:has-text('forced concoction of Viper Venom (4th cube): 2 missing')",
                           timeout=WAIT_MS)
    assert page.locator("#strip .led").count() == sum(len(c) for c in chaudron.hub.leds.values()) > 0
    chaudron.feed(10)
    page.wait_for_selector("#panel dd:text-is('won')", timeout=WAIT_MS)
    assert fact(page, "Cramés") == "4 of 20"
    shoot(page, "game-chaudron")

    alchymia = session_table("alchymia")
    alchymia.feed(2)  # Basile's turn under way
    page.goto(alchymia.url + "game")
    unlock(page, alchymia.hub.pin)
    page.wait_for_selector("#panel dd:text-is('Basile')", timeout=WAIT_MS)
    assert fact(page, "Turns played") == "1"
    press(page, alchymia, "confirm")  # ends the turn under way, as the physical button does
    page.wait_for_selector("#panel dd:text-is('Cyrielle')", timeout=WAIT_MS)
    assert fact(page, "Turns played") == "2"
    crystals = "#panel table:has(caption:text('Crystals won')) tbody tr"
    assert ["Basile", "0", "none", "5"] in cells(page, "Crystals won")
    alchymia.feed(5)  # Basile completes the time crystal
    page.wait_for_selector(f"{crystals}:has-text('Basile') >> td:nth-child(2):text-is('1')", timeout=WAIT_MS)
    assert ["Basile", "1", "time", "4"] in cells(page, "Crystals won")
    shoot(page, "game-alchymia")
    context.close()


def test_set_up_wizard_end_to_end(board_table, browser, alchemists_table):
    table = board_table  # the camera shows the empty board
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.goto(table.url + "setup")
    assert page.is_hidden("#steps")  # nothing of the set-up without the PIN, from the first paint
    page.wait_for_load_state("networkidle")  # and still nothing once the page has asked the table's status
    assert page.is_hidden("#steps")
    table.hub.wheel = ("alchimiste", "chaudron", "alchymia", "alchemists")  # as `run` sets them
    table.hub.picked_layouts = {}
    unlock(page, table.hub.pin)

    # the game and its layouts chosen: the game wheel set to it and confirmed (tests/web/test_wheel.py has `run`
    # switch games with it and play the layouts chosen)
    page.wait_for_selector("#game-now:text-is('chaudron')", timeout=WAIT_MS)
    page.select_option("#game-choice", "chaudron")
    assert page.locator("#game-layouts input").evaluate_all("(xs) => xs.map((x) => [x.value, x.checked])") == [
        ["chaudron", True], ["chaudron-potions", False]]
    page.check("#game-layouts input[value='chaudron-potions']")
    page.select_option("#game-choice", "alchemists")
    page.click("#start-game")
    page.wait_for_selector("#game-result:has-text('alchemists: starting with alchemists')", timeout=WAIT_MS)
    assert table.hub.chosen() == ["alchemists"] and table.hub.picked_layouts == {"alchemists": ["alchemists"]}
    page.select_option("#layout", "chaudron")

    # the empty board enrolled (as 'calibrate board'): the board as learnt, then the live frame read with it
    page.click("#enrol-board")
    page.wait_for_selector("#board-result :text('Empty board enrolled')", timeout=WAIT_MS)
    result = page.text_content("#board-result")
    assert "Read again with it: 36 of 36 piece places empty." in result
    learnt, reread = page.locator("#board-result img").all()
    assert learnt.get_attribute("alt").startswith("Empty board enrolled")
    assert reread.get_attribute("alt") == "the live frame read again with it"
    for picture in (learnt, reread):
        assert picture.evaluate("(img) => img.complete && img.naturalWidth > 0")
    stored = json.loads(table.hub.calibration_path.read_text())
    assert stored["layout"] == "chaudron" and stored["board"]["png"] and "pieces" not in stored
    shoot(page, "setup-board")

    # the pieces set out as the guide draws them; their colours learnt against the enrolled board
    table.feed(1)
    page.click("#refresh-guide")
    page.wait_for_function("document.getElementById('guide').complete && "
                           "document.getElementById('guide').naturalWidth > 0", timeout=WAIT_MS)
    page.click("#learn")
    page.wait_for_selector("#colours-result :text('colours learnt')", timeout=WAIT_MS)
    page.wait_for_selector("#colours-result img", timeout=WAIT_MS)
    stored = json.loads(table.hub.calibration_path.read_text())
    assert stored["board"]["png"] and stored["pieces"]  # the pieces learnt against the board

    page.wait_for_function("document.getElementById('corners-frame').naturalWidth > 0", timeout=WAIT_MS)
    reading = table.pipeline.boards.last[0]
    w, h = table.pipeline.boards.layout.size
    corners = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64),
                                       reading.homography)[0]
    picture = page.locator("#corners-frame")
    scale = picture.bounding_box()["width"] / table.frames[0].shape[1]
    for x, y in corners:
        picture.click(position={"x": float(x * scale), "y": float(y * scale)})
    page.click("#corners-save")
    page.wait_for_selector("#corners-result :text('Corners stored')", timeout=WAIT_MS)
    assert page.is_visible("#corners-result :text('The board is found with them')")
    page.click("#use")
    page.wait_for_selector("#use-result :text('now reads with')", timeout=WAIT_MS)
    table.pump()  # the loop takes the new calibration at its next frame
    stored = json.loads(table.hub.calibration_path.read_text())
    assert stored["colours"] and len(stored["corners"]) == 4 and stored["board"]
    reader = table.pipeline.boards.boards[0].reader  # the loop reads with what the wizard stored
    assert reader.model.source == "calibration" and reader.locator.corners_px is not None
    assert reader.board_reader is not None  # ... against the enrolled board
    shoot(page, "setup")
    readme_picture(page, "setup", "#step-board")

    # a card enrolled from the card place it lies in, then read again with it
    cards = alchemists_table
    cards.feed(6)  # fern and toad on the scan area
    page.goto(cards.url + "setup")
    unlock(page, cards.hub.pin)  # another table, another PIN
    page.select_option("#layout", "alchemists")
    page.select_option("#card-name", "fern")
    page.select_option("#card-zone", "card-left")
    page.click("#enrol")
    page.wait_for_selector("#card-result :text('fern enrolled from card-left; read again: fern')", timeout=WAIT_MS)
    assert [p.name for p in cards.hub.cards_path.glob("*/*.png")] == ["fern.png"]
    context.close()


def test_referee_from_the_live_frame_and_a_photo_with_a_tray_it_cannot_count(still_table, browser, hand_photo):
    table = still_table("alchimiste", "alchimiste")  # the camera shows 3 cubes in each tray
    context = browser.new_context()
    page = context.new_page()
    page.goto(table.url)  # the live view of the Alchimiste board: every zone outlined, the trays' counts
    deadline = time.monotonic() + WAIT_MS / 1000  # (the page's own CSP forbids wait_for_function's polling)
    while page.locator("#live").evaluate("(img) => img.naturalWidth") == 0:
        assert time.monotonic() < deadline, "the live picture never came"
        page.wait_for_timeout(50)
    readme_picture(page, "live")
    page.goto(table.url + "referee")
    page.click("#judge")
    page.wait_for_selector("#referee-note:has-text(\"needs the table's PIN\")", timeout=WAIT_MS)
    unlock(page, table.hub.pin)
    page.click("#judge")  # the live frame
    page.wait_for_selector("#winners :text('win')", timeout=WAIT_MS)
    assert "grey 3, blue 3, orange 3, yellow 3, green 3" in page.text_content("#counts")
    shoot(page, "referee")

    # a photo with a hand over the orange tray: that tray is asked in the form, nothing is scored meanwhile
    page.check("input[name=source][value=photo]")
    photo, reserve = hand_photo
    page.set_input_files("#photo", str(photo))
    page.click("#judge")
    page.wait_for_selector("#asked input[name=count-orange]", timeout=WAIT_MS)
    assert "orange (hidden: a hand over the tray)" in page.text_content("#referee-note")
    assert page.text_content("#winners") == "" and page.text_content("#counts") == ""
    for field in page.locator("#asked input").all():
        field.fill(str(reserve[field.get_attribute("name").removeprefix("count-")]))
    page.click("#judge")
    page.wait_for_selector("#counts:has-text('orange 9 (by hand)')", timeout=WAIT_MS)
    assert "Morgane" in page.text_content("#winners")
    readme_picture(page, "referee", "#referee-result")
    context.close()


def test_the_live_view_says_why_the_board_is_not_found(still_table, calibration_frames, browser):
    seen = calibration_frames("chaudron")
    covered = seen.copy()
    covered[:, 600:], covered[450:, :] = (30, 40, 60), (30, 40, 60)  # a cloth over all but the top-left marker
    dark = np.zeros_like(seen)  # the light off, or the camera looking away
    table = still_table("chaudron", "chaudron", [covered, dark, seen])
    context = browser.new_context()
    page = context.new_page()
    page.goto(table.url)
    page.wait_for_selector("#why:has-text('board not found (chaudron): 1 of 4 markers seen; uncover the others or "
                           "store the corners in the set-up')", timeout=WAIT_MS)
    assert page.text_content("#board") == "not found"
    page.wait_for_selector("#light:has-text('%')", timeout=WAIT_MS)  # the light, as the picture came
    assert 0 < int(page.text_content("#light").removesuffix(" %")) < 100
    assert cyan_near_the_top_left_marker(table) > 20  # the marker seen is outlined on the picture
    table.feed(1)
    page.wait_for_selector("#why:has-text('no marker seen (is the camera above the board, the light on?)')",
                           timeout=WAIT_MS)
    table.feed(2)
    page.wait_for_selector("#board:text-is('found')", timeout=WAIT_MS)
    assert page.is_hidden("#why") and cyan_near_the_top_left_marker(table) == 0
    assert float(page.text_content("#fps")) > 0  # frames per second, from the frames read
    context.close()


def cyan_near_the_top_left_marker(table) -> int:
    """Pixels of the live picture drawn in the colour of a marker seen, around marker 10 of the frame."""
    from vision.locate import detect_markers

    picture = cv2.imdecode(np.frombuffer(urllib.request.urlopen(table.url + "live.jpg").read(), np.uint8), 1)
    scale = picture.shape[1] / table.frames[2].shape[1]
    (x0, y0), (x1, y1) = (detect_markers(table.frames[2])[10].min(axis=0) * scale - 15,
                          detect_markers(table.frames[2])[10].max(axis=0) * scale + 15)
    patch = picture[int(y0):int(y1), int(x0):int(x1)].astype(int)
    return int(((patch[..., 0] > 180) & (patch[..., 1] > 180) & (patch[..., 2] < 110)).sum())


def test_pages_load_without_errors(alchemists_table, browser):
    table = alchemists_table
    table.feed(2)
    context = browser.new_context()  # the page's own Content-Security-Policy in force
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "401" not in m.text else None)
    for path in ("", "game", "setup", "referee", "player"):
        page.goto(table.url + path)
        page.wait_for_load_state("networkidle") if path != "" and path != "game" else page.wait_for_timeout(300)
    assert errors == []
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(table.url + "setup/frame.jpg")
    assert refused.value.code == 401
    context.close()
