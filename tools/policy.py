"""Who decides whether a tool call runs silently, runs and tells, or waits for a yes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import BaseModel

from tools.registry import BoundTool, Decision, Risk

_BY_RISK = {
    Risk.READ: Decision.ALLOW,
    Risk.WRITE: Decision.NOTIFY,
    Risk.DESTRUCTIVE: Decision.REQUIRE_APPROVAL,
}
_STRICTNESS = [Decision.ALLOW, Decision.NOTIFY, Decision.REQUIRE_APPROVAL]


@dataclass(frozen=True)
class Policy:
    """Risk gives the default; a tool may decide from its arguments; settings may tighten.

    Overrides can only make a tool stricter, never looser than its own decision, except
    for READ tools. After a turn has read untrusted content (mail, web, feeds, inbox), a
    tool that sends data out or destroys data always requires approval.
    """

    overrides: Mapping[str, Decision] = field(default_factory=dict)

    def decide(self, bound: BoundTool, args: BaseModel, *, untrusted_seen: bool = False) -> Decision:
        spec = bound.spec
        decision = spec.policy(args) if spec.policy is not None else _BY_RISK[spec.risk]
        override = self.overrides.get(bound.name)
        if override is not None and (
            spec.risk == Risk.READ or _STRICTNESS.index(override) > _STRICTNESS.index(decision)
        ):
            decision = override
        if untrusted_seen and (spec.sends_data_out or spec.risk == Risk.DESTRUCTIVE):
            decision = Decision.REQUIRE_APPROVAL
        if spec.risk == Risk.DESTRUCTIVE and spec.policy is None:
            decision = Decision.REQUIRE_APPROVAL
        return decision
