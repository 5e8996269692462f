"""Webhook mode: Telegram posts updates to our aiohttp server, guarded by a secret token."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx

from bot.clock import ManualClock
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.telegram import updates
from tests.telegram.conftest import make_harness
from tests.telegram.fake_bot_api import FakeBotApi
from tests.telegram.updates import OWNER_ID

SECRET = "s3cret_Token-for-tests"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_webhook_mode_receives_updates_only_with_the_secret(
    tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock
) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/telegram/hook"
    tg = await make_harness(tmp_path, model, api, db, clock, webhook_url=url,
                            webhook_port=port, webhook_secret=SECRET)
    try:
        [hook] = api.calls_to("setWebhook")
        assert hook.params["url"] == url and hook.params["secret_token"] == SECRET
        assert api.calls_to("getUpdates") == []

        update = updates.text(OWNER_ID, api.next_message_id(), clock.now(), "hola").to_dict()
        update["update_id"] = 1
        async with httpx.AsyncClient() as client:
            refused = await client.post(url, json=update,
                                        headers={"X-Telegram-Bot-Api-Secret-Token": "wrong"})
            assert refused.status_code == 403
            missing = await client.post(url, json=update)
            assert missing.status_code == 403
            skipped = await client.post(url, json={"update_id": 2, "message": {"text": "x"}},
                                        headers={"X-Telegram-Bot-Api-Secret-Token": SECRET})
            assert skipped.status_code == 200 and skipped.text == "skipped"
            model.respond("Hola por webhook.")
            accepted = await client.post(url, json=update,
                                         headers={"X-Telegram-Bot-Api-Secret-Token": SECRET})
            assert accepted.status_code == 200
        assert await tg.replies(1) == ["Hola por webhook."]
        assert len(model.requests) == 1  # the refused posts never reached the core
    finally:
        await tg.stack.stop()
