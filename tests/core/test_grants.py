"""Which scope an "always" answer grants, and when no grant may apply."""

from __future__ import annotations

from pathlib import Path

from bot.config import EmailSettings, NotesSettings
from tools.policy import Grant, GrantScope, Policy, ScopeKind, grant_scope
from tools.registry import BoundTool
from tools.skills.email import EmailSkill
from tools.skills.memory import MemorySkill
from tools.skills.notes import NotesSkill


def _tool(name: str) -> BoundTool:
    """The real skills' tools: the scope is read from their own argument names."""
    skills = [NotesSkill(NotesSettings(folder=Path("unused-notes"))), EmailSkill(EmailSettings()),
              MemorySkill(None)]  # type: ignore[arg-type]  # listing tools needs no memory service
    return next(b for skill in skills for b in skill.tools() if b.name == name)


def test_the_scope_is_the_folder_the_recipients_or_nothing() -> None:
    delete = _tool("notes_delete")
    assert grant_scope(delete, delete.parse({"path": "work/plans/q3.md"})) == GrantScope(
        ScopeKind.FOLDER, ("work/plans",))
    assert grant_scope(delete, delete.parse({"path": "/inbox.md"})) == GrantScope(ScopeKind.FOLDER, ("",))
    send = _tool("send_email")
    scope = grant_scope(send, send.parse({"to": ["ANA@example.org", "bo@example.org"], "subject": "s", "body": "x"}))
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
    send = _tool("send_email")
    args = send.parse({"to": ["ana@example.org"], "subject": "s", "body": "hi"})
    grant = Grant(1, "telegram:1", "send_email", GrantScope(ScopeKind.RECIPIENTS, ("ana@example.org",)))
    policy = Policy()
    assert policy.granted(send, args, [grant], untrusted_seen=False) == grant
    assert policy.granted(send, args, [grant], untrusted_seen=True) is None
    assert policy.grantable(send, args, untrusted_seen=True) is None  # and "always" is not offered
    other = send.parse({"to": ["ana@example.org", "eve@example.org"], "subject": "s", "body": "hi"})
    assert policy.granted(send, other, [grant], untrusted_seen=False) is None
    wrong_tool = Grant(2, "telegram:1", "notes_delete", GrantScope(ScopeKind.RECIPIENTS, ("ana@example.org",)))
    assert policy.granted(send, args, [wrong_tool], untrusted_seen=False) is None
