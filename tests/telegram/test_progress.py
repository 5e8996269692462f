"""Live progress: a slow turn shows code-written steps as a Telegram draft; the answer replaces it."""

from __future__ import annotations

import asyncio

from tests.scripted_model import Scripted
from tests.telegram.conftest import Harness
from tests.telegram.fake_bot_api import transcript


async def _advance_until(tg: Harness, check: object, seconds: float = 2.0) -> None:
    for _ in range(200):
        if check():  # type: ignore[operator]
            return
        await tg.clock.advance(seconds)
        await asyncio.sleep(0.02)
    raise AssertionError("never reached")


async def test_a_fast_turn_shows_no_draft(tg: Harness) -> None:
    tg.model.respond("Hola.")
    await tg.say("hola")
    await tg.replies(1, predicate=lambda t: t == "Hola.")
    assert tg.api.calls_to("sendMessageDraft") == []


async def test_a_slow_turn_shows_its_steps_as_drafts_then_the_answer(tg: Harness) -> None:
    # The model takes a while before asking to delete a note; then it answers.
    tg.model.queue.append(Scripted(tool_calls=[("delete_note", {"title": "Groceries"})], delay=1.0))
    tg.model.respond("He borrado la nota Groceries.")
    await tg.say("borra la nota Groceries, por favor")
    await _advance_until(tg, lambda: tg.api.drafts)  # past 1.5 s on the clock: the first step shows
    shown = await tg.approval_message()
    await tg.api.wait_for("sendMessageDraft", lambda c: "aprobación" in c.params["text"])
    await tg.press(shown, approve=True)
    await tg.replies(1, predicate=lambda t: t.startswith("He borrado"))

    texts = [text for _, _, text in tg.api.drafts]
    assert texts[0] == "Pensando…"
    assert texts.index("Esperando tu aprobación…") < texts.index("Buscando en tus notas…")
    assert "He borrado" not in " ".join(texts)  # the model's prose is never streamed
    assert {draft_id for _, draft_id, _ in tg.api.drafts} == {_turn_id(tg)}  # one turn, one draft
    calls = [c.method for c in tg.api.calls]
    answer = max(i for i, c in enumerate(tg.api.calls)
                 if c.method == "sendMessage" and c.params["text"].startswith("He borrado"))
    assert "sendMessageDraft" not in calls[answer:]  # the final answer comes last
    print("\n--- a long turn with progress drafts ---\n" + transcript(tg.api.calls))


def _turn_id(tg: Harness) -> int:
    return tg.api.drafts[0][1]
