"""Photos and files as they arrived, in the one SQLite file, each owned by one user."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from datetime import datetime

from bot.core.events import AttachmentKind, ChatRef
from memory.db import Database
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


class AttachmentStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, chat: ChatRef, kind: AttachmentKind, filename: str, mime_type: str, data: bytes,
                  at: datetime) -> int:
        digest = (await asyncio.to_thread(hashlib.sha256, data)).hexdigest()
        return await self._db.execute(
            "INSERT INTO attachments(user_key, chat_key, kind, filename, mime_type, size, sha256, data,"
            " created_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (chat.user_key, chat_key(chat), kind.value, filename, mime_type, len(data),
             digest, data, at.isoformat()),
        )

    async def set_text(self, attachment_id: int, text: str | None, error: str | None) -> None:
        await self._db.execute("UPDATE attachments SET text = ?, read_error = ? WHERE id = ?",
                               (text, error, attachment_id))

    async def get(self, user_key: str, attachment_id: int) -> StoredAttachment | None:
        """The attachment if it belongs to `user_key`; another user's is as good as missing."""
        row = await self._db.fetchone(
            "SELECT id, user_key, kind, filename, mime_type, size, text, read_error FROM attachments"
            " WHERE id = ? AND user_key = ?", (attachment_id, user_key))
        if row is None:
            return None
        return StoredAttachment(int(row["id"]), row["user_key"], AttachmentKind(row["kind"]), row["filename"],
                                row["mime_type"], int(row["size"]), row["text"], row["read_error"])

    async def data(self, user_key: str, attachment_id: int) -> bytes | None:
        row = await self._db.fetchone("SELECT data FROM attachments WHERE id = ? AND user_key = ?",
                                      (attachment_id, user_key))
        return bytes(row["data"]) if row is not None else None
