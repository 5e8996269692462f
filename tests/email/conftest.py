"""The session's real mail system (Dovecot + SMTP) and a fresh account per test."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.email.mailserver import MailAccount, MailServer, start_mail_server


@pytest.fixture(scope="session")
def mail_server() -> Iterator[MailServer]:
    server = start_mail_server()
    yield server
    server.stop()
    shutil.rmtree(server.root, ignore_errors=True)


@pytest.fixture
def mail_account(mail_server: MailServer) -> MailAccount:
    return mail_server.new_account()
