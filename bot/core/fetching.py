"""Files a messenger announced without their bytes: fetched later, by the chat's own worker.

An adapter stores a FileToFetch (the platform's reference, not the bytes) so it can
acknowledge the update at once; the worker asks the platform's FileFetcher for the bytes,
so a slow download holds up only its own chat. Until the item is finished it stays in the
inbox, so a crash mid-download fetches it again after the restart. Trouble that may pass
(network, flood waits) is tried again with growing waits; a refusal, or trouble that
outlasts the waits, is told to the user.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.clock import Clock
from bot.core.events import AttachmentKind, AttachmentMessage, FileKind, FileToFetch, VoiceMessage
from bot.errors import FetchError

log = logging.getLogger(__name__)

# Rounds of asking the messenger (each with the adapter's own quick retries inside), and the
# wait before the second; it doubles, so the rounds span about four minutes.
FETCH_ROUNDS = 5
FIRST_WAIT_SECONDS = 15.0


class FileFetcher(Protocol):
    """What an adapter provides so the core can download the files it announced."""

    async def fetch(self, file: FileToFetch) -> bytes:
        """The file's bytes, within the platform's size limit; raises FetchError otherwise."""
        ...


async def fetch_patiently(fetcher: FileFetcher, file: FileToFetch, clock: Clock,
                          waiting: Callable[[], Awaitable[None]] | None = None) -> bytes:
    """The file's bytes, asking again while the failure is transient; the last FetchError is raised.
    `waiting` runs once, at the first wait (the chat is held meanwhile: the user should know why)."""
    wait = FIRST_WAIT_SECONDS
    for round_ in range(FETCH_ROUNDS - 1):
        try:
            return await fetcher.fetch(file)
        except FetchError as exc:
            if not exc.transient:
                raise
            log.warning("a %s from %s could not be fetched (%s); trying again in %.0f s",
                        file.kind.value, file.chat.user_key, exc, wait)
        if round_ == 0 and waiting is not None:
            await waiting()
        await clock.sleep(wait)
        wait *= 2
    return await fetcher.fetch(file)


def as_message(file: FileToFetch, data: bytes) -> VoiceMessage | AttachmentMessage:
    """The event the file would have been had it come with its bytes."""
    if file.kind is FileKind.VOICE:
        return VoiceMessage(file.chat, data, file.filename, file.message_id, file.forwarded)
    return AttachmentMessage(file.chat, AttachmentKind(file.kind.value), data, file.filename, file.mime_type,
                             file.caption, file.message_id, file.forwarded)
