"""Child process for the crash test: resume the journal, then append numbered events until killed.

Usage: journal_child.py JOURNAL. Prints ``ready N`` once the journal is open (N: the next index), then each
index after its append has returned, that is after it is on disk.
"""

import sys
from pathlib import Path

from assistant.journal import Journal, resume


def main() -> None:
    path = Path(sys.argv[1])
    if path.exists():
        records, journal = resume(path)
    else:
        records, journal = (), Journal(path)
    index = records[-1].data["i"] + 1 if records else 0
    print("ready", index, flush=True)
    while True:
        # Records of varying length, so that a kill can land anywhere in a line as well as between lines.
        journal.append("event", {"i": index, "note": "Cramé " * (index % 7)})
        print(index, flush=True)
        index += 1


if __name__ == "__main__":
    main()
