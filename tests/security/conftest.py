"""The injection tests' real peers (mail, CalDAV, web pages) and the Telegram fake, for the audit."""

from __future__ import annotations

from tests.injection.conftest import build_world, mail_account, web  # noqa: F401  (fixtures)
from tests.skills.conftest import caldav_settings, calendar_name  # noqa: F401  (fixtures)
from tests.telegram.conftest import api  # noqa: F401  (fixture)
