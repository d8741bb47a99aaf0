"""Stages 2b and 4: a verbatim copy of the quote that is new text in v2, in the neighbourhood
or far away (``moved``): the passage moved, unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.context import context_score, nearest_starts, side_score
from engine.score.anchoring.records import Reanchored, _Place, _top_candidate
from engine.score.anchoring.thresholds import CONTEXT_THRESHOLD, MOVED_SIDE_THRESHOLD, NEAR_HITS
from engine.score.anchoring.words import _passage

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


class StageMoved:
    """Verbatim copies of the quote in new text: the passage moved."""

    def _moved_copy(  # type: ignore[misc]
        self: _Reanchor,
        p: _Place,
        not_span: tuple[int, int] | None,
        search_far: bool,
    ) -> tuple[Reanchored | None, Reanchored | None]:
        """(moved, moved to new surroundings): a verbatim copy of the quote that is mostly
        new text in v2, taken when its context agrees (``CONTEXT_THRESHOLD``) or it lies in
        the span's neighbourhood ``[lo, hi)``; otherwise the best far copy is returned
        second. Without ``search_far`` only the neighbourhood is searched; with it, the
        diff's inserted text too (only new text can hold a moved copy; the diff's own
        moved-sentence detection, ``moved_to``, has already placed whole moved sentences).
        """
        cands = self._moved_candidates(p, not_span, search_far)
        if not cands:
            return None, None
        L = p.e - p.s
        good = [c for c in cands if c[0] >= MOVED_SIDE_THRESHOLD]
        # A copy with new neighbours counts as this passage moved only when the quote is
        # long enough not to recur by chance (a single word in a reshuffled sentence is
        # not a moved passage).
        close = [c for c in cands if p.lo <= c[1] and c[1] + L <= p.hi] if _passage(p.quote) else []
        if self.mapped is not None:
            # Without the context that travels with a moved passage, a copy in a neighbour
            # sentence is the same words recurring there, not this passage: only a copy in
            # the sentence the quote's own sentence became counts.
            m0, m1 = self.mapped
            close = [c for c in close if m0 <= c[1] and c[1] + L <= m1]
        pool = good or close
        if pool:
            return self._moved_or_own_place(p, pool, bool(good)), None
        if not search_far or not _passage(p.quote):
            return None, None
        top, ties = _top_candidate(cands, p.es)
        return None, Reanchored(
            top[1],
            top[1] + L,
            "moved",
            round(1.0 / ties, 4),
            False,
            "the quoted passage moved, unchanged, to a place with new surroundings",
        )

    def _moved_candidates(  # type: ignore[misc]
        self: _Reanchor,
        p: _Place,
        not_span: tuple[int, int] | None,
        search_far: bool,
    ) -> list[tuple[float, int]]:
        """(agreement of the context that travelled with it, v2 start) of every verbatim
        copy of the quote that is mostly new text and cuts no word: in the neighbourhood,
        and with ``search_far`` in the diff's inserted text too."""
        t2 = self.t2
        s, e, L = p.s, p.e, p.e - p.s
        cands: list[tuple[float, int]] = []
        near = nearest_starts(t2, p.quote, p.es, NEAR_HITS, p.lo, p.hi)
        far = (
            [h for h in self.changes.find_inserted(p.quote) if h not in near] if search_far else []
        )
        for h in near + far:
            if (h, h + L) == not_span:
                continue
            if not self.new_or_own(h, h + L, s, e) or self.v2.cuts_word(h, h + L, self.v1, s, e):
                continue
            # A moved passage has new neighbours on at least one side: the side that
            # travelled with it (within its own sentence) is the evidence.
            ctx = side_score(p.travelling, self.v2, h, h + L)
            cands.append((ctx, h))
        return cands

    def _moved_or_own_place(  # type: ignore[misc]
        self: _Reanchor,
        p: _Place,
        pool: list[tuple[float, int]],
        by_context: bool,
    ) -> Reanchored:
        """The best copy of ``pool``: the quote moved (``moved``), or, when both sides of
        its context agree and it lies at the span's own place inside a larger region the
        diff replaced, not a move at all (``context``)."""
        L = p.e - p.s
        top, ties = _top_candidate(pool, p.es)
        ms, me = self.diff.image(p.s, p.e)
        # both sides agree (not just the one that travels with a moved sentence)
        both = context_score(p.prefix, p.suffix, self.t2, top[1], top[1] + L)
        if (
            both >= CONTEXT_THRESHOLD
            and ms <= top[1]
            and top[1] + L <= me
            and (abs(top[1] - p.es) <= L + 16)
        ):
            # its own place, inside a larger region the diff replaced: not a move
            return Reanchored(
                top[1],
                top[1] + L,
                "context",
                round(both / ties, 4),
                False,
                "unchanged, inside a larger region the diff replaced; found by its context",
            )
        how = "found by its context" if by_context else "found in its own neighbourhood"
        return Reanchored(
            top[1],
            top[1] + L,
            "moved",
            round(1.0 / ties, 4),
            False,
            f"the quoted passage moved, unchanged; {how}",
        )
