"""The diff's changed regions, indexed once per pair: which replaced region holds a span, where
the span is estimated to be in v2, and whether the change is local.
"""

from __future__ import annotations

import bisect
import re

from engine.diff.churn import Change
from engine.diff.diffing import TextDiff
from engine.score.anchoring.thresholds import (
    INDEX_AFTER,
    INDEX_KEY,
    KEPT_GAP,
    LOCAL_CHANGE,
    NEAR_HITS,
    REGION_REACH,
)
from engine.score.anchoring.words import _NO_SPACE, _word_set

_INDEX_START = re.compile(r"(?<!\w)\w")


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
        self._b1 = [c.b1 for c in self.changes]
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
        self._origins: dict[tuple[int, int], tuple[int, set[tuple[int, int]]]] = {}
        self._kept_memo: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        self.kept_enough: dict[tuple[int, int], bool] = {}
        """Per v1 sentence, whether its kept text counts in a claim
        (``_Reanchor._kept_counts``)."""

    def v1_words(self, text: str, s: int, e: int) -> set[str]:
        """The word set of v1 ``text[s:e]`` (``_word_set``), built once per span."""
        key = (-1 - s, e)  # v1 keys apart from v2's
        hit = self._words.get(key)
        if hit is None:
            hit = self._words[key] = _word_set(text[s:e])
        return hit

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

    def inserted_pieces(self, b0: int, b1: int) -> list[tuple[int, int]]:
        """The v2 ranges of changed (inserted or replacing) text inside v2 ``[b0, b1)``,
        clipped to it, in order (code points)."""
        ch = self.changes
        out = []
        k = bisect.bisect_right(self._b1, b0)  # the first change ending after b0
        while k < len(ch) and ch[k].b0 < b1:
            x0, x1 = max(b0, ch[k].b0), min(b1, ch[k].b1)
            if x0 < x1:
                out.append((x0, x1))
            k += 1
        return out

    def origin(self, b0: int, b1: int) -> tuple[int, set[tuple[int, int]]]:
        """``TextDiff.v2_origin`` of v2 ``[b0, b1)``, computed once per range for the pair
        (the candidates of neighbouring sentences are the same v2 sentences). Callers do not
        change the set."""
        key = (b0, b1)
        hit = self._origins.get(key)
        if hit is None:
            hit = self._origins[key] = self.diff.v2_origin(b0, b1)
        return hit

    def kept_runs(self, s: int, e: int) -> list[tuple[int, int, int]]:
        """The diff's equal runs inside v1 ``[s, e)``, as (v1 start, v1 end, v2 start):
        the gaps between consecutive changes, clipped to the span (computed once per span
        for the pair; callers do not change the list)."""
        key = (s, e)
        hit = self._kept_memo.get(key)
        if hit is None:
            hit = self._kept_memo[key] = self._kept_runs(s, e)
        return hit

    def _kept_runs(self, s: int, e: int) -> list[tuple[int, int, int]]:
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
