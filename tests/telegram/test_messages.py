"""Text, commands, strangers, malformed updates and long answers over the real PTB stack."""

from __future__ import annotations

from typing import Any

import pytest

from bot.adapters.telegram import REFUSAL, UNSUPPORTED
from memory.db import Database
from tests.telegram import updates
from tests.telegram.conftest import Harness
from tests.telegram.fake_bot_api import utf16_len
from tests.telegram.updates import OWNER_ID, STRANGER_ID


async def test_text_message_is_answered_through_the_scripted_model(tg: Harness) -> None:
    tg.model.respond("Hola, **Ana**. Today is Monday.")
    await tg.say("hola, ¿qué día es hoy?")

    [answer] = await tg.replies(1)
    assert answer == "Hola, Ana. Today is Monday."
    sent = tg.api.calls_to("sendMessage")[0].params
    assert sent["entities"] == [{"type": "bold", "offset": 6, "length": 3}]
    assert tg.api.calls_to("sendChatAction")[0].params == {"chat_id": OWNER_ID, "action": "typing"}
    assert tg.model.requests[0]["messages"][-1]["content"].endswith("hola, ¿qué día es hoy?")
    rows = await tg.db.fetchall("SELECT role, content, user_key FROM messages ORDER BY id")
    assert [(r["role"], r["user_key"]) for r in rows] == [
        ("user", f"telegram:{OWNER_ID}"), ("assistant", f"telegram:{OWNER_ID}")]
    async def recorded() -> bool:  # written once the Bot API answered the send
        return bool(await tg.db.fetchall("SELECT 1 FROM telegram_sent"))

    await tg.wait_until(recorded)
    rows = await tg.db.fetchall("SELECT * FROM telegram_sent")
    assert [(r["chat_id"], r["kind"], r["attempts"]) for r in rows] == [(str(OWNER_ID), "answer", 1)]


async def test_commands_reach_the_core_with_name_and_argument(tg: Harness) -> None:
    from bot.core.events import CommandMessage, OutboundMessage

    async def forget(event: CommandMessage) -> OutboundMessage:
        return OutboundMessage(f"forget asked for: {event.argument}")

    tg.assistant.add_command("forget", forget, "forget something")
    await tg.say("/forget@mayordomo_test_bot my coffee order")
    [reply] = await tg.replies(1)
    assert reply == "forget asked for: my coffee order"

    await tg.say("/help")
    await tg.say("/location")
    help_text, location_text = (await tg.replies(3))[1:]
    assert "/location" in help_text and "/forget" in help_text
    assert location_text != help_text
    assert tg.model.requests == []  # commands are answered by the core, not the model


async def test_the_command_menu_is_set_from_the_core_commands(tg: Harness) -> None:
    [call] = tg.api.calls_to("setMyCommands")
    names = [c["command"] for c in call.params["commands"]]
    assert {"start", "help", "reset", "location"} <= set(names)


async def test_an_unknown_user_gets_one_refusal_and_nothing_is_stored(tg: Harness) -> None:
    await tg.say("hola, soy un desconocido", user_id=STRANGER_ID)
    await tg.say("¿me oyes?", user_id=STRANGER_ID)
    await tg.push(lambda mid: updates.pin(STRANGER_ID, mid, tg.clock.now(), 40.4, -3.7))
    file_id = tg.api.add_file(b"OggS not really audio")
    await tg.push(lambda mid: updates.voice(STRANGER_ID, mid, tg.clock.now(), file_id, 21))
    # The owner's command after them proves the stranger's updates were all processed.
    await tg.say("/help")
    await tg.replies(1)

    refusals = [c.params["text"] for c in tg.api.calls_to("sendMessage")
                if c.params["chat_id"] == STRANGER_ID]
    assert refusals == [REFUSAL.format(user_id=STRANGER_ID)]
    assert tg.model.requests == [] and tg.model.transcription_requests == []
    assert tg.api.calls_to("getFile") == []  # their voice note was never even downloaded
    assert await tg.db.fetchall("SELECT * FROM messages") == []
    assert await tg.db.fetchall("SELECT * FROM locations") == []
    chats = await tg.db.fetchall("SELECT user_key FROM chats")
    assert [r["user_key"] for r in chats] == [f"telegram:{OWNER_ID}"]
    sent_to = await tg.db.fetchall("SELECT DISTINCT chat_id FROM telegram_sent")
    assert [r["chat_id"] for r in sent_to] == [str(OWNER_ID)]


async def test_a_malformed_update_does_not_stall_polling(tg: Harness) -> None:
    broken = await tg.api.push({"message": {"message_id": 5, "text": "no date, no chat"}})
    tg.model.respond("Sigo aquí.")
    await tg.say("¿sigues ahí?")
    assert await tg.replies(1) == ["Sigo aquí."]
    offsets = [c.params.get("offset") for c in tg.api.calls_to("getUpdates")]
    assert any((offset or 0) > broken for offset in offsets)


async def test_unsupported_messages_get_a_short_notice_and_are_not_stored(tg: Harness) -> None:
    await tg.push(lambda mid: updates.sticker(OWNER_ID, mid, tg.clock.now()))
    assert await tg.replies(1) == [UNSUPPORTED]
    assert await tg.db.fetchall("SELECT * FROM messages") == []


async def test_a_long_answer_is_split_into_parts_with_valid_entities(tg: Harness) -> None:
    line = "**Paso** 😀 _importante_: " + "texto " * 12 + "`código`\n\n"
    tg.model.respond(line * 120)
    await tg.say("dame la lista larga")
    await tg.api.wait_for("sendMessage", count=3)
    await tg.wait_until(lambda: _sent_rows(tg, "answer"))
    rows = await tg.db.fetchall("SELECT * FROM telegram_sent ORDER BY id")
    parts = rows[0]["parts"]
    assert parts >= 3 and [r["part"] for r in rows] == list(range(1, parts + 1))
    calls = tg.api.calls_to("sendMessage")
    assert len(calls) == parts
    bold = 0
    for call in calls:
        text = call.params["text"]
        size = utf16_len(text)
        assert 0 < size <= 4096
        for entity in call.params.get("entities", []):
            assert entity["offset"] >= 0 and entity["length"] > 0
            assert entity["offset"] + entity["length"] <= size
            bold += entity["type"] == "bold"
            if entity["type"] == "bold":
                word = text.encode("utf-16-le")[2 * entity["offset"]:
                                                2 * (entity["offset"] + entity["length"])]
                assert word.decode("utf-16-le") == "Paso"
    assert bold == 120


async def _sent_rows(tg: Harness, kind: str) -> bool:
    rows = await tg.db.fetchall("SELECT part, parts FROM telegram_sent WHERE kind = ?", (kind,))
    return bool(rows) and len(rows) == rows[0]["parts"]


async def test_suggestions_become_a_one_time_reply_keyboard(tg: Harness) -> None:
    tg.model.respond("¿Qué prefieres?", suggestions=["Café", "Té"])
    await tg.say("¿qué me recomiendas?")
    await tg.replies(1)
    markup = tg.api.calls_to("sendMessage")[-1].params["reply_markup"]
    assert [[button["text"] for button in row] for row in markup["keyboard"]] == [["Café"], ["Té"]]
    assert markup["one_time_keyboard"] is True


async def test_a_command_for_another_bot_is_ignored(tg: Harness) -> None:
    await tg.say("/stats@some_other_bot")
    await tg.say("/help@mayordomo_test_bot")
    [reply] = await tg.replies(1)
    assert "/location" in reply
    assert len(tg.api.calls_to("sendMessage")) == 1


async def test_location_offers_telegrams_share_button_and_help_lists_every_command(tg: Harness) -> None:
    await tg.say("/location")
    calls = await tg.api.wait_for("sendMessage", lambda c: "reply_markup" in c.params)
    keyboard = calls[0].params["reply_markup"]["keyboard"]
    assert keyboard == [[{"text": "📍 Share my location", "request_location": True}]]
    await tg.say("/help")
    help_text = (await tg.replies(1, predicate=lambda t: t.startswith("Commands")))[0]
    for command in ("/pin", "/permissions", "/location", "/reset", "/start"):
        assert command in help_text, command
    menu = tg.api.calls_to("setMyCommands")[0].params["commands"]
    assert {"pin", "permissions"} <= {c["command"] for c in menu}


async def test_a_burst_is_stored_in_one_durable_commit_in_order_before_the_offset_moves(
        tg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    await tg.adapter.stop_receiving()  # the burst waits at the Bot API, as during a restart
    said = [f"mensaje {i}" for i in range(8)]
    pushed = [await tg.say(text) for text in said]
    await tg.say("/help")  # a command joins the run
    commits: list[bool] = []  # durable or not, per transaction
    transaction = Database.transaction

    def counted(self: Database, durable: bool = False) -> Any:
        commits.append(durable)
        return transaction(self, durable)

    monkeypatch.setattr(Database, "transaction", counted)
    for text in said:
        tg.model.respond(f"ok: {text}")
    await tg.restart()
    answers = await tg.replies(9)
    assert [a for a in answers if a.startswith("ok: ")] == [f"ok: {text}" for text in said]
    assert commits.count(True) == 1  # one flush to disk for the whole batch
    rows = await tg.db.fetchall("SELECT source FROM chat_inbox ORDER BY id")
    assert [r["source"] for r in rows] == [f"telegram:{u}" for u in [*pushed, pushed[-1] + 1]]
    offsets = [c.params.get("offset") or 0 for c in tg.api.calls_to("getUpdates")]
    assert max(offsets) == pushed[-1] + 2
