"""Re-anchor a v1 span in v2: ``reanchor`` and the ``_Reanchor`` that tries the stages in the
order ``engine.score.anchoring.STAGES`` lists (``run``). Each stage lives in a module of its
own and reaches the shared state (the pair's texts, the diff, the change index, the span's
estimated place and mapped sentence) through ``self``.

The stage modules hold mixin classes of ``_Reanchor``; their methods annotate ``self`` as
``_Reanchor`` (the whole state, with every other stage's methods), which mypy accepts only
with ``# type: ignore[misc]`` on the ``def`` line (a mixin is not a supertype of its own
self type); inside, every attribute is type-checked against ``_Reanchor``.
"""

from __future__ import annotations

from dataclasses import replace

from engine.diff.diffing import TextDiff
from engine.score.anchoring.changes import ChangeIndex
from engine.score.anchoring.claims import Claims
from engine.score.anchoring.context import context_score, travelling_context
from engine.score.anchoring.gates import Gates
from engine.score.anchoring.index import TextIndex
from engine.score.anchoring.mapped import Mapped
from engine.score.anchoring.neighbours import KeptNeighbours
from engine.score.anchoring.records import Reanchored, _Place
from engine.score.anchoring.sentences import _clip_sentences
from engine.score.anchoring.stage_context import StageContext
from engine.score.anchoring.stage_fuzzy import StageFuzzy
from engine.score.anchoring.stage_kept import StageKept
from engine.score.anchoring.stage_moved import StageMoved
from engine.score.anchoring.stage_place import StagePlace
from engine.score.anchoring.stage_repeated import StageRepeated
from engine.score.anchoring.stage_rewritten import StageRewritten
from engine.score.anchoring.thresholds import (
    CONTEXT_CHARS,
    FUZZY_WINDOW,
    REGION_REACH,
    TRAVELLED_CONTEXT,
)
from engine.score.anchoring.words import _has_alnum, _trim, holds_nothing_of, joined, similarity
from engine.vocabulary import Method


def reanchor(
    v1: TextIndex,
    v2: TextIndex,
    diff: TextDiff,
    s: int,
    e: int,
    changes: ChangeIndex | None = None,
) -> Reanchored:
    """Re-anchor v1 ``[s, e)`` in v2 (code points). See the module docstring.

    ``changes``: the pair's ChangeIndex (built here when not given; pass one when
    re-anchoring many spans).

    Whatever stage found it, a v2 span that shows a reader less than the quote did (no
    word where the quote had one: a zero-width space, a Hangul filler, a lone "." or emoji
    in a sentence's place; ``holds_nothing_of``) is no rewrite: the quote is ``deleted``
    (docs/verdicts.md, "Not nothing"). Every stage's answer for the span's place is also
    refused by ``admits`` for that, so the next stage is asked; this is the last word."""
    r = _Reanchor(v1, v2, diff, changes or ChangeIndex(diff)).run(s, e)
    if r.start is not None and holds_nothing_of(v1.text[s:e], v2.text[r.start : r.end]):
        return Reanchored(
            None,
            None,
            "none",
            1.0,
            False,
            "the quoted text was removed; only punctuation, symbols or invisible characters "
            "stand in its place",
        )
    return r


class _Reanchor(
    StageKept,
    StageRepeated,
    StageMoved,
    StagePlace,
    StageContext,
    StageFuzzy,
    StageRewritten,
    Gates,
    Mapped,
    Claims,
    KeptNeighbours,
):
    def __init__(self, v1: TextIndex, v2: TextIndex, diff: TextDiff, changes: ChangeIndex):
        self.v1, self.v2, self.diff, self.changes = v1, v2, diff, changes
        self.t1, self.t2 = v1.text, v2.text
        self.estimate: tuple[int, int] | None = None  # the current span's estimated place
        self.mapped: tuple[int, int] | None = None  # the v2 sentence(s) its sentence became
        self.span: tuple[int, int] = (0, 0)  # the current v1 span

    def new_or_own(self, cs: int, ce: int, s: int, e: int) -> bool:
        """v2 ``[cs, ce)`` is mostly new text (or text kept from the v1 span ``[s, e)``
        itself): never a copy the diff kept from elsewhere in v1, a lookalike that was there
        all along. A short kept piece from elsewhere (the diff gluing a moved sentence's
        common ending to its old neighbour) is allowed up to half."""
        _inserted, runs = self.changes.origin(cs, ce)
        elsewhere = sum((r1 - r0) - max(0, min(r1, e) - max(r0, s)) for r0, r1 in runs)
        return 2 * elsewhere < ce - cs

    def new_here(self, cs: int, ce: int, s: int, e: int, own: int = 0) -> bool:
        """``new_or_own``, and also not mostly text the diff took for new that v1 had word
        for word outside the span's own sentence (``moved_in``: a neighbour sentence that
        moved beside the span's place). Asked of a span's new place (``admits``) and of the
        candidates for the sentence a sentence became. ``own``: characters kept from
        elsewhere that count as the span's own (``Mapped._edge_copies``)."""
        _inserted, runs = self.changes.origin(cs, ce)
        elsewhere = sum((r1 - r0) - max(0, min(r1, e) - max(r0, s)) for r0, r1 in runs) - own
        if 2 * elsewhere >= ce - cs:
            return False
        return 2 * (elsewhere + self.moved_in(cs, ce, s, e)) < ce - cs

    def moved_in(self, cs: int, ce: int, s: int, e: int) -> int:
        """Characters of v2 ``[cs, ce)`` that the diff took for new text but that v1 had
        word for word outside the sentence(s) of v1 ``[s, e)``: of each piece of changed
        text inside ``[cs, ce)``, trimmed, of ``TRAVELLED_CONTEXT`` characters or more, the
        run from its start and the run to its end that v1 has verbatim within
        ``4 * REGION_REACH`` of the span, at a place not overlapping its own sentence (each
        found by its first or last ``TRAVELLED_CONTEXT`` characters, then followed). A
        sentence that moved is its own, not the rewrite of the one it now stands beside,
        also where the diff glued it to a heading it now follows ("Data availability
        Furthermore, we only assessed ...")."""
        t2 = self.t2
        pieces = [
            q
            for x, y in self.changes.inserted_pieces(cs, ce)
            if (q := _trim(t2, x, y))[1] - q[0] >= TRAVELLED_CONTEXT
        ]
        if not pieces:
            return 0
        lo, hi = max(0, s - 4 * REGION_REACH), e + 4 * REGION_REACH
        own: list[tuple[int, int]] = []
        total = 0
        for x, y in pieces:
            piece = t2[x:y]
            run = self._run_in_v1(piece, lo, hi, own, s, e, True)
            if run < len(piece):
                run = min(len(piece), run + self._run_in_v1(piece, lo, hi, own, s, e, False))
            total += run
        return total

    def _run_in_v1(
        self, piece: str, lo: int, hi: int, own: list[tuple[int, int]], s: int, e: int, head: bool
    ) -> int:
        """The longest run of ``piece`` from its start (``head``) or to its end that v1
        ``[lo, hi)`` has verbatim outside the own sentence of v1 ``[s, e)`` (computed into
        ``own`` on first need); 0 when its first or last ``TRAVELLED_CONTEXT`` characters
        are not there."""
        t1, n, k = self.t1, len(piece), TRAVELLED_CONTEXT
        needle = piece[:k] if head else piece[-k:]
        i = t1.find(needle, lo, hi)
        best = 0
        for _ in range(8):
            if i < 0:
                break
            if not own:
                own.append(self.v1.sentence_bounds(s, e))
            m = k
            if head:
                while m < n and i + m < len(t1) and t1[i + m] == piece[m]:
                    m += 1
                a, b = i, i + m
            else:
                j = i + k  # the run ends here in v1
                while m < n and j - m - 1 >= 0 and t1[j - m - 1] == piece[n - m - 1]:
                    m += 1
                a, b = j - m, j
            o0, o1 = own[0]
            if a < o1 and o0 < b:
                return 0  # the sentence's own text (a repeat of it is no evidence either)
            best = max(best, m)
            i = t1.find(needle, i + 1, hi)
        return best

    def ctx1(self, s: int, e: int) -> tuple[str, str]:
        return self.t1[max(0, s - CONTEXT_CHARS) : s], self.t1[e : e + CONTEXT_CHARS]

    def block_context(self, s: int, e: int, prefix: str, suffix: str) -> tuple[str, str]:
        """(prefix, suffix) of v1 ``[s, e)`` cut to the block(s) holding the span: text of a
        neighbour block is no part of the quote's sentence."""
        ba, bb = self.v1.block(s, e)
        return prefix[max(0, len(prefix) - (s - ba)) :], suffix[: max(0, bb - e)]

    def run(self, s: int, e: int, *, not_span: tuple[int, int] | None = None) -> Reanchored:
        t1, t2, diff = self.t1, self.t2, self.diff
        quote = t1[s:e]
        prefix, suffix = self.ctx1(s, e)

        # 1. The diff kept the span as it was.
        b = diff.unchanged_image(s, e)
        if b is not None and (b, b + (e - s)) != not_span:
            other = self._kept_copy_names_other(s, e, b) if not_span is None else None
            if other is not None:
                return other
            cut = self._boundary_word_replaced(s, e, b)
            if cut is not None:
                return cut
            return Reanchored(b, b + (e - s), "exact", 1.0, False, similarity=None)
        moved_to = getattr(diff, "moved_to", None)  # the diff's own moved-text detection
        if moved_to is not None:
            mv = moved_to(s, e)
            if mv is not None:
                return Reanchored(
                    mv[0], mv[1], "moved", 1.0, False, "the quoted passage moved, unchanged"
                )

        es, ee = self.changes.estimate(s, e)
        self.estimate = (es, ee)
        self.span = (s, e)
        self.mapped = self._mapped_sentences(s, e)
        ms, me = diff.image(s, e)
        local = self.changes.is_local(s, e)
        lo = max(0, min(es, ms if local else es) - FUZZY_WINDOW)
        hi = min(len(t2), max(ee, me if local else ee) + FUZZY_WINDOW)
        own_prefix, own_suffix = self.block_context(s, e, prefix, suffix)
        travelling = travelling_context(own_prefix, quote, own_suffix)
        p = _Place(quote, prefix, suffix, s, e, es, ee, ms, me, lo, hi, local, travelling)

        # 2a. Another copy of a repeated passage, kept by the diff, that v1's context names.
        kept = self._kept_copy_named_here(quote, prefix, suffix, s, e, es, not_span)
        if kept is not None:
            return kept
        # 2b. A verbatim copy that is new text in the neighbourhood: the passage moved.
        moved, _ = self._moved_copy(p, not_span, False)
        if moved is not None:
            return moved

        # 3. The span's place, when the text there decides.
        found, weak = self._in_place(p)
        if found is not None and found.start is not None and not weak:
            return found
        # 4. A copy moved far away with its context (new text only) beats a weak place.
        # Searched when a move is possible at all: the old place is empty, or the diff
        # found moved text somewhere (a rewritten paragraph in a document where nothing
        # moved does not pay for the search), and always before a quote is called
        # deleted: a passage that moved where the diff saw no move is not gone.
        rs, re_ = _trim(t2, ms, me)
        moves = getattr(diff, "moves", None)
        nothing_here = found is None or found.start is None
        want_far = rs >= re_ or moves is None or bool(moves) or nothing_here
        moved, far = self._moved_copy(p, not_span, True) if want_far else (None, None)
        if moved is None and weak and not want_far:
            # the diff saw no move, but a weak answer is beaten by a verbatim copy of new
            # text within the region's reach (a sentence moved into the paragraph above)
            wide = replace(p, lo=max(0, p.es - REGION_REACH), hi=min(len(t2), p.ee + REGION_REACH))
            moved, _ = self._moved_copy(wide, not_span, False)
        if moved is not None:
            return moved
        # 5. A sentence rewritten in place; else a far copy with new surroundings; else gone.
        if found is not None and found.start is not None:
            return found
        if far is not None:
            return far
        return found or self._gone(quote, ms, me, lo, hi)

    def _edited(
        self,
        cs: int,
        ce: int,
        quote: str,
        prefix: str,
        suffix: str,
        method: Method,
        note: str,
    ) -> Reanchored:
        t2 = self.t2
        if self.mapped is not None:
            cs, ce = self._inside_mapped(cs, ce)
        cs, ce = _clip_sentences(t2, cs, ce, quote, self.estimate)
        cs, ce = self._clip_blocks(cs, ce)
        # whole words at an edge where the v1 span cut none (a replaced region the diff cut
        # inside "harbour" is widened to the word)
        s, e = self.span
        ws, we = self.v2.snap_words(cs, ce)  # a block's edge ends a word
        cs = cs if joined(self.t1, s) else ws
        ce = ce if joined(self.t1, e) else we
        ctx = context_score(prefix, suffix, t2, cs, ce) if (prefix or suffix) else 1.0
        sim = similarity(quote, t2[cs:ce])
        # Where replaced text starts and ends is the diff's judgement: always approximate.
        return Reanchored(cs, ce, method, round(ctx, 4), True, note, round(sim, 4))

    def _clip_blocks(self, cs: int, ce: int) -> tuple[int, int]:
        """``[cs, ce)`` cut to one v2 block when the v1 span crosses none: the piece that
        overlaps the mapped sentence (else the estimated place) most, then the longest
        (docs/verdicts.md, "Blocks and words")."""
        s, e = self.span
        if self.v1.crosses(s, e) or not self.v2.crosses(cs, ce):
            return cs, ce
        near = self.mapped or self.estimate or (cs, ce)
        pieces = [
            q
            for a, b in self.v2.pieces(cs, ce)
            if (q := _trim(self.t2, a, b))[0] < q[1] and _has_alnum(self.t2[q[0] : q[1]])
        ]
        if not pieces:
            return cs, ce
        return max(
            pieces, key=lambda q: (max(0, min(q[1], near[1]) - max(q[0], near[0])), q[1] - q[0])
        )

    def _inside_mapped(self, cs: int, ce: int) -> tuple[int, int]:
        """``[cs, ce)`` cut to the mapped v2 sentence(s); the whole of them when nothing of
        ``[cs, ce)`` lies inside (the diff put the quote's place in a neighbour sentence,
        where its kept words say it is not)."""
        assert self.mapped is not None
        m0, m1 = self.mapped
        a, b = _trim(self.t2, max(cs, m0), min(ce, m1))
        if a < b:
            return a, b
        return m0, m1
