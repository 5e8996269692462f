"""Layer C: the user's profile in fixed sections; it goes into the stable prompt prefix.

A rewrite replaces the sections it names. A section the model invents is dropped; a
rewrite whose result would exceed the budget is refused and the previous profile stays
whole. Each section is a list of short lines, so one rule can be forgotten on its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from memory.db import Database, Transaction


class ProfileSection(StrEnum):
    IDENTITY = "identity"          # who you are: name, age, languages, where you live
    HOUSE_RULES = "house_rules"    # how the assistant must behave with you
    PREFERENCES = "preferences"    # likes, dislikes, tastes
    PEOPLE = "people"              # family, friends, colleagues and how they relate
    WORK = "work"                  # job, projects, studies
    HEALTH = "health"              # allergies, conditions, habits
    ROUTINES = "routines"          # recurring schedule, habits of the week
    PLACES = "places"              # home, work, usual places

    @property
    def heading(self) -> str:
        return _TITLES[self]


_TITLES = {
    ProfileSection.IDENTITY: "Who you are",
    ProfileSection.HOUSE_RULES: "House rules",
    ProfileSection.PREFERENCES: "Preferences",
    ProfileSection.PEOPLE: "People",
    ProfileSection.WORK: "Work and studies",
    ProfileSection.HEALTH: "Health",
    ProfileSection.ROUTINES: "Routines",
    ProfileSection.PLACES: "Places",
}


class ProfileOutcome(StrEnum):
    UNCHANGED = "unchanged"
    UPDATED = "updated"
    OVER_BUDGET = "over_budget"  # the previous version was kept whole


@dataclass(frozen=True)
class Profile:
    sections: Mapping[ProfileSection, tuple[str, ...]]

    @property
    def size(self) -> int:
        return len(self.render())

    def render(self) -> str:
        blocks = []
        for section in ProfileSection:
            lines = self.sections.get(section)
            if lines:
                blocks.append(f"{section.heading}:\n" + "\n".join(f"- {line}" for line in lines))
        return "\n".join(blocks)


@dataclass(frozen=True)
class RewriteResult:
    outcome: ProfileOutcome
    dropped_sections: tuple[str, ...]
    profile: Profile


class ProfileStore:
    def __init__(self, db: Database, budget_chars: int) -> None:
        self._db = db
        self.budget_chars = budget_chars

    async def get(self, user_key: str) -> Profile:
        rows = await self._db.fetchall("SELECT section, lines FROM memory_profile WHERE user_key = ?", (user_key,))
        return _profile(rows)

    async def rewrite(self, tx: Transaction, user_key: str, proposed: Mapping[str, Sequence[str]],
                      at: datetime) -> RewriteResult:
        """Apply a rewrite of some sections inside the caller's transaction."""
        current = _profile(await tx.fetchall(
            "SELECT section, lines FROM memory_profile WHERE user_key = ?", (user_key,)))
        known = {section.value: section for section in ProfileSection}
        dropped = tuple(sorted(name for name in proposed if name not in known))
        changes = {
            known[name]: tuple(line.strip() for line in lines if line.strip())
            for name, lines in proposed.items() if name in known
        }
        merged = {**current.sections, **changes}
        candidate = Profile({section: lines for section, lines in merged.items() if lines})
        if candidate.sections == current.sections:
            return RewriteResult(ProfileOutcome.UNCHANGED, dropped, current)
        if candidate.size > self.budget_chars:
            return RewriteResult(ProfileOutcome.OVER_BUDGET, dropped, current)
        for section, lines in changes.items():
            await self._write(tx, user_key, section, lines, at)
        return RewriteResult(ProfileOutcome.UPDATED, dropped, candidate)

    async def remove_line(self, tx: Transaction, user_key: str, section: ProfileSection, index: int,
                          at: datetime) -> str | None:
        """Forget one rule (0-based index); returns its text, or None if there is no such line."""
        row = await tx.fetchone(
            "SELECT lines FROM memory_profile WHERE user_key = ? AND section = ?", (user_key, section.value))
        lines = list(json.loads(row["lines"])) if row else []
        if not 0 <= index < len(lines):
            return None
        removed = lines.pop(index)
        await self._write(tx, user_key, section, tuple(lines), at)
        return str(removed)

    async def remove_matching(self, tx: Transaction, user_key: str, needle: str, at: datetime) -> list[str]:
        """Forget every line mentioning `needle` (case-insensitive)."""
        removed: list[str] = []
        for row in await tx.fetchall("SELECT section, lines FROM memory_profile WHERE user_key = ?", (user_key,)):
            lines = list(json.loads(row["lines"]))
            keep = [line for line in lines if needle.casefold() not in line.casefold()]
            if len(keep) != len(lines):
                removed += [line for line in lines if line not in keep]
                await self._write(tx, user_key, ProfileSection(row["section"]), tuple(keep), at)
        return removed

    async def delete_all(self, tx: Transaction, user_key: str) -> None:
        await tx.execute("DELETE FROM memory_profile WHERE user_key = ?", (user_key,))

    async def _write(self, tx: Transaction, user_key: str, section: ProfileSection, lines: tuple[str, ...],
                     at: datetime) -> None:
        if not lines:
            await tx.execute("DELETE FROM memory_profile WHERE user_key = ? AND section = ?",
                             (user_key, section.value))
            return
        await tx.execute(
            "INSERT INTO memory_profile(user_key, section, lines, updated_at) VALUES (?,?,?,?)"
            " ON CONFLICT(user_key, section) DO UPDATE SET lines = excluded.lines,"
            " updated_at = excluded.updated_at",
            (user_key, section.value, json.dumps(list(lines), ensure_ascii=False), at.isoformat()),
        )


def _profile(rows: Sequence[Any]) -> Profile:
    sections: dict[ProfileSection, tuple[str, ...]] = {}
    for row in rows:
        get = row.__getitem__
        try:
            section = ProfileSection(get("section"))
        except ValueError:
            continue
        sections[section] = tuple(json.loads(get("lines")))
    return Profile(sections)
