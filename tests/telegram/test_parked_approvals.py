"""A turn waiting for an approval is parked: the chat goes on, and the decision finishes it."""

from __future__ import annotations

import asyncio

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES
from bot.core.approvals import ApprovalOutcome, DecisionResult
from tests.telegram.conftest import Harness, approval_id
from tests.telegram.fake_bot_api import BotMessage

DELETE = 'Delete the note "Groceries" for good.'


async def _parked(tg: Harness, said: str = "borra la nota Groceries", count: int = 1) -> BotMessage:
    await tg.say(said)
    shown = await tg.approval_message(count)
    request_id = approval_id(shown)
    await tg.wait_until(lambda: _is_parked(tg, request_id))
    return shown


async def _is_parked(tg: Harness, request_id: str) -> bool:
    row = await tg.db.fetchone("SELECT 1 FROM parked_turns WHERE approval_id = ?", (request_id,))
    return row is not None


async def _status(tg: Harness, request_id: str) -> str:
    row = await tg.db.fetchone("SELECT status FROM approvals WHERE id = ?", (request_id,))
    assert row is not None
    return str(row["status"])


async def _nothing_left_parked(tg: Harness) -> None:
    async def settled() -> bool:
        parked = await tg.db.fetchone("SELECT COUNT(*) AS n FROM parked_turns")
        open_events = await tg.db.fetchone(
            "SELECT COUNT(*) AS n FROM chat_inbox WHERE status IN ('queued', 'running', 'parked')")
        open_turns = await tg.db.fetchone("SELECT COUNT(*) AS n FROM turns WHERE finished_at IS NULL")
        return parked["n"] == 0 and open_events["n"] == 0 and open_turns["n"] == 0

    await tg.wait_until(settled)


def _prompt_text(tg: Harness, request: int) -> str:
    return "\n".join(str(m.get("content")) for m in tg.model.requests[request]["messages"])


def _sent_texts(tg: Harness) -> list[str]:
    return [str(c.params["text"]) for c in tg.api.calls_to("sendMessage")]


async def test_another_message_is_answered_while_a_delete_waits_then_approve_runs_it_once(tg: Harness) -> None:
    tg.model.call("delete_note", title="Groceries")
    tg.model.respond("Tus notas son Groceries e Ideas.")  # the second message, while the delete waits
    tg.model.respond("He borrado la nota Groceries.")  # the parked turn, after the yes
    shown = await _parked(tg)
    request_id = approval_id(shown)

    await tg.say("¿qué notas tengo?")
    [answer] = await tg.replies(1, predicate=lambda t: t.startswith("Tus notas"))
    assert answer == "Tus notas son Groceries e Ideas."
    assert await _status(tg, request_id) == "pending" and tg.skill.deleted == []
    # The turn that answered meanwhile was told the delete is waiting, not done.
    told = _prompt_text(tg, 1)
    assert "Waiting for the user's approval" in told and DELETE in told

    query = await tg.press(shown, approve=True)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.ACCEPTED]
    [done] = await tg.replies(1, predicate=lambda t: t.startswith("He borrado"))
    assert done == "He borrado la nota Groceries.\n\n✅ Borrar Groceries (delete_note): hecho"
    assert tg.skill.deleted == ["Groceries"]
    # The parked turn went on from where it stopped: the tool result follows its own call.
    resumed = tg.model.requests[2]["messages"]
    assert resumed[-1]["role"] == "tool" and resumed[-1]["content"] == "deleted the note Groceries"
    assert "¿qué notas tengo?" not in [m.get("content") for m in resumed]
    assert shown.text.endswith(APPROVAL_OUTCOME_LABELS[ApprovalOutcome.APPROVED]) and shown.edits == 1
    texts = _sent_texts(tg)
    assert texts.index(answer) < texts.index(done)
    await _nothing_left_parked(tg)
    calls = await tg.db.fetchall("SELECT tool, status, approval_id FROM tool_calls WHERE tool = 'delete_note'")
    assert [(c["status"], c["approval_id"]) for c in calls] == [("ok", request_id)]


async def test_a_claim_that_the_waiting_delete_was_done_does_not_reach_the_user(tg: Harness) -> None:
    tg.model.call("delete_note", title="Groceries")
    tg.model.respond("Sí, ya he borrado la nota Groceries.")  # a lie while the delete waits
    tg.model.respond("Vale, no la he borrado.")
    shown = await _parked(tg)
    await tg.say("¿la has borrado ya?")
    await tg.wait_until(lambda: _finished_turns(tg, 1))
    assert not any("he borrado" in t for t in _sent_texts(tg))
    lie = await tg.db.fetchone("SELECT outcome FROM turns WHERE id = 2")
    assert lie["outcome"] in ("replaced", "trimmed")  # the honesty check caught it
    assert tg.skill.deleted == []

    query = await tg.press(shown, approve=False)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.ACCEPTED]
    [denied] = await tg.replies(1, predicate=lambda t: t.startswith("Vale"))
    assert "🚫 Borrar Groceries (delete_note): denegado, no se hizo" in denied
    assert tg.skill.deleted == [] and tg.skill.notes["Groceries"] == "milk, eggs"
    assert shown.text.endswith(APPROVAL_OUTCOME_LABELS[ApprovalOutcome.DENIED])
    await _nothing_left_parked(tg)


async def _finished_turns(tg: Harness, count: int) -> bool:
    row = await tg.db.fetchone("SELECT COUNT(*) AS n FROM turns WHERE finished_at IS NOT NULL")
    return int(row["n"]) >= count


async def test_silence_expires_the_parked_turn_to_not_done(tg: Harness) -> None:
    tg.model.call("delete_note", title="Groceries")
    tg.model.respond("Hola.")
    tg.model.respond("No la he borrado: nadie lo aprobó a tiempo.")
    shown = await _parked(tg)
    await tg.say("hola")
    await tg.replies(1, predicate=lambda t: t == "Hola.")
    for _ in range(200):
        await tg.clock.advance(tg.settings.core.approval_timeout_seconds + 1)
        if shown.reply_markup is None:
            break
        await asyncio.sleep(0.02)
    assert shown.text.endswith(APPROVAL_OUTCOME_LABELS[ApprovalOutcome.EXPIRED])
    [answer] = await tg.replies(1, predicate=lambda t: t.startswith("No la he borrado"))
    assert "⌛ Borrar Groceries (delete_note): sin respuesta a tiempo, no se hizo" in answer
    assert tg.skill.deleted == []
    assert "expired" in tg.model.requests[2]["messages"][-1]["content"]
    late = await tg.press(shown, approve=True)
    assert await tg.answer_to(late) == DECISION_NOTICES[DecisionResult.EXPIRED]
    assert tg.skill.deleted == []
    await _nothing_left_parked(tg)


async def test_a_restart_cancels_the_parked_approval_and_code_says_not_done(tg: Harness) -> None:
    from bot.core import replies

    tg.model.call("delete_note", title="Groceries")
    shown = await _parked(tg)
    request_id = approval_id(shown)
    await tg.restart()
    [answer] = await tg.replies(1, predicate=lambda t: t.startswith("⚠️ Me detuve"))
    assert answer == (replies.approval_cancelled("es", "borra la nota Groceries")
                      + "\n\n🚫 Borrar Groceries (delete_note): cancelado, no se hizo\nℹ️ No se ha cambiado nada.")
    assert len(tg.model.requests) == 1  # code's answer: no model call while starting
    assert shown.text.endswith(APPROVAL_OUTCOME_LABELS[ApprovalOutcome.CANCELLED])
    assert await _status(tg, request_id) == "cancelled"
    query = await tg.press(shown, approve=True)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]
    assert tg.skill.deleted == []
    await _nothing_left_parked(tg)
    turn = await tg.db.fetchone("SELECT outcome FROM turns ORDER BY id LIMIT 1")
    assert turn["outcome"] == "cancelled"


async def test_forged_and_repeated_presses_resume_the_turn_once(tg: Harness) -> None:
    tg.model.call("delete_note", title="Groceries")
    tg.model.respond("He borrado la nota Groceries.")
    shown = await _parked(tg)
    request_id = approval_id(shown)
    other = request_id[:-1] + ("B" if request_id[-1] == "A" else "A")
    for forged in [f"ok:{other}", f"yes:{request_id}", "ok:"]:
        query = await tg.press(shown, approve=True, data=forged)
        assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.UNKNOWN]
    assert await _status(tg, request_id) == "pending"
    first = await tg.press(shown, approve=True)
    second = await tg.press(shown, approve=True)
    third = await tg.press(shown, approve=False)
    notices = [await tg.answer_to(q) for q in (first, second, third)]
    assert notices == [DECISION_NOTICES[DecisionResult.ACCEPTED]] + [
        DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]] * 2
    await tg.replies(1, predicate=lambda t: t.startswith("He borrado"))
    await _nothing_left_parked(tg)
    assert tg.skill.deleted == ["Groceries"]
    resumptions = await tg.db.fetchall("SELECT id FROM chat_inbox WHERE kind = 'approval_settled'")
    assert len(resumptions) == 1
    assert len(tg.model.requests) == 2


async def test_two_approvals_in_one_turn_are_asked_one_after_the_other(tg: Harness) -> None:
    tg.model.calls([("delete_note", {"title": "Groceries"}), ("delete_note", {"title": "Ideas"})])
    tg.model.respond("He borrado Groceries; Ideas no, lo denegaste.")
    first = await _parked(tg, "borra Groceries e Ideas")
    assert DELETE in first.text
    assert len([m for m in tg.api.sent if m.had_buttons]) == 1  # one question at a time
    await tg.answer_to(await tg.press(first, approve=True))
    second = await tg.approval_message(2)
    assert 'Delete the note "Ideas" for good.' in second.text
    assert tg.skill.deleted == ["Groceries"]  # the first ran on its yes; the second still waits
    await tg.answer_to(await tg.press(second, approve=False))
    [answer] = await tg.replies(1, predicate=lambda t: t.startswith("He borrado"))
    assert "✅ Borrar Groceries (delete_note): hecho" in answer
    assert "🚫 Borrar Ideas (delete_note): denegado, no se hizo" in answer
    assert tg.skill.deleted == ["Groceries"] and "Ideas" in tg.skill.notes
    # Both results reached the model as the answers to their own calls, in the model's order.
    tools = [m for m in tg.model.requests[1]["messages"] if m["role"] == "tool"]
    assert [t["content"][:30] for t in tools] == ["deleted the note Groceries", "NOT DONE: the approval for 'De"]
    await _nothing_left_parked(tg)


async def test_turns_parked_in_one_chat_are_resumed_by_their_own_decisions(tg: Harness) -> None:
    tg.model.call("delete_note", title="Groceries")
    tg.model.call("delete_note", title="Ideas")
    tg.model.respond("He borrado la nota Ideas.")  # the second turn's decision comes first
    tg.model.respond("Groceries sigue ahí: lo denegaste.")
    groceries = await _parked(tg)
    ideas = await _parked(tg, "borra también Ideas", count=2)
    assert 'Delete the note "Ideas" for good.' in ideas.text
    # The second turn knew the first was still waiting.
    assert DELETE in _prompt_text(tg, 1)

    await tg.answer_to(await tg.press(ideas, approve=True))
    await tg.replies(1, predicate=lambda t: t.startswith("He borrado la nota Ideas"))
    assert tg.skill.deleted == ["Ideas"]
    assert await _status(tg, approval_id(groceries)) == "pending"
    await tg.answer_to(await tg.press(groceries, approve=False))
    [answer] = await tg.replies(1, predicate=lambda t: t.startswith("Groceries sigue"))
    assert "denegado" in answer
    assert tg.skill.deleted == ["Ideas"]
    await _nothing_left_parked(tg)
