"""The game-select wheel of ``alchemy-table run``: turning it asks "switch game: NAME - confirm?", ``confirm``
archives the game on the table and starts the chosen one with its layouts from the configuration, anything
else cancels and gives the game its screen back."""

from __future__ import annotations

import json

from assistant.config import Config
from assistant.journal import read
from assistant.live.boards import with_markers
from assistant.live.wheel import GameWheel
from calibration.layout import load_layout
from hardware.buttons import Command


class Scripted:
    """Buttons pressed at given polls (one poll per frame read)."""

    def __init__(self, presses):
        self.presses = dict(presses)
        self.polls = 0

    def poll(self):
        self.polls += 1
        return [Command(c) for c in self.presses.get(self.polls, ())]

    def close(self):
        pass


def run_with(tmp_path, monkeypatch, short_frames, presses, config_text=""):
    _, rendered = short_frames("chaudron")
    state = tmp_path / "state"
    monkeypatch.setattr(Config, "open_buttons", lambda self, **kw: Scripted(presses))
    from assistant.cli import main

    (tmp_path / "chaudron.json").write_text('{"players": 2}')   # the chaudron set-up from table.setups
    setups = f'setups = {{chaudron = "{tmp_path / "chaudron.json"}"}}\n'
    config_text = "[table]\n" + setups + config_text.replace("[table]\n", "")
    (tmp_path / "config.toml").write_text(config_text)
    code = main(["run", "--game", "chaudron", "--simulate", "--set", "camera.source=folder", "--set",
                 f"camera.path={rendered.folder}", "--set", f"table.state_dir={state}", "--set",
                 "display.backend=dummy", "--config", str(tmp_path / "config.toml")])
    return code, state


def test_the_wheel_cycles_through_the_four_games_and_cancels():
    wheel = GameWheel("alchemists", switch=lambda game: f"switched to {game}")
    assert wheel.press("game-next").text == "switch game: alchimiste - confirm?"
    assert wheel.press("game-next").text == "switch game: chaudron - confirm?"
    assert wheel.press("game-previous").text == "switch game: alchimiste - confirm?"
    assert wheel.takes("next") and wheel.press("next") is None and not wheel.open   # any other command cancels
    assert not wheel.takes("confirm")
    wheel.press("game-previous")
    assert wheel.choice == "alchymia" and wheel.press("confirm") == "switched to alchymia"
    assert wheel.game == "alchymia" and not wheel.open


def test_confirm_archives_the_game_and_starts_the_chosen_one_with_its_configured_layouts(
        tmp_path, monkeypatch, short_frames, capsys):
    copy = tmp_path / "alchymia-copy.json"     # a second player board: the layout with its own markers
    copy.write_text(json.dumps(with_markers(load_layout("alchymia"), 24).to_dict()))
    config = f'[table]\nlayouts = {{alchymia = ["ada=alchymia", "bea={copy}"]}}\n'
    code, state = run_with(tmp_path, monkeypatch, short_frames,
                              {6: ["game-next"], 7: ["game-next", "game-previous"], 8: ["confirm"]}, config)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "previous game kept as" in err and "switched to a new alchymia game" in err
    kept = list((state / "games").iterdir())
    assert len(kept) == 1 and kept[0].name.endswith("-chaudron.jsonl")
    old = read(kept[0])
    assert not [r for r in old if r.kind == "command"]          # the wheel's presses are not the game's
    records = read(state / "game.jsonl")
    assert records[0].kind == "game" and records[0].data["game"] == "alchymia"
    assert [b["name"] for b in records[0].data["boards"]] == ["ada", "bea"]


def test_any_other_command_cancels_and_the_game_keeps_its_screen(tmp_path, monkeypatch, short_frames, capsys):
    code, state = run_with(tmp_path, monkeypatch, short_frames, {6: ["game-next"], 7: ["back"], 9: ["next"]})
    err = capsys.readouterr().err
    assert code == 0, err
    assert not (state / "games").exists()
    records = read(state / "game.jsonl")
    assert records[0].data["game"] == "chaudron"
    assert [r.data["command"] for r in records if r.kind == "command"] == ["next"]   # "back" only cancelled
