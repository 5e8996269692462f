"""Forgetting from chat stays forgotten: the forget turn's own answer does not bring it back."""

from __future__ import annotations

from bot.clock import ManualClock
from bot.config import Settings
from bot.core.approvals import ApprovalOutcome
from bot.core.events import Platform, TextMessage
from bot.scheduler import Scheduler
from memory.db import Database
from tests.memory.conftest import ANA
from tests.memory.test_forget import file_bytes, fill
from tests.scripted_model import Scripted, ScriptedModel
from tests.support import RecordingMessenger, build_assistant
from tools.skills.memory import install_memory


async def test_forget_turn_keeps_none_of_its_text(settings: Settings, db: Database, clock: ManualClock,
                                                  model: ScriptedModel) -> None:
    messenger = RecordingMessenger(platform=Platform.TELEGRAM, auto_decide=True)
    assistant, _ = await build_assistant(settings, db, clock, messenger=messenger)
    service = await install_memory(assistant, Scheduler(db, clock), settings)
    await assistant.chats.seen(ANA, clock.now())
    await fill(service, db, model)
    assert b"Trufa" in file_bytes(db)

    def responder(body: dict) -> Scripted:
        last = body["messages"][-1]
        content = last.get("content") or ""
        if last["role"] == "user":
            return Scripted(tool_calls=[("forget_preview", {"what": "Trufa"})])
        if "plan_id:" in content:
            plan_id = content.rsplit("plan_id: ", 1)[1].split()[0]
            return Scripted(tool_calls=[("forget", {"plan_id": plan_id})])
        # The model quotes what was forgotten in its answer, as models do.
        return Scripted(tool_calls=[("respond", {"text": "Done: I have forgotten Trufa and the fetching."})])

    model.responder = responder
    await assistant.handle(TextMessage(ANA, "forget everything about Trufa"))
    assert messenger.outcomes[-1][1] is ApprovalOutcome.APPROVED
    assert messenger.texts[-1] == "Done: I have forgotten Trufa and the fetching."  # the user still sees it
    await db.raw("PRAGMA wal_checkpoint(TRUNCATE)")
    assert b"Trufa" not in file_bytes(db)
    stored = await db.fetchall("SELECT content FROM messages WHERE user_key = ?", (ANA.user_key,))
    assert all("Trufa" not in row["content"] for row in stored)
