"""An example skill installed as its own package: a shopping list kept in a text file.

Its package metadata names it in the entry point group `mayordomo.skills`
(`shopping = mayordomo_shopping:ShoppingSkill`); the owner turns it on with
SKILLS_ENABLED=shopping. Settings come from SHOPPING_* variables (or the .env file).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel
from pydantic_settings import BaseSettings, SettingsConfigDict

from tools.plugin import SkillContext, SkillPlugin
from tools.registry import Risk, Routing, tool


class ShoppingSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SHOPPING_", env_file=".env", extra="ignore", frozen=True)

    file: Path | None = None  # default: shopping.txt in DATA_DIR


def _describe_clear(args: BaseModel) -> str:
    return "Clear the whole shopping list"


class ShoppingSkill(SkillPlugin):
    id = "shopping"
    description = "the shopping list: show it, add items to buy, clear it"
    # What the router learns from the skill itself: no change to the router is needed.
    routing = Routing(
        cues=(r"\bshopping list\b", r"\blista de la compra\b"),
        examples=(
            "add milk to the shopping list",
            "what is on my shopping list?",
            "clear the shopping list, I bought everything",
            "apunta pan en la lista de la compra",
            "borra la lista de la compra",
        ),
    )
    settings_section = "shopping"

    def __init__(self, path: Path) -> None:
        self._path = path

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        options = ShoppingSettings()
        ctx.add_tools(cls(options.file or ctx.settings.core.data_dir / "shopping.txt"))

    async def _items(self) -> list[str]:
        if not await asyncio.to_thread(self._path.exists):
            return []
        text = await asyncio.to_thread(self._path.read_text, encoding="utf-8")
        return [line for line in text.splitlines() if line.strip()]

    async def _write(self, items: list[str]) -> None:
        await asyncio.to_thread(self._path.write_text, "".join(f"{item}\n" for item in items), encoding="utf-8")

    @tool(risk=Risk.READ, idempotent=True)
    async def show_shopping_items(self) -> str:
        """The items on the shopping list."""
        items = await self._items()
        return "\n".join(f"- {item}" for item in items) if items else "The shopping list is empty."

    @tool(risk=Risk.WRITE)
    async def add_shopping_item(self, item: Annotated[str, "what to buy, e.g. 'milk'"]) -> str:
        """Add one item to the shopping list."""
        await self._write([*await self._items(), item.strip()])
        return f"Added {item.strip()!r} to the shopping list."

    @tool(risk=Risk.DESTRUCTIVE, describe=_describe_clear)
    async def remove_all_shopping_items(self) -> str:
        """Remove every item from the shopping list."""
        items = await self._items()
        await self._write([])
        return f"Cleared the shopping list ({len(items)} items removed)."
