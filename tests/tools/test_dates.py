"""Local dates and times written by the model, read in the user's zone."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.errors import ToolError
from tests.skills.helpers import MADRID
from tools.dates import (
    day_bounds,
    format_span,
    format_when,
    parse_datetime,
    parse_when,
    pretty_local,
)


def test_naive_times_are_the_users_wall_clock() -> None:
    parsed = parse_when("2026-07-01T18:00", MADRID)
    assert isinstance(parsed, datetime)
    assert parsed.astimezone(UTC) == datetime(2026, 7, 1, 16, 0, tzinfo=UTC)  # CEST, UTC+2
    assert parse_when("2026-07-01 18:00", MADRID) == parsed


def test_explicit_offsets_are_converted() -> None:
    parsed = parse_when("2026-03-02T12:00+00:00", MADRID)
    assert isinstance(parsed, datetime)
    assert parsed.utcoffset() is not None and (parsed.hour, parsed.minute) == (13, 0)


def test_bare_dates_are_all_day() -> None:
    assert parse_when("2026-03-02", MADRID) == date(2026, 3, 2)
    with pytest.raises(ToolError, match="no time of day"):
        parse_datetime("2026-03-02", MADRID)


@pytest.mark.parametrize("text", ["", "tomorrow", "2026-13-01", "2026-03-02T25:00", "02/03/2026"])
def test_garbage_is_a_clear_error(text: str) -> None:
    with pytest.raises(ToolError, match="YYYY-MM-DD"):
        parse_when(text, MADRID)


def test_day_bounds_follow_dst() -> None:
    start, end = day_bounds(date(2026, 10, 25), MADRID)  # clocks go back: 25 hours
    assert (end.astimezone(UTC) - start.astimezone(UTC)).total_seconds() == 25 * 3600


def test_formatting() -> None:
    start = datetime(2026, 3, 2, 10, 0, tzinfo=MADRID)
    end = datetime(2026, 3, 2, 11, 30, tzinfo=MADRID)
    assert format_when(start, MADRID) == "Mon 2026-03-02 10:00"
    assert format_span(start, end, MADRID) == "Mon 2026-03-02 10:00–11:30"
    assert format_span(date(2026, 3, 2), date(2026, 3, 3), MADRID) == "Mon 2026-03-02 (all day)"
    assert format_span(date(2026, 3, 2), date(2026, 3, 5), MADRID) == "Mon 2026-03-02 to Wed 2026-03-04 (all day)"
    floating = datetime(2026, 3, 2, 10, 0)
    assert format_when(floating, MADRID) == "Mon 2026-03-02 10:00"


def test_pretty_local_for_approvals() -> None:
    assert pretty_local("2026-03-03T18:00") == "Tue 2026-03-03 18:00"
    assert pretty_local("2026-03-03") == "Tue 2026-03-03"
    assert pretty_local("2026-03-03T18:00+02:00") == "Tue 2026-03-03 18:00 (UTC+0200)"
    assert pretty_local("next tuesday") == "next tuesday"  # shown as written, never hidden
