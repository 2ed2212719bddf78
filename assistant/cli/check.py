"""``alchemy-table check RECORD.json``: replay a game record and give every action its verdict.

Exit 0 when every action is legal, 1 when the record holds an illegal action (reported with its index and
reason; nothing after it is applied), 2 when the file itself is unusable.
"""

from __future__ import annotations

import json

from assistant.records import check_file


def register(sub) -> None:
    p = sub.add_parser("check", help="replay a game record (JSON) and check every action against the rules",
                       description="Replay a game record through its engine: each action with its verdict "
                                   "and the running scores. Exit 1 if an action is illegal.")
    p.add_argument("record", metavar="RECORD.json")
    p.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    p.set_defaults(run=run)


def run(args) -> int:
    report = check_file(args.record)
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        for step in report.steps:
            scores = ", ".join(f"{name} {points}" for name, points in step.scores.items())
            verdict = "ok" if step.legal else "ILLEGAL"
            print(f"#{step.index:<3} {verdict:7} {step.action}" + (f"  [{scores}]" if scores else ""))
            if not step.legal:
                print(f"     reason: {step.reason}")
        bad = report.first_illegal
        if bad is not None:
            print(f"first illegal action: #{bad.index}: {bad.reason} (nothing after it was applied)")
        for line in report.summary:
            print(line)
    return 0 if report.first_illegal is None else 1
