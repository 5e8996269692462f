"""Which scope an "always" answer grants, and when no grant may apply."""

from __future__ import annotations

from typing import Annotated

from tools.policy import Grant, GrantScope, Policy, ScopeKind, grant_scope
from tools.registry import BoundTool, Decision, Risk, Skill, tool


class Outbox(Skill):
    id = "outbox"
    description = "test tools shaped like the real ones"

    @tool(risk=Risk.DESTRUCTIVE)
    async def delete_file(self, path: Annotated[str, "a note path"]) -> str:
        """Delete a note."""
        return "ok"

    @tool(risk=Risk.WRITE, sends_data_out=True, policy=lambda args: Decision.REQUIRE_APPROVAL)
    async def send(self, to: Annotated[list[str], "recipients"], body: str) -> str:
        """Send a message."""
        return "sent"

    @tool(risk=Risk.DESTRUCTIVE, erases_memory=True)
    async def forget(self, plan_id: str) -> str:
        """Forget."""
        return "gone"


def _tool(name: str) -> BoundTool:
    return next(b for b in Outbox().tools() if b.name == name)


def test_the_scope_is_the_folder_the_recipients_or_nothing() -> None:
    delete = _tool("delete_file")
    assert grant_scope(delete, delete.parse({"path": "work/plans/q3.md"})) == GrantScope(
        ScopeKind.FOLDER, ("work/plans",))
    assert grant_scope(delete, delete.parse({"path": "/inbox.md"})) == GrantScope(ScopeKind.FOLDER, ("",))
    send = _tool("send")
    scope = grant_scope(send, send.parse({"to": ["Ana <ANA@example.org>", "bo@example.org"], "body": "x"}))
    assert scope == GrantScope(ScopeKind.RECIPIENTS, ("ana@example.org", "bo@example.org"))
    forget = _tool("forget")
    assert grant_scope(forget, forget.parse({"plan_id": "p1"})) is None  # every erasure is asked


def test_a_grant_covers_only_its_own_scope() -> None:
    folder = GrantScope(ScopeKind.FOLDER, ("work",))
    assert folder.covers(GrantScope(ScopeKind.FOLDER, ("work",)))
    assert not folder.covers(GrantScope(ScopeKind.FOLDER, ("work/secret",)))  # not subfolders
    assert not folder.covers(GrantScope(ScopeKind.FOLDER, ("",)))
    people = GrantScope(ScopeKind.RECIPIENTS, ("a@x.org", "b@x.org"))
    assert people.covers(GrantScope(ScopeKind.RECIPIENTS, ("a@x.org",)))
    assert not people.covers(GrantScope(ScopeKind.RECIPIENTS, ("a@x.org", "evil@x.org")))
    assert not people.covers(GrantScope(ScopeKind.FOLDER, ("a@x.org",)))


def test_no_grant_applies_to_data_going_out_after_untrusted_content() -> None:
    send = _tool("send")
    args = send.parse({"to": ["ana@example.org"], "body": "hi"})
    grant = Grant(1, "telegram:1", "send", GrantScope(ScopeKind.RECIPIENTS, ("ana@example.org",)))
    policy = Policy()
    assert policy.granted(send, args, [grant], untrusted_seen=False) == grant
    assert policy.granted(send, args, [grant], untrusted_seen=True) is None
    assert policy.grantable(send, args, untrusted_seen=True) is None  # and "always" is not offered
    other = send.parse({"to": ["ana@example.org", "eve@example.org"], "body": "hi"})
    assert policy.granted(send, other, [grant], untrusted_seen=False) is None
    wrong_tool = Grant(2, "telegram:1", "delete_file", GrantScope(ScopeKind.RECIPIENTS, ("ana@example.org",)))
    assert policy.granted(send, args, [wrong_tool], untrusted_seen=False) is None
