"""Anchored alignment of two token-code strings (engine.diff.diffing describes the whole
algorithm).

``_Aligner.align`` finds matching blocks the way patience and histogram diffs do (Bram
Cohen's patience diff; git's ``xdiff/xhistogram.c``): tokens unique on both sides (else
occurring equally often) kept in order by a longest increasing subsequence anchor the
alignment, gaps recurse, and a gap with no anchor is aligned by diff-match-patch's Myers
``diff_bisect`` with its clock replaced by a count (``_CountedDmp``, engine.diff.myers).
"""

from __future__ import annotations

import bisect
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence, Set as AbstractSet
from dataclasses import dataclass
from itertools import compress, islice, repeat

from engine.diff.myers import _CountedDmp

EQUAL, DELETE, INSERT = 0, -1, 1


_Hunk = tuple[int, int, int, int]
"""v1 chunks ``[i0, i1)`` against v2 chunks ``[j0, j1)``."""


@dataclass(frozen=True)
class DiffLimits:
    """Counts that bound the diff's work. None of them is a time.

    ``myers_steps``: diagonals a single Myers call may extend (about one microsecond each
    in CPython); ``total_steps_base`` + ``total_steps_per_char`` x (len(a) + len(b)): the
    same, summed over the whole diff; ``refine_chars``: a replacement is diffed by
    character when neither side is longer than this; ``move_min_chars``: the shortest
    sentence (stripped, in code points) reported as moved.
    """

    myers_steps: int = 200_000
    total_steps_base: int = 2_000_000
    total_steps_per_char: int = 2
    refine_chars: int = 40
    move_min_chars: int = 12


DEFAULT_LIMITS = DiffLimits()


REFINE_CHARS = DEFAULT_LIMITS.refine_chars
"""Replaced word runs up to this many characters on each side are refined to characters."""


@dataclass(frozen=True)
class Region:
    """v1 ``[a0, a1)`` against v2 ``[b0, b1)``: a moved passage, or an approximate region."""

    a0: int
    a1: int
    b0: int
    b1: int


# -- anchored alignment of token sequences ------------------------------------------------


_GALLOP_MAX = 1 << 16
"""Longest slice compared at once when measuring a common prefix or suffix (copies stay
small on texts of many megabytes)."""


def _common_prefix(sa: str, i0: int, i1: int, sb: str, j0: int, j1: int) -> int:
    n = min(i1 - i0, j1 - j0)
    if n == 0 or sa[i0] != sb[j0]:
        return 0
    lo, hi = 1, n  # sa[i0:i0+lo] == sb[j0:j0+lo]; find the largest by galloping + bisection
    step = 1
    while lo < n:
        k = min(n, lo + step)
        if sa[i0 + lo : i0 + k] == sb[j0 + lo : j0 + k]:
            lo = k
            step = min(2 * step, _GALLOP_MAX)
        else:
            hi = k - 1
            break
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sa[i0 + lo : i0 + mid] == sb[j0 + lo : j0 + mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(sa: str, i0: int, i1: int, sb: str, j0: int, j1: int) -> int:
    n = min(i1 - i0, j1 - j0)
    if n == 0 or sa[i1 - 1] != sb[j1 - 1]:
        return 0
    lo, hi, step = 1, n, 1
    while lo < n:
        k = min(n, lo + step)
        if sa[i1 - k : i1 - lo] == sb[j1 - k : j1 - lo]:
            lo = k
            step = min(2 * step, _GALLOP_MAX)
        else:
            hi = k - 1
            break
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sa[i1 - mid : i1 - lo] == sb[j1 - mid : j1 - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


_LIST_MAX = 1 << 16
"""Longest sequence whose LIS bookkeeping is held in a list, not an array."""


def _lis(seq: Sequence[int]) -> list[int]:
    """Indices of a longest strictly increasing subsequence of ``seq``: patience sorting,
    O(n log n). Of the longest ones, the one ending at the last value that extended or
    replaced the longest run, each earlier index the run's tail when that value came."""
    n = len(seq)
    if n < 2 or sorted(seq) == (seq if type(seq) is list else list(seq)):
        return list(range(n))  # already increasing (the values are distinct)
    tails: list[int] = [seq[0]]  # last value of the best run of each length
    tail_idx: list[int] = [0]
    # each index's predecessor in its run (a list, faster; an array for long gaps, which
    # would hold an int object per index)
    prev: list[int] | array = [-1] * n if n <= _LIST_MAX else array("q", [-1]) * n
    top = seq[0]  # tails[-1]
    last = 0  # tail_idx[-1]
    bisect_left = bisect.bisect_left
    for k, i in enumerate(islice(seq, 1, None), 1):
        if i > top:  # extends the longest run (no search needed)
            prev[k] = last
            tails.append(i)
            tail_idx.append(k)
            top, last = i, k
            continue
        p = bisect_left(tails, i)
        tails[p] = i
        tail_idx[p] = k
        if p:
            prev[k] = tail_idx[p - 1]
        if p == len(tails) - 1:
            top, last = i, k
    out = []
    k = last
    while k >= 0:
        out.append(k)
        k = prev[k]
    out.reverse()
    return out


_ONE = (1).__eq__
"""``n == 1`` for an int ``n``, as a C callable for ``map``."""


try:  # the C loop behind Counter(iterable), without Counter's Python-level checks
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons

    def _count_elements(mapping: dict, iterable: Iterator | str) -> None:
        for t in iterable:
            mapping[t] = mapping.get(t, 0) + 1


def _counts(s: str | list[str]) -> dict[str, int]:
    """How often each token (code character, or token) occurs in ``s``."""
    out: dict[str, int] = {}
    _count_elements(out, s)
    return out


_FIND_MAX = 64
"""Unique tokens located one C-level search each when there are at most this many (else
one pass over the gap: many searches over a long gap would be quadratic)."""


def _anchors(
    A: str | list[str],
    B: str | list[str],
    ca: dict[str, int] | None = None,
    cb: dict[str, int] | None = None,
) -> _Pairs:
    """Anchor pairs ``(i, j)`` with ``A[i] == B[j]``, increasing in both: tokens unique on
    both sides, else tokens occurring equally often on both sides (k-th with k-th); kept
    in order by a longest increasing subsequence. ``ca`` and ``cb``: the token counts of
    ``A`` and ``B`` (``_counts``), when the caller has them.

    ``A`` and ``B`` are token codes (strings), or the tokens themselves (lists of
    strings): the same pairs either way, as codes and tokens correspond one to one. A list
    of tokens, each a string whose hash is kept, is counted and looked up without making
    a one-character string per token, as a code string's iteration does."""
    if ca is None:
        ca = _counts(A)
    if cb is None:
        cb = _counts(B)
    # Tokens unique on both sides (the smaller count table's unique tokens, kept where the
    # other table counts them once); failing those, tokens occurring equally often on both
    # sides. The passes over tokens run in C (compress, map), not as Python loops.
    small, large = (ca, cb) if len(ca) <= len(cb) else (cb, ca)
    ones = list(compress(small, map(_ONE, small.values())))
    keep = set(compress(ones, map(_ONE, map(large.get, ones, repeat(0)))))
    del ones
    ia: array | list[int]
    jb: array | list[int]
    if keep and len(keep) <= _FIND_MAX and isinstance(A, str) and isinstance(B, str):
        # each kept token's only place in B, in order, then its only place in A, by
        # str.find (token lists take the pass below: list.index compares token by token)
        jb = sorted(map(B.find, keep))
        ia = list(map(A.find, map(B.__getitem__, jb)))
    elif keep:
        pos = dict(zip(A, range(len(A))))  # a token's last place: a kept one's only place
        flags = list(map(keep.__contains__, B))
        ia = array("q", map(pos.__getitem__, compress(B, flags)))  # pairs, by v2 index
        jb = array("q", compress(range(len(B)), flags))
        del pos, flags
    else:
        ia, jb = array("q"), array("q")
        same = {t for t, n in ca.items() if cb.get(t) == n}
        if not same:
            return _Pairs(ia, jb, [])
        occ: dict[str, list[int]] = {}
        for i, t in enumerate(A):
            if t in same:
                occ.setdefault(t, []).append(i)
        seen: Counter[str] = Counter()
        for j, t in enumerate(B):
            if t in same:
                ia.append(occ[t][seen[t]])
                jb.append(j)
                seen[t] += 1
    return _Pairs(ia, jb, _lis(ia))


class _Pairs:
    """Anchor pairs ``(i, j)``, as ``ia[k], jb[k]``, kept in arrays (a long gap has
    hundreds of thousands), a few in lists; ``keep``: the indices of the pairs kept."""

    __slots__ = ("ia", "jb", "keep")

    def __init__(self, ia: array | list[int], jb: array | list[int], keep: list[int]) -> None:
        self.ia, self.jb, self.keep = ia, jb, keep

    def __iter__(self) -> Iterator[tuple[int, int]]:
        ia, jb = self.ia, self.jb
        return ((ia[k], jb[k]) for k in self.keep)

    def __bool__(self) -> bool:
        return bool(self.keep)


def _worth_aligning(ca: dict[str, int], cb: dict[str, int], blank: AbstractSet[str]) -> bool:
    """Whether a gap with no anchor shares enough to be aligned token by token: at least a
    third of the shorter side's non-blank tokens occur on the other side (counted with
    multiplicity; ``ca`` and ``cb`` are the two sides' token counts). Below that the
    alignment would be scattered common words that semantic cleanup folds back into one
    replacement anyway."""
    na = sum(n for t, n in ca.items() if t not in blank)
    nb = sum(n for t, n in cb.items() if t not in blank)
    common = sum(min(n, cb[t]) for t, n in ca.items() if t in cb and t not in blank)
    return 3 * common >= min(na, nb)


class _Aligner:
    """Aligns two token-code strings; collects matching blocks ``(i, j, n)``."""

    def __init__(self, dmp: _CountedDmp) -> None:
        self.dmp = dmp

    def align(
        self, sa: str, sb: str, myers: bool, blank: set[str] | frozenset[str] = frozenset()
    ) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, int]]]:
        """Matching blocks of ``sa`` and ``sb``, and the token regions ``(i0, i1, j0, j1)``
        where the Myers budget ran out (or, with ``myers`` False, where it was not tried:
        gaps with nothing in common to anchor on are left unaligned)."""
        blocks: list[tuple[int, int, int]] = []
        rough: list[tuple[int, int, int, int]] = []
        stack = [(0, len(sa), 0, len(sb))]
        while stack:
            i0, i1, j0, j1 = stack.pop()
            if i0 == i1 or j0 == j1:
                continue
            if sa[i0] == sb[j0]:  # (the test first: most gaps share no first token)
                # one shared token, the usual case, without the galloping search
                if i0 + 1 == i1 or j0 + 1 == j1 or sa[i0 + 1] != sb[j0 + 1]:
                    p = 1
                else:
                    p = _common_prefix(sa, i0, i1, sb, j0, j1)
                blocks.append((i0, j0, p))
                i0 += p
                j0 += p
                if i0 == i1 or j0 == j1:
                    continue
            if sa[i1 - 1] == sb[j1 - 1]:
                if i0 + 1 == i1 or j0 + 1 == j1 or sa[i1 - 2] != sb[j1 - 2]:
                    s = 1
                else:
                    s = _common_suffix(sa, i0, i1, sb, j0, j1)
                blocks.append((i1 - s, j1 - s, s))
                i1 -= s
                j1 -= s
                if i0 == i1 or j0 == j1:
                    continue
            if i0 + 1 == i1 or j0 + 1 == j1:
                one = _one_token(sa, i0, i1, sb, j0, j1, myers)
                if one is not None:
                    if one:
                        blocks.append(one)
                    continue
            A, B = sa[i0:i1], sb[j0:j1]
            ca = _counts(A)
            if ca.keys().isdisjoint(B):
                continue
            cb = _counts(B)
            anchors = _anchors(A, B, ca, cb)
            if anchors:
                _follow_anchors(A, B, anchors, i0, i1, j0, j1, blocks, stack)
                continue
            if not myers:
                rough.append((i0, i1, j0, j1))
                continue
            if not _worth_aligning(ca, cb, blank):
                continue  # too little in common: replaced whole, as the cleanup would
            ops = self.dmp.run(A, B)
            if self.dmp.hit:
                rough.append((i0, i1, j0, j1))
            i, j = i0, j0
            for op, t in ops:
                n = len(t)
                if op == EQUAL:
                    blocks.append((i, j, n))
                    i += n
                    j += n
                elif op == DELETE:
                    i += n
                else:
                    j += n
        blocks.sort()
        return blocks, rough


def _one_token(
    sa: str, i0: int, i1: int, sb: str, j0: int, j1: int, myers: bool
) -> tuple[int, int, int] | tuple[()] | None:
    """A gap of one token on a side, neither end of it equal: the token's first place on
    the other side as a matching block, ``()`` when it is not there, None when the general
    path must decide. The general path concludes the same: an anchor where it occurs once;
    else Myers, whose diff-match-patch finds a short text inside a long one by ``str.find``
    and takes no step. Without Myers a token occurring more than once is left to it (a
    rough region)."""
    if i0 + 1 == i1:
        k = sb.find(sa[i0], j0, j1)
        if k >= 0 and (myers or sb.find(sa[i0], k + 1, j1) < 0):
            return i0, k, 1
    else:
        k = sa.find(sb[j0], i0, i1)
        if k >= 0 and (myers or sa.find(sb[j0], k + 1, i1) < 0):
            return k, j0, 1
    return () if k < 0 else None


def _follow_anchors(
    A: str,
    B: str,
    anchors: _Pairs,
    i0: int,
    i1: int,
    j0: int,
    j1: int,
    blocks: list[tuple[int, int, int]],
    stack: list[tuple[int, int, int, int]],
) -> None:
    """Each anchor of the gap ``A`` = ``sa[i0:i1]``, ``B`` = ``sb[j0:j1]`` extended back
    and forth over the tokens equal around it (measured by slice comparison, not token by
    token) into a matching block; the gaps between blocks go on ``stack``."""
    pi, pj = 0, 0
    la, lb = len(A), len(B)
    ia, jb = anchors.ia, anchors.jb
    for k in anchors.keep:
        i, j = ia[k], jb[k]
        if i < pi or j < pj:
            continue  # inside the previous anchor's extension
        bi, bj = i, j
        if bi > pi and bj > pj and A[bi - 1] == B[bj - 1]:
            if bi - 1 == pi or bj - 1 == pj or A[bi - 2] != B[bj - 2]:
                n = 1  # one shared token, the usual case, without the galloping search
            else:
                n = _common_suffix(A, pi, bi, B, pj, bj)
            bi -= n
            bj -= n
        ei, ej = i + 1, j + 1
        if ei < la and ej < lb and A[ei] == B[ej]:
            if ei + 1 == la or ej + 1 == lb or A[ei + 1] != B[ej + 1]:
                n = 1
            else:
                n = _common_prefix(A, ei, la, B, ej, lb)
            ei += n
            ej += n
        if bi > pi and bj > pj:  # (a gap empty on one side aligns nothing)
            stack.append((i0 + pi, i0 + bi, j0 + pj, j0 + bj))
        blocks.append((i0 + bi, j0 + bj, ei - bi))
        pi, pj = ei, ej
    if pi < la and pj < lb:
        stack.append((i0 + pi, i1, j0 + pj, j1))
