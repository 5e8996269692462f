"""The one agent core every adapter feeds: `receive(event)` and `decide(decision)`.

`receive` stores an event durably (the inbox; a location goes straight to its table)
before the adapter acknowledges it to the messenger; each chat's inbox is then worked
through in order by one worker, other chats in parallel. A turn that needs an approval
parks (bot/core/parking.py) and frees its chat; the decision is applied at once and the
parked turn's resumption is queued in the chat's inbox like any event. Replies go to the outbox,
in the same transaction as the state they report, and leave through the Messenger of
the chat's platform. After a restart, work a previous process left unfinished resumes,
or the user is told in one line that it was cut short.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import PurePosixPath

from bot.core import replies
from bot.core.approvals import ApprovalBroker, ApprovalOutcome, ApprovalRequest, DecisionResult
from bot.core.deps import CoreDeps
from bot.core.documents import READABLE, DocumentError, extract_text, readable
from bot.core.events import (
    ApprovalDecision,
    ApprovalSettled,
    AttachmentKind,
    AttachmentMessage,
    ChatRef,
    CommandMessage,
    FileToFetch,
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
from bot.core.fetching import FileFetcher, as_message, fetch_patiently
from bot.core.images import IMAGE_SUFFIXES, ImageError, data_url, downscaled_jpeg
from bot.core.inbox import Inbox, InboxItem, InboxStatus, QueuedEvent
from bot.core.language import detect_language
from bot.core.messenger import Messenger
from bot.core.outbox import Outbox
from bot.core.ownership import HEARTBEAT_SECONDS, Ownership
from bot.core.parking import Continuation, ParkedTurns
from bot.core.prompt import PromptSource
from bot.core.routing import SkillRouter, ToolExposure
from bot.core.routing.toolset import ConversationToolSets
from bot.core.turn import NOT_KEPT, Parked, TurnAttachment, TurnDeps, TurnOutcome, TurnRunner
from bot.errors import ConfigError, FetchError, ModelError
from memory.attachments import AttachmentStore
from memory.locations import LocationStore
from memory.messages import ChatDirectory, MessageStore, chat_key, with_note
from memory.turns import TurnStore

log = logging.getLogger(__name__)

CommandHandler = Callable[[CommandMessage], Awaitable[OutboundMessage]]
TurnListener = Callable[[ChatRef, int], Awaitable[None]]

# An event cut short by a restart runs again once; a second cut means something in it
# keeps killing the process, so the user is told instead.
MAX_ATTEMPTS = 2
# Telegram's own limit for a command name; longer ones are cut when quoted back.
MAX_QUOTED_COMMAND = 32


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
        self.parked = ParkedTurns(deps.db)
        self.prompt_sources: list[PromptSource] = []
        self.turn_listeners: list[TurnListener] = []
        self._messengers: dict[Platform, Messenger] = {}
        self._fetchers: dict[Platform, FileFetcher] = {}
        self._commands: dict[str, _Command] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner = TurnRunner(TurnDeps(
            core=lambda: self.deps, messages=self.messages, turns=self.turns, locations=self.locations,
            broker=self.broker, prompt_sources=self.prompt_sources, send=self.send, typing=self.typing,
            present_approval=self.present_approval, show_outcome=self.show_outcome,
            attachments=self.attachments, show_progress=self.show_progress,
            tool_sets=ConversationToolSets(timedelta(minutes=deps.settings.router.tool_set_idle_minutes), deps.db),
        ))
        self.worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.inbox = Inbox(deps.db, self.worker_id)
        self.ownership = Ownership(deps.db, self.worker_id)
        self.outbox = Outbox(deps.db, deps.clock, self.worker_id, core.zone, core.language,
                             self._messengers.get)
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._kicked: set[str] = set()
        self._current: dict[str, int] = {}
        self._waiters: dict[int, asyncio.Future[None]] = {}  # by inbox id, until the event's turn answers
        self._parking: set[int] = set()  # inbox ids whose turn parked in this run of `_process`
        self._expiries: dict[str, asyncio.Task[None]] = {}
        self._accepting = True
        self._delivery: asyncio.Task[None] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._add_builtin_commands()

    # -- wiring ----------------------------------------------------------------------
    def use_router(self, router: SkillRouter, exposure: ToolExposure) -> None:
        """Swap in the real router once every skill is registered (it describes them all)."""
        self.deps = replace(self.deps, router=router, exposure=exposure)

    def add_messenger(self, messenger: Messenger) -> None:
        self._messengers[messenger.platform] = messenger
        # An answer may have been ready before its adapter registered (an event of the first sync).
        with contextlib.suppress(RuntimeError):  # no event loop yet: nothing can have waited
            asyncio.get_running_loop()
            self._in_background(self.outbox.platform_ready(messenger.platform))

    def add_file_fetcher(self, platform: Platform, fetcher: FileFetcher) -> None:
        """How the chats' workers download the files this platform's adapter stored unfetched."""
        self._fetchers[platform] = fetcher

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
        """Recover what a previous process left: approvals, cut-short turns, queued events.

        Approvals still pending are cancelled (nobody may be waiting on them any more, and
        silence is never consent), or expired if their time ran out meanwhile; the turns
        parked on them resume and say it was not done.
        """
        previous = await self.ownership.take(self.deps.clock.now())
        for outcome, requests in ((ApprovalOutcome.EXPIRED, await self.broker.expire_overdue()),
                                  (ApprovalOutcome.CANCELLED, await self.broker.cancel_stale())):
            for request in requests:
                messenger = self._messengers.get(request.chat.platform)
                if messenger is not None and request.message_id:
                    await self._best_effort(messenger.show_approval_outcome(request, outcome))
        await self._recover_interrupted(previous)
        await self.outbox.take_over(previous, self.deps.clock.now())
        self._heartbeat = asyncio.create_task(self._keep_claims(), name="heartbeat")
        for continuation in await self.parked.all():
            await self._queue_resume(continuation.chat, continuation.approval_id)
        self._delivery = asyncio.create_task(self.outbox.run(), name="outbox")
        for key in await self.inbox.chats_with_work():
            self._kick(key)

    async def drain(self, grace_seconds: float) -> None:
        """Stop taking new work; let running turns finish for up to `grace_seconds`.

        Turns still running then are cancelled; their events stay claimed in the inbox
        and the next start resumes them (or tells the user they were cut short).
        """
        self._accepting = False
        workers = list(self._workers.values())
        if workers:
            _, still = await asyncio.wait(workers, timeout=grace_seconds)
            for task in still:
                task.cancel()
            if still:
                log.warning("stopping: %d turn(s) cut short; they resume at the next start", len(still))
                await asyncio.gather(*still, return_exceptions=True)

    async def stop(self) -> None:
        self._accepting = False
        tasks = [*self._tasks, *self._workers.values(), *self._expiries.values()]
        for background in (self._delivery, self._heartbeat):
            if background is not None:
                tasks.append(background)
        self._delivery = self._heartbeat = None
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        # Nobody can answer an approval of a stopped process: cancelled now, so the adapters
        # edit the messages; parked turns resume at the next start and say it was not done.
        await self.broker.cancel_stale()

    # -- inbound ---------------------------------------------------------------------
    async def receive(self, event: InboundEvent, source: str | None = None) -> int | None:
        """Take an event from an adapter: stored (or applied) durably when this returns.

        `source` names the event on its platform (a Telegram update id, a Matrix event id)
        so a redelivered one is not queued twice. Returns the inbox id of queued work.
        """
        if isinstance(event, ApprovalDecision):
            await self.decide(event)
            return None
        await self.chats.seen(event.chat, self.deps.clock.now())
        if isinstance(event, LocationShared):
            try:
                await self._location(event)
            except Exception:
                log.exception("location from %s not handled", event.chat.user_key)
            return None
        item_id = await self.inbox.put(event, self.deps.clock.now(), source)
        if item_id is not None:
            self._kick(chat_key(event.chat))
        return item_id

    async def receive_many(self, events: Sequence[tuple[QueuedEvent, str | None]]) -> list[int | None]:
        """Store a run of events (with their sources) in one durable commit, in order; per
        event its inbox id, or None if its source was stored before."""
        now = self.deps.clock.now()
        for chat in dict.fromkeys(event.chat for event, _ in events):
            await self.chats.seen(chat, now)
        ids = await self.inbox.put_many(events, now)
        for (event, _), item_id in zip(events, ids, strict=True):
            if item_id is not None:
                self._kick(chat_key(event.chat))
        return ids

    async def handle(self, event: InboundEvent) -> None:
        """Receive an event and wait until its chat has worked through it; never raises for bad input."""
        item_id = await self.receive(event)
        if item_id is None:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiters[item_id] = future
        if await self.inbox.status(item_id) in (InboxStatus.DONE, InboxStatus.INTERRUPTED):
            self._waiters.pop(item_id, None)
            return
        try:
            await future
        except asyncio.CancelledError:
            # Whoever waited went away (the console's input closed): so does the turn.
            self._waiters.pop(item_id, None)
            key = chat_key(event.chat)
            worker = self._workers.get(key)
            if worker is not None and self._current.get(key) == item_id:
                worker.cancel()
            continuation = await asyncio.shield(self.parked.of_event(item_id))
            if continuation is not None:
                await asyncio.shield(self.cancel_approval(continuation.approval_id))
            raise

    async def decide(self, decision: ApprovalDecision) -> DecisionResult:
        """Apply a decision now (never queued behind the chat); the turn it was for resumes in order."""
        result = await self.broker.decide(decision)
        log.debug("approval %s… decided by %s: %s", decision.request_id[:6], decision.chat.user_key, result)
        if result in (DecisionResult.ACCEPTED, DecisionResult.ACCEPTED_ALWAYS):
            await self._settled(decision.request_id)
        # A press after the expiry time may be what marks a request expired; its timer,
        # due by then, resumes the turn (one edit of the message, one resumption).
        return result

    async def _settled(self, request_id: str) -> None:
        """A request stopped pending: show how, and queue the resumption of its parked turn."""
        timer = self._expiries.pop(request_id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        request = await self.broker.get(request_id)
        if request is None:
            return
        outcome = await self.broker.status(request_id)
        if request.message_id:
            self._in_background(self.show_outcome(request, outcome))
        await self._queue_resume(request.chat, request_id)

    async def _queue_resume(self, chat: ChatRef, request_id: str) -> None:
        # Keyed by the request: a decision and a restart queue the resumption once between them.
        if await self.inbox.put(ApprovalSettled(chat, request_id), self.deps.clock.now(),
                                source=f"approval:{request_id}") is not None:
            self._kick(chat_key(chat))

    async def cancel_approval(self, request_id: str) -> None:
        """Nobody is left to answer (the console's input closed): the request is cancelled."""
        if await self.broker.cancel(request_id):
            await self._settled(request_id)

    def _expire_later(self, request: ApprovalRequest) -> None:
        """Silence is never consent: at its expiry a request still pending becomes expired."""
        async def expire() -> None:
            await self.deps.clock.sleep((request.expires_at - self.deps.clock.now()).total_seconds())
            expired = await self.broker.expire_if_due(request.id)
            if expired or await self.broker.status(request.id) is ApprovalOutcome.EXPIRED:
                await self._settled(request.id)
            self._expiries.pop(request.id, None)

        if request.id not in self._expiries:
            self._expiries[request.id] = asyncio.create_task(self._best_effort(expire()),
                                                             name=f"approval expiry {request.id[:6]}")

    def _kick(self, key: str) -> None:
        """Make sure one worker goes through this chat's inbox."""
        self._kicked.add(key)
        if key in self._workers or not self._accepting:
            return
        self._workers[key] = asyncio.create_task(self._work(key), name=f"chat {key}")

    async def _work(self, key: str) -> None:
        try:
            while self._accepting:
                self._kicked.discard(key)
                item = await self.inbox.claim_next(key, self.deps.clock.now())
                if item is None:
                    if key in self._kicked:
                        continue
                    return
                self._current[key] = item.id
                await self._process(item)
        finally:
            # Synchronous with the last check above: a kick after it starts a new worker.
            self._workers.pop(key, None)
            self._current.pop(key, None)

    async def _process(self, item: InboxItem) -> None:
        event = item.event
        try:
            if isinstance(event, ApprovalSettled):
                await self._resume(event, item)
            elif isinstance(event, CommandMessage):
                await self._command(event)
            elif isinstance(event, VoiceMessage):
                await self._voice(event, item)
            elif isinstance(event, AttachmentMessage):
                await self._attachment(event, item)
            elif isinstance(event, FileToFetch):
                await self._file(event, item)
            else:
                await self._text(event.chat, event.text, item)
        except Exception:
            log.exception("turn failed for %s", event.chat.user_key)
            said = event.text if isinstance(event, TextMessage) else ""
            lang = detect_language(said, self.deps.settings.core.language)
            await self._best_effort(self.send(event.chat, OutboundMessage(replies.internal_error(lang),
                                                                          MessageKind.ERROR)))
        await self.inbox.finish(item.id, self.deps.clock.now())
        if item.id in self._parking:
            self._parking.discard(item.id)  # answered when its turn resumes
        else:
            self._answered(item.id)

    def _answered(self, item_id: int) -> None:
        waiter = self._waiters.pop(item_id, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _keep_claims(self) -> None:
        """Renew the leases of running turns and sends, so no other worker takes them over."""
        while True:
            await self.deps.clock.sleep(HEARTBEAT_SECONDS)
            now = self.deps.clock.now()
            try:
                await self.inbox.renew(now)
                await self.outbox.renew(now)
                await self.ownership.seen(now)
            except Exception:
                log.exception("heartbeat: leases not renewed")

    async def _recover_interrupted(self, previous: str | None) -> None:
        """Events a previous process left running: run again, or say they were cut short."""
        db = self.deps.db
        now = self.deps.clock.now()
        unfinished: dict[str, list[int]] = {}
        for row in await db.fetchall("SELECT id, chat_key FROM turns WHERE finished_at IS NULL"
                                     " AND id NOT IN (SELECT turn_id FROM parked_turns)"):
            unfinished.setdefault(row["chat_key"], []).append(row["id"])
        for item in await self.inbox.running(previous, now):
            if isinstance(item.event, ApprovalSettled):
                await self._recover_resumption(item.event, item)
                continue
            turn_ids = unfinished.get(chat_key(item.chat), [])
            done = await self._acted(turn_ids)
            asked = await self._asked(turn_ids)
            if done or asked or item.attempts >= MAX_ATTEMPTS or isinstance(item.event, CommandMessage):
                lang = detect_language(item.said, self.deps.settings.core.language)
                notice = OutboundMessage(replies.interrupted(lang, item.said, done), MessageKind.ERROR)
                async with db.transaction() as tx:
                    await self.outbox.put(item.chat, notice, tx)
                    await self.inbox.finish(item.id, now, tx, InboxStatus.INTERRUPTED)
                log.warning("inbox %s was cut short by a restart; the user is told", item.id)
            else:
                await self.inbox.requeue(item.id)
                log.info("inbox %s was cut short by a restart; running it again", item.id)
        closed = await db.rowcount(
            "UPDATE turns SET finished_at = ?, outcome = 'interrupted' WHERE finished_at IS NULL"
            " AND id NOT IN (SELECT turn_id FROM parked_turns)",
            (now.isoformat(),),
        )
        if closed:
            log.warning("closed %d turn(s) a previous process left unfinished", closed)

    async def _recover_resumption(self, event: ApprovalSettled, item: InboxItem) -> None:
        """A parked turn cut short while it resumed: its approved call may have run, so it is
        never run again; the user is told, with what the turn had done."""
        now = self.deps.clock.now()
        continuation = await self.parked.waiting_for(event.request_id)
        notice: OutboundMessage | None = None
        if continuation is not None:
            said = str(json.loads(continuation.state).get("user_text", ""))
            lang = detect_language(said, self.deps.settings.core.language)
            done = await self._acted([continuation.turn_id])
            notice = OutboundMessage(replies.interrupted(lang, said, done), MessageKind.ERROR)
        async with self.deps.db.transaction() as tx:
            await self.inbox.finish(item.id, now, tx, InboxStatus.INTERRUPTED)
            if continuation is not None and notice is not None:
                await self.outbox.put(continuation.chat, notice, tx)
                await self.inbox.finish(continuation.inbox_id, now, tx, InboxStatus.INTERRUPTED)
                await self.parked.drop(continuation.turn_id, tx)
        log.warning("approval %s…: its turn was cut short while resuming; the user is told", event.request_id[:6])

    async def _acted(self, turn_ids: list[int]) -> list[str]:
        """What the cut-short turns changed (so running them again could repeat it)."""
        if not turn_ids:
            return []
        marks = ",".join("?" * len(turn_ids))
        rows = await self.deps.db.fetchall(
            f"SELECT tool, status FROM tool_calls WHERE turn_id IN ({marks}) AND risk != 'READ'"
            " AND status = 'ok' ORDER BY id", tuple(turn_ids),
        )
        return [row["tool"] for row in rows]

    async def _asked(self, turn_ids: list[int]) -> bool:
        if not turn_ids:
            return False
        marks = ",".join("?" * len(turn_ids))
        row = await self.deps.db.fetchone(
            f"SELECT 1 FROM approvals WHERE turn_id IN ({marks}) LIMIT 1", tuple(turn_ids))
        return row is not None

    # -- outbound --------------------------------------------------------------------
    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage | None:
        """Queue a message and try to deliver it now; None if it has to wait for a retry."""
        item_id = await self.outbox.put(chat, message)
        delivered = await self.outbox.flush(chat)
        # The background sender may have got there first.
        return delivered.get(item_id) or await self.outbox.sent(item_id)

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
    async def _text(self, chat: ChatRef, text: str, item: InboxItem,
                    attached: TurnAttachment | None = None) -> None:
        core = self.deps.settings.core
        db = self.deps.db
        now = self.deps.clock.now()
        lang = detect_language(text, core.language)
        if not text.strip() and attached is None:
            await self.send(chat, OutboundMessage(replies.empty_message(lang), MessageKind.ERROR))
            return
        oversized = len(text) > core.max_message_chars
        message_id = item.message_id
        if message_id is None:  # not already stored by a run a restart cut short
            stored = with_note(text, attached.note) if attached is not None and not oversized else text
            async with db.transaction() as tx:
                # Oversized: kept whole in layer A (nothing lost) but not sent to the model.
                message_id = await self.messages.add(chat, "user", stored, now, oversized=oversized, tx=tx)
                await self.inbox.attach_message(item.id, message_id, tx)
        if oversized:
            await self.send(chat, OutboundMessage(
                replies.too_long(lang, len(text), core.max_message_chars), MessageKind.ERROR))
            return
        if self.deps.model is None:
            await self.send(chat, OutboundMessage(replies.no_model(lang), MessageKind.ERROR))
            return
        await self.typing(chat)
        result = await self._runner.run(chat, text, message_id, lang, attached)
        if isinstance(result, Parked):
            await self._park(chat, item.id, result, event_id=item.id)
            return
        await self._reply(chat, result, item.id)

    async def _reply(self, chat: ChatRef, outcome: TurnOutcome, *events: int, parked: int | None = None) -> None:
        """The turn's answer: on record, queued for delivery and `events` done, all together."""
        db = self.deps.db
        kept = outcome.answer if outcome.keep_text else NOT_KEPT
        answer = OutboundMessage(outcome.answer, outcome.kind, outcome.suggestions, outcome.receipts)
        async with db.transaction() as tx:
            await self.messages.add(chat, "assistant", kept, self.deps.clock.now(), turn_id=outcome.turn_id, tx=tx)
            await self.outbox.put(chat, answer, tx)
            for event_id in events:
                await self.inbox.finish(event_id, self.deps.clock.now(), tx)
            if parked is not None:
                await self.parked.drop(parked, tx)
        await self.outbox.flush(chat)
        for listener in self.turn_listeners:
            # After the turn, not in it: the chat's next message does not wait for memory work.
            self._in_background(listener(chat, outcome.turn_id))

    async def _park(self, chat: ChatRef, item_id: int, parked: Parked, event_id: int) -> None:
        """Save the turn's continuation and free the chat; the decision resumes it."""
        continuation = Continuation(parked.turn_id, chat, event_id, parked.request.id, parked.state)
        async with self.deps.db.transaction() as tx:
            await self.parked.park(continuation, self.deps.clock.now(), tx)
            if item_id == event_id:
                await self.inbox.park(item_id, tx)
        if item_id == event_id:
            self._parking.add(item_id)
        log.info("turn %s parked on approval %s…", parked.turn_id, parked.request.id[:6])
        if await self.broker.status(parked.request.id) is ApprovalOutcome.PENDING:  # not decided already
            self._expire_later(parked.request)

    async def _resume(self, event: ApprovalSettled, item: InboxItem) -> None:
        """A parked turn goes on now that its approval is decided, and answers its event."""
        continuation = await self.parked.waiting_for(event.request_id)
        if continuation is None:
            return  # its turn is done already (or never parked: nowhere to show the request)
        chat = continuation.chat
        await self.typing(chat)
        try:
            result = await self._runner.resume(chat, continuation.turn_id, continuation.state)
        except Exception:
            # Reported like any failed turn (by `_process`); nothing stays parked for ever.
            async with self.deps.db.transaction() as tx:
                await self.parked.drop(continuation.turn_id, tx)
                await self.inbox.finish(continuation.inbox_id, self.deps.clock.now(), tx)
            self._answered(continuation.inbox_id)
            raise
        if isinstance(result, Parked):
            await self._park(chat, item.id, result, event_id=continuation.inbox_id)
            return
        await self._reply(chat, result, item.id, continuation.inbox_id, parked=continuation.turn_id)
        self._answered(continuation.inbox_id)

    async def _attachment(self, event: AttachmentMessage, item: InboxItem) -> None:
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
                                                   self.deps.clock.now(), inbox_id=item.id)
        if kind is AttachmentKind.PHOTO:
            attached = await self._photo(event, attachment_id, lang)
        else:
            attached = await self._document(event, attachment_id, lang)
        if attached is None:
            return
        if event.forwarded and event.caption.strip():
            # Someone else's caption, passed on: read like the file, never as the owner's request.
            text = f"{attached.document_text}\n\n{event.caption}" if attached.document_text else event.caption
            attached = replace(attached, note=f"{attached.note} {replies.forwarded_caption_note()}",
                               document_text=text)
            await self._text(chat, "", item, attached)
            return
        await self._text(chat, event.caption, item, attached)

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

    async def _file(self, event: FileToFetch, item: InboxItem) -> None:
        """Download what the messenger announced, here in the chat's own worker (other chats go
        on meanwhile), then handle it like a voice note or file that came with its bytes."""
        fetcher = self._fetchers.get(event.chat.platform)
        if fetcher is None:
            raise ConfigError(f"no adapter is running for {event.chat.platform.value} to fetch the file from")
        lang = detect_language(event.caption, self.deps.settings.core.language)

        async def waiting() -> None:
            await self.send(event.chat, OutboundMessage(replies.fetch_retrying(lang), MessageKind.NOTICE))

        try:
            data = await fetch_patiently(fetcher, event, self.deps.clock, waiting)
        except FetchError as exc:
            log.warning("a %s from %s was not fetched: %s", event.kind.value, event.chat.user_key, exc)
            await self.send(event.chat, OutboundMessage(str(exc), MessageKind.ERROR))
            return
        message = as_message(event, data)
        if isinstance(message, VoiceMessage):
            await self._voice(message, item)
        else:
            await self._attachment(message, item)

    async def _voice(self, event: VoiceMessage, item: InboxItem) -> None:
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
        if event.forwarded:
            # Someone else's voice: what it says is third-party text, like a forwarded message.
            await self._text(event.chat, "", item, TurnAttachment(note=replies.forwarded_voice_note(),
                                                                   document_text=text))
            return
        await self._text(event.chat, text, item)

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
            # The name is the user's text quoted back: a 30,000-character "/xxx…" must get one
            # short answer, not a flood of message parts.
            name = event.name if len(event.name) <= MAX_QUOTED_COMMAND else event.name[:MAX_QUOTED_COMMAND] + "…"
            await self.send(event.chat, OutboundMessage(replies.unknown_command(name, self.commands)))
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

    def _in_background(self, work: Awaitable[object]) -> None:
        task = asyncio.create_task(self._best_effort(work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _best_effort(self, work: Awaitable[object]) -> None:
        try:
            await work
        except Exception:
            log.exception("best-effort call failed")
