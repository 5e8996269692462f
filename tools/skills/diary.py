"""Skill `diary`: read and search the nightly diary."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

from bot.core.events import MessageKind, OutboundMessage
from bot.errors import ConfigError, ToolError
from memory.diary import DiaryOutcome, DiaryResult, DiaryStatus
from memory.service import MemoryService
from tools.context import ToolContext
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import Risk, Routing, tool

if TYPE_CHECKING:
    from bot.core.assistant import Assistant


class DiarySkill(SkillPlugin):
    id = "diary"
    description = "read and search the user's nightly diary"
    routing = Routing(
        summary=(
            "The nightly diary written by the assistant: read the entry of a day, search the diary, how the "
            "user felt over a period according to the diary. Diario."
        ),
        cues=(
            r"\bdiary\b",
            r"\bdiario\b",
        ),
        examples=(
            "read me today's diary entry",
            "what does the diary say about last Friday?",
            "search my diary for mentions of the trip",
            "how have I been feeling this month according to the diary?",
            "what did you write in the diary yesterday?",
            "léeme la entrada del diario de ayer",
            "qué dice el diario del lunes?",
            "busca en el diario cuándo hablé de mi abuelo",
            "según el diario, qué tal he estado de ánimo esta semana?",
            "enséñame el diario del fin de semana",
            "qué escribiste anoche en el diario?",
            "y la entrada de antes?",
        ),
    )

    settings_section = "memory"
    needs = frozenset({Need.MEMORY, Need.SCHEDULER, Need.DELIVERY})

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """Tools to read the diary, and the nightly job that writes and posts it."""
        service = ctx.memory
        if service is None:
            raise ConfigError("the diary skill needs the memory service in its context")
        ctx.add_tools(cls(service))
        host = ctx.host

        async def diary_job(fired_at: datetime) -> None:
            await post_diaries(service, host, fired_at)

        memory = ctx.settings.memory
        ctx.add_daily_job("memory-diary", memory.diary_hour, memory.diary_minute, diary_job)

    def __init__(self, service: MemoryService) -> None:
        self._service = service

    @tool(risk=Risk.READ, idempotent=True)
    async def diary_read(self, ctx: ToolContext, day: Annotated[date, "the day, YYYY-MM-DD"]) -> str:
        """The diary entry of one day."""
        entry = await self._service.diary.get(ctx.user_key, day)
        if entry is None:
            return f"No diary entry for {day} (not written yet, or forgotten)."
        return entry.render()

    @tool(risk=Risk.READ, idempotent=True)
    async def diary_list(self, ctx: ToolContext, start: Annotated[date, "first day"],
                         end: Annotated[date, "last day"]) -> str:
        """List the diary days in a range with their mood and tags."""
        if end < start or end - start > timedelta(days=366):
            raise ToolError("give a range of at most a year, start before end")
        entries = await self._service.diary.between(ctx.user_key, start, end)
        if not entries:
            return "No diary entries in that range."
        return "\n".join(
            f"{e.day}: " + ("nothing worth writing" if e.status is DiaryStatus.NOTHING else
                            f"mood {e.mood.value if e.mood else '?'}; {', '.join(e.tags)}; {e.narrative[:120]}")
            for e in entries)

    @tool(risk=Risk.READ)
    async def diary_search(self, ctx: ToolContext, query: Annotated[str, "words to look for"]) -> str:
        """Search the diary by words."""
        entries = await self._service.diary.search(ctx.user_key, query)
        if not entries:
            return "No diary entry matches."
        return "\n\n".join(entry.render() for entry in entries)


async def post_diaries(service: MemoryService, assistant: Assistant, fired_at: datetime) -> list[DiaryResult]:
    """The nightly job: write each user's entry for the day and post it; a skipped day posts nothing."""
    day = service.diary_day(fired_at)
    results = []
    for user_key in await service.users():
        result = await service.write_diary(user_key, day)
        results.append(result)
        if result.outcome is DiaryOutcome.WRITTEN and result.entry is not None:
            await assistant.deliver(user_key, OutboundMessage(result.entry.render(), MessageKind.SCHEDULED))
    return results
