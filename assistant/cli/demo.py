"""``alchemy-table demo``: what ``make demo`` runs.

For now: every default layout described and drawn to ``demo-output/``. The live assistant over the
bundled recorded sessions takes this place when it lands.
"""

from __future__ import annotations

from pathlib import Path

from assistant.cli.layout import summary
from calibration.layout import default_layouts, load_layout
from calibration.plan import draw_plan


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the demo (what 'make demo' runs), writing pictures to demo-output/")
    p.add_argument("--out", default="demo-output", help="folder for the pictures (default demo-output)")
    p.set_defaults(run=run)


def run(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in default_layouts():
        layout = load_layout(name)
        print(summary(layout))
        path = out / f"layout-{name}.png"
        draw_plan(layout).save(path)
        print(f"  plan drawn to {path}\n")
    return 0
