"""Word comment ranges from the range marks found in the page's text, with every way they
can be wrong said in words (docs/anchor.md, "Word documents").

A comment's range is the text between its ``w:commentRangeStart`` and its
``w:commentRangeEnd`` (same ``w:id``). ECMA-376 gives each id one pair; a file edited by
other tools can break that, and each break is either read as Word and LibreOffice show it
or reported, never read as a wrong range:

- no marks, only a start or only an end, an end before its start, an empty range: the
  comment is skipped with that reason;
- range marks of one id more than once (LibreOffice shows the comment twice, once per
  pair): skipped, naming the words of each pair, since one comment has one place here (the
  reader used to take the first start to the last end, and so the text between);
- two comments with one id in ``comments.xml`` (LibreOffice merges them into one): the
  first is read, each later one skipped, naming the first;
- range marks with no comment (Word and LibreOffice show nothing there): left out, and
  the document's notice says so.

No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

from engine.text.docx_marks import END, START

__all__ = ["comment_range", "orphan_notice", "words_at"]

#: (kind, code point offset in the clean text) of one id's range marks, in text order.
Marks = list[tuple[int, int]]


def words_at(text: str, start: int, end: int, most: int = 30) -> str:
    """The words of ``text[start:end]`` (code points) for a message: spaces folded, at most
    ``most`` characters with "…", in curly quotes; "(no text)" when empty."""
    words = " ".join(text[start:end].split())
    if not words:
        return "(no text)"
    return f"“{words[:most]}…”" if len(words) > most else f"“{words}”"


def _times(n: int) -> str:
    return "twice" if n == 2 else f"{n} times"


def _pairs(marks: Marks) -> list[tuple[int, int]]:
    """Each start paired with the first end after it, as LibreOffice pairs them."""
    pairs, pending = [], None
    for kind, at in marks:
        if kind == START and pending is None:
            pending = at
        elif kind == END and pending is not None:
            pairs.append((pending, at))
            pending = None
    return pairs


def comment_range(marks: Marks | None, text: str) -> tuple[int | None, int | None, str | None]:
    """(start, end) in code points of a comment's range on ``text``, or (None, None, why it
    cannot be read, a phrase). The range's line breaks at its two ends are left out, so it
    covers the words Word highlights."""
    starts = [at for kind, at in marks or () if kind == START]
    ends = [at for kind, at in marks or () if kind == END]
    if not starts and not ends:
        return (
            None,
            None,
            "its range is missing: it is attached to no words of the document (a comment "
            "on a point, or in a header or footer)",
        )
    if not starts or not ends:
        return (
            None,
            None,
            f"its range has no {'start' if not starts else 'end'} mark in the shown text",
        )
    if len(starts) > 1 or len(ends) > 1:
        pairs = _pairs(marks or [])
        on = " and ".join(words_at(text, a, b) for a, b in pairs[:3])
        return (
            None,
            None,
            f"its range marks appear {_times(max(len(starts), len(ends)))}"
            + (f" (on {on})" if pairs else "")
            + ", so which words it is on cannot be told",
        )
    start, end = starts[0], ends[0]
    if end < start:
        return None, None, "its range ends before it starts"
    while start < end and text[start] == "\n":
        start += 1
    while end > start and text[end - 1] == "\n":
        end -= 1
    if start == end:
        return None, None, "its range is empty (it covers no text)"
    return start, end, None


def orphan_notice(marks: dict[str, Marks], ids: set[str], text: str) -> str | None:
    """The document's notice for range marks whose id no comment has (``ids``: the
    comments' ids, as keyed in ``marks``), or None when every range has its comment."""
    orphans = sorted((m[0][1], key) for key, m in marks.items() if key not in ids and m)
    if not orphans:
        return None
    first = _pairs(marks[orphans[0][1]])
    where = f" (the first on {words_at(text, *first[0])})" if first else ""
    n = len(orphans)
    return (
        f"{n} comment range{'s' if n != 1 else ''} with no comment in the comments part"
        f"{where} left out, as Word shows no comment there"
    )
