"""Input tokens per turn, ours against nanobot's, over token_cost's scripted day.

Optional, not part of `make bench`: nanobot is installed from PyPI into a venv of its own,
never into ours (`--venv DIR` creates it with pip when DIR has no Python yet).

Run: `.venv/bin/python bench/peers_tokens.py --venv /some/dir [--nanobot-version 0.3.5]`.

Both assistants talk to the same recording OpenAI-compatible server (tests/scripted_model.py,
here with server-sent events, because nanobot always streams), over the 50 turns of
bench/token_cost.py's day, told by the same scripted model: a turn that needs a skill makes
one tool round (ours: `current_time`; nanobot: `list_dir` on its workspace), then every
turn ends with the same answer. Twice: with those tool rounds, and with one request per
turn. nanobot runs in a subprocess through its SDK (`Nanobot.run`, one session, its default
tools and prompt, in a throw-away HOME and workspace). Requests are stamped with the day's
clock and priced with token_cost's prefix cache model; nanobot's own idle compaction keys
on the wall clock, so in this compressed day it never runs (it would add summarising calls
and shorten its history after each pause).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from token_cost import DAY, STRATEGIES, Day, Figures, Sent, measure, run_day  # noqa: E402

from tests.scripted_model import Scripted, ScriptedModel  # noqa: E402

START = datetime(2026, 3, 2, 7, 30, tzinfo=UTC)  # token_cost's day starts then too

# Runs inside nanobot's venv: one JSON line in (the user's message), one out when the turn is done.
DRIVER = """
import asyncio, json, sys
from nanobot import Nanobot

async def main():
    bot = Nanobot.from_config(sys.argv[1])
    for line in sys.stdin:
        result = await bot.run(json.loads(line)["text"], session_key="bench:owner")
        print(json.dumps({"answer": result.content}), flush=True)

asyncio.run(main())
"""


class StreamingModel(ScriptedModel):
    """The scripted model, answering `"stream": true` requests as server-sent events."""

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if not body.get("stream"):
            return await super()._chat(request)
        self.requests.append(body)
        assert self.responder is not None
        completion = self._completion(body, self.responder(body))
        choice = completion["choices"][0]
        message = choice["message"]
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
        head = {"id": completion["id"], "created": completion["created"], "model": completion["model"],
                "object": "chat.completion.chunk"}
        chunks = [{**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
                  {**head, "choices": [], "usage": completion["usage"]}]
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for chunk in chunks:
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response


class PeerDay:
    """nanobot's side of the same script: its cheapest read tool once when a skill is needed, then the answer."""

    def __init__(self, rounds: bool) -> None:
        self.rounds = rounds
        self.needs_tool = False
        self.outputs: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Scripted:
        messages = body["messages"]
        last_user = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=0)
        answered = any(m["role"] == "assistant" for m in messages[last_user:])
        if self.rounds and self.needs_tool and not answered:
            step = Scripted(tool_calls=[("list_dir", {"path": "."})])
            self.outputs.append(json.dumps(step.tool_calls))
        else:
            step = Scripted(content=Day.ANSWER if self.rounds else Day.ANSWER_AT_ONCE)
            self.outputs.append(step.content or "")
        return step


def nanobot_python(venv: Path, version: str) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"nanobot-ai=={version}"], check=True)
    return python


async def nanobot_day(python: Path, rounds: bool) -> tuple[list[Sent], list[str]]:
    """The day through nanobot, every request it sent stamped with the day's clock."""
    model = StreamingModel()
    script = PeerDay(rounds)
    model.responder = script
    await model.start()
    sent: list[Sent] = []
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        config = home / "config.json"
        config.write_text(json.dumps({
            "agents": {"defaults": {"workspace": str(home / "workspace"), "model": "bench", "provider": "custom"}},
            "providers": {"custom": {"apiKey": "x", "apiBase": model.base_url}},
        }))
        env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI", "ANTHROPIC"))}
        process = await asyncio.create_subprocess_exec(
            str(python), "-c", DRIVER, str(config), cwd=folder, env={**env, "HOME": folder},
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        assert process.stdin is not None and process.stdout is not None
        at = START
        try:
            for minutes, text, needs_tool in DAY:
                at += timedelta(minutes=minutes)
                script.needs_tool = needs_tool
                before = len(model.requests)
                process.stdin.write((json.dumps({"text": text}) + "\n").encode())
                await process.stdin.drain()
                line = await asyncio.wait_for(process.stdout.readline(), 120)
                if not line:
                    raise SystemExit("nanobot's driver stopped early")
                sent.extend(Sent(at, request, text, first_of_turn=i == 0)
                            for i, request in enumerate(model.requests[before:]))
        finally:
            process.stdin.close()
            await process.wait()
            await model.stop()
    return sent, script.outputs


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--venv", type=Path, required=True, help="nanobot's own venv (created if missing)")
    parser.add_argument("--nanobot-version", default="0.3.5")
    parser.add_argument("--ttl-minutes", type=float, default=10.0)
    parser.add_argument("--min-cached", type=int, default=1024)
    parser.add_argument("--cache-block", type=int, default=128)
    args = parser.parse_args()
    python = nanobot_python(args.venv, args.nanobot_version)
    ttl = timedelta(minutes=args.ttl_minutes)
    ours = {strategy.name: strategy for strategy in STRATEGIES if strategy.name in ("full", "routed")}
    print(f"{len(DAY)} turns; nanobot-ai {args.nanobot_version}; cache from {args.min_cached} tokens in blocks of "
          f"{args.cache_block}, kept {args.ttl_minutes:g} min")
    print(f"{'day':<12} {'who':<10} {'requests':>8} {'input':>8} {'per turn':>8} {'1st req':>8} {'cached%':>8} "
          f"{'eff@75':>8} {'eff@90':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for rounds in (True, False):
            day = "rounds" if rounds else "one_request"
            figures: dict[str, tuple[Figures, list[Sent]]] = {}
            for name, strategy in ours.items():
                run = await run_day(strategy, Path(folder), rounds=rounds)
                figures[f"ours_{name}"] = (measure(run.requests, run.outputs, args.min_cached, args.cache_block,
                                                   ttl)[0], run.requests)
            theirs, outputs = await nanobot_day(python, rounds)
            figures["nanobot"] = (measure(theirs, outputs, args.min_cached, args.cache_block, ttl)[0], theirs)
            for who, (figure, requests) in figures.items():
                first = [figure_of(one) for one in requests if one.first_of_turn]
                print(f"{day:<12} {who:<10} {figure.requests:>8} {figure.input_tokens:>8} "
                      f"{figure.input_tokens / len(DAY):>8.0f} {sum(first) / len(first):>8.0f} "
                      f"{figure.cached_tokens / figure.input_tokens:>8.1%} {figure.effective_input(0.75):>8.0f} "
                      f"{figure.effective_input(0.90):>8.0f}")
            peer = figures["nanobot"][0]
            for who, (figure, requests) in figures.items():
                label = f"peers_tokens {day} {who}"
                first = [figure_of(one) for one in requests if one.first_of_turn]
                print(f"{label} input_tokens_per_turn = {figure.input_tokens / len(DAY):.0f}")
                print(f"{label} first_request_tokens = {sum(first) / len(first):.0f}")
                print(f"{label} cached_share = {figure.cached_tokens / figure.input_tokens:.3f}")
                for discount in (75, 90):
                    print(f"{label} effective_input_tokens_{discount} = {figure.effective_input(discount / 100):.0f}")
                    if who != "nanobot":
                        print(f"{label} input_vs_nanobot_{discount} = "
                              f"{figure.effective_input(discount / 100) / peer.effective_input(discount / 100):.3f}")


def figure_of(one: Sent) -> int:
    """Tokens of one request as the provider lays it out."""
    return measure([one], [], 1 << 30, 1, timedelta(0))[0].input_tokens


if __name__ == "__main__":
    asyncio.run(main())
