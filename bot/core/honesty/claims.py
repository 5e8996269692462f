"""What an answer asserts, sentence by sentence and clause by clause, in Spanish and English.

An answer is cut into sentences, and each sentence into clauses at punctuation and at
contrastive or causal links ("but", "so", "porque"…). Each clause gets a stance:
negated (within its own clause: "No worries, X is gone" has a negated clause and an
affirmative one), a question, an offer or request, a bare interjection, or affirmative;
and the kinds of action it claims (sent, deleted, added, reminded…), from rules over the
words (any tense, voice, gender and number; nominal sentences; colloquial closers; tick
and bin emojis). `bot.core.honesty.claim_model` adds a classifier over sentence embeddings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum

from bot.core.honesty.actions import ActionKind
from bot.core.texting import spelled_out


class Stance(StrEnum):
    AFFIRMATIVE = "affirmative"
    NEGATED = "negated"
    QUESTION = "question"
    OFFER = "offer"  # an offer, a condition or a request to the user: "I can…", "si quieres…", "tell me…"
    INTERJECTION = "interjection"  # "OK", "Vale", "Sure"


@dataclass(frozen=True)
class Clause:
    text: str
    stance: Stance
    kinds: frozenset[ActionKind]  # what it claims was done (empty: no claim found)
    closer: bool = False  # a bare "done"/"listo"-like closer: a claim only when an action was asked
    second_person: bool = False  # "you sent", "has enviado": about the user, not the assistant
    presupposed: bool = False  # "since it was sent…", "como ya se ha enviado…": background, not news
    everything: bool = False  # "both", "all", "las dos": claims every action of the turn
    not_done: bool = False  # negated, and what it denies is an action or its outcome ("I couldn't delete it")
    possible: bool = False  # a guess about what happened elsewhere: "it may have already fired"


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int
    clauses: tuple[Clause, ...] = field(default_factory=tuple)

    @property
    def is_question(self) -> bool:
        return self.text.rstrip().endswith("?")

    @property
    def reports_source(self) -> bool:
        """It says what something says: "your note says you cancelled the gym", "según tu nota…"."""
        return bool(_REPORTS.search(_QUOTED.sub(" ", self.text)))


_I = re.IGNORECASE

# -- claim vocabulary -------------------------------------------------------------------
# Spanish participle endings, diminutives included ("apuntadito", Asturias' "apuntadín", Galicia's "gardadiño").
_PART = r"(?:o|a|os|as|ito|ita|itos|itas|[íi]n|ina|inos|inas|iño|iña)"
# "Sigue en vigor otro año", "covered for another year": a validity that runs a period longer is what a
# renewal leaves, told as a state ("sigue en vigor" alone is what a read found, and says it stayed).
_PERIOD_ES = r"(?:años?|mes(?:es)?|semanas?|temporadas?|trimestres?|cursos?|periodos?|períodos?)"
_PERIOD_EN = r"(?:years?|months?|weeks?|terms?|seasons?|periods?)"
# Only the present state counts: "will be valid for another year" tells what a renewal would do.
_EXTENDED = (
    r"(?:sigue|siguen|queda|quedan|qued[óo]|quedaron|est[áa]n?|contin[úu]an?)\s+(?:ya\s+)?"
    r"(?:en\s+vigor|vigentes?|activ[oa]s?|v[áa]lid[oa]s?|cubiert[oa]s?|asegurad[oa]s?|al\s+d[íi]a|operativ[oa]s?)\s+"
    rf"(?:(?:durante|por)\s+)?(?:otr[oa]s?|un[oa]?|\w+)\s+{_PERIOD_ES}(?:\s+m[áa]s)?|"
    r"(?:is|are|'s|'re|stays?|remains?|has\s+been|have\s+been)\s+(?:now\s+)?"
    r"(?:valid|active|covered|insured|in\s+force|good|current|renewed|extended|protected)\s+(?:for\s+)?"
    rf"(?:another|one\s+more|an\s+extra|a\s+further|(?:\w+\s+)?more)\s+{_PERIOD_EN}|"
    rf"(?:runs?|lasts?|continues?)\s+(?:for\s+)?(?:another|one\s+more|an\s+extra|a\s+further)\s+{_PERIOD_EN}|"
    rf"(?:another|one\s+more|an\s+extra|a\s+further)\s+{_PERIOD_EN}\s+of\s+(?:cover|coverage|membership|"
    r"subscription|insurance|service|access)"
)
# A note named like an identifier: "plan.md", "lista-xc06", "budget-n15", "shopping-list".
_NOTE_NAME = (r"(?:[\w-]{1,80}\.md\b|(?=[\w-]{0,80}\d)[^\W\d_]\w{0,40}(?:-\w{1,40}){1,4}\b|"
              r"[^\W\d_]{2,40}(?:-[^\W\d_]{2,40}){1,4}\b)")
_ES_STORE = (
    rf"añad(?:id{_PART}|í|imos|ieron|ió)|agregad{_PART}|agregu[ée]|(?<!\bel\s)(?<!\bun\s)(?<!\bsu\s)(?<!\btu\s)(?<!\bmi\s)(?<!\bdel\s)(?<!\bal\s)puest{_PART}|pus[eo]|apuntad{_PART}|apunt[ée]|"
    rf"anotad{_PART}|anot[ée]|guardad{_PART}|guard[ée]|cread{_PART}|creé|(?:(?:la|lo|las|los|te|le|ya|yo)\s+)cree|escrit{_PART}|escrib[íi]|"
    rf"redactad{_PART}|registrad{_PART}|registr[ée]|actualizad{_PART}|actualic[ée]|cambiad{_PART}|cambi[ée]|"
    rf"renombrad{_PART}|renombr[ée]|sustituid{_PART}|sustitu[íi]|reemplazad{_PART}|reemplac[ée]|"
    rf"incluid{_PART}|inclu[íi]|memorizad{_PART}|memoric[ée]|programad{_PART}|agendad{_PART}|"
    # The first-person preterite too ("te reservé la cancha"), not only the participle.
    # (Unaccented after "que" it is the subjunctive: "antes de la fecha que marque la etiqueta".)
    r"(?:reserv|program|agend|marqu|complet|archiv)é|"
    r"(?<!\bque\s)(?<!\bq\s)(?:reserv|program|agend|marqu|complet|archiv)e|mov[íi]|encolad{_PART}|encol[ée]|"
    # Renewed, ordered, bought: a change made on the user's behalf, as a booking is.
    # ("Pedí permiso", "pedí confirmación": asked, not ordered.)
    rf"renovad{_PART}|renov[ée]|(?<!\blos\s)(?<!\bmis\s)(?<!\btus\s)(?<!\bsus\s)(?<!\blas\s)(?<!\bunos\s)pedid(?:a|os|as|ita)|(?:he|hemos)\s+pedido|comprad{_PART}|compr[ée]|"
    r"ped[íi](?!\s+(?:permiso|confirmaci[óo]n|aprobaci[óo]n|autorizaci[óo]n|que|ayuda|perd[óo]n|disculpas|"
    r"m[áa]s\s+datos|detalles)\b)|"
    rf"encargad{_PART}|encargu[ée]|{_EXTENDED}|"
    # "He pasado el texto a final-3": what was moved into a note is written there.
    r"(?:(?:he|hemos|lo|la|los|las|ya)\s+pasad[oa]s?|pas[ée])\s+(?:[^.!?\n]{0,60}?\s)?(?:a|al|en)\s+"
    r"(?:(?:la|una|tu)\s+nota\s+)?" + _NOTE_NAME + "|"
    # "Quedó a tu nombre": a booking told by whose name it is under.
    r"(?:qued[óa]|queda(?:n)?|est[áa]n?)\s+(?:ya\s+)?a\s+(?:tu|su)\s+nombre|"
    rf"grabad{_PART}|grab[ée]|fichad{_PART}|fich[ée]|tachad{_PART}|tach[ée]|(?:lo|la|los|las)\s+tengo\s+(?:ya\s+)?presente|"
    rf"reservad{_PART}|marcad{_PART}|completad{_PART}|archivad{_PART}|movid{_PART}|activad{_PART}|activ[ée]|"
    r"recordar[ée]|lo\s+recuerdo|me\s+acordar[ée]|no\s+(?:lo|te\s+lo)?\s*olvidar[ée]|nunca\s+olvidar[ée]|"
    # A link put into a note is a change of that note: "lo enlacé desde tu nota del viaje".
    rf"enlazad{_PART}|enlac[ée]|vinculad{_PART}|vincul[ée]|"
    r"(?:nota|lista|[\w-]{1,80}\.md)\s+(?:ya\s+|ahora\s+)*(?:enlaza|apunta|remite|lleva)\s+a\b|"
    r"(?:no|nunca)\s+se\s+me\s+(?:va\s+a\s+olvidar|olvidar[áa]|olvida)|"
    # "Ya los tienes en compra": where the things now are, told as the user's.
    r"ya\s+(?:lo|la|los|las)\s+tienes\s+en|(?:lo|la|los|las)\s+tienes\s+ya\s+en|"
    # ("…en lo que ya está en marcha": what is under way, said as background.)
    r"(?<!\bque\s)ya\s+(?:est[áa]n?(?!\s+en\s+(?:marcha|proceso|curso)\b)|tienes|figura|recoge|lleva|incluye|consta|"
    r"existen?|me\s+consta|queda|tiene|luce|muestra|contiene|refleja|aparece)|"
    # "Me lo quedo", "me lo apunto": keeping a thing for oneself is storing it.
    r"me\s+(?:lo|la|los|las)\s+(?:quedo|qued[ée]|guardo|guard[ée]|apunto|apunt[ée]|anoto|anot[ée])|me\s+quedo\s+con|"
    r"constancia\s+dejada|(?:dejo|queda|he\s+dejado)\s+constancia|"
    # "Ya lo sé para la próxima": knowing it from now on is having stored it.
    r"ya\s+lo\s+s[ée]\s+para|ahora\s+ya\s+lo\s+s[ée]|ahora\s+que\s+(?:ya\s+)?(?:s[ée]|conozco)\b|"
    # "Ya me lo aprendí", "lo tengo aprendido": learned is kept.
    r"me\s+(?:lo|la|los|las)\s+aprend[íi]|(?:lo|la|los|las)\s+tengo\s+aprendid[oa]s?|"
    # "Ahí te dejé el repaso en repaso-3", "la nota del repaso te espera": where it was put for the user.
    r"te\s+(?:lo\s+|la\s+|los\s+|las\s+)?dej[ée]\b|(?:lo|la|los|las)\s+dej[ée]\s+(?:en|dentro)\b|"
    # "Ahí está tu nota precios con las baleadas": the note shown as made, with what it holds.
    r"ah[íi]\s+(?:est[áa]|la\s+tienes|tienes)\s+(?:tu|la)\s+(?:nota|lista)\b[^.!?\n]{0,40}?\bcon\b|"
    r"(?:nota|lista)\s+(?:[\w-]+\s+){0,3}?te\s+espera(?:n)?\b|"
    # "Ya te aparece con el nombre nuevo": how the thing now shows, told as a change made.
    r"ya\s+te\s+aparece(?:n|r[áa]n?)?\b|"
    r"proced\w*\s+a\s+(?:la\s+|el\s+)?(?:registr|anot|guard|cre|actualiz|modific|a[ñn]ad|incorpor|inclu|program|"
    r"agend|reserv|apunt|alta)\w*|"
    # "He ordenado la nota por temas", "retocado el encabezado", "aproveché para ponerle un título", "me he
    # quedado con la fecha", "ahora la nota solo dice…", "trabajo-3 también tiene las pilas".
    rf"ordenad{_PART}|orden[ée]|reorganizad{_PART}|reorganic[ée]|reordenad{_PART}|retocad{_PART}|retoqu[ée]|"
    rf"modificad{_PART}|modifiqu[ée]|aprovech[ée]\s+para|(?:me\s+he|nos\s+hemos)\s+quedado\s+con|"
    # "La nota almadraba ya dice lo de las 5": the note as the change left it.
    r"(?:nota|lista|parte|registro|cuaderno|planilla|listado)\s+(?:[\w-]+\s+){0,2}?ya\s+(?:dice|pone|recoge|lleva|"
    r"incluye|tiene)\b|"
    r"ahora\s+(?:la\s+nota|la\s+lista|tu\s+nota|tu\s+lista|[\w-]+)\s+(?:solo\s+|ya\s+)?(?:dice|pone|tiene|lleva|"
    r"contiene|incluye)|ya\s+solo\s+(?:pone|dice|tiene|lleva)|(?:ya|ahora)\s+(?:dice|pone|lleva|tiene)\s+solo\b|"
    + _NOTE_NAME + r"\s+(?:ya\s+|tambi[ée]n\s+|ahora\s+)+(?:tiene|lleva|incluye|contiene|recoge)\b|"
    # "precios-xc05 solo dice rosa 1200": the note as the overwrite left it.
    + _NOTE_NAME + r"\s+(?:ya\s+|ahora\s+)?s[óo]lo\s+(?:dice|pone|tiene|lleva)\b|"
    # "La nota de ideas incluye ahora…": the note as it is after the change.
    rf"(?:nota|lista|{_NOTE_NAME})\s+(?:[^.!?\n]{{0,30}}?\s+)?(?:incluye|recoge|contiene|lleva|tiene|refleja|muestra)\s+ahora|"
    # "Ya aparece como hecha": what a tick leaves, told as how the item looks.
    rf"(?:aparecen?|figuran?|salen?|constan?)\s+(?:ya\s+)?(?:ahora\s+)?como\s+(?:hech|terminad|finalizad|resuelt|"
    rf"cerrad|pagad|cobrad){_PART}|"
    # "Ya quedó la nota con 12 M y 8 L", "la lista queda con…": the note as the change left it.
    r"(?:qued[óa]|queda(?:n)?|est[áa]n?)\s+(?:ya\s+)?(?:la|el|tu)\s+(?:nota|lista|archivo|fichero)\s+con\b|"
    r"(?:nota|lista|archivo|fichero)\s+(?:ya\s+)?(?:qued[óa]|queda(?:n)?)\s+con\b|"
    # ("La cuenta se queda en 204 €" is a figure it comes to, not a place.)
    r"me\s+consta|(?:queda(?:n)?|qued[óo]|quedaron)\s+(?:en(?!\s+(?:unos?\s+|unas\s+|solo\s+|s[óo]lo\s+|nada\b)?[\d€$£])|"
    r"guardad|apuntad|anotad|"
    r"registrad|list)|"
    r"a\s+buen\s+recaudo|en\s+su\s+sitio|pasa\s+a\s+llamarse|ahora\s+(?:es(?!\s+[^\W\d_]+(?:ar|er|ir)(?:l[oa]s?|les?|se|me|te)?\b)|se\s+llama|pone|dice|lleva|incluye|recoge|"
    r"luce|muestra|contiene|refleja|tiene)|"
    r"en\s+(?:tu|la|tus|mis?|su|sus)\s+(?:lista|nota|notas|diario|memoria|registros?|pendientes|agenda)|"
    r"est[áa]n?\s+(?:ya\s+)?en\s+(?:[\w-]{1,80}\.md\b|(?=[\w-]{0,80}\d)[^\W\d_][\w]{0,40}(?:-[\w]{1,40}){1,4}\b)|"
    # "Ya lo tenés en pendientes-l4", "la tienes en tu lista": what the user now has there.
    r"(?:lo|la|los|las)\s+(?:tienes|ten[ée]s|tiene|tienen)\s+(?:ya\s+)?en\s+(?:[\w-]{1,80}\.md\b|"
    r"(?=[\w-]{0,80}\d)[^\W\d_][\w]{0,40}(?:-[\w]{1,40}){1,4}\b|(?:tu|tus|la|el)\s+(?:lista|nota|notas|pendientes|"
    r"agenda|calendario|memoria))|"
    r"deber[íi]a(?:n)?\s+(?:ya\s+)?(?:estar|aparecer|salir|figurar)\s+(?:ya\s+)?en\s+(?:tu|la|tus|mis?)\s+|"
    r"qued[óo]\s+list|(?:lo\s+|la\s+|te\s+lo\s+)?tendr[ée]\s+en\s+cuenta|tom(?:o|ado)\s+nota|"
    r"acab(?:o|amos)\s+de\s+(?:añad|agreg|pon|apunt|anot|guard|cre|escrib|registr|actualiz|cambi|inclu|program|"
    r"reserv|marc|mov)\w*|"
    # "Se añadió", "se han unido a la lista": done, told without a doer.
    r"se\s+(?:añadi[óo]|agreg[óo]|apunt[óo]|anot[óo]|guard[óo]|cre[óo]|escribi[óo]|registr[óo]|actualiz[óo]|"
    r"cambi[óo]|program[óo]|reserv[óo]|uni[óo]|(?:ha|han)\s+unido|(?:ha|han)\s+(?:añadido|guardado|creado|"
    r"apuntado|anotado|sumado))"
)
_EN_STORE = (
    r"added|put\s+(?:it|that|them|\w+\s+on|\w+\s+in)|saved|stored|noted|jotted|written|wrote|logged|recorded|"
    r"registered|created|set\s+up|updated|changed|renamed|replaced|overwr(?:ote|itten)|swapped|appended|"
    # A link put into a note is a change of that note: "linked it from your trip note".
    r"linked|hyperlinked|(?:note|list|file|md)\s+(?:now\s+|also\s+)*(?:links|points)\s+to|"
    r"included|filed|memori[sz]ed|committed\s+(?:that|it|this)?\s*to\s+memory|remembered|"
    r"popped|tossed|slotted|pencil(?:l)?ed|stuck\s+(?:it|that|them|this|[\w'-]+)\s+(?:on|in|onto|into)|"
    # "You'll find it in wifi-guest", "you can see them on your list": where a thing now is, told as
    # what the user will find there.
    r"(?:you'?ll|you\s+will|you\s+can|you\s+should)\s+(?:now\s+|also\s+)?(?:find|see|spot)\s+(?:[\w'-]+\s+){0,6}?"
    r"(?:on|in|under)\s+(?:(?:your|the|my)\s+(?:[\w.-]+\s+){0,2}(?:list|lists|note|notes|journal|diary|memory|"
    r"folder|file|records?|todo|to-do|reminders?)\b|[\w-]{1,80}\.md\b|(?=[\w-]{0,80}\d)[^\W\d_]\w{0,40}(?:-\w{1,40}){1,4}\b|"
    r"[^\W\d_]{2,40}(?:-[^\W\d_]{2,40}){1,4}\b)|"
    # "shopping got the eggs", "budget-n15 got the rent line": the note as the one that received it.
    # ("Motor note's got the wipers now": has got, read as "is got".)
    r"(?:lists?|notes?|journal|diary|todo|file|md|(?=[\w-]{0,80}\d)[^\W\d_]\w{0,40}(?:-\w{1,40}){1,4})"
    r"(?:\s+(?:is|has|have)|'s)?\s+(?:got|gained|received|picked\s+up)|"
    r"(?:i\s*'?ll|i\s+will)\s+(?:remember|keep|hang\s+on\s*to|hold\s+on\s*to)|won'?t\s+(?:be\s+)?forget(?:ting)?|"
    r"never\s+forget|(?:not|never)\s+(?:going\s+to|gonna)\s+forget|won'?t\s+slip\s+my\s+mind|"
    # "I know about your late shift", "I know about it now": kept, told as known.
    r"i\s+(?:now\s+)?know\s+(?:about\s+)?your\b|i\s+know\s+(?:about\s+)?(?:it|that|this|them)\s+now|now\s+that\s+i\s+know\b|"
    # "Ya sé para siempre que…", "me lo sé de memoria": kept, told as known for good.
    r"(?:ya\s+)?(?:lo\s+)?s[ée]\s+para\s+siempre|me\s+l[oa]s?\s+s[ée]\s+de\s+memoria|i\s+know\s+(?:it\s+|that\s+)?for\s+good\b|"
    # "Your pay note now flags the missing overtime": the note as the change left it.
    r"(?:note|list|file|journal|diary|log|sheet)\s+(?:now|also)\s+(?:flags|lists|shows|has|includes|mentions|carries|"
    r"holds|records|says|reads|notes|tracks)\b|"
    r"scheduled|booked|queued|marked|completed|archived|moved|activated|armed|(?:under|in)\s+your\s+name|"
    # Reworked: "I tidied the note up", "reformatted into bullets", "the note is cleaned up", "now goes by final-3",
    # "it's called contacts-home now", "the note is now contacts-home", "fitness-3 shows today's 8000 steps".
    r"tidied|reformatted|reorgani[sz]ed|rearranged|reordered|restructured|cleaned\s+(?:it\s+|them\s+)?up|"
    r"(?:now\s+)?goes\s+by|(?:is|'s|are)\s+(?:now\s+)?(?:called|named|titled)\b[^.!?\n]{0,40}?\bnow\b|"
    r"(?:is|'s)\s+now\s+(?:called\s+|named\s+)?" + _NOTE_NAME + "|"
    # ("…md has been deleted" is what became of it, not what it holds.)
    # ("crew-a20 only has the current numbers now": what an edit left.)
    + _NOTE_NAME + r"\s+(?:now\s+|also\s+|too\s+|only\s+|just\s+)?(?:shows|has(?!\s+(?:been|gone|to)\b)|lists|"
    r"includes|contains|"
    r"holds)\b|"
    # "'Pay rent' shows as done now": what a tick leaves, told as how the item looks.
    r"(?:shows?|showing|appears?|displays?|(?:is|are)\s+listed)\s+(?:up\s+)?(?:now\s+)?as\s+(?:now\s+)?"
    r"(?:done|finished|complete|completed|ticked|checked|crossed\s+off|struck|closed|resolved|paid|sorted)|"
    # "The receipt sits under Q3 in your expenses now": where a thing filed now is.
    # ("Your sister lives in Leeds" is where she lives: a thing lives in the user's notes, lists or files.)
    r"(?:sits|is\s+sitting|'s\s+sitting|is\s+filed|'s\s+filed)\s+(?:now\s+)?(?:under|in|inside|among)\b|"
    # "…now stands among your notes": a thing among the user's notes is one of them.
    r"(?:is|are|'s|'re|stands?|sits?|rests?|now)\s+(?:now\s+)?among\s+your\s+(?:[\w-]+\s+)?(?:notes|lists|files|"
    r"records|reminders|memories)\b|"
    r"lives\s+(?:now\s+)?(?:under|inside|among|in\s+(?:your|the|my|its|a)\s+(?!(?:city|town|village|house|flat|"
    r"country|area|centre|center|north|south|east|west)\b))|"
    # "**list-xc06** now:" over a list: the note shown as it is after the change.
    rf"{_NOTE_NAME}\W{{0,3}}\s+(?:now|ahora)\W*$|"
    r"(?:crossed|ticked|struck|checked)\s+(?:it\s+|them\s+|that\s+)?off|"
    r"renewed|ordered|bought|purchased|"
    # "should be in your note now" too: a hedge on where a thing is still says where it is.
    r"(?:is|are|'s|'re|should\s+be|must\s+be|ought\s+to\s+be|will\s+be|'ll\s+be)\s+"
    r"(?:(?:now|both|all|each|already|safely|also|waiting|sitting|there|ready)\s+(?:for\s+you\s+)?)*"
    r"(?:on|in)\s+(?:your|the|their|its|my|both|all|"
    r"the\s+two)\s+(?:[\w.-]+\s+){0,2}(?:list|lists|note|notes|journal|diary|calendar|memory|folder|file|records?|agenda|inbox|todo|"
    r"to-do|reminders?|tasks?)\b|"
    # "Since your tune list's there now": the note the user asked for, told as there.
    r"(?:lists?|notes?|file|reminders?|entry|entries)(?:'s|\s+is|\s+are|'re)\s+(?:(?:all|both|already|safely)\s+)*"
    r"there\s+now\b|"
    # "Both reminders are in", "the booking's in now": set, told as what is in place.
    r"(?:reminders?|alarms?|nudges?|alerts?|bookings?|appointments?|entr(?:y|ies)|to-?dos?)\s+(?:is|are|'s|'re)\s+"
    r"(?:(?:now|both|all|each|already|safely|also)\s+)*in\b(?=\s*(?:[:;,.!?]|$|now\b|for\s+you\b|and\b))|"
    # "The pick's on there", "it's in there now": the list or note the user named, pointed at.
    r"(?:is|are|'s|'re)\s+(?:(?:now|both|all|each|already|safely|safe|also)\s+)*(?:(?:on|in)\s+there|in\s+it)\b|"
    # "Bread is on shopping-e13": a note named like an identifier is a place, as "x.md" is.
    r"(?:is|are|'s|'re)\s+(?:(?:now|both|all|each|already|safely|safe|also)\s+)*(?:on|in)\s+"
    r"(?:[\w-]{1,80}\.md\b|(?=[\w-]{0,80}\d)[^\W\d_]\w{0,40}(?:-\w{1,40}){1,4}\b)|"
    r"now\s+(?:just\s+|only\s+|simply\s+)?(?:has|have|includes?|mentions?|reads?|says?|contains?|holds?|lists?|shows?|"
    r"links?\s+to|points?\s+to|"
    r"records?|notes?|logs?|states?|keeps?|carries?|features?)|"
    r"(?:has|have|got)\s+(?:a\s+new|the\s+\w+\s+item|your)|reflects|in\s+place|locked\s+in|"
    r"on\s+file|in\s+my\s+(?:long-term\s+)?memory|exists\s+now|is\s+ready|(?<!\byou\s)(?<!\bwe\s)are\s+ready|"
    r"(?:placed|put|entered|kept|is|are|'s|now)\s+on\s+record|(?:been\s+)?retained|"
    # "Tea and coffee are where they belong", "coffee went into your pantry list": put in place.
    r"(?:is|are|'s|'re)\s+(?:now\s+|both\s+|all\s+)?where\s+(?:it|they|each)\s+belongs?|"
    r"(?:went|gone|goes)\s+(?:in)?to\s+(?:(?:your|the|its|their)\s+(?:[\w.-]+\s+){0,2}(?:list|lists|note|notes|journal|"
    r"diary|todo|memory|file)\b|[\w-]{1,80}\.md\b|(?=[\w-]{0,80}\d)[^\W\d_]\w{0,40}(?:-\w{1,40}){1,4}\b)|"
    r"holds\s+the|put\s+(?:it\s+|them\s+)?there|"
    # "…besides the mineral tubs I just put on there?": the thing put is said before, in a relative clause.
    r"\bi\s+(?:just|already)\s+put\s+(?:on|in|onto|into)\s+(?:there|it|your|the|its)\b|"
    # "Both days are covered", "you're covered for Friday": what a reminder or a note would leave.
    r"(?:is|are|'s|'re)\s+(?:now\s+|all\s+|both\s+)?covered\b(?!\s+(?:by|in|with|under|on\s+the))|(?:i\s*'?ll|i\s+will)\s+bear\s+(?:that|it|this)\s+in\s+mind"
)
# "You won't see old-2 again", "no la volverás a ver", "your notes are tidier without old-2": gone, told by
# what the user will no longer see.
_OUT_OF_SIGHT = (r"(?:won'?t|will\s+not|(?:will|'ll)\s+never)\s+(?:see|hear\s+(?:about|from|of))\s+(?:[\w.-]+\s+){1,4}?"
                 r"(?:again|anymore|any\s+more)|(?:tidier|cleaner|lighter|leaner|neater)\s+(?:now\s+)?without|"
                 r"no\s+(?:volver[áa]s\s+a\s+(?:saber|o[íi]r)|vas\s+a\s+(?:volver\s+a\s+)?(?:saber|o[íi]r))\s+(?:nada\s+)?"
                 r"(?:de|del)\b|"
                 r"no\s+(?:lo|la|los|las)\s+(?:volver[áa]s\s+a\s+ver|vas\s+a\s+(?:volver\s+a\s+)?ver\s+m[áa]s)")
# "No trace of it now", "no queda ni rastro": a removal told as what is left.
_NO_TRACE_EN = (r"no\s+trace\s+(?:of\s+(?:[^\W\d_]+\s+){0,4})?(?:left|now|anymore|any\s+more)|not\s+a\s+trace|"
                r"nothing\s+(?:is\s+)?left\s+of|"
                # "Nothing about Leeds left in memory", "nothing of it left on your list".
                r"nothing\s+(?:about|of|on|from)\s+[^.!?\n]{1,40}?\s+(?:is\s+)?left\s+(?:in|on)\b")
# "There's no March rota hanging around now", "nada de avisos de riego": what is gone, told as none left.
# "There will be no gym alert at 6", "no habrá aviso": the same, told as what will not come.
_ABSENT = (r"there(?:'s|\s+is|\s+are)\s+no\s+[^.!?\n]{1,60}?\b(?:now|any\s*more|left)\b|"
           # "That reminder won't be going off now", "el aviso ya no te va a sonar": gone, told as what will not ring.
           r"(?:reminder|alarm|alert|nudge|aviso|alarma|recordatorio)s?\s+(?:won'?t|will\s+not|isn'?t\s+going\s+to|"
           r"is\s+not\s+going\s+to)\s+(?:be\s+)?(?:go(?:ing)?\s+off|ring(?:ing)?|fir(?:e|ing)|buzz(?:ing)?|"
           r"sound(?:ing)?|bother(?:ing)?\s+you)\b(?!\s+(?:until|till|before|unless)\b)|"
           r"(?:aviso|alarma|recordatorio)\s+ya\s+no\s+(?:te\s+)?(?:va\s+a\s+)?(?:sonar|saltar|molestar)(?:[áa])?\b|"
           r"nothing\s+(?:will|'ll|is\s+going\s+to)\s+(?:ping|ring|buzz|remind|bother|nag|go\s+off\s+for)\s+you|"
           r"^\W*sin\s+(?:m[áa]s\s+)?(?:avisos?|recordatorios?|alarmas?)\b|"
           r"there\s+(?:will|'ll)\s+be\s+no\s+(?:[\w.:-]+\s+){0,3}?(?:reminders?|alerts?|alarms?|notifications?|pings?|"
           r"nudges?)\b|no\s+habr[áa]\s+(?:ning[úu]n\s+|ninguna\s+|m[áa]s\s+)?(?:aviso|recordatorio|alarma|alerta)s?\b|"
           r"nada\s+de\s+(?:avisos?|recordatorios?|alarmas?|alertas?)\b|"
           # "Nada de dentista en tu agenda", "no dentist on your calendar": gone from where it was.
           r"\bnada\s+de\s+(?:[\w-]+\s+){1,2}?en\s+(?:tu|la)\s+(?:agenda|lista|calendario|memoria)\b|"
           # "Del préstamo ni me acuerdo ya": gone from memory. ("No me queda en la memoria" may only say it
           # was never told.)
           r"\bni\s+me\s+acuerdo\s+ya\b|"
           r"\bno\s+(?:more\s+)?(?:[\w-]+\s+){1,2}?(?:on|in)\s+your\s+(?:calendar|agenda|schedule|memory)\b|"
           # "No reminders left on it", "Tomorrow's clear", "tu agenda del lunes queda libre": gone, told as
           # the day left without them.
           r"\bno\s+(?:more\s+)?(?:[\w.:-]+\s+){0,2}?(?:reminders?|alarms?|alerts?|events?|entries|notes?)\s+"
           r"(?:left|remaining)\b|"
           r"\b(?:tomorrow|today|tonight|(?:your|the)\s+(?:day|morning|afternoon|evening|calendar|agenda|schedule|"
           r"week|weekend)|ma[ñn]ana|hoy|(?:tu|la)\s+(?:agenda|d[íi]a|tarde|ma[ñn]ana|noche|semana|calendario))"
           r"(?:'s|\s+is|\s+est[áa]|\s+queda|\s+qued[óa]|\s+se\s+queda)\s+(?:now\s+|ya\s+|ahora\s+)?"
           r"(?:all\s+|totalmente\s+|completamente\s+)?(?:clear|free|empty|libre|despejad[oa]|vac[íi][oa])\b")
_NO_TRACE_ES = (r"ni\s+rastro|sin\s+dejar\s+rastro|no\s+(?:me\s+|te\s+|nos\s+)?queda(?:n)?\s+(?:nada|ni\s+rastro)\s+de|"
                r"no\s+(?:me\s+|nos\s+)?queda(?:n)?\s+nada\s+(?:guardad|apuntad|anotad|registrad)[oa]")
_ES_REMOVE = (
    rf"borrad{_PART}|borr[ée]|eliminad{_PART}|elimin[ée]|quitad{_PART}|quit[ée]|cancelad{_PART}|cancel[ée]|"
    # "Que no se te olvide" is a subjunctive, not "olvidé" typed without its accent.
    rf"anulad{_PART}|olvidad{_PART}|(?<!\bse\ste\s)(?<!\bse\sme\s)(?<!\bse\sle\s)olvid[ée]|"
    rf"desaparecid{_PART}|desactivad{_PART}|desactiv[ée]|apagad{_PART}|suprimid{_PART}|suprim[íi]|"
    # "Se ha procedido a la eliminación…", "eliminación completada": done, told by the act's noun.
    r"proced\w*\s+a\s+(?:la\s+|el\s+)?(?:eliminaci[óo]n|borrado|cancelaci[óo]n|anulaci[óo]n|supresi[óo]n|"
    r"eliminar|borrar|cancelar|anular|suprimir|quitar)|"
    r"(?:eliminaci[óo]n|borrado|cancelaci[óo]n|anulaci[óo]n|supresi[óo]n)\s+(?:ya\s+)?(?:completad|realizad|efectuad|"
    r"hech|confirmad|tramitad)[oa]s?|"

    rf"apagu[ée]|"
    r"ya\s+no\s+(?:te\s+|le\s+)?(?:existe|est[áa]|sonar[áa]|molestar[áa]|aparece|tienes|tienen?|hay|avisar[ée]|"
    r"figura|consta)|(?:qued[óa]|queda(?:n)?|se\s+(?:ha|han)\s+quedado|(?:lo|la)\s+dej[ée])\s+sin\s+efecto|"
    r"ya\s+no\s+(?:te\s+|le\s+)?(?:aparecer[áa]|estar[áa]|saldr[áa]|figurar[áa]|existir[áa])|"
    # "Ya no te va a molestar", "no te volverá a avisar": the same, said with a future of "ir a".
    r"(?:ya\s+)?no\s+(?:te\s+|le\s+|les\s+|nos\s+)?(?:va(?:n)?\s+a|volver[áa]n?\s+a)\s+"
    r"(?:molestar|sonar|avisar|aparecer|saltar|existir|estar)|"
    # "La reunión se ha quedado sin recordatorio": what it is left without is what was taken away.
    r"(?:se\s+(?:ha|han)\s+quedado|se\s+qued[óa]|qued[óa]|queda(?:n)?)\s+(?:ya\s+)?sin\s+(?:su\s+|el\s+|la\s+|tu\s+)?"
    r"(?:recordatorio|aviso|alarma|nota|entrada|evento|cita)s?|"
    r"ya\s+es\s+historia|"
    + _OUT_OF_SIGHT + "|"
    # "Te has librado del r-31337", "nos deshicimos de ella": rid of it, told by who is free of it.
    rf"librad{_PART}|te\s+libraste|te\s+libras\s+de|(?:te\s+has|me\s+he|nos\s+hemos|se\s+ha)\s+deshecho|deshice|deshicimos|"
    # "Está más limpia que una patena", "queda vacía": emptied, told by the state it is in.
    # ("Está vacía" alone reports what a read found.)
    r"(?:qued[óa]|queda(?:n)?|ya\s+est[áa]n?|est[áa]n?\s+ya)\s+(?:limpi|vac[íi])\w*|est[áa]n?\s+m[áa]s\s+limpi\w*\s+que|"
    rf"vaciad{_PART}|vaci[ée]|dej(?:ad{_PART}|[ée])\s+(?:[^.!?\n]{{0,60}}?\s)?(?:en\s+blanco|vac[íi][oa]s?)\b|"
    # "Recordatorio fuera", "fuera de la lista": gone. "Fuera de la carpeta", "fuera de plazo" say where.
    # "Lo demás se fue", "el resto se ha ido": what is gone, told as having left.
    r"(?:lo\s+dem[áa]s|todo\s+lo\s+dem[áa]s|el\s+resto|lo\s+otro|lo\s+anterior|lo\s+viejo)\s+(?:ya\s+)?"
    r"se\s+(?:fue|fueron|ha\s+ido|han\s+ido)|"
    r"es\s+historia|fuera\b(?!\s+del?\b)|fuera\s+(?:de\s+(?:(?:la|tu|tus|mi|mis|las|los|el)\s+)?|del\s+)(?:lista|listas|"
    r"pendientes|memoria|agenda|recordatorios|tareas|calendario)\b|de\s+en\s+medio|no\s+(?:va\s+a|volver[áa]\s+a)\s+sonar|"
    r"acab(?:o|amos)\s+de\s+(?:borr|elimin|quit|cancel|anul|olvid)\w*|"
    r"se\s+(?:borr[óo]|elimin[óo]|quit[óo]|cancel[óo]|anul[óo]|(?:ha|han)\s+(?:borrado|eliminado|quitado|"
    r"cancelado|anulado))|" + _NO_TRACE_ES
)
_EN_REMOVE = (
    # ("Prices have gone up", "it had gone up in 1961": risen, built; not removed.)
    r"deleted|removed|erased|wiped|scrubbed|cleared|gone(?!\s+(?:up|down|on|over|through|well|fine|by))|got\s+rid|"
    r"called\s+(?:it\s+|them\s+|that\s+)?off|cancell?ed|forgotten|forgot|"
    # "Now that the old inventory's out of the way": gone, told as where it no longer is.
    r"(?:(?<='s\s)|(?<=\bis\s)|(?<=\bare\s)|(?<='re\s)|(?<=\bnow\s))out\s+of\s+the\s+way|"
    # "Junior's old number's out of crew-a20": gone, told as where it no longer is.
    r"(?:is|are|'s|'re)\s+(?:now\s+|all\s+)?out\s+of\s+(?:[\w-]{1,80}\.md\b|(?=[\w-]{0,80}\d)[^\W\d_]\w{0,40}"
    r"(?:-\w{1,40}){1,4}\b|(?:the|your|my)\s+(?:[\w-]+\s+)?(?:list|note|notes|file|calendar|memory)\b)|"
    # Told the team it is off: "I already stood the medevac down", "the search was stood down".
    r"stood\s+(?!up\b)(?:(?:the|a|an|my|your|his|her|our|their|that|this|it|them)\s+)?(?:[\w'-]+\s+){0,2}?down\b|"
    # ("…so you can shut off the water": advice; "shut" is also the verb's plain form.)
    r"(?:turned|switched|(?<!\bcan\s)(?<!\bto\s)(?<!\bwill\s)(?<!'ll\s)(?<!\bmust\s)(?<!\bcould\s)"
    r"(?<!\bshould\s)(?<!\byou\s)(?<!\bthen\s)shut)\s+off|disabled|deactivated|"
    r"emptied|blanked|left\s+(?:[^.!?\n]{0,60}?\s)?(?:blank|empty)\b|"
    # "The gym reminder is off", "Gym reminder: off.": a state that says it was switched off.
    # "Piranesi's off the list now".
    r"(?:is|are|'s|'re|now)\s+(?:(?:now|all|both)\s+)?off\s+(?:the|your|my)\s+(?:[\w-]+\s+)?(?:list|note|notes|agenda|"
    r"calendar|schedule|board)\b|"
    # ("You're off every Monday", "she's off sick": a person's time off, not a thing switched off.)
    r"(?<!\byou)(?<!\byou\s)(?<!\bI'm)(?<!\bI\sam)(?<!\bwe)(?<!\bwe\s)(?<!\bthey)(?<!\bthey\s)(?<!\bhe)(?<!\bhe\s)"
    r"(?<!\bshe)(?<!\bshe\s)"
    r"(?:is|are|'s|'re|now)\s+(?:(?:now|all|both)\s+)?off(?!\s+(?:to|for|the|by|work|duty|today|tomorrow|sick|limits|"
    r"bounds|"
    r"(?:your|my|our|his|her|their)\s+(?:plate|back|hands?|mind|chest)))|"
    # ("It's history" is gone; "family history is a lovely theme" is the subject.)
    r"out\s+of\s+my\s+memory|no\s+longer|no\s+more(?!\s+than)|is\s+no\s+more|vanished|trashed|withdrawn|revoked|"
    r"(?:is|are|'s|'re|was|were)\s+(?:now\s+|all\s+)?history\b|:\s*history\b|"
    # "old-2 binned", "tidied up old-2", "your notes are tidier without old-2", "you won't see it again".
    r"binned|ditched|scrapped|dumped|nuked|axed|zapped|culled|purged|chucked|junked|(?:taken|took)\s+out|"
    + _OUT_OF_SIGHT + "|"
    r"rescinded|(?:deletion|cancellation|removal)\s+(?:is\s+|has\s+been\s+)?(?:complete|completed|done|confirmed|processed)|"

    r"(?:is|are|'s|'re|was|were)\s+(?:now\s+)?(?:left\s+)?without\s+(?:a|an|its|their|the|any)\s+"
    r"(?:reminder|alarm|alert|note|entry|event)s?|"
    r"(?:is|are|'s|'re|now)\s+(?:now\s+)?(?:rid|free|clear)\s+of|"
    # ("It's empty" alone reports what a read found.)
    r"(?:is|are|'s|'re)\s+(?:now\s+(?:(?:squeaky|spotless|sparkling)\s+)?|(?:squeaky|spotless|sparkling)\s+)"
    r"(?:clean|empty)\b|"
    # ("It won't ring until 5" tells when it will.)
    r"won'?t\s+(?:ring|bother|bug|nag|pester|ping|buzz|disturb|go\s+off|sound|remind|pop\s+up)"
    r"(?!\s+(?:until|till|before|unless)\b)|anymore|any\s+more|"
    + _ABSENT + "|" + _NO_TRACE_EN
)
_ES_SEND = (
    rf"enviad{_PART}|envi[ée]|mandad{_PART}|mand[ée]|reenviad{_PART}|reenvi[ée]|respondid{_PART}|respond[íi]|"
    # Money paid or transferred leaves for someone else, as a message does. ("Ingresé" is also "I logged
    # in": only a deposit made, below, is one.)
    rf"pagad{_PART}|pagu[ée]|transferid{_PART}|transfer[íi]|abonad{_PART}|abon[ée]|"
    # A payment told by its noun: "hice la transferencia", "he realizado el pago", "bizum hecho".
    r"(?:hice|he\s+hecho|hemos\s+hecho|realic[ée]|he\s+realizado|efectu[ée]|he\s+efectuado|tramit[ée]|"
    r"he\s+tramitado)\s+"
    r"(?:el|la|los|las|un|una|tu|tus)\s+(?:pagos?|transferencias?|bizums?|ingresos?)|"
    r"(?:pagos?|transferencias?|bizums?|ingresos?)\s+(?:ya\s+)?(?:hech|realizad|efectuad|completad|tramitad)[oa]s?|"
    # Shared with someone, who now knows or can see it: "compartida con Pablo", "ya está al tanto".
    rf"compartid{_PART}|compart[íi]|(?:est[áa]n?|qued[óa])\s+(?:ya\s+)?al\s+tanto|"
    # "Tu hermana ya sabe que llegaste": told, by who knows now. ("Ya sabes…" tells the user.)
    r"\bya\s+(?:lo\s+|la\s+)?sabe(?:n)?\b|\b(?:ahora|ya)\s+est[áa]n?\s+enterad[oa]s?|"
    r"(?:ya|ahora)\s+(?:puede|pueden)\s+(?:verl[oa]s?|ver|leer|acceder|abrir)|"
    # "Le he dicho a Ana…", "Ana ya está avisada": someone told is a message delivered.
    r"(?:le|les)\s+(?:he\s+|hemos\s+)?(?:dicho|dije|avisado|avis[ée]|escrito|escrib[íi]|informado|inform[ée]|"
    r"notificado|notifiqu[ée])|"
    # Reminded, asked, invited: "se lo he recordado a tu hermano", "le pregunté a Ana", "ya los invité".
    r"(?:se\s+l[oa]s?|le|les|l[oa]s?)\s+(?:he\s+|hemos\s+)?(?:recordado|record[ée]|preguntado|pregunt[ée]|pedido|ped[íi]|"
    r"invitado|invit[ée]|comentado|coment[ée]|contado|cont[ée])\b|"
    r"(?:est[áa]n?|qued[óa]|ha\s+sido|han\s+sido)\s+(?:ya\s+)?invitad[oa]s?|"
    r"(?:est[áa]n?|qued[óa]|ha\s+sido|han\s+sido)\s+(?:ya\s+)?(?:avisad|informad|notificad)[oa]s?|"
    rf"contestad{_PART}|contest[ée]|entregad{_PART}|entregu[ée]|ya\s+tiene\s+tu\s+(?:correo|mensaje|email)|le\s+lleg[óo]|"
    # A message told as travelling: "el mensaje ya va de camino", "tu correo está en camino".
    r"(?:mensaje|correo|email|mail|respuesta|aviso|whatsapp)\s+(?:a\s+[^\W\d_]+\s+)?(?:ya\s+)?"
    r"(?:va|est[áa]|sali[óo])\s+(?:de\s+camino|en\s+camino|volando|para\s+all[áa])|"
    r"acab(?:o|amos)\s+de\s+(?:envi|mand|reenvi|respond|contest)\w*|"
    r"proced\w*\s+a\s+(?:el\s+|la\s+)?(?:env[íi]o|enviar|remitir|remisi[óo]n|responder|contestar|notificar|reenviar|"
    r"reenv[íi]o)|"
    # A phone call made reaches someone as a message does: "llamé al veterinario", "ya he llamado".
    r"llam[ée]|(?:he|hemos)\s+llamado"
)
_EN_SEND = (
    r"sent|emailed|e-mailed|mailed|forwarded|replied|messaged|texted|delivered|paid|transferred|wired|"
    r"submitted|handed\s+(?:it\s+|them\s+)?in|turned\s+(?:it\s+|them\s+)?in|"
    # "Your message to Carla is on its way", "the email's winging its way to her".
    r"(?:message|e-?mail|mail|reply|text|note\s+to\s+[^\W\d_]+)(?:\s+to\s+[^\W\d_]+)?(?:\s+is|'s)\s+(?:already\s+)?"
    r"(?:on\s+its\s+way|winging\s+its\s+way|in\s+(?:her|his|their)\s+inbox|out\s+the\s+door)|"
    # A phone call made: "I called the vet", "the vet's been called", "I rang them".
    r"(?:i|i'?ve|i\s+have|we|we'?ve)\s+(?:just\s+|already\s+)?(?:called|phoned|rang)|been\s+(?:called|phoned|rung)(?!\s+(?:off|out|for))|"
    # A payment told by its noun or by the debt it ends: "made the payment", "transfer done", "settled the bill".
    r"(?:made|processed|completed|done|set\s+up)\s+(?:the|your|a|an)\s+(?:(?:bank|wire)\s+)?"
    r"(?:payment|transfer|deposit)|"
    r"(?:payment|transfer|deposit)\s+(?:is\s+|has\s+been\s+)?(?:made|done|complete|completed|processed|through)|"
    r"settled\s+(?:the|your)(?:\s+[\w-]+){0,2}?\s+(?:bills?|invoices?|debts?|balance|account|rent|fees?)|"
    # Shared with someone, who now knows or can see it: "shared with Pablo", "she's in the loop".
    r"shared|(?:is|are)\s+(?:now\s+)?(?:in\s+the\s+loop|up\s+to\s+speed)|can\s+now\s+(?:see|view|open|access|edit)|"
    # "Sarah's been pinged", "finance copied in and aware", "she has the heads-up", "the news is with Sarah".
    r"pinged|dm'?e?d|slacked|whatsapp?ed|cc'?e?d|copied\s+in|(?:has|have|got)\s+(?:the|a|your)\s+heads[- ]up|"
    r"(?:is|are|'s|'re)\s+(?:now\s+|fully\s+)?aware\b|(?:copied|cc'?e?d)\s+and\s+aware|"
    r"(?:is|are|'s|'re)\s+(?:now\s+|already\s+)?with\s+(?-i:[A-Z])[^\W\d_]+\b(?!\s+(?-i:[A-Z]))|"
    # "The team's been looped in", "she knows now": told, by who now knows.
    # ("What do you need, the form filled in?": a form filled in tells no one.)
    r"looped\s+in|(?:filled|clued)\s+(?!in\b)[\w'-]+\s+in\b|(?:been|got|are|is)\s+(?:filled|clued)\s+in|briefed|"
    r"kept\s+(?:\w+\s+)?posted|"
    r"now\s+(?:has|have)\s+access|"
    # "The list is on its way to you", "it's in your inbox now".
    r"on\s+(?:its|their|his|her)\s+way\s+to\s+(?:you|your|him|her|them)\b|"
    r"(?:is|are|'s|'re|should\s+be|will\s+be|'ll\s+be|now)\s+(?:now\s+|already\s+)?in\s+your\s+(?:inbox|e-?mail|mailbox)|"
    # "Ana has been told", "I've let Ana know": someone told is a message delivered. ("As I told you"
    # tells the user, here.)
    r"(?:has|have|had|'s|'ve)\s+been\s+(?:told|informed|notified|warned|let\s+know)|"
    r"\b(?:already|now)\s+knows\b|\bknows\s+now\b|"
    # "Priya knows the meeting's off", "Ramón sabe que no abrimos": someone named knows, by being told.
    r"(?:^|(?<=\s))(?-i:[A-ZÁÉÍÓÚÑ])[^\W\d_]+\s+(?:knows|sabe\s+que)\b|"
    r"(?:i|we)(?:'ve|\s+have|\s+just|\s+already)?\s+"
    r"(?:(?:told|informed|notified|warned)\s+(?!you\b|me\b|ya\b)[\w'-]+|let\s+(?!you\b|me\b|ya\b)[\w'-]+\s+know)|"
    # Asked, spoke to, invited: "Asked her!", "I spoke to the receptionist", "he's been invited", "Marcus has the
    # invite". ("As you asked", "you asked me" tell the user's request.)
    r"(?<!\byou\s)(?<!\byou've\s)(?<!\bas\s)\basked\s+(?:her|him|them|(?-i:[A-Z])[^\W\d_]+)\b(?!\s+(?:for\s+me|me)\b)|"
    r"(?:i|we)(?:'ve|\s+have|\s+just|\s+already)?\s+(?:spoke|spoken|talked|chatted)\s+(?:to|with)\b|"
    r"(?:i|we)(?:'ve|\s+have|\s+just|\s+already)?\s+invited\b|(?:has|have|is|ve)\s+been\s+(?:invited|asked)\b|"
    r"(?:has|have|got)\s+(?:the|an|your|my)\s+invit(?:e|ation)\b|"
    r"(?:has|have|got)\s+(?:the|your)\s+(?:email|e-mail|mail|message)"
)
_ES_REMIND = (
    r"me\s+(?:asegur(?:o|ar[ée])|encargo|encargar[ée])\s+de\s+(?:que\s+no\s+(?:se\s+te\s+(?:olvide|pase)|te\s+olvides)|"
    r"record[áa]rtelo|avisarte)|"
    # Said to "tú", "usted" ("le avisaré", "se lo recordaré") or "vosotros".
    r"(?:te|le|os)\s+(?:(?:lo|la|los|las)\s+)?(?:aviso|avisar[ée]|recuerdo|recordar[ée]|escribo|escribir[ée])|"
    r"se\s+(?:lo|la|los|las)\s+(?:recuerdo|recordar[ée])|"
    # "Te doy un toque a las 5", "te va a sonar": only a reminder reaches the user later on its own.
    r"te\s+(?:doy|dar[ée]|pego|pegar[ée]|mando|mandar[ée]|env[íi]o|enviar[ée]|hago|har[ée])\s+(?:un|una)\s+"
    r"(?:toque|toquecito|aviso|avisito|grito|llamada|perdida|telefonazo|se[ñn]al)|"
    r"(?<!\bno\s)te\s+(?:va\s+a\s+(?:sonar|saltar|llegar|vibrar)|sonar[áa]|saltar[áa]|vibrar[áa])|"
    # "Mañana a las 9 te suena": the present for what will ring ("¿te suena el nombre?" is no ring).
    r"(?:a\s+las?\s+\d{1,2}(?:[:.]\d{2})?|ma[ñn]ana|esta\s+(?:tarde|noche))\s+te\s+(?:suena|salta|vibra)\b|"
    # "No se te va a pasar", "no hay pierde": a promise only a reminder keeps.
    r"(?:no|nunca)\s+se\s+te\s+(?:va\s+a\s+(?:pasar|olvidar)|pasar[áa]|olvidar[áa])|no\s+hay\s+pierde"
)
# A reminder named as ready ("aviso para las 9 listo", "reminder set"): about the reminder itself,
# so next to a removal it is what was removed ("ya no te sonará el aviso de las 9").
_NAMED_REMINDER = re.compile(
    r"\b(?:recordatorio\s+(?:cread|puest|programad|list|activ)|aviso\s+(?:del?|para|list)|"
    # (Several too: "your reminders are set", "both alarms are on".)
    r"(?:reminder|alarm|timer)s?(?:'s|'re|\s+is|\s+are|\s+has\s+been|\s+have\s+been)?\s+(?:all\s+|both\s+|now\s+)?"
    # ("…on" only as a state: "two reminders on Tuesday" tells when they are.)
    r"(?:set|in\s+place|scheduled|ready|on(?!\s+\w)|created|sorted|booked|locked\s+in|good\s+to\s+go)"
    # "El aviso queda para el 14 a las 5": when it will sound, told as settled.
    r"|(?:aviso|recordatorio|alarma)\s+(?:queda|qued[óo])\s+(?:puest[oa]\s+|programad[oa]\s+)?(?:para|a\s+las|el)\b)",
    _I,
)
_EN_REMIND = (
    # "I'll make sure you don't miss it": only a reminder sees to that later.
    r"(?:i'?ll|i\s+will|we'?ll|we\s+will)\s+make\s+sure\s+(?:that\s+)?you\s+(?:(?:don'?t|won'?t|do\s+not|will\s+not|"
    r"never)\s+(?:miss|forget)|remember)|"
    # "you'll get" alone is any future ("how you'll get to the airport"): a reminder is something received.
    r"remind\s+you|(?:you'?ll|you\s+will)\s+(?:(?:get|receive)\s+(?:a|an|the|your|one)\s+(?:[\w-]+\s+){0,2}(?:reminder|ping|"
    r"nudge|notification|alert|message|text|heads-up|buzz|shout|ring|bell|poke|call)|be\s+(?:reminded|notified|alerted|pinged|nudged)|hear)|"
    r"nudge|ping\s+you|alert\s+you|"
    r"you'?re\s+covered|set\s+(?:up\s+)?(?:a|an|the|your)\s+(?:[\w-]+\s+){0,2}(?:reminder|alarm|alert|timer)|"
    # "I'll give you a shout at 5", "your phone will buzz": only a reminder reaches the user later on its own.
    r"(?:i'?ll|i\s+will|i'?m\s+going\s+to|i\s+am\s+going\s+to|we'?ll)\s+(?:give|send|drop|shoot)\s+(?:you|ya)\s+"
    r"(?:a|an)\s+(?:shout|buzz|ring|call|heads-up|nudge|poke|ping|bell)|"
    r"(?:i'?ll|i\s+will|we'?ll)\s+(?:buzz|ring|poke|shout\s+at)\s+(?:you|ya)|"
    r"won'?t\s+(?:catch\s+you\s+out|sneak\s+up\s+on\s+you|slip\s+(?:by|past)\s+you)|"
    r"(?:your\s+phone|the\s+alarm|an?\s+alert|the\s+alert|a\s+notification)\s+(?:will|'ll)\s+"
    r"(?:buzz|ring|go\s+off|ping|pop\s+up|beep|chime|vibrate)"
)
_KIND_PATTERNS: tuple[tuple[ActionKind, re.Pattern[str]], ...] = (
    (ActionKind.REMOVE, re.compile(rf"\b(?=[^\W\d_])(?:{_ES_REMOVE}|{_EN_REMOVE})\b|🗑"
                                   r"|^\W*(?:(?:now|all|both)\s+)?off\W*$", _I)),
    (ActionKind.SEND, re.compile(rf"\b(?=[^\W\d_])(?:{_ES_SEND}|{_EN_SEND})\b|📧|📨|📤", _I)),
    (ActionKind.REMIND, re.compile(rf"\b(?=[^\W\d_])(?:{_ES_REMIND}|{_EN_REMIND})\b|⏰|🔔|{_NAMED_REMINDER.pattern}",
                                   _I)),
    # ("Both on — wipers and the MOT": each thing asked for, told as on the list.)
    (ActionKind.STORE, re.compile(rf"\b(?=[^\W\d_])(?:{_ES_STORE}|{_EN_STORE})\b|📝|🗒|✍"
                                  r"|^\W*(?:both|all|the\s+(?:two|pair|lot))\s+(?:on|in|added)\b"
                                  r"(?=\s*(?:[—–:,.!-]|$))", _I)),
)
_NOTHING_LEFT_TO_DO = (r"nothing\s+(?:more|else|left)\s+(?:for\s+you\s+)?to\s+do|"
                       r"(?:no\s+(?:hay|queda)\s+)?nada\s+m[áa]s\s+(?:que|por)\s+hacer")
_TICK_SIGNS = "✅✔☑👍👌"  # a sign that says a thing is done
_CLOSER = re.compile(
    # ("Ya está en casa-2" says where a thing is; the note's name is then checked.)
    r"^\W*(?:¡\s*)?(?:listo|lista|listos|hecho|hecha|ya\s+est[áa](?=\W*$|\W+(?:todo|listo|lista|hecho|hecha|lo\s+del?|"
    r"[^\W\d_]+\s*$)\b|[^\w\s])|arreglado|solucionado|perfecto|de\s+lujo|"
    # ("Done for the day, then!" is the user's working day, over.)
    r"done(?:\s+and\s+dusted)?(?!\s+for\s+(?:the\s+)?(?:day|today|tonight|night|week|season|shift))|"
    r"all\s+(?:set|sorted|done|good)|sorted|consider\s+it\s+(?:done|forgotten|sorted)|"
    r"taken\s+care\s+of|you'?re\s+all\s+set|good\s+to\s+go|there\s+you\s+go|voil[àa]|handled|all\s+handled|"
    r"dealt\s+with|me\s+he\s+encargado|me\s+encargu[ée]|est[áa]\s+hecho|resuelto|"
    # Mexico's "ya quedó": done.
    r"ya\s+qued[óo](?=\W*$)|"
    r"got\s+it(?:\s+(?:down|saved|noted))?|on\s+it|okey?\s+dokey|misi[óo]n\s+cumplida|gone|"
    # "It's sorted", "the dentist's all sorted for Friday", "that's taken care of": done, told as a state.
    r"(?:it|that|this|everything|(?:(?:the|your)\s+)?[^\W\d_][\w-]*)(?:'s|\s+is|\s+are|'re|\s+has\s+been|\s+have\s+been)"
    r"\s+(?:all\s+|now\s+)?(?:sorted(?:\s+out)?|taken\s+care\s+of|dealt\s+with|squared\s+away)|"
    # "…on the 14th — that's kept": kept, said of the thing just told.
    r"(?:it|that|this)(?:'s|\s+is)\s+(?:now\s+|safely\s+)?kept(?=\W*$)|"
    # "It's in.", "nothing more to do there": done, told by where it is or by what is left to do.
    r"(?:it'?s|it\s+is|they'?re|they\s+are|that'?s|that\s+is)\s+(?:all\s+)?in(?:\s+there)?(?=\W*$)|"
    r"ya\s+est[áa]\s+dentro|"
    # "Aye, the pair o them are in there", "both are on it now": every thing asked for, told as in.
    r"(?:both(?:\s+of\s+them)?|the\s+(?:two|pair|lot)(?:\s+o[f']?\s+(?:them|'em))?|all\s+of\s+them)\s+(?:are|'re)\s+"
    r"(?:now\s+)?(?:in(?:\s+there)?|on\s+(?:it|there|the\s+list))(?=\W*$)|"
    # "The rename is finished, same content", "el cambio está terminado": the act asked for, told as over.
    r"(?:the|your|el|la|tu)\s+(?:rename|renaming|update|change|edit|move|deletion|cleanup|clean-up|tidy-up|"
    r"cambio|borrado|renombrado|traslado|actualizaci[óo]n)\s+(?:is|'s|has\s+been|est[áa]|qued[óa]|queda)\s+"
    r"(?:now\s+|ya\s+)?(?:finished|complete|completed|done|over|terminad[oa]|completad[oa]|hech[oa]|list[oa])|"
    # "Your request has been processed", "su solicitud ha sido tramitada", "this has been actioned".
    r"(?:(?:your|su|tu)\s+(?:request|solicitud|petici[óo]n|encargo)|this|that|it)\s+(?:has\s+been|ha\s+sido|was|fue|"
    r"est[áa]|queda)\s+(?:processed|actioned|handled|completed|fulfilled|tramitad[oa]|procesad[oa]|atendid[oa]|"
    r"gestionad[oa]|completad[oa])|" + _NOTHING_LEFT_TO_DO + r")\b"
    r"|[" + _TICK_SIGNS + "]",
    _I,
)
# "Listo lo del gas", "done with the gas bill", "sorted on the school front": a closer that says what it closes.
_CLOSER_TOPIC = re.compile(r"^\W*(?:(?:lo|la|los|las)\s+del?|with|on|for)\s+(?:(?:the|your|that|this|el|la|tu)\s+)?",
                           _I)


def closer_topic(text: str) -> str:
    """The words naming what a closer ("Listo lo del gas") says is done; "" when it names nothing."""
    closer = _CLOSER.match(text)
    if closer is None:
        return ""
    rest = text[closer.end():]
    topic = _CLOSER_TOPIC.match(rest)
    return rest[topic.end():].strip() if topic else ""


_EVERYTHING = re.compile(
    # ("Solo una de las dos", "only one of the two": a part, not all of them.)
    r"\b(?=[^\W\d_])(?<!\bde\s)(?<!\bof\s)(?:both|all\s+(?:of\s+them|done|the)|everything|each\s+one|ambas|ambos|"
    r"las\s+dos|los\s+dos|the\s+two|"
    r"tus\s+dos|todo\s+hecho|todas?|todos|cada\s+una?|"
    # "Each note got its item": every one of them. ("Each time", "each other" count nothing.)
    r"each(?!\s+(?:time|day|night|week|month|year|morning|evening|other|of\s+(?:us|you)))|cada\s+(?:nota|lista))\b",
    _I,
)
# Words ending in -ed that are no past tense: "whenever you need it" tells of nothing the user did.
NOT_PAST_ED = "need|feed|speed|proceed|succeed|exceed|seed|breed|bleed|heed|shed|bed|embed|wed|indeed|red"
_SECOND_PERSON = re.compile(
    rf"\byou(?:\s*'ve|\s+have|\s+had|\s+already|\s+just)?\s+(?:(?!(?:{NOT_PAST_ED})\b)\w+ed|sent|wrote|put|made|did|told|said|gave)\b"
    r"|\b(?:has|habías|hubieras)\s+\w+(?:ado|ido)\b|\b(?!(?:ex|ins|cons|res|as|des|v|p)iste\b)\w+(?:aste|iste)\b"
    r"|\bme\s+dijiste\b|\byou\s+said\b",
    _I,
)
# Words ending like a Spanish first-person preterite ("pagué", "añadí") that are none: "¡Qué bien!", "aquí".
NOT_PRETERITE = ("qu[ée]|porqu[ée]|caf[ée]|beb[ée]|jos[ée]|pur[ée]|chal[ée]|canap[ée]|"
                 "aqu[íi]|all[íi]|ah[íi]|as[íi]|esqu[íi]")
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'?ve|i'?ll|i'?d|i'?m|we|we'?ve|we'?ll|me|my|our)\b|\b(?:he|hemos|lo\s+he|la\s+he)\s+\w+(?:ado|ido|to|cho)\b"
    rf"|\b(?!(?:{NOT_PRETERITE})\b)\w{{3,}}(?:é|í)\b",
    _I,
)


def told_as_own(text: str) -> str:
    """`text` without quoted passages and without what a source is reported to say: "I added 'dinner at
    Nino's (not booked yet)'", "your note says the flights are booked" tell of no booking of the assistant's."""
    bare = _QUOTED.sub(" ", text)
    reported = _REPORTS.search(bare)
    return bare[:reported.start()] if reported else bare


def speaks_of_self(text: str) -> bool:
    """The assistant speaks of itself ("I've paid", "lo he pagado", "pagué"): what it did, not what a source says."""
    return bool(_FIRST_PERSON.search(_QUOTED.sub(" ", text)))


_PRESUPPOSED = re.compile(
    r"^\W*(?:since|as|given\s+that|now\s+that|because|como|ya\s+que|puesto\s+que|dado\s+que|ahora\s+que|"
    r"porque|once|cuando|when|after|después\s+de\s+que)\b"
    # "With the flights booked, …", "con el vuelo ya reservado, …": a state put first as background.
    # ("With the 2,400 acres in Texas done and paid, …": the user's figures may be part of what is taken as given.)
    r"|^\W*(?:[^\W\d_]+\W+)?(?:with|con)\s+(?:the|your|my|el|la|los|las|tu|tus|mi|mis)\s+(?:[\w.,'-]+\s+){1,4}?"
    r"(?:already\s+|ya\s+)?(?:[^\W\d_]+(?:ed|en|ad[oa]s?|id[oa]s?)|sent|done|paid|made|put|set|built|bought|sold|"
    r"told|won|held|met|spent|brought|got|hech[oa]s?|puest[oa]s?|escrit[oa]s?|entregad[oa]s?)\b",
    _I,
)

# -- stance vocabulary ------------------------------------------------------------------
# "Lists" is the verb only after what does the listing: "the shopping list", "both lists" are the noun,
# and a report of a source must not hide "…and the flour I added" on the list.
_REPORTS = re.compile(
    r"\b(?:says?|said|reads?|(?:it|that|this|which|note|file|page|entry|document|e-?mail|message|log|record|sheet|"
    r"table|receipt|invoice|site|website|article|search|result)\s+lists|shows?|mentions?|states?|according\s+to|"
    r"it\s+(?:has|contains)|contains?|"
    # Asked whether a thing is there, after a read: "yes, the wifi code is in there", "it's on your list".
    r"(?:is|are|'s|'re)\s+(?:(?:already|still|also)\s+)?(?:in\s+it|(?:in|on)\s+(?:there|your\s+(?:[\w.-]+\s+){0,2}"
    r"(?:list|lists|note|notes|file|calendar|agenda)))|"
    r"dice|dec[íi]a|pone|pon[íi]a|seg[úu]n|indica|recoge|menciona|muestra|cuenta\s+que)\b",
    _I,
)
# The assistant's own past action, said inside a question or an offer: "the milk I've just added",
# "que acabo de apuntarte", "que te he puesto".
_FIRST_PERSON_PAST = re.compile(
    r"\b(?:i|we)(?:\s*'ve|\s+have|\s+had)?\s+(?:just\s+|already\s+)?[^\W\d_]+ed\b"
    r"|\b(?:i|we)(?:\s*'ve|\s+have|\s+had|\s+just|\s+already)\s+(?:just\s+|already\s+)?(?:put|set|sent|wrote|made|kept)\b"
    r"|\b(?!(?:should|shall|can|could|do|did|would|may|will|might|must|if|when|where|how|what|why)\b)[^\W\d_]+\s+"
    r"(?:i|we)\s+(?:put|set|sent|wrote|made|kept)\b"
    r"|\b(?:he|hemos)\s+(?:[^\W\d_]+\s+)?[^\W\d_]+(?:ado|ido|to|cho|sto)s?\b|\bacab(?:o|amos)\s+de\b"
    # Only with the accent: "que borre", "quite" are a subjunctive and an English word.
    r"|\b(?:añadí|agregué|puse|apunté|anoté|guardé|creé|escribí|registré|cambié|"
    r"borré|eliminé|quité|cancelé|anulé|olvidé|envié|mandé|programé)\b",
    _I,
)
# ("It might already exist": a guess at why a write failed.)
_POSSIBLE = re.compile(r"\b(?:may|might|could|must)\s+(?:already\s+)?have\b|\b(?:may|might)\s+(?:already\s+)?exist\b|"
                       r"\bpuede\s+que\b|\bquiz[áa]s?\b|"
                       r"\ba\s+lo\s+mejor\b|\bprobablemente\b|\bperhaps\b|\bmaybe\b", _I)
# A past action put at an earlier time is about an earlier turn: "the note I created yesterday".
_EARLIER = re.compile(r"\b(?:yesterday|earlier|before|last\s+(?:time|week|night)|the\s+other\s+day|ago|ayer|"
                      r"antes|anteayer|el\s+otro\s+d[íi]a|la\s+semana\s+pasada|hace\s+[^\W\d_]+)\b", _I)
# Saying a thing is still where it was is saying it was not changed: "x sigue en tu carpeta".
_STILL = (r"(?:still\s+(?:there|here|in|on|exists?|available|where|says|reads|holds|shows|contains|has|looks)|"
          r"sigue(?:n)?\s+(?:en|ah[íi]|aqu[íi]|igual|intact|como|estando|existiendo|disponible|diciendo|poniendo|"
          r"teniendo|conteniendo|con\s+lo\s+(?:mismo|de\s+antes))|"
          r"todav[íi]a\s+(?:est[áa]n?|existen?|sigue|la\s+tienes|lo\s+tienes))")
# Negation-shaped idioms that say nothing about the action ("No worries, X is gone").
_IDIOMS = re.compile(
    r"\b(?=[^\W\d_])(?:no\s+worries|no\s+problem|not\s+a\s+problem|no\s+prob|no\s+biggie|no\s+sweat|"
    r"never\s+forget|won'?t\s+(?:be\s+)?forget(?:ting)?|(?:not|never)\s+(?:going\s+to|gonna)\s+forget|"
    r"not\s+to\s+worry|no\s+need\s+to\s+\w+|"
    # "nothing else needed" is a formula; "nothing else is in my memory" denies something.
    r"nothing\s+else(?=\s*(?:$|[.!,;:]|needed|required|necessary|to\s+do|for\s+now))|"
    + _NOTHING_LEFT_TO_DO + r"|"
    r"no\s+te\s+preocupes|sin\s+(?:ning[úu]n\s+)?problemas?|(?:no\s+hubo\s+|no\s+hay\s+)?ning[úu]n\s+problema|"
    r"no\s+hay\s+problema|no\s+hace\s+falta\s+que[^,.;:]*|no\s+(?:te\s+lo\s+|lo\s+)?olvidar[ée]|"
    r"nunca\s+olvidar[ée]|(?:no|nunca)\s+se\s+me\s+(?:va\s+a\s+olvidar|olvidar[áa]|olvida)|"
    r"(?:no|nunca)\s+se\s+te\s+(?:va\s+a\s+(?:pasar|olvidar)|pasar[áa]|olvidar[áa])|no\s+hay\s+pierde|"
    r"nada\s+m[áa]s|sin\s+falta|without\s+fail|no\s+doubt|sin\s+duda|"
    r"no\s+errors?(?:\s+at\s+all)?|without\s+(?:any\s+)?(?:issues?|problems?|errors?))\b",
    _I,
)
# A negation inside a purpose or manner phrase does not deny the main verb: "la he quitado para no
# acumular" and "deleted it without asking" both say it was done. ("sin tocar"/"without changing"
# say what stayed as it was, so they keep their negation.)
# What someone was told or knows: a "no" inside it denies nothing done ("Priya knows the meeting isn't on",
# "ya está al tanto de que no hay clase").
# So is what a message said ("le avisé a tu cuñado por WhatsApp que no llegas", "texted Sam that you can't come").
_TOLD_CONTENT = re.compile(
    r"(\b(?:al\s+tanto\s+de|sabe[n]?|ya\s+sabe[n]?|dije|dicho|told|knows|is\s+aware|are\s+aware|has\s+been\s+told|"
    r"have\s+been\s+told|heard)\s+(?:que\s+|that\s+)?"
    r"|\b(?:avis[ée]|avis[óo]|avisad[oa]|escrib[íi]|escrito|cont[ée]|contado|coment[ée]|comentado|mand[ée]\s+decir|"
    r"let\s+\w+\s+know|texted|messaged|wrote|emailed|informed|warned)\b(?:\s+[^\s.!?;]+){0,6}?\s+(?:que|that)\s+)"
    r"[^.!?;]+", re.IGNORECASE)
_SUBORDINATE_NEGATION = re.compile(
    r"\b(?:para\s+(?:que\s+)?no|so\s+as\s+not\s+to|in\s+order\s+not\s+to|"
    # ("…so it doesn't look like you've written anything": what follows from it, not a purpose.)
    r"so\s+(?:that\s+)?(?:it|you|they|he|she|we|there|nothing)\s+(?:doesn'?t|don'?t|won'?t|can'?t|isn'?t|aren'?t)"
    r"(?!\s+(?:look|seem|appear|sound)\b)|"
    r"sin\s+(?!tocar|cambiar)[^\W\d_]+(?:ar|er|ir)(?:te|le|les|lo|la|los|las|me|nos|se)?|"
    r"without\s+(?!touching|changing)[^\W\d_]+ing|"
    # "Movida a recetas/ sin tocar el contenido": untouched is how it was moved, when a claim opens it.
    r"(?<=\w)(?:/|\s)\s*(?:sin\s+(?:tocar|cambiar)|without\s+(?:touching|changing))\s+(?:el|la|los|las|su|sus|the|its|their)"
    r"\s+(?:contenido|texto|nada\s+m[áa]s|content|contents|text)|"
    # "I'll make sure you don't miss it" promises that it will not happen: it denies nothing done.
    r"make\s+sure\s+(?:that\s+)?(?:you|it)\s+(?:don'?t|won'?t|do\s+not|will\s+not|never)|"
    r"asegur\w*\s+de\s+que\s+no)\b",
    _I,
)
_NEGATION = re.compile(
    r"\b(?=[^\W\d_])(?:not|no|never|nothing|none|nobody|nowhere|neither|nor|without|cannot|can't|couldn't|didn't|"
    r"don't|doesn't|isn't|aren't|wasn't|weren't|haven't|hasn't|won't|wouldn't|unable|failed|fail|fails|"
    # ("The missing OT is noted": a thing that was missing, named; not a denial.)
    r"error|denied|declined|rejected|expired|timed\s+out|"
    r"(?<!\bthe\s)(?<!\ba\s)(?<!\ban\s)(?<!\bany\s)(?<!\byour\s)(?<!\bmy\s)(?<!\bour\s)(?<!\btheir\s)missing|nunca|nada|ning[úu]n[oa]?|ni|sin|tampoco|jam[áa]s|"
    r"fall[óo]|fallado|falla|errores|denegad[oa]s?|rechazad[oa]s?|caducad[oa]s?|expirad[oa]s?|imposible)\b"
    r"|n't\b"
    # Saying things stay as they were is saying nothing was done.
    r"|\b(?:as\s+it\s+(?:is|was)|as\s+is|untouched|intact|unchanged|" + _STILL + r"|left\s+(?:it|them)\s+as|"
    r"leave\s+(?:it|them)\s+as|(?:left|leave|leaving)\s+[\w.-]+\s+alone|stays?\s+(?:as|where)|remains?\s+(?:as|where)|como\s+est(?:[áa]|aba)|"
    r"(?:se\s+queda|sigue|contin[úu]a)\s+(?:donde|como)\s+est(?:[áa]|aba)|sin\s+cambios|sin\s+tocar|"
    r"intact[oa]s?|tal\s+(?:y\s+)?cual(?!\s+(?:me|te|nos|lo|la|los|las|como|c[oó]mo|se|you|as)\b)|d[ée]jal[oa]|dejo\s+(?:la|el|lo|las|los)\b)",
    _I,
)
# Negative words that state a removal: "ya no existe", "no longer there", "won't ring".
_NEGATIVE_STATE = re.compile(
    r"\b(?=[^\W\d_])(?:ya\s+no|no\s+longer|"
    r"(?:se\s+(?:ha|han)\s+quedado|se\s+qued[óa]|qued[óa]|queda(?:n)?)\s+(?:ya\s+)?sin\s+(?:su\s+|el\s+|la\s+|tu\s+)?"
    r"(?:recordatorio|aviso|alarma|nota|entrada|evento|cita)s?|"
    r"(?:is|are|'s|'re|was|were)\s+(?:now\s+)?(?:left\s+)?without\s+(?:a|an|its|their|the|any)\s+"
    r"(?:reminder|alarm|alert|note|entry|event)s?|no\s+more(?!\s+than)|is\s+no\s+more|anymore|any\s+more|"
    r"won'?t\s+(?:ring|bother|bug|nag|pester|ping|buzz|disturb|go\s+off|sound|pop\s+up)"
    r"(?!\s+(?:until|till|before|unless)\b)|"
    r"(?:qued[óa]|queda(?:n)?|se\s+(?:ha|han)\s+quedado)\s+sin\s+efecto|" + _ABSENT + "|"
    r"no\s+(?:te\s+|le\s+|les\s+|nos\s+)?(?:va(?:n)?\s+a|volver[áa]n?\s+a)\s+(?:sonar|molestar|saltar)|"
    r"out\s+of\s+my\s+memory|nothing\s+about\s+\w+\s+anymore|" + _OUT_OF_SIGHT + "|"
    + _NO_TRACE_EN + "|" + _NO_TRACE_ES + r")\b",
    _I,
)
_EXTENDED_STATE = re.compile(rf"\b(?:{_EXTENDED})\b", _I)
# "Ya puedes olvidarte de X", "you can now forget it": a permission that reports a result.
# Background stated as fact ("…now that the dentist is in there?"): asserted even inside a question.
_FACTIVE = re.compile(r"^\W*(?:since|now\s+that|given\s+that|ahora\s+que|ya\s+que|puesto\s+que|dado\s+que)\b", _I)
_RESULT = re.compile(r"\b(?:ya\s+puedes|ahora\s+puedes|you\s+can\s+now|now\s+you\s+can)\b", _I)
_OFFER = re.compile(
    r"\b(?=[^\W\d_])(?:can\s+i|i\s+can|i\s+could|could\s+i|shall\s+i|should\s+i|want\s+me\s+to|would\s+you|do\s+you\s+want|"
    r"if\s+you|let\s+me\s+know|tell\s+me|just\s+say|happy\s+to|i'?d\s+be\s+glad|i'?d\s+need|i\s+need|"
    # What it would take: "tengo que reescribir la nota entera", "I'd have to overwrite it".
    r"tengo\s+que|tendr[íi]a\s+que|tendr[ée]\s+que|i\s+have\s+to|i'?d\s+have\s+to|i'?ll\s+have\s+to|"
    # What the user can do themselves: "you can search for Tom in your mail app" (not "you can find it there now").
    r"you\s+(?:can|could|may\s+want\s+to|might\s+want\s+to|(?:will|'ll)\s+need\s+to|need\s+to|have\s+to|should)"
    r"(?!(?:\s+\w+){0,4}\s+(?:now|already|again)\b)\s+(?:also\s+|just\s+)?(?:search|select|open|go|tap|click|use|try|"
    r"ask|call|delete|remove|add|type|write|set|create|forward|send|reply|change|turn|install|download|log\s+in|"
    r"sign\s+in|contact|email|ring|visit|check|look)\b|"
    r"i'?d\s+(?:rather|prefer|like\s+to)|prefiero|preferir[íi]a|"
    r"please\s+(?:confirm|tell|send|give|share)|puedo|podr[íi]a|puedes|quieres|prefieres|"
    r"si\s+quieres|si\s+te\s+parece|si\s+me|si\s+necesitas|dime|d[ií]me(?:lo|la|los|las)|d[ií]game|ind[ií]came|av[ií]same|"
    # The same asked with "vos": "decime de qué camioneta es", "avisame", "contame".
    r"dec[ií]me(?:lo|la|los|las)?|cont[aá]me(?:lo)?|confirm[aá]me|indic[aá]me|"
    r"conf[ií]rmame|me\s+dices|te\s+parece|te\s+enseño|te\s+muestro|"
    # Asking for what is missing: "necesito saber a qué correo", "me falta saber la hora".
    r"necesito|necesitar[íi]a|me\s+(?:hace\s+)?falta(?:r[íi]a)?\s+(?:saber|conocer)|"
    # Handing over a draft or an idea to use is no report of something done ("here's your list" is).
    r"here(?:'s|\s+is|\s+are)\s+(?:a|an|one|some|two|three)\s+(?:(?:quick|short|possible|simple)\s+)?"
    r"(?:drafts?|suggestions?|ideas?|templates?|examples?|options?|proposals?|versions?|tips?|messages?\s+you\s+could)|"
    r"aqu[íi]\s+tienes\s+(?:un|una|unos|unas)\s+(?:borrador|propuesta|idea|ejemplo|plantilla|opci[óo]n|"
    r"sugerencia|versi[óo]n)\w*|te\s+dejo\s+(?:un|una|unos|unas)\s+(?:borrador|propuesta|idea|ejemplo|plantilla|"
    r"sugerencia|opci[óo]n)\w*)\b"
    ,
    _I,
)
# A clause that opens with a condition asserts nothing: "Si la luz ya está pagada, …".
_CONDITION = re.compile(r"^\W*(?:if|unless|in\s+case|si|salvo\s+que|en\s+caso\s+de\s+que)\b"
                        # What answering a question back will let it do, in the present: "Así lo agrego bien".
                        r"|^\W*(?:y\s+)?as[íi]\s+(?:(?:te|se|me)\s+)?(?:(?:lo|la|los|las)\s+)?"
                        r"(?!(?:qued[óo]|fue|est[áa])\b)[^\W\d_]+o\b", _I)
# A condition on the user's word or will ("if you want", "once you confirm", "si me lo confirmas",
# "cuando me digas"): an action promised under it is an offer, not a report. A condition on
# looking ("if you open the note, you'll see…") is not one: what follows it asserts a state.
_WILL = (
    r"(?:want|like|wish|prefer|approve|agree|confirm|say|tell|give|send|decide|change|reply|answer|"
    r"are\s+(?:ok|okay|fine|happy|ready)|quier[ea]s?|prefier[ea]s|parece|apruebas|apruebes|confirmas|confirmes|"
    r"dices|digas|das|des|pasas|pases|indicas|indiques|aceptas|aceptes|cambias|cambies|decides|decidas|"
    r"deseas|desees|pides|pidas|respondes|respondas|contestas|contestes|viene|"
    # The same said with "vos": "si querés", "si preferís", "si me decís".
    r"quer[ée]s|prefer[íi]s|aprob[áa]s|confirm[áa]s|dec[íi]s|pas[áa]s|acept[áa]s|ped[íi]s)"
)
_WILL_CONDITION = re.compile(
    r"\b(?:if|once|as\s+soon\s+as|when|whenever|had|should|si|cuando|en\s+cuanto|en\s+caso\s+de\s+que|"
    rf"tan\s+pronto\s+como|ahorita\s+que|apenas|no\s+m[áa]s\s+que)\s+(?:[^\W\d_]+\s+){{0,3}}?{_WILL}\b"
    r"|\bif\s+(?:that'?s|it'?s|that\s+is)\s+(?:ok|okay|fine|alright|all\s+right)\b",
    _I,
)
_WILL_CONDITION_START = re.compile(rf"^\W*(?:{_WILL_CONDITION.pattern})", _I)
# An action the assistant offers to do later: "I'll add it", "it will be deleted", "te lo apunto",
# "la borraré", "lo intento otra vez".
_OFFERED_ACTION = re.compile(
    r"\b(?:i'?ll|i\s+will|i'?d|i\s+would|i\s+can|we'?ll|we\s+will|let\s+me)\b"
    r"|\b(?:will|'ll|would|'d)\s+(?:then\s+)?(?:be|get)\s+[^\W\d_]+(?:ed|en|t)\b"
    r"|\b[^\W\d_]{2,}(?:ré|remos|ría|ríamos)\b|\bse\s+[^\W\d_]+(?:rá|rán|ría|rían)\b"
    r"|\b(?:te|se|me|nos)?\s*(?:lo|la|los|las|le|les)\s+[^\W\d_]+o\b|\bte\s+[^\W\d_]+o\b"
    r"|\b(?:vuelvo|paso|procedo|puedo)\b",
    _I,
)
# What says it has already happened, which no condition turns into an offer.
_JUST_ASKING = re.compile(r"^\W*just\s+(?=(?:ask|say|tell|let|reply|approve|confirm|send\s+me|ping\s+me)\b)", _I)


def without_asking_just(text: str) -> str:
    """`text` without the "just" that opens a request to the user ("just ask again"): no "just done"."""
    return _JUST_ASKING.sub(" ", text)
_ALREADY = re.compile(
    r"\b(?:i'?ve|i\s+have|has\s+been|have\s+been|already|just|now|ya|he|hemos|acabo|acabamos|ahora)\b", _I)
# What an action would do, said in the conditional: "that would erase every note", "eso las
# borraría", "it would have been removed". Only action verbs: "ya estaría" is a colloquial "done".
_ACTION_STEMS_EN = (
    r"(?:add|delet|remov|eras|wip|clear|cancel|send|sent|email|mail|forward|remind|set|schedul|book|mov|mark|"
    r"complet|archiv|sav|stor|writ|wrot|creat|updat|chang|renam|replac|overwr|rememb|forg|log|record|put|keep|"
    r"kept)"
)
_ACTION_STEMS_ES = (
    r"(?:añad|agreg|pond|apunt|anot|guard|cre|escrib|registr|actualiz|cambi|renombr|sustitu|reemplaz|inclu|"
    r"record|olvid|borr|elimin|quit|cancel|anul|envi|mand|reenvi|respond|contest|program|agend|reserv|marc|"
    r"archiv|mov|har|avis|perd|desaparec)"
)
_HYPOTHETICAL = re.compile(
    rf"\b(?:would|'d|could|might)\s+(?:not\s+|never\s+)?(?:have\s+)?(?:been\s+|be\s+)?"
    rf"(?:{_ACTION_STEMS_EN}|lose|lost|go\b|gone|disappear|vanish|show\s+up)\w*"
    rf"|\b{_ACTION_STEMS_ES}\w*r(?:ía|ías|íamos|íais|ían)\b|\bse\s+\w+r(?:ía|ían)\b"
    r"|\bhabr(?:ía|ías|íamos|ían)\s+\w+(?:ado|ido|to|cho)\b"
    # What the assistant would do in the user's place: "yo saldría a las 5:15", "I'd leave at 5:15".
    r"|\byo\s+(?:(?:me|lo|la|te)\s+)?[^\W\d_]+r[íi]a\b|\bi'?d\s+(?:leave|go|head|set\s+off|aim|start|plan)\b"
    # How a thing would look: "Quedaría así:", "it would read like this:".
    r"|(?<!ya\s)\b(?:quedar|ser|ver)[íi]an?\b|\b(?:would|'d)\s+(?:look|read|end\s+up)\b",
    _I,
)
# How the assistant always works is no report of this turn: "siempre te pido confirmación antes",
# "I always ask before deleting". One that does the action ("I always add it right away") is a report.
_FUTURE = re.compile(r"\b(?:will|'ll|shall)\b|\b[^\W\d_]{2,}(?:ré|rás|rá|remos|réis|rán)\b", _I)
_HABITUAL = re.compile(r"\b(?:always|usually|normally|by\s+default|every\s+time|siempre|normalmente|"
                       r"por\s+defecto|cada\s+vez\s+que)\b", _I)
_DOES_ACTION = re.compile(
    rf"\b(?:{_ACTION_STEMS_EN}|{_ACTION_STEMS_ES})\w*(?<!ing)(?<!ar)(?<!er)(?<!ir)(?<!ando)(?<!iendo)\b", _I)
# A step the assistant says it will take first, one that changes nothing: "te pediré confirmación",
# "I'll ask you to confirm first", "primero las listaré". It tells how the action would go, not that it
# went. A step at a time ("I'll ask you at 8") is a message scheduled, which only a call can promise.
_PLAN_STEP = re.compile(
    r"\b(?:i'?ll|i\s+will|i'?m\s+going\s+to|i\s+am\s+going\s+to)\s+(?:first\s+|then\s+|just\s+)?"
    r"(?:ask|check|show|list|look|search|read|confirm|propose|suggest|double-check|verify)\b"
    r"|\b(?:pedir|preguntar|enseñar|mostrar|listar|buscar|leer|comprobar|revisar|propondr|sugerir|consultar)"
    r"(?:[ée]|emos)\b"
    r"|\bvoy\s+a\s+(?:pedir|preguntar|enseñar|mostrar|listar|buscar|leer|comprobar|revisar|proponer|sugerir|consultar)\b",
    _I,
)
# Asking before acting: "just checking before I change anything", "antes de tocar nada, confírmamelo".
_ASKS_FIRST = re.compile(
    r"\b(?:just\s+)?(?:checking|making\s+sure|confirming|double-checking)\s+(?:first\s+)?before\s+(?:i|we)\b"
    r"|\bbefore\s+(?:i|we)\s+(?:change|touch|delete|remove|erase|send|do|make|go\s+ahead)\b(?:\s+(?:with\s+)?"
    r"(?:anything|it|them|that|this))?\s*[.!]?\s*$"
    r"|\bantes\s+de\s+(?:tocar|cambiar|borrar|enviar|mandar|hacer)\s+nada\b"
    r"|\b(?:s[óo]lo|solo)\s+(?:quiero\s+)?(?:confirmar|asegurarme)\b"
    # "Antes de programarlo, ¿…?", "Before adding it, which list?": the step the question comes before.
    r"|^\W*antes\s+de\s+[^\W\d_]+(?:ar|er|ir)(?:lo|la|los|las|le|les|te|me|se)*\W*$"
    r"|^\W*before\s+[^\W\d_]+ing(?:\s+(?:it|them|that|this|anything))?\W*$",
    _I,
)
# A step of instructions told to the user: "then put it in cold water", "next, set up a transfer". ("Put" and
# "set up" are the past tense too; after "then" they are the next thing to do.)
_NEXT_STEP = re.compile(r"^\W*(?:then|and\s+then|next|after\s+that|finally|luego|despu[ée]s)\W+(?:put|set\s+up|set)\s+"
                        r"(?:it|them|the|a|an|your|some|one|in|on|aside)\b", _I)
_WHEN = re.compile(r"\d|\b(?:tomorrow|tonight|later|this\s+(?:evening|afternoon|morning)|at\s+(?:noon|midnight)|"
                   r"ma[ñn]ana|esta\s+(?:noche|tarde)|luego\s+a|a\s+las?|at\s+\w+\s+o'?clock)\b", _I)
# A clause that goes on a list the clause before it opened: "I can add to a note, create one, or
# delete one" — it shares that clause's stance.
# Where a thing is ("and it's there") is no part of an offer.
_STATE = re.compile(r"\b(?:is|are|'s|'re|was|were|has|have|está|están|estaba|es|son|tienes|tiene|hay|queda|quedan)\b",
                    _I)


def tells_a_state(text: str) -> bool:
    """`text` has a verb of being or having ("…queda fuera de la carpeta", "is on the list")."""
    return bool(_STATE.search(text))
_CONTINUES = re.compile(
    rf"^\W*(?:(?:or|and|nor|then|and\s+then|y|e|o|u|ni|luego|despu[ée]s|y\s+luego|y\s+despu[ée]s)\b"
    rf"|(?:{_ACTION_STEMS_EN}|select|search|open|tap|click|choose|pick|type|press)\w*\b(?!\s+(?:is|are|was|were|has|have)\b)"
    r"|[^\W\d_]+(?:ar|er|ir)(?:la|lo|las|los|le|les|te|me)?\b)",
    _I,
)
# Names such as "nowhere-b02" or "no-reply" are data: their parts are not negations.
_IDENTIFIER = re.compile(r"\b\w*\d\w*\b|\b\w{2,}(?:[-_.]\w{2,})+\b")
# What a sentence that says "not done" is about: an action (any form), or its failure, refusal,
# absence or unchanged state. A negation about anything else ("nothing stands in the way",
# "that note won't show up again") says nothing about whether it was done.
_NOT_DONE_TOPIC = re.compile(
    r"\b(?=[^\W\d_])(?:add|put|sav|stor|noted|jot|writ|wrot|log|record|regist|creat|mak|made|updat|chang|"
    r"renam|replac|overwr|remem|memor|keep|kept|forg|delet|remov|eras|wip|clear|cancel|send|sent|emai|"
    r"mail|repl|forw|remind|set|schedul|book|mov|mark|complet|archiv|done|do\b|did|touch|"
    r"añad|agreg|pon|pus|apunt|anot|guard|escri|redact|registr|actualiz|cambi|renombr|sustitu|reemplaz|"
    r"inclu|recuer|record|olvid|borr|elimin|quit|anul|envi|enví|mand|reenv|respond|contest|program|sobre?escri|"
    r"agend|reserv|marc|archiv|hech|hice|hizo|hacer|toc|cread|crear|cre[ée]\b|tach|"
    # Paying, sharing, telling, renewing, ordering, confirming ("Not shared.", "no he pagado nada").
    r"shar|compart|pay|paid|pag[oaué]|transfer|settl|told|tell|inform|notif|avis|renew|renov|order|pedi|ped[íi]|"
    r"compr[aoé]|buy|bought|purchas|encarg|confirm|"
    r"could|couldn|can|cannot|unable|fail|error|deni|declin|reject|expir|answer|respons|exist|found|find|"
    # Reaching someone is what a message would do: "I have no way to contact your landlord".
    r"contact|reach|messag|text|llam|"
    r"there|change|pud|pod|fall|deneg|rechaz|caduc|expir|respuesta|exist|encontr|hay|había|imposible)\w*"
    r"|\b(?:as\s+it\s+(?:is|was)|as\s+is|untouched|intact|unchanged|" + _STILL + r"|stays?\s+(?:as|where)|"
    r"(?:left|leave|leaving)\s+[\w.-]+\s+alone|"
    r"remains?\s+(?:as|where)|como\s+est|(?:se\s+queda|sigue|contin[úu]a)\s+(?:donde|como)\s+est|"
    r"sin\s+cambios|sin\s+tocar|intact[oa]s?|"
    r"tal\s+(?:y\s+)?cual(?!\s+(?:me|te|nos|lo|la|los|las|como|c[oó]mo|se|you|as)\b)|d[ée]jal[oa]|dejo\s+(?:la|el|lo|las|los)\b)",
    _I,
)
_WH_WORD = re.compile(r"\b(?:which|what|who|whom|where|when|how|cu[áa]l|cu[áa]les|qu[ée]|qui[ée]n|d[óo]nde|"
                      r"cu[áa]ndo|c[óo]mo|cu[áa]nt[oa]s?)\b", _I)
_WH_START = re.compile(r"^\W*(?:which|what|who|where|how|cuál|qué|quién|dónde|cuándo|cómo)\b", _I)
_INTERJECTION = re.compile(
    r"^\W*(?:ok(?:ay)?|vale|sure|(?:of\s+|')?course|no\s+worries|claro|entendido|understood|de\s+acuerdo|alright|all\s+right|"
    r"hmm+|sorry|lo\s+siento|perdona|perdón|oops|vaya|uy|hi|hello|hola|hey|yes|yeah|s[íi]|no|"
    r"thanks|gracias|bien|right|well|bueno|pues|mira|fine|"
    # Courtesies: "Con mucho gusto.", "Certainly.", "En absoluto." (to "¿te importaría…?").
    r"con\s+(?:mucho\s+)?gusto|encantad[oa]|certainly|with\s+pleasure|por\s+supuesto|desde\s+luego|"
    r"en\s+absoluto|not\s+at\s+all|no\s+problem|sin\s+problema|happy\s+to\s+help|"
    # A connective left alone by the cut: "…, though.", "…, eso sí."
    r"though|tho|anyway|anyhow|at\s+least|as\s+well|eso\s+s[íi]|de\s+todas\s+formas|de\s+todos\s+modos|"
    r"igualmente|por\s+cierto|al\s+menos|aun\s+as[íi]|even\s+so|por\s+si\s+acaso|just\s+in\s+case)\W*$",
    _I,
)
# A straight single quote is also the apostrophe of "there's" and "didn't": a quotation opens
# only where no letter is before it and closes only where none follows, and an apostrophe
# between letters inside it ('don't forget') does not close it.
_QUOTED = re.compile(
    r"(?<![^\W_])'(?:[^'\n]|(?<=[^\W\d_])'(?=[^\W\d_])){0,200}'(?![^\W_])"
    r"|\"[^\"\n]{0,200}\"|“[^”\n]{0,200}”|‘[^’\n]{0,200}’|«[^»\n]{0,200}»"
)
# Not after an abbreviation that leads into a detail: "ext. 4471", "Dr. Ruiz", "tel. 91…".
_NO_END_AFTER = "".join(rf"(?<!\b{word}\.)" for word in
                        ("ext", "tel", "telf", "tlf", "dr", "dra", "sr", "sra", "st", "approx", "aprox", "núm", "num",
                         r"a\.m", r"p\.m"))
# An emoji ends a sentence when a capital follows: "te lo cancelé ✂️ No te va a sonar más".
_SENTENCE_END = re.compile(rf"(?<=[.!?…]){_NO_END_AFTER}\s+(?=\S)|\n+"
                           r"|(?<=[\u2600-\u27bf\ufe0f\U0001f300-\U0001faff])\s+(?-i:(?=[A-ZÁÉÍÓÚÑ¡¿]))", _I)
_CLAUSE_SPLIT = re.compile(
    # "07:40" and "64,20 €" are one number, not two clauses.
    r"\s*(?:[,;:](?!\d)|[—–])\s*|\s+-\s+|\s*[()]\s*|"
    # An emoji between words ends a clause as a comma would: "cancelled ✔ you won't hear about it".
    r"(?<=\S)\s*[\u2300-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f300-\U0001faff]\ufe0f?\s+(?=[^\W\d_])|"
    r"\s+(?=(?:but|so|because|since|though|although|while|whereas|now\s+that|pero|as[íi]\s+que|porque|ya\s+que|"
    r"ahora\s+que|aunque|mientras|sino)\b)",
    _I,
)
_AND = re.compile(r"\s+(?:and|y|e|plus|además)\s+", _I)

# The number of a numbered list's item ("1. Passport", "2) Adapter").
_ITEM_NUMBER = re.compile(r"(?m)^[ \t]*\d{1,3}[.)](?=[ \t]+\S)")
MAX_SENTENCES = 400
"""Sentences judged one by one; text past them is judged as one block (bounded time)."""


# An emoji that opens a line or a list item, as the last thing before a cut.
_LEADING_MARK = re.compile(r"(?:^|\n)[ \t]*(?:[-*•+][ \t]*)?[\u2600-\u27bf\ufe0f\U0001f300-\U0001faff]+$")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of `text` (at most MAX_SENTENCES; the rest is one span)."""
    spans: list[tuple[int, int]] = []
    start = 0
    # A quoted draft ("'Happy birthday! Have a great one'") is one piece of data, not sentences of
    # the answer's own: cut only outside quotes.
    masked = _QUOTED.sub(lambda m: "x" * len(m.group(0)), text) if "'" in text or '"' in text or "“" in text \
        or "‘" in text or "«" in text else text
    # "1. Passport": a numbered list's number ends no sentence (the line break before it does).
    masked = _ITEM_NUMBER.sub(lambda m: m.group(0)[:-1] + ")", masked) if "." in masked else masked
    for match in _SENTENCE_END.finditer(masked):
        if _LEADING_MARK.search(masked, max(0, match.start() - 8), match.start()):
            continue  # "- ✅ Added milk": the item's mark, not the end of anything said
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
        if len(spans) >= MAX_SENTENCES - 1:
            break
    if start < len(text):
        spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


_INCLUDED_ALONE = re.compile(r"^\W*(?:[^\W\d_]+\s+){0,2}?[^\W\d_]+\s+(?:included|incluid[oa]s?)\W*$", _I)
# A participle between "a"/"an" and its noun describes a kind of thing ("so there's a written record",
# "ask for an updated quote"): it tells of no action done.
_ATTRIBUTIVE = re.compile(r"\b(?:a|an)\s+(?:[^\W\d_]+ly\s+)?[^\W\d_]+(?:ed|en)\s+(?=[^\W\d_]{2,})"
                          # "Here's the tidied version", "la versión ordenada": a version offered, not one made.
                          r"|\b(?:the|this|that|my|your)\s+(?:tidied|cleaned|reformatted|reorgani[sz]ed|updated|corrected|"
                          r"edited|revised|rewritten|shortened)(?:[-\s]up)?\s+(?=(?:version|copy|draft|text|list)\b)"
                          r"|(?<=\bversi[óo]n\s)(?:limpia|ordenada|corregida|revisada|actualizada|nueva)\b", _I)


# Anchored where a run of path characters starts, so a long run without "/" is read once (linear time).
# A last part without an extension goes with its folders ("../compartido" shares nothing either).
_FOLDERS = re.compile(r"(?<![\w.-])(?:[\w.-]+/)+(?:[\w-]++(?![\w./]))?")
# What the user no longer needs to worry about is their own ease, not a thing taken away: "with rent paid,
# you no longer need to worry about it", "ya no tienes que preocuparte". (Not "you no longer need to
# remember it", which says something keeps it for them.)
_FILE_NAME = re.compile(r"(?<![\w.-])[\w-]+\.md\b")
# Words with a participle that tell no act of the assistant's: "have it cancelled" (someone does it for the
# user), "por escrito" / "in writing" (how), "…and I'll tell you exactly what was created" (what a report to
# come will say).
# A capitalised participle after a capitalised word or a number inside a sentence is a word of a name:
# "Next up would be Part 2 Written and then PACES". (Case matters here: "Part 2 written" stays a verb.)
_TITLE_PARTICIPLE = re.compile(r"(?<=\w )(?:[A-Z]\w*|\d+) [A-Z][a-z]+(?:ed|en)\b")
_NO_ACT_PHRASES = re.compile(
    # "Las experiencias compartidas suelen recordarse más": a participle that qualifies a noun, said of what
    # usually happens.
    r"\b(?:los|las|el|la|unos|unas|sus|tus)\s+[^\W\d_]{3,}\s+[^\W\d_]+(?:ad|id)[oa]s?\s+(?=(?:suelen|suele|tienden|"
    r"tiende|pueden|puede)\b)"
    r"|\b(?:have|get|having|getting)\s+(?:it|them|this|that|one|(?:the|your|a|an)\s+[\w-]+)\s+[^\W\d_]+(?:ed|en)\b"
    r"|\bpor\s+escrito\b|\bin\s+writing\b"
    # "…worth checking the pegs are marked", "make sure the gate's locked": what to check, not what was done.
    r"|\b(?:check(?:ing)?|double-check(?:ing)?|mak(?:e|ing)\s+sure|ensur(?:e|ing)|verify(?:ing)?)\s+(?:that\s+)?"
    r"(?:the|your|all|each|every|any|their|his|her)\s+(?:[\w'-]+\s+){0,3}?(?:is|are|'s|'re|have\s+been|has\s+been)\s+"
    r"(?:still\s+|all\s+)?[^\W\d_]+(?:ed|en)\b"
    r"|\b(?:comprob(?:ar|ando|ad|á)|asegur(?:arte|ándote|ate|aos)\s+de)\s+que\s+(?:[\w-]+\s+){0,4}?"
    r"(?:est[áeé]n?|queden?|sigan?)\s+[^\W\d_]+(?:ad|id)[oa]s?\b"
    # ("All those study sessions paid off": they were worth it; "paid off the loan" is a payment.)
    r"|\bpaid\s+off\b(?!\s+(?:the|your|my|a|an|it|them|that|this|those|these|his|her|their)\b)"
    r"|\b(?:(?:i'?ll|i\s+will|and|then|to)\s+)(?:tell|show|confirm|list|report\s+to)\s+you\s+(?:exactly\s+)?"
    r"(?:what|which)\b[^.!?\n]{0,40}"
    r"|\b(?:te|le|os)\s+(?:dir[ée]|confirmar[ée]|contar[ée]|indicar[ée]|ense[ñn]ar[ée]|mostrar[ée])\s+(?:exactamente\s+)?"
    r"(?:qu[ée]|cu[áa]l(?:es)?|lo\s+que)\b[^.!?\n]{0,40}", _I)
# What a step waits for: "pause new work until the balance is cleared", "once it's paid", "cuando esté
# pagada". ("Once it was deleted…" tells a past; that stays.)
_PENDING = re.compile(
    r"\b(?:until|till|hasta\s+que)\s+[^,.;:!?\n]{1,60}"
    r"|\b(?:once|as\s+soon\s+as|when|whenever)\s+[^,.;:!?\n]{0,40}?\b(?:is|are|'s|gets?|has\s+been|have\s+been)\s+"
    r"[^\W\d_]+(?:ed|en|id|aid)\b"
    r"|\b(?:cuando|en\s+cuanto|una\s+vez\s+que)\s+[^,.;:!?\n]{0,40}?\b(?:est[ée]n?|se\s+hayan?|hayas?|hayan?|sean?)\b"
    r"[^,.;:!?\n]{0,30}", _I)
# "He buscado 'matrícula' en tus notas", "I looked in your notes": where a lookup looked, not where a
# thing was put.
_SEARCHED_IN = re.compile(
    r"\b(?:buscad[oa]|busqu[ée]|busca|mirad[oa]|mir[ée]|revisad[oa]|revis[ée]|consultad[oa]|consult[ée]|"
    r"rastread[oa]|rastre[ée]|looked|searched|checked|went\s+through|dug)\b[^.!?\n]{0,50}?"
    r"\b(?:en|in|into|through)\s+(?:tu|la|tus|mis?|su|sus|your|the|my|all\s+your)\s+"
    r"(?:lista|listas|nota|notas|diario|memoria|registros?|pendientes|agenda|list|lists|note|notes|diary|memory|"
    r"records?|agenda)\b", _I)
_NO_NEED = re.compile(
    r"\b(?:you|u)\s+(?:no\s+longer|don'?t|do\s+not|won'?t|will\s+not)\s+(?:need|have|got)\s+to\s+"
    r"(?=(?:worry|stress|fret|panic|think|bother\s+(?:about|with))\b)[^,;:.!?\n]*"
    r"|\bno\s+(?:more\s+)?(?:need|reason)\s+to\s+(?=(?:worry|stress|fret|panic)\b)[^,;:.!?\n]*"
    r"|\bnothing\s+(?:more\s+|else\s+|left\s+)?to\s+worry\s+about\b[^,;:.!?\n]*"
    r"|\b(?:ya\s+)?no\s+(?:tienes|ten[ée]s|tiene|tienen|necesitas|necesit[áa]s|hace\s+falta)\s+"
    r"(?:(?:que|por\s+qu[ée]|de)\s+)?(?=(?:preocup|agobi|estres|pens|comer(?:te)?\s+la\s+cabeza|rayar)\w*)"
    r"[^,;:.!?\n]*"
    # "Esa ya no hay que mirarla": nothing left for the user to do about it.
    r"|\b(?:ya\s+)?no\s+hay\s+(?:que|por\s+qu[ée])\s+[^,;:.!?\n]*",
    _I,
)


# What a write still to come will say is its content, not a claim: "…o añadiré que queda cancelada",
# "I'll add that it's been cancelled".
_CONTENT_TO_WRITE = re.compile(
    r"\b(?:a[ñn]adir[ée]|pondr[ée]|escribir[ée]|anotar[ée]|apuntar[ée]|incluir[ée]|"
    r"(?:i'?ll|i\s+will|i\s+can|i\s+could)\s+(?:add|write|note|put|include|mention))\s+(?:que|that)\b[^.!?\n]*",
    _I,
)


# Markdown emphasis by underscores ("_Saved as plan in your notes._") would glue to the word it marks.
_UNDERSCORES = re.compile(r"(?<![^\W_])_+|_+(?![^\W_])")


def claimed_kinds(text: str) -> frozenset[ActionKind]:
    """The kinds of action `text` says were done (rules only)."""
    # ("Ya te lo dejé anotao", "t lo mandé pa q lo tengas": read as the words they stand for.)
    text = spelled_out(_UNDERSCORES.sub(" ", text))
    if _INCLUDED_ALONE.match(text):
        return frozenset()  # "…every day, weekends included", "IVA incluido": a scope, not an act
    # "Milk's on the list": the patterns know the verb as "is".
    bare = _CONTRACTED.sub(lambda m: " are" if m.group(1).lower() == "re" else " is",
                           _ATTRIBUTIVE.sub(" ", _QUOTED.sub(" ", text)))
    # A path's folders are names, not verbs ("../shared/groceries.md" shares nothing): only its last part stays.
    for aside in (_TITLE_PARTICIPLE, _FOLDERS, _NO_NEED, _CONTENT_TO_WRITE, _SEARCHED_IN, _PENDING, _NO_ACT_PHRASES):
        bare = aside.sub(" ", bare)
    bare = _FILE_NAME.sub("note.md", bare)  # "../compartida.md" shares nothing: a file's name is no verb
    kinds = frozenset(kind for kind, pattern in _KIND_PATTERNS if pattern.search(bare))
    if ActionKind.SEND in kinds and _INTO_A_NOTE.search(bare) and not _SENT_OUT.search(bare):
        # "I sent milk to your shopping note": sent into a note is stored there, not sent out.
        kinds = (kinds - {ActionKind.SEND}) | {ActionKind.STORE}
    if ActionKind.REMOVE in kinds and ActionKind.REMIND in kinds:
        verbal = _KIND_PATTERNS_BY_KIND[ActionKind.REMIND].search(_NAMED_REMINDER.sub(" ", bare))
        kinds = kinds if verbal else kinds - _REMINDER_OBJECT
    return kinds | _REMINDER_OBJECT if _stores(kinds) and _REMINDER_NOUN.search(bare) else kinds


# A coordinated part with a verb of its own that claims no action says something else about
# another thing: "deleted plan-q3b and kept plan-q3", "borré vieja-2 y dejé vieja".
_OWN_VERB = re.compile(
    r"\b(?:[^\W\d_]{2,}ed|kept|left|held|stay(?:s|ed)?|remains?|sigue|siguen|queda|quedan|dej[ée]|dejado|"
    r"mantengo|mantenid[oa]|conserv[ée]|conservad[oa]|respet[ée])\b",
    _I,
)
# "…and old-b as asked", "as you requested", "como pediste": a manner phrase, not a verb of the part's own.
_AS_ASKED = re.compile(r"\b(?:as|like)\s+(?:you\s+|we\s+|i\s+)?(?:[^\W\d_]{2,}ed|said|told|wanted|agreed)\b"
                       r"|\bcomo\s+(?:me\s+|nos\s+|lo\s+)?(?:ped[íi]ste|dijiste|quer[íi]as|acordamos|indicaste)\b", _I)
# What the user gave, said of the things a claim is about: "the amounts you listed", "everything you
# gave", "lo que me dijiste", "las cantidades que me pasaste". The user gave them; the claim's verb
# ("…are updated with the amounts you listed") is still the assistant's.
# What someone else now knows of the user: "Your mom knows you landed", "tu jefe sabe que llegaste tarde". The
# user's doing is the news; who knows it is the claim.
_KNOWN_BY_ANOTHER = re.compile(r"\b(?:knows|sabe|saben|sab[íi]an?|(?:is|are)\s+aware|est[áa]n?\s+al\s+tanto)\b.*$",
                               _I | re.S)
def _users_doing(bare: str) -> str:
    """`bare` without what only frames the user's doing: "as you asked", "the amounts you listed", "X knows…"."""
    return _KNOWN_BY_ANOTHER.sub(" ", _WHAT_YOU_GAVE.sub(" ", _AS_ASKED.sub(" ", bare)))


_WHAT_YOU_GAVE = re.compile(
    r"\b(?:the|those|these|all|everything|anything|what|whatever)\s+(?:[^\W\d_]+\s+){0,3}?(?:that\s+|which\s+)?"
    r"you(?:'ve|\s+have|\s+just)?\s+(?:gave|given|mentioned|listed|sent|said|wanted|asked\s+for|wrote|named|picked|"
    r"chose|shared|provided|specified|dictated|told\s+me)\b"
    r"|\b(?:lo|los|las|la|el|todo|todos|todas)\s+(?:[^\W\d_]+\s+){0,3}?que\s+(?:me\s+|nos\s+)?(?:diste|dijiste|"
    r"pasaste|mandaste|enviaste|pediste|indicaste|mencionaste|dictaste|escribiste|quer[íi]as|nombraste)\b", _I)


def _cut(text: str, separator: re.Pattern[str]) -> list[str]:
    """`text` cut where `separator` matches outside quotes (quoted words are data, not boundaries)."""
    masked = _QUOTED.sub(lambda m: "x" * len(m.group(0)), text)
    parts: list[str] = []
    cursor = 0
    for cut in separator.finditer(masked):
        parts.append(text[cursor:cut.start()])
        cursor = cut.end()
    parts.append(text[cursor:])
    return parts


def claimed_parts(text: str) -> str:
    """`text` without its coordinated parts that have a verb of their own and claim no action."""
    parts = _cut(text, _AND)
    if len(parts) == 1:
        return text
    kept = [p for p in parts if claimed_kinds(p) or not _OWN_VERB.search(_AS_ASKED.sub(" ", _QUOTED.sub(" ", p)))]
    return " ".join(kept)


_KIND_PATTERNS_BY_KIND = dict(_KIND_PATTERNS)
_INTO_A_NOTE = re.compile(
    r"\b(?:sent|send|mandad\w*|mand[ée]|enviad\w*|envi[ée])\b(?:\s+[\w'’-]+){0,4}?\s+(?:to|into|a)\s+"
    r"(?:(?:your|the|my|tu|la|tus|mis?)\s+(?:[\w.-]+\s+){0,2}(?:note|notes|list|journal|diary|nota|notas|lista|diario)\b"
    r"|[\w-]{1,80}\.md\b)",
    _I,
)
# What only goes out to someone: an email or a reply is sent out wherever else it is said to go.
_SENT_OUT = re.compile(r"\b(?:e-?mail\w*|mail(?:ed|s)?|correos?|messag\w*|mensajes?|text(?:ed|s)?|whatsapp|sms|"
                       r"forward\w*|repl\w*|respond\w*|contest\w*|reenvi\w*|deliver\w*|entregad\w*)\b", _I)
_CONTRACTED = re.compile(r"(?<=[^\W\d_])['’](s|re)\b", _I)
# A reminder said to be put somewhere ("te he puesto un recordatorio", "reminder at 18:00 too")
# is one a reminder call must back, whatever its verb: putting a note somewhere does not set one.
# (Cancelling one is a removal, which a cancelling call backs.)
_REMINDER_NOUN = re.compile(r"\b(?:reminders?|alarms?|recordatorios?|avisos?|alarmas?)\b"
                            r"(?!\s+(?:note|list|nota|lista)\b)", _I)
_REMINDER_OBJECT = frozenset({ActionKind.REMIND})


def _stores(kinds: frozenset[ActionKind]) -> bool:
    return ActionKind.STORE in kinds and ActionKind.REMOVE not in kinds


def _stance(text: str, last_of_question: bool) -> Stance:
    text = _UNDERSCORES.sub(" ", text)
    bare = _SUBORDINATE_NEGATION.sub(" x ", _IDIOMS.sub(" ", _IDENTIFIER.sub(" x ", _QUOTED.sub(" ", text))))
    bare = _STORED_CONTENT.sub(r"\1 x", bare)
    bare = _TOLD_CONTENT.sub(r"\1 x", bare)
    bare = _TOPIC_FIRST.sub(" x ", bare)
    bare = _NO_TROUBLE.sub(" ", bare)
    if not re.search(r"\w", text):
        # Emojis alone: a tick ("🥛✅") says it is done, anything else is a gesture.
        return Stance.AFFIRMATIVE if _CLOSER.search(text) else Stance.INTERJECTION
    if not re.search(r"\w", bare) and claimed_kinds(_QUOTED.sub(" ", text)):
        return Stance.AFFIRMATIVE  # the idiom is the whole clause, and it claims: "no se me olvidará"
    if not re.search(r"\w", bare) and _QUOTED.fullmatch(text.strip()):
        # The answer is only the text asked to be written, quoted: shown as what the note now holds.
        return Stance.AFFIRMATIVE
    if _INTERJECTION.match(bare) or not re.search(r"\w", bare):
        return Stance.INTERJECTION
    asked = last_of_question or text.lstrip().startswith("¿")
    # ("…, dado que la cita es a esa hora?": background that claims nothing, inside a question, asks.)
    if _FACTIVE.match(bare) and not _NEGATION.search(bare) and (not asked or claimed_kinds(bare)):
        return Stance.AFFIRMATIVE
    if asked:
        return Stance.QUESTION
    if _CONDITION.match(bare) or _WILL_CONDITION_START.match(bare):
        return Stance.OFFER
    if _HYPOTHETICAL.search(bare) or (_WILL_CONDITION.search(bare) and _OFFERED_ACTION.search(bare)
                                       and not _ALREADY.search(bare)):
        return Stance.OFFER
    if (_HABITUAL.search(bare) and not claimed_kinds(bare) and not _FUTURE.search(bare)
            and not _DOES_ACTION.search(bare)):
        return Stance.OFFER
    if _PLAN_STEP.search(bare) and not claimed_kinds(bare) and not _WHEN.search(text):
        return Stance.OFFER
    if _ASKS_FIRST.search(bare) and not claimed_kinds(bare):
        return Stance.OFFER
    if _NEXT_STEP.match(bare):
        return Stance.OFFER
    if _NEGATIVE_STATE.search(bare) or _EXTENDED_STATE.search(bare):
        return Stance.AFFIRMATIVE
    if _NEGATION.search(bare):
        return Stance.NEGATED
    if _RESULT.search(bare):
        return Stance.AFFIRMATIVE
    if _OFFER.search(bare) or (_WH_START.match(bare) and not claimed_kinds(bare)):
        return Stance.OFFER
    return Stance.AFFIRMATIVE


# A state said as background inside a question: "the renewal you now have there", "que ya tengo
# guardado", "donde ya está". A question that asks about the state itself ("Is it already on the
# list?", "¿Ya está en la lista?") opens with it and asserts nothing.
_HELD_STATE = re.compile(r"\b(?:que|donde|which|that|where|you|i|we)\s+(?:[^\W\d_]+\s+)?(?:now|already|ya|ahora)\b", _I)
_YES_NO = re.compile(r"^\W*(?:is|are|was|were|do|does|did|has|have|had|can|could|shall|should|will|would|"
                     r"(?:ya\s+)?(?:est[áa]n?|tienes|tiene|hay|has|hab[íi]a))\b", _I)


_YOUR_PART = re.compile(r"\byou\s+(?:need|have|must|should|'?ll\s+need)\s+to\b|\b(?:tienes|necesitas|debes)\s+que\b"
                        # "No se te olvida nada", "you won't forget a thing": the user's memory, not the action.
                        r"|\bno\s+se\s+te\s+(?:olvida|olvidar[áa]|va\s+a\s+olvidar|pasa|pasar[áa])\b"
                        r"|\byou\s+(?:won'?t|will\s+not)\s+(?:forget|miss)\b"
                        r"|\bhace\s+falta\s+que\s+hagas\b", _I)


_TICKS = re.compile(f"[{_TICK_SIGNS}]")
# What was kept, said after "that": "I've stored that you don't eat meat" (its "don't" is the fact's).
_STORED_CONTENT = re.compile(
    r"\b((?:stored|saved|noted|remembered|recorded|logged|memori[sz]ed|(?:written|wrote|jotted|put)\s+down|"
    r"guard[ée]|guardado|apunt[ée]|apuntado|anot[ée]|anotado|registr[ée]|registrado|memoric[ée]|memorizado)"
    r"\s+(?:[^\W\d_]+\s+)?(?:that|que))\b[^.!?\n]*", _I)
# How it went, said with a "no" that denies only trouble: "sin ningún inconveniente", "without a hitch", "no
# problem".
_NO_TROUBLE = re.compile(
    r"\b(?:sin\s+(?:ning[úu]n\s+|mayor(?:es)?\s+|el\s+menor\s+)?(?:problemas?|inconvenientes?|dramas?|l[íi]os?|"
    r"contratiempos?|complicaciones?)|without\s+(?:any\s+)?(?:problems?|issues?|trouble|a\s+hitch|fuss)|"
    r"no\s+(?:problem|issues?|trouble|worries)|no\s+hubo\s+(?:ning[úu]n\s+)?(?:problema|inconveniente)s?)\b", _I)
# The thing spoken of, put first and taken up again by a pronoun: "Lo de que tu hijo no toma lactosa ya lo
# tengo apuntado" (its "no" is the fact's, not the verb's).
_TOPIC_FIRST = re.compile(
    r"^\W*(?:y\s+)?(?:lo|eso|esto)\s+de\s+(?:que|q)\b[^.!?\n]{1,200}?"
    r"(?=\b(?:ya\s+)?(?:te\s+|me\s+|se\s+)?(?:lo|la|eso)\s+(?:tengo|tienes|he|hemos|dej[ée]|dejo|guard|apunt|anot|registr)"
    r"|\bya\b)", _I)
# A question that takes what was asked as done: "¿algo más ahora que están las pilas?", "anything else
# now that the milk's on it?". ("¿…ahora que está lloviendo?" is the weather.)
_NOW_THAT_DONE = re.compile(
    # "¿Quieres que además del aviso del jueves te ponga otro?", "¿algo más aparte de la bulería que ya está?",
    # "anything else besides the reminder?": the question counts the thing asked for as there already.
    r"\b(?:adem[áa]s|aparte)\s+(?:del|de\s+la|de\s+los|de\s+las)\s+(?:aviso|recordatorio|alarma|alerta|apunte|cita|"
    r"evento|nota)s?\b|\b(?:adem[áa]s|aparte)\s+de\s+(?:la|el|lo|los|las)\s+[^,?]{1,40}?\s+(?:que|q)\s+ya\s+"
    r"(?:est[áa]n?|tienes|hay|qued[óa])\b|\b(?:besides|apart\s+from|other\s+than|on\s+top\s+of|as\s+well\s+as)\s+"
    r"(?:the|that|your)\s+(?:reminder|alarm|alert|note|entry|event|appointment)s?\b|"
    r"\b(?:besides|apart\s+from|other\s+than|on\s+top\s+of)\s+(?:the\s+)?[^,?]{1,40}?\s+(?:that'?s|which\s+is|"
    r"you'?ve\s+got)\s+(?:already|now)\b|"
    r"\b(?:ahora|now)\s+que\s+(?:ya\s+)?(?:s[ée]|conozco)\s+(?:que|lo)\b|\bnow\s+that\s+i\s+know\b"
    r"|\b(?:ahora|now)\s+que\s+(?:ya\s+)?(?:est[áa]n?|qued[óa]|quedaron|figuran?)\s+(?:todo|lo\s+del?|el|la|los|las|ah[íi]|"
    r"en\s|apuntad|anotad|guardad|incluid|a[ñn]adid|list[oa]s?|hech[oa]s?|fuera|borrad|cancelad|quitad)"
    r"|\bnow\s+that\s+(?:(?:the|your|my|that|this)\s+)?(?:[\w'-]+\s+){0,2}?(?:[\w-]+'s|[\w-]+\s+(?:is|are)|it'?s|they'?re)\s+"
    r"(?:on|in|there|done|sorted|set|gone|added|saved|noted|booked|sent|cancell?ed|deleted|all\s+set|taken\s+care|"
    r"out\s+of\s+the\s+way|cleared|binned|scrapped|wiped)\b"
    # ("…now that the £38 figure's been scrubbed from my memory?")
    r"|\bnow\s+that\s+(?:(?:the|your|my|that|this)\s+)?(?:[^\s,?]+\s+){0,3}?(?:[\w-]+'s|[\w-]+\s+(?:is|are|has|have)|"
    r"it'?s|they'?ve)\s+been\s+[^\W\d_]+(?:ed|en|wn)\b",
    _I)


def takes_as_done(text: str) -> bool:
    """Whether a question counts the thing asked for as done ("¿algo más ahora que está lo del fontanero?")."""
    return bool(_NOW_THAT_DONE.search(_QUOTED.sub(" ", text)))


def _clause(text: str, last_of_question: bool) -> Clause:
    kinds = claimed_kinds(text)
    bare = _QUOTED.sub(" ", text)
    if ActionKind.REMOVE in kinds and _NEGATIVE_STATE.search(bare):
        kinds -= {ActionKind.STORE}  # "Ya no aparecerá en tus notas": the place it is gone from
    stance = _stance(text, last_of_question)
    done_since = stance is Stance.QUESTION and bool(_NOW_THAT_DONE.search(bare))
    if done_since:  # "¿algo más ahora que está lo del fontanero?": the question takes the action as done
        stance = Stance.AFFIRMATIVE
    if (stance in (Stance.QUESTION, Stance.OFFER) and kinds and not _EARLIER.search(bare)
            and (_FIRST_PERSON_PAST.search(bare) or (stance is Stance.QUESTION and _HELD_STATE.search(bare)
                                                     and not _YES_NO.match(bare) and not _OFFER.search(bare)))):
        # "Anything else besides the milk I just added?", "…the renewal you now have there?", "¿…el
        # código que ya tengo guardado?": the question asserts what it takes as done.
        stance = Stance.AFFIRMATIVE
    return Clause(
        text=text,
        stance=stance,
        kinds=kinds,
        # ("✅ **Added** ink to errands": the tick marks that claim, not every action asked for.)
        closer=((bool(_CLOSER.search(bare)) and not (kinds and not _CLOSER.search(_TICKS.sub(" ", bare))))
                or (done_since and not kinds)),
        # "…old-b, como pediste", "as you asked": the user's request, not a report of what they did.
        second_person=bool(_SECOND_PERSON.search(_users_doing(bare))) and not _FIRST_PERSON.search(bare),
        presupposed=bool(_PRESUPPOSED.match(bare)),
        everything=bool(_EVERYTHING.search(bare)),
        # "Nothing else you need to do" is about the user's part, not an account of the action.
        not_done=(stance is Stance.NEGATED and bool(_NOT_DONE_TOPIC.search(_IDENTIFIER.sub(" x ", bare)))
                  and not _YOUR_PART.search(bare)),
        possible=stance is Stance.AFFIRMATIVE and bool(_POSSIBLE.search(bare)),
    )


_PUNCTUATION_ONLY = re.compile(r"[\s?!.,;:¿¡…]+")
# Examples a question gives: "(for example, …)", "(e.g. …)", "(por ejemplo, …)".
_EXAMPLE = re.compile(r"^\W*(?:for\s+example|for\s+instance|e\.?g\.?|say|like|por\s+ejemplo|tipo|como)\b", _I)
# Options a question offers: "15 or 30 minutes, or an hour?", "¿a las 9 o a las 10?".
_OPTIONS = re.compile(r"^\W*(?:or|o|u)\b|\b(?:or|o|u)\b", _I)


def parse(text: str) -> list[Sentence]:
    """The sentences of `text`, each cut into judged clauses."""
    sentences: list[Sentence] = []
    for start, end in split_sentences(text):
        sentence = text[start:end]
        # A piece of bare punctuation ("?" after a closing bracket) is no clause: the question ends before it.
        pieces = [p for p in _cut(sentence, _CLAUSE_SPLIT) if p.strip() and not _PUNCTUATION_ONLY.fullmatch(p)]
        if pieces:  # "2. Hecho.": the item's number is no part of what it says
            pieces[0] = _ITEM_NUMBER.sub("", pieces[0], count=1).lstrip() or pieces[0]
        question = sentence.rstrip().endswith("?")
        # "…, or the bins tonight at 8?": a question that offers options, each piece of it one of them.
        options = question and any(_OPTIONS.match(p) for p in pieces[1:])
        # "…y qué pongo (pagar, renovar, llamar a la aseguradora…)?": what a question's brackets list is its own.
        bracketed = [m.group(1) for m in _BRACKETED.finditer(sentence)] if question else []
        clauses: list[Clause] = []
        for index, piece in enumerate(pieces):
            # "Sure — for when, and what should it say?": a piece with a question word and no claim
            # belongs to the question the sentence ends in.
            # "15 or 30 minutes, or an hour?": a short piece with no claim lists the question's options.
            asks = (index == len(pieces) - 1 or bool(_WH_WORD.search(piece) and not claimed_kinds(piece))
                    # "…what should it say (for example, book the service or call the engineer)?"
                    or (question and bool(_EXAMPLE.match(piece)) and not claimed_kinds(piece))
                    or (question and index >= 1 and bool(_EXAMPLE.match(pieces[index - 1]))
                        and not claimed_kinds(piece))
                    or (question and len(piece.split()) <= MAX_ELIDED_WORDS
                        and (options or _OPTIONS.search(piece) is not None)
                        and not claimed_kinds(piece) and not _CLOSER.search(piece))
                    or (any(piece.strip() in inner for inner in bracketed) and not claimed_kinds(piece)
                        and not _CLOSER.search(piece)))
            clauses.extend(_coordinated(piece, question and asks))
        told = _topics_share_negation(_in_context(clauses))
        sentences.append(Sentence(sentence, start, end, _row_denied(told) if _TABLE_ROW.match(sentence) else told))
    return _elided(_options(sentences))


_BRACKETED = re.compile(r"\(([^()]{1,300})\)")
_ITEM_LINE = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•])\s+\S")


def _options(sentences: list[Sentence]) -> list[Sentence]:
    """The items of a list right after a question are the options it offers ("¿Qué prefieres?\n1. Añadir…
    2. Reemplazarla…"), and those after an offered header show what it offers: each is put to the user,
    unless it claims something done."""
    result: list[Sentence] = []
    offering = False
    for sentence in sentences:
        if offering and _ITEM_LINE.match(sentence.text):
            sentence = replace(sentence, clauses=tuple(
                replace(c, stance=Stance.OFFER) if c.stance is Stance.AFFIRMATIVE and not c.kinds and not c.closer
                else c for c in sentence.clauses))
        else:
            # (So are those a header that says how a thing would look announces: "Quedaría así:".)
            offering = sentence.is_question or (sentence.text.rstrip().endswith(":") and bool(sentence.clauses)
                                                and all(c.stance is Stance.OFFER for c in sentence.clauses))
        result.append(sentence)
    return result


# "Milk added. Eggs too.", "…; eggs as well", "y también los huevos": a short clause with no
# verb of its own says the last action again, of something else.
_ALSO = re.compile(
    r"^\W*(?:and\s+|y\s+|plus\s+)?(?:also|too|plus|tambi[ée]n|adem[áa]s|igualmente)\b"
    r"|\b(?:too|as\s+well|also|tambi[ée]n|igualmente)\W*$"
    r"|^\W{0,10}(?:and|y|e|plus)(?:\s+[\w'’-]{1,40}){1,4}\W{0,10}$",
    _I,
)
MAX_ELIDED_WORDS = 6


def _elided(sentences: list[Sentence]) -> list[Sentence]:
    """Clauses that leave out the verb of the claim before them take that claim's kinds."""
    last: frozenset[ActionKind] = frozenset()
    result: list[Sentence] = []
    for sentence in sentences:
        clauses: list[Clause] = []
        for clause in sentence.clauses:
            if clause.kinds and clause.stance is Stance.AFFIRMATIVE and clause.presupposed:
                # ("Since you've replaced the contactor, I'd check the wiring, the charge and the switches": the
                # user's deed, taken as given, lends its verb to no list that follows.)
                last = frozenset()
            elif clause.kinds and clause.stance is Stance.AFFIRMATIVE:
                last = clause.kinds
            elif (last and clause.stance is Stance.AFFIRMATIVE and not clause.closer and len(clause.text) <= 300
                  and len(clause.text.split()) <= MAX_ELIDED_WORDS and _ALSO.search(_QUOTED.sub(" x ", clause.text))
                  # ("And one tip: book a week ahead": a label for what follows its colon.)
                  and f"{clause.text.rstrip()}:" not in sentence.text):
                bare = _QUOTED.sub(" ", clause.text)
                about = _REMINDER_OBJECT if _stores(last) and _REMINDER_NOUN.search(bare) else frozenset()
                clause = replace(clause, kinds=last | about)
            clauses.append(clause)
        result.append(replace(sentence, clauses=tuple(clauses)))
    return result


_PURPOSE = re.compile(r"^\W*(?:so(?:\s+that)?|in\s+order\s+to|para\s+que|as[íi]\s+(?:que\s+)?)\b", _I)


_ALTERNATIVE = re.compile(r"^\W*(?:or|o|u)\s+(?!(?:i|i'?ve|i\s+have|he|ya|already)\b)", _I)
# "Now" as when an offered action would happen ("si quieres, vuelvo a intentarlo ahora", "I'll add it
# now if you like"), not as what is so now.
_RIGHT_NOW = re.compile(r"\b(?:ahora(?:\s+mismo)?|right\s+now|now)\b", _I)


def _right_now(bare: str) -> str:
    return _RIGHT_NOW.sub(" ", bare) if _OFFERED_ACTION.search(bare) else bare


def _in_context(clauses: list[Clause]) -> tuple[Clause, ...]:
    """Clauses whose stance the clause before them sets.

    What a condition on the user's word promises ("Si lo apruebas, borraré la nota") is an offer,
    and a clause that goes on the list an offer opened ("I can add to a note, create one, or
    delete one") is part of that offer. Neither turns a report of something done into one.
    """
    result: list[Clause] = []
    asked_of_user = False  # a clause so far asked the user for something ("tell me…", "send me…")
    for clause in clauses:
        before = result[-1] if result else None
        asks = (clause.stance in (Stance.AFFIRMATIVE, Stance.OFFER)
                and bool(_ASKS_USER.match(_QUOTED.sub(" ", clause.text))))
        if clause.stance is Stance.AFFIRMATIVE and not clause.kinds and asks:
            clause = replace(clause, stance=Stance.OFFER)  # "Send me the note name…": asked of the user
        elif before is not None and clause.stance is Stance.AFFIRMATIVE:
            bare = _QUOTED.sub(" ", clause.text)
            # The consequence of a condition on the user's will is promised or asked, not reported: "Si
            # cambias de idea, me lo dices", "if you'd rather keep it, just say so".
            if (_WILL_CONDITION_START.match(_QUOTED.sub(" ", before.text))
                    and (_OFFERED_ACTION.search(bare) or (not clause.kinds and not clause.closer))
                    # ("…just ask again": a "just" that opens a request to the user is no "just done")
                    and not _ALREADY.search(_JUST_ASKING.sub(" ", _right_now(bare)))):
                clause = replace(clause, stance=Stance.OFFER)
            elif (before.stance is Stance.OFFER and not clause.closer
                  and (not clause.kinds or _ALTERNATIVE.match(bare))
                  and _CONTINUES.match(bare) and not _STATE.search(_NO_ACT_PHRASES.sub(" ", bare))
                  and not _ALREADY.search(bare)):
                # ("…add pizza to your note, or set a reminder": an alternative offered is no report.)
                clause = replace(clause, stance=Stance.OFFER)
            elif _THING_CONDITION.match(_QUOTED.sub(" ", before.text)) and _READY_ALONE.match(bare):
                # "Si se arruga al empujarla con el dedo, ya está", "if it springs back, it's done": how to tell
                # a thing is ready, not a report of anything done.
                clause = replace(clause, stance=Stance.OFFER)
            elif before.stance is Stance.OFFER and _PURPOSE.match(bare) and not _ALREADY.search(bare):
                # "I can save a draft, so it's ready to paste": what the offer would give.
                clause = replace(clause, stance=Stance.OFFER)
            elif (asked_of_user and not clause.closer and not _ALREADY.search(bare)
                  and not _STATE.search(bare) and (not clause.kinds or _PROMISE.search(bare))):
                # "Tell me the note name and the item, and I'll add it": what is asked of the user, and
                # what will be done with it, are one offer.
                clause = replace(clause, stance=Stance.OFFER)
        asked_of_user = asked_of_user or (asks and clause.stance is Stance.OFFER)
        result.append(clause)
    return tuple(result)


# A condition on how a thing turns out: "si se arruga…", "if it springs back…", "cuando burbujee…".
_THING_CONDITION = re.compile(r"^\W*(?:si|if|cuando|when|once|en\s+cuanto)\s+(?![^.!?]*\b(?:you|your|te|tu|t[úu]|"
                              r"vos|usted|quieres|quer[ée]s|prefieres|parece|apruebas|dices|want|would|'d|ok|okay|"
                              r"vale|bien)\b)", _I)
# Ready, and nothing else: "ya está", "it's done", "listo". ("Ya está guardada" says where a thing is kept.)
_READY_ALONE = re.compile(r"^\W*(?:(?:ya|then|and)\s+)?(?:est[áa]|it'?s|it\s+is|you'?re)?\s*"
                          r"(?:list[oa]|ready|done|hech[oa])?\W*$", _I)
# A request to the user that opens an offer: "tell me…", "dime…", "send me…".
_ASKS_USER = re.compile(r"^\W*(?:(?:just\s+)?(?:tell|send|give|show)\s+me|let\s+me\s+know|dime|"
                        r"d[íi]me(?:lo|la|los|las)|m[áa]ndame|p[áa]same|ind[íi]ca(?:me|mel[oa])|dec[íi]me(?:lo|la)?|"
                        r"conf[íi]rma(?:me|mel[oa]))\b", _I)
# A promise of the assistant's own: "I'll add it", "y lo apunto", "te lo pongo".
_PROMISE = re.compile(r"\b(?:i'?ll|i\s+will|and\s+i\s+can)\b|^\W*(?:and|y)\s+(?:te\s+|se\s+)?(?:lo|la|los|las)\s+"
                      r"[^\W\d_]+o\b", _I)



# "En cambio", "however", "eso sí": a word that links two clauses, saying nothing itself.
_LINK_ONLY = re.compile(r"^\W*(?:en\s+cambio|sin\s+embargo|eso\s+s[íi]|por\s+otro\s+lado|por\s+su\s+parte|"
                        r"however|though|on\s+the\s+other\s+hand|by\s+contrast|in\s+turn|meanwhile)\W*$", _I)
# The clitic that takes up a topic put first: "La nota vieja, no la he podido borrar".
_TAKES_UP = re.compile(r"^\W*no\s+(?:se\s+)?(?:lo|la|los|las|le|les)\b", _I)


def _topics_share_negation(clauses: tuple[Clause, ...]) -> tuple[Clause, ...]:
    """A thing put first, without a verb, is what the negation that takes it up denies.

    "La nota vieja-xe20, en cambio, no la he podido borrar": the note is not reported as handled.
    """
    result = list(clauses)
    after: Clause | None = None  # the next clause that is not a mere link
    for i in range(len(result) - 1, -1, -1):
        clause = result[i]
        if len(clause.text) <= MAX_LINK_CHARS and _LINK_ONLY.match(clause.text):
            continue
        if (after is not None and after.stance is Stance.NEGATED and clause.stance is Stance.AFFIRMATIVE
                and not clause.kinds and not clause.closer and len(clause.text.split()) <= MAX_ELIDED_WORDS
                and not _STATE.search(clause.text) and _TAKES_UP.match(after.text)):
            result[i] = replace(clause, stance=Stance.NEGATED, not_done=after.not_done)
        after = clause
    return tuple(result)


MAX_LINK_CHARS = 40

# A Markdown table row: "| Cancel reminder r-8080 | ❌ no reminder with that ID |".
_TABLE_ROW = re.compile(r"^\s*\|[^\n]*\|\s*$")
_CROSS_SIGNS = "❌✗✖🚫⛔"  # a sign that says a thing was not done


def _row_denied(clauses: tuple[Clause, ...]) -> tuple[Clause, ...]:
    """A table row tells one thing: a cross or a negation in one cell denies what the other cells name."""
    if not any(c.stance is Stance.NEGATED or any(sign in c.text for sign in _CROSS_SIGNS) for c in clauses):
        return clauses
    return tuple(replace(c, stance=Stance.NEGATED, not_done=True)
                 if c.stance is Stance.AFFIRMATIVE and not c.kinds and not c.closer else c for c in clauses)


def row_cells(text: str) -> list[str]:
    """The cells of a Markdown table row, or [] when `text` is no row."""
    return [cell.strip() for cell in text.strip().strip("|").split("|")] if _TABLE_ROW.match(text) else []


def _coordinated(piece: str, last_of_question: bool) -> list[Clause]:
    """A clause, or its coordinated parts where a later part makes a claim of its own.

    "I couldn't add eggs and flour" stays one negated clause; "I didn't forget and it is
    all added" is two, the second affirmative.
    """
    whole = _clause(piece, last_of_question)
    if whole.stance is not Stance.NEGATED:
        return [whole]
    masked = _QUOTED.sub(lambda m: "x" * len(m.group(0)), piece)
    parts: list[Clause] = []
    cursor = 0
    for cut in _AND.finditer(masked):
        parts.append(_clause(piece[cursor:cut.start()], False))
        cursor = cut.end()
    if not parts:
        return [whole]
    parts.append(_clause(piece[cursor:], last_of_question))
    result = [parts[0]]
    for part in parts[1:]:
        if part.stance is Stance.AFFIRMATIVE and part.kinds:
            result.append(part)
        else:
            merged = result[-1]
            # ("su EPS y su número no quedaron guardados": a verbless part shares the negation after it.)
            stance = part.stance if part.stance is Stance.NEGATED and not merged.kinds else merged.stance
            result[-1] = Clause(f"{merged.text} and {part.text}", stance, merged.kinds | part.kinds,
                                merged.closer, merged.second_person, merged.presupposed,
                                merged.everything or part.everything, merged.not_done or part.not_done,
                                merged.possible or part.possible)
    return result
