"""A session played end to end: rendered (or reused) frames -> the real pipeline -> events by step.

``demo``, the tests and ``bench live`` all go through :func:`play_session`, which also sets the events
each step gave against what the script expects (``expect``) and measures, for each step with a hand, how
many frames after the hand left the table committed the new state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.live.boards import Boards
from assistant.live.pipeline import Step
from assistant.live.replay import Progress, Replayed, commands_beside, open_recorded, replay
from assistant.sessions import Session
from assistant.sessions.render import Rendered, cards_folder, layout_specs, render_session
from assistant.table import mode_class


@dataclass
class Played:
    session: Session
    rendered: Rendered
    replayed: Replayed
    by_step: list[list[Step]] = field(default_factory=list)   # [opening, step 0, step 1, ...]
    mismatches: list[str] = field(default_factory=list)
    latencies: list[int] = field(default_factory=list)       # frames from the hand leaving to the commit
    wrong_commits: list[str] = field(default_factory=list)   # committed states the table never showed

    def kinds(self, step: int) -> list[str]:
        """The event kinds of script step ``step`` (-1: the opening, before the first step)."""
        return [e.kind for s in self.by_step[step + 1] for e in s.events]


def play_session(session: Session, frames: str | Path, out: str | Path | None, workers: int = 2,
                 on_step: Callable[[Step], None] | None = None, progress: bool = False,
                 pictures: bool = True, render_progress: Callable[[int, int], None] | None = None,
                 web: Any = None, realtime: bool = False, hold: bool = False,
                 wait: Callable[[], bool] | None = None) -> Played:
    rendered = render_session(session, frames, workers=workers, progress=render_progress)
    boards = Boards.from_specs(layout_specs(rendered), cards=cards_folder(rendered),
                               mat_sets=mode_class(session.game).card_mats)
    with open_recorded(rendered.folder) as source:
        replayed = replay(source, session.game, boards, session.setup, out, commands=commands_beside(rendered.folder),
                          on_step=on_step, progress=Progress(len(rendered.frames)) if progress else None,
                          pictures=pictures, title=session.title, web=web, realtime=realtime, hold=hold,
                          wait=wait)
    played = Played(session, rendered, replayed)
    _sort_steps(played)
    _check(played)
    return played


def dry_run(session: Session) -> list[list[Any]]:
    """The session's states fed straight to its table mode (no frames, no vision: what a perfect camera would
    commit, through the same dispatch as the live loop, card mats included), with its button presses:
    ``[opening events, step 0 events, ...]``. For writing a session's ``expect`` lists quickly."""
    from assistant.live.boards import Board, is_mat
    from assistant.live.outputs import Outputs
    from assistant.live.pipeline import Pipeline
    from assistant.stabilise import State
    from assistant.table import make_mode

    sets = mode_class(session.game).card_mats
    boards = Boards([Board(name, layout, None, is_mat(layout, sets))  # type: ignore[arg-type]
                     for name, layout in session.board_layouts().items()])
    pipeline = Pipeline(session.game, make_mode(session.game, boards.layout, session.setup), boards,
                        Outputs(None, None))
    out = [list(pipeline.start().events)]
    previous = None
    states = session.states()
    for i, full in enumerate(states):
        state = State.of(full["zones"], full["counts"])
        events = [] if state == previous else list(pipeline.dispatch(state, previous).events)
        previous = state
        if i:
            for command in session.steps[i - 1].commands:
                events += pipeline.command(command).events
            out.append(events)
        else:
            out[0] += events
    return out


def _sort_steps(played: Played) -> None:
    spans = [(-1, 0, played.session.steady_frames - 1)]
    spans += [(i, s["first"], s["last"]) for i, s in enumerate(played.rendered.manifest["steps"])]
    played.by_step = [[] for _ in spans]
    for step in played.replayed.pipeline.steps:
        if step.kind == "start":
            played.by_step[0].append(step)
            continue
        for k, (_, first, last) in enumerate(spans):
            if first <= step.frame <= last:
                played.by_step[k].append(step)
                break


def _check(played: Played) -> None:
    manifest = played.rendered.manifest
    states = manifest["states"]
    frames = manifest["frames"]
    for step in played.replayed.pipeline.steps:
        if step.kind != "state":
            continue
        shown = states[frames[step.frame]["state"]]
        truth = _as_state(shown)
        if step.state != truth:
            wrong = step.state.changed(truth)
            played.wrong_commits.append(f"frame {step.frame}: committed a state the table does not show "
                                        f"({', '.join(wrong[:5])})")
    for i, (script_step, span) in enumerate(zip(played.session.steps, manifest["steps"], strict=True)):
        seen = played.kinds(i)
        if script_step.expect is not None and seen != list(script_step.expect):
            played.mismatches.append(f"step {i + 1} ({script_step.say}): expected {list(script_step.expect)}, "
                                     f"saw {seen}")
        left = span["hand_left"]
        if left is None:
            continue
        commits = [s.frame for s in played.by_step[i + 1] if s.kind == "state" and s.frame >= left]
        changed = states[i + 1] != states[i]
        if changed and commits:
            played.latencies.append(commits[0] - left + 1)
        elif changed:
            played.mismatches.append(f"step {i + 1} ({script_step.say}): the new state was never committed")


def _as_state(shown: dict[str, Any]):
    from assistant.stabilise import State

    return State.of(shown["zones"], {z: c if len(c) > 1 else {"count": sum(c.values())}
                                     for z, c in shown["counts"].items()})
