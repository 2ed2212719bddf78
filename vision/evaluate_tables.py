"""Scoring table sets (``render --tables``): each table calibrated as a new user would, then read.

For every table folder: the empty board (or card mat) is enrolled (``vision.board.enrol_board``) and the
colours learnt from ``calibration.png`` (``vision.learn.learn_colours``; card mats have none),
both merged into a calibration file by ``calibration.store.merge_into`` exactly as ``calibrate board``
and ``calibrate colours`` do; then every frame is read with one reader per table. A sharp frame is located afresh (every
frame is scored on its own markers); a blurred frame is read as a session meets it: the position known
from the table's empty board, then re-checked on the blurred frame (``locate(check=True)``), so "found
under blur" says whether the cached position holds when the markers are smeared. Scores are grouped by
lighting, by board face (plain, illustrated), by both, by layout and (in the JSON) by table; the rules are
``vision.evaluate``'s.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2

from calibration.layout import Layout, load_layout
from calibration.store import Calibration, load_calibration, merge_into
from vision.board import enrol_board
from vision.evaluate import Tally, score
from vision.learn import learn_colours, stored
from vision.read import Reader
from vision.render.card_photos import CARDS
from vision.render.table import CALIBRATION, EMPTY, TABLE_FILE

LIGHTING_ORDER = ("warm", "cool", "dim", "daylight", "mixed")


def table_folders(folder: Path) -> list[Path]:
    """The table folders of a table set (none: a flat set)."""
    if not folder.is_dir():
        raise OSError(f"{folder}: not a folder")
    return sorted(p for p in folder.iterdir() if p.is_dir() and (p / TABLE_FILE).is_file())


@dataclass
class TableReport:
    tables: int = 0
    groups: dict[str, dict[str, Tally]] = field(default_factory=lambda: {
        "lighting": {}, "board": {}, "board_lighting": {}, "layout": {}, "table": {}})
    total: Tally = field(default_factory=Tally)
    notes: list[str] = field(default_factory=list)  # calibration steps that failed, and why
    read_ms: list[float] = field(default_factory=list)
    calibrate_s: list[float] = field(default_factory=list)

    def add(self, tally: Tally, lighting: str, board: str, layout: str, table: str) -> None:
        for group, key in (("lighting", lighting), ("board", board), ("board_lighting", f"{board} / {lighting}"),
                           ("layout", layout), ("table", table)):
            self.groups[group].setdefault(key, Tally()).add(tally)
        self.total.add(tally)

    def ordered(self, group: str) -> dict[str, Tally]:
        """A group's tallies in a fixed order: lightings as the design lists them, mixed last."""
        def rank(key: str):
            return [(0, LIGHTING_ORDER.index(p), "") if p in LIGHTING_ORDER else (1, 0, p) for p in key.split(" / ")]
        return dict(sorted(self.groups[group].items(), key=lambda kv: rank(kv[0])))

    def timing(self) -> dict[str, Any]:
        return {"frames_read": len(self.read_ms),
                "read_ms_median": round(statistics.median(self.read_ms), 1) if self.read_ms else None,
                "calibrate_s_median": round(statistics.median(self.calibrate_s), 2) if self.calibrate_s else None}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tables": self.tables}
        for group in ("lighting", "board", "board_lighting", "layout", "table"):
            out[f"by_{group}"] = {k: t.row() for k, t in self.ordered(group).items()}
        out["all"] = self.total.row()
        out["calibration_notes"] = self.notes
        out["timing"] = self.timing()
        return out


def _image(path: Path):
    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        raise OSError(f"{path}: not a readable image")
    return frame


def calibrate_table(folder: Path, layout: Layout, out: Path) -> tuple[Calibration | None, list[str]]:
    """Calibrate one table into ``out`` as a new user would: ``calibrate board`` on the empty board, then
    ``calibrate colours`` on the calibration frame. Returns the calibration (None when nothing could be
    learnt) and a line for each step that failed."""
    notes = []
    if (folder / EMPTY).is_file():
        try:
            board = enrol_board(_image(folder / EMPTY), layout)
            merge_into(out, layout.name, board=board)
        except ValueError as e:
            notes.append(f"{folder.name}: calibrate board: {e}")
    if layout.calibration and (folder / CALIBRATION).is_file():
        try:
            base = load_calibration(out, layout.name) if out.exists() else None
            learnt = learn_colours(_image(folder / CALIBRATION), layout, base, source=str(folder / CALIBRATION))
            merge_into(out, layout.name, **stored(learnt, base))
        except ValueError as e:
            notes.append(f"{folder.name}: calibrate colours: {e}")
    return (load_calibration(out, layout.name) if out.exists() else None), notes


def evaluate_tables(folder: Path, cards=None, card_tallies: dict | None = None) -> TableReport:
    """Calibrate and read every table of the set in ``folder``. ``cards`` and ``card_tallies`` as for
    ``vision.evaluate.evaluate``: card zones scored apart, per lighting and ``all``; without ``cards``, the set's own
    ``cards`` folder when it has one (``render --tables`` writes it)."""
    tables = table_folders(folder)
    if not tables:
        raise ValueError(f"{folder}: no table folders (each with a {TABLE_FILE})")
    if cards is None and (folder / CARDS).is_dir():  # (the set's own cards, enrolled when it was rendered)
        from vision.cards.store import CardLibrary

        cards = CardLibrary(folder / CARDS)
    report = TableReport(tables=len(tables))
    with tempfile.TemporaryDirectory(prefix="alchemy-eval-") as work:
        for tdir in tables:
            info = json.loads((tdir / TABLE_FILE).read_text(encoding="utf-8"))
            layout = load_layout(info["layout"])
            start = time.perf_counter()
            calibration, notes = calibrate_table(tdir, layout, Path(work) / f"{tdir.name}.json")
            report.calibrate_s.append(time.perf_counter() - start)
            report.notes.extend(notes)
            # (each frame read as `read` reads one photo: a tray where a cube seems to lie on another is asked)
            reader = Reader(layout, calibration, cards=cards, spread_stacked=True)
            empty = _image(tdir / EMPTY) if (tdir / EMPTY).is_file() else None
            frames = sorted(p for p in tdir.glob("f*.*") if p.suffix.lower() in (".png", ".jpg", ".jpeg")
                            and p.with_suffix(".json").is_file())
            for path in frames:
                truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
                frame = _image(path)
                conditions = truth.get("conditions", {})
                reader.locator.invalidate()
                start = time.perf_counter()
                if conditions.get("blur") and empty is not None:
                    reader.locator.locate(empty)  # the session saw the table sharp before the shake
                    reader.locator.locate(frame, check=True)
                    reading = reader.read(frame, locate=False)
                else:
                    reading = reader.read(frame)
                report.read_ms.append(1000 * (time.perf_counter() - start))
                lighting = conditions.get("lighting", "unknown")
                tally = score(reading, truth, f"{tdir.name}/{path.name}")
                report.add(tally, lighting, conditions.get("board", "plain"), layout.name, tdir.name)
                if card_tallies is not None and reader.cards:
                    from vision.cards.evaluate import CardTally
                    for key in (lighting, "all"):
                        card_tallies.setdefault(key, CardTally()).add(
                            reading, truth, [z.id for z in reader.cards.zones],
                            reader.cards.times if key == "all" else (), f"{tdir.name}/{path.name}")
    return report
