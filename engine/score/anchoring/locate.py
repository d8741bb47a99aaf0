"""Locate an anchor in the version it was made on (docs/verdicts.md, step 1): the stored offsets
when the text there is the quote and no other copy is named better by the context; else the
quote searched outward from the offsets and ranked by context.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.score.anchoring.context import context_agreement, context_score
from engine.score.anchoring.index import TextIndex
from engine.score.anchoring.thresholds import CONTEXT_CHARS, CONTEXT_MARGIN, CONTEXT_THRESHOLD
from engine.score.anchoring.words import breaks_word
from engine.text.normalize import compact, find_starts
from engine.vocabulary import (
    NOTE_AMBIGUOUS,
    NOTE_OFFSETS_REPAIRED,
    NOTE_OTHER_COPY,
    note_made_elsewhere,
)


@dataclass(frozen=True)
class Located:
    """An anchor found in v1: code-point span, and whether its offsets had to be repaired."""

    start: int
    end: int
    repaired: bool
    ambiguous: bool = False
    how: str = "offsets"  # offsets | quote | folded-quote | context-over-offsets


def quote_matches(quote: str, text: str) -> bool:
    """``text`` is the quote, exactly or after folding with whitespace removed."""
    return text == quote or (bool(text) and compact(text) == compact(quote))


def locate(
    index: TextIndex, quote: str, prefix: str, suffix: str, start: int | None, end: int | None
) -> Located | None:
    """Find the anchor in v1. ``start``/``end`` are code points (or None); None if absent.

    Offsets are used when the text there matches the quote, unless another occurrence near
    them agrees with ``prefix``/``suffix`` better by ``CONTEXT_MARGIN`` and at least
    ``CONTEXT_THRESHOLD`` (then that one, repaired). Otherwise the quote is searched (the
    ``NEAR_HITS`` nearest to ``start``, or the first ``MAX_HITS`` without offsets) and hits
    ranked by context, then whole-word hits first, then distance to ``start``.
    """
    text = index.text
    n = len(text)
    if start is not None and end is not None and 0 <= start <= end <= n:
        if quote_matches(quote, text[start:end]):
            if not (prefix or suffix):
                return Located(start, end, repaired=False)
            here = context_score(prefix, suffix, text, start, end)
            if here >= 0.999:
                return Located(start, end, repaired=False)
            other = _copy_named_elsewhere(index, quote, prefix, suffix, start, end, here)
            if other is not None:
                return Located(other[0], other[1], repaired=True, how="context-over-offsets")
            return Located(start, end, repaired=False)
    hint = start if start is not None and 0 <= start <= n else None
    if hint is None and (prefix or suffix):
        # No offsets: the quote with its context is the best key, one search each, from the
        # whole stored context down to 8 characters a side (bounded cost however often the
        # quote itself recurs).
        for k in (CONTEXT_CHARS, 16, 8):
            p, q = prefix[-k:], suffix[:k]
            found = find_starts(text, p + quote + q, 2)
            if found:
                s0 = found[0] + len(p)
                return Located(
                    s0, s0 + len(quote), repaired=True, ambiguous=len(found) > 1, how="quote"
                )
    if hint is not None and (prefix or suffix):
        # The nearest hit whose stored context agrees character for character wins at
        # once: nothing can rank above it (hits come nearest first; the 8 nearest are
        # tried before the full ranking of NEAR_HITS).
        near, how = index.find_near(quote, hint, 8)
        for h in near:
            if (
                text[max(0, h[0] - len(prefix)) : h[0]] == prefix
                and text[h[1] : h[1] + len(suffix)] == suffix
                and not breaks_word(text, h[0], h[1])
            ):
                return Located(h[0], h[1], repaired=True, how=how)
    hits, how = index.find_near(quote, hint)
    if not hits:
        return None

    def rank(h: tuple[int, int]) -> tuple[float, bool, int, int]:
        ctx = context_score(prefix, suffix, text, h[0], h[1])
        whole = not breaks_word(text, h[0], h[1])
        dist = abs(h[0] - hint) if hint is not None else 0
        return (-round(ctx, 3), not whole, dist, h[0])

    ranked = sorted(hits, key=rank)
    best = ranked[0]
    ambiguous = len(ranked) > 1 and rank(ranked[1])[:3] == rank(best)[:3]
    return Located(best[0], best[1], repaired=True, ambiguous=ambiguous, how=how)


def _copy_named_elsewhere(
    index: TextIndex, quote: str, prefix: str, suffix: str, start: int, end: int, here: float
) -> tuple[int, int] | None:
    """Another occurrence of the quote that the stored context names better than the copy
    at the offsets, or None (the offsets stand; a tie keeps them).

    Candidates are the ``NEAR_HITS`` occurrences nearest the offsets and, anywhere in the
    text, the occurrences with the stored context around them exactly (one search per
    context width, ``CONTEXT_CHARS``, 16, 8 characters a side). The winner agrees exactly
    over more characters next to the quote (``context_agreement``) and has a context score
    of at least ``CONTEXT_THRESHOLD``; or, as before, its context score beats the offsets'
    by ``CONTEXT_MARGIN``."""
    text = index.text
    hits, _how = index.find_near(quote, start)
    for k in (CONTEXT_CHARS, 16, 8):
        p, q = prefix[-k:], suffix[:k]
        if not (p or q):
            break
        found = find_starts(text, p + quote + q, 2)
        if found:
            hits = [(f + len(p), f + len(p) + len(quote)) for f in found] + hits
            break
    here_agree = context_agreement(prefix, suffix, text, start, end)
    by_agreement: tuple[int, int] | None = None
    best_agree = here_agree
    by_score: tuple[int, int] | None = None
    best_ctx = here
    for h in hits:
        if h == (start, end):
            continue
        agree = context_agreement(prefix, suffix, text, h[0], h[1])
        ctx = context_score(prefix, suffix, text, h[0], h[1])
        if agree > best_agree and ctx >= CONTEXT_THRESHOLD:
            by_agreement, best_agree = h, agree
        if ctx > best_ctx:
            by_score, best_ctx = h, ctx
    if by_agreement is not None:
        return by_agreement
    if by_score is not None and best_ctx >= CONTEXT_THRESHOLD and best_ctx - here >= CONTEXT_MARGIN:
        return by_score
    return None


def located_notes(loc: Located, made_on: str | None, made_elsewhere: bool, given: str) -> list[str]:
    """What locating a comment's quote in v1 at ``loc`` had to do, in plain sentences
    (a verdict's note). ``made_on``: the version the comment says it was made on;
    ``made_elsewhere``: that is not ``given``, the version the agent was given."""
    notes = []
    if made_elsewhere:
        notes.append(note_made_elsewhere(made_on, given))
    elif loc.repaired and loc.how == "context-over-offsets":
        notes.append(NOTE_OTHER_COPY)
    elif loc.repaired:
        notes.append(NOTE_OFFSETS_REPAIRED)
    if loc.ambiguous:
        notes.append(NOTE_AMBIGUOUS)
    return notes
