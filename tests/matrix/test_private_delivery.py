"""Scheduled private posts go to the owner's direct room, never to a group room."""

from __future__ import annotations

import asyncio

from bot.core.events import MessageKind, OutboundMessage
from tests.matrix.conftest import MatrixWorld

DIARY = OutboundMessage("Diary: today I saw the doctor about my back.", MessageKind.SCHEDULED)


async def test_diary_is_not_posted_into_the_group_room_the_owner_wrote_in_last(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bob = await world.human("bob")
    bot = await world.bot(allowed=[alice.client.user_id])
    direct = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(direct, bot.user_id)
    group = await alice.create_room([bot.user_id, bob.client.user_id], encrypted=False, direct=False)
    await bob.join(group)
    await alice.wait_joined(group, bot.user_id)
    await alice.wait_joined(group, bob.client.user_id)
    bot_name = bot.user_id.split(":")[0].lstrip("@")

    await alice.say(direct, "!help")
    await alice.message_from(bot.user_id, direct)
    await world.clock.advance(60)
    mark = alice.mark
    await alice.say(group, f"{bot_name}: !help")
    await alice.message_from(bot.user_id, group, after=mark)

    mark = alice.mark
    sent = await bot.assistant.deliver(f"matrix:{alice.client.user_id}", DIARY)

    assert sent is not None and sent.chat.chat_id == direct
    posted = await alice.message_from(bot.user_id, direct, after=mark)
    assert posted.body == DIARY.text
    assert DIARY.text not in str(await bob.raw_timeline(group))


async def test_diary_is_not_posted_into_a_direct_room_someone_has_since_joined(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bob = await world.human("bob")
    bot = await world.bot(allowed=[alice.client.user_id])
    direct = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(direct, bot.user_id)
    await alice.say(direct, "!help")
    await alice.message_from(bot.user_id, direct)  # seen as the owner's private chat

    await alice.client.room_invite(direct, bob.client.user_id)
    await bob.join(direct)
    await alice.wait_joined(direct, bob.client.user_id)
    client = bot.adapter._require_client()
    for _ in range(200):  # until the bot's own sync has seen bob join
        room = client.rooms.get(direct)
        if room is not None and room.member_count > 2:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the bot never saw bob join")

    sent = await bot.assistant.deliver(f"matrix:{alice.client.user_id}", DIARY)

    assert sent is None
    assert DIARY.text not in str(await bob.raw_timeline(direct))
    failed = await bot.assistant.deps.db.fetchone(
        "SELECT status, last_error FROM outbox WHERE kind = 'scheduled' ORDER BY id DESC LIMIT 1")
    assert failed is not None and failed["status"] == "failed" and "no longer a direct room" in failed["last_error"]
