"""Stage 3: what stands at the span's place, the stages there in their order (``_in_place``):
the text the diff put there, the text between the surviving context, the quote equal after
normalisation nearby, the best approximate match, the sentence rewritten in place, the
sentence moved and rewritten; and, with nothing there, ``deleted`` (``_gone``). Every
answer passes ``admits`` (engine.score.anchoring.gates).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.index import same_words
from engine.score.anchoring.records import Reanchored, _Place
from engine.score.anchoring.sentences import _without_context
from engine.score.anchoring.thresholds import FUZZY_THRESHOLD
from engine.score.anchoring.words import _snippet, _trim, holds_nothing_of
from engine.text.normalize import normalize

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


class StagePlace:
    """What stands at the span's place."""

    def _in_place(self: _Reanchor, p: _Place) -> tuple[Reanchored | None, bool]:  # type: ignore[misc]
        """What stands at the span's place (see the module docstring, step 3), or None,
        and whether that answer is weak (a different text in a tight place, or "the
        sentence was rewritten in place"): a moved copy with its context beats a weak
        answer. Every answer passes ``admits`` (what may never be a span's new place);
        one that does not is passed over for the next."""
        t2 = self.t2
        rs, re_ = _trim(t2, *_without_context(t2, p.ms, p.me, p.quote, p.prefix, p.suffix))
        region = t2[rs:re_]
        # nothing there, or nothing a reader sees as the quote's rewrite (a "." or a
        # zero-width space where a sentence stood: docs/verdicts.md, "Not nothing")
        leftover = not region or holds_nothing_of(p.quote, region)
        if self.mapped is not None:
            verbatim = self._verbatim_in(p, *self.mapped)
            if verbatim is not None:
                return verbatim, False
        if not leftover:
            here = self._what_the_diff_put_there(p, rs, re_)
            if here is not None and self.admits(here[0], p):
                return here
        for stage in (self._between_context_here, self._folded_copy_near, self._fuzzy_at_place):
            found = stage(p)
            if found is not None and self.admits(found, p):
                return found, False
        if not leftover and (p.local or self._sentence_survives(p)):
            rewritten = self._rewritten_in_place(p, rs, re_)
            if self.admits(rewritten, p):
                return rewritten, True
        if leftover:
            travelled = self._travelled_sentence(p)
            if travelled is not None and travelled != self.mapped:
                mapped, self.mapped = self.mapped, travelled  # its sentence is there
                moved = self._moved_and_rewritten(p, *travelled)
                if moved is not None and self.admits(moved, p):
                    return moved, False
                self.mapped = mapped
        if leftover and self.mapped is not None:
            moved = self._moved_and_rewritten(p, *self.mapped)
            if moved is not None and self.admits(moved, p):
                return moved, False
            if self._sentence_survives(p):
                # the diff put nothing at the place, but the sentence's rewrite stands in
                # its block (a neighbour that moved out of the paragraph misled the diff)
                share = self._share_of_mapped(p)
                if share is not None:
                    rewritten = self._edited(
                        *share,
                        p.quote,
                        p.prefix,
                        p.suffix,
                        "diff",
                        "the quote's sentence was rewritten; the text now in its place there",
                    )
                    if self.admits(rewritten, p):
                        return rewritten, False
        if leftover:
            return Reanchored(
                None,
                None,
                "none",
                1.0,
                False,
                "the quoted text was removed and nothing stands in its place",
            ), False
        return None, False

    def _what_the_diff_put_there(  # type: ignore[misc]
        self: _Reanchor,
        p: _Place,
        rs: int,
        re_: int,
    ) -> tuple[Reanchored, bool] | None:
        """The text the diff put in the span's place, ``[rs, re_)``, when it decides: the
        quote itself after normalisation, or, where the change is local and tight, the
        edit (weak when it is unlike the quote)."""
        L = p.e - p.s
        region = self.t2[rs:re_]
        if len(region) <= 4 * L + 64 and (
            normalize(region) == normalize(p.quote)
            or same_words(self.v1, p.s, p.e, self.v2, rs, re_)
        ):
            return Reanchored(
                rs,
                re_,
                "exact",
                1.0,
                False,
                "same text after normalisation (whitespace, canonical forms, ligatures)",
            ), False
        if p.local and len(region) <= 2 * L + 40:
            r = self._edited(
                rs,
                re_,
                p.quote,
                p.prefix,
                p.suffix,
                "diff",
                "the text the revision put in place of the quote",
            )
            return r, (r.similarity or 0.0) < FUZZY_THRESHOLD
        return None

    def _gone(self: _Reanchor, quote: str, ms: int, me: int, lo: int, hi: int) -> Reanchored:  # type: ignore[misc]
        rs, re_ = _trim(self.t2, ms, me)
        if rs >= re_ or holds_nothing_of(quote, self.t2[rs:re_]):
            return Reanchored(
                None,
                None,
                "none",
                1.0,
                False,
                "the quoted text was removed and nothing stands in its place",
            )
        a, b = _trim(self.t2, max(rs, lo), min(re_, hi))
        from rapidfuzz import fuzz

        # how sure "gone" is: one minus the best partial match of the quote near its place
        best = fuzz.partial_ratio(quote, self.t2[lo:hi]) / 100 if hi > lo else 0.0
        return Reanchored(
            None,
            None,
            "none",
            round(1.0 - best, 4),
            False,
            "the passage around the quote was replaced and nothing near its old place "
            f"matches the quote; that place now reads “{_snippet(self.t2[a:b])}”",
        )
