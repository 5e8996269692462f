"""Scheduled private posts go to the owner's direct room, never to a group room."""

from __future__ import annotations

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
