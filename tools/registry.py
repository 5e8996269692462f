"""`@tool`: a function's signature and docstring become the schema the model sees.

Parameters use plain types, `Annotated[T, "description"]`, defaults, enums and pydantic
models. A first parameter typed `ToolContext` is filled by the core, never by the model.
A type pydantic cannot turn into JSON schema fails at decoration time.
Tools are grouped in skills: a `Skill` subclass holds its dependencies (clients,
folders, settings) and its decorated methods become bound tools.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError

from bot.errors import ToolArgumentsError, ToolDefinitionError
from tools.invisible import reveal_flagged

if TYPE_CHECKING:
    from tools.context import ToolContext


# An argument value longer than this is summarised in an approval (its size and start).
LONG_VALUE_CHARS = 300


class Risk(IntEnum):
    READ = 0
    WRITE = 1
    DESTRUCTIVE = 2


class Decision(StrEnum):
    ALLOW = "allow"
    NOTIFY = "notify"
    REQUIRE_APPROVAL = "require_approval"


ArgsPolicy = Callable[[BaseModel], Decision]
Describe = Callable[[BaseModel], str]
Dispatches = Callable[[BaseModel], "tuple[BoundTool, BaseModel]"]


@dataclass(frozen=True)
class ToolSpec:
    """Everything known about a tool before it is bound to a skill instance."""

    name: str
    description: str
    parameters: dict[str, Any]
    args_model: type[BaseModel]
    func: Callable[..., Awaitable[Any]]
    risk: Risk
    idempotent: bool
    wants_context: bool
    describe: Describe | None = None
    policy: ArgsPolicy | None = None
    sends_data_out: bool = False
    untrusted_output: bool = False
    erases_memory: bool = False
    dispatches: Dispatches | None = None
    # Third-party tools (MCP): their description is text a stranger wrote, and `pin` hashes
    # the description and schema the owner approved; a tool that changed asks again.
    untrusted_description: bool = False
    pin: str | None = None

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def tool(
    *,
    risk: Risk = Risk.READ,
    idempotent: bool = False,
    name: str | None = None,
    describe: Describe | None = None,
    policy: ArgsPolicy | None = None,
    sends_data_out: bool = False,
    untrusted_output: bool = False,
    erases_memory: bool = False,
    dispatches: Dispatches | None = None,
) -> Callable[[Callable[..., Awaitable[Any]]], ToolSpec]:
    """Turn an async function (or Skill method) into a ToolSpec.

    `describe(args)` renders the human sentence shown in approvals; `policy(args)` lets
    the decision depend on the arguments; `sends_data_out` marks tools that move data to
    third parties; `untrusted_output` marks results written by strangers (mail, web, feeds);
    `erases_memory` marks forgetting: the turn that runs it keeps none of its text;
    `dispatches(args)` names the real tool and arguments a dispatcher (use_tool) runs, so
    policy, approvals and the honesty check judge that call, not the dispatcher.
    """

    def decorate(func: Callable[..., Awaitable[Any]]) -> ToolSpec:
        if not inspect.iscoroutinefunction(func):
            raise ToolDefinitionError(f"tool {func.__name__} must be an async function")
        tool_name = name or func.__name__
        doc = inspect.getdoc(func)
        if not doc:
            raise ToolDefinitionError(f"tool {tool_name} needs a docstring: it is its description")
        args_model, wants_context = _args_model(func, tool_name)
        try:
            parameters = _clean_schema(args_model.model_json_schema())
        except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
            raise ToolDefinitionError(f"tool {tool_name}: cannot build JSON schema: {exc}") from exc
        return ToolSpec(
            name=tool_name,
            description=doc.strip().splitlines()[0],
            parameters=parameters,
            args_model=args_model,
            func=func,
            risk=risk,
            idempotent=idempotent,
            wants_context=wants_context,
            describe=describe,
            policy=policy,
            sends_data_out=sends_data_out,
            untrusted_output=untrusted_output,
            erases_memory=erases_memory,
            dispatches=dispatches,
        )

    return decorate


def _args_model(func: Callable[..., Any], tool_name: str) -> tuple[type[BaseModel], bool]:
    from tools.context import ToolContext

    signature = inspect.signature(func)
    try:
        hints = get_type_hints(func, include_extras=True)
    except Exception as exc:
        raise ToolDefinitionError(f"tool {tool_name}: unresolvable type hints: {exc}") from exc
    fields: dict[str, Any] = {}
    wants_context = False
    for param in signature.parameters.values():
        if param.name == "self":
            continue
        annotation = hints.get(param.name)
        if annotation is ToolContext:
            wants_context = True
            continue
        if annotation is None:
            raise ToolDefinitionError(f"tool {tool_name}: parameter {param.name} has no type")
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"tool {tool_name}: *args/**kwargs cannot be described")
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (_describe_annotation(annotation), default)
    try:
        model = create_model(  # type: ignore[call-overload]
            f"{tool_name}_args",
            __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
            **fields,
        )
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        raise ToolDefinitionError(f"tool {tool_name}: cannot translate a parameter: {exc}") from exc
    return model, wants_context


def _describe_annotation(annotation: Any) -> Any:
    """`Annotated[T, "text"]` becomes `Annotated[T, Field(description="text")]` for pydantic."""
    if get_origin(annotation) is not Annotated:
        return annotation
    base, *extras = get_args(annotation)
    texts = [extra for extra in extras if isinstance(extra, str)]
    others = [extra for extra in extras if not isinstance(extra, str)]
    if not texts:
        return annotation
    return Annotated[(base, *others, Field(description=" ".join(texts)))]  # type: ignore[return-value]


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's titles (tokens the model does not need); keep everything else."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                key: strip(value)
                for key, value in node.items()
                if not (key == "title" and isinstance(value, str))
            }
        if isinstance(node, list):
            return [strip(item) for item in node]
        return node

    cleaned = strip(schema)
    cleaned.setdefault("properties", {})
    cleaned["type"] = "object"
    return cleaned


@dataclass(frozen=True)
class Routing:
    """How the router recognises requests for a skill; the skill brings it, so a skill
    installed from a package routes without any change to the router."""

    # What the skill is for, in the words users use (any language); indexed like its examples.
    summary: str = ""
    # Regular expressions (case-insensitive) that name what the skill works on ("calendario").
    cues: tuple[str, ...] = ()
    # Requests that need this skill and no other, as people write them (Spanish and English).
    examples: tuple[str, ...] = ()
    # Part of the day's overview that a greeting of the day on its own asks for ("buenos días").
    overview: bool = False


class Skill:
    """A group of tools and the dependencies they share; subclasses set `id`."""

    id: ClassVar[str]
    description: ClassVar[str]
    routing: ClassVar[Routing] = Routing()

    def tools(self) -> list[BoundTool]:
        found: list[BoundTool] = []
        for attr in dir(type(self)):
            spec = getattr(type(self), attr, None)
            if isinstance(spec, ToolSpec):
                found.append(BoundTool(spec=spec, skill=self.id, owner=self))
        return sorted(found, key=lambda bound: bound.name)


@dataclass(frozen=True)
class BoundTool:
    """A tool ready to run: its spec, its skill id and the instance it belongs to."""

    spec: ToolSpec
    skill: str
    owner: Skill | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def parse(self, arguments: str | Mapping[str, Any]) -> BaseModel:
        """Validate the model's arguments; the error carries the schema so it can correct."""
        try:
            raw = json.loads(arguments or "{}") if isinstance(arguments, str) else dict(arguments)
        except json.JSONDecodeError as exc:
            raise ToolArgumentsError(
                f"arguments for {self.name} are not valid JSON ({exc.msg}); "
                f"expected schema: {json.dumps(self.spec.parameters, ensure_ascii=False)}"
            ) from exc
        if not isinstance(raw, dict):
            raise ToolArgumentsError(f"arguments for {self.name} must be a JSON object")
        try:
            return self.spec.args_model.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
                for err in exc.errors()
            )
            raise ToolArgumentsError(
                f"arguments for {self.name} do not fit: {problems}; "
                f"expected schema: {json.dumps(self.spec.parameters, ensure_ascii=False)}"
            ) from exc

    async def invoke(self, args: BaseModel, ctx: ToolContext) -> Any:
        kwargs = {name: getattr(args, name) for name in type(args).model_fields}
        call: Callable[..., Awaitable[Any]] = self.spec.func
        positional: list[Any] = [self.owner] if self.owner is not None else []
        if self.spec.wants_context:
            positional.append(ctx)
        return await call(*positional, **kwargs)

    def target(self, args: BaseModel) -> tuple[BoundTool, BaseModel]:
        """The tool and arguments this call really runs (itself, unless it dispatches)."""
        if self.spec.dispatches is not None:
            return self.spec.dispatches(args)
        return self, args

    def describe(self, args: BaseModel) -> str:
        """The sentence an approval shows: what will happen, with the real arguments.

        Hidden characters (bidi overrides, zero-width spaces) are written out as ⟨U+…⟩ and
        flagged. Short arguments come first, in full; a long value is summarised with its size, so
        it can never push another argument (a recipient) out of view. The exact arguments
        are always one "show all" away.
        """
        if self.spec.describe is not None:
            described = self.spec.describe(args)
        else:
            described = f"{self.name}({describe_arguments(args.model_dump(mode='json'))})"
        # Whoever wrote the describe function, an invisible character never reaches the owner as such.
        return reveal_flagged(described)


def describe_arguments(values: Mapping[str, Any]) -> str:
    """`key=value, …` with every short value first, in full; long ones summarised with their size."""
    short: list[str] = []
    long: list[str] = []
    for key, value in values.items():
        shown = json.dumps(value, ensure_ascii=False, default=str)
        if len(shown) <= LONG_VALUE_CHARS:
            short.append(f"{key}={shown}")
        else:
            head = json.dumps(shown[1:81] if isinstance(value, str) else shown[:80], ensure_ascii=False)
            long.append(f"{key}=<{len(shown)} characters, begins {head}…; see all>")
    return ", ".join(short + long)


@dataclass
class ToolRegistry:
    """All tools, grouped by skill, in a canonical (sorted) order."""

    _tools: dict[str, BoundTool] = field(default_factory=dict)
    _skills: dict[str, str] = field(default_factory=dict)
    _routing: dict[str, Routing] = field(default_factory=dict)

    def add_skill(self, skill: Skill) -> None:
        self._skills[skill.id] = skill.description
        self._routing[skill.id] = skill.routing
        for bound in skill.tools():
            self.add(bound)

    def add(self, bound: BoundTool, skill_description: str | None = None) -> None:
        if bound.name in self._tools:
            raise ToolDefinitionError(f"two tools are named {bound.name}")
        if bound.name == "respond":
            raise ToolDefinitionError("'respond' is reserved for the final answer")
        self._tools[bound.name] = bound
        if skill_description is not None or bound.skill not in self._skills:
            self._skills[bound.skill] = skill_description or self._skills.get(bound.skill, "")

    def get(self, name: str) -> BoundTool | None:
        return self._tools.get(name)

    def __iter__(self) -> Iterator[BoundTool]:
        return iter(sorted(self._tools.values(), key=lambda b: (b.skill != "core", b.skill, b.name)))

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def skills(self) -> dict[str, str]:
        """Skill id -> description, in canonical order."""
        return dict(sorted(self._skills.items()))

    @property
    def routing(self) -> dict[str, Routing]:
        """Skill id -> what the router knows of it, from the skill itself."""
        return dict(sorted(self._routing.items()))

    def for_skills(self, skills: frozenset[str] | set[str]) -> list[BoundTool]:
        """Tools of the given skills plus core, in canonical order."""
        return [bound for bound in self if bound.skill == "core" or bound.skill in skills]
