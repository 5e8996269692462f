"""Notifications other systems push in (a site went down, a container was updated):
stored per source, listed and summarised for the owner and the morning briefing.

Each notification gets a status — problem, recovered or info — from its own `status`
field or, failing that, from words in its title and message ("down", "back up",
"resolved"…), and a subject (what it is about) so the summary can say what is still
down. Their text is written by other systems (or whoever holds the token), so the
tools are `untrusted_output`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import Field

from bot.clock import Clock
from bot.config import Settings
from bot.errors import ToolError
from memory.db import Database
from tools.context import ToolContext
from tools.notifications import SOURCE_PATTERN, Notification
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import Risk, Routing, tool
from tools.text import one_line

TITLE_CHARS = 300
MESSAGE_CHARS = 8_000
PRUNE_EVERY = timedelta(hours=1)
_WORDS = re.compile(r"[\w.:/-]+", re.UNICODE)
_PROBLEM = frozenset({
    "down", "error", "errors", "failed", "failure", "failing", "critical", "firing", "problem", "alert",
    "unhealthy", "offline", "unreachable", "outage", "crashed", "timeout", "caída", "caido", "caído",
    "fallo", "fallido", "🔴", "❌", "🚨",
})
# A sender's explicit status field may say just "up"; free text needs clearer words ("is up", "back up").
_RECOVERED_STATUS = frozenset({"up", "ok", "resolved", "recovered", "healthy", "online", "restored", "success",
                               "succeeded", "back", "normal", "green"})
_RECOVERED_WORDS = frozenset({"ok", "resolved", "recovered", "restored", "healthy", "online", "recuperado",
                              "resuelto", "✅", "🟢"})
_RECOVERED_PHRASE = re.compile(r"\b(back (up|online)|is up|recovered|resolved|restored|de nuevo)\b")
# Words that only say something about the status, dropped when guessing the subject.
_FILLER = frozenset({"is", "was", "went", "now", "again", "has", "been", "the", "está", "esta", "ha", "vuelto",
                     "de", "nuevo", "status", "up", "back"}) | _PROBLEM | _RECOVERED_WORDS


class NotificationStatus(StrEnum):
    PROBLEM = "problem"
    RECOVERED = "recovered"
    INFO = "info"


@dataclass(frozen=True)
class StoredNotification:
    id: int
    source: str
    title: str
    message: str
    status: NotificationStatus
    subject: str
    priority: int | None
    tags: tuple[str, ...]
    url: str | None
    received_at: datetime


def classify(status: str | None, title: str, message: str, tags: Sequence[str] = ()) -> NotificationStatus:
    """The sender's own status when it says one; otherwise the first status word in the text."""
    if status:
        word = status.strip().lower()
        if word in _PROBLEM or word in {"warning", "warn", "degraded", "fail"}:
            return NotificationStatus.PROBLEM
        if word in _RECOVERED_STATUS:
            return NotificationStatus.RECOVERED
        return NotificationStatus.INFO
    text = f"{title} {message} {' '.join(tags)}".lower()
    if _RECOVERED_PHRASE.search(text):
        return NotificationStatus.RECOVERED
    symbols = [ch for ch in text if not ch.isascii() and ch in _PROBLEM | _RECOVERED_WORDS]
    for word in _WORDS.findall(text) + symbols:
        if word in _PROBLEM:
            return NotificationStatus.PROBLEM
        if word in _RECOVERED_WORDS:
            return NotificationStatus.RECOVERED
    return NotificationStatus.INFO


def guess_subject(title: str, message: str) -> str:
    """What the notification is about: its title (or message start) without status words."""
    base = title or message
    kept = [w for w in base.split()
            if w.lower().strip("[]():!.,") not in _FILLER and any(ch.isalpha() for ch in w)]
    return one_line(" ".join(kept[:8]) or base, 80)


class InboxSkill(SkillPlugin):
    id = "inbox"
    description = (
        "notifications pushed in by other systems (monitors, servers, containers, CI): "
        "what came in, from which source, and a summary of what is still wrong"
    )
    routing = Routing(
        summary=(
            "Notifications pushed in by other systems through a webhook (server alerts, Uptime Kuma, backups,"
            " Watchtower container updates, home automation): what came in, summarise alerts. Notificaciones,"
            " alertas."
        ),
        cues=(
            r"\balerts?\b",
            r"\balertas?\b",
            r"\bnotifications?\b",
            r"\bnotificaciones\b",
            r"\buptime kuma\b",
            r"\bwatchtower\b",
            r"\bbackups?\b",
            r"\bwebhook",
            # Sensors report through the inbox: "anything from the trough sensors?", "el sensor de las tinas".
            r"\bsensor(?:es|s)?\b",
            r"\b(?:data ?)?loggers?\b",  # "anything from the vaccine fridge logger?"
            # What a booking system pushed: "has anything come in from the booking site?".
            r"\b(?:booking|reservation|reservas?)\s+(?:site|system|platform|app|web|sistema|plataforma)\b",
            # A booking the user's own site took: "si entró alguna reserva nueva de la página", "bookings off the site".
            r"\breservas?\b(?:\s+\w+){0,2}\s+(?:de|desde|por|en)\s+(?:la|mi)\s+(?:p[aá]gina|web)\b|"
            r"\b(?:bookings?|reservations?)\b(?:\s+\w+){0,2}\s+(?:from|off|through|via|on)\s+(?:the|my)\s+"
            r"(?:site|website|web\s?page)\b",
            # What a CRM pushed, or a device the user names: "lo que ha entrado por el CRM", "anything from the
            # camera?".
            r"\bcrm\b",
            # Orders an online shop pushed: "resúmame los pedidos que entraron por la tienda en línea".
            r"\b(?:tienda (?:en l[ií]nea|online|virtual|web)|online (?:shop|store)|web ?(?:shop|store)|shopify|etsy)\b",
            # What a web form sent: "las inscripciones que han llegado por el formulario de la web".
            r"\bformulario (?:de la web|web|online|de (?:inscripci[oó]n|contacto|reservas?))\b|"
            r"\b(?:web|online|sign-?up|contact|booking) forms?\b",
            r"\b(?:controlador|controller|termostato|thermostat|inversor|inverter)\b",
            r"\b(?:from|de|del) (?:the|my|la|mi|el) (?:c[aá]mara|camera|cam|doorbell|timbre|alarma|alarm)\b",
            # What the house's devices push: "anything from the doorbell camera?", "saltó la alarma?".
            r"\b(?:doorbell|door\s+camera|security\s+camera|cctv|smoke\s+alarm|motion\s+sensor|timbre|"
            r"c[aá]mara\s+(?:de\s+la\s+puerta|de\s+seguridad)|sensor\s+de\s+movimiento)\b",
            # What the monitored systems sent: "qué ha llegado de los servidores", "anything from the servers?".
            r"\b(?:de|from) (?:los |the |my |mis )?(?:sistemas|systems|servers?|servidores|monitori[sz]ing|"
            r"monitorizaci[oó]n)\b",
            # A camera by the room or spot it watches: "¿algo en la cámara del garaje?", "the garden cam".
            r"\bc[aá]maras?\s+(?:del?|de\s+la)\s+(?:sal[oó]n|entrada|garaje|jard[ií]n|cocina|patio|porche|pasillo|"
            r"terraza|cuarto|habitaci[oó]n|beb[eé])\b",
            r"\b(?:living[- ]room|garden|garage|front[- ]door|back[- ]door|porch|driveway|nursery|baby|hallway|"
            r"kitchen|yard|pet)\s+cam(?:era)?s?\b",
        ),
        examples=(
            "any notifications?",
            "what alerts came in overnight?",
            "did the server send any alert?",
            "summarise the notifications from today",
            "is anything down according to Uptime Kuma?",
            "did the backup finish? any notification?",
            "which containers did Watchtower update?",
            "what did home assistant push?",
            "hay notificaciones nuevas?",
            "ha llegado alguna alerta del servidor?",
            "resúmeme las alertas de hoy",
            "algo caído según uptime kuma?",
            "terminó bien la copia de seguridad de anoche?",
            "qué ha avisado el home assistant?",
            "notificaciones?",
            "se ha actualizado algún contenedor?",
        ),
    )

    settings_section = "inbox"
    needs = frozenset({Need.DATABASE, Need.CLOCK, Need.BRIEFING})

    @classmethod
    def unconfigured(cls, settings: Settings) -> str | None:
        return None if settings.inbox.enabled else "the endpoint is off: set INBOX_ENABLED=true and INBOX_TOKEN"

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """The tools, the HTTP endpoint other systems push to, and the briefing's inbox section."""
        from bot.inbox_server import InboxServer  # aiohttp: only when the inbox is on

        inbox = cls(ctx.db, ctx.clock, keep_days=ctx.settings.inbox.keep_days)
        ctx.add_tools(inbox)
        ctx.add_service(InboxServer(inbox, ctx.settings.inbox))
        ctx.add_briefing_section("Inbox", inbox.briefing_section)

    def __init__(self, db: Database, clock: Clock, *, keep_days: int = 30) -> None:
        self._db = db
        self._clock = clock
        self._keep = timedelta(days=keep_days)
        self._pruned_at: datetime | None = None

    # -- storing ----------------------------------------------------------------------
    async def receive(self, notification: Notification) -> int:
        """Store one notification; returns its id. Old ones (beyond keep_days) go."""
        if not SOURCE_PATTERN.match(notification.source):
            raise ToolError(f"invalid source name {notification.source!r}: letters, digits, '.', '_' or '-'")
        title = one_line(notification.title, TITLE_CHARS)
        message = notification.message.strip()[:MESSAGE_CHARS]
        if not title and not message:
            raise ToolError("a notification needs a message or a title")
        status = classify(notification.status, title, message, notification.tags)
        subject = one_line(notification.subject, 120) if notification.subject else guess_subject(title, message)
        now = self._clock.now()
        new_id = await self._db.execute(
            "INSERT INTO inbox_notifications(source, title, message, status, subject, priority, tags, url,"
            " received_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (notification.source, title, message, status.value, subject, notification.priority,
             json.dumps(list(notification.tags), ensure_ascii=False), notification.url, now.isoformat()),
        )
        if self._pruned_at is None or now - self._pruned_at >= PRUNE_EVERY:
            self._pruned_at = now
            await self._db.execute("DELETE FROM inbox_notifications WHERE received_at < ?",
                                   ((now - self._keep).isoformat(),))
        return new_id

    async def since(self, start: datetime, *, source: str | None = None,
                    limit: int | None = None) -> list[StoredNotification]:
        rows = await self._db.fetchall(
            "SELECT * FROM inbox_notifications WHERE received_at >= ? AND (? IS NULL OR source = ?)"
            " ORDER BY received_at DESC, id DESC LIMIT ?",
            (start.isoformat(), source, source, limit if limit is not None else -1),
        )
        return [_row(row) for row in rows]

    async def summarise(self, start: datetime, zone: ZoneInfo, *, source: str | None = None) -> str | None:
        """Per source: how many, how many problems and recoveries, and what is still wrong."""
        items = await self.since(start, source=source)
        if not items:
            return None
        by_source: dict[str, list[StoredNotification]] = {}
        for item in reversed(items):  # oldest first, so the last status per subject wins
            by_source.setdefault(item.source, []).append(item)
        lines = []
        for name, group in sorted(by_source.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            counts = Counter(item.status for item in group)
            parts = []
            if counts[NotificationStatus.PROBLEM]:
                parts.append(f"{counts[NotificationStatus.PROBLEM]} problem (down/failed)")
            if counts[NotificationStatus.RECOVERED]:
                parts.append(f"{counts[NotificationStatus.RECOVERED]} recovered (back up/resolved)")
            if counts[NotificationStatus.INFO]:
                parts.append(f"{counts[NotificationStatus.INFO]} other")
            latest: dict[str, StoredNotification] = {}
            first_problem: dict[str, StoredNotification] = {}
            for item in group:
                if item.status is NotificationStatus.INFO:
                    continue
                latest[item.subject] = item
                if item.status is NotificationStatus.PROBLEM:
                    first_problem.setdefault(item.subject, item)
                else:
                    first_problem.pop(item.subject, None)
            still = [s for s, item in latest.items() if item.status is NotificationStatus.PROBLEM]
            line = f"- {name}: {len(group)} notification(s): {', '.join(parts)}."
            if counts[NotificationStatus.PROBLEM] or counts[NotificationStatus.RECOVERED]:
                if still:
                    shown = ", ".join(
                        f"{subject} (since {first_problem[subject].received_at.astimezone(zone):%a %H:%M})"
                        for subject in still[:10])
                    more = f" and {len(still) - 10} more" if len(still) > 10 else ""
                    line += f" Still wrong: {shown}{more}."
                else:
                    line += " Nothing is still down."
            newest = group[-1]
            line += f" Latest ({newest.received_at.astimezone(zone):%a %H:%M}): {_headline(newest)}"
            lines.append(line)
        total = len(items)
        head = f"{total} notification(s) from {len(by_source)} source(s):"
        return "\n".join([head, *lines])

    async def briefing_section(self, user_key: str, now: datetime) -> str | None:
        """The morning briefing's inbox part: the last 24 hours, or None when nothing came in."""
        zone = now.tzinfo if isinstance(now.tzinfo, ZoneInfo) else ZoneInfo("UTC")
        summary = await self.summarise(now - timedelta(hours=24), zone)
        return None if summary is None else "Inbox (last 24 h): " + summary

    # -- tools ------------------------------------------------------------------------
    @tool(risk=Risk.READ, untrusted_output=True)
    async def inbox_summary(
        self,
        ctx: ToolContext,
        hours: Annotated[int, Field(ge=1, le=24 * 30, description="how far back to look")] = 24,
        source: Annotated[str | None, Field(description="only this source")] = None,
    ) -> str:
        """Summarise pushed notifications per source: counts, problems, recoveries, what is still down."""
        summary = await self.summarise(self._clock.now() - timedelta(hours=hours), ctx.timezone, source=source)
        if summary is None:
            return f"No notifications in the last {hours} h" + (f" from {source}." if source else ".") + \
                await self._sources_note()
        return f"Last {hours} h. " + summary

    @tool(risk=Risk.READ, untrusted_output=True)
    async def inbox_list(
        self,
        ctx: ToolContext,
        hours: Annotated[int, Field(ge=1, le=24 * 30, description="how far back to look")] = 24,
        source: Annotated[str | None, Field(description="only this source")] = None,
        only_problems: Annotated[bool, Field(description="only problems (down, failed, errors)")] = False,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
    ) -> str:
        """List pushed notifications, newest first (optionally one source, or only problems)."""
        start = self._clock.now() - timedelta(hours=hours)
        items = await self.since(start, source=source)
        if only_problems:
            items = [item for item in items if item.status is NotificationStatus.PROBLEM]
        if not items:
            return f"No matching notifications in the last {hours} h." + await self._sources_note()
        lines = [f"{len(items)} notification(s) in the last {hours} h; newest {min(limit, len(items))}:"]
        for item in items[:limit]:
            extra = f" · {item.url}" if item.url else ""
            lines.append(f"- #{item.id} · {item.received_at.astimezone(ctx.timezone):%a %H:%M} · {item.source}"
                         f" · {item.status.value} · {_headline(item)}{extra}")
        return "\n".join(lines)

    async def _sources_note(self) -> str:
        rows = await self._db.fetchall(
            "SELECT source, COUNT(*) AS n, MAX(received_at) AS last FROM inbox_notifications GROUP BY source"
            " ORDER BY last DESC LIMIT 10")
        if not rows:
            return " Nothing has ever been pushed to the inbox."
        return " Known sources: " + ", ".join(f"{r['source']} ({r['n']})" for r in rows) + "."


def _headline(item: StoredNotification) -> str:
    if item.title and item.message:
        return f"{item.title} — {one_line(item.message, 160)}"
    return one_line(item.title or item.message, 200)


def _row(row: Any) -> StoredNotification:
    return StoredNotification(
        id=row["id"],
        source=row["source"],
        title=row["title"],
        message=row["message"],
        status=NotificationStatus(row["status"]),
        subject=row["subject"],
        priority=row["priority"],
        tags=tuple(json.loads(row["tags"])),
        url=row["url"],
        received_at=datetime.fromisoformat(row["received_at"]),
    )
