"""What a memory names and when it happened: proper names (people, places, projects, events)
and relative dates ("yesterday", "last week", "el sábado") anchored to when they were said.

Both are deterministic and cheap, so they run for every card at write time. Names are kept
case-folded with their accents (a forgotten name is then found by the byte scan of forget).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta

from memory.text import STOPWORDS

# A capitalised word (letters, inner apostrophes or hyphens), optionally followed by more.
_NAME = re.compile(r"(?<![\w'’])([A-ZÁÉÍÓÚÑÜ][\w'’-]*(?:\s+(?:of|de|del|la|the)?\s*[A-ZÁÉÍÓÚÑÜ][\w'’-]*)*)")

# Capitalised words that are not names: greetings, interjections, calendar words. Calendar
# words are dates, handled by `anchor_day`, not links.
_NOT_NAMES = frozenset("""
hey hi hello hola yeah yes yep no nope oh wow ok okay thanks thank sorry wait well great cool awesome
sure haha lol hmm omg dear bye adiós gracias vale bueno pues vaya ah eh uh um
monday tuesday wednesday thursday friday saturday sunday january february march april may june july
august september october november december lunes martes miércoles jueves viernes sábado domingo
enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
i i'm i've i'll i'd im mr mrs ms dr
good nice glad cool amazing awesome sounds definitely totally absolutely really just maybe also anyway
congrats congratulations yesterday today tomorrow last next this that these those what when where who
why how which there here it's that's what's let's don't can't won't didn't sometimes always never
actually honestly btw by the way love lovely sweet perfect true right exactly indeed wish hope
luckily unfortunately hopefully recently lately speaking talking thinking guess whoa yay aw aww
buenas buenos hasta claro genial perfecto qué cómo cuándo dónde ayer hoy mañana anoche también
""".split())


def names(text: str) -> list[str]:
    """Proper names in the text, case-folded, in order, without repeats.

    A capitalised word that opens a sentence ("Thanks", "Great") is no name; the common ones are
    listed, and the rest are too frequent to link anything (retrieval skips such names).
    """
    return list(dict.fromkeys(name.key for name in _spans(text)))


def without_names(text: str, dropped: set[str]) -> str:
    """The text with these names (as `names` gives them) left out, possessives included."""
    kept: list[str] = []
    at = 0
    for name in _spans(text):
        if name.key in dropped:
            kept.append(text[at:name.start])
            at = name.end
    kept.append(text[at:])
    return re.sub(r"\s+([,.;:!?)])", r"\1", " ".join("".join(kept).split()))


@dataclass(frozen=True)
class _Span:
    start: int
    end: int  # past the name and its possessive ('s)
    key: str


_CONNECTORS = ("of", "de", "del", "la", "the")
_WORD_AT = re.compile(r"\S+")


def _spans(text: str) -> list[_Span]:
    found: list[_Span] = []
    for match in _NAME.finditer(text):
        words = [(match.start(1) + word.start(), match.start(1) + word.end(), word.group().casefold())
                 for word in _WORD_AT.finditer(match.group(1))]
        start, end, last = words[-1]
        words[-1] = (start, end, re.sub(r"['’]s$", "", last.rstrip("'’-")))
        while words and (words[0][2] in _NOT_NAMES or words[0][2] in STOPWORDS):
            words.pop(0)
        while words and words[-1][2] in _CONNECTORS:
            words.pop()
        key = " ".join(word for _, _, word in words)
        if not words or len(key) < 2 or key in STOPWORDS:
            continue
        found.append(_Span(words[0][0], words[-1][1], key))
    return found


_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
    "lunes": 0, "martes": 1, "miercoles": 2, "jueves": 3, "viernes": 4, "sabado": 5, "domingo": 6,
}
_FIXED = (  # (pattern, days from the day it was said)
    (r"\bday before yesterday\b|\banteayer\b|\bantes de ayer\b", -2),
    (r"\byesterday\b|\bayer\b|\blast night\b|\banoche\b", -1),
    (r"\btoday\b|\bhoy\b|\btonight\b|\besta noche\b|\bthis morning\b|\besta mañana\b", 0),
    (r"\bday after tomorrow\b|\bpasado mañana\b", 2),
    (r"\btomorrow\b|\bmañana\b(?! por| temprano)", 1),
    (r"\blast week\b|\bla semana pasada\b|\bthe week before\b", -7),
    (r"\bnext week\b|\bla semana que viene\b|\bla próxima semana\b", 7),
    (r"\blast weekend\b|\bel fin de semana pasado\b", -6),
    (r"\blast month\b|\bel mes pasado\b", -30),
    (r"\bnext month\b|\bel mes que viene\b|\bel próximo mes\b", 30),
    (r"\blast year\b|\bel año pasado\b", -365),
    (r"\ba few days ago\b|\bhace unos días\b|\bthe other day\b|\bel otro día\b", -3),
)
_FIXED_RE = tuple((re.compile(pattern, re.IGNORECASE), days) for pattern, days in _FIXED)
_WEEKDAY_RE = re.compile(
    r"\b(last|this past|past|next|this|on|el|este|el pasado|el próximo)?\s*"
    r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday|lunes|martes|mi[eé]rcoles|jueves|viernes|"
    r"s[aá]bado|domingo)(\s+pasado|\s+que viene)?\b", re.IGNORECASE)
_AGO_RE = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b"
                     r"|\bhace\s+(\d+|un|una|dos|tres|cuatro|cinco|seis)\s+(d[ií]a|semana|mes|año)s?\b",
                     re.IGNORECASE)
_COUNTS = {"a": 1, "an": 1, "one": 1, "un": 1, "una": 1, "two": 2, "dos": 2, "three": 3, "tres": 3,
           "four": 4, "cuatro": 4, "five": 5, "cinco": 5, "six": 6, "seis": 6}
_UNIT_DAYS = {"day": 1, "dia": 1, "día": 1, "week": 7, "semana": 7, "month": 30, "mes": 30, "year": 365, "ano": 365,
              "año": 365}


def anchor_day(text: str, said_on: date) -> date | None:
    """The day a relative date in the text points to, counted from the day it was said (the first
    one found; None when the text has none). Weekdays without a direction mean the past one,
    as people mostly tell what they did."""
    for pattern, days in _FIXED_RE:
        if pattern.search(text):
            return said_on + timedelta(days=days)
    ago = _AGO_RE.search(text)
    if ago:
        count_word = (ago.group(1) or ago.group(3)).lower()
        count = int(count_word) if count_word.isdigit() else _COUNTS.get(count_word, 1)
        unit = _fold(ago.group(2) or ago.group(4) or "day")
        return said_on - timedelta(days=count * _UNIT_DAYS.get(unit, _UNIT_DAYS.get(unit.rstrip("s"), 1)))
    weekday = _WEEKDAY_RE.search(text)
    if weekday:
        target = _WEEKDAYS[_fold(weekday.group(2))]
        lead = (weekday.group(1) or "").lower()
        tail = (weekday.group(3) or "").strip().lower()
        if lead in ("next", "el próximo") or tail == "que viene":
            ahead = (target - said_on.weekday()) % 7 or 7
            return said_on + timedelta(days=ahead)
        back = (said_on.weekday() - target) % 7 or 7
        return said_on - timedelta(days=back)
    return None


def _fold(word: str) -> str:
    stripped = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in stripped if not unicodedata.combining(ch))
