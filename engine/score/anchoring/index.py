"""One version's text for every comment of a scoring: its folded forms (built lazily) and its
block boundaries (docs/verdicts.md, "Blocks and words").
"""

from __future__ import annotations

import bisect
import re

from engine.score.anchoring.context import nearest_starts
from engine.score.anchoring.sentences import _SENTENCE_END, _sentence_bounds, sentence_ends_before
from engine.score.anchoring.thresholds import FUZZY_WINDOW, MAX_HITS, NEAR_HITS
from engine.score.anchoring.words import _has_alnum, _snap_words, _trim, joined
from engine.text.normalize import FoldedText, fold_needle, normalize

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


_MARKER_CHARS = 16
"""The most characters with no word in them that may stand between a block's boundary and
a copy of a quote for the copy to be the block (``TextIndex.edges``): spaces, a list or
heading marker, a bullet, an emoji, brackets, quote marks."""


_BOUNDARY = "\ue000"
"""A private-use character standing for a block boundary inside a span while it is read
(``reading``): not whitespace, not ignorable, untouched by normalisation."""


_GAPS = re.compile(f"[ {_BOUNDARY}]")


def _gapped(form: str) -> list[tuple[str, int]]:
    """The characters of a normalised reading other than spaces and boundaries, each with
    what stood before it: 0 nothing, 1 a space, 2 a block boundary (with or without a
    space). The first character's gap is 0 (edges are not compared)."""
    out: list[tuple[str, int]] = []
    gap = 0
    for ch in form:
        if ch == " ":
            gap = max(gap, 1)
        elif ch == _BOUNDARY:
            gap = 2
        else:
            out.append((ch, gap if out else 0))
            gap = 0
    return out


def same_words(a: TextIndex, s: int, e: int, b: TextIndex, cs: int, ce: int) -> bool:
    """``a``'s ``[s, e)`` and ``b``'s ``[cs, ce)`` read the same words, as the reader sees
    them: equal after normalisation, where a block boundary inside either stands for a
    space or for nothing (``textContent`` has no character where one paragraph ends and the
    next begins, and a script written without spaces splits a paragraph with none:
    "今天下雨。" / "明天晴。"). A paragraph split in two, or two joined, changes no word
    (docs/verdicts.md, "A paragraph split or joined"). Code points."""
    r1, r2 = a.reading(s, e), b.reading(cs, ce)
    if _BOUNDARY not in r1 and _BOUNDARY not in r2:
        return r1 == r2
    if _GAPS.sub("", r1) != _GAPS.sub("", r2):
        return False  # other letters (cheap, before the gaps are compared one by one)
    g1, g2 = _gapped(r1), _gapped(r2)
    return len(g1) == len(g2) and all(
        c1 == c2 and (x == y or x == 2 or y == 2) for (c1, x), (c2, y) in zip(g1, g2)
    )


SPLIT_NOTE = "paragraph split: the quote's words are unchanged, now in two paragraphs"
JOINED_NOTE = "paragraphs joined: the quote's words are unchanged, now in one paragraph"
"""The notes of an untouched quote whose paragraph was split or joined (docs/verdicts.md,
"A paragraph split or joined")."""


def split_or_joined(a: TextIndex, s: int, e: int, b: TextIndex, cs: int, ce: int) -> str | None:
    """``SPLIT_NOTE`` when ``b``'s ``[cs, ce)`` holds ``a``'s ``[s, e)``'s words
    (``same_words``) in more blocks, ``JOINED_NOTE`` in fewer; None when the words differ
    or the blocks are as many. Code points."""
    n1, n2 = a.blocks_in(s, e), b.blocks_in(cs, ce)
    if n1 == n2 or not same_words(a, s, e, b, cs, ce):
        return None
    return SPLIT_NOTE if n2 > n1 else JOINED_NOTE


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
        # ``sentence_bounds`` per (s, e, reach, clamp): the comments of one passage ask for
        # the same sentences (90 asks, 30 distinct, on the 0.1 MB start-up pair)
        self._sentences: dict[tuple[int, int, int, bool], tuple[int, int]] = {}
        self._sentence_end: re.Pattern[str] | None = None

    @property
    def sentence_end(self) -> re.Pattern[str]:
        """``_SENTENCE_END`` for this text (its BMP twin where the whole text holds no
        character above U+FFFF: engine.text.bmp_twin), asked once: a search from a place
        to its block's end looks at the text only up to its first match, and asking each
        time would read the whole block (18 ms for a block of 6 million CJK characters)."""
        if self._sentence_end is None:
            self._sentence_end = _SENTENCE_END.for_text(self.text)
        return self._sentence_end

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

    def reading(self, s: int, e: int) -> str:
        """``text[s:e]`` normalised (``normalize``), with ``_BOUNDARY`` at every block
        boundary strictly inside, where the reader sees a line end that ``textContent`` may
        not have (``<p>May.</p><p>See</p>`` is "May.See")."""
        br = self.breaks
        cuts = br[bisect.bisect_right(br, s) : bisect.bisect_left(br, e)]
        if not cuts:
            return normalize(self.text[s:e])
        bounds = [s, *cuts, e]
        return normalize(_BOUNDARY.join(self.text[x:y] for x, y in zip(bounds, bounds[1:])))

    def snap_words(self, s: int, e: int) -> tuple[int, int]:
        """``[s, e)`` widened to whole words (``_snap_words``), never past the edge of the
        block(s) holding it: a block's edge ends a word ("Goudy</p><p>This" is two)."""
        ws, we = _snap_words(self.text, s, e)
        ba, bb = self.block(s, e)
        return max(ws, min(ba, s)), min(we, max(bb, e))

    def blocks_in(self, s: int, e: int) -> int:
        """How many blocks hold words of ``[s, e)`` (the pieces of ``pieces`` with a letter
        or digit)."""
        return sum(1 for a, b in self.pieces(s, e) if _has_alnum(self.text[a:b]))

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

    def edges(self, s: int, e: int, *, blocks_only: bool) -> tuple[bool, bool]:
        """Whether a block (or, unless ``blocks_only``, a sentence) starts at ``s``, and
        whether one ends at ``e``. A block's: nothing a reader reads as a word
        (``_has_alnum``) stands between them and the block's boundary, at most
        ``_MARKER_CHARS`` characters (spaces, a Markdown list, heading or block quote
        marker, a bullet, an emoji, brackets or quote marks: "- Acknowledgements" and
        "(Acknowledgements)" are the block "Acknowledgements"); the text's own ends count.
        A sentence's: a sentence end (``_SENTENCE_END``) that ends at ``s`` or starts at
        ``e``, whitespace between aside. With ``blocks_only`` a sentence end is no edge: an
        abbreviation's full stop ("e.g. ", "Dr. "), a ``;`` or ``:`` ends a clause, and a
        copy of a whole block's quote after it inside a new sentence is no move of the
        block (an attacker's brief)."""
        text, br, n = self.text, self.breaks, len(self.text)
        k = bisect.bisect_right(br, s) - 1
        start = br[k] if k >= 0 else 0
        opens = s - start <= _MARKER_CHARS and not _has_alnum(text[start:s])
        k = bisect.bisect_left(br, e)
        end = br[k] if k < len(br) else n
        closes = end - e <= _MARKER_CHARS and not _has_alnum(text[e:end])
        if blocks_only or (opens and closes):
            return opens, closes
        i = s
        while i > 0 and text[i - 1].isspace():
            i -= 1
        opens = opens or s in sentence_ends_before(text, max(0, i - 32), s, self.sentence_end)
        closes = closes or self.sentence_end.match(text, e) is not None
        return opens, closes

    def cuts_word(
        self, s: int, e: int, like: TextIndex | None = None, like_s: int = 0, like_e: int = 0
    ) -> bool:
        """``breaks_word`` with the blocks: a block boundary is a word boundary too (in
        ``<p>hypokalaemia</p><p>The</p>`` the two words meet with no character between)."""
        if s >= e:
            return False

        def cut(index: TextIndex, i: int) -> bool:
            if not joined(index.text, i):
                return False
            k = bisect.bisect_left(index.breaks, i)
            return not (k < len(index.breaks) and index.breaks[k] == i)

        cut_left, cut_right = cut(self, s), cut(self, e)
        if like is not None:
            cut_left = cut_left and not cut(like, like_s)
            cut_right = cut_right and not cut(like, like_e)
        return cut_left or cut_right

    def sentence_bounds(
        self, s: int, e: int, reach: int = FUZZY_WINDOW, *, clamp: bool = True
    ) -> tuple[int, int]:
        """``_sentence_bounds`` (the sentences ``[s, e)`` touches), kept inside the block(s)
        holding ``[s, e)`` when ``clamp``: a block's edge ends a sentence, also where
        ``textContent`` has no character there (``<p>another.</p><p>Next</p>``). Worked
        out once per range for the version (the text and its blocks never change)."""
        key = (s, e, reach, clamp)
        hit = self._sentences.get(key)
        if hit is not None:
            return hit
        a, b = _sentence_bounds(self.text, s, e, reach, self.sentence_end)
        if clamp:
            ba, bb = self.block(s, e)
            a, b = max(a, ba), min(b, bb)
        self._sentences[key] = (a, b)
        return a, b

    def whole_sentences(self, s: int, e: int, reach: int = FUZZY_WINDOW) -> tuple[int, int]:
        """``_sentence_bounds`` of ``[s, e)`` (code points), never cutting a sentence at the
        reach limit: an edge that found no sentence end within ``reach`` goes on to the
        nearest sentence end or block edge, at most to the edge of its block
        (docs/verdicts.md, "A candidate sentence is whole")."""
        text = self.text
        a, b = _sentence_bounds(text, s, e, reach, self.sentence_end)
        if a > 0 and a == s - reach:
            ba = self.block(a, a)[0]
            ends = sentence_ends_before(text, ba, a, self.sentence_end)
            a = ends[-1] if ends else ba
        if b < len(text) and b == e + reach:
            bb = self.block(b, b)[1]
            m = self.sentence_end.search(text, b, bb)
            b = m.end() if m else bb
        return a, b

    def sentence_pieces(self, a: int, b: int) -> list[tuple[int, int]]:
        """``[a, b)`` cut after every sentence end (``_SENTENCE_END``) and at every block
        boundary inside it: one sorted set of both kinds of cut."""
        if a >= b:
            return []
        br = self.breaks
        cuts = {m.end() for m in self.sentence_end.finditer(self.text, a, b)}
        cuts.update(br[bisect.bisect_right(br, a) : bisect.bisect_left(br, b)])
        cuts.discard(b)
        cuts.discard(a)
        bounds = [a, *sorted(cuts), b]
        return list(zip(bounds, bounds[1:]))

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
