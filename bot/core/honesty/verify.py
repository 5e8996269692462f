"""Honesty: the answer is checked against what this turn's calls really did, sentence by sentence.

No second model. The truth about actions never rests on the model's wording alone:
- what the user asked for is read from the user's words (`bot.core.honesty.intent`);
- when an action was asked for and no call of that kind succeeded, the answer may only
  ask, offer, or say it was not done: any affirmative sentence goes;
- every claim of an action ("sent", "deleted", "añadido", "Reminder set ✅") must be backed
  by a successful call of a matching kind, on the object the sentence names; "both" needs
  every action to have succeeded;
- every detail (time, date, contact, link, amount, phone) must come from a source: tool
  results or arguments of successful calls, the user's words, the conversation and memories
  the prompt carried, or the clock, or be worked out from such by arithmetic the answer shows;
  a link must match a sourced link exactly.
Unbacked sentences are dropped and the rest kept; code's receipts say what really ran.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from itertools import pairwise

from bot.core.honesty.actions import BACKS, ActionKind, kind_of_tool
from bot.core.honesty.claim_model import MAX_TEXTS as MAX_CLASSIFIED
from bot.core.honesty.claims import (
    NOT_PAST_ED,
    NOT_PRETERITE,
    Clause,
    Sentence,
    Stance,
    claimed_kinds,
    claimed_parts,
    closer_topic,
    parse,
    row_cells,
    speaks_of_self,
    split_sentences,
    takes_as_done,
    tells_a_state,
    told_as_own,
    without_asking_just,
)
from bot.core.honesty.details import (
    MAX_SCAN_CHARS,
    Documents,
    advises_timing,
    asks_for_a_listing,
    extract_details,
    misattributed,
    source_details,
    unsourced,
    without_assumptions,
    without_proposed_times,
)
from bot.core.honesty.intent import (
    asked_actions,
    asked_by_rules,
    continues_request,
    offers_to_act,
    reported_actions,
)
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
    ACTION_NOT_DONE = "action_not_done"  # asked for, not done, and the answer does not say so
    UNBACKED_CLAIM = "unbacked_claim"  # a claimed action no matching successful call backs
    UNSOURCED_DETAIL = "unsourced_detail"


@dataclass(frozen=True)
class Violation:
    rule: Rule
    detail: str
    correction: str
    requires_action: bool = False


@dataclass(frozen=True)
class Verdict:
    """The rules an answer breaks, and the answer with only its backed sentences."""

    violations: tuple[Violation, ...]
    kept: str  # "" when nothing worth saying is left
    dropped: tuple[str, ...]
    asked: frozenset[ActionKind]
    unsourced: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.violations


_WORD = re.compile(r"[^\W\d_]{3,}(?:'[a-z]+)?", re.UNICODE)
_TOKEN = re.compile(r"[\w.-]{3,80}")
_NAMEISH = re.compile(r"^(?=.*\d)(?=.*[^\W\d_])|^[^\W\d_]+(?:-\w+)+$|^[\w-]+\.md$", re.I)


# A count joined to its noun ("3-jar batch", "2-day trip") describes; it names nothing.
_COUNTED_NOUN = re.compile(r"^\d+(?:[.,]\d+)?-[^\W\d_]+$")
# A time ("7am", "9.30pm", "21h"): a detail, checked against its sources as such. (A day, "the 11th", is
# what a restated change may not add: it stays.)
_TIME_TOKEN = re.compile(r"^\d{1,2}(?:[:.]\d\d)?(?:am|pm|a\.m|p\.m|h|hs|hrs)$", re.I)


def _objects(text: str) -> list[str]:
    """Names in `text` that look like identifiers: 'list2-f05', 'r-777', 'plan.md'."""
    found = []
    for match in _TOKEN.finditer(text):
        token = match.group(0).strip(".-")
        if (len(token) >= 3 and _NAMEISH.match(token) and not _COUNTED_NOUN.match(token)
                and not _TIME_TOKEN.match(token)):
            found.append(token)
    return found
_STOP = frozenset("""
the and for with that this your you my mine our are was were has have had been its it's not but from into too
onto about what which when where who how now just also then than them they their there here all any some
note notes list lists item items file folder memory reminder reminders email mail message task tasks event
name names nombre nombres aviso avisos alarm alarms alarma alarmas alert alerts through thru
events entry journal diary todo called named new old one two first second both please thanks thing things
las los del que con una uno por para como pero sus tus mis nos les ese esa esto esta este estos estas
nota notas lista listas cosa cosas memoria recordatorio correo mensaje tarea evento diario ahora
también hoy ayer mañana dos primera segunda ambas ambos todo toda todos todas
está están estaba estaban estar sigue siguen hay tiene tienen tienes tengo ahí allí aquí still got
tomorrow tonight today morning evening afternoon tarde noche yes yeah yep time hora horario
should could would must can will shall might may need needs debo debes debería deberías puedo puedes
final end bottom top start beginning principio inicio arriba abajo
bien mal well fine good okay correctly correctamente perfectamente perfecto properly right
correction corrección correccion update actualización actualizacion
year years week weeks month months año años semana semanas mes meses
january february march april may june july august september october november december
enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
monday tuesday wednesday thursday friday saturday sunday
lunes martes miércoles jueves viernes sábado domingo
""".split())
"""Words that name no object: when a claim says which thing it handled, these are not one (dates and
times are details, checked against their sources on their own)."""
_ACTION_WORDS = re.compile(
    r"^(?:add|put|sav|stor|not|jot|writ|wrot|log|record|regist|creat|mak|updat|chang|renam|replac|overwr|"
    r"remem|memor|keep|kept|forg|delet|remov|eras|wip|clear|cancel|send|sent|emai|mail|repl|forw|remind|"
    r"set|schedul|book|mov|mark|complet|archiv|añad|agreg|pon|pus|apunt|anot|guard|escri|redact|registr|"
    r"actualiz|cambi|renombr|sustitu|reemplaz|inclu|recuer|record|olvid|borr|elimin|quit|cancel|anul|"
    r"envi|enví|mand|reenv|respond|contest|program|agend|reserv|marc|complet|archiv|mov|cre|hech|list|"
    # ("Did that go through?" "Yes, it went into tours-7 when I added it": going in is the action, no thing.)
    r"went\b|gone\b|go(?:es|ing)?\b)",
    re.I,
)


def _norm(text: str) -> str:
    return text.lower().replace(".md", "")


def _names_in(evidence: str) -> frozenset[str]:
    """The names in normalised call evidence, whole: a call on "vieja-f04b" touched no "vieja-f04"."""
    return frozenset(t.strip(".-") for t in _TOKEN.findall(evidence))


def _readable(arguments: str) -> str:
    """Arguments as the words they hold: JSON escapes ("pl\\u00e1tanos") decoded."""
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False)
    except ValueError:
        return arguments


_ENDINGS = ("ing", "ed", "es", "s", "d")
"""English endings a restatement adds to a source's word: "moved" for "move the launch"."""


def _stem_in(word: str, haystack: str) -> bool:
    """`word` (or its first five letters, for plurals and gender, or it without an English ending)
    appears in `haystack`."""
    word = word.lower()
    if word in haystack or (len(word) >= 5 and word[:5] in haystack):
        return True
    return any(word.endswith(end) and len(word) - len(end) >= 4 and word[:-len(end)] in haystack for end in _ENDINGS)


@dataclass(frozen=True)
class _Turn:
    asked: frozenset[ActionKind]
    reported: frozenset[ActionKind]
    ok_effects: tuple[CallRecord, ...]
    unsettled: tuple[CallRecord, ...]  # the last attempt at a change failed or never ran
    read_ok: bool
    strict: bool
    user_words: frozenset[str]
    user_objects: frozenset[str] = frozenset()
    # No words of the user's ask for it (the classifier read a request, or it is a bare "yes" to
    # the turn before): its kind is a guess. Claims still need a call; advice and plans may stand.
    guessed: bool = False
    # Successful changes of the chat's last turns, when this one asks for something: they back only
    # a clause that says again what one of them did, naming nothing it did not touch.
    earlier_effects: tuple[CallRecord, ...] = ()
    # The names this turn's successful lookups gave ("recipes.md" from a search), whole.
    looked_up: frozenset[str] = frozenset()
    # What those lookups gave, normalised: the words a report of what they found repeats.
    looked_up_text: str = ""
    # The verbs of the user's own questions ("what do I *need* for pancakes?", "¿qué tengo que *llevar*?"):
    # an answer repeats them ("you need 2 eggs"); they are the question's frame, not a thing asked for.
    question_verbs: frozenset[str] = frozenset()
    # This turn's own successful changes: what a claim of doing it once more ("added it again") needs.
    own_effects: tuple[CallRecord, ...] = ()
    # The user tells what they did themselves ("ya he podado los frutales", "I've already posted it").
    users_deed: bool = False
    # The first four and five letters of the user's words: a word told back in another form shares them.
    user_prefixes: frozenset[str] = frozenset()


def _turn_facts(calls: Sequence[CallRecord], user_text: str, asked: frozenset[ActionKind],
                earlier: Sequence[CallRecord] = ()) -> _Turn:
    last: dict[tuple[str, str], CallRecord] = {}
    for call in calls:
        last[(call.name, call.arguments)] = call
    ok_effects = tuple(c for c in calls if c.is_write and c.status is CallStatus.OK)
    earlier_ok = tuple(c for c in earlier if c.is_write and c.status is CallStatus.OK)
    # Asking about the past ("is it there?"), not for something new: the earlier changes back what it says.
    # A turn that tried a change of its own ("start plan-3 over with…", read as asking for nothing) did ask.
    about_the_past = not asked and not any(c.is_write for c in calls)
    own = ok_effects
    if about_the_past:
        ok_effects = earlier_ok + ok_effects
    unsettled = tuple(c for c in last.values() if c.is_write and c.status is not CallStatus.OK)
    done_kinds = {kind_of_tool(c.name) for c in ok_effects}
    strict = bool(asked) and not any(done_kinds & BACKS[kind] for kind in asked)
    read_ok = any(not c.is_write and c.status is CallStatus.OK for c in calls)
    words = frozenset(w.lower() for w in _WORD.findall(user_text[:4000]))
    objects = frozenset(_norm(t).strip(".-") for t in _objects(user_text[:4000]))
    guessed = bool(asked) and not asked_by_rules(user_text) and not continues_request(user_text)
    reads = [c for c in calls if not c.is_write and c.status is CallStatus.OK]
    # The name of what was read is what it gave too: "your engine note says…" after reading engine-x9.
    read_names = " ".join(part for c in reads for token in _objects(_readable(c.arguments))
                          for part in _NAME_PARTS.split(token))
    looked_up_text = " ".join([*(_norm(c.result[:MAX_LOOKED_UP_CHARS]) for c in reads), _norm(read_names)])
    verbs = frozenset(next(g for g in m.groups() if g).lower() for m in _QUESTION_VERB.finditer(user_text[:4000]))
    reported = reported_actions(user_text)
    return _Turn(asked, reported, ok_effects, unsettled, read_ok, strict, words, objects, guessed,
                 () if about_the_past else earlier_ok, _names_in(looked_up_text), looked_up_text, verbs, own,
                 bool(reported) or bool(_USERS_DEED.search(user_text[:4000])),
                 frozenset(w[:k] for w in words for k in (4, 5) if len(w) >= k))


# The user's own deed, in the first person: "ya he podado…", "I've already posted…", "I just sent…".
# ("He terminao", "hemos salío": the participle as it is said, without its d.)
_USERS_DEED = re.compile(r"\b(?:ya\s+)?(?:he|hemos)\s+[^\W\d_]+(?:ado|ido|to|cho|ao|[ií]o)\b|"
                         r"\bi(?:'ve|\s+have)?\s+(?:already\s+|just\s+)[^\W\d_]+(?:ed|t|de|ne)\b", re.I)
# Words that praise or weigh a deed, not name a thing: "lo gordo ya está hecho", "the main bits are done".
_DEED_WORDS = frozenset("""
important importante essentials esencial bits part parte main principal gordo hard duro difícil big grande
heavy lifting bien done hecho well sounds like parece knows know knew aware sabe saben
""".split())
_PLACE_WORDS = frozenset("""
note notes list lists memory calendar reminder reminders agenda diary nota notas lista listas memoria calendario
recordatorio recordatorios diario
""".split())


def _not_ours(clause: Clause, turn: _Turn) -> bool:
    """The clause takes a deed as given ("con el reporte ya entregado", "since the invoice was sent") or tells
    the user's own deed back: it claims no act of the assistant's."""
    return (clause.presupposed and (clause.kinds <= turn.reported or not turn.asked)) or _told_back(clause, turn)


def _told_back(clause: Clause, turn: _Turn) -> bool:
    """The clause tells the user's own deed back ("con el reporte ya entregado"): it claims no act of ours."""
    # (Not when this turn tried a change itself: "Nota guardada" after its own failed write tells that write.)
    return (turn.users_deed and not turn.asked and not turn.ok_effects and not turn.unsettled
            and _tells_users_deed(clause, turn))


def _tells_users_deed(clause: Clause, turn: _Turn) -> bool:
    """The clause tells back what the user said they did ("con la poda terminada en todos"), in their words: no
    act of the assistant's, no place the assistant writes to that the user did not name, at most one word
    of its own next to theirs."""
    if _OWN_DOING.search(clause.text):
        return False
    shared = foreign = 0
    for word in _WORD.findall(clause.text):
        lowered = word.lower().split("'", 1)[0]
        if lowered in _PLACE_WORDS and lowered not in turn.user_words:
            return False
        if (len(lowered) < 4 or lowered in _STOP or lowered in _FUNCTION_WORDS or lowered in _DEED_WORDS
                or _ACTION_WORDS.match(lowered)):
            continue
        if lowered[:5] in turn.user_prefixes:
            shared += 1
        else:
            foreign += 1
    return foreign == 0 or (foreign <= 1 and shared > 0)


# The verb a question asks with: "what do I need", "what should we bring", "how much do I owe",
# "¿qué necesito?", "¿qué tengo que llevar?", "¿cuánto le debo?".
_QUESTION_VERB = re.compile(
    r"\b(?:what|which|how\s+(?:much|many)(?:\s+[^\W\d_]+)?|who|whom)\s+(?:else\s+)?"
    r"(?:do|does|did|should|shall|must|can|could|would|will|am|are|is|was|were)\s+(?:[^\W\d_]+\s+)?"
    r"(?:(?:have|need|got|ought|want)\s+to\s+)?([^\W\d_]{3,})"
    # (The thing counted may come first, then its verb: "¿cuántas latas de octavillo me quedan?".)
    r"|(?:¿|\b)cu[áa]nt[oa]s\s+(?:[^\W\d_]+\s+){1,4}?(?:me|te|nos|os|le|les|se)\s+([^\W\d_]{3,})"
    r"|(?:¿|\b)(?:qu[ée]|cu[áa]nt[oa]s?|cu[áa]l(?:es)?)\s+(?:(?:me|te|nos|os|le|les|se)\s+)?"
    r"(?:(?:tengo|tienes|tiene|tenemos|hay|debo|debemos)\s+que\s+)?([^\W\d_]{3,})",
    re.IGNORECASE,
)


_NAME_PARTS = re.compile(r"[-_./]")
MAX_WORKED_OUT = 12
"""Numbers of earlier sentences carried as operands (an answer full of figures carries the first ones)."""
MAX_LOOKED_UP_CHARS = 20_000
"""Of each lookup's result, the part read for the names it gives."""
# A verb of doing: "added", "guardado", "put", "hecho". "It's in recipes.md" has none: it says where
# a thing is.
_DONE_VERB = re.compile(rf"\b(?!(?:{NOT_PAST_ED})\b)[^\W\d_]{{2,}}(?:ed|ad[oa]s?|id[oa]s?)\b"
                        r"|\b(?:put|set|kept|wrote|written|made|done|puest[oa]s?|escrit[oa]s?|hech[oa]s?)\b", re.I)


def _state_the_lookup_gave(clause: Clause, turn: _Turn, neighbours: str = "") -> bool:
    """Asked to store a thing, nothing was written, and the clause says where it already is, as read.

    "Milk is already on your list, so I didn't add it again" after a read that gave the milk tells what
    the read found. A verb of doing ("added") or the assistant speaking of itself is a claim still,
    and so is any word the lookups did not give ("your list has milk" after a read without it).
    """
    if not turn.read_ok or clause.closer or clause.kinds != {ActionKind.STORE}:
        return False
    if any(_norm(t).strip(".-") not in turn.looked_up for t in _objects(clause.text)):
        return False
    bare = re.sub(r"[\w.-]*\d[\w.-]*|[\w-]+\.md\b", " ", clause.text)
    if _DONE_VERB.search(bare) or speaks_of_self(clause.text):
        return False
    words = [w.lower().split("'", 1)[0] for w in _WORD.findall(f"{claimed_parts(clause.text)} {neighbours}")]
    said = [w for w in words if w not in _STOP and w not in _FUNCTION_WORDS]
    return bool(said) and all(_stem_in(w, turn.looked_up_text) for w in said)


def _found_by_lookup(clause: Clause, turn: _Turn, neighbours: str = "") -> bool:
    """Asked for nothing (or only by a guess), a lookup ran, and the clause only tells what it found.

    "It's in recipes.md", "you'll find it in recipes.md" after a search that gave recipes.md report
    what the search found; "I've saved it in recipes.md" is a verb of doing, which a lookup never backs.
    Without such a place, "the rent is paid", "en tu lista tienes: huevos…" report the read when every
    word of it (and of the verbless clauses beside it) is in what the lookups gave, and the assistant
    does not speak of itself ("I've paid the rent" is its own action, whatever the note says).
    """
    if (turn.asked and not turn.guessed) or not turn.read_ok or not clause.kinds:
        return False
    names = [_norm(t).strip(".-") for t in _objects(clause.text)]
    if any(name not in turn.looked_up for name in names):
        return False
    bare = re.sub(r"[\w.-]*\d[\w.-]*|[\w-]+\.md\b", " ", clause.text)  # names are no verbs
    if names and clause.kinds == {ActionKind.STORE} and not _DONE_VERB.search(bare):
        return True
    if speaks_of_self(clause.text):
        return False
    words = [w.lower() for w in _WORD.findall(f"{claimed_parts(clause.text)} {neighbours}")]
    said = [w for w in words if w not in _STOP and w not in _FUNCTION_WORDS]
    # The user's own verb asked back ("¿cuántos tengo apuntados?" "Tienes 7 apuntados: Ana, Luis…") is
    # how they asked, not a new claim; what it is said of must still be what the lookups gave.
    things = [w for w in said if not _users_verb(w, turn) and not _users_state(w, clause.text)]
    if not things and _READ_FRAME.search(clause.text):
        return True  # "Esto es lo que tienes anotado:", "Here's what you have saved:": the read follows
    return bool(things) and all(_stem_in(w, turn.looked_up_text) for w in things)


# What the user has, told before a participle: "lo que tienes anotado", "tu presupuesto anotado",
# "what you've got saved".
_USERS_STATE_BEFORE = re.compile(r"(?:\b(?:tienes|ten[ée]s|ten[íi]as|you\s+have|you'?ve(?:\s+got)?|you\s+had)\s+"
                                 r"(?:\w+\s+)?|\b(?:tu|tus|your)\s+(?:\w+\s+){0,2}?)$", re.I)


def _users_state(word: str, text: str) -> bool:
    """`word` is a verb of doing said of a state of the user's: the state a read shows, not an act."""
    if not _ACTION_WORDS.match(word):
        return False
    return any(_USERS_STATE_BEFORE.search(text[max(0, m.start() - 40):m.start()])
               for m in re.finditer(rf"\b{re.escape(word)}\b", text, re.I))


# What introduces what a read gave: "esto es lo que…", "here's what…".
_READ_FRAME = re.compile(r"\b(?:lo\s+que|todo\s+lo\s+que|what|everything)\b", re.I)


def _users_verb(word: str, turn: _Turn) -> bool:
    """`word` is a verb of doing the user used, in any form ("¿tengo algo apuntado?" … "**Apunte:** …")."""
    stem = _ACTION_WORDS.match(word)
    return stem is not None and (word in turn.user_words or any(
        w.startswith(stem.group(0)) and _ACTION_WORDS.match(w) for w in turn.user_words))


# A step told to the user, when they asked for no action: "then put it in cold water", "set up an automatic
# transfer on payday". ("Put" and "set up" are the past tense too: a claim only where one was asked for.)
_INSTRUCTION = re.compile(r"^\W*(?:(?:and|then|and\s+then|or|next|first|finally)\s+)?(?:put|set\s+up|set)\s+"
                          r"(?:it|them|the|a|an|your|some|one|in|on|aside)\b", re.I)
# Someone named doing the thing: "Ana paid 50 €", "Luis reservó el hotel". The doer is not the assistant.
# ("Milk added to shop-1", "Milk added.": an English participle with its place, or alone, says what was
# done to the milk.)
_OTHER_DOER = re.compile(
    r"^\W*(?P<name>(?-i:[A-ZÁÉÍÓÚÑ][^\W\d_]+))(?:\s+(?:and|y|e)\s+(?-i:[A-ZÁÉÍÓÚÑ][^\W\d_]+))?\s+"
    r"(?:already\s+|also\s+|ya\s+|tambi[ée]n\s+)?"
    r"(?:(?:paid|sent|booked|bought|ordered|added|wrote|created|scheduled|cancell?ed|deleted|transferred)\b"
    r"(?!\s+(?:to|into|in|on|onto|from|for|at|as|and|with|by)\b|\W*$)|"
    r"(?:pag[óo]|envi[óo]|mand[óo]|reserv[óo]|compr[óo]|pidi[óo]|añadi[óo]|escribi[óo]|cre[óo]|cancel[óo]|borr[óo]|"
    r"puso|transfiri[óo])\b)",
    re.I,
)
_NOT_A_DOER = frozenset("i we it you they he she this that everything all both yo nosotros todo ambos".split())


def _someone_else_did(clause: Clause, turn: _Turn) -> bool:
    """The clause tells what a person the lookups or the user named did: no claim of the assistant's."""
    match = _OTHER_DOER.match(clause.text)
    if match is None:
        return False
    name = match.group("name").lower()
    return name not in _NOT_A_DOER and (name in turn.user_words or re.search(rf"\b{re.escape(name)}\b",
                                                                          turn.looked_up_text) is not None)


# A thing said to be present where a lookup looked: "milk is there", "it's listed", "sí, está ahí".
_PRESENCE = re.compile(
    r"\b(?:is|are|'s|'re)\s+(?:already\s+|both\s+|all\s+)?(?:there|in\s+there|on\s+there|on\s+it|in\s+it|"
    r"listed|included|on\s+(?:the|your)\s+list)\b|\b(?:it|they)\s+(?:has|have|includes?|lists?)\b"
    r"|\best[áa]n?\s+(?:ya\s+)?(?:ah[íi]|all[íi]|dentro|en\s+(?:ella|la\s+lista|tu\s+lista)|apuntad|incluid)"
    r"|\b(?:la|tu)\s+lista\s+(?:tiene|lleva|incluye)\b",
    re.I,
)


# Words of asking and of telling what a source says: the user's "what does it say?" is no thing asked about.
_ASKING_WORDS = re.compile(
    r"^(?:says?|said|reads?|shows?|mentions?|states?|contains?|includes?|lists?|check|look|find|search|open|"
    r"what|which|whether|dice|dec[íi]a|pone|pon[íi]a|indica|recoge|menciona|muestra|contiene|incluye|lleva|"
    r"mira|revisa|busca|lee|abre|consulta|qu[ée]|cu[áa]l|cu[áa]les|si|"
    # The kind of thing asked for ("what's the guest wifi password?"): a source gives it, not the word.
    r"password|passwords|contrase[ñn]a|clave|code|c[óo]digo|name|nombre|number|n[úu]mero|address|direcci[óo]n|"
    r"called|named|llama|llamaba|llamaban|llaman|llamado|llamada|"
    r"itinerary|itinerario|details|detalles|datos|info|information|informaci[óo]n|"
    # The unit an answer is asked in ("how far is it in miles?"): a conversion gives it.
    r"miles|millas|kilometres|kilometers|kil[óo]metros|fahrenheit|celsius|pounds|libras|ounces|onzas|inches|"
    r"pulgadas|feet|pies|gallons|galones|dollars|d[óo]lares|euros)$",
    re.I,
)


def _unread_asked_thing(clause: Clause, turn: _Turn) -> str | None:
    """A word of the user's request the clause speaks of, which no lookup of this turn gave.

    Asked to add milk, a read of the list ran and nothing was written: "your list has milk" tells
    no finding of the read (the list had no milk), it tells the asked change as made.
    """
    for word in _WORD.findall(claimed_parts(clause.text)):
        lowered = word.lower().split("'", 1)[0]
        if (lowered in turn.user_words and lowered not in _STOP and lowered not in _FUNCTION_WORDS
                and lowered not in turn.question_verbs
                and not _ACTION_WORDS.match(lowered) and not _ASKING_WORDS.match(lowered)
                and not _stem_in(lowered, turn.looked_up_text)):
            return word
    return None


# "That's done", "eso ya está hecho": done, said of nothing named.
_DONE_ALONE = re.compile(r"^\W*(?:that'?s|that\s+is|it'?s|eso|esto|ya)?\s*(?:ya\s+)?(?:est[áa]\s+)?"
                         r"(?:done|hecho|hecha|listo|lista|sorted)(?:\s+(?:y\s+bien\s+hech[oa]|and\s+well\s+done|"
                         r"and\s+dusted))?\W*$", re.I)


# A list opened as what is left to do: "Here's what still needs doing:", "Lo que te falta:".
_TO_DO = re.compile(
    r"\b(?:(?:still\s+)?needs?\s+(?:doing|to\s+be\s+done|sorting)|left\s+to\s+(?:do|sort|book|buy|pack|arrange)|"
    r"still\s+(?:to\s+do|to\s+sort|to\s+book)|what'?s\s+(?:still\s+)?left|to-do|to\s+do\s+list|still\s+pending|"
    r"you'?ll\s+(?:still\s+)?need|you\s+(?:still\s+)?need\s+to|"
    r"(?:lo\s+que\s+)?(?:te|os|nos)\s+falta(?:n|r[íi]a)?|(?:te|os|nos)\s+queda(?:n)?\s+por|quedar[íi]a\s+por|"
    r"(?:est[áa]|queda)\s+pendiente|pendientes|faltar[íi]a|tienes\s+que|hay\s+que)\b",
    re.I,
)
_LIST_ITEM_START = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)])\s+")
# A list opened as examples ("You can list them all in one message, for example:"): its items show a
# shape to follow, with made-up details; they report nothing.
_EXAMPLES = re.compile(r"\b(?:for\s+example|for\s+instance|e\.\s?g\.|such\s+as|like\s+this|like\s+so|"
                       r"por\s+ejemplo|p\.\s?ej\.|como\s+(?:este|esta|estos|estas)|as[íi]|tipo)\W*:\s*$", re.I)
# A heading over advice ("## More ideas", "**Lo que parece faltar**", "### Tips"): its items are suggestions,
# not what a lookup listed.
_ADVICE_HEADING = re.compile(
    r"^\W*(?:#{1,6}\s*|\*\*)\W*(?:(?:some|more|other|a\s+few|extra|m[áa]s|otras?|algunas?)\s+)?"
    r"(?:ideas?|tips?|suggestions?|advice|recommendations?|consejos?|sugerencias?|recomendaciones?|"
    r"what\s+else|what'?s\s+missing|lo\s+que\s+(?:parece\s+)?falta(?:r|r[íi]a|n)?|qu[ée]\s+(?:m[áa]s|te\s+falta))\b",
    re.I)
# A heading that asks or names a topic ("**Qué hay en la nota**", "## About the tidy-up"): a label.
_TOPIC_HEADING = re.compile(
    r"^\W*(?:#{1,6}\s*|\*\*)\s*(?:qu[ée]|what|which|c[óo]mo|how|lo\s+que|sobre|about|acerca\s+de|d[óo]nde|where|"
    r"cu[áa]ndo|when|why|por\s+qu[ée])\b[^\n]{0,60}?(?:\*\*)?\W*$", re.I)
# A fence that opens or closes a draft ("---", "```").
_FENCE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,}|`{3,}\w*)\s*$")


# "Friday cardio stays as it was": what comes before it is the thing left as it was.
_STAYS = re.compile(r"\b(?:stays?|remains?|is\s+still|are\s+still|sigue|siguen|se\s+queda|se\s+quedan|"
                    r"contin[úu]an?|queda|quedan)\b", re.I)


# Everything but the asked change left as it was: "no other changes", "nothing else moved", "lo demás, igual".
_NOTHING_ELSE = re.compile(r"\b(?:no\s+other\s+changes?|nothing\s+else\s+(?:changed|changes|moved)|"
                           r"(?:everything|all)\s+else\s+(?:stays|is\s+the\s+same|unchanged)|"
                           r"(?:ning[úu]n|sin)\s+otro\s+cambio|nada\s+m[áa]s\s+cambia|lo\s+dem[áa]s,?\s+igual)\b",
                           re.IGNORECASE)


def _spares_another_thing(clause: Clause, turn: _Turn) -> bool:
    """With no call tried, the clause says a thing the user did not ask about stays as it was ("Friday
    cardio stays as it was", asked to swap Monday and Wednesday): no account of the asked change, rather
    a hint it was made."""
    if turn.unsettled:  # after a refused or failed call, what stays put is its account
        return False
    if _NOTHING_ELSE.search(clause.text):
        return True  # "It's on Thursday now, no other changes": the rest unchanged, around a change
    spot = _STAYS.search(clause.text) or _UNCHANGED.search(clause.text)
    if spot is None:
        return False
    words = {w.lower() for w in _WORD.findall(clause.text[:spot.start()])}
    things = {w for w in words if len(w) >= 3 and w not in _STOP and w not in _FUNCTION_WORDS
              and not _ACTION_WORDS.match(w)}
    return bool(things) and not any(_stem_in(w, " ".join(turn.user_words)) for w in things)


def _closed_kinds(clause: Clause, turn: _Turn, row: Sequence[str] = ()) -> set[ActionKind]:
    """What a closer claims: everything asked; what it names ("listo lo del gas") when a call did that;
    in a table row, the action its other cells ask for ("| Add milk to shop-3 | ✅ done |")."""
    words = {word.lower() for word in _WORD.findall(closer_topic(clause.text))} - _STOP
    named = {kind_of_tool(c.name) for c in turn.ok_effects
             if any(_stem_in(word, _norm(_readable(c.arguments))) for word in words)}
    own = asked_by_rules(". ".join(cell for cell in row if cell not in clause.text)) if row else frozenset()
    return named or set(own) or set(turn.asked)


def _backing(kind: ActionKind, turn: _Turn) -> list[CallRecord]:
    # An overwrite takes away what the note said: "the old timetable is no longer in the note".
    return [c for c in turn.ok_effects if kind_of_tool(c.name) in BACKS[kind]
            or (kind is ActionKind.REMOVE and _overwrites(c))]


_OVERWRITE_ARGUMENT = re.compile(r'"(?:overwrite|replace)"\s*:\s*true')


def _overwrites(call: CallRecord) -> bool:
    """A write that replaced what was there (the approval a destructive write needs, or its flag)."""
    return kind_of_tool(call.name) is ActionKind.STORE and (
        call.risk >= Risk.DESTRUCTIVE or bool(_OVERWRITE_ARGUMENT.search(call.arguments)))


_CONTRAST = re.compile(r"^\W*(?:but|though|although|however|yet|even\s+so|anyway|pero|aunque|sin\s+embargo|"
                       r"aun\s+as[íi]|no\s+obstante|igualmente|de\s+todos\s+modos)\b", re.I)
# What made a call fail, told after "but": "Lo intenté, pero la aprobación caducó", "I tried, but it was
# denied". The contrast is with the attempt, and it gives the reason.
_FAILED_BECAUSE = re.compile(
    r"\b(?:caduc\w*|expir\w*|fall[óo]|fallaron|failed|errou?r\w*|deneg\w*|denied|rechaz\w*|refused|declined|"
    r"timed?\s+out|se\s+agot[óo]|no\s+(?:respondiste|contestaste|llegaste\s+a\s+responder)|"
    # …or what the tool found wrong: "but ../x.md is outside your notes folder", "pero esa nota no existe".
    r"outside|not\s+allowed|isn'?t\s+allowed|no\s+se\s+permite|no\s+existe|doesn'?t\s+exist|does\s+not\s+exist|"
    r"no\s+such|already\s+exists|ya\s+existe|fuera\s+de|hidden|ocult[oa]|"
    r"(?:didn'?t|did\s+not|never)\s+(?:answer|respond|approve|get\s+approved))", re.I)
CLAIM_THRESHOLD = 0.9
"""The classifier must be this sure before a sentence the rules let pass counts as a claim."""
ClaimScorer = Callable[[Sequence[str]], list[float]]


# Saying it is in the assistant's memory or the user's timeline: a note written somewhere is neither.
_MEMORY_CLAIM = re.compile(
    r"\b(?:(?:in|to|from)\s+my\s+(?:long-term\s+)?memory|i'?ll\s+(?:always\s+)?(?:remember|recall|keep\s+in\s+mind|"
    r"bear\s+in\s+mind)|i\s+will\s+(?:always\s+)?remember|remembered|memori[sz]ed|won'?t\s+forget|never\s+forget|"
    # "te lo recordaré" is a reminder; "lo recordaré" is remembering.
    # ("Le recordaré…" is a reminder too, said to "usted".)
    r"now\s+i\s+know|en\s+mi\s+memoria|(?<!\bte\s)(?<!\bte\slo\s)(?<!\bte\sla\s)(?<!\ble\s)(?<!\bles\s)(?<!\bos\s)"
    r"(?<!\bse\slo\s)(?<!\bse\sla\s)(?:lo\s+|la\s+)?recordar[ée]|"
    r"(?<!\bte\s)lo\s+recuerdo|me\s+acordar[ée]|no\s+(?:lo\s+|te\s+lo\s+)?olvidar[ée]|"
    r"memorizad[oa]|tendr[ée]\s+en\s+cuenta|ya\s+(?:lo\s+)?s[ée]\s+(?:que|para)|ahora\s+(?:lo\s+)?s[ée]|me\s+(?:lo|la)\s+(?:quedo|guardo)|"
    r"me\s+quedo\s+con|(?:i\s*'?ll|i\s+will)\s+(?:hang|hold)\s+on\s*to|won'?t\s+be\s+forgetting|"
    # Learnt by heart: "me lo he aprendido", "I've learnt it".
    r"me\s+l[oa]s?\s+(?:he\s+)?aprend(?:ido|[íi])|(?:i'?ve\s+|i\s+have\s+)?(?:learnt|learned)\s+(?:it|that|them)\b|"
    r"(?:not|never)\s+(?:going\s+to|gonna)\s+forget|(?:no|nunca)\s+se\s+me\s+(?:va\s+a\s+olvidar|olvidar[áa])|"
    r"(?:in|to|on)\s+(?:your|the)\s+timeline|en\s+(?:tu|el)\s+(?:historial|l[íi]nea\s+de\s+tiempo))\b",
    re.I,
)
# "Sigue tal cual", "it's still there", "untouched": the thing is as it was, which says it was not done.
_UNCHANGED = re.compile(
    r"\b(?:sigue|siguen|queda|quedan|est[áa]n?)\s+(?:tal\s+cual|igual|como\s+(?:estaba|estaban|est[áa]n?)|intact[oa]s?|ah[íi])\b"
    r"|\b(?:still\s+there|as\s+it\s+was|as\s+they\s+were|unchanged|untouched|intact|stays?\s+as\s+(?:it\s+)?is)\b",
    re.I,
)
# What the failed call was given, named by what the assistant did with it: "la fecha que puse ya había
# pasado", "the time I used was taken". Beside a "could not", it describes the attempt; it claims nothing.
_ATTEMPTED = re.compile(
    r"\b(?:que|which|that)\s+(?:yo\s+|i\s+)?(?:te\s+|le\s+|lo\s+|la\s+)?(?:puse|us[ée]|di|indiqu[ée]|eleg[íi]|"
    r"escrib[íi]|prob[ée]|intent[ée]|put|used|gave|chose|picked|entered|wrote|set|tried)\b"
    r"|\b(?:the|that)\s+[^\W\d_]{2,20}\s+i\s+(?:put|used|gave|chose|picked|entered|wrote|set|tried)\b",
    re.I,
)
_MEMORY_TOOL = re.compile(r"remember|memor|fact|timeline|profile")
# Saying it went into one of the user's notes: a memory or a reminder is none ("added it to your health note").
_NOTE_CLAIM = re.compile(
    r"\b(?:to|in|on|into|onto)\s+(?:your|the|my)\s+(?:[\w-]+\s+){0,2}notes?\b|\b[\w-]{1,80}\.md\b"
    r"|\b(?:en|a)\s+(?:tu|la|tus|las)\s+notas?\b",
    re.I,
)
_NOTE_TOOL = re.compile(r"note|vault|file")
# Saying an appointment or a table was booked or confirmed: a note that mentions one ("pedir cita") is neither.
_BOOKING_CLAIM = re.compile(
    r"\b(?:booked|reserved|reserv(?:ad[oa]s?|[ée]|amos))\b"
    r"|\b(?:appointment|reservation|booking|table|cita|reserva|mesa)\b[^.!?\n]{0,40}?\b(?:confirmed|made|set\s+up|"
    r"arranged|requested|done|confirmad[oa]|pedid[oa]|concertad[oa]|solicitad[oa]|reservad[oa]|hech[oa]|"
    r"list[oa])\b"
    r"|\b(?:confirmed|made|arranged|requested|ped[íi]|confirm[ée]|concert[ée]|solicit[ée])\b[^.!?\n]{0,20}?"
    r"\b(?:appointment|reservation|booking|cita|reserva|mesa)\b"
    # An order or a purchase is made with a shop, as a booking is: "ya la pedí", "I ordered it".
    r"|\b(?:ordered|bought|purchased|ped[íi]|(?:he|hemos)\s+pedido|compr[ée]|(?:he|hemos)\s+comprado)\b"
    # "El pedido está hecho", "your order is in": the order told by its noun.
    r"|\b(?:pedido|order|compra|purchase)\s+(?:ya\s+)?(?:est[áa]\s+|is\s+|has\s+been\s+|'s\s+)?(?:ya\s+)?(?:hech[oa]|"
    r"realizad[oa]|confirmad[oa]|tramitad[oa]|en\s+camino|placed|in|done|confirmed|on\s+its\s+way|through)\b"
    # Expected there, a slot held: "la veterinaria ya os espera el martes", "they're expecting you".
    r"|\b(?:(?:te|os|les|nos)\s+esperan?|(?:they|she|he)(?:'re|'s|\s+are|\s+is)\s+expecting\s+you|"
    r"you(?:'re|\s+are)\s+expected|ten[ée]is\s+hueco|tienes\s+hueco|you\s+have\s+a\s+slot)\b",
    re.I,
)
_BOOKING_TOOL = re.compile(r"event|calendar|agenda|book|reserv|appointment|order|shop|buy|purchase|cart")


# What says a thing is so now, which no admission elsewhere in the answer turns into advice.
_NOW_SO = re.compile(r"\b(?:already|now|just|ya|ahora|acabo|acabamos|i'?ve|i\s+have|has\s+been|have\s+been)\b", re.I)


# A thumbs-up alone after the answer said it was not done nods to the user; it ticks nothing off.
_NOD = re.compile(r"[\s👍👌🙂😊🙏]+")
_UNDERSTOOD = re.compile(r"^\W*(?:got\s+it|understood|entendido|entiendo|ok(?:ay)?|vale|right|gotcha)\W*$",
                         re.IGNORECASE)


def _aside(clause: Clause) -> bool:
    """Next to a plain "it was not done", a clause that claims nothing gives a reason, advice or a way on.

    ("I can't place orders. Here's how to do it yourself: 1. Open the app…"). One that turns on what
    was admitted ("…but it's on your list now") or says a thing is so now is no aside.
    """
    # ("Just ask again when you're ready" asks the user; it tells nothing just done.)
    return ((not _CONTRAST.match(clause.text) or bool(_FAILED_BECAUSE.search(clause.text)))
            and not _NOW_SO.search(without_asking_just(clause.text))
            and not _PRESENCE.search(clause.text))


# The assistant telling its own act with a subject or an auxiliary: "I tidied…", "he ordenado…".
# ("…no hace falta que te lo apunte yo" tells nothing done.)
_OWN_DOING = re.compile(r"\b(?:i|we)(?:'ve|\s+have|\s+also|\s+just|\s+then)?\s+[^\W\d_]+(?:ed|ied)\b"
                        r"|\b(?:me\s+)?(?:he|hemos)\s+[^\W\d_]+(?:ado|ido)\b"
                        rf"|\b(?!(?:{NOT_PRETERITE})\b)[^\W\d_]{{2,}}é\b", re.I)


def _clause_problem(clause: Clause, turn: _Turn, explains: bool = False, model_claim: bool = False,
                    neighbours: str = "", conceded: bool = False, row: Sequence[str] = ()) -> str | None:
    """Why this clause may not reach the user, or None.

    `explains`: the sentence also says something was not done, so a plain statement next to
    it ("I couldn't add it: the server is down") gives the reason, not a claim. `conceded`: another
    sentence of the answer says so; a clause that claims nothing is then an aside (`_aside`).
    """
    if (clause.stance is Stance.NEGATED and turn.strict and not explains and not turn.guessed
            and not (conceded and _aside(clause))):
        # Asked for and not done: a negation may only say so. One about something else
        # ("Nope, nothing stands in the way") is a way around it, not an account of it.
        return "an action was asked for and none of that kind succeeded; this does not say it was not done"
    if clause.stance is not Stance.AFFIRMATIVE:
        return None
    if explains and _CONTRAST.match(clause.text) and not _FAILED_BECAUSE.search(clause.text):
        # "There was an error, but the milk got in": what comes after "but" is no reason for it.
        explains = False
    if clause.second_person and not clause.kinds:
        return None
    kinds = set(clause.kinds)
    if explains and kinds and (not claimed_kinds(_ATTEMPTED.sub(" x ", clause.text))
                               or (_EXISTING.search(clause.text) and any(_EXISTS_ERROR.search(c.error)
                                                                          for c in turn.unsettled))):
        # "I couldn't create it: you already have a note called plan": the reason the call gave, no claim.
        kinds = set()
    if clause.closer and conceded and _NOD.fullmatch(clause.text):
        return None
    if clause.closer and turn.guessed and _UNDERSTOOD.match(clause.text):
        # "Got it — if he said Thursday, that's the new slot": understood, said to news the classifier only
        # guessed was a request ("fish guy said delivery moved to thursday").
        return None
    if (clause.closer and turn.guessed and turn.users_deed and not turn.unsettled and not turn.own_effects
            and _DONE_ALONE.match(clause.text)):
        # "¡Hecho y bien hecho!" to "ya he terminao de salar el lote 15!!": the user's deed, praised; only the
        # classifier guessed a request.
        return None
    if clause.closer and turn.asked:
        kinds |= _closed_kinds(clause, turn, row)  # "Listo", "All set": claims what was asked
    # "I can't send emails, but I've saved a draft in draft-x.md": the asked action conceded, and what was
    # done instead told, which a successful call of its own kind backs (checked below like any claim).
    done_instead = (explains or conceded) and bool(kinds) and all(
        any(kind_of_tool(c.name) in BACKS[kind] for c in turn.ok_effects) for kind in kinds)
    if turn.strict and not done_instead:
        if (explains or conceded) and clause.possible:
            return None  # "I couldn't find it — it may have already fired": a guess at why
        # ("Once I know, I can add her…": a time put first as background says nothing was done.)
        if not kinds and not clause.closer and (explains or turn.guessed or _UNCHANGED.search(clause.text)
                                                or (conceded and _aside(clause)) or clause.presupposed
                                                or (turn.read_ok and not _unread_asked_thing(clause, turn))):
            # Reports what a lookup found (nothing the user asked about that the lookup did not give),
            # or why it was not done; or no verb asked for an action (the classifier's reading of
            # "ayúdame a organizar la mudanza"): advice claims nothing.
            return None
        if _state_the_lookup_gave(clause, turn, neighbours):
            return None
        if turn.guessed and _found_by_lookup(clause, turn, neighbours):
            return None  # the request was only a guess, and this tells what the read gave in its words
        return "an action was asked for and none of that kind succeeded"
    # ("Ahora que ya está, deja la ventana abierta": what the user said they finished, as background.)
    # ("¡Eso ya está hecho, genial!" after "ya he mandado el currículum": asked for nothing, a bare
    # "done" is said of what the user told.)
    if (clause.second_person or (clause.presupposed and (kinds <= turn.reported or not turn.asked))
            or (not turn.asked and _DONE_ALONE.match(clause.text))
            or _found_by_lookup(clause, turn, neighbours) or _someone_else_did(clause, turn)
            or _state_the_lookup_gave(clause, turn, neighbours)
            or (not turn.asked and _INSTRUCTION.match(clause.text))
            or _told_back(clause, turn)):
        return None
    # "Since the invoice was sent…": the user's own action. Not a kind they also ask for ("I booked the
    # flight, now book the hotel"): a claim of that needs a call still.
    if not _OWN_DOING.search(clause.text):  # ("¿qué apunté?" … "he ordenado la nota": the assistant's own act)
        # (Unless this turn tried that kind itself: "escribí una nota…" read as the user's past is a request the
        # assistant acted on, and "Nota guardada" after its failed write tells that write.)
        tried = {kind for kind in turn.reported if any(kind_of_tool(c.name) in BACKS[kind]
                                                         for c in (*turn.unsettled, *turn.own_effects))}
        kinds -= turn.reported - turn.asked - tried
    if not kinds and model_claim:
        # (A claim the classifier found is judged on the things it names too: "…and the milk is on
        # order-list-dairy" after a write to order-list only.)
        if not explains and (untouched := _untouched_object(clause, turn)):
            return untouched
        kinds = set(turn.asked) - set(turn.reported)
    if clause.everything and turn.asked and (turn.unsettled or _untouched_asked(turn)):
        # "Las dos notas tienen lo suyo" with a call on one of them only: "both" needs every one.
        return "claims every action succeeded, but not all did"
    if not kinds and turn.read_ok and _PRESENCE.search(clause.text) and (word := _unread_asked_thing(clause, turn)):
        # "Is milk on my list?" "Yes, milk is there.": after a read that gave no milk.
        return f"says {word!r} is there, but no lookup of this turn gave it"
    if (not kinds and not turn.asked and not turn.read_ok and _PRESENCE.search(clause.text)
            and _NOW.search(clause.text) and (what := _unchanged_thing(clause, turn, neighbours))):
        # "How many are on it now?" "It now has 3 things: soap, rice…": a list said to have changed, with
        # no change of this conversation that put those things there and no lookup that read them.
        return f"says {what!r} is there now, but no change of this conversation put it there and nothing read it"
    if not kinds and _MEMORY_CLAIM.search(told_as_own(clause.text)):
        kinds = {ActionKind.STORE}  # "…y además me lo he aprendido": kept in memory, which a memory call must do
    if (not kinds and turn.asked and not turn.read_ok and _BOOKING_CLAIM.search(told_as_own(clause.text))
            and not any(_BOOKING_TOOL.search(c.name.lower()) for c in turn.ok_effects)):
        return "says an appointment or a booking was made, but no call made one"
    if not kinds:
        # ("…, but ../x.md is outside your notes folder, so that one wasn't written": why it was not.)
        return None if explains else _untouched_object(clause, turn)
    backing: list[CallRecord] = []
    # "Updated it again", "gone too, same as the 2023 one": only a change of this turn is a new one.
    again = bool(_ANOTHER_TIME.search(clause.text))
    for kind in kinds:
        found = (_backing(kind, replace(turn, ok_effects=turn.own_effects)) if again
                 else _backing(kind, turn) or _restated(kind, clause, turn))
        if not found:
            return f"claims a {kind.value} action that no successful call did"
        backing += [c for c in found if not any(c is b for b in backing)]  # one call may back two kinds
    if clause.everything and len(backing) < 2:  # "both are on it now": one of them may be the turn before's
        backing += [c for kind in kinds for c in _restated(kind, clause, turn) if c not in backing]
    if clause.everything and (len(backing) < 2 or turn.unsettled):
        return "claims every action succeeded, but not all did"
    if (counted := _things_counted(clause.text)) > (changed := len({c.arguments for c in backing})):
        return f"says {counted} things were changed, but successful calls changed {changed}"
    if (ActionKind.STORE in kinds and _MEMORY_CLAIM.search(clause.text)
            and not any(_MEMORY_TOOL.search(c.name.lower()) for c in backing)):
        return "says it is in memory, but nothing was written to memory"
    if (ActionKind.STORE in kinds and _BOOKING_CLAIM.search(told_as_own(clause.text))
            and not any(_BOOKING_TOOL.search(c.name.lower()) for c in backing)):
        return "says an appointment or a booking was made, but no call made one"
    if (ActionKind.STORE in kinds and _NOTE_CLAIM.search(clause.text)
            and not any(_NOTE_TOOL.search(c.name.lower()) for c in backing)):
        return "says it is in a note, but no note was written"
    evidence = " ".join(_norm(f"{_readable(c.arguments)} {c.description} {c.result[:2000]}") for c in backing)
    # What an earlier turn put in the same note is in it still: "week-plan now has Monday's 10k and Tuesday's…".
    places = {name for c in backing for name in _objects(_readable(c.arguments))}
    evidence += " " + " ".join(_norm(_readable(c.arguments)) for c in turn.earlier_effects
                               if places & set(_objects(_readable(c.arguments))))
    touched = _names_in(evidence)
    # "old.md and older.md: deleted": the things a verbless clause next to it names are its objects.
    for token in _objects(f"{claimed_parts(clause.text)} {neighbours}"):
        name = _norm(token).strip(".-")
        # ("the no-chicken-bones rule" names what the call wrote as "no chicken bones".)
        if (len(name) >= 3 and not name.isdigit() and name not in touched
                and not ("-" in name and f" {name.replace('-', ' ')} " in f" {evidence} ")):
            return f"names {token!r}, which no successful call of that kind touched"
    # (When the thing will be used is no part of it: "lo tendré en cuenta cuando me pidas recetas".)
    said = f"{_WHEN_USED.sub(' ', claimed_parts(clause.text))} {neighbours}"
    for spot in _WORD.finditer(said):
        word = spot.group(0)
        lowered = word.lower().split("'", 1)[0]  # ("your gym's on 5th Ave": the gym)
        if lowered in _STOP or lowered not in turn.user_words or _ACTION_WORDS.match(lowered):
            continue
        if _AFTER_PRONOUN.search(said[max(0, spot.start() - 6):spot.start()]):
            continue  # a verb ("que te toca la vacuna", "that you need the form"): the things are its objects
        if not _stem_in(lowered, evidence) and not any(_stem_in(same, evidence) for same in _KIN.get(lowered, ())):
            return f"says {word!r} was handled, but no successful call of that kind included it"
    return None


# "All three class notes now say…", "las 4 listas": how many things a claim says it changed.
_COUNTED_THINGS = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|\d{1,2})\s+"
    r"(?:[\w-]+\s+)?(?:notes|lists|reminders|entries|files|notas|listas|recordatorios|entradas|archivos)\b", re.I)
_COUNT_WORDS = {w: n for n, group in enumerate(("", "", "two dos", "three tres", "four cuatro", "five cinco",
                                                  "six seis", "seven siete", "eight ocho", "nine nueve", "ten diez"))
                for w in group.split()}


def _things_counted(text: str) -> int:
    """The largest number of notes, lists or reminders a clause counts (0: it counts none)."""
    counts = [_COUNT_WORDS.get(m.group(1).lower(), 0) if not m.group(1).isdigit() else int(m.group(1))
              for m in _COUNTED_THINGS.finditer(text)]
    return max(counts, default=0)


# The same relative said another way: a call stores "the user's father" for "mi viejo", "my dad".
_KIN_GROUPS = (
    "padre papá papa viejo father dad daddy", "madre mamá mama vieja mother mum mom mummy mommy",
    "marido esposo husband hubby", "esposa mujer wife", "hijo son", "hija daughter", "hermano brother",
    "hermana sister", "abuelo grandfather grandpa", "abuela grandmother grandma nana",
    "suegro father-in-law", "suegra mother-in-law", "novio boyfriend", "novia girlfriend",
)
_KIN = {word: tuple(w for w in group.split() if w != word) for group in _KIN_GROUPS for word in group.split()}


# A thing said to exist already ("you already have a note called…", "ya existe"), and a tool refusing for it.
_EXISTING = re.compile(r"\b(?:already\s+(?:have|has|had|exists?|existed|there)|there(?:'s|\s+is|\s+was)\s+already|"
                       r"ya\s+(?:tienes|tiene|ten[íi]as|existe|exist[íi]a|hay|hab[íi]a))\b", re.I)
_EXISTS_ERROR = re.compile(r"\balready\s+exists?\b|\bya\s+existe\b", re.I)


# A subject or clitic pronoun: the word after it is a verb. ("la", "lo" are articles too: not here.)
_AFTER_PRONOUN = re.compile(r"(?:^|\W)(?:me|te|se|nos|os|le|les|i|you|we|they|he|she)\s+$", re.I)


# Words that say how or when, not what: a restatement of an earlier change names its things otherwise.
_FUNCTION_WORDS = frozenset("""
already still just yet there here was were been being set done too since earlier before has have had got
according far
ya todavía aún allí ahí estaba estaban era eran sigue siguen hecho listo antes tiene tienes tenía tenías
según segun sobre desde hasta hacia entre durante tras solo sólo only
""".split())


def _restated(kind: ActionKind, clause: Clause, turn: _Turn) -> list[CallRecord]:
    """The earlier changes a clause says again ("bread was already there", "the 6 April reminder is set").

    A bare "done" restates nothing. The clause must name something the earlier call touched (a word,
    a name, a time or a date of it) and nothing it did not: "butter's on the list too" after an earlier
    call that added bread is a new claim, which only a call of this turn can back.
    """
    if clause.closer or not turn.earlier_effects or _ANOTHER_TIME.search(clause.text):
        return []
    text = claimed_parts(clause.text)
    words = {w.lower() for w in _WORD.findall(text)}
    words = {w for w in words if w not in _STOP and w not in _FUNCTION_WORDS and not _ACTION_WORDS.match(w)}
    names = {_norm(t).strip(".-") for t in _objects(text)}
    said = extract_details(text)
    found = []
    for call in turn.earlier_effects:
        if kind_of_tool(call.name) not in BACKS[kind]:
            continue
        evidence = _norm(f"{_readable(call.arguments)} {call.description} {call.result[:2000]}")
        touched = _names_in(evidence)
        if not all(_stem_in(w, evidence) for w in words) or not names <= touched:
            continue
        details = extract_details(evidence)
        if not (said.times <= details.times and said.dates <= details.dates
                and said.month_days <= {day for _, day in details.dates}):
            continue  # "9:00 on the 5th and the 6th" after a reminder on the 4th at 9: new days, a new claim
        if words or names or said.times & details.times or said.dates & details.dates:
            found.append(call)
    return found


# Done once more, or done like the one before: "updated it again", "gone too", "same as the others", "like
# last time", "otra vez", "igual que antes". An earlier call did the first one; this one needs its own call.
_ANOTHER_TIME = re.compile(
    r"\b(?:again|too|as\s+well|same\s+as|just\s+like|like\s+(?:last\s+time|before|the\s+(?:others?|last|first))|"
    r"the\s+same\s+way|(?:second|third|fourth|fifth|another|next)\s+one|otra\s+vez|de\s+nuevo|tambi[ée]n|"
    r"igual\s+que|como\s+(?:antes|la\s+otra\s+vez|la\s+vez\s+anterior|el\s+anterior|la\s+anterior|los\s+otros|"
    r"las\s+otras)|lo\s+mismo\s+que)\b",
    re.IGNORECASE,
)


_NOW = re.compile(r"\b(?:now|ahora)\b", re.I)
# The occasion a stored thing is for, to the clause's end: "…cuando hablemos de recetas", "…next time you ask".
# (Nor is what it holds against: "so it's in there even if your wifi drops out", "aunque se te caiga la red".)
_WHEN_USED = re.compile(r"\b(?:cuando|whenever|when|la\s+pr[óo]xima\s+vez|next\s+time|even\s+if|even\s+though|"
                        r"aunque|incluso\s+si|aun\s+si)\b.*$", re.I | re.S)


def _unchanged_thing(clause: Clause, turn: _Turn, neighbours: str) -> str | None:
    """A thing a clause says is there now that no successful change of the conversation included."""
    evidence = " ".join(_norm(f"{_readable(c.arguments)} {c.result[:2000]}") for c in turn.ok_effects)
    for word in _WORD.findall(f"{claimed_parts(clause.text)} {neighbours}"):
        lowered = word.lower()
        if lowered in _STOP or lowered in _FUNCTION_WORDS or _NOW.fullmatch(lowered):
            continue
        if not _stem_in(lowered, evidence):
            return word
    return None if turn.ok_effects else "it"


def _named_beside(clauses: Sequence[Clause], index: int, sentence: str = "") -> str:
    """What the clauses next to a claim name without claiming anything themselves ("old.md and older.md").

    A claim that opens a list with a colon ("Your 3 reminders are set: rent on the 1st, gym on the 5th and
    phone on the 10th") has every item of it for its objects, not only the first.
    """
    def bare(c: Clause) -> bool:
        # (A clause with a state of its own, "../compartida.md queda fuera de la carpeta", tells something else.)
        return c.stance is Stance.AFFIRMATIVE and not c.kinds and not c.closer and not tells_a_state(c.text)

    beside = [clauses[i] for i in (index - 1, index + 1) if 0 <= i < len(clauses)]
    if index + 1 < len(clauses) and _OPENS_A_LIST.search(sentence.split(clauses[index].text.rstrip(), 1)[-1][:3]):
        for following in clauses[index + 2:index + 1 + MAX_LISTED_OBJECTS]:
            if not bare(following):
                break
            beside.append(following)
    return " ".join(c.text for c in beside if bare(c))


_OPENS_A_LIST = re.compile(r"^\s*:")
MAX_LISTED_OBJECTS = 12
"""Items of a list after a claim's colon read as its objects (a longer list is read up to here)."""


def _touched(calls: Sequence[CallRecord]) -> frozenset[str]:
    return _names_in(" ".join(_norm(f"{_readable(c.arguments)} {c.description} {c.result[:2000]}") for c in calls))


def _untouched_asked(turn: _Turn) -> bool:
    """Some thing the user named for the change ("compra-o25 y oficina-o25") no successful call touched."""
    if not turn.user_objects:
        return False
    touched = _touched(turn.ok_effects)
    return any(name not in touched for name in turn.user_objects)


def _untouched_object(clause: Clause, turn: _Turn) -> str | None:
    """A statement about the very thing the user asked to change, which no successful call touched.

    "Milk is on your shopping-f40 note" after a write to another note names no action the
    rules know, but it speaks of the asked-for object as handled.
    """
    if not turn.asked or not turn.ok_effects:
        return None
    touched = _touched(turn.ok_effects)
    for token in _objects(clause.text):
        name = _norm(token).strip(".-")
        if name in turn.user_objects and name not in touched:
            return f"speaks of {token!r} as handled, but no successful call touched it"
    # "…y la poda en tareas" for huerto-tareas, which no call touched (huerto-compras was): a note
    # called by the part of its name that tells it from the other.
    own_parts = {p for name in turn.user_objects - touched for p in name.split("-") if len(p) >= MIN_NAME_PART}
    own_parts -= {p for name in touched for p in name.split("-")}
    for word in _WORD.findall(clause.text):
        if word.lower() in own_parts:
            return f"speaks of {word!r} as handled, but no successful call touched it"
    return None


MIN_NAME_PART = 4


# Stances of a sentence that puts a choice to the user: the times it names are proposals.
_PROPOSING = frozenset({Stance.QUESTION, Stance.OFFER, Stance.INTERJECTION})


def check(
    answer: str, calls: Sequence[CallRecord], user_text: str, now_local: datetime,
    context: Sequence[str] = (), asked: frozenset[ActionKind] | None = None,
    claim_scorer: ClaimScorer | None = None, earlier: Sequence[CallRecord] = (),
) -> Verdict:
    """Judge `answer` against what really happened in this turn.

    `context` is what the prompt already carried (earlier messages, memories, profile):
    details found there count as sourced. `asked` is the intent read from the user's words
    (computed here when not given). `claim_scorer` (the classifier) may flag sentences the
    rules let pass as claims of an action. `earlier`: calls of the conversation's recent
    turns; they back claims only when this turn asks for no action ("is it on the list?").
    """
    if len(answer) > MAX_SCAN_CHARS:
        answer = answer[:MAX_SCAN_CHARS] + "…"
    turn = _turn_facts(calls, user_text, asked if asked is not None else asked_actions(user_text), earlier)
    sources = [c.result for c in (*earlier, *calls) if c.status is CallStatus.OK]
    sources += [c.arguments for c in (*earlier, *calls) if c.status is CallStatus.OK]
    sources += [c.error for c in calls if c.error]  # what a tool said when it refused
    sources += list(context)
    # (What a write answers, "Saved menu.md", is no lookup: it looked nothing up.)
    looked_up = [c.result for c in calls if c.status is CallStatus.OK and c.result and not c.is_write]
    known = source_details(sources, user_text, now_local, results=looked_up)
    added = sum(1 for c in calls
                if c.status is CallStatus.OK and c.is_write and kind_of_tool(c.name) in BACKS[ActionKind.STORE])
    if known.listed >= 0 and added:  # "There were 6; I've added an adapter, so 7 now"
        known = replace(known, listed=known.listed + added)
    documents = Documents(c.result for c in calls if c.status is CallStatus.OK and c.result)
    given = extract_details(user_text)
    sentences = parse(answer)
    flagged = _flagged_by_model(sentences, turn, claim_scorer)
    claim_problems: list[tuple[Sentence, str]] = []
    detail_problems: list[tuple[Sentence, list[str]]] = []
    announced = False  # the last sentence of the answer's own ended with ":" and was kept
    to_do = False  # the list under way was opened as what is still to be done
    examples = False  # …or as examples of a shape to follow
    advice = 0  # the level of the heading of ideas or tips the items under way stand under (0: none)
    draft = False  # inside a fenced draft ("---" … "---") that a kept sentence announced
    worked_out: set[str] = set()  # numbers of the kept sentences so far: steps later ones may build on
    worked_spans: list[int] = []  # and their spans, in minutes
    listing = turn.read_ok and not turn.asked and asks_for_a_listing(user_text)
    lookup_failed = not turn.read_ok and any(not c.is_write and c.status is not CallStatus.OK for c in calls)
    forecasts = [c for c in calls if _WEATHER_TOOL.search(c.name)]
    no_forecast = bool(forecasts) and all(c.status is not CallStatus.OK for c in forecasts)
    # The answer says plainly, somewhere, that something was not done.
    # So does offering the very action asked for ("Shall I set a reminder for a week before?"): not done yet.
    conceded = any((c.not_done and not _spares_another_thing(c, turn))
                   or (c.stance in (Stance.OFFER, Stance.QUESTION) and bool(c.kinds & turn.asked)
                       and offers_to_act(c.text))
                   for s in sentences for c in s.clauses)
    # Asked what someone answered ("did he accept?") or what the assistant knows of the user ("what do you
    # remember about me?"), the answer tells it from what was looked up or given, never from nowhere.
    head = user_text[:MAX_SCAN_CHARS]
    asks_reply = not turn.read_ok and _asks_reply(head)
    asks_memory = not turn.read_ok and bool(_ASKS_MEMORY.search(head))
    given_text = _norm(" ".join(s[:MAX_LOOKED_UP_CHARS] for s in sources)) if asks_reply or asks_memory else ""
    reply_given = asks_reply and bool(_REPLY_TOLD.search(given_text))
    for sentence in sentences:
        explains = any(c.not_done and not _spares_another_thing(c, turn) for c in sentence.clauses)
        if _FENCE.match(sentence.text):
            draft = not draft and (announced or draft)
            continue
        level = _heading_level(sentence.text)
        if level and _ADVICE_HEADING.match(sentence.text):
            advice = level
        elif level and level <= advice:
            advice = 0  # a heading as high as the advice's ends it; a lower one ("**Para Marta**") is inside it
        item = bool(_LIST_ITEM_START.match(sentence.text))
        # A heading that names a topic, a draft or a quotation the kept sentence before announced ("…ready to
        # paste:", or fenced by "---"), a made-up example: labels and offers, not the answer's claims. A draft's
        # details are still checked below; an example's are invented on purpose.
        offered_text = bool((level and _TOPIC_HEADING.match(sentence.text)) or draft or (examples and item)
                            or (sentence.text.lstrip().startswith(">") and announced))
        if offered_text:
            reasons: list[str] = []
        elif not turn.asked and turn.read_ok and sentence.reports_source:
            # Asked what a note or page says, it tells what it says: "your log says you deleted
            # the backups" reports a source, it does not claim this turn's action. What the user
            # asked about must be in what was read, though: "your list says milk" after a read
            # without milk reports nothing the source said.
            reasons = [f"says {word!r} is in what was read, but no lookup of this turn gave it"
                       for c in sentence.clauses if c.stance is Stance.AFFIRMATIVE
                       and (word := _unread_asked_thing(c, turn))][:1]
        elif to_do and _LIST_ITEM_START.match(sentence.text) and not speaks_of_self(sentence.text):
            # An item of a list the answer opened as what is still to be done ("Here's what still needs
            # doing: … 5. Mobile data: an eSIM, ordered before you leave"): advice, not a report.
            reasons = []
        else:
            row = row_cells(sentence.text)
            reasons = [r for i, c in enumerate(sentence.clauses)
                       if (r := _clause_problem(c, turn, explains, id(c) in flagged,
                                                _named_beside(sentence.clauses, i, sentence.text), conceded, row))]
        if not reasons and lookup_failed and any(c.stance is Stance.AFFIRMATIVE and _LOOKED.search(c.text)
                                                 for c in sentence.clauses):
            reasons = ["tells what a lookup found, but every lookup of this turn failed"]
        if (reasons and asks_memory and not turn.asked
                and all(c.kinds <= {ActionKind.STORE} for c in sentence.clauses)
                and any(c.kinds for c in sentence.clauses) and _untold_fact(sentence, given_text, turn) is None
                and _facts_words(sentence, turn, given_text)):
            # "¿te acuerdas de mi cumple?" "Es el 12 de mayo, lo tengo guardado": what memory holds, said to be kept.
            reasons = []
        if not reasons and asks_reply and not reply_given and any(
                c.stance is Stance.AFFIRMATIVE and _REPLY_TOLD.search(c.text) for c in sentence.clauses):
            # "did he accept?" "He did — Marcus accepted": no mail was read and no one said so.
            reasons = ["tells someone's answer, but nothing this turn looked for it and no one gave it"]
        if not reasons and no_forecast and not explains and any(
                c.stance in (Stance.AFFIRMATIVE, Stance.NEGATED) and _FORECAST.search(c.text)
                and not _UNSURE.search(c.text) for c in sentence.clauses):
            reasons = ["tells the weather, but the weather lookup failed"]
        if reasons:
            claim_problems.append((sentence, reasons[0]))
        if not sentence.text.lstrip().startswith(">"):
            announced = not reasons and sentence.text.rstrip().endswith(":")
        if announced:
            to_do = bool(_TO_DO.search(sentence.text))
            examples = bool(_EXAMPLES.search(sentence.text))
        elif not item:
            to_do = examples = False
        if examples and item:
            continue
        # A question or an offer proposes its times ("¿te lo pongo a las 9?"); it states none. Advice on
        # when to go after a lookup keeps them: they must lie near what the lookup found.
        # (A question that takes the thing asked for as done, "¿además del aviso del jueves te pongo otro el
        # viernes?", still only proposes its own day.)
        proposed = [c.stance in _PROPOSING or ("?" in c.text and takes_as_done(c.text)) for c in sentence.clauses]
        offered = all(proposed)
        advises = known.looked_up and advises_timing(sentence.text)
        stated = without_assumptions(sentence.text)
        if offered and not advises:
            stated = without_proposed_times(stated)
        elif not advises:  # "With a 2 PM slot you've got slack — want a reminder for 1:15?": the offer's part
            for clause in sentence.clauses:
                if clause.stance in _PROPOSING and clause.text in stated:
                    stated = stated.replace(clause.text, without_proposed_times(clause.text))
        said = extract_details(stated)
        missing = unsourced(said, known,
                            claims_action=any(c.kinds and c.stance is Stance.AFFIRMATIVE and not _not_ours(c, turn)
                                              and not asks for c, asks in zip(sentence.clauses, proposed, strict=True)),
                            text=sentence.text, proposes=offered, worked_out=frozenset(worked_out), advises=advises,
                            worked_spans=tuple(worked_spans))
        if documents.several and any((said.times, said.dates, said.amounts, said.figures, said.codes, said.phones,
                                      said.addresses, said.minutes)):
            missing += misattributed(sentence.text, documents, given, user_text)
        if listing and not advice and not to_do and (entry := _unlisted_entry(sentence.text, turn, user_text)):
            missing.append(f"an entry no lookup gave ({entry})")
        if asks_memory and (fact := _untold_fact(sentence, given_text, turn)):
            missing.append(f"a fact about the user that no memory, message or lookup gave ({fact})")
        if missing:
            detail_problems.append((sentence, missing))
        elif not reasons and len(worked_out) < MAX_WORKED_OUT:
            # (A sum shown in the open, "1,200 + 850 + 2,340 = 4,390", is a step too, whatever its kind.)
            worked_out |= said.amounts | said.figures | (said.numbers if said.operation else frozenset())
            worked_spans.extend(said.minutes[:MAX_WORKED_OUT - len(worked_spans)])
    bad = {id(s) for s, _ in claim_problems} | {id(s) for s, _ in detail_problems}
    kept_sentences = [s for s in sentences if id(s) not in bad]
    kept = _join(answer, kept_sentences) if bad else answer
    if bad and not _substantive(kept_sentences):
        kept = ""
    violations: list[Violation] = []
    attempted = {kind_of_tool(c.name) for c in calls if c.is_write}
    if claim_problems:
        untried = bool(turn.asked) and not any(attempted & BACKS[kind] for kind in turn.asked)
        quoted = "; ".join(f"{s.text.strip()!r} ({why})" for s, why in claim_problems[:5])
        rule = Rule.ACTION_NOT_DONE if turn.strict else Rule.UNBACKED_CLAIM
        violations.append(Violation(
            rule, quoted,
            f"These sentences are not backed by what the tools did: {quoted}. "
            + ("The user asked for an action: call the right tool now. "
               if untried else "Say plainly what was not done; do not claim it. ")
            + "Never state an action as done unless a tool call in this turn did it.",
            requires_action=untried,
        ))
    if detail_problems:
        missing = sorted({m for _, ms in detail_problems for m in ms})
        violations.append(Violation(
            Rule.UNSOURCED_DETAIL,
            f"unsourced: {', '.join(missing)}",
            f"Your answer mentions {', '.join(missing)}, which appear in no tool result of this "
            "turn, not in the user's words and not in the conversation. Only state details you got "
            "from tools: look them up with a tool, or leave them out. If you worked one out from a "
            "sourced time, date or amount, show the arithmetic in the same sentence (for example "
            "'05:40, two hours before the 07:40 flight').",
            requires_action=not turn.read_ok,
        ))
    dropped = tuple(s.text for s in sentences if id(s) in bad)
    missing_all = tuple(sorted({m for _, ms in detail_problems for m in ms}))
    return Verdict(tuple(violations), kept, dropped, turn.asked, missing_all)


# Asking whether someone answered: "did he accept?", "has Ana replied?", "¿contestó el casero?", "¿ya confirmó?".
_ASKS_REPLY = re.compile(
    r"\b(?:did|has|have)\s+(?:[\w.'-]+\s+){1,3}?(?:accept(?:ed)?|decline[d]?|confirm(?:ed)?|repl(?:y|ied)|answer(?:ed)?|"
    r"respond(?:ed)?|rsvp(?:'?d)?|say\s+(?:yes|no)|said\s+(?:yes|no)|get\s+back|got\s+back|agree[d]?)\b"
    r"|\b(?:ya\s+)?(?:contest[óo]|respondi[óo]|acept[óo]|confirm[óo]|ha\s+(?:contestado|respondido|aceptado|"
    r"confirmado))\b",
    re.I)
def _asks_reply(user_text: str) -> bool:
    """Whether the user asks what someone answered: "did Marcus accept?", "¿ya contestó Ana?", "contestó marta"
    (typed without its question mark). Telling it to the assistant, "me lo confirmó su guía", asks nothing."""
    for start, end in split_sentences(user_text):
        text = user_text[start:end]
        found = _ASKS_REPLY.search(text)
        if found and ("?" in text or "¿" in text or not _TOLD_TO_ME.search(text[:found.start()])):
            return True
    return False


_TOLD_TO_ME = re.compile(r"\b(?:me|nos)\s+(?:(?:lo|la|los|las)\s+)?(?:ya\s+)?$", re.I)


# Someone's answer told as given: "Marcus accepted", "she said yes", "ya confirmó", "dijo que sí".
_REPLY_TOLD = re.compile(
    r"\b(?:accepted|declined|confirmed|replied|answered|responded|rsvp'?d|said\s+(?:yes|no)|got\s+back|agreed|"
    r"acept[óo]|confirm[óo]|contest[óo]|respondi[óo]|rechaz[óo]|dijo\s+que\s+(?:s[íi]|no)|"
    r"ha\s+(?:aceptado|confirmado|contestado|respondido))\b", re.I)
# Asking what the assistant knows or keeps of the user: "what do you remember about me?", "what did I tell you my
# mum's maiden name was?", "¿qué sabes de mi familia?", "¿a qué era alérgico mi marido? no me acuerdo".
# ("What do you know about black holes?" and "¿qué sabes hacer?" ask no such thing; "I forget" and "no me acuerdo"
# do only about the user's own: "mi marido", "my mum".)
_ASKS_MEMORY = re.compile(
    r"\bwhat\s+(?:do|did|else\s+do)\s+you\s+(?:know|remember|recall|have)\s+(?:about|of|on)\s+(?:me|my|us|our)\b"
    r"|\bwhat\s+do\s+you\s+remember\b|\bwhat\s+did\s+i\s+(?:tell|say\s+to)\s+you\b"
    r"|\bqu[ée]\s+(?:m[áa]s\s+)?(?:sabes|recuerdas)\s+(?:de|sobre)\s+(?:m[íi]|mi|mis|nosotros|nuestr)"
    r"|\bqu[ée]\s+recuerdas\b|\bqu[ée]\s+te\s+(?:dije|cont[ée]|hab[íi]a\s+dicho)\b"
    # (Anchored: tried once from the start, so a long message costs one pass, not one per position.)
    r"|^(?=.*\b(?:my|our|mi|mis|nuestr[oa]s?)\b)(?:.*\b(?:do\s+you\s+(?:remember|recall)|i\s+(?:forget|can'?t\s+remember|"
    r"don'?t\s+remember)|te\s+acuerdas|no\s+me\s+acuerdo|se\s+me\s+(?:ha\s+)?olvid(?:[óo]|ado))\b)",
    re.I | re.S)
# Words that frame such a fact rather than state it.
_TELLING_WORDS = frozenset("""
told tell said mentioned know knows remember recall turns called name named like likes love loves work works
live lives dijiste contaste comentaste llama llaman tiene tienen cumple cumplen vive trabaja trabajas vives
eres estás sabes recuerdo recuerdas sobre saved stored noted kept have here what that's everything anything
guardado guardada apuntado anotado tengo esto aquí nada algo todavía
every each always usually often sometimes daily weekly nightly mornings nights evenings much many more most less
little lots very really quite pretty other another same different good great nice best better sure kind sort
people person someone something nothing
moment moments minute minutes earlier while conversation chat momento rato conversación charla
cuanto cuánto queda quedan menos falta faltan soon long nearly almost
cada siempre normalmente suele sueles diario diaria mañanas noches tardes mucho muchos mucha muchas poco pocos
más menos bastante otro otra otros otras mismo misma alguien nadie persona gente bueno buena mejor peor
""".split())


def _facts_words(sentence: Sentence, turn: _Turn, given_text: str) -> bool:
    """Some word of the sentence's facts, not the user's own, is in what the sources gave (a memory holds it).

    (A month or a weekday counts here: "el 3 de junio, lo tengo guardado" is what the memory holds.)
    """
    return any(len(w) >= 4 and w.lower() not in _FUNCTION_WORDS and w.lower() not in _TELLING_WORDS
               and w.lower() not in turn.user_words and _stem_in(w, given_text)
               for c in sentence.clauses for w in _WORD.findall(c.text))


def _untold_fact(sentence: Sentence, given_text: str, turn: _Turn) -> str | None:
    """A word of a fact the answer tells about the user that no source and none of their words hold.

    Asked what it knows of them, an answer's statements are that knowledge, however short ("Nurse, one son,
    Oliver.", "Her maiden name is Hargreaves."); its offers and questions are not.
    """
    for clause in sentence.clauses:
        if clause.stance is not Stance.AFFIRMATIVE or clause.not_done:
            continue
        for word in _WORD.findall(clause.text):
            lowered = word.lower().split("'", 1)[0]
            if (len(lowered) < 4 or lowered in _STOP or lowered in _FUNCTION_WORDS or lowered in _TELLING_WORDS
                    or lowered in turn.user_words):
                continue
            if not _stem_in(lowered, given_text):
                return word
    return None


# Telling what a lookup found: "I checked the forecast", "según la previsión", "lo acabo de mirar".
_LOOKED = re.compile(
    r"\b(?:i(?:'ve|\s+have)?\s+(?:just\s+|already\s+)?(?:checked|looked\s+(?:it\s+)?up|looked\s+at|searched|"
    r"consulted|read|skimmed|went\s+through|opened|pulled\s+up)|^\W*(?:just\s+)?(?:checked|looked\s+(?:it\s+)?up)\b|"
    r"had\s+a\s+(?:read|look)|having\s+read|the\s+gist\b|according\s+to\s+(?:the|your|my)|"
    r"(?:forecast|page|note|search|results?|article|list|file|e-?mail)\s+(?:says|shows|mentions|lists|reads)|"
    r"(?:la|tu|el)\s+(?:nota|p[áa]gina|previsi[óo]n|lista|art[íi]culo|correo)\s+(?:[^\W\d_]+\s+)?(?:dice|pone|indica)|"
    r"(?:he|hemos)\s+echado\s+un\s+vistazo|tras\s+leer|en\s+resumen,?\s+(?:el|la)\s+(?:art[íi]culo|p[áa]gina)|"
    r"(?:he|hemos)\s+(?:mirado|consultado|revisado|buscado|comprobado|le[íi]do|abierto)|acabo\s+de\s+(?:mirar|consultar|"
    r"revisar|buscar|comprobar|leer)|(?:lo\s+|la\s+)?(?:mir[ée]|consult[ée]|revis[ée]|busqu[ée]|comprob[ée])|"
    r"seg[úu]n\s+(?:la|el|tu|mi|los|las)\s+[^\W\d_]+)\b",
    re.I,
)
# The weather, told as it will be: with the forecast lookup failed, no source says it ("dry day, showers late").
_WEATHER_TOOL = re.compile(r"weather|forecast", re.I)
_FORECAST = re.compile(
    r"\b(?:dry|rain(?:y|s|ing)?|showers?|drizzle|sunny|sunshine|cloudy|overcast|snow(?:y|ing)?|storms?|stormy|windy|"
    r"thunder\w*|llov\w*|llueve|lluvias?|chubascos?|soleado|sol\s+y|nublado|nubes|nieve|nevar\w*|tormentas?|viento|"
    r"seco|despejado)\b",
    re.I,
)
# Weather words said as a possibility, not a forecast: "take an umbrella in case it rains", "no sé si lloverá".
_UNSURE = re.compile(r"\b(?:in\s+case|if|whether|maybe|might|could|por\s+si|si|quiz[áa]s?|a\s+lo\s+mejor|"
                     r"puede\s+que)\b", re.I)
# An entry of a list the answer gives: "• Call the bank — Tuesday", "2) pay rent".
_ENTRY = re.compile(r"^\s*(?:[-*•+▪◦]|\d{1,3}[.)])\s+(?P<entry>\S.*)$", re.DOTALL)


def _unlisted_entry(text: str, turn: _Turn, user_text: str) -> str | None:
    """An entry of the answer's list that shares no word with what the lookups gave or the user said.

    Asked what they have, the user gets the lookup's entries, however reworded: one with no word of
    them is made up ("• Pick up the dry cleaning" after "No pending reminders."). A sentence that is only
    an enumeration ("Chubasquero, botas de monte, forro polar y el bañador.") lists its entries the same way.
    """
    match = _ENTRY.match(text)
    if match is not None:
        entries = [match.group("entry").strip()]
    elif _ENUMERATION.fullmatch(text.strip()):
        entries = [part.strip() for part in _ENUMERATION_CUT.split(text.strip().rstrip(".!"))]
    else:
        return None
    heard = f"{turn.looked_up_text} {user_text.lower()}"
    for entry in entries:
        words = [w.lower() for w in _WORD.findall(entry)]
        said = [w for w in words if w not in _STOP and w not in _FUNCTION_WORDS]
        if said and not any(_stem_in(w, heard) for w in said):
            return entry[:80]
    return None


# Three or more short items and nothing else: "Chubasquero, botas de monte, forro polar y el bañador."
_ITEM = r"[^\W\d_][^,.;:!?\n]{0,40}"
_ENUMERATION = re.compile(rf"{_ITEM}(?:,\s*{_ITEM}){{1,}},?\s+(?:and|y|e|&)\s+{_ITEM}[.!]?", re.I)
_ENUMERATION_CUT = re.compile(r",\s*(?:(?:and|y|e)\s+)?|\s+(?:and|y|e|&)\s+", re.I)


# A short Markdown heading ("### Update", "## Resumen") labels what follows; it tells nothing itself.
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^\s*#{1,6}\s+\W*(?:[^\W\d_]+\W*){1,4}$")


def _flagged_by_model(sentences: Sequence[Sentence], turn: _Turn, scorer: ClaimScorer | None) -> set[int]:
    """Ids of affirmative clauses the rules found no claim in, in sentences the classifier reads as claims.

    Only where an action was asked for and one of its kind ran: there a claim the rules miss
    would pass as backed by a call on something else. Whole sentences are classified (that
    is what the corpus holds), fragments would be guessed at.
    """
    if scorer is None or turn.strict or not turn.asked:
        return set()
    # (A table's header row, over its |---| line, names the columns.)
    headers = {id(s) for s, below in pairwise(sentences) if _TABLE_RULE.match(below.text)}
    candidates = [s for s in sentences
                  if any(c.stance is Stance.AFFIRMATIVE and not c.second_person and not c.presupposed
                         for c in s.clauses)
                  and not any(c.kinds or c.closer for c in s.clauses) and not _HEADING.match(s.text)
                  and id(s) not in headers][:MAX_CLASSIFIED]
    if not candidates:
        return set()
    scores = scorer([s.text for s in candidates])
    return {id(c) for s, p in zip(candidates, scores, strict=False) if p >= CLAIM_THRESHOLD
            for c in s.clauses if c.stance is Stance.AFFIRMATIVE}


def verify(
    answer: str, calls: Sequence[CallRecord], user_text: str, now_local: datetime,
    context: Sequence[str] = (),
) -> list[Violation]:
    """Every rule the answer breaks, given what really happened in this turn."""
    return list(check(answer, calls, user_text, now_local, context).violations)


def _join(answer: str, sentences: Sequence[Sentence]) -> str:
    """The kept sentences with the separators that followed them in the answer."""
    parts: list[str] = []
    for index, sentence in enumerate(sentences):
        parts.append(answer[sentence.start:sentence.end])
        if index + 1 < len(sentences):
            gap = answer[sentence.end:sentences[index + 1].start]
            parts.append(gap if gap.strip() == "" and gap else " ")
    return "".join(parts).strip()


def _heading_level(text: str) -> int:
    """1–6 for a Markdown heading, 7 for a line that is all bold ("**Tips**"), 0 for anything else."""
    stripped = text.strip()
    if match := re.match(r"#{1,6}(?=\s)", stripped):
        return len(match.group(0))
    return 7 if stripped.startswith("**") and stripped.endswith("**") and len(stripped) > 4 else 0


def _substantive(sentences: Sequence[Sentence]) -> bool:
    """Anything left beyond "OK" and emojis?"""
    return any(c.stance is not Stance.INTERJECTION for s in sentences for c in s.clauses)
