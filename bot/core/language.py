"""Spanish or English, decided cheaply from the user's words (the two languages we reply in)."""

from __future__ import annotations

import re

_SPANISH = {
    "el", "la", "los", "las", "que", "de", "en", "y", "por", "para", "con", "una", "un", "mi",
    "me", "qué", "cómo", "cuándo", "dónde", "hoy", "mañana", "ayer", "puedes", "quiero",
    "borra", "recuérdame", "hola", "gracias", "cuando", "donde", "como", "tengo", "hay", "es",
    "del", "al", "se", "lo", "le", "mis", "tu", "sí", "no", "pero", "esta", "este", "semana",
}
_ENGLISH = {
    "the", "an", "and", "is", "are", "my", "me", "what", "when", "where", "how", "today",
    "tomorrow", "yesterday", "can", "you", "please", "delete", "remind", "hello", "thanks", "i",
    "to", "of", "in", "on", "for", "with", "do", "did", "have", "it", "this", "that", "week", "at",
    "from", "was", "will", "be", "your", "there", "not",
}
_WORD = re.compile(r"[a-záéíóúñü]+")
_SPANISH_LETTER = re.compile(r"[ñáéíóú]")


def detect_language(text: str, configured: str = "auto", fallback: str = "en") -> str:
    """'es' or 'en'; a configured language wins; words with no sign of either ("harina", "ok",
    a name) give `fallback` (the conversation's language, when the caller knows it)."""
    if configured in ("es", "en"):
        return configured
    lowered = text.lower()
    words = _WORD.findall(lowered)
    # Opening ¿ and ¡ are Spanish sentences; an accent or ñ is only one word's sign, since an English
    # message may name a Spanish street or person ("the flat on Calle Núñez").
    spanish = sum(word in _SPANISH or bool(_SPANISH_LETTER.search(word)) for word in words)
    spanish += 2 * len(re.findall(r"[¿¡]", lowered))
    english = sum(word in _ENGLISH for word in words)
    if spanish == english:
        return fallback
    return "es" if spanish > english else "en"
