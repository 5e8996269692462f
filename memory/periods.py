"""The period a question asks about: "on 3 May 2022", "in April", "el 3 de mayo", "ayer".

Dates a question names (in English or Spanish) become a span of days: a day, a month, a year,
or from the first to the last when it names several ("between August 11 and 15"). A month or
day without a year is its latest occurrence up to next week; without today it names no period.
Relative dates ("yesterday", "la semana pasada") count from today, as `anchor_day` does for
what a memory says. Deterministic and cheap: it runs on every recall.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from memory.entities import anchor_day

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12,
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7, "agosto": 8,
    "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
}
_MONTH = "(?P<month>" + "|".join(_MONTHS) + ")"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th|º|ª)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_OF = r"\s*(?:,|\s)\s*(?:(?:de|del|of)\s+)?"
# A month or year named alone ("in May", "en 2023") must follow a word that introduces a time,
# so that "May I…", "Marzo" as a name or "2000 photos" are not read as dates.
_BEFORE_TIME = r"(?:in|on|during|since|by|until|before|after|of|early|late|mid|en|de|desde|durante|hasta|para)"

_ISO_RE = re.compile(r"\b" + _YEAR + r"-(?P<month>\d\d)-(?P<day>\d\d)\b")
_DAY_MONTH_RE = re.compile(r"\b" + _DAY + r"(?:\s+(?:de|of))?\s+" + _MONTH + r"(?:" + _OF + _YEAR + r")?\b",
                           re.IGNORECASE)
_MONTH_DAY_RE = re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r"\b(?:(?:\s*,\s*|\s+)" + _YEAR + r"\b)?",
                           re.IGNORECASE)
_MONTH_YEAR_RE = re.compile(r"\b" + _MONTH + _OF + _YEAR + r"\b", re.IGNORECASE)
_MONTH_ALONE_RE = re.compile(r"\b" + _BEFORE_TIME + r"\s+" + _MONTH + r"\b", re.IGNORECASE)
_YEAR_ALONE_RE = re.compile(r"\b" + _BEFORE_TIME + r"\s+" + _YEAR + r"\b", re.IGNORECASE)
_DATED = (_ISO_RE, _DAY_MONTH_RE, _MONTH_DAY_RE, _MONTH_YEAR_RE, _YEAR_ALONE_RE)
_RELATIVE_SPAN = 3  # days either side of a relative date's day ("last week" is not one day)


@dataclass(frozen=True)
class Period:
    start: date
    end: date

    def widened(self, before: int, after: int) -> Period:
        return Period(self.start - timedelta(days=before), self.end + timedelta(days=after))


def asked_period(question: str, today: date | None = None) -> Period | None:
    """The days the question's dates cover (None when it names none)."""
    spans: list[Period] = []
    taken: list[tuple[int, int]] = []
    # A year said anywhere in the question dates a day or month said without one.
    stated_years = [int(match["year"]) for pattern in _DATED for match in pattern.finditer(question)
                    if match["year"]]
    default_year = stated_years[-1] if stated_years else None

    def free(match: re.Match[str]) -> bool:
        return not any(start < match.end() and match.start() < end for start, end in taken)

    for match in _ISO_RE.finditer(question):
        day = _date(int(match["year"]), int(match["month"]), int(match["day"]))
        if day is not None:
            spans.append(Period(day, day))
            taken.append(match.span())
    for pattern in (_DAY_MONTH_RE, _MONTH_DAY_RE):
        for match in pattern.finditer(question):
            if not free(match):
                continue
            month = _MONTHS[match["month"].lower()]
            year = int(match["year"]) if match["year"] else default_year
            day_number = int(match["day"])
            found = _date(year, month, day_number) if year else _nearest(today, month, day_number)
            if found is not None:
                spans.append(Period(found, found))
                taken.append(match.span())
    for match in _MONTH_YEAR_RE.finditer(question):
        if free(match):
            spans.append(_month(int(match["year"]), _MONTHS[match["month"].lower()]))
            taken.append(match.span())
    for match in _MONTH_ALONE_RE.finditer(question):
        if not free(match):
            continue
        month = _MONTHS[match["month"].lower()]
        if default_year is not None:
            spans.append(_month(default_year, month))
        elif today is not None:
            nearest = _nearest(today, month, 1)
            if nearest is not None:
                spans.append(_month(nearest.year, month))
        taken.append(match.span())
    for match in _YEAR_ALONE_RE.finditer(question):
        if free(match):
            year = int(match["year"])
            spans.append(Period(date(year, 1, 1), date(year, 12, 31)))
    if not spans and today is not None:
        day = anchor_day(question, today)
        if day is not None:
            spans.append(Period(day, day).widened(_RELATIVE_SPAN, _RELATIVE_SPAN))
    if not spans:
        return None
    return Period(min(span.start for span in spans), max(span.end for span in spans))


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _nearest(today: date | None, month: int, day: int) -> date | None:
    """This day of the month in its latest year that is not past next week (memories are mostly
    of what happened, and a plan for the coming days is asked about too)."""
    if today is None:
        return None
    latest = today + timedelta(days=7)
    for year in range(latest.year, latest.year - 5, -1):  # a 29 February is found too
        found = _date(year, month, day)
        if found is not None and found <= latest:
            return found
    return None


def _month(year: int, month: int) -> Period:
    return Period(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))
