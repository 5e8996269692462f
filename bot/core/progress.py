"""What a slow turn is doing, in words written by code (never the model's unverified prose).

A turn reports its steps ("Thinking…", "Checking your calendar…", "Waiting for your
approval…"); nothing is shown until the turn has run for PROGRESS_DELAY_SECONDS, then the
current step is shown and each later step replaces it. The adapter decides how (a Telegram
draft, a Matrix notice, a console line). Times are measured on the injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.clock import Clock
from bot.core.events import ChatRef, Progress

log = logging.getLogger(__name__)

PROGRESS_DELAY_SECONDS = 1.5
# A Telegram draft fades after about 30 s: a long step is shown again before that.
PROGRESS_REFRESH_SECONDS = 20.0

_BY_SKILL = {
    "agenda": ("Mirando tu calendario…", "Checking your calendar…"),
    "tasks": ("Mirando tus tareas…", "Checking your tasks…"),
    "email": ("Leyendo tu correo…", "Reading your email…"),
    "notes": ("Buscando en tus notas…", "Looking in your notes…"),
    "web": ("Leyendo la web…", "Reading the web…"),
    "news": ("Leyendo tus noticias…", "Reading your news feeds…"),
    "inbox": ("Mirando tus avisos…", "Checking your notifications…"),
    "memory": ("Buscando en mi memoria…", "Searching my memory…"),
    "diary": ("Buscando en mi memoria…", "Searching my memory…"),
    "timeline": ("Buscando en mi memoria…", "Searching my memory…"),
    "environment": ("Mirando el tiempo y los sitios cercanos…", "Checking the weather and places nearby…"),
}


def _pick(lang: str, es: str, en: str) -> str:
    return es if lang == "es" else en


def thinking(lang: str) -> str:
    return _pick(lang, "Pensando…", "Thinking…")


def waiting_for_approval(lang: str) -> str:
    return _pick(lang, "Esperando tu aprobación…", "Waiting for your approval…")


def step_for_tool(skill: str, tool: str, arguments: dict[str, Any], lang: str) -> str:
    """The step a tool call stands for, from its skill (and a count where one is obvious)."""
    uids = arguments.get("uids")
    if skill == "email" and isinstance(uids, list) and len(uids) > 1:
        return _pick(lang, f"Leyendo {len(uids)} correos…", f"Reading {len(uids)} emails…")
    found = _BY_SKILL.get(skill)
    if found is not None:
        return _pick(lang, *found)
    return _pick(lang, "Trabajando en ello…", "Working on it…")


class ProgressReporter:
    """One turn's progress: shown only once the turn is slow, then kept current."""

    def __init__(self, clock: Clock, emit: Callable[[Progress], Awaitable[None]], chat: ChatRef,
                 turn_id: int) -> None:
        self._clock = clock
        self._emit = emit
        self._chat = chat
        self._turn_id = turn_id
        self._step = ""
        self._shown: str | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self, step: str, slow_already: bool = False) -> None:
        """`slow_already`: the turn resumes after waiting (for an approval), so every step shows at once."""
        self._step = step
        if slow_already:
            self._shown = ""
        delay = PROGRESS_REFRESH_SECONDS if slow_already else PROGRESS_DELAY_SECONDS
        self._task = asyncio.create_task(self._run(delay))

    async def step(self, text: str) -> None:
        self._step = text
        if self._shown is not None and self._shown != text:
            await self._show()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self, delay: float) -> None:
        await self._clock.sleep(delay)
        while True:
            await self._show()
            await self._clock.sleep(PROGRESS_REFRESH_SECONDS)

    async def _show(self) -> None:
        self._shown = self._step
        try:
            await self._emit(Progress(self._chat, self._step, self._turn_id))
        except Exception:
            log.exception("progress could not be shown")
