"""The router contract: which skills' tools a turn sees. The default exposes all."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import numpy.typing as npt

from bot.core.events import ChatRef
from tools.registry import BoundTool


@dataclass(frozen=True)
class RouteRequest:
    chat: ChatRef
    text: str
    recent_user_messages: tuple[str, ...] = ()
    previous_skills: frozenset[str] = frozenset()
    previous_answer: str = ""  # the assistant's last reply, to tell what a short follow-up names


@dataclass(frozen=True)
class QueryEmbedding:
    """The user message's embedding and the model that made it (vectors of other models differ)."""

    model: str
    vector: npt.NDArray[np.float32] = field(compare=False, repr=False)


@dataclass(frozen=True)
class RouteDecision:
    skills: frozenset[str]
    scores: Mapping[str, float] = field(default_factory=dict)
    fail_open: bool = False
    reason: str = ""
    # The user message's embedding, when the router made one, so memory retrieval can reuse it
    # instead of embedding the same text again.
    query: QueryEmbedding | None = None

    def as_record(self) -> dict[str, object]:
        return {
            "skills": sorted(self.skills),
            "scores": {k: round(v, 4) for k, v in sorted(self.scores.items())},
            "fail_open": self.fail_open,
            "reason": self.reason,
        }


class SkillRouter(Protocol):
    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        """Pick skills among `available` (id -> description); core is always on anyway."""
        ...


class AllSkillsRouter:
    """No routing: every skill, every turn."""

    async def route(self, request: RouteRequest, available: Mapping[str, str]) -> RouteDecision:
        return RouteDecision(skills=frozenset(available), reason="all skills")


class ToolExposure(Protocol):
    """Last say on which tool definitions a turn sends (e.g. a deferred catalog)."""

    def select(self, tools: list[BoundTool]) -> list[BoundTool]: ...


class ExposeAll:
    def select(self, tools: list[BoundTool]) -> list[BoundTool]:
        return tools
