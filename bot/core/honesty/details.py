"""Details an answer can state only if a source gave them: times, dates, contacts, links, amounts.

Each detail is found however it is written: "20:45", "8pm", "a quarter to nine", "a las
cinco de la tarde"; "https://x.test/a", "x.test/a", "example dot com"; "a@b.es",
"a arroba b punto es"; "€87.40", "15 °C", "3 km", "20%", "a hundred and forty miles";
"914 22 87 65", "six one two, four four…"; the number of a street address, "221 Baker
Street", "calle Mayor, 12". Every pattern is linear (bounded repeats, anchored starts) and each
text is scanned up to a cap, so a long page or answer costs bounded time. A detail worked out
from sourced ones by arithmetic the answer shows ("two hours before 07:40 is 05:40") is sourced.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import combinations, islice

from tld import get_tld

MAX_SCAN_CHARS = 100_000
"""Each text is scanned up to this many characters (an answer longer than that is cut)."""
MAX_MATCHES = 5_000
"""Matches of one pattern taken from one text: bounds the work on adversarial input."""


def _each(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    return islice(pattern.finditer(text), MAX_MATCHES)

_EN_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
               "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_ES_NUMBERS = {"una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
               "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12}
_ES_MINUTES = {"cinco": 5, "diez": 10, "cuarto": 15, "veinte": 20, "veinticinco": 25, "media": 30}
_EN_HOUR = "|".join([*_EN_NUMBERS, r"1[0-2]|0?[1-9]"])
_ES_HOUR = "|".join([*sorted(_ES_NUMBERS, key=len, reverse=True), r"1[0-2]|0?[1-9]"])
_ES_MIN = "|".join(sorted(_ES_MINUTES, key=len, reverse=True))

# "$10.20", "€10.20", "10.20 €", "10.20 dollars" are prices, not 10:20.
# The number of a numbered list's item ("1. Passport", "2) Adapter"): it counts lines, it says nothing.
_LIST_NUMBER = re.compile(r"(?m)^[ \t]*\d{1,3}[.)](?=[ \t]+\S)")
# An operator right before a dotted number ("× 1.15", "= 12.30"): the number is worked with, not a time.
_OPERATOR_BEFORE = re.compile(r"[×*/=+]\s?$")
# (No clock writes midnight as "0.18": that is a factor.)
_TIME = re.compile(r"(?<![\d:.$€£])(?<![$€£]\s)(?!0\.\d)([01]?\d|2[0-3])[:.h]([0-5]\d)(?!\d)"
                   r"(?!\s?(?:€|\$|£|euros?\b|eur\b|dollars?\b|d[oó]lares\b|pounds?\b|libras\b|usd\b|gbp\b))",
                   re.IGNORECASE)
_AMPM = re.compile(r"(?<!\d)(1[0-2]|0?[1-9])(?::([0-5]\d))?\s?([ap])\.?\s?m\b\.?", re.IGNORECASE)
# "mañana 9h", "a las 21 h": an hour written with its h (in the user's words, also a time).
_HOUR_H = re.compile(r"(?<![\d:.,])([01]?\d|2[0-3])\s?h\b(?![:.]?\d)", re.IGNORECASE)
_AT_WORD_HOUR = re.compile(rf"\b(?:a\s+la|a\s+las)\s+({_ES_HOUR})\b", re.IGNORECASE)
_BARE_HOUR = re.compile(r"\b(?:at|a\s+las|a\s+la|las|sobre\s+las)\s+([01]?\d|2[0-3])\b", re.IGNORECASE)
# "closes at 9", "abre a las 10": an hour with no minutes, in an answer
_SAID_HOUR = re.compile(
    # ("3 de las 4" is three of the four.)
    r"\b(?:at|until|till|from|by|around|a\s+las|a\s+la|hasta\s+las|desde\s+las|sobre\s+las|(?<!\d\s)de\s+las)\s+"
    r"([01]?\d|2[0-3])(?:\s?h\b)?(?![:.h]?\d)"
    r"(?!\s*(?:%|°|º|€|\$|km|kg|min|euros?|percent|por\s+ciento|people|personas|items|cosas))"
    # ("big males reach around 6 metres": a length, not six o'clock.)
    r"(?!\s*(?:m|metres?|meters?|metros?|feet|foot|ft|inches|cm|mm|miles?|millas?|kilos?|lbs?|pounds?|tonnes?|tons?|"
    r"toneladas?|years?|a[ñn]os|months?|meses|weeks?|semanas|days?|d[ií]as|times|veces|grados|degrees)\b)"
    # "at 22 Harley Road", "a las 3 Calle Mayor" are house numbers, not hours.
    r"(?!\s+(?-i:[A-Z])[^\W\d_]+\s+(?:road|street|avenue|lane|st|rd|ave|drive|way|close|place|square)\b)\b",
    re.IGNORECASE,
)
_EN_WORD_TIME = re.compile(
    # ("eight minutes to six", "22 minutes past 7": any number of minutes, said as minutes; "three to four
    # days" is a span.)
    # ("Twelve past four": "past" says it is a time whatever the number; "to" may be a span.)
    rf"\b(?:(?=(?:quarter|half|ten|twenty|five|twenty[-\s]five)\b|[\w-]+\s+minutes?\b|[\w-]+[-\s]past\s)(quarter|half|twenty[-\s](?:one|two|three|four|five|six|seven|eight|nine)|twenty|one|two|three|four|five|"
    rf"six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|sixteen|seventeen|eighteen|nineteen|[1-5]?\d)"
    rf"(?:\s+minutes?)?[-\s](past|to)[-\s]({_EN_HOUR})"
    rf"|half\s+({_EN_HOUR})\b(?!\s*(?:hours?|days?|weeks?|minutes?))"
    rf"|({_EN_HOUR})\s+o'?\s?clock"
    rf"|({_EN_HOUR})[-\s](thirty|fifteen|forty-five|forty five)\b"
    r"|(noon|midday|midnight)"
    # "seven in the evening", "nine at night", "six this morning": an hour by the part of the day
    rf"|({_EN_HOUR})\s+(?:in\s+the|this|tomorrow|at)\s+(morning|afternoon|evening|night))\b",
    re.IGNORECASE,
)
_ES_WORD_TIME = re.compile(
    # With minutes ("las nueve y media tengo") it is a time whatever follows; a bare hour
    # ("las tres") only where a time-like word or the clause's end follows ("las tres cosas" is a count).
    # ("Solo hice una de las dos", "lo puse en las dos": the two things, not two o'clock.)
    r"\b(?<!\buna\sde\s)(?<!\buno\sde\s)(?<!ninguna\sde\s)(?<!ninguno\sde\s)(?<!alguna\sde\s)(?<!alguno\sde\s)"
    r"(?<!cualquiera\sde\s)(?<!ambas\sde\s)(?<!\ben\s)(?<!\d\sde\s)(?<!\bdos\sde\s)(?<!\btres\sde\s)"
    # ("La 9" alone is the number nine thing, "lo de la 14 y la 9": of the hours only one is "la una".)
    rf"(?:(?:a\s+la|a\s+las|las|la(?=\s+(?:una|0?1)\b))\s+({_ES_HOUR})(?:\s+(y|menos)\s+({_ES_MIN})\b"
    rf"|(?=\s+(?:y|menos|de\s+la|en\s+punto|horas?)\b|\s*[.,;:!?)](?!\d)|\s*$))"
    rf"|({_ES_HOUR})\s+(y|menos)\s+(cuarto|media)"
    r"|(mediod[ií]a|medianoche))\b",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
# A day of the month said on its own: "on the 3rd", "el día 3".
_DAY_ALONE = re.compile(
    r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b|\b(?:el\s+)?d[íi]a\s+(\d{1,2})\b(?!\s*(?:de\s+)?[^\W\d_]{3})",
    re.IGNORECASE,
)
# A day of the month in words from the 10th up ("the seventeenth", "el diecisiete"); smaller ones
# ("the second", "el uno") are as often other things.
_EN_ORDINALS = {"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
                "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
                "thirtieth": 30, **{f"twenty-{w}": 20 + n for w, n in (("first", 1), ("second", 2), ("third", 3),
                                    ("fourth", 4), ("fifth", 5), ("sixth", 6), ("seventh", 7), ("eighth", 8),
                                    ("ninth", 9))}, "thirty-first": 31}
_ES_DAYS = {"diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16,
            "dieciseis": 16, "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20, "veintiuno": 21,
            "veintidós": 22, "veintidos": 22, "veintitrés": 23, "veintitres": 23, "veinticuatro": 24,
            "veinticinco": 25, "veintiséis": 26, "veintiseis": 26, "veintisiete": 27, "veintiocho": 28,
            "veintinueve": 29, "treinta": 30, "treinta y uno": 31}
_EN_ORDINAL_WORDS = "|".join(sorted((w.replace("-", r"[-\s]") for w in _EN_ORDINALS), key=len, reverse=True))
_ES_DAY_WORDS = "|".join(sorted((w.replace(" ", r"\s+") for w in _ES_DAYS), key=len, reverse=True))
_SPELLED_DAY = re.compile(
    rf"\b(?:(?:on\s+)?the\s+)?({_EN_ORDINAL_WORDS})\b|\bel\s+(?:d[íi]a\s+)?({_ES_DAY_WORDS})\b"
    r"(?!\s+(?:de\s+)?(?:euros?|grados?|minutos?|horas?|kil[óo]metros?|km|personas?|a[ñn]os?))",
    re.IGNORECASE,
)
# A day said as an ordinal word before its month: "the ninth of August is the cut-off" (alone, "the ninth" is prose).
_ORDINAL_DAYS = {**_EN_ORDINALS, "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
                 "seventh": 7, "eighth": 8, "ninth": 9}


def _ordinal_key(word: str) -> str:
    return re.sub(r"[-\s]+", "-", word.lower())


_ORDINAL_OF_MONTH = re.compile(
    r"\b(" + "|".join(sorted((w.replace("-", r"[-\s]") for w in _ORDINAL_DAYS), key=len, reverse=True)) + r")"
    r"\s+(?:of\s+)?(january|february|march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE)
# (Not a fraction inside a sum: "38.6 × 9/5 + 32".)
_NUM_DATE = re.compile(r"(?<![\d/])(?<![×*÷·]\s)(?<![×*÷·])(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?(?![\d/])"
                       r"(?!\s?[+×*÷=−-]\s?\d)")
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7,
    "agosto": 8, "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
    # As notes and calendars write them ("Tue 22 Dec", "5 ene"); read only next to a day's number.
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10,
    "nov": 11, "dec": 12, "ene": 1, "abr": 4, "ago": 8, "dic": 12,
}
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH = re.compile(rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?({_MONTH_NAMES})\b", re.IGNORECASE)
# "Dec 21:15" is a day's time, not the 21st.
_MONTH_DAY = re.compile(rf"\b({_MONTH_NAMES})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?!\d|[:h]\d)", re.IGNORECASE)
# A month of a year: "marzo de 2027", "March 2027", "in March of 2027" (a date within it too).
_MONTH_YEAR = re.compile(rf"\b({_MONTH_NAMES})\s*,?\s+(?:de\s+|del\s+|of\s+)?(\d{{4}})(?!\d)", re.IGNORECASE)
_NUM_MONTH_YEAR = re.compile(r"(?<![\d/.-])(\d{1,2})[/-](\d{4})(?![\d/.-])")  # "03/2027" on a card or a label
_WEEKDAYS = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6,
    "lunes": 0, "martes": 1, "miércoles": 2, "miercoles": 2, "jueves": 3, "viernes": 4, "sábado": 5,
    "sabado": 5, "domingo": 6,
}
_WEEKDAY_NAMES = "|".join(sorted(_WEEKDAYS, key=len, reverse=True))
# Spanish weekdays cut short on a rota or a card ("Sáb 8", "Lun 10"): weekdays only beside a date ("mar" is
# also March, so it stays out).
_DATED_WEEKDAYS = _WEEKDAYS | {"lun": 0, "mié": 2, "mie": 2, "jue": 3, "vie": 4, "sáb": 5, "sab": 5, "dom": 6}
_DATED_WEEKDAY_NAMES = "|".join(sorted(_DATED_WEEKDAYS, key=len, reverse=True))
# A weekday said with the date it falls on: "martes 10 de marzo", "Sunday, 14 June 2027", "Wed 2027-03-10",
# "Friday the 21st", "el martes 10". (A day alone is not a time: "Tuesday 10:30" names no day 10.)
_WEEKDAY_DATE = re.compile(
    rf"\b({_DATED_WEEKDAY_NAMES})\b\.?,?\s+(?:the\s+|el\s+|d[íi]a\s+)?"
    rf"(?:(\d{{4}})-(\d{{2}})-(\d{{2}})(?!\d)"
    rf"|(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+(?:de\s+|of\s+)?({_MONTH_NAMES})\b(?:,?\s+(?:de\s+)?(\d{{4}})(?!\d))?"
    rf"|(?![:.h]?\d|\s*(?:am|pm|a\.\s?m|p\.\s?m|h|hrs?|hours?|horas?|min)\b))"
    rf"|({_MONTH_NAMES})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?!\d)(?:,?\s+(\d{{4}})(?!\d))?)",
    re.IGNORECASE,
)
# A date with its year, which fixes its weekday: "2027-03-10", "10 de marzo de 2027", "March 10, 2027".
_YEAR_DATE = re.compile(
    rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?({_MONTH_NAMES})\b,?\s+(?:de\s+)?(\d{{4}})(?!\d)"
    rf"|\b({_MONTH_NAMES})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)",
    re.IGNORECASE,
)
# Days said relative to today. "Mañana" is also "morning": "por la mañana", "de la mañana", "esta mañana".
_RELATIVE_DAY = re.compile(
    r"\b(?:(?P<after>pasado\s+ma[ñn]ana|the\s+day\s+after\s+tomorrow)|(?P<before>anteayer|antes\s+de\s+ayer|"
    r"the\s+day\s+before\s+yesterday)|(?P<tomorrow>tomorrow|(?<!\bla\s)(?<!\buna\s)(?<!\besta\s)(?<!\bcada\s)"
    r"(?<!\bmedia\s)(?<!\btoda\s)(?<!\bsu\s)(?<!\btu\s)(?<!\bmi\s)ma[ñn]ana)|(?P<yesterday>yesterday|ayer))\b",
    re.IGNORECASE,
)
# Bounded parts and an anchored start keep this linear on long runs of word characters.
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
_SPOKEN_EMAIL = re.compile(
    r"(?<![\w.+-])([\w.+-]{1,64})\s+(?:at|arroba|[(\[{](?:at|arroba)[)\]}])\s+([\w-]{1,63})"
    r"((?:\s+(?:dot|punto|[(\[{](?:dot|punto)[)\]}])\s+[\w-]{1,63}){1,4})",
    re.IGNORECASE,
)
# "ana(at)example.org", "ana [at] example.org", "ana arroba example.org": the @ written out, the domain as it is.
_BRACKETED_EMAIL = re.compile(
    r"(?<![\w.+-])([\w.+-]{1,64})\s*(?:\(at\)|\[at\]|\{at\}|\s+arroba\s+)\s*([\w-]{1,63}(?:\.[\w-]{1,63}){1,8})",
    re.IGNORECASE)
# A link as a client opens it: with a scheme, or scheme-relative ("//host/…", which Markdown
# renderers resolve against https). A bare "//" must be followed by a dotted host, so "a // b" in
# prose is not one; any scheme ("ftp://") leaves a "//host" that matches.
_URL = re.compile(r"(?:\bhttps?:|(?<![\w/]))//(?=[\w-]{1,63}\.[\w-])[^\s)>\]\"'<]{1,2000}", re.IGNORECASE)
_SCHEME = re.compile(r"^[^/]{0,10}//")
_TLDS = ("com|org|net|es|io|dev|app|co|uk|de|fr|it|pt|eu|info|biz|me|ai|ly|us|ca|mx|ar|cl|cat|gal|"
         "edu|gov|example|test|online|site|shop|store|tv|xyz|tech|cloud")
_DOMAIN = re.compile(
    rf"(?<![\w.@/-])((?:[a-z0-9](?:[a-z0-9-]{{0,61}}[a-z0-9])?\.){{1,6}}(?:{_TLDS}))\b"
    r"(/[^\s)>\]\"'<]{0,2000})?",
    re.IGNORECASE,
)
# A bare domain with a path or a query is a link for any real top-level domain ("evil.ru/c?d=…"):
# clients open it. The public suffix list (`tld`) says which are real, so "Node.js/React" is
# prose, as it is to Telegram and Element. Without a path only the listed TLDs count, so
# "main.py" or "config.yaml" in prose are not links.
_PATHED_DOMAIN = re.compile(
    r"(?<![\w.@/-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,6}[a-z]{2,24})"
    r"(/[^\s)>\]\"'<]{0,2000}|[?#][^\s)>\]\"'<]{1,2000})",
    re.IGNORECASE,
)
# "www." makes a link of any domain, path or not ("www.evil-site.ru"): clients open it.
_WWW_DOMAIN = re.compile(
    r"(?<![\w.@/-])(www\d{0,3}\.(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,6}[a-z]{2,24})\b"
    r"(/[^\s)>\]\"'<]{0,2000})?",
    re.IGNORECASE,
)
# Markdown backslash escapes ("http\\://") and characters no client shows, which split a
# detail for the check but not for the reader ("20:\u200b45").
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")


_LISTED_TLDS = frozenset(_TLDS.split("|"))  # also the reserved ones ("example", "test") the list leaves out
get_tld("example.com", fix_protocol=True, fail_silently=True)  # parses the list now (~20 ms), not in a turn


def _real_tld(domain: str) -> bool:
    """Whether the domain ends in a top-level domain clients make links of."""
    return (domain.rsplit(".", 1)[-1] in _LISTED_TLDS
            or get_tld(domain, fix_protocol=True, fail_silently=True) is not None)


def as_shown(text: str) -> str:
    """`text` as the owner's client shows and opens it: escapes and HTML entities decoded.

    A link written "http&#58;//…" or "http\\://…" is opened as "http://…" by Telegram and
    Element, so details are looked for in the decoded text, not in what the model typed.
    """
    if "\\" in text:
        text = _MARKDOWN_ESCAPE.sub(r"\1", text)
    if "&" in text:
        text = html.unescape(text)
    return _INVISIBLE.sub("", text)


_SPOKEN_DOMAIN = re.compile(
    rf"(?<![\w-])([a-z0-9][\w-]{{0,62}})((?:\s+(?:dot|punto)\s+[a-z0-9][\w-]{{0,62}}){{0,4}})"
    rf"\s+(?:dot|punto)\s+({_TLDS})\b",
    re.IGNORECASE,
)
_UNIT = (
    # ("38p" is pence, "48.5c" cents; "5p.m." is a time.)
    r"°\s?[CFcf]?|º\s?[CFcf]?|(?-i:[CFc])|(?-i:p)(?!\.?m\b)|%|€|\$|£|euros?|eur|dollars?|d[oó]lares|libras|pounds|usd|gbp|"
    r"km/h|kms?|kil[oó]metros?|kilomet(?:er|re)s?|miles|millas|metros|met(?:er|re)s|m|cm|mm|kg|kilos?|"
    r"g|gramos|grams|l|litros|lit(?:er|re)s|ml|mph|kcal|calor[ií]as|calories|grados|degrees|"
    # ("Sixty-five tonnes", "veintidós nudos": a load, a wind.)
    r"tonnes?|tons?|toneladas?|(?-i:t)(?!-)|nudos|knots?|kn|psi|rpm|kw|kwh|"
    # (Money said fondly counts as much: "62 pesitos", "20 euritos", "5 dolaritos".)
    r"bucks|quid|pavos|pelas|grand|pesos?|pesitos|euritos|eurillos|d[oó]laritos|d[oó]larcitos|pavitos|solcitos|"
    r"soles|bol[íi]vares|quetzales|colones|reales|lempiras|c[óo]rdobas|"
    r"guaran[íi]es|mxn|ars|clp|cop|uyu|lucas|cents?|c[ée]ntimos?|centavos?|pence|"
    r"por\s+ciento|percent|h|hrs?|hours?|horas?|mins?|minutes?|minutos?|segundos|seconds|secs?|"
    r"d[ií]as|days?|weeks?|semanas?|meses|months?|años|years?"
)
# Thousands grouped and a decimal part: "1.253,60", "1,253.60".
_GROUPED = r"\d{1,3}(?:\.\d{3})+,\d{1,2}(?!\d)|\d{1,3}(?:,\d{3})+\.\d{1,2}(?!\d)"
_THOUSANDS = re.compile(r"(?<![\w.,])(\d{1,4})\s?(?:grand|k|mil|lucas|thousand)\b", re.IGNORECASE)
_GLUED_FIGURE = re.compile(r"(?<![\w.,])(\d{1,4})(?:s|k|x|t)\b", re.IGNORECASE)  # ("65t": tonnes)
_AMOUNT = re.compile(
    # (Prefixed as Latin America writes them: "Q1,450" quetzales, "S/ 45" soles, "R$ 35", "Bs 120", "RD$ 500";
    # any dollar told apart by its country's letters, "A$14,500", "NZ$ 90"; the signs of rupees, naira, colones…)
    rf"(?<![\w.,])([€$£₹₦₡₲₱¥₩₺₽]\s?|(?-i:Q|S/|Bs\.?|Rs\.?|[A-Z]{{1,3}}\$)\s?(?=\d{{1,3}}[.,]\d|\d{{2}}))?({_GROUPED}|\d{{1,9}}(?:[.,]\d{{1,3}})?)(?:(?:\s?|-)({_UNIT}))?(?![\w])",
    re.IGNORECASE,
)
_EN_UNITS = {**_EN_NUMBERS, "zero": 0, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
             "seventeen": 17, "eighteen": 18, "nineteen": 19}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90}
_ES_UNITS = {**_ES_NUMBERS, "un": 1, "cero": 0, "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16,
             "dieciseis": 16, "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20, "veintiuno": 21,
             "veintiún": 21, "veintidós": 22, "veintidos": 22, "veintitrés": 23, "veintitres": 23,
             "veinticuatro": 24, "veinticinco": 25, "veintiséis": 26, "veintiseis": 26, "veintisiete": 27,
             "veintiocho": 28, "veintinueve": 29}
_ES_TENS = {"treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80,
            "noventa": 90}
# Before a noun "uno" loses its ending: "treinta y un grados".
_ES_AFTER_Y = {**_ES_NUMBERS, "un": 1}


# "one", "un", "una" are as often articles as numbers ("one day", "un rato"): left as words.
_COUNTED = {w for w, n in (*_EN_UNITS.items(), *_ES_UNITS.items()) if n > 1}


def _alternatives(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


# "twenty-three", "forty two", "treinta y cinco", "quince": numbers spelled out, so that
# "twenty-three kilometres" is an amount like "23 km".
_SPELLED = re.compile(
    rf"\b(?:({_alternatives(_EN_TENS)})(?:[-\s]({_alternatives(_EN_NUMBERS)}))?"
    rf"|({_alternatives(_ES_TENS)})(?:\s+y\s+({_alternatives(_ES_AFTER_Y)}))?"
    rf"|({_alternatives(_COUNTED)}))\b",
    re.IGNORECASE,
)


_EN_HUNDREDS = {"a": 1, "one": 1, **{w: n for w, n in _EN_NUMBERS.items() if 1 < n < 10}}
_ES_HUNDREDS = {"cien": 100, "ciento": 100, "doscientos": 200, "doscientas": 200, "trescientos": 300,
                "trescientas": 300, "cuatrocientos": 400, "cuatrocientas": 400, "quinientos": 500,
                "quinientas": 500, "seiscientos": 600, "seiscientas": 600, "setecientos": 700,
                "setecientas": 700, "ochocientos": 800, "ochocientas": 800, "novecientos": 900,
                "novecientas": 900}
_EN_BELOW_100 = rf"(?:{_alternatives(_EN_TENS)})(?:[-\s](?:{_alternatives(_EN_NUMBERS)}))?|{_alternatives(_EN_UNITS)}"
_ES_BELOW_100 = rf"(?:{_alternatives(_ES_TENS)})(?:\s+y\s+(?:{_alternatives(_ES_AFTER_Y)}))?|{_alternatives(_ES_UNITS)}"
# "two hundred and twenty-one", "a hundred and forty", "doscientos veintiuno", "ciento cinco"
_SPELLED_HUNDREDS = re.compile(
    rf"\b(?:({_alternatives(_EN_HUNDREDS)})(?:\s+hundred(?:\s+(?:and\s+)?({_EN_BELOW_100}))?"
    # read out as two parts: "one-twenty", "two twenty-one" (a price, a street number)
    rf"|[-\s](?=(?:{_alternatives(_EN_TENS)})\b)({_EN_BELOW_100}))"
    rf"|({_alternatives(_ES_HUNDREDS)})(?:\s+({_ES_BELOW_100}))?)\b",
    re.IGNORECASE,
)


# A price read out in two parts, dollars then cents, before what it is per: "thirty-eight fifty a gallon",
# "twelve ninety-nine each".
_SPOKEN_PRICE = re.compile(
    rf"\b({_EN_BELOW_100})[-\s]((?:{_alternatives(_EN_TENS)})(?:[-\s](?:{_alternatives(_EN_NUMBERS)}))?)"
    r"(?=\s+(?:(?:a|an|per|the)\s+\w|each\b|apiece\b))",
    re.IGNORECASE)


def _below_100(words: str) -> int:
    return int(_digits_for_words(words).replace(" ", "") or 0)


def _digits_for_words(text: str, below_100: bool = True) -> str:
    """`text` with spelled-out numbers up to 999 (or only those from 100) written as digits."""
    def hundreds(m: re.Match[str]) -> str:
        if m.group(1):
            rest = m.group(2) or m.group(3)
            return str(100 * _EN_HUNDREDS[m.group(1).lower()] + (_below_100(rest) if rest else 0))
        return str(_ES_HUNDREDS[m.group(4).lower()] + (_below_100(m.group(5)) if m.group(5) else 0))

    def value(m: re.Match[str]) -> str:
        if m.group(1):
            return str(_EN_TENS[m.group(1).lower()] + (_EN_NUMBERS[m.group(2).lower()] if m.group(2) else 0))
        if m.group(3):
            return str(_ES_TENS[m.group(3).lower()] + (_ES_AFTER_Y[m.group(4).lower()] if m.group(4) else 0))
        word = m.group(5).lower()
        return str(_EN_UNITS.get(word, _ES_UNITS.get(word, 0)))
    if below_100:
        # (A decimal comma: "22.40" would read as a time.)
        text = _SPOKEN_PRICE.sub(lambda m: f"{_below_100(m.group(1))},{_below_100(m.group(2)):02d}", text)
    text = _SPELLED_HUNDREDS.sub(hundreds, text)
    return _SPELLED.sub(value, text) if below_100 else text


_DIGIT_WORDS = {"zero": "0", "oh": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
                "six": "6", "seven": "7", "eight": "8", "nine": "9", "cero": "0", "uno": "1", "dos": "2",
                "tres": "3", "cuatro": "4", "cinco": "5", "seis": "6", "siete": "7", "ocho": "8", "nueve": "9"}
_DIGIT_TOKEN = rf"(?:(?:double|doble)\s+)?(?:{_alternatives(_DIGIT_WORDS)}|\d{{1,4}})"
# A phone number read out digit by digit: "six one two, four four, nine oh one seven" (runs of
# bare digits are `_PHONE`'s).
_SPOKEN_DIGITS = re.compile(
    rf"\b(?:(?:double|doble)\s+)?(?:{_alternatives(_DIGIT_WORDS)})(?:[\s,.-]{{1,3}}{_DIGIT_TOKEN}){{5,20}}\b",
    re.IGNORECASE,
)


def _spoken_phone(run: str) -> str:
    digits = []
    for token in re.findall(r"(?:(?:double|doble)\s+)?[^\W_]+", run, re.IGNORECASE):
        parts = token.lower().split()
        digit = _DIGIT_WORDS.get(parts[-1], parts[-1] if parts[-1].isdigit() else "")
        digits.append(digit * (2 if len(parts) == 2 else 1))
    return "".join(digits)


# A code read out letter by letter: "H X four, seven seven K Q" (capital letters and digits, at least
# two of each, five or more in a row).
_SPOKEN_CODE_TOKEN = rf"(?:[A-Z]|{_DIGIT_TOKEN})"
_SPOKEN_CODE = re.compile(rf"(?<![\w-]){_SPOKEN_CODE_TOKEN}(?:[\s,.-]{{1,3}}{_SPOKEN_CODE_TOKEN}){{4,20}}(?![\w-])")


def _spoken_codes(text: str) -> set[str]:
    codes: set[str] = set()
    for m in _each(_SPOKEN_CODE, text):
        tokens = re.findall(r"(?:(?:double|doble)\s+)?[^\W_]+", m.group(0), re.IGNORECASE)
        letters = [t for t in tokens if len(t) == 1 and t.isalpha() and t.isupper()]
        if len(letters) < 2 or len(tokens) - len(letters) < 2:
            continue
        codes.add("".join(t if t in letters else _spoken_phone(t) for t in tokens).upper())
    return codes


_STREET_EN = (r"(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Drive|Dr|Way|Place|Pl|Square|Sq|Court|Ct|"
              r"Terrace|Crescent|Close|Row|Hill|Parkway|Highway|street|avenue|road|lane|boulevard|drive|square)")
_ES_STREET = (r"(?i:calle|c/|avenida|avda\.?|av\.|plaza|pza\.?|paseo|camino|carretera|ronda|traves[íi]a|"
              r"glorieta|rúa|rua)")
# The number of a street address, either order: "221 Baker Street", "Baker St. 221",
# "calle Mayor, 12", "Avenida de la Paz nº 7". Names are capitalised words, at most four.
_ADDRESS = re.compile(
    rf"(?<![\w.,])(\d{{1,5}}(?:\s\d{{1,3}})?)[a-zA-Z]?,?\s+(?i:on\s+|de\s+|en\s+)?(?:[A-Z][\w'.-]{{0,30}}\s+){{1,4}}"
    rf"{_STREET_EN}\b"
    rf"|\b{_STREET_EN}\.?,?\s+(?i:n[º°o]\.?\s*|number\s+)?(\d{{1,5}})\b"
    rf"|\b{_ES_STREET}\s+(?i:(?:de|del|la|las|los|el)\s+){{0,2}}(?:[\w'.-]{{1,30}}\s+){{0,3}}?[\w'.-]{{1,30}},?\s*"
    rf"(?i:n[º°o]\.?\s*|n[úu]mero\s+)?(\d{{1,5}})\b"
    rf"|\b(?i:number|n[úu]mero|n[º°o]\.)\s*(\d{{1,5}})\s+(?i:on|of|in|de|en)\s+(?i:(?:the|la|el)\s+)?[A-Z]",
)


# A number said on its own is a detail too, from 10 up: below that they are mostly counts
# ("2 options"). Ordinals ("the 14th", "el 3º") included. Years are left to dates.
_FIGURE = re.compile(rf"(?<![\w.,:/@#-])({_GROUPED}|\d{{1,9}}(?:[.,]\d{{1,3}})?)(?:st|nd|rd|th|º|ª|°)?(?![\w/@])",
                     re.IGNORECASE)


# A place told by its number is a detail however small the number: "andén 7", "gate 3", "planta 2".
_PLACES = (r"and[ée]n|v[íi]a|platform|track|gate|puerta|terminal|planta|floor|piso|room|habitaci[óo]n|sala|aula|"
           r"seat|asiento|fila|row|taquilla|locker|box|box[ée]s|consulta|ventanilla|counter|mostrador")
_NUMBERED_PLACE = re.compile(
    rf"\b(?:{_PLACES})\s+(?:n[úu]mero\s+|number\s+|n[º°]\s*|no\.\s*|#\s*)?(\d{{1,4}})(?!\w|[/@.,:]\d)",
    re.IGNORECASE,
)


def _spelled_day(m: re.Match[str]) -> int:
    if m.group(1):
        return _EN_ORDINALS[re.sub(r"[-\s]+", "-", m.group(1).lower())]
    return _ES_DAYS[re.sub(r"\s+", " ", m.group(2).lower())]


def _is_figure(value: str) -> bool:
    whole = value.split(".", 1)[0]
    if not whole.isdigit() or int(whole) < 10:
        return False
    return not (value == whole and len(whole) == 4 and 1900 <= int(whole) <= 2100)


def _blank(text: str, patterns: Iterable[re.Pattern[str]]) -> str:
    """`text` with what `patterns` match blanked out (times, dates, links… are judged on their own)."""
    for pattern in patterns:
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


# (An area code may come in brackets: "(806) 555-0143", "+44 (0)20 7946 0321".)
_PHONE = re.compile(r"(?<![\w+/.:-])\+?\d(?:[\s.-]?\d){7,14}(?![\w/:])"
                    r"|(?<![\w+/.:-])(?:\+?\d{1,3}\s?)?\(\d{1,5}\)\s?\d(?:[\s.-]?\d){4,11}(?![\w/:])")


# "sesenta y cuatro euros con veinte", "sixty-eight euros twenty": the cents said after the unit.
_CENTS = re.compile(
    r"(?<![\w.,])(\d{1,6})\s?(euros?|d[oó]lares|dollars?|pounds?|libras)\s+(?:(?:con|and|y)\s+)?(\d{2})\b"
    r"(?:\s*(?:c[ée]ntimos|cents?|pence|p)\b)?(?!\s*[%°€$£]|[.,]\d)",
    re.IGNORECASE,
)
# "Forty-eight and a half cent", "dos euros y medio": half a unit of money, written as a decimal.
_AND_A_HALF = re.compile(
    r"(?<![\w.,])(\d{1,6})(?: and a half (cents?|pence|euros?|dollars?|pounds?|quid|bucks|grand|k)\b"
    r"| (euros?|d[oó]lares|pesos|soles|c[ée]ntimos) y medio\b)", re.IGNORECASE)
_MONEY_WORD = re.compile(r"euro|d[oó]lar|dollar|pound|libra|peso", re.IGNORECASE)
# "treinta y cuatro con noventa", "diez con cincuenta": units and cents said with no currency.
_CON_CENTS = re.compile(r"(?<![\w.,])(\d{1,6})\s+con\s+(\d{2})(?![\w.,])", re.IGNORECASE)
# Spans of time, for arithmetic the answer shows ("two hours before 07:40 is 05:40"): read on the
# text with numbers in words written as digits.
_SPAN = re.compile(
    r"\b(?P<half_hour>an?\s+hour\s+and\s+a\s+half|(?:una\s+)?hora\s+y\s+media)\b"
    r"|(?<![\w.,])(?P<n_half>\d{1,3})\s+(?:and\s+a\s+half\s+hours?|hours?\s+and\s+a\s+half|horas?\s+y\s+media)\b"
    r"|(?<![\w.,:])(?P<hm_h>\d{1,3})\s?(?:h|hrs?|hours?|horas?)\s*(?:and\s+|y\s+)?(?P<hm_m>\d{1,2})\s?"
    r"(?:min|mins|minutes?|minutos?)\b"
    r"|\b(?P<half>half\s+an\s+hour|media\s+hora)\b"
    r"|\b(?P<quarter>(?:a\s+)?quarter\s+of\s+an\s+hour|(?:un\s+)?cuarto\s+de\s+hora)\b"
    r"|\b(?:an?|one|una?)\s+(?P<one>hour|hora|day|d[ií]a|week|semana)\b"
    r"|(?<![\w.,])(?P<n>\d{1,4})(?:\s?|-)(?P<unit>h|hrs?|hours?|horas?|min|mins|minutes?|minutos?|d[ií]as?|days?|weeks?|"
    r"semanas?)\b",
    re.IGNORECASE,
)
# The first of two spans said with one unit: "15 or 30 minutes", "20 to 30 minutes", "2-3 horas".
_SPAN_RANGE = re.compile(r"(?<![\w.,])(\d{1,3})\s*(?:or|o|u|to|a|and|y|-|–)\s*\d{1,4}\s?"
                         r"(h|hrs?|hours?|horas?|min|mins|minutes?|minutos?|days?|d[íi]as?|weeks?|semanas?)\b",
                         re.IGNORECASE)
_MINUTES_PER = {"h": 60, "hr": 60, "hrs": 60, "hour": 60, "hours": 60, "hora": 60, "horas": 60}
_DAYS_PER = {"day": 1, "days": 1, "dia": 1, "día": 1, "dias": 1, "días": 1, "week": 7, "weeks": 7, "semana": 7,
             "semanas": 7}
MAX_SPANS = 6
"""Spans of one sentence combined in a derivation (every subset is tried: bounded work)."""
MAX_OPERANDS = 12
"""Numbers of one sentence tried pairwise as the operands of a sum it shows."""
MAX_DERIVED = 20
"""A sentence with more unsourced details than this is not arithmetic: none is tried as derived."""
MAX_STEPS = 4
"""Steps of a chain of arithmetic in one sentence that are followed."""


def _spans(spelled: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Spans of time and of days, and the spans of "n and a half hours" (a number no amount holds)."""
    minutes: list[int] = []
    days: list[int] = []
    halves: list[int] = []
    for m in _each(_SPAN, spelled):
        if m.group("half_hour"):
            minutes.append(90)
        elif m.group("n_half"):
            minutes.append(int(m.group("n_half")) * 60 + 30)
            halves.append(minutes[-1])
        elif m.group("hm_h"):
            minutes.append(int(m.group("hm_h")) * 60 + int(m.group("hm_m")))
        elif m.group("half"):
            minutes.append(30)
        elif m.group("quarter"):
            minutes.append(15)
        else:
            unit = (m.group("one") or m.group("unit")).lower()
            count = int(m.group("n")) if m.group("n") else 1
            if unit in _DAYS_PER:
                days.append(count * _DAYS_PER[unit])
            else:
                minutes.append(count * _MINUTES_PER.get(unit, 1))
    for m in _each(_SPAN_RANGE, spelled):  # "45–75 min", "entre 45 y 60 minutos", "2–3 weeks": the first end
        unit = m.group(2).lower()
        if unit in _DAYS_PER:
            days.append(int(m.group(1)) * _DAYS_PER[unit])
        else:
            minutes.append(int(m.group(1)) * _MINUTES_PER.get(unit, 1))
    return tuple(minutes[:MAX_SPANS]), tuple(days[:MAX_SPANS]), tuple(halves[:MAX_SPANS])


_FIGURE_FREE = (_URL, _EMAIL, _ISO_DATE, _TIME, _AMPM, _NUM_DATE, _DAY_MONTH, _MONTH_DAY, _PHONE, _SAID_HOUR,
                _ADDRESS)


@dataclass(frozen=True)
class Details:
    times: frozenset[tuple[int, int]]
    dates: frozenset[tuple[int, int]]
    emails: frozenset[str]
    urls: frozenset[str]  # host + path, lower case, no scheme
    domains: frozenset[str]
    amounts: frozenset[str]  # normalised numbers that came with a unit or currency
    phones: frozenset[str]  # digits only
    numbers: frozenset[str]  # every normalised number (sources only)
    hours: frozenset[int] = frozenset()  # hours said without minutes ("at 9"), 0-23
    addresses: frozenset[str] = frozenset()  # house numbers of street addresses
    figures: frozenset[str] = frozenset()  # other numbers from 10 up ("a high of 24", "the 14th", "vía 12")
    minutes: tuple[int, ...] = ()  # spans of time said ("two hours", "25 minutos"), in minutes
    days: tuple[int, ...] = ()  # spans of days said ("six weeks", "diez días"), in days
    operation: bool = False  # it says it adds, takes away or totals ("plus", "en total", "+")
    total: bool = False  # it says it totals ("in total", "suman")
    change: str = ""  # "down" (a discount, a saving) or "up" (a rise): the base of a percentage of change
    converts: bool = False  # it names two units of one quantity ("°C" and "°F", "km" and "miles")
    # (sources only) the user asks for a calculation ("15% of 80", "I pay half"): an answer
    # may then give a number worked out from the user's without saying how
    asked_calculation: bool = False
    # (sources only) the user asks which number something has ("which platform?", "¿qué andén?"):
    # then even a small number, in digits or words, is the answer's detail
    asked_number: bool = False
    spoken_numbers: frozenset[str] = frozenset()  # every number, small ones and words included
    # (sources only) what the user's words and the clock gave: bases and operands of arithmetic
    given_times: frozenset[tuple[int, int]] = frozenset()
    given_dates: frozenset[tuple[int, int]] = frozenset()
    given_numbers: frozenset[str] = frozenset()
    month_days: frozenset[int] = frozenset()  # days of a month said without the month ("the 3rd")
    codes: frozenset[str] = frozenset()  # booking references, passport or flight numbers: upper case, no hyphens
    # (weekday 0-6, year or 0, month or 0, day): a weekday said with its date ("martes 10 de marzo")
    weekdays: frozenset[tuple[int, int, int, int]] = frozenset()
    full_dates: frozenset[tuple[int, int, int]] = frozenset()  # dates said with their year
    # (year, month) of a month said with its year and no day ("hasta marzo de 2027"); for sources,
    # every month of a year they give, and (0, month) for the months of their dates without a year
    month_years: frozenset[tuple[int, int]] = frozenset()
    relative_days: frozenset[int] = frozenset()  # "tomorrow" 1, "ayer" -1, "pasado mañana" 2
    today: date | None = None  # (sources only) the clock's date
    clock: tuple[int, int] | None = None  # (sources only) the clock's time, which anchors no advice
    # Weekdays named without a date ("on Friday at 9"); for sources, every weekday they name or that a
    # date they give falls on
    lone_weekdays: frozenset[int] = frozenset()
    # Weekdays said as the next one ("next Thursday"); for sources, the weekdays they name or date
    # (not the clock's: "next Thursday" is not today)
    next_weekdays: frozenset[int] = frozenset()
    measures: frozenset[str] = frozenset()  # amounts of a physical quantity or a span ("100 °C", "42 km")
    short_codes: frozenset[str] = frozenset()  # "B14", "4C": too short to be a code unless one was asked
    # (sources only) the user asks a question of general knowledge ("at what temperature does water
    # boil?"): measures and figures of a textbook fact may then be given with no tool
    general: bool = False
    # (sources only) the names such a question asks about ("la Tierra", "New York"): in the answer they
    # are its topic, not a tie to someone's own world
    general_names: frozenset[str] = frozenset()
    # (sources only) the user asks what something costs: a price said in words is the answer's detail
    asked_price: bool = False
    # (sources only) the user asks when something of theirs is: a weekday or a span is the answer
    asked_when: bool = False
    # (sources only) the user asks how long something takes or lasts: a span is then the answer's detail
    asked_duration: bool = False
    # (sources only) the user asks the time somewhere else ("si en Madrid son las 12, qué hora es en Canarias?")
    asked_zone: bool = False
    # (sources only) the user asks how many or how much of something they have, have left or owe
    # ("how many vacation days have I got left?"): a count or a span is then a fact of their world
    asked_own_amount: bool = False
    asked_record: bool = False  # what a record of theirs says ("what did the scan say?")
    # (sources only) the user asks what to do ("what else can I do?", "¿qué me recomiendas?"): with
    # nothing looked up, the spans and counts of the answer are its suggestions ("in a week or ten days")
    asked_advice: bool = False
    # (sources only) the user asks for a name; `source_text` is then every source lower-cased, to find it in
    asked_name: bool = False
    source_text: str = ""
    # Every word with letters and digits ("Sunflower-88", "casa2024"), however it is cased
    coded_words: frozenset[str] = frozenset()
    # (sources only) the user asks for a password, a code or a reference: then any such word in the
    # answer is the code asked for, not a name in passing
    asked_code: bool = False
    # (sources only) the user asks who or where about their own things ("who's coming?", "¿dónde
    # comemos?"), or what a note of theirs says: the names in the answer are then what it gives
    asked_names: bool = False
    # (sources only) the user asks how many; `listed` is then the most things the tool results list
    # (items of a list, rows of a table, else lines), -1 when nothing was looked up
    asked_count: bool = False
    listed: int = -1
    # (sources only) after a lookup, the user asks what they have ("what reminders have I got?", "¿qué
    # tengo mañana?"): the answer's entries and the weekdays it gives them are what the lookup gave
    asked_listing: bool = False
    looked_up: bool = False  # (sources only) a lookup of this turn gave something
    # (sources only) the words of the general questions asked beside a particular one or a request ("what's
    # in my trip note, and how long is the drive from Madrid to Valencia?"): a sentence that takes one up
    # may give textbook figures, as an answer to a general question does
    general_part_words: frozenset[str] = frozenset()
    # (sources only) the totals and means of the lists this turn's lookups gave, one number per entry
    list_totals: frozenset[float] = frozenset()
    # Spans said as "two and a half hours", "dos horas y media": a number with no unit after it, so no
    # amount holds them; in minutes
    half_hours: tuple[int, ...] = ()
    # Numbers written like a time with a dot ("8.05"), as numbers: a sum may be one
    dotted: frozenset[str] = frozenset()
    percents: frozenset[str] = frozenset()  # numbers said as a percentage ("15%", "el 15 por ciento")
    approximate: bool = False  # the sentence rounds its figures: "about 40%", "≈ 333", "unos 12 €"
    constants: frozenset[str] = frozenset()  # how many of a unit the sentence's words make another: 12 a year


# Booking references, passport, flight and order numbers: letters and digits in one word
# ("QX7T2L", "PAA448812", "IB3170", "LM-40-1193"), or a word with a digit right after a word that
# names a code ("ref mem-2291", "gate B22", "ext. 4471", "#1193"), or with a "#" inside ("CoWork#2291").
# Compared without case, hyphens, slashes or "#". A word in lower case with no such label is a name
# ("list2-f05", "e5"), not a code.
# ("maple_4471": an underscore joins a password's parts as a hyphen does.)
_CODE = re.compile(r"(?<![\w/-])[A-Za-z0-9]{1,24}(?:[-/#_][A-Za-z0-9]{1,24}){0,5}(?![\w-]|/\w)")
_CODE_LABEL = re.compile(
    r"(?:\b(?:ref(?:erence)?|booking|reservation|reserva|localizador|locator|confirmation|confirmaci[óo]n|"
    r"c[óo]digo|code|pin|order|pedido|flight|vuelo|seat|asiento|gate|puerta|ext|extension|extensi[óo]n|ticket|"
    r"billete|tracking|seguimiento|passport|pasaporte|password|contrase[ñn]a|clave|n[úu]mero|number|id|wi-?fi|ssid)\b\.?(?:\s*(?:n[º°]|no\.|number|"
    r"n[úu]mero|#))?(?:\s+(?:is|was|es|era))?\s*[:#]?\s*|(?<![\w#])#|\bn[º°]\s*)$",
    re.IGNORECASE,
)
# What looks like a code but is a quantity, a time or an ordinal: "10KM", "5GB", "9AM", "3RD".
_UNIT_SHAPED = re.compile(r"^\d+(?:AM|PM|H|HRS?|MIN|KM|KMH|KG|MB|GB|TB|KB|MM|CM|ML|KW|KWH|MP|FPS|HZ|GHZ|MHZ|"
                          r"ST|ND|RD|TH|X|K|G|D)$")
_CODE_WITH_DIGIT = re.compile(r"(?<![\w/-])(?=[A-Za-z0-9/#_-]{0,160}\d)" + _CODE.pattern[len(r"(?<![\w/-])"):])
_DIGIT_BY_DIGIT = re.compile(r"(?<![\d:.,/-])\d(?:[-\s.·]\d){2,11}(?![\d:,/-]|\.\d)")
_CODE_PAIR = re.compile(r"(?<![\w-])([A-Za-z]{1,4})\s([0-9]{2,10})(?![\w-])")


def _compact(token: str) -> str:
    return re.sub(r"[-/#_]", "", token).upper()


MIN_BARE_ACCOUNT_DIGITS = 12
"""A run of digits this long is an account, card or document number whatever precedes it (phones are shorter)."""


# A currency written as letters before the figure (see `_AMOUNT`): an amount, not a code.
_MONEY_PREFIXED = re.compile(r"(?:Q|Bs|Rs)\d{2,9}")


def _said_codes(text: str) -> set[str]:
    """The codes `text` states (see `_CODE`)."""
    codes: set[str] = set()
    for m in _each(_CODE, text):
        token = m.group(0)
        compact = _compact(token)
        letters = [c for c in token if c.isalpha()]
        if not any(c.isdigit() for c in compact) or (not letters and len(compact) < 3):
            continue
        if _MONEY_PREFIXED.fullmatch(token):
            continue  # "Q350", "Bs120": quetzales, bolivianos, rupees, judged as amounts
        labelled = "#" in token or bool(_CODE_LABEL.search(text[max(0, m.start() - 30):m.start()]))
        if labelled:
            if letters or len(compact) >= 3:
                codes.add(compact)
        elif letters and all(c.isupper() for c in letters) and len(compact) >= 4 \
                and not _UNIT_SHAPED.match(compact):
            codes.add(compact)
        elif len(compact) >= 6 and _CAPITAL_INSIDE.search(token):
            codes.add(compact)  # "Office-2024-Blue", "iPhone15x": a password or an identifier, not a word
        elif _PATH_TOKEN.match(token) and len(compact) >= 5:
            codes.add(compact)  # "tours/8817": a link's path, said without its site (not "60/70-hour")
        elif not letters and len(compact) >= MIN_BARE_ACCOUNT_DIGITS:
            codes.add(compact)  # "El CBU de Juli es 0170099220000067797370": an account or card number
    return codes


# A link's path: a word, a slash, and more with a digit in it ("tours/8817", "skye/tours/8817").
_PATH_TOKEN = re.compile(r"[^\W\d_][\w-]*/[\w/-]*\d")
# A capital letter after the start of a token with digits: how passwords and identifiers are written.
_CAPITAL_INSIDE = re.compile(r"(?<=[^\W_]|[-/#])[A-Z]")


def _source_codes(text: str) -> set[str]:
    """Every word with a digit in a source, whole and in its parts, and a word with the number after it."""
    codes: set[str] = set()
    for m in _each(_CODE_WITH_DIGIT, text):
        token = m.group(0)
        codes.add(_compact(token))
        codes |= {_compact(part) for part in re.split(r"[-/#_]", token) if part}
    codes |= {_compact(m.group(1) + m.group(2)) for m in _each(_CODE_PAIR, text)}
    # The end of a link's path, said without its site ("tours/8817" of ".../skye/tours/8817").
    for m in (*_each(_URL, text), *_each(_PATHED_DOMAIN, text)):
        parts = [part for part in _SCHEME.sub("", m.group(0)).split("/") if part]
        codes |= {_compact("/".join(parts[start:])) for start in range(1, len(parts))}
    return codes


def _number(text: str) -> str:
    """'87,40' and '87.40' -> '87.4'; '1.253,60' and '1,253.60' -> '1253.6'; '1.000' stays '1.000'
    (ambiguous, kept as written)."""
    if "," in text and "." in text:  # the last mark is the decimal one, the others group thousands
        mark = max(text.rfind(","), text.rfind("."))
        text = re.sub(r"[.,]", "", text[:mark]) + "." + text[mark + 1:]
    value = text.replace(",", ".")
    if value.count(".") == 1 and len(value.split(".")[1]) != 3:
        whole, fraction = value.split(".")
        fraction = fraction.rstrip("0")
        return f"{int(whole)}.{fraction}" if fraction else str(int(whole))
    return value.lstrip("0") or "0"


def _hour_value(word: str) -> int:
    lowered = word.lower()
    return _EN_NUMBERS.get(lowered) or _ES_NUMBERS.get(lowered) or int(lowered)


def _both_halves(hour: int, minute: int) -> set[tuple[int, int]]:
    hour %= 24
    return {(hour % 12, minute), (hour % 12 + 12, minute)}


# Opening hours said in words: "de nueve a dos" (where the clause ends or a time word follows: "de dos
# a tres personas" is a count), and in figures with the hour's sign ("de 9 a 14 h").
_ES_HOUR_WORD = "|".join(sorted(_ES_NUMBERS, key=len, reverse=True))
_ES_HOUR_RANGE = re.compile(
    rf"\bde\s+({_ES_HOUR_WORD})\s+a\s+({_ES_HOUR_WORD})"
    r"(?=\s*(?:[.,;:!?)]|$|y\s+media|de\s+la\s+(?:ma[ñn]ana|tarde|noche)|h\b|horas\b))"
    r"|\bde\s+(\d{1,2})\s+a\s+(\d{1,2})\s*(?:h|hs|horas)\b",
    re.IGNORECASE,
)


def _word_times(text: str) -> set[tuple[int, int]]:
    times: set[tuple[int, int]] = set()
    for m in _each(_ES_HOUR_RANGE, text):
        for word in (m.group(1) or m.group(3), m.group(2) or m.group(4)):
            hour = _hour_value(word)
            if hour <= 24:
                times |= {(hour % 24, 0)} if hour > 12 else _both_halves(hour, 0)
    for m in _each(_EN_WORD_TIME, text):
        if m.group(3):
            word = re.sub(r"\s+", "-", m.group(1).lower())
            minutes = {"quarter": 15, "half": 30}.get(word) or (int(word) if word.isdigit() else _below_100(word))
            hour = _hour_value(m.group(3))
            if m.group(2).lower() == "to":
                hour, minutes = hour - 1, 60 - minutes
            times |= _both_halves(hour, minutes)
        elif m.group(4):
            times |= _both_halves(_hour_value(m.group(4)), 30)
        elif m.group(5):
            times |= _both_halves(_hour_value(m.group(5)), 0)
        elif m.group(6):
            minutes = {"thirty": 30, "fifteen": 15}.get(m.group(7).lower(), 45)
            times |= _both_halves(_hour_value(m.group(6)), minutes)
        elif m.group(8):
            times |= {(12, 0)} if m.group(8).lower() in ("noon", "midday") else {(0, 0)}
        else:
            hour = _hour_value(m.group(9)) % 12
            if m.group(10).lower() == "night" and 1 <= hour <= 6 and not re.search(r"\bin\s+the\s+night\b",
                                                                                    m.group(0), re.I):
                continue  # "one at night" is a tablet at bedtime: the night's hours are seven to twelve
            late = m.group(10).lower() in ("evening", "night") or (m.group(10).lower() == "afternoon" and hour < 7)
            times.add((hour + 12 if late and hour != 0 else hour, 0))
    for m in _each(_ES_WORD_TIME, text):
        if m.group(1):
            hour, sign, minute_word = _hour_value(m.group(1)), m.group(2), m.group(3)
        elif m.group(4):
            hour, sign, minute_word = _hour_value(m.group(4)), m.group(5), m.group(6)
        else:
            times |= {(12, 0)} if m.group(7).lower().startswith("mediod") else {(0, 0)}
            continue
        minutes = _ES_MINUTES.get((minute_word or "").lower(), 0)
        if sign and sign.lower() == "menos":
            hour, minutes = hour - 1, 60 - minutes
        times |= _both_halves(hour, minutes % 60)
    return times


# A place named after a date: "el mercado 20 de Noviembre", "Avenida 5 de Mayo", "Plaza 25 de Mayo".
_PLACE_BEFORE = re.compile(r"\b(?:mercado|calle|avenida|av|avda|plaza|colonia|barrio|estaci[óo]n|metro|parque|paseo|"
                           r"puente|escuela|colegio|hospital|bulevar|boulevard|calzada|glorieta)\.?\s+$", re.IGNORECASE)
# A fraction, not a day and a month: "6 cucharadas y 2/3", "1 1/2 cups", "2/3 de taza"; and a count of the
# steps done: "Progress: 2/2 ✅", "3/4 hechos".
_FRACTION_BEFORE = re.compile(r"(?:\d\s|\b(?:y|and|e)\s+|\b(?:progress|progreso|steps?|pasos?|done|hech[oa]s?|"
                              r"completed|completad[oa]s?|tasks?|tareas?)\W{0,4})$", re.IGNORECASE)
_FRACTION_AFTER = re.compile(r"\s*(?:de\s+(?:taza|cucharada|cucharadita|vaso|kilo|litro)|of\s+an?\b|cups?\b|tazas?\b|"
                             r"(?:done|completed|hech[oa]s|completad[oa]s|tasks|tareas|steps|pasos)\b|[✅✔☑]|"
                             r"tbsp\b|tsp\b|teaspoons?\b|tablespoons?\b|cucharad)", re.IGNORECASE)


def extract_details(text: str) -> Details:
    """Every detail mentioned in `text` (its first MAX_SCAN_CHARS characters)."""
    text = as_shown(text[:MAX_SCAN_CHARS])
    if _ORDINAL_OF_MONTH.search(text):
        text = _ORDINAL_OF_MONTH.sub(lambda m: f"{_ORDINAL_DAYS[_ordinal_key(m.group(1))]} {m.group(2)}", text)
    if "." in text or ")" in text:
        # The numbers of a numbered list ("1. Passport", "2) Adapter") count lines, they say nothing.
        text = _LIST_NUMBER.sub(lambda m: " " * len(m.group(0)), text)
    times: set[tuple[int, int]] = set()
    dotted: set[str] = set()
    for m in _each(_TIME, text):
        if text[m.end(1)] == "." and _OPERATOR_BEFORE.search(text[max(0, m.start() - 3):m.start()]):
            dotted.add(f"{int(m.group(1))}.{m.group(2)}")  # "× 1.15", "= 12.30": worked with, a number
            continue
        times.add((int(m.group(1)), int(m.group(2))))
        if text[m.end(1)] == ".":  # "8.05" is a time or a number: "8.05 altogether"
            dotted.add(f"{int(m.group(1))}.{m.group(2)}")
    for m in _each(_AMPM, text):
        times.add((int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0), int(m.group(2) or 0)))
    times |= _word_times(text)
    hours = {int(m.group(1)) for m in _each(_SAID_HOUR, text)}
    dates: set[tuple[int, int]] = set()
    dates_with_years: set[tuple[int, int, int]] = set()
    for m in _each(_ISO_DATE, text):
        dates.add((int(m.group(2)), int(m.group(3))))
        dates_with_years.add((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in _each(_DAY_MONTH, text):
        if not _PLACE_BEFORE.search(text[max(0, m.start() - 24):m.start()]):  # "el mercado 20 de Noviembre"
            dates.add((_MONTHS[m.group(2).lower()], int(m.group(1))))
    for m in _each(_MONTH_DAY, text):
        dates.add((_MONTHS[m.group(1).lower()], int(m.group(2))))
    for m in _each(_NUM_DATE, text):
        day, month = int(m.group(1)), int(m.group(2))
        if (1 <= month <= 12 and 1 <= day <= 31 and not _FRACTION_BEFORE.search(text[max(0, m.start() - 8):m.start()])
                and not _FRACTION_AFTER.match(text, m.end())):
            dates.add((month, day))
    emails = {m.group(0).lower().rstrip(".") for m in _each(_EMAIL, text)}
    for m in _each(_SPOKEN_EMAIL, text):
        parts = re.split(r"(?:^|\s+)(?:dot|punto|[(\[{](?:dot|punto)[)\]}])\s+", m.group(3).strip(),
                         flags=re.IGNORECASE)
        emails.add(f"{m.group(1)}@{m.group(2)}.{'.'.join(p for p in parts if p)}".lower())
    emails |= {f"{m.group(1)}@{m.group(2)}".lower().rstrip(".") for m in _each(_BRACKETED_EMAIL, text)}
    urls: set[str] = set()
    domains: set[str] = set()
    for m in _each(_URL, text):
        link = m.group(0).rstrip(".,;:!?").lower()
        rest = _SCHEME.sub("", link, count=1)
        urls.add(rest.rstrip("/"))
        domains.add(rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0])
    without_urls = _URL.sub(" ", text)
    without_emails = _EMAIL.sub(" ", without_urls)
    for m in _each(_DOMAIN, without_emails):
        domain = m.group(1).lower()
        domains.add(domain)
        if m.group(2):
            urls.add((domain + m.group(2).rstrip(".,;:!?")).lower().rstrip("/"))
    for m in _each(_PATHED_DOMAIN, without_emails):
        domain = m.group(1).lower()
        if not _real_tld(domain):
            continue
        domains.add(domain)
        urls.add((domain + m.group(2).rstrip(".,;:!?")).lower().rstrip("/"))
    for m in _each(_WWW_DOMAIN, without_emails):
        domains.add(m.group(1).lower())
        if m.group(2):
            urls.add((m.group(1) + m.group(2).rstrip(".,;:!?")).lower().rstrip("/"))
    for m in _each(_SPOKEN_DOMAIN, without_emails):
        middle = re.split(r"(?:^|\s+)(?:dot|punto)\s+", m.group(2).strip(), flags=re.IGNORECASE) if m.group(2) else []
        domains.add(".".join([m.group(1), *[p for p in middle if p], m.group(3)]).lower())
    emails |= {m.group(0).lower() for m in _each(_EMAIL, without_urls)}
    domains |= {e.split("@", 1)[1] for e in emails}
    phones: set[str] = set()
    for m in _each(_PHONE, without_urls):
        if _ISO_DATE.fullmatch(m.group(0).strip()):
            continue
        digits = re.sub(r"\D", "", m.group(0))
        if 8 <= len(digits) <= 15:
            phones.add(digits)
    for m in _each(_SPOKEN_DIGITS, without_urls):
        digits = _spoken_phone(m.group(0))
        if 7 <= len(digits) <= 15:
            phones.add(digits)
    spelled = _digits_for_words(without_urls)
    if " and a half " in spelled or " y medio" in spelled:
        spelled = _AND_A_HALF.sub(lambda m: f"{m.group(1)}.5 {m.group(2) or m.group(3)}", spelled)
    if _MONEY_WORD.search(spelled):  # most texts name no money: not scanned twice for it
        spelled = _CENTS.sub(r"\1.\3 \2", spelled)
    if " con " in spelled:
        spelled = _CON_CENTS.sub(r"\1.\2 €", spelled)
    addresses = {next(g for g in m.groups() if g).replace(" ", "") for m in _each(_ADDRESS, spelled)}
    amounts: set[str] = set()
    numbers: set[str] = set()
    measures: set[str] = set()
    for m in _each(_AMOUNT, spelled):
        value = _number(m.group(2))
        numbers.add(value)
        if m.group(1) or m.group(3):
            amounts.add(value)
            if not m.group(1) and not _CURRENCY.fullmatch(m.group(3)):
                measures.add(value)
    figures: set[str] = set()
    # Times in words are judged as times: "seven-thirty" is not the figure 730. Small numbers
    # in words ("one of the twenty guests") are prose; "one-twenty" is a figure.
    spelled_rest = _digits_for_words(_blank(without_urls, (_EN_WORD_TIME, _ES_WORD_TIME)), below_100=False)
    figure_text = _blank(spelled_rest, _FIGURE_FREE)
    for m in _each(_FIGURE, figure_text):
        value = _number(m.group(1))
        numbers.add(value)
        if _is_figure(value):
            figures.add(value)
    figures |= {_number(m.group(1)) for m in _each(_NUMBERED_PLACE, figure_text)}
    minutes, days, half_hours = _spans(spelled)
    month_days: set[int] = set()
    if _DAY_ALONE.search(without_urls):  # rare: the text is blanked of full dates only then
        dateless = _blank(without_urls, (_ISO_DATE, _NUM_DATE, _DAY_MONTH, _MONTH_DAY))
        month_days = {int(m.group(1) or m.group(2)) for m in _each(_DAY_ALONE, dateless)}
    month_days |= {_spelled_day(m) for m in _each(_SPELLED_DAY, without_urls)}
    weekdays, full_dates = _weekday_dates(without_urls, dates_with_years)
    month_years: set[tuple[int, int]] = set()
    if _FOUR_DIGITS.search(without_urls):
        month_years = {(int(m.group(2)), _MONTHS[m.group(1).lower()]) for m in _each(_MONTH_YEAR, without_urls)}
        month_years |= {(int(m.group(2)), int(m.group(1))) for m in _each(_NUM_MONTH_YEAR, without_urls)
                        if 1 <= int(m.group(1)) <= 12}
        month_years -= {(y, m) for y, m, _ in full_dates}
    lone_weekdays = _lone_weekdays(without_urls) if weekdays or _WEEKDAY_HINT.search(without_urls) else set()
    lowered = without_urls.lower()
    relative_days = ({_relative_offset(m) for m in _each(_RELATIVE_DAY, without_urls)}
                     if any(word in lowered for word in _RELATIVE_WORDS) else set())
    counted = bool(amounts or figures)  # arithmetic words matter only next to numbers
    return Details(frozenset(times), frozenset(dates), frozenset(emails), frozenset(urls),
                   frozenset(domains), frozenset(amounts), frozenset(phones), frozenset(numbers), frozenset(hours),
                   frozenset(addresses), frozenset(figures - amounts - addresses), minutes, days,
                   counted and bool(_OPERATION.search(without_urls) or _TOTAL.search(without_urls)),
                   counted and bool(_TOTAL.search(without_urls)),
                   change=_change(without_urls) if counted else "",
                   converts=counted and any(a.search(without_urls) and b.search(without_urls)
                                            for a, b in _PAIRED_UNITS),
                   month_days=frozenset(d for d in month_days if 1 <= d <= 31),
                   half_hours=half_hours, dotted=frozenset(dotted),
                   percents=frozenset(_number(m.group(1)) for m in _each(_PERCENT, spelled)),
                   approximate=counted and bool(_APPROXIMATE.search(without_urls)),
                   constants=_calendar_constants(without_urls) if counted else frozenset(),
                   codes=frozenset(_said_codes(without_urls) | _spoken_codes(without_urls)),
                   spoken_numbers=frozenset(_number(m.group(1))
                                            for m in _each(_FIGURE, _blank(spelled, _FIGURE_FREE))),
                   weekdays=frozenset(weekdays),
                   full_dates=frozenset(full_dates), month_years=frozenset(month_years),
                   relative_days=frozenset(relative_days),
                   lone_weekdays=frozenset(lone_weekdays), next_weekdays=frozenset(_next_weekdays(without_urls)),
                   measures=frozenset(measures),
                   short_codes=frozenset(_short_codes(without_urls)),
                   coded_words=frozenset(_coded_words(without_urls)))


_CURRENCY = re.compile(r"€|\$|£|euros?|eur|dollars?|d[oó]lares|libras|pounds|usd|gbp|bucks|quid|pavos|pelas|grand|"
                       r"pesos?|pesitos|euritos|eurillos|d[oó]laritos|d[oó]larcitos|pavitos|solcitos|soles|bol[íi]vares|quetzales|colones|reales|lempiras|c[óo]rdobas|guaran[íi]es|"
                       r"mxn|ars|clp|cop|uyu|lucas|cents?|c[ée]ntimos?|centavos?|pence|(?-i:p)",
                       re.IGNORECASE)
# "Head to B14", "room 4C": a letter and a few digits, upper case.
_SHORT_CODE = re.compile(r"(?<![\w/#-])(?:[A-Z]{1,2}\d{1,3}|\d{1,3}[A-Z])(?![\w-])")


# A lower-case name with hyphens ("list2-f05", "plan-q3b") is how notes are named, not a code.
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")


def _coded_words(text: str) -> set[str]:
    words = (m.group(0) for m in _each(_CODE_WITH_DIGIT, text))
    compacts = (_compact(w) for w in words if not _SLUG.fullmatch(w))
    return {c for c in compacts if len(c) >= 4 and any(ch.isalpha() for ch in c) and not _UNIT_SHAPED.match(c)}


def _short_codes(text: str) -> set[str]:
    # "aula 2ºB", "1ª A": an ordinal sign inside a room's code is how Spanish writes it.
    text = _ORDINAL_CODE.sub(r"\1\2", text) if "º" in text or "ª" in text else text
    return {m.group(0) for m in _each(_SHORT_CODE, text) if not _UNIT_SHAPED.match(m.group(0))}


_ORDINAL_CODE = re.compile(r"(?<![\w/#-])(\d{1,3})[ºª]\s?([A-Z])(?![\w-])")


# What ties words to someone's own world rather than to a textbook fact: a moment or a place near the
# speaker, the weather, a price or opening hours, a local service, or a name (a capitalised word inside
# the sentence). In the user's words a possessive does too ("my bill"); an answer's "your batter" does not.
_POSSESSIVE = re.compile(r"\b(?:my|mine|our|ours|your|yours|mi|mis|m[íi]os?|m[íi]as?|nuestr[oa]s?|tu|tus|"
                         r"vuestr[oa]s?)\b", re.IGNORECASE)
_PARTICULAR = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|now|currently|right\s+now|this\s+(?:morning|afternoon|evening|week|weekend|"
    r"month|year)|next\s+(?:week|month|year|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    # ("Here you go", "here's a few": handing over, no place.)
    r"here(?!\s+(?:you\s+go|you\s+are|it\s+is|they\s+are|are|is)\b|'s|’s)|nearby|near|around\s+here|outside|local|hoy|ma[ñn]ana|ayer|ahora|esta\s+(?:noche|tarde|semana)|"
    r"este\s+(?:fin|mes|a[ñn]o)|aqu[íi]|cerca|fuera|afuera|por\s+aqu[íi]|"
    r"weather|forecast|rain|snow|tiempo\s+(?:hace|hará|har[áa])|llover|lluvia|pron[óo]stico|"
    r"price|cost|costs|fee|bill|rent|fare|cuesta|cuestan|precio|cuota|factura|tarifa|alquiler|"
    r"paying|charging|pagando|cobrando|"
    r"open|opens|close|closes|abre|cierra|horario|"
    r"airport|station|pharmacy|gym|shop|store|restaurant|bank|office|school|hospital|clinic|dentist|doctor|"
    r"supermarket|cinema|hotel|garage|flight|train|bus|gate|platform|meeting|class|appointment|party|concert|"
    r"aeropuerto|estaci[óo]n|farmacia|gimnasio|tienda|restaurante|banco|oficina|colegio|escuela|cl[íi]nica|"
    r"dentista|m[ée]dico|supermercado|cine|taller|notar[íi]a|ayuntamiento|vuelo|tren|autob[úu]s|and[ée]n|"
    r"reuni[óo]n|clase|cita|fiesta|concierto)\b",
    re.IGNORECASE,
)
# Advice in the user's place about when to go ("I'd aim to be at the airport by 05:55", "yo saldría a las
# 5:15", "try to get there by 8:30"): its time is the user's to choose, so it need only lie near a time a
# source gives. Without one (the lookup found no flight), the time is invented.
_IN_YOUR_PLACE = re.compile(
    r"\bi'?d\s+(?:leave|go|head|set\s+off|aim|start|plan|get\s+there|be\s+there|arrive|allow)\b"
    r"|\b(?:aim|try|plan)\s+to\s+(?:be|get|arrive|leave|head|set\s+off)\b"
    r"|\byo\s+(?:(?:me|lo|la|te)\s+)?[^\W\d_]+r[íi]a\b"
    r"|\b(?:procura|intenta|te\s+recomiendo|conviene|lo\s+ideal\s+es)\s+(?:estar|llegar|salir|ir)\b",
    re.IGNORECASE,
)
MAX_ZONE_MINUTES = 14 * 60
"""The widest gap between two time zones' clocks."""
# How far from a sourced time such advice may lie: leaving for a flight, arriving early for an appointment.
ADVICE_WINDOW_MINUTES = 240


def advises_timing(text: str) -> bool:
    """`text` tells the user when to go or be somewhere, as advice."""
    return bool(_IN_YOUR_PLACE.search(text[:MAX_PARTICULAR_CHARS]))


def _near_known_time(group: set[tuple[int, int]], known: Details) -> bool:
    # The gap on a clock face: 23:30 lies half an hour before 00:00. The time now is no anchor: advice
    # for a flight nobody found must not pass because the night it is given in is four hours before it.
    return any(abs((h * 60 + m - kh * 60 - km + 720) % 1440 - 720) <= ADVICE_WINDOW_MINUTES
               for h, m in group for kh, km in known.times - {known.clock})


# Proposing rather than stating: "a plan could be…", "try 20 minutes", "te recomiendo…".
_SUGGESTS = re.compile(
    r"\b(?:could|might|try|aim\s+for|start\s+(?:with|by)|i'?d\s+(?:suggest|recommend|go\s+for)|suggest|recommend|"
    r"a\s+(?:good|gentle|simple|easy|realistic)\s+(?:plan|start|goal|routine)|podr[íi]as|podr[íi]a\s+ser|"
    r"puedes\s+(?:empezar|probar)|prueba\s+(?:a|con)|te\s+(?:recomiendo|sugiero|propongo)|recomiendo|sugiero|"
    r"intenta|empieza\s+(?:con|por)|un\s+(?:buen|plan)\b|vale\s+la\s+pena|merece\s+la\s+pena|conviene|capaz\s+que|"
    r"(?:it'?s|it\s+might\s+be|might\s+be)\s+worth|"
    # What the assistant would do in the user's place: "yo aprovecharía para…", "I'd use the time to…".
    r"yo\s+[^\W\d_]+r[íi]a\b|i'?d\s+(?:use|take|spend|start|focus|look|check|go|do|put)\b)",
    re.IGNORECASE,
)
# A name inside a sentence ("the pharmacy on Main St", "en Sevilla"); units named after people are none.
_CAPITALISED_INSIDE = re.compile(r"(?<=[^\W\d_,;:])\s+(?!I\b|I'[a-z]|Celsius\b|Fahrenheit\b|Kelvin\b)[A-Z][^\W\d_]+")


# "Yours", "la tuya": their own one, not anyone's ("your tyres" is often anyone's).
_THEIRS = re.compile(r"\b(?:yours|(?:la|el|los|las)\s+(?:tuy|vuestr|suy)[oa]s?)\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r";|\s[—–]\s|,?\s+(?:aunque|pero|but|although|though)\s", re.IGNORECASE)


def _is_particular(text: str, topics: frozenset[str] = frozenset()) -> bool:
    """It speaks of someone's own things, a place or a moment ("tomorrow", "here", "Main St").

    A name among `topics` is what a general question asked about ("how far is the Moon?"), no such tie;
    nor is a name in capitals ("the AVE", "a US cup"): an institution or a brand, not a place of theirs.
    """
    text = text[:MAX_PARTICULAR_CHARS]
    # Only the parts that give a figure tie it to someone ("En muchos tranvías va a 750 V, aunque depende de cada
    # red; para la vuestra, mira la documentación": the advice after it names theirs, not the figure).
    parts = _CLAUSE_BREAK.split(text)
    figured = [part for part in parts if any(c.isdigit() for c in part)]
    if figured and len(figured) < len(parts):
        text = " ".join(figured)
    found = [m.group(0).strip() for m in _CAPITALISED_INSIDE.finditer(text)]
    if topics - _TEXTBOOK_NAMES and any(name in topics for name in found) and not _OWN.search(text):
        # About the very thing the general question names ("El Everest mide 8.849 m, según China y Nepal"):
        # other names in a part with no figure of its own are the textbook account's. A part that gives
        # another name a figure ("…and Casa Lola is 200 m from the beach") ties it to that place.
        return bool(_PARTICULAR.search(text)) or any(
            re.search(r"\d", _YEAR.sub(" ", part))
            and any((name := m.group(0).strip()) not in topics and not name.isupper()
                    for m in _CAPITALISED_INSIDE.finditer(part))
            for part in _SEGMENT.split(text))
    return bool(_PARTICULAR.search(text) or _THEIRS.search(text)
                or any((name := m.group(0).strip()) not in topics and not name.isupper()
                       and name.lower() not in _MONTHS and name.lower() not in _WEEKDAYS
                       for m in _CAPITALISED_INSIDE.finditer(text)))


_NAMED_HOUR = re.compile(r"\b(?:noon|midday|midnight|mediod[ií]a|medianoche)\b", re.IGNORECASE)
# A year ("publicada en 2020"), which is no figure of a place.
_YEAR = re.compile(r"\b(?:1\d{3}|20\d{2})\b")
# Someone's own things: "your flat", "mi casa", "su oficina".
_OWN = re.compile(r"\b(?:your|my|our|tu|tus|mi|mis|su|sus|nuestr[oa]s?|vuestr[oa]s?)\b", re.IGNORECASE)
# Names a textbook answer gives that tie it to no one's world: "384,400 km from Earth", "la OMS aconseja".
_TEXTBOOK_NAMES = frozenset("""Earth Moon Sun Mars Venus Mercury Jupiter Saturn Uranus Neptune Everest Atlantic
Pacific Mediterranean Tierra Luna Sol Marte Júpiter Saturno Atlántico Pacífico Mediterráneo WHO OMS NASA UN ONU EU UE
UNESCO""".split())


def _topics(user_text: str) -> frozenset[str]:
    """What a general question asks about, as an answer writes it: its names, its words capitalised
    ("the moon" -> "Moon"), and the names of textbooks."""
    words = {w.capitalize() for w in re.findall(r"[^\W\d_]{3,}", user_text[:MAX_PARTICULAR_CHARS])}
    return _names(user_text) | words | _TEXTBOOK_NAMES


def _names(text: str) -> frozenset[str]:
    """The capitalised names inside `text` ("Sol", "New", "York")."""
    return frozenset(m.group(0).strip() for m in _CAPITALISED_INSIDE.finditer(text[:MAX_PARTICULAR_CHARS]))


MAX_PARTICULAR_CHARS = 4_000
"""Text read for what ties it to someone's world: a textbook fact is said in a sentence or two."""


# In an answer only whole names count: "sun", "sat", "wed" are words too. Sources (tool results
# write "Wed 2027-03-10") are read with the short forms as well, and plurals ("on Mondays").
_FULL_WEEKDAY = re.compile(r"\b(" + "|".join(w for w in sorted(_WEEKDAYS, key=len, reverse=True) if len(w) > 4
                                             or w in ("lunes",)) + r")\b", re.IGNORECASE)
_ANY_WEEKDAY = re.compile(r"\b(" + _WEEKDAY_NAMES + r")(?:s)?\b", re.IGNORECASE)


def _lone_weekdays(text: str) -> set[int]:
    """Weekdays `text` names without the date they fall on."""
    rest = _blank(text, (_WEEKDAY_DATE,))
    return {_WEEKDAYS[m.group(1).lower()] for m in _each(_FULL_WEEKDAY, rest)}


# "next Thursday", "el próximo jueves", "el jueves que viene": never today, whatever today is.
_NEXT_WEEKDAY = re.compile(
    rf"\b(?:next|this\s+coming|pr[óo]xim[oa])\s+({_WEEKDAY_NAMES})\b|\b({_WEEKDAY_NAMES})\s+(?:que\s+viene|siguiente)\b",
    re.IGNORECASE,
)


def _next_weekdays(text: str) -> set[int]:
    return ({_WEEKDAYS[(m.group(1) or m.group(2)).lower()] for m in _each(_NEXT_WEEKDAY, text)}
            if _WEEKDAY_HINT.search(text) else set())


def _named_weekdays(text: str) -> set[int]:
    return {_WEEKDAYS[m.group(1).lower()] for m in _each(_ANY_WEEKDAY, text)} if _WEEKDAY_HINT.search(text) else set()


def _relative_offset(m: re.Match[str]) -> int:
    return {"after": 2, "before": -2, "tomorrow": 1, "yesterday": -1}[next(k for k, v in m.groupdict().items() if v)]


_RELATIVE_WORDS = ("tomorrow", "yesterday", "mañana", "manana", "ayer")
_FOUR_DIGITS = re.compile(r"\d{4}")
_WEEKDAY_HINT = re.compile(r"(?:day|tue|wed|thu|fri|sat|sun|mon|lunes|martes|rcoles|jueves|viernes|bado|domingo|"
                           r"lun|mi[ée]|jue|vie|s[áa]b|dom)s?\b",
                           re.IGNORECASE)


def _weekday_dates(text: str, iso: set[tuple[int, int, int]]) -> tuple[set[tuple[int, int, int, int]],
                                                                   set[tuple[int, int, int]]]:
    """Weekdays said with their dates, and dates said with their year (`iso`: those written 2027-03-10)."""
    weekdays: set[tuple[int, int, int, int]] = set()
    full = set(iso)
    if not _FOUR_DIGITS.search(text) and not _WEEKDAY_HINT.search(text):
        return weekdays, full
    for m in _each(_YEAR_DATE, text):
        if m.group(1):
            full.add((int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1))))
        else:
            full.add((int(m.group(6)), _MONTHS[m.group(4).lower()], int(m.group(5))))
    for m in _each(_WEEKDAY_DATE, text) if _WEEKDAY_HINT.search(text) else ():
        weekday = _DATED_WEEKDAYS[m.group(1).lower()]
        if m.group(2):
            year, month, day = int(m.group(2)), int(m.group(3)), int(m.group(4))
        elif m.group(5):
            year = int(m.group(7)) if m.group(7) else 0
            month = _MONTHS[m.group(6).lower()] if m.group(6) else 0
            day = int(m.group(5))
        else:
            year, month, day = (int(m.group(10)) if m.group(10) else 0), _MONTHS[m.group(8).lower()], int(m.group(9))
        if 1 <= day <= 31:
            weekdays.add((weekday, year, month, day))
    return weekdays, full


_RELATIVE_DAYS = {
    "today": 0, "hoy": 0, "tomorrow": 1, "mañana": 1, "yesterday": -1, "ayer": -1,
    "pasado mañana": 2, "day after tomorrow": 2, "anteayer": -2,
}


EMERGENCY_NUMBERS = frozenset({"112", "911", "999", "000", "111", "061", "062", "091", "080"})
"""Emergency and health lines of Europe, the Americas and Australia: public, fixed, the same for every user."""
_CALL_FOR_HELP = re.compile(r"\b(?:call|ring|dial|phone|llama|llamad|llame|marca|marque|tel[ée]fono)\b", re.I)


# A time in four digits, as shifts, flights and rigs write it: with a leading 0, after "at", or before "hrs".
_MILITARY_TIME = re.compile(r"(?<![\w.,:])(?:(?=0)|(?<=at )|(?<=las )|(?=\d{4}\s*(?:hrs?|hours)\b))"
                            r"([01]\d|2[0-3])([0-5]\d)(?![\w.,:])", re.IGNORECASE)


def source_details(sources: Iterable[str], user_text: str, now_local: datetime,
                   results: Sequence[str] = ()) -> Details:
    """What the sources, the user's words and the clock make known.

    `results`: what this turn's lookups gave. An answer after one tells what they gave: its figures
    are no textbook facts (a question asked in general terms is about the user's note then).
    """
    texts = [s[:MAX_SCAN_CHARS] for s in sources] + [user_text]
    found = [extract_details(t) for t in texts]
    times = set().union(*(d.times for d in found))
    for details in found:  # "at 9" in a source backs 09:00 and 21:00
        for hour in details.hours:
            times |= _both_halves(hour, 0)
    for match in _BARE_HOUR.finditer(user_text):  # "at 9", "a las 9": 09:00 and 21:00
        times |= _both_halves(int(match.group(1)), 0)
    for match in _AT_WORD_HOUR.finditer(user_text):  # "es el domingo a la una no": 01:00 and 13:00, whatever follows
        times |= _both_halves(_hour_value(match.group(1)), 0)
    for text in texts:  # "recordatorio mañana 9h", a note's "camión viernes 9h": 09:00
        for match in _HOUR_H.finditer(text[:MAX_SCAN_CHARS]):
            times.add((int(match.group(1)), 0))
    for match in _MILITARY_TIME.finditer(user_text):  # "tuesday at 0700", "the 1930 hrs ferry": 07:00, 19:30
        times.add((int(match.group(1)), int(match.group(2))))
    times.add((now_local.hour, now_local.minute))
    dates = set().union(*(d.dates for d in found))
    lowered = user_text.lower()
    for word, offset in _RELATIVE_DAYS.items():
        if re.search(rf"\b{word}\b", lowered):
            day = now_local.date() + timedelta(days=offset)
            dates.add((day.month, day.day))
    for details in found:  # "tomorrow" in an earlier message or a page is that day
        for offset in details.relative_days:
            day = now_local.date() + timedelta(days=offset)
            dates.add((day.month, day.day))
    dates.add((now_local.month, now_local.day))  # the prompt tells the model today's date
    numbers = set().union(*(d.numbers for d in found)) | {str(now_local.year)}
    # A figure glued to its unit in a source ("60s rest", "easy 10k", "3x") is that figure.
    numbers |= {m.group(1) for text in texts for m in _GLUED_FIGURE.finditer(text[:MAX_SCAN_CHARS])}
    # "4 grand", "20k", "3 mil", "5 lucas": thousands.
    numbers |= {str(int(m.group(1)) * 1000) for text in texts for m in _THOUSANDS.finditer(text[:MAX_SCAN_CHARS])}
    # ("Me pagaron ciento ochenta mil guaraníes": 180000, the user's words spelled out.)
    numbers |= {str(int(m.group(1)) * 1000) for m in _THOUSANDS.finditer(_digits_for_words(user_text[:MAX_SCAN_CHARS]))}
    for details in found:  # "an hour" backs "1 hour" and "60 minutes"; "two weeks", "14 days"
        for span, per in [*((m, 60) for m in details.minutes), *((d, 7) for d in details.days)]:
            numbers.add(str(span))
            if span % per == 0:
                numbers.add(str(span // per))
    numbers |= _calendar_counts(user_text)
    phones = set().union(*(d.phones for d in found))
    user = found[-1]
    looked_up = any(r.strip() for r in results)
    # A door code, a PIN, a booking's locator: the user's own, never the textbook's (an area code may be).
    asked_code = bool(_CODE_QUESTION.search(user_text)) and not _PUBLIC_CODE.search(user_text[:MAX_PARTICULAR_CHARS])
    head = user_text[:MAX_PARTICULAR_CHARS]
    general = (_asks_in_general(user_text) and not looked_up and not asked_code
               and not (_DOSE_QUESTION.search(head) and _SOMEONES.search(head)))
    listing = looked_up and asks_for_a_listing(user_text)
    given_times = set(user.times) | {(now_local.hour, now_local.minute)}
    for hour in user.hours:
        given_times |= _both_halves(hour, 0)
    return Details(
        frozenset(times), frozenset(dates),
        frozenset().union(*(d.emails for d in found)), frozenset().union(*(d.urls for d in found)),
        frozenset().union(*(d.domains for d in found)), frozenset(numbers), frozenset(phones),
        frozenset(numbers), minutes=user.minutes, days=user.days,
        given_times=frozenset(given_times), given_dates=user.dates | {(now_local.month, now_local.day)},
        given_numbers=user.numbers | _fraction_operands(user_text),
        asked_calculation=bool(_CALCULATION.search(user_text)),
        # (So is a contact asked for: "¿cuál es el móvil del proveedor?" "Seis uno dos, cuarenta y ocho…".)
        asked_number=bool(_NUMBER_QUESTION.search(user_text)
                          or (_PHONE_ASKED.search(user_text) and _ASKS_FOR_IT.search(user_text))),
        general=general, general_names=_topics(user_text) if general else _TEXTBOOK_NAMES,
        general_part_words=frozenset() if general else _general_part_words(user_text),
        asked_price=bool(_PRICE_QUESTION.search(user_text)),
        asked_when=bool(_WHEN_QUESTION.search(user_text)),
        asked_duration=bool(_DURATION_QUESTION.search(user_text)),
        asked_zone=bool(_ZONE_QUESTION.search(user_text)),
        asked_own_amount=_asks_own_amount(user_text),
        asked_record=bool(_RECORD_QUESTION.search(user_text[:MAX_SCAN_CHARS])),
        asked_advice=bool(_ADVICE_QUESTION.search(user_text)),
        asked_name=(asked_name := bool(_NAME_QUESTION.search(user_text))),
        source_text=" ".join(t.lower() for t in texts) if asked_name or looked_up else "",
        asked_code=asked_code,
        asked_names=looked_up and not general
        and bool(_WHO_OR_WHERE.search(user_text) or _SOURCE_QUESTION.search(user_text)),
        asked_count=bool(_COUNT_QUESTION.search(user_text)) or listing,
        asked_listing=listing, looked_up=looked_up,
        list_totals=frozenset().union(*(_list_totals(r) for r in results)) if looked_up else frozenset(),
        listed=max((_listed_things(r) for r in results), default=-1) if looked_up else -1,
        codes=frozenset().union(*(_source_codes(as_shown(t)) for t in texts)),
        weekdays=frozenset().union(*(d.weekdays for d in found)),
        full_dates=frozenset().union(*(d.full_dates for d in found)), today=now_local.date(),
        clock=(now_local.hour, now_local.minute),
        month_years=frozenset().union(*(d.month_years for d in found))
        | {(y, m) for d in found for y, m, _ in d.full_dates} | {(0, m) for d in found for m, _ in d.dates}
        | {(now_local.year, now_local.month)},
        lone_weekdays=frozenset(_known_weekdays(texts, found, dates, now_local.date())),
        next_weekdays=frozenset(set().union(*(_named_weekdays(t) for t in texts))
                                | {w for d in found for y, m, day in d.full_dates
                                   if (w := _weekday_of(y, m, day)) is not None}),
    )


# A span of weekdays by their letters or short names: "L-V 8:00-15:00", "M-F", "Mon–Fri", "lun a vie".
_DAY_LETTER = {"L": 0, "M": 1, "X": 2, "J": 3, "V": 4, "S": 5, "D": 6}
_DAY_SHORT = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6,
              "lun": 0, "mar": 1, "mié": 2, "mie": 2, "jue": 3, "vie": 4, "sáb": 5, "sab": 5, "dom": 6}
_WEEKDAY_RANGE = re.compile(r"(?<![\w-])(?:(?-i:([LMXJVSD]))\s*[-–]\s*(?-i:([LMXJVSD]))|"
                            r"(mon|tue|wed|thu|fri|sat|sun|lun|mar|mi[ée]|jue|vie|s[áa]b|dom)\.?\s*(?:[-–]|a|to)\s*"
                            r"(mon|tue|wed|thu|fri|sat|sun|lun|mar|mi[ée]|jue|vie|s[áa]b|dom)\.?|(?-i:(M))\s*-\s*(?-i:(F)))"
                            r"(?![\w-])", re.IGNORECASE)


def _weekday_range(text: str) -> set[int]:
    """The weekdays such spans cover ("L-V": Monday to Friday)."""
    days: set[int] = set()
    for match in islice(_WEEKDAY_RANGE.finditer(text[:MAX_SCAN_CHARS]), MAX_SPANS):
        if match.group(5):
            first, last = 0, 4  # "M-F"
        elif match.group(1):
            first, last = _DAY_LETTER[match.group(1)], _DAY_LETTER[match.group(2)]
        else:
            first, last = _DAY_SHORT[match.group(3).lower()], _DAY_SHORT[match.group(4).lower()]
        days |= {(first + step) % 7 for step in range((last - first) % 7 + 1)}
    return days


def _known_weekdays(texts: list[str], found: list[Details], dates: set[tuple[int, int]], today: date) -> set[int]:
    """The weekdays sources name, and those their dates fall on (a date with no year: the last and the
    next time it comes round)."""
    known: set[int] = set().union(*(_named_weekdays(t) for t in texts), *(_weekday_range(t) for t in texts))
    for details in found:
        known |= {w for w, _, _, _ in details.weekdays}
        known |= {w for y, m, day in details.full_dates if (w := _weekday_of(y, m, day)) is not None}
    for month, day in dates:
        around = [when for year in (today.year - 1, today.year, today.year + 1)
                  if (when := _date_or_none(year, month, day)) is not None]
        last_and_next = [*[when for when in around if when < today][-1:],
                         *[when for when in around if when >= today][:1]]
        known |= {when.weekday() for when in last_and_next}
    return known


# The first word of a sentence is capitalised whatever it is; it is a person's name when a person's verb
# follows ("Jorge said he'd come", "Jorge también se apunta") and it is no pronoun or quantifier.
_NAMED_DOER = re.compile(
    r"^\W*(?-i:(?P<name>[A-ZÁÉÍÓÚÑ][^\W\d_]{2,}))[*_]*\s+(?:(?:also|too|already|ya|tambi[ée]n)\s+)?"
    r"(?:said|says|told|mentioned|confirmed|might|may|will\s+(?:come|join|bring)|is\s+(?:coming|joining|bringing)|"
    r"can\s+(?:come|make\s+it)|too\b|as\s+well|dijo|dice|confirm[óo]|viene|vendr[áa]|trae|traer[áa]|se\s+apunta|"
    r"se\s+une|tambi[ée]n\b)",
    re.IGNORECASE,
)
_NO_NAME = frozenset("""he she they it we you i this that there everyone everybody someone somebody nobody
nothing everything all both each either neither one none also el ella ellos ellas todos todas alguien nadie
nada todo ambos cada uno una eso esto aquello también tambien""".split())


# A name that is the whole answer, or opens it set apart: "Ramiro, el de la nota de casa", "Ramiro Ortega.".
_OPENING_NAME = re.compile(
    # ("Trelawny's your man": the name, said to be the one.)
    r"^\W*(?-i:(?P<name>[A-ZÁÉÍÓÚÑ][^\W\d_]{2,}))(?=\s*(?:[,—–(:;.!]|$)|\s+(?-i:[A-ZÁÉÍÓÚÑ])[^\W\d_]+\s*(?:[,—–(:;.!]|$)"
    r"|['’]s\s+(?:your|the|our)\s+(?:man|woman|guy|lad|fella|one|person|contact|inspector)\b)")
# Words that open an answer set apart by a comma without being anyone's name.
_OPENERS = frozenset("""yes yeah yep sure okay hello hmm right done here thanks sorry well great perfect alright
sí vale claro perfecto hola listo hecho aquí gracias perdona perdón bueno genial según mira oye venga dale
ahí tranqui tranquilo tranquila también entendido anotado apuntado""".split())


def _said_names(text: str, answering: bool = False) -> list[str]:
    """Names in an answer: capitalised words that do not open it (or open it as a person doing something,
    or, `answering` a question for a name, set apart as the answer), without weekdays and months."""
    found = []
    doer = _NAMED_DOER.match(text[:MAX_SCAN_CHARS]) or (_OPENING_NAME.match(text[:MAX_SCAN_CHARS]) if answering
                                                        else None)
    if doer and (name := doer.group("name")).lower() not in _NO_NAME and name.lower() not in _WEEKDAYS \
            and name.lower() not in _MONTHS and name.lower() not in _OPENERS:
        found.append(name)
    for match in _each(_NAME, text[:MAX_SCAN_CHARS]):
        words = [w for w in match.group(0).split() if w.lower() not in _WEEKDAYS and w.lower() not in _MONTHS]
        if words:
            found.append(" ".join(words))
    found += [match.group(1) for match in _each(_TITLED_NAME, text[:MAX_SCAN_CHARS])]
    return found


def unsourced(said: Details, known: Details, claims_action: bool = False, text: str = "",
              proposes: bool = False, worked_out: frozenset[str] = frozenset(), advises: bool = False,
              worked_spans: tuple[int, ...] = ()) -> list[str]:
    """Details of `said` (the details of `text`) that `known` does not back, rendered for a correction note.

    A day said relative to today ("tomorrow", "ayer") is a date when it dates something: next to a
    time, or in a sentence that claims an action (`claims_action`); "see you tomorrow" dates nothing.
    `proposes`: the sentence is a question or an offer ("a reminder a week before?"): its spans date nothing.
    `advises`: the sentence tells the user when to go, in their place: its spans date nothing either, and its
    times need only lie near a sourced one.
    `worked_out`: numbers the answer's earlier sentences worked out from sourced ones ("42 € each. Ana paid
    50 €, so you owe her 8 €"): operands, as sourced ones are. `worked_spans`: the spans (minutes) those
    sentences said ("a 14-hour window. Starting at 5 AM, it closes at 7 PM").
    """
    missing: list[str] = []
    # A time said in words stands for both halves of the day ("half past nine": 09:30 and
    # 21:30); it is backed when either half is known.
    halves: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for h, m in said.times:
        halves.setdefault((h % 12, m), set()).add((h, m))
    unknown = [g for g in halves.values() if not g & known.times]
    if known.asked_duration and unknown:  # "how long?" "2h45": a span between two known times, not a time
        between = _between(known.times)
        unknown = [g for g in unknown if not {h * 60 + m for h, m in g} & between]
    if said.dotted and unknown:  # "milk 1.20, bread 2.50, coffee 4.35: 8.05 altogether" is a number
        unknown = [g for g in unknown if not any(
            (number := f"{h}.{m:02d}") in said.dotted
            and (number in known.numbers or _sum_shown(number, said, known)
                 or _derived_number(number, said, known, worked_out)) for h, m in g)]
    if (unknown and known.asked_advice and not known.looked_up and _NAMED_HOUR.search(text)
            and not _PARTICULAR.search(text[:MAX_PARTICULAR_CHARS])):
        # Advice asked for names the parts of a day ("no coffee after midday"): no one's appointment.
        unknown = [g for g in unknown if not g <= {(12, 0), (0, 0)}]
    if advises:
        unknown = [g for g in unknown if not _near_known_time(g, known)]
    if known.asked_zone:  # the time somewhere else is a given or sourced time moved by whole or half hours
        bases = {h * 60 + m for h, m in known.times | known.given_times}
        unknown = [g for g in unknown if not any((h * 60 + m - b) % 30 == 0 and abs((h * 60 + m - b + 720) % 1440 - 720)
                                                 <= MAX_ZONE_MINUTES for h, m in g for b in bases)]
    arithmetic = len(unknown) <= MAX_DERIVED
    missing += [f"{h:02d}:{m:02d}" for group in unknown
                if not (arithmetic and _derived_time(group, said, known, worked_spans)) for h, m in sorted(group)]
    new_dates = sorted(said.dates - known.dates)
    # History asked in general terms ("the Berlin Wall fell on 9 November 1989", "it went up in August 1961"):
    # textbook dates and months.
    history = (known.general and known.today is not None and not claims_action and bool(text)
               and bool(said.full_dates or said.month_years) and not _is_particular(text, known.general_names))
    long_ago = known.today.year - HISTORY_YEARS if history and known.today is not None else 0
    if history:
        past = {(m, d) for y, m, d in said.full_dates if y <= long_ago}
        new_dates = [date for date in new_dates if date not in past]
    arithmetic = len(new_dates) <= MAX_DERIVED
    missing += [f"{d:02d}/{m:02d}" for m, d in new_dates if not (arithmetic and _derived_date((m, d), said, known))]
    known_days = {day for _, day in known.dates}
    missing += [f"day {d}" for d in sorted(said.month_days) if d not in known_days and str(d) not in known.numbers]
    missing += [f"{y}-{m:02d}" for y, m in sorted(said.month_years)
                if (y, m) not in known.month_years and (0, m) not in known.month_years and y > long_ago]
    # (An hour the sentence also says as a time, backed or worked out above, is that time: "7 PM".)
    passed = {h % 12 for h, m in said.times if m == 0 and f"{h:02d}:00" not in missing}
    missing += [f"{h}:00" for h in sorted(said.hours)
                if h % 12 not in passed and not any(kh % 12 == h % 12 and km == 0 for kh, km in known.times)]
    missing += sorted(said.emails - known.emails)
    # A link must be one a source gave, exactly: added path, query or fragment is new data.
    missing += sorted(u for u in said.urls if u not in known.urls)
    missing += sorted(d for d in said.domains - known.domains
                      if not any(e.endswith("@" + d) for e in said.emails - known.emails))
    plain = {n.replace(".", "") for n in known.numbers}  # "1.200" in a source backs "1200"
    arithmetic = (said.operation or known.asked_calculation) and len(said.amounts | said.figures) <= MAX_DERIVED
    # A textbook fact asked in general terms ("100 °C", "42,195 km") needs no tool; prices, times,
    # dates, contacts and codes are never such facts, nor is what a sentence ties to someone's world.
    # So is what a suggestion proposes when nothing was looked up ("a plan could be three runs a week,
    # 20 to 30 minutes each"): advice, not a fact of the user's world.
    # The same goes for an answer to "what can I do?", whose names are the advice's ("update your
    # LinkedIn"), not places of the user's.
    advice = not known.looked_up and known.asked_advice
    # What a public rule says ("under the federal hours-of-service rules… 11 hours", "two years, under the
    # Statute of Limitations Act") is a textbook figure too, however much the sentence speaks of the user.
    rule = (not known.looked_up and not claims_action and not known.asked_code and not known.asked_number
            and not known.asked_own_amount and bool(text)
            and bool(said.measures or said.figures or said.minutes or said.days) and _cites_a_rule(text))
    # (Nor is the figure asked for as such: "what was Marta's split at the relay? need the number".)
    textbook = rule or ((known.general or advice or (not known.looked_up and bool(_SUGGESTS.search(text))))
                and not claims_action and not known.asked_code and not known.asked_number
                # (A price asked, "what did the co-op pay per gallon?", is no textbook figure: "38.50 per gallon".)
                and not (known.asked_price and not said.measures)
                and bool(said.measures or said.figures)
                and bool(text) and not (_PARTICULAR.search(text[:MAX_PARTICULAR_CHARS]) if advice
                                        else _is_particular(text, known.general_names)))
    sentence_words = {w.casefold() for w in re.findall(r"[^\W\d_]{4,}", text[:MAX_PARTICULAR_CHARS])}
    if (not textbook and known.general_part_words and not claims_action and bool(said.measures or said.figures)
            and known.general_part_words & sentence_words):
        # The sentence takes up a general question asked beside the rest ("Madrid → Valencia: about 355 km").
        topics = frozenset(w.capitalize() for w in known.general_part_words) | _TEXTBOOK_NAMES
        textbook = not _is_particular(text, topics)
    # A span between two times the sources give ("08:10 to 10:55: two hours and forty-five minutes") is
    # sourced, and so are the numbers it is said with.
    spans_known = _known_spans(said, known)
    span_parts = {str(v) for m in spans_known for v in (m, m // 60, m % 60) if v}
    # With nothing looked up, a span is what the assistant knows or works out ("boil them 7–8 minutes", "the
    # transfer takes about 32 minutes", "a 50–80 minute cushion"): the facts of the user's world that a model
    # makes up come as times, dates, prices, contacts and codes. Asked how long a thing of theirs lasts, the
    # span is the answer, and is checked below.
    known_span = (not known.looked_up and not known.asked_duration and not known.asked_own_amount
                  and not known.asked_when and not claims_action)
    if proposes or advises or known_span:  # "a reminder 15 minutes before?": a span put as a choice states nothing
        spans_known |= set(said.minutes)
        span_parts |= {str(v) for m in said.minutes for v in (m, m // 60, m % 60) if v} | {
            str(v) for d in said.days for v in (d, d // 7 if d % 7 == 0 else 0) if v}
    if textbook:
        spans_known |= set(said.minutes)
    missing += [f"a span of {_span_label(m)}" for m in sorted(set(said.half_hours)) if m not in spans_known]
    # Worked out in steps ("$966 in total, so $161 each"): a result is an operand of the next one.
    # (Any number of the sentence may be such a step: "1,736 in total, so 434 each" needs 1,736, which is
    # neither an amount nor a figure.)
    # (A chain of such steps in one sentence, "23,80 €… la diferencia es de 36,20 € al mes (434,40 € al
    # año)", is followed for a few steps.)
    steps = [n for n in sorted(said.amounts | said.figures | said.numbers)[:MAX_OPERANDS] if n not in known.numbers]
    derived = worked_out
    for _ in range(MAX_STEPS if arithmetic else 0):
        found = frozenset(n for n in steps if n not in derived and _derived_number(n, said, known, derived))
        if not found:
            break
        derived |= found
    missing += sorted(a for a in said.amounts if a not in known.numbers and a.replace(".", "") not in plain
                      and a not in span_parts and not (textbook and a in said.measures)
                      and not _sum_shown(a, said, known)
                      and not (arithmetic and (a in derived or _derived_number(a, said, known, derived))))
    missing += sorted(f"number {a} of an address" for a in said.addresses
                      if a not in known.numbers and a.lstrip("0") not in known.numbers)
    # (A calendar count passes only where the sentence works with it: "60 × 12 = 720 €", not "room 24, 7 days".)
    missing += sorted(f for f in said.figures - (said.constants if said.operation else frozenset())
                      if f not in known.numbers
                      and f.replace(".", "") not in plain
                      and f not in span_parts and not textbook and not _sum_shown(f, said, known)
                      and not (arithmetic and (f in derived or _derived_number(f, said, known, derived))))
    missing += sorted(p for p in said.phones if not any(p in k or k in p for k in known.phones))
    missing += sorted(f"code {c}" for c in said.codes - known.codes)
    # (And what a record of theirs says: "what did the scan say?" "A grade two sprain.")
    # (So is what the user's own records hold: "¿a cuánto vendimos el cordero?" "A 9,80"; but of the things a
    # lookup listed, "1 of the 2 is unpaid" counts them.)
    own = known.asked_own_amount and not (known.asked_number or known.asked_price or known.asked_record)
    if known.asked_number or known.asked_price or known.asked_record or known.asked_own_amount:
        counted = _counted(text, known.listed)  # "your three bills" after a read listing three
        missing += sorted(n for n in said.spoken_numbers - said.figures - said.amounts
                          if n not in known.numbers and n.replace(".", "") not in plain and n not in counted
                          and not (own and n.isdigit() and int(n) <= known.listed)
                          and not (arithmetic and _derived_number(n, said, known)))
    if known.asked_code:  # "what's the wifi password?" "It's Sunflower-88.": however it is cased
        missing += sorted(f"code {c}" for c in said.coded_words - said.codes if c not in known.codes)
        # "what was the id of my last reminder?" "r-4471": the digits of an id are the answer too.
        missing += sorted(f"code {n}" for n in said.numbers - said.figures - said.amounts
                          if len(n) >= MIN_ID_DIGITS and n not in known.numbers and n not in plain
                          and f"code {n}" not in missing)
        # "It's 4-7-1-9", "el 3 5 8 2": a code read out digit by digit is that code.
        spelled = {"".join(filter(str.isdigit, m.group(0))) for m in _each(_DIGIT_BY_DIGIT, text)}
        missing += sorted(f"code {d}" for d in spelled if d not in known.codes and d not in known.numbers
                          and f"code {d}" not in missing)
    # "which gate?" "Head to B14.": a short code is the answer too; and after a lookup it is one of the
    # looked-up thing's particulars ("sale de la T4, puerta J52"), which the lookup must give.
    if known.asked_number or (known.looked_up and not known.general):
        missing += sorted(f"code {c}" for c in said.short_codes if _compact(c) not in known.codes
                          and (known.asked_number or not _STANDARD_CODE.match(_compact(c))))
    missing += [f"{_WEEKDAY_LABELS[w]} {d:02d}/{m:02d}" if m else f"{_WEEKDAY_LABELS[w]} {d}"
                for w, y, m, d in sorted(said.weekdays) if not _weekday_fits(w, y, m, d, known)]
    # "On Friday at 9" dates something too, and so does the answer to "when is it?" or to "what have I got?"
    dates_something = claims_action or bool(said.times or said.hours) or known.asked_when or known.asked_listing
    if dates_something:  # "on Friday at 9" dates something too, and so does the answer to "when is it?"
        missing += [_WEEKDAY_LABELS[w] for w in sorted(said.lone_weekdays - known.lone_weekdays)]
    if dates_something:
        missing += [f"next {_WEEKDAY_LABELS[w]}" for w in sorted(said.next_weekdays - known.next_weekdays)
                    if w in known.lone_weekdays]  # (the others are reported above)
    if known.asked_duration and not proposes and not textbook:  # "how long?" "About an hour."
        missing += [f"a span of {_span_label(m)}" for m in sorted(set(said.minutes) - set(said.half_hours))
                    if m not in spans_known and not {str(m), str(m // 60), str(m % 60)} & set(missing)]
    if known.asked_when and not proposes:  # "in two weeks", "dentro de quince días"
        # ("A day or two after the new moon", "tres días antes del examen": counted from a thing, not from today.)
        from_a_thing = {d for m in _each(_FROM_A_THING, text) for d in _spans(_digits_for_words(m.group(1)))[1]}
        missing += [f"in {n} days" for n in sorted(set(said.days) - from_a_thing) if str(n) not in known.numbers
                    and not (n % 7 == 0 and str(n // 7) in known.numbers)]
    if (known.asked_name or known.asked_names) and text:
        missing += [f"the name {name}" for name in _said_names(text, answering=known.asked_name)
                    if name.lower() not in known.source_text]
    if known.asked_count and known.listed >= 0:
        # "How many are on my list?" "8 items": more than any looked-up list holds, and no source says 8.
        spans = {m // 60 for m in said.minutes} | set(said.days) | set(said.minutes)
        missing += [f"count {n}" for n in sorted(said.spoken_numbers - said.amounts - said.figures)
                    if n.isdigit() and int(n) > known.listed and n not in known.numbers and int(n) not in spans]
    # (Advice dates nothing of the user's: "si se te acabaron antes de las 2, vale la pena preparar más mañana".)
    if known.today is not None and dates_something and (claims_action or not _SUGGESTS.search(text[:MAX_SCAN_CHARS])):
        missing += [f"{word} ({day:%d/%m})" for offset, word in sorted(_RELATIVE_LABELS.items())
                    if offset in said.relative_days
                    and ((day := known.today + timedelta(days=offset)).month, day.day) not in known.dates]
    if missing and text and len(known.numbers) <= MAX_SOURCE_NUMBERS:
        missing = [m for m in missing if m not in _paced(text, known)]
    if missing and _CALL_FOR_HELP.search(text):
        # The emergency numbers are everyone's: "si no respira, llama al 112" invents nothing.
        # (They are no operands of arithmetic: only the number itself, where the sentence says to call it.)
        missing = [m for m in missing if m not in EMERGENCY_NUMBERS]
    return missing


# A quotient of minutes said as minutes and seconds: "45 minutes over 8 km, 5 min 38 s per km".
_MINUTES_SECONDS = re.compile(r"(?<![\d.,])(\d{1,3})\s*(?:min(?:utos?|utes?|s)?|')\s*(?:y|and|,)?\s*(\d{1,2})\s*"
                              r"(?:s(?:egundos?|econds?|ecs?)?|\"|'')(?!\w)", re.IGNORECASE)


# A public rule named as the source of what a sentence says: "under the 2016 junior doctor contract", "by law",
# "según el Estatuto de los Trabajadores", "la normativa marca". Not the user's own ("under your contract").
_RULE = (r"(?:rules?|regulations?|regs|laws?|act|contract|directive|guidelines?|guidance|code|standards?|statute|"
         r"convention|ley|leyes|normativa|norma|reglamento|convenio|estatuto|c[óo]digo|directiva|reglas?|decreto)")
_CITES_RULE = re.compile(
    rf"\b(?:under|per|according\s+to|as\s+per|by|in)\s+(?:the\s+)?(?:[\w()-]+\s+){{0,6}}?{_RULE}\b"
    rf"|\b(?:seg[úu]n|por|con|bajo|en)\s+(?:la|el|los|las)\s+(?:[\w()-]+\s+){{0,6}}?{_RULE}\b"
    r"|\bby\s+law\b|\bpor\s+ley\b|\brule\s+of\s+thumb\b|\bregla\s+general\b|\bthe\s+(?:legal\s+)?(?:limit|rule)s?\s+(?:is|are|says?)\b"
    r"|\b(?:la|el)\s+(?:ley|normativa|norma|convenio|estatuto|reglamento)\s+(?:dice|establece|marca|permite|obliga|fija)\b",
    re.IGNORECASE,
)


# A span counted from a thing the sentence names: "a day or two after the new moon", "3 días antes del examen",
# "28 days from the date on the letter".
_FROM_A_THING = re.compile(r"((?:[^\W_]+\s+){1,5}?)(?:after|before|from|antes\s+de|despu[ée]s\s+de|tras|desde|"
                           r"a\s+partir\s+de)\s+"
                           r"(?:the|a|an|el|la|los|las|del|un|una|cada)\b", re.IGNORECASE)


def _cites_a_rule(text: str) -> bool:
    """`text` says what a public rule, law or standard lays down (not a rule of the user's own)."""
    return any(not _POSSESSIVE.search(m.group(0)) for m in _each(_CITES_RULE, text[:MAX_PARTICULAR_CHARS]))


def _paced(text: str, known: Details) -> set[str]:
    """The minutes and seconds of `text` that say, to the second, a quotient of two sourced numbers."""
    said_paces = list(_each(_MINUTES_SECONDS, text))
    if not said_paces:
        return set()
    sourced = [v for n in sorted(known.numbers) if (v := _value(n))]
    quotients = [a / b for a in sourced for b in sourced if a != b]
    found: set[str] = set()
    for m in said_paces:
        said = int(m.group(1)) + int(m.group(2)) / 60
        if any(abs(q - said) <= 1 / 60 + 1e-9 for q in quotients):
            found |= {m.group(1), m.group(2)}
    return found


# A time the assistant proposes for what it offers ("¿te lo pongo a las 9?", "shall I set it for 7?") is
# a choice put to the user, not a fact it states. One tied to the user's things ("before your 07:45
# flight") still states one.
_PROPOSED_TIME = re.compile(
    r"\b(?:at|for|around|about|by|a|para|sobre|hacia)\s+(?:las?\s+|the\s+)?\d{1,2}(?:[:.h]\d{2})?"
    r"(?:\s*(?:am|pm|a\.\s?m\.|p\.\s?m\.|h|hrs?|horas?)\b)?(?![\d:.,]?\d)",
    re.IGNORECASE,
)


_EMPHASIS = re.compile(r"\*+|(?<!\w)_+|_+(?!\w)")


# A condition the answer puts to the user ("if you change it every 50 hours", "si lo cambias cada 100
# horas"): what it assumes, not what a source said. Up to the clause's end.
_ASSUMING = re.compile(
    r"\b(?:if|assuming|supposing)\s+(?:you|you're|your)\b[^,;:—–\n.!?]{0,120}"
    r"|\bsi\s+(?:(?:lo|la|los|las|le|les|te|se|tú)\s+)?[^\W\d_]+(?:as|es)\b[^,;:—–\n.!?]{0,120}",
    re.IGNORECASE,
)
# What a condition may assume: a count or a span. Money, a time, a date, a contact or a code in it is
# still the user's particular ("if you ring 0161…", "if you pay the £45 fee").
_PARTICULAR_IN_CONDITION = re.compile(r"[€$£@/]|\b(?:euros?|dollars?|d[oó]lares|pounds?|libras|pesos)\b|\d[:.h]\d\d"
                                      r"|\d[\s-]?\d[\s-]?\d[\s-]?\d", re.IGNORECASE)


_ASSUMED_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def without_assumptions(text: str) -> str:
    """`text` without the numbers its conditions only assume (their words stay: "if you'd rather round up")."""
    return _ASSUMING.sub(lambda m: m.group(0) if _PARTICULAR_IN_CONDITION.search(m.group(0))
                         else _ASSUMED_NUMBER.sub(" ", m.group(0)), text[:MAX_SCAN_CHARS])


# Short codes everyone uses, which name no particular of the user's: paper sizes, vitamins.
_STANDARD_CODE = re.compile(r"^(?:a[0-9]|b(?:[1-9]|1[0-2])|d[23]|k2)$", re.IGNORECASE)


# A thing of the user's just before a time: "your appointment at 10", "tu cita de las 10": that time is
# the thing's, not one the offer proposes.
_OWNED_BEFORE = re.compile(rf"{_POSSESSIVE.pattern}(?:\s+[^\W\d_]+){{0,3}}\s*$", re.IGNORECASE)


def without_proposed_times(text: str) -> str:
    """`text` (a question or an offer) without the times it proposes; a time said of the user's things stays."""
    text = _EMPHASIS.sub("", text[:MAX_SCAN_CHARS])  # "for **08:30**" proposes too
    return _PROPOSED_TIME.sub(lambda m: m.group(0) if _OWNED_BEFORE.search(text[max(m.start() - 40, 0):m.start()])
                              else " ", text)


_WEEKDAY_LABELS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_RELATIVE_LABELS = {2: "the day after tomorrow", 1: "tomorrow", -1: "yesterday", -2: "the day before yesterday"}


def _weekday_of(year: int, month: int, day: int) -> int | None:
    try:
        return date(year, month, day).weekday()
    except ValueError:
        return None


def _weekday_fits(weekday: int, year: int, month: int, day: int, known: Details) -> bool:
    """A weekday said with a date agrees with the date's year where one is known, else with a nearby year.

    A weekday a source pairs with the same date wins ("Dentista: jueves 4 de febrero" says it is a
    Thursday); then the years sources give that date; then the year of the answer; then the last and the
    next time that date comes round.
    """
    if year:
        return _weekday_of(year, month, day) == weekday
    paired = {w for w, _, m, d in known.weekdays if d == day and (m == month or not month or not m)}
    if paired:
        return weekday in paired
    years = {(y, m) for y, m, d in known.full_dates if d == day and (m == month or not month)}
    if years:
        return any(_weekday_of(y, m, day) == weekday for y, m in years)
    if known.today is None:
        return True
    today = known.today
    if month:
        nearby = [(today.year + shift, month) for shift in (-1, 0, 1)]
    else:
        nearby = [((today.year * 12 + today.month - 1 + shift) // 12, (today.month - 1 + shift) % 12 + 1)
                  for shift in (-1, 0, 1)]
    days = sorted(d for y, m in nearby if (d := _date_or_none(y, m, day)) is not None)
    # The last and the next time that date comes round (or the two nearest, a day of the month alone).
    past = [d for d in days if d < today][-1:]
    coming = [d for d in days if d >= today][:1]
    return any(d.weekday() == weekday for d in past + coming)


def _date_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


# Arithmetic is not invention: "two hours before 07:40 is 05:40", "six weeks before 12 August is
# 1 July", "900 € plus 5% is 945 €". A derived time or date passes when it is a sourced one plus
# or minus spans of time that the sentence states or the user gave, and the base is one the
# sentence names or the user gave (a time read in a note must be shown next to what is derived
# from it). A derived number needs a word of arithmetic in its sentence and operands the
# sentence states or the user gave. The spans and numbers used are checked like any other
# detail. "Be there by 06:00" for a 07:40 flight shows no arithmetic and uses no given span: it
# stays unsourced, and the correction asks for the arithmetic to be shown.


# A number that counts things: "three bills", "tus dos citas" (a plural noun after it, no unit).
_COUNT_OF = re.compile(r"(?<![\w.,])(\d{1,3})\s+(?:of\s+(?:your|the|my|them)\s+|de\s+(?:tus|las|los|mis)\s+)?"
                       r"(?!(?:euros|dollars|d[oó]lares|pounds|libras|hours|horas|minutes|minutos|days|d[ií]as|weeks|"
                       r"semanas|months|meses|years|años|percent|points|puntos)\b)[^\W\d_]{2,}s\b", re.IGNORECASE)


def _counted(text: str, listed: int) -> set[str]:
    """Numbers of `text` that count things, up to how many the lookups listed."""
    if listed <= 0 or not text:
        return set()
    return {m.group(1) for m in _each(_COUNT_OF, _digits_for_words(text[:MAX_SCAN_CHARS]))
            if int(m.group(1)) <= listed}


HISTORY_YEARS = 2
"""A date at least this many years before today, in an answer to a general question, is history."""
MAX_TIMED = 60
"""Times of the sources whose differences back a span the answer says (the rest are not paired)."""


def _known_spans(said: Details, known: Details) -> set[int]:
    """The spans of `said` (in minutes) that a source says, or that lie between two times known."""
    if not said.minutes:
        return set()
    plain = {n.replace(",", ".") for n in known.numbers}
    backed = {m for m in said.minutes
              if str(m) in plain or (m % 60 == 0 and str(m // 60) in plain)
              or (m % 60 == 30 and f"{m // 60}.5" in plain)}
    if len(backed) < len(set(said.minutes)):
        between = _between(known.times)
        backed |= set(said.minutes) & between
        # One step from those ("8 horas y media; quitando los 45 minutos de la comida, 7 horas y 45"): the sum
        # or the difference of two spans the sentence says and the sources back.
        backed |= {m for m in said.minutes if any(b + s == m or b - s == m for b in backed for s in backed if s != m)}
    return backed


def _between(times: frozenset[tuple[int, int]]) -> set[int]:
    """Minutes from each known time to each other (the first MAX_TIMED of them), within a day."""
    clock = sorted({h * 60 + m for h, m in times})[:MAX_TIMED]
    return {(b - a) % 1440 for a in clock for b in clock if a != b}


def _span_label(minutes: int) -> str:
    return f"{minutes // 60}h{minutes % 60:02d}" if minutes >= 60 else f"{minutes} min"


def _sums(spans: tuple[int, ...]) -> set[int]:
    return {sum(combo) for size in range(1, len(spans) + 1) for combo in combinations(spans, size)}


def _derived_time(group: set[tuple[int, int]], said: Details, known: Details,
                  worked_spans: tuple[int, ...] = ()) -> bool:
    # A sourced time the sentence does not say is a base too ("salir a las 5:25" for the 6:00 of the note,
    # 35 minutes before): the spans must still be the sentence's or the user's.
    bases = (said.times & known.times) | known.given_times
    if len(known.times) <= MAX_TIMED:
        bases |= known.times
    spans = (said.minutes + known.minutes + worked_spans)[:MAX_SPANS]
    if not bases or not spans:
        return False
    sums = _sums(spans)
    targets = {h * 60 + m for h, m in group}
    return any((h * 60 + m + sign * span) % 1440 in targets
               for h, m in bases for span in sums for sign in (1, -1))


def _derived_date(target: tuple[int, int], said: Details, known: Details) -> bool:
    bases = (said.dates & known.dates) | known.given_dates
    spans = (said.days + known.days)[:MAX_SPANS]
    if not bases or not spans:
        return False
    sums = _sums(spans)
    for year in (2001, 2004):  # a common and a leap year: the answer names no year
        try:
            wanted = date(year, *target)
            starts = [date(year, *base) for base in bases]
        except ValueError:
            continue
        for start in starts:
            for span in sums:
                for sign in (1, -1):
                    day = start + timedelta(days=sign * span)
                    if (day.month, day.day) == (wanted.month, wanted.day):
                        return True
    return False


_OPERATION = re.compile(
    r"\b(?:plus|minus|more|less|total|sum|times|per|each|difference|off|discount|up|down|altogether|"
    r"m[áa]s|menos|suma|por|cada|diferencia|descuento|sube|baja|subida|bajada|en\s+total|percent|por\s+ciento|"
    # a share, a conversion or what is left: "that's 75%", "about 356 °F", "£1,500 to go"
    r"split|a\s+head|which\s+is|that'?s|to\s+go|left|remaining|entre\s+(?:los|las)\s+\w+|que\s+son|quedan|faltan|"
    # what several come to: "that comes to €36 for the three", "serían 24 por los dos"
    r"that'?ll\s+be|that\s+would\s+be|comes?\s+to|for\s+(?:both|the\s+(?:two|three|four|five|lot))|ser[íi]an?|"
    r"por\s+(?:los|las)\s+(?:dos|tres|cuatro|cinco)|"
    r"about|around|roughly|approximately|aproximadamente|unos|unas|a\s+(?:month|year|week|day)|"
    r"al\s+(?:mes|a[ñn]o|d[íi]a)|a\s+la\s+semana|durante|over|under|above|below|por\s+encima)\b"
    r"|[+×=−%≈]|\d\s?x\s?\d",
    re.IGNORECASE,
)


# A sentence that names two calendar units brings the count that turns one into the other:
# "32,50 € al mes (390 € al año)", "3 € a day, 21 € a week". One unit alone brings none ("Seven days
# left" is a figure, not a week), unless the count is worked with in the open: "al año: 60 × 12 = 720 €".
_YEAR = re.compile(r"\b(?:years?|yearly|annual(?:ly)?|a[ñn]os?|anual(?:es|mente)?)\b", re.I)
_MONTH = re.compile(r"\b(?:months?|monthly|mes(?:es)?|mensual(?:es|mente)?)\b", re.I)
_WEEK = re.compile(r"\b(?:weeks?|weekly|semanas?|semanal(?:es|mente)?)\b", re.I)
_DAY = re.compile(r"\b(?:days?|daily|d[íi]as?|diari[oa]s?|diariamente)\b", re.I)
_HOUR = re.compile(r"\b(?:hours?|hourly|horas?)\b", re.I)
_MINUTE = re.compile(r"\b(?:minutes?|minutos?|mins?)\b", re.I)
_CALENDAR = (
    ("12", _YEAR, _MONTH), ("52", _YEAR, _WEEK), ("365", _YEAR, _DAY),
    ("7", _WEEK, _DAY), ("24", _DAY, _HOUR), ("60", _HOUR, _MINUTE),
)
_WORKED_WITH = (re.compile(r"(?:[×*/÷]|\bx)\s?(\d+)\b", re.I), re.compile(r"\b(\d+)\s?(?:[×*/÷]|x\b)", re.I))


def _calendar_constants(text: str) -> frozenset[str]:
    """The counts between calendar units that the sentence's words bring (see `_CALENDAR`)."""
    operands = {m.group(1) for pattern in _WORKED_WITH for m in islice(pattern.finditer(text), MAX_SPANS)}
    return frozenset(n for n, one, other in _CALENDAR
                     if (one.search(text) and other.search(text))
                     or (n in operands and (one.search(text) or other.search(text))))


def _value(number: str) -> float | None:
    """A normalised number as a float; '1.000' (a thousands dot) is a thousand."""
    head, _, tail = number.partition(".")
    try:  # ("0,028" is a fraction: no thousands start with 0)
        return float(head + tail) if len(tail) == 3 and head.strip("0") else float(number)
    except ValueError:
        return None


MIN_ID_DIGITS = 3
"""Asked for a code or an id, a bare number this long is one ("r-4471"); shorter ones count things."""
# Asking which number a place (or a line, a bus) has: the places `_NUMBERED_PLACE` knows, and a few more
# whose numbers an answer may also give for other reasons ("line 2 of your note").
# "What's the wifi password?", "¿cuál es el localizador?": a word with digits in the answer is the code.
# (An office's extension is a code of the user's world too: "cuál es la extensión de coordinación?", "the ext?".)
_CODE_WORD = (r"(?:password|passcode|passphrase|pin|code|c[óo]digo|contrase[ñn]a|clave|localizador|locator|reference|"
              r"extensi[óo]n|extension|ext|interno|ticket|incidencia|expediente|tracking|seguimiento|"
              r"id|identifier|identificador|referencia|ref|username|user\s*name|login|usuario|user\s*id|"
              r"confirmation|serial|licen[cs]e\s+key|wi-?fi\s+key|matr[íi]cula|placa|patente|"
              r"(?:licen[cs]e|number|registration)\s+plate|plate\s+number|reg\s+number)")
# Asking the time in another place, or the difference: "what time is it in Tokyo?", "q hora es aqui en canarias?".
_ZONE_QUESTION = re.compile(
    r"\bwhat\s+time\s+(?:is\s+it|(?:would|will)\s+it\s+be|is\s+that)\s+(?:in|there|here|over)\b|\btime\s+difference\b"
    r"|\btime\s+zones?\b|\bq(?:u[ée])?\s+hora\s+(?:es|ser[íi]a|son|ser[áa]n?)\s+(?:en|all[íi]|all[áa]|aqu[íi]|ac[áa])\b"
    r"|\bdiferencia\s+horaria\b|\bhuso\s+horario\b",
    re.IGNORECASE,
)
# Asking when something of the user's is: a weekday, "next week" or "in two weeks" is then the answer.
_WHEN_QUESTION = re.compile(
    r"\b(?:when(?:'s|\s+is|\s+was|\s+are|\s+were|\s+do\s+i\s+have|\s+did|\s+does|\s+will)|"
    r"what\s+(?:day|date)|which\s+day|cu[áa]ndo\s+(?:es|era|fue|son|tengo|ten[íi]a|me\s+toca|toca|hay|vence|caduca|"
    r"empieza|sale|llega|vuelve)|qu[ée]\s+(?:d[íi]a|fecha))\b",
    re.IGNORECASE,
)
# Asking what to do: "what else can I do?", "any tips?", "how often should I…?", "¿qué me recomienda?".
_ADVICE_QUESTION = re.compile(
    r"\bwhat\s+(?:else\s+)?(?:can|could|should|shall|would\s+you\s+suggest)\s+(?:i|we)\s+do\b|"
    r"\bwhat\s+do\s+you\s+(?:suggest|recommend|advise)\b|\bany\s+(?:tips|advice|ideas|suggestions)\b|"
    # Ideas asked for: "help me come up with a few bingo calls", "ayúdame a pensar unos nombres".
    r"\bcome\s+up\s+with\b|\bbrainstorm\b|\bay[úu]dame\s+a\s+(?:pensar|inventar|sacar)\b|"
    r"\bhow\s+(?:often|long|many\s+times)\s+should\s+(?:i|we)\b|\bcada\s+cu[áa]nto\s+(?:debo|deber[íi]a|tengo\s+que|"
    r"hay\s+que)\b|"
    r"\b(?:give|got)\s+(?:me\s+)?(?:any\s+|some\s+)?(?:tips|advice)\b|\bhow\s+(?:can|should|do)\s+(?:i|we)\s+"
    r"(?:best\s+)?(?:prepare|improve|deal\s+with|cope\s+with|get\s+better)\b|"
    r"\bqu[ée]\s+(?:m[áa]s\s+|otra\s+cosa\s+)?(?:puedo|podr[íi]a|deber[íi]a|debo|podemos|deber[íi]amos)\s+hacer\b|"
    r"\bqu[ée]\s+me\s+(?:recomiendas?|aconsejas?|sugieres|sugiere|propones?)\b|\balg[úu]n\s+(?:consejo|truco|idea)\b|"
    # Advice for someone else, and what to do next after a thing is done: "qué le puedo aconsejar?", "q sigue".
    r"\bq(?:u[ée])?\s+(?:le|les|te)\s+(?:puedo|podr[íi]a|deber[íi]a)\s+(?:aconsejar|recomendar|sugerir|decir)\b|"
    r"\bwhat\s+(?:can|could|should)\s+i\s+(?:tell|advise|suggest\s+to|recommend\s+to)\b|"
    r"\b(?:what'?s|whats)\s+next\b|\bwhat\s+now\b|\bq(?:u[ée])?\s+sigue\b|\by\s+ahora\s+q(?:u[ée])?\b|"
    r"\bc[óo]mo\s+(?:puedo|podr[íi]a|debo)\s+(?:prepararme|preparar|mejorar)\b|"
    # How much to buy or cook for so many: "cuánto arroz pongo para 6 personas", "how much pasta for 8 people".
    r"\b(?:cu[áa]nt[oa]s?|how\s+(?:much|many))\b[^.?!]{0,50}?\b(?:para|for)\s+(?:\d+|[^\W\d_]+)\s+"
    r"(?:personas|invitados|comensales|ni[ñn]os|adultos|people|guests|kids|adults|servings|raciones)\b",
    re.IGNORECASE,
)
# Asking how long: "how long is the ride?", "¿cuánto dura?", "¿cuánto tardo en llegar?".
_DURATION_QUESTION = re.compile(
    r"\bhow\s+long\b|\bhow\s+much\s+time\b|\bhow\s+many\s+(?:hours|minutes|mins)\b"
    r"|\bcu[áa]nt[oa]s?\s+(?:tiempo|horas|minutos|rato|dura|duran|tard[oa]|tardas|tardamos|tardan|se\s+tarda|falta|"
    r"queda\s+para|llevo|lleva)\b|\bcu[áa]nto\s+(?:me\s+|nos\s+|le\s+|se\s+)?(?:dura|tarda|tardo|tardamos|lleva)\b",
    re.IGNORECASE,
)
# Asking for a name: the names in the answer are then the answer, and need a source.
_NAME_QUESTION = re.compile(
    r"\b(?:c[óo]mo\s+se\s+(?:llama|llamaba|llaman)|qu[ée]\s+nombre|(?:cu[áa]l|qu[ée])\s+(?:es|era)\s+el\s+nombre|"
    r"what(?:'s|\s+is|\s+was)\s+(?:the|its|his|her|their)\s+name|what\s+(?:is|was)\s+it\s+called|"
    r"what\s+(?:was|is)\s+the\s+[^\W\d_]+\s+called|who(?:'s|\s+is|\s+was)\s+(?:my|the)|qui[ée]n\s+(?:es|era)\s+(?:mi|el|la)|"
    # Who is coming or doing it: "who's coming to inspect?", "¿quién viene a revisar?".
    r"who(?:'s|\s+is)\s+(?:coming|doing|taking|running|covering)\b|qui[ée]n\s+(?:viene|vendr[áa]|cubre|lleva)\b|"
    # "¿Me recuerdas el nombre del fontanero?", "remind me of the name of the plumber".
    r"(?:the|el|su|his|her|their|its)\s+(?:name|nombre)\s+(?:of|de|del)\b|"
    r"(?:which|what)\s+(?:restaurant|hotel|shop|store|doctor|dentist|bar|caf[ée]|company|school|clinic|client|"
    r"customer|supplier|vendor|contact|agency|firm)|"
    r"qu[ée]\s+(?:restaurante|hotel|tienda|m[ée]dico|doctor|dentista|bar|empresa|colegio|cl[íi]nica|cliente|"
    r"proveedor|contacto|agencia|gestor[íi]a))\b",
    re.IGNORECASE,
)
# A name: capitalised words after the first of a sentence ("Se llama Casa Montes", "It's the Miramar").
_NAME = re.compile(r"(?<=[^\W\d_]\s)"
                   r"(?-i:[A-ZÁÉÍÓÚÑ][^\W\d_]+(?:\s+(?:de(?:l)?\s+|la\s+|the\s+)?[A-ZÁÉÍÓÚÑ][^\W\d_]+)*)")
# A name after a title and its dot ("El Dr. Ibarra", "Mrs. Patel"), which `_NAME` cannot see past the dot.
_TITLED_NAME = re.compile(r"\b(?:Dr|Dra|Sr|Sra|Srta|Mr|Mrs|Ms|Prof|Profa|Lic|Ing)\.\s+"
                          r"(?-i:([A-ZÁÉÍÓÚÑ][^\W\d_]+(?:\s+[A-ZÁÉÍÓÚÑ][^\W\d_]+)*))")
# Asking who or where: "who's coming to the planning?", "¿dónde comemos el domingo?".
_WHO_OR_WHERE = re.compile(r"\b(?:who|whom|where|qui[ée]n(?:es)?|d[óo]nde|ad[óo]nde)\b", re.IGNORECASE)
# Asking what a note (a list, a page) of the user's says.
_SOURCE_QUESTION = re.compile(
    r"\bwhat\s+(?:did|have)\s+i\s+(?:write|written|wrote|note|noted|put|jot|jotted|save|saved)\b"
    r"|\bwhat\s+(?:does|do|did)\s+(?:my|the)\s+[^\W\d_]+(?:\s+[^\W\d_]+)?\s+say\b|\bwhat'?s\s+in\s+my\b"
    r"|\bqu[ée]\s+(?:escrib[íi]|apunt[ée]|anot[ée]|puse|guard[ée]|tengo\s+(?:apuntado|anotado|escrito))\b"
    r"|\bqu[ée]\s+(?:pone|dice|dec[íi]a|pon[íi]a)\b|\bqu[ée]\s+hay\s+en\s+(?:mi|mis|la|el)\b",
    re.IGNORECASE,
)
# Asking what one has: "what reminders have I got?", "what's on my list?", "¿qué tengo mañana?".
_LISTING_QUESTION = re.compile(
    r"\bwhat(?:'s|\s+is|\s+are)?\s+(?:on|in)\s+(?:my|the)\b"
    r"|\bwhat\s+(?:[^\W\d_]+\s+){0,2}(?:do\s+i\s+have|have\s+i\s+got|i'?ve\s+got|is\s+(?:coming\s+up|pending|due|left)|"
    r"are\s+(?:coming\s+up|pending|due|left))\b"
    r"|\b(?:any|my)\s+(?:reminders|tasks|events|meetings|appointments|e-?mails|mails|messages|plans|to-?dos|bills)\b"
    r"|\b(?:list|show|read|tell)\s+(?:me\s+)?(?:all\s+)?(?:of\s+)?my\b"
    r"|\bqu[ée]\s+(?:[^\W\d_]+\s+){0,2}(?:tengo|me\s+quedan?|hay\s+en|llevo\s+en|meto\s+en)\b"
    r"|\bwhat\s+(?:do\s+i|am\s+i)\s+(?:pack|packing|bring|bringing|taking)\b"
    r"|\b(?:mis|tengo)\s+(?:recordatorios|tareas|citas|eventos|correos|planes|pendientes|facturas)\b"
    r"|\b(?:l[ée]eme|mu[ée]strame|d[íi]me|l[íi]stame|ens[ée][ñn]ame)\s+(?:mis|las|los|qu[ée])\b",
    re.IGNORECASE,
)


def asks_for_a_listing(user_text: str) -> bool:
    """The user asks what they have: their reminders, a list's entries, a day's plans."""
    return bool(_LISTING_QUESTION.search(user_text[:MAX_SCAN_CHARS]))


# Asking how many: "how many items", "¿cuántas tareas?".
# How many or how much of a thing the user has, has left, owes or spent: "how many vacation days have I
# got left?", "¿cuánto le debo a Mariana?", "¿cuántos días me quedan?". ("I've got 3 bananas, how do I
# make bread?" asks in general.)
_OWN_AMOUNT_QUESTION = re.compile(
    r"\b(?:how\s+(?:many|much)|cu[áa]nt[oa]s?)\s+(?:[\w'-]+\s+){0,4}?"
    r"(?:have\s+I|do\s+I\s+(?:still\s+)?(?:have|owe)|I\s+(?:still\s+)?(?:have|owe|had)|I'?ve\s+(?:got|left|spent)|"
    r"did\s+I|me\s+quedan?|nos\s+quedan?|tengo|ten[íi]a|llevo|llevamos|(?:le\s+|les\s+)?debo|he\s+\w+[ae]do|"
    # What the user is paid: "¿cuánto me pagan la hora?", "how much did the co-op pay me per kilo?".
    r"me\s+(?:pagan|pagaron|pag[óo]|pagaba|pagaban|pagar[áa]n?|dan|dieron|est[áa]n?\s+pagando)|(?:\w+\s+){0,3}?pa(?:y|id)\s+(?:me|us)|"
    r"(?:are|is)\s+(?:they|\w+)\s+paying\s+(?:me|us)|"
    # What the user is owed: "¿y cuánto me debe el Asador Zaldu?", "how much does Dave still owe us?".
    r"me\s+deben?|nos\s+deben?|(?:\w+\s+){0,3}?owes?\s+(?:me|us)|"
    # What the user set, sold or made: "¿a cuánto puse el ticket de niños?", "how many did we sell?".
    # (More of what "we" did: "¿cuántos kilos de boletus recogimos el sábado?", "cuántas ovejas esquilamos".)
    r"recogimos|cogimos|pescamos|cosechamos|esquilamos|juntamos|cortamos|llenamos|sembramos|plantamos|tuvimos|"
    r"recaudamos|reunimos|recorrimos|caminamos|corrimos|servimos|atendimos|despachamos|cargamos|descargamos|"
    r"repartimos|producimos|embotellamos|orde[ñn]amos|criamos|cazamos|subimos|bajamos|"
    r"puse|pusimos|hice|hicimos|cobr[ée]|cobramos|vend[íi]|vendimos|sacamos|ganamos|perdimos|gast[ée]|pagu[ée]|"
    r"compr[ée]|compramos|llev[ée]|fij[ée]|(?:I|we)\s+(?:put|set|charged|sold|made|got|paid|spent|bought)|did\s+we|"
    # Or what their latest batch gave: "¿cuántos litros salieron de la última destilada?".
    r"(?:del?|en)\s+(?:la|el)\s+[úu]ltim[oa]|(?:from|in|off)\s+(?:the|our)\s+(?:last|latest))\b",
    re.IGNORECASE,
)
# What a record of the user's says: "what did the scan say about Owen's knee?", "¿qué dijo el informe del perito?".
# Only that record can give its figures, however it words them ("a grade two sprain").
_RECORD_QUESTION = re.compile(
    r"\bwhat\s+(?:did|does|do|has|have)\s+(?:the|his|her|their|my|our|[A-Z]\w+'s)\s+(?:[\w'-]+\s+){0,2}?(?:scan|x-?rays?|mri|"
    r"report|results?|tests?|bloods|letter|email|invoice|quote|survey|inspection|assessment|ultrasound|biopsy|vet|"
    r"doctor|gp|consultant|physio|mechanic|surveyor|inspector|lab)\s+(?:say|show|find|said|showed|found|come\s+back)\b"
    r"|\bqu[ée]\s+(?:dijo|dice|dec[íi]a|sali[óo]|mostr[óo]|ha\s+dicho|ha\s+salido)\s+(?:en\s+)?(?:el|la|los|las|mi|su)\s+"
    r"(?:resonancia|radiograf[íi]a|esc[áa]ner|informe|an[áa]lisis|anal[íi]tica|resultados?|prueba|ecograf[íi]a|carta|"
    r"presupuesto|inspecci[óo]n|veterinari[oa]|m[ée]dic[oa]|mec[áa]nico|perito|laboratorio|fisio)\b"
    # The figure the user put down themselves: "what torque did I write down for the wheel nuts?", "¿qué peso apunté
    # del ternero?". (Not "what did I put in the garden note, and when do I plant tulips": the read tells the note.)
    r"|\b(?:what|which|how\s+(?:much|many))\s+[^\W\d_]+(?:\s+[^\W\d_]+)?\s+(?:did|have|had)\s+(?:i|we)\s+"
    r"(?:write|wr[io]te|written|note|noted|jot|jotted|put|log|logged|set|record|recorded|save|saved|enter|entered|"
    r"mark|marked)\b"
    r"|\b(?:qu[ée]|cu[áa]nto|cu[áa]ntos|cu[áa]ntas|a\s+cu[áa]nto)\s+(?:[\w]+\s+){1,2}?(?:apunt[ée]|anot[ée]|"
    r"registr[ée]|guard[ée]|apuntamos|anotamos|registramos)\b",
    re.IGNORECASE,
)
# What anyone is allowed by the rules, not what the user holds: "¿cuántos días tengo para devolver algo?",
# "how long do I have to return something bought online?" (not "how many days do I have to finish the report?").
_ALLOWED_BY_RULE = re.compile(
    r"\b(?:tengo|tenemos|tienes|tiene|have\s+I|do\s+(?:I|we|you)\s+have|does\s+one\s+have)\s+(?:para|to)\s+"
    r"[^\W\d_]+(?:se|lo|la|los|las)?\s+(?:algo|something|anything|una?|unos|unas|an?|any)\b",
    re.IGNORECASE,
)


def _asks_own_amount(user_text: str) -> bool:
    """How much or how many the user has, owes or has left: an answer only their own records give."""
    text = user_text[:MAX_SCAN_CHARS]
    return ((bool(_OWN_AMOUNT_QUESTION.search(text)) and not _ALLOWED_BY_RULE.search(text))
            or bool(_RECORD_QUESTION.search(text)))


_COUNT_QUESTION = re.compile(r"\bhow\s+many\b|\bcu[áa]nt[oa]s\b|\bnumber\s+of\b|\bn[úu]mero\s+de\b", re.IGNORECASE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)]|\[[ xX]\])\s+\S", re.MULTILINE)
_LIST_ITEM_LINE = re.compile(_LIST_ITEM.pattern + r".*$", re.MULTILINE)  # the whole line of an item
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^\s*\|[\s:|-]+\|\s*$", re.MULTILINE)


MAX_TOTALLED_LINES = 60
"""Lines of a list whose numbers are totalled (a longer list is not summed whole)."""


def _list_totals(text: str) -> set[float]:
    """The total and the mean of a list's numbers, one per entry ("- Monday: 5.2 km" …): what an answer
    gives when asked "how much in all?" or "and the average?"."""
    values: list[float] = []
    lines = _LIST_ITEM_LINE.findall(text[:MAX_SCAN_CHARS]) or text[:MAX_SCAN_CHARS].splitlines()  # "Mon 5.2 km"
    for line in lines[:MAX_TOTALLED_LINES]:
        numbers = [m.group(2) for m in _AMOUNT.finditer(_blank(line, (_TIME, _ISO_DATE, _NUM_DATE, _DAY_MONTH,
                                                                       _MONTH_DAY)))]
        value = _value(_number(numbers[-1])) if numbers else None
        if value is not None:
            values.append(value)
    if len(values) < 2:
        return set()
    return {sum(values), sum(values) / len(values)}




def _listed_things(text: str) -> int:
    """How many things a text lists: the items of its lists, else the rows of its tables, else its lines."""
    text = text[:MAX_SCAN_CHARS]
    items = len(_LIST_ITEM.findall(text))
    if items:
        return items
    rows = len(_TABLE_ROW.findall(text))
    if rows:
        rules = len(_TABLE_RULE.findall(text))
        return rows - 2 * rules if rules else rows  # each table's header and rule
    return sum(1 for line in text.splitlines() if line.strip())


_CODE_QUESTION = re.compile(
    rf"\b(?:what|what'?s|which|tell\s+me|give\s+me|send\s+me|remind\s+me\s+of|cu[áa]l|qu[ée]|dime|dame|p[áa]same|"
    rf"recu[ée]rdame)\b[^.?!,;\n]{{0,40}}?\b{_CODE_WORD}\b|\b{_CODE_WORD}\b[^.!?,;\n]{{0,25}}\?",
    re.IGNORECASE,
)
# How much medicine someone should have: that person's dose (age, weight, what else they take), never a
# textbook figure.
_MEDICINE = (r"(?:medicines?|medicina|medicamentos?|medication|tylenol|paracetamol|acetaminophen|ibuprofen[oa]?|"
             r"calpol|dalsy|apiretal|aspirin[a]?|antibiotics?|antibi[óo]ticos?|jarabe|syrup|pills?|pastillas?|"
             r"tablets?|comprimidos?|gotas|drops|insulin[a]?)")
# Whose dose: "can I give Lily", "le doy al niño", "for my son" (not "un adulto", "an adult").
_SOMEONES = re.compile(r"\b(?:give|giving|dar(?:le|les)?|le\s+doy|les\s+doy|le\s+puedo|les\s+puedo|my|mi|mis|our|"
                       r"nuestr[oa]s?|i|me|yo|he|she|him|her|he's|she's|[ée]l|ella)\b", re.IGNORECASE)
_DOSE_QUESTION = re.compile(
    rf"\b(?:dose|doses|dosage|dosis|posolog[íi]a)\b|\b(?:how\s+(?:much|many)|cu[áa]nt[oa]s?)\b[^?.!\n]{{0,40}}?\b{_MEDICINE}\b"
    rf"|\b{_MEDICINE}\b[^?.!\n]{{0,40}}?\b(?:how\s+(?:much|many)|cu[áa]nt[oa]s?)\b", re.IGNORECASE)
_PUBLIC_CODE = re.compile(r"\b(?:area|postal|zip|country|iso|dial(?:l)?ing|iata|icao|airport|currency|language|"
                          r"calling)\s+codes?\b|\bc[óo]digos?\s+(?:postal(?:es)?|de\s+(?:pa[íi]s|[áa]rea|aeropuerto|idioma|"
                          r"moneda|llamada))\b|\bprefijos?\b", re.IGNORECASE)
_NUMBER_QUESTION = re.compile(
    rf"\b(?:(?:which|what)(?:'?s|\s+is|\s+was)?(?:\s+(?:the|my|our))?|qu[ée]|cu[áa]l\s+(?:es|era|fue)\s+(?:el|la|mi|su))\s+"
    rf"(?:{_PLACES}|number|n[úu]mero|desk|line|l[íi]nea|bus|autob[úu]s)\b"
    # A mark the user got: "what mark did I get?", "¿cuánto saqué?", "¿qué nota me pusieron?".
    r"|\b(?:what|which)\s+(?:grade|mark|score)\b|\bwhat\s+did\s+i\s+(?:get|score)\s+(?:in|on|for)\b"
    # The number itself asked for: "necesito el número", "give me the figure".
    r"|\b(?:necesito|dame|dime|p[áa]same)\s+(?:el|la)\s+(?:n[úu]mero|cifra|dato)\b"
    r"|\b(?:need|give\s+me|tell\s+me|what'?s)\s+the\s+(?:number|figure|reading)\b"
    # A measure someone reached: "what was Yeison's exit velo at the tryout?", "¿cuál fue el tiempo de Ana?".
    r"|\bwhat\s+(?:was|is|were)\s+(?:[A-Z]\w+'s|his|her|their|my|our)\s+(?:[\w-]+\s+){0,2}?(?:velo(?:city)?|speed|"
    r"time|score|weight|height|reading|pace|temp(?:erature)?|pressure|level|best)\b"
    r"|\bcu[áa]l\s+(?:fue|es|era)\s+(?:la|el)\s+(?:velocidad|tiempo|marca|peso|lectura|cifra|temperatura|"
    r"presi[óo]n|nivel)\b"
    r"|\bcu[áa]nto\s+(?:saqu[ée]|he\s+sacado|me\s+(?:pusieron|dieron|han\s+puesto|han\s+dado))\b"
    r"|\bqu[ée]\s+(?:nota|calificaci[óo]n|puntuaci[óo]n)\s+(?:me\s+(?:pusieron|dieron|han\s+puesto|han\s+dado)|"
    r"saqu[ée]|he\s+sacado)\b",
    re.IGNORECASE,
)
# A question about how things are in general, not about the user's things: "at what temperature does
# water boil?", "¿cuántos kilómetros tiene una maratón?", "how many bones are in the human body?".
_GENERAL_QUESTION = re.compile(
    r"\?|^\W*(?:(?:quick\s+(?:one|question|q)|pregunta(?:\s+r[áa]pida)?|una\s+pregunta|oye|hey|btw)\W+)?"
    r"(?:whats|hows|wheres|whos|what|how|why|which|who|when|where|cu[áa]nt[oa]s?|c[óo]mo|qu[ée]|por\s+qu[ée]|cu[áa]l|qui[ée]n|"
    r"explain|explica|tell\s+me\s+(?:about|how|why|what)|recipe|receta|"
    # Asking for a recipe, instructions or tips is asking what is generally known.
    r"(?:give|send|show)\s+me\s+(?:a|the|some)\s+(?:recipe|tips|instructions|steps)|"
    r"(?:dame|p[áa]same|ens[ée][ñn]ame)\s+(?:la|una|unos|unas|los|las)\s+(?:receta|consejos|pasos|instrucciones)|"
    # A measure of a thing, named alone: "altura del Everest", "distance of a marathon".
    r"(?:height|altura|distance|distancia|population|poblaci[óo]n|length|longitud|depth|profundidad|area|"
    r"superficie|capital|diameter|di[áa]metro|elevation|elevaci[óo]n|boiling\s+point|punto\s+de\s+ebullici[óo]n)"
    r"\s+(?:of|de|del)\b)\b",
    re.IGNORECASE,
)
# What the answer is for, said after the question ("marathon distance? for my training plan", "altura
# del Everest, para el concurso de esta noche"): the purpose is the user's, the question stays general.
# So is why it is asked, said after it: "¿cuánto se cuecen los percebes? q vienen mis cuñados".
_PURPOSE_AFTER = re.compile(r"(?:\?|,)\s*(?:for|para)\s+(?:my|mi|mis|our|nuestr[oa]s?|the|el|la|los|las|a|an|un|una)\b"
                            r"[^.?!;\n]*$"
                            r"|\?\s*(?:q|que|porque|pq|xq|ya\s+que|because|cos|cause|coz|as|since)\s[^?\n]*$",
                            re.IGNORECASE)
# "Where is it?", "how far is that?": a question about a thing of the conversation, not a textbook one.
_REFERS_BACK = re.compile(r"\b(?:it|that|this|these|those|they|them|he|she|him|her|there|eso|esto|aquello|ello|"
                          r"él|ella|ellos|ellas|all[íi]|ah[íi])\W*$"
                          # "…era la de Toledo?", "the one on Main St", "what was it again?": one thing of
                          # the conversation's, picked out or asked for once more.
                          r"|\b(?:(?:el|la|los|las)\s+de|the\s+ones?\s+(?:on|at|in|for|from|with))\b"
                          # ("How many ml in a teaspoon again?" asks the textbook once more.)
                          r"|\b(?:was|were|did|had|era|eran|fue|fueron|ten[íi]a)\b.*\b(?:again|otra\s+vez|de\s+nuevo)\b"
                          # "and the key box code?", "¿y el de Ana?": the conversation goes on.
                          r"|^\W*(?:and|y|e|what\s+about|how\s+about)\b", re.IGNORECASE)
MIN_GENERAL_WORDS = 4
"""A question shorter than this ("¿dónde está?") leans on the conversation for what it asks about."""


# Where a message puts one question after another: "…note, and how long is…", "… y dime cuántos…", "¿…? ¿…?".
_QUESTION_PARTS = re.compile(
    r"[?¿;\n]|[.!]\s|,?\s+(?:and|y|e|also|and\s+also|tambi[ée]n)?\s*(?=(?:tell\s+me|dime|how|what|which|why|where|"
    r"when|cu[áa]nt|cu[áa]l|qu[ée]|c[óo]mo|cada|por\s+qu[ée]|d[óo]nde|cu[áa]ndo)\b)",
    re.IGNORECASE,
)
_ASKS_PART = re.compile(r"\b(?:how|what|which|why|where|when|who|tell\s+me|dime|cu[áa]nt[oa]s?|cu[áa]l|qu[ée]|c[óo]mo|"
                        r"cada\s+cu[áa]nto|por\s+qu[ée]|d[óo]nde|cu[áa]ndo|qui[ée]n)\b", re.IGNORECASE)


def _general_part_words(user_text: str) -> frozenset[str]:
    """The content words of the general questions among several parts of the message."""
    parts = [p.strip() for p in _QUESTION_PARTS.split(user_text[:MAX_PARTICULAR_CHARS]) if p.strip()]
    if len(parts) < 2:
        return frozenset()
    return frozenset(word.casefold() for part in parts
                     if _ASKS_PART.search(part) and not _PERSONAL.search(part) and _asks_in_general(f"{part}?")
                     for word in re.findall(r"[^\W\d_]{4,}", part) if word.casefold() not in _ASK_WORDS)


# A part about the user's people ("how much does each of us owe?") is theirs, not the textbook's.
# (Possessives are `_POSSESSIVE`'s, which `_asks_in_general` checks.)
_PERSONAL = re.compile(r"\b(?:i|me|we|us|nos|nosotros|nosotras|conmigo)\b", re.IGNORECASE)
# Words any question has, which tie no answer sentence to it.
_ASK_WORDS = frozenset("""what which when where how many much long tell dime cuánto cuánta cuántos cuántas cuál
cuáles qué cómo cuándo dónde quién should could would does have need necesito tengo""".split())


def _asks_in_general(user_text: str) -> bool:
    # The names it asks about are its topic ("¿cuánto tarda la Tierra en dar la vuelta al Sol?"): only
    # words that tie it to the user's own world make it particular.
    # (A purpose said after it, "for my training plan", is no tie; its words still count as context given.)
    whole = user_text[:MAX_PARTICULAR_CHARS]
    text = _PURPOSE_AFTER.sub("?", whole)
    return (_GENERAL_QUESTION.search(text) is not None and not _is_particular(text, _names(text))
            and not _POSSESSIVE.search(text) and not _REFERS_BACK.search(text)
            and not _asks_own_amount(text) and not _NUMBERED_THING.search(text) and not _CONTACT_DETAIL.search(text)
            and len(re.findall(r"[^\W\d_]+", whole)) >= MIN_GENERAL_WORDS)


# What reaches or identifies one person or account is no textbook fact, whoever is named: "¿cuál es el anexo de
# Patricio Soto?", "what's Dave's mobile number", "el PIN de la alarma".
_CONTACT_DETAIL = re.compile(
    r"\b(?:anexo|extensi[oó]n|extension|ext|interno|tel[eé]fono|phone(?:\s+number)?|(?:mobile|cell|landline)\s+number|"
    r"(?:direct|phone|office|desk)\s+line|switchboard|l[ií]nea\s+directa|n[uú]mero\s+directo|centralita|"
    r"m[oó]vil|celular|cel|whatsapp|pin|contrase[ñn]a|password|passcode|clave|locker|taquilla|casillero|"
    r"matr[ií]cula|(?:number|licen[cs]e|registration)\s+plate|reg\s+number|dni|nif|nie|rut|cuit|curp|iban|"
    r"(?:account|sort|member(?:ship)?|customer|policy|booking|tracking|order)\s+(?:number|no|code)|"
    r"n[uú]mero\s+de\s+(?:cuenta|socio|cliente|p[oó]liza|reserva|seguimiento|pedido|afiliad[oa])|"
    r"e-?mail(?:\s+address)?|correo\s+(?:electr[oó]nico|de\s+\w+))\b",
    re.IGNORECASE)


# (Not a bare "extension": "she said yes to the extension, three more weeks" is a deadline.)
_PHONE_ASKED = re.compile(r"\b(?:tel[eé]fono|phone|m[oó]vil|celular|mobile|cell|landline|whatsapp|anexo|"
                          r"extension\s+(?:number|no)|direct\s+line|switchboard|l[ií]nea\s+directa|centralita)\b",
                          re.IGNORECASE)
_ASKS_FOR_IT = re.compile(r"\?|\b(?:cu[aá]l|what|which|dame|p[aá]same|give\s+me|send\s+me|tell\s+me|dime)\b",
                          re.IGNORECASE)


# One of the user's things told apart by its number: "el jamón más gordo del lote 14", "batch 3", "la camioneta 9".
_NUMBERED_THING = re.compile(
    r"\b(?:lote|lot|batch|camioneta|cami[óo]n|truck|van|room|habitaci[óo]n|pen|corral|field|parcela|bancal|plot|tank|"
    r"tanque|dep[óo]sito|barrica|barrel|cask|hive|colmena|bay|nave|row|fila|table|mesa|unit|unidad|box|caja|cage|"
    r"jaula|stall|cuadra|pallet|palet|order|pedido|job|obra|site|shift|turno|crane|gr[úu]a|pump|bomba|engine|"
    r"generator|generador|tractor|lift|hoist|winch|polipasto|boat|barco|vessel|machine|m[áa]quina)\s+(?:n[º°o]\.?\s*|#\s*)?\d{1,5}\b",
    re.IGNORECASE)


# Asking what something costs.
_PRICE_QUESTION = re.compile(
    # ("¿A cómo está pagando la coope el fino?", "¿a cuánto va el kilo?": what a thing fetches.)
    # (Said of the day's sale, and as Andalusia says it: "¿a cuánto se ha pagao hoy el rama en la subasta?".)
    r"\ba\s+(?:c[óo]mo|cu[áa]nto)\s+(?:(?:me|te|nos|le|les)\s+)?(?:est[áa]n?|va|van|paga|pagan|sale|salen|se\s+paga|"
    r"anda|andan|"
    # What a market or an index closed or opened at: "¿a cuánto cerró ayer el indicador de lanas?".
    r"cerr[óo]|abri[óo]|qued[óo]|cotiza|cotiz[óo]|"
    r"se\s+(?:ha|han)\s+pagad?o|se\s+pag[óo]|se\s+pagaba|se\s+pagaron|(?:ha|han)\s+salid?o|sali[óo])\b|"
    r"\b(?:how\s+much|cu[áa]nto|qu[ée]\s+precio|what(?:'s|\s+is|\s+was)\s+the\s+(?:price|cost|fee|fare|rate))\b"
    r"[^.?!\n]{0,60}?\b(?:cost|costs|price|pay|paid|owe|charge|fee|fare|bill|rent|subscription|ticket|"
    r"cuesta|cuestan|cost[óo]|vale|valen|cobra|cobran|pago|pagu[ée]|pagar|pagan|pag[óo]|pagaron|pagaba|pagaban|"
    r"debo|precio|cuota|factura|tarifa|"
    r"alquiler|abono|sale|salen|sali[óo]|salieron|cobr[óo]|cobraron|gast[ée]|spent|charged|pagando|cobrando)\b"
    # What a buyer pays now: "what's the co-op paying for hardshell today?", "cuánto ta pagando la aceitera?".
    r"|\bwhat(?:'s|\s+is|\s+are)\s+(?:the\s+)?(?:[\w'-]+\s+){0,2}?(?:paying|charging|offering|asking)\s+(?:for|per|a|an)\b"
    r"|\b(?:qu[ée]\s+precio|what(?:'s|\s+is|\s+was)\s+the\s+(?:[\w-]+\s+){0,2}?(?:price|cost|fee|fare|rate)|"
    r"how\s+much\s+(?:is|are|was|were|does|do|did|will|would)|cu[áa]nto\s+(?:es|son|fue|fueron|ser[áa]))\b"
    # What a buyer paid, asked with "what": "what did the co-op pay per gallon last spring?", "¿qué me pagaron?".
    r"|\bwhat\s+(?:did|does|do|will|would|has|have)\b[^.?!\n]{0,50}?\b(?:pay|charge|fetch|sell\s+for|go\s+for|"
    r"get\s+for)\b"
    r"|\bqu[ée]\s+(?:me\s+|te\s+|le\s+|nos\s+|les\s+)?(?:pag[óo]|pagaron|cobr[óo]|cobraron|pagaba|pagaban)\b",
    re.IGNORECASE,
)
# "A year" is twelve months, fifty-two weeks, 365 days; "a month" four weeks or thirty days; "a day" 24 hours.
_CALENDAR_SPAN = re.compile(
    r"\b(\d{1,3}|an?|one|una?|uno)\s+(years?|a[ñn]os?|months?|mes(?:es)?|weeks?|semanas?|days?|d[íi]as?)\b",
    re.IGNORECASE,
)
_PER_SPAN = {"y": (12, 52, 365), "a": (12, 52, 365), "m": (4, 30), "w": (7,), "s": (7,), "d": (24,)}


def _calendar_counts(user_text: str) -> set[str]:
    counts: set[str] = set()
    for m in islice(_CALENDAR_SPAN.finditer(user_text[:MAX_SCAN_CHARS]), MAX_SPANS):
        count = int(m.group(1)) if m.group(1).isdigit() else 1
        for per in _PER_SPAN[m.group(2)[0].lower()]:
            counts.add(str(count * per))
    return counts


# What asks for a calculation in the user's words: a share, a percentage, a part.
_CALCULATION = re.compile(
    r"%|\b(?:percent|per\s+cent|por\s+ciento|half|halves|mitad|double|doble|triple|third|tercio|quarter|"
    r"cuarto\s+de|split|divide[ds]?|dividir|divid[oe]|entre\s+\d+|between\s+\d+|a\s+medias|evenly|equally|"
    r"a\s+partes\s+iguales|fifty[-\s]fifty)\b|50/50"
    # What a sale would bring, worked out from the user's prices: "¿y cuánto saco si vendo seis baldes?".
    r"|\b(?:cu[áa]nto|how\s+much|how\s+many)\b[^.?!]{0,40}?\b(?:si|if)\s+(?:(?:i|we)\s+)?"
    r"(?:vend\w*|compr\w*|cobr\w*|sell|sold|buy|bought|charge|charged)\b"
    r"|\bcu[áa]nto\s+(?:son|es|ser[íi]an?|sale|salen)\s+[^?.!]{1,40}?\s+a\s+\d"
    # The sale said first: "si vendo 3 kg a 45 € el kilo, ¿cuánto saco?", "if I sell 40 at $3, how much is that?".
    r"|\b(?:si|if)\s+(?:(?:i|we)\s+)?(?:vend\w*|compr\w*|cobr\w*|sell|buy|charge)\b[^?.!]{1,60}?"
    r"\b(?:cu[áa]nto|how\s+much|how\s+many)\b"
    # A sum asked for as such: "¿me echas una cuenta?", "do the maths for me", "calcula…".
    r"|\b(?:echa(?:s|me)?|haz(?:me)?|h[áa]game|saca(?:me)?)\s+(?:una|la|unas|las)\s+cuentas?\b"
    r"|\bdo\s+(?:the|some|a\s+quick)\s+(?:maths?|sums?)\b|\bcalcul(?:a|e|ate|ar|ame|ates)\b",
    re.IGNORECASE,
)
_FRACTIONS = {2: r"half|halves|mitad|double|doble|split\s+(?:it\s+)?(?:in\s+two|two\s+ways)|a\s+medias|"
                 r"fifty[-\s]fifty|50/50|(?:split|share|pay|divide)\w*\s+(?:it\s+|the\s+\w+\s+|\w+\s+)?(?:evenly|equally)",
              3: r"third|tercio|triple", 4: r"quarter|cuarto\s+de"}


def _fraction_operands(user_text: str) -> frozenset[str]:
    """'half' is dividing by 2: the operand the user says in a word."""
    return frozenset(str(n) for n, words in _FRACTIONS.items()
                     if re.search(rf"\b(?:{words})\b", user_text, re.IGNORECASE))


_TOTAL = re.compile(r"\b(?:total|in\s+total|altogether|together|sum|en\s+total|suman?|juntos|juntas|"
                    r"add(?:s|ed)?\s+up|comes?\s+to|in\s+all|all\s+told)\b|\d\s?=\s?\d", re.IGNORECASE)
# Which way a percentage of change goes: a discount is a share of the higher price, a rise of the lower.
_DOWN = re.compile(r"\b(?:discount|off|less|cheaper|down|drop(?:ped)?|fell|descuento|rebaja(?:do|da)?|"
                   r"menos|m[áa]s\s+barat[oa]|baj[óa]|bajada|cay[óo])\b", re.IGNORECASE)
_UP = re.compile(r"\b(?:increase[ds]?|rise|rose|up|more\s+expensive|pricier|raised?|sub(?:e|i[óo]|ida)|aument\w*|"
                 r"m[áa]s\s+car[oa]|encareci\w*)\b", re.IGNORECASE)
MAX_SOURCE_NUMBERS = 30
"""A total of two sourced numbers is looked for only among this many (a page full of figures is skipped)."""
MAX_SUMMED_NUMBERS = 12
"""Totals of four sourced numbers are looked for only among this many (of three, among MAX_SOURCE_NUMBERS)."""


def _change(text: str) -> str:
    """Which way the numbers of `text` move: "down", "up", or "" when it does not say (or says both)."""
    down, up = bool(_DOWN.search(text)), bool(_UP.search(text))
    return "down" if down and not up else "up" if up and not down else ""


# Conversions an answer may show ("180 °C, which is about 356 °F", "5 km, unas 3,1 millas"): each a
# function of the number converted. Rounded results pass within CONVERSION_TOLERANCE.
_CONVERSIONS = (
    lambda c: c * 9 / 5 + 32, lambda f: (f - 32) * 5 / 9,  # °C ↔ °F
    lambda km: km / 1.609344, lambda mi: mi * 1.609344,
    lambda kg: kg * 2.20462, lambda lb: lb / 2.20462,
    lambda cm: cm / 2.54, lambda inch: inch * 2.54,
    lambda m: m * 3.28084, lambda ft: ft / 3.28084,
    lambda g: g / 28.3495, lambda oz: oz * 28.3495,
    lambda litre: litre / 3.78541, lambda gal: gal * 3.78541,
)
CONVERSION_TOLERANCE = 0.02
_PAIRED_UNITS = tuple((re.compile(a, re.IGNORECASE), re.compile(b, re.IGNORECASE)) for a, b in (
    (r"°\s?C\b|º\s?C\b|celsius|cent[íi]grados", r"°\s?F\b|º\s?F\b|fahrenheit"),
    (r"\d\s?km\b|kil[óo]met", r"\bmi\b|\bmiles?\b|\bmillas?\b"),
    (r"\d\s?kg\b|kilos?\b|kilogram", r"\d\s?lbs?\b|\bpounds?\b|\blibras?\b"),
    (r"\d\s?cm\b|cent[íi]metros?", r"\d\s?in\b|\binch(?:es)?\b|pulgadas?|\d\s?\""),
    (r"\d\s?m\b|\bmetres?\b|\bmeters?\b|\bmetros?\b", r"\d\s?ft\b|\bfeet\b|\bfoot\b|\bpies\b"),
    (r"\d\s?g\b|\bgrams?\b|\bgramos?\b", r"\d\s?oz\b|\bounces?\b|\bonzas?\b"),
    (r"\d\s?l\b|\blit(?:re|er|ro)s?\b", r"\bgal(?:lon|[óo]n)?(?:s|es)?\b"),
))


_PERCENT = re.compile(r"(?<![\w.,])(\d{1,3}(?:[.,]\d{1,2})?)\s?(?:%|por\s+ciento|percent|per\s+cent)", re.IGNORECASE)
MAX_ADDENDS = 8
"""Sourced numbers of one sentence tried as the parts of a total it shows."""


def _sum_shown(target: str, said: Details, known: Details) -> bool:
    """`target` is the total of sourced numbers the sentence lists beside it ("105,45 €: luz 48,30 €, agua
    22,15 € e internet 35,00 €"), with or without a word that says so."""
    if len(said.amounts | said.figures | said.dotted) > MAX_DERIVED:
        return False  # a page of figures, no total shown
    wanted = _value(target)
    parts = [v for n in sorted(said.numbers - {target})[:MAX_ADDENDS]
             if n in known.numbers and (v := _value(n)) is not None]
    return wanted is not None and len(parts) >= 2 and any(
        abs(sum(group) - wanted) < 0.005 for size in range(2, len(parts) + 1) for group in combinations(parts, size))


# Words that round what follows: "about 40%", "≈ 0.4", "roughly 333 each", "unos 12 €", "casi el 40 %".
_APPROXIMATE = re.compile(r"[≈~]|\b(?:about|around|roughly|approximately|approx|nearly|almost|just\s+(?:over|under)|"
                          r"round(?:ed|ing)?\s+(?:it\s+|that\s+)?(?:up|down|off)|redonde\w*|"
                          r"unos|unas|aproximadamente|aprox|casi|alrededor\s+de|cerca\s+de|m[áa]s\s+o\s+menos|"
                          r"poco\s+m[áa]s\s+de|poco\s+menos\s+de)\b", re.IGNORECASE)


def _rounding(target: str, said: Details) -> float:
    """How far a quotient may be from the exact result: half a unit of the last place said (39.6 %
    for 39.58 %), to a whole unit only when the sentence says it rounds ("about 40 %")."""
    decimals = len(target.partition(".")[2])
    if decimals == 0 and not said.approximate:
        return 0.005
    return max(0.5 * 10 ** -decimals, 0.005) + 1e-9


def _derived_number(target: str, said: Details, known: Details, also_known: frozenset[str] = frozenset()) -> bool:
    """`also_known`: numbers of the same sentence already worked out from sourced ones ("$966 in total,
    so $161 each"): operands too."""
    wanted = _value(target)
    if wanted is None:
        return False
    if known.asked_calculation and known.given_numbers and len(known.numbers) <= MAX_SOURCE_NUMBERS:
        # "If we split it evenly?" "42 € each": the user gave the operation, a source the number it works on.
        operands = [v for n in sorted(known.given_numbers) if (v := _value(n))]
        sourced = [v for n in sorted(known.numbers) if (v := _value(n)) is not None]
        if any(abs(r - wanted) < 0.005 for g in operands for a in sourced for r in (a / g, a * g, a * g / 100)):
            return True
    # A list's total or mean ("34 km in total, an average of 6.8 km"), said to as many decimals as it has.
    tolerance = 0.5 * 10 ** -min(len(target.partition(".")[2]), 2) + 1e-9
    if (said.total or said.operation) and any(abs(t - wanted) <= tolerance for t in known.list_totals):
        return True
    if said.total and len(known.numbers) <= MAX_SOURCE_NUMBERS:
        # "En total, 95,95 €": the sum of two sourced amounts, its operands left unsaid.
        sourced = [v for n in sorted(known.numbers) if (v := _value(n)) is not None]
        if any(abs(a + b - wanted) < 0.005 for i, a in enumerate(sourced) for b in sourced[i + 1:]):
            return True
        # A bill of three or four lines ("alquiler 750, luz 60, agua 25: en total 835").
        widest = 4 if len(sourced) <= MAX_SUMMED_NUMBERS else 3
        if any(abs(sum(group) - wanted) < 0.005 for size in range(3, widest + 1)
               for group in combinations(sourced, size)):
            return True
    share = target in said.percents
    rounding = _rounding(target, said)
    head, dot, tail = target.partition(".")
    # "£37.785 each": a quotient to three places reads like a thousands dot; both readings are tried.
    wanted_too = float(target) if dot and len(tail) == 3 and head.isdigit() and tail.isdigit() else wanted
    plain = {n.replace(".", "") for n in known.numbers}
    # Operands: numbers the sentence states (a sourced one among them) or the user gave.
    stated = [n for n in sorted(said.numbers) if n != target]
    stated += [n for n in sorted(known.given_numbers | also_known) if n != target and n not in said.numbers]
    stated += [n for n in sorted(said.constants) if n not in stated]  # "32,50 € al mes (390 € al año)"
    values = [(v, n in known.given_numbers or n in known.numbers or n.replace(".", "") in plain or n in also_known
               or n in said.constants)
              for n in stated[:MAX_OPERANDS] if (v := _value(n)) is not None]
    # A sourced number the sentence leaves unsaid may be the first operand, the second being one it says
    # ("con el 10 % de propina, 204,60 €": 186 € of the bill, plus 10 %).
    unsaid = [(v, True) for n in sorted(known.numbers - set(stated))
              if len(known.numbers) <= MAX_SOURCE_NUMBERS and (v := _value(n)) is not None]
    sourced_values = [v for n in sorted(known.numbers | also_known)[:MAX_OPERANDS] if (v := _value(n)) is not None]
    if said.operation and any(abs(v / 100 - wanted) < 1e-9 for v in sourced_values):
        return True  # a percentage worked with as its factor ("25 %: 140 € × 0,25")
    if said.approximate and any(abs(v - w) < rounding for v in sourced_values for w in (wanted, wanted_too)):
        return True  # a sourced or worked-out number said rounded ("$54.87 each; round up, $55")
    if said.converts and "1" in said.numbers and any(
            abs(convert(1.0) - wanted) <= CONVERSION_TOLERANCE * abs(wanted) for convert in _CONVERSIONS):
        return True  # the factor a conversion gives with its unit ("1 milla = 1,609 km")
    for i, (a, a_known) in enumerate([*values, *unsaid]):
        if not a_known:
            continue
        if said.converts and any(abs(convert(a) - wanted) <= CONVERSION_TOLERANCE * abs(wanted)
                                 for convert in _CONVERSIONS):
            return True
        for j, (b, b_known) in enumerate(values):
            if i == j or not b_known:
                continue  # two unsourced numbers do not back each other ("30 g sugar … in 15 minutes": 2 × 15)
            # A percentage is a share of two numbers, never their sum or difference ("from 7 to 22" is no 15%).
            results = [] if share else [a + b, a - b, b - a, a * b, a * b / 100, a * (1 + b / 100), a * (1 - b / 100)]
            ratios: list[float] = []  # a quotient is said rounded; sums and products are exact
            if b:
                ratios += [a / b * 100] if share else [a / b, a / b * 100]
                high, low = max(a, b), min(a, b)
                # A change as a share: of the higher number when it goes down, of the lower when up.
                if said.change != "up":
                    ratios.append((high - low) / high * 100)
                if said.change != "down" and low:
                    ratios.append((high - low) / low * 100)
            exact = rounding if said.approximate else 0.005  # "unos 32 km" for 29 km plus 10 %
            if any(abs(r - w) < exact for r in results for w in (wanted, wanted_too)) or any(
                    abs(r - w) < rounding for r in ratios for w in (wanted, wanted_too)):
                return True
    return False


# -- a detail given for another thing ---------------------------------------------------------
# Tool results often list several things with their own details ("Dentist: Tuesday 10:30" and
# "Vet: Thursday 17:00"). A detail the answer ties to one of them must be one the source gives it: the
# line that best matches the words around the detail in the answer. Only when that line gives a
# detail of the same type and another line gives the one said is it taken from the wrong thing.
MAX_LINES = 400
"""Lines of tool results looked through (the rest is not judged this way)."""
MAX_LINE_CHARS = 500
_SEGMENT = re.compile(r"(?<!\d),|,(?!\d)|[;()—–]|:(?!\d)|\s-\s"
                      r"|\s(?:and|y|e|but|pero|while|whereas|mientras)\s(?!a\s+half\b|a\s+quarter\b|media\b|cuarto\b)",
                      re.IGNORECASE)
_LINE_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
_NAMELESS = frozenset(
    """the and for with that this your you are was were has have had its not but from into what which when where
    who how now just also then than them they there here all any some note notes list item file says said read
    is on at in of to it my me our per each one two day days time times date dates due hour hours minute minutes
    las los del que con una uno por para como pero sus tus mis nos les ese esa esto esta este son está están
    hay tiene tienes día días hora horas nota notas lista cae caen sale salen tengo tienes
    today tomorrow yesterday tonight morning evening afternoon hoy mañana ayer tarde noche
    jan feb mar apr jun jul aug sep sept oct nov dec ene abr ago dic""".split()
) | frozenset(_MONTHS) | frozenset(_WEEKDAYS)


OWN_WORD_WEIGHT = 10
"""A word of the sentence itself counts this many of the words around it, when matching it to a line."""


class Documents:
    """The lines of this turn's tool results, each with its details read once, when first needed."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.lines: list[str] = []
        self.origins: list[int] = []  # which tool result each line is from
        for origin, text in enumerate(texts):
            for line in text[:MAX_SCAN_CHARS].splitlines():
                if line.strip():
                    self.lines.append(line[:MAX_LINE_CHARS])
                    self.origins.append(origin)
                if len(self.lines) >= MAX_LINES:
                    break
        self._lowered = [line.lower() for line in self.lines]
        self._details: dict[int, _LineDetails] = {}

    @property
    def several(self) -> bool:
        return len(self.lines) >= 2

    def details(self, index: int) -> _LineDetails:
        if index not in self._details:
            self._details[index] = _LineDetails.of(self.lines[index])
        return self._details[index]

    def scores(self, words: set[str]) -> list[int]:
        """For each line, how many of `words` it shares."""
        return [sum(1 for w in words if w in line or (len(w) >= 5 and w[:5] in line)) for line in self._lowered]


@dataclass(frozen=True)
class _LineDetails:
    values: dict[str, frozenset[object]]

    @classmethod
    def of(cls, text: str) -> _LineDetails:
        found = extract_details(text)
        return cls(_typed(found, _source_codes(text)))


def _typed(found: Details, codes: set[str] | frozenset[str]) -> dict[str, frozenset[object]]:
    return {
        "time": frozenset((h % 12, m) for h, m in found.times),
        "date": frozenset(found.dates),
        "number": frozenset(found.amounts | found.figures | found.numbers),
        "code": frozenset(codes),
        "phone": frozenset(found.phones),
        "address": frozenset(found.addresses),
        "span": frozenset(found.minutes),
    }


def misattributed(text: str, documents: Documents, given: Details, asked: str = "") -> list[str]:
    """Details `text` takes from what a tool result says of another thing (see `Documents`).

    `asked`: the user's words; what a sentence says is about them when its own words name no line
    ("¿a qué hora tiene judo Pablo?" "A las cinco y media.").
    """
    if not documents.several:
        return []
    wrong: list[str] = []
    given_values = _typed(given, given.codes)
    previous_words: set[str] = {w.lower() for w in _LINE_WORD.findall(asked[:MAX_LINE_CHARS])} - _NAMELESS
    segments = _SEGMENT.split(text[:MAX_SCAN_CHARS])[:MAX_DERIVED]
    # How many things a result lists: "it's three days" of a three-line plan counts them, it takes no line's 3.
    counts: set[str] = set()
    for origin in set(documents.origins):
        lines = [line for line, o in zip(documents.lines, documents.origins, strict=True) if o == origin]
        listed = _listed_things("\n".join(lines))
        counts |= {str(listed), str(listed - 1)} if lines[0].rstrip().endswith(":") else {str(listed)}
    for index, segment in enumerate(segments):
        # An address's own words ("calle Alcalá") are the detail, not what it is given for.
        words = {w.lower() for w in _LINE_WORD.findall(_ADDRESS.sub(" ", segment))} - _NAMELESS
        found = extract_details(segment)
        said = _typed(found, found.codes)
        said["number"] = frozenset(found.amounts | found.figures)
        if not any(said.values()):
            previous_words = words or previous_words
            continue
        own = documents.scores(words)
        if not any(own) and _naming_words(segment):
            # Its own words name no line ("…and gets in at 11:20" beside "Arrives 11:20"): nothing says
            # which thing it speaks of, so the words before it do not decide it either.
            continue
        # The sentence's own words decide which line it is about; the words before it (or the
        # question's) break ties ("five and a half hours on that leg") and stand in when it has none.
        around = previous_words
        if not any(own) and index + 1 < len(segments):
            # With no words of its own, the thing may be named after it too: "el 4 de abril a las 20:00, regar
            # las plantas".
            after = {w.lower() for w in _LINE_WORD.findall(segments[index + 1])} - _NAMELESS
            around = previous_words | after
        scores = [OWN_WORD_WEIGHT * o + p for o, p in zip(own, documents.scores(around), strict=True)]
        top = max(scores, default=0)
        if any(own):
            previous_words = words
        if not top:
            continue
        best = [i for i, score in enumerate(scores) if score == top]
        for kind, values in said.items():
            for value in values - given_values[kind]:
                if kind == "number" and value in counts:
                    continue
                holding = [i for i in range(len(documents.lines)) if value in documents.details(i).values[kind]]
                if not holding:
                    continue  # nowhere: not this check's matter
                # The best line gives one of its own the sentence does not say (when it says that one too,
                # it speaks of both lines: "742 € al mes durante 25 años").
                competing = any(documents.details(i).values[kind] and not documents.details(i).values[kind] & values
                                for i in best)
                if competing and max(scores[i] for i in holding) < top:
                    # The line most about what the sentence names gives its own ("14:30 Design review"),
                    # and this one comes from a line less about it ("09:15 Standup — room Birch").
                    wrong.append(f"{_shown(kind, value)} (given for something else)")
                    continue
                if any(scores[i] for i in holding):
                    continue  # on a line about what the answer names
                if competing:
                    wrong.append(f"{_shown(kind, value)} (given for something else)")
                    continue
                # The line about it gives no such detail: one from the same result may (a heading and
                # the line under it), one from another result is about another thing.
                origins = {documents.origins[i] for i in best}
                if not any(documents.origins[i] in origins for i in holding):
                    wrong.append(f"{_shown(kind, value)} (given for something else)")
    return wrong


def _naming_words(segment: str) -> set[str]:
    """The words of `segment` that could name a thing: not its times or numbers said in words."""
    bare = _blank(_ADDRESS.sub(" ", segment), (_EN_WORD_TIME, _ES_WORD_TIME, _SPELLED_HUNDREDS, _SPELLED))
    return {w.lower() for w in _LINE_WORD.findall(bare)} - _NAMELESS


def _shown(kind: str, value: object) -> str:
    if kind == "time" and isinstance(value, tuple):
        return f"{value[0]:02d}:{value[1]:02d}"
    if kind == "date" and isinstance(value, tuple):
        return f"{value[1]:02d}/{value[0]:02d}"
    if kind == "span" and isinstance(value, int):
        return f"{value // 60} h {value % 60:02d} min" if value >= 60 else f"{value} min"
    return str(value)

