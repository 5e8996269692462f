"""The `mayordomo` command: `run` the assistant, or manage memory from the shell."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from bot.errors import ConfigError, DatabaseError, MayordomoError


def configure_logging(level: str | int) -> None:
    """Log lines to stderr, with the libraries that would write secrets kept quiet."""
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    # httpx logs full request URLs at INFO, and a Telegram URL carries the bot token.
    for noisy in ("httpx", "httpx2", "httpcore"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    # nio prints a malformed event whole at WARNING, an attachment's decryption key included;
    # the Matrix adapter answers such events itself.
    logging.getLogger("nio.events.misc").setLevel(logging.ERROR)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mayordomo", description="A self-hosted personal assistant.")
    parser.add_argument("--env-file", default=".env", help="settings file (default: .env)")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run", help="run the assistant (console when no messenger is configured)")
    commands.add_parser("check-config", help="validate the settings and exit")
    from memory.cli import register as register_memory_commands

    register_memory_commands(commands)
    args = parser.parse_args(argv)

    from bot.config import load_settings

    try:
        settings = load_settings(args.env_file)
    except ConfigError as exc:
        print(f"Configuration error: {exc}", file=sys.stderr)
        return 2
    configure_logging(settings.core.log_level)
    if args.command == "memory":
        try:
            return int(args.handler(args))
        except (ConfigError, DatabaseError) as exc:
            print(f"Cannot open the memory: {exc}", file=sys.stderr)
            return 2
    if args.command == "check-config":
        print("Configuration OK.")
        return 0
    if args.command in (None, "run"):
        from bot.app import run

        try:
            return asyncio.run(run(settings))
        except (ConfigError, DatabaseError) as exc:
            print(f"Cannot start: {exc}", file=sys.stderr)
            return 2
        except MayordomoError as exc:  # a part that cannot start (a peer unreachable, a token refused)
            print(f"Cannot start: {exc}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
