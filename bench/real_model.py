"""Smoke run against a real model: 10 scripted user turns through the real app, any endpoint.

Not part of `make test` (a local model is too slow for CI). Point it at any
OpenAI-compatible server, e.g. Ollama or llama.cpp's `llama-server --jinja`:

    python bench/real_model.py --base-url http://127.0.0.1:11434/v1 --model qwen2.5:3b
    python bench/real_model.py --base-url http://127.0.0.1:8080/v1            # llama-server

The app runs with its real router, policy, approvals, honesty check and a notes folder in
a temporary DATA_DIR; the delete request is denied, every other approval is given. Prints a
line per turn, then `name = value` lines: turns answered, tool calls made (and how they
ended), model errors by class, false claims the honesty check caught.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.app import build_app
from bot.clock import SystemClock
from bot.config import load_settings
from bot.core.events import TextMessage
from bot.errors import ModelError, ModelFailure
from tests.support import OWNER, RecordingMessenger

# (what the user says, approve an approval it asks for?)
TURNS: list[tuple[str, bool]] = [
    ("Hi! In one sentence, what can you do for me?", True),
    ("What time is it now?", True),
    ("Add 'buy eggs' to my shopping note.", True),
    ("What is in my shopping note?", True),
    ("Append 'milk' to the shopping note too.", True),
    ("List my notes.", True),
    ("Remember that my sister is called Ana.", True),
    ("What is my sister's name?", True),
    ("Remind me tomorrow at 9:00 to call mum.", True),
    ("Delete the shopping note.", False),
]
ANSWERED = {"answered", "corrected", "trimmed"}


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="mayordomo-real-model-"))
    llm: dict[str, Any] = {"base_url": args.base_url, "chat_model": args.model, "api_key": args.api_key,
                           "profile": args.profile}
    if args.timeout:
        llm["timeout_seconds"] = args.timeout
    settings = load_settings(None, core={"data_dir": root, "timezone": "Europe/Madrid"}, llm=llm)
    app = await build_app(settings, SystemClock(), progress=lambda step: print(f"# {step}", file=sys.stderr))
    assert app.model is not None
    failures: Counter[str] = Counter()
    complete = app.model.complete

    async def counted(*a: Any, **kw: Any) -> Any:  # the class of every failed request, router's included
        try:
            return await complete(*a, **kw)
        except ModelError as exc:
            failures[exc.failure.value] += 1
            raise

    app.model.complete = counted  # type: ignore[method-assign]
    messenger = RecordingMessenger()
    messenger.assistant = app.assistant
    app.assistant.add_messenger(messenger)
    await app.assistant.start()
    seconds: list[float] = []
    try:
        for number, (text, approve) in enumerate(TURNS, 1):
            messenger.auto_decide = approve
            before = len(messenger.sent)
            started = time.perf_counter()
            await app.assistant.handle(TextMessage(OWNER, text))
            seconds.append(time.perf_counter() - started)
            shown = " | ".join(m.text.replace("\n", " ")[:160] for _, m in messenger.sent[before:])
            print(f"turn {number:2d} ({seconds[-1]:6.1f} s) {text}\n    -> {shown}", flush=True)
        turns = await app.db.fetchall("SELECT outcome, verification_json FROM turns ORDER BY id")
        calls = await app.db.fetchall("SELECT tool, status FROM tool_calls")
    finally:
        await app.assistant.stop()
        for close in app.closers:
            await close()
        await app.model.close()
        await app.http.aclose()
        await app.db.close()
    caught = dropped = 0
    for row in turns:
        for attempt in json.loads(row["verification_json"] or "[]"):
            caught += bool(attempt.get("violations")) or bool(attempt.get("dropped"))
            dropped += int(attempt.get("dropped") or 0)
    outcomes = Counter(row["outcome"] for row in turns)
    statuses = Counter(row["status"] for row in calls)
    result: dict[str, Any] = {
        "turns": len(TURNS),
        "turns_answered": sum(n for outcome, n in outcomes.items() if outcome in ANSWERED),
        **{f"turns_{outcome}": n for outcome, n in sorted(outcomes.items())},
        "tool_calls": len(calls),
        **{f"tool_calls_{status}": n for status, n in sorted(statuses.items())},
        "distinct_tools": len({row["tool"] for row in calls}),
        **{f"errors_{failure.value}": failures[failure.value] for failure in ModelFailure},
        "false_claims_caught": caught,
        "sentences_dropped": dropped,
        "seconds_per_turn_p50": round(statistics.median(seconds), 1),
        "seconds_per_turn_max": round(max(seconds), 1),
    }
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True, help="the server's OpenAI-compatible URL, ending in /v1")
    parser.add_argument("--model", default="local", help="model name (llama-server ignores it; Ollama needs it)")
    parser.add_argument("--api-key", default="", help="key, if the server wants one")
    parser.add_argument("--profile", default="auto", choices=["auto", "cloud", "local"])
    parser.add_argument("--timeout", type=float, default=0.0, help="seconds per model call (default: profile's)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="# %(levelname)s %(name)s: %(message)s")
    result = asyncio.run(_run(args))
    for name, value in result.items():
        print(f"{name} = {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
