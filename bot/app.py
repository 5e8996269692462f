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
from bot.briefing import Briefing, morning_briefing
from bot.clock import Clock, SystemClock
from bot.config import Settings
from bot.core import tokens
from bot.core.assistant import Assistant, CoreDeps
from bot.core.honesty.claim_model import ClaimModel
from bot.core.routing.deferred import build_exposure
from bot.core.routing.router import build_router
from bot.core.stats import install_stats
from bot.instance_lock import InstanceLock
from bot.llm import ModelClient
from bot.scheduler import Scheduler
from memory.db import Database
from memory.service import open_memory
from tools.installing import Installation, enabled_packages, install_skills, skill_context
from tools.mcp import connect_mcp_servers
from tools.plugin import Service, SkillPlugin
from tools.registry import ToolRegistry
from tools.skills.agenda import AgendaSkill
from tools.skills.core import CoreSkill
from tools.skills.diary import DiarySkill
from tools.skills.email import EmailSkill
from tools.skills.environment import EnvironmentSkill
from tools.skills.inbox import InboxSkill
from tools.skills.memory import MemorySkill
from tools.skills.news import NewsSkill
from tools.skills.notes import NotesSkill
from tools.skills.reminders import RemindersSkill
from tools.skills.tasks import TasksSkill
from tools.skills.timeline import TimelineSkill
from tools.skills.web import WebSkill

log = logging.getLogger("mayordomo")


class Adapter(Protocol):
    """A messenger that runs in the background (Telegram polling, Matrix sync)."""

    async def start(self) -> None: ...

    async def stop_receiving(self) -> None: ...

    async def stop(self) -> None: ...

USER_AGENT = "Mayordomo/0.1 (self-hosted personal assistant)"

# Every built-in skill, in install order (the briefing's sections follow it: agenda, tasks,
# weather, inbox). A skill that is not configured says why in one log line and stays off.
# Installed packages the owner enabled in SKILLS_ENABLED come after these.
SKILLS: tuple[type[SkillPlugin], ...] = (
    CoreSkill,
    AgendaSkill,
    TasksSkill,
    RemindersSkill,
    EnvironmentSkill,
    NotesSkill,
    WebSkill,
    MemorySkill,
    TimelineSkill,
    DiarySkill,
    EmailSkill,
    NewsSkill,
    InboxSkill,
)


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
    skills: Installation | None = None
    closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list)


def _quiet(step: str) -> None:
    """Tests and tools build the app silently."""


def _claim_model() -> ClaimModel | None:
    """The honesty check's classifier; without it the check runs on its rules alone."""
    try:
        return ClaimModel.load()
    except Exception as exc:  # a missing wheel or weights file must not stop the assistant
        log.warning("claim classifier unavailable (%s: %s); honesty check uses rules only",
                    type(exc).__name__, exc)
        return None


async def build_app(settings: Settings, clock: Clock | None = None,
                    progress: Callable[[str], None] = _quiet) -> App:
    """Every part, built from settings; on a failure what was opened is closed again (the
    database's worker thread would otherwise keep the process alive)."""
    clock = clock or SystemClock()
    progress(f"opening the memory at {settings.core.db_file}…")
    db = await Database.open(settings.core.db_file)
    http = httpx.AsyncClient(timeout=httpx.Timeout(15.0), headers={"User-Agent": USER_AGENT},
                             follow_redirects=True)
    model = ModelClient(settings.llm, db, clock) if settings.llm.configured else None
    try:
        return await _build(settings, clock, db, http, model, progress)
    except BaseException:
        if model is not None:
            await _quietly(model.close())
        await _quietly(http.aclose())
        await db.close()
        raise


async def _build(settings: Settings, clock: Clock, db: Database, http: httpx.AsyncClient,
                 model: ModelClient | None, progress: Callable[[str], None]) -> App:
    registry = ToolRegistry()
    deps = CoreDeps(settings=settings, db=db, clock=clock, model=model, registry=registry,
                    claims=await asyncio.to_thread(_claim_model))
    assistant = Assistant(deps)
    scheduler = Scheduler(db, clock)
    briefing = morning_briefing(settings, clock, assistant.deliver, assistant.chats.users, scheduler)
    memory = await open_memory(settings, db, clock, model)
    installed, problems = enabled_packages(settings.core.skills_enabled)
    ctx = skill_context(assistant, scheduler, http, memory=memory, briefing=briefing)
    skills = await install_skills([*SKILLS, *installed], ctx, problems=problems)
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
              scheduler=scheduler, model=model, briefing=briefing, skills=skills)
    app.closers.append(mcp.aclose)
    return app


def _say(step: str) -> None:
    print(f"mayordomo: {step}", file=sys.stderr, flush=True)


async def run(settings: Settings) -> int:
    """Run the assistant until Ctrl-C / SIGTERM (or end of input on the console)."""
    # One serving process per database: a second one would take the first one's work.
    lock = InstanceLock(settings.core.db_file)
    lock.acquire()
    try:
        return await _serve(settings)
    finally:
        lock.release()


async def _serve(settings: Settings) -> int:
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
    started_adapters: list[Adapter] = []
    services: list[Service] = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # loops without signal support (Windows)
            loop.add_signal_handler(sig, stop.set)
    console: ConsoleAdapter | None = None
    # Start-up failures raise (the caller prints one line and exits non-zero) after
    # everything opened is closed, so the process never hangs on a half-started part.
    try:
        if settings.telegram.enabled:
            from bot.adapters.telegram import TelegramAdapter

            adapters.append(TelegramAdapter(settings.telegram, app.assistant, app.db, app.clock))
        if settings.matrix.enabled:
            from bot.adapters.matrix import MatrixAdapter

            adapters.append(MatrixAdapter(settings.matrix, app.assistant, app.db, app.clock))
        if not adapters:
            console = ConsoleAdapter(app.assistant, app.clock)
            if app.model is None:
                print("No model configured: set LLM_BASE_URL and LLM_CHAT_MODEL in .env (see .env.example).\n"
                      "Commands work; messages are saved but not answered until a model is set.",
                      file=sys.stderr)
        # Adapters first: assistant.start() edits approvals a previous run left open.
        for adapter in adapters:
            started_adapters.append(adapter)
            await adapter.start()
        await app.assistant.start()
        await app.scheduler.start()
        for service in app.skills.services if app.skills is not None else []:
            services.append(service)
            await service.start()
        if console is not None:
            console_task = asyncio.create_task(console.run())
            stop_task = asyncio.create_task(stop.wait())
            await asyncio.wait({console_task, stop_task}, return_when=asyncio.FIRST_COMPLETED)
            for task in (console_task, stop_task):
                task.cancel()
        else:
            await stop.wait()
            _say(f"stopping: no new work is taken; running turns get {settings.core.shutdown_grace_seconds:g} s")
    finally:
        # No new work; running turns get SHUTDOWN_GRACE_SECONDS; the rest stays in the inbox.
        for adapter in started_adapters:
            await _quietly(adapter.stop_receiving())
        await app.assistant.drain(settings.core.shutdown_grace_seconds)
        for service in reversed(services):
            await _quietly(service.stop())
        await app.scheduler.stop()
        await app.assistant.stop()
        for adapter in reversed(started_adapters):
            await _quietly(adapter.stop())
        for close in app.closers:
            await _quietly(close())
        if app.model is not None:
            await app.model.close()
        await app.http.aclose()
        await app.db.close()
    return 0


async def _quietly(work: Awaitable[None]) -> None:
    """Shutting down goes on whatever one part does (it is logged)."""
    try:
        await work
    except Exception:
        log.exception("error while stopping")
