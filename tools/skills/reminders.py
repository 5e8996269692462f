"""Reminders: "remind me at 18:00 to…" becomes a one-shot scheduler job that posts into the chat.

The job lives in SQLite (Scheduler.schedule_once, kind "reminder"), so it survives
restarts and fires exactly once; a reminder that fires late (the bot was down) says how
late. Setting and cancelling reminders always notify: they never wait for approval.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel

from bot.core.events import MessageKind, OutboundMessage, SentMessage
from bot.core.language import detect_language
from bot.errors import ToolError
from bot.scheduler import OnceJob, Scheduler
from tools.context import ToolContext, format_age
from tools.dates import DATETIME_HELP, format_when, parse_datetime, pretty_local
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import Decision, Risk, Routing, tool

log = logging.getLogger(__name__)

REMINDER_KIND = "reminder"
MAX_REMINDER_CHARS = 1_000
# A tick runs every 30 s, so up to this much delay is "on time".
LATE_AFTER = timedelta(minutes=2)

Deliver = Callable[[str, OutboundMessage], Awaitable[SentMessage | None]]


def _always_notify(args: BaseModel) -> Decision:
    return Decision.NOTIFY


def _describe_set(args: BaseModel) -> str:
    return f"Set a reminder for {pretty_local(getattr(args, 'at', ''))}: “{getattr(args, 'text', '')}”"


def _describe_cancel(args: BaseModel) -> str:
    return f"Cancel the reminder {getattr(args, 'reminder_id', '')}"


class RemindersSkill(SkillPlugin):
    """Reminder tools only (used when no CalDAV server is configured)."""

    id = "tasks"
    description = "reminders at a time: set, list, cancel; they are posted into this chat"
    routing = Routing(
        overview=True,
        summary=(
            "To-do list and reminders: list pending tasks, add a to-do, remind me at a time, mark a task "
            "done, delete a task. Tareas pendientes, recordatorios, avísame."
        ),
        cues=(
            # The day's overview ("what's on tomorrow?", "qué tengo hoy?") is the calendar and the to-dos.
            r"\bwhat'?s on (?:today|tonight|tomorrow|this|for)\b",
            r"\bon (?:my|me) plate\b",  # "whats on me plate tomorrow, shifts n jobs"
            r"\bwhat(?: have i|'?ve i| do i have| i have) (?:got )?(?:on )?(?:today|tonight|tomorrow|this)\b",
            # ("n whit've a got on saturday": Scots, and a weekday.)
            r"\bwh[ai]t(?:'?ve| have) (?:i|a) got on (?:today|tonight|tomorrow|this|next|monday|tuesday|wednesday|"
            r"thursday|friday|saturday|sunday)\b",
            r"\bq(?:u[eé])? (?:tengo|me toca) (?:hoy|ma[ñn]ana|mñn|pasado|esta|este)\b",
            r"\bq(?:u[eé])? (?:tengo|me toca) el (?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|"
            r"finde)\b",
            # Asked as what is noted for a day, or how the day looks ("tengo algo pendiente para el viernes?",
            # "what does my week look like?").
            r"\btengo algo (?:apuntado |pendiente |previsto |programado |planeado |agendado )?(?:para )?(?:hoy|"
            r"ma[ñn]ana|mñn|pasado|esta (?:tarde|noche|semana)|este (?:finde|fin de semana)|el (?:lunes|martes|"
            r"mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|finde))\b",
            r"\b(?:what(?:'?s| does| is| will)|how(?:'?s| does| is| will)) my (?:day|morning|afternoon|evening|week|"
            r"weekend)(?: \w+)? look(?:s|ing)?\b",
            r"\bme (?:recuerdes|avises)\b",
            r"\bping me\b",
            # What is due, and the day or week asked for by what one has: "do I have anything due?",
            # "mañana, tengo algo?", "qué tengo pa la semana que viene?".
            r"\b(?:anything|something|stuff|what'?s|what is|what'?ve i got) due\b",
            r"\b(?:hoy|ma[ñn]ana|pasado)\W+(?:tengo|hay) algo\b",
            r"\bq(?:u[eé])? (?:tengo|me toca) para (?:hoy|ma[ñn]ana|pasado|esta|este|la semana|el finde|"
            r"el fin de semana|"
            r"el (?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo))\b",
            r"\bno se me olvide\b",
            r"\bdon'?t let me forget\b",
            # "tacha lo demás", "táchame el pan": crossed off a list.
            r"\bt[aá]ch(?:al[oa]s?|a|ame(?:l[oa]s?)?|ar)\b",
            r"\b(?:tick|cross) (?:it |that |this )?off\b",
            r"\bremind me\b",
            r"\brecu[eé]rdame\b",
            # Colombia's and Spain's "acordame", "acuérdame" (remind me), not "acordate" (remember).
            r"\bacord[aá]me\b|\bacu[eé]rdame\b",
            # "Ponme aviso dos días antes", "métele una alarma": a reminder asked for by its noun.
            r"\b(?:ponme|p[oó]nle|pon|m[eé]teme|m[eé]tele|p[oó]ngame) (?:un |una )?(?:aviso|alarma)\b",
            r"\bav[ií]same\b",
            r"\bme (?:avisas|avis[aá]s|recuerdas|record[aá]s)\b",  # "…y me avisas la noche antes"
            r"(?<!\bnever )\bmind me\b",  # Scotland's and Ireland's "remind me": "mind me at half 5 tae…"
            # "todo" unhyphenated is mostly Spanish ("lo quiero todo", "todo bien"): the English noun
            # is hyphenated, written as the list's name, or owned ("my todos"); alone it names the list.
            r"\bto-dos?\b",
            r"\bto[-\s]?do(?:-|\s+)?lists?\b",
            r"\btodos?\s+(?:app|items?)\b",
            r"\b(?:my|the|your|our|any|open|new)\s+todos?\b",
            r"\b(?:on|to|onto|in) my to do\b",
            r"^\W*to-?dos?\W*$",
            r"\b(?:add|create|make|put|set|new|another)\s+(?:a\s+|one\s+more\s+)?to[-\s]?dos?\b",
            r"\ba to[-\s]?do (?:to|for|about|that|saying)\b",
            # A list with no name of its own is the to-do or shopping list: "add rain gear + visqueen to my list".
            r"\b(?:add|put|stick|chuck|bung|pop)\b[^.?!]{1,60}?\b(?:to|on|onto) (?:my|the|our) list\b",
            r"^\W*(?:ap[uú]nt|an[oó]t)a(?:me|nos)?(?:lo|la|los|las)\W*$",
            # The same in Spanish, the list first or last: "ponme en la lista pintura y cola", "mete X a mi lista".
            r"\b(?:pon|ponme|p[oó]nme|p[oó]nmelo|a[ñn]ade|a[ñn][aá]deme|agrega|agr[eé]game|mete|m[eé]teme|ap[uú]nta(?:me)?|"
            r"an[oó]ta(?:me)?)\b[^.?!]{0,60}?\b(?:en|a) (?:la|mi|nuestra) lista\b"
            r"(?!\s+de\s+(?:invitados|reproducci[oó]n|canciones|espera|correo|distribuci[oó]n))",
            # Noted down to buy or to do: "apúntame pa comprar la tela el jueves".
            r"\b(?:ap[uú]nt|an[oó]t)a(?:me|nos)?\s+(?:pa|para|que|q)\s+(?:tengo\s+(?:que|q)\s+)?"
            r"(?:comprar|pillar|recoger|pagar|llamar|traer|llevar)\b",
            r"\btasks?\b",
            r"\btareas?\b",
            r"\bpendientes\b",
            r"\bshopping list\b",
            r"\blista de la compra\b",
            r"\breminders?\b",
            r"\brecordatorios?\b",
        ),
        examples=(
            "remind me to water the plants tonight at 9",
            "add buy batteries to my to-do list",
            "what's on my to-do list?",
            "mark the dentist task as done",
            "delete the task about the gym",
            "in 20 minutes remind me to take the pizza out",
            "what tasks are overdue?",
            "I need to renew my passport, add it as a task for next month",
            "tick off call the plumber",
            "show my pending reminders",
            "recuérdame llamar a mi madre el domingo a las 7",
            "añade comprar pan a mis tareas",
            "qué tareas tengo pendientes?",
            "avísame en una hora de sacar la ropa del tendedero",
            "marca como hecha la tarea de pagar el seguro",
            "borra la tarea de llamar al electricista",
            "apunta en pendientes renovar el dni",
            "recuérdamelo mañana a las 8",
            "ya he llamado al banco, táchalo",
            "qué me queda por hacer hoy?",
            "pendientes?",
            "ponme un recordatorio para el viernes: pagar la comunidad",
            "remind me to bring the charger before I leave at 8",
            "que no se me olvide comprar pilas al volver, avísame a las 7",
            "add bread and coffee to the shopping list",
            "put toilet paper on my shopping list",
            "apunta tomates y aguacates en la lista de la compra",
            "what's on the shopping list?",
            "qué me falta por comprar?",
            "remind me to water the plants on Sunday",
            "I need to renew my ID card, put it on my to-do list",
            "tengo que llamar al seguro, añádelo a pendientes",
        ),
    )
    needs = frozenset({Need.SCHEDULER, Need.DELIVERY})

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """Reminders are always delivered; the tools come with the tasks skill when CalDAV is on."""
        core = ctx.settings.core
        ReminderDelivery(ctx.host.deliver, language=core.language, default_zone=core.zone).install(ctx.scheduler)
        if not ctx.settings.caldav.enabled:
            ctx.add_tools(cls(ctx.scheduler))

    def __init__(self, scheduler: Scheduler) -> None:
        self._scheduler = scheduler

    @tool(risk=Risk.WRITE, policy=_always_notify, describe=_describe_set)
    async def set_reminder(
        self,
        ctx: ToolContext,
        at: Annotated[str, f"when to remind, {DATETIME_HELP}"],
        text: Annotated[str, "what to remind the user of, in their words"],
    ) -> str:
        """Remind the user at a date and time: the reminder is posted into this chat then."""
        zone = ctx.timezone
        when = parse_datetime(at, zone)
        now = ctx.now()
        if when <= now:
            raise ToolError(f"{format_when(when, zone)} has already passed (it is now "
                            f"{format_when(now, zone)} in {zone.key}): nothing was set; ask for a later time")
        words = text.strip()
        if not words:
            raise ToolError("the reminder needs a text: what should I remind the user of?")
        if len(words) > MAX_REMINDER_CHARS:
            raise ToolError(f"the reminder text is {len(words)} characters; the limit is {MAX_REMINDER_CHARS}")
        job_id = f"reminder-{uuid.uuid4().hex[:10]}"
        payload = {"text": words, "zone": zone.key, "created_at": ctx.clock.now().isoformat()}
        await self._scheduler.schedule_once(job_id, REMINDER_KIND, ctx.user_key,
                                            when.astimezone(ZoneInfo("UTC")), payload)
        return f"Reminder set for {format_when(when, zone)} ({zone.key}): “{words}” [id {job_id}]"

    @tool(risk=Risk.READ, idempotent=True)
    async def list_reminders(self, ctx: ToolContext) -> str:
        """The user's pending reminders, soonest first, with their ids."""
        jobs = await self._scheduler.pending_once(ctx.user_key, REMINDER_KIND)
        if not jobs:
            return "No pending reminders."
        lines = ["Pending reminders:"]
        for job in jobs:
            lines.append(f"- {format_when(job.run_at, ctx.timezone)}: “{job.payload.get('text', '')}” "
                         f"[id {job.job_id}]")
        return "\n".join(lines)

    @tool(risk=Risk.WRITE, policy=_always_notify, idempotent=True, describe=_describe_cancel)
    async def cancel_reminder(
        self,
        ctx: ToolContext,
        reminder_id: Annotated[str, "the reminder id shown by list_reminders"],
    ) -> str:
        """Cancel one of the user's pending reminders."""
        jobs = await self._scheduler.pending_once(ctx.user_key, REMINDER_KIND)
        job = next((j for j in jobs if j.job_id == reminder_id), None)
        if job is None:
            raise ToolError(f"no pending reminder with id {reminder_id!r}: list the reminders first")
        if not await self._scheduler.cancel_once(job.job_id):
            raise ToolError(f"the reminder {reminder_id!r} fired or was cancelled just now")
        return (f"Cancelled the reminder for {format_when(job.run_at, ctx.timezone)}: "
                f"“{job.payload.get('text', '')}”")


class ReminderDelivery:
    """The scheduler's handler for kind "reminder": posts it into the user's chat."""

    def __init__(self, deliver: Deliver, *, language: str = "auto", default_zone: ZoneInfo) -> None:
        self._deliver = deliver
        self._language = language
        self._zone = default_zone

    def install(self, scheduler: Scheduler) -> None:
        scheduler.on_once(REMINDER_KIND, self)

    async def __call__(self, job: OnceJob, late: timedelta) -> None:
        sent = await self._deliver(job.user_key, OutboundMessage(self.render(job, late), MessageKind.SCHEDULED))
        if sent is None:
            log.warning("reminder %s for %s could not be delivered: no chat known", job.job_id, job.user_key)

    def render(self, job: OnceJob, late: timedelta) -> str:
        text = str(job.payload.get("text", ""))
        lang = detect_language(text, self._language)
        zone = self._zone_of(job)
        if late <= LATE_AFTER:
            return f"⏰ {'Recordatorio' if lang == 'es' else 'Reminder'}: {text}"
        due = format_when(job.run_at, zone)
        if lang == "es":
            return (f"⏰ Recordatorio (con retraso: era para {due}, hace {format_age(late)}; "
                    f"no estaba en marcha): {text}")
        return f"⏰ Reminder (late: it was due {due}, {format_age(late)} ago, while I was offline): {text}"

    def _zone_of(self, job: OnceJob) -> ZoneInfo:
        try:
            return ZoneInfo(str(job.payload.get("zone") or self._zone.key))
        except (ZoneInfoNotFoundError, ValueError):
            return self._zone

