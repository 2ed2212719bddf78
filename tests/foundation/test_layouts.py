"""The default layouts load, expand to the documented zones, and malformed layouts are refused."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from calibration.layout import LayoutError, default_layouts, layout_path, load_layout, parse_layout

EXPECTED_ZONES = {
    # 10 cauldrons x (seal + 5 ingredients + tile) + 10 supply tiles + 50 track spaces; 5 reserve trays
    "alchimiste": {"slot": 130, "count": 5},
    "alchymia": {"slot": 9},
    "chaudron": {"slot": 36},
    "alchemists": {"card": 2},
    "chaudron-potions": {"card": 7},  # the revealed potion cards
    "alchymia-crystals": {"card": 5},  # the top card of each crystal stack
}


def test_the_default_layouts_ship():
    assert default_layouts() == sorted(EXPECTED_ZONES)


@pytest.mark.parametrize("name", sorted(EXPECTED_ZONES))
def test_default_layout_expands_to_expected_zone_count(name):
    layout = load_layout(name)
    kinds: dict[str, int] = {}
    for zone in layout.zones:
        kinds[zone.kind] = kinds.get(zone.kind, 0) + 1
    assert kinds == EXPECTED_ZONES[name]
    assert len(layout.markers) >= 4


def test_alchimiste_grid_shorthand_places_cauldrons_and_track():
    layout = load_layout("alchimiste")
    assert layout.zone("cauldron-1.seal").center == (144, 118)
    assert layout.zone("cauldron-10.seal").center == (144 + 4 * 88, 118 + 140)
    assert {f"track-{n}" for n in range(50)} <= set(layout.zone_ids())
    # The track goes clockwise: space 15 is the top-right corner, 25 bottom-right, 40 bottom-left.
    assert layout.zone("track-15").center == (575, 65)
    assert layout.zone("track-25").center == (575, 415)
    assert layout.zone("track-40").center == (65, 415)
    assert layout.zone("reserve-grey").labels == ("grey",)
    pairs = layout.game["cauldron_produces"]
    assert len({frozenset(p) for p in pairs}) == 10


def test_chaudron_cells_are_named_by_row_and_column():
    layout = load_layout("chaudron")
    assert layout.zone("r0c0").center == (45, 45)
    assert layout.zone("r5c5").center == (45 + 150, 45 + 150)
    assert layout.zone("r2c3").labels == ("empty", "bone", "root", "fluid", "fire", "poison", "stone", "burnt")


@pytest.mark.parametrize("name", sorted(EXPECTED_ZONES))
def test_resolved_json_round_trips(name, cli, tmp_path):
    code, out, _ = cli("layout", name, "--json")
    assert code == 0
    data = json.loads(out)
    assert len(data["zones"]) == sum(EXPECTED_ZONES[name].values())
    assert all({"id", "kind", "center", "size", "labels"} <= set(z) for z in data["zones"])
    assert all({"id", "center", "size"} <= set(m) for m in data["markers"])
    path = tmp_path / f"{name}.json"
    path.write_text(out)
    assert load_layout(path) == load_layout(name)
    code, again, _ = cli("layout", str(path), "--json")
    assert code == 0 and json.loads(again) == data


def _chaudron_data() -> dict:
    return tomllib.loads(layout_path("chaudron").read_text())


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return path


def _broken(mutate) -> dict:
    data = _chaudron_data()
    mutate(data)
    return data


MALFORMED = {
    "missing size": (lambda d: d.pop("size"), "size: missing"),
    "missing zone kind": (lambda d: d["grids"][0].pop("kind"), "grids[0].kind: missing"),
    "duplicate zone id": (
        lambda d: d.setdefault("zones", []).append(
            {"id": "r0c0", "kind": "slot", "center": [120, 5], "size": [4, 4], "labels": ["empty"]}),
        "zones.r0c0: zone id used twice"),
    "zone outside the board": (
        lambda d: d.setdefault("zones", []).append(
            {"id": "far", "kind": "slot", "center": [300, 120], "size": [20, 20], "labels": ["empty"]}),
        "zones.far: zone lies outside the board"),
    "unknown label": (lambda d: d["grids"][0]["labels"].append("dragon"), "unknown label 'dragon'"),
    "bad colour": (lambda d: d["palette"].update(bone="white"), "palette.bone: expected a colour"),
    "bad marker id": (lambda d: d["markers"][0].update(id=99), "markers[0].id: expected an ArUco"),
    "calibration label not allowed": (lambda d: d["calibration"].update(r0c0="dragon"),
                                      "calibration.r0c0: unknown label 'dragon'"),
    "grid template without a field": (lambda d: d["grids"][0].update(id="cell"), "grids[0].id:"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_layout_gives_one_line_error_and_exit_2(case, cli, tmp_path):
    mutate, expected = MALFORMED[case]
    path = _write(tmp_path, _broken(mutate))
    with pytest.raises(LayoutError) as info:
        load_layout(path)
    assert str(info.value).startswith(f"{path}: ")
    assert expected in str(info.value)
    code, out, err = cli("layout", str(path), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err


def test_invalid_toml_names_the_file(cli, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = \"x\"\nsize = [1, \n")
    code, _, err = cli("layout", str(path))
    assert code == 2 and err.startswith(f"alchemy-table: {path}: not valid TOML") and err.count("\n") == 1


def test_unknown_layout_name(cli):
    code, _, err = cli("layout", "monopoly")
    assert code == 2 and "monopoly: no such layout" in err


def test_parse_accepts_zones_given_one_by_one():
    layout = parse_layout({
        "name": "mini", "size": [100, 50], "background": "#ffffff", "palette": {"red": "#ff0000"},
        "markers": [{"id": 0, "center": [10, 10], "size": 10}],
        "zones": [{"id": "a", "kind": "slot", "center": [50, 25], "size": [10, 10], "labels": ["empty", "red"]},
                  {"id": "pile", "kind": "count", "center": [80, 25], "size": [20, 20], "labels": ["red"]}],
        "calibration": {"a": "red", "pile": {"red": 2}},
    })
    assert layout.zone_ids("count") == ["pile"]
    assert layout.calibration == {"a": "red", "pile": {"red": 2}}
