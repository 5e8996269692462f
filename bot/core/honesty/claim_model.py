"""A small classifier over sentence embeddings: does a sentence claim an action, does a message ask for one?

Two logistic regressions over multilingual-e5-small vectors (in process), trained by
`python -m bot.core.honesty.claim_model_train` on the corpus in `bot/core/honesty/claim_data/` and stored as
`claim_model.npz` there. They back up the rules in `bot.core.honesty.claims` and `bot.core.honesty.intent`
for wordings the rules do not know; they run in worker threads, never on the loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from memory.embeddings import LOCAL_E5_NAME, E5Model, embed_each, local_e5_model

DATA_DIR = Path(__file__).with_name("claim_data")
WEIGHTS = DATA_DIR / "claim_model.npz"
EMBEDDER = LOCAL_E5_NAME
MAX_TEXT_CHARS = 300  # e5's cost grows with length; a claim is said in a short sentence
READERS = 2  # requests read at once (see ClaimModel.executor)
MAX_TEXTS = 40  # sentences classified per answer: bounded time whatever the answer's length


def encode(model: E5Model, texts: Sequence[str]) -> np.ndarray:
    """Normalised query vectors of `texts` (each cut to MAX_TEXT_CHARS)."""
    if not texts:
        return np.zeros((0, model.dim), dtype=np.float32)
    matrix = np.stack(embed_each(model, [t[:MAX_TEXT_CHARS] for t in texts], True)).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-9)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


@dataclass(frozen=True)
class ClaimModel:
    """The two trained heads and the embedder they were trained on."""

    claim_w: np.ndarray
    claim_b: float
    request_w: np.ndarray
    request_b: float
    embedder: E5Model
    # Where turns read the user's request: threads of its own, so turns waiting for it never
    # hold the shared worker threads (verification, files). The e5 engine releases the GIL and
    # its model is read-only in a call: two readings run side by side on two cores, and a long
    # text in one chat does not hold up the short ones of others.
    executor: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(READERS, thread_name_prefix="claims"), compare=False, repr=False)

    @classmethod
    def load(cls, path: Path = WEIGHTS) -> ClaimModel:
        """Weights from `path` and the in-process e5 model (slow the first time: call off the loop)."""
        with np.load(path, allow_pickle=False) as data:
            if str(data["embedder"]) != EMBEDDER:
                raise ValueError(f"{path} was trained on {data['embedder']}, not {EMBEDDER}")
            return cls(data["claim_w"].astype(np.float32), float(data["claim_b"]),
                       data["request_w"].astype(np.float32), float(data["request_b"]), local_e5_model())

    def claim_probabilities(self, sentences: Sequence[str]) -> list[float]:
        """For each sentence (the first MAX_TEXTS), how likely it says an action was done."""
        texts = list(sentences[:MAX_TEXTS])
        if not texts:
            return []
        vectors = encode(self.embedder, texts)
        return [float(p) for p in sigmoid(vectors @ self.claim_w + self.claim_b)]

    def request_probability(self, message: str, vector: np.ndarray | None = None) -> float:
        """How likely the user's message asks for an action; `vector` is its e5 query vector when
        one was already made (of the same text: at most MAX_TEXT_CHARS)."""
        if vector is None:
            vector = encode(self.embedder, [message])[0]
        else:
            vector = vector / max(float(np.linalg.norm(vector)), 1e-9)
        return float(sigmoid(np.asarray(vector @ self.request_w + self.request_b)))
