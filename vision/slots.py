"""Reading slot zones: the label (or empty, or unknown) each slot's cells show.

Each zone's cells are classified in Lab against every label the zone allows, each label at a few
shades (a cube's sides are darker than its top; pieces in a shadow), the board background at shadow
shades too. The cells vote; a zone is empty when too few cells look like a piece for the piece's own
size (a cube shows more of its colour than a seal). A zone under a hand, or whose cells mostly match none
of its labels, is ``unknown``.
"""

from __future__ import annotations

import numpy as np

from calibration.layout import Layout
from vision import classify
from vision.geometry import BoardGeometry
from vision.pieces import piece_shapes
from vision.reading import ZoneReading

LIT_SHADES = 3  # the first piece shades (``vision.read.PIECE_SHADES``) are a lit top face
WEAK_TOP = 0.5  # the evidence of a cell showing a pale piece's lit top that the board in a glare comes near
WEAK_DE = 13.0  # a piece's shade this close to the board at some shade is weak evidence of the piece
HAND_COVER = 0.05  # a zone this much under the hand mask is unknown


class SlotReader:
    """Reads the slot zones of one layout from the mean colours of each slot's cells; what depends only on
    the layout and its colours (each code's evidence, each slot's table and needs) is worked out once."""

    def __init__(self, layout: Layout, geometry: BoardGeometry, labels: list[str], prototypes: np.ndarray,
                 tables: np.ndarray, slot_sets: list[int]):
        """``labels``: the reader's labels (``empty`` first); ``prototypes``: their Lab at every shade;
        ``tables``: the classify label table of each set of labels zones allow; ``slot_sets``: each slot's."""
        self.geometry, self.labels, self.tables = geometry, labels, tables
        # A light, low-chroma piece (a bone cube, a white seal) has shades that look like the board in a
        # shadow or a glare. Such cells support the label once the piece is seen, but show it on their own
        # only as its lit top: by half (WEAK_TOP; a bone cube's top a little dimmer than its colour comes
        # near the board in a glare, yet a whole top of such cells is the cube), its sides not at all.
        near_board = np.linalg.norm(prototypes[:, :, None] - prototypes[0][None, None], axis=-1).min(-1)
        weak = np.zeros((len(self.labels) + 1, 16), bool)
        weak[1:len(self.labels), :near_board.shape[1]] = near_board[1:] < WEAK_DE
        # Per code (classify): its label (len(labels) for none), and how much it shows a piece on its own.
        code, none = np.arange(256), len(self.labels)
        self._code_label = np.where(code < classify.HIGHLIGHT, np.minimum(code // 16, none), none)
        piece, weak = code < classify.HIGHLIGHT, weak[self._code_label, code % 16]
        self._code_evidence = np.where(piece & ~weak, 1.0, np.where(piece & (code % 16 < LIT_SHADES), WEAK_TOP, 0.0))
        self._code_lit = np.where(code % 16 < LIT_SHADES, self._code_evidence, 0.0)  # (a lit top's evidence)
        g = geometry
        # (where each slot cell's table starts, flat)
        self._slot_table = np.repeat(np.array(slot_sets, np.int64), g.cells * g.cells) * classify.LEVELS ** 3
        # (row i's cells: i * (L + 1); for up to every slot twice, as read_in_their_light reads them)
        self._slot_row = np.repeat(np.arange(2 * len(g.slot_ids)), g.cells * g.cells) * (len(self.labels) + 1)
        slots = [layout.zone(z) for z in g.slot_ids]
        shapes = piece_shapes(layout)
        inset_area = np.array([(z.size[0] - 3) * (z.size[1] - 3) for z in slots], float)
        # Per slot and piece label: the evidence (cells) that label's own piece shows at least; a label the
        # slot may not hold, as much as any. A zone's smallest piece sets when anything at all is there
        # (``_piece_min``); a bigger piece needs more of its colour.
        own = np.array([[shapes[label].area_mm2 if label in z.labels and label in shapes else 1e9
                         for label in self.labels[1:]] for z in slots], float).reshape(len(slots), len(self.labels) - 1)
        most = 0.35 * g.cells * g.cells
        self._label_need = np.clip(0.35 * own / np.maximum(inset_area, 1)[:, None], 0.06, 0.35) * g.cells * g.cells
        self._piece_min = self._label_need.min(axis=1, initial=most)

    def read(self, slot_means: np.ndarray, gain_slot: np.ndarray, cover: np.ndarray,
             which: np.ndarray | None = None) -> dict[str, ZoneReading]:
        """``cover``: the fraction of each slot under the hand mask; ``which``: the slots to read (indices),
        all of them by default."""
        ids = self.geometry.slot_ids if which is None else [self.geometry.slot_ids[j] for j in which]
        gains = gain_slot if which is None else gain_slot[which]
        return dict(zip(ids, self._readings(slot_means, gains, cover, which), strict=True))

    def _readings(self, slot_means: np.ndarray, gains: np.ndarray, cover: np.ndarray,
                  which: np.ndarray | None = None) -> list[ZoneReading]:
        """The readings of the slots ``which`` (indices, a slot may come twice; all of them by default) in that
        order, each in its row of ``gains``. Each is read on its own: the same reading in any company."""
        g = self.geometry
        k2 = g.cells * g.cells
        means, table_at = slot_means.reshape(-1, k2, 3), self._slot_table
        need, label_need = self._piece_min, self._label_need
        if which is not None:
            means, need, label_need = means[which], need[which], label_need[which]
            cover, table_at = cover[which], table_at.reshape(-1, k2)[which].ravel()
        n = len(means)
        if n == 0:
            return []
        cells = means * (gains[:, None, :] / 255.0)
        codes = self.tables.reshape(-1).take(table_at + classify.index(classify.to_uint8(cells, in_place=True)).ravel())
        foreign = (codes == classify.FOREIGN).reshape(n, k2)
        L = len(self.labels)
        label = self._code_label.take(codes)
        row = self._slot_row[:n * k2]
        # bincount over flat (row, label) indices: the same tallies as np.add.at, an order of magnitude faster
        at = row + label
        votes = np.bincount(at, minlength=n * (L + 1)).reshape(n, L + 1)
        shown = np.bincount(at, weights=self._code_evidence.take(codes), minlength=n * (L + 1)).reshape(n, L + 1)
        n_foreign = foreign.sum(1)
        pieces = votes[:, 1:L]
        evidence = shown[:, 1:L]
        lit = np.bincount(at, weights=self._code_lit.take(codes),
                          minlength=n * (L + 1)).reshape(n, L + 1)[:, 1:L]
        # Of the labels with evidence enough for their piece, the one whose lit top shows most, then the most
        # evidence, then the most votes (a purple seal in dim light has cells as dark as a pink seal's shaded
        # ones, but only it shows a lit top); of the others, the most evidence, then votes.
        b = 2 * (k2 + 1)  # (a base for the ordering: evidence comes in halves, votes up to k2)
        top = ((evidence >= label_need) * b ** 3 + lit * b * b + evidence * b + pieces).argmax(1)
        top_votes = pieces[np.arange(n), top]
        ordered = np.sort(pieces, axis=1)
        second = np.where(ordered[:, -1] == top_votes, ordered[:, -2] if L > 2 else 0, ordered[:, -1])
        piece_total = evidence.sum(1)
        hidden = cover >= HAND_COVER
        alien = (n_foreign >= np.maximum(need, 0.2 * k2)) & (n_foreign > top_votes)
        top_need = label_need[np.arange(n), top]
        piece = evidence[np.arange(n), top] >= top_need
        margin = (top_votes - second) / np.maximum(1, top_votes + n_foreign)
        piece_conf = np.clip(margin * np.minimum(1.0, top_votes / (2 * need)), 0, 1)
        empty_conf = np.clip(1.0 - (piece_total + n_foreign) / np.maximum(top_need, 1), 0, 1)
        names = np.array([*self.labels[1:], "empty"], dtype=object)[np.where(piece, top, L - 1)]
        names[alien] = "unknown"
        names[hidden] = "unknown"
        conf = np.where(piece, piece_conf, empty_conf)
        conf = np.where(alien, np.minimum(1.0, n_foreign / (0.4 * k2)), conf)
        conf = np.where(hidden, np.minimum(1.0, 0.5 + cover), conf)
        # Most slots read alike: one reading made for each alike.
        alike = list(zip(names.tolist(), conf.tolist(), strict=True))
        made = {key: ZoneReading(key[0], round(key[1], 3)) for key in dict.fromkeys(alike)}  # (the first of each)
        return list(map(made.__getitem__, alike))

    def read_in_their_light(self, slot_means: np.ndarray, gain_slot: np.ndarray, cover: np.ndarray,
                            local: np.ndarray) -> dict[str, ZoneReading]:
        """Every slot read in the light that reaches the board around it: a slot in a shadow (a hand's, beside
        it) with its colours raised as much as the board's there. The shadow may be its neighbours' instead,
        long under a low lamp, and not over its own piece's lit top: raised, an orange cube's top looks
        yellow. So such a slot is also read as lit, and where both readings name pieces, different ones, the
        surer stands. (Not where one reads empty: a shadowed empty place read as lit looks like a dark
        piece, and a pale cube's top in a shadow read as lit looks like the board.) ``local``: per slot, the
        light reaching the board around it as a share of the light field's (1 where no shadow lies)."""
        ids = self.geometry.slot_ids
        gains, which = gain_slot / local[:, None], None
        shaded = np.flatnonzero(local < 1.0)
        if len(shaded):  # read as lit too, in the same call (a second one's overheads cost more than the rows)
            gains = np.concatenate([gains, gain_slot[shaded]])
            which = np.concatenate([np.arange(len(ids)), shaded])
        readings = self._readings(slot_means, gains, cover, which)
        zones = dict(zip(ids, readings[:len(ids)], strict=True))
        not_a_piece = ("empty", "unknown")
        for j, as_lit in zip(shaded.tolist(), readings[len(ids):], strict=True):
            zid = ids[j]
            if zones[zid].label in not_a_piece:
                continue
            if as_lit.label not in (zones[zid].label, *not_a_piece) and as_lit.confidence > zones[zid].confidence:
                zones[zid] = as_lit
        return zones
