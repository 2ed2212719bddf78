"""Turn a session script into camera frames, deterministically, with ``vision.render``.

For every step a hand comes in from the side nearest the zones it changes (or the side the step names),
the pieces change under it, the hand goes back out, then the table stays still for ``steady_frames``
frames. Frames are JPEG files ``frame-0000.jpg`` ... in a folder, with:

- ``session.json``: the manifest (game, set-up, boards, which state and step every frame shows, whether
  a hand is in it, the frames of every step) and the key of the script it was rendered from;
- ``commands.json``: the button presses the script makes, by frame (read by ``replay``);
- ``layout-NAME.json``: each board's layout when several boards are in view (``replay --layout``), card
  mats included.

A folder rendered from the same script by the same renderer is reused as it is. Rendering is the slow
part (about a second per distinct picture on a small machine), so each distinct picture (a still table,
a hand at one place) is rendered once, without sensor noise, and every frame adds its own noise and JPEG
compression; ``workers`` processes render in parallel.

Several boards (Alchymia, or a board and its card mat) are rendered one by one and tiled side by side into
one 1280 x 960 frame. Each board's picture is rendered once per state of that board (and hand over it), so
a move on one board re-renders that board only.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from assistant.live.boards import SEPARATOR
from assistant.sessions import Session
from vision.render import Conditions, Hand, Pose, lighting_preset, render_frame
from vision.render.camera import FRAME_SIZE

CARDS = "cards"  # the enrolled cards, in the frames folder
RENDERER = 4  # bump when the frames a script gives change, so that cached folders are rendered again
NOISE = 2.0  # sensor noise, 8-bit levels
JPEG_QUALITY = 90
SKIN = (205, 155, 120)
SLEEVES = ((60, 70, 110), (150, 30, 40), (70, 110, 60), (40, 40, 44))


@dataclass(frozen=True)
class Shot:
    """One frame to make: the state it shows, the step it belongs to (-1: the opening), and a hand."""

    index: int
    state: int
    step: int
    hand: tuple[str, tuple[float, float], tuple[float, float]] | None = None  # board, entry, tip (mm)



@dataclass
class Rendered:
    folder: Path
    manifest: dict[str, Any]
    reused: bool

    @property
    def frames(self) -> list[dict[str, Any]]:
        return self.manifest["frames"]


def script_key(session: Session) -> str:
    """What the frames depend on: not the words, the expectations or the set-up."""
    script = {k: v for k, v in session.raw.items() if k not in ("title", "about", "setup")}
    script["steps"] = [{k: v for k, v in step.items() if k not in ("say", "expect")}
                       for step in session.raw.get("steps", [])]
    text = json.dumps({"renderer": RENDERER, "script": script}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def plan(session: Session) -> tuple[list[Shot], list[dict[str, Any]], list[dict[str, Any]]]:
    """(shots, button presses ``{"frame", "command"}``, steps ``{"say", "expect", "first", "hand_left",
    "last"}``) for ``session``; ``hand_left`` is the first frame without the hand after it."""
    shots: list[Shot] = []
    presses: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    states = session.states()

    def add(state: int, step: int, hand=None) -> None:
        shots.append(Shot(len(shots), state, step, hand))

    for _ in range(session.steady_frames):
        add(0, -1)
    for i, step in enumerate(session.steps):
        first = len(shots)
        if step.hand:
            board, target, side = _reach(session, step, states[i], states[i + 1])
            n = session.hand_frames
            for k in range(n):
                reach = math.sin(math.pi * (k + 1) / (n + 1))  # in, deepest in the middle, out again
                sway = 40.0 * (k - (n - 1) / 2)  # and sideways, so no two hand frames are alike
                entry, tip = _hand_path(session, board, target, side, reach, sway)
                add(i + 1 if k >= n // 2 else i, i, (board, entry, tip))
        left = len(shots)
        for _ in range(step.steady or session.steady_frames):
            add(i + 1, i)
        presses.extend({"frame": len(shots) - 1, "command": c} for c in step.commands)
        steps.append({"say": step.say, "expect": None if step.expect is None else list(step.expect),
                      "first": first, "hand_left": left if step.hand else None, "last": len(shots) - 1,
                      "commands": list(step.commands)})
    return shots, presses, steps


def _split(zid: str) -> tuple[str, str]:
    board, sep, zone = zid.rpartition(SEPARATOR)
    return (board, zone) if sep else ("", zid)


def _reach(session: Session, step, before, after) -> tuple[str, tuple[float, float], str]:
    """Which board the hand reaches into, the point its fingertips reach (mm) and the side it comes from."""
    layouts = session.board_layouts()
    if step.hand_to is not None:
        targets = [step.hand_to]
    else:
        targets = [z for z in after["zones"] if after["zones"][z] != before["zones"].get(z)]
        targets += [z for z in after["counts"] if after["counts"][z] != before["counts"].get(z)]
    if not targets:
        board = next(iter(layouts))
        layout = layouts[board]
        point = (layout.size[0] / 2, layout.size[1] / 2)
    else:
        board = _split(targets[0])[0]
        zones = [layouts[board].zone(_split(z)[1]) for z in targets if _split(z)[0] == board]
        point = (float(np.mean([z.center[0] for z in zones])), float(np.mean([z.center[1] for z in zones])))
    layout = layouts[board]
    w, h = layout.size
    side = step.hand_from or min((("top", point[1]), ("bottom", h - point[1]), ("left", point[0]),
                                  ("right", w - point[0])), key=lambda s: s[1])[0]
    return board, point, side


def _hand_path(session: Session, board: str, target, side: str, reach: float, sway: float):
    w, h = session.board_layouts()[board].size
    x, y = target
    entry = {"top": (x, -120.0), "bottom": (x, h + 120.0), "left": (-120.0, y), "right": (w + 120.0, y)}[side]
    across = (sway, 0.0) if side in ("top", "bottom") else (0.0, sway)
    tip = (entry[0] + reach * (x - entry[0]) + across[0], entry[1] + reach * (y - entry[1]) + across[1])
    return (float(entry[0]), float(entry[1])), (float(tip[0]), float(tip[1]))


def render_session(session: Session, folder: str | Path, workers: int = 2,
                   progress: Callable[[int, int], None] | None = None) -> Rendered:
    """Render ``session`` into ``folder`` (reused when it already holds this script's frames)."""
    folder = Path(folder)
    key = script_key(session)
    manifest_path = folder / "session.json"
    if manifest_path.is_file():
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            manifest = {}
        if manifest.get("key") == key and all((folder / f["file"]).is_file() for f in manifest.get("frames", [])):
            return Rendered(folder, manifest, True)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("frame-*.jpg"):
        old.unlink()
    manifest_path.unlink(missing_ok=True)
    shots, presses, steps = plan(session)
    states = session.states()
    layouts = session.board_layouts()
    # A board's picture is what the camera sees of it before its sensor: the same board state with the same
    # hand over it (or none) is one picture, whatever the other boards show.
    names = list(layouts)
    keys = []
    for shot in shots:
        keys.append(tuple((board, json.dumps(_board_state(states[shot.state], board, names), sort_keys=True),
                           shot.hand if shot.hand is not None and shot.hand[0] == board else None)
                          for board in names))
    parts = list(dict.fromkeys(part for key in keys for part in key))
    jobs = [(session, layouts, board, json.loads(state), hand) for board, state, hand in parts]
    pictures: dict[tuple, np.ndarray] = {}
    done = 0
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part, picture in zip(parts, pool.map(_render_part, jobs), strict=True):
                pictures[part] = picture
                done += 1
                if progress:
                    progress(done, len(parts))
    else:
        for part, job in zip(parts, jobs, strict=True):
            pictures[part] = _render_part(job)
            done += 1
            if progress:
                progress(done, len(parts))
    scenes: dict[tuple, np.ndarray] = {}
    frames = []
    for shot, parts_key in zip(shots, keys, strict=True):
        if parts_key not in scenes:
            scenes[parts_key] = (pictures[parts_key[0]] if len(parts_key) == 1
                                 else tile([pictures[part] for part in parts_key]))
        scene = scenes[parts_key]
        rng = np.random.default_rng([session.seed, shot.index])
        noisy = scene.astype(np.float32) + rng.normal(0, NOISE, scene.shape)
        name = f"frame-{shot.index:04d}.jpg"
        if not cv2.imwrite(str(folder / name), np.clip(noisy + 0.5, 0, 255).astype(np.uint8),
                           [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]):
            raise OSError(f"{folder / name}: cannot write the frame")
        frames.append({"file": name, "state": shot.state, "step": shot.step, "hand": shot.hand is not None})
    if len(layouts) > 1:
        for name, layout in layouts.items():
            (folder / f"layout-{name}.json").write_text(json.dumps(layout.to_dict(), indent=1) + "\n",
                                                        encoding="utf-8")
    (folder / "commands.json").write_text(json.dumps(presses, indent=1) + "\n", encoding="utf-8")
    enrol_cards(session, folder / CARDS)
    manifest = {"key": key, "game": session.game, "title": session.title, "layout": session.layout.name,
                "boards": list(session.boards), "mats": [m.name for m in session.mats], "setup": dict(session.setup),
                "frames": frames, "steps": steps, "states": states}
    # The manifest last: a folder whose rendering was interrupted has none and is rendered again.
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return Rendered(folder, manifest, False)


def enrol_cards(session: Session, cards: Path) -> None:
    """Card zones are read against enrolled cards (``alchemy-table calibrate cards``): enrol each card the
    session shows, once, in the first card zone under the session's camera and light, as a user does once
    with the real cards."""
    from vision.cards import card_size
    from vision.cards.enrol import cards_shown
    from vision.cards.store import open_set

    layouts = session.board_layouts()
    states = session.states()
    # every board of a session's game shares its zones: the first board and each card mat, once each
    firsts = {layout.name: (name, layout) for name, layout in reversed(layouts.items())}
    for board, layout in firsts.values():
        zones = [z for z in layout.zones if z.kind == "card"]
        head = f"{board}{SEPARATOR}" if board else ""
        shown = {state["zones"].get(head + z.id) for state in states for z in zones}
        for set_name in dict.fromkeys(z.card_set for z in zones if z.card_set is not None):
            if (cards / set_name / "set.json").exists():
                continue
            card_set = open_set(cards, set_name, card_size(layout))
            for place in (z for z in zones if z.card_set == set_name):
                for label in place.labels:
                    if label not in shown or label in ("empty", *card_set.images):
                        continue  # only the cards the session shows: enrolling is a render each
                    state = {"zones": {z.id: "empty" for z in layout.zones} | {place.id: label}, "counts": {}}
                    frame, _ = render_frame(layout, state, _conditions(session, None),
                                            np.random.default_rng(session.seed))
                    card_set.enrol(label, cards_shown(frame, layout, source=f"{label} card",
                                                      zone=place.id)[place.id])
            card_set.save(cards / set_name)


def cards_folder(rendered: Rendered) -> Path | None:
    """The enrolled cards of a rendered folder, if its layout has card zones."""
    folder = rendered.folder / CARDS
    return folder if folder.is_dir() else None


def layout_specs(rendered: Rendered) -> list[str]:
    """The ``--layout`` values that read a rendered folder: the layout's name, or ``NAME=layout-NAME.json``
    for each of several boards; then ``MAT=layout-MAT.json`` for each card mat."""
    return manifest_layout_specs(rendered.folder, rendered.manifest)


def manifest_layout_specs(folder: Path, manifest: Mapping[str, Any]) -> list[str]:
    """:func:`layout_specs` from a rendered folder and its manifest (``replay`` over such a folder)."""
    boards = list(manifest.get("boards") or []) + list(manifest.get("mats") or [])
    if not boards:
        return [manifest["layout"]]
    specs = [] if manifest.get("boards") else [manifest["layout"]]
    return specs + [f"{b}={Path(folder) / f'layout-{b}.json'}" for b in boards]


def _conditions(session: Session, hand: Hand | None, tiles: int = 1) -> Conditions:
    rng = np.random.default_rng(session.seed)
    light = lighting_preset(session.lighting, rng)
    light = replace(light, glare=min(light.glare, 0.05))
    sleeve = SLEEVES[session.seed % len(SLEEVES)]
    if hand is not None:
        hand = replace(hand, sleeve=sleeve)
    pose = Pose(**session.camera)
    if tiles > 1:  # the board fills its tile: as much of the frame as the tile is
        pose = replace(pose, fill=pose.fill * _tile_grid(tiles)[2])
    return Conditions(pose=pose, lighting=light, hand=hand, noise=0.0, blur=0.5, jpeg_quality=None,
                      vignette=0.0 if tiles > 1 else 0.08, jitter_mm=2.0, specular=0.4, placement_seed=session.seed)


def _board_state(state: Mapping[str, Any], board: str, boards: list[str]) -> dict[str, Any]:
    """One board's part of a table state, its zone ids unprefixed (``""``: the unnamed board, whose zones
    carry no other board's prefix)."""
    if not board:
        others = tuple(b + SEPARATOR for b in boards if b)
        return {"zones": {z: v for z, v in state["zones"].items() if not z.startswith(others)},
                "counts": {z: dict(c) for z, c in state["counts"].items() if not z.startswith(others)}}
    prefix = board + SEPARATOR
    return {"zones": {z[len(prefix):]: v for z, v in state["zones"].items() if z.startswith(prefix)},
            "counts": {z[len(prefix):]: dict(v) for z, v in state["counts"].items() if z.startswith(prefix)}}


def _render_part(job) -> np.ndarray:
    """One board's picture, alone in a frame (the middle cut out when tiled)."""
    session, layouts, board, state, hand = job
    layout = layouts[board]
    rng = np.random.default_rng(session.seed)  # drives sensor noise only, and there is none here
    h = None
    if hand is not None:
        scale = float(np.clip(min(layout.size) / 250, 0.75, 1.1))
        h = Hand(hand[1], hand[2], SKIN, None, 100.0, scale)
    picture, _ = render_frame(layout, state, _conditions(session, h, len(layouts)), rng)
    return picture


def _tile_grid(n: int) -> tuple[int, int, float]:
    """(columns, rows, scale of a tile to the frame) for ``n`` boards side by side."""
    cols = math.ceil(math.sqrt(n))
    rows = math.ceil(n / cols)
    return cols, rows, min(1 / cols, 1 / rows)


def tile(pictures: list[np.ndarray]) -> np.ndarray:
    """Several boards' frames side by side in one frame (2 x 2 for 3 or 4, 3 x 2 for 5 or 6). Each board was
    rendered small in the middle of its own frame (``fill`` scaled down): its middle is cut out as a tile."""
    w, h = FRAME_SIZE
    cols, rows, scale = _tile_grid(len(pictures))
    tw, th = w // cols, h // rows
    size = (int(w * scale), int(h * scale))
    border = np.median(np.concatenate([pictures[0][0], pictures[0][-1]]), axis=0)
    out = np.empty((h, w, 3), np.uint8)
    out[:] = border.astype(np.uint8)
    for k, picture in enumerate(pictures):
        r, c = divmod(k, cols)
        x0 = c * tw + (tw - size[0]) // 2
        y0 = r * th + (th - size[1]) // 2
        cx, cy = (w - size[0]) // 2, (h - size[1]) // 2
        out[y0:y0 + size[1], x0:x0 + size[0]] = picture[cy:cy + size[1], cx:cx + size[0]]
    return out
