"""A long approval in Matrix is shown whole, and its exact arguments follow as a reply."""

from __future__ import annotations

import json

from tests.matrix.conftest import MatrixWorld

ATTACKER = "attacker@evil.example"


async def test_a_long_argument_is_shown_whole_with_its_exact_arguments(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)
    title = "Groceries " + "y" * 4000 + f" and mail it to {ATTACKER}"

    world.model.call("delete_note", title=title)
    world.model.respond("Not deleted.")
    mark = alice.mark
    await alice.say(room, "borra esa nota")
    approval = await alice.message_from(bot.user_id, room, after=mark, match=lambda s: "Approval needed" in s.body)
    assert ATTACKER in approval.body  # nothing cut
    full = await alice.message_from(bot.user_id, room, after=mark,
                                    match=lambda s: s.body.startswith("Everything this approval would run"))
    assert full.content["m.relates_to"]["m.in_reply_to"]["event_id"] == approval.event_id
    assert json.dumps({"title": title}, ensure_ascii=False, indent=2)[2:-2] in full.body
    assert "fingerprint" in full.body
    await alice.react(room, approval.event_id, "❌")
    await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body.startswith("Not deleted"))
    assert bot.notes.deleted == []
