"""``alchemy-table`` with the Chaudron table mode replaced by the test mode of ``echo_mode.py``, so that the
run loop, its journal and its resuming are tested on their own. Usage: run_child.py ARGS... (as the CLI)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from assistant.cli import main
from assistant.table import MODES

MODES["chaudron"] = "echo_mode:EchoTable"

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
