"""The annotated picture of a reading: each zone outlined on the frame with its label; low-confidence
and unknown zones flagged in red, hands shaded."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import Layout
from vision.reading import Reading, low_confidence

OK = (60, 200, 60)
DOUBT = (40, 40, 230)


def annotate(frame: np.ndarray, layout: Layout, reading: Reading) -> np.ndarray:
    out = frame.copy()
    if not reading.board_found:
        cv2.putText(out, "board not found", (30, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.5, DOUBT, 3, cv2.LINE_AA)
        return out
    for z in layout.zones:
        left, top, right, bottom = z.bounds
        pts = reading.to_frame([[left, top], [right, top], [right, bottom], [left, bottom]])
        if z.kind != "count":
            r = reading.zones[z.id]
            text = "" if r.label == "empty" and not low_confidence(r) else (
                "?" if r.label == "unknown" else r.label.replace("seal-", "s."))
        else:
            r = reading.counts[z.id]
            text = "?" if r.count is None else str(r.count)
        colour = DOUBT if low_confidence(r) else OK
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, 2 if colour == DOUBT else 1, cv2.LINE_AA)
        if text:
            cx, cy = pts.mean(axis=0)
            org = (round(cx - 4 * len(text)), round(cy + 4))
            cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
    return out
