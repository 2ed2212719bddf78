"""Kill a process that appends to the journal at random points, many times: nothing acknowledged is lost."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from assistant.journal import read, resume

CHILD = Path(__file__).with_name("journal_child.py")
KILLS = 30
TIME_LIMIT_S = 20.0  # on a loaded machine, stop early rather than run long; at least MIN_KILLS are needed
MIN_KILLS = 10


def test_sigkill_at_random_points_loses_no_acknowledged_record_and_resume_works(tmp_path):
    path = tmp_path / "journal" / "game.jsonl"
    rng = random.Random(9)
    reported_up_to = -1  # highest index any child said was appended
    in_journal: list[int] = []
    kills, start = 0, time.monotonic()
    while kills < KILLS and time.monotonic() - start < TIME_LIMIT_S:
        child = subprocess.Popen([sys.executable, str(CHILD), str(path)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        if rng.random() < 0.2:
            time.sleep(rng.uniform(0, 0.08))  # anywhere, start-up and resuming included
        else:
            ready = child.stdout.readline()  # "ready N": the journal is resumed, N the next index
            assert ready == f"ready {len(in_journal)}\n", child.stderr.read()
            time.sleep(rng.uniform(0, 0.03))
        child.send_signal(signal.SIGKILL)
        out = child.stdout.read()  # not communicate(): it would skip what readline() has buffered
        child.wait()
        child.stdout.close()
        child.stderr.close()
        kills += 1
        indices = [int(line) for line in out.splitlines() if not line.startswith("ready")]
        assert indices == list(range(len(in_journal), len(in_journal) + len(indices)))
        before = indices[-1] + 1 if indices else len(in_journal)  # journal length the child vouched for
        reported_up_to = max(reported_up_to, before - 1)
        in_journal = [r.data["i"] for r in read(path)] if path.exists() else []
        assert in_journal == list(range(len(in_journal))), "a gap, a repeat or a reordering"
        # Everything ever reported is there; at most one more (appended, killed before it said so).
        assert reported_up_to + 1 <= len(in_journal) <= before + 1
    assert kills >= MIN_KILLS
    assert reported_up_to > kills  # the children did append between kills

    records, journal = resume(path)
    with journal:
        for i in range(len(records), len(records) + 5):
            journal.append("event", {"i": i})
    assert [r.data["i"] for r in read(path)] == list(range(len(records) + 5))
