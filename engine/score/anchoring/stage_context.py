"""Stage 3, by context: the text between the surviving tail of the prefix and head of the
suffix near the span's estimated place (``context``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.score.anchoring.context import nearest_starts
from engine.score.anchoring.records import Reanchored, _Place
from engine.score.anchoring.thresholds import LOCAL_CHANGE
from engine.score.anchoring.words import _trim, holds_nothing_of
from engine.text.normalize import normalize

if TYPE_CHECKING:
    from engine.score.anchoring.reanchor import _Reanchor


class StageContext:
    """The text between the quote's surviving context."""

    def _between_context_here(self: _Reanchor, p: _Place) -> Reanchored | None:  # type: ignore[misc]
        """``_between_context`` near the estimated place; where the diff's image is small,
        only an answer that agrees with it (the image is the diff's word on the place)."""
        L = p.e - p.s
        between = self._between_context(p.quote, p.prefix, p.suffix, p.es, p.lo, p.hi)
        if (
            between is not None
            and p.me - p.ms <= 2 * L + LOCAL_CHANGE
            and between.start is not None
            and between.end is not None
            and (between.end < p.ms or between.start > p.me)
        ):
            return None
        return between

    def _between_context(  # type: ignore[misc]
        self: _Reanchor,
        quote: str,
        prefix: str,
        suffix: str,
        es: int,
        lo: int,
        hi: int,
    ) -> Reanchored | None:
        """The text between the surviving tail of the prefix and head of the suffix near
        the estimated place: the quote's place, when the diff replaced a larger region."""
        t2 = self.t2
        L = len(quote)
        limit = 2 * L + 40
        if not (prefix or suffix):
            return None
        for k in (16, 10, 6):
            tail = prefix[-k:] if prefix else ""
            head = suffix[:k] if suffix else ""
            if (len(tail) < 4 <= len(prefix)) or (len(head) < 4 <= len(suffix)):
                continue
            lefts = (
                [i + len(tail) for i in nearest_starts(t2, tail, es - len(tail), 8, lo, hi)]
                if tail
                else ([0] if lo == 0 else [])
            )
            for left in lefts:
                if head:
                    right = t2.find(head, left, min(len(t2), left + limit + len(head)))
                    if right < 0:
                        continue
                else:
                    right = len(t2)
                    if right - left > limit:
                        continue
                cs, ce = _trim(t2, left, right)
                if cs >= ce or holds_nothing_of(quote, t2[cs:ce]):
                    # nothing between, or nothing a reader sees as the quote's rewrite: a
                    # zero-width space, a Hangul filler, a lone "." or emoji for a sentence
                    # (docs/verdicts.md, "Not nothing")
                    return Reanchored(
                        None,
                        None,
                        "none",
                        1.0,
                        False,
                        "the quoted text was removed; its context is still there with nothing "
                        + (
                            "between"
                            if cs >= ce
                            else "but punctuation, symbols or invisible characters between"
                        ),
                    )
                if normalize(t2[cs:ce]) == normalize(quote):
                    return Reanchored(
                        cs, ce, "context", 1.0, False, "found between its surviving context"
                    )
                return self._edited(
                    cs,
                    ce,
                    quote,
                    prefix,
                    suffix,
                    "context",
                    "the text now between the quote's surviving context",
                )
        return None
