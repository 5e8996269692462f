"""Lexical evidence: the words only one skill's texts use, learned from those texts."""

from __future__ import annotations

import numpy as np

from bot.core.routing.lexicon import Lexicon, Spelling, stems
from bot.core.routing.router import LEXICAL_WEIGHT, calibrate
from tests.router.test_router import request

TEXTS = ["post a tweet about the launch", "reply to that tweet", "delete my last tweet", "post it on my timeline",
         "send a message to Bob", "message Alice that I'm late", "post the file to Bob",
         "what's the weather", "tell me a joke"]
LABELS = [{"twitter"}] * 4 + [{"messages"}] * 3 + [{"weather"}, {"none"}]


def test_stems_ignore_case_accents_underscores_and_short_words() -> None:
    assert stems("Mándale el CORREO a post_tweet 2024") == {"mandal", "correo", "post", "tweet"}
    assert stems("calendario") == stems("calendar") == {"calend"}


def test_a_stem_several_texts_of_one_skill_use_is_its_evidence() -> None:
    lexicon = Lexicon.learn(TEXTS, LABELS)
    assert lexicon.evidence(stems("can you tweet this"), "twitter") == 3 / 4  # three texts, nobody else
    assert lexicon.evidence(stems("can you tweet this"), "messages") == 0.0
    # "post" is shared (two twitter texts, one message text): weaker evidence, and only for twitter.
    assert lexicon.evidence(stems("post it"), "twitter") == 2 / 4
    assert lexicon.evidence(stems("post it"), "messages") == 0.0
    assert lexicon.evidence(stems("the weather"), "weather") == 0.0  # one text is wording, not evidence


def test_an_indexed_text_is_judged_without_its_own_words() -> None:
    lexicon = Lexicon.learn(TEXTS, LABELS)
    assert lexicon.evidence(stems(TEXTS[0]), "twitter", own=frozenset(LABELS[0])) == 2 / 3
    assert lexicon.evidence(stems(TEXTS[4]), "messages", own=frozenset(LABELS[4])) == 0.0


def test_calibration_counts_what_the_words_add() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(6, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = {"a": np.asarray([0, 1, 2]), "b": np.asarray([3, 4, 5])}
    plain = calibrate(vectors, rows, 6)
    worded = calibrate(vectors, rows, 6, lexical={"a": np.ones(6, dtype=np.float32),
                                                   "b": np.zeros(6, dtype=np.float32)})
    assert abs(worded["a"] - plain["a"] - LEXICAL_WEIGHT) < 1e-6
    assert worded["b"] == plain["b"]


async def test_a_skills_own_words_add_to_its_score(make_router, available) -> None:
    router = make_router()
    text = "anything new in my feeds?"
    [vector] = router.embed([text])
    read = router.scores_for(text, vector, available)
    unread = router.scores_for("", vector, available)  # the same vector, no words to read
    assert read["news"] > unread["news"]
    assert read["agenda"] == unread["agenda"] and read["none"] == unread["none"]
    assert "news" in (await router.route(request(text), available)).skills


SPELLED = ["what's on my calendar tomorrow", "any new notifications from the server", "search my notes",
           "read my notes about the trip", "busca en mis notas", "qué dice el calendario"]


def test_a_word_one_edit_from_a_known_word_is_mended() -> None:
    spelling = Spelling.learn(SPELLED)
    assert spelling.mend("anything on my calendr tomorow?") == "anything on my calendar tomorrow?"
    assert spelling.mend("lee mis ntoas") == "lee mis notas"  # two letters swapped
    assert spelling.mend("any new notificaions") == "any new notifications"


def test_known_short_and_far_words_are_left_as_written() -> None:
    spelling = Spelling.learn(SPELLED)
    assert spelling.mend("Search my notes") == "Search my notes"  # known: case and accents kept
    assert spelling.mend("feel nots") == "feel nots"  # under five letters, too many neighbours
    assert spelling.mend("calndr 2024") == "calndr 2024"  # two edits away, numbers untouched
