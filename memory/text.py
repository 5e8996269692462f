"""Small text helpers shared by the layers: FTS5 query building, normalised keys, stopwords."""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WORD = re.compile(r"\w+", re.UNICODE)

# English and Spanish function words: they only add noise to an OR query.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves ever also did does
s t don didn doesn isn wasn aren weren ve ll re d m o y let lets get got gets
el la los las un una unos unas lo le les de del al y e o u ni que en con por para sin sobre
entre hasta desde es son era eran fue fueron ser estar esta este estos estas esto eso esa ese
esos esas aquel mi mis tu tus su sus nuestro nuestra me te se nos os yo tú él ella ellos
ellas nosotros vosotros usted ustedes qué cuál cuáles quién quiénes cómo cuándo dónde cuánto
muy más menos ya no sí también pero como si cuando donde porque pues he has ha hemos han
había hay fui era soy eres somos está están estoy estás hace hizo tengo tiene tienen tenía
""".split())


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def content_words(text: str) -> list[str]:
    """Words that carry meaning, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in words(text):
        if word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            seen.setdefault(word, None)
    return list(seen)


def owner_token(user_key: str) -> str:
    """One FTS token per user (a hash: user keys contain separators the tokenizer splits on)."""
    return "u" + hashlib.sha256(user_key.encode("utf-8")).hexdigest()[:32]


MAX_QUERY_TERMS = 32
"""Words one keyword search may OR together: a pasted page would otherwise make a query that
holds the one database thread (every chat's) for seconds. The longest, most specific words stay."""


def fts_query(text: str, user_key: str, column: str) -> str | None:
    """An FTS5 query: this user's rows whose `column` has any content word (each quoted)."""
    terms = content_words(text)
    if len(terms) > MAX_QUERY_TERMS:
        terms = sorted(terms, key=len, reverse=True)[:MAX_QUERY_TERMS]
    if not terms:
        return None
    either = " OR ".join(f'"{term}"' for term in terms)
    return f'owner : "{owner_token(user_key)}" AND {column} : ({either})'


def normalise_key(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form: the same fact written twice matches."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    stripped = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(_WORD.findall(stripped))


# Half of a UTF-16 surrogate pair (half an emoji, cut by a server, a proxy or a client's JSON
# escape): no UTF-8 exists for it, so neither SQLite nor a messenger would take the text.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD, so it can be stored and sent."""
    return _LONE_SURROGATE.sub("\ufffd", text)
