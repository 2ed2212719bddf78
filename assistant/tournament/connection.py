"""The broker a table or the hub talks to, and a paho-mqtt client set up for it (TLS, user and password).

The configuration's ``[tournament]`` section (``alchemy-table config show``) gives it: ``broker`` (host; empty
means no tournament), ``port``, ``name`` (the tournament), ``table``, ``tls``, ``ca_file``, ``username``,
``password_file``. The password is read from its own file (mode 0600, say), so it is never printed by
``config show`` nor kept in a configuration file everyone may read.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.tournament.messages import check_name


@dataclass(frozen=True)
class Broker:
    host: str
    port: int = 1883
    tournament: str = "tournament"
    tls: bool = False
    ca_file: str = ""
    username: str = ""
    password: str = ""

    @classmethod
    def from_config(cls, section: dict[str, Any]) -> Broker:
        """From ``config.section("tournament")``; a password file that cannot be read is a one-line error."""
        password = ""
        if section.get("password_file"):
            path = Path(section["password_file"])
            password = path.read_text(encoding="utf-8").strip()
        if not section.get("broker"):
            raise ValueError("tournament.broker: no broker configured (set tournament.broker = \"HOST\")")
        check_name("name", section.get("name", ""))
        return cls(section["broker"], section["port"], section["name"], section["tls"], section["ca_file"],
                   section["username"], password)


def table_name(section: dict[str, Any]) -> str:
    """The configured table name, or the machine's host name."""
    return check_name("table", section.get("table") or socket.gethostname().split(".")[0])


def make_client(broker: Broker, client_id: str, *, clean_session: bool = True):
    """A paho-mqtt 2.x client (callback API version 2) with the broker's TLS and credentials, not connected."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
                         protocol=mqtt.MQTTv311)
    if broker.username:
        client.username_pw_set(broker.username, broker.password or None)
    if broker.tls:
        client.tls_set(ca_certs=broker.ca_file or None)
    client.reconnect_delay_set(min_delay=1, max_delay=8)  # a table back on the network is back within seconds
    return client
