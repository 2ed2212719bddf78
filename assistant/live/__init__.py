"""The live assistant: frames -> boards read -> motion -> stabiliser -> table mode -> journal -> LEDs, display.

- :mod:`assistant.live.boards`: the boards in view (one, or one per player board, zone ids prefixed);
- :mod:`assistant.live.pipeline`: :class:`Pipeline`, the loop body, and resuming a game from its journal;
- :mod:`assistant.live.outputs`: the LEDs and the display, as the table modes' responses drive them;
- :mod:`assistant.live.replay`: a recorded source (image folder, video) through the pipeline, with the
  composed pictures (:mod:`assistant.live.compose`) and the events log;
- :mod:`assistant.live.run`: the live loop over the configured camera and devices (``alchemy-table run``).

The commands are ``alchemy-table run``, ``replay`` and ``demo`` (docs/live.md).
"""

from assistant.live.boards import Board, Boards
from assistant.live.outputs import Outputs
from assistant.live.pipeline import FrameResult, Pipeline, ResumeError, Step

__all__ = ["Board", "Boards", "FrameResult", "Outputs", "Pipeline", "ResumeError", "Step"]
