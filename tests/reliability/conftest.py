"""The Telegram harness (real PTB against the fake Bot API, real core, scripted model, SQLite file)."""

from tests.telegram.conftest import api, tg  # noqa: F401  (re-exported fixtures)
