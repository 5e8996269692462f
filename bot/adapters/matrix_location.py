"""Matrix locations: `m.location` messages and live-location beacons (MSC3488/MSC3489/MSC3672).

Both the stable names (`m.location`, `m.ts`, `m.beacon_info`, `m.beacon`) and the unstable
ones (`org.matrix.msc3488.*`, `org.matrix.msc3672.*`) are read. Coordinates come from a
geo URI (RFC 5870): `geo:lat,lon[,alt][;u=accuracy]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.core.events import Location, LocationSource

BEACON_INFO_TYPES = frozenset({"m.beacon_info", "org.matrix.msc3672.beacon_info"})
BEACON_TYPES = frozenset({"m.beacon", "org.matrix.msc3672.beacon"})
_LOCATION_KEYS = ("m.location", "org.matrix.msc3488.location")
_TS_KEYS = ("m.ts", "org.matrix.msc3488.ts")
_ASSET_KEYS = ("m.asset", "org.matrix.msc3488.asset")

_GEO = re.compile(
    r"^geo:(?P<lat>[-+]?\d+(?:\.\d+)?),(?P<lon>[-+]?\d+(?:\.\d+)?)(?:,[-+]?\d+(?:\.\d+)?)?"
    r"(?P<params>(?:;[^;]*)*)$",
    re.IGNORECASE,
)


class BadLocation(ValueError):
    """The event names a location that cannot be read (missing or malformed geo URI)."""


@dataclass(frozen=True)
class GeoPoint:
    latitude: float
    longitude: float
    accuracy_m: float | None = None


def parse_geo_uri(uri: str) -> GeoPoint:
    """`geo:40.4168,-3.7038;u=25` -> GeoPoint; BadLocation for anything else."""
    match = _GEO.match(uri.strip())
    if match is None:
        raise BadLocation(f"not a geo URI: {uri[:80]!r}")
    latitude, longitude = float(match["lat"]), float(match["lon"])
    if not (-90 <= latitude <= 90 and -180 <= longitude <= 180):
        raise BadLocation(f"coordinates out of range: {latitude}, {longitude}")
    accuracy: float | None = None
    for param in match["params"].split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "u" and value:
            try:
                accuracy = max(0.0, float(value))
            except ValueError:
                raise BadLocation(f"bad accuracy in geo URI: {value!r}") from None
    return GeoPoint(latitude, longitude, accuracy)


def _first(content: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in content:
            return content[key]
    return None


def _timestamp(content: dict[str, Any], fallback_ms: int, now: datetime) -> datetime:
    """The event's own time (m.ts), else the server's; never later than `now`."""
    raw = _first(content, _TS_KEYS)
    millis = raw if isinstance(raw, int) and raw > 0 else fallback_ms
    return min(datetime.fromtimestamp(millis / 1000, tz=UTC), now)


def location_from_message(content: dict[str, Any], server_ts_ms: int, now: datetime) -> Location:
    """An `m.location` room message (a shared position or a dropped pin)."""
    extensible = _first(content, _LOCATION_KEYS)
    uri = extensible.get("uri") if isinstance(extensible, dict) else None
    uri = uri or content.get("geo_uri")
    if not isinstance(uri, str):
        raise BadLocation("the location message has no geo URI")
    point = parse_geo_uri(uri)
    asset = _first(content, _ASSET_KEYS)
    dropped_pin = isinstance(asset, dict) and asset.get("type") in ("m.pin", "org.matrix.msc3488.pin")
    description = extensible.get("description") if isinstance(extensible, dict) else None
    label = description if isinstance(description, str) and description else None
    if dropped_pin and label is None:
        label = "dropped pin"
    return Location(
        latitude=point.latitude,
        longitude=point.longitude,
        at=_timestamp(content, server_ts_ms, now),
        source=LocationSource.PIN,
        accuracy_m=point.accuracy_m,
        label=label,
    )


def location_from_beacon(content: dict[str, Any], server_ts_ms: int, now: datetime) -> Location:
    """One `m.beacon` update of a live-location session."""
    extensible = _first(content, _LOCATION_KEYS)
    uri = extensible.get("uri") if isinstance(extensible, dict) else None
    if not isinstance(uri, str):
        raise BadLocation("the beacon has no location URI")
    point = parse_geo_uri(uri)
    return Location(
        latitude=point.latitude,
        longitude=point.longitude,
        at=_timestamp(content, server_ts_ms, now),
        source=LocationSource.LIVE,
        accuracy_m=point.accuracy_m,
    )


def beacon_info_is_live(content: dict[str, Any]) -> bool:
    """Whether an `m.beacon_info` state event starts (True) or ends (False) a session."""
    return content.get("live") is True
