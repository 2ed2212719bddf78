"""One frame for a command: from a file, or from the configured camera through the live path.

``--camera`` opens the camera exactly as ``run`` does (``camera.*`` settings, the same format and size), lets
automatic exposure and white balance settle for ``camera.settle_s`` and lock, then keeps the next frame: a
calibration taken this way matches what the service will see. Commands use it as::

    add_frame_source(parser)               # IMAGE (optional), --camera, and the configuration flags
    frame = frame_from_args(args)          # a BGR uint8 array; one clear line (ValueError/OSError) if not
"""

from __future__ import annotations

import time

import numpy as np

from assistant.config import Config, add_arguments, from_args

SETTLE_MARGIN_S = 0.5  # a frame or two after the lock, so the kept frame was taken with locked exposure


def add_frame_source(parser, *, config_flags: bool = True) -> None:
    """``IMAGE`` (optional) and ``--camera``; with ``config_flags``, ``--config``/``--set``/``--simulate`` too
    (leave them out when the parser has them already)."""
    parser.add_argument("image", nargs="?", metavar="IMAGE", help="the frame, a picture file (or --camera)")
    parser.add_argument("--camera", action="store_true",
                        help="take the frame from the configured camera, as the service sees it (exposure "
                             "settled and locked)")
    if config_flags:
        add_arguments(parser)


def frame_from_args(args, config: Config | None = None) -> np.ndarray:
    """The frame ``args`` asks for: ``args.image`` read from disk, or one from the camera (``args.camera``)."""
    if args.camera and args.image:
        raise ValueError("give a picture file or --camera, not both")
    if args.image:
        from vision.image import load_frame
        return load_frame(args.image)
    if not args.camera:
        raise ValueError("give a picture file (IMAGE) or --camera to take the frame from the camera")
    return grab_frame(config if config is not None else from_args(args))


def grab_frame(config: Config, report=None) -> np.ndarray:
    """One frame from the configured camera once its exposure has settled (a recording: its first frame).
    A camera that gives nothing is an ``OSError`` with the camera's own words."""
    reports: list[str] = []

    def heard(message: str) -> None:
        reports.append(message)
        if report is not None:
            report(message)

    with config.open_camera(report=heard, max_failures=3) as source:
        live = not source.name.startswith(("folder ", "video "))
        wait = config["camera.settle_s"] + SETTLE_MARGIN_S if live else 0.0
        started = time.monotonic()
        while True:
            item = source.read()
            if item is None:
                raise OSError(reports[-1] if reports else f"{source.name}: no frame")
            if time.monotonic() - started >= wait:
                return item[1]
