"""What may never be a span's new place (docs/verdicts.md): text kept from elsewhere in v1,
another block's text or image, a neighbour's rewrite, a v2 span that crosses a block or cuts
a word or number the v1 span did not. ``admits`` is asked by every stage of the span's
place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.diff.tokens import _CLOSERS
from engine.score.anchoring.changes import _substantial
from engine.score.anchoring.index import TextIndex, same_words
from engine.score.anchoring.records import Reanchored, _Place
from engine.score.anchoring.sentences import _sentence_bounds
from engine.score.anchoring.thresholds import FUZZY_WINDOW, REGION_REACH
from engine.score.anchoring.words import (
    _content_words,
    _has_alnum,
    _trim,
    _word_dice,
    holds_nothing_of,
)
from engine.text.sentence_stops import SENTENCE_TERMINATORS

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


_FULL_STOPS = frozenset(SENTENCE_TERMINATORS)


def _a_whole_sentence(text: str) -> bool:
    """``text`` ends in a full stop (``SENTENCE_TERMINATORS``, before any closing marks): a
    sentence, not a clause cut at a colon or semicolon."""
    return text.rstrip(_CLOSERS)[-1:] in _FULL_STOPS


class Gates:
    """The rules every new place of a span must pass."""

    def admits(self: _Reanchor, r: Reanchored, p: _Place) -> bool:  # type: ignore[misc]
        """``r`` may be the new place of v1 span ``[p.s, p.e)`` (docs/verdicts.md, "What
        may never be a span's new place"): it is not text the diff kept unchanged from
        elsewhere in v1, kept or moved (``new_here``); none of its kept text comes from beyond the
        span's own v1 block(s); the v2 block it lies in is not another v1 block's image
        (kept text from v1, none of it from the span's own block); it crosses no block
        boundary the v1 span did not cross; and it cuts no word or number the v1 span did
        not cut; and it stays between the sentences the diff kept on either side of the
        quote's, or lies in the sentence it became (``_past_kept_neighbours``). Before all
        that, it shows a reader no less than the quote did
        (``holds_nothing_of``: a word where the quote had one). A gone answer (no span) is
        always admitted."""
        if r.start is None or r.end is None:
            return True
        cs, ce = r.start, r.end
        if holds_nothing_of(p.quote, self.t2[cs:ce]):
            return False  # nothing a reader sees is no rewrite (docs/verdicts.md, "Not nothing")
        if not self.new_here(cs, ce, p.s, p.e):
            return False
        if self._past_kept_neighbours(cs, ce, p) or self._past_rewritten_neighbours(cs, ce, p):
            return False
        if self._only_a_join(cs, ce, p) or self._in_a_shared_place(cs, ce, p):
            return False
        a, b = self._near_block(self.v1, p.s, p.e)
        t1 = self.t1
        # kept text shorter than KEPT_GAP is chance (a shared "3. " or " the "), not a
        # block's surviving text
        _inserted, runs = self.changes.origin(cs, ce)
        if _substantial("".join(t1[r0:r1] for r0, r1 in runs if r1 <= a or r0 >= b)):
            return False
        # the v2 block around the candidate (FUZZY_WINDOW each way: where its text came from)
        v2_block = self._near_block(self.v2, cs, ce, FUZZY_WINDOW)
        _inserted, runs = self.changes.origin(*v2_block)
        own = "".join(t1[max(r0, a) : min(r1, b)] for r0, r1 in runs if r0 < b and r1 > a)
        others = [(r0, r1) for r0, r1 in runs if r1 <= a or r0 >= b]
        if _substantial(self._others_text(others, a, b)) and not _substantial(own):
            return False  # another block's image
        if not self._block_survives(a, b):
            # The span's block is gone as kept text: the v2 block is its rewrite only if
            # it is more like it, word for word, than like the block(s) whose kept text
            # it holds (a paragraph deleted before a rewritten heading is not the heading),
            # or than like a neighbouring block that is gone too and whose image it also
            # is (a paragraph deleted and the heading after it rewritten: the diff
            # replaces both with the new heading; a tie is no evidence, and is not taken)
            text2 = self.t2[v2_block[0] : v2_block[1]]
            mine = _word_dice(t1[a:b], text2)
            for r0, r1 in others:
                o0, o1 = self._near_block(self.v1, r0, r1)
                if _word_dice(t1[o0:o1], text2) > mine:
                    return False
            for o0, o1 in self._gone_neighbour_blocks(a, b, v2_block):
                if _word_dice(t1[o0:o1], text2) >= mine:
                    return False
        if (
            self.v2.crosses(cs, ce)
            and not self.v1.crosses(p.s, p.e)
            and not same_words(self.v1, p.s, p.e, self.v2, cs, ce)
        ):
            return False  # (a paragraph split inside the quote, its words unchanged, may)
        if self.v2.cuts_word(cs, ce, self.v1, p.s, p.e):
            return False
        if self._sentence_was_in_v1(cs, ce, p):
            return False
        return self.mapped is not None or not self._a_neighbours_image(cs, ce, p)

    def _others_text(self: _Reanchor, others: list[tuple[int, int]], a: int, b: int) -> str:  # type: ignore[misc]
        """The text of kept v1 runs ``others`` (outside block ``[a, b)``), less each run's
        head or tail that an alignment of equal cost keeps from a copy inside the block
        (``ChangeIndex.equal_copies``): two blocks that begin alike ("Hi {{FirstName}},
        thanks for joining …" and "Hi, thanks for joining …"), the first deleted, where the
        diff kept the first one's ", thanks for " at the second's rewrite, leave the
        rewrite the second's (docs/verdicts.md, "Equal copies")."""
        t1, parts = self.t1, []
        for r0, r1 in others:
            head, tail = self.changes.copies_inside(r0, r1, a, b)
            if r0 + head < r1 - tail:
                parts.append(t1[r0 + head : r1 - tail])
        return "".join(parts)

    def _past_kept_neighbours(self: _Reanchor, cs: int, ce: int, p: _Place) -> bool:  # type: ignore[misc]
        """``[cs, ce)`` lies past a sentence the diff kept from the other side of the
        quote's sentence(s) (``KeptNeighbours._between_kept_neighbours``) and outside the sentence
        the quote's became (``mapped``, which passed ``MOVED_REWRITE_DICE`` to lie there):
        a new sentence added two sentences on, or a fuzzy likeness there, is no rewrite."""
        a, b = self.v1.sentence_bounds(p.s, p.e)
        if not self._beyond_kept_neighbours(a, b, cs, ce):
            return False
        m = self.mapped
        return m is None or not (m[0] <= cs and ce <= m[1])

    def _past_rewritten_neighbours(self: _Reanchor, cs: int, ce: int, p: _Place) -> bool:  # type: ignore[misc]
        """``[cs, ce)`` lies before all that stands in v2 of the rewritten sentence before
        the quote's, or after all of the one after it (``KeptNeighbours._out_of_order``), and
        outside the sentence the quote's became (``mapped``, chosen in order): a likeness
        found past the join of the two sentences around a deleted one is no rewrite of
        it."""
        m = self.mapped
        if m is not None and m[0] <= cs and ce <= m[1]:
            return False
        a, b = self.v1.sentence_bounds(p.s, p.e)
        c0, c1 = _trim(self.t2, *self.v2.sentence_bounds(cs, ce))
        own = self.changes.v1_words(self.t1, a, b)
        return self._out_of_order(a, b, cs, ce, own, self.changes.words_of(self.t2, c0, c1))

    def _only_a_join(self: _Reanchor, cs: int, ce: int, p: _Place) -> bool:  # type: ignore[misc]
        """``[cs, ce)`` lies inside one v2 sentence between what stands there of the
        sentences before and after the quote's (``KeptNeighbours._neighbour_extents``), and
        shares no content word with the quote's sentence nor holds its kept text: the two
        neighbours were joined, and ``[cs, ce)`` is the join ("… identified previously 3
        while it has been shown …", the sentence "Tilorone is …" between them deleted: the
        diff's place for it is "while it"). A rewrite into the join keeps some of its words
        ("The budget rose while staff numbers fell in April.")."""
        a, b = self.v1.sentence_bounds(p.s, p.e)
        if self._evidence_in(a, b, (cs, ce), content=True):
            return False
        t2 = self.t2
        own = _content_words(self.changes.v1_words(self.t1, a, b))
        if own & self.changes.words_of(t2, *_trim(t2, cs, ce)):
            return False
        before, after = self._neighbour_extents(a, b)
        if before is None or after is None:
            return False
        s0, s1 = _trim(t2, *self.v2.sentence_bounds(cs, ce))
        return s0 < before[1] <= cs and ce <= after[0] < s1

    def _in_a_shared_place(self: _Reanchor, cs: int, ce: int, p: _Place) -> bool:  # type: ignore[misc]
        """``[cs, ce)`` lies in what the diff put in the place of the quote's sentence and
        of another whole v1 sentence of its block, one with a content word of which nothing
        stands in v2 (``_extent``), and its v2 sentence shares no content word with the
        quote's sentence nor holds a letter or digit of its kept text: the diff put one text
        in the place of two sentences, so its place says nothing of which one it is, and the
        quote's own words do not make it the quote's ("बजट पिछले साल दस प्रतिशत बढ़ा। मार्च में
        कर्मचारियों की संख्या तेज़ी से गिरी।" replaced by "मई में एक नया दफ़्तर खुला।", the first
        sentence rewritten in the join after it: docs/verdicts.md, "One place, two
        sentences")."""
        a, b = self.v1.sentence_bounds(p.s, p.e)
        region = self.changes.region(a, b)
        if region is None or not (region[2] <= cs and ce <= region[3]):
            return False
        t1, t2 = self.t1, self.t2
        c0, c1 = _trim(t2, *self.v2.sentence_bounds(cs, ce))
        own = _content_words(self.changes.v1_words(t1, a, b))
        if own & self.changes.words_of(t2, c0, c1):
            return False
        if any(_has_alnum(t1[x0:x1]) for x0, x1, _y in self._runs_in(a, b, c0, c1)):
            return False
        ba, bb = self.v1.block(a, b)
        for q0, q1 in self.v1.sentence_pieces(max(region[0], ba), min(region[1], bb)):
            q0, q1 = _trim(t1, q0, q1)
            if q0 >= q1 or (a <= q0 and q1 <= b) or not _a_whole_sentence(t1[q0:q1]):
                continue  # the quote's own sentence, or a clause ("Warning:")
            if (q0, q1) != _trim(t1, *self.v1.sentence_bounds(q0, q1)):
                continue  # a piece of a sentence the region cuts
            if _content_words(self.changes.v1_words(t1, q0, q1)) and self._extent(q0, q1) is None:
                return True
        return False

    def _sentence_was_in_v1(self: _Reanchor, cs: int, ce: int, p: _Place) -> bool:  # type: ignore[misc]
        """The v2 sentence holding ``[cs, ce)`` is, word for word, a sentence (16
        characters or more) that v1 already had outside the span's own sentence: text
        that was there all along (kept by the diff, or moved and re-inserted by it) is not
        this span's rewrite. A shorter one counts when it is a whole block in both and its
        v1 copy did not stay at its own place (a heading such as "Pharmacophore" that the
        diff re-inserted beside a deleted paragraph), also where it moved into another
        block as a whole sentence ("Table 1." joined to the paragraph above it, beside a
        deleted sentence whose full stop the diff kept)."""
        t1, t2 = self.t1, self.t2
        a2, b2 = _trim(t2, *self.v2.sentence_bounds(cs, ce))
        sentence = t2[a2:b2]
        if not _has_alnum(sentence):
            return False
        whole_block = (a2, b2) == _trim(t2, *self.v2.block(a2, b2))
        # a short one counts where it is a whole v2 block, or a whole sentence (its full
        # stop kept): a caption block "Table 1." that moved into the paragraph above
        if len(sentence) < 16 and not whole_block and sentence[-1] not in SENTENCE_TERMINATORS:
            return False
        a1, b1 = self.v1.sentence_bounds(p.s, p.e)
        # v1 text near the span: a rewrite's candidates lie near its estimated place, so
        # the copy that was there all along lies within a few regions of it
        lo, hi = max(0, p.s - 4 * REGION_REACH), p.e + 4 * REGION_REACH
        i = t1.find(sentence, lo, hi)
        for _ in range(8):
            if i < 0:
                return False
            j = i + len(sentence)
            if j <= a1 or i >= b1:
                if len(sentence) >= 16:
                    return True
                # a short block: only where its v1 copy did not stay at its own place (a
                # cell renamed to another cell's word is an edit)
                if (i, j) == _trim(t1, *self.v1.block(i, j)):
                    if self.diff.unchanged_image(i, j) is None:
                        return True
            i = t1.find(sentence, i + 1, hi)
        return False

    @staticmethod
    def _near_block(index: TextIndex, s: int, e: int, reach: int = REGION_REACH) -> tuple[int, int]:
        """The block(s) holding ``[s, e)``, followed at most ``reach`` characters each way:
        a block larger than that (a plain text without blank lines is one block) is judged
        by the span's neighbourhood, so the cost stays bounded."""
        a, b = index.block(s, e)
        return max(a, s - reach), min(b, e + reach)

    def _gone_neighbour_blocks(  # type: ignore[misc]
        self: _Reanchor, a: int, b: int, v2_block: tuple[int, int]
    ) -> list[tuple[int, int]]:
        """The v1 blocks just before and after block ``[a, b)`` that are gone as kept text
        too and whose diff image overlaps ``v2_block``."""
        t1, out = self.t1, []
        x = a
        while x > 0 and t1[x - 1].isspace():
            x -= 1
        y = b
        while y < len(t1) and t1[y].isspace():
            y += 1
        for side in ((x - 1, x) if x > 0 else None, (y, y + 1) if y < len(t1) else None):
            if side is None:
                continue
            o0, o1 = self._near_block(self.v1, *side)
            if (o0, o1) == (a, b) or self._block_survives(o0, o1):
                continue
            i0, i1 = self.diff.image(o0, o1)
            if i0 < v2_block[1] and v2_block[0] < i1:
                out.append((o0, o1))
        return out

    def _block_survives(self: _Reanchor, a: int, b: int) -> bool:  # type: ignore[misc]
        """Some of v1 block ``[a, b)`` is still in v2 as kept text (``KEPT_GAP`` characters
        or more): the block was edited, not removed."""
        kept = "".join(self.t1[x0:x1] for x0, x1, _y in self.changes.kept_runs(a, b))
        return _substantial(kept)

    def _a_neighbours_image(self: _Reanchor, cs: int, ce: int, p: _Place) -> bool:  # type: ignore[misc]
        """v2 ``[cs, ce)`` lies in the v2 sentence that another v1 sentence of the span's
        replaced region became (``_sentence_image``): a neighbour rewritten beside a
        sentence that was deleted is that neighbour's rewrite, not the deleted one's (the
        diff often replaces the two in one change)."""
        if self.changes.region(p.s, p.e) is None:
            return False
        t1 = self.t1
        a, b = self.v1.sentence_bounds(p.s, p.e)
        lo, hi = _sentence_bounds(
            t1, max(0, a - FUZZY_WINDOW), b + FUZZY_WINDOW, reach=FUZZY_WINDOW
        )
        mine = self.changes.change_at(p.s)
        for q0, q1 in self.v1.sentence_pieces(lo, hi):
            if q1 <= a or q0 >= b:
                q0, q1 = _trim(t1, q0, q1)
                if q0 < q1 and _has_alnum(t1[q0:q1]):
                    img = self._sentence_image(q0, q1, q0, q1, strict=False)
                    if img is None and mine is not None and self._replaced_together(q0, q1, mine):
                        img = self.diff.image(q0, q1)
                    if img is not None and img[0] < ce and cs < img[1]:
                        return True
        return False

    def _replaced_together(  # type: ignore[misc]
        self: _Reanchor, q0: int, q1: int, change: tuple[int, int, int, int]
    ) -> bool:
        """v1 sentence ``[q0, q1)`` was deleted whole by ``change``, the one change that
        also deleted the quote's start: the text the change inserted replaced both, so
        where the neighbour shares no word with it (no ``_sentence_image``), the diff's
        image of the neighbour stands for it: "NCT04275414 )." and the sentence "Second,
        cardiac involvement …" after it, both replaced by "river " (the reference
        rewritten, the sentence deleted), are no rewrite of the deleted sentence
        (docs/verdicts.md, "Not a neighbour's rewrite")."""
        return change[0] <= q0 and q1 <= change[1]
