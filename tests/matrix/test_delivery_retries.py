"""A send retried by the outbox reaches the room once: Matrix transaction ids, on real Synapse."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.adapters.matrix_render import CHUNK_CHARS, split_text
from bot.core.events import ChatKind, ChatRef, OutboundMessage, Platform
from bot.core.outbox import FIRST_RETRY_SECONDS
from tests.matrix.conftest import MatrixWorld
from tests.matrix.human import WAIT_SECONDS


def _bodies(alice: Any, sender: str, room: str, text: str) -> list[str]:
    return [s.body for s in alice.seen if s.sender == sender and s.room_id == room
            and s.type == "m.room.message" and text in s.body]


async def test_the_same_delivery_sent_twice_shows_once(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)
    chat = ChatRef(Platform.MATRIX, room, alice.client.user_id, ChatKind.PRIVATE)
    world.model.respond("Hola.")  # a first exchange: the bot has the room's state and keys
    await alice.say(room, "hola")
    await alice.message_from(bot.user_id, room, match=lambda s: s.body == "Hola.")

    once = OutboundMessage("Delivered once, whatever happens.", delivery_id="mayordomo-7-1700000000000")
    first = await bot.adapter.send(chat, once)
    again = await bot.adapter.send(chat, once)  # a retry: same delivery, encrypted afresh
    assert first is not None and again is not None
    assert again.message_id == first.message_id  # the homeserver answered with the first event
    other = await bot.adapter.send(chat, OutboundMessage("Delivered once, whatever happens.",
                                                         delivery_id="mayordomo-8-1700000000001"))
    assert other is not None and other.message_id != first.message_id  # another delivery is another event
    await alice.message_from(bot.user_id, room, match=lambda s: s.event_id == other.message_id)

    # A long answer goes in parts; a retry after a later part failed does not repeat the first.
    part = "Long answer, part text. " * (CHUNK_CHARS // 48)
    long = OutboundMessage(f"{part}\n\n{part}\n\n{part}", delivery_id="mayordomo-9-1700000000002")
    parts = await bot.adapter.send(chat, long)
    retried = await bot.adapter.send(chat, long)
    assert parts is not None and retried is not None and retried.message_id == parts.message_id
    await alice.message_from(bot.user_id, room, match=lambda s: s.event_id == parts.message_id)
    await asyncio.sleep(1.0)  # time for a duplicate, if there were one, to arrive
    assert len(_bodies(alice, bot.user_id, room, "Delivered once")) == 2
    sent_parts = len(split_text(long.text))
    assert sent_parts > 1
    assert len(_bodies(alice, bot.user_id, room, "Long answer, part text.")) == sent_parts  # each once


async def test_a_send_whose_answer_was_lost_is_retried_by_the_outbox_and_shows_once(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)
    client = bot.adapter._require_client()
    real_send = client._send
    lost: list[str] = []

    async def answer_lost(response_class: Any, method: str, path: str, *args: Any, **kw: Any) -> Any:
        response = await real_send(response_class, method, path, *args, **kw)
        if "/send/m.room.message/" in path and not lost:
            lost.append(path)  # Synapse stored the event; its answer never reaches us
            raise TimeoutError("the homeserver's answer timed out")
        return response

    client._send = answer_lost  # type: ignore[method-assign]
    world.model.respond("Buenos días, Alice: hoy hace sol.")
    await alice.say(room, "hola")
    shown = await alice.message_from(bot.user_id, room, match=lambda s: s.body.startswith("Buenos días"))
    assert lost  # the first attempt's answer was lost
    assert await bot.assistant.outbox.pending() == 1  # so the outbox does not know it arrived

    for _ in range(int(WAIT_SECONDS / 0.05)):
        if await bot.assistant.outbox.pending() == 0:
            break
        await world.clock.advance(FIRST_RETRY_SECONDS)
        bot.assistant.outbox.wake()
        await asyncio.sleep(0.05)
    assert await bot.assistant.outbox.pending() == 0
    row = await world.db.fetchone("SELECT status, attempts, message_id FROM outbox ORDER BY id DESC LIMIT 1")
    assert row["status"] == "delivered" and row["attempts"] == 2
    assert row["message_id"] == shown.event_id  # the retry got the first event back
    await asyncio.sleep(1.0)
    assert len(_bodies(alice, bot.user_id, room, "Buenos días")) == 1
