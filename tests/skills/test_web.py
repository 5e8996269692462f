"""Web search (SearXNG, Brave) and page reading against local fakes."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from bot.config import WebSettings
from bot.errors import ToolError
from tests.skills.conftest import tool_of
from tests.skills.fakes import FakeServices
from tools.policy import Policy
from tools.registry import Decision, Skill
from tools.skills.web import WebSkill, is_public


@pytest.fixture
def skill(http: httpx.AsyncClient, web_settings: WebSettings) -> WebSkill:
    return WebSkill(http, web_settings)


async def call(skill: Skill, name: str, **arguments: object) -> str:
    bound = tool_of(skill, name)
    result = await bound.invoke(bound.parse(arguments), None)  # type: ignore[arg-type]
    assert isinstance(result, str)
    return result


def test_everything_fetched_is_untrusted(skill: WebSkill) -> None:
    tools = {bound.name: bound for bound in skill.tools()}
    assert set(tools) == {"web_search", "web_fetch"}
    assert all(bound.spec.untrusted_output for bound in tools.values())
    # A fetched address can carry data out: after untrusted content it needs a yes.
    fetch = tools["web_fetch"]
    args = fetch.parse({"url": "https://example.org/?q=secret"})
    assert Policy().decide(fetch, args) is Decision.ALLOW
    assert Policy().decide(fetch, args, untrusted_seen=True) is Decision.REQUIRE_APPROVAL
    assert "https://example.org/?q=secret" in fetch.describe(args)


def test_search_is_absent_without_a_provider(http: httpx.AsyncClient) -> None:
    bare = WebSkill(http, WebSettings(_env_file=None))  # type: ignore[call-arg]
    assert [bound.name for bound in bare.tools()] == ["web_fetch"]


async def test_searxng_search(skill: WebSkill, services: FakeServices) -> None:
    text = await call(skill, "web_search", query="receta tortilla", limit=5)
    sent = services.of("searxng")[0].query
    assert sent["q"] == "receta tortilla" and sent["format"] == "json"
    assert text.splitlines() == [
        "Web results for 'receta tortilla':",
        "1. Cómo hacer tortilla de patatas — https://www.recetas.example/tortilla",
        "   La receta clásica: huevos, patatas, cebolla & aceite.",
        "2. Tortilla de patatas — https://es.wikipedia.example/wiki/Tortilla_de_patatas",
        "   La tortilla de patatas es una tortilla de huevo batido con patatas.",
    ]


async def test_searxng_without_json_format_explains_the_fix(skill: WebSkill, services: FakeServices) -> None:
    services.modes["searxng"] = "forbidden"
    with pytest.raises(ToolError, match=r"enable 'json' under search\.formats"):
        await call(skill, "web_search", query="x")


async def test_search_empty_and_timeout(skill: WebSkill, services: FakeServices) -> None:
    services.modes["searxng"] = "empty"
    assert await call(skill, "web_search", query="zzqx") == "The web search found nothing for 'zzqx'."
    services.modes["searxng"] = "hang"
    with pytest.raises(ToolError, match=r"SearXNG\) did not answer within 0.5 s"):
        await call(skill, "web_search", query="zzqx")


async def test_brave_search_and_fallback(
    http: httpx.AsyncClient, web_settings: WebSettings, services: FakeServices
) -> None:
    settings = web_settings.model_copy(
        update={"brave_api_key": SecretStr("brave-test-key"), "brave_url": services.brave_url}
    )
    skill = WebSkill(http, settings)
    services.modes["searxng"] = "error"
    text = await call(skill, "web_search", query="tortilla")
    assert "1. Tortilla de patatas - Receta — https://brave.example/tortilla" in text
    assert "La tortilla perfecta en 30 minutos." in text
    assert services.of("brave")[0].headers["X-Subscription-Token"] == "brave-test-key"
    services.modes["brave"] = "error"
    with pytest.raises(ToolError, match=r"SearXNG\) answered HTTP 502.*Brave Search API\) answered HTTP 500"):
        await call(skill, "web_search", query="tortilla")


async def test_brave_bad_key(http: httpx.AsyncClient, services: FakeServices) -> None:
    settings = WebSettings(  # type: ignore[call-arg]
        _env_file=None, brave_api_key=SecretStr("wrong"), brave_url=services.brave_url
    )
    with pytest.raises(ToolError, match="HTTP 422: The provided subscription token is invalid"):
        await call(WebSkill(http, settings), "web_search", query="x")


async def test_fetch_extracts_the_readable_text(skill: WebSkill, services: FakeServices) -> None:
    text = await call(skill, "web_fetch", url=services.page("article"))
    assert text.startswith(f"Page: Cómo hacer tortilla de patatas\nURL: {services.page('article')}\n\n")
    assert "cinco\nhuevos" in text or "cinco huevos" in text
    assert "Sírvela templada." in text
    for noise in ("SCRIPT-NOISE", "MENU-NOISE", "FOOTER-NOISE", "<p>"):
        assert noise not in text


async def test_fetch_follows_redirects(skill: WebSkill, services: FakeServices) -> None:
    text = await call(skill, "web_fetch", url=services.page("moved"))
    assert f"URL: {services.page('article')}" in text
    with pytest.raises(ToolError, match="redirects more than 5 times"):
        await call(skill, "web_fetch", url=services.page("loop"))
    assert len([r for r in services.of("pages") if r.path == "/pages/loop"]) == 6


async def test_fetch_stops_at_the_size_limit(skill: WebSkill, services: FakeServices) -> None:
    text = await call(skill, "web_fetch", url=services.page("huge"))
    assert "Note: the page is larger than 50000 bytes; only its start was read" in text
    assert "text cut at 2000 characters" in text
    body = text.split("\n\n", 1)[1]
    assert len(body) <= 2_000 and body.startswith("HUGE-LINE")


async def test_fetch_plain_text(skill: WebSkill, services: FakeServices) -> None:
    text = await call(skill, "web_fetch", url=services.page("notes.txt"))
    assert text.endswith("\n\nPlain notes: buy milk.")


@pytest.mark.parametrize(("page", "message"), [
    ("missing", "answered HTTP 404"),
    ("report.pdf", "is application/pdf, not a page I can read as text"),
    ("empty", "has no readable text"),
])
async def test_fetch_failures(skill: WebSkill, services: FakeServices, page: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        await call(skill, "web_fetch", url=services.page(page))


async def test_fetch_timeout(skill: WebSkill, services: FakeServices) -> None:
    services.modes["pages"] = "hang"
    with pytest.raises(ToolError, match=r"did not answer within 0\.5 s"):
        await call(skill, "web_fetch", url=services.page("article"))


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/x", "javascript:alert(1)", "nota url"])
async def test_fetch_refuses_non_web_addresses(skill: WebSkill, url: str) -> None:
    with pytest.raises(ToolError, match=r"not an http|not a valid web address"):
        await call(skill, "web_fetch", url=url)


async def test_fetch_refuses_private_addresses_by_default(
    http: httpx.AsyncClient, web_settings: WebSettings, services: FakeServices
) -> None:
    strict = WebSkill(http, web_settings.model_copy(update={"allow_private_addresses": False}))
    for url in (services.page("article"), "http://localhost:1/", "http://[::1]/", "http://169.254.169.254/"):
        with pytest.raises(ToolError, match="private or local address"):
            await call(strict, "web_fetch", url=url)
    assert services.of("pages") == []


async def test_redirect_to_a_private_address_is_refused(
    http: httpx.AsyncClient, web_settings: WebSettings, services: FakeServices
) -> None:
    # The first hop is allowed here only because the fake lives on 127.0.0.1; the
    # redirect target is checked again under the strict rule.
    skill = WebSkill(http, web_settings)
    skill.fetcher._settings = web_settings.model_copy(update={"allow_private_addresses": False})
    with pytest.raises(ToolError, match="private or local"):
        await call(skill, "web_fetch", url=services.page("to-private"))


class _LoopbackOnly(httpx.AsyncBaseTransport):
    """Tests never reach the internet: a connection to a public address literal fails here."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.seen: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        try:
            public = ipaddress.ip_address(request.url.host).is_global
        except ValueError:
            public = False
        if public:
            raise httpx.ConnectError("a test never connects to a public address", request=request)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_dns_rebinding_cannot_reach_loopback(
    web_settings: WebSettings, services: FakeServices, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name answers a public address to the check and 127.0.0.1 to whoever asks next.
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo
    answers = ["93.184.216.34", "127.0.0.1"]
    asked: list[str] = []

    async def rebinding(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name != "rebind.test":
            return await real(host, port, *args, **kwargs)
        address = answers[min(len(asked), 1)]
        asked.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port)))]

    monkeypatch.setattr(loop, "getaddrinfo", rebinding)
    port = httpx.URL(services.base_url).port
    transport = _LoopbackOnly()
    async with httpx.AsyncClient(transport=transport) as client:
        strict = WebSkill(client, web_settings.model_copy(update={"allow_private_addresses": False}))
        with pytest.raises(ToolError, match="could not reach"):
            await call(strict, "web_fetch", url=f"http://rebind.test:{port}/pages/article")
    assert services.of("pages") == []  # the loopback service was never read
    assert asked == ["93.184.216.34"]  # resolved once; the connection used that answer
    sent = transport.seen[-1]
    assert sent.url.host == "93.184.216.34" and sent.headers["host"] == f"rebind.test:{port}"


@pytest.mark.parametrize("address", [
    "::7f00:1", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::", "2002:c0a8:101::1",
])
async def test_ipv6_forms_that_embed_a_private_ipv4_are_refused(web_settings: WebSettings, address: str) -> None:
    transport = _LoopbackOnly()
    async with httpx.AsyncClient(transport=transport) as client:
        strict = WebSkill(client, web_settings.model_copy(update={"allow_private_addresses": False}))
        with pytest.raises(ToolError, match="private or local address"):
            await call(strict, "web_fetch", url=f"http://[{address}]/")
    assert transport.seen == []


def test_public_forms_of_embedded_ipv4_stay_allowed() -> None:
    for address in ("64:ff9b::808:808", "2002:808:808::1", "2606:4700::1111", "93.184.216.34"):
        assert is_public(ipaddress.ip_address(address))
