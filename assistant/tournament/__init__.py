"""The tournament: many tables, one referee, over MQTT (docs/tournament.md).

- :mod:`~assistant.tournament.messages`: topics and versioned JSON payloads, and their checks;
- :mod:`~assistant.tournament.stream`: a table's journal as those messages, in journal order;
- :mod:`~assistant.tournament.summary`: a game's compact state, its alerts and its result;
- :mod:`~assistant.tournament.publisher`: a table publishing what its live loop committed;
- :mod:`~assistant.tournament.hub` and :mod:`~assistant.tournament.page`: the referee's hub and page;
- :mod:`~assistant.tournament.mosquitto` and :mod:`~assistant.tournament.simulate`: a broker on loopback
  and simulated tables, for the tests and ``bench tournament``.

Like the page on the players' phones, the tournament only consumes what the live loop committed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def publisher_from_config(config: Any, say: Callable[[str], None]) -> Any:
    """The table's publisher if ``tournament.broker`` is set, else None."""
    section = config.section("tournament")
    if not section["broker"]:
        return None
    from assistant.tournament.connection import Broker, table_name
    from assistant.tournament.publisher import Publisher

    broker = Broker.from_config(section)
    table = table_name(section)
    say(f"tournament {broker.tournament}: table {table} publishing to {broker.host}:{broker.port}")
    return Publisher(broker, table, Path(config["table.state_dir"]), say=say)
