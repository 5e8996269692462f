"""The user's one current location: written by adapters' location events, read by tools."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.core.events import Location, LocationSource
from memory.db import Database


@dataclass(frozen=True)
class LocationReading:
    location: Location
    age: timedelta
    stale: bool
    live: bool


class LocationStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def update(self, user_key: str, location: Location, *, live: bool = False) -> None:
        await self._db.execute(
            "INSERT INTO locations(user_key, latitude, longitude, accuracy_m, source, label, at, live)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(user_key) DO UPDATE SET latitude=excluded.latitude,"
            " longitude=excluded.longitude, accuracy_m=excluded.accuracy_m,"
            " source=excluded.source, label=excluded.label, at=excluded.at, live=excluded.live",
            (
                user_key,
                location.latitude,
                location.longitude,
                location.accuracy_m,
                location.source.value,
                location.label,
                location.at.isoformat(),
                int(live),
            ),
        )

    async def end_live(self, user_key: str) -> None:
        """A live session stopped: the last position stays, it just stops being live."""
        await self._db.execute("UPDATE locations SET live = 0 WHERE user_key = ?", (user_key,))

    async def read(self, user_key: str, now: datetime, max_age: timedelta) -> LocationReading | None:
        row = await self._db.fetchone("SELECT * FROM locations WHERE user_key = ?", (user_key,))
        if row is None:
            return None
        location = Location(
            latitude=row["latitude"],
            longitude=row["longitude"],
            at=datetime.fromisoformat(row["at"]),
            source=LocationSource(row["source"]),
            accuracy_m=row["accuracy_m"],
            label=row["label"],
        )
        age = max(now - location.at, timedelta(0))
        return LocationReading(location=location, age=age, stale=age > max_age, live=bool(row["live"]))
