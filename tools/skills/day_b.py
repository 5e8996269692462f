"""Part B of the day: agenda and tasks (CalDAV), reminders, and the morning briefing.

`install_day_b` registers the skills (agenda and to-dos only when CALDAV_URL is set;
reminders always), the reminder handler and the daily briefing job, and returns the
Briefing so other skills can add sections (`briefing.add_section(name, section)`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import httpx

from bot.briefing import Briefing
from bot.clock import Clock
from bot.config import BriefingSettings, Settings
from memory.locations import LocationStore
from tools.caldav import CalDAVStore, CalendarEvent, TodoItem
from tools.dates import day_bounds
from tools.skills.agenda import AgendaSkill
from tools.skills.environment import OpenMeteoClient
from tools.skills.reminders import ReminderDelivery, RemindersSkill
from tools.skills.tasks import TasksSkill, is_overdue

if TYPE_CHECKING:
    from bot.core.assistant import Assistant
    from bot.scheduler import Scheduler

BRIEFING_TASKS_SHOWN = 10


def install_day_b(assistant: Assistant, scheduler: Scheduler, settings: Settings,
                  http: httpx.AsyncClient) -> Briefing:
    """Register agenda/tasks/reminders, the reminder handler and the briefing job."""
    clock = assistant.deps.clock
    zone = settings.core.zone
    registry = assistant.deps.registry
    store = CalDAVStore(settings.caldav, now=clock.now) if settings.caldav.enabled else None
    if store is not None:
        registry.add_skill(AgendaSkill(store))
        registry.add_skill(TasksSkill(store, scheduler))
    else:
        registry.add_skill(RemindersSkill(scheduler))
    ReminderDelivery(assistant.deliver, language=settings.core.language,
                     default_zone=zone).install(scheduler)

    options = settings.briefing

    async def users() -> list[str]:
        return list(options.users) or await assistant.chats.users()

    lang = "es" if settings.core.language == "es" else "en"
    briefing = Briefing(clock, zone, assistant.deliver, users, language=lang,
                        skip_empty=options.skip_empty)
    if store is not None:
        briefing.add_section("Agenda", AgendaSection(store, zone, lang))
        briefing.add_section("Tareas" if lang == "es" else "Tasks", TasksSection(store, zone, lang))
    weather = OpenMeteoClient.from_settings(http, settings.environment)
    briefing.add_section("Tiempo" if lang == "es" else "Weather",
                         WeatherSection(weather, assistant.locations, clock, options, lang),
                         content=False)
    if options.enabled:
        briefing.install(scheduler, options.hour, options.minute)
    return briefing


class AgendaSection:
    """Today's events, in local time."""

    def __init__(self, store: CalDAVStore, zone: ZoneInfo, lang: str) -> None:
        self._store = store
        self._zone = zone
        self._lang = lang

    async def __call__(self, user_key: str, local_now: datetime) -> str | None:
        start, end = day_bounds(local_now.date(), self._zone)
        events = await self._store.events(start, end, self._zone)
        if not events:
            return None
        return "\n".join(self._line(event) for event in events)

    def _line(self, event: CalendarEvent) -> str:
        where = f" ({event.location})" if event.location else ""
        if event.all_day:
            return f"- {'Todo el día' if self._lang == 'es' else 'All day'}: {event.title}{where}"
        start = event.start.astimezone(self._zone)  # type: ignore[union-attr]
        end = event.end.astimezone(self._zone)  # type: ignore[union-attr]
        until = end.strftime("%H:%M") if end.date() == start.date() else end.strftime("%a %H:%M")
        return f"- {start:%H:%M}–{until} {event.title}{where}"


class TasksSection:
    """Open to-dos, overdue and soonest due first."""

    def __init__(self, store: CalDAVStore, zone: ZoneInfo, lang: str) -> None:
        self._store = store
        self._zone = zone
        self._lang = lang

    async def __call__(self, user_key: str, local_now: datetime) -> str | None:
        items = await self._store.todos(self._zone)
        if not items:
            return None
        lines = [self._line(item, local_now) for item in items[:BRIEFING_TASKS_SHOWN]]
        if len(items) > BRIEFING_TASKS_SHOWN:
            more = len(items) - BRIEFING_TASKS_SHOWN
            lines.append(f"… y {more} más" if self._lang == "es" else f"… and {more} more")
        return "\n".join(lines)

    def _line(self, item: TodoItem, local_now: datetime) -> str:
        if item.due is None:
            return f"- {item.title}"
        es = self._lang == "es"
        if isinstance(item.due, datetime):
            local_due = item.due.astimezone(self._zone)
            when = (f"{local_due:%H:%M}" if local_due.date() == local_now.date()
                    else f"{local_due:%Y-%m-%d %H:%M}")
        else:
            when = ("hoy" if es else "today") if item.due == local_now.date() else f"{item.due:%Y-%m-%d}"
        late = (" ⚠️ vencida" if es else " ⚠️ overdue") if is_overdue(item, local_now) else ""
        return f"- {item.title} ({'para' if es else 'due'} {when}){late}"


class WeatherSection:
    """Today's forecast where the user is (a recent shared location) or at home."""

    def __init__(self, client: OpenMeteoClient, locations: LocationStore, clock: Clock,
                 options: BriefingSettings, lang: str) -> None:
        self._client = client
        self._locations = locations
        self._clock = clock
        self._options = options
        self._lang = lang

    async def __call__(self, user_key: str, local_now: datetime) -> str | None:
        place = await self._place(user_key)
        if place is None:
            return None
        lat, lon, label = place
        forecast = await self._client.forecast(lat, lon, 1)
        parts: list[str] = []
        today = next((d for d in forecast.days if d.day == local_now.date()), None)
        if today is None and forecast.days:
            today = forecast.days[0]
        if today is not None:
            parts.append(today.conditions)
            if today.temperature_min_c is not None and today.temperature_max_c is not None:
                parts.append(f"{today.temperature_min_c:.0f}–{today.temperature_max_c:.0f} °C")
            if today.precipitation_probability_percent is not None:
                rain = "lluvia" if self._lang == "es" else "rain"
                parts.append(f"{rain} {today.precipitation_probability_percent:.0f}%")
        if forecast.current is not None and forecast.current.temperature_c is not None:
            now_word = "ahora" if self._lang == "es" else "now"
            parts.append(f"{now_word} {forecast.current.temperature_c:.0f} °C")
        if not parts:
            return None
        return f"{label}: " + ", ".join(parts)

    async def _place(self, user_key: str) -> tuple[float, float, str] | None:
        es = self._lang == "es"
        max_age = timedelta(hours=self._options.location_max_age_hours)
        reading = await self._locations.read(user_key, self._clock.now(), max_age)
        if reading is not None and not reading.stale:
            loc = reading.location
            return loc.latitude, loc.longitude, loc.label or ("Donde estás" if es else "Where you are")
        if self._options.home_lat is not None and self._options.home_lon is not None:
            return self._options.home_lat, self._options.home_lon, "Casa" if es else "Home"
        return None
