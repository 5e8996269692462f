"""Conversations with the bot over a real Synapse: plain and end-to-end encrypted rooms."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.core.events import ChatKind, ChatRef, MessageKind, OutboundMessage, Platform
from tests.matrix.conftest import MatrixWorld
from tests.matrix.human import WAIT_SECONDS


async def test_conversation_in_an_unencrypted_room(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)

    world.model.respond("**Hola**, Alice. <script>alert(1)</script> [x](javascript:alert(1))")
    asked = await alice.say(room, "hola, ¿qué tal?")
    answer = await alice.message_from(bot.user_id, room)

    assert answer.content["msgtype"] == "m.text"
    assert answer.body.startswith("**Hola**, Alice.")
    assert answer.content["format"] == "org.matrix.custom.html"
    html = answer.content["formatted_body"]
    assert "<strong>Hola</strong>" in html
    assert "<script" not in html and "&lt;script&gt;" in html  # raw HTML stays text
    assert "href" not in html  # a javascript: link is not a link
    # The model saw the user's words; the bot showed it was typing and read the message.
    assert "hola, ¿qué tal?" in str(world.model.requests[-1]["messages"])
    await alice.wait_for(lambda: bot.user_id in alice.typing_users, "the bot typing")
    await alice.wait_for(lambda: bot.user_id in alice.receipts.get(asked, set()), "a read receipt")

    # Commands are events for the core too (no model call).
    calls = len(world.model.requests)
    mark = alice.mark
    await alice.say(room, "!help")
    help_text = await alice.message_from(bot.user_id, room, after=mark)
    assert "/reset" in help_text.body or "reset" in help_text.body
    assert len(world.model.requests) == calls


async def test_conversation_in_an_encrypted_room_never_leaks_plaintext(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)

    world.model.respond("Secret answer: the cake is in the oven.")
    await alice.say(room, "where is the cake? (encrypted)")
    answer = await alice.message_from(bot.user_id, room)
    assert answer.decrypted
    assert answer.body == "Secret answer: the cake is in the oven."
    assert "where is the cake? (encrypted)" in str(world.model.requests[-1]["messages"])

    # Alice logs in on a new phone; once the bot knows the device, its key is shared too.
    phone = await world.second_device(alice, "alice-phone")
    bot_client = bot.adapter._require_client()

    async def bot_knows_the_phone() -> None:
        while True:
            if any(d.id == phone.client.device_id
                   for d in bot_client.device_store.active_user_devices(alice.client.user_id)):
                return
            await asyncio.sleep(0.05)

    await asyncio.wait_for(bot_knows_the_phone(), WAIT_SECONDS)

    # A scheduled post (Assistant.deliver) takes the same encrypted path.
    mark = alice.mark
    phone_mark = phone.mark
    sent = await bot.assistant.deliver(f"matrix:{alice.client.user_id}",
                                       OutboundMessage("Good morning: briefing", MessageKind.SCHEDULED))
    assert sent is not None and sent.chat.chat_id == room
    briefing = await alice.message_from(bot.user_id, room, after=mark)
    assert briefing.decrypted and briefing.body == "Good morning: briefing"
    on_phone = await phone.message_from(bot.user_id, room, after=phone_mark)
    assert on_phone.decrypted and on_phone.body == "Good morning: briefing"

    # A message the bot cannot decrypt (Alice withholds the key from its device) is not ignored.
    bot_device = alice.client.device_store[bot.user_id][bot.adapter.device_id]
    alice.client.blacklist_device(bot_device)
    alice.client.olm.outbound_group_sessions.pop(room, None)  # type: ignore[union-attr]
    requests_before = len(world.model.requests)
    mark = alice.mark
    await alice.say(room, "you cannot read this")
    notice = await alice.message_from(bot.user_id, room, after=mark)
    assert notice.decrypted
    assert "could not decrypt" in notice.body
    assert len(world.model.requests) == requests_before

    # Nothing the bot put into the room was plaintext: every event of its own is encrypted.
    for raw in await alice.raw_timeline(room):
        if raw["sender"] == bot.user_id and "state_key" not in raw:
            assert raw["type"] in {"m.room.encrypted", "m.room.redaction"}, raw
    assert any(raw["sender"] == bot.user_id and raw["type"] == "m.room.encrypted"
               for raw in await alice.raw_timeline(room))


async def test_when_encryption_fails_nothing_is_sent_in_plaintext(
    world: MatrixWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("olm machine unavailable")

    client = bot.adapter._require_client()
    monkeypatch.setattr(client, "encrypt", broken)
    user_key = f"matrix:{alice.client.user_id}"
    # The room is the user's latest chat, so a scheduled post goes there.
    await bot.assistant.chats.seen(ChatRef(Platform.MATRIX, room, alice.client.user_id, ChatKind.PRIVATE),
                                   world.clock.now())
    sent = await bot.assistant.deliver(user_key, OutboundMessage("must not leak", MessageKind.SCHEDULED))
    assert sent is None
    timeline = await alice.raw_timeline(room)
    assert not [e for e in timeline if e["sender"] == bot.user_id and "state_key" not in e]
    assert "must not leak" not in str(timeline)


async def test_an_encrypted_voice_note_is_decrypted_and_transcribed(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id], llm={"transcription_model": "scripted-whisper"})
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)

    audio = b"OggS" + bytes(range(256)) * 40
    media = await alice.upload(audio, "audio/ogg", encrypt=True)
    world.model.transcript("what do my plants need?")
    world.model.respond("Plants love water.")
    mark = alice.mark
    content = {"msgtype": "m.audio", "body": "Voice message",
               "info": {"mimetype": "audio/ogg", "size": len(audio)}, **media}
    await alice.send(room, "m.room.message", content)
    answer = await alice.message_from(bot.user_id, room, after=mark,
                                      match=lambda s: s.body == "Plants love water.")
    assert answer.decrypted
    assert world.model.transcription_requests[-1]["bytes"] == len(audio)
    assert "what do my plants need?" in str(world.model.requests[-1]["messages"])
    # The adapter's download really decrypts: the bytes are the ones Alice recorded.
    assert await bot.adapter.download_media(content) == audio
    assert "url" not in content and "file" in content


async def test_an_edit_is_not_run_again_and_the_owner_is_told_it_was_not_read(world: MatrixWorld) -> None:
    from bot.adapters.base import EDIT_NOT_READ

    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)
    world.model.respond("Apuntado.")
    first = await alice.say(room, "apunta pan")
    await alice.message_from(bot.user_id, room)
    calls = len(world.model.requests)

    mark = alice.mark
    await alice.say(room, "* apunta pan y leche", **{
        "m.new_content": {"msgtype": "m.text", "body": "apunta pan y leche"},
        "m.relates_to": {"rel_type": "m.replace", "event_id": first},
    })
    notice = await alice.message_from(bot.user_id, room, after=mark)

    assert notice.body == EDIT_NOT_READ and notice.content["msgtype"] == "m.notice"
    assert len(world.model.requests) == calls  # the edit did not start a turn
