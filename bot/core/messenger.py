"""The interface every adapter implements so the core can answer: what the core needs from a
messenger, and nothing more.

An adapter translates platform updates into InboundEvents (after its allowlist check)
and calls `Assistant.handle` / `Assistant.decide`; the core answers through the
adapter's Messenger methods below. Adapters never call the model, never touch memory
and never decide policy.
"""

from __future__ import annotations

from typing import Protocol

from bot.core.approvals import ApprovalOutcome, ApprovalRequest
from bot.core.events import ChatRef, OutboundMessage, Platform, Progress, SentMessage


class Messenger(Protocol):
    platform: Platform

    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage | None:
        """Render Markdown in the platform's format (splitting long text) and send it."""
        ...

    async def typing(self, chat: ChatRef) -> None:
        """Show that a turn is running; best effort."""
        ...

    async def show_progress(self, progress: Progress) -> None:
        """Show what a slow turn is doing now, replacing the previous step; best effort.
        The turn's answer, sent with `send`, replaces it."""
        ...

    async def present_approval(self, request: ApprovalRequest) -> SentMessage | None:
        """Show what will happen (request.description) with Approve/Deny controls, and an
        "always" control when request.grant is set."""
        ...

    async def show_approval_outcome(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> None:
        """Edit the approval message (request.message_id) to show the outcome, controls gone."""
        ...
