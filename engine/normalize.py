"""Text normalisation for comparing anchored text, with an exact map back to raw offsets.

DESIGN.md: for comparing only (offsets always index the raw text), Unicode compatibility
forms are folded (NFKC: a ligature equals its letters, NBSP equals a space), soft hyphens
and zero-width characters are dropped, whitespace runs collapse to one space and are
trimmed. The set of dropped characters is the default-ignorable subset that real pages
carry inside words (U+00AD, U+200B-U+200D, U+2060, U+FEFF); Hypothesis's client strips the
same set when it compares quotes.

``FoldedText`` folds a whole text once and keeps a segment map from folded indices back to
raw code-point indices, so a match found in folded text becomes a raw span. Runs of plain
ASCII are copied by slices, so a mostly-ASCII megabyte folds in a few milliseconds.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache

IGNORABLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_IGNORABLE_RE = re.compile(f"[{IGNORABLE}]")
_WS_RE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """The comparison form of ``text``: NFKC, ignorables dropped, whitespace collapsed, trimmed."""
    text = unicodedata.normalize("NFKC", _IGNORABLE_RE.sub("", text))
    return _WS_RE.sub(" ", text).strip()


def compact(text: str) -> str:
    """Like ``normalize`` with every whitespace character removed.

    For matching a quote captured from a rendered selection, where ``<br>`` or a block
    boundary shows as a space that ``textContent`` does not have (Hypothesis client #3692).
    """
    return _WS_RE.sub("", normalize(text))


@lru_cache(maxsize=2)
def _special_re(collapse_space: bool = True) -> re.Pattern[str]:
    # Combining marks (canonical combining class > 0) of the BMP: a base character and the
    # marks after it fold together, so NFKC can compose them. Built once, lazily.
    marks = "".join(
        chr(c)
        for c in range(0x300, 0x10000)
        if unicodedata.combining(chr(c)) and not 0xD800 <= c <= 0xDFFF
    )
    cls = re.escape(marks)
    # Collapsing leaves a lone space between two visible characters as it is: it is
    # already its folded form, and skipping it keeps plain prose in long 1:1 runs.
    lone_space = rf"(?![ ](?![\s{IGNORABLE}]))" if collapse_space else ""
    return re.compile(
        rf"(?P<ws>{lone_space}[\s{IGNORABLE}]+)"
        rf"|(?P<ch>(?:[^\x00-\x7f\s{IGNORABLE}]|[\x00-\x7f](?=[{cls}]))[{cls}]*)"
    )


def find_starts(haystack: str, needle: str, limit: int) -> list[int]:
    """Start index of every occurrence of ``needle`` in ``haystack``, overlapping ones
    included, at most ``limit``; none for an empty needle."""
    out: list[int] = []
    if not needle:
        return out
    i = haystack.find(needle)
    while i >= 0 and len(out) < limit:
        out.append(i)
        i = haystack.find(needle, i + 1)
    return out


class FoldedText:
    """``text`` folded for matching, with a map back to raw code-point offsets.

    ``collapse_space=True``: whitespace runs (and ignorables) become one space, as in
    ``normalize`` (without trimming, so offsets stay aligned); ``False``: all whitespace
    is removed, as in ``compact``. ``folded`` is the folded string.
    """

    __slots__ = ("_exact", "_fstarts", "_rends", "_rstarts", "folded", "raw")

    def __init__(self, raw: str, *, collapse_space: bool = True):
        self.raw = raw
        parts: list[str] = []
        # Segments: folded start, raw start, raw end, and whether folded maps 1:1 to raw.
        fstarts: list[int] = []
        rstarts: list[int] = []
        rends: list[int] = []
        exact: list[bool] = []
        flen = 0
        pos = 0
        last_space = True  # collapse leading space too (trimmed form never starts with one)

        def emit(s: str, r0: int, r1: int, one_to_one: bool) -> None:
            nonlocal flen
            if not s:
                return
            parts.append(s)
            fstarts.append(flen)
            rstarts.append(r0)
            rends.append(r1)
            exact.append(one_to_one)
            flen += len(s)

        for m in _special_re(collapse_space).finditer(raw):
            if m.start() > pos:
                emit(raw[pos : m.start()], pos, m.start(), True)
                last_space = raw[m.start() - 1] == " "
            if m.lastgroup == "ws":
                has_space = any(c not in IGNORABLE for c in m.group())
                if has_space and collapse_space and not last_space:
                    emit(" ", m.start(), m.end(), False)
                    last_space = True
            else:
                folded = unicodedata.normalize("NFKC", m.group())
                if folded.isspace():  # NBSP and friends fold to a space
                    if collapse_space and not last_space:
                        emit(" ", m.start(), m.end(), False)
                        last_space = True
                else:
                    folded = _WS_RE.sub(" " if collapse_space else "", folded)
                    emit(folded, m.start(), m.end(), len(folded) == m.end() - m.start())
                    last_space = folded.endswith(" ")
            pos = m.end()
        if pos < len(raw):
            emit(raw[pos:], pos, len(raw), True)
        self.folded = "".join(parts)
        self._fstarts = fstarts
        self._rstarts = rstarts
        self._rends = rends
        self._exact = exact

    def raw_start(self, f: int) -> int:
        """Raw offset where folded character ``f`` begins (len(raw) past the end)."""
        if f >= len(self.folded):
            return len(self.raw)
        i = bisect.bisect_right(self._fstarts, f) - 1
        if self._exact[i]:
            return self._rstarts[i] + (f - self._fstarts[i])
        return self._rstarts[i]

    def raw_end(self, f: int) -> int:
        """Raw offset just after folded character ``f - 1`` (0 for f == 0)."""
        if f <= 0:
            return 0
        i = bisect.bisect_right(self._fstarts, f - 1) - 1
        if self._exact[i]:
            return self._rstarts[i] + (f - self._fstarts[i])
        return self._rends[i]

    def raw_span(self, f0: int, f1: int) -> tuple[int, int]:
        """The raw code-point span covering folded ``[f0, f1)``."""
        return self.raw_start(f0), self.raw_end(f1)

    def find_all(self, needle: str, limit: int = 10_000) -> list[tuple[int, int]]:
        """Raw spans of every occurrence of the already-folded ``needle`` (at most ``limit``)."""
        n = len(needle)
        return [self.raw_span(i, i + n) for i in find_starts(self.folded, needle, limit)]


def fold_needle(s: str, *, collapse_space: bool = True) -> str:
    """Fold a quote for searching a FoldedText built with the same ``collapse_space``."""
    return FoldedText(s, collapse_space=collapse_space).folded.strip()
