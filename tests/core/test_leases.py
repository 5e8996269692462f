"""Claims on inbox and outbox rows: renewed while work runs, taken over only from the
previous owner of the database or once their lease ran out."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.clock import ManualClock
from bot.core.events import ChatKind, ChatRef, OutboundMessage, Platform, TextMessage
from bot.core.inbox import LEASE, Inbox
from bot.core.outbox import Outbox
from bot.core.ownership import HEARTBEAT_SECONDS, Ownership
from memory.db import Database
from memory.messages import chat_key
from tests.process import EchoModel
from tests.scripted_model import ScriptedModel
from tests.support import build_assistant, make_settings


def _chat(name: str) -> ChatRef:
    return ChatRef(Platform.CONSOLE, f"chat-{name}", "owner", ChatKind.PRIVATE)


async def _claimed(db: Database, clock: ManualClock, worker: str, name: str) -> int:
    inbox = Inbox(db, worker)
    item_id = await inbox.put(TextMessage(_chat(name), name), clock.now())
    assert item_id is not None
    claimed = await inbox.claim_next(chat_key(_chat(name)), clock.now())
    assert claimed is not None and claimed.id == item_id
    return item_id


async def _row(db: Database, table: str, row_id: int) -> dict[str, object]:
    row = await db.fetchone(f"SELECT status, claimed_by, claimed_until FROM {table} WHERE id = ?", (row_id,))
    assert row is not None
    return dict(row)


async def _until(check, tries: int = 300) -> None:  # type: ignore[no-untyped-def]
    for _ in range(tries):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")


async def test_start_takes_over_the_previous_owners_claims_and_expired_ones_only(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    EchoModel(model)
    await Ownership(db, "previous-process").take(clock.now())
    mine = await _claimed(db, clock, "previous-process", "previous")
    live = await _claimed(db, clock, "somewhere-else", "live")
    expired = await _claimed(db, clock, "somewhere-else", "expired")
    await db.execute("UPDATE chat_inbox SET claimed_until = ? WHERE id = ?",
                     ((clock.now() - timedelta(seconds=1)).isoformat(), expired))
    outbox = Outbox(db, clock, "previous-process", ZoneInfo("UTC"), "en", lambda _: None)
    sending = await outbox.put(_chat("outbox"), OutboundMessage("sent before the restart"))
    await db.execute("UPDATE outbox SET claimed_by = 'previous-process', claimed_until = ? WHERE id = ?",
                     ((clock.now() + timedelta(minutes=2)).isoformat(), sending))
    elsewhere = await outbox.put(_chat("elsewhere"), OutboundMessage("another worker's send"))
    await db.execute("UPDATE outbox SET claimed_by = 'somewhere-else', claimed_until = ? WHERE id = ?",
                     ((clock.now() + timedelta(minutes=2)).isoformat(), elsewhere))

    assistant, messenger = await build_assistant(make_settings(tmp_path, model.base_url), db, clock)
    try:
        await _until(lambda: _answered(messenger.texts, ["echo: previous", "echo: expired",
                                                         "sent before the restart"]))
        assert "echo: live" not in messenger.texts and "another worker's send" not in messenger.texts
        assert await _row(db, "chat_inbox", live) == {
            "status": "running", "claimed_by": "somewhere-else",
            "claimed_until": (clock.now() + LEASE).isoformat()}
        assert (await _row(db, "chat_inbox", mine))["status"] == "done"
        assert (await _row(db, "outbox", elsewhere))["claimed_by"] == "somewhere-else"
        owner = await db.fetchone("SELECT worker FROM process_owner")
        assert owner["worker"] == assistant.worker_id
    finally:
        await assistant.stop()


async def _answered(texts: list[str], expected: list[str]) -> bool:
    return all(text in texts for text in expected)


async def test_the_heartbeat_renews_the_claims_of_running_work(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    assistant, _ = await build_assistant(make_settings(tmp_path, model.base_url), db, clock)
    try:
        running = await _claimed(db, clock, assistant.worker_id, "long turn")
        other = await _claimed(db, clock, "somewhere-else", "not ours")
        before = await _row(db, "chat_inbox", other)
        for _ in range(3):  # each beat moves the lease on from its own time
            await _until(lambda: _asleep(clock))  # the heartbeat waits for its next beat
            await clock.advance(HEARTBEAT_SECONDS)
            await _until(lambda: _renewed(db, running, clock))
        assert await _row(db, "chat_inbox", other) == before  # another worker's claim is left alone
        seen = await db.fetchone("SELECT seen_at FROM process_owner")
        assert seen["seen_at"] == clock.now().isoformat()
    finally:
        await assistant.stop()


async def _asleep(clock: ManualClock) -> bool:
    return clock.sleepers > 0


async def _renewed(db: Database, row_id: int, clock: ManualClock) -> bool:
    row = await _row(db, "chat_inbox", row_id)
    return row["claimed_until"] == (clock.now() + LEASE).isoformat()
