"""What every adapter shows the same way: approval outcome labels, decision notices, the "always" label.

The interface adapters implement (Messenger) lives in the core: `bot/core/messenger.py`.
"""

from __future__ import annotations

from bot.core.approvals import ApprovalOutcome, ApprovalRequest, DecisionResult

APPROVAL_OUTCOME_LABELS = {
    ApprovalOutcome.APPROVED: "✅ Approved — running it.",
    ApprovalOutcome.DENIED: "❌ Denied — not done.",
    ApprovalOutcome.EXPIRED: "⌛ Expired without an answer — not done.",
    ApprovalOutcome.CANCELLED: "🚫 Cancelled — not done.",
    ApprovalOutcome.PENDING: "⏳ Waiting for your answer.",
}

EDIT_NOT_READ = ("I saw you edited a message. I only read messages as they are first sent, not later edits, so I "
                 "went by the original. If the change matters, send it again as a new message.")

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
