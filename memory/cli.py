"""`mayordomo memory …`: export one user's memory, forget something, or re-embed every card."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bot.clock import SystemClock
from bot.config import load_settings
from bot.errors import MayordomoError
from memory.db import Database
from memory.embeddings import build_embedder, centre_of
from memory.export import export_user, file_name, safe_name
from memory.forget import USAGE, TargetError, parse_target
from memory.reembed import Reembedder, ReembedProgress
from memory.service import MemoryService


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("memory", help="export or forget a user's memory, or re-embed it")
    commands = parser.add_subparsers(dest="memory_command", required=True)

    export = commands.add_parser("export", help="one user's whole memory as Markdown and JSON")
    export.add_argument("--user", required=True, help="user key, e.g. telegram:123456789")
    export.add_argument("--out", type=Path, default=Path("."), help="folder for memory-<user>.md/.json")
    export.set_defaults(handler=lambda args: asyncio.run(_export(args)))

    forget = commands.add_parser("forget", help="forget something for good and verify it is gone")
    forget.add_argument("--user", required=True, help="user key, e.g. telegram:123456789")
    forget.add_argument("what", nargs="+", help=USAGE)
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    forget.set_defaults(handler=lambda args: asyncio.run(_forget(args)))

    reembed = commands.add_parser(
        "reembed", help="embed every card again with the configured embedder (resumes where it stopped)")
    reembed.add_argument("--all", action="store_true",
                         help="start over on every card even if the embedder did not change")
    reembed.add_argument("--batch", type=int, default=64, help="cards per embedding batch (default 64)")
    reembed.set_defaults(handler=lambda args: asyncio.run(_reembed(args)))


async def _service(env_file: str = ".env") -> MemoryService:
    settings = load_settings(env_file)
    db = await Database.open(settings.core.db_file)
    try:
        embedder = await build_embedder(settings.memory, settings.llm)
        service = MemoryService(settings, db, SystemClock(), embedder, model=None)
        await service.vectors.load()
    except BaseException:
        await db.close()  # its worker thread would otherwise keep the process alive
        raise
    return service


async def _export(args: argparse.Namespace) -> int:
    service = await _service(getattr(args, "env_file", ".env"))
    safe = safe_name(args.user)
    files = args.out / f"files-{safe}"
    try:
        exported = await export_user(service, args.user)
        args.out.mkdir(parents=True, exist_ok=True)
        for attachment in await service.attachments.for_user(args.user):
            data = await service.attachments.data(args.user, attachment.id)  # one at a time: files can be large
            if data is not None:
                files.mkdir(exist_ok=True)
                (files / file_name(attachment)).write_bytes(data)
    finally:
        await service.db.close()
    (args.out / f"memory-{safe}.md").write_text(exported.markdown, encoding="utf-8")
    (args.out / f"memory-{safe}.json").write_text(exported.json, encoding="utf-8")
    also = f", and the files in {files}" if files.exists() else ""
    print(f"wrote {args.out / f'memory-{safe}.md'} and .json{also}")
    return 0


async def _forget(args: argparse.Namespace) -> int:
    try:
        target = parse_target(" ".join(args.what))
    except TargetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    service = await _service(getattr(args, "env_file", ".env"))
    try:
        plan = await service.forgetter.plan(args.user, target)
        print(plan.describe())
        if plan.empty:
            return 0
        answer = "yes" if args.yes else await asyncio.to_thread(input, "Type 'yes' to forget this for good: ")
        if answer.strip().lower() != "yes":
            print("Not forgotten.")
            return 1
        report = await service.forgetter.execute(plan)
        print(report.render())
        return 0 if report.verification.value == "verified gone" else 3
    except MayordomoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        await service.db.close()


async def _reembed(args: argparse.Namespace) -> int:
    if args.batch < 1:
        print("error: --batch must be at least 1", file=sys.stderr)
        return 2
    service = await _service(getattr(args, "env_file", ".env"))
    try:
        embedder = service.embedder
        if service.vectors.embedder_name != embedder.name or service.vectors.dim != embedder.dim:
            change = await service.vectors.adopt(embedder.name, embedder.dim, await centre_of(embedder))
            print(f"embedder {embedder.name}: index {change.value}")
        if args.all:
            await service.reembedder.queue()
        if not await service.reembedder.pending():
            print("nothing to re-embed: every card has a vector from " + embedder.name)
            return 0
        reembedder = Reembedder(service.db, service.cards, embedder, batch=args.batch)

        def show(progress: ReembedProgress) -> None:
            print(f"re-embedded {progress.done} cards, {progress.remaining} to go"
                  f" ({progress.cards_per_second:.1f} cards/s)", flush=True)

        result = await reembedder.run(show)
        await service.refresh_vector_cells()
        print(f"done: {result.done} cards in {result.seconds:.1f} s ({result.cards_per_second:.1f} cards/s)")
        return 0
    except MayordomoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        await service.db.close()
