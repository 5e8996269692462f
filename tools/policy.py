"""Who decides whether a tool call runs silently, runs and tells, or waits for a yes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from email.utils import getaddresses
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel

from tools.registry import BoundTool, Decision, Risk

_BY_RISK = {
    Risk.READ: Decision.ALLOW,
    Risk.WRITE: Decision.NOTIFY,
    Risk.DESTRUCTIVE: Decision.REQUIRE_APPROVAL,
}
_STRICTNESS = [Decision.ALLOW, Decision.NOTIFY, Decision.REQUIRE_APPROVAL]


class ScopeKind(StrEnum):
    """What a standing grant is bound to, besides the tool."""

    FOLDER = "folder"  # the folder of a note path (not its subfolders)
    RECIPIENTS = "recipients"  # a set of addresses; a later call may use any subset
    CALENDAR = "calendar"
    TOOL = "tool"  # the tool has no argument that narrows it: any call of it


@dataclass(frozen=True)
class GrantScope:
    """The argument pattern that made a call ask, as an "always" answer would remember it."""

    kind: ScopeKind
    values: tuple[str, ...] = ()

    def covers(self, other: GrantScope) -> bool:
        if self.kind is not other.kind:
            return False
        if self.kind is ScopeKind.RECIPIENTS:
            return bool(other.values) and set(other.values) <= set(self.values)
        return self.values == other.values

    def describe(self) -> str:
        if self.kind is ScopeKind.FOLDER:
            folder = self.values[0] if self.values else ""
            return f"in the folder “{folder}”" if folder else "in the top folder"
        if self.kind is ScopeKind.RECIPIENTS:
            return "to " + ", ".join(self.values)
        if self.kind is ScopeKind.CALENDAR:
            return f"in the calendar “{self.values[0]}”"
        return "with any arguments"


@dataclass(frozen=True)
class Grant:
    """A standing permission the owner gave: this tool, within this scope, runs without asking."""

    id: int
    user_key: str
    tool: str
    scope: GrantScope

    @property
    def description(self) -> str:
        return f"{self.tool} {self.scope.describe()}"


def grant_scope(bound: BoundTool, args: BaseModel) -> GrantScope | None:
    """The scope an "always" answer would grant for this call; None if it may never be granted.

    Forgetting is never granted: each erasure is looked at on its own.
    """
    if bound.spec.erases_memory:
        return None
    values = args.model_dump(mode="json")
    path = values.get("path")
    if isinstance(path, str) and path.strip():
        folder = str(PurePosixPath(path.strip().strip("/")).parent)
        return GrantScope(ScopeKind.FOLDER, ("" if folder == "." else folder,))
    recipients = _addresses([values.get("to"), values.get("cc"), values.get("recipient")])
    if recipients:
        return GrantScope(ScopeKind.RECIPIENTS, recipients)
    calendar = values.get("calendar")
    if isinstance(calendar, str) and calendar.strip():
        return GrantScope(ScopeKind.CALENDAR, (calendar.strip(),))
    return GrantScope(ScopeKind.TOOL)


def _addresses(fields: Iterable[Any]) -> tuple[str, ...]:
    raw: list[str] = []
    for value in fields:
        if isinstance(value, str):
            raw.append(value)
        elif isinstance(value, list):
            raw.extend(str(item) for item in value)
    found = {address.strip().lower() for _, address in getaddresses(raw) if address.strip()}
    return tuple(sorted(found))


@dataclass(frozen=True)
class Policy:
    """Risk gives the default; a tool may decide from its arguments; settings may tighten.

    Overrides can only make a tool stricter, never looser than its own decision, except
    for READ tools. After a turn has read untrusted content (mail, web, feeds, inbox), a
    tool that sends data out or destroys data always requires approval, and no standing
    grant applies to it.
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
        if untrusted_seen and self.tainted(bound):
            decision = Decision.REQUIRE_APPROVAL
        if spec.risk == Risk.DESTRUCTIVE and spec.policy is None:
            decision = Decision.REQUIRE_APPROVAL
        return decision

    @staticmethod
    def tainted(bound: BoundTool) -> bool:
        """A call untrusted content could abuse: sending data out, or destroying data."""
        return bound.spec.sends_data_out or bound.spec.risk == Risk.DESTRUCTIVE

    def grantable(self, bound: BoundTool, args: BaseModel, *, untrusted_seen: bool) -> GrantScope | None:
        """What "always" may grant for a call that asks; None where no grant may ever apply."""
        if untrusted_seen and self.tainted(bound):
            return None
        return grant_scope(bound, args)

    def granted(self, bound: BoundTool, args: BaseModel, grants: Iterable[Grant], *,
                untrusted_seen: bool) -> Grant | None:
        """The owner's standing grant that lets this call run without asking, if any."""
        scope = self.grantable(bound, args, untrusted_seen=untrusted_seen)
        if scope is None:
            return None
        return next((g for g in grants if g.tool == bound.name and g.scope.covers(scope)), None)
