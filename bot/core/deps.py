"""What the core is built from: settings, database, clock, model, tools, router (passed in)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.clock import Clock
from bot.config import Settings
from bot.core.honesty.claim_model import ClaimModel
from bot.core.routing import AllSkillsRouter, ExposeAll, SkillRouter, ToolExposure
from bot.llm import ModelClient
from memory.db import Database
from tools.policy import Policy
from tools.registry import Decision, ToolRegistry


@dataclass(frozen=True)
class CoreDeps:
    """Everything the core needs, built once by the app (or a test) and passed in."""

    settings: Settings
    db: Database
    clock: Clock
    model: ModelClient | None
    registry: ToolRegistry
    router: SkillRouter = field(default_factory=AllSkillsRouter)
    exposure: ToolExposure = field(default_factory=ExposeAll)
    claims: ClaimModel | None = None  # the honesty check's classifier; rules alone without it

    @property
    def policy(self) -> Policy:
        overrides = {k: Decision(v) for k, v in self.settings.core.policy_overrides.items()}
        return Policy(overrides=overrides)
