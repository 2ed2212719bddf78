"""Fixtures of the web page's tests: a table (the real pipeline, hub and server) over frames the test feeds
one by one, so it decides when each commit happens; the recorded sessions are the live tests' short ones."""

from __future__ import annotations

from pathlib import Path

import pytest

SETUPS = {"chaudron": {"players": 2},
          "alchimiste": {"players": [{"name": "Abigail", "seal": "red"}, {"name": "Merlin", "seal": "white"}]}}
BOARD_SEED = 4301  # the illustrated board of the wizard's test (any seed: the test checks the wizard, not the reader)


class Table:
    """A game on the table, fed by the test (``feed``), with the page served on a free loopback port."""

    def __init__(self, game: str, frames: list, boards, setup, tmp: Path, commands=None):
        from assistant.live.outputs import Outputs
        from assistant.live.pipeline import Pipeline
        from assistant.table import make_mode
        from assistant.web import Hub
        from assistant.web.server import WebServer

        tmp.mkdir(parents=True, exist_ok=True)
        self.frames = frames
        self.commands = commands or {}
        self.hub = Hub(calibration=tmp / "calibration.json", cards=tmp / "cards")
        self.outputs = Outputs.simulated()
        self.pipeline = Pipeline(game, make_mode(game, boards.layout, setup), boards, self.outputs,
                                 on_step=self.hub.on_step)
        self.hub.attach(self.pipeline)
        self.pipeline.start()
        self.server = WebServer(self.hub, "127.0.0.1", 0).start()
        self.url = self.server.url
        self.next = 0

    def feed(self, upto: int, scripted: bool = True) -> None:
        """Read the frames up to ``upto`` (included), as the loop would."""
        while self.next <= min(upto, len(self.frames) - 1):
            frame = self.frames[self.next]
            result = self.pipeline.feed(frame)
            self.hub.on_frame(result, frame, self.pipeline)
            for command in self.commands.get(result.index, ()) if scripted else ():
                self.pipeline.command(command)
            self.pump()
            self.next += 1

    def pump(self) -> int:
        """The page's buttons and requests, as the loop takes them between frames."""
        return _pump(self.hub, self.pipeline, self.outputs)

    def close(self) -> None:
        self.server.stop()
        self.outputs.close()


class SessionTable:
    """A game fed its shipped session's states straight, as ``dry_run`` does (no camera, no reading: fast),
    the hub told each answer as the live loop tells it; with ``serve``, the page served on a loopback port."""

    def __init__(self, game: str, serve: bool = True):
        from assistant.live.boards import Board, Boards, is_mat
        from assistant.live.outputs import Outputs
        from assistant.live.pipeline import Pipeline
        from assistant.sessions import load_session
        from assistant.table import make_mode, mode_class
        from assistant.web import Hub
        from assistant.web.server import WebServer

        session = load_session(game)
        self.session = session
        boards = Boards([Board(name, layout, None, is_mat(layout, mode_class(game).card_mats))  # type: ignore[arg-type]
                         for name, layout in session.board_layouts().items()])
        self.hub = Hub()
        self.outputs = Outputs.simulated()
        self.pipeline = Pipeline(game, make_mode(game, boards.layout, session.setup), boards, self.outputs,
                                 on_step=self.hub.on_step)
        self.hub.attach(self.pipeline)
        self.pipeline.start()
        self.states = list(session.states())
        self.next, self.previous = 0, None
        self.server = WebServer(self.hub, "127.0.0.1", 0).start() if serve else None
        self.url = self.server.url if self.server else None

    def feed(self, upto: int) -> None:
        """Commit the session's states up to ``upto`` (included), each one that differs, as the stabiliser
        would, with the session's button presses between them."""
        from assistant.live.pipeline import Step
        from assistant.stabilise import State

        while self.next <= min(upto, len(self.states) - 1):
            i, full = self.next, self.states[self.next]
            state = State.of(full["zones"], full["counts"])
            if state != self.previous:
                self.pipeline._answer(Step("state", i, self.pipeline.dispatch(state, self.previous), state,
                                           self.previous))
            self.previous = state
            if i:
                for command in self.session.steps[i - 1].commands:
                    self.pipeline.command(command)
            self.next += 1

    def pump(self) -> int:
        """The page's buttons, as the loop takes them between frames."""
        return _pump(self.hub, self.pipeline, self.outputs)

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
        self.outputs.close()


@pytest.fixture
def session_table():
    """``session_table(game, serve=True)``: a :class:`SessionTable` over the game's shipped session."""
    made: list[SessionTable] = []

    def make(game: str, serve: bool = True) -> SessionTable:
        made.append(SessionTable(game, serve))
        return made[-1]

    yield make
    for table in made:
        table.close()


def recorded(rendered):
    """(frames, boards, setup, scripted commands) of a rendered session folder."""
    from assistant.live.boards import Boards
    from assistant.live.replay import commands_beside, open_recorded
    from assistant.sessions.render import cards_folder, layout_specs
    from assistant.table import mode_class

    boards = Boards.from_specs(layout_specs(rendered), cards=cards_folder(rendered),
                               mat_sets=mode_class(rendered.manifest["game"]).card_mats)
    with open_recorded(rendered.folder) as source:
        frames = [frame for _, frame in source]
    return frames, boards, commands_beside(rendered.folder)


def frames_folder(request) -> Path:
    """pytest's cache folder for rendered frames kept between runs; a temporary one where the cache is off
    (``-p no:cacheprovider``)."""
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        return cache.mkdir("web-frames")
    return request.getfixturevalue("tmp_path_factory").mktemp("web-frames")


@pytest.fixture(scope="session")
def alchemists_frames(short_frames):
    return short_frames("alchemists")


@pytest.fixture
def recorded_table(short_frames, tmp_path):
    """``recorded_table(game)``: a table over that game's short recorded session."""
    made: list[Table] = []

    def make(game: str) -> Table:
        session, rendered = short_frames(game)  # (tests/conftest.py: rendered once for the run)
        frames, boards, commands = recorded(rendered)
        made.append(Table(game, frames, boards, session.setup, tmp_path / game, commands))
        return made[-1]

    yield make
    for table in made:
        table.close()


@pytest.fixture
def alchemists_table(alchemists_frames, tmp_path):
    session, rendered = alchemists_frames
    frames, boards, commands = recorded(rendered)
    table = Table("alchemists", frames, boards, session.setup, tmp_path, commands)
    yield table
    table.close()


@pytest.fixture(scope="session")
def calibration_frames(request):
    """``calibration_frames(layout)`` -> the layout's rendered colour-calibration frame (BGR), rendered once
    into pytest's cache folder (PNG, lossless: the same frame every run)."""
    import cv2

    from calibration.layout import load_layout
    from vision.render.dataset import calibration_frame

    folder = frames_folder(request)

    def get(name: str):
        path = folder / f"calibration-{name}.png"
        frame = cv2.imread(str(path)) if path.exists() else None
        if frame is None:
            frame = calibration_frame(load_layout(name), seed=3)[0]
            cv2.imwrite(str(path), frame)
        return frame

    return get


@pytest.fixture
def still_table(calibration_frames, tmp_path):
    """``still_table(game, layout, frames=None)``: a table whose camera shows that layout's calibration frame
    (read 4 times), or ``frames`` (the first one read)."""
    from assistant.live.boards import Boards
    from calibration.layout import load_layout

    made: list[Table] = []

    def make(game: str, layout: str, frames: list | None = None) -> Table:
        frames = frames or [calibration_frames(layout)] * 4
        table = Table(game, frames, Boards.single(load_layout(layout)), SETUPS[game], tmp_path / layout)
        table.feed(3 if len(frames) == 4 else 0)
        made.append(table)
        return table

    yield make
    for table in made:
        table.close()


@pytest.fixture(scope="session")
def board_frames(request):
    """An illustrated Chaudron board as one camera sees it, empty then with the pieces set out as its
    calibration table says (BGR), rendered once into pytest's cache folder (PNG: the same frames every run)."""
    import cv2
    import numpy as np

    from calibration.layout import load_layout
    from vision.render import empty_state
    from vision.render.state import calibration_state
    from vision.render.table import random_table, table_frame

    folder = frames_folder(request)
    paths = [folder / f"board-{what}.png" for what in ("empty", "set-out")]
    frames = [cv2.imread(str(p)) if p.exists() else None for p in paths]
    if any(f is None for f in frames):
        layout = load_layout("chaudron")
        rng = np.random.default_rng(BOARD_SEED)
        table = random_table(layout, rng, "illustrated")
        frames = [table_frame(table, layout, rng, table.calibration_lighting, state=state)[0]
                  for state in (empty_state(layout), calibration_state(layout))]
        for path, frame in zip(paths, frames, strict=True):
            cv2.imwrite(str(path), frame)
    return frames


@pytest.fixture
def board_table(board_frames, tmp_path):
    """A Chaudron table whose camera shows the empty board (frame 0); ``feed(1)``: the pieces set out."""
    from assistant.live.boards import Boards
    from calibration.layout import load_layout

    table = Table("chaudron", board_frames, Boards.single(load_layout("chaudron")), SETUPS["chaudron"],
                  tmp_path / "board")
    table.feed(0)
    yield table
    table.close()


RESERVE = {"grey": 6, "blue": 2, "orange": 9, "yellow": 0, "green": 4}  # tests/live/test_referee_photo.py's


@pytest.fixture(scope="session")
def hand_photo(request):
    """(path, reserve): a photo of the Alchimiste reserve with a hand over the orange tray, rendered once into
    pytest's cache folder (PNG), and the true count of each tray."""
    import cv2
    import numpy as np

    from calibration.layout import load_layout
    from vision.render import Conditions, Hand, render_frame

    path = frames_folder(request) / "referee-hand.png"
    if not path.exists():
        layout = load_layout("alchimiste")
        state = {"counts": {f"reserve-{c}": {c: n} for c, n in RESERVE.items()}}
        tray = layout.zone("reserve-orange").center
        hand = Hand((900.0, tray[1]), (tray[0] - 20, tray[1]), height_mm=90.0)
        frame, truth = render_frame(layout, state, Conditions(placement_seed=4, hand=hand),
                                    np.random.default_rng(2))
        assert truth["counts"]["reserve-orange"] is None  # the hand really hides that tray
        cv2.imwrite(str(path), frame)
    return path, RESERVE


def _pump(hub, pipeline, outputs) -> int:
    """What the loop does between frames: the page's commands to the pipeline, its requests served; how many
    commands there were."""
    commands = hub.poll()
    for command in commands:
        pipeline.command(command)
    hub.service(outputs)
    return len(commands)
