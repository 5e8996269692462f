"""Scheduled messages: Assistant.deliver -> Messenger.send, with bounded retries."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import pytest

from bot.adapters.telegram import TelegramDeliveryError
from bot.core.events import MessageKind, OutboundMessage, SentMessage
from tests.telegram.conftest import Harness
from tests.telegram.updates import OWNER_ID

T = TypeVar("T")
USER_KEY = f"telegram:{OWNER_ID}"
BRIEFING = OutboundMessage("**Buenos días.** Hoy: dentista a las 10:00.", MessageKind.SCHEDULED)


async def _known_chat(tg: Harness) -> None:
    await tg.say("/help")
    await tg.replies(1)


async def _with_clock(tg: Harness, work: Awaitable[T]) -> T:
    """Run `work`, moving the manual clock so its backoff sleeps end."""
    task = asyncio.ensure_future(work)
    for _ in range(500):
        if task.done():
            break
        await tg.clock.advance(5)
        await asyncio.sleep(0.01)
    return await task


async def _sent_rows(tg: Harness) -> list[tuple[str, int, int]]:
    rows = await tg.db.fetchall(
        "SELECT kind, message_id, attempts FROM telegram_sent WHERE kind = 'scheduled'")
    return [(r["kind"], r["message_id"], r["attempts"]) for r in rows]


async def test_a_scheduled_message_is_posted_and_its_id_recorded(tg: Harness) -> None:
    await _known_chat(tg)
    sent = await tg.assistant.deliver(USER_KEY, BRIEFING)
    assert isinstance(sent, SentMessage)
    call = tg.api.calls_to("sendMessage")[-1].params
    assert call["chat_id"] == OWNER_ID
    assert call["text"] == "Buenos días. Hoy: dentista a las 10:00."
    assert call["entities"] == [{"type": "bold", "offset": 0, "length": 12}]
    assert await _sent_rows(tg) == [("scheduled", int(sent.message_id), 1)]


async def test_network_errors_are_retried_with_backoff(tg: Harness) -> None:
    await _known_chat(tg)
    before = len(tg.api.calls_to("sendMessage"))
    tg.api.fail_next("sendMessage", 502, times=2)
    sent = await _with_clock(tg, tg.assistant.deliver(USER_KEY, BRIEFING))
    assert sent is not None
    assert len(tg.api.calls_to("sendMessage")) - before == 3
    texts = [m.text for m in tg.api.sent if m.text.startswith("Buenos")]
    assert len(texts) == 1  # delivered once
    assert await _sent_rows(tg) == [("scheduled", int(sent.message_id), 3)]


async def test_flood_control_waits_the_time_telegram_asks(tg: Harness) -> None:
    await _known_chat(tg)
    tg.api.fail_next("sendMessage", 429)
    sent = await _with_clock(tg, tg.assistant.deliver(USER_KEY, BRIEFING))
    assert sent is not None
    assert await _sent_rows(tg) == [("scheduled", int(sent.message_id), 2)]


async def test_retries_are_bounded_and_the_failure_is_raised(tg: Harness) -> None:
    await _known_chat(tg)
    before = len(tg.api.calls_to("sendMessage"))
    tg.api.fail_next("sendMessage", 502, times=tg.settings.telegram.send_retries + 5)
    with pytest.raises(TelegramDeliveryError, match="Bad Gateway"):
        await _with_clock(tg, tg.assistant.deliver(USER_KEY, BRIEFING))
    assert len(tg.api.calls_to("sendMessage")) - before == tg.settings.telegram.send_retries + 1
    assert await _sent_rows(tg) == []


async def test_a_rejected_request_is_not_retried(tg: Harness) -> None:
    await _known_chat(tg)
    before = len(tg.api.calls_to("sendMessage"))
    tg.api.fail_next("sendMessage", 400)
    with pytest.raises(TelegramDeliveryError, match=r"(?i)injected failure"):
        await tg.assistant.deliver(USER_KEY, BRIEFING)
    assert len(tg.api.calls_to("sendMessage")) - before == 1
