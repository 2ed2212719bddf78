"""The page's game wheel in ``alchemy-table run``: pressed on the page (with the PIN), it asks and switches the
game exactly as the physical wheel does (tests/live/test_game_wheel.py presses the physical one); the set-up
page's "Start this game" turns the same wheel."""

from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.request

from assistant.config import Config
from assistant.journal import read
from hardware.buttons import Command

CHANGE = {"X-Alchemy-Table": "1", "Content-Type": "application/json"}


class PagePresses:
    """The physical buttons, never pressed; at the given polls (one per frame read) the page's buttons are
    pressed instead, over HTTP with the PIN, as a phone would."""

    def __init__(self, presses, state, capsys, chosen=None, requests=None):
        self.presses, self.state, self.capsys = dict(presses), state, capsys
        self.requests = dict(requests or {})  # poll -> other set-up requests (path, body, expected status)
        self.answers: list[tuple[int, dict]] = []
        self.chosen = dict(chosen or {})  # poll -> the game chosen on the set-up page
        self.polls = 0
        self.opener = None
        self.url = ""

    def poll(self):
        self.polls += 1
        for command in self.presses.get(self.polls, ()):
            self.post("api/press", {"command": command})
        for path, body, status in self.requests.get(self.polls, ()):
            self.post(path, body, status)
        if self.polls in self.chosen:
            self.post("api/setup/game", {"game": self.chosen[self.polls]})
        return []

    def post(self, path: str, body: dict, status: int = 200) -> None:
        if self.opener is None:  # the page's address as `run` printed it, its PIN from the owner-only file
            err = self.capsys.readouterr().err
            self.url = err.split("web page on ")[1].split(";")[0].split()[0]
            self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
            self.post("api/unlock", {"pin": (self.state / "web-pin").read_text().strip()})
        request = urllib.request.Request(self.url + path, json.dumps(body).encode(), CHANGE, method="POST")
        try:
            with self.opener.open(request, timeout=10) as response:
                self.answers.append((response.status, json.load(response)))
        except urllib.error.HTTPError as e:
            self.answers.append((e.code, json.load(e)))
        assert self.answers[-1][0] == status, self.answers[-1]

    def close(self):
        pass


def test_the_page_turns_the_game_wheel_and_the_set_up_chooses_the_game(alchemists_frames, tmp_path, monkeypatch,
                                                                       capsys):
    session, rendered = alchemists_frames
    state = tmp_path / "state"
    for name in ("ALCHEMY_TABLE_SYSTEM_CONFIG", "ALCHEMY_TABLE_USER_CONFIG"):
        monkeypatch.setenv(name, str(tmp_path / "none.toml"))
    presses = PagePresses({3: ["game-next"], 4: ["game-next", "game-previous"], 5: ["confirm"]}, state, capsys,
                          chosen={8: "chaudron"})
    monkeypatch.setattr(Config, "open_buttons", lambda self, **kw: presses)
    from assistant.cli import main

    setup = tmp_path / "alchimiste.json"
    setup.write_text(json.dumps({"players": [{"name": "Abigail", "seal": "red"}, {"name": "Merlin", "seal": "white"}]}))
    (tmp_path / "alchemists.json").write_text(json.dumps(session.setup))
    (tmp_path / "chaudron.json").write_text('{"players": 2}')
    (tmp_path / "config.toml").write_text(f'[table]\nsetups = {{alchimiste = "{setup}", '
                                          f'alchemists = "{tmp_path / "alchemists.json"}", '
                                          f'chaudron = "{tmp_path / "chaudron.json"}"}}\n')
    code = main(["run", "--game", "alchemists", "--simulate", "--web", "127.0.0.1:0", "--set", "camera.source=folder",
                 "--set", f"camera.path={rendered.folder}", "--set", f"table.state_dir={state}", "--set",
                 "display.backend=dummy", "--config", str(tmp_path / "config.toml")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "switched to a new alchimiste game" in err and "switched to a new chaudron game" in err
    kept = sorted((state / "games").iterdir())
    assert [k.name.split("-")[-1] for k in kept] == ["alchemists.jsonl", "alchimiste.jsonl"]
    assert not [r for k in kept for r in read(k) if r.kind == "command"]  # the wheel's presses are not the game's
    assert read(state / "game.jsonl")[0].data["game"] == "chaudron"


class TurnedThenChosen(PagePresses):
    """The physical wheel turned once (its question left open on alchimiste), then the set-up page's game chosen
    in the same frame."""

    def poll(self):
        turned = [Command.GAME_NEXT] if self.polls + 1 == 3 else []
        return turned + super().poll()


def test_the_page_s_game_is_started_whatever_question_the_physical_wheel_left_open(alchemists_frames, tmp_path,
                                                                                    monkeypatch, capsys):
    session, rendered = alchemists_frames
    state = tmp_path / "state"
    presses = TurnedThenChosen({}, state, capsys, chosen={3: "chaudron"})
    monkeypatch.setattr(Config, "open_buttons", lambda self, **kw: presses)
    code = _run_alchemists(session, rendered, state, tmp_path, monkeypatch)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "switched to a new chaudron game" in err and "alchymia" not in err and "alchimiste" not in err
    assert read(state / "game.jsonl")[0].data["game"] == "chaudron"


def test_the_set_up_page_chooses_the_layouts_the_game_is_played_with(alchemists_frames, tmp_path, monkeypatch,
                                                                      capsys):
    session, rendered = alchemists_frames
    state = tmp_path / "state"
    pick = "api/setup/layouts"
    presses = PagePresses({}, state, capsys, chosen={4: "chaudron"}, requests={3: [
        (pick, {"game": "chaudron", "layouts": ["chaudron", "alchymia-crystals"]}, 400),  # another game's layout
        (pick, {"game": "chaudron", "layouts": ["chaudron", "cauldron"]}, 400),            # no such layout
        (pick, {"game": "chaudron", "layouts": ["chaudron", "chaudron-potions"]}, 200)]})
    monkeypatch.setattr(Config, "open_buttons", lambda self, **kw: presses)
    code = _run_alchemists(session, rendered, state, tmp_path, monkeypatch)
    assert code == 0, capsys.readouterr().err
    refused = [answer["error"] for status, answer in presses.answers if status == 400]
    assert refused == ["layouts: 'alchymia-crystals' is not a layout of chaudron (its layouts: chaudron, "
                       "chaudron-potions)",
                       "layouts: 'cauldron' is not a layout of chaudron (its layouts: chaudron, chaudron-potions)"]
    started = read(state / "game.jsonl")[0].data
    assert started["game"] == "chaudron" and "chaudron-potions" in json.dumps(started)


def _run_alchemists(session, rendered, state, tmp_path, monkeypatch) -> int:
    """``run --game alchemists --simulate --web`` over the recorded frames, with set-ups for Alchemists and
    Chaudron (the game the tests switch to) and no other configuration."""
    from assistant.cli import main

    for name in ("ALCHEMY_TABLE_SYSTEM_CONFIG", "ALCHEMY_TABLE_USER_CONFIG"):
        monkeypatch.setenv(name, str(tmp_path / "none.toml"))
    (tmp_path / "alchemists.json").write_text(json.dumps(session.setup))
    (tmp_path / "chaudron.json").write_text('{"players": 2}')
    (tmp_path / "config.toml").write_text(f'[table]\nsetups = {{alchemists = "{tmp_path / "alchemists.json"}", '
                                          f'chaudron = "{tmp_path / "chaudron.json"}"}}\n')
    return main(["run", "--game", "alchemists", "--simulate", "--web", "127.0.0.1:0", "--set", "camera.source=folder",
                 "--set", f"camera.path={rendered.folder}", "--set", f"table.state_dir={state}", "--set",
                 "display.backend=dummy", "--config", str(tmp_path / "config.toml")])
