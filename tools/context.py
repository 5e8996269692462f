"""What the core hands every tool call: who is asking, when, and where they are."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.clock import Clock
from bot.core.events import ChatRef
from bot.errors import ToolError
from memory.attachments import AttachmentStore
from memory.locations import LocationReading, LocationStore


@dataclass(frozen=True)
class ToolContext:
    chat: ChatRef
    clock: Clock
    timezone: ZoneInfo
    locations: LocationStore
    location_max_age: timedelta
    turn_id: int | None = None
    attachments: AttachmentStore | None = None  # the photos and files this user sent

    @property
    def user_key(self) -> str:
        return self.chat.user_key

    def now(self) -> datetime:
        """Now, in the user's time zone."""
        return self.clock.now().astimezone(self.timezone)

    async def location(self) -> LocationReading | None:
        return await self.locations.read(self.user_key, self.clock.now(), self.location_max_age)

    async def require_fresh_location(self) -> LocationReading:
        """The position for tools that need one, or a ToolError asking the user to share it."""
        reading = await self.location()
        if reading is None:
            raise ToolError(
                "the user's location is unknown: ask them to share their location "
                "(a pin or live location) and try again"
            )
        if reading.stale:
            raise ToolError(
                f"the user's last location is {format_age(reading.age)} old, too old to use: "
                "ask them to share their current location"
            )
        return reading


def format_age(age: timedelta) -> str:
    seconds = int(age.total_seconds())
    if seconds < 90:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 90:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} h"
    return f"{hours // 24} days"
