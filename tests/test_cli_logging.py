"""What the process's logging setup keeps out of the log."""

from __future__ import annotations

import logging

import pytest
from nio import Event

from bot.cli import configure_logging


@pytest.fixture
def restore_levels():
    names = ("nio.events.misc", "httpx", "httpcore", "apscheduler")
    before = {name: logging.getLogger(name).level for name in names}
    yield
    for name, level in before.items():
        logging.getLogger(name).setLevel(level)


def test_a_malformed_matrix_file_event_does_not_log_its_decryption_key(
        caplog: pytest.LogCaptureFixture, restore_levels: None) -> None:
    configure_logging(logging.INFO)
    event = {
        "type": "m.room.message", "event_id": "$e", "sender": "@owner:hs", "origin_server_ts": 1,
        "content": {"msgtype": "m.file", "body": "scan.pdf",
                    # no "iv" and no "hashes": nio's schema check fails and it reports the content
                    "file": {"url": "mxc://hs/a", "key": {"kty": "oct", "alg": "A256CTR", "k": "s3cr3tK3yBytes"}}},
    }
    with caplog.at_level(logging.DEBUG):
        parsed = Event.parse_event(event)
    assert type(parsed).__name__ in ("BadEvent", "UnknownBadEvent")
    assert "s3cr3tK3yBytes" not in caplog.text
