"""The owner verifies the bot in their direct room, as Element's "Verify" does (in-room SAS).

The owner's side is tests/matrix/owner_verification.py, written from the spec: its emoji,
MAC checks and commitment checks share nothing with the bot's code."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.adapters.matrix_key_verification import START_AFTER_SECONDS, TIMEOUT_SECONDS
from tests.matrix.conftest import Bot, MatrixWorld
from tests.matrix.human import Human, Seen
from tests.matrix.owner_verification import OwnerIdentity, OwnerVerification, verifies


async def _owner_and_bot(world: MatrixWorld, *, encrypted: bool = True) -> tuple[Human, Bot, str]:
    # The bot measures a request's age from its server timestamp with its own clock.
    world.clock.set(datetime.now(UTC))
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=encrypted)
    await alice.wait_joined(room, bot.user_id)
    return alice, bot, room


async def _prompt(alice: Human, bot: Bot, room: str) -> Seen:
    return await alice.message_from(bot.user_id, room, match=lambda s: "Verifying me" in s.body)


def _index(person: Human, event_id: str) -> int:
    return next(i for i, seen in enumerate(person.seen) if seen.event_id == event_id)


async def _nothing_reached_the_core(world: MatrixWorld) -> None:
    assert world.model.requests == []
    assert await world.db.fetchall("SELECT * FROM messages") == []
    assert await world.db.fetchall("SELECT * FROM chat_inbox") == []


async def test_the_owner_verifies_the_bot_and_signs_its_identity(world: MatrixWorld) -> None:
    alice, bot, room = await _owner_and_bot(world)
    identity = OwnerIdentity()
    await identity.publish(alice)
    owner = OwnerVerification(alice, room, bot.user_id, identity)

    await owner.request()
    ready = await owner.ready()
    assert ready["methods"] == ["m.sas.v1"] and owner.bot_device == bot.adapter.device_id
    await owner.start()
    assert owner.mac_method == "hkdf-hmac-sha256.v2"  # the best both know, not the first offered

    # The bot shows the emoji and numbers the owner's client shows.
    prompt = await _prompt(alice, bot, room)
    assert prompt.decrypted
    assert " ".join(owner.emoji()) in prompt.body
    assert " ".join(str(n) for n in owner.decimals()) in prompt.body
    assert "match" in prompt.body and "no" in prompt.body

    # The owner pressed "They match" in Element first: its MAC goes, and the bot's waits for
    # the owner's word in the chat.
    await owner.send_mac()
    reply = await alice.reply(room, prompt.event_id, "they match")
    bot_keys = await owner.check_bot_mac()
    master = (await alice.keys_of(bot.user_id))["master_keys"][bot.user_id]
    (master_public,) = master["keys"].values()
    assert bot_keys == {f"ed25519:{bot.adapter.device_id}", f"ed25519:{master_public}"}
    mac_event = owner.bot_events("mac")[0].event_id
    assert _index(alice, reply) < _index(alice, mac_event)  # sent only after the owner said so
    await owner.done()
    told = await alice.message_from(bot.user_id, room, match=lambda s: "Verified" in s.body)
    assert "identity" in told.body

    # The step Element takes next: the owner signs the bot's master key with the user-signing key.
    await identity.sign_master_of(alice, bot.user_id)
    signed = (await alice.keys_of(bot.user_id))["master_keys"][bot.user_id]
    signature = signed["signatures"][alice.user_id][f"ed25519:{identity.user_signing_public}"]
    assert verifies(identity.user_signing_public, signed, signature)

    # The ✅ / ❌ under the prompt are gone, and none of it was a message for the assistant.
    timeline = await alice.raw_timeline(room)
    redacted = {e["redacts"] for e in timeline if e["type"] == "m.room.redaction" and e["sender"] == bot.user_id}
    assert len(redacted) == 2
    await _nothing_reached_the_core(world)


async def test_the_bot_starts_when_the_owners_client_waits(world: MatrixWorld) -> None:
    alice, bot, room = await _owner_and_bot(world, encrypted=False)
    owner = OwnerVerification(alice, room, bot.user_id)  # an owner without a cross-signing identity

    await owner.request()
    await owner.ready()
    await world.clock.advance(START_AFTER_SECONDS)
    # An older client: it knows only the deprecated MAC method (libolm's base64).
    await owner.accept_bots_start(mac_method="hkdf-hmac-sha256")

    prompt = await _prompt(alice, bot, room)
    assert " ".join(owner.emoji()) in prompt.body
    await alice.react(room, prompt.event_id, "✅")
    assert len(await owner.check_bot_mac()) == 2
    await owner.send_mac()  # the bot checks the device key alone: the owner has no master key
    await owner.done()
    await alice.message_from(bot.user_id, room, match=lambda s: "Verified" in s.body)
    await _nothing_reached_the_core(world)


async def test_a_mismatch_or_a_wrong_confirmation_cancels_and_the_rest_reaches_the_model(world: MatrixWorld) -> None:
    alice, bot, room = await _owner_and_bot(world)
    owner = OwnerVerification(alice, room, bot.user_id)
    await owner.request()
    await owner.ready()
    await owner.start()
    prompt = await _prompt(alice, bot, room)

    # A question while the bot waits is the assistant's; only an answer is the verification's.
    world.model.respond("Sunny.")
    await alice.say(room, "what's the weather like?")
    await alice.message_from(bot.user_id, room, match=lambda s: s.body == "Sunny.")
    await alice.say(room, "no")

    cancel = await owner.expect("cancel")
    assert cancel["code"] == "m.mismatched_sas"
    told = await alice.message_from(bot.user_id, room, after=_index(alice, prompt.event_id) + 1,
                                    match=lambda s: "do not match" in s.body)
    assert "do not trust this session" in told.body
    assert owner.bot_events("mac") == []
    asked = str(world.model.requests)
    assert len(world.model.requests) == 1 and "weather" in asked
    assert "Verifying me" not in asked and "m.key.verification" not in asked
    stored = [row["content"] for row in await world.db.fetchall("SELECT content FROM messages")]
    assert "no" not in stored and not any("Verifying me" in str(c) or owner.emoji()[0] in str(c) for c in stored)

    # The owner says they match, but the client's confirmation covers a key other than its
    # session's: the bot checks it before it is done, and cancels.
    again = OwnerVerification(alice, room, bot.user_id)
    await again.request()
    await again.ready()
    await again.start()
    await alice.message_from(bot.user_id, room, after=_index(alice, again.request_id),
                             match=lambda s: "Verifying me" in s.body)
    await alice.say(room, "coinciden")
    await again.check_bot_mac()
    await again.send_mac(key_of_another=True)
    assert (await again.expect("cancel"))["code"] == "m.key_mismatch"
    assert again.bot_events("done") == []
    await alice.message_from(bot.user_id, room, after=_index(alice, again.request_id),
                             match=lambda s: "did not match the keys" in s.body)


async def test_a_request_from_anyone_but_the_owner_in_a_direct_room_is_cancelled(world: MatrixWorld) -> None:
    world.clock.set(datetime.now(UTC))
    alice = await world.human("alice")
    mallory = await world.human("mallory")
    bot = await world.bot(allowed=[alice.client.user_id])
    group = await alice.create_room([bot.user_id, mallory.user_id], encrypted=True, direct=False)
    await mallory.join(group)
    await mallory.wait_joined(group, mallory.user_id)
    await alice.wait_joined(group, bot.user_id)
    await alice.wait_joined(group, mallory.user_id)

    stranger = OwnerVerification(mallory, group, bot.user_id)
    await stranger.request()
    assert (await stranger.expect("cancel"))["code"] == "m.user"
    # The owner too, outside their direct room.
    owner = OwnerVerification(alice, group, bot.user_id)
    await owner.request()
    assert (await owner.expect("cancel"))["code"] == "m.user"
    assert stranger.bot_events("ready") == [] and owner.bot_events("ready") == []
    assert not any(s.sender == bot.user_id and s.type == "m.room.message" for s in mallory.seen)
    await _nothing_reached_the_core(world)


async def test_out_of_order_steps_one_at_a_time_and_a_timeout_cancel(world: MatrixWorld) -> None:
    alice, bot, room = await _owner_and_bot(world)
    # A step out of order cancels; a step of a verification the bot does not know (one a
    # restart forgot) is answered so the owner's client stops waiting.
    hasty = OwnerVerification(alice, room, bot.user_id)
    await hasty.request()
    await hasty.ready()
    await hasty.send("mac", {"mac": {}, "keys": ""})
    assert (await hasty.expect("cancel"))["code"] == "m.unexpected_message"
    notice = await alice.message_from(bot.user_id, room, match=lambda s: "out of order" in s.body)
    forgotten = OwnerVerification(alice, room, bot.user_id, request_id=notice.event_id)
    await forgotten.send("key", {"key": forgotten.our_key})
    assert (await forgotten.expect("cancel"))["code"] == "m.unknown_transaction"

    first = OwnerVerification(alice, room, bot.user_id)
    await first.request()
    await first.ready()
    second = OwnerVerification(alice, room, bot.user_id)
    await second.request()
    assert (await second.expect("cancel"))["code"] == "m.unexpected_message"
    assert (await first.expect("cancel"))["code"] == "m.unexpected_message"
    await alice.message_from(bot.user_id, room, match=lambda s: "cancelled both" in s.body)

    third = OwnerVerification(alice, room, bot.user_id)
    await third.request()
    await third.ready()
    await third.start()
    await _prompt(alice, bot, room)
    await world.clock.advance(TIMEOUT_SECONDS)
    assert (await third.expect("cancel"))["code"] == "m.timeout"
    await alice.message_from(bot.user_id, room, match=lambda s: "longer than 10 minutes" in s.body)
    # A late answer is a message like any other once nothing waits for it.
    world.model.respond("Hola.")
    await alice.say(room, "match")
    await alice.message_from(bot.user_id, room, match=lambda s: s.body == "Hola.")
    assert third.bot_events("mac") == []
