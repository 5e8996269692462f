"""Matrix locations (m.location and live beacons) update the user's location, never the model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

from memory.locations import LocationReading
from tests.matrix.conftest import Bot, MatrixWorld
from tests.matrix.human import WAIT_SECONDS


async def _location_becomes(bot: Bot, user_key: str, check: Callable[[LocationReading], bool]) -> LocationReading:
    async def poll() -> LocationReading:
        while True:
            reading = await bot.assistant.locations.read(user_key, bot.assistant.deps.clock.now(),
                                                         timedelta(hours=1))
            if reading is not None and check(reading):
                return reading
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(poll(), WAIT_SECONDS)


async def test_location_pin_and_beacon_session_update_location_without_a_model_call(
    world: MatrixWorld,
) -> None:
    alice = await world.human("alice")
    bot = await world.bot(allowed=[alice.client.user_id])
    room = await alice.create_room([bot.user_id], encrypted=True)
    await alice.wait_joined(room, bot.user_id)
    user_key = f"matrix:{alice.client.user_id}"
    now_ms = 1_772_438_400_000

    # A shared position: m.location with a geo URI (plus the extensible-event form).
    await alice.send(room, "m.room.message", {
        "msgtype": "m.location", "body": "Location", "geo_uri": "geo:40.4168,-3.7038;u=25",
        "org.matrix.msc3488.location": {"uri": "geo:40.4168,-3.7038;u=25", "description": "Sol"},
        "org.matrix.msc3488.asset": {"type": "m.self"}, "org.matrix.msc3488.ts": now_ms,
    })
    pin = await _location_becomes(bot, user_key, lambda r: r.location.latitude == 40.4168)
    assert (pin.location.longitude, pin.location.accuracy_m, pin.location.label) == (-3.7038, 25.0, "Sol")
    assert not pin.live

    # A live session under the unstable names: beacon_info state, then a beacon update.
    info_id = await alice.put_state(room, "org.matrix.msc3672.beacon_info", {
        "description": "Alice's live location", "live": True, "timeout": 3_600_000,
        "org.matrix.msc3488.ts": now_ms, "org.matrix.msc3488.asset": {"type": "m.self"},
    })
    await alice.send(room, "org.matrix.msc3672.beacon", {
        "m.relates_to": {"rel_type": "m.reference", "event_id": info_id},
        "org.matrix.msc3488.location": {"uri": "geo:41.3874,2.1686;u=10"},
        "org.matrix.msc3488.ts": now_ms + 1000,
    })
    live = await _location_becomes(bot, user_key, lambda r: r.location.latitude == 41.3874)
    assert live.live and live.location.source.value == "live" and live.location.accuracy_m == 10.0

    # The stable names work the same; ending the session keeps the last position, not live.
    stable_id = await alice.put_state(room, "m.beacon_info", {
        "description": "live", "live": True, "timeout": 3_600_000, "m.ts": now_ms,
        "m.asset": {"type": "m.self"},
    })
    await alice.send(room, "m.beacon", {
        "m.relates_to": {"rel_type": "m.reference", "event_id": stable_id},
        "m.location": {"uri": "geo:43.2630,-2.9350"}, "m.ts": now_ms + 2000,
    })
    await _location_becomes(bot, user_key, lambda r: r.location.latitude == 43.2630 and r.live)
    await alice.put_state(room, "m.beacon_info", {"description": "live", "live": False,
                                                  "timeout": 3_600_000, "m.ts": now_ms})
    ended = await _location_becomes(bot, user_key, lambda r: not r.live)
    assert ended.location.latitude == 43.2630

    # None of it woke the model; the room got one note for the pin and one for the first
    # live session, none for the updates, the second session or the end.
    def notes() -> list[str]:
        return [s.body for s in alice.seen if s.sender == bot.user_id and s.type == "m.room.message"]

    await alice.wait_for(lambda: len(notes()) >= 2, "the location notes")
    await asyncio.sleep(1)  # give a wrongly sent extra note time to arrive
    assert world.model.requests == []
    assert len(notes()) == 2
    assert notes()[0].startswith("📍 Got your location: Sol") and "Following your live location" in notes()[1]
