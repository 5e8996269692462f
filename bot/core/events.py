"""What flows between adapters and the core: frozen events in, frozen messages out."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class Platform(StrEnum):
    CONSOLE = "console"
    TELEGRAM = "telegram"
    MATRIX = "matrix"


class ChatKind(StrEnum):
    """Who else reads a chat: only the owner and the bot, others too, or not known."""

    PRIVATE = "private"
    GROUP = "group"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class ChatRef:
    """Where a message came from: the platform, the chat (room) and the sender.

    `kind` is what the adapter saw when the message arrived; it is not part of the
    chat's identity (a room is the same room when it grows).
    """

    platform: Platform
    chat_id: str
    user_id: str
    kind: ChatKind = field(default=ChatKind.UNKNOWN, compare=False)

    @property
    def user_key(self) -> str:
        """The id memory and approvals are keyed by; unique across platforms."""
        return f"{self.platform.value}:{self.user_id}"


class LocationSource(StrEnum):
    PIN = "pin"
    VENUE = "venue"
    LIVE = "live"
    MANUAL = "manual"


@dataclass(frozen=True)
class Location:
    latitude: float
    longitude: float
    at: datetime
    source: LocationSource
    accuracy_m: float | None = None
    label: str | None = None


@dataclass(frozen=True)
class TextMessage:
    chat: ChatRef
    text: str
    message_id: str | None = None


@dataclass(frozen=True)
class VoiceMessage:
    """A voice note; the core transcribes it (adapters never call a model)."""

    chat: ChatRef
    audio: bytes
    filename: str = "voice.ogg"
    message_id: str | None = None
    forwarded: bool = False  # passed on from someone else: their words, not the owner's request


@dataclass(frozen=True)
class CommandMessage:
    """A slash command: `/forget coffee` is name="forget", argument="coffee"."""

    chat: ChatRef
    name: str
    argument: str = ""


@dataclass(frozen=True)
class LocationShared:
    """A pin, a venue, a live-location update or its end; never starts a model turn."""

    chat: ChatRef
    location: Location | None
    live_ended: bool = False


@dataclass(frozen=True)
class ApprovalDecision:
    """A button press, reaction, reply or y/n answering an approval request.

    `always` (with approve) also asks for a standing grant for the request's scope.
    """

    chat: ChatRef
    request_id: str
    approve: bool
    always: bool = False


@dataclass(frozen=True)
class ApprovalSettled:
    """The core's own event: an approval a parked turn waits for is decided (approved,
    denied, expired or cancelled), so that turn resumes in its chat's order."""

    chat: ChatRef
    request_id: str


class AttachmentKind(StrEnum):
    PHOTO = "photo"
    DOCUMENT = "document"


@dataclass(frozen=True)
class AttachmentMessage:
    """A photo or a file with its caption; the core stores it, reads it and decides."""

    chat: ChatRef
    kind: AttachmentKind
    data: bytes
    filename: str
    mime_type: str
    caption: str = ""
    message_id: str | None = None
    forwarded: bool = False  # passed on from someone else: the caption is theirs, not a request


class FileKind(StrEnum):
    """What a file the messenger announced becomes once fetched: a voice note or an attachment."""

    VOICE = "voice"
    PHOTO = "photo"
    DOCUMENT = "document"


@dataclass(frozen=True)
class FileToFetch:
    """A voice note, photo or file the messenger announced but did not hand over yet.

    The adapter stores this (so the update is acknowledged at once) and the chat's own
    worker asks the platform's FileFetcher for the bytes: one slow download holds up
    only its chat. `ref` is the platform's handle on the bytes (a Telegram file_id).
    """

    chat: ChatRef
    kind: FileKind
    ref: str
    filename: str
    mime_type: str
    caption: str = ""
    message_id: str | None = None
    declared_size: int | None = None  # what the messenger said, if it did
    forwarded: bool = False  # passed on from someone else: its caption or speech is theirs


InboundEvent = (TextMessage | VoiceMessage | CommandMessage | LocationShared | ApprovalDecision
                | AttachmentMessage | FileToFetch)


class MessageKind(StrEnum):
    ANSWER = "answer"
    NOTICE = "notice"  # a notify-level tool ran, a location was saved, a transcription
    ERROR = "error"
    SCHEDULED = "scheduled"  # diary, briefing, digest, reminder


class ReceiptOutcome(StrEnum):
    """What really happened to one action of a turn, as the call record says."""

    DONE = "done"
    FAILED = "failed"
    DENIED = "denied"
    EXPIRED = "expired"
    CANCELLED = "cancelled"
    NOTHING_CHANGED = "nothing_changed"  # an action was asked for and none ran


@dataclass(frozen=True)
class Receipt:
    """One line written by code, in the user's language, about an action of this turn.

    `summary` is plain text (what, on what, the outcome), never Markdown: adapters show it
    as it is, marked by `outcome`, apart from the model's answer.
    """

    outcome: ReceiptOutcome
    summary: str


RECEIPT_MARKS = {
    ReceiptOutcome.DONE: "✅",
    ReceiptOutcome.FAILED: "❌",
    ReceiptOutcome.DENIED: "🚫",
    ReceiptOutcome.EXPIRED: "⌛",
    ReceiptOutcome.CANCELLED: "🚫",
    ReceiptOutcome.NOTHING_CHANGED: "ℹ️",
}


@dataclass(frozen=True)
class OutboundMessage:
    """Markdown text for a chat; the adapter renders it in its platform's format.

    `receipts` say what the turn's actions really did; adapters render them apart from
    the text (which the model wrote) so the user can tell code's word from the model's.
    """

    text: str
    kind: MessageKind = MessageKind.ANSWER
    suggestions: tuple[str, ...] = field(default_factory=tuple)
    receipts: tuple[Receipt, ...] = field(default_factory=tuple)
    ask_location: bool = False  # offer the platform's "share my location" control, if it has one
    # The same for every attempt to deliver this message (set by the outbox), so a messenger
    # that can deduplicate (Matrix transaction ids) never shows a retried send twice.
    delivery_id: str = field(default="", compare=False)


@dataclass(frozen=True)
class Progress:
    """What a slow turn is doing now, written by code; `turn_id` tells one turn's steps apart."""

    chat: ChatRef
    text: str
    turn_id: int


@dataclass(frozen=True)
class SentMessage:
    """A message the platform accepted, so it can be edited later."""

    chat: ChatRef
    message_id: str
