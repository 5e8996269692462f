from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import pytest
from pydantic import BaseModel

from bot.errors import ToolArgumentsError, ToolDefinitionError
from tools.context import ToolContext
from tools.registry import BoundTool, Risk, Skill, ToolRegistry, tool


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


class Notes(Skill):
    id = "notes"
    description = "notes"

    @tool(risk=Risk.WRITE, idempotent=True)
    async def write_note(
        self,
        ctx: ToolContext,
        path: Annotated[str, "path inside the notes folder"],
        body: str,
        colour: Colour = Colour.RED,
        tags: list[str] | None = None,
    ) -> str:
        """Write a note.

        Longer explanation that must not reach the schema.
        """
        return f"{path}:{body}:{colour}:{tags}:{ctx.user_key}"


def test_schema_comes_from_signature_and_first_docstring_line() -> None:
    spec = Notes.write_note
    assert spec.name == "write_note"
    assert spec.description == "Write a note."
    assert spec.risk is Risk.WRITE and spec.idempotent
    params = spec.parameters
    assert set(params["properties"]) == {"path", "body", "colour", "tags"}
    assert params["required"] == ["path", "body"]
    assert params["properties"]["path"]["description"] == "path inside the notes folder"
    assert "ctx" not in params["properties"]
    assert "title" not in params["properties"]["path"]
    assert spec.wants_context


def test_enum_default_and_optional_list_in_schema() -> None:
    params = Notes.write_note.parameters
    dumped = str(params)
    assert "red" in dumped and "blue" in dumped
    assert params["properties"]["colour"].get("default") == "red"


class Opaque:
    """A class pydantic has no JSON schema for."""


def test_untranslatable_type_fails_at_decoration() -> None:
    with pytest.raises(ToolDefinitionError, match="cannot"):

        @tool()
        async def broken(thing: Opaque) -> str:
            """Uses a type with no JSON schema."""
            return "never"


def test_missing_docstring_or_sync_function_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="docstring"):

        @tool()
        async def undocumented(x: int) -> str:
            return str(x)

    with pytest.raises(ToolDefinitionError, match="async"):

        @tool()
        def not_async(x: int) -> str:  # type: ignore[arg-type]
            """Sync."""
            return str(x)


def test_untyped_parameter_is_refused() -> None:
    with pytest.raises(ToolDefinitionError, match="no type"):

        @tool()
        async def loose(x) -> str:  # type: ignore[no-untyped-def]
            """Loose."""
            return str(x)


def test_arguments_are_validated_and_errors_carry_the_schema() -> None:
    bound = BoundTool(Notes.write_note, "notes", Notes())
    args = bound.parse('{"path": "a.md", "body": "hi", "colour": "blue"}')
    assert isinstance(args, BaseModel)
    with pytest.raises(ToolArgumentsError) as excinfo:
        bound.parse('{"path": "a.md"}')
    assert "body" in str(excinfo.value) and "expected schema" in str(excinfo.value)
    with pytest.raises(ToolArgumentsError, match="not valid JSON"):
        bound.parse('{"path": ')
    with pytest.raises(ToolArgumentsError):
        bound.parse('{"path": "a", "body": "b", "extra": 1}')
    with pytest.raises(ToolArgumentsError, match="object"):
        bound.parse("[1, 2]")


def test_registry_groups_by_skill_in_canonical_order() -> None:
    registry = ToolRegistry()
    registry.add_skill(Notes())
    from tools.skills.core import CoreSkill

    registry.add_skill(CoreSkill())
    names = [bound.name for bound in registry]
    assert names == ["current_location", "current_time", "write_note"]
    assert [b.name for b in registry.for_skills(set())] == ["current_location", "current_time"]
    assert set(registry.skills) == {"core", "notes"}
    with pytest.raises(ToolDefinitionError, match="two tools"):
        registry.add_skill(Notes())


def test_default_description_shows_real_arguments() -> None:
    bound = BoundTool(Notes.write_note, "notes", Notes())
    args = bound.parse({"path": "shopping.md", "body": "milk"})
    assert bound.describe(args) == (
        'write_note(path="shopping.md", body="milk", colour="red", tags=null)'
    )
