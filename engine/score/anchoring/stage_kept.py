"""Stage 1: the diff kept the span as it was (``exact``), unless the kept copy's context names
another copy of a repeated passage, or the word the quote starts or ends in was replaced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.context import context_score, nearest_starts
from engine.score.anchoring.records import Reanchored
from engine.score.anchoring.thresholds import CONTEXT_MARGIN, CONTEXT_THRESHOLD, REGION_REACH
from engine.score.anchoring.words import (
    _NO_SPACE,
    _dictionary_word,
    _snap_dictionary_words,
    similarity,
)

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


class StageKept:
    """The diff kept the span: its image, the other copy's place, or the replaced edge word."""

    def _boundary_word_replaced(self: _Reanchor, s: int, e: int, b: int) -> Reanchored | None:  # type: ignore[misc]
        """The diff kept v1 ``[s, e)`` at ``b``, but the word the quote starts or ends in
        is not the same word in v2 (the quote starts inside "found", which became
        "changed": the diff keeps the shared "d"; or "cat" became "scat"): the reviewer's
        first or last word was replaced, so the span is edited, widened to the whole words
        now there. In scripts written without spaces, where a quote cuts a word of v1 by
        dictionary word breaks ("ผลไ|ม้"), that word is compared the same way. None when
        the words at both edges are the same in v1 and v2."""
        L = e - s
        t1, t2 = self.t1, self.t2
        ws, we = self.v1.snap_words(s, e)  # never past a block edge
        vs, ve = self.v2.snap_words(b, b + L)
        # Scripts without spaces: only where the quote cuts a word of v1 (dictionary word
        # breaks). A whole v1 word that v2's dictionary breaks join to new neighbours
        # ("成本新员工" -> "变更新员工" reads 更新) is not evidence enough of a new word.
        ds, de = _snap_dictionary_words(t1, s, e)
        if ds < s and b > 0 and _NO_SPACE.match(t2[b]) and _NO_SPACE.match(t2[b - 1]):
            ws, vs = min(ws, ds), min(vs, _dictionary_word(t2, b)[0])
        elif ds < s:
            ws = min(ws, ds)
        if (
            de > e
            and b + L < len(t2)
            and _NO_SPACE.match(t2[b + L - 1])
            and _NO_SPACE.match(t2[b + L])
        ):
            we, ve = max(we, de), max(ve, _dictionary_word(t2, b + L - 1)[1])
        elif de > e:
            we = max(we, de)
        if (vs, ve) == (b, b + L) and (ws, we) == (s, e):
            return None
        if self.t1[ws:we] == self.t2[vs:ve]:
            return None
        edge = "starts" if self.t1[ws:s] != self.t2[vs:b] else "ends"
        return Reanchored(
            vs,
            ve,
            "diff",
            1.0,
            False,
            f"the word the quote {edge} in was replaced (only some of its letters are left)",
            round(similarity(self.t1[s:e], self.t2[vs:ve]), 4),
        )

    def _kept_copy_names_other(self: _Reanchor, s: int, e: int, b: int) -> Reanchored | None:  # type: ignore[misc]
        """The diff kept v1 ``[s, e)`` at ``b``; if its v2 surroundings are really another
        copy's (same text elsewhere in v1, which the diff removed or changed), the verdict
        follows that copy's place, since the comment's context names that v2 text as the
        other copy's."""
        t1, t2 = self.t1, self.t2
        prefix, suffix = self.ctx1(s, e)
        L = e - s
        ours = context_score(prefix, suffix, t2, b, b + L)
        if ours >= 0.999:
            return None
        quote = t1[s:e]
        # the other copy is one the diff confused with this one: in the same changed
        # neighbourhood, not anywhere in the document
        for o in nearest_starts(t1, quote, s, 8, s - REGION_REACH, e + REGION_REACH):
            if o == s or self.diff.unchanged_image(o, o + L) is not None:
                continue
            op, osf = self.ctx1(o, o + L)
            theirs = context_score(op, osf, t2, b, b + L)
            if theirs >= CONTEXT_THRESHOLD and theirs - ours >= CONTEXT_MARGIN:
                r = self.run(o, o + L, not_span=(b, b + L))
                note = (
                    "a repeated passage: the copy this comment is on is the one that changed "
                    "(the other copy's context surrounds the unchanged text)"
                )
                return Reanchored(
                    r.start,
                    r.end,
                    r.method,
                    r.confidence,
                    r.approximate,
                    note + ("; " + r.note if r.note else ""),
                    r.similarity,
                )
        return None
