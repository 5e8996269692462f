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
