"""Exact conversion between UTF-16 code units and Python code-point indices.

Browsers, JavaScript and the anchor contract count UTF-16 code units; Python ``str``
indexes code points. A code point above U+FFFF (emoji, mathematical letters, each part of
a ZWJ sequence) is two UTF-16 units and one code point. Conversion happens here and only
here, exactly at the boundary.

``OffsetMap`` answers many conversions on one text in O(log n) each after an O(n) scan
that touches only the astral characters (found by a regular expression, not a Python loop,
and only when the text has any).
"""

from __future__ import annotations

import bisect
import re

ASTRAL = re.compile("[\U00010000-\U0010ffff]")
"""One character above U+FFFF (two UTF-16 units, one code point)."""


class OffsetMap:
    """Converts offsets for one text.

    ``astral`` holds the code-point index of every astral character, ascending. A UTF-16
    offset that falls between the two halves of a surrogate pair is not a character
    boundary: ``to_codepoint`` raises ValueError for it unless ``snap`` is "floor" or
    "ceil".
    """

    __slots__ = ("astral", "text", "utf16_length")

    def __init__(self, text: str):
        self.text = text
        self.astral = [m.start() for m in ASTRAL.finditer(text)] if has_astral(text) else []
        self.utf16_length = len(text) + len(self.astral)

    def to_utf16(self, cp: int) -> int:
        """Code-point index (0..len(text)) to UTF-16 units. Raises ValueError out of range."""
        if not 0 <= cp <= len(self.text):
            raise ValueError(f"code-point offset {cp} outside 0..{len(self.text)}")
        return cp + bisect.bisect_left(self.astral, cp)

    def to_codepoint(self, u16: int, snap: str | None = None) -> int:
        """UTF-16 offset (0..utf16_length) to a code-point index.

        Raises ValueError when out of range, or inside a surrogate pair and ``snap`` is None;
        ``snap="floor"``/``"ceil"`` move such an offset to the pair's start/end instead.
        """
        if not 0 <= u16 <= self.utf16_length:
            raise ValueError(f"UTF-16 offset {u16} outside 0..{self.utf16_length}")
        # Find k = number of astral characters strictly before the answer. The answer cp
        # satisfies cp + k == u16 where k = #astral < cp. Binary search over astral list:
        # the i-th astral char (cp a_i) starts at UTF-16 unit a_i + i.
        lo, hi = 0, len(self.astral)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.astral[mid] + mid < u16:
                lo = mid + 1
            else:
                hi = mid
        # lo astral characters start before u16 (in UTF-16 units).
        if lo and self.astral[lo - 1] + (lo - 1) + 1 == u16:
            # u16 points at the low surrogate of astral character lo-1.
            if snap == "floor":
                return self.astral[lo - 1]
            if snap == "ceil":
                return self.astral[lo - 1] + 1
            raise ValueError(f"UTF-16 offset {u16} splits a surrogate pair")
        return u16 - lo


_PIECE = 1 << 20


def has_astral(text: str, pos: int = 0, endpos: int | None = None) -> bool:
    """Whether ``text[pos:endpos]`` (code points; ``endpos`` None or past the end: to the
    end) holds a character above U+FFFF: False at once for ASCII text, else the UTF-16
    length of each megabyte compared with its length (C speed; the regular expression scan
    costs ten times more, and most texts have none). Never raises."""
    if text.isascii():
        return False
    end = len(text) if endpos is None else min(endpos, len(text))
    for i in range(max(0, pos), end, _PIECE):
        piece = text[i : min(i + _PIECE, end)]
        if len(piece.encode("utf-16-le", "surrogatepass")) != 2 * len(piece):
            return True
    return False


def to_utf16(text: str, cp: int) -> int:
    """Code-point index into ``text`` to UTF-16 units (one-off; use OffsetMap for many)."""
    if not 0 <= cp <= len(text):
        raise ValueError(f"code-point offset {cp} outside 0..{len(text)}")
    return cp + len(ASTRAL.findall(text, 0, cp))


def to_codepoint(text: str, u16: int, snap: str | None = None) -> int:
    """UTF-16 offset into ``text`` to a code-point index (one-off). See OffsetMap."""
    return OffsetMap(text).to_codepoint(u16, snap)


def utf16_length(text: str) -> int:
    """Length of ``text`` in UTF-16 code units."""
    return len(text) + len(ASTRAL.findall(text))


def codepoint_span(
    omap: OffsetMap, start: int | None, end: int | None
) -> tuple[int, int] | tuple[None, None]:
    """UTF-16 offsets ``[start, end)`` of ``omap``'s text as code points (a start inside a
    surrogate pair snaps back to the pair, an end forward); ``(None, None)`` where either
    is missing or cannot index the text (negative, past its end) or the start is past
    the end."""

    def conv(u: int | None, snap: str) -> int | None:
        if u is None or not 0 <= u <= omap.utf16_length:
            return None
        return omap.to_codepoint(u, snap)

    s, e = conv(start, "floor"), conv(end, "ceil")
    if s is None or e is None or s > e:
        return None, None
    return s, e
