"""Dates and times the model writes (local to the user) into aware values, and back.

The model speaks the user's wall-clock time: "2026-03-02T18:00" means 18:00 where the
user is. An explicit offset is honoured and converted; a bare date means all day.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.errors import ToolError

WHEN_HELP = "'YYYY-MM-DDTHH:MM' (the user's local time) or 'YYYY-MM-DD' (all day)"
DATETIME_HELP = "'YYYY-MM-DDTHH:MM' in the user's local time"


def parse_when(text: str, zone: ZoneInfo) -> datetime | date:
    """A local date-time (aware, in `zone`) or, for a bare date, that date."""
    value = text.strip()
    if not value:
        raise ToolError(f"a date or time is missing: expected {WHEN_HELP}")
    if len(value) == 10:
        try:
            return date.fromisoformat(value)
        except ValueError:
            raise ToolError(f"{text!r} is not a date: expected {WHEN_HELP}") from None
    try:
        parsed = datetime.fromisoformat(value.replace(" ", "T", 1))
    except ValueError:
        raise ToolError(f"{text!r} is not a date-time: expected {WHEN_HELP}") from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=zone)
    return parsed.astimezone(zone)


def parse_datetime(text: str, zone: ZoneInfo) -> datetime:
    """Like parse_when, but a time of day is required."""
    parsed = parse_when(text, zone)
    if not isinstance(parsed, datetime):
        raise ToolError(f"{text!r} has no time of day: expected {DATETIME_HELP}")
    return parsed


def day_bounds(day: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """Local midnight to the next local midnight (23 or 25 hours on DST days)."""
    start = datetime(day.year, day.month, day.day, tzinfo=zone)
    following = day + timedelta(days=1)
    return start, datetime(following.year, following.month, following.day, tzinfo=zone)


def as_local(value: datetime | date, zone: ZoneInfo) -> datetime | date:
    """Aware datetimes converted to `zone`; floating ones read in it; dates unchanged."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=zone)
        return value.astimezone(zone)
    return value


def format_when(value: datetime | date, zone: ZoneInfo) -> str:
    """'Mon 2026-03-02 10:00' for times, 'Mon 2026-03-02' for dates."""
    local = as_local(value, zone)
    if isinstance(local, datetime):
        return local.strftime("%a %Y-%m-%d %H:%M")
    return local.strftime("%a %Y-%m-%d")


def format_span(start: datetime | date, end: datetime | date, zone: ZoneInfo) -> str:
    """A readable range; all-day ends are exclusive in iCalendar and shown inclusive."""
    first = as_local(start, zone)
    last = as_local(end, zone)
    if not isinstance(first, datetime):
        shown_last = last - timedelta(days=1) if not isinstance(last, datetime) else last
        if shown_last <= first:
            return f"{format_when(first, zone)} (all day)"
        return f"{format_when(first, zone)} to {format_when(shown_last, zone)} (all day)"
    if isinstance(last, datetime) and last.date() == first.date():
        return f"{format_when(first, zone)}–{last.strftime('%H:%M')}"
    return f"{format_when(first, zone)} to {format_when(last, zone)}"



def pretty_local(text: str | None) -> str:
    """The model's date/time string made readable for approvals, as written (no conversion)."""
    value = (text or "").strip()
    try:
        if len(value) == 10:
            return date.fromisoformat(value).strftime("%a %Y-%m-%d")
        parsed = datetime.fromisoformat(value.replace(" ", "T", 1))
    except ValueError:
        return value
    shown = parsed.strftime("%a %Y-%m-%d %H:%M")
    return f"{shown} (UTC{parsed.strftime('%z')})" if parsed.tzinfo is not None else shown
