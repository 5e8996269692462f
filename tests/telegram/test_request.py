"""PTB's aiohttp backend: what a slow, refused or failing Bot API turns into, and what it sends."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from telegram import Bot
from telegram.error import BadRequest, NetworkError, TimedOut

from bot.adapters.telegram import _answer_lost
from bot.adapters.telegram_request import AiohttpRequest, AnswerTimedOut

TOKEN = "123:abc"
Server = tuple[str, list[web.Request], dict[str, bytes]]  # base URL, requests seen, bodies by method


@pytest.fixture
async def server() -> AsyncIterator[Server]:
    seen: list[web.Request] = []
    bodies: dict[str, bytes] = {}

    async def handle(request: web.Request) -> web.Response:
        seen.append(request)
        method = request.match_info["method"]
        if request.content_type.startswith("multipart/"):
            form = await request.post()
            bodies[method] = json.dumps({k: (v if isinstance(v, str) else v.file.read().decode())
                                         for k, v in form.items()}).encode()
        else:
            bodies[method] = await request.read()
        if method == "sendChatAction":
            await asyncio.sleep(2)  # longer than the client's read timeout
        if method == "editMessageText":
            return web.json_response({"ok": False, "error_code": 400, "description": "Bad Request: nope"},
                                     status=400)
        if method == "sendDocument":
            return web.json_response({"ok": True, "result": {
                "message_id": 7, "date": 1700000000, "chat": {"id": 5, "type": "private"},
                "document": {"file_id": "f", "file_unique_id": "u", "file_name": "a.txt"}}})
        return web.json_response({"ok": True, "result": {
            "message_id": 1, "date": 1700000000, "chat": {"id": 5, "type": "private"}, "text": "hi"}})

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/bot", seen, bodies
    finally:
        await runner.cleanup()


def _bot(base_url: str, **timeouts: float) -> Bot:
    return Bot(TOKEN, base_url=base_url, request=AiohttpRequest(4, **timeouts))


async def test_a_message_goes_out_as_a_form_and_comes_back_parsed(server: Server) -> None:
    base_url, seen, bodies = server
    bot = _bot(base_url)
    await bot.request.initialize()
    try:
        sent = await bot.send_message(5, "héllo", reply_markup=None)
    finally:
        await bot.request.shutdown()
    assert sent.message_id == 1 and sent.chat.id == 5
    assert seen[0].content_type == "application/x-www-form-urlencoded"
    assert b"h%C3%A9llo" in bodies["sendMessage"]


async def test_a_file_goes_out_as_multipart(server: Server) -> None:
    base_url, _, bodies = server
    bot = _bot(base_url)
    await bot.request.initialize()
    try:
        sent = await bot.send_document(5, document=b"every argument", filename="a.txt", caption="all of it")
    finally:
        await bot.request.shutdown()
    assert sent.document is not None and sent.document.file_name == "a.txt"
    fields = json.loads(bodies["sendDocument"])
    assert fields["caption"] == "all of it" and fields["document"] == "every argument"


async def test_an_answer_that_does_not_come_may_have_been_acted_on(server: Server) -> None:
    base_url, seen, _ = server
    bot = _bot(base_url, read_timeout=0.3)
    await bot.request.initialize()
    try:
        with pytest.raises(TimedOut) as caught:
            await bot.send_chat_action(5, "typing")
    finally:
        await bot.request.shutdown()
    assert isinstance(caught.value, AnswerTimedOut) and _answer_lost(caught.value)
    assert [r.match_info["method"] for r in seen] == ["sendChatAction"]  # it did reach the server


async def test_a_refused_connection_is_a_network_error_never_an_uncertain_send() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there once the probe closes
    bot = _bot(f"http://127.0.0.1:{port}/bot")
    await bot.request.initialize()
    try:
        with pytest.raises(NetworkError) as caught:
            await bot.send_message(5, "hi")
    finally:
        await bot.request.shutdown()
    assert not isinstance(caught.value, TimedOut)


async def test_telegram_errors_keep_their_meaning(server: Server) -> None:
    base_url, _, _ = server
    bot = _bot(base_url)
    await bot.request.initialize()
    try:
        with pytest.raises(BadRequest, match=r"(?i)nope"):
            await bot.edit_message_text("x", chat_id=5, message_id=1)
    finally:
        await bot.request.shutdown()


async def test_a_request_before_initialize_fails_plainly() -> None:
    request = AiohttpRequest(1)
    with pytest.raises(NetworkError, match="not initialized"):
        await request.post("http://127.0.0.1:9/botx/getMe")
