"""Photos and files as they arrived, in the one SQLite file, each owned by one user."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.core.events import AttachmentKind, ChatRef
from memory.db import Database, Transaction
from memory.messages import chat_key


@dataclass(frozen=True)
class StoredAttachment:
    id: int
    user_key: str
    kind: AttachmentKind
    filename: str
    mime_type: str
    size: int
    text: str | None
    read_error: str | None
    created_at: datetime


_COLUMNS = "id, user_key, kind, filename, mime_type, size, text, read_error, created_at"


class AttachmentStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, chat: ChatRef, kind: AttachmentKind, filename: str, mime_type: str, data: bytes,
                  at: datetime, inbox_id: int | None = None) -> int:
        """Store the original; `inbox_id`: the inbox item it came with, so a re-run after a crash
        gets the same attachment (and number) back instead of a second copy."""
        if inbox_id is not None:
            row = await self._db.fetchone("SELECT id FROM attachments WHERE inbox_id = ? AND user_key = ?",
                                          (inbox_id, chat.user_key))
            if row is not None:
                return int(row["id"])
        digest = (await asyncio.to_thread(hashlib.sha256, data)).hexdigest()
        return await self._db.execute(
            "INSERT INTO attachments(user_key, chat_key, kind, filename, mime_type, size, sha256, data,"
            " created_at, inbox_id) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (chat.user_key, chat_key(chat), kind.value, filename, mime_type, len(data),
             digest, data, at.isoformat(), inbox_id),
        )

    async def set_text(self, attachment_id: int, text: str | None, error: str | None) -> None:
        await self._db.execute("UPDATE attachments SET text = ?, read_error = ? WHERE id = ?",
                               (text, error, attachment_id))

    async def get(self, user_key: str, attachment_id: int) -> StoredAttachment | None:
        """The attachment if it belongs to `user_key`; another user's is as good as missing."""
        row = await self._db.fetchone(f"SELECT {_COLUMNS} FROM attachments WHERE id = ? AND user_key = ?",
                                      (attachment_id, user_key))
        return _stored(row) if row is not None else None

    async def for_user(self, user_key: str) -> list[StoredAttachment]:
        """Every attachment of the user, oldest first, without the bytes."""
        rows = await self._db.fetchall(f"SELECT {_COLUMNS} FROM attachments WHERE user_key = ? ORDER BY id",
                                       (user_key,))
        return [_stored(row) for row in rows]

    async def message_ids(self, user_key: str, attachment_ids: Sequence[int]) -> set[int]:
        """The stored user messages these attachments came with."""
        if not attachment_ids:
            return set()
        marks = ",".join("?" * len(attachment_ids))
        rows = await self._db.fetchall(
            "SELECT i.message_id FROM attachments a JOIN chat_inbox i ON i.id = a.inbox_id"
            f" WHERE a.user_key = ? AND a.id IN ({marks}) AND i.message_id IS NOT NULL",
            (user_key, *attachment_ids))
        return {int(row["message_id"]) for row in rows}

    async def delete(self, tx: Transaction, user_key: str, attachment_ids: Sequence[int]) -> None:
        """Delete the originals and their text (secure_delete overwrites the freed pages)."""
        if attachment_ids:
            marks = ",".join("?" * len(attachment_ids))
            await tx.execute(f"DELETE FROM attachments WHERE user_key = ? AND id IN ({marks})",
                             (user_key, *attachment_ids))

    async def data(self, user_key: str, attachment_id: int) -> bytes | None:
        row = await self._db.fetchone("SELECT data FROM attachments WHERE id = ? AND user_key = ?",
                                      (attachment_id, user_key))
        return bytes(row["data"]) if row is not None else None


def _stored(row: Any) -> StoredAttachment:
    return StoredAttachment(int(row["id"]), row["user_key"], AttachmentKind(row["kind"]), row["filename"],
                            row["mime_type"], int(row["size"]), row["text"], row["read_error"],
                            datetime.fromisoformat(row["created_at"]))
