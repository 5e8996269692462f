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
    "the", "a", "an", "and", "is", "are", "my", "me", "what", "when", "where", "how", "today",
    "tomorrow", "yesterday", "can", "you", "please", "delete", "remind", "hello", "thanks", "i",
    "to", "of", "in", "on", "for", "with", "do", "did", "have", "it", "this", "that", "week",
}
_WORD = re.compile(r"[a-záéíóúñü]+")


def detect_language(text: str, configured: str = "auto", fallback: str = "en") -> str:
    """'es' or 'en'; a configured language wins; words with no sign of either ("harina", "ok",
    a name) give `fallback` (the conversation's language, when the caller knows it)."""
    if configured in ("es", "en"):
        return configured
    words = _WORD.findall(text.lower())
    if re.search(r"[ñ¿¡áéíóú]", text.lower()):
        return "es"
    spanish = sum(word in _SPANISH for word in words)
    english = sum(word in _ENGLISH for word in words)
    if spanish == english:
        return fallback
    return "es" if spanish > english else "en"
