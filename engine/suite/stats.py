"""A suite's statistics (docs/suites.md, "Statistics"): one method throughout.

- ``interval(cells, seed, key)``: a seeded hierarchical bootstrap of a metric's mean over
  documents x repeats. ``cells``: document -> that document's per-repeat values. Each of
  ``RESAMPLES`` resamples draws the documents with replacement, then, for each document
  drawn, its repeats with replacement; the statistic is the mean over the drawn documents
  of each one's repeat mean (every document weighs the same, however many repeats it has).
  The 95% interval is the 2.5th and 97.5th percentile of the resampled statistic.
- ``paired(a, b, seed, key)``: the difference a - b of two combinations, paired by
  document: only documents both measured, the same documents drawn for both, each one's
  repeats drawn within it. Gives the interval and a two-sided bootstrap p value (twice the
  smaller share of resamples on either side of zero).
- ``holm(ps)``: Holm's step-down adjustment over the pairs compared (Holm 1979): the k-th
  smallest of m p values times (m - k + 1), made monotone, capped at 1.
- ``wilson(k, n)``: the closed-form Wilson score interval of a proportion; used only for a
  single run's rates (one document, one repeat: there is nothing to resample).

Seeds: each interval's generator is seeded from the suite's seed and a SHA-256 of what it
measures (``key``: metric and combination names), never from the order computed, so the
same seed gives the same report byte for byte, and merged shards the report one machine
gives. numpy's PCG64 generator (``numpy.random.default_rng``) is stable across versions.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

__all__ = [
    "ALPHA",
    "MIN_DOCUMENTS",
    "RESAMPLES",
    "holm",
    "interval",
    "paired",
    "wilson",
]

RESAMPLES = 2000
"""Bootstrap resamples per interval."""
ALPHA = 0.05
"""95% intervals; a ranking is at family-wise level 5% (Holm)."""
MIN_DOCUMENTS = 6
"""Fewer documents in common than this and nothing is ranked: even every document agreeing
would happen by chance more than 1 time in 20 (two-sided sign test: 2 x 0.5^5 = 6.25%
with 5 documents, 3.1% with 6); a bootstrap over so few documents is overconfident."""


def _rng(seed: int, key: str) -> np.random.Generator:
    h = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big")
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, h])


def _matrix(cells: dict[str, list[float]], docs: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Values padded with 0 to (documents, most repeats), and each document's repeat count."""
    width = max(len(cells[d]) for d in docs)
    m = np.zeros((len(docs), width))
    n = np.zeros(len(docs), dtype=np.int64)
    for i, d in enumerate(docs):
        m[i, : len(cells[d])] = cells[d]
        n[i] = len(cells[d])
    return m, n


def _resampled_means(
    m: np.ndarray, n: np.ndarray, picks: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Per resample and drawn document (``picks``: resamples x documents, indices into
    ``m``), the mean of its repeats drawn with replacement; shape as ``picks``."""
    width = m.shape[1]
    counts = n[picks]  # resamples x documents
    u = rng.random((*picks.shape, width))
    idx = np.minimum((u * counts[..., None]).astype(np.int64), width - 1)
    vals = m[picks[..., None], idx]
    mask = np.arange(width)[None, None, :] < counts[..., None]
    return np.asarray((vals * mask).sum(axis=2) / counts)


def _point(cells: dict[str, list[float]], docs: list[str]) -> float:
    return float(np.mean([np.mean(cells[d]) for d in docs]))


def interval(cells: dict[str, list[float]], seed: int, key: str) -> dict[str, Any]:
    """{"mean", "low", "high", "documents", "repeats"} of a metric's mean over documents x
    repeats (``repeats``: the most repeats any document has). ``cells`` must not be empty;
    every list in it has at least one value."""
    docs = sorted(cells)
    m, n = _matrix(cells, docs)
    rng = _rng(seed, "interval|" + key)
    picks = rng.integers(0, len(docs), size=(RESAMPLES, len(docs)))
    stat = _resampled_means(m, n, picks, rng).mean(axis=1)
    lo, hi = np.quantile(stat, [ALPHA / 2, 1 - ALPHA / 2])
    return {
        "mean": _point(cells, docs),
        "low": float(lo),
        "high": float(hi),
        "documents": len(docs),
        "repeats": int(n.max()),
        "method": "bootstrap",
    }


def paired(
    a: dict[str, list[float]],
    b: dict[str, list[float]],
    seed: int,
    key: str,
    level: float = 1 - ALPHA,
) -> dict[str, Any] | None:
    """The difference mean(a) - mean(b) over the documents both measured, paired by
    document: {"difference", "low", "high", "p", "documents", "repeats"} (``low``/``high``
    at ``level``), or None when they share no document."""
    docs = sorted(set(a) & set(b))
    if not docs:
        return None
    ma, na = _matrix(a, docs)
    mb, nb = _matrix(b, docs)
    rng = _rng(seed, "paired|" + key)
    picks = rng.integers(0, len(docs), size=(RESAMPLES, len(docs)))
    diff = _resampled_means(ma, na, picks, rng).mean(axis=1) - _resampled_means(
        mb, nb, picks, rng
    ).mean(axis=1)
    tail = (1 - level) / 2
    lo, hi = np.quantile(diff, [tail, 1 - tail])
    p = min(1.0, 2 * min(float(np.mean(diff <= 0)), float(np.mean(diff >= 0))))
    return {
        "difference": _point(a, docs) - _point(b, docs),
        "low": float(lo),
        "high": float(hi),
        "p": p,
        "documents": len(docs),
        "repeats": int(max(na.max(), nb.max())),
        "_draws": diff,
    }


def holm(ps: list[float]) -> list[float]:
    """Holm-adjusted p values, in the order given."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: (ps[i], i))
    out = [1.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * ps[i]))
        out[i] = running
    return out


def wilson(k: float, n: float, z: float = 1.959963984540054) -> tuple[float, float] | None:
    """The Wilson score interval (low, high) of k successes in n trials; None when n is 0
    (Wilson 1927; Agresti & Coull 1998)."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
