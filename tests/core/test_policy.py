from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel

from tools.policy import Policy
from tools.registry import BoundTool, Decision, Risk, tool


def _notes_policy(args: BaseModel) -> Decision:
    action = args.action
    return {"read": Decision.ALLOW, "write": Decision.NOTIFY, "delete": Decision.REQUIRE_APPROVAL}[action]


@tool(risk=Risk.DESTRUCTIVE, policy=_notes_policy)
async def manage_note(action: Annotated[Literal["read", "write", "delete"], "what to do"], path: str) -> str:
    """Read, write or delete a note."""
    return path


@tool(risk=Risk.WRITE, sends_data_out=True)
async def share_link(url: str) -> str:
    """Share a link."""
    return url


@tool(risk=Risk.READ)
async def look(what: str) -> str:
    """Look."""
    return what


def test_decision_depends_on_arguments() -> None:
    bound = BoundTool(manage_note, "notes")
    policy = Policy()
    assert policy.decide(bound, bound.parse({"action": "read", "path": "a"})) is Decision.ALLOW
    assert policy.decide(bound, bound.parse({"action": "write", "path": "a"})) is Decision.NOTIFY
    assert policy.decide(bound, bound.parse({"action": "delete", "path": "a"})) is Decision.REQUIRE_APPROVAL


def test_risk_defaults() -> None:
    policy = Policy()
    read = BoundTool(look, "web")
    write = BoundTool(share_link, "web")
    assert policy.decide(read, read.parse({"what": "x"})) is Decision.ALLOW
    assert policy.decide(write, write.parse({"url": "u"})) is Decision.NOTIFY


def test_untrusted_content_escalates_sending_and_destroying() -> None:
    policy = Policy()
    write = BoundTool(share_link, "web")
    notes = BoundTool(manage_note, "notes")
    assert policy.decide(write, write.parse({"url": "u"}), untrusted_seen=True) is Decision.REQUIRE_APPROVAL
    # a plain read stays silent even after untrusted content
    read = BoundTool(look, "web")
    assert policy.decide(read, read.parse({"what": "x"}), untrusted_seen=True) is Decision.ALLOW
    args = notes.parse({"action": "write", "path": "a"})
    assert policy.decide(notes, args, untrusted_seen=True) is Decision.REQUIRE_APPROVAL


def test_overrides_only_tighten_writes() -> None:
    write = BoundTool(share_link, "web")
    args = write.parse({"url": "u"})
    assert Policy({"share_link": Decision.REQUIRE_APPROVAL}).decide(write, args) is Decision.REQUIRE_APPROVAL
    assert Policy({"share_link": Decision.ALLOW}).decide(write, args) is Decision.NOTIFY
    read = BoundTool(look, "web")
    assert Policy({"look": Decision.NOTIFY}).decide(read, read.parse({"what": "x"})) is Decision.NOTIFY
