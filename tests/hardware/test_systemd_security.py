"""The service unit's hardening: ``systemd-analyze security`` scores it 4.5 or below ("OK"), while the camera,
GPIO, I2C and SPI stay reachable by name and sd_notify, the web page and MQTT keep their sockets."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "alchemy-table.service"
LIMIT = 4.5


def service() -> list[tuple[str, str]]:
    entries, section = [], None
    for line in UNIT.read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif line and not line.startswith(("#", ";")) and section == "Service":
            key, _, value = line.partition("=")
            entries.append((key.strip(), value.strip()))
    return entries


def values(key: str) -> list[str]:
    return [v for k, v in service() if k == key]


def exposure() -> float:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt package systemd)")
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", str(UNIT)],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0 and "offline" in result.stderr:
        pytest.skip(f"this systemd-analyze has no --offline: {result.stderr.strip().splitlines()[-1]}")
    found = re.search(r"Overall exposure level for .*: (\d+(?:\.\d+)?)", result.stdout)
    assert found, result.stdout[-2000:] + result.stderr
    return float(found.group(1))


def test_systemd_analyze_security_scores_the_unit_ok():
    score = exposure()
    assert score <= LIMIT, f"systemd-analyze security: {score} (at most {LIMIT})"


def test_devices_are_closed_but_the_camera_gpio_i2c_and_spi_by_name():
    assert values("DevicePolicy") == ["closed"]
    allowed = {v.split()[0] for v in values("DeviceAllow")}
    assert {"char-video4linux", "char-media", "char-gpiochip", "char-i2c", "char-spi"} <= allowed
    assert not values("PrivateDevices")  # it would hide them all (DESIGN.md)


def test_memory_is_capped_files_are_private_and_sockets_kept_for_notify_and_the_network():
    assert values("MemoryMax") and values("UMask") == ["0077"]
    families = set(" ".join(values("RestrictAddressFamilies")).split())
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert "@system-service" in values("SystemCallFilter")
    assert not values("ProcSubset")  # /proc/device-tree says which Pi this is
