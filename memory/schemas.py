"""What the memory model must answer, as pydantic models: anything else is invalid output."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from memory.timeline import Category

Short = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CardOut(_Strict):
    title: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=120)]
    synthesis: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=1500)]
    topics: list[Short] = Field(default_factory=list, max_length=10)
    facts: list[Short] = Field(default_factory=list, max_length=15)
    decisions: list[Short] = Field(default_factory=list, max_length=10)
    message_ids: list[int] = Field(min_length=1)


class FactOut(_Strict):
    message_id: int
    category: Category
    fact: Short
    slot: Annotated[str, StringConstraints(strip_whitespace=True, max_length=40)] | None = None


class ConsolidationOut(_Strict):
    cards: list[CardOut] = Field(default_factory=list, max_length=20)
    # Sections to rewrite (whole section each); None or {} leaves the profile as it is.
    profile: dict[str, list[Short]] | None = None
    timeline: list[FactOut] = Field(default_factory=list, max_length=50)


class Mood(StrEnum):
    GREAT = "great"
    GOOD = "good"
    MIXED = "mixed"
    LOW = "low"
    BAD = "bad"


class DiaryOut(_Strict):
    write: bool
    narrative: Annotated[str, StringConstraints(strip_whitespace=True, max_length=4000)] = ""
    achievements: list[Short] = Field(default_factory=list, max_length=10)
    difficulties: list[Short] = Field(default_factory=list, max_length=10)
    tags: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]] = Field(
        default_factory=list, max_length=12)
    mood: Mood | None = None

    @model_validator(mode="after")
    def _entry_is_complete(self) -> DiaryOut:
        if self.write and (not self.narrative or self.mood is None):
            raise ValueError("an entry to write needs a narrative and a mood")
        return self
