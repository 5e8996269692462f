"""Scheduled private posts (diary, briefing, reminders) go to the owner's private chat,
never to a group the owner happened to write in last."""

from __future__ import annotations

from bot.core.events import MessageKind, OutboundMessage
from tests.telegram import updates
from tests.telegram.conftest import Harness
from tests.telegram.updates import OWNER_ID

GROUP_ID = -1001234567890
USER_KEY = f"telegram:{OWNER_ID}"
DIARY = OutboundMessage("Diary: today I saw the doctor about my back.", MessageKind.SCHEDULED)


async def _in_group(tg: Harness, body: str) -> None:
    await tg.push(lambda message_id: updates.group_text(OWNER_ID, message_id, tg.clock.now(), body, GROUP_ID))
    await tg.replies(1, chat_id=GROUP_ID)


async def test_diary_is_not_posted_into_the_group_the_owner_wrote_in_last(tg: Harness) -> None:
    await tg.say("/help")
    await tg.replies(1)
    await tg.clock.advance(60)
    await _in_group(tg, "/help")

    sent = await tg.assistant.deliver(USER_KEY, DIARY)

    assert sent is not None and sent.chat.chat_id == str(OWNER_ID)
    to_group = [c for c in tg.api.calls_to("sendMessage") if c.params["chat_id"] == GROUP_ID]
    assert all("Diary" not in str(c.params["text"]) for c in to_group)
    assert tg.api.calls_to("sendMessage")[-1].params["chat_id"] == OWNER_ID
    kinds = await tg.db.fetchall("SELECT chat_id, kind FROM chats ORDER BY chat_id")
    assert {(r["chat_id"], r["kind"]) for r in kinds} == {(str(GROUP_ID), "group"), (str(OWNER_ID), "private")}


async def test_with_only_a_group_known_nothing_private_is_posted(tg: Harness) -> None:
    await _in_group(tg, "/help")
    before = len(tg.api.calls_to("sendMessage"))

    assert await tg.assistant.deliver(USER_KEY, DIARY) is None
    assert len(tg.api.calls_to("sendMessage")) == before
