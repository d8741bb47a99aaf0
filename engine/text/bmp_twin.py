"""Regular expressions whose classes hold characters above U+FFFF, at the speed of classes
that hold none, on the text (nearly all text) that holds none either.

CPython's ``re`` keeps a class's characters up to U+FFFF in one lookup table, and the ones
above U+FFFF (Unicode's Sentence_Terminal has 85 of them: Brahmi, Chakma, Sharada,
Sinhala archaic...) as a list it walks one by one, after the table, for every character
the table does not hold (``re._compiler._optimize_charset``: a "big charset" covers only
the BMP). A class of "every full stop of every script" therefore costs each letter of an
English text a walk of 85 items: the sentence cutting of the diff ran at 12 MB/s, and
cutting the same text with the same class less its 85 characters at 220 MB/s.

``BmpTwin`` compiles a pattern twice from one source function: as written, and with every
character above U+FFFF taken out of its classes (the *BMP twin*). The source function is
called with ``keep``, the filter every class's characters pass through (all of them for the
pattern as written, those up to U+FFFF for the twin), so the two differ in their classes'
characters above U+FFFF and nowhere else. Such a character can match only itself, so on a
text whose characters the scan may look at are all up to U+FFFF the twin finds what the
pattern finds, match for match. Each call looks at the part of the text the scan may see
(from ``behind`` characters before ``pos``, the pattern's longest look-behind, to
``endpos``; at once for ASCII text) and takes the twin where it holds no character above
U+FFFF, the pattern as written where it does (tests/engine/test_bmp_twin.py checks both
ways on random text of both kinds).

``BmpTwin(source, flags=0, *, behind=0)``; ``bmp_only(chars) -> str``. Positions are code
points, as ``re`` counts them. No Qt import here: this module belongs to ``engine/``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

from engine.text.utf16 import has_astral

__all__ = ["BmpTwin", "bmp_only", "every_char"]


def every_char(chars: str) -> str:
    """The ``keep`` of the pattern as written: ``chars`` unchanged."""
    return chars


def bmp_only(chars: str) -> str:
    """The ``keep`` of the BMP twin: the characters of ``chars`` up to U+FFFF, in order."""
    return (
        chars
        if max(chars, default="\0") <= "\uffff"
        else "".join(c for c in chars if c <= "\uffff")
    )


class BmpTwin:
    """A pattern and its BMP twin (see the module docstring), with the ``re.Pattern``
    methods the engine uses; each takes the twin where the text it looks at allows.

    ``source(keep) -> str``: the pattern's source, each class's characters passed through
    ``keep`` before they are escaped (a class must keep a character up to U+FFFF, so that
    the twin's is not empty). ``behind``: the most characters a look-behind of the pattern
    reaches before the position it stands at (0 for none). Raises ``re.error`` as
    ``re.compile`` does."""

    __slots__ = ("behind", "bmp", "full")

    def __init__(
        self, source: Callable[[Callable[[str], str]], str], flags: int = 0, *, behind: int = 0
    ) -> None:
        self.full = re.compile(source(every_char), flags)
        self.bmp = re.compile(source(bmp_only), flags)
        self.behind = behind

    @property
    def pattern(self) -> str:
        """The source of the pattern as written."""
        return self.full.pattern

    def for_text(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Pattern[str]:
        """The twin when ``text`` from ``behind`` characters before ``pos`` to ``endpos``
        holds no character above U+FFFF, else the pattern as written."""
        if has_astral(text, max(0, pos - self.behind), endpos):
            return self.full
        return self.bmp

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        """``re.Pattern.search``. It looks at the whole of ``[pos - behind, endpos)`` first,
        where the search itself may stop at its first match: a caller that searches long
        windows of one text again and again takes ``for_text(text)`` once instead."""
        return self.for_text(text, pos, endpos).search(text, pos, endpos)

    def finditer(
        self, text: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        """``re.Pattern.finditer``."""
        return self.for_text(text, pos, endpos).finditer(text, pos, endpos)

    def findall(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> list[str]:
        """``re.Pattern.findall`` (of a pattern without groups: the matched strings)."""
        return self.for_text(text, pos, endpos).findall(text, pos, endpos)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        """``re.Pattern.split``."""
        return self.for_text(text).split(text, maxsplit)
