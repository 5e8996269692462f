"""The console adapter driven line by line, against the scripted model."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

from bot.adapters.console import ConsoleAdapter
from bot.clock import ManualClock
from bot.core.assistant import Assistant, CoreDeps
from bot.llm import ModelClient
from memory.db import Database
from tests.core.test_turn import Pantry
from tests.scripted_model import ScriptedModel
from tests.support import make_settings
from tools.registry import ToolRegistry
from tools.skills.core import CoreSkill


async def _console(tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel
                   ) -> tuple[ConsoleAdapter, io.StringIO, Pantry]:
    settings = make_settings(tmp_path, model.base_url)
    registry = ToolRegistry()
    registry.add_skill(CoreSkill())
    pantry = Pantry()
    registry.add_skill(pantry)
    assistant = Assistant(CoreDeps(settings=settings, db=db, clock=clock,
                                   model=ModelClient(settings.llm, db, clock), registry=registry))
    out = io.StringIO()
    console = ConsoleAdapter(assistant, clock, lines=_no_lines(), out=out)
    assistant.add_messenger(console)
    return console, out, pantry


async def _no_lines():  # type: ignore[no-untyped-def]
    return
    yield ""


async def _settle(console: ConsoleAdapter) -> None:
    for _ in range(200):
        if not console._turns:
            return
        await asyncio.sleep(0.02)


async def _wait_for(out: io.StringIO, text: str) -> None:
    for _ in range(250):
        if text in out.getvalue():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{text!r} never printed; got:\n{out.getvalue()}")


async def test_console_session_with_tool_approval_and_correction(tmp_path: Path, db: Database,
                                                                 clock: ManualClock, model: ScriptedModel) -> None:
    console, out, pantry = await _console(tmp_path, db, clock, model)
    model.call("remove_item", item="milk")
    model.respond("Done! Anything else?")  # claims nothing specific: passes (write succeeded)
    await console.feed("remove the milk please")
    await _wait_for(out, "Approve? [y/n]")
    assert "Remove 'milk' from the pantry list" in out.getvalue()
    await console.feed("maybe")  # neither yes nor no: asked again, nothing decided
    await _wait_for(out, "answer y or n first")
    await console.feed("y")
    await _settle(console)
    text = out.getvalue()
    assert "✅ Approved" in text and "Done! Anything else?" in text
    assert pantry.items == []


async def test_console_denial_and_location_pin(tmp_path: Path, db: Database, clock: ManualClock,
                                               model: ScriptedModel) -> None:
    console, out, pantry = await _console(tmp_path, db, clock, model)
    model.call("remove_item", item="milk")
    model.respond("OK, I did not remove it.")
    await console.feed("remove the milk")
    await _wait_for(out, "Approve? [y/n]")
    await console.feed("no")
    await _settle(console)
    assert pantry.items == ["milk"] and "❌ Denied" in out.getvalue()
    await console.feed("/pin 40.4168 -3.7038")
    await console.feed("/pin somewhere")
    await console.feed("/location")
    await _settle(console)
    text = out.getvalue()
    assert "Usage: /pin" in text and "40.41680, -3.70380" in text
    assert len(model.requests) == 2  # the pin and /location never reached the model


async def test_console_approval_expires(tmp_path: Path, db: Database, clock: ManualClock,
                                        model: ScriptedModel) -> None:
    console, out, pantry = await _console(tmp_path, db, clock, model)
    model.call("remove_item", item="milk")
    model.respond("The approval expired, so I did not remove it.")
    await console.feed("remove the milk")
    await _wait_for(out, "Approve? [y/n]")
    await clock.advance(301)
    await _settle(console)
    assert "⌛ Expired" in out.getvalue() and pantry.items == ["milk"]


async def test_end_of_input_cancels_a_pending_approval(tmp_path: Path, db: Database, clock: ManualClock,
                                                        model: ScriptedModel) -> None:
    console, out, pantry = await _console(tmp_path, db, clock, model)
    model.call("remove_item", item="milk")
    await console.feed("remove the milk")
    await _wait_for(out, "Approve? [y/n]")
    await asyncio.wait_for(console.close(), 5)
    assert "pending approvals are cancelled" in out.getvalue()
    assert pantry.items == ["milk"]
    row = await db.fetchone("SELECT status FROM approvals")
    assert row["status"] == "cancelled"


async def test_console_prints_code_receipts_under_the_answer(tmp_path: Path, db: Database, clock: ManualClock,
                                                             model: ScriptedModel) -> None:
    console, out, pantry = await _console(tmp_path, db, clock, model)
    model.call("remove_item", item="milk")
    model.respond("Listo, ¿algo más?")
    await console.feed("quita la leche: milk")
    await _wait_for(out, "Approve? [y/n]")
    await console.feed("s")
    await _settle(console)
    lines = out.getvalue().splitlines()
    answer = lines.index("mayordomo> Listo, ¿algo más?")
    assert lines[answer + 1] == "  ✅ Borrar milk (remove_item): hecho"
    assert pantry.items == []


async def test_console_always_answer_grants_and_a_pin_is_confirmed_once(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    console, out, pantry = await _console(tmp_path, db, clock, model)
    pantry.items = ["milk", "eggs"]
    model.call("remove_item", item="milk")
    model.respond("Removed.")
    await console.feed("remove the milk")
    await _wait_for(out, "Approve? [y/n]")  # the prompt line scripts read is unchanged
    assert "(or a = ♾️ Always: remove_item with any arguments)" in out.getvalue()
    await console.feed("a")
    await _settle(console)
    assert pantry.items == ["eggs"] and "From now on I won't ask before: remove_item" in out.getvalue()

    model.call("remove_item", item="eggs")
    model.respond("Removed the eggs too.")
    await console.feed("remove the eggs")
    await _settle(console)
    assert pantry.items == [] and out.getvalue().count("Approve? [y/n]") == 1
    assert "standing permission" in out.getvalue()

    await console.feed("/pin 40.4168 -3.7038")
    await _settle(console)
    assert out.getvalue().count("📍") == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


async def test_console_renders_markdown_in_a_terminal_and_help_lists_every_command(
        tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel) -> None:
    console, _, _ = await _console(tmp_path, db, clock, model)
    terminal = _Terminal()
    rendered = ConsoleAdapter(console._assistant, clock, lines=_no_lines(), out=terminal)
    console._assistant.add_messenger(rendered)
    model.respond("**Hola**, puedo ayudarte con:\n\n- tu `agenda`")
    await rendered.feed("hola, ¿qué sabes hacer?")
    await _settle(rendered)
    await rendered.feed("/help")
    await _settle(rendered)
    raw = terminal.getvalue()
    assert "\x1b[1mHola\x1b[0m" in raw  # bold, as a terminal shows it
    text = re.sub(r"\x1b\[[0-9;]*m", "", raw)
    assert "Hola" in text and "**" not in text and "`" not in text and "• tu agenda" in text
    for command in ("/pin", "/permissions", "/location", "/reset", "/help"):
        assert command in text, command


async def test_quit_ends_the_session_and_nothing_after_it_is_read(tmp_path: Path, db: Database,
                                                                   clock: ManualClock, model: ScriptedModel) -> None:
    console, out, _ = await _console(tmp_path, db, clock, model)
    read: list[str] = []

    async def lines():  # type: ignore[no-untyped-def]
        for line in ("/help\n", " /QUIT \n", "never read\n"):
            read.append(line)
            yield line

    console._lines = lines()
    await asyncio.wait_for(console.run(), 5)
    assert read == ["/help\n", " /QUIT \n"]
    assert "Unknown command" not in out.getvalue()
    row = await db.fetchone("SELECT COUNT(*) AS n FROM messages WHERE content = 'never read'")
    assert row["n"] == 0
