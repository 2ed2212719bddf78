"""``alchemy-table bench vision``: what reading a 1280 x 960 frame costs.

Per default layout, on a rendered frame: the median time to read it with the homography cached, the same
with marker detection, and the ratio of the first to one ``cv2.warpPerspective`` of the whole frame
measured in the same run (target: at most 3). Then, for each layout with piece places, a cached read against
the enrolled board (``calibrate board`` and ``calibrate colours`` on rendered frames) in single-threaded warps
(target: at most 6). The warps and the cached reads alternate, so that both see
the same load on a shared machine; the warp uses every core OpenCV has, a read mostly one, so the ratio is
highest on an idle machine.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from calibration.layout import default_layouts, load_layout
from calibration.store import load_calibration, merge_into
from vision.board import enrol_board
from vision.learn import learn_colours
from vision.read import Reader
from vision.render import Conditions, empty_state, random_state, render_frame
from vision.render.camera import FRAME_SIZE, Pose
from vision.render.state import calibration_state
from vision.threads import opencv_threads


def _median_ms(*fns, repeats: int) -> list[float]:
    """The median time of each of ``fns`` (ms), called in turn ``repeats`` times."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, out in zip(fns, times, strict=True):
            t = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t)
    return [1000 * statistics.median(t) for t in times]


def _count_per_tray(reader: Reader, frame: np.ndarray, repeats: int) -> tuple[float, int]:
    """The median time (ms) to count one tray of ``frame`` (its crop sampled and normalised once), and the
    number of trays."""
    crops = reader._count_crops(frame, reader.locator.location)
    foot = reader._foot(frame, reader.locator.location)
    per = _median_ms(*[lambda i=i: reader._count(i, crops[i], foot) for i in range(len(crops))], repeats=repeats)
    return statistics.median(per), len(crops)


def _asking_per_tray(layout, frame: np.ndarray, repeats: int) -> float:
    """The median time (ms) per tray to count every tray of ``frame`` as the referee's photo does (the signs of
    a cube on another measured, and judged over the frame's trays: ``Reader(spread_stacked=True)``)."""
    reader = Reader(layout, recheck_every=10**9, spread_stacked=True)
    reader.read(frame)
    crops = reader._count_crops(frame, reader.locator.location)
    foot = reader._foot(frame, reader.locator.location)
    ids = reader.geometry.count_ids

    def asked():
        reader._unstacked({ids[i]: reader._count(i, crops[i], foot) for i in range(len(crops))})
    return _median_ms(asked, repeats=repeats)[0] / len(crops)


def _enrolled(layout):
    """A reader of ``layout`` calibrated as a user would (``calibrate board`` on a rendered empty board, then
    ``calibrate colours``), a rendered frame it has located, and that frame's homography."""
    rng = np.random.default_rng(7)
    conditions = Conditions(pose=Pose(tilt_deg=4, yaw_deg=5))
    empty, _ = render_frame(layout, empty_state(layout), conditions, rng)
    set_out, _ = render_frame(layout, calibration_state(layout), conditions, rng)
    frame, truth = render_frame(layout, random_state(layout, rng), conditions, rng)
    with tempfile.TemporaryDirectory(prefix="alchemy-bench-") as work:
        path = Path(work) / "cal.json"
        merge_into(path, layout.name, board=enrol_board(empty, layout))
        learnt = learn_colours(set_out, layout, load_calibration(path, layout.name))
        merge_into(path, layout.name, colours=learnt.colours, top_area_mm2=learnt.top_area_mm2,
                   tops_unlearnt=learnt.tops_unlearnt, estimated_lens=learnt.estimated_lens,
                   pieces=learnt.pieces)
        calibration = load_calibration(path, layout.name)
    reader = Reader(layout, calibration, recheck_every=10**9)
    reader.read(frame)
    return reader, frame, np.array(truth["homography"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench vision")
    parser.add_argument("--repeats", type=int, default=60)
    parser.add_argument("--layout", action="append", help="layout(s) to measure (default: every shipped layout)")
    args = parser.parse_args(argv)
    print(f"opencv {cv2.__version__}, {cv2.getNumThreads()} threads; medians over {args.repeats} runs")
    print(f"{'layout':18} {'read cached':>12} {'read+markers':>13} {'warpPerspective':>16} {'ratio':>6}")
    worst = 0.0
    trays = []
    for name in args.layout or default_layouts():
        layout = load_layout(name)
        rng = np.random.default_rng(7)
        frame, truth = render_frame(layout, random_state(layout, rng), Conditions(pose=Pose(tilt_deg=4, yaw_deg=5)),
                                    rng)
        reader = Reader(layout, recheck_every=10**9)
        reader.read(frame)
        H = np.array(truth["homography"])
        warp, cached = _median_ms(lambda: cv2.warpPerspective(frame, H, FRAME_SIZE),  # noqa: B023
                                  lambda: reader.read(frame), repeats=args.repeats)  # noqa: B023

        def detect():
            reader.locator.invalidate()  # noqa: B023
            reader.read(frame)  # noqa: B023
        full, = _median_ms(detect, repeats=max(5, args.repeats // 4))
        ratio = cached / warp
        worst = max(worst, ratio)
        print(f"{name:18} {cached:9.2f} ms {full:10.2f} ms {warp:13.2f} ms {ratio:6.2f}")
        if reader.geometry.count_ids:
            with opencv_threads(1):  # the read budget of the trays is counted in single-threaded warps
                one, read = _median_ms(lambda: cv2.warpPerspective(frame, H, FRAME_SIZE),  # noqa: B023
                                       lambda: reader.read(frame), repeats=max(5, args.repeats // 4))  # noqa: B023
            trays.append((name, _count_per_tray(reader, frame, max(5, args.repeats // 4)), one, read,
                          _asking_per_tray(layout, frame, max(5, args.repeats // 4))))
    print(f"worst ratio read (cached) / warpPerspective: {worst:.2f} (target <= 3)")
    for name in args.layout or default_layouts():
        layout = load_layout(name)
        if not any(z.kind == "slot" for z in layout.zones):
            continue
        reader, frame, H = _enrolled(layout)
        with opencv_threads(1):
            one, read = _median_ms(lambda: cv2.warpPerspective(frame, H, FRAME_SIZE),  # noqa: B023
                                   lambda: reader.read(frame), repeats=max(5, args.repeats // 4))  # noqa: B023
        print(f"{name}, read against the enrolled board: {read:.2f} ms cached, {read / one:.2f} single-threaded "
              f"warpPerspective (target <= 6)")
    for name, (per_tray, n), one, read, asking in trays:
        print(f"{name}: counting {per_tray:.2f} ms per tray ({n} trays: {per_tray * n / one:.2f} single-threaded "
              f"warpPerspective); read cached {read / one:.2f} single-threaded warpPerspective (target <= 6)")
        print(f"{name}: counting as the referee's photo does (a cube on another asked): {asking:.2f} ms per tray")
    return 0
