"""The notes folder: search, read, write, append, delete, and paths that try to get out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config import NotesSettings
from bot.errors import ToolError
from tests.skills.conftest import tool_of
from tools.policy import Policy
from tools.registry import Decision, Skill
from tools.skills.notes import NotesSkill


@pytest.fixture
def skill(notes_settings: NotesSettings) -> NotesSkill:
    return NotesSkill(notes_settings)


@pytest.fixture
def vault(notes_settings: NotesSettings) -> Path:
    folder = notes_settings.folder
    (folder / "recetas").mkdir()
    (folder / "recetas" / "tortilla.md").write_text(
        "# Tortilla de patatas\n\nHuevos, patatas y cebolla.\nCuajar a fuego lento.\n", encoding="utf-8"
    )
    (folder / "compras.md").write_text("- leche\n- café molido\n- pan\n", encoding="utf-8")
    (folder / "ideas.md").write_text("# Ideas\n\nPlantar tomates en el jardín.\n", encoding="utf-8")
    (folder / ".obsidian").mkdir()
    (folder / ".obsidian" / "workspace.md").write_text("café secreto de configuración\n")
    return folder


async def call(skill: Skill, name: str, **arguments: object) -> str:
    bound = tool_of(skill, name)
    # The notes tools need no context; None proves they never touch it.
    result = await bound.invoke(bound.parse(arguments), None)  # type: ignore[arg-type]
    assert isinstance(result, str)
    return result


def test_permission_levels(skill: NotesSkill) -> None:
    policy = Policy()

    def decide(name: str, **args: object) -> Decision:
        bound = tool_of(skill, name)
        return policy.decide(bound, bound.parse(args))

    assert decide("notes_search", query="x") is Decision.ALLOW
    assert decide("notes_read", path="a.md") is Decision.ALLOW
    assert decide("notes_list") is Decision.ALLOW
    assert decide("notes_write", path="a.md", content="x") is Decision.NOTIFY
    assert decide("notes_append", path="a.md", text="x") is Decision.NOTIFY
    assert decide("notes_write", path="a.md", content="x", overwrite=True) is Decision.REQUIRE_APPROVAL
    assert decide("notes_delete", path="a.md") is Decision.REQUIRE_APPROVAL


async def test_search_is_full_text_and_accent_insensitive(skill: NotesSkill, vault: Path) -> None:
    text = await call(skill, "notes_search", query="CAFE")
    assert "compras.md" in text and "- café molido" in text
    assert ".obsidian" not in text and "secreto" not in text
    text = await call(skill, "notes_search", query="patatas huevos")
    assert "recetas/tortilla.md — Tortilla de patatas" in text
    assert "compras" not in text
    assert await call(skill, "notes_search", query="unicornio") == "No note contains 'unicornio'."


async def test_search_results_are_bounded(skill: NotesSkill, notes_settings: NotesSettings) -> None:
    for number in range(12):
        (notes_settings.folder / f"n{number:02}.md").write_text(f"común {number}\n")
    text = await call(skill, "notes_search", query="comun", limit=50)
    assert text.startswith("5 note(s) matching")  # max_results=5 in the fixture
    assert text.count("\n- ") == 5


async def test_read_write_append_list(skill: NotesSkill, vault: Path) -> None:
    created = await call(skill, "notes_write", path="diario/lunes", content="# Lunes\n\nReunión a las 10.")
    assert created == "Created the note diario/lunes.md (26 characters)."
    assert (vault / "diario" / "lunes.md").read_text() == "# Lunes\n\nReunión a las 10."
    appended = await call(skill, "notes_append", path="diario/lunes.md", text="Llamar a Ana.")
    assert appended == "Appended to the note diario/lunes.md."
    assert (vault / "diario" / "lunes.md").read_text() == "# Lunes\n\nReunión a las 10.\nLlamar a Ana.\n"
    assert await call(skill, "notes_append", path="nuevo", text="hola") == "Created the note nuevo.md."
    read = await call(skill, "notes_read", path="diario/lunes.md")
    assert read.startswith("Note diario/lunes.md:\n\n# Lunes") and "Llamar a Ana." in read
    listing = await call(skill, "notes_list")
    assert "- diario/lunes.md" in listing and "- recetas/tortilla.md" in listing
    assert ".obsidian" not in listing
    assert await call(skill, "notes_list", folder="recetas") == "1 note(s):\n- recetas/tortilla.md"


async def test_read_by_name_like_an_obsidian_link(skill: NotesSkill, vault: Path) -> None:
    text = await call(skill, "notes_read", path="[[tortilla|la receta]]")
    assert text.startswith("Note recetas/tortilla.md:\n\n# Tortilla de patatas")
    (vault / "viejas").mkdir()
    (vault / "viejas" / "tortilla.md").write_text("otra")
    with pytest.raises(ToolError, match=r"several notes are called 'tortilla': recetas/tortilla\.md, "
                                        r"viejas/tortilla\.md; give the full path"):
        await call(skill, "notes_read", path="tortilla")
    with pytest.raises(ToolError, match="there is no note"):
        await call(skill, "notes_read", path="otra/tortilla")


async def test_write_refuses_to_replace_without_overwrite(skill: NotesSkill, vault: Path) -> None:
    with pytest.raises(ToolError, match="already exists"):
        await call(skill, "notes_write", path="ideas.md", content="nuevo")
    assert "tomates" in (vault / "ideas.md").read_text()
    replaced = await call(skill, "notes_write", path="ideas.md", content="nuevo", overwrite=True)
    assert replaced.startswith("Replaced the note ideas.md")
    assert (vault / "ideas.md").read_text() == "nuevo"


async def test_missing_note(skill: NotesSkill, vault: Path) -> None:
    with pytest.raises(ToolError, match=r"there is no note 'nada\.md'"):
        await call(skill, "notes_read", path="nada.md")
    with pytest.raises(ToolError, match="no note 'nada' to delete"):
        await call(skill, "notes_delete", path="nada")


async def test_sizes_are_bounded(skill: NotesSkill, vault: Path) -> None:
    with pytest.raises(ToolError, match="over the 2000-byte limit"):
        await call(skill, "notes_write", path="big.md", content="x" * 2_001)
    assert not (vault / "big.md").exists()
    (vault / "almost.md").write_text("y" * 1_990)
    with pytest.raises(ToolError, match="over the 2000-byte limit"):
        await call(skill, "notes_append", path="almost.md", text="z" * 20)
    assert (vault / "almost.md").read_text() == "y" * 1_990
    (vault / "huge.md").write_text("w" * 5_000)
    with pytest.raises(ToolError, match="5000 bytes, over the 2000-byte limit"):
        await call(skill, "notes_read", path="huge.md")


@pytest.mark.parametrize("path", [
    "../escape.md",
    "recetas/../../escape.md",
    "/etc/passwd",
    "~/escape.md",
    "C:\\Windows\\escape.md",
    "..\\escape.md",
    ".obsidian/workspace.md",
    "recetas/.hidden.md",
])
async def test_paths_cannot_leave_the_folder(skill: NotesSkill, vault: Path, path: str) -> None:
    outside = vault.parent / "escape.md"
    outside.write_text("outside, untouched")
    for name, args in (
        ("notes_read", {"path": path}),
        ("notes_write", {"path": path, "content": "pwned", "overwrite": True}),
        ("notes_append", {"path": path, "text": "pwned"}),
        ("notes_delete", {"path": path}),
    ):
        with pytest.raises(ToolError):
            await call(skill, name, **args)
    assert outside.read_text() == "outside, untouched"
    assert (vault / ".obsidian" / "workspace.md").exists()


@pytest.mark.parametrize("path", ["a\nb.md", "inbox\r.md", "tab\there.md", "gpj.\u202eexe.md", "ma\u200bil.md"])
async def test_note_named_with_a_newline_is_refused(skill: NotesSkill, vault: Path, path: str) -> None:
    with pytest.raises(ToolError, match="control or invisible"):
        await call(skill, "notes_write", path=path, content="x")
    with pytest.raises(ToolError, match="control or invisible"):
        await call(skill, "notes_append", path=path, text="x")
    assert sorted(p.name for p in skill.folder.notes()) == ["compras.md", "ideas.md", "tortilla.md"]


async def test_symlinks_out_of_the_folder_are_refused(skill: NotesSkill, vault: Path, tmp_path: Path) -> None:
    secret_dir = tmp_path / "secret"
    secret_dir.mkdir()
    (secret_dir / "keys.md").write_text("café SECRET-KEY")
    os.symlink(secret_dir, vault / "linked")
    os.symlink(secret_dir / "keys.md", vault / "keys.md")
    with pytest.raises(ToolError, match="leads outside the notes folder"):
        await call(skill, "notes_read", path="linked/keys.md")
    with pytest.raises(ToolError, match="leads outside the notes folder"):
        await call(skill, "notes_read", path="keys.md")
    with pytest.raises(ToolError, match="leads outside"):
        await call(skill, "notes_write", path="linked/new.md", content="x")
    with pytest.raises(ToolError, match="leads outside"):
        await call(skill, "notes_delete", path="keys.md")
    assert "SECRET-KEY" not in await call(skill, "notes_search", query="cafe")
    assert (secret_dir / "keys.md").read_text() == "café SECRET-KEY"
    assert sorted(p.name for p in secret_dir.iterdir()) == ["keys.md"]


def test_delete_approval_shows_path_and_first_lines(skill: NotesSkill, vault: Path) -> None:
    bound = tool_of(skill, "notes_delete")
    text = bound.describe(bound.parse({"path": "recetas/tortilla"}))
    assert text.startswith("Delete the note recetas/tortilla.md, which begins:")
    assert "# Tortilla de patatas" in text and "Huevos, patatas y cebolla." in text
    missing = bound.describe(bound.parse({"path": "nada.md"}))
    assert "does not exist" in missing


def test_append_notice_says_what_is_added(skill: NotesSkill) -> None:
    bound = tool_of(skill, "notes_append")
    text = bound.describe(bound.parse({"path": "diario.md", "text": "Llamar a Ana.\nY a Luis."}))
    assert text == "Append 23 characters to the note 'diario.md': Llamar a Ana."


def test_overwrite_approval_shows_old_and_new(skill: NotesSkill, vault: Path) -> None:
    bound = tool_of(skill, "notes_write")
    text = bound.describe(bound.parse({"path": "ideas.md", "content": "# Nuevo\ntexto", "overwrite": True}))
    assert "Replace the note ideas.md" in text
    assert "Plantar tomates" in text and "# Nuevo" in text


async def test_delete_removes_the_file(skill: NotesSkill, vault: Path) -> None:
    assert await call(skill, "notes_delete", path="compras") == "Deleted the note compras.md."
    assert not (vault / "compras.md").exists()


async def test_missing_folder_is_just_empty(tmp_path: Path) -> None:
    skill = NotesSkill(NotesSettings(_env_file=None, folder=tmp_path / "none"))  # type: ignore[call-arg]
    assert await call(skill, "notes_list") == "There are no notes yet."
    assert await call(skill, "notes_search", query="x") == "No note contains 'x'."
    await call(skill, "notes_write", path="first.md", content="hola")
    assert (tmp_path / "none" / "first.md").read_text() == "hola"


def test_context_type_is_not_needed() -> None:
    # Notes tools never ask for a ToolContext (the user's location is irrelevant to them),
    # except saving an attachment: only the context says whose attachments may be reached.
    for bound in NotesSkill(NotesSettings(_env_file=None)).tools():  # type: ignore[call-arg]
        assert bound.spec.wants_context == (bound.name == "notes_save_attachment"), bound.name
