"""Stage 3, a rewritten sentence: the sentence rewritten in place, narrowed to the span's
share (``diff``); a sentence that moved and was rewritten (``context``), found in the sentence
it became or by its context found verbatim in new text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.context import side_score
from engine.score.anchoring.records import Reanchored, _Place
from engine.score.anchoring.thresholds import (
    MOVED_SIDE_THRESHOLD,
    SURVIVING_WORD,
    TRAVELLED_CONTEXT,
)
from engine.score.anchoring.words import _passage, _shares_a_word, _snap_words, _trim

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


class StageRewritten:
    """The sentence around the quote was rewritten, in place or after a move."""

    def _rewritten_in_place(self: _Reanchor, p: _Place, rs: int, re_: int) -> Reanchored:  # type: ignore[misc]
        """A rewritten sentence (or clause) around the quote: its place survives, and the
        text now there (a long replacement narrowed to the span's estimated share) is the
        edit."""
        t2 = self.t2
        if re_ - rs > 2 * (p.e - p.s) + 40:
            # narrow to the span's estimated share of the replacement
            cs, ce = _snap_words(t2, max(rs, p.es), min(re_, max(p.ee, p.es + 1)))
            cs, ce = _trim(t2, cs, ce)
            if cs < ce:
                rs, re_ = cs, ce
        return self._edited(
            rs,
            re_,
            p.quote,
            p.prefix,
            p.suffix,
            "diff",
            "the quote's sentence was rewritten in place; the text now there",
        )

    def _moved_and_rewritten(self: _Reanchor, p: _Place, m0: int, m1: int) -> Reanchored | None:  # type: ignore[misc]
        """Nothing stands at the span's old place, but its sentence has an image elsewhere,
        ``[m0, m1)`` (mostly new text that shares its words): the sentence moved and was
        rewritten. The span is the text there between the parts of the prefix and suffix
        inside the quote's own sentence that survived (at least 4 characters of one side;
        the sentence's edge stands in for a side that is empty), at most ``2 * len(quote)
        + 40`` characters. None when neither side survived there. A verbatim copy of the
        quote there, where its surviving context puts it, is the quote moved unchanged
        (``moved``, untouched): the sentence moved and only its other words changed, or
        nothing changed."""
        t2 = self.t2
        verbatim = self._verbatim_in(p, m0, m1)
        if verbatim is not None:
            return verbatim
        p_in, s_in = p.travelling
        limit = 2 * len(p.quote) + 40
        for k in (16, 10, 6, 4):
            tail, head = p_in[-k:], s_in[:k]
            use_tail, use_head = len(tail) >= 4, len(head) >= 4
            if not (use_tail or use_head):
                return None
            left = m0
            if use_tail:
                i = t2.find(tail, m0, m1)
                if i < 0:
                    continue
                left = i + len(tail)
            right = t2.find(head, left, m1 + len(head)) if head else m1
            if right < 0:
                if use_head:
                    continue
                right = m1
            cs, ce = _trim(t2, left, right)
            if cs >= ce or ce - cs > limit:
                continue
            return self._edited(
                cs,
                ce,
                p.quote,
                p.prefix,
                p.suffix,
                "context",
                "the quote's sentence moved and was rewritten; the text now between its "
                "surviving context there",
            )
        return None

    def _verbatim_in(self: _Reanchor, p: _Place, m0: int, m1: int) -> Reanchored | None:  # type: ignore[misc]
        """A verbatim copy of the quote in the sentence its own sentence became,
        ``[m0, m1)``: new text (or the span's own), cutting no word, and a passage or with
        its context beside it. The quote's words survived there: ``moved``, untouched
        (docs/verdicts.md, "The reviewer's exact words survive"). None when there is none."""
        t2, L = self.t2, len(p.quote)
        # a quote across a sentence end (";", "al .") reaches beyond the sentence
        m0, m1 = max(0, m0 - L), min(len(t2), m1 + L)
        i = t2.find(p.quote, m0, m1)
        while i >= 0:
            if not self.v2.cuts_word(i, i + L, self.v1, p.s, p.e) and self.new_or_own(
                i, i + L, p.s, p.e
            ):
                # a passage is the quote itself; a word or two must have its context with it
                if (
                    _passage(p.quote)
                    or side_score(p.travelling, self.v2, i, i + L) >= MOVED_SIDE_THRESHOLD
                ):
                    return Reanchored(
                        i, i + L, "moved", 1.0, False, "the quoted passage moved, unchanged"
                    )
            i = t2.find(p.quote, i + 1, m1)
        return None

    def _travelled_sentence(self: _Reanchor, p: _Place) -> tuple[int, int] | None:  # type: ignore[misc]
        """Nothing stands at the span's place and no v2 sentence near it is its sentence's
        rewrite: the v2 sentence, in the diff's inserted text anywhere, that holds the part
        of the quote's prefix or suffix inside its own sentence, verbatim
        (``TRAVELLED_CONTEXT`` characters or more of it): the sentence moved, and the
        words around the quote travelled with it. None when no such copy is found, or
        more than one."""
        p_in, s_in = p.travelling
        for piece in (s_in, p_in):
            piece = piece.strip()
            if len(piece) < TRAVELLED_CONTEXT:
                continue
            hits = self.changes.find_inserted(piece, 2)
            if len(hits) == 1:
                a, b = self.v2.sentence_bounds(hits[0], hits[0] + len(piece))
                return _trim(self.t2, a, b)
        return None

    def _share_of_mapped(self: _Reanchor, p: _Place) -> tuple[int, int] | None:  # type: ignore[misc]
        """The quote's share of the mapped v2 sentence: the span's place inside its v1
        sentence, scaled to the mapped sentence and snapped to whole words; None when
        empty."""
        assert self.mapped is not None
        m0, m1 = self.mapped
        a, b = _trim(self.t1, *self.v1.sentence_bounds(p.s, p.e))
        if b <= a:
            return None
        scale = (m1 - m0) / (b - a)
        cs = m0 + round((max(p.s, a) - a) * scale)
        ce = m0 + round((min(p.e, b) - a) * scale)
        cs, ce = min(max(cs, m0), m1), min(max(ce, cs + 1), m1)
        cs, ce = _trim(self.t2, *_snap_words(self.t2, cs, ce))
        cs, ce = max(cs, m0), min(ce, m1)
        return (cs, ce) if cs < ce else None

    def _sentence_survives(self: _Reanchor, p: _Place) -> bool:  # type: ignore[misc]
        """Where the diff replaced more than the span's own place (nothing kept close
        around it), the quote's sentence still has a place: the v2 sentence it became
        (``mapped``) shares a word of ``SURVIVING_WORD`` letters or more with it (two
        characters in a row in scripts written without spaces). Shorter words (the, and,
        for) recur in any text by chance: a document rewritten from scratch shares them.
        Or the quote's block survives (its other sentences kept) and the mapped sentence lies
        mostly in that block's image: the diff joined the sentence's rewrite to a change next door
        (a paragraph deleted just before), but its place is there."""
        if self.mapped is None:
            return False
        a, b = self.v1.sentence_bounds(p.s, p.e)
        m0, m1 = self.mapped
        if _shares_a_word(self.t1[a:b], self.t2[m0:m1], SURVIVING_WORD):
            return True
        ba, bb = self._near_block(self.v1, p.s, p.e)
        if not self._block_survives(ba, bb):
            return False
        ia, ib = self.diff.image(ba, bb)
        return 2 * max(0, min(m1, ib) - max(m0, ia)) > m1 - m0  # mostly inside
