"""Locate an anchor in v1 and re-anchor it in v2.

Everything here works in code points on body ``textContent`` strings; ``engine.text.utf16``
converts the contract's UTF-16 offsets before they arrive.

Why this module is long: locating and re-anchoring are one algorithm whose steps share
the same state (the pair's texts, the diff, the change index, the span's estimated place)
and are tried in an order that decides verdicts; split across modules, that order and its
bounds would no longer be readable in one place (docs/engine.md walks through it).

Locating in v1 (docs/verdicts.md, step 1): the stored offsets are used when the text there
equals the quote, exactly or after folding (see engine.text.normalize; whitespace removed: a
selection across ``<br>`` captures a space that ``textContent`` lacks) *and* no other
occurrence of the quote nearby agrees clearly better with the stored prefix/suffix: when
offsets land on one copy of a repeated passage while the context names another, the
context wins and the offsets are reported repaired. Without usable offsets the quote is
searched and hits ranked by context, then by distance from the stored offset.

Re-anchoring in v2 (docs/verdicts.md, step 2) lets the diff say where each v2 character
came from. In order:

1. the v1 span inside one equal run of the diff: its image (``exact``) — unless the span is
   one copy of a repeated passage and the kept copy's context names the *other* copy, which
   the diff removed or changed (then the verdict follows the copy the context names);
2. a copy of the quote that is new (inserted) text in v2: the passage moved (``moved``),
   taken when its context agrees with v1's, or when it lies in the span's own
   neighbourhood. A copy kept from elsewhere in v1 is a lookalike that was there all along
   and is taken only when it is another copy of the same repeated passage and v1's context
   names it better than the copy it came from (``context``);
3. the span's place: the text the diff put there (``diff``) when the change is local; the
   text between the surviving tail of the prefix and head of the suffix (``context``); or
   the best approximate match of the quote in the span's neighbourhood (``fuzzy``,
   similarity >= ``FUZZY_THRESHOLD``, mostly new text, snapped to whole words). The
   neighbourhood is the span's estimated position ± ``FUZZY_WINDOW`` characters, bounded
   however large a region the diff replaced;
4. otherwise ``deleted``: the note says what now stands near the old place.

A span is *edited* when its place survives and the text in it changed, however different
(a punctuation-only quote replaced by a dash, an emoji by another tone); it is *deleted*
when nothing stands in its place, or the quote and its context are both gone and nothing
near is a fuzzy match.

Cost per comment is bounded by its neighbourhood, not the document: occurrences are
searched outwards from the expected position and at most ``NEAR_HITS`` nearest are
examined; fuzzy matching runs on a window of about ``2 * FUZZY_WINDOW`` characters plus the
quote. No step depends on a clock.

``confidence`` is how sure the engine is of the v2 place (1.0 for the diff's own
evidence; the context agreement or the similarity otherwise); ``similarity`` is the Indel
similarity of the v1 and v2 texts, given only where it was measured.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

from engine.diff.churn import Change
from engine.diff.diffing import TextDiff
from engine.text.normalize import FoldedText, compact, find_starts, fold_needle, normalize
from engine.vocabulary import Method

FUZZY_WINDOW = 200
"""Characters searched either side of the span's estimated place (reference design,
docs/verdicts.md)."""
FUZZY_THRESHOLD = 0.5
"""Minimum normalised Indel similarity of a fuzzy hit (reference design, docs/verdicts.md)."""
CONTEXT_THRESHOLD = 0.7
"""Minimum context similarity for a moved copy of the quote found far from its place."""
MOVED_SIDE_THRESHOLD = 0.85
"""Minimum agreement of the context that travels with a moved copy (``side_score``): a
moved sentence keeps its own words around the quote, where a chance copy in rewritten text
shares only some."""
CONTEXT_MARGIN = 0.15
"""How much better another copy's context must agree before it wins over the offsets or
over the copy the diff kept."""
CONTEXT_CHARS = 32
"""Characters of v1 context compared around a candidate (the anchor contract's 32)."""
NEAR_HITS = 64
"""Occurrences of a quote examined, nearest to the expected place first."""
MAX_HITS = 256
"""Occurrences examined when there is no expected place at all (no usable offsets, and the
quote with its context is not in the text)."""
KEPT_GAP = 12
"""An equal run shorter than this between two changes is chance (a shared " the "), not
surviving text: the changes count as one replaced region."""
LOCAL_CHANGE = 400
"""A replaced region counts as the span's own place when it reaches at most this many
characters beyond the span on either side (a rewritten sentence), and kept text of at
least ``KEPT_GAP`` characters bounds it."""


QUOTE_DICE = 0.25
"""Weight of the quote's own words beside its whole sentence's when choosing the v2
sentence a rewritten sentence became (a sentence split in two: the quote goes with its
words)."""

KEPT_SHARE = 0.25
"""Weight of the share of the sentence's kept text (the diff's equal runs) that lies in a
candidate v2 sentence: the diff's own evidence beside the words' similarity."""
DISTANCE_COST = 0.1
"""How much a candidate v2 sentence's distance from the estimated place costs, per
``FUZZY_WINDOW`` characters, against its word-set similarity."""

SURVIVING_WORD = 4
"""Letters of the shortest word that, shared by a quote's v1 sentence and the v2 sentence
it became, shows that the sentence's place survived a rewrite of everything around it
(``_Reanchor._sentence_survives``): "newsletter" in "Members recieve a newsletter every
month." -> "Every member receives a monthly newsletter." Words of three letters (the, and,
for) recur in any text, so a document rewritten from scratch that shares only "the" is
deleted (tests/engine/test_anchoring_kinds.py)."""

TRAVELLED_CONTEXT = 16
"""Characters of a quote's prefix or suffix (inside its own sentence) that, found verbatim in
new text elsewhere, show where its sentence moved (``_Reanchor._travelled_sentence``): the
anchor contract's context is 32 characters, and 16 of them are a passage, not a chance
match (``_passage``)."""

INDEX_AFTER = 64
"""Far searches done by scanning the inserted text before its word index is built."""
INDEX_KEY = 8
"""Characters from a word start that key the index of inserted text (far moved copies)."""
REGION_REACH = 4 * LOCAL_CHANGE
"""How far beyond a span the replaced region around it is followed."""

_WORD = re.compile(r"\w")
_INDEX_START = re.compile(r"(?<!\w)\w")
# Scripts written without spaces: every character is a unit of its own (UAX #29 treats
# ideographs so; Thai, Lao, Khmer and Myanmar need a dictionary, and without one the
# character is the safe unit), so a span may start or end between any two of them.
_NO_SPACE = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)


_JOINERS = "\u200c\u200d"
"""Zero-width non-joiner and joiner: inside a word (Persian "می‌خواهم" is one word; UAX #29
gives them Extend, which never breaks a word)."""


def _is_word(ch: str) -> bool:
    """``ch`` is part of a word of a script written with spaces: a letter or digit, a
    combining mark (Devanagari vowel signs, Arabic harakat, a decomposed accent) or a
    zero-width (non-)joiner. Letters of scripts written without spaces are units of their
    own and never form a word here."""
    if not ch or _NO_SPACE.match(ch):
        return False
    return bool(_WORD.match(ch)) or ch in _JOINERS or unicodedata.category(ch)[0] == "M"


_indel = None


def similarity(a: str, b: str) -> float:
    """Normalised Indel similarity in [0, 1] (rapidfuzz ``Indel.normalized_similarity``)."""
    global _indel
    if a == b:
        return 1.0
    if _indel is None:
        from rapidfuzz.distance import Indel  # lazy: 30 ms of start-up most scores never need

        _indel = Indel.normalized_similarity
    return _indel(a, b)


def context_score(prefix: str, suffix: str, text: str, s: int, e: int) -> float:
    """How well ``text`` around ``[s, e)`` agrees with ``prefix``/``suffix``, in [0, 1].

    Each side is compared over the stored context's length. The score is the mean of the
    two sides' similarities; 0.0 when both stored sides are empty.
    """
    sides = []
    if prefix:
        sides.append(similarity(prefix, text[max(0, s - len(prefix)) : s]))
    if suffix:
        sides.append(similarity(suffix, text[e : e + len(suffix)]))
    return sum(sides) / len(sides) if sides else 0.0


def side_score(prefix: str, suffix: str, text: str, s: int, e: int) -> float:
    """How well the context that travels with a moved passage agrees, in [0, 1]: the parts
    of ``prefix`` and ``suffix`` inside the quote's own sentence (a moved sentence has new
    neighbours), each side compared when it has at least 4 characters; the better side
    counts. 0.0 when neither side has that much."""
    ends = list(_SENTENCE_END.finditer(prefix))
    p_in = prefix[ends[-1].end() :] if ends else prefix
    m = _SENTENCE_END.search(suffix)
    s_in = suffix[: m.start() + 1] if m else suffix
    a, b = s - len(p_in), e + len(s_in)
    if a >= 0 and b - a >= 8 and text[a:s] == p_in and text[e:b] == s_in:
        return 1.0  # the quote's whole sentence (as far as the context reaches) travelled
    sides = [0.0]
    if len(p_in.strip()) >= 4:
        sides.append(similarity(p_in, text[max(0, s - len(p_in)) : s]))
    if len(s_in.strip()) >= 4:
        sides.append(similarity(s_in, text[e : e + len(s_in)]))
    return max(sides)


def joined(text: str, i: int) -> bool:
    """A word or a number runs across boundary ``i`` of ``text`` (between ``text[i - 1]``
    and ``text[i]``): word characters on both sides (``_is_word``), or a ``.`` or ``,``
    between two digits ("3.1", "1,500": Unicode UAX #29 keeps a number whole across
    MidNum/MidNumLet, rules WB11 and WB12)."""
    a, b = text[i - 1 : i] if i > 0 else "", text[i : i + 1]
    if not a or not b:
        return False
    if _is_word(a) and _is_word(b):
        return True
    if a in ".," and b.isdigit() and text[i - 2 : i - 1].isdigit():
        return True
    return b in ".," and a.isdigit() and text[i + 1 : i + 2].isdigit()


def breaks_word(
    text: str, s: int, e: int, like_text: str | None = None, like_s: int = 0, like_e: int = 0
) -> bool:
    """True if ``[s, e)`` cuts a word or a number of ``text`` where the reference span does
    not (``joined``).

    The reference is ``like_text[like_s:like_e]`` (the v1 span); when it is None, any cut
    word counts. Characters of scripts written without spaces never form a cut word.
    """
    if s >= e:
        return False
    cut_left, cut_right = joined(text, s), joined(text, e)
    if like_text is not None:
        cut_left = cut_left and not joined(like_text, like_s)
        cut_right = cut_right and not joined(like_text, like_e)
    return cut_left or cut_right


def nearest_starts(
    text: str, needle: str, center: int, k: int = NEAR_HITS, lo: int = 0, hi: int | None = None
) -> list[int]:
    """Starts of the (at most) ``k`` occurrences of ``needle`` in ``text[lo:hi]`` nearest to
    ``center``, nearest first (ties: the earlier one). Overlapping occurrences count.

    The search grows a window around ``center`` (x4 each time) until it holds ``k`` hits
    whose farthest is inside the window, so a frequent needle costs its neighbourhood, not
    the document; an absent one costs about two scans of ``text[lo:hi]`` (``str.find``).
    """
    hi = len(text) if hi is None else min(hi, len(text))
    n = len(needle)
    if not needle or hi - lo < n:
        return []
    center = min(max(center, lo), hi)
    w = max(256, 8 * n)
    while True:
        a, b = max(lo, center - w), min(hi, center + w + n)
        found = []
        i = text.find(needle, a, b)
        while i >= 0:
            found.append(i)
            i = text.find(needle, i + 1, b)
        found.sort(key=lambda x: (abs(x - center), x))
        whole = a == lo and b == hi
        if whole or (len(found) >= k and abs(found[k - 1] - center) <= w):
            return found[:k]
        w *= 4


# -- locate in v1 ------------------------------------------------------------------------


@dataclass(frozen=True)
class Located:
    """An anchor found in v1: code-point span, and whether its offsets had to be repaired."""

    start: int
    end: int
    repaired: bool
    ambiguous: bool = False
    how: str = "offsets"  # offsets | quote | folded-quote | context-over-offsets


_STRUCTURE_LINE = re.compile(r"[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]|[ \t]{0,3}#{1,6}(?:[ \t]|$)")
"""A line that starts a Markdown block of its own: a list item (``-``, ``*``, ``+``, ``1.``,
``1)`` and a space) or an ATX heading (CommonMark 0.31, sections 4.2 and 5.2)."""


def plain_text_breaks(text: str) -> list[int]:
    """Block boundaries of a plain-text document (code points, sorted): a paragraph is a
    run of lines between blank lines, so both edges of a blank-line run are boundaries; a
    line that starts a list item or a heading (``_STRUCTURE_LINE``) or a pipe-table row
    (its first non-space character is ``|``) is a block of its own, and each ``|`` of a
    table row is a cell border (docs/verdicts.md, "Blocks and words"). A line break inside
    a paragraph is no boundary: re-wrapped text keeps its words."""
    out: list[int] = []
    lines = []
    i = 0
    while True:
        j = text.find("\n", i)
        lines.append((i, len(text) if j < 0 else j))
        if j < 0:
            break
        i = j + 1
    prev_row = False
    prev_blank = True
    for a, b in lines:
        line = text[a:b]
        blank = not line.strip()
        row = line.lstrip().startswith("|")
        own = row or bool(_STRUCTURE_LINE.match(line))
        if blank:
            if not prev_blank:
                out.append(a - 1 if a > 0 else a)
        elif prev_blank or own or prev_row:
            out.append(a)
        if row:
            out.append(b)
        if row:
            out += [a + m.start() for m in re.finditer(r"\|", line)]
            out += [a + m.end() for m in re.finditer(r"\|", line)]
        prev_row, prev_blank = row, blank
    out.append(len(text))
    return sorted(set(out))


class TextIndex:
    """One version's text with lazily built folded forms, shared by every comment.

    ``breaks``: the document's block boundaries (sorted code-point offsets; an HTML
    document's come from its markup, ``Extraction.block_breaks``); None for plain text,
    whose boundaries are its lines (``plain_text_breaks``, built on first use)."""

    def __init__(self, text: str, breaks: list[int] | None = None):
        self.text = text
        self._collapsed: FoldedText | None = None
        self._compact: FoldedText | None = None
        self._breaks = breaks

    @property
    def breaks(self) -> list[int]:
        if self._breaks is None:
            self._breaks = plain_text_breaks(self.text)
        return self._breaks

    def crosses(self, s: int, e: int) -> bool:
        """``[s, e)`` (whitespace at its edges aside) holds a block boundary strictly
        inside."""
        s, e = _trim(self.text, s, e)
        br = self.breaks
        i = bisect.bisect_right(br, s)
        return i < len(br) and br[i] < e

    def block(self, s: int, e: int) -> tuple[int, int]:
        """The block(s) holding ``[s, e)``: from the last boundary at or before ``s`` to the
        first at or after ``e``."""
        br = self.breaks
        i = bisect.bisect_right(br, s) - 1
        j = bisect.bisect_left(br, e)
        return (br[i] if i >= 0 else 0), (br[j] if j < len(br) else len(self.text))

    def beside(self, s: int, e: int) -> tuple[int, int]:
        """``[s, e)`` widened by the block just before and the block just after it, when
        only whitespace separates them from it."""
        br, text = self.breaks, self.text
        i = bisect.bisect_left(br, s) - 1
        while i >= 0 and not text[br[i] : s].strip():
            i -= 1
        a = br[i] if i >= 0 and not text[br[i + 1] if i + 1 < len(br) else s : s].strip() else s
        j = bisect.bisect_right(br, e)
        while j < len(br) and not text[e : br[j]].strip():
            j += 1
        b = br[j] if j < len(br) and not text[e : br[j - 1]].strip() else e
        return min(a, s), max(b, e)

    def pieces(self, s: int, e: int) -> list[tuple[int, int]]:
        """``[s, e)`` cut at every block boundary inside it."""
        br = self.breaks
        cuts = br[bisect.bisect_right(br, s) : bisect.bisect_left(br, e)]
        bounds = [s, *cuts, e]
        return [(a, b) for a, b in zip(bounds, bounds[1:]) if a < b]

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

    def find_near(
        self, quote: str, center: int | None, k: int = NEAR_HITS
    ) -> tuple[list[tuple[int, int]], str]:
        """Occurrences of ``quote`` nearest to ``center`` (from the top when None): raw,
        else folded, else whitespace-free folded. Returns (spans, how)."""
        limit = k if center is not None else MAX_HITS
        c = 0 if center is None else center
        n = len(quote)
        hits = [(i, i + n) for i in nearest_starts(self.text, quote, c, limit)]
        if hits:
            return hits, "quote"
        for ft, collapse in ((self.collapsed, True), (self.compacted, False)):
            needle = fold_needle(quote, collapse_space=collapse)
            if not needle:
                continue
            fc = ft.folded_pos(c)
            starts = nearest_starts(ft.folded, needle, fc, limit)
            if starts:
                return [ft.raw_span(i, i + len(needle)) for i in starts], "folded-quote"
        return [], ""


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


def context_agreement(prefix: str, suffix: str, text: str, s: int, e: int) -> int:
    """How many characters of ``prefix`` (from its end) and ``suffix`` (from its start)
    agree exactly with ``text`` around ``[s, e)``, counted outward from the quote until the
    first difference. Numbered repeats ("Item 1499: see" / "Item 1500: see") are told apart
    by this, where a similarity of the whole context barely differs."""
    n = 0
    for k in range(1, min(len(prefix), s) + 1):
        if prefix[-k] != text[s - k]:
            break
        n = k
    m = 0
    for k in range(min(len(suffix), len(text) - e)):
        if suffix[k] != text[e + k]:
            break
        m = k + 1
    return n + m


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


# -- re-anchor in v2 ---------------------------------------------------------------------


@dataclass(frozen=True)
class Reanchored:
    """Where a v1 span is in v2. ``start``/``end`` None means the quote is gone.

    ``confidence``: how sure the place is, in [0, 1]. ``similarity``: Indel similarity of
    the v1 quote and the v2 text, or None where none was measured."""

    start: int | None
    end: int | None
    method: Method  # exact | moved | context | fuzzy | diff | none
    confidence: float
    approximate: bool
    note: str = ""
    similarity: float | None = None


def _substantial(kept: str) -> bool:
    """Kept text long enough to count as surviving surroundings, not chance: ``KEPT_GAP``
    characters, or four of a script written without spaces (a short CJK sentence)."""
    if len(kept) >= KEPT_GAP:
        return True
    if kept.isascii():
        return False
    return len(_NO_SPACE.findall(kept)) >= 4


class ChangeIndex:
    """The diff's changed regions, built once per pair, for "which replaced region holds
    this span, and is kept text around it?" in O(log n)."""

    def __init__(self, diff: TextDiff):
        self.diff = diff
        self.changes: list[Change] = diff.changes()
        self._a0 = [c.a0 for c in self.changes]
        self.len_a = len(diff.a)
        self.len_b = len(diff.b)
        self._regions: dict[tuple[int, int], tuple[int, int, int, int] | None] = {}
        self._inserted_words: dict[str, list[int]] | None = None
        self._far_searches = 0
        self.sentences: dict[
            tuple[int, int], tuple[set[str], int, list[tuple[int, int, set[str], float]]]
        ] = {}
        """Per v1 sentence, the mapped-sentence candidates (``_Reanchor._sentence_candidates``)."""
        self._words: dict[tuple[int, int], set[str]] = {}

    def words_of(self, text: str, s: int, e: int) -> set[str]:
        """The word set of v2 ``text[s:e]`` (``_word_set``), built once per span."""
        key = (s, e)
        hit = self._words.get(key)
        if hit is None:
            hit = self._words[key] = _word_set(text[s:e])
        return hit

    def find_inserted(self, quote: str, limit: int = NEAR_HITS) -> list[int]:
        """v2 starts of copies of ``quote`` that begin in inserted text, found through an
        index of the inserted text's word starts (built once, on first use), so a search
        costs the candidates, not a scan of all new text. Quotes without a word start
        followed by ``INDEX_KEY`` characters, and the first ``INDEX_AFTER`` searches, use the
        diff's scan."""
        m = _INDEX_START.search(quote)
        self._far_searches += 1
        if m is None or len(quote) - m.start() < INDEX_KEY or self._far_searches <= INDEX_AFTER:
            # a few searches scan the inserted text; the index pays off only after that
            return [h for h, _ in self.diff.find_inserted(quote, limit)]
        if self._inserted_words is None:
            index: dict[str, list[int]] = {}
            b = self.diff.b
            for c in self.changes:
                if c.b1 > c.b0:
                    for w in _INDEX_START.finditer(b, c.b0, c.b1):
                        index.setdefault(b[w.start() : w.start() + INDEX_KEY], []).append(w.start())
            self._inserted_words = index
        j = m.start()
        b = self.diff.b
        out = []
        for p in self._inserted_words.get(quote[j : j + INDEX_KEY], ()):
            if b.startswith(quote, p - j) and p >= j:
                out.append(p - j)
                if len(out) >= limit:
                    break
        return out

    def kept_runs(self, s: int, e: int) -> list[tuple[int, int, int]]:
        """The diff's equal runs inside v1 ``[s, e)``, as (v1 start, v1 end, v2 start):
        the gaps between consecutive changes, clipped to the span."""
        ch = self.changes
        if not ch:
            return [(s, e, s)] if s < e else []
        k = max(0, bisect.bisect_right(self._a0, s) - 1)
        out = []
        # the equal run before change k (or before the first change)
        prev_a1, prev_b1 = (ch[k - 1].a1, ch[k - 1].b1) if k > 0 else (0, 0)
        while True:
            nxt = ch[k].a0 if k < len(ch) else self.len_a
            x0, x1 = max(s, prev_a1), min(e, nxt)
            if x0 < x1:
                out.append((x0, x1, prev_b1 + (x0 - prev_a1)))
            if k >= len(ch) or nxt >= e:
                break
            prev_a1, prev_b1 = ch[k].a1, ch[k].b1
            k += 1
        return out

    def region(self, s: int, e: int) -> tuple[int, int, int, int] | None:
        """The replaced region around v1 ``[s, e)``: changes touching the span, joined
        through equal runs shorter than ``KEPT_GAP``, as (a0, a1, b0, b1); None if no
        change touches the span."""
        key = (s, e)
        if key not in self._regions:
            self._regions[key] = self._region(s, e)
        return self._regions[key]

    def _region(self, s: int, e: int) -> tuple[int, int, int, int] | None:
        ch = self.changes
        if not ch:
            return None
        j = bisect.bisect_right(self._a0, e) - 1
        if j < 0:
            return None
        # walk left to the first change touching [s, e]
        k = j
        while k >= 0 and ch[k].a1 >= s:
            k -= 1
        first = k + 1
        if first > j:
            return None
        lo, hi = first, j
        # The walk stops REGION_REACH characters beyond the span: a region that large is
        # not the span's own place whatever lies further (and the cost stays bounded).
        while lo > 0 and s - ch[lo].a0 <= REGION_REACH and not self._kept(lo - 1, lo):
            lo -= 1
        while hi + 1 < len(ch) and ch[hi].a1 - e <= REGION_REACH and not self._kept(hi, hi + 1):
            hi += 1
        return ch[lo].a0, ch[hi].a1, ch[lo].b0, ch[hi].b1

    def _kept(self, k: int, k2: int) -> bool:
        """The equal text between changes ``k`` and ``k2`` is substantial."""
        a0, a1 = self.changes[k].a1, self.changes[k2].a0
        return a1 - a0 >= KEPT_GAP or _substantial(self.diff.a[a0:a1])

    def estimate(self, s: int, e: int) -> tuple[int, int]:
        """The span's estimated v2 place: its image when the diff kept its edges, else the
        proportional position inside the replaced region (never the region's start for
        every span in it)."""
        r = self.region(s, e)
        if r is None:
            b = self.diff.map_left(s)
            return b, b + (e - s)
        a0, a1, b0, b1 = r
        scale = (b1 - b0) / (a1 - a0) if a1 > a0 else 0.0
        es = b0 + round((max(s, a0) - a0) * scale)
        ee = b0 + round((min(e, a1) - a0) * scale)
        if s < a0:
            es = self.diff.map_left(s)
        if e > a1:
            ee = self.diff.map_right(e)
        return es, max(es, ee)

    def is_local(self, s: int, e: int) -> bool:
        """The span's replaced region is its own place: bounded by kept text (or the
        document's edge on one side only) and reaching at most ``LOCAL_CHANGE`` characters
        beyond the span."""
        r = self.region(s, e)
        if r is None:
            return True
        a0, a1, b0, b1 = r
        a = self.diff.a
        left_edge = a0 < KEPT_GAP and not _substantial(a[:a0])
        right_edge = self.len_a - a1 < KEPT_GAP and not _substantial(a[a1:])
        if left_edge and right_edge:
            return False  # nothing kept at all: the document was rewritten
        return s - a0 <= LOCAL_CHANGE and a1 - e <= LOCAL_CHANGE


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def _snap_words(text: str, s: int, e: int) -> tuple[int, int]:
    """Widen ``[s, e)`` so it neither starts nor ends inside a word or a number
    (``joined``)."""
    while s > 0 and joined(text, s):
        s -= 1
    while e < len(text) and joined(text, e):
        e += 1
    return s, e


DICTIONARY_REACH = 48
"""Characters each side of an edge segmented by the dictionary word breaker (a word of a
script written without spaces is far shorter)."""

_word_breaker = None


def _dictionary_word(text: str, i: int) -> tuple[int, int]:
    """The word holding character ``i`` by ICU's dictionary word breaks (``icu4py``; Thai,
    Lao, Khmer, Myanmar, Chinese and Japanese have no spaces to find words by), found in
    ``text`` within ``DICTIONARY_REACH`` characters of ``i``."""
    global _word_breaker
    if _word_breaker is None:
        from icu4py.breakers import WordBreaker  # lazy: 50 ms most scores never need

        _word_breaker = WordBreaker
    a, b = max(0, i - DICTIONARY_REACH), min(len(text), i + DICTIONARY_REACH + 1)
    for ws, we in _word_breaker(text[a:b], "root").segments():
        if a + ws <= i < a + we:
            return a + ws, a + we
    return i, i + 1


def _snap_dictionary_words(text: str, s: int, e: int) -> tuple[int, int]:
    """Widen ``[s, e)`` so it neither starts nor ends inside a word of a script written
    without spaces (dictionary word breaks, ``_dictionary_word``)."""
    if s < e and s > 0 and _NO_SPACE.match(text[s]) and _NO_SPACE.match(text[s - 1]):
        s = min(s, _dictionary_word(text, s)[0])
    if s < e < len(text) and _NO_SPACE.match(text[e - 1]) and _NO_SPACE.match(text[e]):
        e = max(e, _dictionary_word(text, e - 1)[1])
    return s, e


def _snippet(text: str, limit: int = 80) -> str:
    t = " ".join(text.split())
    return t if len(t) <= limit else t[: limit - 1] + "…"


def _shares_a_word(a: str, b: str, least: int = 3) -> bool:
    """``a`` and ``b`` have a word of ``least`` or more letters in common (casefolded), or,
    in scripts written without spaces, two characters in a row."""
    words = re.compile(rf"\w{{{least},}}")
    wa = {w.casefold() for w in words.findall(a) if not _NO_SPACE.search(w)}
    if wa & {w.casefold() for w in words.findall(b)}:
        return True
    pairs = {a[i : i + 2] for i in range(len(a) - 1) if _NO_SPACE.match(a[i])}
    return any(p in b for p in pairs)


_SENTENCE_END = re.compile(
    r"[.!?;:]+[\s\u00a0]+|[。！？；।॥؟۔]+\s*|\n+"
    '|(?<=[\u0e01-\u0e5b)\\]"\u201d]) +(?=[\u0e01-\u0e5b])'
)
"""Where a sentence ends, for keeping a span inside one: a full stop (or ``!?;:``) and
space, a CJK, Devanagari or Arabic-script full stop, a line break, or a space between two
Thai letters (Thai writes no full stop; a space ends a sentence or clause)."""


def _clip_sentences(
    text: str, cs: int, ce: int, quote: str, near: tuple[int, int] | None = None
) -> tuple[int, int]:
    """``[cs, ce)`` cut down to one sentence when the quote itself crosses no sentence end:
    a replaced region the diff stretched over a neighbouring sentence is not the quote's
    place. The sentence overlapping ``near`` (the span's estimated place) most wins, then
    the one most like the quote."""
    if _SENTENCE_END.search(quote.strip()):
        return cs, ce
    cuts = [
        m.end() for m in _SENTENCE_END.finditer(text, cs, ce) if cs < m.start() and m.end() < ce
    ]
    if not cuts:
        return cs, ce
    bounds = [cs, *cuts, ce]
    pieces = [_trim(text, a, b) for a, b in zip(bounds, bounds[1:])]
    pieces = [p for p in pieces if p[0] < p[1] and _has_alnum(text[p[0] : p[1]])]
    if not pieces:
        return cs, ce

    def overlap(p: tuple[int, int]) -> int:
        return 0 if near is None else max(0, min(p[1], near[1]) - max(p[0], near[0]))

    return max(
        pieces, key=lambda p: (overlap(p), similarity(quote, text[p[0] : p[1]]), p[1] - p[0])
    )


def _without_context(
    text: str, rs: int, re_: int, quote: str, prefix: str, suffix: str
) -> tuple[int, int]:
    """The region ``[rs, re_)`` the diff put in a span's place, less any of the span's own
    surroundings the diff re-inserted there (it may delete "quote.This" and insert "This"):
    cut where the head of ``suffix`` (12 characters) last starts inside it, and after the
    first end of the tail of ``prefix`` inside it. A head or tail the quote itself contains
    says nothing about where the quote ends, and cuts nothing."""
    k = 12
    head = suffix[:k]
    if len(head.strip()) >= 4 and head not in quote:
        j = text.rfind(head, rs, re_ + len(head))
        if rs <= j < re_:
            re_ = j
    tail = prefix[-k:]
    if len(tail.strip()) >= 4 and tail not in quote and rs < re_:
        j = text.find(tail, max(0, rs - len(tail) + 1), re_)
        if j >= 0 and rs < j + len(tail) <= re_:
            rs = j + len(tail)
    return rs, max(rs, re_)


def _sentence_bounds(text: str, s: int, e: int, reach: int = FUZZY_WINDOW) -> tuple[int, int]:
    """``[s, e)`` widened to the sentences it touches (at most ``reach`` characters each
    way)."""
    a = max(0, s - reach)
    ends = [m.end() for m in _SENTENCE_END.finditer(text, a, s)]
    a = ends[-1] if ends else a
    m = _SENTENCE_END.search(text, e, min(len(text), e + reach))
    return a, (m.end() if m else min(len(text), e + reach))


def _word_dice(a: str, b: str) -> float:
    """Dice coefficient of the casefolded word sets of ``a`` and ``b``, each word weighted
    by its length (a long word is rarer: sharing "histopathological" says more than
    sharing "of"); words are ``\\w+`` runs, and a script written without spaces counts
    its pairs of adjacent characters."""
    return _set_dice(_word_set(a), _word_set(b))


def _set_dice(wa: set[str], wb: set[str]) -> float:
    """``_word_dice`` of two word sets."""
    total = sum(map(len, wa)) + sum(map(len, wb))
    return 2 * sum(map(len, wa & wb)) / total if total else 0.0


def _word_set(text: str) -> set[str]:
    out: set[str] = set()
    for w in _WORDISH.findall(text.casefold()):
        if _NO_SPACE.search(w):
            # no spaces to find words by: pairs of characters keep some of their order
            out.update(w[i : i + 2] for i in range(max(1, len(w) - 1)))
        else:
            out.add(w)
    return out


_WORDISH = re.compile(r"\w+")


def _sentence_pieces(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """``[a, b)`` cut after every sentence end inside it."""
    cuts = [m.end() for m in _SENTENCE_END.finditer(text, a, b) if a < m.end() < b]
    bounds = [a, *cuts, b]
    return [(p0, p1) for p0, p1 in zip(bounds, bounds[1:]) if p0 < p1]


def _passage(quote: str) -> bool:
    """Long enough to be a passage rather than a word: 16 characters and two words, or four
    characters of a script written without spaces."""
    q = quote.strip()
    if sum(1 for ch in q if _NO_SPACE.match(ch)) >= 4:
        return True
    return len(q) >= 16 and len(q.split()) >= 2


def _has_alnum(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


@dataclass(frozen=True)
class _Place:
    """One span being re-anchored: the quote and its v1 context, v1 ``[s, e)``, its
    estimated v2 place ``[es, ee)``, the diff's image ``[ms, me)``, the neighbourhood
    ``[lo, hi)`` searched, and whether the replaced region is the span's own place."""

    quote: str
    prefix: str
    suffix: str
    s: int
    e: int
    es: int
    ee: int
    ms: int
    me: int
    lo: int
    hi: int
    local: bool


def _top_candidate(cands: list[tuple[float, int]], es: int) -> tuple[tuple[float, int], int]:
    """The best (score, v2 start) of ``cands`` (then the nearest to ``es``) and how many
    share its score."""
    top = max(cands, key=lambda c: (round(c[0], 3), -abs(c[1] - es)))
    return top, sum(1 for c in cands if round(c[0], 3) == round(top[0], 3))


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
    re-anchoring many spans)."""
    return _Reanchor(v1, v2, diff, changes or ChangeIndex(diff)).run(s, e)


class _Reanchor:
    def __init__(self, v1: TextIndex, v2: TextIndex, diff: TextDiff, changes: ChangeIndex):
        self.v1, self.v2, self.diff, self.changes = v1, v2, diff, changes
        self.t1, self.t2 = v1.text, v2.text
        self.estimate: tuple[int, int] | None = None  # the current span's estimated place
        self.mapped: tuple[int, int] | None = None  # the v2 sentence(s) its sentence became

    def new_or_own(self, cs: int, ce: int, s: int, e: int) -> bool:
        """v2 ``[cs, ce)`` is mostly new text (or text kept from the v1 span ``[s, e)``
        itself): never a copy the diff kept from elsewhere in v1, a lookalike that was there
        all along. A short kept piece from elsewhere (the diff gluing a moved sentence's
        common ending to its old neighbour) is allowed up to half."""
        _inserted, runs = self.diff.v2_origin(cs, ce)
        elsewhere = sum((r1 - r0) - max(0, min(r1, e) - max(r0, s)) for r0, r1 in runs)
        return 2 * elsewhere < ce - cs

    def _boundary_word_replaced(self, s: int, e: int, b: int) -> Reanchored | None:
        """The diff kept v1 ``[s, e)`` at ``b``, but the word the quote starts or ends in
        is not the same word in v2 (the quote starts inside "found", which became
        "changed": the diff keeps the shared "d"; or "cat" became "scat"): the reviewer's
        first or last word was replaced, so the span is edited, widened to the whole words
        now there. In scripts written without spaces, where a quote cuts a word of v1 by
        dictionary word breaks ("ผลไ|ม้"), that word is compared the same way. None when
        the words at both edges are the same in v1 and v2."""
        L = e - s
        t1, t2 = self.t1, self.t2
        ws, we = _snap_words(t1, s, e)
        vs, ve = _snap_words(t2, b, b + L)
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

    def _mapped_sentences(self, s: int, e: int) -> tuple[int, int] | None:
        """The v2 sentence(s) the v1 sentence(s) of ``[s, e)`` became: for each v1
        sentence the quote touches, its image (``_sentence_image``), and the range from the
        first image to the last. None when no touched sentence has one."""
        t1 = self.t1
        a, b = _sentence_bounds(t1, s, e)
        found = [
            m
            for p0, p1 in _sentence_pieces(t1, a, b)
            if t1[max(p0, s) : min(p1, e)].strip()
            and (m := self._sentence_image(p0, p1, s, e))
            and not self._claimed_by_a_neighbour(p0, p1, m)
        ]
        if not found:
            return None
        return min(f[0] for f in found), max(f[1] for f in found)

    def _claimed_by_a_neighbour(self, p0: int, p1: int, m: tuple[int, int]) -> bool:
        """v2 sentence ``m``, the image of v1 sentence ``[p0, p1)``, is more like another v1
        sentence of the same block and replaced region whose image it also is: one v2
        sentence is the rewrite of one v1 sentence, the one whose words and kept text it
        shares most (``_image_score``)."""
        if self.changes.region(p0, p1) is None:
            return False
        t1 = self.t1
        mine = self._image_score(p0, p1, m)
        # the sentences whose images can reach ``m`` (``_sentence_candidates``' window)
        ba, bb = self.v1.block(p0, p1)
        lo, hi = _sentence_bounds(
            t1, max(ba, p0 - FUZZY_WINDOW), min(bb, p1 + FUZZY_WINDOW), reach=FUZZY_WINDOW
        )
        lo, hi = max(lo, ba), min(hi, bb)
        for q0, q1 in _sentence_pieces(t1, lo, hi):
            q0, q1 = _trim(t1, q0, q1)
            if q1 <= p0 or q0 >= p1:
                if q0 < q1 and _has_alnum(t1[q0:q1]):
                    img = self._sentence_image(q0, q1, q0, q1)
                    if img is not None and img[0] < m[1] and m[0] < img[1]:
                        if self._image_score(q0, q1, img) > mine:
                            return True
        return False

    def _image_score(self, p0: int, p1: int, m: tuple[int, int]) -> float:
        """How much v2 sentence ``m`` is v1 sentence ``[p0, p1)``'s rewrite: their word-set
        Dice plus ``KEPT_SHARE`` x the share of the sentence's kept text inside ``m``."""
        own_words, _mid, cands = self._sentence_candidates(p0, p1)
        for c0, c1, words, share in cands:
            if (c0, c1) == m:
                return _set_dice(own_words, words) + KEPT_SHARE * share
        return 0.0

    def _sentence_image(self, p0: int, p1: int, s: int, e: int) -> tuple[int, int] | None:
        """The v2 sentence v1 sentence ``[p0, p1)`` became: of the v2 sentences in the
        diff's image of it (at least ``FUZZY_WINDOW`` and at most twice that around its
        estimated place), the
        one most like it and the quote ``[s, e)`` in it — the sum of their word-set Dice
        coefficients, so a shuffled rewrite is found by its words and a sentence split in
        two goes with the quote's words, plus the share of its kept text there
        (``KEPT_SHARE``), less ``DISTANCE_COST`` for distance from the estimated place. Only
        sentences of mostly new text (or the sentence's own) count: a sentence kept from
        elsewhere in v1 is not this one's rewrite. None when no candidate shares a word."""
        own_words, mid, cands = self._sentence_candidates(p0, p1)
        quote_words = _word_set(self.t1[max(p0, s) : min(p1, e)])
        best, best_rank = None, (0.0, 0)
        for c0, c1, words, share in cands:
            dice = round(
                _set_dice(own_words, words)
                + QUOTE_DICE * _set_dice(quote_words, words)
                + KEPT_SHARE * share,
                3,
            )
            rank = (dice - DISTANCE_COST * abs(mid - (c0 + c1) // 2) / FUZZY_WINDOW, -c0)
            if dice > 0 and (best is None or rank > best_rank):
                best, best_rank = (c0, c1), rank
        return best

    def _sentence_candidates(
        self, p0: int, p1: int
    ) -> tuple[set[str], int, list[tuple[int, int, set[str], float]]]:
        """For v1 sentence ``[p0, p1)``: its word set, its estimated v2 middle, and its
        candidate v2 sentences as (start, end, word set, share of its kept text there).
        Built once per sentence for the pair (``ChangeIndex.sentences``): many comments
        share a sentence."""
        key = (p0, p1)
        hit = self.changes.sentences.get(key)
        if hit is not None:
            return hit
        t1 = self.t1
        es, ee = self.changes.estimate(p0, p1)
        ms, me = self.diff.image(p0, p1)
        lo = max(min(ms, es - FUZZY_WINDOW), es - 2 * FUZZY_WINDOW)
        hi = min(max(me, ee + FUZZY_WINDOW), ee + 2 * FUZZY_WINDOW)
        kept = [(y0, y0 + x1 - x0) for x0, x1, y0 in self.changes.kept_runs(p0, p1)]
        cands = self._candidates_in(p0, p1, lo, hi, kept)
        if not cands:
            # Nothing there can be its rewrite: the image of its own block, and the blocks
            # just beside it (text inserted where two blocks meet belongs to either), are
            # searched too. A neighbour that moved out of the paragraph can push the
            # sentence's rewrite past the estimate's window.
            ba, bb = self._near_block(self.v1, p0, p1)
            ia, ib = self.v2.beside(*self.diff.image(ba, bb))
            lo2 = min(lo, max(ia, es - REGION_REACH))
            hi2 = max(hi, min(ib, ee + REGION_REACH))
            if (lo2, hi2) != (lo, hi):
                cands = self._candidates_in(p0, p1, lo2, hi2, kept)
        out = (_word_set(t1[p0:p1]), (es + ee) // 2, cands)
        self.changes.sentences[key] = out
        return out

    def _candidates_in(
        self, p0: int, p1: int, lo: int, hi: int, kept: list[tuple[int, int]]
    ) -> list[tuple[int, int, set[str], float]]:
        """The v2 sentences of ``[lo, hi)`` (widened to whole sentences) that may be v1
        sentence ``[p0, p1)``'s rewrite: not kept from elsewhere in v1; with the share of the
        sentence's kept text (``kept``, v2 ranges) in each."""
        t2 = self.t2
        lo, hi = _sentence_bounds(t2, max(0, lo), min(len(t2), hi), reach=FUZZY_WINDOW)
        kept_total = sum(b - a for a, b in kept) or 1
        cands = []
        for c0, c1 in _sentence_pieces(t2, lo, hi):
            c0, c1 = _trim(t2, c0, c1)
            if c0 >= c1 or self._kept_from_elsewhere(c0, c1, p0, p1):
                continue
            share = sum(max(0, min(b, c1) - max(a, c0)) for a, b in kept) / kept_total
            cands.append((c0, c1, self.changes.words_of(t2, c0, c1), share))
        return cands

    def _kept_from_elsewhere(self, cs: int, ce: int, s: int, e: int) -> bool:
        """v2 ``[cs, ce)`` is text the diff kept, unchanged, from v1 outside ``[s, e)``."""
        inserted, runs = self.diff.v2_origin(cs, ce)
        return not inserted and all(r1 <= s or r0 >= e for r0, r1 in runs)

    def ctx1(self, s: int, e: int) -> tuple[str, str]:
        return self.t1[max(0, s - CONTEXT_CHARS) : s], self.t1[e : e + CONTEXT_CHARS]

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
        self.mapped = self._mapped_sentences(s, e)
        ms, me = diff.image(s, e)
        local = self.changes.is_local(s, e)
        lo = max(0, min(es, ms if local else es) - FUZZY_WINDOW)
        hi = min(len(t2), max(ee, me if local else ee) + FUZZY_WINDOW)
        p = _Place(quote, prefix, suffix, s, e, es, ee, ms, me, lo, hi, local)

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
        # moved does not pay for the search).
        rs, re_ = _trim(t2, ms, me)
        moves = getattr(diff, "moves", None)
        want_far = rs >= re_ or moves is None or bool(moves)
        moved, far = self._moved_copy(p, not_span, True) if want_far else (None, None)
        if moved is not None:
            return moved
        # 5. A sentence rewritten in place; else a far copy with new surroundings; else gone.
        if found is not None and found.start is not None:
            return found
        if far is not None:
            return far
        return found or self._gone(quote, ms, me, lo, hi)

    # -- repeated passages -----------------------------------------------------------

    def _kept_copy_names_other(self, s: int, e: int, b: int) -> Reanchored | None:
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

    def _kept_copy_named_here(
        self,
        quote: str,
        prefix: str,
        suffix: str,
        s: int,
        e: int,
        es: int,
        not_span: tuple[int, int] | None,
    ) -> Reanchored | None:
        """A copy of the quote that the diff kept from *another* copy in v1, whose v2
        surroundings agree with this span's context better than with the copy it came from:
        the diff's alignment picked the wrong one of two identical passages."""
        t1, t2 = self.t1, self.t2
        L = e - s
        if not (prefix or suffix):
            return None
        best = None
        lo, hi = max(0, es - REGION_REACH), es + L + REGION_REACH
        for h in nearest_starts(t2, quote, es, 8, lo, hi):
            if (h, h + L) == not_span:
                continue
            inserted, runs = self.diff.v2_origin(h, h + L)
            if inserted or len(runs) != 1:
                continue
            (o, o_end) = next(iter(runs))
            if t1[o:o_end] != quote or o == s:
                continue
            ours = context_score(prefix, suffix, t2, h, h + L)
            op, osf = self.ctx1(o, o_end)
            theirs = context_score(op, osf, t2, h, h + L)
            if ours >= CONTEXT_THRESHOLD and ours - theirs >= CONTEXT_MARGIN:
                if best is None or ours > best[0]:
                    best = (ours, h)
        if best is None:
            return None
        return Reanchored(
            best[1],
            best[1] + L,
            "context",
            round(best[0], 4),
            False,
            "a repeated passage: the copy this comment's context names (the diff kept the "
            "other copy's text here)",
        )

    # -- moved text ------------------------------------------------------------------

    def _moved_copy(
        self, p: _Place, not_span: tuple[int, int] | None, search_far: bool
    ) -> tuple[Reanchored | None, Reanchored | None]:
        """(moved, moved to new surroundings): a verbatim copy of the quote that is mostly
        new text in v2, taken when its context agrees (``CONTEXT_THRESHOLD``) or it lies in
        the span's neighbourhood ``[lo, hi)``; otherwise the best far copy is returned
        second. Without ``search_far`` only the neighbourhood is searched; with it, the
        diff's inserted text too (only new text can hold a moved copy; the diff's own
        moved-sentence detection, ``moved_to``, has already placed whole moved sentences).
        """
        cands = self._moved_candidates(p, not_span, search_far)
        if not cands:
            return None, None
        L = p.e - p.s
        good = [c for c in cands if c[0] >= MOVED_SIDE_THRESHOLD]
        # A copy with new neighbours counts as this passage moved only when the quote is
        # long enough not to recur by chance (a single word in a reshuffled sentence is
        # not a moved passage).
        close = [c for c in cands if p.lo <= c[1] and c[1] + L <= p.hi] if _passage(p.quote) else []
        if self.mapped is not None:
            # Without the context that travels with a moved passage, a copy in a neighbour
            # sentence is the same words recurring there, not this passage: only a copy in
            # the sentence the quote's own sentence became counts.
            m0, m1 = self.mapped
            close = [c for c in close if m0 <= c[1] and c[1] + L <= m1]
        pool = good or close
        if pool:
            return self._moved_or_own_place(p, pool, bool(good)), None
        if not search_far or not _passage(p.quote):
            return None, None
        top, ties = _top_candidate(cands, p.es)
        return None, Reanchored(
            top[1],
            top[1] + L,
            "moved",
            round(1.0 / ties, 4),
            False,
            "the quoted passage moved, unchanged, to a place with new surroundings",
        )

    def _moved_candidates(
        self, p: _Place, not_span: tuple[int, int] | None, search_far: bool
    ) -> list[tuple[float, int]]:
        """(agreement of the context that travelled with it, v2 start) of every verbatim
        copy of the quote that is mostly new text and cuts no word: in the neighbourhood,
        and with ``search_far`` in the diff's inserted text too."""
        t1, t2 = self.t1, self.t2
        s, e, L = p.s, p.e, p.e - p.s
        cands: list[tuple[float, int]] = []
        near = nearest_starts(t2, p.quote, p.es, NEAR_HITS, p.lo, p.hi)
        far = (
            [h for h in self.changes.find_inserted(p.quote) if h not in near] if search_far else []
        )
        for h in near + far:
            if (h, h + L) == not_span:
                continue
            if not self.new_or_own(h, h + L, s, e) or breaks_word(t2, h, h + L, t1, s, e):
                continue
            # A moved passage has new neighbours on at least one side: the side that
            # travelled with it (within its own sentence) is the evidence.
            ctx = side_score(p.prefix, p.suffix, t2, h, h + L)
            cands.append((ctx, h))
        return cands

    def _moved_or_own_place(
        self, p: _Place, pool: list[tuple[float, int]], by_context: bool
    ) -> Reanchored:
        """The best copy of ``pool``: the quote moved (``moved``), or, when both sides of
        its context agree and it lies at the span's own place inside a larger region the
        diff replaced, not a move at all (``context``)."""
        L = p.e - p.s
        top, ties = _top_candidate(pool, p.es)
        ms, me = self.diff.image(p.s, p.e)
        # both sides agree (not just the one that travels with a moved sentence)
        both = context_score(p.prefix, p.suffix, self.t2, top[1], top[1] + L)
        if (
            both >= CONTEXT_THRESHOLD
            and ms <= top[1]
            and top[1] + L <= me
            and (abs(top[1] - p.es) <= L + 16)
        ):
            # its own place, inside a larger region the diff replaced: not a move
            return Reanchored(
                top[1],
                top[1] + L,
                "context",
                round(both / ties, 4),
                False,
                "unchanged, inside a larger region the diff replaced; found by its context",
            )
        how = "found by its context" if by_context else "found in its own neighbourhood"
        return Reanchored(
            top[1],
            top[1] + L,
            "moved",
            round(1.0 / ties, 4),
            False,
            f"the quoted passage moved, unchanged; {how}",
        )

    # -- the span's place ------------------------------------------------------------

    def _in_place(self, p: _Place) -> tuple[Reanchored | None, bool]:
        """What stands at the span's place (see the module docstring, step 3), or None,
        and whether that answer is weak (a different text in a tight place, or "the
        sentence was rewritten in place"): a moved copy with its context beats a weak
        answer. Every answer passes ``admits`` (what may never be a span's new place);
        one that does not is passed over for the next."""
        t2 = self.t2
        rs, re_ = _trim(t2, *_without_context(t2, p.ms, p.me, p.quote, p.prefix, p.suffix))
        region = t2[rs:re_]
        leftover = not region or (
            _has_alnum(p.quote) and not _has_alnum(region) and len(region) <= 3
        )
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

    def _travelled_sentence(self, p: _Place) -> tuple[int, int] | None:
        """Nothing stands at the span's place and no v2 sentence near it is its sentence's
        rewrite: the v2 sentence, in the diff's inserted text anywhere, that holds the part
        of the quote's prefix or suffix inside its own sentence, verbatim
        (``TRAVELLED_CONTEXT`` characters or more of it): the sentence moved, and the
        words around the quote travelled with it. None when no such copy is found, or
        more than one."""
        ends = list(_SENTENCE_END.finditer(p.prefix))
        p_in = p.prefix[ends[-1].end() :] if ends else p.prefix
        m = _SENTENCE_END.search(p.suffix)
        s_in = p.suffix[: m.start() + 1] if m else p.suffix
        for piece in (s_in, p_in):
            piece = piece.strip()
            if len(piece) < TRAVELLED_CONTEXT:
                continue
            hits = self.changes.find_inserted(piece, 2)
            if len(hits) == 1:
                a, b = _sentence_bounds(self.t2, hits[0], hits[0] + len(piece))
                return _trim(self.t2, a, b)
        return None

    def _share_of_mapped(self, p: _Place) -> tuple[int, int] | None:
        """The quote's share of the mapped v2 sentence: the span's place inside its v1
        sentence, scaled to the mapped sentence and snapped to whole words; None when
        empty."""
        assert self.mapped is not None
        m0, m1 = self.mapped
        a, b = _trim(self.t1, *_sentence_bounds(self.t1, p.s, p.e))
        if b <= a:
            return None
        scale = (m1 - m0) / (b - a)
        cs = m0 + round((max(p.s, a) - a) * scale)
        ce = m0 + round((min(p.e, b) - a) * scale)
        cs, ce = min(max(cs, m0), m1), min(max(ce, cs + 1), m1)
        cs, ce = _trim(self.t2, *_snap_words(self.t2, cs, ce))
        cs, ce = max(cs, m0), min(ce, m1)
        return (cs, ce) if cs < ce else None

    def _sentence_survives(self, p: _Place) -> bool:
        """Where the diff replaced more than the span's own place (nothing kept close
        around it), the quote's sentence still has a place: the v2 sentence it became
        (``mapped``) shares a word of ``SURVIVING_WORD`` letters or more with it (two
        characters in a row in scripts written without spaces). Shorter words (the, and,
        for) recur in any text by chance: a document rewritten from scratch shares them."""
        if self.mapped is None:
            return False
        a, b = _sentence_bounds(self.t1, p.s, p.e)
        return _shares_a_word(
            self.t1[a:b], self.t2[self.mapped[0] : self.mapped[1]], SURVIVING_WORD
        )

    def admits(self, r: Reanchored, p: _Place) -> bool:
        """``r`` may be the new place of v1 span ``[p.s, p.e)`` (docs/verdicts.md, "What
        may never be a span's new place"): it is not text the diff kept unchanged from
        elsewhere in v1 (``new_or_own``); none of its kept text comes from beyond the
        span's own v1 block(s); the v2 block it lies in is not another v1 block's image
        (kept text from v1, none of it from the span's own block); it crosses no block
        boundary the v1 span did not cross; and it cuts no word or number the v1 span did
        not cut. A gone answer (no span) is always admitted."""
        if r.start is None or r.end is None:
            return True
        cs, ce = r.start, r.end
        if not self.new_or_own(cs, ce, p.s, p.e):
            return False
        a, b = self._near_block(self.v1, p.s, p.e)
        t1 = self.t1
        # kept text shorter than KEPT_GAP is chance (a shared "3. " or " the "), not a
        # block's surviving text
        _inserted, runs = self.diff.v2_origin(cs, ce)
        if _substantial("".join(t1[r0:r1] for r0, r1 in runs if r1 <= a or r0 >= b)):
            return False
        v2_block = self._near_block(self.v2, cs, ce)
        _inserted, runs = self.diff.v2_origin(*v2_block)
        own = "".join(t1[max(r0, a) : min(r1, b)] for r0, r1 in runs if r0 < b and r1 > a)
        others = [(r0, r1) for r0, r1 in runs if r1 <= a or r0 >= b]
        if _substantial("".join(t1[r0:r1] for r0, r1 in others)) and not _substantial(own):
            return False  # another block's image
        if others and not self._block_survives(a, b):
            # The span's block is gone as kept text: the v2 block is its rewrite only if
            # it is more like it, word for word, than like the block(s) whose kept text
            # it holds (a paragraph deleted before a rewritten heading is not the heading)
            text2 = self.t2[v2_block[0] : v2_block[1]]
            mine = _word_dice(t1[a:b], text2)
            for r0, r1 in others:
                o0, o1 = self._near_block(self.v1, r0, r1)
                if _word_dice(t1[o0:o1], text2) > mine:
                    return False
        if self.v2.crosses(cs, ce) and not self.v1.crosses(p.s, p.e):
            return False
        if breaks_word(self.t2, cs, ce, self.t1, p.s, p.e):
            return False
        if self._sentence_was_in_v1(cs, ce, p):
            return False
        return self.mapped is not None or not self._a_neighbours_image(cs, ce, p)

    def _sentence_was_in_v1(self, cs: int, ce: int, p: _Place) -> bool:
        """The v2 sentence holding ``[cs, ce)`` is, word for word, a sentence (16
        characters or more) that v1 already had outside the span's own sentence: text
        that was there all along (kept by the diff, or moved and re-inserted by it) is not
        this span's rewrite."""
        t1, t2 = self.t1, self.t2
        a2, b2 = _trim(t2, *_sentence_bounds(t2, cs, ce))
        sentence = t2[a2:b2]
        if len(sentence) < 16 or not _has_alnum(sentence):
            return False
        a1, b1 = _sentence_bounds(t1, p.s, p.e)
        i = t1.find(sentence)
        for _ in range(8):
            if i < 0:
                return False
            if i + len(sentence) <= a1 or i >= b1:
                return True
            i = t1.find(sentence, i + 1)
        return False

    @staticmethod
    def _near_block(index: TextIndex, s: int, e: int) -> tuple[int, int]:
        """The block(s) holding ``[s, e)``, followed at most ``REGION_REACH`` characters
        each way: a block larger than that (a plain text without blank lines is one block)
        is judged by the span's neighbourhood, so the cost stays bounded."""
        a, b = index.block(s, e)
        return max(a, s - REGION_REACH), min(b, e + REGION_REACH)

    def _block_survives(self, a: int, b: int) -> bool:
        """Some of v1 block ``[a, b)`` is still in v2 as kept text (``KEPT_GAP`` characters
        or more): the block was edited, not removed."""
        kept = "".join(self.t1[x0:x1] for x0, x1, _y in self.changes.kept_runs(a, b))
        return _substantial(kept)

    def _a_neighbours_image(self, cs: int, ce: int, p: _Place) -> bool:
        """v2 ``[cs, ce)`` lies in the v2 sentence that another v1 sentence of the span's
        replaced region became (``_sentence_image``): a neighbour rewritten beside a
        sentence that was deleted is that neighbour's rewrite, not the deleted one's (the
        diff often replaces the two in one change)."""
        if self.changes.region(p.s, p.e) is None:
            return False
        t1 = self.t1
        a, b = _sentence_bounds(t1, p.s, p.e)
        lo, hi = _sentence_bounds(
            t1, max(0, p.s - FUZZY_WINDOW), p.e + FUZZY_WINDOW, reach=FUZZY_WINDOW
        )
        for q0, q1 in _sentence_pieces(t1, lo, hi):
            if q1 <= a or q0 >= b:
                q0, q1 = _trim(t1, q0, q1)
                if q0 < q1 and _has_alnum(t1[q0:q1]):
                    img = self._sentence_image(q0, q1, q0, q1)
                    if img is not None and img[0] < ce and cs < img[1]:
                        return True
        return False

    def _what_the_diff_put_there(
        self, p: _Place, rs: int, re_: int
    ) -> tuple[Reanchored, bool] | None:
        """The text the diff put in the span's place, ``[rs, re_)``, when it decides: the
        quote itself after normalisation, or, where the change is local and tight, the
        edit (weak when it is unlike the quote)."""
        L = p.e - p.s
        region = self.t2[rs:re_]
        if len(region) <= 4 * L + 64 and normalize(region) == normalize(p.quote):
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

    def _between_context_here(self, p: _Place) -> Reanchored | None:
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

    def _fuzzy_at_place(self, p: _Place) -> Reanchored | None:
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
            a, b = _sentence_bounds(self.t2, p.ms, p.me)
            fz = self._fuzzy(p.quote, p.s, p.e, a, b, strict=not p.local)
        if fz is None and (p.local or not small_image):
            fz = self._fuzzy(p.quote, p.s, p.e, p.lo, p.hi, strict=not p.local)
        return fz

    def _moved_and_rewritten(self, p: _Place, m0: int, m1: int) -> Reanchored | None:
        """Nothing stands at the span's old place, but its sentence has an image elsewhere,
        ``[m0, m1)`` (mostly new text that shares its words): the sentence moved and was
        rewritten. The span is the text there between the parts of the prefix and suffix
        inside the quote's own sentence that survived (at least 4 characters of one side;
        the sentence's edge stands in for a side that is empty), at most ``2 * len(quote)
        + 40`` characters. None when neither side survived there."""
        t2 = self.t2
        ends = list(_SENTENCE_END.finditer(p.prefix))
        p_in = p.prefix[ends[-1].end() :] if ends else p.prefix
        m = _SENTENCE_END.search(p.suffix)
        s_in = p.suffix[: m.start() + 1] if m else p.suffix
        limit = 2 * len(p.quote) + 40
        for k in (16, 10, 6, 4):
            tail, head = p_in[-k:], s_in[:k]
            use_tail, use_head = len(tail) >= 4, len(head) >= 4
            if not (use_tail or use_head):
                return None
            left = m0
            if use_tail:
                i = t2.find(tail, m0, m1)
                if i < 0:
                    continue
                left = i + len(tail)
            right = t2.find(head, left, m1 + len(head)) if head else m1
            if right < 0:
                if use_head:
                    continue
                right = m1
            cs, ce = _trim(t2, left, right)
            if cs >= ce or ce - cs > limit:
                continue
            return self._edited(
                cs,
                ce,
                p.quote,
                p.prefix,
                p.suffix,
                "context",
                "the quote's sentence moved and was rewritten; the text now between its "
                "surviving context there",
            )
        return None

    def _rewritten_in_place(self, p: _Place, rs: int, re_: int) -> Reanchored:
        """A rewritten sentence (or clause) around the quote: its place survives, and the
        text now there (a long replacement narrowed to the span's estimated share) is the
        edit."""
        t2 = self.t2
        if re_ - rs > 2 * (p.e - p.s) + 40:
            # narrow to the span's estimated share of the replacement
            cs, ce = _snap_words(t2, max(rs, p.es), min(re_, max(p.ee, p.es + 1)))
            cs, ce = _trim(t2, cs, ce)
            if cs < ce:
                rs, re_ = cs, ce
        return self._edited(
            rs,
            re_,
            p.quote,
            p.prefix,
            p.suffix,
            "diff",
            "the quote's sentence was rewritten in place; the text now there",
        )

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
        ctx = context_score(prefix, suffix, t2, cs, ce) if (prefix or suffix) else 1.0
        sim = similarity(quote, t2[cs:ce])
        # Where replaced text starts and ends is the diff's judgement: always approximate.
        return Reanchored(cs, ce, method, round(ctx, 4), True, note, round(sim, 4))

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

    def _between_context(
        self, quote: str, prefix: str, suffix: str, es: int, lo: int, hi: int
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
                if cs >= ce:
                    return Reanchored(
                        None,
                        None,
                        "none",
                        1.0,
                        False,
                        "the quoted text was removed; its context is still there with nothing "
                        "between",
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

    def _folded_copy_near(self, p: _Place) -> Reanchored | None:
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
            if not breaks_word(self.t2, cs, ce) and self.new_or_own(cs, ce, s, e):
                return Reanchored(
                    cs,
                    ce,
                    "exact",
                    1.0,
                    False,
                    "same text after normalisation (whitespace, canonical forms, ligatures)",
                )
        return None

    def _fuzzy(
        self, quote: str, s: int, e: int, lo: int, hi: int, *, strict: bool
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
        cs, ce = _clip_sentences(t2, *_trim(t2, cs, ce), quote)
        if cs >= ce:
            return None
        _inserted, runs = self.diff.v2_origin(cs, ce)
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

    def _gone(self, quote: str, ms: int, me: int, lo: int, hi: int) -> Reanchored:
        rs, re_ = _trim(self.t2, ms, me)
        if rs >= re_:
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
