"""A scripted OpenAI-compatible HTTP server: queued answers out, every request recorded.

Tests queue what the "model" will say (`say`, `call`, `respond`), or a failure
(`fail` with any status, body and headers, `hang`, `garbage`), and read `requests`
afterwards. The real `openai` SDK talks to it over HTTP on 127.0.0.1. A `responder`
function can decide answers from the request instead of a queue (used for adversarial
scripts). When nothing is queued the server answers HTTP 599 with a message, so a test
that under-scripts fails loudly.

Run standalone for a manual session: `python -m tests.scripted_model --script s.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Responder = Callable[[dict[str, Any]], "Scripted"]


@dataclass
class Scripted:
    """One queued reaction of the fake model."""

    content: str | None = None
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    status: int = 200
    delay: float = 0.0
    raw_body: str | None = None
    usage: tuple[int, int, int] | None = None  # prompt, cached, completion
    error: dict[str, Any] | str | None = None  # the body of a failure (status != 200)
    headers: dict[str, str] = field(default_factory=dict)
    omit_ids: bool = False  # tool calls without ids, as some local servers send them


class ScriptedModel:
    def __init__(self) -> None:
        self.queue: deque[Scripted] = deque()
        self.transcripts: deque[str] = deque()
        self.requests: list[dict[str, Any]] = []
        self.transcription_requests: list[dict[str, Any]] = []
        self.embedding_requests: list[dict[str, Any]] = []
        self.responder: Responder | None = None
        self.embedder: Callable[[list[str]], list[list[float]]] | None = None
        self.embedding_failures: deque[tuple[int, str]] = deque()  # (status, message), answered in turn
        self._ids = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    # -- scripting ---------------------------------------------------------------
    def say(self, text: str, usage: tuple[int, int, int] | None = None) -> None:
        """Plain assistant text (no tool call)."""
        self.queue.append(Scripted(content=text, usage=usage))

    def call(self, name: str, arguments: dict[str, Any] | str | None = None, **kw: Any) -> None:
        """One tool call; `arguments` may be a raw (possibly broken) JSON string."""
        self.calls([(name, arguments if arguments is not None else kw)])

    def calls(self, calls: list[tuple[str, dict[str, Any] | str]],
              usage: tuple[int, int, int] | None = None, *, content: str | None = None,
              omit_ids: bool = False) -> None:
        self.queue.append(Scripted(content=content, tool_calls=list(calls), usage=usage, omit_ids=omit_ids))

    def respond(self, text: str, suggestions: list[str] | None = None,
                usage: tuple[int, int, int] | None = None) -> None:
        """The final answer through the `respond` tool."""
        args: dict[str, Any] = {"text": text}
        if suggestions:
            args["suggestions"] = suggestions
        self.queue.append(Scripted(tool_calls=[("respond", args)], usage=usage))

    def fail(self, status: int = 500, message: str = "scripted failure", *, code: str | None = None,
             body: dict[str, Any] | str | None = None, headers: dict[str, str] | None = None) -> None:
        """An HTTP error: OpenAI's `{"error": {"message", "code"}}` shape unless `body` is given
        (a dict is sent as JSON, a string as plain text), as other servers answer."""
        error = body if body is not None else {"error": {"message": message, "type": "scripted", "code": code}}
        self.queue.append(Scripted(status=status, error=error, headers=dict(headers or {})))

    def hang(self, seconds: float) -> None:
        self.queue.append(Scripted(delay=seconds, content="too late"))

    def garbage(self, body: str = '{"choices": [{"message": ') -> None:
        self.queue.append(Scripted(raw_body=body))

    def transcript(self, text: str) -> None:
        self.transcripts.append(text)

    # -- inspection --------------------------------------------------------------
    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return self.requests

    def tool_names(self, index: int = -1) -> list[str]:
        """Names of the tools offered in request `index`."""
        return [t["function"]["name"] for t in self.requests[index].get("tools", [])]

    # -- server ------------------------------------------------------------------
    async def start(self, port: int = 0) -> str:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/audio/transcriptions", self._transcribe)
        app.router.add_post("/v1/embeddings", self._embeddings)
        # handler_cancellation: a delayed answer whose client is gone (timed out, killed) stops
        # waiting, so stopping the server does not sit out the delay.
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        sockets = site._server.sockets  # type: ignore[union-attr]
        bound = sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{bound}/v1"
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        if self.responder is not None:
            step = self.responder(body)
        elif self.queue:
            step = self.queue.popleft()
        else:
            return web.json_response(
                {"error": {"message": "scripted model: no response queued"}}, status=599
            )
        if step.delay:
            await asyncio.sleep(step.delay)
        if step.raw_body is not None:
            return web.Response(text=step.raw_body, content_type="application/json")
        if step.status != 200:
            if isinstance(step.error, str):
                return web.Response(text=step.error, status=step.status, headers=step.headers)
            return web.json_response(step.error or {"error": {"message": "scripted failure"}},
                                     status=step.status, headers=step.headers)
        return web.json_response(self._completion(body, step))

    def _completion(self, body: dict[str, Any], step: Scripted) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": step.content}
        if step.tool_calls:
            message["tool_calls"] = [
                {
                    **({} if step.omit_ids else {"id": f"call_{next(self._ids)}"}),
                    "type": "function",
                    "function": {
                        "name": name,
                        "arguments": args if isinstance(args, str) else json.dumps(args),
                    },
                }
                for name, args in step.tool_calls
            ]
        prompt, cached, completion = step.usage or (
            len(json.dumps(body)) // 4, 0, len(json.dumps(message)) // 4
        )
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model", "scripted"),
            "choices": [{
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if step.tool_calls else "stop",
            }],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }

    async def _transcribe(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        size = len(upload.file.read()) if hasattr(upload, "file") else 0
        self.transcription_requests.append({"model": form.get("model"), "bytes": size})
        if not self.transcripts:
            return web.json_response({"error": {"message": "no transcript queued"}}, status=599)
        return web.json_response({"text": self.transcripts.popleft()})

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.embedding_requests.append(body)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if self.embedding_failures:
            status, message = self.embedding_failures.popleft()
            return web.json_response({"error": {"message": message, "type": "scripted"}}, status=status)
        if self.embedder is None:
            return web.json_response({"error": {"message": "no embedder set"}}, status=599)
        vectors = self.embedder(texts)
        return web.json_response({
            "object": "list",
            "model": body.get("model", "scripted"),
            "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0},
        })


def _load_script(path: str, model: ScriptedModel) -> None:
    """A JSON list of steps: {"respond": "..."} | {"call": name, "args": {...}} | {"say": "..."}."""
    with open(path, encoding="utf-8") as handle:
        steps = json.load(handle)
    for step in steps:
        if "respond" in step:
            model.respond(step["respond"])
        elif "call" in step:
            model.call(step["call"], step.get("args", {}))
        elif "say" in step:
            model.say(step["say"])


async def _serve(script: str | None, port: int) -> None:
    model = ScriptedModel()
    if script:
        _load_script(script, model)
    url = await model.start(port)
    print(f"scripted model listening on {url}", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--script", help="JSON file of steps")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    asyncio.run(_serve(args.script, args.port))


if __name__ == "__main__":
    main()
