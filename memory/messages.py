"""Layer A: every message said, per user and chat, stored before any model call."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.core.events import ChatRef
from memory.db import Database, Transaction


def chat_key(chat: ChatRef) -> str:
    return f"{chat.platform.value}:{chat.chat_id}"


def with_note(words: str, note: str) -> str:
    """A user message as stored with the software's note about what came with it (a file, a
    photo): the note, in brackets, is its last line."""
    return f"{words}\n{note}".strip()


def own_words(content: str) -> str:
    """A stored user message without the software's note: what the user said."""
    head, newline, last = content.rpartition("\n")
    if last.startswith("[") and last.endswith("]"):
        return head if newline else ""
    return content


@dataclass(frozen=True)
class StoredMessage:
    id: int
    user_key: str
    chat_key: str
    role: str
    content: str
    created_at: datetime
    processed: bool
    oversized: bool


class MessageStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(
        self, chat: ChatRef, role: str, content: str, at: datetime, *,
        turn_id: int | None = None, oversized: bool = False, tx: Transaction | None = None,
    ) -> int:
        """Store one message; inside `tx` when it must commit together with other state."""
        return await (tx or self._db).execute(
            "INSERT INTO messages(user_key, chat_key, role, content, created_at, turn_id, oversized)"
            " VALUES (?,?,?,?,?,?,?)",
            (chat.user_key, chat_key(chat), role, content, at.isoformat(), turn_id, int(oversized)),
        )

    async def recent(self, chat: ChatRef, limit: int, *, before_id: int | None = None,
                     stepped: bool = False) -> list[StoredMessage]:
        """The last `limit` messages of this chat since the last /reset, oldest first.

        `stepped`: the window's first message moves only every `limit // 2` messages (so the
        history holds between half and all of `limit`). A window that slid one message per
        turn would change the prompt right after the system message every turn, and a
        provider's prefix cache would never cover the history.
        """
        reset_after = await self._reset_point(chat)
        where = "chat_key = ? AND user_key = ? AND id > ? AND id < ? AND oversized = 0"
        params = (chat_key(chat), chat.user_key, reset_after, before_id or 2**62)
        if stepped and limit >= 2:
            row = await self._db.fetchone(f"SELECT COUNT(*) AS n FROM messages WHERE {where}", params)
            total = int(row["n"]) if row else 0
            step = limit // 2
            dropped = -(-(total - limit) // step) * step if total > limit else 0
            limit = total - dropped
        rows = await self._db.fetchall(
            f"SELECT * FROM messages WHERE {where} ORDER BY id DESC LIMIT ?", (*params, limit))
        return [_row(row) for row in reversed(rows)]

    async def mark_reset(self, chat: ChatRef) -> None:
        """/reset: later turns stop seeing earlier messages (nothing is deleted)."""
        row = await self._db.fetchone("SELECT COALESCE(MAX(id), 0) AS last FROM messages")
        await self._db.execute(
            "UPDATE chats SET reset_after_message = ? WHERE platform = ? AND chat_id = ? AND user_id = ?",
            (row["last"] if row else 0, chat.platform.value, chat.chat_id, chat.user_id),
        )

    async def for_user(self, user_key: str) -> list[StoredMessage]:
        rows = await self._db.fetchall("SELECT * FROM messages WHERE user_key = ? ORDER BY id", (user_key,))
        return [_row(row) for row in rows]

    async def _reset_point(self, chat: ChatRef) -> int:
        row = await self._db.fetchone(
            "SELECT reset_after_message FROM chats WHERE platform = ? AND chat_id = ? AND user_id = ?",
            (chat.platform.value, chat.chat_id, chat.user_id),
        )
        return int(row["reset_after_message"]) if row else 0


class ChatDirectory:
    """Which chats each user talks from, so scheduled posts know where to go."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def seen(self, chat: ChatRef, at: datetime) -> None:
        # An event that does not know the chat's kind never erases what an earlier one saw.
        await self._db.execute(
            "INSERT INTO chats(user_key, platform, chat_id, user_id, last_seen, kind) VALUES (?,?,?,?,?,?)"
            " ON CONFLICT(platform, chat_id, user_id) DO UPDATE SET last_seen = excluded.last_seen,"
            " kind = CASE WHEN excluded.kind = 'unknown' THEN chats.kind ELSE excluded.kind END",
            (chat.user_key, chat.platform.value, chat.chat_id, chat.user_id, at.isoformat(), chat.kind.value),
        )

    async def private(self, user_key: str) -> ChatRef | None:
        """The user's most recently used private chat (only them and the bot), if any."""
        from bot.core.events import ChatKind, Platform

        row = await self._db.fetchone(
            "SELECT * FROM chats WHERE user_key = ? AND kind = ? ORDER BY last_seen DESC LIMIT 1",
            (user_key, ChatKind.PRIVATE.value),
        )
        if row is None:
            return None
        return ChatRef(platform=Platform(row["platform"]), chat_id=row["chat_id"], user_id=row["user_id"],
                       kind=ChatKind.PRIVATE)

    async def users(self) -> list[str]:
        rows = await self._db.fetchall("SELECT DISTINCT user_key FROM chats ORDER BY user_key")
        return [row["user_key"] for row in rows]


def _row(row: Any) -> StoredMessage:
    get = row.__getitem__
    return StoredMessage(
        id=get("id"),
        user_key=get("user_key"),
        chat_key=get("chat_key"),
        role=get("role"),
        content=get("content"),
        created_at=datetime.fromisoformat(get("created_at")),
        processed=bool(get("processed")),
        oversized=bool(get("oversized")),
    )
