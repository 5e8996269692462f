"""A message written in a thread is answered in that thread; one in the main timeline, there."""

from __future__ import annotations

from tests.matrix.conftest import MatrixWorld


async def test_the_bot_answers_in_the_thread_a_message_came_from(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)

    world.model.respond("Hola.")
    root = await alice.say(room, "hola")
    first = await alice.message_from(bot.user_id, room)
    assert "m.relates_to" not in first.content  # the main timeline stays the main timeline

    # In a thread (as Element sends it): the answer goes into the same thread.
    world.model.respond("Sí, en el hilo.")
    mark = alice.mark
    asked = await alice.say(room, "¿me contestas aquí?", **{"m.relates_to": {
        "rel_type": "m.thread", "event_id": root, "is_falling_back": True,
        "m.in_reply_to": {"event_id": root}}})
    answer = await alice.message_from(bot.user_id, room, after=mark)
    relation = answer.content["m.relates_to"]
    assert relation["rel_type"] == "m.thread" and relation["event_id"] == root
    assert relation["m.in_reply_to"] == {"event_id": asked} and relation["is_falling_back"] is True
    assert answer.body == "Sí, en el hilo."

    # Back in the main timeline: the answer is too.
    world.model.respond("Y aquí fuera.")
    mark = alice.mark
    await alice.say(room, "¿y fuera?")
    outside = await alice.message_from(bot.user_id, room, after=mark)
    assert "m.relates_to" not in outside.content
