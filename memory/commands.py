"""/forget from chat: show what will go, wait for the approval buttons, forget, report."""

from __future__ import annotations

import json

from bot.core.approvals import ApprovalOutcome
from bot.core.assistant import Assistant
from bot.core.events import CommandMessage, MessageKind, OutboundMessage
from memory.forget import USAGE, TargetError, parse_target
from memory.service import MemoryService


class ForgetCommand:
    def __init__(self, service: MemoryService, assistant: Assistant) -> None:
        self._service = service
        self._assistant = assistant

    async def handle(self, event: CommandMessage) -> OutboundMessage:
        if not event.argument.strip():
            return OutboundMessage(f"Usage: /forget {USAGE}")
        try:
            target = parse_target(event.argument)
        except TargetError as exc:
            return OutboundMessage(str(exc), MessageKind.ERROR)
        plan = await self._service.forgetter.plan(event.chat.user_key, target)
        if plan.empty:
            return OutboundMessage(plan.describe())
        broker = self._assistant.broker
        request = await broker.open(event.chat, "forget", json.dumps({"what": event.argument}, ensure_ascii=False),
                                    plan.describe(), None)
        request = await self._assistant.present_approval(request)
        outcome = await broker.wait(request)
        await self._assistant.show_outcome(request, outcome)
        if outcome is not ApprovalOutcome.APPROVED:
            return OutboundMessage(f"Not forgotten: the request was {outcome.value}.")
        # Exactly what the approval showed, nothing more.
        report = await self._service.forgetter.execute(plan)
        return OutboundMessage(report.render(), MessageKind.NOTICE)
