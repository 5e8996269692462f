"""A gateway that has a real server judge every chat request before the scripted model answers it.

The tiny model behind the real server cannot choose tools, so the turn's answers come from the
scripted model; but each request our client sends goes first, byte for byte, to the real server.
A refusal there (any status but 200) goes back to our client as it came, so the turn fails the
way it would against that server; every verdict is kept in `checked`. Without an answering
server, the real server's own answer goes back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web


@dataclass(frozen=True)
class Checked:
    """One request and the real server's verdict on it."""

    body: dict[str, Any]
    status: int
    reply: str


class ValidatingGateway:
    def __init__(self, judge_url: str, answer_url: str | None) -> None:
        self.judge_url = judge_url
        self.answer_url = answer_url
        self.checked: list[Checked] = []
        self.base_url = ""
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    @property
    def refusals(self) -> list[Checked]:
        return [c for c in self.checked if c.status != 200]

    async def start(self) -> str:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=300))
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _chat(self, request: web.Request) -> web.Response:
        assert self._session is not None
        raw = await request.read()
        headers = {"Content-Type": "application/json"}
        async with self._session.post(f"{self.judge_url}/chat/completions", data=raw, headers=headers) as judged:
            verdict = await judged.text()
            self.checked.append(Checked(json.loads(raw), judged.status, verdict))
            if judged.status != 200 or self.answer_url is None:
                return web.Response(text=verdict, status=judged.status, content_type="application/json")
        async with self._session.post(f"{self.answer_url}/chat/completions", data=raw, headers=headers) as answer:
            return web.Response(body=await answer.read(), status=answer.status, content_type="application/json")
