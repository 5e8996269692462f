"""Updates as Telegram would send them, built from python-telegram-bot's own classes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from telegram import (
    CallbackQuery,
    Chat,
    Document,
    Location,
    Message,
    MessageEntity,
    PhotoSize,
    Sticker,
    Update,
    User,
    Venue,
    Voice,
)

OWNER_ID = 1001
PARTNER_ID = 1002  # also on the allowlist
STRANGER_ID = 6666


def user(user_id: int) -> User:
    return User(user_id, f"User{user_id}", False, username=f"user{user_id}")


def private_chat(user_id: int) -> Chat:
    return Chat(user_id, Chat.PRIVATE)


def _message(user_id: int, message_id: int, when: datetime, chat_id: int | None = None,
             **fields: Any) -> Message:
    return Message(message_id, when, private_chat(chat_id or user_id), from_user=user(user_id),
                   **fields)


def text(user_id: int, message_id: int, when: datetime, body: str) -> Update:
    entities = []
    if body.startswith("/"):
        word = body.split(maxsplit=1)[0]
        entities.append(MessageEntity(MessageEntity.BOT_COMMAND, 0, len(word)))
    return Update(0, message=_message(user_id, message_id, when, text=body, entities=entities))


def voice(user_id: int, message_id: int, when: datetime, file_id: str, size: int) -> Update:
    note = Voice(file_id, f"u{file_id}", duration=1, mime_type="audio/ogg", file_size=size)
    return Update(0, message=_message(user_id, message_id, when, voice=note))


def photo(user_id: int, message_id: int, when: datetime, file_id: str, size: int,
          caption: str | None = None, group: str | None = None) -> Update:
    """A photo as Telegram sends it: several sizes, the largest last."""
    sizes = (PhotoSize(f"{file_id}-thumb", f"u{file_id}-t", 90, 60, file_size=1200),
             PhotoSize(file_id, f"u{file_id}", 1280, 853, file_size=size))
    return Update(0, message=_message(user_id, message_id, when, photo=sizes, caption=caption,
                                      media_group_id=group))


def document(user_id: int, message_id: int, when: datetime, file_id: str, name: str, mime: str,
             size: int, caption: str | None = None) -> Update:
    item = Document(file_id, f"u{file_id}", file_name=name, mime_type=mime, file_size=size)
    return Update(0, message=_message(user_id, message_id, when, document=item, caption=caption))


def sticker(user_id: int, message_id: int, when: datetime) -> Update:
    item = Sticker("stk", "ustk", 512, 512, False, False, Sticker.REGULAR)
    return Update(0, message=_message(user_id, message_id, when, sticker=item))


def pin(user_id: int, message_id: int, when: datetime, lat: float, lon: float,
        accuracy: float | None = None) -> Update:
    place = Location(lon, lat, horizontal_accuracy=accuracy)
    return Update(0, message=_message(user_id, message_id, when, location=place))


def venue(user_id: int, message_id: int, when: datetime, lat: float, lon: float,
          title: str, address: str) -> Update:
    place = Location(lon, lat)
    return Update(0, message=_message(user_id, message_id, when, location=place,
                                      venue=Venue(place, title, address)))


def live_start(user_id: int, message_id: int, when: datetime, lat: float, lon: float,
               accuracy: float, period: int = 900) -> Update:
    place = Location(lon, lat, horizontal_accuracy=accuracy, live_period=period)
    return Update(0, message=_message(user_id, message_id, when, location=place))


def live_move(user_id: int, message_id: int, sent: datetime, edited: datetime, lat: float,
              lon: float, accuracy: float, period: int | None = 900) -> Update:
    """An edit of the live-location message; without live_period it is the stop."""
    place = Location(lon, lat, horizontal_accuracy=accuracy, live_period=period)
    edited_message = _message(user_id, message_id, sent, location=place, edit_date=edited)
    return Update(0, edited_message=edited_message)


def press(user_id: int, query_id: str, data: str, on_chat: int, on_message: int,
          when: datetime, bot_user: User) -> Update:
    shown = Message(on_message, when, private_chat(on_chat), from_user=bot_user, text="(approval)")
    query = CallbackQuery(query_id, user(user_id), chat_instance=f"ci{on_chat}", message=shown,
                          data=data)
    return Update(0, callback_query=query)


def group_text(user_id: int, message_id: int, when: datetime, body: str, group_id: int) -> Update:
    """A message the user writes in a group (other people read it too)."""
    return Update(0, message=Message(message_id, when, Chat(group_id, Chat.SUPERGROUP, title="Family"),
                                     from_user=user(user_id), text=body))
