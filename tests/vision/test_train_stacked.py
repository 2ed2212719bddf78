"""``train-stacked --enrolled`` measures trays read against an enrolled board face (the reader asks its stacked test
for them with ``enrolled=True``; the recorder that keeps their signs must take that call)."""

from __future__ import annotations

import numpy as np

from vision import stacked_model
from vision.train_stacked import BOARDS, examples


def test_trays_on_enrolled_board_faces_are_measured_for_the_enrolled_test():
    kept = examples(4230, "warm", 1, 1, ("illustrated",))
    assert len(kept.y) >= 3  # the five reserve trays, less any the table's hand covers
    assert kept.x.shape == (len(kept.y), stacked_model.N_FEATURES)
    assert np.isfinite(kept.x).all()
    assert (kept.board == BOARDS.index("illustrated")).all()
