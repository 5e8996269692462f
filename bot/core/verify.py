"""Honesty: deterministic checks of the answer against what the tools really did.

No second model. Four rules, in Spanish and English:
- FAILED_WRITE_HIDDEN: a write whose last call failed must be reported as failed;
- UNBACKED_CLAIM: a claimed completed action needs a successful write in this turn;
- UNSOURCED_DETAIL: times, dates, emails and links in the answer must come from this
  turn's tool results or arguments of successful calls, the user's words, or the clock;
- NOT_DONE_HIDDEN: a denied / expired / cancelled approval must be reported as not done.
Every bug found becomes a rule here plus a scripted conversation test.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum

from tools.registry import Risk


class CallStatus(StrEnum):
    OK = "ok"
    ERROR = "error"
    INVALID_ARGUMENTS = "invalid_arguments"
    UNKNOWN_TOOL = "unknown_tool"
    DENIED = "denied"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


NOT_RUN = {CallStatus.DENIED, CallStatus.EXPIRED, CallStatus.CANCELLED}


@dataclass(frozen=True)
class CallRecord:
    """One tool call of this turn, as it really went."""

    name: str
    arguments: str
    risk: Risk
    status: CallStatus
    description: str
    result: str = ""
    error: str = ""
    egress: bool = False  # the tool sends data to third parties
    erases: bool = False  # the tool erases memory: its arguments are not repeated

    @property
    def is_write(self) -> bool:
        return self.risk >= Risk.WRITE

    @property
    def has_side_effect(self) -> bool:
        """Changes something, or sends something out: the user gets a receipt for it."""
        return self.is_write or self.egress


class Rule(StrEnum):
    FAILED_WRITE_HIDDEN = "failed_write_hidden"
    UNBACKED_CLAIM = "unbacked_claim"
    UNSOURCED_DETAIL = "unsourced_detail"
    NOT_DONE_HIDDEN = "not_done_hidden"


@dataclass(frozen=True)
class Violation:
    rule: Rule
    detail: str
    correction: str
    requires_action: bool = False


# Completed-action claims, past tense / perfect, both languages.
_EN_VERBS = (
    r"(?:created|added|scheduled|booked|deleted|removed|sent|saved|updated|moved|cancell?ed|"
    r"marked|completed|forwarded|replied|written|wrote|noted|stored|set\s+(?:up|a|an|the|your|it)|"
    r"put\s+it|emailed|archived|renamed|logged|remembered|forgot(?:ten)?|erased|replaced)"
)
_CLAIM_EN = re.compile(
    rf"\b(?:i|we)(?:\s*'ve|\s+have|\s+just|\s+also|\s+now|\s+successfully)*\s+{_EN_VERBS}\b"
    rf"|\b(?:has|have)\s+(?:now\s+|successfully\s+)?been\s+{_EN_VERBS}\b"
    rf"|\b(?:was|were|is\s+now|are\s+now)\s+(?:successfully\s+)?{_EN_VERBS}\b"
    rf"|(?:^|[.!?]\s+)(?:just\s+)?{_EN_VERBS}\b"
    r"|^\s*(?:done|all\s+set|all\s+done)\b",
    re.IGNORECASE | re.MULTILINE,
)
_CLAIM_ES = re.compile(
    r"\b(?:(?:he|hemos|ha|han|se\s+ha|se\s+han|quedó|queda)\s+"
    r"(?:creado|añadido|agendado|programado|borrado|eliminado|enviado|guardado|actualizado|"
    r"movido|cancelado|apuntado|anotado|marcado|completado|reenviado|respondido|puesto|"
    r"reservado|archivado|registrado|olvidado|recordado)"
    r"|(?:creé|añadí|agendé|programé|borré|eliminé|envié|guardé|actualicé|moví|cancelé|"
    r"apunté|anoté|marqué|completé|reenvié|respondí|reservé|archivé|registré|olvidé)"
    r"|(?:creado|añadido|agendado|programado|borrado|eliminado|enviado|guardado|actualizado|"
    r"apuntado|anotado|reservado)\s+(?:correctamente|con\s+éxito))\b"
    r"|^\s*[¡!]?\s*(?:listo|hecho)\b",
    re.IGNORECASE | re.MULTILINE,
)
_NEGATION_BEFORE = re.compile(
    r"(?:\bnot\b|n't\b|\bnever\b|\bno\b|\bnothing\b|\bnone\b|\bnada\b|\bnunca\b|\bni\b|\bsin\b|"
    r"\bunable to\b|\bcould not\b|"
    r"\bfailed to\b|\bno\s+(?:lo|la|los|las|se|he|hemos|ha|han)\b)[^.!?\n]{0,24}$",
    re.IGNORECASE,
)
_FAILURE_WORDS = re.compile(
    r"\b(?:fail(?:ed|ure|s)?|couldn't|could\s+not|can't|cannot|unable|error|wasn't\s+able|"
    r"not\s+able|didn't\s+work|problem|went\s+wrong|no\s+pude|no\s+he\s+podido|no\s+se\s+(?:pudo|ha\s+podido)|"
    r"no\s+ha\s+sido\s+posible|fall[óo]|fallado|falla|problema|imposible|no\s+puedo)\b",
    re.IGNORECASE,
)
_NOT_DONE_WORDS = re.compile(
    r"\b(?:not\s+done|didn't|did\s+not|haven't|have\s+not|hasn't|has\s+not|wasn't|was\s+not|"
    r"won't|will\s+not|not|cancell?ed|denied|declined|rejected|expired|no\s+answer|"
    r"no\s+(?:lo|la|los|las|se|he|hemos|ha|hice|hizo)|cancelad[oa]s?|denegad[oa]s?|rechazad[oa]s?|"
    r"caducad[oa]s?|expirad[oa]s?|sin\s+respuesta|no\s+se\s+ha\s+hecho|no\s+hecho|no)\b",
    re.IGNORECASE,
)

_TIME = re.compile(r"\b([01]?\d|2[0-3])[:.h]([0-5]\d)\b")
_AMPM = re.compile(r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])\.?\s*m\b\.?", re.IGNORECASE)
_BARE_HOUR = re.compile(r"\b(?:at|a\s+las|a\s+la|las|sobre\s+las)\s+([01]?\d|2[0-3])\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_NUM_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "enero": 1, "febrero": 2, "marzo": 3, "abril": 4, "mayo": 5, "junio": 6, "julio": 7,
    "agosto": 8, "septiembre": 9, "setiembre": 9, "octubre": 10, "noviembre": 11, "diciembre": 12,
}
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?({_MONTH_NAMES})\b", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b({_MONTH_NAMES})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://[^\s)>\]\"']+")
_RELATIVE_DAYS = {
    "today": 0, "hoy": 0, "tomorrow": 1, "mañana": 1, "yesterday": -1, "ayer": -1,
    "pasado mañana": 2, "day after tomorrow": 2, "anteayer": -2,
}


def claims_action(answer: str) -> list[str]:
    """The non-negated completed-action phrases in `answer`."""
    found: list[str] = []
    for pattern in (_CLAIM_EN, _CLAIM_ES):
        for match in pattern.finditer(answer):
            before = answer[max(0, match.start() - 40):match.start()]
            sentence_start = max(before.rfind("."), before.rfind("!"), before.rfind("?"), before.rfind("\n"))
            if _NEGATION_BEFORE.search(before[sentence_start + 1:]):
                continue
            found.append(match.group(0).strip())
    return found


def mentions_failure(answer: str) -> bool:
    return bool(_FAILURE_WORDS.search(answer))


def mentions_not_done(answer: str) -> bool:
    return bool(_NOT_DONE_WORDS.search(answer))


@dataclass(frozen=True)
class Details:
    times: frozenset[tuple[int, int]]
    dates: frozenset[tuple[int, int]]
    emails: frozenset[str]
    urls: frozenset[str]


def extract_details(text: str) -> Details:
    """Times, dates (as month/day), emails and URLs mentioned in `text`."""
    times: set[tuple[int, int]] = set()
    for match in _TIME.finditer(text):
        times.add((int(match.group(1)), int(match.group(2))))
    for match in _AMPM.finditer(text):
        hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
        times.add((hour, int(match.group(2) or 0)))
    dates: set[tuple[int, int]] = set()
    for match in _ISO_DATE.finditer(text):
        dates.add((int(match.group(2)), int(match.group(3))))
    for match in _DAY_MONTH.finditer(text):
        dates.add((_MONTHS[match.group(2).lower()], int(match.group(1))))
    for match in _MONTH_DAY.finditer(text):
        dates.add((_MONTHS[match.group(1).lower()], int(match.group(2))))
    for match in _NUM_DATE.finditer(text):
        day, month = int(match.group(1)), int(match.group(2))
        if 1 <= month <= 12 and 1 <= day <= 31:
            dates.add((month, day))
    emails = {m.group(0).lower().rstrip(".") for m in _EMAIL.finditer(text)}
    urls = {m.group(0).rstrip(".,;:").lower() for m in _URL.finditer(text)}
    return Details(frozenset(times), frozenset(dates), frozenset(emails), frozenset(urls))


def _source_details(sources: Iterable[str], user_text: str, now_local: datetime) -> Details:
    joined = "\n".join(sources)
    base = extract_details(joined + "\n" + user_text)
    times = set(base.times)
    # "at 9", "a las 9" in the user's words allow 09:00 and 21:00.
    for match in _BARE_HOUR.finditer(user_text):
        hour = int(match.group(1))
        times.update({(hour, 0), ((hour + 12) % 24, 0)})
    times.add((now_local.hour, now_local.minute))
    dates = set(base.dates)
    lowered = user_text.lower()
    for word, offset in _RELATIVE_DAYS.items():
        if re.search(rf"\b{word}\b", lowered):
            day = now_local.date() + timedelta(days=offset)
            dates.add((day.month, day.day))
    today: date = now_local.date()  # the prompt tells the model today's date
    dates.add((today.month, today.day))
    return Details(frozenset(times), frozenset(dates), base.emails, base.urls)


def unsourced(answer: str, sources: Iterable[str], user_text: str, now_local: datetime) -> list[str]:
    """Details in the answer that no source backs, rendered for the correction note."""
    said = extract_details(answer)
    known = _source_details(sources, user_text, now_local)
    missing: list[str] = []
    missing += [f"{h:02d}:{m:02d}" for h, m in sorted(said.times - known.times)]
    missing += [f"{d:02d}/{m:02d}" for m, d in sorted(said.dates - known.dates)]
    missing += sorted(e for e in said.emails if not any(e in s for s in known.emails))
    missing += sorted(u for u in said.urls if not any(k.startswith(u) or u.startswith(k) for k in known.urls))
    return missing


def verify(
    answer: str, calls: Sequence[CallRecord], user_text: str, now_local: datetime,
    context: Sequence[str] = (),
) -> list[Violation]:
    """Every rule the answer breaks, given what really happened in this turn.

    `context` is what the prompt already carried: earlier messages of the conversation and
    the memories and profile given to the model; details found there count as sourced.
    """
    violations: list[Violation] = []
    last_by_tool: dict[str, CallRecord] = {}
    for call in calls:
        last_by_tool[call.name] = call
    failed_writes = [c for c in last_by_tool.values() if c.is_write and c.status is CallStatus.ERROR]
    not_run = [c for c in last_by_tool.values() if c.status in NOT_RUN]
    succeeded_writes = [c for c in calls if c.is_write and c.status is CallStatus.OK]
    claims = claims_action(answer)

    for call in failed_writes:
        if not mentions_failure(answer):
            violations.append(Violation(
                Rule.FAILED_WRITE_HIDDEN,
                f"{call.name} failed: {call.error}",
                f"The call to {call.name} FAILED with: {call.error}. Tell the user plainly that it "
                "failed (and why, briefly) and offer to try again. Do not say it was done.",
            ))
    for call in not_run:
        if claims or not mentions_not_done(answer):
            violations.append(Violation(
                Rule.NOT_DONE_HIDDEN,
                f"{call.name} was {call.status.value}",
                f"The action '{call.description}' was NOT done: the approval was {call.status.value}. "
                "Tell the user clearly it was not done. Do not retry it and do not claim it happened.",
            ))
    if claims and not succeeded_writes and not not_run:
        violations.append(Violation(
            Rule.UNBACKED_CLAIM,
            f"claims {claims[0]!r} with no successful write",
            f"Your answer says an action was completed ({claims[0]!r}), but no tool performed "
            "any action in this turn. If the user asked for it, call the right tool now; "
            "otherwise tell them honestly it has not been done.",
            requires_action=True,
        ))
    sources = [c.result for c in calls if c.status is CallStatus.OK]
    sources += [c.arguments for c in calls if c.status is CallStatus.OK]
    sources += context
    missing = unsourced(answer, sources, user_text, now_local)
    if missing:
        violations.append(Violation(
            Rule.UNSOURCED_DETAIL,
            f"unsourced: {', '.join(missing)}",
            f"Your answer mentions {', '.join(missing)}, which appear in no tool result of this "
            "turn and not in the user's words. Only state details you got from tools: look them "
            "up with a tool, or leave them out.",
        ))
    return violations
