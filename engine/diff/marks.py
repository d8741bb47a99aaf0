"""What changed between two versions, as marks a view can draw: the change spans.

``change_view(a, b)`` diffs ``a`` (the earlier version's body text) against ``b`` (the
later one's) with :class:`engine.diff.diffing.TextDiff`, the same diff the verdicts are
computed from, and lists every deleted and inserted piece with its place in three texts:

- in ``a`` (a deletion) or in ``b`` (an insertion), so each side-by-side pane can strike
  through what its version lost or underline what it gained;
- in the *merged* text, every equal, deleted and inserted piece in order (at a replaced
  place the deleted text comes first, as in Word's Compare), so one document can show both;
- and the diff's alignment: ``b_for_a`` / ``a_for_b`` map a position of one version to
  the matching position of the other, so two panes can scroll together.

Every offset here counts UTF-16 code units (the unit of body ``textContent`` and of the
anchor contract, ``engine.text.utf16``); the diff itself works in code points and is converted
here, once, exactly. A piece inside a moved passage (``TextDiff.moves``: the same sentences
deleted in one place and inserted in another) is marked ``moved``.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.diff.align import DEFAULT_LIMITS, DELETE, EQUAL, INSERT, DiffLimits
from engine.diff.diffing import TextDiff
from engine.text.outline import Heading
from engine.text.utf16 import OffsetMap, utf16_length

MarkKind = Literal["deleted", "inserted"]


@dataclass(frozen=True, slots=True)
class ChangeMark:
    """One deleted or inserted piece. ``start``/``end``: UTF-16 units into its own version
    (``a`` for a deletion, ``b`` for an insertion); ``merged_start``/``merged_end``: into
    the merged text; ``at``: the position in the *other* version where it happened (the
    boundary a deletion left in ``b``, or an insertion was made at in ``a``)."""

    kind: MarkKind
    start: int
    end: int
    merged_start: int
    merged_end: int
    at: int
    text: str
    moved: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "merged_start": self.merged_start,
            "merged_end": self.merged_end,
            "at": self.at,
            "text": self.text,
            "moved": self.moved,
        }


@dataclass(frozen=True, slots=True)
class _Piece:
    op: int  # EQUAL, DELETE or INSERT
    a0: int  # UTF-16 starts in a, b and the merged text
    b0: int
    m0: int
    n: int  # UTF-16 length
    text: str


class ChangeView:
    """The change spans of ``a`` -> ``b`` and the alignment between them (UTF-16 units).

    ``marks``: every deleted and inserted piece in merged order. ``pieces``: the merged
    text as ``(kind, text)``, kind ``"equal"``, ``"deleted"`` or ``"inserted"``; their
    texts joined are ``merged``. ``approximate``: a bound of the diff's limits was hit
    somewhere, so the alignment there may be coarser than minimal.
    """

    def __init__(
        self,
        a: str,
        b: str,
        limits: DiffLimits = DEFAULT_LIMITS,
        breaks: tuple[Sequence[int] | None, Sequence[int] | None] = (None, None),
    ):
        self.a, self.b = a, b
        diff = TextDiff(a, b, limits=limits, breaks=breaks)
        self._diff = diff  # for place_in_b
        self._maps: tuple[OffsetMap, OffsetMap] | None = None
        self.approximate = bool(diff.approximate)
        self._pieces: list[_Piece] = []
        marks: list[ChangeMark] = []
        a16 = b16 = m16 = 0  # UTF-16 positions
        acp = bcp = 0  # code-point positions (for the moves, which count code points)
        for op, text in diff.diffs:
            n = utf16_length(text)
            if not text:
                continue
            self._pieces.append(_Piece(op, a16, b16, m16, n, text))
            if op == DELETE:
                moved = diff.moved_to(acp, acp + len(text)) is not None
                marks.append(ChangeMark("deleted", a16, a16 + n, m16, m16 + n, b16, text, moved))
            elif op == INSERT:
                moved = diff.moved_from(bcp, bcp + len(text)) is not None
                marks.append(ChangeMark("inserted", b16, b16 + n, m16, m16 + n, a16, text, moved))
            if op != INSERT:
                a16 += n
                acp += len(text)
            if op != DELETE:
                b16 += n
                bcp += len(text)
            m16 += n
        self.marks: tuple[ChangeMark, ...] = tuple(marks)
        self.merged_length = m16
        self.a_length, self.b_length = a16, b16
        # Per side, the pieces that hold its text (equal + deleted for a, equal + inserted
        # for b), by start, for bisection.
        self._side = {
            "a": [p for p in self._pieces if p.op != INSERT],
            "b": [p for p in self._pieces if p.op != DELETE],
        }
        self._starts = {
            "a": [p.a0 for p in self._side["a"]],
            "b": [p.b0 for p in self._side["b"]],
        }

    @property
    def identical(self) -> bool:
        return not self.marks

    @property
    def merged(self) -> str:
        """Equal, deleted and inserted texts in order (deleted before inserted)."""
        return "".join(p.text for p in self._pieces)

    @property
    def pieces(self) -> list[tuple[str, str]]:
        names = {EQUAL: "equal", DELETE: "deleted", INSERT: "inserted"}
        return [(names[p.op], p.text) for p in self._pieces]

    def counts(self) -> dict[str, int]:
        """Pieces deleted, inserted and moved (a moved passage counts once per side)."""
        out = {"deleted": 0, "inserted": 0, "moved": 0}
        for m in self.marks:
            out["moved" if m.moved else m.kind] += 1
        return out

    def _piece_at(self, side: str, off: int) -> _Piece | None:
        starts = self._starts[side]
        j = bisect.bisect_right(starts, off) - 1
        return self._side[side][j] if j >= 0 else None

    def _check(self, off: int, length: int) -> None:
        if not 0 <= off <= length:
            raise ValueError(f"offset {off} outside 0..{length}")

    def merged_from_a(self, off: int) -> int:
        """Merged offset of ``a`` offset ``off`` (UTF-16). Raises ValueError outside ``a``."""
        self._check(off, self.a_length)
        p = self._piece_at("a", off)
        if p is None or off >= p.a0 + p.n:  # at the very end (or an empty text)
            return self._end_before_insert("a", off)
        return p.m0 + (off - p.a0)

    def merged_from_b(self, off: int) -> int:
        """Merged offset of ``b`` offset ``off`` (UTF-16). Raises ValueError outside ``b``."""
        self._check(off, self.b_length)
        p = self._piece_at("b", off)
        if p is None or off >= p.b0 + p.n:
            return self._end_before_insert("b", off)
        return p.m0 + (off - p.b0)

    def _end_before_insert(self, side: str, off: int) -> int:
        """The merged position of the end of ``side``: the end of its last piece."""
        pieces = self._side[side]
        if not pieces:
            return 0
        last = pieces[-1]
        return last.m0 + last.n

    def merged_span(self, side: Literal["a", "b"], start: int, end: int) -> tuple[int, int]:
        """The merged range of ``side``'s ``[start, end)`` (UTF-16): text inserted or
        deleted just outside the span is left out. Raises ValueError outside the side."""
        conv = self.merged_from_a if side == "a" else self.merged_from_b
        s = conv(start)
        if end <= start:
            return s, s
        return s, conv(end - 1) + 1

    def b_for_a(self, off: int) -> int:
        """The ``b`` position aligned with ``a`` offset ``off``: the same character in an
        equal run, the place the text went inside a deletion. Raises ValueError outside."""
        self._check(off, self.a_length)
        p = self._piece_at("a", off)
        if p is None:
            return 0
        if p.op == EQUAL:
            return p.b0 + min(off - p.a0, p.n)
        return p.b0

    def a_for_b(self, off: int) -> int:
        """The ``a`` position aligned with ``b`` offset ``off`` (the reverse of
        ``b_for_a``). Raises ValueError outside ``b``."""
        self._check(off, self.b_length)
        p = self._piece_at("b", off)
        if p is None:
            return 0
        if p.op == EQUAL:
            return p.a0 + min(off - p.b0, p.n)
        return p.a0

    def place_in_b(self, start: int, end: int) -> int:
        """The point of ``b`` (UTF-16) where ``a``'s ``[start, end)`` stood: for a deleted
        comment's quote, the place its text was (``TextDiff.place_in_b``, the rule a Word
        copy re-creates such a comment at). Raises ValueError outside ``a``."""
        self._check(start, self.a_length)
        self._check(end, self.a_length)
        if self._maps is None:
            self._maps = (OffsetMap(self.a), OffsetMap(self.b))
        ma, mb = self._maps
        s = ma.to_codepoint(start, snap="floor")
        e = ma.to_codepoint(max(start, end), snap="ceil")
        return mb.to_utf16(self._diff.place_in_b(s, e))

    def alignment(self) -> list[tuple[int, int]]:
        """``(a offset, b offset)`` at the start and end of every equal run: between two
        pairs the versions match character for character (the panes' scroll map)."""
        out: list[tuple[int, int]] = []
        for p in self._pieces:
            if p.op == EQUAL:
                out.append((p.a0, p.b0))
                out.append((p.a0 + p.n, p.b0 + p.n))
        return out


def change_view(
    a: str,
    b: str,
    limits: DiffLimits = DEFAULT_LIMITS,
    breaks: tuple[Sequence[int] | None, Sequence[int] | None] = (None, None),
) -> ChangeView:
    """The change spans of ``a`` -> ``b`` (body texts; offsets in UTF-16 units).
    ``breaks``: each text's block edges (code points, ``Extraction.block_breaks``), which
    no diff unit crosses, as in the verdicts' diff (``Version.diff_to``): without them a
    heading glued to the next paragraph ("TravelTrains") is diffed as one word."""
    return ChangeView(a, b, limits, breaks)


def inline_pieces(a: str, b: str) -> list[tuple[str, str]]:
    """A short passage's changes as ``(kind, text)`` in merged order (kind ``equal``,
    ``deleted``, ``inserted``): for a table cell that shows one comment's v1 and v2."""
    return ChangeView(a, b).pieces


def merged_outline(
    cv: ChangeView, a_heads: Sequence[Heading], b_heads: Sequence[Heading]
) -> list[Heading]:
    """Both versions' headings (``engine.text.outline``, UTF-16 units of ``cv.a`` and
    ``cv.b``) placed in the merged text, in its order: every heading of ``b``, the version
    read, and every heading of ``a`` whose text the merged text shows wholly struck through
    (one the revision deleted, ``removed`` True; a heading kept or edited is ``b``'s, one
    made ordinary text is none). A heading outside its version's text is left out."""
    placed: list[Heading] = []
    for h in b_heads:
        try:
            s, e = cv.merged_span("b", h.start, h.end)
        except ValueError:
            continue
        placed.append(Heading(s, e, h.level, h.text))
    kept = sorted((h.start, h.end) for h in placed)
    for h in a_heads:
        try:
            s, e = cv.merged_span("a", h.start, h.end)
        except ValueError:
            continue
        k = bisect.bisect_left(kept, (e, e))
        if k > 0 and kept[k - 1][1] > s:
            continue  # the same heading, kept or edited: b's stands
        if _deleted_length(cv, s, e) == e - s:  # not one that is ordinary text in b
            placed.append(Heading(s, e, h.level, h.text, removed=True))
    return sorted(placed, key=lambda h: (h.start, h.end))


def _deleted_length(cv: ChangeView, start: int, end: int) -> int:
    """How many UTF-16 units of the merged ``[start, end)`` are deleted text."""
    marks = cv.marks
    k = bisect.bisect_right([m.merged_end for m in marks], start)
    n = 0
    while k < len(marks) and marks[k].merged_start < end:
        m = marks[k]
        if m.kind == "deleted":
            n += min(end, m.merged_end) - max(start, m.merged_start)
        k += 1
    return n
