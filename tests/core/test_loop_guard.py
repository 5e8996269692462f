"""A model repeating the same read gets the earlier result, then is steered to answer."""

from __future__ import annotations

from pathlib import Path

from bot.clock import ManualClock
from bot.core.events import TextMessage
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings
from tools.registry import Risk, Skill, tool


class Clockwork(Skill):
    id = "clockwork"
    description = "the time, counted"

    def __init__(self) -> None:
        self.reads = 0
        self.writes = 0

    @tool(risk=Risk.READ)
    async def clock_reading(self, zone: str = "local") -> str:
        """The time on the wall clock."""
        self.reads += 1
        return "09:00"

    @tool(risk=Risk.WRITE)
    async def ring(self) -> str:
        """Ring the bell."""
        self.writes += 1
        return "rang"


async def test_repeated_read_runs_once_then_the_turn_must_answer(tmp_path: Path, db: Database,
                                                                 clock: ManualClock, model: ScriptedModel) -> None:
    skill = Clockwork()
    assistant, messenger = await build_assistant(make_settings(tmp_path, model.base_url), db, clock, skills=[skill])
    for _ in range(3):
        model.call("clock_reading")
    model.respond("It is 09:00.")
    await assistant.handle(TextMessage(OWNER, "what time is it?"))
    assert skill.reads == 1
    assert messenger.texts[-1] == "It is 09:00."
    second, third = (model.requests[i]["messages"][-1]["content"] for i in (2, 3))
    assert second.startswith("09:00") and "not run again" in second and "not run again" in third
    # Until the second repeat the model keeps every tool; after it, only the answer.
    assert "clock_reading" in model.tool_names(2)
    assert model.tool_names(3) == ["respond"] and model.requests[3]["tool_choice"] == "required"
    rows = await db.fetchall("SELECT tool FROM tool_calls")
    assert [r["tool"] for r in rows] == ["clock_reading"]


async def test_different_arguments_and_writes_are_not_deduplicated(tmp_path: Path, db: Database,
                                                                   clock: ManualClock, model: ScriptedModel) -> None:
    skill = Clockwork()
    assistant, _ = await build_assistant(make_settings(tmp_path, model.base_url), db, clock, skills=[skill])
    model.call("ring")
    model.call("ring")
    model.call("clock_reading")
    model.call("clock_reading", zone="UTC")
    model.respond("Rang twice; it is 09:00.")
    await assistant.handle(TextMessage(OWNER, "ring twice and tell me the time"))
    assert skill.writes == 2 and skill.reads == 2
