"""Who the bot talks to, and what survives a restart."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES
from bot.core.approvals import ApprovalOutcome, DecisionResult
from bot.errors import ConfigError
from tests.matrix.conftest import MatrixWorld
from tests.matrix.human import WAIT_SECONDS


async def test_an_invite_from_a_stranger_is_declined_and_nothing_is_stored(world: MatrixWorld) -> None:
    owner = await world.human("owner")
    eve = await world.human("eve")
    bot = await world.bot(allowed=[owner.client.user_id])

    room = await eve.create_room([bot.user_id], encrypted=False)
    await eve.wait_for(
        lambda: any(s.room_id == room and s.type == "m.room.member" and s.state_key == bot.user_id
                    and s.content.get("membership") == "leave" for s in eve.seen),
        "the bot declining the invite",
    )
    assert not any(s.room_id == room and s.state_key == bot.user_id
                   and s.content.get("membership") == "join" for s in eve.seen)
    assert await world.db.fetchall("SELECT * FROM chats") == []
    assert await world.db.fetchall("SELECT * FROM messages") == []

    # The owner's invite, by contrast, is accepted; what was said before the bot joined is
    # history, not a request.
    own_room = await owner.create_room([], encrypted=False)
    await owner.wait_for(lambda: own_room in owner.client.rooms, "the new room")
    await owner.say(own_room, "old history, not for the bot")
    await owner.client.room_invite(own_room, bot.user_id)
    await owner.wait_joined(own_room, bot.user_id)
    world.model.respond("hello owner")
    await owner.say(own_room, "now you are here")
    await owner.message_from(bot.user_id, own_room, match=lambda s: s.body == "hello owner")
    assert len(world.model.requests) == 1
    assert "old history" not in str(world.model.requests)


async def test_a_restart_keeps_the_device_and_keeps_decrypting(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    account = world.bot_account()
    bot = await world.bot(allowed=[alice.client.user_id], account=account)
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)

    world.model.respond("first answer")
    await alice.say(room, "before the restart")
    first = await alice.message_from(bot.user_id, room, match=lambda s: s.body == "first answer")
    assert first.decrypted
    # An approval is pending when the process goes away.
    world.model.call("delete_note", title="pending at restart")
    mark = alice.mark
    await alice.say(room, "delete the pending at restart note")
    approval = await alice.message_from(bot.user_id, room, after=mark,
                                        match=lambda s: "Approval needed" in s.body)
    await alice.wait_for(lambda: alice.reactions_on(approval.event_id, bot.user_id) >= {"✅", "❌"},
                         "the approval's reactions")

    async def turn_waits_for_the_answer() -> None:
        while True:
            # Progress reports sleep on the clock too; only the approval waits this long.
            if world.clock.sleeping_for_at_least(30):
                return
            await asyncio.sleep(0.02)

    await asyncio.wait_for(turn_waits_for_the_answer(), WAIT_SECONDS)
    device = bot.adapter.device_id
    await bot.adapter.stop_receiving()
    await bot.assistant.stop()
    await bot.adapter.stop()
    # The shutdown cancelled the waiting turn, and the message says so.
    cancelled = await alice.edit_of(approval.event_id)
    assert APPROVAL_OUTCOME_LABELS[ApprovalOutcome.CANCELLED] in cancelled.content["m.new_content"]["body"]

    # Said while the bot is down, encrypted with the session the old process received.
    mark = alice.mark
    await alice.say(room, "said while you were away")
    world.model.respond("second answer")
    again = await world.bot(allowed=[alice.client.user_id], account=account, store=bot.store)
    assert again.adapter.device_id == device
    second = await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body == "second answer")
    assert second.decrypted
    assert "said while you were away" in str(world.model.requests[-1]["messages"])

    # The turn that waited for it says it was not done (code's words: no model call at start-up).
    told = await alice.message_from(bot.user_id, room, match=lambda s: s.body.startswith("⚠️ I stopped"))
    assert "delete the pending at restart note" in told.body and "cancelled, not done" in told.body

    # The old approval is stale after the restart: answering it changes nothing.
    mark = alice.mark
    await alice.react(room, approval.event_id, "✅")
    stale = await alice.message_from(bot.user_id, room, after=mark)
    assert stale.body == DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]
    assert bot.notes.deleted == [] and again.notes.deleted == []

    world.model.respond("third answer")
    mark = alice.mark
    await alice.say(room, "after the restart")
    await alice.message_from(bot.user_id, room, after=mark, match=lambda s: s.body == "third answer")
    assert "after the restart" in str(world.model.requests[-1]["messages"])


async def test_login_with_an_access_token_and_a_clear_error_for_a_bad_one(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    user_id, password = world.bot_account()
    async with httpx.AsyncClient() as http:
        login = await http.post(f"{world.server.url}/_matrix/client/v3/login", json={
            "type": "m.login.password", "identifier": {"type": "m.id.user", "user": user_id},
            "password": password, "device_id": "TOKENDEVICE",
        })
    token = login.json()["access_token"]

    with pytest.raises(ConfigError, match="MATRIX_ACCESS_TOKEN"):
        await world.bot(allowed=[alice.client.user_id], account=(user_id, password),
                        access_token="not-a-real-token")

    bot = await world.bot(allowed=[alice.client.user_id], account=(user_id, password), access_token=token)
    assert bot.adapter.device_id == "TOKENDEVICE"
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)
    world.model.respond("token login works")
    await alice.say(room, "hello via token")
    answer = await alice.message_from(bot.user_id, room, match=lambda s: s.body == "token login works")
    assert answer.decrypted


async def test_the_first_message_of_a_dm_made_while_the_bot_was_down_is_answered(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    account = world.bot_account()
    bot = await world.bot(allowed=[alice.client.user_id], account=account)
    await bot.adapter.stop_receiving()
    await bot.assistant.stop()
    await bot.adapter.stop()

    # Element invites and sends the first message right away; nobody is listening.
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_for(lambda: room in alice.client.rooms, "the new room")
    await alice.say(room, "are you there? (sent while you were down)")

    world.model.respond("I am here now.")
    await world.bot(allowed=[alice.client.user_id], account=account, store=bot.store)
    answer = await alice.message_from(account[0], room, match=lambda s: s.body == "I am here now.")
    assert answer.body == "I am here now."
    assert "sent while you were down" in str(world.model.requests[-1]["messages"])
    assert len(world.model.requests) == 1
