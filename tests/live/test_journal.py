"""The journal: round trip, torn last line, corruption, and durability calls."""

from __future__ import annotations

import json
import logging
import os

import pytest

import assistant.journal as journal_module
from assistant.journal import Journal, JournalError, read, resume
from assistant.stabilise import Stabiliser, State, last_committed


def write_events(path, n):
    with Journal(path) as j:
        for i in range(n):
            j.append("event", {"i": i})


def test_round_trip_keeps_every_record_in_order(tmp_path):
    path = tmp_path / "game.jsonl"
    state = State.of({"r0c0": "burnt", "r0c1": "empty"}, {"reserve-grey": 7})
    reading = {"board_found": True, "zones": {"r0c0": {"label": "burnt", "confidence": 0.9},
                                              "r0c1": {"label": "empty", "confidence": 0.9}},
               "counts": {"reserve-grey": {"count": 7, "confidence": 0.9}}}
    stabiliser = Stabiliser()
    commit = [stabiliser.feed(reading, 0.0, frame=f) for f in (10, 11, 12)][-1]
    with Journal(path) as j:
        j.append("game", {"game": "chaudron", "players": ["Élise", "Marc"]})
        j.append("state", commit.to_json())
        j.append("event", {"what": "cramé", "text": "line\nbreak \u2028 separator"})
    records = read(path)
    assert [(r.seq, r.kind) for r in records] == [(1, "game"), (2, "state"), (3, "event")]
    assert records[0].data["players"] == ["Élise", "Marc"]
    assert State.from_json(records[1].data) == state
    assert (records[1].data["frame"], records[1].data["since"]) == (12, 10)
    assert records[2].data["text"] == "line\nbreak \u2028 separator"
    assert path.read_bytes().count(b"\n") == 3  # one line per record, whatever the strings hold


def test_resume_carries_on_numbering(tmp_path):
    path = tmp_path / "game.jsonl"
    write_events(path, 3)
    records, j = resume(path)
    with j:
        assert j.append("event", {"i": 3}).seq == 4
    assert [r.data["i"] for r in read(path)] == [0, 1, 2, 3]
    assert [r.seq for r in records] == [1, 2, 3]


def test_a_torn_last_line_is_ignored_with_a_one_line_warning(tmp_path, caplog):
    path = tmp_path / "game.jsonl"
    write_events(path, 3)
    intact = path.read_bytes()
    path.write_bytes(intact + b'{"seq":4,"time":"2025-01-01T2')
    with caplog.at_level(logging.WARNING):
        records = read(path)
    assert [r.data["i"] for r in records] == [0, 1, 2]
    assert [m.splitlines() for m in caplog.messages] == [[f"{path}:4: torn last line ignored "
                                                          "(29 bytes: no newline at the end)"]]
    assert path.read_bytes().endswith(b"2025-01-01T2")  # reading changes nothing


def test_resume_cuts_a_torn_line_off_so_the_next_append_is_clean(tmp_path, caplog):
    path = tmp_path / "game.jsonl"
    write_events(path, 2)
    intact = path.read_bytes()
    path.write_bytes(intact + b"\x00" * 40)  # what a power cut can leave after a file's last block
    with caplog.at_level(logging.WARNING):
        records, j = resume(path)
    assert len(records) == 2 and f"{path}:3: torn last line ignored" in caplog.text
    with j:
        j.append("event", {"i": 2})
    caplog.clear()
    assert [r.data["i"] for r in read(path)] == [0, 1, 2]
    assert caplog.messages == []


def test_a_complete_last_record_without_its_newline_was_never_acknowledged(tmp_path):
    path = tmp_path / "game.jsonl"
    write_events(path, 2)
    path.write_bytes(path.read_bytes()[:-1])
    assert [r.data["i"] for r in read(path)] == [0]


@pytest.mark.parametrize("damage, reason", [
    (lambda lines: lines.__setitem__(1, b'{"seq":2,"time":"x","kind":"event","da'), "corrupt record"),
    (lambda lines: lines.__setitem__(1, b""), "corrupt record"),
    (lambda lines: lines.__delitem__(1), "seq: expected 2, got 3"),
    (lambda lines: lines.__setitem__(1, b'["not", "an", "object"]'), "expected an object with seq"),
    (lambda lines: lines.__setitem__(1, b'{"seq":2,"time":"x","kind":"event","data":{"t":"\xff"}}'), "not UTF-8"),
])
def test_a_bad_line_in_the_middle_is_an_error_naming_file_and_line(tmp_path, damage, reason):
    path = tmp_path / "game.jsonl"
    write_events(path, 4)
    lines = path.read_bytes().split(b"\n")
    damage(lines)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=reason) as e:
        read(path)
    assert str(e.value).startswith(f"{path}:2: ")
    with pytest.raises(JournalError, match=f"{path}:2: "):
        resume(path)


def test_data_that_is_not_json_is_refused_before_anything_is_written(tmp_path):
    path = tmp_path / "game.jsonl"
    with Journal(path) as j:
        for bad in ({"x": {1, 2}}, {"x": float("nan")}, {"x": "\ud800"}):
            with pytest.raises(JournalError, match="is not JSON"):
                j.append("event", bad)
        with pytest.raises(JournalError, match="data: expected a dict"):
            j.append("event", ["a", "list"])
        assert j.append("event", {"ok": True}).seq == 1
    assert path.read_bytes().count(b"\n") == 1


def test_two_processes_cannot_write_one_journal(tmp_path):
    path = tmp_path / "game.jsonl"
    with Journal(path), pytest.raises(JournalError, match="in use by another process"):
        Journal(path)
    Journal(path).close()  # free again once the first is closed


def test_every_append_is_synced_before_it_returns_and_new_folders_are_synced(tmp_path, monkeypatch):
    synced, folders = [], []
    monkeypatch.setattr(journal_module, "_sync", lambda fd: synced.append(os.fstat(fd).st_size))
    real = journal_module._fsync_folder
    monkeypatch.setattr(journal_module, "_fsync_folder", lambda f: (folders.append(f), real(f)))
    path = tmp_path / "var" / "lib" / "game.jsonl"
    with Journal(path) as j:
        assert folders == [tmp_path, tmp_path / "var", tmp_path / "var" / "lib"]
        for i in range(3):
            j.append("event", {"i": i})
            assert synced[-1] == path.stat().st_size  # synced after the whole line was written
    assert len(synced) == 3
    folders.clear()
    Journal(path).close()
    assert folders == []  # an existing journal adds no name to its folder


def test_after_a_failed_sync_the_journal_refuses_until_resumed(tmp_path, monkeypatch):
    path = tmp_path / "game.jsonl"
    write_events(path, 1)
    j = Journal(path)

    def fail(fd):
        raise OSError(5, "Input/output error")
    monkeypatch.setattr(journal_module, "_sync", fail)
    with pytest.raises(OSError):
        j.append("event", {"i": 1})
    monkeypatch.undo()
    with pytest.raises(JournalError, match="an earlier append failed"):
        j.append("event", {"i": 2})
    j.close()
    records, j = resume(path)
    with j:
        j.append("event", {"i": len(records)})
    assert [r.seq for r in read(path)] == [1, 2, 3]


def test_resuming_nothing_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        resume(tmp_path / "missing.jsonl")


def test_records_are_the_documented_envelope(tmp_path):
    path = tmp_path / "game.jsonl"
    with Journal(path) as j:
        j.append("event", {"i": 0})
    line = json.loads(path.read_text(encoding="utf-8"))
    assert set(line) == {"seq", "time", "kind", "data"} and line["time"][10] == "T"


def test_a_resumed_stabiliser_does_not_commit_the_journalled_board_again(tmp_path):
    path = tmp_path / "game.jsonl"
    board = {"board_found": True, "zones": {"r0c0": {"label": "fire", "confidence": 0.9}}, "counts": {}}
    moved = {"board_found": True, "zones": {"r0c0": {"label": "root", "confidence": 0.9}}, "counts": {}}
    with Journal(path) as j:
        s = Stabiliser()
        for f in range(3):
            if (commit := s.feed(board, 0.0, frame=f)) is not None:
                j.append("state", commit.to_json())
        j.append("event", {"what": "something after the state"})
    records, j = resume(path)  # the power came back
    j.close()
    s = Stabiliser(committed=last_committed(records))
    assert [s.feed(board, 0.0, frame=f) for f in range(5)] == [None] * 5
    assert [s.feed(moved, 0.0, frame=f) is not None for f in range(3)] == [False, False, True]
    assert last_committed([]) is None
