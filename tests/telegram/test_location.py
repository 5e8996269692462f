"""Pins, venues and live locations update the current location and never wake the model."""

from __future__ import annotations

import functools
from datetime import timedelta

from memory.locations import LocationStore
from tests.telegram import updates
from tests.telegram.conftest import Harness
from tests.telegram.updates import OWNER_ID

USER_KEY = f"telegram:{OWNER_ID}"


async def _reading_is(tg: Harness, lat: float, live: bool | None = None) -> bool:
    reading = await LocationStore(tg.db).read(USER_KEY, tg.clock.now(), timedelta(hours=1))
    if reading is None or abs(reading.location.latitude - lat) > 1e-9:
        return False
    return live is None or reading.live == live


async def test_a_live_session_with_three_moves_and_a_stop(tg: Harness) -> None:
    started = tg.clock.now()
    message_id = tg.api.next_message_id()
    await tg.api.push(updates.live_start(OWNER_ID, message_id, started, 40.4168, -3.7038, 30.0))
    await tg.wait_until(lambda: _reading_is(tg, 40.4168, live=True))

    moves = [(40.4170, -3.7030, 12.0), (40.4180, -3.7020, 8.0), (40.4190, -3.7010, 5.0)]
    for lat, lon, accuracy in moves:
        await tg.clock.advance(60)
        await tg.api.push(updates.live_move(OWNER_ID, message_id, started, tg.clock.now(),
                                            lat, lon, accuracy))
        await tg.wait_until(functools.partial(_reading_is, tg, lat, live=True))
        reading = await LocationStore(tg.db).read(USER_KEY, tg.clock.now(), timedelta(hours=1))
        assert reading is not None
        assert reading.location.accuracy_m == accuracy
        assert reading.location.at == tg.clock.now()
        assert reading.location.source.value == "live"

    await tg.clock.advance(30)
    await tg.api.push(updates.live_move(OWNER_ID, message_id, started, tg.clock.now(),
                                        40.4190, -3.7010, 5.0, period=None))
    await tg.wait_until(lambda: _reading_is(tg, 40.4190, live=False))

    assert tg.model.requests == []  # location updates never start a model turn
    notes = [call.params["text"] for call in tg.api.calls_to("sendMessage")]
    assert len(notes) == 1 and notes[0].startswith("📍 Following your live location")  # not per move
    assert tg.api.calls_to("sendChatAction") == []
    assert await tg.db.fetchall("SELECT * FROM messages") == []

    await tg.say("/location")
    [_, status] = await tg.replies(2)
    assert "40.419" in status
    assert tg.model.requests == []


async def test_a_pin_and_a_venue(tg: Harness) -> None:
    await tg.push(lambda mid: updates.pin(OWNER_ID, mid, tg.clock.now(), 41.3874, 2.1686, 20.0))
    await tg.wait_until(lambda: _reading_is(tg, 41.3874, live=False))
    reading = await LocationStore(tg.db).read(USER_KEY, tg.clock.now(), timedelta(hours=1))
    assert reading is not None and reading.location.source.value == "pin"
    assert reading.location.accuracy_m == 20.0

    await tg.clock.advance(120)
    await tg.push(lambda mid: updates.venue(OWNER_ID, mid, tg.clock.now(), 41.4036, 2.1744,
                                            "Sagrada Família", "Carrer de Mallorca, 401"))
    await tg.wait_until(lambda: _reading_is(tg, 41.4036))
    reading = await LocationStore(tg.db).read(USER_KEY, tg.clock.now(), timedelta(hours=1))
    assert reading is not None
    assert reading.location.source.value == "venue"
    assert reading.location.label == "Sagrada Família, Carrer de Mallorca, 401"
    assert reading.location.at == tg.clock.now()
    assert tg.model.requests == []
