"""Time as a dependency: the system clock in production, a manual one in tests."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class ManualClock:
    """A clock that only moves when told to; sleepers wake when `advance` passes them."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
        self._sleepers: list[tuple[datetime, int, asyncio.Future[None]]] = []
        self._counter = itertools.count()

    def now(self) -> datetime:
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        wake_at = self._now + timedelta(seconds=seconds)
        heapq.heappush(self._sleepers, (wake_at, next(self._counter), future))
        await future

    def set(self, when: datetime) -> None:
        self._now = when
        self._wake()

    async def advance(self, seconds: float) -> None:
        """Move time forward and let woken tasks run."""
        self._now += timedelta(seconds=seconds)
        self._wake()
        for _ in range(5):
            await asyncio.sleep(0)

    def _wake(self) -> None:
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)

    @property
    def sleepers(self) -> int:
        return sum(1 for _, _, f in self._sleepers if not f.done())

    def sleeping_for_at_least(self, seconds: float) -> int:
        """Sleepers due `seconds` or more from now: tells a long wait (an approval) from short timers."""
        horizon = self._now + timedelta(seconds=seconds)
        return sum(1 for wake_at, _, f in self._sleepers if not f.done() and wake_at >= horizon)
