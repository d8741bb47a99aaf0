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

All offsets here are code-point indices. An insertion sits at a v1 boundary ``p`` (between
characters ``p-1`` and ``p``).
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence, Set as AbstractSet
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from diff_match_patch import diff_match_patch

from engine.normalize import find_starts

EQUAL, DELETE, INSERT = 0, -1, 1

SENTENCE_TERMINATORS = ".!?。！？｡．؟۔।॥።፧။‼⁇⁈⁉"
"""Characters that end a sentence chunk: Latin, full-width and CJK (U+3002, U+FF01,
U+FF1F, U+FF61, U+FF0E), Arabic and Urdu (U+061F, U+06D4), Devanagari danda (U+0964-5),
Ethiopic (U+1362, U+1367), Myanmar (U+104B) and the double marks U+203C, U+2047-9."""
_CLOSERS = "\"'”’»)]}」』）］｝〉》】〕"
_T = re.escape(SENTENCE_TERMINATORS)
_C = re.escape(_CLOSERS)
_SNAP = 4096
"""Characters searched back (and forward) for the sentence boundary where the common
prefix (suffix) is cut."""
_CHUNK_RE = re.compile(rf"[^\n{_T}]*(?:[{_T}]+[{_C}]*[ \t\u3000]*\n?|\n)|[^\n{_T}]+")


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


# -- tokens ------------------------------------------------------------------------------

# UAX #29 word boundaries restricted to ASCII: letters, digits and "_" join (WB5, WB8-10,
# WB13a-b), "." ":" and "'" join letters (WB6-7), "." "," ";" and "'" join digits
# (WB11-12), spaces join (WB3d), CR LF is one unit (WB3), everything else stands alone.
# Equal to the regex module's WORD-flag boundaries on ASCII text (tests/engine/
# test_diffing.py checks it), and five times faster; used when a text is all ASCII.
_ASCII_WORD_RE = re.compile(
    r"[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]+)*"
    r"| +|\r\n|[\s\S]"
)
# The same rules over ASCII and the common non-ASCII characters of European text, whose
# word-break classes (Unicode's WordBreakProperty.txt) are simple: letters of Latin-1,
# Latin Extended-A/B, Greek and Cyrillic are ALetter; U+2018, U+2019 (curly apostrophe)
# and U+2024 are MidNumLet, like "." and "'"; U+00B7 and U+2027 are MidLetter, like ":";
# the rest listed (Latin-1 symbols, dashes, curly double quotes, ellipsis, primes,
# currency signs, arrows) are Other and stand alone. A text with any other non-ASCII
# character takes the regex module (tests/engine/test_diffing.py checks the two agree),
# so most texts never load it.
_EU_LETTERS = (
    "\u00aa\u00b5\u00ba\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
    "\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03f5\u03f7-\u03ff"
    "\u0400-\u0481\u048a-\u052f"
)
_EU_OTHER = (
    "\u00a0-\u00a9\u00ab\u00ac\u00ae-\u00b4\u00b6\u00b9\u00bb-\u00bf\u00d7\u00f7"
    "\u2010-\u2017\u201a-\u2023\u2025\u2026\u2030-\u203e\u20a0-\u20c0\u2122\u2190-\u21ff"
)
_L = f"A-Za-z{_EU_LETTERS}"
_EU_WORD_RE = re.compile(
    rf"[{_L}0-9_]+(?:(?:(?<=[{_L}])[:.'\u00b7\u2018\u2019\u2024\u2027](?=[{_L}])"
    rf"|(?<=[0-9])[.,;'\u2018\u2019\u2024](?=[0-9]))[{_L}0-9_]+)*"
    r"| +|\r\n|[\s\S]"
)
_NOT_EU = re.compile(rf"[^\x00-\x7f{_EU_LETTERS}{_EU_OTHER}\u00b7\u2018\u2019\u2024\u2027]")
_uax29 = None


def _uax29_re() -> Any:
    global _uax29
    if _uax29 is None:
        import regex  # lazy: only texts with non-ASCII characters need it

        _uax29 = regex.compile(r"\b", flags=regex.WORD | regex.V1)
    return _uax29


def word_tokens(text: str) -> list[str]:
    """``text`` cut at Unicode default word boundaries (UAX #29); the pieces join to it.

    Each CJK ideograph, kana of hiragana, and letter of Thai, Lao, Khmer and Myanmar is a
    unit of its own (UAX #29 leaves dictionary word breaks to tailorings); a letter keeps its
    combining marks, an emoji its modifiers and ZWJ sequence, a flag its two regional
    indicators; ``can't``, ``3.14`` and ``1,000`` are one unit each. Source: the ``regex``
    module's WORD flag (Unicode default word boundaries), with equal fast paths (stdlib
    ``re``) for ASCII text and for text whose non-ASCII characters are common European
    letters and punctuation (``_EU_WORD_RE``).
    """
    if text.isascii():
        return _ASCII_WORD_RE.findall(text)
    if not _NOT_EU.search(text):
        return _EU_WORD_RE.findall(text)
    return [t for t in _uax29_re().split(text) if t]


def split_sentences(text: str) -> list[str]:
    """``text`` cut into sentence chunks (the diff's coarse unit); the chunks join to it.

    A chunk ends after a run of ``SENTENCE_TERMINATORS`` (with closing quotes or brackets
    and the spaces after it, and one newline), or at a newline.
    """
    return _CHUNK_RE.findall(text)


class _TokenCodec:
    """Tokens as single characters, so token sequences compare as strings (the idea of
    diff-match-patch's ``diff_linesToChars``, for any tokeniser). Codes skip the surrogate
    block, whose code points are not valid characters."""

    def __init__(self) -> None:
        self.table: dict[str, str] = {}
        self.tokens: list[str] = []
        self.blank: set[str] = set()  # codes of whitespace-only tokens

    def encode(self, tokens: list[str]) -> str:
        table = self.table
        try:  # most tokens of a long text were seen before
            return "".join(map(table.__getitem__, tokens))
        except KeyError:
            pass
        for t in tokens:  # new tokens get codes in order of appearance
            if t not in table:
                n = len(self.tokens)
                table[t] = c = chr(n if n < 0xD800 else n + 0x800)
                self.tokens.append(t)
                if t.isspace():
                    self.blank.add(c)
        return "".join(map(table.__getitem__, tokens))


# -- Myers under a step budget -----------------------------------------------------------


class _Budget:
    def __init__(self, total: int, per_call: int) -> None:
        self.left = total
        self.per_call = per_call


class _CountedDmp(diff_match_patch):
    """diff-match-patch with its clock replaced by a step count.

    ``Diff_Timeout = 0`` turns off diff-match-patch's deadline and its half-match shortcut
    (which only runs under a timeout); ``diff_bisect`` is diff-match-patch's own middle-snake
    search (Apache-2.0, Google) with the deadline check replaced by a count of diagonals
    extended. When the count runs out, the piece is returned deleted and inserted whole
    and ``hit`` is set.
    """

    def __init__(self, budget: _Budget) -> None:
        super().__init__()
        self.Diff_Timeout = 0
        self.budget = budget
        self.call_left = 0
        self.hit = False

    def run(self, a: str, b: str) -> list[tuple[int, str]]:
        self.call_left = min(self.budget.per_call, self.budget.left)
        self.hit = False
        out = self.diff_main(a, b, False)
        self.budget.left -= min(self.budget.per_call, self.budget.left) - self.call_left
        return out

    def diff_bisect(self, text1: str, text2: str, deadline: float) -> list[tuple[int, str]]:
        n1, n2 = len(text1), len(text2)
        max_d = (n1 + n2 + 1) // 2
        v_offset = max_d
        v_length = 2 * max_d
        v1 = [-1] * v_length
        v1[v_offset + 1] = 0
        v2 = v1[:]
        delta = n1 - n2
        front = delta % 2 != 0
        k1start = k1end = k2start = k2end = 0
        for d in range(max_d):
            self.call_left -= 2 * d + 1
            if self.call_left < 0:
                self.hit = True
                break
            for k1 in range(-d + k1start, d + 1 - k1end, 2):
                k1_offset = v_offset + k1
                if k1 == -d or (k1 != d and v1[k1_offset - 1] < v1[k1_offset + 1]):
                    x1 = v1[k1_offset + 1]
                else:
                    x1 = v1[k1_offset - 1] + 1
                y1 = x1 - k1
                while x1 < n1 and y1 < n2 and text1[x1] == text2[y1]:
                    x1 += 1
                    y1 += 1
                v1[k1_offset] = x1
                if x1 > n1:
                    k1end += 2
                elif y1 > n2:
                    k1start += 2
                elif front:
                    k2_offset = v_offset + delta - k1
                    if 0 <= k2_offset < v_length and v2[k2_offset] != -1:
                        x2 = n1 - v2[k2_offset]
                        if x1 >= x2:
                            return self.diff_bisectSplit(text1, text2, x1, y1, deadline)
            for k2 in range(-d + k2start, d + 1 - k2end, 2):
                k2_offset = v_offset + k2
                if k2 == -d or (k2 != d and v2[k2_offset - 1] < v2[k2_offset + 1]):
                    x2 = v2[k2_offset + 1]
                else:
                    x2 = v2[k2_offset - 1] + 1
                y2 = x2 - k2
                while x2 < n1 and y2 < n2 and text1[-x2 - 1] == text2[-y2 - 1]:
                    x2 += 1
                    y2 += 1
                v2[k2_offset] = x2
                if x2 > n1:
                    k2end += 2
                elif y2 > n2:
                    k2start += 2
                elif not front:
                    k1_offset = v_offset + delta - k2
                    if 0 <= k1_offset < v_length and v1[k1_offset] != -1:
                        x1 = v1[k1_offset]
                        y1 = v_offset + x1 - k1_offset
                        x2 = n1 - x2
                        if x1 >= x2:
                            return self.diff_bisectSplit(text1, text2, x1, y1, deadline)
        return [(DELETE, text1), (INSERT, text2)]


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


def _lis(seq: Sequence[int]) -> list[int]:
    """Indices of a longest strictly increasing subsequence of ``seq``: patience sorting,
    O(n log n)."""
    n = len(seq)
    if list(seq) == sorted(seq):  # already increasing (the values are distinct)
        return list(range(n))
    tails: list[int] = []  # last value of the best run of each length
    tail_idx: list[int] = []
    prev = array("q", bytes(8 * len(seq)))
    for k, i in enumerate(seq):
        p = bisect.bisect_left(tails, i)
        if p == len(tails):
            tails.append(i)
            tail_idx.append(k)
        else:
            tails[p] = i
            tail_idx[p] = k
        prev[k] = tail_idx[p - 1] if p else -1
    out = []
    k = tail_idx[-1] if tail_idx else -1
    while k >= 0:
        out.append(k)
        k = prev[k]
    out.reverse()
    return out


try:  # the C loop behind Counter(iterable), without Counter's Python-level checks
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons

    def _count_elements(mapping: dict, iterable: Iterator | str) -> None:
        for t in iterable:
            mapping[t] = mapping.get(t, 0) + 1


def _counts(s: str) -> dict[str, int]:
    """How often each token (code character) occurs in ``s``."""
    out: dict[str, int] = {}
    _count_elements(out, s)
    return out


_FIND_MAX = 64
"""Unique tokens located one C-level search each when there are at most this many (else
one pass over the gap: many searches over a long gap would be quadratic)."""


def _anchors(
    A: str, B: str, ca: dict[str, int] | None = None, cb: dict[str, int] | None = None
) -> _Pairs | list:
    """Anchor pairs ``(i, j)`` with ``A[i] == B[j]``, increasing in both: tokens unique on
    both sides, else tokens occurring equally often on both sides (k-th with k-th); kept
    in order by a longest increasing subsequence. ``ca`` and ``cb``: the token counts of
    ``A`` and ``B`` (``_counts``), when the caller has them."""
    if ca is None:
        ca = _counts(A)
    if cb is None:
        cb = _counts(B)
    # Tokens occurring equally often on both sides (a C-level intersection of the two
    # count tables), and among them the unique ones.
    same = ca.items() & cb.items()
    del ca, cb
    keep = {t for t, n in same if n == 1}
    ia, jb = array("q"), array("q")  # pairs, ordered by their v2 index
    if keep and len(keep) <= _FIND_MAX:
        for j, i in sorted([(B.find(t), A.find(t)) for t in keep]):
            ia.append(i)
            jb.append(j)
    elif keep:
        pos = {t: i for i, t in enumerate(A) if t in keep}
        for j, t in enumerate(B):
            if t in keep:
                ia.append(pos[t])
                jb.append(j)
        del pos
    else:
        keep = {t for t, _ in same}
        if not keep:
            return []
        occ: dict[str, list[int]] = {}
        for i, t in enumerate(A):
            if t in keep:
                occ.setdefault(t, []).append(i)
        seen: Counter[str] = Counter()
        for j, t in enumerate(B):
            if t in keep:
                ia.append(occ[t][seen[t]])
                jb.append(j)
                seen[t] += 1
    return _Pairs(ia, jb, _lis(ia))


class _Pairs:
    """Anchor pairs ``(i, j)`` kept in arrays (a long gap has hundreds of thousands)."""

    __slots__ = ("ia", "jb", "keep")

    def __init__(self, ia: array, jb: array, keep: list[int]) -> None:
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
                p = _common_prefix(sa, i0, i1, sb, j0, j1)
                blocks.append((i0, j0, p))
                i0 += p
                j0 += p
                if i0 == i1 or j0 == j1:
                    continue
            if sa[i1 - 1] == sb[j1 - 1]:
                s = _common_suffix(sa, i0, i1, sb, j0, j1)
                blocks.append((i1 - s, j1 - s, s))
                i1 -= s
                j1 -= s
                if i0 == i1 or j0 == j1:
                    continue
            A, B = sa[i0:i1], sb[j0:j1]
            ca = _counts(A)
            if ca.keys().isdisjoint(B):
                continue
            cb = _counts(B)
            anchors = _anchors(A, B, ca, cb)
            if anchors:
                pi, pj = 0, 0
                la, lb = len(A), len(B)
                for i, j in anchors:
                    if i < pi or j < pj:
                        continue  # inside the previous anchor's extension
                    bi, bj = i, j
                    while bi > pi and bj > pj and A[bi - 1] == B[bj - 1]:
                        bi -= 1
                        bj -= 1
                    ei, ej = i + 1, j + 1
                    while ei < la and ej < lb and A[ei] == B[ej]:
                        ei += 1
                        ej += 1
                    if bi > pi or bj > pj:
                        stack.append((i0 + pi, i0 + bi, j0 + pj, j0 + bj))
                    blocks.append((i0 + bi, j0 + bj, ei - bi))
                    pi, pj = ei, ej
                if pi < la or pj < lb:
                    stack.append((i0 + pi, i1, j0 + pj, j1))
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


# -- the diff ----------------------------------------------------------------------------


class _Differ:
    def __init__(self, a: str, b: str, limits: DiffLimits) -> None:
        self.a, self.b, self.limits = a, b, limits
        total = limits.total_steps_base + limits.total_steps_per_char * (len(a) + len(b))
        self.dmp = _CountedDmp(_Budget(total, limits.myers_steps))
        self.aligner = _Aligner(self.dmp)
        self.words = _TokenCodec()
        self.ops: list[tuple[int, int]] = []  # (op, length)
        self.moves: list[Region] = []
        self.moved_tokens_a: list[tuple[int, int]] = []  # whole moved sentence chunks
        self.moved_tokens_b: list[tuple[int, int]] = []
        self.approximate: list[Region] = []

    def emit(self, op: int, n: int) -> None:
        if n:
            self.ops.append((op, n))

    def run(self) -> None:
        a, b = self.a, self.b
        if a == b:
            self.emit(EQUAL, len(a))
            return
        p = _common_prefix(a, 0, len(a), b, 0, len(b))
        s = _common_suffix(a, p, len(a), b, p, len(b))
        # Cut only at sentence boundaries, so the first and last changed sentences keep
        # their whole text (a sentence that moved there is still recognised as itself).
        w = max(0, p - _SNAP)
        head = split_sentences(a[w:p])
        p = w + sum(map(len, head[:-1])) if (len(head) > 1 or w == 0) else w
        tail = split_sentences(a[len(a) - s : len(a) - s + _SNAP])
        if len(tail) > 1:
            s -= len(tail[0])
        elif s <= _SNAP:
            s = 0
        else:
            s -= _SNAP
        self.emit(EQUAL, p)
        self._middle(p, len(a) - s, p, len(b) - s)
        self.emit(EQUAL, s)

    def _middle(self, x0: int, x1: int, y0: int, y1: int) -> None:
        a, b = self.a, self.b
        if x0 == x1 or y0 == y1:
            self.emit(DELETE, x1 - x0)
            self.emit(INSERT, y1 - y0)
            return
        # Sentence chunks as codes and start offsets (global, one extra at the end). The
        # texts are neither sliced nor kept in pieces: a chunk is cut out when needed.
        table: dict[str, str] = {}
        sa, sta = _encode_chunks(a, x0, x1, table)
        sb, stb = _encode_chunks(b, y0, y1, table)
        del table
        ta, tb = _Chunks(a, sta), _Chunks(b, stb)
        blocks, _ = self.aligner.align(sa, sb, myers=False)
        # Hunks: the gaps between matching blocks, in token indices.
        hunks: list[tuple[int, int, int, int]] = []
        equal_after: list[int] = []  # chars of the block after each hunk
        lead = 0
        pi = pj = 0
        for i, j, n in blocks + [(len(sa), len(sb), 0)]:
            if i > pi or j > pj:
                hunks.append((pi, i, pj, j))
                equal_after.append(sta[i + n] - sta[i])
            elif not hunks:
                lead += sta[i + n] - sta[i]
            else:
                equal_after[-1] += sta[i + n] - sta[i]
            pi, pj = i + n, j + n
        moved_a, moved_b = self._find_moves(hunks, ta, tb, sta, stb)
        del sa, sb
        self.emit(EQUAL, lead)
        for h, (i0, i1, j0, j1) in enumerate(hunks):
            self._hunk(i0, i1, j0, j1, ta, tb, sta, stb, moved_a, moved_b)
            self.emit(EQUAL, equal_after[h])

    def _find_moves(
        self, hunks: list[_Hunk], ta: _Chunks, tb: _Chunks, sta: array, stb: array
    ) -> tuple[set[int], set[int]]:
        """Sentences deleted in one hunk and inserted, the same, in another hunk: moved.

        A sentence deleted and inserted within one hunk (only its spaces or its line break
        changed) is left to the word pass, which aligns it. The k-th remaining deletion of
        a sentence is paired with its k-th remaining insertion.
        """
        minc = self.limits.move_min_chars
        moved_a: set[int] = set()
        moved_b: set[int] = set()
        deleted: dict[str, list[int]] = {}
        inserted: list[tuple[str, int]] = []
        for i0, i1, j0, j1 in hunks:
            here: dict[str, list[int]] = {}
            for i in range(i0, i1):
                key = ta[i].strip()
                if len(key) >= minc:
                    here.setdefault(key, []).append(i)
            for j in range(j0, j1):
                key = tb[j].strip()
                if len(key) < minc:
                    continue
                q = here.get(key)
                if q:
                    q.pop(0)  # the same sentence on both sides of one hunk: not a move
                else:
                    inserted.append((key, j))
            for key, q in here.items():
                deleted.setdefault(key, []).extend(q)
        if not deleted or not inserted:
            return moved_a, moved_b
        pairs = []
        for key, j in inserted:
            q = deleted.get(key)
            if q:
                i = q.pop(0)
                moved_a.add(i)
                moved_b.add(j)
                pairs.append((i, j))
        pairs.sort()
        for i, j in pairs:
            ka, kb = ta[i], tb[j]
            a0 = sta[i] + len(ka) - len(ka.lstrip())
            a1 = a0 + len(ka.strip())
            b0 = stb[j] + len(kb) - len(kb.lstrip())
            b1 = b0 + (a1 - a0)
            self.moved_tokens_a.append((sta[i], sta[i + 1]))
            last = self.moves[-1] if self.moves else None
            if (
                last is not None
                and last.a1 <= a0
                and last.b1 <= b0
                and not self.a[last.a1 : a0].strip()
                and self.a[last.a1 : a0] == self.b[last.b1 : b0]
            ):
                self.moves[-1] = Region(last.a0, a1, last.b0, b1)
            else:
                self.moves.append(Region(a0, a1, b0, b1))
        self.moved_tokens_b.extend(sorted((stb[j], stb[j + 1]) for j in moved_b))
        return moved_a, moved_b

    def _hunk(
        self,
        i0: int,
        i1: int,
        j0: int,
        j1: int,
        ta: _Chunks,
        tb: _Chunks,
        sta: array,
        stb: array,
        moved_a: set[int],
        moved_b: set[int],
    ) -> None:
        a, b = self.a, self.b
        cuts_a = [i for i in range(i0, i1) if i in moved_a] if moved_a else []
        cuts_b = [j for j in range(j0, j1) if j in moved_b] if moved_b else []
        if not cuts_a and not cuts_b:
            for gi0, gi1, gj0, gj1 in self._sentence_groups(ta, i0, i1, tb, j0, j1):
                x0, x1, y0, y1 = sta[gi0], sta[gi1], stb[gj0], stb[gj1]
                wa = self._group_words(ta, gi0, gi1)
                wb = self._group_words(tb, gj0, gj1) if wa else None
                self._words(a[x0:x1], b[y0:y1], x0, y0, wa and wb and (*wa, *wb))
            ta.words.clear()
            tb.words.clear()
            return
        # Diff the hunk without its moved sentences, then put them back in place as a
        # deletion (v1 side) and an insertion (v2 side).
        dn, ca = _without(ta, i0, i1, cuts_a)
        dm, cb = _without(tb, j0, j1, cuts_b)
        start, rough = len(self.ops), len(self.approximate)
        self._words(dn, dm, sta[i0], stb[j0])
        if len(self.approximate) > rough:  # offsets there skip the moved sentences
            del self.approximate[rough:]
            self.approximate.append(Region(sta[i0], sta[i1], stb[j0], stb[j1]))
        sub = self.ops[start:]
        del self.ops[start:]
        ka = kb = 0  # next cut on each side
        da = db = 0  # position in dn and dm
        sub.append((EQUAL, 0))
        for op, n in sub:
            while True:
                while ka < len(ca) and ca[ka][0] == da:
                    self.emit(DELETE, ca[ka][1])
                    ka += 1
                while kb < len(cb) and cb[kb][0] == db:
                    self.emit(INSERT, cb[kb][1])
                    kb += 1
                if n == 0:
                    break
                room = n
                if op != INSERT and ka < len(ca):
                    room = min(room, ca[ka][0] - da)
                if op != DELETE and kb < len(cb):
                    room = min(room, cb[kb][0] - db)
                self.emit(op, room)
                if op != INSERT:
                    da += room
                if op != DELETE:
                    db += room
                n -= room

    def _sentence_groups(
        self, ta: _Chunks, i0: int, i1: int, tb: _Chunks, j0: int, j1: int
    ) -> list[_Hunk]:
        """Split a hunk (v1 sentences ``[i0, i1)``, v2 sentences ``[j0, j1)``) into groups
        ``(i0, i1, j0, j1)`` of sentences that correspond, so that each is word-diffed on
        its own and no change spreads into a neighbouring sentence.

        Correspondence comes from the words both sides share: word tokens unique in the
        hunk on both sides (else occurring equally often), kept in order by a longest
        increasing subsequence, link a v1 sentence to a v2 sentence; the hunk is cut
        wherever no link crosses. A sentence rewritten in place stays with its rewrite, one
        split in two with both halves. Each group is cut again on the words unique within
        it, until none can be; what is left is split by ``_warp_groups``.
        """
        out = []
        todo = [(i0, i1, j0, j1)]
        while todo:
            g = todo.pop()
            parts = self._cut_group(ta, tb, *g)
            if len(parts) == 1:
                out.extend(_warp_groups(ta, tb, *g))
            else:
                todo.extend(reversed(parts))  # a part's own unique words may cut it again
        return out

    def _cut_group(
        self, ta: _Chunks, tb: _Chunks, i0: int, i1: int, j0: int, j1: int
    ) -> list[_Hunk]:
        if i1 - i0 <= 1 or j1 - j0 <= 1:
            return [(i0, i1, j0, j1)]
        codes_a, sent_a = self._sentence_codes(ta, i0, i1)
        codes_b, sent_b = self._sentence_codes(tb, j0, j1)
        groups = []
        gi, gj = i0, j0
        pi, pj = i0, j0
        for x, y in _anchors(codes_a, codes_b):
            qi, qj = sent_a[x], sent_b[y]
            if qi > pi and qj > pj and qi > gi and qj > gj:
                groups.append((gi, qi, gj, qj))
                gi, gj = qi, qj
            pi, pj = max(pi, qi), max(pj, qj)
        groups.append((gi, i1, gj, j1))
        return groups

    def _sentence_codes(self, tokens: _Chunks, i0: int, i1: int) -> tuple[str, list[int]]:
        codes, sent = [], []
        cache = tokens.words
        for i in range(i0, i1):
            hit = cache.get(i)
            if hit is None:
                words = word_tokens(tokens[i])
                hit = cache[i] = (words, self.words.encode(words))
            codes.append(hit[1])
            sent.extend([i] * len(hit[1]))
        return "".join(codes), sent

    def _group_words(self, tokens: _Chunks, i0: int, i1: int) -> tuple[list[str], str] | None:
        """Word tokens and codes of sentences ``[i0, i1)``, if all were tokenised already."""
        cache = tokens.words
        if i1 - i0 == 1:
            return cache.get(i0)  # read only: the caller does not change the list
        hits = [cache.get(i) for i in range(i0, i1)]
        if not hits or None in hits:
            return None
        found = [h for h in hits if h is not None]
        return [w for h in found for w in h[0]], "".join(h[1] for h in found)

    def _words(
        self,
        x: str,
        y: str,
        ax: int,
        by: int,
        tokens: tuple[list[str], str, list[str], str] | None = None,
    ) -> None:
        """Word-level diff of one hunk (v1 text ``x`` at ``ax``, v2 text ``y`` at ``by``);
        ``tokens``: ``(tx, sx, ty, sy)``, their word tokens and codes, when known."""
        if not x or not y:
            self.emit(DELETE, len(x))
            self.emit(INSERT, len(y))
            return
        if tokens:
            tx, sx, ty, sy = tokens
        else:
            tx, ty = word_tokens(x), word_tokens(y)
            sx, sy = self.words.encode(tx), self.words.encode(ty)
        blocks, rough = self.aligner.align(sx, sy, myers=True, blank=self.words.blank)
        if rough:
            px, py = _starts(tx, 0), _starts(ty, 0)
            for i0, i1, j0, j1 in rough:
                self.approximate.append(Region(ax + px[i0], ax + px[i1], by + py[j0], by + py[j1]))
        coarse: list[tuple[int, str]] = []
        xi = yi = 0  # char positions
        ti = tj = 0  # token positions
        for i, j, n in blocks + [(len(tx), len(ty), 0)]:
            if i > ti:
                d = "".join(tx[ti:i])
                coarse.append((DELETE, d))
                xi += len(d)
            if j > tj:
                t = "".join(ty[tj:j])
                coarse.append((INSERT, t))
                yi += len(t)
            if n:
                t = "".join(tx[i : i + n])
                coarse.append((EQUAL, t))
                xi += len(t)
                yi += len(t)
            ti, tj = i + n, j + n
        self._refine(_semantic_merge(coarse), ax, by)

    def _refine(self, seg: list[tuple[int, str]], ax: int, by: int) -> None:
        """Emit ``seg``, short replacements diffed by character."""
        lim = self.limits.refine_chars
        k = 0
        while k < len(seg):
            op, t = seg[k]
            if (
                op == DELETE
                and k + 1 < len(seg)
                and seg[k + 1][0] == INSERT
                and len(t) <= lim
                and len(seg[k + 1][1]) <= lim
            ):
                u = seg[k + 1][1]
                p = _common_prefix(t, 0, len(t), u, 0, len(u))
                q = _common_suffix(t, p, len(t), u, p, len(u))
                mt, mu = t[p : len(t) - q], u[p : len(u) - q]
                if not (p or q) or _SPACE.search(t) or _SPACE.search(u):
                    # Unrelated words (nothing shared at their start or end: "foo" -> "bar")
                    # or a phrase replaced: whole, not letter by letter (what Myers and the
                    # semantic cleanup conclude for such pairs, without running them).
                    self.emit(DELETE, len(t))
                    self.emit(INSERT, len(u))
                elif not mt or not mu or set(mt).isdisjoint(mu):
                    self.emit(EQUAL, p)  # "colour" -> "color": one letter deleted
                    self.emit(DELETE, len(mt))
                    self.emit(INSERT, len(mu))
                    self.emit(EQUAL, q)
                else:
                    self.emit(EQUAL, p)
                    fine = self.dmp.run(mt, mu)
                    if self.dmp.hit:
                        self.approximate.append(Region(ax, ax + len(t), by, by + len(u)))
                    self.dmp.diff_cleanupSemantic(fine)
                    for fop, ft in fine:
                        self.emit(fop, len(ft))
                    self.emit(EQUAL, q)
                ax += len(t)
                by += len(u)
                k += 2
                continue
            self.emit(op, len(t))
            if op != INSERT:
                ax += len(t)
            if op != DELETE:
                by += len(t)
            k += 1


SENTENCE_MATCH = 0.25
"""Dice similarity of two sentences' word sets above which pairing them gains."""
WARP_CELLS = 400
"""The largest group (v1 sentences x v2 sentences) split by ``_warp_groups``."""
_WORDISH = re.compile(r"\w+")


def _warp_groups(
    ta: _Chunks, tb: _Chunks, i0: int, i1: int, j0: int, j1: int
) -> list[tuple[int, int, int, int]]:
    """Split a group of sentences that no shared unique word could cut.

    A monotone warping path (dynamic time warping) through the sentence grid maximising
    the sum of ``dice - SENTENCE_MATCH`` over its cells, ``dice`` being the Dice
    coefficient of two sentences' word sets; a diagonal step of the path is a cut. Only
    for groups of at most ``WARP_CELLS`` cells; larger ones stay whole.
    """
    n, m = i1 - i0, j1 - j0
    if n <= 1 or m <= 1 or n * m > WARP_CELLS:
        return [(i0, i1, j0, j1)]
    wa = [set(_WORDISH.findall(ta[i])) for i in range(i0, i1)]
    wb = [set(_WORDISH.findall(tb[j])) for j in range(j0, j1)]
    neg = float("-inf")
    best = [[neg] * m for _ in range(n)]
    back = [[0] * m for _ in range(n)]  # 0 diagonal, 1 from above, 2 from the left
    for i in range(n):
        x = wa[i]
        row = best[i]
        prev = best[i - 1] if i else row
        brow = back[i]
        for j in range(m):
            y = wb[j]
            tot = len(x) + len(y)
            score = (2 * len(x & y) / tot if tot else 1.0) - SENTENCE_MATCH
            if i == 0 and j == 0:
                row[j] = score
                continue
            d = prev[j - 1] if i and j else neg
            u = prev[j] if i else neg
            left = row[j - 1] if j else neg
            if d >= u and d >= left:
                row[j], brow[j] = score + d, 0
            elif u >= left:
                row[j], brow[j] = score + u, 1
            else:
                row[j], brow[j] = score + left, 2
    groups = []
    i, j = n - 1, m - 1
    gi1, gj1 = n, m
    while i > 0 or j > 0:
        step = back[i][j]
        if step == 0:
            groups.append((i0 + i, i0 + gi1, j0 + j, j0 + gj1))
            gi1, gj1 = i, j
            i, j = i - 1, j - 1
        elif step == 1:
            i -= 1
        else:
            j -= 1
    groups.append((i0, i0 + gi1, j0, j0 + gj1))
    groups.reverse()
    return groups


def _encode_chunks(text: str, x0: int, x1: int, table: dict[str, str]) -> tuple[str, array]:
    """Sentence chunks of ``text[x0:x1]`` as one code character each (equal chunks, equal
    codes; ``table`` shared by both texts) and their start offsets, one extra at the end."""
    chunks = _CHUNK_RE.findall(text, x0, x1)  # contiguous: they join to text[x0:x1]
    for t in chunks:  # new chunks get codes in order of appearance
        if t not in table:
            n = len(table)
            table[t] = chr(n if n < 0xD800 else n + 0x800)
    starts = array("q", accumulate(map(len, chunks), initial=x0))
    return "".join(map(table.__getitem__, chunks)), starts


class _Chunks:
    """The sentence chunks of a text by index, cut out on demand; ``words`` caches the
    word tokens and codes of chunks already tokenised (cleared after each hunk)."""

    __slots__ = ("starts", "text", "words")

    def __init__(self, text: str, starts: array) -> None:
        self.text, self.starts = text, starts
        self.words: dict[int, tuple[list[str], str]] = {}

    def __getitem__(self, i: int) -> str:
        return self.text[self.starts[i] : self.starts[i + 1]]

    def __len__(self) -> int:
        return len(self.starts) - 1


def _starts(tokens: list[str], base: int) -> list[int]:
    out = [base]
    pos = base
    for t in tokens:
        pos += len(t)
        out.append(pos)
    return out


def _without(
    tokens: _Chunks, i0: int, i1: int, cuts: list[int]
) -> tuple[str, list[tuple[int, int]]]:
    """Tokens ``[i0, i1)`` joined without the ``cuts``; and each cut as (position in the
    joined text, length)."""
    parts: list[str] = []
    where: list[tuple[int, int]] = []
    pos = 0
    cut = set(cuts)
    for i in range(i0, i1):
        t = tokens[i]
        if i in cut:
            where.append((pos, len(t)))
        else:
            parts.append(t)
            pos += len(t)
    return "".join(parts), where


_KEEP_EQUAL = re.compile(rf"\n|[{_T}][{_C}]*\s|\w{{4}}")


def _ends_sentence(parts: list[str]) -> bool:
    last = next((t for t in reversed(parts) if t), "")
    return bool(last) and last[-1] in _ENDS


_ENDS = set(SENTENCE_TERMINATORS + _CLOSERS)


_SPACE = re.compile(r"\s")


def _semantic_merge(ops: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Fold small equalities between changes into the changes around them.

    The rule of diff-match-patch's ``diff_cleanupSemantic``: an equality is removed when it
    is no longer than the larger side (deleted or inserted characters) of the changes
    before it and no longer than that of the changes after it, the changes before being
    everything since the last equality kept. Done in one pass with a stack, so linear in
    the number of ops (the library's list edits make it quadratic on long hunks).
    Within a change group the deleted text comes first. One departure: an equality both
    versions keep that holds a line break, a sentence end, or a word of four or more
    letters is never folded (``_KEEP_EQUAL``), nor a space after deleted text that ended a
    v1 sentence: a change does not spread past a sentence boundary or a kept word into its
    neighbour, so a quote's image stays in its own sentence.
    """
    # Stack of alternating change groups and equalities: [group, eq, group, eq, group...];
    # a group is [deleted parts, inserted parts, deleted length, inserted length].
    stack: list = [[[], [], 0, 0]]
    pending_eq: str | None = None
    group = stack[0]

    def close(eq: str, grp: list) -> None:
        # ``eq`` stands between stack[-1] (a group) and ``grp``; fold while allowed.
        while True:
            before = stack[-1]
            if (
                (before[2] or before[3])
                and (grp[2] or grp[3])
                and not _KEEP_EQUAL.search(eq)
                and not (eq[:1].isspace() and _ends_sentence(before[0]))
                and len(eq) <= max(before[2], before[3])
                and len(eq) <= max(grp[2], grp[3])
            ):
                before[0].append(eq)
                before[0].extend(grp[0])
                before[1].append(eq)
                before[1].extend(grp[1])
                before[2] += len(eq) + grp[2]
                before[3] += len(eq) + grp[3]
                if len(stack) >= 3:  # re-check the equality before the grown group
                    grp = stack.pop()
                    eq = stack.pop()
                    continue
                return
            stack.append(eq)
            stack.append(grp)
            return

    for op, t in ops:
        if op == EQUAL:
            if pending_eq is not None and not (group[2] or group[3]):
                pending_eq += t  # two equalities in a row are one
                continue
            if pending_eq is not None:
                close(pending_eq, group)
            pending_eq = t
            group = [[], [], 0, 0]
        elif op == DELETE:
            group[0].append(t)
            group[2] += len(t)
        else:
            group[1].append(t)
            group[3] += len(t)
    if pending_eq is not None:
        close(pending_eq, group)
    out: list[tuple[int, str]] = []
    for k, item in enumerate(stack):
        if k % 2:
            if item:
                out.append((EQUAL, item))
        else:
            if item[2]:
                out.append((DELETE, "".join(item[0])))
            if item[3]:
                out.append((INSERT, "".join(item[1])))
    return out


def _merge(ops: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join neighbours of the same op; within each changed run, deletions come first."""
    out: list[tuple[int, int]] = []
    dels = ins = 0
    for op, n in ops + [(EQUAL, 0)]:
        if op == DELETE:
            dels += n
        elif op == INSERT:
            ins += n
        else:
            if dels:
                out.append((DELETE, dels))
            if ins:
                out.append((INSERT, ins))
            dels = ins = 0
            if n:
                if out and out[-1][0] == EQUAL:
                    out[-1] = (EQUAL, out[-1][1] + n)
                else:
                    out.append((EQUAL, n))
    return out


@dataclass
class DiffResult:
    """What ``diff_ops`` found.

    ``ops``: ``(op, length)`` pairs in order, op EQUAL, DELETE or INSERT, lengths in code
    points. ``moves``: moved passages, sorted by v1 start, each with ``a[a0:a1] ==
    b[b0:b1]`` (their text is also inside DELETE and INSERT ops). ``moved_a`` / ``moved_b``:
    the whole moved sentence chunks (with their spaces), sorted: what churn leaves out.
    ``approximate``: regions where a bound of the limits was hit.
    """

    ops: list[tuple[int, int]]
    moves: list[Region]
    moved_a: list[tuple[int, int]]
    moved_b: list[tuple[int, int]]
    approximate: list[Region]


def diff_ops(a: str, b: str, limits: DiffLimits = DEFAULT_LIMITS) -> DiffResult:
    """Diff ``a`` against ``b`` (see the module docstring). Deterministic: the same texts
    and limits give the same result on any machine, at any load."""
    d = _Differ(a, b, limits)
    d.run()
    return DiffResult(
        _merge(d.ops), d.moves, sorted(d.moved_tokens_a), d.moved_tokens_b, d.approximate
    )


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


@dataclass(slots=True)
class Change:
    """One changed region: v1 ``[a0, a1)`` became v2 ``[b0, b1)``. Read-only by
    convention (not frozen: a frozen dataclass is five times slower to build, and a diff
    makes one per changed region).

    A pure insertion has ``a0 == a1``; a pure deletion ``b0 == b1``.
    """

    a0: int
    a1: int
    b0: int
    b1: int
    deleted: str
    inserted: str

    @property
    def size(self) -> int:
        """Characters changed: deleted plus inserted."""
        return len(self.deleted) + len(self.inserted)


class TextDiff:
    """The diff of ``a`` (v1) and ``b`` (v2) with position mapping, moves and churn.

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
    ):
        self.a = a
        self.b = b
        if diffs is None:
            res = diff_ops(a, b, limits)
        else:
            res = DiffResult([(op, len(t)) for op, t in diffs], [], [], [], [])
        self._diffs: list[tuple[int, str]] | None = diffs
        self.moves: list[Region] = res.moves
        self.approximate: list[Region] = res.approximate
        self._moved_a = res.moved_a
        self._moved_b = res.moved_b
        self._moves_a0 = [m.a0 for m in self.moves]
        self._moves_by_b = sorted(self.moves, key=lambda m: m.b0)
        self._moves_b0 = [m.b0 for m in self._moves_by_b]
        ops = res.ops
        del res
        tags = array("b", [op for op, _ in ops])
        a1s = array("q", accumulate([0 if op == INSERT else n for op, n in ops]))
        b1s = array("q", accumulate([0 if op == DELETE else n for op, n in ops]))
        a0s, b0s = array("q", [0]), array("q", [0])
        a0s.extend(a1s[:-1])
        b0s.extend(b1s[:-1])
        del a0s[len(tags) :], b0s[len(tags) :]  # no ops: no starts
        self._tag, self._a0, self._a1, self._b0, self._b1 = tags, a0s, a1s, b0s, b1s
        # Indices of the changed (delete, insert) ops, ascending.
        self._changed = array("q", [k for k, t in enumerate(tags) if t != EQUAL])
        self._equal_total = sum(n for op, n in ops if op == EQUAL)
        del ops
        # Non-empty v1 ops (equal, delete) by start, for "which op holds character i".
        self._ka = array("q", [k for k, t in enumerate(tags) if t != INSERT])
        self._ka0 = array("q", [a0s[k] for k in self._ka])
        # Same for v2 (equal, insert).
        self._kb = array("q", [k for k, t in enumerate(tags) if t != DELETE])
        self._kb0 = array("q", [b0s[k] for k in self._kb])
        self._ins_joined: str | None = None
        self._ins_starts: list[int] = []
        self._ins_runs: list[tuple[int, int]] = []

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
    def _op_holding(
        i: int, ks: Sequence[int], starts: Sequence[int], ends: Sequence[int]
    ) -> int | None:
        """Index of the op among ``ks`` (their starts ascending in ``starts``) whose
        ``[start, end)`` holds character ``i``."""
        j = bisect.bisect_right(starts, i) - 1
        if j < 0:
            return None
        k = ks[j]
        return k if i < ends[k] else None

    def _op_at_a(self, i: int) -> int | None:
        """Index of the equal/delete op holding v1 character ``i``."""
        return self._op_holding(i, self._ka, self._ka0, self._a1)

    def _op_at_b(self, i: int) -> int | None:
        """Index of the equal/insert op holding v2 character ``i``."""
        return self._op_holding(i, self._kb, self._kb0, self._b1)

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

    def v2_origin(self, b0: int, b1: int) -> tuple[int, set[tuple[int, int]]]:
        """Where v2 ``[b0, b1)`` came from: (characters inserted, v1 runs it was equal to).

        The v1 runs are ``(start, end)`` of the equal text the region's kept characters
        came from, so a caller can tell new text from text that was already in v1.
        """
        inserted = 0
        runs: set[tuple[int, int]] = set()
        i = b0
        while i < b1:
            k = self._op_at_b(i)
            if k is None:
                break
            end = min(self._b1[k], b1)
            if self._tag[k] == INSERT:
                inserted += end - i
            else:
                off = self._a0[k] - self._b0[k]
                runs.add((i + off, end + off))
            i = end
        return inserted, runs

    def find_inserted(self, needle: str, limit: int = 2000) -> list[tuple[int, int]]:
        """v2 spans where ``needle`` occurs wholly inside one inserted run (new text).

        Searches only what was inserted, not all of v2: a moved passage is new text in v2.
        """
        if self._ins_joined is None:
            tags, b0s, b1s, v2 = self._tag, self._b0, self._b1, self.b
            runs = [(b0s[k], b1s[k]) for k in self._changed if tags[k] == INSERT]
            # Runs are joined by U+0000, which no needle from a document body carries.
            self._ins_joined = "\0".join([v2[x:y] for x, y in runs])
            starts = list(accumulate([y - x + 1 for x, y in runs], initial=0))
            starts.pop()
            self._ins_starts, self._ins_runs = starts, runs
        if "\0" in needle:
            return []
        starts, runs = self._ins_starts, self._ins_runs
        out: list[tuple[int, int]] = []
        for i in find_starts(self._ins_joined, needle, limit):
            j = bisect.bisect_right(starts, i) - 1
            b = runs[j][0] + (i - starts[j])
            out.append((b, b + len(needle)))
        return out

    # -- churn -----------------------------------------------------------------------

    def changes(self) -> list[Change]:
        """Every changed region, a deletion and its adjacent insertion joined into one."""
        out: list[Change] = []
        a, b = self.a, self.b
        a0s, a1s, b0s, b1s = self._a0, self._a1, self._b0, self._b1
        changed = self._changed
        i, m = 0, len(changed)
        while i < m:
            first = last = changed[i]
            i += 1
            while i < m and changed[i] == last + 1:  # a run of changed ops
                last = changed[i]
                i += 1
            # Deletions of a run are contiguous in v1 (insertions do not advance it), and
            # insertions in v2: the run's deleted and inserted texts are single slices.
            a0, a1, b0, b1 = a0s[first], a1s[last], b0s[first], b1s[last]
            out.append(Change(a0, a1, b0, b1, a[a0:a1], b[b0:b1]))
        return out

    def total_changed(self) -> int:
        """Characters changed in all: deleted plus inserted, moved text left out."""
        moved = sum(e - s for s, e in self._moved_a) + sum(e - s for s, e in self._moved_b)
        return len(self.a) + len(self.b) - 2 * self._equal_total - moved

    def split_churn(self, spans: list[tuple[int, int]]) -> tuple[int, int, list[Change]]:
        """Characters changed inside and outside the v1 ``spans``, and the outside pieces.

        A deleted character is inside when it lies in some span ``[s, e)``; an insertion at
        v1 boundary ``p`` is inside when ``s <= p <= e`` for some span: an insertion at an
        anchor's boundary counts as inside it (docs/metrics.md, collateral churn). Moved text is neither
        (``moved_total`` counts it). Returns ``(inside, outside, collateral)`` where
        ``collateral`` lists the outside pieces as Changes with their v1 and v2 ranges, for
        display.
        """
        starts, ends = _merge_spans(spans)
        nm = len(starts)
        a, b = self.a, self.b
        tags, a0s, a1s, b0s, b1s = self._tag, self._a0, self._a1, self._b0, self._b1
        moved_a, moved_b = self._moved_a, self._moved_b
        inside = outside = 0
        collateral: list[Change] = []
        # Ops come in order of their v1 start, so the span at or before an op's start is
        # found by moving one index forward, never by a search.
        j = -1  # the last merged span starting at or before the op's v1 start
        for k in self._changed:
            p = a0s[k]
            while j + 1 < nm and starts[j + 1] <= p:
                j += 1
            if tags[k] == INSERT:
                x0, x1 = b0s[k], b1s[k]
                if moved_b:
                    pieces = _not_in(x0, x1, moved_b)
                    n = sum(y - x for x, y in pieces)
                else:
                    pieces, n = None, x1 - x0
                if not n:
                    continue
                if j >= 0 and p <= ends[j]:
                    share = n
                elif k > 0 and tags[k - 1] == DELETE and a1s[k - 1] == p:
                    # The insertion replaces the deletion before it: it is inside in the
                    # proportion the replaced text was (a replaced anchor's replacement
                    # is the fix, not collateral).
                    d0, d1 = a0s[k - 1], a1s[k - 1]
                    share = round(n * _overlap(starts, ends, d0, d1) / (d1 - d0))
                else:
                    share = 0
                inside += share
                outside += n - share
                if share == 0:
                    if pieces is None:
                        collateral.append(Change(p, p, x0, x1, "", b[x0:x1]))
                    else:
                        collateral.extend(Change(p, p, x, y, "", b[x:y]) for x, y in pieces)
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
                        collateral.append(Change(pos, end, y, y, a[pos:end], ""))
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
