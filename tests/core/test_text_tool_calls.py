"""Tool calls a model writes as text run through the same policy, approvals and honesty check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.config import NotesSettings
from bot.core.events import MessageKind, TextMessage
from bot.core.textcalls import parse_text_calls
from memory.db import Database
from tests.scripted_model import ScriptedModel
from tests.support import OWNER, build_assistant, make_settings
from tools.skills.notes import NotesSkill

KNOWN = {"notes_append", "respond"}


def _hermes(name: str, **arguments: object) -> str:
    return f'<tool_call>\n{json.dumps({"name": name, "arguments": arguments})}\n</tool_call>'


def test_parses_hermes_bare_and_fenced_calls_to_known_tools_only() -> None:
    hermes = parse_text_calls("Sure.\n" + _hermes("notes_append", path="a.md", text="x")
                              + _hermes("rm_rf", path="/"), KNOWN, 1)
    assert hermes is not None and [c.name for c in hermes.calls] == ["notes_append"]
    assert json.loads(hermes.calls[0].arguments) == {"path": "a.md", "text": "x"} and hermes.text == "Sure."
    bare = parse_text_calls('{"name": "notes_append", "parameters": {"path": "a.md", "text": "y"}}', KNOWN, 2)
    assert bare is not None and json.loads(bare.calls[0].arguments)["text"] == "y"
    fenced = parse_text_calls('```json\n[{"name": "respond", "arguments": "{\\"text\\": \\"ok\\"}"}]\n```', KNOWN, 3)
    assert fenced is not None and fenced.calls[0].name == "respond"
    unclosed = parse_text_calls('<tool_call>{"name": "respond", "arguments": {"text": "hi"}}', KNOWN, 4)
    assert unclosed is not None and unclosed.calls[0].name == "respond"
    assert parse_text_calls('I like {"name": "unknown"} and {broken', KNOWN, 5) is None
    assert parse_text_calls("No tools here.", KNOWN, 6) is None


@pytest.fixture
async def notes_setup(tmp_path: Path, db: Database, clock: ManualClock, model: ScriptedModel):
    vault = tmp_path / "vault"
    vault.mkdir()
    skill = NotesSkill(NotesSettings(_env_file=None, folder=vault))  # type: ignore[call-arg]
    # 127.0.0.1 makes the profile local, where text tool calls are on by default.
    settings = make_settings(tmp_path, model.base_url, core={"language": "en"})
    assert settings.llm.local and settings.llm.parse_text_tool_calls
    assistant, messenger = await build_assistant(settings, db, clock, skills=[skill])
    return assistant, messenger, vault


async def test_hermes_call_appends_a_note_with_notice_and_verified_answer(notes_setup, model: ScriptedModel,
                                                                          db: Database) -> None:
    assistant, messenger, vault = notes_setup
    model.say("I'll add it.\n" + _hermes("notes_append", path="shopping.md", text="- eggs"))
    model.say(_hermes("respond", text="I've added eggs to shopping.md."))
    await assistant.handle(TextMessage(OWNER, "add eggs to my shopping note"))
    assert (vault / "shopping.md").read_text(encoding="utf-8").strip() == "- eggs"
    kinds = [m.kind for _, m in messenger.sent]
    assert kinds == [MessageKind.NOTICE, MessageKind.ANSWER]  # the policy's notice, as for a native call
    assert messenger.texts[-1] == "I've added eggs to shopping.md."
    row = await db.fetchone("SELECT tool, status, decision FROM tool_calls")
    assert (row["tool"], row["status"], row["decision"]) == ("notes_append", "ok", "notify")
    # The model wrote text, so it reads the result as text: no native tool roles on the wire.
    follow_up = model.requests[1]["messages"]
    assert follow_up[-2] == {"role": "assistant",
                             "content": "I'll add it.\n" + _hermes("notes_append", path="shopping.md", text="- eggs")}
    assert follow_up[-1]["role"] == "user" and follow_up[-1]["content"].startswith("<tool_response>")
    assert "shopping.md" in follow_up[-1]["content"]
    assert all(m["role"] != "tool" for m in follow_up)


async def test_bare_json_call_runs_and_a_false_claim_is_not_delivered(notes_setup, model: ScriptedModel) -> None:
    assistant, messenger, vault = notes_setup
    model.say('{"name": "notes_append", "arguments": {"path": "ideas.md", "text": "plant tomatoes"}}')
    model.say("Added 'plant tomatoes' to ideas.md.")
    await assistant.handle(TextMessage(OWNER, "add 'plant tomatoes' to my ideas note"))
    assert (vault / "ideas.md").read_text(encoding="utf-8").strip() == "plant tomatoes"
    assert messenger.texts[-1] == "Added 'plant tomatoes' to ideas.md."
    # Missing "text": the schema check refuses the call, nothing is written, and the claim
    # that it was done never reaches the user.
    model.say('{"name": "notes_append", "arguments": {"path": "later.md"}}')
    model.say('{"name": "respond", "arguments": {"text": "I\'ve added it to later.md."}}')
    model.say('{"name": "respond", "arguments": {"text": "I\'ve added it to later.md."}}')
    await assistant.handle(TextMessage(OWNER, "add 'call mum' to my later note"))
    assert "text" in model.requests[3]["messages"][-1]["content"]  # the schema error went back
    assert not (vault / "later.md").exists()
    assert "I've added it" not in messenger.texts[-1]
    receipts = [r.summary for r in messenger.sent[-1][1].receipts]
    assert any("later.md" in r and "not done" in r for r in receipts)


async def test_destructive_text_call_still_needs_approval(notes_setup, model: ScriptedModel) -> None:
    assistant, messenger, vault = notes_setup
    (vault / "old.md").write_text("keep me\n", encoding="utf-8")
    messenger.auto_decide = False
    model.say(_hermes("notes_delete", path="old.md"))
    model.say(_hermes("respond", text="I did not delete old.md: you said no."))
    await assistant.handle(TextMessage(OWNER, "delete old.md"))
    assert len(messenger.approvals) == 1
    assert (vault / "old.md").exists()
    assert "NOT DONE" in model.requests[1]["messages"][-1]["content"]


async def test_off_for_the_cloud_profile(tmp_path: Path, db: Database, clock: ManualClock,
                                         model: ScriptedModel) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    skill = NotesSkill(NotesSettings(_env_file=None, folder=vault))  # type: ignore[call-arg]
    settings = make_settings(tmp_path, model.base_url, llm={"profile": "cloud"})
    assistant, _ = await build_assistant(settings, db, clock, skills=[skill])
    model.say(_hermes("notes_append", path="a.md", text="x"))
    model.say("I can't do that.")
    await assistant.handle(TextMessage(OWNER, "add x to a"))
    assert not (vault / "a.md").exists()
