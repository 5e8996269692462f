from __future__ import annotations

import asyncio
from datetime import timedelta

from bot.clock import ManualClock
from bot.core.approvals import ApprovalBroker, ApprovalOutcome, DecisionResult
from bot.core.events import ApprovalDecision
from memory.db import Database
from tests.support import OWNER, STRANGER


async def _open(broker: ApprovalBroker) -> object:
    return await broker.open(OWNER, "delete_event", '{"uid": "e1"}', "Delete 'Dentist' on Tue 3 Mar", None)


async def test_approved_only_by_explicit_yes(db: Database, clock: ManualClock) -> None:
    broker = ApprovalBroker(db, clock, timedelta(minutes=5))
    request = await _open(broker)
    waiter = asyncio.create_task(broker.wait(request))
    await asyncio.sleep(0)
    assert await broker.decide(ApprovalDecision(OWNER, request.id, True)) is DecisionResult.ACCEPTED
    assert await waiter is ApprovalOutcome.APPROVED


async def test_denied(db: Database, clock: ManualClock) -> None:
    broker = ApprovalBroker(db, clock, timedelta(minutes=5))
    request = await _open(broker)
    waiter = asyncio.create_task(broker.wait(request))
    await asyncio.sleep(0)
    await broker.decide(ApprovalDecision(OWNER, request.id, False))
    assert await waiter is ApprovalOutcome.DENIED


async def test_silence_expires_to_not_done(db: Database, clock: ManualClock) -> None:
    broker = ApprovalBroker(db, clock, timedelta(minutes=5))
    request = await _open(broker)
    waiter = asyncio.create_task(broker.wait(request))
    await clock.advance(299)
    assert not waiter.done()
    await clock.advance(2)
    assert await waiter is ApprovalOutcome.EXPIRED
    # a late press changes nothing
    assert await broker.decide(ApprovalDecision(OWNER, request.id, True)) is DecisionResult.EXPIRED
    assert await broker.status(request.id) is ApprovalOutcome.EXPIRED


async def test_second_decision_and_non_owner_and_unknown_are_ignored(db: Database, clock: ManualClock) -> None:
    broker = ApprovalBroker(db, clock, timedelta(minutes=5))
    request = await _open(broker)
    waiter = asyncio.create_task(broker.wait(request))
    await asyncio.sleep(0)
    assert await broker.decide(ApprovalDecision(STRANGER, request.id, True)) is DecisionResult.NOT_OWNER
    assert await broker.status(request.id) is ApprovalOutcome.PENDING
    assert await broker.decide(ApprovalDecision(OWNER, "forged-id", True)) is DecisionResult.UNKNOWN
    assert await broker.decide(ApprovalDecision(OWNER, request.id, False)) is DecisionResult.ACCEPTED
    assert await broker.decide(ApprovalDecision(OWNER, request.id, True)) is DecisionResult.ALREADY_DECIDED
    assert await waiter is ApprovalOutcome.DENIED


async def test_restart_resolves_pending_as_cancelled(db: Database, clock: ManualClock) -> None:
    before = ApprovalBroker(db, clock, timedelta(minutes=5))
    request = await _open(before)
    after_restart = ApprovalBroker(db, clock, timedelta(minutes=5))
    stale = await after_restart.cancel_stale()
    assert [r.id for r in stale] == [request.id]
    assert stale[0].description == "Delete 'Dentist' on Tue 3 Mar"
    assert await after_restart.status(request.id) is ApprovalOutcome.CANCELLED
    assert await after_restart.decide(ApprovalDecision(OWNER, request.id, True)) is DecisionResult.ALREADY_DECIDED


async def test_cancelled_wait_records_cancelled(db: Database, clock: ManualClock) -> None:
    broker = ApprovalBroker(db, clock, timedelta(minutes=5))
    request = await _open(broker)
    waiter = asyncio.create_task(broker.wait(request))
    await asyncio.sleep(0)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    assert await broker.status(request.id) is ApprovalOutcome.CANCELLED


async def test_ids_are_unguessable(db: Database, clock: ManualClock) -> None:
    broker = ApprovalBroker(db, clock, timedelta(minutes=5))
    ids = {(await _open(broker)).id for _ in range(20)}
    assert len(ids) == 20
    assert all(len(i) >= 22 for i in ids)  # 128 random bits, URL-safe


async def test_start_up_expires_what_ran_out_while_down_and_cancels_the_rest(db: Database,
                                                                            clock: ManualClock) -> None:
    before = ApprovalBroker(db, clock, timedelta(minutes=5))
    old = await _open(before)
    await clock.advance(240)
    recent = await _open(before)
    await clock.advance(120)  # the first ran out while nobody watched; the second did not
    after_restart = ApprovalBroker(db, clock, timedelta(minutes=5))
    assert [r.id for r in await after_restart.expire_overdue()] == [old.id]
    assert [r.id for r in await after_restart.cancel_stale()] == [recent.id]
    assert await after_restart.status(old.id) is ApprovalOutcome.EXPIRED
    assert await after_restart.status(recent.id) is ApprovalOutcome.CANCELLED
    assert await after_restart.decide(ApprovalDecision(OWNER, old.id, True)) is DecisionResult.EXPIRED
