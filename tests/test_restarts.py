"""The real process killed, stopped and started again: nothing the user sent is lost.

Every message pushed to the fake Bot API must end with exactly one reply that answers it
(`echo: …`) or says it was cut short, in the order the messages were sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.process import OWNER_ID, BotProcess, EchoModel, read_db, wait_until_polling, write_env
from tests.scripted_model import ScriptedModel
from tests.telegram import updates
from tests.telegram.fake_bot_api import FakeBotApi

WAIT = 120.0


@pytest.fixture
async def api() -> AsyncIterator[FakeBotApi]:
    server = FakeBotApi()
    await server.start()
    yield server
    await server.stop()


async def _push(api: FakeBotApi, body: str) -> None:
    await api.push(updates.text(OWNER_ID, api.next_message_id(), datetime.now(UTC), body))


def _replies(api: FakeBotApi) -> list[str]:
    return [str(c.params["text"]) for c in api.calls_to("sendMessage") if c.params["chat_id"] == OWNER_ID]


def _fate(reply: str, said: list[str]) -> str | None:
    """Which message a reply is about (answered or explained), if any."""
    for text in said:
        if reply == f"echo: {text}" or f"“{text}”" in reply:
            return text
    return None


async def _all_settled(api: FakeBotApi, said: list[str], within: float = WAIT) -> list[str]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        fates = [f for f in (_fate(r, said) for r in _replies(api)) if f is not None]
        if set(fates) == set(said):
            return fates
        await asyncio.sleep(0.1)
    raise AssertionError(f"not every message was answered: {_replies(api)}")


async def _start(bots: list[BotProcess], env_file: Path, tmp_path: Path) -> BotProcess:
    bot = BotProcess(env_file, tmp_path / "bot.log")
    await bot.start()
    bots.append(bot)
    return bot


async def test_kill_9_with_a_queued_burst_loses_nothing(
        tmp_path: Path, api: FakeBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    echo = EchoModel(model, delay=1.0)
    env_file = write_env(tmp_path, api, model)
    db_file = tmp_path / "data" / "mayordomo.sqlite3"
    first = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    said = [f"question {i}" for i in range(10)]
    for text in said:
        await _push(api, text)
    # Kill it once every message is stored and the first turn is with the model.
    for _ in range(600):
        stored = read_db(db_file, "SELECT COUNT(*) AS n FROM chat_inbox")[0]["n"] if db_file.exists() else 0
        if stored == len(said) and echo.turns:
            break
        await asyncio.sleep(0.05)
    assert stored == len(said), first.log()
    first.kill()
    await first.wait()
    assert not any(r.startswith("echo: question 9") for r in _replies(api))

    echo.delay = 0.0
    polls = len(api.calls_to("getUpdates"))
    second = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api, after=polls)
    fates = await _all_settled(api, said)
    assert fates == said, _replies(api)  # each once, in order
    second.terminate()
    assert await second.wait() == 0
    assert read_db(db_file, "SELECT COUNT(*) AS n FROM turns WHERE finished_at IS NULL")[0]["n"] == 0
    statuses = {r["status"] for r in read_db(db_file, "SELECT status FROM chat_inbox")}
    assert statuses <= {"done", "interrupted"}


async def test_sigterm_lets_the_running_turn_finish_and_keeps_the_queue_for_the_next_start(
        tmp_path: Path, api: FakeBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    echo = EchoModel(model, delay=2.0)
    env_file = write_env(tmp_path, api, model, SHUTDOWN_GRACE_SECONDS=30)
    db_file = tmp_path / "data" / "mayordomo.sqlite3"
    first = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    said = ["first", "second", "third"]
    for text in said:
        await _push(api, text)
    for _ in range(600):
        stored = read_db(db_file, "SELECT COUNT(*) AS n FROM chat_inbox")[0]["n"] if db_file.exists() else 0
        if stored == len(said) and echo.turns:
            break
        await asyncio.sleep(0.05)
    first.terminate()
    assert await first.wait() == 0, first.log()
    assert _replies(api) == ["echo: first"]  # the running turn finished; nothing new started

    echo.delay = 0.0
    polls = len(api.calls_to("getUpdates"))
    await _start(bots, env_file, tmp_path)
    await wait_until_polling(api, after=polls)
    assert await _all_settled(api, said) == said
    assert _replies(api) == [f"echo: {text}" for text in said]


async def test_sigterm_past_the_grace_cuts_the_turn_and_the_next_start_answers_it(
        tmp_path: Path, api: FakeBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    echo = EchoModel(model, delay=20.0)
    env_file = write_env(tmp_path, api, model, SHUTDOWN_GRACE_SECONDS=0.5)
    first = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    await _push(api, "slow one")
    for _ in range(600):
        if echo.turns:
            break
        await asyncio.sleep(0.05)
    first.terminate()
    assert await first.wait() == 0, first.log()
    assert _replies(api) == []

    echo.delay = 0.0
    polls = len(api.calls_to("getUpdates"))
    await _start(bots, env_file, tmp_path)
    await wait_until_polling(api, after=polls)
    assert await _all_settled(api, ["slow one"]) == ["slow one"]
    assert _replies(api) == ["echo: slow one"]  # it reached the model, nothing was done: run again


async def test_kill_9_mid_turn_after_a_write_tells_the_user_instead_of_repeating_it(
        tmp_path: Path, api: FakeBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    notes = tmp_path / "notes"
    calls: list[str] = []

    def respond(body: dict[str, object]) -> object:
        from tests.scripted_model import Scripted

        if not body.get("tools"):
            return Scripted(content="{}")
        calls.append("turn")
        if len(calls) == 1:
            return Scripted(tool_calls=[("notes_append", {"path": "shopping.md", "text": "milk"})])
        return Scripted(tool_calls=[("respond", {"text": "appended"})], delay=30.0)

    model.responder = respond  # type: ignore[assignment]
    from tests.process import hashed_vectors

    model.embedder = hashed_vectors
    env_file = write_env(tmp_path, api, model)
    db_file = tmp_path / "data" / "mayordomo.sqlite3"
    first = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    await _push(api, "add milk to my shopping note")
    for _ in range(1200):
        if len(calls) >= 2:
            break
        await asyncio.sleep(0.05)
    written = read_db(db_file, "SELECT tool, status FROM tool_calls")
    assert [(r["tool"], r["status"]) for r in written] == [("notes_append", "ok")], first.log()
    first.kill()
    await first.wait()

    polls = len(api.calls_to("getUpdates"))
    await _start(bots, env_file, tmp_path)
    await wait_until_polling(api, after=polls)
    replies = await _all_settled(api, ["add milk to my shopping note"])
    assert len(replies) == 1
    told = [r for r in _replies(api) if "“add milk to my shopping note”" in r]
    assert len(told) == 1 and "notes_append" in told[0]
    assert len(calls) == 2  # not run again: the note got milk once
    assert (notes / "shopping.md").read_text(encoding="utf-8").count("milk") == 1


@dataclass
class HeldFilesBotApi(FakeBotApi):
    """File downloads wait until `opened` is set (a voice note on a bad link)."""

    opened: asyncio.Event = field(default_factory=asyncio.Event)

    async def _download(self, request: Any) -> Any:
        await self.opened.wait()
        return await super()._download(request)


async def test_kill_9_while_a_voice_note_downloads_fetches_it_again_and_answers_once(
        tmp_path: Path, model: ScriptedModel, bots: list[BotProcess]) -> None:
    api = HeldFilesBotApi()
    await api.start()
    try:
        echo = EchoModel(model)
        env_file = write_env(tmp_path, api, model, LLM_TRANSCRIPTION_MODEL="scripted-whisper")
        db_file = tmp_path / "data" / "mayordomo.sqlite3"
        first = await _start(bots, env_file, tmp_path)
        await wait_until_polling(api)
        file_id = api.add_file(b"OggS held audio", "voice/file.oga")
        update_id = await api.push(updates.voice(OWNER_ID, api.next_message_id(), datetime.now(UTC), file_id, 15))
        await api.wait_for("getFile", within=WAIT)
        # The update is confirmed to Telegram while its download hangs: only the inbox has it now.
        await api.wait_for("getUpdates", lambda c: int(c.params.get("offset") or 0) > update_id, within=WAIT)
        rows = read_db(db_file, "SELECT kind, status FROM chat_inbox")
        assert [(r["kind"], r["status"]) for r in rows] == [("file_to_fetch", "running")], first.log()
        first.kill()
        await first.wait()
        assert model.transcription_requests == [] and _replies(api) == []

        model.transcript("hola")
        api.opened.set()
        polls = len(api.calls_to("getUpdates"))
        second = await _start(bots, env_file, tmp_path)
        await wait_until_polling(api, after=polls)
        assert await _all_settled(api, ["hola"]) == ["hola"], second.log()
        await asyncio.sleep(1.0)  # time for a second answer, if there were one
        assert _replies(api) == ["🎙️ hola", "echo: hola"]
        assert echo.turns == ["hola"] and len(model.transcription_requests) == 1
        assert len(api.calls_to("getFile")) == 2  # asked again by the new process
        rows = read_db(db_file, "SELECT kind, status, attempts FROM chat_inbox")
        assert [(r["kind"], r["status"], r["attempts"]) for r in rows] == [("file_to_fetch", "done", 2)]
    finally:
        await api.stop()


@pytest.mark.parametrize("problem", ["closed port", "rejected token"])
async def test_start_up_failures_exit_with_one_line(
        tmp_path: Path, api: FakeBotApi, model: ScriptedModel, bots: list[BotProcess], problem: str) -> None:
    EchoModel(model)
    if problem == "closed port":
        extra = {"TELEGRAM_BASE_URL": "http://127.0.0.1:9/bot", "TELEGRAM_BASE_FILE_URL": "http://127.0.0.1:9/file/bot"}
    else:
        extra = {"TELEGRAM_BOT_TOKEN": "123456:not-the-right-token"}
    env_file = write_env(tmp_path, api, model, **extra)
    bot = await _start(bots, env_file, tmp_path)
    started = time.monotonic()
    code = await bot.wait(within=90.0)  # the target is 30 s; a loaded test machine gets slack
    print(f"start-up failure exit after {time.monotonic() - started:.1f} s")
    assert code != 0
    last = bot.log().strip().splitlines()[-1]
    assert last.startswith("Cannot start:"), bot.log()
    assert ("cannot reach" in last) if problem == "closed port" else ("rejected TELEGRAM_BOT_TOKEN" in last)
    assert "Traceback" not in bot.log()
    assert "not-the-right-token" not in bot.log()


async def test_a_second_process_on_the_same_database_exits_with_one_line(
        tmp_path: Path, api: FakeBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    EchoModel(model)
    env_file = write_env(tmp_path, api, model)
    await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    second = BotProcess(env_file, tmp_path / "second.log")
    await second.start()
    bots.append(second)
    code = await second.wait(within=90.0)
    assert code != 0
    last = second.log().strip().splitlines()[-1]
    assert last.startswith("Cannot start: another Mayordomo process (pid "), second.log()
    assert "one process per database" in last and "Traceback" not in second.log()
    # The first one still owns its work and answers.
    await _push(api, "are you still there?")
    assert await _all_settled(api, ["are you still there?"]) == ["are you still there?"]


async def test_kill_9_while_a_delete_waits_for_approval_cancels_it_and_says_not_done(
        tmp_path: Path, api: FakeBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    from tests.process import hashed_vectors, last_user_text
    from tests.scripted_model import Scripted

    notes = tmp_path / "notes"
    notes.mkdir(parents=True, exist_ok=True)
    (notes / "shopping.md").write_text("milk\n", encoding="utf-8")

    def respond(body: dict[str, object]) -> object:
        if not body.get("tools"):
            return Scripted(content="{}")
        said = last_user_text(body)
        if said == "delete the shopping note":
            return Scripted(tool_calls=[("notes_delete", {"path": "shopping.md"})])
        return Scripted(tool_calls=[("respond", {"text": f"echo: {said}"})])

    model.responder = respond  # type: ignore[assignment]
    model.embedder = hashed_vectors
    env_file = write_env(tmp_path, api, model)
    db_file = tmp_path / "data" / "mayordomo.sqlite3"
    first = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    await _push(api, "delete the shopping note")
    await api.wait_for("sendMessage", lambda c: "inline_keyboard" in (c.params.get("reply_markup") or {}),
                       within=WAIT)
    # The chat is not held by the waiting delete: the next message is answered meanwhile.
    await _push(api, "are you still there?")
    await _all_settled(api, ["are you still there?"])
    assert read_db(db_file, "SELECT status FROM approvals")[0]["status"] == "pending", first.log()
    first.kill()
    await first.wait()

    polls = len(api.calls_to("getUpdates"))
    await _start(bots, env_file, tmp_path)
    await wait_until_polling(api, after=polls)
    fates = await _all_settled(api, ["delete the shopping note", "are you still there?"])
    assert sorted(fates) == ["are you still there?", "delete the shopping note"]  # one reply each
    told = [r for r in _replies(api) if "“delete the shopping note”" in r]
    assert len(told) == 1 and "not done" in told[0]
    await api.wait_for("editMessageText", lambda c: "Cancelled" in str(c.params.get("text")), within=WAIT)
    assert read_db(db_file, "SELECT status FROM approvals")[0]["status"] == "cancelled"
    assert read_db(db_file, "SELECT COUNT(*) AS n FROM parked_turns")[0]["n"] == 0
    assert (notes / "shopping.md").exists()
