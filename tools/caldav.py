"""The one door to the CalDAV server: events and to-dos as frozen values, failures as ToolErrors.

Uses the async client of the `caldav` library (caldav.aio). Each operation opens its own
client (so nothing is tied to one event loop) under one overall timeout; calendars are
found by display name once and then addressed by URL. Recurring events are expanded by
the library for range queries; identity is the iCalendar UID, so editing or deleting a
recurring event acts on the whole series.
"""

from __future__ import annotations

import asyncio
import logging
import math
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo

import icalendar
from caldav import aio
from caldav.lib import error as dav_error
from dateutil.rrule import rrulestr

from bot.config import CalDAVSettings
from bot.errors import ConfigError, ToolError

log = logging.getLogger(__name__)

_PRODID = "-//Mayordomo//CalDAV//EN"


class Collection(StrEnum):
    CALENDAR = "calendar"
    TASKS = "task list"


@dataclass(frozen=True)
class CalendarEvent:
    """One event or one occurrence of a recurring event; all-day ends are exclusive."""

    uid: str
    title: str
    start: datetime | date
    end: datetime | date
    location: str = ""
    description: str = ""
    recurring: bool = False
    transparent: bool = False

    @property
    def all_day(self) -> bool:
        return not isinstance(self.start, datetime)


@dataclass(frozen=True)
class TodoItem:
    uid: str
    title: str
    due: datetime | date | None = None
    notes: str = ""
    completed: bool = False


@dataclass(frozen=True)
class EventChanges:
    """What to change in an event; None keeps the current value."""

    title: str | None = None
    start: datetime | date | None = None
    end: datetime | date | None = None
    location: str | None = None
    description: str | None = None

    @property
    def empty(self) -> bool:
        return all(value is None for value in
                   (self.title, self.start, self.end, self.location, self.description))


class CalDAVStore:
    """Events in the configured calendar, to-dos in the configured task list."""

    def __init__(self, settings: CalDAVSettings, *, now: Callable[[], datetime] | None = None) -> None:
        if not settings.url or not settings.url.startswith(("http://", "https://")):
            raise ConfigError(f"CALDAV_URL: expected {CalDAVSettings.expectations['url']}")
        self._settings = settings
        self._now = now or (lambda: datetime.now(UTC))
        self._urls: dict[Collection, str] = {}

    # -- events ------------------------------------------------------------------------
    async def events(self, start: datetime, end: datetime, zone: ZoneInfo) -> list[CalendarEvent]:
        """Events overlapping [start, end), recurrences expanded, sorted by start."""
        if end <= start:
            raise ToolError("the end of the range must be after its start")
        async with self._open(Collection.CALENDAR, "list events") as calendar:
            found = await calendar.search(event=True, start=start, end=end, expand=True)
            events = [_event(item.icalendar_component, zone) for item in found]
        return sorted(events, key=lambda e: _sort_key(e.start, zone))

    async def event(self, uid: str, zone: ZoneInfo) -> CalendarEvent:
        async with self._open(Collection.CALENDAR, "read an event") as calendar:
            found = await self._event_by_uid(calendar, uid)
            return _event(_main_component(found.data, "VEVENT"), zone)

    async def add_event(self, title: str, start: datetime | date, end: datetime | date,
                        zone: ZoneInfo, *, location: str = "", description: str = "") -> CalendarEvent:
        _check_span(start, end)
        component = icalendar.Event()
        component.add("uid", f"{uuid.uuid4()}@mayordomo")
        component.add("dtstamp", self._now())
        component.add("summary", title)
        component.add("dtstart", start)
        component.add("dtend", end)
        if location:
            component.add("location", location)
        if description:
            component.add("description", description)
        async with self._open(Collection.CALENDAR, "create the event") as calendar:
            await calendar.add_event(_wrap(component))
        return _event(component, zone)

    async def update_event(self, uid: str, changes: EventChanges, zone: ZoneInfo) -> CalendarEvent:
        if changes.empty:
            raise ToolError("nothing to change: give a new title, start, end, location or description")
        async with self._open(Collection.CALENDAR, "update the event") as calendar:
            found = await self._event_by_uid(calendar, uid)
            document = icalendar.Calendar.from_ical(found.data)
            component = _main_component(document, "VEVENT")
            old = _event(component, zone)
            start = changes.start if changes.start is not None else old.start
            if changes.end is not None:
                end = changes.end
            elif changes.start is not None:
                end = _shift_keeping_length(old, changes.start)
            else:
                end = old.end
            _check_span(start, end)
            for key, value in (("summary", changes.title), ("location", changes.location),
                               ("description", changes.description)):
                if value is not None:
                    component.pop(key, None)
                    if value:
                        component.add(key, value)
            for key, moment in (("dtstart", start), ("dtend", end)):
                component.pop(key, None)
                component.add(key, moment)
            component.pop("duration", None)
            component.pop("dtstamp", None)
            component.add("dtstamp", self._now())
            sequence = int(component.get("sequence", 0)) + 1
            component.pop("sequence", None)
            component.add("sequence", sequence)
            _add_timezones(document)
            found.data = document.to_ical().decode()
            await found.save()
            return _event(component, zone)

    async def delete_event(self, uid: str, zone: ZoneInfo) -> CalendarEvent:
        """Delete the event (every occurrence if it repeats); returns what was deleted."""
        async with self._open(Collection.CALENDAR, "delete the event") as calendar:
            found = await self._event_by_uid(calendar, uid)
            deleted = _event(_main_component(found.data, "VEVENT"), zone)
            await found.delete()
            return deleted

    # -- to-dos ------------------------------------------------------------------------
    async def todos(self, zone: ZoneInfo, *, include_completed: bool = False) -> list[TodoItem]:
        """To-dos sorted by due date (undated last)."""
        async with self._open(Collection.TASKS, "list tasks") as calendar:
            found = await calendar.search(todo=True, include_completed=include_completed)
            items = [_todo(_main_component(item.data, "VTODO"), zone) for item in found]
        far = datetime.max.replace(tzinfo=UTC)
        return sorted(items, key=lambda t: (_sort_key(t.due, zone) if t.due is not None else far, t.title))

    async def todo(self, uid: str, zone: ZoneInfo) -> TodoItem:
        async with self._open(Collection.TASKS, "read a task") as calendar:
            found = await self._todo_by_uid(calendar, uid)
            return _todo(_main_component(found.data, "VTODO"), zone)

    async def add_todo(self, title: str, zone: ZoneInfo, *, due: datetime | date | None = None,
                       notes: str = "") -> TodoItem:
        component = icalendar.Todo()
        component.add("uid", f"{uuid.uuid4()}@mayordomo")
        component.add("dtstamp", self._now())
        component.add("summary", title)
        component.add("status", "NEEDS-ACTION")
        if due is not None:
            component.add("due", due)
        if notes:
            component.add("description", notes)
        async with self._open(Collection.TASKS, "create the task") as calendar:
            await calendar.add_todo(_wrap(component))
        return _todo(component, zone)

    async def complete_todo(self, uid: str, zone: ZoneInfo) -> TodoItem:
        """Mark done; a repeating to-do moves to its next occurrence and stays open."""
        async with self._open(Collection.TASKS, "complete the task") as calendar:
            found = await self._todo_by_uid(calendar, uid)
            item = _todo(_main_component(found.data, "VTODO"), zone)
            if item.completed:
                raise ToolError(f"the task {item.title!r} is already completed")
            document = icalendar.Calendar.from_ical(found.data)
            component = _main_component(document, "VTODO")
            if _advance_recurring(component, self._now()):
                # A repeating to-do: this time is done, the next one stays open.
                found.data = document.to_ical().decode()
                await found.save()
                return _todo(component, zone)
            await found.complete(completion_timestamp=self._now())
            return TodoItem(item.uid, item.title, item.due, item.notes, completed=True)

    async def delete_todo(self, uid: str, zone: ZoneInfo) -> TodoItem:
        async with self._open(Collection.TASKS, "delete the task") as calendar:
            found = await self._todo_by_uid(calendar, uid)
            deleted = _todo(_main_component(found.data, "VTODO"), zone)
            await found.delete()
            return deleted

    # -- plumbing ----------------------------------------------------------------------
    @asynccontextmanager
    async def _open(self, collection: Collection, action: str) -> AsyncIterator[Any]:
        """A client and the collection, with the timeout and errors turned into ToolErrors."""
        settings = self._settings
        password = settings.password.get_secret_value() if settings.password else None
        try:
            async with asyncio.timeout(settings.timeout_seconds):
                async with aio.AsyncDAVClient(
                    url=settings.url, username=settings.username, password=password,
                    timeout=math.ceil(settings.timeout_seconds), enable_rfc6764=False,
                ) as client:
                    calendar = await self._collection(client, collection)
                    yield calendar
        except ToolError:
            raise
        except TimeoutError:
            raise ToolError(
                f"could not {action}: the calendar server did not answer within "
                f"{settings.timeout_seconds:g} s"
            ) from None
        except dav_error.AuthorizationError:
            raise ToolError(
                f"could not {action}: the calendar server refused the login "
                "(check CALDAV_USERNAME and CALDAV_PASSWORD)"
            ) from None
        except dav_error.NotFoundError as exc:
            self._urls.pop(collection, None)  # the calendar may have moved: look it up again next time
            raise ToolError(f"could not {action}: not found on the calendar server ({exc.reason})") from None
        except dav_error.DAVError as exc:
            log.warning("CalDAV %s failed: %s", action, exc)
            raise ToolError(f"could not {action}: the calendar server answered with an error "
                            f"({type(exc).__name__}: {exc.reason})") from None
        except OSError as exc:  # connection refused, DNS, TLS (niquests errors are OSErrors)
            log.warning("CalDAV %s failed: %s", action, exc)
            raise ToolError(f"could not {action}: the calendar server at {_without_credentials(settings.url)} "
                            "is unreachable") from None

    async def _collection(self, client: Any, collection: Collection) -> Any:
        cached = self._urls.get(collection)
        if cached is not None:
            return aio.Calendar(client=client, url=cached)
        wanted = self._settings.calendar
        if collection is Collection.TASKS and self._settings.task_list:
            wanted = self._settings.task_list
        principal = await client.get_principal()
        calendars = await principal.get_calendars()
        names: list[str] = []
        chosen = None
        for candidate in calendars:
            name = str(await candidate.get_display_name() or "")
            names.append(name)
            if chosen is None and (not wanted or name == wanted):
                chosen = candidate
        if chosen is None:
            if not names:
                raise ToolError("the CalDAV account has no calendars yet: create one in your "
                                "calendar app or the server's web interface")
            listed = ", ".join(repr(n) for n in names)
            raise ToolError(f"there is no {collection.value} named {wanted!r} on the CalDAV server "
                            f"(found: {listed}); fix CALDAV_CALENDAR / CALDAV_TASK_LIST")
        self._urls[collection] = str(chosen.url)
        return chosen

    async def _event_by_uid(self, calendar: Any, uid: str) -> Any:
        try:
            return await calendar.get_event_by_uid(uid)
        except dav_error.NotFoundError:
            raise ToolError(f"no event with id {uid!r}: list the events to get the right id") from None

    async def _todo_by_uid(self, calendar: Any, uid: str) -> Any:
        try:
            return await calendar.get_todo_by_uid(uid)
        except dav_error.NotFoundError:
            raise ToolError(f"no task with id {uid!r}: list the tasks to get the right id") from None


def _without_credentials(url: str | None) -> str:
    """The URL without any user:password@ part (it may reach the model and logs)."""
    parts = urlsplit(url or "")
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _wrap(component: icalendar.Component) -> str:
    document = icalendar.Calendar()
    document.add("prodid", _PRODID)
    document.add("version", "2.0")
    document.add_component(component)
    _add_timezones(document)
    return str(document.to_ical().decode())


def _add_timezones(document: icalendar.Calendar) -> None:
    """VTIMEZONE blocks for every TZID used, so other clients read the times right."""
    try:
        document.add_missing_timezones()
    except Exception:  # an unknown zone name from another client: keep the data as it is
        log.debug("could not add VTIMEZONE blocks", exc_info=True)


def _main_component(data: str | icalendar.Calendar, kind: str) -> icalendar.Component:
    """The master component (the one without RECURRENCE-ID) of a calendar object."""
    document = data if isinstance(data, icalendar.Calendar) else icalendar.Calendar.from_ical(data)
    components = document.walk(kind)
    if not components:
        raise ToolError(f"the calendar object has no {kind}")
    for component in components:
        if "recurrence-id" not in component:
            return component
    return components[0]


def _event(component: icalendar.Component, zone: ZoneInfo) -> CalendarEvent:
    start = _moment(component.get("dtstart"), zone)
    if start is None:
        raise ToolError(f"event {component.get('uid')} has no start")
    end = _moment(component.get("dtend"), zone)
    if end is None:
        duration = component.get("duration")
        if duration is not None:
            end = start + duration.dt
        elif isinstance(start, datetime):
            end = start
        else:
            end = start + timedelta(days=1)
    return CalendarEvent(
        uid=str(component.get("uid", "")),
        title=str(component.get("summary", "")) or "(no title)",
        start=start,
        end=end,
        location=str(component.get("location", "")),
        description=str(component.get("description", "")),
        recurring="recurrence-id" in component or "rrule" in component,
        transparent=str(component.get("transp", "OPAQUE")).upper() == "TRANSPARENT",
    )


def _todo(component: icalendar.Component, zone: ZoneInfo) -> TodoItem:
    status = str(component.get("status", "")).upper()
    return TodoItem(
        uid=str(component.get("uid", "")),
        title=str(component.get("summary", "")) or "(no title)",
        due=_moment(component.get("due"), zone),
        notes=str(component.get("description", "")),
        completed=status == "COMPLETED" or "completed" in component,
    )


def _moment(prop: Any, zone: ZoneInfo) -> datetime | date | None:
    if prop is None:
        return None
    value = prop.dt
    if isinstance(value, datetime):
        # Floating times belong to the user's zone.
        return value.replace(tzinfo=zone) if value.tzinfo is None else value.astimezone(zone)
    if isinstance(value, date):
        return value
    return None


def _sort_key(value: datetime | date, zone: ZoneInfo) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime(value.year, value.month, value.day, tzinfo=zone)


def _check_span(start: datetime | date, end: datetime | date) -> None:
    if isinstance(start, datetime) != isinstance(end, datetime):
        raise ToolError("start and end must both be times, or both be dates for an all-day event")
    if end <= start:  # type: ignore[operator]
        raise ToolError("the end must be after the start (for an all-day event the end date is "
                        "the day after the last day)")


def _shift_keeping_length(old: CalendarEvent, new_start: datetime | date) -> datetime | date:
    """A moved event keeps its length; changing timed <-> all-day takes the default length."""
    if isinstance(new_start, datetime) and isinstance(old.start, datetime):
        return new_start + (old.end - old.start)  # type: ignore[operator]
    if not isinstance(new_start, datetime) and not isinstance(old.start, datetime):
        return new_start + (old.end - old.start)  # type: ignore[operator]
    if isinstance(new_start, datetime):
        return new_start + timedelta(hours=1)
    return new_start + timedelta(days=1)


def _advance_recurring(component: icalendar.Component, now: datetime) -> bool:
    """Move a repeating VTODO's start and due to the next occurrence; False when none is left."""
    if "rrule" not in component:
        return False
    anchor_prop = component.get("dtstart") or component.get("due")
    if anchor_prop is None:
        return False
    anchor = anchor_prop.dt
    is_date = not isinstance(anchor, datetime)
    start = datetime(anchor.year, anchor.month, anchor.day) if is_date else anchor
    recur: Any = component["rrule"]
    try:
        following = rrulestr(bytes(recur.to_ical()).decode(), dtstart=start).after(start)
    except (ValueError, TypeError):  # a rule dateutil cannot read: complete it like a plain task
        log.warning("cannot read the repeat rule of task %s", component.get("uid"))
        return False
    if following is None:
        return False
    count = recur.get("COUNT")
    if count:
        # COUNT counts from DTSTART, which moves: one occurrence fewer is left.
        if int(count[0]) <= 1:
            return False
        recur["COUNT"] = [int(count[0]) - 1]
    shift = following - start
    for key in ("dtstart", "due"):
        prop = component.get(key)
        if prop is None:
            continue
        component.pop(key)
        component.add(key, prop.dt + shift)
    component.pop("dtstamp", None)
    component.add("dtstamp", now)
    component.pop("status", None)
    component.add("status", "NEEDS-ACTION")
    return True
