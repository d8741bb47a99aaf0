"""Churn accounting of a diff: the changed regions (``Change``) and the split of changed
characters into those inside the actionable comments' spans and those outside them
(collateral churn, docs/metrics.md). ``engine.diff.diffing.TextDiff.split_churn`` is the entry
point; this module holds its work, walking the diff's op arrays once.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import Any, Protocol, overload

from engine.diff.align import DELETE, INSERT
from engine.diff.tokens import OFFSETS


class Change:
    """One changed region: v1 ``[a0, a1)`` became v2 ``[b0, b1)``; ``deleted`` and
    ``inserted`` are its v1 and v2 texts (code points). Read-only by convention.

    A pure insertion has ``a0 == a1``; a pure deletion ``b0 == b1``. ``Change(a0, a1, b0,
    b1, deleted, inserted)`` holds the two texts given; ``Change.over(texts, a0, a1, b0,
    b1)`` holds only a reference to the pair ``texts = (v1, v2)`` and cuts them out when
    read, so a diff's hundreds of thousands of changes copy none of their text (a 20 MB
    rewrite held it twice over).
    """

    __slots__ = ("_src", "a0", "a1", "b0", "b1")

    def __init__(
        self, a0: int, a1: int, b0: int, b1: int, deleted: str = "", inserted: str = ""
    ) -> None:
        self.a0, self.a1, self.b0, self.b1 = a0, a1, b0, b1
        # the texts and the offsets they start at: here the two texts themselves
        self._src: tuple[str, str, int, int] = (deleted, inserted, a0, b0)

    @classmethod
    def over(cls, texts: tuple[str, str, int, int], a0: int, a1: int, b0: int, b1: int) -> Change:
        """A change of the texts ``(v1, v2, 0, 0)`` (one tuple shared by every change of a
        diff), its texts read from them on demand."""
        c = cls.__new__(cls)
        c.a0, c.a1, c.b0, c.b1, c._src = a0, a1, b0, b1, texts
        return c

    @property
    def deleted(self) -> str:
        """The v1 text removed: ``v1[a0:a1]``."""
        a, _b, oa, _ob = self._src
        return a[self.a0 - oa : self.a1 - oa]

    @property
    def inserted(self) -> str:
        """The v2 text put in: ``v2[b0:b1]``."""
        _a, b, _oa, ob = self._src
        return b[self.b0 - ob : self.b1 - ob]

    @property
    def size(self) -> int:
        """Characters changed: deleted plus inserted."""
        return len(self.deleted) + len(self.inserted)

    def _key(self) -> tuple[int, int, int, int, str, str]:
        return (self.a0, self.a1, self.b0, self.b1, self.deleted, self.inserted)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Change):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        a0, a1, b0, b1, d, i = self._key()
        return f"Change(a0={a0}, a1={a1}, b0={b0}, b1={b1}, deleted={d!r}, inserted={i!r})"


class Changes(Sequence[Change]):
    """A sequence of ``Change`` of one pair of texts held as four arrays of offsets (code
    points): 16 bytes a change, each ``Change`` made when read. Equal to any sequence of
    the same changes (a list included)."""

    __slots__ = ("_a0", "_a1", "_b0", "_b1", "_texts")

    def __init__(self, a: str, b: str) -> None:
        self._texts = (a, b, 0, 0)
        self._a0, self._a1, self._b0, self._b1 = (array(OFFSETS) for _ in range(4))

    def add(self, a0: int, a1: int, b0: int, b1: int) -> None:
        """Append the change of v1 ``[a0, a1)`` to v2 ``[b0, b1)``."""
        self._a0.append(a0)
        self._a1.append(a1)
        self._b0.append(b0)
        self._b1.append(b1)

    def __len__(self) -> int:
        return len(self._a0)

    @overload
    def __getitem__(self, i: int) -> Change: ...
    @overload
    def __getitem__(self, i: slice) -> list[Change]: ...
    def __getitem__(self, i: int | slice) -> Change | list[Change]:
        if isinstance(i, slice):
            return list(self)[i]
        return Change.over(self._texts, self._a0[i], self._a1[i], self._b0[i], self._b1[i])

    def __iter__(self) -> Iterator[Change]:
        return map(Change.over, repeat(self._texts), self._a0, self._a1, self._b0, self._b1)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(x == y for x, y in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Changes({list(self)!r})"


class _OpArrays(Protocol):
    """What ``split_churn`` reads of a ``TextDiff``: the texts, the ops as parallel
    arrays, the indices of the changed ops and the moved sentence chunks."""

    a: str
    b: str
    _tag: array
    _a0: array
    _a1: array
    _b0: array
    _b1: array
    _changed: array
    _moved_a: list[tuple[int, int]]
    _moved_b: list[tuple[int, int]]
    _breaks_a: Sequence[int]
    _breaks_b: Sequence[int]


def _own_parts(b: str, breaks: Sequence[int], x0: int, x1: int, side: str) -> list[tuple[int, int]]:
    """The part of the inserted text ``b[x0:x1]`` that lies in the anchor's own block; the
    rest (none when it holds no line break or v2 block edge, ``breaks``) is paragraphs
    the anchor never had. Cut at every line break and block edge in it: inserted at the
    anchor's end (``side`` ``"end"``), its first piece when the anchor's text runs on
    into it (``x0`` no block's start); at its start (``"start"``), its last piece when it
    runs on into the anchor (``x1`` no block's end); inside the anchor or replacing its
    text (``"inside"``), its first piece when it follows text of its block, else its last
    when text of its block follows, else its first."""
    lo, hi = bisect.bisect_left(breaks, x0), bisect.bisect_right(breaks, x1)
    before = x0 > 0 and b[x0 - 1] != "\n" and not (lo < hi and breaks[lo] == x0)
    after = x1 < len(b) and b[x1] != "\n" and not (lo < hi and breaks[hi - 1] == x1)
    # the first piece ends at the first line break (after it, when it is the first
    # character) or block edge past x0; the last starts after the last line break (at
    # it, when it is the last character) or at the last block edge before x1
    e1, e2 = x1, x0
    nl = b.find("\n", x0, x1)
    if nl >= 0:
        e1 = nl if nl > x0 else x0 + 1
        nl = b.rfind("\n", x0, x1)
        e2 = nl + 1 if nl + 1 < x1 else nl
    inner = [x for x in breaks[lo:hi] if x0 < x < x1]
    if inner:
        e1, e2 = min(e1, inner[0]), max(e2, inner[-1])
    first, last = (x0, e1), (e2, x1)
    if side == "end":
        own = first if before else None
    elif side == "start":
        own = last if after else None
    else:
        own = first if before or not after else last
    return [own] if own is not None and own[0] < own[1] and b[own[0] : own[1]] != "\n" else []


def _one_block(d: _OpArrays, s: int, e: int) -> bool:
    """The v1 span ``[s, e)`` lies in one block: no line break, no v1 block edge inside."""
    if "\n" in d.a[s:e]:
        return False
    breaks = d._breaks_a
    return not breaks or bisect.bisect_right(breaks, s) >= bisect.bisect_left(breaks, e)


def _split_new_blocks(
    b: str, breaks: Sequence[int], pieces: list[tuple[int, int]], side: str
) -> tuple[int, list[tuple[int, int]]]:
    """Characters of ``pieces`` (an insertion less its moved text) in the blocks around
    it (``_own_parts``), and the rest: the new blocks, outside every anchor."""
    x0, x1 = pieces[0][0], pieces[-1][1]
    own = _own_parts(b, breaks, x0, x1, side)
    kept = 0
    rest: list[tuple[int, int]] = []
    for x, y in pieces:
        pos = x
        for u, v in own:
            u, v = max(u, x), min(v, y)
            if u < v:
                if pos < u:
                    rest.append((pos, u))
                kept += v - u
                pos = v
        if pos < y:
            rest.append((pos, y))
    return kept, rest


def _split_insertion(
    d: _OpArrays, k: int, j: int, starts: list[int], ends: list[int], add: Any
) -> tuple[int, int]:
    """Characters of insertion op ``k`` inside and outside the merged spans (``j``: the
    last span starting at or before its v1 point), its outside pieces given to ``add``."""
    a, b = d.a, d.b
    tags, a0s, a1s, b0s, b1s = d._tag, d._a0, d._a1, d._b0, d._b1
    moved_b = d._moved_b
    inside = outside = 0
    p = a0s[k]
    x0, x1 = b0s[k], b1s[k]
    if moved_b:
        pieces = _not_in(x0, x1, moved_b)
        n = sum(y - x for x, y in pieces)
    else:
        pieces, n = None, x1 - x0
    if not n:
        return inside, outside
    if j >= 0 and starts[j] < p < ends[j] and not _one_block(d, starts[j], ends[j]):
        share = n
    elif j >= 0 and p <= ends[j]:
        # at the anchor's edge or inside its one block: inside, but for the blocks
        # the insertion adds
        side = "inside" if starts[j] < p < ends[j] else "end" if p == ends[j] else "start"
        own, rest = _split_new_blocks(b, d._breaks_b, pieces or [(x0, x1)], side)
        inside += own
        outside += n - own
        for u, v in rest:
            add(p, p, u, v)
        return inside, outside
    elif k > 0 and tags[k - 1] == DELETE and a1s[k - 1] == p:
        # The insertion replaces the deletion before it: it is inside in the
        # proportion the replaced text was (a replaced anchor's replacement
        # is the fix, not collateral).
        d0, d1 = a0s[k - 1], a1s[k - 1]
        if j < 0 or ends[j] <= d0:  # no span reaches into the deletion
            share = 0
        elif "\n" not in a[d0:d1]:
            # a replacement within a block: the blocks it adds are outside
            own, rest = _split_new_blocks(b, d._breaks_b, pieces or [(x0, x1)], "inside")
            share = round(own * _overlap(starts, ends, d0, d1) / (d1 - d0))
            inside += share
            outside += n - share
            for u, v in rest:
                add(p, p, u, v)
            if share == 0 and own:
                for u, v in _own_parts(b, d._breaks_b, x0, x1, "inside"):
                    add(p, p, u, v)
            return inside, outside
        else:
            share = round(n * _overlap(starts, ends, d0, d1) / (d1 - d0))
    else:
        share = 0
    inside += share
    outside += n - share
    if share == 0:
        if pieces is None:
            add(p, p, x0, x1)
        else:
            for x, y in pieces:
                add(p, p, x, y)
    return inside, outside


def split_churn(d: _OpArrays, spans: list[tuple[int, int]]) -> tuple[int, int, Changes]:
    """``TextDiff.split_churn`` (see there) over the op arrays of ``d``."""
    starts, ends = _merge_spans(spans)
    nm = len(starts)
    a, b = d.a, d.b
    tags, a0s, a1s, b0s = d._tag, d._a0, d._a1, d._b0
    moved_a = d._moved_a
    inside = outside = 0
    collateral = Changes(a, b)  # four arrays: no object, no text copied per piece
    add = collateral.add
    # Ops come in order of their v1 start, so the span at or before an op's start is
    # found by moving one index forward, never by a search.
    j = -1  # the last merged span starting at or before the op's v1 start
    for k in d._changed:
        p = a0s[k]
        while j + 1 < nm and starts[j + 1] <= p:
            j += 1
        if tags[k] == INSERT:
            got_in, got_out = _split_insertion(d, k, j, starts, ends, add)
            inside += got_in
            outside += got_out
            continue
        # Deletion [a0, a1) less moved text: split against the merged spans.
        y = b0s[k]
        x0, x1 = a0s[k], a1s[k]
        pieces = _not_in(x0, x1, moved_a) if moved_a else [(x0, x1)] if x0 < x1 else []
        for q0, q1 in pieces:
            pos = q0
            i = max(j, 0)
            while pos < q1:
                while i < nm and ends[i] <= pos:
                    i += 1
                if i < nm and starts[i] <= pos:
                    end = min(q1, ends[i])
                    inside += end - pos
                else:
                    end = min(q1, starts[i]) if i < nm else q1
                    outside += end - pos
                    add(pos, end, y, y)
                pos = end
    return inside, outside, collateral


def _merge_spans(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Starts and ends of ``spans`` sorted and merged (spans that overlap or touch join)."""
    starts: list[int] = []
    ends: list[int] = []
    for s, e in sorted(spans):
        if starts and s <= ends[-1]:
            ends[-1] = max(ends[-1], e)
        else:
            starts.append(s)
            ends.append(e)
    return starts, ends


def _overlap(starts: list[int], ends: list[int], a0: int, a1: int) -> int:
    """Characters of ``[a0, a1)`` inside the merged spans ``starts``/``ends``."""
    j = max(bisect.bisect_right(starts, a0) - 1, 0)
    total = 0
    while j < len(starts) and starts[j] < a1:
        total += max(0, min(a1, ends[j]) - max(a0, starts[j]))
        j += 1
    return total


def _not_in(lo: int, hi: int, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``[lo, hi)`` outside the sorted, disjoint ``ranges``."""
    if not ranges:
        return [(lo, hi)] if lo < hi else []
    out = []
    j = max(bisect.bisect_right(ranges, (lo, hi)) - 1, 0)
    pos = lo
    while j < len(ranges) and ranges[j][0] < hi:
        r0, r1 = ranges[j]
        if r1 > pos:
            if r0 > pos:
                out.append((pos, r0))
            pos = max(pos, r1)
        j += 1
    if pos < hi:
        out.append((pos, hi))
    return out
