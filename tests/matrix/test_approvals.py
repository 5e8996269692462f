"""Approvals over Matrix: the message states the real action, reactions or replies decide."""

from __future__ import annotations

import asyncio
import json

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES
from bot.core.approvals import ApprovalOutcome, DecisionResult
from tests.matrix.conftest import MatrixWorld
from tests.matrix.human import WAIT_SECONDS, Human, Seen


async def _approval_message(human: Human, bot_id: str, room: str, after: int) -> Seen:
    message = await human.message_from(bot_id, room, after=after,
                                       match=lambda s: "Approval needed" in s.body)
    await human.wait_for(lambda: human.reactions_on(message.event_id, bot_id) >= {"✅", "❌"},
                         "the bot's ✅ and ❌ on the approval")
    return message


async def test_approval_by_reaction_in_a_group_only_the_owner_decides(world: MatrixWorld) -> None:
    alice = await world.human("alice")  # the owner of the request
    bob = await world.human("bob")  # allowlisted, but not the one who asked
    eve = await world.human("eve")  # a stranger in the same room
    bot = await world.bot(allowed=[alice.client.user_id, bob.client.user_id])
    room = await alice.create_room([bot.user_id, bob.client.user_id, eve.client.user_id],
                                   encrypted=False, direct=False)
    await bob.join(room)
    await eve.join(room)
    await alice.wait_joined(room, bot.user_id)
    await alice.wait_joined(room, eve.client.user_id)
    bot_name = bot.user_id.split(":")[0].lstrip("@")

    # In a group the bot only answers when addressed; a stranger gets one refusal at most.
    await alice.say(room, "just chatting with friends, nothing for the assistant")
    mark = alice.mark
    await eve.say(room, f"{bot_name}: do something for me")
    refusal = await alice.message_from(bot.user_id, room, after=mark)
    assert refusal.content["msgtype"] == "m.notice"
    await eve.say(room, f"{bot_name}: please?")

    world.model.call("delete_note", title="groceries")
    world.model.respond("Deleted the note groceries.")
    mark = alice.mark
    await alice.say(room, f"{bot_name}: delete my groceries note")
    approval = await _approval_message(alice, bot.user_id, room, mark)
    assert "Delete the note “groceries” for good" in approval.body

    # Reactions from a stranger and from another allowed user change nothing.
    await eve.react(room, approval.event_id, "✅")
    mark = alice.mark
    await bob.react(room, approval.event_id, "✅")
    notice = await alice.message_from(bot.user_id, room, after=mark)
    assert notice.body == DECISION_NOTICES[DecisionResult.NOT_OWNER]
    assert bot.notes.deleted == []

    mark = alice.mark
    await alice.react(room, approval.event_id, "✅️")  # with the emoji variation selector
    edit = await alice.edit_of(approval.event_id)
    assert APPROVAL_OUTCOME_LABELS[ApprovalOutcome.APPROVED] in edit.content["m.new_content"]["body"]
    assert "groceries" in edit.content["m.new_content"]["body"]
    answer = await alice.message_from(bot.user_id, room, after=mark,
                                      match=lambda s: s.body.startswith("Deleted the note groceries."))
    assert answer.content["msgtype"] == "m.text"
    # Under the answer, code's receipt: plain in the body, quoted in the HTML.
    assert answer.body == "Deleted the note groceries.\n\n✅ Delete groceries (delete_note): done"
    assert answer.content["formatted_body"].endswith(
        "<blockquote>✅ Delete groceries (delete_note): done</blockquote>")
    assert bot.notes.deleted == ["groceries"]

    # A late second reaction from the owner is a duplicate: nothing runs again.
    mark = alice.mark
    await alice.react(room, approval.event_id, "❌")
    late = await alice.message_from(bot.user_id, room, after=mark)
    assert late.body == DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]
    assert bot.notes.deleted == ["groceries"]

    # The controls are gone (the bot's reactions redacted), the stranger was refused once,
    # and the unaddressed chatter never reached the model.
    raw = await alice.raw_timeline(room)
    assert sum(1 for e in raw if e["sender"] == bot.user_id and e["type"] == "m.room.redaction") == 3  # ✅ ♾️ ❌
    refusals = [s for s in alice.seen if s.sender == bot.user_id and s.body.startswith("Sorry")]
    assert len(refusals) == 1
    prompts = str(world.model.requests)
    assert "just chatting" not in prompts and "do something for me" not in prompts
    stored = await world.db.fetchall("SELECT user_key, content FROM messages")
    assert stored and not [row for row in stored if eve.client.user_id in row["user_key"]]
    assert "just chatting" not in str([row["content"] for row in stored])


async def test_approval_by_reply_in_an_encrypted_room(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)

    world.model.call("delete_note", title="taxes 2025")
    world.model.respond("You said no, so the note was not touched.")
    mark = alice.mark
    await alice.say(room, "delete the taxes 2025 note")
    approval = await _approval_message(alice, bot.user_id, room, mark)
    assert approval.decrypted
    assert "Delete the note “taxes 2025” for good" in approval.body
    # One notification: the prompt is the bot's only encrypted event; its reactions go in the
    # clear, as Element sends them, and default push rules do not notify for m.reaction.
    raw_events = [e for e in await alice.raw_timeline(room)
                  if e["sender"] == bot.user_id and "state_key" not in e]
    print("\n--- Matrix approval, as the homeserver stores it ---\n" + "\n".join(
        f"{e['type']} {json.dumps(e['content'].get('m.relates_to') or {}, ensure_ascii=False)}"
        for e in raw_events))
    after_prompt = raw_events[[e["event_id"] for e in raw_events].index(approval.event_id):]
    assert [e["type"] for e in after_prompt] == ["m.room.encrypted", "m.reaction", "m.reaction", "m.reaction"]
    assert [e["content"]["m.relates_to"]["key"] for e in after_prompt[1:]] == ["✅", "♾️", "❌"]

    mark = alice.mark
    await alice.reply(room, approval.event_id, f"> <{bot.user_id}> Approval needed\n\nNo.")
    edit = await alice.edit_of(approval.event_id)
    assert edit.decrypted
    assert APPROVAL_OUTCOME_LABELS[ApprovalOutcome.DENIED] in edit.content["m.new_content"]["body"]
    answer = await alice.message_from(
        bot.user_id, room, after=mark, match=lambda s: s.body.startswith("You said no, so the note was not touched."))
    # The receipt says it was not done (a summary line may follow it).
    assert "\n\n🚫 Delete taxes 2025 (delete_note): denied, not done" in answer.body
    assert bot.notes.deleted == []
    # The reply decided; it did not start a turn of its own.
    assert "No." not in str(world.model.requests)

    for raw in await alice.raw_timeline(room):
        if raw["sender"] == bot.user_id and "state_key" not in raw:
            # Reactions go in the clear, as Element sends them (one notification per approval).
            assert raw["type"] in {"m.room.encrypted", "m.room.redaction", "m.reaction"}, raw


async def test_approval_expires_and_the_message_says_so(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=False)
    await alice.wait_joined(room, bot.user_id)

    world.model.call("delete_note", title="old ideas")
    world.model.respond("The request expired with no answer, so the note was not touched.")
    mark = alice.mark
    await alice.say(room, "delete the old ideas note")
    approval = await _approval_message(alice, bot.user_id, room, mark)
    assert "Expires at" in approval.body

    async def waiting_on_the_clock() -> None:
        while True:  # the turn is waiting for the answer on the manual clock
            # Progress reports sleep on the clock too; only the approval waits this long.
            if world.clock.sleeping_for_at_least(30):
                return
            await asyncio.sleep(0.02)

    await asyncio.wait_for(waiting_on_the_clock(), WAIT_SECONDS)
    await world.clock.advance(61)
    edit = await alice.edit_of(approval.event_id)
    assert APPROVAL_OUTCOME_LABELS[ApprovalOutcome.EXPIRED] in edit.content["m.new_content"]["body"]
    await alice.message_from(bot.user_id, room, after=mark, match=lambda s: "expired" in s.body)

    # Reacting after expiry changes nothing.
    mark = alice.mark
    await alice.react(room, approval.event_id, "✅")
    late = await alice.message_from(bot.user_id, room, after=mark)
    assert late.body in {DECISION_NOTICES[DecisionResult.EXPIRED], DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]}
    assert bot.notes.deleted == []


async def test_the_room_is_answered_while_an_approval_waits_and_a_reply_finishes_the_turn(
        world: MatrixWorld) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)

    world.model.call("delete_note", title="groceries")
    world.model.respond("Your notes are groceries and ideas.")  # answered while the delete waits
    world.model.respond("Deleted the note groceries.")  # the parked turn, after the yes
    mark = alice.mark
    await alice.say(room, "delete my groceries note")
    approval = await _approval_message(alice, bot.user_id, room, mark)

    mark = alice.mark
    await alice.say(room, "which notes do I have?")
    meanwhile = await alice.message_from(bot.user_id, room, after=mark,
                                         match=lambda s: s.body.startswith("Your notes"))
    assert meanwhile.decrypted and bot.notes.deleted == []
    told = "\n".join(str(m.get("content")) for m in world.model.requests[1]["messages"])
    assert "Waiting for the user's approval" in told and "groceries" in told

    mark = alice.mark
    await alice.reply(room, approval.event_id, "yes")
    answer = await alice.message_from(bot.user_id, room, after=mark,
                                      match=lambda s: s.body.startswith("Deleted the note groceries."))
    assert answer.body == "Deleted the note groceries.\n\n✅ Delete groceries (delete_note): done"
    edit = await alice.edit_of(approval.event_id)
    assert APPROVAL_OUTCOME_LABELS[ApprovalOutcome.APPROVED] in edit.content["m.new_content"]["body"]
    assert bot.notes.deleted == ["groceries"]
    # The parked turn went on from its own call: the message said meanwhile is not in it.
    resumed = world.model.requests[2]["messages"]
    assert resumed[-1]["role"] == "tool" and "which notes do I have?" not in str(resumed)
