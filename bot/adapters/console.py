"""A terminal chat with the assistant: the first adapter, and the way to try it locally.

Lines are messages; `/name arg` lines are commands; `/pin LAT LON` shares a location.
While an approval is pending, the next line answers it (y/yes/s/sí or n/no, or a/always/
siempre for a standing grant when one is offered); it expires like any other approval.
Turns run as tasks so the prompt keeps reading while one waits.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import AsyncIterator
from typing import TextIO

from rich.console import Console as RichConsole
from rich.markdown import Markdown

from bot.adapters.base import APPROVAL_OUTCOME_LABELS, DECISION_NOTICES, always_label
from bot.clock import Clock
from bot.core.approvals import ApprovalOutcome, ApprovalRequest
from bot.core.assistant import Assistant
from bot.core.events import (
    RECEIPT_MARKS,
    ApprovalDecision,
    ChatKind,
    ChatRef,
    CommandMessage,
    InboundEvent,
    MessageKind,
    OutboundMessage,
    Platform,
    Progress,
    SentMessage,
    TextMessage,
)

log = logging.getLogger(__name__)

YES = {"y", "yes", "s", "si", "sí", "ok", "approve"}
NO = {"n", "no", "deny", "cancel"}
ALWAYS = {"a", "always", "siempre"}


# A terminal's way out; the messengers have no such command, so the core never sees it.
QUIT = frozenset({"/quit", "/exit"})


class ConsoleAdapter:
    platform = Platform.CONSOLE

    def __init__(self, assistant: Assistant, clock: Clock, *, lines: AsyncIterator[str] | None = None,
                 out: TextIO | None = None, user_id: str = "owner") -> None:
        self._assistant = assistant
        self._clock = clock
        self._lines = lines
        self._out = out or sys.stdout
        isatty = getattr(self._out, "isatty", None)
        self._rich = RichConsole(file=self._out, soft_wrap=False) if isatty is not None and isatty() else None
        self.chat = ChatRef(Platform.CONSOLE, chat_id="console", user_id=user_id, kind=ChatKind.PRIVATE)
        self._pending: list[ApprovalRequest] = []
        self._turns: set[asyncio.Task[None]] = set()

    # -- Messenger -------------------------------------------------------------------------
    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage:
        prefix = {MessageKind.NOTICE: "  · ", MessageKind.ERROR: "  ! ", MessageKind.SCHEDULED: "  ⏰ "}.get(
            message.kind, "mayordomo> ")
        if self._rich is not None:
            # A terminal: Markdown rendered (bold, lists, code, links) by rich.
            self._print(prefix.rstrip())
            self._rich.print(Markdown(message.text))
        else:
            # A pipe or a file: plain text, exactly as written, for scripts that read it.
            self._print(prefix + message.text.replace("\n", "\n" + " " * len(prefix)))
        for receipt in message.receipts:
            self._print(f"  {RECEIPT_MARKS[receipt.outcome]} {receipt.summary}")
        if message.suggestions:
            self._print("  (try: " + " | ".join(message.suggestions) + ")")
        return SentMessage(chat, str(id(message)))

    async def typing(self, chat: ChatRef) -> None:
        return None

    async def show_progress(self, progress: Progress) -> None:
        self._print(f"  … {progress.text}")

    async def present_approval(self, request: ApprovalRequest) -> SentMessage:
        minutes = max(1, round((request.expires_at - request.created_at).total_seconds() / 60))
        self._pending.append(request)
        description = request.description.replace("\n", "\n    ")
        # The prompt line stays exactly as it was: scripts that drive the console read it.
        self._print(f"  ? Approval needed: {description}\n"
                    f"    Approve? [y/n] (expires in {minutes} min; no answer = no)")
        always = always_label(request)
        if always is not None:
            self._print(f"    (or a = {always})")
        return SentMessage(request.chat, request.id)

    async def show_approval_outcome(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> None:
        self._pending = [p for p in self._pending if p.id != request.id]
        self._print(f"  {APPROVAL_OUTCOME_LABELS[outcome]}")

    # -- loop ------------------------------------------------------------------------------
    async def run(self) -> None:
        """Read lines until EOF, then let running turns finish."""
        self._assistant.add_messenger(self)
        self._print("Mayordomo console. Type a message; /help for commands; /quit or Ctrl-D to quit.")
        async for line in self._lines or _stdin_lines():
            if line.strip().lower() in QUIT:
                break
            await self.feed(line)
        await self.close()

    async def close(self) -> None:
        """End of input: let turns finish, but nobody is left to answer an approval."""
        while self._turns:
            if self._pending:
                self._print("  Input closed: pending approvals are cancelled, nothing was done.")
                for request in list(self._pending):
                    await self._assistant.cancel_approval(request.id)
                for task in list(self._turns):
                    task.cancel()
            await asyncio.wait(list(self._turns), timeout=0.2)

    async def feed(self, line: str) -> None:
        """Handle one typed line (public so tests can drive the adapter)."""
        text = line.rstrip("\n")
        if self._pending and text.strip():
            answer = text.strip().lower()
            if answer in YES | NO | ALWAYS:
                request = self._pending[0]
                result = await self._assistant.decide(ApprovalDecision(
                    self.chat, request.id, approve=answer in YES | ALWAYS, always=answer in ALWAYS))
                self._print(f"  {DECISION_NOTICES[result]}")
                return
            self._print("  An approval is waiting: answer y or n first.")
            return
        event = self._translate(text)
        if event is None:
            return
        task = asyncio.create_task(self._assistant.handle(event))
        self._turns.add(task)
        task.add_done_callback(self._turns.discard)

    def _translate(self, text: str) -> InboundEvent | None:
        if text.startswith("/") and len(text) > 1 and not text.startswith("//"):
            name, _, argument = text[1:].partition(" ")
            return CommandMessage(self.chat, name.strip(), argument.strip())
        return TextMessage(self.chat, text)

    def _print(self, text: str) -> None:
        print(text, file=self._out, flush=True)


async def _stdin_lines() -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        yield line
