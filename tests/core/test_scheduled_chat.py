"""Where scheduled private posts go: the private chat, or a chat the owner configured."""

from __future__ import annotations

from pathlib import Path

from bot.clock import ManualClock
from bot.core.events import ChatKind, ChatRef, MessageKind, OutboundMessage, Platform
from memory.db import Database
from tests.support import build_assistant, make_settings

OWNER_PRIVATE = ChatRef(Platform.CONSOLE, "private-1", "owner", ChatKind.PRIVATE)
FAMILY = ChatRef(Platform.CONSOLE, "family-group", "owner", ChatKind.GROUP)
BRIEFING = OutboundMessage("Good morning: dentist at 10:00.", MessageKind.SCHEDULED)


async def test_a_group_gets_scheduled_posts_only_when_configured(tmp_path: Path, db: Database,
                                                                  clock: ManualClock) -> None:
    settings = make_settings(tmp_path, core={"scheduled_chats": {"console:owner": "family-group"}})
    assistant, messenger = await build_assistant(settings, db, clock, with_model=False)
    await assistant.chats.seen(FAMILY, clock.now())
    sent = await assistant.deliver("console:owner", BRIEFING)
    assert sent is not None and [chat.chat_id for chat, _ in messenger.sent] == ["family-group"]
    await assistant.stop()


async def test_a_later_message_of_unknown_kind_keeps_the_chat_private(tmp_path: Path, db: Database,
                                                                      clock: ManualClock) -> None:
    assistant, messenger = await build_assistant(make_settings(tmp_path), db, clock, with_model=False)
    await assistant.chats.seen(OWNER_PRIVATE, clock.now())
    await assistant.chats.seen(ChatRef(Platform.CONSOLE, "private-1", "owner"), clock.now())
    await assistant.chats.seen(FAMILY, clock.now())
    await assistant.deliver("console:owner", BRIEFING)
    assert [chat.chat_id for chat, _ in messenger.sent] == ["private-1"]
    await assistant.stop()
