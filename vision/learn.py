"""Colour calibration: learn the pieces' real colours, and one piece's top area, from a frame set out as
the layout's ``[calibration]`` table says (``alchemy-table calibrate colours``).

Colours are learnt in the normalised space (the frame's light divided out against the board's own
background), so that a calibration made under one light holds under another.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import Calibration, PieceModel
from vision import classify
from vision.colour import ColourModel, bgr_to_lab, lab_to_rgb
from vision.count import pieces_by_label
from vision.geometry import COUNT_PX_PER_MM, rect_means
from vision.pieces import piece_shapes

SEEN_SHARE = 0.5  # a piece showing less than this share of what pieces of its shape show on the calibration frame
TRAYS_AGREE = 0.1  # trays whose measure of one top is within this share of their median agree with each other
# One lit top over the layout's that a cube set can show: sides 0.8-1.2 times the layout's (tops 0.64-1.44), the lit
# top measured 0.8-1.1 of the footprint seen (dev tables of seeds 19340-19341: 0.83-1.06). (``plausible_ratio``)
TOP_RANGE = (0.5, 1.6)
TRAYS_NEAR = 0.2  # against an enrolled board, trays in TOP_RANGE within this share of their median agree


class CalibrationFrameError(ValueError):
    """The frame does not show the calibration set-up well enough to learn from."""


def learn_colours(frame: np.ndarray, layout: Layout, base: Calibration | None = None, source: str = "frame",
                  notes: list[str] | None = None, learn_board: bool = True) -> Calibration:
    """The pieces as ``frame`` shows them, set out as the layout's ``[calibration]`` table says. Without a
    board enrolled empty in ``base``, a plain board is learnt empty from the frame itself
    (``vision.board_learn``; not with ``learn_board`` False) and the pieces against it, as against a board
    enrolled empty: the calibration returned then holds that board. Why a board could not be learnt so is
    added to ``notes``."""
    from vision.board_learn import NotPlain, plain_board

    if not layout.calibration:
        raise CalibrationFrameError(
            f"{layout.name}: layout has no [calibration] table, nothing to learn by colour (its board colour "
            f"needs none: every frame is normalised to it; card places are enrolled with 'calibrate cards')")
    if base is not None and base.board is not None and not base.board.learnt:
        return _learn_enrolled(frame, layout, base, source)
    if base is not None and base.board is not None:  # (a board learnt from an earlier frame: learnt again)
        base = replace(base, board=None, pieces={})
    if learn_board and any(z.kind == "slot" for z in layout.zones):
        try:
            board = plain_board(frame, layout, base, source)
        except NotPlain as e:
            if notes is not None:
                notes.append(str(e))
        else:  # (read then as against a board enrolled empty: its places and its trays)
            plain = Calibration(layout.name, corners=None if base is None else base.corners,
                                camera=None if base is None else base.camera, board=board)
            return _learn_enrolled(frame, layout, plain, source)
    return _learn_plain(frame, layout, base, source)


def stored(learnt: Calibration, base: Calibration | None) -> dict:
    """What ``calibrate colours`` merges into the calibration file from ``learnt`` (``merge_into``'s parts): the
    colours, tops and lens; the pieces, and the board learnt from the frame, when there are; and no board nor
    pieces where an earlier frame's learnt board is no longer plain enough to learn."""
    parts = {"colours": learnt.colours, "top_area_mm2": learnt.top_area_mm2, "tops_unlearnt": learnt.tops_unlearnt,
             "estimated_lens": learnt.estimated_lens}
    if learnt.pieces:
        parts["pieces"] = learnt.pieces
    if learnt.board is not None and learnt.board.learnt:
        parts["board"] = learnt.board
    elif base is not None and base.board is not None and base.board.learnt:
        parts.update(board=None, pieces={})
    return parts


def _learn_plain(frame: np.ndarray, layout: Layout, base: Calibration | None, source: str) -> Calibration:
    """The pieces' colours and one piece's top, the frame normalised to the layout's board colour (no board)."""
    from vision.read import Reader

    reader = Reader(layout, base)
    location = reader.locator.locate(frame)
    if not location.found:
        raise CalibrationFrameError(f"{source}: board not found (are the markers visible?)")
    g = reader.geometry
    canonical = reader.warp(frame, location.homography, location.lens)
    integral = cv2.integral(canonical)
    grid = rect_means(integral, g.grid_rects).astype(np.float32)
    field = reader.light_field(grid)
    if field is None:
        raise CalibrationFrameError(f"{source}: no free board background to measure the light on")
    ref = reader.model.background_bgr * 255.0
    samples: dict[str, list[np.ndarray]] = {}
    places: dict[str, list[str]] = {}
    k2 = g.cells * g.cells
    bg_lab = reader.prototypes[0]
    for zone_id, value in layout.calibration.items():
        zone = layout.zone(zone_id)
        if zone.kind != "slot" or value == "empty":
            continue
        i = g.slot_ids.index(zone_id)
        gain = field.gain(_basis_at(reader, zone.center), ref)
        cells = rect_means(integral, g.slot_rects[i * k2:(i + 1) * k2]).astype(np.float32) * gain / 255.0
        lab = bgr_to_lab(cells)
        # The piece's cells are those furthest from the background at any shade; its colour is their
        # brightest half (the lit top, not the sides).
        d = np.sqrt(((lab[:, None, :] - bg_lab[None]) ** 2).sum(-1)).min(1)
        far = d > np.percentile(d, 60)
        piece = lab[far if far.any() else d >= d.max()]  # (a slot of cells all alike: their colour)
        top = piece[piece[:, 0] >= np.median(piece[:, 0])]
        samples.setdefault(value, []).append(np.median(top, axis=0))
        places.setdefault(value, []).append(zone_id)
    learnt_lab = {label: np.median(np.array(v), axis=0) for label, v in samples.items()}
    _pieces_seen(learnt_lab, reader, places, source)
    colours = {label: lab_to_rgb(lab) for label, lab in learnt_lab.items()}
    if not colours:
        raise CalibrationFrameError(
            f"{source}: {layout.name}'s [calibration] table sets out no piece to learn a colour from (only "
            f"empty places); the board's own colour needs no calibration, every frame is normalised to it")
    # Re-read with the learnt colours to measure one piece's lit top in the count zones, the same way a
    # reading counts (``top_ratio``).
    learnt = Calibration(layout.name, colours, {}, None if base is None else base.corners,
                         None if base is None else base.camera)
    reader = Reader(layout, learnt)
    palette_model = ColourModel.from_palette(layout).with_calibration(colours, {}, "palette")
    crops = reader._count_crops(frame, location) if g.count_ids else []
    ratios: dict[str, list[float]] = {}
    for i, zid in enumerate(g.count_ids):
        counts = layout.calibration.get(zid)
        if not counts:
            continue
        zone = layout.zone(zid)
        gain = field.gain(_basis_at(reader, zone.center), ref)
        norm = cv2.transform(crops[i], np.diag(gain.astype(np.float32)))
        units = pieces_by_label(norm, zone.labels, palette_model, reader.labels, reader.tables[reader._count_set[i]],
                                COUNT_PX_PER_MM)
        for label, n in counts.items():
            if n > 0 and units.get(label, 0) > 0:
                ratios.setdefault(label, []).append(units[label] / n)
    return Calibration(layout.name, colours, _top_areas(layout, ratios, palette_model)[0],
                       None if base is None else base.corners, None if base is None else base.camera,
                       estimated_lens=_estimated(location, base))


def _learn_enrolled(frame: np.ndarray, layout: Layout, base: Calibration, source: str) -> Calibration:
    """Against the enrolled board: the pieces as ``learn_pieces`` sees them, and one piece's top measured in
    the calibration trays as the board reader shows a tray to the counter (in white light, the board's own
    colour left out: ``BoardReader.tray_seen``)."""
    from vision.read import Reader

    pieces = learn_pieces(frame, layout, base, source)
    reader = Reader(layout, base)
    board = reader.board_reader
    location = reader.locator.locate(frame)
    canonical = board.canonical(frame, location)
    diff = board.compare.compare(canonical)
    colours = {label: rgb for label, rgb in _colours_in_white(layout, board, canonical, diff).items()
               if label in pieces}
    reader = Reader(layout, Calibration(layout.name, colours, {}, base.corners, base.camera, base.board, pieces))
    board = reader.board_reader
    ratios: dict[str, list[float]] = {}
    g = reader.geometry
    trays = [(i, zid) for i, zid in enumerate(g.count_ids) if layout.calibration.get(zid)]
    if trays:
        crops = reader._count_crops(frame, location)
        for i, zid in trays:
            seen_tray = board.tray_seen(crops[i], i, canonical, diff)
            units = pieces_by_label(seen_tray, layout.zone(zid).labels, reader.model, reader.labels,
                                    reader.tables[reader._count_set[i]], COUNT_PX_PER_MM)
            for label, n in layout.calibration[zid].items():
                if n > 0 and units.get(label, 0) > 0:
                    ratios.setdefault(label, []).append(units[label] / n)
    tops, unlearnt = _top_areas(layout, ratios, reader.model, any_trays=True)
    return Calibration(layout.name, colours, tops, base.corners, base.camera, base.board, pieces,
                       tops_unlearnt=unlearnt, estimated_lens=_estimated(location, base))


def _estimated(location, base: Calibration | None):
    """The lens the calibration frame's markers gave (every marker of the layout set out in view), unless one
    was calibrated: kept for frames that show too few markers to estimate their own."""
    return location.lens if base is None or base.camera is None else None


def _colours_in_white(layout: Layout, board, canonical: np.ndarray, diff) -> dict[str, tuple[int, int, int]]:
    """Per label, the colour (RGB) of its pieces on their calibration places, in white light (the light measured
    on the board around each place divided out, the enrolment's made white: as ``BoardReader.tray_seen`` shows a
    tray), much as the plain reader learns them: of what differs from the enrolled board within the place's reach
    (nearer it than any other place), the part that lies in colour with the part nearest the piece's declared
    colour (``board_read.declared_piece``, as ``learn_pieces`` chooses), and of that the pixels furthest from the
    board at any shade, their brighter half (the lit top, not the sides). The place's measure (``learn_pieces``)
    took the brighter half of everything unlike the board, which in two lights of two colours is the pieces'
    shadows too (each lit by the other light): a tray counted in that colour missed its cubes."""
    from vision.board_read import declared_lab, declared_piece
    from vision.read import EMPTY_SHADES

    empty = board.compare.image.astype(np.float32) * board.white_scale / 255.0
    blurred = cv2.blur(canonical, (3, 3)).reshape(-1, 3).astype(np.float32)  # (a pixel's noise with its neighbours')
    shades = np.array(EMPTY_SHADES, np.float32)
    differs = diff.core.ravel() & (board.owner.ravel() >= 0)
    samples: dict[str, list[np.ndarray]] = {}
    for zone_id, value in layout.calibration.items():
        if layout.zone(zone_id).kind != "slot" or not isinstance(value, str) or value == "empty":
            continue
        at = np.flatnonzero(differs & (board.owner.ravel() == board.slot_ids.index(zone_id)))
        if len(at) < 8:
            continue
        # (the light measured on the board around the place, as the trays' is: ``BoardReader.light_around``)
        light = board.light_around(canonical, diff, *board.around(layout.zone(zone_id).bounds), 8)
        if light is None:
            continue
        white = board.white_scale_at(layout.zone(zone_id).center)
        lab = bgr_to_lab(np.clip(blurred[at] * (white / light).astype(np.float32) / 255.0, 0, 1))
        # The piece is the part of what differs within the place's reach that lies in colour with the part
        # nearest its declared colour, as ``learn_pieces`` takes it: a piece set down off its centre lies partly
        # beyond its place, and its neighbour's spills into it. Near the centre alone, a pale grey cube on a
        # pale board in dim light, which hardly differs from it, left its place's centre to a blue neighbour's
        # corner: grey was learnt blue, and the grey tray of seven read 0 with confidence (dev seed 19765,
        # table 20; 19764, table 3: learnt green, a tray of 14 read 0).
        if value in layout.palette:
            piece = declared_piece(lab, declared_lab(layout, value))
            at, lab = at[piece], lab[piece]
        under = empty.reshape(-1, 3)[at][:, None, :] * shades[None, :, None]
        d = np.linalg.norm(lab[:, None, :] - bgr_to_lab(np.clip(under, 0, 1)), axis=2).min(axis=1)
        piece = lab[d >= np.percentile(d, 60)]
        samples.setdefault(value, []).append(np.median(piece[piece[:, 0] >= np.median(piece[:, 0])], axis=0))
    return {label: lab_to_rgb(np.median(np.array(v), axis=0)) for label, v in samples.items()}


def _top_areas(layout: Layout, ratios: dict[str, list[float]], model: ColourModel, any_trays: bool = False
               ) -> tuple[dict[str, float], dict[str, str]]:
    """One piece's top per label the layout counts, from every calibration tray's measure of a piece of its shape
    (``top_ratio``), and the labels whose top could not be learnt, each with the reason. A label whose own tray
    was not measured takes its shape's top all the same (dev seed 19341, table 4: orange and blue not measured
    kept the layout's top, the other cubes 0.37 of it). ``any_trays`` (against an enrolled board, whose print
    under a tray's cubes scatters their measures more than a plain board's): where fewer than half the trays
    agree, the trays that could be a cube set's and agree more loosely (``plausible_ratio``); where they do not
    either, the top is not learnt and the reason kept (the reader leaves such trays uncounted and says why). Their
    median all the same, the former rule, counted every tray of a table confidently wrong when the trays that
    agreed were the wrong ones: dev seed 19340, table 9 (cubes 0.82 of the layout's side, tops 0.6 of its top),
    trays 1.03, 1.62, 0.67, 1.76, 0.59 (the tray's print taken for tops), 1.03 learnt, trays of 16 counted 6.
    Without ``any_trays``, trays that do not agree leave the layout's top."""
    shapes = piece_shapes(layout)
    counted = {label for z in layout.zones if z.kind == "count" for label in z.labels if label in shapes}
    top_area: dict[str, float] = {}
    unlearnt: dict[str, str] = {}
    for shape in {shapes[label] for label in ratios}:
        reason = ""
        trays = [x for other, r in ratios.items() if shapes[other] == shape for x in r]
        ratio = top_ratio(trays)
        if ratio is None and any_trays and trays:
            ratio = plausible_ratio(trays)
            if ratio is None:
                reason = (f"cube size not learnt: the calibration trays measure one cube's top "
                          f"{', '.join(f'{x:.2f}' for x in trays)} of the layout's, which do not agree; set three "
                          f"cubes apart in each tray and take the calibration frame again ('calibrate colours')")
        for label in sorted(counted | set(ratios)):
            if shapes[label] != shape or label not in model.top_area_mm2:
                continue
            if ratio is not None:
                top_area[label] = model.top_area_mm2[label] * ratio
            elif any_trays:
                unlearnt[label] = reason
    return top_area, unlearnt


def plausible_ratio(trays: list[float]) -> float | None:
    """Where the trays do not agree (``top_ratio``): one top over the layout's from the trays that measure what a
    cube set can show (``TOP_RANGE``) and agree within ``TRAYS_NEAR`` of their median, two at least and more
    than half of them; else None. A tray off the range measured something else (tops lost in the light, the
    tray's print taken for tops), and a board's print scatters the others' measures more than a plain board's."""
    near = [x for x in trays if TOP_RANGE[0] <= x <= TOP_RANGE[1]]
    if len(near) < 2:
        return None
    middle = float(np.median(near))
    agree = [x for x in near if abs(x / middle - 1) <= TRAYS_NEAR]
    return float(np.median(agree)) if len(agree) >= 2 and 2 * len(agree) > len(near) else None


def _pieces_seen(learnt_lab: dict[str, np.ndarray], reader, places: dict[str, list[str]], source: str) -> None:
    """Raises CalibrationFrameError where a colour learnt (Lab, the frame normalised to the board) has come less
    than half the way from the board's colour towards the layout's colour for that piece (along the line between
    them): its places showed the board, not the piece (a cube set beside its place). Learnt so, every tray of
    that colour read 0 with confidence (debug seed 14002, mixed light, table 0: grey learnt 0.01 of the way, the
    board in the lamp's warm half; trays of 6, 13 and 17 read 0). Against the layout's plain board only (an
    enrolled board, illustrated, is not its colour). Only the colours of count zones: a count of 0
    is a confident answer, and a white seal, 22 ΔE from the board, is 0.57 of the way in a warm light there."""
    board = bgr_to_lab(reader.model.background_bgr[None].astype(np.float32))[0]
    palette = ColourModel.from_palette(reader.layout).prototypes_bgr
    counted = {label for z in reader.layout.zones if z.kind == "count" for label in z.labels}
    unseen = [label for label, lab in learnt_lab.items() if label in palette and label in counted
              and _way_from_board(lab, bgr_to_lab(np.asarray(palette[label], np.float32)[None])[0], board) < 0.5]
    if unseen:
        raise CalibrationFrameError(
            f"{source}: no {' or '.join(unseen)} piece seen on its place "
            f"({', '.join(z for label in unseen for z in places[label])}): what is there is the board's colour; "
            f"set the piece on its place and take the calibration frame again")


def _way_from_board(lab: np.ndarray, own: np.ndarray, board: np.ndarray) -> float:
    """How far ``lab`` has come from ``board`` towards ``own`` (0 the board, 1 the piece's colour), along the line
    between them."""
    way = own - board
    return float((lab - board) @ way / max(float(way @ way), 1e-9))


def top_ratio(trays: list[float]) -> float | None:
    """One piece's top over the layout's, from each calibration tray's measure of it (``trays``): the median
    of the trays that agree with each other (within ``TRAYS_AGREE`` of the median of all), when they are more
    than half of them; else None (the layout's top stands). A tray measures a top to a few percent (its three
    cubes' outlines a pixel off), so trays that agree measure a set of cubes of another size than the layout
    says (10-20 % larger or smaller: tops 20-45 % off) as well as one the layout's size; a tray far from the
    others is a tray set out otherwise (a cube missing, a dark colour's top lost in dim light), not the set's
    size. (Dev seed 7611, 115 single-layer trays a size, cubes 0.8 / 1.0 / 1.2 times the layout's, trays
    measured 0.55-0.73 / 0.9-1.1 / 1.17-1.68: the former rule, the layout's top unless 8 % off and moved by 25 %
    at most, left 46 / 11 / 35 % of them uncounted by the area check alone and 4 / 3 / 13 counted wrong; with
    the trays' own measure 13 / 11 / 11 % and 5 / 3 / 3.)"""
    if not trays:
        return None
    middle = float(np.median(trays))
    agree = [x for x in trays if abs(x / middle - 1) <= TRAYS_AGREE]
    return float(np.median(agree)) if 2 * len(agree) > len(trays) else None


def _basis_at(reader, centre) -> np.ndarray:
    from vision.light_field import field_basis
    return field_basis(np.array([centre], float), reader.layout.size)[0]




def learn_pieces(frame: np.ndarray, layout: Layout, calibration: Calibration, source: str = "frame"
                 ) -> dict[str, PieceModel]:
    """The pieces of the calibration frame against the enrolled board (``calibration.board``): per label, the
    median over its places of the lit top's colour and of the area that differs from the board. The places are
    those the layout's ``[calibration]`` table names; every pixel unlike the board in them is the piece."""
    from vision.board_read import declared_lab
    from vision.read import Reader

    if calibration.board is None:
        raise CalibrationFrameError(f"{layout.name}: no board enrolled ('calibrate board' first)")
    reader = Reader(layout, Calibration(layout.name, corners=calibration.corners, camera=calibration.camera,
                                        board=calibration.board))
    location = reader.locator.locate(frame)
    if not location.found:
        raise CalibrationFrameError(f"{source}: board not found (are the markers visible?)")
    board = reader.board_reader
    canonical = board.canonical(frame, location)
    # (each calibration place's piece as the layout declares its colour: it chooses which of what the place shows
    # is the piece, ``board_read.learnt_top``)
    expect = np.full((len(board.slot_ids), 3), np.nan)
    for zone_id, value in layout.calibration.items():
        if isinstance(value, str) and value in layout.palette and zone_id in board.slot_ids:
            expect[board.slot_ids.index(zone_id)] = declared_lab(layout, value)
    m = board.measure(canonical, board.compare.compare(canonical), np.zeros(len(board.slot_ids)), expect=expect)
    area, lab = m.area_in + m.area_body + m.area_ring, m.lab
    found: dict[str, list[tuple[np.ndarray, float]]] = {}
    for zone_id, value in layout.calibration.items():
        if not isinstance(value, str) or value == "empty" or zone_id not in board.slot_ids:
            continue
        i = board.slot_ids.index(zone_id)
        found.setdefault(value, []).append((lab[i], float(area[i])))
    out = {}
    for label, seen in found.items():
        areas = np.array([a for _, a in seen])
        # (a top at the sensor's ceiling tells no colour, ``learnt_top``: the piece is left unseen)
        labs = np.array([c for c, a in seen if a > 0 and not np.isnan(c).any()]).reshape(-1, 3)
        if np.median(areas) > 0 and len(labs):
            out[label] = PieceModel(tuple(float(v) for v in np.median(labs, axis=0)), float(np.median(areas)))
    # A piece of the board's own colour may not show (a black seal on dark print, a purple one on purple art),
    # or only in part: less than SEEN_SHARE of what pieces of its shape show, its colour is what little of it
    # is unlike the print (a blue cube on purple art, seen 0.19 of the other cubes, learnt red). Taking the
    # frame again would not help, and the layout's model of it stands in (``calibrate colours`` says which).
    # Most pieces unseen is a frame not set out as the table says.
    shapes = piece_shapes(layout)
    for label in list(out):
        alike = [p.area_mm2 for other, p in out.items() if shapes[other] == shapes[label]]
        if out[label].area_mm2 < SEEN_SHARE * float(np.median(alike)):
            del out[label]
    unseen = sorted(set(found) - set(out))
    if 2 * len(unseen) > len(found):
        raise CalibrationFrameError(f"{source}: no {', '.join(unseen)} piece seen where the [calibration] table "
                                    f"puts one (is the frame set out as the table says, on the enrolled board?)")
    return out


__all__ = ["CalibrationFrameError", "classify", "learn_colours", "learn_pieces", "stored"]
