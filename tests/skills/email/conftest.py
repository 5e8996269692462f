"""The session's real mail system (Dovecot + SMTP) and a fresh account per test."""

from __future__ import annotations

import pytest

from tests.skills.email.mailserver import MailAccount, MailServer


@pytest.fixture
def mail_account(mail_server: MailServer) -> MailAccount:
    return mail_server.new_account()
