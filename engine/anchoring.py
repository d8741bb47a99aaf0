"""Locate an anchor in v1 and re-anchor it in v2.

Everything here works in code points on body ``textContent`` strings; ``engine.utf16``
converts the contract's UTF-16 offsets before they arrive.

Locating in v1 (docs/verdicts.md, step 1): the stored offsets are trusted when the text there
equals the quote, exactly or after folding (see engine.normalize; whitespace removed:
a selection across ``<br>`` captures a space that ``textContent`` lacks). Otherwise the
quote is searched for and every hit is scored by its context and by its distance from the
stored offset; the winner's offsets are reported as repaired.

Re-anchoring in v2 (docs/verdicts.md, step 2) lets the diff say where each v2 character came from,
which is what rules out the known failure kinds of quote-search anchoring:

* the v1 span inside one equal run of the diff: its image is the answer (``exact``);
* a copy of the quote elsewhere in v2 is accepted only if it is new text (inserted, not
  kept from v1) with matching context: the passage moved (``context``). A copy kept from
  some other place in v1 is a lookalike that was already there, never the anchor;
* otherwise the text the diff put in the span's place (``diff``), or, when that region is
  a poor fit, the best approximate match of the quote inside it and up to
  ``FUZZY_WINDOW`` characters around it (``fuzzy``, similarity >= ``FUZZY_THRESHOLD``),
  snapped to whole words;
* nothing in its place: the quote was deleted.

Hits inside a longer word are rejected unless the v1 span was itself part of a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.diffing import TextDiff
from engine.normalize import FoldedText, compact, find_starts, fold_needle, normalize

FUZZY_WINDOW = 200
"""Characters searched either side of the mapped position (docs/verdicts.md, step 2)."""
FUZZY_THRESHOLD = 0.5
"""Minimum normalised Indel similarity of a fuzzy hit (docs/verdicts.md, step 2)."""
CONTEXT_THRESHOLD = 0.7
"""Minimum context similarity for a moved copy of the quote to be taken as the anchor."""
CONTEXT_CHARS = 32
"""Characters of v1 context compared around a candidate (the anchor contract's 32)."""
MAX_HITS = 2000
"""Occurrences of a quote examined; beyond that the nearest to the expected place win."""

_WORD = re.compile(r"\w")


def _is_word(ch: str) -> bool:
    return bool(ch) and bool(_WORD.match(ch))


def similarity(a: str, b: str) -> float:
    """Normalised Indel similarity in [0, 1] (rapidfuzz ``Indel.normalized_similarity``)."""
    if not a and not b:
        return 1.0
    from rapidfuzz.distance import Indel  # lazy: 30 ms of start-up most scores never need

    return Indel.normalized_similarity(a, b)


def context_score(prefix: str, suffix: str, text: str, s: int, e: int) -> float:
    """How well ``text`` around ``[s, e)`` agrees with ``prefix``/``suffix``, in [0, 1].

    Each side is compared over the stored context's length; an empty stored side counts
    as agreeing only when the candidate is at the matching edge of the text. The score is
    the mean of the two sides' similarities.
    """
    sides = []
    if prefix:
        cand = text[max(0, s - len(prefix)) : s]
        sides.append(similarity(prefix, cand))
    if suffix:
        cand = text[e : e + len(suffix)]
        sides.append(similarity(suffix, cand))
    return sum(sides) / len(sides) if sides else 0.0


def breaks_word(
    text: str, s: int, e: int, like_text: str | None = None, like_s: int = 0, like_e: int = 0
) -> bool:
    """True if ``[s, e)`` cuts a word of ``text`` where the reference span does not.

    The reference is ``like_text[like_s:like_e]`` (the v1 span); when it is None, any cut
    word counts.
    """
    if s >= e:
        return False
    cut_left = _is_word(text[s - 1 : s]) and _is_word(text[s : s + 1])
    cut_right = _is_word(text[e - 1 : e]) and _is_word(text[e : e + 1])
    if like_text is not None:
        ref_left = _is_word(like_text[like_s - 1 : like_s]) and _is_word(
            like_text[like_s : like_s + 1]
        )
        ref_right = _is_word(like_text[like_e - 1 : like_e]) and _is_word(
            like_text[like_e : like_e + 1]
        )
        cut_left = cut_left and not ref_left
        cut_right = cut_right and not ref_right
    return cut_left or cut_right


# -- locate in v1 ------------------------------------------------------------------------


@dataclass(frozen=True)
class Located:
    """An anchor found in v1: code-point span, and whether its offsets had to be repaired."""

    start: int
    end: int
    repaired: bool
    ambiguous: bool = False
    how: str = "offsets"  # offsets | quote | folded-quote


class TextIndex:
    """One version's text with lazily built folded forms, shared by every comment."""

    def __init__(self, text: str):
        self.text = text
        self._collapsed: FoldedText | None = None
        self._compact: FoldedText | None = None

    @property
    def collapsed(self) -> FoldedText:
        if self._collapsed is None:
            self._collapsed = FoldedText(self.text, collapse_space=True)
        return self._collapsed

    @property
    def compacted(self) -> FoldedText:
        if self._compact is None:
            self._compact = FoldedText(self.text, collapse_space=False)
        return self._compact

    def find_raw(self, needle: str, limit: int = MAX_HITS) -> list[tuple[int, int]]:
        n = len(needle)
        return [(i, i + n) for i in find_starts(self.text, needle, limit)]

    def find(self, quote: str) -> tuple[list[tuple[int, int]], str]:
        """Every occurrence of ``quote``: raw, else folded, else whitespace-free folded."""
        hits = self.find_raw(quote)
        if hits:
            return hits, "quote"
        needle = fold_needle(quote)
        if needle:
            hits = self.collapsed.find_all(needle, MAX_HITS)
            if hits:
                return hits, "folded-quote"
        needle = fold_needle(quote, collapse_space=False)
        if needle:
            hits = self.compacted.find_all(needle, MAX_HITS)
            if hits:
                return hits, "folded-quote"
        return [], ""


def quote_matches(quote: str, text: str) -> bool:
    """``text`` is the quote, exactly or after folding with whitespace removed."""
    return text == quote or (bool(text) and compact(text) == compact(quote))


def locate(
    index: TextIndex, quote: str, prefix: str, suffix: str, start: int | None, end: int | None
) -> Located | None:
    """Find the anchor in v1. ``start``/``end`` are code points (or None); None if absent.

    Offsets are used as they are when the text there matches the quote; otherwise the quote
    is searched and hits ranked by context (prefix/suffix similarity), then by distance to
    ``start``, then by position. Hits that cut a word are ranked below whole-word hits.
    """
    text = index.text
    n = len(text)
    if start is not None and end is not None and 0 <= start <= end <= n:
        if quote_matches(quote, text[start:end]):
            return Located(start, end, repaired=False)
    hits, how = index.find(quote)
    if not hits:
        return None
    hint = start if start is not None and 0 <= start <= n else None

    def rank(h: tuple[int, int]):
        ctx = context_score(prefix, suffix, text, h[0], h[1])
        whole = not breaks_word(text, h[0], h[1])
        dist = abs(h[0] - hint) if hint is not None else 0
        return (-round(ctx, 3), not whole, dist, h[0])

    ranked = sorted(hits, key=rank)
    best = ranked[0]
    ambiguous = len(ranked) > 1 and rank(ranked[1])[:3] == rank(best)[:3]
    return Located(best[0], best[1], repaired=True, ambiguous=ambiguous, how=how)


# -- re-anchor in v2 ---------------------------------------------------------------------


@dataclass(frozen=True)
class Reanchored:
    """Where a v1 span is in v2. ``start``/``end`` None means the quote is gone."""

    start: int | None
    end: int | None
    method: str  # exact | context | fuzzy | diff | none
    confidence: float
    approximate: bool
    note: str = ""


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def _snap_words(text: str, s: int, e: int) -> tuple[int, int]:
    """Widen ``[s, e)`` so it neither starts nor ends inside a word."""
    while s > 0 and _is_word(text[s - 1]) and _is_word(text[s]):
        s -= 1
    while e < len(text) and _is_word(text[e - 1]) and _is_word(text[e]):
        e += 1
    return s, e


def reanchor(v1: TextIndex, v2: TextIndex, diff: TextDiff, s: int, e: int) -> Reanchored:
    """Re-anchor v1 ``[s, e)`` in v2 (code points). See the module docstring."""
    t1, t2 = v1.text, v2.text
    quote = t1[s:e]
    prefix = t1[max(0, s - CONTEXT_CHARS) : s]
    suffix = t1[e : e + CONTEXT_CHARS]

    # 1. The diff kept the span as it was.
    b = diff.unchanged_image(s, e)
    if b is not None:
        return Reanchored(b, b + (e - s), "exact", 1.0, False)

    ms, me = diff.image(s, e)

    # 2. A copy of the quote that is new text in v2, with v1's context around it: moved.
    moved = _moved_copy(v2, diff, quote, prefix, suffix, t1, s, e, ms)
    if moved is not None:
        return moved

    # 3. What the diff put in the span's place.
    rs, re_ = _trim(t2, ms, me)
    if rs >= re_ or not any(ch.isalnum() for ch in t2[rs:re_]):
        return _fuzzy(v2, diff, quote, t1, s, e, ms, me) or Reanchored(
            None, None, "none", 1.0, False, "the quoted text is gone and nothing replaced it"
        )
    region = t2[rs:re_]
    if normalize(region) == normalize(quote):
        return Reanchored(
            rs,
            re_,
            "exact",
            1.0,
            False,
            "same text after normalisation (whitespace, canonical forms, ligatures)",
        )
    tight = len(region) <= 2 * len(quote) + 40
    if tight:
        sim = similarity(quote, region)
        return Reanchored(
            rs,
            re_,
            "diff",
            round(max(0.6, sim), 4),
            True,
            "the text the revision put in place of the quote",
        )
    fz = _fuzzy(v2, diff, quote, t1, s, e, ms, me)
    if fz is not None:
        return fz
    return Reanchored(
        rs,
        re_,
        "diff",
        0.4,
        True,
        "the quote was rewritten within a larger change; region approximate",
    )


def _moved_copy(
    v2: TextIndex,
    diff: TextDiff,
    quote: str,
    prefix: str,
    suffix: str,
    t1: str,
    s: int,
    e: int,
    expected: int,
) -> Reanchored | None:
    t2 = v2.text
    # Only copies made wholly of inserted text qualify: a copy kept from elsewhere in v1
    # is a lookalike that was there all along, never the anchor.
    best: tuple[float, int, int, int] | None = None
    for hs, he in diff.find_inserted(quote, MAX_HITS):
        if breaks_word(t2, hs, he, t1, s, e):
            continue
        ctx = context_score(prefix, suffix, t2, hs, he)
        if ctx < CONTEXT_THRESHOLD:
            continue
        cand = (ctx, -abs(hs - expected), hs, he)
        if best is None or cand > best:
            best = cand
    if best is None:
        return None
    return Reanchored(
        best[2],
        best[3],
        "context",
        round(best[0], 4),
        False,
        "the quoted passage moved; found by its context",
    )


def _fuzzy(
    v2: TextIndex, diff: TextDiff, quote: str, t1: str, s: int, e: int, ms: int, me: int
) -> Reanchored | None:
    """Best approximate match of ``quote`` near the changed region, or None.

    The window is the diff image widened by FUZZY_WINDOW on each side. A candidate must
    overlap the image (or touch it), be mostly new text (inserted, not kept from elsewhere
    in v1: never a lookalike), not cut a word, and reach FUZZY_THRESHOLD.
    """
    t2 = v2.text
    if len(quote) < 3:
        return None
    w0 = max(0, ms - FUZZY_WINDOW)
    w1 = min(len(t2), me + FUZZY_WINDOW)
    window = t2[w0:w1]
    if not window.strip():
        return None
    from rapidfuzz import fuzz

    al = fuzz.partial_ratio_alignment(quote, window, score_cutoff=FUZZY_THRESHOLD * 100)
    if al is None:
        return None
    cs, ce = w0 + al.dest_start, w0 + al.dest_end
    cs, ce = _snap_words(t2, cs, ce)
    cs, ce = _trim(t2, cs, ce)
    if cs >= ce or ce < ms or cs > me:
        return None
    inserted, runs = diff.v2_origin(cs, ce)
    kept_elsewhere = sum((min(r1, e) - max(r0, s) <= 0 and (r1 - r0)) or 0 for r0, r1 in runs)
    if kept_elsewhere > (ce - cs) / 2:
        return None
    sim = similarity(quote, t2[cs:ce])
    if sim < FUZZY_THRESHOLD:
        return None
    return Reanchored(
        cs,
        ce,
        "fuzzy",
        round(sim, 4),
        True,
        f"approximate: the closest text to the quote near its old place "
        f"({round(sim * 100)}% similar)",
    )
