"""Wiring: build every part from settings, start the adapters, run until stopped."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit

import httpx

from bot.adapters.console import ConsoleAdapter
from bot.briefing import Briefing
from bot.clock import Clock, SystemClock
from bot.config import Settings
from bot.core import tokens
from bot.core.assistant import Assistant, CoreDeps
from bot.core.deferred import build_exposure
from bot.core.router import build_router
from bot.core.stats import install_stats
from bot.llm import ModelClient
from bot.scheduler import Scheduler
from memory.db import Database
from tools.mcp import connect_mcp_servers
from tools.registry import ToolRegistry
from tools.skills.core import CoreSkill
from tools.skills.day_a import day_skills_a
from tools.skills.day_b import install_day_b
from tools.skills.memory import install_memory
from tools.skills.outside import OutsideWorld, install_outside_world

log = logging.getLogger("mayordomo")


class Adapter(Protocol):
    """A messenger that runs in the background (Telegram polling, Matrix sync)."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

USER_AGENT = "Mayordomo/0.1 (self-hosted personal assistant)"


@dataclass
class App:
    settings: Settings
    db: Database
    clock: Clock
    http: httpx.AsyncClient
    assistant: Assistant
    scheduler: Scheduler
    model: ModelClient | None
    briefing: Briefing | None = None
    outside: OutsideWorld | None = None
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


def _quiet(step: str) -> None:
    """Tests and tools build the app silently."""


async def build_app(settings: Settings, clock: Clock | None = None,
                    progress: Callable[[str], None] = _quiet) -> App:
    clock = clock or SystemClock()
    progress(f"opening the memory at {settings.core.db_file}…")
    db = await Database.open(settings.core.db_file)
    http = httpx.AsyncClient(timeout=httpx.Timeout(15.0), headers={"User-Agent": USER_AGENT},
                             follow_redirects=True)
    model = ModelClient(settings.llm, db, clock) if settings.llm.configured else None
    registry = ToolRegistry()
    registry.add_skill(CoreSkill())
    deps = CoreDeps(settings=settings, db=db, clock=clock, model=model, registry=registry)
    assistant = Assistant(deps)
    scheduler = Scheduler(db, clock)
    for skill in day_skills_a(settings, http, clock):
        registry.add_skill(skill)
    briefing = install_day_b(assistant, scheduler, settings, http)
    await install_memory(assistant, scheduler, settings)
    outside = install_outside_world(assistant, scheduler, settings, http)
    if outside.inbox_section is not None:
        briefing.add_section("Inbox", outside.inbox_section)
    install_stats(assistant)
    if settings.mcp.servers:
        progress(f"connecting {len(settings.mcp.servers)} MCP server(s)…")
    mcp = await connect_mcp_servers(settings.mcp.servers, registry)
    progress(f"indexing {len(registry.skills)} skills for the router and loading the tokenizer "
             "(the first start embeds a few hundred texts; later starts read them from the database)…")
    # Last: the router describes every skill registered above (first start embeds ~400 texts).
    # Tokenizer and router warm in worker threads, side by side, before any adapter starts.
    router, _ = await asyncio.gather(
        asyncio.to_thread(build_router, settings, registry=registry, model=model),
        asyncio.to_thread(tokens.warm),
    )
    assistant.use_router(router, build_exposure(settings.router, deps.policy))
    app = App(settings=settings, db=db, clock=clock, http=http, assistant=assistant,
              scheduler=scheduler, model=model, briefing=briefing)
    app.closers.append(mcp.aclose)
    app.outside = outside
    return app


def _say(step: str) -> None:
    print(f"mayordomo: {step}", file=sys.stderr, flush=True)


async def run(settings: Settings) -> int:
    """Run the assistant until Ctrl-C / SIGTERM (or end of input on the console)."""
    started = time.monotonic()
    llm = settings.llm
    if llm.configured:
        split = urlsplit(llm.base_url or "")
        where = f"{split.scheme}://{split.netloc.rpartition('@')[2]}"  # never a user:password in a URL
        profile = "local" if llm.local else "cloud"
        text_calls = "on" if llm.parse_text_tool_calls else "off"
        _say(f"model {llm.chat_model} at {where} (profile {profile}: timeout {llm.effective_timeout:g} s, "
             f"{llm.effective_retries} retries, text tool calls {text_calls})")
    app = await build_app(settings, progress=_say)
    _say(f"ready in {time.monotonic() - started:.1f} s")
    adapters: list[Adapter] = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # loops without signal support (Windows)
            loop.add_signal_handler(sig, stop.set)
    if settings.telegram.enabled:
        from bot.adapters.telegram import TelegramAdapter

        adapters.append(TelegramAdapter(settings.telegram, app.assistant, app.db, app.clock))
    if settings.matrix.enabled:
        from bot.adapters.matrix import MatrixAdapter

        adapters.append(MatrixAdapter(settings.matrix, app.assistant, app.db, app.clock))
    console: ConsoleAdapter | None = None
    if not adapters:
        console = ConsoleAdapter(app.assistant, app.clock)
        if app.model is None:
            print("No model configured: set LLM_BASE_URL and LLM_CHAT_MODEL in .env (see .env.example).\n"
                  "Commands work; messages are saved but not answered until a model is set.",
                  file=sys.stderr)
    # Adapters first: assistant.start() edits approvals a previous run left open.
    for adapter in adapters:
        await adapter.start()
    await app.assistant.start()
    await app.scheduler.start()
    if app.outside is not None:
        await app.outside.start()
    try:
        if console is not None:
            console_task = asyncio.create_task(console.run())
            stop_task = asyncio.create_task(stop.wait())
            await asyncio.wait({console_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
            for task in (console_task, stop_task):
                task.cancel()
        else:
            await stop.wait()
    finally:
        if app.outside is not None:
            await app.outside.stop()
        await app.scheduler.stop()
        for adapter in reversed(adapters):
            await adapter.stop()
        await app.assistant.stop()
        for close in app.closers:
            await close()
        if app.model is not None:
            await app.model.close()
        await app.http.aclose()
        await app.db.close()
    return 0
