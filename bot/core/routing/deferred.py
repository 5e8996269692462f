"""The deferred catalog: two fixed tools stand in for a large one.

`search_tools(query)` shows the model the few tools that fit a need (name, description,
schema) and `use_tool(name, arguments)` runs one of them. Their schemas never change, so
the prompt prefix stays byte-identical whatever the router chose. Arguments are checked
against the real tool's schema when `use_tool` is parsed (the error carries that schema);
the dispatcher carries the highest risk behind it and asks the real tool's policy, so an
approval still appears and describes the real inner call.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import BaseModel, Field, model_validator

from bot.config import RouterSettings
from bot.core.routing import ExposeAll, ToolExposure
from bot.core.tokens import count_tools
from bot.errors import ToolArgumentsError
from tools.context import ToolContext
from tools.policy import Policy
from tools.registry import BoundTool, Decision, Risk, Skill, ToolSpec, tool

SEARCH_RESULTS = 5
_WORD = re.compile(r"[a-záéíóúñü0-9]+")


def deferral_pays(tools: Sequence[BoundTool], *, searches_per_turn: float = 1.0,
                  results_per_search: int = SEARCH_RESULTS) -> bool:
    """True when the two dispatchers plus the search results a turn reads cost fewer
    tokens than sending every non-core tool's definition."""
    deferrable = [bound for bound in tools if bound.skill != "core"]
    if not deferrable:
        return False
    catalog = count_tools([bound.spec.openai_schema() for bound in deferrable])
    per_tool = catalog / len(deferrable)
    shown = min(results_per_search, len(deferrable))
    expected = _dispatcher_tokens() + searches_per_turn * shown * per_tool
    return catalog > expected


@functools.lru_cache(maxsize=1)
def _dispatcher_tokens() -> int:
    search, use = build_dispatchers([], Policy())
    return count_tools([search.spec.openai_schema(), use.spec.openai_schema()])


class DeferredExposure:
    """ToolExposure: core tools plus the two dispatchers, when deferring pays (or always)."""

    def __init__(self, policy: Policy, *, always: bool = False) -> None:
        self._policy = policy
        self._always = always

    def select(self, tools: list[BoundTool]) -> list[BoundTool]:
        if not self._always and not deferral_pays(tools):
            return tools
        behind = [bound for bound in tools if bound.skill != "core"]
        if not behind:
            return tools
        core = [bound for bound in tools if bound.skill == "core"]
        return [*core, *build_dispatchers(behind, self._policy)]


def build_exposure(settings: RouterSettings, policy: Policy) -> ToolExposure:
    """ROUTER_DEFER: never (send the routed tools), auto (defer when it pays), always."""
    if settings.defer == "never":
        return ExposeAll()
    return DeferredExposure(policy, always=settings.defer == "always")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("_", " ")))


def _search_text(bound: BoundTool) -> str:
    params = bound.spec.parameters.get("properties", {})
    described = " ".join(f"{name} {spec.get('description', '')}" for name, spec in params.items())
    return f"{bound.name} {bound.skill} {bound.spec.description} {described}"


def build_dispatchers(behind: Sequence[BoundTool], policy: Policy) -> list[BoundTool]:
    """`search_tools` and `use_tool` over `behind`, as tools of the "catalog" skill."""
    by_name = {bound.name: bound for bound in behind}
    highest = max((bound.spec.risk for bound in behind), default=Risk.READ)

    def inner_call(args: BaseModel) -> tuple[BoundTool, BaseModel]:
        bound = by_name[args.name]  # type: ignore[attr-defined]
        return bound, bound.parse(args.arguments)  # type: ignore[attr-defined]

    def decide(args: BaseModel) -> Decision:
        bound, inner_args = inner_call(args)
        return policy.decide(bound, inner_args)

    def describe(args: BaseModel) -> str:
        bound, inner_args = inner_call(args)
        return bound.describe(inner_args)

    class CatalogSkill(Skill):
        id = "catalog"
        description = "find and run tools that are not listed directly"

        @tool(risk=Risk.READ, idempotent=True)
        async def search_tools(
            self,
            query: Annotated[str, Field(description="what you need to do, in a few words, e.g. 'delete event'")],
        ) -> str:
            """Find tools for a need: returns their names, what they do and their argument schemas."""
            wanted = _words(query)
            ranked = sorted(
                behind,
                key=lambda bound: (-len(wanted & _words(_search_text(bound))), bound.skill, bound.name),
            )
            hits = [bound for bound in ranked if wanted & _words(_search_text(bound))][:SEARCH_RESULTS]
            if not hits:
                names = ", ".join(sorted(by_name))
                return f"No tool matches {query!r}. Tools available: {names}"
            return "\n".join(
                json.dumps({"name": bound.name, "description": bound.spec.description,
                            "parameters": bound.spec.parameters}, ensure_ascii=False)
                for bound in hits
            ) + "\nCall one with use_tool(name, arguments)."

        @tool(risk=highest, describe=describe, policy=decide, dispatches=inner_call,
              sends_data_out=any(b.spec.sends_data_out for b in behind),
              untrusted_output=any(b.spec.untrusted_output for b in behind))
        async def use_tool(
            self,
            ctx: ToolContext,
            name: Annotated[str, Field(description="the exact tool name found with search_tools")],
            arguments: Annotated[dict[str, Any], Field(description="the tool's arguments, matching its schema")],
        ) -> Any:
            """Run a tool found with search_tools, with arguments that fit its schema."""
            bound = by_name[name]
            return await bound.invoke(bound.parse(arguments), ctx)

    skill = CatalogSkill()
    found = {bound.name: bound for bound in skill.tools()}
    use = found["use_tool"]
    checked = _checked_args_model(use.spec, by_name)
    use = dataclasses.replace(use, spec=dataclasses.replace(use.spec, args_model=checked))
    return [found["search_tools"], use]


def _checked_args_model(spec: ToolSpec, by_name: dict[str, BoundTool]) -> type[BaseModel]:
    """use_tool's own model plus a check of `arguments` against the named tool's schema."""

    class Checked(spec.args_model):  # type: ignore[name-defined,misc]
        @model_validator(mode="after")
        def _fits_inner(self) -> Checked:
            bound = by_name.get(self.name)
            if bound is None:
                raise ValueError(
                    f"no tool named {self.name!r} behind use_tool; find one with search_tools "
                    f"(available: {', '.join(sorted(by_name))})"
                )
            try:
                bound.parse(self.arguments)
            except ToolArgumentsError as exc:
                raise ValueError(str(exc)) from None
            return self

    Checked.__name__ = "use_tool_args"
    return Checked
