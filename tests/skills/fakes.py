"""One local aiohttp server playing Open-Meteo, Nominatim, Overpass, SearXNG, Brave and
a few web pages, answering in the real APIs' formats and recording every request.

`modes[service]` switches a service into a failure: "error" (its real error format),
"hang" (never answers until the server stops), "empty", "forbidden", "rate_limited",
"remark" (Overpass runtime error), "sea" (Nominatim reverse with nothing there).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from aiohttp import web

# The user stands at Puerta del Sol, Madrid.
SOL = (40.41690, -3.70358)
SEVILLA = (37.38863, -5.99534)

ATTRIBUTION = "Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright"


@dataclass(frozen=True)
class Recorded:
    service: str
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: dict[str, str]


def _metres(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    a = (
        math.sin(math.radians(lat2 - lat1) / 2) ** 2
        + math.cos(phi1) * math.cos(phi2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    )
    return 2 * 6_371_000 * math.asin(math.sqrt(a))


# Real-looking OSM elements around Sol (ids invented, tags as mappers write them).
CAFES: list[dict[str, Any]] = [
    {"type": "node", "id": 4101, "lat": 40.41735, "lon": -3.70290,
     "tags": {"amenity": "cafe", "name": "Café del Sol", "opening_hours": "Mo-Su 08:00-22:00",
              "addr:street": "Calle de Alcalá", "addr:housenumber": "2"}},
    {"type": "way", "id": 5202, "center": {"lat": 40.41665, "lon": -3.70460},
     "nodes": [1, 2, 3, 4, 1],
     "tags": {"amenity": "cafe", "name": "La Mallorquina", "cuisine": "coffee_shop;cake"}},
    {"type": "node", "id": 4103, "lat": 40.41700, "lon": -3.70370, "tags": {"amenity": "cafe"}},
    {"type": "node", "id": 4104, "lat": 40.41672, "lon": -3.70690,
     "tags": {"amenity": "cafe", "name": "Chocolatería San Ginés", "opening_hours": "24/7"}},
    {"type": "node", "id": 4105, "lat": 40.42530, "lon": -3.69110,
     "tags": {"amenity": "cafe", "name": "Café Gijón"}},
]
PHARMACIES: list[dict[str, Any]] = [
    {"type": "node", "id": 4201, "lat": 40.41610, "lon": -3.70210,
     "tags": {"amenity": "pharmacy", "name": "Farmacia Puerta del Sol", "dispensing": "yes"}},
]

ARTICLE = """<!DOCTYPE html>
<html lang="es"><head><meta charset="utf-8"><title>Cómo hacer tortilla de patatas</title>
<script>var tracking = "SCRIPT-NOISE";</script></head>
<body>
<nav><a href="/">Inicio</a> <a href="/recetas">Recetas</a> MENU-NOISE</nav>
<article>
<h1>Cómo hacer tortilla de patatas</h1>
<p>La tortilla de patatas es el plato más famoso de la cocina española. Necesitas cinco
huevos, tres patatas medianas, media cebolla, aceite de oliva virgen extra y sal.</p>
<p>Pela las patatas y córtalas en láminas finas. Fríelas a fuego medio con la cebolla
durante veinte minutos, hasta que estén tiernas pero sin dorarse demasiado.</p>
<p>Bate los huevos, mezcla con las patatas escurridas y cuaja la tortilla por ambos lados
en una sartén pequeña. Dale la vuelta con un plato. Sírvela templada.</p>
</article>
<footer>© 2026 Recetas FOOTER-NOISE</footer>
</body></html>"""


@dataclass
class FakeServices:
    modes: dict[str, str] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    base_url: str = ""
    _runner: web.AppRunner | None = None
    _release: asyncio.Event = field(default_factory=asyncio.Event)

    def of(self, service: str) -> list[Recorded]:
        return [r for r in self.requests if r.service == service]

    @property
    def open_meteo_url(self) -> str:
        return f"{self.base_url}/v1/forecast"

    @property
    def nominatim_url(self) -> str:
        return self.base_url

    @property
    def overpass_url(self) -> str:
        return f"{self.base_url}/api/interpreter"

    @property
    def searxng_url(self) -> str:
        return f"{self.base_url}/searxng"

    @property
    def brave_url(self) -> str:
        return f"{self.base_url}/brave/res/v1/web/search"

    def page(self, name: str) -> str:
        return f"{self.base_url}/pages/{name}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/v1/forecast", self._open_meteo)
        app.router.add_get("/search", self._nominatim_search)
        app.router.add_get("/reverse", self._nominatim_reverse)
        app.router.add_post("/api/interpreter", self._overpass)
        app.router.add_get("/searxng/search", self._searxng)
        app.router.add_get("/brave/res/v1/web/search", self._brave)
        app.router.add_get("/pages/{name}", self._pages)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.base_url = f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        self._release.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _record(self, service: str, request: web.Request) -> str | None:
        form = {k: str(v) for k, v in (await request.post()).items()} if request.method == "POST" else {}
        self.requests.append(Recorded(
            service, request.method, request.path, dict(request.query), form, dict(request.headers)
        ))
        mode = self.modes.get(service)
        if mode == "hang":
            await self._release.wait()
        return mode

    # -- Open-Meteo -------------------------------------------------------------------------
    async def _open_meteo(self, request: web.Request) -> web.Response:
        mode = await self._record("open_meteo", request)
        q = request.query
        if mode == "error":
            return web.json_response(
                {"error": True, "reason": "Latitude must be in range of -90 to 90°. Given: 91.0."},
                status=400,
            )
        days = int(q.get("forecast_days", "7"))
        lat, lon = float(q["latitude"]), float(q["longitude"])
        start = date(2026, 3, 2)
        day_list = [(start + timedelta(days=i)).isoformat() for i in range(days)]
        pattern = [(3, 14.2, 6.1, 0.0, 5), (61, 11.0, 7.4, 4.2, 80), (0, 16.8, 5.0, 0.0, 0)]
        rows = [pattern[i % 3] for i in range(days)]
        return web.json_response({
            "latitude": round(lat, 2), "longitude": round(lon, 2), "generationtime_ms": 0.07,
            "utc_offset_seconds": 3600, "timezone": "Europe/Madrid", "timezone_abbreviation": "GMT+1",
            "elevation": 657.0,
            "current_units": {"time": "iso8601", "interval": "seconds", "temperature_2m": "°C",
                              "apparent_temperature": "°C", "relative_humidity_2m": "%",
                              "precipitation": "mm", "weather_code": "wmo code",
                              "wind_speed_10m": "km/h"},
            "current": {"time": "2026-03-02T09:00", "interval": 900, "temperature_2m": 8.1,
                        "apparent_temperature": 5.9, "relative_humidity_2m": 71,
                        "precipitation": 0.0, "weather_code": 3, "wind_speed_10m": 11.2},
            "daily_units": {"time": "iso8601", "weather_code": "wmo code",
                            "temperature_2m_max": "°C", "temperature_2m_min": "°C",
                            "precipitation_sum": "mm", "precipitation_probability_max": "%",
                            "wind_speed_10m_max": "km/h"},
            "hourly_units": {"time": "iso8601", "temperature_2m": "°C",
                             "precipitation_probability": "%", "weather_code": "wmo code"},
            "hourly": {
                "time": [f"{d}T{h:02}:00" for d in day_list for h in range(24)],
                "temperature_2m": [round(5 + h * 0.5, 1) for _ in day_list for h in range(24)],
                "precipitation_probability": [
                    (70 if 15 <= h <= 18 else 0) for _ in day_list for h in range(24)
                ],
                "weather_code": [(61 if 15 <= h <= 18 else 2) for _ in day_list for h in range(24)],
            },
            "daily": {
                "time": day_list,
                "weather_code": [r[0] for r in rows],
                "temperature_2m_max": [r[1] for r in rows],
                "temperature_2m_min": [r[2] for r in rows],
                "precipitation_sum": [r[3] for r in rows],
                "precipitation_probability_max": [r[4] for r in rows],
                "wind_speed_10m_max": [18.4 for _ in rows],
            },
        })

    # -- Nominatim ---------------------------------------------------------------------------
    async def _nominatim_search(self, request: web.Request) -> web.Response:
        mode = await self._record("nominatim", request)
        if mode == "error":
            return web.Response(status=503, text="<html><body>Service Unavailable</body></html>",
                                content_type="text/html")
        query = request.query.get("q", "").lower()
        results = []
        if "sevilla" in query or "seville" in query:
            results.append({
                "place_id": 227063, "licence": ATTRIBUTION, "osm_type": "relation", "osm_id": 342563,
                "lat": str(SEVILLA[0]), "lon": str(SEVILLA[1]), "category": "boundary",
                "type": "administrative", "place_rank": 16, "importance": 0.72, "addresstype": "city",
                "name": "Sevilla", "display_name": "Sevilla, Andalucía, España",
                "boundingbox": ["37.3002036", "37.4529579", "-6.0329182", "-5.8191506"],
            })
        if "sol" in query:
            results.append({
                "place_id": 12345, "licence": ATTRIBUTION, "osm_type": "way", "osm_id": 4345678,
                "lat": str(SOL[0]), "lon": str(SOL[1]), "category": "place", "type": "square",
                "place_rank": 25, "importance": 0.5, "addresstype": "square",
                "name": "Puerta del Sol", "display_name": "Puerta del Sol, Sol, Centro, Madrid, España",
                "boundingbox": ["40.4165", "40.4173", "-3.7042", "-3.7029"],
            })
        limit = int(request.query.get("limit", "10"))
        return web.json_response(results[:limit])

    async def _nominatim_reverse(self, request: web.Request) -> web.Response:
        mode = await self._record("nominatim", request)
        if mode == "sea":
            return web.json_response({"error": "Unable to geocode"})
        return web.json_response({
            "place_id": 98765, "licence": ATTRIBUTION, "osm_type": "node", "osm_id": 2417812,
            "lat": request.query["lat"], "lon": request.query["lon"], "category": "place",
            "type": "house", "place_rank": 30, "importance": 0.0001, "addresstype": "building",
            "name": "", "display_name": "1, Puerta del Sol, Sol, Centro, Madrid, 28013, España",
            "address": {"house_number": "1", "road": "Puerta del Sol", "city": "Madrid",
                        "postcode": "28013", "country": "España", "country_code": "es"},
            "boundingbox": ["40.4168", "40.4170", "-3.7036", "-3.7035"],
        })

    # -- Overpass ----------------------------------------------------------------------------
    async def _overpass(self, request: web.Request) -> web.Response:
        mode = await self._record("overpass", request)
        header = {"version": 0.6, "generator": "Overpass API 0.7.62.1 084b4234",
                  "osm3s": {"timestamp_osm_base": "2026-03-02T07:59:12Z",
                            "copyright": "The data included in this document is from www.openstreetmap.org."}}
        if mode == "rate_limited":
            return web.Response(status=429, text="<p>Too Many Requests</p>", content_type="text/html")
        if mode == "error":
            return web.Response(status=504, content_type="text/html",
                                text="<html><body><p>The server is probably too busy</p></body></html>")
        if mode == "remark":
            return web.json_response({**header, "elements": [],
                                      "remark": "runtime error: Query timed out in \"query\" at line 2"})
        query = self.requests[-1].form.get("data", "")
        around = re.search(r"\(around:(\d+),(-?[\d.]+),(-?[\d.]+)\)", query)
        if around is None:
            return web.Response(status=400, text="<p>Error: line 1: parse error</p>", content_type="text/html")
        radius, lat, lon = float(around.group(1)), float(around.group(2)), float(around.group(3))
        pool = []
        if '"amenity"="cafe"' in query:
            pool = CAFES
        elif '"amenity"="pharmacy"' in query:
            pool = PHARMACIES
        if mode == "empty":
            pool = []
        elements = []
        for element in pool:
            point = element.get("center") or element
            if _metres(lat, lon, point["lat"], point["lon"]) <= radius:
                elements.append(element)
        return web.json_response({**header, "elements": elements})

    # -- search ------------------------------------------------------------------------------
    async def _searxng(self, request: web.Request) -> web.Response:
        mode = await self._record("searxng", request)
        if mode == "forbidden" or request.query.get("format") != "json":
            return web.Response(status=403, text="<html><body>403 Forbidden</body></html>",
                                content_type="text/html")
        if mode == "error":
            return web.Response(status=502, text="Bad Gateway")
        query = request.query.get("q", "")
        results = [] if mode == "empty" else [
            {"url": "https://www.recetas.example/tortilla", "title": "Cómo hacer <b>tortilla</b> de patatas",
             "content": "La receta clásica: huevos, patatas, cebolla &amp; aceite.",
             "engine": "duckduckgo", "engines": ["duckduckgo", "brave"], "positions": [1, 2],
             "score": 4.0, "category": "general", "publishedDate": None, "thumbnail": ""},
            {"url": "https://es.wikipedia.example/wiki/Tortilla_de_patatas", "title": "Tortilla de patatas",
             "content": "La tortilla de patatas es una tortilla de huevo batido con patatas.",
             "engine": "wikipedia", "engines": ["wikipedia"], "positions": [1], "score": 2.5,
             "category": "general", "publishedDate": None},
            {"url": "https://www.recetas.example/tortilla", "title": "duplicate", "content": "",
             "engine": "google", "engines": ["google"], "positions": [3], "score": 0.3,
             "category": "general"},
        ]
        return web.json_response({
            "query": query, "number_of_results": len(results), "results": results,
            "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["tortilla española"],
            "unresponsive_engines": [["qwant", "timeout"]],
        })

    async def _brave(self, request: web.Request) -> web.Response:
        mode = await self._record("brave", request)
        if request.headers.get("X-Subscription-Token") != "brave-test-key":
            return web.json_response(
                {"type": "ErrorResponse", "error": {"id": "x", "status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID",
                                                    "detail": "The provided subscription token is invalid."}},
                status=422,
            )
        if mode == "error":
            return web.Response(status=500, text="oops")
        return web.json_response({
            "type": "search",
            "query": {"original": request.query.get("q", ""), "more_results_available": True},
            "web": {"type": "search", "results": [
                {"title": "Tortilla de patatas - <strong>Receta</strong>", "url": "https://brave.example/tortilla",
                 "description": "La <strong>tortilla</strong> perfecta en 30 minutos.", "language": "es",
                 "family_friendly": True},
            ], "family_friendly": True},
        })

    # -- pages -------------------------------------------------------------------------------
    async def _pages(self, request: web.Request) -> web.StreamResponse:
        mode = await self._record("pages", request)
        name = request.match_info["name"]
        if mode == "hang":
            return web.Response(text="late")
        if name == "article":
            return web.Response(text=ARTICLE, content_type="text/html", charset="utf-8")
        if name == "notes.txt":
            return web.Response(text="Plain notes: buy milk.\n", content_type="text/plain")
        if name == "huge":
            response = web.StreamResponse(headers={"Content-Type": "text/plain; charset=utf-8"})
            await response.prepare(request)
            line = ("HUGE-LINE " * 10 + "\n").encode()
            # The client is expected to hang up at its size limit.
            with contextlib.suppress(ConnectionResetError, RuntimeError):
                for _ in range(20_000):  # about 2 MB unless the client stops reading first
                    await response.write(line * 10)
            return response
        if name == "moved":
            raise web.HTTPFound(location="/pages/article")
        if name == "loop":
            raise web.HTTPFound(location="/pages/loop")
        if name == "to-private":
            raise web.HTTPFound(location="http://10.0.0.1/admin")
        if name == "report.pdf":
            return web.Response(body=b"%PDF-1.7 fake", content_type="application/pdf")
        if name == "empty":
            return web.Response(text="<html><body><script>app()</script></body></html>", content_type="text/html")
        return web.Response(status=404, text="<h1>Not found</h1>", content_type="text/html")
