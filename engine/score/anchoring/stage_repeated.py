"""Stage 2a: another copy of a repeated passage, kept by the diff, that the span's v1 context
names better than the copy it came from (``context``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.context import context_score, nearest_starts
from engine.score.anchoring.records import Reanchored
from engine.score.anchoring.thresholds import CONTEXT_MARGIN, CONTEXT_THRESHOLD, REGION_REACH

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


class StageRepeated:
    """A kept copy of a repeated passage that the context names."""

    def _kept_copy_named_here(  # type: ignore[misc]
        self: _Reanchor,
        quote: str,
        prefix: str,
        suffix: str,
        s: int,
        e: int,
        es: int,
        not_span: tuple[int, int] | None,
    ) -> Reanchored | None:
        """A copy of the quote that the diff kept from *another* copy in v1, whose v2
        surroundings agree with this span's context better than with the copy it came from:
        the diff's alignment picked the wrong one of two identical passages."""
        t1, t2 = self.t1, self.t2
        L = e - s
        if not (prefix or suffix):
            return None
        best = None
        lo, hi = max(0, es - REGION_REACH), es + L + REGION_REACH
        for h in nearest_starts(t2, quote, es, 8, lo, hi):
            if (h, h + L) == not_span:
                continue
            inserted, runs = self.changes.origin(h, h + L)
            if inserted or len(runs) != 1:
                continue
            (o, o_end) = next(iter(runs))
            if t1[o:o_end] != quote or o == s:
                continue
            ours = context_score(prefix, suffix, t2, h, h + L)
            op, osf = self.ctx1(o, o_end)
            theirs = context_score(op, osf, t2, h, h + L)
            if ours >= CONTEXT_THRESHOLD and ours - theirs >= CONTEXT_MARGIN:
                if best is None or ours > best[0]:
                    best = (ours, h)
        if best is None:
            return None
        return Reanchored(
            best[1],
            best[1] + L,
            "context",
            round(best[0], 4),
            False,
            "a repeated passage: the copy this comment's context names (the diff kept the "
            "other copy's text here)",
        )
