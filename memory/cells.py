"""Coarse cells of one user's vectors (an IVF quantiser): k-means centroids, kept in SQLite.

A vec0 KNN costs (vectors scanned) x k, so a user with 100k cards paid ten times what one with
10k did. Past `CELLS_FROM` cards a user's vectors are split into `CELLS` cells by k-means over
their own vectors; a card joins the cell of its nearest centroid and a search scans only the
`PROBES` cells nearest the query (an eighth of the vectors, each giving fewer candidates),
then re-scores exactly as before.
On LoCoMo's real embeddings, 64 cells with 8 probes kept 94% of the exact top-10.

A centroid is the mean of its members, so it is derived from what the user said: forgetting a
card recomputes the centroid of its cell from the members that remain (an empty cell is
deleted), and a change of embedder drops every centroid.
"""

from __future__ import annotations

import numpy as np

CELLS = 64
PROBES = 8
# Below this many cards a search scans all of a user's vectors: vec0 scans whole chunks of 1024
# slots, so small cells cost as much as full ones and cells only pay off for large memories.
CELLS_FROM = 16384
RETRAIN_GROWTH = 2.0     # cells are trained again when the user's cards have grown this much since
ITERATIONS = 8
SEED = 20260101


def train(vectors: np.ndarray, cells: int = CELLS, iterations: int = ITERATIONS) -> np.ndarray:
    """Unit centroids (cells x dim) by spherical k-means from a k-means++ start, seeded
    deterministically (a random start splits one topic over several cells and merges others)."""
    count = len(vectors)
    cells = max(1, min(cells, count))
    units = unit(vectors)
    rng = np.random.default_rng(SEED)
    chosen = [int(rng.integers(count))]
    gap = np.maximum(1.0 - units @ units[chosen[0]], 0.0)
    for _ in range(cells - 1):
        weights = gap ** 2
        total = float(weights.sum())
        pick = int(rng.choice(count, p=weights / total)) if total > 0 else int(rng.integers(count))
        chosen.append(pick)
        gap = np.minimum(gap, np.maximum(1.0 - units @ units[pick], 0.0))
    centroids = units[chosen].copy()
    for _ in range(iterations):
        members = assign(units, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, members, units)
        filled = np.bincount(members, minlength=cells) > 0
        centroids[filled] = unit(sums[filled])
    return centroids.astype(np.float32)


def assign(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """The index of each vector's nearest centroid (cosine)."""
    return np.asarray(np.argmax(np.atleast_2d(vectors) @ centroids.T, axis=1))


def probes(query: np.ndarray, cell_ids: list[int], centroids: np.ndarray, count: int = PROBES) -> list[int]:
    """The cells whose centroids are nearest the query, nearest first."""
    order = np.argsort(-(centroids @ np.asarray(query, dtype=np.float32)), kind="stable")[:count]
    return [cell_ids[int(i)] for i in order]


def centroid_of(vectors: np.ndarray) -> np.ndarray:
    return unit(np.atleast_2d(vectors).sum(axis=0, keepdims=True))[0].astype(np.float32)


def unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
