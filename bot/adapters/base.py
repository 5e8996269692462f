"""The adapter contract: what the core needs from a messenger, and nothing more.

An adapter translates platform updates into InboundEvents (after its allowlist check)
and calls `Assistant.handle` / `Assistant.decide`; the core answers through the
adapter's Messenger methods below. Adapters never call the model, never touch memory
and never decide policy.
"""

from __future__ import annotations

from typing import Protocol

from bot.core.approvals import ApprovalOutcome, ApprovalRequest, DecisionResult
from bot.core.events import ChatRef, OutboundMessage, Platform, SentMessage


class Messenger(Protocol):
    platform: Platform

    async def send(self, chat: ChatRef, message: OutboundMessage) -> SentMessage | None:
        """Render Markdown in the platform's format (splitting long text) and send it."""
        ...

    async def typing(self, chat: ChatRef) -> None:
        """Show that a turn is running; best effort."""
        ...

    async def present_approval(self, request: ApprovalRequest) -> SentMessage | None:
        """Show what will happen (request.description) with Approve/Deny controls, and an
        "always" control when request.grant is set."""
        ...

    async def show_approval_outcome(self, request: ApprovalRequest, outcome: ApprovalOutcome) -> None:
        """Edit the approval message (request.message_id) to show the outcome, controls gone."""
        ...


APPROVAL_OUTCOME_LABELS = {
    ApprovalOutcome.APPROVED: "✅ Approved — running it.",
    ApprovalOutcome.DENIED: "❌ Denied — not done.",
    ApprovalOutcome.EXPIRED: "⌛ Expired without an answer — not done.",
    ApprovalOutcome.CANCELLED: "🚫 Cancelled — not done.",
    ApprovalOutcome.PENDING: "⏳ Waiting for your answer.",
}

DECISION_NOTICES = {
    DecisionResult.ACCEPTED: "Got it.",
    DecisionResult.ACCEPTED_ALWAYS: "Got it; I won't ask again for this (/permissions to undo).",
    DecisionResult.NOT_GRANTABLE: "This one can only be approved once; nothing changed yet.",
    DecisionResult.UNKNOWN: "This request is unknown or no longer valid; nothing changed.",
    DecisionResult.NOT_OWNER: "Only the person who asked can decide this; nothing changed.",
    DecisionResult.ALREADY_DECIDED: "This was already decided; nothing changed.",
    DecisionResult.EXPIRED: "This request has expired; nothing was done.",
}


def always_label(request: ApprovalRequest) -> str | None:
    """The text of the "always" control, naming exactly what it would allow; None if not offered."""
    if request.grant is None:
        return None
    return f"♾️ Always: {request.tool} {request.grant.describe()}"
