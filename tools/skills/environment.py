"""Weather, geocoding and places near the user, from keyless public services.

Open-Meteo gives forecasts, Nominatim turns names into coordinates and back (with an
identifying User-Agent, at most one request per second on the injected clock, and a
small cache as its usage policy asks), Overpass finds OpenStreetMap places around a
point. The user's position comes from the location store through the ToolContext;
no tool here takes coordinates from the model.
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from enum import StrEnum
from types import TracebackType
from typing import Annotated, Any

import httpx
from pydantic import Field

from bot.clock import Clock
from bot.config import BriefingSettings, EnvironmentSettings
from bot.errors import ToolError
from memory.locations import LocationStore
from tools.context import ToolContext, format_age
from tools.http import get_json
from tools.plugin import Need, SkillContext, SkillPlugin
from tools.registry import Risk, Routing, tool

# WMO weather interpretation codes, as documented by Open-Meteo.
WMO_CODES: dict[int, str] = {
    0: "clear sky",
    1: "mainly clear",
    2: "partly cloudy",
    3: "overcast",
    45: "fog",
    48: "depositing rime fog",
    51: "light drizzle",
    53: "moderate drizzle",
    55: "dense drizzle",
    56: "light freezing drizzle",
    57: "dense freezing drizzle",
    61: "slight rain",
    63: "moderate rain",
    65: "heavy rain",
    66: "light freezing rain",
    67: "heavy freezing rain",
    71: "slight snowfall",
    73: "moderate snowfall",
    75: "heavy snowfall",
    77: "snow grains",
    80: "slight rain showers",
    81: "moderate rain showers",
    82: "violent rain showers",
    85: "slight snow showers",
    86: "heavy snow showers",
    95: "thunderstorm",
    96: "thunderstorm with slight hail",
    99: "thunderstorm with heavy hail",
}


def describe_weather_code(code: int | None) -> str:
    if code is None:
        return "unknown conditions"
    return WMO_CODES.get(code, f"weather code {code}")


# -- weather ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CurrentWeather:
    time: datetime  # local time of the forecast point, naive as Open-Meteo gives it
    temperature_c: float | None
    apparent_temperature_c: float | None
    humidity_percent: float | None
    precipitation_mm: float | None
    wind_kmh: float | None
    weather_code: int | None

    @property
    def conditions(self) -> str:
        return describe_weather_code(self.weather_code)


@dataclass(frozen=True)
class DailyForecast:
    day: date
    weather_code: int | None
    temperature_max_c: float | None
    temperature_min_c: float | None
    precipitation_mm: float | None
    precipitation_probability_percent: float | None
    wind_max_kmh: float | None

    @property
    def conditions(self) -> str:
        return describe_weather_code(self.weather_code)


@dataclass(frozen=True)
class HourlyForecast:
    time: datetime  # local time of the forecast point, naive
    temperature_c: float | None
    precipitation_probability_percent: float | None
    weather_code: int | None

    @property
    def conditions(self) -> str:
        return describe_weather_code(self.weather_code)


@dataclass(frozen=True)
class Forecast:
    latitude: float
    longitude: float
    timezone: str
    current: CurrentWeather | None
    days: tuple[DailyForecast, ...]
    hours: tuple[HourlyForecast, ...] = ()

    def summary(self, place: str | None = None) -> str:
        """A few plain lines: now, then one line per day."""
        where = place or f"{self.latitude:.3f}, {self.longitude:.3f}"
        lines = [f"Weather for {where} (times in {self.timezone}):"]
        if self.current is not None:
            now = self.current
            parts = [f"Now ({now.time:%H:%M}): {now.conditions}", f"{_num(now.temperature_c)} °C"]
            if now.apparent_temperature_c is not None:
                parts.append(f"feels like {_num(now.apparent_temperature_c)} °C")
            if now.humidity_percent is not None:
                parts.append(f"humidity {_num(now.humidity_percent)}%")
            if now.wind_kmh is not None:
                parts.append(f"wind {_num(now.wind_kmh)} km/h")
            if now.precipitation_mm:
                parts.append(f"precipitation {_num(now.precipitation_mm)} mm")
            lines.append(", ".join(parts))
        if self.hours:
            lines.append(self._hours_line())
        for day in self.days:
            parts = [
                f"{day.day:%a %Y-%m-%d}: {day.conditions}",
                f"{_num(day.temperature_min_c)} to {_num(day.temperature_max_c)} °C",
            ]
            if day.precipitation_probability_percent is not None:
                parts.append(f"rain chance {_num(day.precipitation_probability_percent)}%")
            if day.precipitation_mm:
                parts.append(f"{_num(day.precipitation_mm)} mm")
            if day.wind_max_kmh is not None:
                parts.append(f"wind up to {_num(day.wind_max_kmh)} km/h")
            lines.append(", ".join(parts))
        return "\n".join(lines)


    def _hours_line(self) -> str:
        """Every third hour of the next day, so "at 18:00" and "this afternoon" have an answer."""
        shown = [
            f"{hour.time:%H:%M} {_num(hour.temperature_c)} °C {hour.conditions}"
            + (
                f" ({_num(hour.precipitation_probability_percent)}% rain)"
                if hour.precipitation_probability_percent
                else ""
            )
            for hour in self.hours[::3]
        ]
        return "Next hours: " + "; ".join(shown)


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.1f}".removesuffix(".0")


_CURRENT = (
    "temperature_2m,apparent_temperature,relative_humidity_2m,precipitation,weather_code,wind_speed_10m"
)
_HOURLY = "temperature_2m,precipitation_probability,weather_code"
_DAILY = (
    "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,"
    "precipitation_probability_max,wind_speed_10m_max"
)


class OpenMeteoClient:
    """The Open-Meteo forecast API (keyless); reusable outside the skill (morning briefing)."""

    service = "the weather service (Open-Meteo)"

    def __init__(
        self, http: httpx.AsyncClient, url: str, *, timeout: float = 10.0, max_bytes: int = 2_000_000
    ) -> None:
        self._http = http
        self._url = url
        self._timeout = timeout
        self._max_bytes = max_bytes

    @classmethod
    def from_settings(cls, http: httpx.AsyncClient, settings: EnvironmentSettings) -> OpenMeteoClient:
        return cls(
            http,
            settings.open_meteo_url,
            timeout=settings.timeout_seconds,
            max_bytes=settings.max_response_bytes,
        )

    async def forecast(self, lat: float, lon: float, days: int = 3) -> Forecast:
        """Current conditions and `days` daily forecasts (1-16) in the place's own time zone."""
        days = min(max(days, 1), 16)
        payload = await get_json(
            self._http,
            self._url,
            service=self.service,
            timeout_seconds=self._timeout,
            max_bytes=self._max_bytes,
            params={
                "latitude": f"{lat:.5f}",
                "longitude": f"{lon:.5f}",
                "current": _CURRENT,
                "daily": _DAILY,
                "hourly": _HOURLY,
                "timezone": "auto",
                # Hourly data starts at local midnight: a second day covers the next 24 hours.
                "forecast_days": max(days, 2),
            },
        )
        try:
            forecast = _parse_forecast(payload)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ToolError(f"{self.service} answered in an unexpected format ({exc!r})") from None
        return replace(forecast, days=forecast.days[:days])


def _parse_forecast(payload: Any) -> Forecast:
    if not isinstance(payload, dict):
        raise TypeError("not an object")
    if payload.get("error"):
        raise ToolError(f"the weather service refused: {payload.get('reason', 'no reason given')}")
    current = None
    raw_current = payload.get("current")
    if isinstance(raw_current, dict):
        current = CurrentWeather(
            time=datetime.fromisoformat(raw_current["time"]),
            temperature_c=_opt_float(raw_current.get("temperature_2m")),
            apparent_temperature_c=_opt_float(raw_current.get("apparent_temperature")),
            humidity_percent=_opt_float(raw_current.get("relative_humidity_2m")),
            precipitation_mm=_opt_float(raw_current.get("precipitation")),
            wind_kmh=_opt_float(raw_current.get("wind_speed_10m")),
            weather_code=_opt_int(raw_current.get("weather_code")),
        )
    daily = payload.get("daily") or {}
    times = daily.get("time") or []

    def column(name: str) -> list[Any]:
        values = daily.get(name)
        return list(values) if isinstance(values, list) else [None] * len(times)

    codes, highs, lows = column("weather_code"), column("temperature_2m_max"), column("temperature_2m_min")
    rain, chance = column("precipitation_sum"), column("precipitation_probability_max")
    wind = column("wind_speed_10m_max")
    days = tuple(
        DailyForecast(
            day=date.fromisoformat(times[i]),
            weather_code=_opt_int(codes[i]),
            temperature_max_c=_opt_float(highs[i]),
            temperature_min_c=_opt_float(lows[i]),
            precipitation_mm=_opt_float(rain[i]),
            precipitation_probability_percent=_opt_float(chance[i]),
            wind_max_kmh=_opt_float(wind[i]),
        )
        for i in range(len(times))
    )
    hourly = payload.get("hourly") or {}
    hour_times = hourly.get("time") or []

    def hour_column(name: str) -> list[Any]:
        values = hourly.get(name)
        return list(values) if isinstance(values, list) else [None] * len(hour_times)

    temps = hour_column("temperature_2m")
    chances, hour_codes = hour_column("precipitation_probability"), hour_column("weather_code")
    start = current.time.replace(minute=0) if current is not None else None
    hours = tuple(
        hour
        for hour in (
            HourlyForecast(
                time=datetime.fromisoformat(hour_times[i]),
                temperature_c=_opt_float(temps[i]),
                precipitation_probability_percent=_opt_float(chances[i]),
                weather_code=_opt_int(hour_codes[i]),
            )
            for i in range(len(hour_times))
        )
        if start is None or hour.time >= start
    )[:24]
    if current is None and not days:
        raise ToolError("the weather service returned no forecast for that place")
    return Forecast(
        latitude=float(payload["latitude"]),
        longitude=float(payload["longitude"]),
        timezone=str(payload.get("timezone", "GMT")),
        current=current,
        days=days,
        hours=hours,
    )


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


# -- geocoding ------------------------------------------------------------------------------


class MinIntervalLimiter:
    """At most one request per `interval` seconds, measured on the injected clock.

    The interval counts from the end of the previous request, which is the stricter
    reading of "one request per second".
    """

    def __init__(self, clock: Clock, interval: float) -> None:
        self._clock = clock
        self._interval = interval
        self._lock = asyncio.Lock()
        self._last: datetime | None = None

    async def __aenter__(self) -> None:
        await self._lock.acquire()
        try:
            if self._last is not None:
                wait = self._interval - (self._clock.now() - self._last).total_seconds()
                if wait > 0:
                    await self._clock.sleep(wait)
        except BaseException:
            self._lock.release()
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._last = self._clock.now()
        self._lock.release()


@dataclass(frozen=True)
class GeoPlace:
    name: str
    display_name: str
    latitude: float
    longitude: float
    kind: str
    osm_link: str | None


class NominatimClient:
    """Forward and reverse geocoding with Nominatim's usage policy built in."""

    service = "the geocoding service (Nominatim)"

    def __init__(
        self, http: httpx.AsyncClient, settings: EnvironmentSettings, clock: Clock, cache_size: int = 256
    ) -> None:
        self._http = http
        self._settings = settings
        self._limiter = MinIntervalLimiter(clock, settings.nominatim_interval_seconds)
        self._cache: OrderedDict[tuple[str, ...], Any] = OrderedDict()
        self._cache_size = cache_size

    async def search(self, query: str, limit: int = 5) -> list[GeoPlace]:
        query = " ".join(query.split())
        if not query:
            raise ToolError("say which place to look up (the name was empty)")
        payload = await self._call(
            "search", {"q": query, "format": "jsonv2", "limit": str(limit), "addressdetails": "0"}
        )
        if not isinstance(payload, list):
            raise ToolError(f"{self.service} answered in an unexpected format")
        return [_geo_place(item) for item in payload if isinstance(item, dict)]

    async def reverse(self, lat: float, lon: float) -> GeoPlace | None:
        """The address at a point, or None where Nominatim knows nothing (the open sea)."""
        payload = await self._call(
            "reverse", {"lat": f"{lat:.6f}", "lon": f"{lon:.6f}", "format": "jsonv2", "zoom": "18"}
        )
        if not isinstance(payload, dict):
            raise ToolError(f"{self.service} answered in an unexpected format")
        if "error" in payload:
            return None
        return _geo_place(payload)

    async def _call(self, endpoint: str, params: dict[str, str]) -> Any:
        if self._settings.contact_email:
            params = {**params, "email": self._settings.contact_email}
        key = (endpoint, *sorted(f"{k}={v}" for k, v in params.items()))
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        async with self._limiter:
            payload = await get_json(
                self._http,
                f"{self._settings.nominatim_url.rstrip('/')}/{endpoint}",
                service=self.service,
                timeout_seconds=self._settings.timeout_seconds,
                max_bytes=self._settings.max_response_bytes,
                params=params,
                headers={"User-Agent": self._settings.user_agent},
            )
        self._cache[key] = payload
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return payload


def _geo_place(item: dict[str, Any]) -> GeoPlace:
    try:
        lat, lon = float(item["lat"]), float(item["lon"])
    except (KeyError, TypeError, ValueError):
        raise ToolError("the geocoding service returned a place without coordinates") from None
    display = str(item.get("display_name") or "")
    osm_type, osm_id = item.get("osm_type"), item.get("osm_id")
    return GeoPlace(
        name=str(item.get("name") or display.split(",")[0]),
        display_name=display,
        latitude=lat,
        longitude=lon,
        kind=str(item.get("addresstype") or item.get("type") or ""),
        osm_link=f"https://www.openstreetmap.org/{osm_type}/{osm_id}" if osm_type and osm_id else None,
    )


# -- places ------------------------------------------------------------------------------------


class PlaceCategory(StrEnum):
    CAFE = "cafe"
    RESTAURANT = "restaurant"
    BAR = "bar"
    PUB = "pub"
    FAST_FOOD = "fast_food"
    ICE_CREAM = "ice_cream"
    BAKERY = "bakery"
    SUPERMARKET = "supermarket"
    CONVENIENCE = "convenience"
    PHARMACY = "pharmacy"
    HOSPITAL = "hospital"
    DOCTORS = "doctors"
    DENTIST = "dentist"
    VETERINARY = "veterinary"
    ATM = "atm"
    BANK = "bank"
    FUEL = "fuel"
    CHARGING_STATION = "charging_station"
    PARKING = "parking"
    BICYCLE_RENTAL = "bicycle_rental"
    BUS_STOP = "bus_stop"
    TRAIN_STATION = "train_station"
    POST_OFFICE = "post_office"
    LIBRARY = "library"
    PARK = "park"
    PLAYGROUND = "playground"
    TOILETS = "toilets"
    DRINKING_WATER = "drinking_water"
    HOTEL = "hotel"
    MUSEUM = "museum"
    ATTRACTION = "attraction"
    CINEMA = "cinema"
    THEATRE = "theatre"
    GYM = "gym"
    HAIRDRESSER = "hairdresser"
    POLICE = "police"


_OSM_TAGS: dict[PlaceCategory, tuple[str, str]] = {
    PlaceCategory.BAKERY: ("shop", "bakery"),
    PlaceCategory.SUPERMARKET: ("shop", "supermarket"),
    PlaceCategory.CONVENIENCE: ("shop", "convenience"),
    PlaceCategory.HAIRDRESSER: ("shop", "hairdresser"),
    PlaceCategory.BUS_STOP: ("highway", "bus_stop"),
    PlaceCategory.TRAIN_STATION: ("railway", "station"),
    PlaceCategory.PARK: ("leisure", "park"),
    PlaceCategory.PLAYGROUND: ("leisure", "playground"),
    PlaceCategory.GYM: ("leisure", "fitness_centre"),
    PlaceCategory.HOTEL: ("tourism", "hotel"),
    PlaceCategory.MUSEUM: ("tourism", "museum"),
    PlaceCategory.ATTRACTION: ("tourism", "attraction"),
}


def osm_tag(category: PlaceCategory) -> tuple[str, str]:
    """The OpenStreetMap key=value a category means (most are amenity=<category>)."""
    return _OSM_TAGS.get(category, ("amenity", category.value))


@dataclass(frozen=True)
class NearbyPlace:
    name: str | None
    latitude: float
    longitude: float
    distance_m: float
    osm_type: str
    osm_id: int
    address: str | None
    opening_hours: str | None
    extra: str | None

    @property
    def map_link(self) -> str:
        return f"https://www.openstreetmap.org/{self.osm_type}/{self.osm_id}"


def distance_m(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance (haversine) in metres."""
    radius = 6_371_000.0
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi = math.radians(lat2 - lat1)
    dlambda = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlambda / 2) ** 2
    return 2 * radius * math.asin(math.sqrt(min(1.0, a)))


class OverpassClient:
    """OpenStreetMap features of one category around a point, nearest first."""

    service = "the places service (Overpass API)"
    # Overpass does not sort by distance, so fetch generously and sort here.
    fetch_cap = 300

    def __init__(self, http: httpx.AsyncClient, settings: EnvironmentSettings) -> None:
        self._http = http
        self._settings = settings

    def query(self, category: PlaceCategory, lat: float, lon: float, radius_m: int) -> str:
        key, value = osm_tag(category)
        server_timeout = max(1, int(self._settings.overpass_timeout_seconds))
        return (
            f"[out:json][timeout:{server_timeout}];\n"
            f'nwr["{key}"="{value}"](around:{radius_m},{lat:.6f},{lon:.6f});\n'
            f"out center {self.fetch_cap};"
        )

    async def nearby(
        self, category: PlaceCategory, lat: float, lon: float, radius_m: int, limit: int
    ) -> list[NearbyPlace]:
        payload = await get_json(
            self._http,
            self._settings.overpass_url,
            service=self.service,
            # The client waits for the server-side limit it asked for, plus the usual slack.
            timeout_seconds=self._settings.overpass_timeout_seconds + self._settings.timeout_seconds,
            max_bytes=self._settings.max_response_bytes,
            data={"data": self.query(category, lat, lon, radius_m)},
            headers={"User-Agent": self._settings.user_agent},
        )
        if not isinstance(payload, dict) or not isinstance(payload.get("elements"), list):
            raise ToolError(f"{self.service} answered in an unexpected format")
        remark = str(payload.get("remark") or "")
        if "error" in remark.lower() and not payload["elements"]:
            raise ToolError(f"{self.service} failed: {remark[:200]}")
        places = [
            place
            for element in payload["elements"]
            if isinstance(element, dict) and (place := _nearby_place(element, lat, lon)) is not None
        ]
        places = [p for p in places if p.distance_m <= radius_m * 1.05]
        # Named places first within equal footing: an unnamed bench of cafés helps nobody.
        places.sort(key=lambda p: (p.name is None, p.distance_m))
        named = [p for p in places if p.name is not None]
        chosen = (named or places)[:limit]
        return sorted(chosen, key=lambda p: p.distance_m)


def _nearby_place(element: dict[str, Any], lat: float, lon: float) -> NearbyPlace | None:
    center = element.get("center") if "lat" not in element else element
    if not isinstance(center, dict) or "lat" not in center or "lon" not in center:
        return None
    tags = element.get("tags") or {}
    if not isinstance(tags, dict):
        tags = {}
    plat, plon = float(center["lat"]), float(center["lon"])
    street = tags.get("addr:street")
    address = None
    if street:
        address = " ".join(str(part) for part in (street, tags.get("addr:housenumber")) if part)
    extras = [
        f"{label} {tags[tag]}"
        for tag, label in (("cuisine", "cuisine:"), ("wheelchair", "wheelchair:"), ("website", "web:"))
        if tags.get(tag)
    ]
    return NearbyPlace(
        name=tags.get("name") or tags.get("brand"),
        latitude=plat,
        longitude=plon,
        distance_m=distance_m(lat, lon, plat, plon),
        osm_type=str(element.get("type", "node")),
        osm_id=int(element.get("id", 0)),
        address=address,
        opening_hours=tags.get("opening_hours"),
        extra="; ".join(extras) or None,
    )


def _format_distance(metres: float) -> str:
    if metres < 1000:
        return f"{round(metres / 10) * 10:.0f} m"
    return f"{metres / 1000:.1f} km"


# -- the skill ------------------------------------------------------------------------------------

Days = Annotated[int, Field(ge=1, le=16, description="how many days of forecast, 1 to 16")]
PlaceName = Annotated[
    str | None,
    Field(description="a place name to use instead of the user's own location, e.g. 'Sevilla'"),
]


@dataclass(frozen=True)
class _Origin:
    latitude: float
    longitude: float
    label: str


class EnvironmentSkill(SkillPlugin):
    id = "environment"
    description = "weather forecast, places near the user (cafés, pharmacies…), addresses and geocoding"
    routing = Routing(
        overview=True,
        summary=(
            "Weather and forecast (rain, temperature, wind); geocoding of addresses and coordinates; places "
            "nearby such as pharmacies, cafés, restaurants, museums; distances from the user's location. "
            "Tiempo, lluvia, cerca de aquí."
        ),
        cues=(
            # Weather named by what it does, places by how near they are, positions by coordinates.
            # (Andalusia says "ar tiempo" for "al tiempo": "echa un ojo ar tiempo de la semana".)
            r"\b(?:el|del|al|ar) tiempo (?:de |para |en )?(?:hoy|ma[ñn]ana|mñn|pasado|el finde|este finde|"
            r"el fin de semana|esta (?:tarde|noche|semana)|la semana)\b",
            # "¿va a apretar la calor?": the heat as what the day will do.
            r"\b(?:apret\w*|peg\w*|caer[aá]|cae)\s+(?:m[aá]s\s+)?(?:fuerte\s+)?(?:el|la|un)\s+(?:calor|sol)\b",
            r"\b(?:hace|har[aá]|va a hacer)\s+(?:much[oa] |much[ií]sim[oa] |poco |bastante |demasiado |tant[oa] )?"
            r"(?:fr[ií]o|calor|viento|sol|bueno|malo|buen tiempo|mal tiempo)\b",
            # Wind as people say it: "blowing a hooley", "gusts tonight?", "rachas de viento".
            r"\bblow(?:ing|s)? a (?:hooley|gale)\b|\bblowy\b|\bgales?\b|\bgusts?\b|\bgusty\b|\brachas?\b",
            # "si va a haber viento norte mañana en Calbuco": the wind the day will bring, or from where it blows.
            r"\b(?:va a (?:haber|soplar)|habr[aá]|hay|sopla|soplar[aá]|soplando)\s+"
            r"(?:(?:mucho|fuerte|harto|tanto)\s+)?viento\b|"
            r"\bviento\s+(?:norte|sur|este|oeste|nordeste|noreste|sudeste|sureste|noroeste|suroeste|sudoeste|terral|"
            r"de\s+levante|de\s+poniente|del\s+(?:norte|sur|este|oeste))\b",
            r"\bhow (?:cold|hot|warm|windy)\b",
            # The weather as what "it" is doing outside: "what's it doing out there?".
            r"\bwhat(?:'?s| is) it (?:doing|like) (?:outside|out there|out)\b",
            r"\b(?:how many|what) degrees\b",
            r"\bcu[aá]ntos grados\b",
            r"\b(?:umbrella|brolly|paraguas|chubasquero|raincoat|sunny|soleado|windy|pron[oó]stico)\b",
            # Frost as what the night will do: "if it's gonna freeze tonight" (not "can you freeze rice?").
            r"\b(?:gonna|going to|will it|it'?ll|if it) (?:freeze|be freezing)\b",
            r"\bfreez(?:e|ing) (?:tonight|tomorrow|overnight|this (?:morning|evening|weekend|week))\b",
            r"\bsnow(?:ing)?\b",
            # Fog, frost, hail, storms: "mira a ver si mañana a las 6 va a haber niebla", "any frost tonight?".
            # ("Total brain fog today" is no weather.)
            r"\b(?:niebla|neblina|bruma|calima|heladas?|granizo|granizada|tormentas?|(?<!\bbrain\s)fog|foggy|mist|misty|"
            r"hail|frost|frosty|thunder(?:storms?)?)\b",
            r"\bnevar?\b",
            r"\bgraniz(?:ar|a|e|ar[aá]|ando)\b",  # "va a granizar esta semana por Haro?"
            r"\bcoordinates\b",
            r"\bcoordenadas\b",
            r"-?\d{1,2}\.\d{2,},\s*-?\d{1,3}\.\d{2,}",
            r"\b(?:nearest|closest)\b",
            r"\bm[aá]s cercan[oa]s?\b",
            r"\bwalk(?:ing)? (?:to|distance)\b",
            r"\bandando (?:a|al|hasta)\b",
            r"\bweather\b",
            r"\bforecast\b",
            r"\brain(s|ing|y)?\b",
            # Rain asked as its absence: "is it gonna be dry there first thing?", "will it stay dry?".
            r"\b(?:it|it'?ll|gonna|going to) (?:be |stay |keep )?dry\b",
            r"\b(?:stay|stays|staying|stop|stops|stopping|keep|keeps|keeping) dry\b",
            # The weather by how it will feel: "is it gonna be baltic?", "will it be roasting?".
            r"\b(?:gonna|going to|will it|it'?ll) be (?:baltic|freezing|roasting|scorching|boiling|chilly|nippy|muggy|"
            r"humid|mild|bitter)\b",
            # Somewhere still open nearby: "anywhere still doing food round Pendeen this time of night?".
            r"\banywhere (?:still )?(?:open|doing food|serving|selling|doing)\b",
            r"\bprevisi[oó]n (?:del tiempo|meteorol[oó]gica)\b",  # "mándale a mi hermano la previsión del tiempo"
            # Heavy rain as Ireland and Britain say it: "will it be lashing for the 2 o'clock one".
            r"\b(?:lashing|bucketing|pissing|chucking it|tipping it|teeming|pelting)(?: down)?\b",
            r"\bllover\b",
            r"\bllueve\b",
            r"\blluvia\b",
            r"\btemperatur",
            r"\bnearby\b",
            # The way somewhere: "cómo llego", "how do I get there", "directions to".
            r"\bc[oó]mo (?:llego|llegamos|voy|vamos|se va|se llega|puedo llegar|podemos llegar)\b",
            r"\bhow (?:do|can|would|should) (?:i|we) get (?:there|to|from|back)\b",
            r"\bdirections? (?:to|for|from)\b",
            r"\baround here\b",
            r"\bpor (?:aqu[ií]|ac[aá])\b",
            r"\bhow far (?:is|are|to|away|from|apart)\b",
            # Asked indirectly the verb comes last ("tell me how far it is", "how far the station is").
            r"\bhow far (?:away )?(?:it|that|this|(?:the|that|this) \w+(?: \w+)?)(?:'s| is| are)\b",
            r"\ba cu[aá]nto (?:me |nos )?(?:queda|quedan|pilla|cae)\b",
            r"\bqu[eé] distancia\b",
            # How long it takes to get there: "cuánto se tarda de aquí al aeropuerto", "how long to cycle to…".
            r"\bcu[aá]nto (?:hay|se tarda|tardo|tardar[ée]|tardamos|tarda|queda) (?:de|desde|hasta|a|al)\b",
            r"\bde aqu[ií] (?:a|al|hasta)\b",
            # A distance asked in its unit, from here: "decime a cuántos km queda de acá".
            r"\ba cu[aá]nt[oa]s (?:km|kil[oó]metros|metros|millas|cuadras|minutos) (?:me |nos |te )?"
            r"(?:queda|quedan|est[aá]|est[aá]n|pilla|cae)\b",
            r"\bde ac[aá] (?:a|al|hasta)\b|\bqueda de ac[aá]\b",
            r"\bhow long (?:does it|will it|would it|did it) take (?:me |us )?to (?:get|walk|cycle|bike|drive|ride)\b",
            r"\bhow long to (?:get|walk|cycle|bike|drive|ride) (?:to|there|from|home)\b",
            r"\b(?:qu[eé]|q) tiempo\b",
            r"\btiempo (?:(?:que|q) )?(?:hace|har[aá]|va a hacer)\b",
            # The weather by the day it is for: "mándale el tiempo de la semana que viene".
            r"\bel tiempo (?:de|del|para) (?:hoy|ma[ñn]ana|la semana|(?:el )?finde|(?:el )?fin de semana|esta|este|"
            r"los pr[oó]ximos)",
            # The winds of Spain by name, and what the weather will do: "si hay levante", "va a hacer cierzo".
            r"\b(?:cierzo|levante|poniente|tramontana|terral|galerna)\b(?!\s+(?:de|del)\s+(?-i:[A-Z]))",
            r"\bva a hacer (?:cierzo|viento|aire|fr[ií]o|calor|sol|bueno|malo)\b",
            # The heat or the sun as what "pega": "va a pegar mucho el calor el finde?".
            r"\bpega(?:r|r[aá])? (?:mucho |fuerte |duro )?(?:el )?(?:calor|sol|bochorno)\b",
            # Rain as it is said in Britain: "is it gonna be pissing down?", "chucking it down".
            r"\b(?:piss|chuck|tip|lash)(?:ing)?(?: it)? down\b|\bbucketing(?: down)?\b",
            # The weather by its other Spanish name: "qué clima hará en Lima?", "el clima del finde".
            r"\b(?:el|qu[eé]|q)\s+clima\b|\bclima\s+(?:en|de|del|para|hoy|ma[ñn]ana|va a hacer|hace|har[aá])\b",
            r"\bnear\b",
            r"\bcerca\b",
            # A street address with its number is something to place on the map.
            r"\b(?:calle|c/|avenida|avda\.?|plaza|paseo|carrer|ronda|glorieta)\s+(?:de\s+(?:la\s+|los\s+|las\s+)?)?"
            r"[^\W\d_][\w'-]+(?:\s+[^\W\d_][\w'-]+){0,3},?\s+(?:n[º°]\s*)?\d{1,4}\b",
            r"\b\d{1,4}\s+[^\W\d_][\w'-]+(?:\s+[^\W\d_][\w'-]+){0,2}\s+(?:street|st|avenue|ave|road|rd|lane|"
            r"boulevard|blvd|drive|dr)\b",
        ),
        examples=(
            "what's the weather like today?",
            "will it rain tomorrow morning?",
            "how cold will it be tonight?",
            "what's the forecast for the weekend?",
            "is there a pharmacy open near me?",
            "find a good restaurant nearby",
            "how far is the train station from here?",
            "what are the coordinates of Plaza Mayor in Salamanca?",
            "what's the address at these coordinates 41.38, 2.17?",
            "any parks within walking distance?",
            "do I need a jacket today?",
            "qué tiempo va a hacer mañana?",
            "va a llover esta tarde?",
            "cuántos grados hace ahora?",
            "hay un supermercado abierto por aquí?",
            "dónde hay una gasolinera cerca?",
            "a cuánto estoy de la playa?",
            "busca una cafetería cerca de mí",
            "qué previsión hay para el sábado?",
            "hace viento hoy?",
            "coordenadas de la estación de Atocha",
            "me llevo paraguas?",
        ),
    )
    settings_section = "environment"
    needs = frozenset({Need.HTTP, Need.CLOCK, Need.BRIEFING})

    @classmethod
    async def install(cls, ctx: SkillContext) -> None:
        """Works without keys; the briefing gets today's weather where the user is (or at home)."""
        ctx.add_tools(cls(ctx.http, ctx.settings.environment, ctx.clock))
        weather = OpenMeteoClient.from_settings(ctx.http, ctx.settings.environment)
        section = WeatherSection(weather, ctx.host.locations, ctx.clock, ctx.settings.briefing, ctx.language)
        ctx.add_briefing_section("Tiempo" if ctx.language == "es" else "Weather", section, content=False)

    def __init__(self, http: httpx.AsyncClient, settings: EnvironmentSettings, clock: Clock) -> None:
        self.settings = settings
        self.weather_client = OpenMeteoClient.from_settings(http, settings)
        self.geocoder = NominatimClient(http, settings, clock)
        self.overpass = OverpassClient(http, settings)

    async def _origin(self, ctx: ToolContext, place: str | None) -> _Origin:
        """A named place (geocoded) or else the user's fresh location, injected by code."""
        if place and place.strip():
            found = await self.geocoder.search(place, limit=1)
            if not found:
                raise ToolError(f"no place called {place!r} was found; ask the user to be more specific")
            return _Origin(found[0].latitude, found[0].longitude, found[0].display_name)
        reading = await ctx.require_fresh_location()
        loc = reading.location
        label = f"the user's location (shared {format_age(reading.age)} ago"
        if loc.label:
            label += f", {loc.label}"
        return _Origin(loc.latitude, loc.longitude, label + ")")

    @tool(risk=Risk.READ, idempotent=True)
    async def weather(self, ctx: ToolContext, place: PlaceName = None, days: Days = 3) -> str:
        """Weather now and the daily forecast, at the user's location or at a named place."""
        origin = await self._origin(ctx, place)
        forecast = await self.weather_client.forecast(origin.latitude, origin.longitude, days)
        return forecast.summary(origin.label)

    @tool(risk=Risk.READ, idempotent=True)
    async def places_nearby(
        self,
        ctx: ToolContext,
        category: Annotated[PlaceCategory, Field(description="what kind of place")],
        radius_m: Annotated[
            int, Field(ge=50, le=50_000, description="search radius in metres")
        ] = 1000,
        near: Annotated[
            str | None,
            Field(description="a place name to search around instead of the user's location"),
        ] = None,
    ) -> str:
        """Places of a category near the user (or near a named place), nearest first, with map links."""
        radius = min(radius_m, self.settings.places_max_radius_m)
        origin = await self._origin(ctx, near)
        places = await self.overpass.nearby(
            category, origin.latitude, origin.longitude, radius, self.settings.places_max_results
        )
        what = category.value.replace("_", " ")
        if not places:
            hint = (
                f" Try a larger radius (up to {self.settings.places_max_radius_m} m)."
                if radius < self.settings.places_max_radius_m
                else ""
            )
            return f"No {what} found within {radius} m of {origin.label}.{hint}"
        lines = [f"{len(places)} × {what} within {radius} m of {origin.label}, nearest first:"]
        for number, found in enumerate(places, 1):
            parts = [f"{number}. {found.name or f'(unnamed {what})'}", _format_distance(found.distance_m)]
            if found.address:
                parts.append(found.address)
            if found.opening_hours:
                parts.append(f"hours: {found.opening_hours}")
            if found.extra:
                parts.append(found.extra)
            parts.append(found.map_link)
            lines.append(" — ".join(parts))
        lines.append("(Map data © OpenStreetMap contributors)")
        return "\n".join(lines)

    @tool(risk=Risk.READ, idempotent=True)
    async def current_address(self, ctx: ToolContext) -> str:
        """The street address at the user's current location (reverse geocoding)."""
        reading = await ctx.require_fresh_location()
        loc = reading.location
        found = await self.geocoder.reverse(loc.latitude, loc.longitude)
        if found is None:
            return "No address is known at the user's location (it may be open country or sea)."
        link = f" — {found.osm_link}" if found.osm_link else ""
        return f"The user is at or near: {found.display_name}{link}"

    @tool(risk=Risk.READ, idempotent=True)
    async def geocode(
        self,
        query: Annotated[str, Field(min_length=1, max_length=300, description="a place or address")],
        limit: Annotated[int, Field(ge=1, le=10, description="at most this many matches")] = 3,
    ) -> str:
        """Find where a named place or address is: full name, kind and coordinates."""
        query = " ".join(query.split())
        found = await self.geocoder.search(query, limit=limit)
        if not found:
            return f"No place matches {query!r}."
        lines = [f"Matches for {query!r}:"]
        for number, place in enumerate(found, 1):
            link = f" — {place.osm_link}" if place.osm_link else ""
            kind = f" ({place.kind})" if place.kind else ""
            lines.append(
                f"{number}. {place.display_name}{kind}: {place.latitude:.5f}, {place.longitude:.5f}{link}"
            )
        return "\n".join(lines)


class WeatherSection:
    """Today's forecast where the user is (a recent shared location) or at home."""

    def __init__(self, client: OpenMeteoClient, locations: LocationStore, clock: Clock,
                 options: BriefingSettings, lang: str) -> None:
        self._client = client
        self._locations = locations
        self._clock = clock
        self._options = options
        self._lang = lang

    async def __call__(self, user_key: str, local_now: datetime) -> str | None:
        place = await self._place(user_key)
        if place is None:
            return None
        lat, lon, label = place
        forecast = await self._client.forecast(lat, lon, 1)
        parts: list[str] = []
        today = next((d for d in forecast.days if d.day == local_now.date()), None)
        if today is None and forecast.days:
            today = forecast.days[0]
        if today is not None:
            parts.append(today.conditions)
            if today.temperature_min_c is not None and today.temperature_max_c is not None:
                parts.append(f"{today.temperature_min_c:.0f}–{today.temperature_max_c:.0f} °C")
            if today.precipitation_probability_percent is not None:
                rain = "lluvia" if self._lang == "es" else "rain"
                parts.append(f"{rain} {today.precipitation_probability_percent:.0f}%")
        if forecast.current is not None and forecast.current.temperature_c is not None:
            now_word = "ahora" if self._lang == "es" else "now"
            parts.append(f"{now_word} {forecast.current.temperature_c:.0f} °C")
        if not parts:
            return None
        return f"{label}: " + ", ".join(parts)

    async def _place(self, user_key: str) -> tuple[float, float, str] | None:
        es = self._lang == "es"
        max_age = timedelta(hours=self._options.location_max_age_hours)
        reading = await self._locations.read(user_key, self._clock.now(), max_age)
        if reading is not None and not reading.stale:
            loc = reading.location
            return loc.latitude, loc.longitude, loc.label or ("Donde estás" if es else "Where you are")
        if self._options.home_lat is not None and self._options.home_lon is not None:
            return self._options.home_lat, self._options.home_lon, "Casa" if es else "Home"
        return None
