"""Weather, geocoding and places against local fakes of Open-Meteo, Nominatim and Overpass."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

import httpx
import pytest

from bot.clock import ManualClock
from bot.config import EnvironmentSettings
from bot.errors import ToolError
from tests.skills.conftest import run_tool, share_location, tool_of
from tests.skills.fakes import SEVILLA, SOL, FakeServices
from tools.context import ToolContext
from tools.policy import Policy
from tools.registry import Decision
from tools.skills.environment import (
    EnvironmentSkill,
    Forecast,
    MinIntervalLimiter,
    NominatimClient,
    OpenMeteoClient,
    PlaceCategory,
    distance_m,
)

COORDINATE_WORDS = re.compile(r"^(lat|lon|lng|latitude|longitude|coords?|coordinates|position)$", re.I)


@pytest.fixture
def skill(http: httpx.AsyncClient, env_settings: EnvironmentSettings, clock: ManualClock) -> EnvironmentSkill:
    return EnvironmentSkill(http, env_settings, clock)


def property_names(schema: Any) -> set[str]:
    """Every property name anywhere in a JSON schema (nested objects and $defs included)."""
    names: set[str] = set()
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                names.update(value)
            names |= property_names(value)
    elif isinstance(schema, list):
        for item in schema:
            names |= property_names(item)
    return names


# -- schemas -----------------------------------------------------------------------------------


def test_no_tool_lets_the_model_type_coordinates(skill: EnvironmentSkill) -> None:
    tools = skill.tools()
    assert {t.name for t in tools} == {"weather", "places_nearby", "current_address", "geocode"}
    for bound in tools:
        names = property_names(bound.spec.parameters)
        assert not [n for n in names if COORDINATE_WORDS.match(n)], (bound.name, names)
        assert "ctx" not in names


def test_reads_are_silent(skill: EnvironmentSkill) -> None:
    policy = Policy()
    for bound in skill.tools():
        args = bound.parse({"category": "cafe"} if bound.name == "places_nearby" else
                           {"query": "Sol"} if bound.name == "geocode" else {})
        assert policy.decide(bound, args) is Decision.ALLOW


# -- weather ---------------------------------------------------------------------------------------


async def test_weather_uses_the_shared_location(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock)
    text = await run_tool(skill, "weather", ctx, days=2)
    sent = services.of("open_meteo")[0].query
    assert (float(sent["latitude"]), float(sent["longitude"])) == pytest.approx(SOL, abs=1e-5)
    assert sent["forecast_days"] == "2" and sent["timezone"] == "auto"
    assert "the user's location" in text
    assert "Now (09:00): overcast, 8.1 °C, feels like 5.9 °C" in text
    assert "Mon 2026-03-02: overcast, 6.1 to 14 °C, rain chance 5%" in text
    assert "Tue 2026-03-03: slight rain, 7.4 to 11 °C, rain chance 80%, 4.2 mm" in text
    assert "Wed" not in text
    assert ("Next hours: 09:00 9.5 °C partly cloudy; 12:00 11 °C partly cloudy; "
            "15:00 12 °C slight rain (70% rain);") in text


async def test_weather_for_a_named_place_geocodes_it(
    skill: EnvironmentSkill, ctx: ToolContext, services: FakeServices
) -> None:
    text = await run_tool(skill, "weather", ctx, place="Sevilla")
    lookup = services.of("nominatim")[0]
    assert lookup.query["q"] == "Sevilla"
    assert lookup.headers["User-Agent"] == "Mayordomo-tests/1.0 (owner@example.org)"
    sent = services.of("open_meteo")[0].query
    assert (float(sent["latitude"]), float(sent["longitude"])) == pytest.approx(SEVILLA, abs=1e-5)
    assert "Sevilla, Andalucía, España" in text


async def test_weather_for_an_unknown_place_says_so(skill: EnvironmentSkill, ctx: ToolContext,
                                                   services: FakeServices) -> None:
    with pytest.raises(ToolError, match="no place called 'Atlantis'"):
        await run_tool(skill, "weather", ctx, place="Atlantis")
    assert services.of("open_meteo") == []


async def test_weather_without_location_asks_for_one(
    skill: EnvironmentSkill, ctx: ToolContext, services: FakeServices
) -> None:
    with pytest.raises(ToolError, match="share their location"):
        await run_tool(skill, "weather", ctx)
    assert services.requests == []


async def test_stale_location_is_not_used(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock, minutes_ago=180)
    for name, args in (("weather", {}), ("places_nearby", {"category": "cafe"}), ("current_address", {})):
        with pytest.raises(ToolError, match="3 h old, too old to use"):
            await run_tool(skill, name, ctx, **args)
    assert services.requests == []


async def test_weather_service_error_is_a_clear_tool_error(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock)
    services.modes["open_meteo"] = "error"
    with pytest.raises(ToolError, match=r"Open-Meteo\) answered HTTP 400: Latitude must be in range"):
        await run_tool(skill, "weather", ctx)


async def test_weather_timeout_is_a_clear_tool_error(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock)
    services.modes["open_meteo"] = "hang"
    with pytest.raises(ToolError, match=r"did not answer within 0\.5 s"):
        await run_tool(skill, "weather", ctx)


async def test_unreachable_weather_service(http: httpx.AsyncClient) -> None:
    client = OpenMeteoClient(http, "http://127.0.0.1:9/v1/forecast", timeout=0.5)
    with pytest.raises(ToolError, match="could not reach the weather service"):
        await client.forecast(*SOL)


async def test_forecast_client_returns_frozen_data(http: httpx.AsyncClient, services: FakeServices) -> None:
    client = OpenMeteoClient(http, services.open_meteo_url)
    forecast = await client.forecast(SEVILLA[0], SEVILLA[1], days=3)
    assert isinstance(forecast, Forecast)
    assert forecast.timezone == "Europe/Madrid"
    assert forecast.current is not None and forecast.current.temperature_c == 8.1
    assert [d.weather_code for d in forecast.days] == [3, 61, 0]
    assert forecast.days[1].conditions == "slight rain"
    assert forecast.days[1].precipitation_probability_percent == 80
    with pytest.raises(dataclasses.FrozenInstanceError):
        forecast.days[0].weather_code = 1  # type: ignore[misc]


async def test_one_day_forecast_still_covers_the_next_24_hours(
    http: httpx.AsyncClient, services: FakeServices
) -> None:
    forecast = await OpenMeteoClient(http, services.open_meteo_url).forecast(*SOL, days=1)
    assert services.of("open_meteo")[0].query["forecast_days"] == "2"
    assert [d.day.isoformat() for d in forecast.days] == ["2026-03-02"]
    assert len(forecast.hours) == 24
    assert forecast.hours[0].time.hour == 9 and forecast.hours[-1].time.hour == 8  # from now on
    assert forecast.hours[6].conditions == "slight rain"
    assert forecast.hours[6].precipitation_probability_percent == 70


# -- places -----------------------------------------------------------------------------------------


async def test_cafes_near_me_sorted_with_map_links(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock)
    text = await run_tool(skill, "places_nearby", ctx, category="cafe", radius_m=500)
    query = services.of("overpass")[0].form["data"]
    assert '"amenity"="cafe"' in query
    assert f"(around:500,{SOL[0]:.6f},{SOL[1]:.6f})" in query
    lines = text.splitlines()
    assert lines[0].startswith("3 × cafe within 500 m of the user's location")
    assert lines[1].startswith("1. Café del Sol — 80 m — Calle de Alcalá 2 — hours: Mo-Su 08:00-22:00")
    assert lines[1].endswith("https://www.openstreetmap.org/node/4101")
    assert lines[2].startswith("2. La Mallorquina — 90 m")
    assert "cuisine: coffee_shop;cake" in lines[2] and lines[2].endswith("/way/5202")
    assert lines[3].startswith("3. Chocolatería San Ginés — 280 m")
    assert lines[4] == "(Map data © OpenStreetMap contributors)" and len(lines) == 5
    # The unnamed café is dropped when named ones exist; Café Gijón is beyond 500 m.
    assert "unnamed" not in text and "Gijón" not in text


async def test_places_near_a_named_place(
    skill: EnvironmentSkill, ctx: ToolContext, services: FakeServices
) -> None:
    text = await run_tool(skill, "places_nearby", ctx, category="pharmacy", near="Puerta del Sol")
    assert services.of("nominatim")[0].query["q"] == "Puerta del Sol"
    assert f"{SOL[0]:.6f},{SOL[1]:.6f}" in services.of("overpass")[0].form["data"]
    assert "Farmacia Puerta del Sol" in text and "Puerta del Sol, Sol, Centro, Madrid" in text


async def test_no_places_found_suggests_a_larger_radius(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock)
    services.modes["overpass"] = "empty"
    text = await run_tool(skill, "places_nearby", ctx, category="cafe")
    assert text.startswith("No cafe found within 1000 m of the user's location")
    assert "larger radius (up to 5000 m)" in text


async def test_radius_is_capped_by_settings(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock)
    text = await run_tool(skill, "places_nearby", ctx, category="cafe", radius_m=40_000)
    assert "(around:5000," in services.of("overpass")[0].form["data"]
    assert "Café Gijón" in text  # 1.9 km away


@pytest.mark.parametrize(("mode", "message"), [
    ("rate_limited", "rate limiting us"),
    ("error", r"answered HTTP 504: The server is probably too busy"),
    ("remark", "failed: runtime error: Query timed out"),
    ("hang", "did not answer within 1.5 s"),
])
async def test_overpass_failures_are_clear(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices,
    mode: str, message: str,
) -> None:
    await share_location(ctx, clock)
    services.modes["overpass"] = mode
    with pytest.raises(ToolError, match=message):
        await run_tool(skill, "places_nearby", ctx, category="cafe")


async def test_unknown_category_is_an_argument_error(skill: EnvironmentSkill) -> None:
    bound = tool_of(skill, "places_nearby")
    with pytest.raises(ToolError, match="category"):
        bound.parse({"category": "spaceport"})
    assert "cafe" in bound.spec.parameters["$defs"]["PlaceCategory"]["enum"]


def test_distance() -> None:
    # Sol to Sevilla is about 390 km as the crow flies.
    assert distance_m(*SOL, *SEVILLA) == pytest.approx(391_000, rel=0.01)
    assert distance_m(*SOL, *SOL) == 0
    assert PlaceCategory.CAFE.value == "cafe"


# -- geocoding -----------------------------------------------------------------------------------------


async def test_current_address(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock)
    text = await run_tool(skill, "current_address", ctx)
    sent = services.of("nominatim")[0]
    assert sent.path == "/reverse"
    assert (float(sent.query["lat"]), float(sent.query["lon"])) == pytest.approx(SOL, abs=1e-6)
    assert "1, Puerta del Sol, Sol, Centro, Madrid, 28013" in text
    assert "openstreetmap.org/node/2417812" in text


async def test_current_address_at_sea(
    skill: EnvironmentSkill, ctx: ToolContext, clock: ManualClock, services: FakeServices
) -> None:
    await share_location(ctx, clock, at=(36.0, -12.0))
    services.modes["nominatim"] = "sea"
    assert "No address is known" in await run_tool(skill, "current_address", ctx)


async def test_geocode(skill: EnvironmentSkill, ctx: ToolContext, services: FakeServices) -> None:
    text = await run_tool(skill, "geocode", ctx, query="Sevilla")
    assert "Sevilla, Andalucía, España (city): 37.38863, -5.99534" in text
    assert "openstreetmap.org/relation/342563" in text
    assert "No place matches 'Narnia'." == await run_tool(skill, "geocode", ctx, query="Narnia")
    services.modes["nominatim"] = "error"
    with pytest.raises(ToolError, match=r"Nominatim\) answered HTTP 503: Service Unavailable"):
        await run_tool(skill, "geocode", ctx, query="Toledo")


async def test_nominatim_results_are_cached(
    skill: EnvironmentSkill, ctx: ToolContext, services: FakeServices
) -> None:
    first = await run_tool(skill, "geocode", ctx, query="Sevilla")
    second = await run_tool(skill, "geocode", ctx, query="  Sevilla ")
    assert first == second
    assert len(services.of("nominatim")) == 1


async def test_nominatim_waits_one_second_between_requests(
    http: httpx.AsyncClient, env_settings: EnvironmentSettings, clock: ManualClock, services: FakeServices
) -> None:
    client = NominatimClient(http, env_settings.model_copy(update={"nominatim_interval_seconds": 1.0}), clock)
    await client.search("Sevilla")
    second = asyncio.create_task(client.search("Puerta del Sol"))
    for _ in range(200):
        if clock.sleepers:
            break
        await asyncio.sleep(0.01)
    assert clock.sleepers == 1
    assert len(services.of("nominatim")) == 1  # held back by the limiter
    await clock.advance(0.5)
    assert not second.done() and len(services.of("nominatim")) == 1
    await clock.advance(0.5)
    found = await second
    assert found[0].name == "Puerta del Sol"
    assert [r.query["q"] for r in services.of("nominatim")] == ["Sevilla", "Puerta del Sol"]


async def test_limiter_lets_the_first_call_through(clock: ManualClock) -> None:
    limiter = MinIntervalLimiter(clock, 1.0)
    entered: list[float] = []
    async with limiter:
        entered.append(clock.now().timestamp())
    await clock.advance(1.0)
    async with limiter:  # a second later: no wait at all
        entered.append(clock.now().timestamp())
    assert clock.sleepers == 0
    assert entered[1] - entered[0] == 1.0
