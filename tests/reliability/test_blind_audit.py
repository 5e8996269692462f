"""A blind audit of "bad input gets a clear error and loses nothing", on the real stack.

Real PTB against the fake Bot API, the real core on a real SQLite file, the real openai SDK
against the scripted model; crashes are a real `mayordomo run` child killed with -9
(tests/process.py). The families (F-numbers) were listed before the existing tests were read:

F1  kill -9 after the inbox stored a message         (tests/test_restarts.py covers it)
F2  kill -9 between the answer's commit and its send  -> sent once after restart, no new model call
F3  kill -9 after Telegram took the answer, before it was marked delivered -> arrives, at most twice
F4  the same update delivered again after a restart   -> answered once
F5  sendMessage 429 with retry_after                  -> answered once, later
F6  sendMessage 502 for many attempts, three messages -> each answered once, in order
F7  forged/garbage/bare button presses                -> answered "unknown", nothing runs
F8  another allowed user's press                      -> refused; the owner can still decide
F9  the same approval decided many times at once      -> the tool runs once, one answer
F10 an approval left alone                            -> expires to "not done"; a late yes runs nothing
F11 a restart with an approval open, then its button  -> cancelled, nothing runs
F12 an edited text message                            -> a clear notice, not silence
F13 updates with missing fields or the wrong shape    -> no stall, bare press answered, empty message noticed
F14 a 5 MB text                                       -> stored, not processed, the user told
F15 a stranger (text, 5 MB, press)                    -> one refusal, nothing stored
F16 broken JSON in tool arguments                     -> error to the model, the turn answers
F17 a call to a tool that does not exist              -> error to the model, the turn answers
F18 empty choices / HTML body / empty message         -> a clear error, the chat goes on
F19 HTTP 400 context length, twice                    -> retried without history, then said clearly
F20 a model that hangs past LLM_TIMEOUT_SECONDS       -> the timeout is said, with the setting
F21 one chat's slow model                             -> another chat is answered meanwhile
F22 a scheduled post while Telegram is down           -> delivered once later, marked late
F23 a bad setting at start                            -> one line naming the variable, no secret
F24 a model endpoint with credentials in its URL, down -> the password in no reply, log or record
F25 HTTP 401 that echoes the key                      -> LLM_API_KEY named, the key nowhere
F26 a voice note Telegram will not hand over (400)    -> a clear notice, later updates not stalled
F27 a voice note whose download is rate limited past the retries -> fetched again, not dropped
F28 a /command of 30,000 characters                   -> one short answer, not a flood
F29 Telegram refuses one rendered answer (400)        -> the answer still reaches the user
F30 an answer whose Markdown renders to nothing ("<br>") -> something is still sent, not "delivered" silence
F31 an approval given just before a stop              -> its call runs once after the start, one answer;
                                                         not at all if the start comes after the approval window
F32 an approval asked while Telegram is down          -> cancelled, nothing runs, "not done" arrives later once
F33 a model answer with half a surrogate pair          -> stored and sent (U+FFFD), not "something went wrong"
F34 a user message with half a surrogate pair         -> stored and answered, not skipped in silence
F35 one chat's slow voice-note download               -> another chat is answered meanwhile
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from telegram import Chat, Message, Update, User

from bot.adapters.base import DECISION_NOTICES
from bot.adapters.telegram import UNSUPPORTED
from bot.clock import ManualClock
from bot.core.approvals import DecisionResult
from bot.core.events import ApprovalDecision, ChatKind, ChatRef, MessageKind, OutboundMessage, Platform
from memory.db import Database
from tests.process import BotProcess, EchoModel, read_db, wait_until_polling, write_env
from tests.scripted_model import Scripted, ScriptedModel
from tests.telegram import updates
from tests.telegram.conftest import Harness, approval_id, make_harness, start_stack
from tests.telegram.fake_bot_api import ApiError, FakeBotApi
from tests.telegram.updates import OWNER_ID, PARTNER_ID, STRANGER_ID

OWNER_CHAT = ChatRef(Platform.TELEGRAM, str(OWNER_ID), str(OWNER_ID), ChatKind.PRIVATE)
USER_KEY = f"telegram:{OWNER_ID}"
WAIT = 120.0


# -- helpers ---------------------------------------------------------------------------
async def _pong(tg: Harness, word: str = "Sigo aquí.", user_id: int = OWNER_ID) -> None:
    """The chat still works: a new message is answered (and everything before it has settled)."""
    tg.model.respond(word)
    await tg.say("¿sigues ahí?", user_id=user_id)
    await tg.replies(1, chat_id=user_id, predicate=lambda t: t == word)


def _edited_text(user_id: int, message_id: int, sent: datetime, edited: datetime, body: str) -> Update:
    message = Message(message_id, sent, Chat(user_id, Chat.PRIVATE), from_user=updates.user(user_id),
                      text=body, edit_date=edited)
    return Update(0, edited_message=message)


# -- F12, F13, F14, F15: what arrives is odd -------------------------------------------
async def test_f12_an_edited_text_gets_a_clear_notice_not_silence(tg: Harness) -> None:
    tg.model.respond("Entendido.")
    message_id = tg.api.next_message_id()
    sent = tg.clock.now()
    await tg.api.push(updates.text(OWNER_ID, message_id, sent, "quedamos el lunes"))
    await tg.replies(1, predicate=lambda t: t == "Entendido.")
    await tg.api.push(_edited_text(OWNER_ID, message_id, sent, sent + timedelta(minutes=1), "quedamos el martes"))
    # The user changed what they said; silence would leave them believing the change was read.
    [notice] = await tg.replies(1, predicate=lambda t: "edit" in t.lower())
    assert "again" in notice.lower() or "de nuevo" in notice.lower()
    await _pong(tg)
    assert len(tg.model.requests) == 2  # the edit itself never reached the model


async def test_f13_malformed_updates_neither_stall_nor_vanish_silently(tg: Harness) -> None:
    now = int(tg.clock.now().timestamp())
    owner = {"id": OWNER_ID, "is_bot": False, "first_name": "Owner"}
    chat = {"id": OWNER_ID, "type": "private"}
    await tg.api.push({"message": {"message_id": 7001, "date": now, "chat": chat, "text": "no sender"}})
    await tg.api.push({"message": {"message_id": 7002, "date": now, "chat": chat, "from": owner}})
    await tg.api.push({"callback_query": {"id": "bare-press", "from": owner, "chat_instance": "ci"}})
    await tg.api.push({"message": "not an object"})
    await tg.api.push({"message": {"message_id": 7003, "date": now, "chat": chat, "from": owner,
                                   "text": "x", "entities": "not a list"}})
    await tg.api.push({"callback_query": {"id": "huge-press", "from": owner, "chat_instance": "ci",
                                          "data": "ok:" + "A" * 5000}})
    await _pong(tg)
    assert await tg.answer_to("bare-press") == DECISION_NOTICES[DecisionResult.UNKNOWN]
    assert await tg.answer_to("huge-press") == DECISION_NOTICES[DecisionResult.UNKNOWN]
    assert tg.owner_texts().count(UNSUPPORTED) == 1  # the empty message was told, once
    assert len(tg.model.requests) == 1


async def test_f14_a_5_mb_text_is_kept_not_processed_and_the_user_told(tg: Harness) -> None:
    body = "a" * 5_000_000
    await tg.say(body)
    [reply] = await tg.replies(1)
    assert "5,000,000" in reply and f"{tg.settings.core.max_message_chars:,}" in reply
    assert tg.model.requests == []
    rows = await tg.db.fetchall("SELECT role, length(content) AS n FROM messages")
    assert [(r["role"], r["n"]) for r in rows] == [("user", 5_000_000)]  # nothing lost
    await _pong(tg)
    inbox = await tg.db.fetchall("SELECT status, length(payload) AS n FROM chat_inbox ORDER BY id")
    assert (inbox[0]["status"], inbox[0]["n"]) == ("done", 2)  # no second copy lingers


async def test_f15_a_stranger_gets_one_refusal_and_nothing_is_stored(tg: Harness) -> None:
    await tg.say("hola", user_id=STRANGER_ID)
    await tg.say("b" * 5_000_000, user_id=STRANGER_ID)
    await tg.push(lambda mid: updates.voice(STRANGER_ID, mid, tg.clock.now(), "file-x", 100))
    bot_user = User(tg.api.bot_id, "Mayordomo", True, username=tg.api.username)
    await tg.api.push(updates.press(STRANGER_ID, "stranger-press", "ok:" + "A" * 22, STRANGER_ID, 1,
                                    tg.clock.now(), bot_user))
    await _pong(tg)
    assert await tg.answer_to("stranger-press") == DECISION_NOTICES[DecisionResult.NOT_OWNER]
    to_stranger = [c for c in tg.api.calls_to("sendMessage") if c.params["chat_id"] == STRANGER_ID]
    assert len(to_stranger) == 1 and str(STRANGER_ID) in str(to_stranger[0].params["text"])
    assert tg.api.calls_to("getFile") == []  # the stranger's file was never fetched
    assert await tg.db.fetchall("SELECT * FROM chat_inbox WHERE user_id = ?", (str(STRANGER_ID),)) == []
    for table in ("messages", "chats", "turns"):
        rows = await tg.db.fetchall(f"SELECT * FROM {table} WHERE user_key = ?", (f"telegram:{STRANGER_ID}",))
        assert rows == [], table


# -- F26, F27, F28, F29: the adapter's own failure paths -------------------------------
async def test_f26_a_voice_note_telegram_will_not_hand_over_is_told_and_does_not_stall(tg: Harness) -> None:
    await tg.push(lambda mid: updates.voice(OWNER_ID, mid, tg.clock.now(), "file-gone", 1000))
    [notice] = await tg.replies(1)
    assert "voice" in notice.lower() and "again" in notice.lower()
    await _pong(tg)


async def test_f27_a_voice_note_rate_limited_past_the_retries_is_fetched_again_not_dropped(tg: Harness) -> None:
    file_id = tg.api.add_file(b"OggS fake audio", "voice/file.oga")
    tg.api.fail_next("getFile", 429, times=tg.settings.telegram.send_retries + 3)
    tg.model.transcript("hola")
    tg.model.respond("Hola, ¿qué tal?")
    await tg.push(lambda mid: updates.voice(OWNER_ID, mid, tg.clock.now(), file_id, 15))
    await tg.advance_until(lambda: "Hola, ¿qué tal?" in tg.owner_texts(), step=4.0)
    assert len(tg.model.transcription_requests) == 1


async def test_f28_a_30000_character_command_gets_one_short_answer(tg: Harness) -> None:
    await tg.say("/" + "x" * 30_000)
    await _pong(tg)
    replies = tg.owner_texts()[:-1]
    assert len(replies) == 1, f"{len(replies)} messages for one command"
    assert len(replies[0]) < 4096


@dataclass
class EntityRefusingBotApi(FakeBotApi):
    """Refuses the next `refuse` formatted sendMessage calls as Telegram does a bad entity."""

    refuse: int = 0

    async def _m_sendMessage(self, params: dict[str, Any]) -> Any:
        if self.refuse and params.get("entities"):
            self.refuse -= 1
            raise ApiError(400, "Bad Request: can't parse entities: entity beginning at UTF-16 offset 0 is invalid")
        return await super()._m_sendMessage(params)


async def test_f29_an_answer_whose_formatting_telegram_refuses_still_reaches_the_user(
        tmp_path: Path, model: ScriptedModel, db: Database, clock: ManualClock) -> None:
    api = EntityRefusingBotApi(refuse=1)
    await api.start()
    tg = await make_harness(tmp_path, model, api, db, clock)
    try:
        model.respond("**Hecho a medida:** una respuesta con formato.")
        await tg.say("dime algo con formato")
        await _pong(tg)
        got = [t for t in tg.owner_texts() if "una respuesta con formato" in t]
        assert got == ["Hecho a medida: una respuesta con formato."], tg.owner_texts()
    finally:
        await tg.stack.stop()
        await api.stop()


# -- F5, F6, F22: Telegram is down -----------------------------------------------------
async def test_f5_flood_control_on_the_answer_delivers_it_once(tg: Harness) -> None:
    tg.model.respond("Respuesta uno.")
    tg.api.fail_next("sendMessage", 429, times=2)
    await tg.say("pregunta uno")
    await tg.advance_until(lambda: "Respuesta uno." in tg.owner_texts(), step=3.0)
    await _pong(tg)
    assert tg.owner_texts().count("Respuesta uno.") == 1


async def test_f6_a_long_outage_delivers_every_answer_once_in_order(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await make_harness(tmp_path, model, api, db, clock, send_retries=0)
    try:
        api.fail_next("sendMessage", 502, times=40)
        said = ["uno", "dos", "tres"]
        for word in said:
            model.respond(f"Respuesta {word}.")
        for word in said:
            await tg.say(f"pregunta {word}")
            await tg.wait_until(lambda word=word: _queued(tg, f"Respuesta {word}."))  # type: ignore[misc]
        await tg.advance_until(lambda: len(tg.owner_texts()) >= 3, step=20.0)
        api.heal()
        await tg.advance_until(lambda: len(tg.owner_texts()) >= 3, step=20.0)
        assert tg.owner_texts() == [f"Respuesta {word}." for word in said]
        await _pong(tg)
        assert tg.owner_texts()[:3] == [f"Respuesta {word}." for word in said]
        assert len(tg.owner_texts()) == 4
    finally:
        await tg.stack.stop()


async def _queued(tg: Harness, text: str) -> bool:
    """The answer is in the outbox (committed with its turn), waiting for Telegram."""
    row = await tg.db.fetchone("SELECT COUNT(*) AS n FROM outbox WHERE text = ?", (text,))
    return bool(row and row["n"] == 1)


async def test_f22_a_scheduled_post_during_an_outage_arrives_once_and_says_it_is_late(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await make_harness(tmp_path, model, api, db, clock, send_retries=0)
    try:
        await tg.say("/help")
        await tg.replies(1)
        api.fail_next("sendMessage", 502, times=1000)
        diary = OutboundMessage("Hoy fue un buen día.", MessageKind.SCHEDULED)
        assert await tg.assistant.deliver(USER_KEY, diary) is None  # not lost: waiting in the outbox
        await tg.clock.advance(600)
        api.heal()
        await tg.advance_until(lambda: any(t.startswith("Hoy fue") for t in tg.owner_texts()), step=30.0)
        await _pong(tg)
        posts = [t for t in tg.owner_texts() if t.startswith("Hoy fue")]
        assert len(posts) == 1 and posts[0] != "Hoy fue un buen día."  # it says it is late
    finally:
        await tg.stack.stop()


# -- F4: redelivery after a restart ----------------------------------------------------
async def test_f4_an_update_delivered_again_after_a_restart_is_answered_once(tg: Harness) -> None:
    tg.model.respond("Una sola vez.")
    await tg.say("¿qué tal?")
    await tg.replies(1, predicate=lambda t: t == "Una sola vez.")
    first = dict(tg.api.pushed[-1])
    await tg.restart()
    # Telegram never heard the offset move (the process died first): it sends the update again.
    tg.api._updates.append(json.loads(json.dumps(first)))  # same update_id
    await tg.api._notify()
    await tg.api.wait_for("getUpdates", lambda c: (c.params.get("offset") or 0) > first["update_id"])
    await _pong(tg)
    assert tg.owner_texts().count("Una sola vez.") == 1
    assert len(tg.model.requests) == 2


# -- F7..F11: approvals ----------------------------------------------------------------
async def _ask(tg: Harness, title: str = "Groceries") -> tuple[str, Any]:
    tg.model.call("delete_note", title=title)
    await tg.say(f"borra la nota {title}")
    shown = await tg.approval_message()
    request_id = approval_id(shown)

    async def parked() -> bool:
        return await tg.db.fetchone("SELECT 1 FROM parked_turns WHERE approval_id = ?", (request_id,)) is not None

    await tg.wait_until(parked)
    return request_id, shown


async def test_f7_f8_f9_forged_foreign_and_simultaneous_decisions_run_the_tool_once(tg: Harness) -> None:
    request_id, shown = await _ask(tg)
    tg.model.respond("He borrado la nota Groceries.")
    for forged in ["ok:" + "A" * 22, "no:", "al:" + request_id + "x", "ok:" + request_id[:-1], "💥"]:
        query = await tg.press(shown, approve=True, data=forged)
        assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.UNKNOWN], forged
    partner = await tg.press(shown, approve=True, user_id=PARTNER_ID)
    assert await tg.answer_to(partner) == DECISION_NOTICES[DecisionResult.NOT_OWNER]
    assert tg.skill.deleted == []
    decisions = [ApprovalDecision(OWNER_CHAT, request_id, approve) for approve in (True, False, True, True, False)]
    results = await asyncio.gather(*(tg.assistant.decide(d) for d in decisions))
    assert results.count(DecisionResult.ACCEPTED) == 1
    assert set(results) == {DecisionResult.ACCEPTED, DecisionResult.ALREADY_DECIDED}
    late = await tg.press(shown, approve=True)
    assert await tg.answer_to(late) == DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]
    await _pong(tg)
    status = await tg.db.fetchone("SELECT status FROM approvals WHERE id = ?", (request_id,))
    assert status is not None
    assert tg.skill.deleted == (["Groceries"] if status["status"] == "approved" else [])
    answered = [t for t in tg.owner_texts() if "Groceries" in t and "⚠️" not in t]
    assert len(answered) == 1, answered


async def test_f10_silence_expires_to_not_done_and_a_late_yes_runs_nothing(tg: Harness) -> None:
    _, shown = await _ask(tg)
    tg.model.respond("No la he borrado: nadie lo aprobó a tiempo.")
    await tg.advance_until(lambda: any(t.startswith("No la he borrado") for t in tg.owner_texts()),
                        step=tg.settings.core.approval_timeout_seconds / 3)
    late = await tg.press(shown, approve=True)
    assert await tg.answer_to(late) == DECISION_NOTICES[DecisionResult.EXPIRED]
    await _pong(tg)
    assert tg.skill.deleted == []


async def test_f11_a_stop_and_start_with_an_approval_open_runs_nothing(tg: Harness) -> None:
    request_id, shown = await _ask(tg)
    await tg.stack.stop()
    tg.stack = await start_stack(tg.settings, tg.db, tg.clock, tg.skill)
    await tg.replies(1, predicate=lambda t: "Groceries" in t and "🚫" in t)
    query = await tg.press(shown, approve=True)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]
    result = await tg.assistant.decide(ApprovalDecision(OWNER_CHAT, request_id, True))
    assert result is DecisionResult.ALREADY_DECIDED
    await _pong(tg)
    assert tg.skill.deleted == []


# -- F16..F21, F25: the model misbehaves -----------------------------------------------
async def test_f16_f17_broken_arguments_and_an_unknown_tool_go_back_to_the_model(tg: Harness) -> None:
    tg.model.call("delete_note", '{"title": "Groc')
    tg.model.call("launch_missiles", {"target": "moon"})
    tg.model.respond("No he podido hacerlo.")
    await tg.say("borra la nota Groceries")
    await tg.replies(1, predicate=lambda t: t.startswith("No he podido"))
    assert tg.skill.deleted == [] and not any(m.had_buttons for m in tg.api.sent)
    rows = await tg.db.fetchall("SELECT tool, status FROM tool_calls ORDER BY id")
    assert [(r["tool"], r["status"]) for r in rows] == [("delete_note", "invalid_arguments"),
                                                        ("launch_missiles", "unknown_tool")]
    tool_results = [m["content"] for m in tg.model.requests[-1]["messages"] if m["role"] == "tool"]
    assert all(str(content).startswith("ERROR:") for content in tool_results) and len(tool_results) == 2


async def test_f16b_a_model_that_only_ever_sends_broken_calls_ends_the_turn_honestly(tg: Harness) -> None:
    tg.model.responder = lambda body: Scripted(tool_calls=[("delete_note", "{not json")])
    await tg.say("borra la nota Groceries")
    [reply] = await tg.replies(1)
    assert tg.skill.deleted == []
    assert len(tg.model.requests) <= tg.settings.core.max_tool_rounds + tg.settings.core.max_verification_retries + 1
    assert reply.strip()


@pytest.mark.parametrize("body", [
    '{"choices": []}', "<html>502 Bad Gateway</html>",
    '{"choices": [{"message": {"role": "assistant", "content": null}}]}',
    '{"choices": [{"message": {"role": "assistant", "tool_calls": [{"function": {}}]}}]}',
])
async def test_f18_an_unusable_completion_is_said_and_the_chat_goes_on(tg: Harness, body: str) -> None:
    tg.model.garbage(body)
    await tg.say("hola")
    [reply] = await tg.replies(1)
    assert "model" in reply.lower() or "modelo" in reply.lower()
    assert reply != "Sigo aquí."
    await _pong(tg)
    stored = await tg.db.fetchall("SELECT content FROM messages WHERE role = 'user'")
    assert stored[0]["content"] == "hola"


async def test_f19_context_too_long_twice_is_said_clearly(tg: Harness) -> None:
    tg.model.respond("Primera.")
    await tg.say("primera pregunta")
    await tg.replies(1, predicate=lambda t: t == "Primera.")
    for _ in range(2):
        tg.model.fail(400, "This model's maximum context length is 8192 tokens", code="context_length_exceeded")
    await tg.say("segunda pregunta")
    [reply] = await tg.replies(1, predicate=lambda t: t != "Primera.")
    assert "context" in reply.lower() or "contexto" in reply.lower()
    assert len(tg.model.requests) == 3  # one retry without the history, not a loop
    await _pong(tg)


async def test_f20_f21_a_hanging_model_times_out_clearly_and_never_stalls_another_chat(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await make_harness(tmp_path, model, api, db, clock, llm={"timeout_seconds": 3})

    def respond(body: dict[str, Any]) -> Scripted:
        said = json.dumps(body["messages"][-1].get("content"))
        if "lento" in said:
            return Scripted(delay=10.0, content="too late")
        return Scripted(tool_calls=[("respond", {"text": "Hola."})])

    model.responder = respond
    try:
        await tg.say("esto va lento")
        await asyncio.sleep(0.3)  # the owner's turn is with the model
        started = time.monotonic()
        await tg.say("hola", user_id=PARTNER_ID)
        await tg.replies(1, chat_id=PARTNER_ID, predicate=lambda t: t == "Hola.")
        assert tg.owner_texts() == []  # the partner's answer did not wait for the owner's turn
        assert time.monotonic() - started < 3.0
        [reply] = await tg.replies(1, chat_id=OWNER_ID)
        assert "LLM_TIMEOUT_SECONDS" in reply
    finally:
        await tg.stack.stop()


async def test_f25_a_401_that_echoes_the_key_names_the_setting_and_hides_the_key(
        tg: Harness, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    key = tg.settings.llm.api_key.get_secret_value()
    tg.model.fail(401, f"Incorrect API key provided: {key}. You can find your API key at …")
    await tg.say("hola")
    [reply] = await tg.replies(1)
    assert "LLM_API_KEY" in reply and key not in reply
    assert key not in caplog.text
    errors = await tg.db.fetchall("SELECT error FROM model_calls")
    assert all(key not in str(r["error"]) for r in errors)
    stored = await tg.db.fetchall("SELECT content FROM messages WHERE role = 'user'")
    assert [r["content"] for r in stored] == ["hola"]


async def test_f24_credentials_in_the_model_url_never_reach_a_reply_a_log_or_the_database(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    password = "pa55-w0rd-in-url"
    tg = await make_harness(tmp_path, model, api, db, clock,
                            llm={"base_url": f"http://proxyuser:{password}@127.0.0.1:9/v1"})
    try:
        await tg.say("hola")
        [reply] = await tg.replies(1)
        assert password not in reply
        assert password not in caplog.text
        errors = await tg.db.fetchall("SELECT error FROM model_calls")
        assert errors and all(password not in str(r["error"]) for r in errors)
    finally:
        await tg.stack.stop()


# -- F23: broken configuration ---------------------------------------------------------
@pytest.mark.parametrize(("line", "variable"), [
    ("LLM_TIMEOUT_SECONDS=soon", "LLM_TIMEOUT_SECONDS"),
    ("TELEGRAM_ALLOWED_USERS=alice,bob", "TELEGRAM_ALLOWED_USERS"),
    ("APPROVAL_TIMEOUT_SECONDS=-5", "APPROVAL_TIMEOUT_SECONDS"),
    ("TIMEZONE=Mars/Olympus", "TIMEZONE"),
])
async def test_f23_a_bad_setting_stops_with_one_line_naming_it_and_no_secret(
        tmp_path: Path, line: str, variable: str) -> None:
    secret_key, secret_token = "sk-TOPSECRET-abcdef", "123456:SECRET-TOKEN-xyz"
    env_file = tmp_path / "bad.env"
    env_file.write_text(f"DATA_DIR={tmp_path}\nLLM_BASE_URL=http://127.0.0.1:9/v1\nLLM_CHAT_MODEL=m\n"
                        f"LLM_API_KEY={secret_key}\nTELEGRAM_BOT_TOKEN={secret_token}\n{line}\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "MATRIX_", "LLM_"))}
    for command in ("check-config", "run"):
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "--env-file", str(env_file), command,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env, cwd=os.getcwd())
        output, _ = await asyncio.wait_for(process.communicate(), 60)
        text = output.decode()
        assert process.returncode not in (0, None), text
        lines = text.strip().splitlines()
        assert len(lines) == 1 and variable in lines[0], text
        assert secret_key not in text and secret_token not in text and "Traceback" not in text


# -- F2, F3: kill -9 around the send ---------------------------------------------------
@dataclass
class HoldingBotApi(FakeBotApi):
    """Takes a sendMessage (the message is shown) and then never answers while `hold` is set."""

    hold: bool = False

    async def _m_sendMessage(self, params: dict[str, Any]) -> Any:
        result = await super()._m_sendMessage(params)
        if self.hold:
            await asyncio.sleep(3600)
        return result


@pytest.fixture
async def holding_api() -> AsyncIterator[HoldingBotApi]:
    server = HoldingBotApi()
    await server.start()
    yield server
    await server.stop()


async def _start(bots: list[BotProcess], env_file: Path, tmp_path: Path) -> BotProcess:
    bot = BotProcess(env_file, tmp_path / f"bot{len(bots)}.log")
    await bot.start()
    bots.append(bot)
    return bot


async def _until(check: Any, within: float = WAIT) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not reached")


def _rows(db_file: Path, sql: str) -> list[Any]:
    return read_db(db_file, sql) if db_file.exists() else []


async def test_f2_kill_9_between_the_answer_and_its_send_sends_it_once_without_asking_again(
        tmp_path: Path, holding_api: HoldingBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    api = holding_api
    echo = EchoModel(model)
    env_file = write_env(tmp_path, api, model, TELEGRAM_SEND_RETRIES=0)
    db_file = tmp_path / "data" / "mayordomo.sqlite3"
    first = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    api.fail_next("sendMessage", 502, times=100_000)
    await api.push(updates.text(OWNER_ID, api.next_message_id(), datetime.now(UTC), "hello"))
    await _until(lambda: any(r["status"] == "pending" and r["attempts"] >= 1 for r in
                             _rows(db_file, "SELECT status, attempts FROM outbox WHERE text = 'echo: hello'")))
    first.kill()
    await first.wait()
    api.heal()
    polls = len(api.calls_to("getUpdates"))
    await _start(bots, env_file, tmp_path)
    await wait_until_polling(api, after=polls)
    await _until(lambda: "echo: hello" in [m.text for m in api.sent])
    await asyncio.sleep(1.0)
    assert [m.text for m in api.sent] == ["echo: hello"]
    assert echo.turns == ["hello"]  # the answer was kept, not asked for again


async def test_f3_kill_9_after_telegram_took_the_answer_delivers_it_at_most_twice(
        tmp_path: Path, holding_api: HoldingBotApi, model: ScriptedModel, bots: list[BotProcess]) -> None:
    api = holding_api
    echo = EchoModel(model)
    env_file = write_env(tmp_path, api, model)
    db_file = tmp_path / "data" / "mayordomo.sqlite3"
    first = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api)
    api.hold = True
    await api.push(updates.text(OWNER_ID, api.next_message_id(), datetime.now(UTC), "hello"))
    await _until(lambda: "echo: hello" in [m.text for m in api.sent])
    first.kill()
    await first.wait()
    api.hold = False
    polls = len(api.calls_to("getUpdates"))
    second = await _start(bots, env_file, tmp_path)
    await wait_until_polling(api, after=polls)
    await _until(lambda: all(r["status"] != "pending" for r in _rows(db_file, "SELECT status FROM outbox")))
    await asyncio.sleep(0.5)
    copies = [m.text for m in api.sent].count("echo: hello")
    assert 1 <= copies <= 2, second.log()
    assert echo.turns == ["hello"]


# -- F30..F32: added after the first run, from reading the send and approval paths -----
async def test_f30_an_answer_that_renders_to_nothing_still_reaches_the_user(tg: Harness) -> None:
    tg.model.respond("<br>")
    await tg.say("hola")
    await _pong(tg)
    assert len(tg.owner_texts()) == 2, tg.owner_texts()  # one answer each, none swallowed
    assert tg.owner_texts()[0] == "<br>"  # as written: silence would be recorded as delivered

    async def both_recorded() -> bool:
        row = await tg.db.fetchone("SELECT COUNT(*) AS n FROM outbox WHERE status = 'delivered'"
                                   " AND message_id IS NOT NULL")
        return bool(row and row["n"] == 2)

    await tg.wait_until(both_recorded)


@pytest.mark.parametrize("down_hours", [0, 3])
async def test_f31_an_approval_given_just_before_a_stop_runs_once_after_it_but_never_late(
        tg: Harness, down_hours: int) -> None:
    late = down_hours > 0
    answer = "No la he borrado: pasó demasiado tiempo." if late else "He borrado la nota Groceries."
    request_id, _ = await _ask(tg)
    tg.model.respond(answer)
    tg.assistant._accepting = False  # going down: no worker takes the resumption in this process
    assert await tg.assistant.decide(ApprovalDecision(OWNER_CHAT, request_id, True)) is DecisionResult.ACCEPTED
    await tg.stack.stop()
    assert tg.skill.deleted == []
    await tg.clock.advance(down_hours * 3600)
    tg.stack = await start_stack(tg.settings, tg.db, tg.clock, tg.skill)
    await tg.replies(1, predicate=lambda t: t.startswith(answer))
    await _pong(tg)
    assert len([t for t in tg.owner_texts() if t.startswith(answer)]) == 1  # one answer, not two
    call = await tg.db.fetchone("SELECT status FROM tool_calls WHERE tool = 'delete_note'")
    assert call is not None
    if late:  # what was approved then is not done hours later, and the model is told why
        assert tg.skill.deleted == [] and call["status"] == "expired"
        told = str(tg.model.requests[-2]["messages"])  # the round that followed the parked call
        assert "NOT DONE" in told and "restart delayed it" in told
    else:
        assert tg.skill.deleted == ["Groceries"] and call["status"] == "ok"


async def test_f32_an_approval_asked_while_telegram_is_down_runs_nothing_and_says_so_later(
        tmp_path: Path, model: ScriptedModel, api: FakeBotApi, db: Database, clock: ManualClock) -> None:
    tg = await make_harness(tmp_path, model, api, db, clock, send_retries=0)
    try:
        api.fail_next("sendMessage", 502, times=1000)
        model.call("delete_note", title="Groceries")
        model.respond("No la he borrado: no pude pedirte permiso.")
        await tg.say("borra la nota Groceries")
        await tg.wait_until(lambda: _any_pending(tg))
        assert tg.skill.deleted == []
        api.heal()
        await tg.advance_until(lambda: any(t.startswith("No la he borrado") for t in tg.owner_texts()), step=20.0)
        await _pong(tg)
        assert tg.skill.deleted == []
        assert len([t for t in tg.owner_texts() if t.startswith("No la he borrado")]) == 1
        assert not any(m.had_buttons for m in api.sent)
        status = await db.fetchone("SELECT status FROM approvals")
        assert status is not None and status["status"] == "cancelled"
    finally:
        await tg.stack.stop()


async def _any_pending(tg: Harness) -> bool:
    row = await tg.db.fetchone("SELECT COUNT(*) AS n FROM outbox WHERE status = 'pending' AND kind != 'error'")
    return bool(row and row["n"])


async def test_f33_a_model_answer_with_a_broken_surrogate_is_still_stored_and_sent(tg: Harness) -> None:
    # A JSON escape for half an emoji: valid JSON, but no valid UTF-8 exists for it.
    tg.model.call("respond", '{"text": "Hola \\ud83d y adiós"}')
    await tg.say("hola")
    [reply] = await tg.replies(1)
    assert reply.startswith("Hola") and "adiós" in reply, reply
    await _pong(tg)
    stored = await tg.db.fetchall("SELECT content FROM messages WHERE role = 'assistant' ORDER BY id")
    assert stored and str(stored[0]["content"]).startswith("Hola")


async def test_f34_a_message_with_a_broken_surrogate_is_stored_and_answered_not_skipped(tg: Harness) -> None:
    tg.model.respond("Hola.")
    # Half an emoji: Matrix clients and terminals can send it.
    await tg.api.push(updates.text(OWNER_ID, tg.api.next_message_id(), tg.clock.now(), "hola \ud83d"))
    await tg.replies(1, predicate=lambda t: t == "Hola.")
    stored = await tg.db.fetchall("SELECT content FROM messages WHERE role = 'user'")
    assert [r["content"] for r in stored] == ["hola \ufffd"]


@dataclass
class SlowFilesBotApi(FakeBotApi):
    """Serves file downloads slowly (a 20 MB voice note on a bad link)."""

    file_delay: float = 0.0

    async def _download(self, request: Any) -> Any:
        await asyncio.sleep(self.file_delay)
        return await super()._download(request)


async def test_f35_one_chat_s_slow_download_does_not_stall_another_chat(
        tmp_path: Path, model: ScriptedModel, db: Database, clock: ManualClock) -> None:
    api = SlowFilesBotApi(file_delay=6.0)
    await api.start()
    tg = await make_harness(tmp_path, model, api, db, clock)

    def respond(body: dict[str, Any]) -> Scripted:
        return Scripted(tool_calls=[("respond", {"text": "Hola."})])

    model.responder = respond
    try:
        file_id = api.add_file(b"OggS slow audio", "voice/file.oga")
        model.transcript("hola")
        await tg.push(lambda mid: updates.voice(OWNER_ID, mid, tg.clock.now(), file_id, 15))
        await api.wait_for("getFile")
        await asyncio.sleep(0.3)  # the download is under way
        started = time.monotonic()
        await tg.say("hola", user_id=PARTNER_ID)
        await tg.replies(1, chat_id=PARTNER_ID, predicate=lambda t: t == "Hola.")
        waited = time.monotonic() - started
        await tg.replies(1, chat_id=OWNER_ID, predicate=lambda t: t == "Hola.")  # the voice note too
        assert waited < 4.0, f"the partner waited {waited:.1f} s behind the owner's download"
    finally:
        await tg.stack.stop()
        await api.stop()
