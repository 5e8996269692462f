"""Train the claim and request classifiers from the corpus in bot/core/honesty/claim_data/.

    python -m bot.core.honesty.claim_model_train

Deterministic: same corpus, same embedder, same weights (full-batch gradient descent from
zero). Prints cross-validated accuracy per head, then writes claim_model.npz.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from bot.core.honesty.claim_model import DATA_DIR, EMBEDDER, WEIGHTS, encode, sigmoid
from memory.embeddings import local_e5_model

STEPS = 2000
RATE = 0.1
L2 = 1e-2
FOLDS = 5


def read_corpus(path: Path) -> tuple[list[str], np.ndarray]:
    texts: list[str] = []
    labels: list[float] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        label, text = line.split("\t", 1)
        labels.append(float(label))
        texts.append(text.strip())
    return texts, np.asarray(labels, dtype=np.float32)


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Logistic regression, L2-regularised, classes weighted to balance.

    e5 vectors all point much the same way, so features are centred and scaled first; the
    returned weights fold that back in, to apply to raw vectors.
    """
    mean = x.mean(axis=0)
    scale = x.std(axis=0) + 1e-6
    x = (x - mean) / scale
    w = np.zeros(x.shape[1], dtype=np.float64)
    b = 0.0
    positive = max(float(y.sum()), 1.0)
    negative = max(float(len(y) - y.sum()), 1.0)
    weights = np.where(y > 0.5, len(y) / (2 * positive), len(y) / (2 * negative))
    for _ in range(STEPS):
        p = sigmoid(x @ w + b)
        error = (p - y) * weights
        w -= RATE * (x.T @ error / len(y) + L2 * w)
        b -= RATE * float(error.mean())
    raw_w = w / scale
    return raw_w.astype(np.float32), b - float(mean @ raw_w)


def cross_validated_accuracy(x: np.ndarray, y: np.ndarray) -> float:
    order = np.arange(len(y))
    correct = 0
    for fold in range(FOLDS):
        test = order % FOLDS == fold
        w, b = fit(x[~test], y[~test])
        predicted = sigmoid(x[test] @ w + b) > 0.5
        correct += int((predicted == (y[test] > 0.5)).sum())
    return correct / len(y)


def main() -> int:
    model = local_e5_model()
    heads: dict[str, np.ndarray | float] = {}
    for name, corpus in (("claim", "answers.txt"), ("request", "requests.txt")):
        texts, labels = read_corpus(DATA_DIR / corpus)
        vectors = encode(model, texts).astype(np.float64)
        accuracy = cross_validated_accuracy(vectors, labels)
        w, b = fit(vectors, labels)
        heads[f"{name}_w"], heads[f"{name}_b"] = w, b
        print(f"{name}_examples = {len(labels)}")
        print(f"{name}_cv_accuracy = {accuracy:.3f}")
    np.savez_compressed(WEIGHTS, embedder=np.asarray(EMBEDDER), **heads)  # type: ignore[arg-type]
    print(f"written = {WEIGHTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
