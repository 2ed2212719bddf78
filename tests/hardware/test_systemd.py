"""The service unit (required keys, systemd-analyze verify where available) and install.sh, run against
stand-ins for the system commands so that its real logic runs without touching the machine."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "alchemy-table.service"
INSTALL = ROOT / "systemd" / "install.sh"


def unit_entries() -> dict[str, list[tuple[str, str]]]:
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = line.strip("[]")
            sections[current] = []
        else:
            key, _, value = line.partition("=")
            sections[current].append((key.strip(), value.strip()))
    return sections


def test_unit_has_the_required_keys():
    units = unit_entries()
    service = dict(units["Service"])
    assert service["Type"] == "notify"
    assert int(service["WatchdogSec"]) > 0
    assert service["Restart"] == "on-failure"
    assert service["NoNewPrivileges"] == "yes"
    assert service["ProtectSystem"] == "strict"
    assert service["ReadWritePaths"] == "/var/lib/alchemy-table"
    assert service["User"] == "alchemy-table"
    assert set(service["SupplementaryGroups"].split()) == {"video", "gpio", "i2c", "spi"}
    # --resume: after a crash or a power cut the service carries on with the game it was keeping
    assert service["ExecStart"].endswith("/bin/alchemy-table run --resume")
    assert "PrivateDevices" not in service  # it would hide the camera, GPIO, I2C and SPI
    assert dict(units["Install"])["WantedBy"] == "multi-user.target"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_unit_passes_systemd_analyze_verify(tmp_path):
    # verify insists that ExecStart exists: point it at this checkout's command, nothing else changes.
    command = Path(os.environ.get("VIRTUAL_ENV", ROOT / ".venv")) / "bin" / "alchemy-table"
    if not command.exists():
        command = Path(shutil.which("true"))
    unit = tmp_path / "alchemy-table.service"
    unit.write_text(UNIT.read_text().replace("/opt/alchemy-table/venv/bin/alchemy-table", str(command)))
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


FAKES = {
    # Users live in a file; groups video, gpio and i2c exist, spi does not (the bus was never enabled).
    "getent": """if [ "$1" = passwd ]; then grep -qx "$2" "$FAKE/users" 2>/dev/null
elif [ "$1" = group ]; then case "$2" in video|gpio|i2c) exit 0 ;; *) exit 2 ;; esac; fi""",
    "useradd": 'echo "${@: -1}" >> "$FAKE/users"',
    "userdel": 'grep -vx "$1" "$FAKE/users" > "$FAKE/users.new" || true; mv "$FAKE/users.new" "$FAKE/users"',
    "usermod": "true",
    "chown": "true",
    "systemctl": "true",
    "apt-get": "true",
    "udevadm": "true",
    # python3 -m venv --system-site-packages DIR: a venv whose pip only records what it was asked.
    "python3": """venv="${@: -1}"; mkdir -p "$venv/bin"
printf '#!/bin/sh\\n' > "$venv/bin/python"
printf '#!/bin/sh\\necho "pip $*" >> "$FAKE/log"\\n' > "$venv/bin/pip"
chmod +x "$venv/bin/python" "$venv/bin/pip\"""",
}


@pytest.fixture
def sandbox(tmp_path):
    bin_dir, fake, root = tmp_path / "bin", tmp_path / "fake", tmp_path / "root"
    bin_dir.mkdir()
    fake.mkdir()
    for name, body in FAKES.items():
        path = bin_dir / name
        path.write_text(f'#!/usr/bin/env bash\necho "{name} $*" >> "$FAKE/log"\n{body}\n')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    tree = tmp_path / "device-tree"  # a Pi 4's
    tree.mkdir()
    (tree / "compatible").write_bytes(b"raspberrypi,4-model-b\0brcm,bcm2711\0")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "FAKE": str(fake), "DESTDIR": str(root),
           "DEVICE_TREE": str(tree)}

    def run(*args):
        (fake / "log").write_text("")
        result = subprocess.run(["bash", str(INSTALL), *args], env=env, capture_output=True, text=True, timeout=60)
        return result, (fake / "log").read_text().splitlines()

    return run, root, fake


def test_unit_does_not_restart_what_a_person_must_mend():
    service = dict(unit_entries()["Service"])
    assert service["RestartPreventExitStatus"] == "2"  # exit 2: the one-line error of a bad install or config


def test_install_brings_the_apt_prerequisites_and_the_bookworm_constraints(sandbox):
    run, root, _ = sandbox
    result, log = run("--extra", "pi")
    assert result.returncode == 0, result.stderr
    apt = next(line for line in log if line.startswith("apt-get"))
    assert {"python3-picamera2", "python3-venv", "python3-dev", "gcc", "python3-lgpio"} <= set(apt.split())
    assert log.index(apt) < next(i for i, line in enumerate(log) if line.startswith("pip"))  # before pip
    # The stand-in venv's python answers "numpy 1.x", as Bookworm's would.
    assert f"pip install --quiet --upgrade --constraint {ROOT}/systemd/constraints-bookworm.txt {ROOT}[pi]" in log
    assert not (root / "etc/udev/rules.d/60-alchemy-table-pio.rules").exists()  # a Pi 4 needs no PIO
    skipped, log = run("--extra", "pi", "--no-apt")
    assert skipped.returncode == 0 and not any(line.startswith("apt-get") for line in log)


def test_install_on_a_compute_module_5_picks_pi5_and_opens_the_pio_to_gpio(sandbox, tmp_path):
    run, root, _ = sandbox
    (tmp_path / "device-tree" / "compatible").write_bytes(b"raspberrypi,5-compute-module\0brcm,bcm2712\0")
    result, log = run()
    assert result.returncode == 0, result.stderr
    assert any(line.startswith("pip install") and line.endswith(f"{ROOT}[pi5]") for line in log)
    rule = root / "etc/udev/rules.d/60-alchemy-table-pio.rules"
    assert rule.read_text() == 'SUBSYSTEM=="*-pio", GROUP="gpio", MODE="0660"\n'
    assert run("--uninstall")[0].returncode == 0 and not rule.exists()


def test_an_edited_unit_is_kept_beside_the_new_one(sandbox):
    run, root, _ = sandbox
    assert run("--extra", "none")[0].returncode == 0
    unit = root / "etc/systemd/system/alchemy-table.service"
    unit.write_text(unit.read_text().replace("run --resume", "run --resume --calibration /home/me/cal.json"))
    result, _ = run("--extra", "none")
    assert result.returncode == 0 and "systemctl edit alchemy-table" in result.stdout
    assert "/home/me/cal.json" in (unit.parent / "alchemy-table.service.old").read_text()
    assert unit.read_text() == UNIT.read_text()


def test_install_help_and_a_missing_value_are_clear(sandbox):
    run, _, _ = sandbox
    result, _ = run("--extra")
    assert result.returncode == 2 and "--extra needs a value" in result.stderr
    result, _ = run("--help")
    assert result.returncode == 0 and "--uninstall --purge" in result.stdout
    assert "set -" not in result.stdout and "DESTDIR" not in result.stdout


def test_install_is_complete_and_idempotent(sandbox):
    run, root, fake = sandbox
    first, log = run("--extra", "pi")
    assert first.returncode == 0, first.stderr
    assert "useradd --system --user-group --home-dir /var/lib/alchemy-table --no-create-home " \
           "--shell /usr/sbin/nologin --comment alchemy-table service alchemy-table" in log
    assert [line for line in log if line.startswith("usermod")] == [
        f"usermod --append --groups {g} alchemy-table" for g in ("video", "gpio", "i2c")]
    assert "no group 'spi'" in first.stdout
    assert any(line.startswith("pip install --quiet --upgrade") and line.endswith(f"{ROOT}[pi]") for line in log)
    assert [line for line in log if line.startswith("systemctl")] == [
        "systemctl daemon-reload", "systemctl enable alchemy-table.service", "systemctl restart alchemy-table.service"]
    assert (root / "etc/systemd/system/alchemy-table.service").read_text() == UNIT.read_text()
    config = root / "etc/alchemy-table/config.toml"
    assert config.read_text() == (ROOT / "docs/examples/config.toml").read_text()
    assert (root / "var/lib/alchemy-table").is_dir()

    config.write_text("[led]\ncount = 60\n")  # the user edits the configuration, then installs again
    second, log = run("--extra", "pi")
    assert second.returncode == 0, second.stderr
    assert not any(line.startswith(("useradd", "python3 ")) for line in log)  # user and venv kept
    assert config.read_text() == "[led]\ncount = 60\n" and "kept" in second.stdout
    assert (fake / "users").read_text().split() == ["alchemy-table"]


def test_uninstall_keeps_data_and_purge_removes_everything(sandbox):
    run, root, fake = sandbox
    assert run("--extra", "none")[0].returncode == 0
    result, log = run("--uninstall")
    assert result.returncode == 0, result.stderr
    assert "systemctl disable --now alchemy-table.service" in log
    assert not (root / "etc/systemd/system/alchemy-table.service").exists()
    assert not (root / "opt/alchemy-table").exists()
    assert (root / "etc/alchemy-table/config.toml").exists() and (root / "var/lib/alchemy-table").exists()
    again, _ = run("--uninstall")
    assert again.returncode == 0 and "no service installed" in again.stdout
    purge, log = run("--uninstall", "--purge")
    assert purge.returncode == 0, purge.stderr
    assert not (root / "etc/alchemy-table").exists() and not (root / "var/lib/alchemy-table").exists()
    assert "userdel alchemy-table" in log and (fake / "users").read_text() == ""


def test_install_refuses_unknown_options(sandbox):
    run, _, _ = sandbox
    result, _ = run("--frobnicate")
    assert result.returncode == 2 and "unknown option" in result.stderr
    result, _ = run("--purge")
    assert result.returncode == 2 and "--purge goes with --uninstall" in result.stderr
