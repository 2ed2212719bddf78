"""``alchemy-table layout``: list the layouts, print one resolved (``--json``) or draw its plan (``--png``)."""

from __future__ import annotations

import json
from pathlib import Path

from calibration.layout import default_layouts, load_layout
from calibration.plan import draw_plan


def register(sub) -> None:
    p = sub.add_parser("layout", help="list board layouts, print one resolved (--json) or draw it (--png)",
                       description="'layout list' lists the layouts that ship; 'layout NAME' describes one "
                                   "(NAME may be a path to a .toml or resolved .json layout file).")
    p.add_argument("name", metavar="NAME|list", help="a layout name or file, or 'list'")
    p.add_argument("--json", action="store_true", help="print the resolved layout as JSON")
    p.add_argument("--png", metavar="FILE", help="draw the plan of the board to scale into FILE")
    p.add_argument("--px-per-mm", type=float, default=2.0, help="scale of the --png plan (default 2)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.name == "list":
        for name in default_layouts():
            layout = load_layout(name)
            print(f"{name:12} {layout.description}")
        return 0
    layout = load_layout(args.name)
    if args.png:
        if not 0.2 <= args.px_per_mm <= 20:
            raise ValueError(f"--px-per-mm: {args.px_per_mm} is outside 0.2..20")
        out = Path(args.png)
        out.parent.mkdir(parents=True, exist_ok=True)
        draw_plan(layout, args.px_per_mm).save(out)
        if not args.json:
            print(f"{layout.name}: plan written to {out}")
    if args.json:
        print(json.dumps(layout.to_dict(), indent=2))
    elif not args.png:
        print(summary(layout))
    return 0


def summary(layout) -> str:
    kinds: dict[str, int] = {}
    for z in layout.zones:
        kinds[z.kind] = kinds.get(z.kind, 0) + 1
    zones = ", ".join(f"{n} {kind} zones" for kind, n in sorted(kinds.items()))
    markers = ", ".join(str(m.id) for m in layout.markers)
    return (f"{layout.name}: {layout.description}\n"
            f"  board {layout.size[0]:g} x {layout.size[1]:g} mm, markers {markers}\n"
            f"  {zones}\n"
            f"  labels: {', '.join(sorted(layout.palette))}")
