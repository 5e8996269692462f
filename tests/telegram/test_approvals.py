"""Approvals from the phone: buttons, presses, outcomes edited into the message."""

from __future__ import annotations

import asyncio

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES
from bot.core.approvals import ApprovalOutcome, DecisionResult
from tests.telegram.conftest import Harness, approval_id
from tests.telegram.fake_bot_api import BotMessage, utf16_len
from tests.telegram.updates import OWNER_ID, PARTNER_ID, STRANGER_ID

DESCRIPTION = 'Delete the note "Groceries" for good.'


async def _ask_to_delete(tg: Harness, then: str) -> BotMessage:
    tg.model.call("delete_note", title="Groceries")
    tg.model.respond(then)
    await tg.say("borra la nota Groceries")
    shown = await tg.approval_message()
    assert DESCRIPTION in shown.text
    return shown


async def _status(tg: Harness, request_id: str) -> str:
    row = await tg.db.fetchone("SELECT status FROM approvals WHERE id = ?", (request_id,))
    assert row is not None
    return str(row["status"])


async def _edited_to(tg: Harness, shown: BotMessage, outcome: ApprovalOutcome) -> None:
    label = APPROVAL_OUTCOME_LABELS[outcome]
    await tg.api.wait_for(
        "editMessageText",
        lambda c: c.params["message_id"] == shown.message_id and c.params["text"].endswith(label),
    )
    assert shown.text.endswith(label) and DESCRIPTION in shown.text
    assert shown.reply_markup is None  # the buttons are gone


async def test_approve_runs_the_tool_and_edits_the_message(tg: Harness) -> None:
    shown = await _ask_to_delete(tg, "He borrado la nota Groceries.")
    rows = shown.reply_markup["inline_keyboard"]  # type: ignore[index]
    buttons = [b for row in rows for b in row]
    assert all(len(row) == 1 for row in rows)  # one per row: long labels fit a phone
    assert [b["text"] for b in buttons] == ["✅ Approve once", "♾️ Always: delete_note with any arguments",
                                            "❌ Deny"]
    request_id = approval_id(shown)
    assert len(request_id) == 22  # 128 random bits, URL-safe
    assert [b["callback_data"] for b in buttons] == [f"ok:{request_id}", f"al:{request_id}", f"no:{request_id}"]
    assert tg.skill.deleted == []  # nothing happens before the yes

    query = await tg.press(shown, approve=True)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.ACCEPTED]
    await _edited_to(tg, shown, ApprovalOutcome.APPROVED)
    assert await tg.replies(1, predicate=lambda t: t.startswith("He borrado")) == [
        "He borrado la nota Groceries.\n\n✅ Borrar Groceries (delete_note): hecho"]
    assert tg.skill.deleted == ["Groceries"]
    assert await _status(tg, request_id) == "approved"
    assert shown.edits == 1


async def test_deny_does_nothing_and_edits_the_message(tg: Harness) -> None:
    shown = await _ask_to_delete(tg, "Vale, no la he borrado.")
    query = await tg.press(shown, approve=False)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.ACCEPTED]
    await _edited_to(tg, shown, ApprovalOutcome.DENIED)
    await tg.replies(1, predicate=lambda t: t.startswith("Vale"))
    assert tg.skill.deleted == []
    assert tg.skill.notes["Groceries"] == "milk, eggs"


async def test_expiry_edits_the_message_without_any_press(tg: Harness) -> None:
    shown = await _ask_to_delete(tg, "No lo he hecho: la aprobación caducó.")
    request_id = approval_id(shown)
    for _ in range(200):
        await tg.clock.advance(tg.settings.core.approval_timeout_seconds + 1)
        if shown.reply_markup is None:
            break
        await asyncio.sleep(0.02)
    await _edited_to(tg, shown, ApprovalOutcome.EXPIRED)
    assert await _status(tg, request_id) == "expired"
    assert tg.skill.deleted == []
    await tg.replies(1, predicate=lambda t: t.startswith("No lo he hecho"))

    # A late press changes nothing and says why.
    query = await tg.press(shown, approve=True)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.EXPIRED]
    assert tg.skill.deleted == []
    assert shown.edits == 1


async def test_a_restart_resolves_the_open_approval_as_cancelled(tg: Harness) -> None:
    shown = await _ask_to_delete(tg, "unused")
    request_id = approval_id(shown)
    await tg.wait_until(lambda: _has_message_id(tg, request_id))
    await tg.restart()
    await _edited_to(tg, shown, ApprovalOutcome.CANCELLED)
    assert await _status(tg, request_id) == "cancelled"

    # The old buttons are now dead: the new process says so and nothing runs.
    query = await tg.press(shown, approve=True)
    assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]
    assert tg.skill.deleted == []


async def _has_message_id(tg: Harness, request_id: str) -> bool:
    row = await tg.db.fetchone("SELECT message_id FROM approvals WHERE id = ?", (request_id,))
    return row is not None and row["message_id"] is not None


async def test_presses_that_must_change_nothing(tg: Harness) -> None:
    shown = await _ask_to_delete(tg, "He borrado la nota Groceries.")
    request_id = approval_id(shown)

    partner = await tg.press(shown, approve=True, user_id=PARTNER_ID)
    assert await tg.answer_to(partner) == DECISION_NOTICES[DecisionResult.NOT_OWNER]
    stranger = await tg.press(shown, approve=True, user_id=STRANGER_ID)
    assert await tg.answer_to(stranger) == DECISION_NOTICES[DecisionResult.NOT_OWNER]
    unknown = await tg.press(shown, approve=True, data="ok:AAAAAAAAAAAAAAAAAAAAAA")
    assert await tg.answer_to(unknown) == DECISION_NOTICES[DecisionResult.UNKNOWN]
    for forged in ["rm -rf /", f"yes:{request_id}", f"ok:{request_id}'--", ""]:
        query = await tg.press(shown, approve=True, data=forged)
        assert await tg.answer_to(query) == DECISION_NOTICES[DecisionResult.UNKNOWN]
    assert await _status(tg, request_id) == "pending"
    assert shown.edits == 0 and shown.reply_markup is not None
    assert tg.skill.deleted == []

    first = await tg.press(shown, approve=True)
    assert await tg.answer_to(first) == DECISION_NOTICES[DecisionResult.ACCEPTED]
    second = await tg.press(shown, approve=False)
    assert await tg.answer_to(second) == DECISION_NOTICES[DecisionResult.ALREADY_DECIDED]
    await _edited_to(tg, shown, ApprovalOutcome.APPROVED)
    await tg.replies(1, predicate=lambda t: t.startswith("He borrado"))
    assert tg.skill.deleted == ["Groceries"]
    assert await _status(tg, request_id) == "approved"
    assert shown.edits == 1
    # Nothing of the stranger reached the core.
    rows = await tg.db.fetchall("SELECT * FROM chats WHERE user_id = ?", (str(STRANGER_ID),))
    assert rows == []
    assert OWNER_ID == shown.chat_id


async def test_stopping_with_an_open_approval_edits_it_to_cancelled(tg: Harness) -> None:
    shown = await _ask_to_delete(tg, "unused")
    request_id = approval_id(shown)
    await tg.wait_until(lambda: _has_message_id(tg, request_id))
    await tg.stack.stop()
    assert shown.text.endswith(APPROVAL_OUTCOME_LABELS[ApprovalOutcome.CANCELLED])
    assert shown.reply_markup is None
    assert await _status(tg, request_id) == "cancelled"
    assert tg.skill.deleted == []


async def test_typing_is_kept_up_while_the_model_works_but_not_while_waiting(tg: Harness) -> None:
    from tests.scripted_model import Scripted

    # A slow model: the turn stays busy while the clock moves past the typing refresh.
    tg.model.queue.append(Scripted(tool_calls=[("delete_note", {"title": "Groceries"})], delay=1.0))
    tg.model.respond("He borrado la nota Groceries.")
    await tg.say("borra la nota Groceries")
    for _ in range(200):
        if len(tg.api.calls_to("sendChatAction")) >= 2:
            break
        await tg.clock.advance(5)
        await asyncio.sleep(0.02)
    assert len(tg.api.calls_to("sendChatAction")) >= 2

    shown = await tg.approval_message()
    await tg.wait_until(lambda: _has_message_id(tg, approval_id(shown)))
    before = len(tg.api.calls_to("sendChatAction"))
    for _ in range(5):
        await tg.clock.advance(10)  # well inside the approval timeout
        await asyncio.sleep(0.02)
    assert len(tg.api.calls_to("sendChatAction")) == before  # no "typing…" while it waits for you
    query = await tg.press(shown, approve=True)
    await tg.answer_to(query)
    await tg.replies(1, predicate=lambda t: t.startswith("He borrado"))


async def test_a_receipt_written_by_code_goes_under_the_answer_as_a_quoted_block(tg: Harness) -> None:
    shown = await _ask_to_delete(tg, "Vale, la dejo como está.")
    query = await tg.press(shown, approve=False)
    await tg.answer_to(query)
    [answer] = await tg.replies(1, predicate=lambda t: "Groceries (delete_note)" in t)
    block = "🚫 Borrar Groceries (delete_note): denegado, no se hizo\nℹ️ No se ha cambiado nada."
    assert answer == "Vale, la dejo como está.\n\n" + block
    sent = next(c.params for c in tg.api.calls_to("sendMessage") if c.params["text"] == answer)
    quote = [e for e in sent["entities"] if e["type"] == "blockquote"]
    assert quote == [{"type": "blockquote", "offset": utf16_len(answer) - utf16_len(block),
                      "length": utf16_len(block)}]
    assert tg.skill.deleted == []
