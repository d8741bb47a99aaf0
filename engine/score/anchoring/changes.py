"""The diff's changed regions, indexed once per pair: which replaced region holds a span, where
the span is estimated to be in v2, and whether the change is local.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from engine.diff.diffing import KeptRuns, TextDiff
from engine.score.anchoring.thresholds import (
    INDEX_AFTER,
    INDEX_KEY,
    KEPT_GAP,
    LOCAL_CHANGE,
    NEAR_HITS,
    REGION_REACH,
)
from engine.score.anchoring.words import _NO_SPACE, _word_set, content_word_edges


class Copy(NamedTuple):
    """A copy in v1 of a kept run's head or tail (``ChangeIndex.equal_copies``): the
    copy's range ``[start, end)`` (code points) and how much of the run's head (tail) it
    stands for, ``covers``: its length, or more where short words before (after) it count
    with it."""

    start: int
    end: int
    covers: int


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
        # the changes' ranges (``TextDiff.change_bounds``): arrays, no object per change
        self._a0, self._a1, self._b0, self._b1 = diff.change_bounds()
        self._n = len(self._a0)
        self.len_a = len(diff.a)
        self.len_b = len(diff.b)
        self._regions: dict[tuple[int, int], tuple[int, int, int, int] | None] = {}
        self._far_searches = 0
        self.sentences: dict[
            tuple[int, int], tuple[set[str], int, list[tuple[int, int, set[str], float]]]
        ] = {}
        """Per v1 sentence, the mapped-sentence candidates (``_Reanchor._sentence_candidates``)."""
        self.claimed: dict[tuple[int, int, tuple[int, int]], bool] = {}
        """Per v1 sentence and v2 sentence, whether another v1 sentence claims the v2 one
        (``_Reanchor._claimed_by_a_neighbour``)."""
        self.neighbour_images: dict[
            tuple[int, int], tuple[tuple[int, int, bool] | None, tuple[int, int, bool] | None]
        ] = {}
        """Per v1 sentence, what stands in v2 of its nearest neighbours
        (``_Reanchor._neighbour_extents``)."""
        self.extents: dict[tuple[int, int], tuple[int, int, bool] | None] = {}
        """Per v1 sentence, what stands of it in v2 (``_Reanchor._extent``)."""
        self.neighbours: dict[tuple[int, int], tuple[tuple[int, int, int, int], ...]] = {}
        """Per v1 sentence, the v2 range between its kept neighbours, one per reading
        (``_Reanchor._between_kept_neighbours``)."""
        self._words: dict[tuple[int, int], set[str]] = {}
        # one string per distinct word for every word set kept for the pair (a word set of
        # each sentence a comment looks at stays here: about 50 KB a comment otherwise)
        self._word_pool: dict[str, str] = {}
        self._origins: dict[tuple[int, int], tuple[int, KeptRuns]] = {}
        self._kept_memo: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        self._copies: dict[tuple[int, int], tuple[Copy | None, Copy | None]] = {}
        self.kept_enough: dict[tuple[int, int], bool] = {}
        # per v1 sentence, its kept runs less equal copies (Mapped._evidence_runs)
        self.evidence: dict[tuple[int, int, bool], list[tuple[int, int, int]]] = {}
        # v1 blocks with a sentence kept whole (Claims._keeps_a_sentence), by bounds
        self.keeps_a_sentence: dict[tuple[int, int], bool] = {}
        """Per v1 sentence, whether its kept text counts in a claim
        (``_Reanchor._kept_counts``)."""

    def v1_words(self, text: str, s: int, e: int) -> set[str]:
        """The word set of v1 ``text[s:e]`` (``_word_set``), built once per span."""
        key = (-1 - s, e)  # v1 keys apart from v2's
        hit = self._words.get(key)
        if hit is None:
            hit = self._words[key] = self.kept_words(_word_set(text[s:e]))
        return hit

    def kept_words(self, words: set[str]) -> set[str]:
        """``words`` as a set whose strings are shared with every other word set kept for
        the pair (the same words, one string each)."""
        pool = self._word_pool
        return set(map(pool.setdefault, words, words))

    def words_of(self, text: str, s: int, e: int) -> set[str]:
        """The word set of v2 ``text[s:e]`` (``_word_set``), built once per span."""
        key = (s, e)
        hit = self._words.get(key)
        if hit is None:
            hit = self._words[key] = self.kept_words(_word_set(text[s:e]))
        return hit

    def find_inserted(self, quote: str, limit: int = NEAR_HITS) -> list[int]:
        """v2 starts of copies of ``quote`` that begin in inserted text (code points, in
        order, at most ``limit``). The first ``INDEX_AFTER`` searches, and quotes without a
        word start followed by ``INDEX_KEY`` characters, use the diff's scan of the inserted
        text (copies wholly inside one inserted run); later ones ``_far_copies`` (copies
        whose first word starts in inserted text)."""
        m = _INDEX_START.search(quote)
        self._far_searches += 1
        if m is None or len(quote) - m.start() < INDEX_KEY or self._far_searches <= INDEX_AFTER:
            return [h for h, _ in self.diff.find_inserted(quote, limit)]
        return self._far_copies(quote, m.start(), limit)

    def _far_copies(self, quote: str, j: int, limit: int) -> list[int]:
        """v2 starts of copies of ``quote`` whose word start at ``quote[j]`` lies in
        inserted text (a change's v2 range), in order, at most ``limit``. One C-level
        ``str.find`` pass over v2 per search: no index of the inserted text is held (at
        20 MB it held a string and a list entry per new word)."""
        b = self.diff.b
        cb0, cb1 = self._b0, self._b1
        word_start = _INDEX_START.match
        out: list[int] = []
        i = b.find(quote)
        while i >= 0:
            p = i + j
            k = bisect.bisect_right(cb0, p) - 1
            if k >= 0 and p < cb1[k] and word_start(b, p):
                out.append(i)
                if len(out) >= limit:
                    break
            i = b.find(quote, i + 1)
        return out

    def inserted_pieces(self, b0: int, b1: int) -> list[tuple[int, int]]:
        """The v2 ranges of changed (inserted or replacing) text inside v2 ``[b0, b1)``,
        clipped to it, in order (code points)."""
        cb0, cb1, n = self._b0, self._b1, self._n
        out = []
        k = bisect.bisect_right(cb1, b0)  # the first change ending after b0
        while k < n and cb0[k] < b1:
            x0, x1 = max(b0, cb0[k]), min(b1, cb1[k])
            if x0 < x1:
                out.append((x0, x1))
            k += 1
        return out

    def origin(self, b0: int, b1: int) -> tuple[int, KeptRuns]:
        """``TextDiff.v2_origin`` of v2 ``[b0, b1)``, computed once per range for the pair
        (the candidates of neighbouring sentences are the same v2 sentences). Callers do not
        change the runs."""
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
        ca0, ca1, cb1, n = self._a0, self._a1, self._b1, self._n
        if not n:
            return [(s, e, s)] if s < e else []
        k = max(0, bisect.bisect_right(ca0, s) - 1)
        out = []
        # the equal run before change k (or before the first change)
        prev_a1, prev_b1 = (ca1[k - 1], cb1[k - 1]) if k > 0 else (0, 0)
        while True:
            nxt = ca0[k] if k < n else self.len_a
            x0, x1 = max(s, prev_a1), min(e, nxt)
            if x0 < x1:
                out.append((x0, x1, prev_b1 + (x0 - prev_a1)))
            if k >= n or nxt >= e:
                break
            prev_a1, prev_b1 = ca1[k], cb1[k]
            k += 1
        return out

    def equal_copies(self, x0: int, x1: int) -> tuple[Copy | None, Copy | None]:
        """For kept v1 text ``[x0, x1)`` (an equal run of the diff, or a piece of one): the
        v1 copy of its longest head that the deleted text of the change ending at ``x0``
        also holds, and that of its longest tail that the deleted text of the change
        starting at ``x1`` holds (the nearest copy, within ``REGION_REACH``; None where
        there is none). Keeping that copy instead, and deleting the text between, is an
        alignment of equal cost: the same characters kept, deleted and inserted (v1 ``D1
        copy D2 head`` against v2 ``I head`` keeps ``head`` either way). So the diff's
        choice of copy is no evidence of which sentence the kept text belongs to
        (docs/verdicts.md, "Equal copies").

        A head of short words and marks alone (``content_word_edges``) before the copy
        counts with it (``Copy.covers``): the other alignment then loses only those, a
        sentence's shape and no evidence of which sentence it is ("सोती हैं ( स्मिथ, 2020)।", the deleted sentence's own short
        "हैं" before the citation its neighbour ends with too). Computed once per range for
        the pair."""
        key = (x0, x1)
        hit = self._copies.get(key)
        if hit is None:
            hit = self._copies[key] = (self._copy(x0, x1, True), self._copy(x0, x1, False))
        return hit

    def copies_inside(self, x0: int, x1: int, a: int, b: int) -> tuple[int, int]:
        """The lengths (code points) of the head and the tail of kept v1 text ``[x0, x1)``
        whose ``equal_copies`` lie inside v1 ``[a, b)`` (0 where a copy is missing or lies
        elsewhere): how much of the run an alignment of equal cost keeps from ``[a, b)``."""
        head, tail = self.equal_copies(x0, x1)

        def inside(c: Copy | None) -> int:
            return c.covers if c is not None and a <= c.start and c.end <= b else 0

        return inside(head), inside(tail)

    def _copy(self, x0: int, x1: int, head: bool) -> Copy | None:
        a, ca0, ca1 = self.diff.a, self._a0, self._a1
        if head:
            k = bisect.bisect_left(ca1, x0)  # the change ending at x0
            if k >= self._n or ca1[k] != x0 or ca0[k] >= x0:
                return None
            lo, hi = max(ca0[k], x0 - REGION_REACH), x0
        else:
            k = bisect.bisect_left(ca0, x1)  # the change starting at x1
            if k >= self._n or ca1[k] <= x1 or ca0[k] != x1:
                return None
            lo, hi = x1, min(ca1[k], x1 + REGION_REACH)
        best = self._longest_copy(x0, x1, lo, hi, head)
        if best is not None and best.covers == x1 - x0:
            return best
        edges = content_word_edges(a[x0:x1])
        if edges is None:
            # short words and marks alone (" as we do [12]."): the other alignment keeps
            # the copy of its longest tail (head), where that is of some substance (four
            # characters besides spaces: "[12].", not "is"), and loses only such words
            rest = self._longest_copy(x0, x1, lo, hi, not head, outer=True)
            if rest is not None and len("".join(a[rest.start : rest.end].split())) >= 4:
                return rest._replace(covers=x1 - x0)
            return best
        # the short words before the first content word (after the last), then a copy of
        # the rest that holds that word whole
        lead = edges[0] if head else x1 - x0 - edges[1]
        if lead > 0:
            r0, r1 = (x0 + lead, x1) if head else (x0, x1 - lead)
            alt = self._longest_copy(r0, r1, lo, hi, head)
            word = content_word_edges(a[r0:r1])
            whole = (
                word is not None
                and alt is not None
                and (alt.covers >= (word[1] if head else r1 - r0 - word[0]))
            )
            if alt is not None and whole and (best is None or lead + alt.covers > best.covers):
                best = alt._replace(covers=lead + alt.covers)
        return best

    def _longest_copy(
        self, x0: int, x1: int, lo: int, hi: int, head: bool, outer: bool = False
    ) -> Copy | None:
        """The copy in v1 ``[lo, hi)`` of the longest head (tail) of ``[x0, x1)``: the
        nearest one, last (first) in the range; ``outer``, the copy of the other end of the
        run, its tail's before the run (its head's after it)."""
        a = self.diff.a
        near_end = head != outer  # the copy nearest the run: the last in [lo, hi)
        # a shorter head (tail) of a found one is found too, so a binary search on its length
        best = None
        n0, n1 = 1, min(x1 - x0, hi - lo)
        while n0 <= n1:
            n = (n0 + n1) // 2
            piece = a[x0 : x0 + n] if head else a[x1 - n : x1]
            i = a.rfind(piece, lo, hi) if near_end else a.find(piece, lo, hi)
            if i >= 0:
                best, n0 = Copy(i, i + n, n), n + 1
            else:
                n1 = n - 1
        return best

    def change_at(self, i: int) -> tuple[int, int, int, int] | None:
        """The one change (``TextDiff.change_bounds``: a deletion and its adjacent
        insertion) whose deleted v1 text holds character ``i``, as (a0, a1, b0, b1); None
        when ``i`` was kept."""
        k = bisect.bisect_right(self._a0, i) - 1
        if k < 0 or i >= self._a1[k]:
            return None
        return self._a0[k], self._a1[k], self._b0[k], self._b1[k]

    def region(self, s: int, e: int) -> tuple[int, int, int, int] | None:
        """The replaced region around v1 ``[s, e)``: changes touching the span, joined
        through equal runs shorter than ``KEPT_GAP``, as (a0, a1, b0, b1); None if no
        change touches the span."""
        key = (s, e)
        if key not in self._regions:
            self._regions[key] = self._region(s, e)
        return self._regions[key]

    def _region(self, s: int, e: int) -> tuple[int, int, int, int] | None:
        ca0, ca1, n = self._a0, self._a1, self._n
        if not n:
            return None
        j = bisect.bisect_right(ca0, e) - 1
        if j < 0:
            return None
        # walk left to the first change touching [s, e]
        k = j
        while k >= 0 and ca1[k] >= s:
            k -= 1
        first = k + 1
        if first > j:
            return None
        lo, hi = first, j
        # The walk stops REGION_REACH characters beyond the span: a region that large is
        # not the span's own place whatever lies further (and the cost stays bounded).
        while lo > 0 and s - ca0[lo] <= REGION_REACH and not self._kept(lo - 1, lo):
            lo -= 1
        while hi + 1 < n and ca1[hi] - e <= REGION_REACH and not self._kept(hi, hi + 1):
            hi += 1
        return ca0[lo], ca1[hi], self._b0[lo], self._b1[hi]

    def _kept(self, k: int, k2: int) -> bool:
        """The equal text between changes ``k`` and ``k2`` is substantial."""
        a0, a1 = self._a1[k], self._a0[k2]
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
