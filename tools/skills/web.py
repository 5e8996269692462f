"""Web search (a SearXNG instance's JSON API, or the Brave Search API) and page reading.

Everything returned here was written by strangers, so both tools are `untrusted_output`.
A fetch streams at most `fetch_max_bytes`, follows at most a few redirects (each hop is
checked again), refuses the owner's private network unless allowed, and extracts the
readable text with trafilatura from the bytes we already have: trafilatura never fetches.
The name is resolved once and the connection goes to the address that was checked (Host
header and TLS name kept), so a name that answers differently the second time (DNS
rebinding) cannot lead the fetch into the owner's network.
"""

from __future__ import annotations

import asyncio
import html
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

import httpx
from pydantic import BaseModel, Field

from bot.config import WebSettings
from bot.errors import ToolError
from tools.http import get_json, read_bounded
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import BoundTool, Routing, tool

MAX_REDIRECTS = 5
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/rss+xml", "application/atom+xml")
_TAG = re.compile(r"<[^>]+>")
# IPv6 forms that carry an IPv4 address inside them: the IPv4 part must be public too.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# host, port -> the addresses the name has now.
Resolver = Callable[[str, int], Awaitable[list[IpAddress]]]


async def system_resolver(host: str, port: int) -> list[IpAddress]:
    """The operating system's resolver, off the event loop."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [ipaddress.ip_address(info[4][0]) for info in infos]


def is_public(address: IpAddress) -> bool:
    """Globally routable, and so is any IPv4 address embedded in an IPv6 one (mapped, 6to4, NAT64)."""
    if not address.is_global or address.is_multicast:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and (address in _IPV4_COMPATIBLE or any(address in net for net in _NAT64)):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return embedded.is_global and not embedded.is_multicast
    return True


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class Page:
    url: str
    title: str | None
    text: str
    truncated_bytes: bool
    truncated_chars: bool


class SearxngSearch:
    """A SearXNG instance's /search?format=json (the instance must enable the json format)."""

    service = "the search engine (SearXNG)"

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings) -> None:
        self._http = http
        self._settings = settings

    async def search(self, query: str, limit: int) -> tuple[list[SearchResult], list[str]]:
        assert self._settings.searxng_url
        try:
            payload = await get_json(
                self._http,
                f"{self._settings.searxng_url.rstrip('/')}/search",
                service=self.service,
                timeout_seconds=self._settings.timeout_seconds,
                max_bytes=self._settings.fetch_max_bytes,
                params={"q": query, "format": "json", "pageno": 1},
                headers={"User-Agent": self._settings.user_agent, "Accept": "application/json"},
            )
        except ToolError as exc:
            if "HTTP 403" in str(exc):
                raise ToolError(
                    f"{self.service} refuses JSON answers (HTTP 403): enable 'json' under "
                    "search.formats in the instance's settings.yml"
                ) from None
            raise
        if not isinstance(payload, dict) or not isinstance(payload.get("results"), list):
            raise ToolError(f"{self.service} answered in an unexpected format")
        results = [
            SearchResult(
                title=_clean(item.get("title")) or str(item["url"]),
                url=str(item["url"]),
                snippet=_clean(item.get("content")),
            )
            for item in payload["results"]
            if isinstance(item, dict) and item.get("url")
        ]
        answers = []
        for answer in payload.get("answers") or []:
            text = answer.get("answer") if isinstance(answer, dict) else answer
            if isinstance(text, str) and text.strip():
                answers.append(_clean(text))
        return _dedupe(results)[:limit], answers


class BraveSearch:
    """The Brave Search API (needs WEB_BRAVE_API_KEY)."""

    service = "the search engine (Brave Search API)"

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings) -> None:
        self._http = http
        self._settings = settings

    async def search(self, query: str, limit: int) -> tuple[list[SearchResult], list[str]]:
        assert self._settings.brave_api_key is not None
        payload = await get_json(
            self._http,
            self._settings.brave_url,
            service=self.service,
            timeout_seconds=self._settings.timeout_seconds,
            max_bytes=self._settings.fetch_max_bytes,
            params={"q": query, "count": min(limit, 20)},
            headers={
                "Accept": "application/json",
                "X-Subscription-Token": self._settings.brave_api_key.get_secret_value(),
            },
        )
        web = payload.get("web") if isinstance(payload, dict) else None
        items = web.get("results") if isinstance(web, dict) else []
        if not isinstance(items, list):
            raise ToolError(f"{self.service} answered in an unexpected format")
        results = [
            SearchResult(
                title=_clean(item.get("title")) or str(item["url"]),
                url=str(item["url"]),
                snippet=_clean(item.get("description")),
            )
            for item in items
            if isinstance(item, dict) and item.get("url")
        ]
        return _dedupe(results)[:limit], []


def _clean(value: Any) -> str:
    """Plain one-line text from a snippet that may carry HTML tags or entities."""
    if not isinstance(value, str):
        return ""
    return " ".join(html.unescape(_TAG.sub("", value)).split())


def _dedupe(results: list[SearchResult]) -> list[SearchResult]:
    seen: set[str] = set()
    unique = []
    for result in results:
        if result.url not in seen:
            seen.add(result.url)
            unique.append(result)
    return unique


class PageFetcher:
    """Fetch one page within limits and return its readable text."""

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings, resolver: Resolver = system_resolver) -> None:
        self._http = http
        self._settings = settings
        self._resolve = resolver

    async def fetch(self, url: str) -> Page:
        current = _checked_url(url)
        for _ in range(MAX_REDIRECTS + 1):
            address = await self._check_host(current)
            target, headers, extensions = _pinned(current, address)
            body = await read_bounded(
                self._http,
                "GET",
                str(target),
                service=f"the web site {current.host}",
                timeout_seconds=self._settings.timeout_seconds,
                max_bytes=self._settings.fetch_max_bytes,
                headers={
                    **headers,
                    "User-Agent": self._settings.user_agent,
                    "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
                },
                extensions=extensions,
            )
            if body.status in (301, 302, 303, 307, 308) and "location" in body.headers:
                current = _checked_url(str(current.join(body.headers["location"])))
                continue
            if body.status >= 400:
                raise ToolError(f"{current} answered HTTP {body.status}; the page could not be read")
            return await self._readable(str(current), body.headers, body.content, body.truncated)
        raise ToolError(f"{url} redirects more than {MAX_REDIRECTS} times; gave up")

    async def _readable(self, url: str, headers: httpx.Headers, content: bytes, truncated: bool) -> Page:
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        limit = self._settings.fetch_max_chars
        if content_type in _HTML_TYPES or (not content_type and content.lstrip()[:1] == b"<"):
            title, text = await asyncio.to_thread(_extract_html, content, url)
        elif content_type.startswith(_TEXT_TYPES):
            title, text = None, content.decode(_charset(headers), errors="replace")
        else:
            raise ToolError(f"{url} is {content_type or 'of unknown type'}, not a page I can read as text")
        text = text.strip()
        if not text:
            raise ToolError(f"{url} has no readable text (it may need JavaScript or a login)")
        return Page(
            url=url,
            title=title,
            text=text[:limit],
            truncated_bytes=truncated,
            truncated_chars=len(text) > limit,
        )

    async def _check_host(self, url: httpx.URL) -> IpAddress | None:
        """The checked address to connect to, or None to let the client resolve (private allowed)."""
        if self._settings.allow_private_addresses:
            return None
        host = url.host
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            try:
                addresses = await self._resolve(
                    url.raw_host.decode("ascii"), url.port or (443 if url.scheme == "https" else 80)
                )
            except (OSError, UnicodeDecodeError):
                raise ToolError(f"the host {host} does not resolve; check the address") from None
        if not addresses:
            raise ToolError(f"the host {host} does not resolve; check the address")
        for address in addresses:
            if not is_public(address):
                raise ToolError(
                    f"{host} is a private or local address ({address}); fetching it is not allowed"
                )
        return addresses[0]


def _pinned(url: httpx.URL, address: IpAddress | None) -> tuple[httpx.URL, dict[str, str], dict[str, Any]]:
    """The URL to connect to the checked address, with the Host header and TLS name of the real host."""
    if address is None:
        return url, {}, {}
    name = url.raw_host.decode("ascii")
    extensions: dict[str, Any] = {"sni_hostname": name} if url.scheme == "https" else {}
    return url.copy_with(host=str(address)), {"Host": url.netloc.decode("ascii")}, extensions


def _checked_url(url: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, TypeError, ValueError):
        raise ToolError(f"{url!r} is not a valid web address") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ToolError(f"{url!r} is not an http(s) web address")
    return parsed


def _charset(headers: httpx.Headers) -> str:
    match = re.search(r"charset=([\w.-]+)", headers.get("content-type", ""), re.IGNORECASE)
    if match:
        try:
            "".encode(match.group(1))
        except LookupError:
            return "utf-8"  # a charset Python does not know: read it as UTF-8
        return match.group(1)
    return "utf-8"


def _extract_html(content: bytes, url: str) -> tuple[str | None, str]:
    """Title and main text of an HTML document; trafilatura only parses, never fetches."""
    import trafilatura  # loaded at the first page read, not at start-up
    document = trafilatura.bare_extraction(
        content,
        url=url,
        with_metadata=True,
        include_comments=False,
        include_tables=True,
        favor_recall=True,
    )
    if document is None:
        return None, ""
    title = getattr(document, "title", None)
    text = getattr(document, "text", None) or ""
    return (str(title) if title else None), str(text)


def _describe_fetch(args: BaseModel) -> str:
    """The address as given, then what it really reaches when that is not what it reads as."""
    url = str(getattr(args, "url", "?"))
    lines = [f"Open the web page {url} (the address itself reaches that site)."]
    try:
        parsed = httpx.URL(url.strip())
        site = parsed.raw_host.decode("ascii")
    except (httpx.InvalidURL, TypeError, ValueError, UnicodeDecodeError):
        return lines[0]  # the fetch refuses it before connecting anywhere
    if site != parsed.host or any(label.startswith("xn--") for label in site.lower().split(".")):
        # "gооgle.com" with Cyrillic o's reads as google.com and is another site.
        lines.append(f"⚠ international domain: {parsed.host} is the site {site}")
    if parsed.userinfo:
        # "https://mybank.example@evil.example/" names a bank but goes to evil.example (and
        # would hand it the part before "@" as a login).
        before = parsed.userinfo.decode("ascii", "replace")
        lines.append(f"⚠ the part before “@” ({before}) is not the site: the site is {site}")
    return "\n".join(lines)


class WebSkill(SkillPlugin):
    id = "web"
    description = "search the web and read web pages"
    routing = Routing(
        summary=(
            "Search the internet for current information, events in the news, prices, sports results, facts; "
            "fetch and summarise a web page from a URL. Busca en internet, lee esta página."
        ),
        cues=(
            # What only the web knows today: reviews, prices, results, release dates, opening hours.
            r"\breviews?\b",
            r"\brese[ñn]as?\b",
            r"\bwho won\b",
            # A bus or a road on diversion: "is the 51 still on diversion round Chapeltown?".
            r"\bdiversions?\b|\bdesv[ií]os? (?:de|del|en|por)\b",
            r"\bdid (?:the )?[\w'-]+(?: [\w'-]+)? (?:win|lose)\b",
            # A team's signings: "did the Devils sign anyone in the trade period?".
            r"\bdid (?:the )?[\w'-]+(?: [\w'-]+)? (?:sign|trade|draft|recruit) (?:anyone|anybody|someone|a|any)\b",
            # A result asked in Spanish: "¿cómo quedó el Real España anoche?", "cómo salió el partido".
            r"\bc[oó]mo (?:qued[oó]|sali[oó]|le fue (?:a|al)|result[oó]) (?:el |al |la )?(?:real|atl[eé]tico|deportivo|"
            r"sporting|athletic|racing|independiente|nacional|partido|juego|cl[aá]sico|derbi|final|selecci[oó]n)\b",
            # When a public event is on: "when's Longshaw on this year, the dates?".
            r"\bwhen(?:'?s| is| are) (?!my\b|our\b|the dentist)[\w' -]{2,40} on (?:this|next) year\b",
            # What came of a strike, a blockade or a protest out there: "q paso con el paro de transportistas?".
            r"\b(?:qu[eé]|q) (?:pas[oó]|ha pasado|hay|se sabe) (?:con|de) (?:el|la|los|las) (?:paro|huelga|bloqueos?|"
            r"marchas?|protestas?|manifestaci[oó]n|manifestaciones|movilizaci[oó]n|cortes? de ruta)\b|"
            r"\bwhat(?:'?s| is| has)? (?:happen(?:ed|ing)|the (?:latest|news)) (?:with|on) the (?:strike|walkout|"
            r"blockade|protests?|march)\b",
            # Timetables: "cuándo sale el próximo barco a La Gomera?", "when's the next ferry to Arran?".
            r"\b(?:next|pr[oó]xim[oa]) (?:ferry|ferries|boat|train|coach|flight|barco|ferri|tren|autob[uú]s|guagua|"
            r"vuelo)\b",
            # "a qué hora sale el barco pa La Palma", "what time does the last train leave?".
            r"\b(?:a qu[eé] hora|cu[aá]ndo|when|what time) (?:sale|salen|leaves?|goes|departs?|does|do) "
            r"(?:the |el |la |los |alg[uú]n |any |a )?(?:(?:first|last|early|primer|[uú]ltimo) )?"
            r"(?:ferry|ferries|boat|barco|ferri|tren|train|bus|autob[uú]s|guagua|coach|vuelo|flight)s?\b",
            r"\b(?:a qu[eé] hora|cu[aá]ndo) juegan?\b",
            # Queues at a border or a crossing now: "cuánto tiempo de espera hay en la garita?", "wait times at Otay".
            r"\btiempos? de espera\b|\bwait(?:ing)? times?\b",
            # Whether a place is still shut, and the next public event: "are the Roman Baths still shut for the
            # refurb?", "cuándo es el próximo concierto en el estadio?".
            r"\b(?:is|are) (?:the )?[\w' ]{2,30}? still (?:shut|closed)\b|\breopen(?:ed|ing|s)?\b",
            r"(?<!\bmi )\bpr[oó]xim[oa] (?:concierto|partido|festival)\b",
            r"\bnext (?:concert|match|festival|game) (?:at|in)\b",
            r"\bwhen (?:do|does|is) (?:the )?\w+(?: \w+)? play(?:ing)?\b",
            r"\bkick[- ]?off\b",
            r"\bqui[eé]n (?:ha )?gan(?:[oó]|ado)\b",
            r"\blook(?:ed)? up\b",
            r"\blookup\b",
            r"\bprice of\b",
            r"\bprecio (?:de|del|actual)\b",
            r"\bcu[aá]nto (?:cuesta|cuestan|vale|valen)\b",
            # What a firm charges and what a thing fetched before: "cuánto cobra DHL…", "a cuánto estaba hace un año?".
            r"\bcu[aá]nto (?:cobra|cobran)\b|\bcu[aá]nto (?:se )?(?:anda|andan|est[aá]n?|ta|tan|va|van) pagando\b",
            # A record of a race or a league: "en cuánto quedó el récord del maratón de Chicago?".
            r"\b(?:el|the) (?:r[eé]cord|world record|record) (?:del?|of|for|at)\b",
            r"\ba cu[aá]nto (?:est[aá]|estaba|estuvo|sal[ií]a|se pagaba|va a estar|estar[aá]|va a salir|qued[oó])\b",
            # Roadworks and hold-ups on a road now: "any hold ups on the A47 by Acle?", "obras en la A-7".
            # Whether the boat sails: "christ. will the boat still go", "is the ferry running today?".
            r"\bwill the (?:boat|ferry|ferries|sailing|crossing)s? (?:still )?(?:go|run|sail)\b|"
            r"\b(?:is|are) the (?:boat|ferry|ferries|sailings?|crossings?) (?:still )?(?:going|running|sailing|on)\b",
            r"\broad ?works?\b|\bhold[- ]?ups? (?:on|at|by|near)\b|\bobras en (?:la|el) (?:[amn]-?\d|autov|carretera)",
            # Queues and waits now: "how long is the line at the border right now?".
            r"\bhow long is the (?:line|queue|wait)\b|\bwait(?:ing)? times?\b",
            r"\bcu[aá]nt[oa] (?:fila|cola|espera) hay\b",
            r"\bhow much (?:is|are|does|do) (?:a|an|the)\b",
            r"\brelease date\b",
            r"\bcomes? out\b",
            r"\bse estrena\b",
            r"\bopening (?:hours|times)\b",
            r"\bhorarios? de apertura\b",
            r"\b(?:latest|breaking) news\b",
            r"\b[uú]ltimas noticias\b",
            r"\bqu[eé] se sabe (?:de|del|sobre)\b",
            r"\bwhat(?:'s| is) the latest (?:on|about|with)\b",
            # Rules and paperwork change: what a country or an office asks for today is looked up.
            r"\b(?:what|which) (?:documents|papers|paperwork) (?:do|will|would) (?:i|we|you) need\b",
            r"\bqu[eé] (?:papeles|documentos|requisitos|tr[aá]mites) "
            r"(?:necesito|necesitamos|hacen falta|me piden|piden|hay que|pide)\b",
            r"\bdo (?:i|we|you) need an? (?:visa|permit|licen[cs]e|international driving permit|driving permit|"
            r"vaccine|vaccination)\b",
            r"\bnecesito (?:visado|visa|permiso|carnet internacional)\b",
            # What the authorities say now: guidance, rules and recalls change, and only the web has today's.
            r"\b(?:current|latest|updated|official) (?:[a-z]{2,5} )?"
            r"(?:guidance|guidelines|advice|rules|regulations|recommendations)\b",
            r"\b(?:normativa|recomendaciones|gu[ií]as?|reglas|normas) (?:actual(?:es)?|vigentes?|oficiales?)\b",
            r"\b(?:a|any|the) (?:product |food |safety )?recalls? (?:on|of|for)\b",
            r"\balertas? (?:sanitarias?|alimentarias?)\b",
            # Roads open or closed now, and what is on TV today.
            r"\b(?:cortad[oa]s?|cerrad[oa]s?)\b.{0,30}\b(?:puertos?|carreteras?|autopistas?|autov[ií]as?|t[uú]neles?|"
            r"calles?)\b"
            r"|\b(?:puertos?|carreteras?|autopistas?|autov[ií]as?|t[uú]neles?|calles?)\b.{0,30}\b(?:cortad[oa]s?|"
            r"cerrad[oa]s?)\b",
            r"\bcortes? de (?:tr[aá]fico|calles?|carreteras?)\b|\b(?:road|street) closures?\b",
            # (A road by its number too: "is the A66 still closed?", "la A-6 está cortada?".)
            r"\b(?:roads?|streets?|motorways?|highways?|mountain\s+pass|bridges?|tunnels?|[amn]-?\d{1,4}|ap-\d{1,3})\b.{0,30}"
            r"\b(?:closed|blocked|shut|cortad[oa]|cerrad[oa])\b"
            r"|\b(?:closed|blocked|shut)\b.{0,30}\b(?:roads?|streets?|motorways?|highways?|mountain\s+pass|bridges?|tunnels?)\b",
            r"\b(?:a qu[eé] hora|cu[aá]ndo)\s+(?:dan|echan|ponen|emiten)\b",
            # A flight or a train running now: "is BA 2490 on time?", "el tren de las 8 va con retraso?".
            r"\b(?:flights?|trains?|sailings?|ferry|ferries|crossings?|vuelos?|trenes|tren|barcos?|ferris?|"
            r"[a-z0-9]{2}\s?\d{3,4})\b[^.?!]{0,40}"
            r"\b(?:on time|delayed|running late|cancell?ed|a su hora|con retraso|retrasad[oa]s?|cancelad[oa]s?)\b",
            # What a thing sells for now, and the official figures of the month: "a cuánto se paga el kilo de almendra",
            # "the going rate for…", "el IPC de este año", "the euribor today".
            r"\ba cu[aá]nto se (?:est[aá] )?pag(?:a|an|ando)\b|\b(?:going rate|market price|precio de mercado)\b",
            r"\ba c[oó]mo (?:anda|andan|est[aá]|est[aá]n|va|van|sale|salen|se paga|se vende) (?:el|la|los|las) "
            r"(?:kilo|litro|"
            r"quintal|libra|arroba|saco|caja|tonelada|d[oó]lar|euro|gasolina|di[eé]sel|luz|gas)\b",
            # A shop's price today: "how much is 15mm copper pipe at screwfix atm".
            r"\bhow much (?:is|are|does|do)\b[^.?!]{1,50}\b"
            r"(?:atm|right now|at the moment|currently|nowadays|these days)\b",
            r"\b(?:ipc|cpi|eur[ií]bor|inflation rate|tasa de inflaci[oó]n)\b",
            # What a crop or a lot fetches now: "what's leatherwood honey fetching wholesale per kilo".
            r"\b(?:fetching|going for|selling for|trading at)\b[^.?!]{0,40}\b(?:wholesale|per (?:kilo|kg|lb|pound|"
            r"tonne|ton|litre|liter|head|box|tray|bale)|at the moment|atm|right now|these days|currently|nowadays)\b",
            # A maker's figures for a model: "torque spec for the wheel nuts on a 79 series", "el par de apriete de…".
            r"\b(?:torque|tyre|tire) (?:spec|specs|settings?|pressures?) (?:for|on|of)\b|\bfiring order\b|"
            # Official guidance: "find the Historic England guidance on repointing", "la normativa sobre…".
            r"\b(?:guidance|guidelines|regulations|official advice|normativa|reglamento)\s+"
            r"(?:on|for|about|sobre|de|para)\b|"
            # A product's specs or manual: "specs on the new 40v auger", "pull up the manual for the FLX-20".
            r"\bspecs? (?:on|for|of)\b|\bspecifications\b|\bficha t[eé]cnica\b|\bespecificaciones\b|"
            r"\b(?:manual|user guide|owner'?s manual|datasheet|spec sheet) (?:for|of|on)\b|"
            r"\bmanual (?:de|del) (?:la|el)\b|"
            r"\bpar de apriete\b|\bficha t[eé]cnica\b",
            # The tides are published tables, not the weather: "high tide at Whitby", "a qué hora es la pleamar".
            r"\btides?\b|\bmareas?\b|\bpleamar\b|\bbajamar\b",
            # How accessible a place is for a wheelchair is the place's own information.
            r"\b(?:wheelchair[- ]accessible|step[- ]free|accesible (?:en|para|con) silla)\b",
            r"\ben la tele\b|\bon (?:tv|telly|the telly)\b",
            r"\bb[uú]sca(?:me)? (?:info|informaci[oó]n)\b",
            r"\binternet\b",
            r"\bonline\b",
            r"\bthe web\b",
            r"\bgoogle",
            r"\bhttps?://",
            r"\bwebsite\b",
            r"\bweb\b",
            r"\bdocs\b",
            r"\bdocumentation\b",
            r"\bdocumentaci[oó]n\b",
        ),
        examples=(
            "search the internet for the best running shoes of this year",
            "who won the Champions League final?",
            "what is the price of gold today?",
            "summarise this article https://example.com/post",
            "look up the opening hours of the Louvre online",
            "what's the latest news on the train strike?",
            "google how to descale a coffee machine",
            "what's the exchange rate euro to dollar right now?",
            "read this page and tell me what it says: https://news.site/story",
            "busca en internet cómo quitar manchas de vino",
            "quién ganó el partido del Betis ayer?",
            "a cuánto está el euro frente a la libra?",
            "qué se sabe del incendio de esta mañana?",
            "búscame información sobre el Seat Ibiza 2024",
            "resúmeme esta web https://ejemplo.es/articulo",
            "mira en internet cuándo abre el Retiro",
            "cuál es la última versión de Android?",
            "qué precio tiene el iPhone 16 en la web de Apple?",
            "look up the opening hours of the town hall",
            "check the docs for how to configure nginx as a reverse proxy",
            "find the latest version of Python and what changed",
            "busca reseñas del restaurante Casa Lola",
            "mira en internet si hay huelga de metro mañana",
            "what's the exchange rate of the euro today?",
            "google the release date of the new Zelda",
            "qué dice la documentación de Django sobre las migraciones?",
        ),
    )
    settings_section = "web"
    needs = frozenset({Need.HTTP})

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """Reading pages needs nothing; searching needs WEB_SEARXNG_URL or a Brave key."""
        ctx.add_tools(cls(ctx.http, ctx.settings.web))

    def __init__(self, http: httpx.AsyncClient, settings: WebSettings) -> None:
        self.settings = settings
        self.searchers: list[SearxngSearch | BraveSearch] = []
        if settings.searxng_url:
            self.searchers.append(SearxngSearch(http, settings))
        if settings.brave_api_key is not None and settings.brave_api_key.get_secret_value():
            self.searchers.append(BraveSearch(http, settings))
        self.fetcher = PageFetcher(http, settings)

    def tools(self) -> list[BoundTool]:
        """Without a search provider configured, web_search is absent rather than broken."""
        return [bound for bound in super().tools() if bound.name != "web_search" or self.searchers]

    @tool(untrusted_output=True)
    async def web_search(
        self,
        query: Annotated[str, Field(min_length=1, max_length=400, description="what to search for")],
        limit: Annotated[int, Field(ge=1, le=30, description="at most this many results")] = 5,
    ) -> str:
        """Search the web; returns titles, addresses and snippets of the best results."""
        count = min(limit, self.settings.search_max_results)
        failures: list[str] = []
        for searcher in self.searchers:
            try:
                results, answers = await searcher.search(query, count)
            except ToolError as exc:
                # One provider down: try the next one before giving up.
                failures.append(str(exc))
                continue
            if not results and not answers:
                return f"The web search found nothing for {query!r}."
            lines = [f"Web results for {query!r}:"]
            lines.extend(f"Quick answer: {answer}" for answer in answers[:2])
            for number, result in enumerate(results, 1):
                lines.append(f"{number}. {result.title} — {result.url}")
                if result.snippet:
                    lines.append(f"   {result.snippet[:300]}")
            return "\n".join(lines)
        raise ToolError("; ".join(failures) or "no web search provider is configured")

    @tool(untrusted_output=True, sends_data_out=True, describe=_describe_fetch)
    async def web_fetch(
        self,
        url: Annotated[str, Field(min_length=4, max_length=2000, description="the http(s) address of the page")],
    ) -> str:
        """Read a web page and return its main text (title, address, readable text)."""
        page = await self.fetcher.fetch(url)
        notes = []
        if page.truncated_bytes:
            notes.append(f"the page is larger than {self.settings.fetch_max_bytes} bytes; only its start was read")
        if page.truncated_chars:
            notes.append(f"text cut at {self.settings.fetch_max_chars} characters")
        header = [f"Page: {page.title or '(no title)'}", f"URL: {page.url}"]
        if notes:
            header.append(f"Note: {'; '.join(notes)}")
        return "\n".join(header) + "\n\n" + page.text
