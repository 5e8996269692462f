"""Chat shorthand spelled out ("q tal", "xq", "tmrw", "can u"), so rules and embeddings read the words meant.

People type to the assistant from the phone: Spanish texting drops letters ("q", "pa", "tb") and
English abbreviates ("tmrw", "pls", "u"); spoken Spanish drops the d of a participle
("anotao", "mandao"). Word lists, cues and a small embedding know the full
words only. Each shorthand here is a whole word with one meaning in a chat; ambiguous ones ("k",
"x", "d", "r") are left as typed.
"""

from __future__ import annotations

import re

_SHORTHAND = {
    # Spanish
    "q": "que", "ke": "que", "xq": "porque", "pq": "porque", "porq": "porque", "xk": "porque",
    "tb": "también", "tmb": "también", "tbn": "también", "pa": "para", "dnd": "dónde", "cdo": "cuando",
    "qdo": "cuando", "msj": "mensaje", "mñn": "mañana", "mñna": "mañana", "xfa": "por favor", "xfavor": "por favor",
    "tmpc": "tampoco",
    # Spoken spelling: "güenos" (the b said as gü; the s breathed as h is below).
    "güenos": "buenos", "güenas": "buenas", "güeno": "bueno", "güena": "buena",
    # Chile: "wena" is hello ("wena, buenos días po").
    "wena": "buenas", "wenas": "buenas", "weno": "bueno",
    # Galician beside Spanish: "q teño hoxe?", "e mañá?".
    "hoxe": "hoy", "teño": "tengo", "mañá": "mañana",
    # English
    "u": "you", "ur": "your", "pls": "please", "plz": "please", "plis": "please", "tmrw": "tomorrow",
    "tmr": "tomorrow", "tmrrw": "tomorrow", "tmw": "tomorrow", "2moro": "tomorrow", "2morrow": "tomorrow",
    "2day": "today", "2nite": "tonight", "tonite": "tonight", "msg": "message", "txt": "text", "abt": "about",
    "b4": "before", "ppl": "people", "appt": "appointment", "rmnd": "remind", "rmd": "remind", "rmind": "remind",
    # The north of England: "tomoz", "owt" (anything), "nowt" (nothing).
    "tomoz": "tomorrow", "owt": "anything", "nowt": "nothing", "nite": "night",
    # Ulster's and Scotland's "the morra" (tomorrow); Andalusia's "mu" (muy).
    "the morra": "tomorrow", "the marra": "tomorrow", "mu": "muy",
    # Pilots' and forecasters' shorthand for the weather.
    "wx": "weather",
    # Scots: "whit's it daein ootside", "that wis me", "whit set it aff", "fae the school".
    "whit": "what", "whit's": "what's", "whits": "what's", "wis": "was", "aff": "off", "fae": "from",
    "ootside": "outside", "daein": "doing",
    "anythin": "anything", "efternoon": "afternoon", "hoose": "house", "tae": "to", "dinnae": "don't",
    "cannae": "can't", "didnae": "didn't", "wouldnae": "wouldn't", "isnae": "isn't",
    "remnd": "remind", "rmbr": "remember", "rmb": "remember", "rember": "remember", "remeber": "remember",
}
_WORD = re.compile(
    rf"(?<![\w'-])(?:{'|'.join(sorted((re.escape(word) for word in _SHORTHAND), key=len, reverse=True))})(?![\w'-])",
    re.IGNORECASE)
# Spanish writes "o" as "u" before a word starting with "o" or "ho" ("siete u ocho", "uno u otro").
_SPANISH_OR = re.compile(r"\s+h?o", re.IGNORECASE)
# "2 tb" is a size, not "también".
_SIZE = re.compile(r"\d\s*$")
# A participle said without its d ("ya está anotao", "te lo dejé guardao"); words that end so are left alone.
_DROPPED_D = re.compile(
    r"(?<![\w'-])(?!(?:bacalao|cacao|sarao|callao|bilbao|macao|ciao)(?![\w'-]))([^\W\d_]{3,})ao(s?)(?![\w'-])",
    re.IGNORECASE)


# "x" for "por" before the words it goes with ("gracias x la paciencia", "una pastelería x acá"); elsewhere it
# may be a kiss ("ta for today x") or a times sign ("37 cajas x 6").
_X_FOR_POR = re.compile(r"(?<![\w'-])x(?=\s+(?:aqu[ií]|ac[aá]|all[aá]|all[ií]|ah[ií]|favor|la|el|las|los|lo|todo|toda|"
                        r"todos|eso|esto|si|fin|ejemplo|ahora|suerte|mi|tu|su|mis|tus|sus|le[ií]d[oa]s?|hecho)\b)",
                        re.IGNORECASE)


# A final s breathed and written as h in the words of a greeting: "güenos díah", "buenah tardeh".
_ASPIRATED_S = re.compile(r"(?<![\w'-])(buen[oa]|d[ií]a|tarde|noche)h(?![\w'-])", re.IGNORECASE)


def spelled_out(text: str) -> str:
    """The text with each chat shorthand word replaced by the word it stands for."""
    def replace(found: re.Match[str]) -> str:
        word = found.group(0).lower()
        if word == "u" and _SPANISH_OR.match(text, found.end()):
            return found.group(0)
        if word == "tb" and _SIZE.search(text, 0, found.start()):
            return found.group(0)
        return _SHORTHAND[word]

    text = _DROPPED_D.sub(r"\1ado\2", _WORD.sub(replace, text))
    if "x" in text or "X" in text:
        text = _X_FOR_POR.sub("por", text)
    return _ASPIRATED_S.sub(r"\1s", text) if "h" in text else text


MAX_QUESTION_CHARS = 300
"""Of an answer, the end read for the question it closes on (its last sentence, bounded)."""
_SENTENCE_END = re.compile(r"[.!?¡¿\n](?=\s)")
_TRAILING = re.compile(r"[^\w?]+$")


def closing_question(answer: str) -> str:
    """The question an answer ends on ("…sunny. Want me to remind you to take the sun cream? 🙂"), or "".

    Shared by the router (a yes takes up the skills of what was offered) and the honesty check (a yes asks
    for the action offered), so both read the same sentence.
    """
    tail = _TRAILING.sub("", answer[-MAX_QUESTION_CHARS - 20:])[-MAX_QUESTION_CHARS:]
    if not tail.endswith("?"):
        return ""
    ends = [m.end() for m in _SENTENCE_END.finditer(tail[:-1])]
    return (tail[ends[-1]:] if ends else tail).strip(" ¿")
