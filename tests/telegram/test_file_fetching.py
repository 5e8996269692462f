"""Voice notes and files are stored by their file_id and downloaded by the chat's worker.

The update is acknowledged before the download; a download that fails for a while is
tried again, not lost; one that never comes, or that Telegram refuses, is told to the user.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.adapters.telegram import FETCH_FAILED, FETCH_REFUSED, FILE_TOO_BIG
from bot.clock import ManualClock
from bot.core.replies import fetch_retrying
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.telegram import updates
from tests.telegram.conftest import Harness, make_harness
from tests.telegram.fake_bot_api import FakeBotApi
from tests.telegram.updates import OWNER_ID


@dataclass
class HeldFilesBotApi(FakeBotApi):
    """Holds every file download until `release` (a download on a bad link)."""

    opened: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.opened.set()

    async def _download(self, request: Any) -> Any:
        await self.opened.wait()
        return await super()._download(request)


async def _inbox(tg: Harness) -> list[tuple[str, str]]:
    rows = await tg.db.fetchall("SELECT kind, status FROM chat_inbox ORDER BY id")
    return [(row["kind"], row["status"]) for row in rows]


async def test_a_voice_note_is_stored_and_acknowledged_before_it_is_downloaded(
        tmp_path: Path, model: ScriptedModel, db: Database, clock: ManualClock) -> None:
    api = HeldFilesBotApi()
    await api.start()
    tg = await make_harness(tmp_path, model, api, db, clock)
    try:
        file_id = api.add_file(b"OggS held audio", "voice/file.oga")
        model.transcript("hola")
        model.respond("Hola.")
        update_id = await tg.push(lambda mid: updates.voice(OWNER_ID, mid, clock.now(), file_id, 15))
        await api.wait_for("getFile")
        # While the download hangs, the update is already confirmed to Telegram and stored.
        await api.wait_for("getUpdates", lambda c: int(c.params.get("offset") or 0) > update_id)
        assert api.pending_updates == 0
        assert await _inbox(tg) == [("file_to_fetch", "running")]
        assert model.transcription_requests == [] and api.calls_to("download") == []
        api.release()
        assert await tg.replies(2) == ["🎙️ hola", "Hola."]
        assert await _inbox(tg) == [("file_to_fetch", "done")]
        payload = await db.fetchone("SELECT payload FROM chat_inbox")
        assert payload is not None and payload["payload"] == "{}"  # no copy of the file's details lingers
    finally:
        await tg.stack.stop()
        await api.stop()


async def test_a_download_that_fails_for_a_while_is_fetched_later_not_lost(tg: Harness) -> None:
    file_id = tg.api.add_file(b"OggS flaky audio", "voice/file.oga")
    # More 502s than the adapter's own quick retries: the chat's worker asks again later.
    failures = tg.settings.telegram.send_retries + 3
    tg.api.fail_next("download", 502, times=failures)
    tg.model.transcript("¿me oyes?")
    tg.model.respond("Te oigo.")
    await tg.push(lambda mid: updates.voice(OWNER_ID, mid, tg.clock.now(), file_id, 16))
    await tg.advance_until(lambda: "Te oigo." in tg.owner_texts())
    # Told once why the chat waits, then answered once, with no error on the way.
    # (a voice note says nothing of its language before it is transcribed: the configured one)
    assert tg.owner_texts() == [fetch_retrying(tg.settings.core.language), "🎙️ ¿me oyes?", "Te oigo."]
    assert len(tg.api.calls_to("download")) == failures + 1
    assert len(tg.model.transcription_requests) == 1


async def test_a_file_that_never_downloads_is_told_not_dropped_in_silence(tg: Harness) -> None:
    file_id = tg.api.add_file(b"%PDF-1.4 never arrives", "documents/file.pdf")
    tg.api.fail_next("download", 502, times=1000)
    await tg.push(lambda mid: updates.document(OWNER_ID, mid, tg.clock.now(), file_id, "plan.pdf",
                                               "application/pdf", 22, caption="léelo"))
    await tg.advance_until(lambda: bool(tg.owner_texts()), step=20.0)
    await tg.advance_until(lambda: len(tg.owner_texts()) >= 2, step=20.0)
    assert tg.owner_texts() == [fetch_retrying("es"), FETCH_FAILED.format(what="file", reason="Bad Gateway")]
    assert tg.model.requests == []
    assert await tg.db.fetchall("SELECT id FROM attachments") == []
    tg.api.heal()
    tg.model.respond("Sigo aquí.")
    await tg.say("¿sigues ahí?")
    await tg.replies(1, predicate=lambda t: t == "Sigo aquí.")  # the chat goes on


async def test_a_file_telegram_refuses_is_told_with_its_reason_and_the_chat_goes_on(tg: Harness) -> None:
    await tg.push(lambda mid: updates.photo(OWNER_ID, mid, tg.clock.now(), "file-unknown", 1000,
                                            caption="¿qué ves?"))
    [notice] = await tg.replies(1)
    assert notice == FETCH_REFUSED.format(what="photo", reason="Invalid file_id")
    assert tg.api.calls_to("download") == []  # refused at getFile: one ask, no retries
    assert len(tg.api.calls_to("getFile")) == 1
    tg.model.respond("Sigo aquí.")
    await tg.say("¿sigues ahí?")
    await tg.replies(1, predicate=lambda t: t == "Sigo aquí.")
    assert len(tg.model.requests) == 1  # the photo never reached the model


async def test_a_file_larger_than_it_declared_is_refused_before_the_download(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    limit = 2048
    tg = await make_harness(tmp_path, model, api, db, clock, max_file_bytes=limit)
    try:
        content = b"x" * (limit + 1)
        file_id = api.add_file(content, "documents/file.txt")
        # The message claims 10 bytes; getFile tells the truth before any byte is fetched.
        await tg.push(lambda mid: updates.document(OWNER_ID, mid, clock.now(), file_id, "big.txt",
                                                   "text/plain", 10))
        [notice] = await tg.replies(1)
        assert notice == FILE_TOO_BIG.format(size=len(content), limit=limit)
        assert api.calls_to("download") == []
        assert await db.fetchall("SELECT id FROM attachments") == []
        assert model.requests == []
    finally:
        await tg.stack.stop()
