"""What ``bench live`` measures: every stage of every frame timed by the pipeline itself, and frames rendered
once (a session's frames are reused while its script is unchanged, so neither ``demo`` nor the benchmark
renders them again)."""

from __future__ import annotations

from test_pipeline import SCRIPT, Scripted, new_pipeline, play

from assistant.live.timing import StageTimes
from assistant.sessions.render import render_session


def test_the_pipeline_times_each_stage_and_the_table_mode_only_on_commits(tmp_path):
    from test_pipeline import READINGS

    pipeline = new_pipeline(tmp_path / "game.jsonl")
    pipeline.boards = Scripted(READINGS)
    pipeline.times = times = StageTimes()
    play(pipeline, SCRIPT)
    assert len(times.frames) == len(SCRIPT)
    committed = [i for i, result in enumerate(pipeline.frames) if result.commit is not None]
    assert committed and all({"table mode", "journal", "outputs", "stabilise"} <= set(times.frames[i])
                             for i in committed)
    quiet = [t for i, t in enumerate(times.frames) if i not in committed]
    assert all(set(t) == {"read", "stabilise", "outputs"} for t in quiet)  # (no locate apart: Scripted boards)
    assert all(v >= 0 for t in times.frames for v in t.values())


def test_a_rendered_session_is_reused_not_rendered_again(echo_frames):
    session, rendered = echo_frames
    before = {p.name: p.stat().st_mtime_ns for p in rendered.folder.glob("frame-*.jpg")}
    again = render_session(session, rendered.folder)
    assert again.reused
    assert {p.name: p.stat().st_mtime_ns for p in rendered.folder.glob("frame-*.jpg")} == before
