"""The nightly diary: one entry a day in the user's zone (across DST), posted or skipped."""

from __future__ import annotations

import json
from collections import deque
from datetime import UTC, date, datetime
from typing import Any

from bot.clock import ManualClock
from bot.config import Settings
from bot.core.events import MessageKind, Platform
from bot.scheduler import Scheduler
from memory.db import Database
from memory.diary import DiaryOutcome, DiaryStatus
from tests.memory.conftest import ANA, say
from tests.scripted_model import Scripted, ScriptedModel
from tests.support import RecordingMessenger, build_assistant
from tools.skills.memory import install_memory


def entry(narrative: str, **extra: Any) -> str:
    return json.dumps({"write": True, "narrative": narrative, "achievements": extra.get("achievements", []),
                       "difficulties": [], "tags": extra.get("tags", []), "mood": extra.get("mood", "good")})


async def test_nightly_diary_across_the_dst_change(settings: Settings, db: Database, model: ScriptedModel) -> None:
    # Saturday 28 March 2026, Madrid (CET, UTC+1); DST starts on Sunday 29 March at 02:00.
    clock = ManualClock(datetime(2026, 3, 28, 9, 0, tzinfo=UTC))
    diary_answers: deque[str] = deque()
    prompts: list[str] = []

    def respond(body: dict[str, Any]) -> Scripted:
        system = body["messages"][0]["content"]
        if "diary" in system:
            prompts.append(body["messages"][1]["content"])
            return Scripted(content=diary_answers.popleft())
        return Scripted(content=json.dumps({"cards": [], "profile": None, "timeline": []}))

    model.responder = respond
    messenger = RecordingMessenger(platform=Platform.TELEGRAM)
    assistant, _ = await build_assistant(settings, db, clock, messenger=messenger)
    scheduler = Scheduler(db, clock)
    service = await install_memory(assistant, scheduler, settings)
    await assistant.chats.seen(ANA, clock.now())
    await scheduler.tick()  # first sight of the jobs: nothing replays

    await say(db, ANA, "user", "Finished the tiling of the bathroom today, finally!",
              datetime(2026, 3, 28, 11, tzinfo=UTC))
    diary_answers.append(entry("Today I finally finished tiling the bathroom.", achievements=["Bathroom tiled"],
                               tags=["home"]))
    clock.set(datetime(2026, 3, 28, 22, 25, tzinfo=UTC))  # 23:25 CET: not yet
    assert "memory-diary" not in await scheduler.tick()
    clock.set(datetime(2026, 3, 28, 22, 31, tzinfo=UTC))  # 23:31 CET
    assert "memory-diary" in await scheduler.tick()
    first = await service.diary.get(ANA.user_key, date(2026, 3, 28))
    assert first is not None and first.status is DiaryStatus.WRITTEN
    chat, posted = messenger.sent[-1]
    assert chat == ANA and posted.kind is MessageKind.SCHEDULED and "finished tiling" in posted.text
    assert "#home" in posted.text and "Bathroom tiled" in posted.text

    # Sunday, now CEST (UTC+2): 23:30 local is 21:30 UTC, an hour earlier in UTC than yesterday.
    await say(db, ANA, "user", "Went hiking in the Guadarrama with Luis, 18 km.", datetime(2026, 3, 29, 9, tzinfo=UTC))
    diary_answers.append(entry("Today I hiked 18 km in the Guadarrama with Luis.", mood="great"))
    clock.set(datetime(2026, 3, 29, 21, 25, tzinfo=UTC))
    assert "memory-diary" not in await scheduler.tick()
    clock.set(datetime(2026, 3, 29, 21, 31, tzinfo=UTC))
    assert "memory-diary" in await scheduler.tick()
    second = await service.diary.get(ANA.user_key, date(2026, 3, 29))
    assert second is not None and "Guadarrama" in second.narrative
    # The writer saw the previous entry (so it does not repeat itself) and only that day's messages.
    assert "finally finished tiling the bathroom" in prompts[-1]
    assert "Guadarrama" in prompts[-1] and "Finished the tiling" not in prompts[-1]
    clock.set(datetime(2026, 3, 29, 22, 31, tzinfo=UTC))
    assert "memory-diary" not in await scheduler.tick()  # once a day, even with the UTC shift
    posts = len(messenger.sent)

    # Monday: only small talk, and the model says there is nothing worth writing.
    await say(db, ANA, "user", "hola, qué tal", datetime(2026, 3, 30, 10, tzinfo=UTC))
    diary_answers.append(json.dumps({"write": False}))
    clock.set(datetime(2026, 3, 30, 21, 31, tzinfo=UTC))
    assert "memory-diary" in await scheduler.tick()
    skipped = await service.diary.get(ANA.user_key, date(2026, 3, 30))
    assert skipped is not None and skipped.status is DiaryStatus.NOTHING
    # Tuesday: no messages at all, no model call, nothing recorded as written.
    calls = len(prompts)
    clock.set(datetime(2026, 3, 31, 21, 31, tzinfo=UTC))
    await scheduler.tick()
    assert len(prompts) == calls
    assert (await service.diary.get(ANA.user_key, date(2026, 3, 31))).status is DiaryStatus.NOTHING  # type: ignore[union-attr]
    assert len(messenger.sent) == posts  # skipped days post nothing
    assert diary_answers == deque()


async def test_invalid_diary_output_records_nothing_and_can_retry(
        settings: Settings, db: Database, model: ScriptedModel, clock: ManualClock) -> None:
    from bot.llm import ModelClient
    from memory.service import MemoryService
    from tests.memory.conftest import shared_embedder

    client = ModelClient(settings.llm, db, clock)
    service = MemoryService(settings, db, clock, shared_embedder(), client)
    await service.start()
    await say(db, ANA, "user", "Got the keys of the new flat!", clock.now())
    model.responder = None
    model.say(json.dumps({"cards": [], "profile": None, "timeline": []}))
    model.say(json.dumps({"write": True}))  # no narrative, no mood
    model.say(json.dumps({"write": True, "narrative": "", "mood": "good"}))
    day = clock.now().date()
    result = await service.write_diary(ANA.user_key, day)
    assert result.outcome is DiaryOutcome.FAILED
    assert await service.diary.get(ANA.user_key, day) is None
    model.say(entry("Today I got the keys of my new flat."))
    retry = await service.diary_writer.write(ANA.user_key, day)  # type: ignore[union-attr]
    assert retry.outcome is DiaryOutcome.WRITTEN
    assert (await service.diary.search(ANA.user_key, "keys flat"))[0].day == day
    again = await service.diary_writer.write(ANA.user_key, day)  # type: ignore[union-attr]
    assert again.outcome is DiaryOutcome.ALREADY_DONE
    await client.close()
