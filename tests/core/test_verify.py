"""Each honesty rule, in Spanish and English, on the deterministic checker alone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.core.verify import CallRecord, CallStatus, Rule, claims_action, verify
from tools.registry import Risk

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=ZoneInfo("Europe/Madrid"))


def _call(name: str, status: CallStatus, risk: Risk = Risk.WRITE, result: str = "", error: str = "",
          arguments: str = "{}") -> CallRecord:
    return CallRecord(name=name, arguments=arguments, risk=risk, status=status,
                      description=f"{name}(...)", result=result, error=error)


def _rules(answer: str, calls: list[CallRecord], user: str = "hola") -> set[Rule]:
    return {v.rule for v in verify(answer, calls, user, NOW)}


@pytest.mark.parametrize("answer", [
    "Done! I've added the dentist to your calendar.",
    "I created the event.",
    "The reminder has been set up for you.",
    "¡Listo! He creado el evento.",
    "Agendé la cita con el dentista.",
    "He borrado la nota de la compra.",
    "Envié el correo a Ana.",
])
def test_claim_without_any_write_fails(answer: str) -> None:
    assert Rule.UNBACKED_CLAIM in _rules(answer, [])


@pytest.mark.parametrize("answer", [
    "I haven't created anything yet. Shall I add it?",
    "No he borrado nada todavía. ¿Quieres que lo borre?",
    "Do you want me to delete it?",
    "I couldn't find any event to delete.",
    "Tienes 3 eventos mañana.",
    "You have nothing scheduled tomorrow.",
    "You have milk; nothing was removed.",
    "None of them was deleted.",
])
def test_non_claims_pass(answer: str) -> None:
    assert claims_action(answer) == [] or Rule.UNBACKED_CLAIM not in _rules(answer, [])


def test_claim_backed_by_successful_write_passes() -> None:
    calls = [_call("create_event", CallStatus.OK, result="created 'Dentist' 2026-03-03 09:00")]
    assert _rules("Done, I've added the dentist on 2026-03-03 at 09:00.", calls) == set()
    assert _rules("Listo, he creado la cita del 03/03 a las 09:00.", calls) == set()


@pytest.mark.parametrize(("answer", "ok"), [
    ("Done, the email is sent.", False),
    ("He enviado el correo.", False),
    ("Sorry, sending failed: the mail server refused the connection. Shall I try again?", True),
    ("No he podido enviar el correo: el servidor rechazó la conexión. ¿Lo intento otra vez?", True),
])
def test_failed_write_must_be_reported(answer: str, ok: bool) -> None:
    calls = [_call("send_email", CallStatus.ERROR, error="connection refused")]
    rules = _rules(answer, calls)
    assert (Rule.FAILED_WRITE_HIDDEN in rules) is (not ok)


def test_failed_then_retried_successfully_is_fine() -> None:
    calls = [_call("send_email", CallStatus.ERROR, error="timeout"), _call("send_email", CallStatus.OK, result="sent")]
    assert _rules("Sent it (the first try timed out).", calls) == set()


@pytest.mark.parametrize("status", [CallStatus.DENIED, CallStatus.EXPIRED, CallStatus.CANCELLED])
@pytest.mark.parametrize(("answer", "ok"), [
    ("Done, I've deleted the event.", False),
    ("He borrado el evento.", False),
    ("OK, I did not delete it: the approval was not given.", True),
    ("Vale, no lo he borrado porque no se aprobó.", True),
])
def test_denied_or_expired_must_be_reported_as_not_done(status: CallStatus, answer: str, ok: bool) -> None:
    calls = [_call("delete_event", status, risk=Risk.DESTRUCTIVE)]
    rules = _rules(answer, calls)
    assert (Rule.NOT_DONE_HIDDEN in rules) is (not ok)


@pytest.mark.parametrize(("answer", "user", "ok"), [
    ("Your flight leaves at 17:45.", "when is my flight?", False),
    ("Tu vuelo sale el 14 de marzo.", "¿cuándo sale mi vuelo?", False),
    ("Write to ana@example.org about it.", "who should I write to?", False),
    ("See https://evil.example/page", "any link?", False),
    ("Your flight leaves at 17:45 on 14 March.", "when?", True),  # in the tool result below
    ("Vale, a las 10:00 mañana.", "ponme el gimnasio mañana a las 10", True),
    ("Sure, 9pm it is.", "book it at 9pm", True),
    ("It's 09:00 now.", "what time is it", True),
])
def test_details_must_come_from_tools_or_user(answer: str, user: str, ok: bool) -> None:
    calls = [_call("list_events", CallStatus.OK, risk=Risk.READ,
                   result="Flight IB123 2026-03-14 17:45 Madrid-Lisboa")] if ok else []
    rules = _rules(answer, calls, user)
    assert (Rule.UNSOURCED_DETAIL in rules) is (not ok)


def test_action_claim_correction_forces_a_tool_call() -> None:
    violations = verify("Done!", [], "add milk to my list", NOW)
    assert violations and violations[0].requires_action


def test_details_from_the_conversation_or_memories_count_as_sourced() -> None:
    answer = "It was at 10:30 on 14 March, with ana@example.org."
    assert Rule.UNSOURCED_DETAIL in _rules(answer, [], "what time was that again?")
    context = ["The dentist is on 2026-03-14 at 10:30.", "Memory: Ana's email is ana@example.org"]
    violations = verify(answer, [], "what time was that again?", NOW, context)
    assert violations == []
