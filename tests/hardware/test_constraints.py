"""The Bookworm constraints keep the venv's numpy and OpenCV compatible with Raspberry Pi OS's camera stack.

A venv made as install.sh makes it (``--system-site-packages`` over Debian's own Python and its apt numpy
1.24) resolves the project's requirements with ``pip install --dry-run``: without the constraints pip takes
numpy 2, which breaks every apt extension built against numpy 1 (picamera2's simplejpeg, pywt here); with
them, numpy stays 1.x and the OpenCV chosen accepts it. Needs Debian's python3 and python3-numpy, and PyPI.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "systemd" / "constraints-bookworm.txt"
SYSTEM_PYTHON = Path("/usr/bin/python3")


def apt_numpy() -> str | None:
    if not SYSTEM_PYTHON.exists():
        return None
    found = subprocess.run([str(SYSTEM_PYTHON), "-c", "import numpy; print(numpy.__version__)"],
                           capture_output=True, text=True, timeout=60)
    return found.stdout.strip() if found.returncode == 0 else None


def test_constraints_keep_numpy_1_and_a_matching_opencv_over_the_apt_numpy(tmp_path):
    assert CONSTRAINTS.is_file(), "install.sh installs with systemd/constraints-bookworm.txt"
    system_numpy = apt_numpy()
    if system_numpy is None or shutil.which("apt-get") is None:
        pytest.skip("no Debian python3 with apt's python3-numpy here (apt-get install python3-numpy python3-venv)")
    venv = tmp_path / "venv"
    made = subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                          capture_output=True, text=True, timeout=120)
    if made.returncode != 0:
        pytest.skip(f"cannot make a venv with Debian's python3: {made.stderr.strip().splitlines()[-1:]}")
    requirements = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = [r for r in requirements if Requirement(r).name in ("numpy", "opencv-python-headless")]
    report = tmp_path / "report.json"
    # The venv has no pip of its own (fast to make): the test runner's pip resolves for its interpreter.
    resolved = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                               "--dry-run", "--quiet", "--report", str(report), "--constraint", str(CONSTRAINTS),
                               *wanted], capture_output=True, text=True, timeout=180)
    if resolved.returncode != 0:
        offline = any(word in resolved.stderr.lower() for word in ("connection", "could not fetch", "network",
                                                                    "temporary failure in name resolution"))
        if offline:
            pytest.skip(f"PyPI unreachable: {resolved.stderr.strip().splitlines()[-1:]}")
        pytest.fail(f"the requirements do not resolve under the constraints: {resolved.stderr.strip()}")
    chosen = {item["metadata"]["name"]: item["metadata"] for item in json.loads(report.read_text())["install"]}
    numpy = Version(chosen["numpy"]["version"]) if "numpy" in chosen else Version(system_numpy)
    assert numpy.major == 1, f"numpy {numpy} would shadow apt's {system_numpy} and break the camera stack"
    opencv = chosen.get("opencv-python-headless")
    assert opencv is not None
    env = {"python_version": "3.11", "platform_system": "Linux", "platform_machine": "aarch64", "extra": ""}
    for text in opencv.get("requires_dist") or []:
        needs = Requirement(text)
        if needs.name == "numpy" and (needs.marker is None or needs.marker.evaluate(env)):
            assert needs.specifier.contains(numpy), f"opencv {opencv['version']} needs {needs}, not numpy {numpy}"
