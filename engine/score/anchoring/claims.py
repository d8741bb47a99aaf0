"""Which v1 sentence a v2 sentence is the rewrite of, where two claim it: the one whose
words and kept text it shares most, a tie going to neither (docs/verdicts.md, "The sentence
a rewritten sentence became" and "Equal copies").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.changes import _substantial
from engine.score.anchoring.sentences import _sentence_bounds
from engine.score.anchoring.thresholds import (
    FUZZY_WINDOW,
    KEPT_GAP,
    KEPT_SHARE,
    NEAR_COPY,
    REGION_REACH,
)
from engine.score.anchoring.words import _content_words, _has_alnum, _set_dice, _trim, similarity

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor

_TIE = 1e-9  # two image scores this close are a tie (the same sums in another order)


class Claims:
    """Two v1 sentences that claim one v2 sentence."""

    def _claimed_by_a_neighbour(self: _Reanchor, p0: int, p1: int, m: tuple[int, int]) -> bool:  # type: ignore[misc]
        """v2 sentence ``m``, the image of v1 sentence ``[p0, p1)``, is more like another v1
        sentence of the same replaced region whose image it also is: one v2 sentence is the
        rewrite of one v1 sentence, the one whose words and kept text it shares most
        (``_image_score``). A sentence of another block (within ``FUZZY_WINDOW``) claims it
        only where ``m`` lies more in the diff's image of that block than of this one
        (``_more_in_image_of``). Answered once per pair for each ``(p0, p1, m)``
        (``ChangeIndex.claimed``): comments on one rewritten passage ask it again."""
        key = (p0, p1, m)
        hit = self.changes.claimed.get(key)
        if hit is None:
            hit = self.changes.claimed[key] = self._claimed_now(p0, p1, m)
        return hit

    def _claimed_now(self: _Reanchor, p0: int, p1: int, m: tuple[int, int]) -> bool:  # type: ignore[misc]
        """``_claimed_by_a_neighbour``, worked out."""
        if self.changes.region(p0, p1) is None:
            return False
        t1 = self.t1
        mine = self._image_score(p0, p1, m)
        # the sentences whose images can reach ``m`` (``_sentence_candidates``' window), in
        # its block and the blocks beside it: a paragraph deleted beside one rewritten is
        # one replaced region for the diff, and the rewrite is the neighbour's
        ba, bb = self.v1.block(p0, p1)
        lo, hi = _sentence_bounds(
            t1, max(0, p0 - FUZZY_WINDOW), p1 + FUZZY_WINDOW, reach=FUZZY_WINDOW
        )
        # and the sentences of the replaced region whose estimated place lies within
        # FUZZY_WINDOW of m (the diff may replace a long sentence by a short one: its
        # neighbour then lies far from it in v1 and next to m in v2)
        region = self.changes.region(p0, p1)
        if region is not None and region[3] > region[2]:
            a0, a1, b0, b1 = region
            scale = (a1 - a0) / (b1 - b0)
            lo = min(lo, max(a0, a0 + round((m[0] - FUZZY_WINDOW - b0) * scale)))
            hi = max(hi, min(a1, a0 + round((m[1] + FUZZY_WINDOW - b0) * scale)))
            lo, hi = self.v1.whole_sentences(lo, hi, reach=0)
        for q0, q1 in self.v1.sentence_pieces(lo, hi):
            q0, q1 = _trim(t1, q0, q1)
            if q1 <= p0 or q0 >= p1:
                if q0 < q1 and _has_alnum(t1[q0:q1]):
                    fewer, same = self._content_shared(q0, q1, p0, p1, m)
                    if fewer:
                        continue  # its words there are some of ours: only shorter, or short
                    if not same and self._score_on(q0, q1, m) < mine - _TIE:
                        continue  # it cannot claim m, whatever its image (cheap first)
                    if (q1 <= ba or q0 >= bb) and not self._more_in_image_of(q0, q1, ba, bb, m):
                        continue
                    img = self._sentence_image(q0, q1, q0, q1, strict=False)
                    if img is not None and img[0] < m[1] and m[0] < img[1]:
                        theirs = self._image_score(q0, q1, img)
                        if same or abs(theirs - mine) <= _TIE:
                            if self._tie_goes_to(q0, q1, p0, p1, m):
                                return True
                        elif theirs > mine:
                            return True
        return False

    def _content_shared(  # type: ignore[misc]
        self: _Reanchor, q0: int, q1: int, p0: int, p1: int, m: tuple[int, int]
    ) -> tuple[bool, bool]:
        """How the content words (``_content_words``) that v1 sentences ``[q0, q1)`` and
        ``[p0, p1)`` share with v2 sentence ``m`` compare, as (fewer, no more): ``[q0, q1)``
        shares only some of ``[p0, p1)``'s, or ``[p0, p1)`` shares none that ``[q0, q1)``
        does not. Where one sentence's content words there are among the other's, a higher
        Dice comes from its length and its short words alone, no evidence of which one ``m``
        rewrites (two sentences whose only words in ``m`` are the citation both end with,
        one of them also the sentence-final "हैं" of nearly every Hindi sentence): that one
        cannot claim ``m`` over the other on words, and with the same content words the
        two are a tie (``_tie_goes_to``)."""
        wm = _content_words(self.changes.words_of(self.t2, m[0], m[1]))
        wq = self.changes.v1_words(self.t1, q0, q1) & wm
        wp = self.changes.v1_words(self.t1, p0, p1) & wm
        return wq < wp, wp <= wq

    def _tie_goes_to(  # type: ignore[misc]
        self: _Reanchor, q0: int, q1: int, p0: int, p1: int, m: tuple[int, int]
    ) -> bool:
        """Two v1 sentences whose words are as much like v2 sentence ``m`` (a tie of
        ``_image_score``): ``m`` is ``[q0, q1)``'s over ``[p0, p1)``'s where more of its
        kept text, counted however short (``_evidence_runs``: the diff's alignment is in
        order) but only where it touches a content word, lies inside ``m``; and it is
        neither one's where neither has any there ("This is not …" and "Employment and
        service … of use." revised to "This orchard river meadow of use.": "This" against a
        chance " of use.", F1000RD 9-295).
        Before that, a near copy of one of the two by characters (``NEAR_COPY``) is that
        one's edit: a letter changed is no rewrite of the other.
        With nothing to tell the two apart, no sentence is credited with the rewrite: a
        deleted sentence read as the rewrite is the worst error (two sentences of as many
        characters sharing only their citation, one deleted: docs/verdicts.md, "Equal
        copies")."""

        text = self.t2[m[0] : m[1]]
        near_theirs = similarity(self.t1[q0:q1], text) >= NEAR_COPY
        if near_theirs != (similarity(self.t1[p0:p1], text) >= NEAR_COPY):
            return near_theirs  # a near copy of one of them is that one's edit (``NEAR_COPY``)
        theirs = self._evidence_in(q0, q1, m, content=True)
        mine = self._evidence_in(p0, p1, m, content=True)
        return theirs > mine or theirs == mine == 0

    def _more_in_image_of(  # type: ignore[misc]
        self: _Reanchor, q0: int, q1: int, ba: int, bb: int, m: tuple[int, int]
    ) -> bool:
        """v2 sentence ``m`` lies more in the diff's image of the v1 block holding
        ``[q0, q1)`` than in the image of block ``[ba, bb)``: a sentence of another block
        claims ``m`` only where the blocks say so, block for block (a v2 paragraph in that
        block's place). Inside a v2 block that merges the two, holding kept text of each
        (``_evidence_in`` against the other: a rewrite across the paragraph break), this
        holds only where each of the two blocks keeps a sentence whole
        (``_keeps_a_sentence``); else the words alone do not tell. A v2 block of several
        sentences that keeps text of one block alone is that block's ("Dogs want runs (
        Powell, 2015; Smaglik, 2016)." cut at its semicolon, the paragraph after it deleted
        with the break before it)."""
        qa, qb = self.v1.block(q0, q1)
        vb = _trim(self.t2, *self.v2.block(*m))
        if (
            m != vb
            and self._evidence_in(qa, qb, vb)
            and self._evidence_in(ba, bb, vb)
            and not (self._keeps_a_sentence(qa, qb) and self._keeps_a_sentence(ba, bb))
        ):
            return False

        def overlap(i0: int, i1: int) -> int:
            return max(0, min(m[1], i1) - max(m[0], i0))

        def inside(a: int, b: int) -> tuple[int, int]:
            # first the block's kept text inside m that touches a content word, less what
            # an alignment of equal cost keeps from a copy elsewhere (``_evidence_in``: two
            # paragraphs that end, or share a clause, alike, the second deleted, where the
            # diff kept its copy at the first's rewrite); then, between equals, the diff's
            # image of the block there, less the copies alone (a rewrite that kept only
            # short words is still in its own block's image)
            kept = sum(overlap(y0, y0 + x1 - x0) for x0, x1, y0 in self.changes.kept_runs(a, b))
            copies = kept - self._evidence_in(a, b, m)
            return self._evidence_in(a, b, m, content=True), overlap(
                *self.diff.image(a, b)
            ) - copies

        return inside(qa, qb) >= inside(ba, bb)

    def _keeps_a_sentence(self: _Reanchor, a: int, b: int) -> bool:  # type: ignore[misc]
        """v1 block ``[a, b)`` has a sentence the diff kept whole (within ``REGION_REACH``
        of its edges, so the cost stays bounded): the diff's image of the block is anchored
        by text that stayed, and a v2 block that merges it with its neighbour is read block
        for block. Where every sentence was rewritten, the images are estimates, and the
        words alone do not tell."""
        hit = self.changes.keeps_a_sentence.get((a, b))
        if hit is None:
            hit = self.changes.keeps_a_sentence[(a, b)] = self._find_kept_sentence(a, b)
        return hit

    def _find_kept_sentence(self: _Reanchor, a: int, b: int) -> bool:  # type: ignore[misc]
        """``_keeps_a_sentence``, computed."""
        t1 = self.t1
        spans = [(a, min(b, a + REGION_REACH))]
        if b - a > REGION_REACH:
            spans.append((max(a + REGION_REACH, b - REGION_REACH), b))
        for lo, hi in spans:
            for q0, q1 in self.v1.sentence_pieces(*self.v1.whole_sentences(lo, hi, reach=0)):
                q0, q1 = _trim(t1, q0, q1)
                if q1 - q0 >= KEPT_GAP and a <= q0 and q1 <= b:
                    if self.diff.unchanged_image(q0, q1) is not None:
                        return True
        return False

    def _score_on(self: _Reanchor, q0: int, q1: int, m: tuple[int, int]) -> float:  # type: ignore[misc]
        """``_image_score`` of v1 sentence ``[q0, q1)`` for v2 sentence ``m``, computed
        directly (without its candidates): its words against ``m``'s, and the share of its
        kept text inside ``m``."""
        kept = [(y0, y0 + x1 - x0) for x0, x1, y0 in self._evidence_runs(q0, q1)]
        if not self._kept_counts(q0, q1):
            kept = []
        total = sum(b - a for a, b in kept) or 1
        share = sum(max(0, min(b, m[1]) - max(a, m[0])) for a, b in kept) / total
        words = self.changes.words_of(self.t2, m[0], m[1])
        return _set_dice(self.changes.v1_words(self.t1, q0, q1), words) + KEPT_SHARE * share

    def _kept_counts(self: _Reanchor, p0: int, p1: int) -> bool:  # type: ignore[misc]
        """v1 sentence ``[p0, p1)``'s kept text (the diff's equal runs) is ``KEPT_GAP``
        characters or more in all, so it counts when two sentences claim one v2 sentence: a
        few letters the diff kept of a sentence deleted (" have ") are chance, and do not
        make it the owner of the sentence they landed in. (Choosing a sentence's own image,
        any kept text still counts: the diff's alignment is in order.)"""
        hit = self.changes.kept_enough.get((p0, p1))
        if hit is None:
            runs = self._evidence_runs(p0, p1)
            hit = _substantial("".join(self.t1[x0:x1] for x0, x1, _y in runs))
            self.changes.kept_enough[(p0, p1)] = hit
        return hit
