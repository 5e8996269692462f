"""A folder of Markdown notes (an Obsidian vault works as is): search, read, write, delete.

Every path the model gives is relative to the folder and checked after resolving:
absolute paths, `..`, hidden parts (`.obsidian`, `.trash`) and symlinks that lead out of
the folder are refused. Notes and results are bounded in size. Writing notifies the
user; overwriting an existing note or deleting one needs approval, and the approval
shows the note's path and its first lines. A vault may be shared or synced with others,
so what the reading tools return is `untrusted_output`.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Annotated

from pydantic import BaseModel, Field

from bot.config import NotesSettings
from bot.errors import ToolError
from tools.context import ToolContext
from tools.plugin import SkillContext, SkillPlugin
from tools.registry import BoundTool, Decision, Risk, Routing, tool

NOTE_SUFFIX = ".md"
ATTACHMENTS = "attachments"  # where photos and files the user sent are kept in the notes folder
_PREVIEW_LINES = 5

NotePath = Annotated[
    str,
    Field(
        min_length=1,
        max_length=400,
        description="path of the note inside the notes folder, e.g. 'ideas/garden.md'",
    ),
]


@dataclass(frozen=True)
class SearchHit:
    path: str
    title: str
    score: int
    snippets: tuple[str, ...]


class NotesFolder:
    """The notes folder on disk, with every path checked to stay inside it."""

    def __init__(self, root: Path, max_note_bytes: int, max_files_scanned: int) -> None:
        self.root = root
        self.max_note_bytes = max_note_bytes
        self.max_files_scanned = max_files_scanned

    def resolve(self, path: str) -> Path:
        """The absolute file for a model-given relative path, or a ToolError saying why not."""
        raw = _unwrap_link(path).replace("\\", "/")
        if not raw or "\x00" in raw:
            raise ToolError("the note path is empty or invalid")
        if any(unicodedata.category(char) in ("Cc", "Cf") for char in raw):
            # A newline or an invisible character makes a name that lies in listings and approvals.
            raise ToolError(f"{path!r} contains control or invisible characters; use plain characters")
        if PurePosixPath(raw).is_absolute() or PureWindowsPath(path).is_absolute() or raw.startswith("~"):
            raise ToolError(f"{path!r} is an absolute path: give a path inside the notes folder")
        if PureWindowsPath(path).drive:
            raise ToolError(f"{path!r} names a drive: give a path inside the notes folder")
        parts = PurePosixPath(raw).parts
        if any(part == ".." for part in parts):
            raise ToolError(f"{path!r} tries to leave the notes folder ('..' is not allowed)")
        if any(part.startswith(".") for part in parts):
            raise ToolError(f"{path!r} points into a hidden file or folder, which notes never use")
        relative = PurePosixPath(*parts)
        if relative.suffix.lower() != NOTE_SUFFIX:
            relative = relative.with_name(relative.name + NOTE_SUFFIX)
        root = self.root.resolve()
        target = (root / relative).resolve()
        if not target.is_relative_to(root):
            raise ToolError(f"{path!r} leads outside the notes folder (through a link); refused")
        return target

    def relative(self, target: Path) -> str:
        return target.relative_to(self.root.resolve()).as_posix()

    def read(self, path: str) -> tuple[str, str]:
        target = self.resolve(path)
        if not target.is_file():
            target = self._by_name(path, target)
        size = target.stat().st_size
        if size > self.max_note_bytes:
            raise ToolError(
                f"the note {self.relative(target)} is {size} bytes, over the {self.max_note_bytes}-byte limit"
            )
        return self.relative(target), target.read_text(encoding="utf-8", errors="replace")

    def _by_name(self, path: str, target: Path) -> Path:
        """Obsidian links name a note without its folder: accept a unique note of that name."""
        if "/" in _unwrap_link(path).replace("\\", "/"):
            raise ToolError(f"there is no note {self._shown(path)}; search or list the notes first")
        wanted = target.name.casefold()
        same = [note for note in self.notes() if note.name.casefold() == wanted]
        if len(same) == 1:
            return same[0]
        if not same:
            raise ToolError(f"there is no note {self._shown(path)}; search or list the notes first")
        listed = ", ".join(self.relative(note) for note in same[:10])
        raise ToolError(f"several notes are called {self._shown(path)}: {listed}; give the full path")

    def preview(self, path: str) -> str | None:
        """The first lines of an existing note, or None when it does not exist or cannot be read."""
        try:
            target = self.resolve(path)
            if not target.is_file():
                return None
            with target.open(encoding="utf-8", errors="replace") as handle:
                lines = [handle.readline(300).rstrip("\n") for _ in range(_PREVIEW_LINES)]
        except (ToolError, OSError):
            return None
        shown = [line for line in lines if line]
        return "\n".join(shown) if shown else "(empty note)"

    def write(self, path: str, content: str, *, overwrite: bool) -> tuple[str, bool]:
        """Create (or, when allowed, replace) a note atomically; returns (path, replaced)."""
        target = self.resolve(path)
        data = content.encode("utf-8")
        self._check_size(len(data))
        existed = target.exists()
        if existed and not overwrite:
            raise ToolError(
                f"the note {self.relative(target)} already exists: append to it, or write with "
                "overwrite=true to replace it"
            )
        if existed and not target.is_file():
            raise ToolError(f"{self.relative(target)} is a folder, not a note")
        self._atomic_write(target, data)
        return self.relative(target), existed

    def append(self, path: str, text: str) -> tuple[str, bool]:
        """Add text at the end of a note (creating it); returns (path, created)."""
        target = self.resolve(path)
        existing = b""
        existed = target.exists()
        if existed:
            if not target.is_file():
                raise ToolError(f"{self.relative(target)} is a folder, not a note")
            existing = target.read_bytes()
        addition = text.encode("utf-8")
        if existing and not existing.endswith(b"\n"):
            addition = b"\n" + addition
        if not addition.endswith(b"\n"):
            addition += b"\n"
        self._check_size(len(existing) + len(addition))
        self._atomic_write(target, existing + addition)
        return self.relative(target), not existed

    def delete(self, path: str) -> str:
        target = self.resolve(path)
        if not target.is_file():
            raise ToolError(f"there is no note {self._shown(path)} to delete")
        relative = self.relative(target)
        target.unlink()
        return relative

    def notes(self) -> list[Path]:
        """Every note file inside the folder (hidden folders and outward links skipped), bounded."""
        root = self.root.resolve()
        if not root.is_dir():
            return []
        found: list[Path] = []
        for directory, subdirs, files in os.walk(root, followlinks=False):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            for name in sorted(files):
                if name.startswith(".") or not name.lower().endswith(NOTE_SUFFIX):
                    continue
                candidate = Path(directory) / name
                if candidate.is_symlink() and not candidate.resolve().is_relative_to(root):
                    continue
                found.append(candidate)
                if len(found) >= self.max_files_scanned:
                    return found
        return found

    def search(self, query: str, limit: int) -> list[SearchHit]:
        """Notes containing every word of the query (case and accent insensitive), best first."""
        words = [_fold(word) for word in query.split() if word.strip()]
        if not words:
            raise ToolError("the search query is empty")
        hits: list[SearchHit] = []
        for note in self.notes():
            try:
                if note.stat().st_size > self.max_note_bytes:
                    continue
                text = note.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            relative = self.relative(note.resolve()) if note.is_symlink() else self.relative(note)
            folded = _fold(text)
            folded_path = _fold(relative)
            if not all(word in folded or word in folded_path for word in words):
                continue
            score = sum(folded.count(word) for word in words) + 5 * sum(
                word in folded_path for word in words
            )
            hits.append(SearchHit(relative, _title(text, note), score, _snippets(text, words)))
        hits.sort(key=lambda hit: (-hit.score, hit.path))
        return hits[:limit]

    def save_attachment(self, name: str, data: bytes) -> str:
        """Write a file into attachments/ under a safe, unused name; its path from the root."""
        stem = PurePosixPath(name.replace("\\", "/")).name
        safe = "".join(c if c.isalnum() or c in "-_. " else "_" for c in stem).strip(" .") or "attachment"
        folder = self.root.resolve() / ATTACHMENTS
        target = folder / safe
        base, suffix = PurePosixPath(safe).stem, PurePosixPath(safe).suffix
        counter = 2
        while target.exists():
            target = folder / f"{base} ({counter}){suffix}"
            counter += 1
        self._atomic_write(target, data)
        return self.relative(target)

    def _check_size(self, size: int) -> None:
        if size > self.max_note_bytes:
            raise ToolError(
                f"the note would be {size} bytes, over the {self.max_note_bytes}-byte limit; "
                "split it into smaller notes"
            )

    def _atomic_write(self, target: Path, data: bytes) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        # The parent may itself be a link created since the check: check again after mkdir.
        if not target.parent.resolve().is_relative_to(self.root.resolve()):
            raise ToolError("the note's folder leads outside the notes folder; refused")
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".mayordomo-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise

    @staticmethod
    def _shown(path: str) -> str:
        return repr(path.strip())


def _unwrap_link(path: str) -> str:
    """Accept an Obsidian link as a path: `[[Tortilla|la receta]]` or `[[Tortilla#Pasos]]`."""
    raw = path.strip()
    if raw.startswith("[[") and raw.endswith("]]"):
        raw = raw[2:-2].split("|", 1)[0].split("#", 1)[0].strip()
    return raw


def _fold(text: str) -> str:
    """Lower case without accents, so 'cafe' finds 'Café'."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _title(text: str, note: Path) -> str:
    for line in text.splitlines()[:40]:
        if line.startswith("# "):
            return line[2:].strip()
    return note.stem


def _snippets(text: str, words: list[str], limit: int = 3) -> tuple[str, ...]:
    found: list[str] = []
    for line in text.splitlines():
        folded = _fold(line)
        if any(word in folded for word in words):
            stripped = line.strip()
            found.append(stripped if len(stripped) <= 200 else stripped[:197] + "…")
            if len(found) >= limit:
                break
    return tuple(found)


def _describe_append(args: BaseModel) -> str:
    text = str(getattr(args, "text", ""))
    first = text.strip().splitlines()[0] if text.strip() else ""
    shown = first if len(first) <= 120 else first[:117] + "…"
    return f"Append {len(text)} characters to the note {getattr(args, 'path', '?')!r}: {shown}"


def _describe_save_attachment(args: BaseModel) -> str:
    name = getattr(args, "name", None)
    as_name = f" as {name!r}" if name else ""
    return f"Save attachment {getattr(args, 'attachment_id', '?')} in the notes folder's {ATTACHMENTS}/{as_name}"


def _write_policy(args: BaseModel) -> Decision:
    # Replacing a note loses its old text: that needs a yes. Creating one just notifies.
    return Decision.REQUIRE_APPROVAL if getattr(args, "overwrite", False) else Decision.NOTIFY


class NotesSkill(SkillPlugin):
    id = "notes"
    description = "the user's Markdown notes folder: search, read, list, write, append, delete notes"
    routing = Routing(
        summary=(
            "The user's Markdown notes folder: search notes, read a note, create or append to a note, delete "
            "a note. Notas, apuntes, listas guardadas."
        ),
        cues=(
            r"\bnotes?\b",
            r"\bnotas?\b",
            r"\bapuntes\b",
            # What the user wrote down earlier is in a note ("lo que tengo apuntado", "what I wrote down").
            r"\blo (?:que )?(?:tengo )?apunt(?:ado|[eé])\b",
            r"\bwhat i (?:wrote|jotted) down\b",
            # What the user wrote down is in the notes: "grab the chord changes i jotted down for…".
            r"\bi (?:jotted|scribbled)(?: (?:down|up))?\b|\bdid i (?:write|jot|note) (?:it |that |this )?down\b",
        ),
        examples=(
            "search my notes for the wifi password",
            "open the note about the garden",
            "create a note called groceries with milk, eggs and rice",
            "add 'call insurance' to my house note",
            "delete the note about the old car",
            "what do my notes say about the project deadline?",
            "read me my packing list note",
            "save this recipe in my notes",
            "list my notes about travel",
            "busca en mis notas la receta de las lentejas",
            "abre la nota de ideas para el blog",
            "crea una nota llamada viaje a roma con hoteles y vuelos",
            "añade leche a la nota de la compra",
            "borra la nota del curso de inglés",
            "qué pone en mis apuntes sobre la hipoteca?",
            "guárdalo en mis notas",
            "léeme la nota de contraseñas del router",
            "apúntalo en una nota que se llame reformas",
            "tengo alguna nota sobre el seguro del coche?",
            "write that down in a note",
        ),
    )
    settings_section = "notes"

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        ctx.add_tools(cls(ctx.settings.notes))

    def __init__(self, settings: NotesSettings) -> None:
        self.settings = settings
        self.folder = NotesFolder(settings.folder, settings.max_note_bytes, settings.max_files_scanned)

    def tools(self) -> list[BoundTool]:
        """Bind the approval descriptions to this folder, so they can show the real note."""
        describers = {"notes_delete": self._describe_delete, "notes_write": self._describe_write}
        return [
            BoundTool(spec=replace(bound.spec, describe=describers[bound.name]), skill=bound.skill, owner=self)
            if bound.name in describers
            else bound
            for bound in super().tools()
        ]

    def _describe_delete(self, args: BaseModel) -> str:
        path = str(getattr(args, "path", ""))
        preview = self.folder.preview(path)
        if preview is None:
            return f"Delete the note {path!r} (it does not exist, so nothing will be deleted)."
        return f"Delete the note {self._relative_or_raw(path)}, which begins:\n{preview}"

    def _describe_write(self, args: BaseModel) -> str:
        path = str(getattr(args, "path", ""))
        content = str(getattr(args, "content", ""))
        new_start = "\n".join(content.splitlines()[:_PREVIEW_LINES])
        preview = self.folder.preview(path)
        if preview is None:
            return f"Create the note {path!r} ({len(content)} characters), starting:\n{new_start}"
        return (
            f"Replace the note {self._relative_or_raw(path)}, which now begins:\n{preview}\n"
            f"with new text ({len(content)} characters) starting:\n{new_start}"
        )

    def _relative_or_raw(self, path: str) -> str:
        try:
            return self.folder.relative(self.folder.resolve(path))
        except ToolError:
            return repr(path)

    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def notes_search(
        self,
        query: Annotated[str, Field(min_length=1, max_length=300, description="words to look for")],
        limit: Annotated[int, Field(ge=1, le=50, description="at most this many notes")] = 10,
    ) -> str:
        """Full-text search of the notes (every word must appear; case and accents ignored)."""
        hits = await asyncio.to_thread(self.folder.search, query, min(limit, self.settings.max_results))
        if not hits:
            return f"No note contains {query!r}."
        lines = [f"{len(hits)} note(s) matching {query!r}:"]
        for hit in hits:
            lines.append(f"- {hit.path} — {hit.title}")
            lines.extend(f"    {snippet}" for snippet in hit.snippets)
        return "\n".join(lines)

    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def notes_list(
        self,
        folder: Annotated[
            str, Field(max_length=400, description="a subfolder to list; empty for the whole folder")
        ] = "",
    ) -> str:
        """List notes (most recently changed first), optionally inside a subfolder."""
        notes = await asyncio.to_thread(self._list, folder)
        if not notes:
            return "There are no notes" + (f" in {folder!r}." if folder.strip() else " yet.")
        shown = notes[: self.settings.max_results]
        more = f" (showing the {len(shown)} most recent)" if len(notes) > len(shown) else ""
        return f"{len(notes)} note(s){more}:\n" + "\n".join(f"- {path}" for path in shown)

    def _list(self, folder: str) -> list[str]:
        prefix = ""
        if folder.strip().strip("/"):
            # Resolve a dummy note inside it to run the same path checks.
            prefix = self.folder.relative(self.folder.resolve(folder.strip().strip("/") + "/x")).rsplit(
                "/", 1
            )[0] + "/"
        notes = [n for n in self.folder.notes() if self.folder.relative(n).startswith(prefix)]
        notes.sort(key=lambda n: n.stat().st_mtime, reverse=True)
        return [self.folder.relative(n) for n in notes]

    @tool(risk=Risk.READ, idempotent=True, untrusted_output=True)
    async def notes_read(self, path: NotePath) -> str:
        """Read a note's full text."""
        relative, text = await asyncio.to_thread(self.folder.read, path)
        return f"Note {relative}:\n\n{text}" if text.strip() else f"Note {relative} is empty."

    @tool(risk=Risk.WRITE, policy=_write_policy)
    async def notes_write(
        self,
        path: NotePath,
        content: Annotated[str, Field(description="the whole Markdown text of the note")],
        overwrite: Annotated[
            bool, Field(description="replace the note if it exists (asks the user first)")
        ] = False,
    ) -> str:
        """Create a note (or replace an existing one with overwrite=true)."""
        relative, replaced = await asyncio.to_thread(self.folder.write, path, content, overwrite=overwrite)
        return f"{'Replaced' if replaced else 'Created'} the note {relative} ({len(content)} characters)."

    @tool(risk=Risk.WRITE, describe=_describe_append)
    async def notes_append(
        self,
        path: NotePath,
        text: Annotated[str, Field(min_length=1, description="Markdown text to add at the end")],
    ) -> str:
        """Add text at the end of a note (the note is created if it does not exist)."""
        relative, created = await asyncio.to_thread(self.folder.append, path, text)
        return f"{'Created' if created else 'Appended to'} the note {relative}."

    @tool(risk=Risk.WRITE, describe=_describe_save_attachment)
    async def notes_save_attachment(
        self,
        ctx: ToolContext,
        attachment_id: Annotated[int, Field(ge=1, description="the attachment number from the user's message")],
        name: Annotated[str | None, Field(max_length=120, description="a file name to save it as (optional)")] = None,
    ) -> str:
        """Save a photo or file the user sent, as it is, in the notes folder's attachments/."""
        store = ctx.attachments
        found = await store.get(ctx.user_key, attachment_id) if store is not None else None
        data = await store.data(ctx.user_key, attachment_id) if store is not None else None
        if found is None or data is None:
            raise ToolError(f"there is no attachment {attachment_id} from this user")
        relative = await asyncio.to_thread(self.folder.save_attachment, name or found.filename, data)
        link = relative.replace(" ", "%20")
        embed = "!" if found.kind.value == "photo" else ""
        return f"Saved {relative} ({found.size} bytes). Link it from a note with: {embed}[{found.filename}]({link})"

    @tool(risk=Risk.DESTRUCTIVE)
    async def notes_delete(self, path: NotePath) -> str:
        """Delete a note (asks the user first)."""
        relative = await asyncio.to_thread(self.folder.delete, path)
        return f"Deleted the note {relative}."
