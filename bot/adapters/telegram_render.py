"""Markdown to Telegram text + entities (no escaping), split at the 4096 UTF-16 unit limit.

telegramify-markdown turns Markdown into plain text plus MessageEntity offsets measured in
UTF-16 code units, and splits long text at line breaks with entities clipped into each
part. Telegram trims leading and trailing whitespace of a message, which would shift the
entities, so each part is trimmed here first and its entities adjusted.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import telegramify_markdown
from telegram import MessageEntity
from telegramify_markdown.entity import MessageEntity as ConvertedEntity
from telegramify_markdown.entity import split_entities, utf16_len

from bot.core.events import RECEIPT_MARKS, Receipt

log = logging.getLogger(__name__)

MAX_MESSAGE_UTF16 = 4096
# Room left for the header and the outcome line around an approval description.
MAX_DESCRIPTION_CHARS = 3500


@dataclass(frozen=True)
class RenderedPart:
    """One Telegram message: plain text and the entities that format it."""

    text: str
    entities: tuple[MessageEntity, ...] = ()


def render_markdown(markdown: str, limit: int = MAX_MESSAGE_UTF16) -> list[RenderedPart]:
    """Markdown to parts of at most `limit` UTF-16 units; empty text gives no parts."""
    try:
        text, entities = telegramify_markdown.convert(markdown)
    except Exception:
        # A converter bug must not lose the answer: send it as plain text instead.
        log.exception("markdown conversion failed; sending plain text")
        text, entities = markdown, []
    parts: list[RenderedPart] = []
    for chunk_text, chunk_entities in split_entities(text, list(entities), limit):
        part = _trimmed(chunk_text, chunk_entities)
        if part is not None:
            parts.append(part)
    return parts


SHOW_ALL = "📄 Show all"


def plain_with_bold_header(header: str, body: str) -> RenderedPart:
    """`header` in bold, a blank line, then `body` shown exactly as given (no Markdown).

    A body too long for one message is never cut silently: the cut says how much is not
    shown and where to see it (the "show all" button sends everything as a file).
    """
    if utf16_len(body) > MAX_DESCRIPTION_CHARS:
        shown = body[:MAX_DESCRIPTION_CHARS]
        while utf16_len(shown) > MAX_DESCRIPTION_CHARS:
            shown = shown[: len(shown) - (utf16_len(shown) - MAX_DESCRIPTION_CHARS + 1) // 2 - 1]
        body = (f"{shown}…\n\n✂️ {len(body) - len(shown)} more characters are not shown here. "
                f"Press “{SHOW_ALL}” to get everything, exactly, as a file before you decide.")
    text = f"{header}\n\n{body}"
    return RenderedPart(text, (MessageEntity(MessageEntity.BOLD, 0, utf16_len(header)),))


def append_line(part: RenderedPart, line: str) -> RenderedPart:
    """The same part with a plain line added after a blank line."""
    return RenderedPart(f"{part.text}\n\n{line}", part.entities)


def with_receipts(parts: list[RenderedPart], receipts: tuple[Receipt, ...],
                  limit: int = MAX_MESSAGE_UTF16) -> list[RenderedPart]:
    """`parts` with the receipts as a quoted block of plain lines under the last part.

    The block is plain text (no Markdown): code wrote it, and a file name like `a_b` must
    show as it is. When it does not fit in the last part it becomes a part of its own.
    """
    if not receipts:
        return parts
    block = "\n".join(f"{RECEIPT_MARKS[r.outcome]} {r.summary}" for r in receipts)
    if utf16_len(block) > limit:
        block = block[: limit - 1] + "…"
    if parts and utf16_len(parts[-1].text) + 2 + utf16_len(block) <= limit:
        last = parts[-1]
        offset = utf16_len(last.text) + 2
        quote = MessageEntity(MessageEntity.BLOCKQUOTE, offset, utf16_len(block))
        return [*parts[:-1], RenderedPart(f"{last.text}\n\n{block}", (*last.entities, quote))]
    quote = MessageEntity(MessageEntity.BLOCKQUOTE, 0, utf16_len(block))
    return [*parts, RenderedPart(block, (quote,))]


def _trimmed(text: str, entities: list[ConvertedEntity]) -> RenderedPart | None:
    stripped = text.strip()
    if not stripped:
        return None
    lead = utf16_len(text[: len(text) - len(text.lstrip())])
    total = utf16_len(stripped)
    converted: list[MessageEntity] = []
    for entity in entities:
        start = max(entity.offset - lead, 0)
        end = min(entity.offset + entity.length - lead, total)
        if end <= start:
            continue
        converted.append(
            MessageEntity(
                type=entity.type,
                offset=start,
                length=end - start,
                url=entity.url,
                language=entity.language,
                custom_emoji_id=entity.custom_emoji_id,
            )
        )
    return RenderedPart(stripped, tuple(converted))
