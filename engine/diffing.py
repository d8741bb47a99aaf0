"""Character-level diff of two texts, position mapping through it, and churn accounting.

The diff is Myers' O(ND) algorithm as implemented by diff-match-patch (Neil Fraser,
"diff-match-patch", Google), run in two passes the way its own line mode works, with
sentences instead of lines as the coarse unit:

1. the common prefix and suffix are cut off;
2. the middle of each text is split into sentence chunks (a chunk ends at ``.``, ``!``,
   ``?`` or a newline), each chunk becomes one character, and those strings are diffed;
3. every changed hunk (deleted chunks against inserted chunks) is diffed word by word and
   cleaned up semantically (``diff_cleanupSemantic``), so a replaced word shows as one
   deletion and one insertion, not as scattered shared letters; a short replacement is
   then diffed by character ("colour" -> "color" changes one character).

Documents whose ``textContent`` has no newlines (a minified page) still split into many
chunks, and the character pass only ever sees the changed sentences. A deadline bounds
the whole diff; a hunk left when it runs out is reported as deleted and inserted whole,
which is still a correct (if coarse) diff.

All offsets here are code-point indices. An insertion sits at a v1 boundary ``p`` (between
characters ``p-1`` and ``p``).
"""

from __future__ import annotations

import bisect
import re
import time
from dataclasses import dataclass

from diff_match_patch import diff_match_patch

from engine.normalize import find_starts

EQUAL, DELETE, INSERT = 0, -1, 1
_CHUNK_RE = re.compile(r"[^\n.!?]*(?:[.!?]+[ \t]*\n?|\n)|[^\n.!?]+")

DIFF_DEADLINE_S = 10.0
"""Seconds the character pass may take on one pair of texts before coarse hunks."""


def _dmp(timeout: float) -> diff_match_patch:
    d = diff_match_patch()
    d.Diff_Timeout = max(timeout, 0.001)
    return d


class _TokenCodec:
    """Tokens as single characters, so diff-match-patch diffs token sequences (its own
    ``diff_linesToChars`` idea, for any tokeniser). Codes skip the surrogate block, whose
    code points are not valid characters."""

    def __init__(self, pattern: re.Pattern[str]):
        self.pattern = pattern
        self.table: dict[str, str] = {}
        self.tokens: list[str] = []

    def encode(self, text: str) -> str:
        out = []
        table, tokens = self.table, self.tokens
        for m in self.pattern.finditer(text):
            t = m.group()
            c = table.get(t)
            if c is None:
                n = len(tokens)
                c = chr(n if n < 0xD800 else n + 0x800)
                table[t] = c
                tokens.append(t)
            out.append(c)
        return "".join(out)

    def decode(self, codes: str) -> str:
        tokens = self.tokens
        return "".join(tokens[o if o < 0xD800 else o - 0x800] for o in map(ord, codes))


def diff_texts(a: str, b: str, deadline_s: float = DIFF_DEADLINE_S) -> list[tuple[int, str]]:
    """Diff ``a`` against ``b``: a list of ``(op, text)`` with op EQUAL, DELETE or INSERT.

    Concatenating the EQUAL and DELETE texts gives ``a``; EQUAL and INSERT give ``b``.
    """
    if a == b:
        return [(EQUAL, a)] if a else []
    dmp = _dmp(deadline_s)
    p = dmp.diff_commonPrefix(a, b)
    a_rest, b_rest = a[p:], b[p:]
    s = dmp.diff_commonSuffix(a_rest, b_rest)
    a_mid = a_rest[: len(a_rest) - s]
    b_mid = b_rest[: len(b_rest) - s]
    out: list[tuple[int, str]] = []
    if p:
        out.append((EQUAL, a[:p]))
    out.extend(_diff_middle(a_mid, b_mid, dmp, time.monotonic() + deadline_s))
    if s:
        out.append((EQUAL, a_rest[len(a_rest) - s :]))
    return _merge(out)


def _diff_middle(a: str, b: str, dmp: diff_match_patch, deadline: float):
    if not a:
        return [(INSERT, b)] if b else []
    if not b:
        return [(DELETE, a)]
    codec = _TokenCodec(_CHUNK_RE)
    ca, cb = codec.encode(a), codec.encode(b)
    if len(ca) == 1 and len(cb) == 1:
        coarse = [(DELETE, a), (INSERT, b)]
    else:
        dmp.Diff_Timeout = max(deadline - time.monotonic(), 0.001)
        coarse = [(op, codec.decode(t)) for op, t in dmp.diff_main(ca, cb, False)]
    out: list[tuple[int, str]] = []
    dels: list[str] = []
    ins: list[str] = []

    def flush() -> None:
        d, i = "".join(dels), "".join(ins)
        dels.clear()
        ins.clear()
        if d and i:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                out.extend([(DELETE, d), (INSERT, i)])
                return
            dmp.Diff_Timeout = remaining
            out.extend(_word_diff(d, i, dmp))
        elif d:
            out.append((DELETE, d))
        elif i:
            out.append((INSERT, i))

    for op, t in coarse:
        if op == EQUAL:
            flush()
            out.append((EQUAL, t))
        elif op == DELETE:
            dels.append(t)
        else:
            ins.append(t)
    flush()
    return out


_WORD_RE = re.compile(r"\w+|\s+|[^\w\s]")
REFINE_CHARS = 40
"""Replaced word runs up to this many characters on each side are refined to characters."""


def _word_diff(a: str, b: str, dmp: diff_match_patch) -> list[tuple[int, str]]:
    r"""Diff two changed hunks word by word, then refine short replacements by character.

    Words (``\w+``), whitespace runs and single punctuation marks are the tokens. A word
    diff of a rewritten sentence is a handful of replacements instead of a character
    alignment of scattered shared letters (which is also what ``diff_cleanupSemantic``
    would reduce it to, at many times the cost); a short replacement ("colour" ->
    "color") is then diffed by character so it counts the one character that changed.
    """
    codec = _TokenCodec(_WORD_RE)
    coarse = [
        (op, codec.decode(t)) for op, t in dmp.diff_main(codec.encode(a), codec.encode(b), False)
    ]
    dmp.diff_cleanupSemantic(coarse)
    out: list[tuple[int, str]] = []
    k = 0
    while k < len(coarse):
        op, t = coarse[k]
        if (
            op == DELETE
            and k + 1 < len(coarse)
            and coarse[k + 1][0] == INSERT
            and len(t) <= REFINE_CHARS
            and len(coarse[k + 1][1]) <= REFINE_CHARS
        ):
            fine = dmp.diff_main(t, coarse[k + 1][1], False)
            dmp.diff_cleanupSemantic(fine)
            out.extend(fine)
            k += 2
            continue
        out.append((op, t))
        k += 1
    return out


def _merge(diffs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Join neighbours of the same op; within each changed run, deletions come first."""
    out: list[tuple[int, str]] = []
    dels: list[str] = []
    ins: list[str] = []
    for op, t in diffs + [(EQUAL, "")]:
        if not t and op != EQUAL:
            continue
        if op == DELETE:
            dels.append(t)
        elif op == INSERT:
            ins.append(t)
        else:
            if dels:
                out.append((DELETE, "".join(dels)))
            if ins:
                out.append((INSERT, "".join(ins)))
            dels, ins = [], []
            if t:
                if out and out[-1][0] == EQUAL:
                    out[-1] = (EQUAL, out[-1][1] + t)
                else:
                    out.append((EQUAL, t))
    return out


@dataclass(frozen=True)
class Change:
    """One changed region: v1 ``[a0, a1)`` became v2 ``[b0, b1)``.

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
    """The diff of ``a`` (v1) and ``b`` (v2) with position mapping.

    Ops are kept as parallel arrays ``(tag, a0, a1, b0, b1)`` in order; ``a0`` never
    decreases, so a v1 position is found by bisection in O(log n).
    """

    def __init__(self, a: str, b: str, diffs: list[tuple[int, str]] | None = None):
        self.a = a
        self.b = b
        self.diffs = diff_texts(a, b) if diffs is None else diffs
        tags, a0s, a1s, b0s, b1s = [], [], [], [], []
        ai = bi = 0
        for op, t in self.diffs:
            n = len(t)
            if op == EQUAL:
                tags.append(EQUAL)
                a0s.append(ai)
                a1s.append(ai + n)
                b0s.append(bi)
                b1s.append(bi + n)
                ai += n
                bi += n
            elif op == DELETE:
                tags.append(DELETE)
                a0s.append(ai)
                a1s.append(ai + n)
                b0s.append(bi)
                b1s.append(bi)
                ai += n
            else:
                tags.append(INSERT)
                a0s.append(ai)
                a1s.append(ai)
                b0s.append(bi)
                b1s.append(bi + n)
                bi += n
        self._tag, self._a0, self._a1, self._b0, self._b1 = tags, a0s, a1s, b0s, b1s
        # Non-empty v1 ops (equal, delete) by start, for "which op holds character i".
        self._ka = [k for k, t in enumerate(tags) if t != INSERT]
        self._ka0 = [a0s[k] for k in self._ka]
        # Same for v2 (equal, insert).
        self._kb = [k for k, t in enumerate(tags) if t != DELETE]
        self._kb0 = [b0s[k] for k in self._kb]
        self._ins_joined: str | None = None
        self._ins_starts: list[int] = []
        self._ins_runs: list[tuple[int, int]] = []

    # -- mapping ---------------------------------------------------------------------

    @property
    def identical(self) -> bool:
        return self.a == self.b

    @staticmethod
    def _op_holding(i: int, ks: list[int], starts: list[int], ends: list[int]) -> int | None:
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
            runs = [(self._b0[k], self._b1[k]) for k, t in enumerate(self._tag) if t == INSERT]
            # Runs are joined by U+0000, which no needle from a document body carries.
            self._ins_joined = "\0".join(self.b[b0:b1] for b0, b1 in runs)
            starts, pos = [], 0
            for b0, b1 in runs:
                starts.append(pos)
                pos += b1 - b0 + 1
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
        k, n = 0, len(self._tag)
        while k < n:
            if self._tag[k] == EQUAL:
                k += 1
                continue
            a0, b0 = self._a0[k], self._b0[k]
            deleted = inserted = ""
            while k < n and self._tag[k] != EQUAL:
                if self._tag[k] == DELETE:
                    deleted += self.a[self._a0[k] : self._a1[k]]
                else:
                    inserted += self.b[self._b0[k] : self._b1[k]]
                k += 1
            out.append(Change(a0, a0 + len(deleted), b0, b0 + len(inserted), deleted, inserted))
        return out

    def total_changed(self) -> int:
        """Characters changed in all: deleted plus inserted."""
        return sum(len(t) for op, t in self.diffs if op != EQUAL)

    def split_churn(self, spans: list[tuple[int, int]]) -> tuple[int, int, list[Change]]:
        """Characters changed inside and outside the v1 ``spans``, and the outside pieces.

        A deleted character is inside when it lies in some span ``[s, e)``; an insertion at
        v1 boundary ``p`` is inside when ``s <= p <= e`` for some span: an insertion at an
        anchor's boundary counts as inside it (docs/metrics.md, collateral churn). Returns
        ``(inside, outside, collateral)`` where ``collateral`` lists the outside pieces as
        Changes with their v1 and v2 ranges, for display.
        """
        merged: list[list[int]] = []
        for s, e in sorted(spans):
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        starts = [m[0] for m in merged]

        def covering(p: int) -> list[int] | None:
            j = bisect.bisect_right(starts, p) - 1
            return merged[j] if j >= 0 and p <= merged[j][1] else None

        def overlap(a0: int, a1: int) -> int:
            j = max(bisect.bisect_right(starts, a0) - 1, 0)
            total = 0
            while j < len(merged) and merged[j][0] < a1:
                total += max(0, min(a1, merged[j][1]) - max(a0, merged[j][0]))
                j += 1
            return total

        inside = outside = 0
        collateral: list[Change] = []
        for k, tag in enumerate(self._tag):
            if tag == EQUAL:
                continue
            if tag == INSERT:
                p = self._a0[k]
                n = self._b1[k] - self._b0[k]
                if covering(p):
                    share = n
                elif k > 0 and self._tag[k - 1] == DELETE and self._a1[k - 1] == p:
                    # The insertion replaces the deletion before it: it is inside in the
                    # proportion the replaced text was (a replaced anchor's replacement
                    # is the fix, not collateral).
                    d0, d1 = self._a0[k - 1], self._a1[k - 1]
                    share = round(n * overlap(d0, d1) / (d1 - d0))
                else:
                    share = 0
                inside += share
                outside += n - share
                if share == 0:
                    collateral.append(
                        Change(
                            p, p, self._b0[k], self._b1[k], "", self.b[self._b0[k] : self._b1[k]]
                        )
                    )
                continue
            # Deletion [a0, a1): split against the merged spans.
            a0, a1, b = self._a0[k], self._a1[k], self._b0[k]
            pos = a0
            j = max(bisect.bisect_right(starts, a0) - 1, 0)
            while pos < a1:
                while j < len(merged) and merged[j][1] <= pos:
                    j += 1
                if j < len(merged) and merged[j][0] <= pos:
                    end = min(a1, merged[j][1])
                    inside += end - pos
                else:
                    end = min(a1, merged[j][0]) if j < len(merged) else a1
                    outside += end - pos
                    collateral.append(Change(pos, end, b, b, self.a[pos:end], ""))
                pos = end
        return inside, outside, collateral
