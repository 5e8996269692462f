"""Calendar events on the user's CalDAV server: list, check availability, create, update, delete.

Times go in and come out in the user's time zone (ctx.timezone). A bare date means an
all-day event; all-day end dates given to and shown by these tools are inclusive (the
last day), while iCalendar stores them exclusive. Deleting shows the event (title,
start, end) in the approval and then checks the server still holds that same event.
Invitations are written by strangers, so the reading tools are `untrusted_output`.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Annotated
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from bot.config import Settings
from bot.errors import ToolError
from tools.context import ToolContext
from tools.dates import (
    WHEN_HELP,
    day_bounds,
    format_span,
    format_when,
    parse_datetime,
    parse_when,
    pretty_local,
)
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import Risk, Routing, tool

if TYPE_CHECKING:  # caldav and icalendar load only when a calendar is configured
    from tools.caldav import CalDAVStore, CalendarEvent

MAX_LISTED = 100

EventId = Annotated[str, "the event id shown by list_events"]
When = Annotated[str, f"{WHEN_HELP}"]
OptionalWhen = Annotated[str | None, f"{WHEN_HELP}; for all-day events the last day"]


def _describe_delete(args: BaseModel) -> str:
    values = args.model_dump()
    series = " and every repetition of it" if values.get("whole_series") else ""
    return (f"Delete the calendar event “{values.get('title', '')}” ({pretty_local(values.get('start'))} → "
            f"{pretty_local(values.get('end'))}){series} [id {values.get('event_id', '')}]")


def _describe_create(args: BaseModel) -> str:
    values = args.model_dump()
    until = f" → {pretty_local(values['end'])}" if values.get("end") else ""
    where = f" at {values['location']}" if values.get("location") else ""
    return (f"Create the calendar event “{values.get('title', '')}” "
            f"({pretty_local(values.get('start'))}{until}){where}")


def _describe_update(args: BaseModel) -> str:
    values = args.model_dump()
    fields = ("title", "start", "end", "location", "description")
    changes = [f"{name} → {values[name]!r}" for name in fields if values.get(name) is not None]
    return f"Update the calendar event {values.get('event_id', '')}: {', '.join(changes) or 'no change'}"


class AgendaSkill(SkillPlugin):
    id = "agenda"
    description = "calendar events: list a day or range, check availability, create, move/update, delete"
    routing = Routing(
        overview=True,
        summary=(
            "Calendar events: list what is on a day, check whether the user is free, create, move, update or "
            "cancel appointments, meetings and events. Agenda, calendario, citas, reuniones, eventos."
        ),
        cues=(
            # The day's overview ("what's on tomorrow?", "qué tengo hoy?") is the calendar and the to-dos.
            r"\bwhat'?s on (?:today|tonight|tomorrow|this|for)\b",
            r"\bon (?:my|me) plate\b",  # "whats on me plate tomorrow, shifts n jobs"
            # What is booked: "how many have I got booked next week?", "look at my gigs next week".
            r"\b(?:have i got|do i have|i'?ve got)\s+(?:[\w-]+\s+){0,2}?(?:booked|scheduled|lined up)\b",
            r"\bmy (?:gigs|bookings|shifts|appointments|sessions|shows)\b",
            r"\b(?:am i|am a|i'?m) on (?:earlies|lates|nights|days)\b",
            # Time blocked out: "bloquéame de 4 a 6", "block that hour as lunch".
            # ("Block the ads on this page" blocks no time.)
            r"\bbloqu[eé]a(?:me|lo|la|r)?\b",
            r"\bblock (?:out |off )?(?:(?:that|this|the|an?|my|some)\s+)?(?:[\w-]+\s+)?(?:hours?|time|slot|morning|"
            r"afternoon|evening|day|lunch)\b|\bblock (?:me )?(?:out )?(?:from )?\d",
            # An outing put on a day at an hour: "ponme salida al monte el miércoles a las 8" (not "ponme un aviso…").
            # (Or on a day and a part of it, as the River Plate says it: "poneme el sábado de tarde la rambla".)
            r"\bp(?:[oó]n|one)(?:me|le)\s+(?!(?:un|una|el|la)\s+(?:aviso|alarma|recordatorio|alerta)\b)"
            r"(?:[^\W\d_]+\s+){0,4}?"
            r"(?:el|este|pr[oó]ximo|ma[ñn]ana)\s+(?:(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo)\s+)?"
            r"(?:a\s+las\s+\d|(?:de|por\s+la|a\s+la|en\s+la)\s+(?:tarde|ma[ñn]ana|noche))",
            # (The day said in the clause before: "¿qué tiempo hace el sábado? si hace bueno ponme espetos… a las 2".)
            r"\bp(?:[oó]n|one)(?:me|le)\s+(?!(?:un|una|el|la)\s+(?:aviso|alarma|recordatorio|alerta)\b)"
            r"(?:[^\W\d_]+\s+){1,7}?a\s+las\s+\d",
            r"\bwhat(?: have i|'?ve i| do i have| i have) (?:got )?(?:on )?(?:today|tonight|tomorrow|this)\b",
            # ("n whit've a got on saturday": Scots, and a weekday.)
            r"\bwh[ai]t(?:'?ve| have) (?:i|a) got on (?:today|tonight|tomorrow|this|next|monday|tuesday|wednesday|"
            r"thursday|friday|saturday|sunday)\b",
            r"\bq(?:u[eé])? (?:tengo|me toca) (?:hoy|ma[ñn]ana|mñn|pasado|esta|este)\b",
            # Asked as what is noted for a day, or how the day looks ("tengo algo pendiente para el viernes?",
            # "what does my week look like?").
            r"\btengo algo (?:apuntado |pendiente |previsto |programado |planeado |agendado )?(?:para )?(?:hoy|"
            r"ma[ñn]ana|mñn|pasado|esta (?:tarde|noche|semana)|este (?:finde|fin de semana)|el (?:lunes|martes|"
            r"mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|finde))\b",
            r"\b(?:what(?:'?s| does| is| will)|how(?:'?s| does| is| will)) my (?:day|morning|afternoon|evening|week|"
            r"weekend)(?: \w+)? look(?:s|ing)?\b",
            # A named event and a day in the same request: the event is on the calendar ("va a llover
            # el sábado en la excursión?", "is it going to rain at the barbecue on Sunday?").
            r"(?=.*\b(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|finde|fin de semana|ma[ñn]ana)\b)"
            r".*\b(?:la|el|del|al)\s+(?:cena|comida|boda|fiesta|partido|concierto|excursi[oó]n|barbacoa|entrevista)\b",
            r"(?=.*\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|tomorrow|tonight)\b)"
            r".*\b(?:the|my)\s+(?:party|wedding|dinner|lunch|match|game|concert|barbecue|bbq|interview|trip)\b",
            r"\banything (?:booked|planned|scheduled)\b",
            # An event with its day, then "put it in": "Hazel's play is thursday 6pm, put it in and remind me…".
            r"(?=.*\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight)\b)"
            r".*\b(?:put|pop|stick|bung) (?:it|that) in\b"
            r"(?!\s+(?:the|my|your|a)\s+(?:list|note|notes|fridge|bin|drawer))",
            # Booking someone in, moving an appointment to a day: "book Leon in for Thursday", "move him to sat 9am",
            # "muévelo al viernes"; what one has on a day by its kind: "qué firmas tengo mañana".
            r"\bbook (?:\w+ ){1,2}in (?:for|on)\b",
            r"\b(?:move|push|shift|bump) (?:[\w'-]+ ){0,6}?to (?:mon|tue|wed|thu|fri|sat|sun|tomorrow|next|the \d|"
            r"\d{1,2}(?:[:.]\d{2})?(?:\s?[ap]m)?(?:\s+(?:then|instead|tomorrow|tonight))?\b(?![:.]?\d|\s*(?:%|€|\$|£|km|kg)))",
            # Put in the calendar by a time: "pop it in for 9", "stick it in for thursday".
            r"\b(?:pop|stick|bung|put|get) (?:it|that|this|them|him|her) in (?:for|at|on) "
            r"(?:\d|mon|tue|wed|thu|fri|sat|sun|"
            r"tomorrow|next|the \d|half|noon)",
            r"\b(?:mu[eé]ve|p[aá]sa|c[aá]mbia)(?:lo|la|le|los|las)? (?:\w+ ){0,2}?(?:al?|para el) (?:lunes|martes|"
            r"mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|d[ií]a \d)",
            r"\bq(?:u[eé])? [^\W\d_]+ tengo (?:hoy|ma[ñn]ana|mñn|pasado|esta|este|el (?:lunes|martes|mi[eé]rcoles|"
            r"jueves|viernes|s[aá]bado|domingo))\b",
            r"\b(?:any|my) plans (?:for|on|this|tonight|tomorrow)\b",
            # An event named by its day is on the calendar, even when the request is about its
            # weather or its place ("saturday's party", "la cena del viernes", "the wedding on Saturday").
            r"\b(?:today|tonight|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)'s\s+(?:party|wedding|dinner|lunch|"
            r"match|game|concert|trip|interview|class|meeting|appointment|event|bbq|barbecue)\b",
            r"\b(?:party|wedding|dinner|lunch|match|game|concert|trip|interview|class|barbecue|bbq)\s+(?:on|this|next)\s+"
            r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|week)\b",
            r"\b(?:cena|comida|boda|fiesta|partido|concierto|excursi[oó]n|cumple\w*|entrevista|clase|barbacoa|viaje)"
            r"(?:\s+(?:de|con)\s+\w+)?\s+(?:del|de este|de esta|de)\s+(?:lunes|martes|mi[eé]rcoles|jueves|viernes|"
            r"s[aá]bado|domingo|finde|fin de semana|ma[ñn]ana|hoy|esta noche)\b",
            r"\bmy \d{1,2}(?::\d\d)?\s?(?:am|pm)\b",
            r"\btengo algo (?:el|este|esta|ma[ñn]ana|hoy|pasado|por)\b",
            r"\banything on (?:today|tonight|tomorrow|this|next|on)\b",
            r"\b(?:do i have|have [ia] got|i got) anything (?:on|today|tonight|tomorrow|this|next)\b",
            # The day first: "mañana, tengo algo?"; or the week asked for: "qué tengo pa la semana que viene?".
            r"\b(?:hoy|ma[ñn]ana|pasado)\W+(?:tengo|hay) algo\b",
            r"\bq(?:u[eé])? (?:tengo|me toca) para (?:hoy|ma[ñn]ana|pasado|esta|este|la semana|el finde|"
            r"el fin de semana|"
            r"el (?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo))\b",
            r"\bhueco\b",
            # An outing added with its time: "if it's dry add a run ashore with the lads 7pm".
            r"\badd (?:a|an) [\w' -]{2,40}? (?:at |for )?\d{1,2}(?::\d\d)?\s?(?:am|pm)\b",
            # The diary as British English says the calendar: "stick em in the diary", "put it in my diary".
            r"\b(?:stick|put|pop|bung|pencil|add|write|get) (?:it|them|em|'em|that|this|those|these|\w+) (?:in|into) "
            r"(?:the|my) diary\b",
            # What is on at a place on a day: "what's on at the studio today?".
            r"\bwhat'?s on (?:at|in) (?:the |my )?\w+(?: \w+)? (?:today|tonight|tomorrow|this)\b",
            # A shift asked after by its day: "am I working that sat?", "¿trabajo el sábado?".
            r"\bam i (?:working|workin|on shift|on call|on nights|on earlies|on lates|off)\b",
            # Moving a thing to another day: "shift it to Sunday, same time", "pásalo al jueves a la misma hora".
            r"\b(?:shift|move|push|bump|reschedule)\s+(?:it|that|this|them|the\s+\w+)\s+to\s+(?:next\s+)?"
            r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow)\b",
            r"\b(?:p[aá]sa|mu[eé]ve|c[aá]mbia)(?:lo|la|los|las)\s+(?:al|para\s+el)\s+"
            r"(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo)\b",
            # One of the user's own events, by whom it is with or whose it is ("is it gonna rain on my ride with Marc
            # tomorrow?", "¿llevo abrigo al cumple de Sofi?") or asked when ("what time's the Harewood trip?").
            r"\bmy\s+(?:ride|run|walk|hike|trip|dinner|lunch|match|game|class|lesson|appointment|date|drinks)\s+with\b",
            # (Going to it, "al cumple de Sofi": "ideas para el cumple de Lucía" is about a note, not the day.)
            r"\b(?:al|a\s+la)\s+(?:cumple|cumpleaños|boda|cena|comida|fiesta|partido|concierto|excursi[oó]n|"
            r"viaje|bautizo|comuni[oó]n)\s+(?:de|con)\s+(?-i:[A-Z])[^\W\d_]+",
            r"\bwhat\s+time(?:'s|\s+is)\s+(?:the|my|our)\s+(?:[\w'-]+\s+){0,2}?(?:trip|party|wedding|dinner|lunch|match|"
            r"game|concert|class|meeting|appointment|interview|ride|run|flight|show|service)\b",
            # An event moved to an hour: "la catación pasala pa las 11", "pásamelo a las 5".
            r"\bp[aá]s(?:a|ala|alo|amela|amelo)\s+(?:pa|para|a)\s+las\s+\d",
            # Britain's diary is the calendar when times go in it: "stick the new collection times in the diary".
            r"\b(?:stick|pop|pencil|bung|put)\b[^.?!]{1,40}\b(?:in|into) (?:the|my|our) diary\b",
            # Something put in for a day and an hour: "ok put the long run in for sunday 11 then".
            r"\bput\b[^.?!]{1,40}\bin (?:for|on) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|"
            r"the \d{1,2}(?:st|nd|rd|th)?)\b",
            # Time taken out of the day: "book me out Thursday morning", "block off Friday afternoon".
            r"\bbook (?:me|us) (?:in|out|off)\b|\bblock (?:out|off)\b",
            # A thing put at an hour: "ponlo a las 10", "put it at 9:30" (on the calendar, where hours go).
            r"\b(?:p[oó]n(?:lo|la|melo|mela)|put it|book it|schedule it)\s+(?:para\s+)?(?:a\s+las|at)\s+\d",
            # A shift is on the rota: "qué turno tengo?", "my shift tomorrow", "turno de noche".
            r"\b(?:mi|el|qu[eé]|q)\s+turno\b|\bturnos?\s+(?:de\s+)?(?:hoy|ma[ñn]ana|noche|tarde)\b",
            r"\b(?:my|what|which)\s+shifts?\b|\bshifts?\s+(?:today|tonight|tomorrow|this\s+week)\b",
            # Who or what comes first or next in the day: "who's my first patient tomorrow?", "my next client".
            r"\bmy (?:first|next|last) (?:patient|client|appointment|meeting|class|lesson|booking|session)s?\b",
            r"\bmi (?:primer|pr[oó]xim[oa]|primera|[uú]ltim[oa]) "
            r"(?:paciente|cliente|cita|reuni[oó]n|clase|sesi[oó]n)\b",
            # When a known event is, asked again: "when's the Henderson wedding again?".
            r"\bwhen(?:'s| is| was) (?:the|my|our) [\w' -]{2,40}? again\b",
            # An appointment taken off a weekday: "quítame la tutoría del lunes".
            r"\b(?:qu[ií]ta(?:me)?|cancela(?:me)?|canc[eé]lame|borra(?:me)?|b[oó]rrame)\s+(?:la|el)\s+\w+\s+"
            r"del?\s+(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo)\b",
            r"\bfree slot\b",
            # What fills a day, or is free in it: "tengo pacientes ese día?", "what have I got open next week",
            # "pencil it in for thu".
            r"\b(?:tengo|tenemos|hay) (?:pacientes|clientes|alumnos|clases|consultas|citas|sesiones|turnos|visitas) "
            r"(?:ese|esa|el|la|este|esta|hoy|ma[ñn]ana|pasado|los|las)\b",
            r"\b(?:do|have) i (?:got |have )?(?:any )?(?:patients|clients|appointments|sessions|classes|bookings) "
            r"(?:that|on|today|tomorrow|this|next)\b",
            r"\bwhat (?:have )?i (?:got |have )?(?:open|free)\b",
            r"\b(?:qu[eé]|q) (?:huecos?|d[ií]as? libres?) tengo\b",
            r"\b(?:set|book|pencil|put) (?:it|that|this|one|him|her|them|something) (?:up |in )?(?:for|on) "
            r"(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)(?:day)?\b",
            r"\bcalendar",
            r"\bcalendario",
            r"\bagenda\b",
            r"\bappointments?\b",
            r"\bmeetings?\b",
            r"\breuni[oó]n",
            r"\bcitas?\b",
            r"\bam i (free|busy)\b",
            r"\bestoy libre\b",
            r"\bevents?\b",
            r"\beventos?\b",
            # Time held on the calendar ("block an hour on Saturday", "bloquéame la tarde"), being somewhere
            # ("anything I need to be at", "where do I have to be"), and a date put down at once ("agéndalo").
            r"\bblock (?:out |off )?(?:an? |the |some |\d+ |two |three |four |a couple of |half an? )?"
            r"(?:hour|hours|time|slot|morning|afternoon|evening|day|minutes|mins)\b",
            r"\bbloqu[eé]a(?:me|nos)? (?:una|un|la|el|\d+|media)\b",
            r"\b(?:need|have|got) to (?:\w+ or )?be (?:at|somewhere|anywhere)\b",
            r"\bd[oó]nde tengo que estar\b",
            r"\bag[eé]nd(?:a|ar)(?:me|nos)?(?:lo|la|los|las)\b",
            r"^\W*(?:ap[uú]nt|an[oó]t)a(?:me|nos)?(?:lo|la|los|las)\W*$",
        ),
        examples=(
            "what's on my calendar tomorrow?",
            "do I have anything on Friday afternoon?",
            "book a meeting with Elena next Tuesday at 4pm",
            "add lunch with my parents on Sunday at 2 to the calendar",
            "cancel my haircut appointment on Wednesday",
            "push the team sync back half an hour",
            "move the call with the bank to Monday morning",
            "am I busy on the 14th?",
            "when is my next appointment?",
            "put the concert on the 22nd at 8pm in my agenda",
            "is there a free slot this week for a one hour meeting?",
            "what time is the parents' evening at school?",
            "I have a doctor's appointment on Thursday at 11, save it",
            "rename the meeting on Friday to budget review",
            "delete the event called yoga from next week",
            "qué tengo en el calendario el lunes?",
            "tengo algo mañana por la tarde?",
            "apúntame en la agenda la revisión del coche el jueves a las 8",
            "pon una cita con el dentista el martes a las 12",
            "mueve la reunión del viernes al lunes a la misma hora",
            "cancela la cena del sábado",
            "estoy libre el miércoles por la mañana?",
            "a qué hora es la boda de mi primo?",
            "cuándo es mi próxima reunión con el equipo?",
            "me han cambiado la cita del fisio al jueves a las 6, actualízalo",
            "bórrame del calendario lo del gimnasio del lunes",
            "mete en el calendario que el 12 de mayo tengo examen",
            "qué eventos tengo esta semana?",
            "tengo hueco el jueves para quedar con luis?",
            "q tengo el finde?",
            "el viernes tengo comida de empresa a las 14:30",
            "sí, añádelo al calendario",
            "yes, put it in my calendar",
            "vacaciones del 1 al 15 de julio, márcalo en el calendario",
        ),
    )
    settings_section = "caldav"
    needs = frozenset({Need.CLOCK, Need.BRIEFING})

    @classmethod
    def unconfigured(cls, settings: Settings) -> str | None:
        return None if settings.caldav.enabled else "no calendar server: set CALDAV_URL (and its user and password)"

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        store = calendar_store(ctx)
        ctx.add_tools(cls(store))
        ctx.add_briefing_section("Agenda", AgendaSection(store, ctx.settings.core.zone, ctx.language))

    def __init__(self, caldav: CalDAVStore) -> None:
        self._caldav = caldav

    # Invitations put strangers' text (titles, descriptions, places, attendees) in the calendar.
    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def list_events(
        self,
        ctx: ToolContext,
        start: Annotated[str, f"first day or moment of the range, {WHEN_HELP}"],
        end: Annotated[str | None, "last day (inclusive) or moment of the range; default: the end "
                                  "of the start day"] = None,
    ) -> str:
        """Calendar events in a range of days or times, repeating events expanded, with their ids."""
        zone = ctx.timezone
        range_start, range_end = _range(start, end, zone)
        events = await self._caldav.events(range_start, range_end, zone)
        span = f"{format_when(range_start, zone)} to {format_when(range_end, zone)}"
        if not events:
            return f"No events from {span} ({zone.key})."
        lines = [f"Events from {span} ({zone.key}):"]
        lines += [event_line(event, zone) for event in events[:MAX_LISTED]]
        if len(events) > MAX_LISTED:
            lines.append(f"… and {len(events) - MAX_LISTED} more: ask for a shorter range.")
        return "\n".join(lines)

    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def check_availability(
        self,
        ctx: ToolContext,
        start: Annotated[str, "start of the slot, 'YYYY-MM-DDTHH:MM' local time"],
        end: Annotated[str, "end of the slot, 'YYYY-MM-DDTHH:MM' local time"],
    ) -> str:
        """Whether the user is free in a time slot, and which events overlap it."""
        zone = ctx.timezone
        slot_start, slot_end = parse_datetime(start, zone), parse_datetime(end, zone)
        if slot_end <= slot_start:
            raise ToolError("the end of the slot must be after its start")
        events = await self._caldav.events(slot_start, slot_end, zone)
        slot = format_span(slot_start, slot_end, zone)
        busy = [e for e in events if not e.all_day and not e.transparent]
        all_day = [e for e in events if e.all_day]
        lines = [f"Busy during {slot}; overlapping:" if busy else f"Free during {slot}."]
        lines += [event_line(event, zone) for event in busy]
        if all_day:
            lines.append("All-day events that day (not counted as busy):")
            lines += [event_line(event, zone) for event in all_day]
        return "\n".join(lines)

    @tool(risk=Risk.WRITE, describe=_describe_create)
    async def create_event(
        self,
        ctx: ToolContext,
        title: Annotated[str, "what the event is"],
        start: When,
        end: OptionalWhen = None,
        location: Annotated[str, "where, if known"] = "",
        description: Annotated[str, "notes for the event"] = "",
    ) -> str:
        """Create a calendar event; default length one hour, or one day when start is a date."""
        zone = ctx.timezone
        if not title.strip():
            raise ToolError("the event needs a title")
        first = parse_when(start, zone)
        last = _end(first, end, zone)
        event = await self._caldav.add_event(title.strip(), first, last, zone,
                                             location=location.strip(), description=description.strip())
        return f"Created: {event_line(event, zone)}"

    @tool(risk=Risk.WRITE, idempotent=True, describe=_describe_update)
    async def update_event(
        self,
        ctx: ToolContext,
        event_id: EventId,
        title: Annotated[str | None, "new title"] = None,
        start: Annotated[str | None, f"new start, {WHEN_HELP}; the length is kept if no end"] = None,
        end: OptionalWhen = None,
        location: Annotated[str | None, "new location ('' clears it)"] = None,
        description: Annotated[str | None, "new notes ('' clears them)"] = None,
    ) -> str:
        """Change an event's title, time, location or notes (a repeating event changes as a whole)."""
        zone = ctx.timezone
        new_start = parse_when(start, zone) if start else None
        new_end: datetime | date | None = None
        if end:
            reference = new_start if new_start is not None else (await self._caldav.event(event_id, zone)).start
            new_end = _end(reference, end, zone)
        from tools.caldav import EventChanges

        changes = EventChanges(title=title, start=new_start, end=new_end, location=location,
                               description=description)
        event = await self._caldav.update_event(event_id, changes, zone)
        return f"Updated: {event_line(event, zone)}"

    @tool(risk=Risk.DESTRUCTIVE, describe=_describe_delete)
    async def delete_event(
        self,
        ctx: ToolContext,
        event_id: EventId,
        title: Annotated[str, "the event's title, as listed (shown to the user for approval)"],
        start: Annotated[str, "the event's start as listed, local time (shown for approval)"],
        end: Annotated[str, "the event's end as listed, local time (shown for approval)"],
        whole_series: Annotated[bool, "true to delete a repeating event with all its repetitions"] = False,
    ) -> str:
        """Delete a calendar event; the user approves it seeing the title, start and end given here."""
        zone = ctx.timezone
        stored = await self._caldav.event(event_id, zone)
        await self._check_same(stored, title, start, end, zone)
        if stored.recurring and not whole_series:
            raise ToolError(f"“{stored.title}” repeats: deleting it removes every repetition. Nothing "
                            "was deleted; ask the user, then call again with whole_series=true")
        deleted = await self._caldav.delete_event(event_id, zone)
        series = " (and all its repetitions)" if deleted.recurring else ""
        return f"Deleted: “{deleted.title}”, {format_span(deleted.start, deleted.end, zone)}{series}."

    async def _check_same(self, stored: CalendarEvent, title: str, start: str, end: str,
                          zone: ZoneInfo) -> None:
        """The approval showed title/start/end: refuse if the server's event is another one."""
        first = parse_when(start, zone)
        last = _end(first, end, zone)
        mismatch: list[str] = []
        if _norm(title) != _norm(stored.title):
            mismatch.append(f"its title is “{stored.title}”")
        if stored.recurring:
            occurrences = await self._caldav.events(*_around(first, zone), zone)
            if not any(o.uid == stored.uid and o.start == first for o in occurrences):
                mismatch.append(f"it has no occurrence starting {format_when(first, zone)}")
        elif stored.start != first or stored.end != last:
            mismatch.append(f"it runs {format_span(stored.start, stored.end, zone)}")
        if mismatch:
            raise ToolError(f"event {stored.uid} does not match what the user approved ("
                            f"{'; '.join(mismatch)}); nothing was deleted: list the events again")


def event_line(event: CalendarEvent, zone: ZoneInfo) -> str:
    """One listing line: when, title, where, id; used by the briefing too."""
    parts = [format_span(event.start, event.end, zone), f"“{event.title}”"]
    if event.location:
        parts.append(f"at {event.location}")
    if event.recurring:
        parts.append("repeats")
    if event.transparent:
        parts.append("free time")
    parts.append(f"id: {event.uid}")
    return "- " + " · ".join(parts)


def _range(start: str, end: str | None, zone: ZoneInfo) -> tuple[datetime, datetime]:
    first = parse_when(start, zone)
    range_start = first if isinstance(first, datetime) else day_bounds(first, zone)[0]
    if end is None:
        day = first.date() if isinstance(first, datetime) else first
        return range_start, day_bounds(day, zone)[1]
    last = parse_when(end, zone)
    range_end = last if isinstance(last, datetime) else day_bounds(last, zone)[1]
    if range_end <= range_start:
        raise ToolError("the end of the range must be after its start")
    if range_end - range_start > timedelta(days=366):
        raise ToolError("that range is longer than a year: ask for a shorter one")
    return range_start, range_end


def _end(start: datetime | date, end: str | None, zone: ZoneInfo) -> datetime | date:
    """The exclusive end for iCalendar from the model's (inclusive, for dates) end."""
    if end is None or not end.strip():
        return start + (timedelta(hours=1) if isinstance(start, datetime) else timedelta(days=1))
    last = parse_when(end, zone)
    if isinstance(start, datetime) != isinstance(last, datetime):
        raise ToolError("start and end must both be times, or both be dates for an all-day event")
    if not isinstance(last, datetime):
        return last + timedelta(days=1)
    return last


def _around(moment: datetime | date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    if isinstance(moment, datetime):
        return moment - timedelta(minutes=1), moment + timedelta(minutes=1)
    return day_bounds(moment, zone)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def calendar_store(ctx: SkillContext) -> CalDAVStore:
    """The one CalDAV store the agenda and the tasks share."""
    from tools.caldav import CalDAVStore  # caldav and icalendar: only when a calendar is configured

    return ctx.shared("caldav", lambda: CalDAVStore(ctx.settings.caldav, now=ctx.clock.now))


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
