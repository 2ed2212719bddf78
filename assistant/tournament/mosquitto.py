"""A real Mosquitto on loopback, for the tests and ``bench tournament``: a temporary configuration, a free
port, optionally a password file and an ACL that lets each table write only under its own name (``%u``).

The port is found by binding a socket to port 0 and closing it; Mosquitto is then started on it (and
restarted on the same one, so clients find it again). Debian: ``apt install mosquitto``.

>>> MOSQUITTO  # where Debian puts it
'/usr/sbin/mosquitto'
"""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

MOSQUITTO = "/usr/sbin/mosquitto"
PASSWD = "/usr/bin/mosquitto_passwd"
INSTALL = "apt-get install -y mosquitto"


def find() -> str | None:
    """The mosquitto program, or None (then ``INSTALL`` is the one command to run)."""
    return MOSQUITTO if os.access(MOSQUITTO, os.X_OK) else shutil.which("mosquitto")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """``users``: {name: password} to require a password file (then the ACL: each user writes only under
    ``alchemy-table/+/<name>/``, the ``hub`` user reads everything and writes the resend requests).
    ``tls``: TLS only, with a certificate for 127.0.0.1 signed by a CA made for the occasion (``ca_file``)."""

    def __init__(self, users: dict[str, str] | None = None, hub_user: str = "hub", tls: bool = False):
        program = find()
        if program is None:
            raise FileNotFoundError(2, f"mosquitto is not installed (run: {INSTALL})", "mosquitto")
        self.program = program
        self.folder = Path(tempfile.mkdtemp(prefix="alchemy-mosquitto-"))
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "max_queued_messages 100000",
                 "max_inflight_messages 100", "set_tcp_nodelay true", "log_dest stderr", "log_type error",
                 f"user {getpass.getuser()}"]  # as root, mosquitto would become "mosquitto" and lose its files
        if users:
            passwords = self.folder / "passwords"
            passwords.touch(mode=0o600)
            for user, password in users.items():
                subprocess.run([PASSWD, "-b", str(passwords), user, password], check=True, capture_output=True)
            acl = self.folder / "acl"
            acl.write_text(f"user {hub_user}\ntopic read alchemy-table/#\ntopic write alchemy-table/+/+/resend\n\n"
                           "pattern readwrite alchemy-table/+/%u/#\n", encoding="utf-8")
            lines += ["allow_anonymous false", f"password_file {passwords}", f"acl_file {acl}"]
        else:
            lines.append("allow_anonymous true")
        self.ca_file = ""
        if tls:
            self.ca_file = str(self.folder / "ca.crt")
            _certificates(self.folder)
            lines += [f"cafile {self.ca_file}", f"certfile {self.folder / 'server.crt'}",
                      f"keyfile {self.folder / 'server.key'}"]
        self.config = self.folder / "mosquitto.conf"
        self.config.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def start(self, timeout: float = 5.0) -> Mosquitto:
        self.process = subprocess.Popen([self.program, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                        stderr=open(self.folder / "log", "ab"))  # noqa: SIM115
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {(self.folder / 'log').read_text(errors='replace')[-400:]}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return self
            time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def kill(self) -> None:
        """As a power cut would: SIGKILL, no goodbye, everything in its memory gone."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Mosquitto:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _certificates(folder: Path) -> None:
    """A CA and a server certificate for 127.0.0.1 (openssl, as docs/tournament.md does it for a hub)."""
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n", encoding="utf-8")
    for command in (["req", "-x509", *key, "-days", "2", "-subj", "/CN=alchemy-table test CA",
                     "-keyout", "ca.key", "-out", "ca.crt"],
                    ["req", *key, "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr"],
                    ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                     "-days", "2", "-out", "server.crt", "-extfile", "san.cnf"]):
        subprocess.run(["openssl", *command], cwd=folder, check=True, capture_output=True)
