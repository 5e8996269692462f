"""To-dos as CalDAV VTODOs (list, create, complete, delete) plus the reminder tools."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated
from zoneinfo import ZoneInfo

from pydantic import BaseModel

from bot.config import Settings
from bot.errors import ToolError
from bot.scheduler import Scheduler
from tools.context import ToolContext
from tools.dates import WHEN_HELP, format_when, parse_when, pretty_local
from tools.plugin import Need, SkillContext
from tools.registry import Risk, tool
from tools.skills.agenda import calendar_store
from tools.skills.reminders import RemindersSkill

if TYPE_CHECKING:  # caldav and icalendar load only when a calendar is configured
    from tools.caldav import CalDAVStore, TodoItem

MAX_LISTED = 100

TaskId = Annotated[str, "the task id shown by list_tasks"]


def _describe_delete(args: BaseModel) -> str:
    return f"Delete the task “{getattr(args, 'title', '')}” [id {getattr(args, 'task_id', '')}]"


def _describe_create(args: BaseModel) -> str:
    due = getattr(args, "due", None)
    return f"Add the task “{getattr(args, 'title', '')}”" + (f" (due {pretty_local(due)})" if due else "")


def _describe_complete(args: BaseModel) -> str:
    return f"Mark the task {getattr(args, 'task_id', '')} as done"


class TasksSkill(RemindersSkill):
    id = "tasks"
    description = "to-dos (list, create, complete, delete) and reminders at a time posted into this chat"
    settings_section = "caldav"
    needs = frozenset({Need.SCHEDULER, Need.BRIEFING})

    @classmethod
    def unconfigured(cls, settings: Settings) -> str | None:
        if settings.caldav.enabled:
            return None
        return "no calendar server for to-dos: set CALDAV_URL (reminders work without it)"

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        store = calendar_store(ctx)
        ctx.add_tools(cls(store, ctx.scheduler))
        name = "Tareas" if ctx.language == "es" else "Tasks"
        ctx.add_briefing_section(name, TasksSection(store, ctx.settings.core.zone, ctx.language))

    def __init__(self, caldav: CalDAVStore, scheduler: Scheduler) -> None:
        super().__init__(scheduler)
        self._caldav = caldav

    # Shared task lists carry other people's text.
    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def list_tasks(
        self,
        ctx: ToolContext,
        include_completed: Annotated[bool, "also list completed tasks"] = False,
    ) -> str:
        """The user's to-do list (open tasks by default), soonest due first, with ids."""
        zone = ctx.timezone
        items = await self._caldav.todos(zone, include_completed=include_completed)
        if not items:
            return "No tasks." if include_completed else "No open tasks."
        now = ctx.now()
        lines = ["Tasks:" if include_completed else "Open tasks:"]
        lines += [task_line(item, zone, now) for item in items[:MAX_LISTED]]
        if len(items) > MAX_LISTED:
            lines.append(f"… and {len(items) - MAX_LISTED} more.")
        return "\n".join(lines)

    @tool(risk=Risk.WRITE, describe=_describe_create)
    async def create_task(
        self,
        ctx: ToolContext,
        title: Annotated[str, "what has to be done"],
        due: Annotated[str | None, f"when it is due, {WHEN_HELP}"] = None,
        notes: Annotated[str, "extra details"] = "",
    ) -> str:
        """Add a task to the user's to-do list (optionally with a due date or time)."""
        zone = ctx.timezone
        if not title.strip():
            raise ToolError("the task needs a title")
        due_value = parse_when(due, zone) if due else None
        item = await self._caldav.add_todo(title.strip(), zone, due=due_value, notes=notes.strip())
        return f"Added task: {task_line(item, zone, ctx.now())}"

    @tool(risk=Risk.WRITE, idempotent=True, describe=_describe_complete)
    async def complete_task(self, ctx: ToolContext, task_id: TaskId) -> str:
        """Mark a task as done."""
        item = await self._caldav.complete_todo(task_id, ctx.timezone)
        if not item.completed:
            due = f"; next due {format_when(item.due, ctx.timezone)}" if item.due is not None else ""
            return f"Completed this time: “{item.title}” repeats{due}."
        return f"Completed: “{item.title}”."

    @tool(risk=Risk.DESTRUCTIVE, describe=_describe_delete)
    async def delete_task(
        self,
        ctx: ToolContext,
        task_id: TaskId,
        title: Annotated[str, "the task's title, as listed (shown to the user for approval)"],
    ) -> str:
        """Delete a task (to mark it done, use complete_task); the user approves seeing its title."""
        stored = await self._caldav.todo(task_id, ctx.timezone)
        if " ".join(title.split()).casefold() != " ".join(stored.title.split()).casefold():
            raise ToolError(f"task {task_id} is “{stored.title}”, not “{title}” as approved; "
                            "nothing was deleted: list the tasks again")
        deleted = await self._caldav.delete_todo(task_id, ctx.timezone)
        return f"Deleted the task “{deleted.title}”."


def task_line(item: TodoItem, zone: ZoneInfo, now: datetime) -> str:
    """One listing line: title, due (overdue flagged), id; used by the briefing too."""
    parts = [f"“{item.title}”"]
    if item.due is not None:
        due = f"due {format_when(item.due, zone)}"
        if not item.completed and is_overdue(item, now.astimezone(zone)):
            due += " (overdue)"
        parts.append(due)
    if item.completed:
        parts.append("done")
    parts.append(f"id: {item.uid}")
    return "- " + " · ".join(parts)


def is_overdue(item: TodoItem, local_now: datetime) -> bool:
    if item.due is None:
        return False
    if isinstance(item.due, datetime):
        return item.due < local_now
    return item.due < local_now.date()


BRIEFING_TASKS_SHOWN = 10


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
