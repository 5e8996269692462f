"""Rendering, button data and update sanitising: the pure parts of the adapter."""

from __future__ import annotations

import json

from telegram import Chat, Message, MessageEntity
from telegramify_markdown.entity import utf16_len

from bot.adapters.telegram import (
    callback_data,
    parse_callback_data,
    parse_command,
    sanitize_updates_body,
)
from bot.adapters.telegram_render import MAX_MESSAGE_UTF16, render_markdown


def _assert_valid(parts: list) -> None:
    for part in parts:
        size = utf16_len(part.text)
        assert 0 < size <= MAX_MESSAGE_UTF16
        assert part.text == part.text.strip()
        for entity in part.entities:
            assert entity.offset >= 0 and entity.length > 0
            assert entity.offset + entity.length <= size


def test_markdown_becomes_text_and_entities_in_utf16_units() -> None:
    [part] = render_markdown("😀 **negrita** y `code` con [enlace](https://example.org)")
    assert part.text == "😀 negrita y code con enlace"
    kinds = {(e.type, e.offset, e.length) for e in part.entities}
    # The emoji is two UTF-16 units, so "negrita" starts at 3, not 2.
    assert ("bold", 3, 7) in kinds
    assert ("code", 13, 4) in kinds
    link = next(e for e in part.entities if e.type == "text_link")
    assert link.url == "https://example.org" and (link.offset, link.length) == (22, 6)


def test_long_markdown_splits_below_the_limit_with_entities_inside_each_part() -> None:
    line = "**Día** 😀 _nota_ " + "x" * 60 + " `código` [link](https://e.org/a_b)\n"
    parts = render_markdown(line * 150)
    assert len(parts) >= 3
    _assert_valid(parts)
    total_bold = sum(1 for p in parts for e in p.entities if e.type == "bold")
    assert total_bold == 150


def test_one_giant_line_without_breaks_is_still_split() -> None:
    parts = render_markdown("🙂" * 5000)
    _assert_valid(parts)
    assert "".join(p.text for p in parts) == "🙂" * 5000


def test_whitespace_only_text_renders_to_nothing() -> None:
    assert render_markdown("   \n\n ") == []


def test_callback_data_round_trips_and_rejects_forgeries() -> None:
    request_id = "AbC-_0123456789abcdefg"
    assert parse_callback_data(callback_data(request_id, True)) == (request_id, True, False)
    assert parse_callback_data(callback_data(request_id, True, True)) == (request_id, True, True)
    assert parse_callback_data(callback_data(request_id, False)) == (request_id, False, False)
    # "always" on a deny is still a deny: no grant can come from a no.
    assert parse_callback_data(callback_data(request_id, False, True)) == (request_id, False, False)
    for forged in [None, "", "ok:", "yes:" + request_id, "ok:short", "ok:" + request_id + "!",
                   "ok:../../etc", "ok:" + request_id + ":1", '{"ok": 1}']:
        assert parse_callback_data(forged) is None, forged
    assert len(callback_data(request_id, True, True).encode()) <= 64


def _command(text: str) -> Message:
    from datetime import UTC, datetime

    word = text.split(maxsplit=1)[0]
    return Message(1, datetime.now(UTC), Chat(1, Chat.PRIVATE), text=text,
                   entities=[MessageEntity(MessageEntity.BOT_COMMAND, 0, len(word))])


def test_commands_are_parsed_with_their_argument_and_addressee() -> None:
    assert parse_command(_command("/forget my coffee order"), "mayo_bot") == ("forget", "my coffee order")
    assert parse_command(_command("/Stats@mayo_bot"), "mayo_bot") == ("stats", "")
    assert parse_command(_command("/stats@other_bot"), "mayo_bot") is None


def test_a_malformed_update_in_a_batch_becomes_a_bare_update_and_the_rest_is_kept() -> None:
    good = {"update_id": 8, "message": {"message_id": 1, "date": 1, "chat": {"id": 1, "type": "private"},
                                        "text": "hi"}}
    body = json.dumps({"ok": True, "result": [
        {"update_id": 7, "message": {"message_id": 1}},  # no date, no chat
        good,
        {"message": "no id at all"},
    ]}).encode()
    result = json.loads(sanitize_updates_body(body))["result"]
    assert result == [{"update_id": 7}, good]
