"""The one agent core every adapter feeds: `handle(event)` and `decide(decision)`.

Turns are serialised per chat (other chats run in parallel); decisions on approvals
bypass that lock, since the turn waiting for them holds it. The user's words are stored
before any model call. Replies leave through the Messenger of the event's platform.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import PurePosixPath

from bot.core import replies
from bot.core.approvals import ApprovalBroker, ApprovalOutcome, ApprovalRequest, DecisionResult
from bot.core.deps import CoreDeps
from bot.core.documents import READABLE, DocumentError, extract_text, readable
from bot.core.events import (
    ApprovalDecision,
    AttachmentKind,
    AttachmentMessage,
    ChatRef,
    CommandMessage,
    InboundEvent,
    Location,
    LocationShared,
    LocationSource,
    MessageKind,
    OutboundMessage,
    Platform,
    Progress,
    SentMessage,
    TextMessage,
    VoiceMessage,
)
from bot.core.images import IMAGE_SUFFIXES, ImageError, data_url, downscaled_jpeg
from bot.core.language import detect_language
from bot.core.messenger import Messenger
from bot.core.prompt import PromptSource
from bot.core.routing import SkillRouter, ToolExposure
from bot.core.toolset import ConversationToolSets
from bot.core.turn import NOT_KEPT, TurnAttachment, TurnDeps, TurnRunner
from bot.errors import ConfigError, ModelError
from memory.attachments import AttachmentStore
from memory.locations import LocationStore
from memory.messages import ChatDirectory, MessageStore
from memory.turns import TurnStore

log = logging.getLogger(__name__)

CommandHandler = Callable[[CommandMessage], Awaitable[OutboundMessage]]
TurnListener = Callable[[ChatRef, int], Awaitable[None]]


@dataclass(frozen=True)
class _Command:
    handler: CommandHandler
    help: str


class Assistant:
    def __init__(self, deps: CoreDeps) -> None:
        self.deps = deps
        core = deps.settings.core
        self.messages = MessageStore(deps.db)
        self.turns = TurnStore(deps.db)
        self.locations = LocationStore(deps.db)
        self.chats = ChatDirectory(deps.db)
        self.attachments = AttachmentStore(deps.db)
        self.broker = ApprovalBroker(deps.db, deps.clock, timedelta(seconds=core.approval_timeout_seconds))
        self.prompt_sources: list[PromptSource] = []
        self.turn_listeners: list[TurnListener] = []
        self._messengers: dict[Platform, Messenger] = {}
        self._locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._commands: dict[str, _Command] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner = TurnRunner(TurnDeps(
            core=lambda: self.deps, messages=self.messages, turns=self.turns, locations=self.locations,
            broker=self.broker, prompt_sources=self.prompt_sources, send=self.send, typing=self.typing,
            present_approval=self.present_approval, show_outcome=self.show_outcome,
            attachments=self.attachments, show_progress=self.show_progress,
            tool_sets=ConversationToolSets(timedelta(minutes=deps.settings.router.tool_set_idle_minutes)),
        ))
        self._add_builtin_commands()

    # -- wiring ----------------------------------------------------------------------
    def use_router(self, router: SkillRouter, exposure: ToolExposure) -> None:
        """Swap in the real router once every skill is registered (it describes them all)."""
        self.deps = replace(self.deps, router=router, exposure=exposure)

    def add_messenger(self, messenger: Messenger) -> None:
        self._messengers[messenger.platform] = messenger

    def messenger(self, platform: Platform) -> Messenger:
        try:
            return self._messengers[platform]
        except KeyError:
            raise ConfigError(f"no adapter is running for {platform.value}") from None

    def add_command(self, name: str, handler: CommandHandler, help_text: str) -> None:
        self._commands[name] = _Command(handler, help_text)

    def add_prompt_source(self, source: PromptSource) -> None:
        self.prompt_sources.append(source)

    def add_turn_listener(self, listener: TurnListener) -> None:
        self.turn_listeners.append(listener)

    @property
    def commands(self) -> dict[str, str]:
        return {name: command.help for name, command in sorted(self._commands.items())}

    async def start(self) -> None:
        """Resolve approvals a previous process left pending as cancelled, and say so."""
        for request in await self.broker.cancel_stale():
            messenger = self._messengers.get(request.chat.platform)
            if messenger is not None and request.message_id:
                await self._best_effort(messenger.show_approval_outcome(request, ApprovalOutcome.CANCELLED))

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- inbound ---------------------------------------------------------------------
    async def handle(self, event: InboundEvent) -> None:
        """Answer one event from an allowlisted user; never raises for bad input."""
        if isinstance(event, ApprovalDecision):
            await self.decide(event)
            return
        await self.chats.seen(event.chat, self.deps.clock.now())
        if isinstance(event, LocationShared):
            await self._location(event)
            return
        async with self._locks[f"{event.chat.platform}:{event.chat.chat_id}"]:
            try:
                if isinstance(event, CommandMessage):
                    await self._command(event)
                elif isinstance(event, VoiceMessage):
                    await self._voice(event)
                elif isinstance(event, AttachmentMessage):
                    await self._attachment(event)
                elif isinstance(event, TextMessage):
                    await self._text(event.chat, event.text)
            except Exception:
                log.exception("turn failed for %s", event.chat.user_key)
                said = event.text if isinstance(event, TextMessage) else ""
                lang = detect_language(said, self.deps.settings.core.language)
                await self.send(event.chat, OutboundMessage(replies.internal_error(lang), MessageKind.ERROR))

    async def decide(self, decision: ApprovalDecision) -> DecisionResult:
        result = await self.broker.decide(decision)
        log.debug("approval %s… decided by %s: %s", decision.request_id[:6], decision.chat.user_key, result)
        return result

    # -- outbound --------------------------------------------------------------------
    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage | None:
        return await self.messenger(chat.platform).send(chat, message)

    async def deliver(self, user_key: str, message: OutboundMessage) -> SentMessage | None:
        """Post a scheduled message into the user's private chat (or the chat configured for
        it); None when there is none: the diary or a briefing never goes to a group by default."""
        chat = self._configured_chat(user_key) or await self.chats.private(user_key)
        if chat is None or chat.platform not in self._messengers:
            log.warning("no private chat to deliver a %s message to %s", message.kind, user_key)
            return None
        return await self.send(chat, message)

    def _configured_chat(self, user_key: str) -> ChatRef | None:
        chat_id = self.deps.settings.core.scheduled_chats.get(user_key)
        if not chat_id:
            return None
        platform, _, user_id = user_key.partition(":")
        return ChatRef(Platform(platform), chat_id, user_id)

    async def present_approval(self, request: ApprovalRequest) -> ApprovalRequest:
        messenger = self._messengers.get(request.chat.platform)
        if messenger is None:
            return request
        sent = await messenger.present_approval(request)
        if sent is not None:
            return await self.broker.attach_message(request, sent.message_id)
        return request

    async def show_outcome(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> None:
        messenger = self._messengers.get(request.chat.platform)
        if messenger is not None:
            await self._best_effort(messenger.show_approval_outcome(request, outcome))

    async def show_progress(self, update: Progress) -> None:
        messenger = self._messengers.get(update.chat.platform)
        show = getattr(messenger, "show_progress", None)  # messengers written before progress lack it
        if show is not None:
            await self._best_effort(show(update))

    async def typing(self, chat: ChatRef) -> None:
        messenger = self._messengers.get(chat.platform)
        if messenger is not None:
            await self._best_effort(messenger.typing(chat))

    # -- the kinds of event ------------------------------------------------------------
    async def _text(self, chat: ChatRef, text: str, attached: TurnAttachment | None = None) -> None:
        core = self.deps.settings.core
        now = self.deps.clock.now()
        lang = detect_language(text, core.language)
        if not text.strip() and attached is None:
            await self.send(chat, OutboundMessage(replies.empty_message(lang), MessageKind.ERROR))
            return
        if len(text) > core.max_message_chars:
            # Kept whole in layer A (nothing lost) but not sent to the model.
            await self.messages.add(chat, "user", text, now, oversized=True)
            await self.send(chat, OutboundMessage(
                replies.too_long(lang, len(text), core.max_message_chars), MessageKind.ERROR))
            return
        stored = f"{text}\n{attached.note}".strip() if attached is not None else text
        message_id = await self.messages.add(chat, "user", stored, now)
        if self.deps.model is None:
            await self.send(chat, OutboundMessage(replies.no_model(lang), MessageKind.ERROR))
            return
        await self.typing(chat)
        outcome = await self._runner.run(chat, text, message_id, lang, attached)
        kept = outcome.answer if outcome.keep_text else NOT_KEPT
        await self.messages.add(chat, "assistant", kept, self.deps.clock.now(), turn_id=outcome.turn_id)
        await self.send(chat, OutboundMessage(outcome.answer, outcome.kind, outcome.suggestions,
                                              outcome.receipts))
        for listener in self.turn_listeners:
            await self._best_effort(listener(chat, outcome.turn_id))

    async def _attachment(self, event: AttachmentMessage) -> None:
        """Keep the original, read what can be read, and let the model see it (or say why not)."""
        settings = self.deps.settings
        core = settings.core
        chat = event.chat
        lang = detect_language(event.caption, core.language)
        size = len(event.data)
        if size > core.max_attachment_bytes:
            await self.send(chat, OutboundMessage(replies.attachment_too_big(lang, size, core.max_attachment_bytes),
                                                  MessageKind.ERROR))
            return
        kind = event.kind
        if kind is AttachmentKind.DOCUMENT and (
                event.mime_type.startswith("image/") or PurePosixPath(event.filename.lower()).suffix in IMAGE_SUFFIXES):
            kind = AttachmentKind.PHOTO  # a photo sent "as a file" is still a photo
        if kind is AttachmentKind.DOCUMENT and not readable(event.filename, event.mime_type):
            await self.send(chat, OutboundMessage(replies.unreadable_format(lang, event.filename, READABLE),
                                                  MessageKind.ERROR))
            return
        attachment_id = await self.attachments.add(chat, kind, event.filename, event.mime_type, event.data,
                                                   self.deps.clock.now())
        if kind is AttachmentKind.PHOTO:
            attached = await self._photo(event, attachment_id, lang)
        else:
            attached = await self._document(event, attachment_id, lang)
        if attached is not None:
            await self._text(chat, event.caption, attached)

    async def _photo(self, event: AttachmentMessage, attachment_id: int, lang: str) -> TurnAttachment | None:
        settings = self.deps.settings
        if not settings.llm.sees_images:
            await self.send(event.chat, OutboundMessage(replies.photo_needs_vision(lang, attachment_id),
                                                        MessageKind.NOTICE))
            if not event.caption.strip():
                return None
            # The caption may still ask for something that needs no eyes ("save it in my notes").
            return TurnAttachment(note=replies.photo_unseen_note(attachment_id))
        try:
            jpeg = await asyncio.to_thread(downscaled_jpeg, event.data, settings.core.image_max_side)
        except ImageError as exc:
            await self.attachments.set_text(attachment_id, None, str(exc))
            await self.send(event.chat, OutboundMessage(replies.attachment_unreadable(lang, str(exc), attachment_id),
                                                        MessageKind.ERROR))
            return None
        return TurnAttachment(note=replies.photo_note(attachment_id), image_url=data_url(jpeg))

    async def _document(self, event: AttachmentMessage, attachment_id: int, lang: str) -> TurnAttachment | None:
        core = self.deps.settings.core
        try:
            text, cut = await asyncio.to_thread(extract_text, event.data, event.filename, event.mime_type,
                                                core.attachment_text_chars)
        except DocumentError as exc:
            await self.attachments.set_text(attachment_id, None, str(exc))
            await self.send(event.chat, OutboundMessage(replies.attachment_unreadable(lang, str(exc), attachment_id),
                                                        MessageKind.ERROR))
            return None
        await self.attachments.set_text(attachment_id, text, None)
        note = replies.document_note(event.filename, attachment_id, len(event.data),
                                     core.attachment_text_chars if cut else None)
        return TurnAttachment(note=note, document_text=text)

    async def _voice(self, event: VoiceMessage) -> None:
        lang = detect_language("", self.deps.settings.core.language)
        model = self.deps.model
        if model is None or not self.deps.settings.llm.transcription_model:
            await self.send(event.chat, OutboundMessage(replies.no_transcription(lang), MessageKind.ERROR))
            return
        await self.typing(event.chat)
        try:
            text = await model.transcribe(event.audio, event.filename, user_key=event.chat.user_key)
        except ModelError as exc:
            log.warning("transcription failed: %s", exc)
            await self.send(event.chat, OutboundMessage(replies.transcription_failed(lang), MessageKind.ERROR))
            return
        if not text:
            await self.send(event.chat, OutboundMessage(replies.transcription_empty(lang), MessageKind.ERROR))
            return
        await self.send(event.chat, OutboundMessage(f"🎙️ _{text}_", MessageKind.NOTICE))
        await self._text(event.chat, text)

    async def _location(self, event: LocationShared) -> None:
        """Store it; never wakes the model. A pin, or the start of a live session, gets one
        short note so the user knows it arrived; the stream of live updates gets none."""
        user_key = event.chat.user_key
        if event.live_ended:
            await self.locations.end_live(user_key)
            return
        if event.location is None:
            return
        live = event.location.source is LocationSource.LIVE
        core = self.deps.settings.core
        before = await self.locations.read(user_key, self.deps.clock.now(),
                                           timedelta(minutes=core.location_max_age_minutes))
        await self.locations.update(user_key, event.location, live=live)
        if live and before is not None and before.live:
            return
        await self.send(event.chat, OutboundMessage(replies.location_saved(event.location, live), MessageKind.NOTICE))

    async def _command(self, event: CommandMessage) -> None:
        command = self._commands.get(event.name.lower())
        if command is None:
            await self.send(event.chat, OutboundMessage(replies.unknown_command(event.name, self.commands)))
            return
        await self.send(event.chat, await command.handler(event))

    def _add_builtin_commands(self) -> None:
        async def start(event: CommandMessage) -> OutboundMessage:
            return OutboundMessage(replies.welcome(self.deps.settings.core.assistant_name, self.commands))

        async def help_(event: CommandMessage) -> OutboundMessage:
            return OutboundMessage(replies.help_text(self.commands))

        async def reset(event: CommandMessage) -> OutboundMessage:
            await self.messages.mark_reset(event.chat)
            return OutboundMessage(replies.reset_done())

        async def location(event: CommandMessage) -> OutboundMessage:
            core = self.deps.settings.core
            reading = await self.locations.read(
                event.chat.user_key, self.deps.clock.now(), timedelta(minutes=core.location_max_age_minutes)
            )
            return OutboundMessage(replies.location_status(reading), ask_location=True)

        async def pin(event: CommandMessage) -> OutboundMessage:
            parts = event.argument.replace(",", " ").split()
            try:
                lat, lon = float(parts[0]), float(parts[1])
            except (IndexError, ValueError):
                return OutboundMessage(replies.pin_usage(), MessageKind.ERROR)
            if not (-90 <= lat <= 90 and -180 <= lon <= 180):
                return OutboundMessage(replies.pin_out_of_range(), MessageKind.ERROR)
            place = Location(lat, lon, self.deps.clock.now(), LocationSource.MANUAL)
            await self.locations.update(event.chat.user_key, place, live=False)
            return OutboundMessage(replies.location_saved(place, False), MessageKind.NOTICE)

        async def permissions(event: CommandMessage) -> OutboundMessage:
            grants = self.broker.grants
            user_key = event.chat.user_key
            words = event.argument.split()
            if not words:
                return OutboundMessage(replies.permissions_list(
                    [(g.id, g.description) for g in await grants.active(user_key)]))
            if words[0].lower() in ("revoke", "revocar", "quitar") and len(words) == 2:
                target = words[1].lower()
                now = self.deps.clock.now()
                if target in ("all", "todo", "todos"):
                    return OutboundMessage(replies.permissions_revoked(await grants.revoke(user_key, None, now)))
                if target.isdigit():
                    return OutboundMessage(replies.permissions_revoked(
                        await grants.revoke(user_key, int(target), now)))
            return OutboundMessage(replies.permissions_usage(), MessageKind.ERROR)

        self.add_command("start", start, "say hello and list what I can do")
        self.add_command("help", help_, "list the commands")
        self.add_command("reset", reset, "start a fresh conversation (memory is kept)")
        self.add_command("location", location, "show the location I know and its age (and a button to share it)")
        self.add_command("pin", pin, "set your location by hand: /pin LATITUDE LONGITUDE")
        self.add_command("permissions", permissions,
                         "list what I may do without asking; /permissions revoke N (or all)")

    async def _best_effort(self, work: Awaitable[object]) -> None:
        try:
            await work
        except Exception:
            log.exception("best-effort call failed")
