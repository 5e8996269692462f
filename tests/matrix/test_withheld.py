"""A message whose key the sender's client withheld gets its notice at once, with advice that helps."""

from __future__ import annotations

from nio import ToDeviceMessage, ToDeviceResponse

from tests.matrix.conftest import MatrixWorld


async def test_a_withheld_key_is_explained_at_once(world: MatrixWorld) -> None:
    alice = await world.human("alice")
    # Waiting out syncs would take far longer than the test allows: only the withheld
    # notice from Alice's client can produce the answer in time.
    bot = await world.bot(allowed=[alice.client.user_id], undecryptable_grace_syncs=20,
                          sync_timeout_seconds=5)
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)
    world.model.respond("Hola.")
    await alice.say(room, "hola")
    await alice.message_from(bot.user_id, room)  # keys are set up both ways

    # Alice's client stops trusting the bot's session, starts a new key and withholds it,
    # telling the bot why (as Element does for "only verified sessions").
    bot_device = alice.client.device_store[bot.user_id][bot.adapter.device_id]
    alice.client.blacklist_device(bot_device)
    alice.client.olm.outbound_group_sessions.pop(room, None)  # type: ignore[union-attr]
    requests_before = len(world.model.requests)
    mark = alice.mark
    await alice.say(room, "you cannot read this")
    session = alice.client.olm.outbound_group_sessions[room]  # type: ignore[union-attr]
    withheld = ToDeviceMessage("m.room_key.withheld", bot.user_id, bot.adapter.device_id, {
        "algorithm": "m.megolm.v1.aes-sha2", "room_id": room, "session_id": session.id,
        "sender_key": alice.client.olm.account.identity_keys["curve25519"],  # type: ignore[union-attr]
        "code": "m.unverified", "reason": "The sender disabled sending to unverified devices.",
    })
    assert isinstance(await alice.client.to_device(withheld), ToDeviceResponse)

    notice = await alice.message_from(bot.user_id, room, after=mark)
    assert notice.decrypted
    assert "withheld" in notice.body and "unverified sessions" in notice.body
    assert "verify this session" not in notice.body.lower()  # the bot cannot complete a verification
    assert bot.adapter.device_id in notice.body and "again will not help" in notice.body
    assert len(world.model.requests) == requests_before  # nothing reached the model
