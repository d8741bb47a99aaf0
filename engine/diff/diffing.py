"""Diff of two texts, position mapping through it, moved text, and churn accounting.

The diff is a function of its inputs alone: no clock is read. Work is bounded by counts
(``DiffLimits``), and where a bound is hit the region is recorded as approximate
(``TextDiff.approximate``), so a verdict there can say so.

How two texts are aligned (an anchored, multi-level diff in the manner of patience and
histogram diffs: Bram Cohen's patience diff; git's ``xdiff/xhistogram.c``):

1. the common prefix and suffix are cut off;
2. the middle of each text is split into sentence chunks (``split_sentences``: a chunk ends
   at Latin ``.``, ``!``, ``?``, their full-width and CJK kin ``。！？｡．``, other scripts'
   full stops, or a newline) and the two chunk sequences are aligned on what both share:
   chunks that occur exactly once in each side, kept in order by a longest increasing
   subsequence, become anchors, and the gaps between anchors are aligned the same way
   recursively (a chunk unique in a gap anchors that gap). A gap with no unique chunk is
   anchored on chunks occurring equally often on both sides (k-th to k-th), and a gap with
   none of those is aligned by Myers' O(ND) diff (diff-match-patch's ``diff_bisect``) under
   a step budget. So a document in which every sentence changed still aligns on its
   unchanged sentences and paragraph breaks, and never becomes one replaced hunk;
3. sentences deleted in one place and inserted unchanged in another are *moved*
   (``TextDiff.moves``): they are kept out of the word pass and out of churn;
4. every remaining changed hunk is aligned the same way on word tokens (``word_tokens``:
   Unicode default word boundaries, UAX #29, so each CJK ideograph or Thai letter is a unit
   of its own and a letter keeps its combining marks), then cleaned up semantically
   (``diff_cleanupSemantic``) so a replaced word is one deletion and one insertion, not
   scattered shared letters; a short replacement is then diffed by character ("colour" ->
   "color" changes one character).

Bounds (``DiffLimits``): Myers steps per call and in total (proportional to the input's
length), and the length of a replacement refined by character. A Myers call that runs out
of steps reports what it has not aligned as deleted and inserted whole, a correct but
coarse diff, and its region is listed in ``TextDiff.approximate``.

The pieces live in their own modules: the units (sentence chunks, word tokens, their
codes) in :mod:`engine.diff.tokens`; the bounds and the anchored alignment in
:mod:`engine.diff.align`; Myers under a step budget in :mod:`engine.diff.myers`; the
semantic cleanup in
:mod:`engine.diff.cleanup`; the passes above them (sentences, moves, hunks, words) in
:mod:`engine.diff.hunks`; churn accounting (``Change``, the churn split) in
:mod:`engine.diff.churn`. This module holds the result, ``TextDiff``: position mapping
through the diff, moved and approximate regions, and churn.

All offsets here are code-point indices. An insertion sits at a v1 boundary ``p`` (between
characters ``p-1`` and ``p``).
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator, Sequence
from itertools import accumulate, compress, repeat
from operator import itemgetter, mul, sub

from engine.diff.align import (
    DEFAULT_LIMITS,
    DELETE,
    EQUAL,
    INSERT,
    REFINE_CHARS,
    DiffLimits,
    Region,
)
from engine.diff.churn import Change, Changes, split_churn
from engine.diff.hunks import DiffResult, diff_ops
from engine.diff.tokens import OFFSETS, split_sentences, word_tokens
from engine.text.normalize import find_starts
from engine.text.sentence_stops import SENTENCE_TERMINATORS

__all__ = [
    "DEFAULT_LIMITS",
    "DELETE",
    "EQUAL",
    "INSERT",
    "REFINE_CHARS",
    "SENTENCE_TERMINATORS",
    "Change",
    "DiffLimits",
    "DiffResult",
    "KeptRuns",
    "Region",
    "TextDiff",
    "diff_ops",
    "diff_texts",
    "split_sentences",
    "word_tokens",
]


def diff_texts(a: str, b: str, limits: DiffLimits = DEFAULT_LIMITS) -> list[tuple[int, str]]:
    """Diff ``a`` against ``b``: a list of ``(op, text)`` with op EQUAL, DELETE or INSERT.

    Concatenating the EQUAL and DELETE texts gives ``a``; EQUAL and INSERT give ``b``.
    """
    return _texts(a, b, diff_ops(a, b, limits).ops)


def _texts(a: str, b: str, ops: list[tuple[int, int]]) -> list[tuple[int, str]]:
    out = []
    i = j = 0
    for op, n in ops:
        if op == EQUAL:
            out.append((op, a[i : i + n]))
            i += n
            j += n
        elif op == DELETE:
            out.append((op, a[i : i + n]))
            i += n
        else:
            out.append((op, b[j : j + n]))
            j += n
    return out


class KeptRuns:
    """The v1 runs that a v2 range was equal to, as ``(start, end)`` pairs (code points of
    v1, ends exclusive), in v2 order, which is v1 order too: the diff's equal ops advance
    in both texts. Held as two arrays, 8 bytes a run (a set of tuples, as before, held
    about 100 bytes a run: at 20 MB the re-anchoring's memo of the runs of v2 blocks came to 35 MB).
    Iterates as the pairs; ``len`` counts them."""

    __slots__ = ("ends", "starts")

    def __init__(self) -> None:
        self.starts = array(OFFSETS)
        self.ends = array(OFFSETS)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self.starts, self.ends)

    def __len__(self) -> int:
        return len(self.starts)

    def within(self, a: int, b: int) -> bool:
        """Every run lies inside v1 ``[a, b)`` (true when there is none)."""
        return not self.starts or (a <= self.starts[0] and self.ends[-1] <= b)


class TextDiff:
    """The diff of ``a`` (v1) and ``b`` (v2) with position mapping, moves and churn.

    ``breaks``: each text's block edges (code points; ``Version.block_breaks``, None for
    plain text): no unit of the diff runs over a block break (``diff_ops``).

    Ops are kept as parallel arrays ``(tag, a0, a1, b0, b1)`` in order; ``a0`` never
    decreases, so a v1 position is found by bisection in O(log n). ``diffs`` (the
    ``(op, text)`` list) is built on first use. ``moves`` lists the moved passages
    (``Region``), ``approximate`` the regions where a bound of ``limits`` was hit.
    """

    def __init__(
        self,
        a: str,
        b: str,
        diffs: list[tuple[int, str]] | None = None,
        limits: DiffLimits = DEFAULT_LIMITS,
        breaks: tuple[Sequence[int] | None, Sequence[int] | None] = (None, None),
    ):
        self.a = a
        self.b = b
        # v2's block edges, for the churn split (a new block at an anchor's edge is outside)
        self._breaks_a: Sequence[int] = breaks[0] or ()
        self._breaks_b: Sequence[int] = breaks[1] or ()
        if diffs is None:
            res = diff_ops(a, b, limits, breaks)
        else:
            res = DiffResult(
                array("b", map(itemgetter(0), diffs)),
                array(OFFSETS, [len(t) for _, t in diffs]),
                [],
                [],
                [],
                [],
            )
        self._diffs: list[tuple[int, str]] | None = diffs
        self.moves: list[Region] = res.moves
        self.approximate: list[Region] = res.approximate
        self._moved_a = res.moved_a
        self._moved_b = res.moved_b
        self._moves_a0 = [m.a0 for m in self.moves]
        self._moves_by_b = sorted(self.moves, key=lambda m: m.b0)
        self._moves_b0 = [m.b0 for m in self._moves_by_b]
        # The ops as arrays, by C-level passes (no list the size of the diff on the way).
        tags, lens = res.tags, res.lens
        del res
        a1s = array(OFFSETS, accumulate(map(mul, lens, map(INSERT.__ne__, tags))))
        b1s = array(OFFSETS, accumulate(map(mul, lens, map(DELETE.__ne__, tags))))
        a0s, b0s = array(OFFSETS, [0]), array(OFFSETS, [0])
        a0s.extend(a1s[:-1])
        b0s.extend(b1s[:-1])
        del a0s[len(tags) :], b0s[len(tags) :]  # no ops: no starts
        self._tag, self._a0, self._a1, self._b0, self._b1 = tags, a0s, a1s, b0s, b1s
        # Indices of the changed (delete, insert) ops, ascending.
        self._changed = array(OFFSETS, compress(range(len(tags)), map(EQUAL.__ne__, tags)))
        self._equal_total = sum(compress(lens, map(EQUAL.__eq__, tags)))
        del lens
        self._ins_joined: str | None = None
        self._ins_starts = array(OFFSETS)
        self._ins_b0 = array(OFFSETS)

    @property
    def diffs(self) -> list[tuple[int, str]]:
        """The diff as ``(op, text)``: EQUAL and DELETE texts join to ``a``, EQUAL and
        INSERT texts to ``b``."""
        if self._diffs is None:
            ops = [
                (self._tag[k], self._a1[k] - self._a0[k] or self._b1[k] - self._b0[k])
                for k in range(len(self._tag))
            ]
            self._diffs = _texts(self.a, self.b, ops)
        return self._diffs

    # -- moves and approximate regions -----------------------------------------------

    def moved_to(self, s: int, e: int) -> tuple[int, int] | None:
        """If v1 ``[s, e)`` (non-empty) lies inside a moved passage, its v2 span; else None.

        The passage's text is the same on both sides, so the span maps character for
        character: ``b[result] == a[s:e]``.
        """
        if s >= e:
            return None
        j = bisect.bisect_right(self._moves_a0, s) - 1
        if j < 0:
            return None
        m = self.moves[j]
        if e > m.a1:
            return None
        return m.b0 + (s - m.a0), m.b0 + (e - m.a0)

    def moved_part(self, s: int, e: int) -> tuple[int, int, int]:
        """How much of v1 ``[s, e)`` lies in moved passages (code points), and the v2 range
        from the copy of the first such piece to that of the last (``(0, 0, 0)`` when
        none): a block most of whose sentences moved, its shortest ones aligned on their
        own ("“No." before a moved "They were found …"), moved."""
        j = max(0, bisect.bisect_right(self._moves_a0, s) - 1)
        held, b0, b1 = 0, -1, 0
        while j < len(self.moves) and self.moves[j].a0 < e:
            m = self.moves[j]
            x0, x1 = max(s, m.a0), min(e, m.a1)
            if x0 < x1:
                held += x1 - x0
                y0, y1 = m.b0 + (x0 - m.a0), m.b0 + (x1 - m.a0)
                b0 = y0 if b0 < 0 else min(b0, y0)
                b1 = max(b1, y1)
            j += 1
        return (held, b0, b1) if held else (0, 0, 0)

    def moved_from(self, s: int, e: int) -> tuple[int, int] | None:
        """If v2 ``[s, e)`` (non-empty) lies inside a moved passage, its v1 span; else None."""
        if s >= e:
            return None
        j = bisect.bisect_right(self._moves_b0, s) - 1
        if j < 0:
            return None
        m = self._moves_by_b[j]
        if e > m.b1:
            return None
        return m.a0 + (s - m.b0), m.a0 + (e - m.b0)

    def moved_total(self) -> int:
        """Characters that only moved (each counted once, on its v1 side)."""
        return sum(m.a1 - m.a0 for m in self.moves)

    def is_approximate(self, s: int, e: int) -> bool:
        """True if v1 ``[s, e)`` overlaps (or, when empty, touches) a region where a bound
        of the diff's limits was hit, so the alignment there may be coarser than minimal."""
        for r in self.approximate:
            if (s < r.a1 and r.a0 < e) or ((s == e or r.a0 == r.a1) and r.a0 <= e and s <= r.a1):
                return True
        return False

    # -- mapping ---------------------------------------------------------------------

    @property
    def identical(self) -> bool:
        return self.a == self.b

    @staticmethod
    def _op_holding(i: int, starts: Sequence[int], ends: Sequence[int]) -> int | None:
        """Index of the op whose ``[start, end)`` in one text holds character ``i`` of it
        (``starts`` and ``ends``: the ops' ranges in that text). The last op starting at or
        before ``i``: every op after the one holding ``i`` starts at or after that one's
        end, so an op empty in this text (an insertion in v1, a deletion in v2) that
        starts there comes before it, and no index of the non-empty ops is needed (at 20
        MB rewritten those came to 15 MB)."""
        k = bisect.bisect_right(starts, i) - 1
        return k if k >= 0 and i < ends[k] else None

    def _op_at_a(self, i: int) -> int | None:
        """Index of the equal/delete op holding v1 character ``i``."""
        return self._op_holding(i, self._a0, self._a1)

    def _op_at_b(self, i: int) -> int | None:
        """Index of the equal/insert op holding v2 character ``i``."""
        return self._op_holding(i, self._b0, self._b1)

    def map_left(self, i: int) -> int:
        """v2 offset for v1 boundary ``i``, before any insertion made at ``i``."""
        k = bisect.bisect_left(self._a0, i)
        if k > 0 and self._a1[k - 1] > i:  # strictly inside op k-1
            k -= 1
            return self._b0[k] + (i - self._a0[k] if self._tag[k] == EQUAL else 0)
        return self._b0[k] if k < len(self._tag) else len(self.b)

    def map_right(self, i: int) -> int:
        """v2 offset for v1 boundary ``i``, after any insertion made at ``i``."""
        k = bisect.bisect_left(self._a0, i)
        if k > 0 and self._a1[k - 1] > i:
            if self._tag[k - 1] == EQUAL:
                return self.map_left(i)
            # Inside a deletion: the text inserted in its place replaces all of it, so the
            # boundary maps past that insertion (a replaced span maps to its replacement).
            end = self._b0[k - 1]
            while k < len(self._tag) and self._tag[k] == INSERT:
                end = self._b1[k]
                k += 1
            return end
        end = self._b0[k] if k < len(self._tag) else len(self.b)
        while k < len(self._tag) and self._a0[k] == i and self._tag[k] == INSERT:
            end = self._b1[k]
            k += 1
        return end

    def image(self, s: int, e: int) -> tuple[int, int]:
        """The v2 region a v1 span maps to, insertions at both boundaries included."""
        return self.map_left(s), max(self.map_right(e), self.map_left(s))

    def place_in_b(self, s: int, e: int) -> int:
        """The point of v2 (code points) where v1 ``[s, e)`` stood: for a deleted quote, the
        place its text was (where a view scrolls to and a re-created Word comment goes).
        The start of the v2 region it maps to (``image``); when its words began a paragraph
        and that point falls inside a neighbour's words (the diff matched some of them by
        chance), the start of the paragraph the deletion left instead."""
        at, until = self.image(s, e)
        old, new = self.a, self.b
        if (s == 0 or old[s - 1] == "\n") and at > 0 and new[at - 1] != "\n":
            brk = new.find("\n", at, min(until + 1, len(new)))
            if brk >= 0:
                at = brk + 1
        return at

    def unchanged_image(self, s: int, e: int) -> int | None:
        """If v1 ``[s, e)`` (non-empty) lies inside one equal run, its v2 start; else None.

        Inside one equal run means no character of the span was deleted and nothing was
        inserted strictly inside it (an insertion at ``s`` or ``e`` does not count).
        """
        if s >= e:
            return None
        k = self._op_at_a(s)
        if k is None or self._tag[k] != EQUAL or e > self._a1[k]:
            return None
        return self._b0[k] + (s - self._a0[k])

    def v2_origin(self, b0: int, b1: int) -> tuple[int, KeptRuns]:
        """Where v2 ``[b0, b1)`` came from: (characters inserted, v1 runs it was equal to).

        The v1 runs (:class:`KeptRuns`) are the equal text the region's kept characters
        came from, so a caller can tell new text from text that was already in v1.
        """
        inserted = 0
        runs = KeptRuns()
        starts, ends = runs.starts, runs.ends
        k = self._op_at_b(b0)
        if k is None:
            return inserted, runs
        tags, a0s, b0s, b1s = self._tag, self._a0, self._b0, self._b1
        n = len(tags)
        i = b0
        while i < b1 and k < n:  # the ops in order tile v2 (a deletion is empty there)
            end = min(b1s[k], b1)
            if end > i:
                if tags[k] == INSERT:
                    inserted += end - i
                else:
                    off = a0s[k] - b0s[k]
                    starts.append(i + off)
                    ends.append(end + off)
                i = end
            k += 1
        return inserted, runs

    def find_inserted(self, needle: str, limit: int = 2000) -> list[tuple[int, int]]:
        """v2 spans where ``needle`` occurs wholly inside one inserted run (new text).

        Searches only what was inserted, not all of v2: a moved passage is new text in v2.
        """
        if self._ins_joined is None:
            # The inserted runs' v2 starts and ends, and where each starts in the joined
            # text: arrays, by C-level passes (a rewritten 20 MB text has 650,000 runs).
            ch = self._changed
            ins = array(OFFSETS, compress(ch, map(INSERT.__eq__, map(self._tag.__getitem__, ch))))
            rb0 = array(OFFSETS, map(self._b0.__getitem__, ins))
            rb1 = array(OFFSETS, map(self._b1.__getitem__, ins))
            del ins
            # Runs are joined by U+0000, which no needle from a document body carries.
            self._ins_joined = "\0".join(map(self.b.__getitem__, map(slice, rb0, rb1)))
            starts = array(OFFSETS, accumulate(map((1).__add__, map(sub, rb1, rb0)), initial=0))
            starts.pop()
            self._ins_starts, self._ins_b0 = starts, rb0
        if "\0" in needle:
            return []
        starts, rb0 = self._ins_starts, self._ins_b0
        out: list[tuple[int, int]] = []
        for i in find_starts(self._ins_joined, needle, limit):
            j = bisect.bisect_right(starts, i) - 1
            b = rb0[j] + (i - starts[j])
            out.append((b, b + len(needle)))
        return out

    def release_search_index(self) -> None:
        """Let go of :meth:`find_inserted`'s index of the inserted text (built again if
        asked again): up to the size of v2, held by every result that keeps the diff."""
        self._ins_joined = None
        self._ins_starts, self._ins_b0 = array(OFFSETS), array(OFFSETS)

    # -- churn -----------------------------------------------------------------------

    def changes(self) -> list[Change]:
        """Every changed region, a deletion and its adjacent insertion joined into one."""
        texts = (self.a, self.b, 0, 0)  # shared by every change: no text is copied
        return list(map(Change.over, repeat(texts), *self.change_bounds()))

    def change_bounds(self) -> tuple[array, array, array, array]:
        """The ranges of ``changes()`` as four arrays ``(a0s, a1s, b0s, b1s)`` (code
        points, in order), no object per change."""
        ch = self._changed
        if not ch:
            return array(OFFSETS), array(OFFSETS), array(OFFSETS), array(OFFSETS)
        # A run of consecutive changed ops is one change: a run breaks after op ch[k] when
        # the next changed op is not ch[k] + 1. Deletions of a run are contiguous in v1
        # (insertions do not advance it), and insertions in v2.
        breaks = list(map(int.__ne__, ch[1:], map((1).__add__, ch[:-1])))
        firsts = array(OFFSETS, ch[:1])
        firsts.extend(compress(ch[1:], breaks))
        lasts = array(OFFSETS, compress(ch[:-1], breaks))
        lasts.append(ch[-1])
        del breaks
        return (
            array(OFFSETS, map(self._a0.__getitem__, firsts)),
            array(OFFSETS, map(self._a1.__getitem__, lasts)),
            array(OFFSETS, map(self._b0.__getitem__, firsts)),
            array(OFFSETS, map(self._b1.__getitem__, lasts)),
        )

    def total_changed(self) -> int:
        """Characters changed in all: deleted plus inserted, moved text left out."""
        moved = sum(e - s for s, e in self._moved_a) + sum(e - s for s, e in self._moved_b)
        return len(self.a) + len(self.b) - 2 * self._equal_total - moved

    def split_churn(self, spans: list[tuple[int, int]]) -> tuple[int, int, Changes]:
        """Characters changed inside and outside the v1 ``spans``, and the outside pieces.

        A deleted character is inside when it lies in some span ``[s, e)``; an insertion at
        v1 boundary ``p`` is inside when ``s <= p <= e`` for some span: an insertion at an
        anchor's boundary counts as inside it, except the blocks it adds: inserted text
        from a line break or a v2 block edge on (at the span's end), or up to the last of
        them (at its start), is a new paragraph beside the anchor and outside it
        (docs/metrics.md, collateral churn). Moved text is neither
        (``moved_total`` counts it). Returns ``(inside, outside, collateral)`` where
        ``collateral`` lists the outside pieces as Changes with their v1 and v2 ranges, for
        display.
        """
        return split_churn(self, spans)
