"""The kept neighbours of a sentence: the sentences on either side of it that survive in v2,
which bound where its rewrite may lie (docs/verdicts.md, "Not past a kept neighbour").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.diff.tokens import _CLOSERS
from engine.score.anchoring.changes import _substantial
from engine.score.anchoring.mapped import _count_dice
from engine.score.anchoring.thresholds import (
    FUZZY_WINDOW,
    KEPT_GAP,
    MOVED_OWN_WORDS,
    MOVED_REWRITE_DICE,
    MOVED_REWRITE_SHARED,
    NEW_BLOCKS_REACH,
    TRAVELLED_CONTEXT,
)
from engine.score.anchoring.words import (
    _content_words,
    _has_alnum,
    _trim,
    content_word_edges,
    longest_common_substring,
)
from engine.text.sentence_stops import SENTENCE_TERMINATORS

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor

_STOPS = frozenset(SENTENCE_TERMINATORS + _CLOSERS)


def _one_copy(text: str, body: str, lo: int, hi: int) -> int | None:
    """Where ``text[lo:hi]`` holds ``body`` exactly once (code points), else None."""
    at = text.find(body, lo, hi)
    if at < 0 or text.find(body, at + 1, hi) >= 0:
        return None
    return at


class KeptNeighbours:
    """Where a sentence's kept neighbours stand in v2, and what lies past them."""

    def _beyond_kept_neighbours(self: _Reanchor, p0: int, p1: int, c0: int, c1: int) -> bool:  # type: ignore[misc]
        """v2 range ``[c0, c1)`` lies past a kept neighbour of v1 sentence ``[p0, p1)``
        (``_between_kept_neighbours``): after the one after it, or before the one before
        it, within the reach of each. Where two neighbours swapped places (``_jumped``),
        either may be the one that moved: past them only when past them in both readings,
        the kept one having moved and the other having moved."""
        readings = self._between_kept_neighbours(p0, p1)
        return all(
            (hi <= c0 < hi_until) or (lo_from < c1 <= lo) for lo, lo_from, hi, hi_until in readings
        )

    def _between_kept_neighbours(  # type: ignore[misc]
        self: _Reanchor, p0: int, p1: int
    ) -> tuple[tuple[int, int, int, int], ...]:
        """The v2 range a rewrite of v1 sentence ``[p0, p1)`` can lie in: after the image
        of the nearest sentence before it that the diff kept whole, before that of the
        nearest one after it (within ``2 * FUZZY_WINDOW``). A sentence's rewrite in place
        stays between its kept neighbours: a v2 sentence past "The office opens at nine."
        which followed the quote in v1 is no rewrite of the quote, however many words
        they share ("Members must renew their cards" deleted, "Coffee cards taste better
        outside." added two sentences on: docs/verdicts.md, "Not text kept from
        elsewhere"), unless it keeps half the sentence's words (``MOVED_REWRITE_DICE``):
        a sentence moved past its neighbours and rewritten.

        Returns one ``(lo, lo_from, hi, hi_until)`` per reading: a rewrite lies after ``lo``
        and before ``hi``; a neighbour of the sentence's own v1 block bounds only the v2
        block its copy is in (``lo_from`` and ``hi_until``, else 0 and the text's end): one
        that moved into another block ("It optimizes ..." moved up into the paragraph
        before) took nothing of the sentence's place with it. Two readings where a
        neighbour kept by the diff stands past the sentence's other neighbour
        (``_jumped``): in the first the kept one moved and bounds nothing, in the second
        the other one moved (the diff keeps the longer side, which may be either:
        "and is based on a transcription …" moved below the paragraph after the quote's,
        the one the diff kept, in a Standard Ebooks colophon)."""
        hit = self.changes.neighbours.get((p0, p1))
        if hit is None:
            bounds, jumped = self._neighbour_bounds(p0, p1, True)
            hit = (bounds, self._neighbour_bounds(p0, p1, False)[0]) if jumped else (bounds,)
            self.changes.neighbours[(p0, p1)] = hit
        return hit

    def _neighbour_bounds(  # type: ignore[misc]
        self: _Reanchor, p0: int, p1: int, jumps: bool
    ) -> tuple[tuple[int, int, int, int], bool]:
        """One reading of ``_between_kept_neighbours``: with ``jumps``, a kept neighbour
        that jumped past the other side's sentence bounds nothing and that sentence, where
        it stands, bounds its side; without, every neighbour bounds where it stands. And
        whether a neighbour jumped (always False without ``jumps``)."""
        v1, t1, n2 = self.v1, self.t1, len(self.t2)
        jumped = False
        lo, lo_from, hi, hi_until = 0, 0, n2, n2
        ba, bb = v1.block(p0, p1)
        image = self.diff.image(p0, p1)
        after = list(v1.sentence_pieces(p1, min(len(t1), p1 + 2 * FUZZY_WINDOW)))
        before = list(v1.sentence_pieces(max(0, p0 - 2 * FUZZY_WINDOW), p0))
        for pieces, last in ((after, False), (reversed(before), True)):
            for a, b in pieces:
                # its words, without the stop the diff may align with another one
                a, b = _trim(t1, a, b)
                while b > a and t1[b - 1] in _STOPS:
                    b -= 1
                y = self._surviving_copy(a, b, last, image) if _has_alnum(t1[a:b]) else None
                if y is not None:
                    # (asked in the reading that honours jumps only: the other ignores them)
                    cross = (
                        self._jumped(a, b, y, last, after if last else before) if jumps else None
                    )
                    jumped = jumped or cross is not None
                    if cross is not None:
                        # it moved past the sentence's other side, and bounds nothing: the
                        # other side's sentence, where it stands, bounds that side
                        if last:
                            hi, hi_until = min(hi, cross), n2
                        else:
                            lo, lo_from = max(lo, cross), 0
                        continue  # the next sentence on this side that stayed bounds it
                    xa, xb = (0, n2)
                    if ba <= a and b <= bb and not self._stayed(ba, bb, y, y + (b - a)):
                        xa, xb = self._with_new_blocks(*self.v2.block(y, y + (b - a)), before=last)
                    if last:
                        if y + (b - a) >= lo:
                            lo, lo_from = y + (b - a), xa
                    elif y <= hi:
                        hi, hi_until = y, xb
                    break
        return (lo, lo_from, hi, hi_until), jumped

    def _stayed(self: _Reanchor, ba: int, bb: int, y0: int, y1: int) -> bool:  # type: ignore[misc]
        """A kept neighbour at v2 ``[y0, y1)`` of a sentence of v1 block ``[ba, bb)``
        stands in the diff's image of that block, and the v2 blocks holding its image are
        those of that block alone: it did not move, so it bounds the sentence's rewrite
        on its side however far, not only in its own v2 block (a heading after the
        paragraph, "Case description" edited to "Case zephyr", is past the kept "Laboratory
        analysis revealed …" that followed the deleted "Here we report the case …":
        F1000RD 3-195, the long property run)."""
        ia, ib = self.diff.image(ba, bb)
        if not (ia <= y0 and y1 <= ib):
            return False
        xa, xb = self.v2.block(y0, y1)
        return self.changes.origin(xa, xb)[1].within(ba, bb)

    def _with_new_blocks(  # type: ignore[misc]
        self: _Reanchor, xa: int, xb: int, *, before: bool, own: tuple[int, int] = (0, 0)
    ) -> tuple[int, int]:
        """v2 block ``[xa, xb)`` of a kept neighbour, widened over the v2 blocks of only new
        text beside it on its far side (after it for a neighbour after the sentence, before
        it for one before; at most ``NEW_BLOCKS_REACH``): a block added after the paragraph
        ("Coffee lesson better outside." after a boxed text's last paragraph) lies past the
        neighbour as much as a sentence added inside it. A block holding kept text with a
        letter or digit stops it: a neighbour that moved into another block bounds only that
        block. Kept punctuation and spaces alone do not: the diff aligns a deleted
        sentence's full stop and paragraph break with a new paragraph's ("Staff numbers fell
        sharply in March." deleted, "Our new office opened." added as a paragraph of its
        own before the join of its neighbours, plain text), nor does what it keeps of
        ``own``, the v1 sentence the bound is asked for, short of ``MOVED_OWN_WORDS`` of its
        content words (``_holds_kept_words``): its short words ("It was " of "It was the
        worst flood of the decade." at "It was a hard year for the town.", a new paragraph
        after the join) or one word ("in March" of "Staff numbers fell sharply in March."
        at "A new branch opened in March.", a new paragraph before it)."""
        t2, n2 = self.t2, len(self.t2)
        for _ in range(NEW_BLOCKS_REACH):
            if before:
                i = xa
                while i > 0 and t2[i - 1].isspace():
                    i -= 1
                if i <= 0:
                    break
                na, nb = self.v2.block(i - 1, i)
            else:
                i = xb
                while i < n2 and t2[i].isspace():
                    i += 1
                if i >= n2:
                    break
                na, nb = self.v2.block(i, i + 1)
            if (na, nb) == (xa, xb) or self._holds_kept_words(na, nb, own):
                break  # it holds kept words (or there is no block beyond)
            xa, xb = min(xa, na), max(xb, nb)
        return xa, xb

    def _holds_kept_words(self: _Reanchor, na: int, nb: int, own: tuple[int, int]) -> bool:  # type: ignore[misc]
        """v2 block ``[na, nb)`` holds words kept from v1 that stop ``_with_new_blocks``:
        kept text with a letter or digit of a sentence other than ``own``, or of ``own``
        ``MOVED_OWN_WORDS`` of its content words (``_content_words``; all of them, for a
        sentence with fewer). Fewer are the sentence's shape or a word of it, kept by
        chance ("It was ", "in March")."""
        t1 = self.t1
        held: set[str] = set()
        for r0, r1 in self.changes.origin(na, nb)[1]:
            if not _has_alnum(t1[r0:r1]):
                continue
            r0, r1 = _trim(t1, r0, r1)  # its spaces are no sentence's (" It was ")
            if not (own[0] <= r0 and r1 <= own[1]):
                return True
            held |= _content_words(self.changes.v1_words(t1, r0, r1))
        if not held:
            return False
        whole = _content_words(self.changes.v1_words(t1, *own))
        return len(held) >= min(MOVED_OWN_WORDS, len(whole))

    def _jumped(  # type: ignore[misc]
        self: _Reanchor,
        a: int,
        b: int,
        y: int,
        before: bool,
        other_side: list[tuple[int, int]],
    ) -> int | None:
        """Neighbour ``[a, b)`` of a sentence, ``before`` it or after it in v1 and at ``y``
        in v2, moved past the sentence: the nearest sentence on the sentence's other side
        (``other_side``, in v1 order) that stands in v2 verbatim, once, and that v1 has once
        near it (``TRAVELLED_CONTEXT`` characters or more), stands on this neighbour's side
        of it (before ``y`` for a neighbour that came before), with no kept text between
        the two (with kept text between, that sentence is the one that moved, past text
        that stayed in order). Returns where that sentence
        stands in v2 (its start for a neighbour that came before, its end otherwise: the
        sentence's rewrite lies on its own side of it), or None. The diff keeps a moved
        paragraph and deletes and re-inserts the ones it jumped, so the kept one is the
        one that moved, and bounds nothing ("There were several people ..." moved below
        the paragraph after the quote's, whose rewrite stands where it stood: the long
        property run on a Standard Ebooks chapter)."""
        t1, t2 = self.t1, self.t2
        pieces = other_side if before else list(reversed(other_side))
        for c0, c1 in pieces:
            c0, c1 = _trim(t1, c0, c1)
            if not _has_alnum(t1[c0:c1]):
                continue
            body = t1[c0:c1]
            near = max(0, c0 - 4 * FUZZY_WINDOW), c1 + 4 * FUZZY_WINDOW
            if len(body) < TRAVELLED_CONTEXT or t1.find(body, c0 + 1, near[1]) >= 0:
                continue
            if t1.find(body, near[0], c0) >= 0:
                continue
            lo, hi = max(0, y - 4 * FUZZY_WINDOW), min(len(t2), y + (b - a) + 4 * FUZZY_WINDOW)
            at = _one_copy(t2, body, lo, hi)
            if at is None:
                continue  # rewritten too, or not one copy: the next one says
            if before:
                crossed, gap = at + len(body) <= y, (at + len(body), y)
            else:
                crossed, gap = at >= y + (b - a), (y + (b - a), at)
            if not crossed:
                return None
            # kept text between the two: that sentence moved past text that stayed in
            # order, so the neighbour stayed and bounds as before
            _inserted, runs = self.changes.origin(*gap)
            if _substantial("".join(t1[r0:r1] for r0, r1 in runs)):
                return None
            return at if before else at + len(body)
        return None

    def _surviving_copy(  # type: ignore[misc]
        self: _Reanchor, a: int, b: int, before: bool, image: tuple[int, int]
    ) -> int | None:
        """Where v1 text ``[a, b)``, a neighbour ``before`` the sentence whose diff image is
        ``image`` or after it, stands in v2: its image where the diff kept it, else its one
        verbatim copy near its estimated place (within ``2 * FUZZY_WINDOW``, v1 having it
        once there too) on its own side of ``image``: a list renumbered shifts every item
        by a line, and the diff, keeping the numbers, deletes and inserts the unchanged
        items; a neighbour that moved past the sentence is no bound of its place."""
        y = self.diff.unchanged_image(a, b)
        if y is not None:
            return y
        t1, t2 = self.t1, self.t2
        body = t1[a:b]
        if len(body) < KEPT_GAP:
            return None
        es, ee = self.changes.estimate(a, b)
        lo, hi = max(0, es - 2 * FUZZY_WINDOW), min(len(t2), ee + 2 * FUZZY_WINDOW)
        at = _one_copy(t2, body, lo, hi)
        if at is None:
            return None
        if (at + len(body) > image[1]) if before else (at < image[0]):
            return None
        if (
            t1.find(body, max(0, a - 2 * FUZZY_WINDOW), a) >= 0
            or t1.find(body, a + 1, b + 2 * FUZZY_WINDOW) >= 0
        ):
            return None
        return at

    def _out_of_order(  # type: ignore[misc]
        self: _Reanchor,
        a: int,
        b: int,
        c0: int,
        c1: int,
        own_words: set[str],
        words: set[str],
    ) -> bool:
        """v2 range ``[c0, c1)`` (in a sentence whose words are ``words``) lies before all
        that stands in v2 of the nearest sentence before v1 sentence(s) ``[a, b)`` (words
        ``own_words``) in its v1 block, or after all of the nearest one after it
        (``_neighbour_extents``), in the v2 block that stands in (and the blocks of only new
        text beside it on its far side, ``_with_new_blocks``: a neighbour that moved into
        another block, "It optimizes …" moved up into the paragraph before, bounds nothing
        here). A rewrite keeps its sentences in order, as the diff keeps the text it aligns:
        "Staff numbers fell sharply in March." deleted, the sentences around it joined ("The
        budget rose while costs were cut in every office.") and "A new office opened in
        May." added before or after the join is no rewrite of it, however the diff laid its
        replaced region over them (Hindi, Japanese, Thai: docs/verdicts.md, "Not past a
        rewritten neighbour").

        Never where the range holds the sentence's own kept text that touches a content
        word in a ``_substantial`` run (the diff aligned it there, in order; a kept " most "
        is chance), nor where it keeps many of the sentence's words
        (``MOVED_REWRITE_DICE``): a sentence moved and rewritten. A neighbour known only by
        its words (``_extent``: weak) bounds only a range that holds none of the sentence's
        kept content words at all: a deleted neighbour's chance likeness ("then", "Frank",
        "claim") in the next clause's rewrite is no bound on the rewrite that kept
        "engaged"."""
        t1 = self.t1
        kept_here = self._runs_in(a, b, c0, c1, content=True)
        if any(_substantial(t1[x0:x1]) for x0, x1, _y in kept_here):
            return False
        if _count_dice(own_words, words) >= MOVED_REWRITE_DICE:
            return False
        before, after = self._neighbour_extents(a, b)
        if before is not None and c1 <= before[0] and (before[2] or not kept_here):
            xa, _xb = self._with_new_blocks(*self.v2.block(*before[:2]), before=True, own=(a, b))
            if xa <= c0:
                return True
        if after is not None and c0 >= after[1] and (after[2] or not kept_here):
            _xa, xb = self._with_new_blocks(*self.v2.block(*after[:2]), before=False, own=(a, b))
            return c1 <= xb
        return False

    def _neighbour_extents(  # type: ignore[misc]
        self: _Reanchor, a: int, b: int
    ) -> tuple[tuple[int, int, bool] | None, tuple[int, int, bool] | None]:
        """What stands in v2 (``_extent``) of the nearest sentence before v1 sentence(s)
        ``[a, b)`` and of the nearest after it, of those that stand anywhere, within
        ``2 * FUZZY_WINDOW``: a sentence deleted too bounds nothing, and the next one on its
        side does. One of another v1 block counts only where the diff says where it stands
        (strong), and bounds only while the two sides stand in their v1 order: where each
        sentence is a block of its own (Markdown paragraphs, list items), a new block after
        the one that holds the next sentence's rewrite is no rewrite of the deleted one ("It
        was a hard year for the town." after "The river flooded the valley and farmers lost
        most of their crops.", "It was the worst flood of the decade." deleted between
        them), but of two neighbour paragraphs that swapped places either may be the one
        that moved, and neither bounds. Worked out once per range for the pair
        (``ChangeIndex.neighbour_images``)."""
        hit = self.changes.neighbour_images.get((a, b))
        if hit is not None:
            return hit
        t1 = self.t1
        ba, bb = self.v1.block(a, b)
        sides = (
            reversed(self.v1.sentence_pieces(max(0, a - 2 * FUZZY_WINDOW), a)),
            iter(self.v1.sentence_pieces(b, min(len(t1), b + 2 * FUZZY_WINDOW))),
        )
        extents: list[tuple[int, int, bool] | None] = []
        inside: list[bool] = []
        for pieces in sides:
            extent, own_block = None, True
            for q0, q1 in pieces:
                q0, q1 = _trim(t1, q0, q1)
                if not (q0 < q1 and _has_alnum(t1[q0:q1])):
                    continue
                own_block = ba <= q0 and q1 <= bb
                extent = self._extent(q0, q1)
                if extent is not None and (own_block or extent[2]):
                    break
                extent = None
            extents.append(extent)
            inside.append(own_block)
        first, second = extents
        if first is not None and second is not None and first[0] >= second[1]:
            # the two sides swapped: a neighbour of another block bounds nothing
            first = first if inside[0] else None
            second = second if inside[1] else None
        out = self.changes.neighbour_images[(a, b)] = (first, second)
        return out

    def _extent(self: _Reanchor, q0: int, q1: int) -> tuple[int, int, bool] | None:  # type: ignore[misc]
        """``_extent_now``, worked out once per sentence for the pair
        (``ChangeIndex.extents``): a sentence is the neighbour of the one before it and of
        the one after it."""
        if (q0, q1) not in self.changes.extents:
            self.changes.extents[(q0, q1)] = self._extent_now(q0, q1)
        return self.changes.extents[(q0, q1)]

    def _extent_now(self: _Reanchor, q0: int, q1: int) -> tuple[int, int, bool] | None:  # type: ignore[misc]
        """The v2 range of what stands there of v1 sentence ``[q0, q1)``, and whether the
        diff says so (strong) or only its words do, by the first of these it has: its kept
        text that touches a content word, in runs of ``_substantial`` length (from the
        first run to the last: the diff's alignment is in order; any kept word of a
        sentence of no content word, "He is a Mr."), or its text less its full stop
        re-inserted once near its estimated place (``2 * FUZZY_WINDOW``; new text, not
        another sentence's kept copy: "“Yes, sir" at the join; its first letter may be
        lowered, as a join does), both strong; or, weak, the
        v2 sentence near its estimated place, not kept from elsewhere, that shares the most
        of its content words, ``MOVED_REWRITE_SHARED`` or more, or all of a short one's
        (two sentences joined into one, the first's words rewritten at the join's start:
        the join is no candidate for it, since it holds the second's kept text; "It is her
        carriage." rewritten as the join's " while it is her carriage"), or the sentence it
        became (``_sentence_image``, not strict). None when it has none of these
        (deleted)."""
        t1, t2 = self.t1, self.t2
        own = _content_words(self.changes.v1_words(t1, q0, q1))
        if own:
            # a few letters kept by chance (" there" aligned with a new sentence's last
            # word) say nothing of where the sentence went
            runs = [
                r
                for r in self._evidence_runs(q0, q1, content=True)
                if _substantial(t1[r[0] : r[1]])
            ]
        else:
            # short words alone ("He is a Mr.", cut at an abbreviation): its kept words,
            # however few, are all there is of it
            runs = [r for r in self._evidence_runs(q0, q1) if _has_alnum(t1[r[0] : r[1]])]
        if runs:
            return runs[0][2], max(y0 + x1 - x0 for x0, x1, y0 in runs), True
        es, ee = self.changes.estimate(q0, q1)
        lo, hi = max(0, es - 2 * FUZZY_WINDOW), min(len(t2), ee + 2 * FUZZY_WINDOW)
        body = t1[q0:q1].rstrip("".join(_STOPS))
        # also with its first letter lowered: joined to the sentence before it, a sentence
        # loses its capital ("… last year and costs were cut in every office.")
        forms = list(dict.fromkeys((body, body[:1].lower() + body[1:])))
        for copy in forms if len(body) >= 4 else ():
            at = _one_copy(t2, copy, lo, hi)
            if at is not None and self.new_here(at, at + len(copy), q0, q1):
                return at, at + len(copy), True
        part = self._longest_part(q0, q1, forms, lo, hi)
        if part is not None:
            return part[0], part[1], True
        best, most = None, min(MOVED_REWRITE_SHARED, len(own)) - 1
        if own:
            for c0, c1 in self.v2.sentence_pieces(*self.v2.whole_sentences(lo, hi)):
                c0, c1 = _trim(t2, c0, c1)
                if c0 >= c1 or self._kept_from_elsewhere(c0, c1, q0, q1):
                    continue  # another sentence's, kept ("Step 2. Warning: …" for step 1's)
                shared = len(own & self.changes.words_of(t2, c0, c1))
                if shared > most:
                    best, most = (c0, c1), shared
        best = best or self._sentence_image(q0, q1, q0, q1, strict=False)
        return None if best is None else (best[0], best[1], False)

    def _longest_part(  # type: ignore[misc]
        self: _Reanchor, q0: int, q1: int, forms: list[str], lo: int, hi: int
    ) -> tuple[int, int] | None:
        """The longest run of v1 sentence ``[q0, q1)``'s text (``forms``: as written, and
        with its first letter lowered) that v2 ``[lo, hi)`` holds verbatim as new text, where it is
        ``_substantial`` and touches a content word: the diff took it for new, but the
        sentence's words stand there in order ("The budget rose by ten percent last year."
        rewritten as the join's "Although the budget rose, costs …"). Found by
        ``longest_common_substring``. None when there is none."""
        window = self.t2[lo:hi]
        best: tuple[int, int] | None = None
        for text in forms:
            i, j, size = longest_common_substring(text, window)
            piece = text[i : i + size]
            if best is not None and size <= best[1] - best[0]:
                continue
            if not _substantial(piece) or content_word_edges(piece) is None:
                continue
            if self.new_here(lo + j, lo + j + size, q0, q1):
                best = (lo + j, lo + j + size)
        return best
