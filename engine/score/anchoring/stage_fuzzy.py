"""Stage 3, approximately: the quote equal after normalisation near its place (``exact``) and
the best approximate match in the mapped sentence or the neighbourhood (``fuzzy``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.context import nearest_starts
from engine.score.anchoring.records import Reanchored, _Place
from engine.score.anchoring.sentences import _clip_sentences
from engine.score.anchoring.thresholds import FUZZY_THRESHOLD, FUZZY_WINDOW, LOCAL_CHANGE
from engine.score.anchoring.words import (
    _passage,
    _shares_a_word,
    _snap_words,
    _trim,
    similarity,
)
from engine.text.normalize import FoldedText, fold_needle, normalize

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


class StageFuzzy:
    """Approximate matches of the quote at its place."""

    def _folded_copy_near(self: _Reanchor, p: _Place) -> Reanchored | None:  # type: ignore[misc]
        """The quote, equal after normalisation, inside the neighbourhood (a replaced region
        that only changed its spelling: NFD, presentation forms, spaces)."""
        quote, s, e, es, lo, hi = p.quote, p.s, p.e, p.es, p.lo, p.hi
        needle = fold_needle(quote)
        if not needle or hi - lo > 4 * FUZZY_WINDOW + 8 * len(quote):
            return None
        window = self.t2[lo:hi]
        if window.isascii() and needle not in " ".join(window.split()):
            return None  # ASCII folds only its whitespace: cheap refusal
        ft = FoldedText(window)
        starts = nearest_starts(ft.folded, needle, ft.folded_pos(es - lo), 4)
        for i in starts:
            cs, ce = ft.raw_span(i, i + len(needle))
            cs, ce = lo + cs, lo + ce
            if self.t2[cs:ce].strip() == quote.strip() and not _passage(quote):
                continue  # a word that recurs in rewritten text, not this quote's place
            if not self.v2.cuts_word(cs, ce) and self.new_or_own(cs, ce, s, e):
                return Reanchored(
                    cs,
                    ce,
                    "exact",
                    1.0,
                    False,
                    "same text after normalisation (whitespace, canonical forms, ligatures)",
                )
        return None

    def _fuzzy_at_place(self: _Reanchor, p: _Place) -> Reanchored | None:  # type: ignore[misc]
        """The best approximate match of the quote at its place: in the mapped sentence
        when it is known; else in the sentence(s) the diff maps the span into first, then
        the whole neighbourhood."""
        if self.mapped is not None:
            # The sentence the quote's own sentence became (its kept words say which) is
            # the only place a fuzzy match may be: a better match in a neighbour is a
            # lookalike.
            return self._fuzzy(p.quote, p.s, p.e, *self.mapped, strict=not p.local)
        # (Where the surroundings changed too, a small image is still the diff's word on
        # the place: its sentences only, never a neighbour that happens to match better.)
        fz = None
        small_image = p.me - p.ms <= 2 * (p.e - p.s) + LOCAL_CHANGE
        if small_image:
            a, b = self.v2.sentence_bounds(p.ms, p.me)
            fz = self._fuzzy(p.quote, p.s, p.e, a, b, strict=not p.local)
        if fz is None and (p.local or not small_image):
            fz = self._fuzzy(p.quote, p.s, p.e, p.lo, p.hi, strict=not p.local)
        return fz

    def _fuzzy(  # type: ignore[misc]
        self: _Reanchor,
        quote: str,
        s: int,
        e: int,
        lo: int,
        hi: int,
        *,
        strict: bool,
    ) -> Reanchored | None:
        """Best approximate match of ``quote`` in v2 ``[lo, hi)``, or None.

        A candidate must be mostly new text (inserted, not kept from elsewhere in v1: never
        a lookalike), not cut a word, and reach FUZZY_THRESHOLD. ``strict`` (the span's
        surroundings are gone too, so the match alone decides between edited and deleted):
        it must also share a word with the quote, since letters alone match by chance at
        0.5."""
        t2 = self.t2
        if len(quote) < 3 or hi <= lo:
            return None
        window = t2[lo:hi]
        if not window.strip():
            return None
        from rapidfuzz import fuzz

        al = fuzz.partial_ratio_alignment(quote, window, score_cutoff=FUZZY_THRESHOLD * 100)
        if al is None:
            return None
        cs, ce = lo + al.dest_start, lo + al.dest_end
        cs, ce = _snap_words(t2, cs, ce)
        cs, ce = self._clip_blocks(*_clip_sentences(t2, *_trim(t2, cs, ce), quote))
        if cs >= ce:
            return None
        _inserted, runs = self.changes.origin(cs, ce)
        kept_elsewhere = sum((r1 - r0) for r0, r1 in runs if min(r1, e) - max(r0, s) <= 0)
        if kept_elsewhere > (ce - cs) / 2:
            return None
        sim = similarity(quote, t2[cs:ce])
        if sim < FUZZY_THRESHOLD or (strict and not _shares_a_word(quote, t2[cs:ce])):
            return None
        if normalize(t2[cs:ce]) == normalize(quote) and not _passage(quote):
            return None  # the same word recurring in rewritten text is not the quote's place
        return Reanchored(
            cs,
            ce,
            "fuzzy",
            round(sim, 4),
            True,
            f"approximate: the closest text to the quote near its old place "
            f"({round(sim * 100)}% similar)",
            round(sim, 4),
        )
