"""Words that only one skill's texts use: lexical evidence beside the embedding's.

A small multilingual embedding blurs the objects a request names ("the tweet", "la factura",
"my feeds") into the general shape of a request, so requests that differ in one noun score
alike. The router's own texts (examples, summaries, tool descriptions) already say which
words belong to which skill: a word stem that several texts of one skill use and other
labels' texts do not is evidence for that skill when a message uses it. Learned from the
texts alone, so a skill installed from a package brings its words with it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

# Words shorter than this are function words in both languages ("the", "que", "for", "mis").
MIN_LETTERS = 4
# Stems: "correo"/"correos", "calendar"/"calendario", "tweet"/"tweets" share their first letters.
STEM_LETTERS = 6
# A stem one text uses once is an accident of wording, not what the skill is about.
MIN_TEXTS = 2
# Smoothing: a stem with few texts behind it is weaker evidence than one with many.
PRIOR_TEXTS = 1.0

_WORD = re.compile(r"[a-z0-9]+")


def stems(text: str) -> frozenset[str]:
    """The message's word stems: lower case, no accents, underscores split, numbers left out."""
    decomposed = unicodedata.normalize("NFKD", text.lower().replace("_", " "))
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return frozenset(word[:STEM_LETTERS] for word in _WORD.findall(plain)
                     if len(word) >= MIN_LETTERS and not word.isdigit())


@dataclass(frozen=True)
class Lexicon:
    """Per stem, how many texts of each label use it; evidence is the share that is the skill's."""

    per_label: Mapping[str, Mapping[str, int]]  # stem -> label -> texts using it
    totals: Mapping[str, int]  # stem -> texts using it, whatever their label

    @classmethod
    def learn(cls, texts: Sequence[str], labels: Sequence[Iterable[str]]) -> Lexicon:
        per_label: dict[str, dict[str, int]] = {}
        totals: dict[str, int] = {}
        for text, label in zip(texts, labels, strict=True):
            for stem in stems(text):
                totals[stem] = totals.get(stem, 0) + 1
                counts = per_label.setdefault(stem, {})
                for skill in label:
                    counts[skill] = counts.get(skill, 0) + 1
        return cls(per_label, totals)

    def evidence(self, found: frozenset[str], skill: str, own: frozenset[str] | None = None) -> float:
        """0..1: how surely the stems `found` name `skill`'s objects (its most specific stem).

        `own` is the label of the text `found` came from when that text is itself indexed:
        its own counts are left out, so a written example is judged as a new message would be.
        """
        best = 0.0
        for stem in found:
            counts = self.per_label.get(stem)
            if not counts:
                continue
            mine = counts.get(skill, 0)
            total = self.totals[stem]
            if own is not None:
                mine -= skill in own
                total -= 1
            if mine >= MIN_TEXTS:
                best = max(best, mine / (total + PRIOR_TEXTS))
        return best


# A word this short has too many neighbours one edit away ("feel"/"feed", "main"/"mail").
MIN_SPELLED = 5
_TEXT_WORD = re.compile(r"\w+", re.UNICODE)


def _plain(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def _one_edit(a: str, b: str) -> bool:
    """Whether one insertion, deletion, substitution or swap of neighbours turns a into b."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        return len(differ) == 1 or (len(differ) == 2 and differ[1] == differ[0] + 1
                                    and a[differ[0]] == b[differ[1]] and a[differ[1]] == b[differ[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def everyday_words(languages: Iterable[str]) -> frozenset[str]:
    """The words in everyday use in these languages (wordfreq's short lists), without accents or case.

    Slow to load for a turn (a fifth of a second): read when the router's index is built.
    """
    from wordfreq import get_frequency_dict  # imported here: only the index build needs it

    return frozenset(_plain(word) for language in languages
                     for word in get_frequency_dict(language, wordlist="small") if word.isalpha())


@dataclass(frozen=True)
class Spelling:
    """The words of the router's own texts, so a typed slip ("calendrio", "emial", "notificaciones"
    without its second i) still names the object it meant: cues and word evidence read the mended text.

    A word the texts know is never changed, nor is a real word of everyday use the texts lack ("judge"
    is no slip for "nudge", nor "acaba" for "acabo"); an unknown one becomes the known word one edit
    away (the most used one when several are). Words are compared without accents or case.
    """

    counts: Mapping[str, int]  # known word -> how many texts use it
    neighbours: Mapping[str, tuple[str, ...]]  # a known word, or one with a letter deleted -> known words
    real: frozenset[str] = frozenset()  # words in everyday use, left as written

    @classmethod
    def learn(cls, texts: Iterable[str], real: frozenset[str] = frozenset()) -> Spelling:
        counts: dict[str, int] = {}
        for text in texts:
            for word in {_plain(found) for found in _TEXT_WORD.findall(text)}:
                if len(word) >= MIN_SPELLED - 1 and word.isalpha():
                    counts[word] = counts.get(word, 0) + 1
        neighbours: dict[str, set[str]] = {}
        for word in counts:
            for key in {word, *_deletions(word)}:
                neighbours.setdefault(key, set()).add(word)
        return cls(counts, {key: tuple(sorted(found)) for key, found in neighbours.items()}, real)

    def word(self, word: str) -> str:
        plain = _plain(word)
        if len(plain) < MIN_SPELLED or plain in self.counts or plain in self.real or not plain.isalpha():
            return word
        candidates = {known for key in {plain, *_deletions(plain)} for known in self.neighbours.get(key, ())
                      if _one_edit(plain, known)}
        if not candidates:
            return word
        return max(sorted(candidates), key=lambda known: self.counts[known])

    def mend(self, text: str) -> str:
        """The text with each unknown word replaced by the known word it most likely meant."""
        return _TEXT_WORD.sub(lambda found: self.word(found.group(0)), text)
