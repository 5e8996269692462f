""""Always for this": a standing grant from the owner's press, used without asking, revocable."""

from __future__ import annotations

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES
from bot.core.approvals import ApprovalOutcome, DecisionResult
from tests.telegram.conftest import Harness, approval_id
from tests.telegram.fake_bot_api import transcript
from tests.telegram.updates import PARTNER_ID

ALWAYS = "♾️ Always: delete_note with any arguments"


async def _grants(tg: Harness) -> list[tuple[str, str | None]]:
    rows = await tg.db.fetchall("SELECT tool, revoked_at FROM grants ORDER BY id")
    return [(row["tool"], row["revoked_at"]) for row in rows]


async def test_always_grants_then_the_next_call_does_not_ask(tg: Harness) -> None:
    tg.model.call("delete_note", title="Groceries")
    tg.model.respond("He borrado la nota Groceries.")
    await tg.say("borra la nota Groceries")
    shown = await tg.approval_message()
    labels = [row[0]["text"] for row in shown.reply_markup["inline_keyboard"]]  # type: ignore[index]
    assert labels == ["✅ Approve once", ALWAYS, "❌ Deny"]
    request_id = approval_id(shown)

    # Someone else on the allowlist cannot make (or use) the owner's grant.
    other = await tg.press(shown, approve=True, data=f"al:{request_id}", user_id=PARTNER_ID)
    assert await tg.answer_to(other) == DECISION_NOTICES[DecisionResult.NOT_OWNER]
    assert await _grants(tg) == [] and tg.skill.deleted == []

    press = await tg.press(shown, approve=True, data=f"al:{request_id}")
    assert await tg.answer_to(press) == DECISION_NOTICES[DecisionResult.ACCEPTED_ALWAYS]
    await tg.api.wait_for("editMessageText", lambda c: c.params["text"].endswith(
        APPROVAL_OUTCOME_LABELS[ApprovalOutcome.APPROVED]))
    await tg.replies(1, predicate=lambda t: t.startswith("He borrado la nota Groceries"))
    assert tg.skill.deleted == ["Groceries"]
    assert await _grants(tg) == [("delete_note", None)]
    saved = await tg.replies(1, predicate=lambda t: t.startswith("🔓"))
    assert "delete_note with any arguments" in saved[0] and "A partir de ahora" in saved[0]
    assert "/permissions" in saved[0]

    # The second call runs without a question, and still tells the owner what it did.
    first_turn = len(tg.api.calls)
    tg.model.call("delete_note", title="Ideas")
    tg.model.respond("He borrado la nota Ideas.")
    await tg.say("borra también Ideas")
    await tg.replies(1, predicate=lambda t: t.startswith("He borrado la nota Ideas"))
    assert tg.skill.deleted == ["Groceries", "Ideas"]
    assert len([m for m in tg.api.sent if m.had_buttons]) == 1  # no second approval prompt
    notices = await tg.replies(1, predicate=lambda t: t.startswith("🔔"))
    assert 'Delete the note "Ideas" for good.' in notices[0] and "permiso permanente" in notices[0]
    uses = await tg.db.fetchall("SELECT grant_id FROM grant_uses")
    assert len(uses) == 1
    print("\n--- always grant, then a second call that does not ask ---\n" + transcript(tg.api.calls))
    assert "sendMessage" in transcript(tg.api.calls[first_turn:])

    # /permissions lists it and revokes it; the next call asks again.
    await tg.say("/permissions")
    listed = await tg.replies(1, predicate=lambda t: t.startswith("Standing permissions"))
    assert "1. delete_note with any arguments" in listed[0]
    await tg.say("/permissions revoke 1")
    await tg.replies(1, predicate=lambda t: t.startswith("Revoked 1 standing permission"))
    assert (await _grants(tg))[0][1] is not None
    tg.skill.notes["Again"] = "x"
    tg.model.call("delete_note", title="Again")
    tg.model.respond("No la he borrado.")
    await tg.say("borra Again")
    await tg.approval_message(count=2)
    assert tg.skill.deleted == ["Groceries", "Ideas"]


async def test_permissions_of_one_user_are_theirs_alone(tg: Harness) -> None:
    tg.model.call("delete_note", title="Groceries")
    tg.model.respond("Hecho.")
    await tg.say("borra Groceries")
    shown = await tg.approval_message()
    press = await tg.press(shown, approve=True, data=f"al:{approval_id(shown)}")
    assert await tg.answer_to(press) == DECISION_NOTICES[DecisionResult.ACCEPTED_ALWAYS]
    await tg.replies(1, predicate=lambda t: t.startswith("🔓"))

    # The partner's own call still asks: the owner's grant is not theirs.
    tg.model.call("delete_note", title="Ideas")
    tg.model.respond("Vale.")
    await tg.say("borra Ideas", user_id=PARTNER_ID)
    theirs = await tg.approval_message(count=2)
    assert tg.skill.deleted == ["Groceries"]
    denied = await tg.press(theirs, approve=False, user_id=PARTNER_ID)
    assert await tg.answer_to(denied) == DECISION_NOTICES[DecisionResult.ACCEPTED]
    # And the partner cannot revoke (or even see) the owner's grant.
    await tg.say("/permissions revoke all", user_id=PARTNER_ID)
    await tg.replies(1, chat_id=PARTNER_ID, predicate=lambda t: t.startswith("Nothing was revoked"))
    assert await _grants(tg) == [("delete_note", None)]
