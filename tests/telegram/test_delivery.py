"""Scheduled messages: Assistant.deliver -> Messenger.send, with bounded retries."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

from bot.clock import ManualClock
from bot.core.events import MessageKind, OutboundMessage, SentMessage
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.telegram.conftest import Harness, make_harness
from tests.telegram.fake_bot_api import FakeBotApi
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


async def test_an_outage_longer_than_the_retries_is_delivered_once_after_recovery(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    # No retries inside a send: every attempt is the outbox's, on the injected clock.
    tg = await make_harness(tmp_path, model, api, db, clock, send_retries=0)
    try:
        await _known_chat(tg)
        tg.api.fail_next("sendMessage", 502, times=10_000)
        assert await tg.assistant.deliver(USER_KEY, BRIEFING) is None  # it waits in the outbox
        await tg.clock.advance(3600)  # an hour of outage
        for _ in range(20):
            tg.assistant.outbox.wake()
            await asyncio.sleep(0.05)
        assert await tg.assistant.outbox.pending() == 1
        tg.api.heal()
        for _ in range(200):  # the outbox retries with backoff (at most 5 minutes apart)
            if not await tg.assistant.outbox.pending():
                break
            await tg.clock.advance(60)
            tg.assistant.outbox.wake()
            await asyncio.sleep(0.05)
        texts = [m.text for m in tg.api.sent if m.text.startswith("Buenos")]
        assert len(texts) == 1  # delivered once, after Telegram came back
        assert "Con retraso" in texts[0]  # a late post says so (in its language)
        rows = await tg.db.fetchall("SELECT status FROM outbox WHERE kind = 'scheduled'")
        assert [r["status"] for r in rows] == ["delivered"]
    finally:
        await tg.stack.stop()


async def test_a_rejected_request_is_not_retried(tg: Harness) -> None:
    await _known_chat(tg)
    before = len(tg.api.calls_to("sendMessage"))
    tg.api.fail_next("sendMessage", 400)
    assert await tg.assistant.deliver(USER_KEY, BRIEFING) is None
    assert len(tg.api.calls_to("sendMessage")) - before == 1
    rows = await tg.db.fetchall("SELECT status, last_error FROM outbox WHERE kind = 'scheduled'")
    assert rows[0]["status"] == "failed" and "injected failure" in rows[0]["last_error"].lower()


async def test_a_reminder_due_during_an_outage_is_delivered_once_and_fired_only_then(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    from zoneinfo import ZoneInfo

    from bot.scheduler import Scheduler
    from tools.skills.reminders import REMINDER_KIND, ReminderDelivery

    tg = await make_harness(tmp_path, model, api, db, clock, send_retries=0)
    try:
        await _known_chat(tg)
        scheduler = Scheduler(db, clock)
        ReminderDelivery(tg.assistant.deliver, default_zone=ZoneInfo("Europe/Madrid")).install(scheduler)
        await scheduler.schedule_once("r1", REMINDER_KIND, USER_KEY, clock.now(), {"text": "call the dentist"})
        tg.api.fail_next("sendMessage", 502, times=10_000)
        assert await scheduler.tick() == ["r1"]
        status = await db.fetchone("SELECT status FROM scheduled_once WHERE job_id = 'r1'")
        assert status["status"] == "queued"  # in the outbox, not fired: nothing arrived yet
        await clock.advance(1800)
        assert await scheduler.tick() == []  # never fired twice
        tg.api.heal()
        for _ in range(200):
            if not await tg.assistant.outbox.pending():
                break
            await clock.advance(60)
            tg.assistant.outbox.wake()
            await asyncio.sleep(0.05)
        texts = [m.text for m in tg.api.sent if "call the dentist" in m.text]
        assert len(texts) == 1 and "Delivered late" in texts[0]
        status = await db.fetchone("SELECT status, fired_at FROM scheduled_once WHERE job_id = 'r1'")
        assert status["status"] == "fired" and status["fired_at"] is not None
        assert await scheduler.tick() == []
    finally:
        await tg.stack.stop()
