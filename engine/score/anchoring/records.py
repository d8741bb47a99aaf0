"""What re-anchoring returns (``Reanchored``) and the state of one span being re-anchored
(``_Place``).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.vocabulary import Method


@dataclass(frozen=True)
class Reanchored:
    """Where a v1 span is in v2. ``start``/``end`` None means the quote is gone.

    ``confidence``: how sure the place is, in [0, 1]. ``similarity``: Indel similarity of
    the v1 quote and the v2 text, or None where none was measured."""

    start: int | None
    end: int | None
    method: Method  # exact | moved | context | fuzzy | diff | none
    confidence: float
    approximate: bool
    note: str = ""
    similarity: float | None = None


@dataclass(frozen=True)
class _Place:
    """One span being re-anchored: the quote and its v1 context, v1 ``[s, e)``, its
    estimated v2 place ``[es, ee)``, the diff's image ``[ms, me)``, the neighbourhood
    ``[lo, hi)`` searched, whether the replaced region is the span's own place, and the
    parts of its context inside its own sentence and block (``travelling_context``)."""

    quote: str
    prefix: str
    suffix: str
    s: int
    e: int
    es: int
    ee: int
    ms: int
    me: int
    lo: int
    hi: int
    local: bool
    travelling: tuple[str, str]


def _top_candidate(cands: list[tuple[float, int]], es: int) -> tuple[tuple[float, int], int]:
    """The best (score, v2 start) of ``cands`` (then the nearest to ``es``) and how many
    share its score."""
    top = max(cands, key=lambda c: (round(c[0], 3), -abs(c[1] - es)))
    return top, sum(1 for c in cands if round(c[0], 3) == round(top[0], 3))
